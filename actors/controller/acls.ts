/**
 * The controller's ACL operations (Kafka's CreateAcls, DeleteAcls, DescribeAcls), as pure
 * functions from the metadata state to AccessControlEntry / RemoveAccessControlEntry records and
 * the answers. Creating a binding that exists succeeds without a record (as Kafka's); a binding
 * matched by several delete filters is removed once and listed under each.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { bindingKey, bindingProblem, compareBindings, filterMatches, filterProblem, type AclBinding, type AclBindingFilter } from '../../src/security/acl.js';
import type { MetadataRecord, MetadataState } from './metadata-state.js';

export interface AclAnswer {
  errorCode: number;
  errorMessage: string | null;
}

const OK: AclAnswer = { errorCode: ErrorCode.NONE, errorMessage: null };

function invalid(errorMessage: string): AclAnswer {
  return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage };
}

/** A binding as sent, with only its own fields (anything else in the message is dropped). */
function asBinding(raw: unknown): AclBinding | string {
  if (typeof raw !== 'object' || raw === null) return 'each creation must be an object';
  const r = raw as Record<string, unknown>;
  const b = {
    resourceType: r.resourceType,
    resourceName: r.resourceName,
    patternType: r.patternType,
    principal: r.principal,
    host: r.host,
    operation: r.operation,
    permission: r.permission,
  } as AclBinding;
  return bindingProblem(b) ?? b;
}

function asFilter(raw: unknown): AclBindingFilter | string {
  if (typeof raw !== 'object' || raw === null) return 'each filter must be an object';
  const r = raw as Record<string, unknown>;
  const nullableString = (v: unknown) => v === null || v === undefined || typeof v === 'string';
  if (!nullableString(r.resourceName) || !nullableString(r.principal) || !nullableString(r.host)) return 'a filter names a resource, principal and host as strings or null';
  const f = {
    resourceType: r.resourceType,
    resourceName: (r.resourceName as string | undefined) ?? null,
    patternType: r.patternType,
    principal: (r.principal as string | undefined) ?? null,
    host: (r.host as string | undefined) ?? null,
    operation: r.operation,
    permission: r.permission,
  } as AclBindingFilter;
  return filterProblem(f) ?? f;
}

/** The records that create the valid new bindings, and one answer per creation, in order. */
export function aclCreations(state: MetadataState, creations: readonly unknown[]): { records: MetadataRecord[]; results: AclAnswer[] } {
  const records: MetadataRecord[] = [];
  const added = new Set<string>();
  const results = creations.map((raw): AclAnswer => {
    const b = asBinding(raw);
    if (typeof b === 'string') return invalid(b);
    const key = bindingKey(b);
    if (!state.acls.has(key) && !added.has(key)) {
      added.add(key);
      records.push({ type: 'AccessControlEntry', binding: b });
    }
    return OK;
  });
  return { records, results };
}

export interface DeleteFilterResult extends AclAnswer {
  matchingAcls: AclBinding[];
}

/** The records that remove every binding some valid filter selects, and one result per filter. */
export function aclDeletions(state: MetadataState, filters: readonly unknown[]): { records: MetadataRecord[]; results: DeleteFilterResult[] } {
  const records: MetadataRecord[] = [];
  const removed = new Set<string>();
  const results = filters.map((raw): DeleteFilterResult => {
    const f = asFilter(raw);
    if (typeof f === 'string') return { ...invalid(f), matchingAcls: [] };
    const matching = [...state.acls.entries()].filter(([, b]) => filterMatches(f, b));
    for (const [key, b] of matching) {
      if (removed.has(key)) continue;
      removed.add(key);
      records.push({ type: 'RemoveAccessControlEntry', binding: b });
    }
    return { ...OK, matchingAcls: matching.map(([, b]) => ({ ...b })).sort(compareBindings) };
  });
  return { records, results };
}

/** The bindings a filter selects, in order; a malformed filter is an answer of its own. */
export function describeAcls(state: MetadataState, raw: unknown): { answer: AclAnswer; acls: AclBinding[] } {
  const f = asFilter(raw);
  if (typeof f === 'string') return { answer: invalid(f), acls: [] };
  const acls = [...state.acls.values()].filter((b) => filterMatches(f, b)).map((b) => ({ ...b })).sort(compareBindings);
  return { answer: OK, acls };
}
