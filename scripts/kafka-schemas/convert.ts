/**
 * From Kafka's definition of a message to ours: version strings become ranges, names become
 * camelCase, "[]Foo" becomes an array of struct Foo (inline or from commonStructs), defaults are
 * parsed to their values. Each struct also gets the name of the TypeScript interface that
 * describes it: the message name followed by the struct field's name (e.g. ProduceRequest +
 * TopicData), or by the field names on its path when that name alone would repeat in the message.
 */
import { OPEN_END, type FieldDefault, type FieldSchema, type FieldType, type MessageSchema, type VersionRange } from '../../src/kafka/schemas/format.js';
import type { RawField, RawMessage, RawStruct } from './parse.js';

/** A field with what the emitter needs besides the codec description. */
export interface GenField extends FieldSchema {
  readonly fields?: readonly GenField[];
  /** For struct fields: the TypeScript interface name. */
  readonly tsName?: string;
}

export interface GenMessage extends MessageSchema {
  readonly fields: readonly GenField[];
}

const SCALARS: ReadonlySet<string> = new Set([
  'bool', 'int8', 'int16', 'uint16', 'int32', 'int64', 'float64', 'string', 'bytes', 'records', 'uuid',
]);
const INTEGERS: ReadonlySet<string> = new Set(['int8', 'int16', 'uint16', 'int32', 'int64']);

export function parseVersions(spec: string | undefined, where: string): VersionRange | undefined {
  if (spec === undefined || spec === 'none') return undefined;
  let m = /^(\d+)\+$/.exec(spec);
  if (m) return [Number(m[1]), OPEN_END];
  m = /^(\d+)-(\d+)$/.exec(spec);
  if (m) return [Number(m[1]), Number(m[2])];
  m = /^(\d+)$/.exec(spec);
  if (m) return [Number(m[1]), Number(m[1])];
  throw new Error(`${where}: bad version range "${spec}"`);
}

export function camelCase(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function parseDefault(raw: string | number | boolean, type: FieldType, array: boolean, where: string): FieldDefault {
  if (raw === 'null') return null;
  if (array || type === 'struct' || type === 'bytes' || type === 'records') {
    throw new Error(`${where}: unsupported default ${JSON.stringify(raw)}`);
  }
  if (type === 'bool') {
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw new Error(`${where}: bad bool default ${JSON.stringify(raw)}`);
  }
  if (type === 'string' || type === 'uuid') return String(raw);
  const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
  if (!Number.isFinite(n) || (INTEGERS.has(type) && !Number.isInteger(n))) {
    throw new Error(`${where}: bad ${type} default ${JSON.stringify(raw)}`);
  }
  return n;
}

interface StructSite {
  path: string[];
  fieldName: string;
  set: (tsName: string) => void;
}

export function convertMessage(raw: RawMessage): GenMessage {
  const where = raw.name;
  const validVersions = parseVersions(raw.validVersions, `${where}.validVersions`);
  if (validVersions === undefined || raw.apiKey === undefined) throw new Error(`${where}: no apiKey/validVersions`);
  const flexible = parseVersions(raw.flexibleVersions, `${where}.flexibleVersions`);
  if (flexible !== undefined && flexible[1] !== OPEN_END) throw new Error(`${where}: flexibleVersions must be open-ended`);
  const common = new Map<string, RawStruct>((raw.commonStructs ?? []).map((s) => [s.name, s]));

  const sites: StructSite[] = [];
  type Mutable = { -readonly [K in keyof GenField]: GenField[K] };

  const convertFields = (fields: readonly RawField[], path: string[]): GenField[] =>
    fields.map((f) => {
      const at = `${where}.${[...path, f.name].join('.')}`;
      const array = f.type.startsWith('[]');
      const base = array ? f.type.slice(2) : f.type;
      const isStruct = !SCALARS.has(base);
      const type: FieldType = isStruct ? 'struct' : (base as FieldType);
      const versions = parseVersions(f.versions, `${at}.versions`);
      if (versions === undefined) throw new Error(`${at}: no versions`);
      const out: Mutable = { name: camelCase(f.name), type, versions };
      if (array) out.array = true;
      const nullable = parseVersions(f.nullableVersions, `${at}.nullableVersions`);
      if (nullable !== undefined) out.nullable = nullable;
      const tagged = parseVersions(f.taggedVersions, `${at}.taggedVersions`);
      if (tagged !== undefined) {
        if (f.tag === undefined) throw new Error(`${at}: taggedVersions without tag`);
        out.tagged = tagged;
        out.tag = f.tag;
      }
      if (f.default !== undefined) out.default = parseDefault(f.default, type, array, at);
      if (isStruct) {
        const inner = f.fields ?? common.get(base)?.fields;
        if (inner === undefined) throw new Error(`${at}: unknown struct type ${base}`);
        out.fields = convertFields(inner, [...path, f.name]);
        sites.push({ path: [...path], fieldName: f.name, set: (n) => (out.tsName = n) });
      }
      return out as GenField;
    });

  const fields = convertFields(raw.fields, []);

  // Interface names: message + field name, or message + path where the field name repeats.
  const counts = new Map<string, number>();
  for (const s of sites) counts.set(s.fieldName, (counts.get(s.fieldName) ?? 0) + 1);
  const used = new Set<string>();
  for (const s of sites) {
    const parts = counts.get(s.fieldName)! > 1 ? [...s.path, s.fieldName] : [s.fieldName];
    const tsName = raw.name + parts.map(pascalCase).join('');
    if (used.has(tsName)) throw new Error(`${where}: interface name ${tsName} would repeat`);
    used.add(tsName);
    s.set(tsName);
  }

  return {
    name: raw.name,
    apiKey: raw.apiKey,
    kind: raw.type as 'request' | 'response',
    validVersions,
    flexibleFrom: flexible === undefined ? -1 : flexible[0],
    fields,
  };
}
