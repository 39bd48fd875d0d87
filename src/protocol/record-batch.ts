/**
 * Encoder and decoder for Kafka RecordBatch v2 (magic 2), byte-compatible with Kafka: the 61-byte
 * header (batch-header.ts), CRC-32C over attributes..end, then `recordsCount` records, the record
 * section compressed as a whole when the codec (attributes bits 0-2) is not none. Each record:
 *   length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
 *   key (varint length, -1 = null, bytes) | value (same) | header count varint |
 *   headers: key (varint length, utf-8) value (varint length, -1 = null, bytes)
 * A record's timestamp is baseTimestamp + timestampDelta (under LogAppendTime, maxTimestamp). The
 * base timestamp is normally the first record's; with the delete horizon flag (attribute bit 6,
 * KIP-534) it is the time the log cleaner set for the batch's tombstones, and the deltas are
 * taken from it.
 *
 * Encoding is the producer's hot path: sizes are computed first and the batch is written into one
 * exactly-sized Buffer of its own (byteOffset 0, not from Node's shared pool, so it can be
 * transferred); with compression the record section is encoded, compressed, then copied once
 * behind the header. Decoding happens only in the consumer: it validates the header and CRC and
 * throws CorruptRecordError (errorCode CORRUPT_MESSAGE) on any damage, or
 * UnsupportedCompressionError (UNSUPPORTED_COMPRESSION_TYPE) for a codec this build lacks. Decoded
 * keys, values and header values are zero-copy views into the input (or into the decompressed
 * records): copy them if the input buffer will be reused.
 */
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_LENGTH_OFFSET,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  CURRENT_MAGIC,
  DELETE_HORIZON_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  NO_PARTITION_LEADER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  NO_TIMESTAMP,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  TimestampType,
  iterateBatches,
  readBatchHeader,
  validateBatch,
  batchSizeAt,
  type BatchFrame,
  writeInt16BE,
  writeInt32BE,
  writeInt64BE,
  type BatchHeader,
  type TimestampTypeValue,
} from './batch-header.js';
import {
  CompressionType,
  compress,
  compressAsync,
  compressionId,
  compressionName,
  decompress,
  decompressAsync,
  UnsupportedCompressionError,
  type CompressionName,
} from './compression.js';
import { DecompressedSizeError } from './decompressed-size.js';
import { crc32c } from './crc32c.js';
import { ErrorCode } from './errors.js';
import {
  INT32_MAX,
  INT32_MIN,
  VarintError,
  putUnsignedVarint,
  readVarint,
  readVarlong,
  sizeOfUnsignedVarint,
  sizeOfVarint,
  sizeOfVarlong,
  writeVarint,
  writeVarlong,
  zigzag32,
  type ReadCursor,
} from './varint.js';

// ---- types ----

export interface RecordHeader {
  key: string;
  value: Uint8Array | null;
}

/** One record to encode. */
export interface RecordInput {
  key?: Uint8Array | null;
  value: Uint8Array | null;
  headers?: readonly RecordHeader[];
  /** Milliseconds; defaults to the batch's baseTimestamp. */
  timestamp?: number;
  /** Defaults to the record's index; must strictly increase through the batch. */
  offsetDelta?: number;
}

/** What encodeRecordBatch writes. Unset fields take Kafka's "none" values. */
export interface RecordBatchInput {
  /** Default 0: the leader assigns the real one with setBaseOffset. */
  baseOffset?: number;
  /** Default -1. */
  partitionLeaderEpoch?: number;
  /** Codec id (0-7) or name (Kafka's, or one given to registerCodec); default none. */
  compression?: number | CompressionName | (string & {});
  /** The codec's compression level (KIP-390; src/protocol/compression.ts); none: its default. */
  compressionLevel?: number;
  /** Default CreateTime (0). */
  timestampType?: TimestampTypeValue;
  transactional?: boolean;
  control?: boolean;
  /** Default -1. */
  producerId?: number;
  /** Default -1. */
  producerEpoch?: number;
  /** Default -1. */
  baseSequence?: number;
  /** Default: the first record's timestamp, else -1. */
  baseTimestamp?: number;
  /**
   * Kafka's delete horizon (KIP-534, set by the log cleaner): sets attribute bit 6 and is written
   * as the base timestamp, in place of `baseTimestamp` (not both). Record timestamp deltas are
   * taken from it, so every record still reads as its own timestamp.
   */
  deleteHorizonMs?: number;
  /** Default: the largest record timestamp, else baseTimestamp. */
  maxTimestamp?: number;
  /** Default: the last record's offsetDelta (0 for an empty batch). */
  lastOffsetDelta?: number;
  records: readonly RecordInput[];
}

export interface DecodedRecord {
  /** baseOffset + offsetDelta. */
  offset: number;
  /** baseTimestamp + timestampDelta, or the batch's maxTimestamp under LogAppendTime. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
}

export interface DecodedRecordBatch extends BatchHeader {
  compression: number;
  timestampType: TimestampTypeValue;
  transactional: boolean;
  control: boolean;
  records: DecodedRecord[];
}

/** A damaged batch found while decoding. `errorCode` is CORRUPT_MESSAGE. */
export class CorruptRecordError extends Error {
  override readonly name = 'CorruptRecordError';
  readonly errorCode: number = ErrorCode.CORRUPT_MESSAGE;
  constructor(
    readonly reason: string,
    /** Position of the batch in the decoded buffer. */
    readonly batchPos: number,
  ) {
    super(`corrupt record batch at byte ${batchPos}: ${reason}`);
  }
}

// ---- encoding ----

/** Writes a record's header count and headers at `pos` (sized by headersSize); returns the end. */
function writeHeaders(out: Buffer, pos: number, headers: readonly RecordHeader[] | undefined): number {
  if (headers === undefined || headers.length === 0) {
    out[pos] = 0;
    return pos + 1;
  }
  pos = writeVarint(out, pos, headers.length);
  for (let h = 0; h < headers.length; h++) {
    const hd = headers[h]!;
    pos = writeVarint(out, pos, Buffer.byteLength(hd.key, 'utf8'));
    pos += out.write(hd.key, pos, 'utf8');
    pos = writeBytesField(out, pos, hd.value);
  }
  return pos;
}

/** Encoded size of a record's header count and headers (record `index` names it in errors). */
function headersSize(headers: readonly RecordHeader[] | undefined, index: number): number {
  if (headers === undefined || headers.length === 0) return 1;
  let size = sizeOfVarint(headers.length);
  for (let h = 0; h < headers.length; h++) {
    const hd = headers[h]!;
    if (typeof hd.key !== 'string') throw new TypeError(`record ${index}: header ${h} key must be a string`);
    const kl = Buffer.byteLength(hd.key, 'utf8');
    size += sizeOfVarint(kl) + kl + bytesFieldSize(hd.value);
  }
  return size;
}

/** Per-record body sizes, reused across calls (encoding is synchronous up to compression). */
let scratchSizes = new Int32Array(1024);

interface Plan {
  attributes: number;
  codec: number;
  baseTimestamp: number;
  maxTimestamp: number;
  lastOffsetDelta: number;
  recordsSize: number;
  sizes: Int32Array;
}

function codecOf(c: number | string | undefined): number {
  if (c === undefined) return CompressionType.NONE;
  const id = typeof c === 'number' ? c : compressionId(c);
  if (!Number.isInteger(id) || id < 0 || id > COMPRESSION_CODEC_MASK) {
    throw new UnsupportedCompressionError(id, `compression codec id ${id} does not fit attribute bits 0-2`);
  }
  return id;
}

function checkInt(name: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${v}`);
  return v;
}

function checkSafe(name: string, v: number): number {
  if (!Number.isSafeInteger(v)) throw new RangeError(`${name} must be a safe integer, got ${v}`);
  return v;
}

function bytesFieldSize(b: Uint8Array | null | undefined): number {
  if (b == null) return 1;
  const n = b.length;
  return sizeOfVarint(n) + n;
}

/** Sizes every record (into `sizes`) and resolves the batch-level defaults. */
function plan(input: RecordBatchInput): Plan {
  const records = input.records;
  const n = records.length;
  const codec = codecOf(input.compression);
  const timestampType = input.timestampType ?? TimestampType.CREATE_TIME;
  const attributes =
    codec |
    (timestampType === TimestampType.LOG_APPEND_TIME ? TIMESTAMP_TYPE_MASK : 0) |
    (input.transactional ? TRANSACTIONAL_FLAG_MASK : 0) |
    (input.control ? CONTROL_FLAG_MASK : 0) |
    (input.deleteHorizonMs !== undefined ? DELETE_HORIZON_FLAG_MASK : 0);
  let baseTimestamp: number;
  if (input.deleteHorizonMs !== undefined) {
    if (input.baseTimestamp !== undefined) throw new RangeError('baseTimestamp and deleteHorizonMs are the same field: give one');
    baseTimestamp = checkInt('deleteHorizonMs', input.deleteHorizonMs, 0, Number.MAX_SAFE_INTEGER);
  } else baseTimestamp = checkSafe('baseTimestamp', input.baseTimestamp ?? records[0]?.timestamp ?? NO_TIMESTAMP);
  if (scratchSizes.length < n) scratchSizes = new Int32Array(Math.max(n, scratchSizes.length * 2));
  const sizes = scratchSizes;
  let maxTs = n === 0 ? baseTimestamp : -Infinity;
  let prevDelta = -1;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    const ts = r.timestamp ?? baseTimestamp;
    if (!Number.isSafeInteger(ts)) throw new RangeError(`record ${i}: timestamp must be a safe integer, got ${ts}`);
    if (ts > maxTs) maxTs = ts;
    const od = r.offsetDelta ?? i;
    if (!(od > prevDelta) || (od | 0) !== od) {
      throw new RangeError(`record ${i}: offsetDelta ${od} must be an int32 greater than the previous (${prevDelta})`);
    }
    prevDelta = od;
    const size = 1 + sizeOfVarlong(ts - baseTimestamp) + sizeOfVarint(od) + bytesFieldSize(r.key) + bytesFieldSize(r.value) + headersSize(r.headers, i);
    sizes[i] = size;
    total += sizeOfVarint(size) + size;
  }
  const lastOffsetDelta = checkInt('lastOffsetDelta', input.lastOffsetDelta ?? (n === 0 ? 0 : prevDelta), 0, 0x7fffffff);
  if (lastOffsetDelta < prevDelta) {
    throw new RangeError(`lastOffsetDelta ${lastOffsetDelta} is below the last record's offsetDelta ${prevDelta}`);
  }
  return {
    attributes,
    codec,
    baseTimestamp,
    maxTimestamp: checkSafe('maxTimestamp', input.maxTimestamp ?? maxTs),
    lastOffsetDelta,
    recordsSize: total,
    sizes,
  };
}

/** Key and value lengths of the builder's small-record path (its record size then stays below 2^30). */
const MAX_SMALL_LENGTH = 0x10000000;

function writeBytesField(out: Buffer, pos: number, b: Uint8Array | null | undefined): number {
  if (b == null) {
    out[pos] = 0x01; // zigzag(-1)
    return pos + 1;
  }
  pos = writeVarint(out, pos, b.length);
  out.set(b, pos);
  return pos + b.length;
}

/** Writes the records at `pos` using the sizes from plan(); returns the end position. */
function writeRecords(out: Buffer, pos: number, input: RecordBatchInput, p: Plan): number {
  const records = input.records;
  const sizes = p.sizes;
  const baseTimestamp = p.baseTimestamp;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    pos = writeVarint(out, pos, sizes[i]!);
    out[pos++] = 0; // record attributes: unused
    pos = writeVarlong(out, pos, (r.timestamp ?? baseTimestamp) - baseTimestamp);
    pos = writeVarint(out, pos, r.offsetDelta ?? i);
    pos = writeBytesField(out, pos, r.key);
    pos = writeBytesField(out, pos, r.value);
    pos = writeHeaders(out, pos, r.headers);
  }
  return pos;
}

/** Writes the 61-byte header (all but the CRC) at 0 for a batch of `size` bytes. */
function writeHeader(out: Buffer, input: RecordBatchInput, p: Plan, size: number): void {
  writeInt64BE(out, BASE_OFFSET_OFFSET, checkInt('baseOffset', input.baseOffset ?? 0, 0, Number.MAX_SAFE_INTEGER));
  writeInt32BE(out, BATCH_LENGTH_OFFSET, size - LOG_OVERHEAD);
  writeInt32BE(out, PARTITION_LEADER_EPOCH_OFFSET, checkInt('partitionLeaderEpoch', input.partitionLeaderEpoch ?? NO_PARTITION_LEADER_EPOCH, -1, 0x7fffffff));
  out[MAGIC_OFFSET] = CURRENT_MAGIC;
  writeInt16BE(out, ATTRIBUTES_OFFSET, p.attributes);
  writeInt32BE(out, LAST_OFFSET_DELTA_OFFSET, p.lastOffsetDelta);
  writeInt64BE(out, BASE_TIMESTAMP_OFFSET, p.baseTimestamp);
  writeInt64BE(out, MAX_TIMESTAMP_OFFSET, p.maxTimestamp);
  writeInt64BE(out, PRODUCER_ID_OFFSET, checkSafe('producerId', input.producerId ?? NO_PRODUCER_ID));
  writeInt16BE(out, PRODUCER_EPOCH_OFFSET, checkInt('producerEpoch', input.producerEpoch ?? NO_PRODUCER_EPOCH, -32768, 32767));
  writeInt32BE(out, BASE_SEQUENCE_OFFSET, checkInt('baseSequence', input.baseSequence ?? NO_SEQUENCE, -0x80000000, 0x7fffffff));
  writeInt32BE(out, RECORDS_COUNT_OFFSET, input.records.length);
}

function finish(out: Buffer): Buffer {
  writeInt32BE(out, CRC_OFFSET, crc32c(out, ATTRIBUTES_OFFSET, out.length));
  return out;
}

function encodeUncompressed(input: RecordBatchInput, p: Plan): Buffer {
  const size = RECORD_BATCH_OVERHEAD + p.recordsSize;
  const out = Buffer.allocUnsafeSlow(size);
  writeHeader(out, input, p, size);
  writeRecords(out, RECORD_BATCH_OVERHEAD, input, p);
  return finish(out);
}

function encodeRecordSection(input: RecordBatchInput, p: Plan): Buffer {
  const section = Buffer.allocUnsafe(p.recordsSize);
  writeRecords(section, 0, input, p);
  return section;
}

function assemble(input: RecordBatchInput, p: Plan, compressed: Uint8Array): Buffer {
  const size = RECORD_BATCH_OVERHEAD + compressed.length;
  const out = Buffer.allocUnsafeSlow(size);
  writeHeader(out, input, p, size);
  out.set(compressed, RECORD_BATCH_OVERHEAD);
  return finish(out);
}

/**
 * Encodes one RecordBatch v2 into a new, exactly-sized Buffer. Compression runs synchronously;
 * use encodeRecordBatchAsync for big compressed batches. Throws RangeError/TypeError for invalid
 * input and UnsupportedCompressionError for a codec this build lacks.
 */
export function encodeRecordBatch(input: RecordBatchInput): Buffer {
  const p = plan(input);
  if (p.codec === CompressionType.NONE) return encodeUncompressed(input, p);
  return assemble(input, p, compress(p.codec, encodeRecordSection(input, p), input.compressionLevel));
}

/** As encodeRecordBatch, compressing off the event loop (zlib's thread pool for gzip). */
export async function encodeRecordBatchAsync(input: RecordBatchInput): Promise<Buffer> {
  const p = plan(input);
  if (p.codec === CompressionType.NONE) return encodeUncompressed(input, p);
  // plan() sizes live in shared scratch that another encode may reuse during the await; the
  // record section is written before it, and assemble() needs only the header values.
  const section = encodeRecordSection(input, p);
  return assemble(input, p, await compressAsync(p.codec, section, input.compressionLevel));
}

/**
 * Builds one RecordBatch v2 record by record, writing each record's bytes into the batch buffer
 * as it is appended (the producer's accumulator: no per-record objects are kept, and nothing is
 * encoded twice). Timestamps are deltas from the first record's; offset deltas are the record
 * indexes. `build()` writes the header and CRC (compressing the record section first when a
 * codec is set) and returns bytes identical to encodeRecordBatch over the same records.
 */
export class RecordBatchBuilder {
  private buf: Buffer;
  private pos = RECORD_BATCH_OVERHEAD;
  private baseTimestamp = 0;
  private maxTimestamp = 0;
  /** Records appended so far. */
  count = 0;

  /**
   * `capacity`: bytes to reserve up front (batch.size); the buffer grows for bigger records.
   * `reuse`: a buffer of exactly `batchBufferSize(capacity)` bytes to write into instead of a
   * new one (its old contents are overwritten).
   */
  constructor(capacity: number, reuse?: Buffer) {
    const size = batchBufferSize(capacity);
    if (reuse && reuse.length !== size) throw new RangeError(`a reused buffer must have ${size} bytes, got ${reuse.length}`);
    this.buf = reuse ?? Buffer.allocUnsafeSlow(size);
  }

  /** The buffer records are written into (replaced when a big record makes it grow). */
  get buffer(): Buffer {
    return this.buf;
  }

  /** Encoded bytes so far, header included (uncompressed). */
  get sizeInBytes(): number {
    return this.pos;
  }

  /** Appends one record; `timestamp` in milliseconds (a safe integer). Returns the bytes it took. */
  append(key: Uint8Array | null | undefined, value: Uint8Array | null, headers: readonly RecordHeader[] | undefined, timestamp: number): number {
    if (!Number.isSafeInteger(timestamp)) throw new RangeError(`record ${this.count}: timestamp must be a safe integer, got ${timestamp}`);
    if (this.count === 0) {
      this.baseTimestamp = timestamp;
      this.maxTimestamp = timestamp;
    } else if (timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
    const delta = timestamp - this.baseTimestamp;
    const od = this.count;
    // the common record (a timestamp within an int32 of the batch's first, ~24 days; no headers;
    // key and value under 256 MiB) takes the unchecked varint writers, which TurboFan inlines:
    // calls to the checked ones were a sixth of writing a 100-byte record. The offset delta is
    // the record count, far below 2^30, so its zigzag is od << 1.
    const kl = key == null ? -1 : key.length;
    const vl = value == null ? -1 : value.length;
    if (delta >= INT32_MIN && delta <= INT32_MAX && kl < MAX_SMALL_LENGTH && vl < MAX_SMALL_LENGTH && (headers === undefined || headers.length === 0)) {
      const dz = zigzag32(delta);
      const kz = zigzag32(kl);
      const vz = zigzag32(vl);
      const size = 2 + sizeOfUnsignedVarint(dz) + sizeOfUnsignedVarint(od << 1) + sizeOfUnsignedVarint(kz) + (kl > 0 ? kl : 0) + sizeOfUnsignedVarint(vz) + (vl > 0 ? vl : 0);
      const total = sizeOfUnsignedVarint(size << 1) + size;
      if (this.pos + total > this.buf.length) this.grow(this.pos + total);
      const out = this.buf;
      let pos = putUnsignedVarint(out, this.pos, size << 1);
      out[pos++] = 0; // record attributes: unused
      pos = putUnsignedVarint(out, pos, dz);
      pos = putUnsignedVarint(out, pos, od << 1);
      pos = putUnsignedVarint(out, pos, kz);
      if (kl > 0) {
        out.set(key!, pos);
        pos += kl;
      }
      pos = putUnsignedVarint(out, pos, vz);
      if (vl > 0) {
        out.set(value!, pos);
        pos += vl;
      }
      out[pos++] = 0; // no headers
      this.pos = pos;
      this.count++;
      return total;
    }
    const size = 1 + sizeOfVarlong(delta) + sizeOfVarint(od) + bytesFieldSize(key) + bytesFieldSize(value) + headersSize(headers, od);
    const total = sizeOfVarint(size) + size;
    if (this.pos + total > this.buf.length) this.grow(this.pos + total);
    const out = this.buf;
    let pos = writeVarint(out, this.pos, size);
    out[pos++] = 0; // record attributes: unused
    pos = writeVarlong(out, pos, delta);
    pos = writeVarint(out, pos, od);
    pos = writeBytesField(out, pos, key);
    pos = writeBytesField(out, pos, value);
    pos = writeHeaders(out, pos, headers);
    this.pos = pos;
    this.count++;
    return total;
  }

  private grow(need: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /**
   * The batch's bytes (baseOffset 0, no producer id, CreateTime). The builder must not be
   * appended to afterwards. Uncompressed, the result is a view of the builder's buffer when that
   * is mostly used, else a tight copy (a lingering one-record batch does not pin batch.size bytes).
   */
  build(compression: number | CompressionName | (string & {}) = CompressionType.NONE, level?: number): Buffer {
    const codec = codecOf(compression);
    let out: Buffer;
    if (codec === CompressionType.NONE) {
      const used = this.buf.subarray(0, this.pos);
      out = this.pos * 2 >= this.buf.length ? used : copyToOwned(used);
    } else {
      const compressed = compress(codec, this.buf.subarray(RECORD_BATCH_OVERHEAD, this.pos), level);
      out = Buffer.allocUnsafeSlow(RECORD_BATCH_OVERHEAD + compressed.length);
      out.set(compressed, RECORD_BATCH_OVERHEAD);
    }
    writeInt64BE(out, BASE_OFFSET_OFFSET, 0);
    writeInt32BE(out, BATCH_LENGTH_OFFSET, out.length - LOG_OVERHEAD);
    writeInt32BE(out, PARTITION_LEADER_EPOCH_OFFSET, NO_PARTITION_LEADER_EPOCH);
    out[MAGIC_OFFSET] = CURRENT_MAGIC;
    writeInt16BE(out, ATTRIBUTES_OFFSET, codec);
    writeInt32BE(out, LAST_OFFSET_DELTA_OFFSET, this.count === 0 ? 0 : this.count - 1);
    writeInt64BE(out, BASE_TIMESTAMP_OFFSET, this.count === 0 ? NO_TIMESTAMP : this.baseTimestamp);
    writeInt64BE(out, MAX_TIMESTAMP_OFFSET, this.count === 0 ? NO_TIMESTAMP : this.maxTimestamp);
    writeInt64BE(out, PRODUCER_ID_OFFSET, NO_PRODUCER_ID);
    writeInt16BE(out, PRODUCER_EPOCH_OFFSET, NO_PRODUCER_EPOCH);
    writeInt32BE(out, BASE_SEQUENCE_OFFSET, NO_SEQUENCE);
    writeInt32BE(out, RECORDS_COUNT_OFFSET, this.count);
    return finish(out);
  }
}

/** Bytes of a RecordBatchBuilder's buffer for a `capacity` (batch.size). */
export function batchBufferSize(capacity: number): number {
  return Math.max(capacity, RECORD_BATCH_OVERHEAD + 64);
}

/** A copy in a buffer of its own (byteOffset 0, not Node's shared pool). */
function copyToOwned(b: Buffer): Buffer {
  const out = Buffer.allocUnsafeSlow(b.length);
  b.copy(out);
  return out;
}

// ---- decoding ----

function asBuffer(buf: Uint8Array): Buffer {
  return Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
}

interface Framed {
  b: Buffer;
  pos: number;
  size: number;
  header: BatchHeader;
  codec: number;
}

/** Options of decodeRecordBatch. */
export interface DecodeOptions {
  /** Verify the batch's CRC-32C (default true; a consumer's check.crcs). */
  checkCrc?: boolean;
  /** Bound on a compressed batch's records once decompressed (DecompressedSizeError past it; default none). */
  maxDecompressedBytes?: number;
}

function frame(buf: Uint8Array, pos: number, options: DecodeOptions | undefined): Framed {
  const b = asBuffer(buf);
  const invalid = validateBatch(b, pos, undefined, options?.checkCrc ?? true);
  if (invalid) throw new CorruptRecordError(invalid.reason, pos);
  const header = readBatchHeader(b, pos);
  return { b, pos, size: LOG_OVERHEAD + header.batchLength, header, codec: header.attributes & COMPRESSION_CODEC_MASK };
}

/** Minimum encoded record: length, attributes, timestampDelta, offsetDelta, key, value, header count. */
const MIN_RECORD_SIZE = 7;

/** The headers of every record without any: one shared, frozen array (no allocation per record). */
const NO_HEADERS = Object.freeze([]) as unknown as { key: string; value: Buffer | null }[];

function decodeRecords(f: Framed, data: Buffer, start: number, end: number): DecodedRecordBatch {
  const h = f.header;
  const count = h.recordsCount;
  if (count * MIN_RECORD_SIZE > end - start) {
    throw new CorruptRecordError(`${count} records cannot fit in ${end - start} bytes of record data`, f.pos);
  }
  const logAppend = (h.attributes & TIMESTAMP_TYPE_MASK) !== 0;
  const records: DecodedRecord[] = new Array(count);
  const cur: ReadCursor = { pos: start, end };
  let i = 0;
  try {
    for (; i < count; i++) {
      cur.end = end;
      const length = readVarint(data, cur);
      const recEnd = cur.pos + length;
      if (length < 6 || recEnd > end) {
        throw new CorruptRecordError(`record ${i}: length ${length} is invalid with ${end - cur.pos} bytes left`, f.pos);
      }
      cur.end = recEnd;
      cur.pos++; // record attributes (unused by Kafka)
      const tsDelta = readVarlong(data, cur);
      const od = readVarint(data, cur);
      const key = readBytes(data, cur, f, i, 'key');
      const value = readBytes(data, cur, f, i, 'value');
      const hc = readVarint(data, cur);
      if (hc < 0 || hc * 2 > recEnd - cur.pos) {
        throw new CorruptRecordError(`record ${i}: invalid header count ${hc}`, f.pos);
      }
      const headers: { key: string; value: Buffer | null }[] = hc === 0 ? NO_HEADERS : [];
      for (let k = 0; k < hc; k++) {
        const kl = readVarint(data, cur);
        if (kl < 0 || cur.pos + kl > recEnd) {
          throw new CorruptRecordError(`record ${i}: invalid header key length ${kl}`, f.pos);
        }
        const hk = data.toString('utf8', cur.pos, cur.pos + kl);
        cur.pos += kl;
        headers.push({ key: hk, value: readBytes(data, cur, f, i, 'header value') });
      }
      if (cur.pos !== recEnd) {
        throw new CorruptRecordError(`record ${i}: ${recEnd - cur.pos} bytes left over inside the record`, f.pos);
      }
      records[i] = {
        offset: h.baseOffset + od,
        timestamp: logAppend ? h.maxTimestamp : h.baseTimestamp + tsDelta,
        key,
        value,
        headers,
      };
    }
  } catch (e) {
    if (e instanceof VarintError) throw new CorruptRecordError(`record ${i}: ${e.message}`, f.pos);
    throw e;
  }
  if (cur.pos !== end) {
    throw new CorruptRecordError(`${end - cur.pos} bytes left over after ${count} records`, f.pos);
  }
  // spelled out, not `{ ...h, compression, ... }`: on Node 20 a spread followed by more
  // properties, run per batch, left megabytes of these results alive through every young
  // collection (README.md, design notes)
  return {
    baseOffset: h.baseOffset,
    batchLength: h.batchLength,
    partitionLeaderEpoch: h.partitionLeaderEpoch,
    magic: h.magic,
    crc: h.crc,
    attributes: h.attributes,
    lastOffsetDelta: h.lastOffsetDelta,
    baseTimestamp: h.baseTimestamp,
    maxTimestamp: h.maxTimestamp,
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    recordsCount: h.recordsCount,
    compression: f.codec,
    timestampType: logAppend ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME,
    transactional: (h.attributes & TRANSACTIONAL_FLAG_MASK) !== 0,
    control: (h.attributes & CONTROL_FLAG_MASK) !== 0,
    records,
  };
}

function readBytes(data: Buffer, cur: ReadCursor, f: Framed, i: number, what: string): Buffer | null {
  const n = readVarint(data, cur);
  if (n === -1) return null;
  if (n < -1 || cur.pos + n > cur.end) {
    throw new CorruptRecordError(`record ${i}: invalid ${what} length ${n}`, f.pos);
  }
  const v = data.subarray(cur.pos, cur.pos + n);
  cur.pos += n;
  return v;
}

function decompressed(f: Framed, result: Uint8Array): DecodedRecordBatch {
  const data = asBuffer(result);
  return decodeRecords(f, data, 0, data.length);
}

function wrapDecompressError(f: Framed, e: unknown): never {
  if (e instanceof UnsupportedCompressionError || e instanceof DecompressedSizeError) throw e;
  throw new CorruptRecordError(`${compressionName(f.codec)} decompression failed: ${(e as Error).message}`, f.pos);
}

/**
 * Decodes the batch at `pos` (default 0): validates header and CRC (unless `options.checkCrc` is
 * false), decompresses synchronously, decodes every record. Throws CorruptRecordError,
 * UnsupportedCompressionError, or DecompressedSizeError (past `options.maxDecompressedBytes`).
 */
export function decodeRecordBatch(buf: Uint8Array, pos = 0, options?: DecodeOptions): DecodedRecordBatch {
  const f = frame(buf, pos, options);
  const start = pos + RECORD_BATCH_OVERHEAD;
  const end = pos + f.size;
  if (f.codec === CompressionType.NONE) return decodeRecords(f, f.b, start, end);
  let out: Uint8Array;
  try {
    out = decompress(f.codec, f.b.subarray(start, end), options?.maxDecompressedBytes);
  } catch (e) {
    wrapDecompressError(f, e);
  }
  return decompressed(f, out);
}

/** As decodeRecordBatch, decompressing off the event loop. */
export async function decodeRecordBatchAsync(buf: Uint8Array, pos = 0, options?: DecodeOptions): Promise<DecodedRecordBatch> {
  const f = frame(buf, pos, options);
  const start = pos + RECORD_BATCH_OVERHEAD;
  const end = pos + f.size;
  if (f.codec === CompressionType.NONE) return decodeRecords(f, f.b, start, end);
  let out: Uint8Array;
  try {
    out = await decompressAsync(f.codec, f.b.subarray(start, end), options?.maxDecompressedBytes);
  } catch (e) {
    wrapDecompressError(f, e);
  }
  return decompressed(f, out);
}

/** Positions of the complete batches in buf[start, end); throws if framing stops at corruption. */
function framesOf(buf: Uint8Array, start: number, end: number): number[] {
  const positions: number[] = [];
  const it = iterateBatches(buf, start, end);
  let r = it.next();
  while (!r.done) {
    positions.push(r.value.pos);
    r = it.next();
  }
  const stop = r.value;
  const limit = Math.min(end, buf.length);
  if (stop < limit) {
    const why = validateBatch(buf, stop, limit - stop);
    if (why && !why.torn) throw new CorruptRecordError(why.reason, stop);
  }
  return positions;
}

/**
 * The complete batches in buf[start, end) without decoding them (a consumer buffers these and
 * decodes each when the application reaches it), skipping a partial trailing batch. Throws
 * CorruptRecordError when the framing itself is damaged; the CRC and records are checked by
 * decodeRecordBatch.
 */
export function recordBatchFrames(buf: Uint8Array, start = 0, end: number = buf.length): BatchFrame[] {
  return framesOf(buf, start, end).map((pos) => ({ pos, size: batchSizeAt(buf, pos) }));
}

/**
 * Decodes every complete batch in buf[start, end) (e.g. a fetch response's records), skipping a
 * partial trailing batch as Kafka consumers do. Throws on a corrupt batch.
 */
export function decodeRecordBatches(buf: Uint8Array, start = 0, end: number = buf.length): DecodedRecordBatch[] {
  return framesOf(buf, start, end).map((pos) => decodeRecordBatch(buf, pos));
}

/** As decodeRecordBatches, decompressing off the event loop (batches decoded in order). */
export async function decodeRecordBatchesAsync(buf: Uint8Array, start = 0, end: number = buf.length): Promise<DecodedRecordBatch[]> {
  const out: DecodedRecordBatch[] = [];
  for (const pos of framesOf(buf, start, end)) out.push(await decodeRecordBatchAsync(buf, pos));
  return out;
}
