/**
 * The table of outstanding asks on one node: correlation id -> resolver, timer and target node.
 * Every entry settles exactly once: with the reply, a timeout Failure, or a Failure when the
 * target turns out unreachable (dead letter, endpoint closed, system stopping).
 */
import { nanoid } from 'nanoid';
import { ErrorCode } from '../protocol/errors.js';
import { ChurnTable } from './churn-table.js';
import type { Clock, TimerHandle } from './clock.js';
import type { Failure, FailureReason, Message } from './types.js';

interface PendingAsk {
  /** The correlation id, and the sequence number it ends with (the tables' key). */
  id: string;
  seq: number;
  resolve: (m: Message) => void;
  /** clock.now() at which it times out. */
  deadline: number;
  timeoutMs: number;
  targetNode: string;
  /** Built only when a failure needs it. */
  describe: () => string;
}

/** Timeout lengths whose (empty) queues are kept before empty ones are dropped. */
const MAX_IDLE_QUEUES = 32;

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
    case 'unauthorized':
      return ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  }
}

export function makeFailure(reason: FailureReason, message: string): Failure {
  return { type: 'Failure', errorCode: failureCode(reason), reason, message };
}

/**
 * Timeouts without a timer per ask: asks are kept in one queue per timeout length, where
 * insertion order is deadline order, and one clock timer is armed for the earliest deadline of
 * any queue. A reply removes its entry and leaves the timer alone (when it fires early it only
 * re-arms); the timer is cleared when nothing is pending. At tens of thousands of asks a second
 * this saves a timer object, its closure and the timer-list insert and removal per ask.
 *
 * Entries are keyed by their sequence number in ChurnTables, not Maps (see churn-table.ts: a
 * Map turning over this fast keeps every ask's message and reply alive until a full collection).
 */
export class PendingAsks {
  private readonly pending = new ChurnTable<number, PendingAsk>();
  /** timeoutMs -> the asks with that timeout, by sequence number (= deadline order). */
  private readonly queues = new Map<number, ChurnTable<number, PendingAsk>>();
  private timer: TimerHandle | undefined;
  /** When `timer` fires (Infinity: no timer). */
  private timerDue = Infinity;
  /** Ids are this table's random prefix plus a counter: unique across node restarts, cheap to make. */
  private readonly prefix = nanoid(8);
  private seq = 0;

  constructor(private readonly clock: Clock) {}

  get size(): number {
    return this.pending.size;
  }

  /** Registers an ask and returns its correlation id and the promise that settles it. */
  open(targetNode: string, describe: () => string, timeoutMs: number): { id: string; promise: Promise<Message> } {
    const seq = ++this.seq;
    const id = this.prefix + seq.toString(36);
    const ms = Math.max(0, timeoutMs);
    const deadline = this.clock.now() + ms;
    const promise = new Promise<Message>((resolve) => {
      const entry: PendingAsk = { id, seq, resolve, deadline, timeoutMs: ms, targetNode, describe };
      this.pending.set(seq, entry);
      let q = this.queues.get(ms);
      if (!q) {
        // a queue left empty stays (asks use a handful of timeouts) unless many have piled up
        if (this.queues.size >= MAX_IDLE_QUEUES) this.dropEmptyQueues();
        this.queues.set(ms, (q = new ChurnTable()));
      }
      q.set(seq, entry);
    });
    if (deadline < this.timerDue) this.arm(deadline);
    return { id, promise };
  }

  /**
   * Settles an ask with its reply. Returns false when the ask is unknown (late or duplicate), or
   * when the reply came from a client (`fromClient`, its node id) that is not the node asked.
   */
  settle(id: string, reply: Message, fromClient?: string): boolean {
    const p = this.lookup(id);
    if (!p) return false;
    if (fromClient !== undefined && p.targetNode !== fromClient) return false;
    this.remove(p);
    p.resolve(reply);
    return true;
  }

  fail(id: string, reason: FailureReason, message: string): boolean {
    const p = this.lookup(id);
    if (!p) return false;
    return this.settle(id, makeFailure(reason, `${p.describe()}: ${message}`));
  }

  /** Fails every ask waiting on `node` (its endpoint closed). */
  failNode(node: string, reason: FailureReason, message: string): number {
    let n = 0;
    for (const p of this.pending.values()) {
      if (p.targetNode === node && this.fail(p.id, reason, message)) n++;
    }
    return n;
  }

  failAll(reason: FailureReason, message: string): void {
    for (const p of this.pending.values()) this.fail(p.id, reason, message);
  }

  /** The entry of a correlation id this table handed out, if it is still pending. */
  private lookup(id: string): PendingAsk | undefined {
    if (typeof id !== 'string' || !id.startsWith(this.prefix)) return undefined;
    const p = this.pending.get(parseInt(id.slice(this.prefix.length), 36));
    return p !== undefined && p.id === id ? p : undefined;
  }

  private remove(p: PendingAsk): void {
    this.pending.delete(p.seq);
    this.queues.get(p.timeoutMs)?.delete(p.seq);
    if (this.pending.size === 0) this.disarm();
  }

  private dropEmptyQueues(): void {
    for (const [ms, q] of [...this.queues]) if (q.size === 0) this.queues.delete(ms);
  }

  private arm(due: number): void {
    this.disarm();
    this.timerDue = due;
    this.timer = this.clock.setTimeout(() => this.expire(), Math.max(0, due - this.clock.now()));
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.timerDue = Infinity;
  }

  /** Times out every ask whose deadline has passed, then arms the timer for the next one. */
  private expire(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    const now = this.clock.now();
    const due: PendingAsk[] = [];
    let next = Infinity;
    for (const q of this.queues.values()) {
      for (const p of q.values()) {
        if (p.deadline > now) {
          if (p.deadline < next) next = p.deadline;
          break;
        }
        due.push(p);
      }
    }
    for (const p of due) {
      if (this.pending.get(p.seq) !== p) continue;
      this.remove(p);
      p.resolve(makeFailure('timeout', `no reply to ${p.describe()} within ${p.timeoutMs} ms`));
    }
    // settling may have opened asks (and armed the timer) already
    if (next < this.timerDue && this.pending.size > 0) this.arm(next);
  }
}
