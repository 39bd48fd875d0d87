/**
 * Classic-protocol members inside a KIP-848 consumer group, as Kafka 4.0 serves them
 * (GroupMetadataManager's classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
 * classicGroupHeartbeatToConsumerGroup, classicGroupLeaveToConsumerGroup): pure functions over
 * a ConsumerGroup, no timers and no I/O; the coordinator keeps the timers and writes the records.
 *
 * A classic member's JoinGroup is a heartbeat of the consumer group: its subscription and owned
 * partitions come from the ConsumerProtocol Subscription of its first protocol, its epoch is not
 * checked, the server assignor assigns and the member is reconciled as any other; the JoinGroup
 * answers its member epoch as the generation (no leader, no member list). SyncGroup hands it its
 * current assignment encoded as a ConsumerProtocol Assignment (the version of its Subscription).
 * Heartbeat tells it REBALANCE_IN_PROGRESS whenever it must join again: the group epoch moved
 * past its epoch, it has partitions to revoke, or the partitions it waited on are free now.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { ASSIGNMENT_MAX_VERSION, CONSUMER_PROTOCOL_TYPE, ConsumerProtocolError, decodeSubscription, encodeAssignment, type Subscription } from './consumer-protocol.js';
import { MemberState, type ClassicMemberMetadata, type ConsumerGroup, type ConsumerHeartbeat, type ConsumerMember, type TopicInfo } from './consumer-group.js';
import type { TopicIdPartitions } from './messages.js';

/** A JoinGroup as the consumer group takes it. */
export interface ClassicJoin {
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: readonly { name: string; metadata: Uint8Array }[];
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  clientId: string;
  clientHost: string;
  /** Its first protocol's Subscription when the caller decoded it already; null: it did not decode. */
  subscription?: Subscription | null;
}

export type ClassicError = { kind: 'error'; errorCode: number; errorMessage: string };

/**
 * Kafka's ConsumerGroup.supportsClassicProtocols: a "consumer" member whose protocols include
 * one that every classic member of the group supports (any, in a group without members).
 */
export function supportsClassicProtocols(g: ConsumerGroup, protocolType: string, names: readonly string[]): boolean {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE) return false;
  if (g.members.size === 0) return names.length > 0;
  const classic = [...g.members.values()].filter((m) => m.classic !== null);
  return names.some((name) => classic.every((m) => m.classic!.supportedProtocols.some((p) => p.name === name)));
}

/** The topic names of the cluster as topic ids (unknown topics left out, as Kafka's toTopicPartitions). */
function ownedByTopicId(owned: readonly { topic: string; partitions: number[] }[], topic: (name: string) => TopicInfo | undefined): TopicIdPartitions[] {
  const out: TopicIdPartitions[] = [];
  for (const t of owned) {
    const info = topic(t.topic);
    if (info) out.push({ topicId: info.topicId, partitions: [...t.partitions] });
  }
  return out;
}

/**
 * The consumer group heartbeat a classic JoinGroup stands for (member id '': a new member, whose
 * id the heartbeat's environment makes), or INCONSISTENT_GROUP_PROTOCOL for protocols the
 * group's classic members do not share, UNKNOWN_SERVER_ERROR for a Subscription that does not
 * decode (Kafka's IllegalStateException).
 */
export function classicJoinHeartbeat(g: ConsumerGroup, join: ClassicJoin, topic: (name: string) => TopicInfo | undefined): ConsumerHeartbeat | ClassicError {
  const memberId = join.memberId;
  const names = join.protocols.map((p) => p.name);
  if (!supportsClassicProtocols(g, join.protocolType, names)) {
    return { kind: 'error', errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, errorMessage: `Member ${memberId}'s protocols are not supported.` };
  }
  const subscription = join.subscription === undefined ? classicSubscription(join.protocols) : join.subscription;
  if (subscription === null) {
    return { kind: 'error', errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'Malformed embedded consumer protocol in subscription deserialization.' };
  }
  const classic: ClassicMemberMetadata = { sessionTimeoutMs: join.sessionTimeoutMs, supportedProtocols: join.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) };
  return {
    memberId,
    memberEpoch: 0,
    instanceId: join.groupInstanceId,
    rackId: subscription.rackId,
    rebalanceTimeoutMs: join.rebalanceTimeoutMs,
    subscribedTopicNames: subscription.topics,
    subscribedTopicRegex: null,
    serverAssignor: null,
    ownedTopicPartitions: ownedByTopicId(subscription.ownedPartitions, topic),
    clientId: join.clientId,
    clientHost: join.clientHost,
    classic,
  };
}

/** The ConsumerProtocol Subscription of a classic member's first protocol, or null when it does not decode. */
export function classicSubscription(protocols: ClassicJoin['protocols']): Subscription | null {
  try {
    return decodeSubscription(protocols[0]!.metadata);
  } catch (err) {
    if (!(err instanceof ConsumerProtocolError)) throw err;
    return null;
  }
}

/** The protocol a classic member's JoinGroup and SyncGroup are answered with: its first. */
export function classicProtocolName(m: ConsumerMember): string {
  return m.classic?.supportedProtocols[0]?.name ?? '';
}

/** The ConsumerProtocol version of a member's Subscription (its Assignment is encoded in it, at most the highest known). */
export function subscriptionVersion(metadata: Uint8Array | undefined): number {
  if (!metadata || metadata.length < 2) return 0;
  const v = Buffer.from(metadata.buffer, metadata.byteOffset, metadata.byteLength).readInt16BE(0);
  return Math.max(0, Math.min(v, ASSIGNMENT_MAX_VERSION));
}

/** A member's assigned partitions (topic ids) as a ConsumerProtocol Assignment of topic names (unknown topics left out). */
export function encodeClassicAssignment(assigned: ReadonlyMap<string, ReadonlySet<number>>, version: number, topicName: (topicId: string) => string | undefined): Uint8Array {
  const partitions: { topic: string; partitions: number[] }[] = [];
  for (const [topicId, ps] of [...assigned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const name = topicName(topicId);
    if (name === undefined || ps.size === 0) continue;
    partitions.push({ topic: name, partitions: [...ps].sort((a, b) => a - b) });
  }
  return encodeAssignment({ version, partitions });
}

/**
 * Kafka's validateConsumerGroupMember plus throwIfMemberDoesNotUseClassicProtocol: the member a
 * classic SyncGroup / Heartbeat names (by instance id for a static member), or its error.
 */
export function findClassicMember(g: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerMember | ClassicError {
  let m: ConsumerMember | undefined;
  if (instanceId === null) {
    m = g.members.get(memberId);
    if (!m) return { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Member ${memberId} is not a member of group ${g.groupId}.` };
  } else {
    m = g.staticMember(instanceId);
    if (!m) return { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Member with instance id ${instanceId} is not a member of group ${g.groupId}.` };
    if (m.memberId !== memberId) {
      return { kind: 'error', errorCode: ErrorCode.FENCED_INSTANCE_ID, errorMessage: `Static member ${memberId} with instance id ${instanceId} was fenced by member ${m.memberId}.` };
    }
  }
  if (m.classic === null) return { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Member ${m.memberId} does not use the classic protocol.` };
  return m;
}

export function isClassicError(x: unknown): x is ClassicError {
  return typeof x === 'object' && x !== null && (x as ClassicError).kind === 'error';
}

/**
 * Why a classic member's SyncGroup is refused (null: it gets its assignment): another
 * generation (ILLEGAL_GENERATION), another protocol (INCONSISTENT_GROUP_PROTOCOL), or a
 * rebalance it must join first (REBALANCE_IN_PROGRESS: the group epoch is past its epoch and it
 * has nothing to revoke).
 */
export function classicSyncProblem(g: ConsumerGroup, m: ConsumerMember, generationId: number, protocolType: string | null, protocolName: string | null): number | null {
  if (m.memberEpoch !== generationId) return ErrorCode.ILLEGAL_GENERATION;
  if (protocolType != null && protocolType !== CONSUMER_PROTOCOL_TYPE) return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
  if (protocolName != null && protocolName !== classicProtocolName(m)) return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
  if (g.groupEpoch > m.memberEpoch && m.state !== MemberState.UnrevokedPartitions) return ErrorCode.REBALANCE_IN_PROGRESS;
  return null;
}

/** Kafka's ConsumerGroup.waitingOnUnreleasedPartition: some partition of its target is still owned by another member. */
export function waitingOnUnreleasedPartition(g: ConsumerGroup, m: ConsumerMember): boolean {
  if (m.state !== MemberState.UnreleasedPartitions) return false;
  for (const [topicId, ps] of g.targetAssignment.get(m.memberId) ?? new Map<string, Set<number>>()) {
    const have = m.assigned.get(topicId);
    for (const p of ps) if (!have?.has(p) && g.currentPartitionEpoch(topicId, p) !== -1) return true;
  }
  return false;
}

/**
 * Whether a classic member's Heartbeat tells it to join again (REBALANCE_IN_PROGRESS): the group
 * epoch moved past its epoch, it must revoke partitions, or the partitions it waited on are free.
 */
export function classicMustRejoin(g: ConsumerGroup, m: ConsumerMember): boolean {
  return m.memberEpoch < g.groupEpoch || m.state === MemberState.UnrevokedPartitions || (m.state === MemberState.UnreleasedPartitions && !waitingOnUnreleasedPartition(g, m));
}
