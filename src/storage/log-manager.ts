/**
 * The partition logs of one log dir on one broker. It opens every `<topic>-<partition>` directory
 * at start (cheaply: checkpoint info and the active segment's tail; full recovery only after an
 * unclean shutdown), creates and deletes logs, owns the dir's recovery-point-offset-checkpoint,
 * replication-offset-checkpoint, log-start-offset-checkpoint, cleaner-offset-checkpoint and
 * clean-shutdown marker, runs the retention, compaction (the log cleaner), flush.ms and
 * checkpoint schedules on the injected clock, and shares one LRU of file descriptors (at most
 * maxOpenFiles) among all its segments. An I/O error in one of its logs or checkpoints takes the
 * whole dir offline (failDir), as Kafka does with a failed log dir.
 */
import fs from 'node:fs';
import path from 'node:path';
import { systemClock, unrefTimer, type Clock, type TimerHandle } from '../runtime/clock.js';
import { childLogger, type Logger } from '../runtime/logger.js';
import {
  CheckpointError,
  CheckpointWriter,
  RECOVERY_POINT_CHECKPOINT,
  REPLICATION_OFFSET_CHECKPOINT,
  LOG_START_OFFSET_CHECKPOINT,
  CLEANER_OFFSET_CHECKPOINT,
  formatOffsetCheckpoint,
  parseOffsetCheckpoint,
  readTextIfExists,
  writeFileAtomic,
  fsyncDir,
} from './checkpoint.js';
import { FileHandleCache } from './file-handle-cache.js';
import { DEFAULT_DEDUPE_BUFFER_BYTES, type CompactionStats } from './log-cleaner.js';
import { ConfigError, DEFAULT_LOG_CONFIG, isCompacted, parseLogConfig, type LogConfig, type LogConfigInput } from './log-config.js';
import { DELETE_DIR_SUFFIX, PartitionLog, STRAY_DIR_SUFFIX, isIoError } from './partition-log.js';

/**
 * Suffix of a partition's copy being made in another log dir of the broker (Kafka's future log,
 * `<topic>-<partition>.<id>-future`); the manager does not load it, LogDirs settles it at start.
 */
export const FUTURE_DIR_SUFFIX = '-future';

/** A log's offsets carried over when it is opened anew elsewhere (a move between log dirs). */
export interface LogCarriedState {
  recoveryPoint: number;
  highWatermark: number;
  logStartOffset: number;
  firstDirtyOffset: number;
  /** The files were closed cleanly: no recovery at open. */
  hadCleanShutdown: boolean;
}

/**
 * Kafka's marker of a clean shutdown: recovery is skipped when it is present at start. It holds
 * `{"version":0,"brokerEpoch":N}` (Kafka's CleanShutdownFileHandler, KIP-966) when the broker told
 * its epoch before closing (after a controlled shutdown), else nothing.
 */
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

/** No broker epoch known from the last shutdown (Kafka's previousBrokerEpoch default). */
export const NO_BROKER_EPOCH = -1;

/** The broker epoch a clean shutdown marker holds, or NO_BROKER_EPOCH. */
export function parseCleanShutdown(text: string): number {
  try {
    const v = JSON.parse(text) as { version?: unknown; brokerEpoch?: unknown };
    return v.version === 0 && Number.isSafeInteger(v.brokerEpoch) && (v.brokerEpoch as number) >= 0 ? (v.brokerEpoch as number) : NO_BROKER_EPOCH;
  } catch {
    return NO_BROKER_EPOCH;
  }
}

export interface LogManagerOptions {
  /** The log dir (one of the broker's log.dirs). */
  readonly logDir: string;
  readonly clock?: Clock;
  /** Default log config for every partition (Kafka keys, or a parsed LogConfig). */
  readonly config?: LogConfig | LogConfigInput;
  /** Most file descriptors held open at once (default 1000). */
  readonly maxOpenFiles?: number;
  /** log.retention.check.interval.ms (default 300000). */
  readonly retentionCheckIntervalMs?: number;
  /** How often flush.ms is checked (Kafka's log.flush.scheduler.interval.ms; default 1000). */
  readonly flushCheckIntervalMs?: number;
  /** log.flush.offset.checkpoint.interval.ms (default 60000). */
  readonly recoveryPointCheckpointIntervalMs?: number;
  /** replica.high.watermark.checkpoint.interval.ms (default 5000). */
  readonly highWatermarkCheckpointIntervalMs?: number;
  /** log.cleaner.enable: compact the logs whose cleanup.policy has compact (default true). */
  readonly cleanerEnabled?: boolean;
  /** log.cleaner.backoff.ms: how often the cleaner looks for logs to compact (default 15000). */
  readonly cleanerBackoffMs?: number;
  /** log.cleaner.dedupe.buffer.size: memory for one pass's key map (default 128 MiB). */
  readonly cleanerDedupeBufferBytes?: number;
  /** Start the schedules (default true; tests may drive the passes by hand). */
  readonly schedule?: boolean;
  readonly logger?: Logger;
  /**
   * Told once when the dir fails (an I/O error in one of its logs or checkpoints): the dir is then
   * offline, every log in it answers KAFKA_STORAGE_ERROR and its schedules stop, as Kafka does.
   */
  readonly onDirFailure?: (logDir: string, reason: string) => void;
}

/** Concurrent fsyncs at shutdown (each pins one descriptor). */
const CLOSE_CONCURRENCY = 16;
/** Logs opened between two yields to the event loop at start. */
const OPEN_YIELD_EVERY = 200;
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export function topicPartitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** `<topic>-<partition>` -> its parts, or null for another kind of directory. */
export function parseTopicPartitionDir(name: string): { topic: string; partition: number } | null {
  const dash = name.lastIndexOf('-');
  if (dash <= 0) return null;
  const topic = name.slice(0, dash);
  const partText = name.slice(dash + 1);
  if (!/^\d{1,9}$/.test(partText) || !TOPIC_NAME.test(topic)) return null;
  return { topic, partition: Number(partText) };
}

/** Programmer/config error for a topic name or partition a log cannot have. */
export function validateTopicPartition(topic: string, partition: number): string | null {
  if (!TOPIC_NAME.test(topic) || topic === '.' || topic === '..') return `invalid topic name ${JSON.stringify(topic)}`;
  if (!Number.isInteger(partition) || partition < 0 || partition > 0x7fffffff) return `invalid partition ${partition}`;
  return null;
}

async function runLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A log dir that failed (KAFKA_STORAGE_ERROR): nothing more is created or opened in it. */
export class LogDirOfflineError extends Error {
  constructor(
    readonly logDir: string,
    reason: string,
  ) {
    super(`log dir ${logDir} is offline: ${reason}`);
  }
}

export class LogManager {
  private readonly logs = new Map<string, PartitionLog>();
  private readonly opening = new Map<string, Promise<PartitionLog>>();
  private readonly timers: TimerHandle[] = [];
  private readonly recoveryWriter: CheckpointWriter;
  private readonly hwWriter: CheckpointWriter;
  private readonly logStartWriter: CheckpointWriter;
  private readonly cleanerWriter: CheckpointWriter;
  private running = { retention: false, flush: false };
  /** The cleaner pass in progress, awaited at close. */
  private cleaning: Promise<unknown> | null = null;
  private dedupeBufferBytes = DEFAULT_DEDUPE_BUFFER_BYTES;
  /** The log cleaner's schedule (null: the cleaner is off or schedules are not run) and its period. */
  private cleanerTimer: TimerHandle | null = null;
  private cleanerBackoffMs = 15_000;
  private closed = false;
  /** Why the dir failed, once it has (an I/O error): null while it is online. */
  private failure: string | null = null;
  private onDirFailure: ((logDir: string, reason: string) => void) | null = null;

  private constructor(
    readonly logDir: string,
    private readonly clock: Clock,
    private defaultConfig: LogConfig,
    private readonly handles: FileHandleCache,
    private readonly logger: Logger,
  ) {
    this.recoveryWriter = new CheckpointWriter(path.join(logDir, RECOVERY_POINT_CHECKPOINT));
    this.hwWriter = new CheckpointWriter(path.join(logDir, REPLICATION_OFFSET_CHECKPOINT));
    this.logStartWriter = new CheckpointWriter(path.join(logDir, LOG_START_OFFSET_CHECKPOINT));
    this.cleanerWriter = new CheckpointWriter(path.join(logDir, CLEANER_OFFSET_CHECKPOINT));
  }

  /** A partition log's logger: this manager's (its node and name) with the partition. */
  private logLogger(topic: string, partition: number): Logger {
    return this.logger.child({ component: 'log', topicPartition: `${topic}-${partition}` });
  }

  /** Opens every partition log in the dir and starts the schedules. */
  static async open(options: LogManagerOptions): Promise<LogManager> {
    const clock = options.clock ?? systemClock;
    const logger = options.logger ?? childLogger({ component: 'log-manager', logDir: options.logDir });
    const config =
      options.config === undefined
        ? DEFAULT_LOG_CONFIG
        : isParsed(options.config)
          ? options.config
          : parseLogConfig(options.config);
    const maxOpen = options.maxOpenFiles ?? 1000;
    if (!Number.isInteger(maxOpen) || maxOpen < 1) throw new ConfigError('maxOpenFiles', `must be a positive integer, got ${maxOpen}`);
    fs.mkdirSync(options.logDir, { recursive: true });
    const manager = new LogManager(options.logDir, clock, config, new FileHandleCache(maxOpen), logger);
    manager.onDirFailure = options.onDirFailure ?? null;
    const dedupe = options.cleanerDedupeBufferBytes ?? DEFAULT_DEDUPE_BUFFER_BYTES;
    if (!Number.isSafeInteger(dedupe) || dedupe < 1) throw new ConfigError('cleanerDedupeBufferBytes', `must be a positive integer, got ${dedupe}`);
    manager.dedupeBufferBytes = dedupe;
    await manager.loadLogs();
    if (options.schedule ?? true) manager.startSchedules(options);
    return manager;
  }

  private async loadLogs(): Promise<void> {
    const dir = this.logDir;
    const markerFile = path.join(dir, CLEAN_SHUTDOWN_FILE);
    const clean = fs.existsSync(markerFile);
    this.previousBrokerEpoch = clean ? parseCleanShutdown(fs.readFileSync(markerFile, 'utf8')) : NO_BROKER_EPOCH;
    const recoveryPoints = this.readOffsets(RECOVERY_POINT_CHECKPOINT);
    const highWatermarks = this.readOffsets(REPLICATION_OFFSET_CHECKPOINT);
    const logStarts = this.readOffsets(LOG_START_OFFSET_CHECKPOINT);
    const firstDirty = this.readOffsets(CLEANER_OFFSET_CHECKPOINT);
    const started = this.clock.now();
    let opened = 0;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      if (entry.name.endsWith(DELETE_DIR_SUFFIX)) {
        await fs.promises.rm(path.join(dir, entry.name), { recursive: true, force: true });
        continue;
      }
      if (entry.name.endsWith(FUTURE_DIR_SUFFIX)) continue;
      if (entry.name.endsWith(STRAY_DIR_SUFFIX)) {
        this.logger.warn('a stray log is kept aside, not loaded: delete it once its records are not needed', { dir: path.join(dir, entry.name) });
        continue;
      }
      const tp = parseTopicPartitionDir(entry.name);
      if (!tp) {
        this.logger.warn('ignoring a directory that is not a partition log', { name: entry.name });
        continue;
      }
      const key = topicPartitionKey(tp.topic, tp.partition);
      const log = await PartitionLog.open({
        dir: path.join(dir, entry.name),
        logger: this.logLogger(tp.topic, tp.partition),
        topic: tp.topic,
        partition: tp.partition,
        config: this.defaultConfig,
        clock: this.clock,
        handles: this.handles,
        recoveryPoint: recoveryPoints.get(key) ?? 0,
        highWatermark: highWatermarks.get(key) ?? 0,
        logStartOffset: logStarts.get(key) ?? 0,
        firstDirtyOffset: firstDirty.get(key) ?? 0,
        hadCleanShutdown: clean,
        onOffline: this.logFailed,
      });
      this.logs.set(key, log);
      if (++opened % OPEN_YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (clean) {
      fs.rmSync(markerFile, { force: true });
      await fsyncDir(dir);
    }
    this.logger.info('loaded logs', { logs: opened, cleanShutdown: clean, ms: this.clock.now() - started });
  }

  /** topic-partition -> offset from a checkpoint file; a malformed file is logged and ignored. */
  private readOffsets(name: string): Map<string, number> {
    const file = path.join(this.logDir, name);
    const out = new Map<string, number>();
    const text = readTextIfExists(file);
    if (text === null) return out;
    try {
      for (const e of parseOffsetCheckpoint(file, text)) out.set(topicPartitionKey(e.topic, e.partition), e.offset);
    } catch (err) {
      if (!(err instanceof CheckpointError)) throw err;
      this.logger.warn('ignoring a malformed checkpoint', { file: name, reason: err.message });
    }
    return out;
  }

  private startSchedules(options: LogManagerOptions): void {
    const every = (ms: number, fn: () => Promise<unknown>, what: string): void => {
      const handle = this.clock.setInterval(() => {
        fn().catch((err: Error) => {
          this.logger.error(`${what} failed`, { error: err.message });
          // a checkpoint that cannot be written: the dir has failed
          if (isIoError(err)) this.failDir(`${what}: ${err.message}`);
        });
      }, ms);
      this.timers.push(unrefTimer(handle));
    };
    every(options.retentionCheckIntervalMs ?? 300_000, () => this.runRetention(), 'retention');
    this.cleanerBackoffMs = options.cleanerBackoffMs ?? 15_000;
    if (options.cleanerEnabled ?? true) this.scheduleCleaner();
    every(options.flushCheckIntervalMs ?? 1000, () => this.flushDirtyLogs(), 'flush');
    every(options.recoveryPointCheckpointIntervalMs ?? 60_000, () => this.checkpointRecoveryPoints(), 'recovery point checkpoint');
    every(options.recoveryPointCheckpointIntervalMs ?? 60_000, () => this.checkpointLogStartOffsets(), 'log start offset checkpoint');
    every(options.highWatermarkCheckpointIntervalMs ?? 5000, () => this.checkpointHighWatermarks(), 'high watermark checkpoint');
  }

  private scheduleCleaner(): void {
    if (this.cleanerTimer) this.clock.clearTimer(this.cleanerTimer);
    const handle = unrefTimer(
      this.clock.setInterval(() => {
        this.runCleaner().catch((err: Error) => this.logger.error('log cleaner failed', { error: err.message }));
      }, this.cleanerBackoffMs),
    );
    this.cleanerTimer = handle;
    this.timers.push(handle);
  }

  /**
   * New log cleaner settings (dynamic broker configs log.cleaner.backoff.ms and
   * log.cleaner.dedupe.buffer.size): the next pass uses the buffer size, and a scheduled cleaner
   * runs at the new period from now on. A pass in progress finishes as it began.
   */
  setCleanerSettings(settings: { backoffMs?: number; dedupeBufferBytes?: number }): void {
    const { backoffMs, dedupeBufferBytes } = settings;
    if (dedupeBufferBytes !== undefined) {
      if (!Number.isSafeInteger(dedupeBufferBytes) || dedupeBufferBytes < 1) throw new ConfigError('cleanerDedupeBufferBytes', `must be a positive integer, got ${dedupeBufferBytes}`);
      this.dedupeBufferBytes = dedupeBufferBytes;
    }
    if (backoffMs !== undefined && backoffMs !== this.cleanerBackoffMs) {
      if (!Number.isSafeInteger(backoffMs) || backoffMs < 1) throw new ConfigError('cleanerBackoffMs', `must be a positive integer, got ${backoffMs}`);
      this.cleanerBackoffMs = backoffMs;
      if (this.cleanerTimer && !this.closed) {
        const i = this.timers.indexOf(this.cleanerTimer);
        if (i >= 0) this.timers.splice(i, 1);
        this.scheduleCleaner();
      }
    }
  }

  /** The log cleaner's settings in force. */
  get cleanerSettings(): { backoffMs: number; dedupeBufferBytes: number; scheduled: boolean } {
    return { backoffMs: this.cleanerBackoffMs, dedupeBufferBytes: this.dedupeBufferBytes, scheduled: this.cleanerTimer !== null };
  }

  // ---- failure ----

  /** A log of this dir went offline after an I/O error: the whole dir fails. */
  private readonly logFailed = (reason: string): void => this.failDir(reason);

  /**
   * The dir failed (an I/O error): it goes offline as a whole, as a Kafka log dir does: its
   * schedules stop, every log in it answers KAFKA_STORAGE_ERROR, nothing is written to it any
   * more, and onDirFailure is told once.
   */
  failDir(reason: string): void {
    if (this.failure !== null || this.closed) return;
    this.failure = reason;
    for (const t of this.timers) this.clock.clearTimer(t);
    this.timers.length = 0;
    this.cleanerTimer = null;
    for (const log of this.logs.values()) log.markOffline();
    this.logger.error('log dir failed: offline, with every log in it', { reason, logs: this.logs.size });
    this.onDirFailure?.(this.logDir, reason);
  }

  /** Whether the dir failed (and why), or null while it is online. */
  /** The broker epoch of the last shutdown's marker, read at load (NO_BROKER_EPOCH: none, or an unclean shutdown). */
  previousBrokerEpoch = NO_BROKER_EPOCH;

  /** The broker epoch the clean shutdown marker will hold (set once the broker shut down in a controlled way). */
  shutdownBrokerEpoch: number | null = null;

  get offlineReason(): string | null {
    return this.failure;
  }

  get isOffline(): boolean {
    return this.failure !== null;
  }

  // ---- logs ----

  get defaults(): LogConfig {
    return this.defaultConfig;
  }

  /**
   * New defaults (a dynamic broker config changed): logs created from now on take them; each
   * existing log's owner re-applies its overrides over them (the manager does not know them).
   */
  setDefaults(config: LogConfig): void {
    this.defaultConfig = config;
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(topicPartitionKey(topic, partition));
  }

  /** Every log, in no particular order. */
  allLogs(): PartitionLog[] {
    return [...this.logs.values()];
  }

  get logCount(): number {
    return this.logs.size;
  }

  /** The logs here and those being opened (Kafka's placement counts both). */
  get partitionCount(): number {
    return this.logs.size + this.opening.size;
  }

  /** Whether topic-partition has a log here, or one being opened. */
  hosts(topic: string, partition: number): boolean {
    const key = topicPartitionKey(topic, partition);
    return this.logs.has(key) || this.opening.has(key);
  }

  /**
   * Takes a log out of this manager without touching its files (it is moving to another log dir):
   * no schedule sees it from now on, and a cleaner pass compacting it is waited for. Returns the
   * log, or undefined when there was none.
   */
  async detachLog(topic: string, partition: number): Promise<PartitionLog | undefined> {
    const key = topicPartitionKey(topic, partition);
    const log = this.logs.get(key);
    if (!log) return undefined;
    this.logs.delete(key);
    await this.cleaning?.catch(() => undefined);
    return log;
  }

  /**
   * Opens the log whose files are already in `<log dir>/<topic>-<partition>` (moved here from
   * another log dir) with the offsets it had there, and takes it in.
   */
  async adoptLog(topic: string, partition: number, config: LogConfig, state: LogCarriedState): Promise<PartitionLog> {
    this.assertOpen();
    const key = topicPartitionKey(topic, partition);
    if (this.logs.has(key) || this.opening.has(key)) throw new Error(`${key} already has a log in ${this.logDir}`);
    return this.takeIn(key, PartitionLog.open({ dir: path.join(this.logDir, key), topic, partition, config, logger: this.logLogger(topic, partition), clock: this.clock, handles: this.handles, onOffline: this.logFailed, ...state }));
  }

  /** A log being opened under `key`: others asking meanwhile wait for it; once open it is served. */
  private async takeIn(key: string, open: Promise<PartitionLog>): Promise<PartitionLog> {
    this.opening.set(key, open);
    try {
      const log = await open;
      this.logs.set(key, log);
      return log;
    } finally {
      this.opening.delete(key);
    }
  }

  /**
   * Opens an empty log for topic-partition in `<log dir>/<topic>-<partition>.<tag>-future`,
   * not taken in (no schedule or checkpoint sees it): the copy a move from another log dir fills.
   */
  openFutureLog(topic: string, partition: number, config: LogConfig, tag: string): Promise<PartitionLog> {
    this.assertOpen();
    const dir = path.join(this.logDir, `${topicPartitionKey(topic, partition)}.${tag}${FUTURE_DIR_SUFFIX}`);
    return PartitionLog.open({ dir, topic, partition, config, logger: this.logLogger(topic, partition), clock: this.clock, handles: this.handles, onOffline: this.logFailed });
  }

  /** Writes every checkpoint of this dir now (after a log moved in or out). */
  async checkpointAll(): Promise<void> {
    await this.checkpointRecoveryPoints();
    await this.checkpointHighWatermarks();
    await this.checkpointLogStartOffsets();
    await this.checkpointCleanerOffsets();
  }

  /**
   * The log of topic-partition, created empty when absent. `overrides` (Kafka keys over the
   * manager's defaults) replace the config of an existing log. Throws ConfigError on bad config
   * or an invalid topic name.
   */
  async getOrCreateLog(topic: string, partition: number, overrides?: LogConfigInput): Promise<PartitionLog> {
    this.assertOpen();
    const invalid = validateTopicPartition(topic, partition);
    if (invalid) throw new ConfigError('topic', invalid);
    const config = overrides ? parseLogConfig(overrides, this.defaultConfig) : this.defaultConfig;
    const key = topicPartitionKey(topic, partition);
    const existing = this.logs.get(key);
    if (existing) {
      if (overrides) existing.updateConfig(config);
      return existing;
    }
    const pending = this.opening.get(key);
    if (pending) return pending;
    return this.takeIn(key, PartitionLog.open({ dir: path.join(this.logDir, key), topic, partition, config, logger: this.logLogger(topic, partition), clock: this.clock, handles: this.handles, onOffline: this.logFailed }));
  }

  /**
   * Sets a log aside as stray (PartitionLog.setAsideAsStray): no longer served or loaded, its
   * directory kept under a `-stray` name. Returns that directory, or null when there was no log.
   */
  async setAsideAsStray(topic: string, partition: number): Promise<string | null> {
    const key = topicPartitionKey(topic, partition);
    const log = this.logs.get(key);
    if (!log) return null;
    this.logs.delete(key);
    return log.setAsideAsStray();
  }

  /** Deletes a log and its directory. Returns false when there was none. */
  async deleteLog(topic: string, partition: number): Promise<boolean> {
    const key = topicPartitionKey(topic, partition);
    const log = this.logs.get(key);
    if (!log) return false;
    this.logs.delete(key);
    await log.delete();
    return true;
  }

  // ---- schedules ----

  /** One retention pass over every log; returns the segments deleted. */
  async runRetention(): Promise<number> {
    if (this.running.retention || this.closed || this.isOffline) return 0;
    this.running.retention = true;
    try {
      let deleted = 0;
      for (const log of this.logs.values()) deleted += await log.deleteOldSegments();
      return deleted;
    } finally {
      this.running.retention = false;
    }
  }

  /** A cleaner pass (scheduled or runCleaner's) is under way; runCleaner answers [] meanwhile. */
  get cleanerBusy(): boolean {
    return this.cleaning !== null;
  }

  /**
   * One cleaner pass: compacts every compacted log whose compaction is due (dirty ratio,
   * max.compaction.lag.ms, or a passed delete horizon of its tombstones), dirtiest first, one at
   * a time, and checkpoints where each ended.
   * Returns what each pass did. A log that fails (a damaged batch, an I/O error) is logged and
   * left as it was; the others go on.
   */
  runCleaner(): Promise<CompactionStats[]> {
    if (this.cleaning || this.closed || this.isOffline) return Promise.resolve([]);
    const run = this.cleanDueLogs().finally(() => {
      this.cleaning = null;
    });
    this.cleaning = run;
    return run;
  }

  private async cleanDueLogs(): Promise<CompactionStats[]> {
    const now = this.clock.now();
    const due: { log: PartitionLog; ratio: number }[] = [];
    for (const log of this.logs.values()) {
      const plan = log.compactionPlan(now);
      if (plan?.due) due.push({ log, ratio: plan.due === 'max-compaction-lag' ? Infinity : plan.dirtyRatio });
    }
    due.sort((a, b) => b.ratio - a.ratio);
    const done: CompactionStats[] = [];
    for (const { log } of due) {
      if (this.closed) break;
      if (this.logs.get(topicPartitionKey(log.topic, log.partition)) !== log) continue;
      try {
        const stats = await log.compact({ dedupeBufferBytes: this.dedupeBufferBytes, shouldStop: () => this.closed });
        if (stats) done.push(stats);
      } catch (err) {
        this.logger.error('compaction failed; the log stays as it was', { topicPartition: topicPartitionKey(log.topic, log.partition), error: (err as Error).message });
      }
    }
    if (done.length > 0 && !this.closed) await this.checkpointCleanerOffsets();
    return done;
  }

  /** Writes cleaner-offset-checkpoint with every compacted log's first dirty offset. */
  checkpointCleanerOffsets(): Promise<void> {
    if (this.isOffline) return Promise.resolve();
    return this.cleanerWriter.write(() =>
      formatOffsetCheckpoint(
        [...this.logs.values()].filter((l) => isCompacted(l.config)).map((l) => ({ topic: l.topic, partition: l.partition, offset: l.firstDirtyOffset })),
      ),
    );
  }

  /** flush.ms: flushes every log whose last flush is older than its flush.ms. */
  async flushDirtyLogs(): Promise<number> {
    if (this.running.flush || this.closed || this.isOffline) return 0;
    this.running.flush = true;
    try {
      const now = this.clock.now();
      let flushed = 0;
      for (const log of this.logs.values()) {
        const pending = log.maybeFlushByTime(now);
        if (pending) {
          await pending;
          flushed++;
        }
      }
      return flushed;
    } finally {
      this.running.flush = false;
    }
  }

  /** Writes recovery-point-offset-checkpoint with every log's recovery point. */
  checkpointRecoveryPoints(): Promise<void> {
    if (this.isOffline) return Promise.resolve();
    return this.recoveryWriter.write(() =>
      formatOffsetCheckpoint([...this.logs.values()].map((l) => ({ topic: l.topic, partition: l.partition, offset: l.recoveryPoint }))),
    );
  }

  /** Writes replication-offset-checkpoint with every log's high watermark. */
  checkpointHighWatermarks(): Promise<void> {
    if (this.isOffline) return Promise.resolve();
    return this.hwWriter.write(() =>
      formatOffsetCheckpoint([...this.logs.values()].map((l) => ({ topic: l.topic, partition: l.partition, offset: l.highWatermark }))),
    );
  }

  /**
   * Writes log-start-offset-checkpoint with every log's start offset (DeleteRecords calls this at
   * once, so a restart never brings deleted records back).
   */
  checkpointLogStartOffsets(): Promise<void> {
    if (this.isOffline) return Promise.resolve();
    return this.logStartWriter.write(() =>
      formatOffsetCheckpoint([...this.logs.values()].map((l) => ({ topic: l.topic, partition: l.partition, offset: l.logStartOffset }))),
    );
  }

  /** Descriptor cache figures: open now, opened and evicted so far, the maximum. */
  handleStats(): { open: number; opened: number; evicted: number; max: number } {
    return this.handles.stats();
  }

  // ---- shutdown ----

  /**
   * Clean shutdown: stops the schedules, flushes and closes every log, writes both checkpoints
   * and, when everything succeeded, the clean-shutdown marker.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) this.clock.clearTimer(t);
    this.timers.length = 0;
    await Promise.allSettled(this.opening.values());
    await this.cleaning?.catch(() => undefined);
    if (this.isOffline) {
      // nothing is written to a failed dir: its logs are recovered at the next start
      for (const log of this.logs.values()) await log.close().catch(() => undefined);
      this.handles.closeAll();
      return;
    }
    let clean = true;
    await runLimited([...this.logs.values()], CLOSE_CONCURRENCY, async (log) => {
      const flushed = log.unflushedMessages > 0 ? await log.flush() : null;
      if (flushed && flushed.errorCode !== 0) clean = false;
      await log.close();
    });
    try {
      await this.checkpointRecoveryPoints();
      await this.checkpointHighWatermarks();
      await this.checkpointLogStartOffsets();
      await this.checkpointCleanerOffsets();
      const marker = this.shutdownBrokerEpoch === null ? '' : JSON.stringify({ version: 0, brokerEpoch: this.shutdownBrokerEpoch });
      if (clean) await writeFileAtomic(path.join(this.logDir, CLEAN_SHUTDOWN_FILE), marker);
    } catch (err) {
      if (!isIoError(err)) throw err;
      this.logger.error('writing shutdown checkpoints failed', { error: err.message });
    }
    this.handles.closeAll();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`log manager for ${this.logDir} is closed`);
    if (this.failure !== null) throw new LogDirOfflineError(this.logDir, this.failure);
  }
}

function isParsed(config: LogConfig | LogConfigInput): config is LogConfig {
  return typeof (config as LogConfig).segmentBytes === 'number' && typeof (config as LogConfig).messageTimestampType === 'string';
}
