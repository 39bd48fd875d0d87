/**
 * LZ4 for RecordBatch compression (codec 3), as Kafka frames it: the LZ4 frame format (magic
 * 0x184D2204, a frame descriptor with its xxHash32 check byte, size-prefixed blocks, an end mark).
 *
 * Compressing writes what Kafka's own clients write: version 1, independent blocks of at most
 * 64 KiB, no block or content checksums, no content size; a block that does not shrink is stored
 * as it is (the size's high bit). Decompressing takes any frame of the format: 64 KiB to 4 MiB
 * blocks, dependent or independent, block and content checksums (verified), a content size
 * (checked), and frames one after another. Bad input throws an Error that says what is wrong and
 * where; nothing is read or written outside the buffers given.
 *
 * Levels, as Kafka's compression.lz4.level (KIP-390, 1-17): at the default, 9, the block coder is
 * the greedy single-probe matcher of LZ4's fast mode, as Kafka's clients use lz4-java's fast
 * compressor there; any other level searches a hash chain of earlier positions for the longest
 * match, as LZ4's high-compression mode does, trying more candidates the higher the level (4 at
 * 1-3, doubling with each level to 4,096 from 13): a smaller output for more time.
 */
import { copyBytes, matchBefore, matchEnd, read32le as read32, u32le as u32At, walkFrames } from './byte-runs.js';
import { DecompressedSizeError } from './decompressed-size.js';
import { xxhash32 } from './xxhash32.js';

const MAGIC = 0x184d2204;
const MIN_MATCH = 4;
/** The last match must start this far from the end of the block, and the last 5 bytes are literals. */
const MF_LIMIT = 12;
const LAST_LITERALS = 5;
const MAX_OFFSET = 65_535;
const HASH_LOG = 12;
const BLOCK_64K = 4;
/** Kafka's range and default of compression.lz4.level. */
export const LZ4_MIN_LEVEL = 1;
export const LZ4_MAX_LEVEL = 17;
export const LZ4_DEFAULT_LEVEL = 9;
const INCOMPRESSIBLE = 0x80000000;

/** What the encoder writes: FLG version 01, independent blocks; BD 64 KiB. */
const FLG_KAFKA = 0x60;
const BD_64K = BLOCK_64K << 4;

/** Positions by hash of the 4 bytes there, one table reused by every call (all calls are synchronous). */
const table = new Int32Array(1 << HASH_LOG);

function hash4(v: number): number {
  return Math.imul(v, 0x9e3779b1) >>> (32 - HASH_LOG);
}

/** The most bytes the block coder can produce for `n` input bytes. */
export function lz4BlockBound(n: number): number {
  return n + Math.floor(n / 255) + 16;
}

function writeLength(out: Uint8Array, op: number, extra: number): number {
  while (extra >= 255) {
    out[op++] = 255;
    extra -= 255;
  }
  out[op++] = extra;
  return op;
}

/**
 * Compresses `src[start, end)` as one LZ4 block into `out` from `op` (it needs lz4BlockBound of
 * the length); returns the end of what was written.
 */
export function lz4CompressBlock(src: Uint8Array, start: number, end: number, out: Uint8Array, op: number): number {
  let anchor = start;
  const n = end - start;
  if (n >= MF_LIMIT + 1) {
    table.fill(-1);
    const mfLimit = end - MF_LIMIT;
    const matchLimit = end - LAST_LITERALS;
    let ip = start;
    let misses = 0;
    while (ip < mfLimit) {
      const seq = read32(src, ip);
      const h = hash4(seq);
      const ref = table[h]!;
      table[h] = ip;
      if (ref < start || ip - ref > MAX_OFFSET || read32(src, ref) !== seq) {
        // skip faster through data that does not match (LZ4's acceleration)
        ip += 1 + (misses++ >> 6);
        continue;
      }
      misses = 0;
      // extend backwards over literals that match too, then forwards
      const back = matchBefore(src, ip, ref, anchor, start);
      const mStart = ip - back;
      const rStart = ref - back;
      const mEnd = matchEnd(src, ip, ref, MIN_MATCH, matchLimit);
      op = writeSequence(out, op, src, anchor, mStart, mStart - rStart, mEnd);
      anchor = ip = mEnd;
      // index a position inside the match, so the next lookups find recent data
      if (ip - 2 > start && ip - 2 < mfLimit) table[hash4(read32(src, ip - 2))] = ip - 2;
    }
  }
  return writeLastLiterals(out, op, src, anchor, end);
}

/** One sequence: the literals src[anchor, mStart), then a match of src[mStart, mEnd) `offset` back. */
function writeSequence(out: Uint8Array, op: number, src: Uint8Array, anchor: number, mStart: number, offset: number, mEnd: number): number {
  const litLen = mStart - anchor;
  const matchLen = mEnd - mStart - MIN_MATCH;
  const tokenAt = op++;
  let token = 0;
  if (litLen >= 15) {
    token = 0xf0;
    op = writeLength(out, op, litLen - 15);
  } else {
    token = litLen << 4;
  }
  copyBytes(out, op, src, anchor, litLen);
  op += litLen;
  out[op++] = offset & 0xff;
  out[op++] = offset >>> 8;
  if (matchLen >= 15) {
    token |= 0x0f;
    op = writeLength(out, op, matchLen - 15);
  } else {
    token |= matchLen;
  }
  out[tokenAt] = token;
  return op;
}

/** The block's closing literals src[anchor, end). */
function writeLastLiterals(out: Uint8Array, op: number, src: Uint8Array, anchor: number, end: number): number {
  const litLen = end - anchor;
  if (litLen >= 15) {
    out[op++] = 0xf0;
    op = writeLength(out, op, litLen - 15);
  } else {
    out[op++] = litLen << 4;
  }
  out.set(src.subarray(anchor, end), op);
  return op + litLen;
}

const HC_HASH_LOG = 15;
/** The latest position of each hash (-1: none in this block yet). */
const hcHead = new Int32Array(1 << HC_HASH_LOG);
/** By position (mod 64 KiB): how far back the previous position of the same hash is (0: none). */
const hcChain = new Uint16Array(MAX_OFFSET + 1);

function hcHash(v: number): number {
  return Math.imul(v, 0x9e3779b1) >>> (32 - HC_HASH_LOG);
}

/** Candidates a level tries at each position: 4 at 1-3, doubling with each level, 4,096 from 13. */
export function lz4ChainAttempts(level: number): number {
  return 1 << Math.min(12, Math.max(2, level - 1));
}

/**
 * Compresses `src[start, end)` as one LZ4 block (as lz4CompressBlock) with the longest match
 * among up to `attempts` earlier positions of the same hash at each position.
 */
export function lz4CompressBlockChained(src: Uint8Array, start: number, end: number, out: Uint8Array, op: number, attempts: number): number {
  let anchor = start;
  if (end - start >= MF_LIMIT + 1) {
    hcHead.fill(-1);
    const mfLimit = end - MF_LIMIT;
    const matchLimit = end - LAST_LITERALS;
    /** Positions before this one are in the chains. */
    let indexed = start;
    let ip = start;
    while (ip < mfLimit) {
      for (; indexed < ip; indexed++) {
        const h = hcHash(read32(src, indexed));
        const prev = hcHead[h]!;
        hcChain[indexed & MAX_OFFSET] = prev < 0 || indexed - prev > MAX_OFFSET ? 0 : indexed - prev;
        hcHead[h] = indexed;
      }
      const seq = read32(src, ip);
      let ref = hcHead[hcHash(seq)]!;
      let bestEnd = 0;
      let bestRef = -1;
      for (let n = attempts; ref >= start && ip - ref <= MAX_OFFSET && n > 0; n--) {
        // a longer match must also differ from the best at its last byte
        if (read32(src, ref) === seq && (bestEnd === 0 || src[ref + (bestEnd - ip)] === src[bestEnd])) {
          const e = matchEnd(src, ip, ref, MIN_MATCH, matchLimit);
          if (e > bestEnd) {
            bestEnd = e;
            bestRef = ref;
            if (e === matchLimit) break;
          }
        }
        const d = hcChain[ref & MAX_OFFSET]!;
        if (d === 0) break;
        ref -= d;
      }
      if (bestRef < 0) {
        ip++;
        continue;
      }
      const back = matchBefore(src, ip, bestRef, anchor, start);
      op = writeSequence(out, op, src, anchor, ip - back, ip - bestRef, bestEnd);
      anchor = ip = bestEnd;
    }
  }
  return writeLastLiterals(out, op, src, anchor, end);
}

function corrupt(what: string, at: number): Error {
  return new Error(`lz4: ${what} (at byte ${at})`);
}

/**
 * Decodes one LZ4 block `src[start, end)` into `out` from `op`, writing at most up to `outEnd`.
 * Matches may reach back to `windowStart` (the block's own start for independent blocks).
 * Returns the end of what was written.
 */
export function lz4DecompressBlock(src: Uint8Array, start: number, end: number, out: Uint8Array, op: number, outEnd: number, windowStart = op): number {
  let ip = start;
  if (start === end) throw corrupt('empty block', start);
  for (;;) {
    if (ip >= end) throw corrupt('block ends with a match, not literals', ip);
    const token = src[ip++]!;
    let litLen = token >>> 4;
    if (litLen === 15) {
      let s: number;
      do {
        if (ip >= end) throw corrupt('literal length runs past the block', ip);
        s = src[ip++]!;
        litLen += s;
      } while (s === 255);
    }
    if (ip + litLen > end) throw corrupt(`${litLen} literals run past the block`, ip);
    if (op + litLen > outEnd) throw corrupt('output larger than the block maximum', ip);
    copyBytes(out, op, src, ip, litLen);
    ip += litLen;
    op += litLen;
    if (ip === end) return op; // the last sequence has no match
    if (ip + 2 > end) throw corrupt('match offset runs past the block', ip);
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (offset === 0 || op - offset < windowStart) throw corrupt(`match offset ${offset} points before the data`, ip - 2);
    let matchLen = token & 0x0f;
    if (matchLen === 15) {
      let s: number;
      do {
        if (ip >= end) throw corrupt('match length runs past the block', ip);
        s = src[ip++]!;
        matchLen += s;
      } while (s === 255);
    }
    matchLen += MIN_MATCH;
    if (op + matchLen > outEnd) throw corrupt('output larger than the block maximum', ip);
    let ref = op - offset;
    if (offset >= matchLen && matchLen >= 48) {
      out.copyWithin(op, ref, ref + matchLen);
      op += matchLen;
    } else {
      // short, or overlapping (repeating the last `offset` bytes): byte by byte
      const stop = op + matchLen;
      while (op < stop) out[op++] = out[ref++]!;
    }
  }
}

/**
 * Compresses `data` as one LZ4 frame, as Kafka's clients write it, at `level` (Kafka's
 * compression.lz4.level, LZ4_MIN_LEVEL to LZ4_MAX_LEVEL; others are a RangeError).
 */
export function lz4CompressFrame(data: Uint8Array, level = LZ4_DEFAULT_LEVEL): Uint8Array {
  if (!Number.isInteger(level) || level < LZ4_MIN_LEVEL || level > LZ4_MAX_LEVEL) throw new RangeError(`lz4 level must be an integer from ${LZ4_MIN_LEVEL} to ${LZ4_MAX_LEVEL}, got ${level}`);
  const attempts = level === LZ4_DEFAULT_LEVEL ? 0 : lz4ChainAttempts(level);
  const blockMax = 1 << (2 * BLOCK_64K + 8);
  const blocks = Math.max(1, Math.ceil(data.length / blockMax));
  const out = Buffer.allocUnsafe(7 + blocks * (4 + lz4BlockBound(blockMax)) + 4);
  out.writeUInt32LE(MAGIC, 0);
  out[4] = FLG_KAFKA;
  out[5] = BD_64K;
  out[6] = (xxhash32(out, 0, 4, 6) >>> 8) & 0xff;
  let op = 7;
  for (let at = 0; at < data.length; at += blockMax) {
    const stop = Math.min(data.length, at + blockMax);
    const size = (attempts === 0 ? lz4CompressBlock(data, at, stop, out, op + 4) : lz4CompressBlockChained(data, at, stop, out, op + 4, attempts)) - (op + 4);
    if (size >= stop - at) {
      out.writeUInt32LE(((stop - at) | INCOMPRESSIBLE) >>> 0, op);
      out.set(data.subarray(at, stop), op + 4);
      op += 4 + (stop - at);
    } else {
      out.writeUInt32LE(size, op);
      op += 4 + size;
    }
  }
  out.writeUInt32LE(0, op);
  return out.subarray(0, op + 4);
}

/**
 * Decompresses LZ4 frames (one or more, skippable frames passed over) back into the bytes they
 * hold; more than `maxOutput` bytes of output throw DecompressedSizeError.
 */
export function lz4DecompressFrame(src: Uint8Array, maxOutput = Infinity): Uint8Array {
  let out = Buffer.allocUnsafe(Math.max(64, Math.min(src.length * 4, maxOutput)));
  let op = 0;
  const ensure = (more: number) => {
    if (op + more <= out.length) return;
    if (op > maxOutput) throw new DecompressedSizeError('lz4', maxOutput);
    const grown = Buffer.allocUnsafe(Math.max(op + more, out.length * 2));
    grown.set(out.subarray(0, op));
    out = grown;
  };
  walkFrames(src, MAGIC, corrupt, (at) => {
    const descStart = at + 4;
    if (descStart + 3 > src.length) throw corrupt('truncated frame descriptor', descStart);
    const flg = src[descStart]!;
    const bd = src[descStart + 1]!;
    if (flg >>> 6 !== 1) throw corrupt(`frame version ${flg >>> 6} is not 1`, descStart);
    if ((flg & 0x02) !== 0) throw corrupt('dictionary ids are not supported', descStart);
    if ((flg & 0x01) !== 0 || (bd & 0x8f) !== 0) throw corrupt('reserved frame descriptor bits set', descStart);
    const blockCode = (bd >>> 4) & 7;
    if (blockCode < 4) throw corrupt(`block maximum size code ${blockCode} is not 4-7`, descStart + 1);
    const blockMax = 1 << (2 * blockCode + 8);
    const independent = (flg & 0x20) !== 0;
    const blockChecksum = (flg & 0x10) !== 0;
    const hasContentSize = (flg & 0x08) !== 0;
    const contentChecksum = (flg & 0x04) !== 0;
    let p = descStart + 2;
    let contentSize = -1;
    if (hasContentSize) {
      if (p + 8 > src.length) throw corrupt('truncated content size', p);
      contentSize = u32At(src, p) + u32At(src, p + 4) * 2 ** 32;
      p += 8;
    }
    if (p >= src.length) throw corrupt('truncated frame descriptor', p);
    const hc = (xxhash32(src, 0, descStart, p) >>> 8) & 0xff;
    if (src[p] !== hc) throw corrupt(`frame descriptor checksum 0x${src[p]!.toString(16)} is not 0x${hc.toString(16)}`, p);
    let ip = p + 1;
    const frameStart = op;
    for (;;) {
      if (ip + 4 > src.length) throw corrupt('truncated block size', ip);
      const word = u32At(src, ip);
      ip += 4;
      if (word === 0) break;
      const size = word & 0x7fffffff;
      const stored = (word & INCOMPRESSIBLE) !== 0;
      if (size > blockMax) throw corrupt(`block of ${size} bytes is larger than the frame's ${blockMax}`, ip - 4);
      if (ip + size + (blockChecksum ? 4 : 0) > src.length) throw corrupt('block runs past the input', ip - 4);
      if (blockChecksum && u32At(src, ip + size) !== xxhash32(src, 0, ip, ip + size)) throw corrupt('block checksum mismatch', ip + size);
      ensure(blockMax);
      if (stored) {
        out.set(src.subarray(ip, ip + size), op);
        op += size;
      } else {
        op = lz4DecompressBlock(src, ip, ip + size, out, op, op + blockMax, independent ? op : frameStart);
      }
      ip += size + (blockChecksum ? 4 : 0);
    }
    if (op > maxOutput) throw new DecompressedSizeError('lz4', maxOutput);
    if (contentSize >= 0 && op - frameStart !== contentSize) throw corrupt(`frame holds ${op - frameStart} bytes, its header says ${contentSize}`, ip);
    if (contentChecksum) {
      if (ip + 4 > src.length) throw corrupt('truncated content checksum', ip);
      if (u32At(src, ip) !== xxhash32(out, 0, frameStart, op)) throw corrupt('content checksum mismatch', ip);
      ip += 4;
    }
    return ip;
  });
  return out.subarray(0, op);
}
