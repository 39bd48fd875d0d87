/**
 * Reading one of Kafka's message definition files: JSON with `//` line comments (and the odd
 * block comment). Comments are dropped outside string literals, then the text is parsed and
 * given the shape below (only the keys the generator uses).
 */

export interface RawField {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  fields?: RawField[];
}

export interface RawStruct {
  name: string;
  versions?: string;
  fields: RawField[];
}

export interface RawMessage {
  apiKey?: number;
  type: string;
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: RawField[];
  commonStructs?: RawStruct[];
}

/** `text` without its comments; string literals are left untouched. */
export function stripComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

export function parseSchemaFile(text: string, fileName: string): RawMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripComments(text));
  } catch (err) {
    throw new Error(`${fileName}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${fileName}: not a JSON object`);
  const m = parsed as RawMessage;
  if (typeof m.name !== 'string' || typeof m.type !== 'string') throw new Error(`${fileName}: no name/type`);
  return m;
}
