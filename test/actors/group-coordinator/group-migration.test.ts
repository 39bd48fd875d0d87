/**
 * KIP-848 online migration in the group coordinator (coordinator-harness.ts: a FakeClock and fake
 * offsets-partition replicas), as Kafka 4.0: classic members inside a consumer group (JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup served by the consumer group, their session / join / sync
 * timeouts), a live classic group upgraded by a ConsumerGroupHeartbeat, a consumer group
 * downgraded when its last consumer-protocol member leaves, group.consumer.migration.policy
 * refusing either, and a coordinator taking a migrated group over from its records.
 */
import { expect } from 'chai';
import type { ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatResponse, ConsumerTopicInfo, CoordinatorMsg, DescribedConsumerGroup, JoinGroupResponse, ListGroupsResponse, OffsetCommitResponse } from '../../../actors/group-coordinator/messages.js';
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../../../actors/group-coordinator/consumer-protocol.js';
import type { MigrationPolicy } from '../../../actors/group-coordinator/group-conversion.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { CoordinatorHarness, consumerHeartbeat, type JoinOptions } from './coordinator-harness.js';

const G = 'mig';
const T = 'AAAAAAAAAAAAAAAAAAAAAg';
/** The topic's partitions: six, so that three members share them evenly. */
const ALL = [0, 1, 2, 3, 4, 5];

type HB = Extract<CoordinatorMsg, { type: 'ConsumerGroupHeartbeat' }>;

/** A classic member's protocols: range, a v1 Subscription to 't' owning `owned`. */
const protocols = (owned: number[] = []) => [{ name: 'range', metadata: encodeSubscription({ version: 1, topics: ['t'], ownedPartitions: owned.length > 0 ? [{ topic: 't', partitions: owned }] : [] }) }];
const assignmentOf = (ps: number[]) => encodeAssignment({ version: 1, partitions: ps.length > 0 ? [{ topic: 't', partitions: ps }] : [] });
const partitionsIn = (bytes: Uint8Array) => decodeAssignment(bytes).partitions.flatMap((t) => t.partitions).sort((a, b) => a - b);

describe('actors/group-coordinator online migration and classic members in consumer groups', function () {
  this.timeout(15_000);
  let h: CoordinatorHarness;
  let topics: ConsumerTopicInfo[];

  async function start(args: ConstructorParameters<typeof CoordinatorHarness>[1] = {}): Promise<void> {
    topics = [{ topicId: T, name: 't', numPartitions: ALL.length }];
    h = new CoordinatorHarness(1, { consumerTopicMetadata: async (names) => topics.filter((t) => names === null || names.includes(t.name)), ...args });
    h.spawnCoordinator();
    await h.become(0, 0);
  }

  afterEach(async () => {
    await h?.stop();
  });

  const hb = (o: Partial<HB> = {}, to?: ActorRef<CoordinatorMsg>): Promise<ConsumerGroupHeartbeatResponse> => h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat(G, { subscribedTopicNames: ['t'], ...o }), to);
  const next = (memberId: string, memberEpoch: number, owned: number[]): Partial<HB> => ({ memberId, memberEpoch, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: [{ topicId: T, partitions: owned }] });
  const parts = (r: ConsumerGroupHeartbeatResponse) => (r.assignment ?? []).flatMap((t) => t.partitions).sort((a, b) => a - b);
  const describe848 = async (to?: ActorRef<CoordinatorMsg>): Promise<DescribedConsumerGroup> => (await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] }, to)).groups[0]!;
  const memberOf = (d: DescribedConsumerGroup, id: string) => d.members.find((m) => m.memberId === id)!;
  const assignedIn = (d: DescribedConsumerGroup, id: string) => memberOf(d, id).assignment.flatMap((t) => t.partitions).sort((a, b) => a - b);
  /** A classic join with the member id first asked for (MEMBER_ID_REQUIRED), as clients since JoinGroup v4 do. */
  const classicJoin = async (o: JoinOptions = {}, to?: ActorRef<CoordinatorMsg>): Promise<JoinGroupResponse> => {
    const first = await h.join(G, { protocols: protocols(), requireKnownMemberId: true, ...o }, to);
    if (first.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) return first;
    return h.join(G, { protocols: protocols(), requireKnownMemberId: true, ...o, memberId: first.memberId }, to);
  };
  const syncOf = (memberId: string, generationId: number, to?: ActorRef<CoordinatorMsg>) =>
    h.ask<{ errorCode: number; assignment: Uint8Array; protocolName: string | null }>({ type: 'SyncGroup', groupId: G, memberId, generationId, protocolType: 'consumer', protocolName: 'range', assignments: [] }, to);

  /** A stable classic group of two members, the leader assigning t-0,1,2 to itself and t-3,4,5 to the other. */
  async function classicGroup(): Promise<{ a: string; b: string; generationId: number }> {
    const { members, generationId } = await h.stableGroup(G, 2, { protocols: protocols() });
    const [a, b] = members as [string, string];
    // stableGroup handed out opaque bytes: the leader syncs again with real ConsumerProtocol assignments
    const j = await Promise.all([h.join(G, { memberId: a, protocols: protocols() }), h.join(G, { memberId: b, protocols: protocols() })]);
    const gen = j[0]!.generationId;
    await Promise.all([h.sync(G, a, gen, [{ memberId: a, assignment: assignmentOf([0, 1, 2]) }, { memberId: b, assignment: assignmentOf([3, 4, 5]) }]), h.sync(G, b, gen)]);
    expect((await h.describe(G)).state).to.equal('Stable');
    return { a, b, generationId: gen };
  }

  describe('group.consumer.migration.policy', () => {
    for (const policy of ['disabled', 'downgrade'] as MigrationPolicy[]) {
      it(`${policy}: a consumer group heartbeat to a live classic group is GROUP_ID_NOT_FOUND and the classic group stands`, async () => {
        await start({ consumerGroupMigrationPolicy: policy });
        const { a, generationId } = await classicGroup();
        expect(await hb()).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} is not a consumer group.` });
        expect((await h.describe(G)).state).to.equal('Stable');
        expect((await h.heartbeat(G, a, generationId)).errorCode).to.equal(ErrorCode.NONE);
      });
    }

    it('a classic group with more members than group.consumer.max.size is not upgraded (GROUP_ID_NOT_FOUND); at the size, the joining member is GROUP_MAX_SIZE_REACHED', async () => {
      await start({ consumerGroupMaxSize: 1 });
      await classicGroup();
      expect((await hb()).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      await h.stop();
      await start({ consumerGroupMaxSize: 2 });
      await classicGroup();
      expect((await hb()).errorCode).to.equal(ErrorCode.GROUP_MAX_SIZE_REACHED);
      expect((await h.describe(G)).state).to.equal('Stable');
    });

    it('upgrade: the last consumer member leaving does not downgrade the group', async () => {
      await start({ consumerGroupMigrationPolicy: 'upgrade' });
      const { a } = await classicGroup();
      const c = await hb();
      await hb({ memberId: c.memberId!, memberEpoch: -1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      const d = await describe848();
      expect(d.members.map((m) => m.memberId)).to.include(a);
      expect((await h.describe(G)).state).to.equal('Dead');
    });

    it('group.max.size: the last consumer member leaving does not downgrade a group whose classic members are more than it', async () => {
      await start({ classicGroupMaxSize: 2 });
      const { a, b } = await classicGroup();
      const c = await hb();
      // a third classic member joins the consumer group (group.consumer.max.size governs that)
      const first = await h.join(G, { protocols: protocols(), requireKnownMemberId: true });
      const third = await h.join(G, { memberId: first.memberId, protocols: protocols(), requireKnownMemberId: true });
      expect(third.errorCode).to.equal(ErrorCode.NONE);
      await hb({ memberId: c.memberId!, memberEpoch: -1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      const d = await describe848();
      expect(d.members.map((m) => m.memberId)).to.have.members([a, b, third.memberId]);
      expect((await h.describe(G)).state).to.equal('Dead');
    });
  });

  describe('upgrade: a consumer group heartbeat joining a live classic group', () => {
    beforeEach(() => start());

    it('converts it: the classic members keep their assignment at the classic generation, the new member joins, the records are replaced', async () => {
      const { a, b, generationId } = await classicGroup();
      const c = await hb();
      expect(c.errorCode).to.equal(ErrorCode.NONE);
      // the partitions are all owned by the classic members: the new member waits for them
      expect(parts(c)).to.deep.equal([]);
      const d = await describe848();
      expect(d.groupEpoch).to.equal(generationId + 1);
      expect(memberOf(d, a).memberEpoch).to.equal(generationId);
      // KIP-1099: the converted members are classic members, the new one a consumer-protocol member
      expect([memberOf(d, a).memberType, memberOf(d, b).memberType, memberOf(d, c.memberId!).memberType]).to.deep.equal(['classic', 'classic', 'consumer']);
      expect(assignedIn(d, a)).to.deep.equal([0, 1, 2]);
      expect(assignedIn(d, b)).to.deep.equal([3, 4, 5]);
      const listed = await h.ask<ListGroupsResponse>({ type: 'ListGroups' });
      expect(listed.groups).to.deep.include({ groupId: G, protocolType: 'consumer', state: 'Reconciling', groupType: 'consumer' });
      expect(await h.describe(G)).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} is not a classic group.`, state: 'Dead' });
      // the classic group's record is deleted first, then the consumer group's records follow
      const records = (await h.dump()).records;
      const tombstone = records.findIndex((r) => r.key.kind === 'group' && r.groupValue === null);
      expect(tombstone).to.be.greaterThan(-1);
      const after = records.slice(tombstone + 1).map((r) => (r.key.kind === 'consumer-group' ? r.key.record : r.key.kind));
      expect(after).to.include.members([3, 4, 5, 6, 7, 8]);
    });

    it('the classic members are told to rejoin, revoke through JoinGroup / SyncGroup and the new member gets what they released', async () => {
      const { a, b, generationId } = await classicGroup();
      const c = await hb();
      expect((await h.heartbeat(G, a, generationId)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      // a rejoins owning t-0,1: it must give some up first (its epoch stays)
      const ja = await h.join(G, { memberId: a, protocols: protocols([0, 1, 2]) });
      expect(ja).to.deep.include({ errorCode: ErrorCode.NONE, memberId: a, protocolType: 'consumer', protocolName: 'range', leader: '' });
      const sa = await syncOf(a, ja.generationId);
      expect(sa.errorCode).to.equal(ErrorCode.NONE);
      const keptA = partitionsIn(sa.assignment);
      // b likewise
      const jb = await h.join(G, { memberId: b, protocols: protocols([3, 4, 5]) });
      const keptB = partitionsIn((await syncOf(b, jb.generationId)).assignment);
      expect(keptA).to.have.length(2);
      expect(keptB).to.have.length(2);
      // they revoked (their heartbeat tells them to join again), rejoin owning what they kept
      for (const [id, kept, j] of [[a, keptA, ja], [b, keptB, jb]] as const) {
        const beat = await h.heartbeat(G, id, j.generationId);
        if (j.generationId < generationId + 1) expect(beat.errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
        const again = await h.join(G, { memberId: id, protocols: protocols([...kept]) });
        expect(again.generationId).to.equal(generationId + 1);
        await syncOf(id, again.generationId);
      }
      const c2 = await hb(next(c.memberId!, c.memberEpoch, []));
      expect(parts(c2)).to.have.length(2);
      const all = [...keptA, ...keptB, ...parts(c2)].sort();
      expect(all).to.deep.equal(ALL);
      expect((await describe848()).groupState).to.equal('Stable');
    });

    it('a classic member waiting in the join phase is answered REBALANCE_IN_PROGRESS when the group converts', async () => {
      const { a, b } = await classicGroup();
      const pending = h.join(G, { memberId: a, protocols: protocols([0, 1, 2]) });
      expect(await h.peek(pending)).to.equal('pending');
      await hb();
      expect((await pending).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      expect(memberOf(await describe848(), b).memberEpoch).to.be.greaterThan(0);
    });

    it('a classic member commits with its epoch as generation (any OffsetCommit version); a stale one is ILLEGAL_GENERATION', async () => {
      const { a, generationId } = await classicGroup();
      await hb();
      const commit = (gen: number) => h.ask<OffsetCommitResponse>({ type: 'OffsetCommit', groupId: G, generationId: gen, memberId: a, apiVersion: 8, topics: [{ name: 't', partitions: [{ partition: 0, offset: 3 }] }] });
      expect((await commit(generationId)).topics[0]!.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
      expect((await commit(generationId - 1)).topics[0]!.partitions[0]!.errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 3 });
    });

    it('a coordinator taking the partition over continues the converted group with its classic members', async () => {
      const { a, generationId } = await classicGroup();
      const c = await hb();
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 1 });
      await h.control({ leaderEpoch: 1 });
      const fresh = h.spawnCoordinator();
      await h.become(0, 1, fresh);
      const d = await describe848(fresh);
      expect(d.members).to.have.length(3);
      expect(memberOf(d, a).memberEpoch).to.equal(generationId);
      // each member's type came back from its record
      expect([memberOf(d, a).memberType, memberOf(d, c.memberId!).memberType]).to.deep.equal(['classic', 'consumer']);
      expect((await h.describe(G, fresh)).state).to.equal('Dead');
      // the classic member's protocols came back with it: it rejoins and syncs there
      expect((await h.heartbeat(G, a, generationId, fresh)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      const j = await h.join(G, { memberId: a, protocols: protocols([0, 1, 2]) }, fresh);
      expect(j).to.deep.include({ errorCode: ErrorCode.NONE, protocolName: 'range' });
      expect((await syncOf(a, j.generationId, fresh)).errorCode).to.equal(ErrorCode.NONE);
    });
  });

  describe('classic members in a consumer group', () => {
    beforeEach(() => start());

    it('JoinGroup asks for a member id first, then joins with the epoch as generation; SyncGroup hands out its assignment', async () => {
      const c = await hb();
      const first = await h.join(G, { protocols: protocols(), requireKnownMemberId: true });
      expect(first.errorCode).to.equal(ErrorCode.MEMBER_ID_REQUIRED);
      expect(first.memberId).to.match(/^[0-9a-f-]{36}$/);
      const j = await h.join(G, { memberId: first.memberId, protocols: protocols(), requireKnownMemberId: true });
      expect(j).to.deep.include({ errorCode: ErrorCode.NONE, memberId: first.memberId, protocolType: 'consumer', protocolName: 'range', leader: '', members: [] });
      const d = await describe848();
      expect(d.groupEpoch).to.equal(2);
      expect(memberOf(d, j.memberId)).to.deep.include({ subscribedTopicNames: ['t'], memberType: 'classic' });
      expect(memberOf(d, c.memberId!).memberType).to.equal('consumer');
      // c still owns everything: the classic member has nothing until c revokes
      const s1 = await syncOf(j.memberId, j.generationId);
      expect(s1.errorCode).to.equal(ErrorCode.NONE);
      expect(partitionsIn(s1.assignment)).to.deep.equal([]);
      const c2 = await hb(next(c.memberId!, 1, ALL));
      await hb(next(c.memberId!, c2.memberEpoch, parts(c2)));
      // the partitions it waited on are free: its heartbeat tells it to join again, and it gets them
      expect((await h.heartbeat(G, j.memberId, j.generationId)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      const j2 = await h.join(G, { memberId: j.memberId, protocols: protocols() });
      const got = partitionsIn((await syncOf(j.memberId, j2.generationId)).assignment);
      expect([...got, ...parts(c2)].sort()).to.deep.equal(ALL);
      expect((await h.heartbeat(G, j.memberId, j2.generationId)).errorCode).to.equal(ErrorCode.NONE);
    });

    it('refuses what Kafka refuses: other protocols, unknown members, consumer members on classic APIs, other generations and protocol names', async () => {
      const c = await hb();
      const j = await classicJoin();
      expect((await h.join(G, { protocols: [{ name: 'roundrobin', metadata: protocols()[0]!.metadata }] })).errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect((await h.heartbeat(G, 'nobody', 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.heartbeat(G, c.memberId!, 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.heartbeat(G, j.memberId, j.generationId + 5)).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
      expect((await syncOf(j.memberId, j.generationId + 5)).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
      const wrongName = await h.ask<{ errorCode: number }>({ type: 'SyncGroup', groupId: G, memberId: j.memberId, generationId: j.generationId, protocolType: 'consumer', protocolName: 'sticky', assignments: [] });
      expect(wrongName.errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect((await h.leave(G, c.memberId!)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('SyncGroup after the group epoch moved on is REBALANCE_IN_PROGRESS', async () => {
      await hb();
      const j = await classicJoin();
      await hb();
      expect((await syncOf(j.memberId, j.generationId)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
    });

    it('LeaveGroup removes a classic member and bumps the group epoch', async () => {
      await hb();
      const j = await classicJoin();
      const before = (await describe848()).groupEpoch;
      expect((await h.leave(G, j.memberId)).errorCode).to.equal(ErrorCode.NONE);
      const d = await describe848();
      expect(d.members).to.have.length(1);
      expect(d.groupEpoch).to.equal(before + 1);
      // two classic members in one request (one by its instance id alone): one epoch bump, as Kafka
      const x = await classicJoin();
      const y = await classicJoin({ groupInstanceId: 'iy' });
      const epoch = (await describe848()).groupEpoch;
      const r = await h.ask<{ errorCode: number; memberErrors: number[] }>({ type: 'LeaveGroup', groupId: G, members: [{ memberId: x.memberId }, { memberId: '', groupInstanceId: 'iy' }, { memberId: 'nobody' }] });
      expect(r.memberErrors).to.deep.equal([ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID]);
      const after = await describe848();
      expect(after.members.map((m) => m.memberId)).to.not.include.members([x.memberId, y.memberId]);
      expect(after.groupEpoch).to.equal(epoch + 1);
    });

    it('a classic member is fenced after its own session timeout, and when it does not sync after joining within its rebalance timeout', async () => {
      const c = await hb({ rebalanceTimeoutMs: 600_000 });
      const j = await classicJoin({ sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 60_000 });
      await syncOf(j.memberId, j.generationId);
      h.clock.advance(5_000);
      await hb(next(c.memberId!, (await describe848()).members.find((m) => m.memberId === c.memberId)!.memberEpoch, ALL));
      h.clock.advance(6_000);
      await h.settle();
      expect((await describe848()).members.map((m) => m.memberId)).to.deep.equal([c.memberId]);
      // joins, never syncs: gone after its rebalance timeout though it heartbeats
      const k = await classicJoin({ sessionTimeoutMs: 50_000, rebalanceTimeoutMs: 20_000 });
      h.clock.advance(21_000);
      await h.settle();
      expect((await describe848()).members.map((m) => m.memberId)).to.not.include(k.memberId);
    });

    it('a static classic member rejoining without its member id takes its instance over', async () => {
      await hb();
      const j = await classicJoin({ groupInstanceId: 'i1' });
      const again = await h.join(G, { protocols: protocols(), groupInstanceId: 'i1' });
      expect(again.errorCode).to.equal(ErrorCode.NONE);
      expect(again.memberId).to.not.equal(j.memberId);
      const d = await describe848();
      expect(d.members.map((m) => m.memberId)).to.include(again.memberId).and.not.include(j.memberId);
      expect((await h.heartbeat(G, j.memberId, j.generationId)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });
  });

  describe('downgrade: the last consumer-protocol member leaving', () => {
    beforeEach(() => start());

    it('turns the group of classic members back into a classic group that rebalances; they rejoin and sync as a classic group', async () => {
      const { a, b, generationId } = await classicGroup();
      const c = await hb();
      const epoch = (await describe848()).groupEpoch;
      const r = await hb({ memberId: c.memberId!, memberEpoch: -1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      const cg = await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] });
      expect(cg.groups[0]!.errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      const classic = await h.describe(G);
      expect(classic.state).to.equal('PreparingRebalance');
      expect(classic.generationId).to.equal(epoch);
      expect(classic.members.map((m) => m.memberId).sort()).to.deep.equal([a, b].sort());
      expect((await h.listGroups()).groups).to.deep.include({ groupId: G, protocolType: 'consumer', state: 'PreparingRebalance', groupType: 'classic' });
      // the consumer group's records are deleted, the classic group's written after them
      const records = (await h.dump()).records;
      const last = records[records.length - 1]!;
      expect(last.key.kind).to.equal('group');
      expect(last.groupValue?.generation).to.equal(epoch);
      const tombstones = records.filter((x) => x.key.kind === 'consumer-group' && x.offset > records.length - 30 && x.key.record === 3);
      expect(tombstones.length).to.be.greaterThan(0);
      // the classic members are told to rejoin, and do
      expect((await h.heartbeat(G, a, epoch)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      const [ja, jb] = await Promise.all([h.join(G, { memberId: a, protocols: protocols() }), h.join(G, { memberId: b, protocols: protocols() })]);
      expect(ja!.generationId).to.equal(epoch + 1);
      const leader = ja!.leader;
      expect([a, b]).to.include(leader);
      await Promise.all([h.sync(G, a, ja!.generationId, leader === a ? [{ memberId: a, assignment: assignmentOf([0, 1, 2]) }, { memberId: b, assignment: assignmentOf([3, 4, 5]) }] : []), h.sync(G, b, jb!.generationId, leader === b ? [{ memberId: a, assignment: assignmentOf([0, 1, 2]) }, { memberId: b, assignment: assignmentOf([3, 4, 5]) }] : [])]);
      expect((await h.describe(G)).state).to.equal('Stable');
      expect(generationId).to.be.lessThan(epoch);
    });

    it('also when the consumer member is fenced (its session expires); the classic group carries the target assignment', async () => {
      await h.stop();
      await start({ consumerGroupSessionTimeoutMs: 5_000 });
      const { a, b } = await classicGroup();
      await hb();
      // the classic members' sessions (10 s in the harness's joins) outlast the consumer member's
      h.clock.advance(6_000);
      await h.settle();
      const classic = await h.describe(G);
      expect(classic.state).to.equal('PreparingRebalance');
      expect(classic.members.map((m) => m.memberId).sort()).to.deep.equal([a, b].sort());
      // each has its target assignment of the consumer group (the new member's share was taken from them), as written
      await h.settle();
      const written = (await h.dump()).records.filter((r) => r.key.kind === 'group').pop()!.groupValue!;
      const assigned = written.members.flatMap((m) => partitionsIn(m.assignment));
      expect(assigned).to.have.length(4);
      expect(new Set(assigned).size).to.equal(4);
    });

    it('a static classic member replacing the last consumer-protocol member (same instance id) turns the group classic as it stands, without a rebalance', async () => {
      const c = await hb({ instanceId: 'i1' });
      const j = await classicJoin();
      await syncOf(j.memberId, j.generationId);
      const c2 = await hb({ ...next(c.memberId!, c.memberEpoch, ALL), instanceId: 'i1' });
      await hb({ ...next(c.memberId!, c2.memberEpoch, parts(c2)), instanceId: 'i1' });
      const target = assignedIn(await describe848(), c.memberId!);
      const epoch = (await describe848()).groupEpoch;
      // the instance comes back as a classic member: it takes the consumer member's place and assignment
      const r = await h.join(G, { protocols: protocols(), groupInstanceId: 'i1' });
      expect(r).to.deep.include({ errorCode: ErrorCode.NONE, generationId: epoch, protocolName: 'range' });
      const classic = await h.describe(G);
      expect(classic).to.deep.include({ state: 'Stable', generationId: epoch });
      expect(classic.members.map((m) => m.memberId).sort()).to.deep.equal([j.memberId, r.memberId].sort());
      const s2 = await syncOf(r.memberId, r.generationId);
      expect(s2.errorCode).to.equal(ErrorCode.NONE);
      expect(partitionsIn(s2.assignment)).to.deep.equal(target);
      expect((await h.heartbeat(G, j.memberId, epoch)).errorCode).to.equal(ErrorCode.NONE);
    });

    it('a coordinator taking the partition over loads the downgraded group as a classic group', async () => {
      const { a, b } = await classicGroup();
      const c = await hb();
      const epoch = (await describe848()).groupEpoch;
      await hb({ memberId: c.memberId!, memberEpoch: -1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null });
      await h.settle();
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 1 });
      await h.control({ leaderEpoch: 1 });
      const fresh = h.spawnCoordinator();
      await h.become(0, 1, fresh);
      const classic = await h.describe(G, fresh);
      expect(classic).to.deep.include({ state: 'Stable', generationId: epoch, protocolType: 'consumer', protocolName: 'range' });
      expect(classic.members.map((m) => m.memberId).sort()).to.deep.equal([a, b].sort());
      expect((await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] }, fresh)).groups[0]!.errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    });
  });
});
