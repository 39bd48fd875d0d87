/**
 * The producer's metrics, named and meant as Kafka's producer-metrics group: what its batches
 * and requests were like (sizes, records, compression, time queued, latency), how many records
 * went out, were retried or failed, and how its buffer memory stands; and per topic, Kafka's
 * producer-topic-metrics (records and bytes sent, compression, retries, errors). Counted per batch and per
 * request, never per record (a record's size is summed into its batch as it is admitted). Kept
 * in samples (src/client/metrics.ts): averages, maxima and rates cover the last
 * metrics.num.samples x metrics.sample.window.ms; totals cover the producer's life.
 */
import { SampledStat, metricsOf, type ClientMetric, type SampleConfig } from '../../src/client/metrics.js';

/** The producer's state the gauges read when the metrics are asked for. */
export interface ProducerGauges {
  bufferTotalBytes: number;
  bufferAvailableBytes: number;
  waitingSends: number;
  requestsInFlight: number;
  metadataAgeMs: number;
}

const GROUP = 'producer-metrics';
const TOPIC_GROUP = 'producer-topic-metrics';

/** One topic's share of what the producer sent (Kafka's producer-topic-metrics). */
export class TopicMetrics {
  readonly records: SampledStat;
  readonly bytes: SampledStat;
  readonly compression: SampledStat;
  readonly retries: SampledStat;
  readonly errors: SampledStat;

  constructor(
    readonly topic: string,
    config: SampleConfig,
    now: number,
  ) {
    this.records = new SampledStat(config, now);
    this.bytes = new SampledStat(config, now);
    this.compression = new SampledStat(config, now);
    this.retries = new SampledStat(config, now);
    this.errors = new SampledStat(config, now);
  }
}

export class ProducerMetrics {
  private readonly batchSize: SampledStat;
  private readonly compression: SampledStat;
  private readonly queueTime: SampledStat;
  private readonly recordsSent: SampledStat;
  private readonly recordSize: SampledStat;
  private readonly recordsPerRequest: SampledStat;
  private readonly requestSize: SampledStat;
  private readonly latency: SampledStat;
  private readonly retries: SampledStat;
  private readonly errors: SampledStat;
  /** Time Sends waited for buffer.memory, in ms, summed. */
  private bufferWaitMs = 0;
  /** By topic, from its first batch sent (or failed). */
  private readonly topics = new Map<string, TopicMetrics>();

  constructor(
    private readonly config: SampleConfig,
    now: number,
  ) {
    const stat = () => new SampledStat(config, now);
    this.batchSize = stat();
    this.compression = stat();
    this.queueTime = stat();
    this.recordsSent = stat();
    this.recordSize = stat();
    this.recordsPerRequest = stat();
    this.requestSize = stat();
    this.latency = stat();
    this.retries = stat();
    this.errors = stat();
  }

  /** A topic's metrics (kept where a partition queue can hold them, so a batch costs no lookup). */
  topic(name: string, now: number): TopicMetrics {
    let t = this.topics.get(name);
    if (!t) this.topics.set(name, (t = new TopicMetrics(name, this.config, now)));
    return t;
  }

  /**
   * A batch of `topic` went out (in a request): its bytes as sent, that over its bytes before
   * compression, its records, their sizes summed and the largest, and when its first record came.
   */
  batchSent(topic: TopicMetrics, sizeInBytes: number, compressionRatio: number, records: number, recordBytes: number, maxRecordBytes: number, createdAt: number, now: number): void {
    this.batchSize.record(sizeInBytes, now);
    this.compression.record(compressionRatio, now);
    this.queueTime.record(now - createdAt, now);
    this.recordSize.recordMany(recordBytes, records, maxRecordBytes, now);
    topic.records.record(records, now);
    topic.bytes.record(sizeInBytes, now);
    topic.compression.record(compressionRatio, now);
  }

  /** A Produce request went out with `bytes` of batches holding `records` records (after their batchSent). */
  requestSent(bytes: number, records: number, now: number): void {
    this.recordsSent.record(records, now);
    this.recordsPerRequest.record(records, now);
    this.requestSize.record(bytes, now);
  }

  /** A Produce request was answered (or failed) `latencyMs` after it went out. */
  responseReceived(latencyMs: number, now: number): void {
    this.latency.record(latencyMs, now);
  }

  /** A batch of `records` records of `topic` goes out again. */
  retried(topic: TopicMetrics, records: number, now: number): void {
    this.retries.record(records, now);
    topic.retries.record(records, now);
  }

  /** A batch of `records` records of `topic` failed for good. */
  failed(topic: TopicMetrics, records: number, now: number): void {
    this.errors.record(records, now);
    topic.errors.record(records, now);
  }

  /** A Send waited `ms` for buffer.memory before it was admitted. */
  bufferWaited(ms: number): void {
    this.bufferWaitMs += ms;
  }

  /** Every metric now, tagged with the producer's client.id (and a topic's with the topic). */
  snapshot(now: number, clientId: string, g: ProducerGauges): ClientMetric[] {
    const tags = { 'client-id': clientId };
    const m = metricsOf(GROUP, tags);
    const perTopic: ClientMetric[] = [];
    for (const t of this.topics.values()) {
      const ttags = { 'client-id': clientId, topic: t.topic };
      const p = metricsOf(TOPIC_GROUP, ttags);
      perTopic.push(
        p('byte-rate', "bytes of the topic's batches sent per second", t.bytes.rate(now)),
        p('byte-total', "bytes of the topic's batches sent", t.bytes.total),
        p('compression-rate', "average size of the topic's batches over their size before compression", t.compression.avg(now)),
        p('record-error-rate', "the topic's records per second whose sends failed for good", t.errors.rate(now)),
        p('record-error-total', "the topic's records whose sends failed for good", t.errors.total),
        p('record-retry-rate', "the topic's records sent again per second", t.retries.rate(now)),
        p('record-retry-total', "the topic's records sent again", t.retries.total),
        p('record-send-rate', "the topic's records sent per second", t.records.rate(now)),
        p('record-send-total', "the topic's records sent", t.records.total),
      );
    }
    return [
      ...perTopic,
      m('batch-size-avg', 'average bytes of a batch sent (one partition of a request)', this.batchSize.avg(now)),
      m('batch-size-max', 'largest batch sent, in bytes', this.batchSize.max(now)),
      m('buffer-available-bytes', 'bytes of buffer.memory not held by records waiting or in flight', g.bufferAvailableBytes),
      m('buffer-total-bytes', 'buffer.memory: the bytes records may hold before send() waits', g.bufferTotalBytes),
      m('bufferpool-wait-time-ns-total', 'nanoseconds sends waited for buffer.memory, summed', this.bufferWaitMs * 1e6),
      m('compression-rate-avg', 'average size of a batch sent over its size before compression', this.compression.avg(now)),
      m('metadata-age', 'seconds since the cluster metadata was last refreshed', g.metadataAgeMs / 1000),
      m('outgoing-byte-rate', 'bytes of batches sent per second', this.requestSize.rate(now)),
      m('outgoing-byte-total', 'bytes of batches sent', this.requestSize.total),
      m('record-error-rate', 'records per second whose sends failed for good', this.errors.rate(now)),
      m('record-error-total', 'records whose sends failed for good', this.errors.total),
      m('record-queue-time-avg', 'average milliseconds a batch waited between its first record and being sent', this.queueTime.avg(now)),
      m('record-queue-time-max', 'longest wait of a batch before it was sent, in milliseconds', this.queueTime.max(now)),
      m('record-retry-rate', 'records sent again per second', this.retries.rate(now)),
      m('record-retry-total', 'records sent again', this.retries.total),
      m('record-send-rate', 'records sent per second', this.recordsSent.rate(now)),
      m('record-send-total', 'records sent', this.recordsSent.total),
      m('record-size-avg', 'average record size in bytes (key, value, headers and framing)', this.recordSize.avg(now)),
      m('record-size-max', 'largest record in bytes', this.recordSize.max(now)),
      m('records-per-request-avg', 'average records in a produce request', this.recordsPerRequest.avg(now)),
      m('request-latency-avg', 'average milliseconds from a produce request to its answer', this.latency.avg(now)),
      m('request-latency-max', 'longest wait for the answer to a produce request, in milliseconds', this.latency.max(now)),
      m('request-rate', 'produce requests sent per second', this.requestSize.countRate(now)),
      m('request-size-avg', 'average bytes of batches in a produce request', this.requestSize.avg(now)),
      m('request-size-max', 'most bytes of batches in one produce request', this.requestSize.max(now)),
      m('request-total', 'produce requests sent', this.requestSize.count),
      m('requests-in-flight', 'produce requests sent and not yet answered', g.requestsInFlight),
      m('response-rate', 'answers to produce requests received per second', this.latency.countRate(now)),
      m('response-total', 'answers to produce requests received', this.latency.count),
      m('waiting-threads', 'sends waiting for buffer.memory', g.waitingSends),
    ];
  }
}
