/**
 * Produce (api key 0, v3+: RecordBatch v2). The batches are handed to this broker's broker actor
 * as the same bytes (one broker-level Produce for every partition of the request); each partition
 * is answered with its base offset or its error. acks 0 gets no response at all, as in Kafka,
 * and as Kafka's KafkaApis, one with a partition that failed (refused, not written) closes the
 * connection once the answers before it are out, so that the client refreshes its metadata.
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
 * itself: the broker adds each transactional partition before it writes it. From v13 (KIP-516)
 * topics are named by id, in the request and the response (topics-by-id.ts): an id not known
 * here is UNKNOWN_TOPIC_ID on each of its partitions, nothing written; WRITE is checked on the
 * topic the id names, and the broker writes a partition only while its topic still has that id
 * (else UNKNOWN_TOPIC_ID), so a topic deleted and made again under its name is not written in
 * its place.
 */
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { BrokerProduceResponse, ProducePartition } from '../../../actors/broker/messages.js';
import { ATTRIBUTES_OFFSET } from '../../protocol/batch-header.js';
import { isTransactionalBatch } from '../../protocol/control-records.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';
import { leaderHints, needsLeaderHint } from './leader-hints.js';
import { resolveTopicIds } from './topics-by-id.js';

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

/** A topic of the request: named (v3-12) or by id (v13+, `topicId` as the client sent it). */
interface Target {
  name: string;
  topicId: string;
  /** v13+: the id as the metadata stores it (the broker checks the topic still has it); absent when the id is not known. */
  storedId?: string;
  partitionData: { index: number; records: Buffer | null }[];
}

const EMPTY = Buffer.alloc(0);

/** Kafka's RequestUtils.hasTransactionalRecords: the first batch of some partition is transactional. */
function hasTransactionalRecords(topicData: { partitionData: { records: Buffer | null }[] }[]): boolean {
  return topicData.some((t) => t.partitionData.some((p) => p.records !== null && p.records.length > ATTRIBUTES_OFFSET + 1 && isTransactionalBatch(p.records, 0)));
}

const failed = (index: number, errorCode: number, errorMessage: string | null = null): PartitionAnswer => ({ index, errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage });

/** The request's topics; from v13 each id is looked up (an id not known here stays without a name). */
async function targetsOf(ctx: ApiContext, version: number, topicData: { name: string; topicId: string; partitionData: Target['partitionData'] }[]): Promise<Target[]> {
  if (version < 13) return topicData.map((t) => ({ name: t.name, topicId: ZERO_TOPIC_ID, partitionData: t.partitionData }));
  const ids = await resolveTopicIds(
    ctx,
    topicData.map((t) => t.topicId),
  );
  return topicData.map((t) => {
    const found = ids.get(t.topicId);
    return found ? { name: found.name, topicId: t.topicId, storedId: found.storedId, partitionData: t.partitionData } : { name: '', topicId: t.topicId, partitionData: t.partitionData };
  });
}

export const produce: ApiHandler<typeof ApiKeys.Produce> = async (ctx, version, body) => {
  const topicData = body.topicData as { name: string; topicId: string; partitionData: { index: number; records: Buffer | null }[] }[];
  const acks = body.acks as number;
  const named = (t: { name: string; topicId: string }) => ({ name: t.name, topicId: t.topicId });
  const failAll = (errorCode: number, errorMessage: string) => ({
    throttleTimeMs: 0,
    responses: topicData.map((t) => ({ ...named(t), partitionResponses: t.partitionData.map((p) => failed(p.index, errorCode, errorMessage)) })),
  });
  if (acks !== 0 && acks !== 1 && acks !== -1) return failAll(ErrorCode.INVALID_REQUIRED_ACKS, `acks must be -1, 0 or 1, got ${acks}`);
  const transactional = hasTransactionalRecords(topicData);
  if (transactional) {
    const transactionalId = body.transactionalId ?? null;
    if (transactionalId === null || !ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
      const why = transactionalId === null ? 'transactional records without a transactional id' : `not authorized to write as transactional id ${transactionalId}`;
      if (acks !== 0) return failAll(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, why);
      ctx.closeConnection(`acks=0 produce failed: TRANSACTIONAL_ID_AUTHORIZATION_FAILED (${why})`);
      return null;
    }
  }
  // as Kafka: an id not known here is UNKNOWN_TOPIC_ID, then WRITE is checked on the topic it names
  const targets = await targetsOf(ctx, version, topicData);
  const unknown = (t: Target) => version >= 13 && t.storedId === undefined;
  const denied = deniedNames(
    ctx,
    AclOperation.WRITE,
    ResourceType.TOPIC,
    targets.filter((t) => !unknown(t)),
    (t) => t.name,
  );
  const refusal = (t: Target) => (unknown(t) ? ErrorCode.UNKNOWN_TOPIC_ID : denied?.has(t.name) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : null);
  // each partition of the request: its place among those handed to the broker, or -1 when refused
  const partitions: ProducePartition[] = [];
  const slots = targets.map((t) =>
    t.partitionData.map((p) => {
      if (refusal(t) !== null) return -1;
      const pp: ProducePartition = { topic: t.name, partition: p.index, records: p.records ?? EMPTY };
      if (t.storedId !== undefined) pp.topicId = t.storedId;
      return partitions.push(pp) - 1;
    }),
  );
  /** The response from the answers of the partitions handed to the broker, by their place. */
  const answer = (answers: readonly PartitionAnswer[]) => ({
    throttleTimeMs: 0,
    responses: targets.map((t, i) => {
      const code = refusal(t);
      return { ...named(t), partitionResponses: t.partitionData.map((p, j) => (code !== null ? failed(p.index, code) : answers[slots[i]![j]!]!)) };
    }),
  });
  const timeoutMs = Math.max(0, body.timeoutMs as number);
  // transactional batches are verified with the transaction's coordinator before they are written (KIP-890)
  // v11+ (KIP-890) clients know TRANSACTION_ABORTABLE; older ones get INVALID_TXN_STATE for it, as Kafka
  const msg: BrokerMsg = transactional
    ? { type: 'Produce', acks, timeoutMs, partitions, transactionalId: body.transactionalId ?? null, transactionAbortable: version >= 11, transactionV2: version >= 12 }
    : { type: 'Produce', acks, timeoutMs, partitions };
  if (acks === 0) {
    // no answer; but as Kafka's KafkaApis, a failed partition closes the connection, so that the
    // client refreshes its metadata (a leader moved, a topic gone) instead of sending on into
    // nothing. The broker is asked as for acks=1, the same append, to learn how it went.
    const failures: string[] = [];
    for (const t of targets) {
      const code = refusal(t);
      if (code !== null) for (const p of t.partitionData) failures.push(`${t.name || t.topicId}-${p.index}: ${errorName(code)}`);
    }
    if (partitions.length > 0) {
      const r = await ctx.ask<BrokerMsg, BrokerProduceResponse>(ctx.broker, { ...msg, acks: 1 }, timeoutMs + 5_000);
      if (isFailure(r)) failures.push(`${errorName(r.errorCode)} (${r.message})`);
      else for (const p of r.partitions) if (p.errorCode !== ErrorCode.NONE) failures.push(`${p.topic}-${p.partition}: ${errorName(p.errorCode)}`);
    }
    if (failures.length > 0) ctx.closeConnection(`acks=0 produce failed: ${failures.join(', ')}`);
    return null;
  }
  // nothing left to write (every partition refused): answered without the broker, as Kafka
  if (partitions.length === 0) return answer([]);
  const r = await ctx.ask<BrokerMsg, BrokerProduceResponse>(ctx.broker, msg, timeoutMs + 5_000);
  if (isFailure(r)) return answer(partitions.map((pp) => failed(pp.partition, r.errorCode, r.message)));
  // the broker answers the partitions in the order handed to it
  const answers = partitions.map((pp, slot): PartitionAnswer => {
    const p = r.partitions[slot];
    if (!p || p.topic !== pp.topic || p.partition !== pp.partition) return failed(pp.partition, ErrorCode.UNKNOWN_SERVER_ERROR, 'no answer for this partition');
    return { index: p.partition, errorCode: p.errorCode, baseOffset: p.baseOffset, logAppendTimeMs: p.logAppendTime, logStartOffset: p.logStartOffset, errorMessage: p.errorCode === ErrorCode.NONE ? null : p.errorMessage };
  });
  // v10+ (KIP-951): a partition whose leader moved names the new one, and the response its endpoint
  const moved = version >= 10 ? answers.flatMap((a, slot) => (needsLeaderHint(a.errorCode) ? [slot] : [])) : [];
  const hints = await leaderHints(
    ctx,
    moved.map((slot) => partitions[slot]!.topic),
  );
  if (hints) {
    for (const slot of moved) {
      const leader = hints.leaderOf(partitions[slot]!.topic, partitions[slot]!.partition);
      if (leader) answers[slot]!.currentLeader = leader;
    }
  }
  const response: Record<string, unknown> = answer(answers);
  if (hints) response.nodeEndpoints = hints.endpoints();
  return response as never;
};
