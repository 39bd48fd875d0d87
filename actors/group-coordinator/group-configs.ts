/**
 * Group configs (Kafka 4.0's GROUP config resources, KIP-848): a consumer group's own session
 * timeout and heartbeat interval, set with IncrementalAlterConfigs / AlterConfigs (resource type
 * 32), kept by the controller as GroupConfig records, taken by the coordinators from the
 * metadata; a group without its own value takes the broker's group.consumer.session.timeout.ms /
 * group.consumer.heartbeat.interval.ms.
 *
 * The checks are Kafka's: GroupCoordinatorConfig's bounds on the broker's values (each default
 * within its group.consumer.min/max, the heartbeat below the session timeout) and GroupConfig's
 * on a group's (integers, each within the bounds, the heartbeat below the session timeout once
 * the group's values are laid over the defaults). Share groups' keys (share.*) do not exist here:
 * samsa has no share groups.
 */

export const CONSUMER_SESSION_TIMEOUT_MS = 'consumer.session.timeout.ms';
export const CONSUMER_HEARTBEAT_INTERVAL_MS = 'consumer.heartbeat.interval.ms';
/** The keys a group config may set. */
export const GROUP_CONFIG_KEYS: readonly string[] = Object.freeze([CONSUMER_SESSION_TIMEOUT_MS, CONSUMER_HEARTBEAT_INTERVAL_MS]);

/** The broker-side consumer group settings a group config is checked against and falls back to. */
export interface ConsumerGroupTimeouts {
  /** group.consumer.session.timeout.ms and group.consumer.heartbeat.interval.ms: a group's defaults. */
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** group.consumer.min/max.session.timeout.ms and group.consumer.min/max.heartbeat.interval.ms. */
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  minHeartbeatIntervalMs: number;
  maxHeartbeatIntervalMs: number;
}

/** Kafka's defaults for them. */
export const DEFAULT_CONSUMER_GROUP_TIMEOUTS: ConsumerGroupTimeouts = Object.freeze({
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 5_000,
  minSessionTimeoutMs: 45_000,
  maxSessionTimeoutMs: 60_000,
  minHeartbeatIntervalMs: 5_000,
  maxHeartbeatIntervalMs: 15_000,
});

/** The broker config key of each of those settings (the names in the checks' messages). */
export const TIMEOUT_KEYS: Readonly<Record<keyof ConsumerGroupTimeouts, string>> = Object.freeze({
  sessionTimeoutMs: 'group.consumer.session.timeout.ms',
  heartbeatIntervalMs: 'group.consumer.heartbeat.interval.ms',
  minSessionTimeoutMs: 'group.consumer.min.session.timeout.ms',
  maxSessionTimeoutMs: 'group.consumer.max.session.timeout.ms',
  minHeartbeatIntervalMs: 'group.consumer.min.heartbeat.interval.ms',
  maxHeartbeatIntervalMs: 'group.consumer.max.heartbeat.interval.ms',
});

/** What is wrong with a broker's settings (the key to blame and why), as Kafka's GroupCoordinatorConfig requires; null when nothing. */
export function consumerGroupTimeoutsProblem(t: ConsumerGroupTimeouts): { key: string; reason: string } | null {
  const k = TIMEOUT_KEYS;
  const rules: [boolean, string, string][] = [
    [t.maxHeartbeatIntervalMs >= t.minHeartbeatIntervalMs, k.maxHeartbeatIntervalMs, `must be greater than or equal to ${k.minHeartbeatIntervalMs}`],
    [t.heartbeatIntervalMs >= t.minHeartbeatIntervalMs, k.heartbeatIntervalMs, `must be greater than or equal to ${k.minHeartbeatIntervalMs}`],
    [t.heartbeatIntervalMs <= t.maxHeartbeatIntervalMs, k.heartbeatIntervalMs, `must be less than or equal to ${k.maxHeartbeatIntervalMs}`],
    [t.maxSessionTimeoutMs >= t.minSessionTimeoutMs, k.maxSessionTimeoutMs, `must be greater than or equal to ${k.minSessionTimeoutMs}`],
    [t.sessionTimeoutMs >= t.minSessionTimeoutMs, k.sessionTimeoutMs, `must be greater than or equal to ${k.minSessionTimeoutMs}`],
    [t.sessionTimeoutMs <= t.maxSessionTimeoutMs, k.sessionTimeoutMs, `must be less than or equal to ${k.maxSessionTimeoutMs}`],
    [t.heartbeatIntervalMs < t.sessionTimeoutMs, k.heartbeatIntervalMs, `must be less than ${k.sessionTimeoutMs}`],
  ];
  const broken = rules.find(([ok]) => !ok);
  return broken ? { key: broken[1], reason: broken[2] } : null;
}

/** A group config value as an integer of at least 1 (Kafka's INT with atLeast(1)), or null. */
function intValue(raw: string): number | null {
  if (!/^\s*-?\d+\s*$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 1 && n <= 2 ** 31 - 1 ? n : null;
}

/**
 * Why a group's configs (all of its overrides after a change) are not valid, as Kafka's
 * GroupConfigManager.validate over the broker's defaults; null when they are.
 */
export function groupConfigProblem(config: Readonly<Record<string, string>>, t: ConsumerGroupTimeouts): string | null {
  for (const [key, raw] of Object.entries(config)) {
    if (!GROUP_CONFIG_KEYS.includes(key)) return `Unknown group config name: ${key} (group configs: ${GROUP_CONFIG_KEYS.join(', ')})`;
    if (typeof raw !== 'string' || intValue(raw) === null) return `Invalid value ${JSON.stringify(raw)} for configuration ${key}: must be an integer of at least 1`;
  }
  const { sessionTimeoutMs, heartbeatIntervalMs } = effectiveGroupTimeouts(config, t);
  if (heartbeatIntervalMs < t.minHeartbeatIntervalMs) return `${CONSUMER_HEARTBEAT_INTERVAL_MS} must be greater than or equal to ${TIMEOUT_KEYS.minHeartbeatIntervalMs} (${t.minHeartbeatIntervalMs})`;
  if (heartbeatIntervalMs > t.maxHeartbeatIntervalMs) return `${CONSUMER_HEARTBEAT_INTERVAL_MS} must be less than or equal to ${TIMEOUT_KEYS.maxHeartbeatIntervalMs} (${t.maxHeartbeatIntervalMs})`;
  if (sessionTimeoutMs < t.minSessionTimeoutMs) return `${CONSUMER_SESSION_TIMEOUT_MS} must be greater than or equal to ${TIMEOUT_KEYS.minSessionTimeoutMs} (${t.minSessionTimeoutMs})`;
  if (sessionTimeoutMs > t.maxSessionTimeoutMs) return `${CONSUMER_SESSION_TIMEOUT_MS} must be less than or equal to ${TIMEOUT_KEYS.maxSessionTimeoutMs} (${t.maxSessionTimeoutMs})`;
  if (sessionTimeoutMs <= heartbeatIntervalMs) return `${CONSUMER_SESSION_TIMEOUT_MS} must be greater than ${CONSUMER_HEARTBEAT_INTERVAL_MS}`;
  return null;
}

/** A group's session timeout and heartbeat interval: its own values over the broker's. */
export function effectiveGroupTimeouts(config: Readonly<Record<string, string>> | undefined, defaults: { sessionTimeoutMs: number; heartbeatIntervalMs: number }): { sessionTimeoutMs: number; heartbeatIntervalMs: number } {
  const session = config?.[CONSUMER_SESSION_TIMEOUT_MS];
  const heartbeat = config?.[CONSUMER_HEARTBEAT_INTERVAL_MS];
  return {
    sessionTimeoutMs: (session !== undefined ? intValue(session) : null) ?? defaults.sessionTimeoutMs,
    heartbeatIntervalMs: (heartbeat !== undefined ? intValue(heartbeat) : null) ?? defaults.heartbeatIntervalMs,
  };
}
