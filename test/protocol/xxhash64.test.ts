/** Tests for xxHash64: published values, seeds, and the lengths around its 32-byte stripes. */
import { expect } from 'chai';
import { xxhash64 } from '../../src/protocol/xxhash64.js';

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
});
