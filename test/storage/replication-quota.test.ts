/**
 * The replication throttle's byte rate (a fake clock): measured over one-second samples, at least
 * one second wide, exceeded above the limit and recovering as samples age out; unlimited never
 * throttles; and the throttled-replicas config values ('partition:broker' pairs or '*').
 */
import { expect } from 'chai';
import { ReplicationQuota, UNLIMITED_RATE, throttledPartitions, throttledReplicasProblem } from '../../src/storage/replication-quota.js';

class Clock {
  t = 10_000;
  now(): number {
    return this.t;
  }
}

describe('storage/replication-quota', () => {
  it('measures bytes per second over its samples, a first burst over one second', () => {
    const clock = new Clock();
    const q = new ReplicationQuota(1000, clock, 11);
    expect(q.rate()).to.equal(0);
    q.record(800);
    expect(q.rate()).to.equal(800);
    expect(q.isExceeded()).to.equal(false);
    q.record(400);
    expect(q.rate()).to.equal(1200);
    expect(q.isExceeded()).to.equal(true);
    clock.t += 2_000;
    // 1200 bytes over the 2 s since the first sample
    expect(q.rate()).to.equal(600);
    expect(q.isExceeded()).to.equal(false);
  });

  it('forgets samples older than its window; the limit can change', () => {
    const clock = new Clock();
    const q = new ReplicationQuota(100, clock, 3);
    q.record(10_000);
    expect(q.isExceeded()).to.equal(true);
    clock.t += 4_000;
    expect(q.rate()).to.equal(0);
    expect(q.isExceeded()).to.equal(false);
    q.record(500);
    expect(q.isExceeded()).to.equal(true);
    q.setLimit(10_000);
    expect(q.limit).to.equal(10_000);
    expect(q.isExceeded()).to.equal(false);
  });

  it('unlimited never throttles', () => {
    const q = new ReplicationQuota(UNLIMITED_RATE, new Clock());
    q.record(Number.MAX_SAFE_INTEGER / 2);
    expect(q.unlimited).to.equal(true);
    expect(q.isExceeded()).to.equal(false);
  });

  it("reads the throttled replicas of a broker: 'partition:broker' pairs, or '*'", () => {
    expect(throttledPartitions('0:1,1:2,2:1', 1)).to.deep.equal(new Set([0, 2]));
    expect(throttledPartitions(' 0 : 1 , 3:1', 1)).to.deep.equal(new Set([0, 3]));
    expect(throttledPartitions('0:2', 1)).to.equal(null);
    expect(throttledPartitions('*', 7)).to.equal('all');
    expect(throttledPartitions('', 1)).to.equal(null);
    expect(throttledPartitions(undefined, 1)).to.equal(null);
  });

  it('checks a throttled replicas value', () => {
    expect(throttledReplicasProblem('0:1,1:2')).to.equal(null);
    expect(throttledReplicasProblem('*')).to.equal(null);
    expect(throttledReplicasProblem('')).to.equal(null);
    expect(throttledReplicasProblem('0-1')).to.match(/not partition:broker/);
    expect(throttledReplicasProblem('0:1,*')).to.match(/not partition:broker/);
    expect(throttledReplicasProblem(5)).to.match(/expected/);
  });
});
