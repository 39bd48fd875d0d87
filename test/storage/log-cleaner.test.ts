import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import {
  COMPRESSION_CODEC_MASK,
  DELETE_HORIZON_FLAG_MASK,
  TimestampType,
  attributesOf,
  batchSizeAt,
  deleteHorizonOf,
  readBatchHeader,
  setMaxTimestamp,
  setProducerState,
  validateBatch,
} from '../../src/protocol/batch-header.js';
import { CompressionType } from '../../src/protocol/compression.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { CLEANED_FILE_SUFFIX, CompactionError, planCompaction } from '../../src/storage/log-cleaner.js';
import { parseLogConfig, type LogConfigInput } from '../../src/storage/log-config.js';
import { PartitionLog, type ReadResult } from '../../src/storage/partition-log.js';
import { captureLogger, cleanupTmpDirs, tmpDir } from './helpers.js';

const T0 = 1_700_000_000_000;
/** Each test batch is ~100-200 bytes: segments of 400 bytes hold a few batches. */
const SMALL_SEGMENTS: LogConfigInput = { 'cleanup.policy': 'compact', 'segment.bytes': 400, 'min.cleanable.dirty.ratio': 0 };

interface Rec {
  key: string | null;
  value: string | null;
  ts?: number;
}

function kv(...pairs: (string | [string | null, string | null])[]): Rec[] {
  return pairs.map((p) => (typeof p === 'string' ? { key: p.split('=')[0]!, value: p.split('=')[1]! } : { key: p[0], value: p[1] }));
}

function keyedBatch(recs: Rec[], compression: number = CompressionType.NONE): Buffer {
  return encodeRecordBatch({
    compression,
    records: recs.map((r) => ({ key: r.key === null ? null : Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value), timestamp: r.ts ?? T0 })),
  });
}

async function openLog(dir: string, config: LogConfigInput, clock: FakeClock, firstDirtyOffset = 0, clean = false): Promise<PartitionLog> {
  return PartitionLog.open({
    dir,
    topic: 'compacted',
    partition: 0,
    config: parseLogConfig(config),
    clock,
    logger: captureLogger().logger,
    firstDirtyOffset,
    hadCleanShutdown: clean,
  });
}

async function append(log: PartitionLog, b: Buffer): Promise<void> {
  const r = await log.append(b, { leaderEpoch: 0 });
  if (r.errorCode !== ErrorCode.NONE) throw new Error(`append failed: ${r.reason}`);
  log.highWatermark = log.logEndOffset;
}

function recordsOf(r: ReadResult): Buffer {
  if (r.errorCode !== ErrorCode.NONE) throw new Error(`read failed: ${r.reason}`);
  return r.records;
}

interface Seen {
  offset: number;
  key: string | null;
  value: string | null;
}

/** Every record from `from`, read as a consumer does (stepping by batch last offsets). */
async function readAll(log: PartitionLog, from = log.logStartOffset): Promise<Seen[]> {
  const out: Seen[] = [];
  let offset = from;
  while (offset < log.logEndOffset) {
    const buf = recordsOf(await log.read(offset, 1 << 20));
    if (buf.length === 0) break;
    for (const b of decodeRecordBatches(buf)) {
      for (const r of b.records) {
        if (r.offset >= offset) out.push({ offset: r.offset, key: r.key?.toString() ?? null, value: r.value?.toString() ?? null });
      }
      offset = Math.max(offset, b.baseOffset + b.lastOffsetDelta + 1);
    }
  }
  return out;
}

/** Every batch from the log start, segment after segment. */
async function allBatches(log: PartitionLog): Promise<ReturnType<typeof decodeRecordBatches>> {
  const out: ReturnType<typeof decodeRecordBatches> = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const buf = recordsOf(await log.read(offset, 1 << 20));
    if (buf.length === 0) break;
    for (const b of decodeRecordBatches(buf)) {
      out.push(b);
      offset = b.baseOffset + b.lastOffsetDelta + 1;
    }
  }
  return out;
}

/** The bytes of the first batch a read from `offset` gives (the one holding it, or the next). */
async function batchBytesAt(log: PartitionLog, offset: number): Promise<Buffer> {
  const buf = recordsOf(await log.read(offset, 1 << 20));
  return buf.subarray(0, batchSizeAt(buf, 0));
}

/** Every record from the log start with its timestamp, as a consumer reads it. */
async function timestamped(log: PartitionLog): Promise<{ offset: number; key: string; value: string | null; timestamp: number }[]> {
  const out: { offset: number; key: string; value: string | null; timestamp: number }[] = [];
  for (const b of await allBatches(log)) for (const r of b.records) out.push({ offset: r.offset, key: r.key!.toString(), value: r.value?.toString() ?? null, timestamp: r.timestamp });
  return out;
}

function latestByKey(seen: Seen[]): Map<string | null, string | null> {
  const m = new Map<string | null, string | null>();
  for (const s of seen) m.set(s.key, s.value);
  return m;
}

function segmentFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.endsWith('.log')).sort();
}

describe('storage/log-cleaner', () => {
  afterEach(cleanupTmpDirs);
  let clock: FakeClock;
  let dir: string;
  beforeEach(() => {
    clock = new FakeClock(T0 + 1000);
    dir = path.join(tmpDir('cleaner'), 'compacted-0');
  });

  describe('planning', () => {
    it('has no plan for a log whose cleanup.policy is delete', async () => {
      const log = await openLog(dir, { 'segment.bytes': 400 }, clock);
      for (let i = 0; i < 10; i++) await append(log, keyedBatch(kv(`k=${i}`)));
      expect(log.numberOfSegments).to.be.greaterThan(1);
      expect(log.compactionPlan()).to.equal(null);
      expect(await log.compact()).to.equal(null);
    });

    it('cleans only inactive segments below the high watermark', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 12; i++) {
        await append(log, keyedBatch(kv(`k=${i}`)));
        if (i % 2 === 1) log.roll();
      }
      await append(log, keyedBatch(kv('k=active')));
      const bases = log.segmentBaseOffsets();
      expect(bases.length).to.be.greaterThan(3);
      const full = log.compactionPlan()!;
      expect(full.segments.map((s) => s.baseOffset)).to.deep.equal(bases.slice(0, -1));
      expect(full.cleanableEnd).to.equal(bases[bases.length - 1]);
      log.highWatermark = bases[2]!;
      expect(log.compactionPlan()!.segments.map((s) => s.baseOffset)).to.deep.equal(bases.slice(0, 2));
      log.highWatermark = bases[1]! - 1;
      expect(log.compactionPlan()).to.equal(null);
    });

    it('leaves segments younger than min.compaction.lag.ms alone', async () => {
      const log = await openLog(dir, { ...SMALL_SEGMENTS, 'min.compaction.lag.ms': 60_000 }, clock);
      for (let i = 0; i < 6; i++) {
        await append(log, keyedBatch([{ key: 'k', value: `${i}`, ts: T0 + i * 30_000 }]));
        log.roll();
      }
      // newest timestamps T0 .. T0 + 150 s; now T0 + 1 s: every record is younger than the lag
      expect(log.compactionPlan()).to.equal(null);
      clock.advance(120_000); // now T0 + 121 s: records up to T0 + 61 s are old enough
      const plan = log.compactionPlan()!;
      for (const s of plan.segments) expect(clock.now() - s.largestTimestamp()).to.be.at.least(60_000);
      expect(plan.segments.length).to.be.greaterThan(0);
      expect(plan.segments.length).to.be.lessThan(log.numberOfSegments - 1);
    });

    it('is due at min.cleanable.dirty.ratio, or past max.compaction.lag.ms whatever the ratio', async () => {
      const log = await openLog(dir, { ...SMALL_SEGMENTS, 'min.cleanable.dirty.ratio': 0.9 }, clock);
      for (let i = 0; i < 12; i++) await append(log, keyedBatch(kv(`k${i % 3}=${i}`)));
      const first = log.compactionPlan()!;
      expect(first.dirtyRatio).to.equal(1);
      expect(first.due).to.equal('dirty-ratio');
      await log.compact();
      for (let i = 0; i < 2; i++) await append(log, keyedBatch(kv(`k${i}=new${i}`)));
      log.roll();
      const second = log.compactionPlan()!;
      expect(second.dirtyRatio).to.be.greaterThan(0).and.lessThan(0.9);
      expect(second.dirtyBytes + second.cleanBytes).to.equal(second.segments.reduce((n, s) => n + s.size, 0));
      expect(second.due).to.equal(null);
      log.updateConfig({ 'max.compaction.lag.ms': 500 });
      expect(log.compactionPlan()!.due).to.equal('max-compaction-lag');
    });
  });

  it('rolls the active segment of a compacted log at max.compaction.lag.ms when that is sooner than segment.ms', async () => {
    for (const [policy, rolls] of [
      ['compact', true],
      ['delete', false],
    ] as const) {
      const log = await openLog(path.join(tmpDir('cleaner-roll'), 'compacted-0'), { 'cleanup.policy': policy, 'max.compaction.lag.ms': 1000 }, clock);
      await append(log, keyedBatch([{ key: 'k', value: '1', ts: clock.now() }]));
      clock.advance(500);
      await append(log, keyedBatch([{ key: 'k', value: '2', ts: clock.now() }]));
      expect(log.numberOfSegments).to.equal(1);
      clock.advance(1000);
      await append(log, keyedBatch([{ key: 'k', value: '3', ts: clock.now() }]));
      expect(log.numberOfSegments, policy).to.equal(rolls ? 2 : 1);
    }
  });

  describe('a pass', () => {
    it('keeps the latest record of every key at its offset, and consumers read across the gaps', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      const written: Seen[] = [];
      for (let i = 0; i < 30; i++) {
        const key = `user-${i % 4}`;
        written.push({ offset: i, key, value: `v${i}` });
        await append(log, keyedBatch([{ key, value: `v${i}` }]));
      }
      log.roll();
      const end = log.logEndOffset;
      const stats = (await log.compact())!;
      expect(stats.aborted).to.equal(false);
      expect(stats.keysMapped).to.equal(4);
      expect(stats.recordsRemoved).to.equal(26);
      const seen = await readAll(log);
      expect(seen).to.deep.equal(written.slice(-4));
      expect(log.logEndOffset).to.equal(end);
      expect(log.logStartOffset).to.equal(0);
      expect(log.firstDirtyOffset).to.equal(end);
      // a read from a compacted-away offset starts at the next record
      expect((await readAll(log, 3))[0]!.offset).to.equal(26);
      expect(fs.readdirSync(dir).filter((n) => n.endsWith(CLEANED_FILE_SUFFIX))).to.deep.equal([]);
    });

    it('cleans again with a clean part: a newer value of a key removes the compacted one', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 10; i++) await append(log, keyedBatch(kv(`a=${i}`, `b=${i}`)));
      log.roll();
      await log.compact();
      const cleanedTo = log.firstDirtyOffset;
      await append(log, keyedBatch(kv('a=late')));
      for (let i = 0; i < 6; i++) await append(log, keyedBatch(kv(`c=${i}`)));
      log.roll();
      const plan = log.compactionPlan()!;
      expect(plan.firstDirtyIndex).to.be.greaterThan(0);
      expect(plan.segments[plan.firstDirtyIndex]!.baseOffset).to.equal(cleanedTo);
      await log.compact();
      const seen = await readAll(log);
      expect([...latestByKey(seen)]).to.deep.equal([
        ['b', '9'],
        ['a', 'late'],
        ['c', '5'],
      ]);
      expect(seen.map((s) => s.offset)).to.deep.equal([19, 20, 26]);
    });

    it('keeps tombstones for delete.retention.ms, then removes them', async () => {
      const log = await openLog(dir, { ...SMALL_SEGMENTS, 'delete.retention.ms': 10_000 }, clock);
      await append(log, keyedBatch(kv('gone=1', 'kept=1')));
      await append(log, keyedBatch([{ key: 'gone', value: null }]));
      for (let i = 0; i < 4; i++) await append(log, keyedBatch(kv(`pad=${i}`)));
      log.roll();
      await log.compact();
      expect(latestByKey(await readAll(log)).has('gone')).to.equal(true);
      expect((await readAll(log)).find((s) => s.key === 'gone')!.value).to.equal(null);
      clock.advance(20_000);
      await append(log, keyedBatch(kv('pad=again')));
      log.roll();
      const stats = (await log.compact())!;
      expect(stats.tombstonesRemoved).to.equal(1);
      const seen = await readAll(log);
      expect(seen.map((s) => s.key)).to.deep.equal(['kept', 'pad']);
    });

    it('drops records without a key', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      await append(log, keyedBatch([{ key: null, value: 'orphan' }, { key: 'k', value: '1' }]));
      for (let i = 0; i < 4; i++) await append(log, keyedBatch(kv(`p=${i}`)));
      log.roll();
      await log.compact();
      expect((await readAll(log)).map((s) => s.key)).to.deep.equal(['k', 'p']);
    });

    it('re-encodes a batch that lost records in its own codec, keeping offsets, timestamps and headers', async () => {
      const log = await openLog(dir, { ...SMALL_SEGMENTS, 'segment.bytes': 2000 }, clock);
      const recs = Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 5}`, value: `value-${i}-${'x'.repeat(20)}`, ts: T0 + i }));
      await append(log, keyedBatch(recs, CompressionType.LZ4));
      await append(log, keyedBatch(kv('k0=newest'), CompressionType.GZIP));
      log.roll();
      await log.compact();
      const buf = recordsOf(await log.read(0, 1 << 20));
      const batches = decodeRecordBatches(buf);
      expect(batches[0]!.compression).to.equal(CompressionType.LZ4);
      expect(batches[0]!.baseOffset).to.equal(0);
      expect(batches[0]!.lastOffsetDelta).to.equal(19);
      expect(batches[0]!.records.map((r) => [r.offset, r.key!.toString(), r.timestamp])).to.deep.equal([
        [16, 'k1', T0 + 16],
        [17, 'k2', T0 + 17],
        [18, 'k3', T0 + 18],
        [19, 'k4', T0 + 19],
      ]);
      expect(batches[0]!.maxTimestamp).to.equal(T0 + 19);
      expect(attributesOf(buf, 0) & COMPRESSION_CODEC_MASK).to.equal(CompressionType.LZ4);
      expect(batches[1]!.records.map((r) => r.value!.toString())).to.deep.equal(['newest']);
    });

    it("keeps an idempotent producer's last batch, empty, with its sequence; drops its earlier emptied ones", async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 3; i++) {
        const b = keyedBatch(kv(`k=p${i}a`, `k=p${i}b`));
        setProducerState(b, 0, 42, 3, i * 2);
        await append(log, b);
      }
      for (let i = 0; i < 4; i++) await append(log, keyedBatch(kv(`k=plain${i}`)));
      log.roll();
      await log.compact();
      const batches = await allBatches(log);
      const fromProducer = batches.filter((b) => b.producerId === 42);
      expect(fromProducer).to.have.length(1);
      expect(fromProducer[0]).to.include({ baseOffset: 4, lastOffsetDelta: 1, producerEpoch: 3, baseSequence: 4 });
      expect(fromProducer[0]!.records).to.deep.equal([]);
      const first = recordsOf(await log.read(0, 1 << 20));
      expect(readBatchHeader(first, 0)).to.include({ producerId: 42, recordsCount: 0 });
      expect((await readAll(log)).map((s) => s.value)).to.deep.equal(['plain3']);
    });

    it('keeps control batches as they are', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      const marker = encodeRecordBatch({ control: true, producerId: 7, producerEpoch: 0, records: [{ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }] });
      await append(log, keyedBatch(kv('k=1')));
      await append(log, marker);
      for (let i = 0; i < 4; i++) await append(log, keyedBatch(kv(`k=${i + 2}`)));
      log.roll();
      await log.compact();
      const batches = await allBatches(log);
      expect(batches.map((b) => [b.baseOffset, b.control])).to.deep.equal([
        [1, true],
        [5, false],
      ]);
    });

    it('leaves a segment that loses nothing untouched, removes an emptied one (the first stays)', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 4; i++) await append(log, keyedBatch(kv(`k=${i}`)));
      log.roll();
      for (let i = 0; i < 4; i++) await append(log, keyedBatch(kv(`u${i}=1`)));
      log.roll();
      for (let i = 0; i < 4; i++) await append(log, keyedBatch(kv(`k=again${i}`)));
      log.roll();
      const before = segmentFiles(dir);
      const untouched = path.join(dir, before[before.length - 3]!);
      const inode = fs.statSync(untouched).ino;
      const stats = (await log.compact())!;
      expect(stats.segmentsCleaned).to.be.greaterThan(0);
      expect(fs.statSync(untouched).ino).to.equal(inode);
      // the first segment lost every record and stays, empty, so the log start does not move
      expect(fs.statSync(path.join(dir, before[0]!)).size).to.equal(0);
      expect(log.logStartOffset).to.equal(0);
      expect((await readAll(log)).map((s) => s.value)).to.deep.equal(['1', '1', '1', '1', 'again3']);
    });

    it('removes an emptied segment that is not the first', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      const big = 'x'.repeat(250);
      await append(log, keyedBatch(kv(`first=${big}`)));
      log.roll();
      for (let i = 0; i < 3; i++) await append(log, keyedBatch(kv(`k=${i}`)));
      log.roll();
      await append(log, keyedBatch(kv(`k=${big}`)));
      log.roll();
      const middle = log.segmentBaseOffsets()[1]!;
      const stats = (await log.compact())!;
      expect(stats.segmentsRemoved).to.equal(1);
      expect(log.segmentBaseOffsets()).to.not.include(middle);
      expect((await readAll(log)).map((s) => s.offset)).to.deep.equal([0, 4]);
      expect((await readAll(log, 2)).map((s) => s.offset)).to.deep.equal([4]);
    });

    it('merges neighbours that fit in segment.bytes together into one segment', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < 4; i++) await append(log, keyedBatch(kv(`k${round}=${i}`)));
        log.roll();
      }
      const before = log.numberOfSegments;
      const seen = await readAll(log);
      // the first pass shrinks each segment to its last record; they now fit in one segment
      await log.compact();
      const latest = (await readAll(log)).map((s) => s.offset);
      expect(latest).to.deep.equal(seen.filter((s) => s.value === '3').map((s) => s.offset));
      await append(log, keyedBatch(kv('k0=new')));
      log.roll();
      const stats = (await log.compact())!;
      expect(log.numberOfSegments).to.be.lessThan(before);
      expect(stats.segmentsRemoved).to.be.greaterThan(0);
      expect(log.segmentBaseOffsets()[0]).to.equal(0);
      expect(latestByKey(await readAll(log))).to.deep.equal(new Map([['k1', '3'], ['k2', '3'], ['k3', '3'], ['k0', 'new']]));
      // k0's old latest (offset 3) is gone; the others' stay where they were
      expect((await readAll(log, 5)).map((s) => s.offset)).to.deep.equal([7, 11, 15, 16]);
      // the merged segment's indexes serve reads from any offset
      for (const from of [0, 3, 7, 11, 15]) expect((await readAll(log, from)).every((s) => s.offset >= from)).to.equal(true);
    });

    it('stops the key map at log.cleaner.dedupe.buffer.size, and the next pass goes on from there', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 40; i++) await append(log, keyedBatch(kv(`key-${i}=${i}`, `key-${i}=${i}b`)));
      log.roll();
      const segments = log.compactionPlan()!.segments.length;
      const stats = (await log.compact({ dedupeBufferBytes: 1 }))!;
      expect(stats.aborted).to.equal(false);
      expect(log.firstDirtyOffset).to.equal(log.segmentBaseOffsets()[1]);
      let passes = 1;
      while (log.firstDirtyOffset < log.logEndOffset && passes < segments + 2) {
        await log.compact({ dedupeBufferBytes: 1 });
        passes++;
      }
      expect(passes).to.be.greaterThan(2);
      const seen = await readAll(log);
      expect(seen).to.have.length(40);
      expect(seen.every((s) => s.value!.endsWith('b'))).to.equal(true);
    });

    it('abandons the pass when the log is truncated under it, and leaves no cleaned file', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 20; i++) await append(log, keyedBatch(kv(`k${i % 2}=${i}`)));
      log.roll();
      const all = await readAll(log);
      let asked = 0;
      const stats = (await log.compact({
        readChunkBytes: 64,
        shouldStop: () => {
          // during the rewrite of the first segment, a follower's truncation cuts into the log
          if (++asked === 40) void log.truncateTo(log.segmentBaseOffsets()[0]! + 1);
          return false;
        },
      }))!;
      expect(asked).to.be.at.least(40);
      expect(stats.aborted).to.equal(true);
      expect(log.firstDirtyOffset).to.equal(0);
      expect(fs.readdirSync(dir).filter((n) => n.endsWith(CLEANED_FILE_SUFFIX))).to.deep.equal([]);
      expect((await readAll(log)).map((s) => s.offset)).to.deep.equal(all.filter((s) => s.offset < log.logEndOffset).map((s) => s.offset));
    });

    it('gives the event loop a turn whenever its slice of work is used up (sliceMs), not only at reads', async () => {
      const log = await openLog(dir, { ...SMALL_SEGMENTS, 'segment.bytes': 64 * 1024 }, clock);
      for (let i = 0; i < 200; i++) await append(log, keyedBatch(kv(`k${i % 10}=${i}`)));
      log.roll();
      const turnsDuring = async (sliceMs: number): Promise<number> => {
        let turns = 0;
        let running = true;
        const tick = (): void => {
          turns++;
          if (running) setImmediate(tick);
        };
        setImmediate(tick);
        await log.compact({ sliceMs });
        running = false;
        return turns;
      };
      // 200 batches read twice (map, then rewrite) from one 1 MiB chunk: a turn after each
      expect(await turnsDuring(0)).to.be.at.least(400);
    });

    it('stops when asked, swapping nothing more', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 20; i++) await append(log, keyedBatch(kv(`k=${i}`)));
      log.roll();
      const stats = (await log.compact({ shouldStop: () => true }))!;
      expect(stats).to.include({ aborted: true, segmentsCleaned: 0 });
      expect(await readAll(log)).to.have.length(20);
    });

    it('refuses a damaged batch by name and leaves the segment as it was', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 8; i++) await append(log, keyedBatch(kv(`k=${i}`)));
      log.roll();
      const plan = log.compactionPlan()!;
      const victim = plan.segments[plan.segments.length - 1]!;
      const bytes = fs.readFileSync(victim.logFile);
      // a bit flipped in a record value: the header still frames the batch, the CRC does not match
      const fd = fs.openSync(victim.logFile, 'r+');
      fs.writeSync(fd, Buffer.from([bytes[bytes.length - 2]! ^ 0xff]), 0, 1, bytes.length - 2);
      fs.closeSync(fd);
      const before = segmentFiles(dir).map((n) => fs.readFileSync(path.join(dir, n)));
      let error: unknown;
      try {
        await log.compact();
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(CompactionError);
      expect((error as Error).message).to.match(/cannot be read: .*CRC/i);
      expect(segmentFiles(dir).map((n) => fs.readFileSync(path.join(dir, n)))).to.deep.equal(before);
      expect(log.firstDirtyOffset).to.equal(0);
    });
  });

  describe('tombstones and the delete horizon (KIP-534)', () => {
    const RETENTION = 10_000;
    const DAY = 24 * 60 * 60 * 1000;
    const TOMBSTONES: LogConfigInput = { ...SMALL_SEGMENTS, 'delete.retention.ms': RETENTION };

    async function pad(log: PartitionLog, n: number, ts: number): Promise<void> {
      for (let i = 0; i < n; i++) await append(log, keyedBatch([{ key: `pad${i}`, value: 'p', ts: ts + i }]));
    }

    it('gives a batch it keeps with a tombstone a delete horizon: bit 6, now + delete.retention.ms as base timestamp, each record at its own timestamp', async () => {
      const log = await openLog(dir, TOMBSTONES, clock);
      await append(log, keyedBatch([{ key: 'gone', value: '1', ts: T0 - 5000 }, { key: 'kept', value: '1', ts: T0 - 4000 }]));
      await append(log, keyedBatch([{ key: 'gone', value: null, ts: T0 - 3000 }, { key: 'other', value: 'x', ts: T0 - 2000 }]));
      await pad(log, 4, T0 - 1000);
      log.roll();
      expect(deleteHorizonOf(await batchBytesAt(log, 2), 0)).to.equal(null);
      const stats = (await log.compact())!;
      const horizon = clock.now() + RETENTION;
      expect(stats).to.include({ deleteHorizonsSet: 1, tombstonesRemoved: 0, recordsRemoved: 1 });
      const b = await batchBytesAt(log, 2);
      expect(attributesOf(b, 0) & DELETE_HORIZON_FLAG_MASK).to.equal(DELETE_HORIZON_FLAG_MASK);
      expect(deleteHorizonOf(b, 0)).to.equal(horizon);
      // the max timestamp stays the records' own; the CRC is computed anew
      expect(readBatchHeader(b, 0)).to.include({ baseOffset: 2, lastOffsetDelta: 1, baseTimestamp: horizon, maxTimestamp: T0 - 2000 });
      expect(validateBatch(b, 0)).to.equal(null);
      // a batch that kept no tombstone gets no horizon, nor does one copied as it was
      expect(deleteHorizonOf(await batchBytesAt(log, 0), 0)).to.equal(null);
      expect(deleteHorizonOf(await batchBytesAt(log, 4), 0)).to.equal(null);
      expect(await timestamped(log)).to.deep.equal([
        { offset: 1, key: 'kept', value: '1', timestamp: T0 - 4000 },
        { offset: 2, key: 'gone', value: null, timestamp: T0 - 3000 },
        { offset: 3, key: 'other', value: 'x', timestamp: T0 - 2000 },
        ...[0, 1, 2, 3].map((i) => ({ offset: 4 + i, key: `pad${i}`, value: 'p', timestamp: T0 - 1000 + i })),
      ]);
      // the segments' newest timestamps and the time indexes still go by the records' timestamps
      for (const segment of log.segmentsForCleaning().slice(0, -1)) expect(segment.largestTimestamp()).to.be.at.most(T0 - 997);
      expect(await log.offsetForTimestamp(T0 - 3000)).to.include({ offset: 2, timestamp: T0 - 3000 });
      expect(await log.offsetForTimestamp(T0 - 2500)).to.include({ offset: 3, timestamp: T0 - 2000 });
      expect(await log.offsetForTimestamp(T0)).to.include({ offset: -1 });
      expect(await log.offsetForTimestamp(horizon)).to.include({ offset: -1 });
    });

    it('keeps the tombstone until its horizon; at the horizon a pass is due with nothing dirty, and removes it', async () => {
      const log = await openLog(dir, TOMBSTONES, clock);
      await append(log, keyedBatch(kv('gone=1', 'kept=1')));
      await append(log, keyedBatch([{ key: 'gone', value: null, ts: T0 + 500 }, { key: 'other', value: 'x', ts: T0 + 600 }]));
      await pad(log, 4, T0);
      log.roll();
      await log.compact();
      const horizon = clock.now() + RETENTION;
      const cleanedTo = log.firstDirtyOffset;
      expect(log.earliestDeleteHorizon).to.equal(horizon);
      expect(log.compactionPlan()).to.equal(null);
      clock.advance(horizon - 1 - clock.now());
      expect(log.compactionPlan()).to.equal(null);
      expect(await log.compact()).to.equal(null);
      expect((await timestamped(log)).find((r) => r.key === 'gone')).to.deep.equal({ offset: 2, key: 'gone', value: null, timestamp: T0 + 500 });
      clock.advance(1);
      const plan = log.compactionPlan()!;
      expect(plan).to.include({ due: 'delete-horizon', dirtyBytes: 0, firstDirtyIndex: plan.segments.length });
      const stats = (await log.compact())!;
      expect(stats).to.include({ tombstonesRemoved: 1, deleteHorizonsSet: 0, aborted: false });
      expect((await timestamped(log)).slice(0, 2)).to.deep.equal([
        { offset: 1, key: 'kept', value: '1', timestamp: T0 },
        { offset: 3, key: 'other', value: 'x', timestamp: T0 + 600 },
      ]);
      expect(log.firstDirtyOffset).to.equal(cleanedTo);
      expect(log.earliestDeleteHorizon).to.equal(Infinity);
      expect(log.compactionPlan()).to.equal(null);
      // the batch that lost its tombstone keeps its horizon, as Kafka's does
      expect(deleteHorizonOf(await batchBytesAt(log, 3), 0)).to.equal(horizon);
    });

    it('keeps a horizon once set: a later pass before it that rewrites the batch leaves it as it was', async () => {
      const log = await openLog(dir, TOMBSTONES, clock);
      await append(log, keyedBatch([{ key: 'a', value: '1' }, { key: 'b', value: null }, { key: 'c', value: '1' }]));
      await pad(log, 4, T0);
      log.roll();
      await log.compact();
      const horizon = clock.now() + RETENTION;
      clock.advance(5000);
      await append(log, keyedBatch(kv('a=2')));
      await pad(log, 2, T0);
      log.roll();
      const stats = (await log.compact())!;
      expect(stats).to.include({ deleteHorizonsSet: 0, tombstonesRemoved: 0 });
      const b = await batchBytesAt(log, 0);
      expect(deleteHorizonOf(b, 0)).to.equal(horizon);
      expect(decodeRecordBatches(b)[0]!.records.map((r) => [r.offset, r.key!.toString(), r.value?.toString() ?? null, r.timestamp])).to.deep.equal([
        [1, 'b', null, T0],
        [2, 'c', '1', T0],
      ]);
      expect(log.earliestDeleteHorizon).to.equal(horizon);
      clock.advance(horizon - clock.now());
      expect((await log.compact())!.tombstonesRemoved).to.equal(1);
      expect((await readAll(log)).map((s) => s.key)).to.not.include('b');
    });

    it('keeps the tombstones of a batch whose producer timestamps are years old at its first pass (the rule before KIP-534 dropped them at once)', async () => {
      const old = T0 - 3 * 365 * DAY;
      const log = await openLog(dir, { ...SMALL_SEGMENTS, 'delete.retention.ms': DAY }, clock);
      await append(log, keyedBatch([{ key: 'user-1', value: 'v', ts: old }]));
      await append(log, keyedBatch([{ key: 'user-1', value: null, ts: old + 1 }]));
      await pad(log, 4, old + 2);
      log.roll();
      const first = (await log.compact())!;
      expect(first).to.include({ tombstonesRemoved: 0, deleteHorizonsSet: 1 });
      expect((await timestamped(log)).find((r) => r.key === 'user-1')).to.deep.equal({ offset: 1, key: 'user-1', value: null, timestamp: old + 1 });
      expect(deleteHorizonOf(await batchBytesAt(log, 1), 0)).to.equal(clock.now() + DAY);
      clock.advance(DAY - 1);
      expect(log.compactionPlan()).to.equal(null);
      clock.advance(1);
      expect((await log.compact())!.tombstonesRemoved).to.equal(1);
      expect(await timestamped(log)).to.deep.equal([0, 1, 2, 3].map((i) => ({ offset: 2 + i, key: `pad${i}`, value: 'p', timestamp: old + 2 + i })));
    });

    it('after an open, finds the horizons by one pass at open time + delete.retention.ms; a compacted tombstone without a horizon (from before) gets one then', async () => {
      const log = await openLog(dir, TOMBSTONES, clock);
      await append(log, keyedBatch(kv('x=1')));
      await append(log, keyedBatch([{ key: 'y', value: null, ts: T0 + 5 }]));
      await pad(log, 4, T0);
      log.roll();
      await log.flush();
      const end = log.logEndOffset;
      await log.close();
      // as a log compacted before KIP-534 reopens: its compacted part holds a tombstone without a horizon
      const opened = clock.now();
      const again = await openLog(dir, TOMBSTONES, clock, end, true);
      again.highWatermark = again.logEndOffset;
      expect(again.earliestDeleteHorizon).to.equal(opened + RETENTION);
      expect(again.compactionPlan()).to.equal(null);
      clock.advance(RETENTION);
      expect(again.compactionPlan()!.due).to.equal('delete-horizon');
      // a batch without a horizon never loses its tombstones: it gets one, as in Kafka after an upgrade
      expect(await again.compact()).to.include({ tombstonesRemoved: 0, deleteHorizonsSet: 1 });
      const horizon = clock.now() + RETENTION;
      expect(again.earliestDeleteHorizon).to.equal(horizon);
      await again.flush();
      await again.close();
      // the horizon is in the batch on disk; after this open it is known again only as a bound
      clock.advance(1000);
      const third = await openLog(dir, TOMBSTONES, clock, end, true);
      third.highWatermark = third.logEndOffset;
      expect(deleteHorizonOf(await batchBytesAt(third, 1), 0)).to.equal(horizon);
      expect(third.earliestDeleteHorizon).to.equal(clock.now() + RETENTION);
      clock.advance(third.earliestDeleteHorizon - clock.now());
      expect((await third.compact())!).to.include({ tombstonesRemoved: 1, deleteHorizonsSet: 0 });
      expect((await timestamped(third)).map((r) => r.key)).to.deep.equal(['x', 'pad0', 'pad1', 'pad2', 'pad3']);
      expect(third.earliestDeleteHorizon).to.equal(Infinity);
      await third.close();
    });

    it("empties an idempotent producer's last batch when its tombstone goes: no horizon, no base timestamp, its max timestamp and sequence kept", async () => {
      const log = await openLog(dir, TOMBSTONES, clock);
      const b = keyedBatch([{ key: 'k', value: null, ts: T0 + 7 }]);
      setProducerState(b, 0, 42, 0, 0);
      await append(log, b);
      await pad(log, 4, T0);
      log.roll();
      await log.compact();
      const horizon = clock.now() + RETENTION;
      expect(readBatchHeader(await batchBytesAt(log, 0), 0)).to.include({ producerId: 42, baseSequence: 0, baseTimestamp: horizon, recordsCount: 1 });
      clock.advance(RETENTION);
      expect((await log.compact())!.tombstonesRemoved).to.equal(1);
      const empty = await batchBytesAt(log, 0);
      expect(readBatchHeader(empty, 0)).to.include({ producerId: 42, producerEpoch: 0, baseSequence: 0, recordsCount: 0, baseTimestamp: -1, maxTimestamp: T0 + 7 });
      expect(deleteHorizonOf(empty, 0)).to.equal(null);
      expect(log.earliestDeleteHorizon).to.equal(Infinity);
    });

    it('sets the horizon on compressed and LogAppendTime batches too, keeping their codec and what their records read as', async () => {
      const log = await openLog(dir, { ...TOMBSTONES, 'segment.bytes': 2000 }, clock);
      await append(log, keyedBatch([{ key: 'a', value: '1', ts: T0 + 1 }, { key: 'b', value: null, ts: T0 + 2 }], CompressionType.LZ4));
      const appendTime = keyedBatch([{ key: 'c', value: null, ts: T0 + 3 }]);
      setMaxTimestamp(appendTime, 0, TimestampType.LOG_APPEND_TIME, T0 + 50);
      await append(log, appendTime);
      await pad(log, 4, T0);
      log.roll();
      expect((await log.compact())!.deleteHorizonsSet).to.equal(2);
      const horizon = clock.now() + RETENTION;
      const lz4 = await batchBytesAt(log, 0);
      expect(attributesOf(lz4, 0) & COMPRESSION_CODEC_MASK).to.equal(CompressionType.LZ4);
      expect(deleteHorizonOf(lz4, 0)).to.equal(horizon);
      expect(decodeRecordBatches(lz4)[0]!.records.map((r) => r.timestamp)).to.deep.equal([T0 + 1, T0 + 2]);
      const lat = await batchBytesAt(log, 2);
      expect(deleteHorizonOf(lat, 0)).to.equal(horizon);
      const decoded = decodeRecordBatches(lat)[0]!;
      expect(decoded).to.include({ timestampType: TimestampType.LOG_APPEND_TIME, maxTimestamp: T0 + 50 });
      expect(decoded.records.map((r) => r.timestamp)).to.deep.equal([T0 + 50]);
    });

    it('sets no horizon when delete.retention.ms is infinite: the tombstones stay', async () => {
      const log = await openLog(dir, { ...SMALL_SEGMENTS, 'delete.retention.ms': '9223372036854775807' }, clock);
      expect(log.config.deleteRetentionMs).to.equal(Infinity);
      await append(log, keyedBatch(kv('gone=1')));
      await append(log, keyedBatch([{ key: 'gone', value: null }]));
      await pad(log, 4, T0);
      log.roll();
      expect(await log.compact()).to.include({ deleteHorizonsSet: 0, tombstonesRemoved: 0 });
      expect(deleteHorizonOf(await batchBytesAt(log, 1), 0)).to.equal(null);
      expect(log.earliestDeleteHorizon).to.equal(Infinity);
      clock.advance(100 * 365 * DAY);
      expect(log.compactionPlan()).to.equal(null);
      expect((await readAll(log)).find((s) => s.key === 'gone')).to.deep.equal({ offset: 1, key: 'gone', value: null });
    });
  });

  describe('durability', () => {
    it('reopens a compacted log with the same records, after a clean and after an unclean shutdown', async () => {
      for (const clean of [true, false]) {
        const d = path.join(tmpDir('cleaner-reopen'), 'compacted-0');
        const log = await openLog(d, SMALL_SEGMENTS, clock);
        for (let i = 0; i < 30; i++) await append(log, keyedBatch(kv(`k${i % 5}=${i}`)));
        log.roll();
        await log.compact();
        const seen = await readAll(log);
        const firstDirty = log.firstDirtyOffset;
        await log.flush();
        await log.close();
        const again = await openLog(d, SMALL_SEGMENTS, clock, firstDirty, clean);
        again.highWatermark = again.logEndOffset;
        expect(await readAll(again)).to.deep.equal(seen);
        expect(again.firstDirtyOffset).to.equal(firstDirty);
        await again.close();
      }
    });

    it('removes a cleaned file left by a crash, and rebuilds indexes removed before the swap', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 12; i++) await append(log, keyedBatch(kv(`k=${i}`)));
      log.roll();
      await log.flush();
      const seen = await readAll(log);
      await log.close();
      const first = segmentFiles(dir)[0]!;
      fs.writeFileSync(path.join(dir, first + CLEANED_FILE_SUFFIX), 'half written');
      fs.rmSync(path.join(dir, first.replace('.log', '.index')), { force: true });
      fs.rmSync(path.join(dir, first.replace('.log', '.timeindex')), { force: true });
      const again = await openLog(dir, SMALL_SEGMENTS, clock, 0, true);
      again.highWatermark = again.logEndOffset;
      expect(fs.existsSync(path.join(dir, first + CLEANED_FILE_SUFFIX))).to.equal(false);
      expect(await readAll(again)).to.deep.equal(seen);
      expect(await readAll(again, 5)).to.deep.equal(seen.slice(5));
    });

    it('finishes at open a swap a crash cut short: the segments it replaces go, the swap becomes the segment', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 12; i++) {
        await append(log, keyedBatch(kv(`k${i % 2}=${i}`)));
        if (i % 3 === 2) log.roll();
      }
      await log.flush();
      const bases = log.segmentBaseOffsets();
      const end = log.logEndOffset;
      await log.close();
      // as if a pass had merged the first three segments into a swap file and deleted only one
      const keep = encodeRecordBatch({ baseOffset: 0, records: [] });
      const swapContent = Buffer.concat([keep]);
      fs.writeFileSync(path.join(dir, `${String(0).padStart(20, '0')}.${String(bases[3]).padStart(20, '0')}.swap`), swapContent);
      fs.rmSync(path.join(dir, `${String(bases[1]).padStart(20, '0')}.log`));
      const again = await openLog(dir, SMALL_SEGMENTS, clock, 0, false);
      again.highWatermark = again.logEndOffset;
      expect(again.segmentBaseOffsets()).to.deep.equal([0, ...bases.slice(3)]);
      expect(fs.readdirSync(dir).filter((n) => n.endsWith('.swap'))).to.deep.equal([]);
      expect(again.logEndOffset).to.equal(end);
      expect((await readAll(again)).map((s) => s.offset)).to.deep.equal(Array.from({ length: end - bases[3]! }, (_, i) => bases[3]! + i));
    });

    it('lowers the first dirty offset when a truncation cuts below it', async () => {
      const log = await openLog(dir, SMALL_SEGMENTS, clock);
      for (let i = 0; i < 12; i++) await append(log, keyedBatch(kv(`k=${i}`)));
      log.roll();
      await log.compact();
      expect(log.firstDirtyOffset).to.equal(12);
      // the cut falls on a batch boundary; below 11 only gaps are left, so the log ends at 10
      await log.truncateTo(11);
      expect(log.logEndOffset).to.be.at.most(11);
      expect(log.firstDirtyOffset).to.equal(log.logEndOffset);
      await log.truncateFullyAndStartAt(3);
      expect(log.firstDirtyOffset).to.equal(3);
    });
  });

  describe('retention and cleanup.policy', () => {
    it('deletes by retention.ms only when the policy has delete', async () => {
      for (const [policy, deletes] of [
        ['compact', false],
        ['compact,delete', true],
        ['delete', true],
      ] as const) {
        const d = path.join(tmpDir('cleaner-retention'), 'compacted-0');
        const log = await openLog(d, { 'cleanup.policy': policy, 'segment.bytes': 400, 'retention.ms': 1000 }, clock);
        for (let i = 0; i < 10; i++) await append(log, keyedBatch([{ key: `k${i}`, value: 'v', ts: T0 }]));
        clock.advance(5000);
        const deleted = await log.deleteOldSegments();
        expect(deleted > 0, policy).to.equal(deletes);
      }
    });

    it('plans with the log start moved by retention (compact,delete)', async () => {
      const log = await openLog(dir, { ...SMALL_SEGMENTS, 'cleanup.policy': 'compact,delete', 'retention.ms': 1000 }, clock);
      for (let i = 0; i < 6; i++) await append(log, keyedBatch([{ key: 'old', value: `${i}`, ts: T0 - 10_000 }]));
      for (let i = 0; i < 6; i++) await append(log, keyedBatch([{ key: 'new', value: `${i}`, ts: clock.now() }]));
      log.roll();
      await log.deleteOldSegments();
      expect(log.logStartOffset).to.be.greaterThan(0);
      const plan = planCompaction(log, clock.now())!;
      expect(plan.segments[0]!.baseOffset).to.equal(log.logStartOffset);
      await log.compact();
      expect(latestByKey(await readAll(log)).get('new')).to.equal('5');
    });
  });
});
