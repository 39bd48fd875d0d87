/**
 * The fixed 61-byte Kafka RecordBatch v2 (magic 2) header: field offsets as named constants, and
 * small zero-copy readers/writers that work on a Uint8Array (or Buffer) at a position. This is what
 * the leader and the storage log use: validate a batch, read its offsets, stamp baseOffset and the
 * partition leader epoch, all without decoding records (DESIGN.md section 5).
 *
 * Layout (big-endian):
 *   0 baseOffset int64 | 8 batchLength int32 | 12 partitionLeaderEpoch int32 | 16 magic int8 |
 *   17 crc uint32 | 21 attributes int16 | 23 lastOffsetDelta int32 | 27 baseTimestamp int64 |
 *   35 maxTimestamp int64 | 43 producerId int64 | 51 producerEpoch int16 | 53 baseSequence int32 |
 *   57 recordsCount int32 | 61 records...
 * batchLength counts the bytes after the batchLength field (so a batch occupies 12 + batchLength
 * bytes). Attributes: bits 0-2 codec, 3 timestamp type, 4 transactional, 5 control, 6 delete
 * horizon (KIP-534: the log cleaner has stored, in baseTimestamp, the time at which the batch's
 * tombstones may go; record timestamp deltas are taken from that value, so records still read
 * as their own timestamps). The CRC-32C covers attributes..end of the batch, so baseOffset,
 * batchLength, partitionLeaderEpoch and magic can be rewritten without recomputing it.
 *
 * Number representation: every int64 field (baseOffset, timestamps, producerId) is read and
 * written as a JS `number`. Offsets, millisecond timestamps and Kafka producer ids (allocated
 * sequentially from 0, -1 for none) all stay far below 2^53, where `number` is exact; an int64
 * beyond +-2^53 reads as the nearest double, and writers reject non-safe integers.
 */
import { crc32c } from './crc32c.js';
import { ErrorCode } from './errors.js';

export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
/** Size of the header; the records start here. */
export const RECORD_BATCH_OVERHEAD = 61;
/** baseOffset (8) + batchLength (4): the bytes not counted by batchLength. */
export const LOG_OVERHEAD = 12;
/** The smallest legal batchLength: a header with no records. */
export const MIN_BATCH_LENGTH = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD;
/** The only magic (format version) this layer handles. */
export const CURRENT_MAGIC = 2;

/** Attribute bits. */
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
/**
 * Bit 6, Kafka's DELETE_HORIZON_FLAG_MASK (KIP-534): baseTimestamp holds the batch's delete
 * horizon, set by the log cleaner, instead of its first record's timestamp.
 */
export const DELETE_HORIZON_FLAG_MASK = 0x40;

/** Attribute bit 3: how record timestamps are to be read. */
export const TimestampType = Object.freeze({ CREATE_TIME: 0, LOG_APPEND_TIME: 1 } as const);
export type TimestampTypeValue = (typeof TimestampType)[keyof typeof TimestampType];

/** Sentinels Kafka uses for "none". */
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;
export const NO_TIMESTAMP = -1;

const TWO_32 = 4294967296;

/** All fields of a RecordBatch v2 header. int64 fields as `number` (see the file header). */
export interface BatchHeader {
  baseOffset: number;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  /** The stored CRC-32C, unsigned. */
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordsCount: number;
}

/**
 * Result of validateBatch: null when valid, else a data error carrying Kafka's CORRUPT_MESSAGE.
 * `torn` is true when the batch may simply be incomplete (fewer bytes available than its
 * header or its length field needs): a torn log tail, or the partial last batch of a fetch.
 */
export type BatchValidation = null | { errorCode: number; reason: string; torn: boolean };

/** Position and total size (LOG_OVERHEAD + batchLength) of one complete batch. */
export interface BatchFrame {
  pos: number;
  size: number;
}

// ---- big-endian primitives on Uint8Array (no DataView allocation) ----

export function readInt8(buf: Uint8Array, pos: number): number {
  return (buf[pos]! << 24) >> 24;
}

export function readInt16BE(buf: Uint8Array, pos: number): number {
  return (((buf[pos]! << 8) | buf[pos + 1]!) << 16) >> 16;
}

export function readInt32BE(buf: Uint8Array, pos: number): number {
  return (buf[pos]! << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!;
}

export function readUInt32BE(buf: Uint8Array, pos: number): number {
  return readInt32BE(buf, pos) >>> 0;
}

/** int64 as a number; exact within +-2^53. */
export function readInt64BE(buf: Uint8Array, pos: number): number {
  return readInt32BE(buf, pos) * TWO_32 + readUInt32BE(buf, pos + 4);
}

export function writeInt16BE(buf: Uint8Array, pos: number, v: number): void {
  buf[pos] = v >>> 8;
  buf[pos + 1] = v;
}

/** Writes the low 32 bits of v (signed or unsigned input). */
export function writeInt32BE(buf: Uint8Array, pos: number, v: number): void {
  buf[pos] = v >>> 24;
  buf[pos + 1] = v >>> 16;
  buf[pos + 2] = v >>> 8;
  buf[pos + 3] = v;
}

/** Writes a safe integer as int64 (two's complement for negatives). */
export function writeInt64BE(buf: Uint8Array, pos: number, v: number): void {
  const hi = Math.floor(v / TWO_32);
  writeInt32BE(buf, pos, hi);
  writeInt32BE(buf, pos + 4, v - hi * TWO_32);
}

// ---- header readers ----

/** Reads every header field at `pos`. The caller ensures 61 bytes are there (see validateBatch). */
export function readBatchHeader(buf: Uint8Array, pos: number): BatchHeader {
  return {
    baseOffset: readInt64BE(buf, pos + BASE_OFFSET_OFFSET),
    batchLength: readInt32BE(buf, pos + BATCH_LENGTH_OFFSET),
    partitionLeaderEpoch: readInt32BE(buf, pos + PARTITION_LEADER_EPOCH_OFFSET),
    magic: readInt8(buf, pos + MAGIC_OFFSET),
    crc: readUInt32BE(buf, pos + CRC_OFFSET),
    attributes: readInt16BE(buf, pos + ATTRIBUTES_OFFSET),
    lastOffsetDelta: readInt32BE(buf, pos + LAST_OFFSET_DELTA_OFFSET),
    baseTimestamp: readInt64BE(buf, pos + BASE_TIMESTAMP_OFFSET),
    maxTimestamp: readInt64BE(buf, pos + MAX_TIMESTAMP_OFFSET),
    producerId: readInt64BE(buf, pos + PRODUCER_ID_OFFSET),
    producerEpoch: readInt16BE(buf, pos + PRODUCER_EPOCH_OFFSET),
    baseSequence: readInt32BE(buf, pos + BASE_SEQUENCE_OFFSET),
    recordsCount: readInt32BE(buf, pos + RECORDS_COUNT_OFFSET),
  };
}

/** Total bytes the batch at `pos` occupies: LOG_OVERHEAD + batchLength. Needs 12 bytes. */
export function batchSizeAt(buf: Uint8Array, pos: number): number {
  return LOG_OVERHEAD + readInt32BE(buf, pos + BATCH_LENGTH_OFFSET);
}

export function baseOffsetOf(buf: Uint8Array, pos: number): number {
  return readInt64BE(buf, pos + BASE_OFFSET_OFFSET);
}

/** baseOffset + lastOffsetDelta: the offset of the batch's last record. */
export function lastOffsetOf(buf: Uint8Array, pos: number): number {
  return readInt64BE(buf, pos + BASE_OFFSET_OFFSET) + readInt32BE(buf, pos + LAST_OFFSET_DELTA_OFFSET);
}

/** lastOffset + 1: the offset the next batch in the log starts at. */
export function nextOffsetOf(buf: Uint8Array, pos: number): number {
  return lastOffsetOf(buf, pos) + 1;
}

export function maxTimestampOf(buf: Uint8Array, pos: number): number {
  return readInt64BE(buf, pos + MAX_TIMESTAMP_OFFSET);
}

export function recordsCountOf(buf: Uint8Array, pos: number): number {
  return readInt32BE(buf, pos + RECORDS_COUNT_OFFSET);
}

export function partitionLeaderEpochOf(buf: Uint8Array, pos: number): number {
  return readInt32BE(buf, pos + PARTITION_LEADER_EPOCH_OFFSET);
}

export function attributesOf(buf: Uint8Array, pos: number): number {
  return readInt16BE(buf, pos + ATTRIBUTES_OFFSET);
}

/**
 * The delete horizon a batch with these attributes and base timestamp carries (KIP-534: the time
 * from which the log cleaner may remove its tombstones), or null when the flag is not set.
 */
export function deleteHorizonFrom(attributes: number, baseTimestamp: number): number | null {
  return (attributes & DELETE_HORIZON_FLAG_MASK) !== 0 ? baseTimestamp : null;
}

/** The delete horizon of the batch at `pos` (see deleteHorizonFrom), or null. */
export function deleteHorizonOf(buf: Uint8Array, pos: number): number | null {
  return deleteHorizonFrom(attributesOf(buf, pos), readInt64BE(buf, pos + BASE_TIMESTAMP_OFFSET));
}

/** The stored CRC (unsigned). */
export function storedCrcOf(buf: Uint8Array, pos: number): number {
  return readUInt32BE(buf, pos + CRC_OFFSET);
}

/** CRC-32C of attributes..end for the batch at `pos` (needs the whole batch in `buf`). */
export function computeBatchCrc(buf: Uint8Array, pos: number): number {
  return crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + batchSizeAt(buf, pos));
}

/** Recomputes and stores the CRC of the complete batch at `pos`. */
export function writeBatchCrc(buf: Uint8Array, pos: number): void {
  writeInt32BE(buf, pos + CRC_OFFSET, computeBatchCrc(buf, pos));
}

// ---- header writers that leave the CRC valid ----

/** Stamps the batch's baseOffset (a non-negative safe integer). The CRC stays valid. */
export function setBaseOffset(buf: Uint8Array, pos: number, offset: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`baseOffset must be a non-negative safe integer, got ${offset}`);
  }
  writeInt64BE(buf, pos + BASE_OFFSET_OFFSET, offset);
}

/** Stamps the partition leader epoch (int32, -1 for none). The CRC stays valid. */
export function setPartitionLeaderEpoch(buf: Uint8Array, pos: number, epoch: number): void {
  if (!Number.isInteger(epoch) || epoch < -1 || epoch > 0x7fffffff) {
    throw new RangeError(`partitionLeaderEpoch must be an int32 >= -1, got ${epoch}`);
  }
  writeInt32BE(buf, pos + PARTITION_LEADER_EPOCH_OFFSET, epoch);
}

/**
 * Stamps an idempotent producer's id, epoch and the batch's first sequence number (a producer
 * assigns them when it first sends the batch), then recomputes the CRC, which covers them.
 */
export function setProducerState(buf: Uint8Array, pos: number, producerId: number, producerEpoch: number, baseSequence: number): void {
  if (!Number.isSafeInteger(producerId) || producerId < -1) throw new RangeError(`producerId must be a safe integer >= -1, got ${producerId}`);
  if (!Number.isInteger(producerEpoch) || producerEpoch < -1 || producerEpoch > 0x7fff) throw new RangeError(`producerEpoch must be an int16 >= -1, got ${producerEpoch}`);
  if (!Number.isInteger(baseSequence) || baseSequence < -1 || baseSequence > 0x7fffffff) throw new RangeError(`baseSequence must be an int32 >= -1, got ${baseSequence}`);
  writeInt64BE(buf, pos + PRODUCER_ID_OFFSET, producerId);
  writeInt16BE(buf, pos + PRODUCER_EPOCH_OFFSET, producerEpoch);
  writeInt32BE(buf, pos + BASE_SEQUENCE_OFFSET, baseSequence);
  writeBatchCrc(buf, pos);
}

/**
 * Sets the timestamp type bit and maxTimestamp (e.g. LogAppendTime stamped by the leader, after
 * which every record reads as maxTimestamp), then recomputes the CRC, which covers both fields.
 */
export function setMaxTimestamp(buf: Uint8Array, pos: number, timestampType: TimestampTypeValue, maxTimestamp: number): void {
  if (!Number.isSafeInteger(maxTimestamp)) {
    throw new RangeError(`maxTimestamp must be a safe integer, got ${maxTimestamp}`);
  }
  const attributes = readInt16BE(buf, pos + ATTRIBUTES_OFFSET);
  const next = timestampType === TimestampType.LOG_APPEND_TIME ? attributes | TIMESTAMP_TYPE_MASK : attributes & ~TIMESTAMP_TYPE_MASK;
  writeInt16BE(buf, pos + ATTRIBUTES_OFFSET, next);
  writeInt64BE(buf, pos + MAX_TIMESTAMP_OFFSET, maxTimestamp);
  writeBatchCrc(buf, pos);
}

// ---- validation and framing ----

function corrupt(reason: string, torn = false): BatchValidation {
  return { errorCode: ErrorCode.CORRUPT_MESSAGE, reason, torn };
}

/**
 * Validates the batch at `pos`, given `available` readable bytes starting at `pos` (default: to
 * the end of `buf`). Returns null when the batch is complete and sound, else
 * `{ errorCode: CORRUPT_MESSAGE, reason, torn }`. Checks, in order: at least 61 bytes (torn),
 * batchLength >= 49, magic == 2, the batch fits in `available` (torn), CRC-32C over
 * attributes..end, recordsCount >= 0, lastOffsetDelta >= 0 and >= recordsCount - 1 (a compacted
 * batch may have a larger delta than its count, never a smaller one). `checkCrc` false skips the
 * CRC (a consumer with check.crcs=false); every other check still runs.
 */
export function validateBatch(buf: Uint8Array, pos: number, available: number = buf.length - pos, checkCrc = true): BatchValidation {
  const avail = Math.min(available, buf.length - pos);
  if (pos < 0 || avail < RECORD_BATCH_OVERHEAD) {
    return corrupt(`batch header needs ${RECORD_BATCH_OVERHEAD} bytes, only ${Math.max(avail, 0)} available`, true);
  }
  const batchLength = readInt32BE(buf, pos + BATCH_LENGTH_OFFSET);
  if (batchLength < MIN_BATCH_LENGTH) {
    return corrupt(`batchLength ${batchLength} is below the minimum ${MIN_BATCH_LENGTH}`);
  }
  const magic = readInt8(buf, pos + MAGIC_OFFSET);
  if (magic !== CURRENT_MAGIC) {
    return corrupt(`unsupported magic ${magic}, expected ${CURRENT_MAGIC}`);
  }
  const size = LOG_OVERHEAD + batchLength;
  if (size > avail) {
    return corrupt(`batch of ${size} bytes runs past the ${avail} bytes available (torn)`, true);
  }
  if (checkCrc) {
    const stored = readUInt32BE(buf, pos + CRC_OFFSET);
    const computed = crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + size);
    if (stored !== computed) {
      return corrupt(`CRC mismatch: stored 0x${hex32(stored)}, computed 0x${hex32(computed)}`);
    }
  }
  const recordsCount = readInt32BE(buf, pos + RECORDS_COUNT_OFFSET);
  if (recordsCount < 0) {
    return corrupt(`negative records count ${recordsCount}`);
  }
  const lastOffsetDelta = readInt32BE(buf, pos + LAST_OFFSET_DELTA_OFFSET);
  if (lastOffsetDelta < 0 || lastOffsetDelta < recordsCount - 1) {
    return corrupt(`lastOffsetDelta ${lastOffsetDelta} is inconsistent with ${recordsCount} records`);
  }
  return null;
}

function hex32(v: number): string {
  return v.toString(16).padStart(8, '0');
}

/**
 * Yields {pos, size} for each complete batch in buf[start, end), framing by the length field
 * only (no CRC check: call validateBatch for that). Stops cleanly at a torn tail (fewer than 61
 * bytes left, or a batch running past `end`) and at an impossible batchLength (< 49). The
 * generator's return value is the position where it stopped: `end` when the range held only
 * whole batches, otherwise the start of the partial or unframeable data (validateBatch there
 * says why).
 */
export function* iterateBatches(buf: Uint8Array, start = 0, end: number = buf.length): Generator<BatchFrame, number, undefined> {
  const limit = Math.min(end, buf.length);
  let pos = start;
  while (limit - pos >= RECORD_BATCH_OVERHEAD) {
    const batchLength = readInt32BE(buf, pos + BATCH_LENGTH_OFFSET);
    if (batchLength < MIN_BATCH_LENGTH) break;
    const size = LOG_OVERHEAD + batchLength;
    if (size > limit - pos) break;
    yield { pos, size };
    pos += size;
  }
  return pos;
}
