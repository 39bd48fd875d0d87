/**
 * OffsetCommit (api key 8, v0-v9) and OffsetFetch (api key 9, v0-v9), answered by this broker's
 * group coordinator (NOT_COORDINATOR for a group it does not own). Commits are stored in
 * __consumer_offsets in Kafka's own record schemas. OffsetFetch v8 asks for several groups at
 * once; older versions name one group and, from v2, may ask for every committed partition
 * (topics null). v9 (KIP-848): a member of a consumer group commits with its member epoch
 * (STALE_MEMBER_EPOCH when it is not its current one, UNKNOWN_MEMBER_ID when it is no member;
 * before v9 a member's commit is UNSUPPORTED_VERSION) and fetches naming its member id and epoch;
 * classic groups answer as before.
 *
 * With an authorizer, as Kafka: committing needs READ on the group (else every partition is
 * GROUP_AUTHORIZATION_FAILED) and READ on each topic (the partitions of the others are
 * TOPIC_AUTHORIZATION_FAILED, the rest committed); fetching needs DESCRIBE on the group (else
 * GROUP_AUTHORIZATION_FAILED: the group's code from v2, each partition's before) and DESCRIBE on
 * each topic (named partitions of the others are TOPIC_AUTHORIZATION_FAILED; asked for all, the
 * others are left out).
 */
import type { CoordinatorMsg } from '../../../actors/group-coordinator/messages.js';
import type { OffsetCommitResponse, OffsetFetchResponse } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';

/** The topics of an OffsetCommit or TxnOffsetCommit request. */
export interface CommitTopic {
  name: string;
  partitions: { partitionIndex: number; committedOffset: number; committedLeaderEpoch?: number; committedMetadata: string | null }[];
}

/** A commit's answer: every partition asked for, with its code. */
export function commitAnswer(topics: CommitTopic[], codeOf: (topic: string, partition: number) => number) {
  return { throttleTimeMs: 0, topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: codeOf(t.name, p.partitionIndex) })) })) };
}

export const offsetCommit: ApiHandler<typeof ApiKeys.OffsetCommit> = async (ctx, version, body) => {
  const topics = body.topics as CommitTopic[];
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return commitAnswer(topics, () => ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const denied = deniedNames(ctx, AclOperation.READ, ResourceType.TOPIC, topics, (t) => t.name);
  const allowed = denied === null ? topics : topics.filter((t) => !denied.has(t.name));
  // nothing left to commit (every topic refused): answered without the coordinator, as Kafka
  if (denied !== null && allowed.length === 0) return commitAnswer(topics, () => ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const r = await ctx.ask<CoordinatorMsg, OffsetCommitResponse>(
    ctx.coordinator,
    {
      type: 'OffsetCommit',
      groupId: body.groupId,
      generationId: version >= 1 ? body.generationIdOrMemberEpoch : -1,
      memberId: version >= 1 ? body.memberId : '',
      groupInstanceId: body.groupInstanceId ?? null,
      retentionTimeMs: version >= 2 && version <= 4 ? body.retentionTimeMs : -1,
      topics: coordinatorTopics(allowed),
      apiVersion: version,
    },
    ctx.config.requestTimeoutMs,
  );
  return commitResult(topics, denied, r);
};

/** The partitions of a commit's topics as the group coordinator takes them. */
export function coordinatorTopics(topics: readonly CommitTopic[]) {
  return topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1, metadata: p.committedMetadata })),
  }));
}

/**
 * A commit's answer from the coordinator's reply: refused topics TOPIC_AUTHORIZATION_FAILED, a
 * whole-request error (or a failed ask) for every other partition, else each partition's code.
 */
export function commitResult(topics: CommitTopic[], denied: ReadonlySet<string> | null, r: { errorCode: number; topics?: { name: string; partitions: { partition: number; errorCode: number }[] }[] }) {
  const codes = new Map<string, number>();
  const whole = r.errorCode;
  for (const t of r.topics ?? []) for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partition}`, p.errorCode);
  return commitAnswer(topics, (topic, partition) => (denied?.has(topic) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : whole || (codes.get(`${topic}\u0000${partition}`) ?? whole)));
}

type FetchTopics = { name: string; partitionIndexes: number[] }[] | null;

/** A whole-group error naming every requested partition (v0/v1 have no group-level code). */
function groupError(errorCode: number, topics: FetchTopics) {
  const out = (topics ?? []).map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode })) }));
  return { errorCode, topics: out };
}

async function fetchGroup(ctx: ApiContext, version: number, groupId: string, topics: FetchTopics, requireStable: boolean, member: { memberId: string | null; memberEpoch: number } = { memberId: null, memberEpoch: -1 }) {
  if (!ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) {
    // as Kafka: from v2 the group's code alone, before it each requested partition's
    return version >= 2 ? { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] } : groupError(ErrorCode.GROUP_AUTHORIZATION_FAILED, topics);
  }
  // named topics the client may not describe are not asked for; they are answered TOPIC_AUTHORIZATION_FAILED
  const denied = topics === null ? null : deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topics, (t) => t.name);
  const asked = denied === null || topics === null ? topics : topics.filter((t) => !denied.has(t.name));
  const r = await ctx.ask<CoordinatorMsg, OffsetFetchResponse>(
    ctx.coordinator,
    { type: 'OffsetFetch', groupId, topics: asked === null ? null : asked.map((t) => ({ name: t.name, partitions: t.partitionIndexes })), requireStable, memberId: member.memberId, memberEpoch: member.memberEpoch },
    ctx.config.requestTimeoutMs,
  );
  const errorCode = r.errorCode;
  if (errorCode !== 0 && topics !== null) return groupError(errorCode, topics);
  let answered = isFailure(r) ? [] : r.topics;
  // every committed partition: the topics the client may not describe are left out
  if (topics === null && ctx.authorizerEnabled) {
    const hidden = deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, answered, (t) => t.name);
    if (hidden !== null) answered = answered.filter((t) => !hidden.has(t.name));
  }
  const out = answered.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, committedOffset: p.offset, committedLeaderEpoch: p.leaderEpoch, metadata: p.metadata, errorCode: p.errorCode })),
  }));
  if (denied !== null && topics !== null) {
    for (const t of topics) {
      if (denied.has(t.name)) out.push({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) });
    }
  }
  return { errorCode, topics: out };
}

export const offsetFetch: ApiHandler<typeof ApiKeys.OffsetFetch> = async (ctx, version, body) => {
  const requireStable = version >= 7 && body.requireStable === true;
  if (version >= 8) {
    const groups = await Promise.all(
      (body.groups as { groupId: string; topics: FetchTopics; memberId?: string | null; memberEpoch?: number }[]).map(async (g) => {
        const member = version >= 9 ? { memberId: g.memberId ?? null, memberEpoch: g.memberEpoch ?? -1 } : undefined;
        const res = await fetchGroup(ctx, version, g.groupId, g.topics, requireStable, member);
        return { groupId: g.groupId, topics: res.topics, errorCode: res.errorCode };
      }),
    );
    return { throttleTimeMs: 0, groups };
  }
  const topics: FetchTopics = version >= 2 ? body.topics : (body.topics ?? []);
  const res = await fetchGroup(ctx, version, body.groupId as string, topics, requireStable);
  return { throttleTimeMs: 0, topics: res.topics, errorCode: res.errorCode };
};
