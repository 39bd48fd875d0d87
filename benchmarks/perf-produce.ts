/**
 * Producer throughput and latency, like kafka-producer-perf-test:
 *
 *   node --import tsx benchmarks/perf-produce.ts --records 2000000 --record-size 100 --acks 1 \
 *     --partitions 6 --replication-factor 1 --transport worker
 *
 * Starts a throw-away cluster (3 brokers in worker threads by default; data under os.tmpdir(),
 * removed at the end), creates the topic, produces, and reports records/s, MiB/s and latency
 * avg / p50 / p95 / p99 / p99.9 / max. Progress goes to stderr every 2 s.
 *
 * With --bootstrap-server it measures a running cluster instead (lib/perf-target.ts): --topic
 * names an existing topic to use as it is or a new one to create and keep; without it the run
 * makes a topic of its own and deletes it afterwards.
 *
 * Latency is measured per send() call: from the call to the resolution of its promise (all of
 * its records acknowledged at the requested acks). Each send() carries --send-size records
 * (default 100; --send-size 1 gives Kafka's per-record figure, at a much lower throughput
 * because each send() is an ask to the producer actor). Up to --max-in-flight sends are
 * outstanding per producer. Records have null keys (the sticky partitioner spreads them).
 * With --transactional-id / --transaction-duration-ms (or a transactional.id in the producer
 * configs) the records go in transactions committed at their age (lib/perf-transactions.ts);
 * --producer-config reads producer configs from a .properties file, under --producer-props.
 *
 * The same run measures the raw limits: fs.writeSync of batch.size chunks (the storage limit;
 * with RF=r each byte is written r times to the same disk, so the limit is that bandwidth / r),
 * a bare MessagePort and a bare TCP socket moving the same chunks.
 */
import type { Producer } from '../src/client/producer.js';
import { cliFlags, parseAcks, type FlagSpecs, type ParsedFlags } from './lib/perf-args.js';
import type { PerfClients, Transport } from './lib/perf-cluster.js';
import { PRODUCER_KEYS_OF_FLAGS, PRODUCER_KEYS_OWNED, clientProps, foldFlagKeys } from './lib/perf-props.js';
import { TransactionCycle, transactionSettings, transactionalIdOf, type TransactionSettings } from './lib/perf-transactions.js';
import { MonotonicPayloads, PayloadPicker, parseDelimiter, readPayloadFile } from './lib/payloads.js';
import { UsageError } from '../src/cli/errors.js';
import { parseProducerConfig } from '../actors/producer/producer-config.js';
import { TARGET_FLAGS, chooseTopic, clientTransport, describeTopic, openTargetWithLimits, releaseTopic, type TopicChoice } from './lib/perf-target.js';
import { MiB, Throttle, Window, isMain, progress, recordValue, runMain } from './lib/perf-common.js';
import { measureRawLimits, type RawLimits } from './lib/perf-raw.js';
import { LatencyRecorder, formatLatency, type LatencySummary } from './lib/latency.js';
import { benchEnvironment, writeResults } from './lib/results.js';
import { printTable } from './lib/table.js';
import { formatCpu, stealNotes, type CpuReport } from './lib/thread-cpu.js';
import { formatTraffic, type TrafficReport } from './lib/traffic.js';
import { MeasuredStretch } from './lib/stretch.js';
import { formatNumber, formatRatio, nowMs } from './lib/timing.js';
import { crc32cImplementation } from '../src/protocol/crc32c.js';
import type { ClientMetric } from '../src/client/metrics.js';
import { formatMetrics } from './lib/client-metrics.js';

export const PRODUCE_FLAGS = {
  ...TARGET_FLAGS,
  records: { type: 'int', default: 1_000_000, min: 1, kafka: ['num-records'], help: 'records to send (after the warm-up)' },
  'record-size': { type: 'int', default: 100, min: 0, help: 'value bytes per record' },
  throughput: { type: 'number', default: -1, help: 'records/s to aim for; -1 for as fast as possible' },
  acks: { type: 'string', default: '1', choices: ['0', '1', '-1', 'all'], help: 'producer acks' },
  partitions: { type: 'int', default: 6, min: 1, help: 'partitions of a new topic' },
  'replication-factor': { type: 'int', default: 1, min: 1, help: 'replicas per partition of a new topic' },
  'min-insync-replicas': { type: 'int', default: 0, min: 0, help: 'min.insync.replicas of a new topic (0: RF-1, at least 1)' },
  producers: { type: 'int', default: 1, min: 1, help: 'producers sharing the records' },
  brokers: { type: 'int', default: 3, min: 1, help: 'brokers in the throw-away cluster' },
  transport: { type: 'string', default: 'worker', choices: ['inproc', 'worker', 'tcp'], help: 'where the throw-away cluster\'s brokers run / how the client reaches them' },
  'batch-size': { type: 'int', default: 16_384, min: 0, help: 'producer batch.size' },
  'linger-ms': { type: 'int', default: 5, min: 0, help: 'producer linger.ms' },
  'sticky-bytes': { type: 'int', default: -1, min: -1, help: "producer partitioner.sticky.bytes (-1: the producer's default, 128 KiB; the batch size, 16384 unless set, gives Kafka's one batch per partition)" },
  compression: { type: 'string', default: 'none', choices: ['none', 'gzip', 'snappy', 'lz4', 'zstd'], help: 'producer compression.type' },
  'payload-file': { type: 'string', default: '', help: "record values from this file, split at --payload-delimiter, one picked at random per record (kafka-producer-perf-test's --payload-file); --record-size does not apply" },
  'payload-delimiter': { type: 'string', default: '\\n', help: 'what separates the payloads of --payload-file (\\n, \\r, \\t and \\\\ stand for those characters)' },
  'producer-props': { type: 'list', default: [], kafka: ['command-property'], help: "more producer configs, Kafka's --producer-props: key=value ... (enable.idempotence=true buffer.memory=67108864); a key of a flag above (bootstrap.servers, acks, batch.size, ...) sets that flag" },
  'producer-config': { type: 'string', default: '', kafka: ['producer.config', 'command-config'], help: 'producer configs from a Java .properties file; --producer-props override its keys' },
  'transactional-id': { type: 'string', default: '', help: 'send in transactions with this transactional.id (with several --producers, each adds -<n>); overrides a transactional.id of the producer configs' },
  'transaction-duration-ms': { type: 'int', default: 0, help: 'send in transactions, each committed once it is this old (3000 when only a transactional id is given)' },
  'payload-monotonic': { type: 'bool', default: false, help: "record values are the records' numbers counting up from 0, as decimal text (kafka-producer-perf-test's --payload-monotonic); --record-size does not apply" },
  'print-metrics': { type: 'bool', default: false, help: "print the producers' metrics at the end (Kafka's producer-metrics: batch-size-avg, record-queue-time-avg, request-latency-avg, ...)" },
  'send-size': { type: 'int', default: 100, min: 1, help: 'records per send() call (latency is per call)' },
  'max-in-flight': { type: 'int', default: 256, min: 1, help: 'outstanding send() calls per producer' },
  'warmup-records': { type: 'int', default: -1, help: 'untimed records first (-1: 20% of --records, at most 500k)' },
  'heap-growing-percent': { type: 'int', default: -1, min: -1, help: "V8's heap growing percent for the process and the throw-away cluster (0: V8's own; -1: the perf tools' default, `samsa start`'s 300 unless SAMSA_HEAP_GROWING_PERCENT says otherwise)" },
  raw: { type: 'bool', default: true, help: 'measure the raw limits in the same run (not against brokers on other hosts)' },
  json: { type: 'string', default: 'perf-produce', help: 'results file name under benchmarks/results/ (empty: none)' },
} satisfies FlagSpecs;

export interface ProduceOptions {
  records: number;
  recordSize: number;
  throughput: number;
  acks: 0 | 1 | -1;
  partitions: number;
  replicationFactor: number;
  minInsyncReplicas: number;
  producers: number;
  batchSize: number;
  lingerMs: number;
  /** partitioner.sticky.bytes; -1 leaves the producer's default. */
  stickyBytes: number;
  compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
  /** More producer configs (--producer-config, then --producer-props), checked already. */
  producerProps: Record<string, string>;
  /** Send in transactions (lib/perf-transactions.ts); null: none. */
  transaction: TransactionSettings | null;
  /** Record values to pick from at random (--payload-file); none: one value of recordSize bytes. */
  payloads?: readonly Buffer[];
  /** Record values are the records' numbers as decimal text (--payload-monotonic). */
  payloadMonotonic?: boolean;
  sendSize: number;
  maxInFlight: number;
  warmupRecords: number;
  topic: string;
  /** Label for progress lines. */
  label?: string;
  /** Read the producers' metrics at the end (--print-metrics). */
  metrics?: boolean;
}

export interface ProduceResult {
  records: number;
  bytes: number;
  elapsedMs: number;
  recordsPerSec: number;
  mibPerSec: number;
  /** Per send() call. */
  latency: LatencySummary;
  /** Where the CPU went while the timed records were sent (null where threads cannot be read). */
  cpu: CpuReport | null;
  /** Posts (or socket writes) between the client's node and the brokers meanwhile (null in-process). */
  traffic: TrafficReport | null;
  /** Transactions committed while the timed records were sent (a run with transactions). */
  transactions?: number;
  /** Each producer's metrics at the end of the run (--print-metrics). */
  metrics?: ClientMetric[][];
}

export function defaultProduceOptions(over: Partial<ProduceOptions> = {}): ProduceOptions {
  return {
    records: 1_000_000,
    recordSize: 100,
    throughput: -1,
    acks: 1,
    partitions: 6,
    replicationFactor: 1,
    minInsyncReplicas: 0,
    producers: 1,
    batchSize: 16_384,
    lingerMs: 5,
    stickyBytes: -1,
    compression: 'none',
    producerProps: {},
    transaction: null,
    sendSize: 100,
    maxInFlight: 256,
    warmupRecords: -1,
    topic: 'perf',
    ...over,
  };
}

/** Untimed records runProduce sends before the timed ones (--warmup-records, -1: 20%, at most 500k). */
export function warmupRecordsOf(o: Pick<ProduceOptions, 'records' | 'warmupRecords'>): number {
  return o.warmupRecords >= 0 ? o.warmupRecords : Math.min(500_000, Math.round(o.records * 0.2));
}

/** Records a runProduce leaves in its topic: the warm-up and the timed ones. */
export function recordsWrittenBy(o: Pick<ProduceOptions, 'records' | 'warmupRecords'>): number {
  return o.records + warmupRecordsOf(o);
}

export function topicConfig(o: { replicationFactor: number; minInsyncReplicas: number }): Record<string, string> {
  const minIsr = o.minInsyncReplicas > 0 ? o.minInsyncReplicas : Math.max(1, o.replicationFactor - 1);
  return { 'min.insync.replicas': String(minIsr) };
}

/**
 * Produces `count` records with the given producers; each send() carries up to sendSize records.
 * `makeValue` may stamp the value (e2e latency); latency is recorded per call into `lat`, and
 * `onAck` hears each call's start (after its values were made) and acknowledgement time. With
 * `o.transaction` each producer sends in transactions of that age (lib/perf-transactions.ts);
 * a commit waits for the transaction's sends to be acknowledged, and `counters.transactions`
 * counts the commits.
 */
export async function produceRecords(
  producers: Pick<Producer, 'send' | 'transaction'>[],
  o: ProduceOptions,
  count: number,
  lat: LatencyRecorder | null,
  makeValue: () => Buffer,
  counters: { sent: number; acked: number; transactions?: number },
  onAck?: (sentAt: number, ms: number) => void,
): Promise<void> {
  const per = Math.ceil(count / producers.length);
  const lanes = producers.map(async (p, i) => {
    const mine = Math.max(0, Math.min(per, count - i * per));
    const window = new Window(o.maxInFlight);
    const throttle = new Throttle(o.throughput > 0 ? o.throughput / producers.length : -1);
    const txns = o.transaction ? new TransactionCycle(p, o.transaction.durationMs) : null;
    let sent = 0;
    try {
      while (sent < mine) {
        await throttle.pace(sent);
        await window.slot();
        const to = txns ? await txns.open() : p;
        const n = Math.min(o.sendSize, mine - sent);
        const messages = new Array(n);
        for (let k = 0; k < n; k++) messages[k] = { value: makeValue() };
        const t0 = nowMs();
        sent += n;
        counters.sent += n;
        window.track(
          to.send({ topic: o.topic, messages }).then(() => {
            const ms = nowMs() - t0;
            lat?.record(ms);
            onAck?.(t0, ms);
            counters.acked += n;
          }),
        );
        if (txns?.due()) await commitAfter(window, txns, counters);
      }
      await window.drain();
      if (txns) await commitAfter(window, txns, counters);
    } catch (err) {
      await txns?.abort();
      throw err;
    }
  });
  await Promise.all(lanes);
}

/** Commits a lane's open transaction once its sends are acknowledged. */
async function commitAfter(window: Window, txns: TransactionCycle, counters: { transactions?: number }): Promise<void> {
  await window.drain();
  if (await txns.commit()) counters.transactions = (counters.transactions ?? 0) + 1;
}

/**
 * Producer `index`'s config: the tool's flags, then the producer configs (--producer-config,
 * then --producer-props), then the transactional id of the run's transactions (which
 * --transactional-id decides over the configs, as in Kafka's tool).
 */
export function producerConfigOf(o: ProduceOptions, index = 0): Record<string, unknown> {
  return {
    acks: o.acks,
    'batch.size': o.batchSize,
    'linger.ms': o.lingerMs,
    'compression.type': o.compression,
    ...(o.stickyBytes >= 0 ? { 'partitioner.sticky.bytes': o.stickyBytes } : {}),
    ...o.producerProps,
    ...(o.transaction ? { 'transactional.id': transactionalIdOf(o.transaction, index, o.producers) } : {}),
  };
}

/** Runs the producer load against a running cluster (the topic must exist). */
export async function runProduce(cluster: PerfClients, o: ProduceOptions): Promise<ProduceResult> {
  const client = await cluster.client(`perf-produce-${o.topic}`);
  // several producers: each its own client.id (its metrics' tag), unless the configs name one
  const producers = Array.from({ length: o.producers }, (_, i) => client.producer({ ...(o.producers > 1 ? { 'client.id': `${client.clientId}-${i}` } : {}), ...producerConfigOf(o, i) }));
  for (const p of producers) await p.connect();
  const value = recordValue(o.recordSize);
  const picker = o.payloads ? new PayloadPicker(o.payloads) : o.payloadMonotonic ? new MonotonicPayloads() : null;
  const makeValue = picker ? picker.next : () => value;
  const meanSize = () => (picker ? picker.meanSize() : o.recordSize);
  const label = o.label ?? 'produce';
  try {
    const warm = warmupRecordsOf(o);
    if (warm > 0) await produceRecords(producers, { ...o, throughput: -1 }, warm, null, makeValue, { sent: 0, acked: 0 });
    picker?.resetCounts();
    // one sample per send() call, sized up front (grown while sending, it would copy on the client thread)
    const lat = new LatencyRecorder(Math.ceil(o.records / o.sendSize));
    const counters = { sent: 0, acked: 0, transactions: 0 };
    const stretch = new MeasuredStretch(client.system);
    const t0 = nowMs();
    stretch.start(t0);
    let lastT = t0;
    let lastAcked = 0;
    // the rate over the last second or more (a terminal redraws every 250 ms)
    let rate = Number.NaN;
    const stop = progress(
      label,
      () => {
        const t = nowMs();
        if (t - lastT >= 1_000) {
          rate = ((counters.acked - lastAcked) * 1000) / (t - lastT);
          lastT = t;
          lastAcked = counters.acked;
        }
        const r = lat.running();
        const speed = Number.isNaN(rate) ? '' : `, ${formatNumber(rate)} records/s (${((rate * meanSize()) / MiB).toFixed(1)} MiB/s)`;
        const txns = o.transaction ? `, ${counters.transactions} transactions committed` : '';
        return `${counters.acked} records acked${speed}, ${r.avg.toFixed(2)} ms avg latency, ${r.max.toFixed(1)} ms max${txns}`;
      },
      { fraction: () => counters.acked / o.records },
    );
    try {
      await produceRecords(producers, o, o.records, lat, makeValue, counters);
    } finally {
      stop();
    }
    const t1 = nowMs();
    const elapsedMs = t1 - t0;
    stretch.end(t1);
    const bytes = picker ? picker.bytes : o.records * o.recordSize;
    const r: ProduceResult = { records: o.records, bytes, elapsedMs, recordsPerSec: (o.records * 1000) / elapsedMs, mibPerSec: bytes / MiB / (elapsedMs / 1000), latency: lat.summary(), cpu: stretch.cpu(), traffic: stretch.traffic(o.records) };
    if (o.transaction) r.transactions = counters.transactions;
    if (o.metrics) r.metrics = await Promise.all(producers.map((p) => p.metrics()));
    return r;
  } finally {
    for (const p of producers) await p.disconnect().catch(() => undefined);
  }
}

/** Bytes a run sends at least for its brokers' kernel time per GiB to be shown. */
export const MIN_BYTES_PER_GIB_FIGURE = 64 * MiB;

/**
 * Kernel time of the brokers' threads per GiB of records sent in the timed stretch (their
 * writes into the page cache, mostly), or null without a per-thread CPU report or when the
 * run sent under MIN_BYTES_PER_GIB_FIGURE.
 */
export function brokerKernelMsPerGiB(r: { cpu: CpuReport | null; bytes: number }): number | null {
  // the kernel counts a thread's time in 10 ms ticks: over fewer bytes the figure is mostly rounding
  if (!r.cpu || r.cpu.nodes.length === 0 || r.bytes < MIN_BYTES_PER_GIB_FIGURE) return null;
  return (r.cpu.nodes.reduce((a, n) => a + n.sys, 0) * r.cpu.wallMs) / (r.bytes / (1024 * MiB));
}

/** The ratios of a produce result to the raw limits (records/s the limit would allow at this record size). */
export function produceRatios(r: ProduceResult, limits: RawLimits, o: { recordSize: number; replicationFactor: number }, transport: Transport): { fs: number; transport: number | null } {
  const fsLimit = limits.fsWriteMiBs / o.replicationFactor;
  const tr = transport === 'worker' ? limits.portMiBs : transport === 'tcp' ? limits.tcpMiBs : null;
  return { fs: r.mibPerSec / fsLimit, transport: tr === null ? null : r.mibPerSec / tr };
}

/** What the values of a run were, for its header. */
function valuesOf(o: ProduceOptions, payloadFile: string, r: ProduceResult): string {
  const mean = `${formatNumber(r.bytes / r.records)} B a record on average`;
  if (o.payloads) return `${o.payloads.length} payloads of ${payloadFile} (${mean})`;
  if (o.payloadMonotonic) return `values counting up from 0 (${mean})`;
  return `${o.recordSize} B records`;
}

/** The transactions of a run, for its header ('' for none). */
function transactionsOf(o: ProduceOptions): string {
  if (!o.transaction) return '';
  return `, transactions of ${o.transaction.durationMs} ms (transactional.id ${o.transaction.id}${o.producers > 1 ? `-0 to -${o.producers - 1}` : ''})`;
}

export const PERF_PRODUCE_SUMMARY = 'Producer throughput and latency against a running cluster (--bootstrap-server) or a throw-away one (like kafka-producer-perf-test).';

/** The tool with its flags parsed (also `samsa perf-produce`). */
export async function perfProduceWithFlags(f: ParsedFlags<typeof PRODUCE_FLAGS>): Promise<void> {
  const sources = { flag: 'producer-props', pairs: f['producer-props'], fileFlag: 'producer-config', file: f['producer-config'] };
  // acks=all, batch.size=... among the configs, as Kafka's tool takes them: they set their flags
  foldFlagKeys(f, PRODUCE_FLAGS, sources, PRODUCER_KEYS_OF_FLAGS, (flag, a, b) => (flag === 'acks' ? parseAcks(String(a)) === parseAcks(String(b)) : a === b));
  const o = defaultProduceOptions({
    records: f.records,
    recordSize: f['record-size'],
    throughput: f.throughput,
    acks: parseAcks(f.acks),
    partitions: f.partitions,
    replicationFactor: f['replication-factor'],
    minInsyncReplicas: f['min-insync-replicas'],
    producers: f.producers,
    batchSize: f['batch-size'],
    lingerMs: f['linger-ms'],
    stickyBytes: f['sticky-bytes'],
    compression: f.compression as ProduceOptions['compression'],
    sendSize: f['send-size'],
    maxInFlight: f['max-in-flight'],
    warmupRecords: f['warmup-records'],
    metrics: f['print-metrics'],
  });
  const valuesFrom = ['record-size', 'payload-file', 'payload-monotonic'].filter((k) => f.given.has(k) && (k !== 'payload-monotonic' || f['payload-monotonic']));
  if (valuesFrom.length > 1) {
    const names = valuesFrom.map((k) => `--${k}`);
    throw new UsageError(`${names.slice(0, -1).join(', ')} and ${names.at(-1)} ${names.length === 2 ? 'both' : 'all'} say what the values are: give one`);
  }
  if (f['payload-file'] !== '') o.payloads = readPayloadFile(f['payload-file'], parseDelimiter(f['payload-delimiter']));
  o.payloadMonotonic = f['payload-monotonic'];
  o.producerProps = clientProps(sources, PRODUCER_KEYS_OWNED, (c) => {
    // transactions: from --transactional-id, --transaction-duration-ms or a transactional.id of
    // the configs; they need acks all, which they get unless --acks says otherwise
    o.transaction = transactionSettings(f['transactional-id'], f.given.has('transaction-duration-ms') ? f['transaction-duration-ms'] : null, c['transactional.id']);
    if (o.transaction) {
      if (!f.given.has('acks')) o.acks = -1;
      else if (o.acks !== -1) throw new UsageError(`--acks ${f.acks}: transactions need acks all (-1); leave --acks out or give --acks all`);
    }
    // checked with the flags' settings, so a pair that cannot go together (idempotence with acks 1) is refused too
    parseProducerConfig(producerConfigOf({ ...o, producerProps: c }));
  }, PRODUCER_KEYS_OF_FLAGS);
  const { target, limits } = await openTargetWithLimits(f, f.given, f.raw, () => measureRawLimits(Math.max(o.batchSize, 1024)));
  let r: ProduceResult;
  let topic: TopicChoice | null = null;
  try {
    topic = await chooseTopic(target, { topic: f.topic, defaultName: 'perf', partitions: o.partitions, replicationFactor: o.replicationFactor, config: topicConfig(o) }, f.given);
    o.topic = topic.name;
    o.partitions = topic.partitions;
    o.replicationFactor = topic.replicationFactor;
    r = await runProduce(target, o);
  } finally {
    await releaseTopic(target, topic).finally(() => target.close());
  }
  const transport = clientTransport(target);
  console.log(`${r.records} records sent, ${formatNumber(r.recordsPerSec)} records/sec (${r.mibPerSec.toFixed(2)} MiB/sec), ${formatLatency(r.latency)} (per send() of ${o.sendSize} records)`);
  const rows: string[][] = [['records/s', formatNumber(r.recordsPerSec)], ['MiB/s', r.mibPerSec.toFixed(1)]];
  if (r.transactions !== undefined) rows.push(['transactions committed', `${r.transactions}${r.transactions > 0 ? ` (${formatNumber(r.records / r.transactions)} records each on average)` : ''}`]);
  if (r.cpu) rows.push([target.kind === 'running' ? 'CPU while sending (this process)' : 'CPU while sending', formatCpu(r.cpu)]);
  if (r.traffic) rows.push(["the client's thread and the brokers", formatTraffic(r.traffic)]);
  const kernel = brokerKernelMsPerGiB(r);
  if (kernel !== null) rows.push(["brokers' kernel time per GiB sent", `${kernel.toFixed(0)} ms (the page cache's cost: benchmarks/FINDINGS.md)`]);
  if (limits) {
    const ratios = produceRatios(r, limits, o, transport);
    rows.push([`raw fs.writeSync ${o.batchSize} B chunks${o.replicationFactor > 1 ? ` / RF ${o.replicationFactor}` : ''}`, `${(limits.fsWriteMiBs / o.replicationFactor).toFixed(0)} MiB/s (ratio ${formatRatio(ratios.fs)})`]);
    rows.push(['raw MessagePort', `${limits.portMiBs.toFixed(0)} MiB/s${transport === 'worker' ? ` (ratio ${formatRatio(ratios.transport!)})` : ''}`]);
    rows.push(['raw TCP socket', `${limits.tcpMiBs.toFixed(0)} MiB/s${transport === 'tcp' ? ` (ratio ${formatRatio(ratios.transport!)})` : ''}`]);
    rows.push(['raw pipeline (port + fs.writeSync in a worker)', `${limits.pipelineMiBs.toFixed(0)} MiB/s${o.replicationFactor === 1 && target.kind !== 'running' ? ` (ratio ${formatRatio(r.mibPerSec / limits.pipelineMiBs)})` : ''}`]);
  } else if (f.raw) {
    rows.push(['raw limits', "not measured: the brokers run on other hosts, whose disks and links this machine's limits do not bound"]);
  }
  const props = Object.entries(o.producerProps).map(([k, v]) => `, ${k} ${v}`).join('');
  printTable(
    `perf-produce: ${target.description}, ${describeTopic(topic)}, acks ${o.transaction && !f.given.has('acks') ? 'all' : f.acks}, ${valuesOf(o, f['payload-file'], r)}, batch.size ${o.batchSize}, linger.ms ${o.lingerMs}${o.stickyBytes >= 0 ? `, partitioner.sticky.bytes ${o.stickyBytes}` : ''}${props}, ${o.compression}${transactionsOf(o)}, CRC-32C ${crc32cImplementation}`,
    ['measure', 'value'],
    rows,
    stealNotes([{ step: 'the run', report: r.cpu }]),
  );
  if (r.metrics) console.log(`\n${formatMetrics(r.metrics.flat())}`);
  if (f.json) {
    const file = await writeResults(f.json, benchEnvironment(1), { options: { ...o, payloads: undefined, payloadFile: f['payload-file'] || undefined, payloadCount: o.payloads?.length, target: target.description, transport: target.kind, brokers: target.brokers, topicOrigin: topic.origin }, result: r, limits });
    console.log(`results: ${file}`);
  }
}

if (isMain(import.meta.url)) runMain(() => perfProduceWithFlags(cliFlags('perf-produce', PERF_PRODUCE_SUMMARY, PRODUCE_FLAGS)));
