import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { iterateBatches, validateBatch } from '../../src/protocol/batch-header.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { decodeRecordBatches } from '../../src/protocol/record-batch.js';
import { COMPACT_KEYS, expectedValue } from '../fixtures/storage/crash-content.js';
import { batch, captureLogger, cleanupTmpDirs, decodeAll, tmpDir } from './helpers.js';

const WRITER = path.join('test', 'fixtures', 'storage', 'crash-writer.ts');
const COMPACT_WRITER = path.join('test', 'fixtures', 'storage', 'compact-writer.ts');

/**
 * Runs the writer until it has flushed for `runMs` after its first flush, then SIGKILLs it; with
 * `inPassMs`, the kill comes that long after the first cleaning pass starts once `runMs` is up.
 */
function runAndKill(logDir: string, runMs: number, writer = WRITER, inPassMs?: number): Promise<{ flushed: number; started: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, logDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SAMSA_LOG_LEVEL: 'error' },
    });
    let flushed = -1;
    let started = -1;
    let pending = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    let due = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const [kind, value] = line.split(' ');
        if (kind === 'S') started = Number(value);
        if (kind === 'F') {
          flushed = Math.max(flushed, Number(value));
          timer ??= setTimeout(() => (inPassMs === undefined ? child.kill('SIGKILL') : (due = true)), runMs);
        }
        if (kind === 'C' && due) {
          due = false;
          setTimeout(() => child.kill('SIGKILL'), inPassMs);
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${signal ?? _code}): ${stderr}`));
      else resolve({ flushed, started });
    });
  });
}

describe('storage/crash', () => {
  afterEach(cleanupTmpDirs);

  it('keeps every flushed offset intact across SIGKILLs, and never returns a corrupt batch', async function () {
    this.timeout(30_000);
    const logDir = tmpDir('crash');
    let reported = 0;
    const iterations = 4;
    for (let i = 0; i < iterations; i++) {
      const { flushed, started } = await runAndKill(logDir, 50 + Math.floor(Math.random() * 300));
      expect(started).to.be.at.least(reported);
      expect(flushed).to.be.greaterThan(started);
      reported = Math.max(reported, flushed);
      if (i % 2 === 1) {
        // Power-loss flavour: a torn write, part of a batch left at the end of the active segment.
        const dir = path.join(logDir, 'crash-0');
        const active = fs.readdirSync(dir).filter((n) => n.endsWith('.log')).sort().pop()!;
        const torn = batch(['torn'.repeat(50)]);
        fs.appendFileSync(path.join(dir, active), torn.subarray(0, 1 + Math.floor(Math.random() * (torn.length - 1))));
      }

      const manager = await LogManager.open({ logDir, logger: captureLogger().logger, schedule: false });
      const log = manager.getLog('crash', 0)!;
      expect(log.logEndOffset).to.be.at.least(reported);
      let offset = 0;
      while (offset < log.logEndOffset) {
        const r = await log.read(offset, 256 * 1024);
        if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
        for (const frame of iterateBatches(r.records)) expect(validateBatch(r.records, frame.pos)).to.equal(null);
        const records = decodeAll(r.records);
        expect(records.length).to.be.greaterThan(0);
        for (const rec of records) {
          expect(rec.offset).to.equal(offset);
          expect(rec.value).to.equal(expectedValue(rec.offset));
          offset++;
        }
      }
      expect(offset).to.equal(log.logEndOffset);
      await manager.close();
    }
  });

  it('a compacted log killed at any step of a cleaning pass reopens whole: nothing invented, every key\'s latest flushed record kept', async function () {
    this.timeout(60_000);
    const logDir = tmpDir('crash-compact');
    let reported = 0;
    let removedSomewhere = false;
    for (let i = 0; i < 6; i++) {
      // every other round, the kill lands 0-4 ms into a cleaning pass
      const inPass = i % 2 === 1 ? Math.random() * 4 : undefined;
      const { flushed, started } = await runAndKill(logDir, 200 + Math.floor(Math.random() * 600), COMPACT_WRITER, inPass);
      expect(started).to.be.at.least(reported);
      reported = Math.max(reported, flushed);
      const manager = await LogManager.open({ logDir, logger: captureLogger().logger, schedule: false });
      const log = manager.getLog('compact', 0)!;
      const dir = path.join(logDir, 'compact-0');
      expect(fs.readdirSync(dir).filter((n) => n.endsWith('.cleaned') || n.endsWith('.swap'))).to.deep.equal([]);
      expect(log.logEndOffset).to.be.at.least(reported);
      const latest = new Map<string, number>();
      let offset = 0;
      let previous = -1;
      let count = 0;
      while (offset < log.logEndOffset) {
        const r = await log.read(offset, 256 * 1024);
        if (r.errorCode !== ErrorCode.NONE) throw new Error(r.reason);
        if (r.records.length === 0) break;
        for (const frame of iterateBatches(r.records)) expect(validateBatch(r.records, frame.pos)).to.equal(null);
        for (const b of decodeRecordBatches(r.records)) {
          for (const rec of b.records) {
            expect(rec.offset).to.be.greaterThan(previous);
            expect(String(rec.key)).to.equal(`key-${rec.offset % COMPACT_KEYS}`);
            expect(String(rec.value)).to.equal(expectedValue(rec.offset));
            latest.set(String(rec.key), rec.offset);
            previous = rec.offset;
            count++;
          }
          offset = b.baseOffset + b.lastOffsetDelta + 1;
        }
      }
      if (count < log.logEndOffset) removedSomewhere = true;
      // every key's newest record below what was reported flushed is there
      for (let k = 0; k < COMPACT_KEYS; k++) {
        const newest = Math.floor((reported - 1 - k) / COMPACT_KEYS) * COMPACT_KEYS + k;
        if (newest >= 0) expect(latest.get(`key-${k}`), `key-${k}`).to.be.at.least(newest);
      }
      await manager.close();
    }
    expect(removedSomewhere).to.equal(true);
  });
});
