import { expect } from 'chai';
import { AcknowledgeType } from '../../actors/share-partition/share-partition-state.js';
import { DeliveredRecords, type DeliveredRecord } from '../../src/client/share-delivered.js';

const { Accept, Release, Reject, Renew } = AcknowledgeType;
const rec = (topic: string, partition: number, offset: number): DeliveredRecord => ({ topic, partition, offset });
const none = () => undefined;

describe('client/share-delivered', () => {
  it('implicit mode: every record is accepted, partition by partition in the order they came, and nothing is left', () => {
    const d = new DeliveredRecords<DeliveredRecord>();
    d.add([rec('a', 0, 5), rec('a', 0, 6), rec('b', 1, 0), rec('a', 0, 7)]);
    expect(d.size).to.equal(2);
    expect(d.take(true, none)).to.deep.equal([
      { topic: 'a', partition: 0, offsets: [5, 6, 7], types: [Accept, Accept, Accept] },
      { topic: 'b', partition: 1, offsets: [0], types: [Accept] },
    ]);
    expect(d.size).to.equal(0);
    expect(d.take(true, none)).to.deep.equal([]);
  });

  it('explicit mode: only what was acknowledged is taken; the rest waits, and can still be acknowledged', () => {
    const d = new DeliveredRecords<DeliveredRecord>();
    d.add([rec('a', 0, 0), rec('a', 0, 1), rec('a', 0, 2)]);
    expect(d.take(false, none)).to.deep.equal([]);
    expect(d.acknowledge(rec('a', 0, 2), Reject)).to.equal(true);
    expect(d.acknowledge(rec('a', 0, 0), Release)).to.equal(true);
    expect(d.take(false, none)).to.deep.equal([{ topic: 'a', partition: 0, offsets: [0, 2], types: [Release, Reject] }]);
    expect(d.size).to.equal(1);
    expect(d.acknowledge(rec('a', 0, 1), Accept)).to.equal(true);
    expect(d.take(false, none)).to.deep.equal([{ topic: 'a', partition: 0, offsets: [1], types: [Accept] }]);
    expect(d.size).to.equal(0);
  });

  it('a record acknowledged twice, sent already, or never delivered is refused', () => {
    const d = new DeliveredRecords<DeliveredRecord>();
    d.add([rec('a', 0, 0), rec('a', 0, 1)]);
    expect(d.acknowledge(rec('a', 0, 0), Accept)).to.equal(true);
    expect(d.acknowledge(rec('a', 0, 0), Reject)).to.equal(false);
    d.take(false, none);
    expect(d.acknowledge(rec('a', 0, 0), Accept)).to.equal(false);
    expect(d.acknowledge(rec('a', 0, 9), Accept)).to.equal(false);
    expect(d.acknowledge(rec('a', 1, 0), Accept)).to.equal(false);
    expect(d.acknowledge(rec('b', 0, 1), Accept)).to.equal(false);
  });

  it('acceptRest with some acknowledged: theirs as given, the others accepted', () => {
    const d = new DeliveredRecords<DeliveredRecord>();
    d.add([rec('a', 0, 0), rec('a', 0, 1), rec('a', 0, 2)]);
    d.acknowledge(rec('a', 0, 1), Release);
    expect(d.take(true, none)).to.deep.equal([{ topic: 'a', partition: 0, offsets: [0, 1, 2], types: [Accept, Release, Accept] }]);
  });

  it('a renewal is taken like any acknowledgement and reported with its record', () => {
    const d = new DeliveredRecords<DeliveredRecord>();
    const r = rec('a', 0, 4);
    d.add([rec('a', 0, 3), r]);
    d.acknowledge(r, Renew);
    const renewed: DeliveredRecord[] = [];
    expect(d.take(false, (x) => renewed.push(x))).to.deep.equal([{ topic: 'a', partition: 0, offsets: [4], types: [Renew] }]);
    expect(renewed).to.deep.equal([r]);
  });

  it('records added after an acknowledgement are found too (the index is made again)', () => {
    const d = new DeliveredRecords<DeliveredRecord>();
    d.add([rec('a', 0, 0)]);
    expect(d.acknowledge(rec('a', 0, 0), Accept)).to.equal(true);
    d.add([rec('a', 0, 1)]);
    expect(d.acknowledge(rec('a', 0, 1), Reject)).to.equal(true);
    expect(d.take(false, none)).to.deep.equal([{ topic: 'a', partition: 0, offsets: [0, 1], types: [Accept, Reject] }]);
    d.add([rec('a', 0, 2)]);
    d.clear();
    expect(d.size).to.equal(0);
  });
});
