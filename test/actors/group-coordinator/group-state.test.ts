/**
 * GroupMetadata: every legal and every illegal state transition, membership and leader election,
 * protocol validation and selection by votes, generation bumps, the join and sync phases,
 * static members, subscriptions of consumer groups, and the DescribeGroups summary.
 */
import { expect } from 'chai';
import { encodeAssignment, encodeSubscription } from '../../../actors/group-coordinator/consumer-protocol.js';
import {
  GroupMetadata,
  GroupState,
  GroupStateError,
  IllegalStateTransition,
  MemberMetadata,
  isValidTransition,
  newMemberId,
  validPreviousStates,
  type Protocol,
} from '../../../actors/group-coordinator/group-state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const ALL_STATES = [
  GroupState.Empty,
  GroupState.PreparingRebalance,
  GroupState.CompletingRebalance,
  GroupState.Stable,
  GroupState.Dead,
];

/** Kafka's table, written out independently of the implementation's. */
const LEGAL: [GroupState, GroupState][] = [
  [GroupState.Stable, GroupState.PreparingRebalance],
  [GroupState.CompletingRebalance, GroupState.PreparingRebalance],
  [GroupState.Empty, GroupState.PreparingRebalance],
  [GroupState.PreparingRebalance, GroupState.CompletingRebalance],
  [GroupState.CompletingRebalance, GroupState.Stable],
  [GroupState.PreparingRebalance, GroupState.Empty],
  [GroupState.Stable, GroupState.Dead],
  [GroupState.PreparingRebalance, GroupState.Dead],
  [GroupState.CompletingRebalance, GroupState.Dead],
  [GroupState.Empty, GroupState.Dead],
  [GroupState.Dead, GroupState.Dead],
];
const isLegal = (from: GroupState, to: GroupState): boolean => LEGAL.some(([f, t]) => f === from && t === to);

const sub = (...topics: string[]): Uint8Array => encodeSubscription({ version: 1, topics });
const proto = (name: string, metadata: Uint8Array = sub('t')): Protocol => ({ name, metadata });

function member(memberId: string, protocols: Protocol[] = [proto('range')], extra: Partial<ConstructorParameters<typeof MemberMetadata>[0]> = {}): MemberMetadata {
  return new MemberMetadata({
    memberId,
    clientId: 'client',
    clientHost: '/127.0.0.1',
    rebalanceTimeoutMs: 300_000,
    sessionTimeoutMs: 45_000,
    protocolType: 'consumer',
    supportedProtocols: protocols,
    ...extra,
  });
}

/** A group with these members, all rejoined, through one generation to Stable. */
function stableGroup(...members: MemberMetadata[]): GroupMetadata {
  const g = new GroupMetadata('g');
  for (const m of members) g.add(m);
  g.transitionTo(GroupState.PreparingRebalance);
  for (const m of members) m.isAwaitingJoin = true;
  g.initNextGeneration();
  for (const m of members) m.isAwaitingJoin = false;
  g.setAssignments(new Map());
  g.transitionTo(GroupState.Stable);
  return g;
}

describe('actors/group-coordinator/group-state', () => {
  describe('state transitions', () => {
    it("has exactly Kafka's validPreviousStates", () => {
      for (const to of ALL_STATES) {
        const expected = LEGAL.filter(([, t]) => t === to).map(([f]) => f).sort();
        expect([...validPreviousStates[to]].sort(), to).to.deep.equal(expected);
      }
    });

    for (const from of ALL_STATES) {
      for (const to of ALL_STATES) {
        if (isLegal(from, to)) {
          it(`allows ${from} -> ${to}`, () => {
            const g = new GroupMetadata('g', { initialState: from, now: 1 });
            expect(isValidTransition(from, to)).to.equal(true);
            g.transitionTo(to, 42);
            expect(g.state).to.equal(to);
            expect(g.is(to)).to.equal(true);
            expect(g.stateTimestampMs).to.equal(42);
          });
        } else {
          it(`refuses ${from} -> ${to} with IllegalStateTransition`, () => {
            const g = new GroupMetadata('g', { initialState: from, now: 1 });
            expect(isValidTransition(from, to)).to.equal(false);
            let caught: unknown;
            try {
              g.transitionTo(to, 42);
            } catch (err) {
              caught = err;
            }
            expect(caught).to.be.instanceOf(IllegalStateTransition);
            expect(caught).to.be.instanceOf(GroupStateError);
            const e = caught as IllegalStateTransition;
            expect([e.from, e.to, e.groupId]).to.deep.equal([from, to, 'g']);
            expect(e.message).to.contain(`${from} -> ${to}`);
            expect(g.state).to.equal(from);
            expect(g.stateTimestampMs).to.equal(1);
          });
        }
      }
    }

    it('can rebalance from Empty, Stable and CompletingRebalance only', () => {
      const can = ALL_STATES.filter((s) => new GroupMetadata('g', { initialState: s }).canRebalance);
      expect(can.sort()).to.deep.equal([GroupState.CompletingRebalance, GroupState.Empty, GroupState.Stable].sort());
    });

    it('starts Empty, at generation 0, without protocol or leader', () => {
      const g = new GroupMetadata('g');
      expect([g.state, g.generationId, g.protocolType, g.protocolName, g.leaderId]).to.deep.equal([GroupState.Empty, 0, null, null, null]);
    });
  });

  describe('members and leader', () => {
    it('makes the first joiner the leader and keeps it as others join', () => {
      const g = new GroupMetadata('g');
      g.add(member('a'));
      g.add(member('b'));
      g.add(member('c'));
      expect(g.leaderId).to.equal('a');
      expect(g.isLeader('a')).to.equal(true);
      expect(g.isLeader('b')).to.equal(false);
      expect(g.size).to.equal(3);
      expect(g.protocolType).to.equal('consumer');
    });

    it('re-elects the oldest remaining member when the leader leaves, and none when the last leaves', () => {
      const g = new GroupMetadata('g');
      for (const id of ['a', 'b', 'c']) g.add(member(id));
      g.remove('b');
      expect(g.leaderId).to.equal('a');
      g.remove('a');
      expect(g.leaderId).to.equal('c');
      g.add(member('d'));
      expect(g.leaderId).to.equal('c');
      g.remove('c');
      expect(g.leaderId).to.equal('d');
      g.remove('d');
      expect(g.leaderId).to.equal(null);
      expect(g.size).to.equal(0);
      g.add(member('e'));
      expect(g.leaderId).to.equal('e');
    });

    it('hands the lead to a rejoined member when the leader has not rejoined', () => {
      const g = new GroupMetadata('g');
      for (const id of ['a', 'b', 'c']) g.add(member(id));
      expect(g.maybeElectNewJoinedLeader()).to.equal(false); // nobody rejoined
      g.get('c')!.isAwaitingJoin = true;
      g.get('b')!.isAwaitingJoin = true;
      expect(g.maybeElectNewJoinedLeader()).to.equal(true);
      expect(g.leaderId).to.equal('b');
      g.get('a')!.isAwaitingJoin = true;
      expect(g.maybeElectNewJoinedLeader()).to.equal(true);
      expect(g.leaderId).to.equal('b'); // a rejoined leader stays
    });

    it('refuses a duplicate member and an inconsistent one', () => {
      const g = new GroupMetadata('g');
      g.add(member('a', [proto('range')]));
      expect(() => g.add(member('a'))).to.throw(GroupStateError, /already in the group/);
      expect(() => g.add(member('b', [proto('roundrobin')]))).to.throw(GroupStateError, /inconsistent/);
      expect(() => g.add(member('c', [proto('range')], { protocolType: 'connect' }))).to.throw(GroupStateError);
      expect(g.size).to.equal(1);
    });

    it('keeps the protocol type after everyone left, but lets a new first member set another', () => {
      const g = new GroupMetadata('g');
      g.add(member('a'));
      g.remove('a');
      expect(g.protocolType).to.equal('consumer');
      g.add(member('b', [proto('x')], { protocolType: 'connect' }));
      expect(g.protocolType).to.equal('connect');
    });

    it('makes member ids from the client id (or instance id) and a unique suffix', () => {
      const ids = new Set(Array.from({ length: 100 }, () => newMemberId('my-client')));
      expect(ids.size).to.equal(100);
      for (const id of ids) expect(id).to.match(/^my-client-[A-Za-z0-9_-]{21}$/);
      expect(newMemberId('my-client', 'instance-1')).to.match(/^instance-1-[A-Za-z0-9_-]{21}$/);
    });

    it('counts all members joined only when each rejoined and no pending joiner is left', () => {
      const g = new GroupMetadata('g');
      g.add(member('a'));
      g.add(member('b'));
      g.transitionTo(GroupState.PreparingRebalance);
      expect(g.allMembersJoined).to.equal(false);
      g.get('a')!.isAwaitingJoin = true;
      expect(g.numAwaitingJoin).to.equal(1);
      expect(g.notYetRejoinedMembers().map((m) => m.memberId)).to.deep.equal(['b']);
      g.get('b')!.isAwaitingJoin = true;
      expect(g.allMembersJoined).to.equal(true);
      g.addPendingMember('c');
      expect(g.hasPendingMember('c')).to.equal(true);
      expect(g.allMembersJoined).to.equal(false);
      const c = member('c');
      c.isAwaitingJoin = true;
      g.add(c); // joining with its id clears it from the pending set
      expect(g.hasPendingMember('c')).to.equal(false);
      expect(g.numPendingMembers).to.equal(0);
      expect(g.allMembersJoined).to.equal(true);
    });

    it('finds members whose session expired at a given time', () => {
      const g = new GroupMetadata('g');
      g.add(member('a', undefined, { now: 1000, sessionTimeoutMs: 10_000 }));
      g.add(member('b', undefined, { now: 5000, sessionTimeoutMs: 10_000 }));
      expect(g.expiredMembers(10_999)).to.deep.equal([]);
      expect(g.expiredMembers(11_000).map((m) => m.memberId)).to.deep.equal(['a']);
      g.get('a')!.lastHeartbeatMs = 11_000;
      expect(g.expiredMembers(15_000).map((m) => m.memberId)).to.deep.equal(['b']);
    });

    it('waits in the join phase as long as the longest member rebalance timeout', () => {
      const g = new GroupMetadata('g');
      expect(g.rebalanceTimeoutMs()).to.equal(0);
      g.add(member('a', undefined, { rebalanceTimeoutMs: 1000 }));
      g.add(member('b', undefined, { rebalanceTimeoutMs: 5000 }));
      expect(g.rebalanceTimeoutMs()).to.equal(5000);
    });

    it('validates a sender: UNKNOWN_MEMBER_ID for strangers, null for members', () => {
      const g = new GroupMetadata('g');
      g.add(member('a'));
      expect(g.validateMember('a')).to.equal(null);
      expect(g.validateMember('zz')).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
      expect(g.validateMember('a', 'no-such-instance')).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });
  });

  describe('group.max.size (acceptsJoiningMember, KIP-389)', () => {
    it('Empty and Dead take any joiner', () => {
      const g = new GroupMetadata('g');
      expect(g.acceptsJoiningMember('', 0)).to.equal(true);
      g.transitionTo(GroupState.Dead);
      expect(g.acceptsJoiningMember('', 1)).to.equal(true);
    });

    it('Stable and CompletingRebalance take a member, and a new one only below the size', () => {
      const g = stableGroup(member('a'), member('b'));
      expect(g.acceptsJoiningMember('a', 2)).to.equal(true);
      expect(g.acceptsJoiningMember('', 2)).to.equal(false);
      expect(g.acceptsJoiningMember('c', 2)).to.equal(false);
      expect(g.acceptsJoiningMember('', 3)).to.equal(true);
      g.transitionTo(GroupState.PreparingRebalance);
      g.transitionTo(GroupState.CompletingRebalance);
      expect(g.acceptsJoiningMember('b', 2)).to.equal(true);
      expect(g.acceptsJoiningMember('', 2)).to.equal(false);
    });

    it('PreparingRebalance counts the members rejoined: a member already rejoined stays, the others only while fewer than the size have', () => {
      const g = stableGroup(member('a'), member('b'), member('c'));
      g.transitionTo(GroupState.PreparingRebalance);
      // a group over a lowered size (3 members, size 2): the first two to rejoin are taken
      expect(g.acceptsJoiningMember('a', 2)).to.equal(true);
      g.get('a')!.isAwaitingJoin = true;
      expect(g.acceptsJoiningMember('b', 2)).to.equal(true);
      g.get('b')!.isAwaitingJoin = true;
      expect(g.acceptsJoiningMember('c', 2)).to.equal(false);
      expect(g.acceptsJoiningMember('', 2)).to.equal(false);
      expect(g.acceptsJoiningMember('a', 2)).to.equal(true);
    });
  });

  describe('static members', () => {
    it('are found by instance id and removed with their member', () => {
      const g = new GroupMetadata('g');
      g.add(member('s1', undefined, { groupInstanceId: 'i1' }));
      expect(g.get('s1')!.isStaticMember).to.equal(true);
      expect(g.hasStaticMember('i1')).to.equal(true);
      expect(g.getStaticMemberId('i1')).to.equal('s1');
      expect(g.validateMember('s1', 'i1')).to.equal(null);
      g.remove('s1');
      expect(g.hasStaticMember('i1')).to.equal(false);
    });

    it('are replaced under a new id keeping place, lead, assignment and pending sync; the old id is fenced', () => {
      const s1 = member('s1', undefined, { groupInstanceId: 'i1' });
      const g = stableGroup(s1, member('b'));
      g.get('s1')!.assignment = new Uint8Array([1, 2, 3]);
      g.get('s1')!.isAwaitingSync = true;
      const fenced = g.replaceStaticMember('i1', 's1', 's1-new');
      expect(fenced).to.deep.equal({ wasAwaitingJoin: false, wasAwaitingSync: true });
      expect([...g.members.keys()]).to.deep.equal(['s1-new', 'b']);
      expect(g.leaderId).to.equal('s1-new');
      expect(g.has('s1')).to.equal(false);
      const replaced = g.get('s1-new')!;
      expect(Array.from(replaced.assignment)).to.deep.equal([1, 2, 3]);
      expect(replaced.groupInstanceId).to.equal('i1');
      expect(replaced.isAwaitingSync).to.equal(false);
      expect(g.getStaticMemberId('i1')).to.equal('s1-new');
      expect(g.validateMember('s1', 'i1')).to.equal(ErrorCode.FENCED_INSTANCE_ID);
      expect(g.validateMember('s1-new', 'i1')).to.equal(null);
      expect(() => g.replaceStaticMember('i1', 'b', 'x')).to.throw(GroupStateError);
    });

    it('carry a replaced member still owing SyncGroup over to its new id', () => {
      const g = new GroupMetadata('g');
      const s = member('s1', undefined, { groupInstanceId: 'i1' });
      g.add(s);
      g.transitionTo(GroupState.PreparingRebalance);
      s.isAwaitingJoin = true;
      g.initNextGeneration();
      g.replaceStaticMember('i1', 's1', 's2');
      expect([...g.pendingSyncMembers]).to.deep.equal(['s2']);
    });
  });

  describe('protocols', () => {
    it('an empty group accepts any non-empty protocol type and list', () => {
      const g = new GroupMetadata('g');
      expect(g.validateProtocols('consumer', ['range'])).to.equal(null);
      expect(g.validateProtocols('anything', ['x', 'y'])).to.equal(null);
      expect(g.validateProtocols('', ['range'])).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect(g.validateProtocols('consumer', [])).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    });

    it('a joiner must share the protocol type and one protocol every member supports', () => {
      const g = new GroupMetadata('g');
      g.add(member('a', [proto('range'), proto('sticky')]));
      g.add(member('b', [proto('sticky'), proto('roundrobin')]));
      expect(g.candidateProtocols()).to.deep.equal(new Set(['sticky']));
      expect(g.validateProtocols('consumer', ['roundrobin', 'sticky'])).to.equal(null);
      expect(g.validateProtocols('consumer', ['range'])).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect(g.validateProtocols('connect', ['sticky'])).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    });

    it("a rejoining member's own old protocols do not count", () => {
      const g = new GroupMetadata('g');
      g.add(member('a', [proto('range')]));
      expect(g.validateProtocols('consumer', ['roundrobin'], 'a')).to.equal(null);
      g.updateMember('a', { supportedProtocols: [proto('roundrobin')], rebalanceTimeoutMs: 1, sessionTimeoutMs: 2 });
      expect(g.get('a')!.protocolNames()).to.deep.equal(['roundrobin']);
      expect([g.get('a')!.rebalanceTimeoutMs, g.get('a')!.sessionTimeoutMs]).to.deep.equal([1, 2]);
      g.add(member('b', [proto('roundrobin')]));
      expect(g.validateProtocols('consumer', ['range'], 'a')).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect(() => g.updateMember('a', { supportedProtocols: [proto('range')], rebalanceTimeoutMs: 1, sessionTimeoutMs: 2 })).to.throw(GroupStateError);
      expect(g.validateProtocols('connect', ['roundrobin'], 'a')).to.equal(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    });

    it('selects, among the protocols all support, the one most members prefer', () => {
      const g = new GroupMetadata('g');
      g.add(member('a', [proto('sticky'), proto('range'), proto('roundrobin')]));
      g.add(member('b', [proto('range'), proto('sticky')]));
      g.add(member('c', [proto('range'), proto('roundrobin'), proto('sticky')]));
      // candidates {sticky, range}; votes: a sticky, b range, c range
      expect(g.selectProtocol()).to.equal('range');
    });

    it('selects the only common protocol even if it is nobody’s first choice', () => {
      const g = new GroupMetadata('g');
      g.add(member('a', [proto('x'), proto('common')]));
      g.add(member('b', [proto('y'), proto('common')]));
      expect(g.selectProtocol()).to.equal('common');
    });

    it("breaks a tie by the leader's preference", () => {
      const g = new GroupMetadata('g');
      g.add(member('a', [proto('x'), proto('y')]));
      g.add(member('b', [proto('y'), proto('x')]));
      expect(g.selectProtocol()).to.equal('x');
      g.remove('a');
      g.add(member('a', [proto('x'), proto('y')]));
      expect(g.leaderId).to.equal('b');
      expect(g.selectProtocol()).to.equal('y');
    });

    it('cannot select a protocol without members', () => {
      expect(() => new GroupMetadata('g').selectProtocol()).to.throw(GroupStateError, /without members/);
    });

    it('compares a rejoin’s protocols by name, order and bytes', () => {
      const m = member('a', [proto('range', new Uint8Array([1])), proto('sticky', new Uint8Array([2]))]);
      expect(m.matches([proto('range', new Uint8Array([1])), proto('sticky', new Uint8Array([2]))])).to.equal(true);
      expect(m.matches([proto('sticky', new Uint8Array([2])), proto('range', new Uint8Array([1]))])).to.equal(false);
      expect(m.matches([proto('range', new Uint8Array([1])), proto('sticky', new Uint8Array([3]))])).to.equal(false);
      expect(m.matches([proto('range', new Uint8Array([1]))])).to.equal(false);
      expect(() => m.metadata('roundrobin')).to.throw(/does not support/);
    });
  });

  describe('generations', () => {
    it('a completed join phase bumps the generation, picks the protocol and awaits everyone’s SyncGroup', () => {
      const g = new GroupMetadata('g');
      g.add(member('a', [proto('sticky'), proto('range')]));
      g.add(member('b', [proto('range'), proto('sticky')]));
      g.add(member('c', [proto('range')]));
      g.transitionTo(GroupState.PreparingRebalance);
      g.initNextGeneration(77);
      expect(g.generationId).to.equal(1);
      expect(g.state).to.equal(GroupState.CompletingRebalance);
      expect(g.stateTimestampMs).to.equal(77);
      expect(g.protocolName).to.equal('range');
      expect([...g.pendingSyncMembers].sort()).to.deep.equal(['a', 'b', 'c']);
      expect(g.hasReceivedSyncFromAllMembers()).to.equal(false);
      expect(g.removePendingSyncMember('a')).to.equal(true);
      expect(g.removePendingSyncMember('a')).to.equal(false);
      g.remove('b');
      expect([...g.pendingSyncMembers]).to.deep.equal(['c']);
      g.removePendingSyncMember('c');
      expect(g.hasReceivedSyncFromAllMembers()).to.equal(true);
    });

    it('a join phase that ends without members bumps the generation and empties the group', () => {
      const g = stableGroup(member('a'));
      expect(g.generationId).to.equal(1);
      g.transitionTo(GroupState.PreparingRebalance);
      g.remove('a');
      g.initNextGeneration();
      expect(g.generationId).to.equal(2);
      expect(g.state).to.equal(GroupState.Empty);
      expect(g.protocolName).to.equal(null);
      expect(g.pendingSyncMembers.size).to.equal(0);
    });

    it('bumps by exactly one per rebalance and validates the generation of requests', () => {
      const a = member('a');
      const g = stableGroup(a);
      for (let gen = 2; gen <= 5; gen++) {
        g.transitionTo(GroupState.PreparingRebalance);
        a.isAwaitingJoin = true;
        g.initNextGeneration();
        a.isAwaitingJoin = false;
        g.transitionTo(GroupState.Stable);
        expect(g.generationId).to.equal(gen);
        expect(g.validateGeneration(gen)).to.equal(null);
        expect(g.validateGeneration(gen - 1)).to.equal(ErrorCode.ILLEGAL_GENERATION);
      }
    });

    it('refuses to start a generation outside PreparingRebalance, changing nothing', () => {
      const g = stableGroup(member('a'));
      expect(() => g.initNextGeneration()).to.throw(IllegalStateTransition);
      expect(g.generationId).to.equal(1);
      expect(g.state).to.equal(GroupState.Stable);
    });
  });

  describe('subscriptions', () => {
    it('knows the topics the consumer members subscribe to, for the chosen protocol', () => {
      const g = new GroupMetadata('g');
      g.add(member('a', [proto('range', sub('orders', 'payments')), proto('sticky', sub('ignored'))]));
      g.add(member('b', [proto('range', sub('orders', 'audit'))]));
      expect(g.subscribedTopics).to.equal(null); // not computed before a generation
      g.transitionTo(GroupState.PreparingRebalance);
      g.initNextGeneration();
      expect(g.subscribedTopics).to.deep.equal(new Set(['orders', 'payments', 'audit']));
      expect(g.isSubscribedTo('audit')).to.equal(true);
      expect(g.isSubscribedTo('ignored')).to.equal(false);
    });

    it('an empty consumer group subscribes to nothing', () => {
      const g = stableGroup(member('a'));
      g.transitionTo(GroupState.PreparingRebalance);
      g.remove('a');
      g.initNextGeneration();
      expect(g.subscribedTopics).to.deep.equal(new Set());
    });

    it('does not know the topics of a non-consumer group or of undecodable subscriptions', () => {
      const other = new GroupMetadata('g');
      other.add(member('a', [proto('x', sub('t'))], { protocolType: 'connect' }));
      other.transitionTo(GroupState.PreparingRebalance);
      other.initNextGeneration();
      expect(other.subscribedTopics).to.equal(null);
      expect(other.isSubscribedTo('t')).to.equal(false);

      const broken = new GroupMetadata('h');
      broken.add(member('a', [proto('range', new Uint8Array([0, 0, 0]))]));
      broken.transitionTo(GroupState.PreparingRebalance);
      broken.initNextGeneration();
      expect(broken.subscribedTopics).to.equal(null);
    });
  });

  describe('sync phase and summary', () => {
    it('stores the leader’s assignment, empty bytes for members it left out', () => {
      const g = new GroupMetadata('g');
      g.add(member('a'));
      g.add(member('b'));
      expect(() => g.setAssignments(new Map())).to.throw(GroupStateError, /cannot set assignments in state Empty/);
      g.transitionTo(GroupState.PreparingRebalance);
      g.initNextGeneration();
      const bytes = encodeAssignment({ partitions: [{ topic: 't', partitions: [0] }] });
      g.setAssignments(new Map([['a', bytes]]));
      expect(g.get('a')!.assignment).to.equal(bytes);
      expect(g.get('b')!.assignment.length).to.equal(0);
      g.clearAssignments();
      expect(g.get('a')!.assignment.length).to.equal(0);
    });

    it("hands the leader each member's metadata for the chosen protocol", () => {
      const g = new GroupMetadata('g');
      const ma = sub('x');
      const mb = sub('y');
      g.add(member('a', [proto('range', ma)], { groupInstanceId: 'i-a' }));
      g.add(member('b', [proto('sticky', sub('z')), proto('range', mb)]));
      g.transitionTo(GroupState.PreparingRebalance);
      expect(() => g.currentMemberMetadata()).to.throw(GroupStateError);
      g.initNextGeneration();
      expect(g.currentMemberMetadata()).to.deep.equal([
        { memberId: 'a', groupInstanceId: 'i-a', metadata: ma },
        { memberId: 'b', groupInstanceId: null, metadata: mb },
      ]);
    });

    it('summarises a Stable group with metadata and assignments, others without', () => {
      const a = member('a', [proto('range', sub('t'))]);
      const g = new GroupMetadata('g');
      g.add(a);
      g.transitionTo(GroupState.PreparingRebalance);
      g.initNextGeneration();
      const assignment = encodeAssignment({ partitions: [{ topic: 't', partitions: [0, 1] }] });
      g.setAssignments(new Map([['a', assignment]]));
      const during = g.summary();
      expect([during.state, during.protocolName, during.protocolType]).to.deep.equal([GroupState.CompletingRebalance, '', 'consumer']);
      expect(during.members[0]!.assignment.length).to.equal(0);
      expect(during.members[0]!.metadata.length).to.equal(0);
      g.transitionTo(GroupState.Stable);
      const s = g.summary();
      expect(s).to.deep.include({ groupId: 'g', state: GroupState.Stable, protocolType: 'consumer', protocolName: 'range', generationId: 1, leader: 'a' });
      expect(s.members).to.deep.equal([
        { memberId: 'a', groupInstanceId: null, clientId: 'client', clientHost: '/127.0.0.1', metadata: sub('t'), assignment },
      ]);
      expect(new GroupMetadata('new').summary()).to.deep.include({ state: GroupState.Empty, protocolType: '', protocolName: '', leader: '', members: [] });
    });

    it('walks a whole lifecycle: join, sync, a member leaves, rebalance, everyone leaves, dead', () => {
      const g = new GroupMetadata('g');
      const a = member('a');
      const b = member('b');
      g.add(a);
      g.transitionTo(GroupState.PreparingRebalance);
      g.add(b);
      a.isAwaitingJoin = b.isAwaitingJoin = true;
      expect(g.allMembersJoined).to.equal(true);
      g.initNextGeneration();
      a.isAwaitingJoin = b.isAwaitingJoin = false;
      g.setAssignments(new Map([['a', new Uint8Array([1])], ['b', new Uint8Array([2])]]));
      g.transitionTo(GroupState.Stable);
      expect([g.generationId, g.leaderId]).to.deep.equal([1, 'a']);

      g.remove('a'); // the leader leaves
      expect(g.canRebalance).to.equal(true);
      g.transitionTo(GroupState.PreparingRebalance);
      g.clearAssignments();
      b.isAwaitingJoin = true;
      expect(g.allMembersJoined).to.equal(true);
      g.initNextGeneration();
      expect([g.generationId, g.leaderId, g.state]).to.deep.equal([2, 'b', GroupState.CompletingRebalance]);

      g.transitionTo(GroupState.PreparingRebalance); // b leaves during the sync phase
      g.remove('b');
      g.initNextGeneration();
      expect([g.generationId, g.leaderId, g.state]).to.deep.equal([3, null, GroupState.Empty]);
      g.transitionTo(GroupState.Dead);
      expect(g.canRebalance).to.equal(false);
      expect(() => g.transitionTo(GroupState.PreparingRebalance)).to.throw(IllegalStateTransition);
    });
  });
});
