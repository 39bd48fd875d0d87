/**
 * ListOffsets (api key 2, v1-v6) and OffsetForLeaderEpoch (api key 23, v0-v4): asked of this
 * broker's replica of each partition, which answers NOT_LEADER_OR_FOLLOWER (or
 * FENCED/UNKNOWN_LEADER_EPOCH) when it is not the leader the client thinks it is. A partition this
 * broker hosts no replica of is NOT_LEADER_OR_FOLLOWER if the topic exists, else
 * UNKNOWN_TOPIC_OR_PARTITION. With an authorizer, as Kafka: the client needs DESCRIBE on each
 * topic (OffsetForLeaderEpoch: or CLUSTER_ACTION on the cluster, as a follower); the partitions of
 * the others are answered TOPIC_AUTHORIZATION_FAILED without asking their replicas.
 */
import type { EpochEndOffsetResult, ListOffsetsResult, ReplicaMsg } from '../../../actors/partition-replica/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';
import { askReplicas } from './replica-asks.js';

const UNAUTHORIZED = { failed: ErrorCode.TOPIC_AUTHORIZATION_FAILED };

/**
 * askReplicas for the topics the client may describe (`denied` null: all of them); the
 * partitions of the others get TOPIC_AUTHORIZATION_FAILED.
 */
async function askAuthorized<P, R extends ListOffsetsResult | EpochEndOffsetResult>(
  ctx: ApiContext,
  topics: readonly { name: string; partitions: readonly P[] }[],
  denied: Set<string> | null,
  partitionOf: (p: P) => number,
  msg: (p: P) => ReplicaMsg,
): Promise<(R | { failed: number })[][]> {
  if (denied === null) return askReplicas<P, R>(ctx, topics, partitionOf, msg);
  const allowed = topics.filter((t) => !denied.has(t.name));
  const replies = allowed.length === 0 ? [] : await askReplicas<P, R>(ctx, allowed, partitionOf, msg);
  let next = 0;
  return topics.map((t) => (denied.has(t.name) ? t.partitions.map(() => UNAUTHORIZED) : replies[next++]!));
}

export const listOffsets: ApiHandler<typeof ApiKeys.ListOffsets> = async (ctx, version, body) => {
  const isolationLevel = version >= 2 && body.isolationLevel === 1 ? 'read_committed' : 'read_uncommitted';
  const topics = body.topics;
  const denied = deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topics, (t) => t.name);
  const replies = await askAuthorized<(typeof topics)[number]['partitions'][number], ListOffsetsResult>(
    ctx,
    topics,
    denied,
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
  // a follower's question (KIP-320 made it a consumer's too): CLUSTER_ACTION, else DESCRIBE per topic
  const denied =
    !ctx.authorizerEnabled || ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME, false)
      ? null
      : deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topics, (t) => t.name);
  const replies = await askAuthorized<(typeof topics)[number]['partitions'][number], EpochEndOffsetResult>(
    ctx,
    topics,
    denied,
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
