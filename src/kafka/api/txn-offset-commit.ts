/**
 * TxnOffsetCommit (api key 28, v0-v5): a transactional producer commits a consumer group's
 * offsets inside its transaction (KafkaJS's transaction.sendOffsets, Kafka's
 * sendOffsetsToTransaction). Answered by this broker's group coordinator (NOT_COORDINATOR for a
 * group it does not own); the offsets count once the transaction commits. v4 is answered as v3
 * (a partition not in the transaction is INVALID_TXN_STATE, as Kafka); from v5 (KIP-890 part 2),
 * while the cluster's transaction.version is 2, the producer sent no AddOffsetsToTxn and the
 * group's offsets partition is added to its transaction first.
 *
 * With an authorizer, as Kafka: WRITE on the transactional id (else every partition is
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED), READ on the group (GROUP_AUTHORIZATION_FAILED), READ on
 * each topic (the partitions of the others are TOPIC_AUTHORIZATION_FAILED, the rest committed).
 */
import type { CoordinatorMsg, TxnOffsetCommitResponse } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames } from './authorized-operations.js';
import { commitAnswer, commitResult, coordinatorTopics, type CommitTopic } from './offsets.js';
import type { ApiHandler } from './context.js';

export const txnOffsetCommit: ApiHandler<typeof ApiKeys.TxnOffsetCommit> = async (ctx, version, body) => {
  const topics = body.topics as CommitTopic[];
  if (!ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactionalId)) return commitAnswer(topics, () => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return commitAnswer(topics, () => ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const denied = deniedNames(ctx, AclOperation.READ, ResourceType.TOPIC, topics, (t) => t.name);
  const allowed = denied === null ? topics : topics.filter((t) => !denied.has(t.name));
  if (denied !== null && allowed.length === 0) return commitAnswer(topics, () => ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const r = await ctx.ask<CoordinatorMsg, TxnOffsetCommitResponse>(
    ctx.coordinator,
    {
      type: 'TxnOffsetCommit',
      transactionalId: body.transactionalId,
      groupId: body.groupId,
      producerId: body.producerId,
      producerEpoch: body.producerEpoch,
      generationId: version >= 3 ? body.generationId : -1,
      memberId: version >= 3 ? body.memberId : '',
      groupInstanceId: version >= 3 ? (body.groupInstanceId ?? null) : null,
      topics: coordinatorTopics(allowed),
      transactionV2: version >= 5,
    },
    ctx.config.requestTimeoutMs,
  );
  return commitResult(topics, (t) => (denied?.has(t.name) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : null), r);
};
