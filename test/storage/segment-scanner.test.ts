import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { writeAllGathered } from '../../src/storage/segment-scanner.js';
import { cleanupTmpDirs, tmpDir } from './helpers.js';

describe('storage/segment-scanner: writeAllGathered', () => {
  const realWritev = fs.writevSync;
  afterEach(() => {
    fs.writevSync = realWritev;
    cleanupTmpDirs();
  });

  /** Buffers of the given sizes, each filled with its own byte. */
  function parts(sizes: number[]): Buffer[] {
    return sizes.map((n, i) => Buffer.alloc(n, 0x41 + (i % 26)));
  }

  function writeAt(sizes: number[], position: number): { file: Buffer; expected: Buffer } {
    const file = path.join(tmpDir('gather'), 'seg.log');
    const fd = fs.openSync(file, 'w+');
    try {
      fs.writeSync(fd, Buffer.alloc(position, 0x2e), 0, position, 0);
      const ps = parts(sizes);
      writeAllGathered(fd, ps, position);
      return { file: fs.readFileSync(file), expected: Buffer.concat([Buffer.alloc(position, 0x2e), ...ps]) };
    } finally {
      fs.closeSync(fd);
    }
  }

  it('writes every buffer back to back at the position, in one gathering write', () => {
    let calls = 0;
    fs.writevSync = ((fd: number, buffers: readonly NodeJS.ArrayBufferView[], position?: number) => {
      calls++;
      return realWritev(fd, buffers, position);
    }) as typeof fs.writevSync;
    const { file, expected } = writeAt([100, 3, 4096, 1], 10);
    expect(file.equals(expected)).to.equal(true);
    expect(calls).to.equal(1);
  });

  it('resumes after short writes, inside a buffer and at a buffer boundary', () => {
    // the kernel takes at most 150 bytes per call: the rest goes buffer by buffer
    fs.writevSync = ((fd: number, buffers: readonly NodeJS.ArrayBufferView[], position?: number) => {
      const first = buffers[0] as Uint8Array;
      return fs.writeSync(fd, first, 0, Math.min(150, first.byteLength), position);
    }) as typeof fs.writevSync;
    for (const sizes of [[100, 200, 50], [150, 150], [1000], [1, 2, 3]]) {
      const { file, expected } = writeAt(sizes, 7);
      expect(file.equals(expected), sizes.join(',')).to.equal(true);
    }
  });

  it('takes more buffers than one gathering write does (1,024 at most), in groups, in order', () => {
    const groups: number[] = [];
    fs.writevSync = ((fd: number, buffers: readonly NodeJS.ArrayBufferView[], position?: number) => {
      groups.push(buffers.length);
      return realWritev(fd, buffers, position);
    }) as typeof fs.writevSync;
    const { file, expected } = writeAt(Array.from({ length: 2_500 }, (_, i) => 1 + (i % 7)), 0);
    expect(file.equals(expected)).to.equal(true);
    expect(groups).to.deep.equal([1024, 1024, 452]);
  });
});
