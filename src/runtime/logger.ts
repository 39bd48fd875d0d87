/**
 * Structured logging through winston. One root logger per process (or worker); every actor,
 * transport and storage component takes a child logger carrying its node id and actor path.
 * Level: SAMSA_LOG_LEVEL (error|warn|info|debug), default 'warn', or setLogLevel().
 */
import winston from 'winston';

export type Logger = winston.Logger;
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'silent';

const LEVELS = new Set(['error', 'warn', 'info', 'debug', 'silent']);

function levelFromEnv(): LogLevel {
  const raw = process.env.SAMSA_LOG_LEVEL ?? 'warn';
  return (LEVELS.has(raw) ? raw : 'warn') as LogLevel;
}

const initial = levelFromEnv();

export const rootLogger: Logger = winston.createLogger({
  level: initial === 'silent' ? 'error' : initial,
  silent: initial === 'silent',
  format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
});

export function setLogLevel(level: LogLevel): void {
  rootLogger.silent = level === 'silent';
  if (level !== 'silent') rootLogger.level = level;
}

/** A child logger whose every line carries the given fields (node, actor path, component...). */
export function childLogger(fields: Record<string, unknown>): Logger {
  return rootLogger.child(fields);
}
