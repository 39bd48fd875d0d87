/**
 * A byte-rate quota (a fake clock): measured over one-second samples, at least one second wide,
 * exceeded above the limit and recovering as samples age out, the throttle time Kafka gives a
 * client over it; the wait until it is within its limit again (what a throttled copy waits before
 * its next step); unlimited never throttles.
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

  describe('timeUntilWithinLimitMs: the wait before the next piece of throttled work', () => {
    it('is 0 within the limit, else the time the window must grow to hold what was recorded at the limit', () => {
      const clock = new Clock();
      const q = new RateQuota(1000, clock, 11);
      expect(q.timeUntilWithinLimitMs()).to.equal(0);
      q.record(1000);
      // 1000 B in the one-second floor: at the limit, not over it
      expect(q.timeUntilWithinLimitMs()).to.equal(0);
      q.record(1000);
      // 2000 B at 1000 B/s take 2 s: unlike the client throttle time (1 s), the wait ends within the limit
      expect(q.timeUntilWithinLimitMs()).to.equal(2000);
      clock.t += 2000;
      expect(q.isExceeded()).to.equal(false);
      expect(q.timeUntilWithinLimitMs()).to.equal(0);
      q.record(500);
      // 2500 B over the 2 s since the first sample: half a second more
      expect(q.timeUntilWithinLimitMs()).to.equal(500);
      clock.t += 499;
      expect(q.isExceeded()).to.equal(true);
      clock.t += 1;
      expect(q.isExceeded()).to.equal(false);
    });

    it('counts from the first sample kept, rounds up to whole milliseconds and waits at least one', () => {
      const clock = new Clock();
      const q = new RateQuota(3, clock, 11);
      q.record(10);
      // 10 B at 3 B/s: 3333.33 ms
      expect(q.timeUntilWithinLimitMs()).to.equal(3334);
      clock.t += 3333;
      expect(q.timeUntilWithinLimitMs()).to.equal(1);
      clock.t += 1;
      expect(q.timeUntilWithinLimitMs()).to.equal(0);
    });

    it('follows a new limit at once', () => {
      const clock = new Clock();
      const q = new RateQuota(100, clock, 11);
      q.record(1000);
      expect(q.timeUntilWithinLimitMs()).to.equal(10_000);
      q.setLimit(500);
      expect(q.timeUntilWithinLimitMs()).to.equal(2000);
      q.setLimit(UNLIMITED_RATE);
      expect(q.timeUntilWithinLimitMs()).to.equal(0);
    });

    it('never waits past the time every sample has aged out: a limit of 0 lets one piece through per window', () => {
      const clock = new Clock();
      const q = new RateQuota(0, clock, 3);
      expect(q.timeUntilWithinLimitMs()).to.equal(0);
      q.record(1);
      // its sample ages out 3 + 1 samples after it started
      expect(q.timeUntilWithinLimitMs()).to.equal(4000);
      clock.t += 500;
      q.record(1);
      expect(q.timeUntilWithinLimitMs()).to.equal(3500);
      clock.t += 1000;
      q.record(1);
      // a new sample, started 1.5 s after the first: the wait runs until it ages out too
      expect(q.timeUntilWithinLimitMs()).to.equal(4000);
      clock.t += 4000;
      expect(q.rate()).to.equal(0);
      expect(q.timeUntilWithinLimitMs()).to.equal(0);
      // a low limit with a burst: the samples age out before the window would have grown enough
      const low = new RateQuota(1, clock, 11);
      low.record(1_000_000);
      expect(low.timeUntilWithinLimitMs()).to.equal(12_000);
    });

    it('a wait that ends with the window capped over the limit is asked again, and ends within it', () => {
      const clock = new Clock();
      const q = new RateQuota(100, clock, 3);
      // a second's worth every second for three seconds, then a burst
      for (let i = 0; i < 3; i++) {
        q.record(100);
        clock.t += 1000;
      }
      q.record(1000);
      let waited = 0;
      for (let asked = 0; asked < 10 && q.isExceeded(); asked++) {
        const w = q.timeUntilWithinLimitMs();
        expect(w).to.be.greaterThan(0);
        clock.t += w;
        waited += w;
      }
      expect(q.isExceeded()).to.equal(false);
      expect(q.timeUntilWithinLimitMs()).to.equal(0);
      expect(waited).to.be.at.most(4000);
    });
  });
});
