/**
 * A byte-rate quota (a fake clock): measured over one-second samples, at least one second wide,
 * exceeded above the limit and recovering as samples age out, the throttle time Kafka gives a
 * client over it; unlimited never throttles.
 */
import { expect } from 'chai';
import { RateQuota, UNLIMITED_RATE } from '../../src/runtime/rate-quota.js';

class Clock {
  t = 10_000;
  now(): number {
    return this.t;
  }
}

describe('runtime/rate-quota', () => {
  it('measures bytes per second over its samples, a first burst over one second', () => {
    const clock = new Clock();
    const q = new RateQuota(1000, clock, 11);
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

  it('starts its window at the first record, not on a wall-clock second', () => {
    const clock = new Clock();
    clock.t = 10_950;
    const q = new RateQuota(100, clock, 11);
    q.record(100);
    clock.t = 11_500;
    q.record(50);
    // 150 bytes in 550 ms, over the one-second floor: 150 B/s
    expect(q.rate()).to.equal(150);
    expect(q.isExceeded()).to.equal(true);
  });

  it('forgets samples older than its window; the limit can change', () => {
    const clock = new Clock();
    const q = new RateQuota(100, clock, 3);
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
    const q = new RateQuota(UNLIMITED_RATE, new Clock());
    q.record(Number.MAX_SAFE_INTEGER / 2);
    expect(q.unlimited).to.equal(true);
    expect(q.isExceeded()).to.equal(false);
  });

  it('holds a client over its quota back by (rate - limit) / limit x the measured window (Kafka), nothing within it', () => {
    const clock = new Clock();
    const q = new RateQuota(1000, clock, 11);
    q.record(1000);
    expect(q.throttleTimeMs()).to.equal(0);
    q.record(1000);
    // 2000 B over a 1 s window against 1000 B/s: one more second
    expect(q.throttleTimeMs()).to.equal(1000);
    clock.t += 3_000;
    // 2000 B over 3 s is within the quota
    expect(q.throttleTimeMs()).to.equal(0);
    expect(new RateQuota(UNLIMITED_RATE, clock).throttleTimeMs()).to.equal(0);
  });
});
