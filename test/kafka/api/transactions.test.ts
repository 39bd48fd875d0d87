/**
 * The transaction APIs over the Kafka protocol, spoken by our codec (flexible versions: what
 * KafkaJS does not send): ApiVersions advertises AddPartitionsToTxn v0-3, AddOffsetsToTxn v0-4 and
 * EndTxn v0-5; AddPartitionsToTxn refuses unknown partitions and internal topics (the rest
 * OPERATION_NOT_ATTEMPTED); a transaction of raw transactional batches is invisible to
 * read_committed until EndTxn commits it, and an aborted one is listed as aborted;
 * DescribeTransactions and ListTransactions (with their filters, v2's transactional id pattern
 * among them) tell a transaction's state, and
 * DescribeProducers a partition's producers.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody, startTransactionalProducer } from '../../helpers/raw-kafka.js';

const TOPIC = 'txn-raw';

describe('Kafka API: transactions (AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, transactional Produce)', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let any: KafkaCaller;
  const open: KafkaCaller[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, brokerConfig: { 'transaction.state.log.num.partitions': 2 }, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
    any = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    any?.end();
    for (const k of open) k.end();
    await c?.stop();
  });

  /** Connects to the coordinator of `transactionalId` and starts its producer (InitProducerId v4). */
  async function startProducer(transactionalId: string): Promise<{ k: KafkaCaller; producerId: number; producerEpoch: number }> {
    const started = await startTransactionalProducer(any, transactionalId);
    open.push(started.k);
    return started;
  }

  const addCodes = (r: { resultsByTopicV3AndBelow: { name: string; resultsByPartition: { partitionIndex: number; partitionErrorCode: number }[] }[] }) =>
    Object.fromEntries(r.resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((p) => [`${t.name}/${p.partitionIndex}`, p.partitionErrorCode])));

  it('ApiVersions advertises AddPartitionsToTxn v0-3, AddOffsetsToTxn v0-4 and EndTxn v0-5', async () => {
    const r = await any.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    const range = (key: number) => r.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
    expect(range(24)).to.deep.include({ minVersion: 0, maxVersion: 3 });
    expect(range(25)).to.deep.include({ minVersion: 0, maxVersion: 4 });
    expect(range(26)).to.deep.include({ minVersion: 0, maxVersion: 5 });
    expect(range(22)).to.deep.include({ minVersion: 0, maxVersion: 5 });
  });

  it('InitProducerId v5 (KIP-890) is answered as v4: a new epoch, and PRODUCER_FENCED (v3: INVALID_PRODUCER_EPOCH) for a producer id that is not the one of its id', async () => {
    const { k, producerId, producerEpoch } = await startProducer('raw-init-v5');
    const init = (version: number, pid: number, epoch: number) =>
      checkFor(async () => {
        const r = await k.call(ApiKeys.InitProducerId, version, { transactionalId: 'raw-init-v5', transactionTimeoutMs: 30_000, producerId: pid, producerEpoch: epoch });
        return r.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS ? null : r;
      }, 10_000, 50);
    const resumed = await init(5, producerId, producerEpoch);
    expect(resumed).to.include({ errorCode: ErrorCode.NONE, producerId, producerEpoch: producerEpoch + 1 });
    expect((await init(5, producerId + 1_000, 0)).errorCode).to.equal(ErrorCode.PRODUCER_FENCED);
    expect((await init(4, producerId + 1_000, 0)).errorCode).to.equal(ErrorCode.PRODUCER_FENCED);
    expect((await init(3, producerId + 1_000, 0)).errorCode).to.equal(ErrorCode.INVALID_PRODUCER_EPOCH);
  });

  it('AddPartitionsToTxn refuses a partition that does not exist and an internal topic; the others are not attempted', async () => {
    const { k, producerId, producerEpoch } = await startProducer('raw-refused');
    const add = (topics: { name: string; partitions: number[] }[]) =>
      k.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: 'raw-refused', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: topics });
    expect(addCodes(await add([{ name: TOPIC, partitions: [0, 7] }]))).to.deep.equal({ [`${TOPIC}/0`]: ErrorCode.OPERATION_NOT_ATTEMPTED, [`${TOPIC}/7`]: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    expect(addCodes(await add([{ name: TOPIC, partitions: [0] }, { name: '__transaction_state', partitions: [0] }]))).to.deep.equal({
      [`${TOPIC}/0`]: ErrorCode.OPERATION_NOT_ATTEMPTED,
      '__transaction_state/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    });
    // a stale epoch: PRODUCER_FENCED (v2+), INVALID_PRODUCER_EPOCH before
    const stale = (v: number) =>
      k.call(ApiKeys.AddPartitionsToTxn, v, { v3AndBelowTransactionalId: 'raw-refused', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch + 1, v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }] });
    expect(addCodes(await stale(3))).to.deep.equal({ [`${TOPIC}/0`]: ErrorCode.PRODUCER_FENCED });
    expect(addCodes(await stale(1))).to.deep.equal({ [`${TOPIC}/0`]: ErrorCode.INVALID_PRODUCER_EPOCH });
  });

  it('transactional batches are invisible to read_committed until EndTxn commits them; an aborted transaction is listed as aborted', async () => {
    const { k, producerId, producerEpoch } = await startProducer('raw-flow');
    let sequence = 0;
    const produce = (value: string) =>
      any.call(ApiKeys.Produce, 9, {
        transactionalId: 'raw-flow',
        acks: -1,
        timeoutMs: 5_000,
        topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence: sequence++, records: [{ value: Buffer.from(value), timestamp: Date.now() }] }) }] }],
      });
    const fetchCommitted = () => any.call(ApiKeys.Fetch, 12, consumerFetchBody(TOPIC, 0, 0, { isolationLevel: 1 }));
    const add = () => k.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: 'raw-flow', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }] });
    const end = (committed: boolean) => k.call(ApiKeys.EndTxn, 4, { transactionalId: 'raw-flow', producerId, producerEpoch, committed });

    expect(addCodes(await add())).to.deep.equal({ [`${TOPIC}/0`]: ErrorCode.NONE });
    expect((await k.call(ApiKeys.AddOffsetsToTxn, 4, { transactionalId: 'raw-flow', producerId, producerEpoch, groupId: 'raw-readers' })).errorCode).to.equal(ErrorCode.NONE);
    expect((await produce('committed')).responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    const before = (await fetchCommitted()).responses[0].partitions[0];
    expect(before.lastStableOffset).to.equal(0);
    expect(before.records === null || before.records.length === 0).to.equal(true);
    expect((await end(true)).errorCode).to.equal(ErrorCode.NONE);
    // the COMMIT marker goes in once EndTxn is answered: the last stable offset moves past it
    const committed = await checkFor(async () => {
      const p = (await fetchCommitted()).responses[0].partitions[0];
      return p.lastStableOffset === 2 ? p : null;
    }, 10_000, 20);
    expect(committed.abortedTransactions ?? []).to.deep.equal([]);

    await checkFor(async () => addCodes(await add())[`${TOPIC}/0`] === ErrorCode.NONE, 10_000, 20);
    expect((await produce('aborted')).responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
    expect((await end(false)).errorCode).to.equal(ErrorCode.NONE);
    const aborted = await checkFor(async () => {
      const p = (await fetchCommitted()).responses[0].partitions[0];
      return p.lastStableOffset === 4 ? p : null;
    }, 10_000, 20);
    expect(aborted.abortedTransactions).to.deep.equal([{ producerId, firstOffset: 2 }]);
  });

  it('DescribeTransactions and ListTransactions tell a transaction as it goes from Empty to Ongoing to CompleteCommit', async () => {
    const r = await any.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    const range = (key: number) => r.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
    expect(range(65)).to.deep.include({ minVersion: 0, maxVersion: 0 });
    expect(range(66)).to.deep.include({ minVersion: 0, maxVersion: 2 });

    const startedAfter = Date.now();
    const { k, producerId, producerEpoch } = await startProducer('raw-listed');
    const list = (body: { stateFilters?: string[]; producerIdFilters?: number[]; durationFilter?: number }, version = 1) =>
      k.call(ApiKeys.ListTransactions, version, { stateFilters: [], producerIdFilters: [producerId], durationFilter: -1, ...body });
    const describeIds = (ids: string[]) => k.call(ApiKeys.DescribeTransactions, 0, { transactionalIds: ids });

    expect(await list({})).to.deep.include({ errorCode: ErrorCode.NONE, unknownStateFilters: [], transactionStates: [{ transactionalId: 'raw-listed', producerId, transactionState: 'Empty' }] });
    const add = await k.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: 'raw-listed', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }] });
    expect(addCodes(add)).to.deep.equal({ [`${TOPIC}/0`]: ErrorCode.NONE });

    const d = await describeIds(['raw-listed', 'never-seen', '']);
    const [ongoing, unknown, empty] = d.transactionStates;
    expect(ongoing).to.deep.include({ errorCode: ErrorCode.NONE, transactionalId: 'raw-listed', transactionState: 'Ongoing', transactionTimeoutMs: 30_000, producerId, producerEpoch, topics: [{ topic: TOPIC, partitions: [0] }] });
    expect(ongoing.transactionStartTimeMs).to.be.within(startedAfter, Date.now());
    expect(unknown).to.deep.include({ errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, transactionalId: 'never-seen', producerId: -1, topics: [] });
    expect(empty).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, transactionalId: '' });

    // filters: states (unknown names reported), producer ids, and v1's running-longer-than
    const byState = await list({ stateFilters: ['Ongoing', 'NoSuchState'], producerIdFilters: [] });
    expect(byState.unknownStateFilters).to.deep.equal(['NoSuchState']);
    expect(byState.transactionStates.map((t: { transactionalId: string }) => t.transactionalId)).to.include('raw-listed');
    expect(byState.transactionStates.every((t: { transactionState: string }) => t.transactionState === 'Ongoing')).to.equal(true);
    expect((await list({ stateFilters: ['CompleteCommit'] })).transactionStates).to.deep.equal([]);
    expect((await list({ producerIdFilters: [producerId + 1_000_000] })).transactionStates).to.deep.equal([]);
    expect((await list({ durationFilter: 3_600_000 })).transactionStates).to.deep.equal([]);
    // v0 has no duration filter: the same request lists it
    expect((await list({ durationFilter: 3_600_000 }, 0)).transactionStates).to.have.length(1);

    expect((await k.call(ApiKeys.EndTxn, 4, { transactionalId: 'raw-listed', producerId, producerEpoch, committed: true })).errorCode).to.equal(ErrorCode.NONE);
    const done = await checkFor(async () => {
      const x = (await describeIds(['raw-listed'])).transactionStates[0];
      return x.transactionState === 'CompleteCommit' ? x : null;
    }, 10_000, 20);
    expect(done).to.deep.include({ errorCode: ErrorCode.NONE, producerId, producerEpoch, topics: [] });
    expect((await list({ stateFilters: ['CompleteCommit'] })).transactionStates).to.deep.equal([{ transactionalId: 'raw-listed', producerId, transactionState: 'CompleteCommit' }]);
  });

  it('ListTransactions v2 filters by a regular expression the whole transactional id matches (KIP-1152); one that does not compile is INVALID_REGULAR_EXPRESSION', async () => {
    const orders = await startProducer('pattern-orders-1');
    const payments = await startProducer('pattern-payments-1');
    const producerIdFilters = [orders.producerId, payments.producerId];
    const list = async (transactionalIdPattern: string | null, version = 2) => {
      const r = await any.call(ApiKeys.ListTransactions, version, { stateFilters: [], producerIdFilters, durationFilter: -1, transactionalIdPattern });
      return { errorCode: r.errorCode, ids: r.transactionStates.map((t: { transactionalId: string }) => t.transactionalId).sort() };
    };
    expect(await list('pattern-orders-.*')).to.deep.equal({ errorCode: ErrorCode.NONE, ids: ['pattern-orders-1'] });
    expect(await list('pattern-(orders|payments)-\\d+')).to.deep.equal({ errorCode: ErrorCode.NONE, ids: ['pattern-orders-1', 'pattern-payments-1'] });
    // the whole id must match, as Java's Matcher.matches()
    expect(await list('orders')).to.deep.equal({ errorCode: ErrorCode.NONE, ids: [] });
    // null or empty: no filter
    expect(await list(null)).to.deep.equal({ errorCode: ErrorCode.NONE, ids: ['pattern-orders-1', 'pattern-payments-1'] });
    expect(await list('')).to.deep.equal({ errorCode: ErrorCode.NONE, ids: ['pattern-orders-1', 'pattern-payments-1'] });
    // before v2 the request has no pattern: the same body lists both
    expect(await list('pattern-orders-.*', 1)).to.deep.equal({ errorCode: ErrorCode.NONE, ids: ['pattern-orders-1', 'pattern-payments-1'] });
    // a pattern RE2J does not compile
    const bad = await any.call(ApiKeys.ListTransactions, 2, { stateFilters: [], producerIdFilters: [], durationFilter: -1, transactionalIdPattern: 'pattern-(orders' });
    expect(bad).to.deep.include({ errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, transactionStates: [] });
    expect(ErrorCode.INVALID_REGULAR_EXPRESSION).to.equal(128);
  });

  it("DescribeProducers tells a partition's producers: epoch, last sequence, and the open transaction's first offset until its marker", async () => {
    const r = await any.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === 61)).to.deep.include({ minVersion: 0, maxVersion: 0 });
    const { k, producerId, producerEpoch } = await startProducer('raw-producers');
    const describeProducers = async () => {
      const d = await any.call(ApiKeys.DescribeProducers, 0, { topics: [{ name: TOPIC, partitionIndexes: [0] }, { name: 'no-such-topic', partitionIndexes: [0] }] });
      return { mine: d.topics[0].partitions[0], unknown: d.topics[1].partitions[0] };
    };
    const add = await k.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: 'raw-producers', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }] });
    expect(addCodes(add)).to.deep.equal({ [`${TOPIC}/0`]: ErrorCode.NONE });
    const produced = await any.call(ApiKeys.Produce, 9, {
      transactionalId: 'raw-producers',
      acks: -1,
      timeoutMs: 5_000,
      topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence: 0, records: [0, 1, 2].map((i) => ({ value: Buffer.from(`p${i}`), timestamp: Date.now() })) }) }] }],
    });
    const base = produced.responses[0].partitionResponses[0].baseOffset;
    const open = await describeProducers();
    expect(open.mine.errorCode).to.equal(ErrorCode.NONE);
    expect(open.mine.activeProducers.find((p: { producerId: number }) => p.producerId === producerId)).to.deep.include({ producerEpoch, lastSequence: 2, currentTxnStartOffset: base });
    expect(open.unknown.errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

    expect((await k.call(ApiKeys.EndTxn, 4, { transactionalId: 'raw-producers', producerId, producerEpoch, committed: true })).errorCode).to.equal(ErrorCode.NONE);
    const ended = await checkFor(async () => {
      const p = (await describeProducers()).mine.activeProducers.find((x: { producerId: number }) => x.producerId === producerId);
      return p && p.currentTxnStartOffset === -1 ? p : null;
    }, 10_000, 20);
    // the marker's coordinator epoch is the producer's now
    expect(ended).to.deep.include({ producerEpoch, lastSequence: 2 });
    expect(ended.coordinatorEpoch).to.be.at.least(0);
  });
});
