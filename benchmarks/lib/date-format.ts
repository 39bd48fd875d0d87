/**
 * kafka-consumer-perf-test's --date-format: times printed by a java.text.SimpleDateFormat
 * pattern, in local time. `compileDateFormat(pattern)` checks the pattern once and returns the
 * formatter; a pattern letter it does not know (or one that needs Java's calendar data: era,
 * week numbers, time zone names) is a DateFormatError naming it.
 *
 * Letters, as SimpleDateFormat reads them (n = how many times the letter repeats):
 *   y year (yy: its last two digits; else padded to n)   M, L month (n <= 2: number; 3: Jan; 4+: January)
 *   d day of month    D day of year    E day name (n <= 3: Mon; 4+: Monday)    u day of week (1 = Monday)
 *   a AM/PM    H hour 0-23    k hour 1-24    K hour 0-11    h hour 1-12    m minute    s second
 *   S millisecond    Z offset -0800    X offset -08 / -0800 / -08:00 (n = 1 / 2 / 3; Z for UTC)
 * Numbers are zero-padded to n digits. Text in single quotes is copied as it is, '' is a quote,
 * and anything else that is not a letter a-z or A-Z is copied.
 */

export const KAFKA_DATE_FORMAT = 'yyyy-MM-dd HH:mm:ss:SSS';

export class DateFormatError extends Error {
  constructor(pattern: string, why: string) {
    super(`date format ${JSON.stringify(pattern)}: ${why}`);
    this.name = 'DateFormatError';
  }
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Letters SimpleDateFormat knows that this formatter leaves out, with why. */
const NOT_SUPPORTED: Record<string, string> = {
  G: 'era',
  Y: 'week year',
  w: 'week in year',
  W: 'week in month',
  F: 'day of week in month',
  z: 'time zone name',
};

type Part = (d: Date) => string;

const pad = (v: number, n: number): string => String(v).padStart(n, '0');

function offset(d: Date, colon: boolean, minutes: boolean): string {
  const off = -d.getTimezoneOffset();
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  const hh = pad(Math.floor(a / 60), 2);
  if (!minutes) return `${sign}${hh}`;
  return `${sign}${hh}${colon ? ':' : ''}${pad(a % 60, 2)}`;
}

function field(letter: string, n: number, pattern: string): Part {
  switch (letter) {
    case 'y':
      return n === 2 ? (d) => pad(d.getFullYear() % 100, 2) : (d) => pad(d.getFullYear(), n);
    case 'M':
    case 'L':
      if (n >= 4) return (d) => MONTHS[d.getMonth()]!;
      if (n === 3) return (d) => MONTHS[d.getMonth()]!.slice(0, 3);
      return (d) => pad(d.getMonth() + 1, n);
    case 'd':
      return (d) => pad(d.getDate(), n);
    case 'D':
      return (d) => pad(Math.round((new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() - new Date(d.getFullYear(), 0, 1).getTime()) / 86_400_000) + 1, n);
    case 'E':
      return n >= 4 ? (d) => DAYS[d.getDay()]! : (d) => DAYS[d.getDay()]!.slice(0, 3);
    case 'u':
      return (d) => pad(d.getDay() === 0 ? 7 : d.getDay(), n);
    case 'a':
      return (d) => (d.getHours() < 12 ? 'AM' : 'PM');
    case 'H':
      return (d) => pad(d.getHours(), n);
    case 'k':
      return (d) => pad(d.getHours() === 0 ? 24 : d.getHours(), n);
    case 'K':
      return (d) => pad(d.getHours() % 12, n);
    case 'h':
      return (d) => pad(d.getHours() % 12 === 0 ? 12 : d.getHours() % 12, n);
    case 'm':
      return (d) => pad(d.getMinutes(), n);
    case 's':
      return (d) => pad(d.getSeconds(), n);
    case 'S':
      return (d) => pad(d.getMilliseconds(), n);
    case 'Z':
      return (d) => offset(d, false, true);
    case 'X':
      if (n > 3) throw new DateFormatError(pattern, `X repeats at most 3 times, got ${n}`);
      return (d) => (d.getTimezoneOffset() === 0 ? 'Z' : offset(d, n === 3, n >= 2));
    default: {
      const why = NOT_SUPPORTED[letter];
      throw new DateFormatError(pattern, why ? `pattern letter '${letter}' (${why}) is not supported` : `unknown pattern letter '${letter}'`);
    }
  }
}

/** The formatter for `pattern` (epoch ms -> text, local time). Throws a DateFormatError for a pattern it cannot print. */
export function compileDateFormat(pattern: string): (epochMs: number) => string {
  const parts: (string | Part)[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        parts.push("'");
        i += 2;
        continue;
      }
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= pattern.length) throw new DateFormatError(pattern, `unterminated quote at ${i}`);
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") {
            text += "'";
            j += 2;
            continue;
          }
          break;
        }
        text += pattern[j];
        j++;
      }
      parts.push(text);
      i = j + 1;
    } else if (/[a-zA-Z]/.test(c)) {
      let n = 1;
      while (pattern[i + n] === c) n++;
      parts.push(field(c, n, pattern));
      i += n;
    } else {
      parts.push(c);
      i++;
    }
  }
  return (epochMs) => {
    const d = new Date(epochMs);
    let out = '';
    for (const p of parts) out += typeof p === 'string' ? p : p(d);
    return out;
  };
}
