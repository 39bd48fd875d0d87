/**
 * The share consumer's metrics, named, grouped and meant as Kafka's KafkaShareConsumer keeps
 * them (Kafka 4.2), tagged with the consumer's client.id:
 *
 * consumer-share-fetch-manager-metrics (Kafka's ShareFetchMetricsRegistry):
 *   fetch-size-avg / -max, bytes-consumed-rate / -total: per ShareFetch, the bytes of the
 *     record batches the application took records of (each batch once, whole, as samsa's
 *     consumer counts its batches; Kafka sums the records' own sizes);
 *   records-per-request-avg / -max, records-consumed-rate / -total: per ShareFetch, the records
 *     the application took. As Kafka's ShareFetchMetricsAggregator, a ShareFetch counts once
 *     every partition its answer brought was used up (handed out, or dropped: lock run out,
 *     partition revoked, member leaving); records given back unseen do not count; an answer
 *     whose partitions brought nothing counts as a fetch of 0 records and 0 bytes;
 *   fetch-latency-avg / -max, fetch-rate, fetch-total: ShareFetch and ShareAcknowledge requests
 *     answered without a request-level error, from their sending to their answer (Kafka records
 *     both kinds in this one sensor);
 *   acknowledgements-send-rate / -total: record acknowledgements sent, riding a ShareFetch or in
 *     a ShareAcknowledge, one per offset (gaps and renewals included);
 *   acknowledgements-error-rate / -total: those the broker refused or never answered.
 * consumer-share-coordinator-metrics (Kafka's HeartbeatMetricsManager and
 * ShareRebalanceMetricsManager):
 *   heartbeat-rate / -total, heartbeat-response-time-max: ShareGroupHeartbeats answered, the
 *     leave (epoch -1) included; last-heartbeat-seconds-ago: since the last one went out;
 *   rebalance-total, rebalance-rate-per-hour: assignments taken up, from a heartbeat answer
 *     bringing an assignment other than the member's to the member having it (its topic ids
 *     known from the metadata), as Kafka's RECONCILING to STABLE.
 * consumer-share-metrics (Kafka's KafkaShareConsumerMetrics): last-poll-seconds-ago,
 *   time-between-poll-avg / -max, poll-idle-ratio-avg.
 *
 * Left out of Kafka's:
 *   fetch-throttle-time-avg / -max: samsa's brokers answer ShareFetch with no throttle time
 *     (share fetches are not under a quota), so there is nothing to measure;
 *   the node-<id>.latency sensor and the network client's consumer-share-metrics
 *     (connection-count, request-rate, io-ratio, incoming-byte-rate, ...) and
 *     consumer-share-node-metrics: the share consumer reaches brokers with actor messages
 *     through the node's transport, not over connections of its own;
 *   AsyncConsumerMetrics' consumer-share-metrics (time-between-network-thread-poll-*,
 *     application-event-queue-*, background-event-queue-*, unsent-requests-queue-*): they time
 *     the queues between Kafka's application thread and its background thread, which the share
 *     consumer actor does not have (it is one mailbox);
 *   app-info (version, commit-id, start-time-ms): samsa's clients keep none.
 *
 * Kept in samples (src/client/metrics.ts): averages, maxima and rates cover the last
 * metrics.num.samples x metrics.sample.window.ms; totals cover the consumer's life. Pure: the
 * caller passes the time.
 */
import { HeartbeatMetrics, RebalanceMetrics } from '../../src/client/group-member-metrics.js';
import { SampledStat, metricsOf, type ClientMetric, type SampleConfig } from '../../src/client/metrics.js';
import { PollMetrics } from '../../src/client/poll-metrics.js';

const FETCH = 'consumer-share-fetch-manager-metrics';
const COORDINATOR = 'consumer-share-coordinator-metrics';
const CONSUMER = 'consumer-share-metrics';

/**
 * One ShareFetch answer's records on their way to the application: counted once each of its
 * partitions (`parts`) is used up or dropped (Kafka's ShareFetchMetricsAggregator).
 */
export class FetchTally {
  private records = 0;
  private bytes = 0;

  constructor(
    private parts: number,
    private readonly metrics: ShareConsumerMetrics,
  ) {}

  /** A partition of the fetch is used up or dropped: `records` of it were handed out, from `bytes` of batches. */
  partDone(records: number, bytes: number, now: number): void {
    if (this.parts <= 0) return;
    this.records += records;
    this.bytes += bytes;
    if (--this.parts === 0) this.metrics.fetchedRecords(this.records, this.bytes, now);
  }
}

export class ShareConsumerMetrics {
  private readonly requestLatency: SampledStat;
  private readonly fetchSize: SampledStat;
  private readonly recordsPerFetch: SampledStat;
  private readonly acksSent: SampledStat;
  private readonly acksFailed: SampledStat;
  private readonly heartbeats: HeartbeatMetrics;
  private readonly rebalances: RebalanceMetrics;
  private readonly polls: PollMetrics;

  constructor(config: SampleConfig, now: number) {
    const stat = () => new SampledStat(config, now);
    this.requestLatency = stat();
    this.fetchSize = stat();
    this.recordsPerFetch = stat();
    this.acksSent = stat();
    this.acksFailed = stat();
    this.heartbeats = new HeartbeatMetrics(config, now);
    this.rebalances = new RebalanceMetrics(config, now);
    this.polls = new PollMetrics(config, now);
  }

  /** A ShareFetch or ShareAcknowledge was answered without a request-level error `latencyMs` after it went out. */
  requestAnswered(latencyMs: number, now: number): void {
    this.requestLatency.record(latencyMs, now);
  }

  /**
   * A ShareFetch answer naming some partitions, `parts` of which brought records: the tally its
   * partitions report to as they are used up (none: counted now, 0 records and 0 bytes).
   */
  fetchTally(parts: number, now: number): FetchTally {
    if (parts <= 0) this.fetchedRecords(0, 0, now);
    return new FetchTally(parts, this);
  }

  /** Every partition of a ShareFetch answer was used up: the application took `records` records, from `bytes` of batches. */
  fetchedRecords(records: number, bytes: number, now: number): void {
    this.recordsPerFetch.record(records, now);
    this.fetchSize.record(bytes, now);
  }

  /** `count` record acknowledgements went to a broker. */
  acknowledgementsSent(count: number, now: number): void {
    if (count > 0) this.acksSent.record(count, now);
  }

  /** `count` record acknowledgements were refused by the broker, or not answered. */
  acknowledgementsFailed(count: number, now: number): void {
    if (count > 0) this.acksFailed.record(count, now);
  }

  /** A ShareGroupHeartbeat went out. */
  heartbeatSent(now: number): void {
    this.heartbeats.sent(now);
  }

  /** A ShareGroupHeartbeat was answered (whatever the answer) `latencyMs` after it went out. */
  heartbeatAnswered(latencyMs: number, now: number): void {
    this.heartbeats.answered(latencyMs, now);
  }

  /** A heartbeat answer brought an assignment other than the member's (one under way goes on). */
  rebalanceStarted(now: number): void {
    this.rebalances.started(now);
  }

  /** The member has the assignment it was last sent. */
  rebalanceCompleted(now: number): void {
    this.rebalances.completed(now);
  }

  /** A Poll came (Kafka's recordPollStart). */
  pollStarted(now: number): void {
    this.polls.started(now);
  }

  /** The Poll was answered (Kafka's recordPollEnd). */
  pollEnded(now: number): void {
    this.polls.ended(now);
  }

  /** Every metric now, tagged with the consumer's client.id. */
  snapshot(now: number, clientId: string): ClientMetric[] {
    const tags = { 'client-id': clientId };
    const f = metricsOf(FETCH, tags);
    const c = metricsOf(COORDINATOR, tags);
    return [
      f('acknowledgements-error-rate', 'record acknowledgements the brokers refused (or never answered) per second', this.acksFailed.rate(now)),
      f('acknowledgements-error-total', 'record acknowledgements the brokers refused (or never answered)', this.acksFailed.total),
      f('acknowledgements-send-rate', 'record acknowledgements sent per second', this.acksSent.rate(now)),
      f('acknowledgements-send-total', 'record acknowledgements sent', this.acksSent.total),
      f('bytes-consumed-rate', 'bytes of batches the application took records of, per second', this.fetchSize.rate(now)),
      f('bytes-consumed-total', 'bytes of batches the application took records of', this.fetchSize.total),
      f('fetch-latency-avg', 'average milliseconds from a ShareFetch or ShareAcknowledge to its answer', this.requestLatency.avg(now)),
      f('fetch-latency-max', 'longest wait for the answer to a ShareFetch or ShareAcknowledge, in milliseconds', this.requestLatency.max(now)),
      f('fetch-rate', 'ShareFetch and ShareAcknowledge requests answered per second', this.requestLatency.countRate(now)),
      f('fetch-size-avg', 'average bytes of batches the application took records of, per ShareFetch', this.fetchSize.avg(now)),
      f('fetch-size-max', 'most bytes of batches the application took records of from one ShareFetch', this.fetchSize.max(now)),
      f('fetch-total', 'ShareFetch and ShareAcknowledge requests answered', this.requestLatency.count),
      f('records-consumed-rate', 'records the application took per second', this.recordsPerFetch.rate(now)),
      f('records-consumed-total', 'records the application took', this.recordsPerFetch.total),
      f('records-per-request-avg', 'average records the application took per ShareFetch', this.recordsPerFetch.avg(now)),
      f('records-per-request-max', 'most records the application took from one ShareFetch', this.recordsPerFetch.max(now)),
      ...this.heartbeats.metrics(c, now),
      ...this.rebalances.counts(c, now, ' (assignments taken up)'),
      ...this.polls.metrics(metricsOf(CONSUMER, tags), now),
    ];
  }
}
