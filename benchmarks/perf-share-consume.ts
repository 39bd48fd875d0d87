/**
 * Share consumer throughput, like Kafka 4.1+'s kafka-share-consumer-perf-test
 * (ShareConsumerPerformance): --share-consumers share consumers (Kafka's --threads) in one share
 * group (KIP-932; perf-share-consumer unless --group names another) read --records records of
 * --topic, acknowledging them implicitly (each poll accepts what the one before returned; the
 * run's end commits the last), until all are read or no record came for --timeout ms. It prints
 * Kafka's lines: the header, --show-detailed-stats' progress of each share consumer every
 * --reporting-interval, --show-consumer-stats' line per share consumer, Kafka's warning when the
 * run stopped short, and the group's summary (start and end time, MB, MB/s, records/s, records,
 * ms from start to end, joining the group included); then samsa's own summary over the time from
 * the first record to the last, with the CPU, the traffic and the raw limits as perf-consume gives
 * them, --print-metrics' tables (each share consumer's metrics as Kafka's tool prints them, read
 * once the records are, before the last acknowledgements are committed, as Kafka's tool reads
 * them), and the results as JSON.
 *
 *   node --import tsx benchmarks/perf-share-consume.ts --topic perf-share --records 500k --share-consumers 1
 *   node --import tsx benchmarks/perf-share-consume.ts --topic perf-share --records 500k --threads 3
 *
 * Without --bootstrap-server the run starts a throw-away cluster and fills --topic first
 * (untimed, as perf-consume prepares its topic); with it, --topic must exist on the running
 * cluster and is read as it is: by default what the group has left to read.
 *
 * Where the group starts: a share group starts a partition it has no state of at the log end
 * (share.auto.offset.reset latest, Kafka's default), and Kafka's tool relies on the group's
 * config. So that a prepared topic is read from its start, the run sets the group's
 * share.auto.offset.reset to earliest through the admin before it starts, as a user would with
 * `samsa configs --alter --group g --add-config share.auto.offset.reset=earliest`; on a running
 * cluster only where the group has no value of its own, and the group keeps it.
 */
import type { ClientMetric } from '../src/client/metrics.js';
import type { SamsaClient } from '../src/client/samsa.js';
import type { ShareConsumer, ShareRecord } from '../src/client/share-consumer.js';
import { SamsaError } from '../src/client/errors.js';
import { CliError, UsageError } from '../src/cli/errors.js';
import { errorName } from '../src/protocol/errors.js';
import { crc32cImplementation } from '../src/protocol/crc32c.js';
import { parseShareConsumerConfig } from '../actors/share-consumer/share-consumer-config.js';
import { formatMetrics } from './lib/client-metrics.js';
import { cliFlags, flagOptions, type FlagSpecs, type ParsedFlags } from './lib/perf-args.js';
import type { PerfClients } from './lib/perf-cluster.js';
import { SHARE_CONSUMER_KEYS_OF_FLAGS, SHARE_CONSUMER_KEYS_OWNED, clientProps, foldFlagKeys } from './lib/perf-props.js';
import { TARGET_FLAGS, chooseTopic, describeTopic, openTargetWithLimits, releaseTopic, topicOffsets, type PerfTarget, type TopicChoice } from './lib/perf-target.js';
import { MiB, isMain, progress, runMain } from './lib/perf-common.js';
import { measureRawLimits } from './lib/perf-raw.js';
import { benchEnvironment, writeResults } from './lib/results.js';
import { printTable } from './lib/table.js';
import { stealNotes, type CpuReport } from './lib/thread-cpu.js';
import type { TrafficReport } from './lib/traffic.js';
import { MeasuredStretch } from './lib/stretch.js';
import { formatNumber, nowMs, sleep } from './lib/timing.js';
import { KAFKA_DATE_FORMAT } from './lib/date-format.js';
import { dateFormatFlag, readingRows, refusePrepareFlags } from './lib/consume-common.js';
import { OffsetsSeen } from './lib/offsets-seen.js';
import { SHARE_SUMMARY_HEADER, shareConsumerLine, shareProgressLine, shareSummaryLine, shareTimeoutWarning } from './lib/share-perf-lines.js';
import { prepareTopic } from './perf-consume.js';
import { topicConfig } from './perf-produce.js';

/** Kafka's default share group of the tool, and its share consumers' client id (-1, -2, ... after it for several). */
export const DEFAULT_SHARE_GROUP = 'perf-share-consumer';
export const DEFAULT_SHARE_CLIENT_ID = 'perf-share-consumer-client';
/** How long each poll waits at most, as Kafka's tool polls. */
const POLL_MS = 100;
const AUTO_OFFSET_RESET = 'share.auto.offset.reset';

export const SHARE_CONSUME_FLAGS = {
  'bootstrap-server': TARGET_FLAGS['bootstrap-server'],
  topic: {
    type: 'string',
    default: '',
    help: "the topic to read (required, as Kafka's): on a running cluster an existing topic, read as it is; on a throw-away cluster the name of the topic the run makes and fills first",
  },
  records: {
    type: 'int',
    default: 1_000_000,
    min: 1,
    kafka: ['messages', 'num-records'],
    help: 'records to read (a throw-away cluster: to prepare and read; a running cluster: unless given, what the group has left to read of the topic)',
  },
  'share-consumers': { type: 'int', default: 1, min: 1, kafka: ['threads'], help: 'share consumers in the group, reading the topic together' },
  group: { type: 'string', default: DEFAULT_SHARE_GROUP, help: "the share group (Kafka's default); the run sets its share.auto.offset.reset to earliest first (on a running cluster where it has none of its own: the group keeps it), so that it reads the topic from its start" },
  'record-size': { type: 'int', default: 100, min: 0, help: 'value bytes per prepared record' },
  partitions: { type: 'int', default: 6, min: 1, help: 'partitions of the prepared topic' },
  'replication-factor': { type: 'int', default: 1, min: 1, help: 'replicas per partition of the prepared topic' },
  brokers: { type: 'int', default: 3, min: 1, help: 'brokers in the throw-away cluster' },
  transport: { type: 'string', default: 'worker', choices: ['inproc', 'worker', 'tcp'], help: "where the throw-away cluster's brokers run / how the client reaches them" },
  'batch-size': { type: 'int', default: 16_384, min: 1, help: 'batch.size of the producer preparing the topic (the batches the share consumers read)' },
  compression: { type: 'string', default: 'none', choices: ['none', 'gzip', 'snappy', 'lz4', 'zstd'], help: 'compression.type of the producer preparing the topic (the share consumers decompress each batch)' },
  'max-poll-records': {
    type: 'int',
    default: 10_000,
    min: 1,
    help: "share consumer max.poll.records: a poll returns, and a ShareFetch acquires, at most this many records (perf-consume's default; Kafka's tool leaves the share consumer's 500)",
  },
  'fetch-max-bytes': { type: 'int', default: 1_048_576, min: 1, kafka: ['fetch-size'], help: "share consumer fetch.max.bytes (Kafka's --fetch-size sets it)" },
  'check-crcs': { type: 'bool', default: false, help: "share consumer check.crcs: off, as Kafka's tool sets it (true verifies each batch's CRC-32C)" },
  'socket-buffer-size': { type: 'int', default: 2_097_152, min: 1, help: "Kafka's receive.buffer.bytes, taken so that Kafka's command lines run: samsa's client has no such setting, and it changes nothing" },
  'consumer-props': {
    type: 'list',
    default: [],
    kafka: ['command-property'],
    help: 'more share consumer configs: key=value ... (fetch.max.wait.ms=100 client.id=bench); a key of a flag above (bootstrap.servers, group.id, max.poll.records, fetch.max.bytes, check.crcs) sets that flag',
  },
  'consumer-config': { type: 'string', default: '', kafka: ['consumer.config', 'command-config'], help: 'share consumer configs from a Java .properties file; --consumer-props override its keys' },
  'show-detailed-stats': { type: 'bool', default: false, help: "print each share consumer's progress every --reporting-interval, in Kafka's columns" },
  'reporting-interval': { type: 'int', default: 5_000, min: 1, help: 'ms between the progress lines of --show-detailed-stats' },
  'show-consumer-stats': { type: 'bool', default: false, help: "print a summary line per share consumer (Kafka's 'Share consumer n having client id ... consumption metrics- ...')" },
  'date-format': { type: 'string', default: KAFKA_DATE_FORMAT, help: "a java.text.SimpleDateFormat pattern for the times of Kafka's lines (local time)" },
  'hide-header': { type: 'bool', default: false, help: "leave out Kafka's header line (start.time, end.time, ...)" },
  'print-metrics': {
    type: 'bool',
    default: false,
    help: "print each share consumer's metrics at the end, as Kafka's tool does (consumer-share-fetch-manager-metrics: fetch-latency-avg, records-per-request-avg, acknowledgements-send-total, ...; heartbeats, rebalances and polls)",
  },
  timeout: { type: 'int', default: 10_000, min: 1, help: "the longest a share consumer waits for its next record (Kafka's --timeout), the group join included: past it that consumer stops; a run that stops short of --records warns, as Kafka's" },
  raw: { type: 'bool', default: true, help: 'measure the raw limits in the same run (not against brokers on other hosts)' },
  json: { type: 'string', default: 'perf-share-consume', help: 'results file name under benchmarks/results/ (empty: none)' },
} satisfies FlagSpecs;

export interface ShareConsumeOptions {
  topic: string;
  /** Stop once this many records were delivered (Kafka counts every record a poll returns). */
  records: number;
  shareConsumers: number;
  groupId: string;
  /** The share consumers' configs, group and client id aside (checked already). */
  config: Record<string, unknown>;
  /** The client id; with several share consumers each has `-1`, `-2`, ... after it, as Kafka's. */
  clientId: string;
  /** A share consumer stops once no record came for this long (Kafka's --timeout). */
  gapMs: number;
  /** Kafka's progress lines: each share consumer's, every `everyMs`, to `write`. */
  detailed?: { everyMs: number; write: (line: string) => void; formatTime: (epochMs: number) => string };
  /** Read each share consumer's metrics once the records are read (--print-metrics). */
  metrics?: boolean;
  label?: string;
}

/** What one share consumer read. */
export interface ShareConsumerFigures {
  clientId: string;
  records: number;
  bytes: number;
}

export interface ShareConsumeResult {
  groupId: string;
  /** Records delivered (as Kafka counts them), redeliveries included. */
  delivered: number;
  /** Distinct records read. */
  records: number;
  /** Records delivered with a delivery count above 1 (their lock ran out, or a member gave them back). */
  redelivered: number;
  /** Key and value bytes delivered (as Kafka counts them). */
  bytes: number;
  shareConsumers: number;
  perConsumer: ShareConsumerFigures[];
  /** Kafka's times (epoch ms): before the share consumers subscribed, after they all stopped. */
  startMs: number;
  endMs: number;
  /** First record to last. */
  fetchMs: number;
  /** From the subscription to the last record (joining the group included). */
  totalMs: number;
  /** Every record came with the first poll that had any (fetchMs is 0): the rates are over totalMs. */
  onePoll: boolean;
  /** Distinct records and their bytes over fetchMs (onePoll: totalMs). */
  recordsPerSec: number;
  mibPerSec: number;
  /** Fewer than `records` were delivered: the share consumers stopped after --timeout without one. */
  stalled: boolean;
  cpu: CpuReport | null;
  traffic: TrafficReport | null;
  /** Each share consumer's metrics once the records were read (--print-metrics). */
  metrics?: ClientMetric[][];
}

/** --print-metrics' tables: each share consumer's metrics, as Kafka's tool prints them one share consumer after another. */
export function shareMetricsText(metrics: readonly (readonly ClientMetric[])[]): string {
  return metrics.map((m) => formatMetrics(m)).join('\n\n');
}

/** The share consumers' configs: the tool's settings, then --consumer-props, implicit acknowledgement. */
export function shareConsumerConfigOf(o: { maxPollRecords: number; fetchMaxBytes: number; checkCrcs: boolean; consumerProps?: Record<string, string> }): Record<string, unknown> {
  return {
    'max.poll.records': o.maxPollRecords,
    'fetch.max.bytes': o.fetchMaxBytes,
    'check.crcs': o.checkCrcs,
    ...o.consumerProps,
    'share.acknowledgement.mode': 'implicit',
  };
}

/** Each share consumer's client id, as Kafka's tool names them: the id alone for one, `id-1`, `id-2`, ... for several. */
export function shareClientIds(clientId: string, count: number): string[] {
  return count === 1 ? [clientId] : Array.from({ length: count }, (_, i) => `${clientId}-${i + 1}`);
}

/** A share consumer's failure as the run reports it: what the broker said, and what to do about it. */
function pollFailure(e: unknown, index: number, o: ShareConsumeOptions): Error {
  const what = `share consumer ${index} of group '${o.groupId}'`;
  if (e instanceof SamsaError) {
    const advice: Record<string, string> = {
      GROUP_ID_NOT_FOUND: `'${o.groupId}' is a group of another type (a consumer group?): name a share group with --group`,
      UNSUPPORTED_VERSION: "the cluster's share groups are off: `samsa features upgrade --feature share.version=1`",
    };
    const hint = advice[e.errorName];
    return new CliError(`${what}: ${e.message.replace(/\.$/, '')}${hint ? `; ${hint}` : ''}`);
  }
  return e instanceof Error ? new CliError(`${what}: ${e.message}`) : new CliError(`${what}: ${String(e)}`);
}

/**
 * Reads `o.records` records of the topic with `o.shareConsumers` share consumers of one share
 * group, each polling on its own as Kafka's threads do, until they are read or each share
 * consumer has waited `o.gapMs` for a record; then commits what the last polls returned and closes
 * them. The group must be set to start where the records are (share.auto.offset.reset).
 */
export async function runShareConsume(cluster: PerfClients, o: ShareConsumeOptions): Promise<ShareConsumeResult> {
  const ids = shareClientIds(o.clientId, o.shareConsumers);
  const client = await cluster.client(o.clientId);
  const consumers: ShareConsumer[] = ids.map((id) => client.shareConsumer({ ...o.config, 'group.id': o.groupId, 'client.id': id }));
  const perConsumer: ShareConsumerFigures[] = ids.map((clientId) => ({ clientId, records: 0, bytes: 0 }));
  const seen = new OffsetsSeen();
  const stretch = new MeasuredStretch(client.system);
  let delivered = 0;
  let bytes = 0;
  let redelivered = 0;
  let first = 0;
  let last = 0;
  /** When the last poll with records returned. */
  let lastRecords = 0;
  let failure: Error | null = null;
  const stop = progress(o.label ?? 'share-consume', () => `${delivered} records read`, { fraction: () => delivered / o.records });
  const startMs = Date.now();
  const t0 = nowMs();

  /** What a poll returned, counted for share consumer `i` (Kafka counts keys and values). */
  const count = (i: number, records: ShareRecord[], now: number): void => {
    const mine = perConsumer[i]!;
    for (const r of records) {
      const b = (r.key?.length ?? 0) + (r.value?.length ?? 0);
      mine.bytes += b;
      bytes += b;
      if (r.deliveryCount > 1) redelivered++;
      seen.add(r.topic, r.partition, r.offset);
    }
    mine.records += records.length;
    delivered += records.length;
    lastRecords = now;
    if (first === 0) {
      first = now;
      stretch.start(now);
    }
    if (last === 0 && delivered >= o.records) {
      last = now;
      stretch.end(now);
    }
  };

  /** One share consumer's loop, as each of Kafka's threads runs it. */
  const consume = async (i: number): Promise<void> => {
    const c = consumers[i]!;
    const mine = perConsumer[i]!;
    let lastRecordAt = nowMs();
    let report = { at: Date.now(), bytes: 0, records: 0 };
    while (delivered < o.records && failure === null) {
      let records: ShareRecord[];
      try {
        records = await c.poll(POLL_MS);
      } catch (e) {
        failure ??= pollFailure(e, i + 1, o);
        return;
      }
      const now = nowMs();
      if (records.length > 0) {
        lastRecordAt = now;
        count(i, records, now);
      } else if (now - lastRecordAt > o.gapMs) return;
      if (o.detailed && records.length > 0) {
        const wall = Date.now();
        if (wall - report.at >= o.detailed.everyMs) {
          o.detailed.write(shareProgressLine(i + 1, { fromMs: report.at, toMs: wall, bytes: mine.bytes, lastBytes: report.bytes, records: mine.records, lastRecords: report.records }, o.detailed.formatTime));
          report = { at: wall, bytes: mine.bytes, records: mine.records };
        }
      }
    }
  };

  let endMs: number;
  let metrics: ClientMetric[][] | undefined;
  try {
    for (const [i, c] of consumers.entries()) {
      try {
        await c.subscribe([o.topic]);
      } catch (e) {
        throw pollFailure(e, i + 1, o);
      }
    }
    await Promise.all(consumers.map((_, i) => consume(i)));
    endMs = Date.now();
    if (first !== 0 && !stretch.ended) {
      // stopped short: the figures run to the last record, before the wait for more
      last = lastRecords;
      stretch.end();
    }
    if (failure) throw failure;
    // read before the commit below, as Kafka's tool reads them
    if (o.metrics) metrics = await Promise.all(consumers.map((c) => c.metrics()));
    // what the last polls returned is accepted now, as Kafka's tool commits at the end
    for (const [i, c] of consumers.entries()) {
      try {
        const failed = (await c.commitSync()).filter((r) => r.error !== null);
        for (const f of failed) process.stderr.write(`[share-consume] share consumer ${i + 1}: the acknowledgements of ${f.offsets.length} records of ${f.topic}-${f.partition} failed: ${f.error!.message}\n`);
      } catch (e) {
        process.stderr.write(`[share-consume] share consumer ${i + 1}: could not commit its acknowledgements: ${(e as Error).message}\n`);
      }
    }
  } finally {
    stop();
    for (const c of consumers) await c.close().catch(() => undefined);
  }
  const fetchMs = first === 0 ? 0 : last - first;
  const totalMs = first === 0 ? 0 : last - t0;
  // a small run may come in one poll: no stretch to time, so the rates take the whole run's
  const onePoll = first !== 0 && fetchMs < 1;
  const overMs = Math.max(0.001, onePoll ? totalMs : fetchMs);
  const distinct = seen.size;
  // the bytes of the distinct records: redeliveries' share taken out
  const distinctBytes = bytes * (distinct / Math.max(1, delivered));
  return {
    groupId: o.groupId,
    delivered,
    records: distinct,
    redelivered,
    bytes,
    shareConsumers: o.shareConsumers,
    perConsumer,
    startMs,
    endMs,
    fetchMs,
    totalMs,
    onePoll,
    recordsPerSec: (distinct * 1000) / overMs,
    mibPerSec: distinctBytes / MiB / (overMs / 1000),
    stalled: delivered < o.records,
    // a stretch of no time has no CPU shares to tell
    cpu: onePoll ? null : stretch.cpu(),
    traffic: onePoll ? null : stretch.traffic(distinct),
    ...(metrics ? { metrics } : {}),
  };
}

/**
 * Makes the group start where a partition's records begin (refusing a group id of another
 * type, a consumer group's say): its share.auto.offset.reset set to
 * earliest (unless `keepOwn` and the group has a value of its own), and waited for until the
 * brokers have it, since a share partition's state is made with the value in force when the
 * group is first assigned the partition. Returns the value the run goes with, and whether the
 * run set it.
 */
export async function startGroupAtEarliest(client: SamsaClient, group: string, keepOwn: boolean): Promise<{ reset: string; setByRun: boolean }> {
  const admin = client.admin();
  await admin.connect();
  try {
    // a group of another type keeps its id: refused before its configs are touched
    const other = (await admin.listGroups()).groups.find((g) => g.groupId === group && g.groupType !== 'share');
    if (other) throw new CliError(`group '${group}' is a ${other.groupType} group, not a share group: name a share group with --group (a new id makes one)`);
    const own = (await admin.describeGroupConfigs({ group }))[0]?.configs[AUTO_OFFSET_RESET];
    if (keepOwn && own !== undefined) return { reset: own, setByRun: false };
    const [r] = await admin.alterGroupConfigs([{ group, set: { [AUTO_OFFSET_RESET]: 'earliest' } }]);
    if (r && r.errorCode !== 0) throw new CliError(`could not set ${AUTO_OFFSET_RESET}=earliest on group '${group}': ${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}`);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const entry = (await admin.describeConfigs({ group })).configs.find((e) => e.name === AUTO_OFFSET_RESET);
      if (entry?.value === 'earliest' && entry.source === 'DYNAMIC_GROUP_CONFIG') return { reset: 'earliest', setByRun: true };
      if (Date.now() > deadline) throw new CliError(`group '${group}': the brokers do not have ${AUTO_OFFSET_RESET}=earliest 30 s after it was set`);
      await sleep(50);
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * What the group has left to read of a topic: per partition its lag where it has a share state,
 * else (it starts there) everything from the log start with `reset` earliest, nothing otherwise
 * (latest, and by_duration, which samsa's brokers start at the latest).
 */
export function recordsLeft(offsets: readonly { partition: number; low: number; high: number }[], states: ReadonlyMap<number, { startOffset: number; lag: number }>, reset: string): number {
  let left = 0;
  for (const p of offsets) {
    const s = states.get(p.partition);
    if (s !== undefined && s.startOffset >= 0) left += s.lag >= 0 ? s.lag : Math.max(0, p.high - Math.max(s.startOffset, p.low));
    else if (reset === 'earliest') left += p.high - p.low;
  }
  return left;
}

async function topicExists(target: PerfTarget, topic: string): Promise<boolean> {
  const admin = (await target.adminClient()).admin();
  await admin.connect();
  try {
    return (await admin.listTopics()).includes(topic);
  } finally {
    await admin.disconnect();
  }
}

async function groupRecordsLeft(target: PerfTarget, group: string, topic: string, reset: string): Promise<number> {
  const offsets = await topicOffsets(target, topic);
  const admin = (await target.adminClient()).admin();
  await admin.connect();
  try {
    const states = new Map((await admin.listShareGroupOffsets({ groupId: group, topics: [topic] })).filter((s) => s.topic === topic).map((s) => [s.partition, s]));
    return recordsLeft(offsets, states, reset);
  } catch (e) {
    if (e instanceof SamsaError) throw new CliError(`the offsets of share group '${group}' could not be read: ${e.message}${e.errorName === 'GROUP_ID_NOT_FOUND' ? ': it is a group of another type; name a share group with --group' : ''}`);
    throw e;
  } finally {
    await admin.disconnect();
  }
}

export const PERF_SHARE_CONSUME_SUMMARY =
  "Share consumer throughput: share consumers of one share group (KIP-932) read a topic and acknowledge its records, on a running cluster (--bootstrap-server) or a throw-away one (like Kafka's kafka-share-consumer-perf-test). A share group starts at the log end by default (share.auto.offset.reset latest): the run sets the group's share.auto.offset.reset to earliest first, as `samsa configs --alter --group g --add-config share.auto.offset.reset=earliest` does (on a running cluster only where the group has no value of its own; the group keeps it), so that the topic is read from its start.";

/** The checks of the command line that need no cluster. */
export function checkShareFlags(f: ParsedFlags<typeof SHARE_CONSUME_FLAGS>): void {
  if (f.topic === '') throw new UsageError('missing --topic: the topic to read (on a throw-away cluster, the name of the topic the run makes and fills)');
  if (f.group === '') throw new UsageError('--group must name a share group');
  if (f.given.has('reporting-interval') && !f['show-detailed-stats']) throw new UsageError('--reporting-interval shapes the lines of --show-detailed-stats: add it');
}

/** The share consumers' settings from the command line, checked: the configs beyond the flags, all their configs, the client id. */
export interface ShareConsumerSettings {
  /** --consumer-props over --consumer-config, the keys of flags taken out. */
  consumerProps: Record<string, string>;
  /** Every config but the group's and the client id's, which each share consumer gets of its own. */
  config: Record<string, unknown>;
  /** client.id of the configs, else Kafka's perf-share-consumer-client. */
  clientId: string;
}

/**
 * Reads the share consumers' configs from the command line (a key of a flag sets that flag, as
 * Kafka's tool takes them) and checks them with the flags; a bad one is a usage error naming it.
 */
export function shareConsumerSettings(f: ParsedFlags<typeof SHARE_CONSUME_FLAGS>): ShareConsumerSettings {
  const sources = { flag: 'consumer-props', pairs: f['consumer-props'], fileFlag: 'consumer-config', file: f['consumer-config'] };
  // group.id, max.poll.records, ... among the configs, as Kafka's tool takes them: they set their flags
  foldFlagKeys(f, SHARE_CONSUME_FLAGS, sources, SHARE_CONSUMER_KEYS_OF_FLAGS);
  checkShareFlags(f);
  const settings = { maxPollRecords: f['max-poll-records'], fetchMaxBytes: f['fetch-max-bytes'], checkCrcs: f['check-crcs'] };
  // checked with the tool's own settings, as the share consumers will run with them
  const consumerProps = clientProps(sources, SHARE_CONSUMER_KEYS_OWNED, (c) => void parseShareConsumerConfig({ ...shareConsumerConfigOf({ ...settings, consumerProps: c }), 'group.id': f.group }), SHARE_CONSUMER_KEYS_OF_FLAGS);
  return { consumerProps, config: shareConsumerConfigOf({ ...settings, consumerProps }), clientId: consumerProps['client.id'] ?? DEFAULT_SHARE_CLIENT_ID };
}

/** The tool with its flags parsed (also `samsa perf-share-consume`). */
export async function perfShareConsumeWithFlags(f: ParsedFlags<typeof SHARE_CONSUME_FLAGS>): Promise<void> {
  const { consumerProps, config, clientId } = shareConsumerSettings(f);
  const formatTime = dateFormatFlag(f['date-format']);
  const { target, limits } = await openTargetWithLimits(f, f.given, f.raw, () => measureRawLimits(f['fetch-max-bytes'] >= 65_536 ? 65_536 : 16_384));
  const group = f.group;
  let topic: TopicChoice | null = null;
  let records = f.records;
  let reset: { reset: string; setByRun: boolean };
  let r: ShareConsumeResult;
  try {
    if (target.kind === 'running') {
      if (!(await topicExists(target, f.topic))) throw new CliError(`topic '${f.topic}' does not exist on ${target.description}: make and fill it first (samsa perf-produce --bootstrap-server ${f['bootstrap-server']} --topic ${f.topic} --records 1M)`);
      refusePrepareFlags(f.given, `topic '${f.topic}' exists and is read as it is`);
    }
    topic = await chooseTopic(target, { topic: f.topic, defaultName: f.topic, partitions: f.partitions, replicationFactor: f['replication-factor'], config: topicConfig({ replicationFactor: f['replication-factor'], minInsyncReplicas: 0 }) }, f.given);
    reset = await startGroupAtEarliest(await target.adminClient(), group, target.kind === 'running');
    if (reset.setByRun && target.kind === 'running') process.stderr.write(`[share-consume] group ${group}: ${AUTO_OFFSET_RESET} set to earliest (it had no value of its own), so that it reads the topic from its start where it has read nothing yet; the group keeps it\n`);
    if (!reset.setByRun) process.stderr.write(`[share-consume] group ${group}: its own ${AUTO_OFFSET_RESET} ${reset.reset} is kept: where it has read nothing yet, it starts there\n`);
    if (topic.origin === 'existing') {
      const left = await groupRecordsLeft(target, group, topic.name, reset.reset);
      if (!f.given.has('records')) {
        if (left === 0) {
          throw new CliError(
            `share group '${group}' has nothing left to read of topic '${topic.name}' (it has read it to its end, or starts at its end): produce more (samsa perf-produce --topic ${topic.name}), reset the group (samsa share-groups --reset-offsets --group ${group} --topic ${topic.name} --to-earliest --execute), or name another --group`,
          );
        }
        records = left;
      } else if (f.records > left) {
        process.stderr.write(`[share-consume] group ${group} has ${left} records left to read of topic ${topic.name}: the run waits for ${f.records - left} more to be produced (up to --timeout ms without one)\n`);
      }
      process.stderr.write(`[share-consume] reading ${records} records of topic ${topic.name}\n`);
    } else {
      process.stderr.write(`[share-consume] preparing ${records} records\n`);
      await prepareTopic(target, topic.name, records, f['record-size'], f['batch-size'], f.compression);
    }
    if (!f['hide-header']) console.log(SHARE_SUMMARY_HEADER);
    r = await runShareConsume(target, {
      topic: topic.name,
      records,
      shareConsumers: f['share-consumers'],
      groupId: group,
      config,
      clientId,
      gapMs: f.timeout,
      ...(f['show-detailed-stats'] ? { detailed: { everyMs: f['reporting-interval'], write: (line: string) => console.log(line), formatTime } } : {}),
      metrics: f['print-metrics'],
    });
  } finally {
    await releaseTopic(target, topic).finally(() => target.close());
  }
  await printShareResult(f, r, { target, topic, records, reset, limits, formatTime, consumerProps });
}

/** Kafka's lines, then samsa's summary and table, the share consumers' metrics and the results file. */
async function printShareResult(
  f: ParsedFlags<typeof SHARE_CONSUME_FLAGS>,
  r: ShareConsumeResult,
  run: { target: PerfTarget; topic: TopicChoice; records: number; reset: { reset: string; setByRun: boolean }; limits: Awaited<ReturnType<typeof measureRawLimits>> | null; formatTime: (ms: number) => string; consumerProps: Record<string, string> },
): Promise<void> {
  const { target, topic, records, limits, formatTime } = run;
  const span = { startMs: r.startMs, endMs: r.endMs };
  if (f['show-consumer-stats']) r.perConsumer.forEach((c, i) => console.log(shareConsumerLine(i + 1, c.clientId, { ...span, bytes: c.bytes, records: c.records }, formatTime)));
  if (r.stalled) console.log(shareTimeoutWarning(f.timeout));
  console.log(shareSummaryLine({ ...span, bytes: r.bytes, records: r.delivered }, formatTime));
  console.log('');
  const over = r.onePoll ? `all in one poll, so over the ${r.totalMs.toFixed(0)} ms including joining the group` : `over ${r.fetchMs.toFixed(0)} ms from the first record to the last; ${r.totalMs.toFixed(0)} ms including joining the group`;
  console.log(`${r.records} records read by ${r.shareConsumers} share consumer(s) of group ${r.groupId}: ${formatNumber(r.recordsPerSec)} records/sec (${r.mibPerSec.toFixed(2)} MiB/sec, ${r.redelivered} delivered again) ${over}`);
  const rows: string[][] = [['records/s', formatNumber(r.recordsPerSec)], ['MiB/s', r.mibPerSec.toFixed(1)], ['fetch ms / total ms', `${r.fetchMs.toFixed(0)} / ${r.totalMs.toFixed(0)}`]];
  if (r.shareConsumers > 1) rows.push(['records per share consumer', r.perConsumer.map((c) => String(c.records)).join(' / ')]);
  rows.push(['delivered again', `${r.redelivered} (delivery count above 1)`]);
  if (r.stalled) rows.push(['stopped short', `${r.delivered} of ${records} records: none came for ${f.timeout} ms (--timeout)`]);
  rows.push(...readingRows(target, r, r.mibPerSec, limits, f.raw));
  const prepared = topic.origin !== 'existing';
  const shape = prepared ? `, ${f['record-size']} B records, ${f.compression}` : '';
  const props = Object.entries(run.consumerProps).map(([k, v]) => `, ${k} ${v}`).join('');
  printTable(
    `perf-share-consume: ${target.description}, ${describeTopic(topic)}, ${r.shareConsumers} share consumer(s) of group ${r.groupId} (${AUTO_OFFSET_RESET} ${run.reset.reset})${shape}, max.poll.records ${f['max-poll-records']}, fetch.max.bytes ${f['fetch-max-bytes']}, check.crcs ${f['check-crcs']}${props}, CRC-32C ${crc32cImplementation}`,
    ['measure', 'value'],
    rows,
    stealNotes([{ step: 'the run', report: r.cpu }]),
  );
  if (r.metrics) console.log(`\n${shareMetricsText(r.metrics)}`);
  if (f.json) {
    console.log(`results: ${await writeResults(f.json, benchEnvironment(1), { options: { ...flagOptions(f), target: target.description, topicOrigin: topic.origin, groupStart: run.reset }, result: r, limits })}`);
  }
}

if (isMain(import.meta.url)) runMain(() => perfShareConsumeWithFlags(cliFlags('perf-share-consume', PERF_SHARE_CONSUME_SUMMARY, SHARE_CONSUME_FLAGS)));
