/**
 * DescribeClientQuotas (api key 48) and AlterClientQuotas (49), v0-v1: kafka-configs.sh
 * --entity-type users / clients, the Java admin's describeClientQuotas / alterClientQuotas.
 * Quotas live in the controller's metadata; Alter goes to the controller, Describe is answered
 * from this broker's metadata. As Kafka: describing needs DESCRIBE_CONFIGS on the cluster,
 * altering ALTER_CONFIGS (else CLUSTER_AUTHORIZATION_FAILED). samsa enforces producer_byte_rate
 * and consumer_byte_rate; the other quota keys and ip entities are refused per entry.
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { entityToWire, filterMatches, filterProblem, type QuotaFilterComponent } from '../../security/client-quotas.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

export const describeClientQuotas: ApiHandler<typeof ApiKeys.DescribeClientQuotas> = async (ctx, _version, body) => {
  const fail = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, errorCode, errorMessage, entries: null });
  if (!ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME)) return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
  const components: QuotaFilterComponent[] = body.components.map((c) => ({ entityType: c.entityType, matchType: c.matchType, match: c.match }));
  const problem = filterProblem(components);
  if (problem) return fail(ErrorCode.INVALID_REQUEST, problem);
  const md = await fetchClusterMetadata(ctx, []);
  if (!md) return fail(ErrorCode.BROKER_NOT_AVAILABLE, 'no metadata yet');
  const entries = (md.clientQuotas ?? [])
    .filter((q) => filterMatches(components, body.strict, q.entity))
    .map((q) => ({ entity: entityToWire(q.entity), values: Object.entries(q.quotas).map(([key, value]) => ({ key, value })) }));
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, entries };
};

export const alterClientQuotas: ApiHandler<typeof ApiKeys.AlterClientQuotas> = async (ctx, _version, body) => {
  const each = (errorCode: number, errorMessage: string | null) => ({ throttleTimeMs: 0, entries: body.entries.map((e) => ({ errorCode, errorMessage, entity: e.entity })) });
  if (!ctx.authorize(AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME)) return each(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
  const entries = body.entries.map((e) => ({ entity: e.entity.map((p) => ({ entityType: p.entityType, entityName: p.entityName })), ops: e.ops.map((o) => ({ key: o.key, value: o.value, remove: o.remove })) }));
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'AlterClientQuotas', entries, validateOnly: body.validateOnly }, ctx.config.requestTimeoutMs);
  if (isFailure(r) || r.type !== 'AlterClientQuotasResponse') {
    const e = unansweredError(r);
    return each(e.errorCode, e.errorMessage);
  }
  return { throttleTimeMs: 0, entries: r.entries };
};
