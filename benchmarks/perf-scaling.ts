/**
 * Partition scaling: the same producer load (RF 1, acks 1, 100-byte records by default) over
 * topics of 6, 100 and 1,000 partitions on one cluster, and the throughput lost going from the
 * fewest to the most partitions.
 *
 *   node --import tsx benchmarks/perf-scaling.ts --partition-counts 6,100,1000 --records 1000000
 *
 * Records have null keys, so the sticky partitioner fills one partition's batch at a time, as
 * Kafka's does. An untimed run on a throw-away topic warms the cluster first; each topic is
 * measured once every leader replica serves it. The counts are measured in turn for --rounds
 * rounds (a fresh topic each time, deleted after its run) and each count's figure is its median
 * run, so a slow spell of the machine does not land on one count only. Topic creation time is
 * reported beside each figure (not part of the rate).
 *
 * With --bootstrap-server it runs on a running cluster (lib/perf-target.ts), on topics named
 * for the run and dropped after each of its runs.
 */
import { FlagError, cliFlags, flagOptions, parseAcks, type FlagSpecs } from './lib/perf-args.js';
import { createTopic, type PerfTopics } from './lib/perf-cluster.js';
import { TARGET_FLAGS, openTarget, runName, targetServers } from './lib/perf-target.js';
import { isMain, runMain } from './lib/perf-common.js';
import { benchEnvironment, writeResults } from './lib/results.js';
import { printTable } from './lib/table.js';
import { formatCpuPerRecords, formatCpuShort, stealNotes } from './lib/thread-cpu.js';
import { formatNumber, formatRatio, medianBy, nowMs } from './lib/timing.js';
import { PRODUCE_FLAGS, defaultProduceOptions, runProduce, topicConfig, type ProduceOptions, type ProduceResult } from './perf-produce.js';

export const SCALING_FLAGS = {
  'partition-counts': { type: 'string', default: '6,100,1000', help: 'comma-separated partition counts' },
  records: { type: 'int', default: 1_000_000, min: 1, help: 'records per run of a partition count' },
  rounds: { type: 'int', default: 3, min: 1, help: 'runs of each partition count, taken in turn; the median counts' },
  'record-size': { type: 'int', default: 100, min: 0, help: 'value bytes per record' },
  acks: { type: 'string', default: '1', choices: ['0', '1', '-1', 'all'], help: 'producer acks' },
  'replication-factor': { type: 'int', default: 1, min: 1, help: 'replicas per partition' },
  'sticky-bytes': PRODUCE_FLAGS['sticky-bytes'],
  brokers: { type: 'int', default: 3, min: 1, help: 'brokers in the throw-away cluster' },
  transport: { type: 'string', default: 'worker', choices: ['inproc', 'worker', 'tcp'], help: "where the throw-away cluster's brokers run / how the client reaches them" },
  'bootstrap-server': TARGET_FLAGS['bootstrap-server'],
  json: { type: 'string', default: 'perf-scaling', help: 'results file name under benchmarks/results/ (empty: none)' },
} satisfies FlagSpecs;

export function parseCounts(text: string): number[] {
  const xs = text.split(',').map((s) => Number(s.trim()));
  if (xs.length === 0 || xs.some((x) => !Number.isInteger(x) || x < 1)) throw new FlagError(`--partition-counts expects positive integers separated by commas, got '${text}'`);
  return xs;
}

export interface ScalingPoint {
  partitions: number;
  /** Topic creation of the median run. */
  createMs: number;
  /** The median run (by records/s). */
  result: ProduceResult;
  /** records/s of every run, in round order. */
  runs: number[];
}

/**
 * Runs the counts in turn for `rounds` rounds on `cluster`, each on a topic named from `prefix`
 * and dropped after its run.
 */
export async function runScaling(cluster: PerfTopics, counts: readonly number[], base: Partial<ProduceOptions>, rounds = 3, prefix = 'perf-scale'): Promise<{ points: ScalingPoint[]; loss: number }> {
  const admin = await cluster.client('perf-scaling-admin');
  // untimed: the first point must not pay for a cold cluster (JIT, first segments) the later
  // ones do not pay for (a cold first point made the loss look smaller than it is)
  const warm = defaultProduceOptions({ ...base, partitions: counts[0]!, topic: `${prefix}-warmup`, label: 'scaling warm-up' });
  await createTopic(admin, warm.topic, warm.partitions, warm.replicationFactor, topicConfig(warm));
  await runProduce(cluster, { ...warm, records: Math.max(1, Math.round(warm.records / 2)) });
  await cluster.dropTopic(warm.topic);
  const runs = counts.map(() => [] as { createMs: number; result: ProduceResult }[]);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < counts.length; i++) {
      const partitions = counts[i]!;
      const o = defaultProduceOptions({ ...base, partitions, topic: `${prefix}-${partitions}-${round}`, label: `scaling ${partitions}p (${round + 1}/${rounds})` });
      const t0 = nowMs();
      await createTopic(admin, o.topic, partitions, o.replicationFactor, topicConfig(o));
      const createMs = nowMs() - t0;
      runs[i]!.push({ createMs, result: await runProduce(cluster, o) });
      // the next run starts from the same page cache as this one did
      await cluster.dropTopic(o.topic);
    }
  }
  const points: ScalingPoint[] = counts.map((partitions, i) => {
    const mid = medianBy(runs[i]!, (r) => r.result.recordsPerSec)!;
    return { partitions, createMs: mid.createMs, result: mid.result, runs: runs[i]!.map((r) => r.result.recordsPerSec) };
  });
  const first = points[0]!.result.recordsPerSec;
  const last = points[points.length - 1]!.result.recordsPerSec;
  return { points, loss: 1 - last / first };
}

async function main(): Promise<void> {
  const f = cliFlags('perf-scaling', 'The same producer load over topics with more and more partitions, on a running cluster (--bootstrap-server) or a throw-away one.', SCALING_FLAGS);
  const counts = parseCounts(f['partition-counts']);
  const target = await openTarget(f, targetServers(f, f.given));
  let s;
  try {
    // on a running cluster the run's topics get a name of their own (and are dropped after each run)
    const prefix = target.kind === 'running' ? runName('perf-scale') : 'perf-scale';
    s = await runScaling(target, counts, { records: f.records, recordSize: f['record-size'], acks: parseAcks(f.acks), replicationFactor: f['replication-factor'], stickyBytes: f['sticky-bytes'] }, f.rounds, prefix);
  } finally {
    await target.close();
  }
  printTable(
    `perf-scaling: ${target.description}, RF ${f['replication-factor']}, acks ${f.acks}, ${f['record-size']} B records, partitioner.sticky.bytes ${f['sticky-bytes'] >= 0 ? f['sticky-bytes'] : 'default'}`,
    ['partitions', 'records/s (median)', 'runs', 'MiB/s', 'vs first', 'p99 ms / send', 'topic creation ms', 'CPU (median run)'],
    s.points.map((p) => [
      String(p.partitions),
      formatNumber(p.result.recordsPerSec),
      p.runs.map((r) => formatNumber(r)).join(' '),
      p.result.mibPerSec.toFixed(1),
      formatRatio(p.result.recordsPerSec / s.points[0]!.result.recordsPerSec),
      p.result.latency.p99.toFixed(1),
      p.createMs.toFixed(0),
      p.result.cpu ? formatCpuShort(p.result.cpu) : '-',
    ]),
    [
      `throughput loss from ${counts[0]} to ${counts[counts.length - 1]} partitions: ${formatRatio(s.loss)} (target <= 20%)`,
      ...s.points.flatMap((p) => (p.result.cpu ? [`${p.partitions} partitions (median run): ${formatCpuPerRecords(p.result.cpu, p.result.recordsPerSec)}`] : [])),
      ...stealNotes(s.points.map((p) => ({ step: `${p.partitions} partitions (median run)`, report: p.result.cpu }))),
    ],
  );
  if (f.json) {
    console.log(`results: ${await writeResults(f.json, benchEnvironment(1), { options: { ...flagOptions(f), target: target.description }, ...s })}`);
  }
}

if (isMain(import.meta.url)) runMain(main);
