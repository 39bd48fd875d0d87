/**
 * ListOffsets (api key 2, v1-v11) and OffsetForLeaderEpoch (api key 23, v0-v4): asked of this
 * broker's replica of each partition, which answers NOT_LEADER_OR_FOLLOWER (or
 * FENCED/UNKNOWN_LEADER_EPOCH) when it is not the leader the client thinks it is. A partition this
 * broker hosts no replica of is NOT_LEADER_OR_FOLLOWER if the topic exists, else
 * UNKNOWN_TOPIC_OR_PARTITION. With an authorizer, as Kafka: the client needs DESCRIBE on each
 * topic (OffsetForLeaderEpoch: or CLUSTER_ACTION on the cluster, as a follower); the partitions of
 * the others are answered TOPIC_AUTHORIZATION_FAILED without asking their replicas.
 *
 * ListOffsets' negative timestamps each need a version, as in Kafka's ReplicaManager: LATEST (-1)
 * and EARLIEST (-2) v1, MAX_TIMESTAMP (-3) v7, EARLIEST_LOCAL (-4) v8, LATEST_TIERED (-5) v9,
 * EARLIEST_PENDING_UPLOAD (-6) v11; one asked in an older version, or one Kafka does not know, is
 * UNSUPPORTED_VERSION for that partition and its replica is not asked. v10's TimeoutMs bounds
 * Kafka's lookups in tiered storage: samsa has none, every lookup is in the local log.
 */
import {
  EARLIEST_LOCAL_TIMESTAMP,
  EARLIEST_PENDING_UPLOAD_TIMESTAMP,
  EARLIEST_TIMESTAMP,
  LATEST_TIERED_TIMESTAMP,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
  type EpochEndOffsetResult,
  type ListOffsetsResult,
  type ReplicaMsg,
} from '../../../actors/partition-replica/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';
import { askReplicas } from './replica-asks.js';

const UNAUTHORIZED = { failed: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
const UNSUPPORTED = { failed: ErrorCode.UNSUPPORTED_VERSION };

/** The first ListOffsets version of each special timestamp (Kafka's timestampMinSupportedVersion). */
const TIMESTAMP_MIN_VERSION: ReadonlyMap<number, number> = new Map([
  [LATEST_TIMESTAMP, 1],
  [EARLIEST_TIMESTAMP, 1],
  [MAX_TIMESTAMP, 7],
  [EARLIEST_LOCAL_TIMESTAMP, 8],
  [LATEST_TIERED_TIMESTAMP, 9],
  [EARLIEST_PENDING_UPLOAD_TIMESTAMP, 11],
]);

/** A negative timestamp this version does not have (or no version has). */
export function isTimestampUnsupported(timestamp: number, version: number): boolean {
  return timestamp < 0 && !(version >= (TIMESTAMP_MIN_VERSION.get(timestamp) ?? Infinity));
}

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
  type Partition = (typeof body.topics)[number]['partitions'][number];
  const topics = body.topics;
  const denied = deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topics, (t) => t.name);
  // the replicas are asked only for the timestamps this version has
  const asked = topics.map((t) => ({ name: t.name, partitions: t.partitions.filter((p) => !isTimestampUnsupported(p.timestamp, version)) }));
  const answers = await askAuthorized<Partition, ListOffsetsResult>(
    ctx,
    asked,
    denied,
    (p) => p.partitionIndex,
    (p) => ({ type: 'ListOffsets', timestamp: p.timestamp, currentLeaderEpoch: p.currentLeaderEpoch, isolationLevel }),
  );
  return {
    throttleTimeMs: 0,
    topics: topics.map((t, i) => {
      let next = 0;
      return {
        name: t.name,
        partitions: t.partitions.map((p) => {
          // an unauthorized topic's partitions are all TOPIC_AUTHORIZATION_FAILED, as Kafka checks that first
          const r = denied?.has(t.name) ? UNAUTHORIZED : isTimestampUnsupported(p.timestamp, version) ? UNSUPPORTED : answers[i]![next++]!;
          if ('failed' in r) return { partitionIndex: p.partitionIndex, errorCode: r.failed, timestamp: -1, offset: -1, leaderEpoch: -1 };
          return { partitionIndex: p.partitionIndex, errorCode: r.errorCode, timestamp: r.timestamp, offset: r.offset, leaderEpoch: r.leaderEpoch };
        }),
      };
    }),
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
