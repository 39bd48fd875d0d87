/**
 * The acks=all purgatory of one partition (Kafka's DelayedProduce): produce requests wait
 * here until the high watermark passes their last offset (tryComplete), the leader loses
 * leadership (onComplete with an error), or their request timeout passes (onExpiration).
 * Deadlines use the injected clock; the owner calls `expire(now)` from a timer.
 */
import type { ReplyToken } from '../../src/runtime/actor-definition.js';

export interface DelayedProduce {
  /** The request is satisfied once the high watermark is above this offset. */
  readonly requiredOffset: number;
  readonly deadline: number;
  readonly token: ReplyToken;
  readonly baseOffset: number;
  readonly logAppendTime: number;
}

export type Completion = { op: DelayedProduce; reason: 'satisfied' | 'expired' | 'aborted' };

export class ProducePurgatory {
  /** Ordered by requiredOffset: appends come in offset order. */
  private readonly waiting: DelayedProduce[] = [];

  get size(): number {
    return this.waiting.length;
  }

  add(op: DelayedProduce): void {
    this.waiting.push(op);
  }

  /** Completes every request whose required offset is below the high watermark. */
  tryComplete(highWatermark: number): DelayedProduce[] {
    let n = 0;
    while (n < this.waiting.length && this.waiting[n]!.requiredOffset < highWatermark) n++;
    return n === 0 ? [] : this.waiting.splice(0, n);
  }

  /** Removes and returns every request whose deadline has passed. */
  expire(now: number): DelayedProduce[] {
    const expired: DelayedProduce[] = [];
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i]!.deadline <= now) expired.push(...this.waiting.splice(i, 1));
    }
    return expired.reverse();
  }

  /** Removes everything (leadership lost, replica stopped). */
  abortAll(): DelayedProduce[] {
    return this.waiting.splice(0, this.waiting.length);
  }

  /** The earliest deadline, or undefined when empty. */
  nextDeadline(): number | undefined {
    let min: number | undefined;
    for (const op of this.waiting) if (min === undefined || op.deadline < min) min = op.deadline;
    return min;
  }
}
