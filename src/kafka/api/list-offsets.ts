/**
 * ListOffsets (api key 2, v1-v6) and OffsetForLeaderEpoch (api key 23, v0-v4): asked of this
 * broker's replica of each partition, which answers NOT_LEADER_OR_FOLLOWER (or
 * FENCED/UNKNOWN_LEADER_EPOCH) when it is not the leader the client thinks it is. A partition this
 * broker hosts no replica of is NOT_LEADER_OR_FOLLOWER if the topic exists, else
 * UNKNOWN_TOPIC_OR_PARTITION.
 */
import type { EpochEndOffsetResult, ListOffsetsResult, ReplicaMsg } from '../../../actors/partition-replica/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure, type Failure } from '../../runtime/types.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiContext, ApiHandler } from './context.js';
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
async function askReplicas<P, R extends ReplicaReply>(
  ctx: ApiContext,
  topics: readonly { name: string; partitions: readonly P[] }[],
  partitionOf: (p: P) => number,
  msg: (p: P) => ReplicaMsg,
): Promise<(R | { failed: number })[][]> {
  const replies = await Promise.all(
    topics.map((t) => Promise.all(t.partitions.map((p) => ctx.ask<ReplicaMsg, R>(ctx.replica(t.name, partitionOf(p)), msg(p), ctx.config.requestTimeoutMs)))),
  );
  const failures = topics.flatMap((t, i) => replies[i]!.filter(isFailure).map((failure) => ({ topic: t.name, failure })));
  const missing = await missingReplicaCodes(ctx, failures);
  return replies.map((row, i) => row.map((r) => (isFailure(r) ? { failed: missing.get(topics[i]!.name) ?? r.errorCode } : r)));
}

type ReplicaReply = ListOffsetsResult | EpochEndOffsetResult;

export const listOffsets: ApiHandler<typeof ApiKeys.ListOffsets> = async (ctx, version, body) => {
  const isolationLevel = version >= 2 && body.isolationLevel === 1 ? 'read_committed' : 'read_uncommitted';
  const topics = body.topics;
  const replies = await askReplicas<(typeof topics)[number]['partitions'][number], ListOffsetsResult>(
    ctx,
    topics,
    (p) => p.partitionIndex,
    (p) => ({ type: 'ListOffsets', timestamp: p.timestamp, currentLeaderEpoch: p.currentLeaderEpoch, isolationLevel }),
  );
  return {
    throttleTimeMs: 0,
    topics: topics.map((t, i) => ({
      name: t.name,
      partitions: t.partitions.map((p, j) => {
        const r = replies[i]![j]!;
        if ('failed' in r) return { partitionIndex: p.partitionIndex, errorCode: r.failed, timestamp: -1, offset: -1, leaderEpoch: -1 };
        return { partitionIndex: p.partitionIndex, errorCode: r.errorCode, timestamp: r.timestamp, offset: r.offset, leaderEpoch: r.leaderEpoch };
      }),
    })),
  };
};

export const offsetForLeaderEpoch: ApiHandler<typeof ApiKeys.OffsetForLeaderEpoch> = async (ctx, _version, body) => {
  const topics = body.topics.map((t) => ({ name: t.topic, partitions: t.partitions }));
  const replies = await askReplicas<(typeof topics)[number]['partitions'][number], EpochEndOffsetResult>(
    ctx,
    topics,
    (p) => p.partition,
    (p) => ({ type: 'OffsetsForLeaderEpoch', leaderEpoch: p.leaderEpoch, currentLeaderEpoch: p.currentLeaderEpoch }),
  );
  return {
    throttleTimeMs: 0,
    topics: topics.map((t, i) => ({
      topic: t.name,
      partitions: t.partitions.map((p, j) => {
        const r = replies[i]![j]!;
        if ('failed' in r) return { errorCode: r.failed, partition: p.partition, leaderEpoch: -1, endOffset: -1 };
        return { errorCode: r.errorCode, partition: p.partition, leaderEpoch: r.leaderEpoch, endOffset: r.endOffset };
      }),
    })),
  };
};
