/**
 * xxHash64 (Yann Collet's 64-bit xxHash), as the Zstandard frame format uses it for its optional
 * content checksum (the low 32 bits of the hash of the frame's content with seed 0). BigInt
 * arithmetic: clear and exact, fast enough for the checksum of a batch.
 */

const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

function rotl(x: bigint, r: bigint): bigint {
  return ((x << r) | (x >> (64n - r))) & MASK;
}

function u64le(b: Uint8Array, i: number): bigint {
  const lo = (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
  const hi = (b[i + 4]! | (b[i + 5]! << 8) | (b[i + 6]! << 16) | (b[i + 7]! << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

function u32le(b: Uint8Array, i: number): bigint {
  return BigInt((b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0);
}

function round(acc: bigint, lane: bigint): bigint {
  return (rotl((acc + lane * P2) & MASK, 31n) * P1) & MASK;
}

function merge(acc: bigint, v: bigint): bigint {
  return (((acc ^ round(0n, v)) * P1 + P4) & MASK);
}

/** xxHash64 of `b[start, end)` with `seed`, as an unsigned 64-bit BigInt. */
export function xxhash64(b: Uint8Array, seed = 0n, start = 0, end = b.length): bigint {
  const len = end - start;
  let i = start;
  let h: bigint;
  if (len >= 32) {
    let v1 = (seed + P1 + P2) & MASK;
    let v2 = (seed + P2) & MASK;
    let v3 = seed & MASK;
    let v4 = (seed - P1) & MASK;
    while (i + 32 <= end) {
      v1 = round(v1, u64le(b, i));
      v2 = round(v2, u64le(b, i + 8));
      v3 = round(v3, u64le(b, i + 16));
      v4 = round(v4, u64le(b, i + 24));
      i += 32;
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = (seed + P5) & MASK;
  }
  h = (h + BigInt(len)) & MASK;
  while (i + 8 <= end) {
    h ^= round(0n, u64le(b, i));
    h = (rotl(h, 27n) * P1 + P4) & MASK;
    i += 8;
  }
  if (i + 4 <= end) {
    h ^= (u32le(b, i) * P1) & MASK;
    h = (rotl(h, 23n) * P2 + P3) & MASK;
    i += 4;
  }
  while (i < end) {
    h ^= (BigInt(b[i]!) * P5) & MASK;
    h = (rotl(h, 11n) * P1) & MASK;
    i++;
  }
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h;
}
