/**
 * The idempotent producer table: one test per legal and illegal transition of a producer's
 * (epoch, sequence) state.
 */
import { expect } from 'chai';
import { ErrorCode } from '../../src/protocol/errors.js';
import { BATCHES_TO_RETAIN, ProducerStateTable, lastSequence, nextSequence, type AppendedBatch } from '../../src/storage/producer-state.js';

let offset = 0;
function batch(producerId: number, producerEpoch: number, firstSeq: number, count: number, timestamp = 1_000): AppendedBatch {
  const b = { producerId, producerEpoch, firstSeq, lastSeq: lastSequence(firstSeq, count - 1), timestamp, firstOffset: offset, lastOffset: offset + count - 1 };
  offset += count;
  return b;
}

describe('storage/producer-state', () => {
  let t: ProducerStateTable;
  beforeEach(() => {
    t = new ProducerStateTable();
    offset = 0;
  });

  it('a new producer starts at sequence 0', () => {
    expect(t.check(batch(7, 0, 0, 3))).to.deep.equal({ kind: 'append' });
  });

  it('a new producer starting elsewhere is UNKNOWN_PRODUCER_ID', () => {
    const r = t.check(batch(7, 0, 5, 1));
    expect(r).to.include({ kind: 'error', errorCode: ErrorCode.UNKNOWN_PRODUCER_ID });
  });

  it('the next batch in sequence is appended', () => {
    t.record(batch(7, 0, 0, 3));
    expect(t.check(batch(7, 0, 3, 2))).to.deep.equal({ kind: 'append' });
  });

  it('a gap is OUT_OF_ORDER_SEQUENCE_NUMBER', () => {
    t.record(batch(7, 0, 0, 3));
    expect(t.check(batch(7, 0, 4, 1))).to.include({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });

  it('a retry of one of the last five batches is a duplicate answered with its first offsets', () => {
    const first = batch(7, 0, 0, 3);
    t.record(first);
    for (let s = 3; s < 3 + 4 * 2; s += 2) t.record(batch(7, 0, s, 2));
    expect(t.check({ ...first })).to.deep.equal({ kind: 'duplicate', firstOffset: first.firstOffset, lastOffset: first.lastOffset });
  });

  it('a retry older than the last five is out of order (its state is gone)', () => {
    const first = batch(7, 0, 0, 1);
    t.record(first);
    for (let s = 1; s <= BATCHES_TO_RETAIN; s++) t.record(batch(7, 0, s, 1));
    expect(t.check({ ...first })).to.include({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });

  it("the last timestamp is the last write's, batch or marker, even when older than one before (as Kafka)", () => {
    t.record(batch(7, 0, 0, 1, 5_000));
    t.record(batch(7, 0, 1, 1, 2_000));
    expect(t.activeProducers()[0]).to.include({ lastTimestamp: 2_000 });
    t.recordMarker(7, 0, 3, 9_000);
    expect(t.activeProducers()[0]).to.include({ lastTimestamp: 9_000, coordinatorEpoch: 3 });
    t.record(batch(7, 0, 2, 1, 4_000));
    expect(t.activeProducers()[0]).to.include({ lastTimestamp: 4_000 });
  });

  it('an older epoch is INVALID_PRODUCER_EPOCH (fenced)', () => {
    t.record(batch(7, 2, 0, 1));
    expect(t.check(batch(7, 1, 1, 1))).to.include({ kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
  });

  it('a newer epoch restarts at sequence 0', () => {
    t.record(batch(7, 0, 0, 5));
    expect(t.check(batch(7, 1, 0, 1))).to.deep.equal({ kind: 'append' });
    t.record(batch(7, 1, 0, 1));
    expect(t.describe(7)).to.deep.equal({ epoch: 1, lastSeq: 0, batches: 1 });
  });

  it('a newer epoch not starting at 0 is OUT_OF_ORDER_SEQUENCE_NUMBER', () => {
    t.record(batch(7, 0, 0, 5));
    expect(t.check(batch(7, 1, 5, 1))).to.include({ kind: 'error', errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });

  it('sequences wrap from 2^31-1 to 0', () => {
    expect(nextSequence(2147483647)).to.equal(0);
    expect(lastSequence(2147483646, 3)).to.equal(1);
    t.record({ producerId: 1, producerEpoch: 0, firstSeq: 2147483646, lastSeq: 2147483647, timestamp: 0, firstOffset: 0, lastOffset: 1 });
    expect(t.check({ producerId: 1, producerEpoch: 0, firstSeq: 0, lastSeq: 0, timestamp: 0 })).to.deep.equal({ kind: 'append' });
  });

  it('producers are independent', () => {
    t.record(batch(1, 0, 0, 2));
    expect(t.check(batch(2, 0, 0, 1))).to.deep.equal({ kind: 'append' });
    expect(t.check(batch(1, 0, 2, 1))).to.deep.equal({ kind: 'append' });
  });

  it('expires producers idle for producer.id.expiration.ms', () => {
    t.record(batch(1, 0, 0, 1, 1_000));
    t.record(batch(2, 0, 0, 1, 5_000));
    expect(t.expire(6_000, 4_000)).to.equal(1);
    expect(t.describe(1)).to.equal(undefined);
    expect(t.describe(2)).to.not.equal(undefined);
  });

  it('keeps a producer whose transaction is open however long it is idle', () => {
    t.record(batch(1, 0, 0, 1, 1_000));
    t.record(batch(2, 0, 0, 1, 1_000));
    expect(t.expire(6_000, 4_000, new Map([[1, 0]]))).to.equal(1);
    expect(t.describe(1)).to.not.equal(undefined);
    expect(t.describe(2)).to.equal(undefined);
  });

  it('a transaction marker for a producer id beyond 2^53 (one that cannot be written as sent) is INVALID_REQUEST, not written', () => {
    for (const id of [2 ** 63, -(2 ** 63), Number.MAX_SAFE_INTEGER + 1]) {
      expect(t.checkMarker(id, 0, 0), String(id)).to.include({ errorCode: ErrorCode.INVALID_REQUEST });
    }
    expect(t.checkMarker(Number.MAX_SAFE_INTEGER, 0, 0)).to.equal(null);
    expect(t.checkMarker(-1, 0, 0)).to.equal(null);
  });

  it('a marker at transaction version 2 must be above the epoch of an open transaction; with none open, one at the epoch is the marker already written', () => {
    t.record(batch(1, 4, 0, 1));
    // versions 0 and 1: at the producer's epoch, as always
    expect(t.checkMarker(1, 4, 0, 0, true)).to.equal(null);
    expect(t.checkMarker(1, 4, 0, 1, true)).to.equal(null);
    // version 2: the data's epoch is a late marker of the transaction before
    expect(t.checkMarker(1, 4, 0, 2, true)).to.include({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(t.checkMarker(1, 5, 0, 2, true)).to.equal(null);
    t.recordMarker(1, 5, 0, 2_000);
    expect(t.checkMarker(1, 5, 0, 2, false)).to.equal('duplicate');
    expect(t.checkMarker(1, 4, 0, 2, false)).to.include({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    // a producer this partition never saw: nothing to compare with
    expect(t.checkMarker(2, 0, 0, 2, false)).to.equal(null);
  });

  it('ignores a batch of an older epoch when rebuilding', () => {
    t.record(batch(1, 3, 0, 1));
    t.record(batch(1, 2, 7, 1));
    expect(t.describe(1)).to.deep.equal({ epoch: 3, lastSeq: 0, batches: 1 });
  });
});
