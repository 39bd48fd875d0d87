/**
 * Topics by id on the client paths (KIP-516 / KIP-848 follow-ups), on two brokers: Produce v13
 * (Kafka 4.1) and OffsetCommit / OffsetFetch v10 (Kafka 4.2) name topics by id in requests and
 * answers. Unknown and zero ids are UNKNOWN_TOPIC_ID on each of their partitions (nothing written
 * or committed for them, the other topics as usual), a topic deleted and made again under its
 * name refuses its old id, Produce v13 keeps acks 0/1/all, leader hints, record errors and
 * transactions (verified, and added by the broker at transaction.version 2), offsets committed by
 * id are fetched by name and the reverse, and a consumer group member's epoch is checked as at
 * v9. Then with an authorizer: WRITE / READ / DESCRIBE are checked on the topic an id names.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { ZERO_TOPIC_ID } from '../../../src/protocol/topic-id.js';
import { AclOperation, ResourceType } from '../../../src/security/acl.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { joinHeartbeat, memberHeartbeat } from '../../helpers/consumer-group-requests.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, startTransactionalProducer } from '../../helpers/raw-kafka.js';

/** An id no topic has (nor ever will: random ids are 16 random bytes). */
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAg';

const batch = (...values: string[]) => encodeRecordBatch({ records: values.map((v) => ({ value: Buffer.from(v), timestamp: Date.now() })) });
const txnBatch = (producerId: number, producerEpoch: number, baseSequence: number, value: string) =>
  encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence, records: [{ value: Buffer.from(value), timestamp: Date.now() }] });

/** [topic id, partition, records] */
type Part = [string, number, Uint8Array | null];

/** A Produce v13 body: each topic by id, its partitions in the order given. */
function produceById(parts: Part[], o: { acks?: number; transactionalId?: string | null } = {}) {
  const topics = new Map<string, { index: number; records: Uint8Array | null }[]>();
  for (const [id, index, records] of parts) topics.set(id, [...(topics.get(id) ?? []), { index, records }]);
  return { transactionalId: o.transactionalId ?? null, acks: o.acks ?? -1, timeoutMs: 5_000, topicData: [...topics].map(([topicId, partitionData]) => ({ topicId, partitionData })) };
}

/** [topic id or name, partition, offset] */
type Offset = [string, number, number];

/** An OffsetCommit body outside group management (v10: topics by id, else by name). */
function commitBody(version: number, groupId: string, offsets: Offset[], member: { memberId: string; epoch: number } = { memberId: '', epoch: -1 }) {
  const topics = new Map<string, { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; committedMetadata: string | null }[]>();
  for (const [t, partitionIndex, committedOffset] of offsets) topics.set(t, [...(topics.get(t) ?? []), { partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: `m${committedOffset}` }]);
  return {
    groupId,
    generationIdOrMemberEpoch: member.epoch,
    memberId: member.memberId,
    groupInstanceId: null,
    retentionTimeMs: -1,
    topics: [...topics].map(([t, partitions]) => (version >= 10 ? { topicId: t, partitions } : { name: t, partitions })),
  };
}

/** An OffsetFetch v8+ body for one group (v10: topics by id, else by name; null: every committed partition). */
function fetchBody(version: number, groupId: string, topics: [string, number[]][] | null, o: { memberId?: string | null; memberEpoch?: number; requireStable?: boolean } = {}) {
  const named = topics === null ? null : topics.map(([t, partitionIndexes]) => (version >= 10 ? { topicId: t, partitionIndexes } : { name: t, partitionIndexes }));
  return { groups: [{ groupId, memberId: o.memberId ?? null, memberEpoch: o.memberEpoch ?? -1, topics: named }], requireStable: o.requireStable ?? false };
}

type Coded = { topicId?: string; name?: string; partitions?: { partitionIndex: number; errorCode: number; committedOffset?: number }[]; partitionResponses?: { index: number; errorCode: number }[] };

/** 'topic/partition' -> error code, the topic as the answer names it (id from the versions by id, else name). */
function codes(topics: Coded[], byId: boolean): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of topics) {
    const topic = byId ? t.topicId : t.name;
    for (const p of t.partitions ?? []) out[`${topic}/${p.partitionIndex}`] = p.errorCode;
    for (const p of t.partitionResponses ?? []) out[`${topic}/${p.index}`] = p.errorCode;
  }
  return out;
}

/** 'topic/partition' -> committed offset of an OffsetFetch group's answer. */
function offsets(topics: Coded[], byId: boolean): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of topics) for (const p of t.partitions ?? []) out[`${byId ? t.topicId : t.name}/${p.partitionIndex}`] = p.committedOffset!;
  return out;
}

describe('Kafka API: Produce v13, OffsetCommit v10 and OffsetFetch v10 by topic id', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;
  const callers = new Map<number, KafkaCaller>();
  const endpoints = new Map<number, string>();
  const open: KafkaCaller[] = [];
  const ids = new Map<string, string>();
  const leaders = new Map<string, number>();

  /** Metadata v12 by name, once every partition has a leader: learns ids and leaders. */
  async function describe12(names: string[]) {
    const md = await checkFor(async () => {
      const r = await k.call(ApiKeys.Metadata, 12, { topics: names.map((name) => ({ topicId: ZERO_TOPIC_ID, name })), allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return r.topics.every((t: { errorCode: number; partitions: { leaderId: number }[] }) => t.errorCode === 0 && t.partitions.every((p) => p.leaderId >= 0)) ? r : null;
    }, 15_000, 20);
    for (const t of md.topics) {
      ids.set(t.name, t.topicId);
      for (const p of t.partitions) leaders.set(`${t.name}-${p.partitionIndex}`, p.leaderId);
    }
    return md;
  }

  const leaderOf = (topic: string, partition: number) => callers.get(leaders.get(`${topic}-${partition}`)!)!;
  /** A connection of its own to a partition's leader (closed after the test). */
  const freshToLeaderOf = async (topic: string, partition: number) => {
    const x = await KafkaCaller.connect(endpoints.get(leaders.get(`${topic}-${partition}`)!)!);
    open.push(x);
    return x;
  };
  const otherThanLeaderOf = (topic: string, partition: number) => [...callers].find(([id]) => id !== leaders.get(`${topic}-${partition}`))![1];
  const id = (topic: string) => ids.get(topic)!;

  const logEnd = async (topic: string, partition: number) => {
    const r = await leaderOf(topic, partition).call(ApiKeys.ListOffsets, 5, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1 }] }] });
    return r.topics[0].partitions[0].offset as number;
  };

  /** A connection to the coordinator of `groupId`, once it answers for it. */
  async function coordinatorOf(groupId: string): Promise<KafkaCaller> {
    const found = await checkFor(async () => {
      const r = await k.call(ApiKeys.FindCoordinator, 3, { key: groupId, keyType: 0 });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    const g = await KafkaCaller.connect(`${found.host}:${found.port}`);
    open.push(g);
    await checkFor(async () => (await g.call(ApiKeys.OffsetFetch, 9, fetchBody(9, groupId, null))).groups[0].errorCode === ErrorCode.NONE, 15_000, 50);
    return g;
  }

  before(async () => {
    c = await startKafkaCluster({
      brokers: 2,
      brokerConfig: { 'transaction.state.log.num.partitions': 2, 'transaction.state.log.replication.factor': 1, 'transaction.state.log.min.isr': 1 },
      topics: [
        { name: 'alpha', partitions: 2, replicationFactor: 1 },
        { name: 'beta', partitions: 1, replicationFactor: 1 },
      ],
    });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
    const md = await describe12(['alpha', 'beta']);
    for (const b of md.brokers as { nodeId: number; host: string; port: number }[]) {
      endpoints.set(b.nodeId, `${b.host}:${b.port}`);
      callers.set(b.nodeId, await KafkaCaller.connect(`${b.host}:${b.port}`));
    }
  });
  afterEach(() => {
    for (const x of open.splice(0)) x.end();
  });
  after(async () => {
    k?.end();
    for (const x of callers.values()) x.end();
    await c?.stop();
  });

  it('ApiVersions advertises Produce 3-13, OffsetCommit 0-10 and OffsetFetch 0-10', async () => {
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    const range = (key: number) => r.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
    expect(range(ApiKeys.Produce)).to.deep.include({ minVersion: 3, maxVersion: 13 });
    expect(range(ApiKeys.OffsetCommit)).to.deep.include({ minVersion: 0, maxVersion: 10 });
    expect(range(ApiKeys.OffsetFetch)).to.deep.include({ minVersion: 0, maxVersion: 10 });
  });

  describe('Produce v13', () => {
    it('writes a partition named by its topic id with acks all, 1 and 0, and answers with the id', async () => {
      const start = await logEnd('alpha', 0);
      const all = await leaderOf('alpha', 0).call(ApiKeys.Produce, 13, produceById([[id('alpha'), 0, batch('a', 'b')]]));
      expect(all.responses).to.have.length(1);
      expect(all.responses[0].topicId).to.equal(id('alpha'));
      expect(all.responses[0].partitionResponses[0]).to.deep.include({ index: 0, errorCode: ErrorCode.NONE, baseOffset: start, errorMessage: null });
      const one = await leaderOf('alpha', 0).call(ApiKeys.Produce, 13, produceById([[id('alpha'), 0, batch('c')]], { acks: 1 }));
      expect(one.responses[0].partitionResponses[0]).to.deep.include({ errorCode: ErrorCode.NONE, baseOffset: start + 2 });
      // acks 0: no answer, the batch written all the same
      leaderOf('alpha', 0).socket.request(ApiKeys.Produce, 13, 9_999, produceById([[id('alpha'), 0, batch('d')]], { acks: 0 }));
      await checkFor(async () => (await logEnd('alpha', 0)) === start + 4, 5_000, 10);
      // the same partition by name (v12) goes on from there
      const byName = await leaderOf('alpha', 0).call(ApiKeys.Produce, 12, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'alpha', partitionData: [{ index: 0, records: batch('e') }] }] });
      expect(byName.responses[0]).to.deep.include({ name: 'alpha' });
      expect(byName.responses[0].partitionResponses[0]).to.deep.include({ errorCode: ErrorCode.NONE, baseOffset: start + 4 });
    });

    it('an unknown or zero id is UNKNOWN_TOPIC_ID on each of its partitions, nothing written; the known topics beside it are written', async () => {
      const alphaEnd = await logEnd('alpha', 0);
      const k0 = leaderOf('alpha', 0);
      const r = await k0.call(ApiKeys.Produce, 13, produceById([[UNKNOWN_ID, 0, batch('x')], [UNKNOWN_ID, 1, batch('x')], [id('alpha'), 0, batch('y')], [ZERO_TOPIC_ID, 0, batch('z')]]));
      expect(r.responses.map((t: { topicId: string }) => t.topicId)).to.deep.equal([UNKNOWN_ID, id('alpha'), ZERO_TOPIC_ID]);
      expect(codes(r.responses, true)).to.deep.equal({
        [`${UNKNOWN_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID,
        [`${UNKNOWN_ID}/1`]: ErrorCode.UNKNOWN_TOPIC_ID,
        [`${id('alpha')}/0`]: ErrorCode.NONE,
        [`${ZERO_TOPIC_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID,
      });
      expect(r.responses[0].partitionResponses[0]).to.deep.include({ baseOffset: -1, errorMessage: null });
      expect(await logEnd('alpha', 0)).to.equal(alphaEnd + 1);
      // every partition unknown: answered without a write, and acks 0 writes nothing either (and,
      // with a partition refused, closes its connection, as Kafka's does)
      const none = await k0.call(ApiKeys.Produce, 13, produceById([[UNKNOWN_ID, 0, batch('x')]]));
      expect(codes(none.responses, true)).to.deep.equal({ [`${UNKNOWN_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID });
      const zero = await freshToLeaderOf('alpha', 0);
      zero.socket.request(ApiKeys.Produce, 13, 9_998, produceById([[UNKNOWN_ID, 0, batch('x')], [id('alpha'), 0, batch('w')]], { acks: 0 }));
      expect(await zero.closed(), 'the acks=0 connection closed').to.equal(true);
      await checkFor(async () => (await logEnd('alpha', 0)) === alphaEnd + 2, 5_000, 10);
    });

    it("a partition's errors are as at v12: NOT_LEADER_OR_FOLLOWER naming the leader and its endpoint (KIP-951), a partition the topic lacks, CORRUPT_MESSAGE", async () => {
      const leaderId = leaders.get('alpha-1')!;
      const r = await otherThanLeaderOf('alpha', 1).call(ApiKeys.Produce, 13, produceById([[id('alpha'), 1, batch('x')]]));
      const p = r.responses[0].partitionResponses[0];
      expect(p.errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      expect(p.currentLeader.leaderId).to.equal(leaderId);
      expect(r.nodeEndpoints.map((n: { nodeId: number }) => n.nodeId)).to.deep.equal([leaderId]);
      // a partition the topic does not have: answered as by name
      const missing = await leaderOf('alpha', 0).call(ApiKeys.Produce, 13, produceById([[id('alpha'), 7, batch('x')]]));
      const missingByName = await leaderOf('alpha', 0).call(ApiKeys.Produce, 12, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'alpha', partitionData: [{ index: 7, records: batch('x') }] }] });
      expect(missing.responses[0].partitionResponses[0].errorCode).to.not.equal(ErrorCode.NONE);
      expect(missing.responses[0].partitionResponses[0].errorCode).to.equal(missingByName.responses[0].partitionResponses[0].errorCode);
      const before = await logEnd('beta', 0);
      const corrupt = batch('y');
      corrupt[corrupt.length - 1] ^= 0xff; // breaks the CRC
      const cr = await leaderOf('beta', 0).call(ApiKeys.Produce, 13, produceById([[id('beta'), 0, corrupt]]));
      expect(cr.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
      expect(cr.responses[0].partitionResponses[0].errorMessage).to.be.a('string');
      expect(await logEnd('beta', 0)).to.equal(before);
    });

    it('transactional batches by id: verified with the coordinator (TRANSACTION_ABORTABLE until added), and at transaction.version 2 added by the broker', async () => {
      const to = leaderOf('beta', 0);
      const finalizeTransactionVersion = async (level: number) => {
        const r = await k.call(ApiKeys.UpdateFeatures, 1, { timeoutMs: 10_000, featureUpdates: [{ feature: 'transaction.version', maxVersionLevel: level, upgradeType: level < 2 ? 2 : 1 }], validateOnly: false });
        expect(r.errorCode, r.errorMessage).to.equal(ErrorCode.NONE);
        await checkFor(async () => {
          const v = await to.call(ApiKeys.ApiVersions, 4, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
          return (v.finalizedFeatures.find((f: { name: string; maxVersionLevel: number }) => f.name === 'transaction.version')?.maxVersionLevel ?? 0) === level;
        }, 10_000, 20);
      };
      // transaction.version 0 (a new cluster has 2): the producer adds its partitions
      await finalizeTransactionVersion(0);
      const started = await startTransactionalProducer(k, 'by-id');
      open.push(started.k);
      const { producerId, producerEpoch } = started;
      const before = await logEnd('beta', 0);
      const early = await to.call(ApiKeys.Produce, 13, produceById([[id('beta'), 0, txnBatch(producerId, producerEpoch, 0, 'early')]], { transactionalId: 'by-id' }));
      expect(early.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.TRANSACTION_ABORTABLE);
      expect(await logEnd('beta', 0)).to.equal(before);
      const added = await started.k.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: 'by-id', v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: [{ name: 'beta', partitions: [0] }] });
      expect(added.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode).to.equal(ErrorCode.NONE);
      const written = await to.call(ApiKeys.Produce, 13, produceById([[id('beta'), 0, txnBatch(producerId, producerEpoch, 0, 'in')]], { transactionalId: 'by-id' }));
      expect(written.responses[0].partitionResponses[0]).to.deep.include({ errorCode: ErrorCode.NONE, baseOffset: before });
      expect((await started.k.call(ApiKeys.EndTxn, 4, { transactionalId: 'by-id', producerId, producerEpoch, committed: true })).errorCode).to.equal(ErrorCode.NONE);

      // transaction.version 2: the broker adds the partition itself
      await finalizeTransactionVersion(2);
      const v2 = await startTransactionalProducer(k, 'by-id-v2');
      open.push(v2.k);
      const alphaEnd = await logEnd('alpha', 0);
      const r = await checkFor(async () => {
        const x = await leaderOf('alpha', 0).call(ApiKeys.Produce, 13, produceById([[id('alpha'), 0, txnBatch(v2.producerId, v2.producerEpoch, 0, 'v2')]], { transactionalId: 'by-id-v2' }));
        // the coordinator may still be completing the producer's start: retried, as a client does
        return x.responses[0].partitionResponses[0].errorCode === ErrorCode.NOT_ENOUGH_REPLICAS ? null : x;
      }, 10_000, 20);
      expect(r.responses[0].partitionResponses[0]).to.deep.include({ errorCode: ErrorCode.NONE, baseOffset: alphaEnd });
      const txn = await v2.k.call(ApiKeys.DescribeTransactions, 0, { transactionalIds: ['by-id-v2'] });
      expect(txn.transactionStates[0]).to.deep.include({ transactionState: 'Ongoing', topics: [{ topic: 'alpha', partitions: [0] }] });
      expect((await v2.k.call(ApiKeys.EndTxn, 5, { transactionalId: 'by-id-v2', producerId: v2.producerId, producerEpoch: v2.producerEpoch, committed: false })).errorCode).to.equal(ErrorCode.NONE);
    });
  });

  describe('OffsetCommit v10 and OffsetFetch v10', () => {
    it('commit by id and fetch by name, commit by name and fetch by id: one set of offsets, answered with the ids', async () => {
      const G = 'ids-mixed';
      const g = await coordinatorOf(G);
      const c10 = await g.call(ApiKeys.OffsetCommit, 10, commitBody(10, G, [[id('alpha'), 0, 5], [id('alpha'), 1, 6], [id('beta'), 0, 7]]));
      expect(c10.topics.map((t: { topicId: string }) => t.topicId)).to.deep.equal([id('alpha'), id('beta')]);
      expect(codes(c10.topics, true)).to.deep.equal({ [`${id('alpha')}/0`]: 0, [`${id('alpha')}/1`]: 0, [`${id('beta')}/0`]: 0 });
      const f9 = await g.call(ApiKeys.OffsetFetch, 9, fetchBody(9, G, [['alpha', [0, 1]], ['beta', [0]]]));
      expect(offsets(f9.groups[0].topics, false)).to.deep.equal({ 'alpha/0': 5, 'alpha/1': 6, 'beta/0': 7 });
      expect(f9.groups[0].topics[0].partitions[0]).to.deep.include({ metadata: 'm5' });

      const c9 = await g.call(ApiKeys.OffsetCommit, 9, commitBody(9, G, [['alpha', 1, 16], ['beta', 0, 17]]));
      expect(codes(c9.topics, false)).to.deep.equal({ 'alpha/1': 0, 'beta/0': 0 });
      const f10 = await g.call(ApiKeys.OffsetFetch, 10, fetchBody(10, G, [[id('beta'), [0]], [id('alpha'), [0, 1, 2]]]));
      expect(f10.groups[0].errorCode).to.equal(ErrorCode.NONE);
      expect(f10.groups[0].topics.map((t: { topicId: string }) => t.topicId)).to.deep.equal([id('beta'), id('alpha')]);
      // a partition with nothing committed: offset -1, no error
      expect(offsets(f10.groups[0].topics, true)).to.deep.equal({ [`${id('beta')}/0`]: 17, [`${id('alpha')}/0`]: 5, [`${id('alpha')}/1`]: 16, [`${id('alpha')}/2`]: -1 });
      expect(f10.groups[0].topics[0].partitions[0]).to.deep.include({ metadata: 'm17', errorCode: ErrorCode.NONE });

      // every committed partition: each topic with its id
      const all = await g.call(ApiKeys.OffsetFetch, 10, fetchBody(10, G, null));
      expect(offsets(all.groups[0].topics, true)).to.deep.equal({ [`${id('alpha')}/0`]: 5, [`${id('alpha')}/1`]: 16, [`${id('beta')}/0`]: 17 });
      // and older versions by name, as before
      const v5 = await g.call(ApiKeys.OffsetFetch, 5, { groupId: G, topics: null });
      expect(offsets(v5.topics, false)).to.deep.equal({ 'alpha/0': 5, 'alpha/1': 16, 'beta/0': 17 });
    });

    it('an unknown or zero id is UNKNOWN_TOPIC_ID on each of its partitions; the other topics are committed and fetched', async () => {
      const G = 'ids-unknown';
      const g = await coordinatorOf(G);
      const r = await g.call(ApiKeys.OffsetCommit, 10, commitBody(10, G, [[UNKNOWN_ID, 0, 1], [UNKNOWN_ID, 3, 1], [id('beta'), 0, 9], [ZERO_TOPIC_ID, 0, 1]]));
      expect(r.topics.map((t: { topicId: string }) => t.topicId)).to.deep.equal([UNKNOWN_ID, id('beta'), ZERO_TOPIC_ID]);
      expect(codes(r.topics, true)).to.deep.equal({
        [`${UNKNOWN_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID,
        [`${UNKNOWN_ID}/3`]: ErrorCode.UNKNOWN_TOPIC_ID,
        [`${id('beta')}/0`]: ErrorCode.NONE,
        [`${ZERO_TOPIC_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID,
      });
      // only unknown ids: answered as such, nothing committed
      const none = await g.call(ApiKeys.OffsetCommit, 10, commitBody(10, G, [[UNKNOWN_ID, 0, 1]]));
      expect(codes(none.topics, true)).to.deep.equal({ [`${UNKNOWN_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID });
      const all = await g.call(ApiKeys.OffsetFetch, 9, fetchBody(9, G, null));
      expect(offsets(all.groups[0].topics, false)).to.deep.equal({ 'beta/0': 9 });

      const f = await g.call(ApiKeys.OffsetFetch, 10, fetchBody(10, G, [[UNKNOWN_ID, [0, 1]], [id('beta'), [0]]]));
      expect(f.groups[0].errorCode).to.equal(ErrorCode.NONE);
      expect(f.groups[0].topics).to.deep.equal([
        { topicId: id('beta'), name: '', partitions: [{ partitionIndex: 0, committedOffset: 9, committedLeaderEpoch: -1, metadata: 'm9', errorCode: ErrorCode.NONE }] },
        {
          topicId: UNKNOWN_ID,
          name: '',
          partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode: ErrorCode.UNKNOWN_TOPIC_ID })),
        },
      ]);
    });

    it('a consumer group member commits and fetches at v10 with its member epoch, checked as at v9', async () => {
      const G = 'ids-member';
      const g = await coordinatorOf(G);
      const a = await g.call(ApiKeys.ConsumerGroupHeartbeat, 0, joinHeartbeat(G, ['alpha']));
      expect(a.errorCode).to.equal(ErrorCode.NONE);
      const commit = (epoch: number, memberId = a.memberId as string) => g.call(ApiKeys.OffsetCommit, 10, commitBody(10, G, [[id('alpha'), 1, 42]], { memberId, epoch }));
      const code = (r: { topics: Coded[] }) => codes(r.topics, true)[`${id('alpha')}/1`];
      expect(code(await commit(a.memberEpoch - 1))).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
      expect(code(await commit(a.memberEpoch, 'nobody'))).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect(code(await commit(a.memberEpoch))).to.equal(ErrorCode.NONE);
      const fetch = (memberEpoch: number) => g.call(ApiKeys.OffsetFetch, 10, fetchBody(10, G, [[id('alpha'), [1]]], { memberId: a.memberId, memberEpoch, requireStable: true }));
      const ok = await fetch(a.memberEpoch);
      expect(ok.groups[0].errorCode).to.equal(ErrorCode.NONE);
      expect(offsets(ok.groups[0].topics, true)).to.deep.equal({ [`${id('alpha')}/1`]: 42 });
      const stale = await fetch(a.memberEpoch + 2);
      expect(stale.groups[0].errorCode).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
      await g.call(ApiKeys.ConsumerGroupHeartbeat, 0, memberHeartbeat(G, a.memberId, -1, id('alpha'), null));
    });
  });

  it('a topic deleted and made again under its name: its old id is UNKNOWN_TOPIC_ID to Produce, OffsetCommit and OffsetFetch; the new one is the new topic', async () => {
    const create = () =>
      checkFor(async () => {
        const r = await k.call(ApiKeys.CreateTopics, 7, { topics: [{ name: 'again', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1] }], configs: [] }], timeoutMs: 10_000, validateOnly: false });
        return r.topics[0].errorCode === ErrorCode.NONE ? (r.topics[0].topicId as string) : null;
      }, 15_000, 50);
    const first = await create();
    await describe12(['again']);
    const leader = leaderOf('again', 0);
    // the listener learns the first id
    expect(codes((await leader.call(ApiKeys.Produce, 13, produceById([[first, 0, batch('old')]]))).responses, true)).to.deep.equal({ [`${first}/0`]: ErrorCode.NONE });
    const G = 'ids-again';
    const g = await coordinatorOf(G);
    expect(codes((await g.call(ApiKeys.OffsetCommit, 10, commitBody(10, G, [[first, 0, 1]]))).topics, true)).to.deep.equal({ [`${first}/0`]: ErrorCode.NONE });

    const deleted = await k.call(ApiKeys.DeleteTopics, 6, { topics: [{ name: null, topicId: first }], timeoutMs: 10_000 });
    expect(deleted.responses[0].errorCode).to.equal(ErrorCode.NONE);
    const second = await create();
    expect(second).to.not.equal(first);
    await describe12(['again']);
    // the old topic's offsets went with it: the new one has none committed
    await checkFor(async () => {
      const r = await g.call(ApiKeys.OffsetFetch, 9, fetchBody(9, G, null));
      return JSON.stringify(offsets(r.groups[0].topics, false)) === '{}';
    }, 15_000, 50);
    const produced = await checkFor(async () => {
      const r = await leader.call(ApiKeys.Produce, 13, produceById([[first, 0, batch('stale')]]));
      return r.responses[0].partitionResponses[0].errorCode === ErrorCode.UNKNOWN_TOPIC_ID ? r : null;
    }, 15_000, 50);
    expect(produced.responses[0]).to.deep.include({ topicId: first });
    // the new topic got nothing from the old id: its first batch is at 0
    const fresh = await checkFor(async () => {
      const r = await leader.call(ApiKeys.Produce, 13, produceById([[second, 0, batch('new')]]));
      return r.responses[0].partitionResponses[0].errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    expect(fresh.responses[0].partitionResponses[0].baseOffset).to.equal(0);

    // the old id alone (the coordinator's listener still holds it, not yet the new one)
    const alone = await g.call(ApiKeys.OffsetCommit, 10, commitBody(10, G, [[first, 0, 2]]));
    expect(codes(alone.topics, true)).to.deep.equal({ [`${first}/0`]: ErrorCode.UNKNOWN_TOPIC_ID });
    const aloneFetched = await g.call(ApiKeys.OffsetFetch, 10, fetchBody(10, G, [[first, [0]]]));
    expect(codes(aloneFetched.groups[0].topics, true)).to.deep.equal({ [`${first}/0`]: ErrorCode.UNKNOWN_TOPIC_ID });
    const committed = await g.call(ApiKeys.OffsetCommit, 10, commitBody(10, G, [[first, 0, 2], [second, 0, 3]]));
    expect(codes(committed.topics, true)).to.deep.equal({ [`${first}/0`]: ErrorCode.UNKNOWN_TOPIC_ID, [`${second}/0`]: ErrorCode.NONE });
    const fetched = await g.call(ApiKeys.OffsetFetch, 10, fetchBody(10, G, [[first, [0]], [second, [0]]]));
    expect(codes(fetched.groups[0].topics, true)).to.deep.equal({ [`${first}/0`]: ErrorCode.UNKNOWN_TOPIC_ID, [`${second}/0`]: ErrorCode.NONE });
    expect(offsets(fetched.groups[0].topics, true)[`${second}/0`]).to.equal(3);
  });

  it('a deleted topic\'s committed offsets go with it (Kafka\'s onPartitionsDeleted): OffsetFetch v10 and v9 for every committed partition name only the topics left', async () => {
    const made = await k.call(ApiKeys.CreateTopics, 7, { topics: [{ name: 'going', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    const goingId = made.topics[0].topicId as string;
    await describe12(['going']);
    const G = 'ids-gone';
    const g = await coordinatorOf(G);
    expect(codes((await g.call(ApiKeys.OffsetCommit, 10, commitBody(10, G, [[goingId, 0, 4], [id('beta'), 0, 8]]))).topics, true)).to.deep.equal({ [`${goingId}/0`]: 0, [`${id('beta')}/0`]: 0 });
    expect(offsets((await g.call(ApiKeys.OffsetFetch, 10, fetchBody(10, G, null))).groups[0].topics, true)).to.deep.equal({ [`${goingId}/0`]: 4, [`${id('beta')}/0`]: 8 });
    expect((await k.call(ApiKeys.DeleteTopics, 6, { topics: [{ name: 'going', topicId: ZERO_TOPIC_ID }], timeoutMs: 10_000 })).responses[0].errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => {
      const v9 = await g.call(ApiKeys.OffsetFetch, 9, fetchBody(9, G, null));
      return JSON.stringify(offsets(v9.groups[0].topics, false)) === JSON.stringify({ 'beta/0': 8 });
    }, 15_000, 50);
    const all = await g.call(ApiKeys.OffsetFetch, 10, fetchBody(10, G, null));
    expect(offsets(all.groups[0].topics, true)).to.deep.equal({ [`${id('beta')}/0`]: 8 });
  });
});

describe('Kafka API: Produce v13, OffsetCommit v10 and OffsetFetch v10 with an authorizer', function () {
  this.timeout(60_000);
  let a: AuthorizedKafkaCluster;
  let admin: KafkaCaller;
  let alice: KafkaCaller;
  const ids = new Map<string, string>();
  const id = (topic: string) => ids.get(topic)!;

  before(async () => {
    a = await startAuthorizedKafkaCluster({ alice: 'alice-secret' }, { brokers: 1, topics: ['open', 'closed'].map((name) => ({ name, partitions: 1, replicationFactor: 1 })) });
    admin = await a.login('admin');
    alice = await a.login('alice');
    const md = await checkFor(async () => {
      const r = await admin.call(ApiKeys.Metadata, 12, { topics: ['open', 'closed'].map((name) => ({ topicId: ZERO_TOPIC_ID, name })), allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return r.topics.every((t: { errorCode: number; partitions: { leaderId: number }[] }) => t.errorCode === 0 && t.partitions.every((p) => p.leaderId >= 0)) ? r : null;
    }, 15_000, 20);
    for (const t of md.topics) ids.set(t.name, t.topicId);
    const allow = (operation: number, resourceType: number, resourceName: string) => ({ principal: 'User:alice', operation, resourceType, resourceName });
    await a.allow(
      allow(AclOperation.WRITE, ResourceType.TOPIC, 'open'),
      allow(AclOperation.READ, ResourceType.TOPIC, 'open'),
      allow(AclOperation.DESCRIBE, ResourceType.TOPIC, 'open'),
      allow(AclOperation.READ, ResourceType.GROUP, 'g-acl'),
      allow(AclOperation.DESCRIBE, ResourceType.GROUP, 'g-acl'),
    );
    // FindCoordinator creates __consumer_offsets; the coordinator is up once it answers
    await checkFor(async () => (await admin.call(ApiKeys.FindCoordinator, 3, { key: 'g-acl', keyType: 0 })).errorCode === ErrorCode.NONE, 15_000, 50);
    await checkFor(async () => (await admin.call(ApiKeys.OffsetFetch, 9, fetchBody(9, 'g-acl', null))).groups[0].errorCode === ErrorCode.NONE, 15_000, 50);
  });
  after(async () => {
    await a?.stop();
  });

  const endOffset = async (topic: string) => {
    const r = await admin.call(ApiKeys.ListOffsets, 5, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }] });
    return r.topics[0].partitions[0].offset as number;
  };

  it('Produce v13: WRITE on the topic the id names (else TOPIC_AUTHORIZATION_FAILED, unwritten); an unknown id is UNKNOWN_TOPIC_ID', async () => {
    const closedEnd = await endOffset('closed');
    const r = await alice.call(ApiKeys.Produce, 13, produceById([[id('open'), 0, batch('x')], [id('closed'), 0, batch('x')], [UNKNOWN_ID, 0, batch('x')]]));
    expect(codes(r.responses, true)).to.deep.equal({
      [`${id('open')}/0`]: ErrorCode.NONE,
      [`${id('closed')}/0`]: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      [`${UNKNOWN_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID,
    });
    expect(await endOffset('closed')).to.equal(closedEnd);
    const all = await admin.call(ApiKeys.Produce, 13, produceById([[id('closed'), 0, batch('x')]]));
    expect(codes(all.responses, true)).to.deep.equal({ [`${id('closed')}/0`]: ErrorCode.NONE });
  });

  it('OffsetCommit v10: READ on the group, then on the topic the id names; OffsetFetch v10: DESCRIBE on each, a listing leaves out the others', async () => {
    const r = await alice.call(ApiKeys.OffsetCommit, 10, commitBody(10, 'g-acl', [[id('open'), 0, 1], [id('closed'), 0, 1], [UNKNOWN_ID, 0, 1]]));
    expect(codes(r.topics, true)).to.deep.equal({
      [`${id('open')}/0`]: ErrorCode.NONE,
      [`${id('closed')}/0`]: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      [`${UNKNOWN_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID,
    });
    const other = await alice.call(ApiKeys.OffsetCommit, 10, commitBody(10, 'g-other', [[id('open'), 0, 1], [UNKNOWN_ID, 0, 1]]));
    expect(codes(other.topics, true)).to.deep.equal({ [`${id('open')}/0`]: ErrorCode.GROUP_AUTHORIZATION_FAILED, [`${UNKNOWN_ID}/0`]: ErrorCode.GROUP_AUTHORIZATION_FAILED });
    expect(offsets((await admin.call(ApiKeys.OffsetFetch, 9, fetchBody(9, 'g-acl', [['closed', [0]]]))).groups[0].topics, false)).to.deep.equal({ 'closed/0': -1 });

    expect(codes((await admin.call(ApiKeys.OffsetCommit, 10, commitBody(10, 'g-acl', [[id('closed'), 0, 2]]))).topics, true)).to.deep.equal({ [`${id('closed')}/0`]: ErrorCode.NONE });
    const named = await alice.call(ApiKeys.OffsetFetch, 10, fetchBody(10, 'g-acl', [[id('open'), [0]], [id('closed'), [0]], [UNKNOWN_ID, [0]]]));
    expect(named.groups[0].errorCode).to.equal(ErrorCode.NONE);
    expect(codes(named.groups[0].topics, true)).to.deep.equal({
      [`${id('open')}/0`]: ErrorCode.NONE,
      [`${id('closed')}/0`]: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      [`${UNKNOWN_ID}/0`]: ErrorCode.UNKNOWN_TOPIC_ID,
    });
    expect(offsets(named.groups[0].topics, true)).to.deep.include({ [`${id('open')}/0`]: 1, [`${id('closed')}/0`]: -1 });
    const all = await alice.call(ApiKeys.OffsetFetch, 10, fetchBody(10, 'g-acl', null));
    expect(offsets(all.groups[0].topics, true)).to.deep.equal({ [`${id('open')}/0`]: 1 });
    const hidden = await alice.call(ApiKeys.OffsetFetch, 10, fetchBody(10, 'g-other', [[id('open'), [0]]]));
    expect(hidden.groups[0]).to.deep.include({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] });
  });
});
