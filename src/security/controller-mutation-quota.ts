/**
 * Controller mutation quotas (KIP-599; the `controller_mutation_rate` client quota): how many
 * partitions a user / client id may create or delete per second, through CreateTopics,
 * CreatePartitions and DeleteTopics, kept by the active controller for the whole cluster as
 * Kafka's controller does. Each quota entity has a token bucket: it holds up to the rate times
 * Kafka's quota window (11 samples of 1 s), refills at the rate, and each topic's partitions are
 * taken from it. A request is refused once the bucket is below zero:
 * - strict (CreateTopics v6+, DeleteTopics v5+, CreatePartitions v3+): a topic asked while the
 *   bucket is below zero is refused THROTTLING_QUOTA_EXCEEDED, taking nothing; the topic that
 *   takes it below zero is still done (a burst may overshoot, as in Kafka);
 * - permissive (older versions, whose clients know no such error): every topic is done.
 * Either way the answer carries the time until the bucket is back at zero (Kafka's throttle
 * time). Buckets unused for an hour are dropped. The clock is injected.
 */
export const QUOTA_WINDOW_SECONDS = 11;
const IDLE_MS = 60 * 60 * 1000;

/** A request's quota, as the listener that took it resolved it (entity: the quota entity's key). */
export interface MutationQuotaRequest {
  entity: string;
  /** Partition mutations a second. */
  rate: number;
  strict: boolean;
}

interface Bucket {
  tokens: number;
  rate: number;
  atMs: number;
}

export class ControllerMutationQuotas {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly clock: { now(): number }) {}

  /** The quota of one request: `record` each topic's partitions, then `throttleTimeMs` for the answer. */
  begin(req: MutationQuotaRequest | undefined | null): MutationQuotaSession {
    if (!req || !(req.rate > 0)) return UNBOUNDED;
    const now = this.clock.now();
    this.prune(now);
    let b = this.buckets.get(req.entity);
    const burst = req.rate * QUOTA_WINDOW_SECONDS;
    if (!b) this.buckets.set(req.entity, (b = { tokens: burst, rate: req.rate, atMs: now }));
    b.rate = req.rate;
    return new BucketSession(b, req.strict, this.clock);
  }

  get size(): number {
    return this.buckets.size;
  }

  private prune(now: number): void {
    for (const [k, b] of this.buckets) if (now - b.atMs > IDLE_MS) this.buckets.delete(k);
  }
}

export interface MutationQuotaSession {
  /** Takes `partitions` mutations; false when a strict quota refuses them (nothing taken). */
  record(partitions: number): boolean;
  /** Ms until the bucket is back at zero (0: within the quota). */
  throttleTimeMs(): number;
}

const UNBOUNDED: MutationQuotaSession = { record: () => true, throttleTimeMs: () => 0 };

class BucketSession implements MutationQuotaSession {
  constructor(
    private readonly b: Bucket,
    private readonly strict: boolean,
    private readonly clock: { now(): number },
  ) {}

  private refill(): void {
    const now = this.clock.now();
    const burst = this.b.rate * QUOTA_WINDOW_SECONDS;
    this.b.tokens = Math.min(burst, this.b.tokens + (this.b.rate * Math.max(0, now - this.b.atMs)) / 1000);
    this.b.atMs = now;
  }

  record(partitions: number): boolean {
    this.refill();
    if (this.strict && this.b.tokens < 0) return false;
    this.b.tokens -= partitions;
    return true;
  }

  throttleTimeMs(): number {
    this.refill();
    return this.b.tokens < 0 ? Math.round((-this.b.tokens / this.b.rate) * 1000) : 0;
  }
}
