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
 * group's state machine; coordinator-consumer.ts its member timers (session:
 * group.consumer.session.timeout.ms, rebalance: the member's rebalance timeout while it revokes),
 * the subscribed topics' metadata (read from the local broker, reused for
 * consumerGroupMetadataMaxAgeMs), the resolution of its members' regular expressions against the
 * cluster's topic names (regex-resolution.ts: before a heartbeat that brings a new one, and at
 * most every consumerGroupRegexRefreshIntervalMs; with ACLs, only to the topics the heartbeat's
 * member may DESCRIBE, which the Kafka listener it came through tells) and its records (Kafka's
 * ConsumerGroup* record types, offsets-store.ts), written after every change before the
 * heartbeat is answered; state changes are applied in memory first, and after a failed write the
 * next one rewrites the whole group. An empty group of either kind gives way to the other (as
 * Kafka deletes it). A consumer group also serves classic members (classic-members.ts: their
 * JoinGroup is a heartbeat of the group, SyncGroup hands out their assignment, Heartbeat tells
 * them to join again; their session, join and sync timers are in coordinator-consumer.ts), and a
 * live group migrates between the kinds as group.consumer.migration.policy allows
 * (group-conversion.ts): a ConsumerGroupHeartbeat joining a classic "consumer" group converts it
 * to a consumer group, the last consumer-protocol member leaving a consumer group of classic
 * members converts it back (then it rebalances); otherwise GROUP_ID_NOT_FOUND, as Kafka.
 *
 * And KIP-932 share groups (ShareGroupHeartbeat, ShareGroupDescribe): share-group.ts is a
 * group's state machine; coordinator-share.ts has its members' session timers
 * (share.session.timeout.ms), the subscribed topics' metadata, and its records (Kafka 4.2's
 * ShareGroup* record types), written before each heartbeat is answered and replayed by the next
 * coordinator, where the members carry on at their epochs. A member given a partition has its
 * leader make the group's state of it (PrepareSharePartitions to the broker); deleting the group
 * deletes those states (ShareGroupDeleted).
 *
 * This file is the actor: its arguments, configuration and state, and the handler of each
 * message, most of them in the files that hold each part:
 *   coordinator-groups.ts       a group as held here (GroupEntry), the offsets partitions led
 *                               here, creating and dropping groups, ListGroups, DeleteGroups
 *   coordinator-classic.ts      classic groups: JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
 *                               DescribeGroups, the rebalance protocol and its timers
 *   coordinator-consumer.ts     KIP-848 consumer groups, their classic members, migration
 *   coordinator-share.ts        KIP-932 share groups
 *   coordinator-offsets.ts      OffsetCommit, TxnOffsetCommit, OffsetFetch, OffsetDelete
 *   coordinator-appends.ts      the records appended to the offsets partitions (AppendDone)
 *   coordinator-loading.ts      loading and unloading offsets partitions
 *   coordinator-housekeeping.ts offset expiry, deleted topics' offsets, rewrites of aging records
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
 * broker (the topics consumer groups subscribe to, or all of them for regular expressions; after
 * a restart, the offsets topic's) and DescribeReplica to the offsets partitions' replicas it leads;
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
import { ErrorCode } from '../../src/protocol/errors.js';
import { replicaPath } from '../../src/protocol/cluster.js';
import { arrayOf, defineActor, objectOf, type ReplyToken } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { BrokerMsg } from '../broker/messages.js';
import type { ReplicaMsg } from '../partition-replica/messages.js';
import { DEFAULT_SHARE_GROUP_DEFAULTS } from '../share-partition/share-group-settings.js';
import type { TopicInfo } from './consumer-group.js';
import type { MigrationPolicy } from './group-conversion.js';
import { DEFAULT_OFFSETS_TOPIC_PARTITIONS, OFFSETS_TOPIC, type ConsumerTopicInfo, type CoordinatorDescription, type CoordinatorMsg } from './messages.js';
import { handleAppendDone, settleAppend, type PendingAppend } from './coordinator-appends.js';
import {
  handleDescribeGroups,
  handleHeartbeat,
  handleHeartbeatDeadline,
  handleJoinDeadline,
  handleJoinGroup,
  handleLeaveGroup,
  handlePendingMemberDeadline,
  handleSyncDeadline,
  handleSyncGroup,
} from './coordinator-classic.js';
import {
  failPending,
  handleConsumerClassicDeadline,
  handleConsumerGroupDescribe,
  handleConsumerGroupHeartbeat,
  handleConsumerRebalanceDeadline,
  handleConsumerRegexTopicsAuthorized,
  handleConsumerSessionDeadline,
  handleConsumerTopicsFetched,
  handleGroupVersionChanged,
  type PendingHeartbeat,
} from './coordinator-consumer.js';
import { dropGroup, handleDeleteGroups, handleListGroups, type GroupEntry, type OwnedPartition } from './coordinator-groups.js';
import { handleTopicsDeleted, housekeeping } from './coordinator-housekeeping.js';
import { handleBecomeCoordinator, handleLoadNext, handleLoadRead, handleResignCoordinator, recoverOwnership } from './coordinator-loading.js';
import { handleOffsetCommit, handleOffsetDelete, handleOffsetFetch, handleTxnMarkerWritten, handleTxnOffsetCommit, handleTxnOffsetCommitVerified } from './coordinator-offsets.js';
import { handleShareGroupDescribe, handleShareGroupHeartbeat, handleShareSessionDeadline, handleShareTopicsFetched, handleShareVersionChanged, type ShareTopicsWait } from './coordinator-share.js';

// the append error mappings and the TxnOffsetCommit verification error, for the tests that check them
export { commitErrorFor, consumerWriteErrorFor, groupStoreErrorFor } from './coordinator-appends.js';
export { txnOffsetCommitVerificationError } from './coordinator-offsets.js';

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

const HOUSEKEEPING_TIMER = 'housekeeping';

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

/** The topics of an OffsetCommit or TxnOffsetCommit, down to each partition's fields. */
const COMMITTED_TOPICS = arrayOf(objectOf({ name: 'string', partitions: arrayOf(objectOf({ partition: 'integer', offset: 'integer', leaderEpoch: 'integer?', metadata: 'string?' })) }));

export const groupCoordinator = defineActor<CoordinatorState, CoordinatorMsg, CoordinatorArgs>({
  kind: 'group-coordinator',
  // the group APIs; loading, appends, deadlines and the broker's notices are the cluster's
  clientMessages: {
    JoinGroup: true,
    SyncGroup: true,
    Heartbeat: true,
    LeaveGroup: true,
    DescribeGroups: true,
    ConsumerGroupHeartbeat: true,
    ConsumerGroupDescribe: true,
    ShareGroupHeartbeat: true,
    ShareGroupDescribe: true,
    OffsetCommit: true,
    TxnOffsetCommit: true,
    OffsetFetch: true,
    OffsetDelete: true,
    ListGroups: true,
    DeleteGroups: true,
    DescribeCoordinator: true,
  },
  // its own (timers, the answers of its asks) and its broker's (its parent): never another node's
  localMessages: [
    'BecomeCoordinator',
    'ResignCoordinator',
    'TopicsDeleted',
    'GroupConfigsChanged',
    'GroupVersionChanged',
    'ShareVersionChanged',
    'TxnMarkerWritten',
    'LoadRead',
    'LoadNext',
    'AppendDone',
    'TxnOffsetCommitVerified',
    'JoinDeadline',
    'SyncDeadline',
    'HeartbeatDeadline',
    'PendingMemberDeadline',
    'Housekeeping',
    'ConsumerTopicsFetched',
    'ConsumerRegexTopicsAuthorized',
    'ConsumerSessionDeadline',
    'ConsumerRebalanceDeadline',
    'ConsumerClassicDeadline',
    'ShareTopicsFetched',
    'ShareSessionDeadline',
  ],
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

  // every field a handler reads, down to the elements of its lists: any node can address the
  // coordinator, and a message that does not fit is refused before a handler sees it
  schema: {
    JoinGroup: {
      groupId: 'string',
      sessionTimeoutMs: 'integer',
      rebalanceTimeoutMs: 'integer',
      memberId: 'string',
      groupInstanceId: 'string?',
      protocolType: 'string',
      protocols: arrayOf(objectOf({ name: 'string', metadata: 'bytes' })),
      clientId: 'string?',
      clientHost: 'string?',
      requireKnownMemberId: 'boolean?',
      reason: 'string?',
      supportsSkippingAssignment: 'boolean?',
    },
    SyncGroup: {
      groupId: 'string',
      generationId: 'integer',
      memberId: 'string',
      groupInstanceId: 'string?',
      protocolType: 'string?',
      protocolName: 'string?',
      assignments: arrayOf(objectOf({ memberId: 'string', assignment: 'bytes' })),
    },
    Heartbeat: { groupId: 'string', generationId: 'integer', memberId: 'string', groupInstanceId: 'string?' },
    LeaveGroup: { groupId: 'string', members: arrayOf(objectOf({ memberId: 'string', groupInstanceId: 'string?', reason: 'string?' })) },
    OffsetCommit: { groupId: 'string', generationId: 'integer', memberId: 'string', groupInstanceId: 'string?', retentionTimeMs: 'integer?', topics: COMMITTED_TOPICS, apiVersion: 'integer?' },
    OffsetFetch: { groupId: 'string', topics: arrayOf(objectOf({ name: 'string', partitions: arrayOf('integer') }), { optional: true }), requireStable: 'boolean?', memberId: 'string?', memberEpoch: 'integer?' },
    ConsumerGroupHeartbeat: {
      groupId: 'string',
      memberId: 'string',
      memberEpoch: 'integer',
      instanceId: 'string?',
      rackId: 'string?',
      rebalanceTimeoutMs: 'integer',
      subscribedTopicNames: arrayOf('string', { optional: true }),
      subscribedTopicRegex: 'string?',
      serverAssignor: 'string?',
      topicPartitions: arrayOf(objectOf({ topicId: 'string', partitions: arrayOf('integer') }), { optional: true }),
      clientId: 'string?',
      clientHost: 'string?',
      topicAuthorizer: 'object?',
    },
    ConsumerGroupDescribe: { groups: arrayOf('string') },
    ShareGroupHeartbeat: { groupId: 'string', memberId: 'string', memberEpoch: 'integer', rackId: 'string?', subscribedTopicNames: arrayOf('string', { optional: true }), clientId: 'string?', clientHost: 'string?' },
    ShareGroupDescribe: { groups: arrayOf('string') },
    GroupVersionChanged: { level: 'integer' },
    ShareVersionChanged: { level: 'integer' },
    GroupConfigsChanged: { configs: 'object' },
    TopicsDeleted: { topics: arrayOf('string') },
    TxnOffsetCommit: {
      transactionalId: 'string',
      groupId: 'string',
      producerId: 'integer',
      producerEpoch: 'integer',
      generationId: 'integer',
      memberId: 'string',
      groupInstanceId: 'string?',
      topics: COMMITTED_TOPICS,
      transactionV2: 'boolean?',
    },
    TxnMarkerWritten: { partition: 'integer', producerId: 'integer', commit: 'boolean' },
    ListGroups: { statesFilter: arrayOf('string', { optional: true }), typesFilter: arrayOf('string', { optional: true }) },
    DescribeGroups: { groups: arrayOf('string') },
    DeleteGroups: { groups: arrayOf('string') },
    OffsetDelete: { groupId: 'string', topics: arrayOf(objectOf({ name: 'string', partitions: arrayOf('integer') })) },
    BecomeCoordinator: { partition: 'integer', leaderEpoch: 'integer', numPartitions: 'integer?' },
    ResignCoordinator: { partition: 'integer', leaderEpoch: 'integer' },
  },

  handlers: {
    // classic groups (coordinator-classic.ts)
    JoinGroup: handleJoinGroup,
    SyncGroup: handleSyncGroup,
    Heartbeat: handleHeartbeat,
    LeaveGroup: handleLeaveGroup,
    DescribeGroups: handleDescribeGroups,
    JoinDeadline: handleJoinDeadline,
    SyncDeadline: handleSyncDeadline,
    HeartbeatDeadline: handleHeartbeatDeadline,
    PendingMemberDeadline: handlePendingMemberDeadline,

    // KIP-848 consumer groups (coordinator-consumer.ts)
    ConsumerGroupHeartbeat: handleConsumerGroupHeartbeat,
    ConsumerGroupDescribe: handleConsumerGroupDescribe,
    ConsumerTopicsFetched: handleConsumerTopicsFetched,
    ConsumerRegexTopicsAuthorized: handleConsumerRegexTopicsAuthorized,
    ConsumerSessionDeadline: handleConsumerSessionDeadline,
    ConsumerRebalanceDeadline: handleConsumerRebalanceDeadline,
    ConsumerClassicDeadline: handleConsumerClassicDeadline,
    GroupVersionChanged: handleGroupVersionChanged,

    // KIP-932 share groups (coordinator-share.ts)
    ShareGroupHeartbeat: handleShareGroupHeartbeat,
    ShareGroupDescribe: handleShareGroupDescribe,
    ShareTopicsFetched: handleShareTopicsFetched,
    ShareSessionDeadline: handleShareSessionDeadline,
    ShareVersionChanged: handleShareVersionChanged,

    // committed offsets (coordinator-offsets.ts)
    OffsetCommit: handleOffsetCommit,
    TxnOffsetCommit: handleTxnOffsetCommit,
    TxnOffsetCommitVerified: handleTxnOffsetCommitVerified,
    TxnMarkerWritten: handleTxnMarkerWritten,
    OffsetFetch: handleOffsetFetch,
    OffsetDelete: handleOffsetDelete,

    // groups of every kind (coordinator-groups.ts)
    ListGroups: handleListGroups,
    DeleteGroups: handleDeleteGroups,

    GroupConfigsChanged(s, m, ctx) {
      // members take a changed session timeout from their next heartbeat on, and are told the interval in its answer (as Kafka)
      s.groupConfigs = new Map(Object.entries(m.configs).filter(([, c]) => typeof c === 'object' && c !== null));
      ctx.log.debug('group configs changed', { groups: s.groupConfigs.size });
    },

    // the offsets partitions (coordinator-loading.ts, coordinator-appends.ts, coordinator-housekeeping.ts)
    BecomeCoordinator: handleBecomeCoordinator,
    ResignCoordinator: handleResignCoordinator,
    LoadRead: handleLoadRead,
    LoadNext: handleLoadNext,
    AppendDone: handleAppendDone,
    TopicsDeleted: handleTopicsDeleted,

    Housekeeping(s, _m, ctx) {
      housekeeping(s, ctx);
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


