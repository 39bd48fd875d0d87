/**
 * Writes src/kafka/schemas/generated.ts from Kafka's published JSON message definitions
 * (clients/src/main/resources/common/message in an apache/kafka checkout):
 *
 *   npx tsx scripts/kafka-schemas/generate.ts <dir-with-the-message-json-files> [--source <label>] [--out <file>]
 *
 * For each API listed in API_KEYS it reads the request and response definitions and emits our
 * own compact description of them (src/kafka/schemas/format.ts: camelCase names, types, version
 * ranges, nullable and tagged ranges, tags, explicit defaults) plus a TypeScript interface for
 * every request/response body and nested struct, and maps from api key to those bodies.
 * Versions Kafka added since those definitions are laid over them from ./later-versions.ts, and
 * APIs it added since that the definitions lack are taken from there too (LATER_APIS).
 * `--source` is a free-form label (e.g. "apache/kafka@<commit>") recorded in the header.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSchemaFile, type RawMessage } from './parse.js';
import { convertMessage } from './convert.js';
import { emitGenerated } from './emit.js';
import { LATER_APIS, withLaterVersions } from './later-versions.js';

/** The APIs we generate, by Kafka api key. */
export const API_KEYS: readonly number[] = [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 55, 57, 60, 61, 64, 65, 66, 68, 69, 71, 72, 74, 75, 76, 77, 78, 79, 80, 81, 90, 91, 92];

function usage(): never {
  process.stderr.write(
    'usage: npx tsx scripts/kafka-schemas/generate.ts <dir-with-kafka-message-json> [--source <label>] [--out <file>]\n',
  );
  process.exit(2);
}

function main(argv: readonly string[]): void {
  let dir: string | undefined;
  let source: string | undefined;
  let out = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/kafka/schemas/generated.ts');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--source') source = argv[++i] ?? usage();
    else if (arg === '--out') out = resolve(argv[++i] ?? usage());
    else if (arg.startsWith('-')) usage();
    else if (dir === undefined) dir = arg;
    else usage();
  }
  if (dir === undefined) usage();

  const wanted = new Set(API_KEYS);
  const found: RawMessage[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.json')) continue;
    const raw = parseSchemaFile(readFileSync(join(dir, file), 'utf8'), file);
    if ((raw.type === 'request' || raw.type === 'response') && raw.apiKey !== undefined && wanted.has(raw.apiKey)) {
      found.push(withLaterVersions(raw));
    }
  }
  for (const raw of LATER_APIS) {
    if (wanted.has(raw.apiKey!) && !found.some((m) => m.apiKey === raw.apiKey && m.type === raw.type)) found.push(withLaterVersions(raw));
  }
  for (const key of API_KEYS) {
    for (const kind of ['request', 'response']) {
      if (!found.some((m) => m.apiKey === key && m.type === kind)) {
        throw new Error(`no ${kind} definition for api key ${key} in ${dir}`);
      }
    }
  }
  found.sort((a, b) => a.apiKey! - b.apiKey! || (a.type === 'request' ? -1 : 1));
  const messages = found.map(convertMessage);
  writeFileSync(out, emitGenerated(messages, source));
  process.stderr.write(`wrote ${messages.length} message schemas to ${out}\n`);
}

main(process.argv.slice(2));
