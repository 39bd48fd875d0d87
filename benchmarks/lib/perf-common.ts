/**
 * Pieces shared by the perf tools: payloads, a rate throttle like Kafka's ThroughputThrottler,
 * a bounded window of outstanding promises, progress on stderr (a bar on a terminal), and the
 * main() wrapper that makes every tool exit on its own.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { blobPayload } from './load.js';
import { nowMs, sleep } from './timing.js';
import { exitCodeOf } from '../../src/cli/errors.js';

export const MiB = 1024 * 1024;

/** A record value of `size` bytes (pseudo-random, so gzip has something honest to do). */
export function recordValue(size: number): Buffer {
  return Buffer.from(blobPayload(Math.max(size, 0)));
}

/** Sleeps when more than `perSec` operations per second have been started since `t0` (no-op when perSec <= 0). */
export class Throttle {
  private readonly t0 = nowMs();
  constructor(private readonly perSec: number) {}

  async pace(done: number): Promise<void> {
    if (this.perSec <= 0) return;
    const due = this.t0 + (done / this.perSec) * 1000;
    const ahead = due - nowMs();
    if (ahead > 1) await sleep(ahead);
  }
}

/** At most `limit` promises outstanding: `await w.slot()` before starting one, `w.track(p)` after. */
export class Window {
  private outstanding = 0;
  private waiters: (() => void)[] = [];
  private firstError: unknown = null;

  constructor(private readonly limit: number) {}

  async slot(): Promise<void> {
    if (this.firstError) throw this.firstError;
    while (this.outstanding >= this.limit) await new Promise<void>((r) => this.waiters.push(r));
    if (this.firstError) throw this.firstError;
  }

  track(p: Promise<unknown>): void {
    this.outstanding++;
    p.then(
      () => this.release(),
      (err) => {
        this.firstError ??= err;
        this.release();
      },
    );
  }

  private release(): void {
    this.outstanding--;
    this.waiters.shift()?.();
  }

  async drain(): Promise<void> {
    while (this.outstanding > 0) await new Promise<void>((r) => this.waiters.push(r));
    if (this.firstError) throw this.firstError;
  }
}

/** Where progress goes: a stream, and whether it is a terminal (a bar redrawn in place). */
export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  /** Share of the work done, 0..1: drawn as a bar before the line. */
  fraction?: () => number;
  /** Default: process.stderr. */
  out?: ProgressOut;
  /** Redraw period on a terminal (default 250 ms), line period elsewhere (default 2 s, Kafka's tools print every 5 s). */
  everyMs?: number;
}

/** A fixed-width bar and percentage: `[##########..............]  41%` (clamped to 0..100%). */
export function progressBar(fraction: number, width = 24): string {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const full = Math.round(f * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${String(Math.floor(f * 100)).padStart(3)}%`;
}

/** Terminal: go to the start of the line and erase it. */
const ERASE_LINE = '\r\x1b[2K';

/**
 * Shows progress while a tool runs: on a terminal one line with a bar, redrawn in place and
 * erased when stopped (the tool prints its results next); elsewhere (a pipe, a CI log) a line
 * every 2 s. Returns the function that stops it.
 */
export function progress(label: string, line: () => string, opts: ProgressOptions = {}): () => void {
  const out = opts.out ?? process.stderr;
  const tty = out.isTTY === true;
  const text = () => `[${label}] ${opts.fraction ? `${progressBar(opts.fraction())} ` : ''}${line()}`;
  let drawn = false;
  const timer = setInterval(
    () => {
      if (tty) {
        out.write(`${ERASE_LINE}${text()}`);
        drawn = true;
      } else out.write(`${text()}\n`);
    },
    opts.everyMs ?? (tty ? 250 : 2_000),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    if (drawn) out.write(ERASE_LINE);
    drawn = false;
  };
}

/** Runs a tool's main and exits with its status (worker threads and timers cannot keep it alive). */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (err: unknown) => {
      // a command line that cannot work (exit 2) or a failure with advice (exit 1), as the samsa
      // commands print them; anything else with its stack
      const known = err instanceof Error && (err.name === 'UsageError' || err.name === 'CliError');
      console.error(known ? err.message : err instanceof Error ? (err.stack ?? err.message) : err);
      process.exit(exitCodeOf(err));
    },
  );
}

/** True when `metaUrl` is the module node was started with. */
export function isMain(metaUrl: string): boolean {
  const arg = process.argv[1];
  return arg !== undefined && metaUrl === pathToFileURL(path.resolve(arg)).href;
}
