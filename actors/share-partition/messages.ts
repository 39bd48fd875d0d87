/**
 * Messages of a broker's share partition manager (KIP-932, Kafka's SharePartitionManager): the
 * share groups' delivery state of the partitions this broker leads. The Kafka listener sends it
 * ShareFetch and ShareAcknowledge (its share sessions are the listener's: src/kafka/share-sessions.ts)
 * and ShareMemberGone when a member's session ends; samsa's own share consumer sends the same.
 * Every reply carries `errorCode`; per-partition outcomes carry their own.
 */
import type { AcknowledgementBatch, AcquiredRange } from './share-partition-state.js';

export type { AcknowledgementBatch, AcquiredRange } from './share-partition-state.js';

/** The share partition manager of broker `brokerId` (a child of the broker). */
export function sharePartitionManagerPath(brokerId: number): string {
  return `/broker-${brokerId}/share-partitions`;
}

/** A partition of a share fetch or acknowledgement, named by topic and (Kafka-form) topic id. */
export interface SharePartitionRef {
  topic: string;
  topicId: string;
  partition: number;
}

export interface ShareFetchPartition extends SharePartitionRef {
  /** Acknowledgements of records the member acquired earlier, applied before the fetch. */
  acknowledgementBatches: AcknowledgementBatch[];
  /** false: only acknowledge (a partition the session forgets, or an acknowledgement-only fetch). */
  fetch: boolean;
}

export type ShareManagerMsg =
  /**
   * Kafka's ShareFetch for one member: acknowledge, then acquire records of each partition (at
   * most maxRecords in all), waiting up to maxWaitMs for minBytes.
   */
  | {
      type: 'ShareFetch';
      groupId: string;
      memberId: string;
      maxWaitMs: number;
      minBytes: number;
      maxBytes: number;
      maxRecords: number;
      partitions: ShareFetchPartition[];
    }
  /** Kafka's ShareAcknowledge for one member. */
  | { type: 'ShareAcknowledge'; groupId: string; memberId: string; partitions: (SharePartitionRef & { acknowledgementBatches: AcknowledgementBatch[] })[] }
  /** The member's share session here ended (closed, evicted, its connection gone): the records it holds go back. */
  | { type: 'ShareMemberGone'; groupId: string; memberId: string }
  /**
   * The share group was deleted, or its partitions' states changed under it (an admin reset or
   * delete of its offsets): the states held here are forgotten (the next use loads them again).
   * `partitions` null: every partition of the group.
   */
  | { type: 'ForgetShareGroup'; groupId: string; partitions?: { topicId: string; partition: number }[] | null }
  /**
   * A member of the group was given these partitions (from its coordinator, through the
   * brokers): the group's state of each is loaded, and made where share.auto.offset.reset says
   * if it has none, before the member's first fetch.
   */
  | { type: 'PrepareSharePartitions'; groupId: string; partitions: SharePartitionRef[] }
  /** The cluster's finalized share.version, whenever it changes (its broker): at 0 share fetches and acknowledgements are refused. */
  | { type: 'ShareVersionChanged'; level: number }
  /** The group configs in the metadata (group id -> its overrides), whenever they change (its broker). */
  | { type: 'ShareGroupConfigsChanged'; configs: Record<string, Record<string, string>> }
  /** Introspection (tests, admin): every share partition held here, or those of one group. */
  | { type: 'DescribeSharePartitions'; groupId?: string | null }
  // internal (the manager sends these to itself)
  /** A share partition's state was read from its share coordinator (or could not be). */
  | { type: 'SharePartitionLoaded'; key: string; loadId: number; errorCode: number; errorMessage?: string; leaderEpoch: number; stateEpoch: number; startOffset: number; stateBatches: { firstOffset: number; lastOffset: number; deliveryState: number; deliveryCount: number }[]; logStartOffset: number }
  /** A write of a share partition's state came back. */
  | { type: 'SharePartitionWritten'; key: string; writeId: number; errorCode: number; errorMessage?: string }
  /** A waiting fetch's read of the log came back. */
  | {
      type: 'ShareFetchRead';
      fetchId: number;
      /** Which of the fetch's reads (a later one supersedes it). */
      readSeq: number;
      errorCode: number;
      /** read_committed reads carry the aborted transactions in what they read. */
      partitions: { key: string; errorCode: number; errorMessage?: string; records: Uint8Array; logStartOffset: number; abortedTransactions?: { producerId: number; firstOffset: number }[] }[];
    }
  /** A waiting fetch's wait is over. */
  | { type: 'ShareFetchDeadline'; fetchId: number }
  /** The earliest acquisition lock of a share partition is due. */
  | { type: 'ShareLocksDue'; key: string }
  /** Periodic: share partitions unused for their group's session timeout are forgotten. */
  | { type: 'ShareHousekeeping' };

export interface ShareFetchPartitionResult extends SharePartitionRef {
  errorCode: number;
  errorMessage: string | null;
  /** How its acknowledgements went (0 with none). */
  acknowledgeErrorCode: number;
  acknowledgeErrorMessage: string | null;
  /** Whole batches as stored: those holding the acquired records. */
  records: Uint8Array;
  acquiredRecords: AcquiredRange[];
}

export interface ShareFetchResult {
  type: 'ShareFetchResult';
  errorCode: number;
  errorMessage?: string;
  /** How long the acquired records stay the member's (the group's share.record.lock.duration.ms). */
  acquisitionLockTimeoutMs: number;
  partitions: ShareFetchPartitionResult[];
}

export interface ShareAcknowledgeResult {
  type: 'ShareAcknowledgeResult';
  errorCode: number;
  errorMessage?: string;
  /** The group's share.record.lock.duration.ms (ShareAcknowledge v2 answers it). */
  acquisitionLockTimeoutMs: number;
  partitions: (SharePartitionRef & { errorCode: number; errorMessage: string | null })[];
}

export interface DescribedSharePartition extends SharePartitionRef {
  groupId: string;
  leaderEpoch: number;
  stateEpoch: number;
  startOffset: number;
  endOffset: number;
  available: number;
  acquired: number;
  acknowledged: number;
  archived: number;
}

export interface SharePartitionsDescription {
  type: 'SharePartitionsDescription';
  errorCode: number;
  partitions: DescribedSharePartition[];
}
