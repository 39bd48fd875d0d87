/**
 * SASL/OAUTHBEARER on the broker (Kafka's KIP-255, with KIP-768's JWT validation): the client
 * sends an OAuth 2 access token (a JWT) and the broker checks it, as Kafka's OAuthBearerSaslServer
 * with its OAuthBearerValidatorCallbackHandler:
 *
 * - The client's message is RFC 7628's: `n,[a=authzid],` SOH `auth=Bearer <token>` SOH
 *   (`key=value` SOH)* SOH. Extensions are accepted (Kafka's validator takes them all); an authzid
 *   must be the token's principal.
 * - The token is a JWS signed with a key of the configured JSON Web Key Set (Kafka's
 *   sasl.oauthbearer.jwks.endpoint.url: the set itself, a file, or an http(s) URL fetched again
 *   periodically and when a token names a key the set lacks, jwks-refresher.ts): the key named by the
 *   header's `kid`, or the set's only key of the right type without one. RS256/384/512,
 *   PS256/384/512, ES256/384/512 and EdDSA; `none` is refused. Its claims: `exp` and `iat`
 *   required, `exp` and `nbf` checked with the clock skew (sasl.oauthbearer.clock.skew.seconds,
 *   30), the audience and issuer when configured (sasl.oauthbearer.expected.audience / .issuer),
 *   the subject claim (sasl.oauthbearer.sub.claim.name, `sub`) non-blank: it is the principal
 *   name, `User:<sub>`. The scope claim (sasl.oauthbearer.scope.claim.name, `scope`) is read as
 *   Kafka reads it: a string is one scope, a list its scopes, no blanks nor duplicates.
 * - With `unsecured` (Kafka's default validator when no JWKS is configured, for development only)
 *   tokens are `alg: none` JWTs with `sub`, `exp` and `iat`, checked the same way but unsigned.
 * - A token that fails is answered with Kafka's JSON error `{"status":"invalid_token"}`; the
 *   client then sends a lone SOH and the authentication fails. A good one ends the exchange at
 *   once, and the connection's session lasts until the token expires (KIP-368).
 */
import crypto from 'node:crypto';

const SOH = '\u0001';

export interface OAuthBearerSettings {
  /**
   * The JSON Web Keys tokens may be signed with (empty with `unsecured`, or until a key set
   * fetched from a URL arrives); replaced whole when the set is fetched again.
   */
  keys: readonly crypto.JsonWebKey[];
  /** The key set's https URL (Kafka's sasl.oauthbearer.jwks.endpoint.url), fetched again every `jwksRefreshMs`. */
  readonly jwksUrl: string | null;
  readonly jwksRefreshMs: number;
  /** Called when a token names a key the set lacks (the set at the URL may have new keys). */
  onUnknownKey?: () => void;
  /** Accept unsigned (`alg: none`) tokens: Kafka's default validator, for development only. */
  readonly unsecured: boolean;
  /** A token's `aud` must name one of these (none configured: not checked). */
  readonly expectedAudience: readonly string[];
  readonly expectedIssuer: string | null;
  readonly subClaimName: string;
  readonly scopeClaimName: string;
  readonly clockSkewSeconds: number;
}

export interface OAuthBearerConfig {
  /**
   * A JSON Web Key Set ({ keys: [...] }): the set itself, the path of a JSON file, or an http(s)
   * URL the listener fetches it from (and again every `jwksRefreshMs`, and when a token names a
   * key it lacks), as Kafka's sasl.oauthbearer.jwks.endpoint.url.
   */
  jwks?: { keys: crypto.JsonWebKey[] } | string;
  /** Kafka's sasl.oauthbearer.jwks.endpoint.refresh.ms (default one hour). */
  jwksRefreshMs?: number;
  unsecured?: boolean;
  expectedAudience?: string[];
  expectedIssuer?: string;
  subClaimName?: string;
  scopeClaimName?: string;
  clockSkewSeconds?: number;
}

/** The listener's settings from its config; throws on a config that cannot work (at start, not per client). */
export function oauthBearerSettings(c: OAuthBearerConfig, readFile: (path: string) => string): OAuthBearerSettings {
  let keys: crypto.JsonWebKey[] = [];
  const jwksUrl = typeof c.jwks === 'string' && isJwksUrl(c.jwks) ? c.jwks : null;
  if (c.jwks !== undefined && jwksUrl === null) keys = parseKeySet(typeof c.jwks === 'string' ? JSON.parse(readFile(c.jwks)) : c.jwks);
  if (keys.length === 0 && jwksUrl === null && c.unsecured !== true) throw new Error('oauthbearer: give a jwks (the keys tokens are signed with), or unsecured: true for unsigned development tokens');
  return {
    keys,
    jwksUrl,
    jwksRefreshMs: c.jwksRefreshMs ?? 3_600_000,
    unsecured: c.unsecured === true,
    expectedAudience: [...(c.expectedAudience ?? [])],
    expectedIssuer: c.expectedIssuer ?? null,
    subClaimName: c.subClaimName ?? 'sub',
    scopeClaimName: c.scopeClaimName ?? 'scope',
    clockSkewSeconds: c.clockSkewSeconds ?? 30,
  };
}

/** Whether a `jwks` string is a URL to fetch (else a file path). */
export function isJwksUrl(jwks: string): boolean {
  return /^https?:\/\//i.test(jwks);
}

/** The keys of a JSON Web Key Set; throws when it is not one or a key is unusable. */
export function parseKeySet(set: unknown): crypto.JsonWebKey[] {
  const keys = (set as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new Error('oauthbearer.jwks: expected a JSON Web Key Set with at least one key ({ "keys": [...] })');
  for (const k of keys) crypto.createPublicKey({ key: k as crypto.JsonWebKey, format: 'jwk' });
  return keys as crypto.JsonWebKey[];
}

export interface ClientInitialResponse {
  authzid: string;
  token: string;
  extensions: Map<string, string>;
}

/** RFC 7628's client initial response, or why it is malformed. */
export function parseClientInitialResponse(message: string): ClientInitialResponse | string {
  const m = /^n,(?:a=([^,]*))?,\u0001(.*)\u0001$/s.exec(message);
  if (!m) return 'not an OAUTHBEARER client initial response';
  const pairs = m[2]!.split(SOH);
  if (pairs.at(-1) !== '') return 'its key/value pairs are not each ended by 0x01';
  const props = new Map<string, string>();
  for (const p of pairs.slice(0, -1)) {
    const e = /^([A-Za-z]+)=([\x21-\x7E \t\r\n]*)$/.exec(p);
    if (!e) return `malformed key/value pair`;
    props.set(e[1]!, e[2]!);
  }
  const auth = props.get('auth');
  if (auth === undefined) return 'no auth key';
  const a = /^(\w+) +([-_~+/.a-zA-Z0-9]+=*)$/.exec(auth);
  if (!a) return 'malformed auth value';
  if (a[1]!.toLowerCase() !== 'bearer') return `Invalid scheme in OAUTHBEARER client first message: ${a[1]}`;
  props.delete('auth');
  const authzid = (m[1] ?? '').replaceAll('=2C', ',').replaceAll('=3D', '=');
  return { authzid, token: a[2]!, extensions: props };
}

export interface ValidToken {
  principal: string;
  scopes: string[];
  /** When the token expires (epoch ms). */
  expiresAt: number;
}

const ALGORITHMS: Record<string, { hash: string | null; kty: string; pss?: boolean; ec?: boolean }> = {
  RS256: { hash: 'sha256', kty: 'RSA' },
  RS384: { hash: 'sha384', kty: 'RSA' },
  RS512: { hash: 'sha512', kty: 'RSA' },
  PS256: { hash: 'sha256', kty: 'RSA', pss: true },
  PS384: { hash: 'sha384', kty: 'RSA', pss: true },
  PS512: { hash: 'sha512', kty: 'RSA', pss: true },
  ES256: { hash: 'sha256', kty: 'EC', ec: true },
  ES384: { hash: 'sha384', kty: 'EC', ec: true },
  ES512: { hash: 'sha512', kty: 'EC', ec: true },
  EdDSA: { hash: null, kty: 'OKP' },
};

function jsonPart(part: string, what: string): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : `the ${what} is not a JSON object`;
  } catch {
    return `the ${what} is not base64url JSON`;
  }
}

function verifySignature(header: Record<string, unknown>, signingInput: string, signature: Buffer, s: OAuthBearerSettings): string | null {
  const alg = typeof header.alg === 'string' ? header.alg : '';
  const a = ALGORITHMS[alg];
  if (!a) return `unsupported or missing alg "${alg}"`;
  const kid = typeof header.kid === 'string' ? header.kid : undefined;
  const candidates = s.keys.filter((k) => k.kty === a.kty && (k as { use?: string }).use !== 'enc' && (kid === undefined || (k as { kid?: string }).kid === kid));
  if (candidates.length !== 1) {
    if (kid !== undefined) s.onUnknownKey?.();
    return kid === undefined ? `no single ${a.kty} key to verify with (the token names no kid)` : `no key with kid "${kid}"`;
  }
  const key = crypto.createPublicKey({ key: candidates[0]!, format: 'jwk' });
  const opts: crypto.VerifyKeyObjectInput | crypto.VerifyPublicKeyInput = a.pss
    ? { key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST }
    : a.ec
      ? { key, dsaEncoding: 'ieee-p1363' }
      : { key };
  try {
    return crypto.verify(a.hash, Buffer.from(signingInput), opts, signature) ? null : 'the signature does not verify';
  } catch (e) {
    return `the signature cannot be checked: ${(e as Error).message}`;
  }
}

function numericClaim(claims: Record<string, unknown>, name: string, required: boolean): number | null | string {
  const v = claims[name];
  if (v === undefined || v === null) return required ? `${name} value must be non-null` : null;
  if (typeof v !== 'number' || !Number.isFinite(v)) return `${name} value must be a number`;
  if (v < 0) return `${name} value must be non-negative; value given was "${v}"`;
  return v;
}

/** Checks a token as Kafka's validators do; `now` in epoch ms. */
export function validateToken(token: string, s: OAuthBearerSettings, now: number): ValidToken | string {
  const parts = token.split('.');
  if (parts.length !== 3) return 'not a JWS compact serialization (three parts)';
  const header = jsonPart(parts[0]!, 'header');
  if (typeof header === 'string') return header;
  const claims = jsonPart(parts[1]!, 'payload');
  if (typeof claims === 'string') return claims;
  if (header.alg === 'none') {
    if (!s.unsecured) return 'unsigned tokens (alg none) are not accepted';
    if (parts[2] !== '') return 'an unsigned token carries a signature';
  } else {
    if (s.keys.length === 0) {
      s.onUnknownKey?.();
      return s.jwksUrl !== null ? `no keys yet from ${s.jwksUrl}` : 'no keys to verify signed tokens with';
    }
    const problem = verifySignature(header, `${parts[0]}.${parts[1]}`, Buffer.from(parts[2]!, 'base64url'), s);
    if (problem) return problem;
  }
  const skewMs = s.clockSkewSeconds * 1000;
  const exp = numericClaim(claims, 'exp', true);
  if (typeof exp === 'string') return exp;
  const iat = numericClaim(claims, 'iat', true);
  if (typeof iat === 'string') return iat;
  const nbf = numericClaim(claims, 'nbf', false);
  if (typeof nbf === 'string') return nbf;
  if (exp! * 1000 + skewMs <= now) return `the token expired at ${new Date(exp! * 1000).toISOString()}`;
  if (nbf !== null && nbf * 1000 - skewMs > now) return `the token is not valid before ${new Date(nbf * 1000).toISOString()}`;
  if (s.expectedAudience.length > 0) {
    const aud = claims.aud;
    const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((x): x is string => typeof x === 'string') : [];
    if (!auds.some((x) => s.expectedAudience.includes(x))) return `the audience (aud) is none of ${s.expectedAudience.join(', ')}`;
  }
  if (s.expectedIssuer !== null && claims.iss !== s.expectedIssuer) return `the issuer (iss) is not ${s.expectedIssuer}`;
  const sub = claims[s.subClaimName];
  if (typeof sub !== 'string' || sub.trim() === '') return `${s.subClaimName} value must be a non-blank string`;
  const scopeRaw = claims[s.scopeClaimName];
  const scopeList = typeof scopeRaw === 'string' ? [scopeRaw] : Array.isArray(scopeRaw) ? scopeRaw : [];
  const scopes: string[] = [];
  for (const x of scopeList) {
    if (typeof x !== 'string' || x.trim() === '') return `${s.scopeClaimName} values must be non-blank strings`;
    if (scopes.includes(x.trim())) return `${s.scopeClaimName} value must not contain duplicates - ${x.trim()} already present`;
    scopes.push(x.trim());
  }
  return { principal: sub.trim(), scopes, expiresAt: exp! * 1000 };
}

/** One OAUTHBEARER exchange, server side (Kafka's OAuthBearerSaslServer). */
export type OAuthStep =
  | { kind: 'authenticated'; principal: string; expiresAt: number; response: Buffer }
  | { kind: 'challenge'; response: Buffer; reason: string }
  | { kind: 'failed'; errorMessage: string; reason: string };

export class OAuthBearerServer {
  private rejected: string | null = null;

  constructor(
    private readonly settings: OAuthBearerSettings,
    private readonly now: () => number,
  ) {}

  step(bytes: Buffer): OAuthStep {
    // the client's answer to our error: a lone SOH, then the exchange fails
    if (this.rejected !== null && bytes.length === 1 && bytes[0] === 1) return { kind: 'failed', errorMessage: this.rejected, reason: 'the client acknowledged the token error' };
    this.rejected = null;
    const parsed = parseClientInitialResponse(bytes.toString('utf8'));
    if (typeof parsed === 'string') return { kind: 'failed', errorMessage: `Authentication failed: ${parsed}`, reason: parsed };
    const valid = validateToken(parsed.token, this.settings, this.now());
    if (typeof valid === 'string') {
      this.rejected = '{"status":"invalid_token"}';
      return { kind: 'challenge', response: Buffer.from(this.rejected, 'utf8'), reason: `invalid token: ${valid}` };
    }
    if (parsed.authzid !== '' && parsed.authzid !== valid.principal) {
      const m = `Authentication failed: Client requested an authorization id (${parsed.authzid}) that is different from the token's principal name (${valid.principal})`;
      return { kind: 'failed', errorMessage: m, reason: 'authzid differs from the token principal' };
    }
    return { kind: 'authenticated', principal: valid.principal, expiresAt: valid.expiresAt, response: Buffer.alloc(0) };
  }
}
