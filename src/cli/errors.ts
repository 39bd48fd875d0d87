/**
 * How the samsa commands fail: a UsageError is a command line that cannot work (exit code 2);
 * a CliError is something that went wrong while running (exit code 1) and says what to do
 * about it. Errors from the client API (SamsaError with Kafka's code) get the same treatment
 * through explain().
 */
import type { SamsaError } from '../client/errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {
  override name = 'UsageError';
}

export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = EXIT_FAILURE,
  ) {
    super(message);
  }
}

/** Advice for the Kafka errors a user can do something about. */
const ADVICE: Record<string, string> = {
  UNKNOWN_TOPIC_OR_PARTITION: 'list the topics with `samsa topics --list`',
  TOPIC_ALREADY_EXISTS: 'add --if-not-exists to accept an existing topic',
  INVALID_REPLICATION_FACTOR: 'use a --replication-factor no larger than the number of running brokers',
  INVALID_PARTITIONS: 'a topic has at least one partition, and --alter can only add partitions',
  NOT_ENOUGH_REPLICAS: 'fewer replicas are in sync than the topic\'s min.insync.replicas: start the missing brokers, or produce with --acks 1',
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 'fewer replicas are in sync than the topic\'s min.insync.replicas: start the missing brokers, or produce with --acks 1',
  REQUEST_TIMED_OUT: 'the cluster did not answer in time: check that its brokers are running (`samsa topics --describe` shows leaders and ISR)',
  NETWORK_EXCEPTION: 'the connection to the cluster broke: check that it is still running',
  LEADER_NOT_AVAILABLE: 'a partition has no leader right now: check that its brokers are running (`samsa topics --describe`)',
  COORDINATOR_NOT_AVAILABLE: 'no group coordinator answered: check that the brokers are running',
  NON_EMPTY_GROUP: 'the group still has active members: stop its consumers first',
  GROUP_ID_NOT_FOUND: 'list the groups with `samsa groups --list`',
  RECORD_LIST_TOO_LARGE: 'a record is larger than the topic or producer allows (max.request.size)',
  MESSAGE_TOO_LARGE: 'a record is larger than the topic or producer allows (max.request.size)',
};

// Errors are recognised by name rather than by class: a module loaded twice (once required,
// once imported, as a test runner may do) has two copies of each class.

export function isUsageError(e: unknown): e is UsageError {
  return e instanceof Error && e.name === 'UsageError';
}

/** The exit code an error ends the command with. */
export function exitCodeOf(e: unknown): number {
  if (isUsageError(e)) return EXIT_USAGE;
  if (e instanceof Error && e.name === 'CliError' && typeof (e as CliError).exitCode === 'number') return (e as CliError).exitCode;
  return EXIT_FAILURE;
}

function isSamsaError(e: unknown): e is SamsaError {
  return e instanceof Error && typeof (e as SamsaError).errorName === 'string' && typeof (e as SamsaError).errorCode === 'number';
}

/** A one-paragraph explanation of any error a command throws, with advice where there is some. */
export function explain(err: unknown): string {
  if (isUsageError(err) || (err instanceof Error && err.name === 'CliError')) return err.message;
  if (isSamsaError(err)) {
    const advice = ADVICE[err.errorName];
    return advice ? `${err.message} — ${advice}` : err.message;
  }
  if (err instanceof Error) {
    const debug = process.env.SAMSA_LOG_LEVEL === 'debug';
    return debug && err.stack ? err.stack : err.message;
  }
  return String(err);
}
