/** Tests for the slicing-by-16 CRC-32C: published vectors and a bytewise reference on random data. */
import { expect } from 'chai';
import fc from 'fast-check';
import { crc32c, crc32cUpdate } from '../../src/protocol/crc32c.js';

/** Bit-at-a-time reference, independent of the table code. */
function referenceCrc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) {
    c ^= buf[i]!;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

describe('protocol/crc32c', () => {
  it('matches the published check values', () => {
    expect(crc32c(Buffer.from('123456789', 'ascii'))).to.equal(0xe3069283);
    expect(crc32c(new Uint8Array(32))).to.equal(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).to.equal(0x62a8ab43);
    const ascending = Uint8Array.from({ length: 32 }, (_, i) => i);
    expect(crc32c(ascending)).to.equal(0x46dd794e);
    const descending = Uint8Array.from({ length: 32 }, (_, i) => 31 - i);
    expect(crc32c(descending)).to.equal(0x113fdb5c);
  });

  it('is 0 for an empty range and returns unsigned values', () => {
    expect(crc32c(new Uint8Array(0))).to.equal(0);
    expect(crc32c(Buffer.from('abc'), 1, 1)).to.equal(0);
    expect(crc32c(Buffer.from('123456789', 'ascii'))).to.be.greaterThan(0x7fffffff);
  });

  it('agrees with a bytewise reference on random data and random ranges', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 300 }),
        fc.nat(),
        fc.nat(),
        (bytes, a, b) => {
          const x = bytes.length === 0 ? 0 : a % (bytes.length + 1);
          const y = bytes.length === 0 ? 0 : b % (bytes.length + 1);
          const start = Math.min(x, y);
          const end = Math.max(x, y);
          expect(crc32c(bytes, start, end)).to.equal(referenceCrc32c(bytes, start, end));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('agrees with the reference on long ranges at every alignment (the word path)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 256, maxLength: 4096 }),
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        (bytes, shift, trimStart, trimEnd) => {
          // Place the data at every byte offset of the backing ArrayBuffer.
          const backing = new Uint8Array(bytes.length + shift);
          backing.set(bytes, shift);
          const view = backing.subarray(shift);
          const end = view.length - trimEnd;
          expect(crc32c(view)).to.equal(referenceCrc32c(bytes));
          expect(crc32c(view, trimStart, end)).to.equal(referenceCrc32c(bytes, trimStart, end));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('handles a subarray view with a non-zero byteOffset', () => {
    const backing = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31 + 7) & 0xff);
    const view = backing.subarray(13, 977);
    expect(crc32c(view)).to.equal(referenceCrc32c(backing, 13, 977));
    expect(crc32c(view, 5, 100)).to.equal(referenceCrc32c(backing, 18, 113));
  });

  it('continues a checksum across chunks with crc32cUpdate', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % (bytes.length + 1);
        const whole = crc32c(bytes);
        expect(crc32cUpdate(crc32c(bytes, 0, at), bytes, at)).to.equal(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects ranges outside the buffer', () => {
    const b = new Uint8Array(10);
    expect(() => crc32c(b, 0, 11)).to.throw(RangeError);
    expect(() => crc32c(b, -1, 5)).to.throw(RangeError);
    expect(() => crc32c(b, 6, 5)).to.throw(RangeError);
    expect(() => crc32c(b, 1.5, 5)).to.throw(RangeError);
  });
});

describe('protocol/crc32c: native and JavaScript paths agree', () => {
  it('gives the same CRC on large ranges, offsets and continuations whichever path serves them', async () => {
    const { crc32c: crc, crc32cUpdate: update, crc32cImplementation } = await import('../../src/protocol/crc32c.js');
    const data = new Uint8Array(70_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
    // reference: the bytewise table path, one byte at a time through small ranges
    let ref = 0;
    for (let i = 0; i < data.length; i += 512) ref = update(ref, data, i, Math.min(data.length, i + 512));
    expect(crc(data)).to.equal(ref);
    expect(update(update(0, data, 0, 30_001), data, 30_001)).to.equal(ref);
    const view = data.subarray(3, 60_003);
    let refView = 0;
    for (let i = 0; i < view.length; i += 500) refView = update(refView, view, i, Math.min(view.length, i + 500));
    expect(crc(view)).to.equal(refView);
    expect(['native', 'js']).to.include(crc32cImplementation);
  });
});
