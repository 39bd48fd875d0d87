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
import { readUnsignedVarint, sizeOfUnsignedVarint, writeUnsignedVarint } from '../../src/protocol/varint.js';

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
// Writer and reader (big-endian; Kafka's classic strings in keys, compact arrays in values)

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

class Writer {
  private buf = Buffer.allocUnsafe(128);
  private pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private int(v: number, bits: 8 | 16 | 32, what: string): void {
    const lo = -(2 ** (bits - 1));
    const hi = 2 ** (bits - 1) - 1;
    if (!Number.isInteger(v) || v < lo || v > hi) throw new ShareStateRecordError(`${what} must be an int${bits}, got ${v}`);
    this.ensure(bits / 8);
    if (bits === 8) this.pos = this.buf.writeInt8(v, this.pos);
    else if (bits === 16) this.pos = this.buf.writeInt16BE(v, this.pos);
    else this.pos = this.buf.writeInt32BE(v, this.pos);
  }

  int8(v: number, what: string): this {
    this.int(v, 8, what);
    return this;
  }

  int16(v: number, what: string): this {
    this.int(v, 16, what);
    return this;
  }

  int32(v: number, what: string): this {
    this.int(v, 32, what);
    return this;
  }

  int64(v: number, what: string): this {
    if (!Number.isSafeInteger(v)) throw new ShareStateRecordError(`${what} must be a safe integer, got ${v}`);
    this.ensure(8);
    this.pos = this.buf.writeBigInt64BE(BigInt(v), this.pos);
    return this;
  }

  uvarint(v: number): this {
    this.ensure(sizeOfUnsignedVarint(v));
    this.pos = writeUnsignedVarint(this.buf, this.pos, v);
    return this;
  }

  /** A classic (non-flexible) string: int16 length + UTF-8. */
  string(s: string, what: string): this {
    const b = utf8.encode(s);
    if (b.length > 0x7fff) throw new ShareStateRecordError(`${what} is ${b.length} bytes long, more than a Kafka string holds`);
    this.int16(b.length, what);
    this.raw(b);
    return this;
  }

  uuid(id: string, what: string): this {
    const b = Buffer.from(id, 'base64url');
    if (b.length !== 16 || b.toString('base64url') !== id) throw new ShareStateRecordError(`${what} is not a Kafka uuid: ${JSON.stringify(id)}`);
    this.raw(b);
    return this;
  }

  private raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  finish(): Uint8Array {
    return Uint8Array.prototype.slice.call(this.buf, 0, this.pos);
  }
}

class Reader {
  private pos = 0;

  constructor(
    private readonly buf: Uint8Array,
    private readonly what: string,
  ) {}

  private need(n: number, field: string): void {
    if (this.pos + n > this.buf.length) throw new ShareStateRecordError(`${this.what}: truncated reading ${field} at byte ${this.pos} (length ${this.buf.length})`);
  }

  private view(): DataView {
    return new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  int8(field: string): number {
    this.need(1, field);
    return this.view().getInt8(this.pos++);
  }

  int16(field: string): number {
    this.need(2, field);
    const v = this.view().getInt16(this.pos);
    this.pos += 2;
    return v;
  }

  int32(field: string): number {
    this.need(4, field);
    const v = this.view().getInt32(this.pos);
    this.pos += 4;
    return v;
  }

  int64(field: string): number {
    this.need(8, field);
    const v = this.view().getBigInt64(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new ShareStateRecordError(`${this.what}: ${field} ${v} is outside the safe integer range`);
    return Number(v);
  }

  uvarint(field: string): number {
    const cur = { pos: this.pos, end: this.buf.length };
    try {
      const v = readUnsignedVarint(this.buf, cur, field);
      this.pos = cur.pos;
      return v;
    } catch (err) {
      throw new ShareStateRecordError(`${this.what}: ${(err as Error).message}`);
    }
  }

  string(field: string): string {
    const n = this.int16(`${field} length`);
    if (n < 0) throw new ShareStateRecordError(`${this.what}: ${field} is null`);
    this.need(n, field);
    try {
      return utf8Strict.decode(this.buf.subarray(this.pos, (this.pos += n)));
    } catch {
      throw new ShareStateRecordError(`${this.what}: ${field} is not UTF-8`);
    }
  }

  uuid(field: string): string {
    this.need(16, field);
    const b = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, 16);
    this.pos += 16;
    return b.toString('base64url');
  }

  /** A compact array's element count (its length is n + 1; 0 is null, which a non-nullable array refuses). */
  compactArrayLength(field: string): number {
    const n = this.uvarint(`${field} length`);
    if (n === 0) throw new ShareStateRecordError(`${this.what}: ${field} is null`);
    // each element takes at least one byte: a count beyond what is left is a lie
    if (n - 1 > this.buf.length - this.pos) throw new ShareStateRecordError(`${this.what}: ${field} claims ${n - 1} elements with ${this.buf.length - this.pos} bytes left`);
    return n - 1;
  }

  /** Skips a struct's tagged fields; returns the ones named in `keep` (tag -> bytes). */
  taggedFields(field: string, keep: readonly number[] = []): Map<number, Uint8Array> {
    const out = new Map<number, Uint8Array>();
    const count = this.uvarint(`${field} tagged field count`);
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint(`${field} tag`);
      const size = this.uvarint(`${field} tag ${tag} size`);
      this.need(size, `${field} tag ${tag}`);
      if (keep.includes(tag)) out.set(tag, this.buf.subarray(this.pos, this.pos + size));
      this.pos += size;
    }
    return out;
  }

  end(): void {
    if (this.pos !== this.buf.length) throw new ShareStateRecordError(`${this.what}: ${this.buf.length - this.pos} bytes left over after the record`);
  }
}

// ---------------------------------------------------------------------------------------------
// Keys

export function encodeShareStateKey(type: ShareRecordType, key: ShareStateKey): Uint8Array {
  return new Writer().int16(type, 'record type').string(key.groupId, 'groupId').uuid(key.topicId, 'topicId').int32(key.partition, 'partition').finish();
}

/** The key's record type and fields; null for a record type this reader does not know (skipped). */
export function decodeShareStateKey(bytes: Uint8Array): { type: ShareRecordType; key: ShareStateKey } | null {
  const r = new Reader(bytes, 'share-state key');
  const type = r.int16('record type');
  if (type !== ShareRecordType.Snapshot && type !== ShareRecordType.Update) return null;
  const key = { groupId: r.string('groupId'), topicId: r.uuid('topicId'), partition: r.int32('partition') };
  r.end();
  return { type, key };
}

// ---------------------------------------------------------------------------------------------
// Values

function writeBatches(w: Writer, batches: readonly ShareStateBatch[]): void {
  w.uvarint(batches.length + 1);
  for (const [i, b] of batches.entries()) {
    const what = `stateBatches[${i}]`;
    w.int64(b.firstOffset, `${what}.firstOffset`).int64(b.lastOffset, `${what}.lastOffset`).int8(b.deliveryState, `${what}.deliveryState`).int16(b.deliveryCount, `${what}.deliveryCount`).uvarint(0);
  }
}

function readBatches(r: Reader): ShareStateBatch[] {
  const n = r.compactArrayLength('stateBatches');
  const out: ShareStateBatch[] = [];
  for (let i = 0; i < n; i++) {
    const what = `stateBatches[${i}]`;
    const b = { firstOffset: r.int64(`${what}.firstOffset`), lastOffset: r.int64(`${what}.lastOffset`), deliveryState: r.int8(`${what}.deliveryState`), deliveryCount: r.int16(`${what}.deliveryCount`) };
    r.taggedFields(what);
    out.push(b);
  }
  return out;
}

function readVersion(r: Reader, what: string): void {
  const version = r.int16('version');
  if (version !== SHARE_VALUE_VERSION) throw new ShareStateRecordError(`${what} version ${version} is not one this broker reads (${SHARE_VALUE_VERSION})`);
}

export function encodeShareSnapshotValue(v: ShareSnapshotValue): Uint8Array {
  const w = new Writer()
    .int16(SHARE_VALUE_VERSION, 'version')
    .int32(v.snapshotEpoch, 'snapshotEpoch')
    .int32(v.stateEpoch, 'stateEpoch')
    .int32(v.leaderEpoch, 'leaderEpoch')
    .int64(v.startOffset, 'startOffset')
    .int64(v.createTimestamp, 'createTimestamp')
    .int64(v.writeTimestamp, 'writeTimestamp');
  writeBatches(w, v.stateBatches);
  return w.uvarint(0).finish();
}

export function decodeShareSnapshotValue(bytes: Uint8Array): ShareSnapshotValue {
  const r = new Reader(bytes, 'ShareSnapshotValue');
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
  const w = new Writer().int16(SHARE_VALUE_VERSION, 'version').int32(v.snapshotEpoch, 'snapshotEpoch').int32(v.leaderEpoch, 'leaderEpoch').int64(v.startOffset, 'startOffset');
  writeBatches(w, v.stateBatches);
  return w.uvarint(0).finish();
}

export function decodeShareUpdateValue(bytes: Uint8Array): ShareUpdateValue {
  const r = new Reader(bytes, 'ShareUpdateValue');
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
