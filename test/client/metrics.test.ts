/**
 * src/client/metrics.ts: Kafka's sampled stats. Values go into the current sample until its
 * window is over; averages, maxima and rates read the samples still current; a rate covers at
 * least samples - 1 whole windows; totals never reset.
 */
import { expect } from 'chai';
import { DEFAULT_SAMPLES, SampledStat, metricsOf, secondsSince } from '../../src/client/metrics.js';

const T = 1_000_000;

describe('client/metrics: SampledStat', () => {
  it("Kafka's defaults: two samples of 30 s", () => {
    expect(DEFAULT_SAMPLES).to.deep.equal({ windowMs: 30_000, samples: 2 });
  });

  it('empty: averages and maxima NaN, rates and totals 0', () => {
    const s = new SampledStat({ windowMs: 1_000, samples: 2 }, T);
    expect(s.avg(T + 10)).to.be.NaN;
    expect(s.max(T + 10)).to.be.NaN;
    expect(s.rate(T + 10)).to.equal(0);
    expect(s.countRate(T + 10)).to.equal(0);
    expect([s.total, s.count]).to.deep.equal([0, 0]);
  });

  it('avg and max of the values in the current samples; total and count of all', () => {
    const s = new SampledStat({ windowMs: 1_000, samples: 2 }, T);
    s.record(10, T);
    s.record(30, T + 500);
    s.record(20, T + 1_200); // the second sample
    expect(s.avg(T + 1_300)).to.equal(20);
    expect(s.max(T + 1_300)).to.equal(30);
    // the first sample is forgotten 2 windows after it began
    expect(s.avg(T + 2_000)).to.equal(20);
    expect(s.max(T + 2_000)).to.equal(20);
    // a third window reuses the first sample, afresh
    s.record(5, T + 2_300);
    expect(s.avg(T + 2_400)).to.equal(12.5);
    expect(s.max(T + 2_400)).to.equal(20);
    expect([s.total, s.count]).to.deep.equal([65, 4]);
    // nothing for longer than both windows: nothing current
    expect(s.avg(T + 10_000)).to.be.NaN;
    expect(s.max(T + 10_000)).to.be.NaN;
    expect(s.total).to.equal(65);
  });

  it('rate: the current samples summed per second of the time they cover, at least samples - 1 windows', () => {
    const s = new SampledStat({ windowMs: 1_000, samples: 3 }, T);
    s.record(100, T + 100);
    // 0.5 s in: counted as 0.5 s + the 2 whole windows still to come
    expect(s.rate(T + 500)).to.be.closeTo(100 / 2.5, 1e-9);
    s.record(200, T + 1_500);
    // 2.5 s in: two whole windows have passed, nothing added
    expect(s.rate(T + 2_500)).to.be.closeTo(300 / 2.5, 1e-9);
    expect(s.countRate(T + 2_500)).to.be.closeTo(2 / 2.5, 1e-9);
    // one sample: the rate over one window
    const one = new SampledStat({ windowMs: 1_000, samples: 1 }, T);
    one.record(50, T);
    expect(one.rate(T + 250)).to.be.closeTo(200, 1e-9);
  });

  it('recordMany: a batch of values at once, with their largest', () => {
    const s = new SampledStat({ windowMs: 1_000, samples: 2 }, T);
    s.recordMany(300, 3, 150, T);
    s.recordMany(0, 0, 999, T); // nothing
    s.record(100, T);
    expect(s.avg(T)).to.equal(100);
    expect(s.max(T)).to.equal(150);
    expect([s.total, s.count]).to.deep.equal([400, 4]);
  });

  it('refuses a window under 1 ms or samples that are not a positive integer', () => {
    expect(() => new SampledStat({ windowMs: 0, samples: 2 }, T)).to.throw(RangeError);
    expect(() => new SampledStat({ windowMs: 1_000, samples: 0 }, T)).to.throw(RangeError);
    expect(() => new SampledStat({ windowMs: 1_000, samples: 1.5 }, T)).to.throw(RangeError);
  });

  it('metricsOf makes one group\'s metrics with its tags; secondsSince is -1 before anything happened', () => {
    const m = metricsOf('producer-metrics', { 'client-id': 'c' });
    expect(m('record-send-total', 'records sent', 7)).to.deep.equal({ group: 'producer-metrics', name: 'record-send-total', description: 'records sent', tags: { 'client-id': 'c' }, value: 7 });
    expect(secondsSince(null, T)).to.equal(-1);
    expect(secondsSince(T - 2_500, T)).to.equal(2.5);
  });
});
