/**
 * What a Kafka listener lets in (src/kafka/connection-limits.ts) on a fake clock: max.connections,
 * max.connections.per.ip and its overrides (freed when a connection closes), the listener's
 * creation rate (further connections wait), an IP's connection_creation_rate quota (its own, else
 * the default IP's; further connections are refused after the throttle time), and the overrides'
 * syntax.
 */
import { expect } from 'chai';
import { ConnectionLimits, INT_MAX, parseIpOverrides, type ConnectionLimitConfig } from '../../src/kafka/connection-limits.js';
import { FakeClock } from '../../src/runtime/clock.js';
import type { ClientQuota } from '../../src/security/client-quotas.js';

const config = (over: Partial<ConnectionLimitConfig> = {}): ConnectionLimitConfig => ({
  maxConnections: INT_MAX,
  maxConnectionsPerIp: INT_MAX,
  maxConnectionsPerIpOverrides: new Map(),
  maxConnectionCreationRate: INT_MAX,
  ...over,
});

describe('kafka/connection-limits', () => {
  it('max.connections: refused once reached, admitted again when one closes', () => {
    const l = new ConnectionLimits(config({ maxConnections: 2 }), new FakeClock());
    expect(l.admit('10.0.0.1').kind).to.equal('accept');
    expect(l.admit('10.0.0.2').kind).to.equal('accept');
    const third = l.admit('10.0.0.3');
    expect(third).to.deep.include({ kind: 'refuse', ms: 0 });
    expect((third as { reason: string }).reason).to.match(/max.connections \(2\) reached/);
    l.closed('10.0.0.1');
    expect(l.admit('10.0.0.3').kind).to.equal('accept');
    expect([l.openConnections, l.refused]).to.deep.equal([2, 1]);
  });

  it('max.connections.per.ip, with overrides per address', () => {
    const l = new ConnectionLimits(config({ maxConnectionsPerIp: 1, maxConnectionsPerIpOverrides: new Map([['10.0.0.9', 3]]) }), new FakeClock());
    expect(l.admit('10.0.0.1').kind).to.equal('accept');
    expect((l.admit('10.0.0.1') as { reason: string }).reason).to.match(/1 connections from 10.0.0.1 already \(max.connections.per.ip: 1\)/);
    expect(l.admit('10.0.0.2').kind).to.equal('accept');
    for (let i = 0; i < 3; i++) expect(l.admit('10.0.0.9').kind).to.equal('accept');
    expect((l.admit('10.0.0.9') as { reason: string }).reason).to.match(/max.connections.per.ip.overrides: 3/);
    l.closed('10.0.0.1');
    expect(l.admit('10.0.0.1').kind).to.equal('accept');
  });

  it('max.connection.creation.rate: connections beyond the rate wait; the rate recovers with time', () => {
    const clock = new FakeClock();
    const l = new ConnectionLimits(config({ maxConnectionCreationRate: 5 }), clock);
    const kinds = Array.from({ length: 8 }, () => l.admit('10.0.0.1'));
    expect(kinds.slice(0, 5).every((a) => a.kind === 'accept')).to.equal(true);
    const waits = kinds.slice(5).map((a) => (a.kind === 'delay' ? a.ms : -1));
    expect(waits.every((ms) => ms > 0)).to.equal(true);
    expect(waits[2]!).to.be.greaterThan(waits[0]!); // the further over, the longer the wait
    expect(l.delayed).to.equal(3);
    clock.advance(15_000);
    expect(l.admit('10.0.0.1').kind).to.equal('accept');
  });

  it("an IP's connection_creation_rate quota (its own, else the default IP's): connections beyond it are refused after the throttle time", () => {
    const clock = new FakeClock();
    const l = new ConnectionLimits(config(), clock);
    const quotas: ClientQuota[] = [
      { entity: { ip: '10.0.0.1' }, quotas: { connection_creation_rate: 2 } },
      { entity: { ip: null }, quotas: { connection_creation_rate: 3 } },
      { entity: { user: 'alice' }, quotas: { producer_byte_rate: 1 } },
    ];
    l.setQuotas(quotas);
    const from = (ip: string, n: number) => Array.from({ length: n }, () => l.admit(ip));
    const one = from('10.0.0.1', 3);
    expect(one.slice(0, 2).map((a) => a.kind)).to.deep.equal(['accept', 'accept']);
    expect(one[2]).to.deep.include({ kind: 'refuse' });
    expect((one[2] as { ms: number; reason: string }).ms).to.be.greaterThan(0);
    expect((one[2] as { reason: string }).reason).to.match(/10.0.0.1 is over its connection_creation_rate quota \(2\/s\)/);
    const other = from('10.0.0.2', 4);
    expect(other.map((a) => a.kind)).to.deep.equal(['accept', 'accept', 'accept', 'refuse']);
    // the quota removed: no limit from then on
    l.setQuotas([]);
    expect(from('10.0.0.1', 5).every((a) => a.kind === 'accept')).to.equal(true);
  });

  it('takes new limits at run time (dynamic broker configs): the next connections are judged by them, open ones stay', () => {
    const clock = new FakeClock();
    const l = new ConnectionLimits(config({ maxConnections: 3 }), clock);
    for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) expect(l.admit(ip).kind).to.equal('accept');
    l.update(config({ maxConnections: 1, maxConnectionsPerIpOverrides: new Map([['10.0.0.9', 0]]) }));
    expect(l.openConnections).to.equal(3);
    expect((l.admit('10.0.0.4') as { reason: string }).reason).to.match(/max.connections \(1\) reached/);
    for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) l.closed(ip);
    expect((l.admit('10.0.0.9') as { reason: string }).reason).to.match(/max.connections.per.ip.overrides: 0/);
    expect(l.admit('10.0.0.4').kind).to.equal('accept');
    l.closed('10.0.0.4');
    // a creation rate set later: connections beyond it wait
    l.update(config({ maxConnectionCreationRate: 1 }));
    const kinds = Array.from({ length: 4 }, () => l.admit('10.0.0.5').kind);
    expect(kinds).to.include('delay');
  });

  it('parses max.connections.per.ip.overrides: ip:count pairs (IPv6 too), and says what is wrong', () => {
    expect([...(parseIpOverrides('10.0.0.1:5, ::1:2,[fe80::1]:0') as Map<string, number>)]).to.deep.equal([
      ['10.0.0.1', 5],
      ['::1', 2],
      ['fe80::1', 0],
    ]);
    expect(parseIpOverrides('')).to.deep.equal(new Map());
    expect(parseIpOverrides('broker.example:3')).to.match(/expected <ip address>:<count> \(host names are not resolved\)/);
    expect(parseIpOverrides('10.0.0.1:-1')).to.match(/whole number >= 0/);
    expect(parseIpOverrides('10.0.0.1')).to.match(/expected <ip address>:<count>/);
  });
});
