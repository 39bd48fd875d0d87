/**
 * A broker's log dirs (Kafka's log.dirs, JBOD): one LogManager per dir, seen as one set of
 * partition logs. A log lives in the dir where it was found at start; a new one goes to the dir
 * with the fewest partitions (Kafka's default placement), or to the dir an AlterReplicaLogDirs
 * named for it before it existed. A partition found in two dirs at start is refused, as Kafka does.
 *
 * Moving a log to another dir (moveLog, for AlterReplicaLogDirs) is a paused copy, not Kafka's
 * future replica that catches up while the partition serves: the caller (the partition's replica
 * actor) holds its mailbox while the log is closed, copied into `<dest>/<topic>-<partition>.<id>-future`
 * (each file fsynced), the source renamed aside for deletion, the copy renamed into place and
 * opened with the offsets it had. While it runs, describe() lists the copy as a future log.
 * A crash mid-way leaves either the source (the future copy is dropped at start) or only the
 * future copy (the source was already marked deleted: the copy is complete and becomes the log).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../protocol/errors.js';
import { childLogger, type Logger } from '../runtime/logger.js';
import { fsyncDir } from './checkpoint.js';
import type { LogConfig, LogConfigInput } from './log-config.js';
import { FUTURE_DIR_SUFFIX, LogManager, parseTopicPartitionDir, topicPartitionKey, type LogCarriedState, type LogManagerOptions } from './log-manager.js';
import { DELETE_DIR_SUFFIX, LogState, isIoError, type PartitionLog } from './partition-log.js';

export interface LogDirsOptions extends Omit<LogManagerOptions, 'logDir' | 'logger'> {
  /** The broker's log dirs (at least one, each once). */
  readonly logDirs: readonly string[];
  readonly logger?: Logger;
}

/** One partition log in a dir, as DescribeLogDirs reports it. */
export interface LogDirEntry {
  topic: string;
  partition: number;
  size: number;
  offsetLag: number;
  isFuture: boolean;
}

/** One dir: its absolute path, its logs (and future logs being copied in), those offline. */
export interface LogDirView {
  logDir: string;
  partitions: LogDirEntry[];
  offline: string[];
}

/** The outcome of a move: the log to use from now on (the moved one, or the original when it failed). */
export interface LogMoveResult {
  errorCode: number;
  errorMessage: string | null;
  log: PartitionLog;
}

interface MoveInProgress {
  topic: string;
  partition: number;
  from: LogManager;
  to: LogManager;
  /** The source's size and lag when the move began (it serves nothing meanwhile). */
  size: number;
  offsetLag: number;
  copiedBytes: number;
}

export class LogDirs {
  /** topic-partition -> the dir an AlterReplicaLogDirs named before the log existed. */
  private readonly preferred = new Map<string, LogManager>();
  private readonly moves = new Map<string, MoveInProgress>();

  private constructor(
    readonly managers: readonly LogManager[],
    private readonly logger: Logger,
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
    try {
      for (const logDir of dirs) managers.push(await LogManager.open({ ...options, logDir, logger: logger.child({ logDir }) }));
      const where = new Map<string, string>();
      for (const m of managers) {
        for (const log of m.allLogs()) {
          const key = topicPartitionKey(log.topic, log.partition);
          const other = where.get(key);
          if (other !== undefined) throw new Error(`partition ${key} has a log in two log dirs, ${other} and ${m.logDir}: remove one of them`);
          where.set(key, m.logDir);
        }
      }
      const out = new LogDirs(managers, logger);
      await out.settleFutureLogs();
      return out;
    } catch (err) {
      await Promise.allSettled(managers.map((m) => m.close()));
      throw err;
    }
  }

  /** The dirs' absolute paths, in the configured order. */
  get dirs(): string[] {
    return this.managers.map((m) => m.logDir);
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
    if (wanted) return wanted;
    let best = this.managers[0]!;
    for (const m of this.managers) if (m.partitionCount < best.partitionCount) best = m;
    return best;
  }

  /** Records the dir a log not here yet is to be created in (AlterReplicaLogDirs before the replica). */
  setPreferredDir(topic: string, partition: number, dir: string): boolean {
    const m = this.managerFor(dir);
    if (!m) return false;
    this.preferred.set(topicPartitionKey(topic, partition), m);
    return true;
  }

  /** The log of topic-partition where it is, or created in the dir placementFor picks. */
  getOrCreateLog(topic: string, partition: number, overrides?: LogConfigInput): Promise<PartitionLog> {
    const m = this.managerOf(topic, partition) ?? this.placementFor(topic, partition);
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
    return this.managers.map((m) => {
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
        if (wanted && !wanted(mv.topic, mv.partition)) continue;
        // the source is detached while it is copied: still listed where it is
        if (mv.from === m) partitions.push({ topic: mv.topic, partition: mv.partition, size: mv.size, offsetLag: mv.offsetLag, isFuture: false });
        // Kafka's future log lag: how far the copy is behind the current log (bytes here, not offsets)
        if (mv.to === m) partitions.push({ topic: mv.topic, partition: mv.partition, size: mv.copiedBytes, offsetLag: Math.max(0, mv.size - mv.copiedBytes), isFuture: true });
      }
      partitions.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition) || Number(a.isFuture) - Number(b.isFuture));
      return { logDir: m.logDir, partitions, offline };
    });
  }

  /**
   * Moves `log` (this broker's log of its partition) into `destDir`, as the module header says.
   * The caller must not use `log` until this settles, and uses the returned log afterwards.
   * Errors are data: LOG_DIR_NOT_FOUND, KAFKA_STORAGE_ERROR (the copy failed; the log stays
   * where it was, reopened), REPLICA_NOT_AVAILABLE (not a log of these dirs).
   */
  async moveLog(log: PartitionLog, destDir: string, config: LogConfig): Promise<LogMoveResult> {
    const { topic, partition } = log;
    const key = topicPartitionKey(topic, partition);
    const to = this.managerFor(destDir);
    if (!to) return { errorCode: ErrorCode.LOG_DIR_NOT_FOUND, errorMessage: `${destDir} is not a log dir of this broker`, log };
    const from = this.managerOf(topic, partition);
    if (!from || from.getLog(topic, partition) !== log) return { errorCode: ErrorCode.REPLICA_NOT_AVAILABLE, errorMessage: `${key} has no log here`, log };
    if (from === to) return { errorCode: ErrorCode.NONE, errorMessage: null, log };
    if (this.moves.has(key)) return { errorCode: ErrorCode.REPLICA_NOT_AVAILABLE, errorMessage: `${key} is already moving`, log };
    if (log.status !== LogState.Open) return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: `${key} is ${log.status.toLowerCase()}`, log };
    const move: MoveInProgress = { topic, partition, from, to, size: log.size, offsetLag: Math.max(0, log.highWatermark - log.logEndOffset), copiedBytes: 0 };
    this.moves.set(key, move);
    this.logger.info('moving a log to another log dir (the partition pauses while it is copied)', { topicPartition: key, from: from.logDir, to: to.logDir, bytes: move.size });
    const started = Date.now();
    try {
      await from.detachLog(topic, partition);
      const flushed = await log.flush();
      await log.close();
      const state: LogCarriedState = {
        recoveryPoint: log.recoveryPoint,
        highWatermark: log.highWatermark,
        logStartOffset: log.logStartOffset,
        firstDirtyOffset: log.firstDirtyOffset,
        hadCleanShutdown: flushed.errorCode === ErrorCode.NONE,
      };
      const tag = crypto.randomBytes(8).toString('hex');
      const future = path.join(to.logDir, `${key}.${tag}${FUTURE_DIR_SUFFIX}`);
      try {
        await copyDir(log.dir, future, (n) => (move.copiedBytes += n));
      } catch (err) {
        await fs.promises.rm(future, { recursive: true, force: true }).catch(() => undefined);
        const back = await from.adoptLog(topic, partition, config, state);
        this.moves.delete(key);
        if (!isIoError(err)) throw err;
        this.logger.error('moving a log failed: it stays where it was', { topicPartition: key, to: to.logDir, error: err.message });
        return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: `copying ${key} to ${to.logDir} failed: ${err.message}`, log: back };
      }
      // the source is marked deleted before the copy takes its name: a crash in between leaves
      // only the (complete) future copy, which the next start makes the log
      const aside = `${log.dir}.${tag}${DELETE_DIR_SUFFIX}`;
      fs.renameSync(log.dir, aside);
      await fsyncDir(from.logDir);
      fs.renameSync(future, path.join(to.logDir, key));
      await fsyncDir(to.logDir);
      const moved = await to.adoptLog(topic, partition, config, state);
      // listed where it is now, and nowhere else
      this.moves.delete(key);
      await Promise.all([from.checkpointAll(), to.checkpointAll()]);
      await fs.promises.rm(aside, { recursive: true, force: true });
      this.logger.info('log moved', { topicPartition: key, to: to.logDir, ms: Date.now() - started });
      return { errorCode: ErrorCode.NONE, errorMessage: null, log: moved };
    } finally {
      this.moves.delete(key);
    }
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

  /** Closes every dir (each flushes, checkpoints and marks a clean shutdown). */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.managers.map((m) => m.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** Copies a partition directory's files (it has no subdirectories), each fsynced, then the directory. */
async function copyDir(src: string, dest: string, onBytes: (n: number) => void): Promise<void> {
  await fs.promises.mkdir(dest, { recursive: true });
  for (const entry of await fs.promises.readdir(src, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const to = path.join(dest, entry.name);
    await fs.promises.copyFile(path.join(src, entry.name), to);
    const fh = await fs.promises.open(to, 'r+');
    try {
      await fh.sync();
      onBytes((await fh.stat()).size);
    } finally {
      await fh.close();
    }
  }
  await fsyncDir(dest);
  await fsyncDir(path.dirname(dest));
}
