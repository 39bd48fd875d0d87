/**
 * The storage layer's public surface (DESIGN.md section 6): partition logs, the per-log-dir
 * LogManager, a broker's several log dirs (LogDirs), log compaction, log config with Kafka's keys, and the result types callers switch on.
 */
export {
  PartitionLog,
  LogState,
  EARLIEST_TIMESTAMP,
  LATEST_TIMESTAMP,
  type AppendError,
  type AppendOk,
  type AppendOptions,
  type AppendResult,
  type FlushResult,
  type OffsetForTimestampResult,
  type PartitionLogOptions,
  type ReadError,
  type ReadOk,
  type ReadOptions,
  type ReadResult,
  type TimestampOffset,
} from './partition-log.js';
export { LogManager, CLEAN_SHUTDOWN_FILE, type LogManagerOptions } from './log-manager.js';
export { LogDirs, type LogDirsOptions, type LogDirView, type LogMoveResult } from './log-dirs.js';
export {
  ConfigError,
  DEFAULT_LOG_CONFIG,
  LOG_CONFIG_KEYS,
  parseLogConfig,
  logConfigToKafka,
  type LogConfig,
  type LogConfigInput,
  type TimestampType,
  type CleanupPolicy,
  deletesByRetention,
  isCompacted,
} from './log-config.js';
export { CompactionError, planCompaction, type CleanerOptions, type CompactionPlan, type CompactionStats } from './log-cleaner.js';
export { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, type EpochEndOffset } from './leader-epoch-cache.js';
export { FileHandleCache } from './file-handle-cache.js';
