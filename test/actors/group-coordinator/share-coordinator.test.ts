/**
 * KIP-932 share groups in the group coordinator actor (coordinator-harness.ts: a FakeClock and a
 * fake offsets-partition replica): ShareGroupHeartbeat's joins, heartbeats and leaves with the
 * member's own id, the heartbeat interval and session timeout (broker settings and group
 * configs), group.share.max.size, the ShareGroupMetadata record written before the answer and a
 * second coordinator continuing from it, ShareGroupDescribe, ListGroups' types, DeleteGroups,
 * housekeeping, and share groups next to classic and consumer groups under one id.
 */
import { expect } from 'chai';
import type {
  ConsumerGroupHeartbeatResponse,
  ConsumerTopicInfo,
  CoordinatorMsg,
  ListGroupsResponse,
  ShareGroupDescribeResponse,
  ShareGroupHeartbeatResponse,
} from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { ShareRecordType } from '../../../actors/group-coordinator/offsets-store.js';
import { shareMetadataHash } from '../../../actors/group-coordinator/share-group.js';
import { checkFor } from '../../helpers/check-for.js';
import { CoordinatorHarness, consumerHeartbeat, shareHeartbeat, type ShareHeartbeatMsg } from './coordinator-harness.js';

const G = 'sg';
const T = 'AAAAAAAAAAAAAAAAAAAAAg';
const DAY = 24 * 3600_000;

describe('actors/group-coordinator share groups in the coordinator', function () {
  this.timeout(30_000);
  let h: CoordinatorHarness;
  let topics: ConsumerTopicInfo[];
  let metadataDown: boolean;

  async function start(args: ConstructorParameters<typeof CoordinatorHarness>[1] = {}): Promise<void> {
    topics = [{ topicId: T, name: 't', numPartitions: 4 }];
    metadataDown = false;
    h = new CoordinatorHarness(1, {
      consumerTopicMetadata: async (names) => (metadataDown ? null : topics.filter((t) => names === null || names.includes(t.name))),
      ...args,
    });
    h.spawnCoordinator();
    await h.become(0, 0);
  }

  afterEach(async () => {
    await h?.stop();
  });

  /** A join of `memberId` to `groupId` (epoch 0, subscribed to 't'), with `o` over it. */
  const join = (memberId: string, o: Partial<ShareHeartbeatMsg> = {}, groupId = G, to?: ActorRef<CoordinatorMsg>) =>
    h.ask<ShareGroupHeartbeatResponse>(shareHeartbeat(groupId, memberId, o), to);
  /** A heartbeat of a member at its epoch, subscription unchanged. */
  const beat = (memberId: string, memberEpoch: number, groupId = G, to?: ActorRef<CoordinatorMsg>) =>
    h.ask<ShareGroupHeartbeatResponse>(shareHeartbeat(groupId, memberId, { memberEpoch, subscribedTopicNames: null }), to);
  const leave = (memberId: string, groupId = G) => beat(memberId, -1, groupId);
  const shareDescribe = async (groupId = G, to?: ActorRef<CoordinatorMsg>) => (await h.ask<ShareGroupDescribeResponse>({ type: 'ShareGroupDescribe', groups: [groupId] }, to)).groups[0]!;
  const list = (o: { statesFilter?: string[]; typesFilter?: string[] } = {}, to?: ActorRef<CoordinatorMsg>) => h.ask<ListGroupsResponse>({ type: 'ListGroups', ...o }, to);
  /** The ShareGroupMetadata records in the log, in order: [group, epoch (null: tombstone)]. */
  const shareRecords = async () =>
    (await h.dump()).records.flatMap((r) => {
      if (r.key.kind !== 'share-group' || r.key.record !== ShareRecordType.Metadata) return [];
      return [[r.key.group, r.shareValue?.record === ShareRecordType.Metadata ? r.shareValue.value.epoch : null]];
    });
  /** Every share group record from log offset `from` on, in order: [record type, member id or '-', value (null: tombstone)]. */
  const shareLog = async (from = 0) =>
    (await h.dump()).records
      .filter((r) => r.offset >= from && r.key.kind === 'share-group')
      .map((r) => (r.key.kind === 'share-group' ? [r.key.record, r.key.memberId ?? '-', r.shareValue?.value ?? null] : []));
  const logEnd = async () => (await h.dump()).logEndOffset;
  const parts = (r: ShareGroupHeartbeatResponse) => (r.assignment ?? []).flatMap((t) => t.partitions).sort((a, b) => a - b);

  describe('heartbeats', () => {
    beforeEach(() => start());

    it('a join (epoch 0, the member names its id) gets epoch 1, the heartbeat interval and every partition of its topic; a second member moves the group epoch and splits them; a heartbeat at the current epoch gets no assignment', async () => {
      const a = await join('member-a');
      expect(a).to.deep.equal({
        type: 'ShareGroupHeartbeatResponse',
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        memberId: 'member-a',
        memberEpoch: 1,
        heartbeatIntervalMs: 5_000,
        assignment: [{ topicId: T, partitions: [0, 1, 2, 3] }],
      });
      const b = await join('member-b');
      expect(b).to.deep.include({ errorCode: ErrorCode.NONE, memberId: 'member-b', memberEpoch: 2 });
      expect(b.assignment).to.deep.equal([{ topicId: T, partitions: [2, 3] }]);
      // a, still at epoch 1, moves to the group's epoch and keeps the other half
      const a2 = await beat('member-a', 1);
      expect(a2).to.deep.include({ errorCode: ErrorCode.NONE, memberEpoch: 2 });
      expect(a2.assignment).to.deep.equal([{ topicId: T, partitions: [0, 1] }]);
      const a3 = await beat('member-a', 2);
      expect(a3).to.deep.include({ errorCode: ErrorCode.NONE, memberId: 'member-a', memberEpoch: 2, heartbeatIntervalMs: 5_000, assignment: null });
      expect((await shareDescribe()).groupEpoch).to.equal(2);
    });

    it("a group's share.heartbeat.interval.ms (GroupConfigsChanged) replaces the broker's for that group only", async () => {
      const a = await join('a');
      const other = await join('o', {}, 'other');
      expect(a.heartbeatIntervalMs).to.equal(5_000);
      h.sys.send(h.coord, { type: 'GroupConfigsChanged', configs: { [G]: { 'share.heartbeat.interval.ms': '7000' } } });
      expect((await beat('a', a.memberEpoch)).heartbeatIntervalMs).to.equal(7_000);
      expect((await beat('o', other.memberEpoch, 'other')).heartbeatIntervalMs).to.equal(5_000);
      // the group's config removed: the broker's again
      h.sys.send(h.coord, { type: 'GroupConfigsChanged', configs: {} });
      expect((await beat('a', a.memberEpoch)).heartbeatIntervalMs).to.equal(5_000);
    });

    it("group.share.heartbeat.interval.ms (shareGroupHeartbeatIntervalMs) is the broker's interval", async () => {
      await h.stop();
      await start({ shareGroupHeartbeatIntervalMs: 3_000 });
      expect((await join('a')).heartbeatIntervalMs).to.equal(3_000);
    });

    it('the topic metadata cannot be read: COORDINATOR_NOT_AVAILABLE, nothing joined or written', async () => {
      metadataDown = true;
      expect((await join('a')).errorCode).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      metadataDown = false;
      expect(await shareRecords()).to.deep.equal([]);
      expect((await join('a')).memberEpoch).to.equal(1);
    });

    it('group.share.max.size (shareGroupMaxSize): a new member beyond it gets GROUP_MAX_SIZE_REACHED; a member already in rejoins', async () => {
      await h.stop();
      await start({ shareGroupMaxSize: 1 });
      expect((await join('a')).errorCode).to.equal(ErrorCode.NONE);
      expect((await join('b')).errorCode).to.equal(ErrorCode.GROUP_MAX_SIZE_REACHED);
      expect(await join('a')).to.deep.include({ errorCode: ErrorCode.NONE, memberEpoch: 1 });
      const d = await shareDescribe();
      expect(d.members.map((m) => m.memberId)).to.deep.equal(['a']);
      expect(d.groupEpoch).to.equal(1);
    });
  });

  describe('the share group records', () => {
    beforeEach(() => start());

    it('a join writes, in one append, Kafka 4.2\'s member metadata, group epoch (with the topics\' hash), target assignment, target epoch and current assignment', async () => {
      const produces = (await h.dump()).produces;
      await join('a', { rackId: 'r1', clientId: 'client-a', clientHost: '/10.0.0.1' });
      expect((await h.dump()).produces).to.equal(produces + 1);
      const hash = shareMetadataHash(new Map([['t', topics[0]!]]));
      expect(await shareLog()).to.deep.equal([
        [ShareRecordType.MemberMetadata, 'a', { rackId: 'r1', clientId: 'client-a', clientHost: '/10.0.0.1', subscribedTopicNames: ['t'] }],
        [ShareRecordType.Metadata, '-', { epoch: 1, metadataHash: hash }],
        [ShareRecordType.TargetAssignmentMember, 'a', [{ topicId: T, partitions: [0, 1, 2, 3] }]],
        [ShareRecordType.TargetAssignmentMetadata, '-', { assignmentEpoch: 1 }],
        [ShareRecordType.CurrentMemberAssignment, 'a', { memberEpoch: 1, previousMemberEpoch: 0, state: 0, assigned: [{ topicId: T, partitions: [0, 1, 2, 3] }] }],
      ]);
      const stored = (await h.dump()).records.find((r) => r.key.kind === 'share-group' && r.key.record === ShareRecordType.Metadata)!;
      expect(stored.key).to.deep.equal({ kind: 'share-group', record: 11, group: G, memberId: null });
    });

    it('what changed and nothing else: a second member, the first taking its new target, a plain heartbeat writing nothing', async () => {
      await join('a');
      let from = await logEnd();
      await join('b');
      expect(await shareLog(from)).to.deep.equal([
        [ShareRecordType.MemberMetadata, 'b', { rackId: null, clientId: 'c', clientHost: '/127.0.0.1', subscribedTopicNames: ['t'] }],
        [ShareRecordType.Metadata, '-', { epoch: 2, metadataHash: shareMetadataHash(new Map([['t', topics[0]!]])) }],
        [ShareRecordType.TargetAssignmentMember, 'a', [{ topicId: T, partitions: [0, 1] }]],
        [ShareRecordType.TargetAssignmentMember, 'b', [{ topicId: T, partitions: [2, 3] }]],
        [ShareRecordType.TargetAssignmentMetadata, '-', { assignmentEpoch: 2 }],
        [ShareRecordType.CurrentMemberAssignment, 'b', { memberEpoch: 2, previousMemberEpoch: 0, state: 0, assigned: [{ topicId: T, partitions: [2, 3] }] }],
      ]);
      from = await logEnd();
      await beat('a', 1);
      expect(await shareLog(from)).to.deep.equal([[ShareRecordType.CurrentMemberAssignment, 'a', { memberEpoch: 2, previousMemberEpoch: 1, state: 0, assigned: [{ topicId: T, partitions: [0, 1] }] }]]);
      const produces = (await h.dump()).produces;
      await beat('a', 2);
      await beat('b', 2);
      expect((await h.dump()).produces).to.equal(produces);
    });

    it('a leave writes tombstones of the member\'s three records, the group epoch and the others\' new targets', async () => {
      await join('a');
      await join('b');
      const from = await logEnd();
      await leave('b');
      expect(await shareLog(from)).to.deep.equal([
        [ShareRecordType.CurrentMemberAssignment, 'b', null],
        [ShareRecordType.TargetAssignmentMember, 'b', null],
        [ShareRecordType.MemberMetadata, 'b', null],
        [ShareRecordType.Metadata, '-', { epoch: 3, metadataHash: shareMetadataHash(new Map([['t', topics[0]!]])) }],
        [ShareRecordType.TargetAssignmentMember, 'a', [{ topicId: T, partitions: [0, 1, 2, 3] }]],
        [ShareRecordType.TargetAssignmentMetadata, '-', { assignmentEpoch: 3 }],
      ]);
    });

    it('a heartbeat is answered only once the record is written', async () => {
      await h.control({ holdProduce: true });
      const a = join('a');
      expect(await h.peek(a)).to.equal('pending');
      // the record is in the log; its append is not answered yet
      expect(await shareRecords()).to.deep.equal([[G, 1]]);
      await h.control({ holdProduce: false, releaseProduces: true });
      expect(await a).to.deep.include({ errorCode: ErrorCode.NONE, memberId: 'a', memberEpoch: 1 });
    });

    it('a failed write answers the heartbeat with NOT_COORDINATOR when the replica no longer leads (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH)', async () => {
      await h.control({ failProduce: ErrorCode.NOT_LEADER_OR_FOLLOWER });
      expect(await join('a')).to.deep.include({ errorCode: ErrorCode.NOT_COORDINATOR, memberId: null, assignment: null });
      await h.control({ failProduce: ErrorCode.FENCED_LEADER_EPOCH });
      expect((await join('b')).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      await h.control({ failProduce: null });
      expect(await shareRecords()).to.deep.equal([]);
    });

    it('a failed write answers COORDINATOR_NOT_AVAILABLE when the replica could not take it (NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT)', async () => {
      await h.control({ failProduce: ErrorCode.NOT_ENOUGH_REPLICAS });
      expect((await join('a')).errorCode).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      await h.control({ failProduce: ErrorCode.REQUEST_TIMED_OUT });
      expect((await join('b')).errorCode).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      await h.control({ failProduce: null });
      expect(await shareRecords()).to.deep.equal([]);
    });

    it('after a failed write, the next heartbeat writes the group epoch it answers with (as Kafka, whose failed write leaves nothing behind)', async () => {
      await h.control({ failProduce: ErrorCode.NOT_LEADER_OR_FOLLOWER });
      expect((await join('a')).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      await h.control({ failProduce: null });
      // the member retries its join
      const a = await join('a');
      expect(a).to.deep.include({ errorCode: ErrorCode.NONE, memberEpoch: 1 });
      expect(await shareRecords()).to.deep.equal([[G, a.memberEpoch]]);
    });
  });

  describe('leaving and request errors', () => {
    beforeEach(() => start());

    it('a leave (epoch -1) answers epoch -1, moves the group epoch (written) and gives the remaining member every partition', async () => {
      await join('a');
      const b = await join('b');
      expect(b.memberEpoch).to.equal(2);
      expect(parts(await beat('a', 1))).to.deep.equal([0, 1]);
      const left = await leave('b');
      expect(left).to.deep.include({ errorCode: ErrorCode.NONE, errorMessage: null, memberId: 'b', memberEpoch: -1, assignment: null });
      const d = await shareDescribe();
      expect(d).to.deep.include({ groupEpoch: 3, assignmentEpoch: 3, groupState: 'Stable' });
      expect(d.members.map((m) => m.memberId)).to.deep.equal(['a']);
      expect((await shareRecords()).at(-1)).to.deep.equal([G, 3]);
      const a = await beat('a', 2);
      expect(a.memberEpoch).to.equal(3);
      expect(parts(a)).to.deep.equal([0, 1, 2, 3]);
      // b is gone
      expect((await beat('b', 2)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      // the last member leaving: Empty, at a new epoch
      expect((await leave('a')).memberEpoch).to.equal(-1);
      expect(await shareDescribe()).to.deep.include({ groupState: 'Empty', groupEpoch: 4, members: [] });
    });

    it('leaving as an unknown member is UNKNOWN_MEMBER_ID and changes nothing', async () => {
      await join('a');
      const produces = (await h.dump()).produces;
      expect((await leave('ghost')).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await beat('ghost', 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect(await shareDescribe()).to.deep.include({ groupEpoch: 1, groupState: 'Stable' });
      expect((await h.dump()).produces).to.equal(produces);
    });

    it('a heartbeat or a leave to a group that does not exist is GROUP_ID_NOT_FOUND; an empty group id is INVALID_REQUEST; no group is made', async () => {
      expect((await beat('a', 3)).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      expect((await leave('a')).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      expect(await join('a', {}, '')).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: "GroupId can't be empty." });
      expect((await join('a', {}, '  ')).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      // the state machine's own checks: a join without a member id or topics
      expect((await join('')).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect((await join('a', { subscribedTopicNames: [] })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect((await list()).groups).to.deep.equal([]);
      expect(await shareRecords()).to.deep.equal([]);
    });
  });

  describe('session timeouts', () => {
    it('a member without heartbeats for group.share.session.timeout.ms (45 s by default) is fenced: the epoch moves and is written; heartbeats keep the others', async () => {
      await start();
      await join('a');
      h.clock.advance(20_000);
      await join('b');
      h.clock.advance(24_999);
      await h.settle();
      // 44.999 s after a's join: nothing yet
      expect((await shareDescribe()).members.map((m) => m.memberId)).to.deep.equal(['a', 'b']);
      expect(await shareRecords()).to.deep.equal([
        [G, 1],
        [G, 2],
      ]);
      h.clock.advance(1);
      await h.settle();
      const d = await shareDescribe();
      expect(d.members.map((m) => m.memberId)).to.deep.equal(['b']);
      expect(d.groupEpoch).to.equal(3);
      expect(await shareRecords()).to.deep.equal([
        [G, 1],
        [G, 2],
        [G, 3],
      ]);
      expect((await beat('a', 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      // b heartbeats 44.999 s after it joined: its session starts again
      h.clock.advance(19_999);
      const b = await beat('b', 2);
      expect(b.memberEpoch).to.equal(3);
      expect(parts(b)).to.deep.equal([0, 1, 2, 3]);
      h.clock.advance(44_999);
      await h.settle();
      expect((await shareDescribe()).groupState).to.equal('Stable');
      h.clock.advance(1);
      await h.settle();
      expect(await shareDescribe()).to.deep.include({ groupState: 'Empty', groupEpoch: 4 });
      expect((await shareRecords()).at(-1)).to.deep.equal([G, 4]);
    });

    it("shareGroupSessionTimeoutMs is the broker's session timeout; a group's share.session.timeout.ms replaces it from the next heartbeat", async () => {
      await start({ shareGroupSessionTimeoutMs: 10_000 });
      h.sys.send(h.coord, { type: 'GroupConfigsChanged', configs: { long: { 'share.session.timeout.ms': '60000' } } });
      await join('a');
      await join('x', {}, 'long');
      h.clock.advance(9_999);
      await h.settle();
      expect((await shareDescribe()).groupState).to.equal('Stable');
      h.clock.advance(1);
      await h.settle();
      expect((await shareDescribe()).groupState).to.equal('Empty');
      expect((await shareDescribe('long')).groupState).to.equal('Stable');
      h.clock.advance(49_999);
      await h.settle();
      expect((await shareDescribe('long')).groupState).to.equal('Stable');
      h.clock.advance(1);
      await h.settle();
      expect((await shareDescribe('long')).groupState).to.equal('Empty');
    });
  });

  describe('share.version', () => {
    beforeEach(() => start());

    it('at 0 (ShareVersionChanged) heartbeats and ShareGroupDescribe are UNSUPPORTED_VERSION, nothing written; the group stays, its members fenced as their sessions run out; at 1 they go on', async () => {
      await join('a');
      const produces = (await h.dump()).produces;
      h.sys.send(h.coord, { type: 'ShareVersionChanged', level: 0 });
      const refused = await beat('a', 1);
      expect(refused).to.deep.include({ errorCode: ErrorCode.UNSUPPORTED_VERSION, memberId: null, assignment: null });
      expect(refused.errorMessage).to.match(/share\.version is 0/);
      expect((await join('b')).errorCode).to.equal(ErrorCode.UNSUPPORTED_VERSION);
      expect(await shareDescribe()).to.deep.include({ groupId: G, errorCode: ErrorCode.UNSUPPORTED_VERSION, members: [] });
      expect((await h.dump()).produces).to.equal(produces);
      // still listed, as Kafka's ListGroups does
      expect((await list()).groups).to.deep.equal([{ groupId: G, protocolType: 'share', state: 'Stable', groupType: 'share' }]);
      h.clock.advance(45_000);
      await h.settle();
      h.sys.send(h.coord, { type: 'ShareVersionChanged', level: 1 });
      expect(await shareDescribe()).to.deep.include({ errorCode: ErrorCode.NONE, groupState: 'Empty', groupEpoch: 2 });
      expect((await beat('a', 1)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((await join('a')).memberEpoch).to.equal(3);
    });
  });

  describe('ShareGroupDescribe and ListGroups', () => {
    beforeEach(() => start());

    it('ShareGroupDescribe: state, epochs, the simple assignor, members with their assignments by topic name; GROUP_ID_NOT_FOUND for an unknown group and for a classic or consumer group', async () => {
      await join('a', { rackId: 'r1', clientId: 'client-a' });
      await join('b');
      // client id and host come with every heartbeat; the rack stays when not sent
      await h.ask<ShareGroupHeartbeatResponse>(shareHeartbeat(G, 'a', { memberEpoch: 1, subscribedTopicNames: null, clientId: 'client-a' }));
      await join('c', {}, 'empty');
      await leave('c', 'empty');
      await h.join('classic');
      await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat('cg', { subscribedTopicNames: ['t'] }));
      const r = await h.ask<ShareGroupDescribeResponse>({ type: 'ShareGroupDescribe', groups: [G, 'empty', 'none', 'classic', 'cg'] });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      const [d, empty, none, classic, cg] = r.groups;
      expect(d).to.deep.include({ groupId: G, errorCode: ErrorCode.NONE, errorMessage: null, groupState: 'Stable', groupEpoch: 2, assignmentEpoch: 2, assignorName: 'simple' });
      expect(d!.members).to.deep.equal([
        { memberId: 'a', rackId: 'r1', memberEpoch: 2, clientId: 'client-a', clientHost: '/127.0.0.1', subscribedTopicNames: ['t'], assignment: [{ topicId: T, topicName: 't', partitions: [0, 1] }] },
        { memberId: 'b', rackId: null, memberEpoch: 2, clientId: 'c', clientHost: '/127.0.0.1', subscribedTopicNames: ['t'], assignment: [{ topicId: T, topicName: 't', partitions: [2, 3] }] },
      ]);
      expect(empty).to.deep.include({ groupId: 'empty', errorCode: ErrorCode.NONE, groupState: 'Empty', groupEpoch: 2, members: [] });
      expect(none).to.deep.include({ groupId: 'none', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group none not found.' });
      expect(classic).to.deep.include({ groupId: 'classic', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group classic is not a share group.' });
      expect(cg).to.deep.include({ groupId: 'cg', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group cg is not a share group.' });
    });

    it("ListGroups lists a share group as groupType 'share', protocolType 'share', Stable or Empty; typesFilter picks group types; statesFilter still applies", async () => {
      await join('a');
      await join('e', {}, 'empty-share');
      await leave('e', 'empty-share');
      await h.join('classic');
      await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat('cg', { subscribedTopicNames: ['t'] }));
      const all = await list();
      expect(all.errorCode).to.equal(ErrorCode.NONE);
      expect(all.groups.find((g) => g.groupId === G)).to.deep.equal({ groupId: G, protocolType: 'share', state: 'Stable', groupType: 'share' });
      expect(all.groups.find((g) => g.groupId === 'empty-share')).to.deep.equal({ groupId: 'empty-share', protocolType: 'share', state: 'Empty', groupType: 'share' });
      const ids = async (o: { statesFilter?: string[]; typesFilter?: string[] }) => (await list(o)).groups.map((g) => g.groupId).sort();
      expect(await ids({})).to.deep.equal(['cg', 'classic', 'empty-share', G].sort());
      expect(await ids({ typesFilter: ['share'] })).to.deep.equal(['empty-share', G].sort());
      expect(await ids({ typesFilter: ['consumer'] })).to.deep.equal(['cg']);
      expect(await ids({ typesFilter: ['classic'] })).to.deep.equal(['classic']);
      expect(await ids({ typesFilter: ['share', 'consumer'] })).to.deep.equal(['cg', 'empty-share', G].sort());
      expect(await ids({ typesFilter: ['share'], statesFilter: ['Empty'] })).to.deep.equal(['empty-share']);
      expect(await ids({ typesFilter: ['share'], statesFilter: ['stable'] })).to.deep.equal([G]);
      expect(await ids({ statesFilter: ['Stable'] })).to.deep.equal(['cg', G].sort());
    });
  });

  describe('a share group and other group types under one id', () => {
    beforeEach(() => start());

    it('a share group refuses a JoinGroup (INCONSISTENT_GROUP_PROTOCOL), a ConsumerGroupHeartbeat, OffsetCommit and TxnOffsetCommit (GROUP_ID_NOT_FOUND); DescribeGroups says GROUP_ID_NOT_FOUND; empty or not', async () => {
      await join('a');
      for (const phase of ['with a member', 'empty']) {
        const j = await h.join(G);
        expect(j.errorCode, phase).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
        const c = await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat(G, { subscribedTopicNames: ['t'] }));
        expect(c, phase).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} is not a consumer group.` });
        const commit = await h.commit(G, { 't-0': 5 });
        expect(commit.errorCode, phase).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
        expect(commit.topics[0]!.partitions[0]!.errorCode, phase).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
        const commitAsMember = await h.commit(G, { 't-0': 5 }, 1, 'a');
        expect(commitAsMember.topics[0]!.partitions[0]!.errorCode, phase).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
        const txn = await h.txnCommit(G, 7, { 't-1': 3 });
        expect(txn.topics[0]!.partitions[0]!.errorCode, phase).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
        expect(await h.describe(G), phase).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, state: 'Dead', errorMessage: `Group ${G} is not a classic group.`, members: [] });
        await leave('a');
      }
      // nothing but the share group's records was written, and it is still a share group
      expect(await h.fetched(G)).to.deep.equal({});
      expect((await h.dump()).records.every((r) => r.key.kind === 'share-group')).to.equal(true);
      expect(await shareRecords()).to.deep.equal([
        [G, 1],
        [G, 2],
      ]);
      expect((await list()).groups).to.deep.equal([{ groupId: G, protocolType: 'share', state: 'Empty', groupType: 'share' }]);
    });

    it('a ShareGroupHeartbeat to a classic group with members, to one with committed offsets, or to a consumer group is GROUP_ID_NOT_FOUND "... is not a share group."; those groups stay as they were', async () => {
      const classic = await h.join('classic');
      await h.commit('offsets', { 't-0': 5 });
      await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat('cg', { subscribedTopicNames: ['t'] }));
      const emptyCg = await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat('empty-cg', { subscribedTopicNames: ['t'] }));
      await h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat('empty-cg', { memberId: emptyCg.memberId!, memberEpoch: -1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null }));
      const before = (await h.dump()).produces;
      for (const id of ['classic', 'offsets', 'cg', 'empty-cg']) {
        expect(await join('s', {}, id), id).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${id} is not a share group.` });
        expect((await beat('s', 1, id)).errorCode, id).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      }
      expect((await h.dump()).produces).to.equal(before);
      const listed = Object.fromEntries((await list()).groups.map((g) => [g.groupId, g.groupType]));
      expect(listed).to.deep.equal({ classic: 'classic', offsets: 'classic', cg: 'consumer', 'empty-cg': 'consumer' });
      expect((await h.describe('classic')).members.map((m) => m.memberId)).to.deep.equal([classic.memberId]);
      expect(await h.fetched('offsets')).to.deep.equal({ 't-0': 5 });
    });

    it('a ShareGroupHeartbeat while the first offset commit of a simple group is being written is GROUP_ID_NOT_FOUND (as Kafka: the group exists from the commit on)', async () => {
      await h.control({ holdProduce: true });
      const commit = h.commit(G, { 't-0': 5 });
      expect(await h.peek(commit)).to.equal('pending');
      const s = join('a');
      await h.settle();
      await h.control({ holdProduce: false, releaseProduces: true });
      expect((await commit).topics[0]!.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
      expect((await s).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      expect((await list()).groups).to.deep.equal([{ groupId: G, protocolType: '', state: 'Empty', groupType: 'classic' }]);
    });
  });

  describe('DeleteGroups and housekeeping', () => {
    it('DeleteGroups: NON_EMPTY_GROUP with members; once empty it is deleted with a tombstone of its record; then not found, and a new join starts a new group', async () => {
      await start();
      await join('a');
      expect((await h.deleteGroups([G])).groups).to.deep.equal([{ groupId: G, errorCode: ErrorCode.NON_EMPTY_GROUP }]);
      await leave('a');
      const from = await logEnd();
      expect((await h.deleteGroups([G])).groups).to.deep.equal([{ groupId: G, errorCode: ErrorCode.NONE }]);
      expect(await shareRecords()).to.deep.equal([
        [G, 1],
        [G, 2],
        [G, null],
      ]);
      expect(await shareLog(from)).to.deep.equal([
        [ShareRecordType.TargetAssignmentMetadata, '-', null],
        [ShareRecordType.Metadata, '-', null],
      ]);
      expect(await shareDescribe()).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} not found.` });
      expect((await list()).groups).to.deep.equal([]);
      expect((await h.deleteGroups([G])).groups).to.deep.equal([{ groupId: G, errorCode: ErrorCode.GROUP_ID_NOT_FOUND }]);
      expect((await beat('a', 2)).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
      // a coordinator loading the log finds no group either
      const other = h.spawnCoordinator({ brokerId: 2 });
      await h.become(0, 0, other);
      expect((await list({}, other)).groups).to.deep.equal([]);
      expect((await join('b', {}, G, other)).memberEpoch).to.equal(1);
    });

    it('an empty share group outlives offsets retention: housekeeping keeps it (and rewrites its record), as it drops an empty simple group', async () => {
      await start({ offsetsRetentionMs: DAY, offsetsRetentionCheckIntervalMs: 60_000 });
      await join('a');
      await leave('a');
      await h.commit('simple', { 't-0': 1 });
      await h.clock.advanceAsync(DAY + 120_000);
      await h.settle();
      const groups = (await list()).groups;
      expect(groups).to.deep.equal([{ groupId: G, protocolType: 'share', state: 'Empty', groupType: 'share' }]);
      expect(await shareDescribe()).to.deep.include({ errorCode: ErrorCode.NONE, groupState: 'Empty', groupEpoch: 2 });
      // rewritten as it aged (every quarter of the retention), so log retention never loses it
      const records = await shareRecords();
      expect(records.length).to.be.greaterThan(2);
      expect(records.every(([, epoch], i) => epoch === (i === 0 ? 1 : 2))).to.equal(true);
      // a member joins it again
      expect((await join('b')).memberEpoch).to.equal(3);
    });
  });

  describe('failover', () => {
    /** The coordinator resigns; a fresh one loads the partition at leader epoch 1. */
    async function moveCoordinator(): Promise<{ old: ActorRef<CoordinatorMsg>; fresh: ActorRef<CoordinatorMsg> }> {
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 1 });
      const old = h.coord;
      await h.control({ leaderEpoch: 1 });
      const fresh = h.spawnCoordinator();
      await h.become(0, 1, fresh);
      return { old, fresh };
    }

    it('a second coordinator loading the partition has the group as it was: members, epochs, assignments; they carry on without rejoining and nothing is written', async () => {
      await start();
      await join('a', { rackId: 'r1', clientId: 'client-a' });
      await join('b');
      expect((await beat('a', 1)).memberEpoch).to.equal(2);
      const before = await shareDescribe();
      const { old, fresh } = await moveCoordinator();
      expect((await beat('a', 2, G, old)).errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
      expect(await shareDescribe(G, fresh)).to.deep.equal(before);
      expect((await list({}, fresh)).groups).to.deep.equal([{ groupId: G, protocolType: 'share', state: 'Stable', groupType: 'share' }]);
      const produces = (await h.dump()).produces;
      expect(await beat('a', 2, G, fresh)).to.deep.include({ errorCode: ErrorCode.NONE, memberEpoch: 2, assignment: null });
      expect(await beat('b', 2, G, fresh)).to.deep.include({ errorCode: ErrorCode.NONE, memberEpoch: 2, assignment: null });
      expect((await h.dump()).produces).to.equal(produces);
      // still a share group there: the other types are refused
      expect((await h.join(G, {}, fresh)).errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      // a new member joins above the persisted epoch and the partitions are split three ways
      const c = await join('c', {}, G, fresh);
      expect(c).to.deep.include({ errorCode: ErrorCode.NONE, memberId: 'c', memberEpoch: 3 });
      expect((await shareRecords()).at(-1)).to.deep.equal([G, 3]);
    });

    it('a member that missed the answer moving it on is answered by the new coordinator at its previous epoch', async () => {
      await start();
      await join('a');
      await join('b');
      // a is moved to epoch 2 but its answer is lost with the old coordinator
      await beat('a', 1);
      const { fresh } = await moveCoordinator();
      expect(await beat('a', 1, G, fresh)).to.deep.include({ errorCode: ErrorCode.NONE, memberEpoch: 2, assignment: [{ topicId: T, partitions: [0, 1] }] });
    });

    it('loaded members\' sessions start again at the load: one that never comes back is fenced after the session timeout, over topics looked up then, and the other gets its partitions', async () => {
      await start();
      await join('a');
      await join('b');
      await beat('a', 1);
      const { fresh } = await moveCoordinator();
      h.clock.advance(20_000);
      expect((await beat('a', 2, G, fresh)).errorCode).to.equal(ErrorCode.NONE);
      // b never heartbeats the new coordinator: 45 s after the load it is fenced
      h.clock.advance(24_999);
      await h.settle();
      expect((await shareDescribe(G, fresh)).members.map((m) => m.memberId)).to.deep.equal(['a', 'b']);
      h.clock.advance(1);
      await checkFor(async () => (await shareDescribe(G, fresh)).members.length === 1, 5_000, 10);
      expect(await shareDescribe(G, fresh)).to.deep.include({ groupEpoch: 3, assignmentEpoch: 3 });
      const a = await beat('a', 2, G, fresh);
      expect(a.memberEpoch).to.equal(3);
      expect(parts(a)).to.deep.equal([0, 1, 2, 3]);
      expect((await beat('b', 2, G, fresh)).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('a fencing on a new coordinator whose metadata cannot be read goes on with what the group knew', async () => {
      await start();
      await join('a', { subscribedTopicNames: ['t'] });
      await join('b', { subscribedTopicNames: ['t'] });
      await beat('a', 1);
      const { fresh } = await moveCoordinator();
      metadataDown = true;
      h.clock.advance(45_000);
      await checkFor(async () => (await shareDescribe(G, fresh)).members.length === 0, 5_000, 10);
      // both fenced: Empty, two epochs on, and the records say so
      expect(await shareDescribe(G, fresh)).to.deep.include({ groupState: 'Empty', groupEpoch: 4 });
      expect((await shareRecords()).at(-1)).to.deep.equal([G, 4]);
    });

    it('the topic grew while the coordinator moved: the first heartbeat on the new one moves the group epoch and the members share the new partitions', async () => {
      await start();
      await join('a');
      await join('b');
      await beat('a', 1);
      const { fresh } = await moveCoordinator();
      topics = [{ topicId: T, name: 't', numPartitions: 6 }];
      const a = await beat('a', 2, G, fresh);
      expect(a.memberEpoch).to.equal(3);
      const b = await beat('b', 2, G, fresh);
      expect(b.memberEpoch).to.equal(3);
      expect([...parts(a), ...parts(b)].sort((x, y) => x - y)).to.deep.equal([0, 1, 2, 3, 4, 5]);
    });

    it('an empty group is loaded Empty at its epoch; a join goes on above it', async () => {
      await start();
      await join('a');
      await leave('a');
      const { fresh } = await moveCoordinator();
      expect(await shareDescribe(G, fresh)).to.deep.include({ errorCode: ErrorCode.NONE, groupState: 'Empty', groupEpoch: 2, members: [] });
      expect((await join('c', {}, G, fresh)).memberEpoch).to.equal(3);
    });
  });
});
