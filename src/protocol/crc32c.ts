/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of Kafka RecordBatch v2.
 * Slicing-by-16: sixteen 256-entry tables built once at module load, consuming 16 input bytes
 * per step; bytewise for the head/tail remainder. On little-endian hosts, ranges of 256 bytes or
 * more are read as aligned 32-bit words through an Int32Array view (about 15% faster than byte
 * loads). Result is an unsigned 32-bit number.
 */

import { createRequire } from 'node:module';

const POLY = 0x82f63b78;

/**
 * A hardware CRC-32C (SSE4.2 / ARMv8 CRC instructions) from @node-rs/crc32, a prebuilt
 * native addon, when it loads on this platform; the JavaScript tables below otherwise. The
 * native call costs more than it saves on small ranges, so it serves ranges of NATIVE_MIN+.
 */
type NativeCrc = (input: Uint8Array, initialState?: number) => number;
const NATIVE_MIN = 1024;
const native: NativeCrc | null = loadNative();

function loadNative(): NativeCrc | null {
  if (process.env.SAMSA_CRC32C === 'js') return null;
  try {
    const mod = createRequire(import.meta.url)('@node-rs/crc32') as { crc32c?: NativeCrc };
    const f = mod.crc32c;
    // self-check against the published check value before trusting it
    return typeof f === 'function' && f(Buffer.from('123456789')) === 0xe3069283 ? f : null;
  } catch {
    return null;
  }
}

/** Which implementation serves large ranges: 'native' or 'js'. */
export const crc32cImplementation: 'native' | 'js' = native ? 'native' : 'js';
const SLICES = 16;
/** Below this many bytes the word path's view allocation costs more than it saves. */
const WORD_PATH_MIN = 256;
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** TABLES[k * 256 + b] = CRC contribution of byte b followed by k zero bytes. */
const TABLES = buildTables();

function buildTables(): Int32Array {
  const t = new Int32Array(SLICES * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < SLICES; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

/**
 * CRC-32C of `buf[start, end)`, as an unsigned 32-bit integer. Throws RangeError for a range
 * outside the buffer or with start > end.
 */
export function crc32c(buf: Uint8Array, start = 0, end: number = buf.length): number {
  return crc32cUpdate(0, buf, start, end);
}

/**
 * Continues a CRC-32C: `crc32cUpdate(crc32c(a), b)` equals the CRC of a followed by b.
 * `crc` is a previous result (0 to start).
 */
export function crc32cUpdate(crc: number, buf: Uint8Array, start = 0, end: number = buf.length): number {
  if (!(start >= 0 && end <= buf.length && start <= end) || start !== (start | 0) || end !== (end | 0)) {
    throw new RangeError(`crc32c: range [${start}, ${end}) is outside a buffer of ${buf.length} bytes`);
  }
  if (native !== null && end - start >= NATIVE_MIN) {
    const view = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
    return native(view, crc >>> 0) >>> 0;
  }
  const t = TABLES;
  let c = ~crc;
  let i = start;
  if (LITTLE_ENDIAN && end - start >= WORD_PATH_MIN) {
    // Bytewise up to a 4-byte-aligned address, then 16-byte blocks as four int32 words.
    while (((buf.byteOffset + i) & 3) !== 0) {
      c = t[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
      i++;
    }
    const words = ((end - i) >>> 4) << 2;
    const w = new Int32Array(buf.buffer, buf.byteOffset + i, words);
    for (let j = 0; j < words; j += 4) {
      const a = c ^ w[j]!;
      const b = w[j + 1]!;
      const d = w[j + 2]!;
      const e = w[j + 3]!;
      c =
        t[3840 + (a & 0xff)]! ^
        t[3584 + ((a >>> 8) & 0xff)]! ^
        t[3328 + ((a >>> 16) & 0xff)]! ^
        t[3072 + (a >>> 24)]! ^
        t[2816 + (b & 0xff)]! ^
        t[2560 + ((b >>> 8) & 0xff)]! ^
        t[2304 + ((b >>> 16) & 0xff)]! ^
        t[2048 + (b >>> 24)]! ^
        t[1792 + (d & 0xff)]! ^
        t[1536 + ((d >>> 8) & 0xff)]! ^
        t[1280 + ((d >>> 16) & 0xff)]! ^
        t[1024 + (d >>> 24)]! ^
        t[768 + (e & 0xff)]! ^
        t[512 + ((e >>> 8) & 0xff)]! ^
        t[256 + ((e >>> 16) & 0xff)]! ^
        t[e >>> 24]!;
    }
    i += words << 2;
  }
  const fastEnd = end - ((end - i) % SLICES);
  while (i < fastEnd) {
    const a = c ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    c =
      t[3840 + (a & 0xff)]! ^
      t[3584 + ((a >>> 8) & 0xff)]! ^
      t[3328 + ((a >>> 16) & 0xff)]! ^
      t[3072 + (a >>> 24)]! ^
      t[2816 + buf[i + 4]!]! ^
      t[2560 + buf[i + 5]!]! ^
      t[2304 + buf[i + 6]!]! ^
      t[2048 + buf[i + 7]!]! ^
      t[1792 + buf[i + 8]!]! ^
      t[1536 + buf[i + 9]!]! ^
      t[1280 + buf[i + 10]!]! ^
      t[1024 + buf[i + 11]!]! ^
      t[768 + buf[i + 12]!]! ^
      t[512 + buf[i + 13]!]! ^
      t[256 + buf[i + 14]!]! ^
      t[buf[i + 15]!]!;
    i += SLICES;
  }
  while (i < end) {
    c = t[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
    i++;
  }
  return ~c >>> 0;
}
