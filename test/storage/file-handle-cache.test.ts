import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { FileHandle, FileHandleCache } from '../../src/storage/file-handle-cache.js';
import { cleanupTmpDirs, openFdCount, tmpDir } from './helpers.js';

describe('storage/file-handle-cache', () => {
  afterEach(cleanupTmpDirs);

  function files(n: number): string[] {
    const dir = tmpDir();
    return Array.from({ length: n }, (_, i) => {
      const f = path.join(dir, `f${i}`);
      fs.writeFileSync(f, `file ${i}`);
      return f;
    });
  }

  it('keeps at most maxOpen descriptors, evicting the least recently used', () => {
    const cache = new FileHandleCache(3);
    const evicted: number[] = [];
    const handles = files(5).map((f, i) => new FileHandle(f, () => evicted.push(i)));
    const before = openFdCount();
    cache.fd(handles[0]!);
    cache.fd(handles[1]!);
    cache.fd(handles[2]!);
    cache.fd(handles[0]!);
    cache.fd(handles[3]!);
    expect(evicted).to.deep.equal([1]);
    expect(cache.openCount).to.equal(3);
    if (before >= 0) expect(openFdCount() - before).to.equal(3);
    cache.fd(handles[4]!);
    expect(evicted).to.deep.equal([1, 2]);
    const buf = Buffer.alloc(6);
    fs.readSync(cache.fd(handles[1]!), buf, 0, 6, 0);
    expect(buf.toString()).to.equal('file 1');
    cache.closeAll();
    expect(cache.openCount).to.equal(0);
    if (before >= 0) expect(openFdCount()).to.equal(before);
  });

  it('keeps recency order through releases, reopens and closeAll with a pinned handle', () => {
    const cache = new FileHandleCache(3);
    const evicted: number[] = [];
    const [a, b, c, d] = files(4).map((f, i) => new FileHandle(f, () => evicted.push(i)));
    cache.fd(a!);
    cache.fd(b!);
    cache.fd(c!);
    cache.release(b!); // out of the middle of the list
    expect(b!.fd).to.equal(-1);
    expect(cache.openCount).to.equal(2);
    cache.fd(b!); // reopened: now the most recent
    cache.fd(a!); // order, oldest first: c, b, a
    cache.fd(d!);
    expect(evicted).to.deep.equal([2]);
    cache.fd(c!);
    expect(evicted).to.deep.equal([2, 1]);
    cache.pin(a!);
    cache.closeAll();
    expect(cache.openCount).to.equal(1);
    expect(a!.fd).to.be.at.least(0);
    cache.unpin(a!);
    cache.closeAll();
    expect(cache.openCount).to.equal(0);
    expect(cache.stats()).to.deep.include({ open: 0, opened: 6, evicted: 2 });
  });

  it('never evicts a pinned handle and closes a retired one at unpin', () => {
    const cache = new FileHandleCache(1);
    const [a, b] = files(2).map((f) => new FileHandle(f));
    cache.pin(a!);
    cache.fd(b!);
    expect(a!.fd).to.be.at.least(0);
    expect(cache.openCount).to.equal(2);
    cache.retire(a!);
    expect(a!.fd).to.be.at.least(0);
    cache.unpin(a!);
    expect(a!.fd).to.equal(-1);
    expect(() => cache.fd(a!)).to.throw();
    expect(() => cache.unpin(b!)).to.throw();
    expect(() => new FileHandleCache(0)).to.throw(RangeError);
  });
});
