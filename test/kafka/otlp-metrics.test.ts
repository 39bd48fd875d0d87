/**
 * Reading OTLP MetricsData (src/kafka/otlp-metrics.ts), what KIP-714's clients push: resource
 * attributes of every value type, gauges, sums (double and int64 points, temporality,
 * monotonicity), histograms (count and sum), fields it does not know skipped, and bytes that are
 * not protobuf refused.
 */
import { expect } from 'chai';
import { decodeOtlpMetrics, OtlpDecodeError } from '../../src/kafka/otlp-metrics.js';
import { lenField, otlpMetrics } from '../helpers/otlp.js';

describe('kafka/otlp-metrics', () => {
  it('reads the resource attributes and each metric with its points', () => {
    const bytes = otlpMetrics({ client_id: 'app-1', 'client_instance_id': 'abc', retries: 3, ratio: 0.5, ok: true }, [
      { name: 'org.apache.kafka.producer.record.send.rate', unit: '1/s', gauge: [{ attributes: { topic: 'orders' }, timeMs: 1_700_000_000_123, value: 12.5 }] },
      { name: 'org.apache.kafka.producer.record.send.total', sum: [{ value: 42n, timeMs: 5 }, { attributes: { topic: 'b' }, value: -7n }], monotonic: true, temporality: 1 },
      { name: 'org.apache.kafka.producer.request.latency', unit: 'ms', histogram: [{ attributes: { node_id: 1 }, count: 10, sum: 123.5 }] },
    ]);
    const d = decodeOtlpMetrics(bytes);
    expect(d.resource).to.deep.equal({ client_id: 'app-1', client_instance_id: 'abc', retries: 3, ratio: 0.5, ok: true });
    expect(d.metrics).to.deep.equal([
      { name: 'org.apache.kafka.producer.record.send.rate', unit: '1/s', kind: 'gauge', points: [{ attributes: { topic: 'orders' }, timeMs: 1_700_000_000_123, value: 12.5 }] },
      {
        name: 'org.apache.kafka.producer.record.send.total',
        unit: '',
        kind: 'sum',
        temporality: 'delta',
        monotonic: true,
        points: [
          { attributes: {}, timeMs: 5, value: 42 },
          { attributes: { topic: 'b' }, timeMs: 0, value: -7 },
        ],
      },
      { name: 'org.apache.kafka.producer.request.latency', unit: 'ms', kind: 'histogram', temporality: 'cumulative', points: [{ attributes: { node_id: 1 }, timeMs: 0, value: 123.5, count: 10 }] },
    ]);
  });

  it('skips fields it does not know, at every level', () => {
    const known = otlpMetrics({ a: 'b' }, [{ name: 'm', gauge: [{ value: 1 }] }]);
    // a schema_url (field 3) after the resource metrics, and an unknown fixed32 field 15 at the top
    const extra = new Uint8Array([...known, ...lenField(3, [...Buffer.from('https://opentelemetry.io/schemas/1.0')]), (15 << 3) | 5, 1, 2, 3, 4]);
    expect(decodeOtlpMetrics(extra)).to.deep.equal(decodeOtlpMetrics(known));
    expect(decodeOtlpMetrics(new Uint8Array(0))).to.deep.equal({ resource: {}, metrics: [] });
  });

  it('refuses bytes that are not protobuf, saying why', () => {
    const good = otlpMetrics({ a: 'b' }, [{ name: 'm', gauge: [{ value: 1 }] }]);
    for (const bad of [good.subarray(0, good.length - 3), new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), new Uint8Array([(1 << 3) | 3]), new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])]) {
      expect(() => decodeOtlpMetrics(bad)).to.throw(OtlpDecodeError);
    }
  });
});
