/**
 * Classic members of a consumer group on their own (classic-members.ts over consumer-group.ts),
 * one test per legal and illegal step as Kafka's GroupMetadataManager takes them: which JoinGroup
 * protocols the group supports, the JoinGroup as a heartbeat (subscription and owned partitions
 * from the Subscription, no epoch check, a static member taking its instance over), the member
 * lookup of SyncGroup / Heartbeat / LeaveGroup, the SyncGroup checks, when a Heartbeat says to
 * join again, the Assignment it hands out, and its offset commits.
 */
import { expect } from 'chai';
import {
  classicJoinHeartbeat,
  classicMustRejoin,
  classicSyncProblem,
  encodeClassicAssignment,
  findClassicMember,
  isClassicError,
  subscriptionVersion,
  supportsClassicProtocols,
  waitingOnUnreleasedPartition,
  type ClassicJoin,
} from '../../../actors/group-coordinator/classic-members.js';
import { ConsumerGroup, MemberState, type ConsumerMember, type HeartbeatEnv, type TopicInfo } from '../../../actors/group-coordinator/consumer-group.js';
import { decodeAssignment, encodeSubscription } from '../../../actors/group-coordinator/consumer-protocol.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const T = 'AAAAAAAAAAAAAAAAAAAAAg';

describe('actors/group-coordinator classic-members', () => {
  let topics: Map<string, TopicInfo>;
  let ids: number;
  let g: ConsumerGroup;
  const topic = (n: string) => topics.get(n);
  const env = (): HeartbeatEnv => ({ topic, maxSize: 100, newMemberId: () => `m${++ids}` });
  const sub = (owned: number[] = [], version = 1) => encodeSubscription({ version, topics: ['t'], ownedPartitions: owned.length > 0 ? [{ topic: 't', partitions: owned }] : [] });
  const join = (o: Partial<ClassicJoin> = {}): ClassicJoin => ({
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: sub() }],
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    clientId: 'c',
    clientHost: '/h',
    ...o,
  });
  /** A classic JoinGroup applied to the group: the member as it is now. */
  function classicJoin(o: Partial<ClassicJoin> = {}): ConsumerMember {
    const req = classicJoinHeartbeat(g, join(o), topic);
    if (isClassicError(req)) throw new Error(`refused: ${req.errorCode}`);
    const r = g.heartbeat(req, env());
    if (r.kind !== 'ok') throw new Error(`refused: ${r.errorCode} ${r.errorMessage}`);
    return r.member!;
  }
  /** A consumer-protocol member's join. */
  function consumerJoin(owned: number[] = []): ConsumerMember {
    const r = g.heartbeat(
      { memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, ownedTopicPartitions: [{ topicId: T, partitions: owned }], clientId: 'c', clientHost: '/h' },
      env(),
    );
    if (r.kind !== 'ok') throw new Error('refused');
    return r.member!;
  }
  const parts = (m: ConsumerMember) => [...(m.assigned.get(T) ?? [])].sort((a, b) => a - b);

  beforeEach(() => {
    topics = new Map([['t', { topicId: T, name: 't', numPartitions: 4 }]]);
    ids = 0;
    g = new ConsumerGroup('g');
  });

  describe('supportsClassicProtocols (INCONSISTENT_GROUP_PROTOCOL otherwise)', () => {
    it('an empty group takes any consumer member with protocols; never another protocol type', () => {
      expect(supportsClassicProtocols(g, 'consumer', ['range'])).to.equal(true);
      expect(supportsClassicProtocols(g, 'consumer', [])).to.equal(false);
      expect(supportsClassicProtocols(g, 'connect', ['range'])).to.equal(false);
    });

    it('a group takes a protocol every classic member supports; consumer-protocol members do not count', () => {
      consumerJoin();
      expect(supportsClassicProtocols(g, 'consumer', ['anything'])).to.equal(true);
      classicJoin({ protocols: [{ name: 'range', metadata: sub() }, { name: 'roundrobin', metadata: sub() }] });
      classicJoin({ protocols: [{ name: 'roundrobin', metadata: sub() }] });
      expect(supportsClassicProtocols(g, 'consumer', ['range'])).to.equal(false);
      expect(supportsClassicProtocols(g, 'consumer', ['sticky', 'roundrobin'])).to.equal(true);
      const req = classicJoinHeartbeat(g, join({ memberId: 'x' }), topic);
      expect(isClassicError(req) && req.errorCode).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    });
  });

  describe('JoinGroup as a heartbeat', () => {
    it('a new member: subscribed from its Subscription, its classic metadata kept, the epoch bumped and a target computed', () => {
      const m = classicJoin();
      expect(m.memberId).to.equal('m1');
      expect(m.subscribedTopicNames).to.deep.equal(['t']);
      expect(m.classic).to.deep.equal({ sessionTimeoutMs: 10_000, supportedProtocols: [{ name: 'range', metadata: sub() }] });
      expect(m.memberEpoch).to.equal(1);
      expect(parts(m)).to.deep.equal([0, 1, 2, 3]);
      expect(g.numClassicMembers).to.equal(1);
    });

    it('an unknown member id joins as a new member (no UNKNOWN_MEMBER_ID), and a known one with a stale epoch is not fenced', () => {
      const m = classicJoin({ memberId: 'given' });
      expect(m.memberId).to.equal('given');
      consumerJoin();
      // the classic member's epoch is behind the group's: its join is taken anyway
      const again = classicJoin({ memberId: 'given', protocols: [{ name: 'range', metadata: sub([0, 1, 2, 3]) }] });
      expect(again.memberId).to.equal('given');
    });

    it('partitions it reports in its Subscription are revoked first; reported gone, it moves to the new epoch', () => {
      const a = classicJoin();
      consumerJoin();
      const kept = classicJoin({ memberId: a.memberId, protocols: [{ name: 'range', metadata: sub([0, 1, 2, 3]) }] });
      expect(kept.state).to.equal(MemberState.UnrevokedPartitions);
      expect(kept.memberEpoch).to.equal(1);
      expect(classicMustRejoin(g, kept)).to.equal(true);
      const moved = classicJoin({ memberId: a.memberId, protocols: [{ name: 'range', metadata: sub(parts(kept)) }] });
      expect(moved.memberEpoch).to.equal(2);
      expect(moved.state).to.equal(MemberState.Stable);
      expect(classicMustRejoin(g, moved)).to.equal(false);
    });

    it('an eager member (owning nothing when it rejoins) moves to the new epoch at once', () => {
      const a = classicJoin();
      consumerJoin();
      const m = classicJoin({ memberId: a.memberId });
      expect(m.memberEpoch).to.equal(2);
    });

    it('a static member without a member id takes its instance over, even from a consumer-protocol member that did not leave', () => {
      const first = classicJoin({ groupInstanceId: 'i' });
      const r = g.heartbeat(classicJoinHeartbeat(g, join({ groupInstanceId: 'i' }), topic) as never, env());
      expect(r.kind === 'ok' && r.replacedMemberId).to.equal(first.memberId);
      expect(g.members.has(first.memberId)).to.equal(false);
      const other = g.heartbeat(
        { memberId: '', memberEpoch: 0, instanceId: 'k', rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, ownedTopicPartitions: [], clientId: 'c', clientHost: '/h' },
        env(),
      );
      const byClassic = g.heartbeat(classicJoinHeartbeat(g, join({ groupInstanceId: 'k' }), topic) as never, env());
      expect(byClassic.kind === 'ok' && byClassic.replacedMemberId).to.equal(other.kind === 'ok' && other.memberId);
      expect(byClassic.kind === 'ok' && byClassic.member?.classic).to.not.equal(null);
      // a static member with a member id that is not the instance's: FENCED_INSTANCE_ID
      const fenced = g.heartbeat(classicJoinHeartbeat(g, join({ groupInstanceId: 'i', memberId: 'other' }), topic) as never, env());
      expect(fenced.kind === 'error' && fenced.errorCode).to.equal(ErrorCode.FENCED_INSTANCE_ID);
    });

    it('a Subscription that does not decode is UNKNOWN_SERVER_ERROR (Kafka: IllegalStateException)', () => {
      const req = classicJoinHeartbeat(g, join({ protocols: [{ name: 'range', metadata: new Uint8Array([0]) }] }), topic);
      expect(isClassicError(req) && req.errorCode).to.equal(ErrorCode.UNKNOWN_SERVER_ERROR);
    });
  });

  describe('SyncGroup, Heartbeat, LeaveGroup', () => {
    it('findClassicMember: UNKNOWN_MEMBER_ID for unknown and consumer-protocol members, FENCED_INSTANCE_ID for another instance holder', () => {
      const c = consumerJoin();
      const s = classicJoin({ groupInstanceId: 'i' });
      expect((findClassicMember(g, 'nobody', null) as { errorCode: number }).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((findClassicMember(g, c.memberId, null) as { errorCode: number }).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((findClassicMember(g, 'x', 'i') as { errorCode: number }).errorCode).to.equal(ErrorCode.FENCED_INSTANCE_ID);
      expect((findClassicMember(g, 'x', 'j') as { errorCode: number }).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect((findClassicMember(g, s.memberId, 'i') as ConsumerMember).memberId).to.equal(s.memberId);
    });

    it('classicSyncProblem: ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL, REBALANCE_IN_PROGRESS unless it has partitions to revoke', () => {
      const a = classicJoin();
      expect(classicSyncProblem(g, a, a.memberEpoch, 'consumer', 'range')).to.equal(null);
      expect(classicSyncProblem(g, a, a.memberEpoch, null, null)).to.equal(null);
      expect(classicSyncProblem(g, a, a.memberEpoch + 1, 'consumer', 'range')).to.equal(ErrorCode.ILLEGAL_GENERATION);
      expect(classicSyncProblem(g, a, a.memberEpoch, 'connect', 'range')).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect(classicSyncProblem(g, a, a.memberEpoch, 'consumer', 'sticky')).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      consumerJoin();
      expect(classicSyncProblem(g, g.members.get(a.memberId)!, a.memberEpoch, 'consumer', 'range')).to.equal(ErrorCode.REBALANCE_IN_PROGRESS);
      const revoking = classicJoin({ memberId: a.memberId, protocols: [{ name: 'range', metadata: sub([0, 1, 2, 3]) }] });
      expect(classicSyncProblem(g, revoking, revoking.memberEpoch, 'consumer', 'range')).to.equal(null);
    });

    it('classicMustRejoin: behind the group epoch, revoking, or its awaited partitions free; not while they are still owned', () => {
      const c = consumerJoin();
      expect(parts(g.members.get(c.memberId)!)).to.deep.equal([0, 1, 2, 3]);
      const a = classicJoin();
      // c still owns a's share: a waits for it
      expect(a.state).to.equal(MemberState.UnreleasedPartitions);
      expect(waitingOnUnreleasedPartition(g, a)).to.equal(true);
      expect(classicMustRejoin(g, a)).to.equal(false);
      // c revokes (reports only what it keeps): a must join again to get the rest
      const cKeeps = [...g.targetAssignment.get(c.memberId)!.get(T)!];
      g.heartbeat({ memberId: c.memberId, memberEpoch: 1, instanceId: null, rackId: null, rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, ownedTopicPartitions: [{ topicId: T, partitions: cKeeps }], clientId: 'c', clientHost: '/h' }, env());
      expect(waitingOnUnreleasedPartition(g, g.members.get(a.memberId)!)).to.equal(false);
      expect(classicMustRejoin(g, g.members.get(a.memberId)!)).to.equal(true);
      const a2 = classicJoin({ memberId: a.memberId });
      expect(a2.state).to.equal(MemberState.Stable);
      expect(classicMustRejoin(g, a2)).to.equal(false);
    });

    it("the Assignment handed out is of the Subscription's version (at most 3), topics by name, unknown ids left out", () => {
      const bytes = encodeClassicAssignment(new Map([[T, new Set([2, 0])], ['gone', new Set([1])]]), subscriptionVersion(sub([], 1)), (id) => (id === T ? 't' : undefined));
      expect(decodeAssignment(bytes)).to.deep.equal({ version: 1, partitions: [{ topic: 't', partitions: [0, 2] }], userData: null });
      expect(subscriptionVersion(encodeSubscription({ version: 0, topics: ['t'] }))).to.equal(0);
      expect(subscriptionVersion(new Uint8Array([0, 9]))).to.equal(3);
    });

    it('a classic member commits with any OffsetCommit version and its epoch (ILLEGAL_GENERATION when stale); a consumer member needs v9 (STALE_MEMBER_EPOCH)', () => {
      const a = classicJoin();
      const c = consumerJoin();
      expect(g.validateOffsetCommit(a.memberId, a.memberEpoch, false, 2)).to.equal(null);
      expect(g.validateOffsetCommit(a.memberId, a.memberEpoch - 1, false, 8)).to.equal(ErrorCode.ILLEGAL_GENERATION);
      expect(g.validateOffsetCommit(c.memberId, c.memberEpoch, false, 8)).to.equal(ErrorCode.UNSUPPORTED_VERSION);
      expect(g.validateOffsetCommit(c.memberId, c.memberEpoch - 1, false, 9)).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
    });
  });
});
