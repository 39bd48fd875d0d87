import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { ConfigError } from '../../src/storage/log-config.js';
import { CLEAN_SHUTDOWN_FILE, LogManager, parseTopicPartitionDir, type LogManagerOptions } from '../../src/storage/log-manager.js';
import { checkFor } from '../helpers/check-for.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import { batch, captureLogger, cleanupTmpDirs, decodeAll, openFdCount, tmpDir } from './helpers.js';

function options(logDir: string, extra: Partial<LogManagerOptions> = {}): LogManagerOptions {
  return { logDir, clock: new FakeClock(), logger: captureLogger().logger, ...extra };
}

describe('storage/log-manager', () => {
  afterEach(cleanupTmpDirs);

  it('parses topic-partition directory names', () => {
    expect(parseTopicPartitionDir('orders-3')).to.deep.equal({ topic: 'orders', partition: 3 });
    expect(parseTopicPartitionDir('my-topic.v2-17')).to.deep.equal({ topic: 'my-topic.v2', partition: 17 });
    expect(parseTopicPartitionDir('orders')).to.equal(null);
    expect(parseTopicPartitionDir('orders-x')).to.equal(null);
    expect(parseTopicPartitionDir('-1')).to.equal(null);
  });

  it('creates logs in <dir>/<topic>-<partition> and reopens them after a clean shutdown', async () => {
    const dir = tmpDir('lm');
    const lm = await LogManager.open(options(dir, { config: { 'segment.bytes': 500 } }));
    const a = await lm.getOrCreateLog('orders', 0);
    const b = await lm.getOrCreateLog('orders', 1, { 'retention.ms': 1000 });
    expect(await lm.getOrCreateLog('orders', 0)).to.equal(a);
    expect(b.config.retentionMs).to.equal(1000);
    expect(b.config.segmentBytes).to.equal(500);
    for (let i = 0; i < 10; i++) await a.append(batch([`a${i}`]), { leaderEpoch: 0 });
    await b.append(batch(['b0', 'b1']), { leaderEpoch: 0 });
    a.highWatermark = 7;
    await lm.close();
    expect(fs.existsSync(path.join(dir, CLEAN_SHUTDOWN_FILE))).to.equal(true);
    const rp = fs.readFileSync(path.join(dir, 'recovery-point-offset-checkpoint'), 'utf8').split('\n');
    expect(rp.slice(0, 2)).to.deep.equal(['0', '2']);
    expect(rp).to.include('orders 0 10').and.include('orders 1 2');
    const hw = fs.readFileSync(path.join(dir, 'replication-offset-checkpoint'), 'utf8');
    expect(hw.split('\n')).to.include('orders 0 7').and.include('orders 1 0');

    const lm2 = await LogManager.open(options(dir));
    expect(fs.existsSync(path.join(dir, CLEAN_SHUTDOWN_FILE))).to.equal(false);
    expect(lm2.logCount).to.equal(2);
    const a2 = lm2.getLog('orders', 0)!;
    expect([a2.logEndOffset, a2.highWatermark, a2.recoveryPoint]).to.deep.equal([10, 7, 10]);
    const r = await a2.read(3, 1 << 20);
    if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
    expect(decodeAll(r.records)[0]).to.include({ offset: 3, value: 'a3' });
    await lm2.close();
  });

  it('DeleteRecords: moves the log start inside a segment, deletes whole segments below it, and survives a restart', async () => {
    const dir = tmpDir('lm');
    const lm = await LogManager.open(options(dir, { config: { 'segment.bytes': 300 } }));
    const log = await lm.getOrCreateLog('t', 0);
    for (let i = 0; i < 20; i++) await log.append(batch([`r${i}`]), { leaderEpoch: 0 });
    const segmentsBefore = fs.readdirSync(path.join(dir, 't-0')).filter((f) => f.endsWith('.log')).length;
    expect(segmentsBefore).to.be.greaterThan(2);
    expect(() => log.deleteRecordsBefore(5)).to.throw(RangeError, /high watermark/);
    log.highWatermark = 20;
    expect(log.deleteRecordsBefore(13)).to.equal(13);
    expect(log.deleteRecordsBefore(4)).to.equal(13); // never backwards
    expect(log.logStartOffset).to.equal(13);
    const segmentsAfter = fs.readdirSync(path.join(dir, 't-0')).filter((f) => f.endsWith('.log')).length;
    expect(segmentsAfter).to.be.lessThan(segmentsBefore);
    const below = await log.read(12, 1 << 20);
    expect(below.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
    const at = await log.read(13, 1 << 20);
    if (at.errorCode !== ErrorCode.NONE) throw new Error(at.reason);
    expect(decodeAll(at.records).map((r) => r.offset)).to.include(13);
    await lm.checkpointLogStartOffsets();
    expect(fs.readFileSync(path.join(dir, 'log-start-offset-checkpoint'), 'utf8').split('\n')).to.include('t 0 13');
    // an unclean stop: the checkpoint written at DeleteRecords time is what the restart finds
    const lm2 = await LogManager.open(options(dir));
    expect(lm2.getLog('t', 0)!.logStartOffset).to.equal(13);
    expect((await lm2.getLog('t', 0)!.read(12, 1 << 20)).errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
    // a follower takes the leader's log start, within its own log
    lm2.getLog('t', 0)!.maybeIncrementLogStartOffset(100);
    expect(lm2.getLog('t', 0)!.logStartOffset).to.equal(20);
    await lm2.close();
    await lm.close();
  });

  it('recovers from the recovery point after an unclean shutdown', async () => {
    const dir = tmpDir('lm');
    const lm = await LogManager.open(options(dir));
    const log = await lm.getOrCreateLog('t', 0);
    await log.append(batch(['a', 'b']), { leaderEpoch: 0 });
    await log.flush();
    await lm.checkpointRecoveryPoints();
    await log.append(batch(['c']), { leaderEpoch: 0 });
    // Crash: no close; the descriptors die with the "process".
    (lm as unknown as { handles: { closeAll(): void } }).handles.closeAll();
    const file = path.join(dir, 't-0', '00000000000000000000.log');
    fs.appendFileSync(file, Buffer.from('torn'));
    const { logger, entries } = captureLogger();
    const lm2 = await LogManager.open(options(dir, { logger }));
    const again = lm2.getLog('t', 0)!;
    expect(again.logEndOffset).to.equal(3);
    expect(again.recoveryPoint).to.equal(2);
    expect(entries.some((e) => e.level === 'info' && e.message === 'loaded logs' && e.cleanShutdown === false)).to.equal(true);
    await lm2.close();
  });

  it('rejects bad config and invalid topic names with a ConfigError', async () => {
    const dir = tmpDir('lm');
    let err: unknown;
    await LogManager.open(options(dir, { config: { 'retention.msec': 1 } })).catch((e) => (err = e));
    expect(err).to.be.instanceOf(ConfigError);
    expect((err as ConfigError).key).to.equal('retention.msec');
    const lm = await LogManager.open(options(dir));
    for (const [topic, partition] of [['bad topic', 0], ['../x', 0], ['ok', -1]] as const) {
      let e: unknown;
      await lm.getOrCreateLog(topic, partition).catch((x) => (e = x));
      expect(e).to.be.instanceOf(ConfigError);
    }
    let e2: unknown;
    await lm.getOrCreateLog('ok', 0, { 'segment.bytes': 'lots' }).catch((x) => (e2 = x));
    expect((e2 as ConfigError).key).to.equal('segment.bytes');
    await lm.close();
  });

  it('deletes a log and its directory, and cleans up half-deleted directories at start', async () => {
    const dir = tmpDir('lm');
    const lm = await LogManager.open(options(dir));
    await (await lm.getOrCreateLog('gone', 0)).append(batch(['x']), { leaderEpoch: 0 });
    await lm.getOrCreateLog('kept', 0);
    expect(await lm.deleteLog('gone', 0)).to.equal(true);
    expect(await lm.deleteLog('gone', 0)).to.equal(false);
    expect(fs.existsSync(path.join(dir, 'gone-0'))).to.equal(false);
    await lm.close();
    fs.mkdirSync(path.join(dir, 'half-0.abc-delete'));
    fs.writeFileSync(path.join(dir, 'half-0.abc-delete', 'x'), 'x');
    const lm2 = await LogManager.open(options(dir));
    expect(lm2.allLogs().map((l) => l.topic)).to.deep.equal(['kept']);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('-delete'))).to.deep.equal([]);
    await lm2.close();
  });

  it('sets a stray log aside under a -stray name with its records, and never loads it again', async () => {
    const dir = tmpDir('lm');
    const lm = await LogManager.open(options(dir));
    await (await lm.getOrCreateLog('away', 0)).append(batch(['x', 'y']), { leaderEpoch: 0 });
    await lm.getOrCreateLog('kept', 0);
    const aside = await lm.setAsideAsStray('away', 0);
    expect(aside).to.match(/away-0\.[0-9a-f]{16}-stray$/);
    expect(await lm.setAsideAsStray('away', 0)).to.equal(null);
    expect(fs.existsSync(path.join(dir, 'away-0'))).to.equal(false);
    expect(fs.readdirSync(aside!).some((f) => f.endsWith('.log'))).to.equal(true);
    expect(lm.getLog('away', 0)).to.equal(undefined);
    await lm.close();
    const logger = captureLogger();
    const lm2 = await LogManager.open(options(dir, { logger: logger.logger }));
    expect(lm2.allLogs().map((l) => l.topic)).to.deep.equal(['kept']);
    expect(fs.existsSync(aside!), 'kept on disk').to.equal(true);
    expect(logger.entries.some((l) => /a stray log is kept aside/.test(String(l.message)))).to.equal(true);
    await lm2.close();
  });

  it('runs retention on the clock', async () => {
    const clock = new FakeClock(10_000_000);
    const dir = tmpDir('lm');
    const lm = await LogManager.open(options(dir, { clock, retentionCheckIntervalMs: 60_000, config: { 'segment.bytes': 200, 'retention.ms': 100_000 } }));
    const log = await lm.getOrCreateLog('t', 0);
    for (let i = 0; i < 10; i++) await log.append(batch({ values: [`v${i}`], timestamps: clock.now() }), { leaderEpoch: 0 });
    log.highWatermark = log.logEndOffset;
    expect(log.numberOfSegments).to.be.greaterThan(2);
    await clock.advanceAsync(60_000);
    expect(log.numberOfSegments).to.be.greaterThan(2);
    await clock.advanceAsync(60_000);
    await checkFor(() => log.numberOfSegments === 1);
    expect(log.logStartOffset).to.be.greaterThan(0);
    await lm.close();
  });

  it('runs flush.ms and the checkpoints on the clock', async () => {
    const clock = new FakeClock();
    const dir = tmpDir('lm');
    const lm = await LogManager.open(
      options(dir, { clock, flushCheckIntervalMs: 100, recoveryPointCheckpointIntervalMs: 1000, highWatermarkCheckpointIntervalMs: 500, config: { 'flush.ms': 300 } }),
    );
    const log = await lm.getOrCreateLog('t', 0);
    await log.append(batch(['a']), { leaderEpoch: 0 });
    log.highWatermark = 1;
    clock.advance(200);
    expect(log.recoveryPoint).to.equal(0);
    clock.advance(100);
    await checkFor(() => log.recoveryPoint === 1);
    clock.advance(500);
    await checkFor(() => fs.readFileSync(path.join(dir, 'replication-offset-checkpoint'), 'utf8').includes('t 0 1'));
    clock.advance(500);
    await checkFor(() => fs.readFileSync(path.join(dir, 'recovery-point-offset-checkpoint'), 'utf8').includes('t 0 1'));
    await lm.close();
    expect(clock.pending()).to.equal(0);
  });

  it('opens thousands of logs quickly with a bounded number of descriptors', async function () {
    this.timeout(60_000);
    const N = 2000;
    const MAX_OPEN = 100;
    const dir = tmpDir('lm-many');
    const fdsBefore = openFdCount();
    const lm = await LogManager.open(options(dir, { maxOpenFiles: MAX_OPEN }));
    for (let p = 0; p < N; p++) {
      const log = await lm.getOrCreateLog('many', p);
      await log.append(batch([`p${p}`]), { leaderEpoch: 0 });
    }
    if (fdsBefore >= 0) expect(openFdCount() - fdsBefore).to.be.at.most(MAX_OPEN + 10);
    expect(lm.handleStats().open).to.be.at.most(MAX_OPEN);
    await lm.close();

    const started = Date.now();
    const lm2 = await LogManager.open(options(dir, { maxOpenFiles: MAX_OPEN }));
    const openMs = Date.now() - started;
    expect(lm2.logCount).to.equal(N);
    expect(openMs).to.be.lessThan(15_000);
    if (fdsBefore >= 0) expect(openFdCount() - fdsBefore).to.be.at.most(MAX_OPEN + 10);
    for (let p = 0; p < N; p += 7) {
      const r = await lm2.getLog('many', p)!.read(0, 1000);
      if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
      expect(decodeAll(r.records)[0]!.value).to.equal(`p${p}`);
    }
    if (fdsBefore >= 0) expect(openFdCount() - fdsBefore).to.be.at.most(MAX_OPEN + 10);
    expect(lm2.handleStats().evicted).to.be.greaterThan(0);
    await lm2.close();
    if (fdsBefore >= 0) expect(openFdCount()).to.be.at.most(fdsBefore + 2);
  });

  describe('the log cleaner', () => {
    it('takes a new backoff and dedupe buffer size while it runs (dynamic broker configs); bad values are refused', async () => {
      const clock = new FakeClock();
      const lm = await LogManager.open(options(tmpDir('lm-cleaner-settings'), { clock, cleanerBackoffMs: 1_000 }));
      let passes = 0;
      lm.runCleaner = async () => {
        passes++;
        return [];
      };
      clock.advance(1_000);
      expect(passes).to.equal(1);
      lm.setCleanerSettings({ backoffMs: 300, dedupeBufferBytes: 2 * 1024 * 1024 });
      expect(lm.cleanerSettings).to.deep.equal({ backoffMs: 300, dedupeBufferBytes: 2 * 1024 * 1024, scheduled: true });
      clock.advance(300);
      expect(passes).to.equal(2);
      // the old period is gone: 1,000 ms later three more passes, not four
      clock.advance(900);
      expect(passes).to.equal(5);
      expect(() => lm.setCleanerSettings({ backoffMs: 0 })).to.throw(ConfigError);
      expect(() => lm.setCleanerSettings({ dedupeBufferBytes: -1 })).to.throw(ConfigError);
      expect(lm.cleanerSettings.backoffMs).to.equal(300);
      await lm.close();
      clock.advance(10_000);
      expect(passes).to.equal(5);
    });

    const COMPACT = { 'cleanup.policy': 'compact', 'segment.bytes': 300, 'min.cleanable.dirty.ratio': 0.5 };
    const keyed = (key: string, value: string): Buffer => encodeRecordBatch({ records: [{ key: Buffer.from(key), value: Buffer.from(value) }] });

    async function fill(log: PartitionLog, n: number, keys: number, prefix = 'v'): Promise<void> {
      for (let i = 0; i < n; i++) await log.append(keyed(`k${i % keys}`, `${prefix}${i}`), { leaderEpoch: 0 });
      log.roll();
      log.highWatermark = log.logEndOffset;
    }

    async function values(log: PartitionLog): Promise<string[]> {
      const out: string[] = [];
      let offset = log.logStartOffset;
      while (offset < log.logEndOffset) {
        const r = await log.read(offset, 1 << 20);
        if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
        if (r.records.length === 0) break;
        for (const b of decodeRecordBatches(r.records)) {
          for (const rec of b.records) out.push(String(rec.value));
          offset = b.baseOffset + b.lastOffsetDelta + 1;
        }
      }
      return out;
    }

    it('compacts the due logs every log.cleaner.backoff.ms, dirtiest first, and checkpoints where each pass ended', async () => {
      const dir = tmpDir('lm-cleaner');
      const clock = new FakeClock();
      const lm = await LogManager.open(options(dir, { clock, cleanerBackoffMs: 15_000 }));
      const a = await lm.getOrCreateLog('a', 0, COMPACT);
      const b = await lm.getOrCreateLog('b', 0, COMPACT);
      const plain = await lm.getOrCreateLog('plain', 0, { 'segment.bytes': 300 });
      await fill(a, 20, 2);
      await fill(b, 6, 6);
      await fill(plain, 20, 2);
      const plainBefore = await values(plain);
      await clock.advanceAsync(15_000);
      await checkFor(async () => a.firstDirtyOffset === 20 && b.firstDirtyOffset === 6);
      expect(await values(a)).to.deep.equal(['v18', 'v19']);
      expect(await values(b)).to.deep.equal(['v0', 'v1', 'v2', 'v3', 'v4', 'v5']);
      expect(await values(plain)).to.deep.equal(plainBefore);
      await checkFor(() => fs.existsSync(path.join(dir, 'cleaner-offset-checkpoint')));
      const lines = fs.readFileSync(path.join(dir, 'cleaner-offset-checkpoint'), 'utf8').trim().split('\n');
      expect(lines.slice(0, 2)).to.deep.equal(['0', '2']);
      expect(lines.slice(2).sort()).to.deep.equal(['a 0 20', 'b 0 6']);
      // not due: under the dirty ratio
      await fill(a, 1, 2, 'w');
      expect(a.compactionPlan()!.due).to.equal(null);
      expect(await lm.runCleaner()).to.deep.equal([]);
      await lm.close();
      const again = await LogManager.open(options(dir, { clock }));
      expect(again.getLog('a', 0)!.firstDirtyOffset).to.equal(20);
      expect(again.getLog('b', 0)!.firstDirtyOffset).to.equal(6);
      await again.close();
    });

    it('cleans a log with nothing dirty once the delete horizon of its tombstones has passed', async () => {
      const clock = new FakeClock();
      const lm = await LogManager.open(options(tmpDir('lm-cleaner-horizon'), { clock, cleanerBackoffMs: 15_000 }));
      const a = await lm.getOrCreateLog('a', 0, { ...COMPACT, 'delete.retention.ms': 60_000 });
      await a.append(keyed('gone', 'v'), { leaderEpoch: 0 });
      await a.append(encodeRecordBatch({ records: [{ key: Buffer.from('gone'), value: null }] }), { leaderEpoch: 0 });
      await fill(a, 4, 4);
      await clock.advanceAsync(15_000);
      await checkFor(() => a.firstDirtyOffset === 6);
      // the scheduled pass has finished (a busy machine can still be in its tail here, and a pass
      // under way makes the next scheduled ones, and runCleaner, skip)
      await checkFor(() => !lm.cleanerBusy);
      // the pass kept the tombstone and gave it a horizon a minute ahead; nothing is dirty since
      const horizon = a.earliestDeleteHorizon;
      expect(horizon).to.equal(clock.now() + 60_000);
      expect(await values(a)).to.deep.equal(['null', 'v0', 'v1', 'v2', 'v3']);
      expect(await lm.runCleaner(), 'nothing due before the horizon').to.deep.equal([]);
      await clock.advanceAsync(60_000);
      await checkFor(() => a.earliestDeleteHorizon === Infinity);
      expect(await values(a)).to.deep.equal(['v0', 'v1', 'v2', 'v3']);
      expect(a.firstDirtyOffset).to.equal(6);
      await lm.close();
    });

    it('does not clean with log.cleaner.enable off, and cleans by hand with runCleaner', async () => {
      const clock = new FakeClock();
      const lm = await LogManager.open(options(tmpDir('lm-cleaner-off'), { clock, cleanerEnabled: false, cleanerBackoffMs: 1000 }));
      const a = await lm.getOrCreateLog('a', 0, COMPACT);
      await fill(a, 10, 1);
      await clock.advanceAsync(5000);
      expect(a.firstDirtyOffset).to.equal(0);
      const [stats] = await lm.runCleaner();
      expect(stats).to.include({ recordsRemoved: 9, aborted: false });
      expect(await values(a)).to.deep.equal(['v9']);
      await lm.close();
    });

    it('logs a log it cannot compact and goes on with the others', async () => {
      const dir = tmpDir('lm-cleaner-bad');
      const captured = captureLogger();
      const lm = await LogManager.open(options(dir, { logger: captured.logger, schedule: false }));
      const bad = await lm.getOrCreateLog('bad', 0, COMPACT);
      const good = await lm.getOrCreateLog('good', 0, COMPACT);
      await fill(bad, 10, 1);
      await fill(good, 10, 1);
      const victim = path.join(bad.dir, fs.readdirSync(bad.dir).filter((n) => n.endsWith('.log')).sort()[0]!);
      const bytes = fs.readFileSync(victim);
      bytes[bytes.length - 1]! ^= 0xff;
      fs.writeFileSync(victim, bytes);
      const done = await lm.runCleaner();
      expect(done).to.have.length(1);
      expect(await values(good)).to.deep.equal(['v9']);
      expect(bad.firstDirtyOffset).to.equal(0);
      expect(captured.entries.some((e) => e.level === 'error' && /compaction failed/.test(e.message))).to.equal(true);
      await lm.close();
    });

    it('waits at close for a pass in progress, which stops without swapping more', async () => {
      const dir = tmpDir('lm-cleaner-close');
      const lm = await LogManager.open(options(dir, { schedule: false }));
      const a = await lm.getOrCreateLog('a', 0, COMPACT);
      await fill(a, 200, 3);
      const pass = lm.runCleaner();
      await lm.close();
      const [stats] = await pass;
      // close stopped the pass before its last swap
      expect(stats!.aborted).to.equal(true);
      expect(fs.readdirSync(a.dir).filter((n) => n.endsWith('.cleaned'))).to.deep.equal([]);
      const again = await LogManager.open(options(dir, { schedule: false }));
      const reopened = again.getLog('a', 0)!;
      reopened.highWatermark = reopened.logEndOffset;
      const seen = await values(reopened);
      expect(seen.slice(-3)).to.deep.equal(['v197', 'v198', 'v199']);
      expect(seen.length).to.be.at.most(200);
      await again.close();
    });
  });
});
