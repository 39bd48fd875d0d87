/**
 * The admin's metrics (Kafka's admin-client-metrics and admin-client-node-metrics): requests and
 * answers counted in all and per node (tagged node-id `node-<node>`, in node order), answer
 * latencies averaged and maximised per node over the current samples, NaN before any answer,
 * rates over the samples' time.
 */
import { expect } from 'chai';
import { AdminMetrics } from '../../../actors/admin/admin-metrics.js';
import type { ClientMetric } from '../../../src/client/metrics.js';

const T0 = 1_000_000;

describe('actors/admin: metrics', () => {
  const value = (ms: ClientMetric[], group: string, name: string, node?: string) =>
    ms.find((m) => m.group === group && m.name === name && (node === undefined || m.tags['node-id'] === `node-${node}`))?.value;

  it('counts requests and answers in all and per node, with each node latency', () => {
    const m = new AdminMetrics({ windowMs: 1_000, samples: 2 }, T0);
    expect(m.snapshot(T0, 'ops').map((x) => x.name)).to.deep.equal(['request-rate', 'request-total', 'response-rate', 'response-total']);
    m.requestSent('n2', T0);
    m.requestSent('n1', T0);
    m.requestSent('n1', T0 + 10);
    m.responseReceived('n1', 30, T0 + 30);
    m.responseReceived('n1', 10, T0 + 20);
    const s = m.snapshot(T0 + 500, 'ops');
    expect(value(s, 'admin-client-metrics', 'request-total')).to.equal(3);
    expect(value(s, 'admin-client-metrics', 'response-total')).to.equal(2);
    // 3 requests over at least one whole window (samples - 1), as Kafka's Rate counts
    expect(value(s, 'admin-client-metrics', 'request-rate')).to.be.closeTo(3 / 1.5, 1e-9);
    expect(value(s, 'admin-client-node-metrics', 'request-total', 'n1')).to.equal(2);
    expect(value(s, 'admin-client-node-metrics', 'request-latency-avg', 'n1')).to.equal(20);
    expect(value(s, 'admin-client-node-metrics', 'request-latency-max', 'n1')).to.equal(30);
    expect(value(s, 'admin-client-node-metrics', 'request-total', 'n2')).to.equal(1);
    expect(value(s, 'admin-client-node-metrics', 'response-total', 'n2')).to.equal(0);
    expect(value(s, 'admin-client-node-metrics', 'request-latency-avg', 'n2')).to.be.NaN;
    expect(s.filter((x) => x.name === 'request-total').map((x) => x.tags)).to.deep.equal([
      { 'client-id': 'ops', 'node-id': 'node-n1' },
      { 'client-id': 'ops', 'node-id': 'node-n2' },
      { 'client-id': 'ops' },
    ]);
    // the samples run out; the totals stay
    const later = m.snapshot(T0 + 10_000, 'ops');
    expect(value(later, 'admin-client-node-metrics', 'request-latency-max', 'n1')).to.be.NaN;
    expect(value(later, 'admin-client-metrics', 'request-rate')).to.equal(0);
    expect(value(later, 'admin-client-metrics', 'response-total')).to.equal(2);
  });
});
