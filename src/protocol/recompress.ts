/**
 * A topic's compression.type applied to produced batches, as Kafka's leader applies it: with
 * 'producer' (the default) batches are stored as sent; with 'uncompressed', gzip, snappy, lz4 or
 * zstd, a batch in any other codec is decoded and written again in the topic's.
 * The new batch keeps what the producer set: producer id, epoch and base sequence (so idempotence
 * still holds), the transactional and control flags, the timestamp type, each record's key,
 * value, headers, timestamp and offset delta. Batches already in the topic's codec are not
 * touched, whatever level they were compressed at (KIP-390: the topic's compression.<codec>.level
 * applies to the batches the leader compresses, as Kafka's leader does not recompress for a level),
 * and the input is returned as it is when no batch needs a change.
 */
import { attributesOf, COMPRESSION_CODEC_MASK, DELETE_HORIZON_FLAG_MASK, iterateBatches, validateBatch } from './batch-header.js';
import { CompressionType, compressionId } from './compression.js';
import { BROKER_MAX_DECOMPRESSED_BYTES } from './decompressed-size.js';
import { decodeRecordBatch, encodeRecordBatch, type DecodedRecordBatch } from './record-batch.js';

/** The values of compression.type, for a topic and as a broker's default for its topics (Kafka's). */
export const COMPRESSION_TYPES: readonly string[] = Object.freeze(['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer']);

/**
 * The codec id a topic's compression.type asks for, or -1 for 'producer' (keep the producer's).
 * Absent means 'producer'. Throws UnsupportedCompressionError for a name no codec has.
 */
export function topicCodec(compressionType: unknown): number {
  if (compressionType === undefined || compressionType === null) return -1;
  const name = String(compressionType).trim().toLowerCase();
  if (name === 'producer') return -1;
  if (name === 'uncompressed') return CompressionType.NONE;
  return compressionId(name);
}

/** validateBatch has just checked the CRC; the records may decompress to the broker's bound. */
const DECODE = { checkCrc: false, maxDecompressedBytes: BROKER_MAX_DECOMPRESSED_BYTES } as const;

function rewrite(b: DecodedRecordBatch, codec: number, level: number | undefined): Buffer {
  return encodeRecordBatch({
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    compression: codec,
    ...(level !== undefined ? { compressionLevel: level } : {}),
    timestampType: b.timestampType,
    transactional: b.transactional,
    control: b.control,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    // a delete horizon (KIP-534) stays one: it is kept in the base timestamp's field
    ...((b.attributes & DELETE_HORIZON_FLAG_MASK) !== 0 ? { deleteHorizonMs: b.baseTimestamp } : { baseTimestamp: b.baseTimestamp }),
    maxTimestamp: b.maxTimestamp,
    lastOffsetDelta: b.lastOffsetDelta,
    records: b.records.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp, offsetDelta: r.offset - b.baseOffset })),
  });
}

/** The batches of one buffer in `codec`: the buffer itself when all of them already are. */
function recompressBuffer(buf: Buffer, codec: number, level: number | undefined): Buffer {
  const parts: Buffer[] = [];
  let copiedTo = 0;
  const it = iterateBatches(buf);
  for (let r = it.next(); !r.done; r = it.next()) {
    const { pos, size } = r.value;
    if ((attributesOf(buf, pos) & COMPRESSION_CODEC_MASK) === codec) continue;
    // a damaged batch is left for the log's own checks to refuse, with their reasons
    if (validateBatch(buf, pos, size) !== null) continue;
    if (pos > copiedTo) parts.push(buf.subarray(copiedTo, pos));
    parts.push(rewrite(decodeRecordBatch(buf, pos, DECODE), codec, level));
    copiedTo = pos + size;
  }
  if (parts.length === 0) return buf;
  if (copiedTo < buf.length) parts.push(buf.subarray(copiedTo));
  return Buffer.concat(parts);
}

/**
 * `records` with every batch in `codec` (see topicCodec; -1 returns them as they are). Throws
 * CorruptRecordError when a batch's records cannot be read, UnsupportedCompressionError when a
 * batch's codec, or `codec`, is not available in this build, and DecompressedSizeError when a
 * batch decompresses past BROKER_MAX_DECOMPRESSED_BYTES. `level` is the codec's compression
 * level (none: its default).
 */
export function recompressBatches(records: Buffer | readonly Buffer[], codec: number, level?: number): Buffer | readonly Buffer[] {
  if (codec < 0) return records;
  if (records instanceof Uint8Array) return recompressBuffer(records, codec, level);
  let out: Buffer[] | null = null;
  for (let i = 0; i < records.length; i++) {
    const b = recompressBuffer(records[i]!, codec, level);
    if (b !== records[i] && out === null) out = records.slice(0, i);
    if (out !== null) out.push(b);
  }
  return out ?? records;
}

