/**
 * `npm run bench:storage`: the partition log against raw file I/O in the same run.
 *  - append: 16 KiB RecordBatch v2 batches of 100-byte records through PartitionLog.append
 *    (validate + CRC-32C, stamp offsets, positional write, index upkeep) beside raw fs.writeSync
 *    of the same bytes; rounds interleaved, best round of each reported, with the ratio. Also
 *    beside "raw + CRC" (writeSync plus a CRC-32C of each batch), the floor for a validating append.
 *  - read: sequential reads (1 MiB fetches) of that log from a freshly opened LogManager (cold
 *    process state; the OS page cache stays warm) and again on the same instance (warm).
 *  - recovery: opening that log after an unclean shutdown with recovery point 0 (every batch
 *    re-read and CRC-checked, indexes rebuilt).
 *  - CRC-32C MiB/s on 16 KiB buffers.
 * SAMSA_BENCH_SCALE scales the data (default 1: a 1 GiB log). Prints a table and writes
 * benchmarks/results/storage.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32c } from '../src/protocol/crc32c.js';
import { setLogLevel } from '../src/runtime/logger.js';
import { LogManager } from '../src/storage/log-manager.js';
import { PartitionLog } from '../src/storage/partition-log.js';
import { distinctBatches } from './lib/batches.js';

if (!process.env.SAMSA_LOG_LEVEL) setLogLevel('error');

const SCALE = Math.max(0.001, Number(process.env.SAMSA_BENCH_SCALE ?? 1));
const MiB = 1024 * 1024;
const LOG_BYTES = Math.round(1024 * MiB * SCALE);
const ROUND_BYTES = Math.round(512 * MiB * SCALE);
const ROUNDS = 3;
const BATCH_TARGET = 16 * 1024;
const RECORD_SIZE = 100;
const FETCH_BYTES = MiB;

interface Row {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  target?: string;
  note?: string;
}

const rows: Row[] = [];

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Distinct batches of ~16 KiB of 100-byte records. */
function makeBatches(n: number): { batches: Buffer[]; recordsPerBatch: number } {
  const perRecordOverhead = 8;
  const recordsPerBatch = Math.floor((BATCH_TARGET - 61) / (RECORD_SIZE + perRecordOverhead));
  return { batches: distinctBatches(n, recordsPerBatch, RECORD_SIZE), recordsPerBatch };
}

function rawWrite(dir: string, batches: Buffer[], total: number, withCrc: boolean): number {
  const file = path.join(dir, 'raw.bin');
  const fd = fs.openSync(file, 'w');
  let pos = 0;
  let i = 0;
  let sink = 0;
  const t0 = process.hrtime.bigint();
  while (pos < total) {
    const b = batches[i++ % batches.length]!;
    if (withCrc) sink ^= crc32c(b, 21, b.length);
    let done = 0;
    while (done < b.length) done += fs.writeSync(fd, b, done, b.length - done, pos + done);
    pos += b.length;
  }
  const s = seconds(t0);
  fs.closeSync(fd);
  fs.rmSync(file);
  if (sink === 0.5) throw new Error('unreachable');
  return pos / MiB / s;
}

async function appendRun(dir: string, batches: Buffer[], total: number): Promise<{ mibps: number; batches: number; log: PartitionLog }> {
  const log = await PartitionLog.open({ dir, topic: 'bench', partition: 0 });
  let bytes = 0;
  let i = 0;
  const t0 = process.hrtime.bigint();
  while (bytes < total) {
    const b = batches[i++ % batches.length]!;
    const r = await log.append(b, { leaderEpoch: 0 });
    if (r.errorCode !== 0) throw new Error(`append failed: ${JSON.stringify(r)}`);
    bytes += b.length;
  }
  const s = seconds(t0);
  return { mibps: bytes / MiB / s, batches: i, log };
}

async function readAll(log: PartitionLog): Promise<number> {
  let offset = log.logStartOffset;
  let bytes = 0;
  const t0 = process.hrtime.bigint();
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, FETCH_BYTES);
    if (r.errorCode !== 0) throw new Error(`read failed: ${r.reason}`);
    const buf = r.records;
    if (buf.length === 0) throw new Error(`empty read at ${offset}`);
    bytes += buf.length;
    // Next offset: last batch's base + lastOffsetDelta + 1, found by walking the lengths.
    let pos = 0;
    let last = offset;
    while (pos < buf.length) {
      const base = buf.readInt32BE(pos) * 2 ** 32 + buf.readUInt32BE(pos + 4);
      last = base + buf.readInt32BE(pos + 23);
      pos += 12 + buf.readInt32BE(pos + 8);
    }
    offset = last + 1;
  }
  return bytes / MiB / seconds(t0);
}

function crcThroughput(): number {
  const buf = Buffer.alloc(16 * 1024);
  for (let i = 0; i < buf.length; i++) buf[i] = (i * 31) & 0xff;
  for (let i = 0; i < 2000; i++) crc32c(buf);
  let n = 0;
  let sink = 0;
  const t0 = process.hrtime.bigint();
  while (seconds(t0) < 1) {
    for (let i = 0; i < 500; i++) sink ^= crc32c(buf);
    n += 500;
  }
  const s = seconds(t0);
  if (sink === 0.5) throw new Error('unreachable');
  return (n * buf.length) / MiB / s;
}

function fmt(v: number, digits = 0): string {
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-bench-storage-'));
  try {
    const { batches, recordsPerBatch } = makeBatches(64);
    const batchBytes = batches[0]!.length;

    // ---- append vs raw, interleaved rounds ----
    const raw: number[] = [];
    const rawCrc: number[] = [];
    const app: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      raw.push(rawWrite(root, batches, ROUND_BYTES, false));
      rawCrc.push(rawWrite(root, batches, ROUND_BYTES, true));
      const dir = path.join(root, `round-${round}`, 'bench-0');
      const r = await appendRun(dir, batches, ROUND_BYTES);
      app.push(r.mibps);
      await r.log.close();
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
    const bestRaw = Math.max(...raw);
    const bestRawCrc = Math.max(...rawCrc);
    const bestApp = Math.max(...app);
    const recordsPerMiB = (recordsPerBatch * MiB) / batchBytes;
    rows.push({ name: 'raw fs.writeSync (16 KiB)', value: bestRaw, unit: 'MiB/s' });
    rows.push({ name: 'raw fs.writeSync + CRC-32C', value: bestRawCrc, unit: 'MiB/s' });
    rows.push({ name: 'PartitionLog.append', value: bestApp, unit: 'MiB/s', baseline: bestRaw, ratio: bestApp / bestRaw, target: '>= 0.70' });
    rows.push({ name: 'append vs raw + CRC', value: bestApp, unit: 'MiB/s', baseline: bestRawCrc, ratio: bestApp / bestRawCrc });
    rows.push({ name: 'PartitionLog.append', value: bestApp * recordsPerMiB, unit: 'records/s', note: `${recordsPerBatch} x ${RECORD_SIZE} B per ${batchBytes} B batch` });

    // ---- a log of LOG_BYTES for reads and recovery ----
    const logDir = path.join(root, 'logs');
    const manager = await LogManager.open({ logDir, schedule: false });
    const log = await manager.getOrCreateLog('bench', 0);
    let written = 0;
    let i = 0;
    while (written < LOG_BYTES) {
      const b = batches[i++ % batches.length]!;
      await log.append(b, { leaderEpoch: 0 });
      written += b.length;
    }
    await manager.close();

    const coldManager = await LogManager.open({ logDir, schedule: false });
    const coldLog = coldManager.getLog('bench', 0)!;
    const cold = await readAll(coldLog);
    const warm = await readAll(coldLog);
    await coldManager.close();
    rows.push({ name: 'sequential read, fresh LogManager', value: cold, unit: 'MiB/s', note: 'page cache warm' });
    rows.push({ name: 'sequential read, same instance', value: warm, unit: 'MiB/s' });

    // ---- recovery: unclean shutdown, recovery point 0 ----
    fs.rmSync(path.join(logDir, '.kafka_cleanshutdown'));
    fs.rmSync(path.join(logDir, 'recovery-point-offset-checkpoint'));
    const t0 = process.hrtime.bigint();
    const recovered = await LogManager.open({ logDir, schedule: false });
    const recoverySeconds = seconds(t0);
    const end = recovered.getLog('bench', 0)!.logEndOffset;
    await recovered.close();
    rows.push({ name: `recovery of ${fmt(written / MiB)} MiB`, value: recoverySeconds, unit: 's', note: `${fmt(written / MiB / recoverySeconds)} MiB/s, ${end} offsets` });

    // ---- CRC ----
    rows.push({ name: 'CRC-32C (16 KiB buffers)', value: crcThroughput(), unit: 'MiB/s' });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }

  const table = [['case', 'value', 'unit', 'baseline', 'ratio', 'target', 'note']];
  for (const r of rows) {
    table.push([
      r.name,
      fmt(r.value, r.unit === 's' ? 2 : 0),
      r.unit,
      r.baseline === undefined ? '' : fmt(r.baseline),
      r.ratio === undefined ? '' : fmt(r.ratio, 2),
      r.target ?? '',
      r.note ?? '',
    ]);
  }
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  const out = table.map((row) => row.map((cell, c) => (c === 1 || c === 3 || c === 4 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  '));
  process.stdout.write(`storage benchmark (scale ${SCALE}, log ${fmt(LOG_BYTES / MiB)} MiB, rounds of ${fmt(ROUND_BYTES / MiB)} MiB)\n${out.join('\n')}\n`);

  const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(
    path.join(resultsDir, 'storage.json'),
    JSON.stringify(
      { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, platform: `${os.platform()} ${os.release()}`, scale: SCALE, rows },
      null,
      2,
    ) + '\n',
  );
}

await main();
