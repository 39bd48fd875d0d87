/**
 * The sparse offset index of one segment (`<base>.index`): entries of 4-byte offset relative to
 * the segment's base offset -> 4-byte position in the .log file, one every index.interval.bytes of
 * appended data. Entries live in a growable Int32Array; lookups are binary searches; the file is
 * written incrementally by `persist()` (on roll, flush and close) and checked on load.
 */
import { IndexFileState, readIndexFile, unlinkIfExists } from './index-file.js';

export const OFFSET_INDEX_ENTRY_SIZE = 8;
const INITIAL_CAPACITY = 16;

export class OffsetIndex {
  /** [rel0, pos0, rel1, pos1, ...] */
  private data: Int32Array;
  private count = 0;
  private readonly disk: IndexFileState;

  constructor(
    readonly file: string,
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {
    this.data = new Int32Array(2 * Math.min(INITIAL_CAPACITY, Math.max(1, maxEntries)));
    this.disk = new IndexFileState(file, OFFSET_INDEX_ENTRY_SIZE);
  }

  /**
   * Loads the file. Returns null with the index filled in, or the reason the file cannot be
   * trusted (then the index is left empty and the caller rebuilds it from the log).
   * `segmentSize` bounds the positions.
   */
  load(segmentSize: number): string | null {
    const bytes = readIndexFile(this.file);
    this.count = 0;
    if (bytes === null) return 'index file is missing';
    if (bytes.length % OFFSET_INDEX_ENTRY_SIZE !== 0) {
      return `index file size ${bytes.length} is not a multiple of ${OFFSET_INDEX_ENTRY_SIZE}`;
    }
    const n = bytes.length / OFFSET_INDEX_ENTRY_SIZE;
    if (n > this.maxEntries) return `index has ${n} entries, more than the ${this.maxEntries} allowed`;
    this.ensureCapacity(n);
    let prevRel = -1;
    let prevPos = -1;
    for (let i = 0; i < n; i++) {
      const rel = bytes.readInt32BE(i * 8);
      const pos = bytes.readInt32BE(i * 8 + 4);
      if (rel <= prevRel || pos <= prevPos || pos >= segmentSize) {
        this.count = 0;
        return `index entry ${i} (${rel} -> ${pos}) is out of order or beyond the segment`;
      }
      this.data[2 * i] = rel;
      this.data[2 * i + 1] = pos;
      prevRel = rel;
      prevPos = pos;
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

  offsetAt(i: number): number {
    return this.baseOffset + this.data[2 * i]!;
  }

  positionAt(i: number): number {
    return this.data[2 * i + 1]!;
  }

  /** Adds `offset` at `position`; both must be above the last entry's. */
  append(offset: number, position: number): void {
    const rel = offset - this.baseOffset;
    if (this.count > 0 && (rel <= this.data[2 * this.count - 2]! || position <= this.data[2 * this.count - 1]!)) {
      throw new Error(`offset index entry ${offset} -> ${position} is not above the last entry`);
    }
    if (this.count >= this.maxEntries) throw new Error('offset index is full');
    this.ensureCapacity(this.count + 1);
    this.data[2 * this.count] = rel;
    this.data[2 * this.count + 1] = position;
    this.count++;
  }

  /** Index of the last entry whose offset is <= target, or -1. */
  floorSlot(target: number): number {
    const rel = target - this.baseOffset;
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.data[2 * mid]! <= rel) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** File position from which to scan for `target`: the floor entry's, or 0. */
  lookupPosition(target: number): number {
    const slot = this.floorSlot(target);
    return slot < 0 ? 0 : this.data[2 * slot + 1]!;
  }

  /** Drops every entry whose offset is >= `offset`. */
  truncateTo(offset: number): void {
    const slot = this.floorSlot(offset - 1);
    this.count = slot + 1;
    this.disk.truncated(this.count);
  }

  /** Drops every entry whose position is >= `position`. */
  truncateToPosition(position: number): void {
    let n = this.count;
    while (n > 0 && this.data[2 * n - 1]! >= position) n--;
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

  /** Writes the entries the file does not hold yet. */
  persist(): void {
    this.disk.persist(this.count, (from, to) => {
      const out = Buffer.allocUnsafe((to - from) * OFFSET_INDEX_ENTRY_SIZE);
      for (let i = from; i < to; i++) {
        out.writeInt32BE(this.data[2 * i]!, (i - from) * 8);
        out.writeInt32BE(this.data[2 * i + 1]!, (i - from) * 8 + 4);
      }
      return out;
    });
  }

  /** Removes the file; memory is kept and a later persist() writes it again in full. */
  deleteFile(): void {
    unlinkIfExists(this.file);
    this.disk.reset();
  }

  /** Approximate bytes of memory held. */
  memoryBytes(): number {
    return this.data.byteLength;
  }

  private ensureCapacity(n: number): void {
    if (2 * n <= this.data.length) return;
    let cap = this.data.length / 2;
    while (cap < n) cap *= 2;
    cap = Math.min(cap, Math.max(n, this.maxEntries));
    const next = new Int32Array(2 * cap);
    next.set(this.data.subarray(0, 2 * this.count));
    this.data = next;
  }
}
