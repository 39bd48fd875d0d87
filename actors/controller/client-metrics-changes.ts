/**
 * Client metrics subscriptions in the controller (KIP-714's CLIENT_METRICS config resources):
 * per name, its configs. A pure function turns a request into ClientMetricsConfig records (each
 * subscription's map replaced whole; none left: the subscription is gone) and one answer per
 * subscription, checked as Kafka's ClientMetricsConfigs.validate checks them
 * (src/kafka/client-metrics.ts); brokers read the subscriptions from the metadata.
 */
import { clientMetricsProblem } from '../../src/kafka/client-metrics.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { configsChanged, readConfigChange } from './config-change.js';
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
    const c = readConfigChange(raw, SUBSCRIPTION_CHANGE, seen, (name) => state.clientMetrics.get(name));
    if (!c.ok) return { name: c.name, errorCode: c.errorCode, errorMessage: c.errorMessage };
    const problem = clientMetricsProblem(c.name, c.next);
    if (problem) return { name: c.name, errorCode: problem.invalidConfig ? ErrorCode.INVALID_CONFIG : ErrorCode.INVALID_REQUEST, errorMessage: problem.message };
    if (configsChanged(c.next, c.current)) records.push({ type: 'ClientMetricsConfig', name: c.name, config: c.next });
    return { name: c.name, errorCode: ErrorCode.NONE, errorMessage: null };
  });
  return { records, results };
}

const SUBSCRIPTION_CHANGE = { nameKey: 'name', what: 'subscription', emptyName: "Subscription name can't be empty", configs: 'client metrics configs' } as const;
