/**
 * The coordinators' record writer and reader on their own: integers at their bounds and past
 * them, int64 as safe integers, Uuids, classic and compact strings (null among them), bytes,
 * arrays and tagged fields, byte for byte; truncation, negative lengths, null where none is
 * allowed, invalid UTF-8 and lying array counts refused, naming the record and the field; every
 * error made by the factory the caller gave.
 */
import { expect } from 'chai';
import { RecordReader, RecordWriter } from '../../../actors/group-coordinator/record-codec.js';

class TestRecordError extends Error {
  override readonly name = 'TestRecordError';
}

const makeError = (message: string): Error => new TestRecordError(message);
const writer = (flexible = false) => new RecordWriter(makeError, flexible);
const reader = (bytes: Uint8Array | string, flexible = false) => new RecordReader(typeof bytes === 'string' ? hex(bytes) : bytes, 'test record', makeError, flexible);
const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const refused = (f: () => unknown, msg: RegExp) => expect(f).to.throw(TestRecordError, msg);

describe('record codec', () => {
  describe('integers', () => {
    it('writes int8/16/32 big-endian at their bounds and reads them back', () => {
      const w = writer().int8(-128, 'a').int8(127, 'b').int16(-32768, 'c').int16(32767, 'd').int32(-(2 ** 31), 'e').int32(2 ** 31 - 1, 'f');
      const bytes = w.finish();
      expect(toHex(bytes)).to.equal('80' + '7f' + '8000' + '7fff' + '80000000' + '7fffffff');
      const r = reader(bytes);
      expect([r.int8('a'), r.int8('b'), r.int16('c'), r.int16('d'), r.int32('e'), r.int32('f')]).to.deep.equal([-128, 127, -32768, 32767, -(2 ** 31), 2 ** 31 - 1]);
      r.end();
    });

    it('refuses values past the bounds, fractions and NaN, naming the field', () => {
      refused(() => writer().int8(128, 'state'), /^state must be an int8, got 128$/);
      refused(() => writer().int8(-129, 'state'), /int8, got -129/);
      refused(() => writer().int16(32768, 'count'), /^count must be an int16, got 32768$/);
      refused(() => writer().int16(-32769, 'count'), /int16, got -32769/);
      refused(() => writer().int32(2 ** 31, 'epoch'), /^epoch must be an int32, got 2147483648$/);
      refused(() => writer().int32(-(2 ** 31) - 1, 'epoch'), /int32/);
      refused(() => writer().int32(1.5, 'epoch'), /int32, got 1.5/);
      refused(() => writer().int16(Number.NaN, 'count'), /int16, got NaN/);
    });

    it('writes every safe integer as an int64 and refuses anything else', () => {
      const bytes = writer().int64(Number.MAX_SAFE_INTEGER, 'a').int64(Number.MIN_SAFE_INTEGER, 'b').int64(-1, 'c').finish();
      expect(toHex(bytes)).to.equal('001fffffffffffff' + 'ffe0000000000001' + 'ffffffffffffffff');
      const r = reader(bytes);
      expect([r.int64('a'), r.int64('b'), r.int64('c')]).to.deep.equal([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, -1]);
      refused(() => writer().int64(Number.MAX_SAFE_INTEGER + 1, 'offset'), /^offset must be a safe integer, got 9007199254740992$/);
      refused(() => writer().int64(0.5, 'offset'), /safe integer/);
    });

    it('refuses an int64 outside the safe integer range when reading', () => {
      refused(() => reader('0020000000000000').int64('offset'), /^test record: offset 9007199254740992 is outside the safe integer range$/);
      refused(() => reader('8000000000000000').int64('offset'), /-9223372036854775808 is outside the safe integer range/);
    });
  });

  describe('uuids', () => {
    it('writes a Kafka uuid as its 16 bytes and reads back its string form', () => {
      const id = 'AAECAwQFBgcICQoLDA0ODw';
      const bytes = writer().uuid(id, 'topicId').finish();
      expect(toHex(bytes)).to.equal('000102030405060708090a0b0c0d0e0f');
      expect(reader(bytes).uuid('topicId')).to.equal(id);
    });

    it('refuses a string that is not 16 bytes, and 16 bytes cut short', () => {
      refused(() => writer().uuid('not-a-uuid', 'topicId'), /^topicId is not a Kafka uuid: not-a-uuid$/);
      refused(() => writer().uuid('', 'topicId'), /not a Kafka uuid/);
      refused(() => reader('000102030405060708090a0b0c0d0e').uuid('topicId'), /^test record: truncated reading topicId at byte 0 \(length 15\)$/);
    });
  });

  describe('strings', () => {
    it('classic: int16 length + UTF-8, -1 for null', () => {
      const bytes = writer().string('grp', 'a').string('', 'b').string(null, 'c').string('é', 'd').finish();
      expect(toHex(bytes)).to.equal('0003677270' + '0000' + 'ffff' + '0002c3a9');
      const r = reader(bytes);
      expect([r.string('a'), r.string('b'), r.nullableString('c'), r.string('d')]).to.deep.equal(['grp', '', null, 'é']);
      r.end();
    });

    it('flexible: compact lengths (n + 1, 0 for null)', () => {
      const bytes = writer(true).string('grp', 'a').string('', 'b').string(null, 'c').finish();
      expect(toHex(bytes)).to.equal('04677270' + '01' + '00');
      const r = reader(bytes, true);
      expect([r.string('a'), r.string('b'), r.nullableString('c')]).to.deep.equal(['grp', '', null]);
      r.end();
      // a length past one byte of varint
      const long = 'x'.repeat(200);
      const lb = writer(true).string(long, 'a').finish();
      expect(toHex(lb.subarray(0, 2))).to.equal('c901');
      expect(reader(lb, true).string('a')).to.equal(long);
    });

    it('refuses a classic string beyond 32767 bytes; a compact one takes it', () => {
      refused(() => writer().string('x'.repeat(32768), 'metadata'), /^metadata is 32768 bytes long, more than a Kafka string holds \(32767\)$/);
      expect(writer().string('x'.repeat(32767), 'metadata').finish()).to.have.length(2 + 32767);
      expect(writer(true).string('x'.repeat(40000), 'metadata').finish()).to.have.length(3 + 40000);
    });

    it('refuses null where the schema allows none, negative lengths, truncation and invalid UTF-8', () => {
      refused(() => reader('ffff').string('group'), /^test record: group is null but the schema does not allow it$/);
      refused(() => reader('00', true).string('group'), /group is null but the schema does not allow it/);
      refused(() => reader('fffe').nullableString('group'), /^test record: group has a negative length -2$/);
      refused(() => reader('00056162').string('group'), /^test record: truncated reading group at byte 2 \(length 4\)$/);
      refused(() => reader('00').string('group'), /truncated reading group at byte 0/);
      refused(() => reader('0002c328').string('group'), /^test record: group is not UTF-8$/);
      refused(() => reader('80', true).string('group'), /^test record: group truncated at byte 1/);
    });
  });

  describe('bytes', () => {
    it('classic int32 length, flexible compact; read as a copy of their own', () => {
      expect(toHex(writer().bytes(Uint8Array.of(1, 2), 'b').bytes(new Uint8Array(0), 'c').finish())).to.equal('000000020102' + '00000000');
      expect(toHex(writer(true).bytes(Uint8Array.of(1, 2), 'b').finish())).to.equal('030102');
      const input = hex('000000020102');
      const read = reader(input).bytes('b');
      expect([...read]).to.deep.equal([1, 2]);
      input[4] = 9;
      expect([...read]).to.deep.equal([1, 2]);
    });

    it('refuses null bytes, negative lengths and truncation', () => {
      refused(() => reader('ffffffff').bytes('assignment'), /assignment is null but the schema does not allow it/);
      refused(() => reader('fffffffe').bytes('assignment'), /assignment has a negative length -2/);
      refused(() => reader('0000000301').bytes('assignment'), /truncated reading assignment at byte 4/);
    });
  });

  describe('arrays', () => {
    it('classic int32 count, flexible compact count', () => {
      expect(toHex(writer().arrayLength(2, 'members').int8(1, 'x').int8(2, 'x').finish())).to.equal('00000002' + '0102');
      expect(toHex(writer(true).arrayLength(2, 'members').int8(1, 'x').int8(2, 'x').finish())).to.equal('03' + '0102');
      expect(reader('000000020102').arrayLength('members')).to.equal(2);
      expect(reader('030102', true).arrayLength('members')).to.equal(2);
      expect(reader('01', true).arrayLength('members')).to.equal(0);
    });

    it('refuses null arrays, negative counts, and counts beyond the bytes left', () => {
      refused(() => reader('ffffffff').arrayLength('members'), /^test record: members is null but the schema does not allow it$/);
      refused(() => reader('00', true).arrayLength('members'), /members is null/);
      refused(() => reader('fffffffe').arrayLength('members'), /members has a negative length -2/);
      refused(() => reader('0000000301 02').arrayLength('members'), /^test record: members claims 3 elements with 2 bytes left$/);
      refused(() => reader('ff7f', true).arrayLength('stateBatches'), /stateBatches claims 16382 elements with 0 bytes left/);
      refused(() => reader('000000').arrayLength('members'), /truncated reading members/);
    });
  });

  describe('tagged fields', () => {
    it('none written and nothing read in classic versions', () => {
      expect(writer().int8(1, 'x').taggedFields().finish()).to.have.length(1);
      const r = reader('01');
      expect(r.taggedFields('s').size).to.equal(0);
      expect(r.int8('x')).to.equal(1);
    });

    it('flexible: an empty set is one zero byte; fields written in order are read back by tag', () => {
      expect(toHex(writer(true).taggedFields().finish())).to.equal('00');
      const bytes = writer(true)
        .taggedFieldsWith([
          { tag: 0, bytes: Uint8Array.of(0, 0, 0, 8) },
          { tag: 3, bytes: new Uint8Array(0) },
        ])
        .finish();
      expect(toHex(bytes)).to.equal('02' + '0004' + '00000008' + '0300');
      const r = reader(bytes, true);
      const tagged = r.taggedFields('value');
      expect([...tagged.keys()]).to.deep.equal([0, 3]);
      expect([...tagged.get(0)!]).to.deep.equal([0, 0, 0, 8]);
      r.end();
    });

    it('can be turned on once the version read says so', () => {
      const r = reader('0004' + '00');
      expect(r.int16('version')).to.equal(4);
      r.flexible = true;
      expect(r.taggedFields().size).to.equal(0);
      r.end();
    });

    it('refuses truncated tagged fields, naming the struct and the tag', () => {
      refused(() => reader('', true).taggedFields('ShareUpdateValue'), /^test record: ShareUpdateValue tagged field count truncated at byte 0/);
      refused(() => reader('01', true).taggedFields('ShareUpdateValue'), /ShareUpdateValue tag truncated/);
      refused(() => reader('0100', true).taggedFields('ShareUpdateValue'), /ShareUpdateValue tag 0 size truncated/);
      refused(() => reader('01000400', true).taggedFields('ShareUpdateValue'), /^test record: truncated reading ShareUpdateValue tag 0 at byte 3 \(length 4\)$/);
      refused(() => reader('0100', true).taggedFields(), /^test record: tag 0 size truncated/);
    });
  });

  describe('the reader', () => {
    it('names the field being read when the bytes end', () => {
      const r = reader('0001 0000');
      expect(r.int16('version')).to.equal(1);
      refused(() => r.int32('partition'), /^test record: truncated reading partition at byte 2 \(length 4\)$/);
      refused(() => reader('').int8('state'), /truncated reading state at byte 0 \(length 0\)/);
      refused(() => reader('00').int16('version'), /truncated reading version/);
      refused(() => reader('0000000000').int64('offset'), /truncated reading offset/);
    });

    it('end() refuses bytes left over; reading stops anywhere otherwise', () => {
      const r = reader('0001 ff');
      expect(r.int16('version')).to.equal(1);
      refused(() => r.end(), /^test record: 1 bytes left over after the record$/);
    });

    it('reads from a view into a larger buffer', () => {
      const whole = hex('ffff 0003 677270 00000007 ffff');
      const r = reader(whole.subarray(2, whole.length - 2));
      expect([r.string('group'), r.int32('partition')]).to.deep.equal(['grp', 7]);
      r.end();
    });
  });

  describe('the error factory', () => {
    it('makes every error the writer and the reader throw', () => {
      class OtherError extends Error {}
      const made: string[] = [];
      const factory = (message: string) => {
        made.push(message);
        return new OtherError(message);
      };
      expect(() => new RecordWriter(factory).int8(300, 'state')).to.throw(OtherError, 'state must be an int8');
      expect(() => new RecordReader(hex('00'), 'some value', factory).int32('epoch')).to.throw(OtherError, 'some value: truncated reading epoch');
      expect(() => new RecordReader(hex('80'), 'some value', factory, true).arrayLength('topics')).to.throw(OtherError, 'some value: topics truncated');
      expect(made).to.have.length(3);
    });
  });

  it('finish() returns a copy: writing on does not change it', () => {
    const w = writer().int8(1, 'a');
    const first = w.finish();
    w.int8(2, 'b');
    expect([...first]).to.deep.equal([1]);
    expect([...w.finish()]).to.deep.equal([1, 2]);
    // past the initial buffer
    const big = writer().bytes(new Uint8Array(1000).fill(7), 'b').finish();
    expect(big).to.have.length(1004);
    expect(big[1003]).to.equal(7);
  });
});
