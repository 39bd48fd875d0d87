/**
 * Ill-typed actor messages, drawn with a seeded PRNG from the shapes actors declare
 * (actor-message-shapes.ts): the right `type`, and fields where at least one declared field, at
 * the top or nested, is not what the shape says (missing, null, another kind, a number that is
 * not finite, an element of an array or a nested field gone wrong). The other fields get values
 * of their own kind, edges included (huge, negative, fractional numbers, long strings, big
 * arrays up to a bound), so handlers are reached past their first check. Only values msgpack
 * carries are drawn: no undefined inside arrays, no functions.
 */
import type { Prng } from './kafka-request-fuzz.js';
import type { FieldShape, Shape } from './actor-message-shapes.js';

export interface FuzzPools {
  /** Strings drawn for string fields (names that exist, names that do not). */
  strings: readonly string[];
  /** The largest array drawn (its elements are then drawn small, so a message stays a few MB at most). */
  maxArray: number;
  /** Set while drawing the elements of a large array: no long strings, no large arrays. */
  small?: boolean;
}

function smallPools(pools: FuzzPools): FuzzPools {
  return pools.small ? pools : { strings: pools.strings, maxArray: 4, small: true };
}

const EDGE_NUMBERS = [0, -0, 1, -1, 2, 0.5, -2147483648, 2147483647, 4294967296, 2 ** 53 - 1, -(2 ** 53), 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 1e300, -1e300, Number.MIN_VALUE, 1e-9];
const NOT_FINITE = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
const ODD_STRINGS = ['', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '-1', 'NaN', '../..', '\u0000', 'é\ud83d\ude00', ' '];

/** Sets `key` as an own data property (also '__proto__', which plain assignment would take as the prototype). */
function put(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function number(rng: Prng): number | bigint {
  if (rng.chance(0.08)) return rng.pick([2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n]);
  if (rng.chance(0.5)) return rng.pick(EDGE_NUMBERS);
  return rng.int(-5, 1000);
}

function string(rng: Prng, pools: FuzzPools): string {
  const r = rng.next();
  if (r < 0.5) return rng.pick(pools.strings);
  if (r < 0.8) return rng.pick(ODD_STRINGS);
  if (r < 0.9) return pools.small ? 'x'.repeat(rng.int(100, 300)) : 'x'.repeat(rng.int(1000, 70_000));
  return `fuzz-${rng.int(0, 1e6)}`;
}

/** Anything at all, nested up to `depth`. */
export function junk(rng: Prng, pools: FuzzPools, depth = 2): unknown {
  const r = rng.int(0, depth > 0 ? 13 : 9);
  switch (r) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
    case 3:
      return number(rng);
    case 4:
      return rng.pick(NOT_FINITE);
    case 5:
      return string(rng, pools);
    case 6:
      return rng.bytes(rng.pick(pools.small ? [0, 1, 7] : [0, 1, 7, 61, 4096]));
    case 7:
      return new Date(rng.pick([0, -1, 8.64e15, 1700000000000]));
    case 8:
      return { node: rng.pick(['fuzz-void', '', 'main']), path: rng.pick(['/nowhere', '', '/']) };
    case 9:
      return [];
    case 10:
    case 11: {
      if (!pools.small && rng.chance(0.1)) {
        const small = smallPools(pools);
        return Array.from({ length: rng.int(0, pools.maxArray) }, () => junk(rng, small, 0));
      }
      return Array.from({ length: rng.int(1, 4) }, () => junk(rng, pools, depth - 1));
    }
    default: {
      const o: Record<string, unknown> = {};
      for (let i = rng.int(0, 4); i > 0; i--) put(o, string(rng, pools).slice(0, 40), junk(rng, pools, depth - 1));
      // a key that is an accessor on plain objects, as an own property
      if (rng.chance(0.2)) put(o, '__proto__', junk(rng, pools, 0));
      return o;
    }
  }
}

/** A value of the shape's own kind (edges included). */
export function wellTyped(shape: Shape, rng: Prng, pools: FuzzPools, depth = 0): unknown {
  switch (shape.kind) {
    case 'string':
      return string(rng, pools);
    case 'number':
      return number(rng);
    case 'boolean':
      return rng.chance(0.5);
    case 'bytes':
      return rng.bytes(rng.pick([0, 1, 12, 61, 300]));
    case 'ref':
      return { node: 'fuzz-void', path: '/nowhere' };
    case 'literal':
      return rng.pick(shape.values);
    case 'any':
      return junk(rng, pools, 1);
    case 'union':
      return wellTyped(rng.pick(shape.options), rng, pools, depth);
    case 'array': {
      if (depth > 3) return [];
      if (!pools.small && rng.chance(0.05)) {
        const small = smallPools(pools);
        return Array.from({ length: rng.int(0, pools.maxArray) }, () => wellTyped(shape.element, rng, small, depth + 1));
      }
      return Array.from({ length: rng.int(0, 3) }, () => wellTyped(shape.element, rng, pools, depth + 1));
    }
    case 'record': {
      const o: Record<string, unknown> = {};
      for (let i = rng.int(0, 3); i > 0; i--) put(o, string(rng, pools).slice(0, 40), depth > 3 ? null : wellTyped(shape.value, rng, pools, depth + 1));
      return o;
    }
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [k, f] of Object.entries(shape.fields)) {
        if (f.optional && rng.chance(0.3)) continue;
        o[k] = f.nullable && rng.chance(0.15) ? null : depth > 3 ? null : wellTyped(f.shape, rng, pools, depth + 1);
      }
      return o;
    }
  }
}

/** A value that is not of the shape's kind (for nested shapes, possibly wrong only deep inside). */
export function illTyped(field: FieldShape, rng: Prng, pools: FuzzPools, depth = 0): { value: unknown; present: boolean } {
  const { shape } = field;
  if (shape.kind === 'any' || (!field.optional && rng.chance(0.12))) return { value: undefined, present: false };
  if (!field.nullable && rng.chance(0.12)) return { value: null, present: true };
  if (depth < 3 && rng.chance(0.4)) {
    if (shape.kind === 'array' && shape.element.kind !== 'any') {
      const bad = illTyped({ shape: shape.element, optional: false, nullable: false }, rng, pools, depth + 1);
      const arr = Array.from({ length: rng.int(0, 2) }, () => wellTyped(shape.element, rng, pools, depth + 1));
      arr.splice(rng.int(0, arr.length), 0, bad.present ? bad.value : null);
      return { value: arr, present: true };
    }
    if (shape.kind === 'object') {
      const keys = Object.keys(shape.fields).filter((k) => shape.fields[k]!.shape.kind !== 'any' || !shape.fields[k]!.nullable);
      if (keys.length > 0) {
        const o = wellTyped(shape, rng, pools, depth + 1) as Record<string, unknown>;
        const k = rng.pick(keys);
        const bad = illTyped(shape.fields[k]!, rng, pools, depth + 1);
        if (bad.present) o[k] = bad.value;
        else delete o[k];
        return { value: o, present: true };
      }
    }
    if (shape.kind === 'record' && shape.value.kind !== 'any') {
      const bad = illTyped({ shape: shape.value, optional: false, nullable: false }, rng, pools, depth + 1);
      const o: Record<string, unknown> = {};
      put(o, string(rng, pools).slice(0, 40), bad.present ? bad.value : null);
      return { value: o, present: true };
    }
  }
  if (shape.kind === 'number' && rng.chance(0.3)) return { value: rng.pick(NOT_FINITE), present: true };
  for (let i = 0; i < 20; i++) {
    const v = junk(rng, pools);
    if (!fits(shape, v)) return { value: v, present: true };
  }
  return { value: shape.kind === 'array' ? { '': [] } : [[]], present: true };
}

/** Whether `v` is of the shape's kind at its top level (what a schema check could see). */
export function fits(shape: Shape, v: unknown): boolean {
  switch (shape.kind) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint';
    case 'boolean':
      return typeof v === 'boolean';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'ref':
      return typeof v === 'object' && v !== null && typeof (v as { node?: unknown }).node === 'string' && typeof (v as { path?: unknown }).path === 'string';
    case 'literal':
      return shape.values.includes(v as string);
    case 'any':
      return true;
    case 'union':
      return shape.options.some((o) => fits(o, v));
    case 'array':
      return Array.isArray(v);
    case 'record':
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Date);
  }
}

/**
 * A message of type `type` with the given fields, at least one of them ill-typed; null when the
 * shape has no field that could be (a message without fields is always well-typed).
 */
export function illTypedMessage(type: string, fields: Record<string, FieldShape>, rng: Prng, pools: FuzzPools): Record<string, unknown> | null {
  const candidates = Object.keys(fields).filter((k) => fields[k]!.shape.kind !== 'any' || !fields[k]!.optional);
  if (candidates.length === 0) return null;
  const msg: Record<string, unknown> = { type };
  const bad = new Set<string>([rng.pick(candidates)]);
  for (const k of candidates) if (rng.chance(0.2)) bad.add(k);
  for (const [k, f] of Object.entries(fields)) {
    if (bad.has(k)) {
      const v = illTyped(f, rng, pools);
      if (v.present) msg[k] = v.value;
    } else if (!f.optional || rng.chance(0.6)) {
      msg[k] = f.nullable && rng.chance(0.1) ? null : wellTyped(f.shape, rng, pools);
    }
  }
  if (rng.chance(0.1)) put(msg, string(rng, pools).slice(0, 20) || 'extra', junk(rng, pools));
  return msg;
}

/** A short description of a message for a failure report (long strings, bytes and arrays abridged). */
export function describeMessage(msg: unknown, depth = 0): string {
  if (msg === null) return 'null';
  if (typeof msg === 'string') return msg.length > 40 ? `'${msg.slice(0, 12)}...'(${msg.length})` : JSON.stringify(msg);
  if (typeof msg === 'bigint') return `${msg}n`;
  if (typeof msg === 'number') return Object.is(msg, -0) ? '-0' : String(msg);
  if (typeof msg !== 'object') return String(msg);
  if (msg instanceof Uint8Array) return `<${msg.length} bytes>`;
  if (msg instanceof Date) return `Date(${msg.getTime()})`;
  if (depth > 3) return '...';
  if (Array.isArray(msg)) {
    const head = msg.slice(0, 3).map((x) => describeMessage(x, depth + 1));
    return `[${head.join(', ')}${msg.length > 3 ? `, ... ${msg.length} items` : ''}]`;
  }
  return `{ ${Object.entries(msg).map(([k, v]) => `${k}: ${describeMessage(v, depth + 1)}`).join(', ')} }`;
}
