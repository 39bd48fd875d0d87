/**
 * SCRAM (RFC 5802, with SHA-256 and SHA-512 as RFC 7677 and Kafka's KIP-84 use them), server side:
 * credentials derived from a password (salt, iterations, StoredKey, ServerKey; the password itself
 * is not kept), and the two-round exchange:
 *   client-first  "n,,n=<user>,r=<client nonce>"          -> server-first "r=<nonce>,s=<salt>,i=<n>"
 *   client-final  "c=biws,r=<nonce>,p=<client proof>"     -> server-final "v=<server signature>"
 * The client proves it knows the password without sending it; the server signature proves the
 * server holds the credentials. As Kafka does, the client-final nonce only has to end with the
 * server's (librdkafka repeats its own nonce in front of it). Channel binding is not offered (a client asking for it with "p="
 * is refused). Extensions ("key=value" after the nonce in the client-first message) are ignored,
 * as Kafka ignores those it does not know, except Kafka's tokenauth=true (KIP-48): the user name is
 * then a delegation token's id, its credential the token's, and the authorization id its owner.
 */
import crypto from 'node:crypto';

export type ScramHash = 'SHA-256' | 'SHA-512';

export interface ScramCredential {
  readonly salt: Buffer;
  readonly iterations: number;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

/** Kafka's default (and RFC 7677's minimum) iteration count. */
export const SCRAM_ITERATIONS = 4096;

const ALGO: Record<ScramHash, { digest: 'sha256' | 'sha512'; bytes: number }> = {
  'SHA-256': { digest: 'sha256', bytes: 32 },
  'SHA-512': { digest: 'sha512', bytes: 64 },
};

function hmac(hash: ScramHash, key: Buffer, data: string | Buffer): Buffer {
  return crypto.createHmac(ALGO[hash].digest, key).update(data).digest();
}

/** SCRAM's SaltedPassword: PBKDF2 of the password (what a client sends to AlterUserScramCredentials). */
export function saltedPassword(hash: ScramHash, password: string, salt: Buffer, iterations: number): Buffer {
  return crypto.pbkdf2Sync(Buffer.from(password.normalize('NFKC'), 'utf8'), salt, iterations, ALGO[hash].bytes, ALGO[hash].digest);
}

/** The credential a server keeps for `password` (a random salt unless one is given). */
export function scramCredential(hash: ScramHash, password: string, salt: Buffer = crypto.randomBytes(16), iterations = SCRAM_ITERATIONS): ScramCredential {
  return scramCredentialFromSalted(hash, salt, saltedPassword(hash, password, salt, iterations), iterations);
}

/** The credential a server keeps, from the salted password (the password itself is never sent). */
export function scramCredentialFromSalted(hash: ScramHash, salt: Buffer, salted: Buffer, iterations: number): ScramCredential {
  const clientKey = hmac(hash, salted, 'Client Key');
  return {
    salt,
    iterations,
    storedKey: crypto.createHash(ALGO[hash].digest).update(clientKey).digest(),
    serverKey: hmac(hash, salted, 'Server Key'),
  };
}

/**
 * A SCRAM step's outcome: the bytes to send back, or why the exchange failed. `user` is the
 * authorization id: the user name, or the owner's name for a token (`token` set).
 */
export type ScramStep = { ok: true; response: string; done: boolean; user: string; token: ScramToken | null } | { ok: false; reason: string };

/** A delegation token as a SCRAM exchange authenticates it. */
export interface ScramToken {
  readonly tokenId: string;
  /** The owner's name (its principal is User:<owner>). */
  readonly owner: string;
  readonly expiryTimestamp: number;
}

/** Finds a delegation token's credential by its id (null: unknown or not usable). */
export type ScramTokenLookup = (tokenId: string) => { credential: ScramCredential; token: ScramToken } | null;

/** Decodes a SCRAM saslname ("=2C" is ',', "=3D" is '='); null when it is malformed. */
function saslName(raw: string): string | null {
  if (/=(?!2C|3D)/.test(raw)) return null;
  return raw.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

/** "k=v" attributes of a SCRAM message, in order. */
function attributes(message: string): [string, string][] | null {
  const out: [string, string][] = [];
  for (const part of message.split(',')) {
    const m = /^([a-zA-Z])=(.*)$/s.exec(part);
    if (!m) return null;
    out.push([m[1]!, m[2]!]);
  }
  return out;
}

/**
 * One SCRAM exchange on the server. `lookup` finds a user's credential (null: unknown user, which
 * fails like a wrong password). `serverNonce` may be fixed for tests.
 */
export class ScramServer {
  private state: 'first' | 'final' | 'done' | 'failed' = 'first';
  private user = '';
  private credential: ScramCredential | null = null;
  private nonce = '';
  private clientFirstBare = '';
  private serverFirst = '';
  private gs2Header = '';
  private token: ScramToken | null = null;

  constructor(
    private readonly hash: ScramHash,
    private readonly lookup: (user: string) => ScramCredential | null,
    private readonly serverNonce: () => string = () => crypto.randomBytes(18).toString('base64'),
    private readonly tokenLookup: ScramTokenLookup = () => null,
  ) {}

  step(message: string): ScramStep {
    if (this.state === 'first') return this.first(message);
    if (this.state === 'final') return this.final(message);
    return this.fail(`no more messages are expected (the exchange is ${this.state})`);
  }

  private fail(reason: string): ScramStep {
    this.state = 'failed';
    return { ok: false, reason };
  }

  private first(message: string): ScramStep {
    // gs2-header: "n," (no channel binding) or "y," (client could, server does not), then an
    // optional "a=authzid", then ","
    const m = /^([ny]|p=[^,]*),(a=[^,]*)?,(.*)$/s.exec(message);
    if (!m) return this.fail('malformed client-first message');
    if (m[1]!.startsWith('p=')) return this.fail('channel binding is not supported');
    this.gs2Header = `${m[1]},${m[2] ?? ''},`;
    this.clientFirstBare = m[3]!;
    const parts = this.clientFirstBare.split(',');
    const attrs = attributes(parts.slice(0, 2).join(','));
    if (attrs?.[0]?.[0] === 'm') return this.fail('mandatory extensions are not supported');
    if (!attrs || attrs.length < 2 || attrs[0]![0] !== 'n' || attrs[1]![0] !== 'r') return this.fail('malformed client-first message');
    const extensions = new Map<string, string>();
    for (const ext of parts.slice(2)) {
      const e = /^(\w+)=(.*)$/s.exec(ext);
      if (!e) return this.fail('malformed client-first message');
      extensions.set(e[1]!, e[2]!);
    }
    const user = saslName(attrs[0]![1]);
    if (user === null || user === '') return this.fail('malformed user name');
    const authzid = m[2] ? saslName(m[2].slice(2)) : '';
    if (authzid && authzid !== user) return this.fail('an authorization id different from the user name is not allowed');
    const clientNonce = attrs[1]![1];
    if (clientNonce === '' || clientNonce.includes(',')) return this.fail('malformed client nonce');
    this.user = user;
    // Kafka's ScramExtensions.tokenAuthenticated: Boolean.parseBoolean of tokenauth
    if ((extensions.get('tokenauth') ?? '').toLowerCase() === 'true') {
      const found = this.tokenLookup(user);
      if (!found) return this.fail(`Token Authentication failed: Invalid tokenId : ${user}`);
      this.token = found.token;
      this.credential = found.credential;
    } else {
      this.credential = this.lookup(user);
    }
    this.nonce = clientNonce + this.serverNonce();
    const c = this.credential;
    // an unknown user gets a made-up salt: the failure comes at the proof, as for a wrong password
    const salt = c ? c.salt : crypto.createHash('sha256').update(`samsa-unknown-user:${user}`).digest().subarray(0, 16);
    this.serverFirst = `r=${this.nonce},s=${salt.toString('base64')},i=${c ? c.iterations : SCRAM_ITERATIONS}`;
    this.state = 'final';
    return { ok: true, response: this.serverFirst, done: false, user: this.token ? this.token.owner : user, token: this.token };
  }

  private final(message: string): ScramStep {
    const attrs = attributes(message);
    if (!attrs || attrs.length < 3) return this.fail('malformed client-final message');
    const [c, r] = [attrs[0]!, attrs[1]!];
    const p = attrs[attrs.length - 1]!;
    if (c[0] !== 'c' || r[0] !== 'r' || p[0] !== 'p') return this.fail('malformed client-final message');
    if (Buffer.from(c[1], 'base64').toString('utf8') !== this.gs2Header) return this.fail('channel binding data does not match');
    // ends with, as Kafka checks it: librdkafka sends its own nonce again in front of the server's
    if (!r[1].endsWith(this.nonce)) return this.fail('nonce mismatch');
    const cred = this.credential;
    if (!cred) return this.fail('invalid credentials');
    const withoutProof = message.slice(0, message.lastIndexOf(',p='));
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const proof = Buffer.from(p[1], 'base64');
    const clientSignature = hmac(this.hash, cred.storedKey, authMessage);
    if (proof.length !== clientSignature.length) return this.fail('invalid credentials');
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    const stored = crypto.createHash(ALGO[this.hash].digest).update(clientKey).digest();
    if (!crypto.timingSafeEqual(stored, cred.storedKey)) return this.fail('invalid credentials');
    this.state = 'done';
    return { ok: true, response: `v=${hmac(this.hash, cred.serverKey, authMessage).toString('base64')}`, done: true, user: this.token ? this.token.owner : this.user, token: this.token };
  }
}
