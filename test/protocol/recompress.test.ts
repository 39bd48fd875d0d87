/** Tests for a topic's compression.type applied to produced batches (recompress.ts). */
import { expect } from 'chai';
import fc from 'fast-check';
import { ATTRIBUTES_OFFSET, RECORD_BATCH_OVERHEAD, TimestampType, deleteHorizonOf, writeBatchCrc } from '../../src/protocol/batch-header.js';
import { CompressionType, UnsupportedCompressionError } from '../../src/protocol/compression.js';
import { recompressBatches, topicCodec } from '../../src/protocol/recompress.js';
import { CorruptRecordError, decodeRecordBatch, decodeRecordBatches, encodeRecordBatch, type RecordBatchInput } from '../../src/protocol/record-batch.js';

const enc = (s: string) => Buffer.from(s);

function input(codec: string, over: Partial<RecordBatchInput> = {}): RecordBatchInput {
  return {
    compression: codec,
    producerId: 42,
    producerEpoch: 3,
    baseSequence: 100,
    partitionLeaderEpoch: 5,
    records: [
      { key: enc('k1'), value: enc('one '.repeat(30)), headers: [{ key: 'h', value: enc('x') }], timestamp: 1_000, offsetDelta: 0 },
      { key: null, value: null, timestamp: 990, offsetDelta: 1 },
      { key: enc('k3'), value: enc('three '.repeat(30)), headers: [{ key: 'h2', value: null }], timestamp: 1_500, offsetDelta: 2 },
    ],
    ...over,
  };
}

/** Everything but the codec, the CRC and the batch length: what a rewrite must keep. */
function kept(buf: Buffer) {
  const b = decodeRecordBatch(buf);
  return {
    baseOffset: b.baseOffset,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    lastOffsetDelta: b.lastOffsetDelta,
    baseTimestamp: b.baseTimestamp,
    maxTimestamp: b.maxTimestamp,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    recordsCount: b.recordsCount,
    timestampType: b.timestampType,
    transactional: b.transactional,
    control: b.control,
    records: b.records.map((r) => ({ offset: r.offset, timestamp: r.timestamp, key: r.key && String(r.key), value: r.value && String(r.value), headers: r.headers.map((h) => [h.key, h.value && String(h.value)]) })),
  };
}

describe('protocol/recompress', () => {
  it("maps compression.type to a codec: producer (or unset) keeps the producer's, uncompressed is none", () => {
    expect([undefined, null, 'producer', 'Producer'].map(topicCodec)).to.deep.equal([-1, -1, -1, -1]);
    expect(['uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'].map(topicCodec)).to.deep.equal([0, 1, 2, 3, 4]);
    expect(() => topicCodec('brotli')).to.throw(UnsupportedCompressionError, /unknown compression codec name 'brotli'/);
  });

  it('returns the very same input when the topic keeps the producer codec or every batch already has the topic codec', () => {
    const lz4 = encodeRecordBatch(input('lz4'));
    expect(recompressBatches(lz4, -1)).to.equal(lz4);
    expect(recompressBatches(lz4, CompressionType.LZ4)).to.equal(lz4);
    const list = [lz4, encodeRecordBatch(input('lz4'))];
    expect(recompressBatches(list, CompressionType.LZ4)).to.equal(list);
  });

  for (const [from, to] of [['none', 'lz4'], ['gzip', 'snappy'], ['lz4', 'none'], ['snappy', 'gzip'], ['gzip', 'zstd'], ['zstd', 'lz4']] as const) {
    it(`rewrites a ${from} batch as ${to}, keeping producer state, timestamps, offsets and every record`, () => {
      const before = encodeRecordBatch(input(from));
      const after = recompressBatches(before, topicCodec(to === 'none' ? 'uncompressed' : to)) as Buffer;
      expect(after).to.not.equal(before);
      expect(after.readInt16BE(ATTRIBUTES_OFFSET) & 7).to.equal(topicCodec(to === 'none' ? 'uncompressed' : to));
      expect(kept(after)).to.deep.equal(kept(before));
    });
  }

  it('keeps the transactional and LogAppendTime attributes', () => {
    const before = encodeRecordBatch(input('gzip', { transactional: true, timestampType: TimestampType.LOG_APPEND_TIME, maxTimestamp: 5_000 }));
    const after = recompressBatches(before, CompressionType.LZ4) as Buffer;
    expect(kept(after)).to.deep.equal(kept(before));
    expect(after.readInt16BE(ATTRIBUTES_OFFSET)).to.equal((before.readInt16BE(ATTRIBUTES_OFFSET) & ~7) | CompressionType.LZ4);
  });

  it('keeps a delete horizon (KIP-534): the flag, the horizon in the base timestamp, and every record timestamp', () => {
    const before = encodeRecordBatch(input('gzip', { deleteHorizonMs: 9_000_000 }));
    const after = recompressBatches(before, CompressionType.LZ4) as Buffer;
    expect(kept(after)).to.deep.equal(kept(before));
    expect(deleteHorizonOf(after, 0)).to.equal(9_000_000);
    expect(after.readInt16BE(ATTRIBUTES_OFFSET)).to.equal((before.readInt16BE(ATTRIBUTES_OFFSET) & ~7) | CompressionType.LZ4);
  });

  it('rewrites only the batches that need it, in place in their buffer, and across a list of buffers', () => {
    const a = encodeRecordBatch(input('lz4', { baseSequence: 1 }));
    const b = encodeRecordBatch(input('none', { baseSequence: 2 }));
    const c = encodeRecordBatch(input('lz4', { baseSequence: 3 }));
    const one = recompressBatches(Buffer.concat([a, b, c]), CompressionType.LZ4) as Buffer;
    const batches = decodeRecordBatches(one);
    expect(batches.map((x) => [x.baseSequence, x.compression])).to.deep.equal([[1, 3], [2, 3], [3, 3]]);
    expect(one.subarray(0, a.length).equals(a)).to.equal(true);
    expect(one.subarray(one.length - c.length).equals(c)).to.equal(true);
    const list = [a, b, c];
    const out = recompressBatches(list, CompressionType.LZ4) as Buffer[];
    expect(out).to.not.equal(list);
    expect(out[0]).to.equal(a);
    expect(out[2]).to.equal(c);
    expect(kept(out[1]!)).to.deep.equal(kept(b));
  });

  it('round-trips random batches through every pair of codecs with the same records', () => {
    const codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...codecs),
        fc.constantFrom(...codecs),
        fc.array(fc.record({ key: fc.option(fc.uint8Array({ maxLength: 20 })), value: fc.option(fc.uint8Array({ maxLength: 300 })), timestamp: fc.integer({ min: 0, max: 2 ** 40 }) }), { minLength: 1, maxLength: 20 }),
        (from, to, records) => {
          const before = encodeRecordBatch({ compression: from, records: records.map((r) => ({ key: r.key && Buffer.from(r.key), value: r.value && Buffer.from(r.value), timestamp: r.timestamp })) });
          const after = recompressBatches(before, to === 'none' ? 0 : topicCodec(to)) as Buffer;
          expect(kept(after)).to.deep.equal(kept(before));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('leaves a damaged batch for the log to refuse, and throws when the records under a valid CRC cannot be read', () => {
    const bad = Buffer.from(encodeRecordBatch(input('none')));
    bad[bad.length - 1]! ^= 0xff; // the CRC no longer matches
    expect(recompressBatches(bad, CompressionType.LZ4)).to.equal(bad);
    const gz = encodeRecordBatch(input('gzip'));
    const broken = Buffer.concat([gz.subarray(0, RECORD_BATCH_OVERHEAD), Buffer.from('not gzip at all')]);
    broken.writeInt32BE(broken.length - 12, 8);
    writeBatchCrc(broken, 0);
    expect(() => recompressBatches(broken, CompressionType.LZ4)).to.throw(CorruptRecordError, /gzip decompression failed/);
  });

  it('names a codec the build lacks, on either side', () => {
    const unknown = Buffer.from(encodeRecordBatch(input('none')));
    unknown.writeInt16BE(5, ATTRIBUTES_OFFSET);
    writeBatchCrc(unknown, 0);
    expect(() => recompressBatches(unknown, CompressionType.LZ4)).to.throw(UnsupportedCompressionError, /compression codec id 5 is unknown/);
    expect(() => recompressBatches(encodeRecordBatch(input('lz4')), 6)).to.throw(UnsupportedCompressionError, /compression codec id 6 is unknown/);
  });

});
