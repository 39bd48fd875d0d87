/** Tests for the codec's Reader and Writer: every primitive, compact and nullable forms, errors. */
import { expect } from 'chai';
import fc from 'fast-check';
import { Reader, Writer, ZERO_UUID } from '../../../src/kafka/protocol/index.js';
import { expectCodecError } from './helpers.js';

function written(fn: (w: Writer) => void): Buffer {
  const w = new Writer(1);
  fn(w);
  return Buffer.from(w.finish());
}

function hex(s: string): Buffer {
  return Buffer.from(s.replace(/\s+/g, ''), 'hex');
}

describe('kafka codec primitives', () => {
  it('writes and reads fixed-width integers big-endian, growing from a 1-byte buffer', () => {
    const b = written((w) => {
      w.int8(-2);
      w.bool(true);
      w.bool(false);
      w.int16(-300);
      w.uint16(65535);
      w.int32(-70000);
      w.uint32(0xfffffffe);
      w.float64(1.5);
    });
    expect(b.toString('hex')).to.equal('fe' + '01' + '00' + 'fed4' + 'ffff' + 'fffeee90' + 'fffffffe' + '3ff8000000000000');
    const r = new Reader(b);
    expect([r.int8(), r.bool(), r.bool(), r.int16(), r.uint16(), r.int32(), r.uint32(), r.float64()]).to.deep.equal([
      -2, true, false, -300, 65535, -70000, 0xfffffffe, 1.5,
    ]);
    expect(r.remaining()).to.equal(0);
  });

  it('reads any non-zero byte as true', () => {
    expect(new Reader(hex('02')).bool()).to.equal(true);
  });

  it('int64 round-trips every safe integer and reads like Number(bigint)', () => {
    for (const v of [0, -1, 1, 2 ** 32, -(2 ** 32), 2 ** 32 - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      const b = written((w) => w.int64(v));
      expect(b.readBigInt64BE(0)).to.equal(BigInt(v));
      expect(new Reader(b).int64()).to.equal(v);
    }
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (big) => {
        const b = Buffer.alloc(8);
        b.writeBigInt64BE(big);
        expect(new Reader(b).int64()).to.equal(Number(big));
      }),
    );
    expect(written((w) => w.int64(2 ** 60)).readBigInt64BE(0)).to.equal(2n ** 60n);
    expect(written((w) => w.int64(-(2n ** 63n))).readBigInt64BE(0)).to.equal(-(2n ** 63n));
    expectCodecError(() => written((w) => w.int64(1.5)), 'invalid');
  });

  it('int64 writes back what it read at the top of the range: 2^63 (int64 max read as the nearest double) is int64 max, beyond it out of range', () => {
    const max = Buffer.alloc(8);
    max.writeBigInt64BE(2n ** 63n - 1n);
    const read = new Reader(max).int64();
    expect(read).to.equal(2 ** 63);
    expect(written((w) => w.int64(read)).readBigInt64BE(0)).to.equal(2n ** 63n - 1n);
    // Node's RangeError, which the frame codec turns into 'invalid'
    expect(() => written((w) => w.int64(2 ** 64))).to.throw(RangeError);
    expect(() => written((w) => w.int64(2n ** 63n))).to.throw(RangeError);
  });

  it('unsigned varints: Kafka encodings, 32-bit range, overlong and truncated input', () => {
    const cases: [number, string][] = [
      [0, '00'], [1, '01'], [127, '7f'], [128, '8001'], [300, 'ac02'], [16383, 'ff7f'], [16384, '808001'],
      [2 ** 31 - 1, 'ffffffff07'], [2 ** 32 - 1, 'ffffffff0f'],
    ];
    for (const [v, h] of cases) {
      expect(written((w) => w.uvarint(v)).toString('hex'), String(v)).to.equal(h);
      expect(new Reader(hex(h)).uvarint()).to.equal(v);
    }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (v) => {
        expect(new Reader(written((w) => w.uvarint(v))).uvarint()).to.equal(v);
      }),
    );
    expectCodecError(() => new Reader(hex('ffffffff10')).uvarint(), 'invalid');
    expectCodecError(() => new Reader(hex('ffffffffff01')).uvarint(), 'invalid');
    expectCodecError(() => new Reader(hex('8080')).uvarint(), 'truncated');
  });

  it('signed varints are zigzag', () => {
    const cases: [number, string][] = [[0, '00'], [-1, '01'], [1, '02'], [-64, '7f'], [64, '8001'], [-(2 ** 31), 'ffffffff0f'], [2 ** 31 - 1, 'feffffff0f']];
    for (const [v, h] of cases) {
      expect(written((w) => w.varint(v)).toString('hex'), String(v)).to.equal(h);
      expect(new Reader(hex(h)).varint()).to.equal(v);
    }
  });

  it('strings: int16 and compact lengths, null forms, UTF-8', () => {
    const s = 'héllo ✓';
    const len = Buffer.byteLength(s);
    const b = written((w) => {
      w.string(s);
      w.nullableString(null);
      w.compactString(s);
      w.compactNullableString(null);
      w.compactString('');
      w.string('');
    });
    expect(b.readInt16BE(0)).to.equal(len);
    expect(b.subarray(2 + len, 4 + len).toString('hex')).to.equal('ffff');
    expect(b[4 + len]).to.equal(len + 1);
    const r = new Reader(b);
    expect([r.string(), r.nullableString(), r.compactString(), r.compactNullableString(), r.compactString(), r.string()]).to.deep.equal([
      s, null, s, null, '', '',
    ]);
    expect(r.remaining()).to.equal(0);
  });

  it('bytes: int32 and compact lengths, null forms, views of the input', () => {
    const payload = Buffer.from([1, 2, 3, 4]);
    const b = written((w) => {
      w.bytes(payload);
      w.nullableBytes(null);
      w.compactBytes(payload);
      w.compactNullableBytes(null);
    });
    expect(b.toString('hex')).to.equal('00000004' + '01020304' + 'ffffffff' + '05' + '01020304' + '00');
    const r = new Reader(b);
    const first = r.bytes();
    expect(first.equals(payload)).to.equal(true);
    expect(first.buffer).to.equal(b.buffer);
    expect(first.byteOffset).to.equal(b.byteOffset + 4);
    expect(r.nullableBytes()).to.equal(null);
    expect(r.compactBytes().equals(payload)).to.equal(true);
    expect(r.compactNullableBytes()).to.equal(null);
  });

  it('uuids travel as 16 bytes and read as unpadded base64url', () => {
    const bytes = Buffer.from('0123456789abcdeffedcba9876543210', 'hex');
    const id = bytes.toString('base64url');
    expect(id).to.have.lengthOf(22);
    expect(written((w) => w.uuid(id)).equals(bytes)).to.equal(true);
    expect(new Reader(bytes).uuid()).to.equal(id);
    expect(new Reader(Buffer.alloc(16)).uuid()).to.equal(ZERO_UUID);
    expect(written((w) => w.uuid(ZERO_UUID)).equals(Buffer.alloc(16))).to.equal(true);
    expectCodecError(() => written((w) => w.uuid('not-a-uuid')), 'invalid');
    expectCodecError(() => written((w) => w.uuid('AAAAAAAAAAAAAAAAAAAAA=')), 'invalid');
  });

  it('every read past the end is truncated, and nothing is consumed past end', () => {
    const b = hex('0102030405060708');
    const r = new Reader(b, 0, 3);
    expectCodecError(() => r.int32(), 'truncated');
    expectCodecError(() => r.int64(), 'truncated');
    expectCodecError(() => r.float64(), 'truncated');
    expectCodecError(() => r.uuid(), 'truncated');
    expectCodecError(() => new Reader(hex('0005616263')).string(), 'truncated');
    expectCodecError(() => new Reader(hex('0000000561')).bytes(), 'truncated');
    expectCodecError(() => new Reader(hex('0a6162')).compactString(), 'truncated');
    expectCodecError(() => new Reader(hex('')).int8(), 'truncated');
  });

  it('negative and null lengths: -1 is null where nullable, anything else is invalid', () => {
    expectCodecError(() => new Reader(hex('ffff')).string(), 'invalid');
    expectCodecError(() => new Reader(hex('fffe')).nullableString(), 'invalid');
    expectCodecError(() => new Reader(hex('ffffffff')).bytes(), 'invalid');
    expectCodecError(() => new Reader(hex('80000000')).nullableBytes(), 'invalid');
    expectCodecError(() => new Reader(hex('00')).compactString(), 'invalid');
    expectCodecError(() => new Reader(hex('00')).compactBytes(), 'invalid');
    expectCodecError(() => new Reader(hex('ffffffff')).arrayLength(false), 'invalid');
    expectCodecError(() => new Reader(hex('fffffffe')).arrayLength(true), 'invalid');
    expectCodecError(() => new Reader(hex('00')).compactArrayLength(false), 'invalid');
    expect(new Reader(hex('ffffffff')).arrayLength(true)).to.equal(-1);
    expect(new Reader(hex('00')).compactArrayLength(true)).to.equal(-1);
  });

  it('array counts beyond the bytes left are truncated (no huge allocation)', () => {
    expectCodecError(() => new Reader(hex('7fffffff00')).arrayLength(false), 'truncated');
    expectCodecError(() => new Reader(hex('ffffffff0700')).compactArrayLength(false), 'truncated');
    expect(new Reader(hex('00000002aabb')).arrayLength(false)).to.equal(2);
  });

  it('writer rejects what cannot be encoded', () => {
    expectCodecError(() => written((w) => w.string('x'.repeat(0x8000))), 'invalid');
    expect(written((w) => w.compactString('x'.repeat(0x8000))).length).to.equal(3 + 0x8000);
    expectCodecError(() => written((w) => w.string(null as unknown as string)), 'invalid');
    expectCodecError(() => written((w) => w.bytes('abc' as unknown as Buffer)), 'invalid');
    expect(() => written((w) => w.int16(40000))).to.throw(RangeError);
  });

  it('skipTaggedFields skips a whole section', () => {
    const r = new Reader(hex('02 00 02 aabb 05 01 cc 7f'));
    r.skipTaggedFields();
    expect(r.int8()).to.equal(0x7f);
  });
});
