/**
 * `npm run bench:runtime`: throughput of the actor runtime over each transport, each figure
 * beside its raw baseline measured in the same run.
 *
 * Transports: in-process (one node, and two nodes on an InProcNetwork), worker_threads (main ->
 * worker, and worker -> worker over the direct channel), TCP loopback (the main thread's node
 * and a node in a worker thread, so each end has its own event loop).
 * Workloads (lib/load.ts): tells of small `{type:'Tick', seq}` to a counting sink; ask round
 * trips, sequential and 64 outstanding; tells of `{type:'Blob', data}` with a 64 KiB payload.
 * Baselines (lib/raw.ts): bare nact, a bare MessagePort, a bare TCP socket.
 *
 * Prints a table (scenario, samsa, baseline, ratio, target, PASS/MISS) and writes
 * benchmarks/results/runtime.json. SAMSA_BENCH_SCALE scales the duration of every run;
 * SAMSA_BENCH_ONLY=inproc,worker,tcp picks sections (all by default).
 */
import { MessageChannel } from 'node:worker_threads';
import { encodeEnvelope } from '../src/protocol/codec.js';
import { ActorSystem } from '../src/runtime/actor-system.js';
import { setLogLevel } from '../src/runtime/logger.js';
import type { ActorRef, Envelope, Message } from '../src/runtime/types.js';
import { isFailure } from '../src/runtime/types.js';
import { InProcNetwork } from '../src/transport/inproc.js';
import { TcpTransport } from '../src/transport/tcp.js';
import { WorkerHub } from '../src/transport/worker.js';
import {
  BENCH_ASK_TIMEOUT_MS,
  samsaTarget,
  spawnBenchActors,
  type DriverMsg,
  type EchoMsg,
  type SamsaIo,
  type SinkMsg,
} from './fixtures/runtime-bench-actors.js';
import { runLoad, type LoadSpec, type LoadTarget } from './lib/load.js';
import { RawNactTarget, RawPortTarget, RawTcpTarget, type PortMode } from './lib/raw.js';
import { benchEnvironment, writeResults } from './lib/results.js';
import { printTable } from './lib/table.js';
import { RpcWorker } from './lib/threads.js';
import {
  benchScale,
  formatRate,
  formatRatio,
  measureInterleaved,
  stopwatch,
  type Measurement,
  type RateUnit,
  type RunResult,
} from './lib/timing.js';

if (!process.env.SAMSA_LOG_LEVEL) {
  // inherited by the worker nodes too
  process.env.SAMSA_LOG_LEVEL = 'error';
  setLogLevel('error');
}

const FIXTURE = new URL('./fixtures/runtime-bench-actors.ts', import.meta.url);
const RAW_PEER = new URL('./lib/raw-peer.ts', import.meta.url);
const BLOB_BYTES = 64 * 1024;
const CONCURRENCY = 64;
const TICK_WINDOW = 1000;
const BLOB_WINDOW = 16;
const DEPTH = 4;

type Metric = 'tell' | 'askSeq' | 'askConc' | 'blob';

const METRICS: Record<Metric, { label: string; unit: RateUnit; initialN: number; multipleOf: number }> = {
  tell: { label: 'tell Tick', unit: 'msg/s', initialN: 20_000, multipleOf: TICK_WINDOW },
  askSeq: { label: 'ask, sequential', unit: 'rt/s', initialN: 2_000, multipleOf: 100 },
  askConc: { label: `ask, ${CONCURRENCY} outstanding`, unit: 'rt/s', initialN: 5_000, multipleOf: 1_000 },
  blob: { label: 'tell Blob 64 KiB', unit: 'MiB/s', initialN: 320, multipleOf: BLOB_WINDOW },
};
const METRIC_ORDER: Metric[] = ['tell', 'askSeq', 'askConc', 'blob'];

function specFor(metric: Metric, n: number): LoadSpec {
  switch (metric) {
    case 'tell':
      return { op: 'tell', n, window: TICK_WINDOW, depth: DEPTH };
    case 'blob':
      return { op: 'blob', n, window: BLOB_WINDOW, depth: DEPTH, blobBytes: BLOB_BYTES };
    case 'askSeq':
      return { op: 'ask', n, concurrency: 1 };
    case 'askConc':
      return { op: 'ask', n, concurrency: CONCURRENCY };
  }
}

type Runner = (spec: LoadSpec) => Promise<RunResult>;

// ------------------------------------------------------------------------------ bookkeeping

type Target = { kind: 'ratio'; min: number } | { kind: 'absolute'; min: number };

interface Baseline {
  name: string;
  measurement: Measurement & { n: number };
}

interface Row {
  group: string;
  metric: Metric;
  samsa: Measurement & { n: number };
  /** The best of the raw variants measured for this row. */
  baseline?: Baseline;
  raws: Baseline[];
  target?: Target;
}

const rows: Row[] = [];
/** Dead letters seen on the nodes of this thread: a benchmark that loses messages is not measuring anything. */
const deadLetters: Record<string, number> = {};

function noteDeadLetters(...systems: ActorSystem[]): void {
  for (const s of systems) {
    const n = s.stats().deadLetters;
    deadLetters[s.nodeId] = n;
    if (n > 0) log(`  WARNING: node ${s.nodeId} counted ${n} dead letters: ${JSON.stringify(s.stats().deadLettersByReason)}`);
  }
}

function log(line: string): void {
  console.log(line);
}

function brief(m: Measurement): string {
  return `${formatRate(m.value, m.unit)} (min ${formatRate(m.min, '')}, max ${formatRate(m.max, '')})`;
}

function targetFor(group: string, metric: Metric): Target | undefined {
  if (metric === 'tell') return { kind: 'ratio', min: 0.5 };
  if (metric === 'blob' && group.startsWith('worker')) return { kind: 'absolute', min: 1024 };
  if (metric === 'blob' && group.startsWith('tcp')) return { kind: 'absolute', min: 500 };
  return undefined;
}

/**
 * Measures one row: samsa and its raw variants, timed runs interleaved. The best raw variant
 * is the row's baseline.
 */
async function measureRow(group: string, metric: Metric, samsa: Runner, raws: { name: string; run: Runner }[]): Promise<void> {
  const meta = METRICS[metric];
  const contenders = [{ name: 'samsa', run: samsa }, ...raws].map((c) => ({
    name: c.name,
    run: (n: number) => c.run(specFor(metric, n)),
  }));
  const [s, ...r] = await measureInterleaved(contenders, { unit: meta.unit, initialN: meta.initialN, multipleOf: meta.multipleOf });
  const measuredRaws: Baseline[] = raws.map((x, i) => ({ name: x.name, measurement: r[i]! }));
  const row: Row = { group, metric, samsa: s!, raws: measuredRaws };
  if (measuredRaws.length) row.baseline = measuredRaws.reduce((a, b) => (b.measurement.value > a.measurement.value ? b : a));
  const target = targetFor(group, metric);
  if (target) row.target = target;
  rows.push(row);
  log(`  ${group.padEnd(22)} ${meta.label.padEnd(20)} samsa ${brief(s!)}`);
  for (const b of measuredRaws) log(`  ${''.padEnd(22)} ${''.padEnd(20)} raw   ${brief(b.measurement)}  [${b.name}]`);
}

function ratioOf(r: Row): number {
  return r.baseline ? r.samsa.value / r.baseline.measurement.value : Number.NaN;
}

function statusOf(r: Row): 'PASS' | 'MISS' | '-' {
  if (!r.target) return '-';
  const v = r.target.kind === 'ratio' ? ratioOf(r) : r.samsa.value;
  return v >= r.target.min ? 'PASS' : 'MISS';
}

function targetText(t: Target | undefined): string {
  if (!t) return '';
  return t.kind === 'ratio' ? `>= ${formatRatio(t.min)} of raw` : `>= ${t.min} MiB/s`;
}

// ------------------------------------------------------------------------------ helpers

function systemIo(system: ActorSystem): SamsaIo {
  return {
    send: (to, msg) => system.send(to, msg),
    ask: (to, msg, opts) => system.ask(to, msg, opts),
  };
}

function refs(node: string): { sink: ActorRef<SinkMsg>; echo: ActorRef<EchoMsg>; driver: ActorRef<DriverMsg> } {
  return { sink: { node, path: '/sink' }, echo: { node, path: '/echo' }, driver: { node, path: '/driver' } };
}

/** Runs a spec on the driver actor of `from`, against the sink and echo of `to`. */
function remoteRunner(system: ActorSystem, from: string, to: string): (spec: LoadSpec) => Promise<RunResult> {
  const target = refs(to);
  return async (spec) => {
    const reply = await system.ask(refs(from).driver, { type: 'Run', spec, sink: target.sink, echo: target.echo }, { timeoutMs: BENCH_ASK_TIMEOUT_MS * 2 });
    if (isFailure(reply)) throw new Error(`Run on ${from} failed: ${reply.reason}: ${reply.message}`);
    const r = reply as Message & RunResult;
    return { elapsedMs: r.elapsedMs, ops: r.ops, ...(r.bytes !== undefined ? { bytes: r.bytes } : {}) };
  };
}

function localRunner(target: LoadTarget): (spec: LoadSpec) => Promise<RunResult> {
  return (spec) => runLoad(target, spec);
}

function envelopeBytes(env: Envelope): number {
  return encodeEnvelope(env).length;
}

// ------------------------------------------------------------------------------ sections

async function inprocSection(): Promise<void> {
  log('\n[in-process: baseline bare nact in the same thread]');
  const nact = new RawNactTarget();
  const rawRun = localRunner(nact);
  const rawNames: Record<Metric, string> = { tell: 'nact dispatch', askSeq: 'nact query', askConc: 'nact query', blob: 'nact dispatch' };

  const a = new ActorSystem({ nodeId: 'a', strictSerialization: false });
  const b = new ActorSystem({ nodeId: 'b', strictSerialization: false });
  spawnBenchActors(a);
  spawnBenchActors(b);
  const net = new InProcNetwork({ strictSerialization: false });
  net.join(a);
  net.join(b);
  const same = localRunner(samsaTarget(systemIo(a), refs('a').sink, refs('a').echo));
  const cross = localRunner(samsaTarget(systemIo(a), refs('b').sink, refs('b').echo));
  for (const m of METRIC_ORDER) await measureRow('inproc same node', m, same, [{ name: rawNames[m], run: rawRun }]);
  for (const m of METRIC_ORDER) await measureRow('inproc 2 nodes', m, cross, [{ name: rawNames[m], run: rawRun }]);
  noteDeadLetters(a, b);
  await Promise.all([a.stop(), b.stop()]);
  nact.stop();
}

async function workerSection(): Promise<void> {
  log('\n[worker_threads: baseline a bare MessagePort between the same pair of threads]');
  // raw: main -> worker B, and worker A -> worker B, over bare MessagePorts
  const [rawA, rawB] = await Promise.all([RpcWorker.start(RAW_PEER), RpcWorker.start(RAW_PEER)]);
  const toB = new MessageChannel();
  await rawB.call('portSink', { port: toB.port2 }, [toB.port2]);
  const mainPort = new RawPortTarget(toB.port1);
  const aToB = new MessageChannel();
  await rawB.call('portSink', { port: aToB.port2 }, [aToB.port2]);
  await rawA.call('portSender', { name: 'b', port: aToB.port1 }, [aToB.port1]);
  const rawMain = (mode: PortMode): Runner => (spec) => {
    mainPort.mode = mode;
    return runLoad(mainPort, spec);
  };
  const rawFromA = (mode: PortMode): Runner => (spec) => rawA.call<RunResult>('runPort', { name: 'b', mode, spec });
  const rawVariants = (make: (mode: PortMode) => Runner, metric: Metric): { name: string; run: Runner }[] => {
    switch (metric) {
      case 'tell':
        return [
          { name: 'postMessage per object', run: make('object') },
          { name: 'msgpack frames per run', run: make('packed') },
        ];
      case 'blob':
        return [
          { name: 'copy + transfer per blob', run: make('object') },
          { name: 'msgpack frames per run', run: make('packed') },
        ];
      case 'askSeq':
      case 'askConc':
        return [{ name: 'postMessage ping/pong', run: make('object') }];
    }
  };

  // samsa: main -> w1, and w1 -> w2 (direct channel)
  const main = new ActorSystem({ nodeId: 'main', strictSerialization: false });
  const hub = new WorkerHub(main);
  const [w1, w2] = await Promise.all([
    hub.spawn({ nodeId: 'w1', setup: FIXTURE, strictSerialization: false }),
    hub.spawn({ nodeId: 'w2', setup: FIXTURE, strictSerialization: false }),
  ]);
  const toW1 = localRunner(samsaTarget(systemIo(main), refs('w1').sink, refs('w1').echo));
  for (const m of METRIC_ORDER) await measureRow('worker main->worker', m, toW1, rawVariants(rawMain, m));
  const w1ToW2 = remoteRunner(main, 'w1', 'w2');
  for (const m of METRIC_ORDER) await measureRow('worker worker->worker', m, w1ToW2, rawVariants(rawFromA, m));

  noteDeadLetters(main);
  await Promise.all([w1.stop(), w2.stop()]);
  await main.stop();
  await Promise.all([rawA.call('close'), rawB.call('close')]);
  toB.port1.close();
  await Promise.all([rawA.terminate(), rawB.terminate()]);
}

async function tcpSection(): Promise<void> {
  log('\n[TCP loopback: main thread -> node in a worker thread; baseline a bare socket between the same threads]');
  const sinkEnv: Envelope = { to: refs('tcp-b').sink, msg: { type: 'Tick', seq: 123_456 } as Message };
  const askEnv: Envelope = {
    to: refs('tcp-b').echo,
    replyTo: { node: 'tcp-a', path: '$ask' },
    correlationId: 'x'.repeat(21),
    msg: { type: 'Ping', seq: 123_456 } as Message,
  };
  const sizes = { tick: envelopeBytes(sinkEnv), ping: envelopeBytes(askEnv) };
  const rawPeer = await RpcWorker.start(RAW_PEER);
  const { port: rawPort } = await rawPeer.call<{ port: number }>('tcpListen');
  const rawTcp = await RawTcpTarget.connect(rawPort, sizes);
  const rawRun = localRunner(rawTcp);
  const rawNames: Record<Metric, string> = {
    tell: `socket, frames of ${sizes.tick} B`,
    askSeq: `socket ping/pong, ${sizes.ping} B`,
    askConc: `socket ping/pong, ${sizes.ping} B`,
    blob: 'socket, writev by reference',
  };

  const main = new ActorSystem({ nodeId: 'tcp-a', strictSerialization: false });
  const transport = new TcpTransport(main, { clusterId: 'bench' });
  const { port } = await transport.listen(0);
  const hub = new WorkerHub(main);
  const wt = await hub.spawn({
    nodeId: 'wt',
    setup: FIXTURE,
    strictSerialization: false,
    config: { tcp: { nodeId: 'tcp-b', clusterId: 'bench', port } },
  });
  const ep = main.endpointTo('tcp-b');
  if (ep?.kind !== 'tcp') throw new Error(`expected a TCP endpoint to tcp-b, got ${ep?.kind ?? 'none'}`);
  const run = localRunner(samsaTarget(systemIo(main), refs('tcp-b').sink, refs('tcp-b').echo));
  for (const m of METRIC_ORDER) await measureRow('tcp loopback', m, run, [{ name: rawNames[m], run: rawRun }]);

  noteDeadLetters(main);
  await wt.stop();
  await main.stop();
  rawTcp.close();
  await rawPeer.call('close');
  await rawPeer.terminate();
}

// ------------------------------------------------------------------------------ main

async function main(): Promise<void> {
  const elapsed = stopwatch();
  const env = benchEnvironment(benchScale());
  log(`samsa runtime benchmark: node ${env.node}, ${env.cpus} CPUs (${env.cpuModel}), load average ${env.loadAverage.join(" ")}, scale ${env.scale}`);

  const only = (process.env.SAMSA_BENCH_ONLY ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  const wanted = (section: string): boolean => only.length === 0 || only.includes(section);
  if (wanted('inproc')) await inprocSection();
  if (wanted('worker')) await workerSection();
  if (wanted('tcp')) await tcpSection();

  const table = rows.map((r) => [
    r.group,
    METRICS[r.metric].label,
    formatRate(r.samsa.value, r.samsa.unit),
    r.baseline?.name ?? '',
    r.baseline ? formatRate(r.baseline.measurement.value, r.baseline.measurement.unit) : '',
    formatRatio(ratioOf(r)),
    targetText(r.target),
    statusOf(r),
  ]);
  printTable(
    'samsa runtime vs raw baselines (median of 5 timed runs)',
    [
      { header: 'scenario', align: 'left' },
      { header: 'workload', align: 'left' },
      'samsa',
      { header: 'raw baseline', align: 'left' },
      'raw',
      'ratio',
      { header: 'target', align: 'left' },
      { header: 'status', align: 'left' },
    ],
    table,
    [
      'inproc baselines: bare nact in the same thread; worker: bare MessagePort between the same pair of threads',
      '(best of per-object postMessage and msgpack frames batched per run); tcp: bare socket between the main',
      'thread and a worker thread with frames of the same sizes. Ratio = samsa / raw.',
    ],
  );
  printTable(
    'raw variants measured (the best one is the baseline above)',
    [{ header: 'scenario', align: 'left' }, { header: 'workload', align: 'left' }, { header: 'variant', align: 'left' }, 'median', 'min', 'max'],
    rows.flatMap((r) =>
      r.raws.map((b) => [
        r.group,
        METRICS[r.metric].label,
        b.name,
        formatRate(b.measurement.value, b.measurement.unit),
        formatRate(b.measurement.min, ''),
        formatRate(b.measurement.max, ''),
      ]),
    ),
  );
  const total = elapsed();
  log(`\ntotal ${(total / 1000).toFixed(1)} s`);

  const file = await writeResults('runtime', env, {
    durationMs: Math.round(total),
    deadLetters,
    settings: { blobBytes: BLOB_BYTES, concurrency: CONCURRENCY, tickWindow: TICK_WINDOW, blobWindow: BLOB_WINDOW, depth: DEPTH },
    rows: rows.map((r) => ({
      scenario: r.group,
      workload: METRICS[r.metric].label,
      metric: r.metric,
      unit: r.samsa.unit,
      samsa: r.samsa.value,
      samsaSamples: r.samsa.samples,
      n: r.samsa.n,
      baseline: r.baseline?.name ?? null,
      raw: r.baseline?.measurement.value ?? null,
      ratio: r.baseline ? ratioOf(r) : null,
      target: r.target ?? null,
      status: statusOf(r),
      raws: r.raws.map((b) => ({ name: b.name, value: b.measurement.value, samples: b.measurement.samples, n: b.measurement.n })),
    })),
  });
  log(`results written to ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
  // leave no thread or socket keeping a failed run alive
  setTimeout(() => process.exit(1), 2_000).unref();
});
