import { expect } from 'chai';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { FileHandleCache } from '../../src/storage/file-handle-cache.js';
import { parseLogConfig, type LogConfig } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { batch, captureLogger, cleanupTmpDirs, decodeAll, tmpDir } from './helpers.js';

/** What the log should hold: batches of (offset, value) in order. */
interface ModelBatch {
  base: number;
  last: number;
  values: string[];
  size: number;
}

type Op =
  | { kind: 'append'; count: number; size: number }
  | { kind: 'roll' }
  | { kind: 'truncate'; at: number }
  | { kind: 'retention'; hw: number; keepBytes: number }
  | { kind: 'flush' }
  | { kind: 'reopen'; clean: boolean }
  | { kind: 'tear'; chop: number }
  | { kind: 'read'; at: number; maxBytes: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 5 }), size: fc.integer({ min: 1, max: 120 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('roll' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('retention' as const), hw: fc.double({ min: 0, max: 1, noNaN: true }), keepBytes: fc.integer({ min: 0, max: 3000 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('flush' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const), clean: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tear' as const), chop: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), maxBytes: fc.integer({ min: 0, max: 2000 }) }) },
);

const configArb = fc.record({
  'segment.bytes': fc.integer({ min: 300, max: 3000 }),
  'index.interval.bytes': fc.integer({ min: 0, max: 600 }),
  'segment.index.bytes': fc.integer({ min: 12, max: 200 }),
});

describe('storage/partition-log (properties)', () => {
  afterEach(cleanupTmpDirs);

  it('reads back exactly what was appended and kept, through rolls, truncations, retention and reopenings', async function () {
    this.timeout(60_000);
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(opArb, { minLength: 1, maxLength: 40 }), async (configInput, ops) => {
        const dir = path.join(tmpDir('prop'), 't-0');
        const clock = new FakeClock();
        let handles = new FileHandleCache(3);
        let config: LogConfig = parseLogConfig(configInput);
        const open = (clean: boolean, recoveryPoint: number, highWatermark: number) =>
          PartitionLog.open({ dir, topic: 't', partition: 0, config, clock, handles, logger: captureLogger().logger, hadCleanShutdown: clean, recoveryPoint, highWatermark });
        let log = await open(false, 0, 0);
        let model: ModelBatch[] = [];
        let start = 0;
        const end = (): number => (model.length > 0 ? model[model.length - 1]!.last + 1 : start);
        const pick = (f: number): number => Math.min(end(), start + Math.floor(f * (end() - start + 1)));

        const checkAll = async (): Promise<void> => {
          expect(log.logStartOffset).to.equal(start);
          expect(log.logEndOffset).to.equal(end());
          const got: [number, string][] = [];
          let offset = start;
          while (offset < log.logEndOffset) {
            const r = await log.read(offset, 1500);
            if (r.errorCode !== ErrorCode.NONE) throw new Error(`read ${offset}: ${r.reason}`);
            const decoded = decodeAll(r.records);
            expect(decoded.length).to.be.greaterThan(0);
            for (const d of decoded) got.push([d.offset, d.value]);
            offset = decoded[decoded.length - 1]!.offset + 1;
          }
          const want = model.flatMap((b) => b.values.map((v, i): [number, string] => [b.base + i, v]));
          expect(got).to.deep.equal(want);
        };

        for (const op of ops) {
          switch (op.kind) {
            case 'append': {
              const values = Array.from({ length: op.count }, () => `m${seq++}-`.padEnd(op.size, 'x'));
              const encoded = batch(values);
              const r = await log.append(encoded, { leaderEpoch: 0 });
              if (r.errorCode !== ErrorCode.NONE) {
                // Only a batch larger than segment.bytes may be refused.
                expect(r.errorCode).to.equal(ErrorCode.RECORD_LIST_TOO_LARGE);
                break;
              }
              expect(r.baseOffset).to.equal(end());
              model.push({ base: r.baseOffset, last: r.lastOffset, values, size: encoded.length });
              break;
            }
            case 'roll':
              log.roll();
              break;
            case 'truncate': {
              const at = pick(op.at);
              await log.truncateTo(at);
              model = model.filter((b) => b.last < at);
              break;
            }
            case 'retention': {
              config = parseLogConfig({ 'retention.bytes': op.keepBytes }, config);
              log.updateConfig(config);
              log.highWatermark = pick(op.hw);
              await log.deleteOldSegments();
              const newStart = log.logStartOffset;
              expect(newStart).to.be.at.most(log.highWatermark);
              expect(newStart === end() || model.some((b) => b.base === newStart)).to.equal(true);
              // retention.bytes deletes a segment only when the log stays at least that large.
              if (newStart > start) expect(log.size).to.be.at.least(op.keepBytes);
              model = model.filter((b) => b.base >= newStart);
              start = newStart;
              break;
            }
            case 'flush':
              expect((await log.flush()).errorCode).to.equal(ErrorCode.NONE);
              expect(log.recoveryPoint).to.equal(end());
              break;
            case 'reopen': {
              const recoveryPoint = log.recoveryPoint;
              const hw = log.highWatermark;
              if (op.clean) {
                await log.flush();
                await log.close();
              } else {
                // A crash: nothing more is written; descriptors die with the process. (Checkpoint
                // writes already in flight are let finish, or the old and the new instance in this
                // one process would race on the same temp file.)
                await (log as unknown as { epochCache: { flushed(): Promise<void> } }).epochCache.flushed().catch(() => undefined);
                handles.closeAll();
                handles = new FileHandleCache(3);
              }
              log = await open(op.clean, op.clean ? end() : recoveryPoint, hw);
              break;
            }
            case 'tear': {
              // A crash that loses part of the unflushed tail of the active segment.
              const recoveryPoint = log.recoveryPoint;
              const hw = log.highWatermark;
              const bases = log.segmentBaseOffsets();
              const activeBase = bases[bases.length - 1]!;
              const unflushed = model.filter((b) => b.base >= Math.max(recoveryPoint, activeBase)).reduce((sum, b) => sum + b.size, 0);
              await (log as unknown as { epochCache: { flushed(): Promise<void> } }).epochCache.flushed().catch(() => undefined);
              handles.closeAll();
              handles = new FileHandleCache(3);
              const file = path.join(dir, String(activeBase).padStart(20, '0') + '.log');
              fs.truncateSync(file, fs.statSync(file).size - Math.floor(op.chop * unflushed));
              log = await open(false, recoveryPoint, hw);
              expect(log.logEndOffset).to.be.at.least(recoveryPoint);
              expect(log.logEndOffset === start || model.some((b) => b.last + 1 === log.logEndOffset)).to.equal(true);
              model = model.filter((b) => b.last < log.logEndOffset);
              break;
            }
            case 'read': {
              const at = pick(op.at);
              const r = await log.read(at, op.maxBytes);
              if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
              const decoded = decodeAll(r.records);
              if (at === end()) {
                expect(decoded.length).to.equal(0);
              } else {
                const first = model.find((b) => b.last >= at)!;
                expect(decoded[0]!.offset).to.equal(first.base);
                expect(r.records.length <= op.maxBytes || decoded.length === first.values.length).to.equal(true);
              }
              break;
            }
          }
          expect(log.logEndOffset).to.equal(end());
        }
        await checkAll();
        await log.close();
        handles.closeAll();
      }),
      { numRuns: Number(process.env.SAMSA_PROPERTY_RUNS ?? 40) },
    );
  });
});
