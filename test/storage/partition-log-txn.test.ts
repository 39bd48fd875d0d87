/**
 * The partition log's transaction index (txn-index.ts) as appends, reopening, truncation and
 * retention change the log: the last stable offset and the aborted transactions of a range;
 * the snapshots of the index taken at segment rolls, from which an unclean open and a
 * truncation read the log on; the cleaner removing markers whose transactions left nothing.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { ControlType, encodeTxnMarker, txnMarkerTypeOfKey } from '../../src/protocol/control-records.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { parseLogConfig } from '../../src/storage/log-config.js';
import { PartitionLog, TRANSACTIONS_MARKER_FILE, TRANSACTIONS_SNAPSHOT_FILE, TXN_ROLL_SNAPSHOT_SUFFIX, type AppendResult } from '../../src/storage/partition-log.js';
import { offsetFileName } from '../../src/storage/segment.js';
import { captureLogger, cleanupTmpDirs, tmpDir } from './helpers.js';

function open(dir: string, clean = true): Promise<PartitionLog> {
  return PartitionLog.open({ dir, topic: 'topic', partition: 0, config: parseLogConfig({ 'segment.bytes': 300 }), clock: new FakeClock(), logger: captureLogger().logger, hadCleanShutdown: clean });
}

const txnData = (pid: number, n: number, seq = 0) =>
  encodeRecordBatch({ transactional: true, producerId: pid, producerEpoch: 0, baseSequence: seq, records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`t${pid}-${seq + i}`) })) });
const plain = (n: number) => encodeRecordBatch({ records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`p${i}`) })) });
const end = (pid: number, type: 0 | 1) => encodeTxnMarker({ producerId: pid, producerEpoch: 0, type, coordinatorEpoch: 0, timestamp: 0 });

function append(log: PartitionLog, b: Buffer): number {
  const r: AppendResult = log.appendNow(b, { leaderEpoch: 0 });
  if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
  return r.baseOffset;
}

describe('storage/partition-log: transactions', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(tmpDir('plog-txn'), 'topic-0');
  });
  afterEach(() => cleanupTmpDirs());

  it('a log that never held a transactional batch keeps no index: its last stable offset is the high watermark', async () => {
    const log = await open(dir);
    append(log, plain(3));
    log.updateHighWatermark(3);
    expect(log.lastStableOffset).to.equal(3);
    expect(log.firstUnstableOffset).to.equal(null);
    expect(fs.existsSync(path.join(dir, TRANSACTIONS_MARKER_FILE))).to.equal(false);
    await log.close();
  });

  it('stops read_committed at an open transaction, lists an aborted one, and moves on when each ends', async () => {
    const log = await open(dir);
    append(log, plain(2)); // 0-1
    const first = append(log, txnData(7, 2)); // 2-3
    append(log, txnData(8, 1)); // 4
    append(log, plain(1)); // 5
    log.updateHighWatermark(6);
    expect(fs.existsSync(path.join(dir, TRANSACTIONS_MARKER_FILE))).to.equal(true);
    expect(log.lastStableOffset).to.equal(first);
    append(log, end(7, ControlType.ABORT)); // 6
    log.updateHighWatermark(7);
    expect(log.lastStableOffset, 'producer 8 still open').to.equal(4);
    append(log, end(8, ControlType.COMMIT)); // 7
    log.updateHighWatermark(8);
    expect(log.lastStableOffset).to.equal(8);
    expect(log.abortedTransactions(0, 8)).to.deep.equal([{ producerId: 7, firstOffset: 2, lastOffset: 6 }]);
    expect(log.abortedTransactions(7, 8)).to.deep.equal([]);
    await log.close();
  });

  it('a follower\'s appends (offsets kept) feed the index the same way', async () => {
    const leader = await open(dir);
    append(leader, txnData(3, 2));
    append(leader, end(3, ControlType.ABORT));
    append(leader, txnData(4, 1));
    const r = await leader.read(0, 1 << 20);
    if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
    const follower = await open(path.join(tmpDir('plog-txn-f'), 'topic-0'));
    const res = await follower.appendAsFollower(r.records);
    expect(res.errorCode).to.equal(ErrorCode.NONE);
    follower.updateHighWatermark(4);
    expect(follower.lastStableOffset).to.equal(3);
    expect(follower.abortedTransactions(0, 4)).to.deep.equal([{ producerId: 3, firstOffset: 0, lastOffset: 2 }]);
    await leader.close();
    await follower.close();
  });

  for (const clean of [true, false]) {
    it(`is found again when the log opens (${clean ? 'clean shutdown: from the snapshot' : 'unclean: from the log, a snapshot left ignored'}), across segments`, async () => {
      const log = await open(dir);
      for (let i = 0; i < 6; i++) {
        append(log, txnData(i, 3));
        append(log, end(i, i % 2 === 0 ? ControlType.ABORT : ControlType.COMMIT));
      }
      append(log, txnData(99, 1));
      const hw = log.logEndOffset;
      log.updateHighWatermark(hw);
      expect(log.numberOfSegments, 'several segments').to.be.greaterThan(2);
      const lso = log.lastStableOffset;
      const aborted = log.abortedTransactions(0, hw);
      expect(aborted).to.have.length(3);
      await log.close();
      // a clean close leaves the index for the next open, which takes it (and removes it)
      expect(fs.existsSync(path.join(dir, TRANSACTIONS_SNAPSHOT_FILE))).to.equal(true);
      if (!clean) fs.writeFileSync(path.join(dir, TRANSACTIONS_SNAPSHOT_FILE), JSON.stringify({ logEndOffset: hw, index: { open: [], aborted: [] } }));
      const again = await PartitionLog.open({ dir, topic: 'topic', partition: 0, config: parseLogConfig({ 'segment.bytes': 300 }), clock: new FakeClock(), logger: captureLogger().logger, hadCleanShutdown: clean, highWatermark: hw });
      expect(again.lastStableOffset).to.equal(lso);
      expect(again.abortedTransactions(0, hw)).to.deep.equal(aborted);
      expect([...again.openTransactions()]).to.deep.equal([[99, lso]]);
      expect(fs.existsSync(path.join(dir, TRANSACTIONS_SNAPSHOT_FILE)), 'never used twice').to.equal(false);
      await again.close();
    });
  }

  it('a snapshot that does not match the log (another log end, or damaged) is ignored: the log is read', async () => {
    const log = await open(dir);
    append(log, txnData(1, 2));
    append(log, end(1, ControlType.ABORT));
    log.updateHighWatermark(3);
    await log.close();
    for (const bad of [JSON.stringify({ logEndOffset: 99, index: { open: [], aborted: [] } }), '{not json', JSON.stringify({ logEndOffset: 3, index: { open: [['x', 1]], aborted: [] } })]) {
      fs.writeFileSync(path.join(dir, TRANSACTIONS_SNAPSHOT_FILE), bad);
      const again = await open(dir);
      expect(again.abortedTransactions(0, 3)).to.deep.equal([{ producerId: 1, firstOffset: 0, lastOffset: 2 }]);
      await again.close();
    }
    // a matching one is taken as it is, without reading the log (here one that leaves the abort out)
    fs.writeFileSync(path.join(dir, TRANSACTIONS_SNAPSHOT_FILE), JSON.stringify({ logEndOffset: 3, index: { open: [], aborted: [] } }));
    const taken = await open(dir);
    expect(taken.abortedTransactions(0, 3)).to.deep.equal([]);
    await taken.close();
  });

  it('a truncation that removes a COMMIT marker opens its transaction again; a full truncation forgets everything', async () => {
    const log = await open(dir);
    append(log, txnData(5, 2)); // 0-1
    append(log, end(5, ControlType.COMMIT)); // 2
    append(log, txnData(6, 1)); // 3
    append(log, end(6, ControlType.ABORT)); // 4
    log.updateHighWatermark(2);
    expect(log.openTransactions().size).to.equal(0);
    await log.truncateTo(2);
    log.updateHighWatermark(2);
    expect([...log.openTransactions()]).to.deep.equal([[5, 0]]);
    expect(log.lastStableOffset).to.equal(0);
    expect(log.abortedTransactions(0, 10)).to.deep.equal([]);
    await log.truncateFullyAndStartAt(10);
    expect(log.openTransactions().size).to.equal(0);
    expect(log.lastStableOffset).to.equal(10);
    await log.close();
  });

  it('forgets aborted transactions below a new log start offset (DeleteRecords)', async () => {
    const log = await open(dir);
    append(log, txnData(1, 2)); // 0-1
    append(log, end(1, ControlType.ABORT)); // 2
    append(log, txnData(2, 2)); // 3-4
    append(log, end(2, ControlType.ABORT)); // 5
    log.updateHighWatermark(6);
    log.deleteRecordsBefore(3);
    expect(log.abortedTransactions(0, 6).map((a) => a.producerId)).to.deep.equal([2]);
    await log.close();
  });

  it('compaction drops an aborted transaction\'s records (they never replace a key\'s value) and stops at an open transaction', async () => {
    const clock = new FakeClock();
    const log = await PartitionLog.open({
      dir,
      topic: 'topic',
      partition: 0,
      config: parseLogConfig({ 'cleanup.policy': 'compact', 'segment.bytes': 300, 'min.cleanable.dirty.ratio': 0 }),
      clock,
      logger: captureLogger().logger,
      hadCleanShutdown: true,
    });
    const keyed = (key: string, value: string, pid: number | null) =>
      encodeRecordBatch({ transactional: pid !== null, producerId: pid ?? -1, producerEpoch: pid !== null ? 0 : -1, baseSequence: pid !== null ? 0 : -1, records: [{ key: Buffer.from(key), value: Buffer.from(value), timestamp: clock.now() }] });
    append(log, keyed('k', 'committed-1', null));
    append(log, keyed('k', 'aborted', 5));
    append(log, end(5, ControlType.ABORT));
    append(log, keyed('j', 'in-txn', 6));
    append(log, end(6, ControlType.COMMIT));
    append(log, keyed('open', 'x', 7)); // still open: nothing from here on is cleaned
    for (let i = 0; i < 6; i++) append(log, keyed(`filler-${i}`, 'v', null));
    log.updateHighWatermark(log.logEndOffset);
    expect(log.lastStableOffset).to.equal(5);
    await log.compact();
    const values: string[] = [];
    let offset = log.logStartOffset;
    while (offset < log.logEndOffset) {
      const r = await log.read(offset, 1 << 20);
      if (r.errorCode !== ErrorCode.NONE || r.records.length === 0) break;
      for (const b of decodeRecordBatches(r.records)) {
        if (!b.control) for (const rec of b.records) values.push(`${String(rec.key)}=${String(rec.value)}`);
        offset = b.baseOffset + b.lastOffsetDelta + 1;
      }
    }
    expect(values).to.include('k=committed-1');
    expect(values).to.not.include('k=aborted');
    expect(values).to.include('j=in-txn');
    expect(values).to.include('open=x');
    await log.close();
  });

  describe('compaction and transaction markers', () => {
    const RETENTION = 10_000;
    async function compactedLog(clock: FakeClock, extra: Record<string, string | number> = {}): Promise<PartitionLog> {
      return PartitionLog.open({
        dir,
        topic: 'topic',
        partition: 0,
        config: parseLogConfig({ 'cleanup.policy': 'compact', 'segment.bytes': 300, 'min.cleanable.dirty.ratio': 0, 'delete.retention.ms': RETENTION, ...extra }),
        clock,
        logger: captureLogger().logger,
        hadCleanShutdown: true,
      });
    }
    const keyedBy = (clock: FakeClock) => (key: string, value: string, pid: number | null, seq = 0) =>
      encodeRecordBatch({ transactional: pid !== null, producerId: pid ?? -1, producerEpoch: pid !== null ? 0 : -1, baseSequence: pid !== null ? seq : -1, records: [{ key: Buffer.from(key), value: Buffer.from(value), timestamp: clock.now() }] });

    /** Every batch of the log: [offset, 'data' | 'COMMIT' | 'ABORT', producer id]. */
    async function batches(log: PartitionLog): Promise<[number, string, number][]> {
      const out: [number, string, number][] = [];
      let offset = log.logStartOffset;
      while (offset < log.logEndOffset) {
        const r = await log.read(offset, 1 << 20);
        if (r.errorCode !== ErrorCode.NONE || r.records.length === 0) break;
        for (const b of decodeRecordBatches(r.records)) {
          const kind = !b.control ? 'data' : txnMarkerTypeOfKey(b.records[0]!.key) === ControlType.COMMIT ? 'COMMIT' : 'ABORT';
          out.push([b.baseOffset, kind, b.producerId]);
          offset = b.baseOffset + b.lastOffsetDelta + 1;
        }
      }
      return out;
    }
    const markersOf = async (log: PartitionLog) => (await batches(log)).filter(([, kind]) => kind !== 'data');

    it('removes a marker once its transaction left no record: a delete horizon first, then gone after delete.retention.ms; the aborted transaction leaves the index', async () => {
      const clock = new FakeClock();
      const log = await compactedLog(clock);
      const keyed = keyedBy(clock);
      append(log, keyed('k', 'committed-in-txn', 5)); // 0
      append(log, end(5, ControlType.COMMIT)); // 1
      append(log, keyed('a', 'aborted', 6)); // 2
      append(log, end(6, ControlType.ABORT)); // 3
      append(log, keyed('k', 'newer', null)); // 4: replaces offset 0
      // later transactions of the same producers: the markers above are not their last batches
      append(log, keyed('x', 'later', 5, 1)); // 5
      append(log, end(5, ControlType.COMMIT)); // 6
      append(log, keyed('y', 'later', 6, 1)); // 7
      append(log, end(6, ControlType.COMMIT)); // 8
      for (let i = 0; i < 6; i++) append(log, keyed(`filler-${i}`, 'v', null));
      log.updateHighWatermark(log.logEndOffset);
      expect(log.abortedTransactions(0, log.logEndOffset)).to.deep.equal([{ producerId: 6, firstOffset: 2, lastOffset: 3 }]);

      // a pass runs when the log has new (dirty) records
      let fillers = 6;
      const dirtyPass = async () => {
        for (let i = 0; i < 6; i++) append(log, keyed(`filler-${fillers++}`, 'v', null));
        log.updateHighWatermark(log.logEndOffset);
        const stats = await log.compact();
        expect(stats, 'a pass ran').to.not.equal(null);
        return stats!;
      };
      // pass 1 removes the records (offset 0 superseded, offset 2 aborted): it met them, so both markers stay as they are
      await log.compact();
      expect((await batches(log)).filter(([, kind, pid]) => kind === 'data' && pid >= 0).map(([o]) => o)).to.deep.equal([5, 7]);
      expect((await markersOf(log)).map(([o]) => o)).to.deep.equal([1, 3, 6, 8]);
      // pass 2 meets no record of those two transactions: their markers get a horizon and stay
      clock.advance(1_000);
      const second = await dirtyPass();
      expect(second.deleteHorizonsSet).to.equal(2);
      expect(second.markersRemoved).to.equal(0);
      expect((await markersOf(log)).map(([o]) => o)).to.deep.equal([1, 3, 6, 8]);
      // before the horizon nothing goes; the pass the horizon itself makes due removes both markers
      clock.advance(RETENTION - 2_000);
      expect((await dirtyPass()).markersRemoved).to.equal(0);
      expect((await markersOf(log)).map(([o]) => o)).to.deep.equal([1, 3, 6, 8]);
      clock.advance(2_000);
      const last = await log.compact();
      expect(last?.markersRemoved).to.equal(2);
      expect(await markersOf(log)).to.deep.equal([
        [6, 'COMMIT', 5],
        [8, 'COMMIT', 6],
      ]);
      expect(log.abortedTransactions(0, log.logEndOffset)).to.deep.equal([]);
      expect(log.lastStableOffset).to.equal(log.highWatermark);
      await log.close();

      // read again from the log (an unclean open): no transaction open, none aborted
      const again = await open(dir, false);
      expect(again.firstUnstableOffset).to.equal(null);
      again.updateHighWatermark(again.logEndOffset);
      expect(again.lastStableOffset).to.equal(again.logEndOffset);
      expect(again.abortedTransactions(0, again.logEndOffset)).to.deep.equal([]);
      await again.close();
    });

    it('keeps a marker while a record of its transaction is left, a producer\'s last batch, and every marker under an infinite delete.retention.ms', async () => {
      const clock = new FakeClock();
      const log = await compactedLog(clock);
      const keyed = keyedBy(clock);
      append(log, keyed('kept', 'v', 5)); // 0: never replaced
      append(log, end(5, ControlType.COMMIT)); // 1
      append(log, keyed('gone', 'v', 6)); // 2
      append(log, end(6, ControlType.COMMIT)); // 3: producer 6's last batch
      append(log, keyed('gone', 'newer', null)); // 4
      append(log, keyed('z', 'v', 5, 1)); // 5
      append(log, end(5, ControlType.COMMIT)); // 6
      for (let i = 0; i < 6; i++) append(log, keyed(`filler-${i}`, 'v', null));
      log.updateHighWatermark(log.logEndOffset);
      for (let pass = 0; pass < 3; pass++) {
        for (let i = 0; i < 6; i++) append(log, keyed(`more-${pass}-${i}`, 'v', null));
        log.updateHighWatermark(log.logEndOffset);
        await log.compact();
        clock.advance(RETENTION + 1);
      }
      expect((await markersOf(log)).map(([o]) => o)).to.deep.equal([1, 3, 6]);
      await log.close();

      const infinite = path.join(path.dirname(dir), 'topic-1');
      dir = infinite;
      const log2 = await compactedLog(clock, { 'delete.retention.ms': '9223372036854775807' });
      append(log2, keyed('k', 'v', 5));
      append(log2, end(5, ControlType.ABORT));
      append(log2, keyed('k', 'later', 5, 1));
      append(log2, end(5, ControlType.COMMIT));
      for (let i = 0; i < 6; i++) append(log2, keyed(`filler-${i}`, 'v', null));
      log2.updateHighWatermark(log2.logEndOffset);
      for (let pass = 0; pass < 3; pass++) {
        for (let i = 0; i < 6; i++) append(log2, keyed(`more-${pass}-${i}`, 'v', null));
        log2.updateHighWatermark(log2.logEndOffset);
        await log2.compact();
        clock.advance(RETENTION * 100);
      }
      expect((await markersOf(log2)).map(([, kind]) => kind)).to.deep.equal(['ABORT', 'COMMIT']);
      await log2.close();
    });
  });

  describe('roll snapshots (after an unclean shutdown, the index is read from the newest one on)', () => {
    const snapshots = () => fs.readdirSync(dir).filter((n) => n.endsWith(TXN_ROLL_SNAPSHOT_SUFFIX)).sort();
    const offsetOf = (name: string) => Number(name.slice(0, 20));

    /** A transactional log over several segments: aborted and committed transactions, one still open. */
    async function build(): Promise<{ hw: number; lso: number; aborted: ReturnType<PartitionLog['abortedTransactions']> }> {
      const log = await open(dir);
      for (let i = 0; i < 8; i++) {
        append(log, txnData(i, 3));
        append(log, end(i, i % 2 === 0 ? ControlType.ABORT : ControlType.COMMIT));
      }
      append(log, txnData(99, 1));
      const hw = log.logEndOffset;
      log.updateHighWatermark(hw);
      const out = { hw, lso: log.lastStableOffset, aborted: log.abortedTransactions(0, hw) };
      expect(out.aborted).to.have.length(4);
      await log.close();
      // what an unclean shutdown leaves: no snapshot of the close
      fs.rmSync(path.join(dir, TRANSACTIONS_SNAPSHOT_FILE));
      return out;
    }

    async function openUnclean(): Promise<{ log: PartitionLog; from: number | null }> {
      const captured = captureLogger();
      const log = await PartitionLog.open({ dir, topic: 'topic', partition: 0, config: parseLogConfig({ 'segment.bytes': 300 }), clock: new FakeClock(), logger: captured.logger, hadCleanShutdown: false });
      const used = captured.entries.find((e) => e.message === 'transaction index from a roll snapshot');
      return { log, from: used ? (used.snapshotOffset as number) : null };
    }

    it('keeps the newest two, and an unclean open reads from the newest: the same index as the whole log gives', async () => {
      const want = await build();
      const names = snapshots();
      expect(names).to.have.length(2);
      const { log, from } = await openUnclean();
      expect(from).to.equal(offsetOf(names[1]!));
      log.updateHighWatermark(want.hw);
      expect(log.lastStableOffset).to.equal(want.lso);
      expect(log.abortedTransactions(0, want.hw)).to.deep.equal(want.aborted);
      expect([...log.openTransactions()]).to.deep.equal([[99, want.lso]]);
      await log.close();
    });

    it('skips an unreadable snapshot for the one before it, removes one above the log end, and reads the whole log with none', async () => {
      const want = await build();
      const [older, newest] = snapshots();
      fs.writeFileSync(path.join(dir, newest!), '{"logEndOffset": 12, "ind');
      const beyond = offsetFileName(want.hw + 100, TXN_ROLL_SNAPSHOT_SUFFIX);
      fs.writeFileSync(path.join(dir, beyond), JSON.stringify({ logEndOffset: want.hw + 100, index: { open: [], aborted: [] } }));
      const first = await openUnclean();
      expect(first.from).to.equal(offsetOf(older!));
      expect(fs.existsSync(path.join(dir, beyond)), 'above the log end: removed').to.equal(false);
      first.log.updateHighWatermark(want.hw);
      expect(first.log.abortedTransactions(0, want.hw)).to.deep.equal(want.aborted);
      expect(first.log.lastStableOffset).to.equal(want.lso);
      await first.log.close();

      fs.rmSync(path.join(dir, TRANSACTIONS_SNAPSHOT_FILE), { force: true });
      for (const n of snapshots()) fs.rmSync(path.join(dir, n));
      const none = await openUnclean();
      expect(none.from).to.equal(null);
      none.log.updateHighWatermark(want.hw);
      expect(none.log.abortedTransactions(0, want.hw)).to.deep.equal(want.aborted);
      expect(none.log.lastStableOffset).to.equal(want.lso);
      await none.log.close();
    });

    it('a truncation removes the snapshots above the new end and builds the index from one below it', async () => {
      const want = await build();
      const { log } = await openUnclean();
      const [, newest] = snapshots();
      // back to just after the first COMMIT marker (offset 7): transaction 1 ends there; 2 onwards are gone
      expect(offsetOf(newest!)).to.be.greaterThan(8);
      await log.truncateTo(8);
      expect(snapshots().every((n) => offsetOf(n) <= 8)).to.equal(true);
      log.updateHighWatermark(8);
      expect(log.abortedTransactions(0, 8)).to.deep.equal(want.aborted.filter((a) => a.lastOffset < 8));
      expect(log.lastStableOffset).to.equal(8);
      // the COMMIT marker at 7 gone: transaction 1 is open again from its first offset
      await log.truncateTo(7);
      log.updateHighWatermark(7);
      expect([...log.openTransactions()]).to.deep.equal([[1, 4]]);
      expect(log.lastStableOffset).to.equal(4);
      await log.close();
    });
  });
});
