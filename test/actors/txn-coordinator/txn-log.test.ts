/**
 * __transaction_state records as bytes: one key per transactional id whatever its value (so
 * compaction keeps the newest), values and tombstones read back for replay, control batches and
 * records below the offset asked for skipped, undecodable records reported.
 */
import { expect } from 'chai';
import { buildTxnLogBatch, encodeTxnLogKey, readTxnLogBatches } from '../../../actors/txn-coordinator/txn-log.js';
import { TxnState, encodeTxnRecord, replay, tombstone, type TxnRecordFields } from '../../../actors/txn-coordinator/txn-metadata.js';
import { setBaseOffset } from '../../../src/protocol/batch-header.js';
import { encodeTxnMarker } from '../../../src/protocol/control-records.js';
import { ControlType } from '../../../src/protocol/control-records.js';
import { decodeRecordBatch, encodeRecordBatch } from '../../../src/protocol/record-batch.js';

const F: TxnRecordFields = {
  producerId: 2 ** 40,
  lastProducerId: -1,
  producerEpoch: 3,
  lastProducerEpoch: 2,
  txnTimeoutMs: 60_000,
  state: TxnState.Ongoing,
  partitions: [{ topic: 'orders', partition: 1 }],
  txnStartTimestamp: 1_700_000_000_000,
  txnLastUpdateTimestamp: 1_700_000_000_123,
  nextProducerId: -1,
  transactionVersion: 0,
};

function at(batch: Buffer, offset: number): Buffer {
  setBaseOffset(batch, 0, offset);
  return batch;
}

describe('actors/txn-coordinator txn-log', () => {
  it('every record of an id has the same key bytes; a tombstone has a null value', () => {
    const a = decodeRecordBatch(buildTxnLogBatch(encodeTxnRecord('tx', F), 1));
    const b = decodeRecordBatch(buildTxnLogBatch(encodeTxnRecord('tx', { ...F, state: TxnState.PrepareCommit }), 2));
    const t = decodeRecordBatch(buildTxnLogBatch(tombstone('tx'), 3));
    expect(Buffer.from(a.records[0]!.key!)).to.deep.equal(Buffer.from(encodeTxnLogKey('tx')));
    expect(Buffer.from(b.records[0]!.key!)).to.deep.equal(Buffer.from(a.records[0]!.key!));
    expect(Buffer.from(t.records[0]!.key!)).to.deep.equal(Buffer.from(a.records[0]!.key!));
    expect(t.records[0]!.value).to.equal(null);
    expect(Buffer.from(encodeTxnLogKey('tx2'))).to.not.deep.equal(Buffer.from(encodeTxnLogKey('tx')));
  });

  it('reads records back for replay from the offset asked for, skipping control batches', () => {
    const bytes = Buffer.concat([
      at(buildTxnLogBatch(encodeTxnRecord('x', F), 1), 0),
      at(buildTxnLogBatch(encodeTxnRecord('tx', F), 1), 1),
      at(encodeTxnMarker({ producerId: 5, producerEpoch: 0, type: ControlType.COMMIT, coordinatorEpoch: 0, timestamp: 1 }), 2),
      at(buildTxnLogBatch(encodeTxnRecord('tx', { ...F, state: TxnState.PrepareAbort }), 1), 3),
      at(buildTxnLogBatch(tombstone('x'), 1), 4),
    ]);
    const read = readTxnLogBatches(bytes, 1);
    expect(read.nextOffset).to.equal(5);
    expect(read.problems).to.deep.equal([]);
    expect(read.records).to.have.lengthOf(3);
    const { table, invalid } = replay(read.records);
    expect(invalid).to.deep.equal([]);
    expect([...table.keys()]).to.deep.equal(['tx']);
    expect(table.get('tx')).to.deep.include({ state: TxnState.PrepareAbort, producerId: 2 ** 40, lastProducerEpoch: 2, txnLastUpdateTimestamp: F.txnLastUpdateTimestamp });
  });

  it('reports a record that is not msgpack, and replay skips it', () => {
    const bad = encodeRecordBatch({ records: [{ key: Buffer.from([0xa5, 0x61]), value: Buffer.from([0xa5, 0x61]), timestamp: 1 }] });
    const read = readTxnLogBatches(bad, 0);
    expect(read.problems).to.have.lengthOf(2);
    expect(replay(read.records).invalid).to.have.lengthOf(1);
  });
});
