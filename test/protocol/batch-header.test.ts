/** Tests for the RecordBatch v2 header layout, zero-copy accessors, validation and framing. */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_LENGTH_OFFSET,
  CRC_OFFSET,
  DELETE_HORIZON_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
  baseOffsetOf,
  batchSizeAt,
  computeBatchCrc,
  deleteHorizonFrom,
  deleteHorizonOf,
  iterateBatches,
  lastOffsetOf,
  maxTimestampOf,
  nextOffsetOf,
  partitionLeaderEpochOf,
  readBatchHeader,
  readInt64BE,
  recordsCountOf,
  setBaseOffset,
  setPartitionLeaderEpoch,
  setProducerState,
  storedCrcOf,
  validateBatch,
  writeBatchCrc,
  writeInt64BE,
} from '../../src/protocol/batch-header.js';
import { crc32c } from '../../src/protocol/crc32c.js';
import { ErrorCode } from '../../src/protocol/errors.js';

interface RawBatch {
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  magic?: number;
  attributes?: number;
  lastOffsetDelta?: number;
  baseTimestamp?: bigint;
  maxTimestamp?: bigint;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  recordsCount?: number;
  body?: Uint8Array;
}

/** Builds a batch byte by byte with Node's Buffer writers (independent of the module under test). */
function rawBatch(o: RawBatch = {}): Buffer {
  const body = o.body ?? Buffer.from('opaque record bytes');
  const b = Buffer.alloc(61 + body.length);
  b.writeBigInt64BE(BigInt(o.baseOffset ?? 0), 0);
  b.writeInt32BE(49 + body.length, 8);
  b.writeInt32BE(o.partitionLeaderEpoch ?? -1, 12);
  b.writeInt8(o.magic ?? 2, 16);
  b.writeInt16BE(o.attributes ?? 0, 21);
  b.writeInt32BE(o.lastOffsetDelta ?? 2, 23);
  b.writeBigInt64BE(o.baseTimestamp ?? 1_700_000_000_000n, 27);
  b.writeBigInt64BE(o.maxTimestamp ?? 1_700_000_000_500n, 35);
  b.writeBigInt64BE(o.producerId ?? -1n, 43);
  b.writeInt16BE(o.producerEpoch ?? -1, 51);
  b.writeInt32BE(o.baseSequence ?? -1, 53);
  b.writeInt32BE(o.recordsCount ?? 3, 57);
  Buffer.from(body).copy(b, 61);
  b.writeUInt32BE(crc32c(b, 21, b.length), 17);
  return b;
}

describe('protocol/batch-header', () => {
  it('names Kafka\'s field offsets', () => {
    expect([
      BASE_OFFSET_OFFSET, BATCH_LENGTH_OFFSET, PARTITION_LEADER_EPOCH_OFFSET, MAGIC_OFFSET, CRC_OFFSET,
      ATTRIBUTES_OFFSET, LAST_OFFSET_DELTA_OFFSET, BASE_TIMESTAMP_OFFSET, MAX_TIMESTAMP_OFFSET,
      PRODUCER_ID_OFFSET, PRODUCER_EPOCH_OFFSET, BASE_SEQUENCE_OFFSET, RECORDS_COUNT_OFFSET,
    ]).to.deep.equal([0, 8, 12, 16, 17, 21, 23, 27, 35, 43, 51, 53, 57]);
    expect(RECORD_BATCH_OVERHEAD).to.equal(61);
    expect(LOG_OVERHEAD).to.equal(12);
  });

  it("reads Kafka's delete horizon (attribute bit 6) as the base timestamp, and none without the bit", () => {
    expect(DELETE_HORIZON_FLAG_MASK).to.equal(0x40);
    const flagged = rawBatch({ attributes: 0x40 | 0x08 | 0x03, baseTimestamp: 1_800_000_000_000n });
    expect(deleteHorizonOf(flagged, 0)).to.equal(1_800_000_000_000);
    expect(deleteHorizonOf(Buffer.concat([Buffer.alloc(5), flagged]), 5)).to.equal(1_800_000_000_000);
    expect(deleteHorizonOf(rawBatch({ attributes: 0x3f, baseTimestamp: 1_800_000_000_000n }), 0)).to.equal(null);
    expect(deleteHorizonFrom(0x40, 0)).to.equal(0);
    expect(deleteHorizonFrom(0x20, 5)).to.equal(null);
  });

  it('reads every header field at a position', () => {
    const batch = rawBatch({
      baseOffset: 123_456_789_012,
      partitionLeaderEpoch: 7,
      attributes: 0x19,
      lastOffsetDelta: 4,
      baseTimestamp: 1_600_000_000_000n,
      maxTimestamp: 1_600_000_009_999n,
      producerId: 9_007_199_254_740_991n,
      producerEpoch: 3,
      baseSequence: 42,
      recordsCount: 5,
    });
    const buf = Buffer.concat([Buffer.alloc(5, 0xee), batch]);
    const h = readBatchHeader(buf, 5);
    expect(h).to.deep.equal({
      baseOffset: 123_456_789_012,
      batchLength: batch.length - 12,
      partitionLeaderEpoch: 7,
      magic: 2,
      crc: batch.readUInt32BE(17),
      attributes: 0x19,
      lastOffsetDelta: 4,
      baseTimestamp: 1_600_000_000_000,
      maxTimestamp: 1_600_000_009_999,
      producerId: 9_007_199_254_740_991,
      producerEpoch: 3,
      baseSequence: 42,
      recordsCount: 5,
    });
    expect(batchSizeAt(buf, 5)).to.equal(batch.length);
    expect(baseOffsetOf(buf, 5)).to.equal(123_456_789_012);
    expect(lastOffsetOf(buf, 5)).to.equal(123_456_789_016);
    expect(nextOffsetOf(buf, 5)).to.equal(123_456_789_017);
    expect(maxTimestampOf(buf, 5)).to.equal(1_600_000_009_999);
    expect(recordsCountOf(buf, 5)).to.equal(5);
    expect(partitionLeaderEpochOf(buf, 5)).to.equal(7);
    expect(storedCrcOf(buf, 5)).to.equal(computeBatchCrc(buf, 5));
  });

  it('reads negative int64 sentinels and round-trips safe int64s', () => {
    const b = rawBatch({ producerId: -1n, baseTimestamp: -1n });
    const h = readBatchHeader(b, 0);
    expect(h.producerId).to.equal(-1);
    expect(h.baseTimestamp).to.equal(-1);
    fc.assert(
      fc.property(fc.maxSafeInteger(), (v) => {
        const buf = Buffer.alloc(8);
        writeInt64BE(buf, 0, v);
        expect(buf.readBigInt64BE(0)).to.equal(BigInt(v));
        expect(readInt64BE(buf, 0)).to.equal(v);
      }),
    );
  });

  it('stamps baseOffset and leader epoch without invalidating the CRC or touching other bytes', () => {
    const batch = rawBatch({ baseOffset: 0, partitionLeaderEpoch: -1 });
    const before = Buffer.from(batch);
    expect(validateBatch(batch, 0)).to.equal(null);
    setBaseOffset(batch, 0, 2 ** 40 + 17);
    setPartitionLeaderEpoch(batch, 0, 12);
    expect(batch.readBigInt64BE(0)).to.equal(2n ** 40n + 17n);
    expect(batch.readInt32BE(12)).to.equal(12);
    expect(batch.subarray(16).equals(before.subarray(16))).to.equal(true);
    expect(batch.subarray(8, 12).equals(before.subarray(8, 12))).to.equal(true);
    expect(validateBatch(batch, 0)).to.equal(null);
    expect(readBatchHeader(batch, 0).baseOffset).to.equal(2 ** 40 + 17);
    expect(lastOffsetOf(batch, 0)).to.equal(2 ** 40 + 17 + 2);
  });

  it('rejects out-of-range stamps', () => {
    const batch = rawBatch();
    expect(() => setBaseOffset(batch, 0, -1)).to.throw(RangeError);
    expect(() => setBaseOffset(batch, 0, 2 ** 53)).to.throw(RangeError);
    expect(() => setBaseOffset(batch, 0, 1.5)).to.throw(RangeError);
    expect(() => setPartitionLeaderEpoch(batch, 0, -2)).to.throw(RangeError);
    expect(() => setPartitionLeaderEpoch(batch, 0, 2 ** 31)).to.throw(RangeError);
  });

  it('stamps an idempotent producer\'s id, epoch and base sequence with a valid CRC', () => {
    const batch = rawBatch();
    setProducerState(batch, 0, 2 ** 33 + 5, 3, 2_000_000_000);
    const h = readBatchHeader(batch, 0);
    expect([h.producerId, h.producerEpoch, h.baseSequence]).to.deep.equal([2 ** 33 + 5, 3, 2_000_000_000]);
    expect(validateBatch(batch, 0)).to.equal(null);
    expect(() => setProducerState(batch, 0, 1, 0x8000, 0)).to.throw(RangeError);
    expect(() => setProducerState(batch, 0, 1, 0, 2 ** 31)).to.throw(RangeError);
    expect(() => setProducerState(batch, 0, -2, 0, 0)).to.throw(RangeError);
  });

  it('recomputes the CRC with writeBatchCrc after a covered field changes', () => {
    const batch = rawBatch();
    batch.writeInt32BE(77, BASE_SEQUENCE_OFFSET);
    expect(validateBatch(batch, 0)?.reason).to.match(/CRC mismatch/);
    writeBatchCrc(batch, 0);
    expect(validateBatch(batch, 0)).to.equal(null);
  });

  it('skips only the CRC when asked (check.crcs=false): the other checks still run', () => {
    const batch = rawBatch();
    batch.writeInt32BE(77, BASE_SEQUENCE_OFFSET);
    expect(validateBatch(batch, 0, undefined, false)).to.equal(null);
    expect(validateBatch(batch, 0, undefined, true)?.reason).to.match(/CRC mismatch/);
    batch.writeInt8(1, MAGIC_OFFSET);
    expect(validateBatch(batch, 0, undefined, false)?.reason).to.match(/magic 1/);
  });

  describe('validateBatch', () => {
    const expectCorrupt = (v: ReturnType<typeof validateBatch>, re: RegExp, torn: boolean) => {
      expect(v).to.not.equal(null);
      expect(v!.errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
      expect(v!.reason).to.match(re);
      expect(v!.torn).to.equal(torn);
    };

    it('accepts a sound batch, also with trailing bytes and at an offset', () => {
      const b = rawBatch();
      expect(validateBatch(b, 0, b.length)).to.equal(null);
      const padded = Buffer.concat([Buffer.alloc(3), b, Buffer.alloc(10)]);
      expect(validateBatch(padded, 3)).to.equal(null);
      expect(validateBatch(padded, 3, b.length)).to.equal(null);
      expect(validateBatch(rawBatch({ body: new Uint8Array(0), recordsCount: 0, lastOffsetDelta: 0 }), 0)).to.equal(null);
    });

    it('reports fewer than 61 bytes as torn', () => {
      const b = rawBatch();
      expectCorrupt(validateBatch(b.subarray(0, 60), 0), /needs 61 bytes, only 60/, true);
      expectCorrupt(validateBatch(b, 0, 30), /only 30/, true);
      expectCorrupt(validateBatch(b, b.length - 5), /only 5/, true);
    });

    it('reports a batch running past the available bytes as torn', () => {
      const b = rawBatch();
      expectCorrupt(validateBatch(b, 0, b.length - 1), /runs past/, true);
      expectCorrupt(validateBatch(b.subarray(0, b.length - 1), 0), /runs past/, true);
    });

    it('reports a batchLength below 49', () => {
      const b = rawBatch();
      b.writeInt32BE(48, BATCH_LENGTH_OFFSET);
      expectCorrupt(validateBatch(b, 0), /batchLength 48/, false);
      b.writeInt32BE(-5, BATCH_LENGTH_OFFSET);
      expectCorrupt(validateBatch(b, 0), /batchLength -5/, false);
    });

    it('reports a magic other than 2', () => {
      const b = rawBatch({ magic: 1 });
      expectCorrupt(validateBatch(b, 0), /magic 1/, false);
    });

    it('reports a CRC mismatch for any flipped bit in attributes..end', () => {
      const b = rawBatch();
      fc.assert(
        fc.property(fc.integer({ min: ATTRIBUTES_OFFSET, max: b.length - 1 }), fc.integer({ min: 0, max: 7 }), (at, bit) => {
          const c = Buffer.from(b);
          c[at]! ^= 1 << bit;
          const v = validateBatch(c, 0);
          expect(v).to.not.equal(null);
          expect(v!.errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
        }),
        { numRuns: 100 },
      );
      const c = Buffer.from(b);
      c[b.length - 1]! ^= 0x80;
      expectCorrupt(validateBatch(c, 0), /CRC mismatch/, false);
      c[b.length - 1]! ^= 0x80;
      c[CRC_OFFSET]! ^= 1;
      expectCorrupt(validateBatch(c, 0), /CRC mismatch/, false);
    });

    it('reports a negative record count and an inconsistent lastOffsetDelta', () => {
      expectCorrupt(validateBatch(rawBatch({ recordsCount: -1 }), 0), /negative records count/, false);
      expectCorrupt(validateBatch(rawBatch({ recordsCount: 5, lastOffsetDelta: 3 }), 0), /lastOffsetDelta 3/, false);
      expectCorrupt(validateBatch(rawBatch({ recordsCount: 0, lastOffsetDelta: -1 }), 0), /lastOffsetDelta -1/, false);
      // A compacted batch keeps its original lastOffsetDelta with fewer records: valid.
      expect(validateBatch(rawBatch({ recordsCount: 2, lastOffsetDelta: 9 }), 0)).to.equal(null);
    });
  });

  describe('iterateBatches', () => {
    const three = [
      rawBatch({ baseOffset: 0, body: Buffer.from('a') }),
      rawBatch({ baseOffset: 3, body: Buffer.from('bbbbbbbbbbbb') }),
      rawBatch({ baseOffset: 6, body: Buffer.alloc(300, 1) }),
    ];
    const log = Buffer.concat(three);

    it('yields the position and size of each complete batch', () => {
      const frames = [...iterateBatches(log)];
      expect(frames).to.deep.equal([
        { pos: 0, size: three[0]!.length },
        { pos: three[0]!.length, size: three[1]!.length },
        { pos: three[0]!.length + three[1]!.length, size: three[2]!.length },
      ]);
      expect(frames.map((f) => baseOffsetOf(log, f.pos))).to.deep.equal([0, 3, 6]);
    });

    it('respects start and end and returns where it stopped', () => {
      const a = three[0]!.length;
      const b = three[1]!.length;
      const it1 = iterateBatches(log, a, a + b);
      expect(it1.next()).to.deep.equal({ value: { pos: a, size: b }, done: false });
      expect(it1.next()).to.deep.equal({ value: a + b, done: true });
    });

    it('stops cleanly at a torn tail of any length', () => {
      const total = log.length;
      const ends = [0, 1, 30, 61, three[0]!.length - 1, three[0]!.length, three[0]!.length + 70, total - 1, total];
      for (const end of ends) {
        const gen = iterateBatches(log.subarray(0, end));
        const frames: number[] = [];
        let r = gen.next();
        while (!r.done) {
          frames.push(r.value.pos + r.value.size);
          r = gen.next();
        }
        for (const f of frames) expect(f).to.be.at.most(end);
        const stop = r.value;
        expect(stop).to.equal(frames.length === 0 ? 0 : frames[frames.length - 1]);
        expect(end - stop).to.be.lessThan(three[frames.length]?.length ?? 1);
        if (end !== stop) expect(validateBatch(log.subarray(0, end), stop)?.torn).to.equal(true);
      }
    });

    it('stops at an impossible batchLength instead of looping', () => {
      const bad = Buffer.from(log);
      bad.writeInt32BE(0, three[0]!.length + BATCH_LENGTH_OFFSET);
      const frames = [...iterateBatches(bad)];
      expect(frames).to.have.length(1);
      expect(validateBatch(bad, three[0]!.length)?.torn).to.equal(false);
    });
  });
});
