/**
 * Online migration between classic and consumer groups on its own (group-conversion.ts), as
 * Kafka 4.0's GroupMetadataManager decides and ConsumerGroup.fromClassicGroup /
 * ClassicGroup.fromConsumerGroup convert: the policy and size checks of an upgrade, the classic
 * group's members as classic members of a consumer group, when a leaving member downgrades the
 * group, and the classic group made of what is left.
 */
import { expect } from 'chai';
import { classicJoinHeartbeat, isClassicError } from '../../../actors/group-coordinator/classic-members.js';
import { ConsumerGroup, MemberState, type HeartbeatEnv, type TopicInfo } from '../../../actors/group-coordinator/consumer-group.js';
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../../../actors/group-coordinator/consumer-protocol.js';
import { MIGRATION_POLICIES, classicGroupFromConsumer, consumerGroupFromClassic, isDowngradeEnabled, isUpgradeEnabled, shouldDowngrade, upgradeRefusal } from '../../../actors/group-coordinator/group-conversion.js';
import { GroupMetadata, GroupState, MemberMetadata } from '../../../actors/group-coordinator/group-state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const T = 'AAAAAAAAAAAAAAAAAAAAAg';

/** group.max.size's default: no limit. */
const MAX = 2_147_483_647;

describe('actors/group-coordinator group-conversion', () => {
  const topics = new Map<string, TopicInfo>([['t', { topicId: T, name: 't', numPartitions: 4 }]]);
  const topic = (n: string) => topics.get(n);
  const env = (): HeartbeatEnv => ({ topic, maxSize: 100, newMemberId: () => `n${Math.random()}` });
  const sub = (version = 1) => encodeSubscription({ version, topics: ['t'] });

  /** A Stable classic group at generation 5: members a (t-0,1) and b (t-2,3, and a topic the metadata does not know). */
  function classic(protocolType = 'consumer'): GroupMetadata {
    const g = new GroupMetadata('g', { now: 0 });
    for (const id of ['a', 'b']) {
      g.add(new MemberMetadata({ memberId: id, groupInstanceId: id === 'b' ? 'inst-b' : null, clientId: `c-${id}`, clientHost: '/h', rebalanceTimeoutMs: 20_000, sessionTimeoutMs: 9_000, protocolType, supportedProtocols: [{ name: 'range', metadata: sub() }], now: 0 }));
    }
    g.transitionTo(GroupState.PreparingRebalance);
    g.initNextGeneration();
    g.generationId = 5;
    g.setAssignments(
      new Map([
        ['a', encodeAssignment({ partitions: [{ topic: 't', partitions: [0, 1] }] })],
        ['b', encodeAssignment({ partitions: [{ topic: 't', partitions: [2, 3] }, { topic: 'unknown', partitions: [0] }] })],
      ]),
    );
    g.transitionTo(GroupState.Stable);
    return g;
  }

  it("the policies: Kafka's four, upgrade and downgrade each allowed by its own and by bidirectional", () => {
    expect(MIGRATION_POLICIES).to.deep.equal(['disabled', 'upgrade', 'downgrade', 'bidirectional']);
    expect(MIGRATION_POLICIES.filter(isUpgradeEnabled)).to.deep.equal(['upgrade', 'bidirectional']);
    expect(MIGRATION_POLICIES.filter(isDowngradeEnabled)).to.deep.equal(['downgrade', 'bidirectional']);
  });

  describe('upgrade', () => {
    it('is refused by the policy, for another protocol type, and above group.consumer.max.size', () => {
      expect(upgradeRefusal('bidirectional', classic(), 2)).to.equal(null);
      expect(upgradeRefusal('upgrade', classic(), 2)).to.equal(null);
      expect(upgradeRefusal('disabled', classic(), 2)).to.match(/disabled/);
      expect(upgradeRefusal('downgrade', classic(), 2)).to.match(/disabled/);
      expect(upgradeRefusal('bidirectional', classic('connect'), 2)).to.match(/consumer embedded protocol/);
      expect(upgradeRefusal('bidirectional', classic(), 1)).to.match(/maximum size/);
    });

    it('makes every classic member a Stable classic member at the generation, its assignment current and target (unknown topics dropped)', () => {
      const r = consumerGroupFromClassic(classic(), topic);
      if (!r.ok) throw new Error(r.errorMessage);
      const g = r.group;
      expect(g.groupEpoch).to.equal(5);
      expect(g.assignmentEpoch).to.equal(5);
      const a = g.members.get('a')!;
      expect(a).to.deep.include({ memberEpoch: 5, previousMemberEpoch: 5, state: MemberState.Stable, clientId: 'c-a', rebalanceTimeoutMs: 20_000, serverAssignor: null });
      expect(a.subscribedTopicNames).to.deep.equal(['t']);
      expect(a.classic).to.deep.equal({ sessionTimeoutMs: 9_000, supportedProtocols: [{ name: 'range', metadata: sub() }] });
      expect([...a.assigned.get(T)!]).to.deep.equal([0, 1]);
      expect([...g.targetAssignment.get('b')!.get(T)!]).to.deep.equal([2, 3]);
      expect(g.members.get('b')!.instanceId).to.equal('inst-b');
      expect(g.staticMember('inst-b')!.memberId).to.equal('b');
      expect(g.currentPartitionEpoch(T, 2)).to.equal(5);
      // everything is written
      const dirty = g.takeDirty();
      expect([...dirty.memberMetadata].sort()).to.deep.equal(['a', 'b']);
      expect(dirty.epoch && dirty.assignmentEpoch).to.equal(true);
    });

    it('a malformed Subscription refuses the upgrade with GROUP_ID_NOT_FOUND', () => {
      const g = classic();
      g.get('a')!.supportedProtocols = [{ name: 'range', metadata: new Uint8Array([0]) }] as never;
      const r = consumerGroupFromClassic(g, topic);
      expect(r.ok).to.equal(false);
      expect(!r.ok && r.errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    });
  });

  describe('downgrade', () => {
    /** A consumer group with classic members x, y and a consumer-protocol member c. */
    function mixed(): ConsumerGroup {
      const g = new ConsumerGroup('g');
      for (const id of ['x', 'y']) {
        const req = classicJoinHeartbeat(g, { memberId: id, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: sub(id === 'x' ? 0 : 1) }, { name: 'roundrobin', metadata: sub() }], sessionTimeoutMs: 7_000, rebalanceTimeoutMs: 11_000, clientId: id, clientHost: '/h' }, topic);
        if (isClassicError(req)) throw new Error('refused');
        g.heartbeat(req, env());
      }
      g.heartbeat({ memberId: 'c', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, ownedTopicPartitions: [], clientId: 'c', clientHost: '/h' }, env());
      return g;
    }

    it('only when the last consumer-protocol member leaves a group of classic members, and the policy allows it', () => {
      const g = mixed();
      expect(shouldDowngrade('bidirectional', g, 'c', MAX)).to.equal(true);
      expect(shouldDowngrade('downgrade', g, 'c', MAX)).to.equal(true);
      expect(shouldDowngrade('upgrade', g, 'c', MAX)).to.equal(false);
      expect(shouldDowngrade('disabled', g, 'c', MAX)).to.equal(false);
      // a classic member leaving: the consumer member stays
      expect(shouldDowngrade('bidirectional', g, 'x', MAX)).to.equal(false);
      expect(shouldDowngrade('bidirectional', g, 'nobody', MAX)).to.equal(false);
      // another consumer-protocol member remains
      g.heartbeat({ memberId: 'd', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, ownedTopicPartitions: [], clientId: 'd', clientHost: '/h' }, env());
      expect(shouldDowngrade('bidirectional', g, 'c', MAX)).to.equal(false);
    });

    it('not when the classic members that would stay are more than group.max.size', () => {
      const g = mixed();
      const classic = [...g.members.values()].filter((m) => m.classic !== null).length;
      expect(shouldDowngrade('bidirectional', g, 'c', classic)).to.equal(true);
      expect(shouldDowngrade('bidirectional', g, 'c', classic - 1)).to.equal(false);
    });

    it('not when the leaving member is the only one (the group just empties)', () => {
      const g = new ConsumerGroup('g');
      g.heartbeat({ memberId: 'c', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, ownedTopicPartitions: [], clientId: 'c', clientHost: '/h' }, env());
      expect(shouldDowngrade('bidirectional', g, 'c', MAX)).to.equal(false);
    });

    it('the classic group: Stable at the group epoch, the others as members (the first leads), their shared protocol, each target assignment in its Subscription version', () => {
      const g = mixed();
      const cg = classicGroupFromConsumer(g, 'c', (id) => (id === T ? 't' : undefined), 42);
      expect(cg.state).to.equal(GroupState.Stable);
      expect(cg.generationId).to.equal(g.groupEpoch);
      expect(cg.protocolType).to.equal('consumer');
      expect(cg.protocolName).to.equal('range');
      expect(cg.allMembers().map((m) => m.memberId)).to.deep.equal(['x', 'y']);
      expect(cg.leaderId).to.equal('x');
      const x = cg.get('x')!;
      expect(x).to.deep.include({ sessionTimeoutMs: 7_000, rebalanceTimeoutMs: 11_000, clientId: 'x' });
      const ax = decodeAssignment(x.assignment);
      const ay = decodeAssignment(cg.get('y')!.assignment);
      expect(ax.version).to.equal(0);
      expect(ay.version).to.equal(1);
      const targetOf = (id: string) => [...(g.targetAssignment.get(id)?.get(T) ?? [])].sort((p, q) => p - q);
      expect(ax.partitions.flatMap((t) => t.partitions)).to.deep.equal(targetOf('x'));
      expect(ay.partitions.flatMap((t) => t.partitions)).to.deep.equal(targetOf('y'));
    });
  });
});
