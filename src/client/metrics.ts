/**
 * Client metrics the way Kafka's clients keep them (org.apache.kafka.common.metrics): a value
 * recorded now and then (a batch's size, a request's latency) goes into the current one of
 * `metrics.num.samples` samples of `metrics.sample.window.ms` each; a sample older than all of
 * them together is forgotten. avg and max read the samples still current; rate divides their
 * sum by the time they cover, counted as at least (samples - 1) whole windows, as Kafka's Rate
 * does (so a rate read a few seconds after a client starts is lower than the traffic was). The
 * cumulative total and count never reset. Pure: the caller passes the time.
 */

/** One metric of a client, as Kafka's clients report them (group, name, description, tags, value). */
export interface ClientMetric {
  group: string;
  name: string;
  description: string;
  /** Kafka's tags: client-id. */
  tags: Record<string, string>;
  /** NaN where nothing was recorded in the samples yet (Kafka reports NaN too). */
  value: number;
}

/** Makes the metrics of one group with one set of tags: `m(name, description, value)`. */
export function metricsOf(group: string, tags: Record<string, string>): (name: string, description: string, value: number) => ClientMetric {
  return (name, description, value) => ({ group, name, description, tags, value });
}

/** Seconds from `at` to `now`, or -1 when it has not happened yet (Kafka's *-seconds-ago metrics). */
export function secondsSince(at: number | null, now: number): number {
  return at === null ? -1 : (now - at) / 1000;
}

export interface SampleConfig {
  /** metrics.sample.window.ms (Kafka: 30000). */
  windowMs: number;
  /** metrics.num.samples (Kafka: 2). */
  samples: number;
}

export const DEFAULT_SAMPLES: SampleConfig = Object.freeze({ windowMs: 30_000, samples: 2 });

export class SampledStat {
  private readonly starts: number[];
  private readonly sums: number[];
  private readonly counts: number[];
  private readonly maxes: number[];
  private current = 0;
  /** Every value recorded, summed (Kafka's CumulativeSum). */
  total = 0;
  /** How many values were recorded (Kafka's CumulativeCount). */
  count = 0;

  constructor(
    private readonly config: SampleConfig,
    now: number,
  ) {
    if (!(config.windowMs >= 1) || !Number.isInteger(config.samples) || config.samples < 1) throw new RangeError(`bad sample config: ${config.windowMs} ms x ${config.samples}`);
    this.starts = new Array<number>(config.samples).fill(now);
    this.sums = new Array<number>(config.samples).fill(0);
    this.counts = new Array<number>(config.samples).fill(0);
    this.maxes = new Array<number>(config.samples).fill(Number.NEGATIVE_INFINITY);
  }

  record(value: number, now: number): void {
    this.recordMany(value, 1, value, now);
  }

  /** `count` values summing to `sum`, the largest `max`, at once (a batch's records). */
  recordMany(sum: number, count: number, max: number, now: number): void {
    if (count <= 0) return;
    let i = this.current;
    if (now - this.starts[i]! >= this.config.windowMs) {
      i = this.current = (i + 1) % this.config.samples;
      this.starts[i] = now;
      this.sums[i] = 0;
      this.counts[i] = 0;
      this.maxes[i] = Number.NEGATIVE_INFINITY;
    }
    this.sums[i]! += sum;
    this.counts[i]! += count;
    if (max > this.maxes[i]!) this.maxes[i] = max;
    this.total += sum;
    this.count += count;
  }

  /** Whether sample i still counts at `now`. */
  private live(i: number, now: number): boolean {
    return now - this.starts[i]! < this.config.windowMs * this.config.samples;
  }

  /** The mean of the values in the current samples; NaN when there are none. */
  avg(now: number): number {
    const w = this.window(now);
    return w.n === 0 ? Number.NaN : w.sum / w.n;
  }

  /** The largest value in the current samples; NaN when there are none. */
  max(now: number): number {
    let m = Number.NEGATIVE_INFINITY;
    let n = 0;
    for (let i = 0; i < this.config.samples; i++) {
      if (!this.live(i, now)) continue;
      n += this.counts[i]!;
      if (this.maxes[i]! > m) m = this.maxes[i]!;
    }
    return n === 0 ? Number.NaN : m;
  }

  /** The values in the current samples summed, per second of the time they cover. */
  rate(now: number): number {
    const w = this.window(now);
    return w.ms <= 0 ? 0 : (w.sum * 1000) / w.ms;
  }

  /** How many values were recorded per second of the time the current samples cover. */
  countRate(now: number): number {
    const w = this.window(now);
    return w.ms <= 0 ? 0 : (w.n * 1000) / w.ms;
  }

  /** The current samples' sum and count, and the time they cover: at least samples - 1 whole windows. */
  private window(now: number): { sum: number; n: number; ms: number } {
    let sum = 0;
    let n = 0;
    let oldest = now;
    for (let i = 0; i < this.config.samples; i++) {
      if (!this.live(i, now)) continue;
      sum += this.sums[i]!;
      n += this.counts[i]!;
      if (this.starts[i]! < oldest) oldest = this.starts[i]!;
    }
    const { windowMs, samples } = this.config;
    let ms = now - oldest;
    const full = Math.floor(ms / windowMs);
    if (full < samples - 1) ms += (samples - 1 - full) * windowMs;
    return { sum, n, ms };
  }
}
