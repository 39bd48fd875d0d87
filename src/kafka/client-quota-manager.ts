/**
 * A broker's client quota enforcement (Kafka's ClientQuotaManager for produce and fetch): the
 * quotas in force (from the cluster metadata), and a byte rate per quota entity the traffic
 * matched (its defaults filled in with the client's own user and client id, so a default quota
 * holds each user or client id to it on its own). Recording a request's bytes answers how long
 * the client is to be held back: 0 within its quota, else Kafka's throttle time. Rates nobody has
 * used for an hour are dropped. The clock is injected.
 */
import { RateQuota, type QuotaClock } from '../runtime/rate-quota.js';
import { CONTROLLER_MUTATION_RATE, entityKey, resolveQuota, type ClientQuota, type QuotaKey } from '../security/client-quotas.js';

const IDLE_MS = 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 1000;

export class ClientQuotaManager {
  private quotas = new Map<string, ClientQuota>();
  private readonly rates = new Map<string, { rate: RateQuota; usedAt: number }>();
  private prunedAt = 0;
  /** Requests that put their client over a quota (answered with a throttle time). */
  throttled = 0;

  constructor(private readonly clock: QuotaClock) {}

  /** Replaces the quotas in force (the cluster's whole set). */
  update(quotas: readonly ClientQuota[]): void {
    this.quotas = new Map(quotas.map((q) => [entityKey(q.entity), q]));
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
  record(user: string, clientId: string, key: QuotaKey, bytes: number): number {
    if (this.quotas.size === 0) return 0;
    const quota = resolveQuota(this.quotas, user, clientId, key);
    if (!quota) return 0;
    const now = this.clock.now();
    const id = `${key}|${entityKey(quota.metricEntity)}`;
    let entry = this.rates.get(id);
    if (!entry) this.rates.set(id, (entry = { rate: new RateQuota(quota.limit, this.clock), usedAt: now }));
    entry.usedAt = now;
    entry.rate.setLimit(quota.limit);
    entry.rate.record(bytes);
    if (now - this.prunedAt >= PRUNE_EVERY_MS) this.prune(now);
    const ms = entry.rate.throttleTimeMs();
    if (ms > 0) this.throttled++;
    return ms;
  }

  private prune(now: number): void {
    this.prunedAt = now;
    for (const [id, e] of this.rates) if (now - e.usedAt > IDLE_MS) this.rates.delete(id);
  }
}
