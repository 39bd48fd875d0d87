/**
 * Share consumer configuration (KIP-932) with Kafka's names and defaults; unknown keys and bad
 * values are refused with a message naming the key, as the consumer's config is.
 */
import { boolValue, intValue, stringValue, type ValueResult } from '../../src/client/config-values.js';

/** share.acknowledgement.mode: implicit (a poll or commit accepts what the last poll returned) or explicit. */
export type ShareAcknowledgementMode = 'implicit' | 'explicit';

/**
 * share.acquire.mode (KIP-1206): batch_optimized (records are fetched ahead of the application's
 * polls, from every leader at once) or record_limit (fetched only while a poll waits, at most
 * max.poll.records at a time: the acquisition locks start when the application asks).
 */
export type ShareAcquireMode = 'batch_optimized' | 'record_limit';

export interface ShareConsumerConfig {
  groupId: string;
  clientId: string;
  /** client.rack: sent as the member's rack id ('' for none). */
  clientRack: string;
  acknowledgementMode: ShareAcknowledgementMode;
  acquireMode: ShareAcquireMode;
  fetchMinBytes: number;
  fetchMaxWaitMs: number;
  fetchMaxBytes: number;
  /** At most this many records a poll returns, and a ShareFetch asks for (its MaxRecords). */
  maxPollRecords: number;
  /**
   * max.poll.interval.ms: an application that does not poll for this long is taken to be stuck;
   * the member leaves its group (a heartbeat with epoch -1) and joins again at the next poll.
   */
  maxPollIntervalMs: number;
  retryBackoffMs: number;
  /** retry.backoff.ms doubles on repeated failures up to this (KIP-580). */
  retryBackoffMaxMs: number;
  requestTimeoutMs: number;
  /** How long commitSync waits for its acknowledgements at most (Kafka's default.api.timeout.ms). */
  defaultApiTimeoutMs: number;
  metadataMaxAgeMs: number;
  /** Verify each fetched batch's CRC-32C before handing its records over. */
  checkCrcs: boolean;
  /** metrics.sample.window.ms: the window of one sample of the share consumer's metrics (Kafka: 30000). */
  metricsSampleWindowMs: number;
  /** metrics.num.samples: the samples the metrics' averages, maxima and rates cover (Kafka: 2). */
  metricsNumSamples: number;
  /**
   * enable.metrics.push (Kafka's, default true): push the share consumer's metrics to the brokers
   * when a client metrics subscription asks for them (KIP-714, src/client/telemetry-loop.ts).
   */
  enableMetricsPush: boolean;
}

export class ShareConsumerConfigError extends Error {
  override name = 'ShareConsumerConfigError';
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
  }
}

function take<T>(key: string, r: ValueResult<T>): T {
  if (!r.ok) throw new ShareConsumerConfigError(key, r.message);
  return r.value;
}

type Kind = 'int' | 'bool' | 'string' | 'optional-string' | 'ack-mode' | 'acquire-mode';
const SPECS: Record<string, { prop: keyof ShareConsumerConfig; kind: Kind; min?: number; def: unknown }> = {
  'group.id': { prop: 'groupId', kind: 'string', def: '' },
  'client.id': { prop: 'clientId', kind: 'string', def: 'samsa-share-consumer' },
  'client.rack': { prop: 'clientRack', kind: 'optional-string', def: '' },
  'share.acknowledgement.mode': { prop: 'acknowledgementMode', kind: 'ack-mode', def: 'implicit' },
  'share.acquire.mode': { prop: 'acquireMode', kind: 'acquire-mode', def: 'batch_optimized' },
  'fetch.min.bytes': { prop: 'fetchMinBytes', kind: 'int', min: 0, def: 1 },
  'fetch.max.wait.ms': { prop: 'fetchMaxWaitMs', kind: 'int', min: 0, def: 500 },
  'fetch.max.bytes': { prop: 'fetchMaxBytes', kind: 'int', min: 0, def: 52_428_800 },
  'max.poll.records': { prop: 'maxPollRecords', kind: 'int', min: 1, def: 500 },
  'max.poll.interval.ms': { prop: 'maxPollIntervalMs', kind: 'int', min: 1, def: 300_000 },
  'retry.backoff.ms': { prop: 'retryBackoffMs', kind: 'int', min: 0, def: 100 },
  'retry.backoff.max.ms': { prop: 'retryBackoffMaxMs', kind: 'int', min: 0, def: 1_000 },
  'request.timeout.ms': { prop: 'requestTimeoutMs', kind: 'int', min: 0, def: 30_000 },
  'default.api.timeout.ms': { prop: 'defaultApiTimeoutMs', kind: 'int', min: 0, def: 60_000 },
  'metadata.max.age.ms': { prop: 'metadataMaxAgeMs', kind: 'int', min: 0, def: 300_000 },
  'check.crcs': { prop: 'checkCrcs', kind: 'bool', def: true },
  'metrics.sample.window.ms': { prop: 'metricsSampleWindowMs', kind: 'int', min: 1, def: 30_000 },
  'metrics.num.samples': { prop: 'metricsNumSamples', kind: 'int', min: 1, def: 2 },
  'enable.metrics.push': { prop: 'enableMetricsPush', kind: 'bool', def: true },
};

export const SHARE_CONSUMER_CONFIG_KEYS = Object.freeze(Object.keys(SPECS));

export function parseShareConsumerConfig(input: Readonly<Record<string, unknown>>): ShareConsumerConfig {
  const out: Record<string, unknown> = {};
  for (const s of Object.values(SPECS)) out[s.prop] = s.def;
  for (const [key, raw] of Object.entries(input)) {
    const spec = SPECS[key];
    if (!spec) throw new ShareConsumerConfigError(key, `unknown share consumer config key (known: ${SHARE_CONSUMER_CONFIG_KEYS.join(', ')})`);
    if (raw === undefined) continue;
    switch (spec.kind) {
      case 'string':
        out[spec.prop] = take(key, stringValue(raw));
        break;
      case 'optional-string':
        out[spec.prop] = raw === null || raw === '' ? '' : take(key, stringValue(raw));
        break;
      case 'ack-mode': {
        // any case, as Kafka's ShareAcknowledgementMode
        const v = typeof raw === 'string' ? raw.toLowerCase() : raw;
        if (v !== 'implicit' && v !== 'explicit') throw new ShareConsumerConfigError(key, `must be implicit or explicit, got ${JSON.stringify(raw)}`);
        out[spec.prop] = v;
        break;
      }
      case 'acquire-mode': {
        // any case, as Kafka's ShareAcquireMode
        const v = typeof raw === 'string' ? raw.toLowerCase() : raw;
        if (v !== 'batch_optimized' && v !== 'record_limit') throw new ShareConsumerConfigError(key, `must be batch_optimized or record_limit, got ${JSON.stringify(raw)}`);
        out[spec.prop] = v;
        break;
      }
      case 'bool':
        out[spec.prop] = take(key, boolValue(raw));
        break;
      case 'int':
        out[spec.prop] = take(key, intValue(raw, spec.min));
        break;
    }
  }
  const c = out as unknown as ShareConsumerConfig;
  if (!c.groupId || c.groupId.trim() === '') throw new ShareConsumerConfigError('group.id', 'is required for a share consumer');
  return c;
}
