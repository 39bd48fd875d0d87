/**
 * The KIP-848 consumer group state machine on its own (consumer-group.ts): one test per legal
 * and illegal step of ConsumerGroupHeartbeat as Kafka's GroupMetadataManager and
 * CurrentAssignmentBuilder take them: joins, epochs, the target assignment, reconciliation
 * (revoke first, assign once released), leaves, static members, fencing, the group states, and
 * the offset commit / fetch checks.
 */
import { expect } from 'chai';
import { ConsumerGroup, ConsumerGroupState, MemberState, type ConsumerHeartbeat, type HeartbeatEnv, type TopicInfo } from '../../../actors/group-coordinator/consumer-group.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const T = 'AAAAAAAAAAAAAAAAAAAAAg';
const U = 'AAAAAAAAAAAAAAAAAAAAAw';

describe('actors/group-coordinator consumer-group', () => {
  let topics: Map<string, TopicInfo>;
  let ids: number;
  let g: ConsumerGroup;
  const env = (maxSize = 100): HeartbeatEnv => ({ topic: (n) => topics.get(n), maxSize, newMemberId: () => `m${++ids}` });

  function hb(o: Partial<ConsumerHeartbeat> = {}): ConsumerHeartbeat {
    return { memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, ownedTopicPartitions: [], clientId: 'c', clientHost: '/h', ...o };
  }
  function ok(r: ReturnType<ConsumerGroup['heartbeat']>) {
    if (r.kind !== 'ok') throw new Error(`expected ok, got ${r.errorCode}: ${r.errorMessage}`);
    return r;
  }
  const parts = (a: Map<string, Set<number>> | null | undefined, topicId = T) => [...(a?.get(topicId) ?? [])].sort((x, y) => x - y);
  const owned = (ps: number[], topicId = T) => [{ topicId, partitions: ps }];

  beforeEach(() => {
    topics = new Map([
      ['t', { topicId: T, name: 't', numPartitions: 4 }],
      ['u', { topicId: U, name: 'u', numPartitions: 2 }],
    ]);
    ids = 0;
    g = new ConsumerGroup('g');
  });

  it('starts Empty at epoch 0', () => {
    expect(g.state).to.equal(ConsumerGroupState.Empty);
    expect(g.groupEpoch).to.equal(0);
  });

  it('Empty -> Stable: the first member joins with epoch 0, gets an id, epoch 1 and every partition', () => {
    const r = ok(g.heartbeat(hb(), env()));
    expect(r.memberId).to.equal('m1');
    expect(r.memberEpoch).to.equal(1);
    expect(parts(r.assignment)).to.deep.equal([0, 1, 2, 3]);
    expect(g.groupEpoch).to.equal(1);
    expect(g.assignmentEpoch).to.equal(1);
    expect(g.state).to.equal(ConsumerGroupState.Stable);
    const d = g.takeDirty();
    expect(d.epoch && d.assignmentEpoch && d.subscriptionMetadata).to.equal(true);
    expect([...d.memberMetadata]).to.deep.equal(['m1']);
    expect([...d.currentAssignment]).to.deep.equal(['m1']);
  });

  it('a heartbeat with nothing changed keeps the epoch and sends no assignment', () => {
    const a = ok(g.heartbeat(hb(), env()));
    g.takeDirty();
    const r = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: null }), env()));
    expect(r.memberEpoch).to.equal(1);
    expect(r.assignment).to.equal(null);
    expect(g.groupEpoch).to.equal(1);
    const d = g.takeDirty();
    expect(d.epoch || d.memberMetadata.size > 0 || d.currentAssignment.size > 0).to.equal(false);
  });

  it('a second member: Stable -> Reconciling; the first is asked to revoke first and keeps its epoch until it does', () => {
    const a = ok(g.heartbeat(hb(), env()));
    const b = ok(g.heartbeat(hb(), env()));
    expect(g.groupEpoch).to.equal(2);
    // b's target partitions are still a's: it is at epoch 2 with nothing yet
    expect(b.memberEpoch).to.equal(2);
    expect(parts(b.assignment)).to.deep.equal([]);
    expect(g.members.get(b.memberId)!.state).to.equal(MemberState.UnreleasedPartitions);
    expect(g.state).to.equal(ConsumerGroupState.Reconciling);
    // a still reports all four: it is told to keep two (the rest to revoke), at epoch 1
    const a2 = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned([0, 1, 2, 3]) }), env()));
    expect(a2.memberEpoch).to.equal(1);
    expect(parts(a2.assignment)).to.have.length(2);
    const kept = parts(a2.assignment);
    expect(g.members.get(a.memberId)!.state).to.equal(MemberState.UnrevokedPartitions);
    // b asks again: nothing released yet
    const b2 = ok(g.heartbeat(hb({ memberId: b.memberId, memberEpoch: 2, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned([]) }), env()));
    expect(b2.assignment).to.equal(null);
    // a still owning one of the revoked: no progress
    const stillOwned = [...kept, [0, 1, 2, 3].find((p) => !kept.includes(p))!];
    const a3 = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned(stillOwned) }), env()));
    expect(a3.memberEpoch).to.equal(1);
    // a revoked: epoch 2, stable
    const a4 = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned(kept) }), env()));
    expect(a4.memberEpoch).to.equal(2);
    expect(g.members.get(a.memberId)!.state).to.equal(MemberState.Stable);
    // now b gets the released partitions
    const b3 = ok(g.heartbeat(hb({ memberId: b.memberId, memberEpoch: 2, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned([]) }), env()));
    expect(parts(b3.assignment)).to.deep.equal([0, 1, 2, 3].filter((p) => !kept.includes(p)));
    expect(g.state).to.equal(ConsumerGroupState.Stable);
  });

  it('a heartbeat that does not report its owned partitions is taken to still own the revoked ones', () => {
    const a = ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned([0, 1, 2, 3]) }), env()));
    const r = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: null }), env()));
    expect(r.memberEpoch).to.equal(1);
    expect(g.members.get(a.memberId)!.state).to.equal(MemberState.UnrevokedPartitions);
  });

  it('illegal: an unknown member heartbeating with an epoch > 0 is UNKNOWN_MEMBER_ID', () => {
    const r = g.heartbeat(hb({ memberId: 'nobody', memberEpoch: 3 }), env());
    expect(r).to.include({ kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
  });

  it('illegal: an epoch ahead of the member is FENCED_MEMBER_EPOCH', () => {
    const a = ok(g.heartbeat(hb(), env()));
    expect(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 5, subscribedTopicNames: null }), env())).to.include({ kind: 'error', errorCode: ErrorCode.FENCED_MEMBER_EPOCH });
  });

  it('illegal: an epoch behind is FENCED_MEMBER_EPOCH, unless it is the previous one with a subset of the assignment (a lost response)', () => {
    const a = ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb(), env()));
    const a2 = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned([0, 1, 2, 3]) }), env()));
    const kept = parts(a2.assignment);
    const a3 = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned(kept) }), env()));
    expect(a3.memberEpoch).to.equal(2);
    // the response with epoch 2 was lost: epoch 1 again with what it owns is fine
    expect(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned(kept) }), env()).kind).to.equal('ok');
    // epoch 1 with partitions it no longer has, or an older epoch: fenced
    expect(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: owned([0, 1, 2, 3]) }), env())).to.include({ kind: 'error', errorCode: ErrorCode.FENCED_MEMBER_EPOCH });
    expect(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 0, ownedTopicPartitions: [] }), env())).to.include({ kind: 'error', errorCode: ErrorCode.FENCED_MEMBER_EPOCH });
  });

  it('a changed subscription bumps the group epoch and computes a new target', () => {
    const a = ok(g.heartbeat(hb(), env()));
    const r = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: ['t', 'u'], rebalanceTimeoutMs: -1, ownedTopicPartitions: owned([0, 1, 2, 3]) }), env()));
    expect(g.groupEpoch).to.equal(2);
    expect(r.memberEpoch).to.equal(2);
    expect(parts(r.assignment, U)).to.deep.equal([0, 1]);
  });

  it('a topic metadata change (partitions added) bumps the group epoch on the next heartbeat', () => {
    const a = ok(g.heartbeat(hb(), env()));
    topics.set('t', { topicId: T, name: 't', numPartitions: 6 });
    const r = ok(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: null }), env()));
    expect(g.groupEpoch).to.equal(2);
    expect(parts(r.assignment)).to.deep.equal([0, 1, 2, 3, 4, 5]);
  });

  it('a subscription to a topic that does not exist yet gives nothing until it exists', () => {
    const r = ok(g.heartbeat(hb({ subscribedTopicNames: ['later'] }), env()));
    expect(parts(r.assignment)).to.deep.equal([]);
    topics.set('later', { topicId: U, name: 'later', numPartitions: 2 });
    const r2 = ok(g.heartbeat(hb({ memberId: r.memberId, memberEpoch: r.memberEpoch, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: null }), env()));
    expect(parts(r2.assignment, U)).to.deep.equal([0, 1]);
  });

  it('the range server assignor gives contiguous ranges in member order', () => {
    const a = ok(g.heartbeat(hb({ serverAssignor: 'range', instanceId: 'i1' }), env()));
    const b = ok(g.heartbeat(hb({ serverAssignor: 'range', instanceId: 'i2' }), env()));
    expect(g.preferredAssignor()).to.equal('range');
    expect(parts(g.targetAssignment.get(a.memberId))).to.deep.equal([0, 1]);
    expect(parts(g.targetAssignment.get(b.memberId))).to.deep.equal([2, 3]);
  });

  it('leave (-1): the member goes, the epoch is bumped, its partitions are free for the others', () => {
    const a = ok(g.heartbeat(hb(), env()));
    const b = ok(g.heartbeat(hb(), env()));
    const r = g.leave(a.memberId, null, -1);
    expect(r).to.include({ kind: 'ok', memberEpoch: -1, removed: true });
    expect(g.members.has(a.memberId)).to.equal(false);
    expect(g.groupEpoch).to.equal(3);
    expect(g.state).to.equal(ConsumerGroupState.Assigning);
    const b2 = ok(g.heartbeat(hb({ memberId: b.memberId, memberEpoch: 2, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: [] }), env()));
    expect(b2.memberEpoch).to.equal(3);
    expect(parts(b2.assignment)).to.deep.equal([0, 1, 2, 3]);
    expect([...g.takeDirty().removed]).to.deep.equal([a.memberId]);
  });

  it('Stable -> Empty when the last member leaves', () => {
    const a = ok(g.heartbeat(hb(), env()));
    g.leave(a.memberId, null, -1);
    expect(g.state).to.equal(ConsumerGroupState.Empty);
  });

  it('illegal: leaving as an unknown member is UNKNOWN_MEMBER_ID', () => {
    expect(g.leave('x', null, -1)).to.include({ kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
  });

  it('static member: -2 keeps it (and its partitions) at epoch -2; it rejoins under a new id with its assignment, the group epoch unchanged', () => {
    const a = ok(g.heartbeat(hb({ instanceId: 'i1' }), env()));
    const left = g.leave(a.memberId, 'i1', -2);
    expect(left).to.include({ kind: 'ok', memberEpoch: -2 });
    expect(g.members.get(a.memberId)!.memberEpoch).to.equal(-2);
    expect(g.currentPartitionEpoch(T, 0)).to.equal(-2);
    const epoch = g.groupEpoch;
    const r = ok(g.heartbeat(hb({ instanceId: 'i1' }), env()));
    expect(r.memberId).to.not.equal(a.memberId);
    expect(r.replacedMemberId).to.equal(a.memberId);
    expect(g.groupEpoch).to.equal(epoch);
    expect(r.memberEpoch).to.equal(epoch);
    expect(parts(r.assignment)).to.deep.equal([0, 1, 2, 3]);
    expect(g.members.has(a.memberId)).to.equal(false);
  });

  it('illegal: a static instance id still in use is UNRELEASED_INSTANCE_ID', () => {
    ok(g.heartbeat(hb({ instanceId: 'i1' }), env()));
    expect(g.heartbeat(hb({ instanceId: 'i1' }), env())).to.include({ kind: 'error', errorCode: ErrorCode.UNRELEASED_INSTANCE_ID });
  });

  it('illegal: a static member heartbeating under another member id is FENCED_INSTANCE_ID; an unknown instance id UNKNOWN_MEMBER_ID', () => {
    const a = ok(g.heartbeat(hb({ instanceId: 'i1' }), env()));
    expect(g.heartbeat(hb({ memberId: 'other', memberEpoch: 1, instanceId: 'i1' }), env())).to.include({ kind: 'error', errorCode: ErrorCode.FENCED_INSTANCE_ID });
    expect(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, instanceId: 'i9' }), env())).to.include({ kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
    expect(g.leave('other', 'i1', -2)).to.include({ kind: 'error', errorCode: ErrorCode.FENCED_INSTANCE_ID });
  });

  it('illegal: a full group refuses a new member with GROUP_MAX_SIZE_REACHED but takes its members', () => {
    const a = ok(g.heartbeat(hb(), env(1)));
    expect(g.heartbeat(hb(), env(1))).to.include({ kind: 'error', errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED });
    expect(g.heartbeat(hb({ memberId: a.memberId, memberEpoch: 1, subscribedTopicNames: null }), env(1)).kind).to.equal('ok');
  });

  it('fence (session or rebalance timeout) removes the member and bumps the epoch', () => {
    const a = ok(g.heartbeat(hb(), env()));
    expect(g.fence(a.memberId)).to.equal(true);
    expect(g.groupEpoch).to.equal(2);
    expect(g.fence(a.memberId)).to.equal(false);
  });

  it('Empty -> Dead when deleted', () => {
    g.markDead();
    expect(g.state).to.equal(ConsumerGroupState.Dead);
  });

  it('offset commits: members with their epoch through v9+; STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, UNSUPPORTED_VERSION; outsiders only while empty', () => {
    expect(g.validateOffsetCommit('', -1, false, 9)).to.equal(null);
    const a = ok(g.heartbeat(hb(), env()));
    expect(g.validateOffsetCommit(a.memberId, 1, false, 9)).to.equal(null);
    expect(g.validateOffsetCommit(a.memberId, 0, false, 9)).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
    expect(g.validateOffsetCommit(a.memberId, 1, false, 8)).to.equal(ErrorCode.UNSUPPORTED_VERSION);
    expect(g.validateOffsetCommit(a.memberId, 1, true, 3)).to.equal(null);
    expect(g.validateOffsetCommit('x', 1, false, 9)).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(g.validateOffsetCommit('', -1, false, 9)).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  describe('regular-expression subscriptions (ConsumerGroupHeartbeat v1)', () => {
    const R = 'AAAAAAAAAAAAAAAAAAAABA';
    /** What each expression matches among the topics now, as the coordinator hands it in. */
    const resolved = (entries: Record<string, string[]>): HeartbeatEnv => ({ ...env(), resolvedRegexes: new Map(Object.entries(entries).map(([r, ts]) => [r, new Set(ts)])) });
    const beat = (memberId: string, memberEpoch: number, o: Partial<ConsumerHeartbeat> = {}) =>
      hb({ memberId, memberEpoch, subscribedTopicNames: null, rebalanceTimeoutMs: -1, ownedTopicPartitions: null, ...o });

    beforeEach(() => {
      topics.set('orders-eu', { topicId: R, name: 'orders-eu', numPartitions: 2 });
    });

    it('a member joins with an expression (and no names): it gets the topics its resolution matched', () => {
      const r = ok(g.heartbeat(hb({ subscribedTopicNames: [], subscribedTopicRegex: 't|u' }), resolved({ 't|u': ['t', 'u'] })));
      expect(r.memberEpoch).to.equal(1);
      expect(parts(r.assignment)).to.deep.equal([0, 1, 2, 3]);
      expect(parts(r.assignment, U)).to.deep.equal([0, 1]);
      expect(g.members.get(r.memberId)!.subscribedTopicRegex).to.equal('t|u');
      expect([...g.subscriptionMetadata.keys()]).to.deep.equal(['t', 'u']);
      expect([...g.takeDirty().memberMetadata]).to.deep.equal([r.memberId]);
    });

    it('names and an expression together: the member gets both', () => {
      const r = ok(g.heartbeat(hb({ subscribedTopicNames: ['t'], subscribedTopicRegex: 'orders-.*' }), resolved({ 'orders-.*': ['orders-eu'] })));
      expect(parts(r.assignment)).to.deep.equal([0, 1, 2, 3]);
      expect(parts(r.assignment, R)).to.deep.equal([0, 1]);
    });

    it('a topic created that matches: the next resolution bumps the group epoch and assigns it', () => {
      const a = ok(g.heartbeat(hb({ subscribedTopicNames: [], subscribedTopicRegex: 'orders-.*' }), resolved({ 'orders-.*': ['orders-eu'] })));
      // the group's resolution stands without a fresh one: nothing changes
      ok(g.heartbeat(beat(a.memberId, 1), env()));
      expect(g.groupEpoch).to.equal(1);
      topics.set('orders-us', { topicId: U, name: 'orders-us', numPartitions: 3 });
      const r = ok(g.heartbeat(beat(a.memberId, 1), resolved({ 'orders-.*': ['orders-eu', 'orders-us'] })));
      expect(g.groupEpoch).to.equal(2);
      expect(r.memberEpoch).to.equal(2);
      expect(parts(r.assignment, U)).to.deep.equal([0, 1, 2]);
      expect(parts(r.assignment, R)).to.deep.equal([0, 1]);
    });

    it('a matching topic deleted: the epoch is bumped and its partitions leave the assignment (revoked first)', () => {
      topics.set('orders-us', { topicId: U, name: 'orders-us', numPartitions: 1 });
      const a = ok(g.heartbeat(hb({ subscribedTopicNames: [], subscribedTopicRegex: 'orders-.*' }), resolved({ 'orders-.*': ['orders-eu', 'orders-us'] })));
      expect(parts(a.assignment, U)).to.deep.equal([0]);
      topics.delete('orders-us');
      const r = ok(g.heartbeat(beat(a.memberId, 1, { ownedTopicPartitions: [...owned([0, 1], R), ...owned([0], U)] }), resolved({ 'orders-.*': ['orders-eu'] })));
      expect(g.groupEpoch).to.equal(2);
      expect(g.members.get(a.memberId)!.state).to.equal(MemberState.UnrevokedPartitions);
      expect(parts(r.assignment, U)).to.deep.equal([]);
      const r2 = ok(g.heartbeat(beat(a.memberId, 1, { ownedTopicPartitions: owned([0, 1], R) }), env()));
      expect(r2.memberEpoch).to.equal(2);
      expect(g.subscriptionMetadata.has('orders-us')).to.equal(false);
    });

    it('changing the expression, from names to an expression, or back to names, is a subscription change: the epoch is bumped each time', () => {
      const a = ok(g.heartbeat(hb({ subscribedTopicNames: ['t'] }), env()));
      const owns = (r: { assignment: Map<string, Set<number>> | null }) => [...(r.assignment ?? new Map<string, Set<number>>())].map(([topicId, ps]) => ({ topicId, partitions: [...ps] }));
      // names -> expression (the Java consumer sends no names then)
      const r1 = ok(g.heartbeat(beat(a.memberId, 1, { subscribedTopicNames: [], subscribedTopicRegex: 'u', ownedTopicPartitions: owned([0, 1, 2, 3]) }), resolved({ u: ['u'] })));
      expect(g.groupEpoch).to.equal(2);
      expect(g.members.get(a.memberId)!.subscribedTopicRegex).to.equal('u');
      const r1b = ok(g.heartbeat(beat(a.memberId, r1.memberEpoch, { ownedTopicPartitions: [] }), env()));
      expect(parts(r1b.assignment, U)).to.deep.equal([0, 1]);
      // expression -> another expression
      ok(g.heartbeat(beat(a.memberId, r1b.memberEpoch, { subscribedTopicRegex: 'orders-.*', ownedTopicPartitions: owns(r1b) }), resolved({ 'orders-.*': ['orders-eu'] })));
      expect(g.groupEpoch).to.equal(3);
      expect([...g.resolvedRegexes.keys()]).to.deep.equal(['orders-.*']);
      // expression -> names: '' takes the expression away
      const r3 = ok(g.heartbeat(beat(a.memberId, g.members.get(a.memberId)!.memberEpoch, { subscribedTopicNames: ['t'], subscribedTopicRegex: '', ownedTopicPartitions: [] }), env()));
      expect(g.groupEpoch).to.equal(4);
      expect(g.members.get(a.memberId)!.subscribedTopicRegex).to.equal(null);
      expect(g.resolvedRegexes.size).to.equal(0);
      expect(g.targetAssignment.get(r3.memberId)!.has(R)).to.equal(false);
    });

    it('illegal: an expression that does not compile is INVALID_REGULAR_EXPRESSION with Kafka\'s message, and the group is unchanged', () => {
      const bad = g.heartbeat(hb({ subscribedTopicNames: [], subscribedTopicRegex: '(orders' }), env());
      expect(bad).to.deep.equal({ kind: 'error', errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, errorMessage: 'SubscribedTopicRegex `(orders` is not a valid regular expression: missing closing ).' });
      expect(g.heartbeat(hb({ subscribedTopicRegex: '(a)\\1' }), env())).to.include({ errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION });
      expect(g.heartbeat(hb({ subscribedTopicRegex: 'orders(?=-eu)' }), env())).to.include({ errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION });
      expect(g.heartbeat(hb({ subscribedTopicRegex: '(?<!x)orders' }), env())).to.include({ errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION });
      expect(g.members.size).to.equal(0);
      expect(g.groupEpoch).to.equal(0);
      // a member changing to one: refused, it keeps its subscription
      const a = ok(g.heartbeat(hb(), env()));
      expect(g.heartbeat(beat(a.memberId, 1, { subscribedTopicRegex: '[z-a]' }), env())).to.include({ errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION });
      expect(g.members.get(a.memberId)!.subscribedTopicRegex).to.equal(null);
      expect(g.groupEpoch).to.equal(1);
    });

    it('an expression resolved to nothing subscribes to nothing; the member is still in the group', () => {
      const r = ok(g.heartbeat(hb({ subscribedTopicNames: [], subscribedTopicRegex: 'nothing-.*' }), resolved({ 'nothing-.*': [] })));
      expect(r.memberEpoch).to.equal(1);
      expect(parts(r.assignment)).to.deep.equal([]);
      expect(g.state).to.equal(ConsumerGroupState.Stable);
    });

    it('two members share an expression: one resolution, both assigned from it; the last one leaving forgets it', () => {
      const a = ok(g.heartbeat(hb({ subscribedTopicNames: [], subscribedTopicRegex: 't' }), resolved({ t: ['t'] })));
      const b = ok(g.heartbeat(hb({ subscribedTopicNames: [], subscribedTopicRegex: 't' }), env()));
      expect(g.targetAssignment.get(b.memberId)!.get(T)!.size).to.equal(2);
      g.fence(a.memberId);
      expect([...g.resolvedRegexes.keys()]).to.deep.equal(['t']);
      g.fence(b.memberId);
      expect(g.resolvedRegexes.size).to.equal(0);
      expect(g.subscriptionMetadata.size).to.equal(0);
    });

    it('a group restored from its records keeps the members\' expressions and its subscribed topics until a resolution comes', () => {
      const a = ok(g.heartbeat(hb({ subscribedTopicNames: [], subscribedTopicRegex: 'orders-.*' }), resolved({ 'orders-.*': ['orders-eu'] })));
      const m = g.members.get(a.memberId)!;
      const restored = ConsumerGroup.restore('g', { epoch: g.groupEpoch, subscriptionMetadata: [...g.subscriptionMetadata.values()], assignmentEpoch: g.assignmentEpoch, members: [m], targets: g.targetAssignment });
      expect(restored.subscribedRegexes()).to.deep.equal(new Set(['orders-.*']));
      expect(restored.resolvedRegexes.size).to.equal(0);
      const r = ok(restored.heartbeat(beat(a.memberId, 1, { ownedTopicPartitions: owned([0, 1], R) }), resolved({ 'orders-.*': ['orders-eu'] })));
      expect(r.memberEpoch).to.equal(1);
      expect(restored.groupEpoch).to.equal(1);
    });
  });

  it('offset fetches: without a member always; a member with its current epoch', () => {
    const a = ok(g.heartbeat(hb(), env()));
    expect(g.validateOffsetFetch(null, -1)).to.equal(null);
    expect(g.validateOffsetFetch(a.memberId, 1)).to.equal(null);
    expect(g.validateOffsetFetch(a.memberId, 7)).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
    expect(g.validateOffsetFetch('x', 1)).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});
