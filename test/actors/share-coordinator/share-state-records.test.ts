/**
 * The records of __share_group_state in Kafka's schemas: keys and values round trip; bytes laid
 * out by hand as Kafka's ShareSnapshot and ShareUpdate (field by field from the schemas, not
 * with our encoder) decode, and the update applies over the snapshot as Kafka's replay does;
 * tombstones delete; malformed bytes are refused with ShareStateRecordError (and skipped, with a
 * problem reported, when reading a partition's batches).
 */
import { expect } from 'chai';
import {
  ShareRecordType,
  ShareStateRecordError,
  buildShareSnapshotBatch,
  buildShareTombstoneBatch,
  decodeShareSnapshotValue,
  decodeShareStateKey,
  decodeShareStateRecord,
  decodeShareUpdateValue,
  encodeShareSnapshotValue,
  encodeShareStateKey,
  encodeShareUpdateValue,
  readShareStateBatches,
  type ShareSnapshotValue,
  type ShareStateKey,
} from '../../../actors/share-coordinator/share-state-records.js';
import { shareCoordinatorKey } from '../../../actors/share-coordinator/messages.js';
import { replayShareRecord, type ShareState } from '../../../actors/share-coordinator/share-state.js';
import { setBaseOffset } from '../../../src/protocol/batch-header.js';
import { encodeRecordBatch } from '../../../src/protocol/record-batch.js';

const TOPIC_ID = 'AAECAwQFBgcICQoLDA0ODw'; // bytes 00 01 02 .. 0f
const KEY: ShareStateKey = { groupId: 'grp', topicId: TOPIC_ID, partition: 7 };

const SNAPSHOT: ShareSnapshotValue = {
  snapshotEpoch: 3,
  stateEpoch: 2,
  leaderEpoch: 9,
  startOffset: 100,
  createTimestamp: 1_700_000_000_000,
  writeTimestamp: 1_700_000_000_500,
  stateBatches: [
    { firstOffset: 100, lastOffset: 109, deliveryState: 0, deliveryCount: 1 },
    { firstOffset: 110, lastOffset: 119, deliveryState: 2, deliveryCount: 1 },
  ],
};

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const i64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b.toString('hex');
};

/** Kafka's ShareSnapshotKey for (grp, TOPIC_ID, 7): int16 type 0 | string "grp" | uuid | int32 7. */
const KAFKA_SNAPSHOT_KEY = hex('0000 0003 677270 000102030405060708090a0b0c0d0e0f 00000007');
/** Kafka's ShareUpdateKey of the same share partition: record type 1. */
const KAFKA_UPDATE_KEY = hex('0001 0003 677270 000102030405060708090a0b0c0d0e0f 00000007');

/** Kafka's ShareSnapshotValue v0 (flexible) of SNAPSHOT, byte by byte from the schema. */
const KAFKA_SNAPSHOT_VALUE = hex(
  [
    '0000', // version 0
    '00000003', // snapshotEpoch
    '00000002', // stateEpoch
    '00000009', // leaderEpoch
    i64(100), // startOffset
    i64(1_700_000_000_000), // createTimestamp
    i64(1_700_000_000_500), // writeTimestamp
    '03', // stateBatches: compact array of 2
    i64(100) + i64(109) + '00' + '0001' + '00', // first, last, state 0, count 1, no tagged fields
    i64(110) + i64(119) + '02' + '0001' + '00',
    '00', // no tagged fields
  ].join(''),
);

/**
 * Kafka's ShareUpdateValue v0: start offset moved to 105, 105-112 acknowledged at delivery
 * count 2, and a tagged field (tag 0, Kafka 4.2's deliveryCompleteCount = 8) to be skipped.
 */
const KAFKA_UPDATE_VALUE = hex(
  [
    '0000', // version 0
    '00000003', // snapshotEpoch
    '0000000a', // leaderEpoch 10
    i64(105), // startOffset
    '02', // one state batch
    i64(105) + i64(112) + '02' + '0002' + '00',
    '01 00 04 00000008', // tagged fields: 1 field, tag 0, 4 bytes, 8
  ].join(''),
);

describe('actors/share-coordinator share-state records', () => {
  it('keys round trip, the record type first (0 snapshot, 1 update), as Kafka lays them out', () => {
    expect(Buffer.from(encodeShareStateKey(ShareRecordType.Snapshot, KEY))).to.deep.equal(KAFKA_SNAPSHOT_KEY);
    expect(Buffer.from(encodeShareStateKey(ShareRecordType.Update, KEY))).to.deep.equal(KAFKA_UPDATE_KEY);
    expect(decodeShareStateKey(KAFKA_SNAPSHOT_KEY)).to.deep.equal({ type: ShareRecordType.Snapshot, key: KEY });
    expect(decodeShareStateKey(KAFKA_UPDATE_KEY)).to.deep.equal({ type: ShareRecordType.Update, key: KEY });
    const unicode = { groupId: 'grüppe:ü', topicId: TOPIC_ID, partition: 0 };
    expect(decodeShareStateKey(encodeShareStateKey(ShareRecordType.Snapshot, unicode))).to.deep.equal({ type: ShareRecordType.Snapshot, key: unicode });
  });

  it('a snapshot value round trips and is byte for byte Kafka\'s ShareSnapshotValue', () => {
    const bytes = encodeShareSnapshotValue(SNAPSHOT);
    expect(Buffer.from(bytes)).to.deep.equal(KAFKA_SNAPSHOT_VALUE);
    expect(decodeShareSnapshotValue(bytes)).to.deep.equal(SNAPSHOT);
    const empty = { ...SNAPSHOT, startOffset: -1, stateBatches: [] };
    expect(decodeShareSnapshotValue(encodeShareSnapshotValue(empty))).to.deep.equal(empty);
  });

  it('an update value round trips; Kafka\'s, with a tagged field, decodes with the tag skipped', () => {
    const u = { snapshotEpoch: 4, leaderEpoch: 1, startOffset: -1, stateBatches: [{ firstOffset: 5, lastOffset: 5, deliveryState: 4, deliveryCount: 5 }] };
    expect(decodeShareUpdateValue(encodeShareUpdateValue(u))).to.deep.equal(u);
    expect(decodeShareUpdateValue(KAFKA_UPDATE_VALUE)).to.deep.equal({
      snapshotEpoch: 3,
      leaderEpoch: 10,
      startOffset: 105,
      stateBatches: [{ firstOffset: 105, lastOffset: 112, deliveryState: 2, deliveryCount: 2 }],
    });
  });

  it('a Kafka snapshot then a Kafka update of the key replay to the snapshot with the update laid over it', () => {
    const states = new Map<string, ShareState>();
    const k = shareCoordinatorKey(KEY);
    replayShareRecord(states, k, decodeShareStateRecord(KAFKA_SNAPSHOT_KEY, KAFKA_SNAPSHOT_VALUE)!);
    expect(states.get(k)).to.deep.equal(SNAPSHOT);
    replayShareRecord(states, k, decodeShareStateRecord(KAFKA_UPDATE_KEY, KAFKA_UPDATE_VALUE)!);
    expect(states.get(k)).to.deep.equal({
      ...SNAPSHOT,
      leaderEpoch: 10,
      startOffset: 105,
      // 100-104 fall below the new start; 105-112 at count 2 win over 105-109 and 110-112 at count 1
      stateBatches: [
        { firstOffset: 105, lastOffset: 112, deliveryState: 2, deliveryCount: 2 },
        { firstOffset: 113, lastOffset: 119, deliveryState: 2, deliveryCount: 1 },
      ],
    });
    // an update with start offset -1 keeps the start offset
    replayShareRecord(states, k, { type: ShareRecordType.Update, key: KEY, value: { snapshotEpoch: 3, leaderEpoch: 10, startOffset: -1, stateBatches: [{ firstOffset: 120, lastOffset: 120, deliveryState: 0, deliveryCount: 1 }] } });
    expect(states.get(k)!.startOffset).to.equal(105);
    expect(states.get(k)!.stateBatches.at(-1)).to.deep.equal({ firstOffset: 120, lastOffset: 120, deliveryState: 0, deliveryCount: 1 });
  });

  it('a tombstone deletes the key; the delete batch holds tombstones for both record types', () => {
    const batch = Buffer.concat([buildShareSnapshotBatch(KEY, SNAPSHOT, 1), buildShareTombstoneBatch(KEY, 2)]);
    setBaseOffset(batch, buildShareSnapshotBatch(KEY, SNAPSHOT, 1).length, 1);
    const read = readShareStateBatches(batch, 0);
    expect(read.problems).to.deep.equal([]);
    expect(read.nextOffset).to.equal(3);
    expect(read.records.map((r) => [r.type, r.value === null])).to.deep.equal([
      [ShareRecordType.Snapshot, false],
      [ShareRecordType.Snapshot, true],
      [ShareRecordType.Update, true],
    ]);
    const states = new Map<string, ShareState>();
    const k = shareCoordinatorKey(KEY);
    replayShareRecord(states, k, read.records[0]!);
    expect(states.has(k)).to.equal(true);
    replayShareRecord(states, k, read.records[1]!);
    expect(states.has(k)).to.equal(false);
    // reading from offset 1 leaves the snapshot out
    expect(readShareStateBatches(batch, 1).records).to.have.length(2);
  });

  it('malformed bytes are refused with ShareStateRecordError', () => {
    const refused = (f: () => unknown, msg: RegExp) => expect(f).to.throw(ShareStateRecordError, msg);
    refused(() => decodeShareSnapshotValue(KAFKA_SNAPSHOT_VALUE.subarray(0, 20)), /truncated reading startOffset/);
    refused(() => decodeShareSnapshotValue(Buffer.concat([KAFKA_SNAPSHOT_VALUE, hex('00')])), /1 bytes left over/);
    refused(() => decodeShareSnapshotValue(Buffer.concat([hex('0001'), KAFKA_SNAPSHOT_VALUE.subarray(2)])), /version 1/);
    // a compact array length claiming more elements than bytes remain
    refused(() => decodeShareUpdateValue(hex('0000 00000001 00000001' + i64(0) + 'ff7f')), /claims 16382 elements/);
    // a null (0) compact array
    refused(() => decodeShareUpdateValue(hex('0000 00000001 00000001' + i64(0) + '00 00')), /stateBatches is null/);
    refused(() => decodeShareStateKey(hex('0000 0002 c328 000102030405060708090a0b0c0d0e0f 00000000')), /not UTF-8/);
    refused(() => decodeShareStateKey(KAFKA_SNAPSHOT_KEY.subarray(0, 10)), /truncated/);
    refused(() => decodeShareStateRecord(null, KAFKA_SNAPSHOT_VALUE), /without a key/);
    refused(() => encodeShareStateKey(ShareRecordType.Snapshot, { ...KEY, topicId: 'not-a-uuid' }), /not a Kafka uuid/);
    refused(() => encodeShareSnapshotValue({ ...SNAPSHOT, stateBatches: [{ firstOffset: 0, lastOffset: 1, deliveryState: 300, deliveryCount: 1 }] }), /deliveryState must be an int8/);
  });

  it('reading a partition skips undecodable records (reported) and record types it does not know', () => {
    const bytes = encodeRecordBatch({
      records: [
        { key: KAFKA_SNAPSHOT_KEY, value: KAFKA_SNAPSHOT_VALUE.subarray(0, 9) },
        { key: hex('0009 0001 61'), value: hex('00') }, // a record type this reader does not know
        { key: KAFKA_SNAPSHOT_KEY, value: KAFKA_SNAPSHOT_VALUE },
      ],
    });
    const read = readShareStateBatches(bytes, 0);
    expect(read.records).to.have.length(1);
    expect(read.records[0]!.value).to.deep.equal(SNAPSHOT);
    expect(read.problems).to.have.length(1);
    expect(read.problems[0]).to.match(/^offset 0: ShareSnapshotValue: truncated/);
  });
});
