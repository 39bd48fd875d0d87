/**
 * Routing a transaction's markers to the leaders of its partitions (deleted topics skipped,
 * leaderless partitions and metadata without brokers left for the next round), what each answer
 * to WriteTxnMarkers means, and the backoff between rounds.
 */
import { expect } from 'chai';
import { markerBackoffMs, markerOutcome, routeMarkers } from '../../../actors/txn-coordinator/markers.js';
import { NO_LEADER } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { clusterView } from './harness.js';

const tp = (topic: string, partition: number) => ({ topic, partition });

describe('actors/txn-coordinator markers', () => {
  it('groups partitions by leader; a deleted topic or partition is gone; a partition without a leader waits', () => {
    const md = clusterView({ a: [1, 2, 1], b: [2] });
    md.topics[0]!.partitions[2]!.leader = NO_LEADER;
    const r = routeMarkers(md, [tp('a', 0), tp('a', 1), tp('a', 2), tp('b', 0), tp('c', 0), tp('b', 5)]);
    expect(r.routes).to.deep.equal([
      { leader: 1, node: 'b1', partitions: [tp('a', 0)] },
      { leader: 2, node: 'b1', partitions: [tp('a', 1), tp('b', 0)] },
    ]);
    expect(r.gone).to.deep.equal([tp('c', 0), tp('b', 5)]);
    expect(r.waiting).to.deep.equal([tp('a', 2)]);
  });

  it('a fenced leader waits; metadata without brokers is not trusted to say a topic is gone', () => {
    const md = clusterView({ a: [1, 2] });
    md.brokers[1]!.fenced = true;
    expect(routeMarkers(md, [tp('a', 1)]).waiting).to.deep.equal([tp('a', 1)]);
    const empty = { ...clusterView({}), brokers: [] };
    expect(routeMarkers(empty, [tp('a', 0)])).to.deep.equal({ routes: [], gone: [], waiting: [tp('a', 0)] });
  });

  it('answers: NONE done; stale producer or coordinator epoch fenced; the rest retried', () => {
    expect(markerOutcome(ErrorCode.NONE)).to.equal('done');
    expect(markerOutcome(ErrorCode.INVALID_PRODUCER_EPOCH)).to.equal('fenced');
    expect(markerOutcome(ErrorCode.TRANSACTION_COORDINATOR_FENCED)).to.equal('fenced');
    for (const code of [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]) {
      expect(markerOutcome(code)).to.equal('retry');
    }
  });

  it('backs off doubling, capped', () => {
    expect([1, 2, 3, 4, 5, 50].map((a) => markerBackoffMs(a, 100, 1_000))).to.deep.equal([100, 200, 400, 800, 1_000, 1_000]);
  });
});
