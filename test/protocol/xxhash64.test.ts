/** Tests for xxHash64: published values, seeds, the lengths around its 32-byte stripes, and a BigInt reference. */
import { expect } from 'chai';
import fc from 'fast-check';
import { xxhash64 } from '../../src/protocol/xxhash64.js';

/** xxHash64 in BigInt arithmetic, as the specification writes it: slow and plainly right. */
function referenceXxhash64(b: Uint8Array, seed: bigint): bigint {
  const M = (1n << 64n) - 1n;
  const [P1, P2, P3, P4, P5] = [0x9e3779b185ebca87n, 0xc2b2ae3d27d4eb4fn, 0x165667b19e3779f9n, 0x85ebca77c2b2ae63n, 0x27d4eb2f165667c5n];
  const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M;
  const le = (i: number, n: number) => {
    let v = 0n;
    for (let k = n - 1; k >= 0; k--) v = (v << 8n) | BigInt(b[i + k]!);
    return v;
  };
  const round = (acc: bigint, lane: bigint) => (rotl((acc + lane * P2) & M, 31n) * P1) & M;
  let i = 0;
  let h: bigint;
  if (b.length >= 32) {
    const v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M];
    for (; i + 32 <= b.length; i += 32) for (let k = 0; k < 4; k++) v[k] = round(v[k]!, le(i + 8 * k, 8));
    h = (rotl(v[0]!, 1n) + rotl(v[1]!, 7n) + rotl(v[2]!, 12n) + rotl(v[3]!, 18n)) & M;
    for (const x of v) h = ((h ^ round(0n, x)) * P1 + P4) & M;
  } else {
    h = (seed + P5) & M;
  }
  h = (h + BigInt(b.length)) & M;
  for (; i + 8 <= b.length; i += 8) h = (rotl(h ^ round(0n, le(i, 8)), 27n) * P1 + P4) & M;
  if (i + 4 <= b.length) {
    h = (rotl(h ^ ((le(i, 4) * P1) & M), 23n) * P2 + P3) & M;
    i += 4;
  }
  for (; i < b.length; i++) h = (rotl(h ^ ((BigInt(b[i]!) * P5) & M), 11n) * P1) & M;
  h = ((h ^ (h >> 33n)) * P2) & M;
  h = ((h ^ (h >> 29n)) * P3) & M;
  return h ^ (h >> 32n);
}

const ascii = (s: string) => Buffer.from(s, 'latin1');

describe('protocol/xxhash64', () => {
  it('matches the published values of xxHash64 with seed 0', () => {
    expect(xxhash64(ascii(''))).to.equal(0xef46db3751d8e999n);
    expect(xxhash64(ascii('a'))).to.equal(0xd24ec4f1a98c6e5bn);
    expect(xxhash64(ascii('abc'))).to.equal(0x44bc2cf5ad770999n);
    expect(xxhash64(ascii('Nobody inspects the spammish repetition'))).to.equal(0xfbcea83c8a378bf1n);
  });

  it('hashes a range of a larger buffer as the same bytes alone, at every length up to 70', () => {
    const big = Buffer.from(Array.from({ length: 80 }, (_, i) => (i * 37 + 11) & 0xff));
    for (let len = 0; len <= 70; len++) {
      expect(xxhash64(big, 5n, 4, 4 + len), `length ${len}`).to.equal(xxhash64(Buffer.from(big.subarray(4, 4 + len)), 5n));
    }
  });

  it('depends on the seed and on every byte', () => {
    const b = ascii('thirty-two bytes and then some more of them');
    expect(xxhash64(b, 1n)).to.not.equal(xxhash64(b));
    const seen = new Set<bigint>();
    for (let i = 0; i < b.length; i++) {
      const c = Buffer.from(b);
      c[i]! ^= 0x80;
      seen.add(xxhash64(c));
    }
    expect(seen.size).to.equal(b.length);
  });

  it('agrees with the BigInt reference on random bytes and seeds, including the seeds near 0 and 2^64', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.oneof(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.constantFrom(0n, 1n, (1n << 64n) - 1n, 0x9e3779b185ebca87n)), (bytes, seed) => {
        expect(xxhash64(bytes, seed)).to.equal(referenceXxhash64(bytes, seed));
      }),
      { numRuns: 500, seed: 64 },
    );
    const big = Buffer.from(Array.from({ length: 100_003 }, (_, i) => (i * 131 + (i >> 7)) & 0xff));
    expect(xxhash64(big)).to.equal(referenceXxhash64(big, 0n));
  });
});
