/**
 * The broker's client quota enforcement (a fake clock): nothing recorded without a quota, a client
 * over its quota gets Kafka's throttle time, a default quota holds each client to it on its own,
 * a changed quota applies at once.
 */
import { expect } from 'chai';
import { ClientQuotaManager, MAX_REQUEST_THROTTLE_MS } from '../../src/kafka/client-quota-manager.js';

class Clock {
  t = 50_000;
  now(): number {
    return this.t;
  }
}

describe('kafka/client-quota-manager', () => {
  it('without quotas nothing is throttled', () => {
    const m = new ClientQuotaManager(new Clock());
    expect(m.active).to.equal(false);
    expect(m.record('alice', 'app', 'producer_byte_rate', 1e9)).to.equal(0);
  });

  it('throttles a client over its quota by (rate - limit) / limit x the window', () => {
    const clock = new Clock();
    const m = new ClientQuotaManager(clock);
    m.update([{ entity: { user: 'alice' }, quotas: { producer_byte_rate: 1000 } }]);
    expect(m.record('alice', 'app', 'producer_byte_rate', 1000)).to.equal(0);
    expect(m.record('alice', 'app', 'producer_byte_rate', 2000)).to.equal(2000);
    // another key, another user: not limited
    expect(m.record('alice', 'app', 'consumer_byte_rate', 1e6)).to.equal(0);
    expect(m.record('bob', 'app', 'producer_byte_rate', 1e6)).to.equal(0);
    clock.t += 4_000;
    expect(m.record('alice', 'app', 'producer_byte_rate', 1)).to.equal(0);
  });

  it('a default quota holds each client id to it on its own', () => {
    const m = new ClientQuotaManager(new Clock());
    m.update([{ entity: { clientId: null }, quotas: { consumer_byte_rate: 1000 } }]);
    expect(m.record('u', 'a', 'consumer_byte_rate', 900)).to.equal(0);
    expect(m.record('u', 'b', 'consumer_byte_rate', 900)).to.equal(0);
    expect(m.record('u', 'a', 'consumer_byte_rate', 900)).to.be.greaterThan(0);
  });

  it('a changed quota applies to the next request', () => {
    const m = new ClientQuotaManager(new Clock());
    m.update([{ entity: { user: 'alice' }, quotas: { producer_byte_rate: 100 } }]);
    expect(m.record('alice', 'c', 'producer_byte_rate', 500)).to.be.greaterThan(0);
    m.update([{ entity: { user: 'alice' }, quotas: { producer_byte_rate: 10_000 } }]);
    expect(m.record('alice', 'c', 'producer_byte_rate', 500)).to.equal(0);
    m.update([]);
    expect(m.active).to.equal(false);
    expect(m.record('alice', 'c', 'producer_byte_rate', 1e9)).to.equal(0);
  });
});

describe('kafka/client-quota-manager: request_percentage (KIP-124)', () => {
  it('is measured only when some entity has a request_percentage quota', () => {
    const m = new ClientQuotaManager(new Clock());
    m.update([{ entity: { user: 'alice' }, quotas: { producer_byte_rate: 1000 } }]);
    expect(m.requestQuotasActive).to.equal(false);
    expect(m.recordRequestTime('alice', 'app', 10_000)).to.equal(0);
    m.update([{ entity: { user: 'alice' }, quotas: { request_percentage: 10 } }]);
    expect(m.requestQuotasActive).to.equal(true);
  });

  it('holds a client to its share of a thread: (rate - limit) / limit x the window, at most one window sample', () => {
    const clock = new Clock();
    const m = new ClientQuotaManager(clock);
    m.update([{ entity: { user: 'alice', clientId: 'app' }, quotas: { request_percentage: 10 } }]);
    // 10% of a thread over a one-second window is 100 ms of handler time
    expect(m.recordRequestTime('alice', 'app', 100)).to.equal(0);
    // 110 ms in one second: 11%, (11 - 10) / 10 x 1000 ms
    expect(m.recordRequestTime('alice', 'app', 10)).to.equal(100);
    // 300 ms: 30%, (30 - 10) / 10 x 1000 ms = 2000, bounded by the 1 s sample (quota.window.size.seconds)
    expect(m.recordRequestTime('alice', 'app', 190)).to.equal(MAX_REQUEST_THROTTLE_MS);
    expect(m.throttled).to.equal(2);
    expect(m.requestTimeThrottled).to.equal(2);
    // over a longer window the same time is a smaller share
    clock.t += 4_000;
    expect(m.recordRequestTime('alice', 'app', 1)).to.equal(0);
  });

  it('a client over its quota is held back; another client id, another user are not', () => {
    const m = new ClientQuotaManager(new Clock());
    m.update([{ entity: { user: 'alice', clientId: 'app' }, quotas: { request_percentage: 1 } }]);
    expect(m.recordRequestTime('alice', 'app', 50)).to.be.greaterThan(0);
    expect(m.recordRequestTime('alice', 'other', 50)).to.equal(0);
    expect(m.recordRequestTime('bob', 'app', 50)).to.equal(0);
  });

  it('time recorded without throttling counts toward the next request', () => {
    const m = new ClientQuotaManager(new Clock());
    m.update([{ entity: { clientId: null }, quotas: { request_percentage: 5 } }]);
    expect(m.recordRequestTime('u', 'c', 80, false)).to.equal(0);
    expect(m.throttled).to.equal(0);
    // 80 + 20 ms in a second: 10% of a thread against 5%
    expect(m.recordRequestTime('u', 'c', 20)).to.equal(1000);
    // the default client id quota holds each client id on its own
    expect(m.recordRequestTime('u', 'd', 20)).to.equal(0);
  });

  it("above 100%: more than one thread's worth", () => {
    const m = new ClientQuotaManager(new Clock());
    m.update([{ entity: { user: null }, quotas: { request_percentage: 200 } }]);
    expect(m.recordRequestTime('x', 'c', 1_500)).to.equal(0);
    expect(m.recordRequestTime('x', 'c', 600)).to.equal(50);
  });

  it("keeps exempt requests' time apart", () => {
    const m = new ClientQuotaManager(new Clock());
    m.recordExempt(1.5);
    m.recordExempt(2);
    expect(m.exemptRequestTimeMs).to.equal(3.5);
  });
});
