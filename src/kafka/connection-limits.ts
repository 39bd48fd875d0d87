/**
 * What a Kafka listener lets in, as Kafka's broker does (KIP-402, KIP-612): at most
 * `max.connections` open connections, at most `max.connections.per.ip` from one address (or what
 * `max.connections.per.ip.overrides` says for it), new connections at most
 * `max.connection.creation.rate` a second (further ones wait: Kafka's acceptor pauses), and from
 * one IP at most its `connection_creation_rate` quota a second (the IP's own, else the default
 * IP's; further ones are closed after the throttle time, as Kafka does). Rates are measured as
 * the client quotas' (rate-quota.ts: eleven one-second samples). The clock is injected.
 *
 * `admit` decides for a new connection and counts it; `closed` forgets it; `update` takes new
 * limits (dynamic broker configs).
 */
import net from 'node:net';
import { RateQuota, UNLIMITED_RATE, type QuotaClock } from '../runtime/rate-quota.js';
import { entityKey, ipConnectionRate, type ClientQuota } from '../security/client-quotas.js';

export const INT_MAX = 2147483647;

export interface ConnectionLimitConfig {
  maxConnections: number;
  maxConnectionsPerIp: number;
  /** IP address -> its own limit. */
  maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
  maxConnectionCreationRate: number;
}

export type Admission =
  | { kind: 'accept' }
  /** Serve it after `ms` (the listener's creation rate is exceeded). */
  | { kind: 'delay'; ms: number }
  /** Close it (after `ms`, for an IP over its rate quota). */
  | { kind: 'refuse'; reason: string; ms: number };

/** max.connections.per.ip.overrides as Kafka writes it: `ip:count` pairs separated by commas. */
export function parseIpOverrides(raw: string): Map<string, number> | string {
  const out = new Map<string, number>();
  for (const part of raw.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const i = part.lastIndexOf(':');
    const ip = i > 0 ? part.slice(0, i).trim().replace(/^\[(.*)\]$/, '$1') : '';
    const n = i > 0 ? Number(part.slice(i + 1).trim()) : NaN;
    if (!ip || net.isIP(ip) === 0) return `'${part}': expected <ip address>:<count> (host names are not resolved)`;
    if (!Number.isSafeInteger(n) || n < 0) return `'${part}': the count must be a whole number >= 0`;
    out.set(ip, n);
  }
  return out;
}

function creationRate(config: ConnectionLimitConfig): number {
  return config.maxConnectionCreationRate >= INT_MAX ? UNLIMITED_RATE : config.maxConnectionCreationRate;
}

export class ConnectionLimits {
  private open = 0;
  private readonly perIp = new Map<string, number>();
  private readonly creation: RateQuota;
  private readonly ipRates = new Map<string, RateQuota>();
  private ipQuotas: ReadonlyMap<string, ClientQuota> = new Map();
  /** Connections refused so far (counts, rate quotas). */
  refused = 0;
  /** Connections made to wait for the creation rate so far. */
  delayed = 0;

  constructor(
    private config: ConnectionLimitConfig,
    private readonly clock: QuotaClock,
  ) {
    this.creation = new RateQuota(creationRate(config), clock);
  }

  /**
   * New limits (dynamic broker configs): the next connections are judged by them; open ones are
   * left open even above a lower limit, as Kafka does. The creation rate keeps its samples.
   */
  update(config: ConnectionLimitConfig): void {
    this.config = config;
    this.creation.setLimit(creationRate(config));
  }

  /** The client quotas in force: their IP entities' connection_creation_rate apply from now. */
  setQuotas(quotas: readonly ClientQuota[]): void {
    this.ipQuotas = new Map(quotas.filter((q) => q.entity.ip !== undefined).map((q) => [entityKey(q.entity), q]));
    for (const [ip, rate] of this.ipRates) rate.setLimit(ipConnectionRate(this.ipQuotas, ip) ?? UNLIMITED_RATE);
  }

  get openConnections(): number {
    return this.open;
  }

  limitFor(ip: string): number {
    return this.config.maxConnectionsPerIpOverrides.get(ip) ?? this.config.maxConnectionsPerIp;
  }

  /** Decides for a new connection from `ip`; one not refused is counted open until `closed`. */
  admit(ip: string): Admission {
    if (this.open >= this.config.maxConnections) {
      this.refused++;
      return { kind: 'refuse', reason: `max.connections (${this.config.maxConnections}) reached`, ms: 0 };
    }
    const fromIp = this.perIp.get(ip) ?? 0;
    if (fromIp >= this.limitFor(ip)) {
      this.refused++;
      return { kind: 'refuse', reason: `${fromIp} connections from ${ip} already (max.connections.per.ip${this.config.maxConnectionsPerIpOverrides.has(ip) ? '.overrides' : ''}: ${this.limitFor(ip)})`, ms: 0 };
    }
    const ipLimit = ipConnectionRate(this.ipQuotas, ip);
    if (ipLimit !== null || this.ipRates.has(ip)) {
      let rate = this.ipRates.get(ip);
      if (!rate) this.ipRates.set(ip, (rate = new RateQuota(ipLimit ?? UNLIMITED_RATE, this.clock)));
      rate.record(1);
      const throttle = rate.throttleTimeMs();
      if (throttle > 0) {
        this.refused++;
        return { kind: 'refuse', reason: `${ip} is over its connection_creation_rate quota (${rate.limit}/s)`, ms: throttle };
      }
    }
    this.open++;
    this.perIp.set(ip, fromIp + 1);
    this.creation.record(1);
    const wait = this.creation.throttleTimeMs();
    if (wait > 0) {
      this.delayed++;
      return { kind: 'delay', ms: wait };
    }
    return { kind: 'accept' };
  }

  /** A connection admitted from `ip` closed. */
  closed(ip: string): void {
    this.open = Math.max(0, this.open - 1);
    const n = (this.perIp.get(ip) ?? 1) - 1;
    if (n <= 0) this.perIp.delete(ip);
    else this.perIp.set(ip, n);
  }
}
