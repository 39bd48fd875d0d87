/**
 * Controller mutation quotas (src/security/controller-mutation-quota.ts, KIP-599) on a fake
 * clock: the token bucket's burst (rate x 11 s), its refill, the strict quota refusing once below
 * zero (the topic that goes below still done), the permissive one doing everything, the throttle
 * time to get back to zero, entities apart, and no quota at all.
 */
import { expect } from 'chai';
import { ControllerMutationQuotas, QUOTA_WINDOW_SECONDS } from '../../src/security/controller-mutation-quota.js';
import { FakeClock } from '../../src/runtime/clock.js';

describe('security/controller-mutation-quota', () => {
  it('strict: takes up to the burst (and the topic that overshoots it), then refuses until refilled', () => {
    const clock = new FakeClock();
    const q = new ControllerMutationQuotas(clock);
    const req = { entity: 'user=alice', rate: 2, strict: true };
    expect(QUOTA_WINDOW_SECONDS * 2).to.equal(22);
    const s = q.begin(req);
    expect(s.record(20)).to.equal(true);
    expect(s.throttleTimeMs()).to.equal(0);
    // 2 tokens left: a topic of 5 partitions is still done, leaving -3
    expect(s.record(5)).to.equal(true);
    expect(s.throttleTimeMs()).to.equal(1_500);
    expect(s.record(1)).to.equal(false);
    // the next request of the same entity shares the bucket
    const next = q.begin(req);
    expect(next.record(1)).to.equal(false);
    clock.advance(1_000);
    expect(next.throttleTimeMs()).to.equal(500);
    clock.advance(500);
    expect(next.throttleTimeMs()).to.equal(0);
    expect(next.record(1)).to.equal(true);
    // refilled up to the burst, never beyond
    clock.advance(3_600_000 - 1);
    const later = q.begin(req);
    expect(later.record(22)).to.equal(true);
    expect(later.record(1)).to.equal(true);
    expect(later.record(1)).to.equal(false);
  });

  it('permissive (old versions): does every topic, and says how long to hold back', () => {
    const clock = new FakeClock();
    const q = new ControllerMutationQuotas(clock);
    const s = q.begin({ entity: 'client=app', rate: 1, strict: false });
    expect(s.record(10)).to.equal(true);
    expect(s.record(10)).to.equal(true);
    expect(s.record(10)).to.equal(true);
    // 11 tokens, 30 taken: 19 s to get back to zero
    expect(s.throttleTimeMs()).to.equal(19_000);
  });

  it('keeps each entity apart, and takes a changed rate for the next request', () => {
    const clock = new FakeClock();
    const q = new ControllerMutationQuotas(clock);
    expect(q.begin({ entity: 'a', rate: 1, strict: true }).record(12)).to.equal(true);
    expect(q.begin({ entity: 'a', rate: 1, strict: true }).record(1)).to.equal(false);
    expect(q.begin({ entity: 'b', rate: 1, strict: true }).record(1)).to.equal(true);
    expect(q.size).to.equal(2);
    // a higher rate refills faster: -1 token at 10 a second is 100 ms
    expect(q.begin({ entity: 'a', rate: 10, strict: true }).throttleTimeMs()).to.equal(100);
  });

  it('without a quota nothing is counted or refused', () => {
    const q = new ControllerMutationQuotas(new FakeClock());
    const s = q.begin(undefined);
    for (let i = 0; i < 100; i++) expect(s.record(1_000)).to.equal(true);
    expect(s.throttleTimeMs()).to.equal(0);
    expect(q.size).to.equal(0);
  });
});
