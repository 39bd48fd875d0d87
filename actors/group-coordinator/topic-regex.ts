/**
 * KIP-848's topic regular expressions (ConsumerGroupHeartbeat v1 SubscribedTopicRegex), as
 * Kafka's group coordinator takes them: RE2J syntax, a topic matching when the expression matches
 * its whole name (RE2J's Matcher.matches()). KIP-1152's transactional id patterns (ListTransactions
 * v2, the transaction coordinator's txn-listing.ts) are RE2J expressions matched the same way and
 * compile here too; the limits below made for topic names (ASCII case folding, no Unicode
 * classes, `.` and classes matching one UTF-16 unit) hold for them as well.
 *
 * They run on V8's linear-time engine (the RegExp `l` flag, which this module enables with
 * --enable-experimental-regexp-engine; it changes no other expression), so that no subscription
 * can make the coordinator backtrack for ever: RE2J guarantees linear time too. That engine has
 * neither case folding nor Unicode mode, so RE2J's syntax is translated here into what it runs:
 *   - groups: capturing, (?:...), named (?P<name>...) and (?<name>...), and flag groups (?i),
 *     (?i-s:...) with RE2J's flags i, m, s, U. `i` folds the case of ASCII letters (a topic name
 *     has no other); m, s and U cannot change whether a topic name matches (no line breaks, and
 *     greediness does not decide a whole match) and are taken as such;
 *   - escapes: RE2J's own (\A, \z, \b, \B, \d \s \w and their negations, \a \f \t \n \r \v, octal
 *     \0.., \xHH, \x{H...}, \Q...\E, \C, an escaped punctuation character); any other is RE2J's
 *     "invalid escape sequence";
 *   - character classes with ranges, negation, a leading `]` taken literally and POSIX classes
 *     ([:alpha:], [:^digit:], ...);
 *   - repetition counts up to RE2J's 1000.
 * Refused, as RE2J refuses them: backreferences (\1, \k<name>), lookahead and lookbehind
 * ((?=, (?!, (?<=, (?<!) and any other (?... form, with RE2J's descriptions. Refused although
 * RE2J takes them: Unicode classes (\p{...}, \pN), which no topic name (ASCII letters, digits,
 * '.', '_' and '-') could need.
 */
import v8 from 'node:v8';

export type CompiledTopicRegex = { ok: true; matches(topic: string): boolean } | { ok: false; description: string };

/** Kafka's message for an expression RE2J does not compile. */
export function invalidRegexMessage(regex: string, description: string): string {
  return `SubscribedTopicRegex \`${regex}\` is not a valid regular expression: ${description}.`;
}

function linearEngine(): boolean {
  try {
    v8.setFlagsFromString('--enable-experimental-regexp-engine');
    new RegExp('a', 'l');
    return true;
  } catch {
    return false;
  }
}

const LINEAR = linearEngine();

/** RE2J's largest repetition count. */
const MAX_REPEAT = 1000;

class RegexSyntaxError extends Error {}

function fail(description: string): never {
  throw new RegexSyntaxError(description);
}

const hex4 = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
const isAsciiLetter = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const otherCase = (code: number) => (code >= 0x61 ? code - 0x20 : code + 0x20);

/** One character, for the engine, outside a class (case folded when `ci`). */
function literal(code: number, ci: boolean): string {
  if (ci && isAsciiLetter(code)) return `[${hex4(code)}${hex4(otherCase(code))}]`;
  if (code <= 0xffff) return hex4(code);
  const c = code - 0x10000;
  return `(?:${hex4(0xd800 + (c >> 10))}${hex4(0xdc00 + (c & 0x3ff))})`;
}

/** POSIX classes as RE2J knows them, as code point ranges. */
const POSIX: Readonly<Record<string, readonly [number, number][]>> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x00, 0x7f]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
  cntrl: [[0x00, 0x1f], [0x7f, 0x7f]],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x09, 0x0d], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  word: [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]],
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};

/** The code points of [0, 0xFFFF] outside `ranges` (sorted, disjoint). */
function complement(ranges: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0xffff) out.push([next, 0xffff]);
  return out;
}

/**
 * A translator of one RE2J expression. `i` is the position read; `ci` whether case folding is
 * on; each open group remembers the folding to restore when it closes.
 */
class Translator {
  private i = 0;
  private ci = false;
  private readonly groups: boolean[] = [];
  private readonly names = new Set<string>();

  constructor(private readonly p: string) {}

  translate(): string {
    let out = '';
    while (this.i < this.p.length) {
      const c = this.p[this.i]!;
      if (c === '\\') out += this.escape();
      else if (c === '[') out += this.charClass();
      else if (c === '(') out += this.openGroup();
      else if (c === ')') {
        if (this.groups.length === 0) fail('unexpected )');
        this.ci = this.groups.pop()!;
        this.i++;
        out += ')';
      } else if (c === '{') out += this.braces();
      else if (c === '.' || c === '|' || c === '*' || c === '+' || c === '?' || c === '^' || c === '$') {
        this.i++;
        out += c;
      } else {
        const code = this.p.codePointAt(this.i)!;
        this.i += code > 0xffff ? 2 : 1;
        out += literal(code, this.ci);
      }
    }
    if (this.groups.length > 0) fail('missing closing )');
    return out;
  }

  /** `{n}`, `{n,}`, `{n,m}` repeat (counts checked as RE2J), anything else a literal brace. */
  private braces(): string {
    const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.p.slice(this.i));
    this.i++;
    if (!m) return '\\{';
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
    if (min > MAX_REPEAT || max > MAX_REPEAT || (max !== -1 && max < min)) fail('invalid repeat count');
    this.i += m[0].length - 1;
    return m[0];
  }

  private openGroup(): string {
    const rest = this.p.slice(this.i + 1);
    if (!rest.startsWith('?')) {
      this.groups.push(this.ci);
      this.i++;
      return '(';
    }
    const named = /^\?P?<([^>]*)>/.exec(rest);
    if (named && !/^<[=!]/.test(rest.slice(1))) {
      const name = named[1]!;
      if (!/^[A-Za-z0-9_]+$/.test(name)) fail('invalid named capture');
      if (this.names.has(name)) fail('duplicate capture group name');
      this.names.add(name);
      this.groups.push(this.ci);
      this.i += 1 + named[0].length;
      return '(?:';
    }
    const flags = /^\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
    if (!flags || (flags[1] === '' && (flags[2] ?? '') === '') || flags[2] === '') fail('invalid or unsupported Perl syntax');
    let ci = this.ci;
    if (flags[1]!.includes('i')) ci = true;
    if ((flags[2] ?? '').includes('i')) ci = false;
    this.i += 1 + flags[0].length;
    if (flags[3] === ')') {
      // (?flags): in force to the end of the enclosing group
      this.ci = ci;
      return '';
    }
    this.groups.push(this.ci);
    this.ci = ci;
    return '(?:';
  }

  /** A code point given by an escape that names one (octal, hex, the control letters), or null. */
  private escapedCode(c: string): number | null {
    const p = this.p;
    switch (c) {
      case 'a':
        return 0x07;
      case 'f':
        return 0x0c;
      case 't':
        return 0x09;
      case 'n':
        return 0x0a;
      case 'r':
        return 0x0d;
      case 'v':
        return 0x0b;
      case '0': {
        const m = /^[0-7]{0,2}/.exec(p.slice(this.i))!;
        this.i += m[0].length;
        return parseInt(`0${m[0]}`, 8);
      }
      case 'x': {
        if (p[this.i] === '{') {
          const m = /^\{([0-9A-Fa-f]+)\}/.exec(p.slice(this.i));
          if (!m || parseInt(m[1]!, 16) > 0x10ffff) fail('invalid escape sequence');
          this.i += m[0].length;
          return parseInt(m[1]!, 16);
        }
        const m = /^[0-9A-Fa-f]{2}/.exec(p.slice(this.i));
        if (!m) fail('invalid escape sequence');
        this.i += 2;
        return parseInt(m[0], 16);
      }
      default: {
        const code = c.codePointAt(0)!;
        // an escaped punctuation character stands for itself
        if (code < 0x80 && !/[A-Za-z0-9]/.test(c)) return code;
        return null;
      }
    }
  }

  /** An escape outside a class; `this.i` is at the backslash. */
  private escape(): string {
    const c = this.p[this.i + 1];
    if (c === undefined) fail('trailing backslash at end of expression');
    this.i += 2;
    switch (c) {
      case 'A':
        return '^';
      case 'z':
        return '$';
      case 'b':
      case 'B':
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W':
        return `\\${c}`;
      case 'C':
        return '[\\s\\S]';
      case 'Q': {
        const end = this.p.indexOf('\\E', this.i);
        const quoted = end === -1 ? this.p.slice(this.i) : this.p.slice(this.i, end);
        this.i = end === -1 ? this.p.length : end + 2;
        return [...quoted].map((ch) => literal(ch.codePointAt(0)!, this.ci)).join('');
      }
      case 'p':
      case 'P':
        fail('Unicode character classes are not supported');
    }
    const code = this.escapedCode(c);
    if (code === null) fail('invalid escape sequence');
    return literal(code, this.ci);
  }

  /** A character class; `this.i` is at its `[`. */
  private charClass(): string {
    const p = this.p;
    this.i++;
    let negate = false;
    if (p[this.i] === '^') {
      negate = true;
      this.i++;
    }
    const ranges: [number, number][] = [];
    const perl: string[] = [];
    let first = true;
    for (;;) {
      if (this.i >= p.length) fail('missing closing ]');
      if (p[this.i] === ']' && !first) break;
      first = false;
      if (p.startsWith('[:', this.i)) {
        const end = p.indexOf(':]', this.i + 2);
        const name = end === -1 ? '' : p.slice(this.i + 2, end);
        const neg = name.startsWith('^');
        const table = POSIX[neg ? name.slice(1) : name];
        if (table) {
          ranges.push(...(neg ? complement(table) : table));
          this.i = end + 2;
          continue;
        }
        if (/^\^?[a-z]+$/.test(name)) fail('invalid character class range');
      }
      const lo = this.classAtom();
      if (typeof lo === 'string') {
        perl.push(lo);
        continue;
      }
      if (p[this.i] === '-' && p[this.i + 1] !== ']' && this.i + 1 < p.length) {
        this.i++;
        const hi = this.classAtom();
        if (typeof hi === 'string' || hi < lo) fail('invalid character class range');
        ranges.push([lo, hi]);
      } else {
        ranges.push([lo, lo]);
      }
    }
    this.i++;
    const parts: string[] = [...perl];
    for (const [lo, hi] of ranges) {
      // a topic name is ASCII: what lies beyond the engine's 16-bit class units can never match one
      if (lo > 0xffff) continue;
      const top = Math.min(hi, 0xffff);
      parts.push(lo === top ? hex4(lo) : `${hex4(lo)}-${hex4(top)}`);
      if (this.ci) {
        for (const [a, z] of [[0x41, 0x5a], [0x61, 0x7a]] as const) {
          const from = Math.max(lo, a);
          const to = Math.min(top, z);
          if (from <= to) parts.push(`${hex4(otherCase(from))}-${hex4(otherCase(to))}`);
        }
      }
    }
    if (parts.length === 0) return negate ? '[\\s\\S]' : '[^\\s\\S]';
    return `[${negate ? '^' : ''}${parts.join('')}]`;
  }

  /** A class member: a code point, or a Perl class (\d, ...) as the engine writes it. */
  private classAtom(): number | string {
    const p = this.p;
    if (p[this.i] !== '\\') {
      const code = p.codePointAt(this.i)!;
      this.i += code > 0xffff ? 2 : 1;
      return code;
    }
    const c = p[this.i + 1];
    if (c === undefined) fail('trailing backslash at end of expression');
    this.i += 2;
    if ('dDsSwW'.includes(c)) return `\\${c}`;
    if (c === 'p' || c === 'P') fail('Unicode character classes are not supported');
    const code = this.escapedCode(c);
    if (code === null) fail('invalid escape sequence');
    return code;
  }
}

/** The engine's own complaints, in RE2J's words where they mean the same. */
function engineDescription(message: string): string {
  const what = message.slice(message.lastIndexOf(': ') + 2);
  switch (what) {
    case 'Nothing to repeat':
      return 'missing argument to repetition operator';
    case 'numbers out of order in {} quantifier':
      return 'invalid repeat count';
    case 'Cannot be executed in linear time':
      // the translation leaves no lookaround nor backreference: the program is too large
      return 'expression too large';
    default:
      return what;
  }
}

/** Compiles a topic regular expression (not the empty string: that means none). */
export function compileTopicRegex(regex: string): CompiledTopicRegex {
  let source: string;
  try {
    source = new Translator(regex).translate();
  } catch (err) {
    if (err instanceof RegexSyntaxError) return { ok: false, description: err.message };
    throw err;
  }
  if (!LINEAR) return { ok: false, description: 'this runtime has no linear-time regular expression engine' };
  try {
    const re = new RegExp(`^(?:${source})$`, 'l');
    return { ok: true, matches: (topic) => re.test(topic) };
  } catch (err) {
    return { ok: false, description: engineDescription((err as Error).message) };
  }
}
