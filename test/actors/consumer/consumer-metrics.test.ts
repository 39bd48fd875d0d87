/**
 * actors/consumer/consumer-metrics.ts: what a fetch, records taken, an offset commit, a join, a
 * sync, a heartbeat and a poll count for in Kafka's consumer-fetch-manager-metrics,
 * consumer-coordinator-metrics and consumer-metrics, and the samples running out of time.
 */
import { expect } from 'chai';
import { ConsumerMetrics, type AssignedLag } from '../../../actors/consumer/consumer-metrics.js';

const T = 1_700_000_000_000;

describe('actors/consumer: metrics', () => {
  const four = [0, 1, 2, 3].map((partition) => ({ topic: 't', partition, lag: null }));
  /** The consumer-wide metrics by name. */
  const byName = (m: ConsumerMetrics, now: number, assigned: readonly AssignedLag[] = four) => {
    const list = m.snapshot(now, 'c-1', assigned).filter((x) => !('partition' in x.tags));
    for (const x of list) {
      expect(x.tags).to.deep.equal({ 'client-id': 'c-1' });
      expect(x.group).to.be.oneOf(['consumer-fetch-manager-metrics', 'consumer-coordinator-metrics', 'consumer-metrics']);
    }
    return Object.fromEntries(list.map((x) => [x.name, x.value]));
  };

  it('nothing yet: totals 0, averages and maxima NaN, the partitions assigned', () => {
    const v = byName(new ConsumerMetrics({ windowMs: 1_000, samples: 2 }, T), T + 5);
    expect([v['fetch-total'], v['records-consumed-total'], v['bytes-consumed-total'], v['commit-total'], v['fetch-rate']]).to.deep.equal([0, 0, 0, 0, 0]);
    for (const k of ['fetch-latency-avg', 'fetch-size-max', 'records-per-request-avg', 'records-lag-max', 'commit-latency-avg']) expect(v[k], k).to.be.NaN;
    expect(v['assigned-partitions']).to.equal(4);
  });

  it('fetches, records taken and commits: averages, maxima, totals, rates over at least one window', () => {
    const m = new ConsumerMetrics({ windowMs: 1_000, samples: 2 }, T);
    m.fetched(10, 5_000, 40, T + 100);
    m.fetched(30, 1_000, 10, T + 200);
    const p0 = m.partitionLag(T);
    m.consumed(40, 5_000, 12, p0, T + 210);
    m.consumed(10, 0, 0, p0, T + 220); // records of a batch not all taken: no bytes yet
    m.committed(4, T + 300);
    const v = byName(m, T + 500);
    expect([v['fetch-latency-avg'], v['fetch-latency-max'], v['fetch-total']]).to.deep.equal([20, 30, 2]);
    expect([v['fetch-size-avg'], v['fetch-size-max'], v['records-per-request-avg']]).to.deep.equal([3_000, 5_000, 25]);
    expect([v['records-consumed-total'], v['bytes-consumed-total'], v['records-lag-max']]).to.deep.equal([50, 5_000, 12]);
    expect([v['commit-total'], v['commit-latency-avg'], v['commit-latency-max']]).to.deep.equal([1, 4, 4]);
    // 0.5 s into the first of two windows: over 1.5 s
    expect(v['records-consumed-rate']).to.be.closeTo(50 / 1.5, 1e-9);
    expect(v['bytes-consumed-rate']).to.be.closeTo(5_000 / 1.5, 1e-9);
    expect(v['fetch-rate']).to.be.closeTo(2 / 1.5, 1e-9);
    expect(v['commit-rate']).to.be.closeTo(1 / 1.5, 1e-9);
    // both windows over: the samples are gone, the totals stay
    const later = byName(m, T + 5_000);
    expect(later['fetch-latency-avg']).to.be.NaN;
    expect(later['records-lag-max']).to.be.NaN;
    expect(later['records-consumed-rate']).to.equal(0);
    expect([later['fetch-total'], later['records-consumed-total']]).to.deep.equal([2, 50]);
  });

  it('rebalances: from the first join (or reconciliation) to the assignment; a join while one is under way goes on with it', () => {
    const m = new ConsumerMetrics({ windowMs: 60_000, samples: 2 }, T);
    expect(byName(m, T)['last-rebalance-seconds-ago']).to.equal(-1);
    m.rebalanceCompleted(T + 1); // none under way: nothing
    m.rebalanceStarted(T + 10);
    m.rebalanceStarted(T + 50); // a join again (the coordinator asked for it): the same rebalance
    m.rebalanceCompleted(T + 110);
    m.rebalanceStarted(T + 2_000);
    m.rebalanceCompleted(T + 2_040);
    const v = byName(m, T + 4_040);
    expect([v['rebalance-total'], v['rebalance-latency-avg'], v['rebalance-latency-max'], v['rebalance-latency-total']]).to.deep.equal([2, 70, 100, 140]);
    expect(v['last-rebalance-seconds-ago']).to.equal(2);
    // two in the first window of two: per hour over one window and 4.04 s
    expect(v['rebalance-rate-per-hour']).to.be.closeTo((2 * 3600 * 1000) / 64_040, 1e-9);
  });

  it("per partition: records-lag (the latest), -avg and -max, tagged with topic and partition, for the assigned partitions the application took records of", () => {
    const m = new ConsumerMetrics({ windowMs: 1_000, samples: 2 }, T);
    const a = { topic: 'orders', partition: 3, lag: m.partitionLag(T) };
    const b = { topic: 'orders', partition: 4, lag: null };
    m.consumed(5, 500, 30, a.lag, T + 10);
    m.consumed(5, 500, 10, a.lag, T + 20);
    const list = m.snapshot(T + 30, 'c-1', [a, b]);
    const of = (name: string) => list.find((x) => x.name === name && x.tags.partition === '3');
    expect(of('records-lag')).to.deep.include({ group: 'consumer-fetch-manager-metrics', value: 10, tags: { 'client-id': 'c-1', topic: 'orders', partition: '3' } });
    expect([of('records-lag-avg')!.value, of('records-lag-max')!.value]).to.deep.equal([20, 30]);
    // nothing for a partition nothing was taken of yet, nor for one no longer assigned
    expect(list.filter((x) => x.tags.partition === '4')).to.deep.equal([]);
    expect(m.snapshot(T + 30, 'c-1', [b]).filter((x) => 'partition' in x.tags)).to.deep.equal([]);
    expect(byName(m, T + 30, [a, b])['assigned-partitions']).to.equal(2);
  });

  it('joins, syncs and heartbeats: time to the answer (a failed join or sync does not count), rates, totals, the last heartbeat', () => {
    const m = new ConsumerMetrics({ windowMs: 60_000, samples: 2 }, T);
    let v = byName(m, T);
    expect([v['join-total'], v['sync-total'], v['heartbeat-total'], v['last-heartbeat-seconds-ago']]).to.deep.equal([0, 0, 0, -1]);
    m.joinSent(T);
    m.joinAnswered(false, T + 5); // MEMBER_ID_REQUIRED: joins again
    m.joinSent(T + 5);
    m.joinAnswered(true, T + 25);
    m.syncSent(T + 25);
    m.syncAnswered(true, T + 32);
    m.heartbeatSent(T + 1_000);
    m.heartbeatAnswered(T + 1_004);
    m.heartbeatSent(T + 2_000);
    m.heartbeatAnswered(T + 2_010);
    v = byName(m, T + 3_000);
    expect([v['join-total'], v['join-time-avg'], v['join-time-max']]).to.deep.equal([1, 20, 20]);
    expect([v['sync-total'], v['sync-time-avg'], v['sync-time-max']]).to.deep.equal([1, 7, 7]);
    expect([v['heartbeat-total'], v['heartbeat-response-time-max'], v['last-heartbeat-seconds-ago']]).to.deep.equal([2, 10, 1]);
    expect(v['heartbeat-rate']).to.be.closeTo(2 / 63, 1e-9);
  });

  it("polls, as Kafka's consumer-metrics count them: time between polls, the share of it spent waiting in poll, the last poll", () => {
    const m = new ConsumerMetrics({ windowMs: 60_000, samples: 2 }, T);
    expect(byName(m, T)['last-poll-seconds-ago']).to.equal(-1);
    m.pollStarted(T); // the first: nothing before it
    m.pollEnded(T + 100); // waited 100 ms for records
    m.pollStarted(T + 400); // processed for 300 ms
    m.pollEnded(T + 500);
    const v = byName(m, T + 2_500);
    expect([v['time-between-poll-avg'], v['time-between-poll-max']]).to.deep.equal([200, 400]);
    // Kafka's ratio: time in this poll over it and the time since the poll before: 100/100, then 100/500
    expect(v['poll-idle-ratio-avg']).to.be.closeTo((1 + 0.2) / 2, 1e-9);
    expect(v['last-poll-seconds-ago']).to.equal(2.1);
  });
});
