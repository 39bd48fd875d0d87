/**
 * KIP-932's share group offset APIs over the Kafka wire, as Kafka 4.2's Admin sends them:
 * DescribeShareGroupOffsets (90, v0-v1: start offset, leader epoch, v1's lag; named topics, all
 * topics, none), AlterShareGroupOffsets (91: only of a group without members, NON_EMPTY_GROUP
 * otherwise; the next fetch starts at the new offset), DeleteShareGroupOffsets (92: only of an
 * existing Empty share group), the versions advertised, and the ACLs (DESCRIBE on the group and
 * topics for 90; READ on the group and topics for 91; DELETE on the group and READ on the topics
 * for 92).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { ZERO_TOPIC_ID } from '../../../src/protocol/topic-id.js';
import { AclOperation, ResourceType } from '../../../src/security/acl.js';
import { authorizedKafkaClusterPerSuite } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const TOPIC = 'offsets-shared';
const OTHER = 'offsets-other';
const ACCEPT = 1;
const RELEASE = 2;
const BROKER_CONFIG = {
  'share.coordinator.state.topic.num.partitions': 1,
  'share.coordinator.state.topic.replication.factor': 1,
  'offsets.topic.num.partitions': 1,
  'offsets.topic.replication.factor': 1,
};

function newMemberId(): string {
  return randomBytes(16).toString('base64url').slice(0, 22);
}

async function topicIdOf(k: KafkaCaller, name: string): Promise<string> {
  const md = await checkFor(async () => {
    const r = await k.call(ApiKeys.Metadata, 12, { topics: [{ topicId: ZERO_TOPIC_ID, name }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return r.topics[0]?.errorCode === ErrorCode.NONE ? r : null;
  }, 15_000, 50);
  return md.topics[0].topicId;
}

/** Joins (epoch 0) or leaves (-1) `groupId` as `memberId`, once its coordinator is found (__consumer_offsets made then). */
async function heartbeat(k: KafkaCaller, groupId: string, memberId: string, memberEpoch: number): Promise<any> {
  await checkFor(async () => (await k.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0].errorCode === ErrorCode.NONE, 20_000, 50);
  return checkFor(async () => {
    const r = await k.call(ApiKeys.ShareGroupHeartbeat, 1, { groupId, memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? [TOPIC] : null });
    return r.errorCode === ErrorCode.NONE ? r : null;
  }, 20_000, 50);
}

async function produce(k: KafkaCaller, values: string[]): Promise<number> {
  const records = encodeRecordBatch({ records: values.map((v) => ({ value: Buffer.from(v), timestamp: Date.now() })) });
  const p = await k.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] });
  const r = p.responses[0].partitionResponses[0];
  expect(r.errorCode).to.equal(ErrorCode.NONE);
  return Number(r.baseOffset);
}

const describeBody = (groupId: string, topics: { topicName: string; partitions: number[] }[] | null) => ({ groups: [{ groupId, topics }] });
const alterBody = (groupId: string, topics: { topicName: string; partitions: { partitionIndex: number; startOffset: number }[] }[]) => ({ groupId, topics });
const deleteBody = (groupId: string, topics: string[]) => ({ groupId, topics: topics.map((topicName) => ({ topicName })) });

describe('Kafka API: KIP-932 share group offsets (DescribeShareGroupOffsets, AlterShareGroupOffsets, DeleteShareGroupOffsets)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let topicId: string;
  const open: KafkaCaller[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, brokerConfig: BROKER_CONFIG, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }, { name: OTHER, partitions: 2, replicationFactor: 1 }] });
    topicId = await topicIdOf(await caller(), TOPIC);
  });
  afterEach(() => {
    for (const k of open.splice(0)) k.end();
  });
  after(async () => {
    await c?.stop();
  });

  async function caller(): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(c.bootstrap[0]!, 'share-offsets-test');
    open.push(k);
    return k;
  }

  /**
   * A member of `groupId` whose share partition starts at the high watermark `base`; four records
   * are written, acquired, and base and base+2 accepted, base+1 and base+3 released: the start
   * offset is base+1, one record above it done, the lag 2.
   */
  async function groupWithState(k: KafkaCaller, groupId: string): Promise<{ memberId: string; base: number }> {
    const memberId = newMemberId();
    await heartbeat(k, groupId, memberId, 0);
    const part = (acknowledgementBatches: object[] = []) => [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches }] }];
    const fetchBody = (epoch: number, extra: object = {}) => ({ groupId, memberId, shareSessionEpoch: epoch, maxWaitMs: 50, minBytes: 0, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, topics: part(), forgottenTopicsData: [], ...extra });
    await checkFor(async () => {
      const r = await k.call(ApiKeys.ShareFetch, 1, fetchBody(0));
      return r.errorCode === ErrorCode.NONE && r.responses[0]?.partitions[0]?.errorCode === ErrorCode.NONE;
    }, 20_000, 100);
    const base = await produce(k, ['a', 'b', 'c', 'd']);
    const f = await k.call(ApiKeys.ShareFetch, 1, fetchBody(1, { topics: [], maxWaitMs: 2_000, minBytes: 1 }));
    expect(f.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base + 3, deliveryCount: 1 }]);
    const ack = await k.call(ApiKeys.ShareAcknowledge, 1, { groupId, memberId, shareSessionEpoch: 2, topics: part([{ firstOffset: base, lastOffset: base + 3, acknowledgeTypes: [ACCEPT, RELEASE, ACCEPT, RELEASE] }]) });
    expect(ack.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    return { memberId, base };
  }

  it('advertises DescribeShareGroupOffsets 0-1, AlterShareGroupOffsets 0 and DeleteShareGroupOffsets 0', async () => {
    const k = await caller();
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    const range = (key: number) => r.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
    expect(range(90)).to.deep.include({ minVersion: 0, maxVersion: 1 });
    expect(range(91)).to.deep.include({ minVersion: 0, maxVersion: 0 });
    expect(range(92)).to.deep.include({ minVersion: 0, maxVersion: 0 });
  });

  it('DescribeShareGroupOffsets: start offset, leader epoch and (v1) lag of the topics named; a topic that does not exist has -1; all topics; none', async () => {
    const k = await caller();
    const { base } = await groupWithState(k, 'sgo-describe');
    const r = await k.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody('sgo-describe', [{ topicName: TOPIC, partitions: [0] }, { topicName: OTHER, partitions: [1] }, { topicName: 'no-such', partitions: [0] }]));
    const g = r.groups[0];
    expect(g).to.deep.include({ groupId: 'sgo-describe', errorCode: ErrorCode.NONE, errorMessage: null });
    expect(g.topics).to.deep.equal([
      { topicName: TOPIC, topicId, partitions: [{ partitionIndex: 0, startOffset: base + 1, leaderEpoch: 0, lag: 2, errorCode: 0, errorMessage: null }] },
      { topicName: OTHER, topicId: await topicIdOf(k, OTHER), partitions: [{ partitionIndex: 1, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode: 0, errorMessage: null }] },
      { topicName: 'no-such', topicId: ZERO_TOPIC_ID, partitions: [{ partitionIndex: 0, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode: 0, errorMessage: null }] },
    ]);
    // v0 has no lag
    const v0 = await k.call(ApiKeys.DescribeShareGroupOffsets, 0, describeBody('sgo-describe', [{ topicName: TOPIC, partitions: [0] }]));
    expect(v0.groups[0].topics[0].partitions[0]).to.deep.include({ startOffset: base + 1, leaderEpoch: 0 });
    // all topics: the group's
    const all = await k.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody('sgo-describe', null));
    expect(all.groups[0].topics.map((t: any) => [t.topicName, t.partitions.map((p: any) => [p.partitionIndex, p.startOffset, p.lag])])).to.deep.equal([[TOPIC, [[0, base + 1, 2]]]]);
    // none
    expect((await k.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody('sgo-describe', []))).groups[0]).to.deep.include({ errorCode: 0, topics: [] });
    // several groups in one request: each answered
    const two = await k.call(ApiKeys.DescribeShareGroupOffsets, 1, { groups: [{ groupId: 'sgo-describe', topics: null }, { groupId: 'sgo-nobody', topics: null }] });
    expect(two.groups.map((x: any) => [x.groupId, x.errorCode, x.topics.length])).to.deep.equal([
      ['sgo-describe', 0, 1],
      ['sgo-nobody', 0, 0],
    ]);
  });

  it('AlterShareGroupOffsets: NON_EMPTY_GROUP while the group has members; once Empty, the partition starts at the new offset', async () => {
    const k = await caller();
    const { memberId, base } = await groupWithState(k, 'sgo-alter');
    const busy = await k.call(ApiKeys.AlterShareGroupOffsets, 0, alterBody('sgo-alter', [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: base + 3 }] }]));
    expect(busy).to.deep.include({ errorCode: ErrorCode.NON_EMPTY_GROUP, responses: [] });
    expect(busy.errorMessage).to.be.a('string');
    await heartbeat(k, 'sgo-alter', memberId, -1);
    const r = await k.call(
      ApiKeys.AlterShareGroupOffsets,
      0,
      alterBody('sgo-alter', [
        { topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: base + 3 }, { partitionIndex: 4, startOffset: 0 }] },
        { topicName: 'no-such', partitions: [{ partitionIndex: 0, startOffset: 0 }] },
      ]),
    );
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    expect(r.responses.map((t: any) => [t.topicName, t.topicId, t.partitions.map((p: any) => [p.partitionIndex, p.errorCode])])).to.deep.equal([
      [TOPIC, topicId, [[0, ErrorCode.NONE], [4, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
      ['no-such', ZERO_TOPIC_ID, [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
    ]);
    const d = await k.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody('sgo-alter', [{ topicName: TOPIC, partitions: [0] }]));
    expect(d.groups[0].topics[0].partitions[0]).to.deep.include({ startOffset: base + 3, lag: 1 });
    // a new member fetches from there: only the last record
    const other = newMemberId();
    await heartbeat(k, 'sgo-alter', other, 0);
    const f = await checkFor(async () => {
      const x = await k.call(ApiKeys.ShareFetch, 1, { groupId: 'sgo-alter', memberId: other, shareSessionEpoch: 0, maxWaitMs: 200, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [] });
      return x.responses[0]?.partitions[0]?.acquiredRecords.length > 0 ? x : null;
    }, 10_000, 50);
    expect(f.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base + 3, lastOffset: base + 3, deliveryCount: 1 }]);
  });

  it('DeleteShareGroupOffsets: GROUP_ID_NOT_FOUND for no share group, NON_EMPTY_GROUP with members; once Empty the state goes', async () => {
    const k = await caller();
    expect(await k.call(ApiKeys.DeleteShareGroupOffsets, 0, deleteBody('sgo-none', [TOPIC]))).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, responses: [] });
    const { memberId } = await groupWithState(k, 'sgo-delete');
    expect(await k.call(ApiKeys.DeleteShareGroupOffsets, 0, deleteBody('sgo-delete', [TOPIC]))).to.deep.include({ errorCode: ErrorCode.NON_EMPTY_GROUP, responses: [] });
    await heartbeat(k, 'sgo-delete', memberId, -1);
    const r = await k.call(ApiKeys.DeleteShareGroupOffsets, 0, deleteBody('sgo-delete', [TOPIC, OTHER]));
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    expect(r.responses.map((t: any) => [t.topicName, t.errorCode, t.errorMessage])).to.deep.equal([
      [TOPIC, ErrorCode.NONE, null],
      [OTHER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'There is no offset information to delete.'],
    ]);
    const d = await k.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody('sgo-delete', [{ topicName: TOPIC, partitions: [0] }]));
    expect(d.groups[0].topics[0].partitions[0]).to.deep.include({ startOffset: -1, lag: -1 });
  });
});

describe('Kafka API: KIP-932 share group offsets with ACLs', function () {
  this.timeout(60_000);
  const suite = authorizedKafkaClusterPerSuite({ alice: 'alice-secret' }, { brokerConfig: BROKER_CONFIG, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
  const G = 'acl-share-offsets';
  const user = 'User:alice';
  const grant = (operation: number, resourceType: number, resourceName: string) => ({ principal: user, operation, resourceType, resourceName });

  before(async () => {
    // an Empty share group with state (made by the admin, a super user)
    const admin = await suite().login('admin');
    const memberId = newMemberId();
    await heartbeat(admin, G, memberId, 0);
    await heartbeat(admin, G, memberId, -1);
    const r = await checkFor(async () => {
      const x = await admin.call(ApiKeys.AlterShareGroupOffsets, 0, alterBody(G, [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: 0 }] }]));
      return x.errorCode === ErrorCode.NONE ? x : null;
    }, 20_000, 100);
    expect(r.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
  });
  afterEach(async () => {
    await suite().revokeAll();
  });

  it('no ACLs: every API refuses the group (GROUP_AUTHORIZATION_FAILED)', async () => {
    const alice = await suite().login('alice');
    expect((await alice.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody(G, null))).groups[0]).to.deep.include({ groupId: G, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] });
    expect(await alice.call(ApiKeys.AlterShareGroupOffsets, 0, alterBody(G, [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: 0 }] }]))).to.deep.include({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, responses: [] });
    expect(await alice.call(ApiKeys.DeleteShareGroupOffsets, 0, deleteBody(G, [TOPIC]))).to.deep.include({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, responses: [] });
  });

  it('DESCRIBE on the group alone: a named topic is TOPIC_AUTHORIZATION_FAILED, all topics leaves it out; with DESCRIBE on the topic it is shown', async () => {
    const a = suite();
    await a.allow(grant(AclOperation.DESCRIBE, ResourceType.GROUP, G));
    const alice = await a.login('alice');
    const named = await alice.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody(G, [{ topicName: TOPIC, partitions: [0] }]));
    expect(named.groups[0].errorCode).to.equal(ErrorCode.NONE);
    expect(named.groups[0].topics).to.deep.equal([
      { topicName: TOPIC, topicId: ZERO_TOPIC_ID, partitions: [{ partitionIndex: 0, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Topic authorization failed.' }] },
    ]);
    expect((await alice.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody(G, null))).groups[0]).to.deep.include({ errorCode: ErrorCode.NONE, topics: [] });
    await a.allow(grant(AclOperation.DESCRIBE, ResourceType.TOPIC, TOPIC));
    const shown = await alice.call(ApiKeys.DescribeShareGroupOffsets, 1, describeBody(G, null));
    expect(shown.groups[0].topics.map((t: any) => [t.topicName, t.partitions[0].startOffset, t.partitions[0].errorCode])).to.deep.equal([[TOPIC, 0, ErrorCode.NONE]]);
  });

  it('AlterShareGroupOffsets needs READ on the group and on each topic', async () => {
    const a = suite();
    await a.allow(grant(AclOperation.READ, ResourceType.GROUP, G));
    const alice = await a.login('alice');
    const body = alterBody(G, [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: 1 }] }]);
    const denied = await alice.call(ApiKeys.AlterShareGroupOffsets, 0, body);
    expect(denied.errorCode).to.equal(ErrorCode.NONE);
    expect(denied.responses[0].partitions).to.deep.equal([{ partitionIndex: 0, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Topic authorization failed.' }]);
    await a.allow(grant(AclOperation.READ, ResourceType.TOPIC, TOPIC));
    const done = await alice.call(ApiKeys.AlterShareGroupOffsets, 0, body);
    expect(done.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
  });

  it('DeleteShareGroupOffsets needs DELETE on the group and READ on each topic', async () => {
    const a = suite();
    await a.allow(grant(AclOperation.READ, ResourceType.GROUP, G), grant(AclOperation.READ, ResourceType.TOPIC, TOPIC));
    const alice = await a.login('alice');
    // READ on the group is not enough to delete
    expect(await alice.call(ApiKeys.DeleteShareGroupOffsets, 0, deleteBody(G, [TOPIC]))).to.deep.include({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED });
    await a.revokeAll();
    await a.allow(grant(AclOperation.DELETE, ResourceType.GROUP, G));
    const topicDenied = await alice.call(ApiKeys.DeleteShareGroupOffsets, 0, deleteBody(G, [TOPIC]));
    expect(topicDenied.errorCode).to.equal(ErrorCode.NONE);
    expect(topicDenied.responses).to.deep.equal([{ topicName: TOPIC, topicId: ZERO_TOPIC_ID, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Topic authorization failed.' }]);
    await a.allow(grant(AclOperation.READ, ResourceType.TOPIC, TOPIC));
    const deleted = await alice.call(ApiKeys.DeleteShareGroupOffsets, 0, deleteBody(G, [TOPIC]));
    expect(deleted.responses.map((t: any) => [t.topicName, t.errorCode])).to.deep.equal([[TOPIC, ErrorCode.NONE]]);
  });
});
