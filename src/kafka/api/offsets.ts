/**
 * OffsetCommit (api key 8, v0-v10) and OffsetFetch (api key 9, v0-v10), answered by this broker's
 * group coordinator (NOT_COORDINATOR for a group it does not own). Commits are stored in
 * __consumer_offsets in Kafka's own record schemas. OffsetFetch v8 asks for several groups at
 * once; older versions name one group and, from v2, may ask for every committed partition
 * (topics null). v9 (KIP-848): a member of a consumer group commits with its member epoch
 * (STALE_MEMBER_EPOCH when it is not its current one, UNKNOWN_MEMBER_ID when it is no member;
 * before v9 a member's commit is UNSUPPORTED_VERSION) and fetches naming its member id and epoch;
 * classic groups answer as before. v10 (KIP-848, Kafka 4.2) names topics by id, in requests and
 * answers (topics-by-id.ts): an id no topic has now (unknown, zero, or a topic deleted since,
 * even one made again under its name) is UNKNOWN_TOPIC_ID on each of its partitions, the other
 * topics answered as usual. The coordinator keeps offsets by topic name, so v10 and older
 * versions commit and fetch the same offsets. Asked for every committed partition, v10 answers
 * each topic with its current id and leaves out the offsets of topics that no longer exist.
 *
 * With an authorizer, as Kafka: committing needs READ on the group (else every partition is
 * GROUP_AUTHORIZATION_FAILED) and READ on each topic (the partitions of the others are
 * TOPIC_AUTHORIZATION_FAILED, the rest committed); fetching needs DESCRIBE on the group (else
 * GROUP_AUTHORIZATION_FAILED: the group's code from v2, each partition's before) and DESCRIBE on
 * each topic (named partitions of the others are TOPIC_AUTHORIZATION_FAILED; asked for all, the
 * others are left out). Topics named by id are checked as the topics they name, once the id is
 * known (an unknown id is UNKNOWN_TOPIC_ID first, as Kafka).
 */
import type { CoordinatorMsg } from '../../../actors/group-coordinator/messages.js';
import type { OffsetCommitResponse, OffsetFetchResponse } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';
import { currentTopicIds, currentTopicsById } from './topics-by-id.js';

/** OffsetCommit and OffsetFetch name topics by id from this version (KIP-848). */
const TOPIC_IDS_SINCE = 10;

/** The topics of an OffsetCommit or TxnOffsetCommit request. */
export interface CommitTopic {
  name: string;
  /** OffsetCommit v10+: the topic's id as the client sent it (its name is then the topic's, or '' when the id names none). */
  topicId?: string;
  partitions: { partitionIndex: number; committedOffset: number; committedLeaderEpoch?: number; committedMetadata: string | null }[];
}

/** A commit's answer: every partition asked for, with its code. */
export function commitAnswer(topics: CommitTopic[], codeOf: (topic: CommitTopic, partition: number) => number) {
  return {
    throttleTimeMs: 0,
    topics: topics.map((t) => ({ name: t.name, topicId: t.topicId ?? ZERO_TOPIC_ID, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: codeOf(t, p.partitionIndex) })) })),
  };
}

/**
 * v10+: the request's topics with the names their ids have now; `unknown` holds those whose id
 * names no topic (answered UNKNOWN_TOPIC_ID).
 */
async function namedById<T extends { name: string; topicId: string }>(ctx: ApiContext, topics: readonly T[]): Promise<{ topics: T[]; unknown: Set<T> }> {
  const found = await currentTopicsById(
    ctx,
    topics.map((t) => t.topicId),
  );
  const unknown = new Set<T>();
  const named = topics.map((t) => {
    const name = found.get(t.topicId)?.name;
    const n = { ...t, name: name ?? '' };
    if (name === undefined) unknown.add(n);
    return n;
  });
  return { topics: named, unknown };
}

export const offsetCommit: ApiHandler<typeof ApiKeys.OffsetCommit> = async (ctx, version, body) => {
  const asked = body.topics as (CommitTopic & { topicId: string })[];
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return commitAnswer(asked, () => ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const { topics, unknown } = version >= TOPIC_IDS_SINCE ? await namedById(ctx, asked) : { topics: asked as CommitTopic[], unknown: new Set<CommitTopic>() };
  const denied = deniedNames(
    ctx,
    AclOperation.READ,
    ResourceType.TOPIC,
    topics.filter((t) => !unknown.has(t)),
    (t) => t.name,
  );
  const refused = (t: CommitTopic) => (unknown.has(t) ? ErrorCode.UNKNOWN_TOPIC_ID : denied?.has(t.name) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : null);
  const allowed = topics.filter((t) => refused(t) === null);
  // nothing left to commit (every topic refused): answered without the coordinator, as Kafka
  if (topics.length > 0 && allowed.length === 0) return commitAnswer(topics, (t) => refused(t)!);
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
  return commitResult(topics, refused, r);
};

/** The partitions of a commit's topics as the group coordinator takes them. */
export function coordinatorTopics(topics: readonly CommitTopic[]) {
  return topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1, metadata: p.committedMetadata })),
  }));
}

/**
 * A commit's answer from the coordinator's reply: topics refused before it was asked with their
 * code (`refused`), a whole-request error (or a failed ask) for every other partition, else each
 * partition's code.
 */
export function commitResult(
  topics: CommitTopic[],
  refused: (topic: CommitTopic) => number | null,
  r: { errorCode: number; topics?: { name: string; partitions: { partition: number; errorCode: number }[] }[] },
) {
  const codes = new Map<string, number>();
  const whole = r.errorCode;
  for (const t of r.topics ?? []) for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partition}`, p.errorCode);
  return commitAnswer(topics, (topic, partition) => refused(topic) ?? (whole || (codes.get(`${topic.name}\u0000${partition}`) ?? whole)));
}

/** The topics an OffsetFetch asks for (null: every committed partition); v10+ by id. */
type FetchTopic = { name: string; topicId?: string; partitionIndexes: number[] };
type FetchTopics = FetchTopic[] | null;

const noOffset = (partitionIndex: number, errorCode: number) => ({ partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode });

/** A whole-group error naming every requested partition (v0/v1 have no group-level code). */
function groupError(errorCode: number, topics: FetchTopics) {
  const out = (topics ?? []).map((t) => ({ name: t.name, topicId: t.topicId ?? ZERO_TOPIC_ID, partitions: t.partitionIndexes.map((p) => noOffset(p, errorCode)) }));
  return { errorCode, topics: out };
}

async function fetchGroup(ctx: ApiContext, version: number, groupId: string, asked: FetchTopics, requireStable: boolean, member: { memberId: string | null; memberEpoch: number } = { memberId: null, memberEpoch: -1 }) {
  if (!ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) {
    // as Kafka: from v2 the group's code alone, before it each requested partition's
    return version >= 2 ? { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] } : groupError(ErrorCode.GROUP_AUTHORIZATION_FAILED, asked);
  }
  const byId = version >= TOPIC_IDS_SINCE;
  // v10+: the topics named by id, as the topics those ids name now
  const { topics, unknown } = byId && asked !== null ? await namedById(ctx, asked as (FetchTopic & { topicId: string })[]) : { topics: asked, unknown: new Set<FetchTopic>() };
  // named topics the client may not describe are not asked for; they are answered TOPIC_AUTHORIZATION_FAILED
  const known = topics === null ? null : topics.filter((t) => !unknown.has(t));
  const denied = known === null ? null : deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, known, (t) => t.name);
  const refused = (t: FetchTopic) => (unknown.has(t) ? ErrorCode.UNKNOWN_TOPIC_ID : denied?.has(t.name) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : null);
  const wanted = topics === null ? null : topics.filter((t) => refused(t) === null);
  const r = await ctx.ask<CoordinatorMsg, OffsetFetchResponse>(
    ctx.coordinator,
    { type: 'OffsetFetch', groupId, topics: wanted === null ? null : wanted.map((t) => ({ name: t.name, partitions: t.partitionIndexes })), requireStable, memberId: member.memberId, memberEpoch: member.memberEpoch },
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
  // v10+: each topic answered with its id (asked for: the id asked; all of them: the topic's
  // current id, and a topic that no longer exists has none to be answered with)
  let idOf: ReadonlyMap<string, string> = new Map();
  if (byId && topics !== null) idOf = new Map(topics.flatMap((t) => (unknown.has(t) ? [] : [[t.name, t.topicId ?? ZERO_TOPIC_ID] as const])));
  else if (byId) {
    const ids = await currentTopicIds(
      ctx,
      answered.map((t) => t.name),
    );
    if (ids === null) {
      ctx.log.warn('OffsetFetch answered COORDINATOR_NOT_AVAILABLE', { groupId, reason: 'no metadata to give the committed topics their ids' });
      return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, topics: [] };
    }
    idOf = ids;
    answered = answered.filter((t) => ids.has(t.name));
  }
  const out = answered.map((t) => ({
    name: t.name,
    topicId: idOf.get(t.name) ?? ZERO_TOPIC_ID,
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, committedOffset: p.offset, committedLeaderEpoch: p.leaderEpoch, metadata: p.metadata, errorCode: p.errorCode })),
  }));
  // the refused topics last, in the order asked
  for (const t of topics ?? []) {
    const code = refused(t);
    if (code !== null) out.push({ name: t.name, topicId: t.topicId ?? ZERO_TOPIC_ID, partitions: t.partitionIndexes.map((p) => noOffset(p, code)) });
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
