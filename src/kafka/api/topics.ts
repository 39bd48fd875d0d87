/**
 * CreateTopics (api key 19, v0-v7) and CreatePartitions (api key 37, v0-v3, with explicit
 * assignments and validateOnly), forwarded to the controller actor (any broker accepts them: each
 * reaches the controller). The controller validates names, partition counts, replication factors,
 * assignments and configs with Kafka's rules and answers per topic. A created topic's id comes
 * back from v7. (DeleteTopics: delete-topics.ts.)
 *
 * With an authorizer, as Kafka's controller: CreateTopics needs CREATE on the cluster or else on
 * each topic, and returns a created topic's configs in force (v5+: every topic key, from its
 * override, the broker's config or Kafka's default, as Kafka's) only with DESCRIBE_CONFIGS on it (else
 * its topicConfigErrorCode says TOPIC_AUTHORIZATION_FAILED); CreatePartitions needs ALTER on each
 * topic. Topics refused never reach the controller.
 *
 * A client's controller_mutation_rate quota (KIP-599) goes with each request for the controller to
 * keep: in the versions named in STRICT_SINCE a topic beyond it is THROTTLING_QUOTA_EXCEEDED; the
 * response's throttleTimeMs says how long to hold back, and the connection is held back that long.
 */
import type { ControllerMsg, ControllerReply, CreatableTopic } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { kafkaTopicId, ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import { isFailure, type Failure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';
import { effectiveTopicConfigs } from './describe-configs.js';
import { fetchClusterMetadata } from './metadata.js';

interface CreatableTopicReq {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  assignments: { partitionIndex: number; brokerIds: number[] }[];
  configs: { name: string; value: string | null }[];
}

/**
 * The versions from which a client knows THROTTLING_QUOTA_EXCEEDED, so a controller mutation
 * quota refuses topics (strict); older ones have every topic done and are only held back (KIP-599).
 */
const STRICT_SINCE = { createTopics: 6, createPartitions: 3 } as const;

function toCreatable(t: CreatableTopicReq): CreatableTopic | string {
  const config: Record<string, string> = {};
  for (const c of t.configs) if (c.value !== null) config[c.name] = c.value;
  if (t.assignments.length > 0) {
    if (t.numPartitions !== -1 || t.replicationFactor !== -1) return 'both numPartitions or replicationFactor and manual partition assignment were set; set only one';
    const sorted = [...t.assignments].sort((a, b) => a.partitionIndex - b.partitionIndex);
    if (sorted.some((a, i) => a.partitionIndex !== i)) return 'manual partition assignment must name partitions 0..n-1 exactly once';
    return { name: t.name, assignments: sorted.map((a) => a.brokerIds), config };
  }
  return { name: t.name, numPartitions: t.numPartitions, replicationFactor: t.replicationFactor, config };
}

export const createTopics: ApiHandler<typeof ApiKeys.CreateTopics> = async (ctx, version, body) => {
  const reqs = body.topics as CreatableTopicReq[];
  const counts = new Map<string, number>();
  for (const t of reqs) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const answers = new Map<string, { errorCode: number; errorMessage: string | null; numPartitions: number; replicationFactor: number; topicId?: string | null }>();
  const valid: CreatableTopic[] = [];
  let throttleTimeMs = 0;
  // CREATE on the cluster covers every topic; DESCRIBE_CONFIGS decides whether configs come back
  const mayCreateAll = ctx.authorize(AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME, false);
  const mayDescribeConfigs = new Set<string>();
  for (const t of reqs) {
    if (counts.get(t.name)! > 1) {
      answers.set(t.name, { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `topic '${t.name}' appears more than once in the request`, numPartitions: -1, replicationFactor: -1 });
      continue;
    }
    if (ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, t.name, false)) mayDescribeConfigs.add(t.name);
    if (!mayCreateAll && !ctx.authorize(AclOperation.CREATE, ResourceType.TOPIC, t.name)) {
      answers.set(t.name, { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.', numPartitions: -1, replicationFactor: -1 });
      continue;
    }
    const c = toCreatable(t);
    if (typeof c === 'string') answers.set(t.name, { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: c, numPartitions: -1, replicationFactor: -1 });
    else valid.push(c);
  }
  if (valid.length > 0) {
    const validateOnly = version >= 1 && body.validateOnly === true;
    const msg: ControllerMsg = { type: 'CreateTopics', topics: valid, validateOnly };
    const quota = ctx.mutationQuota(version >= STRICT_SINCE.createTopics);
    if (quota) msg.mutationQuota = quota;
    const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, msg, Math.max(ctx.config.requestTimeoutMs, body.timeoutMs as number));
    if (!isFailure(r) && r.type === 'CreateTopicsResponse') throttleTimeMs = r.throttleTimeMs ?? 0;
    for (const t of valid) {
      if (isFailure(r) || r.type !== 'CreateTopicsResponse') {
        answers.set(t.name, { errorCode: isFailure(r) ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: isFailure(r) ? r.message : 'unexpected controller reply', numPartitions: -1, replicationFactor: -1 });
        continue;
      }
      const a = r.topics.find((x) => x.name === t.name);
      answers.set(t.name, a ? { errorCode: a.errorCode, errorMessage: a.errorMessage, numPartitions: a.numPartitions, replicationFactor: a.replicationFactor, topicId: a.topicId } : { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no answer for this topic', numPartitions: -1, replicationFactor: -1 });
    }
  }
  // v5+: a created topic's configs in force, over this broker's (dynamic ones included)
  const md = version >= 5 && [...answers.values()].some((a) => a.errorCode === ErrorCode.NONE) ? await fetchClusterMetadata(ctx, []) : null;
  const seen = new Set<string>();
  const topics = [];
  for (const t of reqs) {
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    const a = answers.get(t.name)!;
    const ok = a.errorCode === ErrorCode.NONE;
    // v7+: the new topic's id (the zero id when none was made: refused, or only validated)
    const topicId = ok && a.topicId ? kafkaTopicId(a.topicId) : ZERO_TOPIC_ID;
    if (ok && !mayDescribeConfigs.has(t.name)) {
      // created, but the client may not see its configs (nor, as in Kafka, its partition count and replication factor)
      topics.push({ name: t.name, topicId, errorCode: a.errorCode, errorMessage: null, topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, numPartitions: -1, replicationFactor: -1, configs: [] });
      continue;
    }
    topics.push({
      name: t.name,
      topicId,
      errorCode: a.errorCode,
      errorMessage: ok ? null : a.errorMessage,
      numPartitions: ok ? a.numPartitions : -1,
      replicationFactor: ok ? a.replicationFactor : -1,
      configs: ok ? effectiveTopicConfigs(ctx, md, Object.fromEntries(t.configs.filter((c) => c.value !== null).map((c) => [c.name, c.value!]))) : null,
    });
  }
  return { throttleTimeMs, topics };
};

export const createPartitions: ApiHandler<typeof ApiKeys.CreatePartitions> = async (ctx, version, body) => {
  const topics = body.topics;
  const answers = new Map<string, { errorCode: number; errorMessage: string | null }>();
  for (const name of new Set(topics.map((t) => t.name))) {
    if (!ctx.authorize(AclOperation.ALTER, ResourceType.TOPIC, name)) answers.set(name, { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null });
  }
  const allowed = topics.filter((t) => !answers.has(t.name));
  let r: ControllerReply | Failure | null = null;
  let throttleTimeMs = 0;
  if (allowed.length > 0) {
    const msg: ControllerMsg = {
      type: 'CreatePartitions',
      topics: allowed.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments === null ? null : t.assignments.map((a) => a.brokerIds) })),
      validateOnly: body.validateOnly,
    };
    const quota = ctx.mutationQuota(version >= STRICT_SINCE.createPartitions);
    if (quota) msg.mutationQuota = quota;
    r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, msg, Math.max(ctx.config.requestTimeoutMs, body.timeoutMs));
    if (!isFailure(r) && r.type === 'CreatePartitionsResponse') {
      throttleTimeMs = r.throttleTimeMs ?? 0;
      for (const t of r.topics) if (!answers.has(t.name)) answers.set(t.name, t);
    }
  }
  const seen = new Set<string>();
  const results = [];
  for (const t of topics) {
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    const a = answers.get(t.name) ?? { errorCode: r !== null && isFailure(r) ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: r !== null && isFailure(r) ? r.message : 'no answer for this topic' };
    results.push({ name: t.name, errorCode: a.errorCode, errorMessage: a.errorCode === ErrorCode.NONE ? null : a.errorMessage });
  }
  return { throttleTimeMs, results };
};
