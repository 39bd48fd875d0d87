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

/**
 * JSON lines by default (for machines); a readable one-line format on a terminal or with
 * SAMSA_LOG_FORMAT=pretty: `time level [node actor] message key=value ...`.
 */
const pretty = process.env.SAMSA_LOG_FORMAT === 'pretty' || (process.env.SAMSA_LOG_FORMAT !== 'json' && process.stderr.isTTY === true);

const readable = winston.format.printf((info) => {
  const { level, message, timestamp, node, actor, kind: _kind, stack, ...rest } = info as Record<string, unknown>;
  const where = [node, actor].filter(Boolean).join(' ');
  const extra = Object.entries(rest)
    .filter(([k]) => typeof k === 'string')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  const time = String(timestamp).slice(11, 23);
  return `${time} ${String(level).toUpperCase().padEnd(5)} ${where ? `[${where}] ` : ''}${String(message)}${extra ? `  ${extra}` : ''}${stack ? `\n${String(stack)}` : ''}`;
});

export const rootLogger: Logger = winston.createLogger({
  level: initial === 'silent' ? 'error' : initial,
  silent: initial === 'silent',
  format: pretty
    ? winston.format.combine(winston.format.timestamp(), readable)
    : winston.format.combine(winston.format.timestamp(), winston.format.json()),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
});

// winston runs every call through its format (timestamp, JSON) before the transport drops it for
// its level, so a debug line cost its formatting with debug off (~3,000 of them while a broker
// took the leadership of 1,000 partitions). A call below the level stops here; child loggers
// inherit these methods from the root.
const levelMethods = rootLogger as unknown as Record<string, (...args: unknown[]) => Logger>;
for (const level of Object.keys(rootLogger.levels)) {
  const logAt = levelMethods[level]!;
  levelMethods[level] = function (this: Logger | undefined, ...args: unknown[]): Logger {
    if (rootLogger.silent || !rootLogger.isLevelEnabled(level)) return this ?? rootLogger;
    return logAt.apply(this, args);
  };
}

export function setLogLevel(level: LogLevel): void {
  rootLogger.silent = level === 'silent';
  if (level !== 'silent') rootLogger.level = level;
}

/** A child logger whose every line carries the given fields (node, actor path, component...). */
export function childLogger(fields: Record<string, unknown>): Logger {
  return rootLogger.child(fields);
}
