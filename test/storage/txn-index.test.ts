import { expect } from 'chai';
import { setBaseOffset } from '../../src/protocol/batch-header.js';
import { ControlType, encodeTxnMarker } from '../../src/protocol/control-records.js';
import { encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { TransactionIndex } from '../../src/storage/txn-index.js';

/** A batch of `n` records at `offset`: transactional of `pid` when given, else plain. */
function data(offset: number, n: number, pid: number | null): Buffer {
  const b = encodeRecordBatch({
    transactional: pid !== null,
    producerId: pid ?? -1,
    producerEpoch: pid !== null ? 0 : -1,
    baseSequence: pid !== null ? 0 : -1,
    records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`) })),
  });
  setBaseOffset(b, 0, offset);
  return b;
}

function marker(offset: number, pid: number, type: 0 | 1): Buffer {
  const b = encodeTxnMarker({ producerId: pid, producerEpoch: 0, type, coordinatorEpoch: 0, timestamp: 0 });
  setBaseOffset(b, 0, offset);
  return b;
}

describe('storage/txn-index', () => {
  it('open -> committed: the first unstable offset is the open transaction\'s first offset until its COMMIT marker', () => {
    const t = new TransactionIndex();
    t.observe(data(0, 2, null), 0);
    expect(t.firstUnstableOffset).to.equal(null);
    expect(t.lastStableOffset(2)).to.equal(2);
    t.observe(data(2, 3, 7), 0);
    t.observe(data(5, 1, 7), 0); // more of the same transaction: it still starts at 2
    expect(t.firstUnstableOffset).to.equal(2);
    expect(t.lastStableOffset(6)).to.equal(2);
    expect(t.lastStableOffset(1), 'never above the high watermark').to.equal(1);
    t.observe(marker(6, 7, ControlType.COMMIT), 0);
    expect(t.firstUnstableOffset).to.equal(null);
    expect(t.lastStableOffset(7)).to.equal(7);
    expect(t.abortedCount).to.equal(0);
  });

  it('open -> aborted: the aborted transaction is listed for reads that overlap it', () => {
    const t = new TransactionIndex();
    t.observe(data(0, 2, 7), 0); // 0-1
    t.observe(data(2, 2, 8), 0); // 2-3, another producer
    expect(t.firstUnstableOffset).to.equal(0);
    t.observe(marker(4, 7, ControlType.ABORT), 0);
    expect(t.firstUnstableOffset, 'producer 8 is still open').to.equal(2);
    t.observe(marker(5, 8, ControlType.COMMIT), 0);
    expect(t.abortedBetween(0, 6)).to.deep.equal([{ producerId: 7, firstOffset: 0, lastOffset: 4 }]);
    expect(t.abortedBetween(4, 6), 'ends at the marker').to.have.length(1);
    expect(t.abortedBetween(5, 6)).to.deep.equal([]);
    expect(t.abortedBetween(0, 0), 'starts at or after the end of the read').to.deep.equal([]);
  });

  it('a marker of a transaction that wrote nothing here, or of an unknown control type, changes nothing', () => {
    const t = new TransactionIndex();
    t.observe(marker(0, 9, ControlType.ABORT), 0);
    expect(t.abortedCount).to.equal(0);
    t.observe(data(1, 1, 9), 0);
    const odd = encodeRecordBatch({ control: true, transactional: true, producerId: 9, records: [{ key: Buffer.from([0, 0, 0, 4]), value: null }] });
    setBaseOffset(odd, 0, 2);
    t.observe(odd, 0);
    expect(t.firstUnstableOffset).to.equal(1);
  });

  it('finds the aborted transactions of a range among many, and drops those below a new log start', () => {
    const t = new TransactionIndex();
    let offset = 0;
    for (let i = 0; i < 50; i++) {
      t.observe(data(offset, 2, i), 0);
      t.observe(marker(offset + 2, i, i % 2 === 0 ? ControlType.ABORT : ControlType.COMMIT), 0);
      offset += 3;
    }
    expect(t.abortedCount).to.equal(25);
    // transaction i spans [3i, 3i+2]; aborted for even i
    expect(t.abortedBetween(30, 37).map((a) => a.producerId)).to.deep.equal([10, 12]);
    t.dropBefore(32);
    expect(t.abortedBetween(0, 150)[0]).to.deep.equal({ producerId: 10, firstOffset: 30, lastOffset: 32 });
    t.dropBefore(33);
    expect(t.abortedBetween(0, 150)[0]!.producerId).to.equal(12);
    t.clear();
    expect(t.abortedCount).to.equal(0);
  });

  it("a snapshot's text reads back as the same index for the same log end, and as nothing for another end or broken text", () => {
    const t = new TransactionIndex();
    t.observe(data(0, 2, 5), 0);
    t.observe(marker(2, 5, ControlType.ABORT), 0);
    t.observe(data(3, 1, 6), 0);
    const text = t.snapshotText(4);
    expect(TransactionIndex.fromSnapshotText(text, 4)?.snapshot()).to.deep.equal(t.snapshot());
    expect(TransactionIndex.fromSnapshotText(text, 5)).to.equal(null);
    expect(TransactionIndex.fromSnapshotText(text.slice(0, -3), 4)).to.equal(null);
    expect(TransactionIndex.fromSnapshotText(null, 4)).to.equal(null);
  });
});
