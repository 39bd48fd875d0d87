/**
 * actors/share-consumer/share-consumer-metrics.ts: Kafka's share consumer metrics by group and
 * name; a ShareFetch's records and bytes counted once every partition it brought is used up (an
 * answer bringing nothing a fetch of 0); ShareFetch and ShareAcknowledge latencies in one
 * sensor; acknowledgements sent and failed; heartbeats, rebalances and polls; samples running
 * out of time while totals stay.
 */
import { expect } from 'chai';
import { ShareConsumerMetrics } from '../../../actors/share-consumer/share-consumer-metrics.js';

const T = 1_700_000_000_000;
const FETCH = 'consumer-share-fetch-manager-metrics';
const COORDINATOR = 'consumer-share-coordinator-metrics';
const CONSUMER = 'consumer-share-metrics';

/** The metrics by `group:name`, each checked to carry the client id alone. */
function byName(m: ShareConsumerMetrics, now: number): Record<string, number> {
  const list = m.snapshot(now, 'sc-1');
  for (const x of list) {
    expect(x.tags).to.deep.equal({ 'client-id': 'sc-1' });
    expect(x.description).to.be.a('string').and.not.equal('');
  }
  return Object.fromEntries(list.map((x) => [`${x.group}:${x.name}`, x.value]));
}

describe('actors/share-consumer/share-consumer-metrics', () => {
  it("Kafka's share consumer metrics, by group and name, and nothing else; nothing yet: totals 0, averages NaN, none-yet times -1", () => {
    const m = new ShareConsumerMetrics({ windowMs: 1_000, samples: 2 }, T);
    const list = m.snapshot(T + 5, 'sc-1');
    const names = (group: string) => list.filter((x) => x.group === group).map((x) => x.name).sort();
    expect(names(FETCH)).to.deep.equal([
      'acknowledgements-error-rate',
      'acknowledgements-error-total',
      'acknowledgements-send-rate',
      'acknowledgements-send-total',
      'bytes-consumed-rate',
      'bytes-consumed-total',
      'fetch-latency-avg',
      'fetch-latency-max',
      'fetch-rate',
      'fetch-size-avg',
      'fetch-size-max',
      'fetch-total',
      'records-consumed-rate',
      'records-consumed-total',
      'records-per-request-avg',
      'records-per-request-max',
    ]);
    expect(names(COORDINATOR)).to.deep.equal(['heartbeat-rate', 'heartbeat-response-time-max', 'heartbeat-total', 'last-heartbeat-seconds-ago', 'rebalance-rate-per-hour', 'rebalance-total']);
    expect(names(CONSUMER)).to.deep.equal(['last-poll-seconds-ago', 'poll-idle-ratio-avg', 'time-between-poll-avg', 'time-between-poll-max']);
    expect(list).to.have.length(26);
    const v = byName(m, T + 5);
    for (const k of ['fetch-total', 'records-consumed-total', 'bytes-consumed-total', 'acknowledgements-send-total', 'acknowledgements-error-total', 'fetch-rate', 'records-consumed-rate']) expect(v[`${FETCH}:${k}`], k).to.equal(0);
    for (const k of ['fetch-latency-avg', 'fetch-latency-max', 'fetch-size-avg', 'fetch-size-max', 'records-per-request-avg', 'records-per-request-max']) expect(v[`${FETCH}:${k}`], k).to.be.NaN;
    expect([v[`${COORDINATOR}:heartbeat-total`], v[`${COORDINATOR}:rebalance-total`], v[`${COORDINATOR}:last-heartbeat-seconds-ago`]]).to.deep.equal([0, 0, -1]);
    expect(v[`${COORDINATOR}:heartbeat-response-time-max`]).to.be.NaN;
    expect(v[`${CONSUMER}:last-poll-seconds-ago`]).to.equal(-1);
    expect(v[`${CONSUMER}:time-between-poll-avg`]).to.be.NaN;
  });

  it('a ShareFetch counts once each partition it brought is used up: records and bytes per fetch, totals, rates; an answer bringing nothing is a fetch of 0', () => {
    const m = new ShareConsumerMetrics({ windowMs: 1_000, samples: 2 }, T);
    const first = m.fetchTally(2, T + 10);
    first.partDone(30, 4_000, T + 20);
    // one partition of two used up: not counted yet
    let v = byName(m, T + 30);
    expect([v[`${FETCH}:records-consumed-total`], v[`${FETCH}:bytes-consumed-total`]]).to.deep.equal([0, 0]);
    expect(v[`${FETCH}:records-per-request-avg`]).to.be.NaN;
    first.partDone(10, 1_000, T + 40);
    // counted once: a partition reported again changes nothing
    first.partDone(99, 99, T + 50);
    m.fetchTally(0, T + 60);
    const second = m.fetchTally(1, T + 70);
    second.partDone(20, 3_000, T + 80);
    v = byName(m, T + 500);
    expect([v[`${FETCH}:records-consumed-total`], v[`${FETCH}:bytes-consumed-total`]]).to.deep.equal([60, 8_000]);
    // three fetches: 40 records of 5000 bytes, none, 20 of 3000
    expect([v[`${FETCH}:records-per-request-avg`], v[`${FETCH}:records-per-request-max`]]).to.deep.equal([20, 40]);
    expect(v[`${FETCH}:fetch-size-avg`]).to.be.closeTo(8_000 / 3, 1e-9);
    expect(v[`${FETCH}:fetch-size-max`]).to.equal(5_000);
    // 0.5 s into the first of two windows: over 1.5 s
    expect(v[`${FETCH}:records-consumed-rate`]).to.be.closeTo(60 / 1.5, 1e-9);
    expect(v[`${FETCH}:bytes-consumed-rate`]).to.be.closeTo(8_000 / 1.5, 1e-9);
    // both windows over: the samples are gone, the totals stay
    const later = byName(m, T + 5_000);
    expect(later[`${FETCH}:records-per-request-avg`]).to.be.NaN;
    expect(later[`${FETCH}:records-consumed-rate`]).to.equal(0);
    expect([later[`${FETCH}:records-consumed-total`], later[`${FETCH}:bytes-consumed-total`]]).to.deep.equal([60, 8_000]);
  });

  it('fetch latency, rate and total: ShareFetch and ShareAcknowledge answers in one sensor, as Kafka records them', () => {
    const m = new ShareConsumerMetrics({ windowMs: 1_000, samples: 2 }, T);
    m.requestAnswered(10, T + 100);
    m.requestAnswered(30, T + 200);
    m.requestAnswered(20, T + 300);
    const v = byName(m, T + 500);
    expect([v[`${FETCH}:fetch-latency-avg`], v[`${FETCH}:fetch-latency-max`], v[`${FETCH}:fetch-total`]]).to.deep.equal([20, 30, 3]);
    expect(v[`${FETCH}:fetch-rate`]).to.be.closeTo(3 / 1.5, 1e-9);
  });

  it('acknowledgements sent and failed: one per record, totals and rates', () => {
    const m = new ShareConsumerMetrics({ windowMs: 1_000, samples: 2 }, T);
    m.acknowledgementsSent(100, T + 100);
    m.acknowledgementsSent(0, T + 150); // a fetch with nothing riding it
    m.acknowledgementsSent(50, T + 200);
    m.acknowledgementsFailed(5, T + 300);
    const v = byName(m, T + 500);
    expect([v[`${FETCH}:acknowledgements-send-total`], v[`${FETCH}:acknowledgements-error-total`]]).to.deep.equal([150, 5]);
    expect(v[`${FETCH}:acknowledgements-send-rate`]).to.be.closeTo(150 / 1.5, 1e-9);
    expect(v[`${FETCH}:acknowledgements-error-rate`]).to.be.closeTo(5 / 1.5, 1e-9);
  });

  it('heartbeats (time to the answer, the last sent) and rebalances (from an assignment other than the member\'s to having it; one under way goes on)', () => {
    const m = new ShareConsumerMetrics({ windowMs: 60_000, samples: 2 }, T);
    m.heartbeatSent(T);
    m.heartbeatAnswered(8, T + 8);
    m.heartbeatSent(T + 1_000);
    m.heartbeatAnswered(3, T + 1_003);
    m.heartbeatSent(T + 2_000); // not answered yet
    m.rebalanceCompleted(T + 5); // none under way: nothing
    m.rebalanceStarted(T + 8);
    m.rebalanceStarted(T + 1_003); // another assignment before the member had the first: the same rebalance
    m.rebalanceCompleted(T + 1_010);
    const v = byName(m, T + 4_000);
    expect([v[`${COORDINATOR}:heartbeat-total`], v[`${COORDINATOR}:heartbeat-response-time-max`], v[`${COORDINATOR}:last-heartbeat-seconds-ago`]]).to.deep.equal([2, 8, 2]);
    expect(v[`${COORDINATOR}:heartbeat-rate`]).to.be.closeTo(2 / 64, 1e-9);
    expect(v[`${COORDINATOR}:rebalance-total`]).to.equal(1);
    expect(v[`${COORDINATOR}:rebalance-rate-per-hour`]).to.be.closeTo((3600 * 1000) / 64_000, 1e-9);
  });

  it("polls, as Kafka's consumer-share-metrics count them: time between polls, the share of it spent waiting in poll, the last poll", () => {
    const m = new ShareConsumerMetrics({ windowMs: 60_000, samples: 2 }, T);
    m.pollStarted(T);
    m.pollEnded(T + 100); // waited 100 ms for records
    m.pollStarted(T + 400); // processed for 300 ms
    m.pollEnded(T + 500);
    const v = byName(m, T + 1_500);
    expect([v[`${CONSUMER}:time-between-poll-avg`], v[`${CONSUMER}:time-between-poll-max`]]).to.deep.equal([200, 400]);
    expect(v[`${CONSUMER}:poll-idle-ratio-avg`]).to.be.closeTo((1 + 0.2) / 2, 1e-9);
    expect(v[`${CONSUMER}:last-poll-seconds-ago`]).to.equal(1.1);
  });
});
