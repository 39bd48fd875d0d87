/**
 * OffsetCommit (api key 8, v0-v8) and OffsetFetch (api key 9, v0-v8), answered by this broker's
 * group coordinator (NOT_COORDINATOR for a group it does not own). Commits are stored in
 * __consumer_offsets in Kafka's own record schemas. OffsetFetch v8 asks for several groups at
 * once; older versions name one group and, from v2, may ask for every committed partition
 * (topics null).
 */
import type { CoordinatorMsg } from '../../../actors/group-coordinator/messages.js';
import type { OffsetCommitResponse, OffsetFetchResponse } from '../../../actors/group-coordinator/messages.js';
import { isFailure } from '../../runtime/types.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiContext, ApiHandler } from './context.js';

interface CommitTopic {
  name: string;
  partitions: { partitionIndex: number; committedOffset: number; committedLeaderEpoch?: number; committedMetadata: string | null }[];
}

export const offsetCommit: ApiHandler<typeof ApiKeys.OffsetCommit> = async (ctx, version, body) => {
  const topics = body.topics as CommitTopic[];
  const r = await ctx.ask<CoordinatorMsg, OffsetCommitResponse>(
    ctx.coordinator,
    {
      type: 'OffsetCommit',
      groupId: body.groupId,
      generationId: version >= 1 ? body.generationIdOrMemberEpoch : -1,
      memberId: version >= 1 ? body.memberId : '',
      groupInstanceId: body.groupInstanceId ?? null,
      retentionTimeMs: version >= 2 && version <= 4 ? body.retentionTimeMs : -1,
      topics: topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1, metadata: p.committedMetadata })),
      })),
    },
    ctx.config.requestTimeoutMs,
  );
  const codes = new Map<string, number>();
  const whole = isFailure(r) ? r.errorCode : r.errorCode;
  if (!isFailure(r)) for (const t of r.topics) for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partition}`, p.errorCode);
  return {
    throttleTimeMs: 0,
    topics: topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: whole || (codes.get(`${t.name}\u0000${p.partitionIndex}`) ?? whole) })),
    })),
  };
};

type FetchTopics = { name: string; partitionIndexes: number[] }[] | null;

async function fetchGroup(ctx: ApiContext, groupId: string, topics: FetchTopics, requireStable: boolean) {
  const r = await ctx.ask<CoordinatorMsg, OffsetFetchResponse>(
    ctx.coordinator,
    { type: 'OffsetFetch', groupId, topics: topics === null ? null : topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes })), requireStable },
    ctx.config.requestTimeoutMs,
  );
  const errorCode = r.errorCode;
  const answered = isFailure(r) ? [] : r.topics;
  // A whole-group error still names every requested partition (v0/v1 have no group-level code).
  const out =
    errorCode !== 0 && topics !== null
      ? topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode })) }))
      : answered.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, committedOffset: p.offset, committedLeaderEpoch: p.leaderEpoch, metadata: p.metadata, errorCode: p.errorCode })),
        }));
  return { errorCode, topics: out };
}

export const offsetFetch: ApiHandler<typeof ApiKeys.OffsetFetch> = async (ctx, version, body) => {
  const requireStable = version >= 7 && body.requireStable === true;
  if (version >= 8) {
    const groups = await Promise.all(
      (body.groups as { groupId: string; topics: FetchTopics }[]).map(async (g) => {
        const res = await fetchGroup(ctx, g.groupId, g.topics, requireStable);
        return { groupId: g.groupId, topics: res.topics, errorCode: res.errorCode };
      }),
    );
    return { throttleTimeMs: 0, groups };
  }
  const topics: FetchTopics = version >= 2 ? body.topics : (body.topics ?? []);
  const res = await fetchGroup(ctx, body.groupId as string, topics, requireStable);
  return { throttleTimeMs: 0, topics: res.topics, errorCode: res.errorCode };
};
