/**
 * DescribeUserScramCredentials (api key 50) and AlterUserScramCredentials (51), v0 (KIP-554):
 * kafka-configs.sh --entity-type users --add-config 'SCRAM-SHA-256=[password=...]', the Java
 * admin's describeUserScramCredentials / alterUserScramCredentials. Credentials live in the
 * controller's metadata; both requests go to the controller. As Kafka: describing needs DESCRIBE
 * on the cluster, altering ALTER (else CLUSTER_AUTHORIZATION_FAILED, for every user named).
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiHandler } from './context.js';

const CLUSTER_DENIED = 'Cluster authorization failed.';

export const describeUserScramCredentials: ApiHandler<typeof ApiKeys.DescribeUserScramCredentials> = async (ctx, _version, body) => {
  const fail = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, errorCode, errorMessage, results: [] });
  if (!ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME)) return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, CLUSTER_DENIED);
  const users = body.users === null ? null : body.users.map((u) => u.name);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'DescribeUserScramCredentials', users }, ctx.config.requestTimeoutMs);
  if (r.type !== 'DescribeUserScramCredentialsResponse') {
    const e = unansweredError(r);
    return fail(e.errorCode, e.errorMessage);
  }
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    results: r.results.map((u) => ({ user: u.user, errorCode: u.errorCode, errorMessage: u.errorMessage, credentialInfos: u.credentials.map((c) => ({ mechanism: c.mechanism, iterations: c.iterations })) })),
  };
};

export const alterUserScramCredentials: ApiHandler<typeof ApiKeys.AlterUserScramCredentials> = async (ctx, _version, body) => {
  const users = [...new Set([...body.deletions.map((d) => d.name), ...body.upsertions.map((u) => u.name)])];
  const each = (errorCode: number, errorMessage: string | null) => ({ throttleTimeMs: 0, results: users.map((user) => ({ user, errorCode, errorMessage })) });
  if (!ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME)) return each(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, CLUSTER_DENIED);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(
    ctx.controller,
    {
      type: 'AlterUserScramCredentials',
      deletions: body.deletions.map((d) => ({ user: d.name, mechanism: d.mechanism })),
      upsertions: body.upsertions.map((u) => ({ user: u.name, mechanism: u.mechanism, iterations: u.iterations, salt: u.salt.toString('base64'), saltedPassword: u.saltedPassword.toString('base64') })),
    },
    ctx.config.requestTimeoutMs,
  );
  if (r.type !== 'AlterUserScramCredentialsResponse') {
    const e = unansweredError(r);
    return each(e.errorCode, e.errorMessage);
  }
  return { throttleTimeMs: 0, results: r.results.map((x) => ({ user: x.user, errorCode: x.errorCode, errorMessage: x.errorMessage })) };
};
