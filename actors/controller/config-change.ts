/**
 * Reading one entry of a request that changes a named resource's configs (a group's, a client
 * metrics subscription's): its name, once per request, then the configs after the change (the
 * current ones, the keys set over them, the keys deleted gone), or why the entry cannot be read.
 * The resource's own checks of the result are its caller's.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { isStringMap } from './broker-configs.js';

export type ReadChange =
  | { ok: true; name: string; current: Readonly<Record<string, string>>; next: Record<string, string> }
  | { ok: false; name: string; errorCode: number; errorMessage: string };

export interface ChangeShape {
  /** The entry's field naming the resource ('group', 'name'). */
  nameKey: string;
  /** What the resource is called in messages ('group', 'subscription'). */
  what: string;
  /** The message for an empty or missing name (Kafka's). */
  emptyName: string;
  /** What its configs are called in the message for a value that is not a string ('group configs'). */
  configs: string;
}

export function readConfigChange(raw: unknown, shape: ChangeShape, seen: Set<string>, currentOf: (name: string) => Readonly<Record<string, string>> | undefined): ReadChange {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const named = r[shape.nameKey];
  const name = typeof named === 'string' ? named : '';
  const fail = (errorCode: number, errorMessage: string): ReadChange => ({ ok: false, name, errorCode, errorMessage });
  if (name === '') return fail(ErrorCode.INVALID_REQUEST, shape.emptyName);
  if (seen.has(name)) return fail(ErrorCode.INVALID_REQUEST, `${shape.what} '${name}' is named twice`);
  seen.add(name);
  const set = r.set ?? {};
  const deletes = r.delete ?? [];
  if (!isStringMap(set)) return fail(ErrorCode.INVALID_REQUEST, `Null value not supported for ${shape.configs}: config values must be strings`);
  if (!Array.isArray(deletes) || deletes.some((k) => typeof k !== 'string')) return fail(ErrorCode.INVALID_REQUEST, 'deleted keys must be strings');
  const current = currentOf(name) ?? {};
  const next: Record<string, string> = { ...current, ...set };
  for (const k of deletes as string[]) delete next[k];
  return { ok: true, name, current, next };
}

/** Whether the configs after a change differ from before (a record is written only then). */
export function configsChanged(next: Readonly<Record<string, string>>, current: Readonly<Record<string, string>>): boolean {
  return JSON.stringify(Object.entries(next).sort()) !== JSON.stringify(Object.entries(current).sort());
}
