/** Tests for xxHash32: published values, seeds, and the lengths around its 16-byte stripes. */
import { expect } from 'chai';
import { xxhash32 } from '../../src/protocol/xxhash32.js';

const ascii = (s: string) => Buffer.from(s, 'latin1');

describe('protocol/xxhash32', () => {
  it('matches the published values of xxHash32 with seed 0', () => {
    expect(xxhash32(ascii(''))).to.equal(0x02cc5d05);
    expect(xxhash32(ascii('a'))).to.equal(0x550d7456);
    expect(xxhash32(ascii('abc'))).to.equal(0x32d153ff);
    expect(xxhash32(ascii('Nobody inspects the spammish repetition'))).to.equal(0xe2293b2f);
  });

  it("gives the LZ4 frame descriptor check byte of Kafka's header (FLG 0x60, BD 0x40 -> 0x82)", () => {
    expect((xxhash32(Uint8Array.from([0x60, 0x40])) >>> 8) & 0xff).to.equal(0x82);
  });

  it('hashes a range of a larger buffer as the same bytes alone, at every length up to 40', () => {
    const big = ascii('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ');
    for (let len = 0; len <= 40; len++) {
      const alone = Buffer.from(big.subarray(3, 3 + len));
      expect(xxhash32(big, 7, 3, 3 + len), `length ${len}`).to.equal(xxhash32(alone, 7));
    }
  });

  it('depends on the seed and on every byte', () => {
    const b = ascii('the same sixteen bytes and more');
    expect(xxhash32(b, 1)).to.not.equal(xxhash32(b, 0));
    const seen = new Set<number>();
    for (let i = 0; i < b.length; i++) {
      const c = Buffer.from(b);
      c[i]! ^= 1;
      seen.add(xxhash32(c));
    }
    expect(seen.size).to.equal(b.length);
    expect(seen.has(xxhash32(b))).to.equal(false);
  });
});
