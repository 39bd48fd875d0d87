import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { MAX_WRITE_BYTES, writeAllGathered, writeFully } from '../../src/storage/segment-scanner.js';
import { cleanupTmpDirs, tmpDir } from './helpers.js';

describe('storage/segment-scanner: writeAllGathered', () => {
  const realWritev = fs.writevSync;
  const realWrite = fs.writeSync;
  afterEach(() => {
    fs.writevSync = realWritev;
    fs.writeSync = realWrite;
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

  it(`carries at most ${MAX_WRITE_BYTES / 1024} KiB a call: big gathers go in groups, a bigger buffer alone in pieces`, () => {
    const calls: { kind: string; bytes: number }[] = [];
    fs.writevSync = ((fd: number, buffers: readonly NodeJS.ArrayBufferView[], position?: number) => {
      calls.push({ kind: 'writev', bytes: buffers.reduce((a, b) => a + b.byteLength, 0) });
      return realWritev(fd, buffers, position);
    }) as typeof fs.writevSync;
    fs.writeSync = ((fd: number, buffer: NodeJS.ArrayBufferView, offset?: number, length?: number, position?: number | null) => {
      calls.push({ kind: 'write', bytes: length ?? buffer.byteLength });
      return (realWrite as (...a: unknown[]) => number)(fd, buffer, offset, length, position);
    }) as typeof fs.writeSync;
    const K16 = 16 * 1024;
    // 40 batches of 16 KiB, then one of 600 KiB, then 3 more: 256 + 256 + 128 KiB, the big one in 256 + 256 + 88, then 48 KiB
    const sizes = [...Array.from({ length: 40 }, () => K16), 600 * 1024, K16, K16, K16];
    const { file, expected } = writeAt(sizes, 5);
    expect(file.equals(expected)).to.equal(true);
    const written = calls.filter((c) => c.bytes > 5); // leave out writeAt's own 5-byte prefix
    expect(written.map((c) => `${c.kind} ${c.bytes / 1024}`)).to.deep.equal(['writev 256', 'writev 256', 'writev 128', 'write 256', 'write 256', 'write 88', 'writev 48']);
    for (const c of written) expect(c.bytes).to.be.at.most(MAX_WRITE_BYTES);
  });

  it('writeFully splits a long write the same way', () => {
    const sizes: number[] = [];
    fs.writeSync = ((fd: number, buffer: NodeJS.ArrayBufferView, offset?: number, length?: number, position?: number | null) => {
      sizes.push(length ?? buffer.byteLength);
      return (realWrite as (...a: unknown[]) => number)(fd, buffer, offset, length, position);
    }) as typeof fs.writeSync;
    const file = path.join(tmpDir('gather'), 'big.log');
    const fd = fs.openSync(file, 'w+');
    const buf = Buffer.alloc(MAX_WRITE_BYTES * 2 + 10, 0x42);
    try {
      writeFully(fd, buf, 3, buf.length - 3, 0);
    } finally {
      fs.closeSync(fd);
    }
    expect(sizes).to.deep.equal([MAX_WRITE_BYTES, MAX_WRITE_BYTES, 7]);
    expect(fs.readFileSync(file).equals(buf.subarray(3))).to.equal(true);
  });
});
