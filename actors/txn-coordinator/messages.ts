/**
 * Messages the transaction coordinator accepts, and its replies (Kafka's transaction APIs,
 * KIP-98). A producer finds the coordinator of its transactional id with FindCoordinator (key
 * type transaction, answered by any broker) and then talks to the coordinator actor at
 * txnCoordinatorPath(brokerId). Every reply carries `errorCode`.
 */
import { offsetsPartitionFor } from '../group-coordinator/messages.js';
import type { TxnApi } from './txn-state-machine.js';
import type { TopicPartition, TxnState } from './txn-metadata.js';
import type { PartitionVerification } from './txn-verify.js';

export { TRANSACTION_STATE_TOPIC } from './txn-metadata.js';

/** The transaction coordinator actor of broker `brokerId` (a child of the broker). */
export function txnCoordinatorPath(brokerId: number): string {
  return `/broker-${brokerId}/txn-coordinator`;
}

/** Kafka's Utils.abs(transactionalId.hashCode) % transaction.state.log.num.partitions: the hash groups use. */
export function transactionStatePartitionFor(transactionalId: string, numPartitions: number): number {
  return offsetsPartitionFor(transactionalId, numPartitions);
}

export type TxnCoordinatorMsg =
  /** Kafka's InitProducerId with a transactional id (v3+: a recovering producer names its id and epoch; -1 otherwise). */
  | { type: 'InitProducerId'; transactionalId: string; transactionTimeoutMs: number; producerId: number; producerEpoch: number; version: number }
  /** Kafka's AddPartitionsToTxn v0-3 (one transaction). */
  | { type: 'AddPartitionsToTxn'; transactionalId: string; producerId: number; producerEpoch: number; partitions: TopicPartition[]; version: number }
  /**
   * Kafka's AddOffsetsToTxn: the group's __consumer_offsets partition joins the transaction.
   * `offsetsTopicPartitions`: the offsets topic's partition count as the sender knows it
   * (absent: offsets.topic.num.partitions).
   */
  | { type: 'AddOffsetsToTxn'; transactionalId: string; producerId: number; producerEpoch: number; groupId: string; version: number; offsetsTopicPartitions?: number }
  /**
   * From a partition leader's broker, before it appends the first transactional batch of a
   * transaction (KIP-890 part 1, Kafka's AddPartitionsToTxn v4+ with verifyOnly): are these
   * partitions in the producer's ongoing transaction? Answered VerifyPartitionsInTxnResult.
   */
  | { type: 'VerifyPartitionsInTxn'; transactionalId: string; producerId: number; producerEpoch: number; partitions: TopicPartition[] }
  /**
   * From a partition leader's broker, before it appends the first batch of a TV_2 producer's
   * transaction there (Produce v12, or TxnOffsetCommit v5 for the offsets partition; KIP-890
   * part 2, Kafka's AddPartitionsToTxn v5 from a broker, verifyOnly false): add these partitions
   * to the producer's transaction, starting one if none is ongoing. Answered TxnCoordinatorReply
   * (api AddPartitionsToTxn) once the record is written.
   */
  | { type: 'AddPartitionsForProducer'; transactionalId: string; producerId: number; producerEpoch: number; partitions: TopicPartition[] }
  /**
   * Kafka's EndTxn: commit (committed true) or abort the ongoing transaction. v0-4 keep the
   * producer's epoch; v5 (KIP-890 part 2) bump it, answering the producer id and epoch to go on with.
   */
  | { type: 'EndTxn'; transactionalId: string; producerId: number; producerEpoch: number; committed: boolean; version: number }
  /**
   * From the local broker: this broker now leads / no longer leads a __transaction_state
   * partition. `numPartitions`: the topic's partition count as the broker's metadata knows it.
   */
  | { type: 'BecomeTxnCoordinator'; partition: number; leaderEpoch: number; numPartitions?: number }
  | { type: 'ResignTxnCoordinator'; partition: number; leaderEpoch: number }
  /** Introspection for tests and admin tools: the partitions owned and every transaction they hold. */
  | { type: 'DescribeTxnCoordinator' }
  /** Kafka's DescribeTransactions: each id's transaction, or why it is not told (answered DescribeTransactionsResult). */
  | { type: 'DescribeTransactions'; transactionalIds: string[] }
  /**
   * Kafka's ListTransactions over every partition this coordinator owns (answered
   * ListTransactionsResult): only the given states and producer ids when those are not empty,
   * only transactions running longer than `durationMs` when it is 0 or more, only the ids
   * `transactionalIdPattern` matches whole when it is given and not empty (KIP-1152, RE2J syntax;
   * one that does not compile: INVALID_REGULAR_EXPRESSION).
   */
  | { type: 'ListTransactions'; states: string[]; producerIds: number[]; durationMs: number; transactionalIdPattern?: string | null }
  // internal (the coordinator sends these to itself)
  /** A replica read of a partition being loaded came back. */
  | {
      type: 'TxnLoadRead';
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
  | { type: 'TxnLoadNext'; partition: number; loadId: number }
  /** An append of a transactional id's record settled (errorCode NONE: replicated to the ISR). */
  | { type: 'TxnAppendDone'; appendId: number; errorCode: number; errorMessage?: string }
  /** Write the pending record of a transactional id again (after a backoff). */
  | { type: 'TxnPersistRetry'; transactionalId: string; appendSeq: number }
  /** The broker's answer to our ask for a producer id, for the InitProducerId waiting on it. */
  | { type: 'ProducerIdFetched'; errorCode: number; errorMessage?: string; producerId: number }
  /** Start (or retry, after a backoff) writing the markers of a transactional id's prepared transaction. */
  | { type: 'SendTxnMarkers'; transactionalId: string; jobId: number }
  /** One round of marker writes settled: the partitions now done, and whether the markers were refused as stale. */
  | { type: 'TxnMarkersSent'; transactionalId: string; jobId: number; done: TopicPartition[]; fenced: boolean; errors: string[] }
  /** Periodic: abort transactions open past their timeout. */
  | { type: 'AbortTimedOutTransactions' }
  /** Periodic: forget transactional ids unused for transactional.id.expiration.ms. */
  | { type: 'ExpireTransactionalIds' };

/** The answer to InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn and EndTxn. */
export interface TxnCoordinatorReply {
  type: 'TxnCoordinatorReply';
  api: TxnApi;
  errorCode: number;
  errorMessage?: string;
  /** InitProducerId, and EndTxn: the id and epoch the producer goes on with (-1 on an error). */
  producerId?: number;
  producerEpoch?: number;
}

export interface DescribedTransaction {
  transactionalId: string;
  partition: number;
  state: TxnState;
  producerId: number;
  producerEpoch: number;
  txnTimeoutMs: number;
  partitions: TopicPartition[];
  /** The state being written (or whose markers are being written), null when none. */
  pendingState: TxnState | null;
}

/** One id of a DescribeTransactions: errorCode NONE with its transaction, or why not (the rest -1 / empty). */
export interface TransactionView {
  transactionalId: string;
  errorCode: number;
  /** Kafka's state name (Empty, Ongoing, PrepareCommit, ...); '' on an error. */
  state: string;
  txnTimeoutMs: number;
  /** When the first partition joined the ongoing transaction; -1 when none. */
  txnStartTimestamp: number;
  producerId: number;
  producerEpoch: number;
  partitions: TopicPartition[];
}

export interface DescribeTransactionsResult {
  type: 'DescribeTransactionsResult';
  errorCode: number;
  transactions: TransactionView[];
}

export interface ListTransactionsResult {
  type: 'ListTransactionsResult';
  /**
   * COORDINATOR_LOAD_IN_PROGRESS while a partition it owns is being loaded,
   * INVALID_REGULAR_EXPRESSION for a transactional id pattern that does not compile.
   */
  errorCode: number;
  /** Why, for INVALID_REGULAR_EXPRESSION. */
  errorMessage?: string;
  /** State filters naming no state Kafka knows. */
  unknownStateFilters: string[];
  transactions: { transactionalId: string; producerId: number; state: string }[];
}

export interface TxnCoordinatorDescription {
  type: 'TxnCoordinatorDescription';
  brokerId: number;
  numPartitions: number;
  partitions: { partition: number; coordinatorEpoch: number; status: 'Loading' | 'Active'; transactionalIds: number }[];
  transactions: DescribedTransaction[];
  /** Appends to __transaction_state not yet settled. */
  pendingAppends: number;
  /** Transactions whose markers are being written. */
  markerJobs: number;
}

/** The answer to VerifyPartitionsInTxn: an error code per partition (see txn-verify.ts). */
export interface VerifyPartitionsInTxnResult {
  type: 'VerifyPartitionsInTxnResult';
  errorCode: number;
  partitions: PartitionVerification[];
}
