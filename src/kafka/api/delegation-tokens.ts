/**
 * CreateDelegationToken (api key 38, v0-3), RenewDelegationToken (39, v0-2),
 * ExpireDelegationToken (40, v0-2) and DescribeDelegationToken (41, v0-3), KIP-48: what
 * kafka-delegation-tokens.sh and the Java admin's createDelegationToken / renewDelegationToken /
 * expireDelegationToken / describeDelegationToken send. Tokens live in the controller's metadata
 * (actors/controller/delegation-tokens.ts); the broker checks who may ask, as Kafka's KafkaApis:
 *  - only a connection authenticated by SASL or a client certificate, and not by a delegation
 *    token, may use these APIs (else DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
 *  - creating a token for another owner (v3) needs CREATE_TOKENS on that owner's USER resource
 *    (else DELEGATION_TOKEN_AUTHORIZATION_FAILED); renewers must be of type User
 *    (INVALID_PRINCIPAL_TYPE);
 *  - renewing and expiring are for the token's owner and renewers (the controller checks);
 *  - describing lists the tokens asked for (owners null: all; empty: none) that the client owns,
 *    asked for or renews, or may see by DESCRIBE on the DELEGATION_TOKEN or DESCRIBE_TOKENS on
 *    the owner's USER resource.
 * Refusals decided here carry Kafka's error timestamps (-1); the controller's carry 0, as
 * Kafka's controller answers them.
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ERROR_TIMESTAMP, USER_TYPE, principalName, principalType, tokenVisible } from '../../../actors/controller/delegation-tokens.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ANONYMOUS, AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiContext, type ApiHandler } from './context.js';

const EMPTY = Buffer.alloc(0);

/** Kafka's allowTokenRequests: not token-authenticated, not PLAINTEXT, not one-way TLS. */
export function allowTokenRequests(ctx: Pick<ApiContext, 'tokenAuthenticated' | 'sasl' | 'principal'>): boolean {
  if (ctx.tokenAuthenticated) return false;
  return ctx.sasl === true || ctx.principal !== ANONYMOUS;
}

export const createDelegationToken: ApiHandler<typeof ApiKeys.CreateDelegationToken> = async (ctx, _version, body) => {
  const requester = ctx.principal;
  const owner = body.ownerPrincipalName ? `${String(body.ownerPrincipalType)}:${body.ownerPrincipalName}` : requester;
  const renewers = body.renewers.map((r) => `${r.principalType}:${r.principalName}`);
  const answer = (errorCode: number, t?: { issueTimestamp: number; expiryTimestamp: number; maxTimestamp: number; tokenId: string; hmac: Buffer }) => ({
    errorCode,
    principalType: principalType(owner),
    principalName: principalName(owner),
    tokenRequesterPrincipalType: principalType(requester),
    tokenRequesterPrincipalName: principalName(requester),
    issueTimestampMs: t?.issueTimestamp ?? ERROR_TIMESTAMP,
    expiryTimestampMs: t?.expiryTimestamp ?? ERROR_TIMESTAMP,
    maxTimestampMs: t?.maxTimestamp ?? ERROR_TIMESTAMP,
    tokenId: t?.tokenId ?? '',
    hmac: t?.hmac ?? EMPTY,
    throttleTimeMs: 0,
  });
  if (!allowTokenRequests(ctx)) return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
  if (owner !== requester && !ctx.authorize(AclOperation.CREATE_TOKENS, ResourceType.USER, owner)) return answer(ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED);
  if (renewers.some((r) => principalType(r) !== USER_TYPE)) return answer(ErrorCode.INVALID_PRINCIPAL_TYPE);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'CreateDelegationToken', owner, requester, renewers, maxLifetimeMs: body.maxLifetimeMs }, ctx.config.requestTimeoutMs);
  if (r.type !== 'CreateDelegationTokenResponse') return answer(unansweredError(r).errorCode);
  if (r.errorCode !== ErrorCode.NONE || !r.token || !r.hmac) return answer(r.errorCode, { issueTimestamp: 0, expiryTimestamp: 0, maxTimestamp: 0, tokenId: '', hmac: EMPTY });
  return answer(ErrorCode.NONE, { ...r.token, hmac: Buffer.from(r.hmac, 'base64') });
};

async function changeExpiry(ctx: ApiContext, msg: Extract<ControllerMsg, { type: 'RenewDelegationToken' | 'ExpireDelegationToken' }>) {
  const answer = (errorCode: number, expiryTimestampMs: number) => ({ errorCode, expiryTimestampMs, throttleTimeMs: 0 });
  if (!allowTokenRequests(ctx)) return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, ERROR_TIMESTAMP);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, msg, ctx.config.requestTimeoutMs);
  if (r.type !== 'DelegationTokenExpiryResponse') return answer(unansweredError(r).errorCode, ERROR_TIMESTAMP);
  return answer(r.errorCode, r.expiryTimestamp);
}

export const renewDelegationToken: ApiHandler<typeof ApiKeys.RenewDelegationToken> = async (ctx, _version, body) =>
  changeExpiry(ctx, { type: 'RenewDelegationToken', principal: ctx.principal, hmac: Buffer.from(body.hmac).toString('base64'), renewPeriodMs: body.renewPeriodMs });

export const expireDelegationToken: ApiHandler<typeof ApiKeys.ExpireDelegationToken> = async (ctx, _version, body) =>
  changeExpiry(ctx, { type: 'ExpireDelegationToken', principal: ctx.principal, hmac: Buffer.from(body.hmac).toString('base64'), expiryTimePeriodMs: body.expiryTimePeriodMs });

export const describeDelegationToken: ApiHandler<typeof ApiKeys.DescribeDelegationToken> = async (ctx, _version, body) => {
  const answer = (errorCode: number, tokens: ReturnType<typeof described>[] = []) => ({ errorCode, tokens, throttleTimeMs: 0 });
  if (!allowTokenRequests(ctx)) return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'DescribeDelegationTokens' }, ctx.config.requestTimeoutMs);
  if (r.type !== 'DescribeDelegationTokensResponse') return answer(unansweredError(r).errorCode);
  if (r.errorCode !== ErrorCode.NONE) return answer(r.errorCode);
  if (body.owners !== null && body.owners.length === 0) return answer(ErrorCode.NONE);
  const owners = body.owners === null ? null : body.owners.map((o) => `${o.principalType}:${o.principalName}`);
  const visible = r.tokens.filter((t) =>
    tokenVisible(
      ctx.principal,
      owners,
      t,
      (tokenId) => ctx.authorize(AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN, tokenId, false),
      (owner) => ctx.authorize(AclOperation.DESCRIBE_TOKENS, ResourceType.USER, owner, false),
    ),
  );
  return answer(ErrorCode.NONE, visible.map(described));
};

function described(t: Extract<ControllerReply, { type: 'DescribeDelegationTokensResponse' }>['tokens'][number]) {
  return {
    principalType: principalType(t.owner),
    principalName: principalName(t.owner),
    tokenRequesterPrincipalType: principalType(t.requester),
    tokenRequesterPrincipalName: principalName(t.requester),
    issueTimestamp: t.issueTimestamp,
    expiryTimestamp: t.expiryTimestamp,
    maxTimestamp: t.maxTimestamp,
    tokenId: t.tokenId,
    hmac: Buffer.from(t.hmac, 'base64'),
    renewers: t.renewers.map((p) => ({ principalType: principalType(p), principalName: principalName(p) })),
  };
}
