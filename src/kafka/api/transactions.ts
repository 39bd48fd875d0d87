/**
 * The transaction APIs a producer sends to its transaction coordinator (KIP-98):
 * AddPartitionsToTxn (24, v0-v3: one transaction per request; v4+, the brokers' batched and
 * verify-only form, is not advertised), AddOffsetsToTxn (25, v0-v4) and EndTxn (26, v0-v5: v5
 * is KIP-890 part 2's, every commit and abort bumping the producer's epoch, answered with the
 * producer id and epoch to go on with), and the transactional half of InitProducerId (22, see
 * producer-id.ts).
 * Each goes to this broker's transaction coordinator, which answers NOT_COORDINATOR for a
 * transactional id it does not own.
 *
 * With an authorizer, as Kafka: every one of them needs WRITE on the transactional id (else
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED), AddOffsetsToTxn READ on the group (else
 * GROUP_AUTHORIZATION_FAILED), AddPartitionsToTxn WRITE on each topic. AddPartitionsToTxn
 * refuses the whole request when one partition is refused (a topic not authorized, or internal:
 * TOPIC_AUTHORIZATION_FAILED; a partition that does not exist: UNKNOWN_TOPIC_OR_PARTITION), the
 * others answered OPERATION_NOT_ATTEMPTED.
 *
 * And the admin's view of transactions (KIP-664, kafka-transactions.sh): DescribeTransactions
 * (65, v0) tells each id's transaction from the coordinator that owns it (NOT_COORDINATOR from
 * the others, TRANSACTIONAL_ID_NOT_FOUND for an id it does not know), ListTransactions (66,
 * v0-2) every transaction of the ids this broker coordinates, filtered by state, producer id,
 * (v1) how long they have been running and (v2, KIP-1152) a regular expression the whole id must
 * match (RE2J syntax; one that does not compile is INVALID_REGULAR_EXPRESSION, as Kafka 4.1
 * answers); an admin asks every broker. As Kafka: an id is
 * told only with DESCRIBE on it (DescribeTransactions answers
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED, ListTransactions leaves it out), and a transaction's
 * partitions only of the topics the client may DESCRIBE.
 */
import type { DescribeTransactionsResult, ListTransactionsResult, TxnCoordinatorMsg, TxnCoordinatorReply } from '../../../actors/txn-coordinator/messages.js';
import { transactionRefused } from '../../../actors/txn-coordinator/txn-listing.js';
import { OFFSETS_TOPIC } from '../../../actors/group-coordinator/messages.js';
import { isInternalTopic } from '../../../actors/controller/topic-validation.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure, type Failure } from '../../runtime/types.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiContext, ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

/** The coordinator answers once the record is in the ISR (request.timeout.ms) or refused. */
function askTimeoutMs(ctx: ApiContext): number {
  return ctx.config.requestTimeoutMs + 10_000;
}

/** The coordinator's answer, or a retriable COORDINATOR_NOT_AVAILABLE when it gave none (the client finds it again). */
export async function askTxnCoordinator(ctx: ApiContext, msg: TxnCoordinatorMsg): Promise<{ errorCode: number; errorMessage: string | null; producerId: number; producerEpoch: number }> {
  const r = await ctx.ask<TxnCoordinatorMsg, TxnCoordinatorReply>(ctx.txnCoordinator, msg, askTimeoutMs(ctx));
  if (isFailure(r)) return failed(r);
  return { errorCode: r.errorCode, errorMessage: r.errorMessage ?? null, producerId: r.producerId ?? -1, producerEpoch: r.producerEpoch ?? -1 };
}

function failed(r: Failure): { errorCode: number; errorMessage: string; producerId: number; producerEpoch: number } {
  return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: r.message, producerId: -1, producerEpoch: -1 };
}

export const addPartitionsToTxn: ApiHandler<typeof ApiKeys.AddPartitionsToTxn> = async (ctx, version, body) => {
  const topics = body.v3AndBelowTopics;
  const transactionalId = body.v3AndBelowTransactionalId;
  const answer = (codeOf: (topic: string, partition: number) => number) => ({
    throttleTimeMs: 0,
    resultsByTopicV3AndBelow: topics.map((t) => ({ name: t.name, resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: codeOf(t.name, p) })) })),
  });
  if (!ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) return answer(() => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const md = await fetchClusterMetadata(ctx, [...new Set(topics.map((t) => t.name))]);
  if (!md) return answer(() => ErrorCode.COORDINATOR_NOT_AVAILABLE);
  const refused = new Map<string, number>();
  for (const t of topics) {
    // internal topics never join a transaction through this API (AddOffsetsToTxn adds __consumer_offsets)
    const authorized = !isInternalTopic(t.name) && ctx.authorize(AclOperation.WRITE, ResourceType.TOPIC, t.name);
    const known = md.topics.find((x) => x.name === t.name);
    for (const p of t.partitions) {
      if (!authorized) refused.set(`${p}/${t.name}`, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      else if (!known?.partitions.some((x) => x.partition === p)) refused.set(`${p}/${t.name}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
  }
  if (refused.size > 0) return answer((topic, p) => refused.get(`${p}/${topic}`) ?? ErrorCode.OPERATION_NOT_ATTEMPTED);
  const partitions = topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
  const r = await askTxnCoordinator(ctx, { type: 'AddPartitionsToTxn', transactionalId, producerId: body.v3AndBelowProducerId, producerEpoch: body.v3AndBelowProducerEpoch, partitions, version });
  return answer(() => r.errorCode);
};

export const addOffsetsToTxn: ApiHandler<typeof ApiKeys.AddOffsetsToTxn> = async (ctx, version, body) => {
  const refused = (errorCode: number) => ({ throttleTimeMs: 0, errorCode });
  if (!ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactionalId)) return refused(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return refused(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  // the group's partition is counted over the offsets topic as it is (offsets.topic.num.partitions before it exists)
  const md = await fetchClusterMetadata(ctx, [OFFSETS_TOPIC]);
  const count = md?.topics.find((t) => t.name === OFFSETS_TOPIC)?.partitions.length;
  const msg: TxnCoordinatorMsg = { type: 'AddOffsetsToTxn', transactionalId: body.transactionalId, producerId: body.producerId, producerEpoch: body.producerEpoch, groupId: body.groupId, version };
  if (count) msg.offsetsTopicPartitions = count;
  const r = await askTxnCoordinator(ctx, msg);
  return { throttleTimeMs: 0, errorCode: r.errorCode };
};

export const endTxn: ApiHandler<typeof ApiKeys.EndTxn> = async (ctx, version, body) => {
  if (!ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactionalId)) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1, producerEpoch: -1 };
  }
  const r = await askTxnCoordinator(ctx, { type: 'EndTxn', transactionalId: body.transactionalId, producerId: body.producerId, producerEpoch: body.producerEpoch, committed: body.committed, version });
  // v5: the id and epoch the producer goes on with (-1 on an error); older versions have no such fields
  const ok = r.errorCode === ErrorCode.NONE;
  return { throttleTimeMs: 0, errorCode: r.errorCode, producerId: ok ? r.producerId : -1, producerEpoch: ok ? r.producerEpoch : -1 };
};

export const describeTransactions: ApiHandler<typeof ApiKeys.DescribeTransactions> = async (ctx, _version, body) => {
  const allowed = body.transactionalIds.filter((id) => ctx.authorize(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, id));
  const mayTell = new Set(allowed);
  const r = allowed.length === 0 ? null : await ctx.ask<TxnCoordinatorMsg, DescribeTransactionsResult>(ctx.txnCoordinator, { type: 'DescribeTransactions', transactionalIds: allowed }, ctx.config.requestTimeoutMs);
  const told = r && !isFailure(r) ? new Map(r.transactions.map((t) => [t.transactionalId, t])) : null;
  const topicAllowed = new Map<string, boolean>();
  const mayDescribe = (topic: string): boolean => {
    let ok = topicAllowed.get(topic);
    if (ok === undefined) topicAllowed.set(topic, (ok = ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, topic)));
    return ok;
  };
  return {
    throttleTimeMs: 0,
    transactionStates: body.transactionalIds.map((id) => {
      const t = !mayTell.has(id)
        ? transactionRefused(id, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        : (told?.get(id) ?? transactionRefused(id, ErrorCode.COORDINATOR_NOT_AVAILABLE));
      const topics = new Map<string, number[]>();
      for (const p of t.partitions) {
        if (!mayDescribe(p.topic)) continue;
        const list = topics.get(p.topic);
        if (list) list.push(p.partition);
        else topics.set(p.topic, [p.partition]);
      }
      return {
        errorCode: t.errorCode,
        transactionalId: id,
        transactionState: t.state,
        transactionTimeoutMs: t.txnTimeoutMs,
        transactionStartTimeMs: t.txnStartTimestamp,
        producerId: t.producerId,
        producerEpoch: t.producerEpoch,
        topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
      };
    }),
  };
};

export const listTransactions: ApiHandler<typeof ApiKeys.ListTransactions> = async (ctx, version, body) => {
  const msg: TxnCoordinatorMsg = {
    type: 'ListTransactions',
    states: body.stateFilters,
    producerIds: body.producerIdFilters,
    durationMs: version >= 1 ? body.durationFilter : -1,
    transactionalIdPattern: version >= 2 ? body.transactionalIdPattern : null,
  };
  const r = await ctx.ask<TxnCoordinatorMsg, ListTransactionsResult>(ctx.txnCoordinator, msg, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, unknownStateFilters: [], transactionStates: [] };
  // the response has no message field: the reason is the broker's to log
  if (r.errorMessage) ctx.log.info('ListTransactions refused', { clientId: ctx.clientId, errorCode: r.errorCode, reason: r.errorMessage });
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    unknownStateFilters: r.unknownStateFilters,
    transactionStates: r.transactions
      .filter((t) => ctx.authorize(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t.transactionalId))
      .map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: t.state })),
  };
};
