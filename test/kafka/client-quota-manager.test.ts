/**
 * The broker's client quota enforcement (a fake clock): nothing recorded without a quota, a client
 * over its quota gets Kafka's throttle time, a default quota holds each client to it on its own,
 * a changed quota applies at once.
 */
import { expect } from 'chai';
import { ClientQuotaManager } from '../../src/kafka/client-quota-manager.js';

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
