/**
 * A request's handler time for request_percentage (an injected clock): the time it works counts,
 * the time its asks to other actors take does not (overlapping asks once) but what those actors
 * charge to its account does, and taking the count starts it again.
 */
import { expect } from 'chai';
import { RequestTime } from '../../src/kafka/request-time.js';

function deferred(): { promise: Promise<string>; resolve: (v: string) => void; reject: (e: Error) => void } {
  let resolve!: (v: string) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('kafka/request-time', () => {
  it('counts the time worked, not the time waiting for an answer', async () => {
    let t = 100;
    const time = new RequestTime(() => t);
    t += 2; // decoding, the handler's first steps
    const ask = deferred();
    const answer = time.waitFor(ask.promise);
    expect(answer).to.equal(ask.promise);
    t += 500; // a long-poll fetch waits in the broker
    ask.resolve('ok');
    await answer;
    t += 3; // building the response
    expect(time.take()).to.equal(5);
    t += 0.25; // encoding it
    expect(time.take()).to.equal(0.25);
  });

  it('overlapping asks pause the count once, until the last is answered; a failed ask resumes it too', async () => {
    let t = 0;
    const time = new RequestTime(() => t);
    t += 1;
    const a = deferred();
    const b = deferred();
    void time.waitFor(a.promise);
    const bAnswer = time.waitFor(b.promise).catch(() => 'failed');
    t += 50;
    a.resolve('a');
    await a.promise;
    t += 50; // b still outstanding: waiting
    b.reject(new Error('timed out'));
    expect(await bAnswer).to.equal('failed');
    t += 4;
    expect(time.take()).to.equal(5);
  });

  it("adds what this broker's actors charged to its account while it waited, once", async () => {
    let t = 0;
    const time = new RequestTime(() => t);
    t += 1;
    const ask = deferred();
    const answer = time.waitFor(ask.promise);
    t += 40; // a replica appends (charged by the actor runtime), then the answer comes
    time.account.ms += 12.5;
    ask.resolve('ok');
    await answer;
    t += 2;
    expect(time.take()).to.equal(15.5);
    expect(time.account.ms).to.equal(0);
    time.account.ms += 0.5; // a fetch the append answered, charged after the first take
    expect(time.take()).to.equal(0.5);
  });

  it('a count taken while waiting is the work before the ask', () => {
    let t = 0;
    const time = new RequestTime(() => t);
    t += 7;
    void time.waitFor(new Promise<never>(() => {}));
    t += 100;
    expect(time.take()).to.equal(7);
    expect(time.take()).to.equal(0);
  });
});
