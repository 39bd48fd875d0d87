import { expect } from 'chai';
import { entryBatches, entryRecords, isBatchList, joinBatches } from '../../src/protocol/batch-parts.js';

describe('protocol/batch-parts', () => {
  it('joins batches that lie side by side in one buffer as a view, without copying', () => {
    const frame = Buffer.from('xxAAABBBBCCyy');
    const parts = [frame.subarray(2, 5), frame.subarray(5, 9), frame.subarray(9, 11)];
    const out = joinBatches(parts);
    expect(out.toString()).to.equal('AAABBBBCC');
    expect(out.buffer).to.equal(frame.buffer);
    frame[2] = 0x7a; // a view: the frame's bytes show through
    expect(out.toString()).to.equal('zAABBBBCC');
  });

  it('copies batches that are not side by side (a gap, another buffer, or out of order) into one new buffer', () => {
    const frame = Buffer.from('AAA-BBB');
    const gap = joinBatches([frame.subarray(0, 3), frame.subarray(4, 7)]);
    expect(gap.toString()).to.equal('AAABBB');
    const other = joinBatches([Buffer.from('AA'), Buffer.from('BB')]);
    expect(other.toString()).to.equal('AABB');
    const swapped = joinBatches([frame.subarray(4, 7), frame.subarray(0, 3)]);
    expect(swapped.toString()).to.equal('BBBAAA');
    frame[0] = 0x7a;
    expect(gap.toString()).to.equal('AAABBB');
  });

  it('joins one batch to itself and no batches to nothing', () => {
    const one = Buffer.from('only');
    expect(joinBatches([one]).toString()).to.equal('only');
    expect(joinBatches([]).length).to.equal(0);
  });

  it('takes only non-empty lists of byte buffers', () => {
    expect(isBatchList([Buffer.from('a'), new Uint8Array(2)])).to.equal(true);
    expect(isBatchList([])).to.equal(false);
    expect(isBatchList([Buffer.from('a'), 'b'])).to.equal(false);
    expect(isBatchList(Buffer.from('a'))).to.equal(false);
    expect(isBatchList(null)).to.equal(false);
  });

  it('makes a Produce entry one buffer: a list joined, one buffer or anything else as it is', () => {
    const one = Buffer.from('one');
    expect(entryRecords(one)).to.equal(one);
    expect(Buffer.from(entryRecords([Buffer.from('a'), Buffer.from('b')])).toString()).to.equal('ab');
    const bad = [Buffer.from('a'), 'b'] as unknown as Uint8Array[];
    expect(entryRecords(bad)).to.equal(bad);
  });

  it('gives the log a Produce entry without copying: one buffer, side-by-side batches as a view, batches apart as the list', () => {
    const one = Buffer.from('one');
    expect(entryBatches(one)).to.equal(one);
    expect(entryBatches([one])).to.equal(one);
    const frame = Buffer.from('xAABBBy');
    const side = entryBatches([frame.subarray(1, 3), frame.subarray(3, 6)]) as Buffer;
    expect(side.toString()).to.equal('AABBB');
    expect(side.buffer).to.equal(frame.buffer);
    const apart = [Buffer.from('AA'), Buffer.from('BB')];
    expect(entryBatches(apart)).to.equal(apart);
    const gap = [frame.subarray(1, 3), frame.subarray(4, 6)];
    expect(entryBatches(gap)).to.equal(gap);
    const bad = [Buffer.from('a'), 'b'] as unknown as Uint8Array[];
    expect(entryBatches(bad)).to.equal(bad);
  });
});
