/**
 * src/client/telemetry-payload.ts: what a push carries: the selected metrics under their
 * telemetry names as OTLP (read back with decodeOtlpMetrics), delta sums from the last push (the
 * client's start the first time) or cumulative ones, gauges without a value left out, the
 * resource attributes; and the codec chosen from the broker's list.
 */
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { ClientMetric } from '../../src/client/metrics.js';
import { compressTelemetry, DeltaLedger, telemetryPayload } from '../../src/client/telemetry-payload.js';
import { selectorOf } from '../../src/client/telemetry-names.js';
import { decodeOtlpMetrics } from '../../src/kafka/otlp-metrics.js';
import { registerCodec } from '../../src/protocol/compression.js';

const START = 1_700_000_000_000;
const m = (group: string, name: string, value: number, tags: Record<string, string> = {}): ClientMetric => ({ group, name, description: name, tags: { 'client-id': 'p-1', ...tags }, value });

function metricsAt(sent: number, sentA: number): ClientMetric[] {
  return [
    m('producer-metrics', 'record-send-total', sent),
    m('producer-metrics', 'record-queue-time-avg', 2.5),
    m('producer-metrics', 'request-latency-max', Number.NaN),
    m('producer-topic-metrics', 'record-send-total', sentA, { topic: 'a' }),
    m('producer-topic-metrics', 'record-send-total', sent - sentA, { topic: 'b' }),
  ];
}

describe('client/telemetry-payload', () => {
  it('delta temporality: each sum series grows by what it grew since the last push; gauges as they are; NaN left out', () => {
    const ledger = new DeltaLedger();
    const opts = { selector: selectorOf(['']), deltaTemporality: true, ledger, startMs: START, resource: { transactional_id: 'tx' } };
    const first = decodeOtlpMetrics(telemetryPayload(metricsAt(10, 7), { ...opts, nowMs: START + 1_000 }));
    expect(first.resource).to.deep.equal({ transactional_id: 'tx' });
    expect(first.metrics.map((x) => [x.name, x.kind, x.temporality ?? null, x.points.map((p) => [p.attributes, p.value, p.timeMs])])).to.deep.equal([
      ['org.apache.kafka.producer.record.send.total', 'sum', 'delta', [[{}, 10, START + 1_000]]],
      ['org.apache.kafka.producer.record.queue.time.avg', 'gauge', null, [[{}, 2.5, START + 1_000]]],
      [
        'org.apache.kafka.producer.topic.record.send.total',
        'sum',
        'delta',
        [
          [{ topic: 'a' }, 7, START + 1_000],
          [{ topic: 'b' }, 3, START + 1_000],
        ],
      ],
    ]);
    const second = decodeOtlpMetrics(telemetryPayload(metricsAt(25, 8), { ...opts, nowMs: START + 2_000 }));
    const sums = second.metrics.filter((x) => x.kind === 'sum').map((x) => x.points.map((p) => p.value));
    expect(sums).to.deep.equal([[15], [1, 14]]);
    expect(ledger.size).to.equal(3);
  });

  it('cumulative temporality: sums are the totals since the client started', () => {
    const ledger = new DeltaLedger();
    const opts = { selector: selectorOf(['*']), deltaTemporality: false, ledger, startMs: START, resource: {} };
    telemetryPayload(metricsAt(10, 7), { ...opts, nowMs: START + 1_000 });
    const d = decodeOtlpMetrics(telemetryPayload(metricsAt(25, 8), { ...opts, nowMs: START + 2_000 }));
    expect(d.metrics.filter((x) => x.kind === 'sum').map((x) => [x.temporality, x.points.map((p) => p.value)])).to.deep.equal([
      ['cumulative', [25]],
      ['cumulative', [8, 17]],
    ]);
    expect(ledger.size).to.equal(0);
  });

  it('only the metrics the subscription selects; the ledger forgets the series the client no longer has', () => {
    const ledger = new DeltaLedger();
    const opts = { selector: selectorOf(['org.apache.kafka.producer.topic.']), deltaTemporality: true, ledger, startMs: START, resource: {} };
    const d = decodeOtlpMetrics(telemetryPayload(metricsAt(10, 7), { ...opts, nowMs: START + 1_000 }));
    expect(d.metrics.map((x) => x.name)).to.deep.equal(['org.apache.kafka.producer.topic.record.send.total']);
    expect(ledger.size).to.equal(2);
    telemetryPayload(metricsAt(10, 7).slice(0, 4), { ...opts, nowMs: START + 2_000 });
    expect(ledger.size).to.equal(1);
  });

  it("compressed with the broker's first accepted codec this build has; none when it accepts none or its codec fails", () => {
    const payload = telemetryPayload(metricsAt(10, 7), { selector: selectorOf(['*']), deltaTemporality: true, ledger: new DeltaLedger(), nowMs: START, startMs: START, resource: {} });
    const gz = compressTelemetry(payload, [1, 4], new Set());
    expect(gz.compressionType).to.equal(1);
    expect(Buffer.from(gunzipSync(gz.metrics)).equals(Buffer.from(payload))).to.equal(true);
    expect(compressTelemetry(payload, [4, 3, 1, 2], new Set()).compressionType).to.equal(4);
    expect(compressTelemetry(payload, [], new Set())).to.deep.equal({ compressionType: 0, metrics: payload });
    expect(compressTelemetry(payload, [9, 0], new Set()).compressionType).to.equal(0);
    const unsupported = new Set<number>();
    const restore = registerCodec(2, 'snappy', {
      compress: () => {
        throw new Error('no snappy here');
      },
      decompress: (d) => d,
    });
    try {
      expect(compressTelemetry(payload, [2, 1], unsupported)).to.deep.equal({ compressionType: 0, metrics: payload });
      expect([...unsupported]).to.deep.equal([2]);
      expect(compressTelemetry(payload, [2, 1], unsupported).compressionType).to.equal(1);
    } finally {
      restore();
    }
  });
});
