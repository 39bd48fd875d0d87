/**
 * Messages the group coordinator accepts, and its replies (Kafka's group APIs). Clients find the
 * coordinator of a group with FindCoordinator (answered by any broker) and then talk to the
 * coordinator actor at coordinatorPath(brokerId). Every reply carries `errorCode`.
 */
import type { ActorRef } from '../../src/runtime/types.js';
import type { KafkaListenerMsg } from '../kafka-listener/messages.js';

/** The internal topic holding committed offsets and group metadata. */
export const OFFSETS_TOPIC = '__consumer_offsets';
export const DEFAULT_OFFSETS_TOPIC_PARTITIONS = 50;

/** The coordinator actor of broker `brokerId` (a child of the broker). */
export function coordinatorPath(brokerId: number): string {
  return `/broker-${brokerId}/group-coordinator`;
}

/** Java's String.hashCode over UTF-16 code units, as Kafka uses for the group's partition. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's Utils.abs(groupId.hashCode) % offsets.topic.num.partitions. */
export function offsetsPartitionFor(groupId: string, numPartitions: number): number {
  const h = javaStringHash(groupId);
  const abs = h === -2147483648 ? 0 : Math.abs(h);
  return abs % numPartitions;
}

export interface JoinGroupProtocol {
  name: string;
  metadata: Uint8Array;
}

export interface OffsetCommitPartition {
  partition: number;
  offset: number;
  /** Leader epoch of the last consumed record, or -1. */
  leaderEpoch?: number;
  metadata?: string | null;
}

/** Partitions of one topic, by its Kafka-form topic id (KIP-848 assignments). */
export interface TopicIdPartitions {
  topicId: string;
  partitions: number[];
}

/** A topic as the coordinator's consumer groups see it (from the broker's metadata). */
export interface ConsumerTopicInfo {
  topicId: string;
  name: string;
  numPartitions: number;
  /** One of the cluster's internal topics (__consumer_offsets, ...): no regular expression matches it. */
  internal?: boolean;
}

/**
 * Who sent a consumer group heartbeat through a Kafka listener that checks ACLs, and that
 * listener: it tells which topics they may DESCRIBE (AuthorizeTopics), the only ones their
 * group's regular expressions resolve to when their heartbeat resolves them (as Kafka 4.0).
 */
export interface TopicAuthorizer {
  listener: ActorRef<KafkaListenerMsg>;
  principal: string;
  host: string;
}

export type CoordinatorMsg =
  /**
   * KIP-848's ConsumerGroupHeartbeat (v0-v1): join (memberEpoch 0, memberId '' gets one made by
   * the coordinator), heartbeat, leave (-1) or a static member leaving for now (-2). Null fields
   * are unchanged since the last heartbeat; a joining member names topics, a regular expression
   * (v1; '' for none) or both.
   */
  | {
      type: 'ConsumerGroupHeartbeat';
      groupId: string;
      memberId: string;
      memberEpoch: number;
      instanceId: string | null;
      rackId: string | null;
      rebalanceTimeoutMs: number;
      subscribedTopicNames: string[] | null;
      subscribedTopicRegex?: string | null;
      serverAssignor: string | null;
      topicPartitions: TopicIdPartitions[] | null;
      clientId?: string;
      clientHost?: string;
      /** With ACLs: the listener that tells which topics the member may DESCRIBE (null or absent: every topic). */
      topicAuthorizer?: TopicAuthorizer | null;
    }
  | { type: 'ConsumerGroupDescribe'; groups: string[] }
  /**
   * KIP-932's ShareGroupHeartbeat (v1): join (memberEpoch 0; the member names its own id, as
   * Kafka 4.1's share consumer does), heartbeat, or leave (-1). subscribedTopicNames null: unchanged.
   */
  | {
      type: 'ShareGroupHeartbeat';
      groupId: string;
      memberId: string;
      memberEpoch: number;
      rackId: string | null;
      subscribedTopicNames: string[] | null;
      clientId?: string;
      clientHost?: string;
    }
  | { type: 'ShareGroupDescribe'; groups: string[] }
  /**
   * The cluster's finalized group.version as the broker's metadata has it (KIP-584): below 1
   * the consumer group protocol is off, and ConsumerGroupHeartbeat and ConsumerGroupDescribe
   * answer UNSUPPORTED_VERSION, as Kafka 4.0.
   */
  | { type: 'GroupVersionChanged'; level: number }
  /** The cluster's finalized share.version (its broker, whenever it changes): share groups run at 1 and up. */
  | { type: 'ShareVersionChanged'; level: number }
  /** The group configs in the metadata (group id -> its overrides), whenever they change (its broker). */
  | { type: 'GroupConfigsChanged'; configs: Record<string, Record<string, string>> }
  /**
   * Topics deleted from the cluster (or deleted and made again under their name: another topic
   * id), as its broker's metadata shows: every group loaded here forgets its committed offsets of
   * them, with tombstones, as Kafka's GroupCoordinator.onPartitionsDeleted.
   */
  | { type: 'TopicsDeleted'; topics: string[] }
  /** Internal: the broker's metadata of topics a heartbeat waited for (names null: every topic; topics null: not answered). */
  | { type: 'ConsumerTopicsFetched'; fetchId: number; names: string[] | null; topics: ConsumerTopicInfo[] | null }
  /** Internal: the topics a heartbeat's member may DESCRIBE, of those its group's regular expressions matched (null: not answered). */
  | { type: 'ConsumerRegexTopicsAuthorized'; fetchId: number; allowed: string[] | null }
  /** Internal: a consumer group member's session (group.consumer.session.timeout.ms) ran out. */
  | { type: 'ConsumerSessionDeadline'; groupId: string; memberId: string; seq: number }
  /** Internal: the broker's metadata of the topics a share group heartbeat waited for (topics null: not answered). */
  | { type: 'ShareTopicsFetched'; fetchId: number; names: string[]; topics: ConsumerTopicInfo[] | null }
  /** Internal: a share group member's session (share.session.timeout.ms) ran out. */
  | { type: 'ShareSessionDeadline'; groupId: string; memberId: string; seq: number }
  /** Internal: a member did not revoke its partitions within its rebalance timeout. */
  | { type: 'ConsumerRebalanceDeadline'; groupId: string; memberId: string; memberEpoch: number; seq: number }
  /** Internal: a classic member of a consumer group did not join again (told to) or sync (after its join) within its rebalance timeout. */
  | { type: 'ConsumerClassicDeadline'; groupId: string; memberId: string; phase: 'join' | 'sync'; seq: number }
  | {
      type: 'JoinGroup';
      groupId: string;
      sessionTimeoutMs: number;
      rebalanceTimeoutMs: number;
      /** '' for a new member. */
      memberId: string;
      groupInstanceId?: string | null;
      protocolType: string;
      protocols: JoinGroupProtocol[];
      clientId?: string;
      clientHost?: string;
      /** Kafka's JoinGroup v4+: a new member first gets MEMBER_ID_REQUIRED with its id, then rejoins. */
      requireKnownMemberId?: boolean;
      /** KIP-800 (JoinGroup v8+): why the member (re-)joins; logged with the rebalance it causes. */
      reason?: string | null;
      /**
       * KIP-814 (JoinGroup v9+): the client understands SkipAssignment, so a static leader that
       * rejoins a stable group is told it leads, with the members, and to skip the assignment.
       */
      supportsSkippingAssignment?: boolean;
    }
  | {
      type: 'SyncGroup';
      groupId: string;
      generationId: number;
      memberId: string;
      groupInstanceId?: string | null;
      protocolType?: string | null;
      protocolName?: string | null;
      /** Only the leader sends assignments. */
      assignments: { memberId: string; assignment: Uint8Array }[];
    }
  | { type: 'Heartbeat'; groupId: string; generationId: number; memberId: string; groupInstanceId?: string | null }
  | { type: 'LeaveGroup'; groupId: string; members: { memberId: string; groupInstanceId?: string | null; reason?: string | null }[] }
  | {
      type: 'OffsetCommit';
      groupId: string;
      /** -1 with memberId '' for a commit outside group management (standalone consumer, admin). */
      generationId: number;
      memberId: string;
      groupInstanceId?: string | null;
      /** OffsetCommit v2-v4: keep these offsets this long (-1 or absent: offsets.retention.minutes). */
      retentionTimeMs?: number;
      topics: { name: string; partitions: OffsetCommitPartition[] }[];
      /** The Kafka OffsetCommit version (members of a consumer group need v9+); absent: the latest. */
      apiVersion?: number;
    }
  /**
   * Kafka's TxnOffsetCommit: offsets committed inside a producer's transaction (the group's
   * offsets partition was added to it with AddOffsetsToTxn). Written as records of the
   * producer's transaction, they count for OffsetFetch only once its COMMIT marker is written
   * (TxnMarkerWritten); an ABORT drops them. generationId -1 and memberId '' (versions before 3):
   * no member check. With a broker that verifies transactions (KIP-890), the transaction's
   * coordinator first confirms the offsets partition is in it (INVALID_TXN_STATE when not).
   */
  | {
      type: 'TxnOffsetCommit';
      transactionalId: string;
      groupId: string;
      producerId: number;
      producerEpoch: number;
      generationId: number;
      memberId: string;
      groupInstanceId?: string | null;
      topics: { name: string; partitions: OffsetCommitPartition[] }[];
      /**
       * TxnOffsetCommit v5 (KIP-890 part 2): while the cluster's transaction.version is 2 the
       * producer sent no AddOffsetsToTxn, and its broker adds the offsets partition to its
       * transaction first, whether or not it verifies transactions.
       */
      transactionV2?: boolean;
    }
  /** From the local broker: a transaction marker was written to offsets partition `partition`. */
  | { type: 'TxnMarkerWritten'; partition: number; producerId: number; commit: boolean }
  /** topics null: every committed offset of the group. */
  /** v9+ (KIP-848): a consumer group member names itself and its epoch (memberId null and epoch -1: no member). */
  | { type: 'OffsetFetch'; groupId: string; topics: { name: string; partitions: number[] }[] | null; requireStable?: boolean; memberId?: string | null; memberEpoch?: number }
  /** typesFilter (ListGroups v5, KIP-848/932): 'classic', 'consumer', 'share'; empty or absent: every type. */
  | { type: 'ListGroups'; statesFilter?: string[]; typesFilter?: string[] }
  | { type: 'DescribeGroups'; groups: string[] }
  | { type: 'DeleteGroups'; groups: string[] }
  /** Admin: remove committed offsets of an empty group (or one not subscribed to the topic). */
  | { type: 'OffsetDelete'; groupId: string; topics: { name: string; partitions: number[] }[] }
  /**
   * From the local broker: this broker now leads / no longer leads an offsets partition.
   * `numPartitions`: the offsets topic's partition count as the broker's metadata knows it
   * (groups hash over it); absent, the coordinator keeps offsets.topic.num.partitions.
   */
  | { type: 'BecomeCoordinator'; partition: number; leaderEpoch: number; numPartitions?: number }
  | { type: 'ResignCoordinator'; partition: number; leaderEpoch: number }
  /** Introspection for tests and admin tools: the offsets partitions owned and their load state. */
  | { type: 'DescribeCoordinator' }
  // internal (the coordinator sends these to itself)
  /** A replica read of an offsets partition being loaded came back. */
  | {
      type: 'LoadRead';
      partition: number;
      loadId: number;
      fetchOffset: number;
      errorCode: number;
      errorMessage?: string;
      logStartOffset: number;
      logEndOffset: number;
      records: Uint8Array;
      /** The broker has no replica of the partition: the load is given up. */
      noReplica?: boolean;
    }
  /** Read the next range of a partition being loaded (after a backoff). */
  | { type: 'LoadNext'; partition: number; loadId: number }
  /** An append to an offsets partition settled (errorCode NONE: replicated to the ISR). */
  | { type: 'AppendDone'; appendId: number; errorCode: number; baseOffset: number; errorMessage?: string }
  /**
   * The broker's answer to the verification of a TxnOffsetCommit's transaction (KIP-890):
   * `enabled` false when the broker does not verify; else NONE with the guard to write under,
   * or the transaction coordinator's code.
   */
  | { type: 'TxnOffsetCommitVerified'; verificationId: number; enabled: boolean; errorCode: number; errorMessage?: string; guard: number }
  /** The join phase's delay (initial rebalance delay or rebalance timeout) ran out. */
  | { type: 'JoinDeadline'; groupId: string; seq: number }
  /** Members of `generationId` that have not sent SyncGroup within the rebalance timeout. */
  | { type: 'SyncDeadline'; groupId: string; generationId: number }
  /** A member's session (or a new member's join) timer ran out. */
  | { type: 'HeartbeatDeadline'; groupId: string; memberId: string; seq: number }
  /** A member given an id with MEMBER_ID_REQUIRED did not join with it in time. */
  | { type: 'PendingMemberDeadline'; groupId: string; memberId: string; seq: number }
  /** Periodic: expire offsets (offsets.retention.minutes) and rewrite aging live keys. */
  | { type: 'Housekeeping' };

export interface JoinGroupResponse {
  type: 'JoinGroupResponse';
  errorCode: number;
  errorMessage?: string;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  /** Filled for the leader only: every member's subscription metadata. */
  members: { memberId: string; groupInstanceId: string | null; metadata: Uint8Array }[];
  /** KIP-814: the leader must not compute an assignment (the group's stands); absent means false. */
  skipAssignment?: boolean;
}

export interface SyncGroupResponse {
  type: 'SyncGroupResponse';
  errorCode: number;
  errorMessage?: string;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Uint8Array;
}

export interface SimpleResponse {
  type: 'HeartbeatResponse' | 'LeaveGroupResponse';
  errorCode: number;
  errorMessage?: string;
}

/**
 * LeaveGroup's answer: `errorCode` is a group-level error, or else the first member's error;
 * `memberErrors` (when the group's members were looked at) has each member's, in the order asked.
 */
export interface LeaveGroupResponse extends SimpleResponse {
  type: 'LeaveGroupResponse';
  memberErrors?: number[];
}

export interface OffsetCommitResponse {
  type: 'OffsetCommitResponse';
  /** Set when the whole request failed (e.g. NOT_COORDINATOR); per partition codes otherwise. */
  errorCode: number;
  topics: { name: string; partitions: { partition: number; errorCode: number }[] }[];
}

export interface TxnOffsetCommitResponse {
  type: 'TxnOffsetCommitResponse';
  /** Set when the whole request failed; per partition codes otherwise. */
  errorCode: number;
  topics: { name: string; partitions: { partition: number; errorCode: number }[] }[];
}

export interface OffsetFetchResponse {
  type: 'OffsetFetchResponse';
  errorCode: number;
  /** offset -1 when nothing is committed for that partition. */
  topics: { name: string; partitions: { partition: number; offset: number; leaderEpoch: number; metadata: string | null; errorCode: number }[] }[];
}

export interface GroupListing {
  groupId: string;
  protocolType: string;
  state: string;
  /** 'classic' (JoinGroup / SyncGroup), 'consumer' (KIP-848) or 'share' (KIP-932). */
  groupType: 'classic' | 'consumer' | 'share';
}

export interface ShareGroupHeartbeatResponse {
  type: 'ShareGroupHeartbeatResponse';
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** null: not sent (unchanged since the member was last told). */
  assignment: TopicIdPartitions[] | null;
}

export interface DescribedShareGroupMember {
  memberId: string;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  assignment: (TopicIdPartitions & { topicName: string })[];
}

export interface DescribedShareGroup {
  groupId: string;
  errorCode: number;
  errorMessage: string | null;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: DescribedShareGroupMember[];
}

export interface ShareGroupDescribeResponse {
  type: 'ShareGroupDescribeResponse';
  errorCode: number;
  groups: DescribedShareGroup[];
}


export interface ConsumerGroupHeartbeatResponse {
  type: 'ConsumerGroupHeartbeatResponse';
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** null: not sent (unchanged). */
  assignment: TopicIdPartitions[] | null;
}

export interface DescribedConsumerGroupMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  /** null: none. */
  subscribedTopicRegex: string | null;
  assignment: (TopicIdPartitions & { topicName: string })[];
  targetAssignment: (TopicIdPartitions & { topicName: string })[];
  /**
   * KIP-1099's member type: 'consumer' for a member of the consumer protocol
   * (ConsumerGroupHeartbeat), 'classic' for a classic member (JoinGroup / SyncGroup) of the
   * consumer group.
   */
  memberType: 'consumer' | 'classic';
}

export interface DescribedConsumerGroup {
  groupId: string;
  errorCode: number;
  errorMessage: string | null;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: DescribedConsumerGroupMember[];
}

export interface ConsumerGroupDescribeResponse {
  type: 'ConsumerGroupDescribeResponse';
  errorCode: number;
  groups: DescribedConsumerGroup[];
}

export interface ListGroupsResponse {
  type: 'ListGroupsResponse';
  errorCode: number;
  groups: GroupListing[];
}

export interface DescribedGroup {
  groupId: string;
  /**
   * As Kafka 4.0's coordinator: GROUP_ID_NOT_FOUND (state Dead) for a group that does not exist
   * or is a consumer group, not a classic one; DescribeGroups v0-v5 answer those Dead with no error.
   */
  errorCode: number;
  /** Kafka's message for the error (KIP-1043, DescribeGroups v6); null: none. */
  errorMessage: string | null;
  state: string;
  protocolType: string;
  protocolName: string;
  generationId: number;
  leader: string;
  members: {
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    metadata: Uint8Array;
    assignment: Uint8Array;
  }[];
}

export interface DescribeGroupsResponse {
  type: 'DescribeGroupsResponse';
  errorCode: number;
  groups: DescribedGroup[];
}

export interface DeleteGroupsResponse {
  type: 'DeleteGroupsResponse';
  errorCode: number;
  groups: { groupId: string; errorCode: number }[];
}

export interface OffsetDeleteResponse {
  type: 'OffsetDeleteResponse';
  errorCode: number;
  topics: { name: string; partitions: { partition: number; errorCode: number }[] }[];
}

export interface CoordinatorDescription {
  type: 'CoordinatorDescription';
  brokerId: number;
  numPartitions: number;
  partitions: { partition: number; leaderEpoch: number; status: 'Loading' | 'Active'; groups: number }[];
  /** Appends to offsets partitions not yet settled. */
  pendingAppends: number;
}

/** FindCoordinator goes to any broker (actors/broker/messages.ts); this is its answer. */
export interface FindCoordinatorResponse {
  type: 'FindCoordinatorResponse';
  errorCode: number;
  errorMessage?: string;
  brokerId: number;
  node: string;
}
