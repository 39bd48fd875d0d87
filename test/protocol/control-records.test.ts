import { expect } from 'chai';
import { ControlRecordError, ControlType, encodeTxnMarker, isControlBatch, isTransactionalBatch, txnMarkerTypeAt } from '../../src/protocol/control-records.js';
import { decodeRecordBatch, encodeRecordBatch } from '../../src/protocol/record-batch.js';

describe('protocol/control-records', () => {
  it("encodes a COMMIT and an ABORT marker as Kafka's EndTransactionMarker, read back by type", () => {
    for (const type of [ControlType.COMMIT, ControlType.ABORT]) {
      const buf = encodeTxnMarker({ producerId: 42, producerEpoch: 3, type, coordinatorEpoch: 7, timestamp: 1_000 });
      const b = decodeRecordBatch(buf);
      expect(b).to.deep.include({ transactional: true, control: true, producerId: 42, producerEpoch: 3, baseSequence: -1 });
      expect(b.records).to.have.length(1);
      expect([...b.records[0]!.key!]).to.deep.equal([0, 0, 0, type]);
      expect([...b.records[0]!.value!]).to.deep.equal([0, 0, 0, 0, 0, 7]);
      expect(isControlBatch(buf, 0)).to.equal(true);
      expect(isTransactionalBatch(buf, 0)).to.equal(true);
      expect(txnMarkerTypeAt(buf, 0)).to.equal(type);
    }
  });

  it('tells data batches from control batches, and unknown control records from bad ones', () => {
    const data = encodeRecordBatch({ transactional: true, producerId: 1, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: Buffer.from('v') }] });
    expect(isControlBatch(data, 0)).to.equal(false);
    expect(isTransactionalBatch(data, 0)).to.equal(true);
    expect(isTransactionalBatch(encodeRecordBatch({ records: [{ key: null, value: Buffer.from('v') }] }), 0)).to.equal(false);
    const newer = encodeRecordBatch({ control: true, transactional: true, producerId: 1, records: [{ key: Buffer.from([0, 1, 0, 1]), value: null }] });
    expect(txnMarkerTypeAt(newer, 0), 'a newer control record version').to.equal(null);
    const unknownType = encodeRecordBatch({ control: true, transactional: true, producerId: 1, records: [{ key: Buffer.from([0, 0, 0, 5]), value: null }] });
    expect(txnMarkerTypeAt(unknownType, 0)).to.equal(null);
    const keyless = encodeRecordBatch({ control: true, transactional: true, producerId: 1, records: [{ key: null, value: null }] });
    expect(() => txnMarkerTypeAt(keyless, 0)).to.throw(ControlRecordError, /no control record key/);
    expect(() => encodeTxnMarker({ producerId: 1, producerEpoch: 0, type: 3 as never, coordinatorEpoch: 0, timestamp: 0 })).to.throw(ControlRecordError);
  });
});
