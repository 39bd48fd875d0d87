/**
 * Produce (api key 0, v3+: RecordBatch v2). The batches are handed to this broker's broker actor
 * as the same bytes (one broker-level Produce for every partition of the request); each partition
 * is answered with its base offset or its error. acks 0 gets no response at all, as in Kafka.
 * With an authorizer, the client needs WRITE on each topic: the partitions of the others are not
 * written and answered TOPIC_AUTHORIZATION_FAILED (with acks 0 they are dropped unwritten).
 * Transactional batches (a transactional producer's, KIP-98) are written like any others, once
 * their transaction's coordinator confirms the partition is in it (KIP-890, the broker's
 * txn-verification.ts); as in Kafka, a request carrying them must name its transactional id and
 * the client needs WRITE on it, else the whole request is refused
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED. From v10 (KIP-951) a partition answered
 * NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH names its current leader, and the response that
 * leader's endpoint (leader-hints.ts). From v11 (KIP-890) a transactional partition its
 * coordinator does not have in the transaction is refused TRANSACTION_ABORTABLE (the client
 * aborts and goes on); v3-10 get INVALID_TXN_STATE for it, as Kafka. From v12 (KIP-890 part 2),
 * while the cluster's transaction.version is 2, the client adds no partition to its transaction
 * itself: the broker adds each transactional partition before it writes it.
 */
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { BrokerProduceResponse, ProducePartition } from '../../../actors/broker/messages.js';
import { ATTRIBUTES_OFFSET } from '../../protocol/batch-header.js';
import { isTransactionalBatch } from '../../protocol/control-records.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames } from './authorized-operations.js';
import type { ApiHandler } from './context.js';
import { leaderHints, needsLeaderHint } from './leader-hints.js';

interface PartitionAnswer {
  index: number;
  errorCode: number;
  baseOffset: number;
  logAppendTimeMs: number;
  logStartOffset: number;
  errorMessage: string | null;
  /** v10+: the partition's current leader, when this broker is not it (KIP-951). */
  currentLeader?: { leaderId: number; leaderEpoch: number };
}

const EMPTY = Buffer.alloc(0);

/** Kafka's RequestUtils.hasTransactionalRecords: the first batch of some partition is transactional. */
function hasTransactionalRecords(topicData: { partitionData: { records: Buffer | null }[] }[]): boolean {
  return topicData.some((t) => t.partitionData.some((p) => p.records !== null && p.records.length > ATTRIBUTES_OFFSET + 1 && isTransactionalBatch(p.records, 0)));
}

const unauthorized = (index: number): PartitionAnswer => ({ index, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage: null });

export const produce: ApiHandler<typeof ApiKeys.Produce> = async (ctx, version, body) => {
  const topicData = body.topicData as { name: string; partitionData: { index: number; records: Buffer | null }[] }[];
  const acks = body.acks as number;
  // set once the request is authorized: the topics the client may not write to
  let denied: Set<string> | null = null;
  const failAll = (errorCode: number, errorMessage: string) => ({
    throttleTimeMs: 0,
    responses: topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => (denied?.has(t.name) ? unauthorized(p.index) : { index: p.index, errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage })),
    })),
  });
  if (acks !== 0 && acks !== 1 && acks !== -1) return failAll(ErrorCode.INVALID_REQUIRED_ACKS, `acks must be -1, 0 or 1, got ${acks}`);
  const transactional = hasTransactionalRecords(topicData);
  if (transactional) {
    const transactionalId = body.transactionalId ?? null;
    if (transactionalId === null || !ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
      const why = transactionalId === null ? 'transactional records without a transactional id' : `not authorized to write as transactional id ${transactionalId}`;
      return acks === 0 ? null : failAll(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, why);
    }
  }
  denied = deniedNames(ctx, AclOperation.WRITE, ResourceType.TOPIC, topicData, (t) => t.name);
  const partitions: ProducePartition[] = [];
  for (const t of topicData) {
    if (denied?.has(t.name)) continue;
    for (const p of t.partitionData) partitions.push({ topic: t.name, partition: p.index, records: p.records ?? EMPTY });
  }
  const timeoutMs = Math.max(0, body.timeoutMs as number);
  // transactional batches are verified with the transaction's coordinator before they are written (KIP-890)
  // v11+ (KIP-890) clients know TRANSACTION_ABORTABLE; older ones get INVALID_TXN_STATE for it, as Kafka
  const msg: BrokerMsg = transactional
    ? { type: 'Produce', acks, timeoutMs, partitions, transactionalId: body.transactionalId ?? null, transactionAbortable: version >= 11, transactionV2: version >= 12 }
    : { type: 'Produce', acks, timeoutMs, partitions };
  if (acks === 0) {
    if (denied === null || partitions.length > 0) ctx.send(ctx.broker, msg);
    return null;
  }
  // nothing left to write (every partition refused): answered without the broker, as Kafka
  if (denied !== null && partitions.length === 0) return failAll(ErrorCode.TOPIC_AUTHORIZATION_FAILED, '');
  const r = await ctx.ask<BrokerMsg, BrokerProduceResponse>(ctx.broker, msg, timeoutMs + 5_000);
  if (isFailure(r)) return failAll(r.errorCode, r.message);
  const answers = new Map<string, PartitionAnswer>();
  for (const p of r.partitions) {
    answers.set(`${p.topic}\u0000${p.partition}`, {
      index: p.partition,
      errorCode: p.errorCode,
      baseOffset: p.baseOffset,
      logAppendTimeMs: p.logAppendTime,
      logStartOffset: p.logStartOffset,
      errorMessage: p.errorCode === ErrorCode.NONE ? null : p.errorMessage,
    });
  }
  // v10+ (KIP-951): a partition whose leader moved names the new one, and the response its endpoint
  const moved = version >= 10 ? r.partitions.filter((p) => needsLeaderHint(p.errorCode)) : [];
  const hints = await leaderHints(ctx, moved.map((p) => p.topic));
  if (hints) {
    for (const p of moved) {
      const leader = hints.leaderOf(p.topic, p.partition);
      const a = answers.get(`${p.topic}\u0000${p.partition}`);
      if (leader && a) a.currentLeader = leader;
    }
  }
  const response: Record<string, unknown> = {
    throttleTimeMs: 0,
    responses: topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) =>
        denied?.has(t.name)
          ? unauthorized(p.index)
          : (answers.get(`${t.name}\u0000${p.index}`) ?? { index: p.index, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage: 'no answer for this partition' }),
      ),
    })),
  };
  if (hints) response.nodeEndpoints = hints.endpoints();
  return response as never;
};
