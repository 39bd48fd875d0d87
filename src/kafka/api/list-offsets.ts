/**
 * ListOffsets (api key 2, v1-v6) and OffsetForLeaderEpoch (api key 23, v0-v4): asked of this
 * broker's replica of each partition, which answers NOT_LEADER_OR_FOLLOWER (or
 * FENCED/UNKNOWN_LEADER_EPOCH) when it is not the leader the client thinks it is. A partition this
 * broker hosts no replica of is NOT_LEADER_OR_FOLLOWER if the topic exists, else
 * UNKNOWN_TOPIC_OR_PARTITION.
 */
import type { EpochEndOffsetResult, ListOffsetsResult } from '../../../actors/partition-replica/messages.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';
import { askReplicas } from './replica-asks.js';

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
