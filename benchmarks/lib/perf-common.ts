/**
 * Pieces shared by the perf tools: payloads, a rate throttle like Kafka's ThroughputThrottler,
 * a bounded window of outstanding promises, progress lines on stderr, and the main() wrapper
 * that makes every tool exit on its own.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { blobPayload } from './load.js';
import { nowMs, sleep } from './timing.js';

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

/** Prints a progress line to stderr every `everyMs` (Kafka's perf tools print every 5 s). */
export function progress(label: string, line: () => string, everyMs = 2_000): () => void {
  const timer = setInterval(() => process.stderr.write(`[${label}] ${line()}\n`), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Runs a tool's main and exits with its status (worker threads and timers cannot keep it alive). */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack ?? err.message : err);
      process.exit(1);
    },
  );
}

/** True when `metaUrl` is the module node was started with. */
export function isMain(metaUrl: string): boolean {
  const arg = process.argv[1];
  return arg !== undefined && metaUrl === pathToFileURL(path.resolve(arg)).href;
}
