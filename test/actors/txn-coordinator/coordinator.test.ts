/**
 * The transaction coordinator actor on its own: one ActorSystem with a FakeClock, fake
 * __transaction_state replicas and fake brokers (harness.ts). Loading a partition (and resuming
 * a prepared transaction found in it), each request (InitProducerId, AddPartitionsToTxn,
 * AddOffsetsToTxn, EndTxn) with the records it writes, markers routed to each partition's
 * leader and retried until written, timed-out transactions aborted, expired ids removed,
 * NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS, resigning, and a failed write.
 */
import { expect } from 'chai';
import { transactionStatePartitionFor } from '../../../actors/txn-coordinator/messages.js';
import { TxnState, encodeTxnRecord, type TxnRecordFields } from '../../../actors/txn-coordinator/txn-metadata.js';
import { offsetsPartitionFor } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { checkFor } from '../../helpers/check-for.js';
import { TxnHarness, clusterView } from './harness.js';

const S = TxnState;
const ORDERS = [
  { topic: 'orders', partition: 0 },
  { topic: 'orders', partition: 1 },
];

function fields(over: Partial<TxnRecordFields>): TxnRecordFields {
  return {
    producerId: 77,
    lastProducerId: -1,
    producerEpoch: 2,
    lastProducerEpoch: -1,
    txnTimeoutMs: 30_000,
    state: S.Empty,
    partitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: 1_700_000_000_000,
    nextProducerId: -1,
    transactionVersion: 0,
    ...over,
  };
}

describe('actors/txn-coordinator coordinator', function () {
  this.timeout(15_000);
  let h: TxnHarness;

  async function start(partitions = 1, extra: Parameters<TxnHarness['spawnCoordinator']>[0] = {}): Promise<void> {
    h = new TxnHarness(partitions);
    // orders-0 led by broker 1, orders-1 by broker 2; __consumer_offsets (3 partitions) by broker 2
    await h.setMetadata(clusterView({ orders: [1, 2], __consumer_offsets: [2, 2, 2] }));
    h.spawnCoordinator(extra);
  }

  afterEach(async () => {
    await h?.stop();
  });

  describe('a transaction from InitProducerId to CompleteCommit', () => {
    beforeEach(async () => {
      await start();
      await h.become(0, 5);
    });

    it('InitProducerId gives a producer id from the broker at epoch 0 and writes Empty; a second one bumps the epoch', async () => {
      const r = await h.init('tx-a', { timeoutMs: 20_000 });
      expect(r).to.deep.include({ api: 'InitProducerId', errorCode: ErrorCode.NONE, producerId: 1000, producerEpoch: 0 });
      const again = await h.init('tx-a');
      expect(again).to.deep.include({ errorCode: ErrorCode.NONE, producerId: 1000, producerEpoch: 1 });
      const log = await h.log();
      expect(log.map((r) => [r.transactionalId, r.metadata?.state, r.metadata?.producerEpoch])).to.deep.equal([
        ['tx-a', S.Empty, 0],
        ['tx-a', S.Empty, 1],
      ]);
      expect(log[0]!.metadata!.txnTimeoutMs).to.equal(20_000);
      // every id has its own producer id
      expect((await h.init('tx-b')).producerId).to.equal(1001);
    });

    it('AddPartitionsToTxn and AddOffsetsToTxn start a transaction; EndTxn commits it: markers go to each leader, then CompleteCommit is written', async () => {
      const { producerId, producerEpoch } = await h.init('tx-a');
      expect((await h.addPartitions('tx-a', producerId!, producerEpoch!, ORDERS)).errorCode).to.equal(ErrorCode.NONE);
      expect((await h.addOffsets('tx-a', producerId!, producerEpoch!, 'readers')).errorCode).to.equal(ErrorCode.NONE);
      const groupPartition = offsetsPartitionFor('readers', 3);
      const ongoing = await h.stateOf('tx-a');
      expect(ongoing).to.deep.include({ state: S.Ongoing, pendingState: null });
      expect(ongoing!.partitions).to.deep.equal([{ topic: '__consumer_offsets', partition: groupPartition }, ...ORDERS]);

      expect((await h.endTxn('tx-a', producerId!, producerEpoch!, true)).errorCode).to.equal(ErrorCode.NONE);
      await checkFor(async () => (await h.stateOf('tx-a'))?.state === S.CompleteCommit, 5_000);
      const [b1, b2] = [await h.markerCalls(1), await h.markerCalls(2)];
      expect(b1).to.have.lengthOf(1);
      expect(b1[0]!.markers).to.deep.equal([{ producerId, producerEpoch, coordinatorEpoch: 5, commit: true, topics: [{ name: 'orders', partitions: [0] }], transactionVersion: 0 }]);
      expect(b2).to.have.lengthOf(1);
      expect(b2[0]!.markers[0]!.topics).to.have.deep.members([
        { name: '__consumer_offsets', partitions: [groupPartition] },
        { name: 'orders', partitions: [1] },
      ]);
      const states = (await h.log()).map((r) => r.metadata?.state);
      expect(states).to.deep.equal([S.Empty, S.Ongoing, S.Ongoing, S.PrepareCommit, S.CompleteCommit]);
      // a retried EndTxn of the same outcome is answered NONE; the other outcome is refused
      expect((await h.endTxn('tx-a', producerId!, producerEpoch!, true)).errorCode).to.equal(ErrorCode.NONE);
      expect((await h.endTxn('tx-a', producerId!, producerEpoch!, false)).errorCode).to.equal(ErrorCode.INVALID_TXN_STATE);
      // the next transaction starts from CompleteCommit
      expect((await h.addPartitions('tx-a', producerId!, producerEpoch!, [ORDERS[0]!])).errorCode).to.equal(ErrorCode.NONE);
      expect((await h.stateOf('tx-a'))!.partitions).to.deep.equal([ORDERS[0]]);
    });

    it('while the markers are being written, the transaction answers CONCURRENT_TRANSACTIONS', async () => {
      const { producerId, producerEpoch } = await h.init('tx-a');
      await h.addPartitions('tx-a', producerId!, producerEpoch!, ORDERS);
      await h.brokerControl(2, { markerErrors: { 'orders-1': [ErrorCode.NOT_LEADER_OR_FOLLOWER] } });
      expect((await h.endTxn('tx-a', producerId!, producerEpoch!, false)).errorCode).to.equal(ErrorCode.NONE);
      await h.settle();
      expect(await h.stateOf('tx-a')).to.deep.include({ state: S.PrepareAbort, pendingState: S.CompleteAbort });
      expect((await h.addPartitions('tx-a', producerId!, producerEpoch!, ORDERS)).errorCode).to.equal(ErrorCode.CONCURRENT_TRANSACTIONS);
      expect((await h.init('tx-a')).errorCode).to.equal(ErrorCode.CONCURRENT_TRANSACTIONS);
      await h.clock.advanceAsync(200);
      await checkFor(async () => (await h.stateOf('tx-a'))?.state === S.CompleteAbort, 5_000);
    });

    it('a request with a stale epoch is fenced: PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH before; an unknown id INVALID_PRODUCER_ID_MAPPING', async () => {
      const first = await h.init('tx-a');
      await h.init('tx-a');
      expect((await h.addPartitions('tx-a', first.producerId!, first.producerEpoch!, ORDERS, 3)).errorCode).to.equal(ErrorCode.PRODUCER_FENCED);
      expect((await h.addPartitions('tx-a', first.producerId!, first.producerEpoch!, ORDERS, 1)).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_EPOCH);
      expect((await h.endTxn('tx-a', first.producerId!, first.producerEpoch!, true, 0)).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_EPOCH);
      expect((await h.addPartitions('nobody', 1, 0, ORDERS)).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      expect((await h.init('tx-a', { timeoutMs: 60_001 })).errorCode).to.equal(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
      expect((await h.init('')).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    });

    it('InitProducerId during a transaction aborts it (CONCURRENT_TRANSACTIONS, ABORT markers at the fenced epoch); the retry gets the epoch after', async () => {
      const first = await h.init('tx-a');
      await h.addPartitions('tx-a', first.producerId!, first.producerEpoch!, ORDERS);
      expect((await h.init('tx-a')).errorCode).to.equal(ErrorCode.CONCURRENT_TRANSACTIONS);
      await checkFor(async () => (await h.stateOf('tx-a'))?.state === S.CompleteAbort, 5_000);
      const calls = [...(await h.markerCalls(1)), ...(await h.markerCalls(2))];
      expect(calls.map((c) => c.markers[0]!)).to.deep.include.members([
        { producerId: first.producerId, producerEpoch: 1, coordinatorEpoch: 5, commit: false, topics: [{ name: 'orders', partitions: [0] }], transactionVersion: 0 },
        { producerId: first.producerId, producerEpoch: 1, coordinatorEpoch: 5, commit: false, topics: [{ name: 'orders', partitions: [1] }], transactionVersion: 0 },
      ]);
      expect(await h.init('tx-a')).to.deep.include({ errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: 2 });
      expect((await h.endTxn('tx-a', first.producerId!, first.producerEpoch!, true)).errorCode).to.equal(ErrorCode.PRODUCER_FENCED);
    });

    it('a failed write is answered with the coordinator error (NOT_ENOUGH_REPLICAS -> COORDINATOR_NOT_AVAILABLE) and changes nothing', async () => {
      const { producerId, producerEpoch } = await h.init('tx-a');
      await h.control({ failProduce: ErrorCode.NOT_ENOUGH_REPLICAS });
      expect((await h.addPartitions('tx-a', producerId!, producerEpoch!, ORDERS)).errorCode).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      expect(await h.stateOf('tx-a')).to.deep.include({ state: S.Empty, pendingState: null });
      await h.control({ failProduce: null });
      expect((await h.addPartitions('tx-a', producerId!, producerEpoch!, ORDERS)).errorCode).to.equal(ErrorCode.NONE);
    });

    it('no producer id from the broker: InitProducerId is answered COORDINATOR_NOT_AVAILABLE (retriable)', async () => {
      await h.brokerControl(1, { failProducerIds: ErrorCode.COORDINATOR_NOT_AVAILABLE });
      expect((await h.init('tx-a')).errorCode).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      await h.brokerControl(1, { failProducerIds: null });
      const [a, b] = await Promise.all([h.init('tx-a'), h.init('tx-b')]);
      expect([a.errorCode, b.errorCode]).to.deep.equal([ErrorCode.NONE, ErrorCode.NONE]);
      expect(a.producerId).to.not.equal(b.producerId);
    });
  });

  describe('markers', () => {
    beforeEach(async () => {
      await start(1, { markerRetryBackoffMs: 100, markerRetryBackoffMaxMs: 400 });
      await h.become(0, 3);
    });

    it('are retried with backoff on retriable errors, following the leader the metadata names, until written', async () => {
      const { producerId, producerEpoch } = await h.init('tx-a');
      await h.addPartitions('tx-a', producerId!, producerEpoch!, ORDERS);
      await h.brokerControl(2, { markerErrors: { 'orders-1': [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.REQUEST_TIMED_OUT] } });
      await h.endTxn('tx-a', producerId!, producerEpoch!, true);
      await h.settle();
      expect((await h.markerCalls(2)).length).to.equal(1);
      expect((await h.markerCalls(1)).length).to.equal(1);
      await h.clock.advanceAsync(100);
      await h.settle();
      expect((await h.markerCalls(2)).length).to.equal(2);
      // the leadership moved to broker 1: the third round goes there (only orders-1: orders-0 is done)
      await h.setMetadata(clusterView({ orders: [1, 1], __consumer_offsets: [2, 2, 2] }));
      await h.clock.advanceAsync(200);
      await checkFor(async () => (await h.stateOf('tx-a'))?.state === S.CompleteCommit, 5_000);
      const b1 = await h.markerCalls(1);
      expect(b1.map((c) => c.markers[0]!.topics)).to.deep.equal([[{ name: 'orders', partitions: [0] }], [{ name: 'orders', partitions: [1] }]]);
      expect((await h.markerCalls(2)).length).to.equal(2);
    });

    it('a partition of a deleted topic needs no marker (UNKNOWN_TOPIC_OR_PARTITION, and the metadata has no such topic)', async () => {
      const { producerId, producerEpoch } = await h.init('tx-a');
      await h.addPartitions('tx-a', producerId!, producerEpoch!, [...ORDERS, { topic: 'gone', partition: 0 }]);
      await h.setMetadata(clusterView({ orders: [1, 2], __consumer_offsets: [2, 2, 2], gone: [2] }));
      await h.brokerControl(2, { markerErrors: { 'gone-0': [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION] } });
      await h.endTxn('tx-a', producerId!, producerEpoch!, false);
      await h.settle();
      expect((await h.stateOf('tx-a'))!.state).to.equal(S.PrepareAbort);
      await h.setMetadata(clusterView({ orders: [1, 2], __consumer_offsets: [2, 2, 2] }));
      await h.clock.advanceAsync(100);
      await checkFor(async () => (await h.stateOf('tx-a'))?.state === S.CompleteAbort, 5_000);
      expect((await h.markerCalls(2)).length).to.equal(1);
    });

    it('once written, a CompleteCommit whose write fails retriably is written again after a backoff', async () => {
      const { producerId, producerEpoch } = await h.init('tx-a');
      await h.addPartitions('tx-a', producerId!, producerEpoch!, [ORDERS[0]!]);
      await h.brokerControl(1, { markerErrors: { 'orders-0': [ErrorCode.NOT_ENOUGH_REPLICAS] } });
      expect((await h.endTxn('tx-a', producerId!, producerEpoch!, true)).errorCode).to.equal(ErrorCode.NONE);
      await h.settle();
      await h.control({ failProduce: ErrorCode.NOT_ENOUGH_REPLICAS });
      await h.clock.advanceAsync(100);
      await h.settle();
      // the markers are written; the CompleteCommit record is not yet
      expect((await h.markerCalls(1)).length).to.equal(2);
      expect(await h.stateOf('tx-a')).to.deep.include({ state: S.PrepareCommit, pendingState: S.CompleteCommit });
      await h.control({ failProduce: null });
      await h.clock.advanceAsync(100);
      await checkFor(async () => (await h.stateOf('tx-a'))?.state === S.CompleteCommit, 5_000);
      expect((await h.log()).map((r) => r.metadata?.state)).to.deep.equal([S.Empty, S.Ongoing, S.PrepareCommit, S.CompleteCommit]);
      expect((await h.markerCalls(1)).length).to.equal(2);
    });

    it('stop when refused as stale (a newer coordinator owns the transaction): the transaction is left to it', async () => {
      const { producerId, producerEpoch } = await h.init('tx-a');
      await h.addPartitions('tx-a', producerId!, producerEpoch!, [ORDERS[0]!]);
      await h.brokerControl(1, { markerErrors: { 'orders-0': [ErrorCode.TRANSACTION_COORDINATOR_FENCED] } });
      await h.endTxn('tx-a', producerId!, producerEpoch!, true);
      await h.settle();
      await h.clock.advanceAsync(1_000);
      await h.settle();
      expect(await h.stateOf('tx-a')).to.deep.include({ state: S.PrepareCommit, pendingState: S.CompleteCommit });
      expect((await h.describe()).markerJobs).to.equal(0);
      expect((await h.markerCalls(1)).length).to.equal(1);
    });
  });

  describe('timers', () => {
    it('a transaction open past its timeout is aborted at the next check: the epoch is bumped (fencing the producer), ABORT markers written', async () => {
      await start(1, { abortTimedOutTransactionsIntervalMs: 1_000 });
      await h.become(0, 0);
      const { producerId, producerEpoch } = await h.init('tx-a', { timeoutMs: 5_000 });
      await h.addPartitions('tx-a', producerId!, producerEpoch!, ORDERS);
      await h.clock.advanceAsync(5_000);
      expect((await h.stateOf('tx-a'))!.state).to.equal(S.Ongoing);
      await h.clock.advanceAsync(1_000);
      await checkFor(async () => (await h.stateOf('tx-a'))?.state === S.CompleteAbort, 5_000);
      expect((await h.stateOf('tx-a'))!.producerEpoch).to.equal(producerEpoch! + 1);
      const calls = [...(await h.markerCalls(1)), ...(await h.markerCalls(2))];
      expect(calls.every((c) => c.markers[0]!.commit === false && c.markers[0]!.producerEpoch === producerEpoch! + 1)).to.equal(true);
      expect((await h.endTxn('tx-a', producerId!, producerEpoch!, true)).errorCode).to.equal(ErrorCode.PRODUCER_FENCED);
    });

    it('an id unused for transactional.id.expiration.ms gets a tombstone and is forgotten', async () => {
      await start(1, { transactionalIdExpirationMs: 60_000, removeExpiredTransactionalIdsIntervalMs: 10_000 });
      await h.become(0, 0);
      await h.init('tx-a');
      await h.clock.advanceAsync(30_000);
      await h.init('tx-b');
      await h.clock.advanceAsync(40_000);
      await checkFor(async () => (await h.stateOf('tx-a')) === undefined, 5_000);
      expect(await h.stateOf('tx-b')).to.not.equal(undefined);
      const log = await h.log();
      expect(log[log.length - 1]).to.deep.equal({ transactionalId: 'tx-a', metadata: null });
    });
  });

  describe('ownership', () => {
    it('NOT_COORDINATOR for an id of a partition not led here; COORDINATOR_LOAD_IN_PROGRESS while its partition loads', async () => {
      await start(2);
      const ids = Array.from({ length: 20 }, (_, i) => `tx-${i}`);
      const on0 = ids.find((id) => transactionStatePartitionFor(id, 2) === 0)!;
      const on1 = ids.find((id) => transactionStatePartitionFor(id, 2) === 1)!;
      expect((await h.init(on0)).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      await h.control({ holdReads: true }, 0);
      h.sys.send(h.coord, { type: 'BecomeTxnCoordinator', partition: 0, leaderEpoch: 1 });
      await h.settle();
      expect((await h.init(on0)).errorCode).to.equal(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      expect((await h.endTxn(on0, 1, 0, true)).errorCode).to.equal(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      expect((await h.init(on1)).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      await h.control({ holdReads: false, releaseReads: true }, 0);
      await checkFor(async () => (await h.describe()).partitions[0]?.status === 'Active', 5_000);
      expect((await h.init(on0)).errorCode).to.equal(ErrorCode.NONE);
    });

    it('loading rebuilds every id from the log and resumes a prepared transaction: its markers are written at the new coordinator epoch, with its transaction version', async () => {
      await start();
      const t0 = h.clock.now();
      await h.seed([
        encodeTxnRecord('idle', fields({ state: S.CompleteAbort })),
        encodeTxnRecord('open', fields({ producerId: 78, state: S.Ongoing, partitions: [ORDERS[0]!], txnStartTimestamp: t0 })),
        encodeTxnRecord('committing', fields({ producerId: 79, state: S.Ongoing, partitions: ORDERS, txnStartTimestamp: t0, transactionVersion: 2 })),
        encodeTxnRecord('committing', fields({ producerId: 79, producerEpoch: 3, lastProducerEpoch: 2, state: S.PrepareCommit, partitions: ORDERS, txnStartTimestamp: t0, transactionVersion: 2 })),
        { key: { transactionalId: 'expired' }, value: encodeTxnRecord('expired', fields({})).value },
        { key: { transactionalId: 'expired' }, value: null },
      ]);
      await h.become(0, 9);
      await checkFor(async () => (await h.stateOf('committing'))?.state === S.CompleteCommit, 5_000);
      const d = await h.describe();
      expect(d.transactions.map((t) => [t.transactionalId, t.state])).to.deep.equal([
        ['committing', S.CompleteCommit],
        ['idle', S.CompleteAbort],
        ['open', S.Ongoing],
      ]);
      const calls = [...(await h.markerCalls(1)), ...(await h.markerCalls(2))].map((c) => c.markers[0]!);
      expect(calls).to.have.lengthOf(2);
      // at the epoch its EndTxn bumped to, as transaction version 2 (KIP-1228: above the data's epoch)
      expect(calls.every((m) => m.producerId === 79 && m.producerEpoch === 3 && m.commit && m.coordinatorEpoch === 9 && m.transactionVersion === 2)).to.equal(true);
      // the open transaction goes on with its producer
      expect((await h.endTxn('open', 78, 2, false)).errorCode).to.equal(ErrorCode.NONE);
    });

    it('resigning drops the partition: requests get NOT_COORDINATOR, a write in flight is answered NOT_COORDINATOR; another coordinator loads the same state', async () => {
      await start();
      await h.become(0, 0);
      const { producerId, producerEpoch } = await h.init('tx-a');
      await h.control({ holdProduce: true });
      const pending = h.addPartitions('tx-a', producerId!, producerEpoch!, ORDERS);
      await h.settle();
      h.sys.send(h.coord, { type: 'ResignTxnCoordinator', partition: 0, leaderEpoch: 1 });
      expect((await pending).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      expect((await h.init('tx-a')).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      expect((await h.describe()).partitions).to.deep.equal([]);
      // the record was written after all: the next coordinator finds the transaction Ongoing
      await h.control({ holdProduce: false, releaseProduces: true });
      const first = h.coord;
      const next = h.spawnCoordinator({ brokerId: 2 });
      await h.become(0, 1, next);
      expect(await h.stateOf('tx-a', next)).to.deep.include({ state: S.Ongoing, producerId, producerEpoch });
      expect((await h.describe(first)).transactions).to.deep.equal([]);
    });

    it('a stale BecomeTxnCoordinator or ResignTxnCoordinator (older leader epoch) changes nothing', async () => {
      await start();
      await h.become(0, 4);
      h.sys.send(h.coord, { type: 'BecomeTxnCoordinator', partition: 0, leaderEpoch: 3 });
      h.sys.send(h.coord, { type: 'ResignTxnCoordinator', partition: 0, leaderEpoch: 3 });
      await h.settle();
      expect((await h.describe()).partitions).to.deep.equal([{ partition: 0, coordinatorEpoch: 4, status: 'Active', transactionalIds: 0 }]);
    });
  });
});
