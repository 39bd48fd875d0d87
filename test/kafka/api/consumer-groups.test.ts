/**
 * KIP-848's consumer group protocol over the Kafka wire (ConsumerGroupHeartbeat v0-v1,
 * ConsumerGroupDescribe v0-v1, OffsetCommit / OffsetFetch v9), as a Java consumer with
 * group.protocol=consumer speaks it: a member id made by the coordinator, assignments by topic
 * id, a partition moving from one member to another only once the first has revoked it, Kafka's
 * errors, offsets committed and fetched with member epochs, the group in ListGroups,
 * DescribeGroups (v6: not a classic group) and DeleteGroups, the versions advertised, a member subscribing with a regular
 * expression (v1), and the ACLs (READ on the group to heartbeat, DESCRIBE to describe, an
 * expression resolved to the topics the member may DESCRIBE).
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { assignedPartitions, joinHeartbeat, memberHeartbeat } from '../../helpers/consumer-group-requests.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { AclOperation, ResourceType } from '../../../src/security/acl.js';

const TOPIC = 'kip848';

describe('Kafka API: KIP-848 consumer groups', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let topicId: string;
  const open: KafkaCaller[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, topics: [{ name: TOPIC, partitions: 4, replicationFactor: 2 }] });
    const k = await KafkaCaller.connect(c.bootstrap[0]!);
    const md = await checkFor(async () => {
      const r = await k.call(ApiKeys.Metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return r.topics[0]?.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    topicId = md.topics[0].topicId;
    k.end();
  });
  afterEach(() => {
    for (const k of open.splice(0)) k.end();
  });
  after(async () => {
    await c?.stop();
  });

  async function caller(endpoint: string, clientId = 'raw-test'): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(endpoint, clientId);
    open.push(k);
    return k;
  }

  let lastCoordinator = '';
  async function coordinatorFor(groupId: string, clientId?: string): Promise<KafkaCaller> {
    const any = await caller(c.bootstrap[0]!);
    const found = await checkFor(async () => {
      const r = await any.call(ApiKeys.FindCoordinator, 2, { key: groupId, keyType: 0 });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    lastCoordinator = `${found.host}:${found.port}`;
    return caller(lastCoordinator, clientId);
  }

  const join = (groupId: string, o: object = {}) => joinHeartbeat(groupId, [TOPIC], o);
  const beat = (groupId: string, memberId: string, memberEpoch: number, owned: number[] | null) => memberHeartbeat(groupId, memberId, memberEpoch, topicId, owned);
  const parts = assignedPartitions;

  it('advertises ConsumerGroupHeartbeat v0-v1 (v1: the topic regex), ConsumerGroupDescribe v0-v1 (v1: the member type), DescribeGroups v0-v6, OffsetCommit and OffsetFetch up to v10 (v10: topics by id)', async () => {
    const k = await caller(c.bootstrap[0]!);
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    const range = (key: number) => r.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
    expect(range(68)).to.deep.include({ minVersion: 0, maxVersion: 1 });
    expect(range(69)).to.deep.include({ minVersion: 0, maxVersion: 1 });
    expect(range(15)).to.deep.include({ minVersion: 0, maxVersion: 6 });
    expect(range(8).maxVersion).to.equal(10);
    expect(range(9).maxVersion).to.equal(10);
  });

  it('two members: a partition moves from the first to the second only after the first revoked it', async () => {
    const G = 'two-members';
    const k = await coordinatorFor(G, 'consumer-a');
    const a = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G));
    expect(a.errorCode).to.equal(ErrorCode.NONE);
    expect(a.memberId).to.be.a('string').and.not.equal('');
    expect(a.memberEpoch).to.equal(1);
    expect(a.heartbeatIntervalMs).to.equal(5_000);
    expect(a.assignment.topicPartitions).to.deep.equal([{ topicId, partitions: [0, 1, 2, 3] }]);

    const b = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G));
    expect(b.memberEpoch).to.equal(2);
    // everything b is to get is still a's: nothing yet
    expect(parts(b)).to.deep.equal([]);

    // a, still owning all four, is asked to give two up: its assignment shrinks, its epoch stays
    const a2 = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(G, a.memberId, 1, [0, 1, 2, 3]));
    expect(a2.memberEpoch).to.equal(1);
    const kept = parts(a2);
    expect(kept).to.have.length(2);
    const moving = [0, 1, 2, 3].filter((p) => !kept.includes(p));

    // b asks before a revoked: still nothing
    const b2 = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(G, b.memberId, 2, []));
    expect(b2.errorCode).to.equal(ErrorCode.NONE);
    expect(parts({ assignment: b2.assignment ?? { topicPartitions: [] } })).to.deep.equal([]);

    // a revoked them: it reaches epoch 2
    const a3 = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(G, a.memberId, 1, kept));
    expect(a3.memberEpoch).to.equal(2);

    // now b gets them
    const b3 = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(G, b.memberId, 2, []));
    expect(b3.memberEpoch).to.equal(2);
    expect(parts(b3)).to.deep.equal(moving);

    const d = await k.call(ApiKeys.ConsumerGroupDescribe, 0, { groupIds: [G], includeAuthorizedOperations: false });
    const g = d.groups[0];
    expect(g).to.deep.include({ errorCode: 0, groupId: G, groupState: 'Stable', groupEpoch: 2, assignmentEpoch: 2, assignorName: 'uniform' });
    const byId = new Map(g.members.map((m: { memberId: string }) => [m.memberId, m]));
    expect((byId.get(b.memberId) as { clientId: string; assignment: unknown }).clientId).to.equal('consumer-a');
    expect((byId.get(b.memberId) as { assignment: unknown }).assignment).to.deep.equal({ topicPartitions: [{ topicId, topicName: TOPIC, partitions: moving }] });
    // v1 (KIP-1099): both speak the consumer protocol, member type 1; v0 has no such field (decoded as its default, -1)
    const d1 = await k.call(ApiKeys.ConsumerGroupDescribe, 1, { groupIds: [G], includeAuthorizedOperations: false });
    expect(d1.groups[0].members.map((m: { memberType: number }) => m.memberType)).to.deep.equal([1, 1]);
    expect(g.members.map((m: { memberType: number }) => m.memberType)).to.deep.equal([-1, -1]);

    // leaving: epoch -1 back, the partitions go to the other member
    const left = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, { ...beat(G, a.memberId, -1, null) });
    expect(left).to.deep.include({ errorCode: 0, memberId: a.memberId, memberEpoch: -1 });
    const b4 = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(G, b.memberId, 2, moving));
    expect(b4.memberEpoch).to.equal(3);
    expect(parts(b4)).to.deep.equal([0, 1, 2, 3]);
  });

  it("answers Kafka's errors: UNSUPPORTED_ASSIGNOR, INVALID_REQUEST, FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, GROUP_ID_NOT_FOUND for a classic group, NOT_COORDINATOR elsewhere", async () => {
    const G = 'errors';
    const k = await coordinatorFor(G);
    const here = lastCoordinator;
    const bad = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G, { serverAssignor: 'cooperative-sticky' }));
    expect(bad.errorCode).to.equal(ErrorCode.UNSUPPORTED_ASSIGNOR);
    expect(bad.errorMessage).to.equal('ServerAssignor cooperative-sticky is not supported. Supported assignors: uniform, range.');
    const invalid = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G, { rebalanceTimeoutMs: -1 }));
    expect(invalid).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'RebalanceTimeoutMs must be provided in first request.', memberEpoch: -1, memberId: null });
    const a = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G));
    expect((await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(G, a.memberId, 9, null))).errorCode).to.equal(ErrorCode.FENCED_MEMBER_EPOCH);
    expect((await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(G, 'nobody', 1, null))).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);

    const C = 'errors-classic';
    const kc = await coordinatorFor(C);
    const j = await kc.call(ApiKeys.JoinGroup, 3, { groupId: C, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from([0, 1]) }] });
    expect(j.errorCode).to.equal(ErrorCode.NONE);
    expect((await kc.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(C))).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    // and the other way round: a classic member of another protocol type cannot join the consumer group
    // (classic "consumer" members can: consumer-group-migration.test.ts), nor one whose Subscription does not decode
    const jc = await k.call(ApiKeys.JoinGroup, 3, { groupId: G, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'connect', protocols: [{ name: 'range', metadata: Buffer.from([0, 1]) }] });
    expect(jc.errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const garbled = await k.call(ApiKeys.JoinGroup, 3, { groupId: G, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from([0, 1]) }] });
    expect(garbled.errorCode).to.equal(ErrorCode.UNKNOWN_SERVER_ERROR);

    // the broker that does not coordinate the group
    const other = await caller(c.bootstrap.find((b) => b !== here)!);
    expect((await other.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G))).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
  });

  it('v1: a member subscribing with a regular expression gets the topics it matches whole (never an internal one), shown by ConsumerGroupDescribe; RE2J refusals are INVALID_REGULAR_EXPRESSION', async () => {
    const G = 'regex848';
    const k = await coordinatorFor(G);
    // the Java consumer's subscribe(SubscriptionPattern): no names, the pattern
    const a = await k.call(ApiKeys.ConsumerGroupHeartbeat, 1, joinHeartbeat(G, [], { subscribedTopicRegex: '.*' }));
    expect(a).to.deep.include({ errorCode: ErrorCode.NONE, memberEpoch: 1 });
    // __consumer_offsets exists (FindCoordinator made it) but is not matched
    expect(a.assignment.topicPartitions).to.deep.equal([{ topicId, partitions: [0, 1, 2, 3] }]);
    // a v0 member with names beside it
    const b = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G));
    expect(b.memberEpoch).to.equal(2);
    const d = await k.call(ApiKeys.ConsumerGroupDescribe, 0, { groupIds: [G], includeAuthorizedOperations: false });
    const subs = new Map(d.groups[0].members.map((m: { memberId: string; subscribedTopicNames: string[]; subscribedTopicRegex: string | null }) => [m.memberId, [m.subscribedTopicNames, m.subscribedTopicRegex]]));
    expect(subs.get(a.memberId)).to.deep.equal([[], '.*']);
    expect(subs.get(b.memberId)).to.deep.equal([[TOPIC], null]);
    // samsa's admin tells it too
    const admin = c.handle.samsa().admin();
    await admin.connect();
    try {
      const g = (await admin.describeConsumerGroups([G])).groups[0]!;
      expect(g.members.find((m) => m.memberId === a.memberId)!.subscribedTopicRegex).to.equal('.*');
    } finally {
      await admin.disconnect();
    }
    // the expression must match the whole name: 'kip' matches nothing
    const c2 = await k.call(ApiKeys.ConsumerGroupHeartbeat, 1, joinHeartbeat(`${G}-prefix`, [], { subscribedTopicRegex: 'kip' }));
    expect(c2.errorCode).to.equal(ErrorCode.NONE);
    expect(parts(c2)).to.deep.equal([]);
    const bad = await k.call(ApiKeys.ConsumerGroupHeartbeat, 1, joinHeartbeat(G, [], { subscribedTopicRegex: '(kip)\\1' }));
    expect(bad).to.deep.include({ errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, errorMessage: 'SubscribedTopicRegex `(kip)\\1` is not a valid regular expression: invalid escape sequence.', memberId: null });
    const neither = await k.call(ApiKeys.ConsumerGroupHeartbeat, 1, joinHeartbeat(G, [], { subscribedTopicNames: null }));
    expect(neither).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.' });
  });

  it('OffsetCommit v9 and OffsetFetch v9 check the member epoch; ListGroups types the group consumer; DescribeGroups answers Dead (v6: GROUP_ID_NOT_FOUND, not a classic group); DeleteGroups once empty', async () => {
    const G = 'offsets848';
    const k = await coordinatorFor(G);
    const a = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G));
    const commit = (version: number, memberId: string, epoch: number) =>
      k.call(ApiKeys.OffsetCommit, version, {
        groupId: G,
        generationIdOrMemberEpoch: epoch,
        memberId,
        groupInstanceId: null,
        retentionTimeMs: -1,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 1, committedOffset: 42, committedLeaderEpoch: -1, committedMetadata: 'm' }] }],
      });
    const code = (r: { topics: { partitions: { errorCode: number }[] }[] }) => r.topics[0]!.partitions[0]!.errorCode;
    expect(code(await commit(9, a.memberId, 0))).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
    expect(code(await commit(9, 'nobody', 1))).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(code(await commit(8, a.memberId, 1))).to.equal(ErrorCode.UNSUPPORTED_VERSION);
    expect(code(await commit(9, a.memberId, 1))).to.equal(ErrorCode.NONE);
    const fetch = (memberId: string | null, memberEpoch: number) =>
      k.call(ApiKeys.OffsetFetch, 9, { groups: [{ groupId: G, memberId, memberEpoch, topics: [{ name: TOPIC, partitionIndexes: [1] }] }], requireStable: true });
    const ok = await fetch(a.memberId, 1);
    expect(ok.groups[0].errorCode).to.equal(ErrorCode.NONE);
    expect(ok.groups[0].topics[0].partitions[0]).to.deep.include({ partitionIndex: 1, committedOffset: 42, metadata: 'm' });
    expect((await fetch(a.memberId, 3)).groups[0].errorCode).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
    expect((await fetch(null, -1)).groups[0].errorCode).to.equal(ErrorCode.NONE);

    const listed = await k.call(ApiKeys.ListGroups, 5, { statesFilter: [], typesFilter: ['consumer'] });
    expect(listed.groups.find((g: { groupId: string }) => g.groupId === G)).to.deep.equal({ groupId: G, protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' });
    const classicOnly = await k.call(ApiKeys.ListGroups, 5, { statesFilter: [], typesFilter: ['classic'] });
    expect(classicOnly.groups.find((g: { groupId: string }) => g.groupId === G)).to.equal(undefined);
    const described = await k.call(ApiKeys.DescribeGroups, 5, { groups: [G], includeAuthorizedOperations: false });
    expect(described.groups[0]).to.deep.include({ errorCode: 0, groupId: G, groupState: 'Dead', members: [] });
    const v6 = await k.call(ApiKeys.DescribeGroups, 6, { groups: [G], includeAuthorizedOperations: false });
    expect(v6.groups[0]).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} is not a classic group.`, groupId: G, groupState: 'Dead', protocolType: '', members: [] });

    expect((await k.call(ApiKeys.DeleteGroups, 2, { groupsNames: [G] })).results[0].errorCode).to.equal(ErrorCode.NON_EMPTY_GROUP);
    await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(G, a.memberId, -1, null));
    expect((await k.call(ApiKeys.DeleteGroups, 2, { groupsNames: [G] })).results[0].errorCode).to.equal(ErrorCode.NONE);
    const gone = await k.call(ApiKeys.ConsumerGroupDescribe, 0, { groupIds: [G], includeAuthorizedOperations: false });
    expect(gone.groups[0].errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
  });
  it("samsa's admin describes a consumer group (its members' assignments by topic name and types) and says GROUP_ID_NOT_FOUND for a classic one; describeGroups says GROUP_ID_NOT_FOUND for it, with Kafka's message", async () => {
    const G = 'admin-described';
    const k = await coordinatorFor(G);
    const a = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join(G));
    expect(a.errorCode).to.equal(ErrorCode.NONE);
    const admin = c.handle.samsa().admin();
    await admin.connect();
    try {
      const d = await checkFor(async () => {
        const r = (await admin.describeConsumerGroups([G, 'no-such-group'])).groups;
        return r[0]!.members[0]?.assignment.length ? r : null;
      }, 15_000, 50);
      expect(d[0]).to.deep.include({ groupId: G, errorCode: ErrorCode.NONE, assignorName: 'uniform' });
      expect(d[0]!.members.map((m) => m.memberId)).to.deep.equal([a.memberId]);
      expect(d[0]!.members[0]!.assignment.map((t) => t.topicName)).to.deep.equal([TOPIC]);
      expect(d[0]!.members[0]!.memberType).to.equal('consumer');
      expect(d[1]!.errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      const classic = (await admin.describeGroups([G, 'no-such-group'])).groups;
      expect(classic.map((g) => [g.errorCode, g.errorMessage, g.state])).to.deep.equal([
        [ErrorCode.GROUP_ID_NOT_FOUND, `Group ${G} is not a classic group.`, 'Dead'],
        [ErrorCode.GROUP_ID_NOT_FOUND, 'Group no-such-group not found.', 'Dead'],
      ]);
    } finally {
      await admin.disconnect();
    }
  });
});

describe('Kafka API: KIP-848 consumer groups with an authorizer', function () {
  this.timeout(30_000);
  let a: AuthorizedKafkaCluster;

  before(async () => {
    a = await startAuthorizedKafkaCluster(
      { alice: 'alice-secret' },
      {
        brokers: 1,
        topics: [
          { name: TOPIC, partitions: 2, replicationFactor: 1 },
          { name: `${TOPIC}-hidden`, partitions: 1, replicationFactor: 1 },
        ],
      },
    );
  });
  after(async () => {
    await a?.stop();
  });

  it('ConsumerGroupHeartbeat needs READ on the group and DESCRIBE on the topics it names; ConsumerGroupDescribe DESCRIBE on each, the refused ones first', async () => {
    const alice = await a.login('alice');
    const hb = (groupId: string) => ({ groupId, memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: [TOPIC], serverAssignor: null, topicPartitions: [] });
    const refused = await alice.call(ApiKeys.ConsumerGroupHeartbeat, 0, hb('acl-g'));
    expect(refused).to.deep.include({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, memberId: null, memberEpoch: -1 });
    await a.allow({ principal: 'User:alice', operation: AclOperation.READ, resourceType: ResourceType.GROUP, resourceName: 'acl-g' });
    // FindCoordinator first (it has the offsets topic made), as a consumer does
    await checkFor(async () => (await alice.call(ApiKeys.FindCoordinator, 2, { key: 'acl-g', keyType: 0 })).errorCode === ErrorCode.NONE, 15_000, 50);
    // the group may be read, but not the topic seen: TOPIC_AUTHORIZATION_FAILED, as Kafka 4.0
    expect(await alice.call(ApiKeys.ConsumerGroupHeartbeat, 0, hb('acl-g'))).to.deep.include({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, memberId: null, memberEpoch: -1 });
    await a.allow({ principal: 'User:alice', operation: AclOperation.DESCRIBE, resourceType: ResourceType.TOPIC, resourceName: TOPIC });
    const joined = await checkFor(async () => {
      const r = await alice.call(ApiKeys.ConsumerGroupHeartbeat, 0, hb('acl-g'));
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    expect(joined.memberEpoch).to.equal(1);
    // READ implies DESCRIBE (Kafka's rule), so acl-g is described; acl-other is refused and comes first
    const d = await alice.call(ApiKeys.ConsumerGroupDescribe, 0, { groupIds: ['acl-g', 'acl-other'], includeAuthorizedOperations: true });
    expect(d.groups.map((g: { groupId: string; errorCode: number }) => [g.groupId, g.errorCode])).to.deep.equal([
      ['acl-other', ErrorCode.GROUP_AUTHORIZATION_FAILED],
      ['acl-g', ErrorCode.NONE],
    ]);
    expect(d.groups[1].members).to.have.length(1);
    expect(d.groups[1].authorizedOperations).to.be.greaterThan(0);
  });

  it('a regular expression resolves only to the topics the member may DESCRIBE, and a group using a topic the client may not DESCRIBE is not described to it, as Kafka 4.0', async () => {
    const alice = await a.login('alice');
    await a.allow(
      { principal: 'User:alice', operation: AclOperation.READ, resourceType: ResourceType.GROUP, resourceName: 'acl-regex' },
      { principal: 'User:alice', operation: AclOperation.READ, resourceType: ResourceType.TOPIC, resourceName: TOPIC },
    );
    await checkFor(async () => (await alice.call(ApiKeys.FindCoordinator, 2, { key: 'acl-regex', keyType: 0 })).errorCode === ErrorCode.NONE, 15_000, 50);
    const joined = await checkFor(async () => {
      const r = await alice.call(ApiKeys.ConsumerGroupHeartbeat, 1, joinHeartbeat('acl-regex', [], { subscribedTopicRegex: `${TOPIC}.*` }));
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    // kip848-hidden matches too, but alice may not describe it
    expect(joined.assignment.topicPartitions.map((t: { partitions: number[] }) => t.partitions)).to.deep.equal([[0, 1]]);
    // the admin (a super user) may: the same expression gets it both topics
    const admin = await a.login('admin');
    const all = await admin.call(ApiKeys.ConsumerGroupHeartbeat, 1, joinHeartbeat('acl-regex-admin', [], { subscribedTopicRegex: `${TOPIC}.*` }));
    expect(all.assignment.topicPartitions.map((t: { partitions: number[] }) => t.partitions).sort()).to.deep.equal([[0], [0, 1]]);
    // alice may describe that group, but it uses a topic she may not see: refused as a whole, as Kafka 4.0
    await a.allow({ principal: 'User:alice', operation: AclOperation.DESCRIBE, resourceType: ResourceType.GROUP, resourceName: 'acl-regex-admin' });
    const d = await alice.call(ApiKeys.ConsumerGroupDescribe, 0, { groupIds: ['acl-regex-admin', 'acl-regex'], includeAuthorizedOperations: false });
    expect(d.groups.map((g: { groupId: string; errorCode: number; members: unknown[] }) => [g.groupId, g.errorCode, g.members.length])).to.deep.equal([
      ['acl-regex-admin', ErrorCode.TOPIC_AUTHORIZATION_FAILED, 0],
      ['acl-regex', ErrorCode.NONE, 1],
    ]);
    expect(d.groups[0].errorMessage).to.equal('The described group uses topics that the client is not authorized to describe.');
  });
});
