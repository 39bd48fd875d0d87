/**
 * The table of outstanding asks on one node: correlation id -> resolver, timer and target node.
 * Every entry settles exactly once: with the reply, a timeout Failure, or a Failure when the
 * target turns out unreachable (dead letter, endpoint closed, system stopping).
 */
import { nanoid } from 'nanoid';
import { ErrorCode } from '../protocol/errors.js';
import type { Clock, TimerHandle } from './clock.js';
import type { Failure, FailureReason, Message } from './types.js';

interface PendingAsk {
  resolve: (m: Message) => void;
  timer: TimerHandle;
  targetNode: string;
  /** Built only when a failure needs it. */
  describe: () => string;
}

export function failureCode(reason: FailureReason): number {
  switch (reason) {
    case 'timeout':
    case 'overflow':
      return ErrorCode.REQUEST_TIMED_OUT;
    case 'unknown-node':
    case 'endpoint-closed':
    case 'system-stopping':
      return ErrorCode.NETWORK_EXCEPTION;
    case 'invalid-message':
      return ErrorCode.INVALID_REQUEST;
    case 'unknown-actor':
    case 'actor-stopped':
    case 'actor-crashed':
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

export function makeFailure(reason: FailureReason, message: string): Failure {
  return { type: 'Failure', errorCode: failureCode(reason), reason, message };
}

export class PendingAsks {
  private readonly pending = new Map<string, PendingAsk>();
  /** Ids are this table's random prefix plus a counter: unique across node restarts, cheap to make. */
  private readonly prefix = nanoid(8);
  private seq = 0;

  constructor(private readonly clock: Clock) {}

  get size(): number {
    return this.pending.size;
  }

  /** Registers an ask and returns its correlation id and the promise that settles it. */
  open(targetNode: string, describe: () => string, timeoutMs: number): { id: string; promise: Promise<Message> } {
    const id = this.prefix + (++this.seq).toString(36);
    const promise = new Promise<Message>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        if (this.pending.delete(id)) {
          resolve(makeFailure('timeout', `no reply to ${describe()} within ${timeoutMs} ms`));
        }
      }, timeoutMs);
      this.pending.set(id, { resolve, timer, targetNode, describe });
    });
    return { id, promise };
  }

  /** Settles an ask with its reply. Returns false when the ask is unknown (late or duplicate). */
  settle(id: string, reply: Message): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    this.clock.clearTimer(p.timer);
    p.resolve(reply);
    return true;
  }

  fail(id: string, reason: FailureReason, message: string): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    return this.settle(id, makeFailure(reason, `${p.describe()}: ${message}`));
  }

  /** Fails every ask waiting on `node` (its endpoint closed). */
  failNode(node: string, reason: FailureReason, message: string): number {
    let n = 0;
    for (const [id, p] of [...this.pending]) {
      if (p.targetNode === node && this.fail(id, reason, message)) n++;
    }
    return n;
  }

  failAll(reason: FailureReason, message: string): void {
    for (const id of [...this.pending.keys()]) this.fail(id, reason, message);
  }
}
