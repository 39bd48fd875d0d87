import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import {
  CheckpointError,
  CheckpointWriter,
  formatEpochCheckpoint,
  formatOffsetCheckpoint,
  parseEpochCheckpoint,
  parseOffsetCheckpoint,
  readTextIfExists,
  writeFileAtomic,
  writeFileAtomicSync,
} from '../../src/storage/checkpoint.js';
import { cleanupTmpDirs, tmpDir } from './helpers.js';

describe('storage/checkpoint', () => {
  afterEach(cleanupTmpDirs);

  it("writes offset checkpoints in Kafka's text format", () => {
    const text = formatOffsetCheckpoint([
      { topic: 'orders', partition: 0, offset: 42 },
      { topic: 'a.b_c-d', partition: 17, offset: 0 },
    ]);
    expect(text).to.equal('0\n2\norders 0 42\na.b_c-d 17 0\n');
    expect(parseOffsetCheckpoint('f', text)).to.deep.equal([
      { topic: 'orders', partition: 0, offset: 42 },
      { topic: 'a.b_c-d', partition: 17, offset: 0 },
    ]);
    expect(formatOffsetCheckpoint([])).to.equal('0\n0\n');
    expect(parseOffsetCheckpoint('f', '0\n0\n')).to.deep.equal([]);
  });

  it("writes leader epoch checkpoints in Kafka's text format", () => {
    const text = formatEpochCheckpoint([
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 120 },
    ]);
    expect(text).to.equal('0\n2\n0 0\n3 120\n');
    expect(parseEpochCheckpoint('f', text)).to.deep.equal([
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 120 },
    ]);
  });

  const malformed = ['', '1\n0\n', '0\n2\nt 0 1\n', '0\nx\n', '0\n1\nt 0\n', '0\n1\nt zero 1\n', '0\n1\nt 0 1 2\n'];
  for (const text of malformed) {
    it(`rejects malformed offset checkpoint ${JSON.stringify(text)}`, () => {
      expect(() => parseOffsetCheckpoint('f', text)).to.throw(CheckpointError);
    });
  }

  it('rejects malformed epoch checkpoints', () => {
    expect(() => parseEpochCheckpoint('f', '0\n1\n1 2 3\n')).to.throw(CheckpointError);
    expect(() => parseEpochCheckpoint('f', '0\n2\n1 2\n')).to.throw(CheckpointError);
  });

  it('writes atomically and leaves no temp file', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'cp');
    await writeFileAtomic(file, 'one');
    writeFileAtomicSync(file, 'two');
    expect(fs.readFileSync(file, 'utf8')).to.equal('two');
    await writeFileAtomic(file, 'three');
    expect(readTextIfExists(file)).to.equal('three');
    expect(fs.readdirSync(dir)).to.deep.equal(['cp']);
    expect(readTextIfExists(path.join(dir, 'missing'))).to.equal(null);
  });

  it('coalesces bursts of writes and always ends with the newest content', async () => {
    const dir = tmpDir();
    const writer = new CheckpointWriter(path.join(dir, 'cp'));
    let renders = 0;
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      writes.push(
        writer.write(() => {
          renders++;
          return String(i);
        }),
      );
    }
    await Promise.all(writes);
    await writer.idle();
    expect(fs.readFileSync(path.join(dir, 'cp'), 'utf8')).to.equal('49');
    expect(renders).to.be.at.most(2);
  });

  it('reports a failed write and keeps working afterwards', async () => {
    const dir = tmpDir();
    const writer = new CheckpointWriter(path.join(dir, 'no-such-dir', 'cp'));
    let failed = false;
    await writer.write(() => 'x').catch(() => (failed = true));
    expect(failed).to.equal(true);
    await writer.idle();
  });
});
