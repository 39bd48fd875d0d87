/**
 * The consumer's metrics, named and meant as Kafka's consumer-fetch-manager-metrics group (its
 * fetches: latency, bytes and records per fetch; what the application took: records and bytes
 * consumed; how far behind the partitions are) and part of consumer-coordinator-metrics (offset
 * commits, rebalances, joins, syncs, heartbeats, assigned partitions) and consumer-metrics (the
 * application's polls). A rebalance runs from the member's JoinGroup (or,
 * with group.protocol consumer, the start of a reconciliation) to its assignment; the first join
 * counts, as in Kafka. Counted per fetch, per batch handed out and per commit, never
 * per record. Kept in samples (src/client/metrics.ts): averages, maxima and rates cover the last
 * metrics.num.samples x metrics.sample.window.ms; totals cover the consumer's life. The polls,
 * heartbeats and rebalances are counted as the share consumer's are (src/client/poll-metrics.ts,
 * src/client/group-member-metrics.ts).
 */
import { HeartbeatMetrics, RebalanceMetrics } from '../../src/client/group-member-metrics.js';
import { SampledStat, metricsOf, secondsSince, type ClientMetric, type SampleConfig } from '../../src/client/metrics.js';
import { PollMetrics } from '../../src/client/poll-metrics.js';

const FETCH = 'consumer-fetch-manager-metrics';
const COORDINATOR = 'consumer-coordinator-metrics';
const CONSUMER = 'consumer-metrics';

/**
 * One assigned partition's lag when the application took its records (Kafka's partition-level
 * records-lag, records-lag-avg, records-lag-max). It lives on the partition's assignment, so a
 * partition no longer assigned has no metrics, and one assigned again starts afresh, as in Kafka.
 */
export class PartitionLag {
  /** The lag when records were last taken; NaN before. */
  latest = Number.NaN;
  readonly stat: SampledStat;

  constructor(config: SampleConfig, now: number) {
    this.stat = new SampledStat(config, now);
  }

  record(lag: number, now: number): void {
    this.latest = lag;
    this.stat.record(lag, now);
  }
}

/** A request of which one at a time is out (a JoinGroup, a SyncGroup, a heartbeat): the time to its answer. */
class TimedRequest {
  private sentAt: number | null = null;

  constructor(readonly stat: SampledStat) {}

  sent(now: number): void {
    this.sentAt = now;
  }

  /** Answered; its time counts when `counts` (a join or sync refused does not). */
  answered(now: number, counts = true): void {
    if (counts && this.sentAt !== null) this.stat.record(now - this.sentAt, now);
    this.sentAt = null;
  }
}

/** An assigned partition, as the metrics see it. */
export interface AssignedLag {
  topic: string;
  partition: number;
  /** null until the application took records of it. */
  lag: PartitionLag | null;
}

export class ConsumerMetrics {
  private readonly fetchLatency: SampledStat;
  private readonly fetchSize: SampledStat;
  private readonly recordsPerFetch: SampledStat;
  private readonly bytesConsumed: SampledStat;
  private readonly recordsConsumed: SampledStat;
  private readonly lag: SampledStat;
  private readonly commitLatency: SampledStat;
  private readonly rebalances: RebalanceMetrics;
  private readonly join: TimedRequest;
  private readonly sync: TimedRequest;
  private readonly heartbeats: HeartbeatMetrics;
  private readonly heartbeat: TimedRequest;
  private readonly polls: PollMetrics;

  constructor(
    private readonly config: SampleConfig,
    now: number,
  ) {
    const stat = () => new SampledStat(config, now);
    this.fetchLatency = stat();
    this.fetchSize = stat();
    this.recordsPerFetch = stat();
    this.bytesConsumed = stat();
    this.recordsConsumed = stat();
    this.lag = stat();
    this.commitLatency = stat();
    this.rebalances = new RebalanceMetrics(config, now);
    this.join = new TimedRequest(stat());
    this.sync = new TimedRequest(stat());
    this.heartbeats = new HeartbeatMetrics(config, now);
    this.heartbeat = new TimedRequest(this.heartbeats.stat);
    this.polls = new PollMetrics(config, now);
  }

  /** A JoinGroup went out (classic protocol). */
  joinSent(now: number): void {
    this.join.sent(now);
  }

  /** The JoinGroup was answered: joined (`ok`) or not; only a join counts. */
  joinAnswered(ok: boolean, now: number): void {
    this.join.answered(now, ok);
  }

  /** A SyncGroup went out. */
  syncSent(now: number): void {
    this.sync.sent(now);
  }

  /** The SyncGroup was answered: synced (`ok`) or not; only a sync counts. */
  syncAnswered(ok: boolean, now: number): void {
    this.sync.answered(now, ok);
  }

  /** A heartbeat went out (Heartbeat, or ConsumerGroupHeartbeat with the consumer protocol). */
  heartbeatSent(now: number): void {
    this.heartbeat.sent(now);
    this.heartbeats.sent(now);
  }

  /** The heartbeat was answered (whatever the answer). */
  heartbeatAnswered(now: number): void {
    this.heartbeat.answered(now);
  }

  /** The application polled (Kafka's recordPollStart). */
  pollStarted(now: number): void {
    this.polls.started(now);
  }

  /** The poll was answered (Kafka's recordPollEnd): the share of the time it spent waiting in the poll. */
  pollEnded(now: number): void {
    this.polls.ended(now);
  }

  /** The member begins to join its group, or to reconcile a new assignment (a rebalance under way goes on). */
  rebalanceStarted(now: number): void {
    this.rebalances.started(now);
  }

  /** The member has its assignment: the rebalance under way is over. */
  rebalanceCompleted(now: number): void {
    this.rebalances.completed(now);
  }

  /** A fetch was answered `latencyMs` after it went out, with `bytes` of batches holding `records` records for the application. */
  fetched(latencyMs: number, bytes: number, records: number, now: number): void {
    this.fetchLatency.record(latencyMs, now);
    this.fetchSize.record(bytes, now);
    this.recordsPerFetch.record(records, now);
  }

  /** A lag for a partition the application takes records of for the first time in its assignment. */
  partitionLag(now: number): PartitionLag {
    return new PartitionLag(this.config, now);
  }

  /** The application took `records` records of a partition (`bytes` of whole batches), which is now `lag` records behind its end. */
  consumed(records: number, bytes: number, lag: number, partition: PartitionLag, now: number): void {
    this.recordsConsumed.record(records, now);
    if (bytes > 0) this.bytesConsumed.record(bytes, now);
    this.lag.record(lag, now);
    partition.record(lag, now);
  }

  /** An offset commit was answered `latencyMs` after it went out. */
  committed(latencyMs: number, now: number): void {
    this.commitLatency.record(latencyMs, now);
  }

  /** Every metric now, tagged with the consumer's client.id (and a partition's with its topic and partition). */
  snapshot(now: number, clientId: string, assigned: readonly AssignedLag[]): ClientMetric[] {
    const tags = { 'client-id': clientId };
    const f = metricsOf(FETCH, tags);
    const c = metricsOf(COORDINATOR, tags);
    const k = metricsOf(CONSUMER, tags);
    const perPartition: ClientMetric[] = [];
    for (const a of assigned) {
      if (!a.lag) continue;
      const ptags = { 'client-id': clientId, topic: a.topic, partition: String(a.partition) };
      const p = metricsOf(FETCH, ptags);
      perPartition.push(
        p('records-lag', 'records the partition was behind its end when records were last taken', a.lag.latest),
        p('records-lag-avg', "the partition's average lag when records were taken", a.lag.stat.avg(now)),
        p('records-lag-max', "the partition's largest lag when records were taken", a.lag.stat.max(now)),
      );
    }
    const assignedPartitions = assigned.length;
    return [
      ...perPartition,
      f('bytes-consumed-rate', 'bytes of batches the application took per second', this.bytesConsumed.rate(now)),
      f('bytes-consumed-total', 'bytes of batches the application took', this.bytesConsumed.total),
      f('fetch-latency-avg', 'average milliseconds from a fetch request to its answer', this.fetchLatency.avg(now)),
      f('fetch-latency-max', 'longest wait for the answer to a fetch request, in milliseconds', this.fetchLatency.max(now)),
      f('fetch-rate', 'fetch requests answered per second', this.fetchLatency.countRate(now)),
      f('fetch-size-avg', 'average bytes of batches in a fetch answer', this.fetchSize.avg(now)),
      f('fetch-size-max', 'most bytes of batches in one fetch answer', this.fetchSize.max(now)),
      f('fetch-total', 'fetch requests answered', this.fetchLatency.count),
      f('records-consumed-rate', 'records the application took per second', this.recordsConsumed.rate(now)),
      f('records-consumed-total', 'records the application took', this.recordsConsumed.total),
      f('records-lag-max', 'most records a partition was behind its end (high watermark, or last stable offset with read_committed) when records were taken', this.lag.max(now)),
      f('records-per-request-avg', 'average records in a fetch answer', this.recordsPerFetch.avg(now)),
      c('assigned-partitions', 'partitions assigned to this consumer', assignedPartitions),
      c('commit-latency-avg', 'average milliseconds from an offset commit to its answer', this.commitLatency.avg(now)),
      c('commit-latency-max', 'longest wait for the answer to an offset commit, in milliseconds', this.commitLatency.max(now)),
      c('commit-rate', 'offset commits answered per second', this.commitLatency.countRate(now)),
      c('commit-total', 'offset commits answered', this.commitLatency.count),
      ...this.heartbeats.metrics(c, now),
      c('join-rate', 'group joins per second (classic protocol)', this.join.stat.countRate(now)),
      c('join-time-avg', 'average milliseconds from a JoinGroup to its answer', this.join.stat.avg(now)),
      c('join-time-max', 'longest wait for a JoinGroup answer, in milliseconds', this.join.stat.max(now)),
      c('join-total', 'group joins (classic protocol)', this.join.stat.count),
      c('last-rebalance-seconds-ago', 'seconds since the last rebalance completed (-1: none yet)', secondsSince(this.rebalances.lastAt, now)),
      c('rebalance-latency-avg', 'average milliseconds from joining (or a new assignment) to having the assignment', this.rebalances.stat.avg(now)),
      c('rebalance-latency-max', 'longest rebalance, in milliseconds', this.rebalances.stat.max(now)),
      c('rebalance-latency-total', 'milliseconds spent in rebalances, summed', this.rebalances.stat.total),
      ...this.rebalances.counts(c, now, ', the first join included'),
      c('sync-rate', 'group syncs per second (classic protocol)', this.sync.stat.countRate(now)),
      c('sync-time-avg', 'average milliseconds from a SyncGroup to its answer', this.sync.stat.avg(now)),
      c('sync-time-max', 'longest wait for a SyncGroup answer, in milliseconds', this.sync.stat.max(now)),
      c('sync-total', 'group syncs (classic protocol)', this.sync.stat.count),
      ...this.polls.metrics(k, now),
    ];
  }
}
