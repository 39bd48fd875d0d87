/**
 * Snappy for RecordBatch compression (codec 2), as Kafka's clients write it: the framing of
 * snappy-java's SnappyOutputStream (an 8-byte magic, two big-endian int32 versions, then chunks
 * of a big-endian int32 length and a raw Snappy block of at most 32 KiB of input). Decompressing
 * also takes a bare raw Snappy block, which is what librdkafka's producers send and what Kafka's
 * own reader falls back to when the magic is absent.
 *
 * The raw block coder is Snappy's format (a varint of the uncompressed length, then literals and
 * copies with 1-, 2- or 4-byte offsets); the encoder is a greedy hash-table matcher over 64 KiB
 * fragments. Bad input throws an Error that says what is wrong and where; nothing is read or
 * written outside the buffers given.
 */
import { copyBytes, matchEnd, read32le as read32 } from './byte-runs.js';
import { DecompressedSizeError } from './decompressed-size.js';

/** snappy-java's stream magic: 0x82 'SNAPPY' 0x00. */
const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00] as const;
const XERIAL_HEADER = 16;
/** snappy-java's default block size: the input bytes of each framed chunk. */
const XERIAL_CHUNK = 32 * 1024;
const FRAGMENT = 65_536;
const HASH_LOG = 14;
const MIN_MATCH = 4;
/** Matches stop this far from the end of a fragment, so a 4-byte read never passes it. */
const INPUT_MARGIN = 15;

const table = new Int32Array(1 << HASH_LOG);

function hash4(v: number): number {
  return Math.imul(v, 0x1e35a7bd) >>> (32 - HASH_LOG);
}

/** The most bytes snappyCompressRaw can produce for `n` input bytes. */
export function snappyMaxCompressedLength(n: number): number {
  return 32 + n + Math.floor(n / 6);
}

function emitLiteral(out: Uint8Array, op: number, src: Uint8Array, from: number, len: number): number {
  const n = len - 1;
  if (n < 60) {
    out[op++] = n << 2;
  } else if (n < 0x100) {
    out[op++] = 60 << 2;
    out[op++] = n;
  } else if (n < 0x10000) {
    out[op++] = 61 << 2;
    out[op++] = n & 0xff;
    out[op++] = n >>> 8;
  } else if (n < 0x1000000) {
    out[op++] = 62 << 2;
    out[op++] = n & 0xff;
    out[op++] = (n >>> 8) & 0xff;
    out[op++] = n >>> 16;
  } else {
    out[op++] = 63 << 2;
    out[op++] = n & 0xff;
    out[op++] = (n >>> 8) & 0xff;
    out[op++] = (n >>> 16) & 0xff;
    out[op++] = n >>> 24;
  }
  copyBytes(out, op, src, from, len);
  return op + len;
}

function emitCopy(out: Uint8Array, op: number, offset: number, len: number): number {
  // copies of up to 64 bytes; a 2-byte-offset copy holds 1-64, a 1-byte-offset one 4-11
  while (len >= 68) {
    out[op++] = (63 << 2) | 2;
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
    len -= 64;
  }
  if (len > 64) {
    out[op++] = (59 << 2) | 2;
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
    len -= 60;
  }
  if (len < 12 && offset < 2048) {
    out[op++] = ((offset >>> 8) << 5) | ((len - 4) << 2) | 1;
    out[op++] = offset & 0xff;
  } else {
    out[op++] = ((len - 1) << 2) | 2;
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
  }
  return op;
}

function compressFragment(src: Uint8Array, start: number, end: number, out: Uint8Array, op: number): number {
  let anchor = start;
  if (end - start >= INPUT_MARGIN + MIN_MATCH) {
    table.fill(-1);
    const limit = end - INPUT_MARGIN;
    let ip = start + 1;
    let misses = 0;
    while (ip < limit) {
      const seq = read32(src, ip);
      const h = hash4(seq);
      const ref = table[h]!;
      table[h] = ip;
      if (ref < start || read32(src, ref) !== seq) {
        ip += 1 + (misses++ >> 5);
        continue;
      }
      misses = 0;
      const mEnd = matchEnd(src, ip, ref, MIN_MATCH, end);
      if (ip > anchor) op = emitLiteral(out, op, src, anchor, ip - anchor);
      op = emitCopy(out, op, ip - ref, mEnd - ip);
      anchor = ip = mEnd;
      if (ip - 1 < limit) table[hash4(read32(src, ip - 1))] = ip - 1;
    }
  }
  if (anchor < end) op = emitLiteral(out, op, src, anchor, end - anchor);
  return op;
}

/** Compresses `src[start, end)` as one raw Snappy block into `out` from `op`; returns the end written. */
export function snappyCompressRawInto(src: Uint8Array, start: number, end: number, out: Uint8Array, op: number): number {
  let n = end - start;
  while (n >= 0x80) {
    out[op++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[op++] = n;
  for (let at = start; at < end; at += FRAGMENT) op = compressFragment(src, at, Math.min(end, at + FRAGMENT), out, op);
  return op;
}

/** One raw Snappy block of `data` (no framing). */
export function snappyCompressRaw(data: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(snappyMaxCompressedLength(data.length));
  return out.subarray(0, snappyCompressRawInto(data, 0, data.length, out, 0));
}

function corrupt(what: string, at: number): Error {
  return new Error(`snappy: ${what} (at byte ${at})`);
}

/** The uncompressed length a raw block at `src[start, end)` declares, and where its elements begin. */
function rawLength(src: Uint8Array, start: number, end: number): { length: number; at: number } {
  let length = 0;
  let shift = 0;
  let ip = start;
  for (;;) {
    if (ip >= end) throw corrupt('truncated length', ip);
    const b = src[ip++]!;
    length += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
    if (shift > 28) throw corrupt('length varint longer than 5 bytes', start);
  }
  if (length > 0xffffffff) throw corrupt(`length ${length} is larger than 2^32 - 1`, start);
  return { length, at: ip };
}

/** Decodes the raw block `src[start, end)` into `out` from `op`, exactly `length` bytes. */
function decompressRawInto(src: Uint8Array, ip: number, end: number, out: Uint8Array, op: number, length: number): number {
  const begin = op;
  const outEnd = op + length;
  while (ip < end) {
    const tag = src[ip++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const bytes = len - 59;
        if (ip + bytes > end) throw corrupt('truncated literal length', ip);
        len = 0;
        for (let i = 0; i < bytes; i++) len += src[ip + i]! * 2 ** (8 * i);
        ip += bytes;
      }
      len += 1;
      if (ip + len > end) throw corrupt(`literal of ${len} bytes runs past the input`, ip);
      if (op + len > outEnd) throw corrupt('output longer than the declared length', ip);
      copyBytes(out, op, src, ip, len);
      ip += len;
      op += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      if (ip >= end) throw corrupt('truncated copy', ip);
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | src[ip++]!;
    } else if (kind === 2) {
      if (ip + 2 > end) throw corrupt('truncated copy', ip);
      len = (tag >>> 2) + 1;
      offset = src[ip]! | (src[ip + 1]! << 8);
      ip += 2;
    } else {
      if (ip + 4 > end) throw corrupt('truncated copy', ip);
      len = (tag >>> 2) + 1;
      offset = read32(src, ip) >>> 0;
      ip += 4;
    }
    if (offset === 0 || offset > op - begin) throw corrupt(`copy offset ${offset} points before the data`, ip);
    if (op + len > outEnd) throw corrupt('output longer than the declared length', ip);
    let ref = op - offset;
    if (offset >= len) {
      copyBytes(out, op, out, ref, len);
      op += len;
    } else {
      const stop = op + len;
      while (op < stop) out[op++] = out[ref++]!;
    }
  }
  if (op !== outEnd) throw corrupt(`block holds ${op - begin} bytes, its header says ${length}`, end);
  return op;
}

/** Decompresses one raw Snappy block (DecompressedSizeError past `maxOutput` bytes). */
export function snappyDecompressRaw(src: Uint8Array, start = 0, end = src.length, maxOutput = Infinity): Uint8Array {
  const { length, at } = rawLength(src, start, end);
  // a literal byte costs at least one input byte, a copy at most 64 for 2 input bytes
  if (length > (end - at) * 32 + 64) throw corrupt(`declared length ${length} is more than ${end - at} bytes can hold`, start);
  if (length > maxOutput) throw new DecompressedSizeError('snappy', maxOutput);
  const out = Buffer.allocUnsafe(length);
  decompressRawInto(src, at, end, out, 0, length);
  return out;
}

function hasXerialMagic(src: Uint8Array): boolean {
  if (src.length < XERIAL_MAGIC.length) return false;
  for (let i = 0; i < XERIAL_MAGIC.length; i++) if (src[i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

function readI32BE(b: Uint8Array, i: number): number {
  return (b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!;
}

function writeI32BE(b: Uint8Array, i: number, v: number): void {
  b[i] = v >>> 24;
  b[i + 1] = (v >>> 16) & 0xff;
  b[i + 2] = (v >>> 8) & 0xff;
  b[i + 3] = v & 0xff;
}

/** Compresses `data` in snappy-java's framing, as Kafka's Java producer does. */
export function snappyCompressFramed(data: Uint8Array): Uint8Array {
  const chunks = Math.ceil(data.length / XERIAL_CHUNK);
  const out = Buffer.allocUnsafe(XERIAL_HEADER + chunks * (4 + snappyMaxCompressedLength(XERIAL_CHUNK)));
  out.set(XERIAL_MAGIC, 0);
  writeI32BE(out, 8, 1);
  writeI32BE(out, 12, 1);
  let op = XERIAL_HEADER;
  for (let at = 0; at < data.length; at += XERIAL_CHUNK) {
    const stop = snappyCompressRawInto(data, at, Math.min(data.length, at + XERIAL_CHUNK), out, op + 4);
    writeI32BE(out, op, stop - op - 4);
    op = stop;
  }
  return out.subarray(0, op);
}

/**
 * Decompresses snappy-java framed data, or a bare raw Snappy block when the magic is absent; a
 * declared total above `maxOutput` bytes throws DecompressedSizeError before anything is allocated.
 */
export function snappyDecompress(src: Uint8Array, maxOutput = Infinity): Uint8Array {
  if (!hasXerialMagic(src)) return snappyDecompressRaw(src, 0, src.length, maxOutput);
  if (src.length < XERIAL_HEADER) throw corrupt('truncated stream header', 0);
  const blocks: { at: number; end: number; length: number }[] = [];
  let total = 0;
  let ip = XERIAL_HEADER;
  while (ip < src.length) {
    if (ip + 4 > src.length) throw corrupt('truncated chunk length', ip);
    const size = readI32BE(src, ip);
    if (size < 0 || ip + 4 + size > src.length) throw corrupt(`chunk of ${size} bytes runs past the input`, ip);
    const { length, at } = rawLength(src, ip + 4, ip + 4 + size);
    if (length > (ip + 4 + size - at) * 32 + 64) throw corrupt(`declared length ${length} is more than the chunk can hold`, ip);
    blocks.push({ at, end: ip + 4 + size, length });
    total += length;
    if (total > maxOutput) throw new DecompressedSizeError('snappy', maxOutput);
    ip += 4 + size;
  }
  const out = Buffer.allocUnsafe(total);
  let op = 0;
  for (const b of blocks) op = decompressRawInto(src, b.at, b.end, out, op, b.length);
  return out;
}
