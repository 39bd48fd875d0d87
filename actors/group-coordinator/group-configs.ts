/**
 * Group configs (Kafka's GROUP config resources: KIP-848 consumer groups, KIP-932 share groups):
 * a group's own values of the keys below, set with IncrementalAlterConfigs / AlterConfigs
 * (resource type 32), kept by the controller as GroupConfig records, taken from the metadata by
 * the group coordinators and the share partition managers. A group without its own value of a
 * key takes the broker's (or, for the two with no broker key, Kafka's default):
 *
 *   consumer.session.timeout.ms        group.consumer.session.timeout.ms (45000)
 *   consumer.heartbeat.interval.ms     group.consumer.heartbeat.interval.ms (5000)
 *   share.session.timeout.ms           group.share.session.timeout.ms (45000)
 *   share.heartbeat.interval.ms        group.share.heartbeat.interval.ms (5000)
 *   share.record.lock.duration.ms      group.share.record.lock.duration.ms (30000)
 *   share.auto.offset.reset            latest | earliest | by_duration:<ISO-8601 duration> (latest)
 *   share.isolation.level              read_uncommitted | read_committed (read_uncommitted)
 *   share.delivery.count.limit         group.share.delivery.count.limit (5; Kafka 4.3)
 *   share.partition.max.record.locks   group.share.partition.max.record.locks (2000; Kafka 4.3)
 *
 * The checks are Kafka's. On the broker's values (at start, GroupCoordinatorConfig's and
 * ShareGroupConfig's): each default within its min/max, the heartbeat below the session timeout,
 * the record lock duration within its min/max, and the ranges of ShareGroupConfig's keys. On a
 * group's (GroupConfig.validate, in the controller): known keys; integers of at least 1 (the lock
 * duration 1000, the delivery count limit 2, the record locks 100); the timeouts within the
 * broker's group.consumer/share.min/max.*, the lock duration within
 * group.share.min/max.record.lock.duration.ms, the heartbeat below the session timeout once the
 * group's values are laid over the defaults; the two Kafka 4.3 keys within Kafka 4.3's default bounds (delivery count
 * limit 2 to 10, record locks 100 to 10000: samsa has no group.share.min/max.* keys for them).
 */

const INT_MAX = 2 ** 31 - 1;

export const CONSUMER_SESSION_TIMEOUT_MS = 'consumer.session.timeout.ms';
export const CONSUMER_HEARTBEAT_INTERVAL_MS = 'consumer.heartbeat.interval.ms';
export const SHARE_SESSION_TIMEOUT_MS = 'share.session.timeout.ms';
export const SHARE_HEARTBEAT_INTERVAL_MS = 'share.heartbeat.interval.ms';
export const SHARE_RECORD_LOCK_DURATION_MS = 'share.record.lock.duration.ms';
export const SHARE_AUTO_OFFSET_RESET = 'share.auto.offset.reset';
export const SHARE_ISOLATION_LEVEL = 'share.isolation.level';
export const SHARE_DELIVERY_COUNT_LIMIT = 'share.delivery.count.limit';
export const SHARE_PARTITION_MAX_RECORD_LOCKS = 'share.partition.max.record.locks';

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

/** The broker-side share group settings (group.share.*) a group's share.* configs are checked against and fall back to. */
export interface ShareGroupBounds {
  /** group.share.session.timeout.ms and group.share.heartbeat.interval.ms: a group's defaults. */
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** group.share.min/max.session.timeout.ms and group.share.min/max.heartbeat.interval.ms. */
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  minHeartbeatIntervalMs: number;
  maxHeartbeatIntervalMs: number;
  /** group.share.record.lock.duration.ms (a group's default) and its group.share.min/max.record.lock.duration.ms. */
  recordLockDurationMs: number;
  minRecordLockDurationMs: number;
  maxRecordLockDurationMs: number;
  /** group.share.delivery.count.limit and group.share.partition.max.record.locks: a group's defaults. */
  deliveryCountLimit: number;
  partitionMaxRecordLocks: number;
}

/** Kafka's defaults for them. */
export const DEFAULT_SHARE_GROUP_BOUNDS: ShareGroupBounds = Object.freeze({
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 5_000,
  minSessionTimeoutMs: 45_000,
  maxSessionTimeoutMs: 60_000,
  minHeartbeatIntervalMs: 5_000,
  maxHeartbeatIntervalMs: 15_000,
  recordLockDurationMs: 30_000,
  minRecordLockDurationMs: 15_000,
  maxRecordLockDurationMs: 60_000,
  deliveryCountLimit: 5,
  partitionMaxRecordLocks: 2_000,
});

/** The broker config key of each of those settings. */
export const SHARE_BOUND_KEYS: Readonly<Record<keyof ShareGroupBounds, string>> = Object.freeze({
  sessionTimeoutMs: 'group.share.session.timeout.ms',
  heartbeatIntervalMs: 'group.share.heartbeat.interval.ms',
  minSessionTimeoutMs: 'group.share.min.session.timeout.ms',
  maxSessionTimeoutMs: 'group.share.max.session.timeout.ms',
  minHeartbeatIntervalMs: 'group.share.min.heartbeat.interval.ms',
  maxHeartbeatIntervalMs: 'group.share.max.heartbeat.interval.ms',
  recordLockDurationMs: 'group.share.record.lock.duration.ms',
  minRecordLockDurationMs: 'group.share.min.record.lock.duration.ms',
  maxRecordLockDurationMs: 'group.share.max.record.lock.duration.ms',
  deliveryCountLimit: 'group.share.delivery.count.limit',
  partitionMaxRecordLocks: 'group.share.partition.max.record.locks',
});

/** The values Kafka's ConfigDef allows each of those broker keys (atLeast(1) for the timeouts, ShareGroupConfig's between() for the others). */
export const SHARE_BOUND_RANGES: Readonly<Record<keyof ShareGroupBounds, readonly [number, number]>> = Object.freeze({
  sessionTimeoutMs: [1, INT_MAX],
  heartbeatIntervalMs: [1, INT_MAX],
  minSessionTimeoutMs: [1, INT_MAX],
  maxSessionTimeoutMs: [1, INT_MAX],
  minHeartbeatIntervalMs: [1, INT_MAX],
  maxHeartbeatIntervalMs: [1, INT_MAX],
  recordLockDurationMs: [1_000, 3_600_000],
  minRecordLockDurationMs: [1_000, 30_000],
  maxRecordLockDurationMs: [30_000, 3_600_000],
  deliveryCountLimit: [2, 10],
  partitionMaxRecordLocks: [100, 10_000],
});

/**
 * The bounds of a group's own share.delivery.count.limit and share.partition.max.record.locks:
 * those of Kafka 4.3's group.share.min/max.delivery.count.limit (2, 10) and of the broker key
 * group.share.partition.max.record.locks (100, 10000). Fixed: samsa has no broker keys for them.
 */
export const SHARE_DELIVERY_COUNT_LIMIT_BOUNDS = [2, 10] as const;
export const SHARE_PARTITION_MAX_RECORD_LOCKS_BOUNDS = [100, 10_000] as const;

/** A group key: Kafka's ConfigDef type, and where a group without its own value takes it from. */
export interface GroupConfigDef {
  /** INT (an integer of at least `atLeast`) or STRING (one of the values the key's parser takes). */
  type: 'INT' | 'STRING';
  atLeast: number;
  /** The broker key whose value is the default, or null: the default is `default` itself. */
  brokerKey: string | null;
  /** Kafka's default of the key (of its broker key, where it has one). */
  default: string;
}

const intKey = (atLeast: number, brokerKey: string, def: number): GroupConfigDef => ({ type: 'INT', atLeast, brokerKey, default: String(def) });
const CG = DEFAULT_CONSUMER_GROUP_TIMEOUTS;
const SG = DEFAULT_SHARE_GROUP_BOUNDS;

/** Every group key, in Kafka's order of definition (GroupConfig's ConfigDef): the order values are checked in. */
export const GROUP_CONFIG_DEFS: Readonly<Record<string, GroupConfigDef>> = Object.freeze({
  [CONSUMER_SESSION_TIMEOUT_MS]: intKey(1, TIMEOUT_KEYS.sessionTimeoutMs, CG.sessionTimeoutMs),
  [CONSUMER_HEARTBEAT_INTERVAL_MS]: intKey(1, TIMEOUT_KEYS.heartbeatIntervalMs, CG.heartbeatIntervalMs),
  [SHARE_SESSION_TIMEOUT_MS]: intKey(1, SHARE_BOUND_KEYS.sessionTimeoutMs, SG.sessionTimeoutMs),
  [SHARE_HEARTBEAT_INTERVAL_MS]: intKey(1, SHARE_BOUND_KEYS.heartbeatIntervalMs, SG.heartbeatIntervalMs),
  [SHARE_RECORD_LOCK_DURATION_MS]: intKey(1000, SHARE_BOUND_KEYS.recordLockDurationMs, SG.recordLockDurationMs),
  [SHARE_DELIVERY_COUNT_LIMIT]: intKey(2, SHARE_BOUND_KEYS.deliveryCountLimit, SG.deliveryCountLimit),
  [SHARE_PARTITION_MAX_RECORD_LOCKS]: intKey(100, SHARE_BOUND_KEYS.partitionMaxRecordLocks, SG.partitionMaxRecordLocks),
  [SHARE_AUTO_OFFSET_RESET]: { type: 'STRING', atLeast: 0, brokerKey: null, default: 'latest' },
  [SHARE_ISOLATION_LEVEL]: { type: 'STRING', atLeast: 0, brokerKey: null, default: 'read_uncommitted' },
});

/** The keys a group config may set. */
export const GROUP_CONFIG_KEYS: readonly string[] = Object.freeze(Object.keys(GROUP_CONFIG_DEFS));

type Problem = { key: string; reason: string } | null;

/** The first broken rule among `rules` ([holds, key, reason]), as a problem. */
function firstBroken(rules: readonly [boolean, string, string][]): Problem {
  const broken = rules.find(([ok]) => !ok);
  return broken ? { key: broken[1], reason: broken[2] } : null;
}

/** What is wrong with a broker's settings (the key to blame and why), as Kafka's GroupCoordinatorConfig requires; null when nothing. */
export function consumerGroupTimeoutsProblem(t: ConsumerGroupTimeouts): Problem {
  return timeoutRules(t, TIMEOUT_KEYS);
}

/** GroupCoordinatorConfig's rules on one group type's session timeout and heartbeat interval. */
function timeoutRules(t: ConsumerGroupTimeouts, k: Readonly<Record<keyof ConsumerGroupTimeouts, string>>): Problem {
  return firstBroken([
    [t.maxHeartbeatIntervalMs >= t.minHeartbeatIntervalMs, k.maxHeartbeatIntervalMs, `must be greater than or equal to ${k.minHeartbeatIntervalMs}`],
    [t.heartbeatIntervalMs >= t.minHeartbeatIntervalMs, k.heartbeatIntervalMs, `must be greater than or equal to ${k.minHeartbeatIntervalMs}`],
    [t.heartbeatIntervalMs <= t.maxHeartbeatIntervalMs, k.heartbeatIntervalMs, `must be less than or equal to ${k.maxHeartbeatIntervalMs}`],
    [t.maxSessionTimeoutMs >= t.minSessionTimeoutMs, k.maxSessionTimeoutMs, `must be greater than or equal to ${k.minSessionTimeoutMs}`],
    [t.sessionTimeoutMs >= t.minSessionTimeoutMs, k.sessionTimeoutMs, `must be greater than or equal to ${k.minSessionTimeoutMs}`],
    [t.sessionTimeoutMs <= t.maxSessionTimeoutMs, k.sessionTimeoutMs, `must be less than or equal to ${k.maxSessionTimeoutMs}`],
    [t.heartbeatIntervalMs < t.sessionTimeoutMs, k.heartbeatIntervalMs, `must be less than ${k.sessionTimeoutMs}`],
  ]);
}

/**
 * What is wrong with a broker's group.share.* settings (the key to blame and why); null when
 * nothing. Kafka's: each key within its ConfigDef range (SHARE_BOUND_RANGES), GroupCoordinatorConfig's
 * rules on the share session timeout and heartbeat interval, ShareGroupConfig's on the record
 * lock duration (within its min and max).
 */
export function shareGroupBoundsProblem(b: ShareGroupBounds): Problem {
  for (const [field, [min, max]] of Object.entries(SHARE_BOUND_RANGES) as [keyof ShareGroupBounds, readonly [number, number]][]) {
    const v = b[field];
    if (v < min) return { key: SHARE_BOUND_KEYS[field], reason: `${v} is not valid: must be >= ${min}` };
    if (v > max) return { key: SHARE_BOUND_KEYS[field], reason: `${v} is not valid: must be <= ${max}` };
  }
  const k = SHARE_BOUND_KEYS;
  return (
    timeoutRules(b, k) ??
    firstBroken([
      [b.recordLockDurationMs >= b.minRecordLockDurationMs, k.recordLockDurationMs, `must be greater than or equal to ${k.minRecordLockDurationMs}`],
      [b.maxRecordLockDurationMs >= b.recordLockDurationMs, k.maxRecordLockDurationMs, `must be greater than or equal to ${k.recordLockDurationMs}`],
    ])
  );
}

/** A group config value as Kafka's ConfigDef reads an INT (trimmed, a sign allowed, 32 bits), or null. */
function intValue(raw: string): number | null {
  const t = raw.trim();
  if (!/^[-+]?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && n >= -(2 ** 31) && n <= INT_MAX ? n : null;
}

// ---- share.auto.offset.reset (Kafka's ShareGroupAutoOffsetResetStrategy) ----

/**
 * Where a share group starts reading a partition it has no state of: the high watermark
 * (latest), the log start (earliest), or (by_duration) the first record whose timestamp is at
 * most `byDurationMs` milliseconds before now.
 */
export type ShareAutoOffsetReset = 'latest' | 'earliest' | { byDurationMs: number };

/** share.isolation.level: whether a share group is given only committed transactional records. */
export type ShareIsolationLevel = 'read_uncommitted' | 'read_committed';

const ISOLATION_LEVELS: readonly ShareIsolationLevel[] = ['read_committed', 'read_uncommitted'];
const BY_DURATION = 'by_duration:';
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const NANOS_PER_SECOND = 1_000_000_000n;
/** Java's Duration.parse grammar: [-+]P[nD][T[nH][nM][n[.fraction]S]], case-insensitive, each number signed. */
const ISO_DURATION = /^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$/i;

const inLong = (n: bigint): boolean => n >= LONG_MIN && n <= LONG_MAX;
const floorDiv = (a: bigint, b: bigint): bigint => (a % b !== 0n && a < 0n !== b < 0n ? a / b - 1n : a / b);

/**
 * An ISO-8601 duration (PnDTnHnMn.nS) in milliseconds, as Java's Duration.parse reads it: days,
 * hours, minutes and seconds (a fraction of up to 9 digits), each with its own sign, a sign
 * before the P negating the whole; at least one part, and a T only with a time part. Null when the
 * text is not one, or (as Java's ArithmeticException) when it does not fit a Duration. The result
 * can be negative, and has a fraction below a millisecond when the text has one.
 */
export function parseIsoDurationMs(text: string): number | null {
  const m = ISO_DURATION.exec(text);
  if (!m) return null;
  const [, sign, days, t, hours, minutes, seconds, fraction] = m;
  if (t !== undefined && t.length === 1) return null;
  if (days === undefined && hours === undefined && minutes === undefined && seconds === undefined) return null;
  const part = (v: string | undefined, unit: bigint): bigint | null => {
    if (v === undefined) return 0n;
    const n = BigInt(v);
    return inLong(n) && inLong(n * unit) ? n * unit : null;
  };
  const parts = [part(days, 86_400n), part(hours, 3_600n), part(minutes, 60n), part(seconds, 1n)];
  if (parts.some((p) => p === null)) return null;
  // Java adds them from the seconds up, each sum a long
  let secs = 0n;
  for (const p of [...parts].reverse()) {
    secs += p!;
    if (!inLong(secs)) return null;
  }
  let nanos = fraction ? BigInt(fraction.padEnd(9, '0')) : 0n;
  if (seconds?.startsWith('-')) nanos = -nanos;
  let total = secs * NANOS_PER_SECOND + nanos;
  if (!inLong(floorDiv(total, NANOS_PER_SECOND))) return null;
  if (sign === '-') {
    total = -total;
    if (!inLong(floorDiv(total, NANOS_PER_SECOND))) return null;
  }
  return Number(total) / 1e6;
}

/**
 * A share.auto.offset.reset value as Kafka reads it (trimmed, then case-sensitive): latest,
 * earliest, or by_duration:<ISO-8601 duration> that is not negative (its milliseconds rounded
 * up: now minus them, in whole milliseconds, is Kafka's timestamp); null when it is none of those.
 */
export function parseShareAutoOffsetReset(raw: string): ShareAutoOffsetReset | null {
  const v = raw.trim();
  if (v === 'latest' || v === 'earliest') return v;
  if (!v.startsWith(BY_DURATION)) return null;
  const ms = parseIsoDurationMs(v.slice(BY_DURATION.length));
  return ms === null || ms < 0 ? null : { byDurationMs: Math.ceil(ms) };
}

/** A share.isolation.level value as Kafka reads it (trimmed, case-sensitive), or null. */
export function parseShareIsolationLevel(raw: string): ShareIsolationLevel | null {
  const v = raw.trim();
  return (ISOLATION_LEVELS as readonly string[]).includes(v) ? (v as ShareIsolationLevel) : null;
}

/** Why one group key's value cannot be read, in Kafka's words (its ConfigDef's and validators'), or null. */
function valueProblem(key: string, raw: unknown): string | null {
  const invalid = (why: string) => `Invalid value ${JSON.stringify(raw)} for configuration ${key}: ${why}`;
  if (typeof raw !== 'string') return invalid('Not a string');
  if (key === SHARE_AUTO_OFFSET_RESET) {
    if (parseShareAutoOffsetReset(raw) !== null) return null;
    return invalid(`Invalid value \`${raw.trim()}\` for configuration ${key}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`);
  }
  if (key === SHARE_ISOLATION_LEVEL) return parseShareIsolationLevel(raw) !== null ? null : invalid(`String must be one of: ${ISOLATION_LEVELS.join(', ')}`);
  const n = intValue(raw);
  if (n === null) return invalid('Not a number of type INT');
  const atLeast = GROUP_CONFIG_DEFS[key]!.atLeast;
  return n < atLeast ? invalid(`Value must be at least ${atLeast}`) : null;
}

const own = (config: Readonly<Record<string, string>> | undefined, key: string): number | null => {
  const raw = config?.[key];
  return raw !== undefined ? intValue(raw) : null;
};

/**
 * Why a group's configs (all of its overrides after a change) are not valid, as Kafka's
 * GroupConfigManager.validate over the broker's defaults (`t`: the group.consumer.* settings,
 * `share`: the group.share.* ones); null when they are. The names first, then each value in
 * Kafka's order of the keys, then the bounds in Kafka's order.
 */
export function groupConfigProblem(config: Readonly<Record<string, string>>, t: ConsumerGroupTimeouts, share: ShareGroupBounds = DEFAULT_SHARE_GROUP_BOUNDS): string | null {
  for (const key of Object.keys(config)) {
    if (!GROUP_CONFIG_KEYS.includes(key)) return `Unknown group config name: ${key} (group configs: ${GROUP_CONFIG_KEYS.join(', ')})`;
  }
  for (const key of GROUP_CONFIG_KEYS) {
    if (!Object.prototype.hasOwnProperty.call(config, key)) continue;
    const problem = valueProblem(key, config[key]);
    if (problem) return problem;
  }
  const consumer = effectiveGroupTimeouts(config, t);
  const shared = effectiveGroupTimeouts(config, share, SHARE_SESSION_TIMEOUT_MS, SHARE_HEARTBEAT_INTERVAL_MS);
  const lock = own(config, SHARE_RECORD_LOCK_DURATION_MS) ?? share.recordLockDurationMs;
  const delivery = own(config, SHARE_DELIVERY_COUNT_LIMIT) ?? share.deliveryCountLimit;
  const locks = own(config, SHARE_PARTITION_MAX_RECORD_LOCKS) ?? share.partitionMaxRecordLocks;
  const ge = (key: string, v: number, min: number, minKey: string | null) => [v >= min, `${key} must be greater than or equal to ${minKey === null ? min : `${minKey} (${min})`}`] as const;
  const le = (key: string, v: number, max: number, maxKey: string | null) => [v <= max, `${key} must be less than or equal to ${maxKey === null ? max : `${maxKey} (${max})`}`] as const;
  const [minDelivery, maxDelivery] = SHARE_DELIVERY_COUNT_LIMIT_BOUNDS;
  const [minLocks, maxLocks] = SHARE_PARTITION_MAX_RECORD_LOCKS_BOUNDS;
  const rules: (readonly [boolean, string])[] = [
    ge(CONSUMER_HEARTBEAT_INTERVAL_MS, consumer.heartbeatIntervalMs, t.minHeartbeatIntervalMs, TIMEOUT_KEYS.minHeartbeatIntervalMs),
    le(CONSUMER_HEARTBEAT_INTERVAL_MS, consumer.heartbeatIntervalMs, t.maxHeartbeatIntervalMs, TIMEOUT_KEYS.maxHeartbeatIntervalMs),
    ge(CONSUMER_SESSION_TIMEOUT_MS, consumer.sessionTimeoutMs, t.minSessionTimeoutMs, TIMEOUT_KEYS.minSessionTimeoutMs),
    le(CONSUMER_SESSION_TIMEOUT_MS, consumer.sessionTimeoutMs, t.maxSessionTimeoutMs, TIMEOUT_KEYS.maxSessionTimeoutMs),
    ge(SHARE_HEARTBEAT_INTERVAL_MS, shared.heartbeatIntervalMs, share.minHeartbeatIntervalMs, SHARE_BOUND_KEYS.minHeartbeatIntervalMs),
    le(SHARE_HEARTBEAT_INTERVAL_MS, shared.heartbeatIntervalMs, share.maxHeartbeatIntervalMs, SHARE_BOUND_KEYS.maxHeartbeatIntervalMs),
    ge(SHARE_SESSION_TIMEOUT_MS, shared.sessionTimeoutMs, share.minSessionTimeoutMs, SHARE_BOUND_KEYS.minSessionTimeoutMs),
    le(SHARE_SESSION_TIMEOUT_MS, shared.sessionTimeoutMs, share.maxSessionTimeoutMs, SHARE_BOUND_KEYS.maxSessionTimeoutMs),
    ge(SHARE_RECORD_LOCK_DURATION_MS, lock, share.minRecordLockDurationMs, SHARE_BOUND_KEYS.minRecordLockDurationMs),
    le(SHARE_RECORD_LOCK_DURATION_MS, lock, share.maxRecordLockDurationMs, SHARE_BOUND_KEYS.maxRecordLockDurationMs),
    ge(SHARE_DELIVERY_COUNT_LIMIT, delivery, minDelivery, null),
    le(SHARE_DELIVERY_COUNT_LIMIT, delivery, maxDelivery, null),
    ge(SHARE_PARTITION_MAX_RECORD_LOCKS, locks, minLocks, null),
    le(SHARE_PARTITION_MAX_RECORD_LOCKS, locks, maxLocks, null),
    [consumer.sessionTimeoutMs > consumer.heartbeatIntervalMs, `${CONSUMER_SESSION_TIMEOUT_MS} must be greater than ${CONSUMER_HEARTBEAT_INTERVAL_MS}`],
    [shared.sessionTimeoutMs > shared.heartbeatIntervalMs, `${SHARE_SESSION_TIMEOUT_MS} must be greater than ${SHARE_HEARTBEAT_INTERVAL_MS}`],
  ];
  return rules.find(([ok]) => !ok)?.[1] ?? null;
}

/**
 * A group's session timeout and heartbeat interval: its own values over the broker's. The
 * consumer keys by default; `sessionKey` and `heartbeatKey` name another group type's.
 */
export function effectiveGroupTimeouts(
  config: Readonly<Record<string, string>> | undefined,
  defaults: { sessionTimeoutMs: number; heartbeatIntervalMs: number },
  sessionKey = CONSUMER_SESSION_TIMEOUT_MS,
  heartbeatKey = CONSUMER_HEARTBEAT_INTERVAL_MS,
): { sessionTimeoutMs: number; heartbeatIntervalMs: number } {
  return {
    sessionTimeoutMs: own(config, sessionKey) ?? defaults.sessionTimeoutMs,
    heartbeatIntervalMs: own(config, heartbeatKey) ?? defaults.heartbeatIntervalMs,
  };
}
