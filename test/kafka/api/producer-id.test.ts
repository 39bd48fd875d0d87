/**
 * InitProducerId and idempotent Produce over the Kafka protocol: distinct producer ids from the
 * brokers' controller-allocated blocks, a transactional id's from its transaction coordinator,
 * and sequence checking (a retry answered with its first offsets and written once; gaps and
 * fenced epochs refused).
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import { checkFor } from '../../helpers/check-for.js';

describe('Kafka API: InitProducerId and idempotent produce', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  const callers: KafkaCaller[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, topics: [{ name: 'idem', partitions: 1, replicationFactor: 2 }] });
    for (const e of c.bootstrap) callers.push(await KafkaCaller.connect(e));
  });
  after(async () => {
    for (const k of callers) k.end();
    await c?.stop();
  });

  it('gives every producer its own id, epoch 0, from either broker (v0 to v4)', async () => {
    const ids = new Set<number>();
    for (const v of [0, 1, 2, 3, 4]) {
      for (const k of callers) {
        const r = await k.call(ApiKeys.InitProducerId, v, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
        expect(r.errorCode).to.equal(ErrorCode.NONE);
        expect(r.producerEpoch).to.equal(0);
        expect(r.producerId).to.be.at.least(0);
        ids.add(r.producerId);
      }
    }
    expect(ids.size).to.equal(10);
  });

  it('a producer id without its epoch, or an epoch without its id, is INVALID_REQUEST (v3+), idempotent or transactional', async () => {
    for (const transactionalId of [null, 'half-named']) {
      for (const [producerId, producerEpoch] of [
        [7, -1],
        [-1, 3],
      ]) {
        const r = await callers[0]!.call(ApiKeys.InitProducerId, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId, producerEpoch });
        expect(r).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, producerId: -1, producerEpoch: -1 });
      }
    }
  });

  it('a transactional id is answered by its transaction coordinator only: its producer id, the epoch bumped by each InitProducerId (v0 to v4)', async () => {
    const found = await checkFor(async () => {
      const r = await callers[0]!.call(ApiKeys.FindCoordinator, 3, { key: 'tx', keyType: 1 });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    const coordinator = callers[found.nodeId - 1]!;
    const other = callers[found.nodeId === 1 ? 1 : 0]!;
    const init = (k: KafkaCaller, v: number) => k.call(ApiKeys.InitProducerId, v, { transactionalId: 'tx', transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    const first = await checkFor(async () => {
      const r = await init(coordinator, 0);
      return r.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? null : r;
    }, 15_000, 50);
    expect(first).to.deep.include({ errorCode: ErrorCode.NONE, producerEpoch: 0 });
    for (const v of [1, 2, 3, 4]) expect(await init(coordinator, v)).to.deep.include({ errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: v });
    expect((await init(other, 4)).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
  });

  it('a retried idempotent batch is answered with its first offsets and written once; a gap is refused', async () => {
    const init = await callers[0]!.call(ApiKeys.InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    const md = await callers[0]!.call(ApiKeys.Metadata, 9, { topics: [{ name: 'idem' }], allowAutoTopicCreation: false });
    const leader = callers[md.topics[0].partitions[0].leaderId - 1]!;
    const batch = (seq: number, n: number) =>
      encodeRecordBatch({ producerId: init.producerId, producerEpoch: 0, baseSequence: seq, records: Array.from({ length: n }, (_, i) => ({ value: Buffer.from(`s${seq + i}`), timestamp: Date.now() })) });
    const produce = async (records: Buffer) =>
      (await leader.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'idem', partitionData: [{ index: 0, records }] }] })).responses[0].partitionResponses[0];
    expect(await produce(batch(0, 2))).to.include({ errorCode: ErrorCode.NONE, baseOffset: 0 });
    expect(await produce(batch(2, 3))).to.include({ errorCode: ErrorCode.NONE, baseOffset: 2 });
    expect(await produce(batch(2, 3))).to.include({ errorCode: ErrorCode.NONE, baseOffset: 2 });
    expect(await produce(batch(9, 1))).to.include({ errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
    const end = await leader.call(ApiKeys.ListOffsets, 5, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'idem', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] });
    expect(end.topics[0].partitions[0].offset).to.equal(5);
  });
});
