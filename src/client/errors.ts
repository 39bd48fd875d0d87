/**
 * Errors the promise API throws to its caller. Inside the system errors are data (errorCode in
 * replies); at the user-facing edge a failed operation becomes a SamsaError carrying the same
 * code, its Kafka name and whether retrying could help.
 */
import { errorInfo } from '../protocol/errors.js';

export class SamsaError extends Error {
  override name = 'SamsaError';
  readonly errorName: string;
  readonly retriable: boolean;

  constructor(
    readonly errorCode: number,
    message?: string,
  ) {
    const info = errorInfo(errorCode);
    super(message ? `${info.name}: ${message}` : `${info.name}: ${info.message}`);
    this.errorName = info.name;
    this.retriable = info.retriable;
  }
}

/**
 * A commit that can no longer succeed because the group rebalanced after the records were
 * fetched (Kafka's CommitFailedException): the partitions may now belong to another member.
 */
export class CommitFailedError extends SamsaError {
  override name = 'CommitFailedError';
}

/**
 * A call the client's state does not allow (Kafka's IllegalStateException): with the share
 * consumer, polling without a subscription, polling in explicit mode with records of the last
 * poll not acknowledged, acknowledging in implicit mode, acknowledging a record not waiting for it
 * (one acknowledged already, or being renewed), using it closed; with any client,
 * clientInstanceId() while enable.metrics.push is false.
 */
export class IllegalStateError extends Error {
  override name = 'IllegalStateError';
}
