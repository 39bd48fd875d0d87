import { expect } from 'chai';
import { PendingAcks } from '../../../actors/share-consumer/pending-acks.js';
import { AcknowledgeType } from '../../../actors/share-partition/share-partition-state.js';

const { Accept, Release, Reject, Gap, Renew } = AcknowledgeType;

function acks(list: [number, number][]): PendingAcks {
  const p = new PendingAcks();
  for (const [o, t] of list) p.add(o, t);
  return p;
}

describe('actors/share-consumer/pending-acks', () => {
  it('consecutive offsets of one type are one batch with one type', () => {
    const p = acks([
      [5, Accept],
      [6, Accept],
      [7, Accept],
    ]);
    expect(p.size).to.equal(3);
    expect(p.toBatches()).to.deep.equal({ batches: [{ firstOffset: 5, lastOffset: 7, acknowledgeTypes: [Accept] }], offsets: [5, 6, 7] });
  });

  it('a run of mixed types keeps a type per offset; a hole starts a new batch', () => {
    const p = acks([
      [0, Accept],
      [1, Gap],
      [2, Accept],
      [4, Release],
      [5, Release],
    ]);
    expect(p.toBatches().batches).to.deep.equal([
      { firstOffset: 0, lastOffset: 2, acknowledgeTypes: [Accept, Gap, Accept] },
      { firstOffset: 4, lastOffset: 5, acknowledgeTypes: [Release] },
    ]);
  });

  it('offsets out of order are sorted, and the last type given for an offset wins', () => {
    const p = acks([
      [3, Accept],
      [1, Accept],
      [2, Reject],
      [3, Release],
    ]);
    expect(p.toBatches()).to.deep.equal({ batches: [{ firstOffset: 1, lastOffset: 3, acknowledgeTypes: [Accept, Reject, Release] }], offsets: [1, 2, 3] });
  });

  it('has tells whether some acknowledgement is of a type (a renewal must not ride a fetch)', () => {
    const p = acks([
      [0, Accept],
      [1, Renew],
    ]);
    expect(p.has(Renew)).to.equal(true);
    expect(p.has(Reject)).to.equal(false);
    expect(new PendingAcks().has(Accept)).to.equal(false);
  });

  it('empty: no batches', () => {
    expect(new PendingAcks().toBatches()).to.deep.equal({ batches: [], offsets: [] });
  });
});
