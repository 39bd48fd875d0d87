/**
 * What the handlers ask of the authorizer: the names of a request the client may not act on, and
 * Kafka's "authorized operations" bit fields (KIP-430) that Metadata and DescribeGroups answer
 * when asked. A bit field holds, of the operations a resource type supports, those the client's
 * principal may perform (every one without an authorizer, as a Kafka broker without one). Bits are
 * Kafka's AclOperation codes.
 */
import { CLUSTER_NAME, ResourceType, SUPPORTED_OPERATIONS } from '../../security/acl.js';
import type { ApiContext } from './context.js';

/** Kafka's value for "not requested". */
export const OPERATIONS_NOT_REQUESTED = -2147483648;

const TOPIC_SUPPORTED = SUPPORTED_OPERATIONS.get(ResourceType.TOPIC)!;
const GROUP_SUPPORTED = SUPPORTED_OPERATIONS.get(ResourceType.GROUP)!;
const CLUSTER_SUPPORTED = SUPPORTED_OPERATIONS.get(ResourceType.CLUSTER)!;

function bitField(ops: readonly number[]): number {
  return ops.reduce((bits, op) => bits | (1 << op), 0);
}

export const TOPIC_OPERATIONS = bitField(TOPIC_SUPPORTED);
export const GROUP_OPERATIONS = bitField(GROUP_SUPPORTED);
export const CLUSTER_OPERATIONS = bitField(CLUSTER_SUPPORTED);

function authorizedBits(ctx: ApiContext, supported: readonly number[], all: number, resourceType: number, name: string): number {
  if (!ctx.authorizerEnabled) return all;
  let bits = 0;
  for (const op of supported) if (ctx.authorize(op, resourceType, name, false)) bits |= 1 << op;
  return bits;
}

/** The operations the client may perform on the topic. */
export function topicAuthorizedOperations(ctx: ApiContext, topic: string): number {
  return authorizedBits(ctx, TOPIC_SUPPORTED, TOPIC_OPERATIONS, ResourceType.TOPIC, topic);
}

/** The operations the client may perform on the group. */
export function groupAuthorizedOperations(ctx: ApiContext, groupId: string): number {
  return authorizedBits(ctx, GROUP_SUPPORTED, GROUP_OPERATIONS, ResourceType.GROUP, groupId);
}

/** The operations the client may perform on the cluster. */
export function clusterAuthorizedOperations(ctx: ApiContext): number {
  return authorizedBits(ctx, CLUSTER_SUPPORTED, CLUSTER_OPERATIONS, ResourceType.CLUSTER, CLUSTER_NAME);
}

/**
 * The names among the items' that the client may not perform `operation` on (each name asked
 * once, a denial logged unless `logIfDenied` is false), or null when it may on all of them —
 * always without an authorizer, at no cost then.
 */
export function deniedNames<T>(ctx: ApiContext, operation: number, resourceType: number, items: Iterable<T>, nameOf: (item: T) => string, logIfDenied = true): Set<string> | null {
  if (!ctx.authorizerEnabled) return null;
  const asked = new Set<string>();
  let denied: Set<string> | null = null;
  for (const item of items) {
    const name = nameOf(item);
    if (asked.has(name)) continue;
    asked.add(name);
    if (!ctx.authorize(operation, resourceType, name, logIfDenied)) (denied ??= new Set()).add(name);
  }
  return denied;
}
