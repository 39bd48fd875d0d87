/**
 * Kafka's rules for creating topics and partitions, as `validateX` functions that return an
 * error (errorCode + errorMessage) or null, and never throw:
 *  - names: [a-zA-Z0-9._-], 1..249 characters, not '.' or '..' (INVALID_TOPIC_EXCEPTION), and not
 *    colliding with an existing topic once '.' and '_' are treated alike (as in metric names);
 *  - partition counts >= 1 (INVALID_PARTITIONS), and at most 10,000 new partitions in one request
 *    (POLICY_VIOLATION, as Kafka's controller);
 *  - 1 <= replication factor <= eligible brokers (INVALID_REPLICATION_FACTOR);
 *  - explicit assignments: same size, no duplicates, only eligible brokers (INVALID_REPLICA_ASSIGNMENT);
 *  - config keys: the storage log keys (cleanup.policy and the compaction settings among them)
 *    plus min.insync.replicas, unclean.leader.election.enable, compression.type and the
 *    replication throttles' leader/follower.replication.throttled.replicas; unknown keys and bad
 *    values are INVALID_CONFIG naming the key.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { COMPRESSION_TYPES } from '../../src/protocol/recompress.js';
import { compressionLevelProblem, compressionLevelRange, type LeveledCodec } from '../../src/protocol/compression.js';
import { ConfigError, LOG_CONFIG_KEYS, parseLogConfig } from '../../src/storage/log-config.js';
import { throttledReplicasProblem } from '../../src/storage/throttled-replicas.js';

export interface ValidationError {
  readonly errorCode: number;
  readonly errorMessage: string;
}

export const MAX_TOPIC_NAME_LENGTH = 249;
/** Kafka's partition count and replication factor are int32 and int16 on the wire. */
const MAX_PARTITIONS = 2 ** 31 - 1;
const MAX_REPLICATION_FACTOR = 32767;

export const INTERNAL_TOPICS: readonly string[] = Object.freeze(['__consumer_offsets', '__transaction_state', '__share_group_state']);

export const TOPIC_CONFIG_KEYS: readonly string[] = Object.freeze([
  ...LOG_CONFIG_KEYS,
  'min.insync.replicas',
  'unclean.leader.election.enable',
  'compression.type',
  'compression.gzip.level',
  'compression.lz4.level',
  'compression.zstd.level',
  'leader.replication.throttled.replicas',
  'follower.replication.throttled.replicas',
]);
const LEGAL_NAME = /^[a-zA-Z0-9._-]+$/;

function error(errorCode: number, errorMessage: string): ValidationError {
  return { errorCode, errorMessage };
}

export function isInternalTopic(name: string): boolean {
  return INTERNAL_TOPICS.includes(name);
}

export function validateTopicName(name: unknown): ValidationError | null {
  if (typeof name !== 'string') return error(ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic name must be a string');
  if (name.length === 0) return error(ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty");
  if (name === '.' || name === '..') return error(ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic name cannot be "." or ".."');
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    return error(
      ErrorCode.INVALID_TOPIC_EXCEPTION,
      `Topic name is illegal, it can't be longer than ${MAX_TOPIC_NAME_LENGTH} characters (it has ${name.length})`,
    );
  }
  if (!LEGAL_NAME.test(name)) {
    return error(
      ErrorCode.INVALID_TOPIC_EXCEPTION,
      `Topic name ${JSON.stringify(name)} is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`,
    );
  }
  return null;
}

/** A name that differs from an existing one only by '.' versus '_' would share its metric names. */
export function validateNoCollision(name: string, existing: Iterable<string>): ValidationError | null {
  if (!name.includes('.') && !name.includes('_')) return null;
  const key = name.replace(/\./g, '_');
  for (const other of existing) {
    if (other !== name && other.replace(/\./g, '_') === key) {
      return error(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${other}`);
    }
  }
  return null;
}

/**
 * The most partitions one CreateTopics or CreatePartitions may add, as Kafka's controller
 * (ReplicationControlManager.MAX_PARTITIONS_PER_BATCH, and the bound on the records of one
 * operation): more are refused before any placement is worked out, which for a count near 2^31
 * would take all the memory there is.
 */
export const MAX_NEW_PARTITIONS_PER_REQUEST = 10_000;

/** Kafka's answer to a request over MAX_NEW_PARTITIONS_PER_REQUEST. */
export const TOO_MANY_NEW_PARTITIONS: ValidationError = Object.freeze({
  errorCode: ErrorCode.POLICY_VIOLATION,
  errorMessage: 'Excessively large number of partitions per request.',
});

/**
 * The partitions a CreateTopics asks for, at most, counted as Kafka's controller does before it
 * looks at anything else (validateTotalNumberOfPartitions): a topic's assignments, else its
 * numPartitions (`defaultNumPartitions` for none or -1; nothing for a count refused later on its
 * own). Over MAX_NEW_PARTITIONS_PER_REQUEST: TOO_MANY_NEW_PARTITIONS.
 */
export function validateNewPartitionTotal(topics: readonly unknown[], defaultNumPartitions: number): ValidationError | null {
  let total = 0;
  for (const t of topics) {
    if (typeof t !== 'object' || t === null) continue;
    const { assignments, numPartitions } = t as { assignments?: unknown; numPartitions?: unknown };
    if (Array.isArray(assignments) && assignments.length > 0) total += assignments.length;
    else if (numPartitions === undefined || numPartitions === null || numPartitions === -1) total += defaultNumPartitions;
    else if (typeof numPartitions === 'number' && numPartitions > 0) total += numPartitions;
  }
  return total > MAX_NEW_PARTITIONS_PER_REQUEST ? TOO_MANY_NEW_PARTITIONS : null;
}

export function validatePartitionCount(count: unknown): ValidationError | null {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_PARTITIONS) {
    return error(ErrorCode.INVALID_PARTITIONS, `Number of partitions must be an integer >= 1, got ${String(count)}`);
  }
  return null;
}

export function validateReplicationFactor(rf: unknown, eligibleBrokers: number): ValidationError | null {
  if (typeof rf !== 'number' || !Number.isInteger(rf) || rf < 1 || rf > MAX_REPLICATION_FACTOR) {
    return error(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Replication factor must be an integer in [1, ${MAX_REPLICATION_FACTOR}], or -1 for the default; got ${String(rf)}`,
    );
  }
  if (rf > eligibleBrokers) {
    return error(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Replication factor ${rf} is larger than the ${eligibleBrokers} available (registered, unfenced) broker(s)`,
    );
  }
  return null;
}

/** Explicit placement: partition index -> broker ids, preferred leader first. */
export function validateAssignments(assignments: unknown, eligibleBrokerIds: readonly number[]): ValidationError | null {
  if (!Array.isArray(assignments) || assignments.length === 0) {
    return error(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'assignments must be a non-empty array of broker id arrays');
  }
  if (assignments.length > MAX_PARTITIONS) return error(ErrorCode.INVALID_PARTITIONS, 'too many partitions');
  let size = -1;
  for (let p = 0; p < assignments.length; p++) {
    const replicas: unknown = assignments[p];
    if (!Array.isArray(replicas) || replicas.length === 0) {
      return error(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `partition ${p}: the replica list must be a non-empty array`);
    }
    for (const id of replicas) {
      if (typeof id !== 'number' || !Number.isInteger(id)) {
        return error(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `partition ${p}: broker id ${String(id)} is not an integer`);
      }
      if (!eligibleBrokerIds.includes(id)) {
        return error(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `partition ${p}: broker ${id} is not registered or is fenced`);
      }
    }
    if (new Set(replicas).size !== replicas.length) {
      return error(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `partition ${p}: duplicate brokers in ${JSON.stringify(replicas)}`);
    }
    if (size >= 0 && replicas.length !== size) {
      return error(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `partition ${p}: all partitions must have the same number of replicas (${size})`);
    }
    size = replicas.length;
  }
  if (size > MAX_REPLICATION_FACTOR) return error(ErrorCode.INVALID_REPLICATION_FACTOR, `replication factor ${size} is too large`);
  return null;
}

function invalidConfig(key: string, message: string): ValidationError {
  return error(ErrorCode.INVALID_CONFIG, `${key}: ${message}`);
}

function parseBooleanConfig(raw: string | number | boolean): boolean | null {
  if (typeof raw === 'boolean') return raw;
  const s = String(raw).trim().toLowerCase();
  return s === 'true' ? true : s === 'false' ? false : null;
}

/** Checks one key and returns the value to store, or an error. */
function validateConfigEntry(key: string, raw: unknown): { value: string | number } | ValidationError {
  if (raw === null || raw === undefined) return invalidConfig(key, 'null value not supported for topic configs');
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    return invalidConfig(key, `expected a string or a number, got ${Array.isArray(raw) ? 'array' : typeof raw}`);
  }
  if (LOG_CONFIG_KEYS.includes(key)) {
    let parsed;
    try {
      parsed = parseLogConfig({ [key]: raw });
    } catch (err) {
      if (err instanceof ConfigError) return error(ErrorCode.INVALID_CONFIG, err.message);
      throw err;
    }
    // a list is stored in its one spelling ("Delete, compact" -> "compact,delete")
    if (key === 'cleanup.policy') return { value: parsed.cleanupPolicy };
    return { value: typeof raw === 'boolean' ? String(raw) : raw };
  }
  switch (key) {
    case 'min.insync.replicas': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(n) || n < 1 || n > MAX_PARTITIONS) return invalidConfig(key, `${JSON.stringify(raw)} is not valid: must be an integer >= 1`);
      return { value: raw as string | number };
    }
    case 'unclean.leader.election.enable': {
      const b = parseBooleanConfig(raw);
      if (b === null) return invalidConfig(key, `${JSON.stringify(raw)} is not valid: must be true or false`);
      return { value: String(b) };
    }
    case 'compression.type': {
      const v = String(raw).trim().toLowerCase();
      if (!COMPRESSION_TYPES.includes(v)) {
        return invalidConfig(key, `${JSON.stringify(raw)} is not valid: must be one of ${COMPRESSION_TYPES.join(', ')}`);
      }
      return { value: v };
    }
    case 'compression.gzip.level':
    case 'compression.lz4.level':
    case 'compression.zstd.level': {
      // KIP-390: the level the topic's compression.type codec recompresses at
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
      const codec: LeveledCodec = key === 'compression.gzip.level' ? 'gzip' : key === 'compression.lz4.level' ? 'lz4' : 'zstd';
      if (compressionLevelProblem(codec, n)) return invalidConfig(key, `${JSON.stringify(raw)} is not valid: ${compressionLevelRange(codec)}`);
      return { value: String(n) };
    }
    case 'leader.replication.throttled.replicas':
    case 'follower.replication.throttled.replicas': {
      const problem = throttledReplicasProblem(String(raw));
      if (problem) return invalidConfig(key, problem);
      // one spelling: no spaces
      return { value: String(raw).replace(/\s+/g, '') };
    }
    default:
      return invalidConfig(key, `unknown topic config name (known: ${TOPIC_CONFIG_KEYS.join(', ')})`);
  }
}

/** Checks topic config overrides: the first unknown key or bad value, naming its key, or null. */
export function validateTopicConfig(config: unknown): ValidationError | null {
  if (config === undefined || config === null) return null;
  if (typeof config !== 'object' || Array.isArray(config) || config instanceof Uint8Array) {
    return error(ErrorCode.INVALID_CONFIG, 'config must be a map of Kafka config names to values');
  }
  for (const [key, raw] of Object.entries(config as Record<string, unknown>)) {
    const r = validateConfigEntry(key, raw);
    if ('errorCode' in r) return r;
  }
  return null;
}

/**
 * The config to store for overrides that passed `validateTopicConfig`: booleans as
 * 'true'/'false', enum values lower-cased, numbers and other strings as given.
 */
export function normalizeTopicConfig(config: unknown): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (typeof config !== 'object' || config === null) return out;
  for (const [key, raw] of Object.entries(config as Record<string, unknown>)) {
    const r = validateConfigEntry(key, raw);
    if ('value' in r) out[key] = r.value;
  }
  return out;
}
