/**
 * The group coordinator, as Kafka's GroupCoordinator: one per broker, a child of the broker at
 * coordinatorPath(brokerId). It coordinates the groups that hash (offsetsPartitionFor) to the
 * __consumer_offsets partitions its broker leads, keeps their committed offsets, and persists
 * both as records of those partitions (offsets-store.ts), appended through the local leader
 * replica with acks=all. When its broker becomes leader of an offsets partition it replays that
 * partition's log up to the high watermark before answering for its groups (partition-load.ts,
 * shared with the transaction coordinator).
 *
 * It also runs KIP-848 consumer groups (ConsumerGroupHeartbeat): consumer-group.ts holds a
 * group's state machine; here are its member timers (session: group.consumer.session.timeout.ms,
 * rebalance: the member's rebalance timeout while it revokes), the subscribed topics' metadata
 * (read from the local broker, reused for consumerGroupMetadataMaxAgeMs), the resolution of its
 * members' regular expressions against the cluster's topic names (regex-resolution.ts: before a
 * heartbeat that brings a new one, and at most every consumerGroupRegexRefreshIntervalMs; with
 * ACLs, only to the topics the heartbeat's member may DESCRIBE, which the Kafka listener it came
 * through tells) and its records (Kafka's
 * ConsumerGroup* record types, offsets-store.ts), written after every change before the
 * heartbeat is answered; state changes are applied in memory first, and after a failed write the
 * next one rewrites the whole group. An empty group of either kind gives way to the other (as
 * Kafka deletes it). A consumer group also serves classic members (classic-members.ts: their
 * JoinGroup is a heartbeat of the group, SyncGroup hands out their assignment, Heartbeat tells
 * them to join again; their session, join and sync timers are kept here), and a live group
 * migrates between the kinds as group.consumer.migration.policy allows (group-conversion.ts): a
 * ConsumerGroupHeartbeat joining a classic "consumer" group converts it to a consumer group, the
 * last consumer-protocol member leaving a consumer group of classic members converts it back
 * (then it rebalances); otherwise GROUP_ID_NOT_FOUND, as Kafka.
 *
 * And KIP-932 share groups (ShareGroupHeartbeat, ShareGroupDescribe): share-group.ts is a
 * group's state machine; here are its members' session timers (share.session.timeout.ms), the
 * subscribed topics' metadata, and its records (Kafka 4.2's ShareGroup* record types), written
 * before each heartbeat is answered and replayed by the next coordinator, where the members carry
 * on at their epochs. A member given a partition has its leader make the group's state of it
 * (PrepareSharePartitions to the broker); deleting the group deletes those states (ShareGroupDeleted).
 *
 * Owned state: the offsets partitions this broker leads (Loading -> Active) with the replay of
 * the ones loading; per group: its GroupMetadata (group-state.ts) or ConsumerGroup, committed offsets, the
 * position of each key's newest record, JoinGroup/SyncGroup requests waiting for the rebalance,
 * the join-phase delay (initial delay or rebalance timeout), member session timers; the appends
 * in flight; the TxnOffsetCommits waiting for their transaction's verification; the topic
 * metadata cache of consumer groups (and the cluster's topic list, for regular expressions) and
 * the heartbeats waiting for it or for their member's topic authorizations.
 * Handles: ConsumerGroupHeartbeat, ConsumerGroupDescribe, GroupVersionChanged, ShareVersionChanged, GroupConfigsChanged, TopicsDeleted, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, TxnOffsetCommit, OffsetFetch, ListGroups,
 * DescribeGroups, DeleteGroups, OffsetDelete (clients); BecomeCoordinator, ResignCoordinator,
 * TxnMarkerWritten (its broker); DescribeCoordinator (tests, admin); internal LoadRead, LoadNext, AppendDone,
 * TxnOffsetCommitVerified, JoinDeadline, SyncDeadline, HeartbeatDeadline, PendingMemberDeadline, Housekeeping,
 * ConsumerTopicsFetched, ConsumerRegexTopicsAuthorized, ConsumerSessionDeadline, ConsumerRebalanceDeadline,
 * ConsumerClassicDeadline; ShareGroupHeartbeat, ShareGroupDescribe (clients), internal ShareTopicsFetched,
 * ShareSessionDeadline.
 * Emits: the replies of messages.ts; ReplicaRead (loading) and Produce acks=-1 (offset commits,
 * group metadata, tombstones, rewrites of aging keys) to the local offsets partition replicas;
 * VerifyTransaction to its broker (a TxnOffsetCommit's transaction, KIP-890); Metadata to its
 * broker (the topics consumer groups subscribe to, or all of them for regular expressions);
 * AuthorizeTopics to the Kafka listener of a heartbeat resolving regular expressions under ACLs;
 * PrepareSharePartitions and ShareGroupDeleted to its broker.
 *
 * Bounded growth: the topic is compacted, as Kafka's (cleanup.policy=compact): the log cleaner
 * keeps the latest record of each key and drops tombstones after delete.retention.ms. Offsets of
 * empty groups expire after offsets.retention.minutes as in Kafka (KIP-211), leaving tombstones;
 * an empty group without offsets goes Dead and its metadata gets a tombstone. The coordinator
 * also rewrites every live key whose newest record is older than a quarter of
 * offsets.retention.minutes (checked on the housekeeping timer): an offsets topic created with
 * time retention (cleanup.policy=delete, as samsa's first versions did) then never loses a live
 * key either, since every live key always has a record younger than the retention.
 */
import { effectiveGroupTimeouts } from './group-configs.js';
import { SHARE_LEAVE_GROUP_MEMBER_EPOCH, ShareGroup, ShareGroupState, type ShareMember, type ShareTopicsEnv } from './share-group.js';
import { DEFAULT_SHARE_GROUP_DEFAULTS, shareGroupSettings } from '../share-partition/share-group-settings.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import { SHARE_GROUPS_OFF } from '../../src/protocol/features.js';
import { brokerPath, replicaPath } from '../../src/protocol/cluster.js';
import type { BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Failure } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { BrokerMsg, MetadataResponse, TransactionVerification } from '../broker/messages.js';
import type { ProduceResponse, ReplicaDescription, ReplicaMsg } from '../partition-replica/messages.js';
import { NO_GUARD } from '../partition-replica/txn-verification.js';
import { readForLoad, takeLoadRead } from './partition-load.js';
import { CONSUMER_PROTOCOL_TYPE, ConsumerProtocolError, decodeSubscription, type Subscription } from './consumer-protocol.js';
import { GroupMetadata, GroupState, MemberMetadata, newMemberId, type Protocol } from './group-state.js';
import { randomUUID } from 'node:crypto';
import { kafkaTopicId } from '../../src/protocol/topic-id.js';
import { DEFAULT_SERVER_ASSIGNOR, SERVER_ASSIGNORS, type TopicAssignment } from './assignors/server.js';
import { AclOperation } from '../../src/security/acl.js';
import type { TopicsAuthorized } from '../kafka-listener/messages.js';
import { matchedTopics, onlyAllowed, regexesToResolve, resolveTopicRegexes } from './regex-resolution.js';
import { type ClassicError, classicJoinHeartbeat, classicSubscription, classicMustRejoin, classicProtocolName, classicSyncProblem, encodeClassicAssignment, findClassicMember, isClassicError, subscriptionVersion, supportsClassicProtocols } from './classic-members.js';
import { classicGroupFromConsumer, consumerGroupFromClassic, isDowngradeEnabled, sharesProtocol, shouldDowngrade, upgradeRefusal, type MigrationPolicy } from './group-conversion.js';
import {
  ConsumerGroup,
  ConsumerGroupState,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  MemberState,
  type ConsumerMember,
  type HeartbeatOutcome,
  type TopicInfo,
} from './consumer-group.js';
import {
  DEFAULT_OFFSETS_TOPIC_PARTITIONS,
  OFFSETS_TOPIC,
  offsetsPartitionFor,
  type ConsumerGroupDescribeResponse,
  type ConsumerGroupHeartbeatResponse,
  type ConsumerTopicInfo,
  type CoordinatorDescription,
  type CoordinatorMsg,
  type DescribedConsumerGroup,
  type DescribedShareGroup,
  type ShareGroupDescribeResponse,
  type ShareGroupHeartbeatResponse,
  type TopicIdPartitions,
  type DeleteGroupsResponse,
  type DescribeGroupsResponse,
  type DescribedGroup,
  type GroupListing,
  type JoinGroupResponse,
  type ListGroupsResponse,
  type OffsetCommitPartition,
  type OffsetCommitResponse,
  type OffsetDeleteResponse,
  type OffsetFetchResponse,
  type LeaveGroupResponse,
  type SimpleResponse,
  type SyncGroupResponse,
  type TxnOffsetCommitResponse,
} from './messages.js';
import {
  ConsumerRecordType,
  OffsetsReplay,
  buildOffsetsBatch,
  encodeConsumerGroupKey,
  encodeConsumerGroupValue,
  encodeShareGroupKey,
  encodeShareGroupValue,
  ShareRecordType,
  type ReplayedShareGroup,
  type ReplayedConsumerGroup,
  type TopicPartitionsValue,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  topicPartitionKey,
  type GroupMetadataValue,
  type OffsetCommitValue,
  type OffsetsRecord,
  type ReplayedGroup,
  type ReplayedOffset,
} from './offsets-store.js';

export interface CoordinatorArgs {
  brokerId: number;
  /** offsets.topic.num.partitions, until a BecomeCoordinator names the topic's real count. */
  offsetsTopicNumPartitions?: number;
  /** group.min.session.timeout.ms / group.max.session.timeout.ms. */
  groupMinSessionTimeoutMs?: number;
  groupMaxSessionTimeoutMs?: number;
  /** group.initial.rebalance.delay.ms (Kafka's InitialDelayedJoin). */
  groupInitialRebalanceDelayMs?: number;
  /** offsets.retention.minutes, in ms: offsets of empty groups expire after this; also the topic's retention.ms. */
  offsetsRetentionMs?: number;
  /** offsets.retention.check.interval.ms: how often offsets expire and aging records are rewritten. */
  offsetsRetentionCheckIntervalMs?: number;
  /** offsets.commit.timeout.ms: how long an append waits for the ISR. */
  offsetCommitTimeoutMs?: number;
  /** offset.metadata.max.bytes: longer commit metadata gets OFFSET_METADATA_TOO_LARGE. */
  offsetMetadataMaxBytes?: number;
  /** How long a new member may wait in its first join before it is dropped (Kafka: 5 minutes). */
  newMemberJoinTimeoutMs?: number;
  /** offsets.load.buffer.size: bytes per replica read while loading. */
  loadBufferBytes?: number;
  /** Backoff between load reads that found nothing new yet (the high watermark lags) or failed. */
  loadRetryBackoffMs?: number;
  /** Rewrite a live key once its newest record is this old (default: a quarter of offsetsRetentionMs). */
  recordRefreshIntervalMs?: number;
  /** The local replica of an offsets partition (default: the broker's child replica actor on this node). */
  replicaFor?: (partition: number) => ActorRef<ReplicaMsg>;
  /**
   * The local broker, which verifies a TxnOffsetCommit's transaction with its coordinator before
   * the offsets are written (KIP-890; VerifyTransaction). Absent: written unverified.
   */
  broker?: ActorRef<BrokerMsg>;
  /** group.consumer.heartbeat.interval.ms (KIP-848 consumer groups). */
  consumerGroupHeartbeatIntervalMs?: number;
  /** group.consumer.session.timeout.ms. */
  consumerGroupSessionTimeoutMs?: number;
  /** group.consumer.max.size. */
  consumerGroupMaxSize?: number;
  /** group.max.size: the most members of a classic group (KIP-389). */
  classicGroupMaxSize?: number;
  /** group.share.heartbeat.interval.ms (KIP-932 share groups; a group's share.heartbeat.interval.ms overrides it). */
  shareGroupHeartbeatIntervalMs?: number;
  /** group.share.session.timeout.ms (a group's share.session.timeout.ms overrides it). */
  shareGroupSessionTimeoutMs?: number;
  /** group.share.max.size. */
  shareGroupMaxSize?: number;
  /** group.consumer.migration.policy (default bidirectional, as Kafka 4.0). */
  consumerGroupMigrationPolicy?: MigrationPolicy;
  /** How long the subscribed topics' metadata a consumer group heartbeat uses may be reused. */
  consumerGroupMetadataMaxAgeMs?: number;
  /** How old a consumer group's resolution of its regular expressions may grow before a heartbeat resolves them again (10 s). */
  consumerGroupRegexRefreshIntervalMs?: number;
  /**
   * The topics' metadata for consumer groups (default: asked from the local broker; names null:
   * every topic); null when it could not be had. Tests give their own.
   */
  consumerTopicMetadata?: (names: string[] | null) => Promise<ConsumerTopicInfo[] | null>;
}

interface CoordinatorConfig {
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  initialRebalanceDelayMs: number;
  offsetsRetentionMs: number;
  housekeepingIntervalMs: number;
  offsetCommitTimeoutMs: number;
  offsetMetadataMaxBytes: number;
  newMemberJoinTimeoutMs: number;
  loadBufferBytes: number;
  loadRetryBackoffMs: number;
  recordRefreshIntervalMs: number;
  consumerHeartbeatIntervalMs: number;
  consumerSessionTimeoutMs: number;
  consumerMaxSize: number;
  classicMaxSize: number;
  shareHeartbeatIntervalMs: number;
  shareSessionTimeoutMs: number;
  shareMaxSize: number;
  migrationPolicy: MigrationPolicy;
  consumerMetadataMaxAgeMs: number;
  consumerRegexRefreshIntervalMs: number;
}

/** Records per rewrite batch, so one refresh never builds an oversized batch. */
const REFRESH_BATCH_RECORDS = 500;
const HOUSEKEEPING_TIMER = 'housekeeping';
const EMPTY = new Uint8Array(0);

/** An offsets partition this broker leads. */
export enum OffsetsPartitionStatus {
  /** Its log is being replayed: its groups answer COORDINATOR_LOAD_IN_PROGRESS. */
  Loading = 'Loading',
  /** Loaded: this coordinator answers for its groups. */
  Active = 'Active',
}

interface OwnedPartition {
  partition: number;
  leaderEpoch: number;
  status: OffsetsPartitionStatus;
  /** Distinguishes this load from an earlier one of the same partition. */
  loadId: number;
  replay: OffsetsReplay | null;
  fetchOffset: number;
  /** The log end offset at the first read: loading ends once everything below it is read. */
  targetOffset: number;
  loadStartedMs: number;
  groups: Set<string>;
}

interface CommittedOffset {
  topic: string;
  partition: number;
  value: OffsetCommitValue;
  /** Position and timestamp of the key's newest record. */
  logOffset: number;
  writtenAt: number;
}

interface PersistedGroup {
  bytes: Uint8Array;
  logOffset: number;
  writtenAt: number;
}

type JoinPhase = { kind: 'initial'; remainingMs: number; seq: number } | { kind: 'rebalance'; seq: number };

interface GroupEntry {
  readonly groupId: string;
  readonly partition: number;
  /** The classic group (replaced when the group migrates between the two kinds). */
  group: GroupMetadata;
  /** topicPartitionKey -> committed offset (applied only once its append succeeded). */
  readonly offsets: Map<string, CommittedOffset>;
  /** topicPartitionKey -> appends in flight that write the key. */
  readonly pendingOffsetWrites: Map<string, number>;
  /** topicPartitionKey -> log offset of a tombstone, kept while writes of the key are in flight. */
  readonly offsetTombstones: Map<string, number>;
  /** The group's newest metadata record (null: none in the log). */
  persisted: PersistedGroup | null;
  pendingGroupWrites: number;
  /** JoinGroup requests waiting for the join phase (null: the request wants no reply). */
  readonly joinWaiters: Map<string, ReplyToken | null>;
  /** SyncGroup requests waiting for the leader's assignment to be stored. */
  readonly syncWaiters: Map<string, ReplyToken | null>;
  /** memberId -> sequence of its live session timer. */
  readonly heartbeatSeq: Map<string, number>;
  /** memberId -> sequence of its pending-member timer. */
  readonly pendingMembers: Map<string, number>;
  join: JoinPhase | null;
  /** Kafka's newMemberAdded: a member joined during the initial delay, which then runs again. */
  newMemberAdded: boolean;
  /** A group loaded from the log: the topics its members subscribe to, until its next generation. */
  loaded: { generationId: number; topics: ReadonlySet<string> | null } | null;
  /**
   * Offsets written by transactions not yet ended (TxnOffsetCommit): producer id ->
   * topicPartitionKey -> offset. A COMMIT marker moves them into `offsets`, an ABORT drops them.
   */
  readonly txnOffsets: Map<number, Map<string, CommittedOffset>>;
  /** A KIP-848 consumer group (then `group` stays an Empty classic group and is not used). */
  consumer: ConsumerGroup | null;
  /** Consumer group member timers: memberId -> session timer sequence, rebalance timer epoch, a classic member's join / sync timer sequence. */
  readonly consumerTimers: Map<string, { sessionSeq: number; rebalance: { seq: number; memberEpoch: number } | null; join?: number; sync?: number }>;
  /** When the oldest of the consumer group's records was written (rewritten as a whole once old). */
  consumerOldestWrite: number;
  /** An append of the consumer group's records failed: the next one writes all of them. */
  consumerNeedsFullWrite: boolean;
  /** When a heartbeat last resolved the consumer group's regular expressions (-Infinity: never here). */
  consumerRegexesResolvedAt: number;
  /**
   * A KIP-932 share group (then `group` stays an Empty classic group and is not used, and
   * `consumer` is null); its members' session timers are in `consumerTimers`, its metadata
   * record's age in `consumerOldestWrite`.
   */
  share: ShareGroup | null;
}

type WrittenRecord =
  /** `txn`: written in that producer's transaction (TxnOffsetCommit). */
  | { kind: 'offset'; entry: GroupEntry; topic: string; partition: number; value: OffsetCommitValue | null; txn?: { producerId: number; producerEpoch: number } }
  | { kind: 'group'; entry: GroupEntry; bytes: Uint8Array | null }
  /** A KIP-848 consumer group record (its state is applied in memory before the write). */
  | { kind: 'consumer'; entry: GroupEntry; key: Uint8Array; value: Uint8Array | null };

interface DeleteGroupsProgress {
  token: ReplyToken | null;
  results: { groupId: string; errorCode: number }[];
  remaining: number;
}

type AppendPurpose =
  | { kind: 'commit'; token: ReplyToken | null; response: OffsetCommitResponse | TxnOffsetCommitResponse; written: { topic: string; partition: number }[] }
  | { kind: 'sync'; generationId: number; assignments: Map<string, Uint8Array> }
  | { kind: 'store-empty' }
  | {
      kind: 'static-replace';
      groupInstanceId: string;
      oldMemberId: string;
      newMemberId: string;
      previous: { supportedProtocols: readonly Protocol[]; rebalanceTimeoutMs: number; sessionTimeoutMs: number };
      leaderBefore: string;
      /** JoinGroup v9+ (KIP-814): a leader is answered as leader, with the members, told to skip the assignment. */
      supportsSkippingAssignment: boolean;
    }
  | { kind: 'delete-groups'; progress: DeleteGroupsProgress; groupIds: string[] }
  | { kind: 'offset-delete'; token: ReplyToken | null; response: OffsetDeleteResponse; deleted: { topic: string; partition: number }[] }
  | { kind: 'expire' }
  | { kind: 'refresh' }
  /** Tombstones of the offsets of deleted topics. */
  | { kind: 'topics-deleted' }
  /** Consumer group records written on a timer (fenced members, rewrites). */
  | { kind: 'consumer-write' }
  /**
   * A request to a consumer group (a ConsumerGroupHeartbeat, a classic member's JoinGroup or
   * LeaveGroup) is answered once its records are written: `response`, or `failed` with the error.
   */
  | { kind: 'consumer-reply'; token: ReplyToken | null; response: { type: string }; failed: (errorCode: number) => { type: string } };

interface PendingAppend {
  id: number;
  partition: number;
  leaderEpoch: number;
  timestamp: number;
  records: WrittenRecord[];
  /** The group the append is about (sync, store-empty, static-replace), for staleness checks. */
  entry: GroupEntry | null;
  purpose: AppendPurpose;
}

export interface CoordinatorState {
  brokerId: number;
  cfg: CoordinatorConfig;
  numPartitions: number;
  partitions: Map<number, OwnedPartition>;
  groups: Map<string, GroupEntry>;
  appends: Map<number, PendingAppend>;
  seq: number;
  replicaFor: (partition: number) => ActorRef<ReplicaMsg>;
  broker: ActorRef<BrokerMsg> | null;
  /** TxnOffsetCommits waiting for the broker's verification of their transaction, by verification id. */
  verifying: Map<number, { m: Extract<CoordinatorMsg, { type: 'TxnOffsetCommit' }>; token: ReplyToken | null }>;
  /** Topic metadata for consumer groups: name -> the topic (null: none) and when it was read. */
  topicCache: Map<string, { info: TopicInfo | null; at: number }>;
  /** Every topic of the cluster, when last read (regular expressions are resolved against them). */
  clusterTopics: { topics: ConsumerTopicInfo[]; at: number } | null;
  /** Consumer group heartbeats waiting for topic metadata or topic authorizations, by fetch id. */
  awaitingTopics: Map<number, PendingHeartbeat>;
  /** Share group heartbeats waiting for topic metadata, by fetch id. */
  awaitingShareTopics: Map<number, ShareTopicsWait>;
  consumerTopicMetadata: ((names: string[] | null) => Promise<ConsumerTopicInfo[] | null>) | null;
  /** The finalized group.version (KIP-584) as the broker last told it; 1 (a new cluster's) until told. */
  groupVersion: number;
  /** The finalized share.version as the broker last told it (share groups run at 1 and up). */
  shareVersion: number;
  /** Group configs (consumer.session.timeout.ms, consumer.heartbeat.interval.ms) by group id, as the broker last told them. */
  groupConfigs: Map<string, Readonly<Record<string, string>>>;
}

type ConsumerHeartbeatMsg = Extract<CoordinatorMsg, { type: 'ConsumerGroupHeartbeat' }>;
type ShareHeartbeatMsg = Extract<CoordinatorMsg, { type: 'ShareGroupHeartbeat' }>;

/** Why ConsumerGroupHeartbeat and ConsumerGroupDescribe answer UNSUPPORTED_VERSION with group.version 0. */
const CONSUMER_PROTOCOL_OFF = 'The new consumer group protocol is not enabled: the cluster\'s group.version is 0 (samsa features upgrade --feature group.version=1)';

/** A consumer group heartbeat gathering what it needs before it is applied (prepareConsumerHeartbeat). */
interface PendingHeartbeat {
  m: ConsumerHeartbeatMsg;
  token: ReplyToken | null;
  /** The topics it needs were read for it (it goes on with them, however old). */
  fetchedNames: boolean;
  /** The cluster's topic list was read for it. */
  fetchedAll: boolean;
  /** Its group's regular expressions, resolved for it (before its member's ACLs: `matched`). */
  matched: Map<string, Set<string>> | null;
  resolved: Map<string, Set<string>> | null;
  /** A classic member's JoinGroup to a consumer group (`m` then stands for it), with its member id. */
  /** A classic member's JoinGroup, with its Subscription decoded once (null: it did not decode). */
  classicJoin?: { m: JoinGroupMsg; memberId: string; subscription: Subscription | null };
}

type JoinGroupMsg = Extract<CoordinatorMsg, { type: 'JoinGroup' }>;

type Ctx = BaseContext<CoordinatorMsg>;

// ---------------------------------------------------------------------------------------------
// Configuration and small helpers

function resolveConfig(a: CoordinatorArgs): CoordinatorConfig {
  const offsetsRetentionMs = a.offsetsRetentionMs ?? 7 * 24 * 60 * 60 * 1000;
  const recordRefreshIntervalMs = Math.max(1, a.recordRefreshIntervalMs ?? Math.floor(offsetsRetentionMs / 4));
  const checkMs = a.offsetsRetentionCheckIntervalMs ?? 600_000;
  return {
    minSessionTimeoutMs: a.groupMinSessionTimeoutMs ?? 6_000,
    maxSessionTimeoutMs: a.groupMaxSessionTimeoutMs ?? 1_800_000,
    initialRebalanceDelayMs: a.groupInitialRebalanceDelayMs ?? 3_000,
    offsetsRetentionMs,
    housekeepingIntervalMs: Math.max(1, Math.min(checkMs, Math.floor(recordRefreshIntervalMs / 2) || 1)),
    offsetCommitTimeoutMs: a.offsetCommitTimeoutMs ?? 5_000,
    offsetMetadataMaxBytes: a.offsetMetadataMaxBytes ?? 4_096,
    newMemberJoinTimeoutMs: a.newMemberJoinTimeoutMs ?? 300_000,
    loadBufferBytes: a.loadBufferBytes ?? 5 * 1024 * 1024,
    loadRetryBackoffMs: a.loadRetryBackoffMs ?? 50,
    recordRefreshIntervalMs,
    consumerHeartbeatIntervalMs: a.consumerGroupHeartbeatIntervalMs ?? 5_000,
    consumerSessionTimeoutMs: a.consumerGroupSessionTimeoutMs ?? 45_000,
    consumerMaxSize: a.consumerGroupMaxSize ?? 2_147_483_647,
    classicMaxSize: a.classicGroupMaxSize ?? 2_147_483_647,
    shareHeartbeatIntervalMs: a.shareGroupHeartbeatIntervalMs ?? DEFAULT_SHARE_GROUP_DEFAULTS.heartbeatIntervalMs,
    shareSessionTimeoutMs: a.shareGroupSessionTimeoutMs ?? DEFAULT_SHARE_GROUP_DEFAULTS.sessionTimeoutMs,
    shareMaxSize: a.shareGroupMaxSize ?? 200,
    migrationPolicy: a.consumerGroupMigrationPolicy ?? 'bidirectional',
    consumerMetadataMaxAgeMs: a.consumerGroupMetadataMaxAgeMs ?? 1_000,
    consumerRegexRefreshIntervalMs: a.consumerGroupRegexRefreshIntervalMs ?? 10_000,
  };
}

const joinTimerKey = (groupId: string) => JSON.stringify(['join', groupId]);
const syncTimerKey = (groupId: string) => JSON.stringify(['sync', groupId]);
const heartbeatTimerKey = (groupId: string, memberId: string) => JSON.stringify(['hb', groupId, memberId]);
const pendingTimerKey = (groupId: string, memberId: string) => JSON.stringify(['pending', groupId, memberId]);
const loadTimerKey = (partition: number) => `load-${partition}`;

function partitionOf(s: CoordinatorState, groupId: string): number {
  return offsetsPartitionFor(groupId, s.numPartitions);
}

function answer<R extends { type: string }>(ctx: Ctx, token: ReplyToken | null | undefined, msg: R): void {
  if (token) ctx.replyTo(token, msg);
}

/**
 * Can this coordinator act for `groupId` now? INVALID_GROUP_ID for an empty id where the API
 * needs one, NOT_COORDINATOR when its offsets partition is not led here, and
 * COORDINATOR_LOAD_IN_PROGRESS while that partition is being replayed.
 */
function validateGroupStatus(s: CoordinatorState, groupId: unknown, allowEmptyId: boolean): number | null {
  if (typeof groupId !== 'string' || (!allowEmptyId && groupId.length === 0)) return ErrorCode.INVALID_GROUP_ID;
  const owned = s.partitions.get(partitionOf(s, groupId));
  if (!owned) return ErrorCode.NOT_COORDINATOR;
  if (owned.status === OffsetsPartitionStatus.Loading) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
  return null;
}

function isBytes(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array;
}

/** INVALID_REQUEST unless every protocol is { name: string, metadata: bytes }. */
function validateProtocolList(protocols: unknown): number | null {
  if (!Array.isArray(protocols)) return ErrorCode.INVALID_REQUEST;
  for (const p of protocols) {
    if (typeof p !== 'object' || p === null || typeof (p as Protocol).name !== 'string' || !isBytes((p as Protocol).metadata)) return ErrorCode.INVALID_REQUEST;
  }
  return null;
}

/** INVALID_REQUEST unless topics is [{ name: string, partitions: [...] }] with integer partitions (or objects with one). */
function validateTopicList(topics: unknown, partitionsAreObjects: boolean): number | null {
  if (!Array.isArray(topics)) return ErrorCode.INVALID_REQUEST;
  for (const t of topics) {
    if (typeof t !== 'object' || t === null || typeof t.name !== 'string' || !Array.isArray(t.partitions)) return ErrorCode.INVALID_REQUEST;
    for (const p of t.partitions as unknown[]) {
      if (partitionsAreObjects) {
        const o = p as { partition?: unknown; offset?: unknown; leaderEpoch?: unknown; metadata?: unknown };
        if (typeof o !== 'object' || o === null || !Number.isInteger(o.partition) || !Number.isSafeInteger(o.offset)) return ErrorCode.INVALID_REQUEST;
        if (o.leaderEpoch !== undefined && o.leaderEpoch !== null && !Number.isInteger(o.leaderEpoch)) return ErrorCode.INVALID_REQUEST;
        if (o.metadata !== undefined && o.metadata !== null && typeof o.metadata !== 'string') return ErrorCode.INVALID_REQUEST;
      } else if (!Number.isInteger(p)) {
        return ErrorCode.INVALID_REQUEST;
      }
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Replies

function joinError(memberId: string, errorCode: number): JoinGroupResponse {
  return { type: 'JoinGroupResponse', errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId, members: [] };
}

function joinResult(g: GroupMetadata, memberId: string, withMembers: boolean, leader = g.leaderId ?? ''): JoinGroupResponse {
  return {
    type: 'JoinGroupResponse',
    errorCode: ErrorCode.NONE,
    generationId: g.generationId,
    protocolType: g.protocolType,
    protocolName: g.protocolName,
    leader,
    memberId,
    members: withMembers ? g.currentMemberMetadata() : [],
  };
}

function syncError(errorCode: number): SyncGroupResponse {
  return { type: 'SyncGroupResponse', errorCode, protocolType: null, protocolName: null, assignment: EMPTY };
}

function syncResult(g: GroupMetadata, assignment: Uint8Array): SyncGroupResponse {
  return { type: 'SyncGroupResponse', errorCode: ErrorCode.NONE, protocolType: g.protocolType, protocolName: g.protocolName, assignment };
}

function simple(type: SimpleResponse['type'], errorCode: number): SimpleResponse {
  return { type, errorCode };
}

/** The same error for every partition of a request (as Kafka answers a request that failed as a whole). */
function perPartitionError(topics: unknown, errorCode: number): { name: string; partitions: { partition: number; errorCode: number }[] }[] {
  if (!Array.isArray(topics)) return [];
  return topics.map((t: { name?: unknown; partitions?: unknown }) => ({
    name: String(t?.name),
    partitions: (Array.isArray(t?.partitions) ? (t.partitions as unknown[]) : []).map((p) => ({
      partition: typeof p === 'number' ? p : Number((p as { partition?: unknown })?.partition),
      errorCode,
    })),
  }));
}

function commitFailure(m: Extract<CoordinatorMsg, { type: 'OffsetCommit' }>, errorCode: number): OffsetCommitResponse {
  return { type: 'OffsetCommitResponse', errorCode, topics: perPartitionError(m.topics, errorCode) };
}

function describedError(groupId: string, errorCode: number, state: string, errorMessage: string | null = null): DescribedGroup {
  return { groupId, errorCode, errorMessage, state, protocolType: '', protocolName: '', generationId: -1, leader: '', members: [] };
}

// ---------------------------------------------------------------------------------------------
// Append error mapping (Kafka's GroupMetadataManager)

/** What a failed ask to the replica means for an append. */
function appendFailureCode(r: Failure): number {
  switch (r.reason) {
    case 'unknown-actor':
    case 'actor-stopped':
    case 'actor-crashed':
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    case 'timeout':
    case 'overflow':
      return ErrorCode.REQUEST_TIMED_OUT;
    default:
      return r.errorCode;
  }
}

/**
 * The append errors every coordinator write reports alike (Kafka's coordinator runtime): the
 * offsets partition gone or short of replicas means the coordinator is not available, its
 * leadership lost means it is not the coordinator; null for the others.
 */
function commonWriteError(code: number): number | null {
  switch (code) {
    case ErrorCode.NONE:
      return ErrorCode.NONE;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.NETWORK_EXCEPTION:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
    case ErrorCode.FENCED_LEADER_EPOCH:
    case ErrorCode.NOT_COORDINATOR:
      return ErrorCode.NOT_COORDINATOR;
    default:
      return null;
  }
}

/** An append error as an offset commit reports it. */
export function commitErrorFor(code: number): number {
  const common = commonWriteError(code);
  if (common !== null) return common;
  switch (code) {
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.INVALID_COMMIT_OFFSET_SIZE;
    default:
      return code;
  }
}

/** An append error as storing group metadata (SyncGroup) reports it. */
export function groupStoreErrorFor(code: number): number {
  return commonWriteError(code) ?? (code === ErrorCode.REQUEST_TIMED_OUT ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.UNKNOWN_SERVER_ERROR);
}

// ---------------------------------------------------------------------------------------------
// Groups: creation, removal, timers

function newEntry(groupId: string, partition: number, group: GroupMetadata): GroupEntry {
  return {
    groupId,
    partition,
    group,
    offsets: new Map(),
    pendingOffsetWrites: new Map(),
    offsetTombstones: new Map(),
    persisted: null,
    pendingGroupWrites: 0,
    joinWaiters: new Map(),
    syncWaiters: new Map(),
    heartbeatSeq: new Map(),
    pendingMembers: new Map(),
    join: null,
    newMemberAdded: false,
    loaded: null,
    txnOffsets: new Map(),
    consumer: null,
    consumerTimers: new Map(),
    consumerOldestWrite: 0,
    consumerNeedsFullWrite: false,
    consumerRegexesResolvedAt: Number.NEGATIVE_INFINITY,
    share: null,
  };
}

/** A new, Empty group on an Active partition (validated by the caller). */
function createGroup(s: CoordinatorState, groupId: string, now: number): GroupEntry {
  const partition = partitionOf(s, groupId);
  const entry = newEntry(groupId, partition, new GroupMetadata(groupId, { now }));
  s.groups.set(groupId, entry);
  s.partitions.get(partition)?.groups.add(groupId);
  return entry;
}

/** Forgets a group: its waiting requests get `errorCode`, its timers stop, it goes Dead. */
function dropGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, errorCode: number): void {
  stopClassicGroup(ctx, entry, errorCode);
  for (const memberId of [...entry.consumerTimers.keys()]) cancelConsumerTimers(ctx, entry, memberId);
  entry.consumer?.markDead();
  entry.share?.markDead();
  if (!entry.group.is(GroupState.Dead)) entry.group.transitionTo(GroupState.Dead, ctx.clock.now());
  if (s.groups.get(entry.groupId) === entry) s.groups.delete(entry.groupId);
  s.partitions.get(entry.partition)?.groups.delete(entry.groupId);
}

/** The classic group's JoinGroup / SyncGroup requests waiting get `errorCode` and its timers stop. */
function stopClassicGroup(ctx: Ctx, entry: GroupEntry, errorCode: number): void {
  for (const [memberId, token] of entry.joinWaiters) answer(ctx, token, joinError(memberId, errorCode));
  for (const token of entry.syncWaiters.values()) answer(ctx, token, syncError(errorCode));
  entry.joinWaiters.clear();
  entry.syncWaiters.clear();
  for (const m of entry.group.allMembers()) {
    m.isAwaitingJoin = false;
    m.isAwaitingSync = false;
  }
  ctx.timers.cancel(joinTimerKey(entry.groupId));
  ctx.timers.cancel(syncTimerKey(entry.groupId));
  for (const memberId of entry.heartbeatSeq.keys()) ctx.timers.cancel(heartbeatTimerKey(entry.groupId, memberId));
  for (const memberId of entry.pendingMembers.keys()) ctx.timers.cancel(pendingTimerKey(entry.groupId, memberId));
  entry.heartbeatSeq.clear();
  entry.pendingMembers.clear();
  entry.join = null;
}

function liveEntry(s: CoordinatorState, entry: GroupEntry | null): entry is GroupEntry {
  return entry !== null && s.groups.get(entry.groupId) === entry;
}

/** Kafka's completeAndScheduleNextExpiration: the member is alive now; its session runs from here. */
function scheduleHeartbeat(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, member: MemberMetadata, timeoutMs = member.sessionTimeoutMs): void {
  member.lastHeartbeatMs = ctx.clock.now();
  const seq = ++s.seq;
  entry.heartbeatSeq.set(member.memberId, seq);
  ctx.timers.startSingle(heartbeatTimerKey(entry.groupId, member.memberId), timeoutMs, {
    type: 'HeartbeatDeadline',
    groupId: entry.groupId,
    memberId: member.memberId,
    seq,
  });
}

function cancelHeartbeat(ctx: Ctx, entry: GroupEntry, memberId: string): void {
  entry.heartbeatSeq.delete(memberId);
  ctx.timers.cancel(heartbeatTimerKey(entry.groupId, memberId));
}

function setJoinWaiter(ctx: Ctx, entry: GroupEntry, member: MemberMetadata, token: ReplyToken | null): void {
  const previous = entry.joinWaiters.get(member.memberId);
  // a JoinGroup superseded by a newer one of the same member (a client retry)
  if (previous) answer(ctx, previous, joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
  entry.joinWaiters.set(member.memberId, token);
  member.isAwaitingJoin = true;
}

function takeJoinWaiter(entry: GroupEntry, member: MemberMetadata): ReplyToken | null {
  const token = entry.joinWaiters.get(member.memberId) ?? null;
  entry.joinWaiters.delete(member.memberId);
  member.isAwaitingJoin = false;
  return token;
}

function setSyncWaiter(ctx: Ctx, entry: GroupEntry, member: MemberMetadata, token: ReplyToken | null): void {
  const previous = entry.syncWaiters.get(member.memberId);
  if (previous) answer(ctx, previous, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
  entry.syncWaiters.set(member.memberId, token);
  member.isAwaitingSync = true;
}

function takeSyncWaiter(entry: GroupEntry, member: MemberMetadata): ReplyToken | null {
  const token = entry.syncWaiters.get(member.memberId) ?? null;
  entry.syncWaiters.delete(member.memberId);
  member.isAwaitingSync = false;
  return token;
}

function startJoinTimer(ctx: Ctx, entry: GroupEntry, delayMs: number, phase: JoinPhase): void {
  entry.join = phase;
  const msg: CoordinatorMsg = { type: 'JoinDeadline', groupId: entry.groupId, seq: phase.seq };
  if (delayMs <= 0) {
    ctx.timers.cancel(joinTimerKey(entry.groupId));
    ctx.send(ctx.self, msg);
  } else {
    ctx.timers.startSingle(joinTimerKey(entry.groupId), delayMs, msg);
  }
}

/** The topics the current generation's members subscribe to, also for a group just loaded from the log. */
function subscribedTopics(entry: GroupEntry): ReadonlySet<string> | null {
  if (entry.loaded && entry.loaded.generationId === entry.group.generationId) return entry.loaded.topics;
  return entry.group.subscribedTopics;
}

// ---------------------------------------------------------------------------------------------
// The rebalance protocol (Kafka's GroupCoordinator)

/** Kafka's JoinGroupRequest.joinReason: the client's reason (KIP-800), or 'not provided'. */
function clientReason(reason: string | null | undefined): string {
  return reason ? reason : 'not provided';
}

function maybePrepareRebalance(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, reason: string): void {
  if (entry.group.canRebalance) prepareRebalance(s, ctx, entry, reason);
}

function prepareRebalance(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, reason: string): void {
  const g = entry.group;
  if (g.is(GroupState.CompletingRebalance)) resetAndPropagateAssignmentError(s, ctx, entry, ErrorCode.REBALANCE_IN_PROGRESS);
  ctx.timers.cancel(syncTimerKey(entry.groupId));
  const wasEmpty = g.is(GroupState.Empty);
  const rebalanceTimeoutMs = g.rebalanceTimeoutMs();
  g.transitionTo(GroupState.PreparingRebalance, ctx.clock.now());
  ctx.log.info('preparing to rebalance group', { groupId: entry.groupId, generationId: g.generationId, reason });
  if (wasEmpty) {
    const delay = s.cfg.initialRebalanceDelayMs;
    startJoinTimer(ctx, entry, delay, { kind: 'initial', remainingMs: Math.max(rebalanceTimeoutMs - delay, 0), seq: ++s.seq });
  } else {
    startJoinTimer(ctx, entry, rebalanceTimeoutMs, { kind: 'rebalance', seq: ++s.seq });
    maybeCompleteJoin(s, ctx, entry);
  }
}

/** The rebalance-timeout join phase ends early once every member (and expected joiner) is in. */
function maybeCompleteJoin(s: CoordinatorState, ctx: Ctx, entry: GroupEntry): void {
  if (!entry.group.is(GroupState.PreparingRebalance) || entry.join?.kind !== 'rebalance') return;
  if (entry.group.allMembersJoined) completeJoin(s, ctx, entry);
}

/** Kafka's onCompleteJoin: a new generation for the members that rejoined. */
function completeJoin(s: CoordinatorState, ctx: Ctx, entry: GroupEntry): void {
  const g = entry.group;
  ctx.timers.cancel(joinTimerKey(entry.groupId));
  entry.join = null;
  for (const m of g.notYetRejoinedMembers()) {
    if (m.isStaticMember) continue;
    ctx.log.info('removing member that did not rejoin in time', { groupId: entry.groupId, memberId: m.memberId });
    const sync = takeSyncWaiter(entry, m);
    answer(ctx, sync, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    cancelHeartbeat(ctx, entry, m.memberId);
    g.remove(m.memberId);
  }
  if (g.is(GroupState.Dead)) return;
  if (!g.maybeElectNewJoinedLeader() && g.size > 0) {
    // only static members that have not rejoined remain: give them another rebalance timeout
    ctx.log.info('no member rejoined; waiting for the static members', { groupId: entry.groupId });
    startJoinTimer(ctx, entry, g.rebalanceTimeoutMs(), { kind: 'rebalance', seq: ++s.seq });
    return;
  }
  const now = ctx.clock.now();
  g.initNextGeneration(now);
  if (g.is(GroupState.Empty)) {
    ctx.log.info('group is empty', { groupId: entry.groupId, generationId: g.generationId });
    storeGroup(s, ctx, entry, new Map(), { kind: 'store-empty' });
    return;
  }
  ctx.log.info('group completed its join phase', { groupId: entry.groupId, generationId: g.generationId, protocol: g.protocolName, members: g.size });
  for (const member of g.allMembers()) {
    const token = takeJoinWaiter(entry, member);
    answer(ctx, token, joinResult(g, member.memberId, g.isLeader(member.memberId)));
    member.isNew = false;
    scheduleHeartbeat(s, ctx, entry, member);
  }
  ctx.timers.startSingle(syncTimerKey(entry.groupId), Math.max(1, g.rebalanceTimeoutMs()), {
    type: 'SyncDeadline',
    groupId: entry.groupId,
    generationId: g.generationId,
  });
}

/** A rebalance began (or storing the assignment failed) before the members got their assignment. */
function resetAndPropagateAssignmentError(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, errorCode: number): void {
  entry.group.clearAssignments();
  for (const member of entry.group.allMembers()) {
    if (!member.isAwaitingSync) continue;
    answer(ctx, takeSyncWaiter(entry, member), syncError(errorCode));
    scheduleHeartbeat(s, ctx, entry, member);
  }
}

function propagateAssignment(s: CoordinatorState, ctx: Ctx, entry: GroupEntry): void {
  const g = entry.group;
  for (const member of g.allMembers()) {
    if (!member.isAwaitingSync) continue;
    answer(ctx, takeSyncWaiter(entry, member), syncResult(g, member.assignment));
    scheduleHeartbeat(s, ctx, entry, member);
  }
}

function addMemberAndRebalance(
  s: CoordinatorState,
  ctx: Ctx,
  entry: GroupEntry,
  m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>,
  memberId: string,
  token: ReplyToken | null,
): void {
  const g = entry.group;
  const member = new MemberMetadata({
    memberId,
    groupInstanceId: m.groupInstanceId ?? null,
    clientId: m.clientId ?? '',
    clientHost: m.clientHost ?? '',
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    sessionTimeoutMs: m.sessionTimeoutMs,
    protocolType: m.protocolType,
    supportedProtocols: m.protocols,
    now: ctx.clock.now(),
  });
  member.isNew = true;
  if (g.is(GroupState.PreparingRebalance) && g.generationId === 0) entry.newMemberAdded = true;
  g.add(member);
  setJoinWaiter(ctx, entry, member, token);
  scheduleHeartbeat(s, ctx, entry, member, s.cfg.newMemberJoinTimeoutMs);
  const reason = clientReason(m.reason);
  ctx.log.info('member joins group', { groupId: entry.groupId, memberId, clientId: member.clientId, reason });
  maybePrepareRebalance(s, ctx, entry, `adding new member ${memberId}; client reason: ${reason}`);
}

function updateMemberAndRebalance(
  s: CoordinatorState,
  ctx: Ctx,
  entry: GroupEntry,
  member: MemberMetadata,
  m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>,
  token: ReplyToken | null,
  reason: string,
): void {
  entry.group.updateMember(member.memberId, { supportedProtocols: m.protocols, rebalanceTimeoutMs: m.rebalanceTimeoutMs, sessionTimeoutMs: m.sessionTimeoutMs });
  setJoinWaiter(ctx, entry, member, token);
  maybePrepareRebalance(s, ctx, entry, reason);
}

function removeMemberAndUpdateGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string, reason: string): void {
  const g = entry.group;
  const member = g.get(memberId);
  if (!member) return;
  answer(ctx, takeJoinWaiter(entry, member), joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
  answer(ctx, takeSyncWaiter(entry, member), syncError(ErrorCode.UNKNOWN_MEMBER_ID));
  cancelHeartbeat(ctx, entry, memberId);
  g.remove(memberId);
  ctx.log.info('member removed from group', { groupId: entry.groupId, memberId, reason });
  switch (g.state) {
    case GroupState.Dead:
    case GroupState.Empty:
      return;
    case GroupState.Stable:
    case GroupState.CompletingRebalance:
      maybePrepareRebalance(s, ctx, entry, reason);
      return;
    case GroupState.PreparingRebalance:
      maybeCompleteJoin(s, ctx, entry);
      return;
  }
}

function doNewMemberJoin(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>, token: ReplyToken | null): void {
  const g = entry.group;
  if (g.is(GroupState.Dead)) return answer(ctx, token, joinError(m.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
  if (g.validateProtocols(m.protocolType, m.protocols.map((p) => p.name)) !== null) {
    return answer(ctx, token, joinError(m.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  }
  const memberId = newMemberId(m.clientId ?? '', m.groupInstanceId);
  if (m.groupInstanceId) {
    const oldMemberId = g.getStaticMemberId(m.groupInstanceId);
    if (oldMemberId === undefined) addMemberAndRebalance(s, ctx, entry, m, memberId, token);
    else updateStaticMemberAndRebalance(s, ctx, entry, m, m.groupInstanceId, oldMemberId, memberId, token);
    return;
  }
  if (m.requireKnownMemberId) {
    // KIP-394: the member learns its id first and joins again with it
    g.addPendingMember(memberId);
    const seq = ++s.seq;
    entry.pendingMembers.set(memberId, seq);
    ctx.timers.startSingle(pendingTimerKey(entry.groupId, memberId), m.sessionTimeoutMs, {
      type: 'PendingMemberDeadline',
      groupId: entry.groupId,
      memberId,
      seq,
    });
    return answer(ctx, token, joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED));
  }
  addMemberAndRebalance(s, ctx, entry, m, memberId, token);
}

/** KIP-345: a static member came back under a new member id (a restarted instance). */
function updateStaticMemberAndRebalance(
  s: CoordinatorState,
  ctx: Ctx,
  entry: GroupEntry,
  m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>,
  groupInstanceId: string,
  oldMemberId: string,
  memberId: string,
  token: ReplyToken | null,
): void {
  const g = entry.group;
  const old = g.get(oldMemberId)!;
  const previous = { supportedProtocols: old.supportedProtocols, rebalanceTimeoutMs: old.rebalanceTimeoutMs, sessionTimeoutMs: old.sessionTimeoutMs };
  const leaderBefore = g.leaderId ?? '';
  // the old instance is fenced: requests it still has waiting fail
  answer(ctx, takeJoinWaiter(entry, old), joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID));
  answer(ctx, takeSyncWaiter(entry, old), syncError(ErrorCode.FENCED_INSTANCE_ID));
  cancelHeartbeat(ctx, entry, oldMemberId);
  g.replaceStaticMember(groupInstanceId, oldMemberId, memberId);
  g.updateMember(memberId, { supportedProtocols: m.protocols, rebalanceTimeoutMs: m.rebalanceTimeoutMs, sessionTimeoutMs: m.sessionTimeoutMs });
  const member = g.get(memberId)!;
  setJoinWaiter(ctx, entry, member, token);
  scheduleHeartbeat(s, ctx, entry, member);
  const reason = clientReason(m.reason);
  ctx.log.info('static member rejoined under a new member id', { groupId: entry.groupId, groupInstanceId, oldMemberId, memberId, reason });
  switch (g.state) {
    case GroupState.Stable: {
      if (g.protocolName === g.selectProtocol()) {
        // nothing changes for the group: persist the new member id, then answer without a rebalance
        const assignments = new Map(g.allMembers().map((x) => [x.memberId, x.assignment] as const));
        storeGroup(s, ctx, entry, assignments, {
          kind: 'static-replace',
          groupInstanceId,
          oldMemberId,
          newMemberId: memberId,
          previous,
          leaderBefore,
          supportsSkippingAssignment: m.supportsSkippingAssignment === true,
        });
      } else {
        maybePrepareRebalance(s, ctx, entry, `static member ${groupInstanceId} rejoined with protocols that change the group's protocol; client reason: ${reason}`);
      }
      return;
    }
    case GroupState.CompletingRebalance:
      // the leader may already be assigning to the old member id: start over
      prepareRebalance(s, ctx, entry, `static member ${groupInstanceId} rejoined during the sync phase; client reason: ${reason}`);
      return;
    case GroupState.PreparingRebalance:
    case GroupState.Empty:
    case GroupState.Dead:
      return;
  }
}

function doCurrentMemberJoin(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>, token: ReplyToken | null): void {
  const g = entry.group;
  const memberId = m.memberId;
  if (g.is(GroupState.Dead)) return answer(ctx, token, joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
  const isPending = g.hasPendingMember(memberId);
  if (g.validateProtocols(m.protocolType, m.protocols.map((p) => p.name), isPending ? undefined : memberId) !== null) {
    return answer(ctx, token, joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  }
  if (isPending) {
    if (m.groupInstanceId) return answer(ctx, token, joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    ctx.timers.cancel(pendingTimerKey(entry.groupId, memberId));
    entry.pendingMembers.delete(memberId);
    addMemberAndRebalance(s, ctx, entry, m, memberId, token);
    return;
  }
  const memberError = g.validateMember(memberId, m.groupInstanceId);
  if (memberError !== null) return answer(ctx, token, joinError(memberId, memberError));
  const member = g.get(memberId)!;
  const reason = clientReason(m.reason);
  switch (g.state) {
    case GroupState.PreparingRebalance:
      updateMemberAndRebalance(s, ctx, entry, member, m, token, `member ${memberId} rejoined; client reason: ${reason}`);
      return;
    case GroupState.CompletingRebalance:
      if (member.matches(m.protocols)) {
        // a retry of a join that already completed: the same generation again
        answer(ctx, token, joinResult(g, memberId, g.isLeader(memberId)));
      } else {
        updateMemberAndRebalance(s, ctx, entry, member, m, token, `member ${memberId} rejoined with new metadata during the sync phase; client reason: ${reason}`);
      }
      return;
    case GroupState.Stable:
      if (g.isLeader(memberId) || !member.matches(m.protocols)) {
        // the leader rejoining (e.g. its metadata changed) or changed subscriptions: rebalance
        updateMemberAndRebalance(s, ctx, entry, member, m, token, `member ${memberId} rejoined${g.isLeader(memberId) ? ' as leader' : ' with new metadata'}; client reason: ${reason}`);
      } else {
        answer(ctx, token, joinResult(g, memberId, false));
      }
      return;
    case GroupState.Empty:
    case GroupState.Dead:
      answer(ctx, token, joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Appends to the offsets partitions

function encodeWritten(r: WrittenRecord): OffsetsRecord {
  if (r.kind === 'consumer') return { key: r.key, value: r.value };
  if (r.kind === 'offset') {
    // an explicit expiry (OffsetCommit v2-v4 retention) is only in value version 1, as Kafka writes it
    const value = r.value === null ? null : r.value.expireTimestamp >= 0 ? encodeOffsetCommitValue(r.value, 1) : encodeOffsetCommitValue(r.value);
    return { key: encodeOffsetCommitKey(r.entry.groupId, r.topic, r.partition), value };
  }
  return { key: encodeGroupMetadataKey(r.entry.groupId), value: r.bytes };
}

function markPending(r: WrittenRecord, delta: 1 | -1): void {
  const e = r.entry;
  if (r.kind === 'offset') {
    const k = topicPartitionKey(r.topic, r.partition);
    const n = (e.pendingOffsetWrites.get(k) ?? 0) + delta;
    if (n > 0) e.pendingOffsetWrites.set(k, n);
    else {
      e.pendingOffsetWrites.delete(k);
      e.offsetTombstones.delete(k);
    }
  } else {
    e.pendingGroupWrites = Math.max(0, e.pendingGroupWrites + delta);
  }
}

/**
 * Appends records to an offsets partition through its local leader replica, with acks=all and
 * without blocking the mailbox: the outcome comes back as AppendDone.
 */
function appendRecords(
  s: CoordinatorState,
  ctx: Ctx,
  partition: number,
  records: WrittenRecord[],
  purpose: AppendPurpose,
  entry: GroupEntry | null = null,
  refused?: { errorCode: number; message: string },
  verificationGuard: number | null = null,
): void {
  const id = ++s.seq;
  const owned = s.partitions.get(partition);
  const now = ctx.clock.now();
  const append: PendingAppend = { id, partition, leaderEpoch: owned?.leaderEpoch ?? -1, timestamp: now, records, entry, purpose };
  s.appends.set(id, append);
  for (const r of records) markPending(r, 1);
  const fail = (errorCode: number, errorMessage: string) => ctx.send(ctx.self, { type: 'AppendDone', appendId: id, errorCode, baseOffset: -1, errorMessage });
  if (refused) return fail(refused.errorCode, refused.message);
  if (!owned || owned.status !== OffsetsPartitionStatus.Active) return fail(ErrorCode.NOT_LEADER_OR_FOLLOWER, `offsets partition ${partition} is not led here`);
  let batch: Buffer;
  // a transaction's offsets go in one batch of its producer (one append holds one transaction's)
  const first = records[0];
  const txn = first?.kind === 'offset' ? first.txn : undefined;
  try {
    batch = buildOffsetsBatch(records.map(encodeWritten), now, txn);
  } catch (err) {
    return fail(ErrorCode.RECORD_LIST_TOO_LARGE, (err as Error).message);
  }
  const produce: Extract<ReplicaMsg, { type: 'Produce' }> = { type: 'Produce', acks: -1, timeoutMs: s.cfg.offsetCommitTimeoutMs, records: batch };
  // the coordinator's own transactional batch: no producer sequence to check (Kafka's coordinator origin)
  if (txn) produce.fromCoordinator = true;
  // a verified transaction's offsets carry the guard its verification took (KIP-890)
  if (txn && verificationGuard !== null) {
    produce.verify = true;
    produce.verificationGuard = verificationGuard;
  }
  void ctx
    .ask<ProduceResponse>(
      s.replicaFor(partition),
      produce,
      { timeoutMs: s.cfg.offsetCommitTimeoutMs + 5_000 },
    )
    .then((r) => {
      if (isFailure(r)) {
        ctx.send(ctx.self, { type: 'AppendDone', appendId: id, errorCode: appendFailureCode(r), baseOffset: -1, errorMessage: r.message });
        return;
      }
      const done: CoordinatorMsg = { type: 'AppendDone', appendId: id, errorCode: r.errorCode, baseOffset: r.baseOffset };
      if (r.errorMessage) done.errorMessage = r.errorMessage;
      ctx.send(ctx.self, done);
    });
}

type TxnOffsetCommitMsg = Extract<CoordinatorMsg, { type: 'TxnOffsetCommit' }>;

function txnOffsetCommitFailed(m: TxnOffsetCommitMsg, errorCode: number): TxnOffsetCommitResponse {
  return { type: 'TxnOffsetCommitResponse', errorCode, topics: perPartitionError(m.topics, errorCode) };
}

/** Why a TxnOffsetCommit cannot be taken at all (null: it can): the group's status, its topics, the producer. */
function txnOffsetCommitProblem(s: CoordinatorState, m: TxnOffsetCommitMsg): number | null {
  const err = validateGroupStatus(s, m.groupId, true) ?? validateTopicList(m.topics, true);
  if (err !== null) return err;
  if (!Number.isSafeInteger(m.producerId) || m.producerId < 0 || !Number.isSafeInteger(m.producerEpoch) || m.producerEpoch < 0) return ErrorCode.INVALID_REQUEST;
  // a share group keeps no committed offsets
  if (s.groups.get(m.groupId)?.share) return ErrorCode.GROUP_ID_NOT_FOUND;
  return null;
}

/**
 * A failed verification as TxnOffsetCommit v0-4 reports it, as Kafka (its AddPartitionsToTxnManager,
 * then its coordinator's operation error mapping): not in the transaction INVALID_TXN_STATE, a
 * fenced epoch INVALID_PRODUCER_EPOCH, an unreachable coordinator COORDINATOR_LOAD_IN_PROGRESS or
 * COORDINATOR_NOT_AVAILABLE (retried), the rest as the transaction coordinator said.
 */
export function txnOffsetCommitVerificationError(code: number): number {
  switch (code) {
    case ErrorCode.TRANSACTION_ABORTABLE:
      return ErrorCode.INVALID_TXN_STATE;
    case ErrorCode.PRODUCER_FENCED:
      return ErrorCode.INVALID_PRODUCER_EPOCH;
    case ErrorCode.NETWORK_EXCEPTION:
      return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    default:
      return commitErrorFor(code);
  }
}

/** Writes a TxnOffsetCommit's offsets as its producer's transactional batch (under `guard` when verified) and answers once written. */
function commitTxnOffsets(s: CoordinatorState, ctx: Ctx, m: TxnOffsetCommitMsg, token: ReplyToken | null, guard: number | null): void {
  const now = ctx.clock.now();
  // as Kafka: a group that does not exist yet is created for the transaction's offsets
  const entry = s.groups.get(m.groupId) ?? createGroup(s, m.groupId, now);
  const g = entry.group;
  if (g.is(GroupState.Dead)) return answer(ctx, token, txnOffsetCommitFailed(m, ErrorCode.COORDINATOR_NOT_AVAILABLE));
  // versions 3+ name the member (KIP-447): checked as Kafka's doTxnCommitOffsets does
  if (entry.consumer) {
    // as Kafka: checked as a commit (no member: only while the group is empty); TxnOffsetCommit has no STALE_MEMBER_EPOCH
    const problem = entry.consumer.validateOffsetCommit(m.memberId, m.generationId, true, 9);
    if (problem !== null) return answer(ctx, token, txnOffsetCommitFailed(m, problem === ErrorCode.STALE_MEMBER_EPOCH ? ErrorCode.ILLEGAL_GENERATION : problem));
  } else {
    if (m.memberId !== '' && !g.has(m.memberId)) return answer(ctx, token, txnOffsetCommitFailed(m, ErrorCode.UNKNOWN_MEMBER_ID));
    if (m.generationId >= 0 && m.generationId !== g.generationId) return answer(ctx, token, txnOffsetCommitFailed(m, ErrorCode.ILLEGAL_GENERATION));
  }
  const { records, written, topics } = offsetRecords(s, entry, m.topics, now, -1, { producerId: m.producerId, producerEpoch: m.producerEpoch });
  const response: TxnOffsetCommitResponse = { type: 'TxnOffsetCommitResponse', errorCode: ErrorCode.NONE, topics };
  if (records.length === 0) return answer(ctx, token, response);
  appendRecords(s, ctx, entry.partition, records, { kind: 'commit', token, response, written }, null, undefined, guard);
}

/** A record is in the log at `logOffset`: the cache follows the log's order. */
function applyWritten(s: CoordinatorState, r: WrittenRecord, logOffset: number, timestamp: number, isRefresh: boolean): void {
  const e = r.entry;
  if (s.groups.get(e.groupId) !== e) return;
  if (r.kind === 'offset') {
    const k = topicPartitionKey(r.topic, r.partition);
    const cur = e.offsets.get(k);
    if (r.value === null) {
      if (cur && cur.logOffset < logOffset) e.offsets.delete(k);
      if ((e.pendingOffsetWrites.get(k) ?? 0) > 0) e.offsetTombstones.set(k, Math.max(e.offsetTombstones.get(k) ?? -1, logOffset));
      return;
    }
    if (isRefresh) {
      // a rewrite only moves an existing key's newest record; it never brings a deleted key back
      if (cur && cur.logOffset < logOffset) {
        cur.logOffset = logOffset;
        cur.writtenAt = timestamp;
      }
      return;
    }
    const floor = Math.max(cur?.logOffset ?? -1, e.offsetTombstones.get(k) ?? -1);
    if (logOffset > floor) e.offsets.set(k, { topic: r.topic, partition: r.partition, value: r.value, logOffset, writtenAt: timestamp });
    return;
  }
  if (r.kind === 'consumer') return;
  if (r.bytes === null) return;
  if (!e.persisted || e.persisted.logOffset < logOffset) {
    if (isRefresh && !e.persisted) return;
    e.persisted = { bytes: r.bytes, logOffset, writtenAt: timestamp };
  }
}

/**
 * The records of a commit's offsets (of `txn`'s transaction when given) and each partition's
 * code: metadata over offset.metadata.max.bytes is refused per partition, the rest written.
 */
function offsetRecords(
  s: CoordinatorState,
  entry: GroupEntry,
  topics: readonly { name: string; partitions: readonly OffsetCommitPartition[] }[],
  now: number,
  expireTimestamp: number,
  txn?: { producerId: number; producerEpoch: number },
): { records: WrittenRecord[]; written: { topic: string; partition: number }[]; topics: { name: string; partitions: { partition: number; errorCode: number }[] }[] } {
  const records: WrittenRecord[] = [];
  const written: { topic: string; partition: number }[] = [];
  const answered = topics.map((t) => {
    const partitions: { partition: number; errorCode: number }[] = [];
    for (const p of t.partitions) {
      const metadata = p.metadata ?? '';
      if (Buffer.byteLength(metadata, 'utf8') > s.cfg.offsetMetadataMaxBytes) {
        partitions.push({ partition: p.partition, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE });
        continue;
      }
      partitions.push({ partition: p.partition, errorCode: ErrorCode.NONE });
      const value: OffsetCommitValue = { offset: p.offset, leaderEpoch: p.leaderEpoch ?? -1, metadata, commitTimestamp: now, expireTimestamp };
      records.push(txn ? { kind: 'offset', entry, topic: t.name, partition: p.partition, value, txn } : { kind: 'offset', entry, topic: t.name, partition: p.partition, value });
      written.push({ topic: t.name, partition: p.partition });
    }
    return { name: t.name, partitions };
  });
  return { records, written, topics: answered };
}

/** A transaction's offset is in the log: it waits for the transaction's marker. */
function holdTxnOffset(s: CoordinatorState, r: Extract<WrittenRecord, { kind: 'offset' }>, producerId: number, logOffset: number, timestamp: number): void {
  const e = r.entry;
  if (s.groups.get(e.groupId) !== e || r.value === null) return;
  let held = e.txnOffsets.get(producerId);
  if (!held) e.txnOffsets.set(producerId, (held = new Map()));
  held.set(topicPartitionKey(r.topic, r.partition), { topic: r.topic, partition: r.partition, value: r.value, logOffset, writtenAt: timestamp });
}

/**
 * A marker ended `producerId`'s transaction on offsets partition `partition`: COMMIT makes its
 * offsets the groups' committed ones (unless a newer commit of the key came after), ABORT drops
 * them (Kafka's GroupMetadata.completePendingTxnOffsetCommit).
 */
function completeTxnOffsets(s: CoordinatorState, ctx: Ctx, partition: number, producerId: number, commit: boolean): void {
  const owned = s.partitions.get(partition);
  if (!owned) return;
  let moved = 0;
  for (const groupId of owned.groups) {
    const entry = s.groups.get(groupId);
    const held = entry?.txnOffsets.get(producerId);
    if (!entry || !held) continue;
    entry.txnOffsets.delete(producerId);
    if (!commit) continue;
    for (const [k, o] of held) {
      const cur = entry.offsets.get(k);
      if (cur && cur.logOffset > o.logOffset) continue;
      entry.offsets.set(k, o);
      moved++;
    }
  }
  if (moved > 0) ctx.log.debug('transaction offsets committed', { partition, producerId, offsets: moved });
}

/** Whether a transaction of some producer holds an offset of `key` not yet committed or aborted. */
function hasTxnOffset(entry: GroupEntry | undefined, key: string): boolean {
  if (!entry) return false;
  for (const held of entry.txnOffsets.values()) if (held.has(key)) return true;
  return false;
}

/** The group's metadata record with these assignments (throws when it cannot be encoded). */
function groupMetadataBytes(entry: GroupEntry, assignments: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const g = entry.group;
  const protocol = g.protocolName;
  const value: GroupMetadataValue = {
    protocolType: g.protocolType ?? '',
    generation: g.generationId,
    protocol,
    leader: g.leaderId,
    currentStateTimestamp: g.stateTimestampMs ?? -1,
    members: g.allMembers().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: m.sessionTimeoutMs,
      subscription: protocol !== null ? m.metadata(protocol) : EMPTY,
      assignment: assignments.get(m.memberId) ?? EMPTY,
    })),
  };
  return encodeGroupMetadataValue(value);
}

/** Persists the group's metadata with these assignments (Kafka's storeGroup). */
function storeGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, assignments: ReadonlyMap<string, Uint8Array>, purpose: AppendPurpose): void {
  let bytes: Uint8Array;
  try {
    bytes = groupMetadataBytes(entry, assignments);
  } catch (err) {
    ctx.log.error('group metadata cannot be encoded', { groupId: entry.groupId, error: (err as Error).message });
    appendRecords(s, ctx, entry.partition, [], purpose, entry, { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, message: (err as Error).message });
    return;
  }
  appendRecords(s, ctx, entry.partition, [{ kind: 'group', entry, bytes }], purpose, entry);
}

function settleAppend(s: CoordinatorState, ctx: Ctx, a: PendingAppend, errorCode: number): void {
  const p = a.purpose;
  switch (p.kind) {
    case 'commit': {
      const code = commitErrorFor(errorCode);
      if (code !== ErrorCode.NONE) {
        const failed = new Set(p.written.map((w) => topicPartitionKey(w.topic, w.partition)));
        for (const t of p.response.topics) for (const r of t.partitions) if (failed.has(topicPartitionKey(t.name, r.partition))) r.errorCode = code;
        if (failed.size > 0) p.response.errorCode = code;
      }
      answer(ctx, p.token, p.response);
      return;
    }
    case 'sync': {
      const entry = a.entry;
      if (!liveEntry(s, entry)) return;
      const g = entry.group;
      if (!g.is(GroupState.CompletingRebalance) || g.generationId !== p.generationId) return;
      if (errorCode !== ErrorCode.NONE) {
        ctx.log.warn('storing the group assignment failed', { groupId: entry.groupId, generationId: p.generationId, errorCode });
        resetAndPropagateAssignmentError(s, ctx, entry, groupStoreErrorFor(errorCode));
        maybePrepareRebalance(s, ctx, entry, 'error storing the group assignment');
        return;
      }
      g.setAssignments(p.assignments);
      propagateAssignment(s, ctx, entry);
      g.transitionTo(GroupState.Stable, ctx.clock.now());
      ctx.log.info('group is stable', { groupId: entry.groupId, generationId: g.generationId, members: g.size });
      return;
    }
    case 'store-empty': {
      if (errorCode !== ErrorCode.NONE) ctx.log.warn('storing the empty group failed', { groupId: a.entry?.groupId, errorCode });
      return;
    }
    case 'static-replace': {
      const entry = a.entry;
      if (!liveEntry(s, entry)) return;
      const g = entry.group;
      const member = g.get(p.newMemberId);
      if (!member) return;
      const token = takeJoinWaiter(entry, member);
      if (errorCode === ErrorCode.NONE) {
        if (p.supportsSkippingAssignment) {
          // KIP-814: a static leader learns it leads (with the members, for its metadata) but keeps the group's assignment
          const isLeader = g.isLeader(p.newMemberId);
          answer(ctx, token, { ...joinResult(g, p.newMemberId, isLeader), skipAssignment: isLeader });
        } else {
          // older clients would run an assignment as leader: they are told the leader it had before
          answer(ctx, token, joinResult(g, p.newMemberId, false, p.leaderBefore));
        }
        return;
      }
      const code = groupStoreErrorFor(errorCode);
      ctx.log.warn('persisting a static member id failed; reverting to the old id', { groupId: entry.groupId, groupInstanceId: p.groupInstanceId, errorCode });
      if (g.getStaticMemberId(p.groupInstanceId) === p.newMemberId && g.is(GroupState.Stable)) {
        cancelHeartbeat(ctx, entry, p.newMemberId);
        g.updateMember(p.newMemberId, p.previous);
        g.replaceStaticMember(p.groupInstanceId, p.newMemberId, p.oldMemberId);
        const old = g.get(p.oldMemberId);
        if (old) scheduleHeartbeat(s, ctx, entry, old);
      }
      answer(ctx, token, joinError('', code));
      return;
    }
    case 'delete-groups': {
      const code = commitErrorFor(errorCode);
      if (code !== ErrorCode.NONE) for (const r of p.progress.results) if (p.groupIds.includes(r.groupId)) r.errorCode = code;
      if (--p.progress.remaining === 0) {
        answer(ctx, p.progress.token, { type: 'DeleteGroupsResponse', errorCode: ErrorCode.NONE, groups: p.progress.results } satisfies DeleteGroupsResponse);
      }
      return;
    }
    case 'offset-delete': {
      const code = commitErrorFor(errorCode);
      if (code !== ErrorCode.NONE) {
        const failed = new Set(p.deleted.map((w) => topicPartitionKey(w.topic, w.partition)));
        for (const t of p.response.topics) for (const r of t.partitions) if (failed.has(topicPartitionKey(t.name, r.partition))) r.errorCode = code;
      }
      answer(ctx, p.token, p.response);
      return;
    }
    case 'expire':
    case 'refresh':
    case 'topics-deleted':
      if (errorCode !== ErrorCode.NONE) ctx.log.warn(`offsets ${p.kind} append failed`, { partition: a.partition, errorCode });
      return;
    case 'consumer-write':
    case 'consumer-reply': {
      if (errorCode !== ErrorCode.NONE) {
        ctx.log.warn('writing consumer group records failed', { groupId: a.entry?.groupId, errorCode });
        if (a.entry) a.entry.consumerNeedsFullWrite = true;
      }
      if (p.kind === 'consumer-reply') {
        const code = consumerWriteErrorFor(errorCode);
        answer(ctx, p.token, code === ErrorCode.NONE ? p.response : p.failed(code));
      }
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// KIP-848 consumer groups (ConsumerGroupHeartbeat): consumer-group.ts is the state machine; here
// are its timers, the topic metadata it needs and the records that persist it.

const consumerSessionTimerKey = (groupId: string, memberId: string) => JSON.stringify(['cg-session', groupId, memberId]);
const consumerRebalanceTimerKey = (groupId: string, memberId: string) => JSON.stringify(['cg-rebalance', groupId, memberId]);

function consumerHeartbeatError(errorCode: number, errorMessage: string | null): ConsumerGroupHeartbeatResponse {
  return { type: 'ConsumerGroupHeartbeatResponse', errorCode, errorMessage, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
}

/** An append error as a consumer group heartbeat reports it (Kafka's coordinator runtime). */
export function consumerWriteErrorFor(code: number): number {
  return commonWriteError(code) ?? (code === ErrorCode.REQUEST_TIMED_OUT ? ErrorCode.COORDINATOR_NOT_AVAILABLE : ErrorCode.UNKNOWN_SERVER_ERROR);
}

/** Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid: INVALID_REQUEST or UNSUPPORTED_ASSIGNOR with Kafka's message, or null. */
export function validateConsumerHeartbeat(m: ConsumerHeartbeatMsg): { errorCode: number; message: string } | null {
  const invalid = (message: string) => ({ errorCode: ErrorCode.INVALID_REQUEST, message });
  if (typeof m.groupId !== 'string' || m.groupId.trim() === '') return invalid("GroupId can't be empty.");
  if (m.instanceId !== null && m.instanceId.trim() === '') return invalid("InstanceId can't be empty.");
  if (m.rackId !== null && m.rackId.trim() === '') return invalid("RackId can't be empty.");
  if (m.memberEpoch > 0 || m.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
    if (m.memberId.trim() === '') return invalid("MemberId can't be empty.");
  } else if (m.memberEpoch === 0) {
    if (m.rebalanceTimeoutMs === -1) return invalid('RebalanceTimeoutMs must be provided in first request.');
    if (m.topicPartitions === null || m.topicPartitions.length > 0) return invalid('TopicPartitions must be empty when (re-)joining.');
    // as Kafka 4.0: an empty list or an empty expression joins subscribed to nothing
    if (m.subscribedTopicNames === null && (m.subscribedTopicRegex ?? null) === null) return invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
  } else if (m.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (m.memberId.trim() === '') return invalid("MemberId can't be empty.");
    if (m.instanceId === null) return invalid("InstanceId can't be null.");
  } else {
    return invalid('MemberEpoch is invalid.');
  }
  if (m.serverAssignor !== null && !SERVER_ASSIGNORS.has(m.serverAssignor)) {
    return { errorCode: ErrorCode.UNSUPPORTED_ASSIGNOR, message: `ServerAssignor ${m.serverAssignor} is not supported. Supported assignors: ${[...SERVER_ASSIGNORS.keys()].join(', ')}.` };
  }
  return null;
}

function cancelConsumerTimers(ctx: Ctx, entry: GroupEntry, memberId: string): void {
  ctx.timers.cancel(consumerSessionTimerKey(entry.groupId, memberId));
  ctx.timers.cancel(consumerRebalanceTimerKey(entry.groupId, memberId));
  ctx.timers.cancel(classicTimerKey(entry.groupId, memberId, 'join'));
  ctx.timers.cancel(classicTimerKey(entry.groupId, memberId, 'sync'));
  entry.consumerTimers.delete(memberId);
}

/** A consumer group's session timeout and heartbeat interval: its group configs over group.consumer.session.timeout.ms / heartbeat.interval.ms. */
function consumerTimeouts(s: CoordinatorState, groupId: string): { sessionTimeoutMs: number; heartbeatIntervalMs: number } {
  return effectiveGroupTimeouts(s.groupConfigs.get(groupId), { sessionTimeoutMs: s.cfg.consumerSessionTimeoutMs, heartbeatIntervalMs: s.cfg.consumerHeartbeatIntervalMs });
}

/** The member is alive now: its session runs from here (a classic member's own session timeout, else the group's consumer.session.timeout.ms). */
function scheduleConsumerSession(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string): void {
  const seq = ++s.seq;
  const t = entry.consumerTimers.get(memberId) ?? { sessionSeq: seq, rebalance: null };
  t.sessionSeq = seq;
  entry.consumerTimers.set(memberId, t);
  const timeoutMs = entry.consumer?.members.get(memberId)?.classic?.sessionTimeoutMs ?? consumerTimeouts(s, entry.groupId).sessionTimeoutMs;
  ctx.timers.startSingle(consumerSessionTimerKey(entry.groupId, memberId), timeoutMs, { type: 'ConsumerSessionDeadline', groupId: entry.groupId, memberId, seq });
}

const classicTimerKey = (groupId: string, memberId: string, phase: 'join' | 'sync') => JSON.stringify(['cg-classic', phase, groupId, memberId]);

/**
 * A classic member must join again (told so) or sync (after its join) within its rebalance
 * timeout, else it is fenced (Kafka's consumer group join and sync timeouts); a join timer
 * already running is left alone.
 */
function scheduleClassicTimer(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string, phase: 'join' | 'sync', timeoutMs: number): void {
  const t = entry.consumerTimers.get(memberId);
  if (!t || (phase === 'join' && t.join !== undefined)) return;
  const seq = ++s.seq;
  t[phase] = seq;
  ctx.timers.startSingle(classicTimerKey(entry.groupId, memberId, phase), Math.max(1, timeoutMs), { type: 'ConsumerClassicDeadline', groupId: entry.groupId, memberId, phase, seq });
}

function cancelClassicTimer(ctx: Ctx, entry: GroupEntry, memberId: string, phase: 'join' | 'sync'): void {
  const t = entry.consumerTimers.get(memberId);
  if (t) delete t[phase];
  ctx.timers.cancel(classicTimerKey(entry.groupId, memberId, phase));
}

/** A member revoking partitions has its rebalance timeout to do it in (one timer per epoch); others have none. */
function maybeScheduleConsumerRebalance(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, member: ConsumerMember): void {
  const t = entry.consumerTimers.get(member.memberId);
  if (!t) return;
  if (member.state !== MemberState.UnrevokedPartitions) {
    if (t.rebalance) ctx.timers.cancel(consumerRebalanceTimerKey(entry.groupId, member.memberId));
    t.rebalance = null;
    return;
  }
  if (t.rebalance?.memberEpoch === member.memberEpoch) return;
  const seq = ++s.seq;
  t.rebalance = { seq, memberEpoch: member.memberEpoch };
  ctx.timers.startSingle(consumerRebalanceTimerKey(entry.groupId, member.memberId), Math.max(1, member.rebalanceTimeoutMs), {
    type: 'ConsumerRebalanceDeadline',
    groupId: entry.groupId,
    memberId: member.memberId,
    memberEpoch: member.memberEpoch,
    seq,
  });
}

function topicPartitionsValue(a: TopicAssignment): TopicPartitionsValue {
  return [...a]
    .filter(([, ps]) => ps.size > 0)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([topicId, ps]) => ({ topicId, partitions: [...ps].sort((p, q) => p - q) }));
}

function topicAssignmentOf(v: TopicPartitionsValue): TopicAssignment {
  return new Map(v.map((t) => [t.topicId, new Set(t.partitions)]));
}

/** Tombstones for every record of a consumer group (Kafka's createGroupTombstoneRecords). */
function consumerTombstones(entry: GroupEntry): WrittenRecord[] {
  const g = entry.consumer;
  if (!g) return [];
  const out: WrittenRecord[] = [];
  const rec = (type: ConsumerRecordType, memberId: string | null = null): WrittenRecord => ({ kind: 'consumer', entry, key: encodeConsumerGroupKey(type, entry.groupId, memberId), value: null });
  for (const id of g.members.keys()) out.push(rec(ConsumerRecordType.CurrentMemberAssignment, id));
  for (const id of g.members.keys()) out.push(rec(ConsumerRecordType.TargetAssignmentMember, id));
  out.push(rec(ConsumerRecordType.TargetAssignmentMetadata));
  for (const id of g.members.keys()) out.push(rec(ConsumerRecordType.MemberMetadata, id));
  out.push(rec(ConsumerRecordType.PartitionMetadata));
  out.push(rec(ConsumerRecordType.Metadata));
  return out;
}

/** The records of what changed in the consumer group (everything after a failed write), in Kafka's order. */
function consumerRecords(entry: GroupEntry, now: number): WrittenRecord[] {
  const g = entry.consumer!;
  if (entry.consumerNeedsFullWrite) {
    g.markAllDirty();
    entry.consumerNeedsFullWrite = false;
    entry.consumerOldestWrite = now;
  }
  const d = g.takeDirty();
  const out: WrittenRecord[] = [];
  const rec = (type: ConsumerRecordType, memberId: string | null, value: Uint8Array | null): void => {
    out.push({ kind: 'consumer', entry, key: encodeConsumerGroupKey(type, entry.groupId, memberId), value });
  };
  for (const id of d.removed) {
    if (g.members.has(id)) continue;
    rec(ConsumerRecordType.CurrentMemberAssignment, id, null);
    rec(ConsumerRecordType.TargetAssignmentMember, id, null);
    rec(ConsumerRecordType.MemberMetadata, id, null);
  }
  for (const id of d.memberMetadata) {
    const m = g.members.get(id);
    if (!m) continue;
    const value = {
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      serverAssignor: m.serverAssignor,
      classicMemberMetadata: m.classic,
    };
    rec(ConsumerRecordType.MemberMetadata, id, encodeConsumerGroupValue({ record: ConsumerRecordType.MemberMetadata, value }));
  }
  if (d.subscriptionMetadata) {
    rec(ConsumerRecordType.PartitionMetadata, null, encodeConsumerGroupValue({ record: ConsumerRecordType.PartitionMetadata, value: [...g.subscriptionMetadata.values()] }));
  }
  if (d.epoch) rec(ConsumerRecordType.Metadata, null, encodeConsumerGroupValue({ record: ConsumerRecordType.Metadata, value: { epoch: g.groupEpoch } }));
  for (const id of d.targetAssignment) {
    const a = g.targetAssignment.get(id);
    if (a) rec(ConsumerRecordType.TargetAssignmentMember, id, encodeConsumerGroupValue({ record: ConsumerRecordType.TargetAssignmentMember, value: topicPartitionsValue(a) }));
  }
  if (d.assignmentEpoch) rec(ConsumerRecordType.TargetAssignmentMetadata, null, encodeConsumerGroupValue({ record: ConsumerRecordType.TargetAssignmentMetadata, value: { assignmentEpoch: g.assignmentEpoch } }));
  for (const id of d.currentAssignment) {
    const m = g.members.get(id);
    if (!m) continue;
    const value = { memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: m.state, assigned: topicPartitionsValue(m.assigned), pendingRevocation: topicPartitionsValue(m.pendingRevocation) };
    rec(ConsumerRecordType.CurrentMemberAssignment, id, encodeConsumerGroupValue({ record: ConsumerRecordType.CurrentMemberAssignment, value }));
  }
  return out;
}

/** Writes what changed in the consumer group (after `extra`), then settles `purpose`. */
function persistConsumer(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, purpose: AppendPurpose, extra: WrittenRecord[] = []): void {
  const records = [...extra, ...(entry.consumer ? consumerRecords(entry, ctx.clock.now()) : [])];
  if (records.length === 0) {
    if (purpose.kind === 'consumer-reply') answer(ctx, purpose.token, purpose.response);
    return;
  }
  appendRecords(s, ctx, entry.partition, records, purpose, entry);
}

function assignmentOut(a: TopicAssignment | null): TopicIdPartitions[] | null {
  return a === null ? null : topicPartitionsValue(a);
}

/** The topics a heartbeat needs metadata of: its subscription, the group's, and what its regular expressions resolve to. */
function topicsNeeded(s: CoordinatorState, m: ConsumerHeartbeatMsg, resolved: ReadonlyMap<string, ReadonlySet<string>> | null): string[] {
  const names = new Set<string>(m.subscribedTopicNames ?? []);
  const entry = s.groups.get(m.groupId);
  if (entry?.consumer) for (const n of entry.consumer.subscribedTopicNames()) names.add(n);
  // a classic group a heartbeat may upgrade: its members' topics
  else if (entry) for (const n of subscribedTopics(entry) ?? []) names.add(n);
  if (resolved) for (const n of matchedTopics(resolved)) names.add(n);
  return [...names].sort();
}

/** The named topics' metadata (null: every topic's) from the local broker. */
function fetchTopicInfo(s: CoordinatorState, ctx: Ctx, names: string[] | null): Promise<ConsumerTopicInfo[] | null> {
  if (s.consumerTopicMetadata) return s.consumerTopicMetadata(names);
  const broker: ActorRef<BrokerMsg> = s.broker ?? { node: ctx.nodeId, path: brokerPath(s.brokerId) };
  return ctx.ask<MetadataResponse>(broker, { type: 'Metadata', topics: names }, { timeoutMs: 10_000 }).then((r) => {
    if (isFailure(r) || r.type !== 'MetadataResponse') return null;
    return r.metadata.topics.map((t) => ({ topicId: kafkaTopicId(t.topicId), name: t.name, numPartitions: t.partitions.length, internal: t.internal }));
  });
}

/** Reads topic metadata for a waiting heartbeat (names null: the cluster's whole topic list). */
function fetchTopicsFor(s: CoordinatorState, ctx: Ctx, p: PendingHeartbeat, names: string[] | null): void {
  const fetchId = ++s.seq;
  s.awaitingTopics.set(fetchId, p);
  void fetchTopicInfo(s, ctx, names).then((topics) => ctx.send(ctx.self, { type: 'ConsumerTopicsFetched', fetchId, names, topics }));
}

/**
 * Gathers what a heartbeat (epoch >= 0) needs, then applies it: a fresh resolution of its
 * group's regular expressions when one is due (the cluster's topic list, then, under ACLs, the
 * member's DESCRIBE on the topics matched, from the listener it came through), and the subscribed
 * topics' metadata once older than its maximum age. Each step that must wait comes back here.
 */
function prepareConsumerHeartbeat(s: CoordinatorState, ctx: Ctx, p: PendingHeartbeat): void {
  const now = ctx.clock.now();
  const { m } = p;
  if (p.resolved === null) {
    const entry = s.groups.get(m.groupId);
    const regexes = regexesToResolve(entry?.consumer ?? undefined, m.subscribedTopicRegex, entry?.consumerRegexesResolvedAt ?? Number.NEGATIVE_INFINITY, now, s.cfg.consumerRegexRefreshIntervalMs);
    if (regexes !== null) {
      const fresh = s.clusterTopics !== null && now - s.clusterTopics.at < s.cfg.consumerMetadataMaxAgeMs;
      if (!fresh && !p.fetchedAll) return fetchTopicsFor(s, ctx, p, null);
      p.matched = resolveTopicRegexes(regexes, s.clusterTopics?.topics ?? []);
      const topics = matchedTopics(p.matched);
      if (m.topicAuthorizer && topics.length > 0) {
        const fetchId = ++s.seq;
        s.awaitingTopics.set(fetchId, p);
        const a = m.topicAuthorizer;
        void ctx
          .ask<TopicsAuthorized>(a.listener, { type: 'AuthorizeTopics', principal: a.principal, host: a.host, operation: AclOperation.DESCRIBE, topics }, { timeoutMs: 10_000 })
          .then((r) => ctx.send(ctx.self, { type: 'ConsumerRegexTopicsAuthorized', fetchId, allowed: isFailure(r) || r.type !== 'TopicsAuthorized' ? null : r.allowed }));
        return;
      }
      p.resolved = p.matched;
    }
  }
  const needed = topicsNeeded(s, m, p.resolved);
  const stale = needed.some((n) => {
    const c = s.topicCache.get(n);
    return !c || now - c.at >= s.cfg.consumerMetadataMaxAgeMs;
  });
  if (stale && !p.fetchedNames) return fetchTopicsFor(s, ctx, p, needed);
  if (p.classicJoin) classicJoinToConsumerGroup(s, ctx, p.classicJoin, p.token, p.resolved);
  else consumerHeartbeat(s, ctx, m, p.token, p.resolved);
}

/** A heartbeat waiting for topics is answered with an error (in the kind of its request). */
function failPending(ctx: Ctx, p: PendingHeartbeat, errorCode: number, message: string | null): void {
  if (p.classicJoin) answer(ctx, p.token, joinError(p.classicJoin.memberId, errorCode));
  else answer(ctx, p.token, consumerHeartbeatError(errorCode, message));
}

/** A heartbeat's join or heartbeat (epoch >= 0), with the topics' metadata at hand (and its group's regular expressions resolved afresh, when due). */
function consumerHeartbeat(s: CoordinatorState, ctx: Ctx, m: ConsumerHeartbeatMsg, token: ReplyToken | null, resolved: Map<string, Set<string>> | null): void {
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, consumerHeartbeatError(err, null));
  const extra: WrittenRecord[] = [];
  let entry = s.groups.get(m.groupId);
  let created = false;
  if (!entry) {
    if (m.memberEpoch !== 0) return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${m.groupId} not found.`));
    entry = createGroup(s, m.groupId, ctx.clock.now());
    created = true;
  }
  if (entry.share) return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${m.groupId} is not a consumer group.`));
  let upgraded: ConsumerGroup | null = null;
  if (!entry.consumer) {
    // a classic group of that id: an empty one is replaced (Kafka deletes it), a live one upgraded if it may be
    const classicEmpty = entry.group.is(GroupState.Empty) && entry.group.size === 0 && entry.joinWaiters.size === 0 && entry.group.numPendingMembers === 0;
    if (m.memberEpoch !== 0) return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${m.groupId} not found.`));
    if (!classicEmpty) {
      const refusal = upgradeRefusal(s.cfg.migrationPolicy, entry.group, s.cfg.consumerMaxSize);
      if (refusal !== null) {
        ctx.log.info('cannot upgrade the classic group to a consumer group', { groupId: m.groupId, reason: refusal });
        return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${m.groupId} is not a consumer group.`));
      }
      const up = consumerGroupFromClassic(entry.group, (name) => s.topicCache.get(name)?.info ?? undefined);
      if (!up.ok) return answer(ctx, token, consumerHeartbeatError(up.errorCode, up.errorMessage));
      // the joining member's heartbeat runs on the converted group; the classic group stands if it is refused
      upgraded = up.group;
    } else {
      if (entry.persisted !== null) {
        extra.push({ kind: 'group', entry, bytes: null });
        entry.persisted = null;
      }
      entry.consumer = new ConsumerGroup(m.groupId);
      entry.consumerOldestWrite = ctx.clock.now();
    }
  }
  const g = upgraded ?? entry.consumer!;
  const beforeMember = m.memberId === '' ? undefined : g.members.get(m.memberId);
  const outcome: HeartbeatOutcome = g.heartbeat(
    {
      memberId: m.memberId,
      memberEpoch: m.memberEpoch,
      instanceId: m.instanceId,
      rackId: m.rackId,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      subscribedTopicNames: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex ?? null,
      serverAssignor: m.serverAssignor,
      ownedTopicPartitions: m.topicPartitions,
      clientId: m.clientId ?? '',
      clientHost: m.clientHost ?? '',
    },
    {
      topic: (name) => s.topicCache.get(name)?.info ?? undefined,
      maxSize: s.cfg.consumerMaxSize,
      newMemberId: () => randomUUID(),
      ...(resolved ? { resolvedRegexes: resolved } : {}),
    },
  );
  if (outcome.kind === 'error') {
    if (created && g.members.size === 0) dropGroup(s, ctx, entry, ErrorCode.NONE);
    ctx.log.debug('consumer group heartbeat refused', { groupId: m.groupId, memberId: m.memberId, memberEpoch: m.memberEpoch, errorCode: outcome.errorCode, reason: outcome.errorMessage });
    return answer(ctx, token, consumerHeartbeatError(outcome.errorCode, outcome.errorMessage));
  }
  if (upgraded) upgradeToConsumerGroup(s, ctx, entry, upgraded, extra);
  if (outcome.replacedMemberId) {
    cancelConsumerTimers(ctx, entry, outcome.replacedMemberId);
    ctx.log.info('static member rejoined the consumer group under a new member id', { groupId: m.groupId, instanceId: m.instanceId, oldMemberId: outcome.replacedMemberId, memberId: outcome.memberId });
  } else if (!beforeMember) {
    ctx.log.info('member joins the consumer group', { groupId: m.groupId, memberId: outcome.memberId, instanceId: m.instanceId, groupEpoch: g.groupEpoch });
  }
  if (resolved) {
    entry.consumerRegexesResolvedAt = ctx.clock.now();
    ctx.log.debug('consumer group regular expressions resolved', { groupId: m.groupId, memberId: outcome.memberId, regexes: Object.fromEntries([...resolved].map(([r, t]) => [r, [...t].sort()])), groupEpoch: g.groupEpoch });
  }
  scheduleConsumerSession(s, ctx, entry, outcome.memberId);
  if (outcome.member) maybeScheduleConsumerRebalance(s, ctx, entry, outcome.member);
  const response: ConsumerGroupHeartbeatResponse = {
    type: 'ConsumerGroupHeartbeatResponse',
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: outcome.memberId,
    memberEpoch: outcome.memberEpoch,
    heartbeatIntervalMs: consumerTimeouts(s, m.groupId).heartbeatIntervalMs,
    assignment: assignmentOut(outcome.assignment),
  };
  persistConsumer(s, ctx, entry, heartbeatReply(token, response), extra);
}

/** A heartbeat with epoch -1 (leave) or -2 (a static member leaving for now). */
function consumerLeave(s: CoordinatorState, ctx: Ctx, m: ConsumerHeartbeatMsg, token: ReplyToken | null): void {
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, consumerHeartbeatError(err, null));
  const entry = s.groups.get(m.groupId);
  if (!entry?.consumer) return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${m.groupId} not found.`));
  if (m.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
    // the last member of the consumer protocol leaving a group of classic members: it becomes a classic group again
    const leaving = m.instanceId === null ? entry.consumer.members.get(m.memberId) : entry.consumer.staticMember(m.instanceId);
    if (leaving?.memberId === m.memberId && shouldDowngrade(s.cfg.migrationPolicy, entry.consumer, m.memberId, s.cfg.classicMaxSize)) {
      const response: ConsumerGroupHeartbeatResponse = { type: 'ConsumerGroupHeartbeatResponse', errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: m.memberEpoch, heartbeatIntervalMs: 0, assignment: null };
      return downgradeToClassicGroup(s, ctx, entry, m.memberId, 'the last member using the consumer protocol left', heartbeatReply(token, response));
    }
  }
  const outcome = entry.consumer.leave(m.memberId, m.instanceId, m.memberEpoch);
  if (outcome.kind === 'error') return answer(ctx, token, consumerHeartbeatError(outcome.errorCode, outcome.errorMessage));
  if (outcome.removed) {
    cancelConsumerTimers(ctx, entry, m.memberId);
    ctx.log.info('member left the consumer group', { groupId: m.groupId, memberId: m.memberId, instanceId: m.instanceId, groupEpoch: entry.consumer.groupEpoch });
  } else {
    // a static member gone for now keeps its partitions until it is back or its session expires
    if (outcome.member) maybeScheduleConsumerRebalance(s, ctx, entry, outcome.member);
    ctx.log.info('static member temporarily left the consumer group', { groupId: m.groupId, memberId: m.memberId, instanceId: m.instanceId });
  }
  const response: ConsumerGroupHeartbeatResponse = { type: 'ConsumerGroupHeartbeatResponse', errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: outcome.memberEpoch, heartbeatIntervalMs: 0, assignment: null };
  persistConsumer(s, ctx, entry, heartbeatReply(token, response));
}

/** A ConsumerGroupHeartbeat answered once its records are written (or with the write's error). */
function heartbeatReply(token: ReplyToken | null, response: ConsumerGroupHeartbeatResponse): AppendPurpose {
  return { kind: 'consumer-reply', token, response, failed: (code) => consumerHeartbeatError(code, null) };
}

/** Fences a member on a timer (session or rebalance timeout) and writes the change. */
function fenceConsumerMember(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string, reason: string): void {
  cancelConsumerTimers(ctx, entry, memberId);
  if (entry.consumer && shouldDowngrade(s.cfg.migrationPolicy, entry.consumer, memberId, s.cfg.classicMaxSize)) {
    return downgradeToClassicGroup(s, ctx, entry, memberId, `the last member using the consumer protocol was fenced: ${reason}`, { kind: 'consumer-write' });
  }
  if (!entry.consumer?.fence(memberId)) return;
  ctx.log.info('member fenced from the consumer group', { groupId: entry.groupId, memberId, reason, groupEpoch: entry.consumer.groupEpoch });
  persistConsumer(s, ctx, entry, { kind: 'consumer-write' });
}

/**
 * Kafka's convertToConsumerGroup: the classic group's waiting JoinGroup / SyncGroup requests are
 * told to join again and its timers stop, its record gets a tombstone ahead of the consumer
 * group's records (`extra`), and its members' sessions run as consumer group members.
 */
function upgradeToConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, g: ConsumerGroup, extra: WrittenRecord[]): void {
  const now = ctx.clock.now();
  const generationId = entry.group.generationId;
  stopClassicGroup(ctx, entry, ErrorCode.REBALANCE_IN_PROGRESS);
  extra.unshift({ kind: 'group', entry, bytes: null });
  entry.persisted = null;
  entry.loaded = null;
  entry.group = new GroupMetadata(entry.groupId, { now });
  entry.consumer = g;
  entry.consumerOldestWrite = now;
  entry.consumerNeedsFullWrite = false;
  for (const member of g.members.values()) if (member.classic !== null) scheduleConsumerSession(s, ctx, entry, member.memberId);
  ctx.log.info('classic group upgraded to a consumer group', { groupId: entry.groupId, generationId, members: g.members.size });
}

/**
 * Kafka's convertToClassicGroup: every record of the consumer group gets a tombstone, the classic
 * group of its other members (classic-protocol all) is written, their classic sessions start and
 * the group rebalances so that they join again; `purpose` is settled once written. A downgrade
 * by a static classic member replacing the last consumer-protocol member (`replacedMemberId`,
 * already out of the group) keeps the assignment and does not rebalance.
 */
function downgradeToClassicGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, leavingMemberId: string, reason: string, purpose: AppendPurpose, replacedMemberId?: string): void {
  const g = entry.consumer!;
  const now = ctx.clock.now();
  const records = consumerTombstones(entry);
  if (replacedMemberId !== undefined) {
    for (const type of [ConsumerRecordType.CurrentMemberAssignment, ConsumerRecordType.TargetAssignmentMember, ConsumerRecordType.MemberMetadata]) {
      records.unshift({ kind: 'consumer', entry, key: encodeConsumerGroupKey(type, entry.groupId, replacedMemberId), value: null });
    }
  }
  const classic = classicGroupFromConsumer(g, leavingMemberId, (id) => topicName(s, g, id) || undefined, now);
  for (const id of [...entry.consumerTimers.keys()]) cancelConsumerTimers(ctx, entry, id);
  entry.consumer = null;
  entry.consumerNeedsFullWrite = false;
  entry.group = classic;
  const protocol = classic.protocolName!;
  entry.loaded = { generationId: classic.generationId, topics: topicsOfSubscriptions(CONSUMER_PROTOCOL_TYPE, classic.allMembers().map((m) => m.metadata(protocol))) };
  const assignments = new Map(classic.allMembers().map((m) => [m.memberId, m.assignment] as const));
  try {
    records.push({ kind: 'group', entry, bytes: groupMetadataBytes(entry, assignments) });
  } catch (err) {
    ctx.log.error('group metadata cannot be encoded', { groupId: entry.groupId, error: (err as Error).message });
  }
  ctx.log.info('consumer group downgraded to a classic group', { groupId: entry.groupId, generationId: classic.generationId, members: classic.size, leavingMemberId, reason });
  appendRecords(s, ctx, entry.partition, records, purpose, entry);
  for (const member of classic.allMembers()) scheduleHeartbeat(s, ctx, entry, member);
  if (replacedMemberId === undefined) prepareRebalance(s, ctx, entry, `Downgrade group ${entry.groupId} from consumer to classic.`);
}

// ---------------------------------------------------------------------------------------------
// Classic members of a consumer group (classic-members.ts)

/** A classic member's JoinGroup to a consumer group with members: checked, then applied once its topics' metadata is at hand. */
function classicJoinConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: JoinGroupMsg, token: ReplyToken | null): void {
  const g = entry.consumer!;
  const memberId = m.memberId === '' ? randomUUID() : m.memberId;
  if (g.members.size >= s.cfg.consumerMaxSize && !g.members.has(memberId)) return answer(ctx, token, joinError(m.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED));
  if (!supportsClassicProtocols(g, m.protocolType, m.protocols.map((p) => p.name))) return answer(ctx, token, joinError(m.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  if (m.requireKnownMemberId && m.memberId === '' && !m.groupInstanceId) {
    // KIP-394: the member learns its id first and joins again with it
    ctx.log.info('dynamic member joins the consumer group with the classic protocol: asked to join again with its new id', { groupId: m.groupId, memberId });
    return answer(ctx, token, joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED));
  }
  // decoded once: its topics are read now, the rest when it joins (a garbled one is refused then)
  const subscription = classicSubscription(m.protocols);
  const topics = subscription?.topics ?? [];
  const hb: ConsumerHeartbeatMsg = {
    type: 'ConsumerGroupHeartbeat',
    groupId: m.groupId,
    memberId,
    memberEpoch: 0,
    instanceId: m.groupInstanceId ?? null,
    rackId: null,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    subscribedTopicNames: topics,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
  };
  prepareConsumerHeartbeat(s, ctx, { m: hb, token, fetchedNames: false, fetchedAll: false, matched: null, resolved: null, classicJoin: { m, memberId, subscription } });
}

/**
 * Kafka's classicGroupJoinToConsumerGroup: the JoinGroup as a heartbeat of the group, answered
 * (once its records are written) with the member's epoch as the generation; the member must
 * sync within its rebalance timeout.
 */
function classicJoinToConsumerGroup(
  s: CoordinatorState,
  ctx: Ctx,
  { m, memberId, subscription }: { m: JoinGroupMsg; memberId: string; subscription: Subscription | null },
  token: ReplyToken | null,
  resolved: Map<string, Set<string>> | null,
): void {
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, joinError(m.memberId, err));
  const entry = s.groups.get(m.groupId);
  // the group changed kind while the topics were read: the member joins again
  if (!entry?.consumer) return answer(ctx, token, joinError(m.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
  const g = entry.consumer;
  const topic = (name: string) => s.topicCache.get(name)?.info ?? undefined;
  const join = { memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null, protocolType: m.protocolType, protocols: m.protocols, sessionTimeoutMs: m.sessionTimeoutMs, rebalanceTimeoutMs: m.rebalanceTimeoutMs, clientId: m.clientId ?? '', clientHost: m.clientHost ?? '', subscription };
  const req = classicJoinHeartbeat(g, join, topic);
  if (isClassicError(req)) return answer(ctx, token, joinError(m.memberId, req.errorCode));
  const replacing = join.groupInstanceId === null ? undefined : g.staticMember(join.groupInstanceId);
  const replacedUsedConsumerProtocol = replacing !== undefined && replacing.classic === null;
  const outcome = g.heartbeat(req, { topic, maxSize: s.cfg.consumerMaxSize, newMemberId: () => memberId, ...(resolved ? { resolvedRegexes: resolved } : {}) });
  if (outcome.kind === 'error') {
    ctx.log.debug('classic member join refused', { groupId: m.groupId, memberId, errorCode: outcome.errorCode, reason: outcome.errorMessage });
    return answer(ctx, token, joinError(m.memberId, outcome.errorCode));
  }
  const member = outcome.member!;
  if (resolved) entry.consumerRegexesResolvedAt = ctx.clock.now();
  if (outcome.replacedMemberId) cancelConsumerTimers(ctx, entry, outcome.replacedMemberId);
  // a static classic member that replaced the last consumer-protocol member: the group becomes classic again, as it stands
  if (
    outcome.replacedMemberId &&
    replacedUsedConsumerProtocol &&
    g.numClassicMembers === g.members.size &&
    isDowngradeEnabled(s.cfg.migrationPolicy) &&
    g.members.size <= s.cfg.classicMaxSize &&
    sharesProtocol(g, '')
  ) {
    const generationId = g.groupEpoch;
    const response: JoinGroupResponse = { type: 'JoinGroupResponse', errorCode: ErrorCode.NONE, generationId, protocolType: CONSUMER_PROTOCOL_TYPE, protocolName: classicProtocolName(member), leader: '', memberId: member.memberId, members: [] };
    const purpose: AppendPurpose = { kind: 'consumer-reply', token, response, failed: (code) => joinError(member.memberId, code) };
    return downgradeToClassicGroup(s, ctx, entry, '', `static member ${member.instanceId} replaced the last member using the consumer protocol`, purpose, outcome.replacedMemberId);
  }
  ctx.log.info('classic member joins the consumer group', { groupId: m.groupId, memberId: member.memberId, instanceId: member.instanceId, memberEpoch: member.memberEpoch, groupEpoch: g.groupEpoch, reason: clientReason(m.reason) });
  scheduleConsumerSession(s, ctx, entry, member.memberId);
  cancelClassicTimer(ctx, entry, member.memberId, 'join');
  scheduleClassicTimer(s, ctx, entry, member.memberId, 'sync', m.rebalanceTimeoutMs);
  const response: JoinGroupResponse = {
    type: 'JoinGroupResponse',
    errorCode: ErrorCode.NONE,
    generationId: member.memberEpoch,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    protocolName: classicProtocolName(member),
    leader: '',
    memberId: member.memberId,
    members: [],
  };
  persistConsumer(s, ctx, entry, { kind: 'consumer-reply', token, response, failed: (code) => joinError(member.memberId, code) });
}

/** Kafka's classicGroupSyncToConsumerGroup: the member's current assignment, as a ConsumerProtocol Assignment. */
function classicSyncToConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'SyncGroup' }>, token: ReplyToken | null): void {
  const g = entry.consumer!;
  const member = findClassicMember(g, m.memberId, m.groupInstanceId ?? null);
  if (isClassicError(member)) return answer(ctx, token, syncError(member.errorCode));
  const problem = classicSyncProblem(g, member, m.generationId, m.protocolType ?? null, m.protocolName ?? null);
  if (problem === ErrorCode.REBALANCE_IN_PROGRESS) scheduleClassicTimer(s, ctx, entry, member.memberId, 'join', member.rebalanceTimeoutMs);
  if (problem !== null) return answer(ctx, token, syncError(problem));
  cancelClassicTimer(ctx, entry, member.memberId, 'sync');
  scheduleConsumerSession(s, ctx, entry, member.memberId);
  const version = subscriptionVersion(member.classic!.supportedProtocols[0]?.metadata);
  const assignment = encodeClassicAssignment(member.assigned, version, (id) => topicName(s, g, id) || undefined);
  answer(ctx, token, { type: 'SyncGroupResponse', errorCode: ErrorCode.NONE, protocolType: m.protocolType ?? CONSUMER_PROTOCOL_TYPE, protocolName: m.protocolName ?? classicProtocolName(member), assignment } satisfies SyncGroupResponse);
}

/** Kafka's classicGroupHeartbeatToConsumerGroup: REBALANCE_IN_PROGRESS when the member must join again (then within its rebalance timeout). */
function classicHeartbeatToConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'Heartbeat' }>): number {
  const g = entry.consumer!;
  const member = findClassicMember(g, m.memberId, m.groupInstanceId ?? null);
  if (isClassicError(member)) return member.errorCode;
  if (m.generationId !== member.memberEpoch) return ErrorCode.ILLEGAL_GENERATION;
  scheduleConsumerSession(s, ctx, entry, member.memberId);
  if (!classicMustRejoin(g, member)) return ErrorCode.NONE;
  scheduleClassicTimer(s, ctx, entry, member.memberId, 'join', member.rebalanceTimeoutMs);
  return ErrorCode.REBALANCE_IN_PROGRESS;
}

/** Kafka's classicGroupLeaveToConsumerGroup: each classic member named leaves (a static one may be named by its instance id alone). */
function classicLeaveConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'LeaveGroup' }>, token: ReplyToken | null): void {
  const g = entry.consumer!;
  const memberErrors: number[] = [];
  const left: string[] = [];
  for (const leaving of m.members) {
    if (typeof leaving !== 'object' || leaving === null || typeof leaving.memberId !== 'string') {
      memberErrors.push(ErrorCode.INVALID_REQUEST);
      continue;
    }
    const instanceId = leaving.groupInstanceId ?? null;
    let member: ConsumerMember | ClassicError;
    if (instanceId !== null && leaving.memberId === '') {
      // an admin removing a static member by its instance id alone
      const named = g.staticMember(instanceId);
      member = named && named.classic !== null ? named : { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Instance id ${instanceId} is unknown.` };
    } else {
      member = findClassicMember(g, leaving.memberId, instanceId);
    }
    if (isClassicError(member)) {
      memberErrors.push(member.errorCode);
      continue;
    }
    cancelConsumerTimers(ctx, entry, member.memberId);
    left.push(member.memberId);
    ctx.log.info('classic member leaves the consumer group through LeaveGroup', { groupId: m.groupId, memberId: member.memberId, instanceId, reason: clientReason(leaving.reason) });
    memberErrors.push(ErrorCode.NONE);
  }
  // as Kafka: one epoch bump for the members of one request
  g.fenceMany(left);
  const response: LeaveGroupResponse = { type: 'LeaveGroupResponse', errorCode: memberErrors.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE, memberErrors };
  persistConsumer(s, ctx, entry, { kind: 'consumer-reply', token, response, failed: (code) => simple('LeaveGroupResponse', code) });
}

function topicName(s: CoordinatorState, g: ConsumerGroup, topicId: string): string {
  for (const t of g.subscriptionMetadata.values()) if (t.topicId === topicId) return t.name;
  for (const [name, c] of s.topicCache) if (c.info?.topicId === topicId) return name;
  return '';
}

function describeConsumerGroup(s: CoordinatorState, groupId: string, g: ConsumerGroup): DescribedConsumerGroup {
  const named = (a: TopicAssignment) => topicPartitionsValue(a).map((t) => ({ ...t, topicName: topicName(s, g, t.topicId) }));
  return {
    groupId,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupState: g.state,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignorName: g.preferredAssignor(),
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      subscribedTopicRegex: m.subscribedTopicRegex,
      assignment: named(m.assigned),
      targetAssignment: named(g.targetAssignment.get(m.memberId) ?? new Map()),
      memberType: m.classic === null ? 'consumer' : 'classic',
    })),
  };
}

/** Rebuilds a consumer group from its replayed records. */
function restoreConsumerGroup(groupId: string, r: ReplayedConsumerGroup): ConsumerGroup {
  const members: ConsumerMember[] = [];
  for (const [memberId, md] of r.members) {
    const cur = r.currents.get(memberId);
    const state = cur && (cur.state === MemberState.Stable || cur.state === MemberState.UnrevokedPartitions || cur.state === MemberState.UnreleasedPartitions) ? (cur.state as MemberState) : MemberState.Stable;
    members.push({
      memberId,
      instanceId: md.instanceId,
      rackId: md.rackId,
      clientId: md.clientId,
      clientHost: md.clientHost,
      rebalanceTimeoutMs: md.rebalanceTimeoutMs,
      serverAssignor: md.serverAssignor,
      subscribedTopicNames: [...md.subscribedTopicNames],
      subscribedTopicRegex: md.subscribedTopicRegex,
      memberEpoch: cur?.memberEpoch ?? 0,
      previousMemberEpoch: cur?.previousMemberEpoch ?? 0,
      state,
      assigned: topicAssignmentOf(cur?.assigned ?? []),
      pendingRevocation: topicAssignmentOf(cur?.pendingRevocation ?? []),
      classic: md.classicMemberMetadata,
    });
  }
  const targets = new Map([...r.targets].map(([id, v]) => [id, topicAssignmentOf(v)] as const));
  return ConsumerGroup.restore(groupId, { epoch: r.epoch ?? 0, subscriptionMetadata: r.subscriptionMetadata, assignmentEpoch: r.assignmentEpoch, members, targets });
}

// ---------------------------------------------------------------------------------------------
// Loading and unloading offsets partitions

function readNext(s: CoordinatorState, ctx: Ctx, owned: OwnedPartition): void {
  const { partition, loadId, fetchOffset, leaderEpoch } = owned;
  void readForLoad(ctx, s.replicaFor(partition), { fetchOffset, leaderEpoch, maxBytes: s.cfg.loadBufferBytes, timeoutMs: 30_000 }).then((r) =>
    ctx.send(ctx.self, { type: 'LoadRead', partition, loadId, ...r } satisfies CoordinatorMsg),
  );
}

/** Topics in the members' consumer Subscriptions, or null when not a consumer group or undecodable. */
function topicsOfSubscriptions(protocolType: string, subscriptions: Uint8Array[]): Set<string> | null {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE) return null;
  const topics = new Set<string>();
  try {
    for (const sub of subscriptions) for (const t of decodeSubscription(sub).topics) topics.add(t);
  } catch (err) {
    if (err instanceof ConsumerProtocolError) return null;
    throw err;
  }
  return topics;
}

/** Rebuilds a group from its replayed records: Stable with its members, or Empty. */
function restoreGroup(
  ctx: Ctx,
  groupId: string,
  partition: number,
  rg: ReplayedGroup | undefined,
  offsets: Map<string, ReplayedOffset> | undefined,
  txnOffsets: Map<number, Map<string, ReplayedOffset>> | undefined,
): GroupEntry {
  const now = ctx.clock.now();
  let entry: GroupEntry | null = null;
  const v = rg?.value;
  const stateTs = v && v.currentStateTimestamp >= 0 ? v.currentStateTimestamp : undefined;
  if (v && v.members.length > 0 && v.protocol !== null && v.protocolType !== '') {
    try {
      const g = new GroupMetadata(groupId, { initialState: GroupState.Stable, now: stateTs });
      for (const mv of v.members) {
        const member = new MemberMetadata({
          memberId: mv.memberId,
          groupInstanceId: mv.groupInstanceId,
          clientId: mv.clientId,
          clientHost: mv.clientHost,
          rebalanceTimeoutMs: mv.rebalanceTimeoutMs,
          sessionTimeoutMs: mv.sessionTimeoutMs,
          protocolType: v.protocolType,
          supportedProtocols: [{ name: v.protocol, metadata: mv.subscription }],
          now,
        });
        member.assignment = mv.assignment;
        g.add(member);
      }
      g.generationId = v.generation;
      g.protocolName = v.protocol;
      if (v.leader !== null && g.has(v.leader)) g.leaderId = v.leader;
      entry = newEntry(groupId, partition, g);
      entry.loaded = { generationId: v.generation, topics: topicsOfSubscriptions(v.protocolType, v.members.map((mv) => mv.subscription)) };
    } catch (err) {
      ctx.log.warn('group metadata record does not describe a valid group: loading it empty', { groupId, error: (err as Error).message });
      entry = null;
    }
  }
  if (!entry) {
    const g = new GroupMetadata(groupId, { now: stateTs });
    if (v) {
      g.generationId = v.generation;
      g.protocolType = v.protocolType === '' ? null : v.protocolType;
    }
    entry = newEntry(groupId, partition, g);
  }
  if (rg) entry.persisted = { bytes: rg.bytes, logOffset: rg.logOffset, writtenAt: rg.timestamp };
  for (const [k, o] of offsets ?? []) {
    entry.offsets.set(k, { topic: o.topic, partition: o.partition, value: o.value, logOffset: o.logOffset, writtenAt: o.timestamp });
  }
  for (const [producerId, held] of txnOffsets ?? []) {
    entry.txnOffsets.set(producerId, new Map([...held].map(([k, o]) => [k, { topic: o.topic, partition: o.partition, value: o.value, logOffset: o.logOffset, writtenAt: o.timestamp }])));
  }
  return entry;
}

// ---------------------------------------------------------------------------------------------
// KIP-932 share groups (ShareGroupHeartbeat): share-group.ts is the state machine; here are its
// members' session timers, the topic metadata it needs and its records (Kafka 4.2's: the group
// epoch, each member's metadata, target and current assignment, the target's epoch), from which
// the next coordinator rebuilds it. The delivery state of its partitions is not the group
// coordinator's: the partition leaders' share partition managers keep it with the share coordinator.

/**
 * What waits for topic metadata: a heartbeat (a leave too), the fencing of a member whose session
 * ran out, or a ShareGroupDescribe naming the topics of a group taken over from another coordinator.
 */
type ShareTopicsWait =
  | { kind: 'heartbeat'; m: ShareHeartbeatMsg; token: ReplyToken | null }
  | { kind: 'fence'; groupId: string; memberId: string; seq: number }
  | { kind: 'describe'; groups: string[]; token: ReplyToken | null };

/**
 * The topics as the coordinator's cache has them: undefined for a topic never looked up (the
 * group keeps what it knew of it), null for one known not to exist.
 */
function shareTopicsEnv(s: CoordinatorState): ShareTopicsEnv {
  return { topic: (name) => s.topicCache.get(name)?.info };
}

/** Looks `names` up in the broker's metadata, then carries on with `wait` (ShareTopicsFetched). */
function fetchShareTopics(s: CoordinatorState, ctx: Ctx, names: string[], wait: ShareTopicsWait): void {
  const fetchId = ++s.seq;
  s.awaitingShareTopics.set(fetchId, wait);
  void fetchTopicInfo(s, ctx, names).then((topics) => ctx.send(ctx.self, { type: 'ShareTopicsFetched', fetchId, names, topics }));
}

const shareSessionTimerKey = (groupId: string, memberId: string) => JSON.stringify(['sg-session', groupId, memberId]);

function shareHeartbeatError(errorCode: number, errorMessage: string | null): ShareGroupHeartbeatResponse {
  return { type: 'ShareGroupHeartbeatResponse', errorCode, errorMessage: errorMessage ?? errorInfo(errorCode).message, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
}

/** A share group's session timeout and heartbeat interval: its share.* group configs over group.share.*. */
function shareTimeouts(s: CoordinatorState, groupId: string): { sessionTimeoutMs: number; heartbeatIntervalMs: number } {
  const d = { ...DEFAULT_SHARE_GROUP_DEFAULTS, sessionTimeoutMs: s.cfg.shareSessionTimeoutMs, heartbeatIntervalMs: s.cfg.shareHeartbeatIntervalMs };
  const g = shareGroupSettings(s.groupConfigs.get(groupId), d);
  return { sessionTimeoutMs: g.sessionTimeoutMs, heartbeatIntervalMs: g.heartbeatIntervalMs };
}

function scheduleShareSession(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string): void {
  const seq = ++s.seq;
  entry.consumerTimers.set(memberId, { sessionSeq: seq, rebalance: null });
  ctx.timers.startSingle(shareSessionTimerKey(entry.groupId, memberId), shareTimeouts(s, entry.groupId).sessionTimeoutMs, { type: 'ShareSessionDeadline', groupId: entry.groupId, memberId, seq });
}

function cancelShareSession(ctx: Ctx, entry: GroupEntry, memberId: string): void {
  ctx.timers.cancel(shareSessionTimerKey(entry.groupId, memberId));
  entry.consumerTimers.delete(memberId);
}

/**
 * The records of what changed in the share group, in Kafka's order: the removed members'
 * tombstones, member metadata, the group epoch, target assignments, the target's epoch, current
 * assignments. Everything after a failed write (as Kafka, whose failed write leaves nothing
 * behind) or with `full` (its oldest record grew old).
 */
function shareRecords(entry: GroupEntry, now: number, full: boolean): WrittenRecord[] {
  const g = entry.share!;
  if (entry.consumerNeedsFullWrite || full) {
    g.markAllDirty();
    entry.consumerNeedsFullWrite = false;
    entry.consumerOldestWrite = now;
  }
  const d = g.takeDirty();
  const out: WrittenRecord[] = [];
  const rec = (type: ShareRecordType, memberId: string | null, value: Uint8Array | null): void => {
    out.push({ kind: 'consumer', entry, key: encodeShareGroupKey(type, entry.groupId, memberId), value });
  };
  for (const id of d.removed) {
    if (g.member(id)) continue;
    rec(ShareRecordType.CurrentMemberAssignment, id, null);
    rec(ShareRecordType.TargetAssignmentMember, id, null);
    rec(ShareRecordType.MemberMetadata, id, null);
  }
  for (const id of d.memberMetadata) {
    const m = g.member(id);
    if (!m) continue;
    const value = { rackId: m.rackId, clientId: m.clientId, clientHost: m.clientHost, subscribedTopicNames: m.subscribedTopicNames };
    rec(ShareRecordType.MemberMetadata, id, encodeShareGroupValue({ record: ShareRecordType.MemberMetadata, value }));
  }
  if (d.epoch) rec(ShareRecordType.Metadata, null, encodeShareGroupValue({ record: ShareRecordType.Metadata, value: { epoch: g.groupEpoch, metadataHash: g.metadataHash } }));
  for (const id of d.targetAssignment) {
    const a = g.targetAssignment(id);
    if (a) rec(ShareRecordType.TargetAssignmentMember, id, encodeShareGroupValue({ record: ShareRecordType.TargetAssignmentMember, value: topicPartitionsValue(a) }));
  }
  if (d.assignmentEpoch) rec(ShareRecordType.TargetAssignmentMetadata, null, encodeShareGroupValue({ record: ShareRecordType.TargetAssignmentMetadata, value: { assignmentEpoch: g.assignmentEpoch } }));
  for (const id of d.currentAssignment) {
    const m = g.member(id);
    if (!m) continue;
    const value = { memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: MemberState.Stable, assigned: topicPartitionsValue(m.assigned) };
    rec(ShareRecordType.CurrentMemberAssignment, id, encodeShareGroupValue({ record: ShareRecordType.CurrentMemberAssignment, value }));
  }
  return out;
}

/** Tombstones for every record of an empty share group (Kafka's createGroupTombstoneRecords). */
function shareTombstones(entry: GroupEntry): WrittenRecord[] {
  const g = entry.share!;
  const out: WrittenRecord[] = [];
  const rec = (type: ShareRecordType, memberId: string | null = null): WrittenRecord => ({ kind: 'consumer', entry, key: encodeShareGroupKey(type, entry.groupId, memberId), value: null });
  for (const m of g.members()) out.push(rec(ShareRecordType.CurrentMemberAssignment, m.memberId), rec(ShareRecordType.TargetAssignmentMember, m.memberId), rec(ShareRecordType.MemberMetadata, m.memberId));
  out.push(rec(ShareRecordType.TargetAssignmentMetadata), rec(ShareRecordType.Metadata));
  return out;
}

/** Writes what changed in the share group (everything with `full`: its records grew old), then settles `purpose`. */
function persistShare(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, purpose: AppendPurpose, full = false): void {
  const records = shareRecords(entry, ctx.clock.now(), full);
  if (records.length === 0) {
    if (purpose.kind === 'consumer-reply') answer(ctx, purpose.token, purpose.response);
    return;
  }
  appendRecords(s, ctx, entry.partition, records, purpose, entry);
}

/** Rebuilds a share group from its replayed records. */
function restoreShareGroup(groupId: string, r: ReplayedShareGroup): ShareGroup {
  const members: ShareMember[] = [];
  for (const [memberId, md] of r.members) {
    const cur = r.currents.get(memberId);
    members.push({
      memberId,
      rackId: md.rackId,
      clientId: md.clientId,
      clientHost: md.clientHost,
      subscribedTopicNames: [...new Set(md.subscribedTopicNames)].sort(),
      memberEpoch: cur?.memberEpoch ?? 0,
      previousMemberEpoch: cur?.previousMemberEpoch ?? 0,
      assigned: topicAssignmentOf(cur?.assigned ?? []),
    });
  }
  const targets = new Map([...r.targets].map(([id, v]) => [id, topicAssignmentOf(v)] as const));
  return ShareGroup.restore(groupId, { epoch: r.epoch ?? 0, metadataHash: r.metadataHash, assignmentEpoch: r.assignmentEpoch, members, targets });
}

/** A ShareGroupHeartbeat answered once the group's record is written (or with the write's error). */
function shareHeartbeatReply(token: ReplyToken | null, response: ShareGroupHeartbeatResponse): AppendPurpose {
  // `code` is the write's error as settleAppend already reports it to a heartbeat
  return { kind: 'consumer-reply', token, response, failed: (code) => shareHeartbeatError(code, null) };
}

/** Why a group of this id cannot be a share group (it is a group of another type), or null. */
function notShareGroup(entry: GroupEntry | undefined): string | null {
  if (!entry || entry.share) return null;
  const g = entry.group;
  const emptyClassic =
    !entry.consumer && g.is(GroupState.Empty) && g.size === 0 && entry.offsets.size === 0 && entry.pendingOffsetWrites.size === 0 && entry.txnOffsets.size === 0 && entry.persisted === null && entry.pendingGroupWrites === 0;
  return emptyClassic ? null : `Group ${entry.groupId} is not a share group.`;
}

/** The topics a share heartbeat needs metadata of: its subscription and its group's. */
function shareTopicsNeeded(s: CoordinatorState, m: ShareHeartbeatMsg): string[] {
  const names = new Set<string>(m.subscribedTopicNames ?? []);
  const g = s.groups.get(m.groupId)?.share;
  if (g) for (const n of g.subscribedTopicNames()) names.add(n);
  return [...names].sort();
}

/**
 * A heartbeat waits for the metadata of its topics and its group's when the cache's is missing or
 * old; a leave only when some is missing (the others' target assignment is computed again
 * without the member, over topics the coordinator may never have looked up since it took the
 * group over).
 */
function prepareShareHeartbeat(s: CoordinatorState, ctx: Ctx, m: ShareHeartbeatMsg, token: ReplyToken | null, fetched: boolean): void {
  const now = ctx.clock.now();
  const needed = shareTopicsNeeded(s, m);
  const leave = m.memberEpoch === SHARE_LEAVE_GROUP_MEMBER_EPOCH;
  const wanted = needed.some((n) => {
    const c = s.topicCache.get(n);
    return !c || (!leave && now - c.at >= s.cfg.consumerMetadataMaxAgeMs);
  });
  if (wanted && !fetched) return fetchShareTopics(s, ctx, needed, { kind: 'heartbeat', m, token });
  shareHeartbeat(s, ctx, m, token);
}

/** A member's session ran out: it is fenced once the group's topics are known (the others' assignment is computed again). */
function fenceShareMember(s: CoordinatorState, ctx: Ctx, groupId: string, memberId: string, seq: number, fetched: boolean): void {
  const entry = s.groups.get(groupId);
  if (!entry?.share || entry.consumerTimers.get(memberId)?.sessionSeq !== seq) return;
  const needed = [...entry.share.subscribedTopicNames()].sort();
  if (!fetched && needed.some((n) => !s.topicCache.has(n))) return fetchShareTopics(s, ctx, needed, { kind: 'fence', groupId, memberId, seq });
  entry.consumerTimers.delete(memberId);
  if (!entry.share.leave(memberId, shareTopicsEnv(s))) return;
  ctx.log.info('member fenced from the share group', { groupId, memberId, reason: 'the member session expired', groupEpoch: entry.share.groupEpoch });
  persistShare(s, ctx, entry, { kind: 'consumer-write' });
}

/** A share group heartbeat (join, heartbeat or leave), with the topics' metadata at hand. */
function shareHeartbeat(s: CoordinatorState, ctx: Ctx, m: ShareHeartbeatMsg, token: ReplyToken | null): void {
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, shareHeartbeatError(err, null));
  let entry = s.groups.get(m.groupId);
  const refusal = notShareGroup(entry);
  if (refusal !== null) return answer(ctx, token, shareHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, refusal));
  let created = false;
  if (!entry?.share) {
    if (m.memberEpoch !== 0) return answer(ctx, token, shareHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${m.groupId} not found.`));
    entry ??= createGroup(s, m.groupId, ctx.clock.now());
    entry.share = new ShareGroup(m.groupId);
    entry.consumerOldestWrite = ctx.clock.now();
    created = true;
  }
  const g = entry.share!;
  const known = g.member(m.memberId) !== undefined;
  const { heartbeatIntervalMs } = shareTimeouts(s, m.groupId);
  const outcome = g.heartbeat(
    { memberId: m.memberId, memberEpoch: m.memberEpoch, rackId: m.rackId, subscribedTopicNames: m.subscribedTopicNames, clientId: m.clientId ?? '', clientHost: m.clientHost ?? '' },
    { ...shareTopicsEnv(s), maxSize: s.cfg.shareMaxSize, heartbeatIntervalMs },
  );
  if (outcome.kind === 'error') {
    if (created && g.members().length === 0 && g.groupEpoch === 0) dropGroup(s, ctx, entry, ErrorCode.NONE);
    ctx.log.debug('share group heartbeat refused', { groupId: m.groupId, memberId: m.memberId, memberEpoch: m.memberEpoch, errorCode: outcome.errorCode, reason: outcome.errorMessage });
    return answer(ctx, token, shareHeartbeatError(outcome.errorCode, outcome.errorMessage));
  }
  if (m.memberEpoch === SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
    cancelShareSession(ctx, entry, m.memberId);
    ctx.log.info('member left the share group', { groupId: m.groupId, memberId: m.memberId, groupEpoch: g.groupEpoch });
  } else {
    if (!known) ctx.log.info('member joins the share group', { groupId: m.groupId, memberId: outcome.memberId, groupEpoch: g.groupEpoch });
    scheduleShareSession(s, ctx, entry, outcome.memberId);
  }
  const response: ShareGroupHeartbeatResponse = {
    type: 'ShareGroupHeartbeatResponse',
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: outcome.memberId,
    memberEpoch: outcome.memberEpoch,
    heartbeatIntervalMs: outcome.heartbeatIntervalMs,
    assignment: outcome.assignment,
  };
  if (outcome.assignment && outcome.assignment.length > 0) prepareSharePartitions(s, ctx, m.groupId, outcome.assignment);
  persistShare(s, ctx, entry, shareHeartbeatReply(token, response));
}

/**
 * A member was given partitions: their leaders make the group's state of each now, where
 * share.auto.offset.reset says, if it has none (as Kafka 4.1's coordinator initializes a share
 * partition when it first assigns it), so that records written between the assignment and the
 * member's first fetch are the group's too. The leaders' share partition managers do nothing
 * for a partition whose state they hold or load; the broker routes the message to them.
 */
function prepareSharePartitions(s: CoordinatorState, ctx: Ctx, groupId: string, assignment: readonly TopicIdPartitions[]): void {
  const names = topicNamesById(s);
  const topics = assignment.flatMap((t) => {
    const topic = names.get(t.topicId);
    return topic === undefined ? [] : [{ topic, topicId: t.topicId, partitions: t.partitions }];
  });
  if (topics.length === 0) return;
  const broker: ActorRef<BrokerMsg> = s.broker ?? { node: ctx.nodeId, path: brokerPath(s.brokerId) };
  ctx.send(broker, { type: 'PrepareSharePartitions', groupId, topics });
}

/** Topic names by topic id, as the coordinator's topic cache has them. */
function topicNamesById(s: CoordinatorState): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of s.topicCache.values()) if (c.info) out.set(c.info.topicId, c.info.name);
  return out;
}

/** The subscribed topics of the share groups asked about that the topic cache has never looked up. */
function shareDescribeTopicsMissing(s: CoordinatorState, groups: unknown[]): string[] {
  const out = new Set<string>();
  for (const groupId of groups) {
    const g = typeof groupId === 'string' ? s.groups.get(groupId)?.share : undefined;
    if (g) for (const n of g.subscribedTopicNames()) if (!s.topicCache.has(n)) out.add(n);
  }
  return [...out].sort();
}

function answerShareDescribe(s: CoordinatorState, ctx: Ctx, groups: unknown[], token: ReplyToken | null): void {
  answer(ctx, token, { type: 'ShareGroupDescribeResponse', errorCode: ErrorCode.NONE, groups: groups.map((g) => describeShareGroup(s, g)) } satisfies ShareGroupDescribeResponse);
}

function describeShareGroup(s: CoordinatorState, groupId: unknown): DescribedShareGroup {
  const empty = (errorCode: number, errorMessage: string | null, state = ''): DescribedShareGroup => ({ groupId: String(groupId), errorCode, errorMessage, groupState: state, groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] });
  const err = validateGroupStatus(s, groupId, false);
  if (err !== null) return empty(err, errorInfo(err).message);
  const entry = s.groups.get(groupId as string);
  if (!entry || (!entry.share && notShareGroup(entry) === null)) return empty(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${String(groupId)} not found.`, ShareGroupState.Dead);
  if (!entry.share) return empty(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${String(groupId)} is not a share group.`, ShareGroupState.Dead);
  const d = entry.share.describe();
  const names = topicNamesById(s);
  return {
    groupId: d.groupId,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupState: d.state,
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.assignmentEpoch,
    assignorName: d.assignorName,
    members: d.members.map((mm) => ({
      memberId: mm.memberId,
      rackId: mm.rackId,
      memberEpoch: mm.memberEpoch,
      clientId: mm.clientId,
      clientHost: mm.clientHost,
      subscribedTopicNames: mm.subscribedTopicNames,
      assignment: [...mm.assignment].map(([topicId, partitions]) => ({ topicId, topicName: names.get(topicId) ?? '', partitions })),
    })),
  };
}

function finishLoad(s: CoordinatorState, ctx: Ctx, owned: OwnedPartition): void {
  const replay = owned.replay!;
  owned.replay = null;
  owned.status = OffsetsPartitionStatus.Active;
  let offsets = 0;
  const open = replay.openTransactionOffsets();
  for (const groupId of replay.groupIds()) {
    if (s.groups.has(groupId)) {
      ctx.log.warn('group found in two offsets partitions: keeping the one loaded first', { groupId, partition: owned.partition });
      continue;
    }
    const consumer = replay.consumerGroups.get(groupId);
    const isConsumer = consumer !== undefined && consumer.epoch !== null;
    const replayedShare = isConsumer ? undefined : replay.shareGroups.get(groupId);
    const share = replayedShare?.epoch === null ? undefined : replayedShare;
    const entry = restoreGroup(ctx, groupId, owned.partition, isConsumer || share ? undefined : replay.groups.get(groupId), replay.offsets.get(groupId), open.get(groupId));
    if (share) {
      // a share group continues where its records leave it; its members' sessions start again
      entry.share = restoreShareGroup(groupId, share);
      entry.consumerOldestWrite = share.oldestTimestamp;
      for (const member of entry.share.members()) scheduleShareSession(s, ctx, entry, member.memberId);
    }
    s.groups.set(groupId, entry);
    owned.groups.add(groupId);
    offsets += entry.offsets.size;
    for (const member of entry.group.allMembers()) scheduleHeartbeat(s, ctx, entry, member);
    if (!isConsumer && entry.group.size > s.cfg.classicMaxSize) {
      // group.max.size was lowered: the members rejoin, the first up to the size stay (as Kafka)
      maybePrepareRebalance(s, ctx, entry, `loaded group of ${entry.group.size} members is over group.max.size ${s.cfg.classicMaxSize}`);
    }
    if (isConsumer) {
      // a KIP-848 group continues where its records leave it; its members' sessions start again
      entry.consumer = restoreConsumerGroup(groupId, consumer);
      entry.consumerOldestWrite = consumer.oldestTimestamp;
      for (const member of entry.consumer.members.values()) {
        scheduleConsumerSession(s, ctx, entry, member.memberId);
        maybeScheduleConsumerRebalance(s, ctx, entry, member);
      }
    }
  }
  ctx.log.info('loaded offsets partition', {
    partition: owned.partition,
    leaderEpoch: owned.leaderEpoch,
    groups: owned.groups.size,
    offsets,
    records: replay.recordsApplied,
    endOffset: owned.fetchOffset,
    ms: ctx.clock.now() - owned.loadStartedMs,
  });
}

function unloadPartition(s: CoordinatorState, ctx: Ctx, partition: number, why: string): void {
  const owned = s.partitions.get(partition);
  if (!owned) return;
  s.partitions.delete(partition);
  ctx.timers.cancel(loadTimerKey(partition));
  for (const groupId of [...owned.groups]) {
    const entry = s.groups.get(groupId);
    if (entry && entry.partition === partition) dropGroup(s, ctx, entry, ErrorCode.NOT_COORDINATOR);
  }
  for (const [id, a] of [...s.appends]) {
    if (a.partition !== partition) continue;
    s.appends.delete(id);
    for (const r of a.records) markPending(r, -1);
    settleAppend(s, ctx, a, ErrorCode.NOT_COORDINATOR);
  }
  ctx.log.info('unloaded offsets partition', { partition, leaderEpoch: owned.leaderEpoch, groups: owned.groups.size, why });
}

// ---------------------------------------------------------------------------------------------
// Housekeeping: offset expiry (KIP-211) and rewriting aging records

function isPendingOffset(entry: GroupEntry, o: CommittedOffset): boolean {
  return (entry.pendingOffsetWrites.get(topicPartitionKey(o.topic, o.partition)) ?? 0) > 0;
}

/** Kafka's GroupMetadata.removeExpiredOffsets choice of which offsets have expired. */
function expiredOffsets(entry: GroupEntry, now: number, retentionMs: number): CommittedOffset[] {
  const g = entry.group;
  let base: (o: CommittedOffset) => number;
  let keep: ReadonlySet<string> = new Set();
  if (entry.consumer) {
    // Kafka's consumer groups: by commit time, except the topics members subscribe to
    base = (o) => o.value.commitTimestamp;
    keep = entry.consumer.subscribedTopicNames();
  } else if (g.protocolType !== null && g.is(GroupState.Empty)) {
    // no member left: offsets expire relative to when the group became empty
    base = (o) => g.stateTimestampMs ?? o.value.commitTimestamp;
  } else if (g.protocolType === CONSUMER_PROTOCOL_TYPE && g.is(GroupState.Stable) && subscribedTopics(entry) !== null) {
    // members consume: only offsets of topics nobody subscribes to any more expire
    base = (o) => o.value.commitTimestamp;
    keep = subscribedTopics(entry)!;
  } else if (g.protocolType === null) {
    // offsets stored without group management
    base = (o) => o.value.commitTimestamp;
  } else {
    return [];
  }
  const out: CommittedOffset[] = [];
  for (const o of entry.offsets.values()) {
    if (keep.has(o.topic) || isPendingOffset(entry, o)) continue;
    const expired = o.value.expireTimestamp >= 0 ? now >= o.value.expireTimestamp : now - base(o) >= retentionMs;
    if (expired) out.push(o);
  }
  return out;
}

/** Removes offsets from the cache and returns their tombstones; an Empty group left without offsets goes Dead. */
function cleanupGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, removed: { topic: string; partition: number }[]): WrittenRecord[] {
  const records: WrittenRecord[] = [];
  for (const r of removed) {
    entry.offsets.delete(topicPartitionKey(r.topic, r.partition));
    records.push({ kind: 'offset', entry, topic: r.topic, partition: r.partition, value: null });
  }
  const g = entry.group;
  const consumerEmpty = !entry.consumer || entry.consumer.state === ConsumerGroupState.Empty;
  // a share group stays, members or not, until DeleteGroups (as Kafka's)
  if (g.is(GroupState.Empty) && consumerEmpty && !entry.share && entry.offsets.size === 0 && entry.pendingOffsetWrites.size === 0 && entry.pendingGroupWrites === 0) {
    ctx.log.info('group has no members and no offsets: it is dead', { groupId: entry.groupId, generationId: g.generationId });
    if (entry.persisted !== null) records.push({ kind: 'group', entry, bytes: null });
    records.push(...consumerTombstones(entry));
    dropGroup(s, ctx, entry, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
  return records;
}

function appendInChunks(s: CoordinatorState, ctx: Ctx, partition: number, records: WrittenRecord[], kind: 'expire' | 'refresh' | 'topics-deleted'): void {
  for (let i = 0; i < records.length; i += REFRESH_BATCH_RECORDS) {
    appendRecords(s, ctx, partition, records.slice(i, i + REFRESH_BATCH_RECORDS), { kind });
  }
}

function housekeeping(s: CoordinatorState, ctx: Ctx): void {
  const now = ctx.clock.now();
  const cutoff = now - s.cfg.recordRefreshIntervalMs;
  for (const owned of s.partitions.values()) {
    if (owned.status !== OffsetsPartitionStatus.Active) continue;
    const tombstones: WrittenRecord[] = [];
    const rewrites: WrittenRecord[] = [];
    for (const groupId of [...owned.groups]) {
      const entry = s.groups.get(groupId);
      if (!entry) continue;
      const expired = expiredOffsets(entry, now, s.cfg.offsetsRetentionMs);
      if (expired.length > 0) ctx.log.info('expiring offsets', { groupId, count: expired.length });
      tombstones.push(...cleanupGroup(s, ctx, entry, expired));
      if (!liveEntry(s, entry)) continue;
      for (const o of entry.offsets.values()) {
        if (o.writtenAt < cutoff && !isPendingOffset(entry, o)) rewrites.push({ kind: 'offset', entry, topic: o.topic, partition: o.partition, value: o.value });
      }
      if (entry.persisted && entry.persisted.writtenAt < cutoff && entry.pendingGroupWrites === 0) {
        rewrites.push({ kind: 'group', entry, bytes: entry.persisted.bytes });
      }
      if (entry.share && entry.consumerOldestWrite < cutoff && entry.pendingGroupWrites === 0) persistShare(s, ctx, entry, { kind: 'consumer-write' }, true);
      if (entry.consumer && entry.consumerOldestWrite < cutoff && entry.pendingGroupWrites === 0) {
        // the consumer group's records are rewritten together: the oldest of them is then new
        entry.consumerNeedsFullWrite = true;
        persistConsumer(s, ctx, entry, { kind: 'consumer-write' });
      }
    }
    if (tombstones.length > 0) appendInChunks(s, ctx, owned.partition, tombstones, 'expire');
    if (rewrites.length > 0) {
      ctx.log.debug('rewriting aging offsets records', { partition: owned.partition, records: rewrites.length });
      appendInChunks(s, ctx, owned.partition, rewrites, 'refresh');
    }
  }
}

/**
 * After a restart (a crash lost the state), takes back the offsets partitions whose local
 * replica leads: the broker tells BecomeCoordinator only when leadership changes. At the first
 * start the broker knows no such partition yet, and in tests without a broker the ask fails.
 */
function recoverOwnership(ctx: Ctx, brokerId: number, replicaFor: (partition: number) => ActorRef<ReplicaMsg>): void {
  const broker: ActorRef<BrokerMsg> = { node: ctx.nodeId, path: brokerPath(brokerId) };
  void ctx.ask<MetadataResponse>(broker, { type: 'Metadata', topics: [OFFSETS_TOPIC] }, { timeoutMs: 10_000 }).then(async (r) => {
    if (isFailure(r) || r.type !== 'MetadataResponse') return;
    const topic = r.metadata.topics.find((t) => t.name === OFFSETS_TOPIC);
    if (!topic) return;
    for (const p of topic.partitions) {
      if (p.leader !== brokerId) continue;
      const d = await ctx.ask<ReplicaDescription>(replicaFor(p.partition), { type: 'DescribeReplica' }, { timeoutMs: 10_000 });
      if (isFailure(d) || d.role !== 'Leader') continue;
      ctx.send(ctx.self, { type: 'BecomeCoordinator', partition: p.partition, leaderEpoch: d.leaderEpoch, numPartitions: topic.partitions.length });
    }
  });
}

// ---------------------------------------------------------------------------------------------

export const groupCoordinator = defineActor<CoordinatorState, CoordinatorMsg, CoordinatorArgs>({
  kind: 'group-coordinator',
  // a crash loses the in-memory groups: restart empty; the broker's next LeaderAndIsr reloads them
  supervision: { maxRestarts: 10, withinMs: 60_000 },
  mailboxLimit: 200_000,

  init(ctx, args) {
    const cfg = resolveConfig(args);
    const node = ctx.nodeId;
    const s: CoordinatorState = {
      brokerId: args.brokerId,
      cfg,
      numPartitions: args.offsetsTopicNumPartitions ?? DEFAULT_OFFSETS_TOPIC_PARTITIONS,
      partitions: new Map(),
      groups: new Map(),
      appends: new Map(),
      seq: 0,
      replicaFor: args.replicaFor ?? ((p) => ({ node, path: replicaPath(args.brokerId, OFFSETS_TOPIC, p) })),
      broker: args.broker ?? null,
      verifying: new Map(),
      topicCache: new Map(),
      groupVersion: 1,
      shareVersion: 1,
      groupConfigs: new Map(),
      clusterTopics: null,
      awaitingTopics: new Map(),
      awaitingShareTopics: new Map(),
      consumerTopicMetadata: args.consumerTopicMetadata ?? null,
    };
    ctx.timers.startPeriodic(HOUSEKEEPING_TIMER, cfg.housekeepingIntervalMs, { type: 'Housekeeping' });
    recoverOwnership(ctx, args.brokerId, s.replicaFor);
    return s;
  },

  schema: {
    JoinGroup: {
      groupId: 'string',
      sessionTimeoutMs: 'integer',
      rebalanceTimeoutMs: 'integer',
      memberId: 'string',
      groupInstanceId: 'string?',
      protocolType: 'string',
      protocols: 'array',
      clientId: 'string?',
      clientHost: 'string?',
      requireKnownMemberId: 'boolean?',
      reason: 'string?',
      supportsSkippingAssignment: 'boolean?',
    },
    SyncGroup: { groupId: 'string', generationId: 'integer', memberId: 'string', groupInstanceId: 'string?', protocolType: 'string?', protocolName: 'string?', assignments: 'array' },
    Heartbeat: { groupId: 'string', generationId: 'integer', memberId: 'string', groupInstanceId: 'string?' },
    LeaveGroup: { groupId: 'string', members: 'array' },
    OffsetCommit: { groupId: 'string', generationId: 'integer', memberId: 'string', groupInstanceId: 'string?', retentionTimeMs: 'integer?', topics: 'array', apiVersion: 'integer?' },
    OffsetFetch: { groupId: 'string', topics: 'array?', requireStable: 'boolean?', memberId: 'string?', memberEpoch: 'integer?' },
    ConsumerGroupHeartbeat: {
      groupId: 'string',
      memberId: 'string',
      memberEpoch: 'integer',
      instanceId: 'string?',
      rackId: 'string?',
      rebalanceTimeoutMs: 'integer',
      subscribedTopicNames: 'array?',
      subscribedTopicRegex: 'string?',
      serverAssignor: 'string?',
      topicPartitions: 'array?',
      clientId: 'string?',
      clientHost: 'string?',
      topicAuthorizer: 'object?',
    },
    ConsumerGroupDescribe: { groups: 'array' },
    ShareGroupHeartbeat: { groupId: 'string', memberId: 'string', memberEpoch: 'integer', rackId: 'string?', subscribedTopicNames: 'array?', clientId: 'string?', clientHost: 'string?' },
    ShareGroupDescribe: { groups: 'array' },
    GroupVersionChanged: { level: 'integer' },
    ShareVersionChanged: { level: 'integer' },
    GroupConfigsChanged: { configs: 'object' },
    TopicsDeleted: { topics: 'array' },
    TxnOffsetCommit: { transactionalId: 'string', groupId: 'string', producerId: 'integer', producerEpoch: 'integer', generationId: 'integer', memberId: 'string', groupInstanceId: 'string?', topics: 'array', transactionV2: 'boolean?' },
    TxnMarkerWritten: { partition: 'integer', producerId: 'integer', commit: 'boolean' },
    ListGroups: { statesFilter: 'array?', typesFilter: 'array?' },
    DescribeGroups: { groups: 'array' },
    DeleteGroups: { groups: 'array' },
    OffsetDelete: { groupId: 'string', topics: 'array' },
    BecomeCoordinator: { partition: 'integer', leaderEpoch: 'integer', numPartitions: 'integer?' },
    ResignCoordinator: { partition: 'integer', leaderEpoch: 'integer' },
  },

  handlers: {
    ConsumerGroupHeartbeat(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      if (s.groupVersion < 1) return answer(ctx, token, consumerHeartbeatError(ErrorCode.UNSUPPORTED_VERSION, CONSUMER_PROTOCOL_OFF));
      const invalid = validateConsumerHeartbeat(m);
      if (invalid) return answer(ctx, token, consumerHeartbeatError(invalid.errorCode, invalid.message));
      if (m.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || m.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) return consumerLeave(s, ctx, m, token);
      const err = validateGroupStatus(s, m.groupId, false);
      if (err !== null) return answer(ctx, token, consumerHeartbeatError(err, null));
      prepareConsumerHeartbeat(s, ctx, { m, token, fetchedNames: false, fetchedAll: false, matched: null, resolved: null });
    },

    ShareGroupHeartbeat(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      if (s.shareVersion < 1) return answer(ctx, token, shareHeartbeatError(ErrorCode.UNSUPPORTED_VERSION, SHARE_GROUPS_OFF));
      if (typeof m.groupId !== 'string' || m.groupId.trim() === '') return answer(ctx, token, shareHeartbeatError(ErrorCode.INVALID_REQUEST, "GroupId can't be empty."));
      const err = validateGroupStatus(s, m.groupId, false);
      if (err !== null) return answer(ctx, token, shareHeartbeatError(err, null));
      prepareShareHeartbeat(s, ctx, m, token, false);
    },

    ShareTopicsFetched(s, m, ctx) {
      const waiting = s.awaitingShareTopics.get(m.fetchId);
      if (!waiting) return;
      s.awaitingShareTopics.delete(m.fetchId);
      if (m.topics === null) {
        // a heartbeat cannot go on without them; a leave, a fencing or a describe goes on with what is known
        if (waiting.kind === 'heartbeat' && waiting.m.memberEpoch !== SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
          return answer(ctx, waiting.token, shareHeartbeatError(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'the topics could not be read from the metadata'));
        }
      } else {
        const now = ctx.clock.now();
        const byName = new Map(m.topics.map((t) => [t.name, t] as const));
        for (const name of m.names) {
          const t = byName.get(name);
          s.topicCache.set(name, { info: t ? { topicId: t.topicId, name, numPartitions: t.numPartitions } : null, at: now });
        }
      }
      switch (waiting.kind) {
        case 'heartbeat':
          return prepareShareHeartbeat(s, ctx, waiting.m, waiting.token, true);
        case 'fence':
          return fenceShareMember(s, ctx, waiting.groupId, waiting.memberId, waiting.seq, true);
        case 'describe':
          return answerShareDescribe(s, ctx, waiting.groups, waiting.token);
        default:
          return assertNever(waiting);
      }
    },

    ShareSessionDeadline(s, m, ctx) {
      fenceShareMember(s, ctx, m.groupId, m.memberId, m.seq, false);
    },

    ShareGroupDescribe(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      if (s.shareVersion < 1) return answer(ctx, token, { type: 'ShareGroupDescribeResponse', errorCode: ErrorCode.NONE, groups: m.groups.map((groupId) => ({ groupId: String(groupId), errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: SHARE_GROUPS_OFF, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] })) } satisfies ShareGroupDescribeResponse);
      // members' assignments are named by topic: a group loaded from another coordinator's records may hold topics not looked up here yet
      const missing = shareDescribeTopicsMissing(s, m.groups);
      if (missing.length > 0) return fetchShareTopics(s, ctx, missing, { kind: 'describe', groups: m.groups, token });
      answerShareDescribe(s, ctx, m.groups, token);
    },

    ConsumerTopicsFetched(s, m, ctx) {
      const waiting = s.awaitingTopics.get(m.fetchId);
      if (!waiting) return;
      s.awaitingTopics.delete(m.fetchId);
      if (m.topics === null) return failPending(ctx, waiting, ErrorCode.COORDINATOR_NOT_AVAILABLE, 'the topics could not be read from the metadata');
      const now = ctx.clock.now();
      const byName = new Map(m.topics.map((t) => [t.name, t] as const));
      // the whole list also says which cached topics are gone
      const names = m.names ?? [...new Set([...s.topicCache.keys(), ...byName.keys()])];
      for (const name of names) {
        const t = byName.get(name);
        s.topicCache.set(name, { info: t ? { topicId: t.topicId, name, numPartitions: t.numPartitions } : null, at: now });
      }
      if (m.names === null) {
        s.clusterTopics = { topics: m.topics, at: now };
        waiting.fetchedAll = true;
      } else {
        waiting.fetchedNames = true;
      }
      prepareConsumerHeartbeat(s, ctx, waiting);
    },

    ConsumerRegexTopicsAuthorized(s, m, ctx) {
      const waiting = s.awaitingTopics.get(m.fetchId);
      if (!waiting) return;
      s.awaitingTopics.delete(m.fetchId);
      if (m.allowed === null || waiting.matched === null) return answer(ctx, waiting.token, consumerHeartbeatError(ErrorCode.COORDINATOR_NOT_AVAILABLE, "the member's access to its regular expression's topics could not be checked"));
      waiting.resolved = onlyAllowed(waiting.matched, m.allowed);
      prepareConsumerHeartbeat(s, ctx, waiting);
    },

    ConsumerSessionDeadline(s, m, ctx) {
      const entry = s.groups.get(m.groupId);
      if (!entry?.consumer || entry.consumerTimers.get(m.memberId)?.sessionSeq !== m.seq) return;
      fenceConsumerMember(s, ctx, entry, m.memberId, 'the member session expired');
    },

    ConsumerRebalanceDeadline(s, m, ctx) {
      const entry = s.groups.get(m.groupId);
      if (!entry?.consumer || entry.consumerTimers.get(m.memberId)?.rebalance?.seq !== m.seq) return;
      const member = entry.consumer.members.get(m.memberId);
      if (!member || member.memberEpoch !== m.memberEpoch) return;
      fenceConsumerMember(s, ctx, entry, m.memberId, `it failed to transition from epoch ${m.memberEpoch} within ${member.rebalanceTimeoutMs}ms`);
    },

    ConsumerClassicDeadline(s, m, ctx) {
      const entry = s.groups.get(m.groupId);
      if (!entry?.consumer || entry.consumerTimers.get(m.memberId)?.[m.phase] !== m.seq) return;
      fenceConsumerMember(s, ctx, entry, m.memberId, m.phase === 'join' ? 'the classic member failed to join within the rebalance timeout' : 'the member failed to sync within timeout');
    },

    ConsumerGroupDescribe(s, m, ctx) {
      const groups: DescribedConsumerGroup[] = m.groups.map((groupId) => {
        const none = (errorCode: number, errorMessage: string | null): DescribedConsumerGroup => ({ groupId: String(groupId), errorCode, errorMessage, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] });
        if (s.groupVersion < 1) return none(ErrorCode.UNSUPPORTED_VERSION, CONSUMER_PROTOCOL_OFF);
        const err = validateGroupStatus(s, groupId, true);
        if (err !== null) return none(err, null);
        const entry = s.groups.get(groupId);
        if (!entry?.consumer) return none(ErrorCode.GROUP_ID_NOT_FOUND, entry ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`);
        return describeConsumerGroup(s, groupId, entry.consumer);
      });
      ctx.reply({ type: 'ConsumerGroupDescribeResponse', errorCode: ErrorCode.NONE, groups } satisfies ConsumerGroupDescribeResponse);
    },

    GroupVersionChanged(s, m, ctx) {
      if (m.level === s.groupVersion) return;
      ctx.log.info(m.level >= 1 ? 'consumer group protocol on (group.version 1)' : 'consumer group protocol off (group.version 0)', { groupVersion: m.level });
      s.groupVersion = m.level;
    },

    ShareVersionChanged(s, m, ctx) {
      if (m.level === s.shareVersion) return;
      // at 0 heartbeats are refused: members' sessions run out and the groups stay, Empty, for when it is raised again
      ctx.log.info(m.level >= 1 ? 'share groups on (share.version 1)' : 'share groups off (share.version 0)', { shareVersion: m.level });
      s.shareVersion = m.level;
    },

    GroupConfigsChanged(s, m, ctx) {
      // members take a changed session timeout from their next heartbeat on, and are told the interval in its answer (as Kafka)
      s.groupConfigs = new Map(Object.entries(m.configs).filter(([, c]) => typeof c === 'object' && c !== null));
      ctx.log.debug('group configs changed', { groups: s.groupConfigs.size });
    },

    TopicsDeleted(s, m, ctx) {
      // as Kafka's onPartitionsDeleted: the groups of the offsets partitions loaded here; an offset
      // a transaction is still writing is left to it
      const gone = new Set(m.topics);
      for (const owned of s.partitions.values()) {
        if (owned.status !== OffsetsPartitionStatus.Active) continue;
        const tombstones: WrittenRecord[] = [];
        for (const groupId of [...owned.groups]) {
          const entry = s.groups.get(groupId);
          if (!entry) continue;
          const removed = [...entry.offsets.values()].filter((o) => gone.has(o.topic) && !isPendingOffset(entry, o));
          if (removed.length === 0) continue;
          ctx.log.info('removing the offsets of deleted topics', { groupId, count: removed.length, topics: [...new Set(removed.map((o) => o.topic))] });
          tombstones.push(...cleanupGroup(s, ctx, entry, removed));
        }
        if (tombstones.length > 0) appendInChunks(s, ctx, owned.partition, tombstones, 'topics-deleted');
      }
    },

    JoinGroup(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      const err = validateGroupStatus(s, m.groupId, false) ?? validateProtocolList(m.protocols);
      if (err !== null) return answer(ctx, token, joinError(m.memberId, err));
      if (m.sessionTimeoutMs < s.cfg.minSessionTimeoutMs || m.sessionTimeoutMs > s.cfg.maxSessionTimeoutMs) {
        return answer(ctx, token, joinError(m.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
      }
      const isNewMember = m.memberId === '';
      let entry = s.groups.get(m.groupId);
      if (!entry) {
        if (!isNewMember) return answer(ctx, token, joinError(m.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        entry = createGroup(s, m.groupId, ctx.clock.now());
      }
      // as Kafka: a share group takes no classic member
      if (entry.share) return answer(ctx, token, joinError(m.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
      if (entry.consumer) {
        // a consumer group (KIP-848) with members serves a classic member; an empty one gives way, as in Kafka
        if (entry.consumer.members.size > 0) return classicJoinConsumerGroup(s, ctx, entry, m, token);
        if (!isNewMember) return answer(ctx, token, joinError(m.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        const tombstones = consumerTombstones(entry);
        entry.consumer = null;
        ctx.log.info('empty consumer group replaced by a classic group', { groupId: m.groupId });
        appendRecords(s, ctx, entry.partition, tombstones, { kind: 'consumer-write' }, entry);
      }
      if (!entry.group.acceptsJoiningMember(m.memberId, s.cfg.classicMaxSize)) {
        // as Kafka: turned away, and removed if it was a member (the last to rejoin a group over capacity)
        const why = `the group is at group.max.size (${s.cfg.classicMaxSize})`;
        ctx.log.info('member turned away from a full group', { groupId: m.groupId, memberId: m.memberId, size: entry.group.size, reason: why });
        if (!isNewMember) removeMemberAndUpdateGroup(s, ctx, entry, m.memberId, why);
        return answer(ctx, token, joinError('', ErrorCode.GROUP_MAX_SIZE_REACHED));
      }
      if (isNewMember) doNewMemberJoin(s, ctx, entry, m, token);
      else doCurrentMemberJoin(s, ctx, entry, m, token);
      maybeCompleteJoin(s, ctx, entry);
    },

    SyncGroup(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      const err = validateGroupStatus(s, m.groupId, false);
      // while loading, Kafka tells the member to rejoin
      if (err === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return answer(ctx, token, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      if (err !== null) return answer(ctx, token, syncError(err));
      const entry = s.groups.get(m.groupId);
      if (!entry) return answer(ctx, token, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      if (entry.consumer) return classicSyncToConsumerGroup(s, ctx, entry, m, token);
      const g = entry.group;
      if (g.is(GroupState.Dead)) return answer(ctx, token, syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
      const memberError = g.validateMember(m.memberId, m.groupInstanceId);
      if (memberError !== null) return answer(ctx, token, syncError(memberError));
      if (m.generationId !== g.generationId) return answer(ctx, token, syncError(ErrorCode.ILLEGAL_GENERATION));
      if ((m.protocolType != null && m.protocolType !== g.protocolType) || (m.protocolName != null && m.protocolName !== g.protocolName)) {
        return answer(ctx, token, syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
      }
      const member = g.get(m.memberId)!;
      switch (g.state) {
        case GroupState.Empty:
          return answer(ctx, token, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
        case GroupState.PreparingRebalance:
          return answer(ctx, token, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
        case GroupState.CompletingRebalance: {
          setSyncWaiter(ctx, entry, member, token);
          g.removePendingSyncMember(m.memberId);
          if (g.isLeader(m.memberId)) {
            const assignments = new Map<string, Uint8Array>();
            for (const a of m.assignments) {
              if (a && typeof a.memberId === 'string' && isBytes(a.assignment)) assignments.set(a.memberId, a.assignment);
            }
            ctx.log.info('leader sent the assignment; storing the group', { groupId: m.groupId, generationId: g.generationId });
            // the group metadata is persisted before anyone gets an assignment
            storeGroup(s, ctx, entry, assignments, { kind: 'sync', generationId: g.generationId, assignments });
          }
          if (g.hasReceivedSyncFromAllMembers()) ctx.timers.cancel(syncTimerKey(m.groupId));
          return;
        }
        case GroupState.Stable:
          g.removePendingSyncMember(m.memberId);
          answer(ctx, token, syncResult(g, member.assignment));
          scheduleHeartbeat(s, ctx, entry, member);
          if (g.hasReceivedSyncFromAllMembers()) ctx.timers.cancel(syncTimerKey(m.groupId));
          return;
        case GroupState.Dead:
          return answer(ctx, token, syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
      }
    },

    Heartbeat(s, m, ctx) {
      const reply = (code: number) => ctx.reply(simple('HeartbeatResponse', code));
      const err = validateGroupStatus(s, m.groupId, false);
      // while loading, Kafka answers heartbeats blindly: the group will be there once loaded
      if (err === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return reply(ErrorCode.NONE);
      if (err !== null) return reply(err);
      const entry = s.groups.get(m.groupId);
      if (!entry) return reply(ErrorCode.UNKNOWN_MEMBER_ID);
      if (entry.consumer) return reply(classicHeartbeatToConsumerGroup(s, ctx, entry, m));
      const g = entry.group;
      if (g.is(GroupState.Dead)) return reply(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      const memberError = g.validateMember(m.memberId, m.groupInstanceId);
      if (memberError !== null) return reply(memberError);
      if (m.generationId !== g.generationId) return reply(ErrorCode.ILLEGAL_GENERATION);
      const member = g.get(m.memberId)!;
      switch (g.state) {
        case GroupState.Empty:
        case GroupState.Dead:
          return reply(ErrorCode.UNKNOWN_MEMBER_ID);
        case GroupState.CompletingRebalance:
        case GroupState.Stable:
          scheduleHeartbeat(s, ctx, entry, member);
          return reply(ErrorCode.NONE);
        case GroupState.PreparingRebalance:
          scheduleHeartbeat(s, ctx, entry, member);
          return reply(ErrorCode.REBALANCE_IN_PROGRESS);
      }
    },

    LeaveGroup(s, m, ctx) {
      const reply = (code: number) => ctx.reply(simple('LeaveGroupResponse', code));
      // each member's error in order; the first one stands for the request (LeaveGroup v0-2)
      const replyPerMember = (memberErrors: number[]) => ctx.reply<LeaveGroupResponse>({ type: 'LeaveGroupResponse', errorCode: memberErrors.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE, memberErrors });
      const err = validateGroupStatus(s, m.groupId, false);
      if (err !== null) return reply(err);
      const entry = s.groups.get(m.groupId);
      // no such group: none of its members is known, as Kafka answers
      if (!entry) return replyPerMember(m.members.map(() => ErrorCode.UNKNOWN_MEMBER_ID));
      if (entry.consumer) return classicLeaveConsumerGroup(s, ctx, entry, m, ctx.deferReply() ?? null);
      const g = entry.group;
      if (g.is(GroupState.Dead)) return reply(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      const memberErrors: number[] = [];
      for (const leaving of m.members) {
        if (typeof leaving !== 'object' || leaving === null || typeof leaving.memberId !== 'string') {
          memberErrors.push(ErrorCode.INVALID_REQUEST);
          continue;
        }
        const instanceId = leaving.groupInstanceId ?? null;
        if (instanceId === null && g.hasPendingMember(leaving.memberId)) {
          g.removePendingMember(leaving.memberId);
          ctx.timers.cancel(pendingTimerKey(m.groupId, leaving.memberId));
          entry.pendingMembers.delete(leaving.memberId);
          maybeCompleteJoin(s, ctx, entry);
          memberErrors.push(ErrorCode.NONE);
          continue;
        }
        // an admin may remove a static member by its instance id alone
        const memberId = instanceId !== null && leaving.memberId === '' ? (g.getStaticMemberId(instanceId) ?? '') : leaving.memberId;
        const memberError = g.validateMember(memberId, instanceId);
        if (memberError !== null) {
          memberErrors.push(memberError);
          continue;
        }
        memberErrors.push(ErrorCode.NONE);
        // KIP-800: the client's reason (LeaveGroup v5+) is logged with the removal and the rebalance it causes
        const how = instanceId === null ? `member ${memberId}` : `static member ${memberId} with instance id ${instanceId}`;
        removeMemberAndUpdateGroup(s, ctx, entry, memberId, `${how} left the group through LeaveGroup; client reason: ${clientReason(leaving.reason)}`);
      }
      replyPerMember(memberErrors);
    },

    OffsetCommit(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      const err = validateGroupStatus(s, m.groupId, true) ?? validateTopicList(m.topics, true);
      if (err !== null) return answer(ctx, token, commitFailure(m, err));
      const now = ctx.clock.now();
      let entry = s.groups.get(m.groupId);
      if (!entry) {
        // no group: a commit outside group management creates one; any generation is stale
        if (m.generationId >= 0) return answer(ctx, token, commitFailure(m, ErrorCode.ILLEGAL_GENERATION));
        entry = createGroup(s, m.groupId, now);
      }
      const g = entry.group;
      if (g.is(GroupState.Dead)) return answer(ctx, token, commitFailure(m, ErrorCode.COORDINATOR_NOT_AVAILABLE));
      // a share group keeps no committed offsets (its partitions' start offsets are its share state)
      if (entry.share) return answer(ctx, token, commitFailure(m, ErrorCode.GROUP_ID_NOT_FOUND));
      let problem: number | null = null;
      if (entry.consumer) {
        // KIP-848: a member commits with its current epoch, through OffsetCommit v9+
        problem = entry.consumer.validateOffsetCommit(m.memberId, m.generationId, false, m.apiVersion ?? 9);
        if (problem !== null) return answer(ctx, token, commitFailure(m, problem));
      } else if (m.generationId >= 0 || m.memberId !== '' || m.groupInstanceId) {
        problem = g.validateMember(m.memberId, m.groupInstanceId) ?? g.validateGeneration(m.generationId);
      } else if (!g.is(GroupState.Empty)) {
        // a group with members takes commits only from its members
        problem = ErrorCode.UNKNOWN_MEMBER_ID;
      }
      if (problem !== null) return answer(ctx, token, commitFailure(m, problem));
      if (!entry.consumer && !(m.generationId < 0 && g.is(GroupState.Empty))) {
        // a member that knows the generation but has no assignment yet: it must wait for SyncGroup
        if (g.is(GroupState.CompletingRebalance)) return answer(ctx, token, commitFailure(m, ErrorCode.REBALANCE_IN_PROGRESS));
        const member = g.get(m.memberId);
        if (member) scheduleHeartbeat(s, ctx, entry, member);
      }
      const retention = m.retentionTimeMs ?? -1;
      const { records, written, topics } = offsetRecords(s, entry, m.topics, now, retention >= 0 ? now + retention : -1);
      const response: OffsetCommitResponse = { type: 'OffsetCommitResponse', errorCode: ErrorCode.NONE, topics };
      if (records.length === 0) return answer(ctx, token, response);
      appendRecords(s, ctx, entry.partition, records, { kind: 'commit', token, response, written });
    },

    TxnOffsetCommit(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      const err = txnOffsetCommitProblem(s, m);
      if (err !== null) return answer(ctx, token, txnOffsetCommitFailed(m, err));
      if (!s.broker || !m.topics.some((t) => t.partitions.length > 0)) return commitTxnOffsets(s, ctx, m, token, null);
      // KIP-890: the transaction's coordinator confirms the offsets partition is in the transaction first
      const verificationId = ++s.seq;
      s.verifying.set(verificationId, { m, token });
      const msg: BrokerMsg = { type: 'VerifyTransaction', transactionalId: m.transactionalId, producerId: m.producerId, producerEpoch: m.producerEpoch, partitions: [{ topic: OFFSETS_TOPIC, partition: partitionOf(s, m.groupId) }] };
      // KIP-890 part 2: a TV_2 producer's offsets partition is added to its transaction instead
      if (m.transactionV2 === true) msg.transactionV2 = true;
      void ctx.ask<TransactionVerification>(s.broker, msg, { timeoutMs: s.cfg.offsetCommitTimeoutMs }).then((r) => {
        const verified: CoordinatorMsg = isFailure(r)
          ? { type: 'TxnOffsetCommitVerified', verificationId, enabled: true, errorCode: r.errorCode, errorMessage: r.message, guard: NO_GUARD }
          : r.enabled
            ? { type: 'TxnOffsetCommitVerified', verificationId, enabled: true, errorCode: r.partitions[0]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR, guard: r.partitions[0]?.guard ?? NO_GUARD }
            : { type: 'TxnOffsetCommitVerified', verificationId, enabled: false, errorCode: ErrorCode.NONE, guard: NO_GUARD };
        ctx.send(ctx.self, verified);
      });
    },

    TxnOffsetCommitVerified(s, m, ctx) {
      const pending = s.verifying.get(m.verificationId);
      if (!pending) return;
      s.verifying.delete(m.verificationId);
      if (m.errorCode !== ErrorCode.NONE) {
        ctx.log.debug('transactional offset commit not verified', { groupId: pending.m.groupId, transactionalId: pending.m.transactionalId, errorCode: m.errorCode, reason: m.errorMessage });
        return answer(ctx, pending.token, txnOffsetCommitFailed(pending.m, txnOffsetCommitVerificationError(m.errorCode)));
      }
      // the group may have moved on while the coordinator was asked: checked again
      const err = txnOffsetCommitProblem(s, pending.m);
      if (err !== null) return answer(ctx, pending.token, txnOffsetCommitFailed(pending.m, err));
      commitTxnOffsets(s, ctx, pending.m, pending.token, m.enabled ? m.guard : null);
    },

    TxnMarkerWritten(s, m, ctx) {
      completeTxnOffsets(s, ctx, m.partition, m.producerId, m.commit);
    },

    OffsetFetch(s, m, ctx) {
      const err = validateGroupStatus(s, m.groupId, true) ?? (m.topics == null ? null : validateTopicList(m.topics, false));
      const row = (partition: number, errorCode: number) => ({ partition, offset: -1, leaderEpoch: -1, metadata: '', errorCode });
      if (err !== null) {
        const topics = perPartitionError(m.topics, err).map((t) => ({ name: t.name, partitions: t.partitions.map((p) => row(p.partition, err)) }));
        ctx.reply({ type: 'OffsetFetchResponse', errorCode: err, topics } satisfies OffsetFetchResponse);
        return;
      }
      const entry = s.groups.get(m.groupId);
      if (entry?.consumer) {
        // KIP-848 (v9+): a member fetching names itself and its current epoch
        const problem = entry.consumer.validateOffsetFetch(m.memberId ?? null, m.memberEpoch ?? -1);
        if (problem !== null) {
          const topics = perPartitionError(m.topics, problem).map((t) => ({ name: t.name, partitions: t.partitions.map((p) => row(p.partition, problem)) }));
          ctx.reply({ type: 'OffsetFetchResponse', errorCode: problem, topics } satisfies OffsetFetchResponse);
          return;
        }
      }
      const committed = (topic: string, partition: number) => {
        // KIP-447: a consumer asking for stable offsets waits out a transaction that holds one
        if (m.requireStable && hasTxnOffset(entry, topicPartitionKey(topic, partition))) return row(partition, ErrorCode.UNSTABLE_OFFSET_COMMIT);
        const o = entry?.offsets.get(topicPartitionKey(topic, partition));
        if (!o) return row(partition, ErrorCode.NONE);
        return { partition, offset: o.value.offset, leaderEpoch: o.value.leaderEpoch, metadata: o.value.metadata, errorCode: ErrorCode.NONE };
      };
      let topics: OffsetFetchResponse['topics'];
      if (m.topics == null) {
        const byTopic = new Map<string, number[]>();
        for (const o of entry?.offsets.values() ?? []) {
          const list = byTopic.get(o.topic) ?? [];
          list.push(o.partition);
          byTopic.set(o.topic, list);
        }
        topics = [...byTopic].map(([name, ps]) => ({ name, partitions: ps.sort((a, b) => a - b).map((p) => committed(name, p)) }));
      } else {
        topics = m.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => committed(t.name, p)) }));
      }
      ctx.reply({ type: 'OffsetFetchResponse', errorCode: ErrorCode.NONE, topics } satisfies OffsetFetchResponse);
    },

    ListGroups(s, m, ctx) {
      const loading = [...s.partitions.values()].some((p) => p.status === OffsetsPartitionStatus.Loading);
      const filter = Array.isArray(m.statesFilter) && m.statesFilter.length > 0 ? m.statesFilter.map((x) => String(x).toLowerCase().trim()) : null;
      const types = Array.isArray(m.typesFilter) && m.typesFilter.length > 0 ? m.typesFilter.map((x) => String(x).toLowerCase().trim()) : null;
      const groups = [...s.groups.values()]
        .map((e): GroupListing =>
          e.share
            ? { groupId: e.groupId, protocolType: 'share', state: e.share.state, groupType: 'share' }
            : e.consumer
              ? { groupId: e.groupId, protocolType: CONSUMER_PROTOCOL_TYPE, state: e.consumer.state, groupType: 'consumer' }
              : { groupId: e.groupId, protocolType: e.group.protocolType ?? '', state: e.group.state as string, groupType: 'classic' },
        )
        .filter((l) => (!filter || filter.includes(l.state.toLowerCase())) && (!types || types.includes(l.groupType)));
      ctx.reply({ type: 'ListGroupsResponse', errorCode: loading ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE, groups } satisfies ListGroupsResponse);
    },

    DescribeGroups(s, m, ctx) {
      const groups: DescribedGroup[] = m.groups.map((groupId) => {
        const err = validateGroupStatus(s, groupId, true);
        if (err !== null) return describedError(String(groupId), err, '');
        const entry = s.groups.get(groupId);
        // as Kafka 4.0: a group that is not there, or is a consumer group (classic members and
        // all), is no classic group: GROUP_ID_NOT_FOUND, Dead (v0-v5 answer it Dead, no error)
        if (!entry || entry.group.is(GroupState.Dead)) return describedError(groupId, ErrorCode.GROUP_ID_NOT_FOUND, GroupState.Dead, `Group ${groupId} not found.`);
        if (entry.consumer || entry.share) return describedError(groupId, ErrorCode.GROUP_ID_NOT_FOUND, GroupState.Dead, `Group ${groupId} is not a classic group.`);
        return { errorCode: ErrorCode.NONE, errorMessage: null, ...entry.group.summary() };
      });
      ctx.reply({ type: 'DescribeGroupsResponse', errorCode: ErrorCode.NONE, groups } satisfies DescribeGroupsResponse);
    },

    DeleteGroups(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      const progress: DeleteGroupsProgress = { token, results: [], remaining: 0 };
      const byPartition = new Map<number, { records: WrittenRecord[]; groupIds: string[] }>();
      for (const groupId of m.groups) {
        const err = validateGroupStatus(s, groupId, true);
        if (err !== null) {
          progress.results.push({ groupId: String(groupId), errorCode: err });
          continue;
        }
        const entry = s.groups.get(groupId);
        if (!entry || entry.group.is(GroupState.Dead)) {
          progress.results.push({ groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
          continue;
        }
        if (!entry.group.is(GroupState.Empty) || (entry.consumer && entry.consumer.state !== ConsumerGroupState.Empty) || (entry.share && entry.share.state !== ShareGroupState.Empty)) {
          progress.results.push({ groupId, errorCode: ErrorCode.NON_EMPTY_GROUP });
          continue;
        }
        const records: WrittenRecord[] = [...entry.offsets.values()].map((o) => ({ kind: 'offset', entry, topic: o.topic, partition: o.partition, value: null }));
        if (entry.consumer) records.push(...consumerTombstones(entry));
        else if (entry.share) {
          records.push(...shareTombstones(entry));
          // its partitions' delivery states go too, from every broker's share coordinator (as Kafka's DeleteShareGroupState)
          const broker: ActorRef<BrokerMsg> = s.broker ?? { node: ctx.nodeId, path: brokerPath(s.brokerId) };
          ctx.send(broker, { type: 'ShareGroupDeleted', groupId, fanOut: true });
        }
        else records.push({ kind: 'group', entry, bytes: null });
        entry.offsets.clear();
        dropGroup(s, ctx, entry, ErrorCode.GROUP_ID_NOT_FOUND);
        ctx.log.info('group deleted', { groupId });
        progress.results.push({ groupId, errorCode: ErrorCode.NONE });
        const batch = byPartition.get(entry.partition) ?? { records: [], groupIds: [] };
        batch.records.push(...records);
        batch.groupIds.push(groupId);
        byPartition.set(entry.partition, batch);
      }
      progress.remaining = byPartition.size;
      if (progress.remaining === 0) {
        answer(ctx, token, { type: 'DeleteGroupsResponse', errorCode: ErrorCode.NONE, groups: progress.results } satisfies DeleteGroupsResponse);
        return;
      }
      for (const [partition, b] of byPartition) appendRecords(s, ctx, partition, b.records, { kind: 'delete-groups', progress, groupIds: b.groupIds });
    },

    OffsetDelete(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      const fail = (errorCode: number) => answer(ctx, token, { type: 'OffsetDeleteResponse', errorCode, topics: [] } satisfies OffsetDeleteResponse);
      const err = validateGroupStatus(s, m.groupId, true) ?? validateTopicList(m.topics, false);
      if (err !== null) return fail(err);
      const entry = s.groups.get(m.groupId);
      if (!entry || entry.group.is(GroupState.Dead)) return fail(ErrorCode.GROUP_ID_NOT_FOUND);
      const g = entry.group;
      let subscribed: ReadonlySet<string> | null = null;
      if (entry.consumer) {
        // Kafka's consumer groups take OffsetDelete in any state; subscribed topics stay
        if (entry.consumer.members.size > 0) subscribed = entry.consumer.subscribedTopicNames();
      } else if (!g.is(GroupState.Empty)) {
        if (g.protocolType !== CONSUMER_PROTOCOL_TYPE) return fail(ErrorCode.NON_EMPTY_GROUP);
        subscribed = subscribedTopics(entry) ?? new Set();
      }
      const response: OffsetDeleteResponse = { type: 'OffsetDeleteResponse', errorCode: ErrorCode.NONE, topics: [] };
      const deleted: { topic: string; partition: number }[] = [];
      for (const t of m.topics) {
        const partitions = t.partitions.map((partition) => {
          if (subscribed?.has(t.name)) return { partition, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
          if (entry.offsets.has(topicPartitionKey(t.name, partition))) deleted.push({ topic: t.name, partition });
          return { partition, errorCode: ErrorCode.NONE };
        });
        response.topics.push({ name: t.name, partitions });
      }
      const records = cleanupGroup(s, ctx, entry, deleted);
      if (records.length === 0) return answer(ctx, token, response);
      appendRecords(s, ctx, entry.partition, records, { kind: 'offset-delete', token, response, deleted });
    },

    BecomeCoordinator(s, m, ctx) {
      if (m.numPartitions !== undefined && m.numPartitions !== null && m.numPartitions > 0) s.numPartitions = m.numPartitions;
      const current = s.partitions.get(m.partition);
      if (current && current.leaderEpoch >= m.leaderEpoch) return;
      if (current) unloadPartition(s, ctx, m.partition, `leader epoch ${current.leaderEpoch} -> ${m.leaderEpoch}: reloading`);
      const owned: OwnedPartition = {
        partition: m.partition,
        leaderEpoch: m.leaderEpoch,
        status: OffsetsPartitionStatus.Loading,
        loadId: ++s.seq,
        replay: new OffsetsReplay(),
        fetchOffset: 0,
        targetOffset: -1,
        loadStartedMs: ctx.clock.now(),
        groups: new Set(),
      };
      s.partitions.set(m.partition, owned);
      ctx.log.info('loading offsets partition', { partition: m.partition, leaderEpoch: m.leaderEpoch });
      readNext(s, ctx, owned);
    },

    ResignCoordinator(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned) return;
      if (m.leaderEpoch >= 0 && m.leaderEpoch < owned.leaderEpoch) return;
      unloadPartition(s, ctx, m.partition, `resigned at leader epoch ${m.leaderEpoch}`);
    },

    DescribeCoordinator(s, _m, ctx) {
      ctx.reply({
        type: 'CoordinatorDescription',
        brokerId: s.brokerId,
        numPartitions: s.numPartitions,
        partitions: [...s.partitions.values()]
          .sort((a, b) => a.partition - b.partition)
          .map((p) => ({ partition: p.partition, leaderEpoch: p.leaderEpoch, status: p.status, groups: p.groups.size })),
        pendingAppends: s.appends.size,
      } satisfies CoordinatorDescription);
    },

    LoadRead(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned || owned.loadId !== m.loadId || owned.status !== OffsetsPartitionStatus.Loading) return;
      const step = takeLoadRead(owned, m, (records, from) => owned.replay!.applyBatches(records, from), ctx.log, 'an offsets partition', m.partition);
      if (step === 'read') readNext(s, ctx, owned);
      else if (step === 'finish') finishLoad(s, ctx, owned);
      else ctx.timers.startSingle(loadTimerKey(m.partition), s.cfg.loadRetryBackoffMs, { type: 'LoadNext', partition: m.partition, loadId: m.loadId });
    },

    LoadNext(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned || owned.loadId !== m.loadId || owned.status !== OffsetsPartitionStatus.Loading) return;
      readNext(s, ctx, owned);
    },

    AppendDone(s, m, ctx) {
      const a = s.appends.get(m.appendId);
      if (!a) return;
      s.appends.delete(m.appendId);
      const owned = s.partitions.get(a.partition);
      const stillOwned = !!owned && owned.status === OffsetsPartitionStatus.Active && owned.leaderEpoch === a.leaderEpoch;
      let errorCode = m.errorCode;
      if (errorCode === ErrorCode.NONE && !stillOwned) errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
      if (errorCode === ErrorCode.NONE) {
        const isRefresh = a.purpose.kind === 'refresh';
        a.records.forEach((r, i) => (r.kind === 'offset' && r.txn ? holdTxnOffset(s, r, r.txn.producerId, m.baseOffset + i, a.timestamp) : applyWritten(s, r, m.baseOffset + i, a.timestamp, isRefresh)));
      } else if (m.errorMessage) {
        ctx.log.debug('offsets append failed', { partition: a.partition, errorCode, reason: m.errorMessage });
      }
      // only now: a tombstone's position must outlive the applying of this append's own records
      for (const r of a.records) markPending(r, -1);
      settleAppend(s, ctx, a, errorCode);
    },

    JoinDeadline(s, m, ctx) {
      const entry = s.groups.get(m.groupId);
      if (!entry || !entry.join || entry.join.seq !== m.seq || !entry.group.is(GroupState.PreparingRebalance)) return;
      const phase = entry.join;
      if (phase.kind === 'initial' && entry.newMemberAdded && phase.remainingMs > 0) {
        // members are still arriving: wait another initial delay, within the rebalance timeout
        entry.newMemberAdded = false;
        const delay = Math.min(s.cfg.initialRebalanceDelayMs, phase.remainingMs);
        const remainingMs = Math.max(phase.remainingMs - s.cfg.initialRebalanceDelayMs, 0);
        startJoinTimer(ctx, entry, delay, { kind: 'initial', remainingMs, seq: ++s.seq });
        return;
      }
      completeJoin(s, ctx, entry);
    },

    SyncDeadline(s, m, ctx) {
      const entry = s.groups.get(m.groupId);
      if (!entry) return;
      const g = entry.group;
      if (g.generationId !== m.generationId || !(g.is(GroupState.CompletingRebalance) || g.is(GroupState.Stable))) return;
      const missing = [...g.pendingSyncMembers];
      if (missing.length === 0) return;
      for (const memberId of missing) {
        const member = g.get(memberId);
        if (member) answer(ctx, takeJoinWaiter(entry, member), joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        cancelHeartbeat(ctx, entry, memberId);
        g.remove(memberId);
      }
      ctx.log.info('removing members that sent no SyncGroup within the rebalance timeout', { groupId: m.groupId, members: missing });
      prepareRebalance(s, ctx, entry, `members ${missing.join(', ')} did not sync in time`);
    },

    HeartbeatDeadline(s, m, ctx) {
      const entry = s.groups.get(m.groupId);
      if (!entry || entry.heartbeatSeq.get(m.memberId) !== m.seq) return;
      entry.heartbeatSeq.delete(m.memberId);
      const member = entry.group.get(m.memberId);
      if (!member) return;
      // members in the middle of a rebalance are kept alive by it (new members only until their join timeout)
      if (!member.isNew && (member.isAwaitingJoin || member.isAwaitingSync)) return;
      ctx.log.info('member session expired', { groupId: m.groupId, memberId: m.memberId, sessionTimeoutMs: member.sessionTimeoutMs });
      removeMemberAndUpdateGroup(s, ctx, entry, m.memberId, member.isNew ? 'new member did not complete its join in time' : 'session timeout');
    },

    PendingMemberDeadline(s, m, ctx) {
      const entry = s.groups.get(m.groupId);
      if (!entry || entry.pendingMembers.get(m.memberId) !== m.seq) return;
      entry.pendingMembers.delete(m.memberId);
      if (!entry.group.hasPendingMember(m.memberId)) return;
      entry.group.removePendingMember(m.memberId);
      ctx.log.info('pending member did not join in time', { groupId: m.groupId, memberId: m.memberId });
      maybeCompleteJoin(s, ctx, entry);
    },

    Housekeeping(s, _m, ctx) {
      housekeeping(s, ctx);
    },
  },

  onStop(s, ctx) {
    for (const w of s.awaitingTopics.values()) failPending(ctx, w, ErrorCode.NOT_COORDINATOR, null);
    s.awaitingTopics.clear();
    for (const entry of [...s.groups.values()]) dropGroup(s, ctx, entry, ErrorCode.NOT_COORDINATOR);
    for (const a of s.appends.values()) settleAppend(s, ctx, a, ErrorCode.NOT_COORDINATOR);
    s.appends.clear();
  },
});

/** What the coordinator's offsets topic is created with (broker config values, Kafka's names): compacted, as Kafka's. */
export function offsetsTopicConfig(segmentBytes: number): Record<string, string | number> {
  return {
    'segment.bytes': segmentBytes,
    'cleanup.policy': 'compact',
  };
}

