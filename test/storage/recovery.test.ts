import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { iterateBatches, validateBatch } from '../../src/protocol/batch-header.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { parseLogConfig, type LogConfigInput } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { batch, captureLogger, cleanupTmpDirs, decodeAll, tmpDir, type CapturedLog } from './helpers.js';

const SEG = (base: number, suffix = '.log'): string => String(base).padStart(20, '0') + suffix;

interface Opened {
  log: PartitionLog;
  /** Everything logged (warnings, in these tests). */
  warnings: CapturedLog[];
}

async function open(dir: string, opts: { recoveryPoint?: number; clean?: boolean; config?: LogConfigInput } = {}): Promise<Opened> {
  const { logger, entries } = captureLogger();
  const log = await PartitionLog.open({
    dir,
    topic: 't',
    partition: 0,
    config: parseLogConfig(opts.config ?? {}),
    clock: new FakeClock(),
    logger,
    recoveryPoint: opts.recoveryPoint ?? 0,
    hadCleanShutdown: opts.clean ?? false,
  });
  // Live: indexes of older segments are loaded (and rebuilt) lazily, after open returns.
  return { log, warnings: entries };
}

/** A closed log of `n` one-record batches v0..v{n-1}; returns the batch positions in its segments. */
async function build(n: number, config: LogConfigInput = {}): Promise<string> {
  const dir = path.join(tmpDir('recovery'), 't-0');
  const { log } = await open(dir, { config });
  for (let i = 0; i < n; i++) {
    const r = await log.append(batch({ values: [`v${i}`.padEnd(40, '*')], timestamps: 1000 + i }), { leaderEpoch: 1 });
    expect(r.errorCode).to.equal(ErrorCode.NONE);
  }
  await log.flush();
  await log.close();
  return dir;
}

function positions(file: string): number[] {
  const buf = fs.readFileSync(file);
  return [...iterateBatches(buf)].map((f) => f.pos);
}

/** Reads every record and checks every returned batch's CRC. */
async function readBack(log: PartitionLog): Promise<string[]> {
  const values: string[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, 1 << 20);
    if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
    for (const frame of iterateBatches(r.records)) expect(validateBatch(r.records, frame.pos)).to.equal(null);
    const decoded = decodeAll(r.records);
    if (decoded.length === 0) break;
    for (const d of decoded) values.push(d.value.replace(/\*+$/, ''));
    offset = decoded[decoded.length - 1]!.offset + 1;
  }
  return values;
}

const range = (n: number): string[] => Array.from({ length: n }, (_, i) => `v${i}`);

describe('storage/recovery', () => {
  afterEach(cleanupTmpDirs);

  it('truncates a torn tail (a partial last batch)', async () => {
    const dir = await build(10);
    const file = path.join(dir, SEG(0));
    const lastBatchAt = positions(file)[9]!;
    fs.truncateSync(file, fs.statSync(file).size - 5);
    const { log, warnings } = await open(dir);
    expect(log.logEndOffset).to.equal(9);
    expect(await readBack(log)).to.deep.equal(range(9));
    expect(fs.statSync(file).size).to.equal(lastBatchAt);
    expect(warnings.some((w) => /truncated/.test(w.message) && /runs past|less than/.test(String(w.reason)))).to.equal(true);
    const appended = await log.append(batch(['next']), { leaderEpoch: 2 });
    expect(appended).to.include({ baseOffset: 9 });
    await log.close();
  });

  it('truncates at a batch whose CRC no longer matches (flipped byte)', async () => {
    const dir = await build(10);
    const file = path.join(dir, SEG(0));
    const pos = positions(file);
    const bytes = fs.readFileSync(file);
    bytes[pos[6]! + 70] ^= 0x40;
    fs.writeFileSync(file, bytes);
    const { log, warnings } = await open(dir);
    expect(log.logEndOffset).to.equal(6);
    expect(fs.statSync(file).size).to.equal(pos[6]);
    expect(await readBack(log)).to.deep.equal(range(6));
    expect(warnings.some((w) => /CRC mismatch/.test(String(w.reason)))).to.equal(true);
    await log.close();
  });

  it('truncates garbage appended to a segment', async () => {
    for (const garbage of [Buffer.alloc(100), Buffer.from('not a record batch at all, just some junk bytes '.repeat(3))]) {
      const dir = await build(5);
      const file = path.join(dir, SEG(0));
      const size = fs.statSync(file).size;
      fs.appendFileSync(file, garbage);
      const { log, warnings } = await open(dir, { recoveryPoint: 5 });
      expect(log.logEndOffset).to.equal(5);
      expect(fs.statSync(file).size).to.equal(size);
      expect(await readBack(log)).to.deep.equal(range(5));
      expect(warnings.length).to.be.greaterThan(0);
      await log.close();
    }
  });

  it('truncates at a batch whose offsets go backwards', async () => {
    const dir = await build(4);
    const file = path.join(dir, SEG(0));
    fs.appendFileSync(file, batch({ values: ['dup'], baseOffset: 2 }));
    const { log, warnings } = await open(dir);
    expect(log.logEndOffset).to.equal(4);
    expect(warnings.some((w) => /expected >= 4/.test(String(w.reason)))).to.equal(true);
    await log.close();
  });

  it('cuts a damaged middle segment and deletes the segments after it', async () => {
    const config = { 'segment.bytes': 400 };
    const dir = await build(30, config);
    const logs = fs.readdirSync(dir).filter((n) => n.endsWith('.log')).sort();
    expect(logs.length).to.be.greaterThan(3);
    const victim = path.join(dir, logs[1]!);
    const victimBase = Number(logs[1]!.slice(0, 20));
    const pos = positions(victim);
    const bytes = fs.readFileSync(victim);
    bytes[pos[1]! + 30] ^= 1;
    fs.writeFileSync(victim, bytes);
    const { log, warnings } = await open(dir, { config });
    expect(log.logEndOffset).to.equal(victimBase + 1);
    expect(log.numberOfSegments).to.equal(2);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.log')).sort()).to.deep.equal(logs.slice(0, 2));
    expect(await readBack(log)).to.deep.equal(range(victimBase + 1));
    const w = warnings.find((x) => /truncated/.test(x.message))!;
    expect((w.deletedSegments as number[]).length).to.equal(logs.length - 2);
    await log.close();
  });

  it('trusts segments below the recovery point (like Kafka, they are not re-validated)', async () => {
    const config = { 'segment.bytes': 400 };
    const dir = await build(30, config);
    const logs = fs.readdirSync(dir).filter((n) => n.endsWith('.log')).sort();
    const victim = path.join(dir, logs[0]!);
    const bytes = fs.readFileSync(victim);
    bytes[positions(victim)[1]! + 30] ^= 1;
    fs.writeFileSync(victim, bytes);
    const { log } = await open(dir, { config, recoveryPoint: 30 });
    expect(log.logEndOffset).to.equal(30);
    expect(log.numberOfSegments).to.equal(logs.length);
    await log.close();
  });

  it('rebuilds a deleted offset index and time index, after clean and unclean shutdowns', async () => {
    const config = { 'segment.bytes': 2000, 'index.interval.bytes': 100 };
    for (const clean of [true, false]) {
      const dir = await build(60, config);
      const logs = fs.readdirSync(dir).filter((n) => n.endsWith('.log')).sort();
      expect(logs.length).to.be.greaterThan(2);
      const original = fs.readFileSync(path.join(dir, logs[0]!.replace('.log', '.index')));
      const originalTime = fs.readFileSync(path.join(dir, logs[0]!.replace('.log', '.timeindex')));
      expect(original.length).to.be.greaterThan(0);
      for (const name of logs) {
        fs.rmSync(path.join(dir, name.replace('.log', '.index')));
        fs.rmSync(path.join(dir, name.replace('.log', '.timeindex')));
      }
      const { log, warnings } = await open(dir, { config, clean, recoveryPoint: 60 });
      expect(log.logEndOffset).to.equal(60);
      expect(await readBack(log)).to.deep.equal(range(60));
      expect(await log.offsetForTimestamp(1033)).to.include({ offset: 33, timestamp: 1033 });
      expect(warnings.some((w) => /rebuilding segment indexes/.test(w.message))).to.equal(true);
      await log.close();
      expect(fs.readFileSync(path.join(dir, logs[0]!.replace('.log', '.index'))).equals(original)).to.equal(true);
      expect(fs.readFileSync(path.join(dir, logs[0]!.replace('.log', '.timeindex'))).equals(originalTime)).to.equal(true);
    }
  });

  it('rebuilds a damaged index (garbage, odd size, entries beyond the log)', async () => {
    const config = { 'segment.bytes': 2000, 'index.interval.bytes': 100 };
    const damages: ((file: string) => void)[] = [
      (f) => fs.writeFileSync(f, Buffer.from('garbage!garbage!garbage!')),
      (f) => fs.appendFileSync(f, Buffer.alloc(3)),
      (f) => {
        const b = Buffer.alloc(8);
        b.writeInt32BE(5000, 0);
        b.writeInt32BE(1 << 30, 4);
        fs.appendFileSync(f, b);
      },
    ];
    for (const damage of damages) {
      const dir = await build(60, config);
      const first = fs.readdirSync(dir).filter((n) => n.endsWith('.index')).sort()[0]!;
      damage(path.join(dir, first));
      const { log, warnings } = await open(dir, { config, clean: true, recoveryPoint: 60 });
      expect(await readBack(log)).to.deep.equal(range(60));
      expect(warnings.some((w) => /rebuilding/.test(w.message))).to.equal(true);
      await log.close();
    }
  });

  it('recovers the active segment when its tail is torn despite a clean-shutdown marker', async () => {
    const dir = await build(8);
    const file = path.join(dir, SEG(0));
    fs.truncateSync(file, fs.statSync(file).size - 1);
    const { log, warnings } = await open(dir, { clean: true, recoveryPoint: 8 });
    expect(log.logEndOffset).to.equal(7);
    expect(await readBack(log)).to.deep.equal(range(7));
    expect(warnings.length).to.be.greaterThan(0);
    await log.close();
  });

  it('handles a truncated-to-zero segment file and an empty directory', async () => {
    const dir = await build(5);
    fs.truncateSync(path.join(dir, SEG(0)), 0);
    const { log } = await open(dir);
    expect([log.logStartOffset, log.logEndOffset]).to.deep.equal([0, 0]);
    await log.close();
    const empty = path.join(tmpDir(), 't-0');
    fs.mkdirSync(empty);
    const { log: fresh } = await open(empty);
    expect(fresh.logEndOffset).to.equal(0);
    await fresh.close();
  });

  it('removes leftover temp files and orphan indexes on open', async () => {
    const dir = await build(3);
    fs.writeFileSync(path.join(dir, 'leader-epoch-checkpoint.tmp'), 'x');
    fs.writeFileSync(path.join(dir, SEG(999, '.index')), Buffer.alloc(8));
    const { log } = await open(dir);
    const names = fs.readdirSync(dir);
    expect(names.some((n) => n.endsWith('.tmp'))).to.equal(false);
    expect(names).to.not.include(SEG(999, '.index'));
    expect(log.logEndOffset).to.equal(3);
    await log.close();
  });
});
