/**
 * The admin promise API over the admin actor (actors/admin): topics, cluster, the controllers'
 * metadata quorum, leader elections, partition reassignments, groups, transactions, offsets
 * (KafkaJS's fetchTopicOffsets and by timestamp, Kafka's listOffsets) and lag, record deletion,
 * brokers' log dirs, ACLs, dynamic broker configs, group configs (Kafka 4.0's), client quotas,
 * SCRAM credentials (KIP-554: salted here, the password never leaves the client), delegation
 * tokens (KIP-48), config descriptions and share groups (KIP-932: described, their offsets
 * listed, altered and deleted, as Kafka 4.2's Admin). Failures throw
 * SamsaError with Kafka's code; per-item results keep their codes.
 *
 * Options use Kafka's names (admin-config.ts: client.id, request.timeout.ms, retry.backoff.ms,
 * metrics.sample.window.ms, metrics.num.samples, enable.metrics.push). With enable.metrics.push
 * (false by default, as Kafka's admin) the admin pushes its metrics (admin-metrics.ts) to the
 * brokers as KIP-714 says, makes a terminating push when it disconnects, and clientInstanceId
 * gives the id a broker gave it.
 */
import crypto from 'node:crypto';
import { nanoid } from 'nanoid';
import { admin as adminActor } from '../../actors/admin/admin.js';
import { parseAdminConfig } from '../../actors/admin/admin-config.js';
import type { AdminMetricsReply, AdminMsg } from '../../actors/admin/messages.js';
import type { ConfigEntry } from '../../actors/broker/config-entries.js';
import type { LogDirDescription } from '../../actors/broker/messages.js';
import type { CreatableTopic } from '../../actors/controller/messages.js';
import { SCRAM_MAX_ITERATIONS, SCRAM_MIN_ITERATIONS, ScramMechanism, scramHashOf, scramMechanismName, type ScramDeletion, type ScramUpsertion } from '../../actors/controller/scram-credentials.js';
import type { DescribedConsumerGroup, DescribedGroup, DescribedShareGroup, GroupListing } from '../../actors/group-coordinator/messages.js';
import type { AlteredShareGroupOffsets, DeletedShareGroupOffsets, ShareGroupOffsets } from '../../actors/admin/share-group-offsets.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP, type ActiveProducer, type IsolationLevel } from '../../actors/partition-replica/messages.js';
import type { TransactionView } from '../../actors/txn-coordinator/messages.js';
import { saltedPassword } from '../kafka/sasl/scram.js';
import type { BrokerInfo, TopicMetadata } from '../protocol/cluster.js';
import { ErrorCode } from '../protocol/errors.js';
import { UpgradeType, type FinalizedFeatures } from '../protocol/features.js';
import type { ActorRef, Message } from '../runtime/types.js';
import { isFailure } from '../runtime/types.js';
import { AclOperation, AclPermission, bindingProblem, describeBinding, filterProblem, PatternType, ResourceType, type AclBinding, type AclBindingFilter } from '../security/acl.js';
import {
  CLIENT_ID,
  CONNECTION_CREATION_RATE,
  CONTROLLER_MUTATION_RATE,
  compareEntities,
  describeEntity,
  entityToWire,
  IP,
  QUOTA_KEYS,
  REQUEST_PERCENTAGE,
  USER,
  type ClientQuota,
  type QuotaEntity,
  type QuotaFilterComponent,
} from '../security/client-quotas.js';
import { awaitClientInstanceId } from './client-instance-id.js';
import { SamsaError } from './errors.js';
import type { ClientMetric } from './metrics.js';
import type { ClientInstanceIdReply } from './telemetry-loop.js';
import { findHangingTransactions, type FindHangingOptions, type OpenTransaction } from './hanging-transactions.js';
import type { SamsaClient } from './samsa.js';

export type { FindHangingOptions, OpenTransaction } from './hanging-transactions.js';

type Reply = Message & { errorCode: number; errorMessage?: string } & Record<string, unknown>;

export interface TopicConfig {
  topic: string;
  numPartitions?: number;
  replicationFactor?: number;
  replicaAssignment?: number[][];
  configEntries?: { name: string; value: string }[];
}

/** One partition's answer to an election: errorCode NONE when a leader was elected. */
export interface ElectionResult {
  topic: string;
  partition: number;
  errorCode: number;
  errorMessage: string | null;
}

/** One partition's answer to a reassignment (or its cancellation): errorCode NONE when it was taken. */
export interface ReassignmentResult {
  topic: string;
  partition: number;
  errorCode: number;
  errorMessage: string | null;
}

/** A partition's target replicas (preferred leader first), or null to cancel its reassignment. */
export interface PartitionAssignment {
  partition: number;
  replicas: number[] | null;
}

/**
 * A reassignment in progress: `replicas` holds every replica of the partition now (the target
 * first, then those being removed), `addingReplicas` those of the target not yet in sync,
 * `removingReplicas` those that go once they are.
 */
export interface PartitionReassignment {
  partition: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

/**
 * A voter of the metadata quorum (a controller), as the quorum's leader sees it. Offsets are
 * the metadata log's: logEndOffset is the number of entries in the voter's log, lag how many
 * the leader has that it lacks, lastContactMs how long ago the leader last heard from it (0 for
 * the leader itself). Each is -1 where unknown: the answer came from a controller that does not
 * lead the quorum (while an election is on). role: 'Leader', 'Follower', 'Prospective'
 * (asking for pre-votes) or 'Candidate' ('Observer' for an observer). directoryId: its metadata dir's id (Kafka's Uuid), where known.
 */
export interface QuorumVoterInfo {
  id: number;
  node: string;
  directoryId?: string;
  logEndOffset: number;
  lag: number;
  lastContactMs: number;
  role: string;
}

/**
 * The metadata quorum, as Kafka's Admin.describeMetadataQuorum gives it: the leader (-1 while an
 * election is on), its epoch (the Raft term), the high watermark (the log's committed entries),
 * each voter, the observers (controllers outside the voter set the leader replicates to:
 * waiting to be added, or removed), and the controller epoch of the metadata.
 */
/** The cluster's features (Kafka's FeatureMetadata): finalized levels by name, and the levels samsa implements. */
export interface FeatureMetadata {
  finalizedFeatures: Record<string, { minVersionLevel: number; maxVersionLevel: number }>;
  finalizedFeaturesEpoch: number | null;
  supportedFeatures: Record<string, { minVersion: number; maxVersion: number }>;
}

/** Kafka's FeatureUpdate.UpgradeType. */
export type FeatureUpgradeType = 'upgrade' | 'safe-downgrade' | 'unsafe-downgrade';

export interface MetadataQuorumInfo {
  clusterId?: string;
  leaderId: number;
  leaderEpoch: number;
  highWatermark: number;
  controllerEpoch: number;
  voters: QuorumVoterInfo[];
  observers: QuorumVoterInfo[];
}

/**
 * One transactional id's transaction (Kafka's TransactionDescription): errorCode NONE, or why it
 * is not told (TRANSACTIONAL_ID_NOT_FOUND, ...; the rest then '' / -1 / empty). The start time
 * is -1 while the id has not run a transaction.
 */
export interface TransactionDescription {
  transactionalId: string;
  errorCode: number;
  /** Kafka's state name: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence. */
  state: string;
  /** The broker whose transaction coordinator told it (-1 when none answered). */
  coordinatorId: number;
  producerId: number;
  producerEpoch: number;
  transactionTimeoutMs: number;
  transactionStartTimeMs: number;
  topicPartitions: { topic: string; partition: number }[];
}

/** A transaction as ListTransactions tells it, with the broker coordinating it. */
export interface TransactionListing {
  transactionalId: string;
  producerId: number;
  state: string;
  coordinatorId: number;
}

/** A partition's producers as its leader (or the replica on the broker named) knows them (Kafka's describeProducers). */
export interface PartitionProducers {
  partition: number;
  /** NONE, or why the replica did not tell (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, ...). */
  errorCode: number;
  /** The partition's leader (-1: none). */
  leaderId: number;
  /** The broker whose replica told (-1: none was asked). */
  brokerId: number;
  producers: ActiveProducer[];
}

/** Which transaction abortTransaction ends: a producer's open transaction on one partition (Kafka's AbortTransactionSpec). */
export interface AbortTransactionSpec {
  topic: string;
  partition: number;
  producerId: number;
  producerEpoch: number;
  /** The coordinator epoch of the producer's last marker there (DescribeProducers); 0 when it has none. */
  coordinatorEpoch: number;
}

/** A partition's offsets: low is its log start offset, high (and offset, KafkaJS's name) its high watermark. */
export interface PartitionOffsets {
  partition: number;
  offset: number;
  high: number;
  low: number;
}

/**
 * What listOffsets looks for (Kafka's OffsetSpec): the log start, the high watermark (under
 * read_committed the last stable offset), the record with the largest timestamp, or the first
 * record whose timestamp is at least the one given (ms).
 */
export type OffsetSpec = 'earliest' | 'latest' | 'max-timestamp' | { timestamp: number };

/**
 * A partition's offset as listOffsets found it (Kafka's ListOffsetsResultInfo): errorCode NONE,
 * or why its leader did not tell (UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, ...; the rest
 * then -1). offset -1 with NONE: no record for the timestamp (or none at all for max-timestamp).
 * timestamp is -1 for 'earliest' and 'latest'; leaderEpoch -1 where unknown.
 */
export interface ListedOffset {
  topic: string;
  partition: number;
  errorCode: number;
  offset: number;
  timestamp: number;
  leaderEpoch: number;
}

/**
 * A partition's answer to deleteRecords (Kafka's DeletedRecords or its error): errorCode NONE and
 * the log start after the deletion (the low watermark), or why its leader refused (errorMessage
 * saying more; lowWatermark then -1).
 */
export interface DeleteRecordsResult {
  topic: string;
  partition: number;
  errorCode: number;
  errorMessage: string | null;
  lowWatermark: number;
}

/** A partition's answer to deleteTopicRecords: its log start after the deletion (Kafka's low watermark). */
export interface DeletedRecords {
  partition: number;
  lowWatermark: number;
}

export type { LogDirDescription, LogDirPartition } from '../../actors/broker/messages.js';

/**
 * One broker's log dirs, as Kafka's describeLogDirs gives them: each dir's absolute path, its
 * partition logs (size in bytes, offset lag, isFuture) and its volume's total and usable bytes.
 * errorCode is not NONE when the broker could not be asked (logDirs is then empty).
 */
export interface BrokerLogDirs {
  broker: number;
  errorCode: number;
  errorMessage: string | null;
  logDirs: LogDirDescription[];
}

/** A replica (a partition on a broker) and the log dir to move it into, for alterReplicaLogDirs. */
export interface ReplicaLogDir {
  topic: string;
  partition: number;
  broker: number;
  /** An absolute path, one of the broker's log dirs as describeLogDirs gives them. */
  logDir: string;
}

/**
 * A replica's answer to alterReplicaLogDirs: NONE once its move has begun (or its log is in that
 * dir already), LOG_DIR_NOT_FOUND, REPLICA_NOT_AVAILABLE (not hosted there: the dir is remembered
 * for it), KAFKA_STORAGE_ERROR, BROKER_NOT_AVAILABLE...
 */
export interface ReplicaLogDirResult extends ReplicaLogDir {
  errorCode: number;
  errorMessage: string | null;
}

/**
 * An ACL (a resource pattern bound to an access control entry) as KafkaJS's admin takes and gives
 * it: the field names are KafkaJS's (resourcePatternType, permissionType; Kafka's Java client and
 * samsa's own AclBinding say patternType and permission), the values Kafka's codes, which are
 * KafkaJS's enum values too: ResourceType, PatternType, AclOperation and AclPermission from
 * 'samsa' (TOPIC 2, GROUP 3, CLUSTER 4, TRANSACTIONAL_ID 5; LITERAL 3, PREFIXED 4; READ 3, ...;
 * DENY 2, ALLOW 3). principal is 'User:<name>' ('User:*': everyone), host an address or '*'.
 */
export interface AclEntry {
  resourceType: number;
  resourceName: string;
  resourcePatternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

/**
 * Selects ACLs (Kafka's AclBindingFilter, with KafkaJS's field names): a code left out is ANY, a
 * name, principal or host left out (or null) matches every one. resourcePatternType MATCH (2)
 * selects the ACLs that apply to the named resource: that name, the wildcard '*' and prefixes of it.
 */
export interface AclFilter {
  resourceType?: number;
  resourceName?: string | null;
  resourcePatternType?: number;
  principal?: string | null;
  host?: string | null;
  operation?: number;
  permissionType?: number;
}

/** The ACLs of one resource pattern, as KafkaJS's describeAcls gives them. */
export interface AclResource {
  resourceType: number;
  resourceName: string;
  resourcePatternType: number;
  acls: { principal: string; host: string; operation: number; permissionType: number }[];
}

/** An ACL a deleteAcls filter removed (errorCode NONE: KafkaJS's MatchingAcl). */
export interface MatchingAcl extends AclEntry {
  errorCode: number;
  errorMessage: string | null;
}

/** What one deleteAcls filter removed. */
export interface DeleteAclsFilterResponse {
  errorCode: number;
  errorMessage: string | null;
  matchingAcls: MatchingAcl[];
}

const ACL_ENTRY_SHAPE = '{ resourceType, resourceName, resourcePatternType, principal, host, operation, permissionType }';

/** samsa's own field names where KafkaJS's are wanted: named, rather than refused as a missing code. */
function ownNames(raw: Record<string, unknown>, where: string): void {
  const misnamed = [
    ['patternType', 'resourcePatternType'],
    ['permission', 'permissionType'],
  ].filter(([ours, theirs]) => ours! in raw && !(theirs! in raw));
  if (misnamed.length > 0) {
    throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: ${misnamed.map(([ours, theirs]) => `${theirs} (not ${ours})`).join(' and ')}: the admin API takes KafkaJS's field names`);
  }
}

function toBinding(raw: unknown, where: string): AclBinding {
  if (typeof raw !== 'object' || raw === null) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where} must be ${ACL_ENTRY_SHAPE}`);
  const e = raw as Record<string, unknown>;
  ownNames(e, where);
  const b = {
    resourceType: e.resourceType,
    resourceName: e.resourceName,
    patternType: e.resourcePatternType,
    principal: e.principal,
    host: e.host,
    operation: e.operation,
    permission: e.permissionType,
  } as AclBinding;
  const problem = bindingProblem(b);
  if (problem) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: ${problem}`);
  return b;
}

function toFilter(raw: unknown, where: string): AclBindingFilter {
  if (typeof raw !== 'object' || raw === null) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where} must be an object: ${ACL_ENTRY_SHAPE}, each optional`);
  const f = raw as Record<string, unknown>;
  ownNames(f, where);
  for (const k of ['resourceName', 'principal', 'host']) {
    if (f[k] !== undefined && f[k] !== null && typeof f[k] !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: ${k} must be a string, or null for any`);
  }
  const filter = {
    resourceType: f.resourceType ?? ResourceType.ANY,
    resourceName: (f.resourceName as string | null | undefined) ?? null,
    patternType: f.resourcePatternType ?? PatternType.ANY,
    principal: (f.principal as string | null | undefined) ?? null,
    host: (f.host as string | null | undefined) ?? null,
    operation: f.operation ?? AclOperation.ANY,
    permission: f.permissionType ?? AclPermission.ANY,
  } as AclBindingFilter;
  const problem = filterProblem(filter);
  if (problem) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: ${problem}`);
  return filter;
}

function toEntry(b: AclBinding): AclEntry {
  return {
    resourceType: b.resourceType,
    resourceName: b.resourceName,
    resourcePatternType: b.patternType,
    principal: b.principal,
    host: b.host,
    operation: b.operation,
    permissionType: b.permission,
  };
}

export type { ConfigEntry, ConfigSource, ConfigSynonym } from '../../actors/broker/config-entries.js';

/** A change to dynamic broker configs: of one broker, or (broker null) the cluster-wide default. */
export interface BrokerConfigChange {
  broker: number | null;
  /** Keys to set (Kafka's broker names: log.retention.ms, min.insync.replicas, ...), values as strings. */
  set?: Record<string, string>;
  /** Keys to remove: back to the cluster-wide default, or to the brokers' topology config. */
  delete?: string[];
}

/** The dynamic configs of one resource, as the cluster metadata has them. */
export interface DynamicBrokerConfigs {
  /** null: the cluster-wide default. */
  broker: number | null;
  /** Key -> value, in key order; {} when none is set. */
  configs: Record<string, string>;
}

/**
 * A change to a consumer group's configs (Kafka 4.0's group configs): `set` keys
 * (consumer.session.timeout.ms, consumer.heartbeat.interval.ms) take these values (strings, as
 * Kafka's), `delete` keys go back to the brokers' group.consumer.* values.
 */
export interface GroupConfigChange {
  group: string;
  set?: Record<string, string>;
  delete?: string[];
}

/** The controller's answer for one group of alterGroupConfigs: NONE, or why it was refused. */
export interface GroupConfigResult {
  group: string;
  errorCode: number;
  errorMessage: string | null;
}

/** One group's configs, as the cluster metadata has them. */
/** A change to a client metrics subscription (KIP-714): keys set and deleted (metrics, interval.ms, match). */
export interface ClientMetricsChange {
  name: string;
  set?: Record<string, string>;
  delete?: string[];
}

export interface ClientMetricsResult {
  name: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface ClientMetricsSubscription {
  name: string;
  /** Key -> value, in key order; {} when it has none (no such subscription). */
  configs: Record<string, string>;
}

export interface GroupConfigs {
  group: string;
  /** Key -> value, in key order; {} when none is set. */
  configs: Record<string, string>;
}

/** A resource's configs (ConfigEntry: value in force, source, synonyms), and who answered. */
export interface ResourceConfigs {
  /** The broker whose view this is (for a topic: the leader of its first partition, else a live broker; for a group: its coordinator, else a live broker); null for the cluster-wide default. */
  brokerId: number | null;
  configs: ConfigEntry[];
}

/** One of a broker's loggers (Kafka's BROKER_LOGGER config): its name and the level it runs at (OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL). */
export interface BrokerLogger {
  name: string;
  level: string;
}

const brokerResource = (broker: number | null): string => (broker === null ? 'the cluster-wide default' : `broker ${broker}`);

/** A config map in key order ({} for none), as the describe calls give them. */
function keyOrder(c: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(c ?? {}).sort(([a], [b]) => a.localeCompare(b)));
}

function isBrokerId(b: unknown): b is number {
  return typeof b === 'number' && Number.isSafeInteger(b) && b >= 0;
}

/**
 * A client quota entity, as Kafka's ClientQuotaEntity: a user (the SASL user or certificate
 * principal), a client id, or both (a user's clients of that id); or an IP address alone (its
 * connection_creation_rate, KIP-612). A present null is the default (Kafka's `<default>`: every
 * user, client id or IP without a quota of its own); an absent one means the entity does not
 * name that type.
 */
export type ClientQuotaEntity = QuotaEntity;

/**
 * An entity's quotas: key (producer_byte_rate, consumer_byte_rate: bytes per second;
 * request_percentage: percent of a request handler thread's time; controller_mutation_rate:
 * partition mutations per second) -> its limit.
 */
export type ClientQuotaEntry = ClientQuota;

/**
 * A change to one quota, as Kafka's ClientQuotaAlteration.Op: `{ key, value }` sets the key to
 * value (bytes per second, a percentage for request_percentage, ...); `{ key, remove: true }`,
 * or `{ key, value: null }` as Java's Op with a null value, removes it (removing a key not set
 * is no change).
 */
export interface ClientQuotaOp {
  key: string;
  value?: number | null;
  remove?: boolean;
}

/** The changes to one entity's quotas (Kafka's ClientQuotaAlteration). */
export interface ClientQuotaAlteration {
  entity: ClientQuotaEntity;
  ops: ClientQuotaOp[];
}

/** DescribeClientQuotas' match types: a name, the default, any entity that names the type. */
export const QuotaMatchType = Object.freeze({ EXACT: 0, DEFAULT: 1, SPECIFIED: 2 } as const);

/**
 * A filter component, as Kafka's ClientQuotaFilterComponent: `entityType` 'user' or 'client-id';
 * `match` a name (ofEntity), null (ofDefaultEntity: the default) or left out (ofEntityType: any
 * entity naming the type, the default included). `matchType` (QuotaMatchType) may say the same
 * explicitly, as on the wire.
 */
export interface ClientQuotaFilterComponent {
  entityType: string;
  match?: string | null;
  matchType?: number;
}

const QUOTA_ALTERATION_SHAPE = "[{ entity: { user?: name | null, clientId?: name | null } | { ip: address | null }, ops: [{ key, value } | { key, remove: true }] }]";

/** An entity of the admin API as it is sent, or a SamsaError naming what is wrong with it. */
function checkQuotaEntity(raw: unknown, where: string): QuotaEntity {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: the entity must be { user?: name | null, clientId?: name | null } or { ip: address | null }`);
  const e = raw as Record<string, unknown>;
  for (const k of Object.keys(e)) {
    if (k === 'user' || k === 'clientId' || k === 'ip') continue;
    if (k === 'client-id') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: the entity names a client id as clientId (Kafka's entity type 'client-id')`);
    throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: unknown entity field '${k}' (user, clientId, ip)`);
  }
  const out: QuotaEntity = {};
  for (const k of ['user', 'clientId', 'ip'] as const) {
    const v = e[k];
    if (v === undefined) continue;
    if (v !== null && typeof v !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: ${k} must be a name, or null for the default`);
    out[k] = v;
  }
  if (out.ip !== undefined && (out.user !== undefined || out.clientId !== undefined)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: an ip entity cannot be combined with a user or a clientId`);
  if (out.user === undefined && out.clientId === undefined && out.ip === undefined) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: the entity is empty: name a user, a clientId or both, or an ip`);
  return out;
}

/** What a quota key's value counts, in words. */
function quotaUnit(key: string): string {
  if (key === REQUEST_PERCENTAGE) return "a percentage of a request handler thread's time";
  if (key === CONTROLLER_MUTATION_RATE) return 'partition mutations per second';
  if (key === CONNECTION_CREATION_RATE) return 'connections per second';
  return 'bytes per second';
}

function checkQuotaOp(raw: unknown, where: string): { key: string; value: number; remove: boolean } {
  if (typeof raw !== 'object' || raw === null) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where} must be { key, value } or { key, remove: true }`);
  const op = raw as { key?: unknown; value?: unknown; remove?: unknown };
  if (typeof op.key !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: key must be a quota key (${QUOTA_KEYS.join(', ')}, or an ip's ${CONNECTION_CREATION_RATE})`);
  if (op.remove !== undefined && typeof op.remove !== 'boolean') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: remove must be true or false`);
  if (op.value !== undefined && op.value !== null && typeof op.value !== 'number') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: value must be a number (${quotaUnit(op.key)}), or null to remove ${op.key}`);
  const removes = op.remove === true || op.value === null;
  if (op.remove === true && typeof op.value === 'number') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: ${op.key} has a value and remove: true; give one`);
  if (!removes && typeof op.value !== 'number') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: ${op.key} needs a value (${quotaUnit(op.key)}), or remove: true`);
  return { key: op.key, value: removes ? 0 : (op.value as number), remove: removes };
}

function checkQuotaComponent(raw: unknown, where: string): QuotaFilterComponent {
  if (typeof raw !== 'object' || raw === null) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where} must be { entityType: 'user' | 'client-id' | 'ip', match?: name | null }`);
  const c = raw as { entityType?: unknown; match?: unknown; matchType?: unknown };
  if (c.entityType !== USER && c.entityType !== CLIENT_ID && c.entityType !== IP) {
    const hint = c.entityType === 'clientId' || c.entityType === 'client' ? " (Kafka's name: 'client-id')" : '';
    throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: entityType must be 'user', 'client-id' or 'ip', got ${JSON.stringify(c.entityType)}${hint}`);
  }
  if (c.match !== undefined && c.match !== null && typeof c.match !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: match must be a name, null (the default) or left out (any)`);
  const match = (c.match as string | null | undefined) ?? null;
  const implied = typeof c.match === 'string' ? QuotaMatchType.EXACT : c.match === null ? QuotaMatchType.DEFAULT : QuotaMatchType.SPECIFIED;
  if (c.matchType === undefined) return { entityType: c.entityType, matchType: implied, match };
  const t = c.matchType;
  if (t !== QuotaMatchType.EXACT && t !== QuotaMatchType.DEFAULT && t !== QuotaMatchType.SPECIFIED) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: unknown matchType ${JSON.stringify(t)} (0 EXACT, 1 DEFAULT, 2 SPECIFIED)`);
  if (t === QuotaMatchType.EXACT && typeof c.match !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: matchType EXACT needs a name to match`);
  if (t !== QuotaMatchType.EXACT && typeof c.match === 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: matchType ${t === QuotaMatchType.DEFAULT ? 'DEFAULT' : 'SPECIFIED'} takes no name (match '${c.match}')`);
  return { entityType: c.entityType, matchType: t, match: t === QuotaMatchType.EXACT ? match : null };
}

/** Kafka's SCRAM mechanism codes (its ScramMechanism): SCRAM_SHA_256 1, SCRAM_SHA_512 2. */
export { ScramMechanism };

/** A SCRAM mechanism by Kafka's name. */
export type ScramMechanismName = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

/**
 * A SCRAM credential to create or replace, as Kafka's UserScramCredentialUpsertion: the user,
 * the mechanism (its name, or Kafka's code: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512), the iterations
 * (default 4096; the controller takes 4096 to 16384) and the password, which stays in the client:
 * only a random salt and the salted password are sent.
 */
export interface UserScramCredentialUpsertion {
  user: string;
  mechanism: ScramMechanismName | number;
  iterations?: number;
  password: string;
}

/** A SCRAM credential to delete, as Kafka's UserScramCredentialDeletion (no password, no iterations). */
export interface UserScramCredentialDeletion {
  user: string;
  mechanism: ScramMechanismName | number;
}

/** An upsertion (it has a password) or a deletion. */
export type UserScramCredentialAlteration = UserScramCredentialUpsertion | UserScramCredentialDeletion;

/** A delegation token's information, as Kafka's TokenInformation (principals as 'User:alice'). */
export interface TokenInformation {
  tokenId: string;
  owner: string;
  tokenRequester: string;
  renewers: string[];
  issueTimestamp: number;
  expiryTimestamp: number;
  maxTimestamp: number;
}

/** A delegation token (Kafka's DelegationToken): its information and its HMAC, the password a client logs in with (base64). */
export interface DelegationToken {
  tokenInfo: TokenInformation;
  hmac: Buffer;
}

const PRINCIPAL = /^[^:]+:.+$/s;

function checkPrincipal(p: unknown, what: string): string {
  if (typeof p !== 'string' || !PRINCIPAL.test(p)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${what} must be a principal as 'User:<name>', got ${JSON.stringify(p)}`);
  return p;
}

function checkHmac(hmac: unknown): string {
  if (Buffer.isBuffer(hmac) || hmac instanceof Uint8Array) return Buffer.from(hmac).toString('base64');
  throw new SamsaError(ErrorCode.INVALID_REQUEST, 'hmac must be the token\'s HMAC bytes (a Buffer)');
}

function checkPeriod(v: unknown, what: string): number {
  if (v === undefined) return -1;
  if (!Number.isSafeInteger(v)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${what} must be an integer number of milliseconds`);
  return v as number;
}

type WireToken = { tokenId: string; owner: string; requester: string; renewers: string[]; issueTimestamp: number; expiryTimestamp: number; maxTimestamp: number };

function toDelegationToken(t: WireToken, hmac: string): DelegationToken {
  return {
    tokenInfo: { tokenId: t.tokenId, owner: t.owner, tokenRequester: t.requester, renewers: [...t.renewers], issueTimestamp: t.issueTimestamp, expiryTimestamp: t.expiryTimestamp, maxTimestamp: t.maxTimestamp },
    hmac: Buffer.from(hmac, 'base64'),
  };
}

/** A credential as DescribeUserScramCredentials gives it (Kafka's ScramCredentialInfo): no salt, no keys. */
export interface ScramCredentialInfo {
  mechanism: ScramMechanismName;
  iterations: number;
}

/** A user's SCRAM credentials (Kafka's UserScramCredentialsDescription), in mechanism order. */
export interface UserScramCredentialsDescription {
  user: string;
  credentials: ScramCredentialInfo[];
}

/** Kafka's default iterations for a new credential (kafka-configs' too). */
export const DEFAULT_SCRAM_ITERATIONS = 4096;

const SCRAM_ALTERATION_SHAPE = "[{ user, mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', iterations?, password } | { user, mechanism }]";

/** A mechanism's code, from its name (any case) or Kafka's code; else UNSUPPORTED_SASL_MECHANISM. */
function scramMechanismCode(raw: unknown, where: string): number {
  const code = typeof raw === 'string' ? ({ 'SCRAM-SHA-256': ScramMechanism.SCRAM_SHA_256, 'SCRAM-SHA-512': ScramMechanism.SCRAM_SHA_512 } as Record<string, number>)[raw.toUpperCase()] : raw;
  if (typeof code === 'number' && scramHashOf(code)) return code;
  throw new SamsaError(ErrorCode.UNSUPPORTED_SASL_MECHANISM, `${where}: unknown SCRAM mechanism ${JSON.stringify(raw)}: 'SCRAM-SHA-256' (1) or 'SCRAM-SHA-512' (2)`);
}

/**
 * An alteration as it is sent, or a SamsaError naming what is wrong with it. An object with a
 * password or iterations is an upsertion, so a password left undefined is refused rather than
 * read as a deletion. The salted password is computed here only for iterations the controller
 * takes: one outside [4096, 16384] goes without salt (PBKDF2 of a billion iterations would hang
 * the client), and the controller refuses it with its reason, for that user alone.
 */
function checkScramAlteration(raw: unknown, where: string): { delete: ScramDeletion } | { upsert: ScramUpsertion } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where} must be { user, mechanism, iterations?, password } (an upsertion) or { user, mechanism } (a deletion)`);
  const a = raw as Record<string, unknown>;
  if (typeof a.user !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where}: user must be a user name`);
  const mechanism = scramMechanismCode(a.mechanism, `${where} (user '${a.user}')`);
  if (!('password' in a) && !('iterations' in a)) return { delete: { user: a.user, mechanism } };
  if (typeof a.password !== 'string' || a.password === '') throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where} (user '${a.user}'): password must be a non-empty string (an alteration without password and iterations deletes the credential)`);
  const iterations = a.iterations ?? DEFAULT_SCRAM_ITERATIONS;
  if (!Number.isSafeInteger(iterations)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `${where} (user '${a.user}'): iterations must be an integer (${SCRAM_MIN_ITERATIONS} to ${SCRAM_MAX_ITERATIONS}; default ${DEFAULT_SCRAM_ITERATIONS})`);
  const n = iterations as number;
  if (n < SCRAM_MIN_ITERATIONS || n > SCRAM_MAX_ITERATIONS) return { upsert: { user: a.user, mechanism, iterations: n, salt: '', saltedPassword: '' } };
  const salt = crypto.randomBytes(32);
  const salted = saltedPassword(scramHashOf(mechanism)!, a.password, salt, n);
  return { upsert: { user: a.user, mechanism, iterations: n, salt: salt.toString('base64'), saltedPassword: salted.toString('base64') } };
}

/** A KIP-932 share group as its coordinator describes it, with that coordinator's broker id (-1: none answered). */
export interface ShareGroupDescription extends DescribedShareGroup {
  coordinatorId: number;
}

/** A share group's offset of one partition (Kafka's SharePartitionOffsetInfo, with the partition's error). */
export interface SharePartitionOffsetInfo {
  topic: string;
  partition: number;
  /** The share-partition start offset; -1: the group has no state for the partition. */
  startOffset: number;
  /** The leader epoch the state was last written at; -1: none. */
  leaderEpoch: number;
  /** High watermark - start offset - records at or above it already acknowledged or archived; -1: unknown. */
  lag: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  committed: number;
  logEndOffset: number;
  lag: number;
}

/** The longest disconnect waits for the admin's terminating push (the push itself gives up after 5 s, or request.timeout.ms if lower). */
const CLOSE_WAIT_MS = 10_000;

/** fenceProducers' answer for one transactional id: its new producer id and epoch, or an error (-1 both). */
export interface FencedProducer {
  transactionalId: string;
  errorCode: number;
  errorMessage: string | null;
  producerId: number;
  producerEpoch: number;
}

export class Admin {
  private ref: ActorRef<AdminMsg> | null = null;
  private readonly config: Record<string, unknown>;

  /** `config`: Kafka's admin config keys (admin-config.ts); refused at once when a key or value is bad (AdminConfigError). */
  constructor(
    private readonly client: SamsaClient,
    config: Record<string, unknown> = {},
  ) {
    this.config = { 'client.id': client.clientId, ...config };
    parseAdminConfig(this.config);
  }

  async connect(): Promise<void> {
    if (!this.ref) this.ref = this.client.system.spawn(adminActor, { name: `admin-${nanoid(8)}`, args: { bootstrap: this.client.brokers, config: this.config } });
  }

  /** Closes the admin: with enable.metrics.push, after its terminating push (Kafka's close); then stops its actor. */
  async disconnect(): Promise<void> {
    if (!this.ref) return;
    const ref = this.ref;
    this.ref = null;
    await this.client.system.ask(ref, { type: 'Close' }, { timeoutMs: CLOSE_WAIT_MS });
    await this.client.system.stopActor(ref);
  }

  /**
   * The admin's metrics, as Kafka's Admin.metrics() gives them (admin-metrics.ts): its network
   * client's admin-client-metrics (request-rate / -total, response-rate / -total) and, per node it
   * sent to, admin-client-node-metrics (those and request-latency-avg / -max).
   */
  async metrics(): Promise<ClientMetric[]> {
    return ((await this.call({ type: 'Metrics' }, 10_000)) as unknown as AdminMetricsReply).metrics;
  }

  /**
   * The id a broker gave this admin client instance for its metrics push (KIP-714, Kafka's
   * Admin.clientInstanceId(Duration)), waiting up to timeoutMs for it: null when none came in
   * time or telemetry stopped without one, as Kafka's. Throws RangeError for a negative timeout
   * and IllegalStateError with enable.metrics.push false (the admin's default, as Kafka's). The
   * admin actor answers as soon as a broker gives it, after any operation it is busy with
   * (client-instance-id.ts).
   */
  clientInstanceId(timeoutMs: number): Promise<string | null> {
    return awaitClientInstanceId(timeoutMs, (msg, askTimeoutMs) => {
      if (!this.ref) throw new SamsaError(ErrorCode.NETWORK_EXCEPTION, 'the admin client is not connected: call connect() first');
      return this.client.system.ask<ClientInstanceIdReply>(this.ref, msg, { timeoutMs: askTimeoutMs });
    });
  }

  private async call(msg: AdminMsg, timeoutMs = 60_000): Promise<Reply> {
    if (!this.ref) throw new SamsaError(ErrorCode.NETWORK_EXCEPTION, 'the admin client is not connected: call connect() first');
    const r = await this.client.system.ask<Reply>(this.ref, msg, { timeoutMs });
    if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
    if (r.errorCode !== ErrorCode.NONE) throw new SamsaError(r.errorCode, r.errorMessage);
    return r;
  }

  /** Creates topics; resolves true when all were created, false when some already existed. Other errors throw. */
  async createTopics(opts: { topics: TopicConfig[]; validateOnly?: boolean; waitForLeaders?: boolean }): Promise<boolean> {
    const topics: CreatableTopic[] = opts.topics.map((t) => {
      const c: CreatableTopic = { name: t.topic };
      if (t.numPartitions !== undefined) c.numPartitions = t.numPartitions;
      if (t.replicationFactor !== undefined) c.replicationFactor = t.replicationFactor;
      if (t.replicaAssignment) c.assignments = t.replicaAssignment;
      if (t.configEntries) c.config = Object.fromEntries(t.configEntries.map((e) => [e.name, e.value]));
      return c;
    });
    const r = await this.call({ type: 'CreateTopics', topics, validateOnly: opts.validateOnly ?? false });
    const results = r.topics as { name: string; errorCode: number; errorMessage: string | null }[];
    const bad = results.find((t) => t.errorCode !== ErrorCode.NONE && t.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS);
    if (bad) throw new SamsaError(bad.errorCode, `${bad.name}: ${bad.errorMessage ?? ''}`);
    if (opts.waitForLeaders ?? true) await this.waitForLeaders(results.filter((t) => t.errorCode === ErrorCode.NONE).map((t) => t.name));
    return results.every((t) => t.errorCode === ErrorCode.NONE);
  }

  private async waitForLeaders(names: string[], timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (names.length > 0) {
      const md = (await this.call({ type: 'FetchTopicMetadata', topics: null })).topics as TopicMetadata[];
      const ready = names.every((n) => md.find((t) => t.name === n)?.partitions.every((p) => p.leader >= 0));
      if (ready) return;
      if (Date.now() > deadline) throw new SamsaError(ErrorCode.LEADER_NOT_AVAILABLE, `topics ${names.join(', ')} have partitions without a leader after ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  async deleteTopics(opts: { topics: string[] }): Promise<void> {
    const r = await this.call({ type: 'DeleteTopics', topics: opts.topics });
    const bad = (r.topics as { name: string; errorCode: number; errorMessage: string | null }[]).find((t) => t.errorCode !== ErrorCode.NONE);
    if (bad) throw new SamsaError(bad.errorCode, `${bad.name}: ${bad.errorMessage ?? ''}`);
  }

  /**
   * Grows topics to `count` partitions (Kafka's Admin.createPartitions): each new partition's
   * replicas from `assignments` (one list per new partition, preferred leader first) or placed as
   * Kafka places them. Throws SamsaError with the first topic's error.
   */
  async createPartitions(opts: { topicPartitions: { topic: string; count: number; assignments?: number[][] }[] }): Promise<void> {
    const r = await this.call({ type: 'CreatePartitions', topics: opts.topicPartitions.map((t) => ({ name: t.topic, count: t.count, ...(t.assignments ? { assignments: t.assignments } : {}) })) });
    const bad = (r.topics as { name: string; errorCode: number; errorMessage: string | null }[]).find((t) => t.errorCode !== ErrorCode.NONE);
    if (bad) throw new SamsaError(bad.errorCode, `${bad.name}: ${bad.errorMessage ?? ''}`);
  }

  /**
   * Sets and removes config overrides of existing topics, as Kafka's incrementalAlterConfigs
   * does (the overrides not named stay): `set` maps keys to values, `delete` lists keys that go
   * back to the broker's default. Validated as at creation; every replica and its log take the
   * change. The first topic refused throws SamsaError naming it (INVALID_CONFIG for a bad key or
   * value, UNKNOWN_TOPIC_OR_PARTITION).
   */
  async alterTopicConfigs(opts: { topics: { topic: string; set?: Record<string, string>; delete?: string[] }[]; validateOnly?: boolean }): Promise<void> {
    const topics = opts.topics.map((t) => ({ name: t.topic, ...(t.set ? { set: t.set } : {}), ...(t.delete ? { delete: t.delete } : {}) }));
    const r = await this.call({ type: 'AlterTopicConfigs', topics, validateOnly: opts.validateOnly ?? false });
    const bad = (r.topics as { name: string; errorCode: number; errorMessage: string | null }[]).find((t) => t.errorCode !== ErrorCode.NONE);
    if (bad) throw new SamsaError(bad.errorCode, `${bad.name}: ${bad.errorMessage ?? ''}`);
  }

  /**
   * Leader elections, as Kafka's Admin.electLeaders: 'preferred' moves each partition back to its
   * preferred replica (the first assigned) when that replica is live and in sync, 'unclean' elects
   * a leader for partitions that have none, out of sync if it must (records may be lost). Without
   * `partitions`, every partition, and only those that needed an election are answered. Each
   * result keeps its code: NONE (elected), ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
   * ELIGIBLE_LEADERS_NOT_AVAILABLE or UNKNOWN_TOPIC_OR_PARTITION; a malformed request throws.
   */
  async electLeaders(opts: { electionType: 'preferred' | 'unclean'; partitions?: { topic: string; partition: number }[] | null }): Promise<ElectionResult[]> {
    const r = await this.call({ type: 'ElectLeaders', electionType: opts.electionType, partitions: opts.partitions ?? null });
    const results = r.results as { topic: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[];
    return results.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, errorCode: p.errorCode, errorMessage: p.errorMessage })));
  }

  /**
   * Partition reassignments, as KafkaJS's alterPartitionReassignments and Kafka's KIP-455: each
   * partition named moves to its `replicas` (the preferred leader first; the replication factor
   * may change), or with `replicas: null` its reassignment in progress is cancelled (it goes back
   * to the replicas it had, in the order they held during the move, as in Kafka). A reassignment starts at once (the new replicas are created and
   * fetch from the leader) and completes by itself when every target replica has joined the ISR:
   * the partition's replicas become the target, the others are deleted, and leadership moves
   * into the target if it must; listPartitionReassignments shows those still in progress. Each
   * result keeps its code: NONE (started, or cancelled), UNKNOWN_TOPIC_OR_PARTITION,
   * INVALID_REPLICA_ASSIGNMENT (no replicas, a broker twice, a broker never registered: as in
   * Kafka, a registered broker that is down may be a target, and the move waits for it),
   * NO_REASSIGNMENT_IN_PROGRESS (a cancel with none) or INVALID_REQUEST (a partition named twice);
   * a malformed request throws. With `allowReplicationFactorChange: false` (Kafka's
   * AlterPartitionReassignmentsOptions, KIP-860; true by default) a partition whose target would
   * change its replication factor (during a reassignment: the number of replicas it is headed
   * for) is INVALID_REPLICATION_FACTOR, saying from what to what; cancels and the others go ahead.
   */
  async alterPartitionReassignments(opts: { topics: { topic: string; partitionAssignment: PartitionAssignment[] }[]; allowReplicationFactorChange?: boolean }): Promise<ReassignmentResult[]> {
    if (!Array.isArray(opts?.topics) || !opts.topics.every((t) => typeof t === 'object' && t !== null && Array.isArray(t.partitionAssignment))) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, 'topics must be [{ topic, partitionAssignment: [{ partition, replicas }] }]');
    }
    const allowReplicationFactorChange = opts.allowReplicationFactorChange ?? true;
    if (typeof allowReplicationFactorChange !== 'boolean') throw new SamsaError(ErrorCode.INVALID_REQUEST, `allowReplicationFactorChange must be true or false, got ${String(allowReplicationFactorChange)}`);
    const topics = opts.topics.map((t) => ({ name: t.topic, partitions: t.partitionAssignment.map((a) => ({ partition: a?.partition, replicas: a?.replicas })) }));
    const r = await this.call({ type: 'AlterPartitionReassignments', topics, allowReplicationFactorChange });
    const results = r.topics as { name: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[];
    return results.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, errorCode: p.errorCode, errorMessage: p.errorMessage ?? null })));
  }

  /**
   * The reassignments in progress (KafkaJS's listPartitionReassignments): among the partitions
   * named, or all of them. Partitions without one, unknown ones included, are left out, and so
   * are topics without any: an empty `topics` means nothing is being moved.
   */
  async listPartitionReassignments(opts: { topics?: { topic: string; partitions: number[] }[] | null } = {}): Promise<{ topics: { topic: string; partitions: PartitionReassignment[] }[] }> {
    if (opts.topics != null && (!Array.isArray(opts.topics) || !opts.topics.every((t) => typeof t === 'object' && t !== null && Array.isArray(t.partitions)))) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, 'topics must be [{ topic, partitions: [n, ...] }]');
    }
    const topics = opts.topics ? opts.topics.map((t) => ({ name: t.topic, partitions: t.partitions })) : null;
    const r = await this.call({ type: 'ListPartitionReassignments', topics });
    const listed = r.topics as { name: string; partitions: PartitionReassignment[] }[];
    return {
      topics: listed
        .filter((t) => t.partitions.length > 0)
        .map((t) => ({
          topic: t.name,
          partitions: t.partitions.map((p) => ({ partition: p.partition, replicas: p.replicas, addingReplicas: p.addingReplicas, removingReplicas: p.removingReplicas })),
        })),
    };
  }

  async listTopics(): Promise<string[]> {
    return (await this.call({ type: 'ListTopics' })).topics as string[];
  }

  /**
   * The cluster id, the active controller's node and epoch, and the live brokers (Kafka's
   * describeCluster); with `includeFencedBrokers` (Kafka's DescribeClusterOptions, KIP-1073) the
   * registered brokers that are fenced as well (`fenced`: their session expired, or they shut
   * down, until they register again).
   */
  async describeCluster(opts: { includeFencedBrokers?: boolean } = {}): Promise<{ clusterId: string; controllerNode: string; controllerEpoch: number; brokers: BrokerInfo[] }> {
    const r = await this.call({ type: 'DescribeCluster', includeFencedBrokers: opts.includeFencedBrokers === true });
    return { clusterId: r.clusterId as string, controllerNode: r.controllerNode as string, controllerEpoch: r.controllerEpoch as number, brokers: r.brokers as BrokerInfo[] };
  }

  /**
   * The metadata quorum of the controllers (Kafka's describeMetadataQuorum; samsa metadata-quorum
   * prints it), as the active controller sees it: only the leader knows every voter's log end and
   * last contact. Voters are in id order. No controller reachable throws SamsaError.
   */
  async describeMetadataQuorum(): Promise<MetadataQuorumInfo> {
    const r = await this.call({ type: 'DescribeMetadataQuorum' });
    const replica = (v: QuorumVoterInfo): QuorumVoterInfo => ({
      id: v.id,
      node: v.node,
      ...(v.directoryId ? { directoryId: v.directoryId } : {}),
      logEndOffset: v.logEndOffset,
      lag: v.lag,
      lastContactMs: v.lastContactMs,
      role: v.role,
    });
    const info: MetadataQuorumInfo = {
      leaderId: r.leaderId as number,
      leaderEpoch: r.leaderEpoch as number,
      highWatermark: r.highWatermark as number,
      controllerEpoch: r.controllerEpoch as number,
      voters: (r.voters as QuorumVoterInfo[]).map(replica),
      observers: ((r.observers as QuorumVoterInfo[] | undefined) ?? []).map(replica),
    };
    if (typeof r.clusterId === 'string') info.clusterId = r.clusterId;
    return info;
  }

  /**
   * Adds a controller to the metadata quorum's voters (Kafka's Admin.addRaftVoter, KIP-853). It
   * must run and follow the quorum as an observer (see ClusterHandle.startController), caught
   * up; `voterDirectoryId`, when given, must be its metadata dir's. Resolves once the new voter
   * set is committed, or with `ackWhenCommitted: false` (KIP-1186)
   * once the active controller has written it, before the quorum has it; throws SamsaError with Kafka's code otherwise: REQUEST_TIMED_OUT (the
   * controller not heard from or behind, another change not committed yet, a leader just
   * elected), DUPLICATE_VOTER, NOT_CONTROLLER (no active controller found).
   */
  async addRaftVoter(opts: { voterId: number; voterDirectoryId?: string; ackWhenCommitted?: boolean }): Promise<void> {
    await this.call({ type: 'AddRaftVoter', voterId: opts.voterId, directoryId: opts.voterDirectoryId ?? null, ackWhenCommitted: opts.ackWhenCommitted !== false });
  }

  /**
   * Removes a controller from the voters (Kafka's Admin.removeRaftVoter): VOTER_NOT_FOUND for
   * one that is not a voter (or the last one), REQUEST_TIMED_OUT while another change is not
   * committed. The active controller may remove itself: another takes over once it commits.
   */
  async removeRaftVoter(opts: { voterId: number; voterDirectoryId?: string }): Promise<void> {
    await this.call({ type: 'RemoveRaftVoter', voterId: opts.voterId, directoryId: opts.voterDirectoryId ?? null });
  }

  /**
   * Takes a decommissioned broker out of the cluster's registrations (Kafka's
   * Admin.unregisterBroker): what it led gets a new leader, it leaves every ISR and ELR, and it no
   * longer appears in describeCluster, even among the fenced. Its replicas stay assigned to it
   * (reassign them first to keep their replication factor). A broker still running registers
   * again on its next heartbeat. Throws SamsaError BROKER_ID_NOT_REGISTERED for an id not
   * registered.
   */
  async unregisterBroker(brokerId: number): Promise<void> {
    await this.call({ type: 'UnregisterBroker', brokerId });
  }

  /**
   * The cluster's features (Kafka's Admin.describeFeatures, KIP-584): the levels samsa implements
   * for each, and the finalized level of each, from the active controller (a feature at level 0
   * is not finalized). `finalizedFeaturesEpoch` rises with every change (null: none known).
   */
  async describeFeatures(): Promise<FeatureMetadata> {
    const r = await this.call({ type: 'DescribeFeatures' });
    const finalized = r.finalized as FinalizedFeatures | null;
    const supportedFeatures: FeatureMetadata['supportedFeatures'] = {};
    for (const f of r.supported as { name: string; minVersion: number; maxVersion: number }[]) supportedFeatures[f.name] = { minVersion: f.minVersion, maxVersion: f.maxVersion };
    const finalizedFeatures: FeatureMetadata['finalizedFeatures'] = {};
    for (const [name, level] of Object.entries(finalized?.levels ?? {})) finalizedFeatures[name] = { minVersionLevel: level, maxVersionLevel: level };
    return { finalizedFeatures, finalizedFeaturesEpoch: finalized ? finalized.epoch : null, supportedFeatures };
  }

  /**
   * Changes finalized feature levels (Kafka's Admin.updateFeatures): all or none. A lower level
   * needs `upgradeType: 'safe-downgrade'` (or 'unsafe-downgrade'), and level 0 disables a feature
   * whose levels start at 0. `validateOnly` checks without changing. Throws SamsaError with
   * Kafka's INVALID_UPDATE_VERSION and its reason when an update is refused.
   */
  async updateFeatures(updates: Record<string, { maxVersionLevel: number; upgradeType?: FeatureUpgradeType }>, opts: { validateOnly?: boolean } = {}): Promise<void> {
    const types: Record<FeatureUpgradeType, number> = { upgrade: UpgradeType.Upgrade, 'safe-downgrade': UpgradeType.SafeDowngrade, 'unsafe-downgrade': UpgradeType.UnsafeDowngrade };
    const list = Object.entries(updates).map(([feature, u]) => ({ feature, level: u.maxVersionLevel, upgradeType: types[u.upgradeType ?? 'upgrade'] ?? -1 }));
    await this.call({ type: 'UpdateFeatures', updates: list, validateOnly: opts.validateOnly === true });
  }

  async fetchTopicMetadata(opts: { topics?: string[] } = {}): Promise<{ topics: TopicMetadata[] }> {
    return { topics: (await this.call({ type: 'FetchTopicMetadata', topics: opts.topics ?? null })).topics as TopicMetadata[] };
  }

  /**
   * Every group of the cluster, as Kafka's Admin.listGroups: only those of `types` ('classic',
   * 'consumer', 'share'; ListGroupsOptions.forShareGroups is `{ types: ['share'] }`) and in
   * `states` (case-insensitive) when given.
   */
  async listGroups(opts: { types?: GroupListing['groupType'][]; states?: string[] } = {}): Promise<{ groups: GroupListing[] }> {
    return { groups: (await this.call({ type: 'ListGroups', ...(opts.types ? { types: opts.types } : {}), ...(opts.states ? { states: opts.states } : {}) })).groups as GroupListing[] };
  }

  /** Each id's transaction from its coordinator (Kafka's describeTransactions); an id not told carries its error code. */
  async describeTransactions(transactionalIds: string[]): Promise<{ transactions: TransactionDescription[] }> {
    const r = await this.call({ type: 'DescribeTransactions', transactionalIds });
    const views = r.transactions as (TransactionView & { coordinatorId: number })[];
    return {
      transactions: views.map((t) => ({
        transactionalId: t.transactionalId,
        errorCode: t.errorCode,
        state: t.state,
        coordinatorId: t.coordinatorId,
        producerId: t.producerId,
        producerEpoch: t.producerEpoch,
        transactionTimeoutMs: t.txnTimeoutMs,
        transactionStartTimeMs: t.txnStartTimestamp,
        topicPartitions: t.partitions.map((p) => ({ topic: p.topic, partition: p.partition })),
      })),
    };
  }

  /**
   * Fences the producers of these transactional ids (Kafka's Admin.fenceProducers, KIP-618): each
   * id's coordinator bumps its producer epoch, so the producer holding the id is fenced
   * (PRODUCER_FENCED on its next request) and its ongoing transaction is aborted. Each id's new
   * producer id and epoch, or its error code (TRANSACTIONAL_ID_AUTHORIZATION_FAILED and the
   * like); a transaction still being aborted (CONCURRENT_TRANSACTIONS) is asked again until
   * request.timeout.ms passes. `transactionTimeoutMs` is the one the id is left with (default:
   * request.timeout.ms, as Kafka's).
   */
  async fenceProducers(transactionalIds: string[], opts: { transactionTimeoutMs?: number } = {}): Promise<FencedProducer[]> {
    const r = await this.call({ type: 'FenceProducers', transactionalIds, ...(opts.transactionTimeoutMs !== undefined ? { transactionTimeoutMs: opts.transactionTimeoutMs } : {}) });
    return r.producers as FencedProducer[];
  }

  /**
   * Aborts the ongoing transaction of a transactional id, if any, by fencing its producer
   * (Kafka's Admin.forceTerminateTransaction, `kafka-transactions forceTerminateTransaction`:
   * fenceProducers for one id). Throws SamsaError with the id's error.
   */
  async forceTerminateTransaction(transactionalId: string): Promise<void> {
    const [r] = await this.fenceProducers([transactionalId]);
    if (!r) throw new SamsaError(ErrorCode.UNKNOWN_SERVER_ERROR, `no answer for transactional id ${transactionalId}`);
    if (r.errorCode !== ErrorCode.NONE) throw new SamsaError(r.errorCode, r.errorMessage ?? undefined);
  }

  /**
   * Every transaction of the cluster (Kafka's listTransactions, asked of every live broker):
   * only those in `states` and of `producerIds` when given, only those running longer than
   * `durationMs` when given, only those whose whole transactional id `transactionalIdPattern`
   * matches when given (KIP-1152's filterOnTransactionalIdPattern: a regular expression in RE2J
   * syntax; one that does not compile throws INVALID_REGULAR_EXPRESSION). State names Kafka does
   * not know match nothing and come back in unknownStateFilters.
   */
  async listTransactions(opts: { states?: string[]; producerIds?: number[]; durationMs?: number; transactionalIdPattern?: string | null } = {}): Promise<{ transactions: TransactionListing[]; unknownStateFilters: string[] }> {
    const durationMs = opts.durationMs ?? -1;
    if (!Number.isSafeInteger(durationMs) || durationMs < -1) throw new SamsaError(ErrorCode.INVALID_REQUEST, `listTransactions: durationMs must be a non-negative integer, got ${String(opts.durationMs)}`);
    for (const id of opts.producerIds ?? []) {
      if (!Number.isSafeInteger(id) || id < 0) throw new SamsaError(ErrorCode.INVALID_REQUEST, `listTransactions: producer id ${String(id)} is not a non-negative integer`);
    }
    const pattern = opts.transactionalIdPattern ?? null;
    if (pattern !== null && typeof pattern !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `listTransactions: transactionalIdPattern must be a string, got ${String(pattern)}`);
    const r = await this.call({ type: 'ListTransactions', states: opts.states ?? [], producerIds: opts.producerIds ?? [], durationMs, transactionalIdPattern: pattern });
    return { transactions: r.transactions as TransactionListing[], unknownStateFilters: r.unknownStateFilters as string[] };
  }

  /**
   * The producers each partition of `topic` (all, or those named) has, from its leader, or from
   * its replica on `brokerId` when given (Kafka's describeProducers): epoch, last sequence and
   * timestamp, last coordinator epoch, and the first offset of an open transaction (-1: none).
   * An unknown topic throws UNKNOWN_TOPIC_OR_PARTITION, an unknown broker BROKER_NOT_AVAILABLE;
   * a partition that does not exist, or has no replica on the broker, carries its error code.
   */
  async describeProducers(topic: string, partitions?: number[], opts: { brokerId?: number } = {}): Promise<{ partitions: PartitionProducers[] }> {
    const msg: AdminMsg = { type: 'DescribeProducers', topic, partitions: partitions ?? null };
    if (opts.brokerId !== undefined) {
      if (!Number.isSafeInteger(opts.brokerId) || opts.brokerId < 0) throw new SamsaError(ErrorCode.INVALID_REQUEST, `describeProducers: broker id ${String(opts.brokerId)} is not a broker id`);
      msg.brokerId = opts.brokerId;
    }
    return { partitions: (await this.call(msg)).partitions as PartitionProducers[] };
  }

  /**
   * Ends a hanging transaction (Kafka's abortTransaction): the partition's leader writes an
   * ABORT marker for the producer's open transaction, as its coordinator would have. For a
   * transaction no coordinator will end (findHangingTransactions); take the producer's epoch and
   * coordinator epoch from describeProducers. Resolves once the ISR has the marker; a refusal
   * throws (PRODUCER_FENCED for an older epoch than the producer's, TRANSACTION_COORDINATOR_FENCED
   * for an older coordinator epoch than its last marker's).
   */
  async abortTransaction(spec: AbortTransactionSpec): Promise<void> {
    const ints: [string, number, number][] = [
      ['partition', spec.partition, 0],
      ['producerId', spec.producerId, 0],
      ['producerEpoch', spec.producerEpoch, 0],
      ['coordinatorEpoch', spec.coordinatorEpoch, 0],
    ];
    for (const [name, v, min] of ints) {
      if (!Number.isSafeInteger(v) || v < min) throw new SamsaError(ErrorCode.INVALID_REQUEST, `abortTransaction: ${name} must be an integer of at least ${min}, got ${String(v)}`);
    }
    if (spec.producerEpoch > 32767) throw new SamsaError(ErrorCode.INVALID_REQUEST, `abortTransaction: producerEpoch ${spec.producerEpoch} is above 32767`);
    if (typeof spec.topic !== 'string' || spec.topic === '') throw new SamsaError(ErrorCode.INVALID_REQUEST, 'abortTransaction: give the topic');
    await this.call({ type: 'AbortTransaction', topic: spec.topic, partition: spec.partition, producerId: spec.producerId, producerEpoch: spec.producerEpoch, coordinatorEpoch: spec.coordinatorEpoch });
  }

  /**
   * The hanging transactions of a topic (one partition of it, or all) or of a broker's replicas,
   * as Kafka's `kafka-transactions find-hanging` finds them: open longer than
   * `maxTransactionTimeoutMs` (15 minutes by default) with no coordinator that will end them.
   * See src/client/hanging-transactions.ts.
   */
  async findHangingTransactions(opts: FindHangingOptions): Promise<OpenTransaction[]> {
    return findHangingTransactions(this, opts, Date.now());
  }

  /**
   * Classic groups, as Kafka's Admin.describeClassicGroups asks for them (DescribeGroups):
   * state, protocol and members. A group that does not exist, or is a KIP-848 consumer group, is
   * GROUP_ID_NOT_FOUND (state Dead) with Kafka 4.0's message in errorMessage. `coordinatorId`:
   * the broker whose coordinator answered (-1: none did).
   */
  async describeGroups(groupIds: string[]): Promise<{ groups: (DescribedGroup & { coordinatorId: number })[] }> {
    return { groups: (await this.call({ type: 'DescribeGroups', groups: groupIds })).groups as (DescribedGroup & { coordinatorId: number })[] };
  }

  /**
   * KIP-848 consumer groups (group.protocol=consumer), as Kafka's Admin.describeConsumerGroups
   * asks for them (ConsumerGroupDescribe): state, epochs, assignor and each member's subscription,
   * assignment and target assignment, and its type (KIP-1099's member type): 'consumer' for a
   * member of the consumer protocol, 'classic' for a classic member (JoinGroup / SyncGroup) of the
   * group, during an online migration. A classic group, or none, is GROUP_ID_NOT_FOUND.
   * `coordinatorId`: the broker whose coordinator answered (-1: none did).
   */
  async describeConsumerGroups(groupIds: string[]): Promise<{ groups: (DescribedConsumerGroup & { coordinatorId: number })[] }> {
    return { groups: (await this.call({ type: 'DescribeConsumerGroups', groups: groupIds })).groups as (DescribedConsumerGroup & { coordinatorId: number })[] };
  }

  async deleteGroups(groupIds: string[]): Promise<{ groupId: string; errorCode: number }[]> {
    return (await this.call({ type: 'DeleteGroups', groups: groupIds })).groups as { groupId: string; errorCode: number }[];
  }

  /**
   * Removes members from a consumer group (Kafka's Admin.removeMembersFromConsumerGroup, a
   * LeaveGroup from the admin): each named by its group instance id (a static member, of either
   * protocol) or by its member id (a classic member), or, without `members`, every member the
   * group has (Kafka's removeAll). The group rebalances without them; a static member removed
   * this way frees its instance id at once instead of after its session timeout. Each member's
   * result: NONE, UNKNOWN_MEMBER_ID (not in the group, or a member of the consumer protocol
   * named by member id: it leaves by its own heartbeat), FENCED_INSTANCE_ID. Throws SamsaError
   * for the group (GROUP_ID_NOT_FOUND; INVALID_REQUEST when it has no member to remove).
   */
  async removeMembersFromConsumerGroup(
    groupId: string,
    opts: { members?: ({ groupInstanceId: string; memberId?: string } | { memberId: string; groupInstanceId?: string | null })[]; reason?: string } = {},
  ): Promise<{ memberId: string; groupInstanceId: string | null; errorCode: number }[]> {
    const members = opts.members ? opts.members.map((x) => ({ memberId: x.memberId ?? '', groupInstanceId: x.groupInstanceId ?? null })) : null;
    const r = await this.call({ type: 'RemoveMembers', groupId, members, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) });
    return r.members as { memberId: string; groupInstanceId: string | null; errorCode: number }[];
  }

  /**
   * Deletes a consumer group's committed offsets of `partitions` (Kafka's
   * Admin.deleteConsumerGroupOffsets, `kafka-consumer-groups --delete-offsets`): a result per
   * partition, NONE when it has none (any more), GROUP_SUBSCRIBED_TO_TOPIC while a member of the
   * group is subscribed to its topic (those offsets stay). Throws SamsaError for the group:
   * GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP (a running classic group that is not a consumer group),
   * INVALID_GROUP_ID.
   */
  async deleteConsumerGroupOffsets(groupId: string, partitions: { topic: string; partition: number }[]): Promise<{ topic: string; partition: number; errorCode: number }[]> {
    return (await this.call({ type: 'DeleteOffsets', groupId, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition })) })).partitions as { topic: string; partition: number; errorCode: number }[];
  }

  /**
   * KIP-932 share groups, as Kafka's Admin.describeShareGroups (ShareGroupDescribe, each of its
   * coordinator): state, epochs, assignor, and each member's subscription and assignment, with
   * the coordinator's broker id. A group that does not exist, or is not a share group, is
   * GROUP_ID_NOT_FOUND (state Dead).
   */
  async describeShareGroups(groupIds: string[]): Promise<{ groups: ShareGroupDescription[] }> {
    return { groups: (await this.call({ type: 'DescribeShareGroups', groups: groupIds })).groups as ShareGroupDescription[] };
  }

  /**
   * A share group's offsets, as Kafka 4.2's Admin.listShareGroupOffsets: per partition its
   * share-partition start offset (-1 without state), the leader epoch its state was written at,
   * and its lag (the high watermark - the start offset - the records above it already
   * acknowledged or archived). Of every partition of `topics` (a topic that does not exist
   * throws UNKNOWN_TOPIC_OR_PARTITION), or without them of the partitions the group has state
   * for and those of the topics its members subscribe to. Sorted by topic and partition.
   */
  async listShareGroupOffsets(opts: { groupId: string; topics?: string[] }): Promise<SharePartitionOffsetInfo[]> {
    const r = (await this.call({ type: 'ListShareGroupOffsets', groupId: opts.groupId, topics: opts.topics ?? null })) as unknown as ShareGroupOffsets;
    return r.topics
      .flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, ...p })))
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  }

  /**
   * Sets the start offsets of a share group's partitions (Kafka's Admin.alterShareGroupOffsets):
   * each partition's delivery state begins again at its offset. The group must have no members
   * (NON_EMPTY_GROUP) or not exist yet; a consumer or classic group's id is GROUP_ID_NOT_FOUND.
   * Those throw; a partition that does not exist carries UNKNOWN_TOPIC_OR_PARTITION.
   */
  async alterShareGroupOffsets(groupId: string, offsets: { topic: string; partition: number; offset: number }[]): Promise<{ topic: string; partition: number; errorCode: number; errorMessage: string | null }[]> {
    const byTopic = new Map<string, { partition: number; startOffset: number }[]>();
    for (const o of offsets) {
      if (!Number.isSafeInteger(o.partition) || o.partition < 0 || !Number.isSafeInteger(o.offset)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `alterShareGroupOffsets: ${o.topic}-${String(o.partition)} offset ${String(o.offset)}: partition and offset must be integers`);
      const list = byTopic.get(o.topic) ?? [];
      list.push({ partition: o.partition, startOffset: o.offset });
      byTopic.set(o.topic, list);
    }
    const r = (await this.call({ type: 'AlterShareGroupOffsets', groupId, topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) })) as unknown as AlteredShareGroupOffsets;
    return r.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, ...p })));
  }

  /**
   * Removes a share group's offsets of whole topics (Kafka's Admin.deleteShareGroupOffsets): the
   * group must exist and have no members (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP throw); a topic
   * that does not exist or has no offsets for the group carries UNKNOWN_TOPIC_OR_PARTITION.
   */
  async deleteShareGroupOffsets(groupId: string, topics: string[]): Promise<{ topic: string; errorCode: number; errorMessage: string | null }[]> {
    const r = (await this.call({ type: 'DeleteShareGroupOffsets', groupId, topics })) as unknown as DeletedShareGroupOffsets;
    return r.topics.map((t) => ({ topic: t.topic, errorCode: t.errorCode, errorMessage: t.errorMessage }));
  }

  /** Deletes share groups (Kafka's Admin.deleteShareGroups, DeleteGroups): each must have no members; their offsets go too. */
  async deleteShareGroups(groupIds: string[]): Promise<{ groupId: string; errorCode: number }[]> {
    return this.deleteGroups(groupIds);
  }

  /** Committed offsets of a group (offset -1 where nothing is committed). */
  async fetchOffsets(opts: { groupId: string; topics?: string[] }): Promise<{ topic: string; partitions: { partition: number; offset: number }[] }[]> {
    const r = await this.call({ type: 'FetchOffsets', groupId: opts.groupId, topics: opts.topics ?? null });
    return (r.topics as { name: string; partitions: { partition: number; offset: number }[] }[]).map((t) => ({
      topic: t.name,
      partitions: t.partitions.map((p) => ({ partition: p.partition, offset: p.offset })),
    }));
  }

  /** Resets a group's offsets for a topic (the group must have no active members). */
  async resetOffsets(opts: { groupId: string; topic: string; earliest?: boolean; partitions?: { partition: number; offset: number }[] }): Promise<void> {
    const to = opts.partitions ?? (opts.earliest ? 'earliest' : 'latest');
    await this.call({ type: 'ResetOffsets', groupId: opts.groupId, topic: opts.topic, to });
  }

  /**
   * Each partition's earliest offset (low: its log start) and latest (high: the high watermark,
   * the offset the next record gets), as KafkaJS's fetchTopicOffsets; high - low records are
   * there to read (fewer on a compacted topic, whose cleaned offsets are gaps).
   */
  async fetchTopicOffsets(topic: string): Promise<PartitionOffsets[]> {
    const r = await this.call({ type: 'FetchTopicOffsets', topic });
    return (r.partitions as { partition: number; low: number; high: number }[]).map((p) => ({ partition: p.partition, offset: p.high, high: p.high, low: p.low }));
  }

  /**
   * Each partition's offset at `timestamp` (ms), as KafkaJS's fetchTopicOffsetsByTimestamp: the
   * first offset whose record's timestamp is at least `timestamp`, or the high watermark where
   * no record is that late (and for every partition when `timestamp` is left out). An unknown
   * topic throws UNKNOWN_TOPIC_OR_PARTITION; a partition its leader did not answer for throws.
   */
  async fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number): Promise<{ partition: number; offset: number }[]> {
    if (timestamp !== undefined && (!Number.isSafeInteger(timestamp) || timestamp < 0)) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, `fetchTopicOffsetsByTimestamp: the timestamp must be ms since the epoch, got ${String(timestamp)}`);
    }
    const { topics } = await this.fetchTopicMetadata({ topics: [topic] });
    const partitions = topics[0]!.partitions.map((p) => ({ topic, partition: p.partition })).sort((a, b) => a.partition - b.partition);
    const highs = await this.listOffsets('latest', partitions);
    const found = timestamp === undefined ? highs : await this.listOffsets({ timestamp }, partitions);
    const refused = [...highs, ...found].find((p) => p.errorCode !== ErrorCode.NONE);
    if (refused) throw new SamsaError(refused.errorCode, `${topic}-${refused.partition}`);
    return found.map((p, i) => ({ partition: p.partition, offset: p.offset >= 0 ? p.offset : highs[i]!.offset }));
  }

  /**
   * The offsets of topic partitions for `spec`, as Kafka's Admin.listOffsets, each from its
   * partition's leader (asked again while leaders move), in the order given. isolationLevel
   * read_committed (Kafka's default is read_uncommitted) stops 'latest' at the last stable
   * offset and leaves out records of open transactions. A partition's failure stays in its
   * entry's errorCode; a malformed request throws INVALID_REQUEST.
   */
  async listOffsets(spec: OffsetSpec, partitions: { topic: string; partition: number }[], opts: { isolationLevel?: IsolationLevel } = {}): Promise<ListedOffset[]> {
    let timestamp: number;
    if (spec === 'earliest') timestamp = EARLIEST_TIMESTAMP;
    else if (spec === 'latest') timestamp = LATEST_TIMESTAMP;
    else if (spec === 'max-timestamp') timestamp = MAX_TIMESTAMP;
    else if (typeof spec === 'object' && spec !== null && Number.isSafeInteger(spec.timestamp) && spec.timestamp >= 0) timestamp = spec.timestamp;
    else throw new SamsaError(ErrorCode.INVALID_REQUEST, `listOffsets: the spec must be 'earliest', 'latest', 'max-timestamp' or { timestamp: ms }, got ${JSON.stringify(spec)}`);
    const isolationLevel = opts.isolationLevel ?? 'read_uncommitted';
    if (isolationLevel !== 'read_uncommitted' && isolationLevel !== 'read_committed') {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, `listOffsets: isolationLevel must be read_uncommitted or read_committed, got ${String(isolationLevel)}`);
    }
    if (!Array.isArray(partitions) || !partitions.every((p) => typeof p?.topic === 'string' && Number.isSafeInteger(p.partition))) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, 'listOffsets: partitions must be [{ topic, partition }, ...]');
    }
    if (partitions.length === 0) return [];
    const r = await this.call({ type: 'ListOffsets', partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition })), timestamp, isolationLevel });
    return r.partitions as ListedOffset[];
  }

  /**
   * Deletes the records of `topic`'s partitions below each offset given, as KafkaJS's
   * deleteTopicRecords (offset -1 or '-1': up to the high watermark); each partition's leader
   * moves its log start there. An offset below the log start deletes nothing. Resolves with each
   * partition's new low watermark; throws a SamsaError naming every partition refused (the
   * first one's code: OFFSET_OUT_OF_RANGE above the high watermark, UNKNOWN_TOPIC_OR_PARTITION,
   * POLICY_VIOLATION on a compacted topic, ...), the others' deletions done.
   */
  async deleteTopicRecords(opts: { topic: string; partitions: { partition: number; offset: number | string }[] }): Promise<DeletedRecords[]> {
    const { topic, partitions } = opts ?? ({} as typeof opts);
    if (typeof topic !== 'string' || topic === '') throw new SamsaError(ErrorCode.INVALID_REQUEST, `deleteTopicRecords: invalid topic ${JSON.stringify(topic)}`);
    if (!Array.isArray(partitions) || partitions.length === 0) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'deleteTopicRecords: give the partitions: [{ partition, offset }, ...]');
    const asked = partitions.map((p) => {
      const offset = typeof p?.offset === 'string' && /^-?\d+$/.test(p.offset) ? Number(p.offset) : p?.offset;
      if (!Number.isSafeInteger(p?.partition) || p.partition < 0) throw new SamsaError(ErrorCode.INVALID_REQUEST, `deleteTopicRecords: invalid partition ${JSON.stringify(p?.partition)}`);
      if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < -1) throw new SamsaError(ErrorCode.INVALID_REQUEST, `deleteTopicRecords: invalid offset ${JSON.stringify(p.offset)} for partition ${p.partition}`);
      return { topic, partition: p.partition, offset };
    });
    const seen = new Set<number>();
    for (const p of asked) {
      if (seen.has(p.partition)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `deleteTopicRecords: partition ${p.partition} is given more than once`);
      seen.add(p.partition);
    }
    const answers = await this.deleteRecords(asked);
    const refused = answers.filter((p) => p.errorCode !== ErrorCode.NONE);
    if (refused.length > 0) {
      throw new SamsaError(refused[0]!.errorCode, `records of ${refused.map((p) => `${topic}-${p.partition} (${p.errorMessage ?? ''})`).join(', ')} not deleted`);
    }
    return answers.map((p) => ({ partition: p.partition, lowWatermark: p.lowWatermark }));
  }

  /**
   * Deletes the records of topic partitions below each offset given, as Kafka's
   * Admin.deleteRecords (offset -1: up to the high watermark), each partition's leader asked
   * (again while leaders move). Each partition's answer keeps its error code
   * (OFFSET_OUT_OF_RANGE above the high watermark or below -1, UNKNOWN_TOPIC_OR_PARTITION,
   * POLICY_VIOLATION on a compacted topic, ...), in the order given; a malformed request throws
   * INVALID_REQUEST.
   */
  async deleteRecords(partitions: { topic: string; partition: number; offset: number }[]): Promise<DeleteRecordsResult[]> {
    if (!Array.isArray(partitions) || !partitions.every((p) => typeof p?.topic === 'string' && Number.isSafeInteger(p.partition) && Number.isSafeInteger(p.offset))) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, 'deleteRecords: partitions must be [{ topic, partition, offset }, ...] with integer partitions and offsets');
    }
    if (partitions.length === 0) return [];
    const r = await this.call({ type: 'DeleteRecords', partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.offset })) });
    return r.partitions as DeleteRecordsResult[];
  }

  /**
   * The log dirs of brokers (Kafka's Admin.describeLogDirs, each broker asked for its own):
   * `brokers` (default: every live broker) in that order, each with its partition logs, all of
   * them or those of `topics` (a topic without `partitions`: all of its; partitions a broker does
   * not hold are left out). A broker not registered or not answering keeps its error code in its
   * entry; a malformed request throws.
   */
  async describeLogDirs(opts: { brokers?: number[]; topics?: { topic: string; partitions?: number[] }[] } = {}): Promise<BrokerLogDirs[]> {
    if (opts.brokers !== undefined && (!Array.isArray(opts.brokers) || !opts.brokers.every((b) => Number.isSafeInteger(b) && b >= 0))) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, 'brokers must be broker ids: [1, 2, ...]');
    }
    const topicOk = (t: unknown) => {
      const { topic, partitions } = (t ?? {}) as { topic?: unknown; partitions?: unknown };
      return typeof topic === 'string' && (partitions === undefined || (Array.isArray(partitions) && partitions.every((p) => Number.isSafeInteger(p) && p >= 0)));
    };
    if (opts.topics !== undefined && (!Array.isArray(opts.topics) || !opts.topics.every(topicOk))) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, 'topics must be [{ topic, partitions?: [n, ...] }]');
    }
    const topics = opts.topics ? opts.topics.map((t) => ({ topic: t.topic, partitions: t.partitions ?? null })) : null;
    const r = await this.call({ type: 'DescribeLogDirs', brokers: opts.brokers ?? null, topics });
    return r.brokers as BrokerLogDirs[];
  }

  /**
   * Moves replicas between the log dirs of their brokers (Kafka's Admin.alterReplicaLogDirs):
   * each broker is asked for its own. Resolves one result per replica, in the order given, with
   * its error code (Kafka's per-replica futures); a malformed request throws INVALID_REQUEST.
   * Resolved as soon as each move has begun: describeLogDirs shows the log in its new dir once it
   * is there; meanwhile the replica serves on while its log is copied into a future log there,
   * as in Kafka.
   */
  async alterReplicaLogDirs(opts: { replicas: ReplicaLogDir[] }): Promise<ReplicaLogDirResult[]> {
    const ok = (r: unknown) => {
      const { topic, partition, broker, logDir } = (r ?? {}) as Partial<Record<keyof ReplicaLogDir, unknown>>;
      return typeof topic === 'string' && Number.isSafeInteger(partition) && (partition as number) >= 0 && Number.isSafeInteger(broker) && (broker as number) >= 0 && typeof logDir === 'string' && logDir.length > 0;
    };
    if (!Array.isArray(opts?.replicas) || !opts.replicas.every(ok)) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, 'replicas must be [{ topic, partition, broker, logDir }, ...] with integer partitions and broker ids');
    }
    if (opts.replicas.length === 0) return [];
    const replicas = opts.replicas.map((r) => ({ topic: r.topic, partition: r.partition, broker: r.broker, logDir: r.logDir }));
    const r = await this.call({ type: 'AlterReplicaLogDirs', replicas });
    return r.results as ReplicaLogDirResult[];
  }

  /**
   * Creates ACLs, as KafkaJS's createAcls: `acl` in KafkaJS's shape (AclEntry; Kafka's codes).
   * Every entry is checked before any is sent, so a malformed one (an unknown code, ANY where a
   * binding needs a value, a principal not of the form Type:name, an empty host, a cluster
   * resource other than the LITERAL 'kafka-cluster', a PREFIXED '*') throws INVALID_REQUEST
   * naming it and creates nothing. An ACL that exists already is no change. Resolves true once
   * the controller has committed them; brokers authorize with them as the metadata reaches them.
   * As in Kafka, any operation may be bound to any resource type (`samsa acls` refuses the
   * combinations the authorizer never asks about, as kafka-acls does).
   */
  async createAcls(opts: { acl: AclEntry[] }): Promise<boolean> {
    if (!Array.isArray(opts?.acl)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `acl must be [${ACL_ENTRY_SHAPE}]`);
    const creations = opts.acl.map((e, i) => toBinding(e, `acl[${i}]`));
    if (creations.length === 0) return true;
    const r = await this.call({ type: 'CreateAcls', creations });
    const results = r.results as { errorCode: number; errorMessage: string | null }[];
    const i = results.findIndex((x) => x.errorCode !== ErrorCode.NONE);
    if (i >= 0) throw new SamsaError(results[i]!.errorCode, `${describeBinding(creations[i]!)}: ${results[i]!.errorMessage ?? ''}`);
    return true;
  }

  /**
   * The ACLs a filter selects, grouped by resource pattern, as KafkaJS's describeAcls (without
   * its throttleTime and errorCode: an error throws). Codes left out of the filter are ANY, names
   * left out match every one: describeAcls() lists them all. Resources come in order (type, name,
   * pattern type), and their ACLs by principal, host, operation and permission.
   */
  async describeAcls(filter: AclFilter = {}): Promise<{ resources: AclResource[] }> {
    const r = await this.call({ type: 'DescribeAcls', filter: toFilter(filter, 'the filter') });
    const resources: AclResource[] = [];
    for (const b of r.acls as AclBinding[]) {
      let last = resources[resources.length - 1];
      if (!last || last.resourceType !== b.resourceType || last.resourceName !== b.resourceName || last.resourcePatternType !== b.patternType) {
        last = { resourceType: b.resourceType, resourceName: b.resourceName, resourcePatternType: b.patternType, acls: [] };
        resources.push(last);
      }
      last.acls.push({ principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permission });
    }
    return { resources };
  }

  /**
   * Deletes every ACL each filter selects (AclFilter, as describeAcls takes it; a filter of
   * nothing but ANY removes every ACL), as KafkaJS's deleteAcls: one response per filter, in
   * order, with the ACLs it removed (an ACL several filters select is removed once and listed
   * under each). Filters are checked before any is sent: a malformed one throws INVALID_REQUEST
   * and deletes nothing; a filter the controller refuses throws with its code.
   */
  async deleteAcls(opts: { filters: AclFilter[] }): Promise<{ filterResponses: DeleteAclsFilterResponse[] }> {
    if (!Array.isArray(opts?.filters)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `filters must be [${ACL_ENTRY_SHAPE}], each field optional`);
    const filters = opts.filters.map((f, i) => toFilter(f, `filters[${i}]`));
    if (filters.length === 0) return { filterResponses: [] };
    const r = await this.call({ type: 'DeleteAcls', filters });
    const results = r.filterResults as { errorCode: number; errorMessage: string | null; matchingAcls: AclBinding[] }[];
    const bad = results.findIndex((x) => x.errorCode !== ErrorCode.NONE);
    if (bad >= 0) throw new SamsaError(results[bad]!.errorCode, `filters[${bad}]: ${results[bad]!.errorMessage ?? ''}`);
    return {
      filterResponses: results.map((x) => ({
        errorCode: x.errorCode,
        errorMessage: x.errorMessage,
        matchingAcls: x.matchingAcls.map((b) => ({ ...toEntry(b), errorCode: ErrorCode.NONE, errorMessage: null })),
      })),
    };
  }

  /**
   * Sets and removes dynamic broker configs (Kafka's KIP-226, its incrementalAlterConfigs on
   * BROKER resources): of a broker (`broker`: its id), or the cluster-wide default every broker
   * takes for a key it has no value of its own for (`broker: null`). The keys not named stay.
   * A broker runs with its own over the default over its topology config, and takes a change
   * from the metadata at once (replicas of topics without their own value included). Only the
   * keys that can change at run time may be set or deleted (DYNAMIC_BROKER_CONFIG_KEYS: the
   * topic-config defaults log.*, message.max.bytes, min.insync.replicas and compression.type, the
   * replication and log dir move throttle rates, the connection limits,
   * transaction.partition.verification.enable, producer.id.expiration.ms and the log cleaner's
   * backoff and buffer).
   * Each resource is taken or refused on its own, as in Kafka: the first refused throws
   * SamsaError naming it (INVALID_REQUEST for a key that cannot change at run time, an unknown
   * key or a resource named twice; INVALID_CONFIG for a bad value), after the others were taken.
   * `validateOnly` checks without changing anything.
   */
  async alterBrokerConfigs(opts: { brokers: BrokerConfigChange[]; validateOnly?: boolean }): Promise<void> {
    if (!Array.isArray(opts?.brokers)) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'brokers must be [{ broker: id or null (the cluster-wide default), set?: { key: value }, delete?: [key] }]');
    const resources = opts.brokers.map((b, i) => {
      if (typeof b !== 'object' || b === null || !(b.broker === null || isBrokerId(b.broker))) {
        throw new SamsaError(ErrorCode.INVALID_REQUEST, `brokers[${i}]: broker must be a broker id, or null for the cluster-wide default`);
      }
      return { resource: b.broker === null ? '' : String(b.broker), ...(b.set ? { set: b.set } : {}), ...(b.delete ? { delete: b.delete } : {}) };
    });
    if (resources.length === 0) return;
    const r = await this.call({ type: 'AlterBrokerConfigs', resources, validateOnly: opts.validateOnly ?? false });
    const bad = (r.resources as { resource: string; errorCode: number; errorMessage: string | null }[]).find((x) => x.errorCode !== ErrorCode.NONE);
    if (bad) throw new SamsaError(bad.errorCode, `${brokerResource(bad.resource === '' ? null : Number(bad.resource))}: ${bad.errorMessage ?? ''}`);
  }

  /**
   * The dynamic broker configs, from the controller's metadata (what alterBrokerConfigs set):
   * without `broker`, every resource that has some (the cluster-wide default first, then broker
   * ids in order); with `broker` (an id, or null for the default) just that one, {} when it has
   * none. Only the dynamic values: a broker's topology config and the values in force are known
   * to the broker itself (describeConfigs asks it).
   */
  async describeBrokerConfigs(opts: { broker?: number | null } = {}): Promise<DynamicBrokerConfigs[]> {
    if (opts.broker !== undefined && opts.broker !== null && !isBrokerId(opts.broker)) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'broker must be a broker id, or null for the cluster-wide default');
    const all = (await this.call({ type: 'DynamicBrokerConfigs' })).brokerConfigs as Record<string, Record<string, string>>;
    if (opts.broker !== undefined) return [{ broker: opts.broker, configs: keyOrder(all[opts.broker === null ? '' : String(opts.broker)]) }];
    return Object.keys(all)
      .sort((a, b) => (a === '' ? -1 : b === '' ? 1 : Number(a) - Number(b)))
      .map((k) => ({ broker: k === '' ? null : Number(k), configs: keyOrder(all[k]) }));
  }

  /**
   * Sets and removes consumer groups' configs (Kafka 4.0's group configs, Admin.incrementalAlterConfigs
   * on GROUP resources): consumer.session.timeout.ms and consumer.heartbeat.interval.ms, each
   * change's `set` keys set and `delete` keys back to the brokers' group.consumer.* values (the
   * keys not named stay); a group need not exist. The controller checks each group's values
   * once the change is laid over its others: integers within group.consumer.min/max.session.timeout.ms
   * and group.consumer.min/max.heartbeat.interval.ms, the heartbeat interval below the session
   * timeout. Each group is taken or refused on its own, as in Kafka: the answer per group, in
   * order, keeps its code (NONE; INVALID_CONFIG for an unknown key or a bad value, with the
   * controller's reason; INVALID_REQUEST for an empty group name or a group named twice); a
   * malformed request throws INVALID_REQUEST and sends nothing. `validateOnly` checks without
   * changing anything. The group coordinators time their KIP-848 members' sessions with the new
   * values, and tell them the heartbeat interval, once the metadata reaches them.
   */
  async alterGroupConfigs(groups: GroupConfigChange[], opts: { validateOnly?: boolean } = {}): Promise<GroupConfigResult[]> {
    const shape = 'groups must be [{ group: id, set?: { key: value }, delete?: [key] }]';
    if (!Array.isArray(groups)) throw new SamsaError(ErrorCode.INVALID_REQUEST, shape);
    const wire = groups.map((g, i) => {
      if (typeof g !== 'object' || g === null || typeof g.group !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `groups[${i}]: group must be a group id (a string): ${shape}`);
      return { group: g.group, ...(g.set ? { set: g.set } : {}), ...(g.delete ? { delete: g.delete } : {}) };
    });
    if (wire.length === 0) return [];
    const r = await this.call({ type: 'AlterGroupConfigs', groups: wire, validateOnly: opts.validateOnly ?? false });
    return (r.groups as GroupConfigResult[]).map((g) => ({ group: g.group, errorCode: g.errorCode, errorMessage: g.errorMessage ?? null }));
  }

  /**
   * Sets and removes client metrics subscriptions' keys (KIP-714's CLIENT_METRICS configs, as
   * Kafka's incrementalAlterConfigs): `metrics` (metric name prefixes, comma-separated; `*` every
   * metric), `interval.ms` (100 to 3,600,000; 300,000 by default) and `match` (selector=regex
   * pairs: client_instance_id, client_id, client_software_name, client_software_version,
   * client_source_address, client_source_port; none: every client). A subscription is made by its
   * first key and gone with its last. Each is checked by the controller as Kafka's
   * ClientMetricsConfigs and answered on its own: an unknown key or an interval out of range is
   * INVALID_REQUEST, a bad pattern INVALID_CONFIG. Brokers with a telemetry receiver
   * (client.telemetry.receiver) give the clients that match the metrics to push.
   */
  async alterClientMetrics(subscriptions: ClientMetricsChange[], opts: { validateOnly?: boolean } = {}): Promise<ClientMetricsResult[]> {
    const shape = 'subscriptions must be [{ name, set?: { key: value }, delete?: [key] }]';
    if (!Array.isArray(subscriptions)) throw new SamsaError(ErrorCode.INVALID_REQUEST, shape);
    const wire = subscriptions.map((x, i) => {
      if (typeof x !== 'object' || x === null || typeof x.name !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, `subscriptions[${i}]: name must be a string: ${shape}`);
      return { name: x.name, ...(x.set ? { set: x.set } : {}), ...(x.delete ? { delete: x.delete } : {}) };
    });
    if (wire.length === 0) return [];
    const r = await this.call({ type: 'AlterClientMetrics', subscriptions: wire, validateOnly: opts.validateOnly ?? false });
    return (r.subscriptions as ClientMetricsResult[]).map((x) => ({ name: x.name, errorCode: x.errorCode, errorMessage: x.errorMessage ?? null }));
  }

  /** The client metrics subscriptions (KIP-714) by name, from the controller's metadata: every one, or (`name`) that one ({} when it has none). */
  async describeClientMetrics(opts: { name?: string } = {}): Promise<ClientMetricsSubscription[]> {
    if (opts.name !== undefined && typeof opts.name !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, 'name must be a subscription name (a string)');
    const all = (await this.call({ type: 'ClientMetricsSubscriptions' })).subscriptions as Record<string, Record<string, string>>;
    if (opts.name !== undefined) return [{ name: opts.name, configs: keyOrder(all[opts.name]) }];
    return Object.keys(all)
      .sort()
      .map((name) => ({ name, configs: keyOrder(all[name]) }));
  }

  /**
   * The group configs, from the controller's metadata (what alterGroupConfigs set): without
   * `group`, every group that has some, in group id order; with `group` just that one, {} when it
   * has none. Only the groups' own values: describeConfigs({ group }) gives both keys with the
   * broker defaults for those not set.
   */
  async describeGroupConfigs(opts: { group?: string } = {}): Promise<GroupConfigs[]> {
    if (opts.group !== undefined && typeof opts.group !== 'string') throw new SamsaError(ErrorCode.INVALID_REQUEST, 'group must be a group id (a string)');
    const all = (await this.call({ type: 'DynamicGroupConfigs' })).groupConfigs as Record<string, Record<string, string>>;
    if (opts.group !== undefined) return [{ group: opts.group, configs: keyOrder(all[opts.group]) }];
    return Object.keys(all)
      .sort()
      .map((group) => ({ group, configs: keyOrder(all[group]) }));
  }

  /**
   * Sets and removes client quotas, as Kafka's Admin.alterClientQuotas: each entry names an
   * entity ({ user?, clientId? }: a name, or null for the default) and its ops ({ key, value }
   * sets, { key, remove: true } or { key, value: null } removes; the keys not named stay). The
   * keys are producer_byte_rate and consumer_byte_rate (bytes per second, per broker),
   * request_percentage (KIP-124: the percentage of a request handler thread's time, per broker;
   * over 100 is more than one thread's worth), controller_mutation_rate (partitions created or
   * deleted per second, kept by the controller) for users and client ids, and
   * connection_creation_rate for IPs. Entries are checked for their shape
   * before any is sent (a malformed one throws INVALID_REQUEST and changes nothing); then each
   * entry is taken or refused on its own, as in Kafka: the first refused throws SamsaError
   * naming its entity and the controller's reason (INVALID_REQUEST for an unknown key, a value
   * not above 0 or not a number, an empty name, an entity named twice), after the others were
   * taken. `validateOnly` checks without changing anything. Brokers enforce the quotas once the
   * metadata reaches them.
   */
  async alterClientQuotas(entries: ClientQuotaAlteration[], opts: { validateOnly?: boolean } = {}): Promise<void> {
    if (!Array.isArray(entries)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `entries must be ${QUOTA_ALTERATION_SHAPE}`);
    const checked = entries.map((raw, i) => {
      if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { ops?: unknown }).ops)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `entries[${i}] must be { entity, ops: [...] }: ${QUOTA_ALTERATION_SHAPE}`);
      const entity = checkQuotaEntity(raw.entity, `entries[${i}]`);
      return { entity, wire: { entity: entityToWire(entity), ops: raw.ops.map((op, j) => checkQuotaOp(op, `entries[${i}].ops[${j}]`)) } };
    });
    if (checked.length === 0) return;
    const r = await this.call({ type: 'AlterClientQuotas', entries: checked.map((c) => c.wire), validateOnly: opts.validateOnly ?? false });
    const results = r.entries as { errorCode: number; errorMessage: string | null }[];
    const i = results.findIndex((x) => x.errorCode !== ErrorCode.NONE);
    if (i >= 0) throw new SamsaError(results[i]!.errorCode, `${describeEntity(checked[i]!.entity)}: ${results[i]!.errorMessage ?? ''}`);
  }

  /**
   * The client quotas a filter selects, as Kafka's Admin.describeClientQuotas, from the
   * controller's metadata (what alterClientQuotas set): each entity with its quotas (key -> its
   * limit), in entity order (by user, then client id; an entity not naming the type first,
   * then the default, then names). An entity passes when it matches every component (a name, the
   * default, or any entity naming the type); `strict` (Kafka's ClientQuotaFilter.containsOnly)
   * also leaves out entities naming a type no component names. describeClientQuotas() lists them all.
   */
  async describeClientQuotas(filter: { components?: ClientQuotaFilterComponent[]; strict?: boolean } = {}): Promise<ClientQuotaEntry[]> {
    if (filter.components !== undefined && !Array.isArray(filter.components)) throw new SamsaError(ErrorCode.INVALID_REQUEST, "components must be [{ entityType: 'user' | 'client-id' | 'ip', match?: name | null }]");
    const components = (filter.components ?? []).map((c, i) => checkQuotaComponent(c, `components[${i}]`));
    const r = await this.call({ type: 'DescribeClientQuotas', components, strict: filter.strict === true });
    return (r.entries as ClientQuota[]).sort((a, b) => compareEntities(a.entity, b.entity)).map((q) => ({ entity: { ...q.entity }, quotas: Object.fromEntries(Object.entries(q.quotas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }));
  }

  /**
   * Creates, replaces and deletes SCRAM credentials (Kafka's Admin.alterUserScramCredentials,
   * KIP-554): an upsertion ({ user, mechanism, iterations?, password }) sets the user's credential
   * of that mechanism, a deletion ({ user, mechanism }) removes it. The password never leaves the
   * client: each upsertion gets a random 32-byte salt and its salted password (PBKDF2) is computed
   * here; the controller keeps the stored and server keys derived from it, and the brokers' SASL
   * listeners take them with the metadata. Alterations are checked for their shape before any is
   * sent (a malformed one, or an unknown mechanism, throws and changes nothing); then each user's
   * changes are taken or refused together, as in Kafka: the first user refused throws SamsaError
   * naming the user and the controller's reason (UNACCEPTABLE_CREDENTIAL for an empty user name or
   * iterations outside 4096..16384, RESOURCE_NOT_FOUND for deleting a credential that does not
   * exist, DUPLICATE_RESOURCE for a user and mechanism named twice), after the other users' were taken.
   */
  async alterUserScramCredentials(alterations: UserScramCredentialAlteration[]): Promise<void> {
    if (!Array.isArray(alterations)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `alterations must be ${SCRAM_ALTERATION_SHAPE}`);
    const checked = alterations.map((a, i) => checkScramAlteration(a, `alterations[${i}]`));
    if (checked.length === 0) return;
    const deletions = checked.flatMap((c) => ('delete' in c ? [c.delete] : []));
    const upsertions = checked.flatMap((c) => ('upsert' in c ? [c.upsert] : []));
    const r = await this.call({ type: 'AlterUserScramCredentials', deletions, upsertions });
    const bad = (r.results as { user: string; errorCode: number; errorMessage: string | null }[]).find((x) => x.errorCode !== ErrorCode.NONE);
    if (bad) throw new SamsaError(bad.errorCode, `user '${bad.user}': ${bad.errorMessage ?? ''}`);
  }

  /**
   * The SCRAM credentials of users (Kafka's Admin.describeUserScramCredentials): each user's
   * mechanisms and iterations (never a salt or key), in mechanism order. Without users (or with
   * []), every user that has a credential, in name order; with users, those of them that have
   * one, in the order named: a user without any is left out (as in Kafka's users()). A user named
   * twice throws DUPLICATE_RESOURCE naming it, as the controller answers.
   */
  async describeUserScramCredentials(users?: string[] | null): Promise<UserScramCredentialsDescription[]> {
    if (users != null && (!Array.isArray(users) || !users.every((u) => typeof u === 'string'))) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'users must be user names: [name, ...]');
    const r = await this.call({ type: 'DescribeUserScramCredentials', users: users && users.length > 0 ? [...users] : null });
    const results = r.results as { user: string; errorCode: number; errorMessage: string | null; credentials: { mechanism: number; iterations: number }[] }[];
    const bad = results.find((x) => x.errorCode !== ErrorCode.NONE && x.errorCode !== ErrorCode.RESOURCE_NOT_FOUND);
    if (bad) throw new SamsaError(bad.errorCode, `user '${bad.user}': ${bad.errorMessage ?? ''}`);
    return results
      .filter((x) => x.errorCode === ErrorCode.NONE)
      .map((x) => ({
        user: x.user,
        credentials: [...x.credentials].sort((a, b) => a.mechanism - b.mechanism).map((c) => ({ mechanism: scramMechanismName(c.mechanism) as ScramMechanismName, iterations: c.iterations })),
      }));
  }

  /**
   * Creates a delegation token (Kafka's Admin.createDelegationToken, KIP-48) for `owner`
   * ('User:alice'; required: this client has no Kafka principal of its own, and is trusted as the
   * cluster's, as for ACLs), renewable by `renewers` (Users only, else INVALID_PRINCIPAL_TYPE),
   * for at most `maxLifetimeMs` (absent or <= 0: delegation.token.max.lifetime.ms). `requester`
   * is recorded as the principal that asked (default: the owner). Without
   * delegation.token.secret.key on the controller: DELEGATION_TOKEN_AUTH_DISABLED. The HMAC is
   * the password a client logs in with over SCRAM (base64, with the token id as user name and
   * the extension tokenauth=true).
   */
  async createDelegationToken(options: { owner: string; renewers?: string[]; maxLifetimeMs?: number; requester?: string }): Promise<DelegationToken> {
    const o = (options ?? {}) as { owner?: unknown; renewers?: unknown; maxLifetimeMs?: unknown; requester?: unknown };
    const owner = checkPrincipal(o.owner, 'owner');
    const requester = o.requester === undefined ? owner : checkPrincipal(o.requester, 'requester');
    if (o.renewers !== undefined && !Array.isArray(o.renewers)) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'renewers must be principals: [\'User:<name>\', ...]');
    const renewers = ((o.renewers ?? []) as unknown[]).map((r, i) => checkPrincipal(r, `renewers[${i}]`));
    const r = await this.call({ type: 'CreateDelegationToken', owner, requester, renewers, maxLifetimeMs: checkPeriod(o.maxLifetimeMs, 'maxLifetimeMs') });
    return toDelegationToken(r.token as WireToken, r.hmac as string);
  }

  /**
   * Renews the token with this HMAC (Kafka's Admin.renewDelegationToken) by `renewTimePeriodMs`
   * (absent or <= 0: delegation.token.expiry.time.ms), never past its max timestamp; resolves
   * with its new expiry timestamp. As `principal` (it must own or renew the token, else
   * DELEGATION_TOKEN_OWNER_MISMATCH), or as the token's owner without one. An unknown HMAC is
   * DELEGATION_TOKEN_NOT_FOUND, an expired token DELEGATION_TOKEN_EXPIRED.
   */
  async renewDelegationToken(hmac: Buffer, options: { renewTimePeriodMs?: number; principal?: string } = {}): Promise<number> {
    const principal = options.principal === undefined ? null : checkPrincipal(options.principal, 'principal');
    const r = await this.call({ type: 'RenewDelegationToken', principal, hmac: checkHmac(hmac), renewPeriodMs: checkPeriod(options.renewTimePeriodMs, 'renewTimePeriodMs') });
    return r.expiryTimestamp as number;
  }

  /**
   * Expires the token with this HMAC (Kafka's Admin.expireDelegationToken): `expiryTimePeriodMs`
   * from now (never past its max timestamp), or at once (absent or negative: the token is
   * removed); resolves with its expiry timestamp. `principal` as for renewing.
   */
  async expireDelegationToken(hmac: Buffer, options: { expiryTimePeriodMs?: number; principal?: string } = {}): Promise<number> {
    const principal = options.principal === undefined ? null : checkPrincipal(options.principal, 'principal');
    const r = await this.call({ type: 'ExpireDelegationToken', principal, hmac: checkHmac(hmac), expiryTimePeriodMs: checkPeriod(options.expiryTimePeriodMs, 'expiryTimePeriodMs') });
    return r.expiryTimestamp as number;
  }

  /**
   * The delegation tokens (Kafka's Admin.describeDelegationToken), oldest first, with their
   * HMACs: every token, or with `owners` those whose owner, requester or a renewer is one of
   * them ([] : none, as Kafka).
   */
  async describeDelegationToken(options: { owners?: string[] | null } = {}): Promise<DelegationToken[]> {
    const owners = options.owners == null ? null : (Array.isArray(options.owners) ? options.owners : [options.owners]).map((p, i) => checkPrincipal(p, `owners[${i}]`));
    const r = await this.call({ type: 'DescribeDelegationTokens' });
    const tokens = r.tokens as (WireToken & { hmac: string })[];
    return tokens.filter((t) => owners === null || owners.some((o) => t.owner === o || t.requester === o || t.renewers.includes(o))).map((t) => toDelegationToken(t, t.hmac));
  }

  /**
   * A resource's configs as Kafka's Admin.describeConfigs gives them (ConfigEntry, in key order:
   * the value in force, its source, whether it is read-only, and its synonyms, most specific
   * first):
   *  - `{ broker: id }`: every broker key, as that broker has it (its topology config, its own
   *    and the cluster-wide dynamic configs, Kafka's defaults); the keys that cannot change at
   *    run time are read-only. The broker must be running (else BROKER_NOT_AVAILABLE).
   *  - `{ broker: null }`: the cluster-wide dynamic defaults, only the keys set (as Kafka).
   *  - `{ topic }`: every topic key: the topic's override, else the broker default in force on
   *    the leader of its first partition (or another live broker), whose id is `brokerId`: a
   *    broker's own config may differ from another's. UNKNOWN_TOPIC_OR_PARTITION if it does not exist.
   *  - `{ group }`: a consumer group's keys (Kafka 4.0's group configs: consumer.heartbeat.interval.ms,
   *    consumer.session.timeout.ms): the group's own value (DYNAMIC_GROUP_CONFIG), else the
   *    broker's group.consumer.heartbeat.interval.ms / group.consumer.session.timeout.ms
   *    (DEFAULT_CONFIG, as Kafka) on its coordinator, the leader of its __consumer_offsets
   *    partition (or another live broker), whose id is `brokerId`. The group need not exist;
   *    an empty group name is INVALID_REQUEST.
   */
  async describeConfigs(resource: { broker: number | null } | { topic: string } | { group: string }): Promise<ResourceConfigs> {
    const r = (resource ?? {}) as { broker?: unknown; topic?: unknown; group?: unknown };
    if (typeof r.topic !== 'string' && typeof r.group !== 'string' && !(r.broker === null || isBrokerId(r.broker))) {
      throw new SamsaError(ErrorCode.INVALID_REQUEST, 'the resource must be { broker: id }, { broker: null } (the cluster-wide default), { topic: name } or { group: id }');
    }
    const wire = typeof r.topic === 'string' ? { topic: r.topic } : typeof r.group === 'string' ? { group: r.group } : { broker: r.broker as number | null };
    const answer = await this.call({ type: 'DescribeConfigs', resource: wire });
    return { brokerId: answer.brokerId as number | null, configs: answer.configs as ConfigEntry[] };
  }

  /**
   * A broker's loggers, as Kafka's describeConfigs of a BROKER_LOGGER resource lists them (KIP-412):
   * root first, then every named logger of the broker's node by name (an actor's samsa.<kind>,
   * a component's below it: samsa.broker.log-manager.log), each with the level it runs at, its
   * own or its nearest ancestor's. The broker must be running (else BROKER_NOT_AVAILABLE).
   */
  async describeBrokerLoggers(broker: number): Promise<BrokerLogger[]> {
    if (!isBrokerId(broker)) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'broker must be a broker id');
    return (await this.call({ type: 'DescribeBrokerLoggers', broker })).loggers as BrokerLogger[];
  }

  /**
   * Sets and removes a broker's log levels, as Kafka's incrementalAlterConfigs on a BROKER_LOGGER
   * resource: `set` gives loggers a level (Kafka's names, in any case), and the loggers below them
   * without their own follow; `delete` takes a logger's own level away (it runs at its nearest
   * ancestor's again). Checked whole before anything changes: a logger the broker does not have or
   * a level Kafka does not name is INVALID_CONFIG, deleting root's level INVALID_REQUEST. The
   * levels last until the broker stops. `validateOnly` checks without changing anything.
   */
  async alterBrokerLoggers(opts: { broker: number; set?: Record<string, string>; delete?: string[]; validateOnly?: boolean }): Promise<void> {
    if (!isBrokerId(opts?.broker)) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'broker must be a broker id');
    const changes = [
      ...Object.entries(opts.set ?? {}).map(([name, level]) => ({ name, op: 'set' as const, level })),
      ...(opts.delete ?? []).map((name) => ({ name, op: 'delete' as const })),
    ];
    if (changes.length === 0) return;
    await this.call({ type: 'AlterBrokerLoggers', broker: opts.broker, changes, validateOnly: opts.validateOnly ?? false });
  }

  /** Per partition: committed offset, log end offset (high watermark) and lag. */
  async lag(opts: { groupId: string; topics?: string[] }): Promise<PartitionLag[]> {
    return (await this.call({ type: 'GroupLag', groupId: opts.groupId, topics: opts.topics ?? null })).partitions as PartitionLag[];
  }
}
