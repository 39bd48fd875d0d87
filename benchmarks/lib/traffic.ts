/**
 * What crossed between the client's node and its peers during a run: posts to and from the
 * brokers' worker threads (or writes to and reads from a TCP socket), summed over the node's
 * endpoints (`Endpoint.traffic`). On a virtual machine a post that wakes a sleeping thread costs
 * the sender ~20 us, more than the work most messages carry, so the posts per record say as much
 * about a latency run's CPU as the CPU report does. In-process brokers have nothing to count.
 */
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import type { EndpointTraffic } from '../../src/runtime/endpoint.js';
import { formatNumber } from './timing.js';

export interface TrafficSnapshot {
  atMs: number;
  /** Summed over the endpoints that count (none in-process). */
  total: EndpointTraffic;
  /** Endpoints that count, and their kind (worker or tcp). */
  endpoints: number;
  kind: 'worker' | 'tcp' | null;
}

/** The client node's traffic so far, by its endpoints now open. */
export function snapshotTraffic(system: ActorSystem, atMs: number): TrafficSnapshot {
  const total: EndpointTraffic = { sends: 0, sentBytes: 0, receives: 0, receivedBytes: 0 };
  let endpoints = 0;
  let kind: TrafficSnapshot['kind'] = null;
  for (const peer of system.peers()) {
    const ep = system.endpointTo(peer);
    if (!ep?.traffic || ep.kind === 'inproc') continue;
    const t = ep.traffic();
    total.sends += t.sends;
    total.sentBytes += t.sentBytes;
    total.receives += t.receives;
    total.receivedBytes += t.receivedBytes;
    endpoints++;
    kind = ep.kind;
  }
  return { atMs, total, endpoints, kind };
}

export interface TrafficReport {
  kind: 'worker' | 'tcp';
  wallMs: number;
  /** The stretch's records (to give sends per 1,000 of them). */
  records: number;
  sends: number;
  sentBytes: number;
  receives: number;
  receivedBytes: number;
}

/**
 * The traffic between two snapshots, over `records` records; null when nothing counts
 * (in-process brokers) or an endpoint closed in between (its counts went with it).
 */
export function trafficBetween(a: TrafficSnapshot, b: TrafficSnapshot, records: number): TrafficReport | null {
  if (b.kind === null || b.endpoints !== a.endpoints) return null;
  const d = (k: keyof EndpointTraffic) => b.total[k] - a.total[k];
  if (d('sends') < 0 || d('receives') < 0) return null;
  return { kind: b.kind, wallMs: b.atMs - a.atMs, records, sends: d('sends'), sentBytes: d('sentBytes'), receives: d('receives'), receivedBytes: d('receivedBytes') };
}

function bytesEach(bytes: number, n: number): string {
  if (n === 0) return '';
  const each = bytes / n;
  return each >= 1024 * 1024 ? `, ${(each / 1024 / 1024).toFixed(1)} MiB each` : each >= 1024 ? `, ${(each / 1024).toFixed(1)} KiB each` : `, ${each.toFixed(0)} B each`;
}

/**
 * `posts to the brokers 1700/s (34 per 1,000 records, 3.5 KiB each), from them 948/s (19 per
 * 1,000 records, 6.2 KiB each)`; over TCP, socket writes and reads.
 */
export function formatTraffic(r: TrafficReport): string {
  const perSec = (n: number) => (r.wallMs > 0 ? `${formatNumber((n * 1000) / r.wallMs)}/s` : `${n}`);
  const per1k = (n: number) => (r.records > 0 ? `${((n * 1000) / r.records).toFixed(n * 1000 >= r.records * 10 ? 0 : 1)} per 1,000 records` : '');
  const [out, back] = r.kind === 'worker' ? ['posts to the brokers', 'from them'] : ['socket writes', 'reads'];
  return `${out} ${perSec(r.sends)} (${per1k(r.sends)}${bytesEach(r.sentBytes, r.sends)}), ${back} ${perSec(r.receives)} (${per1k(r.receives)}${bytesEach(r.receivedBytes, r.receives)})`;
}
