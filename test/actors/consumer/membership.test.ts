/**
 * The KIP-848 membership state machine on its own (membership.ts, member-state.ts,
 * heartbeat-state.ts) on a FakeClock: every legal and illegal transition of the member state
 * table, joining, reconciling (revocations planned apart from additions, names resolved from
 * metadata), acknowledging, heartbeats that carry only what changed, fenced members rejoining,
 * coordinator moves and backoffs, fatal errors, leaving (dynamic -1, static -2), and the poll timer.
 */
import { expect } from 'chai';
import type { ConsumerGroupHeartbeatResponse, TopicIdPartitions } from '../../../actors/group-coordinator/messages.js';
import { LocalAssignment } from '../../../actors/consumer/local-assignment.js';
import { IllegalMemberTransition, isValidMemberTransition, MemberState, validPreviousMemberStates } from '../../../actors/consumer/member-state.js';
import { ConsumerMembership, type ConsumerGroupHeartbeatMsg, type MembershipConfig } from '../../../actors/consumer/membership.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { FakeClock } from '../../../src/runtime/clock.js';

const S = MemberState;
const ALL = Object.values(MemberState);

/** Kafka 4.0's MemberState table, written out apart from the implementation's: [from, to]. */
const LEGAL: [MemberState, MemberState][] = [
  ...[S.PrepareLeaving, S.Leaving, S.Fenced].map((f) => [f, S.Unsubscribed] as [MemberState, MemberState]),
  ...[S.Fenced, S.Unsubscribed, S.Stale].map((f) => [f, S.Joining] as [MemberState, MemberState]),
  ...[S.Stable, S.Joining, S.Acknowledging, S.Reconciling].map((f) => [f, S.Reconciling] as [MemberState, MemberState]),
  [S.Reconciling, S.Acknowledging],
  ...[S.Joining, S.Acknowledging, S.Reconciling].map((f) => [f, S.Stable] as [MemberState, MemberState]),
  ...[S.Joining, S.Stable, S.Reconciling, S.Acknowledging, S.PrepareLeaving, S.Leaving].map((f) => [f, S.Fenced] as [MemberState, MemberState]),
  ...[S.Joining, S.Stable, S.Reconciling, S.Acknowledging, S.Unsubscribed].map((f) => [f, S.PrepareLeaving] as [MemberState, MemberState]),
  [S.PrepareLeaving, S.Leaving],
  ...[S.Joining, S.Stable, S.Reconciling, S.Acknowledging, S.PrepareLeaving, S.Leaving, S.Unsubscribed].map((f) => [f, S.Fatal] as [MemberState, MemberState]),
  [S.Leaving, S.Stale],
];

const T1 = 'AAAAAAAAAAAAAAAAAAAAAg';
const T2 = 'AAAAAAAAAAAAAAAAAAAAAw';
const NAMES = new Map([
  [T1, 'orders'],
  [T2, 'payments'],
]);
const resolve = (id: string) => NAMES.get(id);

function config(o: Partial<MembershipConfig> = {}): MembershipConfig {
  let n = 0;
  return {
    groupId: 'g',
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    serverAssignor: null,
    clientId: 'c',
    heartbeatIntervalMs: 3_000,
    retryBackoffMs: 100,
    retryBackoffMaxMs: 1_000,
    newMemberId: () => `member-${++n}`,
    ...o,
  };
}

function ok(memberEpoch: number, assignment: TopicIdPartitions[] | null, o: Partial<ConsumerGroupHeartbeatResponse> = {}): ConsumerGroupHeartbeatResponse {
  return { type: 'ConsumerGroupHeartbeatResponse', errorCode: ErrorCode.NONE, errorMessage: null, memberId: 'member-1', memberEpoch, heartbeatIntervalMs: 500, assignment, ...o };
}

function error(errorCode: number): ConsumerGroupHeartbeatResponse {
  return { type: 'ConsumerGroupHeartbeatResponse', errorCode, errorMessage: 'told so', memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
}

describe('actors/consumer membership (KIP-848 member state machine)', () => {
  let clock: FakeClock;
  let m: ConsumerMembership;

  /** The heartbeat due now (fails when none is). */
  function beat(): { seq: number; msg: ConsumerGroupHeartbeatMsg } {
    const hb = m.pollHeartbeat(true);
    expect(hb, `a heartbeat is due in ${m.state}`).to.not.equal(null);
    return hb!;
  }

  /** Joins and makes `partitions` of orders effective (epoch `epoch`), acknowledged: STABLE. */
  function joinWith(partitions: number[], epoch = 1): void {
    m.updateSubscription(['orders']);
    m.maybeJoin();
    const join = beat();
    m.onHeartbeatResponse(join.seq, ok(epoch, [{ topicId: T1, partitions }]));
    const { plan } = m.startReconciliation(resolve, []);
    m.completeReconciliation(plan!);
    const ack = beat();
    m.onHeartbeatResponse(ack.seq, ok(epoch, null));
    expect(m.state).to.equal(S.Stable);
  }

  beforeEach(() => {
    clock = new FakeClock();
    m = new ConsumerMembership(config(), clock);
  });

  describe('the member state table', () => {
    it('allows exactly the transitions of Kafka 4.0 (every pair checked), staying put always', () => {
      const legal = new Set(LEGAL.map(([f, t]) => `${f}>${t}`));
      for (const from of ALL) {
        for (const to of ALL) {
          const expected = from === to || legal.has(`${from}>${to}`);
          expect(isValidMemberTransition(from, to), `${from} -> ${to}`).to.equal(expected);
          if (from !== to) expect(validPreviousMemberStates[to].has(from), `${from} -> ${to}`).to.equal(expected);
        }
      }
    });

    it('transitionTo takes every legal transition and throws IllegalMemberTransition on every illegal one', () => {
      for (const from of ALL) {
        for (const to of ALL) {
          const member = new ConsumerMembership(config(), clock);
          member.state = from;
          if (isValidMemberTransition(from, to)) {
            member.transitionTo(to);
            expect(member.state).to.equal(to);
          } else {
            expect(() => member.transitionTo(to), `${from} -> ${to}`).to.throw(IllegalMemberTransition, `${from} -> ${to}`);
            expect(member.state).to.equal(from);
          }
        }
      }
    });
  });

  describe('joining', () => {
    it('starts UNSUBSCRIBED with its own member id; joins once it has topics, with every field and epoch 0', () => {
      expect(m.state).to.equal(S.Unsubscribed);
      expect(m.memberId).to.equal('member-1');
      expect(m.maybeJoin()).to.equal(false);
      expect(m.pollHeartbeat(true)).to.equal(null);
      m.updateSubscription(['payments', 'orders', 'orders']);
      expect(m.maybeJoin()).to.equal(true);
      expect(m.state).to.equal(S.Joining);
      expect(m.pollHeartbeat(false), 'no coordinator known: nothing goes').to.equal(null);
      const { msg } = beat();
      expect(msg).to.deep.equal({
        type: 'ConsumerGroupHeartbeat',
        groupId: 'g',
        memberId: 'member-1',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['orders', 'payments'],
        serverAssignor: null,
        topicPartitions: [],
        clientId: 'c',
      });
      expect(m.pollHeartbeat(true), 'one heartbeat in flight at a time').to.equal(null);
    });

    it('a join names the server assignor, the rack and the instance id when configured', () => {
      m = new ConsumerMembership(config({ serverAssignor: 'range', rackId: 'r1', instanceId: 'i-1' }), clock);
      m.updateSubscription(['orders']);
      m.maybeJoin();
      const { msg } = beat();
      expect(msg).to.include({ serverAssignor: 'range', rackId: 'r1', instanceId: 'i-1', memberEpoch: 0 });
    });

    it('a join answered with an empty assignment reconciles it (nothing to do) and acknowledges: STABLE', () => {
      m.updateSubscription(['orders']);
      m.maybeJoin();
      const join = beat();
      expect(m.onHeartbeatResponse(join.seq, ok(1, []))).to.deep.equal({ kind: 'ok' });
      expect(m.state).to.equal(S.Reconciling);
      expect(m.memberEpoch).to.equal(1);
      const { plan } = m.startReconciliation(resolve, []);
      expect(plan).to.deep.include({ assigned: [], added: [], revoked: [] });
      expect(m.completeReconciliation(plan!)).to.equal(true);
      expect(m.state).to.equal(S.Acknowledging);
      const ack = beat();
      expect(ack.msg.topicPartitions).to.deep.equal([]);
      expect(m.state).to.equal(S.Stable);
    });

    it('a join with no topic to name waits (a pattern that matches nothing yet)', () => {
      m.updateSubscription(['orders']);
      m.maybeJoin();
      m.updateSubscription([]);
      expect(m.state).to.equal(S.Joining);
      expect(m.pollHeartbeat(true)).to.equal(null);
      m.updateSubscription(['orders']);
      expect(beat().msg.subscribedTopicNames).to.deep.equal(['orders']);
    });

    it('an answer to an older heartbeat is ignored', () => {
      m.updateSubscription(['orders']);
      m.maybeJoin();
      const join = beat();
      expect(m.onHeartbeatResponse(join.seq + 7, ok(3, []))).to.deep.equal({ kind: 'ignored' });
      expect(m.state).to.equal(S.Joining);
      expect(m.memberEpoch).to.equal(0);
    });
  });

  describe('reconciling', () => {
    it('an assignment is planned by name, made effective, then acknowledged at once with the owned partitions by topic id', () => {
      m.updateSubscription(['orders']);
      m.maybeJoin();
      const join = beat();
      m.onHeartbeatResponse(join.seq, ok(2, [{ topicId: T1, partitions: [1, 0] }]));
      expect(m.state).to.equal(S.Reconciling);
      const { plan, unresolved } = m.startReconciliation(resolve, []);
      expect(unresolved).to.deep.equal([]);
      expect(plan!.added).to.deep.equal([
        { topic: 'orders', partition: 0 },
        { topic: 'orders', partition: 1 },
      ]);
      expect(m.startReconciliation(resolve, []).plan, 'one reconciliation at a time').to.equal(null);
      expect(m.current.isNone(), 'nothing effective before it is done').to.equal(true);
      m.completeReconciliation(plan!);
      expect(m.state).to.equal(S.Acknowledging);
      expect(m.shouldHeartbeatNow()).to.equal(true);
      // the interval (500 ms from the answer) does not hold the acknowledgement back
      const ack = beat();
      expect(ack.msg.topicPartitions).to.deep.equal([{ topicId: T1, partitions: [0, 1] }]);
      expect(ack.msg).to.include({ memberEpoch: 2, rebalanceTimeoutMs: -1, subscribedTopicNames: null });
      expect(m.state).to.equal(S.Stable);
    });

    it('revocations are planned apart from additions: what goes is revoked before what comes is added', () => {
      joinWith([0, 1]);
      const hb = (clock.advance(500), beat());
      m.onHeartbeatResponse(hb.seq, ok(1, [{ topicId: T1, partitions: [1, 2] }]));
      expect(m.state).to.equal(S.Reconciling);
      const { plan } = m.startReconciliation(resolve, [
        { topic: 'orders', partition: 0 },
        { topic: 'orders', partition: 1 },
      ]);
      expect(plan!.revoked).to.deep.equal([{ topic: 'orders', partition: 0 }]);
      expect(plan!.added).to.deep.equal([{ topic: 'orders', partition: 2 }]);
      // still owning partition 0 until it is done: heartbeats in between report the old assignment
      clock.advance(500);
      const between = beat();
      expect(between.msg.topicPartitions).to.equal(null);
      m.onHeartbeatResponse(between.seq, ok(1, null));
      m.completeReconciliation(plan!);
      expect(beat().msg.topicPartitions).to.deep.equal([{ topicId: T1, partitions: [1, 2] }]);
    });

    it('the same assignment again changes nothing; a new target during a reconciliation is taken after its acknowledgement', () => {
      joinWith([0]);
      clock.advance(500);
      const same = beat();
      m.onHeartbeatResponse(same.seq, ok(1, [{ topicId: T1, partitions: [0] }]));
      expect(m.state).to.equal(S.Stable);
      clock.advance(500);
      const first = beat();
      m.onHeartbeatResponse(first.seq, ok(2, [{ topicId: T1, partitions: [0, 1] }]));
      const { plan } = m.startReconciliation(resolve, [{ topic: 'orders', partition: 0 }]);
      clock.advance(500);
      const during = beat();
      m.onHeartbeatResponse(during.seq, ok(3, [{ topicId: T1, partitions: [0, 1, 2] }]));
      expect(m.state).to.equal(S.Reconciling);
      expect(m.completeReconciliation(plan!)).to.equal(true);
      expect(beat().msg.topicPartitions).to.deep.equal([{ topicId: T1, partitions: [0, 1] }]);
      expect(m.state, 'the newer target is still to do').to.equal(S.Reconciling);
      const next = m.startReconciliation(resolve, [
        { topic: 'orders', partition: 0 },
        { topic: 'orders', partition: 1 },
      ]).plan!;
      expect(next.added).to.deep.equal([{ topic: 'orders', partition: 2 }]);
    });

    it('topic ids without a name wait for metadata; when nothing else can be done yet the member only acknowledges', () => {
      joinWith([0]);
      clock.advance(500);
      const hb = beat();
      m.onHeartbeatResponse(hb.seq, ok(2, [{ topicId: T1, partitions: [0] }, { topicId: 'AAAAAAAAAAAAAAAAAAAABA', partitions: [0] }]));
      const { plan, unresolved } = m.startReconciliation(resolve, [{ topic: 'orders', partition: 0 }]);
      expect(plan).to.equal(null);
      expect(unresolved).to.deep.equal(['AAAAAAAAAAAAAAAAAAAABA']);
      expect(m.state).to.equal(S.Acknowledging);
      beat();
      expect(m.state, 'still short of the target').to.equal(S.Reconciling);
    });

    it('a revoked topic the metadata lost is still named from the names of the assignment', () => {
      joinWith([0]);
      clock.advance(500);
      const hb = beat();
      m.onHeartbeatResponse(hb.seq, ok(2, [{ topicId: T2, partitions: [0] }]));
      const { plan } = m.startReconciliation((id) => (id === T2 ? 'payments' : undefined), [{ topic: 'orders', partition: 0 }]);
      expect(plan!.revoked).to.deep.equal([{ topic: 'orders', partition: 0 }]);
      expect(plan!.added).to.deep.equal([{ topic: 'payments', partition: 0 }]);
    });

    it('a reconciliation overtaken by a rejoin is abandoned', () => {
      joinWith([0]);
      clock.advance(500);
      const hb = beat();
      m.onHeartbeatResponse(hb.seq, ok(2, [{ topicId: T1, partitions: [0, 1] }]));
      const { plan } = m.startReconciliation(resolve, [{ topic: 'orders', partition: 0 }]);
      clock.advance(500);
      const next = beat().seq;
      m.onHeartbeatResponse(next, error(ErrorCode.UNKNOWN_MEMBER_ID));
      m.rejoinAfterFence();
      expect(m.continueReconciliation(plan!)).to.equal(false);
      expect(m.completeReconciliation(plan!)).to.equal(false);
      expect(m.state).to.equal(S.Joining);
    });

    it('assignments are not taken while leaving', () => {
      joinWith([0]);
      expect(m.leaveGroup()).to.equal(true);
      clock.advance(500);
      const hb = beat();
      m.onHeartbeatResponse(hb.seq, ok(2, [{ topicId: T1, partitions: [0, 1] }]));
      expect(m.state).to.equal(S.PrepareLeaving);
      expect(m.memberEpoch).to.equal(2);
      expect(m.target.partitions.get(T1)).to.deep.equal([0]);
    });
  });

  describe('heartbeats', () => {
    it('go every interval the coordinator names, carrying only the member id and epoch when nothing changed', () => {
      joinWith([0]);
      expect(m.pollHeartbeat(true), 'the interval is not up').to.equal(null);
      clock.advance(499);
      expect(m.pollHeartbeat(true)).to.equal(null);
      clock.advance(1);
      const hb = beat();
      expect(hb.msg).to.include({ memberId: 'member-1', memberEpoch: 1, rebalanceTimeoutMs: -1, subscribedTopicNames: null, serverAssignor: null, topicPartitions: null, rackId: null });
      m.onHeartbeatResponse(hb.seq, ok(1, null, { heartbeatIntervalMs: 800 }));
      clock.advance(500);
      expect(m.pollHeartbeat(true), 'the new interval runs from the answer').to.equal(null);
      clock.advance(300);
      beat();
    });

    it('a changed subscription goes once, with the next heartbeat', () => {
      joinWith([0]);
      m.updateSubscription(['orders', 'payments']);
      clock.advance(500);
      const hb = beat();
      expect(hb.msg.subscribedTopicNames).to.deep.equal(['orders', 'payments']);
      m.onHeartbeatResponse(hb.seq, ok(1, null));
      clock.advance(500);
      expect(beat().msg.subscribedTopicNames).to.equal(null);
    });

    it('after an error every field goes again', () => {
      joinWith([0]);
      clock.advance(500);
      const hb = beat();
      m.onHeartbeatResponse(hb.seq, error(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS));
      clock.advance(100);
      const again = beat();
      expect(again.msg).to.include({ rebalanceTimeoutMs: 30_000, memberEpoch: 1 });
      expect(again.msg.subscribedTopicNames).to.deep.equal(['orders']);
      expect(again.msg.topicPartitions).to.deep.equal([{ topicId: T1, partitions: [0] }]);
    });
  });

  describe('fenced', () => {
    for (const code of [ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID]) {
      it(`${code === ErrorCode.FENCED_MEMBER_EPOCH ? 'FENCED_MEMBER_EPOCH' : 'UNKNOWN_MEMBER_ID'}: FENCED with epoch 0, then (partitions released) JOINING again at once, same id, nothing owned`, () => {
        joinWith([0, 1], 4);
        clock.advance(500);
        const hb = beat();
        const outcome = m.onHeartbeatResponse(hb.seq, error(code));
        expect(outcome).to.include({ kind: 'fenced', errorCode: code });
        expect(m.state).to.equal(S.Fenced);
        expect(m.memberEpoch).to.equal(0);
        expect(m.pollHeartbeat(true), 'no heartbeat while releasing').to.equal(null);
        m.rejoinAfterFence();
        expect(m.state).to.equal(S.Joining);
        const join = beat();
        expect(join.msg).to.include({ memberId: 'member-1', memberEpoch: 0, rebalanceTimeoutMs: 30_000 });
        expect(join.msg.topicPartitions).to.deep.equal([]);
      });
    }

    it('a join itself answered FENCED_MEMBER_EPOCH (the id is held at another epoch) rejoins under a new member id', () => {
      m.updateSubscription(['orders']);
      m.maybeJoin();
      const join = beat();
      expect(m.onHeartbeatResponse(join.seq, error(ErrorCode.FENCED_MEMBER_EPOCH)).kind).to.equal('fenced');
      m.rejoinAfterFence();
      expect(beat().msg).to.include({ memberId: 'member-2', memberEpoch: 0 });
    });

    it('fenced while leaving: out of the group, no rejoin and no leave heartbeat', () => {
      joinWith([0]);
      m.leaveGroup();
      clock.advance(500);
      const hb = beat();
      expect(m.onHeartbeatResponse(hb.seq, error(ErrorCode.UNKNOWN_MEMBER_ID))).to.deep.equal({ kind: 'ignored' });
      expect(m.state).to.equal(S.Unsubscribed);
      m.transitionToSendingLeaveGroup(false);
      expect(m.leaveHeartbeat(true)).to.equal(null);
      expect(m.maybeJoin()).to.equal(false);
    });
  });

  describe('coordinator moves and retries', () => {
    for (const code of [ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE]) {
      it(`${code === ErrorCode.NOT_COORDINATOR ? 'NOT_COORDINATOR' : 'COORDINATOR_NOT_AVAILABLE'}: find the coordinator again; the heartbeat goes as soon as it is known, with every field`, () => {
        joinWith([0]);
        clock.advance(500);
        const hb = beat();
        expect(m.onHeartbeatResponse(hb.seq, error(code))).to.include({ kind: 'find-coordinator', errorCode: code });
        expect(m.state, 'still a member').to.equal(S.Stable);
        expect(m.pollHeartbeat(false)).to.equal(null);
        const again = beat();
        expect(again.msg).to.include({ memberEpoch: 1, rebalanceTimeoutMs: 30_000 });
        expect(again.msg.topicPartitions).to.deep.equal([{ topicId: T1, partitions: [0] }]);
      });
    }

    it('no answer (timeout, coordinator gone): find the coordinator again, after a backoff', () => {
      joinWith([0]);
      clock.advance(500);
      const hb = beat();
      expect(m.onHeartbeatFailure(hb.seq, ErrorCode.REQUEST_TIMED_OUT, 'timed out').kind).to.equal('find-coordinator');
      expect(m.pollHeartbeat(true)).to.equal(null);
      clock.advance(100);
      beat();
    });

    it('COORDINATOR_LOAD_IN_PROGRESS: the same coordinator again after retry.backoff.ms, doubling up to retry.backoff.max.ms', () => {
      m.updateSubscription(['orders']);
      m.maybeJoin();
      const waits: number[] = [];
      for (let i = 0; i < 6; i++) {
        const hb = beat();
        expect(m.onHeartbeatResponse(hb.seq, error(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)).kind).to.equal('retry');
        expect(m.state).to.equal(S.Joining);
        let waited = 0;
        while (m.timing.dueInMs(clock.now()) > 0) {
          clock.advance(1);
          waited++;
        }
        waits.push(waited);
      }
      expect(waits).to.deep.equal([100, 200, 400, 800, 1_000, 1_000]);
    });

    it('UNRELEASED_INSTANCE_ID: the static member keeps trying to join after a backoff', () => {
      m = new ConsumerMembership(config({ instanceId: 'i-1' }), clock);
      m.updateSubscription(['orders']);
      m.maybeJoin();
      const hb = beat();
      expect(m.onHeartbeatResponse(hb.seq, error(ErrorCode.UNRELEASED_INSTANCE_ID)).kind).to.equal('retry');
      expect(m.state).to.equal(S.Joining);
      expect(m.pollHeartbeat(true)).to.equal(null);
      clock.advance(100);
      expect(beat().msg).to.include({ memberEpoch: 0, instanceId: 'i-1' });
    });
  });

  describe('fatal errors', () => {
    const FATAL: [string, number][] = [
      ['UNSUPPORTED_ASSIGNOR', ErrorCode.UNSUPPORTED_ASSIGNOR],
      ['GROUP_MAX_SIZE_REACHED', ErrorCode.GROUP_MAX_SIZE_REACHED],
      ['INVALID_REQUEST', ErrorCode.INVALID_REQUEST],
      ['GROUP_AUTHORIZATION_FAILED', ErrorCode.GROUP_AUTHORIZATION_FAILED],
      ['UNSUPPORTED_VERSION', ErrorCode.UNSUPPORTED_VERSION],
      ['FENCED_INSTANCE_ID', ErrorCode.FENCED_INSTANCE_ID],
      ['an unexpected error (UNKNOWN_SERVER_ERROR)', ErrorCode.UNKNOWN_SERVER_ERROR],
    ];
    for (const [name, code] of FATAL) {
      it(`${name}: FATAL, no assignment, nothing sent again`, () => {
        joinWith([0]);
        clock.advance(500);
        const hb = beat();
        const outcome = m.onHeartbeatResponse(hb.seq, error(code));
        expect(outcome).to.include({ kind: 'fatal', errorCode: code });
        expect(m.state).to.equal(S.Fatal);
        expect(m.current.isNone()).to.equal(true);
        clock.advance(60_000);
        expect(m.pollHeartbeat(true)).to.equal(null);
        expect(m.maybeJoin()).to.equal(false);
        m.transitionToJoining();
        expect(m.state, 'nothing follows FATAL').to.equal(S.Fatal);
        expect(m.leaveGroup()).to.equal(false);
      });
    }

    it('a fatal error while joining', () => {
      m.updateSubscription(['orders']);
      m.maybeJoin();
      const join = beat();
      expect(m.onHeartbeatResponse(join.seq, error(ErrorCode.UNSUPPORTED_ASSIGNOR)).kind).to.equal('fatal');
      expect(m.state).to.equal(S.Fatal);
    });
  });

  describe('leaving', () => {
    it('closing: PREPARE_LEAVING (heartbeats go on), then LEAVING with epoch -1; the leave goes at once and the member is UNSUBSCRIBED', () => {
      joinWith([0, 1], 5);
      expect(m.leaveGroup()).to.equal(true);
      expect(m.state).to.equal(S.PrepareLeaving);
      expect(m.hasValidEpoch(), 'it can still commit').to.equal(true);
      expect(m.leaveGroup(), 'already leaving').to.equal(false);
      clock.advance(500);
      m.onHeartbeatResponse(beat().seq, ok(5, null));
      m.transitionToSendingLeaveGroup(false);
      expect(m.state).to.equal(S.Leaving);
      expect(m.memberEpoch).to.equal(-1);
      expect(m.pollHeartbeat(true), 'the leave goes through leaveHeartbeat').to.equal(null);
      const leave = m.leaveHeartbeat(true)!;
      expect(leave).to.include({ memberId: 'member-1', memberEpoch: -1, instanceId: null });
      expect(m.state).to.equal(S.Unsubscribed);
      clock.advance(60_000);
      expect(m.pollHeartbeat(true)).to.equal(null);
      expect(m.maybeJoin(), 'no new subscription: it stays out').to.equal(false);
    });

    it('a static member leaves with epoch -2 and its instance id', () => {
      m = new ConsumerMembership(config({ instanceId: 'i-7' }), clock);
      joinWith([0]);
      m.leaveGroup();
      m.transitionToSendingLeaveGroup(false);
      expect(m.leaveHeartbeat(true)).to.include({ memberEpoch: -2, instanceId: 'i-7', memberId: 'member-1' });
      expect(m.state).to.equal(S.Unsubscribed);
    });

    it('with no coordinator to send it to, the member is out all the same', () => {
      joinWith([0]);
      m.leaveGroup();
      m.transitionToSendingLeaveGroup(false);
      expect(m.leaveHeartbeat(false)).to.equal(null);
      expect(m.state).to.equal(S.Unsubscribed);
    });

    it('a member not in the group has nothing to leave', () => {
      expect(m.leaveGroup()).to.equal(false);
      expect(m.state).to.equal(S.Unsubscribed);
    });

    it('answers after the leave are ignored', () => {
      joinWith([0]);
      clock.advance(500);
      const hb = beat();
      m.leaveGroup();
      m.transitionToSendingLeaveGroup(false);
      m.leaveHeartbeat(true);
      expect(m.onHeartbeatResponse(hb.seq, ok(9, [{ topicId: T1, partitions: [0, 1] }]))).to.deep.equal({ kind: 'ignored' });
      expect(m.state).to.equal(S.Unsubscribed);
    });

    it('the poll timer expired: LEAVING, the leave goes, the member is STALE until the next poll joins it again', () => {
      joinWith([0], 3);
      m.transitionToSendingLeaveGroup(true);
      expect(m.state).to.equal(S.Leaving);
      expect(m.leaveHeartbeat(true)).to.include({ memberEpoch: -1 });
      expect(m.state).to.equal(S.Stale);
      expect(m.current.isNone()).to.equal(true);
      expect(m.pollHeartbeat(true)).to.equal(null);
      expect(m.maybeJoin()).to.equal(true);
      expect(m.state).to.equal(S.Joining);
      expect(beat().msg).to.include({ memberEpoch: 0, memberId: 'member-1' });
    });
  });

  describe('LocalAssignment', () => {
    it('a new target gets the next local epoch only when its partitions differ', () => {
      const a = LocalAssignment.NONE.updateWith(LocalAssignment.fromTopicPartitions(0, []))!;
      expect(a.localEpoch).to.equal(0);
      const b = a.updateWith(LocalAssignment.fromTopicPartitions(0, [{ topicId: T1, partitions: [2, 1] }]))!;
      expect(b.localEpoch).to.equal(1);
      expect(b.toTopicPartitions()).to.deep.equal([{ topicId: T1, partitions: [1, 2] }]);
      expect(b.updateWith(LocalAssignment.fromTopicPartitions(0, [{ topicId: T1, partitions: [1, 2] }]))).to.equal(null);
      expect(() => new LocalAssignment(-1, new Map([[T1, [0]]]))).to.throw();
    });
  });
});
