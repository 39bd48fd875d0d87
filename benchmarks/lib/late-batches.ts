/**
 * Where an end-to-end run's slowest records come from. A paced producer sends a partition's
 * records in bursts (a timer tick's worth of send() calls, one partition while the sticky
 * partitioner keeps it), so records are late a batch at a time; the trace groups them into
 * those batches and tells apart:
 * - batches late alone (the batches sent just before and after were on time): one request's
 *   path was held up, against clusters of late batches across partitions, which every thread
 *   meets at once (the machine's stalls);
 * - by the acknowledgement of their send() calls: acknowledged about as late as delivered, the
 *   records were held up at or before the broker's append (the produce side); acknowledged on
 *   time, after it (the fetch side).
 */

import { medianBy } from './timing.js';

export interface LateBatches {
  /** Records at or above this latency count as late (the run's p99). */
  thresholdMs: number;
  lateRecords: number;
  /** Batches (a partition's records sent less than BATCH_GAP_MS apart) holding a late record. */
  batches: number;
  /** Of those, the batches whose neighbours in send order held no late record. */
  alone: number;
  /** Median, over the late batches, of their slowest record's latency. */
  medianLatencyMs: number;
  /** Median, over the late batches, of their send() calls' slowest acknowledgement (null: none matched). */
  medianAckMs: number | null;
  /** Median acknowledgement of every send() of the run. */
  medianAckAllMs: number | null;
}

/** Records of one partition sent closer together than this belong to one batch. */
export const BATCH_GAP_MS = 0.5;

interface Batch {
  start: number;
  end: number;
  partition: number;
  maxLatency: number;
  late: boolean;
}

/** The lower middle value (a value some batch had), null for none. */
function median(values: readonly number[]): number | null {
  return medianBy(values, (x) => x) ?? null;
}

/** Index of the first element of the sorted `xs` that is >= x. */
function lowerBound(xs: Float64Array, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

type Column = Float64Array<ArrayBuffer> | Float32Array<ArrayBuffer> | Int32Array<ArrayBuffer>;

function grow<T extends Column>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

/**
 * Every measured record (16 bytes each) and every send() call. Give the counts the run will
 * make: the arrays are then allocated (and their pages touched) before it, where growing them
 * in the measured stretch copied megabytes on the thread being measured (a 10-20 ms stall of
 * the client, once or twice a run, in the slowest 0.1%).
 */
export class E2eTrace {
  private sentAt: Float64Array<ArrayBuffer>;
  private latency: Float32Array<ArrayBuffer>;
  private partition: Int32Array<ArrayBuffer>;
  private n = 0;
  private ackSentAt: Float64Array<ArrayBuffer>;
  private ackMs: Float64Array<ArrayBuffer>;
  private acks = 0;

  constructor(records = 1024, sends = 1024) {
    const r = Math.max(1, Math.ceil(records));
    const s = Math.max(1, Math.ceil(sends));
    this.sentAt = new Float64Array(r);
    this.latency = new Float32Array(r);
    this.partition = new Int32Array(r);
    this.ackSentAt = new Float64Array(s);
    this.ackMs = new Float64Array(s);
  }

  /** A measured record: when send() stamped it, how long it took to reach the consumer, its partition. */
  record(sentAt: number, latencyMs: number, partition: number): void {
    if (this.n === this.sentAt.length) {
      this.sentAt = grow(this.sentAt, this.n + 1);
      this.latency = grow(this.latency, this.n + 1);
      this.partition = grow(this.partition, this.n + 1);
    }
    this.sentAt[this.n] = sentAt;
    this.latency[this.n] = latencyMs;
    this.partition[this.n++] = partition;
  }

  /** A send() call made at `sentAt` (after its records were stamped) was acknowledged `ms` later. */
  ack(sentAt: number, ms: number): void {
    if (this.acks === this.ackSentAt.length) {
      this.ackSentAt = grow(this.ackSentAt, this.acks + 1);
      this.ackMs = grow(this.ackMs, this.acks + 1);
    }
    this.ackSentAt[this.acks] = sentAt;
    this.ackMs[this.acks++] = ms;
  }

  get size(): number {
    return this.n;
  }

  /** The late records (latency >= thresholdMs), batch by batch. */
  lateBatches(thresholdMs: number): LateBatches {
    const order = Array.from({ length: this.n }, (_, i) => i).sort((a, b) => this.sentAt[a]! - this.sentAt[b]!);
    const batches: Batch[] = [];
    let lateRecords = 0;
    // latencies are kept as float32: compare with the threshold as one too
    const late = Math.fround(thresholdMs);
    for (const i of order) {
      const t = this.sentAt[i]!;
      const lat = this.latency[i]!;
      const p = this.partition[i]!;
      if (lat >= late) lateRecords++;
      const last = batches[batches.length - 1];
      if (last && last.partition === p && t - last.end < BATCH_GAP_MS) {
        last.end = t;
        if (lat > last.maxLatency) last.maxLatency = lat;
        if (lat >= late) last.late = true;
      } else {
        batches.push({ start: t, end: t, partition: p, maxLatency: lat, late: lat >= late });
      }
    }
    // send() stamps its records, then takes its own time: a batch's calls are those timed from
    // its first record on, before the next batch's first record (the last batch: just after its last)
    const ackOrder = Array.from({ length: this.acks }, (_, i) => i).sort((a, b) => this.ackSentAt[a]! - this.ackSentAt[b]!);
    const ackTimes = new Float64Array(ackOrder.map((i) => this.ackSentAt[i]!));
    const ackValues = ackOrder.map((i) => this.ackMs[i]!);
    let alone = 0;
    const latencies: number[] = [];
    const lateAcks: number[] = [];
    batches.forEach((b, k) => {
      if (!b.late) return;
      if (!batches[k - 1]?.late && !batches[k + 1]?.late) alone++;
      latencies.push(b.maxLatency);
      let slowest = -1;
      const until = batches[k + 1]?.start ?? b.end + BATCH_GAP_MS;
      for (let j = lowerBound(ackTimes, b.start); j < ackTimes.length && ackTimes[j]! < until; j++) slowest = Math.max(slowest, ackValues[j]!);
      if (slowest >= 0) lateAcks.push(slowest);
    });
    return {
      thresholdMs,
      lateRecords,
      batches: latencies.length,
      alone,
      medianLatencyMs: median(latencies) ?? 0,
      medianAckMs: median(lateAcks),
      medianAckAllMs: median(ackValues),
    };
  }
}

/** One line: how many batches, alone or not, and which side held them up. */
export function formatLateBatches(l: LateBatches): string {
  if (l.batches === 0) return `no record at or above ${l.thresholdMs.toFixed(2)} ms`;
  const clusters = l.alone < l.batches ? `, ${l.batches - l.alone} in runs of late batches` : '';
  const head = `the ${l.lateRecords} records at or above ${l.thresholdMs.toFixed(2)} ms came in ${l.batches} batch${l.batches === 1 ? '' : 'es'} of one partition each: ${l.alone} alone (the batches sent before and after on time)${clusters}`;
  if (l.medianAckMs === null) return `${head}; median latency ${l.medianLatencyMs.toFixed(2)} ms`;
  const side = l.medianAckMs >= l.medianLatencyMs / 2 ? 'held up at or before the broker\'s append (the produce side)' : 'held up after the append (the fetch side)';
  return `${head}; their sends were acknowledged in a median ${l.medianAckMs.toFixed(2)} ms against ${l.medianLatencyMs.toFixed(2)} ms to the consumer (every send: ${l.medianAckAllMs!.toFixed(2)} ms): ${side}`;
}
