/**
 * Delegation tokens (KIP-48) kept in the cluster metadata, as Kafka's KRaft controller keeps them
 * (DelegationTokenControlManager): CreateDelegationToken, RenewDelegationToken,
 * ExpireDelegationToken, DescribeDelegationToken and the periodic removal of expired tokens.
 *
 * A token is its id (a random Kafka Uuid), its owner, the principal that asked for it, the
 * principals that may renew it, and three times: issued, expiry (renewable up to) and max (never
 * beyond). Its HMAC is HmacSHA512 of the id under delegation.token.secret.key; the HMAC is never
 * stored in the metadata (records carry the token's information only) and is derived again when
 * needed. Clients authenticate with SCRAM, the token id as user name and the base64 HMAC as
 * password; the controller gives the brokers the SCRAM credentials derived from that password
 * (`TokenAuthEntry`), never the HMAC. Without a secret key every request is
 * DELEGATION_TOKEN_AUTH_DISABLED.
 *
 * Rules (Kafka's): the lifetime asked is capped by delegation.token.max.lifetime.ms (0 or less:
 * that); the expiry is now + delegation.token.expiry.time.ms, capped by the max; renewers must be
 * of type User (INVALID_PRINCIPAL_TYPE); only the owner or a renewer may renew or expire
 * (DELEGATION_TOKEN_OWNER_MISMATCH); a token past its expiry or max cannot be renewed, nor
 * expired later (DELEGATION_TOKEN_EXPIRED); a negative expiry period removes the token at once;
 * an unknown HMAC is DELEGATION_TOKEN_NOT_FOUND.
 */
import crypto from 'node:crypto';
import { ErrorCode } from '../../src/protocol/errors.js';
import { newTopicId } from '../../src/protocol/topic-id.js';
import { SCRAM_ITERATIONS, scramCredential } from '../../src/kafka/sasl/scram.js';
import { ScramMechanism } from './scram-credentials.js';
import type { MetadataRecord, MetadataState } from './metadata-state.js';

/** A token as a record and in the metadata (principals as 'Type:name'). */
export interface DelegationTokenEntry {
  tokenId: string;
  owner: string;
  requester: string;
  renewers: string[];
  issueTimestamp: number;
  maxTimestamp: number;
  expiryTimestamp: number;
}

/** The delegation token settings of the controller (Kafka's names in controller-config.ts). */
export interface DelegationTokenConfig {
  /** delegation.token.secret.key; null: tokens are disabled. */
  readonly secretKey: string | null;
  readonly maxLifetimeMs: number;
  readonly expiryTimeMs: number;
}

/** What a broker's SASL listener needs to authenticate a token: never its HMAC. */
export interface TokenAuthEntry {
  tokenId: string;
  owner: string;
  expiryTimestamp: number;
  maxTimestamp: number;
  /** SCRAM credentials derived from the base64 HMAC, one per mechanism (byte fields base64). */
  credentials: { mechanism: number; salt: string; storedKey: string; serverKey: string; iterations: number }[];
}

export const USER_TYPE = 'User';

/** Kafka's DelegationTokenManager.ErrorTimestamp, in answers the broker refuses itself. */
export const ERROR_TIMESTAMP = -1;

/** Kafka's createHmac: HmacSHA512 of the token id, keyed by the secret's UTF-8 bytes. */
export function tokenHmac(secretKey: string, tokenId: string): Buffer {
  return crypto.createHmac('sha512', Buffer.from(secretKey, 'utf8')).update(tokenId, 'utf8').digest();
}

/** The principal's type ('User' for 'User:alice'). */
export function principalType(principal: string): string {
  const i = principal.indexOf(':');
  return i < 0 ? '' : principal.slice(0, i);
}

export function principalName(principal: string): string {
  return principal.slice(principal.indexOf(':') + 1);
}

/** Kafka's TokenInformation.ownerOrRenewer: the owner, the requester or a renewer. */
export function ownerOrRenewer(t: DelegationTokenEntry, principal: string): boolean {
  return t.owner === principal || t.requester === principal || t.renewers.includes(principal);
}

/** Kafka's allowedToRenew: the owner or a renewer (not the requester). */
function allowedToRenew(t: DelegationTokenEntry, principal: string): boolean {
  return t.owner === principal || t.renewers.includes(principal);
}

function isExpired(t: DelegationTokenEntry, now: number): boolean {
  return t.maxTimestamp < now || t.expiryTimestamp < now;
}

function sum(now: number, duration: number): number {
  return now + duration > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : now + duration;
}

/** The token whose HMAC is `hmac`, compared in constant time. */
export function tokenForHmac(state: MetadataState, secretKey: string, hmac: Buffer): DelegationTokenEntry | null {
  if (hmac.length !== 64) return null;
  for (const t of state.delegationTokens.values()) {
    if (crypto.timingSafeEqual(tokenHmac(secretKey, t.tokenId), hmac)) return t;
  }
  return null;
}

export interface CreateTokenRequest {
  owner: string;
  requester: string;
  renewers: string[];
  maxLifetimeMs: number;
}

export type CreateTokenOutcome =
  | { errorCode: typeof ErrorCode.NONE; token: DelegationTokenEntry; hmac: Buffer; record: MetadataRecord }
  | { errorCode: number; token?: undefined; hmac?: undefined; record?: undefined };

export function createToken(config: DelegationTokenConfig, now: number, req: CreateTokenRequest, newId: () => string = newTopicId): CreateTokenOutcome {
  if (config.secretKey === null) return { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED };
  const maxLifetime = req.maxLifetimeMs > 0 ? Math.min(config.maxLifetimeMs, req.maxLifetimeMs) : config.maxLifetimeMs;
  const maxTimestamp = sum(now, maxLifetime);
  const expiryTimestamp = Math.min(maxTimestamp, sum(now, config.expiryTimeMs));
  if (req.renewers.some((r) => principalType(r) !== USER_TYPE)) return { errorCode: ErrorCode.INVALID_PRINCIPAL_TYPE };
  const token: DelegationTokenEntry = { tokenId: newId(), owner: req.owner, requester: req.requester, renewers: [...req.renewers], issueTimestamp: now, maxTimestamp, expiryTimestamp };
  return { errorCode: ErrorCode.NONE, token, hmac: tokenHmac(config.secretKey, token.tokenId), record: { type: 'DelegationToken', token } };
}

export interface TokenChangeOutcome {
  errorCode: number;
  /** The token's new expiry (0 when refused by the controller, as Kafka's answer leaves it). */
  expiryTimestamp: number;
  records: MetadataRecord[];
  tokenId?: string;
}

function refused(errorCode: number): TokenChangeOutcome {
  return { errorCode, expiryTimestamp: 0, records: [] };
}

/** `principal` null: a trusted caller acting for the token's owner (samsa's admin client). */
export function renewToken(state: MetadataState, config: DelegationTokenConfig, now: number, principal: string | null, hmac: Buffer, renewPeriodMs: number): TokenChangeOutcome {
  if (config.secretKey === null) return refused(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
  const t = tokenForHmac(state, config.secretKey, hmac);
  if (!t) return refused(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
  if (isExpired(t, now)) return refused(ErrorCode.DELEGATION_TOKEN_EXPIRED);
  if (!allowedToRenew(t, principal ?? t.owner)) return refused(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
  const renewLifetime = renewPeriodMs > 0 ? Math.min(config.expiryTimeMs, renewPeriodMs) : config.expiryTimeMs;
  const expiryTimestamp = Math.min(t.maxTimestamp, sum(now, renewLifetime));
  return { errorCode: ErrorCode.NONE, expiryTimestamp, records: [{ type: 'DelegationToken', token: { ...t, renewers: [...t.renewers], expiryTimestamp } }], tokenId: t.tokenId };
}

export function expireToken(state: MetadataState, config: DelegationTokenConfig, now: number, principal: string | null, hmac: Buffer, expiryTimePeriodMs: number): TokenChangeOutcome {
  if (config.secretKey === null) return refused(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
  const t = tokenForHmac(state, config.secretKey, hmac);
  if (!t) return refused(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
  if (!allowedToRenew(t, principal ?? t.owner)) return refused(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
  if (expiryTimePeriodMs < 0) return { errorCode: ErrorCode.NONE, expiryTimestamp: now, records: [{ type: 'RemoveDelegationToken', tokenId: t.tokenId }], tokenId: t.tokenId };
  if (isExpired(t, now)) return refused(ErrorCode.DELEGATION_TOKEN_EXPIRED);
  const expiryTimestamp = Math.min(t.maxTimestamp, sum(now, expiryTimePeriodMs));
  return { errorCode: ErrorCode.NONE, expiryTimestamp, records: [{ type: 'DelegationToken', token: { ...t, renewers: [...t.renewers], expiryTimestamp } }], tokenId: t.tokenId };
}

/** Kafka's sweepExpiredDelegationTokens: a removal for each token past its expiry or max. */
export function expiredTokenRemovals(state: MetadataState, now: number): MetadataRecord[] {
  return [...state.delegationTokens.values()].filter((t) => isExpired(t, now)).map((t) => ({ type: 'RemoveDelegationToken', tokenId: t.tokenId }));
}

/** A described token: its information and its HMAC (base64). */
export type DescribedToken = DelegationTokenEntry & { hmac: string };

/** Every token with its HMAC, oldest first, for the broker to filter as Kafka's DescribeDelegationToken does. */
export function describeTokens(state: MetadataState, config: DelegationTokenConfig): { errorCode: number; tokens: DescribedToken[] } {
  if (config.secretKey === null) return { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, tokens: [] };
  const secret = config.secretKey;
  const tokens = [...state.delegationTokens.values()]
    .sort((a, b) => a.issueTimestamp - b.issueTimestamp || (a.tokenId < b.tokenId ? -1 : 1))
    .map((t) => ({ ...t, renewers: [...t.renewers], hmac: tokenHmac(secret, t.tokenId).toString('base64') }));
  return { errorCode: ErrorCode.NONE, tokens };
}

/**
 * Kafka's DelegationTokenManager.filterToken: a token the request asked for (no owners: every
 * token; else one whose owner, requester or a renewer is among them) that the requester owns,
 * asked for or may renew, or may describe (DESCRIBE on the token, or DESCRIBE_TOKENS on its owner).
 */
export function tokenVisible(
  requester: string,
  owners: readonly string[] | null,
  t: DelegationTokenEntry,
  mayDescribeToken: (tokenId: string) => boolean,
  mayDescribeOwnersTokens: (owner: string) => boolean,
): boolean {
  if (owners !== null && !owners.some((o) => ownerOrRenewer(t, o))) return false;
  if (ownerOrRenewer(t, requester)) return true;
  return mayDescribeToken(t.tokenId) || mayDescribeOwnersTokens(t.owner);
}

/**
 * SCRAM credentials of a token for the brokers, as Kafka's DelegationTokenCache derives them: the
 * password is the base64 HMAC, at the SCRAM minimum of 4096 iterations, for both mechanisms.
 */
export function tokenAuthEntry(secretKey: string, t: DelegationTokenEntry): TokenAuthEntry {
  const password = tokenHmac(secretKey, t.tokenId).toString('base64');
  const credentials = ([
    [ScramMechanism.SCRAM_SHA_256, 'SHA-256'],
    [ScramMechanism.SCRAM_SHA_512, 'SHA-512'],
  ] as const).map(([mechanism, hash]) => {
    const c = scramCredential(hash, password, crypto.randomBytes(16), SCRAM_ITERATIONS);
    return { mechanism, salt: c.salt.toString('base64'), storedKey: c.storedKey.toString('base64'), serverKey: c.serverKey.toString('base64'), iterations: c.iterations };
  });
  return { tokenId: t.tokenId, owner: t.owner, expiryTimestamp: t.expiryTimestamp, maxTimestamp: t.maxTimestamp, credentials };
}

/**
 * The brokers' token credentials for the current tokens, reusing `cache` (tokenId -> entry, the
 * controller's, volatile) so each token's credentials are derived once; the cache forgets removed
 * tokens. Empty without a secret key.
 */
export function tokenAuthEntries(state: MetadataState, secretKey: string | null, cache: Map<string, TokenAuthEntry>): TokenAuthEntry[] {
  if (secretKey === null) {
    cache.clear();
    return [];
  }
  for (const id of [...cache.keys()]) if (!state.delegationTokens.has(id)) cache.delete(id);
  const out: TokenAuthEntry[] = [];
  for (const t of state.delegationTokens.values()) {
    let e = cache.get(t.tokenId);
    if (!e) cache.set(t.tokenId, (e = tokenAuthEntry(secretKey, t)));
    out.push({ ...e, owner: t.owner, expiryTimestamp: t.expiryTimestamp, maxTimestamp: t.maxTimestamp });
  }
  return out;
}
