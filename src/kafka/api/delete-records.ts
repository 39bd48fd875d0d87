/**
 * DeleteRecords (api key 21, v0-v2): each partition's leader moves its log start offset to the
 * given offset (-1: the high watermark; above it: OFFSET_OUT_OF_RANGE), deletes whole segments
 * below it and checkpoints the new start; followers take it from their next fetch. As Kafka's
 * DelayedDeleteRecords, the answer waits until every live replica has (the low watermark, the
 * lowest log start offset among them, is then at least the offset), at most the request's
 * timeoutMs (REQUEST_TIMED_OUT then). With an authorizer, as Kafka, a topic's partitions need
 * DELETE on the topic (else TOPIC_AUTHORIZATION_FAILED each, and their replicas are not asked).
 */
import type { DeleteRecordsResult } from '../../../actors/partition-replica/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';
import { askReplicas } from './replica-asks.js';

export const deleteRecords: ApiHandler<typeof ApiKeys.DeleteRecords> = async (ctx, _version, body) => {
  const topics = body.topics;
  const mayDelete = new Map<string, boolean>();
  for (const t of topics) if (!mayDelete.has(t.name)) mayDelete.set(t.name, ctx.authorize(AclOperation.DELETE, ResourceType.TOPIC, t.name));
  const allowed = topics.filter((t) => mayDelete.get(t.name));
  const replies = await askReplicas<(typeof topics)[number]['partitions'][number], DeleteRecordsResult>(
    ctx,
    allowed,
    (p) => p.partitionIndex,
    (p) => ({ type: 'DeleteRecords', offset: p.offset, timeoutMs: Math.max(0, body.timeoutMs) }),
    Math.max(0, body.timeoutMs) + ctx.config.requestTimeoutMs,
  );
  let next = 0;
  return {
    throttleTimeMs: 0,
    topics: topics.map((t) => {
      if (!mayDelete.get(t.name)) {
        return { name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) };
      }
      const row = replies[next++]!;
      return {
        name: t.name,
        partitions: t.partitions.map((p, j) => {
          const r = row[j]!;
          if ('failed' in r) return { partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode: r.failed };
          return { partitionIndex: p.partitionIndex, lowWatermark: r.lowWatermark, errorCode: r.errorCode };
        }),
      };
    }),
  };
};
