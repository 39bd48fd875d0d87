/**
 * The group APIs over the Kafka protocol: FindCoordinator (single and batched keys; v6's share
 * key type refused), JoinGroup with and without MEMBER_ID_REQUIRED (v4+ vs v0-v3), SyncGroup,
 * Heartbeat, DescribeGroups, ListGroups, LeaveGroup, and committed offsets (OffsetCommit /
 * OffsetFetch, including v8's several groups at once and "every committed partition").
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import { checkFor } from '../../helpers/check-for.js';

const TOPIC = 'grouped';
const META = Buffer.from([0, 1, 2, 3]);

describe('Kafka API: groups and committed offsets', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  const open: KafkaCaller[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, topics: [{ name: TOPIC, partitions: 3, replicationFactor: 2 }] });
  });
  afterEach(() => {
    for (const k of open.splice(0)) k.end();
  });
  after(async () => {
    await c?.stop();
  });

  async function caller(endpoint: string): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(endpoint);
    open.push(k);
    return k;
  }

  /** Connects to the group's coordinator, found with FindCoordinator v`version`. */
  async function coordinatorFor(groupId: string): Promise<KafkaCaller> {
    const any = await caller(c.bootstrap[0]!);
    const found = await checkFor(async () => {
      const r = await any.call(ApiKeys.FindCoordinator, 2, { key: groupId, keyType: 0 });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    expect(c.bootstrap).to.include(`${found.host}:${found.port}`);
    return caller(`${found.host}:${found.port}`);
  }

  it('FindCoordinator v4 answers several keys at once; a transaction key is answered with its transaction coordinator', async () => {
    const k = await caller(c.bootstrap[1]!);
    const r = await checkFor(async () => {
      const x = await k.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g-a', 'g-b', 'g-c'] });
      return x.coordinators.every((co: { errorCode: number }) => co.errorCode === ErrorCode.NONE) ? x : null;
    }, 15_000, 50);
    expect(r.coordinators.map((co: { key: string }) => co.key)).to.deep.equal(['g-a', 'g-b', 'g-c']);
    for (const co of r.coordinators) expect(c.bootstrap).to.include(`${co.host}:${co.port}`);
    const txn = await checkFor(async () => {
      const x = (await k.call(ApiKeys.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['tx'] })).coordinators[0];
      return x.errorCode === ErrorCode.NONE ? x : null;
    }, 15_000, 50);
    expect(c.bootstrap).to.include(`${txn.host}:${txn.port}`);
    expect((await k.call(ApiKeys.FindCoordinator, 4, { keyType: 2, coordinatorKeys: ['x'] })).coordinators[0].errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    const v0 = await k.call(ApiKeys.FindCoordinator, 0, { key: 'g-a' });
    expect(v0.errorCode).to.equal(ErrorCode.NONE);
    expect(v0.nodeId).to.equal(r.coordinators[0].nodeId);
  });

  it('FindCoordinator v5 and v6 answer group and transaction keys as v4; v6 answers a share-state key (type 2) INVALID_REQUEST', async () => {
    const k = await caller(c.bootstrap[0]!);
    const v4 = await checkFor(async () => {
      const x = await k.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g-a', 'g-b'] });
      return x.coordinators.every((co: { errorCode: number }) => co.errorCode === ErrorCode.NONE) ? x : null;
    }, 15_000, 50);
    for (const version of [5, 6]) {
      const r = await k.call(ApiKeys.FindCoordinator, version, { keyType: 0, coordinatorKeys: ['g-a', 'g-b'] });
      expect(r.coordinators, `v${version}`).to.deep.equal(v4.coordinators);
      const txn = await checkFor(async () => {
        const x = (await k.call(ApiKeys.FindCoordinator, version, { keyType: 1, coordinatorKeys: ['tx'] })).coordinators[0];
        return x.errorCode === ErrorCode.NONE ? x : null;
      }, 15_000, 50);
      expect(c.bootstrap).to.include(`${txn.host}:${txn.port}`);
    }
    const share = await k.call(ApiKeys.FindCoordinator, 6, { keyType: 2, coordinatorKeys: ['g-a:topic-id:0', 'g-b:topic-id:1'] });
    expect(share.coordinators.map((co: { key: string; errorCode: number; nodeId: number; port: number }) => [co.key, co.errorCode, co.nodeId, co.port])).to.deep.equal([
      ['g-a:topic-id:0', ErrorCode.INVALID_REQUEST, -1, -1],
      ['g-b:topic-id:1', ErrorCode.INVALID_REQUEST, -1, -1],
    ]);
    expect((await k.call(ApiKeys.FindCoordinator, 6, { keyType: 3, coordinatorKeys: ['x'] })).coordinators[0].errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });

  it('a group not coordinated by the broker asked gets NOT_COORDINATOR', async () => {
    const k = await caller(c.bootstrap[0]!);
    const found = await checkFor(async () => {
      const x = await k.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: Array.from({ length: 20 }, (_, i) => `probe-${i}`) });
      return x.coordinators.every((co: { errorCode: number }) => co.errorCode === ErrorCode.NONE) ? x : null;
    }, 15_000, 50);
    const elsewhere = found.coordinators.find((co: { port: number }) => `127.0.0.1:${co.port}` !== c.bootstrap[0]);
    expect(elsewhere, 'some group is coordinated by the other broker').to.not.equal(undefined);
    const r = await k.call(ApiKeys.Heartbeat, 3, { groupId: elsewhere.key, generationId: 1, memberId: 'm', groupInstanceId: null });
    expect(r.errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
  });

  it('JoinGroup v3 admits a new member at once; v5 first answers MEMBER_ID_REQUIRED with the id to rejoin with', async () => {
    const old = await coordinatorFor('g-old');
    const j3 = await old.call(ApiKeys.JoinGroup, 3, { groupId: 'g-old', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }] });
    expect(j3.errorCode).to.equal(ErrorCode.NONE);
    expect(j3.memberId).to.match(/.+/);
    expect(j3.leader).to.equal(j3.memberId);
    expect(j3.members).to.have.length(1);

    const k = await coordinatorFor('g-new');
    const join = (memberId: string) =>
      k.call(ApiKeys.JoinGroup, 5, { groupId: 'g-new', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }] });
    const first = await join('');
    expect(first.errorCode).to.equal(ErrorCode.MEMBER_ID_REQUIRED);
    expect(first.memberId).to.match(/.+/);
    const second = await join(first.memberId);
    expect(second.errorCode).to.equal(ErrorCode.NONE);
    expect(second.generationId).to.equal(1);
    expect(second.protocolName).to.equal('range');
    expect(second.members[0].metadata.equals(META)).to.equal(true);
  });

  it('a whole group life: join, sync, heartbeat, describe, list, commit, fetch offsets, leave', async () => {
    const k = await coordinatorFor('life');
    const j = await k.call(ApiKeys.JoinGroup, 7, { groupId: 'life', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'roundrobin', metadata: META }] });
    const joined = j.errorCode === ErrorCode.MEMBER_ID_REQUIRED
      ? await k.call(ApiKeys.JoinGroup, 7, { groupId: 'life', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: j.memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'roundrobin', metadata: META }] })
      : j;
    expect(joined.errorCode).to.equal(ErrorCode.NONE);
    expect(joined.protocolType).to.equal('consumer');
    const me = joined.memberId as string;
    const assignment = Buffer.from('assignment-bytes');
    const sync = await k.call(ApiKeys.SyncGroup, 5, { groupId: 'life', generationId: joined.generationId, memberId: me, groupInstanceId: null, protocolType: 'consumer', protocolName: 'roundrobin', assignments: [{ memberId: me, assignment }] });
    expect(sync.errorCode).to.equal(ErrorCode.NONE);
    expect(sync.assignment.equals(assignment)).to.equal(true);
    expect((await k.call(ApiKeys.Heartbeat, 4, { groupId: 'life', generationId: joined.generationId, memberId: me, groupInstanceId: null })).errorCode).to.equal(ErrorCode.NONE);
    expect((await k.call(ApiKeys.Heartbeat, 0, { groupId: 'life', generationId: joined.generationId + 7, memberId: me })).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);

    const d = await k.call(ApiKeys.DescribeGroups, 5, { groups: ['life', 'never-seen'], includeAuthorizedOperations: false });
    const life = d.groups[0];
    expect(life).to.include({ errorCode: ErrorCode.NONE, groupId: 'life', groupState: 'Stable', protocolType: 'consumer', protocolData: 'roundrobin' });
    expect(life.members[0].memberId).to.equal(me);
    expect(life.members[0].clientId).to.equal('raw-test');
    expect(life.members[0].memberAssignment.equals(assignment)).to.equal(true);
    expect(d.groups[1]).to.include({ groupId: 'never-seen', groupState: 'Dead' });
    expect(life.authorizedOperations).to.equal(-2147483648);
    const ops = await k.call(ApiKeys.DescribeGroups, 3, { groups: ['life'], includeAuthorizedOperations: true });
    // READ DELETE DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS = bits 3, 6, 8, 10, 11
    expect(ops.groups[0].authorizedOperations).to.equal(3400);

    const listed = await k.call(ApiKeys.ListGroups, 4, { statesFilter: ['Stable'] });
    expect(listed.groups.map((g: { groupId: string }) => g.groupId)).to.include('life');
    const empties = await k.call(ApiKeys.ListGroups, 4, { statesFilter: ['Empty'] });
    expect(empties.groups.map((g: { groupId: string }) => g.groupId)).to.not.include('life');

    const commit = await k.call(ApiKeys.OffsetCommit, 8, {
      groupId: 'life',
      generationIdOrMemberEpoch: joined.generationId,
      memberId: me,
      groupInstanceId: null,
      topics: [{ name: TOPIC, partitions: [0, 1, 2].map((p) => ({ partitionIndex: p, committedOffset: 10 + p, committedLeaderEpoch: -1, committedMetadata: `m${p}` })) }],
    });
    expect(commit.topics[0].partitions.map((p: { errorCode: number }) => p.errorCode)).to.deep.equal([0, 0, 0]);
    const stale = await k.call(ApiKeys.OffsetCommit, 2, { groupId: 'life', generationIdOrMemberEpoch: joined.generationId + 1, memberId: me, retentionTimeMs: -1, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 99, committedMetadata: null }] }] });
    expect(stale.topics[0].partitions[0].errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);

    const f1 = await k.call(ApiKeys.OffsetFetch, 1, { groupId: 'life', topics: [{ name: TOPIC, partitionIndexes: [0, 2] }] });
    expect(f1.topics[0].partitions.map((p: { partitionIndex: number; committedOffset: number; metadata: string }) => [p.partitionIndex, p.committedOffset, p.metadata])).to.deep.equal([
      [0, 10, 'm0'],
      [2, 12, 'm2'],
    ]);
    const all = await k.call(ApiKeys.OffsetFetch, 7, { groupId: 'life', topics: null, requireStable: false });
    expect(all.errorCode).to.equal(ErrorCode.NONE);
    expect(all.topics[0].partitions).to.have.length(3);

    const left = await k.call(ApiKeys.LeaveGroup, 4, { groupId: 'life', members: [{ memberId: me, groupInstanceId: null }] });
    expect(left.errorCode).to.equal(ErrorCode.NONE);
    expect(left.members[0]).to.include({ memberId: me, errorCode: ErrorCode.NONE });
    const again = await k.call(ApiKeys.LeaveGroup, 0, { groupId: 'life', memberId: me });
    expect(again.errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    const after = await k.call(ApiKeys.DescribeGroups, 0, { groups: ['life'] });
    expect(after.groups[0].groupState).to.equal('Empty');
  });

  it('OffsetDelete drops an empty group\'s offsets; DeleteGroups removes empty groups and refuses busy or unknown ones', async () => {
    const k = await coordinatorFor('tidy');
    const commit = await k.call(ApiKeys.OffsetCommit, 2, { groupId: 'tidy', generationIdOrMemberEpoch: -1, memberId: '', retentionTimeMs: -1, topics: [{ name: TOPIC, partitions: [0, 1].map((p) => ({ partitionIndex: p, committedOffset: 3, committedMetadata: null })) }] });
    expect(commit.topics[0].partitions.map((p: { errorCode: number }) => p.errorCode)).to.deep.equal([0, 0]);
    const od = await k.call(ApiKeys.OffsetDelete, 0, { groupId: 'tidy', topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }] });
    expect(od.errorCode).to.equal(ErrorCode.NONE);
    expect(od.topics[0].partitions[0]).to.include({ partitionIndex: 0, errorCode: ErrorCode.NONE });
    const left = await k.call(ApiKeys.OffsetFetch, 5, { groupId: 'tidy', topics: null });
    expect(left.topics[0].partitions.map((p: { partitionIndex: number }) => p.partitionIndex)).to.deep.equal([1]);

    // a group with a member cannot be deleted
    const busy = await coordinatorFor('busy');
    const j = await busy.call(ApiKeys.JoinGroup, 3, { groupId: 'busy', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }] });
    expect(j.errorCode).to.equal(ErrorCode.NONE);
    const d1 = await busy.call(ApiKeys.DeleteGroups, 2, { groupsNames: ['busy'] });
    expect(d1.results).to.deep.equal([{ groupId: 'busy', errorCode: ErrorCode.NON_EMPTY_GROUP }]);
    const d2 = await k.call(ApiKeys.DeleteGroups, 0, { groupsNames: ['tidy'] });
    expect(d2.results).to.deep.equal([{ groupId: 'tidy', errorCode: ErrorCode.NONE }]);
    expect((await k.call(ApiKeys.OffsetFetch, 5, { groupId: 'tidy', topics: null })).topics).to.deep.equal([]);
    const d3 = await k.call(ApiKeys.DeleteGroups, 1, { groupsNames: ['tidy'] });
    expect(d3.results[0].errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it('standalone commits (OffsetCommit v1 without a member), OffsetFetch v8 for several groups at once', async () => {
    for (const g of ['solo-a', 'solo-b']) {
      const k = await coordinatorFor(g);
      const r = await k.call(ApiKeys.OffsetCommit, 1, { groupId: g, generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: TOPIC, partitions: [{ partitionIndex: 1, committedOffset: g === 'solo-a' ? 5 : 6, commitTimestamp: -1, committedMetadata: null }] }] });
      expect(r.topics[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    }
    const a = await coordinatorFor('solo-a');
    const b = await coordinatorFor('solo-b');
    const groups = [{ groupId: 'solo-a', topics: [{ name: TOPIC, partitionIndexes: [1] }] }, { groupId: 'solo-b', topics: null }];
    // v8 names several groups; each is answered by its own coordinator (NOT_COORDINATOR elsewhere)
    const ra = await a.call(ApiKeys.OffsetFetch, 8, { groups, requireStable: false });
    expect(ra.groups[0]).to.deep.include({ groupId: 'solo-a', errorCode: ErrorCode.NONE });
    expect(ra.groups[0].topics[0].partitions[0].committedOffset).to.equal(5);
    const rb = await b.call(ApiKeys.OffsetFetch, 8, { groups, requireStable: false });
    expect(rb.groups[1].errorCode).to.equal(ErrorCode.NONE);
    expect(rb.groups[1].topics[0].partitions[0]).to.include({ partitionIndex: 1, committedOffset: 6 });
    // a partition with nothing committed
    const none = await a.call(ApiKeys.OffsetFetch, 3, { groupId: 'solo-a', topics: [{ name: TOPIC, partitionIndexes: [2] }] });
    expect(none.topics[0].partitions[0].committedOffset).to.equal(-1);
  });
});
