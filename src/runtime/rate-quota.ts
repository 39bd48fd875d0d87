/**
 * A byte-rate quota, as Kafka's quotas measure one (its Rate over quota.window.num samples of
 * quota.window.size.seconds): bytes recorded in one-second samples, the rate measured over the
 * last `samples` of them (at least one second wide, so a first burst is not a huge rate),
 * "exceeded" once that rate is above the limit, and the throttle time Kafka gives a client over
 * it: (rate - limit) / limit x the window the rate was measured over. Used by the replication
 * throttles (leader/follower.replication.throttled.rate) and the client quotas
 * (producer_byte_rate, consumer_byte_rate). The clock is injected.
 */
export const UNLIMITED_RATE = Number.MAX_SAFE_INTEGER;

export interface QuotaClock {
  now(): number;
}

export class RateQuota {
  private readonly sampleMs: number;
  private readonly buckets: { start: number; bytes: number }[] = [];
  private firstStart = -1;

  /**
   * @param limitBytesPerSec the rate allowed; UNLIMITED_RATE (or more) never throttles
   * @param samples how many one-second samples the rate is measured over (Kafka's 11)
   */
  constructor(
    private limitBytesPerSec: number,
    private readonly clock: QuotaClock,
    private readonly samples = 11,
    sampleMs = 1_000,
  ) {
    this.sampleMs = sampleMs;
  }

  get limit(): number {
    return this.limitBytesPerSec;
  }

  /** A new limit (a dynamic broker config changed); what was recorded stays. */
  setLimit(limitBytesPerSec: number): void {
    this.limitBytesPerSec = limitBytesPerSec;
  }

  get unlimited(): boolean {
    return this.limitBytesPerSec >= UNLIMITED_RATE;
  }

  record(bytes: number): void {
    if (bytes <= 0) return;
    const now = this.clock.now();
    this.expire(now);
    const start = now - (now % this.sampleMs);
    const last = this.buckets[this.buckets.length - 1];
    if (last && last.start === start) last.bytes += bytes;
    else this.buckets.push({ start, bytes });
    if (this.firstStart < 0) this.firstStart = start;
  }

  /** Bytes per second over the retained samples. */
  rate(): number {
    return this.measure().rate;
  }

  /**
   * How long a client over the quota is held back (Kafka's QuotaUtils.throttleTime): 0 within
   * it, else (rate - limit) / limit x the window the rate was measured over, in ms.
   */
  throttleTimeMs(): number {
    if (this.unlimited) return 0;
    const { rate, windowMs } = this.measure();
    if (rate <= this.limitBytesPerSec) return 0;
    return Math.round(((rate - this.limitBytesPerSec) / Math.max(this.limitBytesPerSec, 1e-9)) * windowMs);
  }

  private measure(): { rate: number; windowMs: number } {
    const now = this.clock.now();
    this.expire(now);
    if (this.buckets.length === 0) return { rate: 0, windowMs: this.sampleMs };
    const windowStart = Math.max(this.firstStart, now - this.samples * this.sampleMs);
    const windowMs = Math.max(now - windowStart, this.sampleMs);
    let total = 0;
    for (const b of this.buckets) total += b.bytes;
    return { rate: (total * 1000) / windowMs, windowMs };
  }

  isExceeded(): boolean {
    return !this.unlimited && this.rate() > this.limitBytesPerSec;
  }

  private expire(now: number): void {
    const oldest = now - this.samples * this.sampleMs;
    while (this.buckets.length > 0 && this.buckets[0]!.start + this.sampleMs <= oldest) this.buckets.shift();
  }
}
