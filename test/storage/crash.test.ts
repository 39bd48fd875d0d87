import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { iterateBatches, validateBatch } from '../../src/protocol/batch-header.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { expectedValue } from '../fixtures/storage/crash-content.js';
import { batch, captureLogger, cleanupTmpDirs, decodeAll, tmpDir } from './helpers.js';

const WRITER = path.join('test', 'fixtures', 'storage', 'crash-writer.ts');

/** Runs the writer until it has flushed for `runMs` after its first flush, then SIGKILLs it. */
function runAndKill(logDir: string, runMs: number): Promise<{ flushed: number; started: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, logDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SAMSA_LOG_LEVEL: 'error' },
    });
    let flushed = -1;
    let started = -1;
    let pending = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
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
          timer ??= setTimeout(() => child.kill('SIGKILL'), runMs);
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
});
