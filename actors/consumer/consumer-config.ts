/**
 * Consumer configuration with Kafka's names and defaults; unknown keys and bad values are
 * rejected with a message naming the key.
 */
import { boolValue, intValue, stringValue, type ValueResult } from '../../src/client/config-values.js';
import type { IsolationLevel } from '../../src/client/fetched-batches.js';
import { isAssignorName, type AssignorName } from '../group-coordinator/assignors/index.js';

export type GroupProtocol = 'classic' | 'consumer';

export interface ConsumerConfig {
  groupId: string;
  /**
   * group.protocol (Kafka's, default classic): 'classic' joins with JoinGroup / SyncGroup and
   * assigns partitions in the client (partition.assignment.strategy); 'consumer' is KIP-848's
   * protocol, where the coordinator assigns and the consumer heartbeats with
   * ConsumerGroupHeartbeat (session and heartbeat timings are then the brokers'
   * group.consumer.* settings, and session.timeout.ms, heartbeat.interval.ms and
   * partition.assignment.strategy are not used).
   */
  groupProtocol: GroupProtocol;
  /**
   * group.remote.assignor: with group.protocol consumer, the server assignor to ask the
   * coordinator for (uniform or range in samsa); null lets the coordinator choose.
   */
  groupRemoteAssignor: string | null;
  /**
   * group.instance.id (KIP-345, static membership): '' for none. A static member keeps its
   * place in the group across restarts: it rejoins under the same instance id within
   * session.timeout.ms and gets its partitions back without a rebalance, and it does not leave
   * the group when it closes. Another consumer joining with the same id fences this one
   * (FENCED_INSTANCE_ID).
   */
  groupInstanceId: string;
  clientId: string;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  maxPollIntervalMs: number;
  autoOffsetReset: 'earliest' | 'latest' | 'none';
  enableAutoCommit: boolean;
  autoCommitIntervalMs: number;
  fetchMinBytes: number;
  fetchMaxWaitMs: number;
  fetchMaxBytes: number;
  maxPartitionFetchBytes: number;
  maxPollRecords: number;
  assignmentStrategies: AssignorName[];
  retryBackoffMs: number;
  /** retry.backoff.max.ms: retry.backoff.ms doubles on repeated failures up to this (KIP-580). */
  retryBackoffMaxMs: number;
  requestTimeoutMs: number;
  metadataMaxAgeMs: number;
  /** Verify each fetched batch's CRC-32C before handing its records over (Kafka's check.crcs). */
  checkCrcs: boolean;
  /**
   * client.rack: the consumer's rack (Kafka's KIP-392). Set, fetches carry it and the consumer
   * reads a partition from the replica its leader names (one in this rack, with the brokers'
   * replica.selector.class set), for metadata.max.age.ms at a time.
   */
  clientRack: string;
  /**
   * isolation.level (Kafka's, default read_uncommitted): read_committed reads up to the last
   * stable offset and drops the records of aborted transactions; either way transaction markers
   * are never handed out.
   */
  isolationLevel: IsolationLevel;
  /** metrics.sample.window.ms: the window of one sample of the consumer's metrics (Kafka: 30000). */
  metricsSampleWindowMs: number;
  /** metrics.num.samples: the samples the metrics' averages, maxima and rates cover (Kafka: 2). */
  metricsNumSamples: number;
  /**
   * enable.metrics.push (Kafka's, default true): push the consumer's metrics to the brokers when
   * a client metrics subscription asks for them (KIP-714, src/client/telemetry-loop.ts).
   */
  enableMetricsPush: boolean;
}

export class ConsumerConfigError extends Error {
  override name = 'ConsumerConfigError';
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
  }
}

function take<T>(key: string, r: ValueResult<T>): T {
  if (!r.ok) throw new ConsumerConfigError(key, r.message);
  return r.value;
}

type Kind = 'int' | 'bool' | 'string' | 'nullable-string' | 'reset' | 'strategies' | 'isolation' | 'protocol';
const SPECS: Record<string, { prop: keyof ConsumerConfig; kind: Kind; min?: number; def: unknown }> = {
  'group.id': { prop: 'groupId', kind: 'string', def: '' },
  'group.instance.id': { prop: 'groupInstanceId', kind: 'string', def: '' },
  'group.protocol': { prop: 'groupProtocol', kind: 'protocol', def: 'classic' },
  'group.remote.assignor': { prop: 'groupRemoteAssignor', kind: 'nullable-string', def: null },
  'client.id': { prop: 'clientId', kind: 'string', def: 'samsa-consumer' },
  'session.timeout.ms': { prop: 'sessionTimeoutMs', kind: 'int', min: 1, def: 45_000 },
  'heartbeat.interval.ms': { prop: 'heartbeatIntervalMs', kind: 'int', min: 1, def: 3_000 },
  'max.poll.interval.ms': { prop: 'maxPollIntervalMs', kind: 'int', min: 1, def: 300_000 },
  'auto.offset.reset': { prop: 'autoOffsetReset', kind: 'reset', def: 'latest' },
  'enable.auto.commit': { prop: 'enableAutoCommit', kind: 'bool', def: true },
  'auto.commit.interval.ms': { prop: 'autoCommitIntervalMs', kind: 'int', min: 0, def: 5_000 },
  'fetch.min.bytes': { prop: 'fetchMinBytes', kind: 'int', min: 0, def: 1 },
  'fetch.max.wait.ms': { prop: 'fetchMaxWaitMs', kind: 'int', min: 0, def: 500 },
  'fetch.max.bytes': { prop: 'fetchMaxBytes', kind: 'int', min: 0, def: 52_428_800 },
  'max.partition.fetch.bytes': { prop: 'maxPartitionFetchBytes', kind: 'int', min: 0, def: 1_048_576 },
  'max.poll.records': { prop: 'maxPollRecords', kind: 'int', min: 1, def: 500 },
  'partition.assignment.strategy': { prop: 'assignmentStrategies', kind: 'strategies', def: ['range', 'roundrobin'] },
  'retry.backoff.ms': { prop: 'retryBackoffMs', kind: 'int', min: 0, def: 100 },
  'retry.backoff.max.ms': { prop: 'retryBackoffMaxMs', kind: 'int', min: 0, def: 1_000 },
  'request.timeout.ms': { prop: 'requestTimeoutMs', kind: 'int', min: 0, def: 30_000 },
  'metadata.max.age.ms': { prop: 'metadataMaxAgeMs', kind: 'int', min: 0, def: 300_000 },
  'check.crcs': { prop: 'checkCrcs', kind: 'bool', def: true },
  'client.rack': { prop: 'clientRack', kind: 'string', def: '' },
  'isolation.level': { prop: 'isolationLevel', kind: 'isolation', def: 'read_uncommitted' },
  'metrics.sample.window.ms': { prop: 'metricsSampleWindowMs', kind: 'int', min: 1, def: 30_000 },
  'metrics.num.samples': { prop: 'metricsNumSamples', kind: 'int', min: 1, def: 2 },
  'enable.metrics.push': { prop: 'enableMetricsPush', kind: 'bool', def: true },
};

export const CONSUMER_CONFIG_KEYS = Object.freeze(Object.keys(SPECS));

export function parseConsumerConfig(input: Readonly<Record<string, unknown>>): ConsumerConfig {
  const out: Record<string, unknown> = {};
  for (const s of Object.values(SPECS)) out[s.prop] = s.def;
  for (const [key, raw] of Object.entries(input)) {
    const spec = SPECS[key];
    if (!spec) throw new ConsumerConfigError(key, `unknown consumer config key (known: ${CONSUMER_CONFIG_KEYS.join(', ')})`);
    if (raw === undefined) continue;
    switch (spec.kind) {
      case 'string':
        out[spec.prop] = take(key, stringValue(raw));
        break;
      case 'nullable-string':
        out[spec.prop] = raw === null || raw === '' ? null : take(key, stringValue(raw));
        break;
      case 'protocol': {
        // case-insensitive, as Kafka's validator
        const v = typeof raw === 'string' ? raw.toLowerCase() : raw;
        if (v !== 'classic' && v !== 'consumer') throw new ConsumerConfigError(key, `must be classic or consumer, got ${JSON.stringify(raw)}`);
        out[spec.prop] = v;
        break;
      }
      case 'bool':
        out[spec.prop] = take(key, boolValue(raw));
        break;
      case 'reset':
        if (raw !== 'earliest' && raw !== 'latest' && raw !== 'none') throw new ConsumerConfigError(key, `must be earliest, latest or none, got ${JSON.stringify(raw)}`);
        out[spec.prop] = raw;
        break;
      case 'isolation':
        if (raw !== 'read_uncommitted' && raw !== 'read_committed') throw new ConsumerConfigError(key, `must be read_uncommitted or read_committed, got ${JSON.stringify(raw)}`);
        out[spec.prop] = raw;
        break;
      case 'strategies': {
        const list = Array.isArray(raw) ? raw : String(raw).split(',').map((x) => x.trim());
        if (list.length === 0 || !list.every((x) => typeof x === 'string' && isAssignorName(x))) {
          throw new ConsumerConfigError(key, `must list assignors among range, roundrobin, sticky; got ${JSON.stringify(raw)}`);
        }
        out[spec.prop] = list;
        break;
      }
      case 'int':
        out[spec.prop] = take(key, intValue(raw, spec.min));
        break;
    }
  }
  const c = out as unknown as ConsumerConfig;
  if (!c.groupId) throw new ConsumerConfigError('group.id', 'is required for a consumer in a group');
  if (c.groupInstanceId !== '' && (c.groupInstanceId.length > 249 || !/^[a-zA-Z0-9._-]+$/.test(c.groupInstanceId))) {
    // Kafka's JoinGroupRequest.validateGroupInstanceId: a topic name's rules
    throw new ConsumerConfigError('group.instance.id', `must be at most 249 characters of ASCII letters, digits, '.', '_' and '-', got ${JSON.stringify(c.groupInstanceId)}`);
  }
  if (c.groupProtocol === 'classic' && c.groupRemoteAssignor !== null) {
    // as Kafka's ConsumerConfig
    throw new ConsumerConfigError('group.remote.assignor', 'cannot be set when group.protocol=classic');
  }
  if (c.heartbeatIntervalMs >= c.sessionTimeoutMs) {
    throw new ConsumerConfigError('heartbeat.interval.ms', `must be lower than session.timeout.ms (${c.sessionTimeoutMs})`);
  }
  return c;
}
