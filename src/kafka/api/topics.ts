/**
 * CreateTopics (api key 19, v0-v5), DeleteTopics (api key 20, v0-v5) and CreatePartitions (api
 * key 37, v0-v3, with explicit assignments and validateOnly), forwarded to the
 * controller actor (any broker accepts them: each reaches the controller). The controller
 * validates names, partition counts, replication factors, assignments and configs with Kafka's
 * rules and answers per topic.
 */
import type { ControllerMsg, ControllerReply, CreatableTopic } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';

interface CreatableTopicReq {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  assignments: { partitionIndex: number; brokerIds: number[] }[];
  configs: { name: string; value: string | null }[];
}

/** Kafka's ConfigSource.TOPIC_CONFIG. */
const TOPIC_CONFIG_SOURCE = 1;

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
  const answers = new Map<string, { errorCode: number; errorMessage: string | null; numPartitions: number; replicationFactor: number }>();
  const valid: CreatableTopic[] = [];
  for (const t of reqs) {
    if (counts.get(t.name)! > 1) {
      answers.set(t.name, { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `topic '${t.name}' appears more than once in the request`, numPartitions: -1, replicationFactor: -1 });
      continue;
    }
    const c = toCreatable(t);
    if (typeof c === 'string') answers.set(t.name, { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: c, numPartitions: -1, replicationFactor: -1 });
    else valid.push(c);
  }
  if (valid.length > 0) {
    const validateOnly = version >= 1 && body.validateOnly === true;
    const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'CreateTopics', topics: valid, validateOnly }, Math.max(ctx.config.requestTimeoutMs, body.timeoutMs as number));
    for (const t of valid) {
      if (isFailure(r) || r.type !== 'CreateTopicsResponse') {
        answers.set(t.name, { errorCode: isFailure(r) ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: isFailure(r) ? r.message : 'unexpected controller reply', numPartitions: -1, replicationFactor: -1 });
        continue;
      }
      const a = r.topics.find((x) => x.name === t.name);
      answers.set(t.name, a ? { errorCode: a.errorCode, errorMessage: a.errorMessage, numPartitions: a.numPartitions, replicationFactor: a.replicationFactor } : { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no answer for this topic', numPartitions: -1, replicationFactor: -1 });
    }
  }
  const seen = new Set<string>();
  const topics = [];
  for (const t of reqs) {
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    const a = answers.get(t.name)!;
    const ok = a.errorCode === ErrorCode.NONE;
    topics.push({
      name: t.name,
      errorCode: a.errorCode,
      errorMessage: ok ? null : a.errorMessage,
      numPartitions: ok ? a.numPartitions : -1,
      replicationFactor: ok ? a.replicationFactor : -1,
      configs: ok ? t.configs.filter((c) => c.value !== null).map((c) => ({ name: c.name, value: c.value, readOnly: false, configSource: TOPIC_CONFIG_SOURCE, isSensitive: false })) : null,
    });
  }
  return { throttleTimeMs: 0, topics };
};

export const deleteTopics: ApiHandler<typeof ApiKeys.DeleteTopics> = async (ctx, _version, body) => {
  const names = [...new Set(body.topicNames as string[])];
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'DeleteTopics', topics: names }, Math.max(ctx.config.requestTimeoutMs, body.timeoutMs as number));
  const answers = new Map<string, { errorCode: number; errorMessage: string | null }>();
  if (!isFailure(r) && r.type === 'DeleteTopicsResponse') for (const t of r.topics) answers.set(t.name, { errorCode: t.errorCode, errorMessage: t.errorMessage });
  return {
    throttleTimeMs: 0,
    responses: names.map((name) => {
      const a = answers.get(name) ?? { errorCode: isFailure(r) ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: isFailure(r) ? r.message : 'no answer for this topic' };
      return { name, errorCode: a.errorCode, errorMessage: a.errorCode === ErrorCode.NONE ? null : a.errorMessage };
    }),
  };
};

export const createPartitions: ApiHandler<typeof ApiKeys.CreatePartitions> = async (ctx, _version, body) => {
  const topics = body.topics;
  const r = await ctx.ask<ControllerMsg, ControllerReply>(
    ctx.controller,
    {
      type: 'CreatePartitions',
      topics: topics.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments === null ? null : t.assignments.map((a) => a.brokerIds) })),
      validateOnly: body.validateOnly,
    },
    Math.max(ctx.config.requestTimeoutMs, body.timeoutMs),
  );
  const answers = new Map<string, { errorCode: number; errorMessage: string | null }>();
  if (!isFailure(r) && r.type === 'CreatePartitionsResponse') for (const t of r.topics) if (!answers.has(t.name)) answers.set(t.name, t);
  const seen = new Set<string>();
  const results = [];
  for (const t of topics) {
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    const a = answers.get(t.name) ?? { errorCode: isFailure(r) ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: isFailure(r) ? r.message : 'no answer for this topic' };
    results.push({ name: t.name, errorCode: a.errorCode, errorMessage: a.errorCode === ErrorCode.NONE ? null : a.errorMessage });
  }
  return { throttleTimeMs: 0, results };
};
