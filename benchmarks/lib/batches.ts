/**
 * Record batches for benchmarks that drive the log or a broker directly: `count` distinct
 * RecordBatch v2 buffers of `recordsPerBatch` records of `recordSize` bytes each (values differ
 * from batch to batch so nothing is trivially equal).
 */
import { encodeRecordBatch } from '../../src/protocol/record-batch.js';

export function distinctBatches(count: number, recordsPerBatch: number, recordSize: number): Buffer[] {
  const batches: Buffer[] = [];
  for (let b = 0; b < count; b++) {
    const records = [];
    for (let r = 0; r < recordsPerBatch; r++) {
      const value = Buffer.alloc(recordSize);
      for (let i = 0; i < recordSize; i++) value[i] = (b * 131 + r * 17 + i) & 0xff;
      records.push({ value, timestamp: 1_700_000_000_000 + b });
    }
    batches.push(encodeRecordBatch({ records }));
  }
  return batches;
}
