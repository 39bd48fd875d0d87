import { expect } from 'chai';
import { checkFor } from '../helpers/check-for.js';
import fs from 'node:fs';
import path from 'node:path';
import { LeaderEpochCache } from '../../src/storage/leader-epoch-cache.js';
import { captureLogger, cleanupTmpDirs, tmpDir } from './helpers.js';

describe('storage/leader-epoch-cache', () => {
  afterEach(cleanupTmpDirs);

  function cache(dir = tmpDir()): LeaderEpochCache {
    const c = new LeaderEpochCache(dir, captureLogger().logger);
    c.load();
    return c;
  }

  it('answers OffsetsForLeaderEpoch like Kafka', () => {
    const c = cache();
    expect(c.endOffsetFor(0, 10)).to.deep.equal({ leaderEpoch: -1, endOffset: -1 });
    c.assign(2, 0);
    c.assign(4, 30);
    c.assign(7, 55);
    expect(c.latestEpoch()).to.equal(7);
    expect(c.endOffsetFor(7, 80)).to.deep.equal({ leaderEpoch: 7, endOffset: 80 });
    expect(c.endOffsetFor(4, 80)).to.deep.equal({ leaderEpoch: 4, endOffset: 55 });
    expect(c.endOffsetFor(5, 80)).to.deep.equal({ leaderEpoch: 4, endOffset: 55 });
    expect(c.endOffsetFor(3, 80)).to.deep.equal({ leaderEpoch: 2, endOffset: 30 });
    expect(c.endOffsetFor(1, 80)).to.deep.equal({ leaderEpoch: 1, endOffset: 0 });
    expect(c.endOffsetFor(9, 80)).to.deep.equal({ leaderEpoch: -1, endOffset: -1 });
    expect(c.endOffsetFor(-1, 80)).to.deep.equal({ leaderEpoch: -1, endOffset: -1 });
  });

  it('ignores a repeated epoch and drops contradicted entries', () => {
    const c = cache();
    expect(c.assign(1, 0)).to.equal(true);
    expect(c.assign(1, 10)).to.equal(false);
    c.assign(3, 20);
    c.assign(5, 40);
    c.assign(4, 30);
    expect(c.entries()).to.deep.equal([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 20 },
      { epoch: 4, startOffset: 30 },
    ]);
    c.assign(6, 25);
    expect(c.entries()).to.deep.equal([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 20 },
      { epoch: 6, startOffset: 25 },
    ]);
  });

  it('truncates from the end and from the start', () => {
    const c = cache();
    c.assign(1, 0);
    c.assign(2, 10);
    c.assign(3, 20);
    c.truncateFromEnd(20);
    expect(c.entries().map((e) => e.epoch)).to.deep.equal([1, 2]);
    c.truncateFromStart(15);
    expect(c.entries()).to.deep.equal([{ epoch: 2, startOffset: 15 }]);
  });

  it('persists to leader-epoch-checkpoint and reloads', async () => {
    const dir = tmpDir();
    const c = cache(dir);
    c.assign(0, 0);
    c.assign(5, 100);
    await c.flushed();
    expect(fs.readFileSync(path.join(dir, 'leader-epoch-checkpoint'), 'utf8')).to.equal('0\n2\n0 0\n5 100\n');
    const again = cache(dir);
    expect(again.entries()).to.deep.equal(c.entries());
  });

  it('writes a new epoch only when flushed (no fsync per leadership), a truncation at once', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'leader-epoch-checkpoint');
    const c = cache(dir);
    c.assign(0, 0);
    c.assign(1, 10);
    await new Promise((r) => setTimeout(r, 20));
    expect(fs.existsSync(file)).to.equal(false);
    await c.flushed();
    expect(fs.readFileSync(file, 'utf8')).to.equal('0\n2\n0 0\n1 10\n');
    c.assign(2, 20);
    c.truncateFromEnd(5); // drops epochs 1 and 2: written without waiting for a flush
    await checkFor(() => fs.readFileSync(file, 'utf8') === '0\n1\n0 0\n');
    c.assign(3, 15);
    c.truncateFromStart(12); // the write carries the pending assignment along
    await checkFor(() => fs.readFileSync(file, 'utf8') === '0\n2\n0 12\n3 15\n');
    await c.flushed();
    expect(cache(dir).entries()).to.deep.equal([
      { epoch: 0, startOffset: 12 },
      { epoch: 3, startOffset: 15 },
    ]);
  });

  it('treats a malformed checkpoint as empty, with a warning', () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'leader-epoch-checkpoint'), '0\n3\n1 1\n');
    const { logger, entries } = captureLogger();
    const c = new LeaderEpochCache(dir, logger);
    c.load();
    expect(c.entries()).to.deep.equal([]);
    expect(entries.some((e) => e.level === 'warn')).to.equal(true);
  });
});
