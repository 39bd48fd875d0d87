/**
 * A byte-rate quota, as Kafka's quotas measure one (its Rate over quota.window.num samples of
 * quota.window.size.seconds): bytes recorded in one-second samples, each starting with the first
 * record after the last one's second ran out; the rate measured from the oldest sample kept over
 * the last `samples` seconds; "exceeded" once that rate is above the limit; and the throttle time
 * Kafka gives a client over it: (rate - limit) / limit x the window the rate was measured over.
 * One difference: Kafka's window is at least quota.window.num - 1 samples wide, which lets a new
 * or returning client send ten seconds' worth at once; here it is at least one second wide. Used by the replication
 * throttles (leader/follower.replication.throttled.rate), the log dir move throttle
 * (replica.alter.log.dirs.io.max.bytes.per.second, which waits timeUntilWithinLimitMs before each
 * copy step) and the client quotas (producer_byte_rate, consumer_byte_rate; request_percentage,
 * which records handler time as percent of a second, so its rate is a percentage of a thread).
 * The clock is injected.
 */
export const UNLIMITED_RATE = Number.MAX_SAFE_INTEGER;

export interface QuotaClock {
  now(): number;
}

export class RateQuota {
  private readonly sampleMs: number;
  private readonly buckets: { start: number; bytes: number }[] = [];

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
    // as Kafka's samples: one starts with the first record after the last one's time ran out (not
    // on a wall-clock second, which would count up to a second nobody sent in)
    const last = this.buckets[this.buckets.length - 1];
    if (last && now < last.start + this.sampleMs) last.bytes += bytes;
    else this.buckets.push({ start: now, bytes });
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

  /**
   * How long from now until the rate is within the limit again if nothing more is recorded (0
   * when it is within): the wait before a throttled task's next piece of work. It is the time the
   * measured window must grow for what it holds to be within the limit, and never more than until
   * every sample kept has aged out (so even a limit of 0 lets one piece through per window, as
   * Kafka's quotas do). Samples ageing out can make the wait end over the limit still (the window
   * is capped at `samples` seconds): the caller asks again then.
   */
  timeUntilWithinLimitMs(): number {
    if (this.unlimited) return 0;
    const now = this.clock.now();
    const { rate, total, windowStart } = this.measure();
    if (rate <= this.limitBytesPerSec) return 0;
    const untilWithin = this.limitBytesPerSec > 0 ? (total * 1000) / this.limitBytesPerSec - (now - windowStart) : Infinity;
    const newest = this.buckets[this.buckets.length - 1]!;
    const untilEmpty = newest.start + (this.samples + 1) * this.sampleMs - now;
    return Math.max(1, Math.ceil(Math.min(untilWithin, untilEmpty)));
  }

  private measure(): { rate: number; windowMs: number; total: number; windowStart: number } {
    const now = this.clock.now();
    this.expire(now);
    if (this.buckets.length === 0) return { rate: 0, windowMs: this.sampleMs, total: 0, windowStart: now };
    // from the oldest sample still kept (a client back after a pause starts a new window)
    const windowStart = Math.max(this.buckets[0]!.start, now - this.samples * this.sampleMs);
    const windowMs = Math.max(now - windowStart, this.sampleMs);
    let total = 0;
    for (const b of this.buckets) total += b.bytes;
    return { rate: (total * 1000) / windowMs, windowMs, total, windowStart };
  }

  isExceeded(): boolean {
    return !this.unlimited && this.rate() > this.limitBytesPerSec;
  }

  private expire(now: number): void {
    const oldest = now - this.samples * this.sampleMs;
    while (this.buckets.length > 0 && this.buckets[0]!.start + this.sampleMs <= oldest) this.buckets.shift();
  }
}
