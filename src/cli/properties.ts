/**
 * Java .properties files, the format of Kafka's client config files (`--producer.config
 * client.properties`): `key=value`, `key: value` or `key value` per line; `#` and `!` start a
 * comment line; a line ending in an odd number of backslashes goes on on the next line (whose
 * leading blanks are dropped); \t \n \r \f and \uXXXX are escapes, and a backslash before any
 * other character stands for that character (`a\=b=c` is key `a=b`). A later line setting the
 * same key wins, as in java.util.Properties.
 */
import fs from 'node:fs';
import { UsageError } from './errors.js';

const BLANK = new Set([' ', '\t', '\f']);

/** The natural lines of `text` joined into logical lines (continuations resolved, escapes kept). */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let pending: string | null = null;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    let line: string = pending === null ? raw : raw.replace(/^[ \t\f]+/, '');
    if (pending === null) {
      const trimmed = line.replace(/^[ \t\f]+/, '');
      if (trimmed === '' || trimmed[0] === '#' || trimmed[0] === '!') continue;
      line = trimmed;
    }
    let slashes = 0;
    for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) slashes++;
    if (slashes % 2 === 1) {
      pending = (pending ?? '') + line.slice(0, -1);
      continue;
    }
    out.push((pending ?? '') + line);
    pending = null;
  }
  if (pending !== null) out.push(pending);
  return out;
}

/** Resolves the escapes of a key or value; `where` names the line in an error. */
function unescape(s: string, where: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\' || i === s.length - 1) {
      out += c;
      continue;
    }
    const e = s[++i]!;
    if (e === 'u') {
      const hex = s.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Error(`${where}: malformed \\u escape '\\u${hex}'`);
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else out += { t: '\t', n: '\n', r: '\r', f: '\f' }[e] ?? e;
  }
  return out;
}

/** The key/value pairs of a .properties text (throws on a malformed \u escape, naming its line). */
export function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [n, line] of logicalLines(text).entries()) {
    let i = 0;
    // the key ends at the first unescaped '=', ':' or blank
    while (i < line.length) {
      const c = line[i]!;
      if (c === '\\') i += 2;
      else if (c === '=' || c === ':' || BLANK.has(c)) break;
      else i++;
    }
    const keyEnd = Math.min(i, line.length);
    while (i < line.length && BLANK.has(line[i]!)) i++;
    if (i < line.length && (line[i] === '=' || line[i] === ':')) i++;
    while (i < line.length && BLANK.has(line[i]!)) i++;
    const where = `entry ${n + 1}`;
    out[unescape(line.slice(0, keyEnd), where)] = unescape(line.slice(i), where);
  }
  return out;
}

/**
 * The configs of the .properties file given to `--<option>`; a missing or unreadable file, or
 * one that does not parse, is a usage error naming the option and the file.
 */
export function readPropertiesFile(option: string, file: string): Record<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`--${option} ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : (e as Error).message}`);
  }
  try {
    return parseProperties(text);
  } catch (e) {
    throw new UsageError(`--${option} ${file}: ${(e as Error).message}`);
  }
}
