/**
 * A broker's client quota enforcement (Kafka's ClientQuotaManager for produce and fetch, and its
 * ClientRequestQuotaManager for request time): the quotas in force (from the cluster metadata),
 * and a rate per quota entity the traffic matched (its defaults filled in with the client's own
 * user and client id, so a default quota holds each user or client id to it on its own).
 * Recording a request's bytes, or its handler time, answers how long the client is to be held
 * back: 0 within its quota, else Kafka's throttle time. Rates nobody has used for an hour are
 * dropped. The clock is injected.
 */
import { RateQuota, type QuotaClock } from '../runtime/rate-quota.js';
import { CONTROLLER_MUTATION_RATE, REQUEST_PERCENTAGE, entityKey, resolveQuota, type ClientQuota, type QuotaKey } from '../security/client-quotas.js';

const IDLE_MS = 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 1000;
/**
 * The longest a request-time quota holds a client back: one sample of the quota window
 * (quota.window.size.seconds), as Kafka's ClientRequestQuotaManager bounds it.
 */
export const MAX_REQUEST_THROTTLE_MS = 1_000;

/** A request's handler time in ms as the request_percentage rate counts it: percent of a second. */
function percentOfSecond(ms: number): number {
  return ms / 10;
}

export class ClientQuotaManager {
  private quotas = new Map<string, ClientQuota>();
  private anyRequestQuota = false;
  private readonly rates = new Map<string, { rate: RateQuota; usedAt: number }>();
  private prunedAt = 0;
  /** Requests that put their client over a quota (answered with a throttle time). */
  throttled = 0;
  /** Of those, the ones over a request_percentage quota. */
  requestTimeThrottled = 0;
  /** Handler time (ms) of requests exempt from request quotas (Kafka's exempt-request-time). */
  exemptRequestTimeMs = 0;

  constructor(private readonly clock: QuotaClock) {}

  /** Replaces the quotas in force (the cluster's whole set). */
  update(quotas: readonly ClientQuota[]): void {
    this.quotas = new Map(quotas.map((q) => [entityKey(q.entity), q]));
    this.anyRequestQuota = quotas.some((q) => q.quotas[REQUEST_PERCENTAGE] !== undefined);
  }

  /** Whether some entity has a request_percentage quota (without one, request time is not measured). */
  get requestQuotasActive(): boolean {
    return this.anyRequestQuota;
  }

  /** Whether any quota is configured (without one, nothing is recorded). */
  get active(): boolean {
    return this.quotas.size > 0;
  }

  /** How many quota entities are in force. */
  get size(): number {
    return this.quotas.size;
  }

  /**
   * The controller_mutation_rate quota of a client (KIP-599), for the controller to keep: the
   * quota entity it counts against (defaults filled in with the client's names) and its rate;
   * null when none applies.
   */
  mutationQuota(user: string, clientId: string): { entity: string; rate: number } | null {
    if (this.quotas.size === 0) return null;
    const quota = resolveQuota(this.quotas, user, clientId, CONTROLLER_MUTATION_RATE);
    return quota ? { entity: entityKey(quota.metricEntity), rate: quota.limit } : null;
  }

  /**
   * Records `bytes` of `key` traffic (producer_byte_rate: request bytes; consumer_byte_rate:
   * fetched bytes) of a client, and answers its throttle time in ms.
   */
  record(user: string, clientId: string, key: 'producer_byte_rate' | 'consumer_byte_rate', bytes: number): number {
    const rate = this.rateFor(user, clientId, key);
    if (!rate) return 0;
    rate.record(bytes);
    const ms = rate.throttleTimeMs();
    if (ms > 0) this.throttled++;
    return ms;
  }

  /**
   * Records `ms` of a client's request handler time against its request_percentage quota
   * (KIP-124), and answers its throttle time in ms: Kafka's, at most MAX_REQUEST_THROTTLE_MS.
   * With `throttle` false the time is only recorded (Kafka's network thread time, counted after
   * the response is on its way) and 0 is answered.
   */
  recordRequestTime(user: string, clientId: string, ms: number, throttle = true): number {
    const rate = this.rateFor(user, clientId, REQUEST_PERCENTAGE);
    if (!rate) return 0;
    rate.record(percentOfSecond(ms));
    if (!throttle) return 0;
    const throttleMs = Math.min(rate.throttleTimeMs(), MAX_REQUEST_THROTTLE_MS);
    if (throttleMs > 0) {
      this.throttled++;
      this.requestTimeThrottled++;
    }
    return throttleMs;
  }

  /** Records handler time of a request exempt from request quotas (a follower's fetch, a produce with acks 0, ...). */
  recordExempt(ms: number): void {
    this.exemptRequestTimeMs += ms;
  }

  /** The rate of `key` the client's traffic counts against (its limit brought up to date), or null without a quota. */
  private rateFor(user: string, clientId: string, key: QuotaKey): RateQuota | null {
    if (this.quotas.size === 0) return null;
    const quota = resolveQuota(this.quotas, user, clientId, key);
    if (!quota) return null;
    const now = this.clock.now();
    const id = `${key}|${entityKey(quota.metricEntity)}`;
    let entry = this.rates.get(id);
    if (!entry) this.rates.set(id, (entry = { rate: new RateQuota(quota.limit, this.clock), usedAt: now }));
    entry.usedAt = now;
    entry.rate.setLimit(quota.limit);
    if (now - this.prunedAt >= PRUNE_EVERY_MS) this.prune(now);
    return entry.rate;
  }

  private prune(now: number): void {
    this.prunedAt = now;
    for (const [id, e] of this.rates) if (now - e.usedAt > IDLE_MS) this.rates.delete(id);
  }
}
