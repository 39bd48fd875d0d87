/**
 * Timing helpers shared by the benchmarks: a monotonic clock, the SAMSA_BENCH_SCALE knob for
 * workload sizes, repeated measurement with warm-up and median, and unit formatting.
 */
import { performance } from 'node:perf_hooks';

/** Monotonic milliseconds (fractional). */
export function nowMs(): number {
  return performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Lets pending I/O, immediates and other event-loop work run before continuing. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The workload multiplier from SAMSA_BENCH_SCALE (default 1). 0.1 gives a quick smoke run,
 * 5 gives longer and steadier runs. Invalid values fall back to 1.
 */
export function benchScale(): number {
  const raw = process.env.SAMSA_BENCH_SCALE;
  if (raw === undefined || raw === '') return 1;
  const v = Number(raw);
  return Number.isFinite(v) && v > 0 ? v : 1;
}

/**
 * How long `npm run bench` warms up before its first measured step, in ms, from
 * SAMSA_BENCH_WARMUP_MS (default 6000; 0: one round of produce-then-read). Unscaled: the suite
 * scales it by SAMSA_BENCH_SCALE. Throws on anything but a number >= 0.
 */
export function benchWarmupMs(text = process.env.SAMSA_BENCH_WARMUP_MS): number {
  return envNumber('SAMSA_BENCH_WARMUP_MS', text, { fallback: 6_000, min: 0, expects: 'a number of milliseconds >= 0' });
}

/**
 * A benchmark setting from the environment: `fallback` when unset or empty, else a finite
 * number >= `min` (an integer when `integer`); anything else throws "<name> expects <expects>".
 */
export function envNumber(name: string, text: string | undefined, opts: { fallback: number; min: number; integer?: boolean; expects: string }): number {
  if (text === undefined || text === '') return opts.fallback;
  const v = Number(text);
  if (!Number.isFinite(v) || v < opts.min || (opts.integer === true && !Number.isInteger(v))) throw new Error(`${name} expects ${opts.expects}, got '${text}'`);
  return v;
}

/** `base` scaled by SAMSA_BENCH_SCALE, rounded to a multiple of `multipleOf` and at least `min`. */
export function scaled(base: number, opts: { min?: number; multipleOf?: number } = {}): number {
  const m = opts.multipleOf ?? 1;
  const v = Math.round((base * benchScale()) / m) * m;
  return Math.max(opts.min ?? m, v);
}

/** One timed run of a workload: how long it took and how much it moved. */
export interface RunResult {
  elapsedMs: number;
  /** Operations completed (messages delivered, round trips). */
  ops: number;
  /** Payload bytes moved, when it matters. */
  bytes?: number;
}

export interface Measurement {
  /** The median rate over the timed runs, in `unit`. */
  value: number;
  unit: string;
  min: number;
  max: number;
  /** Every timed run's rate, in order. */
  samples: number[];
  runs: RunResult[];
}

export type RateUnit = 'msg/s' | 'rt/s' | 'MiB/s' | 'ops/s';

export function rateOf(r: RunResult, unit: RateUnit): number {
  const s = r.elapsedMs / 1000;
  if (s <= 0) return Number.POSITIVE_INFINITY;
  if (unit === 'MiB/s') return (r.bytes ?? 0) / (1024 * 1024) / s;
  return r.ops / s;
}

/**
 * The element of `xs` whose `key` is the median (the lower middle one for an even count), so a
 * benchmark can report the whole run behind a median figure. Undefined for an empty list.
 */
export function medianBy<T>(xs: readonly T[], key: (x: T) => number): T | undefined {
  return [...xs].sort((a, b) => key(a) - key(b))[(xs.length - 1) >> 1];
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Runs `run` `warmup` times untimed, then `reps` times, and reports the median rate.
 * Each run reports its own elapsed time, so a run measured inside another thread counts
 * only its own clock.
 */
export async function measure(
  run: () => Promise<RunResult>,
  opts: { unit: RateUnit; warmup?: number; reps?: number },
): Promise<Measurement> {
  const warmup = opts.warmup ?? 1;
  const reps = opts.reps ?? 3;
  for (let i = 0; i < warmup; i++) await run();
  const runs: RunResult[] = [];
  for (let i = 0; i < reps; i++) runs.push(await run());
  const samples = runs.map((r) => rateOf(r, opts.unit));
  return { value: median(samples), unit: opts.unit, min: Math.min(...samples), max: Math.max(...samples), samples, runs };
}

export interface AdaptiveOptions {
  unit: RateUnit;
  /** Size of the first warm-up run, which also gives the first rate estimate. */
  initialN: number;
  /** Wanted duration of each timed run, before SAMSA_BENCH_SCALE (default 200 ms). */
  targetMs?: number;
  /** Minimum warm-up time, before SAMSA_BENCH_SCALE (default 400 ms; at least 2 warm-up runs). */
  warmupMs?: number;
  /** Timed runs; the median is reported (default 5). */
  reps?: number;
  /**
   * Pause before each timed run of measureInterleaved (default 50 ms), so that work a previous
   * run left behind (garbage collection, freeing transferred buffers, other threads draining
   * queues) does not land on the next contender's clock.
   */
  settleMs?: number;
  /** Sizes are rounded to a multiple of this (default 1). */
  multipleOf?: number;
  minN?: number;
  maxN?: number;
}

/** Warm-up runs (at least two, for at least `warmupMs`), each re-sized from the last rate; returns the size to time. */
async function warmUp(run: (n: number) => Promise<RunResult>, opts: AdaptiveOptions): Promise<number> {
  const m = opts.multipleOf ?? 1;
  const scale = benchScale();
  const targetMs = (opts.targetMs ?? 200) * scale;
  const warmupMs = Math.max(100, (opts.warmupMs ?? 400) * scale);
  const size = (r: RunResult): number => {
    const perMs = r.ops / Math.max(r.elapsedMs, 0.001);
    const n = Math.round((perMs * targetMs) / m) * m;
    return Math.min(opts.maxN ?? Number.MAX_SAFE_INTEGER, Math.max(opts.minN ?? m, m, n));
  };
  let n = opts.initialN;
  let warm = 0;
  for (let i = 0; i < 2 || warm < warmupMs; i++) {
    const r = await run(n);
    warm += r.elapsedMs;
    n = size(r);
  }
  return n;
}

function summarise(runs: RunResult[], unit: RateUnit, n: number): Measurement & { n: number } {
  const samples = runs.map((r) => rateOf(r, unit));
  return { value: median(samples), unit, min: Math.min(...samples), max: Math.max(...samples), samples, runs, n };
}

/**
 * Measures a workload whose size is a parameter. Warm-up runs start at `initialN` and re-size
 * themselves from the measured rate to last about `targetMs`; the timed runs use the last
 * estimate. Fast and slow transports thus get runs of similar duration, the JIT and the heap
 * are warm before timing starts, and the whole benchmark takes a predictable time.
 * Everything scales with SAMSA_BENCH_SCALE.
 */
export async function measureAdaptive(run: (n: number) => Promise<RunResult>, opts: AdaptiveOptions): Promise<Measurement & { n: number }> {
  const n = await warmUp(run, opts);
  const runs: RunResult[] = [];
  for (let i = 0; i < (opts.reps ?? 5); i++) runs.push(await run(n));
  return summarise(runs, opts.unit, n);
}

export interface Contender {
  name: string;
  run: (n: number) => Promise<RunResult>;
}

/**
 * Like measureAdaptive for several contenders (say a system and its raw baseline), but with
 * their timed runs interleaved round by round, so that a slow spell of the machine (other
 * processes, thermal limits) hits all of them alike and their ratio stays meaningful.
 */
export async function measureInterleaved(contenders: readonly Contender[], opts: AdaptiveOptions): Promise<(Measurement & { n: number })[]> {
  const sizes: number[] = [];
  for (const c of contenders) sizes.push(await warmUp(c.run, opts));
  const runs: RunResult[][] = contenders.map(() => []);
  const settleMs = opts.settleMs ?? 50;
  for (let rep = 0; rep < (opts.reps ?? 5); rep++) {
    for (let i = 0; i < contenders.length; i++) {
      if (settleMs > 0) await sleep(settleMs);
      runs[i]!.push(await contenders[i]!.run(sizes[i]!));
    }
  }
  return contenders.map((_, i) => summarise(runs[i]!, opts.unit, sizes[i]!));
}

/** 1234567 -> "1.23 M", 5321 -> "5.32 k", 12.3 -> "12.3". */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(2)} G`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(2)} M`;
  if (a >= 1e4) return `${(v / 1e3).toFixed(1)} k`;
  if (a >= 100) return v.toFixed(0);
  return v.toFixed(a >= 10 ? 1 : 2);
}

/** A value with its unit, for tables: "1.23 M msg/s", "1534 MiB/s". */
export function formatRate(v: number, unit: string): string {
  return `${formatNumber(v)} ${unit}`.replace(/ {2,}/g, ' ');
}

/** 0.734 -> "73%". */
export function formatRatio(r: number): string {
  return Number.isFinite(r) ? `${(r * 100).toFixed(0)}%` : '-';
}

/** Elapsed wall time of a whole benchmark, for its footer. */
export function stopwatch(): () => number {
  const t0 = nowMs();
  return () => nowMs() - t0;
}
