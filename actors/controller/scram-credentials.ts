/**
 * SCRAM credentials kept in the cluster metadata (KIP-554): AlterUserScramCredentials and
 * DescribeUserScramCredentials as Kafka's controller answers them. A client sends a user's salt
 * and salted password (never the password); the controller keeps the stored key and server key
 * derived from it (UserScramCredential records) and the brokers' SASL listeners accept the user
 * from then on. Rules (Kafka's ScramControlManager): a user name is not empty; the mechanism is
 * SCRAM-SHA-256 (1) or SCRAM-SHA-512 (2); iterations are within [4096, 16384]; a user appears at
 * most once per (user, mechanism) in one request (DUPLICATE_RESOURCE); deleting a credential
 * that does not exist is RESOURCE_NOT_FOUND. A user's changes go in whole or not at all.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { scramCredentialFromSalted, type ScramHash } from '../../src/kafka/sasl/scram.js';
import type { MetadataRecord, MetadataState } from './metadata-state.js';

/** Kafka's ScramMechanism codes. */
export const ScramMechanism = Object.freeze({ SCRAM_SHA_256: 1, SCRAM_SHA_512: 2 } as const);
export const SCRAM_MIN_ITERATIONS = 4096;
export const SCRAM_MAX_ITERATIONS = 16384;

export function scramMechanismName(code: number): string {
  return code === ScramMechanism.SCRAM_SHA_256 ? 'SCRAM-SHA-256' : code === ScramMechanism.SCRAM_SHA_512 ? 'SCRAM-SHA-512' : `UNKNOWN(${code})`;
}

export function scramHashOf(code: number): ScramHash | null {
  return code === ScramMechanism.SCRAM_SHA_256 ? 'SHA-256' : code === ScramMechanism.SCRAM_SHA_512 ? 'SHA-512' : null;
}

/** A stored credential (as a record and in the metadata; byte fields base64). */
export interface ScramCredentialEntry {
  user: string;
  mechanism: number;
  salt: string;
  storedKey: string;
  serverKey: string;
  iterations: number;
}

export function scramKey(user: string, mechanism: number): string {
  return `${mechanism}\u0000${user}`;
}

export interface ScramDeletion {
  user: string;
  mechanism: number;
}

export interface ScramUpsertion {
  user: string;
  mechanism: number;
  iterations: number;
  /** base64 */
  salt: string;
  /** base64 */
  saltedPassword: string;
}

export interface ScramUserResult {
  user: string;
  errorCode: number;
  errorMessage: string | null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** The records of an AlterUserScramCredentials request, and one result per user named. */
export function scramChanges(state: MetadataState, deletions: unknown[], upsertions: unknown[]): { records: MetadataRecord[]; results: ScramUserResult[] } {
  const results = new Map<string, ScramUserResult>();
  const recordsByUser = new Map<string, MetadataRecord[]>();
  const seen = new Set<string>();
  const fail = (user: string, errorCode: number, errorMessage: string) => {
    const r = results.get(user)!;
    if (r.errorCode === ErrorCode.NONE) Object.assign(r, { errorCode, errorMessage });
  };
  const ops: { kind: 'delete' | 'upsert'; op: unknown }[] = [...deletions.map((op) => ({ kind: 'delete' as const, op })), ...upsertions.map((op) => ({ kind: 'upsert' as const, op }))];
  for (const { kind, op } of ops) {
    const user = isObject(op) && typeof op.user === 'string' ? op.user : '';
    if (!results.has(user)) results.set(user, { user, errorCode: ErrorCode.NONE, errorMessage: null });
    if (!isObject(op) || user === '') {
      fail(user, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty');
      continue;
    }
    const mechanism = op.mechanism as number;
    const hash = scramHashOf(mechanism);
    if (!hash) {
      fail(user, ErrorCode.UNSUPPORTED_SASL_MECHANISM, `Unknown SCRAM mechanism ${String(op.mechanism)}: SCRAM-SHA-256 (1) or SCRAM-SHA-512 (2)`);
      continue;
    }
    const key = scramKey(user, mechanism);
    if (seen.has(key)) {
      fail(user, ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request');
      continue;
    }
    seen.add(key);
    const list = recordsByUser.get(user) ?? [];
    recordsByUser.set(user, list);
    if (kind === 'delete') {
      if (!state.scramCredentials.has(key)) {
        fail(user, ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist');
        continue;
      }
      list.push({ type: 'RemoveUserScramCredential', user, mechanism });
      continue;
    }
    const iterations = op.iterations;
    if (!Number.isSafeInteger(iterations) || (iterations as number) < SCRAM_MIN_ITERATIONS) {
      fail(user, ErrorCode.UNACCEPTABLE_CREDENTIAL, `Too few iterations: at least ${SCRAM_MIN_ITERATIONS}`);
      continue;
    }
    if ((iterations as number) > SCRAM_MAX_ITERATIONS) {
      fail(user, ErrorCode.UNACCEPTABLE_CREDENTIAL, `Too many iterations: at most ${SCRAM_MAX_ITERATIONS}`);
      continue;
    }
    const salt = typeof op.salt === 'string' ? Buffer.from(op.salt, 'base64') : Buffer.alloc(0);
    const salted = typeof op.saltedPassword === 'string' ? Buffer.from(op.saltedPassword, 'base64') : Buffer.alloc(0);
    if (salt.length === 0 || salted.length === 0) {
      fail(user, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'salt and saltedPassword must not be empty');
      continue;
    }
    const c = scramCredentialFromSalted(hash, salt, salted, iterations as number);
    list.push({
      type: 'UserScramCredential',
      credential: { user, mechanism, salt: c.salt.toString('base64'), storedKey: c.storedKey.toString('base64'), serverKey: c.serverKey.toString('base64'), iterations: c.iterations },
    });
  }
  const records: MetadataRecord[] = [];
  for (const [user, r] of results) if (r.errorCode === ErrorCode.NONE) records.push(...(recordsByUser.get(user) ?? []));
  return { records, results: [...results.values()] };
}

export interface ScramDescription {
  errorCode: number;
  errorMessage: string | null;
  results: { user: string; errorCode: number; errorMessage: string | null; credentials: { mechanism: number; iterations: number }[] }[];
}

/** DescribeUserScramCredentials: the named users (null or empty: every user with a credential). */
export function describeScram(state: MetadataState, users: readonly string[] | null): ScramDescription {
  const byUser = new Map<string, { mechanism: number; iterations: number }[]>();
  for (const c of state.scramCredentials.values()) {
    const list = byUser.get(c.user) ?? [];
    list.push({ mechanism: c.mechanism, iterations: c.iterations });
    byUser.set(c.user, list);
  }
  const sorted = (l: { mechanism: number; iterations: number }[]) => [...l].sort((a, b) => a.mechanism - b.mechanism);
  if (!users || users.length === 0) {
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      results: [...byUser.keys()].sort().map((user) => ({ user, errorCode: ErrorCode.NONE, errorMessage: null, credentials: sorted(byUser.get(user)!) })),
    };
  }
  const counts = new Map<string, number>();
  for (const u of users) counts.set(u, (counts.get(u) ?? 0) + 1);
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    results: [...counts.keys()].map((user) => {
      if (counts.get(user)! > 1) return { user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: 'Cannot describe SCRAM credentials for the same user twice in a single request', credentials: [] };
      const creds = byUser.get(user);
      if (!creds) return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to describe a user credential that does not exist', credentials: [] };
      return { user, errorCode: ErrorCode.NONE, errorMessage: null, credentials: sorted(creds) };
    }),
  };
}
