/**
 * Requests answered by the replica of each partition (ListOffsets, OffsetForLeaderEpoch,
 * DeleteRecords, DescribeProducers): asked in request order, with a missing replica turned into the code Kafka gives
 * (NOT_LEADER_OR_FOLLOWER when the topic exists, UNKNOWN_TOPIC_OR_PARTITION otherwise).
 */
import type { DeleteRecordsResult, EpochEndOffsetResult, ListOffsetsResult, ProducersDescription, ReplicaMsg } from '../../../actors/partition-replica/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure, type Failure } from '../../runtime/types.js';
import type { ApiContext } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

/** The error code for a partition whose replica actor did not answer. */
async function missingReplicaCodes(ctx: ApiContext, failures: { topic: string; failure: Failure }[]): Promise<Map<string, number>> {
  const codes = new Map<string, number>();
  const unknownActor = failures.filter((f) => f.failure.reason === 'unknown-actor' || f.failure.reason === 'actor-stopped');
  if (unknownActor.length === 0) return codes;
  const md = await fetchClusterMetadata(ctx, [...new Set(unknownActor.map((f) => f.topic))]);
  const known = new Set(md?.topics.map((t) => t.name) ?? []);
  for (const f of unknownActor) codes.set(f.topic, known.has(f.topic) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  return codes;
}

/**
 * Asks the replica of each partition of each topic (in request order) and returns the replies,
 * with a Failure from a replica this broker does not host turned into the code Kafka gives.
 */
export async function askReplicas<P, R extends ReplicaReply>(
  ctx: ApiContext,
  topics: readonly { name: string; partitions: readonly P[] }[],
  partitionOf: (p: P) => number,
  msg: (p: P) => ReplicaMsg,
  timeoutMs = ctx.config.requestTimeoutMs,
): Promise<(R | { failed: number })[][]> {
  const replies = await Promise.all(
    topics.map((t) => Promise.all(t.partitions.map((p) => ctx.ask<ReplicaMsg, R>(ctx.replica(t.name, partitionOf(p)), msg(p), timeoutMs)))),
  );
  const failures = topics.flatMap((t, i) => replies[i]!.filter(isFailure).map((failure) => ({ topic: t.name, failure })));
  const missing = await missingReplicaCodes(ctx, failures);
  return replies.map((row, i) => row.map((r) => (isFailure(r) ? { failed: missing.get(topics[i]!.name) ?? r.errorCode } : r)));
}

type ReplicaReply = ListOffsetsResult | EpochEndOffsetResult | DeleteRecordsResult | ProducersDescription;
