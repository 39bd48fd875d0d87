/**
 * The broker's side of transaction verification (KIP-890 part 1; Kafka's
 * ReplicaManager.appendRecordsWithTransactionVerification and AddPartitionsToTxnManager): a
 * Produce naming a transactional id, whose batches are transactional, is checked with the
 * transaction's coordinator before it is written. Each partition's replica first takes a guard
 * (none is needed where the producer's transaction is open already); the partitions that need
 * one are asked of the coordinator together; a partition the producer never added to its
 * transaction, or a transaction that is over, is refused INVALID_TXN_STATE and nothing is
 * written, so no transaction is left open that no coordinator would end.
 *
 * Error codes are those Kafka gives a producer (ReplicaManager and AddPartitionsToTxnManager):
 * PRODUCER_FENCED is INVALID_PRODUCER_EPOCH, and what a retry may fix (the coordinator loading,
 * moving, unreachable, or ending the previous transaction) is NOT_ENOUGH_REPLICAS, which every
 * producer retries without a metadata refresh. The coordinator's TRANSACTION_ABORTABLE (the
 * partition is not in the transaction) reaches a Produce v11+ client as it is (KIP-890: it
 * aborts the transaction and goes on) and is INVALID_TXN_STATE on Produce v3-10.
 *
 * A TV_2 producer (KIP-890 part 2: Produce v12 or TxnOffsetCommit v5 while the cluster's
 * transaction.version is 2) adds no partition itself: the same path asks the coordinator to add
 * the partitions (AddPartitionsForProducer) instead of verifying them, whether or not
 * verification is enabled, and its answer counts for each of them.
 */
import { ErrorCode, errorName } from '../../src/protocol/errors.js';
import type { BaseContext } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { ReplicaMsg, TxnVerificationStarted } from '../partition-replica/messages.js';
import { NO_GUARD, transactionalProducerOf } from '../partition-replica/txn-verification.js';
import type { TxnCoordinatorMsg, TxnCoordinatorReply, VerifyPartitionsInTxnResult } from '../txn-coordinator/messages.js';
import type { BrokerMsg, ProducePartition } from './messages.js';

/** A partition's verdict: written with this guard (NO_GUARD: its transaction is open already), or refused. */
export type Verdict = { guard: number } | { errorCode: number; errorMessage: string };

/** The transactional producer of a Produce's batches: one (producer id, epoch), or 'mixed' when there are more. */
export function transactionalProducerOfRequest(partitions: readonly ProducePartition[]): { producerId: number; producerEpoch: number; keys: Set<number> } | 'mixed' | null {
  let found: { producerId: number; producerEpoch: number; keys: Set<number> } | null = null;
  for (const [i, pp] of partitions.entries()) {
    const first = pp.records instanceof Uint8Array ? pp.records : pp.records[0];
    const txn = first ? transactionalProducerOf(first) : null;
    if (!txn) continue;
    if (!found) found = { ...txn, keys: new Set() };
    else if (found.producerId !== txn.producerId || found.producerEpoch !== txn.producerEpoch) return 'mixed';
    found.keys.add(i);
  }
  return found;
}

/** What the verification needs of its broker. */
export interface VerificationEnv {
  ctx: BaseContext<BrokerMsg>;
  timeoutMs: number;
  /** The local replica of a partition, or null when this broker hosts none (the produce answers that). */
  replicaOf(topic: string, partition: number): ActorRef<ReplicaMsg> | null;
  /** The transaction coordinator of `transactionalId`, or why it cannot be reached. */
  coordinatorOf(transactionalId: string): ActorRef<TxnCoordinatorMsg> | { errorCode: number; errorMessage: string };
}

/** A coordinator answer a producer sees, as Kafka maps it for Produce v3-10 (v11+: abortableProducerFacingError). */
export function producerFacingError(code: number): { errorCode: number; errorMessage: string } | null {
  switch (code) {
    case ErrorCode.NONE:
      return null;
    case ErrorCode.TRANSACTION_ABORTABLE:
    case ErrorCode.INVALID_TXN_STATE:
      return { errorCode: ErrorCode.INVALID_TXN_STATE, errorMessage: 'Partition was not added to the transaction' };
    case ErrorCode.PRODUCER_FENCED:
      return { errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, errorMessage: 'the producer was fenced: its epoch is not its transactional id\'s' };
    case ErrorCode.CONCURRENT_TRANSACTIONS:
    case ErrorCode.NETWORK_EXCEPTION:
    case ErrorCode.REQUEST_TIMED_OUT:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.NOT_COORDINATOR:
      return { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS, errorMessage: `Unable to verify the partition has been added to the transaction. Underlying error: ${errorName(code)}` };
    default:
      return { errorCode: code, errorMessage: `transaction verification failed: ${errorName(code)}` };
  }
}

/** A coordinator answer a Produce v11+ client sees: TRANSACTION_ABORTABLE as it is, the rest as for older ones. */
export function abortableProducerFacingError(code: number): { errorCode: number; errorMessage: string } | null {
  if (code === ErrorCode.TRANSACTION_ABORTABLE) return { errorCode: ErrorCode.TRANSACTION_ABORTABLE, errorMessage: 'Partition was not added to the transaction' };
  return producerFacingError(code);
}

/** A coordinator answer as it is, for a caller that maps it itself (the group coordinator's TxnOffsetCommit). */
export function rawError(code: number): { errorCode: number; errorMessage: string } | null {
  return code === ErrorCode.NONE ? null : { errorCode: code, errorMessage: `transaction verification: ${errorName(code)}` };
}

/**
 * The verdict of each transactional partition of the request (by its index in `partitions`):
 * guards from the replicas, then one ask of the coordinator for those that need it (to verify
 * them, or with `addPartitions` to add them: a TV_2 producer's). The coordinator's answers go
 * through `mapError` (by default as a Produce client sees them).
 */
export async function verifyTransactionalPartitions(
  env: VerificationEnv,
  transactionalId: string,
  partitions: readonly { topic: string; partition: number }[],
  txn: { producerId: number; producerEpoch: number; keys: ReadonlySet<number> },
  mapError: (code: number) => { errorCode: number; errorMessage: string } | null = producerFacingError,
  addPartitions = false,
): Promise<Map<number, Verdict>> {
  const verdicts = new Map<number, Verdict>();
  const started = await Promise.all(
    [...txn.keys].map(async (i) => {
      const pp = partitions[i]!;
      const ref = env.replicaOf(pp.topic, pp.partition);
      if (!ref) return { i, r: null };
      const r = await env.ctx.ask<TxnVerificationStarted>(ref, { type: 'StartTxnVerification', producerId: txn.producerId, producerEpoch: txn.producerEpoch }, { timeoutMs: env.timeoutMs });
      return { i, r };
    }),
  );
  const toAsk: number[] = [];
  for (const { i, r } of started) {
    // no local replica: the produce itself answers NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION
    if (r === null) continue;
    if (isFailure(r)) verdicts.set(i, { errorCode: r.reason === 'unknown-actor' || r.reason === 'actor-stopped' ? ErrorCode.NOT_LEADER_OR_FOLLOWER : r.errorCode, errorMessage: r.message });
    else if (r.errorCode !== ErrorCode.NONE) verdicts.set(i, { errorCode: r.errorCode, errorMessage: r.errorMessage ?? errorName(r.errorCode) });
    else if (r.guard === NO_GUARD) verdicts.set(i, { guard: NO_GUARD });
    else {
      verdicts.set(i, { guard: r.guard });
      toAsk.push(i);
    }
  }
  if (toAsk.length === 0) return verdicts;
  const refuseAll = (code: number, detail?: string) => {
    const e = mapError(code)!;
    for (const i of toAsk) verdicts.set(i, detail ? { errorCode: e.errorCode, errorMessage: `${e.errorMessage} (${detail})` } : e);
  };
  const coordinator = env.coordinatorOf(transactionalId);
  if ('errorCode' in coordinator) {
    refuseAll(coordinator.errorCode, coordinator.errorMessage);
    return verdicts;
  }
  const asked = toAsk.map((i) => ({ topic: partitions[i]!.topic, partition: partitions[i]!.partition }));
  const unreachable = (r: { reason: string; message: string }) =>
    // the coordinator's actor is gone (it moved) or did not answer: the producer retries
    refuseAll(r.reason === 'unknown-actor' || r.reason === 'actor-stopped' || r.reason === 'unknown-node' ? ErrorCode.NOT_COORDINATOR : ErrorCode.NETWORK_EXCEPTION, r.message);
  if (addPartitions) {
    const added = await env.ctx.ask<TxnCoordinatorReply>(
      coordinator,
      { type: 'AddPartitionsForProducer', transactionalId, producerId: txn.producerId, producerEpoch: txn.producerEpoch, partitions: asked },
      { timeoutMs: env.timeoutMs },
    );
    if (isFailure(added)) unreachable(added);
    else if (added.errorCode !== ErrorCode.NONE) refuseAll(added.errorCode);
    return verdicts;
  }
  const r = await env.ctx.ask<VerifyPartitionsInTxnResult>(
    coordinator,
    { type: 'VerifyPartitionsInTxn', transactionalId, producerId: txn.producerId, producerEpoch: txn.producerEpoch, partitions: asked },
    { timeoutMs: env.timeoutMs },
  );
  if (isFailure(r)) {
    unreachable(r);
    return verdicts;
  }
  if (r.errorCode !== ErrorCode.NONE) {
    refuseAll(r.errorCode);
    return verdicts;
  }
  for (const [j, i] of toAsk.entries()) {
    const p = r.partitions.find((x) => x.topic === asked[j]!.topic && x.partition === asked[j]!.partition);
    const e = mapError(p ? p.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR);
    if (e) verdicts.set(i, e);
  }
  return verdicts;
}
