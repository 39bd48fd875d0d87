/**
 * Record-level search inside one batch for ListOffsets by time: the first record whose timestamp
 * is >= the target. Under LogAppendTime every record carries the batch's max timestamp; under
 * CreateTime the records are decoded (decompressing if needed). A batch that cannot be decoded
 * falls back to its base offset, which is never past the answer.
 */
import { TIMESTAMP_TYPE_MASK, attributesOf, baseOffsetOf, maxTimestampOf } from '../protocol/batch-header.js';
import { BROKER_MAX_DECOMPRESSED_BYTES } from '../protocol/decompressed-size.js';
import { decodeRecordBatch } from '../protocol/record-batch.js';

export interface RecordTimestamp {
  readonly offset: number;
  readonly timestamp: number;
}

/** `batch` holds one whole batch at position 0 whose max timestamp is >= `target`. */
export function firstRecordAtOrAfter(batch: Uint8Array, target: number): RecordTimestamp {
  const fallback = { offset: baseOffsetOf(batch, 0), timestamp: maxTimestampOf(batch, 0) };
  if ((attributesOf(batch, 0) & TIMESTAMP_TYPE_MASK) !== 0) return fallback;
  let decoded;
  try {
    decoded = decodeRecordBatch(batch, 0, { maxDecompressedBytes: BROKER_MAX_DECOMPRESSED_BYTES });
  } catch {
    return fallback;
  }
  for (const record of decoded.records) {
    if (record.timestamp >= target) return { offset: record.offset, timestamp: record.timestamp };
  }
  return fallback;
}
