/**
 * Structured logging through winston. One root logger per process (or worker); every actor,
 * transport and storage component takes a child logger carrying its node id and actor path.
 * Level: SAMSA_LOG_LEVEL (error|warn|info|debug|silent), default 'warn', or setLogLevel().
 *
 * Named loggers, as Kafka's broker loggers (log4j's): every child logger has a dotted name and
 * belongs to a node. An actor's is `samsa.<kind>` (samsa.broker, samsa.partition-replica,
 * samsa.kafka-connection...), a component's its parent's name and the component
 * (samsa.broker.log-manager.log), the actor system's own lines samsa.runtime, and a child may
 * name itself with a `logger` field. A name's ancestors exist with it (samsa.broker.log-manager
 * makes samsa.broker and samsa), and `root` always does. Levels are set per node and name
 * (setLoggerLevel: Kafka's OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL): a logger takes the
 * level of its nearest named ancestor that has one, else its node's root, else the process's
 * (setLogLevel). Brokers expose this as Kafka's BROKER_LOGGER configs; a node's levels go with it
 * when its actor system stops, as Kafka's dynamic logger levels do not outlive the broker.
 */
import winston from 'winston';

export type Logger = winston.Logger;
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'silent';

/** Kafka's log levels (log4j's), most to least severe, as a BROKER_LOGGER config's value names them. */
export const LOGGER_LEVELS = ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL'] as const;
export type LoggerLevel = (typeof LOGGER_LEVELS)[number];
/** The logger every other one falls back to (Kafka's name for it). */
export const ROOT_LOGGER = 'root';

/**
 * The most verbose winston level (npm levels: error 0, warn 1, info 2, ..., debug 5, silly 6) a
 * Kafka level lets through; -1 nothing. samsa writes no FATAL lines, so FATAL, which keeps only
 * those, keeps none.
 */
const THRESHOLD: Readonly<Record<LoggerLevel, number>> = { OFF: -1, FATAL: -1, ERROR: 0, WARN: 1, INFO: 2, DEBUG: 5, TRACE: 6, ALL: 6 };
const WINSTON_LEVEL_AT: readonly string[] = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];
const FROM_LOG_LEVEL: Readonly<Record<LogLevel, LoggerLevel>> = { silent: 'OFF', error: 'ERROR', warn: 'WARN', info: 'INFO', debug: 'DEBUG' };

/** A Kafka log level named in any case ('debug', 'DEBUG'), or null when it is none. */
export function parseLoggerLevel(value: string): LoggerLevel | null {
  const upper = value.toUpperCase();
  return (LOGGER_LEVELS as readonly string[]).includes(upper) ? (upper as LoggerLevel) : null;
}

function levelFromEnv(): LogLevel {
  const raw = process.env.SAMSA_LOG_LEVEL ?? 'warn';
  return (raw in FROM_LOG_LEVEL ? raw : 'warn') as LogLevel;
}

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
  level: 'warn',
  format: pretty
    ? winston.format.combine(winston.format.timestamp(), readable)
    : winston.format.combine(winston.format.timestamp(), winston.format.json()),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
});

// ---- named loggers and their levels ----

/** Where a logger sits: its node ('' for one outside any node) and its name; its level cached. */
interface Scope {
  readonly node: string;
  readonly name: string;
  /** The `generation` the threshold was worked out at. */
  generation: number;
  threshold: number;
}

interface NodeLoggers {
  /** Every logger name seen on the node, with its ancestors. */
  readonly names: Set<string>;
  /** The levels set on the node, by name (root included). */
  readonly levels: Map<string, LoggerLevel>;
}

const SCOPE = Symbol('samsa.loggerScope');
type Scoped = Logger & { [SCOPE]?: Scope };

let processRoot: LoggerLevel = FROM_LOG_LEVEL[levelFromEnv()];
const nodes = new Map<string, NodeLoggers>();
/** Bumped by every change of a level: scopes work their threshold out again when it moved. */
let generation = 1;

const rootScope: Scope = { node: '', name: ROOT_LOGGER, generation: 0, threshold: -1 };
(rootLogger as Scoped)[SCOPE] = rootScope;

function nodeLoggers(node: string): NodeLoggers {
  let n = nodes.get(node);
  if (!n) {
    n = { names: new Set([ROOT_LOGGER]), levels: new Map() };
    nodes.set(node, n);
  }
  return n;
}

function register(node: string, name: string): void {
  const names = nodeLoggers(node).names;
  for (let k = name; !names.has(k); ) {
    names.add(k);
    const dot = k.lastIndexOf('.');
    if (dot <= 0) break;
    k = k.slice(0, dot);
  }
}

/** The level a logger runs at: its own, else its nearest named ancestor's, else its node's root's, else the process's. */
function effectiveLevel(node: string, name: string): LoggerLevel {
  const levels = nodes.get(node)?.levels;
  if (levels && levels.size > 0) {
    for (let k = name; ; ) {
      const l = levels.get(k);
      if (l) return l;
      const dot = k.lastIndexOf('.');
      if (dot <= 0) break;
      k = k.slice(0, dot);
    }
    const root = levels.get(ROOT_LOGGER);
    if (root) return root;
  }
  return processRoot;
}

function thresholdOf(scope: Scope): number {
  if (scope.generation !== generation) {
    scope.threshold = THRESHOLD[effectiveLevel(scope.node, scope.name)];
    scope.generation = generation;
  }
  return scope.threshold;
}

/**
 * After a change: the transports pass the most verbose level any logger runs at (the loggers
 * themselves drop what is below their own), and the root writes nothing when every level is OFF.
 */
function levelsChanged(): void {
  generation++;
  let most = THRESHOLD[processRoot];
  for (const n of nodes.values()) for (const l of n.levels.values()) most = Math.max(most, THRESHOLD[l]);
  rootLogger.silent = most < 0;
  if (most >= 0) rootLogger.level = WINSTON_LEVEL_AT[most]!;
}

// winston runs every call through its format (timestamp, JSON) before the transport drops it for
// its level, so a debug line cost its formatting with debug off (~3,000 of them while a broker
// took the leadership of 1,000 partitions). A call below its logger's level stops here; child
// loggers inherit these methods from the root.
const levelMethods = rootLogger as unknown as Record<string, (...args: unknown[]) => Logger>;
for (const [level, value] of Object.entries(rootLogger.levels)) {
  const logAt = levelMethods[level]!;
  levelMethods[level] = function (this: Scoped | undefined, ...args: unknown[]): Logger {
    const self = this ?? rootLogger;
    if (value > thresholdOf((self as Scoped)[SCOPE] ?? rootScope)) return self;
    return logAt.apply(this, args);
  };
}

rootLogger.isLevelEnabled = function (this: Scoped, level: string): boolean {
  const value = rootLogger.levels[level];
  return value !== undefined && value <= thresholdOf(this[SCOPE] ?? rootScope);
};

const winstonChild = rootLogger.child;
/** A child's scope: its node (its own field, else its parent's) and its name (see the header). */
rootLogger.child = function (this: Scoped, fields: Record<string, unknown>): Logger {
  const parent = this[SCOPE] ?? rootScope;
  const { logger: named, ...meta } = fields;
  const node = typeof fields.node === 'string' || typeof fields.node === 'number' ? String(fields.node) : parent.node;
  const name =
    typeof named === 'string' && named !== ''
      ? named
      : typeof fields.kind === 'string'
        ? `samsa.${fields.kind}`
        : typeof fields.component === 'string'
          ? parent.name === ROOT_LOGGER
            ? `samsa.${fields.component}`
            : `${parent.name}.${fields.component}`
          : parent.name;
  const child = winstonChild.call(this, meta) as Scoped;
  child[SCOPE] = { node, name, generation: 0, threshold: -1 };
  if (name !== ROOT_LOGGER) register(node, name);
  return child;
};

levelsChanged();

/** The process's level: every logger without a level of its own or of its node's root runs at it. */
export function setLogLevel(level: LogLevel): void {
  processRoot = FROM_LOG_LEVEL[level] ?? 'WARN';
  levelsChanged();
}

/** A child logger whose every line carries the given fields (node, actor path, component...). */
export function childLogger(fields: Record<string, unknown>): Logger {
  return rootLogger.child(fields);
}

/** Whether a node has a logger of that name (root always). */
export function loggerExists(node: string, name: string): boolean {
  return name === ROOT_LOGGER || (nodes.get(node)?.names.has(name) ?? false);
}

/** A node's loggers, root first then by name, each with the level it runs at (as Kafka lists a broker's). */
export function loggerLevels(node: string): { name: string; level: LoggerLevel }[] {
  const names = [...(nodes.get(node)?.names ?? [ROOT_LOGGER])].filter((n) => n !== ROOT_LOGGER).sort();
  return [ROOT_LOGGER, ...names].map((name) => ({ name, level: effectiveLevel(node, name) }));
}

/** Sets a logger's level on a node (and so its descendants' without one); false if it has no such logger. */
export function setLoggerLevel(node: string, name: string, level: LoggerLevel): boolean {
  if (!loggerExists(node, name)) return false;
  nodeLoggers(node).levels.set(name, level);
  levelsChanged();
  return true;
}

/**
 * Levels for a node's loggers from its start, as a log4j config names Kafka's: each name is a
 * logger of the node from then on (with its ancestors), whether or not anything logs through it yet.
 */
export function configureLoggers(node: string, levels: Readonly<Record<string, LoggerLevel>>): void {
  for (const [name, level] of Object.entries(levels)) {
    register(node, name);
    nodeLoggers(node).levels.set(name, level);
  }
  levelsChanged();
}

/** Takes a logger's own level away (it runs at its ancestor's again); false for root or a logger the node does not have. */
export function unsetLoggerLevel(node: string, name: string): boolean {
  if (name === ROOT_LOGGER || !loggerExists(node, name)) return false;
  nodes.get(node)?.levels.delete(name);
  levelsChanged();
  return true;
}

/** Forgets a node's loggers and their levels (its actor system stopped). */
export function forgetNodeLoggers(node: string): void {
  if (nodes.delete(node)) levelsChanged();
}
