/**
 * Transaction verification (KIP-890 part 1, `transaction.partition.verification.enable`) over
 * the Kafka protocol, on two brokers so the partition leader and the transaction's coordinator
 * are often different brokers: a transactional Produce for a partition its producer never added
 * is refused INVALID_TXN_STATE (TRANSACTION_ABORTABLE from Produce v11, KIP-890) and nothing is
 * written; once added it is written, and the
 * transaction's later batches too; after the transaction ends, a batch without a new
 * AddPartitionsToTxn is refused again; an unknown producer id is INVALID_PRODUCER_ID_MAPPING, an
 * old epoch INVALID_PRODUCER_EPOCH, batches of two producers in one request
 * INVALID_PRODUCER_ID_MAPPING; a TxnOffsetCommit before AddOffsetsToTxn is INVALID_TXN_STATE;
 * with verification off the broker writes what it is sent (the
 * hanging transaction verification prevents). The broker side on its own is in
 * test/actors/broker/txn-verification.test.ts.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, startTransactionalProducer } from '../../helpers/raw-kafka.js';

const TOPIC = 'verified';

const txnBatch = (producerId: number, producerEpoch: number, baseSequence: number, value: string) =>
  encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence, records: [{ value: Buffer.from(value), timestamp: Date.now() }] });

describe('Kafka API: transactional Produce verified with the coordinator (KIP-890)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  const callers: KafkaCaller[] = [];
  let leaderOf: (partition: number) => KafkaCaller;

  async function connect(endpoint: string): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(endpoint);
    callers.push(k);
    return k;
  }

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, brokerConfig: { 'transaction.state.log.num.partitions': 4, 'transaction.state.log.replication.factor': 1, 'transaction.state.log.min.isr': 1 }, topics: [{ name: TOPIC, partitions: 2, replicationFactor: 1 }] });
    const any = await connect(c.bootstrap[0]!);
    const md = await checkFor(async () => {
      const r = await any.call(ApiKeys.Metadata, 9, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
      return r.topics[0].partitions.every((p: { leaderId: number }) => p.leaderId >= 0) ? r : null;
    }, 15_000, 50);
    const byBroker = new Map<number, KafkaCaller>();
    for (const b of md.brokers as { nodeId: number; host: string; port: number }[]) byBroker.set(b.nodeId, await connect(`${b.host}:${b.port}`));
    const leaders = new Map<number, number>((md.topics[0].partitions as { partitionIndex: number; leaderId: number }[]).map((p) => [p.partitionIndex, p.leaderId]));
    leaderOf = (partition) => byBroker.get(leaders.get(partition)!)!;
  });
  after(async () => {
    for (const k of callers) k.end();
    await c?.stop();
  });

  async function startProducer(transactionalId: string): Promise<{ k: KafkaCaller; producerId: number; producerEpoch: number }> {
    const started = await startTransactionalProducer(callers[0]!, transactionalId);
    callers.push(started.k);
    return started;
  }

  const produce = async (transactionalId: string, partition: number, records: Buffer, to = leaderOf(partition), version = 9) => {
    const r = await to.call(ApiKeys.Produce, version, { transactionalId, acks: -1, timeoutMs: 5_000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records }] }] });
    return r.responses[0].partitionResponses[0] as { errorCode: number; baseOffset: number; errorMessage: string | null };
  };
  const logEnd = async (partition: number) => {
    const r = await leaderOf(partition).call(ApiKeys.ListOffsets, 5, { replicaId: -1, isolationLevel: 0, topics: [{ name: TOPIC, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1 }] }] });
    return r.topics[0].partitions[0].offset as number;
  };
  const add = (k: KafkaCaller, transactionalId: string, producerId: number, producerEpoch: number, partitions: number[]) =>
    k.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: [{ name: TOPIC, partitions }] });

  it('refuses a partition the transaction does not have until it is added; then writes the transaction; after its end, refuses again', async () => {
    const { k, producerId, producerEpoch } = await startProducer('verify-add');
    const end0 = await logEnd(0);
    const refused = await produce('verify-add', 0, txnBatch(producerId, producerEpoch, 0, 'early'));
    expect(refused.errorCode).to.equal(ErrorCode.INVALID_TXN_STATE);
    expect(refused.errorMessage).to.equal('Partition was not added to the transaction');
    expect(await logEnd(0)).to.equal(end0);

    expect((await add(k, 'verify-add', producerId, producerEpoch, [0])).errorCode).to.equal(ErrorCode.NONE);
    const first = await produce('verify-add', 0, txnBatch(producerId, producerEpoch, 0, 'a'));
    expect(first).to.include({ errorCode: ErrorCode.NONE, baseOffset: end0 });
    expect(await produce('verify-add', 0, txnBatch(producerId, producerEpoch, 1, 'b'))).to.include({ errorCode: ErrorCode.NONE, baseOffset: end0 + 1 });
    // partition 1 is not in this transaction
    expect((await produce('verify-add', 1, txnBatch(producerId, producerEpoch, 0, 'c'))).errorCode).to.equal(ErrorCode.INVALID_TXN_STATE);

    expect((await k.call(ApiKeys.EndTxn, 3, { transactionalId: 'verify-add', producerId, producerEpoch, committed: true })).errorCode).to.equal(ErrorCode.NONE);
    // once the COMMIT marker is written, the next batch opens a new transaction: it must be added again
    await checkFor(async () => ((await logEnd(0)) === end0 + 3 ? true : null), 10_000, 20);
    const afterEnd = await checkFor(async () => {
      const r = await produce('verify-add', 0, txnBatch(producerId, producerEpoch, 2, 'late'));
      // CONCURRENT_TRANSACTIONS (as NOT_ENOUGH_REPLICAS) until the coordinator completes the commit
      return r.errorCode === ErrorCode.NOT_ENOUGH_REPLICAS ? null : r;
    }, 10_000, 50);
    expect(afterEnd.errorCode).to.equal(ErrorCode.INVALID_TXN_STATE);
    expect(await logEnd(0)).to.equal(end0 + 3);
  });

  it('Produce v11 is refused TRANSACTION_ABORTABLE where v10 gets INVALID_TXN_STATE; the other refusals are as for older versions', async () => {
    const { k, producerId, producerEpoch } = await startProducer('verify-abortable');
    const end1 = await logEnd(1);
    const v10 = await produce('verify-abortable', 1, txnBatch(producerId, producerEpoch, 0, 'x'), leaderOf(1), 10);
    expect(v10.errorCode).to.equal(ErrorCode.INVALID_TXN_STATE);
    const v11 = await produce('verify-abortable', 1, txnBatch(producerId, producerEpoch, 0, 'x'), leaderOf(1), 11);
    expect(v11.errorCode).to.equal(ErrorCode.TRANSACTION_ABORTABLE);
    expect(v11.errorMessage).to.equal('Partition was not added to the transaction');
    expect(await logEnd(1)).to.equal(end1);
    // an unknown producer id stays INVALID_PRODUCER_ID_MAPPING on v11
    expect((await produce('verify-abortable', 1, txnBatch(producerId + 1_000, 0, 0, 'x'), leaderOf(1), 11)).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    // once added, v11 writes it
    expect((await add(k, 'verify-abortable', producerId, producerEpoch, [1])).errorCode).to.equal(ErrorCode.NONE);
    expect(await produce('verify-abortable', 1, txnBatch(producerId, producerEpoch, 0, 'y'), leaderOf(1), 11)).to.include({ errorCode: ErrorCode.NONE, baseOffset: end1 });
    // a fenced epoch is INVALID_PRODUCER_EPOCH on v11 too (Kafka maps the coordinator's PRODUCER_FENCED for every Produce version)
    const again = await checkFor(async () => {
      const r = await k.call(ApiKeys.InitProducerId, 5, { transactionalId: 'verify-abortable', transactionTimeoutMs: 30_000, producerId: -1, producerEpoch: -1 });
      return r.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS ? null : r;
    }, 10_000, 50);
    expect(again.errorCode).to.equal(ErrorCode.NONE);
    expect((await produce('verify-abortable', 0, txnBatch(producerId, producerEpoch, 0, 'z'), leaderOf(0), 11)).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_EPOCH);
  });

  it("refuses a TxnOffsetCommit until AddOffsetsToTxn put the group's offsets partition in the transaction", async () => {
    const { k, producerId, producerEpoch } = await startProducer('verify-offsets');
    const found = await checkFor(async () => {
      const r = await callers[0]!.call(ApiKeys.FindCoordinator, 3, { key: 'verify-readers', keyType: 0 });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    const g = await connect(`${found.host}:${found.port}`);
    const commit = async () => {
      const r = await g.call(ApiKeys.TxnOffsetCommit, 3, {
        transactionalId: 'verify-offsets',
        groupId: 'verify-readers',
        producerId,
        producerEpoch,
        generationId: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, committedMetadata: null }] }],
      });
      return r.topics[0].partitions[0].errorCode as number;
    };
    expect(await commit()).to.equal(ErrorCode.INVALID_TXN_STATE);
    expect((await k.call(ApiKeys.AddOffsetsToTxn, 3, { transactionalId: 'verify-offsets', producerId, producerEpoch, groupId: 'verify-readers' })).errorCode).to.equal(ErrorCode.NONE);
    expect(await commit()).to.equal(ErrorCode.NONE);
    expect((await k.call(ApiKeys.EndTxn, 3, { transactionalId: 'verify-offsets', producerId, producerEpoch, committed: true })).errorCode).to.equal(ErrorCode.NONE);
    const fetched = await checkFor(async () => {
      const r = await g.call(ApiKeys.OffsetFetch, 7, { groupId: 'verify-readers', topics: [{ name: TOPIC, partitionIndexes: [0] }], requireStable: true });
      const p = r.topics[0].partitions[0];
      return p.errorCode === ErrorCode.UNSTABLE_OFFSET_COMMIT ? null : p;
    }, 10_000, 50);
    expect(fetched).to.deep.include({ errorCode: ErrorCode.NONE, committedOffset: 5 });
  });

  it('an unknown producer id is INVALID_PRODUCER_ID_MAPPING, an old epoch INVALID_PRODUCER_EPOCH, two producers in one request INVALID_PRODUCER_ID_MAPPING', async () => {
    const { k, producerId, producerEpoch } = await startProducer('verify-ids');
    expect((await add(k, 'verify-ids', producerId, producerEpoch, [0, 1])).errorCode).to.equal(ErrorCode.NONE);
    expect((await produce('verify-ids', 0, txnBatch(producerId + 1_000, 0, 0, 'x'))).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect((await produce('never-initialized', 0, txnBatch(producerId, producerEpoch, 0, 'x'))).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    // a second InitProducerId bumps the epoch (aborting the open transaction first): the first epoch is fenced
    const again = await checkFor(async () => {
      const r = await k.call(ApiKeys.InitProducerId, 4, { transactionalId: 'verify-ids', transactionTimeoutMs: 30_000, producerId: -1, producerEpoch: -1 });
      return r.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS ? null : r;
    }, 10_000, 50);
    expect(again.errorCode).to.equal(ErrorCode.NONE);
    expect((await produce('verify-ids', 1, txnBatch(producerId, producerEpoch, 0, 'x'))).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_EPOCH);
    // both partitions on one broker, or each on its own: a request carrying two producers is refused whole
    const both = await leaderOf(0).call(ApiKeys.Produce, 9, {
      transactionalId: 'verify-ids',
      acks: -1,
      timeoutMs: 5_000,
      topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: txnBatch(again.producerId, again.producerEpoch, 0, 'x') }, { index: 1, records: txnBatch(again.producerId + 1, again.producerEpoch, 0, 'y') }] }],
    });
    expect(both.responses[0].partitionResponses.map((p: { errorCode: number }) => p.errorCode)).to.deep.equal([ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
  });
});

describe('Kafka API: transactional Produce with transaction.partition.verification.enable false', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'transaction.partition.verification.enable': false }, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('writes a transactional batch no coordinator knows of: the hanging transaction verification prevents', async () => {
    const r = await k.call(ApiKeys.Produce, 9, { transactionalId: 'unknown', acks: -1, timeoutMs: 5_000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: txnBatch(424242, 0, 0, 'h') }] }] });
    expect(r.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    const d = await k.call(ApiKeys.DescribeProducers, 0, { topics: [{ name: TOPIC, partitionIndexes: [0] }] });
    expect(d.topics[0].partitions[0].activeProducers.find((p: { producerId: number }) => p.producerId === 424242)).to.deep.include({ currentTxnStartOffset: 0 });
  });
});
