/**
 * The KIP-932 share group state machine on its own (share-group.ts): one test per legal and
 * illegal step of ShareGroupHeartbeat as Kafka 4.1's GroupMetadataManager takes them: joins and
 * rejoins, epochs, the target assignment and the member moving to it, leaves and fencing, the
 * request checks, group.share.max.size, topic metadata changes, the group states, the persisted
 * records (takeDirty: what changed), the topics' metadata hash, a group restored from its records,
 * and ShareGroupDescribe.
 */
import { expect } from 'chai';
import { ShareGroup, ShareGroupState, shareMetadataHash, type ShareHeartbeat, type ShareHeartbeatEnv, type ShareHeartbeatOutcome, type TopicInfo } from '../../../actors/group-coordinator/share-group.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const T = 'AAAAAAAAAAAAAAAAAAAAAg';
const U = 'AAAAAAAAAAAAAAAAAAAAAw';
const T2 = 'AAAAAAAAAAAAAAAAAAAABA';

describe('actors/group-coordinator share-group', () => {
  let topics: Map<string, TopicInfo>;
  let g: ShareGroup;
  const env = (maxSize = 100): ShareHeartbeatEnv => ({ topic: (n) => topics.get(n) ?? null, maxSize, heartbeatIntervalMs: 5000 });

  function hb(o: Partial<ShareHeartbeat> = {}): ShareHeartbeat {
    return { memberId: 'a', memberEpoch: 0, rackId: null, subscribedTopicNames: ['t'], clientId: 'c', clientHost: '/h', ...o };
  }
  /** A heartbeat of a member at its epoch with nothing changed. */
  const beat = (memberId: string, memberEpoch: number, o: Partial<ShareHeartbeat> = {}) => hb({ memberId, memberEpoch, subscribedTopicNames: null, ...o });
  function ok(r: ShareHeartbeatOutcome) {
    if (r.kind !== 'ok') throw new Error(`expected ok, got ${r.errorCode}: ${r.errorMessage}`);
    return r;
  }
  function err(r: ShareHeartbeatOutcome) {
    if (r.kind !== 'error') throw new Error(`expected an error, got epoch ${r.memberEpoch}`);
    return r;
  }
  const target = (memberId: string, topicId = T) => [...(g.targetAssignment(memberId)?.get(topicId) ?? [])].sort((x, y) => x - y);
  /** The group's observable state, to check that an error changed nothing. */
  const snapshot = () => ({ d: g.describe(), targets: g.members().map((m) => [m.memberId, g.targetAssignment(m.memberId)]) });

  beforeEach(() => {
    topics = new Map([
      ['t', { topicId: T, name: 't', numPartitions: 4 }],
      ['u', { topicId: U, name: 'u', numPartitions: 2 }],
    ]);
    g = new ShareGroup('g');
  });

  it('starts Empty at epoch 0, not dirty', () => {
    expect(g.state).to.equal(ShareGroupState.Empty);
    expect(g.groupEpoch).to.equal(0);
    expect(g.assignmentEpoch).to.equal(0);
    expect(g.members()).to.deep.equal([]);
    expect(g.takeDirty().epoch).to.equal(false);
  });

  it('Empty -> Stable: the first member joins with epoch 0 under its own id, gets epoch 1 and every partition', () => {
    const r = ok(g.heartbeat(hb(), env()));
    expect(r).to.deep.equal({ kind: 'ok', memberId: 'a', memberEpoch: 1, heartbeatIntervalMs: 5000, assignment: [{ topicId: T, partitions: [0, 1, 2, 3] }] });
    expect(g.groupEpoch).to.equal(1);
    expect(g.assignmentEpoch).to.equal(1);
    expect(g.state).to.equal(ShareGroupState.Stable);
    expect(g.member('a')).to.deep.include({ memberId: 'a', memberEpoch: 1, previousMemberEpoch: 0, subscribedTopicNames: ['t'], clientId: 'c', clientHost: '/h', rackId: null });
  });

  it('a heartbeat at the current epoch with nothing changed: same epoch, assignment null, group epoch unchanged', () => {
    ok(g.heartbeat(hb(), env()));
    g.takeDirty();
    const r = ok(g.heartbeat(beat('a', 1), env()));
    expect(r).to.deep.equal({ kind: 'ok', memberId: 'a', memberEpoch: 1, heartbeatIntervalMs: 5000, assignment: null });
    expect(g.groupEpoch).to.equal(1);
    expect(g.takeDirty().epoch).to.equal(false);
  });

  it('a heartbeat repeating the same subscription changes nothing either', () => {
    ok(g.heartbeat(hb(), env()));
    const r = ok(g.heartbeat(beat('a', 1, { subscribedTopicNames: ['t', 't'] }), env()));
    expect(r.assignment).to.equal(null);
    expect(g.groupEpoch).to.equal(1);
  });

  it('a second member joins: the epoch moves, the partitions are split, the first member moves to the target at its next heartbeat', () => {
    ok(g.heartbeat(hb(), env()));
    const b = ok(g.heartbeat(hb({ memberId: 'b' }), env()));
    expect(g.groupEpoch).to.equal(2);
    expect(b.memberEpoch).to.equal(2);
    // a keeps the lower half of what it had (sticky), b gets the rest
    expect(b.assignment).to.deep.equal([{ topicId: T, partitions: [2, 3] }]);
    expect(target('a')).to.deep.equal([0, 1]);
    // a is still at epoch 1 with everything until it heartbeats (no revocation: partitions may be shared)
    expect(g.member('a')).to.deep.include({ memberEpoch: 1 });
    const a = ok(g.heartbeat(beat('a', 1), env()));
    expect(a.memberEpoch).to.equal(2);
    expect(a.assignment).to.deep.equal([{ topicId: T, partitions: [0, 1] }]);
    expect(g.member('a')).to.deep.include({ memberEpoch: 2, previousMemberEpoch: 1 });
  });

  it('a member moving to a new epoch with the same assignment gets no assignment', () => {
    ok(g.heartbeat(hb({ subscribedTopicNames: ['t'] }), env()));
    ok(g.heartbeat(hb({ memberId: 'b', subscribedTopicNames: ['u'] }), env()));
    const a = ok(g.heartbeat(beat('a', 1), env()));
    expect(a.memberEpoch).to.equal(2);
    expect(a.assignment).to.equal(null);
  });

  it('more members than partitions: each gets one, the partitions shared evenly', () => {
    for (const id of ['a', 'b', 'c']) ok(g.heartbeat(hb({ memberId: id, subscribedTopicNames: ['u'] }), env()));
    expect(target('a', U)).to.deep.equal([0]);
    expect(target('b', U)).to.deep.equal([1]);
    expect(target('c', U)).to.deep.equal([0]);
  });

  it('rejoin with epoch 0 of a known member: it is reset and takes the current target again, the group epoch unchanged', () => {
    ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb({ memberId: 'b' }), env()));
    ok(g.heartbeat(beat('a', 1), env()));
    g.takeDirty();
    const r = ok(g.heartbeat(hb({ memberId: 'a', memberEpoch: 0 }), env()));
    expect(r).to.deep.equal({ kind: 'ok', memberId: 'a', memberEpoch: 2, heartbeatIntervalMs: 5000, assignment: [{ topicId: T, partitions: [0, 1] }] });
    expect(g.groupEpoch).to.equal(2);
    expect(g.members().map((m) => m.memberId)).to.deep.equal(['a', 'b']);
    expect(g.takeDirty().epoch).to.equal(false);
  });

  it('rejoin with epoch 0 and another subscription: the group epoch moves and the target follows', () => {
    ok(g.heartbeat(hb(), env()));
    const r = ok(g.heartbeat(hb({ memberId: 'a', memberEpoch: 0, subscribedTopicNames: ['u'] }), env()));
    expect(r.memberEpoch).to.equal(2);
    expect(r.assignment).to.deep.equal([{ topicId: U, partitions: [0, 1] }]);
  });

  it('a subscription change bumps the group epoch and reassigns', () => {
    ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb({ memberId: 'b' }), env()));
    ok(g.heartbeat(beat('a', 1), env()));
    g.takeDirty();
    const r = ok(g.heartbeat(beat('b', 2, { subscribedTopicNames: ['t', 'u'] }), env()));
    expect(g.groupEpoch).to.equal(3);
    expect(g.takeDirty().epoch).to.equal(true);
    expect(r.memberEpoch).to.equal(3);
    // t stays as it was (sticky), u all to b
    expect(r.assignment).to.deep.equal([
      { topicId: T, partitions: [2, 3] },
      { topicId: U, partitions: [0, 1] },
    ]);
    expect(g.member('b')!.subscribedTopicNames).to.deep.equal(['t', 'u']);
    // a's target did not change: it moves to epoch 3 with no assignment sent
    const a = ok(g.heartbeat(beat('a', 2), env()));
    expect(a).to.include({ memberEpoch: 3, assignment: null });
  });

  it('a subscription dropping a topic loses its partitions', () => {
    ok(g.heartbeat(hb({ subscribedTopicNames: ['t', 'u'] }), env()));
    const r = ok(g.heartbeat(beat('a', 1, { subscribedTopicNames: ['u'] }), env()));
    expect(r.memberEpoch).to.equal(2);
    expect(r.assignment).to.deep.equal([{ topicId: U, partitions: [0, 1] }]);
  });

  it('the rack id and client are updated; a rack id does not move the group epoch', () => {
    ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(beat('a', 1, { rackId: 'r1', clientId: 'c2', clientHost: '/h2' }), env()));
    expect(g.member('a')).to.deep.include({ rackId: 'r1', clientId: 'c2', clientHost: '/h2' });
    ok(g.heartbeat(beat('a', 1), env()));
    expect(g.member('a')!.rackId).to.equal('r1');
    expect(g.groupEpoch).to.equal(1);
  });

  it('leave (-1): the member goes with epoch -1 and no assignment, the epoch moves, the others get its partitions', () => {
    ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb({ memberId: 'b' }), env()));
    g.takeDirty();
    const r = ok(g.heartbeat(hb({ memberId: 'a', memberEpoch: -1, subscribedTopicNames: null }), env()));
    expect(r).to.deep.equal({ kind: 'ok', memberId: 'a', memberEpoch: -1, heartbeatIntervalMs: 5000, assignment: null });
    expect(g.member('a')).to.equal(undefined);
    expect(g.groupEpoch).to.equal(3);
    expect(g.assignmentEpoch).to.equal(3);
    expect(g.takeDirty().epoch).to.equal(true);
    expect(target('b')).to.deep.equal([0, 1, 2, 3]);
    const b = ok(g.heartbeat(beat('b', 2), env()));
    expect(b).to.include({ memberEpoch: 3 });
    expect(b.assignment).to.deep.equal([{ topicId: T, partitions: [0, 1, 2, 3] }]);
  });

  it('illegal: leaving as an unknown member is UNKNOWN_MEMBER_ID', () => {
    ok(g.heartbeat(hb(), env()));
    const before = snapshot();
    expect(err(g.heartbeat(hb({ memberId: 'x', memberEpoch: -1, subscribedTopicNames: null }), env()))).to.deep.equal({
      kind: 'error',
      errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
      errorMessage: 'Member x is not a member of group g.',
    });
    expect(snapshot()).to.deep.equal(before);
  });

  it('illegal: an unknown member heartbeating with an epoch > 0 is UNKNOWN_MEMBER_ID', () => {
    const r = err(g.heartbeat(hb({ memberId: 'nobody', memberEpoch: 3, subscribedTopicNames: null }), env()));
    expect(r.errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(g.state).to.equal(ShareGroupState.Empty);
    expect(g.groupEpoch).to.equal(0);
  });

  it('illegal: an epoch ahead of the member is FENCED_MEMBER_EPOCH', () => {
    ok(g.heartbeat(hb(), env()));
    const before = snapshot();
    const r = err(g.heartbeat(beat('a', 5), env()));
    expect(r.errorCode).to.equal(ErrorCode.FENCED_MEMBER_EPOCH);
    expect(r.errorMessage).to.contain('greater member epoch (5)');
    expect(snapshot()).to.deep.equal(before);
  });

  it('illegal: an epoch behind the member other than its previous one is FENCED_MEMBER_EPOCH', () => {
    ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb({ memberId: 'b' }), env()));
    ok(g.heartbeat(hb({ memberId: 'c' }), env()));
    ok(g.heartbeat(beat('a', 1), env())); // a: 1 -> 3, previous 1
    const before = snapshot();
    const r = err(g.heartbeat(beat('a', 2), env()));
    expect(r.errorCode).to.equal(ErrorCode.FENCED_MEMBER_EPOCH);
    expect(r.errorMessage).to.contain('smaller member epoch (2)');
    expect(snapshot()).to.deep.equal(before);
  });

  it('the previous epoch is accepted (the response that moved the member on was lost) and the assignment sent again', () => {
    ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb({ memberId: 'b' }), env()));
    ok(g.heartbeat(beat('a', 1), env())); // a: 1 -> 2
    const r = ok(g.heartbeat(beat('a', 1), env()));
    expect(r).to.deep.equal({ kind: 'ok', memberId: 'a', memberEpoch: 2, heartbeatIntervalMs: 5000, assignment: [{ topicId: T, partitions: [0, 1] }] });
    expect(g.groupEpoch).to.equal(2);
  });

  it('illegal: an empty member id is INVALID_REQUEST, whatever the epoch', () => {
    for (const [memberId, memberEpoch] of [['', 0], ['  ', 0], ['', 1], ['', -1]] as const) {
      expect(g.heartbeat(hb({ memberId, memberEpoch }), env())).to.deep.equal({ kind: 'error', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: "MemberId can't be empty." });
    }
    expect(g.heartbeat(hb({ memberId: undefined as unknown as string }), env())).to.include({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(g.state).to.equal(ShareGroupState.Empty);
    expect(g.groupEpoch).to.equal(0);
  });

  it('illegal: an empty rack id is INVALID_REQUEST', () => {
    expect(g.heartbeat(hb({ rackId: '' }), env())).to.deep.equal({ kind: 'error', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: "RackId can't be empty." });
  });

  it('illegal: joining without topics (null or empty) is INVALID_REQUEST', () => {
    for (const subscribedTopicNames of [null, []]) {
      expect(g.heartbeat(hb({ subscribedTopicNames }), env())).to.deep.equal({
        kind: 'error',
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'SubscribedTopicNames must be set in first request.',
      });
    }
    expect(g.state).to.equal(ShareGroupState.Empty);
  });

  it('illegal: a member epoch below -1 is INVALID_REQUEST', () => {
    ok(g.heartbeat(hb(), env()));
    const before = snapshot();
    expect(g.heartbeat(beat('a', -2), env())).to.deep.equal({ kind: 'error', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'MemberEpoch is invalid.' });
    expect(snapshot()).to.deep.equal(before);
  });

  it('illegal: a new member beyond group.share.max.size is GROUP_MAX_SIZE_REACHED; members already in go on', () => {
    ok(g.heartbeat(hb(), env(2)));
    ok(g.heartbeat(hb({ memberId: 'b' }), env(2)));
    const before = snapshot();
    expect(g.heartbeat(hb({ memberId: 'c' }), env(2))).to.deep.equal({
      kind: 'error',
      errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED,
      errorMessage: 'The share group has reached its maximum capacity of 2 members.',
    });
    expect(snapshot()).to.deep.equal(before);
    expect(ok(g.heartbeat(beat('a', 1), env(2))).memberEpoch).to.equal(2);
    expect(ok(g.heartbeat(hb({ memberId: 'b', memberEpoch: 0 }), env(2))).memberEpoch).to.equal(2);
    // a member leaving makes room
    ok(g.heartbeat(hb({ memberId: 'b', memberEpoch: -1, subscribedTopicNames: null }), env(2)));
    expect(ok(g.heartbeat(hb({ memberId: 'c' }), env(2))).memberEpoch).to.equal(4);
  });

  it('a topic created after the subscription: nothing until it exists, then the epoch moves and it is assigned', () => {
    const r = ok(g.heartbeat(hb({ subscribedTopicNames: ['later'] }), env()));
    expect(r.assignment).to.deep.equal([]);
    expect(ok(g.heartbeat(beat('a', 1), env())).assignment).to.equal(null);
    topics.set('later', { topicId: T2, name: 'later', numPartitions: 2 });
    const r2 = ok(g.heartbeat(beat('a', 1), env()));
    expect(g.groupEpoch).to.equal(2);
    expect(r2.memberEpoch).to.equal(2);
    expect(r2.assignment).to.deep.equal([{ topicId: T2, partitions: [0, 1] }]);
  });

  it('a subscribed topic deleted: the epoch moves and its partitions go', () => {
    ok(g.heartbeat(hb({ subscribedTopicNames: ['t', 'u'] }), env()));
    topics.delete('u');
    const r = ok(g.heartbeat(beat('a', 1), env()));
    expect(g.groupEpoch).to.equal(2);
    expect(r.assignment).to.deep.equal([{ topicId: T, partitions: [0, 1, 2, 3] }]);
  });

  it('a subscribed topic recreated under a new id: the epoch moves and the new id is assigned', () => {
    ok(g.heartbeat(hb({ subscribedTopicNames: ['u'] }), env()));
    topics.set('u', { topicId: T2, name: 'u', numPartitions: 2 });
    const r = ok(g.heartbeat(beat('a', 1), env()));
    expect(g.groupEpoch).to.equal(2);
    expect(r.assignment).to.deep.equal([{ topicId: T2, partitions: [0, 1] }]);
  });

  it('partitions added to a subscribed topic: the epoch moves and the new partitions are assigned, the old ones kept', () => {
    ok(g.heartbeat(hb(), env()));
    ok(g.heartbeat(hb({ memberId: 'b' }), env()));
    topics.set('t', { topicId: T, name: 't', numPartitions: 6 });
    const b = ok(g.heartbeat(beat('b', 2), env()));
    expect(g.groupEpoch).to.equal(3);
    expect(b.memberEpoch).to.equal(3);
    expect(b.assignment).to.deep.equal([{ topicId: T, partitions: [2, 3, 5] }]);
    expect(target('a')).to.deep.equal([0, 1, 4]);
  });

  it('a topic nobody subscribes to changing moves nothing', () => {
    ok(g.heartbeat(hb(), env()));
    topics.set('u', { topicId: U, name: 'u', numPartitions: 9 });
    topics.set('v', { topicId: T2, name: 'v', numPartitions: 1 });
    expect(ok(g.heartbeat(beat('a', 1), env())).assignment).to.equal(null);
    expect(g.groupEpoch).to.equal(1);
  });

  it('Empty -> Stable -> Empty: the session timeout fences the last member (leave), and the epoch moves', () => {
    ok(g.heartbeat(hb(), env()));
    expect(g.state).to.equal(ShareGroupState.Stable);
    g.takeDirty();
    expect(g.leave('a', env())).to.equal(true);
    expect(g.state).to.equal(ShareGroupState.Empty);
    expect(g.groupEpoch).to.equal(2);
    expect(g.assignmentEpoch).to.equal(2);
    expect(g.takeDirty().epoch).to.equal(true);
    expect(g.targetAssignment('a')).to.equal(undefined);
    // fenced: its next heartbeat is UNKNOWN_MEMBER_ID and it rejoins
    expect(err(g.heartbeat(beat('a', 1), env())).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(ok(g.heartbeat(hb(), env())).memberEpoch).to.equal(3);
  });

  it('leave of a member not in the group: false, nothing moves', () => {
    ok(g.heartbeat(hb(), env()));
    g.takeDirty();
    expect(g.leave('x', env())).to.equal(false);
    expect(g.groupEpoch).to.equal(1);
    expect(g.takeDirty().epoch).to.equal(false);
  });

  it('Empty -> Dead: markDead; a dead group takes no heartbeat', () => {
    ok(g.heartbeat(hb(), env()));
    g.leave('a', env());
    g.markDead();
    expect(g.state).to.equal(ShareGroupState.Dead);
    expect(g.describe().state).to.equal('Dead');
    expect(g.heartbeat(hb(), env())).to.deep.equal({ kind: 'error', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group g not found.' });
    expect(g.leave('a', env())).to.equal(false);
  });

  it('takeDirty().epoch: true once after each move of the group epoch, false otherwise', () => {
    expect(g.takeDirty().epoch).to.equal(false);
    ok(g.heartbeat(hb(), env()));
    expect(g.takeDirty().epoch).to.equal(true);
    expect(g.takeDirty().epoch).to.equal(false);
    ok(g.heartbeat(beat('a', 1, { rackId: 'r' }), env()));
    expect(g.takeDirty().epoch).to.equal(false);
    err(g.heartbeat(beat('a', 9), env()));
    expect(g.takeDirty().epoch).to.equal(false);
    ok(g.heartbeat(beat('a', 1, { subscribedTopicNames: ['u'] }), env()));
    expect(g.takeDirty().epoch).to.equal(true);
  });

  /** A dirty set as plain arrays, for comparing. */
  const dirty = (x: ShareGroup = g) => {
    const d = x.takeDirty();
    return { epoch: d.epoch, assignmentEpoch: d.assignmentEpoch, memberMetadata: [...d.memberMetadata], targetAssignment: [...d.targetAssignment], currentAssignment: [...d.currentAssignment], removed: [...d.removed] };
  };
  const clean = { epoch: false, assignmentEpoch: false, memberMetadata: [], targetAssignment: [], currentAssignment: [], removed: [] };

  describe('what is written (takeDirty)', () => {
    it('a join: the member metadata, the group epoch, its target, the target epoch and its current assignment', () => {
      expect(dirty()).to.deep.equal(clean);
      ok(g.heartbeat(hb(), env()));
      expect(dirty()).to.deep.equal({ epoch: true, assignmentEpoch: true, memberMetadata: ['a'], targetAssignment: ['a'], currentAssignment: ['a'], removed: [] });
      expect(dirty()).to.deep.equal(clean);
    });

    it('a second member: its records, the epochs, the first member target (split); the first member current assignment only when it takes it', () => {
      ok(g.heartbeat(hb(), env()));
      g.takeDirty();
      ok(g.heartbeat(hb({ memberId: 'b' }), env()));
      expect(dirty()).to.deep.equal({ epoch: true, assignmentEpoch: true, memberMetadata: ['b'], targetAssignment: ['a', 'b'], currentAssignment: ['b'], removed: [] });
      ok(g.heartbeat(beat('a', 1), env()));
      expect(dirty()).to.deep.equal({ ...clean, currentAssignment: ['a'] });
      // at its epoch with nothing changed: nothing
      ok(g.heartbeat(beat('a', 2), env()));
      expect(dirty()).to.deep.equal(clean);
    });

    it('changed member metadata alone (rack, client id, client host): only the member metadata record', () => {
      ok(g.heartbeat(hb(), env()));
      g.takeDirty();
      ok(g.heartbeat(beat('a', 1, { rackId: 'r' }), env()));
      expect(dirty()).to.deep.equal({ ...clean, memberMetadata: ['a'] });
      ok(g.heartbeat(beat('a', 1, { rackId: 'r', clientId: 'c2' }), env()));
      expect(dirty()).to.deep.equal({ ...clean, memberMetadata: ['a'] });
      ok(g.heartbeat(beat('a', 1, { rackId: 'r', clientId: 'c2', clientHost: '/h2' }), env()));
      expect(dirty()).to.deep.equal({ ...clean, memberMetadata: ['a'] });
      ok(g.heartbeat(beat('a', 1, { rackId: 'r', clientId: 'c2', clientHost: '/h2' }), env()));
      expect(dirty()).to.deep.equal(clean);
    });

    it('a leave or a fencing: the member is removed (tombstones), the epochs move, the others targets that changed', () => {
      ok(g.heartbeat(hb(), env()));
      ok(g.heartbeat(hb({ memberId: 'b' }), env()));
      g.takeDirty();
      ok(g.heartbeat(beat('b', -1), env()));
      expect(dirty()).to.deep.equal({ ...clean, epoch: true, assignmentEpoch: true, targetAssignment: ['a'], removed: ['b'] });
      ok(g.heartbeat(hb({ memberId: 'b' }), env()));
      g.takeDirty();
      expect(g.leave('b', env())).to.equal(true);
      expect(dirty()).to.deep.equal({ ...clean, epoch: true, assignmentEpoch: true, targetAssignment: ['a'], removed: ['b'] });
    });

    it('a member that joins and leaves before the records are written: only its removal', () => {
      ok(g.heartbeat(hb(), env()));
      g.takeDirty();
      ok(g.heartbeat(hb({ memberId: 'b' }), env()));
      g.leave('b', env());
      const d = dirty();
      expect(d.removed).to.deep.equal(['b']);
      expect(d.memberMetadata).to.deep.equal([]);
      expect(d.currentAssignment).to.deep.equal([]);
      expect(d.targetAssignment).to.deep.equal(['a']);
    });

    it('an error changes nothing to write', () => {
      ok(g.heartbeat(hb(), env()));
      g.takeDirty();
      err(g.heartbeat(beat('a', 9), env()));
      err(g.heartbeat(beat('zz', 1), env()));
      err(g.heartbeat(hb({ memberId: 'b', rackId: ' ' }), env()));
      expect(dirty()).to.deep.equal(clean);
    });

    it('markAllDirty: every record of the group', () => {
      ok(g.heartbeat(hb(), env()));
      ok(g.heartbeat(hb({ memberId: 'b' }), env()));
      g.takeDirty();
      g.markAllDirty();
      expect(dirty()).to.deep.equal({ epoch: true, assignmentEpoch: true, memberMetadata: ['a', 'b'], targetAssignment: ['a', 'b'], currentAssignment: ['a', 'b'], removed: [] });
    });
  });

  describe('the topics metadata hash', () => {
    it('0 without topics; moves with a topic created, recreated (another id) or grown, not with a topic order', () => {
      expect(shareMetadataHash(new Map())).to.equal(0);
      const a = shareMetadataHash(new Map([['t', topics.get('t')!]]));
      expect(a).to.be.a('number').and.not.equal(0);
      expect(Number.isSafeInteger(a)).to.equal(true);
      const both = shareMetadataHash(new Map([['t', topics.get('t')!], ['u', topics.get('u')!]]));
      expect(shareMetadataHash(new Map([['u', topics.get('u')!], ['t', topics.get('t')!]]))).to.equal(both);
      expect(both).to.not.equal(a);
      expect(shareMetadataHash(new Map([['t', { ...topics.get('t')!, numPartitions: 5 }]]))).to.not.equal(a);
      expect(shareMetadataHash(new Map([['t', { ...topics.get('t')!, topicId: T2 }]]))).to.not.equal(a);
    });

    it('is the group metadataHash after a heartbeat; 0 again when no member subscribes to anything', () => {
      ok(g.heartbeat(hb(), env()));
      expect(g.metadataHash).to.equal(shareMetadataHash(new Map([['t', topics.get('t')!]])));
      g.leave('a', env());
      expect(g.metadataHash).to.equal(0);
    });

    it('a topic the environment never looked up (undefined) counts as the group last saw it; one known gone (null) leaves the assignment', () => {
      ok(g.heartbeat(hb({ subscribedTopicNames: ['t', 'u'] }), env()));
      ok(g.heartbeat(hb({ memberId: 'b', subscribedTopicNames: ['t', 'u'] }), env()));
      const hash = g.metadataHash;
      ok(g.heartbeat(hb({ memberId: 'c', subscribedTopicNames: ['t', 'u'] }), env()));
      // c fenced where nothing was looked up: the others keep both topics
      g.leave('c', { topic: () => undefined });
      expect(g.metadataHash).to.equal(hash);
      expect([...(g.targetAssignment('a')?.keys() ?? []), ...(g.targetAssignment('b')?.keys() ?? [])].sort()).to.deep.equal([T, T, U, U].sort());
      // b fenced where u is known gone: a keeps t only
      g.leave('b', { topic: (n) => (n === 'u' ? null : topics.get(n)) });
      expect([...(g.targetAssignment('a')?.keys() ?? [])]).to.deep.equal([T]);
      expect(target('a')).to.deep.equal([0, 1, 2, 3]);
    });
  });

  describe('restore (a coordinator taking the group over)', () => {
    /** The group as its records say it: a at epoch 2 with [0, 1], b at 2 with [2, 3]. */
    function written(): ShareGroup {
      ok(g.heartbeat(hb(), env()));
      ok(g.heartbeat(hb({ memberId: 'b', rackId: 'r', clientId: 'c2', clientHost: '/h2' }), env()));
      ok(g.heartbeat(beat('a', 1), env()));
      return ShareGroup.restore('g', {
        epoch: g.groupEpoch,
        metadataHash: g.metadataHash,
        assignmentEpoch: g.assignmentEpoch,
        members: g.members(),
        targets: new Map(g.members().map((m) => [m.memberId, g.targetAssignment(m.memberId)!])),
      });
    }

    it('the members carry on at their epochs: a heartbeat at its epoch is answered as before, nothing written', () => {
      const r = written();
      expect(r.state).to.equal(ShareGroupState.Stable);
      expect(r.describe()).to.deep.equal(g.describe());
      expect(dirty(r)).to.deep.equal(clean);
      expect(ok(r.heartbeat(beat('a', 2), env()))).to.deep.include({ memberEpoch: 2, assignment: null });
      expect(ok(r.heartbeat(beat('b', 2, { clientId: 'c2', clientHost: '/h2' }), env()))).to.deep.include({ memberEpoch: 2, assignment: null });
      expect(r.groupEpoch).to.equal(2);
      expect(dirty(r)).to.deep.equal(clean);
    });

    it('a member that missed its last answer comes with its previous epoch and gets its assignment again', () => {
      const r = written();
      expect(ok(r.heartbeat(beat('a', 1), env()))).to.deep.include({ memberEpoch: 2, assignment: [{ topicId: T, partitions: [0, 1] }] });
    });

    it('a topic grown while the group moved: the first heartbeat moves the epoch (the hash differs) and splits six partitions', () => {
      const r = written();
      topics.set('t', { topicId: T, name: 't', numPartitions: 6 });
      const a = ok(r.heartbeat(beat('a', 2), env()));
      expect(a.memberEpoch).to.equal(3);
      expect(r.metadataHash).to.equal(shareMetadataHash(new Map([['t', topics.get('t')!]])));
      const b = ok(r.heartbeat(beat('b', 2), env()));
      expect([...a.assignment![0]!.partitions, ...b.assignment![0]!.partitions].sort()).to.deep.equal([0, 1, 2, 3, 4, 5]);
    });

    it('a member fenced before any heartbeat: the other gets every partition, over the topics as the environment has them', () => {
      const r = written();
      expect(r.leave('b', env())).to.equal(true);
      expect(r.groupEpoch).to.equal(3);
      expect([...(r.targetAssignment('a')?.get(T) ?? [])].sort()).to.deep.equal([0, 1, 2, 3]);
    });

    it('an epoch above the member epoch, or one below other than its previous, is FENCED_MEMBER_EPOCH; an unknown member UNKNOWN_MEMBER_ID', () => {
      const r = written();
      expect(err(r.heartbeat(beat('a', 3), env())).errorCode).to.equal(ErrorCode.FENCED_MEMBER_EPOCH);
      expect(err(r.heartbeat(beat('b', 0, { subscribedTopicNames: null }), env())).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect(err(r.heartbeat(beat('zz', 2), env())).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('an empty group: Empty at its epoch; the first join moves it on', () => {
      const r = ShareGroup.restore('g', { epoch: 7, metadataHash: 0, assignmentEpoch: 7, members: [], targets: new Map() });
      expect(r.state).to.equal(ShareGroupState.Empty);
      expect(r.groupEpoch).to.equal(7);
      expect(r.assignmentEpoch).to.equal(7);
      expect(dirty(r)).to.deep.equal(clean);
      expect(err(r.heartbeat(beat('a', 7), env())).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      const j = ok(r.heartbeat(hb(), env()));
      expect(j.memberEpoch).to.equal(8);
      expect(j.assignment).to.deep.equal([{ topicId: T, partitions: [0, 1, 2, 3] }]);
      expect(dirty(r).epoch).to.equal(true);
    });

    it('targets of members without metadata (a write cut short) are left out', () => {
      const r = ShareGroup.restore('g', { epoch: 3, metadataHash: 0, assignmentEpoch: 3, members: [], targets: new Map([['x', new Map([[T, new Set([0])]])]]) });
      expect(r.targetAssignment('x')).to.equal(undefined);
      expect(r.state).to.equal(ShareGroupState.Empty);
    });
  });

  it('describe: what ShareGroupDescribe needs', () => {
    expect(g.describe()).to.deep.equal({ groupId: 'g', state: 'Empty', groupEpoch: 0, assignmentEpoch: 0, assignorName: 'simple', members: [] });
    ok(g.heartbeat(hb({ rackId: 'r1', subscribedTopicNames: ['u', 't'] }), env()));
    ok(g.heartbeat(hb({ memberId: 'b', clientId: 'c2', clientHost: '/h2' }), env()));
    expect(g.describe()).to.deep.equal({
      groupId: 'g',
      state: 'Stable',
      groupEpoch: 2,
      assignmentEpoch: 2,
      assignorName: 'simple',
      members: [
        // a has not heartbeated since b joined: it is still at epoch 1 with what it was given then
        {
          memberId: 'a',
          rackId: 'r1',
          memberEpoch: 1,
          clientId: 'c',
          clientHost: '/h',
          subscribedTopicNames: ['t', 'u'],
          assignment: new Map([
            [T, [0, 1, 2, 3]],
            [U, [0, 1]],
          ]),
        },
        { memberId: 'b', rackId: null, memberEpoch: 2, clientId: 'c2', clientHost: '/h2', subscribedTopicNames: ['t'], assignment: new Map([[T, [2, 3]]]) },
      ],
    });
  });

  it('members() and member() are copies: changing them does not change the group', () => {
    ok(g.heartbeat(hb(), env()));
    const m = g.member('a')!;
    m.memberEpoch = 42;
    m.assigned.get(T)!.clear();
    g.members()[0]!.subscribedTopicNames.push('x');
    expect(g.member('a')).to.deep.include({ memberEpoch: 1, subscribedTopicNames: ['t'] });
    expect([...g.member('a')!.assigned.get(T)!]).to.deep.equal([0, 1, 2, 3]);
  });
});
