import { expect } from 'chai';
import { readBytesFor } from '../../../actors/share-partition/manager.js';

describe('actors/share-partition manager: how much a share fetch reads of a partition', () => {
  it('before any read of the partition: its share of the fetch bytes', () => {
    expect(readBytesFor({ room: 10, bytesPerOffset: null }, 500_000)).to.equal(500_000);
  });

  it('after one: what the offsets its window can take need, a fifth more, within its share', () => {
    expect(readBytesFor({ room: 2_000, bytesPerOffset: 110 }, 500_000)).to.equal(264_000);
    expect(readBytesFor({ room: 100_000, bytesPerOffset: 110 }, 500_000)).to.equal(500_000);
  });

  it('a full window still reads at least a byte (the broker returns a whole first batch)', () => {
    expect(readBytesFor({ room: 0, bytesPerOffset: 110 }, 500_000)).to.equal(1);
  });
});
