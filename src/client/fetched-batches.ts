/**
 * What a consumer keeps of a partition's fetched bytes (Kafka's CompletedFetch): the batches whose
 * records go to the application, buffered as bytes, and the offsets it passes over without
 * handing anything out. Passed over are control batches (transaction markers: never records for
 * the application), batches left empty by compaction and, under read_committed, the batches of
 * aborted transactions, found as Kafka's consumer finds them from the fetch's list of aborted
 * transactions.
 *
 * The offsets passed over still move the consumer on: its position goes past them once
 * everything before them was handed out, and an offset the application reports as processed (or
 * commits) at the start of such a range counts as the end of it, so a partition that ends with a
 * marker shows no lag and is not read from the marker again after a restart.
 *
 * Cost: a fetch without transactions does what it did before, one look at each batch header; the
 * aborted-transaction machinery is built only when the fetch names aborted transactions, and the
 * ranges passed over exist only once a batch was passed over.
 */
import { CONTROL_FLAG_MASK, PRODUCER_ID_OFFSET, TRANSACTIONAL_FLAG_MASK, attributesOf, lastOffsetOf, readInt64BE, recordsCountOf } from '../protocol/batch-header.js';
import { ControlType, readTxnMarker } from '../protocol/control-records.js';
import { recordBatchFrames } from '../protocol/record-batch.js';

/** Kafka's isolation.level for consumers. */
export type IsolationLevel = 'read_uncommitted' | 'read_committed';

/** An aborted transaction as a read_committed fetch names it: its producer and its first offset. */
export interface AbortedTransaction {
  producerId: number;
  firstOffset: number;
}

/** Decoded records of a buffered batch, as the consumer hands them out (offset first). */
export interface BufferedRecord {
  offset: number;
}

/**
 * One fetched record batch, kept as its bytes and decoded only when the application takes its
 * records (as Kafka's consumer does): prefetched data is one object per batch instead of several
 * per record, and the records are born right before they are used.
 */
export interface BufferedBatch<R extends BufferedRecord = BufferedRecord> {
  bytes: Uint8Array;
  /** Records below this offset were handed out before (a fetch may start inside a batch). */
  minOffset: number;
  /** The decoded records (after a take that did not use them all), from `next` on. */
  records: R[] | null;
  next: number;
}

/** Offsets [from, to) that hold nothing for the application. */
export interface PassedRange {
  from: number;
  to: number;
}

/** The part of a consumer's assigned partition that fetched bytes update. */
export interface FetchedPartition<R extends BufferedRecord = BufferedRecord> {
  /** Next offset to hand out; null until the committed offset or a reset is known. */
  position: number | null;
  /** Next offset to fetch (ahead of position by what is buffered). */
  fetchPosition: number;
  /** Fetched record batches not handed out yet, oldest first. */
  buffer: BufferedBatch<R>[];
  /** Bytes of the batches held in `buffer`. */
  bufferedBytes: number;
  /** Ranges passed over that an offset reported by the application may still reach; null while none. */
  passed: PassedRange[] | null;
}

/**
 * At most this many ranges are remembered per partition: a consumer that never reports what it
 * processed (nor commits) would otherwise keep one per transaction it read. Forgetting the oldest
 * only costs the lag shown for an offset that old.
 */
export const MAX_PASSED_RANGES = 1024;

/**
 * Kafka's aborted-transaction bookkeeping of one fetched partition (CompletedFetch): the aborted
 * transactions ordered by first offset, and the producers whose aborted transaction has begun by
 * the batch at hand. Asked about every batch of the fetch in log order.
 */
export class AbortedTransactions {
  private readonly queue: AbortedTransaction[];
  private next = 0;
  private readonly producers = new Set<number>();

  constructor(list: readonly AbortedTransaction[]) {
    this.queue = [...list].sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /**
   * Whether the batch at `pos` belongs to an aborted transaction (its records are dropped). A
   * batch with a producer id first adds the producers whose aborted transaction began at or before
   * its last offset; an ABORT marker then ends its producer's aborted transaction; a transactional
   * data batch of a producer in the set is aborted. Throws on a control batch it cannot read.
   */
  drops(buf: Uint8Array, pos: number): boolean {
    const producerId = readInt64BE(buf, pos + PRODUCER_ID_OFFSET);
    if (producerId < 0) return false;
    const last = lastOffsetOf(buf, pos);
    while (this.next < this.queue.length && this.queue[this.next]!.firstOffset <= last) this.producers.add(this.queue[this.next++]!.producerId);
    const attributes = attributesOf(buf, pos);
    if ((attributes & CONTROL_FLAG_MASK) !== 0) {
      if (this.producers.has(producerId) && readTxnMarker(buf, pos)?.type === ControlType.ABORT) this.producers.delete(producerId);
      return false; // a marker is passed over as a control batch
    }
    return (attributes & TRANSACTIONAL_FLAG_MASK) !== 0 && this.producers.has(producerId);
  }
}

/** The bookkeeping for one fetched partition: null unless read_committed and the fetch names aborted transactions. */
export function abortedTransactionsOf(isolationLevel: IsolationLevel, aborted: readonly AbortedTransaction[] | undefined): AbortedTransactions | null {
  return isolationLevel === 'read_committed' && aborted !== undefined && aborted.length > 0 ? new AbortedTransactions(aborted) : null;
}

/** Where a read_committed consumer's partition ends (the last stable offset), or a read_uncommitted one's (the high watermark). */
export function endOffsetFor(isolationLevel: IsolationLevel, r: { highWatermark: number; lastStableOffset?: number }): number {
  return isolationLevel === 'read_committed' ? (r.lastStableOffset ?? r.highWatermark) : r.highWatermark;
}

/** Remembers [from, to) as passed over (joined to the last range when they touch). */
function pass(p: FetchedPartition, from: number, to: number): void {
  if (p.passed === null) {
    p.passed = [{ from, to }];
    return;
  }
  const last = p.passed[p.passed.length - 1];
  if (last !== undefined && last.to === from) {
    last.to = to;
    return;
  }
  p.passed.push({ from, to });
  if (p.passed.length > MAX_PASSED_RANGES) p.passed.shift();
}

/**
 * Takes a fetch's bytes for the partition: buffers the batches with records for the application
 * from the fetch position on, passes over the rest (see the file header), moves the fetch
 * position past every batch, and the position past what was passed over right at it. Returns
 * how many records it buffered (from the batch headers). Throws CorruptRecordError (a batch that
 * cannot be framed) or ControlRecordError (an unreadable marker).
 */
export function acceptFetched(p: FetchedPartition, records: Uint8Array, aborted: AbortedTransactions | null): number {
  const frames = recordBatchFrames(records);
  let buffered = 0;
  for (const f of frames) {
    const dropped = aborted !== null && aborted.drops(records, f.pos);
    const next = lastOffsetOf(records, f.pos) + 1;
    if (next <= p.fetchPosition) continue;
    const count = recordsCountOf(records, f.pos);
    if (!dropped && (attributesOf(records, f.pos) & CONTROL_FLAG_MASK) === 0 && count > 0) {
      p.buffer.push({ bytes: records.subarray(f.pos, f.pos + f.size), minOffset: p.fetchPosition, records: null, next: 0 });
      p.bufferedBytes += f.size;
      buffered += count;
    } else pass(p, p.fetchPosition, next);
    p.fetchPosition = next;
  }
  // a range that starts at the position has nothing before it left to hand out
  if (p.passed !== null && p.position !== null) p.position = passOver(p, p.position);
  return buffered;
}

/**
 * `offset` moved past the range passed over that starts there, if any: where a position that
 * reached `offset` goes next. The ranges stay (see settle).
 */
export function passOver(p: FetchedPartition, offset: number): number {
  const passed = p.passed;
  if (passed === null) return offset;
  for (let i = 0; i < passed.length; i++) {
    const r = passed[i]!;
    if (r.from === offset) return r.to;
    if (r.from > offset) break;
  }
  return offset;
}

/**
 * An offset the application reports as processed (or commits): moved past the range passed over
 * that starts there; the ranges it has left behind are forgotten.
 */
export function settle(p: FetchedPartition, offset: number): number {
  const moved = passOver(p, offset);
  const passed = p.passed;
  if (passed === null) return moved;
  let keep = 0;
  while (keep < passed.length && passed[keep]!.to <= moved) keep++;
  if (keep === passed.length) p.passed = null;
  else if (keep > 0) passed.splice(0, keep);
  return moved;
}
