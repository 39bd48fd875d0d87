/**
 * AlterConfigs (api key 33, v0-v2: a resource's whole set of overrides) and
 * IncrementalAlterConfigs (api key 44, v0-v1: SET, DELETE, APPEND, SUBTRACT per key) for topics,
 * applied by the controller (validated as at CreateTopics) and taken by every replica of the topic
 * through the metadata. Broker configs are static here (the topology sets them): asking to change
 * one is INVALID_REQUEST. With an authorizer, as Kafka, a topic's change needs ALTER_CONFIGS on the
 * topic (else TOPIC_AUTHORIZATION_FAILED) and a broker's ALTER_CONFIGS on the cluster (else
 * CLUSTER_AUTHORIZATION_FAILED, before the answer that broker configs are static); refused changes
 * never reach the controller.
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiContext, type ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

const TOPIC = 2;
const BROKER = 4;
const Op = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
/** Topic configs whose value is a comma-separated list (APPEND / SUBTRACT apply to them). */
const LIST_KEYS = new Set(['cleanup.policy']);

type Change = { name: string; set: Record<string, string>; delete: string[] };
type Answer = { errorCode: number; errorMessage: string | null; resourceType: number; resourceName: string };

async function apply(
  ctx: ApiContext,
  resources: readonly { resourceType: number; resourceName: string }[],
  changes: (Change | Answer)[],
  validateOnly: boolean,
): Promise<{ throttleTimeMs: number; responses: Answer[] }> {
  const wanted = changes.filter((c): c is Change => !('errorCode' in c));
  const codes = new Map<string, { errorCode: number; errorMessage: string | null }>();
  if (wanted.length > 0) {
    const r = await ctx.ask<ControllerMsg, ControllerReply>(
      ctx.controller,
      { type: 'AlterTopicConfigs', topics: wanted.map((c) => ({ name: c.name, set: c.set, delete: c.delete })), validateOnly },
      ctx.config.requestTimeoutMs,
    );
    if (!isFailure(r) && r.type === 'AlterTopicConfigsResponse') for (const t of r.topics) codes.set(t.name, t);
    else for (const c of wanted) codes.set(c.name, unansweredError(r));
  }
  return {
    throttleTimeMs: 0,
    responses: changes.map((c, i) => {
      if ('errorCode' in c) return c;
      const a = codes.get(c.name) ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no answer for this topic' };
      return { errorCode: a.errorCode, errorMessage: a.errorCode === ErrorCode.NONE ? null : a.errorMessage, resourceType: resources[i]!.resourceType, resourceName: resources[i]!.resourceName };
    }),
  };
}

/** The answer for a resource the client may not alter or that is not a topic, or null to go ahead. */
function refusal(ctx: ApiContext, r: { resourceType: number; resourceName: string }): Answer | null {
  const deny = (errorCode: number): Answer => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName });
  if (r.resourceType === TOPIC) return ctx.authorize(AclOperation.ALTER_CONFIGS, ResourceType.TOPIC, r.resourceName) ? null : deny(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  if (r.resourceType === BROKER && !ctx.authorize(AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME)) return deny(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const why = r.resourceType === BROKER ? 'broker configs are static here: they come from the topology' : `resource type ${r.resourceType} cannot be altered (topics: 2)`;
  return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: why, resourceType: r.resourceType, resourceName: r.resourceName };
}

export const alterConfigs: ApiHandler<typeof ApiKeys.AlterConfigs> = async (ctx, _version, body) => {
  const refused = body.resources.map((r) => refusal(ctx, r));
  const names = body.resources.filter((_, i) => refused[i] === null).map((r) => r.resourceName);
  const md = names.length > 0 ? await fetchClusterMetadata(ctx, names) : null;
  const changes = body.resources.map((r, i): Change | Answer => {
    const other = refused[i];
    if (other) return other;
    const set: Record<string, string> = {};
    for (const c of r.configs) if (c.value !== null) set[c.name] = c.value;
    // AlterConfigs replaces the whole set: overrides it does not name go back to their defaults
    const current = md?.topics.find((t) => t.name === r.resourceName)?.config ?? {};
    const del = Object.keys(current).filter((k) => !(k in set));
    for (const c of r.configs) if (c.value === null) del.push(c.name);
    return { name: r.resourceName, set, delete: del };
  });
  return apply(ctx, body.resources, changes, body.validateOnly);
};

export const incrementalAlterConfigs: ApiHandler<typeof ApiKeys.IncrementalAlterConfigs> = async (ctx, _version, body) => {
  const refused = body.resources.map((r) => refusal(ctx, r));
  const names = body.resources.filter((_, i) => refused[i] === null).map((r) => r.resourceName);
  const md = names.length > 0 ? await fetchClusterMetadata(ctx, names) : null;
  const changes = body.resources.map((r, i): Change | Answer => {
    const other = refused[i];
    if (other) return other;
    const current = md?.topics.find((t) => t.name === r.resourceName)?.config ?? {};
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
          if (!LIST_KEYS.has(c.name)) return bad(`${c.name} is not a list config: APPEND and SUBTRACT apply to ${[...LIST_KEYS].join(', ')}`);
          const now = String(set[c.name] ?? current[c.name] ?? 'delete').split(',').filter(Boolean);
          const items = (c.value ?? '').split(',').filter(Boolean);
          const next = c.configOperation === Op.APPEND ? [...now, ...items.filter((x) => !now.includes(x))] : now.filter((x) => !items.includes(x));
          set[c.name] = next.join(',');
          break;
        }
        default:
          return bad(`unknown config operation ${c.configOperation} for ${c.name}`);
      }
    }
    return { name: r.resourceName, set, delete: del };
  });
  return apply(ctx, body.resources, changes, body.validateOnly);
};
