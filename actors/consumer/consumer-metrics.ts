/**
 * The consumer's metrics, named and meant as Kafka's consumer-fetch-manager-metrics group (its
 * fetches: latency, bytes and records per fetch; what the application took: records and bytes
 * consumed; how far behind the partitions are) and part of consumer-coordinator-metrics (offset
 * commits, rebalances, joins, syncs, heartbeats, assigned partitions) and consumer-metrics (the
 * application's polls). A rebalance runs from the member's JoinGroup (or,
 * with group.protocol consumer, the start of a reconciliation) to its assignment; the first join
 * counts, as in Kafka. Counted per fetch, per batch handed out and per commit, never
 * per record. Kept in samples (src/client/metrics.ts): averages, maxima and rates cover the last
 * metrics.num.samples x metrics.sample.window.ms; totals cover the consumer's life.
 */
import { SampledStat, type ClientMetric, type SampleConfig } from '../../src/client/metrics.js';

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
  private readonly rebalanceLatency: SampledStat;
  private readonly joinTime: SampledStat;
  private readonly syncTime: SampledStat;
  private readonly heartbeatTime: SampledStat;
  private readonly timeBetweenPolls: SampledStat;
  private readonly pollIdle: SampledStat;
  /** When the request of each kind in flight went out (-1: none). */
  private joinSentAt = -1;
  private syncSentAt = -1;
  private heartbeatSentAt = -1;
  /** When the last heartbeat went out, and the last poll came (-1: none yet). */
  private lastHeartbeatAt = -1;
  private lastPollAt = -1;
  /** When the poll being answered came, and the time from the poll before it to it. */
  private pollStartedAt = -1;
  private sinceLastPoll = 0;
  /** When the rebalance under way began (null: none). */
  private rebalanceStartedAt: number | null = null;
  /** When the last rebalance completed (null: none yet). */
  private lastRebalanceAt: number | null = null;

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
    this.rebalanceLatency = stat();
    this.joinTime = stat();
    this.syncTime = stat();
    this.heartbeatTime = stat();
    this.timeBetweenPolls = stat();
    this.pollIdle = stat();
  }

  /** A JoinGroup went out (classic protocol). */
  joinSent(now: number): void {
    this.joinSentAt = now;
  }

  /** The JoinGroup was answered: joined (`ok`) or not; only a join counts. */
  joinAnswered(ok: boolean, now: number): void {
    if (ok && this.joinSentAt >= 0) this.joinTime.record(now - this.joinSentAt, now);
    this.joinSentAt = -1;
  }

  /** A SyncGroup went out. */
  syncSent(now: number): void {
    this.syncSentAt = now;
  }

  /** The SyncGroup was answered: synced (`ok`) or not; only a sync counts. */
  syncAnswered(ok: boolean, now: number): void {
    if (ok && this.syncSentAt >= 0) this.syncTime.record(now - this.syncSentAt, now);
    this.syncSentAt = -1;
  }

  /** A heartbeat went out (Heartbeat, or ConsumerGroupHeartbeat with the consumer protocol). */
  heartbeatSent(now: number): void {
    this.heartbeatSentAt = now;
    this.lastHeartbeatAt = now;
  }

  /** The heartbeat was answered (whatever the answer). */
  heartbeatAnswered(now: number): void {
    if (this.heartbeatSentAt >= 0) this.heartbeatTime.record(now - this.heartbeatSentAt, now);
    this.heartbeatSentAt = -1;
  }

  /** The application polled (Kafka's recordPollStart). */
  pollStarted(now: number): void {
    this.sinceLastPoll = this.lastPollAt >= 0 ? now - this.lastPollAt : 0;
    this.timeBetweenPolls.record(this.sinceLastPoll, now);
    this.lastPollAt = now;
    this.pollStartedAt = now;
  }

  /** The poll was answered (Kafka's recordPollEnd): the share of the time it spent waiting in the poll. */
  pollEnded(now: number): void {
    if (this.pollStartedAt < 0) return;
    const inPoll = now - this.pollStartedAt;
    const span = inPoll + this.sinceLastPoll;
    this.pollIdle.record(span > 0 ? inPoll / span : 0, now);
    this.pollStartedAt = -1;
  }

  /** The member begins to join its group, or to reconcile a new assignment (a rebalance under way goes on). */
  rebalanceStarted(now: number): void {
    this.rebalanceStartedAt ??= now;
  }

  /** The member has its assignment: the rebalance under way is over. */
  rebalanceCompleted(now: number): void {
    if (this.rebalanceStartedAt === null) return;
    this.rebalanceLatency.record(now - this.rebalanceStartedAt, now);
    this.rebalanceStartedAt = null;
    this.lastRebalanceAt = now;
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
    const f = (name: string, description: string, value: number): ClientMetric => ({ group: FETCH, name, description, tags, value });
    const c = (name: string, description: string, value: number): ClientMetric => ({ group: COORDINATOR, name, description, tags, value });
    const k = (name: string, description: string, value: number): ClientMetric => ({ group: CONSUMER, name, description, tags, value });
    const perPartition: ClientMetric[] = [];
    for (const a of assigned) {
      if (!a.lag) continue;
      const ptags = { 'client-id': clientId, topic: a.topic, partition: String(a.partition) };
      const p = (name: string, description: string, value: number): ClientMetric => ({ group: FETCH, name, description, tags: ptags, value });
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
      c('heartbeat-rate', 'heartbeats answered per second', this.heartbeatTime.countRate(now)),
      c('heartbeat-response-time-max', 'longest wait for the answer to a heartbeat, in milliseconds', this.heartbeatTime.max(now)),
      c('heartbeat-total', 'heartbeats answered', this.heartbeatTime.count),
      c('join-rate', 'group joins per second (classic protocol)', this.joinTime.countRate(now)),
      c('join-time-avg', 'average milliseconds from a JoinGroup to its answer', this.joinTime.avg(now)),
      c('join-time-max', 'longest wait for a JoinGroup answer, in milliseconds', this.joinTime.max(now)),
      c('join-total', 'group joins (classic protocol)', this.joinTime.count),
      c('last-heartbeat-seconds-ago', 'seconds since the last heartbeat went out (-1: none yet)', this.lastHeartbeatAt < 0 ? -1 : (now - this.lastHeartbeatAt) / 1000),
      c('last-rebalance-seconds-ago', 'seconds since the last rebalance completed (-1: none yet)', this.lastRebalanceAt === null ? -1 : (now - this.lastRebalanceAt) / 1000),
      c('rebalance-latency-avg', 'average milliseconds from joining (or a new assignment) to having the assignment', this.rebalanceLatency.avg(now)),
      c('rebalance-latency-max', 'longest rebalance, in milliseconds', this.rebalanceLatency.max(now)),
      c('rebalance-latency-total', 'milliseconds spent in rebalances, summed', this.rebalanceLatency.total),
      c('rebalance-rate-per-hour', 'rebalances completed per hour', this.rebalanceLatency.countRate(now) * 3600),
      c('rebalance-total', 'rebalances completed, the first join included', this.rebalanceLatency.count),
      c('sync-rate', 'group syncs per second (classic protocol)', this.syncTime.countRate(now)),
      c('sync-time-avg', 'average milliseconds from a SyncGroup to its answer', this.syncTime.avg(now)),
      c('sync-time-max', 'longest wait for a SyncGroup answer, in milliseconds', this.syncTime.max(now)),
      c('sync-total', 'group syncs (classic protocol)', this.syncTime.count),
      k('last-poll-seconds-ago', 'seconds since the application last polled (-1: never yet)', this.lastPollAt < 0 ? -1 : (now - this.lastPollAt) / 1000),
      k('poll-idle-ratio-avg', 'average share of the time the application spent waiting in poll rather than processing', this.pollIdle.avg(now)),
      k('time-between-poll-avg', 'average milliseconds between polls', this.timeBetweenPolls.avg(now)),
      k('time-between-poll-max', 'longest time between polls, in milliseconds', this.timeBetweenPolls.max(now)),
    ];
  }
}
