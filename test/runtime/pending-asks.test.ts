/**
 * The ask table's timeouts: one clock timer for all asks, each ask still timing out at its own
 * deadline (asks of different timeout lengths interleaved), replies cancelling nothing but their
 * entry, and no timer left once nothing is pending.
 */
import { expect } from 'chai';
import { FakeClock } from '../../src/runtime/clock.js';
import { PendingAsks } from '../../src/runtime/pending-asks.js';
import type { Failure, Message } from '../../src/runtime/types.js';

async function settled(p: Promise<Message>): Promise<Message | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);
}

describe('runtime/pending-asks', () => {
  it('times each ask out at its own deadline with one timer, whatever the mix of timeouts', async () => {
    const clock = new FakeClock();
    const asks = new PendingAsks(clock);
    const a = asks.open('n1', () => 'a', 100);
    clock.advance(10);
    const b = asks.open('n1', () => 'b', 30); // due at 40, before a
    const c = asks.open('n2', () => 'c', 100); // due at 110
    expect(clock.pending()).to.equal(1);
    clock.advance(29);
    expect(await settled(b.promise)).to.equal('pending');
    clock.advance(1); // t = 40
    const fb = (await settled(b.promise)) as Failure;
    expect(fb.reason).to.equal('timeout');
    expect(fb.message).to.match(/no reply to b within 30 ms/);
    clock.advance(59);
    expect(await settled(a.promise)).to.equal('pending');
    clock.advance(1); // t = 100
    expect(((await settled(a.promise)) as Failure).reason).to.equal('timeout');
    expect(await settled(c.promise)).to.equal('pending');
    expect(asks.settle(c.id, { type: 'Pong' })).to.equal(true);
    expect(await settled(c.promise)).to.deep.equal({ type: 'Pong' });
    expect(asks.size).to.equal(0);
    expect(clock.pending()).to.equal(0);
  });

  it('a reply settles once; late replies and timeouts after it change nothing', async () => {
    const clock = new FakeClock();
    const asks = new PendingAsks(clock);
    const a = asks.open('n1', () => 'a', 50);
    const b = asks.open('n1', () => 'b', 50);
    expect(asks.settle(a.id, { type: 'One' })).to.equal(true);
    expect(asks.settle(a.id, { type: 'Two' })).to.equal(false);
    clock.advance(50);
    expect(await a.promise).to.deep.equal({ type: 'One' });
    expect(((await b.promise) as Failure).reason).to.equal('timeout');
    expect(asks.settle(b.id, { type: 'Late' })).to.equal(false);
    expect(clock.pending()).to.equal(0);
  });

  it("takes a client's reply only to an ask sent to that client", async () => {
    const clock = new FakeClock();
    const asks = new PendingAsks(clock);
    const a = asks.open('n1', () => 'a', 50);
    const b = asks.open('app', () => 'b', 50);
    // a client that learnt (or guessed) the id of an ask to another node cannot answer it
    expect(asks.settle(a.id, { type: 'Forged' }, 'app')).to.equal(false);
    expect(await settled(a.promise)).to.equal('pending');
    expect(asks.settle(b.id, { type: 'Mine' }, 'app')).to.equal(true);
    expect(await b.promise).to.deep.equal({ type: 'Mine' });
    expect(asks.settle(a.id, { type: 'Real' })).to.equal(true);
    expect(await a.promise).to.deep.equal({ type: 'Real' });
  });

  it('fails the asks of a node that went away, and all of them on stop', async () => {
    const clock = new FakeClock();
    const asks = new PendingAsks(clock);
    const a = asks.open('n1', () => 'a', 1000);
    const b = asks.open('n2', () => 'b', 1000);
    expect(asks.failNode('n1', 'endpoint-closed', 'gone')).to.equal(1);
    expect(((await a.promise) as Failure).reason).to.equal('endpoint-closed');
    asks.failAll('system-stopping', 'bye');
    expect(((await b.promise) as Failure).reason).to.equal('system-stopping');
    expect(clock.pending()).to.equal(0);
  });

  it('settles only ids it handed out: an id of another table, a mangled one or a bare sequence number is unknown', async () => {
    const clock = new FakeClock();
    const mine = new PendingAsks(clock);
    const other = new PendingAsks(clock);
    const a = mine.open('n1', () => 'a', 100);
    const b = other.open('n1', () => 'b', 100);
    const reply: Message = { type: 'Pong' };
    expect(mine.settle(b.id, reply)).to.equal(false);
    const seq = a.id.slice(8);
    expect(mine.settle(`${a.id.slice(0, 8)}0${seq}`, reply)).to.equal(false); // same number, other spelling
    expect(mine.settle(seq, reply)).to.equal(false);
    expect(mine.settle(`${a.id}x`, reply)).to.equal(false);
    expect(await settled(a.promise)).to.equal('pending');
    expect(mine.settle(a.id, reply)).to.equal(true);
    expect(await a.promise).to.deep.equal(reply);
    expect(mine.size).to.equal(0);
    expect(other.size).to.equal(1);
  });

  it('keeps timing out in order across many timeout lengths (idle queues are dropped, not the asks)', async () => {
    const clock = new FakeClock();
    const asks = new PendingAsks(clock);
    const opened = Array.from({ length: 50 }, (_, i) => ({ ms: 1000 + i * 10, ask: asks.open('n1', () => `ask ${i}`, 1000 + i * 10) }));
    // settle the odd ones, leaving their queues empty, then open more under new lengths
    for (let i = 1; i < 50; i += 2) asks.settle(opened[i]!.ask.id, { type: 'Pong' });
    const later = Array.from({ length: 40 }, (_, i) => asks.open('n1', () => `later ${i}`, 5000 + i));
    expect(asks.size).to.equal(25 + 40);
    clock.advance(1000 + 49 * 10);
    for (let i = 0; i < 50; i += 2) expect(((await opened[i]!.ask.promise) as Failure).reason).to.equal('timeout');
    expect(asks.size).to.equal(40);
    clock.advance(5000);
    for (const l of later) expect(((await l.promise) as Failure).reason).to.equal('timeout');
    expect(asks.size).to.equal(0);
    expect(clock.pending()).to.equal(0);
  });
});
