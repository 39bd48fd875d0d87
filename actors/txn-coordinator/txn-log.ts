/**
 * The records of __transaction_state as bytes: key and value are msgpack (maps, never msgpackr
 * records, so any msgpack reader can read them) of the core's TxnLogRecord (txn-metadata.ts):
 *
 *   key   { transactionalId }              the same bytes for every record of an id, so
 *                                          compaction keeps only the newest
 *   value TxnLogValue (version 0) | null   null: a tombstone (the id expired)
 *
 * This is not Kafka's binary TransactionLogKey/Value: the core's value carries the producer's
 * previous epoch (KIP-360 retries after a takeover), which Kafka's record does not.
 *
 * Batches are written one record per batch, as the coordinator persists one transition at a
 * time; the reader takes any number of batches (as a replica read returns them) and skips
 * control batches and records below the offset asked for.
 */
import { Packr } from 'msgpackr';
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import type { TxnLogRecord } from './txn-metadata.js';

const packr = new Packr({ useRecords: false });

export function encodeTxnLogKey(transactionalId: string): Uint8Array {
  return packr.pack({ transactionalId });
}

/** One RecordBatch v2 holding `record`, stamped `timestamp` (CreateTime). */
export function buildTxnLogBatch(record: TxnLogRecord, timestamp: number): Buffer {
  const key = encodeTxnLogKey(record.key.transactionalId);
  const value = record.value === null ? null : packr.pack(record.value);
  return encodeRecordBatch({ records: [{ key, value, timestamp }] });
}

export interface TxnLogReadProgress {
  /** The offset after the last batch read (fromOffset when there was none). */
  nextOffset: number;
  /** The records read, oldest first, as plain data for replay() (undecodable ones as `undefined`). */
  records: unknown[];
  /** Why records could not be read (replay() reports them again as invalid). */
  problems: string[];
}

function unpackOrNull(bytes: Uint8Array | null, what: string, offset: number, problems: string[]): { ok: true; v: unknown } | { ok: false } {
  if (bytes === null) return { ok: true, v: null };
  try {
    return { ok: true, v: packr.unpack(bytes) };
  } catch (err) {
    problems.push(`offset ${offset}: ${what} is not msgpack (${(err as Error).message})`);
    return { ok: false };
  }
}

/**
 * The records of every complete batch of `bytes` at or above `fromOffset`, decoded to plain
 * `{ key, value }` objects (replay() validates them). Throws CorruptRecordError on a damaged batch.
 */
export function readTxnLogBatches(bytes: Uint8Array, fromOffset: number): TxnLogReadProgress {
  const out: TxnLogReadProgress = { nextOffset: fromOffset, records: [], problems: [] };
  for (const batch of decodeRecordBatches(bytes)) {
    const next = batch.baseOffset + batch.lastOffsetDelta + 1;
    if (next > out.nextOffset) out.nextOffset = next;
    if (batch.control || next <= fromOffset) continue;
    for (const rec of batch.records) {
      if (rec.offset < fromOffset) continue;
      const key = unpackOrNull(rec.key, 'the key', rec.offset, out.problems);
      const value = unpackOrNull(rec.value, 'the value', rec.offset, out.problems);
      out.records.push(key.ok && value.ok ? { key: key.v, value: value.v } : undefined);
    }
  }
  return out;
}
