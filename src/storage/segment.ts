/**
 * One log segment: `<base>.log` (record batches, byte for byte as appended) with its sparse
 * offset index and time index. The active segment keeps its indexes in memory and appends with
 * positional writes on a descriptor from the shared FileHandleCache; an older segment opens
 * lazily (no I/O until it is read, searched or retained) and drops its indexes again when its
 * descriptor is evicted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LAST_OFFSET_DELTA_OFFSET, RECORD_BATCH_OVERHEAD, batchSizeAt, lastOffsetOf, maxTimestampOf } from '../protocol/batch-header.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { fsyncDir } from './checkpoint.js';
import { FileHandle, type FileHandleCache } from './file-handle-cache.js';
import { unlinkIfExists } from './index-file.js';
import { rollAfterMs, type LogConfig } from './log-config.js';
import { OFFSET_INDEX_ENTRY_SIZE, OffsetIndex } from './offset-index.js';
import { ScanStatus, SegmentScanner, readFully, writeAllGathered, writeFully } from './segment-scanner.js';
import { TIME_INDEX_ENTRY_SIZE, TimeIndex } from './time-index.js';

export const LOG_FILE_SUFFIX = '.log';
export const INDEX_FILE_SUFFIX = '.index';
export const TIME_INDEX_FILE_SUFFIX = '.timeindex';
const INT32_MAX = 2 ** 31 - 1;
const NO_TIMESTAMP = -1;

/** Kafka's file name for a base offset: 20 digits, zero-padded. */
export function offsetFileName(baseOffset: number, suffix: string): string {
  return String(baseOffset).padStart(20, '0') + suffix;
}

/** The base offset in a segment file name, or null when the name is not one. */
export function parseSegmentFileName(name: string): { baseOffset: number; suffix: string } | null {
  const m = /^(\d{20})(\.log|\.index|\.timeindex)$/.exec(name);
  if (!m) return null;
  const baseOffset = Number(m[1]);
  if (!Number.isSafeInteger(baseOffset)) return null;
  return { baseOffset, suffix: m[2]! };
}

/**
 * The name of a compacted file about to replace the segments with base offsets in [base, end):
 * once it exists, the replacement is decided (the log finishes it at open if a crash cut it short).
 */
export function swapFileName(baseOffset: number, endOffset: number): string {
  return `${offsetFileName(baseOffset, '')}.${offsetFileName(endOffset, '')}.swap`;
}

/** [base, end) of a swap file's name, or null when the name is not one. */
export function parseSwapFileName(name: string): { baseOffset: number; endOffset: number } | null {
  const m = /^(\d{20})\.(\d{20})\.swap$/.exec(name);
  if (!m) return null;
  const baseOffset = Number(m[1]);
  const endOffset = Number(m[2]);
  if (!Number.isSafeInteger(baseOffset) || !Number.isSafeInteger(endOffset) || endOffset <= baseOffset) return null;
  return { baseOffset, endOffset };
}

/** What every segment of one partition log shares; `config` changes in place on updates. */
export interface LogContext {
  readonly dir: string;
  readonly handles: FileHandleCache;
  readonly clock: Clock;
  readonly logger: Logger;
  config: LogConfig;
}

/** Where a batch sits in a segment. */
export interface BatchLocation {
  readonly position: number;
  readonly size: number;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly maxTimestamp: number;
}

function fdatasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

function readAt(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.read(fd, buf, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))),
  );
}

export class LogSegment {
  readonly logFile: string;
  readonly indexFile: string;
  readonly timeIndexFile: string;
  readonly handle: FileHandle;

  /** Bytes of valid data in the .log file; -1 until known (lazy segments). */
  private sizeBytes: number;
  /** Offset after the last batch; -1 until known (lazy segments). */
  private next: number;
  private offsetIdx: OffsetIndex | null = null;
  private timeIdx: TimeIndex | null = null;
  /** Largest batch max timestamp in the segment and the last offset of that batch. */
  private maxTimestamp = NO_TIMESTAMP;
  private offsetOfMaxTimestamp = -1;
  private bytesSinceLastIndexEntry = 0;
  /** Max timestamp of the first batch (what segment.ms counts from); undefined = not loaded. */
  private rollingBasedTimestamp: number | null | undefined;
  /** Creation (or load) time, for segment.ms when there is no batch timestamp. */
  private created: number;
  private active: boolean;
  /** The directory entry of a newly created file is not known to be durable yet. */
  private dirEntrySynced: boolean;

  private constructor(
    private readonly ctx: LogContext,
    readonly baseOffset: number,
    size: number,
    active: boolean,
  ) {
    this.logFile = path.join(ctx.dir, offsetFileName(baseOffset, LOG_FILE_SUFFIX));
    this.indexFile = path.join(ctx.dir, offsetFileName(baseOffset, INDEX_FILE_SUFFIX));
    this.timeIndexFile = path.join(ctx.dir, offsetFileName(baseOffset, TIME_INDEX_FILE_SUFFIX));
    this.handle = new FileHandle(this.logFile, () => this.onEvict());
    this.sizeBytes = size;
    this.next = size === 0 ? baseOffset : -1;
    this.active = active;
    this.created = ctx.clock.now();
    this.rollingBasedTimestamp = size === 0 ? null : undefined;
    this.dirEntrySynced = size !== 0;
  }

  /** A new, empty segment (any stale files with its name are replaced). */
  static create(ctx: LogContext, baseOffset: number): LogSegment {
    const seg = new LogSegment(ctx, baseOffset, 0, true);
    unlinkIfExists(seg.indexFile);
    unlinkIfExists(seg.timeIndexFile);
    ctx.handles.create(seg.handle);
    seg.offsetIdx = seg.newOffsetIndex();
    seg.timeIdx = seg.newTimeIndex();
    return seg;
  }

  /** An existing segment, opened lazily: nothing is read until needed. */
  static existing(ctx: LogContext, baseOffset: number): LogSegment {
    return new LogSegment(ctx, baseOffset, -1, false);
  }

  get isActive(): boolean {
    return this.active;
  }

  /** Bytes in the .log file. */
  get size(): number {
    if (this.sizeBytes < 0) this.sizeBytes = fs.fstatSync(this.fd()).size;
    return this.sizeBytes;
  }

  /** Offset after the last batch (the base offset when empty). */
  get nextOffset(): number {
    if (this.next < 0) this.loadTail();
    return this.next;
  }

  get offsetIndex(): OffsetIndex {
    this.ensureIndexes();
    return this.offsetIdx!;
  }

  get timeIndex(): TimeIndex {
    this.ensureIndexes();
    return this.timeIdx!;
  }

  /** Largest timestamp in the segment, or the file's mtime when no batch has one (as Kafka). */
  largestTimestamp(): number {
    this.ensureIndexes();
    if (this.maxTimestamp >= 0) return this.maxTimestamp;
    return Math.floor(fs.statSync(this.logFile).mtimeMs);
  }

  /** Largest batch timestamp, or -1. */
  maxTimestampSoFar(): number {
    this.ensureIndexes();
    return this.maxTimestamp;
  }

  /** A descriptor for the .log file (opened through the LRU cache). */
  fd(): number {
    return this.ctx.handles.fd(this.handle);
  }

  // ---- appends ----

  /**
   * True when a batch of `size` bytes, last offset `lastOffset` and max timestamp `maxTimestamp`
   * must go to a new segment: segment.bytes, segment.ms, a full index, or a relative offset that
   * no longer fits in 4 bytes.
   */
  shouldRoll(size: number, lastOffset: number, maxTimestamp: number, now: number): boolean {
    // an empty segment takes any batch (a batch is never larger than segment.bytes)
    return this.size > 0 && !this.takesRun(size, lastOffset, maxTimestamp, now);
  }

  /** Kafka's rule: time since the first batch's timestamp, or since creation without one. */
  private timeWaitedForRoll(now: number, maxTimestamp: number): number {
    if (this.rollingBasedTimestamp === undefined) this.loadFirstBatchTimestamp();
    const first = this.rollingBasedTimestamp;
    if (first !== null && first !== undefined && first >= 0) return maxTimestamp - first;
    return now - this.created;
  }

  private loadFirstBatchTimestamp(): void {
    if (this.size === 0) {
      this.rollingBasedTimestamp = null;
      return;
    }
    const scanner = new SegmentScanner(this.fd(), 0, this.size, false, 128);
    this.rollingBasedTimestamp = scanner.next() === ScanStatus.Batch ? scanner.maxTimestamp : null;
  }

  /**
   * True when `bytes` more (whole batches, the last ending at `lastOffset`, the latest
   * timestamp `maxTimestamp`) go into this segment without a roll before any of them:
   * segment.bytes, segment.ms (or a compacted log's sooner max.compaction.lag.ms), a full index
   * and a relative offset that must fit in 4 bytes.
   */
  takesRun(bytes: number, lastOffset: number, maxTimestamp: number, now: number): boolean {
    const config = this.ctx.config;
    if (this.size > config.segmentBytes - bytes) return false;
    if (this.size > 0 && this.timeWaitedForRoll(now, maxTimestamp) > rollAfterMs(config)) return false;
    if (this.offsetIndex.isFull() || this.timeIndex.isFull()) return false;
    return lastOffset - this.baseOffset <= INT32_MAX;
  }

  /**
   * Appends the whole batches in `buf[start, end)` (validated and stamped) with one write, then
   * indexes each as `append` does (the caller checked `takesRun`). Throws on an I/O error,
   * leaving the segment's state unchanged.
   */
  appendRun(buf: Buffer, start: number, end: number): void {
    const position = this.size;
    writeFully(this.fd(), buf, start, end - start, position);
    this.sizeBytes = position + (end - start);
    const offsetIndex = this.offsetIndex;
    for (let pos = start; pos < end; ) {
      const size = batchSizeAt(buf, pos);
      const lastOffset = lastOffsetOf(buf, pos);
      const maxTimestamp = maxTimestampOf(buf, pos);
      if (position === 0 && pos === start) this.rollingBasedTimestamp = maxTimestamp;
      this.indexBatch(offsetIndex, position + (pos - start), size, lastOffset, maxTimestamp);
      this.next = lastOffset + 1;
      pos += size;
    }
  }

  /**
   * Appends the whole batches of every buffer in `parts`, in order, `bytes` in all (validated
   * and stamped), with one gathering write, then indexes each as `append` does (the caller
   * checked `takesRun`). Throws on an I/O error, leaving the segment's state unchanged.
   */
  appendRuns(parts: readonly Buffer[], bytes: number): void {
    const position = this.size;
    writeAllGathered(this.fd(), parts, position);
    this.sizeBytes = position + bytes;
    const offsetIndex = this.offsetIndex;
    let at = position;
    for (const buf of parts) {
      for (let pos = 0, end = buf.length; pos < end; ) {
        const size = batchSizeAt(buf, pos);
        const lastOffset = lastOffsetOf(buf, pos);
        const maxTimestamp = maxTimestampOf(buf, pos);
        if (at === 0) this.rollingBasedTimestamp = maxTimestamp;
        this.indexBatch(offsetIndex, at, size, lastOffset, maxTimestamp);
        this.next = lastOffset + 1;
        at += size;
        pos += size;
      }
    }
  }

  /**
   * Appends the batch at buf[pos, pos + size) (already validated and stamped) at the end of the
   * file and indexes it. Throws on an I/O error, leaving the segment's state unchanged.
   */
  append(buf: Uint8Array, pos: number, size: number, lastOffset: number, maxTimestamp: number): void {
    const position = this.size;
    const offsetIndex = this.offsetIndex;
    writeFully(this.fd(), buf, pos, size, position);
    this.sizeBytes = position + size;
    if (position === 0) this.rollingBasedTimestamp = maxTimestamp;
    this.indexBatch(offsetIndex, position, size, lastOffset, maxTimestamp);
    this.next = lastOffset + 1;
  }

  /** The index bookkeeping of one batch at `position` (shared by appends and rebuilds). */
  indexBatch(offsetIndex: OffsetIndex, position: number, size: number, lastOffset: number, maxTimestamp: number): void {
    if (maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = maxTimestamp;
      this.offsetOfMaxTimestamp = lastOffset;
    }
    if (this.bytesSinceLastIndexEntry > this.ctx.config.indexIntervalBytes && !offsetIndex.isFull()) {
      offsetIndex.append(lastOffset, position);
      const timeIndex = this.timeIdx!;
      if (!timeIndex.isFull()) timeIndex.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += size;
  }

  /** The segment stops being the active one: final time index entry, indexes to disk. */
  onBecomeInactive(): void {
    this.ensureIndexes();
    if (this.maxTimestamp >= 0) this.timeIdx!.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp, true);
    this.persistIndexes();
    this.active = false;
  }

  /** Marks this (the last) segment as the active one, loading what appends need. */
  makeActive(): void {
    this.ensureIndexes();
    this.active = true;
  }

  // ---- reads ----

  /**
   * Finds the first batch whose last offset is >= `target`, scanning forward from the offset
   * index's floor entry. Null when the segment has no such batch.
   */
  translateOffset(target: number): BatchLocation | null {
    const start = this.offsetIndex.lookupPosition(target);
    const scanner = new SegmentScanner(this.fd(), start, this.size, false, 8192);
    for (;;) {
      const status = scanner.next();
      if (status !== ScanStatus.Batch) return null;
      if (scanner.lastOffset >= target) {
        return {
          position: scanner.pos,
          size: scanner.size,
          baseOffset: scanner.baseOffset,
          lastOffset: scanner.lastOffset,
          maxTimestamp: scanner.maxTimestamp,
        };
      }
    }
  }

  /** The file position of the offset index's floor entry for `target` (where a scan for it starts). */
  indexFloorPosition(target: number): number {
    return this.offsetIndex.lookupPosition(target);
  }

  /**
   * The batch holding `target` and what follows it, found with one blocking read: `length`
   * bytes (at most to the end of the segment) from `floor` (indexFloorPosition), the batches
   * before the target's skipped in memory. `none` when the segment has no batch at or past
   * `target`; null when the target's batch does not lie wholly inside what was read (the
   * caller then locates it with translateOffset and reads from there).
   */
  readFromFloor(floor: number, target: number, length: number): { bytes: Buffer; size: number; lastOffset: number } | 'none' | null {
    const buf = this.readBytesNow(floor, Math.max(0, Math.min(length, this.size - floor)));
    let pos = 0;
    while (buf.length - pos >= LAST_OFFSET_DELTA_OFFSET + 4) {
      const size = batchSizeAt(buf, pos);
      if (size < RECORD_BATCH_OVERHEAD) return null;
      const last = lastOffsetOf(buf, pos);
      if (last >= target) return size <= buf.length - pos ? { bytes: buf.subarray(pos), size, lastOffset: last } : null;
      pos += size;
    }
    return floor + pos >= this.size ? 'none' : null;
  }

  /**
   * readBytes with a blocking read, for the active segment's tail, which the page cache holds
   * (nothing else runs meanwhile, so the descriptor needs no pin).
   */
  readBytesNow(position: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    const done = readFully(this.fd(), out, 0, length, position);
    return done === length ? out : out.subarray(0, done);
  }

  /**
   * Reads file[position, position + length) into a new Buffer with an async positional read;
   * the descriptor is pinned meanwhile so the LRU cannot close it.
   */
  async readBytes(position: number, length: number): Promise<Buffer> {
    const out = Buffer.allocUnsafe(length);
    const handles = this.ctx.handles;
    const fd = handles.pin(this.handle);
    try {
      let done = 0;
      while (done < length) {
        const n = await readAt(fd, out, done, length - done, position + done);
        if (n === 0) break;
        done += n;
      }
      return done === length ? out : out.subarray(0, done);
    } finally {
      handles.unpin(this.handle);
    }
  }

  /**
   * The first batch (at or after `startingOffset`) whose max timestamp is >= `ts`, located via
   * the time index then the offset index. Null when there is none in this segment.
   */
  findBatchByTimestamp(ts: number, startingOffset: number): BatchLocation | null {
    const from = Math.max(this.timeIndex.lookupStartOffset(ts), startingOffset);
    const start = this.offsetIndex.lookupPosition(from);
    const scanner = new SegmentScanner(this.fd(), start, this.size, false);
    for (;;) {
      if (scanner.next() !== ScanStatus.Batch) return null;
      if (scanner.lastOffset >= startingOffset && scanner.maxTimestamp >= ts) {
        return {
          position: scanner.pos,
          size: scanner.size,
          baseOffset: scanner.baseOffset,
          lastOffset: scanner.lastOffset,
          maxTimestamp: scanner.maxTimestamp,
        };
      }
    }
  }

  // ---- truncation ----

  /**
   * Removes every batch whose last offset is >= `offset` (so the cut falls on a batch boundary).
   * Returns the number of bytes removed.
   */
  truncateTo(offset: number): number {
    const location = this.translateOffset(offset);
    if (!location) return 0;
    const before = this.size;
    const offsetIndex = this.offsetIndex;
    fs.ftruncateSync(this.fd(), location.position);
    this.sizeBytes = location.position;
    offsetIndex.truncateToPosition(location.position);
    this.timeIdx!.truncateTo(location.baseOffset);
    this.bytesSinceLastIndexEntry = 0;
    this.reloadTailState();
    if (location.position === 0) {
      this.created = this.ctx.clock.now();
      this.rollingBasedTimestamp = null;
    }
    return before - location.position;
  }

  /**
   * Recomputes the next offset and max timestamp from the last offset index entry's position to
   * the end (plus the time index's last entry). Returns why the tail is unreadable, or null.
   */
  private reloadTailState(): string | null {
    const offsetIndex = this.offsetIdx!;
    const start = offsetIndex.entries > 0 ? offsetIndex.positionAt(offsetIndex.entries - 1) : 0;
    const timeIndex = this.timeIdx!;
    this.maxTimestamp = NO_TIMESTAMP;
    this.offsetOfMaxTimestamp = -1;
    if (timeIndex.entries > 0) {
      this.maxTimestamp = timeIndex.lastTimestamp();
      this.offsetOfMaxTimestamp = timeIndex.offsetAt(timeIndex.entries - 1);
    }
    let next = start === 0 ? this.baseOffset : offsetIndex.offsetAt(offsetIndex.entries - 1) + 1;
    const end = this.size;
    const scanner = new SegmentScanner(this.fd(), start, end, false);
    for (;;) {
      const status = scanner.next();
      if (status === ScanStatus.End) break;
      if (status !== ScanStatus.Batch) {
        this.next = next;
        return scanner.reason;
      }
      next = scanner.lastOffset + 1;
      if (scanner.maxTimestamp > this.maxTimestamp) {
        this.maxTimestamp = scanner.maxTimestamp;
        this.offsetOfMaxTimestamp = scanner.lastOffset;
      }
    }
    this.next = next;
    return null;
  }

  // ---- loading, recovery support ----

  /**
   * Loads the tail of a trusted segment (the active one after a clean shutdown): indexes from
   * disk and a header scan after the last index entry. Returns why it cannot be trusted (then
   * the caller recovers it), or null.
   */
  loadTail(): string | null {
    this.ensureIndexes();
    return this.reloadTailState();
  }

  /** Starts a rebuild: empty in-memory indexes and counters; the files are replaced on persist. */
  resetForRecovery(): OffsetIndex {
    this.offsetIdx?.deleteFile();
    this.timeIdx?.deleteFile();
    unlinkIfExists(this.indexFile);
    unlinkIfExists(this.timeIndexFile);
    this.offsetIdx = this.newOffsetIndex();
    this.timeIdx = this.newTimeIndex();
    this.maxTimestamp = NO_TIMESTAMP;
    this.offsetOfMaxTimestamp = -1;
    this.bytesSinceLastIndexEntry = 0;
    this.rollingBasedTimestamp = undefined;
    this.sizeBytes = -1;
    return this.offsetIdx;
  }

  /** Ends a rebuild or recovery: the valid bytes and next offset found. */
  completeRecovery(validBytes: number, nextOffset: number, firstBatchTimestamp: number | null): void {
    this.sizeBytes = validBytes;
    this.next = nextOffset;
    this.rollingBasedTimestamp = firstBatchTimestamp;
  }

  /** Loads the indexes from disk if not in memory, rebuilding them from the log when damaged. */
  ensureIndexes(): void {
    if (this.offsetIdx && this.timeIdx) return;
    const offsetIndex = this.newOffsetIndex();
    const timeIndex = this.newTimeIndex();
    this.offsetIdx = offsetIndex;
    this.timeIdx = timeIndex;
    if (this.size === 0) {
      unlinkIfExists(this.indexFile);
      unlinkIfExists(this.timeIndexFile);
      return;
    }
    const problem = offsetIndex.load(this.size) ?? timeIndex.load(Number.MAX_SAFE_INTEGER);
    if (problem === null) {
      this.maxTimestamp = timeIndex.lastTimestamp();
      this.offsetOfMaxTimestamp = timeIndex.entries > 0 ? timeIndex.offsetAt(timeIndex.entries - 1) : -1;
      return;
    }
    this.ctx.logger.warn('rebuilding segment indexes', { segment: this.logFile, reason: problem });
    this.rebuildIndexes();
  }

  /** Rebuilds both indexes from the batch headers (no CRC checks: for trusted segments). */
  rebuildIndexes(): void {
    const offsetIndex = this.resetForRecovery();
    const end = this.size;
    const scanner = new SegmentScanner(this.fd(), 0, end, false);
    let first: number | null = null;
    let next = this.baseOffset;
    for (;;) {
      const status = scanner.next();
      if (status !== ScanStatus.Batch) {
        if (status !== ScanStatus.End) {
          this.ctx.logger.warn('unreadable batch while rebuilding an index', { segment: this.logFile, reason: scanner.reason });
        }
        break;
      }
      if (first === null) first = scanner.maxTimestamp;
      this.indexBatch(offsetIndex, scanner.pos, scanner.size, scanner.lastOffset, scanner.maxTimestamp);
      next = scanner.lastOffset + 1;
    }
    this.completeRecovery(end, next, first);
    if (!this.active) {
      if (this.maxTimestamp >= 0) this.timeIdx!.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp, true);
      this.persistIndexes();
    }
  }

  // ---- durability and lifecycle ----

  persistIndexes(): void {
    this.offsetIdx?.persist();
    this.timeIdx?.persist();
  }

  /**
   * Writes pending index entries and fsyncs the .log file (and, once, the directory so a new
   * segment's name is durable too). A segment deleted meanwhile is skipped.
   */
  async flush(): Promise<void> {
    if (this.handle.retired) return;
    this.persistIndexes();
    const handles = this.ctx.handles;
    const fd = handles.pin(this.handle);
    try {
      await fdatasync(fd);
    } finally {
      handles.unpin(this.handle);
    }
    if (!this.dirEntrySynced && !this.handle.retired) {
      await fsyncDir(this.ctx.dir);
      this.dirEntrySynced = true;
    }
  }

  /** Persists the indexes and lets go of the descriptor. */
  close(): void {
    this.persistIndexes();
    this.ctx.handles.retire(this.handle);
  }

  /** Closes the descriptor and removes the segment's files. */
  deleteFiles(): void {
    this.ctx.handles.retire(this.handle);
    unlinkIfExists(this.logFile);
    unlinkIfExists(this.indexFile);
    unlinkIfExists(this.timeIndexFile);
    this.offsetIdx = null;
    this.timeIdx = null;
  }

  /** Reads file[position, position + length) synchronously (recovery, tests). */
  readBytesSync(position: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    const n = readFully(this.fd(), out, 0, length, position);
    return n === length ? out : out.subarray(0, n);
  }

  /** Bytes of memory held by the in-memory indexes. */
  indexMemoryBytes(): number {
    return (this.offsetIdx?.memoryBytes() ?? 0) + (this.timeIdx?.memoryBytes() ?? 0);
  }

  private onEvict(): void {
    if (this.active) return;
    if (this.offsetIdx?.isDirty() || this.timeIdx?.isDirty()) return;
    this.offsetIdx = null;
    this.timeIdx = null;
  }

  private newOffsetIndex(): OffsetIndex {
    const max = Math.floor(this.ctx.config.segmentIndexBytes / OFFSET_INDEX_ENTRY_SIZE);
    return new OffsetIndex(this.indexFile, this.baseOffset, Math.max(1, max));
  }

  private newTimeIndex(): TimeIndex {
    const max = Math.floor(this.ctx.config.segmentIndexBytes / TIME_INDEX_ENTRY_SIZE);
    return new TimeIndex(this.timeIndexFile, this.baseOffset, Math.max(1, max));
  }
}
