import { expect } from 'chai';
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import type { Endpoint, EndpointTraffic } from '../../src/runtime/endpoint.js';
import { formatTraffic, snapshotTraffic, trafficBetween } from '../../benchmarks/lib/traffic.js';
import { MeasuredStretch } from '../../benchmarks/lib/stretch.js';

/** A node whose endpoints report the given counts (an in-process one reports none). */
function node(endpoints: { peer: string; kind: Endpoint['kind']; t?: EndpointTraffic }[]): ActorSystem {
  const eps = new Map(endpoints.map((e) => [e.peer, { peer: e.peer, kind: e.kind, ...(e.t ? { traffic: () => ({ ...e.t! }) } : {}) }]));
  return { peers: () => [...eps.keys()], endpointTo: (p: string) => eps.get(p) } as unknown as ActorSystem;
}

const t = (sends: number, sentBytes: number, receives: number, receivedBytes: number): EndpointTraffic => ({ sends, sentBytes, receives, receivedBytes });

describe('benchmarks/lib/traffic', () => {
  it('sums the endpoints that count and skips in-process ones', () => {
    const s = snapshotTraffic(node([{ peer: 'b1', kind: 'worker', t: t(3, 300, 2, 2000) }, { peer: 'b2', kind: 'worker', t: t(1, 100, 4, 40) }, { peer: 'x', kind: 'inproc' }]), 5);
    expect(s).to.deep.equal({ atMs: 5, total: t(4, 400, 6, 2040), endpoints: 2, kind: 'worker' });
    expect(snapshotTraffic(node([{ peer: 'x', kind: 'inproc' }]), 0).kind).to.equal(null);
  });

  it('gives the difference over a stretch, or nothing when nothing counts or an endpoint came or went', () => {
    const a = { atMs: 1000, total: t(10, 1000, 5, 5000), endpoints: 3, kind: 'worker' as const };
    const b = { atMs: 3000, total: t(2010, 2_049_000, 1005, 6_005_000), endpoints: 3, kind: 'worker' as const };
    expect(trafficBetween(a, b, 100_000)).to.deep.equal({ kind: 'worker', wallMs: 2000, records: 100_000, sends: 2000, sentBytes: 2_048_000, receives: 1000, receivedBytes: 6_000_000 });
    expect(trafficBetween(a, { ...b, endpoints: 2 }, 100_000)).to.equal(null);
    expect(trafficBetween(a, { ...b, kind: null }, 100_000)).to.equal(null);
    expect(trafficBetween(b, a, 100_000)).to.equal(null);
  });

  it('prints posts per second, per 1,000 records and their size; socket writes and reads over TCP', () => {
    const r = { kind: 'worker' as const, wallMs: 2000, records: 100_000, sends: 2000, sentBytes: 2_048_000, receives: 1000, receivedBytes: 3 * 1024 * 1024 * 1000 };
    expect(formatTraffic(r)).to.equal('posts to the brokers 1000/s (20 per 1,000 records, 1.0 KiB each), from them 500/s (10 per 1,000 records, 3.0 MiB each)');
    expect(formatTraffic({ ...r, kind: 'tcp', sends: 30, sentBytes: 3000, receives: 0, receivedBytes: 0 })).to.equal('socket writes 15.0/s (0.3 per 1,000 records, 100 B each), reads 0.00/s (0.0 per 1,000 records)');
  });
});

describe('benchmarks/lib/stretch', () => {
  it('snapshots CPU and traffic together at each end, and reports nothing before both', () => {
    const counts = t(0, 0, 0, 0);
    const system = { peers: () => ['b1'], endpointTo: () => ({ peer: 'b1', kind: 'worker', traffic: () => ({ ...counts }) }) } as unknown as ActorSystem;
    const s = new MeasuredStretch(system);
    expect([s.started, s.ended, s.cpu(), s.traffic(10)]).to.deep.equal([false, false, null, null]);
    s.start(1000);
    counts.sends = 4;
    counts.sentBytes = 400;
    expect(s.started).to.equal(true);
    expect(s.traffic(10)).to.equal(null);
    s.end(3000);
    expect(s.ended).to.equal(true);
    expect(s.traffic(10)).to.deep.equal({ kind: 'worker', wallMs: 2000, records: 10, sends: 4, sentBytes: 400, receives: 0, receivedBytes: 0 });
    if (process.platform === 'linux') expect(s.cpu()).to.not.equal(null);
  });
});
