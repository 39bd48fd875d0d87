/**
 * Per-log configuration with Kafka's topic-level names and defaults (segment.bytes, retention.ms,
 * flush.messages, ...). `parseLogConfig` validates raw key/value input (from a topology file,
 * CreateTopics configs or tests) and throws a `ConfigError` naming the offending key.
 */

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
  }
}

export type TimestampType = 'CreateTime' | 'LogAppendTime';

/** cleanup.policy, normalized: which of Kafka's two cleanups run on the log. */
export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete';

/** Validated configuration of one partition log. "Never" (Kafka's Long.MAX_VALUE) is Infinity. */
export interface LogConfig {
  /** segment.bytes: roll the active segment when it would grow past this size. */
  readonly segmentBytes: number;
  /** segment.ms: roll when the active segment's first batch is older than this. */
  readonly segmentMs: number;
  /** segment.index.bytes: max size of an offset index (and time index) before a roll. */
  readonly segmentIndexBytes: number;
  /** index.interval.bytes: appended bytes between two offset index entries. */
  readonly indexIntervalBytes: number;
  /** retention.ms: delete segments whose newest timestamp is older; Infinity keeps forever. */
  readonly retentionMs: number;
  /** retention.bytes: delete oldest segments while the log is larger; Infinity = no limit. */
  readonly retentionBytes: number;
  /** flush.messages: fsync after this many unflushed messages. */
  readonly flushMessages: number;
  /** flush.ms: fsync when the last flush is older than this. */
  readonly flushMs: number;
  /** message.timestamp.type: keep the producer's timestamps or stamp the append time. */
  readonly messageTimestampType: TimestampType;
  /** max.message.bytes: largest record batch accepted. */
  readonly maxMessageBytes: number;
  /** cleanup.policy: delete old segments by retention, compact to the latest record per key, or both. */
  readonly cleanupPolicy: CleanupPolicy;
  /**
   * delete.retention.ms: how long compaction keeps a tombstone (a null value) after the pass that
   * first kept it, which writes the time it may go into its batch (KIP-534's delete horizon).
   */
  readonly deleteRetentionMs: number;
  /** min.cleanable.dirty.ratio: the share of uncompacted bytes at which the cleaner compacts the log. */
  readonly minCleanableDirtyRatio: number;
  /** min.compaction.lag.ms: records younger than this are not compacted. */
  readonly minCompactionLagMs: number;
  /** max.compaction.lag.ms: a log whose oldest uncompacted record is older is compacted whatever its dirty ratio. */
  readonly maxCompactionLagMs: number;
}

/** The log deletes old segments by retention.ms / retention.bytes. */
export function deletesByRetention(config: LogConfig): boolean {
  return config.cleanupPolicy !== 'compact';
}

/** The log is compacted (and its records need keys). */
export function isCompacted(config: LogConfig): boolean {
  return config.cleanupPolicy !== 'delete';
}

/**
 * How old the active segment may grow before it rolls: segment.ms, or max.compaction.lag.ms when
 * the log is compacted and that is sooner (Kafka's maxSegmentMs), since the cleaner never touches
 * the active segment.
 */
export function rollAfterMs(config: LogConfig): number {
  return isCompacted(config) ? Math.min(config.segmentMs, config.maxCompactionLagMs) : config.segmentMs;
}

/** Raw input: Kafka key -> number, numeric string or enum string. */
export type LogConfigInput = Readonly<Record<string, unknown>>;

/** Kafka's Long.MAX_VALUE, as it appears in configuration. */
export const KAFKA_LONG_MAX = '9223372036854775807';

const INT32_MAX = 2 ** 31 - 1;

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

interface KeySpec {
  readonly prop: keyof LogConfig;
  /** Parses and range-checks a raw value. */
  readonly parse: (raw: unknown) => Parsed<number | string>;
}

/**
 * Reads an integer (number, bigint or decimal string). Values at or above 2^53 (Kafka's
 * Long.MAX_VALUE included) become Infinity when `bigIsNever` is set.
 */
function readInteger(raw: unknown, bigIsNever: boolean): Parsed<number> {
  let value: number;
  if (typeof raw === 'number') {
    value = raw;
  } else if (typeof raw === 'bigint') {
    value = Number(raw);
  } else if (typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw)) {
    value = Number(raw.trim());
  } else {
    return { ok: false, message: `expected an integer, got ${JSON.stringify(String(raw))}` };
  }
  if (value === Infinity && bigIsNever) return { ok: true, value: Infinity };
  if (!Number.isFinite(value) || !Number.isInteger(value)) {
    return { ok: false, message: `expected an integer, got ${String(raw)}` };
  }
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
    if (bigIsNever && value > 0) return { ok: true, value: Infinity };
    return { ok: false, message: `${String(raw)} is out of range` };
  }
  return { ok: true, value };
}

function intSpec(prop: keyof LogConfig, min: number, max: number, opts: { minusOneIsNever?: boolean; bigIsNever?: boolean } = {}): KeySpec {
  return {
    prop,
    parse(raw) {
      const r = readInteger(raw, opts.bigIsNever ?? false);
      if (!r.ok) return r;
      if (r.value === -1 && opts.minusOneIsNever) return { ok: true, value: Infinity };
      if (r.value === Infinity) return r;
      if (r.value < min || r.value > max) {
        const range = max === Infinity ? `>= ${min}` : `in [${min}, ${max}]`;
        return { ok: false, message: `${r.value} is not valid: must be ${range}${opts.minusOneIsNever ? ' or -1' : ''}` };
      }
      return r;
    },
  };
}

/** Reads cleanup.policy: delete, compact or both, as a comma-separated list (or an array). */
function parseCleanupPolicy(raw: unknown): Parsed<CleanupPolicy> {
  const items = (Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(',') : [])
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  const known = items.every((s) => s === 'delete' || s === 'compact');
  if (items.length === 0 || !known || new Set(items).size !== items.length) {
    return { ok: false, message: `${JSON.stringify(Array.isArray(raw) ? raw.join(',') : String(raw))} is not valid: must be delete, compact or both (comma-separated)` };
  }
  if (items.length === 2) return { ok: true, value: 'compact,delete' };
  return { ok: true, value: items[0] as 'delete' | 'compact' };
}

/** Reads a ratio in [0, 1] (number or decimal string). */
function parseRatio(raw: unknown): Parsed<number> {
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*[+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(value) || value < 0 || value > 1) return { ok: false, message: `${JSON.stringify(String(raw))} is not valid: must be a number in [0, 1]` };
  return { ok: true, value };
}

const SPECS: Readonly<Record<string, KeySpec>> = {
  // A segment must hold at least one batch header; positions in the offset index are int32.
  'segment.bytes': intSpec('segmentBytes', 14, INT32_MAX),
  'segment.ms': intSpec('segmentMs', 1, Infinity, { bigIsNever: true }),
  'segment.index.bytes': intSpec('segmentIndexBytes', 12, INT32_MAX),
  'index.interval.bytes': intSpec('indexIntervalBytes', 0, INT32_MAX),
  'retention.ms': intSpec('retentionMs', 0, Infinity, { minusOneIsNever: true, bigIsNever: true }),
  'retention.bytes': intSpec('retentionBytes', 0, Infinity, { minusOneIsNever: true, bigIsNever: true }),
  'flush.messages': intSpec('flushMessages', 1, Infinity, { bigIsNever: true }),
  'flush.ms': intSpec('flushMs', 0, Infinity, { bigIsNever: true }),
  'message.timestamp.type': {
    prop: 'messageTimestampType',
    parse(raw) {
      if (raw === 'CreateTime' || raw === 'LogAppendTime') return { ok: true, value: raw };
      return { ok: false, message: `${JSON.stringify(String(raw))} is not valid: must be CreateTime or LogAppendTime` };
    },
  },
  'max.message.bytes': intSpec('maxMessageBytes', 0, INT32_MAX),
  'cleanup.policy': { prop: 'cleanupPolicy', parse: parseCleanupPolicy },
  'delete.retention.ms': intSpec('deleteRetentionMs', 0, Infinity, { bigIsNever: true }),
  'min.cleanable.dirty.ratio': { prop: 'minCleanableDirtyRatio', parse: parseRatio },
  'min.compaction.lag.ms': intSpec('minCompactionLagMs', 0, Infinity, { bigIsNever: true }),
  'max.compaction.lag.ms': intSpec('maxCompactionLagMs', 1, Infinity, { bigIsNever: true }),
};

/** The Kafka names this module understands. */
export const LOG_CONFIG_KEYS: readonly string[] = Object.freeze(Object.keys(SPECS));

export const DEFAULT_LOG_CONFIG: LogConfig = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  segmentMs: 7 * 24 * 60 * 60 * 1000,
  segmentIndexBytes: 10 * 1024 * 1024,
  indexIntervalBytes: 4096,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  retentionBytes: Infinity,
  flushMessages: Infinity,
  flushMs: Infinity,
  messageTimestampType: 'CreateTime',
  maxMessageBytes: 1048588,
  cleanupPolicy: 'delete',
  deleteRetentionMs: 24 * 60 * 60 * 1000,
  minCleanableDirtyRatio: 0.5,
  minCompactionLagMs: 0,
  maxCompactionLagMs: Infinity,
});

/**
 * Validates `input` (Kafka keys) over `base` and returns the resulting config. Throws
 * `ConfigError` for an unknown key or a bad value, naming the key.
 */
export function parseLogConfig(input: LogConfigInput = {}, base: LogConfig = DEFAULT_LOG_CONFIG): LogConfig {
  const out: Record<string, unknown> = { ...base };
  for (const [key, raw] of Object.entries(input)) {
    const spec = SPECS[key];
    if (!spec) {
      throw new ConfigError(key, `unknown log config key (known: ${LOG_CONFIG_KEYS.join(', ')})`);
    }
    if (raw === undefined || raw === null) throw new ConfigError(key, 'missing value');
    const parsed = spec.parse(raw);
    if (!parsed.ok) throw new ConfigError(key, parsed.message);
    out[spec.prop] = parsed.value;
  }
  return Object.freeze(out) as unknown as LogConfig;
}

/** The config as Kafka key/value pairs (Infinity written back as -1 or Long.MAX_VALUE). */
export function logConfigToKafka(config: LogConfig): Record<string, string> {
  const long = (v: number): string => (v === Infinity ? KAFKA_LONG_MAX : String(v));
  const orMinusOne = (v: number): string => (v === Infinity ? '-1' : String(v));
  return {
    'segment.bytes': String(config.segmentBytes),
    'segment.ms': long(config.segmentMs),
    'segment.index.bytes': String(config.segmentIndexBytes),
    'index.interval.bytes': String(config.indexIntervalBytes),
    'retention.ms': orMinusOne(config.retentionMs),
    'retention.bytes': orMinusOne(config.retentionBytes),
    'flush.messages': long(config.flushMessages),
    'flush.ms': long(config.flushMs),
    'message.timestamp.type': config.messageTimestampType,
    'max.message.bytes': String(config.maxMessageBytes),
    'cleanup.policy': config.cleanupPolicy,
    'delete.retention.ms': long(config.deleteRetentionMs),
    'min.cleanable.dirty.ratio': String(config.minCleanableDirtyRatio),
    'min.compaction.lag.ms': long(config.minCompactionLagMs),
    'max.compaction.lag.ms': long(config.maxCompactionLagMs),
  };
}
