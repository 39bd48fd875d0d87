/**
 * Idempotent and transactional producers' state on a partition leader (Kafka's
 * ProducerStateManager; the open and aborted transactions themselves are in txn-index.ts): for
 * each producer id, its current epoch, the coordinator epoch of its last transaction marker and
 * the metadata of its last five batches. Before a batch with a producer id is appended, `check` says whether it is the next one
 * in sequence (append it), a retry of one of the last five (answer with the offsets it got the
 * first time, append nothing), or an error (fenced epoch, a gap, a producer this partition does
 * not know). `record` remembers a batch once appended; `load` rebuilds the table from the log.
 *
 * Sequence numbers are int32 and wrap to 0 after 2^31-1, as in Kafka.
 */
import { BASE_OFFSET_OFFSET, iterateBatches, lastOffsetOf, readBatchHeader, readInt64BE } from '../protocol/batch-header.js';
import { isControlBatch, readTxnMarker } from '../protocol/control-records.js';
import { ErrorCode } from '../protocol/errors.js';

/** Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN. */
export const BATCHES_TO_RETAIN = 5;
const INT32_MAX = 2147483647;

/** What an idempotent batch's header says about its producer. */
export interface ProducerBatch {
  producerId: number;
  producerEpoch: number;
  /** baseSequence */
  firstSeq: number;
  /** baseSequence + lastOffsetDelta (wrapped) */
  lastSeq: number;
  /** maxTimestamp, for expiry. */
  timestamp: number;
}

export interface AppendedBatch extends ProducerBatch {
  firstOffset: number;
  lastOffset: number;
}

export type SequenceCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; firstOffset: number; lastOffset: number }
  | { kind: 'error'; errorCode: number; message: string };

interface ProducerEntry {
  epoch: number;
  /** The coordinator epoch of the last transaction marker (-1: none). */
  coordinatorEpoch: number;
  /** Oldest first, at most BATCHES_TO_RETAIN. */
  batches: AppendedBatch[];
  /** The timestamp of its last batch or marker written (its max timestamp, CreateTime or LogAppendTime). */
  lastTimestamp: number;
}

/** The sequence after `seq` (int32 wrap-around). */
export function nextSequence(seq: number): number {
  return seq === INT32_MAX ? 0 : seq + 1;
}

/** The last sequence of a batch starting at `firstSeq` with `lastOffsetDelta`. */
export function lastSequence(firstSeq: number, lastOffsetDelta: number): number {
  const last = firstSeq + lastOffsetDelta;
  return last > INT32_MAX ? last - INT32_MAX - 1 : last;
}

export class ProducerStateTable {
  private readonly producers = new Map<number, ProducerEntry>();

  get size(): number {
    return this.producers.size;
  }

  /** Decides what to do with `b` before appending it (leader only). */
  check(b: ProducerBatch): SequenceCheck {
    const entry = this.producers.get(b.producerId);
    if (entry && b.producerEpoch < entry.epoch) {
      return { kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, message: `producer ${b.producerId} epoch ${b.producerEpoch} is older than the current epoch ${entry.epoch}` };
    }
    if (entry && b.producerEpoch === entry.epoch) {
      const dup = entry.batches.find((x) => x.firstSeq === b.firstSeq && x.lastSeq === b.lastSeq);
      if (dup) return { kind: 'duplicate', firstOffset: dup.firstOffset, lastOffset: dup.lastOffset };
      const last = entry.batches[entry.batches.length - 1];
      const expected = last ? nextSequence(last.lastSeq) : 0;
      if (b.firstSeq !== expected) {
        return {
          kind: 'error',
          errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          message: `producer ${b.producerId} epoch ${b.producerEpoch}: sequence ${b.firstSeq} where ${expected} was expected`,
        };
      }
      return { kind: 'append' };
    }
    // a new producer, or a new epoch of a known one: its sequences start again at 0
    if (b.firstSeq !== 0) {
      return entry
        ? { kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, message: `producer ${b.producerId}: a new epoch ${b.producerEpoch} must start at sequence 0, not ${b.firstSeq}` }
        : { kind: 'error', errorCode: ErrorCode.UNKNOWN_PRODUCER_ID, message: `producer ${b.producerId} is not known to this partition and its sequence ${b.firstSeq} is not 0` };
    }
    return { kind: 'append' };
  }

  /** Remembers an appended batch (leader appends, and batches read back from the log in `load`). */
  record(b: AppendedBatch): void {
    let entry = this.producers.get(b.producerId);
    if (!entry || b.producerEpoch > entry.epoch) {
      entry = { epoch: b.producerEpoch, coordinatorEpoch: entry?.coordinatorEpoch ?? -1, batches: [], lastTimestamp: b.timestamp };
      this.producers.set(b.producerId, entry);
    } else if (b.producerEpoch < entry.epoch) {
      return;
    }
    entry.batches.push(b);
    if (entry.batches.length > BATCHES_TO_RETAIN) entry.batches.shift();
    // the last write's timestamp, as Kafka's ProducerStateEntry (expiry and DescribeProducers go by it)
    entry.lastTimestamp = b.timestamp;
  }

  /**
   * Whether the transaction coordinator may end `producerId`'s transaction with a marker of
   * `producerEpoch` (Kafka's appendEndTxnMarker): null, 'duplicate', or why not (an older
   * producer epoch, or a coordinator epoch older than the last marker's: a coordinator that lost
   * its partition). A producer id beyond 2^53 is INVALID_REQUEST: ids are JS numbers here, such
   * a one arrives rounded and could not be written as it was sent (Kafka hands out ids from 0
   * up, never one near that).
   *
   * `transactionVersion` 2 (KIP-1228, WriteTxnMarkers v2): its coordinator bumped the epoch to
   * end the transaction, so the marker must be above the epoch of the data it ends; one at the
   * producer's epoch is a late marker of the transaction before, which would otherwise end the
   * one written since at that epoch (`open`: the producer has a transaction open here).
   * INVALID_PRODUCER_EPOCH when it does; with none open it is the marker already written (the
   * coordinator's retry after a lost answer): 'duplicate', nothing to write. Kafka refuses that
   * one too, and its coordinator then stops sending the transaction's markers. Versions 0 and 1
   * take a marker at the producer's epoch, as before.
   */
  checkMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number, transactionVersion = 0, open = false): { errorCode: number; message: string } | 'duplicate' | null {
    if (!Number.isSafeInteger(producerId)) {
      return { errorCode: ErrorCode.INVALID_REQUEST, message: `transaction marker for producer ${producerId}: producer ids beyond 2^53 are not supported` };
    }
    const entry = this.producers.get(producerId);
    if (!entry) return null;
    if (producerEpoch < entry.epoch) {
      return { errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, message: `transaction marker for producer ${producerId} at epoch ${producerEpoch}, older than its current epoch ${entry.epoch}` };
    }
    if (coordinatorEpoch < entry.coordinatorEpoch) {
      return { errorCode: ErrorCode.TRANSACTION_COORDINATOR_FENCED, message: `transaction marker for producer ${producerId} from coordinator epoch ${coordinatorEpoch}, older than ${entry.coordinatorEpoch}` };
    }
    if (transactionVersion >= 2 && producerEpoch === entry.epoch) {
      if (!open) return 'duplicate';
      return { errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, message: `transaction marker (transaction version ${transactionVersion}) for producer ${producerId} at epoch ${producerEpoch}, not above the epoch ${entry.epoch} of its open transaction: a late marker of an earlier transaction` };
    }
    return null;
  }

  /**
   * Remembers a transaction marker: its epoch becomes the producer's (a marker written when the
   * coordinator fenced the producer carries the new epoch; its sequences start again at 0), and
   * its coordinator epoch the latest. Sequences of the same epoch go on across transactions.
   */
  recordMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number, timestamp: number): void {
    const entry = this.producers.get(producerId);
    if (!entry || producerEpoch > entry.epoch) {
      this.producers.set(producerId, { epoch: producerEpoch, coordinatorEpoch, batches: [], lastTimestamp: timestamp });
      return;
    }
    if (producerEpoch < entry.epoch) return;
    entry.coordinatorEpoch = Math.max(entry.coordinatorEpoch, coordinatorEpoch);
    entry.lastTimestamp = timestamp;
  }

  /**
   * Forgets producers whose last batch is older than `expirationMs` (producer.id.expiration.ms),
   * except those with a transaction open (`open`: producer id -> its first offset), which stay
   * until it ends, as Kafka's ProducerStateManager keeps them.
   */
  expire(nowMs: number, expirationMs: number, open?: ReadonlyMap<number, number>): number {
    let removed = 0;
    for (const [id, e] of this.producers) {
      if (nowMs - e.lastTimestamp >= expirationMs && !open?.has(id)) {
        this.producers.delete(id);
        removed++;
      }
    }
    return removed;
  }

  /** Every producer the table holds, by id: epoch, last sequence (-1: none), last timestamp, coordinator epoch. */
  activeProducers(): { producerId: number; producerEpoch: number; lastSequence: number; lastTimestamp: number; coordinatorEpoch: number }[] {
    return [...this.producers]
      .sort(([a], [b]) => a - b)
      .map(([producerId, e]) => ({ producerId, producerEpoch: e.epoch, lastSequence: e.batches[e.batches.length - 1]?.lastSeq ?? -1, lastTimestamp: e.lastTimestamp, coordinatorEpoch: e.coordinatorEpoch }));
  }

  /** The producer's current epoch and last sequence, for introspection and tests. */
  describe(producerId: number): { epoch: number; lastSeq: number; batches: number } | undefined {
    const e = this.producers.get(producerId);
    if (!e) return undefined;
    return { epoch: e.epoch, lastSeq: e.batches[e.batches.length - 1]?.lastSeq ?? -1, batches: e.batches.length };
  }
}

/** What `loadProducerState` needs of a partition log. */
export interface ProducerStateSource {
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  read(offset: number, maxBytes: number): Promise<{ errorCode: number; records?: Uint8Array }>;
  offsetForTimestamp(timestamp: number): Promise<{ errorCode: number; offset?: number }>;
  /** The transactions open in the log: producer id -> first offset (their producers never expire). */
  openTransactions?(): ReadonlyMap<number, number>;
}

/**
 * The batch as written at [firstOffset, lastOffset]. Spelled out rather than spread
 * (`{ ...b, firstOffset, lastOffset }`): run per batch, a spread followed by more properties kept
 * its results alive through young collections on Node 20 (README.md, design notes).
 */
export function appendedBatch(b: ProducerBatch, firstOffset: number, lastOffset: number): AppendedBatch {
  return { producerId: b.producerId, producerEpoch: b.producerEpoch, firstSeq: b.firstSeq, lastSeq: b.lastSeq, timestamp: b.timestamp, firstOffset, lastOffset };
}

/** The producer fields of the batch at `pos` (a producer id of -1 means "not idempotent"). */
export function producerBatchAt(buf: Uint8Array, pos: number): ProducerBatch {
  const h = readBatchHeader(buf, pos);
  return { producerId: h.producerId, producerEpoch: h.producerEpoch, firstSeq: h.baseSequence, lastSeq: lastSequence(h.baseSequence, h.lastOffsetDelta), timestamp: h.maxTimestamp };
}

/**
 * Rebuilds the table from the batches written in the last `expirationMs` (older producers would
 * have expired anyway), and from the first batch of the oldest transaction still open (its
 * producer does not expire), reading the log up to its end.
 */
export async function loadProducerState(log: ProducerStateSource, nowMs: number, expirationMs: number, chunkBytes = 1 << 20): Promise<ProducerStateTable> {
  const table = new ProducerStateTable();
  const since = await log.offsetForTimestamp(nowMs - expirationMs);
  let offset = since.errorCode === ErrorCode.NONE && since.offset !== undefined && since.offset >= 0 ? Math.max(since.offset, log.logStartOffset) : log.logEndOffset;
  const open = log.openTransactions?.() ?? new Map<number, number>();
  for (const first of open.values()) offset = Math.max(log.logStartOffset, Math.min(offset, first));
  await readProducerBatches(table, log, offset, chunkBytes);
  table.expire(nowMs, expirationMs, open);
  return table;
}

/**
 * Records in `table` the producers' batches and markers of the log from `from` to its end (a
 * table kept up to date by reading on from where it was last read); returns the offset read to.
 */
export async function readProducerBatches(table: ProducerStateTable, log: ProducerStateSource, from: number, chunkBytes = 1 << 20): Promise<number> {
  let offset = Math.max(from, log.logStartOffset);
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, chunkBytes);
    if (r.errorCode !== ErrorCode.NONE || !r.records || r.records.length === 0) break;
    const buf = r.records;
    let next = offset;
    for (const { pos } of iterateBatches(buf)) {
      const base = readInt64BE(buf, pos + BASE_OFFSET_OFFSET);
      const last = lastOffsetOf(buf, pos);
      next = last + 1;
      const b = producerBatchAt(buf, pos);
      if (b.producerId < 0) continue;
      if (isControlBatch(buf, pos)) {
        const marker = readTxnMarker(buf, pos);
        if (marker) table.recordMarker(b.producerId, b.producerEpoch, marker.coordinatorEpoch, b.timestamp);
      } else {
        table.record(appendedBatch(b, base, last));
      }
    }
    if (next <= offset) break;
    offset = next;
  }
  return offset;
}
