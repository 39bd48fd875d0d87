/** Tests for the record-level search of ListOffsets by time inside one batch, with every codec. */
import { expect } from 'chai';
import { TimestampType } from '../../src/protocol/batch-header.js';
import { encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { firstRecordAtOrAfter } from '../../src/storage/timestamp-lookup.js';

const batch = (compression: string, over: { timestampType?: 0 | 1; maxTimestamp?: number } = {}) =>
  encodeRecordBatch({
    baseOffset: 40,
    compression,
    records: [100, 200, 300, 300, 450].map((timestamp, i) => ({ value: Buffer.from(`record ${i} `.repeat(10)), timestamp })),
    ...over,
  });

describe('storage/timestamp-lookup', () => {
  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
    it(`finds the first record at or after the time inside a ${codec} batch`, () => {
      const b = batch(codec);
      expect(firstRecordAtOrAfter(b, 50)).to.deep.equal({ offset: 40, timestamp: 100 });
      expect(firstRecordAtOrAfter(b, 150)).to.deep.equal({ offset: 41, timestamp: 200 });
      expect(firstRecordAtOrAfter(b, 300)).to.deep.equal({ offset: 42, timestamp: 300 });
      expect(firstRecordAtOrAfter(b, 450)).to.deep.equal({ offset: 44, timestamp: 450 });
    });
  }

  it('answers a LogAppendTime batch with its base offset and max timestamp, without decoding', () => {
    expect(firstRecordAtOrAfter(batch('lz4', { timestampType: TimestampType.LOG_APPEND_TIME, maxTimestamp: 9_000 }), 150)).to.deep.equal({ offset: 40, timestamp: 9_000 });
  });

  it('falls back to the base offset and max timestamp when the batch cannot be decoded', () => {
    const b = Buffer.from(batch('zstd'));
    b.fill(0x55, 80, 100); // inside the zstd frame: the CRC no longer matches
    expect(firstRecordAtOrAfter(b, 150)).to.deep.equal({ offset: 40, timestamp: 450 });
  });
});
