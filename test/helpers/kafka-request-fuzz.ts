/**
 * Random Kafka request bodies that our codec can encode (so the broker can decode them), built
 * from the request schemas in src/kafka/schemas/generated.ts with a seeded PRNG: the same seed
 * gives the same bodies. Values lean to the edges (0, -1, the type's bounds, empty and odd
 * strings, null where the version allows it, empty arrays) and to names the broker knows (`names`),
 * so that requests reach past the first lookup in their handler.
 */
import crypto from 'node:crypto';
import { inRange, type FieldSchema, type MessageSchema } from '../../src/kafka/schemas/format.js';
import { messageSchemas } from '../../src/kafka/schemas/generated.js';
import { ZERO_UUID } from '../../src/kafka/protocol/index.js';
import { crc32c } from '../../src/protocol/crc32c.js';
import { encodeRecordBatch } from '../../src/protocol/record-batch.js';

/** Marsaglia's xorshift32 (2003): small, fast and seeded, plenty for picking test inputs. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    // the all-zero state would stay zero; the first outputs of a seed with few bits set are small
    this.state = seed >>> 0 || 0x9e3779b9;
    for (let i = 0; i < 8; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }

  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(0, 255);
    return b;
  }
}

/** What the generator draws on besides random values. */
export interface FuzzNames {
  /** Strings the broker knows: topic names, group ids, config and feature names... */
  strings: readonly string[];
  /** Topic ids the broker knows. */
  uuids: readonly string[];
  /** A fresh string each call, for fields that must not meet earlier requests' state. */
  fresh(): string;
  /** Values the broker handed out or took (member ids, producer ids and epochs...), by field name. */
  learned?: ReadonlyMap<string, readonly unknown[]>;
  /** Strings worth drawing often for a field of that name (a topic for `topic`...). */
  byField?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Values that get a request past its first check, by field name (any API), drawn half the time:
 * without them most requests would stop at INVALID_REQUIRED_ACKS, INVALID_SESSION_TIMEOUT...
 */
const PLAUSIBLE: Readonly<Record<string, readonly unknown[]>> = {
  acks: [-1, 0, 1],
  sessionTimeoutMs: [6_000, 10_000, 45_000],
  rebalanceTimeoutMs: [0, 100, 1_000],
  transactionTimeoutMs: [1_000, 60_000],
  keyType: [0, 1, 2],
  isolationLevel: [0, 1],
  resourceType: [2, 4, 8, 16, 32],
  resourceTypeFilter: [1, 2, 4],
  patternType: [3, 4],
  patternTypeFilter: [1, 3, 4],
  operation: [1, 2, 3, 4],
  permissionType: [1, 2, 3],
  configOperation: [0, 1, 2, 3],
  upgradeType: [1, 2, 3],
  memberId: [''],
  memberEpoch: [0, -1, -2],
  shareSessionEpoch: [0, -1],
  sessionEpoch: [0, -1],
  entityType: ['user', 'client-id', 'ip'],
  protocolType: ['consumer'],
  serverAssignor: ['uniform', 'range', null],
  timestamp: [-1, -2, -3, -4, -5, 0],
};

/** Field names whose values tie one request to another: learned from answered requests and their answers. */
export const LEARNED_FIELDS: ReadonlySet<string> = new Set([
  'groupId',
  'memberId',
  'generationId',
  'generationIdOrMemberEpoch',
  'memberEpoch',
  'groupInstanceId',
  'producerId',
  'producerEpoch',
  'transactionalId',
  'sessionId',
  'epoch',
  'shareSessionEpoch',
  'tokenId',
  'hmac',
]);

/** Keeps `x`'s values of LEARNED_FIELDS (at most `keep` latest of each) in `into`. */
export function learnValues(x: unknown, into: Map<string, unknown[]>, keep = 6): void {
  if (Array.isArray(x)) return x.forEach((e) => learnValues(e, into, keep));
  if (x === null || typeof x !== 'object' || x instanceof Uint8Array) return;
  for (const [k, v] of Object.entries(x)) {
    if (LEARNED_FIELDS.has(k) && v !== null && v !== '' && (typeof v === 'string' || typeof v === 'number' || v instanceof Uint8Array)) {
      const seen = into.get(k) ?? [];
      if (!seen.includes(v)) seen.push(v);
      if (seen.length > keep) seen.shift();
      into.set(k, seen);
    }
    learnValues(v, into, keep);
  }
}

/** Per field: a generator of its own, keyed `<api key>.<field path>` (path of camelCase names joined by '.'). */
export type FieldOverrides = Readonly<Record<string, (rng: Prng, names: FuzzNames) => unknown>>;

const ODD_STRINGS = ['', ' ', '.', '..', '\u0000', 'é', '日本語', '😀', '\u202e', '\ud800', 'a'.repeat(250), '-1', '0', '2147483648', 'NaN', '*', '.*', '(a+)+$', '['];

function randomString(rng: Prng, names: FuzzNames): string {
  const roll = rng.next();
  if (roll < 0.4 && names.strings.length > 0) return rng.pick(names.strings);
  if (roll < 0.7) return rng.pick(ODD_STRINGS);
  const alphabet = 'abcxyz-_.019AZ';
  let s = '';
  for (let i = rng.int(0, 12); i > 0; i--) s += alphabet[rng.int(0, alphabet.length - 1)];
  return s;
}

const INT_EDGES: Readonly<Record<string, readonly number[]>> = {
  int8: [0, 1, -1, 2, 3, 127, -128],
  int16: [0, 1, -1, 2, 32767, -32768],
  uint16: [0, 1, 65535],
  int32: [0, 1, -1, 2, 2147483647, -2147483648],
};
const INT_BOUNDS: Readonly<Record<string, [number, number]>> = { int8: [-128, 127], int16: [-32768, 32767], uint16: [0, 65535], int32: [-2147483648, 2147483647] };
const INT64_EDGES: readonly (number | bigint)[] = [0, 1, -1, 2, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 9223372036854775807n, -9223372036854775808n, 1_700_000_000_000];

function randomInt(rng: Prng, type: string): number | bigint {
  if (type === 'int64') {
    if (rng.chance(0.6)) return rng.pick(INT64_EDGES);
    return rng.chance(0.5) ? rng.int(0, 100) : rng.int(-2147483648, 2147483647);
  }
  const roll = rng.next();
  if (roll < 0.5) return rng.pick(INT_EDGES[type]!);
  if (roll < 0.8) return rng.int(0, 10);
  const [lo, hi] = INT_BOUNDS[type]!;
  return rng.int(lo, hi);
}

function randomUuid(rng: Prng, names: FuzzNames): string {
  const roll = rng.next();
  if (roll < 0.3) return ZERO_UUID;
  if (roll < 0.6 && names.uuids.length > 0) return rng.pick(names.uuids);
  return rng.bytes(16).toString('base64url');
}

// RecordBatch v2 header offsets (Kafka's DefaultRecordBatch)
const BATCH_BASE_OFFSET = 0;
const BATCH_CRC = 17;
const BATCH_ATTRIBUTES = 21;
const BATCH_BASE_TIMESTAMP = 27;
const BATCH_MAX_TIMESTAMP = 35;
const BATCH_PRODUCER_ID = 43;

/** A RecordBatch for a 'records' field: valid, valid but damaged, or not one at all. */
export function randomRecords(rng: Prng): Buffer {
  const now = Date.now();
  const records = Array.from({ length: rng.int(0, 3) }, (_, i) => ({
    key: rng.chance(0.3) ? null : rng.bytes(rng.int(0, 8)),
    value: rng.chance(0.2) ? null : rng.bytes(rng.int(0, 32)),
    timestamp: rng.pick([now, 0, -1, now + i]),
    ...(rng.chance(0.2) ? { headers: [{ key: rng.pick(['h', '', 'é']), value: rng.chance(0.5) ? null : rng.bytes(3) }] } : {}),
  }));
  const idempotent = rng.chance(0.3);
  let batch: Buffer;
  try {
    batch = encodeRecordBatch({
      records: records.length > 0 ? records : [{ key: null, value: Buffer.from('v'), timestamp: now }],
      compression: rng.pick([0, 0, 0, 1, 2, 3, 4]),
      ...(rng.chance(0.1) ? { timestampType: 1 as const } : {}),
      ...(idempotent ? { producerId: rng.pick([0, 1, 1000, -2]), producerEpoch: rng.pick([0, 1, -1, 32767]), baseSequence: rng.pick([0, 1, -1, 2147483647]) } : {}),
      ...(rng.chance(0.15) ? { transactional: true, producerId: rng.pick([0, 1, 1000]), producerEpoch: 0 } : {}),
      ...(rng.chance(0.05) ? { control: true } : {}),
    });
  } catch {
    // a combination the encoder refuses: random bytes instead
    return rng.bytes(rng.int(0, 80));
  }
  if (rng.chance(0.15)) {
    // header fields the encoder will not write (beyond 2^53), with the CRC made good again
    const b = Buffer.from(batch);
    const field = rng.pick([BATCH_PRODUCER_ID, BATCH_BASE_OFFSET, BATCH_BASE_TIMESTAMP, BATCH_MAX_TIMESTAMP]);
    b.writeBigInt64BE(rng.pick([9223372036854775807n, -9223372036854775808n, 2n ** 53n + 1n]), field);
    b.writeUInt32BE(crc32c(b, BATCH_ATTRIBUTES) >>> 0, BATCH_CRC);
    return b;
  }
  const roll = rng.next();
  if (roll < 0.4) return batch;
  if (roll < 0.75) {
    // flip 1-3 bytes (the header, the CRC or the records)
    const b = Buffer.from(batch);
    for (let i = rng.int(1, 3); i > 0; i--) b[rng.int(0, b.length - 1)] ^= 1 << rng.int(0, 7);
    return b;
  }
  if (roll < 0.85) return batch.subarray(0, rng.int(0, batch.length - 1));
  if (roll < 0.92) return Buffer.concat([batch, batch]);
  return rng.bytes(rng.int(0, 80));
}

/**
 * Every value at one end instead of random ones: 'max' gives each integer its type's maximum,
 * each string a name the field plausibly takes (else a long one), each array one element and a
 * valid RecordBatch; 'min' each integer its minimum, empty strings and arrays, null wherever the
 * version allows it.
 */
export type Edge = 'max' | 'min';

interface Gen {
  version: number;
  rng: Prng;
  names: FuzzNames;
  overrides: FieldOverrides;
  edge: Edge | null;
}

function fieldValue(f: FieldSchema, g: Gen, path: string): unknown {
  const override = g.overrides[path];
  if (override) return override(g.rng, g.names);
  const nullable = inRange(f.nullable, g.version);
  if (g.edge !== null) {
    if (g.edge === 'min') return nullable ? null : f.array ? [] : elementValue(f, g, path);
    return f.array ? [elementValue(f, g, path)] : elementValue(f, g, path);
  }
  const { rng, names } = g;
  if (nullable && rng.chance(0.15)) return null;
  const learned = names.learned?.get(f.name);
  if (!f.array && learned && learned.length > 0 && rng.chance(0.4)) {
    const v = rng.pick(learned);
    if (fits(f, g.version, v)) return v;
  }
  const plausible = PLAUSIBLE[f.name] ?? names.byField?.[f.name];
  if (!f.array && plausible && rng.chance(0.5)) {
    const v = rng.pick(plausible);
    if (fits(f, g.version, v)) return v;
  }
  if (f.array) {
    const n = rng.chance(0.25) ? 0 : rng.int(1, 3);
    return Array.from({ length: n }, () => elementValue(f, g, path));
  }
  return elementValue(f, g, path);
}

/** Whether a drawn value suits the field's type (a learned value may come from a field of another type). */
function fits(f: FieldSchema, version: number, v: unknown): boolean {
  if (v === null) return inRange(f.nullable, version);
  switch (f.type) {
    case 'string':
      return typeof v === 'string';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'int64': {
      if (typeof v !== 'number' || !Number.isInteger(v)) return false;
      if (f.type === 'int64') return Number.isSafeInteger(v);
      const [lo, hi] = INT_BOUNDS[f.type]!;
      return v >= lo && v <= hi;
    }
    default:
      return false;
  }
}

function edgeElement(f: FieldSchema, g: Gen, edge: Edge): unknown {
  const max = edge === 'max';
  switch (f.type) {
    case 'bool':
      return max;
    case 'int64':
      return max ? 9223372036854775807n : -9223372036854775808n;
    case 'float64':
      return max ? Number.MAX_VALUE : -Number.MAX_VALUE;
    case 'string': {
      if (!max) return '';
      const plausible = (PLAUSIBLE[f.name] ?? g.names.byField?.[f.name])?.find((v) => typeof v === 'string' && v !== '');
      return plausible ?? 'a'.repeat(250);
    }
    case 'bytes':
      return max ? g.rng.bytes(24) : Buffer.alloc(0);
    case 'records':
      return max ? encodeRecordBatch({ records: [{ key: null, value: Buffer.from('v'), timestamp: Date.now() }] }) : Buffer.alloc(0);
    case 'uuid':
      return max ? (g.names.uuids[0] ?? g.rng.bytes(16).toString('base64url')) : ZERO_UUID;
    default:
      return INT_BOUNDS[f.type]![max ? 1 : 0];
  }
}

function elementValue(f: FieldSchema, g: Gen, path: string): unknown {
  if (f.type === 'struct') return structValue(f.fields ?? [], g, path);
  if (g.edge !== null) return edgeElement(f, g, g.edge);
  const { rng, names } = g;
  switch (f.type) {
    case 'bool':
      return rng.chance(0.5);
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'int64':
      return randomInt(rng, f.type);
    case 'float64':
      return rng.pick([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, -0, 1e308]);
    case 'string':
      return randomString(rng, names);
    case 'bytes':
      return rng.bytes(rng.chance(0.3) ? 0 : rng.int(1, 24));
    case 'records':
      return randomRecords(rng);
    case 'uuid':
      return randomUuid(rng, names);
  }
}

function structValue(fields: readonly FieldSchema[], g: Gen, prefix: string): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of fields) {
    if (!inRange(f.versions, g.version)) continue;
    // a tagged field is left out (its default) half the time, as clients mostly do
    if (g.edge === null && inRange(f.tagged, g.version) && g.rng.chance(0.5)) continue;
    o[f.name] = fieldValue(f, g, `${prefix}.${f.name}`);
  }
  return o;
}

const requestSchemas = new Map<number, MessageSchema>(messageSchemas.filter((m) => m.kind === 'request').map((m) => [m.apiKey, m]));

/** A random body of `apiKey`'s request at `version` (every value at one end with `edge`). */
export function randomRequestBody(apiKey: number, version: number, rng: Prng, names: FuzzNames, overrides: FieldOverrides = {}, edge: Edge | null = null): Record<string, unknown> {
  const schema = requestSchemas.get(apiKey);
  if (!schema) throw new Error(`no request schema for api key ${apiKey}`);
  return structValue(schema.fields, { version, rng, names, overrides, edge }, String(apiKey));
}

/** A seed from the environment (decimal or 0x hex), else a random one. */
export function seedFrom(value: string | undefined): number {
  if (value !== undefined && value !== '') return Number(value) >>> 0;
  return crypto.randomBytes(4).readUInt32BE(0);
}

/** A request body for a failure message: buffers as hex, bigints as text, short. */
export function describeBody(body: unknown): string {
  const s = JSON.stringify(body, (_k, v: unknown) => {
    if (typeof v === 'bigint') return `${v}n`;
    if (v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer') return `<${((v as { data: number[] }).data ?? []).length} bytes>`;
    return v;
  });
  return s.length > 2000 ? `${s.slice(0, 2000)}...` : s;
}
