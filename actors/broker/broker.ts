/**
 * The broker: one per broker id, at brokerPath(id) on its node. Its partition replicas and
 * replica fetchers are its children (addressed directly by path, never relayed through it).
 *
 * Owned state: its log dirs (LogDirs: one LogManager per dir, Kafka's log.dirs, with the throttle
 * its moves between dirs share, replica.alter.log.dirs.io.max.bytes.per.second) and the replicas
 * offline because their dir failed (reported in every heartbeat); registration status and broker epoch, and the
 * epoch of its last clean shutdown (the log dirs' clean shutdown markers, read at start and sent as
 * previousBrokerEpoch in BrokerRegistration; after a ControlledShutdown the markers written as the logs close
 * hold the epoch, KIP-966); the last
 * controller epoch seen; the metadata cache; the replicas it hosts; one replica fetcher per
 * leader broker it follows; the fetch purgatory; its group coordinator (a child, at
 * coordinatorPath(id)), its transaction coordinator (a child, at txnCoordinatorPath(id)) and its
 * share coordinator (a child, at shareCoordinatorPath(id), KIP-932), and when it last asked for
 * __consumer_offsets, __transaction_state and __share_group_state to be created; its block of
 * producer ids and the InitProducerId requests waiting for one (its transaction coordinator's too);
 * the client instances of samsa's clients that ask it for telemetry subscriptions (KIP-714).
 * Handles: LeaderAndIsrRequest, StopReplicaRequest, UpdateMetadataRequest (controller epoch
 * checked; sets stray logs aside: on disk here, used by no replica, not placed here), Metadata,
 * Produce (batches for several partitions, handed to their replicas; a transactional producer's
 * verified with its transaction coordinator first, KIP-890, txn-verification.ts; a partition
 * named by a topic id its topic no longer has is not written), Fetch (consumers and
 * followers, long-poll; consumers with client metadata read from followers too, KIP-392),
 * FindCoordinator (groups, transactional ids and share partitions' state), InitProducerId, VerifyTransaction (its group
 * coordinator's TxnOffsetCommit, KIP-890), WriteTxnMarkers (transaction
 * markers, written by the replicas led here; one on __consumer_offsets is told to the group
 * coordinator, TxnMarkerWritten), PartitionAdvanced, ControlledShutdown, DescribeBroker,
 * DescribeLogDirs (each of its log dirs: each partition log's size and offset lag, a move's copy
 * as a future log, the volume's total and usable bytes; a failed dir with KAFKA_STORAGE_ERROR),
 * LogDirFailed (a dir's I/O error: its replicas stop and go offline; as Kafka, with a dir offline a
 * log not found for a partition that is not new is not made afresh elsewhere: that replica is
 * offline too), AlterReplicaLogDirs (each replica named
 * asked to move its log, answered once the moves have begun; a partition not hosted gets
 * REPLICA_NOT_AVAILABLE and its dir is kept for when it comes), DescribeConfigs (every broker key, its value in force and its source),
 * DescribeLoggers and AlterLoggers (its node's named loggers and their levels, Kafka's BROKER_LOGGER configs),
 * GetTelemetrySubscriptions and PushTelemetry from samsa's clients (KIP-714, telemetry-requests.ts: the
 * Kafka listener's checks; the pushes to its telemetry receiver, client.telemetry.receiver), and its
 * internal Register/Heartbeat/FetchReadDone/FetchExpired/InternalTopicRequested/ProducerIdsAllocated.
 * Emits: BrokerRegistration, BrokerHeartbeat, ControlledShutdown, CreateTopics
 * (__consumer_offsets, __transaction_state, __share_group_state), AllocateProducerIds to the controller; BecomeLeaderOrFollower, ReplicaRead, WriteTxnMarker, StopReplica to
 * replicas; AlterLogDir to replicas (AlterReplicaLogDirs); StartTxnVerification to replicas and VerifyPartitionsInTxn to transaction
 * coordinators (transactional produces); AddPartitions and RemovePartitions to fetchers; BecomeCoordinator and
 * ResignCoordinator, GroupVersionChanged (the finalized group.version), ShareVersionChanged (share.version, to the share partition manager too), GroupConfigsChanged and
 * TopicsDeleted (topics gone from the metadata, or there under another id) to its group coordinator; BecomeTxnCoordinator and ResignTxnCoordinator to its
 * transaction coordinator; BecomeShareCoordinator and ResignShareCoordinator to its share coordinator; AclsChanged, ClientQuotasChanged, ConnectionLimitsChanged, ScramCredentialsChanged and DelegationTokensChanged to its Kafka listener
 * (when the cluster's ACLs or client quotas change); FetchResponse, MetadataResponse,
 * FindCoordinatorResponse, InitProducerIdResult, LogDirsDescription, ReplicaLogDirsAltered, BrokerConfigsDescription,
 * BrokerLoggersDescription, BrokerLoggersAltered, GetTelemetrySubscriptionsResponse, PushTelemetryResponse;
 * ClientTelemetryPush to its telemetry receiver.
 */
import fs from 'node:fs';
import path from 'node:path';
import { nanoid } from 'nanoid';
import { entryBatches } from '../../src/protocol/batch-parts.js';
import { NO_LEADER, brokerPath, replicaPath, type ClusterMetadata } from '../../src/protocol/cluster.js';
import { ErrorCode, errorName } from '../../src/protocol/errors.js';
import { finalizedLevel, GROUP_VERSION, METADATA_VERSION, SHARE_VERSION, TRANSACTION_VERSION } from '../../src/protocol/features.js';
import { FETCH_HIGH_WATERMARK_METADATA_VERSION } from '../../src/protocol/metadata-version.js';
import type { BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import { arrayOf, defineActor, objectOf } from '../../src/runtime/actor-definition.js';
import type { ActorRef, PayloadHold } from '../../src/runtime/types.js';
import { isFailure, type Failure } from '../../src/runtime/types.js';
import { LogDirs } from '../../src/storage/log-dirs.js';
import type { ControllerMsg, ControllerReply } from '../controller/messages.js';
import type { ScramCredentialEntry } from '../controller/scram-credentials.js';
import type { TokenAuthEntry } from '../controller/delegation-tokens.js';
import { kafkaListenerName, type KafkaListenerMsg } from '../kafka-listener/messages.js';
import { RateQuota } from '../../src/runtime/rate-quota.js';
import { followerThrottles, recordThrottledSent, throttlesFor, withholdThrottled, type Throttles } from './replication-throttles.js';
import { groupCoordinator, offsetsTopicConfig } from '../group-coordinator/coordinator.js';
import { OFFSETS_TOPIC, offsetsPartitionFor, type CoordinatorMsg, type FindCoordinatorResponse } from '../group-coordinator/messages.js';
import { transactionStateTopicConfig, txnCoordinator } from '../txn-coordinator/coordinator.js';
import { TRANSACTION_STATE_TOPIC, transactionStatePartitionFor, txnCoordinatorPath, type TxnCoordinatorMsg } from '../txn-coordinator/messages.js';
import { shareCoordinator, shareGroupStateTopicConfig } from '../share-coordinator/coordinator.js';
import { shareManager } from '../share-partition/manager.js';
import { sharePartitionManagerPath, type ShareManagerMsg, type SharePartitionRef } from '../share-partition/messages.js';
import { SHARE_GROUP_STATE_TOPIC, parseShareCoordinatorKey, shareStatePartitionFor, type ShareCoordinatorMsg } from '../share-coordinator/messages.js';
import type { LogDirAltered, ProduceResponse, ReplicaMsg, ReplicaReadResult } from '../partition-replica/messages.js';
import { RACK_AWARE_REPLICA_SELECTOR } from '../partition-replica/read-replica-selector.js';
import { NO_GUARD } from '../partition-replica/txn-verification.js';
import { partitionReplica } from '../partition-replica/replica.js';
import { compressionLevelsOf, parseBrokerConfig, type BrokerConfig } from './broker-config.js';
import { alterBrokerLoggers, describeBrokerLoggers } from './broker-loggers.js';
import { brokerConfigEntries } from './config-entries.js';
import { pushTelemetry, telemetrySubscriptions } from './telemetry-requests.js';
import { clientTelemetryFor, type ClientTelemetry } from '../../src/kafka/client-telemetry.js';
import { LEADER_AND_ISR_PARTITION, LIVE_LEADER, type LeaderAndIsrPartition } from './control-messages.js';
import { FetchPurgatory, followerHighWatermarkMoved, partitionKey, type PendingFetch } from './delayed-fetch.js';
import type {
  BrokerConfigsDescription,
  BrokerDescription,
  BrokerMsg,
  BrokerProduceResponse,
  BrokerStatus,
  FetchPartition,
  FetchPartitionResult,
  FetchResponse,
  InitProducerIdResult,
  LogDirDescription,
  ReplicaLogDirsAltered,
  LogDirsDescription,
  MetadataResponse,
  ProducePartitionResult,
  TxnMarkerEntry,
  TransactionVerification,
  WriteTxnMarkersResponse,
} from './messages.js';
import type { MigrationPolicy } from '../group-coordinator/group-conversion.js';
import { replicaFetcher, type FetcherMsg, type FetcherPartition } from './replica-fetcher.js';
import {
  abortableProducerFacingError,
  producerFacingError,
  rawError,
  transactionalProducerOfRequest,
  verifyTransactionalPartitions,
  type Verdict,
  type VerificationEnv,
} from './txn-verification.js';

export interface BrokerArgs {
  brokerId: number;
  clusterId: string;
  controller: ActorRef<ControllerMsg>;
  /** The broker's one log dir (Kafka's log.dir); give this or logDirs. */
  logDir?: string;
  /** The broker's log dirs (Kafka's log.dirs, JBOD); give this or logDir. */
  logDirs?: string[];
  rack?: string | null;
  /** 'host:port' where clients can reach this broker's node directly (advertised in metadata). */
  endpoint?: string | null;
  /** 'host:port' of this broker's Kafka-protocol listener (advertised in metadata), when it has one. */
  kafkaEndpoint?: string | null;
  /** Broker config with Kafka's names (replica.lag.time.max.ms, log.retention.ms, ...). */
  config?: Record<string, unknown>;
}

interface HostedReplica {
  topic: string;
  partition: number;
  /** The topic's id as the last LeaderAndIsr named it. */
  topicId: string;
  ref: ActorRef<ReplicaMsg>;
  leader: number;
  leaderEpoch: number;
}

interface FetcherHandle {
  ref: ActorRef<FetcherMsg>;
  leaderNode: string;
  partitions: Set<string>;
}

export interface BrokerState {
  args: BrokerArgs;
  /** The node this broker runs on (its replicas and fetchers live there too). */
  node: string;
  config: BrokerConfig;
  logs: LogDirs;
  status: BrokerStatus;
  incarnationId: string;
  /** The broker epoch of its last clean shutdown (clean-shutdown.ts), -1 when it did not shut down cleanly. */
  previousBrokerEpoch: number;
  brokerEpoch: number;
  controllerEpoch: number;
  metadata: ClusterMetadata | null;
  replicas: Map<string, HostedReplica>;
  /**
   * topic-partition -> its replica here is offline: its log dir failed, or (a dir being offline)
   * its log was not found for a partition not new. Reported to the controller in every heartbeat.
   */
  offlinePartitions: Map<string, { topic: string; partition: number }>;
  fetchers: Map<number, FetcherHandle>;
  leaderNodes: Map<number, string>;
  /** The finalized group.version last told to the coordinator (null: none yet). */
  groupVersionTold: number | null;
  /** The finalized share.version last told to the group coordinator and the share partition manager. */
  shareVersionTold: number | null;
  /** The group configs last sent to the coordinator (as JSON), to tell it only of changes. */
  groupConfigsTold: string;
  fetches: FetchPurgatory;
  /** When the armed fetch-expiry timer fires (valid while it is active). */
  fetchExpiryDue: number;
  /** Parked fetches answered from a replica's wake-up without reading again (see answerFromAdvance). */
  fetchesAnsweredOnAdvance: number;
  coordinator: ActorRef<CoordinatorMsg>;
  txnCoordinator: ActorRef<TxnCoordinatorMsg>;
  shareCoordinator: ActorRef<ShareCoordinatorMsg>;
  /** The share partition manager child (KIP-932). */
  shareManager: ActorRef<ShareManagerMsg>;
  /** When this broker last asked the controller to create __consumer_offsets / __transaction_state / __share_group_state (absent: never). */
  internalTopicRequestedAtMs: Map<string, number>;
  /** Producer ids of this broker's current block from the controller: [next, end). */
  producerIds: { next: number; end: number };
  /** InitProducerId requests waiting for a new block (one AllocateProducerIds in flight). */
  producerIdWaiters: ReplyToken[];
  /** The ACLs and client quotas last handed to the Kafka listener beside this broker (JSON; null: none yet). */
  listenerSent: { acls: string | null; quotas: string | null; scram: string | null; tokens: string | null; limits: string | null };
  /** The dynamic broker configs in force (this broker's over the cluster defaults), as JSON. */
  dynamicConfig: string;
  /** The replication throttles the topic configs set on this broker (null: none, the usual case). */
  throttles: Throttles | null;
  /** leader.replication.throttled.rate: bytes sent to throttled followers. */
  leaderQuota: RateQuota;
  /** follower.replication.throttled.rate: bytes fetched for throttled replicas here. */
  followerQuota: RateQuota;
  /** KIP-714: the client instances of samsa's clients that ask for telemetry subscriptions here; null without a telemetry receiver. */
  telemetry: ClientTelemetry | null;
}

const HEARTBEAT_TIMER = 'heartbeat';
/** The coordinators' names under the broker: their paths are coordinatorPath(brokerId), txnCoordinatorPath(brokerId) and shareCoordinatorPath(brokerId). */
const COORDINATOR_NAME = 'group-coordinator';
const TXN_COORDINATOR_NAME = 'txn-coordinator';
const SHARE_COORDINATOR_NAME = 'share-coordinator';
const SHARE_MANAGER_NAME = 'share-partitions';
/** FindCoordinator asks the controller for __consumer_offsets, __transaction_state or __share_group_state at most this often. */
const INTERNAL_TOPIC_REQUEST_INTERVAL_MS = 5_000;
const REGISTER_TIMER = 'register';
const EMPTY = new Uint8Array(0);

function emptyMetadata(s: BrokerState): ClusterMetadata {
  return { clusterId: s.args.clusterId, controllerNode: s.args.controller.node, controllerEpoch: s.controllerEpoch, brokers: [], topics: [] };
}

/**
 * Runs with the dynamic broker configs in the metadata (this broker's over the cluster-wide
 * defaults, over its topology config) when they changed: the log manager's defaults, and every
 * replica's defaults for topics without their own values.
 */
function applyDynamicConfig(s: BrokerState, ctx: BaseContext<BrokerMsg>, md: ClusterMetadata): void {
  const dynamic = { ...(md.brokerConfigs?.[''] ?? {}), ...(md.brokerConfigs?.[String(s.args.brokerId)] ?? {}) };
  const key = JSON.stringify(Object.entries(dynamic).sort());
  if (key === s.dynamicConfig) return;
  let config: BrokerConfig;
  try {
    config = parseBrokerConfig({ ...(s.args.config ?? {}), ...dynamic });
  } catch (err) {
    ctx.log.error('dynamic broker config not applied', { reason: (err as Error).message, dynamic });
    return;
  }
  s.dynamicConfig = key;
  s.config = config;
  s.logs.setDefaults(config.log);
  s.logs.setCleanerSettings({ backoffMs: config.logCleanerBackoffMs, dedupeBufferBytes: config.logCleanerDedupeBufferSize });
  s.leaderQuota.setLimit(config.leaderReplicationThrottledRate);
  s.followerQuota.setLimit(config.followerReplicationThrottledRate);
  // before the replicas are told: one whose move waits out the throttle looks at it again
  s.logs.setMoveThrottle(config.replicaAlterLogDirsIoMaxBytesPerSecond);
  for (const rep of s.replicas.values()) {
    ctx.send(rep.ref, { type: 'BrokerDefaultsChanged', minInsyncReplicas: config.minInsyncReplicas, compressionType: config.compressionType, producerIdExpirationMs: config.producerIdExpirationMs, compressionLevels: compressionLevelsOf(config) });
  }
  ctx.log.info('dynamic broker configs in force', { dynamic });
}

/**
 * The Kafka listener beside this broker authorizes with the cluster's ACLs, enforces its client
 * quotas and this broker's connection limits: each is sent when it changed (and with the first
 * metadata).
 */
function tellListener(s: BrokerState, ctx: BaseContext<BrokerMsg>, md: ClusterMetadata, scramCredentials: ScramCredentialEntry[] | undefined, delegationTokens: TokenAuthEntry[] | undefined): void {
  const listener: ActorRef<KafkaListenerMsg> = { node: ctx.nodeId, path: `/${kafkaListenerName(s.args.brokerId)}` };
  const acls = md.acls ?? [];
  const aclsKey = JSON.stringify(acls);
  if (aclsKey !== s.listenerSent.acls) {
    s.listenerSent.acls = aclsKey;
    ctx.send(listener, { type: 'AclsChanged', acls });
  }
  const quotas = md.clientQuotas ?? [];
  const quotasKey = JSON.stringify(quotas);
  if (quotasKey !== s.listenerSent.quotas) {
    s.listenerSent.quotas = quotasKey;
    ctx.send(listener, { type: 'ClientQuotasChanged', quotas });
  }
  // its connection limits, as the dynamic broker configs over the topology's set them
  const limits = {
    maxConnections: s.config.maxConnections,
    maxConnectionsPerIp: s.config.maxConnectionsPerIp,
    maxConnectionsPerIpOverrides: [...s.config.maxConnectionsPerIpOverrides],
    maxConnectionCreationRate: s.config.maxConnectionCreationRate,
  };
  const limitsKey = JSON.stringify(limits);
  if (limitsKey !== s.listenerSent.limits) {
    s.listenerSent.limits = limitsKey;
    ctx.send(listener, { type: 'ConnectionLimitsChanged', ...limits });
  }
  if (scramCredentials) {
    const scramKey = JSON.stringify(scramCredentials);
    if (scramKey !== s.listenerSent.scram) {
      s.listenerSent.scram = scramKey;
      ctx.send(listener, { type: 'ScramCredentialsChanged', credentials: scramCredentials });
    }
  }
  if (delegationTokens) {
    const tokensKey = JSON.stringify(delegationTokens);
    if (tokensKey !== s.listenerSent.tokens) {
      s.listenerSent.tokens = tokensKey;
      ctx.send(listener, { type: 'DelegationTokensChanged', tokens: delegationTokens });
    }
  }
}

function isStale(s: BrokerState, ctx: BaseContext<BrokerMsg>, controllerEpoch: number, what: string): boolean {
  if (controllerEpoch < s.controllerEpoch) {
    ctx.log.warn('ignoring a request from a stale controller', { request: what, controllerEpoch, current: s.controllerEpoch, errorCode: ErrorCode.STALE_CONTROLLER_EPOCH });
    return true;
  }
  s.controllerEpoch = controllerEpoch;
  return false;
}

function errorResult(fp: FetchPartition, errorCode: number, errorMessage: string): FetchPartitionResult {
  return {
    topic: fp.topic,
    partition: fp.partition,
    errorCode,
    errorMessage,
    highWatermark: -1,
    logStartOffset: -1,
    logEndOffset: -1,
    records: EMPTY,
  };
}

/**
 * A partition named by topic id (Kafka's Fetch v13+ and Produce v13+) whose topic is no longer
 * the one with that id: UNKNOWN_TOPIC_ID when no topic of its name has it here, INCONSISTENT_TOPIC_ID
 * when the replica here belongs to another topic of that name; null when it is that topic's (or
 * the partition was named by name).
 */
function topicIdError(s: BrokerState, p: { topic: string; partition: number; topicId?: string }): { errorCode: number; errorMessage: string } | null {
  if (p.topicId === undefined) return null;
  const rep = s.replicas.get(partitionKey(p.topic, p.partition));
  if (rep?.topicId === p.topicId) return null;
  if (!s.metadata?.topics.some((t) => t.name === p.topic && t.topicId === p.topicId)) {
    return { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: `broker ${s.args.brokerId} knows no topic ${p.topic} with that id` };
  }
  if (rep) return { errorCode: ErrorCode.INCONSISTENT_TOPIC_ID, errorMessage: `the replica of ${p.topic}-${p.partition} here belongs to another topic of that name` };
  return null;
}

/** A partition's answer to a Produce without a write (an error, or acks 0's nothing to wait for). */
function resultWithoutWrite(pp: { topic: string; partition: number }, errorCode: number, errorMessage: string): ProducePartitionResult {
  return { topic: pp.topic, partition: pp.partition, errorCode, errorMessage, baseOffset: -1, logAppendTime: -1, logStartOffset: -1 };
}

/** Whether the metadata has the partition (its topic, with that many partitions). */
function partitionKnown(s: BrokerState, topic: string, partition: number): boolean {
  return !!s.metadata?.topics.some((t) => t.name === topic && t.partitions.some((p) => p.partition === partition));
}

/**
 * Kafka's answer for a partition this broker runs no replica of: KAFKA_STORAGE_ERROR when its
 * replica here is offline (its log dir failed), NOT_LEADER_OR_FOLLOWER when the partition exists,
 * UNKNOWN_TOPIC_OR_PARTITION otherwise (an unknown topic, or a partition its topic does not
 * have), as Kafka's ReplicaManager.getPartitionOrError.
 */
function noReplicaError(s: BrokerState, topic: string, partition: number): { errorCode: number; errorMessage: string } {
  if (s.offlinePartitions.has(partitionKey(topic, partition))) {
    return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: `the replica of ${topic}-${partition} on broker ${s.args.brokerId} is offline: its log dir failed` };
  }
  const errorCode = partitionKnown(s, topic, partition) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  return { errorCode, errorMessage: `broker ${s.args.brokerId} hosts no replica of ${topic}-${partition}` };
}

/** The code for an ask of a local replica that failed: its actor gone (stopped meanwhile) is as no replica of a known topic. */
function replicaAskError(s: BrokerState, topic: string, partition: number, r: Failure): { errorCode: number; errorMessage: string } {
  if (r.reason !== 'unknown-actor' && r.reason !== 'actor-stopped') return { errorCode: r.errorCode, errorMessage: r.message };
  if (s.offlinePartitions.has(partitionKey(topic, partition))) return noReplicaError(s, topic, partition);
  return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: r.message };
}

/** A partition transaction verification found no replica of here: NOT_LEADER_OR_FOLLOWER, or KAFKA_STORAGE_ERROR for an offline one. */
function unverifiedError(s: BrokerState, topic: string, partition: number): { errorCode: number; errorMessage: string } {
  const e = noReplicaError(s, topic, partition);
  return e.errorCode === ErrorCode.KAFKA_STORAGE_ERROR ? e : { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: e.errorMessage };
}

const FETCH_EXPIRY_TIMER = 'fetch-expiry';

function armFetchExpiry(s: BrokerState, ctx: BaseContext<BrokerMsg>, due: number): void {
  s.fetchExpiryDue = due;
  ctx.timers.startSingle(FETCH_EXPIRY_TIMER, Math.max(0, due - ctx.clock.now()), { type: 'FetchExpired' });
}

/** Reads every partition of a pending fetch from the local replicas; answers with FetchReadDone. */
function startRead(s: BrokerState, ctx: BaseContext<BrokerMsg>, p: PendingFetch): void {
  p.reading = true;
  p.dirty = false;
  const reads = p.req.partitions.map((fp): Promise<FetchPartitionResult> => {
    const rep = s.replicas.get(partitionKey(fp.topic, fp.partition));
    const idError = topicIdError(s, fp);
    if (idError) return Promise.resolve(errorResult(fp, idError.errorCode, idError.errorMessage));
    if (!rep) {
      const e = noReplicaError(s, fp.topic, fp.partition);
      return Promise.resolve(errorResult(fp, e.errorCode, e.errorMessage));
    }
    const read: Extract<ReplicaMsg, { type: 'ReplicaRead' }> = {
      type: 'ReplicaRead',
      replicaId: p.req.replicaId,
      fetchOffset: fp.fetchOffset,
      maxBytes: fp.partitionMaxBytes,
      currentLeaderEpoch: fp.currentLeaderEpoch,
      lastFetchedEpoch: fp.lastFetchedEpoch ?? -1,
      watch: !p.expired,
      fetchId: p.id,
      watchUntil: p.deadline,
    };
    if (p.req.clientRack !== undefined) read.clientRack = p.req.clientRack;
    if (p.req.replicaId >= 0 && fp.logStartOffset !== undefined && fp.logStartOffset >= 0) read.replicaLogStartOffset = fp.logStartOffset;
    if (p.req.replicaId >= 0 && fp.highWatermark !== undefined) read.replicaHighWatermark = fp.highWatermark;
    if (p.req.isolationLevel === 'read_committed' && p.req.replicaId < 0) read.readCommitted = true;
    return ctx
      .ask<ReplicaReadResult>(rep.ref, read, { timeoutMs: s.config.requestTimeoutMs })
      .then((r): FetchPartitionResult => {
        if (isFailure(r)) {
          // a replica gone meanwhile, or one that did not answer in time: the client looks again
          const e = replicaAskError(s, fp.topic, fp.partition, r);
          return errorResult(fp, e.errorCode === ErrorCode.KAFKA_STORAGE_ERROR ? e.errorCode : ErrorCode.NOT_LEADER_OR_FOLLOWER, e.errorMessage);
        }
        const { type: _type, ...read } = r;
        return { topic: fp.topic, partition: fp.partition, ...read };
      });
  });
  void Promise.all(reads).then((results) => ctx.send(ctx.self, { type: 'FetchReadDone', fetchId: p.id, results }));
}

/**
 * Answers a parked fetch from the read its replica did again when the partition advanced, with
 * the other partitions as its last read found them (nothing, or too little), when that is
 * enough for minBytes, or a follower's whose high watermark is now behind (KIP-1166). False when
 * it is not, or the replica sent no read for this fetch.
 */
function answerFromAdvance(s: BrokerState, ctx: BaseContext<BrokerMsg>, p: PendingFetch, m: Extract<BrokerMsg, { type: 'PartitionAdvanced' }>): boolean {
  const last = p.lastResults;
  if (!m.reads || !last || p.expired) return false;
  const fresh = m.reads.find((r) => r.fetchId === p.id);
  if (!fresh) return false;
  let found = false;
  let results = last.map((r) => {
    if (r.topic !== m.topic || r.partition !== m.partition) return r;
    found = true;
    return { topic: r.topic, partition: r.partition, ...fresh.result };
  });
  if (!found) return false;
  if (p.req.replicaId >= 0 && s.throttles) results = withholdThrottled(s.throttles, s.leaderQuota, p.req.replicaId, results);
  let bytes = 0;
  for (const r of results) bytes += r.records.length;
  if (bytes < p.req.minBytes && !followerHighWatermarkMoved(p.req, results)) return false;
  s.fetchesAnsweredOnAdvance++;
  respond(s, ctx, p, results);
  return true;
}

/** Answers a fetch, keeping the response within maxBytes (the first partition with data always fits). */
function respond(s: BrokerState, ctx: BaseContext<BrokerMsg>, p: PendingFetch, results: FetchPartitionResult[]): void {
  s.fetches.remove(p.id);
  if (s.fetches.size === 0) ctx.timers.cancel(FETCH_EXPIRY_TIMER);
  let total = 0;
  const partitions = results.map((r) => {
    if (r.records.length === 0) return r;
    if (total > 0 && total + r.records.length > p.req.maxBytes) {
      // a copy, then the field set: `{ ...r, records: EMPTY }` is the spread-then-more shape that
      // kept its results alive through young collections on Node 20 (README.md, design notes)
      const trimmed = { ...r };
      trimmed.records = EMPTY;
      return trimmed;
    }
    total += r.records.length;
    return r;
  });
  if (p.req.replicaId >= 0 && s.throttles) recordThrottledSent(s.throttles, s.leaderQuota, p.req.replicaId, partitions);
  if (p.token) ctx.replyTo(p.token, { type: 'FetchResponse', errorCode: ErrorCode.NONE, partitions } satisfies FetchResponse);
}

function fetcherArgs(s: BrokerState, leaderId: number, leaderNode: string) {
  const c = s.config;
  const me = s.args.brokerId;
  return {
    brokerId: me,
    leaderId,
    leader: { node: leaderNode, path: brokerPath(leaderId) } as ActorRef<BrokerMsg>,
    replicaRef: (topic: string, partition: number): ActorRef<ReplicaMsg> => ({ node: s.node, path: replicaPath(me, topic, partition) }),
    maxWaitMs: c.replicaFetchWaitMaxMs,
    minBytes: c.replicaFetchMinBytes,
    partitionMaxBytes: c.replicaFetchMaxBytes,
    responseMaxBytes: c.replicaFetchResponseMaxBytes,
    backoffMs: c.replicaFetchBackoffMs,
    requestTimeoutMs: c.requestTimeoutMs,
    throttle: { quota: s.followerQuota, throttled: (topic: string, partition: number) => followerThrottles(s.throttles, topic, partition, me) },
    // as Kafka's replica fetcher sends Fetch v18 from the finalized metadata.version 4.1-IV1 on (KIP-1166)
    sendHighWatermark: () => finalizedLevel(s.metadata?.features, METADATA_VERSION) >= FETCH_HIGH_WATERMARK_METADATA_VERSION,
  };
}

function removeFromFetchers(s: BrokerState, ctx: BaseContext<BrokerMsg>, topic: string, partition: number): void {
  const k = partitionKey(topic, partition);
  for (const f of s.fetchers.values()) {
    if (f.partitions.delete(k)) ctx.send(f.ref, { type: 'RemovePartitions', partitions: [{ topic, partition }] });
  }
}

function addToFetcher(s: BrokerState, ctx: BaseContext<BrokerMsg>, leaderId: number, fp: FetcherPartition): void {
  const leaderNode = s.leaderNodes.get(leaderId) ?? s.metadata?.brokers.find((b) => b.brokerId === leaderId)?.node;
  if (!leaderNode) {
    ctx.log.warn('no known node for leader: cannot follow', { leaderId, topic: fp.topic, partition: fp.partition });
    return;
  }
  let f = s.fetchers.get(leaderId);
  if (f && f.leaderNode !== leaderNode) {
    ctx.stop(f.ref);
    s.fetchers.delete(leaderId);
    f = undefined;
  }
  if (!f) {
    const ref = ctx.spawn(replicaFetcher, { name: `fetcher-${leaderId}-${nanoid(6)}`, args: fetcherArgs(s, leaderId, leaderNode) });
    f = { ref, leaderNode, partitions: new Set() };
    s.fetchers.set(leaderId, f);
  }
  f.partitions.add(partitionKey(fp.topic, fp.partition));
  ctx.send(f.ref, { type: 'AddPartitions', partitions: [fp] });
}

/** One partition's marker, written by its replica here (the leader). */
function writeTxnMarker(s: BrokerState, ctx: BaseContext<BrokerMsg>, mk: TxnMarkerEntry, topic: string, partition: number, timeoutMs: number): Promise<{ partition: number; errorCode: number; errorMessage: string | null }> {
  const rep = s.replicas.get(partitionKey(topic, partition));
  if (!rep) return Promise.resolve({ partition, ...noReplicaError(s, topic, partition) });
  const msg: ReplicaMsg = { type: 'WriteTxnMarker', producerId: mk.producerId, producerEpoch: mk.producerEpoch, coordinatorEpoch: mk.coordinatorEpoch, commit: mk.commit, timeoutMs };
  if (mk.transactionVersion !== undefined) msg.transactionVersion = mk.transactionVersion;
  return ctx.ask<ProduceResponse>(rep.ref, msg, { timeoutMs: timeoutMs + 5_000 }).then((r) => {
    if (isFailure(r)) return { partition, ...replicaAskError(s, topic, partition, r) };
    // offsets a transaction committed (TxnOffsetCommit) count, or go, with its marker
    if (r.errorCode === ErrorCode.NONE && topic === OFFSETS_TOPIC) ctx.send(s.coordinator, { type: 'TxnMarkerWritten', partition, producerId: mk.producerId, commit: mk.commit });
    return { partition, errorCode: r.errorCode, errorMessage: r.errorMessage };
  });
}

/**
 * The coordinator whose internal topic `topic` is (the group coordinator's __consumer_offsets,
 * the transaction coordinator's __transaction_state, the share coordinator's
 * __share_group_state) is told this broker now leads (`leads`) or no longer leads its
 * `partition`; the topic's partition count goes with a takeover. Other topics: nothing.
 */
function tellCoordinator(s: BrokerState, ctx: BaseContext<BrokerMsg>, topic: string, partition: number, leaderEpoch: number, leads: boolean): void {
  const n = leads ? s.metadata?.topics.find((t) => t.name === topic)?.partitions.length : undefined;
  const become = n === undefined ? { partition, leaderEpoch } : { partition, leaderEpoch, numPartitions: n };
  const resign = { partition, leaderEpoch };
  if (topic === OFFSETS_TOPIC) ctx.send<CoordinatorMsg>(s.coordinator, leads ? { type: 'BecomeCoordinator', ...become } : { type: 'ResignCoordinator', ...resign });
  else if (topic === TRANSACTION_STATE_TOPIC) ctx.send<TxnCoordinatorMsg>(s.txnCoordinator, leads ? { type: 'BecomeTxnCoordinator', ...become } : { type: 'ResignTxnCoordinator', ...resign });
  else if (topic === SHARE_GROUP_STATE_TOPIC) ctx.send<ShareCoordinatorMsg>(s.shareCoordinator, leads ? { type: 'BecomeShareCoordinator', ...become } : { type: 'ResignShareCoordinator', ...resign });
}

/** A replica whose log dir failed: it stops (keeping its files), and is fetched for no more. */
async function stopOfflineReplica(s: BrokerState, ctx: BaseContext<BrokerMsg>, topic: string, partition: number): Promise<void> {
  const k = partitionKey(topic, partition);
  removeFromFetchers(s, ctx, topic, partition);
  const rep = s.replicas.get(k);
  s.replicas.delete(k);
  tellCoordinator(s, ctx, topic, partition, rep?.leaderEpoch ?? -1, false);
  if (!rep) return;
  const r = await ctx.ask(rep.ref, { type: 'StopReplica', deletePartition: false }, { timeoutMs: 60_000 });
  if (isFailure(r)) ctx.log.warn('offline replica did not stop cleanly', { topic, partition, reason: r.message });
}

async function applyLeaderAndIsr(s: BrokerState, ctx: BaseContext<BrokerMsg>, controllerEpoch: number, p: LeaderAndIsrPartition): Promise<void> {
  const me = s.args.brokerId;
  const k = partitionKey(p.topic, p.partition);
  // offline (its log dir failed): nothing to lead or follow with; the heartbeats say so
  if (s.offlinePartitions.has(k)) return;
  let rep = s.replicas.get(k);
  if (!rep && !p.isNew && s.logs.hasOfflineDirs && !s.logs.managerOf(p.topic, p.partition)) {
    // as Kafka: with a dir offline, a log not found for a partition that is not new may be in
    // that dir; an empty one made elsewhere would pass for it
    s.offlinePartitions.set(k, { topic: p.topic, partition: p.partition });
    ctx.log.error('replica offline: its log is not in an online log dir, and a log dir is offline', { topic: p.topic, partition: p.partition });
    ctx.send(ctx.self, { type: 'Heartbeat' });
    return;
  }
  if (!rep) {
    const ref = ctx.spawn(partitionReplica, {
      name: k,
      args: {
        brokerId: me,
        topic: p.topic,
        partition: p.partition,
        logs: s.logs,
        broker: ctx.self,
        controller: s.args.controller,
        brokerEpoch: () => s.brokerEpoch,
        replicaLagTimeMaxMs: s.config.replicaLagTimeMaxMs,
        defaultMinInsyncReplicas: s.config.minInsyncReplicas,
        defaultCompressionType: s.config.compressionType,
        defaultCompressionLevels: compressionLevelsOf(s.config),
        producerIdExpirationMs: s.config.producerIdExpirationMs,
        readReplicaSelection: s.config.replicaSelectorClass === RACK_AWARE_REPLICA_SELECTOR ? { rackOf: (id: number) => rackOf(s, id) } : null,
        isBrokerAlive: (id: number) => s.metadata?.brokers.some((b) => b.brokerId === id && !b.fenced) ?? true,
        initial: p,
      },
    });
    rep = { topic: p.topic, partition: p.partition, topicId: p.topicId, ref, leader: p.leader, leaderEpoch: p.leaderEpoch };
    s.replicas.set(k, rep);
  }
  rep.topicId = p.topicId;
  const r = await ctx.ask<{ type: string; errorCode: number; logEndOffset: number; lastFetchedEpoch: number; logStartOffset?: number }>(
    rep.ref,
    { type: 'BecomeLeaderOrFollower', controllerEpoch, state: p },
    { timeoutMs: 60_000 },
  );
  if (isFailure(r)) {
    ctx.log.error('partition replica failed to take its new state', { topic: p.topic, partition: p.partition, reason: r.message });
    return;
  }
  if (r.errorCode !== ErrorCode.NONE) return;
  rep.leader = p.leader;
  rep.leaderEpoch = p.leaderEpoch;
  tellCoordinator(s, ctx, p.topic, p.partition, p.leaderEpoch, p.leader === me);
  removeFromFetchers(s, ctx, p.topic, p.partition);
  if (p.leader !== me && p.leader !== NO_LEADER) {
    addToFetcher(s, ctx, p.leader, {
      topic: p.topic,
      partition: p.partition,
      fetchOffset: r.logEndOffset,
      lastFetchedEpoch: r.lastFetchedEpoch,
      currentLeaderEpoch: p.leaderEpoch,
      logStartOffset: r.logStartOffset,
    });
  }
}

/**
 * Logs on this broker's disk that no replica here uses and that the controller's metadata does
 * not place here (the topic is gone, or the partition was reassigned away) are set aside as stray,
 * as Kafka does: renamed `<topic>-<partition>.<id>-stray`, never served or loaded again, kept for
 * an operator to delete (the metadata could be wrong: a controller started on an empty metadata
 * dir must not wipe the brokers). The controller tells a replica to delete its copy with
 * StopReplica, but a broker that died before the controller noticed misses it; it learns the
 * truth from the metadata once it is back (the LeaderAndIsr for every partition it hosts comes
 * before the metadata).
 */
async function setAsideStrayLogs(s: BrokerState, ctx: BaseContext<BrokerMsg>, md: ClusterMetadata): Promise<void> {
  // nearly always none: every log here has its replica
  const unused = s.logs.allLogs().filter((log) => !s.replicas.has(partitionKey(log.topic, log.partition)));
  if (unused.length === 0) return;
  const me = s.args.brokerId;
  const topics = new Map(md.topics.map((t) => [t.name, t]));
  for (const log of unused) {
    const p = topics.get(log.topic)?.partitions[log.partition];
    if (p && p.replicas.includes(me)) continue;
    let dir: string | null;
    try {
      dir = await s.logs.setAsideAsStray(log.topic, log.partition);
    } catch (err) {
      ctx.log.error('a stray log could not be set aside', { topic: log.topic, partition: log.partition, error: (err as Error).message });
      continue;
    }
    ctx.log.warn('a stray log set aside: this broker is not a replica of the partition; delete it once its records are not needed', { topic: log.topic, partition: log.partition, replicas: p?.replicas ?? null, dir });
  }
}

/** The log dirs a broker's args name: logDirs, or logDir as the one. */
export function brokerLogDirs(args: Pick<BrokerArgs, 'logDir' | 'logDirs'>): string[] {
  if (args.logDirs !== undefined && args.logDirs.length > 0) return [...args.logDirs];
  if (args.logDir !== undefined) return [args.logDir];
  throw new Error('a broker needs logDir or logDirs');
}

/**
 * The partition filter of a DescribeLogDirs (null: every partition): a topic asked for without
 * partitions, or null ones, takes all of its partitions.
 */
function logDirFilter(topics: { topic: string; partitions?: number[] | null }[] | null): ((topic: string, partition: number) => boolean) | null {
  if (topics === null) return null;
  const wanted = new Map<string, Set<number> | null>();
  for (const t of topics) {
    const prev = wanted.get(t.topic);
    if (t.partitions == null || prev === null) wanted.set(t.topic, null);
    else wanted.set(t.topic, new Set([...(prev ?? []), ...t.partitions]));
  }
  return (topic, partition) => {
    const ps = wanted.get(topic);
    return ps !== undefined && (ps === null || ps.has(partition));
  };
}

/** The total and usable bytes of the volume holding `dir` (Kafka's FileStore), -1 when unknown. */
async function volumeSpace(dir: string): Promise<{ totalBytes: number; usableBytes: number }> {
  try {
    const st = await fs.promises.statfs(dir);
    return { totalBytes: st.blocks * st.bsize, usableBytes: st.bavail * st.bsize };
  } catch {
    return { totalBytes: -1, usableBytes: -1 };
  }
}

/** A broker's rack as the metadata has it (this broker's own from its args). */
function rackOf(s: BrokerState, brokerId: number): string | null {
  if (brokerId === s.args.brokerId) return s.args.rack ?? null;
  return s.metadata?.brokers.find((b) => b.brokerId === brokerId)?.rack ?? null;
}

/** The group coordinator child (a supervised restart stops the old one before init runs again). */
function spawnCoordinator(ctx: BaseContext<BrokerMsg>, args: BrokerArgs, config: BrokerConfig): ActorRef<CoordinatorMsg> {
  return ctx.spawn(groupCoordinator, {
    name: COORDINATOR_NAME,
    args: {
      brokerId: args.brokerId,
      offsetsTopicNumPartitions: config.offsetsTopicNumPartitions,
      groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
      groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
      groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
      offsetsRetentionMs: config.offsetsRetentionMinutes * 60_000,
      consumerGroupHeartbeatIntervalMs: config.groupConsumerHeartbeatIntervalMs,
      consumerGroupSessionTimeoutMs: config.groupConsumerSessionTimeoutMs,
      consumerGroupMaxSize: config.groupConsumerMaxSize,
      classicGroupMaxSize: config.groupMaxSize,
      consumerGroupMigrationPolicy: config.groupConsumerMigrationPolicy as MigrationPolicy,
      shareGroupHeartbeatIntervalMs: config.groupShareHeartbeatIntervalMs,
      shareGroupSessionTimeoutMs: config.groupShareSessionTimeoutMs,
      shareGroupMaxSize: config.groupShareMaxSize,
      // a TxnOffsetCommit's transaction is verified through this broker (KIP-890)
      broker: ctx.self,
    },
  });
}

/** The share partition manager child (KIP-932): the share groups' delivery state of the partitions led here. */
function spawnShareManager(ctx: BaseContext<BrokerMsg>, args: BrokerArgs, config: BrokerConfig): ActorRef<ShareManagerMsg> {
  return ctx.spawn(shareManager, {
    name: SHARE_MANAGER_NAME,
    args: {
      brokerId: args.brokerId,
      requestTimeoutMs: config.requestTimeoutMs,
      defaults: {
        recordLockDurationMs: config.groupShareRecordLockDurationMs,
        deliveryCountLimit: config.groupShareDeliveryCountLimit,
        partitionMaxRecordLocks: config.groupSharePartitionMaxRecordLocks,
        sessionTimeoutMs: config.groupShareSessionTimeoutMs,
        heartbeatIntervalMs: config.groupShareHeartbeatIntervalMs,
      },
      broker: ctx.self,
    },
  });
}

/** The transaction coordinator child (a supervised restart stops the old one before init runs again). */
function spawnTxnCoordinator(ctx: BaseContext<BrokerMsg>, args: BrokerArgs, config: BrokerConfig): ActorRef<TxnCoordinatorMsg> {
  return ctx.spawn(txnCoordinator, {
    name: TXN_COORDINATOR_NAME,
    args: {
      brokerId: args.brokerId,
      transactionStateNumPartitions: config.transactionStateLogNumPartitions,
      offsetsTopicNumPartitions: config.offsetsTopicNumPartitions,
      transactionMaxTimeoutMs: config.transactionMaxTimeoutMs,
      transactionalIdExpirationMs: config.transactionalIdExpirationMs,
      abortTimedOutTransactionsIntervalMs: config.transactionAbortTimedOutTransactionCleanupIntervalMs,
      removeExpiredTransactionalIdsIntervalMs: config.transactionRemoveExpiredTransactionCleanupIntervalMs,
      requestTimeoutMs: config.requestTimeoutMs,
    },
  });
}

/** The share coordinator child (KIP-932; a supervised restart stops the old one before init runs again). */
function spawnShareCoordinator(ctx: BaseContext<BrokerMsg>, args: BrokerArgs, config: BrokerConfig): ActorRef<ShareCoordinatorMsg> {
  return ctx.spawn(shareCoordinator, {
    name: SHARE_COORDINATOR_NAME,
    args: {
      brokerId: args.brokerId,
      numPartitions: config.shareCoordinatorStateTopicNumPartitions,
      writeTimeoutMs: config.shareCoordinatorWriteTimeoutMs,
      loadBufferBytes: config.shareCoordinatorLoadBufferSize,
    },
  });
}

/** How each internal topic is created: partitions, replication factor and topic configs from the broker config. */
function internalTopicSpec(c: BrokerConfig, topic: string): { numPartitions: number; replicationFactor: number; config: (rf: number) => Record<string, string | number> } {
  if (topic === TRANSACTION_STATE_TOPIC) {
    return {
      numPartitions: c.transactionStateLogNumPartitions,
      replicationFactor: c.transactionStateLogReplicationFactor,
      // min.insync.replicas capped by the replication factor the live brokers allow
      config: (rf) => transactionStateTopicConfig(c.transactionStateLogSegmentBytes, Math.min(c.transactionStateLogMinIsr, rf)),
    };
  }
  if (topic === SHARE_GROUP_STATE_TOPIC) {
    return {
      numPartitions: c.shareCoordinatorStateTopicNumPartitions,
      replicationFactor: c.shareCoordinatorStateTopicReplicationFactor,
      config: (rf) => shareGroupStateTopicConfig(c.shareCoordinatorStateTopicSegmentBytes, Math.min(c.shareCoordinatorStateTopicMinIsr, rf)),
    };
  }
  return { numPartitions: c.offsetsTopicNumPartitions, replicationFactor: c.offsetsTopicReplicationFactor, config: () => offsetsTopicConfig(c.offsetsTopicSegmentBytes) };
}

/** Asks the controller once (then at most every few seconds) to create __consumer_offsets, __transaction_state or __share_group_state. */
function maybeCreateInternalTopic(s: BrokerState, ctx: BaseContext<BrokerMsg>, name: string): void {
  const now = ctx.clock.now();
  const last = s.internalTopicRequestedAtMs.get(name);
  if (last !== undefined && now - last < INTERNAL_TOPIC_REQUEST_INTERVAL_MS) return;
  const unfenced = s.metadata?.brokers.filter((b) => !b.fenced).length ?? 0;
  if (unfenced === 0) return;
  s.internalTopicRequestedAtMs.set(name, now);
  const spec = internalTopicSpec(s.config, name);
  const replicationFactor = Math.min(spec.replicationFactor, unfenced);
  const topic = { name, numPartitions: spec.numPartitions, replicationFactor, config: spec.config(replicationFactor) };
  ctx.log.info('asking the controller to create an internal topic', { topic: name, partitions: topic.numPartitions, replicationFactor });
  void ctx.ask<ControllerReply>(s.args.controller, { type: 'CreateTopics', topics: [topic] }, { timeoutMs: 10_000 }).then((r) => {
    const msg: BrokerMsg = { type: 'InternalTopicRequested', topic: name, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR };
    if (isFailure(r)) {
      msg.errorCode = r.errorCode;
      msg.errorMessage = r.message;
    } else if (r.type === 'CreateTopicsResponse' && r.topics[0]) {
      msg.errorCode = r.topics[0].errorCode;
      if (r.topics[0].errorMessage) msg.errorMessage = r.topics[0].errorMessage;
    }
    ctx.send(ctx.self, msg);
  });
}

function register(s: BrokerState, ctx: BaseContext<BrokerMsg>): void {
  s.status = 'Registering';
  ctx.timers.cancel(HEARTBEAT_TIMER);
  void ctx
    .ask<ControllerReply>(
      s.args.controller,
      {
        type: 'BrokerRegistration',
        brokerId: s.args.brokerId,
        node: ctx.nodeId,
        incarnationId: s.incarnationId,
        rack: s.args.rack ?? null,
        endpoint: s.args.endpoint ?? null,
        kafkaEndpoint: s.args.kafkaEndpoint ?? null,
        previousBrokerEpoch: s.previousBrokerEpoch,
      },
      { timeoutMs: 10_000 },
    )
    .then((r) => {
      if (isFailure(r)) ctx.send(ctx.self, { type: 'RegistrationResult', errorCode: r.errorCode, brokerEpoch: -1, errorMessage: r.message });
      else if (r.type === 'BrokerRegistrationResponse') {
        const res: BrokerMsg = { type: 'RegistrationResult', errorCode: r.errorCode, brokerEpoch: r.brokerEpoch };
        if (r.errorMessage) res.errorMessage = r.errorMessage;
        ctx.send(ctx.self, res);
      }
    });
}

/**
 * Hands each partition's batches to its replica and answers per partition once all have (none
 * with acks 0). `verdicts`: the transaction verification of the request's transactional
 * partitions and the partitions named by a topic id their topic no longer has, by index (null:
 * none); a refused partition is answered without a write.
 */
function producePartitions(
  s: BrokerState,
  ctx: BaseContext<BrokerMsg>,
  m: Extract<BrokerMsg, { type: 'Produce' }>,
  token: ReplyToken | undefined,
  hold: PayloadHold | null,
  verdicts: ReadonlyMap<number, Verdict> | null,
): void {
  let unsettled = false;
  // one options object per request, not per partition (a request can carry hundreds)
  const askOptions = { timeoutMs: m.timeoutMs + 5_000 };
  const results = m.partitions.map((pp, i): ProducePartitionResult | Promise<ProducePartitionResult> => {
    const verdict = verdicts?.get(i);
    if (verdict && 'errorCode' in verdict) return resultWithoutWrite(pp, verdict.errorCode, verdict.errorMessage);
    const rep = s.replicas.get(partitionKey(pp.topic, pp.partition));
    if (!rep) {
      const e = noReplicaError(s, pp.topic, pp.partition);
      return resultWithoutWrite(pp, e.errorCode, e.errorMessage);
    }
    const msg: ReplicaMsg = verdict
      ? { type: 'Produce', acks: m.acks, timeoutMs: m.timeoutMs, records: entryBatches(pp.records), verify: true, verificationGuard: verdict.guard }
      : { type: 'Produce', acks: m.acks, timeoutMs: m.timeoutMs, records: entryBatches(pp.records) };
    if (m.acks === 0) {
      ctx.send(rep.ref, msg);
      return resultWithoutWrite(pp, ErrorCode.NONE, '');
    }
    return ctx.ask<ProduceResponse>(rep.ref, msg, askOptions).then((r) => {
      if (!isFailure(r)) return { topic: pp.topic, partition: pp.partition, errorCode: r.errorCode, errorMessage: r.errorMessage, baseOffset: r.baseOffset, logAppendTime: r.logAppendTime, logStartOffset: r.logStartOffset };
      if (r.reason === 'timeout') unsettled = true;
      const e = replicaAskError(s, pp.topic, pp.partition, r);
      return resultWithoutWrite(pp, e.errorCode, e.errorMessage);
    });
  });
  if (!token) return;
  // answered from the replicas' replies, without holding the broker's mailbox
  void Promise.all(results).then((partitions) => {
    ctx.replyTo(token, { type: 'BrokerProduceResponse', errorCode: ErrorCode.NONE, partitions } satisfies BrokerProduceResponse);
    if (hold && !unsettled) hold.release();
  });
}

/**
 * Where the coordinator of `key` runs, as this broker's metadata has it: a group's on the leader
 * of its __consumer_offsets partition, a transactional id's on the leader of its
 * __transaction_state partition, a share partition's state (key "groupId:topicId:partition") on
 * the leader of its __share_group_state partition. Else why not: the topic does not exist yet
 * (`missingTopic`), or the partition has no leader.
 */
function coordinatorLocation(s: BrokerState, keyType: 'group' | 'transaction' | 'share', key: string): { brokerId: number; node: string } | { errorMessage: string; missingTopic: string | null } {
  const name = keyType === 'group' ? OFFSETS_TOPIC : keyType === 'transaction' ? TRANSACTION_STATE_TOPIC : SHARE_GROUP_STATE_TOPIC;
  const topic = s.metadata?.topics.find((t) => t.name === name);
  if (!topic) return { errorMessage: `${name} does not exist yet`, missingTopic: name };
  const n = topic.partitions.length;
  const partition = keyType === 'group' ? offsetsPartitionFor(key, n) : keyType === 'transaction' ? transactionStatePartitionFor(key, n) : shareStatePartitionFor(key, n);
  const leader = topic.partitions.find((p) => p.partition === partition)?.leader ?? NO_LEADER;
  const node = leader === NO_LEADER ? undefined : (s.metadata?.brokers.find((b) => b.brokerId === leader)?.node ?? s.leaderNodes.get(leader));
  if (node === undefined) return { errorMessage: `${name}-${partition} has no leader`, missingTopic: null };
  return { brokerId: leader, node };
}

/** The cluster's transaction.version is 2 (KIP-890 part 2): a producer speaking it adds no partition itself. */
function transactionV2Finalized(s: BrokerState): boolean {
  return finalizedLevel(s.metadata?.features, TRANSACTION_VERSION) >= 2;
}

/** What a transaction verification needs of this broker: its replicas, and where each transactional id's coordinator is. */
function verificationEnv(s: BrokerState, ctx: BaseContext<BrokerMsg>): VerificationEnv {
  return {
    ctx,
    timeoutMs: s.config.requestTimeoutMs,
    replicaOf: (topic, partition) => s.replicas.get(partitionKey(topic, partition))?.ref ?? null,
    coordinatorOf: (transactionalId) => {
      const at = coordinatorLocation(s, 'transaction', transactionalId);
      if ('errorMessage' in at) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: at.errorMessage };
      return { node: at.node, path: txnCoordinatorPath(at.brokerId) };
    },
  };
}

export const broker = defineActor<BrokerState, BrokerMsg, BrokerArgs>({
  kind: 'broker',
  // what a client (a node outside the cluster) may send: the client APIs, a consumer's fetch, and
  // introspection; the controller's requests, a follower's fetch and the broker's own timers are the cluster's
  clientMessages: {
    Metadata: true,
    Produce: true,
    Fetch: (m) => (m.replicaId >= 0 ? `replica id ${m.replicaId}: a follower's fetch comes from a broker of the cluster` : null),
    FindCoordinator: true,
    InitProducerId: true,
    WriteTxnMarkers: true,
    GetTelemetrySubscriptions: true,
    PushTelemetry: true,
    DescribeConfigs: true,
    DescribeLoggers: true,
    AlterLoggers: true,
    DescribeLogDirs: true,
    AlterReplicaLogDirs: true,
    DescribeBroker: true,
  },
  // its own timers' and answers', and its replicas' (its children): never another node's
  localMessages: ['Register', 'RegistrationResult', 'Heartbeat', 'HeartbeatResult', 'FetchReadDone', 'FetchExpired', 'ProducerIdsAllocated', 'InternalTopicRequested', 'PartitionAdvanced', 'LogDirFailed'],
  supervision: { maxRestarts: 3, withinMs: 60_000 },

  async init(ctx, args) {
    const config = parseBrokerConfig(args.config ?? {});
    const logs = await LogDirs.open({
      logDirs: brokerLogDirs(args),
      clock: ctx.clock,
      config: config.log,
      retentionCheckIntervalMs: config.logRetentionCheckIntervalMs,
      flushCheckIntervalMs: config.logFlushSchedulerIntervalMs,
      cleanerEnabled: config.logCleanerEnable,
      cleanerBackoffMs: config.logCleanerBackoffMs,
      cleanerDedupeBufferBytes: config.logCleanerDedupeBufferSize,
      logger: ctx.log.child({ component: 'log-manager' }),
      onDirFailure: (logDir, reason) => ctx.send(ctx.self, { type: 'LogDirFailed', logDir, reason }),
    });
    logs.setMoveThrottle(config.replicaAlterLogDirsIoMaxBytesPerSecond);
    const s: BrokerState = {
      args,
      node: ctx.nodeId,
      config,
      logs,
      status: 'Registering',
      incarnationId: nanoid(),
      previousBrokerEpoch: logs.previousBrokerEpoch,
      brokerEpoch: -1,
      controllerEpoch: 0,
      metadata: null,
      listenerSent: { acls: null, quotas: null, scram: null, tokens: null, limits: null },
      dynamicConfig: '[]',
      throttles: null,
      leaderQuota: new RateQuota(config.leaderReplicationThrottledRate, ctx.clock),
      followerQuota: new RateQuota(config.followerReplicationThrottledRate, ctx.clock),
      telemetry: clientTelemetryFor({ receiverPath: config.clientTelemetryReceiver, brokerId: args.brokerId, nodeId: ctx.nodeId, maxBytes: config.telemetryMaxBytes, clock: ctx.clock }),
      replicas: new Map(),
      offlinePartitions: new Map(),
      fetchers: new Map(),
      leaderNodes: new Map(),
      groupVersionTold: null,
      shareVersionTold: null,
      groupConfigsTold: '{}',
      fetches: new FetchPurgatory(),
      fetchesAnsweredOnAdvance: 0,
      fetchExpiryDue: Infinity,
      coordinator: spawnCoordinator(ctx, args, config),
      txnCoordinator: spawnTxnCoordinator(ctx, args, config),
      shareCoordinator: spawnShareCoordinator(ctx, args, config),
      shareManager: spawnShareManager(ctx, args, config),
      internalTopicRequestedAtMs: new Map(),
      producerIds: { next: 0, end: 0 },
      producerIdWaiters: [],
    };
    ctx.send(ctx.self, { type: 'Register' });
    return s;
  },

  schema: {
    LeaderAndIsrRequest: { controllerEpoch: 'integer', brokerId: 'integer', partitions: arrayOf(LEADER_AND_ISR_PARTITION), liveLeaders: arrayOf(LIVE_LEADER) },
    StopReplicaRequest: { controllerEpoch: 'integer', brokerId: 'integer', partitions: 'array' },
    UpdateMetadataRequest: { controllerEpoch: 'integer', metadata: 'object', scramCredentials: 'array?', delegationTokens: 'array?' },
    Metadata: { topics: 'array?' },
    // what clients send most: checked down to each partition (a cheap walk of a few fields), numbers as the handlers count with them
    Fetch: {
      replicaId: 'safeInteger',
      maxWaitMs: 'safeInteger',
      minBytes: 'safeInteger',
      maxBytes: 'safeInteger',
      partitions: arrayOf(objectOf({ topic: 'string', partition: 'safeInteger', fetchOffset: 'safeInteger', currentLeaderEpoch: 'safeInteger', partitionMaxBytes: 'safeInteger' })),
    },
    // a partition's records are checked by the handler: one that is not bytes is refused for that partition only
    Produce: { acks: 'safeInteger', timeoutMs: 'safeInteger', partitions: arrayOf(objectOf({ topic: 'string', partition: 'safeInteger' })), transactionAbortable: 'boolean?', transactionV2: 'boolean?' },
    PartitionAdvanced: { topic: 'string', partition: 'integer', reads: 'array?' },
    FindCoordinator: { key: 'string', keyType: 'string?' },
    ShareGroupDeleted: { groupId: 'string', fanOut: 'boolean?' },
    PrepareSharePartitions: { groupId: 'string', topics: arrayOf(objectOf({ topic: 'string', topicId: 'string', partitions: arrayOf('integer') })) },
    WriteTxnMarkers: {
      markers: arrayOf(
        objectOf({
          producerId: 'integer',
          producerEpoch: 'safeInteger',
          coordinatorEpoch: 'safeInteger',
          commit: 'boolean',
          topics: arrayOf(objectOf({ name: 'string', partitions: arrayOf('safeInteger') })),
          transactionVersion: 'safeInteger?',
        }),
      ),
      timeoutMs: 'integer?',
    },
    LogDirFailed: { logDir: 'string', reason: 'string' },
    VerifyTransaction: { transactionalId: 'string', producerId: 'integer', producerEpoch: 'integer', partitions: arrayOf(objectOf({ topic: 'string', partition: 'integer' })), transactionV2: 'boolean?' },
    DescribeLogDirs: { topics: 'array?' },
    AlterReplicaLogDirs: { dirs: 'array' },
    AlterLoggers: { changes: 'array', validateOnly: 'boolean?' },
    GetTelemetrySubscriptions: { clientInstanceId: 'string', clientId: 'string?', clientSoftwareName: 'string?', clientSoftwareVersion: 'string?' },
    PushTelemetry: {
      clientInstanceId: 'string',
      subscriptionId: 'integer',
      terminating: 'boolean',
      compressionType: 'integer',
      metrics: 'bytes',
      clientId: 'string?',
      clientSoftwareName: 'string?',
      clientSoftwareVersion: 'string?',
    },
  },

  handlers: {
    Register(s, _m, ctx) {
      register(s, ctx);
    },

    RegistrationResult(s, m, ctx) {
      if (m.errorCode !== ErrorCode.NONE) {
        ctx.log.warn('broker registration failed; retrying', { errorCode: m.errorCode, reason: m.errorMessage });
        ctx.timers.startSingle(REGISTER_TIMER, 500, { type: 'Register' });
        return;
      }
      s.brokerEpoch = m.brokerEpoch;
      s.status = 'Running';
      ctx.log.info('broker registered', { brokerEpoch: m.brokerEpoch });
      ctx.timers.startPeriodic(HEARTBEAT_TIMER, s.config.brokerHeartbeatIntervalMs, { type: 'Heartbeat' });
    },

    Heartbeat(s, _m, ctx) {
      if (s.status !== 'Running' && s.status !== 'Fenced') return;
      const epoch = s.brokerEpoch;
      void ctx
        .ask<ControllerReply>(
          s.args.controller,
          // replicas offline after a log dir failure, in every heartbeat (as KRaft brokers report offline dirs)
          { type: 'BrokerHeartbeat', brokerId: s.args.brokerId, brokerEpoch: epoch, ...(s.offlinePartitions.size > 0 ? { offlinePartitions: [...s.offlinePartitions.values()] } : {}) },
          { timeoutMs: s.config.brokerHeartbeatIntervalMs * 2 },
        )
        .then((r) => {
          if (isFailure(r)) ctx.send(ctx.self, { type: 'HeartbeatResult', errorCode: r.errorCode, isFenced: false, brokerEpoch: epoch });
          else if (r.type === 'BrokerHeartbeatResponse') ctx.send(ctx.self, { type: 'HeartbeatResult', errorCode: r.errorCode, isFenced: r.isFenced, brokerEpoch: epoch });
        });
    },

    HeartbeatResult(s, m, ctx) {
      if (m.brokerEpoch !== s.brokerEpoch || s.status === 'ShuttingDown') return;
      if (m.errorCode === ErrorCode.NONE && !m.isFenced) {
        s.status = 'Running';
        return;
      }
      if (m.errorCode === ErrorCode.REQUEST_TIMED_OUT || m.errorCode === ErrorCode.NETWORK_EXCEPTION) {
        ctx.log.warn('controller did not answer a heartbeat', { errorCode: m.errorCode });
        return;
      }
      ctx.log.warn('fenced by the controller: registering again', { errorCode: m.errorCode, isFenced: m.isFenced });
      register(s, ctx);
    },

    async LeaderAndIsrRequest(s, m, ctx) {
      if (m.brokerId !== s.args.brokerId) {
        ctx.log.warn('LeaderAndIsrRequest for another broker ignored', { brokerId: m.brokerId });
        return;
      }
      if (isStale(s, ctx, m.controllerEpoch, 'LeaderAndIsrRequest')) return;
      for (const b of m.liveLeaders) s.leaderNodes.set(b.brokerId, b.node);
      await Promise.all(m.partitions.map((p) => applyLeaderAndIsr(s, ctx, m.controllerEpoch, p)));
    },

    async StopReplicaRequest(s, m, ctx) {
      if (m.brokerId !== s.args.brokerId) return;
      if (isStale(s, ctx, m.controllerEpoch, 'StopReplicaRequest')) return;
      await Promise.all(
        m.partitions.map(async (p) => {
          const k = partitionKey(p.topic, p.partition);
          removeFromFetchers(s, ctx, p.topic, p.partition);
          s.offlinePartitions.delete(k);
          const rep = s.replicas.get(k);
          s.replicas.delete(k);
          tellCoordinator(s, ctx, p.topic, p.partition, rep?.leaderEpoch ?? -1, false);
          if (rep) {
            const r = await ctx.ask(rep.ref, { type: 'StopReplica', deletePartition: p.deletePartition }, { timeoutMs: 60_000 });
            if (isFailure(r)) ctx.log.warn('replica did not stop cleanly', { topic: p.topic, partition: p.partition, reason: r.message });
          } else if (p.deletePartition) {
            await s.logs.deleteLog(p.topic, p.partition);
          }
        }),
      );
    },

    UpdateMetadataRequest(s, m, ctx) {
      if (isStale(s, ctx, m.controllerEpoch, 'UpdateMetadataRequest')) return undefined;
      // one pass over the topics against the metadata before: topic configs changed (AlterConfigs)
      // go to the replicas hosted here; topics gone (or made again under their name: another id)
      // to the group coordinator, whose groups forget their offsets of them
      const before = new Map((s.metadata?.topics ?? []).map((t) => [t.name, t]));
      for (const t of m.metadata.topics) {
        const old = before.get(t.name);
        if (old === undefined) continue;
        // the same topic: not deleted (another one under its name: the old one is, below)
        if (old.topicId === t.topicId) before.delete(t.name);
        if (JSON.stringify(old.config) === JSON.stringify(t.config)) continue;
        for (const rep of s.replicas.values()) if (rep.topic === t.name) ctx.send(rep.ref, { type: 'TopicConfigChanged', config: t.config });
      }
      if (before.size > 0) ctx.send(s.coordinator, { type: 'TopicsDeleted', topics: [...before.keys()] });
      s.metadata = m.metadata;
      // the coordinator's consumer groups follow the finalized group.version (KIP-584)
      const groupVersion = finalizedLevel(m.metadata.features, GROUP_VERSION);
      if (m.metadata.features && groupVersion !== s.groupVersionTold) {
        s.groupVersionTold = groupVersion;
        ctx.send(s.coordinator, { type: 'GroupVersionChanged', level: groupVersion });
      }
      // and its share groups, with the share partition manager's, the finalized share.version
      const shareVersion = finalizedLevel(m.metadata.features, SHARE_VERSION);
      if (m.metadata.features && shareVersion !== s.shareVersionTold) {
        s.shareVersionTold = shareVersion;
        ctx.send(s.coordinator, { type: 'ShareVersionChanged', level: shareVersion });
        ctx.send(s.shareManager, { type: 'ShareVersionChanged', level: shareVersion });
        if (s.args.kafkaEndpoint) ctx.send<KafkaListenerMsg>({ node: ctx.nodeId, path: `/${kafkaListenerName(s.args.brokerId)}` }, { type: 'ShareVersionChanged', level: shareVersion });
      }
      // and its consumer groups' session timeouts and heartbeat intervals, the group configs
      const groupConfigs = JSON.stringify(m.metadata.groupConfigs ?? {});
      if (groupConfigs !== s.groupConfigsTold) {
        s.groupConfigsTold = groupConfigs;
        ctx.send(s.coordinator, { type: 'GroupConfigsChanged', configs: m.metadata.groupConfigs ?? {} });
        ctx.send(s.shareManager, { type: 'ShareGroupConfigsChanged', configs: m.metadata.groupConfigs ?? {} });
      }
      for (const b of m.metadata.brokers) s.leaderNodes.set(b.brokerId, b.node);
      applyDynamicConfig(s, ctx, m.metadata);
      s.throttles = throttlesFor(m.metadata, s.args.brokerId);
      if (s.args.kafkaEndpoint) tellListener(s, ctx, m.metadata, m.scramCredentials, m.delegationTokens);
      return setAsideStrayLogs(s, ctx, m.metadata);
    },

    Metadata(s, m, ctx) {
      const md = s.metadata ?? emptyMetadata(s);
      const wanted = m.topics ? new Set(m.topics) : null;
      const metadata = wanted ? { ...md, topics: md.topics.filter((t) => wanted.has(t.name)) } : md;
      ctx.reply({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata } satisfies MetadataResponse);
    },

    Produce(s, m, ctx) {
      const token = m.acks === 0 ? undefined : ctx.deferReply();
      // the request's bytes may be a transport's buffer: it can go back once every replica has
      // appended or refused them (not with acks 0, nor when one timed out: that replica may
      // still hold the bytes in its mailbox)
      const hold = token ? ctx.payloadHold() : null;
      // named by id (Produce v13+): a partition whose topic no longer has that id is not written
      let stale: Map<number, Verdict> | null = null;
      for (const [i, pp] of m.partitions.entries()) {
        const e = topicIdError(s, pp);
        if (e) (stale ??= new Map()).set(i, e);
      }
      // the common case, no transactional id: written at once
      const add = m.transactionV2 === true && transactionV2Finalized(s);
      const txn = m.transactionalId && (add || s.config.transactionPartitionVerificationEnable) ? transactionalProducerOfRequest(m.partitions) : null;
      if (txn === null) return producePartitions(s, ctx, m, token, hold, stale);
      if (txn === 'mixed') {
        const refused = new Map(m.partitions.map((_, i) => [i, { errorCode: ErrorCode.INVALID_PRODUCER_ID_MAPPING, errorMessage: 'Transactional records contained more than one producer ID' } as Verdict]));
        return producePartitions(s, ctx, m, token, hold, refused);
      }
      // a stale partition is neither verified nor added to the transaction
      for (const i of stale?.keys() ?? []) txn.keys.delete(i);
      const mapError = m.transactionAbortable === true ? abortableProducerFacingError : producerFacingError;
      void verifyTransactionalPartitions(verificationEnv(s, ctx), m.transactionalId!, m.partitions, txn, mapError, add).then((verdicts) => {
        for (const [i, v] of stale ?? []) verdicts.set(i, v);
        producePartitions(s, ctx, m, token, hold, verdicts);
      });
    },

    Fetch(s, m, ctx) {
      const token = ctx.deferReply();
      if (m.partitions.length === 0) {
        if (token) ctx.replyTo(token, { type: 'FetchResponse', errorCode: ErrorCode.NONE, partitions: [] } satisfies FetchResponse);
        return;
      }
      const p = s.fetches.add(m, token, ctx.clock.now());
      startRead(s, ctx, p);
    },

    FetchReadDone(s, m, ctx) {
      const p = s.fetches.get(m.fetchId);
      if (!p) return;
      p.reading = false;
      // a follower's throttled partitions get no records while the leader quota is exceeded
      const results = p.req.replicaId >= 0 && s.throttles ? withholdThrottled(s.throttles, s.leaderQuota, p.req.replicaId, m.results) : m.results;
      let bytes = 0;
      let problem = false;
      for (const r of results) {
        bytes += r.records.length;
        if (r.errorCode !== ErrorCode.NONE || r.divergingEpoch) problem = true;
      }
      const now = ctx.clock.now();
      // a follower's fetch that sent an older high watermark than a partition's is answered now (KIP-1166)
      if (bytes >= p.req.minBytes || problem || p.expired || now >= p.deadline || followerHighWatermarkMoved(p.req, results)) {
        respond(s, ctx, p, results);
        return;
      }
      if (p.dirty) {
        startRead(s, ctx, p);
        return;
      }
      p.parked = true;
      p.lastResults = results;
      // one timer for the purgatory, due at its earliest deadline (not a timer per parked fetch)
      if (!ctx.timers.isActive(FETCH_EXPIRY_TIMER) || p.deadline < s.fetchExpiryDue) armFetchExpiry(s, ctx, p.deadline);
    },

    FindCoordinator(s, m, ctx) {
      const reply = (errorCode: number, errorMessage?: string, brokerId = -1, node = '') => {
        const r: FindCoordinatorResponse = { type: 'FindCoordinatorResponse', errorCode, brokerId, node };
        if (errorMessage) r.errorMessage = errorMessage;
        ctx.reply(r);
      };
      const keyType = m.keyType ?? 'group';
      if (keyType !== 'group' && keyType !== 'transaction' && keyType !== 'share') return reply(ErrorCode.INVALID_REQUEST, `unknown coordinator key type '${String(m.keyType)}'`);
      // as Kafka's SharePartitionKey.validate: "groupId:topicId:partition"
      if (keyType === 'share' && !parseShareCoordinatorKey(m.key)) return reply(ErrorCode.INVALID_REQUEST, `'${m.key}' is not a share coordinator key (groupId:topicId:partition)`);
      const at = coordinatorLocation(s, keyType, m.key);
      if ('errorMessage' in at) {
        if (at.missingTopic) maybeCreateInternalTopic(s, ctx, at.missingTopic);
        return reply(ErrorCode.COORDINATOR_NOT_AVAILABLE, at.errorMessage);
      }
      reply(ErrorCode.NONE, undefined, at.brokerId, at.node);
    },

    VerifyTransaction(s, m, ctx) {
      const token = ctx.deferReply();
      if (!token) return;
      const reply = (r: TransactionVerification) => ctx.replyTo(token, r);
      const add = m.transactionV2 === true && transactionV2Finalized(s);
      if (!add && !s.config.transactionPartitionVerificationEnable) return reply({ type: 'TransactionVerification', errorCode: ErrorCode.NONE, enabled: false, partitions: [] });
      const txn = { producerId: m.producerId, producerEpoch: m.producerEpoch, keys: new Set(m.partitions.map((_, i) => i)) };
      void verifyTransactionalPartitions(verificationEnv(s, ctx), m.transactionalId, m.partitions, txn, rawError, add).then((verdicts) =>
        reply({
          type: 'TransactionVerification',
          errorCode: ErrorCode.NONE,
          enabled: true,
          partitions: m.partitions.map((p, i) => {
            // no verdict: no replica here
            const v = verdicts.get(i) ?? unverifiedError(s, p.topic, p.partition);
            return 'guard' in v ? { ...p, errorCode: ErrorCode.NONE, errorMessage: null, guard: v.guard } : { ...p, errorCode: v.errorCode, errorMessage: v.errorMessage, guard: NO_GUARD };
          }),
        }),
      );
    },

    WriteTxnMarkers(s, m, ctx) {
      const token = ctx.deferReply();
      if (!token) return;
      const timeoutMs = m.timeoutMs ?? s.config.requestTimeoutMs;
      const markers = m.markers.map((mk) => ({
        producerId: mk.producerId,
        topics: mk.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((partition) => writeTxnMarker(s, ctx, mk, t.name, partition, timeoutMs)),
        })),
      }));
      // answered from the replicas' replies, without holding the mailbox
      void Promise.all(markers.map(async (mk) => ({ producerId: mk.producerId, topics: await Promise.all(mk.topics.map(async (t) => ({ name: t.name, partitions: await Promise.all(t.partitions) }))) }))).then((done) =>
        ctx.replyTo(token, { type: 'WriteTxnMarkersResponse', markers: done } satisfies WriteTxnMarkersResponse),
      );
    },

    InitProducerId(s, _m, ctx) {
      if (s.producerIds.next < s.producerIds.end) {
        ctx.reply({ type: 'InitProducerIdResult', errorCode: ErrorCode.NONE, producerId: s.producerIds.next++, producerEpoch: 0 } satisfies InitProducerIdResult);
        return;
      }
      const token = ctx.deferReply();
      if (!token) return;
      s.producerIdWaiters.push(token);
      if (s.producerIdWaiters.length > 1) return; // a block is already on its way
      void ctx
        .ask<ControllerReply>(s.args.controller, { type: 'AllocateProducerIds', brokerId: s.args.brokerId, brokerEpoch: s.brokerEpoch }, { timeoutMs: 10_000 })
        .then((r) => {
          if (isFailure(r)) ctx.send(ctx.self, { type: 'ProducerIdsAllocated', errorCode: r.errorCode, errorMessage: r.message, firstProducerId: -1, count: 0 });
          else if (r.type === 'AllocateProducerIdsResponse') ctx.send(ctx.self, { type: 'ProducerIdsAllocated', errorCode: r.errorCode, errorMessage: r.errorMessage, firstProducerId: r.firstProducerId, count: r.count });
        });
    },

    ProducerIdsAllocated(s, m, ctx) {
      const waiters = s.producerIdWaiters.splice(0);
      if (m.errorCode !== ErrorCode.NONE || m.count <= 0) {
        ctx.log.warn('no producer ids from the controller', { errorCode: m.errorCode, reason: m.errorMessage });
        // retriable for the client: it asks again
        const errorMessage = `no producer id available yet: ${m.errorMessage ?? errorName(m.errorCode)}`;
        for (const t of waiters) ctx.replyTo(t, { type: 'InitProducerIdResult', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage, producerId: -1, producerEpoch: -1 } satisfies InitProducerIdResult);
        return;
      }
      s.producerIds = { next: m.firstProducerId, end: m.firstProducerId + m.count };
      ctx.log.debug('producer id block', { first: m.firstProducerId, count: m.count });
      for (const t of waiters) {
        if (s.producerIds.next < s.producerIds.end) {
          ctx.replyTo(t, { type: 'InitProducerIdResult', errorCode: ErrorCode.NONE, producerId: s.producerIds.next++, producerEpoch: 0 } satisfies InitProducerIdResult);
        } else {
          // more waiters than ids in a block: they ask again (retriable)
          ctx.replyTo(t, { type: 'InitProducerIdResult', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'producer id block used up; retry', producerId: -1, producerEpoch: -1 } satisfies InitProducerIdResult);
        }
      }
    },

    InternalTopicRequested(_s, m, ctx) {
      if (m.errorCode === ErrorCode.NONE) ctx.log.info('the controller created an internal topic', { topic: m.topic });
      else if (m.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS) ctx.log.debug('the internal topic already exists', { topic: m.topic });
      else ctx.log.warn('creating an internal topic failed; a later FindCoordinator asks again', { topic: m.topic, errorCode: m.errorCode, reason: m.errorMessage });
    },

    PartitionAdvanced(s, m, ctx) {
      for (const p of s.fetches.watching(m.topic, m.partition)) {
        if (p.reading) p.dirty = true;
        else if (!answerFromAdvance(s, ctx, p, m)) startRead(s, ctx, p);
      }
    },

    FetchExpired(s, _m, ctx) {
      const now = ctx.clock.now();
      let next = Infinity;
      for (const p of s.fetches.all()) {
        if (!p.parked || p.expired) continue;
        if (p.deadline <= now) {
          p.expired = true;
          if (!p.reading) startRead(s, ctx, p);
        } else next = Math.min(next, p.deadline);
      }
      if (next < Infinity) armFetchExpiry(s, ctx, next);
    },

    async ControlledShutdown(s, _m, ctx) {
      const token = ctx.deferReply();
      let remaining = -1;
      for (let attempt = 0; attempt < 10 && remaining !== 0; attempt++) {
        const r = await ctx.ask<ControllerReply>(
          s.args.controller,
          { type: 'ControlledShutdown', brokerId: s.args.brokerId, brokerEpoch: s.brokerEpoch },
          { timeoutMs: 10_000 },
        );
        if (!isFailure(r) && r.type === 'ControlledShutdownResponse' && r.errorCode === ErrorCode.NONE) {
          remaining = r.remainingPartitions.length;
          // what no other live broker holds a replica of stays here however long it waits
          if (r.movablePartitions !== undefined && r.movablePartitions.length === 0) break;
        }
        if (remaining !== 0) await new Promise((res) => setTimeout(res, 200));
      }
      s.status = 'ShuttingDown';
      ctx.timers.cancel(HEARTBEAT_TIMER);
      const flushed = await s.logs.flushDirtyLogs();
      // KIP-966: the clean shutdown markers written as the logs close hold this epoch; the next start
      // registers with it, which tells the controller the broker shut down cleanly
      if (s.brokerEpoch >= 0) s.logs.setShutdownBrokerEpoch(s.brokerEpoch);
      if (token) ctx.replyTo(token, { type: 'ControlledShutdownDone', errorCode: remaining === 0 ? ErrorCode.NONE : ErrorCode.REQUEST_TIMED_OUT, flushedLogs: flushed });
    },

    PrepareSharePartitions(s, m, ctx) {
      const byLeader = new Map<number, SharePartitionRef[]>();
      for (const t of m.topics) {
        const meta = s.metadata?.topics.find((x) => x.name === t.topic);
        for (const partition of t.partitions) {
          const leader = meta?.partitions.find((p) => p.partition === partition)?.leader ?? NO_LEADER;
          if (leader === NO_LEADER) continue;
          const list = byLeader.get(leader) ?? [];
          list.push({ topic: t.topic, topicId: t.topicId, partition });
          byLeader.set(leader, list);
        }
      }
      for (const [leader, partitions] of byLeader) {
        const node = leader === s.args.brokerId ? ctx.nodeId : (s.metadata?.brokers.find((b) => b.brokerId === leader)?.node ?? s.leaderNodes.get(leader));
        if (node === undefined) continue;
        ctx.send<ShareManagerMsg>(leader === s.args.brokerId ? s.shareManager : { node, path: sharePartitionManagerPath(leader) }, { type: 'PrepareSharePartitions', groupId: m.groupId, partitions });
      }
    },

    ShareGroupDeleted(s, m, ctx) {
      if (m.fanOut) {
        // every live broker holds some of the group's states (by the hash of each key) or fetches for it
        for (const b of s.metadata?.brokers ?? []) {
          if (b.fenced) continue;
          ctx.send<BrokerMsg>(b.brokerId === s.args.brokerId ? ctx.self : { node: b.node, path: brokerPath(b.brokerId) }, { type: 'ShareGroupDeleted', groupId: m.groupId });
        }
        return;
      }
      ctx.send(s.shareCoordinator, { type: 'DeleteShareGroupStates', groupId: m.groupId });
      ctx.send(s.shareManager, { type: 'ForgetShareGroup', groupId: m.groupId, partitions: null });
    },

    DescribeBroker(s, _m, ctx) {
      ctx.reply({
        type: 'BrokerDescription',
        brokerId: s.args.brokerId,
        status: s.status,
        brokerEpoch: s.brokerEpoch,
        controllerEpoch: s.controllerEpoch,
        replicas: [...s.replicas.values()].map((r) => ({ topic: r.topic, partition: r.partition, leader: r.leader })),
        fetchers: [...s.fetchers].map(([leaderId, f]) => ({ leaderId, partitions: [...f.partitions], fetcher: f.ref })),
        pendingFetches: s.fetches.size,
        offlinePartitions: [...s.offlinePartitions.keys()].sort(),
        fetchesAnsweredOnAdvance: s.fetchesAnsweredOnAdvance,
        logCleaner: s.logs.cleanerSettings,
        logDirs: s.logs.managers.map((mgr) => ({ logDir: mgr.logDir, partitions: mgr.partitionCount })),
      } satisfies BrokerDescription);
    },

    GetTelemetrySubscriptions(s, m, ctx) {
      const token = ctx.deferReply();
      if (token) ctx.replyTo(token, telemetrySubscriptions(s.telemetry, m, token.replyTo.node, s.metadata, ctx));
    },

    PushTelemetry(s, m, ctx) {
      const token = ctx.deferReply();
      if (!token) return;
      // decompressing and the receiver's answer are waited for without holding the mailbox
      void pushTelemetry(s.telemetry, m, token.replyTo.node, s.metadata, s.config.requestTimeoutMs, ctx).then((r) => ctx.replyTo(token, r));
    },

    DescribeConfigs(s, _m, ctx) {
      const dynamic = s.metadata?.brokerConfigs ?? {};
      ctx.reply({
        type: 'BrokerConfigsDescription',
        errorCode: ErrorCode.NONE,
        brokerId: s.args.brokerId,
        configs: brokerConfigEntries(s.args.config ?? {}, dynamic[String(s.args.brokerId)] ?? {}, dynamic[''] ?? {}),
      } satisfies BrokerConfigsDescription);
    },

    DescribeLoggers(s, _m, ctx) {
      ctx.reply(describeBrokerLoggers(ctx.nodeId, s.args.brokerId));
    },

    AlterLoggers(s, m, ctx) {
      ctx.reply(alterBrokerLoggers(ctx.nodeId, s.args.brokerId, m.changes, m.validateOnly ?? false, ctx.log));
    },

    DescribeLogDirs(s, m, ctx) {
      // the schema checks only that topics is an array: a malformed entry is refused here, not a crash
      const topicOk = (t: unknown): boolean => {
        const { topic, partitions } = (t ?? {}) as { topic?: unknown; partitions?: unknown };
        return typeof topic === 'string' && (partitions == null || (Array.isArray(partitions) && partitions.every((p) => Number.isSafeInteger(p))));
      };
      if (m.topics != null && !m.topics.every(topicOk)) {
        return ctx.reply({ type: 'LogDirsDescription', errorCode: ErrorCode.INVALID_REQUEST, brokerId: s.args.brokerId, logDirs: [] } satisfies LogDirsDescription);
      }
      const token = ctx.deferReply();
      const views = s.logs.describe(logDirFilter(m.topics ?? null));
      // the volumes' space is asked without holding the mailbox
      void Promise.all(views.map((v) => volumeSpace(v.logDir))).then((spaces) => {
        if (!token) return;
        const logDirs = views.map(
          (v, i): LogDirDescription => ({ logDir: v.logDir, errorCode: v.errorCode, errorMessage: v.errorMessage, totalBytes: spaces[i]!.totalBytes, usableBytes: spaces[i]!.usableBytes, partitions: v.partitions }),
        );
        ctx.replyTo(token, { type: 'LogDirsDescription', errorCode: ErrorCode.NONE, brokerId: s.args.brokerId, logDirs } satisfies LogDirsDescription);
      });
    },

    async LogDirFailed(s, m, ctx) {
      // every replica whose log is in the failed dir stops (its log answers KAFKA_STORAGE_ERROR);
      // the controller moves leadership away and shrinks the ISR once it hears of them
      if (!s.logs.managerFor(m.logDir)) {
        ctx.log.warn('LogDirFailed for a dir this broker does not have: dropped', { logDir: m.logDir });
        return;
      }
      const lost = s.logs.partitionsIn(m.logDir);
      ctx.log.error('log dir failed: its replicas are offline', { logDir: m.logDir, reason: m.reason, partitions: lost.length });
      for (const tp of lost) s.offlinePartitions.set(partitionKey(tp.topic, tp.partition), tp);
      await Promise.all(lost.map((tp) => stopOfflineReplica(s, ctx, tp.topic, tp.partition)));
      ctx.send(ctx.self, { type: 'Heartbeat' });
    },

    AlterReplicaLogDirs(s, m, ctx) {
      const dirOk = (d: unknown): boolean => {
        const { logDir, topics } = (d ?? {}) as { logDir?: unknown; topics?: unknown };
        return (
          typeof logDir === 'string' &&
          Array.isArray(topics) &&
          topics.every((t: { topic?: unknown; partitions?: unknown }) => typeof t?.topic === 'string' && Array.isArray(t.partitions) && t.partitions.every((p) => Number.isSafeInteger(p)))
        );
      };
      if (!m.dirs.every(dirOk)) return ctx.reply({ type: 'ReplicaLogDirsAltered', errorCode: ErrorCode.INVALID_REQUEST, results: [] } satisfies ReplicaLogDirsAltered);
      const token = ctx.deferReply();
      const results: Promise<ReplicaLogDirsAltered['results'][number]>[] = [];
      for (const d of m.dirs) {
        const dest = s.logs.managerFor(d.logDir);
        const offline = s.logs.isOfflineDir(d.logDir);
        for (const t of d.topics) {
          for (const partition of t.partitions) {
            const done = (errorCode: number, errorMessage: string | null) => Promise.resolve({ topic: t.topic, partition, logDir: d.logDir, errorCode, errorMessage });
            if (offline || s.offlinePartitions.has(partitionKey(t.topic, partition))) {
              results.push(done(ErrorCode.KAFKA_STORAGE_ERROR, offline ? `log dir ${d.logDir} is offline` : `the log of ${t.topic}-${partition} is in a failed log dir`));
              continue;
            }
            if (!dest) {
              results.push(done(ErrorCode.LOG_DIR_NOT_FOUND, `${d.logDir} is not a log dir of broker ${s.args.brokerId}`));
              continue;
            }
            const rep = s.replicas.get(partitionKey(t.topic, partition));
            if (!rep) {
              // as Kafka: remembered, so that the log is created there when the replica comes
              s.logs.setPreferredDir(t.topic, partition, dest.logDir);
              results.push(done(ErrorCode.REPLICA_NOT_AVAILABLE, `broker ${s.args.brokerId} hosts no replica of ${t.topic}-${partition}`));
              continue;
            }
            results.push(
              ctx.ask<LogDirAltered>(rep.ref, { type: 'AlterLogDir', logDir: dest.logDir }, { timeoutMs: 30_000 }).then((r) => {
                if (isFailure(r)) return { topic: t.topic, partition, logDir: d.logDir, errorCode: r.reason === 'timeout' ? ErrorCode.REQUEST_TIMED_OUT : ErrorCode.REPLICA_NOT_AVAILABLE, errorMessage: r.message };
                return { topic: t.topic, partition, logDir: d.logDir, errorCode: r.errorCode, errorMessage: r.errorMessage };
              }),
            );
          }
        }
      }
      void Promise.all(results).then((rs) => {
        if (token) ctx.replyTo(token, { type: 'ReplicaLogDirsAltered', errorCode: ErrorCode.NONE, results: rs } satisfies ReplicaLogDirsAltered);
      });
    },
  },

  async onStop(s) {
    for (const p of s.fetches.all()) s.fetches.remove(p.id);
    await s.logs.close();
  },
});
