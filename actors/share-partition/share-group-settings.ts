/**
 * A share group's settings (KIP-932): its group configs (share.*, set with
 * IncrementalAlterConfigs on the GROUP resource) over the broker's defaults (group.share.*),
 * as Kafka's GroupConfig / ShareGroupConfig. Read by the share partition manager (offset reset,
 * locks, delivery limit, window) and the group coordinator (session, heartbeat).
 */
import type { SharePartitionLimits } from './share-partition-state.js';
import {
  DEFAULT_SHARE_GROUP_BOUNDS,
  SHARE_AUTO_OFFSET_RESET,
  SHARE_DELIVERY_COUNT_LIMIT,
  SHARE_HEARTBEAT_INTERVAL_MS,
  SHARE_ISOLATION_LEVEL,
  SHARE_PARTITION_MAX_RECORD_LOCKS,
  SHARE_RECORD_LOCK_DURATION_MS,
  SHARE_SESSION_TIMEOUT_MS,
  parseShareAutoOffsetReset,
  parseShareIsolationLevel,
  type ShareAutoOffsetReset,
  type ShareIsolationLevel,
} from '../group-coordinator/group-configs.js';

export { SHARE_AUTO_OFFSET_RESET, SHARE_DELIVERY_COUNT_LIMIT, SHARE_HEARTBEAT_INTERVAL_MS, SHARE_ISOLATION_LEVEL, SHARE_PARTITION_MAX_RECORD_LOCKS, SHARE_RECORD_LOCK_DURATION_MS, SHARE_SESSION_TIMEOUT_MS };
/**
 * Where a share group starts reading a partition it has no state of: 'latest' (the high
 * watermark), 'earliest' (the log start) or { byDurationMs } (share.auto.offset.reset
 * by_duration:<ISO-8601 duration>: the first record whose timestamp is at or after now minus
 * byDurationMs), parsed once by group-configs.ts.
 */
export type { ShareAutoOffsetReset, ShareIsolationLevel };

/** The broker's defaults: group.share.record.lock.duration.ms, group.share.delivery.count.limit, ... */
export interface ShareGroupDefaults {
  autoOffsetReset: ShareAutoOffsetReset;
  /** share.isolation.level (Kafka's default read_uncommitted; no broker key). */
  isolationLevel: ShareIsolationLevel;
  recordLockDurationMs: number;
  deliveryCountLimit: number;
  partitionMaxRecordLocks: number;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
}

/** Kafka's defaults of group.share.* (share.auto.offset.reset: latest, share.isolation.level: read_uncommitted). */
export const DEFAULT_SHARE_GROUP_DEFAULTS: ShareGroupDefaults = Object.freeze({
  autoOffsetReset: 'latest',
  isolationLevel: 'read_uncommitted',
  recordLockDurationMs: DEFAULT_SHARE_GROUP_BOUNDS.recordLockDurationMs,
  deliveryCountLimit: DEFAULT_SHARE_GROUP_BOUNDS.deliveryCountLimit,
  partitionMaxRecordLocks: DEFAULT_SHARE_GROUP_BOUNDS.partitionMaxRecordLocks,
  sessionTimeoutMs: DEFAULT_SHARE_GROUP_BOUNDS.sessionTimeoutMs,
  heartbeatIntervalMs: DEFAULT_SHARE_GROUP_BOUNDS.heartbeatIntervalMs,
});

export interface ShareGroupSettings extends ShareGroupDefaults {
  limits: SharePartitionLimits;
}

function intOf(v: string | undefined): number | null {
  if (v === undefined || !/^-?\d+$/.test(v.trim())) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * The group's settings: each of its configs that parses over the broker's default (the
 * controller refuses values that do not; read as Kafka reads them: trimmed, case-sensitive).
 */
export function shareGroupSettings(config: Readonly<Record<string, string>> | undefined, d: ShareGroupDefaults): ShareGroupSettings {
  const reset = config?.[SHARE_AUTO_OFFSET_RESET];
  const isolation = config?.[SHARE_ISOLATION_LEVEL];
  const out: ShareGroupDefaults = {
    autoOffsetReset: (reset !== undefined ? parseShareAutoOffsetReset(reset) : null) ?? d.autoOffsetReset,
    isolationLevel: (isolation !== undefined ? parseShareIsolationLevel(isolation) : null) ?? d.isolationLevel,
    recordLockDurationMs: intOf(config?.[SHARE_RECORD_LOCK_DURATION_MS]) ?? d.recordLockDurationMs,
    deliveryCountLimit: intOf(config?.[SHARE_DELIVERY_COUNT_LIMIT]) ?? d.deliveryCountLimit,
    partitionMaxRecordLocks: intOf(config?.[SHARE_PARTITION_MAX_RECORD_LOCKS]) ?? d.partitionMaxRecordLocks,
    sessionTimeoutMs: intOf(config?.[SHARE_SESSION_TIMEOUT_MS]) ?? d.sessionTimeoutMs,
    heartbeatIntervalMs: intOf(config?.[SHARE_HEARTBEAT_INTERVAL_MS]) ?? d.heartbeatIntervalMs,
  };
  return { ...out, limits: { maxInFlightRecords: out.partitionMaxRecordLocks, deliveryCountLimit: out.deliveryCountLimit, lockDurationMs: out.recordLockDurationMs } };
}
