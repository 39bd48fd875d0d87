/**
 * Writing OTLP MetricsData (src/kafka/otlp-encode.ts), what samsa's clients push (KIP-714): read
 * back by the reader the brokers' telemetry sink uses (decodeOtlpMetrics), and byte for byte
 * for a small message, against protobuf's encoding written out by hand.
 */
import { expect } from 'chai';
import { encodeOtlpMetrics } from '../../src/kafka/otlp-encode.js';
import { decodeOtlpMetrics } from '../../src/kafka/otlp-metrics.js';

const T = 1_700_000_000_123;

describe('kafka/otlp-encode: OTLP MetricsData writer', () => {
  it('round trip: resource attributes, gauges and sums (delta and cumulative) with point attributes, times and values', () => {
    const bytes = encodeOtlpMetrics({
      resource: { group_id: 'mailer', transactional_id: 'tx-1', retries: 3, negative: -7, ratio: 0.25, on: true, nothing: null },
      scope: { name: 'samsa', version: '0.1.0' },
      metrics: [
        { name: 'org.apache.kafka.producer.record.queue.time.avg', description: 'average ms queued', kind: 'gauge', points: [{ timeMs: T, value: 1.5 }] },
        {
          name: 'org.apache.kafka.producer.topic.record.send.total',
          kind: 'sum',
          temporality: 'delta',
          monotonic: true,
          points: [
            { attributes: { topic: 'a' }, startTimeMs: T - 1_000, timeMs: T, value: 40 },
            { attributes: { topic: 'b' }, startTimeMs: T - 1_000, timeMs: T, value: 2 },
          ],
        },
        { name: 'org.apache.kafka.consumer.fetch.manager.records.consumed.total', unit: '{records}', kind: 'sum', temporality: 'cumulative', monotonic: false, points: [{ timeMs: T, value: 9, asInt: true }] },
        { name: 'org.apache.kafka.consumer.fetch.manager.records.lag', kind: 'gauge', points: [{ attributes: { topic: 't', partition: '3' }, timeMs: T, value: -1, asInt: true }] },
      ],
    });
    const d = decodeOtlpMetrics(bytes);
    expect(d.resource).to.deep.equal({ group_id: 'mailer', transactional_id: 'tx-1', retries: 3, negative: -7, ratio: 0.25, on: true, nothing: null });
    expect(d.metrics).to.deep.equal([
      { name: 'org.apache.kafka.producer.record.queue.time.avg', unit: '', kind: 'gauge', points: [{ attributes: {}, timeMs: T, value: 1.5 }] },
      {
        name: 'org.apache.kafka.producer.topic.record.send.total',
        unit: '',
        kind: 'sum',
        temporality: 'delta',
        monotonic: true,
        points: [
          { attributes: { topic: 'a' }, timeMs: T, value: 40 },
          { attributes: { topic: 'b' }, timeMs: T, value: 2 },
        ],
      },
      { name: 'org.apache.kafka.consumer.fetch.manager.records.consumed.total', unit: '{records}', kind: 'sum', temporality: 'cumulative', monotonic: false, points: [{ attributes: {}, timeMs: T, value: 9 }] },
      { name: 'org.apache.kafka.consumer.fetch.manager.records.lag', unit: '', kind: 'gauge', points: [{ attributes: { topic: 't', partition: '3' }, timeMs: T, value: -1 }] },
    ]);
  });

  it('nothing to push: one empty resource and scope, read back as no metrics', () => {
    const bytes = encodeOtlpMetrics({ resource: {}, metrics: [] });
    expect([...bytes]).to.deep.equal([0x0a, 0x06, 0x0a, 0x00, 0x12, 0x02, 0x0a, 0x00]);
    expect(decodeOtlpMetrics(bytes)).to.deep.equal({ resource: {}, metrics: [] });
  });

  it("protobuf's bytes, field by field, for one gauge point with an attribute", () => {
    const bytes = encodeOtlpMetrics({ resource: { k: 'v' }, metrics: [{ name: 'm', kind: 'gauge', points: [{ attributes: { a: 'b' }, timeMs: 1, value: 2 }] }] });
    // KeyValue { key 1: "k", value 2: AnyValue { string 1: "v" } }
    const kv = (k: string, v: string) => [0x0a, 0x01, k.charCodeAt(0), 0x12, 0x03, 0x0a, 0x01, v.charCodeAt(0)];
    // NumberDataPoint { time_unix_nano 3: fixed64 1e6, as_double 4: 2.0, attributes 7 }
    const point = [0x19, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, 0x21, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x3a, 0x08, ...kv('a', 'b')];
    const metric = [0x0a, 0x01, 0x6d, 0x2a, point.length + 2, 0x0a, point.length, ...point];
    const scope = [0x0a, 0x00, 0x12, metric.length, ...metric];
    const resource = [0x0a, 0x08, ...kv('k', 'v')];
    const rm = [0x0a, resource.length, ...resource, 0x12, scope.length, ...scope];
    expect([...bytes]).to.deep.equal([0x0a, rm.length, ...rm]);
  });

  it('an int64 point must be a safe integer', () => {
    expect(() => encodeOtlpMetrics({ resource: {}, metrics: [{ name: 'm', kind: 'gauge', points: [{ timeMs: 0, value: 1.5, asInt: true }] }] })).to.throw(RangeError);
  });
});
