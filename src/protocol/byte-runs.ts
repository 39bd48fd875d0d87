/**
 * Byte-level pieces the LZ-family codecs (lz4.ts, snappy.ts, zstd.ts, zstd-compress.ts) and
 * xxhash32.ts share: the highest set bit, little-endian 32-bit reads, short copies, the extent of a match, and walking concatenated
 * frames with the skippable frames LZ4 and Zstandard streams both allow (magic
 * 0x184D2A50-0x184D2A5F, a size, that many bytes).
 */

/** The index of the highest set bit of `v` (> 0). */
export function highBit(v: number): number {
  return 31 - Math.clz32(v);
}

/** The 4 bytes at `i` as a little-endian int32 (signed: for comparing and hashing). */
export function read32le(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
}

/** The 4 bytes at `i` as a little-endian uint32. */
export function u32le(b: Uint8Array, i: number): number {
  return read32le(b, i) >>> 0;
}

/** Copies `len` bytes; a loop for short runs (a subarray and set cost more than the bytes). */
export function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, from: number, len: number): void {
  if (len < 48) {
    for (let i = 0; i < len; i++) dst[at + i] = src[from + i]!;
  } else {
    dst.set(src.subarray(from, from + len), at);
  }
}

/**
 * How many bytes before `ip` also match the bytes before `ref`, going back no further than
 * `floor` on the input side (the pending literals) nor `refFloor` on the reference side.
 */
export function matchBefore(src: Uint8Array, ip: number, ref: number, floor: number, refFloor: number): number {
  let k = 0;
  while (ip - k > floor && ref - k > refFloor && src[ip - k - 1] === src[ref - k - 1]) k++;
  return k;
}

/** The end of the match of `src` at `ip` with `src` at `ref`, from `ip` + `known` up to `limit`. */
export function matchEnd(src: Uint8Array, ip: number, ref: number, known: number, limit: number): number {
  let end = ip + known;
  let r = ref + known;
  while (end < limit && src[end] === src[r]) {
    end++;
    r++;
  }
  return end;
}

const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

/**
 * Walks the frames of one format laid one after another in `src`: a skippable frame is passed
 * over, any other must open with `magic` and is handed to `decode`, which returns the first byte
 * after it. Problems are thrown as `fail(what, at)`.
 */
export function walkFrames(src: Uint8Array, magic: number, fail: (what: string, at: number) => Error, decode: (at: number) => number): void {
  if (src.length === 0) throw fail('no frame', 0);
  let p = 0;
  while (p < src.length) {
    if (p + 4 > src.length) throw fail('truncated frame magic', p);
    const m = u32le(src, p);
    if ((m & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (p + 8 > src.length) throw fail('truncated skippable frame', p);
      const end = p + 8 + u32le(src, p + 4);
      if (end > src.length) throw fail('skippable frame runs past the input', p);
      p = end;
      continue;
    }
    if (m !== magic) throw fail(`bad frame magic 0x${m.toString(16)}`, p);
    p = decode(p);
  }
}
