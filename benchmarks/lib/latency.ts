/**
 * Latency samples (milliseconds) and their percentiles, the way Kafka's perf tools report them:
 * avg, p50, p95, p99, p99.9 and max. Keeps every sample (a few million floats at most).
 */

export interface LatencySummary {
  count: number;
  avg: number;
  p50: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
}

/** Histogram buckets for progress lines: 1% wide, from 1 µs up (about 100 s at the top). */
const BUCKET_GROWTH = Math.log(1.01);
const BUCKETS = 1900;

function bucketOf(ms: number): number {
  const us = ms * 1000;
  if (!(us > 1)) return 0;
  return Math.min(BUCKETS - 1, Math.floor(Math.log(us) / BUCKET_GROWTH));
}

export class LatencyRecorder {
  private samples: Float64Array<ArrayBuffer>;
  private n = 0;
  private sum = 0;
  private maxSeen = 0;
  /** Counts per 1% bucket: percentiles for progress lines without sorting every sample. */
  private readonly histogram = new Uint32Array(BUCKETS);

  /**
   * `capacity`: the samples the run will record, when known. They are kept in one array, grown
   * by doubling past it; growing it in a measured stretch copies megabytes on the thread being
   * measured (at 400,000 samples, 2 MB into 4), a stall the slowest records then show.
   */
  constructor(capacity = 1024) {
    this.samples = new Float64Array(Math.max(1, Math.ceil(capacity)));
  }

  record(ms: number): void {
    if (this.n === this.samples.length) {
      const next = new Float64Array(this.samples.length * 2);
      next.set(this.samples);
      this.samples = next;
    }
    this.samples[this.n++] = ms;
    this.histogram[bucketOf(ms)]!++;
    this.sum += ms;
    if (ms > this.maxSeen) this.maxSeen = ms;
  }

  get count(): number {
    return this.n;
  }

  /** Average and max so far (for progress lines), cheap. */
  running(): { avg: number; max: number } {
    return { avg: this.n ? this.sum / this.n : 0, max: this.maxSeen };
  }

  /** The exact summary: sorts every sample (for the final report). */
  summary(): LatencySummary {
    return summarize(this.samples.subarray(0, this.n));
  }

  /**
   * The summary to within 1% from the histogram, in O(buckets): for progress lines while a run
   * is measuring (sorting every sample there would stall the thread being measured).
   */
  approximate(): LatencySummary {
    const n = this.n;
    const at = (q: number): number => {
      if (n === 0) return Number.NaN;
      const rank = Math.min(n, Math.max(1, Math.ceil(q * n)));
      let seen = 0;
      for (let b = 0; b < BUCKETS; b++) {
        seen += this.histogram[b]!;
        if (seen >= rank) return Math.min(this.maxSeen, Math.exp((b + 1) * BUCKET_GROWTH) / 1000);
      }
      return this.maxSeen;
    };
    return { count: n, avg: n ? this.sum / n : Number.NaN, p50: at(0.5), p95: at(0.95), p99: at(0.99), p999: at(0.999), max: n ? this.maxSeen : Number.NaN };
  }
}

/** Nearest-rank percentile of sorted samples (q in 0..1). */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx]!;
}

export function summarize(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i]!;
  return {
    count: sorted.length,
    avg: sorted.length ? sum / sorted.length : Number.NaN,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    p999: percentile(sorted, 0.999),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

export function formatLatency(l: LatencySummary): string {
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  return `avg ${f(l.avg)} ms, p50 ${f(l.p50)}, p95 ${f(l.p95)}, p99 ${f(l.p99)}, p99.9 ${f(l.p999)}, max ${f(l.max)} ms`;
}
