/**
 * The group coordinator actor on its own: one ActorSystem with a FakeClock, and fake replicas of
 * the offsets partitions (coordinator-harness.ts). One test per step of Kafka's group protocol
 * (join, rebalance, sync, heartbeats in each state, leave, session expiry, the errors), offset
 * commits and fetches, loading and resigning offsets partitions, replay after re-election,
 * group and offset deletion, offset expiry and the rewriting that keeps the log bounded.
 */
import { expect } from 'chai';
import { commitErrorFor, consumerWriteErrorFor, groupStoreErrorFor } from '../../../actors/group-coordinator/coordinator.js';
import type { JoinGroupResponse, LeaveGroupResponse, OffsetCommitResponse, SyncGroupResponse } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { CoordinatorHarness, sub } from './coordinator-harness.js';
import { checkFor } from '../../helpers/check-for.js';

const G = 'group-a';

describe('actors/group-coordinator coordinator', function () {
  this.timeout(15_000);
  let h: CoordinatorHarness;

  async function start(partitions = 1, args: ConstructorParameters<typeof CoordinatorHarness>[1] = {}): Promise<void> {
    h = new CoordinatorHarness(partitions, args);
    h.spawnCoordinator();
    for (let p = 0; p < partitions; p++) await h.become(p, 0);
  }

  afterEach(async () => {
    await h?.stop();
  });

  describe('join phase', () => {
    beforeEach(() => start());

    it('the first member of an empty group gets an id, leads generation 1 and receives its own metadata', async () => {
      const r = await h.join(G, { clientId: 'my-client' });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      expect(r.memberId).to.match(/^my-client-.+/);
      expect(r.generationId).to.equal(1);
      expect(r.leader).to.equal(r.memberId);
      expect(r.protocolType).to.equal('consumer');
      expect(r.protocolName).to.equal('range');
      expect(r.members).to.have.length(1);
      expect(r.members[0]!.memberId).to.equal(r.memberId);
      expect(Buffer.from(r.members[0]!.metadata)).to.deep.equal(Buffer.from(sub('t')));
      expect((await h.describe(G)).state).to.equal('CompletingRebalance');
    });

    it('a second member causes a rebalance: it waits until the first rejoins, then both get generation 2 and only the leader gets the members', async () => {
      const { members: [a], generationId } = await h.stableGroup(G, 1);
      const bJoin = h.join(G, { clientId: 'b', protocols: [{ name: 'range', metadata: sub('t', 'u') }] });
      expect(await h.peek(bJoin)).to.equal('pending');
      expect((await h.describe(G)).state).to.equal('PreparingRebalance');
      expect((await h.heartbeat(G, a!, generationId)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      const aJoin = await h.join(G, { memberId: a! });
      const b = await bJoin;
      expect(aJoin).to.deep.include({ errorCode: 0, generationId: 2, leader: a, memberId: a });
      expect(b).to.deep.include({ errorCode: 0, generationId: 2, leader: a });
      expect(aJoin.members.map((m) => m.memberId)).to.have.members([a, b.memberId]);
      expect(b.members).to.deep.equal([]);
      const bMeta = aJoin.members.find((m) => m.memberId === b.memberId)!;
      expect(Buffer.from(bMeta.metadata)).to.deep.equal(Buffer.from(sub('t', 'u')));
    });

    it('waits group.initial.rebalance.delay.ms for more members before completing an empty group\'s first join', async () => {
      await h.stop();
      await start(1, { groupInitialRebalanceDelayMs: 3_000 });
      const a = h.join(G);
      await h.settle();
      h.clock.advance(2_000);
      const b = h.join(G);
      await h.settle();
      h.clock.advance(1_000);
      // b joined during the delay: the delay runs once more
      expect(await h.peek(a)).to.equal('pending');
      h.clock.advance(3_000);
      const [ra, rb] = await Promise.all([a, b]);
      expect(ra.generationId).to.equal(1);
      expect(rb.generationId).to.equal(1);
      expect(ra.leader).to.equal(ra.memberId);
      expect(ra.members).to.have.length(2);
    });

    it('completes after the rebalance timeout without members that did not rejoin, and those are gone', async () => {
      const { members: [a, b], generationId } = await h.stableGroup(G, 2, { rebalanceTimeoutMs: 20_000 });
      const cJoin = h.join(G, { rebalanceTimeoutMs: 20_000 });
      await h.settle();
      const aJoin = h.join(G, { memberId: a!, rebalanceTimeoutMs: 20_000 });
      expect(await h.peek(aJoin)).to.equal('pending');
      await h.clock.advanceAsync(20_000);
      const [ra, rc] = await Promise.all([aJoin, cJoin]);
      expect(ra.generationId).to.equal(generationId + 1);
      expect(ra.members.map((m) => m.memberId)).to.have.members([a, rc.memberId]);
      expect((await h.heartbeat(G, b!, generationId)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('a member rejoining a stable group with the same metadata gets the current generation without a rebalance; with new metadata it triggers one', async () => {
      const { members: [a, b], generationId } = await h.stableGroup(G, 2);
      const same = await h.join(G, { memberId: b! });
      expect(same).to.deep.include({ errorCode: 0, generationId, leader: a, members: [] });
      expect((await h.describe(G)).state).to.equal('Stable');
      const changed = h.join(G, { memberId: b!, protocols: [{ name: 'range', metadata: sub('t', 'new-topic') }] });
      await h.settle();
      expect((await h.describe(G)).state).to.equal('PreparingRebalance');
      await h.join(G, { memberId: a! });
      expect((await changed).generationId).to.equal(generationId + 1);
    });

    it('answers MEMBER_ID_REQUIRED with an id first when the member must know it, then accepts the join with it', async () => {
      const first = await h.join(G, { requireKnownMemberId: true });
      expect(first.errorCode).to.equal(ErrorCode.MEMBER_ID_REQUIRED);
      expect(first.memberId).to.match(/^c-/);
      expect(first.generationId).to.equal(-1);
      const second = await h.join(G, { memberId: first.memberId, requireKnownMemberId: true });
      expect(second).to.deep.include({ errorCode: 0, memberId: first.memberId, generationId: 1, leader: first.memberId });
    });

    it('refuses session timeouts outside group.min/max.session.timeout.ms', async () => {
      expect((await h.join(G, { sessionTimeoutMs: 999 })).errorCode).to.equal(ErrorCode.INVALID_SESSION_TIMEOUT);
      expect((await h.join(G, { sessionTimeoutMs: 600_001 })).errorCode).to.equal(ErrorCode.INVALID_SESSION_TIMEOUT);
      expect((await h.join(G, { sessionTimeoutMs: 1_000 })).errorCode).to.equal(ErrorCode.NONE);
    });

    it('refuses a member whose protocol type or protocols do not fit the group (INCONSISTENT_GROUP_PROTOCOL)', async () => {
      await h.stableGroup(G, 1);
      expect((await h.join(G, { protocolType: 'connect' })).errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect((await h.join(G, { protocols: [{ name: 'roundrobin', metadata: sub('t') }] })).errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect((await h.join('other', { protocols: [] })).errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect((await h.describe(G)).state).to.equal('Stable');
    });

    it('refuses a join with a member id the group does not know (UNKNOWN_MEMBER_ID) and an empty group id (INVALID_GROUP_ID)', async () => {
      expect((await h.join('no-such-group', { memberId: 'ghost' })).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      await h.stableGroup(G, 1);
      expect((await h.join(G, { memberId: 'ghost' })).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.join('')).errorCode).to.equal(ErrorCode.INVALID_GROUP_ID);
    });

    it('a static member restarting under a new id takes its place without a rebalance; the old id is fenced', async () => {
      const a = await h.join(G, { groupInstanceId: 'instance-a' });
      await h.sync(G, a.memberId, a.generationId, [{ memberId: a.memberId, assignment: Buffer.from('A') }]);
      const again = await h.join(G, { groupInstanceId: 'instance-a' });
      expect(again.errorCode).to.equal(ErrorCode.NONE);
      expect(again.memberId).to.not.equal(a.memberId);
      expect(again.generationId).to.equal(a.generationId);
      expect((await h.describe(G)).state).to.equal('Stable');
      const s = await h.sync(G, again.memberId, again.generationId);
      expect(Buffer.from(s.assignment).toString()).to.equal('A');
      expect((await h.ask<{ errorCode: number }>({ type: 'Heartbeat', groupId: G, memberId: a.memberId, generationId: a.generationId, groupInstanceId: 'instance-a' })).errorCode).to.equal(
        ErrorCode.FENCED_INSTANCE_ID,
      );
    });
  });

  describe('group.max.size (KIP-389)', () => {
    it('a new member of a full group is turned away with GROUP_MAX_SIZE_REACHED, the group left as it was; its members rejoin', async () => {
      await start(1, { classicGroupMaxSize: 2 });
      const { members, generationId } = await h.stableGroup(G, 2);
      const r = await h.join(G, { clientId: 'third' });
      expect(r).to.deep.include({ errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED, memberId: '' });
      expect(await h.describe(G)).to.deep.include({ state: 'Stable', generationId });
      expect((await h.heartbeat(G, members[0]!, generationId)).errorCode).to.equal(ErrorCode.NONE);
      // a member rejoining is taken
      const again = h.join(G, { memberId: members[0]! });
      await h.settle();
      expect((await h.describe(G)).state).to.equal('PreparingRebalance');
      const other = await h.join(G, { memberId: members[1]! });
      expect((await again).errorCode).to.equal(ErrorCode.NONE);
      expect(other).to.deep.include({ errorCode: ErrorCode.NONE, generationId: generationId + 1 });
    });

    it('a group over a lowered size: loaded, it rebalances; the first to rejoin stay, the last is turned away and removed', async () => {
      await start();
      const { members, generationId } = await h.stableGroup(G, 3);
      await h.settle();
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 1 });
      await h.control({ leaderEpoch: 1 });
      const other = h.spawnCoordinator({ brokerId: 2, classicGroupMaxSize: 2 });
      await h.become(0, 1, other);
      expect((await h.describe(G, other)).state).to.equal('PreparingRebalance');
      expect((await h.heartbeat(G, members[0]!, generationId, other)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      const a = h.join(G, { memberId: members[0]! }, other);
      const b = h.join(G, { memberId: members[1]! }, other);
      await h.settle();
      const c = await h.join(G, { memberId: members[2]! }, other);
      expect(c).to.deep.include({ errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED, memberId: '' });
      const [ra, rb] = await Promise.all([a, b]);
      expect(ra).to.deep.include({ errorCode: ErrorCode.NONE, generationId: generationId + 1 });
      expect(rb).to.deep.include({ errorCode: ErrorCode.NONE, generationId: generationId + 1 });
      expect((await h.describe(G, other)).members.map((m) => m.memberId)).to.have.members([members[0], members[1]]);
    });

    it('the default takes any number of members', async () => {
      await start();
      const { members } = await h.stableGroup(G, 5);
      expect(new Set(members).size).to.equal(5);
    });
  });

  describe('sync phase', () => {
    beforeEach(() => start());

    it('followers wait for the leader; the group is persisted before anyone gets an assignment; then Stable', async () => {
      const a = await h.join(G);
      const bJoin = h.join(G);
      await h.settle();
      const [ra, rb] = await Promise.all([h.join(G, { memberId: a.memberId }), bJoin]);
      const follower = h.sync(G, rb.memberId, rb.generationId);
      expect(await h.peek(follower)).to.equal('pending');
      await h.control({ holdProduce: true });
      const leader = h.sync(G, ra.memberId, ra.generationId, [
        { memberId: ra.memberId, assignment: Buffer.from('for-a') },
        { memberId: rb.memberId, assignment: Buffer.from('for-b') },
      ]);
      expect(await h.peek(leader)).to.equal('pending');
      expect(await h.peek(follower)).to.equal('pending');
      // the group metadata record is in the log before the answers
      const stored = (await h.dump()).records.filter((r) => r.key.kind === 'group');
      expect(stored).to.have.length(1);
      const value = stored[0]!.groupValue!;
      expect(value).to.deep.include({ protocolType: 'consumer', generation: ra.generationId, protocol: 'range', leader: ra.memberId });
      expect(value.members.map((m) => [m.memberId, Buffer.from(m.assignment).toString()])).to.have.deep.members([
        [ra.memberId, 'for-a'],
        [rb.memberId, 'for-b'],
      ]);
      await h.control({ holdProduce: false, releaseProduces: true });
      const [sa, sb] = await Promise.all([leader, follower]);
      expect(sa).to.deep.include({ errorCode: 0, protocolType: 'consumer', protocolName: 'range' });
      expect(Buffer.from(sa.assignment).toString()).to.equal('for-a');
      expect(Buffer.from(sb.assignment).toString()).to.equal('for-b');
      const d = await h.describe(G);
      expect(d).to.deep.include({ state: 'Stable', generationId: ra.generationId, protocolName: 'range', leader: ra.memberId });
      expect(d.members.map((m) => Buffer.from(m.assignment).toString())).to.have.members(['for-a', 'for-b']);
      // a late sync in Stable gets its assignment at once
      expect(Buffer.from((await h.sync(G, rb.memberId, rb.generationId)).assignment).toString()).to.equal('for-b');
    });

    it('a failed store of the assignment fails the waiting syncs and starts a new rebalance', async () => {
      const a = await h.join(G);
      await h.control({ failProduce: ErrorCode.NOT_ENOUGH_REPLICAS });
      const s = await h.sync(G, a.memberId, a.generationId, [{ memberId: a.memberId, assignment: Buffer.from('x') }]);
      expect(s.errorCode).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      expect((await h.describe(G)).state).to.equal('PreparingRebalance');
      await h.control({ failProduce: null });
      const again = await h.join(G, { memberId: a.memberId });
      expect(again.generationId).to.equal(a.generationId + 1);
    });

    it('sync errors: unknown member, illegal generation, rebalance in progress, inconsistent protocol', async () => {
      const a = await h.join(G);
      expect((await h.sync(G, 'ghost', a.generationId)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.sync(G, a.memberId, a.generationId + 5)).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
      expect((await h.sync('nope', a.memberId, 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      const wrong = await h.ask<SyncGroupResponse>({ type: 'SyncGroup', groupId: G, memberId: a.memberId, generationId: a.generationId, protocolName: 'sticky', assignments: [] });
      expect(wrong.errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      const bJoin = h.join(G);
      await h.settle();
      expect((await h.sync(G, a.memberId, a.generationId)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      await h.join(G, { memberId: a.memberId });
      await bJoin;
    });

    it('removes members that send no SyncGroup within the rebalance timeout and rebalances', async () => {
      const a = await h.join(G, { rebalanceTimeoutMs: 10_000 });
      const bJoin = h.join(G, { rebalanceTimeoutMs: 10_000 });
      await h.settle();
      const [ra, rb] = await Promise.all([h.join(G, { memberId: a.memberId, rebalanceTimeoutMs: 10_000 }), bJoin]);
      await h.sync(G, ra.memberId, ra.generationId, [{ memberId: ra.memberId, assignment: Buffer.from('a') }]);
      // b never syncs; a keeps heartbeating
      await h.clock.advanceAsync(5_000);
      expect((await h.heartbeat(G, ra.memberId, ra.generationId)).errorCode).to.equal(ErrorCode.NONE);
      await h.clock.advanceAsync(5_000);
      await h.settle();
      expect((await h.describe(G)).members.map((m) => m.memberId)).to.deep.equal([ra.memberId]);
      expect((await h.heartbeat(G, ra.memberId, ra.generationId)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      expect((await h.heartbeat(G, rb.memberId, rb.generationId)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });
  });

  describe('heartbeats, leaving, session expiry', () => {
    beforeEach(() => start());

    it('answers heartbeats by state: CompletingRebalance NONE, Stable NONE, PreparingRebalance REBALANCE_IN_PROGRESS, Empty UNKNOWN_MEMBER_ID', async () => {
      const a = await h.join(G);
      expect((await h.heartbeat(G, a.memberId, a.generationId)).errorCode).to.equal(ErrorCode.NONE);
      await h.sync(G, a.memberId, a.generationId, [{ memberId: a.memberId, assignment: Buffer.from('a') }]);
      expect((await h.describe(G)).state).to.equal('Stable');
      expect((await h.heartbeat(G, a.memberId, a.generationId)).errorCode).to.equal(ErrorCode.NONE);
      const bJoin = h.join(G);
      await h.settle();
      expect((await h.heartbeat(G, a.memberId, a.generationId)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      await h.join(G, { memberId: a.memberId });
      const b = await bJoin;
      expect((await h.leave(G, a.memberId)).errorCode).to.equal(ErrorCode.NONE);
      expect((await h.leave(G, b.memberId)).errorCode).to.equal(ErrorCode.NONE);
      await h.settle();
      expect((await h.describe(G)).state).to.equal('Empty');
      expect((await h.heartbeat(G, a.memberId, a.generationId)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('answers ILLEGAL_GENERATION for another generation and UNKNOWN_MEMBER_ID for a stranger', async () => {
      const { members: [a], generationId } = await h.stableGroup(G, 1);
      expect((await h.heartbeat(G, a!, generationId - 1)).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
      expect((await h.heartbeat(G, a!, generationId + 1)).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
      expect((await h.heartbeat(G, 'stranger', generationId)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.heartbeat('no-group', a!, generationId)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('several members leaving at once (LeaveGroup v3+): each answered on its own, the known ones removed; an unknown group knows none of them', async () => {
      const { members: [a, b, c] } = await h.stableGroup(G, 3);
      const r = await h.ask<LeaveGroupResponse>({ type: 'LeaveGroup', groupId: G, members: [{ memberId: a! }, { memberId: 'stranger' }, { memberId: c! }] });
      expect(r).to.deep.include({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberErrors: [ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.NONE] });
      expect((await h.describe(G)).members.map((m) => m.memberId)).to.deep.equal([b]);
      const none = await h.ask<LeaveGroupResponse>({ type: 'LeaveGroup', groupId: 'no-group', members: [{ memberId: 'x' }, { memberId: 'y' }] });
      expect(none.memberErrors).to.deep.equal([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID]);
    });

    it('a member leaving a stable group starts a rebalance; the rest form the next generation; the last to leave empties the group', async () => {
      const { members: [a, b], generationId } = await h.stableGroup(G, 2);
      expect((await h.leave(G, b!)).errorCode).to.equal(ErrorCode.NONE);
      expect((await h.describe(G)).state).to.equal('PreparingRebalance');
      const ra = await h.join(G, { memberId: a! });
      expect(ra.generationId).to.equal(generationId + 1);
      expect(ra.members.map((m) => m.memberId)).to.deep.equal([a]);
      expect((await h.leave(G, 'stranger')).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.leave(G, a!)).errorCode).to.equal(ErrorCode.NONE);
      await h.settle();
      const d = await h.describe(G);
      expect(d.state).to.equal('Empty');
      expect(d.generationId).to.equal(generationId + 2);
      // the empty generation was persisted too
      const groups = (await h.dump()).records.filter((r) => r.key.kind === 'group');
      expect(groups.at(-1)!.groupValue).to.deep.include({ generation: generationId + 2, protocol: null, leader: null, members: [] });
    });

    it('evicts a member whose session expires (FakeClock) and rebalances the rest', async () => {
      const { members: [a, b], generationId } = await h.stableGroup(G, 2, { sessionTimeoutMs: 10_000 });
      await h.clock.advanceAsync(6_000);
      expect((await h.heartbeat(G, a!, generationId)).errorCode).to.equal(ErrorCode.NONE);
      await h.clock.advanceAsync(5_000);
      await h.settle();
      // b missed its session; a did not
      const d = await h.describe(G);
      expect(d.state).to.equal('PreparingRebalance');
      expect(d.members.map((m) => m.memberId)).to.deep.equal([a]);
      expect((await h.heartbeat(G, b!, generationId)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.heartbeat(G, a!, generationId)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      const ra = await h.join(G, { memberId: a!, sessionTimeoutMs: 10_000 });
      expect(ra.generationId).to.equal(generationId + 1);
      expect(ra.members).to.have.length(1);
    });

    it('drops a member given an id by MEMBER_ID_REQUIRED that never joins with it', async () => {
      const { members: [a], generationId } = await h.stableGroup(G, 1);
      const pending = await h.join(G, { requireKnownMemberId: true, sessionTimeoutMs: 5_000 });
      expect(pending.errorCode).to.equal(ErrorCode.MEMBER_ID_REQUIRED);
      await h.clock.advanceAsync(5_000);
      expect((await h.join(G, { memberId: pending.memberId })).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.heartbeat(G, a!, generationId)).errorCode).to.equal(ErrorCode.NONE);
    });
  });

  describe('offsets', () => {
    beforeEach(() => start());

    it('commits outside group management (generation -1, no member) and fetches them back', async () => {
      const r = await h.commit(G, { 't-0': 10, 't-1': 20, 'u-0': 5 });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      expect(r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))).to.deep.equal([0, 0, 0]);
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 10, 't-1': 20, 'u-0': 5 });
      const one = await h.fetch(G, [{ name: 't', partitions: [1, 7] }]);
      expect(one.topics[0]!.partitions).to.deep.equal([
        { partition: 1, offset: 20, leaderEpoch: 0, metadata: 'm20', errorCode: 0 },
        { partition: 7, offset: -1, leaderEpoch: -1, metadata: '', errorCode: 0 },
      ]);
      expect((await h.fetch('unknown-group', [{ name: 't', partitions: [0] }])).topics[0]!.partitions[0]!.offset).to.equal(-1);
      const g = await h.describe(G);
      expect(g).to.deep.include({ state: 'Empty', protocolType: '' });
      // one batch per commit, acks=all
      const records = (await h.dump()).records;
      expect(records.map((x) => x.offsetValue!.offset)).to.deep.equal([10, 20, 5]);
    });

    it('commits from members of the current generation; later commits win', async () => {
      const { members: [a], generationId } = await h.stableGroup(G, 1);
      expect((await h.commit(G, { 't-0': 1 }, generationId, a!)).errorCode).to.equal(0);
      expect((await h.commit(G, { 't-0': 2 }, generationId, a!)).errorCode).to.equal(0);
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 2 });
      expect((await h.commit(G, { 't-0': 3 }, -1, '')).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.commit(G, { 't-0': 3 }, generationId, 'stranger')).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await h.commit('no-group', { 't-0': 3 }, 4, 'x')).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
    });

    it('a commit of the previous generation fails with ILLEGAL_GENERATION once a rebalance completed', async () => {
      const { members: [a], generationId } = await h.stableGroup(G, 1);
      const bJoin = h.join(G);
      await h.settle();
      // during the join phase the generation has not moved: the member may still commit
      expect((await h.commit(G, { 't-0': 7 }, generationId, a!)).errorCode).to.equal(ErrorCode.NONE);
      const ra = await h.join(G, { memberId: a! });
      await bJoin;
      // the generation moved on: a's commit for the old one fails
      const late = await h.commit(G, { 't-0': 8 }, generationId, a!);
      expect(late.topics[0]!.partitions[0]!.errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
      // before SyncGroup completes, a commit of the new generation is told to wait
      expect((await h.commit(G, { 't-0': 8 }, ra.generationId, a!)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 7 });
    });

    it('answers a commit only after the append succeeded, and maps append errors to Kafka\'s codes', async () => {
      await h.control({ holdProduce: true });
      const c = h.commit(G, { 't-0': 1 });
      expect(await h.peek(c)).to.equal('pending');
      expect(await h.fetched(G)).to.deep.equal({});
      await h.control({ holdProduce: false, releaseProduces: true });
      expect((await c).errorCode).to.equal(0);
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 1 });
      const cases: [number, number][] = [
        [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_COORDINATOR],
        [ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
        [ErrorCode.REQUEST_TIMED_OUT, ErrorCode.COORDINATOR_NOT_AVAILABLE],
        [ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.INVALID_COMMIT_OFFSET_SIZE],
      ];
      for (const [appendError, expected] of cases) {
        await h.control({ failProduce: appendError });
        const r = await h.commit(G, { 't-0': 99 });
        expect(r.topics[0]!.partitions[0]!.errorCode, `append error ${appendError}`).to.equal(expected);
      }
      await h.control({ failProduce: null });
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 1 });
      expect(commitErrorFor(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND)).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      expect(groupStoreErrorFor(ErrorCode.REQUEST_TIMED_OUT)).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      expect(groupStoreErrorFor(ErrorCode.MESSAGE_TOO_LARGE)).to.equal(ErrorCode.UNKNOWN_SERVER_ERROR);
      // the three writers share how a lost leadership or missing replicas read, and differ on the rest
      for (const f of [commitErrorFor, groupStoreErrorFor, consumerWriteErrorFor]) {
        expect(f(ErrorCode.NONE)).to.equal(ErrorCode.NONE);
        expect(f(ErrorCode.FENCED_LEADER_EPOCH)).to.equal(ErrorCode.NOT_COORDINATOR);
        expect(f(ErrorCode.NOT_ENOUGH_REPLICAS)).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      }
      expect(commitErrorFor(ErrorCode.REQUEST_TIMED_OUT)).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      expect(commitErrorFor(ErrorCode.RECORD_LIST_TOO_LARGE)).to.equal(ErrorCode.INVALID_COMMIT_OFFSET_SIZE);
      expect(commitErrorFor(ErrorCode.OFFSET_METADATA_TOO_LARGE)).to.equal(ErrorCode.OFFSET_METADATA_TOO_LARGE);
      expect(consumerWriteErrorFor(ErrorCode.REQUEST_TIMED_OUT)).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      expect(consumerWriteErrorFor(ErrorCode.MESSAGE_TOO_LARGE)).to.equal(ErrorCode.UNKNOWN_SERVER_ERROR);
    });

    it('follows the log order when append answers overtake each other: a tombstone after a commit wins', async () => {
      await h.commit(G, { 't-0': 1 });
      await h.control({ holdProduce: true });
      const c = h.commit(G, { 't-0': 2 });
      await h.settle();
      const d = h.offsetDelete(G, [{ name: 't', partitions: [0] }]);
      await h.settle();
      await h.control({ holdProduce: false, releaseProducesReversed: true });
      expect((await c).errorCode).to.equal(0);
      expect((await d).topics[0]!.partitions[0]!.errorCode).to.equal(0);
      expect(await h.fetched(G)).to.deep.equal({});
      const other = h.spawnCoordinator({ brokerId: 2 });
      await h.become(0, 0, other);
      expect(await h.fetched(G, other)).to.deep.equal({});
    });

    it('refuses metadata over offset.metadata.max.bytes per partition and stores the rest', async () => {
      const r = await h.ask<{ topics: { partitions: { errorCode: number }[] }[] }>({
        type: 'OffsetCommit',
        groupId: G,
        generationId: -1,
        memberId: '',
        topics: [{ name: 't', partitions: [{ partition: 0, offset: 1, metadata: 'x'.repeat(4097) }, { partition: 1, offset: 2, metadata: 'ok' }] }],
      });
      expect(r.topics[0]!.partitions.map((p) => p.errorCode)).to.deep.equal([ErrorCode.OFFSET_METADATA_TOO_LARGE, 0]);
      expect(await h.fetched(G)).to.deep.equal({ 't-1': 2 });
    });
  });

  describe('ownership of offsets partitions', () => {
    it('answers COORDINATOR_LOAD_IN_PROGRESS while loading (heartbeats blindly NONE, SyncGroup REBALANCE_IN_PROGRESS), NOT_COORDINATOR for partitions not led here', async () => {
      h = new CoordinatorHarness(2);
      h.spawnCoordinator();
      expect((await h.join(G)).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      await h.control({ holdReads: true }, 0);
      await h.control({ holdReads: true }, 1);
      h.sys.send(h.coord, { type: 'BecomeCoordinator', partition: 0, leaderEpoch: 0 });
      h.sys.send(h.coord, { type: 'BecomeCoordinator', partition: 1, leaderEpoch: 0 });
      await h.settle();
      expect((await h.join(G)).errorCode).to.equal(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      expect((await h.commit(G, { 't-0': 1 })).errorCode).to.equal(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      expect((await h.fetch(G, null)).errorCode).to.equal(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      expect((await h.heartbeat(G, 'm', 1)).errorCode).to.equal(ErrorCode.NONE);
      expect((await h.sync(G, 'm', 1)).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      expect((await h.describe(G)).errorCode).to.equal(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      expect((await h.listGroups()).errorCode).to.equal(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      await h.control({ holdReads: false, releaseReads: true }, 0);
      await h.control({ holdReads: false, releaseReads: true }, 1);
      await h.waitActive(0);
      await h.waitActive(1);
      expect((await h.join(G)).errorCode).to.equal(ErrorCode.NONE);
    });

    it('gives up a partition it was told to coordinate but has no replica of; its groups are listed meanwhile', async () => {
      await start();
      await h.stableGroup(G, 1);
      h.sys.send(h.coord, { type: 'BecomeCoordinator', partition: 7, leaderEpoch: 0 });
      await h.settle();
      await checkFor(async () => !(await h.describeCoordinator()).partitions.some((p) => p.partition === 7), 5_000);
      const listed = await h.listGroups();
      expect(listed.errorCode).to.equal(ErrorCode.NONE);
      expect(listed.groups.map((g) => g.groupId)).to.include(G);
    });

    it('on ResignCoordinator answers waiting requests NOT_COORDINATOR, stops its timers and forgets the groups', async () => {
      await start();
      const { members: [a], generationId } = await h.stableGroup(G, 1);
      const bJoin = h.join(G);
      await h.control({ holdProduce: true });
      const commit = h.commit('other', { 't-0': 1 });
      await h.settle();
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 1 });
      expect((await bJoin).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      expect((await commit).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      expect((await h.heartbeat(G, a!, generationId)).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      expect((await h.fetch(G, null)).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      expect((await h.describeCoordinator()).partitions).to.deep.equal([]);
      // no session timer is left to fire
      await h.clock.advanceAsync(60_000);
      expect((await h.listGroups()).groups).to.deep.equal([]);
    });

    it('ignores a stale ResignCoordinator and a repeated BecomeCoordinator of the same epoch', async () => {
      await start();
      await h.commit(G, { 't-0': 3 });
      await h.control({ leaderEpoch: 5 });
      h.sys.send(h.coord, { type: 'BecomeCoordinator', partition: 0, leaderEpoch: 5 });
      await h.waitActive(0);
      expect((await h.describeCoordinator()).partitions[0]!.leaderEpoch).to.equal(5);
      const reads = (await h.dump()).reads;
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 4 });
      h.sys.send(h.coord, { type: 'BecomeCoordinator', partition: 0, leaderEpoch: 5 });
      await h.settle();
      expect((await h.dump()).reads).to.equal(reads);
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 3 });
    });

    it('replays the partition after re-election: offsets, a stable group with members and assignments, and an empty group', async () => {
      await start();
      const { members, generationId } = await h.stableGroup(G, 2);
      await h.commit(G, { 't-0': 5, 't-1': 6 }, generationId, members[0]!);
      await h.commit(G, { 't-0': 9 }, generationId, members[1]!);
      await h.commit('simple', { 'x-3': 33 });
      const e = await h.join('emptied');
      await h.sync('emptied', e.memberId, e.generationId, [{ memberId: e.memberId, assignment: Buffer.from('e') }]);
      await h.commit('emptied', { 'y-0': 1 }, e.generationId, e.memberId);
      await h.leave('emptied', e.memberId);
      await h.settle();
      const before = await h.describe(G);

      // another broker's coordinator takes over the same log
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 1 });
      await h.control({ leaderEpoch: 1 });
      const other = h.spawnCoordinator({ brokerId: 2 });
      await h.become(0, 1, other);
      expect(await h.fetched(G, other)).to.deep.equal({ 't-0': 9, 't-1': 6 });
      expect(await h.fetched('simple', other)).to.deep.equal({ 'x-3': 33 });
      expect(await h.fetched('emptied', other)).to.deep.equal({ 'y-0': 1 });
      const after = await h.describe(G, other);
      expect(after).to.deep.include({ state: 'Stable', generationId, protocolName: 'range', leader: before.leader });
      expect(after.members.map((m) => [m.memberId, Buffer.from(m.assignment).toString()])).to.have.deep.members(
        before.members.map((m) => [m.memberId, Buffer.from(m.assignment).toString()]),
      );
      expect((await h.describe('emptied', other)).state).to.equal('Empty');
      // the members carry on with their generation
      expect((await h.heartbeat(G, members[1]!, generationId, other)).errorCode).to.equal(ErrorCode.NONE);
      expect(Buffer.from((await h.sync(G, members[1]!, generationId, [], other)).assignment).toString()).to.equal(`assigned-to-${members[1]}`);
      // a loaded member that does not heartbeat any more is evicted after its session timeout
      await h.clock.advanceAsync(6_000);
      expect((await h.heartbeat(G, members[1]!, generationId, other)).errorCode).to.equal(ErrorCode.NONE);
      await h.clock.advanceAsync(5_000);
      await h.settle();
      const evicted = await h.describe(G, other);
      expect(evicted.state).to.equal('PreparingRebalance');
      expect(evicted.members.map((m) => m.memberId)).to.deep.equal([members[1]]);
    });

    it('loads from the log start when retention removed a prefix, and waits for the high watermark', async () => {
      await start();
      await h.commit(G, { 't-0': 1 });
      await h.commit(G, { 't-0': 2 });
      await h.commit(G, { 't-1': 3 });
      await h.control({ truncateBefore: 1 });
      // the new leader's high watermark lags its log end: the last commit is not visible yet
      await h.control({ hwLag: 1 });
      const other = h.spawnCoordinator({ brokerId: 2 });
      h.sys.send(other, { type: 'BecomeCoordinator', partition: 0, leaderEpoch: 0 });
      await h.settle();
      expect((await h.describeCoordinator(other)).partitions[0]!.status).to.equal('Loading');
      expect((await h.join(G, {}, other)).errorCode).to.equal(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
      // the followers catch up: the load reads up to the log end it saw at takeover
      await h.control({ hwLag: 0 });
      await h.clock.advanceAsync(100);
      await h.waitActive(0, other);
      expect(await h.fetched(G, other)).to.deep.equal({ 't-0': 2, 't-1': 3 });
    });
  });

  describe('admin', () => {
    beforeEach(() => start());

    it('lists groups (optionally by state) and describes them', async () => {
      await h.stableGroup(G, 2);
      await h.commit('simple', { 't-0': 1 });
      const all = await h.listGroups();
      expect(all.errorCode).to.equal(0);
      expect(all.groups).to.have.deep.members([
        { groupId: G, protocolType: 'consumer', state: 'Stable', groupType: 'classic' },
        { groupId: 'simple', protocolType: '', state: 'Empty', groupType: 'classic' },
      ]);
      expect((await h.listGroups(['stable'])).groups.map((g) => g.groupId)).to.deep.equal([G]);
      const d = await h.describe(G);
      expect(d.members).to.have.length(2);
      expect(d.members[0]).to.include({ clientId: 'c', clientHost: '/127.0.0.1' });
      expect(Buffer.from(d.members[0]!.metadata)).to.deep.equal(Buffer.from(sub('t')));
      // as Kafka 4.0's coordinator: not found, Dead (DescribeGroups v0-v5 answer it with no error)
      expect(await h.describe('never-seen')).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group never-seen not found.', state: 'Dead', members: [] });
      expect((await h.describe(G)).errorMessage).to.equal(null);
    });

    it('deletes only empty groups (NON_EMPTY_GROUP otherwise), writing tombstones that a replay honours', async () => {
      await h.stableGroup(G, 1);
      await h.commit(G, { 't-0': 1 }, 1, (await h.describe(G)).members[0]!.memberId);
      await h.commit('simple', { 't-0': 4, 'u-2': 5 });
      const r = await h.deleteGroups([G, 'simple', 'missing']);
      expect(r.groups).to.deep.equal([
        { groupId: G, errorCode: ErrorCode.NON_EMPTY_GROUP },
        { groupId: 'simple', errorCode: 0 },
        { groupId: 'missing', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
      ]);
      expect(await h.fetched('simple')).to.deep.equal({});
      expect(await h.describe('simple')).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, state: 'Dead' });
      const tail = (await h.dump()).records.slice(-3);
      expect(tail.map((x) => [x.key.kind, x.key.kind === 'offset' ? x.offsetValue : x.groupValue])).to.deep.equal([
        ['offset', null],
        ['offset', null],
        ['group', null],
      ]);
      const other = h.spawnCoordinator({ brokerId: 2 });
      await h.become(0, 0, other);
      expect(await h.fetched('simple', other)).to.deep.equal({});
      expect(await h.fetched(G, other)).to.deep.equal({ 't-0': 1 });
    });

    it('deletes offsets of an empty group, and of topics a consumer group no longer subscribes to (GROUP_SUBSCRIBED_TO_TOPIC otherwise)', async () => {
      const { members: [a], generationId } = await h.stableGroup(G, 1);
      await h.commit(G, { 't-0': 1, 'old-0': 2 }, generationId, a!);
      const r = await h.offsetDelete(G, [
        { name: 't', partitions: [0] },
        { name: 'old', partitions: [0] },
      ]);
      expect(r.errorCode).to.equal(0);
      expect(r.topics.map((t) => [t.name, t.partitions[0]!.errorCode])).to.deep.equal([
        ['t', ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC],
        ['old', 0],
      ]);
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 1 });
      await h.commit('simple', { 'x-0': 1 });
      expect((await h.offsetDelete('simple', [{ name: 'x', partitions: [0] }])).topics[0]!.partitions[0]!.errorCode).to.equal(0);
      // an empty group left without offsets is gone
      expect((await h.describe('simple')).state).to.equal('Dead');
      expect((await h.offsetDelete('missing', [{ name: 'x', partitions: [0] }])).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    });
  });

  describe('retention and bounded growth', () => {
    const DAY = 24 * 3600_000;

    it('expires offsets of an empty group offsets.retention.minutes after it became empty, with tombstones; the dead group goes too', async () => {
      await start(1, { offsetsRetentionMs: DAY, offsetsRetentionCheckIntervalMs: 60_000, groupMaxSessionTimeoutMs: 10 * DAY });
      const { members: [a], generationId } = await h.stableGroup(G, 1, { sessionTimeoutMs: 10 * DAY });
      await h.commit(G, { 't-0': 1 }, generationId, a!);
      await h.commit('simple', { 'x-0': 5 });
      await h.clock.advanceAsync(DAY / 2);
      await h.leave(G, a!);
      await h.settle();
      // the simple group's offset is a day old; the consumer group only became empty half a day ago
      await h.clock.advanceAsync(DAY / 2 + 60_000);
      await h.settle();
      expect((await h.describe('simple')).state).to.equal('Dead');
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 1 });
      await h.clock.advanceAsync(DAY / 2);
      await h.settle();
      expect(await h.fetched(G)).to.deep.equal({});
      expect((await h.describe(G)).state).to.equal('Dead');
      const other = h.spawnCoordinator({ brokerId: 2 });
      await h.become(0, 0, other);
      expect((await h.listGroups()).groups).to.deep.equal([]);
      expect(await h.fetched(G, other)).to.deep.equal({});
    });

    it('expires an offset committed with its own retention time (OffsetCommit v2-v4) at that time, stored with value version 1', async () => {
      await start(1, { offsetsRetentionMs: DAY, offsetsRetentionCheckIntervalMs: 60_000 });
      const r = await h.ask<OffsetCommitResponse>({
        type: 'OffsetCommit',
        groupId: 'short',
        generationId: -1,
        memberId: '',
        retentionTimeMs: 3_600_000,
        topics: [{ name: 'x', partitions: [{ partition: 0, offset: 9 }] }],
      });
      expect(r.topics[0]!.partitions[0]!.errorCode).to.equal(0);
      await h.commit('short', { 'y-0': 4 });
      const written = (await h.dump()).records.filter((x) => x.key.kind === 'offset');
      expect(written.map((x) => [x.key.kind === 'offset' ? x.key.topic : '', x.valueVersion, x.offsetValue!.expireTimestamp > 0])).to.deep.equal([
        ['x', 1, true],
        ['y', 3, false],
      ]);
      await h.clock.advanceAsync(3_600_000 + 60_000);
      await h.settle();
      expect(await h.fetched('short')).to.deep.equal({ 'y-0': 4 });
    });

    it('keeps the offsets of a stable consumer group for the topics it subscribes to', async () => {
      await start(1, { offsetsRetentionMs: DAY, offsetsRetentionCheckIntervalMs: 60_000, groupMaxSessionTimeoutMs: 10 * DAY });
      const { members: [a], generationId } = await h.stableGroup(G, 1, { sessionTimeoutMs: 10 * DAY });
      await h.commit(G, { 't-0': 1, 'gone-0': 2 }, generationId, a!);
      await h.clock.advanceAsync(DAY + 60_000);
      await h.settle();
      expect(await h.fetched(G)).to.deep.equal({ 't-0': 1 });
    });

    it('rewrites live keys before retention could delete their only record, so a log cut at the retention boundary replays everything', async () => {
      const retention = 8 * 3600_000;
      await start(1, { offsetsRetentionMs: retention, offsetsRetentionCheckIntervalMs: 600_000, groupMaxSessionTimeoutMs: 10 * DAY });
      const { members: [a], generationId } = await h.stableGroup(G, 1, { sessionTimeoutMs: 10 * DAY });
      await h.commit(G, { 't-0': 1, 't-1': 2 }, generationId, a!);
      await h.commit(G, { 't-0': 3 }, generationId, a!);
      const before = await h.dump();
      // a quarter of the retention later, the aging keys are written again (same values)
      await h.clock.advanceAsync(retention / 4 + 600_000);
      await h.settle();
      const after = await h.dump();
      const rewritten = after.records.slice(before.records.length);
      expect(rewritten.map((r) => (r.key.kind === 'offset' ? `${r.key.topic}-${r.key.partition}=${r.offsetValue!.offset}` : `group ${r.groupValue!.generation}`))).to.have.members([
        't-0=3',
        't-1=2',
        `group ${generationId}`,
      ]);
      // commit timestamps are kept: expiry still counts from the real commit
      expect(rewritten.filter((r) => r.offsetValue).every((r) => r.offsetValue!.commitTimestamp < r.timestamp)).to.equal(true);
      // nothing is rewritten again before it ages once more
      await h.clock.advanceAsync(600_000);
      await h.settle();
      expect((await h.dump()).records).to.have.length(after.records.length);
      // retention drops every record older than the retention: a replay still finds the live keys
      await h.clock.advanceAsync(retention);
      await h.settle();
      const now = h.clock.now();
      const kept = (await h.dump()).records.filter((r) => r.timestamp >= now - retention);
      await h.control({ truncateBefore: kept[0]!.offset });
      const other = h.spawnCoordinator({ brokerId: 2 });
      await h.become(0, 0, other);
      expect(await h.fetched(G, other)).to.deep.equal({ 't-0': 3, 't-1': 2 });
      expect(await h.describe(G, other)).to.deep.include({ state: 'Stable', generationId });
    });
  });

  it('a join that is still waiting when the same member joins again gets REBALANCE_IN_PROGRESS', async () => {
    await start();
    const { members: [a, b] } = await h.stableGroup(G, 2);
    const first = h.join(G, { memberId: b! });
    const changed = h.join(G, { memberId: b!, protocols: [{ name: 'range', metadata: sub('z') }] });
    await h.settle();
    // the first (same metadata) got the current generation at once; the second started a rebalance
    expect(((await first) as JoinGroupResponse).errorCode).to.equal(0);
    const again = h.join(G, { memberId: b!, protocols: [{ name: 'range', metadata: sub('z') }] });
    expect((await changed).errorCode).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
    await h.join(G, { memberId: a! });
    expect((await again).errorCode).to.equal(0);
  });
});
