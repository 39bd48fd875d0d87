/**
 * Topic ids over the Kafka protocol (KIP-516), on two brokers: Metadata v10-12 (ids in answers,
 * asking by id), CreateTopics v7, Fetch v13-17 by id (unknown and stale ids, leader endpoints in
 * v16), DeleteTopics v6 (by name or id, Kafka's request checks), DescribeTopicPartitions (paging
 * with a cursor, errors); then the same with an authorizer: what a client that may not see a
 * topic is told.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { isKafkaTopicId, ZERO_TOPIC_ID } from '../../../src/protocol/topic-id.js';
import { AclOperation, ResourceType } from '../../../src/security/acl.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../../helpers/raw-kafka.js';

type Caller = KafkaCaller;

/** Metadata v12 by name; waits until every partition has a leader. */
async function describe12(k: Caller, names: string[]) {
  return checkFor(async () => {
    const r = await k.call(ApiKeys.Metadata, 12, { topics: names.map((name) => ({ topicId: ZERO_TOPIC_ID, name })), allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return r.topics.every((t: { errorCode: number; partitions: { leaderId: number }[] }) => t.errorCode === 0 && t.partitions.every((p) => p.leaderId >= 0)) ? r : null;
  }, 15_000, 20);
}

function fetchById(topicId: string, partition: number, version: number, extra: object = {}) {
  return consumerFetchBody('', partition, 0, {
    topics: [{ topicId, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
    replicaState: { replicaId: -1, replicaEpoch: -1 },
    ...(version >= 15 ? { replicaId: -1 } : {}),
    ...extra,
  });
}

const produceBody = (topic: string, partition: number, value: string) => ({
  transactionalId: null,
  acks: -1,
  timeoutMs: 5_000,
  topicData: [{ name: topic, partitionData: [{ index: partition, records: encodeRecordBatch({ records: [{ value: Buffer.from(value), timestamp: Date.now() }] }) }] }],
});

describe('Kafka API: topic ids (KIP-516)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  const callers = new Map<number, Caller>();
  let k: Caller;
  let ids: Map<string, string>;
  let leaders: Map<string, number>;

  before(async () => {
    c = await startKafkaCluster({
      brokers: 2,
      topics: [
        { name: 'alpha', partitions: 3, replicationFactor: 1 },
        { name: 'beta', partitions: 2, replicationFactor: 1 },
      ],
    });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
    const md = await describe12(k, ['alpha', 'beta']);
    ids = new Map(md.topics.map((t: { name: string; topicId: string }) => [t.name, t.topicId]));
    leaders = new Map();
    for (const t of md.topics) for (const p of t.partitions) leaders.set(`${t.name}-${p.partitionIndex}`, p.leaderId);
    for (const b of md.brokers as { nodeId: number; host: string; port: number }[]) callers.set(b.nodeId, await KafkaCaller.connect(`${b.host}:${b.port}`));
  });
  after(async () => {
    k?.end();
    for (const x of callers.values()) x.end();
    await c?.stop();
  });

  const leaderOf = (topic: string, partition: number) => callers.get(leaders.get(`${topic}-${partition}`)!)!;

  it('ApiVersions advertises Metadata 13, Fetch 18, CreateTopics 7, DeleteTopics 6 and DescribeTopicPartitions 0', async () => {
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
    const range = (key: number) => r.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
    expect(range(ApiKeys.Metadata)).to.deep.include({ minVersion: 0, maxVersion: 13 });
    expect(range(ApiKeys.Fetch)).to.deep.include({ minVersion: 4, maxVersion: 18 });
    expect(range(ApiKeys.CreateTopics)).to.deep.include({ maxVersion: 7 });
    expect(range(ApiKeys.DeleteTopics)).to.deep.include({ maxVersion: 6 });
    expect(range(ApiKeys.DescribeTopicPartitions)).to.deep.include({ minVersion: 0, maxVersion: 0 });
  });

  describe('Metadata', () => {
    it('v10+ names each topic with its id, the same on every broker and in every version from 10; older versions carry none', async () => {
      for (const id of ids.values()) expect(isKafkaTopicId(id)).to.equal(true);
      expect(ids.get('alpha')).to.not.equal(ids.get('beta'));
      for (const caller of callers.values()) {
        const r = await caller.call(ApiKeys.Metadata, 10, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        const alpha = r.topics.find((t: { name: string }) => t.name === 'alpha');
        expect(alpha.topicId).to.equal(ids.get('alpha'));
      }
      const old = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'alpha' }], allowAutoTopicCreation: false });
      expect(old.topics[0].topicId).to.equal(ZERO_TOPIC_ID);
    });

    it('a topic that does not exist has the zero id', async () => {
      const r = await k.call(ApiKeys.Metadata, 12, { topics: [{ topicId: ZERO_TOPIC_ID, name: 'nowhere' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      expect(r.topics).to.deep.equal([{ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name: 'nowhere', topicId: ZERO_TOPIC_ID, isInternal: false, partitions: [], topicAuthorizedOperations: -2147483648 }]);
    });

    it('v12 asks by id: known ids with their names and partitions, unknown ones UNKNOWN_TOPIC_ID without a name (first)', async () => {
      const unknown = 'AAAAAAAAAAAAAAAAAAAAAg';
      const r = await k.call(ApiKeys.Metadata, 12, {
        topics: [{ topicId: ids.get('beta'), name: null }, { topicId: unknown, name: null }],
        allowAutoTopicCreation: true,
        includeTopicAuthorizedOperations: false,
      });
      expect(r.topics.map((t: { errorCode: number; name: string | null; topicId: string }) => [t.errorCode, t.name, t.topicId])).to.deep.equal([
        [ErrorCode.UNKNOWN_TOPIC_ID, null, unknown],
        [ErrorCode.NONE, 'beta', ids.get('beta')],
      ]);
      expect(r.topics[1].partitions.map((p: { partitionIndex: number }) => p.partitionIndex)).to.deep.equal([0, 1]);
      expect(r.brokers).to.have.length(2);
    });

    it('ids in v10 and v11, or a null name, are INVALID_REQUEST for every topic, as in Kafka', async () => {
      for (const version of [10, 11]) {
        const r = await k.call(ApiKeys.Metadata, version, { topics: [{ topicId: ids.get('alpha'), name: 'alpha' }, { topicId: ZERO_TOPIC_ID, name: 'beta' }], allowAutoTopicCreation: false });
        expect(r.topics.map((t: { errorCode: number; name: string }) => [t.errorCode, t.name])).to.deep.equal([
          [ErrorCode.INVALID_REQUEST, 'alpha'],
          [ErrorCode.INVALID_REQUEST, 'beta'],
        ]);
        const nameless = await k.call(ApiKeys.Metadata, version, { topics: [{ topicId: ZERO_TOPIC_ID, name: null }], allowAutoTopicCreation: false });
        expect(nameless.topics.map((t: { errorCode: number; name: string }) => [t.errorCode, t.name])).to.deep.equal([[ErrorCode.INVALID_REQUEST, '']]);
      }
    });
  });

  describe('Fetch by id', () => {
    before(async () => {
      for (let p = 0; p < 3; p++) {
        const r = await leaderOf('alpha', p).call(ApiKeys.Produce, 9, produceBody('alpha', p, `a${p}`));
        expect(r.responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
      }
    });

    for (const version of [13, 14, 15, 16, 17]) {
      it(`v${version} reads a partition named by its topic id, and answers with the id`, async () => {
        const r = await leaderOf('alpha', 1).call(ApiKeys.Fetch, version, fetchById(ids.get('alpha')!, 1, version));
        expect(r.errorCode).to.equal(ErrorCode.NONE);
        expect(r.responses).to.have.length(1);
        expect(r.responses[0].topicId).to.equal(ids.get('alpha'));
        const p = r.responses[0].partitions[0];
        expect(p).to.deep.include({ partitionIndex: 1, errorCode: ErrorCode.NONE, highWatermark: 1 });
        expect(p.records.length).to.be.above(0);
      });
    }

    it('an id no topic has is UNKNOWN_TOPIC_ID, beside a known one answered as usual', async () => {
      const unknown = 'AAAAAAAAAAAAAAAAAAAAAg';
      const body = fetchById(ids.get('alpha')!, 0, 13) as { topics: object[] };
      body.topics.push({ topicId: unknown, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] });
      const r = await leaderOf('alpha', 0).call(ApiKeys.Fetch, 13, body);
      expect(r.responses.map((t: { topicId: string; partitions: { errorCode: number }[] }) => [t.topicId, t.partitions[0]!.errorCode])).to.deep.equal([
        [ids.get('alpha'), ErrorCode.NONE],
        [unknown, ErrorCode.UNKNOWN_TOPIC_ID],
      ]);
    });

    it('v16 at a broker that does not lead the partition names the leader and its endpoint', async () => {
      const leaderId = leaders.get('alpha-2')!;
      const otherId = [...callers.keys()].find((id) => id !== leaderId)!;
      const r = await callers.get(otherId)!.call(ApiKeys.Fetch, 16, fetchById(ids.get('alpha')!, 2, 16));
      const p = r.responses[0].partitions[0];
      expect(p.errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      expect(p.currentLeader.leaderId).to.equal(leaderId);
      expect(r.nodeEndpoints.map((n: { nodeId: number }) => n.nodeId)).to.deep.equal([leaderId]);
    });

    it('a topic deleted and made again under its name: the old id is UNKNOWN_TOPIC_ID, the new one reads the new topic', async () => {
      const created = await k.call(ApiKeys.CreateTopics, 7, { topics: [{ name: 'again', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
      const first = created.topics[0].topicId;
      expect(isKafkaTopicId(first)).to.equal(true);
      const md = await describe12(k, ['again']);
      expect(md.topics[0].topicId).to.equal(first);
      const leader = callers.get(md.topics[0].partitions[0].leaderId)!;
      expect((await leader.call(ApiKeys.Produce, 9, produceBody('again', 0, 'old'))).responses[0].partitionResponses[0].errorCode).to.equal(ErrorCode.NONE);
      // the leader's listener learns the first id
      expect((await leader.call(ApiKeys.Fetch, 13, fetchById(first, 0, 13))).responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);

      const deleted = await k.call(ApiKeys.DeleteTopics, 6, { topics: [{ name: 'again', topicId: ZERO_TOPIC_ID }], timeoutMs: 10_000 });
      expect(deleted.responses).to.deep.equal([{ name: 'again', topicId: first, errorCode: ErrorCode.NONE, errorMessage: null }]);
      const second = await checkFor(async () => {
        const r = await k.call(ApiKeys.CreateTopics, 7, { topics: [{ name: 'again', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [md.topics[0].partitions[0].leaderId] }], configs: [] }], timeoutMs: 10_000, validateOnly: false });
        return r.topics[0].errorCode === ErrorCode.NONE ? (r.topics[0].topicId as string) : null;
      }, 15_000, 50);
      expect(second).to.not.equal(first);
      await describe12(k, ['again']);
      const stale = await checkFor(async () => {
        const r = await leader.call(ApiKeys.Fetch, 13, fetchById(first, 0, 13));
        const code = r.responses[0].partitions[0].errorCode;
        return code === ErrorCode.UNKNOWN_TOPIC_ID ? r : null;
      }, 15_000, 50);
      expect(stale.responses[0].partitions[0].records.length).to.equal(0);
      const fresh = await checkFor(async () => {
        const r = await leader.call(ApiKeys.Fetch, 13, fetchById(second, 0, 13));
        return r.responses[0].partitions[0].errorCode === ErrorCode.NONE ? r : null;
      }, 15_000, 50);
      // the new topic is empty: the old topic's record is not read under the new id
      expect(fresh.responses[0].partitions[0]).to.deep.include({ highWatermark: 0 });
    });
  });

  describe('CreateTopics v7 and DeleteTopics v6', () => {
    it('CreateTopics v7 gives the new id; validateOnly and a refusal give the zero id', async () => {
      const r = await k.call(ApiKeys.CreateTopics, 7, {
        topics: [
          { name: 'made', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
          { name: 'alpha', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        ],
        timeoutMs: 10_000,
        validateOnly: false,
      });
      expect(r.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode])).to.deep.equal([
        ['made', ErrorCode.NONE],
        ['alpha', ErrorCode.TOPIC_ALREADY_EXISTS],
      ]);
      expect(r.topics[1].topicId).to.equal(ZERO_TOPIC_ID);
      expect((await describe12(k, ['made'])).topics[0].topicId).to.equal(r.topics[0].topicId);
      const dry = await k.call(ApiKeys.CreateTopics, 7, { topics: [{ name: 'dry', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: true });
      expect(dry.topics[0]).to.deep.include({ errorCode: ErrorCode.NONE, topicId: ZERO_TOPIC_ID });
    });

    it("DeleteTopics v6 deletes by id, answering with the name; Kafka's request checks are answered in the order asked", async () => {
      const made = await k.call(ApiKeys.CreateTopics, 7, {
        topics: ['del-a', 'del-b'].map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })),
        timeoutMs: 10_000,
        validateOnly: false,
      });
      const [a, b] = made.topics.map((t: { topicId: string }) => t.topicId) as [string, string];
      const unknown = 'AAAAAAAAAAAAAAAAAAAAAg';
      const r = await k.call(ApiKeys.DeleteTopics, 6, {
        topics: [
          { name: null, topicId: a },
          { name: null, topicId: ZERO_TOPIC_ID },
          { name: 'del-b', topicId: b },
          { name: null, topicId: unknown },
          { name: 'nowhere', topicId: ZERO_TOPIC_ID },
          { name: 'beta', topicId: ZERO_TOPIC_ID },
          { name: 'beta', topicId: ZERO_TOPIC_ID },
        ],
        timeoutMs: 10_000,
      });
      expect(r.responses).to.deep.equal([
        { name: 'del-a', topicId: a, errorCode: ErrorCode.NONE, errorMessage: null },
        { name: null, topicId: ZERO_TOPIC_ID, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Neither topic name nor id were specified.' },
        { name: 'del-b', topicId: b, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'You may not specify both topic name and topic id.' },
        { name: null, topicId: unknown, errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: 'This server does not host this topic ID.' },
        { name: 'nowhere', topicId: ZERO_TOPIC_ID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: "Topic 'nowhere' does not exist." },
        { name: 'beta', topicId: ZERO_TOPIC_ID, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' },
      ]);
      const left = await k.call(ApiKeys.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      const names = left.topics.map((t: { name: string }) => t.name);
      expect(names).to.include.members(['beta', 'del-b']);
      expect(names).to.not.include('del-a');
    });

    it('a name and the id of the same topic in one request are INVALID_REQUEST, and nothing is deleted', async () => {
      const made = await k.call(ApiKeys.CreateTopics, 7, { topics: [{ name: 'twice', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
      const id = made.topics[0].topicId;
      await describe12(k, ['twice']);
      const r = await k.call(ApiKeys.DeleteTopics, 6, { topics: [{ name: null, topicId: id }, { name: 'twice', topicId: ZERO_TOPIC_ID }], timeoutMs: 10_000 });
      expect(r.responses.map((x: { errorCode: number }) => x.errorCode)).to.deep.equal([ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
      expect(r.responses[1].errorMessage).to.equal('The provided topic name maps to an ID that was already supplied.');
      expect((await describe12(k, ['twice'])).topics[0].topicId).to.equal(id);
    });

    it('DeleteTopics v5 answers a name asked twice once, INVALID_REQUEST, as Kafka does in every version', async () => {
      const r = await k.call(ApiKeys.DeleteTopics, 5, { topicNames: ['made', 'made'], timeoutMs: 10_000 });
      expect(r.responses).to.have.length(1);
      expect(r.responses[0]).to.deep.include({ name: 'made', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' });
    });
  });

  describe('DescribeTopicPartitions', () => {
    const dtp = (body: object) => k.call(ApiKeys.DescribeTopicPartitions, 0, { topics: [], responsePartitionLimit: 2000, cursor: null, ...body });
    const shape = (r: { topics: { name: string; partitions: { partitionIndex: number }[] }[]; nextCursor: unknown }) => ({
      topics: r.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]),
      nextCursor: r.nextCursor,
    });

    it('describes named topics with their ids, partitions, leaders and replicas, and the operations allowed', async () => {
      const r = await dtp({ topics: [{ name: 'beta' }, { name: 'alpha' }] });
      expect(shape(r)).to.deep.equal({ topics: [['alpha', [0, 1, 2]], ['beta', [0, 1]]], nextCursor: null });
      const alpha = r.topics[0];
      expect(alpha).to.deep.include({ errorCode: ErrorCode.NONE, topicId: ids.get('alpha'), isInternal: false });
      expect(alpha.topicAuthorizedOperations).to.be.above(0);
      const p = alpha.partitions[1];
      expect(p).to.deep.include({ errorCode: ErrorCode.NONE, leaderId: leaders.get('alpha-1'), eligibleLeaderReplicas: [], lastKnownElr: [], offlineReplicas: [] });
      expect(p.replicaNodes).to.deep.equal([leaders.get('alpha-1')]);
      expect(p.isrNodes).to.deep.equal([leaders.get('alpha-1')]);
    });

    it('pages by partition count with a cursor, within a topic and across topics', async () => {
      const named = [{ name: 'alpha' }, { name: 'beta' }];
      const first = await dtp({ topics: named, responsePartitionLimit: 2 });
      expect(shape(first)).to.deep.equal({ topics: [['alpha', [0, 1]]], nextCursor: { topicName: 'alpha', partitionIndex: 2 } });
      const second = await dtp({ topics: named, responsePartitionLimit: 2, cursor: first.nextCursor });
      expect(shape(second)).to.deep.equal({ topics: [['alpha', [2]], ['beta', [0]]], nextCursor: { topicName: 'beta', partitionIndex: 1 } });
      const third = await dtp({ topics: named, responsePartitionLimit: 2, cursor: second.nextCursor });
      expect(shape(third)).to.deep.equal({ topics: [['beta', [1]]], nextCursor: null });
      // a topic that ends exactly at the limit: the next topic is the cursor, from partition 0
      const exact = await dtp({ topics: named, responsePartitionLimit: 3 });
      expect(shape(exact)).to.deep.equal({ topics: [['alpha', [0, 1, 2]]], nextCursor: { topicName: 'beta', partitionIndex: 0 } });
      // a limit below 1 is 1
      expect(shape(await dtp({ topics: named, responsePartitionLimit: 0 })).topics).to.deep.equal([['alpha', [0]]]);
    });

    it('lists every topic from the cursor on when none is named, leaving out none that exist', async () => {
      const r = await dtp({ cursor: { topicName: 'b', partitionIndex: 0 } });
      const names = r.topics.map((t: { name: string }) => t.name);
      expect(names[0]).to.equal('beta');
      expect(names).to.not.include('alpha');
      expect([...names].sort()).to.deep.equal(names);
    });

    it('unknown and illegal names, a cursor outside the topics and a negative cursor partition', async () => {
      const r = await dtp({ topics: [{ name: 'nowhere' }, { name: 'bad/name' }] });
      expect(r.topics.map((t: { name: string; errorCode: number; topicId: string }) => [t.name, t.errorCode, t.topicId])).to.deep.equal([
        ['bad/name', ErrorCode.INVALID_TOPIC_EXCEPTION, ZERO_TOPIC_ID],
        ['nowhere', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ZERO_TOPIC_ID],
      ]);
      const outside = await dtp({ topics: [{ name: 'alpha' }], cursor: { topicName: 'beta', partitionIndex: 0 } });
      expect(outside.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode])).to.deep.equal([['alpha', ErrorCode.INVALID_REQUEST]]);
      const negative = await dtp({ topics: [{ name: 'alpha' }], cursor: { topicName: 'alpha', partitionIndex: -1 } });
      expect(negative.topics[0].errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    });
  });
});

describe('Kafka API: topic ids with an authorizer', function () {
  this.timeout(60_000);
  let a: AuthorizedKafkaCluster;
  let admin: Caller;
  let alice: Caller;
  const ids = new Map<string, string>();

  before(async () => {
    a = await startAuthorizedKafkaCluster(
      { alice: 'alice-secret' },
      { brokers: 1, topics: ['hidden', 'seen', 'doomed'].map((name) => ({ name, partitions: 1, replicationFactor: 1 })) },
    );
    admin = await a.login('admin');
    alice = await a.login('alice');
    const md = await describe12(admin, ['hidden', 'seen', 'doomed']);
    for (const t of md.topics) ids.set(t.name, t.topicId);
    await a.allow(
      { principal: 'User:alice', operation: AclOperation.DESCRIBE, resourceType: ResourceType.TOPIC, resourceName: 'seen' },
      { principal: 'User:alice', operation: AclOperation.DESCRIBE, resourceType: ResourceType.TOPIC, resourceName: 'doomed' },
      { principal: 'User:alice', operation: AclOperation.DELETE, resourceType: ResourceType.TOPIC, resourceName: 'doomed' },
    );
  });
  after(async () => {
    await a?.stop();
  });

  it('Metadata v12 by id: a topic the client may not describe is TOPIC_AUTHORIZATION_FAILED with its id and no name', async () => {
    const r = await alice.call(ApiKeys.Metadata, 12, { topics: [{ topicId: ids.get('hidden'), name: null }, { topicId: ids.get('seen'), name: null }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true });
    expect(r.topics.map((t: { errorCode: number; name: string | null; topicId: string }) => [t.errorCode, t.name, t.topicId])).to.deep.equal([
      [ErrorCode.NONE, 'seen', ids.get('seen')],
      [ErrorCode.TOPIC_AUTHORIZATION_FAILED, null, ids.get('hidden')],
    ]);
    expect(r.topics[0].topicAuthorizedOperations).to.equal(1 << AclOperation.DESCRIBE);
    // by name, the refusal has no id
    const byName = await alice.call(ApiKeys.Metadata, 12, { topics: [{ topicId: ZERO_TOPIC_ID, name: 'hidden' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    expect(byName.topics[0]).to.deep.include({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name: 'hidden', topicId: ZERO_TOPIC_ID });
  });

  it('Fetch v13 of a topic the client may not read is TOPIC_AUTHORIZATION_FAILED', async () => {
    const r = await alice.call(ApiKeys.Fetch, 13, fetchById(ids.get('seen')!, 0, 13));
    expect(r.responses[0]).to.deep.include({ topicId: ids.get('seen') });
    expect(r.responses[0].partitions[0].errorCode).to.equal(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    const ok = await admin.call(ApiKeys.Fetch, 13, fetchById(ids.get('seen')!, 0, 13));
    expect(ok.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
  });

  it("DeleteTopics v6 by id: without DESCRIBE the name is not told; with DESCRIBE but not DELETE it is; with both the topic goes", async () => {
    const r = await alice.call(ApiKeys.DeleteTopics, 6, {
      topics: [
        { name: null, topicId: ids.get('hidden') },
        { name: null, topicId: ids.get('seen') },
        { name: null, topicId: ids.get('doomed') },
        { name: 'hidden', topicId: ZERO_TOPIC_ID },
      ],
      timeoutMs: 10_000,
    });
    expect(r.responses.map((x: { name: string | null; topicId: string; errorCode: number }) => [x.name, x.topicId, x.errorCode])).to.deep.equal([
      [null, ids.get('hidden'), ErrorCode.TOPIC_AUTHORIZATION_FAILED],
      ['seen', ids.get('seen'), ErrorCode.TOPIC_AUTHORIZATION_FAILED],
      ['doomed', ids.get('doomed'), ErrorCode.NONE],
      ['hidden', ZERO_TOPIC_ID, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
    ]);
    const left = await admin.call(ApiKeys.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    expect(left.topics.map((t: { name: string }) => t.name).sort()).to.deep.equal(['hidden', 'seen']);
  });

  it('DescribeTopicPartitions: a listing leaves out what the client may not describe; a named one is refused, last, with the zero id', async () => {
    const all = await alice.call(ApiKeys.DescribeTopicPartitions, 0, { topics: [], responsePartitionLimit: 2000, cursor: null });
    expect(all.topics.map((t: { name: string }) => t.name)).to.deep.equal(['seen']);
    const named = await alice.call(ApiKeys.DescribeTopicPartitions, 0, { topics: [{ name: 'hidden' }, { name: 'seen' }], responsePartitionLimit: 2000, cursor: null });
    expect(named.topics.map((t: { name: string; errorCode: number; topicId: string }) => [t.name, t.errorCode, t.topicId])).to.deep.equal([
      ['seen', ErrorCode.NONE, ids.get('seen')],
      ['hidden', ErrorCode.TOPIC_AUTHORIZATION_FAILED, ZERO_TOPIC_ID],
    ]);
    expect(named.topics[0].topicAuthorizedOperations).to.equal(1 << AclOperation.DESCRIBE);
  });
});
