/**
 * The time index of one segment (`<base>.timeindex`): entries of 8-byte timestamp -> 4-byte
 * offset relative to the segment's base offset, both strictly increasing. An entry records "every
 * batch up to this offset has a timestamp <= this one"; it is added beside an offset index entry
 * when the segment's max timestamp has grown, and once more when the segment stops being active.
 */
import { IndexFileState, readIndexFile, unlinkIfExists } from './index-file.js';

export const TIME_INDEX_ENTRY_SIZE = 12;
const INITIAL_CAPACITY = 16;

export class TimeIndex {
  private timestamps: Float64Array;
  private rels: Int32Array;
  private count = 0;
  private readonly disk: IndexFileState;

  constructor(
    readonly file: string,
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {
    const cap = Math.min(INITIAL_CAPACITY, Math.max(1, maxEntries));
    this.timestamps = new Float64Array(cap);
    this.rels = new Int32Array(cap);
    this.disk = new IndexFileState(file, TIME_INDEX_ENTRY_SIZE);
  }

  /**
   * Loads the file; null when it is sound, else the reason it is not (the index is left empty).
   * `nextOffset` (the segment's end offset) bounds the offsets.
   */
  load(nextOffset: number): string | null {
    const bytes = readIndexFile(this.file);
    this.count = 0;
    if (bytes === null) return 'time index file is missing';
    if (bytes.length % TIME_INDEX_ENTRY_SIZE !== 0) {
      return `time index file size ${bytes.length} is not a multiple of ${TIME_INDEX_ENTRY_SIZE}`;
    }
    const n = bytes.length / TIME_INDEX_ENTRY_SIZE;
    if (n > this.maxEntries) return `time index has ${n} entries, more than the ${this.maxEntries} allowed`;
    this.ensureCapacity(n);
    let prevTs = -Infinity;
    let prevRel = -1;
    for (let i = 0; i < n; i++) {
      const at = i * TIME_INDEX_ENTRY_SIZE;
      const ts = bytes.readInt32BE(at) * 2 ** 32 + bytes.readUInt32BE(at + 4);
      const rel = bytes.readInt32BE(at + 8);
      if (ts <= prevTs || rel < prevRel || rel < 0 || this.baseOffset + rel >= nextOffset) {
        this.count = 0;
        return `time index entry ${i} (${ts} -> ${rel}) is out of order or beyond the segment`;
      }
      this.timestamps[i] = ts;
      this.rels[i] = rel;
      prevTs = ts;
      prevRel = rel;
    }
    this.count = n;
    this.disk.loaded(n);
    return null;
  }

  get entries(): number {
    return this.count;
  }

  isFull(): boolean {
    return this.count >= this.maxEntries;
  }

  timestampAt(i: number): number {
    return this.timestamps[i]!;
  }

  offsetAt(i: number): number {
    return this.baseOffset + this.rels[i]!;
  }

  /** The last entry's timestamp, or -1 when empty. */
  lastTimestamp(): number {
    return this.count === 0 ? -1 : this.timestamps[this.count - 1]!;
  }

  /**
   * Adds (timestamp, offset) when the timestamp is above the last entry's. `force` allows the
   * final entry of a full index (on roll) to replace nothing and still fit.
   */
  maybeAppend(timestamp: number, offset: number, force = false): void {
    if (this.count > 0 && timestamp <= this.timestamps[this.count - 1]!) return;
    if (timestamp < 0) return;
    const rel = offset - this.baseOffset;
    if (this.count > 0 && rel < this.rels[this.count - 1]!) return;
    if (this.count >= this.maxEntries) {
      if (!force) throw new Error('time index is full');
      // Replace the last entry: it is dominated by the new one.
      this.timestamps[this.count - 1] = timestamp;
      this.rels[this.count - 1] = rel;
      this.disk.truncated(this.count - 1);
      return;
    }
    this.ensureCapacity(this.count + 1);
    this.timestamps[this.count] = timestamp;
    this.rels[this.count] = rel;
    this.count++;
  }

  /**
   * The offset from which to scan for the first batch with timestamp >= `ts`: the offset of the
   * last entry whose timestamp is < `ts` (every batch up to it is older), or the base offset.
   */
  lookupStartOffset(ts: number): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.timestamps[mid]! < ts) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? this.baseOffset : this.baseOffset + this.rels[found]!;
  }

  /** Drops every entry whose offset is >= `offset`. */
  truncateTo(offset: number): void {
    const rel = offset - this.baseOffset;
    let n = this.count;
    while (n > 0 && this.rels[n - 1]! >= rel) n--;
    this.count = n;
    this.disk.truncated(n);
  }

  clear(): void {
    this.count = 0;
    this.disk.truncated(0);
  }

  isDirty(): boolean {
    return this.disk.isDirty(this.count);
  }

  persist(): void {
    this.disk.persist(this.count, (from, to) => {
      const out = Buffer.allocUnsafe((to - from) * TIME_INDEX_ENTRY_SIZE);
      for (let i = from; i < to; i++) {
        const at = (i - from) * TIME_INDEX_ENTRY_SIZE;
        const ts = this.timestamps[i]!;
        out.writeInt32BE(Math.floor(ts / 2 ** 32), at);
        out.writeUInt32BE(ts >>> 0, at + 4);
        out.writeInt32BE(this.rels[i]!, at + 8);
      }
      return out;
    });
  }

  deleteFile(): void {
    unlinkIfExists(this.file);
    this.disk.reset();
  }

  memoryBytes(): number {
    return this.timestamps.byteLength + this.rels.byteLength;
  }

  private ensureCapacity(n: number): void {
    if (n <= this.rels.length) return;
    let cap = this.rels.length;
    while (cap < n) cap *= 2;
    cap = Math.min(cap, Math.max(n, this.maxEntries));
    const ts = new Float64Array(cap);
    ts.set(this.timestamps.subarray(0, this.count));
    const rels = new Int32Array(cap);
    rels.set(this.rels.subarray(0, this.count));
    this.timestamps = ts;
    this.rels = rels;
  }
}
