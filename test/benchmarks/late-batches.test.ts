/**
 * perf-e2e's account of its slowest records: grouped into the batches they were sent in, alone
 * or in runs, and by whether their sends were acknowledged as late as they were delivered.
 */
import { expect } from 'chai';
import { E2eTrace, formatLateBatches } from '../../benchmarks/lib/late-batches.js';

/** A batch of `n` records of `partition` sent from `at`, 0.01 ms apart, each `latency` late; its send() calls (5 records each) acknowledged in `ack`. */
function sendBatch(trace: E2eTrace, at: number, partition: number, n: number, latency: number, ack: number): void {
  for (let i = 0; i < n; i++) trace.record(at + i * 0.01, latency, partition);
  for (let i = 0; i < n; i += 5) trace.ack(at + (i + 4) * 0.01 + 0.001, ack);
}

describe('benchmarks/lib/late-batches', () => {
  it('groups late records into batches of one partition and tells those late alone from runs of late batches', () => {
    const trace = new E2eTrace();
    // a batch every 1.4 ms, partitions in turn; batch 3 late alone, batches 6-8 late together
    for (let k = 0; k < 12; k++) {
      const late = k === 3 || (k >= 6 && k <= 8);
      sendBatch(trace, k * 1.4, k % 6, 10, late ? 4 : 0.5, late ? 3.8 : 0.4);
    }
    const l = trace.lateBatches(3);
    expect(l).to.include({ thresholdMs: 3, lateRecords: 40, batches: 4, alone: 1, medianLatencyMs: 4, medianAckMs: 3.8 });
    expect(l.medianAckAllMs).to.equal(0.4);
    const line = formatLateBatches(l);
    expect(line).to.contain('came in 4 batches of one partition each: 1 alone').and.contain('3 in runs of late batches');
    expect(line).to.contain("held up at or before the broker's append (the produce side)");
  });

  it('records sent in one burst to one partition are one batch; a gap or another partition starts the next', () => {
    const trace = new E2eTrace();
    sendBatch(trace, 0, 0, 10, 5, 0.3);
    sendBatch(trace, 0.7, 0, 10, 5, 0.3); // same partition, but 0.61 ms after the last record: a new batch
    sendBatch(trace, 0.9, 1, 10, 0.2, 0.3);
    const l = trace.lateBatches(3);
    expect(l.batches).to.equal(2);
    expect(l.alone).to.equal(0);
    // acknowledged on time, delivered late: after the append
    expect(formatLateBatches(l)).to.contain('held up after the append (the fetch side)').and.contain('0.30 ms against 5.00 ms');
  });

  it("a batch's sends are those made before the next batch's first record", () => {
    const trace = new E2eTrace();
    sendBatch(trace, 0, 0, 10, 4, 0.2);
    sendBatch(trace, 0.3, 1, 10, 0.5, 9); // sent right after: its slow acknowledgement is not the first batch's
    expect(trace.lateBatches(3).medianAckMs).to.equal(0.2);
  });

  it('orders records by send time, whatever order they arrived in', () => {
    const trace = new E2eTrace();
    trace.record(2, 0.5, 0);
    trace.record(0, 4, 1);
    trace.record(1, 0.5, 0);
    trace.record(0.005, 4, 1);
    const l = trace.lateBatches(3);
    expect(l).to.include({ lateRecords: 2, batches: 1, alone: 1, medianAckMs: null, medianAckAllMs: null });
    expect(formatLateBatches(l)).to.match(/1 batch of one partition each: 1 alone \(the batches sent before and after on time\); median latency 4\.00 ms$/);
  });

  it('counts a record exactly at the threshold (the p99 sample itself) as late', () => {
    const trace = new E2eTrace();
    trace.record(0, 3.1, 0);
    trace.record(2, 3.0999, 1);
    expect(trace.lateBatches(3.1)).to.include({ lateRecords: 1, batches: 1 });
  });

  it('says so when no record reaches the threshold, and grows past its first arrays', () => {
    const trace = new E2eTrace();
    for (let i = 0; i < 5_000; i++) trace.record(i * 0.2, 1, i % 3);
    expect(trace.size).to.equal(5_000);
    const l = trace.lateBatches(2);
    expect(l).to.include({ lateRecords: 0, batches: 0, alone: 0 });
    expect(formatLateBatches(l)).to.equal('no record at or above 2.00 ms');
  });

  it('sized for a run up front, and still right past that size (it grows)', () => {
    const sized = new E2eTrace(120, 24);
    const small = new E2eTrace(1, 1);
    for (const trace of [sized, small]) {
      for (let k = 0; k < 12; k++) sendBatch(trace, k * 1.4, k % 6, 10, k === 3 ? 4 : 0.5, k === 3 ? 3.8 : 0.4);
    }
    expect(small.lateBatches(3)).to.deep.equal(sized.lateBatches(3));
    expect(sized.lateBatches(3)).to.include({ lateRecords: 10, batches: 1, alone: 1, medianAckMs: 3.8 });
  });
});
