/**
 * A partition leader's transaction verification guards (actors/partition-replica/txn-verification.ts,
 * KIP-890) on their own: the transactional producer of a first batch, guards taken, shared,
 * held, spent and dropped, and lingering guards swept after producer.id.expiration.ms.
 */
import { expect } from 'chai';
import { NO_GUARD, TxnVerifications, transactionalProducerOf } from '../../../actors/partition-replica/txn-verification.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';

const DAY = 86_400_000;

describe('actors/partition-replica/txn-verification', () => {
  it('names the producer of a transactional first batch only', () => {
    const records = [{ value: Buffer.from('v'), timestamp: 1 }];
    expect(transactionalProducerOf(encodeRecordBatch({ transactional: true, producerId: 9, producerEpoch: 4, baseSequence: 0, records }))).to.deep.equal({ producerId: 9, producerEpoch: 4 });
    expect(transactionalProducerOf(encodeRecordBatch({ producerId: 9, producerEpoch: 4, baseSequence: 0, records }))).to.equal(null);
    expect(transactionalProducerOf(encodeRecordBatch({ records }))).to.equal(null);
    expect(transactionalProducerOf(Buffer.alloc(10))).to.equal(null);
  });

  it('takes a guard, shares it within an epoch, holds it until spent; none while the transaction is open', () => {
    const v = new TxnVerifications();
    expect(v.start(7, 0, true, 0, DAY)).to.equal(NO_GUARD);
    const g = v.start(7, 0, false, 0, DAY);
    expect(g).to.not.equal(NO_GUARD);
    expect(v.start(7, 0, false, 1, DAY)).to.equal(g);
    expect(v.holds(7, 0, g)).to.equal(true);
    expect(v.holds(7, 1, g), 'another epoch').to.equal(false);
    expect(v.holds(7, 0, NO_GUARD)).to.equal(false);
    expect(v.holds(8, 0, g), 'another producer').to.equal(false);
    // a new epoch takes a new guard, and the old one no longer holds
    const g2 = v.start(7, 1, false, 2, DAY);
    expect(g2).to.not.equal(g);
    expect(v.holds(7, 0, g)).to.equal(false);
    v.clear(7);
    expect(v.holds(7, 1, g2)).to.equal(false);
    v.start(8, 0, false, 3, DAY);
    v.clearAll();
    expect(v.size).to.equal(0);
  });

  it('sweeps guards taken producer.id.expiration.ms ago or more, at most once a minute', () => {
    const v = new TxnVerifications();
    const old = v.start(7, 0, false, 0, 10_000);
    v.start(8, 0, false, 9_000, 10_000);
    // expired, but not swept before a minute has passed
    v.start(9, 0, false, 30_000, 10_000);
    expect(v.holds(7, 0, old)).to.equal(true);
    // at a minute every guard taken 10 s ago or more goes (9's too), then 9 takes a new one
    v.start(9, 0, false, 60_000, 10_000);
    expect(v.holds(7, 0, old)).to.equal(false);
    expect(v.size).to.equal(1);
  });
});
