/**
 * KIP-890 part 2 over the Kafka protocol, as a Kafka 4.0 client speaks it once the cluster's
 * transaction.version is 2: no AddPartitionsToTxn nor AddOffsetsToTxn (Produce v12 and
 * TxnOffsetCommit v5 have the broker add the partitions), EndTxn v5 bumping the epoch and
 * answering it (its retry answered the same), the ended transaction's late batch fenced on its
 * partition by the marker's bumped epoch, and the older versions behaving as before on the same
 * cluster. With transaction.version 0, Produce v12 is verified as v11 is.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody, startTransactionalProducer } from '../../helpers/raw-kafka.js';

const TOPIC = 'txn-v2';
const GROUP = 'txn-v2-readers';

describe('Kafka API: transaction version 2 (KIP-890 part 2: Produce v12, TxnOffsetCommit v5, EndTxn v5)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let any: KafkaCaller;
  const open: KafkaCaller[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'transaction.state.log.num.partitions': 2 }, topics: [{ name: TOPIC, partitions: 2, replicationFactor: 1 }] });
    any = await KafkaCaller.connect(c.bootstrap[0]!);
    await setTransactionVersion(2);
  });
  after(async () => {
    any?.end();
    for (const k of open) k.end();
    await c?.stop();
  });

  async function finalizedTransactionVersion(): Promise<number> {
    const r = await any.call(ApiKeys.ApiVersions, 4, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    return r.finalizedFeatures.find((f: { name: string }) => f.name === 'transaction.version')?.maxVersionLevel ?? 0;
  }

  async function setTransactionVersion(level: number): Promise<void> {
    const current = await finalizedTransactionVersion();
    const r = await any.call(ApiKeys.UpdateFeatures, 1, {
      timeoutMs: 10_000,
      featureUpdates: [{ feature: 'transaction.version', maxVersionLevel: level, upgradeType: level < current ? 2 : 1 }],
      validateOnly: false,
    });
    expect(r.errorCode, r.errorMessage).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await finalizedTransactionVersion()) === level, 10_000, 20);
  }

  async function startProducer(transactionalId: string): Promise<{ k: KafkaCaller; producerId: number; producerEpoch: number }> {
    const started = await startTransactionalProducer(any, transactionalId);
    open.push(started.k);
    return started;
  }

  const batch = (producerId: number, producerEpoch: number, baseSequence: number, value: string) =>
    encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence, records: [{ value: Buffer.from(value), timestamp: Date.now() }] });

  async function produce(transactionalId: string, partition: number, records: Uint8Array, version = 12): Promise<{ errorCode: number; baseOffset: number }> {
    const r = await any.call(ApiKeys.Produce, version, { transactionalId, acks: -1, timeoutMs: 5_000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records }] }] });
    return r.responses[0].partitionResponses[0];
  }

  /** A Produce retried while the broker says it may be retried (the previous transaction still completing: NOT_ENOUGH_REPLICAS). */
  const produceRetrying = (transactionalId: string, partition: number, records: Uint8Array) =>
    checkFor(async () => {
      const r = await produce(transactionalId, partition, records);
      return r.errorCode === ErrorCode.NOT_ENOUGH_REPLICAS ? null : r;
    }, 10_000, 20);

  const endTxn = (k: KafkaCaller, transactionalId: string, producerId: number, producerEpoch: number, committed: boolean, version = 5) =>
    k.call(ApiKeys.EndTxn, version, { transactionalId, producerId, producerEpoch, committed });

  const committedRead = async (partition: number) => (await any.call(ApiKeys.Fetch, 12, consumerFetchBody(TOPIC, partition, 0, { isolationLevel: 1 }))).responses[0].partitions[0];

  async function groupCoordinator(): Promise<KafkaCaller> {
    const found = await checkFor(async () => {
      const r = await any.call(ApiKeys.FindCoordinator, 3, { key: GROUP, keyType: 0 });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    const g = await KafkaCaller.connect(`${found.host}:${found.port}`);
    open.push(g);
    return g;
  }

  async function commitOffsets(g: KafkaCaller, transactionalId: string, producerId: number, producerEpoch: number, version = 5): Promise<number> {
    const r = await g.call(ApiKeys.TxnOffsetCommit, version, {
      transactionalId,
      groupId: GROUP,
      producerId,
      producerEpoch,
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    return r.topics[0].partitions[0].errorCode;
  }

  async function describe(transactionalId: string): Promise<{ transactionState: string; producerEpoch: number; topics: { topic: string; partitions: number[] }[] }> {
    const r = await any.call(ApiKeys.DescribeTransactions, 0, { transactionalIds: [transactionalId] });
    return r.transactionStates[0];
  }

  it('ApiVersions advertises Produce 3-13, EndTxn 0-5 and TxnOffsetCommit 0-5, with transaction.version 2 finalized', async () => {
    const r = await any.call(ApiKeys.ApiVersions, 4, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    const range = (key: number) => r.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
    expect(range(0)).to.deep.include({ minVersion: 3, maxVersion: 13 });
    expect(range(26)).to.deep.include({ minVersion: 0, maxVersion: 5 });
    expect(range(28)).to.deep.include({ minVersion: 0, maxVersion: 5 });
    expect(r.supportedFeatures).to.deep.include({ name: 'transaction.version', minVersion: 0, maxVersion: 2 });
    expect(await finalizedTransactionVersion()).to.equal(2);
  });

  it('a transaction with no AddPartitionsToTxn nor AddOffsetsToTxn: the broker adds what Produce v12 and TxnOffsetCommit v5 reach; EndTxn v5 commits with the epoch bumped', async () => {
    const id = 'v2-flow';
    const { k, producerId, producerEpoch } = await startProducer(id);
    expect(await produce(id, 0, batch(producerId, producerEpoch, 0, 'a'))).to.include({ errorCode: ErrorCode.NONE });
    expect(await describe(id)).to.deep.include({ transactionState: 'Ongoing', producerEpoch, topics: [{ topic: TOPIC, partitions: [0] }] });
    expect((await committedRead(0)).lastStableOffset).to.equal(0);

    const g = await groupCoordinator();
    expect(await commitOffsets(g, id, producerId, producerEpoch)).to.equal(ErrorCode.NONE);
    expect((await describe(id)).topics.map((t) => t.topic).sort()).to.deep.equal(['__consumer_offsets', TOPIC]);

    const ended = await endTxn(k, id, producerId, producerEpoch, true);
    expect(ended).to.deep.include({ errorCode: ErrorCode.NONE, producerId, producerEpoch: producerEpoch + 1 });
    const read = await checkFor(async () => {
      const p = await committedRead(0);
      return p.lastStableOffset === 2 ? p : null;
    }, 10_000, 20);
    expect(read.abortedTransactions ?? []).to.deep.equal([]);
    const fetched = await checkFor(async () => {
      const r = await g.call(ApiKeys.OffsetFetch, 7, { groupId: GROUP, topics: [{ name: TOPIC, partitionIndexes: [0] }], requireStable: true });
      const p = r.topics[0].partitions[0];
      return p.errorCode === ErrorCode.UNSTABLE_OFFSET_COMMIT ? null : p;
    }, 10_000, 50);
    expect(fetched).to.deep.include({ errorCode: ErrorCode.NONE, committedOffset: 1 });
    // the answer was lost: the retry, with the epoch it had, is answered the same
    expect(await endTxn(k, id, producerId, producerEpoch, true)).to.deep.include({ errorCode: ErrorCode.NONE, producerId, producerEpoch: producerEpoch + 1 });
    expect((await describe(id)).producerEpoch).to.equal(producerEpoch + 1);
  });

  it("the next transaction runs at the bumped epoch (sequences from 0), and the ended transaction's late batch is fenced on its partition", async () => {
    const id = 'v2-next';
    const { k, producerId, producerEpoch } = await startProducer(id);
    expect(await produce(id, 1, batch(producerId, producerEpoch, 0, 'first'))).to.include({ errorCode: ErrorCode.NONE });
    expect((await endTxn(k, id, producerId, producerEpoch, true)).errorCode).to.equal(ErrorCode.NONE);
    const next = producerEpoch + 1;
    const written = await produceRetrying(id, 1, batch(producerId, next, 0, 'second'));
    expect(written.errorCode).to.equal(ErrorCode.NONE);
    // a batch of the ended transaction arriving late: its epoch is below the marker's
    expect((await produce(id, 1, batch(producerId, producerEpoch, 1, 'late'))).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(await endTxn(k, id, producerId, next, false)).to.deep.include({ errorCode: ErrorCode.NONE, producerId, producerEpoch: next + 1 });
    const read = await checkFor(async () => {
      const p = await committedRead(1);
      return p.abortedTransactions?.some((a: { producerId: number }) => a.producerId === producerId) ? p : null;
    }, 10_000, 20);
    expect(read.abortedTransactions).to.deep.include({ producerId, firstOffset: written.baseOffset });
  });

  it('EndTxn v5: an abort with nothing produced still bumps the epoch; a stale epoch is PRODUCER_FENCED; v4 of the same producer keeps its epoch', async () => {
    const id = 'v2-edges';
    const { k, producerId, producerEpoch } = await startProducer(id);
    const aborted = await checkFor(async () => {
      const r = await endTxn(k, id, producerId, producerEpoch, false);
      return r.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS ? null : r;
    }, 10_000, 20);
    expect(aborted).to.deep.include({ errorCode: ErrorCode.NONE, producerId, producerEpoch: producerEpoch + 1 });
    await checkFor(async () => (await describe(id)).transactionState === 'CompleteAbort', 10_000, 20);
    expect((await endTxn(k, id, producerId, producerEpoch - 1, true)).errorCode).to.equal(ErrorCode.PRODUCER_FENCED);
    expect((await endTxn(k, id, producerId, producerEpoch + 1, true)).errorCode).to.equal(ErrorCode.INVALID_TXN_STATE);
    // a KIP-890 part 1 client on the same cluster: AddPartitionsToTxn, EndTxn v4, its epoch kept
    const epoch = producerEpoch + 1;
    const add = await k.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: id, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: epoch, v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }] });
    expect(add.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).to.equal(ErrorCode.NONE);
    expect((await produce(id, 0, batch(producerId, epoch, 0, 'v11'), 11)).errorCode).to.equal(ErrorCode.NONE);
    expect((await endTxn(k, id, producerId, epoch, true, 4)).errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await describe(id)).transactionState === 'CompleteCommit', 10_000, 20);
    expect((await describe(id)).producerEpoch).to.equal(epoch);
  });

  it('Produce v11 on the same cluster is verified, not added: a partition never added is TRANSACTION_ABORTABLE', async () => {
    const id = 'v2-v11';
    const { producerId, producerEpoch } = await startProducer(id);
    expect((await produce(id, 0, batch(producerId, producerEpoch, 0, 'x'), 11)).errorCode).to.equal(ErrorCode.TRANSACTION_ABORTABLE);
    expect((await describe(id)).transactionState).to.equal('Empty');
  });

  it('with transaction.version back at 0, Produce v12 is verified as v11 is (TRANSACTION_ABORTABLE), and TxnOffsetCommit v5 as v3', async () => {
    await setTransactionVersion(0);
    try {
      const id = 'v2-downgraded';
      const { producerId, producerEpoch } = await startProducer(id);
      expect((await produce(id, 0, batch(producerId, producerEpoch, 0, 'x'))).errorCode).to.equal(ErrorCode.TRANSACTION_ABORTABLE);
      expect(await commitOffsets(await groupCoordinator(), id, producerId, producerEpoch)).to.equal(ErrorCode.INVALID_TXN_STATE);
      expect((await describe(id)).transactionState).to.equal('Empty');
    } finally {
      await setTransactionVersion(2);
    }
  });
});
