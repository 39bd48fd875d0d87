/**
 * ListOffsets v7-v11 over the Kafka protocol, as Kafka's broker answers them: MAX_TIMESTAMP (-3,
 * KIP-734; `kafka-get-offsets --time max-timestamp`) names the record holding the partition's
 * largest timestamp wherever it sits, none (-1) on an empty partition or while that record is not
 * fetchable at the isolation level asked (an open transaction's under read_committed);
 * EARLIEST_LOCAL (-4, KIP-405) is the log start offset, also after DeleteRecords moved it;
 * LATEST_TIERED (-5, KIP-1005) and EARLIEST_PENDING_UPLOAD (-6, KIP-1023, v11) are none without
 * tiered storage; v10's timeout (KIP-1075, for lookups in tiered storage) changes no answer. Each special timestamp needs its
 * version (else UNSUPPORTED_VERSION for that partition, the others answered), and with an
 * authorizer DESCRIBE on the topic comes first.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { AclOperation, ResourceType } from '../../../src/security/acl.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const { NONE, UNSUPPORTED_VERSION, NOT_LEADER_OR_FOLLOWER, TOPIC_AUTHORIZATION_FAILED } = ErrorCode;
const [LATEST, EARLIEST, MAX_TIMESTAMP, EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING_UPLOAD] = [-1, -2, -3, -4, -5, -6];
const TOPIC = 'offsets';
/** Partitions of TOPIC by use. */
const [OUT_OF_ORDER, EMPTY, DELETED, TXN] = [0, 1, 2, 3];

interface PartitionAnswer {
  partitionIndex: number;
  errorCode: number;
  timestamp: number;
  offset: number;
  leaderEpoch: number;
}

/** One ListOffsets of `partitions` ([partition, timestamp] pairs) of `topic`; the partitions' answers in order. */
async function listOffsets(k: KafkaCaller, version: number, partitions: [number, number][], isolationLevel: 0 | 1 = 0, topic = TOPIC, timeoutMs = 30_000): Promise<PartitionAnswer[]> {
  const r = await k.call(ApiKeys.ListOffsets, version, {
    replicaId: -1,
    isolationLevel,
    timeoutMs,
    topics: [{ name: topic, partitions: partitions.map(([partitionIndex, timestamp]) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp })) }],
  });
  expect(r.topics).to.have.length(1);
  return r.topics[0].partitions.map((p: PartitionAnswer) => answer(p.partitionIndex, p.errorCode, p.offset, p.timestamp, p.leaderEpoch));
}

const answer = (partitionIndex: number, errorCode: number, offset: number, timestamp: number, leaderEpoch: number): PartitionAnswer => ({ partitionIndex, errorCode, timestamp, offset, leaderEpoch });

/** A batch of one record per timestamp (CreateTime). */
const batchOf = (timestamps: number[], txn?: { producerId: number }) =>
  encodeRecordBatch({
    ...(txn ? { transactional: true, producerId: txn.producerId, producerEpoch: 0, baseSequence: 0 } : {}),
    records: timestamps.map((timestamp, i) => ({ value: Buffer.from(`r${i}`), timestamp })),
  });

async function produce(k: KafkaCaller, partition: number, records: Buffer, transactionalId: string | null = null): Promise<number> {
  const r = await k.call(ApiKeys.Produce, 9, { transactionalId, acks: -1, timeoutMs: 5_000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records }] }] });
  expect(r.responses[0].partitionResponses[0].errorCode).to.equal(NONE);
  return r.responses[0].partitionResponses[0].baseOffset;
}

describe('Kafka API: ListOffsets v7-v11 (max timestamp, earliest local, latest tiered, earliest pending upload)', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  /** callers by broker id */
  const callers = new Map<number, KafkaCaller>();
  /** partition -> [leader id, leader epoch] */
  const leaders = new Map<number, [number, number]>();
  const leaderOf = (p: number) => callers.get(leaders.get(p)![0])!;
  const followerOf = (p: number) => callers.get(leaders.get(p)![0] === 1 ? 2 : 1)!;
  const epochOf = (p: number) => leaders.get(p)![1];
  const t0 = Date.now() - 3_600_000;

  before(async () => {
    // the hanging transaction of the read_committed case is written as a broker without KIP-890's verification takes it
    c = await startKafkaCluster({ brokers: 2, brokerConfig: { 'transaction.partition.verification.enable': false }, topics: [{ name: TOPIC, partitions: 4, replicationFactor: 2 }] });
    for (const [i, endpoint] of c.bootstrap.entries()) callers.set(i + 1, await KafkaCaller.connect(endpoint));
    await checkFor(async () => {
      const md = await callers.get(1)!.call(ApiKeys.Metadata, 9, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
      for (const p of md.topics[0].partitions) leaders.set(p.partitionIndex, [p.leaderId, p.leaderEpoch]);
      return md.topics[0].partitions.length === 4 && [...leaders.values()].every(([l]) => l === 1 || l === 2);
    }, 10_000, 20);
  });
  after(async () => {
    for (const k of callers.values()) k.end();
    await c?.stop();
  });

  it('ApiVersions advertises ListOffsets v1-v11', async () => {
    const r = await callers.get(1)!.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    expect(r.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.ListOffsets)).to.deep.include({ minVersion: 1, maxVersion: 11 });
  });

  it('MAX_TIMESTAMP names the record with the largest timestamp, in the middle of the log and of its batch (v7-v11)', async () => {
    const leader = leaderOf(OUT_OF_ORDER);
    const first = await produce(leader, OUT_OF_ORDER, batchOf([t0 + 1, t0 + 2]));
    await produce(leader, OUT_OF_ORDER, batchOf([t0 + 3, t0 + 500, t0 + 4]));
    await produce(leader, OUT_OF_ORDER, batchOf([t0 + 5]));
    await produce(leader, OUT_OF_ORDER, batchOf([t0 + 500, t0 + 6]));
    // the first record of the largest timestamp: offset 3 (offset 5 ties with it)
    for (const v of [7, 8, 9, 10, 11]) expect(await listOffsets(leader, v, [[OUT_OF_ORDER, MAX_TIMESTAMP]])).to.deep.equal([answer(OUT_OF_ORDER, NONE, first + 3, t0 + 500, epochOf(OUT_OF_ORDER))]);
    // v10's timeout is for lookups in tiered storage: a short one changes nothing here
    expect(await listOffsets(leader, 10, [[OUT_OF_ORDER, MAX_TIMESTAMP], [OUT_OF_ORDER, t0 + 2]], 0, TOPIC, 1)).to.deep.equal([
      answer(OUT_OF_ORDER, NONE, first + 3, t0 + 500, epochOf(OUT_OF_ORDER)),
      answer(OUT_OF_ORDER, NONE, first + 1, t0 + 2, epochOf(OUT_OF_ORDER)),
    ]);
    // a later, larger one takes over
    const last = await produce(leader, OUT_OF_ORDER, batchOf([t0 + 900]));
    expect(await listOffsets(leader, 7, [[OUT_OF_ORDER, MAX_TIMESTAMP]])).to.deep.equal([answer(OUT_OF_ORDER, NONE, last, t0 + 900, epochOf(OUT_OF_ORDER))]);
    // the follower's replica is no leader
    expect((await listOffsets(followerOf(OUT_OF_ORDER), 7, [[OUT_OF_ORDER, MAX_TIMESTAMP]]))[0]!.errorCode).to.equal(NOT_LEADER_OR_FOLLOWER);
  });

  it('an empty partition: MAX_TIMESTAMP, LATEST_TIERED and EARLIEST_PENDING_UPLOAD are none (-1), EARLIEST_LOCAL is the log start (0)', async () => {
    const leader = leaderOf(EMPTY);
    expect(await listOffsets(leader, 11, [[EMPTY, MAX_TIMESTAMP], [EMPTY, EARLIEST_LOCAL], [EMPTY, LATEST_TIERED], [EMPTY, EARLIEST], [EMPTY, EARLIEST_PENDING_UPLOAD]])).to.deep.equal([
      answer(EMPTY, NONE, -1, -1, -1),
      answer(EMPTY, NONE, 0, -1, epochOf(EMPTY)),
      answer(EMPTY, NONE, -1, -1, -1),
      answer(EMPTY, NONE, 0, -1, epochOf(EMPTY)),
      answer(EMPTY, NONE, -1, -1, -1),
    ]);
  });

  it('EARLIEST_LOCAL follows the log start that DeleteRecords moved, as EARLIEST does (no tiered storage); LATEST_TIERED stays none', async () => {
    const leader = leaderOf(DELETED);
    await produce(leader, DELETED, batchOf([t0, t0 + 1, t0 + 2, t0 + 3]));
    await produce(leader, DELETED, batchOf([t0 + 4]));
    const del = await leader.call(ApiKeys.DeleteRecords, 2, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: DELETED, offset: 3 }] }], timeoutMs: 5_000 });
    expect(del.topics[0].partitions[0]).to.include({ errorCode: NONE, lowWatermark: 3 });
    expect(await listOffsets(leader, 8, [[DELETED, EARLIEST_LOCAL], [DELETED, EARLIEST], [DELETED, LATEST]])).to.deep.equal([
      answer(DELETED, NONE, 3, -1, epochOf(DELETED)),
      answer(DELETED, NONE, 3, -1, epochOf(DELETED)),
      answer(DELETED, NONE, 5, -1, epochOf(DELETED)),
    ]);
    expect(await listOffsets(leader, 9, [[DELETED, LATEST_TIERED]])).to.deep.equal([answer(DELETED, NONE, -1, -1, -1)]);
    // nothing waits to be uploaded either, with records in the log
    expect(await listOffsets(leader, 11, [[DELETED, EARLIEST_PENDING_UPLOAD], [DELETED, LATEST]])).to.deep.equal([answer(DELETED, NONE, -1, -1, -1), answer(DELETED, NONE, 5, -1, epochOf(DELETED))]);
  });

  it('a special timestamp older than the version is UNSUPPORTED_VERSION for its partition, as Kafka; the others are answered', async () => {
    const leader = leaderOf(EMPTY);
    const unsupported = answer(EMPTY, UNSUPPORTED_VERSION, -1, -1, -1);
    expect(await listOffsets(leader, 6, [[EMPTY, MAX_TIMESTAMP], [EMPTY, LATEST]])).to.deep.equal([unsupported, answer(EMPTY, NONE, 0, -1, epochOf(EMPTY))]);
    expect(await listOffsets(leader, 7, [[EMPTY, EARLIEST_LOCAL], [EMPTY, MAX_TIMESTAMP]])).to.deep.equal([unsupported, answer(EMPTY, NONE, -1, -1, -1)]);
    expect(await listOffsets(leader, 8, [[EMPTY, LATEST_TIERED], [EMPTY, EARLIEST_LOCAL]])).to.deep.equal([unsupported, answer(EMPTY, NONE, 0, -1, epochOf(EMPTY))]);
    expect(await listOffsets(leader, 10, [[EMPTY, EARLIEST_PENDING_UPLOAD], [EMPTY, LATEST_TIERED]])).to.deep.equal([unsupported, answer(EMPTY, NONE, -1, -1, -1)]);
    // one no version has
    expect(await listOffsets(leader, 11, [[EMPTY, -7], [EMPTY, -100]])).to.deep.equal([unsupported, unsupported]);
    expect(await listOffsets(leader, 1, [[EMPTY, EARLIEST], [EMPTY, MAX_TIMESTAMP]])).to.deep.equal([answer(EMPTY, NONE, 0, -1, -1), unsupported]);
  });

  it("read_committed: an open transaction's record is no answer (-1) until it commits, for MAX_TIMESTAMP and a timestamp alike; read_uncommitted sees it", async () => {
    const leader = leaderOf(TXN);
    // ahead of the COMMIT marker's own timestamp (now), which would otherwise be the largest
    const t1 = Date.now() + 3_600_000;
    const base = await produce(leader, TXN, batchOf([t1 + 10, t1 + 20]));
    const producerId = 700_001;
    const open = await produce(leader, TXN, batchOf([t1 + 99, t1 + 30], { producerId }), 'lo-txn');
    expect(open).to.equal(base + 2);
    const epoch = epochOf(TXN);
    const uncommitted = await listOffsets(leader, 7, [[TXN, MAX_TIMESTAMP], [TXN, t1 + 50]], 0);
    expect(uncommitted).to.deep.equal([answer(TXN, NONE, open, t1 + 99, epoch), answer(TXN, NONE, open, t1 + 99, epoch)]);
    const committed = await listOffsets(leader, 7, [[TXN, MAX_TIMESTAMP], [TXN, t1 + 50], [TXN, t1 + 15], [TXN, LATEST]], 1);
    expect(committed).to.deep.equal([answer(TXN, NONE, -1, -1, -1), answer(TXN, NONE, -1, -1, -1), answer(TXN, NONE, base + 1, t1 + 20, epoch), answer(TXN, NONE, open, -1, epoch)]);

    const marker = { producerId, producerEpoch: 0, transactionResult: true, coordinatorEpoch: 0, topics: [{ name: TOPIC, partitionIndexes: [TXN] }] };
    const m = await leader.call(ApiKeys.WriteTxnMarkers, 1, { markers: [marker] });
    expect(m.markers[0].topics[0].partitions[0].errorCode).to.equal(NONE);
    expect(await listOffsets(leader, 7, [[TXN, MAX_TIMESTAMP], [TXN, t1 + 50]], 1)).to.deep.equal([answer(TXN, NONE, open, t1 + 99, epoch), answer(TXN, NONE, open, t1 + 99, epoch)]);
  });
});

describe('Kafka API: ListOffsets v7-v9 with an authorizer', function () {
  this.timeout(30_000);
  let a: AuthorizedKafkaCluster;
  let root: KafkaCaller;
  let alice: KafkaCaller;

  before(async () => {
    a = await startAuthorizedKafkaCluster({ alice: 'alice-secret' }, { brokers: 1, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
    root = await a.login('admin');
    alice = await a.login('alice');
    await produce(root, 0, batchOf([1_000, 9_000, 2_000]));
  });
  after(async () => {
    await a?.stop();
  });

  it('needs DESCRIBE on the topic, checked before the version: TOPIC_AUTHORIZATION_FAILED for every partition, then answered once allowed', async () => {
    const denied = answer(0, TOPIC_AUTHORIZATION_FAILED, -1, -1, -1);
    expect(await listOffsets(alice, 8, [[0, MAX_TIMESTAMP], [0, EARLIEST_LOCAL], [0, LATEST_TIERED]])).to.deep.equal([denied, denied, denied]);
    await a.allow({ principal: 'User:alice', operation: AclOperation.DESCRIBE, resourceType: ResourceType.TOPIC, resourceName: TOPIC });
    const [max, local, tiered] = await listOffsets(alice, 8, [[0, MAX_TIMESTAMP], [0, EARLIEST_LOCAL], [0, LATEST_TIERED]]);
    expect([max!.errorCode, max!.offset, max!.timestamp]).to.deep.equal([NONE, 1, 9_000]);
    expect([local!.errorCode, local!.offset]).to.deep.equal([NONE, 0]);
    expect(tiered!.errorCode).to.equal(UNSUPPORTED_VERSION);
  });
});
