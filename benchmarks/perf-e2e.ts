/**
 * End-to-end latency: produce at a fixed rate, consume at the same time, and report the
 * percentiles of (time received by the consumer's handler - time send() was called). The send
 * time is stamped into the first 8 bytes of each record's value (performance.now(); producer
 * and consumer share the main thread's clock).
 *
 *   node --import tsx benchmarks/perf-e2e.ts --throughput 50000 --records 800000
 *   node --import tsx benchmarks/perf-e2e.ts --sequential --records 10000 --acks all
 *
 * With --sequential, kafka-e2e-latency's measurement (lib/e2e-sequential.ts): one record at a
 * time, each sent after the last one arrived. Otherwise records are sent in send() calls of
 * --send-size records, paced to --throughput records/s; the first --warmup-fraction of the records is left out of the percentiles. The default leaves
 * out the first half (8 s at 50,000 records/s) and measures the next 8 s. V8's optimizing
 * compiler keeps its helper threads busy for the first seconds of a run (perf: 95% of their
 * samples in TurboFan, a third of a core), competing for the cores with the brokers and the
 * client: with a 1 s warm-up the p99 measured that rather than the steady state (9.7-25 ms
 * against 4.3-8.4 ms with 4 s, runs taken in turn). At 50,000 records/s a broker's hot
 * functions reach TurboFan late (--trace-opt: ~130 optimizations in the 4-8 s window, in the
 * brokers), and 400,000 records (4 s + 4 s) gave p99 2.9-4.6 ms where 800,000 gave 2.3-3.0 and
 * 1,000,000 2.3.
 */
import { UsageError } from '../src/cli/errors.js';
import { FlagError, cliFlags, flagOptions, parseAcks, type FlagSpecs, type ParsedFlags } from './lib/perf-args.js';
import type { PerfClients } from './lib/perf-cluster.js';
import { TARGET_FLAGS, chooseTopic, describeTopic, openTargetWithLimits, recordsHeld, releaseTopic, type PerfTarget, type TopicChoice } from './lib/perf-target.js';
import { isMain, progress, runMain } from './lib/perf-common.js';
import { LatencyRecorder, formatLatency, type LatencySummary } from './lib/latency.js';
import { E2eTrace, formatLateBatches, type LateBatches } from './lib/late-batches.js';
import { formatCoreStalls, measureCoreStalls, measurePortRoundTrip, measureTcpRoundTrip, type CoreStalls } from './lib/perf-raw.js';
import { benchEnvironment, writeResults } from './lib/results.js';
import { formatCpu, stealNotes, type CpuReport } from './lib/thread-cpu.js';
import { formatTraffic, type TrafficReport } from './lib/traffic.js';
import { MeasuredStretch } from './lib/stretch.js';
import { nowMs, sleep } from './lib/timing.js';
import type { ClientMetric } from '../src/client/metrics.js';
import type { Consumer, EachBatchPayload } from '../src/client/consumer.js';
import type { Producer } from '../src/client/producer.js';
import type { ActorSystem } from '../src/runtime/actor-system.js';
import { formatMetrics } from './lib/client-metrics.js';
import { SEQUENTIAL_DEFAULT_RECORDS, SequentialReceiver, runSequential, sequentialBatchHandler, type SequentialResult } from './lib/e2e-sequential.js';
import { defaultProduceOptions, produceRecords, topicConfig } from './perf-produce.js';
import { E2E_CONSUMER_KEYS_OF_FLAGS, E2E_CONSUMER_KEYS_OWNED, E2E_PRODUCER_KEYS_OF_FLAGS, clientProps, foldFlagKeys, refuseUnclaimedKeys } from './lib/perf-props.js';
import { PRODUCER_CONFIG_KEYS, parseProducerConfig } from '../actors/producer/producer-config.js';
import { CONSUMER_CONFIG_KEYS, parseConsumerConfig } from '../actors/consumer/consumer-config.js';

export const E2E_FLAGS = {
  ...TARGET_FLAGS,
  records: { type: 'int', default: 800_000, min: 1, help: 'records to send' },
  throughput: { type: 'number', default: 50_000, help: 'records/s (-1: unthrottled)' },
  'record-size': { type: 'int', default: 100, min: 8, help: 'value bytes per record (the first 8 hold the send time)' },
  acks: { type: 'string', default: '1', choices: ['0', '1', '-1', 'all'], help: 'producer acks' },
  partitions: { type: 'int', default: 6, min: 1, help: 'partitions of a new topic' },
  'replication-factor': { type: 'int', default: 1, min: 1, help: 'replicas per partition of a new topic' },
  brokers: { type: 'int', default: 3, min: 1, help: 'brokers in the throw-away cluster' },
  transport: { type: 'string', default: 'worker', choices: ['inproc', 'worker', 'tcp'], help: "where the throw-away cluster's brokers run / how the client reaches them" },
  'send-size': { type: 'int', default: 10, min: 1, help: 'records per send() call' },
  'linger-ms': { type: 'int', default: 0, min: 0, help: 'producer linger.ms' },
  'warmup-fraction': { type: 'number', default: 0.5, min: 0, help: 'leading share of records left out of the percentiles (the JIT warm-up)' },
  sequential: { type: 'bool', default: false, help: `one record at a time, as kafka-e2e-latency measures: send it, wait for its acknowledgement and for the consumer to receive it, then the next (${SEQUENTIAL_DEFAULT_RECORDS} records unless --records says; --throughput, --send-size and --linger-ms do not apply; acks 1 or all)` },
  'producer-props': { type: 'list', default: [], help: 'more producer configs: key=value ... (max.in.flight.requests.per.connection=1); acks, linger.ms and bootstrap.servers set their flags' },
  'consumer-props': { type: 'list', default: [], help: "more consumer configs: key=value ... (fetch.min.bytes=1 fetch.max.wait.ms=500, over the run's own fetch.max.wait.ms 100 and max.poll.records 10000); group.id, enable.auto.commit and auto.offset.reset are the run's own" },
  'client-config': { type: 'string', default: '', help: "configs for both clients from a Java .properties file (kafka-e2e-latency's properties file): each key goes to the client that has it; --producer-props and --consumer-props override its keys" },
  'print-metrics': { type: 'bool', default: false, help: "print the producer's and the consumer's metrics at the end (Kafka's producer-metrics and consumer-fetch-manager-metrics)" },
  raw: { type: 'bool', default: true, help: 'measure a bare round trip (MessagePort; TCP for a client over TCP) at the same message rate first, and the stalls the machine imposes on two busy threads (not against brokers on other hosts)' },
  json: { type: 'string', default: 'perf-e2e', help: 'results file name under benchmarks/results/ (empty: none)' },
} satisfies FlagSpecs;

/** The client configs of a run beyond its flags (--producer-props, --consumer-props, --client-config), checked already. */
export interface E2eClientProps {
  producerProps?: Record<string, string>;
  consumerProps?: Record<string, string>;
}

export interface E2eOptions extends E2eClientProps {
  topic: string;
  records: number;
  throughput: number;
  recordSize: number;
  acks: 0 | 1 | -1;
  sendSize: number;
  lingerMs: number;
  warmupFraction: number;
  label?: string;
  /** Read the producer's and the consumer's metrics at the end (--print-metrics). */
  metrics?: boolean;
}

export interface E2eResult {
  records: number;
  throughput: number;
  achievedPerSec: number;
  latency: LatencySummary;
  /** Where the CPU went while the measured records went through (null where threads cannot be read). */
  cpu: CpuReport | null;
  /** Posts (or socket writes) between the client's node and the brokers meanwhile (null in-process). */
  traffic: TrafficReport | null;
  /** The records at or above the p99, by the batches they came in. */
  late: LateBatches;
  /** The producer's and the consumer's metrics at the end (--print-metrics). */
  metrics?: ClientMetric[];
}

export async function runE2e(cluster: PerfClients, o: E2eOptions): Promise<E2eResult> {
  const { consumer, producer, system } = await e2eClients(cluster, o.topic, o.acks, o.lingerMs, 'earliest', o);
  const skip = Math.floor(o.records * o.warmupFraction);
  // sized for the run up front: grown while measuring, they stalled the client thread
  const lat = new LatencyRecorder(o.records - skip);
  const trace = new E2eTrace(o.records - skip, Math.ceil(o.records / o.sendSize));
  let received = 0;
  const stretch = new MeasuredStretch(system);
  try {
    await consumeFromStart(consumer, o.topic, ({ batch }) => {
      const now = nowMs();
      if (!stretch.started && received + batch.messages.length > skip) stretch.start(now);
      for (const m of batch.messages) {
        if (received++ >= skip && m.value) {
          const sentAt = m.value.readDoubleLE(0);
          lat.record(now - sentAt);
          trace.record(sentAt, now - sentAt, batch.partition);
        }
      }
      if (!stretch.ended && received >= o.records) stretch.end();
    });
    const stop = progress(o.label ?? 'e2e', () => e2eProgressLine(received, o.records, skip, lat), { fraction: () => received / o.records });
    const t0 = nowMs();
    const po = defaultProduceOptions({ topic: o.topic, throughput: o.throughput, sendSize: o.sendSize, maxInFlight: 1_000_000 });
    try {
      await produceRecords([producer], po, o.records, null, () => {
        const v = Buffer.allocUnsafe(o.recordSize);
        v.fill(7, 8);
        v.writeDoubleLE(nowMs(), 0);
        return v;
      }, { sent: 0, acked: 0 }, (sentAt, ms) => trace.ack(sentAt, ms));
      const sentMs = nowMs() - t0;
      const deadline = Date.now() + 30_000;
      while (received < o.records && Date.now() < deadline) await sleep(10);
      if (received < o.records) throw new Error(`e2e: received ${received} of ${o.records} records`);
      const latency = lat.summary();
      const r: E2eResult = { records: o.records, throughput: o.throughput, achievedPerSec: (o.records * 1000) / sentMs, latency, cpu: stretch.cpu(), traffic: stretch.traffic(o.records - skip), late: trace.lateBatches(latency.p99) };
      if (o.metrics) r.metrics = [...(await producer.metrics()), ...(await consumer.metrics())];
      return r;
    } finally {
      stop();
    }
  } finally {
    await producer.disconnect().catch(() => undefined);
    await consumer.disconnect().catch(() => undefined);
  }
}

/** The consumer configs of a run (its group and start are set apart): a fetch waits at most 100 ms. */
export function e2eConsumerConfig(from: 'earliest' | 'latest', props: Record<string, string> = {}): Record<string, unknown> {
  return { 'enable.auto.commit': false, 'auto.offset.reset': from, 'fetch.max.wait.ms': 100, 'max.poll.records': 10_000, 'session.timeout.ms': 10_000, 'heartbeat.interval.ms': 500, ...props };
}

/** The producer configs of a run. */
export function e2eProducerConfig(acks: 0 | 1 | -1, lingerMs: number, props: Record<string, string> = {}): Record<string, unknown> {
  return { ...props, acks, 'linger.ms': lingerMs };
}

/** The run's producer and consumer (in a group of its own, starting at the partitions' start or end), connected. */
async function e2eClients(cluster: PerfClients, topic: string, acks: 0 | 1 | -1, lingerMs: number, from: 'earliest' | 'latest', props: E2eClientProps): Promise<{ consumer: Consumer; producer: Producer; system: ActorSystem }> {
  const client = await cluster.client(`perf-e2e-${topic}`);
  const consumer = client.consumer({ groupId: `perf-e2e-${topic}-${process.pid}`, ...e2eConsumerConfig(from, props.consumerProps) });
  const producer = client.producer(e2eProducerConfig(acks, lingerMs, props.producerProps));
  await consumer.connect();
  await producer.connect();
  return { consumer, producer, system: client.system };
}

/**
 * Runs `eachBatch` on the topic from its beginning and returns once the consumer has its
 * partitions (or 30 s passed) and its fetches have started. The topic is new or checked empty:
 * from its beginning is every record of the run, even those sent before the consumer has its
 * positions; 'latest' would race them.
 */
async function consumeFromStart(consumer: Consumer, topic: string, eachBatch: (p: EachBatchPayload) => void): Promise<void> {
  let assigned = false;
  consumer.on('group.join', () => void (assigned = true));
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachBatch });
  const joinDeadline = Date.now() + 30_000;
  while (!assigned && Date.now() < joinDeadline) await sleep(20);
  await sleep(300); // let the fetch sessions start
}

/**
 * Runs `eachBatch` on the topic from the partitions' ends (a topic that holds records already,
 * as kafka-e2e-latency reads it) and returns once the consumer has every partition and a
 * position in each: a record sent after that is one it reads, so nothing sent is skipped. For
 * a sequential run only, where every delivery is checked to be the record just sent.
 */
async function consumeFromEnd(consumer: Consumer, topic: string, partitions: number, eachBatch: (p: EachBatchPayload) => void): Promise<void> {
  await consumer.subscribe({ topic, fromBeginning: false });
  await consumer.run({ eachBatch });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { assignment } = await consumer.describe();
    const mine = assignment.filter((a) => a.topic === topic);
    if (mine.length === partitions && mine.every((a) => a.position !== null)) return;
    if (Date.now() >= deadline) throw new Error(`e2e: the consumer has positions in ${mine.filter((a) => a.position !== null).length} of ${partitions} partitions of ${topic} after 30 s`);
    await sleep(20);
  }
}

export interface SequentialE2eResult extends SequentialResult {
  records: number;
  /** Where the CPU went while the measured records went through (null where threads cannot be read). */
  cpu: CpuReport | null;
  /** Posts (or socket writes) between the client's node and the brokers meanwhile (null in-process). */
  traffic: TrafficReport | null;
  metrics?: ClientMetric[];
}

/** perf-e2e --sequential (lib/e2e-sequential.ts): one record at a time through a producer and a consumer of `cluster`. */
export async function runSequentialE2e(cluster: PerfClients, o: { topic: string; records: number; recordSize: number; acks: 1 | -1; warmupFraction: number; metrics?: boolean; label?: string; fromEndOf?: number } & E2eClientProps): Promise<SequentialE2eResult> {
  const { consumer, producer, system } = await e2eClients(cluster, o.topic, o.acks, 0, o.fromEndOf === undefined ? 'earliest' : 'latest', o);
  const receiver = new SequentialReceiver();
  const skip = Math.floor(o.records * o.warmupFraction);
  const stretch = new MeasuredStretch(system);
  if (skip === 0) stretch.start();
  try {
    if (o.fromEndOf === undefined) await consumeFromStart(consumer, o.topic, sequentialBatchHandler(receiver));
    else await consumeFromEnd(consumer, o.topic, o.fromEndOf, sequentialBatchHandler(receiver));
    let done = 0;
    let lat: LatencyRecorder | null = null;
    const stop = progress(o.label ?? 'e2e', () => (lat ? e2eProgressLine(done, o.records, skip, lat) : `${done} of ${o.records} records`), { fraction: () => done / o.records });
    try {
      const r = await runSequential(producer, receiver, {
        topic: o.topic,
        records: o.records,
        recordSize: o.recordSize,
        skip,
        onRecord: (n, l) => {
          done = n;
          lat = l;
          if (n === skip) stretch.start();
          if (n === o.records) stretch.end();
        },
      });
      const out: SequentialE2eResult = { ...r, records: o.records, cpu: stretch.cpu(), traffic: stretch.traffic(o.records - skip) };
      if (o.metrics) out.metrics = [...(await producer.metrics()), ...(await consumer.metrics())];
      return out;
    } finally {
      stop();
    }
  } finally {
    await producer.disconnect().catch(() => undefined);
    await consumer.disconnect().catch(() => undefined);
  }
}

/** The running line: the warm-up's progress until measured records arrive, then their latency. */
export function e2eProgressLine(received: number, records: number, skip: number, lat: LatencyRecorder): string {
  const head = `${received} of ${records} records received`;
  if (received <= skip) return `${head}; warming up (the first ${skip} are not measured)`;
  return `${head}; ${formatLatency(lat.approximate())}`;
}

/**
 * The bare round trip the suite and the tool compare with: one message per send() at the run's
 * rate (5,000 a second when the run is not paced), as big as a send's records.
 */
export function rawRoundTripLoad(o: { throughput: number; sendSize: number; recordSize: number }): { perSec: number; bytes: number } {
  return { perSec: o.throughput > 0 ? o.throughput / o.sendSize : 5_000, bytes: o.sendSize * o.recordSize };
}

/** The raw limits of an e2e run: a bare round trip over the client's transport at the run's rate, and the machine's stalls. */
interface E2eLimits {
  roundTrip: LatencySummary;
  /** 'MessagePort' or 'TCP socket'. */
  over: string;
  stalls: CoreStalls;
}

export const PERF_E2E_SUMMARY = 'End-to-end latency (send() to the consumer handler) at a fixed produce rate, or one record at a time (--sequential), on a running cluster (--bootstrap-server) or a throw-away one.';

/**
 * The run's client configs beyond its flags: --producer-props / --consumer-props over the keys
 * of --client-config each client has (a key neither has is refused); acks, linger.ms and
 * bootstrap.servers set their flags; each checked by the client's own parser with the run's
 * settings.
 */
function e2eClientProps(f: ParsedFlags<typeof E2E_FLAGS>): Required<E2eClientProps> {
  const file = f['client-config'];
  refuseUnclaimedKeys('client-config', file, PRODUCER_CONFIG_KEYS, CONSUMER_CONFIG_KEYS, Object.keys(E2E_PRODUCER_KEYS_OF_FLAGS), Object.keys(E2E_CONSUMER_KEYS_OWNED));
  const producerSrc = { flag: 'producer-props', pairs: f['producer-props'], fileFlag: 'client-config', file, fileKeys: [...PRODUCER_CONFIG_KEYS, ...Object.keys(E2E_PRODUCER_KEYS_OF_FLAGS)] };
  const consumerSrc = { flag: 'consumer-props', pairs: f['consumer-props'], fileFlag: 'client-config', file, fileKeys: [...CONSUMER_CONFIG_KEYS, ...Object.keys(E2E_CONSUMER_KEYS_OWNED)] };
  const sameAcks = (flag: string, a: unknown, b: unknown) => (flag === 'acks' ? parseAcks(String(a)) === parseAcks(String(b)) : a === b);
  foldFlagKeys(f, E2E_FLAGS, producerSrc, E2E_PRODUCER_KEYS_OF_FLAGS, sameAcks);
  foldFlagKeys(f, E2E_FLAGS, consumerSrc, E2E_CONSUMER_KEYS_OF_FLAGS);
  const acks = parseAcks(f.acks);
  const producerProps = clientProps(producerSrc, {}, (c) => void parseProducerConfig(e2eProducerConfig(acks, f['linger-ms'], c)), E2E_PRODUCER_KEYS_OF_FLAGS);
  const consumerProps = clientProps(consumerSrc, E2E_CONSUMER_KEYS_OWNED, (c) => void parseConsumerConfig({ 'group.id': 'perf-e2e', ...e2eConsumerConfig('earliest', c) }), E2E_CONSUMER_KEYS_OF_FLAGS);
  return { producerProps, consumerProps };
}

/** The tool with its flags parsed (also `samsa perf-e2e`). */
export async function perfE2eWithFlags(f: ParsedFlags<typeof E2E_FLAGS>): Promise<void> {
  const props = e2eClientProps(f);
  const sequential = f.sequential ? sequentialSettings(f) : null;
  // one message in flight at a time for a sequential run
  const load = sequential ? { perSec: 1_000, bytes: f['record-size'] } : rawRoundTripLoad({ throughput: f.throughput, sendSize: f['send-size'], recordSize: f['record-size'] });
  // a client over TCP (a running cluster, or --transport tcp) is bounded by a TCP round trip
  const overTcp = f['bootstrap-server'] !== '' || f.transport === 'tcp';
  const { target, limits } = await openTargetWithLimits<E2eLimits>(f, f.given, f.raw, async () => ({
    roundTrip: overTcp ? await measureTcpRoundTrip(load.perSec, load.bytes) : await measurePortRoundTrip(load.perSec, load.bytes),
    over: overTcp ? 'TCP socket' : 'MessagePort',
    // what the machine takes from two busy threads: gaps no code of ours can close
    stalls: await measureCoreStalls(2, 1000),
  }));
  let run: { kind: 'paced'; r: E2eResult } | { kind: 'sequential'; q: SequentialE2eResult };
  let topic: TopicChoice | null = null;
  try {
    topic = await chooseTopic(target, { topic: f.topic, defaultName: 'perf-e2e', partitions: f.partitions, replicationFactor: f['replication-factor'], config: topicConfig({ replicationFactor: f['replication-factor'], minInsyncReplicas: 0 }) }, f.given);
    // a sequential run reads an existing topic from its end, as Kafka's tool does; a paced one
    // reads its records' send times from the start, so its topic must be empty
    const held = topic.origin === 'existing' ? await recordsHeld(target, topic.name) : 0;
    if (held > 0 && !sequential) throw new UsageError(`topic '${topic.name}' holds ${held} records: a paced end-to-end run reads its topic from the start (its records carry their send time), so it needs an empty one; name a new --topic, leave --topic out for one of the run, or measure one record at a time from the topic's end with --sequential`);
    run = sequential
      ? { kind: 'sequential', q: await runSequentialE2e(target, { topic: topic.name, records: sequential.records, recordSize: f['record-size'], acks: sequential.acks, warmupFraction: f['warmup-fraction'], metrics: f['print-metrics'], ...props, ...(held > 0 ? { fromEndOf: topic.partitions } : {}) }) }
      : { kind: 'paced', r: await runE2e(target, { topic: topic.name, records: f.records, throughput: f.throughput, recordSize: f['record-size'], acks: parseAcks(f.acks), sendSize: f['send-size'], lingerMs: f['linger-ms'], warmupFraction: f['warmup-fraction'], metrics: f['print-metrics'], ...props }) };
  } finally {
    await releaseTopic(target, topic).finally(() => target.close());
  }
  const result = run.kind === 'paced' ? run.r : run.q;
  if (run.kind === 'paced') printPaced(f, run.r, target, topic, limits, load, props);
  else printSequential(f, run.q, target, topic, limits, load, props);
  // what both print after their latency and its raw limit
  if (limits) console.log(`the machine: two threads spinning on the clock for 1 s ${formatCoreStalls(limits.stalls)}`);
  else if (f.raw) console.log("raw limits: not measured: the brokers run on other hosts, whose links this machine's limits do not bound");
  if (result.cpu) console.log(`CPU while the measured records went through${target.kind === 'running' ? ' (this process)' : ''}: ${formatCpu(result.cpu)}`);
  if (result.traffic) console.log(`meanwhile the client's thread and the brokers: ${formatTraffic(result.traffic)}`);
  for (const note of stealNotes([{ step: 'the run', report: result.cpu }])) console.log(note);
  if (result.metrics) console.log(`\n${formatMetrics(result.metrics)}`);
  if (f.json) {
    // a sequential run's record count is its own default unless given
    const records = run.kind === 'sequential' ? { records: run.q.records } : {};
    console.log(`results: ${await writeResults(f.json, benchEnvironment(1), { options: { ...flagOptions(f), ...records, target: target.description, topic: topic.name, topicOrigin: topic.origin }, result, rawRoundTrip: limits?.roundTrip ?? null, rawRoundTripOver: limits?.over ?? null, coreStalls: limits?.stalls ?? null })}`);
  }
}

/** `, the producer's max.in.flight.requests.per.connection 1, the consumer's fetch.max.wait.ms 500`: the configs given beyond the flags. */
function describeProps(props: Required<E2eClientProps>): string {
  const of = (who: string, c: Record<string, string>) => Object.entries(c).map(([k, v]) => `, the ${who}'s ${k} ${v}`).join('');
  return of('producer', props.producerProps) + of('consumer', props.consumerProps);
}

function printPaced(f: ParsedFlags<typeof E2E_FLAGS>, r: E2eResult, target: PerfTarget, topic: TopicChoice, limits: E2eLimits | null | undefined, load: { perSec: number; bytes: number }, props: Required<E2eClientProps>): void {
  console.log(`perf-e2e: ${r.records} records at ${f.throughput} records/s asked (${r.achievedPerSec.toFixed(0)} achieved), ${target.description}, ${describeTopic(topic)}, acks ${f.acks}${describeProps(props)}`);
  console.log(`end-to-end latency: ${formatLatency(r.latency)} (${r.latency.count} records measured)`);
  console.log(`the slowest 1%: ${formatLateBatches(r.late)}`);
  if (limits) {
    const route = limits.over === 'TCP socket' ? 'main thread -> a worker over loopback TCP -> main thread' : 'main thread -> worker -> main thread';
    console.log(`raw limit: a bare ${limits.over} round trip (${route}) at ${load.perSec.toFixed(0)} messages/s of ${load.bytes} B: ${formatLatency(limits.roundTrip)}; the end-to-end p99 is ${(r.latency.p99 / limits.roundTrip.p99).toFixed(1)}x its p99`);
  }
}

/** --sequential's records and acks; the pacing flags do not apply and acks 0 cannot be waited for. */
function sequentialSettings(f: ParsedFlags<typeof E2E_FLAGS>): { records: number; acks: 1 | -1 } {
  const pacing = (['throughput', 'send-size', 'linger-ms'] as const).filter((k) => f.given.has(k));
  if (pacing.length > 0) throw new UsageError(`${pacing.map((k) => `--${k}`).join(', ')} ${pacing.length === 1 ? 'paces' : 'pace'} a run's sends; --sequential sends one record at a time, each after the last arrived`);
  const acks = parseAcks(f.acks);
  if (acks === 0) throw new UsageError('--sequential waits for each send to be acknowledged before it waits for the consumer: --acks 1 or all (as kafka-e2e-latency asks)');
  return { records: f.given.has('records') ? f.records : SEQUENTIAL_DEFAULT_RECORDS, acks };
}

function printSequential(f: ParsedFlags<typeof E2E_FLAGS>, q: SequentialE2eResult, target: PerfTarget, topic: TopicChoice, limits: E2eLimits | null | undefined, load: { perSec: number; bytes: number }, props: Required<E2eClientProps>): void {
  console.log(`perf-e2e --sequential: ${q.records} records of ${f['record-size']} B one at a time, ${target.description}, ${describeTopic(topic)}, acks ${f.acks}${describeProps(props)}`);
  console.log(`end-to-end latency: ${formatLatency(q.latency)} (${q.latency.count} records measured)`);
  console.log(`of which the send to its acknowledgement: ${formatLatency(q.ack)}`);
  // kafka-e2e-latency's own summary lines (whole milliseconds, as it prints them)
  console.log(`Avg latency: ${q.latency.avg.toFixed(4)} ms`);
  console.log(`Percentiles: 50th = ${Math.floor(q.latency.p50)}, 99th = ${Math.floor(q.latency.p99)}, 99.9th = ${Math.floor(q.latency.p999)}`);
  if (limits) console.log(`raw limit: a bare ${limits.over} round trip at ${load.perSec} messages/s of ${load.bytes} B: ${formatLatency(limits.roundTrip)}; the end-to-end p50 is ${(q.latency.p50 / limits.roundTrip.p50).toFixed(1)}x its p50`);
}

/**
 * kafka-e2e-latency's own command line, `broker_list topic num_messages producer_acks
 * message_size_bytes`, as this tool's flags: a --sequential run of that many records, every one
 * measured as Kafka's tool measures them (no warm-up), on the cluster `broker_list` names (a
 * samsa client listener), with Kafka's optional sixth, a properties file for both clients, as
 * --client-config. Flags may follow. Any other argv is returned as it is. Throws FlagError for
 * another count of leading arguments.
 */
export function kafkaE2eArgv(argv: readonly string[]): readonly string[] {
  let n = 0;
  while (n < argv.length && !argv[n]!.startsWith('-')) n++;
  if (n === 0) return argv;
  if (n !== 5 && n !== 6) throw new FlagError(`kafka-e2e-latency's form is broker_list topic num_messages producer_acks message_size_bytes [properties_file], then flags if any: got ${n} argument${n === 1 ? '' : 's'} before the flags`);
  const [brokers, topic, records, acks, size] = argv as [string, string, string, string, string];
  // the sixth only when there are six before the flags (Kafka's tool takes an empty one as none)
  const file = n === 6 ? argv[5]! : '';
  const config = file === '' ? [] : ['--client-config', file];
  return ['--sequential', '--bootstrap-server', brokers, '--topic', topic, '--records', records, '--acks', acks, '--record-size', size, '--warmup-fraction', '0', ...config, ...argv.slice(n)];
}

if (isMain(import.meta.url)) runMain(() => perfE2eWithFlags(cliFlags('perf-e2e', PERF_E2E_SUMMARY, E2E_FLAGS, process.argv.slice(2), kafkaE2eArgv)));
