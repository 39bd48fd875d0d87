/**
 * Dynamic broker configs in the controller (Kafka's KIP-226 as KRaft keeps them): per broker id,
 * or '' for the cluster-wide default, a map of the keys that can change at run time. A pure
 * function turns a request into BrokerConfig records (each resource's map replaced whole) and
 * one answer per resource; brokers read the maps from the metadata. While eligible leader
 * replicas are on (KIP-966), a broker's own min.insync.replicas cannot be set or deleted, nor the
 * cluster-wide one deleted (INVALID_CONFIG with Kafka's messages, eligible-leaders.ts).
 */
import { DYNAMIC_BROKER_CONFIG_KEYS, dynamicBrokerConfigProblem } from '../broker/broker-config.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { elrMinIsrRefusal } from './eligible-leaders.js';
import type { MetadataRecord, MetadataState } from './metadata-state.js';

export interface BrokerConfigAnswer {
  resource: string;
  errorCode: number;
  errorMessage: string | null;
}

/** A plain object of string values (config maps as requests carry them). */
export function isStringMap(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** The records for the valid changes among `resources`, and an answer for each, in order. */
export function brokerConfigChanges(state: MetadataState, resources: readonly unknown[]): { records: MetadataRecord[]; results: BrokerConfigAnswer[] } {
  const records: MetadataRecord[] = [];
  const seen = new Set<string>();
  const results = resources.map((raw): BrokerConfigAnswer => {
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as { resource?: unknown; set?: unknown; delete?: unknown };
    const resource = typeof r.resource === 'string' ? r.resource : '';
    const fail = (errorCode: number, errorMessage: string) => ({ resource, errorCode, errorMessage });
    if (typeof r.resource !== 'string') return fail(ErrorCode.INVALID_REQUEST, 'each resource must name a broker id, or "" for the cluster-wide default');
    if (resource !== '' && !/^(0|[1-9]\d*)$/.test(resource)) return fail(ErrorCode.INVALID_REQUEST, `'${resource}' is not a broker id (or "" for the cluster-wide default)`);
    if (seen.has(resource)) return fail(ErrorCode.INVALID_REQUEST, `broker resource '${resource}' is named twice`);
    seen.add(resource);
    const set = r.set ?? {};
    const deletes = r.delete ?? [];
    if (!isStringMap(set)) return fail(ErrorCode.INVALID_REQUEST, 'config values must be strings');
    if (!Array.isArray(deletes) || deletes.some((k) => typeof k !== 'string')) return fail(ErrorCode.INVALID_REQUEST, 'deleted keys must be strings');
    // KIP-966: while ELR is on, min.insync.replicas is cluster-wide (Kafka checks it before the values)
    const elrRefusal = elrMinIsrRefusal(state, resource, set, deletes as string[]);
    if (elrRefusal) return fail(ErrorCode.INVALID_CONFIG, elrRefusal);
    const notDynamic = (deletes as string[]).find((k) => !DYNAMIC_BROKER_CONFIG_KEYS.includes(k));
    if (notDynamic !== undefined) return fail(ErrorCode.INVALID_REQUEST, `${notDynamic} is not a dynamic broker config: dynamic keys are ${DYNAMIC_BROKER_CONFIG_KEYS.join(', ')}`);
    const problem = dynamicBrokerConfigProblem(set);
    if (problem) return fail(problem.dynamic ? ErrorCode.INVALID_CONFIG : ErrorCode.INVALID_REQUEST, problem.reason);
    const current = state.brokerConfigs.get(resource) ?? {};
    const next: Record<string, string> = { ...current, ...set };
    for (const k of deletes as string[]) delete next[k];
    if (JSON.stringify(Object.entries(next).sort()) !== JSON.stringify(Object.entries(current).sort())) records.push({ type: 'BrokerConfig', resource, config: next });
    return { resource, errorCode: ErrorCode.NONE, errorMessage: null };
  });
  return { records, results };
}
