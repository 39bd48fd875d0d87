/**
 * A replication throttle's byte rate (Kafka's ReplicationQuotaManager, for
 * leader.replication.throttled.rate and follower.replication.throttled.rate): bytes recorded in
 * one-second samples, the rate measured over the last `samples` of them (at least one second, so
 * a first burst is not a huge rate), and "exceeded" once that rate is above the limit. A throttled
 * replica that is behind is left out of replication while the quota is exceeded; the quota
 * recovers as the samples age out. The clock is injected.
 */
export const UNLIMITED_RATE = Number.MAX_SAFE_INTEGER;

export interface QuotaClock {
  now(): number;
}

export class ReplicationQuota {
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
    const now = this.clock.now();
    this.expire(now);
    if (this.buckets.length === 0) return 0;
    const windowStart = Math.max(this.firstStart, now - this.samples * this.sampleMs);
    const elapsed = Math.max(now - windowStart, this.sampleMs);
    let total = 0;
    for (const b of this.buckets) total += b.bytes;
    return (total * 1000) / elapsed;
  }

  isExceeded(): boolean {
    return !this.unlimited && this.rate() > this.limitBytesPerSec;
  }

  private expire(now: number): void {
    const oldest = now - this.samples * this.sampleMs;
    while (this.buckets.length > 0 && this.buckets[0]!.start + this.sampleMs <= oldest) this.buckets.shift();
  }
}

/**
 * The partitions a throttled-replicas topic config names for `brokerId` (Kafka's
 * leader/follower.replication.throttled.replicas: 'partition:broker' pairs, or '*' for every
 * replica). Returns 'all', the set of partitions, or null when none.
 */
export function throttledPartitions(value: string | number | undefined, brokerId: number): 'all' | Set<number> | null {
  if (value === undefined) return null;
  const text = String(value).trim();
  if (text === '') return null;
  if (text === '*') return 'all';
  const out = new Set<number>();
  for (const entry of text.split(',')) {
    const [p, b] = entry.trim().split(':');
    if (Number(b) === brokerId && p !== undefined && /^\d+$/.test(p.trim())) out.add(Number(p));
  }
  return out.size > 0 ? out : null;
}

/** Why a throttled-replicas value is malformed, or null (Kafka: '*' or 'partition:broker' pairs). */
export function throttledReplicasProblem(value: unknown): string | null {
  if (typeof value !== 'string') return `expected '*' or partition:broker pairs separated by commas, got ${JSON.stringify(value)}`;
  const text = value.trim();
  if (text === '' || text === '*') return null;
  for (const entry of text.split(',')) {
    if (!/^\s*\d+\s*:\s*\d+\s*$/.test(entry)) return `'${entry}' is not partition:broker (e.g. 0:101,1:102), and the list is not '*'`;
  }
  return null;
}
