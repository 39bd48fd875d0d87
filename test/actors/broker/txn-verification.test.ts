/**
 * The broker's side of transaction verification (actors/broker/txn-verification.ts, KIP-890
 * part 1) on its own: the coordinator's answers mapped to what a Produce v3-10 client handles
 * (and a v11+ one, TRANSACTION_ABORTABLE as it is),
 * the transactional producer of a request, and the verification against stand-in replicas and
 * coordinator (who is asked, what each partition's verdict is, the coordinator missing, silent
 * or loading).
 */
import { expect } from 'chai';
import { abortableProducerFacingError, producerFacingError, transactionalProducerOfRequest, verifyTransactionalPartitions, type VerificationEnv } from '../../../actors/broker/txn-verification.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { makeFailure } from '../../../src/runtime/pending-asks.js';

const txnBatch = (producerId: number, producerEpoch: number, baseSequence: number, value: string) =>
  encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence, records: [{ value: Buffer.from(value), timestamp: Date.now() }] });

describe('actors/broker/txn-verification: on its own', () => {
  it('maps the coordinator\'s answers to what a Produce v3-10 client handles', () => {
    expect(producerFacingError(ErrorCode.NONE)).to.equal(null);
    expect(producerFacingError(ErrorCode.TRANSACTION_ABORTABLE)).to.deep.equal({ errorCode: ErrorCode.INVALID_TXN_STATE, errorMessage: 'Partition was not added to the transaction' });
    expect(producerFacingError(ErrorCode.PRODUCER_FENCED)?.errorCode).to.equal(ErrorCode.INVALID_PRODUCER_EPOCH);
    for (const retriable of [ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.NETWORK_EXCEPTION]) {
      const e = producerFacingError(retriable)!;
      expect(e.errorCode, String(retriable)).to.equal(ErrorCode.NOT_ENOUGH_REPLICAS);
      expect(e.errorMessage).to.match(/^Unable to verify the partition has been added to the transaction\. Underlying error: /);
    }
    expect(producerFacingError(ErrorCode.INVALID_PRODUCER_ID_MAPPING)?.errorCode).to.equal(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  });

  it('maps them for a Produce v11+ client: TRANSACTION_ABORTABLE as it is, the others as for v3-10', () => {
    expect(abortableProducerFacingError(ErrorCode.NONE)).to.equal(null);
    expect(abortableProducerFacingError(ErrorCode.TRANSACTION_ABORTABLE)).to.deep.equal({ errorCode: ErrorCode.TRANSACTION_ABORTABLE, errorMessage: 'Partition was not added to the transaction' });
    for (const code of [ErrorCode.INVALID_TXN_STATE, ErrorCode.PRODUCER_FENCED, ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.NOT_COORDINATOR, ErrorCode.INVALID_PRODUCER_ID_MAPPING]) {
      expect(abortableProducerFacingError(code), String(code)).to.deep.equal(producerFacingError(code));
    }
  });

  it('finds the one transactional producer of a request, and tells when there are two', () => {
    const plain = encodeRecordBatch({ records: [{ value: Buffer.from('p'), timestamp: 1 }] });
    const idempotent = encodeRecordBatch({ producerId: 9, producerEpoch: 0, baseSequence: 0, records: [{ value: Buffer.from('i'), timestamp: 1 }] });
    const p = (records: Buffer | Buffer[], partition = 0) => ({ topic: 't', partition, records });
    expect(transactionalProducerOfRequest([p(plain), p(idempotent, 1)])).to.equal(null);
    const one = transactionalProducerOfRequest([p(plain), p([txnBatch(7, 2, 0, 'a')], 1), p(txnBatch(7, 2, 5, 'b'), 2)]);
    expect(one).to.deep.equal({ producerId: 7, producerEpoch: 2, keys: new Set([1, 2]) });
    expect(transactionalProducerOfRequest([p(txnBatch(7, 2, 0, 'a')), p(txnBatch(8, 2, 0, 'b'), 1)])).to.equal('mixed');
    expect(transactionalProducerOfRequest([p(txnBatch(7, 2, 0, 'a')), p(txnBatch(7, 3, 0, 'b'), 1)])).to.equal('mixed');
  });
});

describe('actors/broker/txn-verification: verifyTransactionalPartitions against stand-ins', () => {
  type Asked = { to: string; msg: { type: string } & Record<string, unknown> };
  /** A stand-in broker context: replicas answer guards from `guards`, the coordinator `coordinator`. */
  function env(guards: Record<string, number | { errorCode: number }>, coordinator: ((msg: Record<string, unknown>) => unknown) | { errorCode: number; errorMessage: string }) {
    const asked: Asked[] = [];
    const ctx = {
      ask: async (ref: { path: string }, msg: Asked['msg']) => {
        asked.push({ to: ref.path, msg });
        if (msg.type === 'StartTxnVerification') {
          const g = guards[ref.path]!;
          return typeof g === 'number' ? { type: 'TxnVerificationStarted', errorCode: ErrorCode.NONE, guard: g } : { type: 'TxnVerificationStarted', errorCode: g.errorCode, guard: 0 };
        }
        return typeof coordinator === 'function' ? coordinator(msg) : null;
      },
    };
    const e: VerificationEnv = {
      ctx: ctx as unknown as VerificationEnv['ctx'],
      timeoutMs: 1_000,
      replicaOf: (topic, partition) => (`${topic}-${partition}` in guards ? { node: 'n', path: `${topic}-${partition}` } : null),
      coordinatorOf: () => (typeof coordinator === 'function' ? { node: 'n', path: 'coordinator' } : coordinator),
    };
    return { e, asked };
  }
  const parts = [0, 1, 2].map((partition) => ({ topic: 't', partition, records: txnBatch(7, 1, 0, 'x') }));
  const txn = { producerId: 7, producerEpoch: 1, keys: new Set([0, 1, 2]) };

  it('asks the coordinator only about partitions whose replica took a guard, and passes its answers on', async () => {
    const { e, asked } = env({ 't-0': 0, 't-1': 11, 't-2': 12 }, (msg) => ({
      type: 'VerifyPartitionsInTxnResult',
      errorCode: ErrorCode.NONE,
      partitions: (msg.partitions as { topic: string; partition: number }[]).map((p) => ({ ...p, errorCode: p.partition === 1 ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE })),
    }));
    const v = await verifyTransactionalPartitions(e, 'w', parts, txn);
    expect(asked.filter((a) => a.to === 'coordinator').map((a) => a.msg)).to.deep.equal([
      { type: 'VerifyPartitionsInTxn', transactionalId: 'w', producerId: 7, producerEpoch: 1, partitions: [{ topic: 't', partition: 1 }, { topic: 't', partition: 2 }] },
    ]);
    expect(v.get(0)).to.deep.equal({ guard: 0 });
    expect(v.get(1)).to.deep.equal({ guard: 11 });
    expect(v.get(2)).to.deep.include({ errorCode: ErrorCode.INVALID_TXN_STATE });
  });

  it('needs no coordinator when every transaction is open; a partition without a local replica is left to the produce', async () => {
    const { e, asked } = env({ 't-0': 0, 't-2': 0 }, () => {
      throw new Error('the coordinator must not be asked');
    });
    const v = await verifyTransactionalPartitions(e, 'w', parts, txn);
    expect(asked.map((a) => a.to)).to.deep.equal(['t-0', 't-2']);
    expect([...v]).to.deep.equal([
      [0, { guard: 0 }],
      [2, { guard: 0 }],
    ]);
  });

  it('a replica that is not the leader refuses its partition; an unreachable or silent coordinator is NOT_ENOUGH_REPLICAS (retried)', async () => {
    const notLeader = await verifyTransactionalPartitions(env({ 't-0': { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }, 't-1': 0, 't-2': 0 }, () => null).e, 'w', parts, txn);
    expect(notLeader.get(0)).to.deep.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER });
    const missing = await verifyTransactionalPartitions(env({ 't-0': 5, 't-1': 5, 't-2': 0 }, { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: '__transaction_state-3 has no leader' }).e, 'w', parts, txn);
    expect(missing.get(0)).to.deep.include({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS });
    expect((missing.get(0) as { errorMessage: string }).errorMessage).to.match(/COORDINATOR_NOT_AVAILABLE.*has no leader/);
    expect(missing.get(2)).to.deep.equal({ guard: 0 });
    const silent = await verifyTransactionalPartitions(env({ 't-0': 5, 't-1': 0, 't-2': 0 }, () => makeFailure('timeout', 'no answer in 1000 ms')).e, 'w', parts, txn);
    expect(silent.get(0)).to.deep.include({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS });
    const loading = await verifyTransactionalPartitions(env({ 't-0': 5, 't-1': 0, 't-2': 0 }, () => ({ type: 'VerifyPartitionsInTxnResult', errorCode: ErrorCode.NONE, partitions: [{ topic: 't', partition: 0, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS }] })).e, 'w', parts, txn);
    expect(loading.get(0)).to.deep.include({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS });
  });
});
