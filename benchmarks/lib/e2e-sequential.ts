/**
 * perf-e2e --sequential: kafka-e2e-latency's measurement. One record at a time: send it, wait
 * for its acknowledgement, then for the consumer to receive it, and only then send the next;
 * the latency is from before the send to the receipt. Nothing queues behind anything, so this
 * is the floor of a record's trip (produce, append, the waiting fetch answered, delivery), where
 * the paced run measures it under a steady load.
 *
 * As Kafka's tool does, it checks every delivery: the record received must be the one just
 * sent (its sequence number and bytes), alone; anything else fails the run, as does a record
 * that does not arrive within the timeout. Acks 0 is refused (the send must be acknowledged
 * before the wait for the consumer starts).
 */
import type { Producer } from '../../src/client/producer.js';
import { LatencyRecorder, type LatencySummary } from './latency.js';
import { nowMs } from './timing.js';

/** Records a sequential run takes when --records is not given (Kafka's tool's usual 10,000). */
export const SEQUENTIAL_DEFAULT_RECORDS = 10_000;

/** How long one record may take to reach the consumer (Kafka's tool polls for 60 s). */
export const SEQUENTIAL_RECEIVE_TIMEOUT_MS = 60_000;

export interface SequentialOptions {
  topic: string;
  records: number;
  recordSize: number;
  /** Leading records left out of the percentiles. */
  skip: number;
  receiveTimeoutMs?: number;
  /** Called after each record (for a progress line). */
  onRecord?: (done: number, lat: LatencyRecorder) => void;
}

export interface SequentialResult {
  latency: LatencySummary;
  /** Send to acknowledgement, over the measured records. */
  ack: LatencySummary;
}

/** A value of `size` bytes (at least 8) carrying its sequence number in the first 8. */
export function sequentialValue(seq: number, size: number): Buffer {
  const v = Buffer.alloc(Math.max(8, size), 0x41 + (seq % 26));
  v.writeDoubleLE(seq, 0);
  return v;
}

/**
 * Waits for the records a consumer delivers, one expected at a time. `deliver` is the
 * consumer's eachBatch body; `expect` arms the wait for the next record.
 */
export class SequentialReceiver {
  private pending: { seq: number; value: Buffer; resolve: () => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  deliver(values: readonly (Buffer | null)[]): void {
    if (values.length === 0) return;
    const p = this.pending;
    if (!p) {
      this.fail(new Error(`received ${values.length} record(s) while none was expected`));
      return;
    }
    if (values.length !== 1) {
      this.fail(new Error(`expected record ${p.seq} alone, received ${values.length} records at once`));
      return;
    }
    const v = values[0];
    if (!v || v.length < 8) {
      this.fail(new Error(`expected record ${p.seq}, received a record of ${v ? v.length : 0} bytes`));
      return;
    }
    const got = v.readDoubleLE(0);
    if (got !== p.seq || !v.equals(p.value)) {
      this.fail(new Error(`expected record ${p.seq}, received ${got === p.seq ? 'different bytes' : `record ${got}`}`));
      return;
    }
    this.pending = null;
    p.resolve();
  }

  /** Resolves when `value` (record `seq`) is delivered; rejects on a wrong delivery or after `timeoutMs`. */
  expect(seq: number, value: Buffer, timeoutMs: number): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = null;
        reject(new Error(`record ${seq} did not reach the consumer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending = {
        seq,
        value,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
  }

  private fail(e: Error): void {
    this.failure ??= e;
    const p = this.pending;
    this.pending = null;
    p?.reject(e);
  }
}

/**
 * Runs the records one at a time through `producer` and a consumer whose deliveries go to
 * `receiver` (already subscribed, its partitions assigned, at the topic's end).
 */
export async function runSequential(producer: Producer, receiver: SequentialReceiver, o: SequentialOptions): Promise<SequentialResult> {
  const lat = new LatencyRecorder(o.records - o.skip);
  const ack = new LatencyRecorder(o.records - o.skip);
  const timeoutMs = o.receiveTimeoutMs ?? SEQUENTIAL_RECEIVE_TIMEOUT_MS;
  for (let i = 0; i < o.records; i++) {
    const value = sequentialValue(i, o.recordSize);
    const arrived = receiver.expect(i, value, timeoutMs);
    // a send that fails leaves the wait armed: settle it so nothing is left unhandled
    arrived.catch(() => undefined);
    const begin = nowMs();
    await producer.send({ topic: o.topic, messages: [{ value }] });
    const acked = nowMs();
    await arrived;
    const end = nowMs();
    if (i >= o.skip) {
      lat.record(end - begin);
      ack.record(acked - begin);
    }
    o.onRecord?.(i + 1, lat);
  }
  return { latency: lat.summary(), ack: ack.summary() };
}

/** The consumer's eachBatch for a SequentialReceiver. */
export function sequentialBatchHandler(receiver: SequentialReceiver): (p: { batch: { messages: { value: Buffer | null }[] } }) => void {
  return ({ batch }) => receiver.deliver(batch.messages.map((m) => m.value));
}
