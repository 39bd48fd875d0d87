/**
 * The DeleteRecords purgatory of one partition leader (Kafka's DelayedDeleteRecords): a deletion
 * the leader has applied to its own log waits here until every live replica's log start offset
 * has reached it (the partition's low watermark, from the followers' fetches), the leader loses
 * leadership, or its timeout passes. Deadlines use the injected clock; the owner calls
 * `expire(now)` from a timer.
 */
import type { ReplyToken } from '../../src/runtime/actor-definition.js';

export interface DelayedDeleteRecords {
  /** Satisfied once the low watermark is at least this offset. */
  readonly offset: number;
  readonly deadline: number;
  readonly token: ReplyToken;
}

export class DeleteRecordsPurgatory {
  private waiting: DelayedDeleteRecords[] = [];

  get size(): number {
    return this.waiting.length;
  }

  add(op: DelayedDeleteRecords): void {
    this.waiting.push(op);
  }

  /** Removes and returns the deletions the low watermark has reached. */
  tryComplete(lowWatermark: number): DelayedDeleteRecords[] {
    const done = this.waiting.filter((op) => op.offset <= lowWatermark);
    if (done.length > 0) this.waiting = this.waiting.filter((op) => op.offset > lowWatermark);
    return done;
  }

  /** Removes and returns the deletions whose deadline has passed. */
  expire(now: number): DelayedDeleteRecords[] {
    const expired = this.waiting.filter((op) => op.deadline <= now);
    if (expired.length > 0) this.waiting = this.waiting.filter((op) => op.deadline > now);
    return expired;
  }

  /** Removes everything (leadership lost, replica stopped). */
  abortAll(): DelayedDeleteRecords[] {
    const all = this.waiting;
    this.waiting = [];
    return all;
  }

  /** The earliest deadline, or undefined when empty. */
  nextDeadline(): number | undefined {
    let min: number | undefined;
    for (const op of this.waiting) if (min === undefined || op.deadline < min) min = op.deadline;
    return min;
  }
}
