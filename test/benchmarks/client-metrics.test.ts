/**
 * benchmarks/lib/client-metrics.ts: --print-metrics prints the clients' metrics as Kafka's perf
 * tools do, `group:name:{tags} : value`, sorted, three decimals, NaN as NaN.
 */
import { expect } from 'chai';
import { formatMetrics, metricKey, metricValue } from '../../benchmarks/lib/client-metrics.js';

describe('benchmarks/client-metrics', () => {
  it("a metric's key: group, name and its tags in their order, as Kafka prints them", () => {
    expect(metricKey({ group: 'producer-metrics', name: 'batch-size-avg', tags: { 'client-id': 'perf' } })).to.equal('producer-metrics:batch-size-avg:{client-id=perf}');
    expect(metricKey({ group: 'consumer-fetch-manager-metrics', name: 'records-lag', tags: { 'client-id': 'c', topic: 'orders', partition: '3' } })).to.equal('consumer-fetch-manager-metrics:records-lag:{client-id=c, topic=orders, partition=3}');
    expect(metricKey({ group: 'g', name: 'n', tags: {} })).to.equal('g:n:{}');
  });

  it('values with three decimals, NaN as NaN', () => {
    expect(metricValue(15_555.9234)).to.equal('15555.923');
    expect(metricValue(0)).to.equal('0.000');
    expect(metricValue(Number.NaN)).to.equal('NaN');
  });

  it('a header, then the metrics sorted by key and aligned', () => {
    const tags = { 'client-id': 'perf' };
    const text = formatMetrics([
      { group: 'producer-metrics', name: 'record-send-total', description: 'd', tags, value: 10 },
      { group: 'producer-metrics', name: 'batch-size-avg', description: 'd', tags, value: Number.NaN },
      { group: 'producer-metrics', name: 'batch-size-avg', description: 'd', tags, value: 7 },
    ]);
    expect(text.split('\n')).to.deep.equal([
      'Metric Name                                           Value',
      'producer-metrics:batch-size-avg:{client-id=perf}    : NaN',
      'producer-metrics:batch-size-avg:{client-id=perf}    : 7.000',
      'producer-metrics:record-send-total:{client-id=perf} : 10.000',
    ]);
  });
});
