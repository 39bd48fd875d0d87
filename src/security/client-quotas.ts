/**
 * Kafka's client quotas (KIP-13, KIP-55, KIP-546, KIP-612), as pure functions: quota entities (a
 * user, a client id, or both; either may be the default, written null; or an IP address alone,
 * or the default IP), the keys samsa enforces (byte rates, the request time percentage and the
 * controller mutation rate for users and clients, the connection creation rate for IPs), which configured entity applies to a connection (Kafka's order of
 * precedence, most specific first), and DescribeClientQuotas' filters.
 *
 * A quota applies per broker. A default entity's quota applies to each user (or client id) on its
 * own: the rate is kept per the entity the quota matched, with its defaults filled in by the
 * connection's own names (Kafka's metric tags).
 */
import net from 'node:net';

export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';
/** KIP-612: connections an IP may open per second (IP entities only). */
export const CONNECTION_CREATION_RATE = 'connection_creation_rate';

/** KIP-599: partitions a client may create or delete per second (controller-mutation-quota.ts). */
export const CONTROLLER_MUTATION_RATE = 'controller_mutation_rate';
/**
 * KIP-124: the share of one request handler thread's time a client may use, in percent (over
 * 100 for more than a thread's worth; src/kafka/request-time.ts says what time is counted).
 */
export const REQUEST_PERCENTAGE = 'request_percentage';
/**
 * The keys enforced for users and client ids: bytes per second a client may produce, and fetch
 * as a consumer; the percentage of a request handler thread's time; partition mutations per second.
 */
export const QUOTA_KEYS = Object.freeze(['producer_byte_rate', 'consumer_byte_rate', REQUEST_PERCENTAGE, CONTROLLER_MUTATION_RATE] as const);
export type QuotaKey = (typeof QUOTA_KEYS)[number];

/**
 * A quota entity: `user` and/or `clientId` present, or `ip` alone; a present null is the default
 * ('<default>'), an absent one means the entity does not name that type.
 */
export interface QuotaEntity {
  user?: string | null;
  clientId?: string | null;
  ip?: string | null;
}

export interface ClientQuota {
  entity: QuotaEntity;
  /** key -> its limit (bytes per second, percent of a thread's time, mutations per second). */
  quotas: Record<string, number>;
}

/** A stable key: two entities naming the same user and client id are one. */
export function entityKey(e: QuotaEntity): string {
  const part = (v: string | null | undefined) => (v === undefined ? '-' : v === null ? '<default>' : `=${v}`);
  const key = `${part(e.user)}|${part(e.clientId)}`;
  return e.ip === undefined ? key : `${key}|ip${part(e.ip)}`;
}

/**
 * Entities in a stable order: by user, then by client id; for each, an entity that does not name
 * the type first, then the default, then names in code point order.
 */
export function compareEntities(a: QuotaEntity, b: QuotaEntity): number {
  const rank = (v: string | null | undefined) => (v === undefined ? 0 : v === null ? 1 : 2);
  for (const k of ['user', 'clientId', 'ip'] as const) {
    const x = a[k];
    const y = b[k];
    if (rank(x) !== rank(y)) return rank(x) - rank(y);
    if (typeof x === 'string' && typeof y === 'string' && x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** An entity in words: "user 'alice', client-id 'app'", "the default user". */
export function describeEntity(e: QuotaEntity): string {
  const part = (type: string, v: string | null | undefined) => (v === undefined ? [] : [v === null ? `the default ${type}` : `${type} '${v}'`]);
  return [...part(USER, e.user), ...part(CLIENT_ID, e.clientId), ...part(IP, e.ip)].join(', ') || 'an empty entity';
}

/** Kafka's wire shape of an entity: [{ entityType, entityName }] ('user' first). */
export function entityToWire(e: QuotaEntity): { entityType: string; entityName: string | null }[] {
  const out: { entityType: string; entityName: string | null }[] = [];
  if (e.user !== undefined) out.push({ entityType: USER, entityName: e.user });
  if (e.clientId !== undefined) out.push({ entityType: CLIENT_ID, entityName: e.clientId });
  if (e.ip !== undefined) out.push({ entityType: IP, entityName: e.ip });
  return out;
}

/** An entity from Kafka's wire shape, or why it is not one samsa takes. */
export function entityFromWire(parts: readonly { entityType: string; entityName: string | null }[]): QuotaEntity | string {
  const e: QuotaEntity = {};
  for (const p of parts) {
    if (p.entityType === USER) {
      if (e.user !== undefined) return 'the entity names user twice';
      e.user = p.entityName;
    } else if (p.entityType === CLIENT_ID) {
      if (e.clientId !== undefined) return 'the entity names client-id twice';
      e.clientId = p.entityName;
    } else if (p.entityType === IP) {
      if (e.ip !== undefined) return 'the entity names ip twice';
      e.ip = p.entityName;
    } else {
      return `unknown entity type '${p.entityType}' (user, client-id, ip)`;
    }
  }
  if (e.ip !== undefined && (e.user !== undefined || e.clientId !== undefined)) return 'an ip entity cannot be combined with a user or a client-id';
  if (e.user === undefined && e.clientId === undefined && e.ip === undefined) return 'the entity is empty: name a user, a client-id or both, or an ip';
  if (e.user === '' || e.clientId === '' || e.ip === '') return 'an entity name is empty (null is the default)';
  if (typeof e.ip === 'string') {
    const ip = canonicalIp(e.ip);
    if (ip === null) return `'${e.ip}' is not an IP address (host names are not resolved)`;
    e.ip = ip;
  }
  return e;
}

/**
 * An IP address as the brokers' listeners see a connection's: IPv4 in dotted decimal, IPv6 in its
 * compressed lower-case form, an IPv4-mapped IPv6 address as its IPv4 address; null for anything
 * that is not an IP literal (host names are not resolved).
 */
export function canonicalIp(raw: string): string | null {
  const t = raw.trim();
  if (net.isIPv4(t)) return t;
  if (!net.isIPv6(t)) return null;
  let h: string;
  try {
    h = new URL(`http://[${t}]/`).hostname.slice(1, -1);
  } catch {
    return t.toLowerCase(); // a zone id (fe80::1%eth0): as given
  }
  const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (!m) return h;
  const [hi, lo] = [parseInt(m[1]!, 16), parseInt(m[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** A connection's address in the form quotas are kept in (canonicalIp; as given if not an IP). */
export function normalizeIp(address: string): string {
  return canonicalIp(address) ?? address;
}

/** Why a quota key and value cannot be set (on `entity`, when given), or null. */
export function quotaProblem(key: string, value: number, entity?: QuotaEntity): string | null {
  const ipEntity = entity?.ip !== undefined;
  if (key === CONNECTION_CREATION_RATE) {
    if (entity && !ipEntity) return `${key} applies to ip entities only`;
    if (!Number.isSafeInteger(value) || value <= 0) return `${key} must be a positive whole number of connections per second, got ${value}`;
    return null;
  }
  if (ipEntity) return `an ip entity takes only ${CONNECTION_CREATION_RATE}, not ${key}`;
  if (!(QUOTA_KEYS as readonly string[]).includes(key)) return `unknown quota key '${key}' (${QUOTA_KEYS.join(', ')})`;
  if (key === REQUEST_PERCENTAGE) {
    if (!Number.isFinite(value) || value <= 0) return `${key} must be a positive percentage of a request handler thread's time, got ${value}`;
    return null;
  }
  if (!Number.isFinite(value) || value <= 0) return `${key} must be a positive number of ${key === CONTROLLER_MUTATION_RATE ? 'partition mutations' : 'bytes'} per second, got ${value}`;
  return null;
}

/**
 * The configured quota that applies to a connection of `user` with `clientId` for `key`, in
 * Kafka's order: /users/u/clients/c, /users/u/clients/<default>, /users/u,
 * /users/<default>/clients/c, /users/<default>/clients/<default>, /users/<default>,
 * /clients/c, /clients/<default>. Null when none does.
 * The returned `metricEntity` is the entity the rate is kept for: the matched one with its
 * defaults replaced by the connection's names.
 */
export function resolveQuota(quotas: ReadonlyMap<string, ClientQuota>, user: string, clientId: string, key: QuotaKey): { limit: number; metricEntity: QuotaEntity } | null {
  const candidates: QuotaEntity[] = [
    { user, clientId },
    { user, clientId: null },
    { user },
    { user: null, clientId },
    { user: null, clientId: null },
    { user: null },
    { clientId },
    { clientId: null },
  ];
  for (const c of candidates) {
    const q = quotas.get(entityKey(c));
    const limit = q?.quotas[key];
    if (limit === undefined) continue;
    const metricEntity: QuotaEntity = {};
    if (c.user !== undefined) metricEntity.user = user;
    if (c.clientId !== undefined) metricEntity.clientId = clientId;
    return { limit, metricEntity };
  }
  return null;
}

/** A DescribeClientQuotas filter component: match type 0 a name, 1 the default, 2 any specified. */
export interface QuotaFilterComponent {
  entityType: string;
  matchType: number;
  match: string | null;
}

/** Why a filter cannot be used, or null. */
export function filterProblem(components: readonly QuotaFilterComponent[]): string | null {
  const seen = new Set<string>();
  for (const c of components) {
    if (c.entityType !== USER && c.entityType !== CLIENT_ID && c.entityType !== IP) return `unknown entity type '${c.entityType}' in the filter (user, client-id, ip)`;
    if (seen.has(c.entityType)) return `the filter names ${c.entityType} twice`;
    seen.add(c.entityType);
    if (c.matchType === 0 && c.match === null) return `an exact match of ${c.entityType} needs a name`;
    if (c.matchType !== 0 && c.matchType !== 1 && c.matchType !== 2) return `unknown match type ${c.matchType} (0 exact, 1 default, 2 any)`;
  }
  return null;
}

/** Whether an entity passes the filter (strict: it names no other entity type than the filter's). */
export function filterMatches(components: readonly QuotaFilterComponent[], strict: boolean, e: QuotaEntity): boolean {
  for (const c of components) {
    const v = c.entityType === USER ? e.user : c.entityType === IP ? e.ip : e.clientId;
    if (v === undefined) return false;
    if (c.matchType === 0 && v !== c.match) return false;
    if (c.matchType === 1 && v !== null) return false;
  }
  if (strict) {
    const types = new Set(components.map((c) => c.entityType));
    if (e.user !== undefined && !types.has(USER)) return false;
    if (e.clientId !== undefined && !types.has(CLIENT_ID)) return false;
    if (e.ip !== undefined && !types.has(IP)) return false;
  }
  return true;
}

/** The connection creation rate that applies to `ip` (its own quota, else the default IP's), or null. */
export function ipConnectionRate(quotas: ReadonlyMap<string, ClientQuota>, ip: string): number | null {
  return quotas.get(entityKey({ ip }))?.quotas[CONNECTION_CREATION_RATE] ?? quotas.get(entityKey({ ip: null }))?.quotas[CONNECTION_CREATION_RATE] ?? null;
}
