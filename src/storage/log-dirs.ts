/**
 * A broker's log dirs (Kafka's log.dirs, JBOD): one LogManager per dir, seen as one set of
 * partition logs. A log lives in the dir where it was found at start; a new one goes to the dir
 * with the fewest partitions (Kafka's default placement), or to the dir an AlterReplicaLogDirs
 * named for it before it existed. A partition found in two dirs at start is refused, as Kafka does.
 *
 * Moving a log to another dir (AlterReplicaLogDirs) works as Kafka's future replica: startMove
 * opens an empty future log in `<dest>/<topic>-<partition>.<id>-future`; its owner (the
 * partition's replica actor, which goes on serving from the current log) calls copyStep to copy
 * the current log's batches into it a chunk at a time, following the current log's start offset
 * and starting over after a truncation; once it has caught up, completeMove swaps them: the
 * current log is closed and its directory renamed aside for deletion, the future directory takes
 * its name and is opened as the log, with the current log's high watermark, log start offset and
 * leader epochs. DescribeLogDirs lists the future log (isFuture) while it catches up. A crash
 * mid-way leaves either the current log (the future copy is dropped at start) or only the
 * future copy (the current was already marked deleted: the copy is complete and becomes the log).
 *
 * The copying is throttled as Kafka's replica.alter.log.dirs.io.max.bytes.per.second throttles its
 * future replicas: one byte-rate quota per broker (these dirs), shared by all the moves, records the
 * bytes each copy step writes into a future log; while it is over its limit a move's next step
 * waits (throttleDelayMs, on its owner's timer). A step copies at most one second's worth at the
 * limit (always a whole batch at least), a copy that has caught up swaps without waiting, and the
 * appends to the current log are never held back. A new limit applies to the next step of every move.
 *
 * A dir fails as a whole (an I/O error in one of its logs or checkpoints: LogManager.failDir), and
 * one that cannot be opened at start is offline from the start; the others carry on. An offline
 * dir takes no new log, no move, and is described with KAFKA_STORAGE_ERROR and no partitions; with
 * a dir offline, a log not found is made only for a partition new to the cluster (Kafka's rule: an
 * older one may be in the failed dir). Every dir offline at start: the broker does not start.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../protocol/errors.js';
import { systemClock } from '../runtime/clock.js';
import { childLogger, type Logger } from '../runtime/logger.js';
import { RateQuota, UNLIMITED_RATE } from '../runtime/rate-quota.js';
import { fsyncDir } from './checkpoint.js';
import type { LogConfig, LogConfigInput } from './log-config.js';
import { FUTURE_DIR_SUFFIX, LogManager, NO_BROKER_EPOCH, parseTopicPartitionDir, topicPartitionKey, type LogCarriedState, type LogManagerOptions } from './log-manager.js';
import { RECORD_BATCH_OVERHEAD, baseOffsetOf, batchSizeAt, lastOffsetOf } from '../protocol/batch-header.js';
import { DELETE_DIR_SUFFIX, LogState, isIoError, type PartitionLog } from './partition-log.js';

export interface LogDirsOptions extends Omit<LogManagerOptions, 'logDir' | 'logger'> {
  /** The broker's log dirs (at least one, each once). */
  readonly logDirs: readonly string[];
  readonly logger?: Logger;
}

/** Nowhere to put a log, or a log that may be in a failed dir: KAFKA_STORAGE_ERROR. */
export class LogDirsOfflineError extends Error {}

/** One partition log in a dir, as DescribeLogDirs reports it. */
export interface LogDirEntry {
  topic: string;
  partition: number;
  size: number;
  offsetLag: number;
  isFuture: boolean;
}

/**
 * One dir: its absolute path, its logs (and future logs being copied in), those offline; a failed
 * dir has KAFKA_STORAGE_ERROR, why, and no partitions (as Kafka describes an offline dir).
 */
export interface LogDirView {
  logDir: string;
  errorCode: number;
  errorMessage: string | null;
  partitions: LogDirEntry[];
  offline: string[];
}

/** The outcome of completing a move: the log to use from now on, or why not. */
export interface LogMoveResult {
  errorCode: number;
  errorMessage: string | null;
  log: PartitionLog;
}

/** Read from the current log per copy step. */
export const MOVE_CHUNK_BYTES = 1024 * 1024;

/** A log being copied into another dir of the broker (Kafka's future replica). */
export class LogDirMove {
  /** The current log's truncations when the copy last followed it: another means start over. */
  private truncations: number;

  constructor(
    readonly current: PartitionLog,
    readonly future: PartitionLog,
    readonly from: LogManager,
    readonly to: LogManager,
    readonly tag: string,
    /** The broker's move throttle, shared by all its moves. */
    private readonly quota: RateQuota,
  ) {
    this.truncations = current.truncations;
  }

  get topic(): string {
    return this.current.topic;
  }

  get partition(): number {
    return this.current.partition;
  }

  /** The dir the log moves to. */
  get destination(): string {
    return this.to.logDir;
  }

  /** How many offsets the copy is behind the current log (Kafka's offset lag of a future replica). */
  get lag(): number {
    return Math.max(0, this.current.logEndOffset - this.future.logEndOffset);
  }

  /** Whether the future log has all the current log has (nothing to copy: the swap may happen). */
  private get caughtUp(): boolean {
    return this.current.truncations === this.truncations && this.future.logEndOffset === this.current.logEndOffset;
  }

  /**
   * How long the next copy step should wait under the broker's move throttle: 0 while the moves'
   * bytes per second are within replica.alter.log.dirs.io.max.bytes.per.second (or it is
   * unlimited), and 0 for a copy that has caught up (the swap copies nothing).
   */
  throttleDelayMs(): number {
    if (this.caughtUp) return 0;
    return this.quota.timeUntilWithinLimitMs();
  }

  /**
   * Copies up to `maxBytes` of the current log's batches into the future log (at most a second's
   * worth under the move throttle, a whole batch at least), recording them in the throttle:
   * caughtUp once the future log has the same log end offset. KAFKA_STORAGE_ERROR when reading or
   * writing failed (the move should then be aborted).
   */
  async copyStep(maxBytes = MOVE_CHUNK_BYTES): Promise<{ errorCode: number; errorMessage: string | null; caughtUp: boolean }> {
    const chunk = this.quota.unlimited ? maxBytes : Math.min(maxBytes, Math.max(1, Math.floor(this.quota.limit)));
    try {
      return await this.copy(chunk);
    } catch (err) {
      if (!isIoError(err)) throw err;
      return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: err.message, caughtUp: false };
    }
  }

  private async copy(maxBytes: number): Promise<{ errorCode: number; errorMessage: string | null; caughtUp: boolean }> {
    const { current, future } = this;
    const ok = (caughtUp: boolean) => ({ errorCode: ErrorCode.NONE, errorMessage: null, caughtUp });
    const failed = (errorMessage: string) => ({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage, caughtUp: false });
    if (current.truncations !== this.truncations || future.logEndOffset > current.logEndOffset) {
      // the current log was truncated (a follower's divergence, a restart at the leader's log start): start over
      await future.truncateFullyAndStartAt(current.logStartOffset);
      this.truncations = current.truncations;
    }
    if (future.logEndOffset < current.logStartOffset) await future.truncateFullyAndStartAt(current.logStartOffset);
    else if (current.logStartOffset > future.logStartOffset) future.maybeIncrementLogStartOffset(current.logStartOffset);
    if (future.logEndOffset >= current.logEndOffset) return ok(true);
    const r = await current.read(future.logEndOffset, maxBytes);
    if (r.errorCode !== ErrorCode.NONE) {
      // the log start moved past what was to be read meanwhile: the next step follows it
      if (r.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) return ok(false);
      return failed(`reading the current log: ${r.reason}`);
    }
    let records = r.records;
    // batches wholly below the copy's end are skipped; one straddling it (a compaction rewrote
    // the batches meanwhile) cannot be split: the copy starts at it when the copy is empty there,
    // else starts over
    let pos = 0;
    while (pos + RECORD_BATCH_OVERHEAD <= records.length && lastOffsetOf(records, pos) < future.logEndOffset) pos += batchSizeAt(records, pos);
    records = records.subarray(pos);
    if (records.length < RECORD_BATCH_OVERHEAD) return ok(false);
    const base = baseOffsetOf(records, 0);
    if (base < future.logEndOffset) {
      await future.truncateFullyAndStartAt(future.logEndOffset === future.logStartOffset ? base : current.logStartOffset);
      if (future.logEndOffset !== base) return ok(false);
    }
    const appended = await future.appendAsFollower(records);
    if (appended.errorCode !== ErrorCode.NONE) return failed(`writing the future log: ${(appended as { reason?: string }).reason ?? appended.errorCode}`);
    // as Kafka's future replicas record what they fetched into their quota
    this.quota.record(records.length);
    if (current.logStartOffset > future.logStartOffset) future.maybeIncrementLogStartOffset(current.logStartOffset);
    return ok(future.logEndOffset >= current.logEndOffset);
  }
}

export class LogDirs {
  /** topic-partition -> the dir an AlterReplicaLogDirs named before the log existed. */
  private readonly preferred = new Map<string, LogManager>();
  /** topic-partition -> its move to another dir in progress. */
  private readonly moves = new Map<string, LogDirMove>();

  private constructor(
    /** The dirs opened at start (one may have failed since). */
    readonly managers: readonly LogManager[],
    /** Dirs that could not be opened at start -> why (offline from the start). */
    private readonly failedAtStart: ReadonlyMap<string, string>,
    private readonly logger: Logger,
    /** replica.alter.log.dirs.io.max.bytes.per.second: the bytes per second all the moves copy, together. */
    private readonly moveQuota: RateQuota,
  ) {}

  /** Opens every dir's logs; throws when the dirs are not distinct or a partition is in two of them. */
  static async open(options: LogDirsOptions): Promise<LogDirs> {
    const dirs = options.logDirs.map((d) => path.resolve(d));
    if (dirs.length === 0) throw new Error('a broker needs at least one log dir');
    const seen = new Set<string>();
    for (const d of dirs) {
      if (seen.has(d)) throw new Error(`log dir ${d} is listed twice`);
      seen.add(d);
    }
    const logger = options.logger ?? childLogger({ component: 'log-dirs' });
    const managers: LogManager[] = [];
    const failed = new Map<string, string>();
    try {
      for (const logDir of dirs) {
        try {
          managers.push(await LogManager.open({ ...options, logDir, logger: logger.child({ logDir }) }));
        } catch (err) {
          // a dir that cannot be opened is offline; the broker starts with the others, as Kafka's
          if (!isIoError(err)) throw err;
          logger.error('a log dir cannot be opened: it is offline', { logDir, error: err.message });
          failed.set(logDir, err.message);
        }
      }
      if (managers.length === 0) throw new LogDirsOfflineError(`no log dir can be opened: ${[...failed].map(([d, e]) => `${d} (${e})`).join(', ')}`);
      const where = new Map<string, string>();
      for (const m of managers) {
        for (const log of m.allLogs()) {
          const key = topicPartitionKey(log.topic, log.partition);
          const other = where.get(key);
          if (other !== undefined) throw new Error(`partition ${key} has a log in two log dirs, ${other} and ${m.logDir}: remove one of them`);
          where.set(key, m.logDir);
        }
      }
      const out = new LogDirs(managers, failed, logger, new RateQuota(UNLIMITED_RATE, options.clock ?? systemClock));
      await out.settleFutureLogs();
      return out;
    } catch (err) {
      await Promise.allSettled(managers.map((m) => m.close()));
      throw err;
    }
  }

  /** The dirs' absolute paths (those opened at start). */
  get dirs(): string[] {
    return this.managers.map((m) => m.logDir);
  }

  /** Whether `dir` is one of these dirs and offline (failed, or not opened at start). */
  isOfflineDir(dir: string): boolean {
    const abs = path.resolve(dir);
    return this.failedAtStart.has(abs) || this.managers.some((m) => m.logDir === abs && m.isOffline);
  }

  /** Whether any dir is offline: a log not found may be in it. */
  get hasOfflineDirs(): boolean {
    return this.failedAtStart.size > 0 || this.managers.some((m) => m.isOffline);
  }

  /** The topic-partitions whose logs are in `dir`. */
  partitionsIn(dir: string): { topic: string; partition: number }[] {
    return (this.managerFor(dir)?.allLogs() ?? []).map((l) => ({ topic: l.topic, partition: l.partition }));
  }

  /** The manager of an absolute or relative dir, or undefined when it is not one of these. */
  managerFor(dir: string): LogManager | undefined {
    const abs = path.resolve(dir);
    return this.managers.find((m) => m.logDir === abs);
  }

  /** The manager holding (or opening) topic-partition's log. */
  managerOf(topic: string, partition: number): LogManager | undefined {
    return this.managers.find((m) => m.hosts(topic, partition));
  }

  /** The dir holding topic-partition's log, or null. */
  dirOf(topic: string, partition: number): string | null {
    return this.managerOf(topic, partition)?.logDir ?? null;
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.managerOf(topic, partition)?.getLog(topic, partition);
  }

  allLogs(): PartitionLog[] {
    return this.managers.flatMap((m) => m.allLogs());
  }

  get logCount(): number {
    return this.managers.reduce((n, m) => n + m.logCount, 0);
  }

  get defaults(): LogConfig {
    return this.managers[0]!.defaults;
  }

  setDefaults(config: LogConfig): void {
    for (const m of this.managers) m.setDefaults(config);
  }

  setCleanerSettings(settings: { backoffMs?: number; dedupeBufferBytes?: number }): void {
    for (const m of this.managers) m.setCleanerSettings(settings);
  }

  /**
   * replica.alter.log.dirs.io.max.bytes.per.second: the bytes per second the moves between these
   * dirs copy at most, together (UNLIMITED_RATE: no throttle). Moves in progress take it at their next step.
   */
  setMoveThrottle(bytesPerSecond: number): void {
    this.moveQuota.setLimit(bytesPerSecond);
  }

  get moveThrottle(): number {
    return this.moveQuota.limit;
  }

  /** The cleaner settings (the same in every dir). */
  get cleanerSettings(): { backoffMs: number; dedupeBufferBytes: number; scheduled: boolean } {
    return this.managers[0]!.cleanerSettings;
  }

  /**
   * Where a new log of topic-partition goes: the dir named for it by AlterReplicaLogDirs, else
   * the dir with the fewest partitions (the first of those, in the configured order).
   */
  placementFor(topic: string, partition: number): LogManager {
    const wanted = this.preferred.get(topicPartitionKey(topic, partition));
    if (wanted && !wanted.isOffline) return wanted;
    let best: LogManager | null = null;
    for (const m of this.managers) if (!m.isOffline && (best === null || m.partitionCount < best.partitionCount)) best = m;
    if (best === null) throw new LogDirsOfflineError('every log dir is offline');
    return best;
  }

  /** Records the dir a log not here yet is to be created in (AlterReplicaLogDirs before the replica). */
  setPreferredDir(topic: string, partition: number, dir: string): boolean {
    const m = this.managerFor(dir);
    if (!m) return false;
    this.preferred.set(topicPartitionKey(topic, partition), m);
    return true;
  }

  /**
   * The log of topic-partition where it is, or created in the dir placementFor picks. With a dir
   * offline, a log not found is created only for a partition new to the cluster (`isNew`): an
   * existing one may be in the failed dir (Kafka's rule); else LogDirsOfflineError.
   */
  getOrCreateLog(topic: string, partition: number, overrides?: LogConfigInput, isNew = true): Promise<PartitionLog> {
    const found = this.managerOf(topic, partition);
    if (!found && !isNew && this.hasOfflineDirs) {
      return Promise.reject(new LogDirsOfflineError(`cannot create a log for ${topicPartitionKey(topic, partition)}: a log dir is offline and may hold it`));
    }
    let m: LogManager;
    try {
      m = found ?? this.placementFor(topic, partition);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    // synchronously registered as opening there: a second creation counts it
    const created = m.getOrCreateLog(topic, partition, overrides);
    this.preferred.delete(topicPartitionKey(topic, partition));
    return created;
  }

  setAsideAsStray(topic: string, partition: number): Promise<string | null> {
    return this.managerOf(topic, partition)?.setAsideAsStray(topic, partition) ?? Promise.resolve(null);
  }

  deleteLog(topic: string, partition: number): Promise<boolean> {
    this.preferred.delete(topicPartitionKey(topic, partition));
    return this.managerOf(topic, partition)?.deleteLog(topic, partition) ?? Promise.resolve(false);
  }

  async flushDirtyLogs(): Promise<number> {
    const counts = await Promise.all(this.managers.map((m) => m.flushDirtyLogs()));
    return counts.reduce((a, b) => a + b, 0);
  }

  async checkpointLogStartOffsets(): Promise<void> {
    await Promise.all(this.managers.map((m) => m.checkpointLogStartOffsets()));
  }

  /** Every dir with its logs (those asked for by `wanted`, when given) and the moves' future logs. */
  describe(wanted: ((topic: string, partition: number) => boolean) | null = null): LogDirView[] {
    const failed = [...this.failedAtStart].map(([logDir, reason]): LogDirView => ({ logDir, errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: `offline: ${reason}`, partitions: [], offline: [] }));
    const views = this.managers.map((m): LogDirView => {
      if (m.isOffline) return { logDir: m.logDir, errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: `offline: ${m.offlineReason ?? ''}`, partitions: [], offline: [] };
      const partitions: LogDirEntry[] = [];
      const offline: string[] = [];
      for (const log of m.allLogs()) {
        if (wanted && !wanted(log.topic, log.partition)) continue;
        if (log.status === LogState.Offline) offline.push(topicPartitionKey(log.topic, log.partition));
        let size: number;
        try {
          size = log.size;
        } catch {
          continue; // closed or deleted meanwhile
        }
        partitions.push({ topic: log.topic, partition: log.partition, size, offsetLag: Math.max(0, log.highWatermark - log.logEndOffset), isFuture: false });
      }
      for (const mv of this.moves.values()) {
        if (mv.to !== m || (wanted && !wanted(mv.topic, mv.partition))) continue;
        let size: number;
        try {
          size = mv.future.size;
        } catch {
          continue; // closed meanwhile
        }
        // Kafka's future log lag: how far it is behind the current log
        partitions.push({ topic: mv.topic, partition: mv.partition, size, offsetLag: mv.lag, isFuture: true });
      }
      partitions.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition) || Number(a.isFuture) - Number(b.isFuture));
      const errorCode = offline.length > 0 ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.NONE;
      return { logDir: m.logDir, errorCode, errorMessage: offline.length > 0 ? `logs offline after an I/O error: ${offline.join(', ')}` : null, partitions, offline };
    });
    return [...views, ...failed];
  }

  /**
   * Starts moving `log` (this broker's log of its partition) into `destDir`: an empty future log
   * there, registered as the partition's move. Errors are data: LOG_DIR_NOT_FOUND,
   * REPLICA_NOT_AVAILABLE (not a log of these dirs), KAFKA_STORAGE_ERROR (the log is offline, or
   * the future log could not be made); NONE with no move when the log is in that dir already.
   * A move to another dir in progress is aborted first (Kafka stops it when the destination changes).
   */
  async startMove(log: PartitionLog, destDir: string): Promise<{ errorCode: number; errorMessage: string | null; move: LogDirMove | null }> {
    const { topic, partition } = log;
    const key = topicPartitionKey(topic, partition);
    const fail = (errorCode: number, errorMessage: string) => ({ errorCode, errorMessage, move: null });
    if (this.isOfflineDir(destDir)) return fail(ErrorCode.KAFKA_STORAGE_ERROR, `log dir ${destDir} is offline`);
    const to = this.managerFor(destDir);
    if (!to) return fail(ErrorCode.LOG_DIR_NOT_FOUND, `${destDir} is not a log dir of this broker`);
    const from = this.managerOf(topic, partition);
    if (!from || from.getLog(topic, partition) !== log) return fail(ErrorCode.REPLICA_NOT_AVAILABLE, `${key} has no log here`);
    const moving = this.moves.get(key);
    if (moving?.to === to) return { errorCode: ErrorCode.NONE, errorMessage: null, move: moving };
    if (moving) await this.abortMove(moving);
    if (from === to) return { errorCode: ErrorCode.NONE, errorMessage: null, move: null };
    if (log.status !== LogState.Open) return fail(ErrorCode.KAFKA_STORAGE_ERROR, `${key} is ${log.status.toLowerCase()}`);
    let future: PartitionLog;
    try {
      future = await to.openFutureLog(topic, partition, log.config, crypto.randomBytes(8).toString('hex'));
      if (log.logStartOffset > 0) await future.truncateFullyAndStartAt(log.logStartOffset);
    } catch (err) {
      if (!isIoError(err)) throw err;
      return fail(ErrorCode.KAFKA_STORAGE_ERROR, `creating the future log of ${key} in ${to.logDir} failed: ${err.message}`);
    }
    const tag = path.basename(future.dir).slice(key.length + 1, -FUTURE_DIR_SUFFIX.length);
    const move = new LogDirMove(log, future, from, to, tag, this.moveQuota);
    this.moves.set(key, move);
    this.logger.info('moving a log to another log dir: copying it into a future log', { topicPartition: key, from: from.logDir, to: to.logDir, logEndOffset: log.logEndOffset });
    return { errorCode: ErrorCode.NONE, errorMessage: null, move };
  }

  /** The move of topic-partition in progress, if any. */
  moveOf(topic: string, partition: number): LogDirMove | undefined {
    return this.moves.get(topicPartitionKey(topic, partition));
  }

  /** Stops a move: the future log and its directory are deleted, the current log stays. */
  async abortMove(move: LogDirMove): Promise<void> {
    const key = topicPartitionKey(move.topic, move.partition);
    if (this.moves.get(key) === move) this.moves.delete(key);
    await move.future.delete().catch((err: Error) => this.logger.error('deleting a future log failed', { topicPartition: key, error: err.message }));
  }

  /**
   * Swaps a caught-up move (copyStep resolved true, and nothing was appended since): the current
   * log is closed and marked deleted, the future log takes its name in the new dir and is opened
   * as the partition's log with the current log's high watermark, log start offset and leader
   * epochs. The caller uses the returned log from now on. On an I/O error before the current log
   * was marked deleted, the move is aborted and the current log reopened where it was.
   */
  async completeMove(move: LogDirMove): Promise<LogMoveResult> {
    const { current, future, from, to, tag } = move;
    const { topic, partition } = current;
    const key = topicPartitionKey(topic, partition);
    const started = Date.now();
    if (future.logEndOffset !== current.logEndOffset) {
      return { errorCode: ErrorCode.REPLICA_NOT_AVAILABLE, errorMessage: `the future log of ${key} has not caught up (${future.logEndOffset} of ${current.logEndOffset})`, log: current };
    }
    for (const e of current.epochEntries()) if (e.epoch > future.latestEpoch) future.assignEpochStartOffset(e.epoch, e.startOffset);
    future.maybeIncrementLogStartOffset(current.logStartOffset);
    future.highWatermark = current.highWatermark;
    const state: LogCarriedState = { recoveryPoint: 0, highWatermark: current.highWatermark, logStartOffset: current.logStartOffset, firstDirtyOffset: 0, hadCleanShutdown: false };
    try {
      const flushed = await future.flush();
      if (flushed.errorCode !== ErrorCode.NONE) {
        await this.abortMove(move);
        return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: `flushing the future log of ${key} failed`, log: current };
      }
      state.recoveryPoint = future.recoveryPoint;
      await future.close();
    } catch (err) {
      await this.abortMove(move);
      if (!isIoError(err)) throw err;
      return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: `${key}: ${err.message}`, log: current };
    }
    state.hadCleanShutdown = true;
    // the current log leaves its dir: no schedule sees it, a compaction of it is waited for
    await from.detachLog(topic, partition);
    await current.close();
    // marked deleted before the copy takes its name: a crash in between leaves only the
    // (complete) future copy, which the next start makes the log
    const aside = `${current.dir}.${tag}${DELETE_DIR_SUFFIX}`;
    fs.renameSync(current.dir, aside);
    await fsyncDir(from.logDir);
    fs.renameSync(future.dir, path.join(to.logDir, key));
    await fsyncDir(to.logDir);
    const moved = await to.adoptLog(topic, partition, current.config, state);
    // listed where it is now, and nowhere else
    this.moves.delete(key);
    await Promise.all([from.checkpointAll(), to.checkpointAll()]);
    await fs.promises.rm(aside, { recursive: true, force: true });
    this.logger.info('log moved to another log dir', { topicPartition: key, to: to.logDir, swapMs: Date.now() - started });
    return { errorCode: ErrorCode.NONE, errorMessage: null, log: moved };
  }

  /** The logs being moved (topic-partition -> destination dir). */
  movesInProgress(): Map<string, string> {
    return new Map([...this.moves].map(([k, mv]) => [k, mv.to.logDir]));
  }

  /**
   * Future copies left by a move a crash cut short: dropped when the partition's log is still in
   * a dir, else (the source was already marked deleted) renamed into place and loaded.
   */
  private async settleFutureLogs(): Promise<void> {
    for (const m of this.managers) {
      for (const name of fs.readdirSync(m.logDir)) {
        if (!name.endsWith(FUTURE_DIR_SUFFIX)) continue;
        const full = path.join(m.logDir, name);
        const tp = parseTopicPartitionDir(name.slice(0, name.lastIndexOf('.')));
        if (!tp || this.managerOf(tp.topic, tp.partition)) {
          this.logger.info('dropping an unfinished copy of a log from another log dir', { dir: full });
          await fs.promises.rm(full, { recursive: true, force: true });
          continue;
        }
        this.logger.warn('a log moved between log dirs when the broker stopped: loading the copy', { dir: full });
        fs.renameSync(full, path.join(m.logDir, topicPartitionKey(tp.topic, tp.partition)));
        await fsyncDir(m.logDir);
        await m.adoptLog(tp.topic, tp.partition, m.defaults, { recoveryPoint: 0, highWatermark: 0, logStartOffset: 0, firstDirtyOffset: 0, hadCleanShutdown: false });
      }
    }
  }

  /**
   * The broker epoch every dir's clean shutdown marker held at start (KIP-966's previousBrokerEpoch),
   * or -1 when any dir had none (a crash, or a stop without a controlled shutdown).
   */
  get previousBrokerEpoch(): number {
    const epochs = this.managers.map((m) => m.previousBrokerEpoch);
    const first = epochs[0] ?? NO_BROKER_EPOCH;
    return epochs.every((e) => e === first) ? first : NO_BROKER_EPOCH;
  }

  /** The broker epoch the clean shutdown markers written at close will hold. */
  setShutdownBrokerEpoch(brokerEpoch: number): void {
    for (const m of this.managers) m.shutdownBrokerEpoch = brokerEpoch;
  }

  /** Closes every dir (each flushes, checkpoints and marks a clean shutdown). */
  async close(): Promise<void> {
    // a move in progress is dropped at the next start (its current log is still there)
    await Promise.allSettled([...this.moves.values()].map((mv) => mv.future.close()));
    this.moves.clear();
    const results = await Promise.allSettled(this.managers.map((m) => m.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
