/**
 * Verifying that partitions are in a producer's ongoing transaction (KIP-890 part 1; Kafka's
 * TransactionCoordinator.handleVerifyPartitionsInTransaction), asked by a partition leader before
 * it appends the first transactional batch of a transaction: a batch for a partition its
 * producer never added (or after the transaction ended) would otherwise open a transaction no
 * coordinator ends, a hanging one. Pure: the coordinator passes the id's metadata.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { TxnState, type TopicPartition, type TxnMetadata } from './txn-metadata.js';

export interface PartitionVerification extends TopicPartition {
  errorCode: number;
}

/**
 * Each partition's answer, as Kafka's coordinator gives it: INVALID_REQUEST for an empty id;
 * INVALID_PRODUCER_ID_MAPPING when the id is unknown or has another producer id; PRODUCER_FENCED
 * for another epoch; CONCURRENT_TRANSACTIONS while a commit or abort is being prepared; else
 * NONE for a partition in the transaction (as persisted: a pending add does not count yet) and
 * TRANSACTION_ABORTABLE for one that is not.
 */
export function verifyPartitionsInTxn(
  transactionalId: string,
  metadata: TxnMetadata | null,
  producerId: number,
  producerEpoch: number,
  partitions: readonly TopicPartition[],
): PartitionVerification[] {
  const all = (errorCode: number) => partitions.map((p) => ({ topic: p.topic, partition: p.partition, errorCode }));
  if (transactionalId === '') return all(ErrorCode.INVALID_REQUEST);
  if (!metadata || metadata.state === TxnState.Dead || metadata.producerId !== producerId) return all(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  if (metadata.producerEpoch !== producerEpoch) return all(ErrorCode.PRODUCER_FENCED);
  if (metadata.state === TxnState.PrepareCommit || metadata.state === TxnState.PrepareAbort) return all(ErrorCode.CONCURRENT_TRANSACTIONS);
  return partitions.map((p) => ({
    topic: p.topic,
    partition: p.partition,
    errorCode: metadata.partitions.some((x) => x.topic === p.topic && x.partition === p.partition) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE,
  }));
}
