/**
 * DescribeAcls (api key 29), CreateAcls (30) and DeleteAcls (31), v0-v3: kafka-acls.sh, the Java
 * admin's createAcls/describeAcls/deleteAcls, KafkaJS's admin. The bindings live in the
 * controller's metadata; every broker's Kafka listener authorizes with them once the metadata
 * reaches it. As Kafka: without an authorizer on this broker the answer is SECURITY_DISABLED;
 * creating and deleting need ALTER on the cluster, describing DESCRIBE (else
 * CLUSTER_AUTHORIZATION_FAILED). v0 carries LITERAL patterns only (the pattern fields default to
 * it).
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType, type AclBinding, type AclBindingFilter } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiContext, type ApiHandler } from './context.js';

const NO_AUTHORIZER = 'No Authorizer is configured on the broker (authorizer.class.name)';

/** The error every entry gets when the request cannot go ahead, or null when it can. */
function refusal(ctx: ApiContext, op: number): { errorCode: number; errorMessage: string } | null {
  if (!ctx.authorizerEnabled) return { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: NO_AUTHORIZER };
  if (!ctx.authorize(op, ResourceType.CLUSTER, CLUSTER_NAME)) return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };
  return null;
}

function toFilter(f: { resourceTypeFilter: number; resourceNameFilter: string | null; patternTypeFilter: number; principalFilter: string | null; hostFilter: string | null; operation: number; permissionType: number }): AclBindingFilter {
  return {
    resourceType: f.resourceTypeFilter,
    resourceName: f.resourceNameFilter,
    patternType: f.patternTypeFilter,
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: f.operation,
    permission: f.permissionType,
  };
}

export const describeAcls: ApiHandler<typeof ApiKeys.DescribeAcls> = async (ctx, _version, body) => {
  const refused = refusal(ctx, AclOperation.DESCRIBE);
  if (refused) return { throttleTimeMs: 0, ...refused, resources: [] };
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'DescribeAcls', filter: toFilter(body) }, ctx.config.requestTimeoutMs);
  if (isFailure(r) || r.type !== 'DescribeAclsResponse') return { throttleTimeMs: 0, ...unansweredError(r), resources: [] };
  // one entry per resource pattern, its entries under it (the bindings come sorted by resource)
  const resources: { resourceType: number; resourceName: string; patternType: number; acls: { principal: string; host: string; operation: number; permissionType: number }[] }[] = [];
  for (const b of r.acls) {
    let last = resources[resources.length - 1];
    if (!last || last.resourceType !== b.resourceType || last.resourceName !== b.resourceName || last.patternType !== b.patternType) {
      resources.push((last = { resourceType: b.resourceType, resourceName: b.resourceName, patternType: b.patternType, acls: [] }));
    }
    last.acls.push({ principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permission });
  }
  return { throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.errorMessage, resources };
};

export const createAcls: ApiHandler<typeof ApiKeys.CreateAcls> = async (ctx, _version, body) => {
  const refused = refusal(ctx, AclOperation.ALTER);
  if (refused) return { throttleTimeMs: 0, results: body.creations.map(() => refused) };
  const creations: AclBinding[] = body.creations.map((c) => ({
    resourceType: c.resourceType,
    resourceName: c.resourceName,
    patternType: c.resourcePatternType,
    principal: c.principal,
    host: c.host,
    operation: c.operation,
    permission: c.permissionType,
  }));
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'CreateAcls', creations }, ctx.config.requestTimeoutMs);
  if (isFailure(r) || r.type !== 'CreateAclsResponse') {
    const e = unansweredError(r);
    return { throttleTimeMs: 0, results: creations.map(() => e) };
  }
  return { throttleTimeMs: 0, results: r.results };
};

export const deleteAcls: ApiHandler<typeof ApiKeys.DeleteAcls> = async (ctx, _version, body) => {
  const refused = refusal(ctx, AclOperation.ALTER);
  if (refused) return { throttleTimeMs: 0, filterResults: body.filters.map(() => ({ ...refused, matchingAcls: [] })) };
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'DeleteAcls', filters: body.filters.map(toFilter) }, ctx.config.requestTimeoutMs);
  if (isFailure(r) || r.type !== 'DeleteAclsResponse') {
    const e = unansweredError(r);
    return { throttleTimeMs: 0, filterResults: body.filters.map(() => ({ ...e, matchingAcls: [] })) };
  }
  return {
    throttleTimeMs: 0,
    filterResults: r.filterResults.map((f) => ({
      errorCode: f.errorCode,
      errorMessage: f.errorMessage,
      matchingAcls: f.matchingAcls.map((b) => ({
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        resourceType: b.resourceType,
        resourceName: b.resourceName,
        patternType: b.patternType,
        principal: b.principal,
        host: b.host,
        operation: b.operation,
        permissionType: b.permission,
      })),
    })),
  };
};
