/**
 * Broker configuration with Kafka's names and defaults. Broker-level log defaults use Kafka's
 * broker names (log.segment.bytes, log.retention.ms, ...) and are translated to the topic-level
 * names the log understands. Unknown keys and bad values throw a ConfigError naming the key.
 */
import { consumerGroupTimeoutsProblem, shareGroupBoundsProblem, type ConsumerGroupTimeouts, type ShareGroupBounds } from '../group-coordinator/group-configs.js';
import { COMPRESSION_TYPES } from '../../src/protocol/recompress.js';
import { COMPRESSION_LEVELS, compressionLevelProblem, type LeveledCodec } from '../../src/protocol/compression.js';
import { UNLIMITED_RATE } from '../../src/runtime/rate-quota.js';
import { LEADER_SELECTOR, RACK_AWARE_REPLICA_SELECTOR } from '../partition-replica/read-replica-selector.js';
import { ConfigError, KAFKA_LONG_MAX, logConfigToKafka, parseLogConfig, type LogConfig } from '../../src/storage/log-config.js';
import { parseIpOverrides } from '../../src/kafka/connection-limits.js';
import { MIGRATION_POLICIES } from '../group-coordinator/group-conversion.js';
import { SSL_PRINCIPAL_MAPPING_RULES, SslPrincipalMapper } from '../../src/security/ssl-principal-mapper.js';

export interface BrokerConfig {
  replicaLagTimeMaxMs: number;
  replicaFetchWaitMaxMs: number;
  replicaFetchMinBytes: number;
  replicaFetchMaxBytes: number;
  replicaFetchResponseMaxBytes: number;
  replicaFetchBackoffMs: number;
  brokerHeartbeatIntervalMs: number;
  minInsyncReplicas: number;
  requestTimeoutMs: number;
  logRetentionCheckIntervalMs: number;
  logFlushSchedulerIntervalMs: number;
  offsetsTopicNumPartitions: number;
  offsetsTopicReplicationFactor: number;
  offsetsTopicSegmentBytes: number;
  offsetsRetentionMinutes: number;
  groupInitialRebalanceDelayMs: number;
  groupMinSessionTimeoutMs: number;
  groupMaxSessionTimeoutMs: number;
  /** group.max.size: the most members of a classic group (KIP-389). */
  groupMaxSize: number;
  /** KIP-848 consumer groups: group.consumer.heartbeat.interval.ms, .session.timeout.ms, .max.size. */
  groupConsumerHeartbeatIntervalMs: number;
  groupConsumerSessionTimeoutMs: number;
  /** The bounds of a consumer group's own session timeout and heartbeat interval (group configs): group.consumer.min/max.*. */
  groupConsumerMinSessionTimeoutMs: number;
  groupConsumerMaxSessionTimeoutMs: number;
  groupConsumerMinHeartbeatIntervalMs: number;
  groupConsumerMaxHeartbeatIntervalMs: number;
  groupConsumerMaxSize: number;
  /** group.share.* (KIP-932 share groups): the defaults of a share group's share.* configs and their bounds. */
  groupShareRecordLockDurationMs: number;
  groupShareMinRecordLockDurationMs: number;
  groupShareMaxRecordLockDurationMs: number;
  groupShareDeliveryCountLimit: number;
  groupSharePartitionMaxRecordLocks: number;
  groupShareSessionTimeoutMs: number;
  groupShareMinSessionTimeoutMs: number;
  groupShareMaxSessionTimeoutMs: number;
  groupShareHeartbeatIntervalMs: number;
  groupShareMinHeartbeatIntervalMs: number;
  groupShareMaxHeartbeatIntervalMs: number;
  groupShareMaxSize: number;
  /** group.share.max.share.sessions: share sessions a broker keeps at most. */
  groupShareMaxShareSessions: number;
  /**
   * group.consumer.migration.policy: whether a live classic group may become a consumer group
   * (upgrade), a consumer group whose last consumer-protocol member leaves a classic group
   * (downgrade), both (Kafka 4.0's default) or neither.
   */
  groupConsumerMigrationPolicy: string;
  /** How long a partition keeps an idle idempotent producer's sequence state. */
  producerIdExpirationMs: number;
  /** transaction.state.log.*: how __transaction_state is created (partitions, replication, min ISR, segment size). */
  transactionStateLogNumPartitions: number;
  transactionStateLogReplicationFactor: number;
  transactionStateLogMinIsr: number;
  transactionStateLogSegmentBytes: number;
  /** share.coordinator.state.topic.*: how __share_group_state is created (partitions, replication, min ISR, segment size). */
  shareCoordinatorStateTopicNumPartitions: number;
  shareCoordinatorStateTopicReplicationFactor: number;
  shareCoordinatorStateTopicMinIsr: number;
  shareCoordinatorStateTopicSegmentBytes: number;
  /** share.coordinator.write.timeout.ms: how long a write to __share_group_state waits for all in-sync replicas. */
  shareCoordinatorWriteTimeoutMs: number;
  /** share.coordinator.load.buffer.size: bytes per read when the share coordinator loads a __share_group_state partition. */
  shareCoordinatorLoadBufferSize: number;
  /** transaction.max.timeout.ms: the longest transaction timeout a producer may ask for. */
  transactionMaxTimeoutMs: number;
  /** transactional.id.expiration.ms: a transactional id unused this long (no transaction open) is forgotten. */
  transactionalIdExpirationMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms: how often open transactions past their timeout are aborted. */
  transactionAbortTimedOutTransactionCleanupIntervalMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms: how often expired transactional ids are removed. */
  transactionRemoveExpiredTransactionCleanupIntervalMs: number;
  /**
   * transaction.partition.verification.enable (KIP-890): before a transaction's first batch on a
   * partition is written, its coordinator confirms the partition is in the transaction.
   */
  transactionPartitionVerificationEnable: boolean;
  /** Kafka listener: requests larger than this close the connection. */
  socketRequestMaxBytes: number;
  /** max.request.partition.size.limit: the most partitions one DescribeTopicPartitions answer holds. */
  maxRequestPartitionSizeLimit: number;
  /** max.incremental.fetch.session.cache.slots: the most incremental fetch sessions (KIP-227) kept. */
  maxIncrementalFetchSessionCacheSlots: number;
  /** telemetry.max.bytes (KIP-714): the largest metrics payload a client may push (PushTelemetry). */
  telemetryMaxBytes: number;
  /**
   * client.telemetry.receiver (samsa's; Kafka plugs a ClientTelemetry metrics reporter in): the
   * path of an actor on the broker's node that takes the metrics clients push (KIP-714's
   * GetTelemetrySubscriptions and PushTelemetry are offered only with one); '' none.
   */
  clientTelemetryReceiver: string;
  /**
   * Kafka listener: a SASL session lasts this long (0: forever); the client re-authenticates
   * before it ends (KIP-368), or its next request after it closes the connection.
   */
  connectionsMaxReauthMs: number;
  /** Kafka listener: open connections at most (KIP-402's max.connections). */
  maxConnections: number;
  /** Kafka listener: connections from one IP address at most. */
  maxConnectionsPerIp: number;
  /** Kafka listener: per-IP exceptions to maxConnectionsPerIp (`ip:count,...`). */
  maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
  /** Kafka listener: new connections a second at most; further ones wait (KIP-612). */
  maxConnectionCreationRate: number;
  /** Kafka listener: a Metadata request naming an unknown topic creates it (when the request allows). */
  autoCreateTopicsEnable: boolean;
  /** compression.type: the codec a topic without its own compression.type is stored in ('producer': as sent). */
  compressionType: string;
  /**
   * compression.gzip.level, compression.lz4.level, compression.zstd.level (KIP-390): the level a
   * topic without its own recompresses to its codec at.
   */
  compressionGzipLevel: number;
  compressionLz4Level: number;
  compressionZstdLevel: number;
  /** log.cleaner.enable: compact the logs whose cleanup.policy has compact. */
  logCleanerEnable: boolean;
  /** log.cleaner.backoff.ms: the pause between two cleaner passes that found nothing to compact. */
  logCleanerBackoffMs: number;
  /** log.cleaner.dedupe.buffer.size: memory for the cleaner's key -> offset map, in bytes. */
  logCleanerDedupeBufferSize: number;
  /**
   * replica.selector.class: '' (Kafka's default, null: consumers read from leaders),
   * LeaderSelector's class name (the same), or RackAwareReplicaSelector's (KIP-392: a consumer that
   * names its rack is sent to a replica in it).
   */
  replicaSelectorClass: string;
  /**
   * authorizer.class.name: '' (Kafka's default: no authorizer, every client may do everything) or
   * StandardAuthorizer's (or AclAuthorizer's) class name: the Kafka listener checks the cluster's
   * ACLs (src/security/authorizer.ts).
   */
  authorizerClassName: string;
  /** super.users: principals the authorizer allows everything ('User:admin;User:ops' as written). */
  superUsers: string[];
  /**
   * ssl.principal.mapping.rules (KIP-371): how a TLS client's certificate subject becomes its
   * principal name ('DEFAULT': the whole name; src/security/ssl-principal-mapper.ts).
   */
  sslPrincipalMappingRules: string;
  /** allow.everyone.if.no.acl.found: a resource no ACL applies to is open to all (default false). */
  allowEveryoneIfNoAclFound: boolean;
  /**
   * leader.replication.throttled.rate / follower.replication.throttled.rate: bytes per second this
   * broker sends to / fetches for the replicas a topic's leader/follower.replication.throttled.replicas
   * names, while they are out of the ISR (default: unlimited).
   */
  leaderReplicationThrottledRate: number;
  followerReplicationThrottledRate: number;
  /**
   * replica.alter.log.dirs.io.max.bytes.per.second: bytes per second this broker's moves of logs
   * between its log dirs (AlterReplicaLogDirs) copy into their future logs at most, all together
   * (default: unlimited). Appends to the logs being moved are never held back.
   */
  replicaAlterLogDirsIoMaxBytesPerSecond: number;
  log: LogConfig;
}

type ChoiceKey = 'compressionType' | 'replicaSelectorClass' | 'authorizerClassName' | 'groupConsumerMigrationPolicy';
type BoolKey = 'autoCreateTopicsEnable' | 'logCleanerEnable' | 'allowEveryoneIfNoAclFound' | 'transactionPartitionVerificationEnable';
type LevelKey = 'compressionGzipLevel' | 'compressionLz4Level' | 'compressionZstdLevel';
type IntKey = Exclude<keyof BrokerConfig, 'log' | 'superUsers' | 'sslPrincipalMappingRules' | 'clientTelemetryReceiver' | BoolKey | ChoiceKey | LevelKey>;

/** Kafka's KRaft ACL authorizer, and the ZooKeeper-era one: both name samsa's ACL authorizer. */
export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
export const ACL_AUTHORIZER = 'kafka.security.authorizer.AclAuthorizer';

/**
 * `unlimited`: a rate whose default is Kafka's Long.MAX_VALUE (unlimited), described with that
 * value, and taking it (9223372036854775807, as Kafka's tools show the default) as unlimited.
 */
const INT_KEYS: Record<string, { prop: IntKey; min: number; def: number; unlimited?: true }> = {
  'replica.lag.time.max.ms': { prop: 'replicaLagTimeMaxMs', min: 1, def: 30_000 },
  'replica.fetch.wait.max.ms': { prop: 'replicaFetchWaitMaxMs', min: 0, def: 500 },
  'replica.fetch.min.bytes': { prop: 'replicaFetchMinBytes', min: 1, def: 1 },
  'replica.fetch.max.bytes': { prop: 'replicaFetchMaxBytes', min: 0, def: 1024 * 1024 },
  'replica.fetch.response.max.bytes': { prop: 'replicaFetchResponseMaxBytes', min: 0, def: 10 * 1024 * 1024 },
  'replica.fetch.backoff.ms': { prop: 'replicaFetchBackoffMs', min: 0, def: 1_000 },
  'broker.heartbeat.interval.ms': { prop: 'brokerHeartbeatIntervalMs', min: 1, def: 2_000 },
  'min.insync.replicas': { prop: 'minInsyncReplicas', min: 1, def: 1 },
  'request.timeout.ms': { prop: 'requestTimeoutMs', min: 0, def: 30_000 },
  'log.retention.check.interval.ms': { prop: 'logRetentionCheckIntervalMs', min: 1, def: 300_000 },
  'log.flush.scheduler.interval.ms': { prop: 'logFlushSchedulerIntervalMs', min: 1, def: 1_000 },
  'offsets.topic.num.partitions': { prop: 'offsetsTopicNumPartitions', min: 1, def: 50 },
  'offsets.topic.replication.factor': { prop: 'offsetsTopicReplicationFactor', min: 1, def: 3 },
  'offsets.topic.segment.bytes': { prop: 'offsetsTopicSegmentBytes', min: 1024, def: 100 * 1024 * 1024 },
  'offsets.retention.minutes': { prop: 'offsetsRetentionMinutes', min: 1, def: 7 * 24 * 60 },
  'group.initial.rebalance.delay.ms': { prop: 'groupInitialRebalanceDelayMs', min: 0, def: 3_000 },
  'group.min.session.timeout.ms': { prop: 'groupMinSessionTimeoutMs', min: 0, def: 6_000 },
  'group.max.session.timeout.ms': { prop: 'groupMaxSessionTimeoutMs', min: 0, def: 1_800_000 },
  'group.max.size': { prop: 'groupMaxSize', min: 1, def: 2_147_483_647 },
  'group.consumer.heartbeat.interval.ms': { prop: 'groupConsumerHeartbeatIntervalMs', min: 1, def: 5_000 },
  'group.consumer.session.timeout.ms': { prop: 'groupConsumerSessionTimeoutMs', min: 1, def: 45_000 },
  'group.consumer.min.session.timeout.ms': { prop: 'groupConsumerMinSessionTimeoutMs', min: 1, def: 45_000 },
  'group.consumer.max.session.timeout.ms': { prop: 'groupConsumerMaxSessionTimeoutMs', min: 1, def: 60_000 },
  'group.consumer.min.heartbeat.interval.ms': { prop: 'groupConsumerMinHeartbeatIntervalMs', min: 1, def: 5_000 },
  'group.consumer.max.heartbeat.interval.ms': { prop: 'groupConsumerMaxHeartbeatIntervalMs', min: 1, def: 15_000 },
  'group.consumer.max.size': { prop: 'groupConsumerMaxSize', min: 1, def: 2_147_483_647 },
  'group.share.record.lock.duration.ms': { prop: 'groupShareRecordLockDurationMs', min: 1000, def: 30_000 },
  'group.share.min.record.lock.duration.ms': { prop: 'groupShareMinRecordLockDurationMs', min: 1000, def: 15_000 },
  'group.share.max.record.lock.duration.ms': { prop: 'groupShareMaxRecordLockDurationMs', min: 30_000, def: 60_000 },
  'group.share.delivery.count.limit': { prop: 'groupShareDeliveryCountLimit', min: 2, def: 5 },
  'group.share.partition.max.record.locks': { prop: 'groupSharePartitionMaxRecordLocks', min: 100, def: 2_000 },
  'group.share.session.timeout.ms': { prop: 'groupShareSessionTimeoutMs', min: 1, def: 45_000 },
  'group.share.min.session.timeout.ms': { prop: 'groupShareMinSessionTimeoutMs', min: 1, def: 45_000 },
  'group.share.max.session.timeout.ms': { prop: 'groupShareMaxSessionTimeoutMs', min: 1, def: 60_000 },
  'group.share.heartbeat.interval.ms': { prop: 'groupShareHeartbeatIntervalMs', min: 1, def: 5_000 },
  'group.share.min.heartbeat.interval.ms': { prop: 'groupShareMinHeartbeatIntervalMs', min: 1, def: 5_000 },
  'group.share.max.heartbeat.interval.ms': { prop: 'groupShareMaxHeartbeatIntervalMs', min: 1, def: 15_000 },
  'group.share.max.size': { prop: 'groupShareMaxSize', min: 1, def: 200 },
  'group.share.max.share.sessions': { prop: 'groupShareMaxShareSessions', min: 1, def: 2_000 },
  'socket.request.max.bytes': { prop: 'socketRequestMaxBytes', min: 1, def: 100 * 1024 * 1024 },
  'max.request.partition.size.limit': { prop: 'maxRequestPartitionSizeLimit', min: 1, def: 2000 },
  'max.incremental.fetch.session.cache.slots': { prop: 'maxIncrementalFetchSessionCacheSlots', min: 0, def: 1000 },
  'telemetry.max.bytes': { prop: 'telemetryMaxBytes', min: 1, def: 1024 * 1024 },
  'connections.max.reauth.ms': { prop: 'connectionsMaxReauthMs', min: 0, def: 0 },
  'max.connections': { prop: 'maxConnections', min: 0, def: 2147483647 },
  'max.connections.per.ip': { prop: 'maxConnectionsPerIp', min: 0, def: 2147483647 },
  'max.connection.creation.rate': { prop: 'maxConnectionCreationRate', min: 0, def: 2147483647 },
  'producer.id.expiration.ms': { prop: 'producerIdExpirationMs', min: 1, def: 86_400_000 },
  'transaction.state.log.num.partitions': { prop: 'transactionStateLogNumPartitions', min: 1, def: 50 },
  'transaction.state.log.replication.factor': { prop: 'transactionStateLogReplicationFactor', min: 1, def: 3 },
  'transaction.state.log.min.isr': { prop: 'transactionStateLogMinIsr', min: 1, def: 2 },
  'transaction.state.log.segment.bytes': { prop: 'transactionStateLogSegmentBytes', min: 1024, def: 100 * 1024 * 1024 },
  'share.coordinator.state.topic.num.partitions': { prop: 'shareCoordinatorStateTopicNumPartitions', min: 1, def: 50 },
  'share.coordinator.state.topic.replication.factor': { prop: 'shareCoordinatorStateTopicReplicationFactor', min: 1, def: 3 },
  'share.coordinator.state.topic.min.isr': { prop: 'shareCoordinatorStateTopicMinIsr', min: 1, def: 2 },
  'share.coordinator.state.topic.segment.bytes': { prop: 'shareCoordinatorStateTopicSegmentBytes', min: 1024, def: 100 * 1024 * 1024 },
  'share.coordinator.write.timeout.ms': { prop: 'shareCoordinatorWriteTimeoutMs', min: 1, def: 5_000 },
  'share.coordinator.load.buffer.size': { prop: 'shareCoordinatorLoadBufferSize', min: 1, def: 5 * 1024 * 1024 },
  'transaction.max.timeout.ms': { prop: 'transactionMaxTimeoutMs', min: 1, def: 900_000 },
  'transactional.id.expiration.ms': { prop: 'transactionalIdExpirationMs', min: 1, def: 604_800_000 },
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': { prop: 'transactionAbortTimedOutTransactionCleanupIntervalMs', min: 1, def: 10_000 },
  'transaction.remove.expired.transaction.cleanup.interval.ms': { prop: 'transactionRemoveExpiredTransactionCleanupIntervalMs', min: 1, def: 3_600_000 },
  'log.cleaner.backoff.ms': { prop: 'logCleanerBackoffMs', min: 1, def: 15_000 },
  'log.cleaner.dedupe.buffer.size': { prop: 'logCleanerDedupeBufferSize', min: 1024 * 1024, def: 128 * 1024 * 1024 },
  'leader.replication.throttled.rate': { prop: 'leaderReplicationThrottledRate', min: 0, def: UNLIMITED_RATE, unlimited: true },
  'follower.replication.throttled.rate': { prop: 'followerReplicationThrottledRate', min: 0, def: UNLIMITED_RATE, unlimited: true },
  'replica.alter.log.dirs.io.max.bytes.per.second': { prop: 'replicaAlterLogDirsIoMaxBytesPerSecond', min: 0, def: UNLIMITED_RATE, unlimited: true },
};

/** Broker-level log keys and the topic-level keys they set. */
const LOG_KEYS: Record<string, string> = {
  'log.segment.bytes': 'segment.bytes',
  'log.roll.ms': 'segment.ms',
  'log.index.size.max.bytes': 'segment.index.bytes',
  'log.index.interval.bytes': 'index.interval.bytes',
  'log.retention.ms': 'retention.ms',
  'log.retention.bytes': 'retention.bytes',
  'log.flush.interval.messages': 'flush.messages',
  'log.flush.interval.ms': 'flush.ms',
  'log.message.timestamp.type': 'message.timestamp.type',
  'message.max.bytes': 'max.message.bytes',
  'log.cleanup.policy': 'cleanup.policy',
  'log.cleaner.delete.retention.ms': 'delete.retention.ms',
  'log.cleaner.min.cleanable.ratio': 'min.cleanable.dirty.ratio',
  'log.cleaner.min.compaction.lag.ms': 'min.compaction.lag.ms',
  'log.cleaner.max.compaction.lag.ms': 'max.compaction.lag.ms',
};

const BOOL_KEYS: Record<string, { prop: BoolKey; def: boolean }> = {
  'auto.create.topics.enable': { prop: 'autoCreateTopicsEnable', def: true },
  'log.cleaner.enable': { prop: 'logCleanerEnable', def: true },
  'allow.everyone.if.no.acl.found': { prop: 'allowEveryoneIfNoAclFound', def: false },
  'transaction.partition.verification.enable': { prop: 'transactionPartitionVerificationEnable', def: true },
};

const CHOICE_KEYS: Record<string, { prop: ChoiceKey; def: string; choices: readonly string[]; caseSensitive?: boolean }> = {
  'compression.type': { prop: 'compressionType', def: 'producer', choices: COMPRESSION_TYPES },
  'replica.selector.class': { prop: 'replicaSelectorClass', def: '', choices: ['', LEADER_SELECTOR, RACK_AWARE_REPLICA_SELECTOR], caseSensitive: true },
  'authorizer.class.name': { prop: 'authorizerClassName', def: '', choices: ['', STANDARD_AUTHORIZER, ACL_AUTHORIZER], caseSensitive: true },
  // Kafka's GroupCoordinatorConfig: BIDIRECTIONAL by default, any case
  'group.consumer.migration.policy': { prop: 'groupConsumerMigrationPolicy', def: 'bidirectional', choices: MIGRATION_POLICIES },
};

/** The compression levels (KIP-390), each checked against its codec's range. */
const LEVEL_KEYS: Record<string, { prop: LevelKey; codec: LeveledCodec }> = {
  'compression.gzip.level': { prop: 'compressionGzipLevel', codec: 'gzip' },
  'compression.lz4.level': { prop: 'compressionLz4Level', codec: 'lz4' },
  'compression.zstd.level': { prop: 'compressionZstdLevel', codec: 'zstd' },
};

const SUPER_USERS = 'super.users';
const IP_OVERRIDES = 'max.connections.per.ip.overrides';
/** samsa's: the actor that takes the metrics clients push (KIP-714). */
export const CLIENT_TELEMETRY_RECEIVER = 'client.telemetry.receiver';

export const BROKER_CONFIG_KEYS: readonly string[] = Object.freeze([...Object.keys(INT_KEYS), ...Object.keys(BOOL_KEYS), ...Object.keys(CHOICE_KEYS), ...Object.keys(LEVEL_KEYS), SUPER_USERS, IP_OVERRIDES, SSL_PRINCIPAL_MAPPING_RULES, ...Object.keys(LOG_KEYS)]);

/** super.users as Kafka writes it: principals separated by ';', each 'Type:name'. */
function parseSuperUsers(raw: unknown): string[] {
  const list = typeof raw === 'string' ? raw.split(';') : Array.isArray(raw) ? raw : null;
  if (!list || list.some((p) => typeof p !== 'string')) throw new ConfigError(SUPER_USERS, `expected principals separated by ';' (User:admin;User:ops), got ${JSON.stringify(raw)}`);
  const users = (list as string[]).map((p) => p.trim()).filter((p) => p !== '');
  for (const p of users) {
    const i = p.indexOf(':');
    if (i <= 0 || i === p.length - 1) throw new ConfigError(SUPER_USERS, `'${p}' is not a principal of the form Type:name (User:admin)`);
  }
  return users;
}

/**
 * A rate samsa takes as unlimited: from the largest safe integer up to Kafka's Long.MAX_VALUE (as
 * a string, or the number it rounds to); above that it is not a Kafka long, and refused.
 */
function isUnlimitedRate(raw: unknown): boolean {
  if (typeof raw === 'string') {
    if (!/^\s*\d+\s*$/.test(raw)) return false;
    const v = BigInt(raw.trim());
    return v >= BigInt(UNLIMITED_RATE) && v <= BigInt(KAFKA_LONG_MAX);
  }
  return typeof raw === 'number' && Number.isInteger(raw) && raw >= UNLIMITED_RATE && raw <= Number(KAFKA_LONG_MAX);
}

export function parseBrokerConfig(input: Readonly<Record<string, unknown>> = {}): BrokerConfig {
  const out: Record<string, unknown> = {};
  for (const spec of Object.values(INT_KEYS)) out[spec.prop] = spec.def;
  for (const spec of Object.values(BOOL_KEYS)) out[spec.prop] = spec.def;
  for (const spec of Object.values(CHOICE_KEYS)) out[spec.prop] = spec.def;
  for (const spec of Object.values(LEVEL_KEYS)) out[spec.prop] = COMPRESSION_LEVELS[spec.codec].default;
  out.superUsers = [];
  out.sslPrincipalMappingRules = 'DEFAULT';
  out.clientTelemetryReceiver = '';
  out.maxConnectionsPerIpOverrides = new Map<string, number>();
  const logInput: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(input)) {
    const spec = INT_KEYS[key];
    if (spec) {
      if (spec.unlimited && isUnlimitedRate(raw)) {
        out[spec.prop] = UNLIMITED_RATE;
        continue;
      }
      const v = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new ConfigError(key, `expected an integer, got ${JSON.stringify(raw)}`);
      if (v < spec.min) throw new ConfigError(key, `${v} is not valid: must be >= ${spec.min}`);
      out[spec.prop] = v;
      continue;
    }
    const flag = BOOL_KEYS[key];
    if (flag) {
      if (raw === true || raw === 'true') out[flag.prop] = true;
      else if (raw === false || raw === 'false') out[flag.prop] = false;
      else throw new ConfigError(key, `expected true or false, got ${JSON.stringify(raw)}`);
      continue;
    }
    const choice = CHOICE_KEYS[key];
    if (choice) {
      const v = raw === null ? '' : typeof raw === 'string' ? (choice.caseSensitive ? raw.trim() : raw.trim().toLowerCase()) : undefined;
      if (v === undefined || !choice.choices.includes(v)) throw new ConfigError(key, `${JSON.stringify(raw)} is not valid: must be one of ${choice.choices.map((c) => c || '(empty)').join(', ')}`);
      out[choice.prop] = v;
      continue;
    }
    const level = LEVEL_KEYS[key];
    if (level) {
      const v = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
      const problem = compressionLevelProblem(level.codec, v);
      if (problem) throw new ConfigError(key, problem);
      out[level.prop] = v;
      continue;
    }
    if (key === SUPER_USERS) {
      out.superUsers = parseSuperUsers(raw);
      continue;
    }
    if (key === SSL_PRINCIPAL_MAPPING_RULES) {
      if (typeof raw !== 'string') throw new ConfigError(key, `expected rules such as 'RULE:^CN=(.*?),OU=.*$/$1/,DEFAULT', got ${JSON.stringify(raw)}`);
      // read once here so a bad rule stops the broker at start, naming the rule
      SslPrincipalMapper.fromRules(raw);
      out.sslPrincipalMappingRules = raw;
      continue;
    }
    if (key === CLIENT_TELEMETRY_RECEIVER) {
      if (typeof raw !== 'string' || !(raw === '' || /^\/[^\s]+$/.test(raw))) throw new ConfigError(key, `expected the path of an actor on the broker's node ('/telemetry'), or '' for none; got ${JSON.stringify(raw)}`);
      out.clientTelemetryReceiver = raw;
      continue;
    }
    if (key === IP_OVERRIDES) {
      const parsed = typeof raw === 'string' ? parseIpOverrides(raw) : `expected ip:count pairs separated by commas, got ${JSON.stringify(raw)}`;
      if (typeof parsed === 'string') throw new ConfigError(key, parsed);
      out.maxConnectionsPerIpOverrides = parsed;
      continue;
    }
    const logKey = LOG_KEYS[key];
    if (logKey) {
      logInput[logKey] = raw;
      continue;
    }
    throw new ConfigError(key, `unknown broker config key (known: ${BROKER_CONFIG_KEYS.join(', ')})`);
  }
  try {
    out.log = parseLogConfig(logInput);
  } catch (err) {
    if (err instanceof ConfigError) {
      const brokerKey = Object.entries(LOG_KEYS).find(([, v]) => v === err.key)?.[0] ?? err.key;
      throw new ConfigError(brokerKey, err.message.slice(err.key.length + 2));
    }
    throw err;
  }
  const groupProblem = consumerGroupTimeoutsProblem(consumerGroupTimeoutsOf(out as unknown as BrokerConfig)) ?? shareGroupBoundsProblem(shareGroupBoundsOf(out as unknown as BrokerConfig));
  if (groupProblem) throw new ConfigError(groupProblem.key, groupProblem.reason);
  return out as unknown as BrokerConfig;
}

/** The compression levels of a broker's topics without their own (compression.<codec>.level, KIP-390). */
export interface CompressionLevelDefaults {
  gzip: number;
  lz4: number;
  zstd: number;
}

export function compressionLevelsOf(c: BrokerConfig): CompressionLevelDefaults {
  return { gzip: c.compressionGzipLevel, lz4: c.compressionLz4Level, zstd: c.compressionZstdLevel };
}

/** The broker's consumer group session timeout and heartbeat settings (what group configs are checked against). */
export function consumerGroupTimeoutsOf(c: BrokerConfig): ConsumerGroupTimeouts {
  return {
    sessionTimeoutMs: c.groupConsumerSessionTimeoutMs,
    heartbeatIntervalMs: c.groupConsumerHeartbeatIntervalMs,
    minSessionTimeoutMs: c.groupConsumerMinSessionTimeoutMs,
    maxSessionTimeoutMs: c.groupConsumerMaxSessionTimeoutMs,
    minHeartbeatIntervalMs: c.groupConsumerMinHeartbeatIntervalMs,
    maxHeartbeatIntervalMs: c.groupConsumerMaxHeartbeatIntervalMs,
  };
}

/** The broker's group.share.* settings (what a share group's share.* group configs are checked against and fall back to). */
export function shareGroupBoundsOf(c: BrokerConfig): ShareGroupBounds {
  return {
    sessionTimeoutMs: c.groupShareSessionTimeoutMs,
    heartbeatIntervalMs: c.groupShareHeartbeatIntervalMs,
    minSessionTimeoutMs: c.groupShareMinSessionTimeoutMs,
    maxSessionTimeoutMs: c.groupShareMaxSessionTimeoutMs,
    minHeartbeatIntervalMs: c.groupShareMinHeartbeatIntervalMs,
    maxHeartbeatIntervalMs: c.groupShareMaxHeartbeatIntervalMs,
    recordLockDurationMs: c.groupShareRecordLockDurationMs,
    minRecordLockDurationMs: c.groupShareMinRecordLockDurationMs,
    maxRecordLockDurationMs: c.groupShareMaxRecordLockDurationMs,
    deliveryCountLimit: c.groupShareDeliveryCountLimit,
    partitionMaxRecordLocks: c.groupSharePartitionMaxRecordLocks,
  };
}

/**
 * Broker keys that can change while the broker runs (Kafka's dynamic broker configs, KIP-226), per
 * broker or as the cluster-wide default, through IncrementalAlterConfigs / AlterConfigs: the
 * defaults of the topic configs (log.*, message.max.bytes, min.insync.replicas, compression.type and
 * its compression.<codec>.level keys;
 * replicas of topics without their own value take a change at once), the replication throttle
 * rates, the log dir move throttle (replica.alter.log.dirs.io.max.bytes.per.second: moves in
 * progress take it at their next copy step), the Kafka listener's connection limits (max.connections, max.connections.per.ip and its
 * overrides, max.connection.creation.rate: new connections are judged by them at once, open
 * ones stay, as in Kafka), transaction.partition.verification.enable (the next transactional
 * produce), producer.id.expiration.ms (each replica's next producer sweep, KIP-854) and the log
 * cleaner's log.cleaner.backoff.ms and log.cleaner.dedupe.buffer.size (its next pass).
 */
export const DYNAMIC_BROKER_CONFIG_KEYS: readonly string[] = Object.freeze(
  [
    ...Object.keys(LOG_KEYS),
    'min.insync.replicas',
    'compression.type',
    ...Object.keys(LEVEL_KEYS),
    'leader.replication.throttled.rate',
    'follower.replication.throttled.rate',
    'replica.alter.log.dirs.io.max.bytes.per.second',
    'max.connections',
    'max.connections.per.ip',
    'max.connections.per.ip.overrides',
    'max.connection.creation.rate',
    'transaction.partition.verification.enable',
    'producer.id.expiration.ms',
    'log.cleaner.backoff.ms',
    'log.cleaner.dedupe.buffer.size',
  ].sort(),
);

/**
 * Why a dynamic broker config (key -> value, as Kafka's admin sends them) cannot be set, or null:
 * a key that cannot change at run time, or a value the broker would refuse.
 */
export function dynamicBrokerConfigProblem(config: Readonly<Record<string, string>>): { key: string; reason: string; dynamic: boolean } | null {
  for (const key of Object.keys(config)) {
    if (!DYNAMIC_BROKER_CONFIG_KEYS.includes(key)) {
      const known = BROKER_CONFIG_KEYS.includes(key);
      return { key, dynamic: false, reason: known ? `${key} cannot be changed while the broker runs (set it in the topology); dynamic keys: ${DYNAMIC_BROKER_CONFIG_KEYS.join(', ')}` : `unknown broker config key ${key}` };
    }
  }
  try {
    parseBrokerConfig(config);
    return null;
  } catch (err) {
    if (err instanceof ConfigError) return { key: err.key, dynamic: true, reason: err.message };
    throw err;
  }
}

/** Topic-level log key -> the broker-level key that sets its default (segment.bytes -> log.segment.bytes). */
export const BROKER_KEY_FOR_TOPIC_KEY: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(Object.entries(LOG_KEYS).map(([broker, topic]) => [topic, broker])));

export interface BrokerConfigValue {
  name: string;
  value: string;
  /** True when the broker's config file does not set it (Kafka's default applies). */
  isDefault: boolean;
}

/** Every broker config key with its value in force, as Kafka's DescribeConfigs lists them. */
export function describeBrokerConfig(input: Readonly<Record<string, unknown>> = {}): BrokerConfigValue[] {
  const c = parseBrokerConfig(input);
  const values = c as unknown as Record<string, unknown>;
  const log = logConfigToKafka(c.log);
  const out: BrokerConfigValue[] = [];
  for (const [name, spec] of Object.entries(INT_KEYS)) {
    const v = values[spec.prop] as number;
    out.push({ name, value: spec.unlimited && v >= UNLIMITED_RATE ? KAFKA_LONG_MAX : String(v), isDefault: !(name in input) });
  }
  for (const [name, spec] of Object.entries(BOOL_KEYS)) out.push({ name, value: String(values[spec.prop]), isDefault: !(name in input) });
  for (const [name, spec] of Object.entries(CHOICE_KEYS)) out.push({ name, value: String(values[spec.prop]), isDefault: !(name in input) });
  for (const [name, spec] of Object.entries(LEVEL_KEYS)) out.push({ name, value: String(values[spec.prop]), isDefault: !(name in input) });
  out.push({ name: SUPER_USERS, value: c.superUsers.join(';'), isDefault: !(SUPER_USERS in input) });
  out.push({ name: SSL_PRINCIPAL_MAPPING_RULES, value: c.sslPrincipalMappingRules, isDefault: !(SSL_PRINCIPAL_MAPPING_RULES in input) });
  out.push({ name: CLIENT_TELEMETRY_RECEIVER, value: c.clientTelemetryReceiver, isDefault: !(CLIENT_TELEMETRY_RECEIVER in input) });
  out.push({ name: IP_OVERRIDES, value: [...c.maxConnectionsPerIpOverrides].map(([ip, n]) => `${ip}:${n}`).join(','), isDefault: !(IP_OVERRIDES in input) });
  for (const [name, topicKey] of Object.entries(LOG_KEYS)) out.push({ name, value: log[topicKey]!, isDefault: !(name in input) });
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
