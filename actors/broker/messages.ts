/**
 * Messages a broker accepts, and its replies. Produce, ListOffsets and OffsetsForLeaderEpoch go
 * straight to the leader's partition replica actor (actors/partition-replica/messages.ts);
 * Metadata and Fetch (consumers and followers, many partitions, long-poll) come here, and the
 * telemetry requests of samsa's clients (KIP-714).
 */
import type { ActorRef } from '../../src/runtime/types.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import type { GetSubscriptionsAnswer } from '../../src/kafka/client-telemetry.js';
import type { AdvancedRead, IsolationLevel, ReplicaReadResult } from '../partition-replica/messages.js';
import type { ConfigEntry } from './config-entries.js';
import type { ControlToBrokerMsg } from './control-messages.js';

export interface FetchPartition {
  topic: string;
  partition: number;
  /**
   * The topic's id when the client named it by id (Kafka's Fetch v13+): a partition of another
   * topic of the same name is INCONSISTENT_TOPIC_ID, and no topic of that name and id UNKNOWN_TOPIC_ID.
   */
  topicId?: string;
  fetchOffset: number;
  /** -1 to skip the leader epoch check. */
  currentLeaderEpoch: number;
  /** Followers: epoch of their last batch, for divergence detection; -1 otherwise. */
  lastFetchedEpoch?: number;
  partitionMaxBytes: number;
  /** Followers: their log start offset (the leader's low watermark for DeleteRecords). */
  logStartOffset?: number;
  /**
   * Followers at metadata.version 4.1-IV1 and above (Kafka's Fetch v18, KIP-1166): the high
   * watermark the follower knows (-1: none yet). The leader answers the fetch as soon as its own
   * is above it, records or not. Absent: not sent (the fetch waits for minBytes as before).
   */
  highWatermark?: number;
}

/** A partition's part of a FetchResponse: its replica's read result, named by topic and partition. */
export interface FetchPartitionResult extends Omit<ReplicaReadResult, 'type'> {
  topic: string;
  partition: number;
}

/** One producer's transaction to end, on the partitions named. */
export interface TxnMarkerEntry {
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  /** COMMIT (true) or ABORT (false). */
  commit: boolean;
  topics: { name: string; partitions: number[] }[];
  /**
   * The transaction version the coordinator ended the transaction at (KIP-1228, WriteTxnMarkers
   * v2): 2 when it bumped the epoch to end it, so the marker must be above the data's epoch.
   * Absent: 0 (a marker at the producer's epoch is taken).
   */
  transactionVersion?: number;
}

export interface WriteTxnMarkersResponse {
  type: 'WriteTxnMarkersResponse';
  markers: { producerId: number; topics: { name: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[] }[];
}

/** One partition's batches in a broker-level Produce. */
export interface ProducePartition {
  topic: string;
  partition: number;
  /**
   * The topic's id when the client named it by id (Kafka's Produce v13+): nothing is written
   * unless the topic of that name still has it (UNKNOWN_TOPIC_ID, or INCONSISTENT_TOPIC_ID for a
   * replica here of another topic of that name).
   */
  topicId?: string;
  /**
   * The partition's record batches: one buffer (Kafka's wire form), or a list of them, one per
   * batch, in order (how samsa's producer sends several batches of a partition; the broker joins
   * them as one view when they arrive side by side, else the log writes the list with one
   * gathering write, see src/protocol/batch-parts.ts).
   */
  records: Uint8Array | Uint8Array[];
}

export interface ProducePartitionResult {
  topic: string;
  partition: number;
  errorCode: number;
  errorMessage: string | null;
  baseOffset: number;
  logAppendTime: number;
  logStartOffset: number;
}

export type BrokerMsg =
  | ControlToBrokerMsg
  | { type: 'Metadata'; topics?: string[] | null }
  /**
   * Kafka's ProduceRequest: batches for several partitions this broker leads, in one message
   * (each handed to its partition replica). Answered per partition; not at all with acks 0.
   */
  | {
      type: 'Produce';
      acks: 0 | 1 | -1;
      timeoutMs: number;
      partitions: ProducePartition[];
      /**
       * The producer's transactional id, when it writes transactional batches: their partitions
       * are verified with its coordinator first (KIP-890, txn-verification.ts).
       */
      transactionalId?: string | null;
      /**
       * The client knows TRANSACTION_ABORTABLE (Produce v11+, KIP-890): a partition not in the
       * transaction is refused with it; older clients get INVALID_TXN_STATE, as Kafka.
       */
      transactionAbortable?: boolean;
      /**
       * The producer speaks the transaction version 2 when the cluster has it (Produce v12+,
       * KIP-890 part 2): while the finalized transaction.version is 2 it adds no partition
       * itself, so its transactional partitions are added to its transaction here, before they
       * are written.
       */
      transactionV2?: boolean;
    }
  | {
      type: 'Fetch';
      /** -1 for consumers, the follower's broker id for replica fetches. */
      replicaId: number;
      maxWaitMs: number;
      minBytes: number;
      maxBytes: number;
      partitions: FetchPartition[];
      /**
       * A consumer's client metadata (Kafka's Fetch v11+): its rack ('' or null without one).
       * Present, followers here serve it and leaders may name a preferred read replica (KIP-392).
       */
      clientRack?: string | null;
      /** Consumers: read_committed reads up to the last stable offset and learns of aborted transactions (default read_uncommitted). */
      isolationLevel?: IsolationLevel;
    }
  /**
   * Kafka's WriteTxnMarkers, from a transaction coordinator: end each producer's transaction on
   * the partitions named (led here) with a COMMIT or ABORT marker. Answered per partition once
   * each marker is in its ISR.
   */
  | { type: 'WriteTxnMarkers'; markers: TxnMarkerEntry[]; timeoutMs?: number }
  /**
   * From its group coordinator, before it writes a TxnOffsetCommit's offsets (KIP-890): verify
   * with the transaction's coordinator that these partitions (led here) are in the producer's
   * ongoing transaction. Answered TransactionVerification, with the coordinator's codes as they are.
   */
  | {
      type: 'VerifyTransaction';
      transactionalId: string;
      producerId: number;
      producerEpoch: number;
      partitions: { topic: string; partition: number }[];
      /**
       * From a TxnOffsetCommit v5 (KIP-890 part 2): while the finalized transaction.version is 2
       * the partitions are added to the producer's transaction instead.
       */
      transactionV2?: boolean;
    }
  /**
   * Which broker coordinates this group (key = group id; keyType 'group', the default), this
   * transactional id (keyType 'transaction') or this share partition's state (keyType 'share',
   * key "groupId:topicId:partition", KIP-932). Any broker answers (FindCoordinatorResponse).
   */
  | { type: 'FindCoordinator'; key: string; keyType?: 'group' | 'transaction' | 'share' }
  /**
   * From a local partition replica: it has new data or a new high watermark; `reads` are the
   * watching fetches' reads of it done again at that moment (those that found records).
   */
  | { type: 'PartitionAdvanced'; topic: string; partition: number; reads?: AdvancedRead[] }
  /**
   * A producer id for an idempotent producer (Kafka's InitProducerId without a transactional id):
   * the next of this broker's block from the controller, epoch 0.
   */
  | { type: 'InitProducerId' }
  /** Move leadership away (controlled shutdown); replies when nothing is led here any more. */
  | { type: 'ControlledShutdown' }
  /**
   * A share group was deleted (KIP-932; from its group coordinator, with fanOut: this broker
   * tells every live broker, itself included, without it): the broker's share coordinator
   * removes the group's share partition states it holds and its share partition manager forgets
   * the ones it holds.
   */
  | { type: 'ShareGroupDeleted'; groupId: string; fanOut?: boolean }
  /**
   * From a group coordinator: share group `groupId` assigned these partitions to a member; each
   * partition's leader's share partition manager makes the group's state of it now if it has
   * none (KIP-932: a share partition starts when it is first assigned, not first fetched).
   */
  | { type: 'PrepareSharePartitions'; groupId: string; topics: { topic: string; topicId: string; partitions: number[] }[] }
  | { type: 'DescribeBroker' }
  /**
   * Kafka's GetTelemetrySubscriptions from one of samsa's clients (KIP-714): the client's
   * telemetry subscription, with a client instance id when it asked with the zero one. Answered
   * GetTelemetrySubscriptionsResponse; UNSUPPORTED_VERSION without a telemetry receiver
   * (client.telemetry.receiver), as the Kafka listener's.
   */
  | ({ type: 'GetTelemetrySubscriptions'; clientInstanceId: string } & TelemetryClientInfo)
  /**
   * Kafka's PushTelemetry from one of samsa's clients (KIP-714): its metrics (OTLP MetricsData,
   * compressed with `compressionType`, Kafka's codec id), checked and handed to the telemetry
   * receiver as the Kafka listener's are. Answered PushTelemetryResponse.
   */
  | ({ type: 'PushTelemetry'; clientInstanceId: string; subscriptionId: number; terminating: boolean; compressionType: number; metrics: Uint8Array } & TelemetryClientInfo)
  /**
   * Kafka's DescribeLogDirs for this broker: each of its log dirs and the partition logs in it, all of
   * them (topics null), or those of the topics named (a topic's partitions null: all of its).
   */
  | { type: 'DescribeLogDirs'; topics?: { topic: string; partitions?: number[] | null }[] | null }
  /**
   * Kafka's AlterReplicaLogDirs for this broker: move each named partition's log into the log
   * dir given (absolute path). Answered once each move has begun (ReplicaLogDirsAltered).
   */
  | { type: 'AlterReplicaLogDirs'; dirs: { logDir: string; topics: { topic: string; partitions: number[] }[] }[] }
  /**
   * Kafka's DescribeConfigs for this broker: every broker key with the value in force and its
   * source (its topology config, the dynamic configs in its metadata, Kafka's default).
   */
  | { type: 'DescribeConfigs' }
  /** Kafka's DescribeConfigs of this broker's BROKER_LOGGER resource: its node's loggers and their levels. */
  | { type: 'DescribeLoggers' }
  /**
   * Kafka's IncrementalAlterConfigs of this broker's BROKER_LOGGER resource: set a logger's level
   * or take it away (broker-loggers.ts). Checked whole before any change is made.
   */
  | { type: 'AlterLoggers'; changes: BrokerLoggerChange[]; validateOnly?: boolean }
  // internal
  | { type: 'Register' }
  | { type: 'RegistrationResult'; errorCode: number; brokerEpoch: number; errorMessage?: string }
  | { type: 'Heartbeat' }
  /** Internal: one of its log dirs failed (an I/O error): its replicas there go offline. */
  | { type: 'LogDirFailed'; logDir: string; reason: string }
  | { type: 'HeartbeatResult'; errorCode: number; isFenced: boolean; brokerEpoch: number }
  | { type: 'FetchReadDone'; fetchId: number; results: FetchPartitionResult[] }
  /** The purgatory's expiry timer: fetches past maxWaitMs answer with what they find. */
  | { type: 'FetchExpired' }
  /** The controller's answer to our request to create __consumer_offsets or __transaction_state. */
  | { type: 'InternalTopicRequested'; topic: string; errorCode: number; errorMessage?: string }
  /** The controller's answer to our AllocateProducerIds. */
  | { type: 'ProducerIdsAllocated'; errorCode: number; errorMessage?: string; firstProducerId: number; count: number };

/** Who asks, in a telemetry request of samsa's clients (what a Kafka client says in its request header and ApiVersions). */
export interface TelemetryClientInfo {
  clientId: string | null;
  clientSoftwareName: string | null;
  clientSoftwareVersion: string | null;
}

/** The answer to GetTelemetrySubscriptions (Kafka's fields). */
export interface TelemetrySubscriptionsReply extends GetSubscriptionsAnswer {
  type: 'GetTelemetrySubscriptionsResponse';
}

/** The answer to PushTelemetry. */
export interface PushTelemetryReply {
  type: 'PushTelemetryResponse';
  errorCode: number;
  errorMessage: string | null;
}

export interface InitProducerIdResult {
  type: 'InitProducerIdResult';
  errorCode: number;
  errorMessage?: string;
  producerId: number;
  producerEpoch: number;
}

export interface BrokerProduceResponse {
  type: 'BrokerProduceResponse';
  errorCode: number;
  partitions: ProducePartitionResult[];
}

export interface FetchResponse {
  type: 'FetchResponse';
  errorCode: number;
  errorMessage?: string;
  partitions: FetchPartitionResult[];
}

export interface MetadataResponse {
  type: 'MetadataResponse';
  errorCode: number;
  metadata: ClusterMetadata;
}

export type BrokerStatus = 'Registering' | 'Running' | 'Fenced' | 'ShuttingDown';

/** A change to one logger: set its level (a Kafka level, any case), or delete its own level. */
export interface BrokerLoggerChange {
  name: string;
  op: 'set' | 'delete';
  level?: string | null;
}

export interface BrokerLoggersDescription {
  type: 'BrokerLoggersDescription';
  errorCode: number;
  brokerId: number;
  /** root first, then every logger of the broker's node by name, each with the level it runs at. */
  loggers: { name: string; level: string }[];
}

export interface BrokerLoggersAltered {
  type: 'BrokerLoggersAltered';
  errorCode: number;
  errorMessage: string | null;
}

export interface BrokerConfigsDescription {
  type: 'BrokerConfigsDescription';
  errorCode: number;
  brokerId: number;
  /** Every broker key, in key order (config-entries.ts). */
  configs: ConfigEntry[];
}

export interface BrokerDescription {
  type: 'BrokerDescription';
  brokerId: number;
  status: BrokerStatus;
  brokerEpoch: number;
  controllerEpoch: number;
  replicas: { topic: string; partition: number; leader: number }[];
  /** Each replica fetcher: its leader, the partitions it fetches, and its actor (DescribeFetcher). */
  fetchers: { leaderId: number; partitions: string[]; fetcher: ActorRef }[];
  pendingFetches: number;
  /** Its replicas offline because their log dir failed (topic-partition names), sorted. */
  offlinePartitions: string[];
  /** Parked fetches answered from a partition's wake-up, without reading their partitions again. */
  fetchesAnsweredOnAdvance: number;
  /** The log cleaner's settings in force (log.cleaner.backoff.ms, log.cleaner.dedupe.buffer.size). */
  logCleaner: { backoffMs: number; dedupeBufferBytes: number; scheduled: boolean };
  /** Its log dirs (absolute paths) with the number of partition logs in each. */
  logDirs: { logDir: string; partitions: number }[];
}

/** One partition log in a log dir, as Kafka's DescribeLogDirs reports it (a future one: its size is the bytes copied so far). */
export interface LogDirPartition {
  topic: string;
  partition: number;
  /** Bytes of its segment files. */
  size: number;
  /** As Kafka for a current (not future) replica: max(0, high watermark - log end offset). */
  offsetLag: number;
  /** The copy of a log being moved here from another log dir of the broker (Kafka's future replica). */
  isFuture: boolean;
}

export interface LogDirDescription {
  /** The absolute path of the log dir. */
  logDir: string;
  /** KAFKA_STORAGE_ERROR when an I/O error took a log in it offline. */
  errorCode: number;
  errorMessage: string | null;
  /** Bytes of the volume the dir is on, and those usable by this process; -1 when unknown. */
  totalBytes: number;
  usableBytes: number;
  /** Sorted by topic, then partition. */
  partitions: LogDirPartition[];
}

/** The answer to AlterReplicaLogDirs: one result per partition named. */
export interface ReplicaLogDirsAltered {
  type: 'ReplicaLogDirsAltered';
  errorCode: number;
  /** The log dir is as it was asked for. */
  results: { topic: string; partition: number; logDir: string; errorCode: number; errorMessage: string | null }[];
}

/** The answer to DescribeLogDirs. */
export interface LogDirsDescription {
  type: 'LogDirsDescription';
  errorCode: number;
  brokerId: number;
  logDirs: LogDirDescription[];
}

/**
 * The answer to VerifyTransaction: `enabled` false when this broker does not verify
 * (transaction.partition.verification.enable false: write without a guard); else per partition
 * NONE with the guard the write must carry, or the code that refuses it.
 */
export interface TransactionVerification {
  type: 'TransactionVerification';
  errorCode: number;
  enabled: boolean;
  partitions: { topic: string; partition: number; errorCode: number; errorMessage: string | null; guard: number }[];
}
