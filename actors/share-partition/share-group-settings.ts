/**
 * A share group's settings (KIP-932): its group configs (share.*, set with
 * IncrementalAlterConfigs on the GROUP resource) over the broker's defaults (group.share.*),
 * as Kafka's GroupConfig / ShareGroupConfig. Read by the share partition manager (offset reset,
 * locks, delivery limit, window) and the group coordinator (session, heartbeat).
 */
import type { SharePartitionLimits } from './share-partition-state.js';

export const SHARE_AUTO_OFFSET_RESET = 'share.auto.offset.reset';
export const SHARE_RECORD_LOCK_DURATION_MS = 'share.record.lock.duration.ms';
export const SHARE_DELIVERY_COUNT_LIMIT = 'share.delivery.count.limit';
export const SHARE_PARTITION_MAX_RECORD_LOCKS = 'share.partition.max.record.locks';
export const SHARE_SESSION_TIMEOUT_MS = 'share.session.timeout.ms';
export const SHARE_HEARTBEAT_INTERVAL_MS = 'share.heartbeat.interval.ms';

/** Where a share group starts reading a partition it has no state of: the high watermark or the log start. */
export type ShareAutoOffsetReset = 'latest' | 'earliest';

/** The broker's defaults: group.share.record.lock.duration.ms, group.share.delivery.count.limit, ... */
export interface ShareGroupDefaults {
  autoOffsetReset: ShareAutoOffsetReset;
  recordLockDurationMs: number;
  deliveryCountLimit: number;
  partitionMaxRecordLocks: number;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
}

/** Kafka's defaults of group.share.* (share.auto.offset.reset: latest). */
export const DEFAULT_SHARE_GROUP_DEFAULTS: ShareGroupDefaults = {
  autoOffsetReset: 'latest',
  recordLockDurationMs: 30_000,
  deliveryCountLimit: 5,
  partitionMaxRecordLocks: 2_000,
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 5_000,
};

export interface ShareGroupSettings extends ShareGroupDefaults {
  limits: SharePartitionLimits;
}

function intOf(v: string | undefined): number | null {
  if (v === undefined || !/^-?\d+$/.test(v.trim())) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

/** The group's settings: each of its configs that parses over the broker's default. */
export function shareGroupSettings(config: Readonly<Record<string, string>> | undefined, d: ShareGroupDefaults): ShareGroupSettings {
  const reset = config?.[SHARE_AUTO_OFFSET_RESET]?.trim().toLowerCase();
  const out: ShareGroupDefaults = {
    autoOffsetReset: reset === 'earliest' || reset === 'latest' ? reset : d.autoOffsetReset,
    recordLockDurationMs: intOf(config?.[SHARE_RECORD_LOCK_DURATION_MS]) ?? d.recordLockDurationMs,
    deliveryCountLimit: intOf(config?.[SHARE_DELIVERY_COUNT_LIMIT]) ?? d.deliveryCountLimit,
    partitionMaxRecordLocks: intOf(config?.[SHARE_PARTITION_MAX_RECORD_LOCKS]) ?? d.partitionMaxRecordLocks,
    sessionTimeoutMs: intOf(config?.[SHARE_SESSION_TIMEOUT_MS]) ?? d.sessionTimeoutMs,
    heartbeatIntervalMs: intOf(config?.[SHARE_HEARTBEAT_INTERVAL_MS]) ?? d.heartbeatIntervalMs,
  };
  return { ...out, limits: { maxInFlightRecords: out.partitionMaxRecordLocks, deliveryCountLimit: out.deliveryCountLimit, lockDurationMs: out.recordLockDurationMs } };
}
