/**
 * Client quotas in the controller (Kafka's AlterClientQuotas as KRaft keeps them): per quota
 * entity, a map of quota keys to bytes per second. A pure function turns a request into
 * ClientQuota records (each entity's map replaced whole; an empty one removes it) and one answer
 * per entry; brokers read the quotas from the metadata and enforce them on their Kafka listeners.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { entityFromWire, entityKey, quotaProblem } from '../../src/security/client-quotas.js';
import type { MetadataRecord, MetadataState } from './metadata-state.js';

type WireEntity = { entityType: string; entityName: string | null }[];

export interface QuotaAnswer {
  errorCode: number;
  errorMessage: string | null;
  entity: WireEntity;
}

/** The records for the valid entries, and an answer for each, in order. */
export function clientQuotaChanges(state: MetadataState, entries: readonly unknown[]): { records: MetadataRecord[]; results: QuotaAnswer[] } {
  const records: MetadataRecord[] = [];
  const seen = new Set<string>();
  const results = entries.map((raw): QuotaAnswer => {
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as { entity?: unknown; ops?: unknown };
    const wire = Array.isArray(r.entity) ? (r.entity as WireEntity) : [];
    const fail = (errorCode: number, errorMessage: string): QuotaAnswer => ({ errorCode, errorMessage, entity: wire });
    if (!Array.isArray(r.entity) || wire.some((p) => typeof p !== 'object' || p === null || typeof p.entityType !== 'string' || (p.entityName !== null && typeof p.entityName !== 'string'))) {
      return fail(ErrorCode.INVALID_REQUEST, 'an entity is a list of { entityType, entityName }');
    }
    const entity = entityFromWire(wire);
    if (typeof entity === 'string') return fail(ErrorCode.INVALID_REQUEST, entity);
    const key = entityKey(entity);
    if (seen.has(key)) return fail(ErrorCode.INVALID_REQUEST, 'the entity is named twice in the request');
    seen.add(key);
    const ops = Array.isArray(r.ops) ? (r.ops as { key?: unknown; value?: unknown; remove?: unknown }[]) : null;
    if (!ops) return fail(ErrorCode.INVALID_REQUEST, 'ops must be a list');
    const quotas: Record<string, number> = { ...(state.clientQuotas.get(key)?.quotas ?? {}) };
    for (const op of ops) {
      if (typeof op !== 'object' || op === null || typeof op.key !== 'string') return fail(ErrorCode.INVALID_REQUEST, 'each op names a key');
      if (op.remove === true) {
        delete quotas[op.key];
        continue;
      }
      const problem = quotaProblem(op.key, Number(op.value), entity);
      if (problem) return fail(ErrorCode.INVALID_REQUEST, problem);
      quotas[op.key] = Number(op.value);
    }
    const before = state.clientQuotas.get(key)?.quotas ?? {};
    if (JSON.stringify(Object.entries(quotas).sort()) !== JSON.stringify(Object.entries(before).sort())) records.push({ type: 'ClientQuota', entity, quotas });
    return { errorCode: ErrorCode.NONE, errorMessage: null, entity: wire };
  });
  return { records, results };
}
