/**
 * The coordinator's answer to a partition leader verifying a transactional batch (txn-verify.ts,
 * KIP-890 part 1), one test per case of Kafka's handleVerifyPartitionsInTransaction.
 */
import { expect } from 'chai';
import { TxnState, type TxnMetadata } from '../../../actors/txn-coordinator/txn-metadata.js';
import { verifyPartitionsInTxn } from '../../../actors/txn-coordinator/txn-verify.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

function meta(over: Partial<TxnMetadata> = {}): TxnMetadata {
  return {
    transactionalId: 'w',
    producerId: 7,
    lastProducerId: 7,
    producerEpoch: 3,
    lastProducerEpoch: -1,
    txnTimeoutMs: 30_000,
    state: TxnState.Ongoing,
    partitions: [
      { topic: 'a', partition: 0 },
      { topic: 'b', partition: 2 },
    ],
    txnStartTimestamp: 1,
    txnLastUpdateTimestamp: 1,
    nextProducerId: -1,
    transactionVersion: 0,
    pending: null,
    hasFailedEpochFence: false,
    ...over,
  };
}

const ASKED = [
  { topic: 'a', partition: 0 },
  { topic: 'a', partition: 1 },
  { topic: 'b', partition: 2 },
];
const codes = (r: { errorCode: number }[]) => r.map((p) => p.errorCode);

describe('actors/txn-coordinator/txn-verify', () => {
  it('an ongoing transaction: NONE for its partitions, TRANSACTION_ABORTABLE for the others', () => {
    const r = verifyPartitionsInTxn('w', meta(), 7, 3, ASKED);
    expect(r).to.deep.equal([
      { topic: 'a', partition: 0, errorCode: ErrorCode.NONE },
      { topic: 'a', partition: 1, errorCode: ErrorCode.TRANSACTION_ABORTABLE },
      { topic: 'b', partition: 2, errorCode: ErrorCode.NONE },
    ]);
  });

  it('no transaction open (Empty, or one that completed): every partition is TRANSACTION_ABORTABLE', () => {
    for (const state of [TxnState.Empty, TxnState.CompleteCommit, TxnState.CompleteAbort]) {
      expect(codes(verifyPartitionsInTxn('w', meta({ state, partitions: [] }), 7, 3, ASKED)), state).to.deep.equal(Array(3).fill(ErrorCode.TRANSACTION_ABORTABLE));
    }
  });

  it('a partition added by a write still pending does not count until it is persisted', () => {
    const to = { ...meta(), partitions: [...meta().partitions, { topic: 'a', partition: 1 }] };
    const r = verifyPartitionsInTxn('w', meta({ pending: { to, then: { type: 'AnswerAddPartitions', api: 'AddPartitionsToTxn' } } }), 7, 3, [{ topic: 'a', partition: 1 }]);
    expect(codes(r)).to.deep.equal([ErrorCode.TRANSACTION_ABORTABLE]);
  });

  it('a commit or abort being prepared: CONCURRENT_TRANSACTIONS', () => {
    for (const state of [TxnState.PrepareCommit, TxnState.PrepareAbort]) {
      expect(codes(verifyPartitionsInTxn('w', meta({ state }), 7, 3, ASKED)), state).to.deep.equal(Array(3).fill(ErrorCode.CONCURRENT_TRANSACTIONS));
    }
  });

  it('another epoch: PRODUCER_FENCED', () => {
    expect(codes(verifyPartitionsInTxn('w', meta(), 7, 2, ASKED))).to.deep.equal(Array(3).fill(ErrorCode.PRODUCER_FENCED));
    expect(codes(verifyPartitionsInTxn('w', meta(), 7, 4, ASKED))).to.deep.equal(Array(3).fill(ErrorCode.PRODUCER_FENCED));
  });

  it('an unknown id, a Dead one, or another producer id: INVALID_PRODUCER_ID_MAPPING', () => {
    expect(codes(verifyPartitionsInTxn('w', null, 7, 3, ASKED))).to.deep.equal(Array(3).fill(ErrorCode.INVALID_PRODUCER_ID_MAPPING));
    expect(codes(verifyPartitionsInTxn('w', meta({ state: TxnState.Dead }), 7, 3, ASKED))).to.deep.equal(Array(3).fill(ErrorCode.INVALID_PRODUCER_ID_MAPPING));
    expect(codes(verifyPartitionsInTxn('w', meta(), 8, 3, ASKED))).to.deep.equal(Array(3).fill(ErrorCode.INVALID_PRODUCER_ID_MAPPING));
  });

  it('an empty transactional id: INVALID_REQUEST', () => {
    expect(codes(verifyPartitionsInTxn('', meta(), 7, 3, ASKED))).to.deep.equal(Array(3).fill(ErrorCode.INVALID_REQUEST));
  });
});
