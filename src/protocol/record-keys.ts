/**
 * A compacted topic's rule for produced records, as Kafka's broker applies it: every record needs
 * a key, since compaction keeps the latest record of each key. `firstKeylessRecord` decodes the
 * batches (decompressing them) and names the first record without one. Control batches carry no
 * user records and pass.
 */
import { CONTROL_FLAG_MASK, attributesOf, iterateBatches } from './batch-header.js';
import { BROKER_MAX_DECOMPRESSED_BYTES } from './decompressed-size.js';
import { decodeRecordBatch } from './record-batch.js';

export interface KeylessRecord {
  /** The batch's position among the batches given (0 for the first). */
  readonly batchIndex: number;
  /** The record's index in its batch. */
  readonly recordIndex: number;
}

const DECODE = { checkCrc: false, maxDecompressedBytes: BROKER_MAX_DECOMPRESSED_BYTES } as const;

/**
 * The first record without a key, or null. The caller checks CRCs (the log does before any
 * write); records that cannot be read throw CorruptRecordError, an unknown codec
 * UnsupportedCompressionError, records past BROKER_MAX_DECOMPRESSED_BYTES DecompressedSizeError.
 */
export function firstKeylessRecord(records: Uint8Array | readonly Uint8Array[]): KeylessRecord | null {
  const buffers = records instanceof Uint8Array ? [records] : records;
  let batchIndex = 0;
  for (const buf of buffers) {
    const it = iterateBatches(buf);
    for (let r = it.next(); !r.done; r = it.next(), batchIndex++) {
      if ((attributesOf(buf, r.value.pos) & CONTROL_FLAG_MASK) !== 0) continue;
      const decoded = decodeRecordBatch(buf, r.value.pos, DECODE);
      const i = decoded.records.findIndex((rec) => rec.key === null);
      if (i >= 0) return { batchIndex, recordIndex: i };
    }
  }
  return null;
}
