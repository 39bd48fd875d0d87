/**
 * Consumer throughput, like kafka-consumer-perf-test: prepares a topic (produces --records
 * records of --record-size bytes, untimed), then reads all of it from the beginning with
 * --consumers consumers in one group, and reports records/s and MiB/s.
 *
 * With --bootstrap-server it reads on a running cluster (lib/perf-target.ts): --topic naming an
 * existing topic reads what it holds (--records of it, or all of it: up to the end offsets it had
 * when the run began, which a transaction's markers or a compacted topic's gaps can reach with
 * fewer records than offsets) without preparing anything;
 * a new --topic is prepared and kept; without --topic the run prepares a topic of its own and
 * deletes it afterwards. The run's consumer group is deleted after it there too.
 *
 *   node --import tsx benchmarks/perf-consume.ts --records 2000000 --consumers 1
 *   node --import tsx benchmarks/perf-consume.ts --records 2000000 --consumers 3
 *
 * --group names the group (kept, reading on from its committed offsets and committing where it
 * stops); --from-latest reads the records produced while the run waits instead; --include reads
 * every topic of a running cluster whose name matches a pattern instead of one --topic. As
 * Kafka's tool, the run stops when no record came for --timeout ms, and reports what it read.
 *
 * Two clocks, as Kafka prints them: "fetch" runs from the first record received to the last
 * (the throughput figure), "total" also includes joining the group (rebalance). Consumers use
 * run({ eachBatch }) and only count; auto-commit is off. Raw limits as in perf-produce.
 */
import type { Consumer } from '../src/client/consumer.js';
import { CliError, UsageError } from '../src/cli/errors.js';
import { errorName } from '../src/protocol/errors.js';
import { cliFlags, flagOptions, type FlagSpecs, type ParsedFlags } from './lib/perf-args.js';
import type { PerfClients } from './lib/perf-cluster.js';
import { CONSUMER_KEYS_OF_FLAGS, CONSUMER_KEYS_OWNED, clientProps, foldFlagKeys } from './lib/perf-props.js';
import { parseConsumerConfig } from '../actors/consumer/consumer-config.js';
import { TARGET_FLAGS, chooseTopic, describeTopic, openTargetWithLimits, releaseTopic, topicOffsets, topicsMatching, type PerfTarget, type TopicChoice } from './lib/perf-target.js';
import { MiB, isMain, progress, recordValue, runMain } from './lib/perf-common.js';
import { measureRawLimits } from './lib/perf-raw.js';
import { benchEnvironment, writeResults } from './lib/results.js';
import { printTable } from './lib/table.js';
import { stealNotes, type CpuReport } from './lib/thread-cpu.js';
import type { TrafficReport } from './lib/traffic.js';
import { MeasuredStretch } from './lib/stretch.js';
import { formatNumber, nowMs, sleep } from './lib/timing.js';
import { defaultProduceOptions, produceRecords, topicConfig } from './perf-produce.js';
import { crc32cImplementation } from '../src/protocol/crc32c.js';
import type { ClientMetric } from '../src/client/metrics.js';
import { formatMetrics } from './lib/client-metrics.js';
import { DetailedStats } from './lib/detailed-stats.js';
import { KAFKA_DATE_FORMAT } from './lib/date-format.js';
import { dateFormatFlag, readingRows, refusePrepareFlags, topicPartitionKey } from './lib/consume-common.js';

export const CONSUME_FLAGS = {
  ...TARGET_FLAGS,
  records: { type: 'int', default: 1_000_000, min: 1, kafka: ['messages', 'num-records'], help: "records to prepare and read (an existing topic: to read; all it holds unless given)" },
  'record-size': { type: 'int', default: 100, min: 0, help: 'value bytes per prepared record' },
  partitions: { type: 'int', default: 6, min: 1, help: 'partitions of a new topic' },
  'replication-factor': { type: 'int', default: 1, min: 1, help: 'replicas per partition of a new topic' },
  consumers: { type: 'int', default: 1, min: 1, help: 'consumers in the group' },
  'from-latest': { type: 'bool', default: false, help: "read the records produced while the run waits (kafka-consumer-perf-test's --from-latest): a running cluster's --topic that something produces to; --records of them" },
  group: { type: 'string', default: '', help: "the consumer group (kafka-consumer-perf-test's --group): on a running cluster it reads from the group's committed offsets on, commits where it stopped, and is kept; none: a group of the run, deleted after it" },
  brokers: { type: 'int', default: 3, min: 1, help: 'brokers in the throw-away cluster' },
  transport: { type: 'string', default: 'worker', choices: ['inproc', 'worker', 'tcp'], help: "where the throw-away cluster's brokers run / how the client reaches them" },
  'batch-size': { type: 'int', default: 16_384, min: 1, help: 'batch.size of the producer preparing the topic (the batches the consumer reads)' },
  compression: { type: 'string', default: 'none', choices: ['none', 'gzip', 'snappy', 'lz4', 'zstd'], help: 'compression.type of the producer preparing the topic (the consumer decompresses each batch)' },
  'max-poll-records': { type: 'int', default: 10_000, min: 1, help: 'consumer max.poll.records' },
  'max-partition-fetch-bytes': { type: 'int', default: 1_048_576, min: 1, kafka: ['fetch-size'], help: 'consumer max.partition.fetch.bytes' },
  'check-crcs': { type: 'bool', default: true, help: "consumer check.crcs (verify each batch's CRC-32C)" },
  'consumer-props': { type: 'list', default: [], kafka: ['command-property'], help: 'more consumer configs: key=value ... (fetch.min.bytes=65536 partition.assignment.strategy=roundrobin); a key of a flag above (bootstrap.servers, group.id, max.poll.records, ...) sets that flag' },
  'consumer-config': { type: 'string', default: '', kafka: ['consumer.config', 'command-config'], help: 'consumer configs from a Java .properties file; --consumer-props override its keys' },
  'show-detailed-stats': { type: 'bool', default: false, help: "print the progress every --reporting-interval in kafka-consumer-perf-test's columns (time, threadId, data.consumed.in.MB, MB.sec, ...)" },
  'reporting-interval': { type: 'int', default: 5_000, min: 1, help: 'ms between the lines of --show-detailed-stats' },
  'date-format': { type: 'string', default: KAFKA_DATE_FORMAT, help: "a java.text.SimpleDateFormat pattern for the time of --show-detailed-stats' lines (local time; Kafka's --date-format)" },
  'hide-header': { type: 'bool', default: false, help: "leave out --show-detailed-stats' header line (Kafka's --hide-header)" },
  'print-metrics': { type: 'bool', default: false, help: "print the consumers' metrics at the end (Kafka's consumer-fetch-manager-metrics: fetch-latency-avg, records-per-request-avg, ...; and commits and assigned partitions)" },
  include: { type: 'string', default: '', help: "instead of --topic, every topic whose whole name matches this regular expression (kafka-consumer-perf-test's --include), on a running cluster: what they hold is read (or --records of it); with --from-latest, topics created meanwhile join" },
  timeout: { type: 'int', default: 10_000, min: 1, help: "the longest wait in ms for the next record (kafka-consumer-perf-test's --timeout), the group join included: past it the run stops with a warning and reports what it read" },
  'timeout-ms': { type: 'int', default: 120_000, min: 1, help: 'give up (exit 1) when not everything is read by then' },
  raw: { type: 'bool', default: true, help: 'measure the raw limits in the same run (not against brokers on other hosts)' },
  json: { type: 'string', default: 'perf-consume', help: 'results file name under benchmarks/results/ (empty: none)' },
} satisfies FlagSpecs;

export interface ConsumeOptions {
  /** The topic to read; with `include`, the name the run's client and group are named for. */
  topic: string;
  /** Read every topic whose name matches instead (the consumers subscribe to the pattern). */
  include?: RegExp;
  records: number;
  recordSize: number;
  consumers: number;
  maxPollRecords: number;
  maxPartitionFetchBytes: number;
  timeoutMs: number;
  /**
   * Stop, as Kafka's tool, once no record has come for this long (from the start: the group join
   * counts), reporting what was read (`stalledMs` in the result); none: wait up to `timeoutMs`.
   */
  gapMs?: number;
  /** Consumer check.crcs (default true). */
  checkCrcs?: boolean;
  /** More consumer configs (--consumer-props), checked already. */
  consumerProps?: Record<string, string>;
  label?: string;
  /** Read the consumers' metrics at the end (--print-metrics). */
  metrics?: boolean;
  /** The group (--group); none: a fresh one named for the run. */
  groupId?: string;
  /** Commit where each consumer stopped, once everything was read (a named group on a kept topic). */
  commitAtEnd?: boolean;
  /** Start at the partitions' ends where the group has no committed offset (--from-latest). */
  fromLatest?: boolean;
  /** Kafka's detailed stats: a line every `everyMs` to `write` (--show-detailed-stats). */
  detailed?: { everyMs: number; write: (line: string) => void; formatTime?: (epochMs: number) => string; hideHeader?: boolean };
  /**
   * An existing topic read as it is: each partition's offsets when the run began. The run also
   * ends once every partition's position has reached its end, whatever it counted: a
   * transaction's control markers and a compacted topic's gaps take offsets but hold no record,
   * so the offsets can promise more records than there are.
   */
  ends?: readonly PartitionRange[];
}

/** A partition's offsets to read: from `low` up to `high`. */
export interface PartitionRange {
  topic: string;
  partition: number;
  low: number;
  high: number;
}

export interface ConsumeResult {
  /** The group the consumers formed (a fresh one per run). */
  groupId: string;
  /** Distinct records read. */
  records: number;
  /** Records delivered, redeliveries after a rebalance included. */
  delivered: number;
  bytes: number;
  consumers: number;
  /** First record to last. */
  fetchMs: number;
  /** From run() to the last record (joining the group included). */
  totalMs: number;
  recordsPerSec: number;
  mibPerSec: number;
  /** Where the CPU went from the first record to the last (null where threads cannot be read). */
  cpu: CpuReport | null;
  /** Posts (or socket reads and writes) between the client's node and the brokers meanwhile (null in-process). */
  traffic: TrafficReport | null;
  /** Each consumer's metrics once everything was read (--print-metrics). */
  metrics?: ClientMetric[][];
  /** The run stopped short of its records: none came for this long (`gapMs`). */
  stalledMs?: number;
}

/** Produces `records` records into an existing topic (untimed preparation), in batches of `compression`. */
export async function prepareTopic(cluster: PerfClients, topic: string, records: number, recordSize: number, batchSize = 16_384, compression = 'none'): Promise<void> {
  const client = await cluster.client(`perf-prepare-${topic}`);
  const p = client.producer({ acks: 1, 'batch.size': batchSize, 'linger.ms': 5, 'compression.type': compression });
  await p.connect();
  try {
    const value = recordValue(recordSize);
    const o = defaultProduceOptions({ topic, recordSize, records, sendSize: 500, maxInFlight: 128 });
    await produceRecords([p], o, records, null, () => value, { sent: 0, acked: 0 });
  } finally {
    await p.disconnect();
  }
}

let groupSeq = 0;

/** The consumers' config but the group: the tool's own settings, then --consumer-props. */
export function consumerConfigOf(o: Pick<ConsumeOptions, 'maxPollRecords' | 'maxPartitionFetchBytes' | 'checkCrcs' | 'consumerProps' | 'fromLatest'>): Record<string, unknown> {
  return {
    'enable.auto.commit': false,
    'auto.offset.reset': o.fromLatest ? 'latest' : 'earliest',
    'max.poll.records': o.maxPollRecords,
    'max.partition.fetch.bytes': o.maxPartitionFetchBytes,
    'check.crcs': o.checkCrcs ?? true,
    'fetch.max.wait.ms': 100,
    'session.timeout.ms': 10_000,
    'heartbeat.interval.ms': 500,
    ...o.consumerProps,
  };
}

/**
 * Reads `o.records` records of the topic with a group of consumers: from the beginning (or the
 * group's committed offsets), or with `fromLatest` the records produced from now on.
 */
export async function runConsume(cluster: PerfClients, o: ConsumeOptions): Promise<ConsumeResult> {
  const client = await cluster.client(`perf-consume-${o.topic}-${groupSeq}`);
  const groupId = o.groupId ?? `perf-group-${o.topic}-${groupSeq++}-${process.pid}`;
  const consumers: Consumer[] = [];
  /** Distinct records read (partition end offsets summed), and everything delivered. */
  let count = 0;
  let delivered = 0;
  /** Per partition (topicPartitionKey), the offset past the last record delivered. */
  const ends = new Map<string, number>();
  let bytes = 0;
  let first = 0;
  let last = 0;
  const stretch = new MeasuredStretch(client.system);
  /** When the last batch with a record not read before arrived. */
  let lastFresh = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((r) => (done = r));
  const finish = (at: number): void => {
    if (last !== 0) return;
    last = at;
    if (stretch.started) stretch.end();
    done();
  };
  // partitions read to their end (ends given); an empty one is there already
  const endOf = new Map((o.ends ?? []).map((e) => [topicPartitionKey(e.topic, e.partition), e.high]));
  const atEnd = new Set((o.ends ?? []).filter((e) => e.high <= e.low).map((e) => topicPartitionKey(e.topic, e.partition)));
  const t0 = nowMs();
  /** When a batch last came (the run's start before the first): Kafka's --timeout runs from it. */
  let lastDelivery = t0;
  let stalledMs: number | undefined;
  const stop = progress(o.label ?? 'consume', () => `${count} records read`, { fraction: () => count / o.records });
  let endWatch: ReturnType<typeof setInterval> | null = null;
  let gapWatch: ReturnType<typeof setInterval> | null = null;
  let metrics: ClientMetric[][] | undefined;
  let detailedTimer: ReturnType<typeof setInterval> | null = null;
  if (o.detailed) {
    const stats = new DetailedStats(t0, () => (first === 0 ? null : first), o.detailed.write, Date.now, o.detailed.formatTime);
    if (!o.detailed.hideHeader) stats.header();
    detailedTimer = setInterval(() => stats.tick(nowMs(), { bytes, records: delivered }), o.detailed.everyMs);
  }
  if (o.gapMs !== undefined) {
    const gapMs = o.gapMs;
    gapWatch = setInterval(() => {
      const now = nowMs();
      if (now - lastDelivery <= gapMs) return;
      stalledMs = gapMs;
      finish(lastFresh === 0 ? now : lastFresh);
    }, Math.min(100, gapMs));
  }
  try {
    for (let i = 0; i < o.consumers; i++) {
      // each consumer of a group its own client.id (its metrics' tag), unless the configs name one
      const c = client.consumer({ groupId, ...(o.consumers > 1 ? { 'client.id': `${client.clientId}-${i}` } : {}), ...consumerConfigOf(o) });
      await c.connect();
      await c.subscribe({ topic: o.include ?? o.topic, fromBeginning: !o.fromLatest });
      consumers.push(c);
    }
    for (const c of consumers) {
      await c.run({
        eachBatch: ({ batch }) => {
          // past the last record the group winds down (members leaving rebalance the rest,
          // which read again from the start, offsets not being committed): not measured
          if (last !== 0) return;
          if (batch.messages.length === 0) return;
          lastDelivery = nowMs();
          if (delivered === 0) {
            first = lastDelivery;
            stretch.start(first);
          }
          delivered += batch.messages.length;
          // a rebalance can deliver records again (at least once): count the ones past what
          // this partition delivered before
          const key = topicPartitionKey(batch.topic, batch.partition);
          const prev = ends.get(key) ?? 0;
          let fresh = 0;
          for (const m of batch.messages) {
            bytes += m.value?.length ?? 0;
            if (m.offset >= prev) fresh++;
          }
          if (fresh === 0) return;
          const next = batch.messages[batch.messages.length - 1]!.offset + 1;
          ends.set(key, next);
          count += fresh;
          lastFresh = nowMs();
          if (next >= (endOf.get(key) ?? Infinity)) atEnd.add(key);
          if (count >= o.records || (endOf.size > 0 && atEnd.size === endOf.size)) finish(lastFresh);
        },
      });
    }
    if (endOf.size > 0) {
      // a partition whose last offsets hold no record (a transaction's marker) ends with no
      // batch to say so: its position does, past the marker
      endWatch = setInterval(() => {
        void positionsAtEnd(consumers, endOf).then((reached) => {
          for (const p of reached) atEnd.add(p);
          if (atEnd.size === endOf.size) finish(lastFresh === 0 ? nowMs() : lastFresh);
        });
      }, 200);
    }
    const timedOut = await Promise.race([finished.then(() => false), sleep(o.timeoutMs).then(() => true)]);
    if (timedOut) throw new Error(`consumers read ${count} of ${o.records} records in ${o.timeoutMs} ms`);
    if (o.metrics) metrics = await Promise.all(consumers.map((c) => c.metrics()));
    if (o.commitAtEnd) await Promise.all(consumers.map((c) => commitPositions(c)));
  } finally {
    if (endWatch) clearInterval(endWatch);
    if (gapWatch) clearInterval(gapWatch);
    if (detailedTimer) clearInterval(detailedTimer);
    stop();
    for (const c of consumers) await c.disconnect().catch(() => undefined);
  }
  const fetchMs = Math.max(0.001, first === 0 ? 0 : last - first);
  const r: ConsumeResult = { groupId, records: count, delivered, bytes, consumers: o.consumers, fetchMs, totalMs: last - t0, recordsPerSec: (count * 1000) / fetchMs, mibPerSec: (bytes * (count / Math.max(1, delivered))) / MiB / (fetchMs / 1000), cpu: stretch.cpu(), traffic: stretch.traffic(count) };
  if (metrics) r.metrics = metrics;
  if (stalledMs !== undefined) r.stalledMs = stalledMs;
  return r;
}

/** Commits the positions the consumer has reached in the partitions assigned to it. */
async function commitPositions(c: Consumer): Promise<void> {
  const d = await c.describe();
  const offsets = d.assignment.filter((a) => a.position !== null).map((a) => ({ topic: a.topic, partition: a.partition, offset: a.position! }));
  if (offsets.length > 0) await c.commitOffsets(offsets);
}

/** The partitions (topicPartitionKey) whose position, in any of the consumers, has reached its end. */
async function positionsAtEnd(consumers: Consumer[], endOf: ReadonlyMap<string, number>): Promise<string[]> {
  const reached: string[] = [];
  for (const c of consumers) {
    const d = await c.describe().catch(() => null);
    for (const a of d?.assignment ?? []) {
      const key = topicPartitionKey(a.topic, a.partition);
      if (a.position !== null && a.position >= (endOf.get(key) ?? Infinity)) reached.push(key);
    }
  }
  return reached;
}

export const PERF_CONSUME_SUMMARY = 'Consumer throughput reading a topic, alone or in a group, on a running cluster (--bootstrap-server) or a throw-away one (like kafka-consumer-perf-test).';

/** How many records a run reads from an existing topic holding `available`: --records when given, else all. */
export function recordsToRead(topic: string, available: number, asked: number | null): number {
  if (available === 0) throw new CliError(`topic '${topic}' holds no records to read: produce some first (samsa perf-produce --topic ${topic}), or leave --topic out to read a prepared topic`);
  return recordsOf(`topic '${topic}' holds`, available, asked);
}

/** --records of `available` (`holding`: "topic 't' holds" for the message), or all of them. */
function recordsOf(holding: string, available: number, asked: number | null): number {
  if (asked === null) return available;
  if (asked > available) throw new CliError(`${holding} ${available} records, fewer than --records ${asked}: ask for at most ${available}, or leave --records out to read them all`);
  return asked;
}

/**
 * --include as a pattern the whole topic name must match, as Kafka's pattern subscription
 * matches (Java's Matcher.matches); its syntax is JavaScript's, which Kafka's usual patterns share.
 */
export function includePattern(source: string): RegExp {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch (e) {
    throw new UsageError(`--include '${source}' is not a regular expression: ${(e as Error).message}`);
  }
}

/** --date-format's formatter; it and --hide-header shape --show-detailed-stats' lines and nothing else. */
function detailedTimeFormat(f: ParsedFlags<typeof CONSUME_FLAGS>): (epochMs: number) => string {
  const shaping = (['date-format', 'hide-header', 'reporting-interval'] as const).filter((k) => f.given.has(k));
  if (!f['show-detailed-stats'] && shaping.length > 0) throw new UsageError(`${shaping.map((k) => `--${k}`).join(', ')} ${shaping.length === 1 ? 'shapes' : 'shape'} the lines of --show-detailed-stats: add it`);
  return dateFormatFlag(f['date-format']);
}

/** What a run reads: one topic (chosen, created or prepared) or the topics --include matches. */
type ReadTarget = { kind: 'topic'; topic: TopicChoice } | { kind: 'include'; source: string; pattern: RegExp; topics: TopicChoice[] };

/** The tool with its flags parsed (also `samsa perf-consume`). */
export async function perfConsumeWithFlags(f: ParsedFlags<typeof CONSUME_FLAGS>): Promise<void> {
  const sources = { flag: 'consumer-props', pairs: f['consumer-props'], fileFlag: 'consumer-config', file: f['consumer-config'] };
  // group.id, max.poll.records, ... among the configs, as Kafka's tool takes them: they set their flags
  foldFlagKeys(f, CONSUME_FLAGS, sources, CONSUMER_KEYS_OF_FLAGS);
  const group = f.group === '' ? null : f.group;
  const fromLatest = f['from-latest'];
  const formatTime = detailedTimeFormat(f);
  const include = f.given.has('include') ? includePattern(f.include) : null;
  if (include) {
    if (f.given.has('topic')) throw new UsageError('--topic and --include: give one (a topic, or a pattern of topics to read)');
    if (f['bootstrap-server'] === '') throw new UsageError('--include reads the topics of a running cluster whose names match: give --bootstrap-server');
    refusePrepareFlags(f.given, `with --include it reads the topics as they are`);
  }
  if (fromLatest) {
    if (f['bootstrap-server'] === '') throw new UsageError('--from-latest reads the records produced while the run waits: give --bootstrap-server of a cluster something produces to, and its --topic');
    if (!f.given.has('topic') && !include) throw new UsageError('--from-latest needs --topic (or --include): the topic something produces to while the run waits');
    refusePrepareFlags(f.given, 'with --from-latest it prepares none');
  }
  const settings = { maxPollRecords: f['max-poll-records'], maxPartitionFetchBytes: f['max-partition-fetch-bytes'], checkCrcs: f['check-crcs'] };
  // checked with the tool's own settings, as the consumers will run with them
  const consumerProps = clientProps(sources, CONSUMER_KEYS_OWNED, (c) => void parseConsumerConfig({ 'group.id': 'perf', ...consumerConfigOf({ ...settings, consumerProps: c }) }), CONSUMER_KEYS_OF_FLAGS);
  const { target, limits } = await openTargetWithLimits(f, f.given, f.raw, () => measureRawLimits(f['max-partition-fetch-bytes'] >= 65_536 ? 65_536 : 16_384));
  let r: ConsumeResult;
  let read: ReadTarget | null = null;
  let records = f.records;
  try {
    read = include
      ? { kind: 'include', source: f.include, pattern: include, topics: await topicsMatching(target, include) }
      : { kind: 'topic', topic: await chooseTopic(target, { topic: f.topic, defaultName: 'perf-consume', partitions: f.partitions, replicationFactor: f['replication-factor'], config: topicConfig({ replicationFactor: f['replication-factor'], minInsyncReplicas: 0 }) }, f.given) };
    const names = read.kind === 'topic' ? [read.topic.name] : read.topics.map((t) => t.name);
    const what = read.kind === 'topic' ? `topic ${read.topic.name}` : `the topics matching '${read.source}' (${names.length === 0 ? 'none yet' : names.join(', ')})`;
    let ends: PartitionRange[] | undefined;
    if (fromLatest) {
      process.stderr.write(`[consume] waiting for ${records} records produced to ${what} from now on\n`);
    } else if (read.kind === 'include' || read.topic.origin === 'existing') {
      if (read.kind === 'topic') refusePrepareFlags(f.given, `topic '${read.topic.name}' exists and is read as it is`);
      if (names.length === 0) throw new CliError(`no topic of the cluster matches --include '${f.include}' (the whole name, internal topics aside): create one, or give another pattern`);
      ends = [];
      for (const name of names) {
        const offsets = await topicOffsets(target, name);
        // a named group reads on from its committed offsets
        const committed = group !== null ? await committedOffsets(target, group, name) : new Map<number, number>();
        ends.push(...fromCommitted(offsets, committed).map((e) => ({ topic: name, ...e })));
      }
      const left = ends.reduce((n, p) => n + (p.high - p.low), 0);
      const asked = f.given.has('records') ? f.records : null;
      if (read.kind === 'topic') {
        if (left === 0 && group !== null) throw new CliError(`group '${group}' has read topic '${read.topic.name}' to its end (its committed offsets are the topic's end offsets): produce more, or name another --group`);
        records = recordsToRead(read.topic.name, left, asked);
      } else {
        if (left === 0) throw new CliError(`${group !== null ? `group '${group}' has read ` : ''}the topics matching --include '${f.include}' (${names.join(', ')}) ${group !== null ? 'to their ends' : 'hold no records to read'}: produce some${group !== null ? ' more, or name another --group' : ' first'}`);
        records = recordsOf(`the topics matching --include '${f.include}' hold`, left, asked);
      }
      process.stderr.write(`[consume] reading ${records} records of ${what}\n`);
    } else {
      process.stderr.write(`[consume] preparing ${f.records} records\n`);
      await prepareTopic(target, read.topic.name, f.records, f['record-size'], f['batch-size'], f.compression);
    }
    const kept = target.kind === 'running' && (read.kind === 'include' || read.topic.origin !== 'run');
    r = await runConsume(target, {
      topic: read.kind === 'topic' ? read.topic.name : 'include',
      ...(read.kind === 'include' ? { include: read.pattern } : {}),
      records,
      recordSize: f['record-size'],
      consumers: f.consumers,
      ...settings,
      timeoutMs: f['timeout-ms'],
      gapMs: f.timeout,
      consumerProps,
      metrics: f['print-metrics'],
      ...(ends ? { ends } : {}),
      ...(group !== null ? { groupId: group, commitAtEnd: kept } : {}),
      ...(fromLatest ? { fromLatest: true } : {}),
      ...(f['show-detailed-stats'] ? { detailed: { everyMs: f['reporting-interval'], write: (line: string) => console.log(line), formatTime, hideHeader: f['hide-header'] } } : {}),
    });
    if (target.kind === 'running' && group === null) await dropGroup(target, r.groupId);
  } finally {
    await releaseTopic(target, read?.kind === 'topic' ? read.topic : null).finally(() => target.close());
  }
  // Kafka's tool stops as well, warns, and reports what it read
  if (r.stalledMs !== undefined) process.stderr.write(`[consume] WARNING: stopped after ${r.records} of ${records} records: none came for ${r.stalledMs} ms (--timeout, the longest wait for the next record; raise it to wait longer)\n`);
  console.log(`${r.records} records read by ${r.consumers} consumer(s): ${formatNumber(r.recordsPerSec)} records/sec (${r.mibPerSec.toFixed(2)} MiB/sec, ${r.delivered - r.records} delivered again after rebalances) over ${r.fetchMs.toFixed(0)} ms of fetching; ${r.totalMs.toFixed(0)} ms including the group join`);
  const rows: string[][] = [['records/s', formatNumber(r.recordsPerSec)], ['MiB/s', r.mibPerSec.toFixed(1)], ['fetch ms / total ms', `${r.fetchMs.toFixed(0)} / ${r.totalMs.toFixed(0)}`]];
  if (r.stalledMs !== undefined) rows.push(['stopped short', `${r.records} of ${records} records: none came for ${r.stalledMs} ms (--timeout)`]);
  rows.push(...readingRows(target, r, r.mibPerSec, limits, f.raw));
  const prepared = read.kind === 'topic' && read.topic.origin !== 'existing' && !fromLatest;
  const shape = prepared ? `, ${f['record-size']} B records, ${f.compression}` : '';
  const props = Object.entries(consumerProps).map(([k, v]) => `, ${k} ${v}`).join('');
  const readDescription = read.kind === 'topic' ? describeTopic(read.topic) : describeIncluded(read.source, read.topics);
  printTable(`perf-consume: ${target.description}, ${readDescription}, ${f.consumers} consumer(s)${group !== null ? ` of group ${group}` : ''}${fromLatest ? ', from the latest offsets' : ''}${shape}${props}, check.crcs ${f['check-crcs']}, CRC-32C ${crc32cImplementation}`, ['measure', 'value'], rows, stealNotes([{ step: 'the run', report: r.cpu }]));
  if (r.metrics) console.log(`\n${formatMetrics(r.metrics.flat())}`);
  if (f.json) {
    const topicOptions = read.kind === 'topic' ? { topic: read.topic.name, topicOrigin: read.topic.origin } : { include: read.source, topics: read.topics.map((t) => t.name) };
    console.log(`results: ${await writeResults(f.json, benchEnvironment(1), { options: { ...flagOptions(f), target: target.description, ...topicOptions }, result: r, limits })}`);
  }
}

/** "the topics matching 'p': a (3 partitions, RF 1), b (...)" for headers. */
export function describeIncluded(source: string, topics: readonly TopicChoice[]): string {
  const each = topics.map((t) => `${t.name} (${t.partitions} partition${t.partitions === 1 ? '' : 's'}, RF ${t.replicationFactor})`);
  return `the topics matching '${source}': ${each.length === 0 ? 'none when the run began' : each.join(', ')}`;
}

/** The offsets `group` has committed for the partitions of `topic` (none: not there). */
async function committedOffsets(target: PerfTarget, group: string, topic: string): Promise<Map<number, number>> {
  const admin = (await target.adminClient()).admin();
  await admin.connect();
  try {
    const t = (await admin.fetchOffsets({ groupId: group, topics: [topic] })).find((x) => x.topic === topic);
    return new Map((t?.partitions ?? []).filter((p) => p.offset >= 0).map((p) => [p.partition, p.offset]));
  } finally {
    await admin.disconnect();
  }
}

/** A topic's offsets to read from a group's committed offsets on (where within the log); the rest from its start. */
export function fromCommitted(ends: readonly { partition: number; low: number; high: number }[], committed: ReadonlyMap<number, number>): { partition: number; low: number; high: number }[] {
  return ends.map((e) => {
    const c = committed.get(e.partition);
    return c === undefined || c < e.low || c > e.high ? e : { ...e, low: c };
  });
}

/** Deletes the run's consumer group from a running cluster (it committed nothing); a failure is reported, not fatal. */
async function dropGroup(target: PerfTarget, groupId: string): Promise<void> {
  const admin = (await target.adminClient()).admin();
  await admin.connect();
  try {
    const [g] = await admin.deleteGroups([groupId]);
    if (g && g.errorCode !== 0) process.stderr.write(`[consume] the run's group ${groupId} was not deleted: ${errorName(g.errorCode)}\n`);
  } catch (err) {
    process.stderr.write(`[consume] the run's group ${groupId} was not deleted: ${(err as Error).message}\n`);
  } finally {
    await admin.disconnect();
  }
}

if (isMain(import.meta.url)) runMain(() => perfConsumeWithFlags(cliFlags('perf-consume', PERF_CONSUME_SUMMARY, CONSUME_FLAGS)));
