/**
 * Consumer groups on a real cluster (controller + three in-process brokers): FindCoordinator
 * creates __consumer_offsets and names the leader of the group's partition; three members join,
 * one leads and assigns with the range assignor, SyncGroup hands the assignment out; committed
 * offsets and the group survive the coordinator's broker being killed (the new leader of the
 * offsets partition replays them).
 */
import { expect } from 'chai';
import type { BrokerMsg } from '../../actors/broker/messages.js';
import { rangeAssignor } from '../../actors/group-coordinator/assignors/index.js';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription, groupByTopic } from '../../actors/group-coordinator/consumer-protocol.js';
import {
  OFFSETS_TOPIC,
  coordinatorPath,
  offsetsPartitionFor,
  type CoordinatorDescription,
  type CoordinatorMsg,
  type DescribeGroupsResponse,
  type FindCoordinatorResponse,
  type JoinGroupResponse,
  type OffsetCommitResponse,
  type OffsetFetchResponse,
  type SimpleResponse,
  type SyncGroupResponse,
} from '../../actors/group-coordinator/messages.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const OFFSETS_PARTITIONS = 5;
const FAST = fastFailover({ 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': OFFSETS_PARTITIONS });

/** Codes after which a client looks for the coordinator again and retries. */
const RETRY = new Set<number>([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR]);

describe('cluster (in-process): consumer groups', function () {
  this.timeout(60_000);
  let c: TestCluster;
  const dead = new Set<number>();

  beforeEach(async () => {
    dead.clear();
    c = await TestCluster.start({ brokers: 3, ...FAST });
  });
  afterEach(async () => {
    await c?.stop();
  });

  const brokerRef = (id: number): ActorRef<BrokerMsg> => ({ node: `b${id}`, path: brokerPath(id) });

  async function findCoordinator(groupId: string, via?: number): Promise<FindCoordinatorResponse> {
    const live = [1, 2, 3].filter((b) => !dead.has(b));
    return checkFor(
      async () => {
        const b = via ?? live[Math.floor(Math.random() * live.length)]!;
        const r = await c.system().ask<FindCoordinatorResponse>(brokerRef(b), { type: 'FindCoordinator', key: groupId, keyType: 'group' }, { timeoutMs: 5_000 });
        if (isFailure(r) || r.errorCode !== ErrorCode.NONE || dead.has(r.brokerId)) return null;
        return r;
      },
      20_000,
      50,
    );
  }

  /** Sends `msg` to the group's coordinator, finding it again and retrying on coordinator errors. */
  async function toCoordinator<R extends { type: string; errorCode: number }>(groupId: string, msg: CoordinatorMsg, timeoutMs = 10_000): Promise<R> {
    return checkFor(
      async () => {
        const f = await findCoordinator(groupId);
        const r = await c.system().ask<R>({ node: f.node, path: coordinatorPath(f.brokerId) }, msg, { timeoutMs });
        if (isFailure(r) || RETRY.has(r.errorCode)) return null;
        return r;
      },
      30_000,
      50,
    );
  }

  const join = (groupId: string, memberId: string, topics: string[]) =>
    toCoordinator<JoinGroupResponse>(
      groupId,
      {
        type: 'JoinGroup',
        groupId,
        memberId,
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 20_000,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: encodeSubscription({ topics }) }],
        clientId: 'it',
      },
      30_000,
    );

  it('FindCoordinator creates __consumer_offsets (once, with the offsets settings) and every broker names the leader of the group\'s partition', async () => {
    // the first answers are retriable while the topic is created and its leaders elected
    const first = await c.system().ask<FindCoordinatorResponse>(brokerRef(1), { type: 'FindCoordinator', key: 'g1' }, { timeoutMs: 5_000 });
    expect(isFailure(first) ? -1 : first.errorCode).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const answers = await Promise.all([1, 2, 3].map((b) => findCoordinator('g1', b)));
    const md = await c.client.metadata();
    const topic = md.topics.find((t) => t.name === OFFSETS_TOPIC)!;
    expect(topic.internal).to.equal(true);
    expect(topic.partitions).to.have.length(OFFSETS_PARTITIONS);
    for (const p of topic.partitions) expect(p.replicas).to.have.length(3);
    expect(topic.config).to.deep.equal({ 'segment.bytes': 100 * 1024 * 1024, 'cleanup.policy': 'compact' });
    const leader = topic.partitions.find((p) => p.partition === offsetsPartitionFor('g1', OFFSETS_PARTITIONS))!.leader;
    for (const a of answers) expect(a).to.deep.include({ errorCode: 0, brokerId: leader, node: `b${leader}` });
    // the leader's coordinator loads the partitions its broker leads
    const led = topic.partitions.filter((p) => p.leader === leader).map((p) => p.partition);
    await checkFor(async () => {
      const d = await c.system().ask<CoordinatorDescription>({ node: `b${leader}`, path: coordinatorPath(leader) }, { type: 'DescribeCoordinator' });
      return !isFailure(d) && d.partitions.filter((p) => p.status === 'Active').map((p) => p.partition).sort().join() === led.sort().join();
    }, 10_000, 50);
    // asking again creates nothing new
    expect((await c.client.createTopics([{ name: OFFSETS_TOPIC, numPartitions: 1, replicationFactor: 1 }])).topics[0]!.errorCode).to.equal(ErrorCode.TOPIC_ALREADY_EXISTS);
  });

  it('three members join, one leads and assigns with the range assignor, SyncGroup hands out the leader\'s assignment', async () => {
    await c.client.createTopic('orders', 6, 3);
    const G = 'three';
    const a = await join(G, '', ['orders']);
    expect(a.generationId).to.equal(1);
    // a is alone in generation 1; b and c arrive and wait for a to rejoin
    const bJoin = join(G, '', ['orders']);
    const cJoin = join(G, '', ['orders']);
    await checkFor(async () => (await toCoordinator<DescribeGroupsResponse>(G, { type: 'DescribeGroups', groups: [G] })).groups[0]!.members.length === 3, 10_000, 20);
    const hb = await toCoordinator<SimpleResponse>(G, { type: 'Heartbeat', groupId: G, memberId: a.memberId, generationId: a.generationId });
    expect(hb.errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
    const joins = await Promise.all([join(G, a.memberId, ['orders']), bJoin, cJoin]);
    const generationId = joins[0].generationId;
    expect(new Set(joins.map((j) => j.generationId))).to.deep.equal(new Set([2]));
    const leaders = joins.filter((j) => j.members.length > 0);
    expect(leaders).to.have.length(1);
    const leader = leaders[0]!;
    expect(leader.memberId).to.equal(a.memberId);
    expect(joins.every((j) => j.leader === leader.memberId)).to.equal(true);

    // the leader computes the assignment from the members' subscriptions
    const members = leader.members.map((m) => ({ memberId: m.memberId, topics: decodeSubscription(m.metadata).topics }));
    const plan = rangeAssignor.assign(members, new Map([['orders', 6]]));
    const assignments = [...plan].map(([memberId, tps]) => ({ memberId, assignment: encodeAssignment({ partitions: groupByTopic(tps) }) }));
    const syncs = await Promise.all(
      joins.map((j) =>
        toCoordinator<SyncGroupResponse>(G, {
          type: 'SyncGroup',
          groupId: G,
          memberId: j.memberId,
          generationId,
          assignments: j.memberId === leader.memberId ? assignments : [],
        }),
      ),
    );
    const owned = syncs.map((s) => decodeAssignment(s.assignment).partitions.flatMap((t) => t.partitions.map((p) => `${t.topic}-${p}`)));
    for (const o of owned) expect(o).to.have.length(2);
    expect(owned.flat().sort()).to.deep.equal(['orders-0', 'orders-1', 'orders-2', 'orders-3', 'orders-4', 'orders-5']);
    const d = (await toCoordinator<DescribeGroupsResponse>(G, { type: 'DescribeGroups', groups: [G] })).groups[0]!;
    expect(d).to.deep.include({ state: 'Stable', generationId, protocolName: 'range', leader: leader.memberId });
  });

  it('committed offsets and the group survive the coordinator\'s broker being killed: the new leader of the offsets partition replays them', async () => {
    const G = 'survivor';
    const m = await join(G, '', ['orders']);
    const sync = await toCoordinator<SyncGroupResponse>(G, {
      type: 'SyncGroup',
      groupId: G,
      memberId: m.memberId,
      generationId: m.generationId,
      assignments: [{ memberId: m.memberId, assignment: encodeAssignment({ partitions: [{ topic: 'orders', partitions: [0, 1] }] }) }],
    });
    expect(sync.errorCode).to.equal(0);
    const commit = await toCoordinator<OffsetCommitResponse>(G, {
      type: 'OffsetCommit',
      groupId: G,
      generationId: m.generationId,
      memberId: m.memberId,
      topics: [{ name: 'orders', partitions: [{ partition: 0, offset: 42, leaderEpoch: 3, metadata: 'checkpoint' }, { partition: 1, offset: 7 }] }],
    });
    expect(commit.topics[0]!.partitions.map((p) => p.errorCode)).to.deep.equal([0, 0]);
    const simple = await toCoordinator<OffsetCommitResponse>('standalone', {
      type: 'OffsetCommit',
      groupId: 'standalone',
      generationId: -1,
      memberId: '',
      topics: [{ name: 'orders', partitions: [{ partition: 5, offset: 500 }] }],
    });
    expect(simple.errorCode).to.equal(0);

    const before = await findCoordinator(G);
    dead.add(before.brokerId);
    await c.killBroker(before.brokerId);
    const after = await findCoordinator(G);
    expect(after.brokerId).to.not.equal(before.brokerId);

    const fetched = await toCoordinator<OffsetFetchResponse>(G, { type: 'OffsetFetch', groupId: G, topics: [{ name: 'orders', partitions: [0, 1, 2] }] });
    expect(fetched.topics[0]!.partitions).to.deep.equal([
      { partition: 0, offset: 42, leaderEpoch: 3, metadata: 'checkpoint', errorCode: 0 },
      { partition: 1, offset: 7, leaderEpoch: -1, metadata: '', errorCode: 0 },
      { partition: 2, offset: -1, leaderEpoch: -1, metadata: '', errorCode: 0 },
    ]);
    const standalone = await toCoordinator<OffsetFetchResponse>('standalone', { type: 'OffsetFetch', groupId: 'standalone', topics: null });
    expect(standalone.topics).to.deep.equal([{ name: 'orders', partitions: [{ partition: 5, offset: 500, leaderEpoch: -1, metadata: '', errorCode: 0 }] }]);
    // the group came back Stable with its member, who carries on in its generation
    const d = (await toCoordinator<DescribeGroupsResponse>(G, { type: 'DescribeGroups', groups: [G] })).groups[0]!;
    expect(d).to.deep.include({ state: 'Stable', generationId: m.generationId, leader: m.memberId });
    expect(d.members.map((x) => x.memberId)).to.deep.equal([m.memberId]);
    const hb = await toCoordinator<SimpleResponse>(G, { type: 'Heartbeat', groupId: G, memberId: m.memberId, generationId: m.generationId });
    expect(hb.errorCode).to.equal(0);
    const again = await toCoordinator<OffsetCommitResponse>(G, {
      type: 'OffsetCommit',
      groupId: G,
      generationId: m.generationId,
      memberId: m.memberId,
      topics: [{ name: 'orders', partitions: [{ partition: 0, offset: 43 }] }],
    });
    expect(again.topics[0]!.partitions[0]!.errorCode).to.equal(0);
  });
});
