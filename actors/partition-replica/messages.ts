/**
 * Messages a partition replica accepts, and its replies. Clients send Produce, ListOffsets and
 * OffsetsForLeaderEpoch straight to the leader's replica actor (its path comes from metadata);
 * the broker sends the rest. Every reply carries `errorCode`.
 */
import type { CompressionLevelDefaults } from '../broker/broker-config.js';
import type { LeaderAndIsrPartition } from '../broker/control-messages.js';

export type Acks = 0 | 1 | -1;

/** Kafka's ListOffsets sentinels. */
export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;
/** The record with the largest timestamp (KIP-734, ListOffsets v7+). */
export const MAX_TIMESTAMP = -3;
/** The start of the local log (KIP-405, v8+): without tiered storage, the log start offset. */
export const EARLIEST_LOCAL_TIMESTAMP = -4;
/** The highest offset in tiered storage (KIP-1005, v9+): without tiered storage, none (-1). */
export const LATEST_TIERED_TIMESTAMP = -5;
/** The first offset not yet uploaded to tiered storage (KIP-1023, v11+): without tiered storage, none (-1). */
export const EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6;

export type IsolationLevel = 'read_uncommitted' | 'read_committed';

export type ReplicaMsg =
  /**
   * From a client: append one or more RecordBatch v2, as one buffer or a list of buffers of whole
   * batches (written in order), reply per acks (none for acks 0).
   */
  | {
      type: 'Produce';
      acks: Acks;
      timeoutMs: number;
      records: Uint8Array | readonly Uint8Array[];
      /**
       * A coordinator's own append (the group coordinator's transactional offset commits, Kafka's
       * AppendOrigin.COORDINATOR): its producer id carries no sequence to check.
       */
      fromCoordinator?: boolean;
      /**
       * Checked against the transaction verification (KIP-890, see txn-verification.ts): a
       * transactional batch that opens its producer's transaction here must carry the guard
       * StartTxnVerification gave (NO_GUARD when it said none was needed), still held.
       */
      verify?: boolean;
      verificationGuard?: number;
    }
  /** From the local broker, for a consumer fetch (replicaId -1) or a follower's fetch (replicaId >= 0). */
  | {
      type: 'ReplicaRead';
      replicaId: number;
      fetchOffset: number;
      /** A follower's fetch: its log start offset (Kafka's FetchRequest logStartOffset), for the low watermark. */
      replicaLogStartOffset?: number;
      maxBytes: number;
      currentLeaderEpoch: number;
      /** Follower fetches: the epoch of the follower's last batch, to detect divergence. */
      lastFetchedEpoch: number;
      /**
       * A follower's fetch at metadata.version 4.1-IV1 and above (Kafka's Fetch v18 HighWatermark,
       * KIP-1166): the high watermark it knows (-1: none yet). While ours is above it, the read
       * is answered without waiting, and a watching read is done again (and sent along, records
       * or not) when ours moves. Absent: not sent (follower-high-watermark.ts).
       */
      replicaHighWatermark?: number;
      /** Register the broker to be told once (PartitionAdvanced) when data or HW next moves after this read. */
      watch: boolean;
      /**
       * The broker's id for the waiting fetch: with `watch`, the wake-up carries this read done
       * again at that moment (when it finds records at the tail), so the fetch can be answered
       * without another round of reads.
       */
      fetchId?: number;
      /** With `fetchId`: when (this node's clock) the fetch is answered anyway; its watch lapses then. */
      watchUntil?: number;
      /**
       * A consumer reading with isolation.level read_committed: up to the last stable offset, and
       * told of the aborted transactions in what it reads.
       */
      readCommitted?: boolean;
      /**
       * A consumer's rack (Kafka's Fetch v11+ rackId; '' or null without one). Present, the
       * consumer may read from a follower (up to its high watermark), and a leader with read
       * replica selection may send it to one (`preferredReadReplica`); absent, leader only.
       */
      clientRack?: string | null;
    }
  | { type: 'ListOffsets'; timestamp: number; currentLeaderEpoch: number; isolationLevel?: IsolationLevel }
  | { type: 'OffsetsForLeaderEpoch'; leaderEpoch: number; currentLeaderEpoch: number }
  /** From the local broker: the topic's config overrides changed (AlterConfigs). */
  | { type: 'TopicConfigChanged'; config: Record<string, string | number> }
  /**
   * From the local broker: its defaults for topics without their own changed (dynamic broker
   * configs); the log's defaults are read again from the log manager.
   */
  | { type: 'BrokerDefaultsChanged'; minInsyncReplicas: number; compressionType: string; producerIdExpirationMs?: number; compressionLevels?: CompressionLevelDefaults }
  /**
   * Kafka's DeleteRecords (leader only): records below `offset` (-1: the high watermark) go. The
   * answer waits until every live replica has deleted them too (the low watermark), at most
   * `timeoutMs` (default 30 s; REQUEST_TIMED_OUT then).
   */
  | { type: 'DeleteRecords'; offset: number; timeoutMs?: number }
  /** From the local broker on LeaderAndIsrRequest. */
  | { type: 'BecomeLeaderOrFollower'; controllerEpoch: number; state: LeaderAndIsrPartition }
  /** From the local replica fetcher: batches fetched from the leader. */
  | {
      type: 'AppendAsFollower';
      leaderEpoch: number;
      records: Uint8Array;
      leaderHighWatermark: number;
      leaderLogStartOffset: number;
    }
  /** From the local replica fetcher: the leader says our log diverged at this epoch. */
  | { type: 'TruncateForDivergence'; leaderEpoch: number; divergingEpoch: number; divergingEndOffset: number }
  /** From the local replica fetcher: our fetch offset is outside the leader's log (OFFSET_OUT_OF_RANGE). */
  | { type: 'ResetFetchPosition'; leaderEpoch: number; leaderLogStartOffset: number; leaderLogEndOffset: number }
  /**
   * From the local broker (Kafka's WriteTxnMarkers from a transaction coordinator), leader only:
   * append the COMMIT or ABORT marker ending the producer's transaction here; answered with a
   * ProduceResponse once the ISR has it (acks all), as Kafka writes markers.
   */
  | {
      type: 'WriteTxnMarker';
      producerId: number;
      producerEpoch: number;
      coordinatorEpoch: number;
      commit: boolean;
      timeoutMs: number;
      /** The transaction version it was ended at (KIP-1228); 2: the marker must be above the data's epoch. Absent: 0. */
      transactionVersion?: number;
    }
  /** From the local broker: StopReplicaRequest; the replica closes (and deletes) its log and stops. */
  | { type: 'StopReplica'; deletePartition: boolean }
  /** Leader-only: the controller's answer to our AlterPartition (internal). */
  | { type: 'AlterPartitionResult'; proposal: number; errorCode: number; requestedIsr: number[]; state: LeaderAndIsrPartition | null }
  /** Leader-only: send the pending ISR proposal again (its last answer did not say whether it was applied). */
  | { type: 'RetryAlterPartition'; proposal: number }
  /** Internal timers. */
  | { type: 'CheckIsr' }
  | { type: 'ExpireProduces' }
  | { type: 'ExpireDeleteRecords' }
  /** Internal: copy the next chunk of the log into the future log of a move between log dirs. */
  | { type: 'CopyToFutureLog' }
  /** Introspection for tests and admin tools. */
  | { type: 'DescribeReplica' }
  /**
   * From the broker (AlterReplicaLogDirs): move this replica's log into another log dir of the
   * broker, as Kafka does: answered LogDirAltered as soon as the move has begun; the replica goes
   * on serving while it copies its log into a future log there, a chunk per turn of its mailbox,
   * and swaps them once the copy has caught up.
   */
  | { type: 'AlterLogDir'; logDir: string }
  /**
   * Leader-only, from the broker before it asks the coordinator to verify a transactional batch
   * (KIP-890): the guard the batch must carry (answered TxnVerificationStarted).
   */
  | { type: 'StartTxnVerification'; producerId: number; producerEpoch: number }
  /** The producers the partition's log knows, on its leader or a follower (Kafka's DescribeProducers); answered ProducersDescription. */
  | { type: 'DescribeProducers' };

export interface ProduceResponse {
  type: 'ProduceResponse';
  errorCode: number;
  errorMessage: string | null;
  baseOffset: number;
  logAppendTime: number;
  logStartOffset: number;
}

/** A watched read done again when the partition advanced (PartitionAdvanced's `reads`). */
export interface AdvancedRead {
  fetchId: number;
  result: Omit<ReplicaReadResult, 'type'>;
}

export interface ReplicaReadResult {
  type: 'ReplicaReadResult';
  errorCode: number;
  errorMessage?: string;
  highWatermark: number;
  logStartOffset: number;
  logEndOffset: number;
  /** Whole batches as stored (never re-encoded); empty when there is nothing to return. */
  records: Uint8Array;
  /** Set while a transaction is open below the high watermark: how far read_committed reads go (else the high watermark). */
  lastStableOffset?: number;
  /** read_committed reads: the aborted transactions with records in what was read (the consumer drops them). */
  abortedTransactions?: { producerId: number; firstOffset: number }[];
  /** Set when a follower's log diverged from ours: truncate to this epoch's end offset. */
  divergingEpoch?: { epoch: number; endOffset: number };
  /** Set (with no records) when the consumer should fetch this partition from that broker instead (KIP-392). */
  preferredReadReplica?: number;
}

export interface ListOffsetsResult {
  type: 'ListOffsetsResult';
  errorCode: number;
  offset: number;
  timestamp: number;
  leaderEpoch: number;
}

/** A producer as a partition replica knows it (Kafka's DescribeProducers ProducerState). */
export interface ActiveProducer {
  producerId: number;
  producerEpoch: number;
  /** The last sequence written (-1: none, e.g. only markers since its epoch began). */
  lastSequence: number;
  lastTimestamp: number;
  /** The coordinator epoch of its last transaction marker (-1: none). */
  coordinatorEpoch: number;
  /** The first offset of its open transaction (-1: none). */
  currentTxnStartOffset: number;
}

export interface ProducersDescription {
  type: 'ProducersDescription';
  errorCode: number;
  errorMessage?: string;
  producers: ActiveProducer[];
}

export interface DeleteRecordsResult {
  type: 'DeleteRecordsResult';
  errorCode: number;
  errorMessage?: string;
  /** The lowest log start offset of the live replicas once all have deleted (Kafka's low watermark). */
  lowWatermark: number;
}

export interface EpochEndOffsetResult {
  type: 'EpochEndOffset';
  errorCode: number;
  leaderEpoch: number;
  endOffset: number;
}

export interface AppendAsFollowerResult {
  type: 'AppendAsFollowerResult';
  errorCode: number;
  errorMessage?: string;
  logEndOffset: number;
  lastFetchedEpoch: number;
  /** The follower's log start offset, which its next fetch tells the leader. */
  logStartOffset?: number;
}

export type ReplicaRole = 'Leader' | 'Follower' | 'Stopped';

export interface ReplicaDescription {
  type: 'ReplicaDescription';
  topic: string;
  partition: number;
  role: ReplicaRole;
  leader: number;
  leaderEpoch: number;
  /** The partition epoch of the state this replica holds (bumped by every change of it). */
  partitionEpoch: number;
  isr: number[];
  replicas: number[];
  highWatermark: number;
  logStartOffset: number;
  logEndOffset: number;
  followers: { brokerId: number; logEndOffset: number; lastCaughtUpTimeMs: number; lastFetchTimeMs: number }[];
  /** The ISR this leader has asked the controller for and not yet heard back about, or null. */
  pendingIsr: number[] | null;
  /** Where the pending ISR change stands: sent, waiting for the controller's new state, or to be sent again. */
  pendingIsrStatus: 'sent' | 'awaitingState' | 'retrying' | null;
  pendingProduces: number;
  /** The topic's config overrides as this replica has them. */
  config: Record<string, string | number>;
  /** The log's settings in force (Kafka names). */
  logConfig: Record<string, string>;
  /** The log dir (absolute path) the log is in. */
  logDir: string | null;
  /** The log dir the log is being copied into (a move between log dirs), or null. */
  futureLogDir: string | null;
  /** producer.id.expiration.ms in force (the broker's, which may change while it runs). */
  producerIdExpirationMs: number;
}

/** The answer to AlterLogDir: NONE (moving, or already there), or why not. */
export interface LogDirAltered {
  type: 'LogDirAltered';
  errorCode: number;
  errorMessage: string | null;
}

export interface TxnVerificationStarted {
  type: 'TxnVerificationStarted';
  errorCode: number;
  errorMessage?: string;
  /** NO_GUARD (0): the producer's transaction is open here, no verification needed. */
  guard: number;
}
