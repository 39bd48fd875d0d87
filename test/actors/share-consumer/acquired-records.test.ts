import { expect } from 'chai';
import { AcquiredRecords, type AcquiredRange } from '../../../actors/share-consumer/acquired-records.js';
import type { ShareConsumedRecord } from '../../../actors/share-consumer/messages.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';

/** A batch at `base` holding records at the given offsets (holes: compacted away). */
function batch(base: number, offsets: number[]): Buffer {
  return encodeRecordBatch({ baseOffset: base, records: offsets.map((o) => ({ value: Buffer.from(`v${o}`), offsetDelta: o - base })) });
}

function marker(offset: number): Buffer {
  return encodeRecordBatch({ baseOffset: offset, control: true, transactional: true, producerId: 7, records: [{ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }] });
}

const range = (firstOffset: number, lastOffset: number, deliveryCount = 1): AcquiredRange => ({ firstOffset, lastOffset, deliveryCount });

function takeAll(a: AcquiredRecords, step = Infinity): { offsets: number[]; gaps: number[]; records: ShareConsumedRecord[] } {
  const records: ShareConsumedRecord[] = [];
  const gaps: number[] = [];
  for (let i = 0; i < 1000 && !a.done; i++) a.take(step, records, gaps);
  return { offsets: records.map((r) => r.offset), gaps, records };
}

describe('actors/share-consumer/acquired-records', () => {
  it('hands out the records of the acquired ranges in offset order, each as the consumer record with its range delivery count', () => {
    const bytes = Buffer.concat([batch(0, [0, 1, 2, 3]), batch(4, [4, 5, 6, 7])]);
    const a = new AcquiredRecords('t', 3, bytes, [range(5, 6, 2), range(1, 2, 1)], false, 1_000);
    const { offsets, gaps, records } = takeAll(a);
    expect(offsets).to.deep.equal([1, 2, 5, 6]);
    expect(gaps).to.deep.equal([]);
    expect(records.map((r) => [r.topic, r.partition, r.deliveryCount, r.value!.toString()])).to.deep.equal([
      ['t', 3, 1, 'v1'],
      ['t', 3, 1, 'v2'],
      ['t', 3, 2, 'v5'],
      ['t', 3, 2, 'v6'],
    ]);
    expect(a.done).to.equal(true);
    expect(a.lockDeadline).to.equal(1_000);
  });

  it('takes at most the number asked for, going on where the last take stopped (inside a batch and across batches)', () => {
    const bytes = Buffer.concat([batch(0, [0, 1, 2, 3, 4]), batch(5, [5, 6, 7])]);
    const a = new AcquiredRecords('t', 0, bytes, [range(0, 7)], false, 0);
    const out: ShareConsumedRecord[] = [];
    const gaps: number[] = [];
    expect(a.take(3, out, gaps)).to.equal(3);
    expect(a.done).to.equal(false);
    expect(a.take(3, out, gaps)).to.equal(3);
    expect(a.take(3, out, gaps)).to.equal(2);
    expect(a.done).to.equal(true);
    expect(out.map((r) => r.offset)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(a.take(3, out, gaps)).to.equal(0);
  });

  it('offsets of a range without a record are gaps: compacted away, a transaction marker, past the fetched bytes', () => {
    const bytes = Buffer.concat([batch(0, [0, 2, 3]), marker(4), batch(5, [5, 7])]);
    const a = new AcquiredRecords('t', 0, bytes, [range(0, 9)], false, 0);
    const { offsets, gaps } = takeAll(a, 2);
    expect(offsets).to.deep.equal([0, 2, 3, 5, 7]);
    expect(gaps).to.deep.equal([1, 4, 6, 8, 9]);
  });

  it('a range holding only a marker is all gaps, and is done after one take', () => {
    const a = new AcquiredRecords('t', 0, marker(4), [range(4, 4)], false, 0);
    const out: ShareConsumedRecord[] = [];
    const gaps: number[] = [];
    expect(a.take(10, out, gaps)).to.equal(0);
    expect(gaps).to.deep.equal([4]);
    expect(a.done).to.equal(true);
  });

  it('records outside the ranges are not handed out, nor taken for gaps', () => {
    const bytes = Buffer.concat([batch(0, [0, 1, 2]), batch(3, [3, 4, 5]), batch(6, [6, 7, 8])]);
    const a = new AcquiredRecords('t', 0, bytes, [range(4, 4), range(7, 8)], false, 0);
    const { offsets, gaps } = takeAll(a);
    expect(offsets).to.deep.equal([4, 7, 8]);
    expect(gaps).to.deep.equal([]);
  });

  it('no ranges: done at once, nothing handed out', () => {
    const a = new AcquiredRecords('t', 0, batch(0, [0, 1]), [], false, 0);
    expect(a.done).to.equal(true);
    expect(takeAll(a).offsets).to.deep.equal([]);
  });

  it('rest hands out everything left; abandon gives the offsets left (records and gaps alike)', () => {
    const bytes = Buffer.concat([batch(0, [0, 1, 3]), batch(4, [4, 5])]);
    const a = new AcquiredRecords('t', 0, bytes, [range(0, 6)], false, 0);
    const out: ShareConsumedRecord[] = [];
    a.take(1, out, []);
    const gaps: number[] = [];
    expect(a.rest(gaps).map((r) => r.offset)).to.deep.equal([1, 3, 4, 5]);
    expect(gaps).to.deep.equal([2, 6]);
    expect(a.done).to.equal(true);

    const b = new AcquiredRecords('t', 0, bytes, [range(0, 2), range(4, 6)], false, 0);
    b.take(2, [], []);
    expect(b.abandon()).to.deep.equal([2, 4, 5, 6]);
    expect(b.done).to.equal(true);
  });

  it('counts what take hands out, for the metrics: its records, and the bytes of each batch they came from, once; not what rest gives back', () => {
    const b0 = batch(0, [0, 1, 2]);
    const b1 = batch(3, [3, 4]);
    const b2 = batch(5, [5, 6]);
    const a = new AcquiredRecords('t', 0, Buffer.concat([b0, b1, b2]), [range(1, 6)], false, 0);
    expect([a.recordsTaken, a.bytesTaken]).to.deep.equal([0, 0]);
    a.take(1, [], []);
    expect([a.recordsTaken, a.bytesTaken]).to.deep.equal([1, b0.length]);
    // the rest of the first batch and the first record of the second: each batch once
    a.take(2, [], []);
    expect([a.recordsTaken, a.bytesTaken]).to.deep.equal([3, b0.length + b1.length]);
    // given back to the group: not the application's
    expect(a.rest([]).map((r) => r.offset)).to.deep.equal([4, 5, 6]);
    expect([a.recordsTaken, a.bytesTaken]).to.deep.equal([3, b0.length + b1.length]);
  });

  it('a damaged batch throws at the take that reaches it, with check.crcs; the records before it were handed out', () => {
    const good = batch(0, [0, 1]);
    const bad = batch(2, [2, 3]);
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 0xff;
    const a = new AcquiredRecords('t', 0, Buffer.concat([good, bad]), [range(0, 3)], true, 0);
    const out: ShareConsumedRecord[] = [];
    expect(a.take(2, out, [])).to.equal(2);
    expect(() => a.take(2, out, [])).to.throw(/crc|corrupt/i);
    expect(a.abandon()).to.deep.equal([2, 3]);
  });
});
