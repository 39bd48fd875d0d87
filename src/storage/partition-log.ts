/**
 * The log of one partition: an ordered list of segments in `<log dir>/<topic>-<partition>/`, the
 * leader epoch cache, and the offsets that describe it (log start, log end, high watermark,
 * recovery point). Owned by exactly one actor, so there are no locks: every state change happens
 * synchronously inside one call (positional writes on the active segment), and only reads,
 * fsyncs and checkpoint writes yield. Expected failures come back as data (`errorCode`), I/O
 * errors as KAFKA_STORAGE_ERROR (after which the log is offline); misuse throws.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  TRANSACTIONAL_FLAG_MASK,
  TimestampType,
  attributesOf,
  baseOffsetOf,
  batchSizeAt,
  lastOffsetOf,
  maxTimestampOf,
  partitionLeaderEpochOf,
  setBaseOffset,
  setMaxTimestamp,
  setPartitionLeaderEpoch,
  validateBatch,
  LAST_OFFSET_DELTA_OFFSET,
  RECORD_BATCH_OVERHEAD,
} from '../protocol/batch-header.js';
import { ErrorCode } from '../protocol/errors.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import { childLogger, type Logger } from '../runtime/logger.js';
import { fsyncDir, fsyncDirSync, isTempFile, readTextIfExists, writeFileAtomic, writeFileAtomicSync } from './checkpoint.js';
import { FileHandleCache } from './file-handle-cache.js';
import { LeaderEpochCache, type EpochEndOffset } from './leader-epoch-cache.js';
import { CLEANED_FILE_SUFFIX, compactLog, horizonAt, planCompaction, type CleanableLog, type CleanerOptions, type CompactionPlan, type CompactionStats } from './log-cleaner.js';
import { DEFAULT_LOG_CONFIG, deletesByRetention, isCompacted, parseLogConfig, type LogConfig, type LogConfigInput } from './log-config.js';
import { recoverLog } from './recovery.js';
import { LOG_FILE_SUFFIX, LogSegment, offsetFileName, parseSegmentFileName, parseSwapFileName, swapFileName, type LogContext } from './segment.js';
import { firstRecordAtOrAfter } from './timestamp-lookup.js';
import { TransactionIndex, type AbortedTxn } from './txn-index.js';

/**
 * Present in a partition's directory once a transactional batch was appended: the log then keeps
 * a transaction index (rebuilt from its batches when opened), and logs without it pay nothing.
 */
export const TRANSACTIONS_MARKER_FILE = 'transactional';
/**
 * The transaction index as a clean close left it (with the log end it describes): the next open
 * after a clean shutdown takes it instead of reading the log, and deletes it (never used twice).
 */
export const TRANSACTIONS_SNAPSHOT_FILE = 'transactions.snapshot';
/**
 * A transactional log's index as it stood when a segment was rolled at an offset
 * (`<20-digit offset>.txnsnapshot`, as Kafka's producer snapshots): after an unclean shutdown the
 * log reads its batches from the latest such snapshot on, not from its start.
 */
export const TXN_ROLL_SNAPSHOT_SUFFIX = '.txnsnapshot';
/** Roll snapshots kept: the newest and one before it (the newest may be above a torn tail). */
const TXN_ROLL_SNAPSHOTS_KEPT = 2;

/** ListOffsets' special timestamps. */
export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;

/** Default descriptors for a log opened without a LogManager's shared cache. */
const STANDALONE_MAX_OPEN_FILES = 64;
/** How far behind the end of the active segment a read is still served with a blocking read. */
const TAIL_READ_BYTES = 32 * 1024 * 1024;
/** A tail read's reach past maxBytes and an index interval: room for the batch holding the offset. */
const ONE_READ_SLACK = 64 * 1024;

export interface PartitionLogOptions {
  /** The partition's directory, `<log dir>/<topic>-<partition>`. */
  readonly dir: string;
  readonly topic: string;
  readonly partition: number;
  readonly config?: LogConfig;
  readonly clock?: Clock;
  /** Shared descriptor LRU (a LogManager passes its own); a small private one by default. */
  readonly handles?: FileHandleCache;
  readonly logger?: Logger;
  /** From recovery-point-offset-checkpoint: everything below it is known to be on disk. */
  readonly recoveryPoint?: number;
  /** From replication-offset-checkpoint. */
  readonly highWatermark?: number;
  /** From log-start-offset-checkpoint: a log start moved by DeleteRecords past the first segment's base. */
  readonly logStartOffset?: number;
  /** The log dir was shut down cleanly: skip recovery, only load the active segment's tail. */
  readonly hadCleanShutdown?: boolean;
  /** From cleaner-offset-checkpoint: where the last compaction pass ended. */
  readonly firstDirtyOffset?: number;
  /** Told once when an I/O error takes the log offline (its log manager takes the whole dir offline). */
  readonly onOffline?: (reason: string) => void;
}

export enum LogState {
  /** Serving appends and reads. */
  Open = 'Open',
  /** An I/O error left disk and memory possibly apart: every call answers KAFKA_STORAGE_ERROR. */
  Offline = 'Offline',
  /** close() was called. */
  Closed = 'Closed',
  /** delete() was called. */
  Deleted = 'Deleted',
}

type AppendErrorCode =
  | typeof ErrorCode.CORRUPT_MESSAGE
  | typeof ErrorCode.MESSAGE_TOO_LARGE
  | typeof ErrorCode.RECORD_LIST_TOO_LARGE
  | typeof ErrorCode.OFFSET_OUT_OF_RANGE
  | typeof ErrorCode.KAFKA_STORAGE_ERROR;

export interface AppendOk {
  readonly errorCode: typeof ErrorCode.NONE;
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** The timestamp stamped under LogAppendTime, else -1. */
  readonly logAppendTime: number;
  readonly logStartOffset: number;
}

export interface AppendError {
  readonly errorCode: AppendErrorCode;
  readonly reason: string;
}

export type AppendResult = AppendOk | AppendError;

export interface AppendOptions {
  /** Stamped into each batch's partitionLeaderEpoch when assigning offsets. */
  readonly leaderEpoch: number;
  /** True for the leader: overwrite baseOffset with the log end offset. Default true. */
  readonly assignOffsets?: boolean;
}

export interface ReadOptions {
  /** Exclusive upper bound on returned offsets, e.g. the high watermark. */
  readonly maxOffset?: number;
}

interface ReadCommon {
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly highWatermark: number;
}

export interface ReadOk extends ReadCommon {
  readonly errorCode: typeof ErrorCode.NONE;
  /** Whole batches, byte for byte as stored; empty when there is nothing to return. */
  readonly records: Buffer;
}

export interface ReadError extends ReadCommon {
  readonly errorCode: typeof ErrorCode.OFFSET_OUT_OF_RANGE | typeof ErrorCode.KAFKA_STORAGE_ERROR;
  readonly reason: string;
}

export type ReadResult = ReadOk | ReadError;

export interface TimestampOffset {
  readonly errorCode: typeof ErrorCode.NONE;
  /** -1 when no record has a timestamp >= the one asked for. */
  readonly offset: number;
  readonly timestamp: number;
  readonly leaderEpoch: number;
}

export type OffsetForTimestampResult =
  | TimestampOffset
  | { readonly errorCode: typeof ErrorCode.KAFKA_STORAGE_ERROR; readonly reason: string };

export interface FlushResult {
  readonly errorCode: typeof ErrorCode.NONE | typeof ErrorCode.KAFKA_STORAGE_ERROR;
  readonly reason?: string;
}

const EMPTY = Buffer.alloc(0);

/** True for errors raised by the file system (as opposed to programming errors). */
export function isIoError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string';
}

export class PartitionLog implements CleanableLog {
  private segments: LogSegment[];
  private state = LogState.Open;
  private logStart: number;
  private logEnd: number;
  private hw: number;
  private recoveryPointOffset: number;
  private lastFlushTime: number;
  private flushChain: Promise<void> = Promise.resolve();
  private readonly epochCache: LeaderEpochCache;
  /** The partition directory was just created: fsync the log dir at the first flush. */
  private dirCreated = false;
  /** Compaction: records below this offset have been compacted (clamped to the log when read). */
  private cleanedUpTo = 0;
  private truncationCount = 0;
  /** Compaction: the earliest delete horizon of the tombstones in the compacted part (log-cleaner.ts). */
  private deleteHorizonLeft = Infinity;
  /** The partition's transactions; null while the log has never held a transactional batch. */
  private txns: TransactionIndex | null = null;
  /** The roll snapshot writes in order (snapshotTransactionsAt); awaited before the files are read or removed. */
  private txnSnapshotWrites: Promise<void> = Promise.resolve();
  /** Told when an I/O error takes the log offline. */
  private onOffline: ((reason: string) => void) | null = null;

  private constructor(
    private readonly ctx: LogContext,
    readonly topic: string,
    readonly partition: number,
    segments: LogSegment[],
    epochCache: LeaderEpochCache,
    recoveryPoint: number,
    highWatermark: number,
    logStartOffset: number,
  ) {
    this.segments = segments;
    this.epochCache = epochCache;
    this.logEnd = segments[segments.length - 1]!.nextOffset;
    this.logStart = Math.max(segments[0]!.baseOffset, Math.min(logStartOffset, this.logEnd));
    this.recoveryPointOffset = Math.max(this.logStart, Math.min(recoveryPoint, this.logEnd));
    this.hw = Math.max(this.logStart, Math.min(highWatermark, this.logEnd));
    this.lastFlushTime = ctx.clock.now();
  }

  /**
   * Opens (creating if needed) the log in `options.dir`: lists the segments, recovers from the
   * recovery point unless the shutdown was clean, and loads only the active segment's tail.
   */
  static async open(options: PartitionLogOptions): Promise<PartitionLog> {
    const clock = options.clock ?? systemClock;
    const logger = options.logger ?? childLogger({ component: 'log', topicPartition: `${options.topic}-${options.partition}` });
    const ctx: LogContext = {
      dir: options.dir,
      clock,
      logger,
      handles: options.handles ?? new FileHandleCache(STANDALONE_MAX_OPEN_FILES),
      config: options.config ?? DEFAULT_LOG_CONFIG,
    };
    const recoveryPoint = options.recoveryPoint ?? 0;
    const dirCreated = !fs.existsSync(ctx.dir);
    fs.mkdirSync(ctx.dir, { recursive: true });
    const bases = PartitionLog.listSegments(ctx.dir);
    const epochCache = new LeaderEpochCache(ctx.dir, logger);
    epochCache.load();
    let segments: LogSegment[];
    if (bases.length === 0) {
      segments = [LogSegment.create(ctx, Math.max(0, recoveryPoint))];
    } else {
      segments = bases.map((base) => LogSegment.existing(ctx, base));
      let needsRecovery = !options.hadCleanShutdown;
      if (!needsRecovery) {
        const problem = segments[segments.length - 1]!.loadTail();
        if (problem !== null) {
          logger.warn('active segment tail is unreadable after a clean shutdown; recovering it', { reason: problem });
          needsRecovery = true;
        }
      }
      if (needsRecovery) {
        const recoverFrom = options.hadCleanShutdown ? segments[segments.length - 1]!.baseOffset : recoveryPoint;
        segments = recoverLog(segments, recoverFrom, epochCache, logger).segments;
      }
      segments[segments.length - 1]!.makeActive();
    }
    const log = new PartitionLog(ctx, options.topic, options.partition, segments, epochCache, recoveryPoint, options.highWatermark ?? 0, options.logStartOffset ?? 0);
    log.dirCreated = dirCreated;
    log.onOffline = options.onOffline ?? null;
    log.cleanedUpTo = Math.min(options.firstDirtyOffset ?? 0, log.logEnd);
    // the delete horizons in the compacted part are not known after an open, only bounded: a pass
    // wrote each before now, as its time + delete.retention.ms (horizonAt); one pass then finds them
    if (log.firstDirtyOffset > log.logStart) log.deleteHorizonLeft = horizonAt(clock.now(), ctx.config.deleteRetentionMs) ?? Infinity;
    epochCache.truncateFromEnd(log.logEnd);
    epochCache.truncateFromStart(log.logStart);
    if (fs.existsSync(path.join(ctx.dir, TRANSACTIONS_MARKER_FILE))) await log.loadTransactions(options.hadCleanShutdown === true);
    return log;
  }

  /**
   * Base offsets of the segments in `dir`, sorted; finishes a compaction swap a crash cut short,
   * removes temp files, unfinished cleaned files and orphan indexes.
   */
  private static listSegments(dir: string): number[] {
    let names = fs.readdirSync(dir);
    for (const swap of names) {
      const range = parseSwapFileName(swap);
      if (!range) continue;
      for (const name of names) {
        const parsed = parseSegmentFileName(name);
        if (parsed && parsed.baseOffset >= range.baseOffset && parsed.baseOffset < range.endOffset) fs.rmSync(path.join(dir, name), { force: true });
      }
      fs.renameSync(path.join(dir, swap), path.join(dir, offsetFileName(range.baseOffset, LOG_FILE_SUFFIX)));
      names = fs.readdirSync(dir);
    }
    const logs = new Set<number>();
    const indexes: { name: string; base: number }[] = [];
    for (const name of names) {
      if (isTempFile(name) || name.endsWith('.deleted') || name.endsWith(CLEANED_FILE_SUFFIX)) {
        fs.rmSync(path.join(dir, name), { force: true });
        continue;
      }
      const parsed = parseSegmentFileName(name);
      if (!parsed) continue;
      if (parsed.suffix === LOG_FILE_SUFFIX) logs.add(parsed.baseOffset);
      else indexes.push({ name, base: parsed.baseOffset });
    }
    for (const index of indexes) {
      if (!logs.has(index.base)) fs.rmSync(path.join(dir, index.name), { force: true });
    }
    return [...logs].sort((a, b) => a - b);
  }

  // ---- offsets and state ----

  get dir(): string {
    return this.ctx.dir;
  }

  get config(): LogConfig {
    return this.ctx.config;
  }

  get status(): LogState {
    return this.state;
  }

  get logStartOffset(): number {
    return this.logStart;
  }

  get logEndOffset(): number {
    return this.logEnd;
  }

  get highWatermark(): number {
    return this.hw;
  }

  set highWatermark(offset: number) {
    this.updateHighWatermark(offset);
  }

  /**
   * How far read_committed consumers read: the high watermark, or the first offset of the oldest
   * transaction still open below it (Kafka's LSO). The log cleaner stays below it too.
   */
  get lastStableOffset(): number {
    return this.txns ? this.txns.lastStableOffset(this.hw) : this.hw;
  }

  /** Whether the log ever held a transactional batch (it keeps a transaction index). */
  get hasTransactions(): boolean {
    return this.txns !== null;
  }

  /** The first offset of the oldest open transaction, or null. */
  get firstUnstableOffset(): number | null {
    return this.txns?.firstUnstableOffset ?? null;
  }

  /** Aborted transactions with records in [from, to), for a read_committed fetch. */
  abortedTransactions(from: number, to: number): AbortedTxn[] {
    return this.txns ? this.txns.abortedBetween(from, to) : [];
  }

  /** The cleaner removed these ABORT markers (their records went first): their transactions leave the index. */
  forgetAbortedTransactions(markers: readonly { producerId: number; lastOffset: number }[]): void {
    if (!this.txns || markers.length === 0) return;
    this.txns.forgetAborted(markers);
    // the roll snapshots forget them too, or an unclean open would bring them back
    this.txnSnapshotWrites = this.txnSnapshotWrites.then(async () => {
      if (this.state !== LogState.Open) return;
      for (const snap of this.txnRollSnapshots()) {
        const file = path.join(this.ctx.dir, snap.name);
        try {
          const index = TransactionIndex.fromSnapshotText(readTextIfExists(file), snap.offset);
          if (!index) continue;
          index.forgetAborted(markers);
          await writeFileAtomic(file, index.snapshotText(snap.offset));
        } catch (err) {
          if (!isIoError(err)) throw err;
          // an unclean open then lists those aborted transactions still: reads skip nothing wrongly
          this.ctx.logger.warn('transaction roll snapshot not rewritten', { file, error: err.message });
        }
      }
    });
  }

  /** The open transactions, producer id -> first offset. */
  openTransactions(): ReadonlyMap<number, number> {
    return this.txns?.openTransactions() ?? new Map();
  }

  /** Offsets below this are known to be on disk (fsynced). */
  get recoveryPoint(): number {
    return this.recoveryPointOffset;
  }

  get latestEpoch(): number {
    return this.epochCache.latestEpoch();
  }

  get numberOfSegments(): number {
    return this.segments.length;
  }

  /** Base offsets of the segments, oldest first. */
  segmentBaseOffsets(): number[] {
    return this.segments.map((s) => s.baseOffset);
  }

  /** Total bytes of the segment files. */
  get size(): number {
    let total = 0;
    for (const s of this.segments) total += s.size;
    return total;
  }

  /** Sets the high watermark, clamped to [logStartOffset, logEndOffset]; returns it. */
  updateHighWatermark(offset: number): number {
    this.assertOpen();
    this.hw = Math.max(this.logStart, Math.min(offset, this.logEnd));
    return this.hw;
  }

  /** Applies new settings (Kafka keys over the current values, or a full LogConfig). */
  updateConfig(config: LogConfig | LogConfigInput): void {
    this.ctx.config = isLogConfig(config) ? config : parseLogConfig(config, this.ctx.config);
  }

  // ---- appends ----

  /**
   * Appends one or more record batches: one buffer of them, or a list of such buffers (the
   * batches of a produce entry where they lie apart in memory), written in order with one
   * gathering write. Every batch is validated first (length, magic, CRC, size limits) and
   * nothing is written when one fails. As leader (assignOffsets, the default) each batch gets
   * baseOffset = log end offset and the partition leader epoch written into its header —
   * `records` is modified in place, never re-encoded — and under LogAppendTime its max
   * timestamp. Without assignOffsets (a follower) the batches keep their offsets, which must
   * start at or above the log end offset and increase.
   */
  async append(records: Buffer | readonly Buffer[], options: AppendOptions): Promise<AppendResult> {
    const res = this.appendNow(records, options);
    if (res.errorCode !== ErrorCode.NONE || !this.flushDue) return res;
    const flushed = await this.flush();
    if (flushed.errorCode !== ErrorCode.NONE) return storageError(flushed.reason ?? 'flush failed');
    return res;
  }

  /**
   * `append` without the flush.messages fsync, synchronously (the hot path needs no event-loop
   * turn per batch). A caller that acknowledges the write must first `flush()` when `flushDue`.
   */
  appendNow(records: Buffer | readonly Buffer[], options: AppendOptions): AppendResult {
    this.assertUsable();
    if (this.state === LogState.Offline) return storageError('log is offline after an earlier I/O error');
    const parts = Buffer.isBuffer(records) ? [records] : (records as readonly Buffer[]);
    if (parts.length === 0) return { errorCode: ErrorCode.CORRUPT_MESSAGE, reason: 'no record batch to append' };
    const assign = options.assignOffsets ?? true;
    let expected = this.logEnd;
    for (const part of parts) {
      const invalid = this.validateAppend(part, assign, expected);
      if (typeof invalid !== 'number') return invalid;
      expected = invalid;
    }
    const config = this.ctx.config;
    const appendTime = assign && config.messageTimestampType === 'LogAppendTime' ? this.ctx.clock.now() : -1;
    const firstOffset = assign ? this.logEnd : baseOffsetOf(parts[0]!, 0);
    try {
      if (assign) {
        // offsets run on from the log end, batch after batch
        let next = this.logEnd;
        for (const part of parts) {
          for (let pos = 0, end = part.length; pos < end; pos += batchSizeAt(part, pos)) {
            setBaseOffset(part, pos, next);
            setPartitionLeaderEpoch(part, pos, options.leaderEpoch);
            if (appendTime >= 0) setMaxTimestamp(part, pos, TimestampType.LOG_APPEND_TIME, appendTime);
            next = lastOffsetOf(part, pos) + 1;
          }
        }
      }
      // the common case, every batch into the active segment: one write for all of them (a
      // producer request or a follower fetch carries many); else batch by batch, rolling
      if (!this.appendRunIfItFits(parts)) {
        for (const part of parts) {
          for (let pos = 0, end = part.length; pos < end; ) {
            const size = batchSizeAt(part, pos);
            this.appendBatch(part, pos, size);
            pos += size;
          }
        }
      }
    } catch (err) {
      return this.onIoError(err, 'append');
    }
    return {
      errorCode: ErrorCode.NONE,
      baseOffset: firstOffset,
      lastOffset: this.logEnd - 1,
      logAppendTime: appendTime,
      logStartOffset: this.logStart,
    };
  }

  /** flush.messages appended since the last fsync: an append must be flushed before it counts. */
  get flushDue(): boolean {
    return this.logEnd - this.recoveryPointOffset >= this.ctx.config.flushMessages;
  }

  /** Appends batches fetched from the leader, keeping their offsets and leader epochs. */
  appendAsFollower(records: Buffer): Promise<AppendResult> {
    return this.append(records, { leaderEpoch: -1, assignOffsets: false });
  }

  /**
   * Checks every batch of one buffer before anything is written: the offset a follower's next
   * batch must start at or above when all are acceptable (`expected` on from the last one), else
   * the error.
   */
  private validateAppend(records: Buffer, assign: boolean, expected: number): number | AppendError {
    const end = records.length;
    if (end === 0) return { errorCode: ErrorCode.CORRUPT_MESSAGE, reason: 'no record batch to append' };
    const config = this.ctx.config;
    let pos = 0;
    while (pos < end) {
      const invalid = validateBatch(records, pos, end - pos);
      if (invalid) return { errorCode: ErrorCode.CORRUPT_MESSAGE, reason: invalid.reason };
      const size = batchSizeAt(records, pos);
      if (size > config.maxMessageBytes) {
        return { errorCode: ErrorCode.MESSAGE_TOO_LARGE, reason: `batch of ${size} bytes exceeds max.message.bytes ${config.maxMessageBytes}` };
      }
      if (size > config.segmentBytes) {
        return { errorCode: ErrorCode.RECORD_LIST_TOO_LARGE, reason: `batch of ${size} bytes exceeds segment.bytes ${config.segmentBytes}` };
      }
      if (!assign) {
        const base = baseOffsetOf(records, pos);
        if (base < expected) {
          return {
            errorCode: ErrorCode.OFFSET_OUT_OF_RANGE,
            reason: `batch base offset ${base} is below the expected ${expected} (offsets must increase from the log end offset)`,
          };
        }
        expected = lastOffsetOf(records, pos) + 1;
      }
      pos += size;
    }
    return expected;
  }

  /**
   * Writes the validated, stamped batches of `parts` with one write when the active segment
   * takes them all without a roll; false (nothing written) otherwise.
   */
  private appendRunIfItFits(parts: readonly Buffer[]): boolean {
    let last = -1;
    let maxTimestamp = -1;
    let bytes = 0;
    // leader epochs that start in this run (a follower's fetch can span several), in order
    let epochStarts: [epoch: number, startOffset: number][] | null = null;
    let transactional = false;
    let latestEpoch = this.epochCache.latestEpoch();
    for (const records of parts) {
      const end = records.length;
      bytes += end;
      for (let pos = 0; pos < end; pos += batchSizeAt(records, pos)) {
        if ((attributesOf(records, pos) & TRANSACTIONAL_FLAG_MASK) !== 0) transactional = true;
        last = lastOffsetOf(records, pos);
        maxTimestamp = Math.max(maxTimestamp, maxTimestampOf(records, pos));
        const epoch = partitionLeaderEpochOf(records, pos);
        if (epoch >= 0 && epoch > latestEpoch) {
          (epochStarts ??= []).push([epoch, baseOffsetOf(records, pos)]);
          latestEpoch = epoch;
        }
      }
    }
    const active = this.activeSegment;
    if (!active.takesRun(bytes, last, maxTimestamp, this.ctx.clock.now())) return false;
    if (parts.length === 1) active.appendRun(parts[0]!, 0, bytes);
    else active.appendRuns(parts, bytes);
    if (epochStarts) for (const [epoch, startOffset] of epochStarts) this.epochCache.assign(epoch, startOffset);
    this.logEnd = last + 1;
    if (transactional) for (const records of parts) this.observeTransactions(records);
    return true;
  }

  /** Notes the transactional batches of `records` (appended) in the transaction index. */
  private observeTransactions(records: Buffer, from = 0, to = records.length): void {
    for (let pos = from; pos < to; pos += batchSizeAt(records, pos)) {
      if ((attributesOf(records, pos) & TRANSACTIONAL_FLAG_MASK) === 0) continue;
      this.transactionIndex().observe(records, pos);
    }
  }

  /** The transaction index, created (with the directory's marker file) at the first transactional batch. */
  private transactionIndex(): TransactionIndex {
    if (this.txns) return this.txns;
    fs.writeFileSync(path.join(this.ctx.dir, TRANSACTIONS_MARKER_FILE), '');
    fsyncDirSync(this.ctx.dir);
    this.txns = new TransactionIndex();
    return this.txns;
  }

  /** At open: the snapshot a clean close left, when it describes this log as it is; else the log's batches. */
  private async loadTransactions(clean: boolean): Promise<void> {
    const file = path.join(this.ctx.dir, TRANSACTIONS_SNAPSHOT_FILE);
    const text = readTextIfExists(file);
    fs.rmSync(file, { force: true });
    if (clean && text !== null) {
      const index = TransactionIndex.fromSnapshotText(text, this.logEnd);
      if (index) {
        index.dropBefore(this.logStart);
        this.txns = index;
        return;
      }
      this.ctx.logger.warn('transaction snapshot does not match the log: reading the log', { file });
    }
    await this.rebuildTransactions();
  }

  /**
   * Builds the transaction index again (an unclean open, a truncation): from the newest roll
   * snapshot at or below the log end that reads whole, then the batches after it; without one,
   * from every batch of the log. Snapshots above the log end (a truncation or a torn tail took
   * what they describe) are deleted.
   */
  private async rebuildTransactions(): Promise<void> {
    await this.txnSnapshotWrites;
    let index: TransactionIndex | null = null;
    let from = this.logStart;
    for (const snap of this.txnRollSnapshots().reverse()) {
      if (snap.offset > this.logEnd) {
        fs.rmSync(path.join(this.ctx.dir, snap.name), { force: true });
        continue;
      }
      if (index) continue;
      index = TransactionIndex.fromSnapshotText(readTextIfExists(path.join(this.ctx.dir, snap.name)), snap.offset);
      if (index) from = Math.max(snap.offset, this.logStart);
      else this.ctx.logger.warn('transaction roll snapshot unreadable: trying an older one', { file: snap.name });
    }
    if (index) this.ctx.logger.info('transaction index from a roll snapshot', { snapshotOffset: from, logEndOffset: this.logEnd });
    index ??= new TransactionIndex();
    this.txns = index;
    let offset = from;
    while (offset < this.logEnd) {
      const r = await this.read(offset, 1 << 20);
      if (r.errorCode !== ErrorCode.NONE || r.records.length === 0) break;
      let next = offset;
      for (let pos = 0; pos < r.records.length; pos += batchSizeAt(r.records, pos)) {
        if ((attributesOf(r.records, pos) & TRANSACTIONAL_FLAG_MASK) !== 0) index.observe(r.records, pos);
        next = lastOffsetOf(r.records, pos) + 1;
      }
      if (next <= offset) break;
      offset = next;
    }
    index.dropBefore(this.logStart);
  }

  /** Writes one validated, stamped batch: roll if needed, append, leader epoch bookkeeping. */
  private appendBatch(buf: Buffer, pos: number, size: number): void {
    const base = baseOffsetOf(buf, pos);
    const last = lastOffsetOf(buf, pos);
    const maxTimestamp = maxTimestampOf(buf, pos);
    this.maybeRoll(size, base, last, maxTimestamp);
    this.activeSegment.append(buf, pos, size, last, maxTimestamp);
    this.logEnd = last + 1;
    if ((attributesOf(buf, pos) & TRANSACTIONAL_FLAG_MASK) !== 0) this.transactionIndex().observe(buf, pos);
    const epoch = partitionLeaderEpochOf(buf, pos);
    if (epoch >= 0 && epoch > this.epochCache.latestEpoch()) this.epochCache.assign(epoch, base);
  }

  private get activeSegment(): LogSegment {
    return this.segments[this.segments.length - 1]!;
  }

  /** Rolls to a new segment at `baseOffset` when the active one is full or old enough. */
  private maybeRoll(size: number, baseOffset: number, lastOffset: number, maxTimestamp: number): void {
    const active = this.activeSegment;
    if (!active.shouldRoll(size, lastOffset, maxTimestamp, this.ctx.clock.now())) return;
    this.rollTo(Math.max(baseOffset, this.logEnd));
  }

  /**
   * Starts a new active segment at the log end offset (a no-op when the active segment is
   * empty). Appends roll by themselves; this is for tests and tools.
   */
  roll(): void {
    this.assertOpen();
    if (this.activeSegment.size === 0) return;
    try {
      this.rollTo(this.logEnd);
    } catch (err) {
      this.onIoError(err, 'roll');
    }
  }

  /** Closes the active segment for appends and starts a new one at `baseOffset`. */
  private rollTo(baseOffset: number): void {
    const old = this.activeSegment;
    old.onBecomeInactive();
    this.segments.push(LogSegment.create(this.ctx, baseOffset));
    this.ctx.logger.debug('rolled a new segment', { baseOffset, previousSize: old.size });
    if (this.txns) this.snapshotTransactionsAt(baseOffset);
  }

  /**
   * Writes the transaction index as it stands at `offset` (every batch below it observed) to a
   * roll snapshot, off the append path: the state is copied now, the file written after.
   */
  private snapshotTransactionsAt(offset: number): void {
    const content = this.txns!.snapshotText(offset);
    const file = path.join(this.ctx.dir, offsetFileName(offset, TXN_ROLL_SNAPSHOT_SUFFIX));
    this.txnSnapshotWrites = this.txnSnapshotWrites.then(async () => {
      if (this.state !== LogState.Open) return;
      try {
        await writeFileAtomic(file, content);
        for (const old of this.txnRollSnapshots().slice(0, -TXN_ROLL_SNAPSHOTS_KEPT)) fs.rmSync(path.join(this.ctx.dir, old.name), { force: true });
      } catch (err) {
        if (!isIoError(err)) throw err;
        // the next unclean open reads from an older snapshot, or the log's start
        this.ctx.logger.warn('transaction roll snapshot not written', { file, error: err.message });
      }
    });
  }

  /** The roll snapshots in the log's directory, oldest first. */
  private txnRollSnapshots(): { name: string; offset: number }[] {
    const out: { name: string; offset: number }[] = [];
    for (const name of fs.readdirSync(this.ctx.dir)) {
      const m = /^(\d{20})(\.\w+)$/.exec(name);
      if (m && m[2] === TXN_ROLL_SNAPSHOT_SUFFIX && Number.isSafeInteger(Number(m[1]))) out.push({ name, offset: Number(m[1]) });
    }
    return out.sort((a, b) => a.offset - b.offset);
  }

  // ---- reads ----

  /**
   * Reads whole batches from `offset` (starting with the batch that holds it): at most
   * `maxBytes`, except that the first batch is returned whole even when larger. Stops before any
   * batch reaching `maxOffset` (exclusive, e.g. the high watermark) and, like Kafka, at the end of
   * the segment. OFFSET_OUT_OF_RANGE below the log start or above the log end offset.
   */
  async read(offset: number, maxBytes: number, options: ReadOptions = {}): Promise<ReadResult> {
    return this.readNow(offset, maxBytes, options) ?? this.readSegments(offset, maxBytes, options);
  }

  /**
   * `read` without waiting, when the answer lies in the last TAIL_READ_BYTES of the active
   * segment: the tail, where consumers and followers that keep up read, and which the page cache
   * holds (a blocking read there costs less than a thread-pool round trip). Null when older data
   * must be read; `read` does that asynchronously.
   */
  readNow(offset: number, maxBytes: number, options: ReadOptions = {}): ReadResult | null {
    this.assertUsable();
    const invalid = this.checkReadOffset(offset);
    if (invalid) return invalid;
    const limit = Math.min(options.maxOffset ?? this.logEnd, this.logEnd);
    if (offset >= limit) return this.readOk(EMPTY);
    const i = this.floorSegmentIndex(offset);
    if (i !== this.segments.length - 1) return null;
    const segment = this.segments[i]!;
    try {
      const floor = segment.indexFloorPosition(offset);
      if (segment.size - floor > TAIL_READ_BYTES) return null;
      // one read from the index entry below the offset, which is at most an index interval and
      // a batch before it; two (find the batch, then read from it) when its batch reaches further
      const found = segment.readFromFloor(floor, offset, maxBytes + this.ctx.config.indexIntervalBytes + ONE_READ_SLACK);
      if (found === 'none') return this.readOk(EMPTY);
      if (found) return this.readOk(tailReadCut(found.bytes, maxBytes, limit));
      const first = segment.translateOffset(offset);
      if (!first || first.lastOffset >= limit) return this.readOk(EMPTY);
      const bytes = segment.readBytesNow(first.position, Math.max(first.size, Math.min(maxBytes, segment.size - first.position)));
      return this.readOk(bytes.subarray(0, wholeBatchesBelow(bytes, limit)));
    } catch (err) {
      return this.onReadError(err, offset);
    }
  }

  /**
   * `readNow` answered from `parts`, the buffers the last `appendNow` wrote (offsets stamped, as
   * on disk), without reading the file: the read a fetch waiting at the log end does again when
   * the append wakes it (a read syscall each, ~30 us on a VM, for bytes still in hand). The same
   * bytes `readNow` would return, copied (the caller's buffers are lent for one handler). Null,
   * for `readNow` to answer, unless `offset` is the first offset of `parts` and `parts` are
   * still the log's tail, one run in the active segment.
   */
  readAppended(offset: number, parts: readonly Buffer[], maxBytes: number, options: ReadOptions = {}): ReadResult | null {
    this.assertUsable();
    const first = parts[0];
    if (this.state === LogState.Offline || !first || first.length < RECORD_BATCH_OVERHEAD || baseOffsetOf(first, 0) !== offset) return null;
    if (offset < this.logStart || offset < this.activeSegment.baseOffset) return null;
    // whole batches with offsets running on from `offset` to the log end
    let next = offset;
    for (const part of parts) {
      for (let pos = 0; pos < part.length; ) {
        const size = batchSizeAt(part, pos);
        if (size < RECORD_BATCH_OVERHEAD || size > part.length - pos || baseOffsetOf(part, pos) !== next) return null;
        next = lastOffsetOf(part, pos) + 1;
        pos += size;
      }
    }
    if (next !== this.logEnd) return null;
    const limit = Math.min(options.maxOffset ?? this.logEnd, this.logEnd);
    // nothing readable yet (a consumer waiting for the high watermark): no copy
    if (offset >= limit) return this.readOk(EMPTY);
    return this.readOk(tailReadCut(Buffer.concat(parts), maxBytes, limit));
  }

  private checkReadOffset(offset: number): ReadError | null {
    if (this.state === LogState.Offline) return this.readError(ErrorCode.KAFKA_STORAGE_ERROR, 'log is offline');
    if (!Number.isSafeInteger(offset) || offset < this.logStart || offset > this.logEnd) {
      return this.readError(ErrorCode.OFFSET_OUT_OF_RANGE, `offset ${offset} is outside [${this.logStart}, ${this.logEnd}]`);
    }
    return null;
  }

  private onReadError(err: unknown, offset: number): ReadError {
    if (!isIoError(err)) throw err;
    this.ctx.logger.error('read failed', { offset, error: err.message });
    return this.readError(ErrorCode.KAFKA_STORAGE_ERROR, err.message);
  }

  /** The rest of `read`, once readNow has checked the offset and found it below the tail. */
  private async readSegments(offset: number, maxBytes: number, options: ReadOptions): Promise<ReadResult> {
    const limit = Math.min(options.maxOffset ?? this.logEnd, this.logEnd);
    if (offset >= limit) return this.readOk(EMPTY);
    try {
      for (let i = this.floorSegmentIndex(offset); i < this.segments.length; i++) {
        const segment = this.segments[i]!;
        const first = segment.translateOffset(offset);
        if (!first) continue;
        if (first.lastOffset >= limit) return this.readOk(EMPTY);
        const available = segment.size - first.position;
        const length = Math.max(first.size, Math.min(maxBytes, available));
        const bytes = await segment.readBytes(first.position, length);
        return this.readOk(bytes.subarray(0, wholeBatchesBelow(bytes, limit)));
      }
      return this.readOk(EMPTY);
    } catch (err) {
      return this.onReadError(err, offset);
    }
  }

  private readOk(records: Buffer): ReadOk {
    return { errorCode: ErrorCode.NONE, records, logStartOffset: this.logStart, logEndOffset: this.logEnd, highWatermark: this.hw };
  }

  private readError(errorCode: ReadError['errorCode'], reason: string): ReadError {
    return { errorCode, reason, logStartOffset: this.logStart, logEndOffset: this.logEnd, highWatermark: this.hw };
  }

  /** Index of the segment holding `offset` (the last with baseOffset <= offset), or 0. */
  private floorSegmentIndex(offset: number): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.segments[mid]!.baseOffset <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /**
   * ListOffsets by time: the first offset whose record timestamp is >= `timestamp`, found via
   * the time indexes (EARLIEST_TIMESTAMP / LATEST_TIMESTAMP give the log start / end offset).
   */
  async offsetForTimestamp(timestamp: number): Promise<OffsetForTimestampResult> {
    this.assertUsable();
    if (this.state === LogState.Offline) return storageError('log is offline');
    const none: TimestampOffset = { errorCode: ErrorCode.NONE, offset: -1, timestamp: -1, leaderEpoch: -1 };
    if (timestamp === EARLIEST_TIMESTAMP) {
      return { ...none, offset: this.logStart, leaderEpoch: this.epochAt(this.logStart) };
    }
    if (timestamp === LATEST_TIMESTAMP) return { ...none, offset: this.logEnd, leaderEpoch: this.latestEpoch };
    try {
      for (const segment of this.segments) {
        if (segment.maxTimestampSoFar() < timestamp) continue;
        const batch = segment.findBatchByTimestamp(timestamp, this.logStart);
        if (!batch) continue;
        const bytes = await segment.readBytes(batch.position, batch.size);
        const found = firstRecordAtOrAfter(bytes, timestamp);
        return {
          errorCode: ErrorCode.NONE,
          offset: found.offset,
          timestamp: found.timestamp,
          leaderEpoch: partitionLeaderEpochOf(bytes, 0),
        };
      }
      return none;
    } catch (err) {
      if (!isIoError(err)) throw err;
      return storageError(err.message);
    }
  }

  /**
   * ListOffsets MAX_TIMESTAMP (KIP-734): the record holding the log's largest timestamp, found as
   * Kafka's UnifiedLog finds it: the first segment whose max timestamp is the largest, in it the
   * first batch reaching that timestamp, in that batch the first record carrying it (under
   * LogAppendTime every record does, so the batch's first). The timestamp is the batch's max and
   * the leader epoch the batch's. As in Kafka the segments are searched whole, so a record below
   * a log start offset that DeleteRecords moved inside a segment still counts. Offset -1 when no
   * batch has a timestamp (an empty log).
   */
  async offsetOfMaxTimestamp(): Promise<OffsetForTimestampResult> {
    this.assertUsable();
    if (this.state === LogState.Offline) return storageError('log is offline');
    const none: TimestampOffset = { errorCode: ErrorCode.NONE, offset: -1, timestamp: -1, leaderEpoch: -1 };
    try {
      let best: LogSegment | null = null;
      for (const segment of this.segments) if (best === null || segment.maxTimestampSoFar() > best.maxTimestampSoFar()) best = segment;
      const max = best?.maxTimestampSoFar() ?? -1;
      if (best === null || max < 0) return none;
      const batch = best.findBatchByTimestamp(max, best.baseOffset);
      if (!batch) return none;
      const bytes = await best.readBytes(batch.position, batch.size);
      return { errorCode: ErrorCode.NONE, offset: firstRecordAtOrAfter(bytes, max).offset, timestamp: max, leaderEpoch: partitionLeaderEpochOf(bytes, 0) };
    } catch (err) {
      if (!isIoError(err)) throw err;
      return storageError(err.message);
    }
  }

  /** The leader epoch in force at `offset` per the epoch cache, or -1. */
  private epochAt(offset: number): number {
    let epoch = -1;
    for (const e of this.epochCache.entries()) {
      if (e.startOffset <= offset) epoch = e.epoch;
    }
    return epoch;
  }

  // ---- leader epochs ----

  /** Records that `epoch` starts at `startOffset` (a new leader's log end offset). */
  assignEpochStartOffset(epoch: number, startOffset: number): void {
    this.assertOpen();
    this.epochCache.assign(epoch, startOffset);
  }

  /** OffsetsForLeaderEpoch: the largest epoch <= `epoch` and the offset where it ends. */
  endOffsetForEpoch(epoch: number): EpochEndOffset {
    return this.epochCache.endOffsetFor(epoch, this.logEnd);
  }

  /** (epoch, start offset) pairs, oldest first. */
  epochEntries(): readonly { epoch: number; startOffset: number }[] {
    return this.epochCache.entries();
  }

  // ---- truncation ----

  /**
   * Removes everything at and above `offset` (a follower after a leader change). A cut inside a
   * batch removes the whole batch. Returns true when any record was removed. Below the first
   * segment this is truncateFullyAndStartAt. At or past the log end no record goes, but leader
   * epochs that start at the log end do, as in Kafka: a replica that became leader and lost
   * leadership before appending anything holds such an epoch, which no other replica knows of;
   * kept as its latest epoch, it would make every fetch from the next leader diverge.
   */
  async truncateTo(offset: number): Promise<boolean> {
    this.assertOpen();
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`invalid truncation offset ${offset}`);
    if (offset >= this.logEnd) {
      this.epochCache.truncateFromEnd(this.logEnd);
      return false;
    }
    if (offset < this.segments[0]!.baseOffset) {
      await this.truncateFullyAndStartAt(offset);
      return true;
    }
    try {
      let keep = this.segments.length;
      while (keep > 1 && this.segments[keep - 1]!.baseOffset > offset) keep--;
      const doomed = this.segments.slice(keep);
      this.segments = this.segments.slice(0, keep);
      for (let i = doomed.length - 1; i >= 0; i--) doomed[i]!.deleteFiles();
      const active = this.activeSegment;
      active.truncateTo(offset);
      active.makeActive();
      this.logEnd = active.nextOffset;
    } catch (err) {
      this.onIoError(err, 'truncate');
      return true;
    }
    this.recoveryPointOffset = Math.min(this.recoveryPointOffset, this.logEnd);
    this.hw = Math.min(this.hw, this.logEnd);
    this.cleanedUpTo = Math.min(this.cleanedUpTo, this.logEnd);
    this.truncationCount++;
    this.epochCache.truncateFromEnd(this.logEnd);
    // markers may be gone: transactions they ended are open again
    if (this.txns) await this.rebuildTransactions();
    this.ctx.logger.info('truncated log', { offset, logEndOffset: this.logEnd });
    return true;
  }

  /** Deletes every segment and restarts the log, empty, at `offset`. */
  async truncateFullyAndStartAt(offset: number): Promise<void> {
    this.assertOpen();
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`invalid start offset ${offset}`);
    try {
      for (let i = this.segments.length - 1; i >= 0; i--) this.segments[i]!.deleteFiles();
      this.segments = [LogSegment.create(this.ctx, offset)];
    } catch (err) {
      this.onIoError(err, 'truncateFullyAndStartAt');
      return;
    }
    this.logStart = offset;
    this.logEnd = offset;
    this.hw = offset;
    this.recoveryPointOffset = offset;
    this.cleanedUpTo = offset;
    this.truncationCount++;
    this.epochCache.clear();
    this.txns?.clear();
    await this.txnSnapshotWrites;
    for (const snap of this.txnRollSnapshots()) fs.rmSync(path.join(this.ctx.dir, snap.name), { force: true });
    this.ctx.logger.info('truncated log fully', { offset });
  }

  // ---- retention ----

  /**
   * Deletes whole segments past retention.ms (newest timestamp older than that) or beyond
   * retention.bytes, oldest first, never the active segment and never above the high watermark.
   * Moves the log start offset. Returns the number of segments deleted. A log whose
   * cleanup.policy is compact alone keeps its segments (compaction bounds it instead).
   */
  async deleteOldSegments(): Promise<number> {
    if (this.state !== LogState.Open) return 0;
    const config = this.ctx.config;
    if (!deletesByRetention(config)) return 0;
    try {
      let deleted = 0;
      if (config.retentionMs !== Infinity) {
        const now = this.ctx.clock.now();
        deleted += this.deleteSegmentsWhile((s) => now - s.largestTimestamp() > config.retentionMs);
      }
      if (config.retentionBytes !== Infinity) {
        let excess = this.size - config.retentionBytes;
        deleted += this.deleteSegmentsWhile((s) => {
          if (excess - s.size < 0) return false;
          excess -= s.size;
          return true;
        });
      }
      return deleted;
    } catch (err) {
      this.onIoError(err, 'retention');
      return 0;
    }
  }

  private deleteSegmentsWhile(predicate: (segment: LogSegment) => boolean): number {
    let n = 0;
    while (n < this.segments.length - 1) {
      const upperBound = this.segments[n + 1]!.baseOffset;
      if (upperBound > this.hw) break;
      if (!predicate(this.segments[n]!)) break;
      n++;
    }
    if (n === 0) return 0;
    const doomed = this.segments.slice(0, n);
    this.segments = this.segments.slice(n);
    // a log start moved further by DeleteRecords stays where it is
    this.logStart = Math.max(this.logStart, this.segments[0]!.baseOffset);
    this.recoveryPointOffset = Math.max(this.recoveryPointOffset, this.logStart);
    this.hw = Math.max(this.hw, this.logStart);
    this.epochCache.truncateFromStart(this.logStart);
    this.txns?.dropBefore(this.logStart);
    for (const segment of doomed) segment.deleteFiles();
    this.ctx.logger.info('deleted segments by retention', { segments: doomed.map((s) => s.baseOffset), logStartOffset: this.logStart });
    return n;
  }

  // ---- compaction (see log-cleaner.ts) ----

  /** Records below this offset have been compacted (cleaner-offset-checkpoint). */
  get firstDirtyOffset(): number {
    return Math.min(Math.max(this.cleanedUpTo, this.logStart), this.logEnd);
  }

  get truncations(): number {
    return this.truncationCount;
  }

  get isOpen(): boolean {
    return this.state === LogState.Open;
  }

  /** The segments as they are now, oldest first (the last is the active one). */
  segmentsForCleaning(): readonly LogSegment[] {
    return this.segments;
  }

  /** What a compaction pass would clean now and whether one is due; null for a log that is not compacted. */
  compactionPlan(now = this.ctx.clock.now()): CompactionPlan | null {
    if (this.state !== LogState.Open || !isCompacted(this.ctx.config)) return null;
    return planCompaction(this, now);
  }

  /**
   * One compaction pass, when the log is compacted and has dirty segments (due or not: the log
   * manager's cleaner checks `due` first). Null when there is nothing to clean.
   */
  async compact(options: CleanerOptions = {}): Promise<CompactionStats | null> {
    const now = this.ctx.clock.now();
    const plan = this.compactionPlan(now);
    if (!plan) return null;
    const stats = await compactLog(this, plan, now, options);
    this.ctx.logger.info('compacted log', { ...stats, dirtyRatio: plan.dirtyRatio });
    return stats;
  }

  /**
   * Puts `cleanedFile` (fsynced) in place of `group`, consecutive inactive segments that must
   * still be in the log with `expectedSizes` bytes: renamed to a swap file naming the offsets it
   * replaces (from then on the replacement is decided: a crash is finished at open), the old
   * files deleted, the swap renamed to the first segment's name, its indexes rebuilt. An empty
   * file replaces nothing when the group does not start the log: its segments are just deleted.
   * Returns how many segments left the list, or null when the group changed (nothing done).
   */
  async replaceSegments(group: readonly LogSegment[], expectedSizes: readonly number[], cleanedFile: string): Promise<number | null> {
    const i = this.segments.indexOf(group[0]!);
    const last = i + group.length - 1;
    if (this.state !== LogState.Open || i < 0 || last >= this.segments.length - 1) return null;
    for (let k = 0; k < group.length; k++) if (this.segments[i + k] !== group[k] || group[k]!.size !== expectedSizes[k]) return null;
    const base = group[0]!.baseOffset;
    const end = this.segments[last + 1]!.baseOffset;
    const empty = fs.statSync(cleanedFile).size === 0 && i > 0;
    try {
      if (empty) {
        // nothing left of them: the offsets they covered are gaps, read past like any other
        fs.rmSync(cleanedFile, { force: true });
        for (const segment of group) segment.deleteFiles();
        this.segments = [...this.segments.slice(0, i), ...this.segments.slice(last + 1)];
      } else {
        const swap = path.join(this.ctx.dir, swapFileName(base, end));
        fs.renameSync(cleanedFile, swap);
        fsyncDirSync(this.ctx.dir);
        for (const segment of group) segment.deleteFiles();
        fs.renameSync(swap, group[0]!.logFile);
        const fresh = LogSegment.existing(this.ctx, base);
        fresh.rebuildIndexes();
        this.segments = [...this.segments.slice(0, i), fresh, ...this.segments.slice(last + 1)];
      }
    } catch (err) {
      this.onIoError(err, 'compaction');
      return null;
    }
    await fsyncDir(this.ctx.dir);
    return empty ? group.length : group.length - 1;
  }

  /** See CleanableLog.earliestDeleteHorizon. */
  get earliestDeleteHorizon(): number {
    return this.deleteHorizonLeft;
  }

  markCleaned(offset: number, truncationsAtStart: number, earliestDeleteHorizon: number): void {
    // a truncation meanwhile can only have removed tombstones: the horizon noted is then early,
    // and the pass it starts notes the right one
    this.deleteHorizonLeft = earliestDeleteHorizon;
    if (truncationsAtStart !== this.truncationCount) return;
    this.cleanedUpTo = Math.max(this.cleanedUpTo, Math.min(offset, this.logEnd));
  }

  // ---- DeleteRecords ----

  /**
   * Kafka's DeleteRecords on the leader: records below `offset` (at most the high watermark) are
   * gone for readers, the log start offset moves there, and whole segments below it are deleted.
   * Returns the new log start offset. Persist it with the log manager's log-start checkpoint.
   */
  deleteRecordsBefore(offset: number): number {
    this.assertOpen();
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.hw) {
      throw new RangeError(`cannot delete records before ${offset}: it must lie in [0, high watermark ${this.hw}]`);
    }
    this.advanceLogStart(offset, 'deleted records');
    return this.logStart;
  }

  /** A follower takes the leader's log start offset, as far as its own log reaches. */
  maybeIncrementLogStartOffset(leaderLogStartOffset: number): void {
    if (this.state !== LogState.Open) return;
    this.advanceLogStart(Math.min(leaderLogStartOffset, this.logEnd), 'followed the leader\'s log start');
  }

  private advanceLogStart(offset: number, why: string): void {
    if (offset <= this.logStart) return;
    this.logStart = offset;
    this.recoveryPointOffset = Math.max(this.recoveryPointOffset, offset);
    this.hw = Math.max(this.hw, offset);
    this.epochCache.truncateFromStart(offset);
    this.txns?.dropBefore(offset);
    let n = 0;
    while (n < this.segments.length - 1 && this.segments[n + 1]!.baseOffset <= offset) n++;
    const doomed = this.segments.slice(0, n);
    this.segments = this.segments.slice(n);
    try {
      for (const segment of doomed) segment.deleteFiles();
    } catch (err) {
      this.onIoError(err, 'deleteRecords');
    }
    this.ctx.logger.info(why, { logStartOffset: offset, segmentsDeleted: doomed.length });
  }

  // ---- durability ----

  /** fsyncs everything appended so far and advances the recovery point. */
  flush(): Promise<FlushResult> {
    return this.flushUpTo(this.logEnd);
  }

  /** fsyncs the segments holding offsets below `offset`; flushes run one at a time. */
  flushUpTo(offset: number): Promise<FlushResult> {
    const run = this.flushChain.then(() => this.doFlush(offset));
    this.flushChain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** flush.ms: flushes when the last flush is older than flush.ms and there is unflushed data. */
  maybeFlushByTime(now: number): Promise<FlushResult> | null {
    if (this.state !== LogState.Open) return null;
    const flushMs = this.ctx.config.flushMs;
    if (flushMs === Infinity || this.logEnd <= this.recoveryPointOffset) return null;
    if (now - this.lastFlushTime < flushMs) return null;
    return this.flush();
  }

  /** Unflushed messages (log end offset minus the recovery point). */
  get unflushedMessages(): number {
    return this.logEnd - this.recoveryPointOffset;
  }

  private async doFlush(target: number): Promise<FlushResult> {
    if (this.state === LogState.Offline) return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, reason: 'log is offline' };
    if (this.state !== LogState.Open) return { errorCode: ErrorCode.NONE };
    const end = Math.min(target, this.logEnd);
    if (end <= this.recoveryPointOffset) return { errorCode: ErrorCode.NONE };
    const from = this.recoveryPointOffset;
    const toFlush: LogSegment[] = [];
    for (let i = this.floorSegmentIndex(from); i < this.segments.length; i++) {
      const segment = this.segments[i]!;
      if (segment.baseOffset >= end && i > 0) break;
      toFlush.push(segment);
    }
    try {
      for (const segment of toFlush) await segment.flush();
      await this.epochCache.flushed();
      if (this.dirCreated) {
        await fsyncDir(path.dirname(this.ctx.dir));
        this.dirCreated = false;
      }
    } catch (err) {
      if (this.state !== LogState.Open) return { errorCode: ErrorCode.NONE };
      const failed = this.onIoError(err, 'flush');
      return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, reason: failed.reason };
    }
    this.recoveryPointOffset = Math.max(this.recoveryPointOffset, Math.min(end, this.logEnd));
    this.lastFlushTime = this.ctx.clock.now();
    return { errorCode: ErrorCode.NONE };
  }

  // ---- lifecycle ----

  /** Waits for flushes in flight, writes the indexes and releases the descriptors. */
  async close(): Promise<void> {
    if (this.state === LogState.Closed || this.state === LogState.Deleted) return;
    await this.flushChain;
    await this.txnSnapshotWrites;
    for (const segment of this.segments) {
      try {
        segment.close();
      } catch (err) {
        if (!isIoError(err)) throw err;
        this.ctx.logger.error('closing a segment failed', { segment: segment.logFile, error: err.message });
      }
    }
    await this.epochCache.flushed().catch(() => undefined);
    if (this.txns && this.state === LogState.Open) {
      try {
        writeFileAtomicSync(path.join(this.ctx.dir, TRANSACTIONS_SNAPSHOT_FILE), this.txns.snapshotText(this.logEnd));
      } catch (err) {
        if (!isIoError(err)) throw err;
        // the next open reads the log instead
        this.ctx.logger.warn('transaction snapshot not written', { error: err.message });
      }
    }
    this.state = LogState.Closed;
  }

  /**
   * Closes the log and renames its directory aside as stray (`<dir>.<id>-stray`, as Kafka does
   * with a partition this broker no longer hosts): its records stay on disk for an operator to
   * look at or delete, and the log manager never loads it again. Returns the new directory.
   */
  async setAsideAsStray(): Promise<string> {
    await this.close();
    const aside = `${this.ctx.dir}.${crypto.randomBytes(8).toString('hex')}${STRAY_DIR_SUFFIX}`;
    fs.renameSync(this.ctx.dir, aside);
    return aside;
  }

  /** Closes the log and removes its directory (renamed aside first, so a crash leaves no half). */
  async delete(): Promise<void> {
    if (this.state === LogState.Deleted) return;
    await this.flushChain;
    for (const segment of this.segments) this.ctx.handles.retire(segment.handle);
    await this.epochCache.flushed().catch(() => undefined);
    this.state = LogState.Deleted;
    const aside = `${this.ctx.dir}.${crypto.randomBytes(8).toString('hex')}${DELETE_DIR_SUFFIX}`;
    try {
      fs.renameSync(this.ctx.dir, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await fs.promises.rm(aside, { recursive: true, force: true });
  }

  private assertUsable(): void {
    if (this.state === LogState.Closed || this.state === LogState.Deleted) {
      throw new Error(`log ${this.topic}-${this.partition} is ${this.state.toLowerCase()}`);
    }
  }

  private assertOpen(): void {
    this.assertUsable();
    if (this.state === LogState.Offline) throw new Error(`log ${this.topic}-${this.partition} is offline`);
  }

  /** An I/O error during a state change: the log goes offline. Rethrows anything else. */
  private onIoError(err: unknown, operation: string): AppendError & { errorCode: typeof ErrorCode.KAFKA_STORAGE_ERROR } {
    if (!isIoError(err)) throw err;
    const wasOpen = this.state === LogState.Open;
    this.state = LogState.Offline;
    this.ctx.logger.error('storage error; log is now offline', { operation, error: err.message, code: err.code });
    if (wasOpen) this.onOffline?.(`${this.topic}-${this.partition}: ${operation}: ${err.message}`);
    return storageError(`${operation}: ${err.message}`);
  }

  /**
   * Takes the log offline without an error of its own (its log dir failed): every call answers
   * KAFKA_STORAGE_ERROR from now on, as after an I/O error.
   */
  markOffline(): void {
    if (this.state === LogState.Open) this.state = LogState.Offline;
  }
}

/** Suffix of a log directory being deleted. */
export const DELETE_DIR_SUFFIX = '-delete';
/** Kafka's suffix of a log set aside as stray (kept on disk, never loaded again). */
export const STRAY_DIR_SUFFIX = '-stray';

function storageError(reason: string): AppendError & { errorCode: typeof ErrorCode.KAFKA_STORAGE_ERROR } {
  return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, reason };
}

function isLogConfig(value: LogConfig | LogConfigInput): value is LogConfig {
  return typeof (value as LogConfig).segmentBytes === 'number' && typeof (value as LogConfig).messageTimestampType === 'string';
}

/** Length of the prefix of `buf` made of whole batches whose last offset is below `limit`. */
/**
 * What a read returns of `bytes` (whole batches from the one it wants, as read): the first batch
 * whole, then what fits in `maxBytes`, only whole batches, none reaching `limit`.
 */
function tailReadCut(bytes: Buffer, maxBytes: number, limit: number): Buffer {
  const cut = bytes.subarray(0, Math.max(batchSizeAt(bytes, 0), Math.min(maxBytes, bytes.length)));
  const whole = wholeBatchesBelow(cut, limit);
  return whole === 0 ? EMPTY : cut.subarray(0, whole);
}

function wholeBatchesBelow(buf: Buffer, limit: number): number {
  let pos = 0;
  while (buf.length - pos >= LAST_OFFSET_DELTA_OFFSET + 4) {
    const size = batchSizeAt(buf, pos);
    if (size < RECORD_BATCH_OVERHEAD || size > buf.length - pos || lastOffsetOf(buf, pos) >= limit) break;
    pos += size;
  }
  return pos;
}
