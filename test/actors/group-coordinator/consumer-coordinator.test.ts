/**
 * KIP-848 consumer groups in the group coordinator actor (coordinator-harness.ts: a FakeClock and
 * fake offsets-partition replicas): ConsumerGroupHeartbeat's request checks, the member id made by
 * the coordinator, session and rebalance timeouts on the injected clock, the records written to
 * __consumer_offsets and a second coordinator continuing the group from them, a classic group and
 * a consumer group under one id, offsets with member epochs, and the admin APIs.
 */
import { expect } from 'chai';
import type {
  ConsumerGroupDescribeResponse,
  ConsumerGroupHeartbeatResponse,
  ConsumerTopicInfo,
  CoordinatorMsg,
  DeleteGroupsResponse,
  JoinGroupResponse,
  OffsetCommitResponse,
  OffsetFetchResponse,
} from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { CoordinatorHarness, consumerHeartbeat } from './coordinator-harness.js';

const G = 'cg';
const T = 'AAAAAAAAAAAAAAAAAAAAAg';

type HB = Extract<CoordinatorMsg, { type: 'ConsumerGroupHeartbeat' }>;

describe('actors/group-coordinator consumer groups in the coordinator', function () {
  this.timeout(15_000);
  let h: CoordinatorHarness;
  let topics: ConsumerTopicInfo[];
  let metadataReads: number;

  async function start(args: ConstructorParameters<typeof CoordinatorHarness>[1] = {}): Promise<void> {
    topics = [{ topicId: T, name: 't', numPartitions: 4 }];
    metadataReads = 0;
    h = new CoordinatorHarness(1, {
      consumerTopicMetadata: async (names) => {
        metadataReads++;
        return topics.filter((t) => names === null || names.includes(t.name));
      },
      ...args,
    });
    h.spawnCoordinator();
    await h.become(0, 0);
  }

  afterEach(async () => {
    await h?.stop();
  });

  const hb = (o: Partial<HB> = {}, to?: ActorRef<CoordinatorMsg>): Promise<ConsumerGroupHeartbeatResponse> => h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat(G, { subscribedTopicNames: ['t'], ...o }), to);
  const next = (memberId: string, memberEpoch: number, owned: number[] | null = null): Partial<HB> => ({
    memberId,
    memberEpoch,
    subscribedTopicNames: null,
    rebalanceTimeoutMs: -1,
    topicPartitions: owned === null ? null : [{ topicId: T, partitions: owned }],
  });
  const parts = (r: ConsumerGroupHeartbeatResponse) => (r.assignment ?? []).flatMap((t) => t.partitions).sort((a, b) => a - b);

  describe('heartbeats', () => {
    beforeEach(() => start());

    it('a heartbeat whose nullable fields are left out (instance id, rack, assignor, owned partitions) is taken as if they were null', async () => {
      const full = consumerHeartbeat(G, { subscribedTopicNames: ['t'] });
      const { instanceId: _i, rackId: _r, serverAssignor: _a, ...sparse } = full;
      const r = await h.ask<ConsumerGroupHeartbeatResponse>(sparse as unknown as HB);
      expect(r.errorCode, r.errorMessage ?? '').to.equal(ErrorCode.NONE);
      expect(r.memberEpoch).to.equal(1);
      expect(r.assignment).to.deep.equal([{ topicId: T, partitions: [0, 1, 2, 3] }]);
      // a join without its owned partitions is one with null: refused as Kafka refuses it
      const { topicPartitions: _t, ...noOwned } = sparse;
      const refused = await h.ask<ConsumerGroupHeartbeatResponse>(noOwned as unknown as HB);
      expect([refused.errorCode, refused.errorMessage]).to.deep.equal([ErrorCode.INVALID_REQUEST, 'TopicPartitions must be empty when (re-)joining.']);
    });

    it('a join gets a member id made by the coordinator, epoch 1, the heartbeat interval and the assignment by topic id', async () => {
      const r = await hb();
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      expect(r.memberId).to.match(/^[0-9a-f-]{36}$/);
      expect(r.memberEpoch).to.equal(1);
      expect(r.heartbeatIntervalMs).to.equal(5_000);
      expect(r.assignment).to.deep.equal([{ topicId: T, partitions: [0, 1, 2, 3] }]);
      const kinds = (await h.dump()).records.map((x) => (x.key.kind === 'consumer-group' ? x.key.record : x.key.kind));
      // member metadata, partition metadata, epoch, target member, target epoch, current assignment (Kafka's record types)
      expect(kinds).to.deep.equal([5, 4, 3, 7, 6, 8]);
    });

    it('refuses malformed requests with INVALID_REQUEST and an unknown assignor with UNSUPPORTED_ASSIGNOR', async () => {
      expect((await hb({ rebalanceTimeoutMs: -1 })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect(await hb({ subscribedTopicNames: null })).to.deep.include({
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.',
      });
      expect((await hb({ topicPartitions: [{ topicId: T, partitions: [0] }] })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect((await hb({ memberEpoch: 3 })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect((await hb({ memberEpoch: -3, memberId: 'x' })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect((await hb({ memberEpoch: -2, memberId: 'x' })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect((await hb({ groupId: '' })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      const r = await hb({ serverAssignor: 'sticky' });
      expect(r.errorCode).to.equal(ErrorCode.UNSUPPORTED_ASSIGNOR);
      expect(r.errorMessage).to.contain('uniform, range');
    });

    it('a heartbeat with an epoch to a group that does not exist is GROUP_ID_NOT_FOUND', async () => {
      expect((await hb(next('m', 3))).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    });

    it('reads topic metadata once per group.consumer metadata age, not on every heartbeat', async () => {
      const a = await hb();
      await hb(next(a.memberId!, 1));
      expect(metadataReads).to.equal(1);
      h.clock.advance(1_000);
      await hb(next(a.memberId!, 1));
      expect(metadataReads).to.equal(2);
    });

    it('a member that stops heartbeating is fenced after group.consumer.session.timeout.ms; heartbeats keep it alive', async () => {
      // a long rebalance timeout: a may take its time revoking
      const a = await hb({ rebalanceTimeoutMs: 200_000 });
      const b = await hb();
      h.clock.advance(40_000);
      await hb(next(a.memberId!, 1, [0, 1, 2, 3]));
      h.clock.advance(40_000);
      await h.settle();
      // b (no heartbeat for 80 s) is gone; a (heartbeat 40 s ago) is not
      expect((await hb(next(b.memberId!, b.memberEpoch))).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      const d = await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] });
      expect(d.groups[0]!.members.map((m) => m.memberId)).to.deep.equal([a.memberId]);
    });

    it("a group's configs (consumer.session.timeout.ms, consumer.heartbeat.interval.ms) replace the broker's for that group only, from the next heartbeat", async () => {
      const a = await hb({ rebalanceTimeoutMs: 200_000 });
      expect(a.heartbeatIntervalMs).to.equal(5_000);
      const other = await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat('other', { subscribedTopicNames: ['t'] }));
      h.sys.send(h.coord, { type: 'GroupConfigsChanged', configs: { [G]: { 'consumer.session.timeout.ms': '50000', 'consumer.heartbeat.interval.ms': '7000' } } });
      const a2 = await hb(next(a.memberId!, a.memberEpoch));
      expect(a2.heartbeatIntervalMs).to.equal(7_000);
      const o2 = await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat('other', next(other.memberId!, other.memberEpoch)));
      expect(o2.heartbeatIntervalMs).to.equal(5_000);
      // 46 s after their last heartbeats: the broker's 45 s fenced the member of 'other'; a's 50 s did not
      h.clock.advance(46_000);
      await h.settle();
      expect((await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat('other', next(other.memberId!, o2.memberEpoch)))).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      const a3 = await hb(next(a.memberId!, a2.memberEpoch));
      expect(a3.errorCode).to.equal(ErrorCode.NONE);
      // the group's configs removed: back to the broker's
      h.sys.send(h.coord, { type: 'GroupConfigsChanged', configs: {} });
      expect((await hb(next(a.memberId!, a3.memberEpoch))).heartbeatIntervalMs).to.equal(5_000);
      h.clock.advance(46_000);
      await h.settle();
      expect((await hb(next(a.memberId!, a3.memberEpoch))).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('a member that does not revoke within its rebalance timeout is fenced', async () => {
      const a = await hb({ rebalanceTimeoutMs: 10_000 });
      const b = await hb();
      // a is told to revoke; it keeps reporting every partition
      const a2 = await hb(next(a.memberId!, 1, [0, 1, 2, 3]));
      expect(a2.memberEpoch).to.equal(1);
      h.clock.advance(10_000);
      await h.settle();
      expect((await hb(next(a.memberId!, 1, [0, 1, 2, 3]))).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      const b2 = await hb(next(b.memberId!, b.memberEpoch, []));
      expect(parts(b2)).to.deep.equal([0, 1, 2, 3]);
    });

    it('leave (-1) answers with epoch -1 and frees the partitions; a static member leaving (-2) keeps them until it is back', async () => {
      const s1 = await hb({ instanceId: 'i1' });
      const left = await hb({ memberId: s1.memberId!, memberEpoch: -2, instanceId: 'i1', subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      expect(left).to.include({ errorCode: 0, memberId: s1.memberId, memberEpoch: -2 });
      const back = await hb({ instanceId: 'i1' });
      expect(back.memberId).to.not.equal(s1.memberId);
      expect(parts(back)).to.deep.equal([0, 1, 2, 3]);
      const bye = await hb({ memberId: back.memberId!, memberEpoch: -1, instanceId: 'i1', subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      expect(bye).to.include({ errorCode: 0, memberEpoch: -1 });
      const d = await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] });
      expect(d.groups[0]).to.include({ groupState: 'Empty' });
    });

    it('a static member gone for now (-2) that does not come back within its session is fenced; its partitions go to the others', async () => {
      const s1 = await hb({ instanceId: 'i1' });
      await hb({ memberId: s1.memberId!, memberEpoch: -2, instanceId: 'i1', subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      const b = await hb();
      // b waits: the partitions are still the static member's
      expect(parts(b)).to.deep.equal([]);
      h.clock.advance(30_000);
      await hb(next(b.memberId!, b.memberEpoch, []));
      h.clock.advance(15_000);
      await h.settle();
      const b2 = await hb(next(b.memberId!, b.memberEpoch, []));
      expect(b2.memberEpoch).to.be.greaterThan(b.memberEpoch);
      expect(parts(b2)).to.deep.equal([0, 1, 2, 3]);
      expect((await hb({ instanceId: 'i1' })).errorCode).to.equal(ErrorCode.NONE);
    });

    it('a static instance id still in use is UNRELEASED_INSTANCE_ID', async () => {
      await hb({ instanceId: 'i1' });
      expect((await hb({ instanceId: 'i1' })).errorCode).to.equal(ErrorCode.UNRELEASED_INSTANCE_ID);
    });

    it('group.consumer.max.size: a new member beyond it gets GROUP_MAX_SIZE_REACHED', async () => {
      await h.stop();
      await start({ consumerGroupMaxSize: 1 });
      await hb();
      expect((await hb()).errorCode).to.equal(ErrorCode.GROUP_MAX_SIZE_REACHED);
    });
  });

  describe('a classic group and a consumer group of the same id', () => {
    beforeEach(() => start());

    it('a classic group with members not of the consumer protocol: the consumer group heartbeat is GROUP_ID_NOT_FOUND', async () => {
      await h.join(G, { protocolType: 'connect' });
      expect(await hb()).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} is not a consumer group.` });
    });

    it('an empty classic group (offsets only) is replaced; its offsets stay', async () => {
      await h.commit(G, { 't-0': 5 });
      const r = await hb();
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 5 });
    });

    it('a consumer group with members refuses a JoinGroup of another protocol type with INCONSISTENT_GROUP_PROTOCOL and the classic APIs of its members with UNKNOWN_MEMBER_ID; an empty one gives way', async () => {
      const a = await hb();
      expect((await h.join(G, { protocolType: 'connect' })).errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect((await h.heartbeat(G, a.memberId!, 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.sync(G, a.memberId!, 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      await hb({ memberId: a.memberId!, memberEpoch: -1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      const j: JoinGroupResponse = await h.join(G);
      expect(j.errorCode).to.equal(ErrorCode.NONE);
      expect((await h.describe(G)).state).to.equal('CompletingRebalance');
    });
  });

  describe('offsets, listing, describing, deleting', () => {
    beforeEach(() => start());

    it('OffsetCommit: STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, UNSUPPORTED_VERSION before v9; the current epoch commits', async () => {
      const a = await hb();
      const commit = (memberId: string, epoch: number, apiVersion = 9) =>
        h.ask<OffsetCommitResponse>({ type: 'OffsetCommit', groupId: G, generationId: epoch, memberId, apiVersion, topics: [{ name: 't', partitions: [{ partition: 0, offset: 7 }] }] });
      expect((await commit(a.memberId!, 0)).errorCode).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
      expect((await commit('x', 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await commit(a.memberId!, 1, 8)).errorCode).to.equal(ErrorCode.UNSUPPORTED_VERSION);
      expect((await commit('', -1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      const ok = await commit(a.memberId!, 1);
      expect(ok.topics[0]!.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
      const f = await h.ask<OffsetFetchResponse>({ type: 'OffsetFetch', groupId: G, topics: null, memberId: a.memberId!, memberEpoch: 1 });
      expect(f.topics[0]!.partitions[0]!.offset).to.equal(7);
      const stale = await h.ask<OffsetFetchResponse>({ type: 'OffsetFetch', groupId: G, topics: [{ name: 't', partitions: [0] }], memberId: a.memberId!, memberEpoch: 4 });
      expect(stale.errorCode).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
      expect((await h.fetched(G))['t-0']).to.equal(7);
    });

    it('TxnOffsetCommit: a member with its epoch commits; another epoch is ILLEGAL_GENERATION (no STALE_MEMBER_EPOCH there); no member only while empty', async () => {
      const a = await hb();
      const code = async (o: { memberId?: string; generationId?: number }) => (await h.txnCommit(G, 7, { 't-1': 3 }, o)).topics[0]!.partitions[0]!.errorCode;
      expect(await code({ memberId: a.memberId!, generationId: 1 })).to.equal(ErrorCode.NONE);
      expect(await code({ memberId: a.memberId!, generationId: 0 })).to.equal(ErrorCode.ILLEGAL_GENERATION);
      expect(await code({})).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('ListGroups types it consumer with its state; DescribeGroups answers GROUP_ID_NOT_FOUND, Dead, as Kafka 4.0; ConsumerGroupDescribe tells members, epochs, assignments and member types', async () => {
      const a = await hb({ serverAssignor: 'range' });
      await h.join('classic');
      const l = await h.listGroups();
      expect(l.groups.find((g) => g.groupId === G)).to.deep.equal({ groupId: G, protocolType: 'consumer', state: 'Stable', groupType: 'consumer' });
      expect(l.groups.find((g) => g.groupId === 'classic')!.groupType).to.equal('classic');
      expect((await h.listGroups(['stable'])).groups.map((g) => g.groupId)).to.deep.equal([G]);
      expect(await h.describe(G)).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} is not a classic group.`, state: 'Dead', members: [] });
      const d = await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G, 'classic', 'none'] });
      expect(d.groups[0]).to.deep.include({ groupId: G, errorCode: 0, groupState: 'Stable', groupEpoch: 1, assignmentEpoch: 1, assignorName: 'range' });
      expect(d.groups[0]!.members[0]).to.deep.include({ memberId: a.memberId, memberEpoch: 1, clientId: 'c', subscribedTopicNames: ['t'], memberType: 'consumer' });
      expect(d.groups[0]!.members[0]!.assignment).to.deep.equal([{ topicId: T, partitions: [0, 1, 2, 3], topicName: 't' }]);
      expect(d.groups[1]!.errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      expect(d.groups[2]!.errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    });

    it('DeleteGroups: NON_EMPTY_GROUP with members; once empty, the group and its offsets go (tombstones)', async () => {
      const a = await hb();
      expect((await h.deleteGroups([G])).groups[0]!.errorCode).to.equal(ErrorCode.NON_EMPTY_GROUP);
      await hb({ memberId: a.memberId!, memberEpoch: -1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      const r: DeleteGroupsResponse = await h.deleteGroups([G]);
      expect(r.groups[0]!.errorCode).to.equal(ErrorCode.NONE);
      expect((await h.listGroups()).groups).to.deep.equal([]);
      const last = (await h.dump()).records.slice(-3);
      expect(last.map((x) => (x.key.kind === 'consumer-group' ? x.key.record : x.key.kind))).to.deep.equal([6, 4, 3]);
    });
  });

  describe('failover', () => {
    beforeEach(() => start());

    it('a new coordinator replays the records and continues the group: same members, epochs, assignments and reconciliation', async () => {
      const a = await hb();
      const b = await hb();
      const a2 = await hb(next(a.memberId!, 1, [0, 1, 2, 3]));
      const kept = parts(a2);
      // the partition moves to a coordinator on another broker
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 1 });
      const old = h.coord;
      await h.control({ leaderEpoch: 1 });
      const fresh = h.spawnCoordinator();
      await h.become(0, 1, fresh);
      expect((await hb(next(a.memberId!, 1, kept), old)).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      const d = await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] }, fresh);
      expect(d.groups[0]).to.deep.include({ groupEpoch: 2, assignmentEpoch: 2, groupState: 'Reconciling' });
      // a revokes on the new coordinator: it moves on to epoch 2; b then gets the rest
      const a3 = await hb(next(a.memberId!, 1, kept), fresh);
      expect(a3.memberEpoch).to.equal(2);
      const b2 = await hb(next(b.memberId!, 2, []), fresh);
      expect(parts(b2)).to.deep.equal([0, 1, 2, 3].filter((p) => !kept.includes(p)));
      expect((await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] }, fresh)).groups[0]!.groupState).to.equal('Stable');
    });
  });
});
