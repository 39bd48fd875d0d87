/**
 * The records of __share_group_state in Kafka's own binary schemas (share-coordinator's
 * ShareSnapshotKey/Value and ShareUpdateKey/Value, KIP-932), so that a samsa share-state log and
 * Kafka's can be read by either:
 *
 *   key   int16 record type (0 ShareSnapshot, 1 ShareUpdate) | groupId string | topicId uuid |
 *         partition int32                                           (not flexible)
 *   value ShareSnapshotValue v0 (flexible): snapshotEpoch int32 | stateEpoch int32 |
 *         leaderEpoch int32 | startOffset int64 | createTimestamp int64 | writeTimestamp int64 |
 *         stateBatches [firstOffset int64 | lastOffset int64 | deliveryState int8 |
 *         deliveryCount int16 | tagged fields] | tagged fields
 *   value ShareUpdateValue v0 (flexible): snapshotEpoch int32 | leaderEpoch int32 |
 *         startOffset int64 (-1: unchanged) | stateBatches (as above) | tagged fields
 *         (tag 0: deliveryCompleteCount int32, Kafka 4.2)
 *
 * Strings in keys are int16 length + UTF-8; flexible values have compact array lengths (unsigned
 * varint n + 1) and tagged fields after every struct (none written; any read is skipped). Topic
 * ids are 16 bytes, samsa's 22-character base64url form in memory (src/protocol/topic-id.ts). A
 * null value is a tombstone. samsa writes ShareSnapshot records only (each one the whole state
 * of its key) and reads both kinds, a ShareUpdate applied over the state before it as Kafka does
 * (share-state.ts); records of a type it does not know are skipped.
 */
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { RecordReader, RecordWriter } from '../group-coordinator/record-codec.js';

/** Kafka's ShareSnapshotKey / ShareUpdateKey "version": the record type. */
export enum ShareRecordType {
  Snapshot = 0,
  Update = 1,
}

/** The only value version Kafka defines for both values. */
export const SHARE_VALUE_VERSION = 0;

/** Bytes that are not a share-state record in a version we know, or values that do not fit the schema. */
export class ShareStateRecordError extends Error {
  override readonly name = 'ShareStateRecordError';
}

/** One run of offsets in one delivery state (Kafka's StateBatch / PersisterStateBatch). */
export interface ShareStateBatch {
  firstOffset: number;
  lastOffset: number;
  /** 0 Available, 2 Acknowledged, 4 Archived (an acquired record is persisted as Available). */
  deliveryState: number;
  deliveryCount: number;
}

/** A share partition's key: (group, topic id, partition). */
export interface ShareStateKey {
  groupId: string;
  topicId: string;
  partition: number;
}

export interface ShareSnapshotValue {
  snapshotEpoch: number;
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: number;
  createTimestamp: number;
  writeTimestamp: number;
  stateBatches: ShareStateBatch[];
}

export interface ShareUpdateValue {
  snapshotEpoch: number;
  leaderEpoch: number;
  /** -1: the start offset is not changed. */
  startOffset: number;
  stateBatches: ShareStateBatch[];
}

/** One decoded record: its type, key, and value (null: a tombstone). */
export type ShareStateRecord =
  | { type: ShareRecordType.Snapshot; key: ShareStateKey; value: ShareSnapshotValue | null }
  | { type: ShareRecordType.Update; key: ShareStateKey; value: ShareUpdateValue | null };

// ---------------------------------------------------------------------------------------------
// The writer and reader of this topic's records (record-codec.ts), throwing ShareStateRecordError:
// classic in keys, flexible in values

const recordError = (message: string): Error => new ShareStateRecordError(message);

function writer(flexible: boolean): RecordWriter {
  return new RecordWriter(recordError, flexible);
}

function reader(bytes: Uint8Array, what: string, flexible: boolean): RecordReader {
  return new RecordReader(bytes, what, recordError, flexible);
}

// ---------------------------------------------------------------------------------------------
// Keys

export function encodeShareStateKey(type: ShareRecordType, key: ShareStateKey): Uint8Array {
  const w = writer(false).int16(type, 'record type').string(key.groupId, 'groupId');
  // 16 bytes in their one canonical spelling: any other would be read back as another id
  const id = Buffer.from(key.topicId, 'base64url');
  if (id.length !== 16 || id.toString('base64url') !== key.topicId) throw new ShareStateRecordError(`topicId is not a Kafka uuid: ${JSON.stringify(key.topicId)}`);
  return w.uuid(key.topicId, 'topicId').int32(key.partition, 'partition').finish();
}

/** The key's record type and fields; null for a record type this reader does not know (skipped). */
export function decodeShareStateKey(bytes: Uint8Array): { type: ShareRecordType; key: ShareStateKey } | null {
  const r = reader(bytes, 'share-state key', false);
  const type = r.int16('record type');
  if (type !== ShareRecordType.Snapshot && type !== ShareRecordType.Update) return null;
  const key = { groupId: r.string('groupId'), topicId: r.uuid('topicId'), partition: r.int32('partition') };
  r.end();
  return { type, key };
}

// ---------------------------------------------------------------------------------------------
// Values

function writeBatches(w: RecordWriter, batches: readonly ShareStateBatch[]): void {
  w.arrayLength(batches.length, 'stateBatches');
  for (const [i, b] of batches.entries()) {
    const what = `stateBatches[${i}]`;
    w.int64(b.firstOffset, `${what}.firstOffset`).int64(b.lastOffset, `${what}.lastOffset`).int8(b.deliveryState, `${what}.deliveryState`).int16(b.deliveryCount, `${what}.deliveryCount`).taggedFields();
  }
}

function readBatches(r: RecordReader): ShareStateBatch[] {
  const n = r.arrayLength('stateBatches');
  const out: ShareStateBatch[] = [];
  for (let i = 0; i < n; i++) {
    const what = `stateBatches[${i}]`;
    const b = { firstOffset: r.int64(`${what}.firstOffset`), lastOffset: r.int64(`${what}.lastOffset`), deliveryState: r.int8(`${what}.deliveryState`), deliveryCount: r.int16(`${what}.deliveryCount`) };
    r.taggedFields(what);
    out.push(b);
  }
  return out;
}

function readVersion(r: RecordReader, what: string): void {
  const version = r.int16('version');
  if (version !== SHARE_VALUE_VERSION) throw new ShareStateRecordError(`${what} version ${version} is not one this broker reads (${SHARE_VALUE_VERSION})`);
}

export function encodeShareSnapshotValue(v: ShareSnapshotValue): Uint8Array {
  const w = writer(true)
    .int16(SHARE_VALUE_VERSION, 'version')
    .int32(v.snapshotEpoch, 'snapshotEpoch')
    .int32(v.stateEpoch, 'stateEpoch')
    .int32(v.leaderEpoch, 'leaderEpoch')
    .int64(v.startOffset, 'startOffset')
    .int64(v.createTimestamp, 'createTimestamp')
    .int64(v.writeTimestamp, 'writeTimestamp');
  writeBatches(w, v.stateBatches);
  return w.taggedFields().finish();
}

export function decodeShareSnapshotValue(bytes: Uint8Array): ShareSnapshotValue {
  const r = reader(bytes, 'ShareSnapshotValue', true);
  readVersion(r, 'ShareSnapshotValue');
  const v: ShareSnapshotValue = {
    snapshotEpoch: r.int32('snapshotEpoch'),
    stateEpoch: r.int32('stateEpoch'),
    leaderEpoch: r.int32('leaderEpoch'),
    startOffset: r.int64('startOffset'),
    createTimestamp: r.int64('createTimestamp'),
    writeTimestamp: r.int64('writeTimestamp'),
    stateBatches: readBatches(r),
  };
  r.taggedFields('ShareSnapshotValue');
  r.end();
  return v;
}

export function encodeShareUpdateValue(v: ShareUpdateValue): Uint8Array {
  const w = writer(true).int16(SHARE_VALUE_VERSION, 'version').int32(v.snapshotEpoch, 'snapshotEpoch').int32(v.leaderEpoch, 'leaderEpoch').int64(v.startOffset, 'startOffset');
  writeBatches(w, v.stateBatches);
  return w.taggedFields().finish();
}

export function decodeShareUpdateValue(bytes: Uint8Array): ShareUpdateValue {
  const r = reader(bytes, 'ShareUpdateValue', true);
  readVersion(r, 'ShareUpdateValue');
  const v: ShareUpdateValue = { snapshotEpoch: r.int32('snapshotEpoch'), leaderEpoch: r.int32('leaderEpoch'), startOffset: r.int64('startOffset'), stateBatches: readBatches(r) };
  r.taggedFields('ShareUpdateValue');
  r.end();
  return v;
}

/** Decodes one record's key and value; null for a record type this reader does not know. Throws ShareStateRecordError on malformed bytes. */
export function decodeShareStateRecord(key: Uint8Array | null, value: Uint8Array | null): ShareStateRecord | null {
  if (key === null) throw new ShareStateRecordError('a share-state record without a key');
  const k = decodeShareStateKey(key);
  if (k === null) return null;
  if (k.type === ShareRecordType.Snapshot) return { type: k.type, key: k.key, value: value === null ? null : decodeShareSnapshotValue(value) };
  return { type: k.type, key: k.key, value: value === null ? null : decodeShareUpdateValue(value) };
}

// ---------------------------------------------------------------------------------------------
// Batches of __share_group_state

/** One RecordBatch v2 holding the ShareSnapshot record of `key`, stamped `timestamp` (CreateTime). */
export function buildShareSnapshotBatch(key: ShareStateKey, value: ShareSnapshotValue, timestamp: number): Buffer {
  return encodeRecordBatch({ records: [{ key: encodeShareStateKey(ShareRecordType.Snapshot, key), value: encodeShareSnapshotValue(value), timestamp }] });
}

/**
 * One RecordBatch v2 deleting `key`: a tombstone for its ShareSnapshot key and one for its
 * ShareUpdate key (Kafka's updates would otherwise outlive the snapshot once compaction drops
 * the tombstone).
 */
export function buildShareTombstoneBatch(key: ShareStateKey, timestamp: number): Buffer {
  return encodeRecordBatch({
    records: [
      { key: encodeShareStateKey(ShareRecordType.Snapshot, key), value: null, timestamp },
      { key: encodeShareStateKey(ShareRecordType.Update, key), value: null, timestamp },
    ],
  });
}

export interface ShareStateReadProgress {
  /** The offset after the last batch read (fromOffset when there was none). */
  nextOffset: number;
  /** The records read at or above fromOffset, oldest first (types this reader does not know left out). */
  records: ShareStateRecord[];
  /** Why records could not be read (each is skipped). */
  problems: string[];
}

/**
 * The records of every complete batch of `bytes` at or above `fromOffset`, decoded. Control
 * batches are skipped; a record that does not decode is reported in `problems` and skipped.
 * Throws CorruptRecordError on a damaged batch.
 */
export function readShareStateBatches(bytes: Uint8Array, fromOffset: number): ShareStateReadProgress {
  const out: ShareStateReadProgress = { nextOffset: fromOffset, records: [], problems: [] };
  for (const batch of decodeRecordBatches(bytes)) {
    const next = batch.baseOffset + batch.lastOffsetDelta + 1;
    if (next > out.nextOffset) out.nextOffset = next;
    if (batch.control || next <= fromOffset) continue;
    for (const rec of batch.records) {
      if (rec.offset < fromOffset) continue;
      try {
        const r = decodeShareStateRecord(rec.key, rec.value);
        if (r) out.records.push(r);
      } catch (err) {
        out.problems.push(`offset ${rec.offset}: ${(err as Error).message}`);
      }
    }
  }
  return out;
}
