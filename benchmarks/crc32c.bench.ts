/**
 * Benchmark of the record-batch layer: CRC-32C throughput (MiB/s) of each implementation that
 * loads here (samsa's addon on the CPU's CRC or carry-less multiply instructions,
 * @node-rs/crc32, the JavaScript tables) on 1 KiB, 16 KiB and 1 MiB buffers, and RecordBatch
 * v2 encode/decode throughput (records/s) for ~16 KiB batches of 100-byte
 * records, uncompressed and gzip, with KafkaJS's encoder as a reference point. Each figure is
 * given per wall-clock second and per CPU second of this process (user + system): on a shared,
 * busy machine the CPU-time figure is the steadier measure of the code itself.
 * Run: node --import tsx benchmarks/crc32c.bench.ts   (writes benchmarks/results/crc32c.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceleratedCrc32c, crc32cTables } from '../src/protocol/crc32c.js';
import { decodeRecordBatch, encodeRecordBatch, type RecordBatchInput, type RecordInput } from '../src/protocol/record-batch.js';

const MIN_SECONDS = Number(process.env.BENCH_SECONDS ?? 1);

interface Measurement {
  iterations: number;
  wallSeconds: number;
  cpuSeconds: number;
}

interface Row {
  case: string;
  unit: string;
  /** Throughput per wall-clock second. */
  wall: number;
  /** Throughput per CPU second of this process. */
  cpu: number;
  iterations: number;
  wallSeconds: number;
  cpuSeconds: number;
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1e6;
}

/** Runs fn in rounds until MIN_SECONDS of wall time have passed (after a warm-up). */
function measure(fn: () => void): Measurement {
  const warmEnd = performance.now() + 200;
  while (performance.now() < warmEnd) fn();
  let iterations = 0;
  let round = 1;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MIN_SECONDS * 1000) {
    for (let i = 0; i < round; i++) fn();
    iterations += round;
    elapsed = performance.now() - start;
    if (elapsed < 50) round *= 2;
  }
  return { iterations, wallSeconds: elapsed / 1000, cpuSeconds: cpuSecondsSince(cpu0) };
}

async function measureAsync(fn: () => Promise<unknown>): Promise<Measurement> {
  const warmEnd = performance.now() + 200;
  while (performance.now() < warmEnd) await fn();
  let iterations = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MIN_SECONDS * 1000) {
    await fn();
    iterations++;
    elapsed = performance.now() - start;
  }
  return { iterations, wallSeconds: elapsed / 1000, cpuSeconds: cpuSecondsSince(cpu0) };
}

/** Deterministic pseudo-random bytes (xorshift), so runs are comparable. */
function pseudoRandomBytes(n: number, seed = 0x9e3779b9): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed | 0;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/** Bit-at-a-time CRC-32C, the baseline the table-driven version is measured against. */
function bytewiseCrc32c(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) {
    c ^= buf[i]!;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

const rows: Row[] = [];
let sink = 0;

function addRow(name: string, unit: string, perOp: number, m: Measurement): void {
  rows.push({
    case: name,
    unit,
    wall: (m.iterations * perOp) / m.wallSeconds,
    cpu: (m.iterations * perOp) / m.cpuSeconds,
    ...m,
  });
}

// ---- CRC-32C ----

const MiB = 1024 * 1024;
// every implementation that loads here (crc32c() itself uses the first of them on long ranges)
const implementations: { name: string; update: (b: Uint8Array) => number }[] = [
  ...acceleratedCrc32c.map((a) => ({ name: a.name === 'hardware' ? "samsa's addon (CPU instructions)" : '@node-rs/crc32', update: (b: Uint8Array) => a.update(b, 0, 0, b.length) })),
  { name: 'slicing-by-16 tables', update: (b: Uint8Array) => crc32cTables(0, b, 0, b.length) },
];
for (const size of [1024, 16 * 1024, MiB]) {
  const data = pseudoRandomBytes(size);
  const label = size === MiB ? '1 MiB' : `${size / 1024} KiB`;
  for (const impl of implementations) addRow(`crc32c ${impl.name}, ${label}`, 'MiB/s', size / MiB, measure(() => { sink ^= impl.update(data); }));
}
{
  const data = pseudoRandomBytes(16 * 1024);
  addRow('crc32c bitwise reference, 16 KiB', 'MiB/s', data.length / MiB, measure(() => { sink ^= bytewiseCrc32c(data); }));
}

// ---- RecordBatch v2 encode/decode: ~16 KiB batches of 100-byte values ----

const VALUE_SIZE = 100;
const BATCH_BYTES = 16 * 1024;
const payload = pseudoRandomBytes(VALUE_SIZE * 1000);
const baseTs = 1_700_000_000_000;

function makeRecords(n: number): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({
    key: Buffer.from(`key-${i % 100}`),
    value: payload.subarray(i * VALUE_SIZE, (i + 1) * VALUE_SIZE),
    timestamp: baseTs + i,
  }));
}

// Largest record count whose batch stays within 16 KiB.
let count = 1;
while (encodeRecordBatch({ records: makeRecords(count + 1) }).length <= BATCH_BYTES) count++;
const records = makeRecords(count);
const plain: RecordBatchInput = { producerId: 1000, producerEpoch: 0, baseSequence: 0, records };
const gzipInput: RecordBatchInput = { ...plain, compression: 'gzip' };
const encodedPlain = encodeRecordBatch(plain);
const encodedGzip = encodeRecordBatch(gzipInput);

addRow(`encode none (${count} x ${VALUE_SIZE} B, ${encodedPlain.length} B)`, 'records/s', count, measure(() => { sink ^= encodeRecordBatch(plain).length; }));
addRow(`decode none (${count} x ${VALUE_SIZE} B)`, 'records/s', count, measure(() => { sink ^= decodeRecordBatch(encodedPlain).records.length; }));
addRow(`encode gzip (${count} x ${VALUE_SIZE} B, ${encodedGzip.length} B)`, 'records/s', count, measure(() => { sink ^= encodeRecordBatch(gzipInput).length; }));
addRow(`decode gzip (${count} x ${VALUE_SIZE} B)`, 'records/s', count, measure(() => { sink ^= decodeRecordBatch(encodedGzip).records.length; }));

// ---- KafkaJS's encoder on the same records, for reference ----

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
const kafkaBatch: { RecordBatch: (o: any) => Promise<{ buffer: Buffer }> } = require('kafkajs/src/protocol/recordBatch/v0');
const kafkaRecord: (o: any) => unknown = require('kafkajs/src/protocol/recordBatch/record/v0');
const Long: { fromValue(v: number): unknown } = require('kafkajs/src/utils/long');
addRow(
  `kafkajs encode none (${count} x ${VALUE_SIZE} B)`,
  'records/s',
  count,
  await measureAsync(async () => {
    const rs = records.map((r, i) => kafkaRecord({ offsetDelta: i, timestampDelta: i, key: r.key, value: r.value }));
    const b = await kafkaBatch.RecordBatch({
      firstOffset: Long.fromValue(0),
      firstTimestamp: baseTs,
      maxTimestamp: baseTs + count - 1,
      lastOffsetDelta: count - 1,
      producerId: Long.fromValue(1000),
      producerEpoch: 0,
      firstSequence: 0,
      records: rs,
    });
    sink ^= b.buffer.length;
  }),
);

// ---- report ----

const fmt = (v: number) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1));
const width = Math.max(...rows.map((r) => r.case.length));
console.log(`\n${'case'.padEnd(width)}  ${'per wall s'.padStart(12)}  ${'per CPU s'.padStart(12)}  unit`);
console.log(`${'-'.repeat(width)}  ${'-'.repeat(12)}  ${'-'.repeat(12)}  ---------`);
for (const r of rows) console.log(`${r.case.padEnd(width)}  ${fmt(r.wall).padStart(12)}  ${fmt(r.cpu).padStart(12)}  ${r.unit}`);
console.log(`\n(sink ${sink & 1}; node ${process.version}; ${os.cpus()[0]?.model ?? 'unknown cpu'}; load ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} CPUs)`);

const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
mkdirSync(resultsDir, { recursive: true });
const outFile = path.join(resultsDir, 'crc32c.json');
writeFileSync(
  outFile,
  JSON.stringify(
    {
      benchmark: 'crc32c',
      date: new Date().toISOString(),
      node: process.version,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cpus: os.cpus().length,
      loadAverage1m: os.loadavg()[0],
      recordsPerBatch: count,
      valueBytes: VALUE_SIZE,
      rows,
    },
    null,
    2,
  ),
);
console.log(`wrote ${path.relative(process.cwd(), outFile)}`);
