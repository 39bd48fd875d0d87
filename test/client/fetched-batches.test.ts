/**
 * A consumer's fetched bytes with transactions in them (src/client/fetched-batches.ts), on
 * hand-built logs: transactional batches and COMMIT/ABORT markers placed at their offsets.
 * `take` below hands the buffered records out as the consumer actor's takeRecords does.
 */
import { expect } from 'chai';
import {
  MAX_PASSED_RANGES,
  abortedTransactionsOf,
  acceptFetched,
  endOffsetFor,
  passOver,
  settle,
  type AbortedTransaction,
  type FetchedPartition,
  type IsolationLevel,
} from '../../src/client/fetched-batches.js';
import { setBaseOffset } from '../../src/protocol/batch-header.js';
import { ControlType, encodeTxnMarker } from '../../src/protocol/control-records.js';
import { decodeRecordBatch, encodeRecordBatch, type DecodedRecord } from '../../src/protocol/record-batch.js';

const at = (batch: Buffer, offset: number): Buffer => {
  setBaseOffset(batch, 0, offset);
  return batch;
};
/** Records written outside any transaction, at `offset` on. */
const plain = (offset: number, ...values: string[]) => at(encodeRecordBatch({ records: values.map((v) => ({ value: Buffer.from(v), timestamp: 1 })) }), offset);
/** A transactional producer's batch at `offset` on. */
const txn = (offset: number, producerId: number, ...values: string[]) =>
  at(encodeRecordBatch({ transactional: true, producerId, producerEpoch: 0, baseSequence: offset, records: values.map((v) => ({ value: Buffer.from(v), timestamp: 1 })) }), offset);
const marker = (offset: number, producerId: number, commit: boolean) =>
  at(encodeTxnMarker({ producerId, producerEpoch: 0, type: commit ? ControlType.COMMIT : ControlType.ABORT, coordinatorEpoch: 0, timestamp: 1 }), offset);
const commitAt = (offset: number, producerId: number) => marker(offset, producerId, true);
const abortAt = (offset: number, producerId: number) => marker(offset, producerId, false);

function partition(position = 0): FetchedPartition<DecodedRecord> {
  return { position, fetchPosition: position, buffer: [], bufferedBytes: 0, passed: null };
}

/** Takes a fetch's batches; returns how many records it buffered. */
function fetch(p: FetchedPartition<DecodedRecord>, level: IsolationLevel, batches: Buffer[], aborted?: AbortedTransaction[]): number {
  return acceptFetched(p, Buffer.concat(batches), abortedTransactionsOf(level, aborted));
}

/** Hands out every buffered record (values), moving the position as the consumer does. */
function take(p: FetchedPartition<DecodedRecord>): string[] {
  const records = p.buffer.flatMap((b) => decodeRecordBatch(b.bytes).records.filter((r) => r.offset >= b.minOffset));
  p.buffer = [];
  p.bufferedBytes = 0;
  if (records.length > 0) p.position = passOver(p, records[records.length - 1]!.offset + 1);
  return records.map((r) => String(r.value));
}

describe('client/fetched-batches', () => {
  it('a committed transaction is visible at either level; its marker is not', () => {
    const log = [plain(0, 'p0', 'p1'), txn(2, 7, 't2', 't3'), commitAt(4, 7), plain(5, 'p5')];
    for (const level of ['read_committed', 'read_uncommitted'] as const) {
      const p = partition();
      fetch(p, level, log);
      expect(take(p), level).to.deep.equal(['p0', 'p1', 't2', 't3', 'p5']);
      expect(p.fetchPosition).to.equal(6);
      expect(p.position).to.equal(6);
    }
  });

  it('an aborted transaction is dropped under read_committed and read under read_uncommitted', () => {
    const log = [plain(0, 'p0'), txn(1, 7, 'a1', 'a2'), txn(3, 7, 'a3'), abortAt(4, 7), plain(5, 'p5')];
    const aborted = [{ producerId: 7, firstOffset: 1 }];
    const committed = partition();
    // the records buffered for the application, counted from the batch headers
    expect(fetch(committed, 'read_committed', log, aborted)).to.equal(2);
    expect(take(committed)).to.deep.equal(['p0', 'p5']);
    expect(committed.fetchPosition).to.equal(6);
    expect(committed.position).to.equal(6);
    const uncommitted = partition();
    // a broker answers read_uncommitted without the list; with it, it is not looked at
    expect(fetch(uncommitted, 'read_uncommitted', log, aborted)).to.equal(5);
    expect(take(uncommitted)).to.deep.equal(['p0', 'a1', 'a2', 'a3', 'p5']);
    // a fetch of what was taken already buffers nothing
    expect(fetch(uncommitted, 'read_uncommitted', log, aborted)).to.equal(0);
  });

  it('interleaved producers in one fetch: the aborted one is dropped, the committed one kept', () => {
    const log = [txn(0, 1, 'x0', 'x1'), txn(2, 2, 'y2'), txn(3, 1, 'x3'), txn(4, 2, 'y4', 'y5'), abortAt(6, 1), plain(7, 'p7'), txn(8, 2, 'y8'), commitAt(9, 2)];
    const p = partition();
    fetch(p, 'read_committed', log, [{ producerId: 1, firstOffset: 0 }]);
    expect(take(p)).to.deep.equal(['y2', 'y4', 'y5', 'p7', 'y8']);
    expect(p.position).to.equal(10);
  });

  it("an ABORT marker ends its producer's aborted transaction: the same producer's next one is read", () => {
    const log = [txn(0, 1, 'a0'), abortAt(1, 1), txn(2, 1, 'c2', 'c3'), commitAt(4, 1), txn(5, 1, 'a5'), abortAt(6, 1)];
    const p = partition();
    // unordered, as a list may come: the queue is ordered by first offset
    fetch(p, 'read_committed', log, [
      { producerId: 1, firstOffset: 5 },
      { producerId: 1, firstOffset: 0 },
    ]);
    expect(take(p)).to.deep.equal(['c2', 'c3']);
    expect(p.position).to.equal(7);
  });

  it('an aborted transaction counts only from its first offset: the producer\'s committed one before it stays', () => {
    const log = [txn(0, 3, 'c0', 'c1'), commitAt(2, 3), txn(3, 3, 'a3', 'a4'), abortAt(5, 3)];
    const p = partition();
    fetch(p, 'read_committed', log, [{ producerId: 3, firstOffset: 3 }]);
    expect(take(p)).to.deep.equal(['c0', 'c1']);
    expect(p.position).to.equal(6);
  });

  it('records outside transactions of a producer id (idempotent) are never dropped', () => {
    const idempotent = at(encodeRecordBatch({ producerId: 4, producerEpoch: 0, baseSequence: 0, records: [{ value: Buffer.from('i0'), timestamp: 1 }] }), 0);
    const p = partition();
    fetch(p, 'read_committed', [idempotent, txn(1, 4, 'a1'), abortAt(2, 4)], [{ producerId: 4, firstOffset: 0 }]);
    expect(take(p)).to.deep.equal(['i0']);
  });

  it('a fetch that holds only a marker moves the fetch position and the position past it', () => {
    const p = partition();
    fetch(p, 'read_uncommitted', [txn(0, 5, 't0', 't1')]);
    expect(take(p)).to.deep.equal(['t0', 't1']);
    expect(p.position).to.equal(2);
    fetch(p, 'read_uncommitted', [commitAt(2, 5)]);
    expect(p.buffer).to.have.length(0);
    expect(p.fetchPosition, 'the next fetch starts after the marker').to.equal(3);
    expect(p.position).to.equal(3);
    // the application reports 2 (after t1) as processed: that is past the marker too
    expect(settle(p, 2)).to.equal(3);
    expect(p.passed, 'a range behind the processed offset is forgotten').to.equal(null);
  });

  it('a marker behind records not handed out yet waits for them: the position passes it once they are taken', () => {
    const p = partition();
    fetch(p, 'read_committed', [txn(0, 5, 't0'), commitAt(1, 5)]);
    expect(p.position).to.equal(0);
    expect(passOver(p, 0)).to.equal(0);
    expect(take(p)).to.deep.equal(['t0']);
    expect(p.position).to.equal(2);
  });

  it('a fetch of an aborted transaction and its marker alone moves the position past both', () => {
    const p = partition(10);
    fetch(p, 'read_committed', [txn(10, 8, 'a10', 'a11'), abortAt(12, 8)], [{ producerId: 8, firstOffset: 10 }]);
    expect(p.buffer).to.have.length(0);
    expect(p.passed).to.deep.equal([{ from: 10, to: 13 }]);
    expect(p.position).to.equal(13);
    expect(p.fetchPosition).to.equal(13);
  });

  it('never hands a marker out, at either level, whatever the fetch starts with', () => {
    for (const level of ['read_committed', 'read_uncommitted'] as const) {
      const p = partition(1);
      fetch(p, level, [commitAt(0, 1), commitAt(1, 2), abortAt(2, 3), plain(3, 'p3'), commitAt(4, 4)]);
      const records = p.buffer.flatMap((b) => decodeRecordBatch(b.bytes).records);
      expect(records.map((r) => String(r.value)), level).to.deep.equal(['p3']);
      expect(p.position, 'past the markers before p3').to.equal(3);
      expect(take(p)).to.deep.equal(['p3']);
      expect(p.position, 'and past the one after it').to.equal(5);
    }
  });

  it('batches already read (before the fetch position) are neither buffered nor passed over again', () => {
    const p = partition(3);
    fetch(p, 'read_committed', [txn(0, 1, 'x0'), commitAt(1, 1), plain(2, 'p2'), plain(3, 'p3')]);
    expect(take(p)).to.deep.equal(['p3']);
    expect(p.passed).to.equal(null);
  });

  it('a fetch without transactions builds nothing: no aborted-transaction bookkeeping, no ranges', () => {
    expect(abortedTransactionsOf('read_committed', undefined)).to.equal(null);
    expect(abortedTransactionsOf('read_committed', [])).to.equal(null);
    expect(abortedTransactionsOf('read_uncommitted', [{ producerId: 1, firstOffset: 0 }])).to.equal(null);
    const p = partition();
    fetch(p, 'read_committed', [plain(0, 'a', 'b'), plain(2, 'c')]);
    expect(p.passed).to.equal(null);
    expect(settle(p, 2)).to.equal(2);
    expect(take(p)).to.deep.equal(['a', 'b', 'c']);
  });

  it('touching ranges join; ranges are bounded; settle forgets those behind it', () => {
    const p = partition();
    fetch(p, 'read_uncommitted', [plain(0, 'p0'), commitAt(1, 1), commitAt(2, 2), plain(3, 'p3'), commitAt(4, 1)]);
    expect(p.passed).to.deep.equal([
      { from: 1, to: 3 },
      { from: 4, to: 5 },
    ]);
    expect(settle(p, 1)).to.equal(3);
    expect(p.passed).to.deep.equal([{ from: 4, to: 5 }]);
    expect(settle(p, 3), 'an offset inside no range stays').to.equal(3);

    const many = partition();
    fetch(
      many,
      'read_uncommitted',
      Array.from({ length: MAX_PASSED_RANGES + 10 }, (_, i) => [plain(2 * i, `p${i}`), commitAt(2 * i + 1, 1)]).flat(),
    );
    expect(many.passed).to.have.length(MAX_PASSED_RANGES);
    expect(many.passed![0]!.from).to.equal(2 * 10 + 1);
  });

  it("the partition's end: the high watermark, under read_committed the last stable offset when there is one", () => {
    expect(endOffsetFor('read_committed', { highWatermark: 9, lastStableOffset: 4 })).to.equal(4);
    expect(endOffsetFor('read_committed', { highWatermark: 9 })).to.equal(9);
    expect(endOffsetFor('read_uncommitted', { highWatermark: 9, lastStableOffset: 4 })).to.equal(9);
  });
});
