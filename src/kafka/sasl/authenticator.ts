/**
 * SASL authentication of one Kafka connection (Kafka's SASL_PLAINTEXT / SASL_SSL listeners), as
 * a small state machine the connection drives with SaslHandshake and SaslAuthenticate requests:
 *
 *   AwaitingHandshake --SaslHandshake(enabled mechanism)--> Authenticating
 *   AwaitingHandshake --SaslHandshake(other mechanism)--> AwaitingHandshake (UNSUPPORTED_SASL_MECHANISM)
 *   Authenticating --SaslAuthenticate(last step ok)--> Authenticated
 *   Authenticating --SaslAuthenticate(SCRAM first step ok)--> Authenticating
 *   Authenticating --SaslAuthenticate(OAUTHBEARER token refused)--> Authenticating (answered {"status":"invalid_token"}; the client's SOH then fails it)
 *   Authenticating --SaslAuthenticate(bad credentials)--> Failed (SASL_AUTHENTICATION_FAILED)
 *   Authenticated --SaslHandshake(the same mechanism)--> Authenticating (re-authentication, KIP-368)
 *   Authenticated --SaslHandshake(another mechanism)--> Failed (ILLEGAL_SASL_STATE)
 *   Authenticating (re-authenticating) --SaslAuthenticate(another user)--> Failed (SASL_AUTHENTICATION_FAILED)
 *   any other request in any state but Authenticated --> Failed (ILLEGAL_SASL_STATE)
 *
 * Mechanisms: PLAIN (RFC 4616: "[authzid] NUL user NUL password", the authzid empty or the user),
 * SCRAM-SHA-256 / SCRAM-SHA-512 (./scram.ts) and OAUTHBEARER (./oauthbearer.ts: a JWT checked
 * against the listener's keys; the principal is its subject, the session ends with the token). Users and passwords come from the listener's
 * configuration, as Kafka's JAAS `user_<name>="<password>"`; SCRAM credentials are derived from
 * them once, when the listener starts. SCRAM credentials kept in the cluster metadata (KIP-554,
 * AlterUserScramCredentials) come on top, replaced whole when they change (`setDynamicScram`),
 * and win over a configured user's for the same mechanism; PLAIN takes configured users only,
 * as Kafka's PLAIN takes its JAAS users. What a user may do is up to the ACLs.
 *
 * Delegation tokens (KIP-48): a SCRAM client-first message with the extension tokenauth=true
 * names a token id as its user; the exchange then proves the token's HMAC (base64, the password)
 * against the token's SCRAM credentials from the cluster metadata (`setDelegationTokens`, replaced
 * whole), and the connection is its owner's, marked token-authenticated. A token past its expiry
 * or max timestamp is refused here (Kafka's brokers keep taking it until their sweep removes it).
 */
import crypto from 'node:crypto';
import { ErrorCode } from '../../protocol/errors.js';
import { ScramServer, scramCredential, type ScramCredential, type ScramHash, type ScramToken } from './scram.js';
import { scramHashOf, type ScramCredentialEntry } from '../../../actors/controller/scram-credentials.js';
import type { TokenAuthEntry } from '../../../actors/controller/delegation-tokens.js';
import { OAuthBearerServer, type OAuthBearerSettings } from './oauthbearer.js';

/** Every mechanism a listener can offer. */
export const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];
/** What a listener offers when its config names no mechanisms: those of its users. */
export const DEFAULT_SASL_MECHANISMS: readonly SaslMechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** A listener's SASL settings: the mechanisms it offers and its users' credentials. */
export interface SaslSettings {
  readonly mechanisms: readonly SaslMechanism[];
  readonly users: ReadonlyMap<string, SaslUser>;
  /** OAUTHBEARER's token validation (null: the listener does not offer it). */
  readonly oauth: OAuthBearerSettings | null;
  /** SCRAM credentials from the cluster metadata: user -> hash -> credential (replaced in place). */
  readonly dynamicScram: Map<string, Partial<Record<ScramHash, ScramCredential>>>;
  /** Delegation tokens from the cluster metadata, by token id (replaced in place). */
  readonly tokens: Map<string, SaslToken>;
}

interface SaslToken {
  readonly token: ScramToken;
  readonly maxTimestamp: number;
  readonly scram: Partial<Record<ScramHash, ScramCredential>>;
}

/** The cluster's delegation tokens as the listener authenticates them (their SCRAM credentials, never HMACs). */
export function setDelegationTokens(settings: SaslSettings, tokens: readonly TokenAuthEntry[]): void {
  settings.tokens.clear();
  for (const t of tokens) {
    const scram: Partial<Record<ScramHash, ScramCredential>> = {};
    for (const c of t.credentials) {
      const hash = scramHashOf(c.mechanism);
      if (hash) scram[hash] = { salt: Buffer.from(c.salt, 'base64'), iterations: c.iterations, storedKey: Buffer.from(c.storedKey, 'base64'), serverKey: Buffer.from(c.serverKey, 'base64') };
    }
    // the owner is a principal ('User:alice'); its name is the connection's user
    const owner = t.owner.slice(t.owner.indexOf(':') + 1);
    settings.tokens.set(t.tokenId, { token: { tokenId: t.tokenId, owner, expiryTimestamp: t.expiryTimestamp }, maxTimestamp: t.maxTimestamp, scram });
  }
}

/** The cluster's SCRAM credentials (KIP-554 records) as the listener authenticates with them. */
export function setDynamicScram(settings: SaslSettings, credentials: readonly ScramCredentialEntry[]): void {
  settings.dynamicScram.clear();
  for (const c of credentials) {
    const hash = scramHashOf(c.mechanism);
    if (!hash) continue;
    const entry = settings.dynamicScram.get(c.user) ?? {};
    entry[hash] = { salt: Buffer.from(c.salt, 'base64'), iterations: c.iterations, storedKey: Buffer.from(c.storedKey, 'base64'), serverKey: Buffer.from(c.serverKey, 'base64') };
    settings.dynamicScram.set(c.user, entry);
  }
}

interface SaslUser {
  /** sha256 of the password, compared in constant time for PLAIN. */
  readonly passwordDigest: Buffer;
  readonly scram: Partial<Record<ScramHash, ScramCredential>>;
}

/** Settings from users and passwords: SCRAM credentials are derived here, once. */
export function saslSettings(mechanisms: readonly SaslMechanism[], users: Readonly<Record<string, string>>, oauth: OAuthBearerSettings | null = null): SaslSettings {
  if (mechanisms.includes('OAUTHBEARER') && oauth === null) throw new Error('OAUTHBEARER needs its token validation settings (oauthbearer: a jwks, or unsecured)');
  const map = new Map<string, SaslUser>();
  for (const [name, password] of Object.entries(users)) {
    const scram: Partial<Record<ScramHash, ScramCredential>> = {};
    if (mechanisms.includes('SCRAM-SHA-256')) scram['SHA-256'] = scramCredential('SHA-256', password);
    if (mechanisms.includes('SCRAM-SHA-512')) scram['SHA-512'] = scramCredential('SHA-512', password);
    map.set(name, { passwordDigest: crypto.createHash('sha256').update(password, 'utf8').digest(), scram });
  }
  return { mechanisms: [...mechanisms], users: map, oauth: mechanisms.includes('OAUTHBEARER') ? oauth : null, dynamicScram: new Map(), tokens: new Map() };
}

export type SaslState = 'AwaitingHandshake' | 'Authenticating' | 'Authenticated' | 'Failed';

export interface SaslAnswer {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Buffer;
}

const NONE = Buffer.alloc(0);

export class SaslAuthenticator {
  state: SaslState = 'AwaitingHandshake';
  /** The authenticated user (Kafka's principal name), once Authenticated. */
  user: string | null = null;
  /** The delegation token the connection authenticated with (its owner is `user`); null: none. */
  token: ScramToken | null = null;
  /**
   * When the credential the connection proved expires (epoch ms; null: never): a delegation
   * token's expiry, an OAuth token's exp. The session ends then (KIP-368).
   */
  credentialExpiresAt: number | null = null;
  /** Why the exchange failed (for the log; the client gets a generic message). */
  failure: string | null = null;
  private mechanism: SaslMechanism | null = null;
  private scram: ScramServer | null = null;
  private oauth: OAuthBearerServer | null = null;
  /** While re-authenticating: the user the connection was authenticated as (who it must stay). */
  private reauthOf: string | null = null;

  constructor(
    private readonly settings: SaslSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token's credential for `hash`, while it has not expired. */
  private tokenCredential(hash: ScramHash, tokenId: string): { credential: ScramCredential; token: ScramToken } | null {
    const t = this.settings.tokens.get(tokenId);
    const credential = t?.scram[hash];
    if (!t || !credential) return null;
    const now = this.now();
    if (t.token.expiryTimestamp < now || t.maxTimestamp < now) return null;
    return { credential, token: t.token };
  }

  /** True while a re-authentication (KIP-368) is under way. */
  get reauthenticating(): boolean {
    return this.reauthOf !== null;
  }

  /** SaslHandshake: picks the mechanism; answers the enabled ones either way. */
  handshake(mechanism: string): { errorCode: number; mechanisms: string[] } {
    const mechanisms = [...this.settings.mechanisms];
    if (this.state === 'Authenticated' && mechanism === this.mechanism) {
      // re-authentication (KIP-368): the same mechanism, and it must prove the same user
      this.reauthOf = this.user;
      this.state = 'AwaitingHandshake';
    } else if (this.state === 'Authenticated') {
      this.state = 'Failed';
      this.failure = `re-authentication with ${mechanism} where ${this.mechanism ?? '?'} was used`;
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    }
    if (this.state !== 'AwaitingHandshake') {
      this.state = 'Failed';
      this.failure = 'a second SaslHandshake';
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    }
    const m = this.settings.mechanisms.find((x) => x === mechanism);
    if (!m) return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    this.mechanism = m;
    if (m === 'OAUTHBEARER') this.oauth = new OAuthBearerServer(this.settings.oauth!, this.now);
    else if (m !== 'PLAIN') {
      const hash: ScramHash = m === 'SCRAM-SHA-256' ? 'SHA-256' : 'SHA-512';
      this.scram = new ScramServer(hash, (user) => this.settings.dynamicScram.get(user)?.[hash] ?? this.settings.users.get(user)?.scram[hash] ?? null, undefined, (tokenId) => this.tokenCredential(hash, tokenId));
    }
    this.state = 'Authenticating';
    return { errorCode: ErrorCode.NONE, mechanisms };
  }

  /** SaslAuthenticate: one step of the chosen mechanism. */
  authenticate(bytes: Uint8Array): SaslAnswer {
    if (this.state !== 'Authenticating' || !this.mechanism) {
      this.failure = `SaslAuthenticate in state ${this.state}`;
      this.state = 'Failed';
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: `SaslAuthenticate is not expected now (${this.state === 'Failed' ? 'after a failure' : 'send SaslHandshake first'})`, authBytes: NONE };
    }
    if (this.mechanism === 'PLAIN') return this.plain(Buffer.from(bytes));
    if (this.mechanism === 'OAUTHBEARER') return this.oauthBearer(Buffer.from(bytes));
    const step = this.scram!.step(Buffer.from(bytes).toString('utf8'));
    if (!step.ok) return this.failed(`Authentication failed during authentication due to invalid credentials with SASL mechanism ${this.mechanism}`, step.reason);
    if (step.done) {
      if (this.reauthOf !== null && step.user !== this.reauthOf) return this.failed('Cannot change principals during re-authentication', `re-authentication as ${step.user} where ${this.reauthOf} was authenticated`);
      this.authenticated(step.user, step.token);
    }
    return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: Buffer.from(step.response, 'utf8') };
  }

  private authenticated(user: string, token: ScramToken | null = null, expiresAt: number | null = token?.expiryTimestamp ?? null): void {
    this.state = 'Authenticated';
    this.user = user;
    this.token = token;
    this.credentialExpiresAt = expiresAt;
    this.reauthOf = null;
  }

  /** OAUTHBEARER: one message, or two when the token is refused (the error, then the client's SOH). */
  private oauthBearer(bytes: Buffer): SaslAnswer {
    const step = this.oauth!.step(bytes);
    if (step.kind === 'challenge') {
      this.failure = step.reason;
      return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: step.response };
    }
    if (step.kind === 'failed') return this.failed(step.errorMessage, this.failure ?? step.reason);
    if (this.reauthOf !== null && step.principal !== this.reauthOf) return this.failed('Cannot change principals during re-authentication', `re-authentication as ${step.principal} where ${this.reauthOf} was authenticated`);
    this.failure = null;
    this.authenticated(step.principal, null, step.expiresAt);
    return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: step.response };
  }

  private plain(bytes: Buffer): SaslAnswer {
    const parts = bytes.toString('utf8').split('\u0000');
    if (parts.length !== 3) return this.failed('Authentication failed: invalid SASL/PLAIN message', 'not [authzid] NUL user NUL password');
    const [authzid, user, password] = parts as [string, string, string];
    if (authzid !== '' && authzid !== user) return this.failed('Authentication failed: Client requested an authorization id that is different from username', 'authzid');
    const known = this.settings.users.get(user);
    const digest = crypto.createHash('sha256').update(password, 'utf8').digest();
    if (!known || !crypto.timingSafeEqual(digest, known.passwordDigest)) return this.failed('Authentication failed: Invalid username or password', 'invalid credentials');
    if (this.reauthOf !== null && user !== this.reauthOf) return this.failed('Cannot change principals during re-authentication', `re-authentication as ${user} where ${this.reauthOf} was authenticated`);
    this.authenticated(user);
    return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: NONE };
  }

  private failed(errorMessage: string, why: string): SaslAnswer {
    this.state = 'Failed';
    this.failure = why;
    return { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage, authBytes: NONE };
  }
}
