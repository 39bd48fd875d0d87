/**
 * When a KIP-848 member heartbeats (Kafka's HeartbeatRequestState) and what its last heartbeat
 * said (Kafka's HeartbeatState.SentFields). Pure: time comes in as arguments.
 *
 * Timing: one heartbeat in flight at a time; the next is due an interval (the coordinator's
 * heartbeatIntervalMs, from its answers) after the last was sent. After an error the next may go
 * at once, unless the error calls for a backoff (retry.backoff.ms doubling up to
 * retry.backoff.max.ms), which also holds back the heartbeats that skip the interval (joining,
 * acknowledging).
 *
 * Sent fields: a heartbeat carries only what changed since the last one (the member id and
 * epoch always); a join, and any heartbeat after an error, carries everything.
 */
import type { LocalAssignment } from './local-assignment.js';

export class HeartbeatTiming {
  /** Sequence number of the heartbeat in flight, or null. */
  inFlight: number | null = null;
  private nextAt = 0;
  private backoffUntil = 0;
  private attempts = 0;

  constructor(
    public intervalMs: number,
    private readonly retryBackoffMs: number,
    private readonly retryBackoffMaxMs: number,
  ) {}

  /** The interval is up, nothing is in flight and no backoff holds. */
  canSend(now: number): boolean {
    return this.inFlight === null && now >= this.nextAt && now >= this.backoffUntil;
  }

  /** For the heartbeats that skip the interval (joining, acknowledging): nothing in flight, no backoff. */
  canSendNow(now: number): boolean {
    return this.inFlight === null && now >= this.backoffUntil;
  }

  /** Milliseconds until a heartbeat is due (0: now). */
  dueInMs(now: number): number {
    return Math.max(0, this.nextAt - now, this.backoffUntil - now);
  }

  onSent(now: number, seq: number): void {
    this.inFlight = seq;
    this.nextAt = now + this.intervalMs;
  }

  onSuccess(now: number, intervalMs: number): void {
    this.inFlight = null;
    this.attempts = 0;
    this.backoffUntil = 0;
    if (intervalMs > 0 && intervalMs !== this.intervalMs) {
      this.intervalMs = intervalMs;
      this.nextAt = now + intervalMs;
    }
  }

  /** A failed heartbeat: the next one may go at once, after a backoff unless `skipBackoff`. */
  onFailure(now: number, skipBackoff: boolean): void {
    this.inFlight = null;
    this.nextAt = now;
    if (skipBackoff) {
      this.attempts = 0;
      this.backoffUntil = 0;
      return;
    }
    this.attempts++;
    this.backoffUntil = now + Math.min(this.retryBackoffMaxMs, this.retryBackoffMs * 2 ** (this.attempts - 1));
  }

  /** Forgets the heartbeat in flight (its answer will be ignored) and any backoff. */
  reset(now: number): void {
    this.inFlight = null;
    this.attempts = 0;
    this.backoffUntil = 0;
    this.nextAt = now;
  }
}

/** What the last heartbeat carried; null (or -1) for "not sent since the last reset". */
export class SentFields {
  rebalanceTimeoutMs = -1;
  subscribedTopicNames: string[] | null = null;
  serverAssignor: string | null = null;
  localAssignment: LocalAssignment | null = null;

  reset(): void {
    this.rebalanceTimeoutMs = -1;
    this.subscribedTopicNames = null;
    this.serverAssignor = null;
    this.localAssignment = null;
  }
}
