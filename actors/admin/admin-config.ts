/**
 * Admin client configuration with Kafka's names and defaults (Kafka 4.2's AdminClientConfig):
 * the keys the admin uses; unknown keys and bad values are refused with a message naming the key,
 * as the producer's and consumers' configs are.
 */
import { boolValue, intValue, stringValue } from '../../src/client/config-values.js';

export interface AdminConfig {
  clientId: string;
  /** request.timeout.ms: how long one request of the admin's waits for its answer (Kafka: 30000). */
  requestTimeoutMs: number;
  /** retry.backoff.ms (Kafka: 100): the telemetry loop's first wait while no broker is known. */
  retryBackoffMs: number;
  /** metrics.sample.window.ms: the window of one sample of the admin's metrics (Kafka: 30000). */
  metricsSampleWindowMs: number;
  /** metrics.num.samples: the samples the metrics' averages, maxima and rates cover (Kafka: 2). */
  metricsNumSamples: number;
  /**
   * enable.metrics.push: push the admin's metrics to the brokers when a client metrics
   * subscription asks for them (KIP-714, src/client/telemetry-loop.ts). false by default, as
   * Kafka's admin client has it (its producer and consumers default to true).
   */
  enableMetricsPush: boolean;
}

export class AdminConfigError extends Error {
  override name = 'AdminConfigError';
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
  }
}

type Spec = { prop: keyof AdminConfig; kind: 'int' | 'string' | 'bool'; min?: number; def: unknown };

const SPECS: Record<string, Spec> = {
  'client.id': { prop: 'clientId', kind: 'string', def: 'samsa-admin' },
  'request.timeout.ms': { prop: 'requestTimeoutMs', kind: 'int', min: 0, def: 30_000 },
  'retry.backoff.ms': { prop: 'retryBackoffMs', kind: 'int', min: 0, def: 100 },
  'metrics.sample.window.ms': { prop: 'metricsSampleWindowMs', kind: 'int', min: 1, def: 30_000 },
  'metrics.num.samples': { prop: 'metricsNumSamples', kind: 'int', min: 1, def: 2 },
  'enable.metrics.push': { prop: 'enableMetricsPush', kind: 'bool', def: false },
};

export const ADMIN_CONFIG_KEYS = Object.freeze(Object.keys(SPECS));

export function parseAdminConfig(input: Readonly<Record<string, unknown>> = {}): AdminConfig {
  const out: Record<string, unknown> = {};
  for (const s of Object.values(SPECS)) out[s.prop] = s.def;
  for (const [key, raw] of Object.entries(input)) {
    const spec = SPECS[key];
    if (!spec) throw new AdminConfigError(key, `unknown admin config key (known: ${ADMIN_CONFIG_KEYS.join(', ')})`);
    if (raw === undefined) continue;
    const r = spec.kind === 'int' ? intValue(raw, spec.min) : spec.kind === 'bool' ? boolValue(raw) : stringValue(raw);
    if (!r.ok) throw new AdminConfigError(key, r.message);
    out[spec.prop] = r.value;
  }
  return out as unknown as AdminConfig;
}
