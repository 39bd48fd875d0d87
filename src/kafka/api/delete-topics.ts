/**
 * DeleteTopics (api key 20, v0-v6), forwarded to the controller actor, as Kafka's controller
 * answers it. v6 names each topic by name or by id (KIP-516) and answers with both.
 *
 * Before the controller is asked, each topic is checked in Kafka's order:
 * - an entry with neither a name nor an id, or with both, is INVALID_REQUEST, as is a name or an
 *   id asked twice (answered once);
 * - an id this broker does not know is UNKNOWN_TOPIC_ID;
 * - with an authorizer, the client needs DELETE on the cluster, or DESCRIBE and DELETE on the
 *   topic. A topic it may not describe is TOPIC_AUTHORIZATION_FAILED whether it exists or not,
 *   and a topic asked by id then goes back without its name;
 * - a name that does not exist is UNKNOWN_TOPIC_OR_PARTITION;
 * - a name whose topic was also asked by id is INVALID_REQUEST.
 *
 * The controller deletes each topic only if it still has the id seen here (else UNKNOWN_TOPIC_ID),
 * so a topic created again under a deleted one's name is not deleted in its place. Answers come
 * in the order asked, so their positions tell nothing about topics the client may not see.
 *
 * A client's controller_mutation_rate quota (KIP-599) goes with the request; from v5 a topic
 * beyond it is THROTTLING_QUOTA_EXCEEDED.
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { kafkaTopicId, ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import { isFailure, type Failure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiContext, ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

/** From v5 a client knows THROTTLING_QUOTA_EXCEEDED, so a controller mutation quota refuses topics. */
const STRICT_SINCE = 5;

interface Answer {
  name: string | null;
  /** Kafka's form; the zero id when not told. */
  topicId: string;
  errorCode: number;
  errorMessage: string | null;
}

/** One topic as asked: by name (topicId zero) or by id (name null); `answer` once it has one. */
interface Asked {
  name: string | null;
  topicId: string;
  answer: Answer | null;
  /** The topic to delete, once the client may: its name and stored id. */
  target?: { name: string; storedId: string };
}

function refuse(a: Asked, errorCode: number, errorMessage: string | null, name = a.name, topicId = a.topicId): void {
  a.answer = { name, topicId, errorCode, errorMessage };
}

/** The entries of the request, one per distinct name or id (malformed ones each on their own). */
function distinct(entries: { name: string | null; topicId: string }[]): Asked[] {
  const out: Asked[] = [];
  const byKey = new Map<string, Asked>();
  for (const e of entries) {
    const a: Asked = { name: e.name, topicId: e.topicId, answer: null };
    if (e.name === null && e.topicId === ZERO_TOPIC_ID) refuse(a, ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.');
    else if (e.name !== null && e.topicId !== ZERO_TOPIC_ID) refuse(a, ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.');
    else {
      const key = e.name !== null ? `name:${e.name}` : `id:${e.topicId}`;
      const seen = byKey.get(key);
      if (seen) {
        if (e.name !== null) refuse(seen, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.', e.name, ZERO_TOPIC_ID);
        else refuse(seen, ErrorCode.INVALID_REQUEST, 'Duplicate topic id.', null);
        continue;
      }
      byKey.set(key, a);
    }
    out.push(a);
  }
  return out;
}

/** Finds the topics asked by id (UNKNOWN_TOPIC_ID for ids not known here). */
async function resolveIds(ctx: ApiContext, byId: Asked[]): Promise<void> {
  if (byId.length === 0) return;
  const resolved = await ctx.topicIds.resolve(
    byId.map((a) => a.topicId),
    async () => (await fetchClusterMetadata(ctx, null))?.topics ?? null,
  );
  for (const a of byId) {
    const t = resolved.get(a.topicId);
    if (t) a.target = { name: t.name, storedId: t.storedId };
    else refuse(a, ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.');
  }
}

/** Refuses the topics the client may not delete, and finds those asked by name. */
async function checkNames(ctx: ApiContext, asked: Asked[]): Promise<void> {
  const clusterWide = ctx.authorize(AclOperation.DELETE, ResourceType.CLUSTER, CLUSTER_NAME, false);
  const may = (op: number, name: string) => clusterWide || ctx.authorize(op, ResourceType.TOPIC, name);
  for (const a of asked) {
    if (a.answer || !a.target) continue;
    // asked by id: the name is told only to a client that may describe the topic
    if (!may(AclOperation.DELETE, a.target.name)) refuse(a, ErrorCode.TOPIC_AUTHORIZATION_FAILED, null, may(AclOperation.DESCRIBE, a.target.name) ? a.target.name : null);
  }
  const byName = asked.filter((a) => !a.answer && a.name !== null);
  const describable = byName.filter((a) => {
    if (may(AclOperation.DESCRIBE, a.name!)) return true;
    refuse(a, ErrorCode.TOPIC_AUTHORIZATION_FAILED, null);
    return false;
  });
  if (describable.length === 0) return;
  const md = await fetchClusterMetadata(ctx, describable.map((a) => a.name!));
  const ids = new Map((md?.topics ?? []).map((t) => [t.name, t.topicId]));
  const askedIds = new Set(asked.filter((a) => a.target && !a.answer && a.name === null).map((a) => a.target!.storedId));
  for (const a of describable) {
    const storedId = ids.get(a.name!);
    // without metadata the controller says whether the topic exists
    if (md && storedId === undefined) refuse(a, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${a.name}' does not exist.`);
    else if (!may(AclOperation.DELETE, a.name!)) refuse(a, ErrorCode.TOPIC_AUTHORIZATION_FAILED, null);
    else if (storedId !== undefined && askedIds.has(storedId)) {
      refuse(a, ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.', a.name, kafkaTopicId(storedId));
      for (const b of asked) if (b.name === null && b.target?.storedId === storedId) refuse(b, ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.', a.name);
    } else a.target = storedId === undefined ? { name: a.name!, storedId: '' } : { name: a.name!, storedId };
  }
}

export const deleteTopics: ApiHandler<typeof ApiKeys.DeleteTopics> = async (ctx, version, body) => {
  const entries = version >= 6 ? body.topics.map((t) => ({ name: t.name, topicId: t.topicId })) : body.topicNames.map((name) => ({ name, topicId: ZERO_TOPIC_ID }));
  const asked = distinct(entries);
  await resolveIds(
    ctx,
    asked.filter((a) => !a.answer && a.name === null),
  );
  await checkNames(ctx, asked);
  const targets = asked.filter((a) => !a.answer && a.target);
  let r: ControllerReply | Failure | null = null;
  let throttleTimeMs = 0;
  if (targets.length > 0) {
    const topicIds: Record<string, string> = {};
    for (const a of targets) if (a.target!.storedId !== '') topicIds[a.target!.name] = a.target!.storedId;
    const msg: ControllerMsg = { type: 'DeleteTopics', topics: targets.map((a) => a.target!.name), topicIds };
    const quota = ctx.mutationQuota(version >= STRICT_SINCE);
    if (quota) msg.mutationQuota = quota;
    r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, msg, Math.max(ctx.config.requestTimeoutMs, body.timeoutMs));
    const done = !isFailure(r) && r.type === 'DeleteTopicsResponse' ? r : null;
    if (done) throttleTimeMs = done.throttleTimeMs ?? 0;
    for (const a of targets) {
      const t = done?.topics.find((x) => x.name === a.target!.name);
      if (t) refuse(a, t.errorCode, t.errorCode === ErrorCode.NONE ? null : t.errorMessage, a.target!.name, t.topicId ? kafkaTopicId(t.topicId) : a.topicId);
      else if (r !== null && isFailure(r)) refuse(a, r.errorCode, r.message);
      else refuse(a, ErrorCode.UNKNOWN_SERVER_ERROR, 'no answer for this topic');
    }
  }
  return {
    throttleTimeMs,
    responses: asked.map((a) => {
      const { name, topicId, errorCode, errorMessage } = a.answer ?? { name: a.name, topicId: a.topicId, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no answer for this topic' };
      return { name, topicId, errorCode, errorMessage };
    }),
  };
};
