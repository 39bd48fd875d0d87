/**
 * xxHash32 (the 32-bit variant of Yann Collet's xxHash), as the LZ4 frame format uses it for its
 * header checksum byte and its optional block and content checksums.
 */

import { u32le } from './byte-runs.js';

const P1 = 0x9e3779b1;
const P2 = 0x85ebca77;
const P3 = 0xc2b2ae3d;
const P4 = 0x27d4eb2f;
const P5 = 0x165667b1;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function round(acc: number, lane: number): number {
  return Math.imul(rotl((acc + Math.imul(lane, P2)) | 0, 13), P1);
}

/** xxHash32 of `b[start, end)` with `seed` (0 unless given), as an unsigned 32-bit number. */
export function xxhash32(b: Uint8Array, seed = 0, start = 0, end = b.length): number {
  const len = end - start;
  let i = start;
  let h: number;
  if (len >= 16) {
    let v1 = (seed + P1 + P2) | 0;
    let v2 = (seed + P2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - P1) | 0;
    const limit = end - 16;
    while (i <= limit) {
      v1 = round(v1, u32le(b, i));
      v2 = round(v2, u32le(b, i + 4));
      v3 = round(v3, u32le(b, i + 8));
      v4 = round(v4, u32le(b, i + 12));
      i += 16;
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = (seed + P5) | 0;
  }
  h = (h + len) | 0;
  while (i + 4 <= end) {
    h = Math.imul(rotl((h + Math.imul(u32le(b, i), P3)) | 0, 17), P4);
    i += 4;
  }
  while (i < end) {
    h = Math.imul(rotl((h + Math.imul(b[i]!, P5)) | 0, 11), P1);
    i++;
  }
  h ^= h >>> 15;
  h = Math.imul(h, P2);
  h ^= h >>> 13;
  h = Math.imul(h, P3);
  h ^= h >>> 16;
  return h >>> 0;
}
