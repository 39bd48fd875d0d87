import { expect } from 'chai';
import fc from 'fast-check';
import path from 'node:path';
import { CompressionType } from '../../src/protocol/compression.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { parseLogConfig, type LogConfig } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { captureLogger, cleanupTmpDirs, tmpDir } from './helpers.js';

/** A record as written: its offset, key, value (null: a tombstone) and timestamp. */
interface Written {
  offset: number;
  key: string;
  value: string | null;
  timestamp: number;
}

type Op =
  | { kind: 'append'; records: { key: number; tombstone: boolean; size: number }[]; lz4: boolean; age: number }
  | { kind: 'commit' }
  | { kind: 'roll' }
  | { kind: 'compact'; tinyMap: boolean }
  | { kind: 'time'; ms: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'reopen'; clean: boolean };

const recordArb = fc.record({ key: fc.integer({ min: 0, max: 6 }), tombstone: fc.integer({ min: 0, max: 9 }).map((n) => n < 2), size: fc.integer({ min: 1, max: 60 }) });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('append' as const), records: fc.array(recordArb, { minLength: 1, maxLength: 5 }), lz4: fc.boolean(), age: fc.oneof(fc.integer({ min: -2000, max: 5000 }), fc.constant(1e11)) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('commit' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('roll' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('compact' as const), tinyMap: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('time' as const), ms: fc.integer({ min: 0, max: 3000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const), clean: fc.boolean() }) },
);
const configArb = fc.record({
  'cleanup.policy': fc.constant('compact'),
  'segment.bytes': fc.integer({ min: 200, max: 800 }),
  'index.interval.bytes': fc.integer({ min: 0, max: 300 }),
  'delete.retention.ms': fc.integer({ min: 0, max: 4000 }),
  'min.cleanable.dirty.ratio': fc.constant('0'),
});

async function readLog(log: PartitionLog): Promise<Written[]> {
  const out: Written[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, 1 << 20);
    if (r.errorCode !== ErrorCode.NONE) throw new Error(`read at ${offset}: ${r.reason}`);
    if (r.records.length === 0) break;
    for (const b of decodeRecordBatches(r.records)) {
      for (const rec of b.records) if (rec.offset >= offset) out.push({ offset: rec.offset, key: String(rec.key), value: rec.value === null ? null : String(rec.value), timestamp: rec.timestamp });
      offset = Math.max(offset, b.baseOffset + b.lastOffsetDelta + 1);
    }
  }
  return out;
}

describe('storage/log-cleaner (properties)', () => {
  afterEach(cleanupTmpDirs);

  it('never invents, changes (timestamps included) or reorders a record, and keeps the latest record of every key, through appends, compactions, truncations and reopenings', async function () {
    this.timeout(120_000);
    let removed = 0;
    let merged = 0;
    let tombstones = 0;
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(opArb, { minLength: 15, maxLength: 60, size: 'max' }), async (configInput, ops) => {
        const dir = path.join(tmpDir('cleaner-prop'), 't-0');
        const clock = new FakeClock();
        const config: LogConfig = parseLogConfig(configInput);
        const open = (clean: boolean, hw: number, firstDirty: number): Promise<PartitionLog> =>
          PartitionLog.open({ dir, topic: 't', partition: 0, config, clock, logger: captureLogger().logger, hadCleanShutdown: clean, highWatermark: hw, recoveryPoint: 0, firstDirtyOffset: firstDirty });
        let log = await open(false, 0, 0);
        let written: Written[] = [];
        let seq = 0;
        try {
          for (const op of ops) {
            switch (op.kind) {
              case 'append': {
                const values = op.records.map((r) => (r.tombstone ? null : `${seq++}:${'v'.repeat(r.size)}`));
                // timestamps from far behind the clock to ahead of it: a tombstone lives by its
                // batch's delete horizon, whatever its own timestamp, and every record keeps it
                const timestamp = clock.now() - op.age;
                const b = encodeRecordBatch({
                  compression: op.lz4 ? CompressionType.LZ4 : CompressionType.NONE,
                  records: op.records.map((r, i) => ({ key: Buffer.from(`key-${r.key}`), value: values[i] === null ? null : Buffer.from(values[i]!), timestamp: timestamp + i })),
                });
                const res = await log.append(b, { leaderEpoch: 0 });
                if (res.errorCode !== ErrorCode.NONE) break; // a batch above segment.bytes: refused, nothing written
                op.records.forEach((r, i) => written.push({ offset: res.baseOffset + i, key: `key-${r.key}`, value: values[i]!, timestamp: timestamp + i }));
                break;
              }
              case 'commit':
                log.highWatermark = log.logEndOffset;
                break;
              case 'roll':
                log.roll();
                break;
              case 'compact':
                const stats = await log.compact(op.tinyMap ? { dedupeBufferBytes: 1 } : {});
                removed += stats?.recordsRemoved ?? 0;
                merged += stats?.segmentsRemoved ?? 0;
                tombstones += stats?.tombstonesRemoved ?? 0;
                break;
              case 'time':
                clock.advance(op.ms);
                break;
              case 'truncate': {
                // as a follower does: never below the high watermark
                const hw = log.highWatermark;
                await log.truncateTo(hw + Math.floor(op.at * (log.logEndOffset - hw)));
                written = written.filter((w) => w.offset < log.logEndOffset);
                break;
              }
              case 'reopen': {
                const hw = log.highWatermark;
                const firstDirty = log.firstDirtyOffset;
                if (op.clean) await log.flush();
                await log.close();
                log = await open(op.clean, hw, firstDirty);
                break;
              }
            }
            const seen = await readLog(log);
            const byOffset = new Map(written.map((w) => [w.offset, w]));
            // a subsequence of what was written, each record as it was written
            for (let i = 0; i < seen.length; i++) {
              const s = seen[i]!;
              expect(byOffset.get(s.offset), `offset ${s.offset}`).to.deep.equal(s);
              if (i > 0) expect(s.offset).to.be.greaterThan(seen[i - 1]!.offset);
            }
            // every key's latest record is there; a key whose latest is a tombstone is there as
            // that tombstone or not at all (never an older value)
            const latest = new Map<string, Written>();
            for (const w of written) latest.set(w.key, w);
            const latestSeen = new Map<string, Written>();
            for (const s of seen) latestSeen.set(s.key, s);
            for (const [key, w] of latest) {
              if (w.value !== null) expect(latestSeen.get(key), key).to.deep.equal(w);
              else if (latestSeen.has(key)) expect(latestSeen.get(key), key).to.deep.equal(w);
            }
            if (written.length > 0) expect(log.logEndOffset).to.be.greaterThan(written[written.length - 1]!.offset);
          }
        } finally {
          await log.close();
        }
      }),
      { numRuns: 100 },
    );
    // the runs did compact: records went, segments were merged or emptied, tombstones expired
    if (process.env.SAMSA_PROP_STATS) console.log({ removed, merged, tombstones });
    expect(removed).to.be.greaterThan(0);
    expect(merged).to.be.greaterThan(0);
    expect(tombstones).to.be.greaterThan(0);
  });
});
