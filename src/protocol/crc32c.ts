/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of Kafka RecordBatch v2,
 * which producers compute and brokers, followers and consumers verify for every batch.
 *
 * Three implementations, the fastest that loads serving ranges long enough to repay a native
 * call (`crc32cImplementation` says which):
 * - 'hardware': samsa's own addon (src/native, built at install by scripts/build-native.mjs),
 *   the CPU's CRC-32C instruction (x86-64 SSE4.2, AArch64 CRC32) over three interleaved
 *   streams (~21 GiB/s on a 16 KiB batch here), or, on x86-64 CPUs with AVX-512 and
 *   VPCLMULQDQ, carry-less multiplies folding 256 bytes a step (~45 GiB/s);
 * - 'node-rs': @node-rs/crc32, a prebuilt addon for many platforms (~4 GB/s);
 * - 'js': slicing-by-16 tables (~1 GB/s), which also serves short ranges whatever loaded.
 * SAMSA_CRC32C=js or =node-rs in the environment rules out the faster ones (tests, comparisons).
 *
 * The JavaScript path: sixteen 256-entry tables built once at module load, consuming 16 input
 * bytes per step; bytewise for the head/tail remainder. On little-endian hosts, ranges of 256
 * bytes or more are read as aligned 32-bit words through an Int32Array view (about 15% faster
 * than byte loads). Results are unsigned 32-bit numbers.
 */

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const POLY = 0x82f63b78;

export type Crc32cImplementation = 'hardware' | 'node-rs' | 'js';
/** CRC of `bytes[start, end)` continuing from `crc`; the caller has checked the range. */
export type RangeCrc32c = (bytes: Uint8Array, crc: number, start: number, end: number) => number;

export interface AcceleratedCrc32c {
  name: Exclude<Crc32cImplementation, 'js'>;
  update: RangeCrc32c;
  minBytes: number;
}

const requireNative = createRequire(import.meta.url);
const forced = process.env.SAMSA_CRC32C;

/**
 * A range long enough for every code path of the addon (its 8 KiB and 256 B three-stream
 * blocks, its 8-byte steps and single bytes), read from an odd address and continued from a
 * non-zero CRC, with its CRC-32C as the tables compute it (a test recomputes it).
 */
export const CRC32C_PROBE = Object.freeze({
  length: 3 * 8192 + 3 * 256 + 21,
  fill: 'samsa: CRC-32C probe, 3 streams of 8 KiB',
  start: 3,
  seed: 0x1234abcd,
  crc: 0xaad95b54,
});

/**
 * Accepts an implementation only if it gives the published check value and the probe's CRC:
 * a miscompiled or misdetected native build is set aside, not trusted with every batch. Two
 * native calls and a native fill, once per thread at load.
 */
export function verifiedCrc32c(update: RangeCrc32c): RangeCrc32c | null {
  try {
    if (update(Buffer.from('123456789'), 0, 0, 9) !== 0xe3069283) return null;
    const p = CRC32C_PROBE;
    const probe = Buffer.alloc(p.length, p.fill);
    return update(probe, p.seed, p.start, p.length) === p.crc ? update : null;
  } catch {
    return null;
  }
}

/** src/native/build/Release/samsa_native.node under the package root (from src/ or dist/src/). */
function loadAddon(): RangeCrc32c | null {
  if (forced === 'js' || forced === 'node-rs') return null;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up++, dir = dirname(dir)) {
    const file = join(dir, 'src', 'native', 'build', 'Release', 'samsa_native.node');
    if (!existsSync(file)) continue;
    try {
      const mod = requireNative(file) as { crc32cUpdate?: RangeCrc32c };
      // absent where the CPU lacks the instruction (the module then exports nothing)
      return typeof mod.crc32cUpdate === 'function' ? verifiedCrc32c(mod.crc32cUpdate) : null;
    } catch {
      return null;
    }
  }
  return null;
}

function loadNodeRs(): RangeCrc32c | null {
  if (forced === 'js') return null;
  try {
    const f = (requireNative('@node-rs/crc32') as { crc32c?: (input: Uint8Array, initialState?: number) => number }).crc32c;
    if (typeof f !== 'function') return null;
    return verifiedCrc32c((bytes, crc, start, end) => f(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), crc) >>> 0);
  } catch {
    return null;
  }
}

const SLICES = 16;
/** Below this many bytes the word path's view allocation costs more than it saves. */
const WORD_PATH_MIN = 256;
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** TABLES[k * 256 + b] = CRC contribution of byte b followed by k zero bytes. */
const TABLES = buildTables();

/**
 * The accelerated implementations that load here, fastest first, each with the shortest range
 * it serves (below it, its call costs more than the tables: measured crossovers ~100 B for the
 * addon, ~1 KiB for @node-rs/crc32, which also needs a view per call).
 */
export const acceleratedCrc32c: readonly AcceleratedCrc32c[] = [
  { name: 'hardware' as const, update: loadAddon(), minBytes: 128 },
  { name: 'node-rs' as const, update: loadNodeRs(), minBytes: 1024 },
].filter((a): a is AcceleratedCrc32c => a.update !== null);

/** Which implementation serves long ranges. */
export const crc32cImplementation: Crc32cImplementation = acceleratedCrc32c[0]?.name ?? 'js';
const accelerated: RangeCrc32c | null = acceleratedCrc32c[0]?.update ?? null;
const ACCELERATED_MIN = acceleratedCrc32c[0]?.minBytes ?? Infinity;

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
  if (end - start >= ACCELERATED_MIN) return accelerated!(buf, crc >>> 0, start, end);
  return crc32cTables(crc, buf, start, end);
}

/** The JavaScript tables over a range already checked (exported for tests and comparisons). */
export function crc32cTables(crc: number, buf: Uint8Array, start: number, end: number): number {
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
