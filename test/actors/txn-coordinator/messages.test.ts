/**
 * Where a transactional id lives: Kafka's abs(String.hashCode) modulo the partition count of
 * __transaction_state, so a Kafka client and samsa agree on its coordinator.
 */
import { expect } from 'chai';
import { transactionStatePartitionFor, txnCoordinatorPath } from '../../../actors/txn-coordinator/messages.js';

describe('actors/txn-coordinator messages', () => {
  it('hashes a transactional id as Java does', () => {
    // "tx".hashCode() = 116 * 31 + 120 = 3716
    expect(transactionStatePartitionFor('tx', 50)).to.equal(3716 % 50);
    // "polygenelubricants".hashCode() is Integer.MIN_VALUE: Kafka's Utils.abs makes it 0
    expect(transactionStatePartitionFor('polygenelubricants', 50)).to.equal(0);
    // a negative hash: "abcdefghij".hashCode() = -634317659, taken as its absolute value
    expect(transactionStatePartitionFor('abcdefghij', 50)).to.equal(634317659 % 50);
  });

  it('the coordinator is a child of its broker', () => {
    expect(txnCoordinatorPath(3)).to.equal('/broker-3/txn-coordinator');
  });
});
