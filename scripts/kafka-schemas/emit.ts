/**
 * The text of src/kafka/schemas/generated.ts: header, ApiKeys, the message schemas in our
 * format, one interface per body and nested struct, and the api-key-to-body maps.
 */
import { OPEN_END, type VersionRange } from '../../src/kafka/schemas/format.js';
import type { GenField, GenMessage } from './convert.js';

function rangeText(r: VersionRange): string {
  if (r[1] === OPEN_END) return `${r[0]}+`;
  return r[0] === r[1] ? `${r[0]}` : `${r[0]}-${r[1]}`;
}

function rangeLiteral(r: VersionRange): string {
  return `[${r[0]}, ${r[1] === OPEN_END ? 'N' : r[1]}]`;
}

function valueLiteral(v: unknown): string {
  return typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v);
}

function schemaField(f: GenField, indent: string): string {
  const parts = [`name: '${f.name}'`, `type: '${f.type}'`];
  if (f.array) parts.push('array: true');
  parts.push(`versions: ${rangeLiteral(f.versions)}`);
  if (f.nullable) parts.push(`nullable: ${rangeLiteral(f.nullable)}`);
  if (f.tagged) parts.push(`tagged: ${rangeLiteral(f.tagged)}`, `tag: ${f.tag}`);
  if (f.default !== undefined) parts.push(`default: ${valueLiteral(f.default)}`);
  if (!f.fields) return `${indent}{ ${parts.join(', ')} },`;
  return [
    `${indent}{ ${parts.join(', ')}, fields: [`,
    ...f.fields.map((c) => schemaField(c, indent + '  ')),
    `${indent}] },`,
  ].join('\n');
}

function tsType(f: GenField): string {
  let t: string;
  switch (f.type) {
    case 'bool': t = 'boolean'; break;
    case 'string': case 'uuid': t = 'string'; break;
    case 'bytes': case 'records': t = 'Buffer'; break;
    case 'struct': t = f.tsName!; break;
    default: t = 'number';
  }
  if (f.array) t += '[]';
  return f.nullable ? `${t} | null` : t;
}

function fieldDoc(f: GenField): string {
  const notes = [`v${rangeText(f.versions)}`];
  if (f.nullable) notes.push(`nullable v${rangeText(f.nullable)}`);
  if (f.tagged) notes.push(`tagged v${rangeText(f.tagged)} (tag ${f.tag})`);
  if (f.default !== undefined) notes.push(`default ${f.default === '' ? "''" : String(f.default)}`);
  if (f.type === 'int64') notes.push('int64');
  else if (f.type === 'uuid') notes.push('uuid');
  else if (f.type === 'records') notes.push('records');
  return notes.join(', ');
}

function interfaces(name: string, fields: readonly GenField[], out: string[]): void {
  out.push(`export interface ${name} {`);
  for (const f of fields) out.push(`  /** ${fieldDoc(f)} */`, `  ${f.name}: ${tsType(f)};`);
  out.push('}', '');
  for (const f of fields) if (f.fields) interfaces(f.tsName!, f.fields, out);
}

export function emitGenerated(messages: readonly GenMessage[], source: string | undefined): string {
  const out: string[] = [
    '/**',
    ' * GENERATED FILE - do not edit by hand.',
    ` * Written by scripts/kafka-schemas/generate.ts from Kafka's JSON message definitions${source ? ` (${source})` : ''}.`,
    ' * Regenerate (from an apache/kafka checkout) with:',
    ' *   npx tsx scripts/kafka-schemas/generate.ts <kafka>/clients/src/main/resources/common/message',
    ' * Versions and APIs Kafka added since those definitions come from scripts/kafka-schemas/later-versions.ts.',
    ' *',
    ' * The schemas are in our own format (./format.ts); the interfaces describe decoded bodies, in',
    ' * which every field is present (fields outside the decoded version hold their defaults).',
    ' */',
    '/* eslint-disable */',
    "import { OPEN_END, type MessageSchema } from './format.js';",
    '',
    '/** Upper end of open version ranges ("N+"). */',
    'const N = OPEN_END;',
    '',
    '/** Kafka api keys of the APIs described here. */',
    'export const ApiKeys = {',
  ];
  for (const m of messages) if (m.kind === 'request') out.push(`  ${m.name.replace(/Request$/, '')}: ${m.apiKey},`);
  out.push('} as const;', '', 'export const messageSchemas: readonly MessageSchema[] = [');
  for (const m of messages) {
    out.push(
      `  { name: '${m.name}', apiKey: ${m.apiKey}, kind: '${m.kind}', validVersions: ${rangeLiteral(m.validVersions)}, flexibleFrom: ${m.flexibleFrom}, fields: [`,
      ...m.fields.map((f) => schemaField(f, '    ')),
      '  ] },',
    );
  }
  out.push('];', '');
  for (const m of messages) interfaces(m.name, m.fields, out);
  for (const kind of ['request', 'response'] as const) {
    out.push(`/** ${kind === 'request' ? 'Request' : 'Response'} body type by api key. */`);
    out.push(`export interface ${kind === 'request' ? 'Request' : 'Response'}Bodies {`);
    for (const m of messages) if (m.kind === kind) out.push(`  ${m.apiKey}: ${m.name};`);
    out.push('}', '');
  }
  return out.join('\n');
}
