/**
 * DeleteRecords (api key 21, v0-v2): each partition's leader moves its log start offset to the
 * given offset (-1: the high watermark; above it: OFFSET_OUT_OF_RANGE), deletes whole segments
 * below it and checkpoints the new start before answering with it (the low watermark). Followers
 * take it from their next fetch.
 */
import type { DeleteRecordsResult } from '../../../actors/partition-replica/messages.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';
import { askReplicas } from './replica-asks.js';

export const deleteRecords: ApiHandler<typeof ApiKeys.DeleteRecords> = async (ctx, _version, body) => {
  const topics = body.topics;
  const replies = await askReplicas<(typeof topics)[number]['partitions'][number], DeleteRecordsResult>(
    ctx,
    topics,
    (p) => p.partitionIndex,
    (p) => ({ type: 'DeleteRecords', offset: p.offset }),
  );
  return {
    throttleTimeMs: 0,
    topics: topics.map((t, i) => ({
      name: t.name,
      partitions: t.partitions.map((p, j) => {
        const r = replies[i]![j]!;
        if ('failed' in r) return { partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode: r.failed };
        return { partitionIndex: p.partitionIndex, lowWatermark: r.lowWatermark, errorCode: r.errorCode };
      }),
    })),
  };
};
