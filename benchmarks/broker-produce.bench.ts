/**
 * `npm run bench:broker`: what one broker's Produce path costs per batch as the partition count
 * grows, with the client and the broker in one thread (in-process transport), so the figure is
 * CPU time and not a guess at how two cores were shared.
 *
 * For each partition count (SAMSA_BENCH_PARTITIONS, default 6,1000) a fresh one-partition-per-entry
 * topic takes Produce requests (acks 1) of SAMSA_BENCH_ENTRIES partitions (default 6; a producer's
 * requests carry ~20 at 1,000 partitions), each entry one 16 KiB batch of 100-byte records,
 * partitions taken round-robin, REQUESTS_IN_FLIGHT requests outstanding. Every
 * request has the same shape at every count: only how many partitions the batches spread over
 * changes. The raw baseline is fs.writeSync of the same batches round-robin over as many files,
 * measured in the same round. Counts and the baseline run in turn for ROUNDS rounds; each figure
 * is its median round. Topics and files are deleted after each run, so no run pays for the page
 * cache an earlier one left dirty.
 *
 * Prints a table (batches/s, CPU microseconds per batch, the baseline and the ratio) and writes
 * benchmarks/results/broker-produce.json. SAMSA_BENCH_SCALE scales the run length.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrokerProduceResponse } from '../actors/broker/messages.js';
import { brokerPath } from '../src/protocol/cluster.js';
import { isFailure } from '../src/runtime/types.js';
import { distinctBatches } from './lib/batches.js';
import { createTopic, deleteTopic, startPerfCluster } from './lib/perf-cluster.js';
import { benchEnvironment, writeResults } from './lib/results.js';
import { printTable } from './lib/table.js';
import { envNumber, medianBy } from './lib/timing.js';

const SCALE = Math.max(0.05, Number(process.env.SAMSA_BENCH_SCALE ?? 1));
const RUN_MS = 2_000 * SCALE;
const ROUNDS = 3;
/** Partitions per request: 6 by default; ~20 is what a producer's requests carried at 1,000 partitions. */
const ENTRIES = envNumber('SAMSA_BENCH_ENTRIES', process.env.SAMSA_BENCH_ENTRIES, { fallback: 6, min: 1, integer: true, expects: 'a positive integer' });
const REQUESTS_IN_FLIGHT = 4;
const RECORDS_PER_BATCH = 150;
const RECORD_SIZE = 100;
const MiB = 1024 * 1024;

function parsePartitionCounts(text: string): number[] {
  const xs = text.split(',').map((s) => Number(s.trim()));
  if (xs.length === 0 || xs.some((x) => !Number.isInteger(x) || x < ENTRIES)) {
    throw new Error(`SAMSA_BENCH_PARTITIONS expects integers >= ${ENTRIES} separated by commas, got '${text}'`);
  }
  return xs;
}

interface Run {
  batchesPerSec: number;
  /** Process CPU (user + system) per batch, microseconds. */
  cpuUsPerBatch: number;
  userUsPerBatch: number;
  sysUsPerBatch: number;
}

function measure(batches: number, ms: number, c0: NodeJS.CpuUsage): Run {
  const cpu = process.cpuUsage(c0);
  return {
    batchesPerSec: batches / (ms / 1000),
    cpuUsPerBatch: (cpu.user + cpu.system) / batches,
    userUsPerBatch: cpu.user / batches,
    sysUsPerBatch: cpu.system / batches,
  };
}

/** fs.writeSync of the batches round-robin over `files` files for RUN_MS. */
function rawRun(root: string, batches: Buffer[], files: number): Run {
  const dir = fs.mkdtempSync(path.join(root, 'raw-'));
  const fds: number[] = [];
  const pos: number[] = [];
  try {
    for (let i = 0; i < files; i++) {
      fds.push(fs.openSync(path.join(dir, `${i}.log`), 'w'));
      pos.push(0);
    }
    let n = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    while (performance.now() - t0 < RUN_MS) {
      for (let k = 0; k < 64; k++, n++) {
        const b = batches[n % batches.length]!;
        const f = n % files;
        let done = 0;
        while (done < b.length) done += fs.writeSync(fds[f]!, b, done, b.length - done, pos[f]! + done);
        pos[f]! += b.length;
      }
    }
    return measure(n, performance.now() - t0, c0);
  } finally {
    for (const fd of fds) fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: Run[]): Run {
  return medianBy(xs, (r) => r.batchesPerSec)!;
}

async function main(): Promise<void> {
  const counts = parsePartitionCounts(process.env.SAMSA_BENCH_PARTITIONS ?? '6,1000');
  const batches = distinctBatches(64, RECORDS_PER_BATCH, RECORD_SIZE);
  const batchBytes = batches[0]!.length;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-bench-broker-'));
  const cluster = await startPerfCluster({ brokers: 1, transport: 'inproc' });
  const broker = { node: 'b1', path: brokerPath(1) };
  const runs = counts.map(() => ({ broker: [] as Run[], raw: [] as Run[] }));
  try {
    const client = await cluster.client('bench-broker');
    const produceRun = async (topic: string, partitions: number): Promise<Run> => {
      let next = 0;
      let sent = 0;
      let b = 0;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const loop = async (): Promise<void> => {
        while (performance.now() - t0 < RUN_MS) {
          const entries = [];
          for (let i = 0; i < ENTRIES; i++) entries.push({ topic, partition: next++ % partitions, records: batches[b++ % batches.length]!.subarray() });
          const r = await client.system.ask<BrokerProduceResponse>(broker, { type: 'Produce', acks: 1, timeoutMs: 30_000, partitions: entries }, { timeoutMs: 60_000 });
          if (isFailure(r)) throw new Error(`Produce failed: ${r.message}`);
          const bad = r.partitions.find((p) => p.errorCode !== 0);
          if (bad) throw new Error(`Produce refused a batch: ${bad.errorCode} ${bad.errorMessage ?? ''}`);
          sent += ENTRIES;
        }
      };
      await Promise.all(Array.from({ length: REQUESTS_IN_FLIGHT }, loop));
      return measure(sent, performance.now() - t0, c0);
    };
    // untimed warm-up: the first count must not pay for a cold JIT the later ones do not
    await createTopic(client, 'warm-up', counts[0]!, 1);
    await produceRun('warm-up', counts[0]!);
    await deleteTopic(cluster, client, 'warm-up');
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < counts.length; i++) {
        const n = counts[i]!;
        const topic = `bench-${n}-${round}`;
        await createTopic(client, topic, n, 1);
        runs[i]!.broker.push(await produceRun(topic, n));
        await deleteTopic(cluster, client, topic);
        runs[i]!.raw.push(rawRun(root, batches, n));
      }
    }
  } finally {
    await cluster.close();
    fs.rmSync(root, { recursive: true, force: true });
  }

  const points = counts.map((partitions, i) => ({ partitions, broker: median(runs[i]!.broker), raw: median(runs[i]!.raw), rounds: runs[i]! }));
  const us = (x: number) => x.toFixed(1);
  const rows = points.map((p) => [
    String(p.partitions),
    p.broker.batchesPerSec.toFixed(0),
    ((p.broker.batchesPerSec * batchBytes) / MiB).toFixed(0),
    `${us(p.broker.cpuUsPerBatch)} (${us(p.broker.userUsPerBatch)} user, ${us(p.broker.sysUsPerBatch)} sys)`,
    p.raw.batchesPerSec.toFixed(0),
    `${us(p.raw.cpuUsPerBatch)} (${us(p.raw.sysUsPerBatch)} sys)`,
    (p.broker.batchesPerSec / p.raw.batchesPerSec).toFixed(2),
  ]);
  const first = points[0]!;
  const notes = points.slice(1).map((p) => {
    const growth = p.broker.cpuUsPerBatch / first.broker.cpuUsPerBatch;
    const rawGrowth = p.raw.cpuUsPerBatch / first.raw.cpuUsPerBatch;
    return `${first.partitions} -> ${p.partitions} partitions: broker CPU per batch x${growth.toFixed(2)}, raw writes x${rawGrowth.toFixed(2)}`;
  });
  printTable(
    `broker Produce, one broker in-process: ${ENTRIES} entries of one ${batchBytes} B batch (${RECORDS_PER_BATCH} x ${RECORD_SIZE} B records) per request, ${REQUESTS_IN_FLIGHT} in flight, median of ${ROUNDS} rounds of ${(RUN_MS / 1000).toFixed(1)} s`,
    ['partitions', 'batches/s', 'MiB/s', 'CPU us/batch', 'raw batches/s', 'raw CPU us/batch', 'ratio'],
    rows,
    notes,
  );
  const file = await writeResults('broker-produce', benchEnvironment(SCALE), { entries: ENTRIES, requestsInFlight: REQUESTS_IN_FLIGHT, batchBytes, points });
  console.log(`results written to ${file}`);
}

await main();
