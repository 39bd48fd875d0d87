/**
 * A group member's heartbeats and rebalances, as Kafka's consumers count them in their
 * coordinator metrics (HeartbeatMetricsManager and the rebalance metrics managers; the consumer's
 * group consumer-coordinator-metrics, the share consumer's consumer-share-coordinator-metrics).
 * A heartbeat's time runs from its sending to its answer, whatever the answer (one that never
 * came does not count); a rebalance runs from its start to the member having its assignment, a
 * start while one is under way going on with it. Pure: the caller passes the time.
 */
import { SampledStat, secondsSince, type ClientMetric, type SampleConfig } from './metrics.js';

type MetricOf = (name: string, description: string, value: number) => ClientMetric;

export class HeartbeatMetrics {
  /** The time from each heartbeat to its answer, in milliseconds. */
  readonly stat: SampledStat;
  /** When the last heartbeat went out (null: none yet). */
  private lastSentAt: number | null = null;

  constructor(config: SampleConfig, now: number) {
    this.stat = new SampledStat(config, now);
  }

  sent(now: number): void {
    this.lastSentAt = now;
  }

  /** A heartbeat was answered `latencyMs` after it went out. */
  answered(latencyMs: number, now: number): void {
    this.stat.record(latencyMs, now);
  }

  /** heartbeat-rate, heartbeat-response-time-max, heartbeat-total, last-heartbeat-seconds-ago, made by `m` (their group and tags). */
  metrics(m: MetricOf, now: number): ClientMetric[] {
    return [
      m('heartbeat-rate', 'heartbeats answered per second', this.stat.countRate(now)),
      m('heartbeat-response-time-max', 'longest wait for the answer to a heartbeat, in milliseconds', this.stat.max(now)),
      m('heartbeat-total', 'heartbeats answered', this.stat.count),
      m('last-heartbeat-seconds-ago', 'seconds since the last heartbeat went out (-1: none yet)', secondsSince(this.lastSentAt, now)),
    ];
  }
}

export class RebalanceMetrics {
  /** Each completed rebalance's time, in milliseconds. */
  readonly stat: SampledStat;
  /** When the rebalance under way began (null: none). */
  private startedAt: number | null = null;
  /** When the last rebalance completed (null: none yet). */
  lastAt: number | null = null;

  constructor(config: SampleConfig, now: number) {
    this.stat = new SampledStat(config, now);
  }

  /** A rebalance begins (one under way goes on). */
  started(now: number): void {
    this.startedAt ??= now;
  }

  /** The member has its assignment: the rebalance under way is over (none under way: nothing). */
  completed(now: number): void {
    if (this.startedAt === null) return;
    this.stat.record(now - this.startedAt, now);
    this.startedAt = null;
    this.lastAt = now;
  }

  /** rebalance-rate-per-hour and rebalance-total, made by `m` (their group and tags); `note` ends the total's description. */
  counts(m: MetricOf, now: number, note = ''): ClientMetric[] {
    return [m('rebalance-rate-per-hour', 'rebalances completed per hour', this.stat.countRate(now) * 3600), m('rebalance-total', `rebalances completed${note}`, this.stat.count)];
  }
}
