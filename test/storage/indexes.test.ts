import { expect } from 'chai';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { OffsetIndex } from '../../src/storage/offset-index.js';
import { TimeIndex } from '../../src/storage/time-index.js';
import { cleanupTmpDirs, tmpDir } from './helpers.js';

describe('storage/offset-index', () => {
  afterEach(cleanupTmpDirs);

  it('looks up the floor entry by binary search', () => {
    const idx = new OffsetIndex(path.join(tmpDir(), 'x.index'), 100, 1000);
    expect(idx.lookupPosition(150)).to.equal(0);
    idx.append(110, 4100);
    idx.append(130, 8300);
    idx.append(170, 12500);
    expect(idx.lookupPosition(100)).to.equal(0);
    expect(idx.lookupPosition(109)).to.equal(0);
    expect(idx.lookupPosition(110)).to.equal(4100);
    expect(idx.lookupPosition(129)).to.equal(4100);
    expect(idx.lookupPosition(130)).to.equal(8300);
    expect(idx.lookupPosition(1_000_000)).to.equal(12500);
    expect(idx.floorSlot(99)).to.equal(-1);
    expect(idx.offsetAt(2)).to.equal(170);
  });

  it('rejects entries that do not increase and a full index', () => {
    const idx = new OffsetIndex(path.join(tmpDir(), 'x.index'), 0, 2);
    idx.append(5, 100);
    expect(() => idx.append(5, 200)).to.throw();
    expect(() => idx.append(6, 100)).to.throw();
    idx.append(6, 200);
    expect(idx.isFull()).to.equal(true);
    expect(() => idx.append(7, 300)).to.throw();
  });

  it('persists incrementally, truncates the file after a truncation, and reloads', () => {
    const file = path.join(tmpDir(), 'x.index');
    const idx = new OffsetIndex(file, 1000, 100);
    for (let i = 1; i <= 10; i++) idx.append(1000 + i * 10, i * 4096);
    idx.persist();
    expect(fs.statSync(file).size).to.equal(80);
    idx.append(1110, 11 * 4096);
    idx.persist();
    expect(fs.statSync(file).size).to.equal(88);
    idx.truncateTo(1050);
    expect(idx.entries).to.equal(4);
    idx.append(1060, 5 * 4096 + 7);
    expect(idx.isDirty()).to.equal(true);
    idx.persist();
    expect(idx.isDirty()).to.equal(false);
    expect(fs.statSync(file).size).to.equal(40);
    const again = new OffsetIndex(file, 1000, 100);
    expect(again.load(1 << 20)).to.equal(null);
    expect(again.entries).to.equal(5);
    expect(again.positionAt(4)).to.equal(5 * 4096 + 7);
    expect(again.lookupPosition(1065)).to.equal(5 * 4096 + 7);
  });

  it('reports damaged or missing files', () => {
    const file = path.join(tmpDir(), 'x.index');
    const idx = new OffsetIndex(file, 0, 100);
    expect(idx.load(100)).to.contain('missing');
    fs.writeFileSync(file, Buffer.alloc(7));
    expect(idx.load(100)).to.contain('multiple');
    const b = Buffer.alloc(16);
    b.writeInt32BE(5, 0);
    b.writeInt32BE(50, 4);
    b.writeInt32BE(4, 8);
    b.writeInt32BE(60, 12);
    fs.writeFileSync(file, b);
    expect(idx.load(100)).to.contain('out of order');
    expect(idx.entries).to.equal(0);
    b.writeInt32BE(6, 8);
    b.writeInt32BE(600, 12);
    fs.writeFileSync(file, b);
    expect(idx.load(100)).to.contain('beyond');
    expect(idx.load(1000)).to.equal(null);
  });

  it('agrees with a linear scan (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 100000 }), { maxLength: 200 }), fc.array(fc.integer({ min: -10, max: 100010 })), (offsets, probes) => {
        const sorted = [...offsets].sort((a, b) => a - b);
        const idx = new OffsetIndex('/nonexistent', 0, 1000);
        sorted.forEach((o, i) => idx.append(o, i * 10));
        for (const p of probes) {
          let expected = 0;
          sorted.forEach((o, i) => {
            if (o <= p) expected = i * 10;
          });
          expect(idx.lookupPosition(p)).to.equal(expected);
        }
      }),
    );
  });
});

describe('storage/time-index', () => {
  afterEach(cleanupTmpDirs);

  it('only appends increasing timestamps and finds where to start scanning', () => {
    const idx = new TimeIndex(path.join(tmpDir(), 'x.timeindex'), 100, 100);
    expect(idx.lookupStartOffset(5)).to.equal(100);
    idx.maybeAppend(1000, 110);
    idx.maybeAppend(1000, 120);
    idx.maybeAppend(900, 130);
    idx.maybeAppend(2000, 140);
    expect(idx.entries).to.equal(2);
    expect(idx.lookupStartOffset(999)).to.equal(100);
    expect(idx.lookupStartOffset(1000)).to.equal(100);
    expect(idx.lookupStartOffset(1001)).to.equal(110);
    expect(idx.lookupStartOffset(5000)).to.equal(140);
    expect(idx.lastTimestamp()).to.equal(2000);
  });

  it('persists 12-byte big-endian entries with large timestamps and reloads them', () => {
    const file = path.join(tmpDir(), 'x.timeindex');
    const idx = new TimeIndex(file, 5, 100);
    idx.maybeAppend(1_700_000_000_123, 7);
    idx.maybeAppend(2 ** 42 + 3, 9);
    idx.persist();
    const raw = fs.readFileSync(file);
    expect(raw.length).to.equal(24);
    expect(raw.readBigInt64BE(0)).to.equal(1_700_000_000_123n);
    expect(raw.readInt32BE(8)).to.equal(2);
    const again = new TimeIndex(file, 5, 100);
    expect(again.load(100)).to.equal(null);
    expect(again.timestampAt(1)).to.equal(2 ** 42 + 3);
    expect(again.offsetAt(1)).to.equal(9);
    expect(new TimeIndex(file, 5, 100).load(8)).to.contain('beyond');
    idx.truncateTo(9);
    idx.persist();
    expect(fs.statSync(file).size).to.equal(12);
  });

  it('replaces the last entry when forced into a full index', () => {
    const idx = new TimeIndex('/nonexistent', 0, 1);
    idx.maybeAppend(10, 1);
    expect(() => idx.maybeAppend(20, 2)).to.throw();
    idx.maybeAppend(30, 3, true);
    expect(idx.entries).to.equal(1);
    expect(idx.timestampAt(0)).to.equal(30);
    expect(idx.offsetAt(0)).to.equal(3);
  });
});
