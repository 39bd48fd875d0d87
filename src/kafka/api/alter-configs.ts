/**
 * AlterConfigs (api key 33, v0-v2: a resource's whole set of overrides) and
 * IncrementalAlterConfigs (api key 44, v0-v1: SET, DELETE, APPEND, SUBTRACT per key), applied by
 * the controller:
 *  - topics (validated as at CreateTopics), taken by every replica of the topic through the
 *    metadata;
 *  - brokers (Kafka's dynamic broker configs, KIP-226): resource name '' for the cluster-wide
 *    default, or a broker id; only the keys that can change at run time (the topic-config
 *    defaults: log.*, message.max.bytes, min.insync.replicas, compression.type and its levels); each broker runs
 *    with its own over the defaults over its topology config;
 *  - groups (resource type 32, Kafka's group configs): consumer.session.timeout.ms and
 *    consumer.heartbeat.interval.ms, and a share group's share.* (session timeout, heartbeat
 *    interval, record lock duration, auto offset reset, isolation level, delivery count limit,
 *    record locks), checked by the controller (actors/group-coordinator/group-configs.ts: within
 *    the group.consumer.* / group.share.* bounds, the heartbeat below the session timeout),
 *    taken by the group's coordinator and the share partition managers;
 *  - client metrics subscriptions (resource type 16, KIP-714): metrics, interval.ms and match,
 *    checked by the controller as Kafka's ClientMetricsConfigs; a subscription with no key left
 *    is gone; APPEND and SUBTRACT apply to metrics and match;
 *  - broker loggers (resource type 8, KIP-412; IncrementalAlterConfigs only, as Kafka): this
 *    broker's id names them, SET gives a logger a level and DELETE takes its own away; made by
 *    this broker (broker-loggers.ts), not the controller, and gone when it stops.
 * With an authorizer, as Kafka, a topic's change needs ALTER_CONFIGS on the topic (else
 * TOPIC_AUTHORIZATION_FAILED) and a broker's or its loggers' ALTER_CONFIGS on the cluster (else
 * CLUSTER_AUTHORIZATION_FAILED), a group's ALTER_CONFIGS on the group (else
 * GROUP_AUTHORIZATION_FAILED); refused changes never reach the controller.
 */
import type { BrokerLoggerChange, BrokerLoggersAltered, BrokerMsg } from '../../../actors/broker/messages.js';
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ClusterMetadata } from '../../protocol/cluster.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiContext, type ApiHandler } from './context.js';
import { brokerLoggerProblem } from './describe-configs.js';
import { fetchClusterMetadata } from './metadata.js';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const CLIENT_METRICS = 16;
const GROUP = 32;
const Op = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
/** Configs whose value is a comma-separated list (APPEND / SUBTRACT apply to them). */
const LIST_KEYS = new Set(['cleanup.policy', 'log.cleanup.policy']);
/** A client metrics subscription's list keys. */
const CLIENT_METRICS_LIST_KEYS = new Set(['metrics', 'match']);

type Change = { kind: 'topic' | 'broker' | 'group' | 'clientMetrics'; name: string; set: Record<string, string>; delete: string[] };
type Answer = { errorCode: number; errorMessage: string | null; resourceType: number; resourceName: string };

type ResourceAnswer = { name: string; errorCode: number; errorMessage: string | null };

/** Each kind's controller request, and its answers by resource name (null: not the answer expected). */
const TO_CONTROLLER: Readonly<Record<Change['kind'], { request(changes: Change[], validateOnly: boolean): ControllerMsg; answers(r: ControllerReply): ResourceAnswer[] | null }>> = {
  topic: {
    request: (cs, validateOnly) => ({ type: 'AlterTopicConfigs', topics: cs.map((c) => ({ name: c.name, set: c.set, delete: c.delete })), validateOnly }),
    answers: (r) => (r.type === 'AlterTopicConfigsResponse' ? r.topics : null),
  },
  broker: {
    request: (cs, validateOnly) => ({ type: 'AlterBrokerConfigs', resources: cs.map((c) => ({ resource: c.name, set: c.set, delete: c.delete })), validateOnly }),
    answers: (r) => (r.type === 'AlterBrokerConfigsResponse' ? r.resources.map((b) => ({ name: b.resource, errorCode: b.errorCode, errorMessage: b.errorMessage })) : null),
  },
  group: {
    request: (cs, validateOnly) => ({ type: 'AlterGroupConfigs', groups: cs.map((c) => ({ group: c.name, set: c.set, delete: c.delete })), validateOnly }),
    answers: (r) => (r.type === 'AlterGroupConfigsResponse' ? r.groups.map((g) => ({ name: g.group, errorCode: g.errorCode, errorMessage: g.errorMessage })) : null),
  },
  clientMetrics: {
    request: (cs, validateOnly) => ({ type: 'AlterClientMetrics', subscriptions: cs.map((c) => ({ name: c.name, set: c.set, delete: c.delete })), validateOnly }),
    answers: (r) => (r.type === 'AlterClientMetricsResponse' ? r.subscriptions : null),
  },
};
const KINDS = Object.keys(TO_CONTROLLER) as Change['kind'][];

async function apply(
  ctx: ApiContext,
  resources: readonly { resourceType: number; resourceName: string }[],
  changes: (Change | Answer)[],
  validateOnly: boolean,
): Promise<{ throttleTimeMs: number; responses: Answer[] }> {
  const wanted = changes.filter((c): c is Change => !('errorCode' in c));
  const codes = new Map<string, { errorCode: number; errorMessage: string | null }>();
  const key = (kind: Change['kind'], name: string) => `${kind}:${name}`;
  await Promise.all(
    KINDS.map(async (kind) => {
      const mine = wanted.filter((c) => c.kind === kind);
      if (mine.length === 0) return;
      const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, TO_CONTROLLER[kind].request(mine, validateOnly), ctx.config.requestTimeoutMs);
      const answers = isFailure(r) ? null : TO_CONTROLLER[kind].answers(r);
      if (answers) for (const x of answers) codes.set(key(kind, x.name), x);
      else for (const c of mine) codes.set(key(kind, c.name), unansweredError(r));
    }),
  );
  return {
    throttleTimeMs: 0,
    responses: changes.map((c, i) => {
      if ('errorCode' in c) return c;
      const a = codes.get(key(c.kind, c.name)) ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no answer for this resource' };
      return { errorCode: a.errorCode, errorMessage: a.errorCode === ErrorCode.NONE ? null : a.errorMessage, resourceType: resources[i]!.resourceType, resourceName: resources[i]!.resourceName };
    }),
  };
}

/** A resource's current overrides: a topic's, a broker resource's dynamic configs, or a group's. */
function currentConfig(md: ClusterMetadata | null, r: { resourceType: number; resourceName: string }): Record<string, string | number> {
  if (r.resourceType === BROKER) return md?.brokerConfigs?.[r.resourceName] ?? {};
  if (r.resourceType === GROUP) return md?.groupConfigs?.[r.resourceName] ?? {};
  if (r.resourceType === CLIENT_METRICS) return md?.clientMetrics?.[r.resourceName] ?? {};
  return md?.topics.find((t) => t.name === r.resourceName)?.config ?? {};
}

/** The metadata with the current overrides of the resources to change (null when none is). */
async function metadataFor(ctx: ApiContext, resources: readonly { resourceType: number; resourceName: string }[], refused: readonly (Answer | null)[]): Promise<ClusterMetadata | null> {
  const open = resources.filter((r, i) => refused[i] === null && r.resourceType !== BROKER_LOGGER);
  if (open.length === 0) return null;
  return fetchClusterMetadata(ctx, open.filter((r) => r.resourceType === TOPIC).map((r) => r.resourceName));
}

/**
 * The answer for a resource the client may not alter or that cannot be altered, or null to go
 * ahead. Broker loggers only through IncrementalAlterConfigs (`incremental`), as in Kafka.
 */
function refusal(ctx: ApiContext, r: { resourceType: number; resourceName: string }, incremental: boolean): Answer | null {
  const deny = (errorCode: number): Answer => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName });
  if (r.resourceType === BROKER_LOGGER) {
    if (!incremental) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER', resourceType: r.resourceType, resourceName: r.resourceName };
    return ctx.authorize(AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME) ? null : deny(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  }
  if (r.resourceType === TOPIC) return ctx.authorize(AclOperation.ALTER_CONFIGS, ResourceType.TOPIC, r.resourceName) ? null : deny(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  if (r.resourceType === BROKER || r.resourceType === CLIENT_METRICS) return ctx.authorize(AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME) ? null : deny(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  if (r.resourceType === GROUP) return ctx.authorize(AclOperation.ALTER_CONFIGS, ResourceType.GROUP, r.resourceName) ? null : deny(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `resource type ${r.resourceType} cannot be altered (topics: 2, brokers: 4, client metrics: 16, groups: 32${incremental ? ', broker loggers: 8' : ''})`, resourceType: r.resourceType, resourceName: r.resourceName };
}

/**
 * A BROKER_LOGGER resource's changes, made by this broker (its node's loggers, never the
 * controller's business): SET a level or DELETE one; APPEND and SUBTRACT are refused, as in Kafka.
 */
async function alterLoggers(ctx: ApiContext, r: { resourceType: number; resourceName: string; configs: { name: string; configOperation: number; value: string | null }[] }, validateOnly: boolean): Promise<Answer> {
  const answer = (errorCode: number, errorMessage: string | null): Answer => ({ errorCode, errorMessage, resourceType: r.resourceType, resourceName: r.resourceName });
  const named = brokerLoggerProblem(ctx, r.resourceName);
  if (named) return answer(ErrorCode.INVALID_REQUEST, named);
  const changes: BrokerLoggerChange[] = [];
  for (const c of r.configs) {
    if (c.configOperation === Op.SET) changes.push({ name: c.name, op: 'set', level: c.value });
    else if (c.configOperation === Op.DELETE) changes.push({ name: c.name, op: 'delete' });
    else if (c.configOperation === Op.APPEND || c.configOperation === Op.SUBTRACT) {
      return answer(ErrorCode.INVALID_REQUEST, `${c.configOperation === Op.APPEND ? 'APPEND' : 'SUBTRACT'} operation is not allowed for the BROKER_LOGGER resource`);
    } else return answer(ErrorCode.INVALID_REQUEST, `Unknown operation type ${c.configOperation} is not allowed for the BROKER_LOGGER resource`);
  }
  const reply = await ctx.ask<BrokerMsg, BrokerLoggersAltered>(ctx.broker, { type: 'AlterLoggers', changes, validateOnly }, ctx.config.requestTimeoutMs);
  if (isFailure(reply)) {
    const { errorCode, errorMessage } = unansweredError(reply);
    return answer(errorCode, errorMessage);
  }
  return answer(reply.errorCode, reply.errorCode === ErrorCode.NONE ? null : reply.errorMessage);
}

const kindOf = (resourceType: number): Change['kind'] => (resourceType === BROKER ? 'broker' : resourceType === GROUP ? 'group' : resourceType === CLIENT_METRICS ? 'clientMetrics' : 'topic');

export const alterConfigs: ApiHandler<typeof ApiKeys.AlterConfigs> = async (ctx, _version, body) => {
  const refused = body.resources.map((r) => refusal(ctx, r, false));
  const md = await metadataFor(ctx, body.resources, refused);
  const changes = body.resources.map((r, i): Change | Answer => {
    const other = refused[i];
    if (other) return other;
    const set: Record<string, string> = {};
    for (const c of r.configs) if (c.value !== null) set[c.name] = c.value;
    // AlterConfigs replaces the whole set: overrides it does not name go back to their defaults
    const current = currentConfig(md, r);
    const del = Object.keys(current).filter((k) => !(k in set));
    for (const c of r.configs) if (c.value === null) del.push(c.name);
    return { kind: kindOf(r.resourceType), name: r.resourceName, set, delete: del };
  });
  return apply(ctx, body.resources, changes, body.validateOnly);
};

export const incrementalAlterConfigs: ApiHandler<typeof ApiKeys.IncrementalAlterConfigs> = async (ctx, _version, body) => {
  const refused = body.resources.map((r) => refusal(ctx, r, true));
  const [md, loggers] = await Promise.all([
    metadataFor(ctx, body.resources, refused),
    Promise.all(body.resources.map((r, i) => (r.resourceType === BROKER_LOGGER && refused[i] === null ? alterLoggers(ctx, r, body.validateOnly) : null))),
  ]);
  const changes = body.resources.map((r, i): Change | Answer => {
    const other = refused[i] ?? loggers[i];
    if (other) return other;
    const current = currentConfig(md, r);
    const set: Record<string, string> = {};
    const del: string[] = [];
    const bad = (message: string): Answer => ({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage: message, resourceType: r.resourceType, resourceName: r.resourceName });
    for (const c of r.configs) {
      switch (c.configOperation) {
        case Op.SET:
          if (c.value === null) return bad(`${c.name}: SET needs a value`);
          set[c.name] = c.value;
          break;
        case Op.DELETE:
          del.push(c.name);
          break;
        case Op.APPEND:
        case Op.SUBTRACT: {
          const lists = r.resourceType === CLIENT_METRICS ? CLIENT_METRICS_LIST_KEYS : LIST_KEYS;
          if (!lists.has(c.name)) return bad(`${c.name} is not a list config: APPEND and SUBTRACT apply to ${[...lists].join(', ')}`);
          const fallback = r.resourceType === CLIENT_METRICS ? '' : 'delete';
          const now = String(set[c.name] ?? current[c.name] ?? (r.resourceType === BROKER ? ctx.configInput[c.name] : undefined) ?? fallback).split(',').filter(Boolean);
          const items = (c.value ?? '').split(',').filter(Boolean);
          const next = c.configOperation === Op.APPEND ? [...now, ...items.filter((x) => !now.includes(x))] : now.filter((x) => !items.includes(x));
          set[c.name] = next.join(',');
          break;
        }
        default:
          return bad(`unknown config operation ${c.configOperation} for ${c.name}`);
      }
    }
    return { kind: kindOf(r.resourceType), name: r.resourceName, set, delete: del };
  });
  return apply(ctx, body.resources, changes, body.validateOnly);
};
