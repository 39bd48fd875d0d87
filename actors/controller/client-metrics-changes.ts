/**
 * Client metrics subscriptions in the controller (KIP-714's CLIENT_METRICS config resources):
 * per name, its configs. A pure function turns a request into ClientMetricsConfig records (each
 * subscription's map replaced whole; none left: the subscription is gone) and one answer per
 * subscription, checked as Kafka's ClientMetricsConfigs.validate checks them
 * (src/kafka/client-metrics.ts); brokers read the subscriptions from the metadata.
 */
import { clientMetricsProblem } from '../../src/kafka/client-metrics.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isStringMap } from './broker-configs.js';
import type { MetadataRecord, MetadataState } from './metadata-state.js';

export interface ClientMetricsAnswer {
  name: string;
  errorCode: number;
  errorMessage: string | null;
}

/** The records for the valid changes among `subscriptions`, and an answer for each, in order. */
export function clientMetricsChanges(state: MetadataState, subscriptions: readonly unknown[]): { records: MetadataRecord[]; results: ClientMetricsAnswer[] } {
  const records: MetadataRecord[] = [];
  const seen = new Set<string>();
  const results = subscriptions.map((raw): ClientMetricsAnswer => {
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as { name?: unknown; set?: unknown; delete?: unknown };
    const name = typeof r.name === 'string' ? r.name : '';
    const fail = (errorCode: number, errorMessage: string) => ({ name, errorCode, errorMessage });
    if (name === '') return fail(ErrorCode.INVALID_REQUEST, "Subscription name can't be empty");
    if (seen.has(name)) return fail(ErrorCode.INVALID_REQUEST, `subscription '${name}' is named twice`);
    seen.add(name);
    const set = r.set ?? {};
    const deletes = r.delete ?? [];
    if (!isStringMap(set)) return fail(ErrorCode.INVALID_REQUEST, 'Null value not supported for client metrics configs: config values must be strings');
    if (!Array.isArray(deletes) || deletes.some((k) => typeof k !== 'string')) return fail(ErrorCode.INVALID_REQUEST, 'deleted keys must be strings');
    const current = state.clientMetrics.get(name) ?? {};
    const next: Record<string, string> = { ...current, ...set };
    for (const k of deletes as string[]) delete next[k];
    const problem = clientMetricsProblem(name, next);
    if (problem) return fail(problem.invalidConfig ? ErrorCode.INVALID_CONFIG : ErrorCode.INVALID_REQUEST, problem.message);
    if (JSON.stringify(Object.entries(next).sort()) !== JSON.stringify(Object.entries(current).sort())) records.push({ type: 'ClientMetricsConfig', name, config: next });
    return { name, errorCode: ErrorCode.NONE, errorMessage: null };
  });
  return { records, results };
}
