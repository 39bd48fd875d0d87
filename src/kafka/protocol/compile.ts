/**
 * Compiles a struct (a message body or a nested struct) at one version into a decoder and an
 * encoder. Each is a generated function with one line per field: scalars call the Reader/Writer
 * method for their wire form directly (chosen once, here: compact or not, nullable or not),
 * arrays and nested structs call helpers compiled the same way. Decoded objects get every field
 * of the schema, in schema order (so they share one shape): fields outside the version and
 * tagged fields not sent hold their defaults. Encoding takes the default for an undefined
 * field, skips fields outside the version, and writes tagged fields only when not default.
 */
import { inRange, type FieldSchema } from '../schemas/format.js';
import { defaultStruct, defaultValue, isDefaultValue, EMPTY_BUFFER } from './defaults.js';
import { invalid } from './errors.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

export type Decoded = Record<string, unknown>;

export interface StructCodec {
  decode(r: Reader): Decoded;
  encode(w: Writer, o: object | null | undefined): void;
}

type ReadFn = (r: Reader) => unknown;
type WriteFn = (w: Writer, x: unknown) => void;

/** How one field (or array element) travels: a Reader/Writer method, or helper functions. */
interface WireForm {
  read: ReadFn;
  write: WriteFn;
  /** Reader/Writer method name when the form is a single method call. */
  method?: string;
}

const EMPTY_OBJECT: Readonly<Record<string, unknown>> = Object.freeze({});

function scalarMethod(type: FieldSchema['type'], nullable: boolean, flexible: boolean): string {
  switch (type) {
    case 'string':
      return flexible ? (nullable ? 'compactNullableString' : 'compactString') : nullable ? 'nullableString' : 'string';
    case 'bytes':
    case 'records':
      return flexible ? (nullable ? 'compactNullableBytes' : 'compactBytes') : nullable ? 'nullableBytes' : 'bytes';
    case 'struct':
      throw new Error('struct is not a scalar');
    default:
      return type;
  }
}

function methodForm(method: string): WireForm {
  return {
    method,
    read: new Function('r', `return r.${method}();`) as ReadFn,
    write: new Function('w', 'x', `w.${method}(x);`) as WriteFn,
  };
}

function arrayForm(element: WireForm, nullable: boolean, flexible: boolean): WireForm {
  const readElement = element.read;
  const writeElement = element.write;
  return {
    read: (r) => {
      const n = flexible ? r.compactArrayLength(nullable) : r.arrayLength(nullable);
      if (n < 0) return null;
      const a: unknown[] = [];
      for (let i = 0; i < n; i++) a.push(readElement(r));
      return a;
    },
    write: (w, x) => {
      if (x === null) {
        if (!nullable) throw invalid('null for a non-nullable array');
        if (flexible) w.uvarint(0);
        else w.int32(-1);
        return;
      }
      if (!Array.isArray(x)) throw invalid(`not an array: ${typeof x}`);
      if (flexible) w.uvarint(x.length + 1);
      else w.int32(x.length);
      for (let i = 0; i < x.length; i++) writeElement(w, x[i]);
    },
  };
}

function structForm(codec: StructCodec, nullable: boolean): WireForm {
  if (!nullable) {
    return {
      read: (r) => codec.decode(r),
      write: (w, x) => {
        if (x === null) throw invalid('null for a non-nullable struct');
        codec.encode(w, x as object | undefined);
      },
    };
  }
  return {
    read: (r) => (r.int8() < 0 ? null : codec.decode(r)),
    write: (w, x) => {
      if (x === null) return w.int8(-1);
      w.int8(1);
      codec.encode(w, x as object | undefined);
    },
  };
}

function wireForm(f: FieldSchema, version: number, flexible: boolean): WireForm {
  const nullable = inRange(f.nullable, version);
  if (f.array) {
    // Elements of an array are never null themselves; nullability is the array's.
    const element =
      f.type === 'struct'
        ? structForm(compileStruct(f.fields ?? [], version, flexible), false)
        : methodForm(scalarMethod(f.type, false, flexible));
    return arrayForm(element, nullable, flexible);
  }
  if (f.type === 'struct') return structForm(compileStruct(f.fields ?? [], version, flexible), nullable);
  return methodForm(scalarMethod(f.type, nullable, flexible));
}

interface TaggedCodec {
  readonly name: string;
  readonly tag: number;
  readonly form: WireForm;
  readonly isDefault: (x: unknown) => boolean;
}

/** Reads a tagged-field section into `o`: known tags decode into their field, others are skipped. */
function taggedReader(tagged: readonly TaggedCodec[]): (r: Reader, o: Decoded) => void {
  const byTag = new Map(tagged.map((t) => [t.tag, t]));
  return (r, o) => {
    const count = r.uvarint();
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint();
      const size = r.uvarint();
      r.need(size);
      const end = r.pos + size;
      const t = byTag.get(tag);
      if (t !== undefined) {
        const outer = r.end;
        r.end = end;
        o[t.name] = t.form.read(r);
        r.end = outer;
      }
      r.pos = end;
    }
  };
}

/** Writes the tagged-field section of `o`: its tagged fields that are not default, by tag. */
function taggedWriter(tagged: readonly TaggedCodec[]): (w: Writer, o: Record<string, unknown>) => void {
  return (w, o) => {
    const send: [TaggedCodec, unknown][] = [];
    for (const t of tagged) {
      const x = o[t.name];
      if (!t.isDefault(x)) send.push([t, x]);
    }
    w.uvarint(send.length);
    for (const [t, x] of send) {
      const body = new Writer(64);
      t.form.write(body, x);
      w.uvarint(t.tag);
      w.uvarint(body.pos);
      w.raw(body.finish());
    }
  };
}

/** An expression that evaluates to a fresh default of `f` at `version`. */
function defaultExpression(f: FieldSchema, version: number, helper: (x: unknown) => string): string {
  const d = defaultValue(f, version);
  if (d === null || typeof d === 'number' || typeof d === 'boolean' || typeof d === 'string') {
    return Object.is(d, -0) ? '0' : JSON.stringify(d);
  }
  if (Array.isArray(d)) return '[]';
  if (d === EMPTY_BUFFER) return helper(EMPTY_BUFFER);
  const fields = f.fields ?? [];
  return `${helper(() => defaultStruct(fields, version))}()`;
}

/** The codec of `fields` at `version`; `flexible` when that version of the message is. */
export function compileStruct(fields: readonly FieldSchema[], version: number, flexible: boolean): StructCodec {
  const helpers: unknown[] = [];
  const helper = (x: unknown): string => {
    helpers.push(x);
    return `h[${helpers.length - 1}]`;
  };
  const props: string[] = [];
  const writes: string[] = [];
  const tagged: TaggedCodec[] = [];

  for (const f of fields) {
    const key = JSON.stringify(f.name);
    const fallback = defaultExpression(f, version, helper);
    if (!inRange(f.versions, version)) {
      props.push(`${key}: ${fallback}`);
      continue;
    }
    const form = wireForm(f, version, flexible);
    if (flexible && inRange(f.tagged, version)) {
      props.push(`${key}: ${fallback}`);
      tagged.push({ name: f.name, tag: f.tag ?? 0, form, isDefault: (x) => isDefaultValue(f, version, x) });
      continue;
    }
    if (form.method !== undefined) {
      props.push(`${key}: r.${form.method}()`);
      writes.push(`x = o[${key}]; w.${form.method}(x === undefined ? ${fallback} : x);`);
    } else {
      const read = helper(form.read);
      const write = helper(form.write);
      props.push(`${key}: ${read}(r)`);
      writes.push(`x = o[${key}]; ${write}(w, x === undefined ? ${fallback} : x);`);
    }
  }

  let decodeTail = '';
  let encodeTail = '';
  if (flexible) {
    tagged.sort((a, b) => a.tag - b.tag);
    decodeTail = `${helper(taggedReader(tagged))}(r, o);`;
    encodeTail = tagged.length === 0 ? 'w.uvarint(0);' : `${helper(taggedWriter(tagged))}(w, o);`;
  }

  const source = `
    return {
      decode(r) {
        const o = { ${props.join(', ')} };
        ${decodeTail}
        return o;
      },
      encode(w, o) {
        if (o === undefined || o === null) o = EMPTY;
        let x;
        ${writes.join('\n        ')}
        ${encodeTail}
      },
    };`;
  return new Function('h', 'EMPTY', source)(helpers, EMPTY_OBJECT) as StructCodec;
}
