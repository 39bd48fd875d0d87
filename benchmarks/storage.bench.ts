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
 *  - compaction: one LogCleaner pass (PartitionLog.compact) over a cleanup.policy=compact log of
 *    64 MiB of 100-byte values in batches of 100 records, keys drawn from 10,000 (so nearly every
 *    record is superseded), every segment inactive; MiB/s of log bytes cleaned and records/s,
 *    beside a raw copy of the same segment files (1 MiB fs.readSync, fs.writeSync, one fsync).
 *    Once with uncompressed batches, once with lz4 ones (the cleaner decompresses every batch and
 *    compresses again those that keep some records). Rounds interleaved, best of each reported.
 *  - CRC-32C MiB/s on 16 KiB buffers.
 * SAMSA_BENCH_SCALE scales the data (default 1: a 1 GiB log, 64 MiB compacted). Prints a table and writes
 * benchmarks/results/storage.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32c } from '../src/protocol/crc32c.js';
import { encodeRecordBatch, type RecordInput } from '../src/protocol/record-batch.js';
import { setLogLevel } from '../src/runtime/logger.js';
import type { CompactionStats } from '../src/storage/log-cleaner.js';
import { parseLogConfig } from '../src/storage/log-config.js';
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
/** Compaction: uncompressed log bytes, records per batch, distinct keys, segment size. */
const COMPACT_BYTES = Math.round(64 * MiB * SCALE);
const COMPACT_BATCH_RECORDS = 100;
const COMPACT_KEYS = 10_000;
const COMPACT_SEGMENT_BYTES = Math.max(MiB, Math.min(16 * MiB, Math.round(COMPACT_BYTES / 4)));
/** Reads of the raw segment copy: the cleaner's read chunk. */
const COPY_CHUNK = MiB;

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

/**
 * The compaction workload as a producer would send it: batches of COMPACT_BATCH_RECORDS keyed
 * records (keys `key-00000`..`key-09999` at random, 100-byte JSON-like values of words, which lz4
 * shrinks about as it would real text), deterministic. Uncompressed: until COMPACT_BYTES; with a
 * codec, `count` batches of the same records.
 */
function keyedBatches(compression: 'none' | 'lz4', count?: number): Buffer[] {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa'];
  let state = 0x9e3779b9;
  const rnd = (): number => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  const batches: Buffer[] = [];
  let bytes = 0;
  let seq = 0;
  while (count === undefined ? bytes < COMPACT_BYTES : batches.length < count) {
    const records: RecordInput[] = [];
    for (let r = 0; r < COMPACT_BATCH_RECORDS; r++) {
      const id = `key-${String(rnd() % COMPACT_KEYS).padStart(5, '0')}`;
      let text = `{"id":"${id}","seq":${seq++},"text":"`;
      while (text.length < RECORD_SIZE - 2) text += `${words[rnd() & 15]} `;
      const value = Buffer.alloc(RECORD_SIZE);
      value.write(text.slice(0, RECORD_SIZE - 2), 'latin1');
      value.write('"}', RECORD_SIZE - 2, 'latin1');
      records.push({ key: Buffer.from(id, 'latin1'), value, timestamp: 1_700_000_000_000 + batches.length });
    }
    const batch = encodeRecordBatch({ records, compression });
    batches.push(batch);
    bytes += batch.length;
  }
  return batches;
}

/** A compacted log holding `batches`, rolled so every segment is inactive, all below the high watermark. */
async function compactedLog(dir: string, batches: Buffer[]): Promise<{ log: PartitionLog; bytes: number }> {
  const config = parseLogConfig({ 'cleanup.policy': 'compact', 'segment.bytes': COMPACT_SEGMENT_BYTES, 'min.cleanable.dirty.ratio': 0 });
  const log = await PartitionLog.open({ dir, topic: 'compacted', partition: 0, config });
  let bytes = 0;
  for (const b of batches) {
    const r = await log.append(b, { leaderEpoch: 0 });
    if (r.errorCode !== 0) throw new Error(`append failed: ${JSON.stringify(r)}`);
    bytes += b.length;
  }
  log.roll();
  log.highWatermark = log.logEndOffset;
  return { log, bytes };
}

/** Copies the segment files of `dir` into one new file: COPY_CHUNK reads, writeSync, one fsync. MiB/s. */
function rawSegmentCopy(dir: string, into: string): { mibps: number; bytes: number } {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.log')).sort().map((f) => path.join(dir, f));
  const buf = Buffer.allocUnsafe(COPY_CHUNK);
  const out = path.join(into, 'raw-copy.bin');
  const t0 = process.hrtime.bigint();
  const fd = fs.openSync(out, 'w');
  let pos = 0;
  for (const file of files) {
    const in_ = fs.openSync(file, 'r');
    for (;;) {
      const n = fs.readSync(in_, buf, 0, COPY_CHUNK, null);
      if (n === 0) break;
      let done = 0;
      while (done < n) done += fs.writeSync(fd, buf, done, n - done, pos + done);
      pos += n;
    }
    fs.closeSync(in_);
  }
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  const s = seconds(t0);
  fs.rmSync(out);
  return { mibps: pos / MiB / s, bytes: pos };
}

interface CompactionRun {
  raw: number;
  rawBytes: number;
  mibps: number;
  recordsPerSecond: number;
  seconds: number;
  logBytes: number;
  stats: CompactionStats;
}

/** ROUNDS of: build the log, raw copy of its segments, one compact() timed; the best of each. */
async function compactionRounds(root: string, batches: Buffer[]): Promise<CompactionRun> {
  let best: CompactionRun | undefined;
  let bestRaw = 0;
  let rawBytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const dir = path.join(root, `compact-${round}`, 'compacted-0');
    const { log, bytes } = await compactedLog(dir, batches);
    const raw = rawSegmentCopy(dir, root);
    bestRaw = Math.max(bestRaw, raw.mibps);
    rawBytes = raw.bytes;
    const t0 = process.hrtime.bigint();
    const stats = await log.compact();
    const s = seconds(t0);
    await log.close();
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    if (stats === null || stats.aborted) throw new Error(`compaction did not run: ${JSON.stringify(stats)}`);
    const mibps = stats.bytesRead / MiB / s;
    if (best === undefined || mibps > best.mibps) best = { raw: 0, rawBytes: 0, mibps, recordsPerSecond: stats.recordsRead / s, seconds: s, logBytes: bytes, stats };
  }
  if (best === undefined) throw new Error('no compaction round ran');
  return { ...best, raw: bestRaw, rawBytes };
}

function compactionNote(r: CompactionRun): string {
  const st = r.stats;
  return (
    `${fmt(r.seconds, 2)} s; ${st.segmentsCleaned} segments cleaned (${st.segmentsRemoved} removed), ` +
    `${fmt(st.recordsRemoved)} of ${fmt(st.recordsRead)} records removed, ${fmt(st.keysMapped)} keys, ` +
    `${fmt(st.bytesRead / MiB, 1)} -> ${fmt(st.bytesWritten / MiB, 1)} MiB`
  );
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

    // ---- compaction: one pass over a compacted log, beside a raw copy of its segments ----
    const plainBatches = keyedBatches('none');
    const batchCount = plainBatches.length;
    const plain = await compactionRounds(root, plainBatches);
    plainBatches.length = 0;
    rows.push({ name: 'raw segment copy (1 MiB reads)', value: plain.raw, unit: 'MiB/s', note: `readSync + writeSync + 1 fsync of ${fmt(plain.rawBytes / MiB, 1)} MiB` });
    rows.push({ name: 'compaction pass', value: plain.mibps, unit: 'MiB/s', baseline: plain.raw, ratio: plain.mibps / plain.raw, note: compactionNote(plain) });
    rows.push({ name: 'compaction pass', value: plain.recordsPerSecond, unit: 'records/s', note: `${COMPACT_BATCH_RECORDS} x ${RECORD_SIZE} B per batch, ${fmt(COMPACT_KEYS)} keys, ${fmt(COMPACT_SEGMENT_BYTES / MiB)} MiB segments` });
    const lz4 = await compactionRounds(root, keyedBatches('lz4', batchCount));
    rows.push({ name: 'raw segment copy, lz4 log', value: lz4.raw, unit: 'MiB/s', note: `readSync + writeSync + 1 fsync of ${fmt(lz4.rawBytes / MiB, 1)} MiB` });
    rows.push({ name: 'compaction pass, lz4 batches', value: lz4.mibps, unit: 'MiB/s', baseline: lz4.raw, ratio: lz4.mibps / lz4.raw, note: compactionNote(lz4) });
    rows.push({ name: 'compaction pass, lz4 batches', value: lz4.recordsPerSecond, unit: 'records/s', note: `same records as uncompressed, ${fmt(lz4.logBytes / MiB, 1)} MiB of log` });

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
  process.stdout.write(`storage benchmark (scale ${SCALE}, log ${fmt(LOG_BYTES / MiB)} MiB, rounds of ${fmt(ROUND_BYTES / MiB)} MiB, compaction ${fmt(COMPACT_BYTES / MiB)} MiB)\n${out.join('\n')}\n`);

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
