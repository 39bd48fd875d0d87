import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import {
  TIMESTAMP_TYPE_MASK,
  attributesOf,
  batchSizeAt,
  baseOffsetOf,
  maxTimestampOf,
  partitionLeaderEpochOf,
  validateBatch,
} from '../../src/protocol/batch-header.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { FileHandleCache } from '../../src/storage/file-handle-cache.js';
import { parseLogConfig, type LogConfigInput } from '../../src/storage/log-config.js';
import {
  EARLIEST_TIMESTAMP,
  LATEST_TIMESTAMP,
  LogState,
  PartitionLog,
  type AppendResult,
  type ReadResult,
} from '../../src/storage/partition-log.js';
import { readsDuring } from '../helpers/file-reads.js';
import { batch, batchRanges, captureLogger, cleanupTmpDirs, decodeAll, sizedBatch, tmpDir } from './helpers.js';

interface OpenOpts {
  dir?: string;
  config?: LogConfigInput;
  clock?: FakeClock;
  recoveryPoint?: number;
  highWatermark?: number;
  clean?: boolean;
}

async function openLog(opts: OpenOpts = {}): Promise<PartitionLog> {
  return PartitionLog.open({
    dir: opts.dir ?? path.join(tmpDir('plog'), 'topic-0'),
    topic: 'topic',
    partition: 0,
    config: parseLogConfig(opts.config ?? {}),
    clock: opts.clock ?? new FakeClock(),
    logger: captureLogger().logger,
    recoveryPoint: opts.recoveryPoint ?? 0,
    highWatermark: opts.highWatermark ?? 0,
    hadCleanShutdown: opts.clean ?? false,
  });
}

function ok(r: AppendResult): { baseOffset: number; lastOffset: number; logAppendTime: number } {
  if (r.errorCode !== ErrorCode.NONE) throw new Error(`append failed: ${r.errorCode} ${r.reason}`);
  return r;
}

function records(r: ReadResult): Buffer {
  if (r.errorCode !== ErrorCode.NONE) throw new Error(`read failed: ${r.errorCode} ${r.reason}`);
  return r.records;
}

async function readAll(log: PartitionLog, from = log.logStartOffset): Promise<{ offset: number; value: string }[]> {
  const out: { offset: number; value: string }[] = [];
  let offset = from;
  while (offset < log.logEndOffset) {
    const buf = records(await log.read(offset, 1 << 20));
    if (buf.length === 0) break;
    for (const r of decodeAll(buf)) if (r.offset >= offset) out.push({ offset: r.offset, value: r.value });
    const ranges = batchRanges(buf);
    offset = ranges[ranges.length - 1]![1] + 1;
  }
  return out;
}

function fileSize(log: PartitionLog): number {
  return fs
    .readdirSync(log.dir)
    .filter((n) => n.endsWith('.log'))
    .reduce((sum, n) => sum + fs.statSync(path.join(log.dir, n)).size, 0);
}

describe('storage/partition-log', () => {
  afterEach(cleanupTmpDirs);

  describe('append', () => {
    it('assigns offsets by stamping baseOffset and the leader epoch into the header', async () => {
      const log = await openLog();
      const b1 = batch(['a', 'b', 'c']);
      const b2 = batch(['d']);
      expect(ok(await log.append(b1, { leaderEpoch: 7 }))).to.include({ baseOffset: 0, lastOffset: 2, logAppendTime: -1 });
      expect(ok(await log.append(b2, { leaderEpoch: 7 }))).to.include({ baseOffset: 3, lastOffset: 3 });
      expect(baseOffsetOf(b2, 0)).to.equal(3);
      expect(partitionLeaderEpochOf(b2, 0)).to.equal(7);
      expect(log.logEndOffset).to.equal(4);
      const buf = records(await log.read(0, 1 << 20));
      expect(buf.equals(Buffer.concat([b1, b2]))).to.equal(true);
      expect(decodeAll(buf).map((r) => [r.offset, r.value])).to.deep.equal([
        [0, 'a'],
        [1, 'b'],
        [2, 'c'],
        [3, 'd'],
      ]);
      expect(validateBatch(buf, 0)).to.equal(null);
      await log.close();
    });

    it('appends several batches given in one buffer', async () => {
      const log = await openLog();
      const r = ok(await log.append(Buffer.concat([batch(['a']), batch(['b', 'c']), batch(['d'])]), { leaderEpoch: 0 }));
      expect(r).to.include({ baseOffset: 0, lastOffset: 3 });
      expect((await readAll(log)).map((x) => x.value)).to.deep.equal(['a', 'b', 'c', 'd']);
      await log.close();
    });

    it('appends a list of buffers of batches in order, offsets running on across them', async () => {
      const log = await openLog();
      // the parts lie apart in memory (each in a buffer of its own), one of them with two batches
      const parts = [batch(['a']), Buffer.concat([batch(['b', 'c']), batch(['d'])]), batch(['e', 'f'])];
      const r = ok(await log.append(parts, { leaderEpoch: 3 }));
      expect(r).to.include({ baseOffset: 0, lastOffset: 5 });
      expect(parts.map((p) => baseOffsetOf(p, 0))).to.deep.equal([0, 1, 4]);
      expect(partitionLeaderEpochOf(parts[2]!, 0)).to.equal(3);
      expect((await readAll(log)).map((x) => `${x.offset}:${x.value}`)).to.deep.equal(['0:a', '1:b', '2:c', '3:d', '4:e', '5:f']);
      expect(fileSize(log)).to.equal(parts.reduce((n, p) => n + p.length, 0));
      ok(await log.append(batch(['g']), { leaderEpoch: 3 }));
      expect((await readAll(log, 6)).map((x) => x.value)).to.deep.equal(['g']);
      await log.close();
    });

    it('appends a list longer than one gathering write takes (1,024 buffers), in order', async () => {
      const log = await openLog();
      const parts = Array.from({ length: 2_500 }, (_, i) => batch([`v${i}`]));
      expect(ok(await log.append(parts, { leaderEpoch: 0 }))).to.include({ baseOffset: 0, lastOffset: 2_499 });
      const got = await readAll(log);
      expect(got.length).to.equal(2_500);
      expect(got.every((x, i) => x.offset === i && x.value === `v${i}`)).to.equal(true);
      await log.close();
    });

    it('rejects a whole list when a batch of a later buffer is corrupt, or a buffer is empty, writing nothing', async () => {
      const log = await openLog();
      const bad = batch(['y']);
      bad[bad.length - 1] ^= 1;
      for (const parts of [[batch(['x']), bad], [batch(['x']), Buffer.alloc(0)], []]) {
        const r = await log.append(parts, { leaderEpoch: 0 });
        expect(r.errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
        expect(log.logEndOffset).to.equal(0);
        expect(fileSize(log)).to.equal(0);
      }
      await log.close();
    });

    const corruptions: [string, (b: Buffer) => Buffer][] = [
      ['a CRC mismatch', (b) => ((b[b.length - 1] ^= 0xff), b)],
      ['a wrong magic', (b) => ((b[16] = 1), b)],
      ['a batch length beyond the data', (b) => b.subarray(0, b.length - 3)],
      ['a truncated header', (b) => b.subarray(0, 40)],
      ['an impossible batch length', (b) => (b.writeInt32BE(10, 8), b)],
      ['an empty buffer', () => Buffer.alloc(0)],
    ];
    for (const [what, damage] of corruptions) {
      it(`rejects ${what} with CORRUPT_MESSAGE and writes nothing`, async () => {
        const log = await openLog();
        ok(await log.append(batch(['x']), { leaderEpoch: 0 }));
        const before = fileSize(log);
        const r = await log.append(damage(batch(['y', 'z'])), { leaderEpoch: 0 });
        expect(r.errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
        expect((r as { reason: string }).reason).to.be.a('string').and.not.equal('');
        expect(log.logEndOffset).to.equal(1);
        expect(fileSize(log)).to.equal(before);
        await log.close();
      });
    }

    it('rejects the whole buffer when a later batch is corrupt', async () => {
      const log = await openLog();
      const bad = batch(['y']);
      bad[bad.length - 1] ^= 1;
      const r = await log.append(Buffer.concat([batch(['x']), bad]), { leaderEpoch: 0 });
      expect(r.errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
      expect(log.logEndOffset).to.equal(0);
      expect(fileSize(log)).to.equal(0);
      await log.close();
    });

    it('enforces max.message.bytes and segment.bytes', async () => {
      const log = await openLog({ config: { 'max.message.bytes': 200, 'segment.bytes': 1000 } });
      expect((await log.append(sizedBatch(1, 300), { leaderEpoch: 0 })).errorCode).to.equal(ErrorCode.MESSAGE_TOO_LARGE);
      log.updateConfig({ 'max.message.bytes': 5000 });
      expect((await log.append(sizedBatch(1, 1100), { leaderEpoch: 0 })).errorCode).to.equal(ErrorCode.RECORD_LIST_TOO_LARGE);
      ok(await log.append(sizedBatch(1, 500), { leaderEpoch: 0 }));
      expect(log.logEndOffset).to.equal(1);
      await log.close();
    });

    it('stamps LogAppendTime into the batch and keeps the CRC valid', async () => {
      const clock = new FakeClock(1_800_000_000_000);
      const log = await openLog({ clock, config: { 'message.timestamp.type': 'LogAppendTime' } });
      const b = batch({ values: ['a', 'b'], timestamps: 5 });
      const r = ok(await log.append(b, { leaderEpoch: 1 }));
      expect(r.logAppendTime).to.equal(1_800_000_000_000);
      const buf = records(await log.read(0, 1000));
      expect(validateBatch(buf, 0)).to.equal(null);
      expect(maxTimestampOf(buf, 0)).to.equal(1_800_000_000_000);
      expect(attributesOf(buf, 0) & TIMESTAMP_TYPE_MASK).to.not.equal(0);
      expect(decodeAll(buf).map((x) => x.timestamp)).to.deep.equal([1_800_000_000_000, 1_800_000_000_000]);
      await log.close();
    });
  });

  describe('appendAsFollower', () => {
    it("keeps the leader's offsets and epochs, allowing gaps", async () => {
      const log = await openLog();
      ok(await log.appendAsFollower(batch({ values: ['a', 'b'], baseOffset: 0, partitionLeaderEpoch: 3 })));
      ok(await log.appendAsFollower(batch({ values: ['c'], baseOffset: 5, partitionLeaderEpoch: 4 })));
      expect(log.logEndOffset).to.equal(6);
      expect((await readAll(log)).map((r) => r.offset)).to.deep.equal([0, 1, 5]);
      expect(log.epochEntries()).to.deep.equal([
        { epoch: 3, startOffset: 0 },
        { epoch: 4, startOffset: 5 },
      ]);
      await log.close();
    });

    it('rejects offsets below the log end offset or not increasing, writing nothing', async () => {
      const log = await openLog();
      ok(await log.appendAsFollower(batch({ values: ['a', 'b'], baseOffset: 0 })));
      const r1 = await log.appendAsFollower(batch({ values: ['c'], baseOffset: 1 }));
      expect(r1.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
      const r2 = await log.appendAsFollower(
        Buffer.concat([batch({ values: ['c', 'd'], baseOffset: 2 }), batch({ values: ['e'], baseOffset: 3 })]),
      );
      expect(r2.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
      expect(log.logEndOffset).to.equal(2);
      await log.close();
    });
  });

  describe('read', () => {
    it('answers OFFSET_OUT_OF_RANGE outside [logStartOffset, logEndOffset] and nothing at the end', async () => {
      const log = await openLog();
      ok(await log.append(batch(['a', 'b']), { leaderEpoch: 0 }));
      expect((await log.read(3, 100)).errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
      expect((await log.read(-1, 100)).errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
      const atEnd = await log.read(2, 100);
      expect(records(atEnd).length).to.equal(0);
      expect(atEnd).to.include({ logStartOffset: 0, logEndOffset: 2 });
      await log.close();
    });

    it('returns whole batches within maxBytes, but always the first batch', async () => {
      const log = await openLog();
      const sizes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const b = sizedBatch(2, 100, i);
        sizes.push(b.length);
        ok(await log.append(b, { leaderEpoch: 0 }));
      }
      expect(batchRanges(records(await log.read(0, sizes[0]! + sizes[1]! + 10)))).to.deep.equal([
        [0, 1],
        [2, 3],
      ]);
      expect(batchRanges(records(await log.read(0, 10)))).to.deep.equal([[0, 1]]);
      expect(batchRanges(records(await log.read(0, 0)))).to.deep.equal([[0, 1]]);
      expect(batchRanges(records(await log.read(3, sizes[0]! * 2)))).to.deep.equal([
        [2, 3],
        [4, 5],
      ]);
      await log.close();
    });

    it('stops before maxOffset (the high watermark)', async () => {
      const log = await openLog();
      for (let i = 0; i < 4; i++) ok(await log.append(batch([`a${i}`, `b${i}`]), { leaderEpoch: 0 }));
      expect(batchRanges(records(await log.read(0, 1 << 20, { maxOffset: 4 })))).to.deep.equal([
        [0, 1],
        [2, 3],
      ]);
      expect(records(await log.read(4, 1 << 20, { maxOffset: 4 })).length).to.equal(0);
      expect(records(await log.read(2, 1 << 20, { maxOffset: 3 })).length).to.equal(0);
      await log.close();
    });

    it('finds batches through the sparse index in large segments', async () => {
      const log = await openLog({ config: { 'index.interval.bytes': 512 } });
      for (let i = 0; i < 300; i++) ok(await log.append(batch([`v${i}`.padEnd(60, '.')]), { leaderEpoch: 0 }));
      for (const target of [0, 1, 17, 150, 298, 299]) {
        const buf = records(await log.read(target, 1));
        expect(batchRanges(buf)).to.deep.equal([[target, target]]);
        expect(decodeAll(buf)[0]!.value.startsWith(`v${target}.`)).to.equal(true);
      }
      await log.close();
    });
  });

  describe('readNow', () => {
    it('answers reads of the active segment at once, the same as read; older segments are left to read', async () => {
      const log = await openLog({ config: { 'segment.bytes': 1000 } });
      for (let i = 0; i < 20; i++) ok(await log.append(sizedBatch(2, 100, i), { leaderEpoch: 0 }));
      const bases = log.segmentBaseOffsets();
      expect(bases.length).to.be.greaterThan(2);
      const active = bases[bases.length - 1]!;
      const now = log.readNow(active, 1 << 20);
      expect(now).to.not.equal(null);
      expect(records(now!)).to.deep.equal(records(await log.read(active, 1 << 20)));
      expect(batchRanges(records(now!))[0]![0]).to.equal(active);
      expect(log.readNow(0, 1 << 20)).to.equal(null);
      expect(batchRanges(records(await log.read(0, 1)))).to.deep.equal([[0, 1]]);
      // bounds, the end and the high watermark are answered at once wherever the offset is
      expect(log.readNow(41, 100)!.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
      expect(records(log.readNow(40, 100)!).length).to.equal(0);
      expect(records(log.readNow(0, 100, { maxOffset: 0 })!).length).to.equal(0);
      expect(records(log.readNow(active, 1 << 20, { maxOffset: active + 1 })!).length).to.equal(0);
      await log.close();
    });

    it('reads the tail in one read from the index entry below the offset, in two when its batch reaches past that', async () => {
      const log = await openLog();
      // ~160-byte batches of 2 records: ~25 batches per index interval (4096 bytes)
      for (let i = 0; i < 200; i++) ok(await log.append(sizedBatch(2, 50, i), { leaderEpoch: 0 }));
      const all = records(log.readNow(0, 1 << 20)!);
      const sizes: number[] = [];
      for (let pos = 0; pos < all.length; pos += sizes[sizes.length - 1]!) sizes.push(batchSizeAt(all, pos));
      for (const offset of [0, 1, 7, 50, 133, 398, 399]) {
        const { value, reads } = await readsDuring(() => records(log.readNow(offset, 1000)!));
        expect(reads, `reads for offset ${offset}`).to.equal(1);
        // from the batch holding the offset, whole batches within 1000 bytes: what a scan finds
        const first = Math.floor(offset / 2);
        let end = first;
        let bytes = 0;
        while (end < sizes.length && (end === first || bytes + sizes[end]! <= 1000)) bytes += sizes[end++]!;
        expect(batchRanges(value), `offset ${offset}`).to.deep.equal(Array.from({ length: end - first }, (_, k) => [2 * (first + k), 2 * (first + k) + 1]));
      }
      // the high watermark still bounds it
      expect(batchRanges(records(log.readNow(10, 1000, { maxOffset: 14 })!))).to.deep.equal([[10, 11], [12, 13]]);
      // a batch bigger than one read's reach behind small ones: found and read the two-step way
      ok(await log.append(sizedBatch(1, 200_000, 1), { leaderEpoch: 0 }));
      const big = await readsDuring(() => records(log.readNow(400, 1000)!));
      expect(batchRanges(big.value)).to.deep.equal([[400, 400]]);
      expect(big.reads).to.be.greaterThan(1);
      await log.close();
    });

    it('answers a read at the first offset of what appendNow just wrote from its buffers, reading nothing: what readNow returns, copied', async () => {
      const log = await openLog();
      for (let i = 0; i < 5; i++) ok(await log.append(sizedBatch(2, 50, i), { leaderEpoch: 0 }));
      // two parts, the first holding two batches: [10, 11] [12, 13] | [14, 16]
      const parts = [Buffer.concat([sizedBatch(2, 50, 7), sizedBatch(2, 70, 8)]), sizedBatch(3, 40, 9)];
      expect(ok(log.appendNow(parts, { leaderEpoch: 0 })).baseOffset).to.equal(10);
      const sizes = [batchSizeAt(parts[0]!, 0), batchSizeAt(parts[0]!, batchSizeAt(parts[0]!, 0)), parts[1]!.length];
      const cases: [maxBytes: number, maxOffset: number | undefined][] = [];
      for (const maxBytes of [1, sizes[0]!, sizes[0]! + sizes[1]! - 1, sizes[0]! + sizes[1]!, 1 << 20]) {
        for (const maxOffset of [undefined, 11, 12, 14, 16, 17]) cases.push([maxBytes, maxOffset]);
      }
      for (const [maxBytes, maxOffset] of cases) {
        const options = maxOffset === undefined ? {} : { maxOffset };
        const { value, reads } = await readsDuring(() => log.readAppended(10, parts, maxBytes, options));
        expect(reads, `maxBytes ${maxBytes} maxOffset ${maxOffset}`).to.equal(0);
        expect(value, `maxBytes ${maxBytes} maxOffset ${maxOffset}`).to.deep.equal(log.readNow(10, maxBytes, options));
      }
      expect(batchRanges(records(log.readAppended(10, parts, 1 << 20)!))).to.deep.equal([[10, 11], [12, 13], [14, 16]]);
      // a copy: the request's buffers go back to their sender after the handler
      const read = records(log.readAppended(10, parts, 1 << 20)!);
      const kept = Buffer.from(read);
      parts[0]!.fill(0);
      parts[1]!.fill(0);
      expect(read.equals(kept)).to.equal(true);
      await log.close();
    });

    it('leaves to readNow a read at another offset, parts no longer at the tail, and a run a roll split', async () => {
      const log = await openLog({ config: { 'segment.bytes': 600 } });
      ok(await log.append(sizedBatch(2, 50, 0), { leaderEpoch: 0 }));
      const parts = [sizedBatch(2, 50, 1), sizedBatch(2, 50, 2)];
      ok(log.appendNow(parts, { leaderEpoch: 0 }));
      expect(log.readAppended(2, parts, 1 << 20)).to.not.equal(null);
      expect(log.readAppended(4, parts, 1 << 20)).to.equal(null);
      expect(log.readAppended(3, parts, 1 << 20)).to.equal(null);
      // buffers that are not whole batches (never what an append wrote) are not read
      expect(log.readAppended(2, [Buffer.concat(parts).subarray(0, parts[0]!.length + 20)], 1 << 20)).to.equal(null);
      ok(await log.append(sizedBatch(1, 50, 3), { leaderEpoch: 0 }));
      expect(log.readAppended(2, parts, 1 << 20)).to.equal(null);
      // 600-byte segments: a run of three ~330-byte batches rolls after the first
      const split = [sizedBatch(2, 150, 4), sizedBatch(2, 150, 5), sizedBatch(2, 150, 6)];
      const base = ok(log.appendNow(split, { leaderEpoch: 0 })).baseOffset;
      expect(log.segmentBaseOffsets().at(-1)).to.be.greaterThan(base);
      expect(log.readAppended(base, split, 1 << 20)).to.equal(null);
      // what a read there returns: that segment's batch only (reads stop at a segment's end)
      expect(batchRanges(records(await log.read(base, 1 << 20)))).to.deep.equal([[base, base + 1]]);
      await log.close();
    });

    it('leaves reads more than 32 MiB behind the end of the active segment to read', async () => {
      const log = await openLog();
      const big = sizedBatch(1, 1_000_000);
      for (let i = 0; i < 36; i++) ok(await log.append(sizedBatch(1, 1_000_000, i), { leaderEpoch: 0 }));
      expect(log.numberOfSegments).to.equal(1);
      expect(log.readNow(0, 1 << 20)).to.equal(null);
      expect(batchRanges(records(await log.read(0, 1)))).to.deep.equal([[0, 0]]);
      expect(batchRanges(records(log.readNow(35, 1 << 21)!))).to.deep.equal([[35, 35]]);
      expect(records(log.readNow(32, big.length * 2)!).length).to.equal(big.length * 2);
      await log.close();
    });
  });

  describe('segments', () => {
    it('rolls at segment.bytes with Kafka file names and reads across segments', async () => {
      const log = await openLog({ config: { 'segment.bytes': 1000 } });
      for (let i = 0; i < 20; i++) ok(await log.append(sizedBatch(2, 100, i), { leaderEpoch: 0 }));
      expect(log.numberOfSegments).to.be.greaterThan(4);
      const names = fs.readdirSync(log.dir).filter((n) => n.endsWith('.log'));
      expect(names).to.include('00000000000000000000.log');
      for (const n of names) {
        expect(n).to.match(/^\d{20}\.log$/);
        expect(fs.statSync(path.join(log.dir, n)).size).to.be.at.most(1000);
      }
      const bases = log.segmentBaseOffsets();
      expect(names.map((n) => Number(n.slice(0, 20))).sort((a, b) => a - b)).to.deep.equal(bases);
      expect((await readAll(log)).map((r) => r.offset)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i));
      await log.close();
    });

    /** 14 batches of 2 records, and a log with small segments that took them one append each. */
    async function laidOutOneByOne(): Promise<{ config: LogConfigInput; batches: Buffer[]; one: PartitionLog }> {
      const config = { 'segment.bytes': 1000, 'index.interval.bytes': 1 };
      const batches = Array.from({ length: 14 }, (_, i) => sizedBatch(2, 100, i));
      const one = await openLog({ config });
      for (const b of batches) ok(await one.append(Buffer.from(b), { leaderEpoch: 0 }));
      return { config, batches, one };
    }

    /** `many` has the segments of `one`, files of the same sizes, and every offset is found from its indexes. */
    async function expectSameLayout(many: PartitionLog, one: PartitionLog): Promise<void> {
      expect(many.segmentBaseOffsets()).to.deep.equal(one.segmentBaseOffsets());
      expect(many.segmentBaseOffsets().length).to.be.greaterThan(2);
      const files = (log: PartitionLog) =>
        fs
          .readdirSync(log.dir)
          .filter((n) => /\.(log|index|timeindex)$/.test(n))
          .sort()
          .map((n) => [n, fs.readFileSync(path.join(log.dir, n)).length]);
      expect(files(many)).to.deep.equal(files(one));
      for (let offset = 0; offset < 28; offset += 3) expect((await readAll(many, offset))[0]!.offset).to.equal(offset);
      expect(await readAll(many)).to.deep.equal(await readAll(one));
    }

    it('lays out several batches given in one buffer as it lays out the same batches one by one, rolling where they do', async () => {
      const { config, batches, one } = await laidOutOneByOne();
      const many = await openLog({ config });
      // 3 batches that fit the active segment (one write), then 11 that cross segments
      ok(await many.append(Buffer.concat(batches.slice(0, 3).map((b) => Buffer.from(b))), { leaderEpoch: 0 }));
      ok(await many.append(Buffer.concat(batches.slice(3).map((b) => Buffer.from(b))), { leaderEpoch: 0 }));
      await expectSameLayout(many, one);
      await one.close();
      await many.close();
    });

    it('lays out a list of buffers as it lays out the same batches one by one, in one write or rolling', async () => {
      const { config, batches, one } = await laidOutOneByOne();
      const many = await openLog({ config });
      // 3 batches in 2 buffers that fit the active segment (one gathering write), then 11 in 3 buffers across segments
      ok(await many.append([Buffer.from(batches[0]!), Buffer.concat([batches[1]!, batches[2]!])], { leaderEpoch: 0 }));
      ok(await many.append([Buffer.concat(batches.slice(3, 5)), Buffer.concat(batches.slice(5, 9)), Buffer.concat(batches.slice(9))], { leaderEpoch: 0 }));
      await expectSameLayout(many, one);
      await one.close();
      await many.close();
    });

    it('records the leader epochs that start inside one follower append of several batches', async () => {
      const log = await openLog();
      const fetched = Buffer.concat([
        batch({ values: ['a'], baseOffset: 0, partitionLeaderEpoch: 0 }),
        batch({ values: ['b', 'c'], baseOffset: 1, partitionLeaderEpoch: 0 }),
        batch({ values: ['d'], baseOffset: 3, partitionLeaderEpoch: 2 }),
        batch({ values: ['e'], baseOffset: 4, partitionLeaderEpoch: 3 }),
        batch({ values: ['f'], baseOffset: 5, partitionLeaderEpoch: 3 }),
      ]);
      ok(await log.appendAsFollower(fetched));
      expect(log.epochEntries()).to.deep.equal([
        { epoch: 0, startOffset: 0 },
        { epoch: 2, startOffset: 3 },
        { epoch: 3, startOffset: 4 },
      ]);
      expect(log.logEndOffset).to.equal(6);
      await log.close();
    });

    it('rolls at segment.ms counted from the first batch timestamp', async () => {
      const log = await openLog({ config: { 'segment.ms': 1000 } });
      ok(await log.append(batch({ values: ['a'], timestamps: 10_000 }), { leaderEpoch: 0 }));
      ok(await log.append(batch({ values: ['b'], timestamps: 10_900 }), { leaderEpoch: 0 }));
      expect(log.numberOfSegments).to.equal(1);
      ok(await log.append(batch({ values: ['c'], timestamps: 11_001 }), { leaderEpoch: 0 }));
      expect(log.segmentBaseOffsets()).to.deep.equal([0, 2]);
      await log.close();
    });

    it('rolls at segment.ms counted from creation when batches carry no timestamp', async () => {
      const clock = new FakeClock();
      const log = await openLog({ clock, config: { 'segment.ms': 1000 } });
      ok(await log.append(batch(['a']), { leaderEpoch: 0 }));
      clock.advance(1000);
      ok(await log.append(batch(['b']), { leaderEpoch: 0 }));
      expect(log.numberOfSegments).to.equal(1);
      clock.advance(1);
      ok(await log.append(batch(['c']), { leaderEpoch: 0 }));
      expect(log.segmentBaseOffsets()).to.deep.equal([0, 2]);
      await log.close();
    });

    it('rolls when the offset index is full', async () => {
      const log = await openLog({ config: { 'segment.index.bytes': 24, 'index.interval.bytes': 0 } });
      for (let i = 0; i < 10; i++) ok(await log.append(batch([`v${i}`]), { leaderEpoch: 0 }));
      expect(log.numberOfSegments).to.be.greaterThan(2);
      for (const name of fs.readdirSync(log.dir).filter((n) => n.endsWith('.index'))) {
        expect(fs.statSync(path.join(log.dir, name)).size).to.be.at.most(24);
      }
      expect((await readAll(log)).length).to.equal(10);
      await log.close();
    });

    it('adds an offset index entry every index.interval.bytes of appended data', async () => {
      for (const interval of [0, 1000, 4096]) {
        const log = await openLog({ config: { 'index.interval.bytes': interval } });
        const b = sizedBatch(2, 100);
        for (let i = 0; i < 100; i++) ok(await log.append(sizedBatch(2, 100, i), { leaderEpoch: 0 }));
        await log.close();
        const entries = fs.statSync(path.join(log.dir, '00000000000000000000.index')).size / 8;
        // An entry goes in once more than `interval` bytes were appended since the last one.
        const perEntry = Math.floor(interval / b.length) + 1;
        expect(entries).to.equal(Math.floor(99 / perEntry));
      }
    });

    it('roll() starts a new segment, and is a no-op on an empty one', async () => {
      const log = await openLog();
      log.roll();
      expect(log.numberOfSegments).to.equal(1);
      ok(await log.append(batch(['a']), { leaderEpoch: 0 }));
      log.roll();
      log.roll();
      expect(log.segmentBaseOffsets()).to.deep.equal([0, 1]);
      await log.close();
    });
  });

  describe('offsetForTimestamp', () => {
    it('finds the first record at or after a timestamp, across segments', async () => {
      const log = await openLog({ config: { 'segment.bytes': 400, 'index.interval.bytes': 100 } });
      for (let i = 0; i < 30; i++) {
        const t = 1000 + i * 100;
        ok(await log.append(batch({ values: [`a${i}`, `b${i}`], timestamps: [t, t + 50] }), { leaderEpoch: 2 }));
      }
      expect(log.numberOfSegments).to.be.greaterThan(3);
      const at = async (ts: number) => {
        const r = await log.offsetForTimestamp(ts);
        if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
        return [r.offset, r.timestamp];
      };
      expect(await at(0)).to.deep.equal([0, 1000]);
      expect(await at(1000)).to.deep.equal([0, 1000]);
      expect(await at(1001)).to.deep.equal([1, 1050]);
      expect(await at(1051)).to.deep.equal([2, 1100]);
      expect(await at(2222)).to.deep.equal([25, 2250]);
      expect(await at(3950)).to.deep.equal([59, 3950]);
      expect((await at(3951))[0]).to.equal(-1);
      const latest = await log.offsetForTimestamp(LATEST_TIMESTAMP);
      expect(latest).to.include({ offset: 60, leaderEpoch: 2 });
      expect(await log.offsetForTimestamp(EARLIEST_TIMESTAMP)).to.include({ offset: 0 });
      await log.close();
    });

    it('still answers after a reopen (time indexes from disk)', async () => {
      const dir = path.join(tmpDir(), 'topic-0');
      const log = await openLog({ dir, config: { 'segment.bytes': 300 } });
      for (let i = 0; i < 12; i++) ok(await log.append(batch({ values: [`v${i}`], timestamps: 5000 + i }), { leaderEpoch: 0 }));
      await log.flush();
      await log.close();
      const again = await openLog({ dir, clean: true, recoveryPoint: 12, config: { 'segment.bytes': 300 } });
      const r = await again.offsetForTimestamp(5007);
      expect(r).to.include({ offset: 7, timestamp: 5007 });
      await again.close();
    });
  });

  describe('offsetOfMaxTimestamp (ListOffsets MAX_TIMESTAMP)', () => {
    const maxOf = async (log: PartitionLog) => {
      const r = await log.offsetOfMaxTimestamp();
      if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
      return [r.offset, r.timestamp, r.leaderEpoch];
    };

    it('names the record with the largest timestamp, wherever it sits: a middle segment, the middle of its batch', async () => {
      const log = await openLog({ config: { 'segment.bytes': 300, 'index.interval.bytes': 50 } });
      for (let i = 0; i < 20; i++) {
        // timestamps rise to batch 9, whose second record holds the largest, then fall back
        const t = i === 9 ? [1000, 9000, 2000] : [1000 + i, 1000 + i, 1000 + i];
        ok(await log.append(batch({ values: ['a', 'b', 'c'], timestamps: t, partitionLeaderEpoch: 0 }), { leaderEpoch: Math.floor(i / 10) }));
      }
      expect(log.numberOfSegments).to.be.greaterThan(3);
      expect(log.segmentBaseOffsets().at(-1)).to.be.greaterThan(30);
      expect(await maxOf(log)).to.deep.equal([28, 9000, 0]);
      await log.close();
    });

    it('a tie goes to the earliest record (first segment, first batch, first record), as Kafka', async () => {
      const log = await openLog({ config: { 'segment.bytes': 200 } });
      ok(await log.append(batch({ values: ['a', 'b'], timestamps: [10, 50] }), { leaderEpoch: 0 }));
      ok(await log.append(batch({ values: ['c', 'd', 'e'], timestamps: [50, 50, 20] }), { leaderEpoch: 0 }));
      log.roll();
      ok(await log.append(batch({ values: ['f'], timestamps: [50] }), { leaderEpoch: 1 }));
      expect(await maxOf(log)).to.deep.equal([1, 50, 0]);
      await log.close();
    });

    it('an empty log, or one without timestamps, has none (-1)', async () => {
      const log = await openLog();
      expect(await maxOf(log)).to.deep.equal([-1, -1, -1]);
      ok(await log.append(batch({ values: ['a'], timestamps: -1 }), { leaderEpoch: 0 }));
      expect(await maxOf(log)).to.deep.equal([-1, -1, -1]);
      await log.close();
    });

    it('under LogAppendTime, the first record of the last-stamped batch (every record carries its time)', async () => {
      const clock = new FakeClock(1_000);
      const log = await openLog({ clock, config: { 'message.timestamp.type': 'LogAppendTime' } });
      ok(await log.append(batch({ values: ['a', 'b'], timestamps: 99_999 }), { leaderEpoch: 0 }));
      clock.advance(500);
      ok(await log.append(batch({ values: ['c', 'd'], timestamps: 5 }), { leaderEpoch: 3 }));
      expect(await maxOf(log)).to.deep.equal([2, 1_500, 3]);
      await log.close();
    });

    it('after a reopen (from the time indexes) and a truncation below the record, the next largest', async () => {
      const dir = path.join(tmpDir(), 'topic-0');
      const config = { 'segment.bytes': 300, 'index.interval.bytes': 0 };
      const log = await openLog({ dir, config });
      for (let i = 0; i < 12; i++) ok(await log.append(batch({ values: [`v${i}`], timestamps: i === 7 ? 90_000 : 5000 + i }), { leaderEpoch: i < 5 ? 1 : 2 }));
      await log.flush();
      await log.close();
      const again = await openLog({ dir, clean: true, recoveryPoint: 12, config });
      expect(await maxOf(again)).to.deep.equal([7, 90_000, 2]);
      await again.truncateTo(7);
      expect(await maxOf(again)).to.deep.equal([6, 5006, 2]);
      await again.close();
    });

    it('as Kafka, a record below a log start that DeleteRecords moved inside its segment still counts; a deleted segment does not', async () => {
      const log = await openLog({ config: { 'segment.bytes': 1 << 20 } });
      for (let i = 0; i < 6; i++) ok(await log.append(batch({ values: [`v${i}`], timestamps: i === 1 ? 90_000 : 5000 + i }), { leaderEpoch: 4 }));
      log.highWatermark = 6;
      log.deleteRecordsBefore(3);
      expect(await maxOf(log)).to.deep.equal([1, 90_000, 4]);
      log.roll();
      ok(await log.append(batch({ values: ['w'], timestamps: 6000 }), { leaderEpoch: 5 }));
      log.highWatermark = 7;
      log.deleteRecordsBefore(6);
      expect(log.segmentBaseOffsets()).to.deep.equal([6]);
      expect(await maxOf(log)).to.deep.equal([6, 6000, 5]);
      await log.close();
    });
  });

  describe('truncation', () => {
    async function filled(config: LogConfigInput = { 'segment.bytes': 250 }): Promise<PartitionLog> {
      const log = await openLog({ config });
      for (let i = 0; i < 20; i++) ok(await log.append(batch({ values: [`v${i}`], partitionLeaderEpoch: 0 }), { leaderEpoch: Math.floor(i / 5) }));
      return log;
    }

    it('truncateTo removes everything at and above the offset, across segments', async () => {
      const log = await filled();
      const segmentsBefore = log.numberOfSegments;
      expect(segmentsBefore).to.be.greaterThan(3);
      log.highWatermark = 18;
      expect(await log.truncateTo(7)).to.equal(true);
      expect(log.logEndOffset).to.equal(7);
      expect(log.highWatermark).to.equal(7);
      expect(log.numberOfSegments).to.be.lessThan(segmentsBefore);
      expect((await readAll(log)).map((r) => r.value)).to.deep.equal(['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6']);
      expect(log.epochEntries()).to.deep.equal([
        { epoch: 0, startOffset: 0 },
        { epoch: 1, startOffset: 5 },
      ]);
      ok(await log.append(batch(['new']), { leaderEpoch: 9 }));
      expect((await readAll(log, 6)).map((r) => r.value)).to.deep.equal(['v6', 'new']);
      expect(await log.truncateTo(100)).to.equal(false);
      await log.close();
    });

    it('truncating to a segment base offset empties that segment and keeps it active', async () => {
      const log = await filled();
      const base = log.segmentBaseOffsets()[2]!;
      await log.truncateTo(base);
      expect(log.logEndOffset).to.equal(base);
      expect(log.segmentBaseOffsets()[log.numberOfSegments - 1]).to.equal(base);
      ok(await log.append(batch(['x']), { leaderEpoch: 5 }));
      expect((await readAll(log, base)).map((r) => [r.offset, r.value])).to.deep.equal([[base, 'x']]);
      await log.close();
    });

    it('keeps indexes right after truncation and a reopen', async () => {
      const dir = path.join(tmpDir(), 'topic-0');
      const config = { 'index.interval.bytes': 0 };
      const log = await openLog({ dir, config });
      for (let i = 0; i < 50; i++) ok(await log.append(batch({ values: [`v${i}`], timestamps: 100 + i }), { leaderEpoch: 0 }));
      await log.flush();
      await log.truncateTo(30);
      for (let i = 30; i < 40; i++) ok(await log.append(batch({ values: [`w${i}`], timestamps: 1000 + i }), { leaderEpoch: 1 }));
      await log.close();
      for (const clean of [true, false]) {
        const again = await openLog({ dir, config, clean, recoveryPoint: 30 });
        expect(again.logEndOffset).to.equal(40);
        expect(decodeAll(records(await again.read(35, 1)))[0]!.value).to.equal('w35');
        expect(decodeAll(records(await again.read(29, 1)))[0]!.value).to.equal('v29');
        expect(await again.offsetForTimestamp(149)).to.include({ offset: 30 });
        await again.close();
      }
    });

    it('truncateTo below the first segment and truncateFullyAndStartAt restart the log', async () => {
      const log = await filled();
      await log.truncateFullyAndStartAt(100);
      expect([log.logStartOffset, log.logEndOffset, log.highWatermark, log.recoveryPoint]).to.deep.equal([100, 100, 100, 100]);
      expect(log.epochEntries()).to.deep.equal([]);
      expect(fs.readdirSync(log.dir).filter((n) => n.endsWith('.log'))).to.deep.equal(['00000000000000000100.log']);
      expect((await log.read(50, 100)).errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
      ok(await log.append(batch(['a']), { leaderEpoch: 1 }));
      expect((await readAll(log)).map((r) => r.offset)).to.deep.equal([100]);
      await log.truncateTo(40);
      expect([log.logStartOffset, log.logEndOffset]).to.deep.equal([40, 40]);
      await log.close();
    });
  });

  describe('retention', () => {
    it('retention.ms deletes old segments below the high watermark, never the active one', async () => {
      const clock = new FakeClock(1_000_000);
      const log = await openLog({ clock, config: { 'segment.bytes': 200, 'retention.ms': 10_000 } });
      for (let i = 0; i < 12; i++) ok(await log.append(batch({ values: [`v${i}`], timestamps: 1_000_000 + i * 1000 }), { leaderEpoch: 0 }));
      const bases = log.segmentBaseOffsets();
      expect(bases.length).to.be.greaterThan(3);
      clock.advance(100_000);
      expect(await log.deleteOldSegments()).to.equal(0);
      log.highWatermark = bases[2]!;
      expect(await log.deleteOldSegments()).to.equal(2);
      expect(log.logStartOffset).to.equal(bases[2]);
      log.highWatermark = log.logEndOffset;
      await log.deleteOldSegments();
      expect(log.numberOfSegments).to.equal(1);
      expect(log.logStartOffset).to.equal(bases[bases.length - 1]);
      const below = await log.read(0, 100);
      expect(below.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
      expect(fs.readdirSync(log.dir).filter((n) => n.endsWith('.log')).length).to.equal(1);
      await log.close();
    });

    it('retention.ms keeps segments with recent timestamps', async () => {
      const clock = new FakeClock(1_000_000);
      const log = await openLog({ clock, config: { 'segment.bytes': 300, 'retention.ms': 10_000 } });
      for (let i = 0; i < 12; i++) ok(await log.append(batch({ values: [`v${i}`], timestamps: 1_000_000 + i * 1000 }), { leaderEpoch: 0 }));
      log.highWatermark = log.logEndOffset;
      clock.advance(15_500);
      const deleted = await log.deleteOldSegments();
      expect(deleted).to.be.greaterThan(0);
      expect(log.numberOfSegments).to.be.greaterThan(1);
      const first = (await readAll(log))[0]!;
      expect(first.offset).to.equal(log.logStartOffset);
      const newest = await log.offsetForTimestamp(0);
      expect(newest).to.include({ offset: log.logStartOffset });
      await log.close();
    });

    it('retention.bytes deletes the oldest segments while the log is too large', async () => {
      const log = await openLog({ config: { 'segment.bytes': 500, 'retention.bytes': 1200 } });
      for (let i = 0; i < 30; i++) ok(await log.append(sizedBatch(1, 60, i), { leaderEpoch: 0 }));
      log.highWatermark = log.logEndOffset;
      await log.deleteOldSegments();
      // Like Kafka: a segment goes only if the log stays at least retention.bytes without it.
      expect(log.size).to.be.at.least(1200);
      expect(log.size).to.be.lessThan(1200 + 500);
      expect(log.logStartOffset).to.be.greaterThan(0);
      expect((await readAll(log)).length).to.equal(30 - log.logStartOffset);
      await log.close();
    });
  });

  describe('durability', () => {
    it('flush() advances the recovery point only after fsync', async () => {
      const log = await openLog();
      ok(await log.append(batch(['a', 'b']), { leaderEpoch: 0 }));
      expect(log.recoveryPoint).to.equal(0);
      expect(log.unflushedMessages).to.equal(2);
      const flushing = log.flush();
      expect(log.recoveryPoint).to.equal(0);
      expect((await flushing).errorCode).to.equal(ErrorCode.NONE);
      expect(log.recoveryPoint).to.equal(2);
      await log.close();
    });

    it('a flush survives segments being deleted by retention while it runs', async () => {
      const log = await openLog({ config: { 'segment.bytes': 200, 'retention.bytes': 0 } });
      for (let i = 0; i < 20; i++) ok(await log.append(batch([`v${i}`]), { leaderEpoch: 0 }));
      log.highWatermark = log.logEndOffset;
      const flushing = log.flush();
      expect(await log.deleteOldSegments()).to.be.greaterThan(0);
      expect((await flushing).errorCode).to.equal(ErrorCode.NONE);
      expect(log.recoveryPoint).to.equal(20);
      expect(log.numberOfSegments).to.equal(1);
      await log.close();
    });

    it('flush.messages flushes from append', async () => {
      const log = await openLog({ config: { 'flush.messages': 3 } });
      ok(await log.append(batch(['a', 'b']), { leaderEpoch: 0 }));
      expect(log.recoveryPoint).to.equal(0);
      ok(await log.append(batch(['c']), { leaderEpoch: 0 }));
      expect(log.recoveryPoint).to.equal(3);
      await log.close();
    });

    it('appendNow writes at once and leaves the due flush.messages fsync to the caller', async () => {
      const log = await openLog({ config: { 'flush.messages': 2 } });
      ok(log.appendNow(batch(['a']), { leaderEpoch: 0 }));
      expect(log.flushDue).to.equal(false);
      ok(log.appendNow(batch(['b']), { leaderEpoch: 0 }));
      expect(log.logEndOffset).to.equal(2);
      expect(log.flushDue).to.equal(true);
      expect(log.recoveryPoint).to.equal(0);
      await log.flush();
      expect(log.flushDue).to.equal(false);
      expect(log.recoveryPoint).to.equal(2);
      await log.close();
    });

    it('flush.ms flushes when the last flush is old enough', async () => {
      const clock = new FakeClock();
      const log = await openLog({ clock, config: { 'flush.ms': 1000 } });
      ok(await log.append(batch(['a']), { leaderEpoch: 0 }));
      expect(log.maybeFlushByTime(clock.now() + 999)).to.equal(null);
      clock.advance(1000);
      const pending = log.maybeFlushByTime(clock.now());
      expect(pending).to.not.equal(null);
      await pending;
      expect(log.recoveryPoint).to.equal(1);
      expect(log.maybeFlushByTime(clock.now() + 5000)).to.equal(null);
      await log.close();
    });
  });

  describe('leader epochs', () => {
    it('learns epochs from appends, answers endOffsetForEpoch and persists the checkpoint', async () => {
      const dir = path.join(tmpDir(), 'topic-0');
      const log = await openLog({ dir });
      ok(await log.append(batch(['a', 'b']), { leaderEpoch: 1 }));
      ok(await log.append(batch(['c']), { leaderEpoch: 1 }));
      log.assignEpochStartOffset(3, 3);
      ok(await log.append(batch(['d']), { leaderEpoch: 3 }));
      expect(log.latestEpoch).to.equal(3);
      expect(log.endOffsetForEpoch(1)).to.deep.equal({ leaderEpoch: 1, endOffset: 3 });
      expect(log.endOffsetForEpoch(2)).to.deep.equal({ leaderEpoch: 1, endOffset: 3 });
      expect(log.endOffsetForEpoch(3)).to.deep.equal({ leaderEpoch: 3, endOffset: 4 });
      expect(log.endOffsetForEpoch(0)).to.deep.equal({ leaderEpoch: 0, endOffset: 0 });
      expect(log.endOffsetForEpoch(4)).to.deep.equal({ leaderEpoch: -1, endOffset: -1 });
      await log.flush();
      await log.close();
      expect(fs.readFileSync(path.join(dir, 'leader-epoch-checkpoint'), 'utf8')).to.equal('0\n2\n1 0\n3 3\n');
      const again = await openLog({ dir, clean: true, recoveryPoint: 4 });
      expect(again.endOffsetForEpoch(1)).to.deep.equal({ leaderEpoch: 1, endOffset: 3 });
      await again.close();
    });

    it('truncateTo at the log end drops an epoch begun there and never written under (a leader that lost leadership at once)', async () => {
      const dir = path.join(tmpDir(), 'topic-0');
      const log = await openLog({ dir });
      ok(await log.append(batch(['a', 'b']), { leaderEpoch: 1 }));
      log.assignEpochStartOffset(4, 2); // became leader in epoch 4 at the log end, appended nothing
      expect(log.latestEpoch).to.equal(4);
      expect(await log.truncateTo(2)).to.equal(false); // no record removed
      expect(log.epochEntries()).to.deep.equal([{ epoch: 1, startOffset: 0 }]);
      expect(log.latestEpoch).to.equal(1);
      expect(log.logEndOffset).to.equal(2);
      // past the end too; and an epoch that has records stays
      log.assignEpochStartOffset(5, 2);
      ok(await log.append(batch(['c']), { leaderEpoch: 5 }));
      expect(await log.truncateTo(10)).to.equal(false);
      expect(log.epochEntries().map((e) => e.epoch)).to.deep.equal([1, 5]);
      await log.flush();
      await log.close();
      const again = await openLog({ dir, clean: true, recoveryPoint: 3 });
      expect(again.epochEntries()).to.deep.equal([
        { epoch: 1, startOffset: 0 },
        { epoch: 5, startOffset: 2 },
      ]);
      await again.close();
    });

    it('rebuilds the epoch cache from batches when the checkpoint is lost', async () => {
      const dir = path.join(tmpDir(), 'topic-0');
      const log = await openLog({ dir });
      ok(await log.append(batch(['a']), { leaderEpoch: 2 }));
      ok(await log.append(batch(['b']), { leaderEpoch: 5 }));
      await log.close();
      fs.rmSync(path.join(dir, 'leader-epoch-checkpoint'));
      const again = await openLog({ dir });
      expect(again.epochEntries()).to.deep.equal([
        { epoch: 2, startOffset: 0 },
        { epoch: 5, startOffset: 1 },
      ]);
      await again.close();
    });
  });

  describe('lifecycle', () => {
    it('reopens a cleanly closed log with everything in place', async () => {
      const dir = path.join(tmpDir(), 'topic-0');
      const config = { 'segment.bytes': 700, 'index.interval.bytes': 100 };
      const log = await openLog({ dir, config });
      for (let i = 0; i < 40; i++) ok(await log.append(batch([`v${i}`]), { leaderEpoch: 0 }));
      log.highWatermark = 33;
      await log.flush();
      await log.close();
      const again = await openLog({ dir, config, clean: true, recoveryPoint: 40, highWatermark: 33 });
      expect([again.logStartOffset, again.logEndOffset, again.highWatermark, again.recoveryPoint]).to.deep.equal([0, 40, 33, 40]);
      expect((await readAll(again)).map((r) => r.value)).to.deep.equal(Array.from({ length: 40 }, (_, i) => `v${i}`));
      ok(await again.append(batch(['more']), { leaderEpoch: 0 }));
      expect(again.logEndOffset).to.equal(41);
      await again.close();
    });

    it('clamps the high watermark to [logStartOffset, logEndOffset]', async () => {
      const log = await openLog({ highWatermark: 99 });
      expect(log.highWatermark).to.equal(0);
      ok(await log.append(batch(['a', 'b']), { leaderEpoch: 0 }));
      expect(log.updateHighWatermark(5)).to.equal(2);
      log.highWatermark = 1;
      expect(log.highWatermark).to.equal(1);
      await log.close();
    });

    it('delete() removes the directory; use after close throws', async () => {
      const log = await openLog();
      ok(await log.append(batch(['a']), { leaderEpoch: 0 }));
      await log.delete();
      expect(fs.existsSync(log.dir)).to.equal(false);
      expect(fs.readdirSync(path.dirname(log.dir))).to.deep.equal([]);
      expect(log.status).to.equal(LogState.Deleted);
      let threw = false;
      await log.append(batch(['b']), { leaderEpoch: 0 }).catch(() => (threw = true));
      expect(threw).to.equal(true);
    });

    it('turns an I/O error into KAFKA_STORAGE_ERROR and goes offline', async () => {
      const handles = new FileHandleCache(4);
      const log = await PartitionLog.open({
        dir: path.join(tmpDir(), 'topic-0'),
        topic: 'topic',
        partition: 0,
        handles,
        logger: captureLogger().logger,
      });
      ok(await log.append(batch(['a']), { leaderEpoch: 0 }));
      // Swap the active segment's descriptor for one that cannot be valid (closing the real one
      // would let another file opened meanwhile in this process reuse the number and be written).
      const seg = (log as unknown as { segments: { handle: { fd: number } }[] }).segments[0]!;
      const realFd = seg.handle.fd;
      seg.handle.fd = 1_000_000;
      const r = await log.append(batch(['b']), { leaderEpoch: 0 });
      expect(r.errorCode).to.equal(ErrorCode.KAFKA_STORAGE_ERROR);
      expect(log.status).to.equal(LogState.Offline);
      expect((await log.read(0, 100)).errorCode).to.equal(ErrorCode.KAFKA_STORAGE_ERROR);
      expect((await log.flush()).errorCode).to.equal(ErrorCode.KAFKA_STORAGE_ERROR);
      fs.closeSync(realFd);
      seg.handle.fd = -1;
      await log.close();
    });
  });
});
