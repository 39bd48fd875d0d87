/**
 * src/client/telemetry-names.ts: KIP-714's names for the producer's and the consumer's Kafka
 * metrics (Kafka's TelemetryMetricNamingConvention), their attributes, which are sums, and which
 * a subscription's requested metrics select.
 */
import { expect } from 'chai';
import { ConsumerMetrics } from '../../actors/consumer/consumer-metrics.js';
import { ProducerMetrics } from '../../actors/producer/producer-metrics.js';
import { selectorOf, selects, telemetryAttributes, telemetryGroup, telemetryKind, telemetryMetricName, toTelemetryMetric } from '../../src/client/telemetry-names.js';

const T = 1_700_000_000_000;

describe('client/telemetry-names', () => {
  it("Kafka's examples: org.apache.kafka, the group without 'metrics', the name, dots for dashes", () => {
    expect(telemetryMetricName('producer-metrics', 'record-queue-time-avg')).to.equal('org.apache.kafka.producer.record.queue.time.avg');
    expect(telemetryMetricName('consumer-fetch-manager-metrics', 'fetch-latency-avg')).to.equal('org.apache.kafka.consumer.fetch.manager.fetch.latency.avg');
    expect(telemetryMetricName('consumer-coordinator-metrics', 'rebalance-latency-max')).to.equal('org.apache.kafka.consumer.coordinator.rebalance.latency.max');
    expect(telemetryMetricName('producer-topic-metrics', 'record-send-total')).to.equal('org.apache.kafka.producer.topic.record.send.total');
    expect(telemetryMetricName('consumer-metrics', 'poll-idle-ratio-avg')).to.equal('org.apache.kafka.consumer.poll.idle.ratio.avg');
    expect(telemetryMetricName('Producer-Node-Metrics', 'Request-Latency-Avg')).to.equal('org.apache.kafka.producer.node.request.latency.avg');
    expect(telemetryGroup('producer-metrics')).to.equal('producer');
  });

  it('tags become snake_case attributes, without the client id (the broker adds it)', () => {
    expect(telemetryAttributes({ 'client-id': 'c', topic: 't', partition: '2', 'node-id': 'node-1' })).to.deep.equal({ topic: 't', partition: '2', node_id: 'node-1' });
  });

  it('cumulative counts and sums (-total) are sums, the rest gauges', () => {
    expect(['record-send-total', 'rebalance-latency-total', 'bufferpool-wait-time-ns-total'].map(telemetryKind)).to.deep.equal(['sum', 'sum', 'sum']);
    expect(['record-send-rate', 'record-queue-time-avg', 'request-latency-max', 'records-lag', 'assigned-partitions', 'last-poll-seconds-ago'].map(telemetryKind)).to.deep.equal(['gauge', 'gauge', 'gauge', 'gauge', 'gauge', 'gauge']);
  });

  it("every producer and consumer metric maps to a distinct name under org.apache.kafka.producer. or .consumer., with KIP-714's examples among them", () => {
    const producer = new ProducerMetrics({ windowMs: 1_000, samples: 2 }, T);
    producer.topic('orders', T);
    const p = producer.snapshot(T, 'p-1', { bufferTotalBytes: 1, bufferAvailableBytes: 1, waitingSends: 0, requestsInFlight: 0, metadataAgeMs: 0 }).map(toTelemetryMetric);
    const consumer = new ConsumerMetrics({ windowMs: 1_000, samples: 2 }, T);
    const c = consumer.snapshot(T, 'c-1', [{ topic: 'orders', partition: 0, lag: consumer.partitionLag(T) }]).map(toTelemetryMetric);
    for (const m of p) expect(m.name).to.match(/^org\.apache\.kafka\.producer\.[a-z.]+[a-z]$/);
    for (const m of c) expect(m.name).to.match(/^org\.apache\.kafka\.consumer\.[a-z.]+[a-z]$/);
    const names = (list: typeof p) => list.map((m) => `${m.name} ${JSON.stringify(m.attributes)}`);
    expect(new Set(names(p)).size).to.equal(p.length);
    expect(new Set(names(c)).size).to.equal(c.length);
    const pick = (list: typeof p, name: string) => list.filter((m) => m.name === name).map((m) => [m.kind, m.attributes]);
    expect(pick(p, 'org.apache.kafka.producer.record.queue.time.avg')).to.deep.equal([['gauge', {}]]);
    expect(pick(p, 'org.apache.kafka.producer.record.send.total')).to.deep.equal([['sum', {}]]);
    expect(pick(p, 'org.apache.kafka.producer.topic.record.send.total')).to.deep.equal([['sum', { topic: 'orders' }]]);
    expect(pick(c, 'org.apache.kafka.consumer.fetch.manager.fetch.latency.avg')).to.deep.equal([['gauge', {}]]);
    expect(pick(c, 'org.apache.kafka.consumer.coordinator.commit.latency.avg')).to.deep.equal([['gauge', {}]]);
    expect(pick(c, 'org.apache.kafka.consumer.coordinator.assigned.partitions')).to.deep.equal([['gauge', {}]]);
    expect(pick(c, 'org.apache.kafka.consumer.poll.idle.ratio.avg')).to.deep.equal([['gauge', {}]]);
    expect(pick(c, 'org.apache.kafka.consumer.fetch.manager.records.consumed.total')).to.deep.equal([['sum', {}]]);
    expect(pick(c, 'org.apache.kafka.consumer.fetch.manager.records.lag')).to.deep.equal([['gauge', { topic: 'orders', partition: '0' }]]);
  });

  it("a subscription's requested metrics: none, every one ('*' alone, or an empty prefix), or those with one of the prefixes", () => {
    const name = 'org.apache.kafka.producer.record.queue.time.avg';
    expect(selects(selectorOf([]), name)).to.equal(false);
    expect(selects(selectorOf(null), name)).to.equal(false);
    expect(selects(selectorOf(['*']), name)).to.equal(true);
    expect(selects(selectorOf(['']), name)).to.equal(true);
    expect(selects(selectorOf(['org.apache.kafka.consumer.', 'org.apache.kafka.producer.record.']), name)).to.equal(true);
    expect(selects(selectorOf(['org.apache.kafka.consumer.']), name)).to.equal(false);
    // '*' among others is a prefix like any other, as Kafka reads it
    expect(selects(selectorOf(['*', 'org.apache.kafka.consumer.']), name)).to.equal(false);
  });
});
