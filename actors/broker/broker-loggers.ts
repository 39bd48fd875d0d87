/**
 * A broker's loggers as Kafka's BROKER_LOGGER configs (KIP-412): the named loggers of the
 * broker's node and the level each runs at, and changes to them. As in Kafka, a change names a
 * logger that exists and a level of Kafka's (any case here), root's level can be set but not
 * removed, a request is checked whole before any of it applies, and the levels do not outlive
 * the broker. The loggers are the node's: brokers sharing a node share them, as brokers in one
 * JVM share log4j's.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { Logger } from '../../src/runtime/logger.js';
import { LOGGER_LEVELS, ROOT_LOGGER, loggerExists, loggerLevels, parseLoggerLevel, setLoggerLevel, unsetLoggerLevel } from '../../src/runtime/logger.js';
import type { BrokerLoggerChange, BrokerLoggersAltered, BrokerLoggersDescription } from './messages.js';

const VALID_LEVELS = [...LOGGER_LEVELS].sort().join(', ');

export function describeBrokerLoggers(node: string, brokerId: number): BrokerLoggersDescription {
  return { type: 'BrokerLoggersDescription', errorCode: ErrorCode.NONE, brokerId, loggers: loggerLevels(node) };
}

/** Why a change cannot be made (an error code and message), or null when it can. */
function problem(node: string, brokerId: number, c: unknown): { errorCode: number; errorMessage: string } | null {
  const invalid = (errorMessage: string) => ({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage });
  if (typeof c !== 'object' || c === null) return invalid('each change must be { name, op: set|delete, level? }');
  const { name, op, level } = c as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') return invalid('a change must name a logger');
  if (op !== 'set' && op !== 'delete') return invalid(`${String(op)} is not allowed for a broker logger: set or delete`);
  if (!loggerExists(node, name)) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Logger ${name} does not exist on broker ${brokerId}` };
  if (op === 'delete') return name === ROOT_LOGGER ? invalid(`Removing the log level of the ${ROOT_LOGGER} logger is not allowed`) : null;
  if (typeof level !== 'string') return invalid(`Null value not supported for : ${name}`);
  if (parseLoggerLevel(level) === null) {
    return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Cannot set the log level of ${name} to ${level} as it is not a supported log level. Valid log levels are ${VALID_LEVELS}` };
  }
  return null;
}

/** Checks every change, then (unless validateOnly) makes them in order, each logged at warn as Kafka does. */
export function alterBrokerLoggers(node: string, brokerId: number, changes: readonly BrokerLoggerChange[], validateOnly: boolean, log: Logger): BrokerLoggersAltered {
  const seen = new Set<string>();
  for (const c of changes) {
    const bad = problem(node, brokerId, c);
    if (bad) return { type: 'BrokerLoggersAltered', ...bad };
    if (seen.has(c.name)) return { type: 'BrokerLoggersAltered', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Error due to duplicate config keys: ${c.name}` };
    seen.add(c.name);
  }
  if (!validateOnly) {
    for (const c of changes) {
      if (c.op === 'set') {
        const level = parseLoggerLevel(c.level!)!;
        setLoggerLevel(node, c.name, level);
        log.warn(`Updated the log level of ${c.name} to ${level}`);
      } else {
        unsetLoggerLevel(node, c.name);
        log.warn(`Unset the log level of ${c.name}`);
      }
    }
  }
  return { type: 'BrokerLoggersAltered', errorCode: ErrorCode.NONE, errorMessage: null };
}
