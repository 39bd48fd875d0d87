/**
 * Online migration between a classic group and a KIP-848 consumer group, as Kafka 4.0's
 * GroupMetadataManager (validateOnlineUpgrade / convertToConsumerGroup,
 * validateOnlineDowngradeWithFencedMember / convertToClassicGroup) and its
 * ConsumerGroup.fromClassicGroup / ClassicGroup.fromConsumerGroup: pure functions; the
 * coordinator swaps the groups, moves the timers and writes the records.
 *
 * group.consumer.migration.policy (Kafka's ConsumerGroupMigrationPolicy, default bidirectional)
 * says which way a live group may go:
 * - upgrade: a ConsumerGroupHeartbeat joining a classic group with members that speaks the
 *   "consumer" protocol (and is not bigger than group.consumer.max.size) turns it into a
 *   consumer group: every classic member becomes a classic member of it, Stable at the
 *   classic generation as its epoch, with its last assignment as its current and target one;
 * - downgrade: when the last consumer-protocol member of a consumer group leaves or is fenced
 *   and classic members remain, the group becomes a classic group again at the group epoch as
 *   its generation, each member with its target assignment, and rebalances.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment, decodeSubscription } from './consumer-protocol.js';
import { ConsumerGroup, MemberState, type ConsumerMember, type TopicInfo } from './consumer-group.js';
import { GroupMetadata, GroupState, MemberMetadata } from './group-state.js';
import { encodeClassicAssignment, subscriptionVersion } from './classic-members.js';
import type { TopicAssignment } from './assignors/server.js';

export const MIGRATION_POLICIES = ['disabled', 'upgrade', 'downgrade', 'bidirectional'] as const;
export type MigrationPolicy = (typeof MIGRATION_POLICIES)[number];

export function isUpgradeEnabled(p: MigrationPolicy): boolean {
  return p === 'upgrade' || p === 'bidirectional';
}

export function isDowngradeEnabled(p: MigrationPolicy): boolean {
  return p === 'downgrade' || p === 'bidirectional';
}

/**
 * Why a non-empty classic group cannot become a consumer group (null: it can): the policy, a
 * protocol type other than "consumer", or more members than a consumer group may have. Each
 * refusal is Kafka's GROUP_ID_NOT_FOUND ("Group <id> is not a consumer group") to the member.
 */
export function upgradeRefusal(policy: MigrationPolicy, g: GroupMetadata, maxSize: number): string | null {
  if (!isUpgradeEnabled(policy)) return 'the online upgrade is disabled';
  if (g.protocolType !== CONSUMER_PROTOCOL_TYPE) return 'the group does not use the consumer embedded protocol';
  if (g.size > maxSize) return 'the group size exceeds the consumer group maximum size';
  return null;
}

export type UpgradeResult = { ok: true; group: ConsumerGroup } | { ok: false; errorCode: number; errorMessage: string };

/**
 * Kafka's ConsumerGroup.fromClassicGroup: the classic group's members as classic members of a
 * consumer group at its generation (epochs, target assignment epoch), each Stable with its last
 * assignment (topics unknown to the metadata left out) as current and target assignment, its
 * subscription from its Subscription for the group's protocol. Every record of it is dirty.
 */
export function consumerGroupFromClassic(classic: GroupMetadata, topic: (name: string) => TopicInfo | undefined): UpgradeResult {
  const g = new ConsumerGroup(classic.groupId);
  g.groupEpoch = classic.generationId;
  g.assignmentEpoch = classic.generationId;
  try {
    for (const cm of classic.allMembers()) {
      const protocol = classic.protocolName ?? cm.supportedProtocols[0]?.name ?? '';
      const subscription = decodeSubscription(cm.metadata(protocol));
      const assigned: TopicAssignment = new Map();
      for (const t of decodeAssignment(cm.assignment).partitions) {
        const info = topic(t.topic);
        if (!info) continue;
        const set = assigned.get(info.topicId) ?? new Set<number>();
        for (const p of t.partitions) set.add(p);
        assigned.set(info.topicId, set);
      }
      const member: ConsumerMember = {
        memberId: cm.memberId,
        instanceId: cm.groupInstanceId,
        rackId: subscription.rackId,
        clientId: cm.clientId,
        clientHost: cm.clientHost,
        rebalanceTimeoutMs: cm.rebalanceTimeoutMs,
        serverAssignor: null,
        subscribedTopicNames: [...subscription.topics],
        subscribedTopicRegex: null,
        memberEpoch: classic.generationId,
        previousMemberEpoch: classic.generationId,
        state: MemberState.Stable,
        assigned,
        pendingRevocation: new Map(),
        classic: { sessionTimeoutMs: cm.sessionTimeoutMs, supportedProtocols: cm.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
      };
      g.targetAssignment.set(member.memberId, new Map([...assigned].map(([t, ps]) => [t, new Set(ps)])));
      g.setMember(member);
    }
  } catch (err) {
    return { ok: false, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Cannot upgrade the classic group ${classic.groupId} to consumer group because the embedded consumer protocol is malformed: ${(err as Error).message}` };
  }
  g.markAllDirty();
  return { ok: true, group: g };
}

/**
 * Kafka's validateOnlineDowngradeWithFencedMember: the leaving member is the group's last
 * consumer-protocol member, others remain (all classic, no more than group.max.size
 * `classicMaxSize`), and the policy allows a downgrade.
 */
export function shouldDowngrade(policy: MigrationPolicy, g: ConsumerGroup, leavingMemberId: string, classicMaxSize: number): boolean {
  return (
    g.allMembersUseClassicProtocolExcept(leavingMemberId) &&
    g.members.size > 1 &&
    g.members.size - 1 <= classicMaxSize &&
    isDowngradeEnabled(policy) &&
    sharesProtocol(g, leavingMemberId)
  );
}

/** The classic members but the leaving one share a protocol (the classic group's), as every classic join made sure. */
export function sharesProtocol(g: ConsumerGroup, leavingMemberId: string): boolean {
  const classic = [...g.members.values()].filter((m) => m.memberId !== leavingMemberId && m.classic !== null);
  const first = classic[0];
  if (!first) return false;
  return first.classic!.supportedProtocols.some((p) => classic.every((m) => m.classic!.supportedProtocols.some((q) => q.name === p.name)));
}

/**
 * Kafka's ClassicGroup.fromConsumerGroup: a Stable classic group at the group epoch as its
 * generation with every member but the leaving one (the first member leads), the protocol its
 * members share, and each member's target assignment encoded in the version of its Subscription.
 */
export function classicGroupFromConsumer(g: ConsumerGroup, leavingMemberId: string, topicName: (topicId: string) => string | undefined, now: number): GroupMetadata {
  const classic = new GroupMetadata(g.groupId, { initialState: GroupState.Stable, now });
  classic.generationId = g.groupEpoch;
  for (const m of g.members.values()) {
    if (m.memberId === leavingMemberId || m.classic === null) continue;
    classic.add(
      new MemberMetadata({
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.classic.sessionTimeoutMs,
        protocolType: CONSUMER_PROTOCOL_TYPE,
        supportedProtocols: m.classic.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })),
        now,
      }),
    );
  }
  classic.protocolName = classic.selectProtocol();
  for (const cm of classic.allMembers()) {
    const target = g.targetAssignment.get(cm.memberId) ?? new Map<string, Set<number>>();
    cm.assignment = encodeClassicAssignment(target, subscriptionVersion(cm.metadata(classic.protocolName)), topicName);
  }
  return classic;
}
