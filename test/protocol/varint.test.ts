/** Tests for zigzag varint/varlong and unsigned varint: Kafka's encodings, a bigint reference, errors. */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  VarintError,
  readUnsignedVarint,
  readVarint,
  readVarlong,
  sizeOfUnsignedVarint,
  sizeOfVarint,
  sizeOfVarlong,
  writeUnsignedVarint,
  writeVarint,
  writeVarlong,
} from '../../src/protocol/varint.js';

/** Reference encoder: zigzag over 64 bits with bigint, then base-128 little-endian groups. */
function referenceVarlong(v: bigint): number[] {
  let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  const out: number[] = [];
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
  return out;
}

function encode(write: (b: Uint8Array, p: number, v: number) => number, v: number): number[] {
  const b = new Uint8Array(16);
  const end = write(b, 0, v);
  return [...b.subarray(0, end)];
}

function bytes(...xs: number[]): Uint8Array {
  return Uint8Array.from(xs);
}

function expectVarintError(fn: () => unknown, kind: string, re: RegExp): void {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(VarintError);
    expect((e as VarintError).kind).to.equal(kind);
    expect((e as Error).message).to.match(re);
    return;
  }
  expect.fail('expected a VarintError');
}

describe('protocol/varint', () => {
  it('encodes Kafka\'s zigzag varint examples', () => {
    expect(encode(writeVarint, 0)).to.deep.equal([0x00]);
    expect(encode(writeVarint, -1)).to.deep.equal([0x01]);
    expect(encode(writeVarint, 1)).to.deep.equal([0x02]);
    expect(encode(writeVarint, -2)).to.deep.equal([0x03]);
    expect(encode(writeVarint, 63)).to.deep.equal([0x7e]);
    expect(encode(writeVarint, -64)).to.deep.equal([0x7f]);
    expect(encode(writeVarint, 64)).to.deep.equal([0x80, 0x01]);
    expect(encode(writeVarint, 300)).to.deep.equal([0xd8, 0x04]);
    expect(encode(writeVarint, 2147483647)).to.deep.equal([0xfe, 0xff, 0xff, 0xff, 0x0f]);
    expect(encode(writeVarint, -2147483648)).to.deep.equal([0xff, 0xff, 0xff, 0xff, 0x0f]);
  });

  it('round-trips every value of one and two bytes, at the end of its window too', () => {
    const wrong: number[] = [];
    for (let v = -8192; v < 8192; v++) {
      const enc = Uint8Array.from(encode(writeVarint, v));
      const cur = { pos: 0, end: enc.length };
      if (enc.length > 2 || readVarint(enc, cur) !== v || cur.pos !== enc.length) wrong.push(v);
      // inside a larger buffer, read from an offset
      const padded = Uint8Array.from([0xff, ...enc, 0xff]);
      const at = { pos: 1, end: 1 + enc.length };
      if (readVarint(padded, at) !== v || at.pos !== 1 + enc.length) wrong.push(v);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('round-trips every int32 and matches the reference and sizeOfVarint', () => {
    fc.assert(
      fc.property(fc.integer({ min: -0x80000000, max: 0x7fffffff }), (v) => {
        const enc = encode(writeVarint, v);
        expect(enc).to.deep.equal(referenceVarlong(BigInt(v)));
        expect(sizeOfVarint(v)).to.equal(enc.length);
        const cur = { pos: 0, end: enc.length };
        expect(readVarint(Uint8Array.from(enc), cur)).to.equal(v);
        expect(cur.pos).to.equal(enc.length);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips every safe integer as a varlong, byte-identical to the 64-bit reference', () => {
    const edges = [0, -1, 1, 2 ** 27 - 1, -(2 ** 27), 2 ** 27, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 52, -(2 ** 52),
      1_700_000_000_000, -1_700_000_000_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    const check = (v: number) => {
      const enc = encode(writeVarlong, v);
      expect(enc, `encoding ${v}`).to.deep.equal(referenceVarlong(BigInt(v)));
      expect(sizeOfVarlong(v), `size of ${v}`).to.equal(enc.length);
      const cur = { pos: 0, end: enc.length };
      expect(readVarlong(Uint8Array.from(enc), cur)).to.equal(v);
      expect(cur.pos).to.equal(enc.length);
    };
    edges.forEach(check);
    fc.assert(fc.property(fc.maxSafeInteger(), check), { numRuns: 1000 });
    fc.assert(fc.property(fc.integer({ min: -100_000, max: 100_000 }), check), { numRuns: 200 });
  });

  it('reads a varint at an offset and leaves the cursor after it', () => {
    const b = bytes(0xaa, 0xd8, 0x04, 0x03, 0xbb);
    const cur = { pos: 1, end: b.length };
    expect(readVarint(b, cur)).to.equal(300);
    expect(cur.pos).to.equal(3);
    expect(readVarlong(b, cur)).to.equal(-2);
    expect(cur.pos).to.equal(4);
  });

  it('round-trips unsigned varints', () => {
    expect(encode(writeUnsignedVarint, 0xffffffff)).to.deep.equal([0xff, 0xff, 0xff, 0xff, 0x0f]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (v) => {
        const enc = encode(writeUnsignedVarint, v);
        expect(sizeOfUnsignedVarint(v)).to.equal(enc.length);
        expect(readUnsignedVarint(Uint8Array.from(enc), { pos: 0, end: enc.length })).to.equal(v);
      }),
      { numRuns: 300 },
    );
  });

  it('reports truncation against the cursor end, not just the buffer end', () => {
    expectVarintError(() => readVarint(bytes(0xd8, 0x04), { pos: 0, end: 1 }), 'truncated', /varint truncated at byte 1/);
    expectVarintError(() => readVarint(bytes(), { pos: 0, end: 0 }), 'truncated', /truncated/);
    expectVarintError(() => readVarlong(bytes(0x80, 0x80, 0x80, 0x80, 0x80), { pos: 0, end: 5 }), 'truncated', /varlong truncated at byte 5/);
    expectVarintError(() => readVarlong(bytes(0x80, 0x80), { pos: 0, end: 99 }), 'truncated', /varlong truncated at byte 2/);
  });

  it('reports overflow for too-long or too-wide encodings', () => {
    expectVarintError(() => readVarint(bytes(0xff, 0xff, 0xff, 0xff, 0x1f), { pos: 0, end: 5 }), 'overflow', /overflows 32 bits/);
    expectVarintError(() => readVarint(bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x01), { pos: 0, end: 6 }), 'overflow', /overflows|longer/);
    const eleven = new Uint8Array(11).fill(0x80);
    eleven[10] = 0;
    expectVarintError(() => readVarlong(eleven, { pos: 0, end: 11 }), 'overflow', /overflows 64 bits|longer than 10/);
    const tooWide = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03];
    expectVarintError(() => readVarlong(Uint8Array.from(tooWide), { pos: 0, end: 10 }), 'overflow', /overflows 64 bits/);
  });

  it('rejects int64 values outside the safe integer range instead of rounding', () => {
    for (const v of [2n ** 53n, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n)]) {
      const enc = Uint8Array.from(referenceVarlong(v));
      expectVarintError(() => readVarlong(enc, { pos: 0, end: enc.length }), 'range', /safe integer range/);
    }
  });

  it('rejects values outside the writer\'s range', () => {
    const b = new Uint8Array(16);
    expectVarintError(() => writeVarint(b, 0, 2 ** 31), 'range', /not an int32/);
    expectVarintError(() => writeVarint(b, 0, 1.5), 'range', /not an int32/);
    expectVarintError(() => writeVarint(b, 0, NaN), 'range', /not an int32/);
    expectVarintError(() => writeVarlong(b, 0, 2 ** 53), 'range', /not a safe integer/);
    expectVarintError(() => writeVarlong(b, 0, 0.5), 'range', /not a safe integer/);
    expectVarintError(() => writeUnsignedVarint(b, 0, -1), 'range', /not a uint32/);
  });
});
