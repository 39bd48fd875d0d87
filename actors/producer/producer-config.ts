/**
 * Producer configuration with Kafka's names and defaults. Unknown keys and bad values are
 * rejected with a message naming the key.
 */
import { boolValue, intValue, stringValue, type ValueResult } from '../../src/client/config-values.js';
import { COMPRESSION_LEVELS, compressionId, compressionLevelProblem, compressionName, isCodecSupported, isLeveledCodec, UnsupportedCompressionError } from '../../src/protocol/compression.js';

export interface ProducerConfig {
  clientId: string;
  acks: 0 | 1 | -1;
  batchSize: number;
  lingerMs: number;
  bufferMemory: number;
  /** compression.type: none, gzip, snappy, lz4, zstd, or a codec added with registerCodec. */
  compressionType: string;
  /** compression.gzip.level, compression.lz4.level, compression.zstd.level (KIP-390): the level of each codec, used when it is compression.type. */
  gzipLevel: number;
  lz4Level: number;
  zstdLevel: number;
  requestTimeoutMs: number;
  retries: number;
  retryBackoffMs: number;
  deliveryTimeoutMs: number;
  maxInFlight: number;
  maxBlockMs: number;
  maxRequestSize: number;
  metadataMaxAgeMs: number;
  /**
   * enable.idempotence: each partition's batches carry this producer's id and sequence numbers,
   * so a retried batch is written once and order holds with up to 5 requests in flight. Needs
   * acks=all, retries > 0 and max.in.flight.requests.per.connection <= 5, as in Kafka.
   */
  idempotent: boolean;
  /**
   * partitioner.sticky.bytes (samsa's): how many bytes of batches keyless records put into one
   * partition before they move to another. Kafka's built-in partitioner moves after batch.size
   * bytes (set this to batch.size or less for that). samsa's default, 128 KiB, is eight default
   * batches: the batches of such a run travel in one request entry, which the leader appends
   * with one write and one replica turn where single batches spread over many partitions cost
   * one each (a saturated producer's entries carry 7-12 batches at 6 partitions, where batches
   * queue up on their own, and one at 1,000 without runs). Runs are made of full batches (each
   * counts as batch.size): a batch sent before it was full, when linger.ms was up, ends the run,
   * so a producer that is not filling batches moves on after each batch as before.
   */
  stickyBytes: number;
  /**
   * partitioner.adaptive.partitioning.enable (Kafka's, default true): keyless records move to a
   * partition drawn in favour of those with fewer batches waiting to be sent, so a leader that
   * is behind gets fewer of them.
   */
  adaptivePartitioning: boolean;
  /**
   * transactional.id: the producer writes in transactions (KIP-98) under this id, which fences
   * earlier producers with the same id. Implies enable.idempotence. null: not transactional.
   */
  transactionalId: string | null;
  /** transaction.timeout.ms: the coordinator aborts a transaction left open this long (Kafka: 60000). */
  transactionTimeoutMs: number;
  /** metrics.sample.window.ms: the window of one sample of the producer's metrics (Kafka: 30000). */
  metricsSampleWindowMs: number;
  /** metrics.num.samples: the samples the metrics' averages, maxima and rates cover (Kafka: 2). */
  metricsNumSamples: number;
  /**
   * enable.metrics.push (Kafka's, default true): push the producer's metrics to the brokers when
   * a client metrics subscription asks for them (KIP-714, src/client/telemetry-loop.ts).
   */
  enableMetricsPush: boolean;
}

export class ProducerConfigError extends Error {
  override name = 'ProducerConfigError';
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
  }
}

function take<T>(key: string, r: ValueResult<T>): T {
  if (!r.ok) throw new ProducerConfigError(key, r.message);
  return r.value;
}

type Spec = { prop: keyof ProducerConfig; kind: 'int' | 'acks' | 'compression' | 'string' | 'bool' | 'gzip' | 'lz4' | 'zstd'; min?: number; def: unknown };

/** A codec name this build can compress with (Kafka's names, or one added with registerCodec). */
function compressionValue(key: string, raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  let id = -1;
  try {
    id = compressionId(name);
  } catch (e) {
    if (!(e instanceof UnsupportedCompressionError)) throw e;
  }
  if (id < 0 || !isCodecSupported(id)) {
    const built = [0, 1, 2, 3, 4, 5, 6, 7].filter(isCodecSupported).map(compressionName);
    throw new ProducerConfigError(key, `${JSON.stringify(raw)} is not supported: use one of ${built.join(', ')}`);
  }
  return name;
}

const SPECS: Record<string, Spec> = {
  'client.id': { prop: 'clientId', kind: 'string', def: 'samsa-producer' },
  acks: { prop: 'acks', kind: 'acks', def: -1 },
  'batch.size': { prop: 'batchSize', kind: 'int', min: 0, def: 16_384 },
  'linger.ms': { prop: 'lingerMs', kind: 'int', min: 0, def: 0 },
  'buffer.memory': { prop: 'bufferMemory', kind: 'int', min: 1, def: 32 * 1024 * 1024 },
  'compression.type': { prop: 'compressionType', kind: 'compression', def: 'none' },
  'compression.gzip.level': { prop: 'gzipLevel', kind: 'gzip', def: COMPRESSION_LEVELS.gzip.default },
  'compression.lz4.level': { prop: 'lz4Level', kind: 'lz4', def: COMPRESSION_LEVELS.lz4.default },
  'compression.zstd.level': { prop: 'zstdLevel', kind: 'zstd', def: COMPRESSION_LEVELS.zstd.default },
  'request.timeout.ms': { prop: 'requestTimeoutMs', kind: 'int', min: 0, def: 30_000 },
  retries: { prop: 'retries', kind: 'int', min: 0, def: 2_147_483_647 },
  'retry.backoff.ms': { prop: 'retryBackoffMs', kind: 'int', min: 0, def: 100 },
  'delivery.timeout.ms': { prop: 'deliveryTimeoutMs', kind: 'int', min: 1, def: 120_000 },
  'max.in.flight.requests.per.connection': { prop: 'maxInFlight', kind: 'int', min: 1, def: 5 },
  'max.block.ms': { prop: 'maxBlockMs', kind: 'int', min: 0, def: 60_000 },
  'max.request.size': { prop: 'maxRequestSize', kind: 'int', min: 1, def: 1_048_576 },
  'metadata.max.age.ms': { prop: 'metadataMaxAgeMs', kind: 'int', min: 0, def: 300_000 },
  'enable.idempotence': { prop: 'idempotent', kind: 'bool', def: false },
  'partitioner.sticky.bytes': { prop: 'stickyBytes', kind: 'int', min: 0, def: 131_072 },
  'partitioner.adaptive.partitioning.enable': { prop: 'adaptivePartitioning', kind: 'bool', def: true },
  'transactional.id': { prop: 'transactionalId', kind: 'string', def: null },
  'transaction.timeout.ms': { prop: 'transactionTimeoutMs', kind: 'int', min: 1, def: 60_000 },
  'metrics.sample.window.ms': { prop: 'metricsSampleWindowMs', kind: 'int', min: 1, def: 30_000 },
  'metrics.num.samples': { prop: 'metricsNumSamples', kind: 'int', min: 1, def: 2 },
  'enable.metrics.push': { prop: 'enableMetricsPush', kind: 'bool', def: true },
};

export const PRODUCER_CONFIG_KEYS = Object.freeze(Object.keys(SPECS));

/** The level the producer compresses its batches at: its codec's compression.<codec>.level (none for snappy and registered codecs). */
export function producerCompressionLevel(c: Pick<ProducerConfig, 'compressionType' | 'gzipLevel' | 'lz4Level' | 'zstdLevel'>): number | undefined {
  const levels = { gzip: c.gzipLevel, lz4: c.lz4Level, zstd: c.zstdLevel };
  return isLeveledCodec(c.compressionType) ? levels[c.compressionType] : undefined;
}

export function parseProducerConfig(input: Readonly<Record<string, unknown>> = {}): ProducerConfig {
  const out: Record<string, unknown> = {};
  for (const s of Object.values(SPECS)) out[s.prop] = s.def;
  for (const [key, raw] of Object.entries(input)) {
    const spec = SPECS[key];
    if (!spec) throw new ProducerConfigError(key, `unknown producer config key (known: ${PRODUCER_CONFIG_KEYS.join(', ')})`);
    if (raw === undefined) continue;
    switch (spec.kind) {
      case 'string':
        out[spec.prop] = take(key, stringValue(raw));
        break;
      case 'acks': {
        const v = raw === 'all' ? -1 : typeof raw === 'string' ? Number(raw) : raw;
        if (v !== 0 && v !== 1 && v !== -1) throw new ProducerConfigError(key, `must be 0, 1, -1 or "all", got ${JSON.stringify(raw)}`);
        out[spec.prop] = v;
        break;
      }
      case 'compression':
        out[spec.prop] = compressionValue(key, raw);
        break;
      case 'int':
        out[spec.prop] = take(key, intValue(raw, spec.min));
        break;
      case 'bool':
        out[spec.prop] = take(key, boolValue(raw));
        break;
      case 'gzip':
      case 'lz4':
      case 'zstd': {
        const level = take(key, intValue(raw));
        const problem = compressionLevelProblem(spec.kind, level);
        if (problem) throw new ProducerConfigError(key, problem);
        out[spec.prop] = level;
        break;
      }
    }
  }
  const c = out as unknown as ProducerConfig;
  if (c.transactionalId !== null) {
    // as Kafka: a transactional producer is idempotent; turning idempotence off is refused
    if (input['enable.idempotence'] !== undefined && !c.idempotent) throw new ProducerConfigError('enable.idempotence', 'must be true with transactional.id (a transactional producer is idempotent)');
    c.idempotent = true;
  }
  if (c.idempotent) {
    const why = c.transactionalId !== null ? 'transactional.id needs it' : 'enable.idempotence needs it';
    if (c.acks !== -1) throw new ProducerConfigError('acks', `must be "all" (-1) with enable.idempotence, got ${c.acks} (${why})`);
    if (c.retries < 1) throw new ProducerConfigError('retries', `must be at least 1 with enable.idempotence (${why})`);
    if (c.maxInFlight > 5) throw new ProducerConfigError('max.in.flight.requests.per.connection', `must be at most 5 with enable.idempotence, got ${c.maxInFlight} (${why})`);
  }
  return c;
}
