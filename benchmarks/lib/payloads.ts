/**
 * Record values from a file, as kafka-producer-perf-test's --payload-file: the file is split at a
 * delimiter (a newline unless told otherwise) and each record takes one of the pieces at random,
 * so a run carries real data (and compresses like it) instead of one synthetic value.
 */
import fs from 'node:fs';
import { UsageError } from '../../src/cli/errors.js';

/** The delimiter as typed on a command line: \n, \r, \t and \\ stand for those characters. */
export function parseDelimiter(text: string): string {
  const d = text.replace(/\\(.)/g, (m, c: string) => ({ n: '\n', r: '\r', t: '\t', '\\': '\\' })[c] ?? m);
  if (d === '') throw new UsageError('--payload-delimiter cannot be empty');
  return d;
}

/** The non-empty pieces of `data` between delimiters. */
export function splitPayloads(data: Buffer, delimiter: string): Buffer[] {
  const sep = Buffer.from(delimiter, 'utf8');
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const next = data.indexOf(sep, at);
    const end = next < 0 ? data.length : next;
    if (end > at) out.push(data.subarray(at, end));
    if (next < 0) return out;
    at = next + sep.length;
  }
}

/** Reads a payload file; a missing, unreadable or empty one is a usage error naming it. */
export function readPayloadFile(file: string, delimiter: string): Buffer[] {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (e) {
    throw new UsageError(`--payload-file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const payloads = splitPayloads(data, delimiter);
  if (payloads.length === 0) throw new UsageError(`--payload-file ${file}: no payloads in it (empty, or only delimiters)`);
  return payloads;
}

/** Picks a payload at random for each record and counts the bytes handed out. */
export class PayloadPicker {
  bytes = 0;
  constructor(private readonly payloads: readonly Buffer[]) {}

  readonly next = (): Buffer => {
    const v = this.payloads[Math.floor(Math.random() * this.payloads.length)]!;
    this.bytes += v.length;
    return v;
  };

  /** Mean payload size in bytes. */
  meanSize(): number {
    return this.payloads.reduce((n, p) => n + p.length, 0) / this.payloads.length;
  }

  /** Starts counting bytes afresh. */
  resetCounts(): void {
    this.bytes = 0;
  }
}

/**
 * kafka-producer-perf-test's --payload-monotonic: each record's value is its number, counting up
 * from 0 across the run (the warm-up included), as decimal text; counts the bytes handed out.
 */
export class MonotonicPayloads {
  bytes = 0;
  private handedOut = 0;
  private n = 0;

  readonly next = (): Buffer => {
    const v = Buffer.from(String(this.n++), 'latin1');
    this.bytes += v.length;
    this.handedOut++;
    return v;
  };

  /** Mean size of the values handed out since the counts were last reset (the next one's before any). */
  meanSize(): number {
    return this.handedOut > 0 ? this.bytes / this.handedOut : String(this.n).length;
  }

  /** Starts counting bytes afresh (the numbers go on). */
  resetCounts(): void {
    this.bytes = 0;
    this.handedOut = 0;
  }
}
