/**
 * The value a field takes when an encoded body leaves it out, and when a decoded version does
 * not carry it: the schema's explicit default if there is one; otherwise [] for arrays, null for
 * a string/bytes/records/struct nullable in that version, and else the type's zero ('', 0,
 * false, an empty Buffer, the zero uuid, a struct of defaults).
 */
import { inRange, type FieldSchema } from '../schemas/format.js';

/** Kafka's all-zero Uuid in its string form. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

export const EMPTY_BUFFER: Buffer = Buffer.alloc(0);

/** A fresh default for `f` at `version` (arrays and structs are new objects each call). */
export function defaultValue(f: FieldSchema, version: number): unknown {
  if (f.default !== undefined) return f.default;
  if (f.array) return [];
  const nullable = inRange(f.nullable, version);
  switch (f.type) {
    case 'struct':
      return nullable ? null : defaultStruct(f.fields ?? [], version);
    case 'string':
      return nullable ? null : '';
    case 'bytes':
    case 'records':
      return nullable ? null : EMPTY_BUFFER;
    case 'bool':
      return false;
    case 'uuid':
      return ZERO_UUID;
    default:
      return 0;
  }
}

export function defaultStruct(fields: readonly FieldSchema[], version: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of fields) o[f.name] = defaultValue(f, version);
  return o;
}

/** Whether `x` equals the default of `f` at `version` (tagged fields are written only when not). */
export function isDefaultValue(f: FieldSchema, version: number, x: unknown): boolean {
  if (x === undefined) return true;
  const d = f.type === 'struct' && !f.array ? undefined : defaultValue(f, version);
  if (f.array) return d === null ? x === null : Array.isArray(x) && x.length === 0;
  switch (f.type) {
    case 'struct': {
      const nullDefault = f.default === null || inRange(f.nullable, version);
      if (x === null || nullDefault) return x === null && nullDefault;
      const o = x as Record<string, unknown>;
      return (f.fields ?? []).every((c) => !inRange(c.versions, version) || isDefaultValue(c, version, o[c.name]));
    }
    case 'bytes':
    case 'records':
      return d === null ? x === null : x instanceof Uint8Array && x.length === 0;
    default:
      return x === d;
  }
}
