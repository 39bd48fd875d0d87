import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { UNLIMITED_RATE } from '../../src/runtime/rate-quota.js';
import { LogDirs, LogDirsOfflineError, type LogDirMove, type LogDirsOptions } from '../../src/storage/log-dirs.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import { batch, captureLogger, cleanupTmpDirs, decodeAll } from './helpers.js';

function options(logDirs: string[], extra: Partial<LogDirsOptions> = {}): LogDirsOptions {
  return { logDirs, clock: new FakeClock(), logger: captureLogger().logger, schedule: false, ...extra };
}

/** Every record's value, read segment by segment. */
async function values(log: PartitionLog): Promise<string[]> {
  const out: string[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, 1 << 20);
    if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
    const recs = decodeAll(r.records).filter((rec) => rec.offset >= offset);
    if (recs.length === 0) break;
    out.push(...recs.map((rec) => rec.value as string));
    offset = recs[recs.length - 1]!.offset + 1;
  }
  return out;
}

describe('storage/log-dirs', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'samsa-logdirs-'));
  });
  afterEach(() => {
    cleanupTmpDirs();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const dirs = (n: number) => Array.from({ length: n }, (_, i) => path.join(root, `d${i}`));

  it('places new logs in the dir with the fewest partitions and finds each where it was after a restart', async () => {
    const [d0, d1] = dirs(2) as [string, string];
    const ld = await LogDirs.open(options([d0, d1]));
    // created together: the ones being opened count
    await Promise.all([0, 1, 2, 3].map((p) => ld.getOrCreateLog('t', p)));
    const where = (p: number) => ld.dirOf('t', p);
    expect([0, 1, 2, 3].map(where)).to.deep.equal([d0, d1, d0, d1]);
    expect(ld.managers.map((m) => m.logCount)).to.deep.equal([2, 2]);
    await ld.getLog('t', 1)!.append(batch(['one']), { leaderEpoch: 0 });
    await ld.close();

    // a dir already fuller: new logs go to the other one until they are even
    fs.mkdirSync(path.join(d0, 'u-0'));
    fs.mkdirSync(path.join(d0, 'u-1'));
    const again = await LogDirs.open(options([d0, d1]));
    expect([0, 1, 2, 3].map((p) => again.dirOf('t', p))).to.deep.equal([d0, d1, d0, d1]);
    expect(await values(again.getLog('t', 1)!)).to.deep.equal(['one']);
    await again.getOrCreateLog('n', 0);
    await again.getOrCreateLog('n', 1);
    expect([again.dirOf('n', 0), again.dirOf('n', 1)]).to.deep.equal([d1, d1]);
    expect(again.describe().map((v) => [v.logDir, v.partitions.length])).to.deep.equal([
      [d0, 4],
      [d1, 4],
    ]);
    // an existing log is returned from its dir, whatever the counts
    expect(await again.getOrCreateLog('u', 0)).to.equal(again.getLog('u', 0));
    expect(again.dirOf('u', 0)).to.equal(d0);
    await again.close();
  });

  it('puts a log where setPreferredDir said, and refuses dirs listed twice or a partition in two dirs', async () => {
    const [d0, d1] = dirs(2) as [string, string];
    const ld = await LogDirs.open(options([d0, d1]));
    expect(ld.setPreferredDir('t', 0, d0)).to.equal(true);
    expect(ld.setPreferredDir('t', 0, path.join(root, 'elsewhere'))).to.equal(false);
    await ld.getOrCreateLog('x', 0); // d0 is now the fuller
    await ld.getOrCreateLog('t', 0);
    expect(ld.dirOf('t', 0)).to.equal(d0);
    await ld.close();

    let err: Error | null = null;
    await LogDirs.open(options([d0, `${d0}/`])).catch((e: Error) => (err = e));
    expect(err!.message).to.match(/listed twice/);
    fs.mkdirSync(path.join(d1, 't-0'));
    err = null;
    await LogDirs.open(options([d0, d1])).catch((e: Error) => (err = e));
    expect(err!.message).to.equal(`partition t-0 has a log in two log dirs, ${d0} and ${d1}: remove one of them`);
  });

  it('moves a log to another dir as Kafka does: copied into a future log while it takes appends, then swapped, and it is there after a restart', async () => {
    const [d0, d1] = dirs(2) as [string, string];
    const ld = await LogDirs.open(options([d0, d1], { config: { 'segment.bytes': 200 } }));
    const log = await ld.getOrCreateLog('m', 0);
    expect(ld.dirOf('m', 0)).to.equal(d0);
    for (let i = 0; i < 10; i++) await log.append(batch([`v${i}`]), { leaderEpoch: 3 });
    log.deleteRecordsBefore(0);
    log.highWatermark = 8;
    const segments = log.numberOfSegments;
    expect(segments).to.be.greaterThan(1);

    expect((await ld.startMove(log, path.join(root, 'nope'))).errorCode).to.equal(ErrorCode.LOG_DIR_NOT_FOUND);
    expect(await ld.startMove(log, d0)).to.deep.equal({ errorCode: ErrorCode.NONE, errorMessage: null, move: null });

    const started = await ld.startMove(log, d1);
    expect(started.errorCode).to.equal(ErrorCode.NONE);
    const move = started.move!;
    // asked again for the same dir: the same move
    expect((await ld.startMove(log, d1)).move).to.equal(move);
    expect(fs.readdirSync(d1).filter((n) => n.endsWith('-future'))).to.have.length(1);
    // the current log serves and takes appends while the copy catches up, a small chunk at a time
    let steps = 0;
    let appended = 10;
    for (;;) {
      const step = await move.copyStep(150);
      expect(step.errorCode).to.equal(ErrorCode.NONE);
      steps++;
      if (steps === 2) {
        const during = ld.describe();
        expect(during.map((v) => v.partitions.map((p) => [p.topic, p.partition, p.isFuture]))).to.deep.equal([[['m', 0, false]], [['m', 0, true]]]);
        expect(during[1]!.partitions[0]!.offsetLag).to.equal(log.logEndOffset - move.future.logEndOffset);
        // records deleted meanwhile leave the copy too
        log.deleteRecordsBefore(2);
      }
      if (step.caughtUp) break;
      if (steps < 6) await log.append(batch([`v${appended++}`]), { leaderEpoch: 3 });
    }
    expect(steps).to.be.greaterThan(3);
    log.highWatermark = log.logEndOffset - 1;
    const r = await ld.completeMove(move);
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    const moved = r.log;
    expect(moved).to.not.equal(log);
    expect(ld.dirOf('m', 0)).to.equal(d1);
    expect(moved.dir).to.equal(path.join(d1, 'm-0'));
    expect(fs.readdirSync(d0).filter((n) => n.startsWith('m-0'))).to.deep.equal([]);
    expect(fs.readdirSync(d1).filter((n) => n.startsWith('m-0'))).to.deep.equal(['m-0']);
    expect([moved.logStartOffset, moved.logEndOffset, moved.highWatermark, moved.latestEpoch]).to.deep.equal([2, appended, appended - 1, 3]);
    const want = Array.from({ length: appended - 2 }, (_, i) => `v${i + 2}`);
    expect(await values(moved)).to.deep.equal(want);
    expect(ld.describe().map((v) => v.partitions.map((p) => [p.topic, p.partition, p.isFuture]))).to.deep.equal([[], [['m', 0, false]]]);
    expect(fs.readFileSync(path.join(d1, 'replication-offset-checkpoint'), 'utf8').split('\n')).to.include(`m 0 ${appended - 1}`);
    // it takes appends where it is now
    await moved.append(batch(['after']), { leaderEpoch: 3 });
    await ld.close();

    const again = await LogDirs.open(options([d0, d1]));
    expect(again.dirOf('m', 0)).to.equal(d1);
    const back = again.getLog('m', 0)!;
    expect([back.logStartOffset, back.logEndOffset, back.highWatermark]).to.deep.equal([2, appended + 1, appended - 1]);
    expect(await values(back)).to.deep.equal([...want, 'after']);
    await again.close();
  });

  it('a move starts over when the current log is truncated, and an aborted move leaves no future log', async () => {
    const [d0, d1] = dirs(2) as [string, string];
    const ld = await LogDirs.open(options([d0, d1]));
    const log = await ld.getOrCreateLog('t', 0);
    for (let i = 0; i < 6; i++) await log.append(batch([`a${i}`]), { leaderEpoch: 1 });
    const move = (await ld.startMove(log, d1)).move!;
    expect((await move.copyStep(1 << 20)).caughtUp).to.equal(true);
    // a follower's divergence: the tail goes and other records come under a new epoch
    await log.truncateTo(3);
    for (let i = 0; i < 2; i++) await log.append(batch([`b${i}`]), { leaderEpoch: 2 });
    while (!(await move.copyStep(100)).caughtUp);
    const r = await ld.completeMove(move);
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    expect(await values(r.log)).to.deep.equal(['a0', 'a1', 'a2', 'b0', 'b1']);
    expect(r.log.epochEntries()).to.deep.equal([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
    ]);

    // back to d0, but stopped half way
    const back = (await ld.startMove(r.log, d0)).move!;
    await back.copyStep(100);
    expect(fs.readdirSync(d0).filter((n) => n.endsWith('-future'))).to.have.length(1);
    await ld.abortMove(back);
    expect(fs.readdirSync(d0).filter((n) => n.startsWith('t-0'))).to.deep.equal([]);
    expect(ld.moveOf('t', 0)).to.equal(undefined);
    expect(ld.dirOf('t', 0)).to.equal(d1);
    await ld.close();
  });

  it('settles a move a crash cut short: drops the copy while the source is there, loads it when the source was marked deleted', async () => {
    const [d0, d1] = dirs(2) as [string, string];
    const ld = await LogDirs.open(options([d0, d1]));
    const a = await ld.getOrCreateLog('a', 0);
    const b = await ld.getOrCreateLog('b', 0);
    expect([ld.dirOf('a', 0), ld.dirOf('b', 0)]).to.deep.equal([d0, d1]);
    await a.append(batch(['a0', 'a1']), { leaderEpoch: 0 });
    await b.append(batch(['b0']), { leaderEpoch: 0 });
    await ld.close();
    // a-0: copied to d1, the crash came before the source was renamed aside
    fs.cpSync(path.join(d0, 'a-0'), path.join(d1, 'a-0.0123456789abcdef-future'), { recursive: true });
    // b-0: copied to d0, the source renamed aside, the crash before the copy took its name
    fs.cpSync(path.join(d1, 'b-0'), path.join(d0, 'b-0.0123456789abcdef-future'), { recursive: true });
    fs.renameSync(path.join(d1, 'b-0'), path.join(d1, 'b-0.0123456789abcdef-delete'));

    const again = await LogDirs.open(options([d0, d1]));
    expect([again.dirOf('a', 0), again.dirOf('b', 0)]).to.deep.equal([d0, d0]);
    expect(await values(again.getLog('a', 0)!)).to.deep.equal(['a0', 'a1']);
    expect(await values(again.getLog('b', 0)!)).to.deep.equal(['b0']);
    expect(fs.readdirSync(d0).filter((n) => n.includes('future')).concat(fs.readdirSync(d1).filter((n) => n.includes('future') || n.includes('delete')))).to.deep.equal([]);
    await again.close();
  });

  describe('the move throttle (replica.alter.log.dirs.io.max.bytes.per.second)', () => {
    const RATE = 2000;
    const VALUE = 'x'.repeat(400);

    /** A log of `n` batches of one 400-byte record each, in the first dir. */
    async function filled(ld: LogDirs, topic: string, n: number): Promise<PartitionLog> {
      const log = await ld.getOrCreateLog(topic, 0);
      for (let i = 0; i < n; i++) await log.append(batch([`${VALUE}${i}`]), { leaderEpoch: 0 });
      return log;
    }

    /**
     * Runs the moves as their replicas would (a step when the throttle lets it, else a wait on the
     * clock), checking before each step that the bytes copied by all of them stay within the rate
     * over the fake time since they started, and that a step copies at most a second's worth (a
     * batch at least); completes each once caught up. The fake time the last one took.
     */
    async function drive(ld: LogDirs, clock: FakeClock, moves: LogDirMove[], rate: () => number, onWait: (elapsedMs: number) => void = () => {}): Promise<number> {
      const start = clock.now();
      let done = 0;
      let took = 0;
      const left = new Set(moves);
      const copied = () => done + [...left].reduce((n, mv) => n + mv.future.size, 0);
      for (let turns = 0; left.size > 0; turns++) {
        expect(turns, 'the moves finish').to.be.below(10_000);
        let stepped = false;
        let wait = Infinity;
        for (const mv of [...left]) {
          const w = mv.throttleDelayMs();
          if (w > 0) {
            wait = Math.min(wait, w);
            continue;
          }
          stepped = true;
          const elapsed = clock.now() - start;
          expect(copied(), `bytes copied after ${elapsed} ms`).to.be.at.most((rate() * Math.max(elapsed, 1000)) / 1000);
          const before = mv.future.size;
          const step = await mv.copyStep();
          expect(step.errorCode).to.equal(ErrorCode.NONE);
          expect(mv.future.size - before).to.be.at.most(Math.max(rate(), 600));
          if (step.caughtUp) {
            done += mv.future.size;
            left.delete(mv);
            expect((await ld.completeMove(mv)).errorCode).to.equal(ErrorCode.NONE);
            took = clock.now() - start;
          }
        }
        if (!stepped) {
          clock.advance(wait);
          onWait(clock.now() - start);
        }
      }
      return took;
    }

    it('holds the moves of a broker together to the rate in bytes per second, and each finishes', async () => {
      const [d0, d1] = dirs(2) as [string, string];
      const clock = new FakeClock();
      const ld = await LogDirs.open(options([d0, d1], { clock }));
      expect(ld.moveThrottle).to.equal(UNLIMITED_RATE);
      ld.setMoveThrottle(RATE);
      expect(ld.moveThrottle).to.equal(RATE);
      const a = await filled(ld, 'a', 20);
      const b = await filled(ld, 'b', 10); // in d1: the emptier
      expect([ld.dirOf('a', 0), ld.dirOf('b', 0)]).to.deep.equal([d0, d1]);
      const total = a.size + b.size;
      const moves = [(await ld.startMove(a, d1)).move!, (await ld.startMove(b, d0)).move!];
      const took = await drive(ld, clock, moves, () => RATE);
      expect([ld.dirOf('a', 0), ld.dirOf('b', 0)]).to.deep.equal([d1, d0]);
      expect(await values(ld.getLog('a', 0)!)).to.have.length(20);
      expect(await values(ld.getLog('b', 0)!)).to.have.length(10);
      // no faster than the rate allows (the first second's worth comes at once), and no slower
      expect(took).to.be.at.least(((total - RATE) * 1000) / RATE);
      expect(took).to.be.at.most(((total + RATE) * 1000) / RATE);
      await ld.close();
    });

    it('a new limit applies to a move in progress; a limit of 0 only slows a move; a caught-up move swaps over the limit', async () => {
      const [d0, d1] = dirs(2) as [string, string];
      const clock = new FakeClock();
      const ld = await LogDirs.open(options([d0, d1], { clock }));
      ld.setMoveThrottle(RATE);
      const log = await filled(ld, 'c', 30);
      const move = (await ld.startMove(log, d1)).move!;
      // some 14 KB at 2000 B/s would take 7 s: unlimited after 3 s, the rest copies at once
      let rate = RATE;
      const took = await drive(ld, clock, [move], () => rate, (elapsed) => {
        if (elapsed < 3000 || rate !== RATE) return;
        rate = UNLIMITED_RATE;
        ld.setMoveThrottle(UNLIMITED_RATE);
      });
      expect(took).to.be.at.least(3000).and.below(4500);
      expect(ld.dirOf('c', 0)).to.equal(d1);

      // a limit of 0 (Kafka allows it): a batch each time the samples have aged out (12 s)
      clock.advance(20_000);
      ld.setMoveThrottle(0);
      const back = (await ld.startMove(ld.getLog('c', 0)!, d0)).move!;
      expect(back.throttleDelayMs()).to.equal(0);
      await back.copyStep();
      expect(back.lag).to.equal(29);
      expect(back.throttleDelayMs()).to.equal(12_000);
      const started = clock.now();
      let caughtUp = false;
      while (!caughtUp) {
        const wait = back.throttleDelayMs();
        if (wait > 0) clock.advance(wait);
        else caughtUp = (await back.copyStep()).caughtUp;
      }
      expect(clock.now() - started).to.equal(29 * 12_000);
      // over the limit, but caught up: nothing to wait for before the swap
      expect(back.throttleDelayMs()).to.equal(0);
      expect((await ld.completeMove(back)).errorCode).to.equal(ErrorCode.NONE);
      expect(ld.dirOf('c', 0)).to.equal(d0);
      expect(await values(ld.getLog('c', 0)!)).to.have.length(30);
      await ld.close();
    });
  });

  it('applies defaults and cleaner settings to every dir, flushes and closes them all', async () => {
    const [d0, d1] = dirs(2) as [string, string];
    const ld = await LogDirs.open(options([d0, d1]));
    const first = ld.defaults;
    ld.setDefaults({ ...first, retentionMs: 1234 });
    ld.setCleanerSettings({ backoffMs: 777, dedupeBufferBytes: 4096 });
    for (const m of ld.managers) {
      expect(m.defaults.retentionMs).to.equal(1234);
      expect(m.cleanerSettings).to.include({ backoffMs: 777, dedupeBufferBytes: 4096 });
    }
    await ld.getOrCreateLog('f', 0);
    await ld.getOrCreateLog('f', 1);
    await ld.close();
    for (const d of [d0, d1]) expect(fs.existsSync(path.join(d, '.kafka_cleanshutdown')), d).to.equal(true);
  });
});

describe('storage/log-dirs: a failed log dir', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'samsa-logdirs-fail-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Makes the log's next append fail with an I/O error (its active segment's descriptor swapped for a bad one). */
  function breakLog(log: PartitionLog): () => void {
    const seg = (log as unknown as { segments: { handle: { fd: number } }[] }).segments.at(-1)!;
    const realFd = seg.handle.fd;
    seg.handle.fd = 1_000_000;
    return () => {
      if (realFd >= 0) fs.closeSync(realFd);
      seg.handle.fd = -1;
    };
  }

  it('an I/O error in one log takes its whole dir offline: every log in it, its schedules and checkpoints; the other dir carries on', async () => {
    const [d0, d1] = [path.join(root, 'd0'), path.join(root, 'd1')];
    const failures: [string, string][] = [];
    const ld = await LogDirs.open(options([d0, d1], { onDirFailure: (dir, reason) => failures.push([dir, reason]) }));
    const a = await ld.getOrCreateLog('t', 0);
    const b = await ld.getOrCreateLog('t', 1);
    const c = await ld.getOrCreateLog('t', 2);
    expect([ld.dirOf('t', 0), ld.dirOf('t', 1), ld.dirOf('t', 2)]).to.deep.equal([d0, d1, d0]);
    await a.append(batch(['a']), { leaderEpoch: 0 });
    await c.append(batch(['c']), { leaderEpoch: 0 });
    await ld.managers[0]!.checkpointHighWatermarks();
    const checkpoint = fs.readFileSync(path.join(d0, 'replication-offset-checkpoint'), 'utf8');
    const restore = breakLog(a);
    expect((await a.append(batch(['x']), { leaderEpoch: 0 })).errorCode).to.equal(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(failures.map(([dir]) => dir)).to.deep.equal([d0]);
    expect(failures[0]![1]).to.match(/^t-0: /);
    // every log of the dir, not only the one that failed
    expect((await c.read(0, 1000)).errorCode).to.equal(ErrorCode.KAFKA_STORAGE_ERROR);
    expect((await c.append(batch(['y']), { leaderEpoch: 0 })).errorCode).to.equal(ErrorCode.KAFKA_STORAGE_ERROR);
    expect((await b.append(batch(['b']), { leaderEpoch: 0 })).errorCode).to.equal(ErrorCode.NONE);
    expect(ld.isOfflineDir(d0)).to.equal(true);
    expect(ld.hasOfflineDirs).to.equal(true);
    expect(ld.partitionsIn(d0).map((p) => p.partition).sort()).to.deep.equal([0, 2]);
    // nothing more is written there
    expect(checkpoint).to.contain('t 0 0');
    fs.rmSync(path.join(d0, 'replication-offset-checkpoint'));
    await ld.managers[0]!.checkpointHighWatermarks();
    expect(fs.existsSync(path.join(d0, 'replication-offset-checkpoint'))).to.equal(false);
    expect(await ld.managers[0]!.flushDirtyLogs()).to.equal(0);
    // described as Kafka describes an offline dir; new logs go to the other dir
    const views = ld.describe();
    expect(views.map((v) => [v.logDir, v.errorCode, v.partitions.length])).to.deep.equal([
      [d0, ErrorCode.KAFKA_STORAGE_ERROR, 0],
      [d1, ErrorCode.NONE, 1],
    ]);
    await ld.getOrCreateLog('n', 0);
    await ld.getOrCreateLog('n', 1);
    expect([ld.dirOf('n', 0), ld.dirOf('n', 1)]).to.deep.equal([d1, d1]);
    // a partition not new whose log is nowhere online may be in the failed dir: no empty log for it
    let err: Error | null = null;
    await ld.getOrCreateLog('old', 0, undefined, false).catch((e: Error) => (err = e));
    expect(err).to.be.instanceOf(LogDirsOfflineError);
    expect(ld.getLog('old', 0)).to.equal(undefined);
    expect((await ld.startMove(b, d0)).errorCode).to.equal(ErrorCode.KAFKA_STORAGE_ERROR);
    restore();
    await ld.close();
    // no clean-shutdown marker in the failed dir: its logs are recovered at the next start
    expect(fs.existsSync(path.join(d0, '.kafka_cleanshutdown'))).to.equal(false);
    expect(fs.existsSync(path.join(d1, '.kafka_cleanshutdown'))).to.equal(true);
  });

  it('a dir that cannot be opened at start is offline and the others open; none at all refuses to start', async () => {
    const [d0, d1] = [path.join(root, 'd0'), path.join(root, 'd1')];
    fs.writeFileSync(d0, 'a file, not a dir');
    const ld = await LogDirs.open(options([d0, d1]));
    expect(ld.isOfflineDir(d0)).to.equal(true);
    expect(ld.dirs).to.deep.equal([d1]);
    expect(ld.describe().map((v) => [v.logDir, v.errorCode])).to.deep.equal([
      [d1, ErrorCode.NONE],
      [d0, ErrorCode.KAFKA_STORAGE_ERROR],
    ]);
    await ld.getOrCreateLog('t', 0);
    expect(ld.dirOf('t', 0)).to.equal(d1);
    let err: Error | null = null;
    await ld.getOrCreateLog('t', 1, undefined, false).catch((e: Error) => (err = e));
    expect(err).to.be.instanceOf(LogDirsOfflineError);
    await ld.close();
    err = null;
    fs.writeFileSync(d1 + '-file', '');
    await LogDirs.open(options([d0, d1 + '-file'])).catch((e: Error) => (err = e));
    expect(err).to.be.instanceOf(LogDirsOfflineError);
    expect(err!.message).to.match(/^no log dir can be opened/);
  });
});
