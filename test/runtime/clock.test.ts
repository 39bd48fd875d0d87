import { expect } from 'chai';
import { FakeClock, MAX_TIMER_STEP_MS, systemClock } from '../../src/runtime/clock.js';

describe('runtime/clock', () => {
  it('FakeClock fires timers in due order, ties in creation order', () => {
    const c = new FakeClock(1000);
    const fired: string[] = [];
    c.setTimeout(() => fired.push('b@20'), 20);
    c.setTimeout(() => fired.push('a@10'), 10);
    c.setTimeout(() => fired.push('c@10'), 10);
    c.advance(15);
    expect(fired).to.deep.equal(['a@10', 'c@10']);
    expect(c.now()).to.equal(1015);
    c.advance(5);
    expect(fired).to.deep.equal(['a@10', 'c@10', 'b@20']);
    expect(c.pending()).to.equal(0);
  });

  it('FakeClock runs the callback at its due time and honours timers set from callbacks', () => {
    const c = new FakeClock(0);
    const seen: number[] = [];
    c.setTimeout(() => {
      seen.push(c.now());
      c.setTimeout(() => seen.push(c.now()), 5);
    }, 10);
    c.advance(100);
    expect(seen).to.deep.equal([10, 15]);
  });

  it('FakeClock intervals repeat and stop when cleared', () => {
    const c = new FakeClock(0);
    let n = 0;
    const h = c.setInterval(() => n++, 10);
    c.advance(35);
    expect(n).to.equal(3);
    c.clearTimer(h);
    c.advance(100);
    expect(n).to.equal(3);
  });

  it('advanceAsync lets promise reactions run between timers', async () => {
    const c = new FakeClock(0);
    const seen: string[] = [];
    c.setTimeout(() => void Promise.resolve().then(() => seen.push('reaction')), 1);
    c.setTimeout(() => seen.push('second'), 2);
    await c.advanceAsync(2);
    expect(seen).to.deep.equal(['reaction', 'second']);
  });

  it('systemClock timers fire and clear', async () => {
    let fired = false;
    const h = systemClock.setTimeout(() => (fired = true), 1);
    const h2 = systemClock.setTimeout(() => {
      throw new Error('cleared timer fired');
    }, 1);
    systemClock.clearTimer(h2);
    await new Promise((r) => setTimeout(r, 10));
    expect(fired).to.equal(true);
    systemClock.clearTimer(h);
  });

  it('systemClock waits out delays beyond 2^31-1 ms (Node fires those after 1 ms) without a TimeoutOverflowWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    let fired = 0;
    const once = systemClock.setTimeout(() => fired++, MAX_TIMER_STEP_MS + 10_000);
    const every = systemClock.setInterval(() => fired++, 2 ** 32);
    try {
      await new Promise((r) => setTimeout(r, 30));
      expect(fired).to.equal(0);
      expect(warnings).to.not.include('TimeoutOverflowWarning');
    } finally {
      systemClock.clearTimer(once);
      systemClock.clearTimer(every);
      process.off('warning', onWarning);
    }
  });
});
