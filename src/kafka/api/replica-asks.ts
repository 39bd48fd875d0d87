/**
 * Requests answered by the replica of each partition (ListOffsets, OffsetForLeaderEpoch,
 * DeleteRecords, DescribeProducers): asked in request order, with a missing replica turned into the code Kafka gives
 * (KAFKA_STORAGE_ERROR when the broker's replica is offline, its log dir failed; NOT_LEADER_OR_FOLLOWER when the
 * partition exists; UNKNOWN_TOPIC_OR_PARTITION otherwise: an unknown topic, or a partition it does not have).
 */
import type { BrokerDescription, BrokerMsg } from '../../../actors/broker/messages.js';
import { partitionKey } from '../../../actors/broker/delayed-fetch.js';
import type { DeleteRecordsResult, EpochEndOffsetResult, ListOffsetsResult, ProducersDescription, ReplicaMsg } from '../../../actors/partition-replica/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure, type Failure } from '../../runtime/types.js';
import type { ApiContext } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

/**
 * The error codes, by topic-partition, for partitions whose replica actor is not there: KAFKA_STORAGE_ERROR
 * for a replica the broker took offline (its log dir failed), else NOT_LEADER_OR_FOLLOWER when the
 * partition exists and UNKNOWN_TOPIC_OR_PARTITION when it does not.
 */
async function missingReplicaCodes(ctx: ApiContext, failures: { topic: string; partition: number; failure: Failure }[]): Promise<Map<string, number>> {
  const codes = new Map<string, number>();
  const unknownActor = failures.filter((f) => f.failure.reason === 'unknown-actor' || f.failure.reason === 'actor-stopped');
  if (unknownActor.length === 0) return codes;
  const [md, broker] = await Promise.all([
    fetchClusterMetadata(ctx, [...new Set(unknownActor.map((f) => f.topic))]),
    ctx.ask<BrokerMsg, BrokerDescription>(ctx.broker, { type: 'DescribeBroker' }, ctx.config.requestTimeoutMs),
  ]);
  const known = new Set(md?.topics.flatMap((t) => t.partitions.map((p) => partitionKey(t.name, p.partition))) ?? []);
  const offline = new Set(isFailure(broker) ? [] : broker.offlinePartitions);
  for (const f of unknownActor) {
    const key = partitionKey(f.topic, f.partition);
    codes.set(key, offline.has(key) ? ErrorCode.KAFKA_STORAGE_ERROR : known.has(key) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  }
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
  const failures = topics.flatMap((t, i) => replies[i]!.flatMap((r, j) => (isFailure(r) ? [{ topic: t.name, partition: partitionOf(t.partitions[j]!), failure: r }] : [])));
  const missing = await missingReplicaCodes(ctx, failures);
  return replies.map((row, i) => row.map((r, j) => (isFailure(r) ? { failed: missing.get(partitionKey(topics[i]!.name, partitionOf(topics[i]!.partitions[j]!))) ?? r.errorCode } : r)));
}

type ReplicaReply = ListOffsetsResult | EpochEndOffsetResult | DeleteRecordsResult | ProducersDescription;
