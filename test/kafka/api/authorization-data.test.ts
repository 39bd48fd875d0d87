/**
 * ACLs enforced by the data and group APIs, as Kafka's KafkaApis does, against one broker with
 * Kafka's StandardAuthorizer settings and SASL PLAIN users (admin a super user, alice and bob
 * with the ACLs each test binds): Produce (WRITE), Fetch (READ; a replica id needs
 * CLUSTER_ACTION), ListOffsets and OffsetForLeaderEpoch (DESCRIBE), Metadata (DESCRIBE, CREATE for
 * auto-creation, the client's own authorized operations), OffsetCommit / OffsetFetch /
 * OffsetDelete (group and topic), FindCoordinator (v6 share keys: CLUSTER_ACTION), the membership APIs, DescribeGroups,
 * ListGroups, DeleteGroups, InitProducerId and the transaction APIs (AddPartitionsToTxn,
 * AddOffsetsToTxn, EndTxn, a Produce of transactional batches). Also: DENY beats ALLOW, PREFIXED and wildcard
 * bindings, User:* — and a KafkaJS producer and consumer group with just the ACLs they need.
 */
import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaListenerName, type KafkaListenerDescription } from '../../../actors/kafka-listener/listener.js';
import { CLUSTER_OPERATIONS, GROUP_OPERATIONS, TOPIC_OPERATIONS } from '../../../src/kafka/api/authorized-operations.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { AclOperation as Op, AclPermission, CLUSTER_NAME, PatternType, ResourceType as Res } from '../../../src/security/acl.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../../helpers/raw-kafka.js';

const USERS = { admin: 'admin-pw', alice: 'alice-pw', bob: 'bob-pw' } as const;
type User = keyof typeof USERS;
const META = Buffer.from([0, 1, 2, 3]);
const bit = (...ops: number[]) => ops.reduce((b, op) => b | (1 << op), 0);

interface Acl {
  type: number;
  name: string;
  op: number;
  user?: string;
  pattern?: number;
  deny?: boolean;
}
const allow = (type: number, name: string, op: number, more: Partial<Acl> = {}): Acl => ({ type, name, op, ...more });
const deny = (type: number, name: string, op: number, more: Partial<Acl> = {}): Acl => ({ type, name, op, deny: true, ...more });

function batch(values: string[]): Buffer {
  return encodeRecordBatch({ records: values.map((v) => ({ key: null, value: Buffer.from(v), headers: [], timestamp: Date.now() })) });
}

/** A consumer Fetch body (v12) for several partitions; `extra` overrides fields. */
function fetchBody(parts: [string, number][], extra: object = {}): object {
  const byTopic = new Map<string, number[]>();
  for (const [t, p] of parts) byTopic.set(t, [...(byTopic.get(t) ?? []), p]);
  const one = consumerFetchBody('x', 0, 0) as { topics: { partitions: object[] }[] };
  const template = one.topics[0]!.partitions[0]!;
  return { ...one, topics: [...byTopic].map(([topic, ps]) => ({ topic, partitions: ps.map((partition) => ({ ...template, partition, fetchOffset: 0 })) })), ...extra };
}

/** partition error codes of a response's topics, as 'topic/partition' -> code */
function codes(topics: { name?: string; topic?: string; partitions?: object[]; partitionResponses?: object[] }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of topics) {
    for (const p of (t.partitions ?? t.partitionResponses ?? []) as { partitionIndex?: number; index?: number; partition?: number; errorCode: number }[]) {
      out[`${t.name ?? t.topic}/${p.partitionIndex ?? p.index ?? p.partition}`] = p.errorCode;
    }
  }
  return out;
}

describe('Kafka API: ACLs on the data and group APIs', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let admin: KafkaCaller;
  const open: KafkaCaller[] = [];

  async function connectAs(user: User): Promise<KafkaCaller> {
    return KafkaCaller.plainLogin(c.bootstrap[0]!, user, USERS[user]);
  }

  /** A connection authenticated as the user, closed after the test. */
  async function login(user: User): Promise<KafkaCaller> {
    const k = await connectAs(user);
    open.push(k);
    return k;
  }

  async function listenerAcls(): Promise<number | null> {
    const d = (await c.handle.mainSystem.ask<KafkaListenerDescription>({ node: 'main', path: `/${kafkaListenerName(1)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 })) as KafkaListenerDescription;
    return d.authorizer.acls;
  }

  /** Replaces every ACL with these (alice's unless said) and waits until the broker authorizes with them. */
  async function setAcls(...acls: Acl[]): Promise<void> {
    const del = await admin.call(ApiKeys.DeleteAcls, 3, {
      filters: [{ resourceTypeFilter: Res.ANY, resourceNameFilter: null, patternTypeFilter: PatternType.ANY, principalFilter: null, hostFilter: null, operation: Op.ANY, permissionType: AclPermission.ANY }],
    });
    expect(del.filterResults[0].errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await listenerAcls()) === 0, 10_000, 10);
    if (acls.length === 0) return;
    const r = await admin.call(ApiKeys.CreateAcls, 3, {
      creations: acls.map((a) => ({
        resourceType: a.type,
        resourceName: a.name,
        resourcePatternType: a.pattern ?? PatternType.LITERAL,
        principal: a.user ?? 'User:alice',
        host: '*',
        operation: a.op,
        permissionType: a.deny ? AclPermission.DENY : AclPermission.ALLOW,
      })),
    });
    expect(r.results.map((x: { errorCode: number }) => x.errorCode)).to.deep.equal(acls.map(() => ErrorCode.NONE));
    await checkFor(async () => (await listenerAcls()) === acls.length, 10_000, 10);
  }

  const produce = (k: KafkaCaller, parts: [string, number][], acks = -1) =>
    k.call(ApiKeys.Produce, 9, { transactionalId: null, acks, timeoutMs: 5_000, topicData: parts.map(([name, index]) => ({ name, partitionData: [{ index, records: batch(['v']) }] })) });
  const endOffset = async (topic: string, partition: number): Promise<number> => {
    const r = await admin.call(ApiKeys.ListOffsets, 6, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1 }] }] });
    return r.topics[0].partitions[0].offset;
  };
  const commit = (k: KafkaCaller, groupId: string, parts: [string, number, number][]) =>
    k.call(ApiKeys.OffsetCommit, 8, {
      groupId,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [...new Set(parts.map((p) => p[0]))].map((name) => ({
        name,
        partitions: parts.filter((p) => p[0] === name).map(([, partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: null })),
      })),
    });
  const committed = async (groupId: string, topic: string, partition: number): Promise<number> => {
    const r = await admin.call(ApiKeys.OffsetFetch, 5, { groupId, topics: [{ name: topic, partitionIndexes: [partition] }] });
    return r.topics[0].partitions[0].committedOffset;
  };
  /**
   * FindCoordinator creates __transaction_state; the coordinator of `transactionalId` is up once
   * it answers for the id (an EndTxn of an unknown producer: INVALID_PRODUCER_ID_MAPPING, nothing changed).
   */
  const transactionCoordinatorUp = async (transactionalId: string): Promise<void> => {
    await checkFor(async () => (await admin.call(ApiKeys.FindCoordinator, 3, { key: transactionalId, keyType: 1 })).errorCode === ErrorCode.NONE, 15_000, 50);
    await checkFor(async () => {
      const r = await admin.call(ApiKeys.EndTxn, 3, { transactionalId, producerId: -1, producerEpoch: -1, committed: false });
      return r.errorCode === ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    }, 15_000, 50);
  };
  const metadata = (k: KafkaCaller, names: string[] | null, extra: object = {}) =>
    k.call(ApiKeys.Metadata, 9, { topics: names && names.map((name) => ({ name })), allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false, ...extra });

  before(async () => {
    c = await startKafkaCluster({
      brokers: 1,
      sasl: { users: { ...USERS } },
      brokerConfig: { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users': 'User:admin' },
      topics: [
        { name: 'orders', partitions: 2, replicationFactor: 1 },
        { name: 'secret', partitions: 1, replicationFactor: 1 },
        { name: 'pub.a', partitions: 1, replicationFactor: 1 },
      ],
    });
    admin = await connectAs('admin');
    await checkFor(async () => Object.values(codes((await produce(admin, [['orders', 0], ['orders', 1], ['secret', 0], ['pub.a', 0]])).responses)).every((x) => x === ErrorCode.NONE), 15_000, 50);
    // FindCoordinator creates __consumer_offsets; the coordinator is up once it answers
    await checkFor(async () => (await admin.call(ApiKeys.FindCoordinator, 3, { key: 'warm-up', keyType: 0 })).errorCode === ErrorCode.NONE, 15_000, 50);
    await checkFor(async () => (await commit(admin, 'warm-up', [['orders', 0, 0]])).topics[0].partitions[0].errorCode === ErrorCode.NONE, 15_000, 50);
  });
  afterEach(() => {
    for (const k of open.splice(0)) k.end();
  });
  after(async () => {
    admin?.end();
    await c?.stop();
  });

  it('Produce: WRITE on each topic; refused partitions are not written, with acks 1 or 0; DENY beats a wildcard ALLOW; PREFIXED bindings', async () => {
    await setAcls(allow(Res.TOPIC, 'orders', Op.WRITE));
    const alice = await login('alice');
    const before = await endOffset('secret', 0);
    const r = await produce(alice, [['orders', 0], ['secret', 0]]);
    expect(codes(r.responses)).to.deep.equal({ 'orders/0': ErrorCode.NONE, 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    expect(r.responses[1].partitionResponses[0]).to.include({ baseOffset: -1, errorMessage: null });
    expect(await endOffset('secret', 0)).to.equal(before);

    // acks 0: the allowed partition is written, the refused one is not, and the connection closes (as Kafka's)
    const orders1 = await endOffset('orders', 1);
    const quiet = await login('alice');
    quiet.socket.request(ApiKeys.Produce, 9, 999, { transactionalId: null, acks: 0, timeoutMs: 5_000, topicData: [{ name: 'secret', partitionData: [{ index: 0, records: batch(['x']) }] }, { name: 'orders', partitionData: [{ index: 1, records: batch(['x']) }] }] });
    expect(await quiet.closed(), 'the acks=0 connection closed').to.equal(true);
    await checkFor(async () => (await endOffset('orders', 1)) === orders1 + 1, 5_000, 10);
    expect(await endOffset('secret', 0)).to.equal(before);

    await setAcls(allow(Res.TOPIC, '*', Op.WRITE), deny(Res.TOPIC, 'secret', Op.WRITE));
    expect(codes((await produce(alice, [['orders', 0], ['secret', 0], ['pub.a', 0]])).responses)).to.deep.equal({ 'orders/0': 0, 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'pub.a/0': 0 });

    await setAcls(allow(Res.TOPIC, 'pub.', Op.WRITE, { pattern: PatternType.PREFIXED }));
    expect(codes((await produce(alice, [['orders', 0], ['pub.a', 0]])).responses)).to.deep.equal({ 'orders/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'pub.a/0': 0 });
    // bob has no ACL at all
    const bob = await login('bob');
    expect(codes((await produce(bob, [['pub.a', 0]])).responses)).to.deep.equal({ 'pub.a/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    expect(await endOffset('secret', 0)).to.equal(before);
  });

  it('Fetch: READ on each topic for a consumer; a replica id needs CLUSTER_ACTION; User:* on the wildcard opens to all', async () => {
    await setAcls(allow(Res.TOPIC, 'orders', Op.READ));
    const alice = await login('alice');
    const r = await alice.call(ApiKeys.Fetch, 12, fetchBody([['orders', 0], ['secret', 0]]));
    const [orders, secret] = [r.responses[0].partitions[0], r.responses[1].partitions[0]];
    expect(orders.errorCode).to.equal(ErrorCode.NONE);
    expect(orders.records.length).to.be.greaterThan(0);
    expect(secret).to.include({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, highWatermark: -1 });
    expect(secret.records.length).to.equal(0);
    // every partition refused: answered at once, whatever the wait
    const t0 = Date.now();
    const none = await alice.call(ApiKeys.Fetch, 12, fetchBody([['secret', 0]], { maxWaitMs: 5_000, minBytes: 1 << 20 }));
    expect(none.responses[0].partitions[0].errorCode).to.equal(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    expect(Date.now() - t0).to.be.lessThan(2_000);

    // a follower's fetch (replica id >= 0) needs CLUSTER_ACTION on the cluster, READ is not enough
    const asReplica = await alice.call(ApiKeys.Fetch, 12, fetchBody([['orders', 0]], { replicaId: 1 }));
    expect(asReplica.responses[0].partitions[0]).to.include({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    await setAcls(allow(Res.CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION));
    const replica = await alice.call(ApiKeys.Fetch, 12, fetchBody([['orders', 0], ['secret', 0]], { replicaId: 1 }));
    expect(codes(replica.responses)).to.deep.equal({ 'orders/0': 0, 'secret/0': 0 });

    await setAcls(allow(Res.TOPIC, '*', Op.READ, { user: 'User:*' }));
    const bob = await login('bob');
    expect(codes((await bob.call(ApiKeys.Fetch, 12, fetchBody([['secret', 0], ['pub.a', 0]]))).responses)).to.deep.equal({ 'secret/0': 0, 'pub.a/0': 0 });
  });

  it('ListOffsets and OffsetForLeaderEpoch: DESCRIBE on each topic (OffsetForLeaderEpoch: or CLUSTER_ACTION)', async () => {
    await setAcls(allow(Res.TOPIC, 'orders', Op.DESCRIBE));
    const alice = await login('alice');
    const lo = await alice.call(ApiKeys.ListOffsets, 6, {
      replicaId: -1,
      isolationLevel: 0,
      topics: ['secret', 'orders'].map((name) => ({ name, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] })),
    });
    expect(codes(lo.topics)).to.deep.equal({ 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'orders/0': 0 });
    expect(lo.topics[0].partitions[0]).to.include({ offset: -1, timestamp: -1 });
    expect(lo.topics[1].partitions[0].offset).to.equal(await endOffset('orders', 0));
    const epochs = () =>
      alice.call(ApiKeys.OffsetForLeaderEpoch, 4, { replicaId: -1, topics: ['orders', 'secret'].map((topic) => ({ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] })) });
    expect(codes((await epochs()).topics)).to.deep.equal({ 'orders/0': 0, 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    await setAcls(allow(Res.CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION));
    expect(codes((await epochs()).topics)).to.deep.equal({ 'orders/0': 0, 'secret/0': 0 });
  });

  it('Metadata: every topic lists only the describable ones; named ones are refused whether they exist or not; auto-creation needs CREATE', async () => {
    await setAcls(allow(Res.TOPIC, 'orders', Op.DESCRIBE), allow(Res.TOPIC, 'auto.', Op.DESCRIBE, { pattern: PatternType.PREFIXED }), allow(Res.TOPIC, 'auto.two', Op.CREATE));
    const alice = await login('alice');
    expect((await metadata(alice, null)).topics.map((t: { name: string }) => t.name)).to.deep.equal(['orders']);
    // v0: an empty list means every topic
    expect((await alice.call(ApiKeys.Metadata, 0, { topics: [] })).topics.map((t: { name: string }) => t.name)).to.deep.equal(['orders']);
    const named = await metadata(alice, ['orders', 'secret', 'no-such']);
    const byName = new Map(named.topics.map((t: { name: string }) => [t.name, t]));
    expect(byName.get('orders')).to.deep.include({ errorCode: ErrorCode.NONE });
    expect((byName.get('orders') as { partitions: unknown[] }).partitions).to.have.length(2);
    expect(byName.get('secret')).to.deep.include({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, partitions: [] });
    expect(byName.get('no-such')).to.deep.include({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, partitions: [] });

    // describable but not creatable: refused, not created
    const one = new Map((await metadata(alice, ['auto.one', 'auto.two'])).topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode]));
    expect(one.get('auto.one')).to.equal(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    // CREATE on that topic: created (its leader on the way)
    expect(one.get('auto.two')).to.be.oneOf([ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NONE]);
    const check = await metadata(admin, ['auto.one', 'auto.two', 'no-such'], { allowAutoTopicCreation: false });
    expect(check.topics.map((t: { name: string; errorCode: number }) => [t.name, t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION])).to.deep.equal([
      ['auto.one', true],
      ['auto.two', false],
      ['no-such', true],
    ]);

    // CREATE on the cluster creates any describable topic
    await setAcls(allow(Res.TOPIC, 'auto.', Op.DESCRIBE, { pattern: PatternType.PREFIXED }), allow(Res.CLUSTER, CLUSTER_NAME, Op.CREATE));
    expect((await metadata(alice, ['auto.three'])).topics[0].errorCode).to.be.oneOf([ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NONE]);
    expect((await metadata(admin, ['auto.three'], { allowAutoTopicCreation: false })).topics[0].errorCode).to.not.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    // CREATE on the cluster does not open a topic the client may not describe: refused, not created
    expect((await metadata(alice, ['made-up'])).topics[0].errorCode).to.equal(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  });

  it('Metadata v8+: the authorized operations are those of the client', async () => {
    const ops = { includeTopicAuthorizedOperations: true, includeClusterAuthorizedOperations: true };
    await setAcls(allow(Res.TOPIC, 'orders', Op.READ), allow(Res.CLUSTER, CLUSTER_NAME, Op.DESCRIBE), allow(Res.CLUSTER, CLUSTER_NAME, Op.IDEMPOTENT_WRITE));
    const alice = await login('alice');
    const a = await metadata(alice, ['orders'], ops);
    expect(a.topics[0].topicAuthorizedOperations).to.equal(bit(Op.READ, Op.DESCRIBE));
    expect(a.clusterAuthorizedOperations).to.equal(bit(Op.DESCRIBE, Op.IDEMPOTENT_WRITE));
    const all = await metadata(alice, null, ops);
    expect(all.topics.map((t: { name: string; topicAuthorizedOperations: number }) => [t.name, t.topicAuthorizedOperations])).to.deep.equal([['orders', bit(Op.READ, Op.DESCRIBE)]]);
    // without DESCRIBE on the cluster: none at all
    await setAcls(allow(Res.TOPIC, 'orders', Op.ALTER_CONFIGS), allow(Res.TOPIC, 'orders', Op.WRITE), allow(Res.CLUSTER, CLUSTER_NAME, Op.IDEMPOTENT_WRITE));
    const b = await metadata(alice, ['orders'], ops);
    expect(b.topics[0].topicAuthorizedOperations).to.equal(bit(Op.WRITE, Op.DESCRIBE, Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS));
    expect(b.clusterAuthorizedOperations).to.equal(0);
    const super_ = await metadata(admin, ['orders'], ops);
    expect(super_.topics[0].topicAuthorizedOperations).to.equal(TOPIC_OPERATIONS);
    expect(super_.clusterAuthorizedOperations).to.equal(CLUSTER_OPERATIONS);
  });

  it('OffsetCommit: READ on the group (else every partition GROUP_AUTHORIZATION_FAILED), READ on each topic', async () => {
    await setAcls(allow(Res.GROUP, 'g-commit', Op.READ), allow(Res.TOPIC, 'orders', Op.READ));
    const alice = await login('alice');
    const r = await commit(alice, 'g-commit', [['orders', 0, 1], ['secret', 0, 1]]);
    expect(codes(r.topics)).to.deep.equal({ 'orders/0': 0, 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    expect(await committed('g-commit', 'orders', 0)).to.equal(1);
    expect(await committed('g-commit', 'secret', 0)).to.equal(-1);
    expect(codes((await commit(alice, 'g-commit', [['secret', 0, 2]])).topics)).to.deep.equal({ 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    expect(codes((await commit(alice, 'g-else', [['orders', 0, 1], ['secret', 0, 1]])).topics)).to.deep.equal({ 'orders/0': ErrorCode.GROUP_AUTHORIZATION_FAILED, 'secret/0': ErrorCode.GROUP_AUTHORIZATION_FAILED });
    expect(await committed('g-else', 'orders', 0)).to.equal(-1);
  });

  it('OffsetFetch: DESCRIBE on the group (v1 per partition, v2+ the group, v8 each group), DESCRIBE on each topic', async () => {
    expect(codes((await commit(admin, 'g-fetch', [['orders', 0, 5], ['secret', 0, 6]])).topics)).to.deep.equal({ 'orders/0': 0, 'secret/0': 0 });
    expect(codes((await commit(admin, 'g-hidden', [['orders', 0, 7]])).topics)).to.deep.equal({ 'orders/0': 0 });
    await setAcls(allow(Res.GROUP, 'g-fetch', Op.DESCRIBE), allow(Res.TOPIC, 'orders', Op.DESCRIBE));
    const alice = await login('alice');
    const named = await alice.call(ApiKeys.OffsetFetch, 5, { groupId: 'g-fetch', topics: [{ name: 'orders', partitionIndexes: [0] }, { name: 'secret', partitionIndexes: [0] }] });
    expect(named.errorCode).to.equal(ErrorCode.NONE);
    expect(codes(named.topics)).to.deep.equal({ 'orders/0': 0, 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    expect(named.topics.map((t: { name: string; partitions: { committedOffset: number }[] }) => [t.name, t.partitions[0]!.committedOffset])).to.deep.equal([
      ['orders', 5],
      ['secret', -1],
    ]);
    const all = await alice.call(ApiKeys.OffsetFetch, 5, { groupId: 'g-fetch', topics: null });
    expect(codes(all.topics)).to.deep.equal({ 'orders/0': 0 });
    const hidden = await alice.call(ApiKeys.OffsetFetch, 5, { groupId: 'g-hidden', topics: [{ name: 'orders', partitionIndexes: [0] }] });
    expect(hidden).to.deep.include({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] });
    const v1 = await alice.call(ApiKeys.OffsetFetch, 1, { groupId: 'g-hidden', topics: [{ name: 'orders', partitionIndexes: [0] }] });
    expect(v1.topics[0].partitions[0]).to.include({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, committedOffset: -1 });
    const v8 = await alice.call(ApiKeys.OffsetFetch, 8, { groups: [{ groupId: 'g-fetch', topics: null }, { groupId: 'g-hidden', topics: null }], requireStable: false });
    expect(v8.groups[0].errorCode).to.equal(ErrorCode.NONE);
    expect(codes(v8.groups[0].topics)).to.deep.equal({ 'orders/0': 0 });
    expect(v8.groups[1]).to.deep.include({ groupId: 'g-hidden', errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] });
  });

  it('FindCoordinator: DESCRIBE on the group (v4: per key), on the transactional id for a transaction key', async () => {
    await setAcls(allow(Res.GROUP, 'team-', Op.DESCRIBE, { pattern: PatternType.PREFIXED }));
    const alice = await login('alice');
    expect((await alice.call(ApiKeys.FindCoordinator, 3, { key: 'team-a', keyType: 0 })).errorCode).to.equal(ErrorCode.NONE);
    expect((await alice.call(ApiKeys.FindCoordinator, 3, { key: 'other', keyType: 0 })).errorCode).to.equal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const v4 = await alice.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['team-a', 'other'] });
    expect(v4.coordinators.map((x: { key: string; errorCode: number; nodeId: number }) => [x.key, x.errorCode, x.nodeId])).to.deep.equal([
      ['team-a', 0, 1],
      ['other', ErrorCode.GROUP_AUTHORIZATION_FAILED, -1],
    ]);
    expect((await alice.call(ApiKeys.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['tx'] })).coordinators[0].errorCode).to.equal(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    await setAcls(allow(Res.TRANSACTIONAL_ID, 'tx', Op.DESCRIBE));
    // allowed: the coordinator of the id (once __transaction_state, created on demand, has a leader)
    const found = await checkFor(async () => {
      const r = (await alice.call(ApiKeys.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['tx'] })).coordinators[0];
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    expect(found.nodeId).to.equal(1);
  });

  it('FindCoordinator v6: a share-state key (type 2) needs CLUSTER_ACTION on the cluster, then a malformed one is INVALID_REQUEST', async () => {
    await setAcls(allow(Res.GROUP, 'team-', Op.DESCRIBE, { pattern: PatternType.PREFIXED }));
    const alice = await login('alice');
    const share = async () => (await alice.call(ApiKeys.FindCoordinator, 6, { keyType: 2, coordinatorKeys: ['team-a:t:0', 'team-b:t:1'] })).coordinators.map((x: { key: string; errorCode: number; nodeId: number }) => [x.key, x.errorCode, x.nodeId]);
    expect(await share()).to.deep.equal([
      ['team-a:t:0', ErrorCode.CLUSTER_AUTHORIZATION_FAILED, -1],
      ['team-b:t:1', ErrorCode.CLUSTER_AUTHORIZATION_FAILED, -1],
    ]);
    await setAcls(allow(Res.CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION));
    expect(await share()).to.deep.equal([
      ['team-a:t:0', ErrorCode.INVALID_REQUEST, -1],
      ['team-b:t:1', ErrorCode.INVALID_REQUEST, -1],
    ]);
    // before v6 the key type is unknown: INVALID_REQUEST whatever the ACLs
    await setAcls();
    expect((await alice.call(ApiKeys.FindCoordinator, 5, { keyType: 2, coordinatorKeys: ['team-a:t:0'] })).coordinators[0].errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });

  it('JoinGroup, SyncGroup, Heartbeat and LeaveGroup: READ on the group; DENY beats the wildcard ALLOW', async () => {
    const join = (k: KafkaCaller, groupId: string) =>
      k.call(ApiKeys.JoinGroup, 5, { groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }] });
    const sync = (k: KafkaCaller, groupId: string) =>
      k.call(ApiKeys.SyncGroup, 5, { groupId, generationId: 1, memberId: 'm', groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] });
    const heartbeat = (k: KafkaCaller, groupId: string) => k.call(ApiKeys.Heartbeat, 4, { groupId, generationId: 1, memberId: 'm', groupInstanceId: null });
    const leave = (k: KafkaCaller, groupId: string) => k.call(ApiKeys.LeaveGroup, 4, { groupId, members: [{ memberId: 'm', groupInstanceId: null }] });
    const all = async (k: KafkaCaller, groupId: string) => [(await join(k, groupId)).errorCode, (await sync(k, groupId)).errorCode, (await heartbeat(k, groupId)).errorCode, (await leave(k, groupId)).errorCode];

    await setAcls(allow(Res.GROUP, 'g-join', Op.READ));
    const alice = await login('alice');
    const G = ErrorCode.GROUP_AUTHORIZATION_FAILED;
    expect(await all(alice, 'g-other')).to.deep.equal([G, G, G, G]);
    const refused = await join(alice, 'g-other');
    expect(refused).to.deep.include({ memberId: '', generationId: -1, leader: '', members: [] });
    expect((await leave(alice, 'g-other')).members).to.deep.equal([]);
    // allowed: the coordinator answers (a first join needs a member id; the member 'm' is unknown)
    expect(await all(alice, 'g-join')).to.deep.equal([ErrorCode.MEMBER_ID_REQUIRED, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.NONE]);

    await setAcls(allow(Res.GROUP, '*', Op.READ), deny(Res.GROUP, 'g-join', Op.READ));
    expect(await all(alice, 'g-join')).to.deep.equal([G, G, G, G]);
    expect((await join(alice, 'g-any')).errorCode).to.equal(ErrorCode.MEMBER_ID_REQUIRED);
  });

  it('DescribeGroups: DESCRIBE on each group, the client\'s own operations; ListGroups: every group with DESCRIBE on the cluster, else the describable ones', async () => {
    for (const g of ['g-list-a', 'g-list-b']) expect(codes((await commit(admin, g, [['orders', 0, 1]])).topics)).to.deep.equal({ 'orders/0': 0 });
    await setAcls(allow(Res.GROUP, 'g-list-a', Op.DESCRIBE));
    const alice = await login('alice');
    const d = await alice.call(ApiKeys.DescribeGroups, 5, { groups: ['g-list-a', 'g-list-b'], includeAuthorizedOperations: true });
    expect(d.groups[0]).to.deep.include({ groupId: 'g-list-a', errorCode: ErrorCode.NONE, groupState: 'Empty', authorizedOperations: bit(Op.DESCRIBE) });
    expect(d.groups[1]).to.deep.include({ groupId: 'g-list-b', errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, groupState: '', protocolType: '', members: [], authorizedOperations: -2147483648 });
    // v6 (KIP-1043): the refusal carries its message, a described group none
    const d6 = await alice.call(ApiKeys.DescribeGroups, 6, { groups: ['g-list-a', 'g-list-b'], includeAuthorizedOperations: true });
    expect(d6.groups[0]).to.deep.include({ groupId: 'g-list-a', errorCode: ErrorCode.NONE, errorMessage: null, groupState: 'Empty', authorizedOperations: bit(Op.DESCRIBE) });
    expect(d6.groups[1]).to.deep.include({ groupId: 'g-list-b', errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.' });
    const listed = async (k: KafkaCaller) => ((await k.call(ApiKeys.ListGroups, 4, { statesFilter: [] })).groups as { groupId: string }[]).map((g) => g.groupId).filter((g) => g.startsWith('g-list-'));
    expect(await listed(alice)).to.deep.equal(['g-list-a']);
    expect(await listed(await login('bob'))).to.deep.equal([]);
    await setAcls(allow(Res.CLUSTER, CLUSTER_NAME, Op.DESCRIBE));
    expect((await listed(alice)).sort()).to.deep.equal(['g-list-a', 'g-list-b']);
    const super_ = await admin.call(ApiKeys.DescribeGroups, 5, { groups: ['g-list-a'], includeAuthorizedOperations: true });
    expect(super_.groups[0].authorizedOperations).to.equal(GROUP_OPERATIONS);
  });

  it('DeleteGroups: DELETE on each group; OffsetDelete: DELETE on the group, READ on each topic', async () => {
    for (const g of ['g-del-a', 'g-del-b']) expect(codes((await commit(admin, g, [['orders', 0, 1]])).topics)).to.deep.equal({ 'orders/0': 0 });
    expect(codes((await commit(admin, 'g-odel', [['orders', 0, 3], ['secret', 0, 3]])).topics)).to.deep.equal({ 'orders/0': 0, 'secret/0': 0 });
    await setAcls(allow(Res.GROUP, 'g-del-a', Op.DELETE), allow(Res.GROUP, 'g-odel', Op.DELETE), allow(Res.TOPIC, 'orders', Op.READ));
    const alice = await login('alice');
    const d = await alice.call(ApiKeys.DeleteGroups, 2, { groupsNames: ['g-del-a', 'g-del-b'] });
    expect(d.results).to.deep.equal([
      { groupId: 'g-del-a', errorCode: ErrorCode.NONE },
      { groupId: 'g-del-b', errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED },
    ]);
    expect(await committed('g-del-a', 'orders', 0)).to.equal(-1);
    expect(await committed('g-del-b', 'orders', 0)).to.equal(1);

    const refused = await alice.call(ApiKeys.OffsetDelete, 0, { groupId: 'g-del-b', topics: [{ name: 'orders', partitions: [{ partitionIndex: 0 }] }] });
    expect(refused).to.deep.include({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] });
    expect(await committed('g-del-b', 'orders', 0)).to.equal(1);
    const od = await alice.call(ApiKeys.OffsetDelete, 0, { groupId: 'g-odel', topics: ['orders', 'secret'].map((name) => ({ name, partitions: [{ partitionIndex: 0 }] })) });
    expect(od.errorCode).to.equal(ErrorCode.NONE);
    expect(codes(od.topics)).to.deep.equal({ 'orders/0': 0, 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    expect(await committed('g-odel', 'orders', 0)).to.equal(-1);
    expect(await committed('g-odel', 'secret', 0)).to.equal(3);
  });

  it('InitProducerId: IDEMPOTENT_WRITE on the cluster or WRITE on some topic, else CLUSTER_AUTHORIZATION_FAILED; WRITE on a transactional id, else TRANSACTIONAL_ID_AUTHORIZATION_FAILED', async () => {
    const init = (k: KafkaCaller, transactionalId: string | null = null) => k.call(ApiKeys.InitProducerId, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    await setAcls(allow(Res.TOPIC, 'orders', Op.READ));
    const alice = await login('alice');
    expect(await init(alice)).to.deep.include({ errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, producerId: -1 });
    await setAcls(allow(Res.TOPIC, 'pub.', Op.WRITE, { pattern: PatternType.PREFIXED }));
    expect((await init(alice)).errorCode).to.equal(ErrorCode.NONE);
    await setAcls(allow(Res.CLUSTER, CLUSTER_NAME, Op.IDEMPOTENT_WRITE));
    const ok = await init(alice);
    expect(ok.errorCode).to.equal(ErrorCode.NONE);
    expect(ok.producerId).to.be.at.least(0);
    await setAcls(allow(Res.CLUSTER, CLUSTER_NAME, Op.IDEMPOTENT_WRITE), allow(Res.TRANSACTIONAL_ID, 'tx', Op.WRITE));
    await transactionCoordinatorUp('tx');
    expect(await init(alice, 'tx')).to.deep.include({ errorCode: ErrorCode.NONE, producerEpoch: 0 });
    expect((await init(alice, 'other')).errorCode).to.equal(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  });

  it('the transaction APIs: WRITE on the transactional id (AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, Produce of transactional batches), WRITE on each topic added, READ on the group of AddOffsetsToTxn', async () => {
    await transactionCoordinatorUp('tx-acl');
    const started = await admin.call(ApiKeys.InitProducerId, 4, { transactionalId: 'tx-acl', transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    expect(started.errorCode).to.equal(ErrorCode.NONE);
    const { producerId, producerEpoch } = started;
    const add = (k: KafkaCaller, transactionalId: string, topics: [string, number][]) =>
      k.call(ApiKeys.AddPartitionsToTxn, 3, { v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: topics.map(([name, p]) => ({ name, partitions: [p] })) });
    const addCodes = (r: { resultsByTopicV3AndBelow: { name: string; resultsByPartition: { partitionIndex: number; partitionErrorCode: number }[] }[] }) =>
      Object.fromEntries(r.resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((p) => [`${t.name}/${p.partitionIndex}`, p.partitionErrorCode])));
    const txnBatch = encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence: 0, records: [{ value: Buffer.from('t'), timestamp: Date.now() }] });
    const produceTxn = (k: KafkaCaller, transactionalId: string | null) =>
      k.call(ApiKeys.Produce, 9, { transactionalId, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'orders', partitionData: [{ index: 0, records: txnBatch }] }] });
    const alice = await login('alice');
    await setAcls(allow(Res.TOPIC, 'orders', Op.WRITE));
    expect(addCodes(await add(alice, 'tx-acl', [['orders', 0]]))).to.deep.equal({ 'orders/0': ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED });
    expect((await alice.call(ApiKeys.EndTxn, 3, { transactionalId: 'tx-acl', producerId, producerEpoch, committed: false })).errorCode).to.equal(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    expect(codes((await produceTxn(alice, 'tx-acl')).responses)).to.deep.equal({ 'orders/0': ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED });
    // transactional batches need a transactional id, whoever sends them
    expect(codes((await produceTxn(admin, null)).responses)).to.deep.equal({ 'orders/0': ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED });

    await setAcls(allow(Res.TOPIC, 'orders', Op.WRITE), allow(Res.TRANSACTIONAL_ID, 'tx-acl', Op.WRITE));
    // a topic without WRITE refuses the whole request; the others were not attempted
    expect(addCodes(await add(alice, 'tx-acl', [['orders', 0], ['secret', 0]]))).to.deep.equal({ 'orders/0': ErrorCode.OPERATION_NOT_ATTEMPTED, 'secret/0': ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    expect(addCodes(await add(alice, 'tx-acl', [['orders', 0]]))).to.deep.equal({ 'orders/0': ErrorCode.NONE });
    expect(codes((await produceTxn(alice, 'tx-acl')).responses)).to.deep.equal({ 'orders/0': ErrorCode.NONE });
    const addOffsets = () => alice.call(ApiKeys.AddOffsetsToTxn, 3, { transactionalId: 'tx-acl', producerId, producerEpoch, groupId: 'g-txn' });
    expect((await addOffsets()).errorCode).to.equal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    await setAcls(allow(Res.TOPIC, 'orders', Op.WRITE), allow(Res.TRANSACTIONAL_ID, 'tx-acl', Op.WRITE), allow(Res.GROUP, 'g-txn', Op.READ));
    expect((await addOffsets()).errorCode).to.equal(ErrorCode.NONE);
    expect((await alice.call(ApiKeys.EndTxn, 3, { transactionalId: 'tx-acl', producerId, producerEpoch, committed: false })).errorCode).to.equal(ErrorCode.NONE);
  });

  it('KafkaJS: a producer and a consumer group with just the ACLs they need; a topic without WRITE is TOPIC_AUTHORIZATION_FAILED', async () => {
    await setAcls(allow(Res.TOPIC, 'kjs.', Op.WRITE, { pattern: PatternType.PREFIXED }), allow(Res.TOPIC, 'kjs.', Op.READ, { pattern: PatternType.PREFIXED }), allow(Res.GROUP, 'kjs-readers', Op.READ), allow(Res.TOPIC, 'secret', Op.READ));
    const before = await endOffset('secret', 0);
    expect((await metadata(admin, ['kjs.events'])).topics[0].errorCode).to.be.oneOf([ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NONE]);
    const kafka = new Kafka({
      clientId: 'acl-test',
      brokers: c.bootstrap,
      logLevel: logLevel.NOTHING,
      retry: { retries: 2, initialRetryTime: 50, maxRetryTime: 200 },
      sasl: { mechanism: 'plain', username: 'alice', password: USERS.alice },
    });
    const producer = kafka.producer();
    await producer.connect();
    try {
      await checkFor(async () => (await producer.send({ topic: 'kjs.events', acks: -1, messages: [{ value: 'one' }, { value: 'two' }] }))[0]?.errorCode === 0, 10_000, 100);
      const refusal = (topic: string) =>
        producer.send({ topic, acks: -1, messages: [{ value: 'x' }] }).then(
          () => 'sent',
          (e: { type?: string; cause?: { type?: string } }) => e.type ?? e.cause?.type,
        );
      // readable (so describable) but not writable: the Produce is refused
      expect(await refusal('secret')).to.equal('TOPIC_AUTHORIZATION_FAILED');
      // not even describable: the Metadata is
      expect(await refusal('pub.a')).to.equal('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await producer.disconnect();
    }
    const consumer = kafka.consumer({ groupId: 'kjs-readers', sessionTimeout: 6_000, heartbeatInterval: 100, maxWaitTimeInMs: 100 });
    const seen: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: 'kjs.events', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
      await checkFor(() => seen.length >= 2, 15_000, 20);
    } finally {
      await consumer.disconnect();
    }
    expect(seen.slice(0, 2)).to.deep.equal(['one', 'two']);
    expect(await endOffset('secret', 0)).to.equal(before);
  });
});
