/**
 * Transport-neutral load generators. A benchmark wraps whatever it measures (a samsa actor
 * system, bare nact, a bare MessagePort, a bare socket) as a `LoadTarget`, and the same loops
 * drive all of them, so a figure and its raw baseline differ only in the layer underneath.
 *
 * The target is a counting sink plus an echo:
 * - `tell(msg)` sends one message to the sink, fire and forget;
 * - `expect(n)` resolves once the sink has seen `n` messages since `reset()` (it is sent after
 *   the tells, on the same ordered channel, so it doubles as a flow-control barrier);
 * - `ask(msg)` is a request/response round trip to the echo.
 *
 * Tells are sent in windows: after each window an `expect` goes out, and at most `depth`
 * windows are unacknowledged at a time. That bounds memory on transports without
 * back-pressure while keeping the pipe full.
 */
import { nowMs, type RunResult } from './timing.js';

export interface TickMsg {
  type: 'Tick';
  seq: number;
}
export interface BlobMsg {
  type: 'Blob';
  data: Uint8Array;
}
export interface PingMsg {
  type: 'Ping';
  seq: number;
}
export type LoadMsg = TickMsg | BlobMsg;

export interface LoadTarget {
  tell(msg: LoadMsg): void;
  expect(n: number): Promise<void>;
  ask(msg: PingMsg): Promise<unknown>;
  reset(): Promise<void>;
}

export type LoadSpec =
  | { op: 'tell'; n: number; window: number; depth: number }
  | { op: 'blob'; n: number; window: number; depth: number; blobBytes: number }
  | { op: 'ask'; n: number; concurrency: number };

const blobCache = new Map<number, Uint8Array>();

/** A payload of `bytes` pseudo-random bytes, built once per size and reused by every send. */
export function blobPayload(bytes: number): Uint8Array {
  let b = blobCache.get(bytes);
  if (!b) {
    b = new Uint8Array(bytes);
    let x = 0x9e3779b9;
    for (let i = 0; i < bytes; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      b[i] = x & 0xff;
    }
    blobCache.set(bytes, b);
  }
  return b;
}

/** Sends `n` messages built by `make` in windows of `window`, with at most `depth` windows unacknowledged. */
export async function pipelinedTells(
  target: LoadTarget,
  n: number,
  window: number,
  depth: number,
  make: (i: number) => LoadMsg,
): Promise<number> {
  await target.reset();
  const t0 = nowMs();
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  while (sent < n) {
    const end = Math.min(n, sent + window);
    for (; sent < end; sent++) target.tell(make(sent));
    inFlight.push(target.expect(sent));
    if (inFlight.length >= depth) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return nowMs() - t0;
}

/** `n` round trips, `concurrency` of them outstanding at any time (1 = strictly sequential). */
export async function askLoop(target: LoadTarget, n: number, concurrency: number): Promise<number> {
  let next = 0;
  const t0 = nowMs();
  const lane = async (): Promise<void> => {
    while (next < n) {
      const seq = next++;
      await target.ask({ type: 'Ping', seq });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, n)) }, lane));
  return nowMs() - t0;
}

/** Runs one spec against a target and reports what it moved. */
export async function runLoad(target: LoadTarget, spec: LoadSpec): Promise<RunResult> {
  switch (spec.op) {
    case 'tell': {
      const elapsedMs = await pipelinedTells(target, spec.n, spec.window, spec.depth, (seq) => ({ type: 'Tick', seq }));
      return { elapsedMs, ops: spec.n };
    }
    case 'blob': {
      const data = blobPayload(spec.blobBytes);
      const elapsedMs = await pipelinedTells(target, spec.n, spec.window, spec.depth, () => ({ type: 'Blob', data }));
      return { elapsedMs, ops: spec.n, bytes: spec.n * spec.blobBytes };
    }
    case 'ask': {
      const elapsedMs = await askLoop(target, spec.n, spec.concurrency);
      return { elapsedMs, ops: spec.n };
    }
  }
}

/** A sink's bookkeeping, shared by the raw receivers: counts, and `expect` waiters. */
export class SinkCounter {
  count = 0;
  bytes = 0;
  private waiting: { n: number; done: (count: number) => void }[] = [];

  reset(): void {
    this.count = 0;
    this.bytes = 0;
  }

  /** Counts one message of `bytes` payload bytes. */
  seen(bytes: number): void {
    this.count++;
    this.bytes += bytes;
    if (this.waiting.length) this.release();
  }

  /** Calls `done` once the count reaches `n` (at once when it already has). */
  expect(n: number, done: (count: number) => void): void {
    if (this.count >= n) done(this.count);
    else this.waiting.push({ n, done });
  }

  private release(): void {
    const still: typeof this.waiting = [];
    for (const w of this.waiting) {
      if (this.count >= w.n) w.done(this.count);
      else still.push(w);
    }
    this.waiting = still;
  }
}
