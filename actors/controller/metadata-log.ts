/**
 * Durability of the controller's metadata: an append-only file of record batches in the
 * controller's metadata dir, replayed when the controller starts.
 *
 * Format: one line per batch, `<crc32c of the JSON, 8 hex digits> <JSON>\n`, the JSON being
 * `{"term":T,"records":[...]}`: the records of one controller operation, and the quorum term in
 * which its leader wrote it (a batch is one Raft entry; its index is its line number, from 1).
 * A bare JSON array of records is a batch of term 0, as logs written before the quorum have them.
 * Replay never sees half of a batch. Every append is fsynced before it resolves (the controller
 * replies only after that). A follower whose log diverged from its leader's drops the batches
 * after the last one they share (`truncateTo`). Once a snapshot holds the batches up to an index
 * (metadata-snapshot.ts), `compactTo` rewrites the file without them: it then starts with a line
 * `{"start":I,"term":T}` saying that its first batch is index I + 1 and that batch I had term T.
 *
 * Replay: a last line without its newline, or a last line whose checksum or JSON is bad, is a
 * torn write: it is dropped and the file truncated to the last good batch. A bad line followed by
 * good ones is corruption: opening fails with `MetadataLogCorruptError` naming the byte offset.
 *
 * Log states: Open --(append fails and the file is restored to its last good length)--> Open;
 * Open --(append fails and the file cannot be restored)--> Failed (every append refused);
 * Open | Failed --close()--> Closed.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { crc32c } from '../../src/protocol/crc32c.js';
import { writeFileAtomic } from '../../src/storage/checkpoint.js';
import type { MetadataRecord } from './metadata-state.js';

export const METADATA_LOG_FILE = 'controller-metadata.log';

export const MetadataLogState = Object.freeze({
  Open: 'Open',
  Failed: 'Failed',
  Closed: 'Closed',
} as const);
export type MetadataLogState = (typeof MetadataLogState)[keyof typeof MetadataLogState];

export class MetadataLogError extends Error {
  override readonly name = 'MetadataLogError';
}

export class MetadataLogCorruptError extends Error {
  override readonly name = 'MetadataLogCorruptError';
  constructor(
    readonly file: string,
    readonly offset: number,
    message: string,
  ) {
    super(`${file}: corrupt batch at byte ${offset}: ${message}`);
  }
}

/** One batch as the quorum replicates it. */
export interface MetadataEntry {
  readonly term: number;
  readonly records: MetadataRecord[];
}

/** Where a log starts: after batch `index`, of term `term` (0 and 0 for a log never compacted). */
export interface LogStart {
  readonly index: number;
  readonly term: number;
}

export interface ReplayResult {
  /** The batch the log starts after. */
  readonly start: LogStart;
  /** Every record of every good batch, in order. */
  readonly records: MetadataRecord[];
  /** Every good batch, in order, with its term. */
  readonly entries: MetadataEntry[];
  readonly batches: number;
  /** Bytes of a torn tail that were dropped (0 when the file was clean). */
  readonly truncatedBytes: number;
}

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/**
 * Why `value` would not come back from the log as it went in, or null: a line is JSON, which
 * holds null, booleans, finite numbers, strings, lists and plain objects (a field left undefined
 * is left out). A message from another node can carry more (msgpack's 64-bit integers, bytes,
 * timestamps), which must not reach the log. Walks without recursion, however deep the value.
 */
export function notJsonSafe(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `the number ${v}`;
      continue;
    }
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    if (typeof v === 'object') {
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return `a ${(v as object).constructor?.name ?? 'non-plain object'}`;
      for (const x of Object.values(v)) if (x !== undefined) stack.push(x);
      continue;
    }
    return `a ${typeof v}`;
  }
  return null;
}

/** Encodes one batch as its line (term 0 as a bare array, the format before the quorum). */
export function encodeBatch(records: readonly MetadataRecord[], term = 0): Uint8Array {
  const json = term === 0 ? JSON.stringify(records) : JSON.stringify({ term, records });
  const body = encoder.encode(json);
  const line = encoder.encode(`${hex8(crc32c(body))} ${json}\n`);
  return line;
}

function encodeLine(json: string): Uint8Array {
  const body = encoder.encode(json);
  return encoder.encode(`${hex8(crc32c(body))} ${json}\n`);
}

/** The start line of a compacted log. */
export function encodeStart(start: LogStart): Uint8Array {
  return encodeLine(JSON.stringify({ start: start.index, term: start.term }));
}

/** Decodes one line (without its newline); returns the records, a start line, or why it is bad. */
export function decodeBatch(line: Uint8Array): { records: MetadataRecord[]; term: number } | { start: LogStart } | { error: string } {
  if (line.length < 10 || line[8] !== 0x20) return { error: 'missing checksum prefix' };
  let prefix: string;
  try {
    prefix = decoder.decode(line.subarray(0, 8));
  } catch {
    return { error: 'checksum prefix is not text' };
  }
  if (!/^[0-9a-f]{8}$/.test(prefix)) return { error: 'malformed checksum prefix' };
  const body = line.subarray(9);
  if (hex8(crc32c(body)) !== prefix) return { error: 'checksum mismatch' };
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(body));
  } catch (err) {
    return { error: `bad JSON: ${(err as Error).message}` };
  }
  let term = 0;
  if (!Array.isArray(value)) {
    const v = value as { term?: unknown; records?: unknown; start?: unknown } | null;
    if (typeof v === 'object' && v !== null && v.start !== undefined) {
      if (!Number.isSafeInteger(v.start) || (v.start as number) < 0 || !Number.isSafeInteger(v.term) || (v.term as number) < 0) return { error: 'malformed start line' };
      return { start: { index: v.start as number, term: v.term as number } };
    }
    if (typeof v !== 'object' || v === null || !Number.isSafeInteger(v.term) || (v.term as number) < 0) return { error: 'not a batch of records' };
    term = v.term as number;
    value = v.records;
  }
  if (!Array.isArray(value) || value.some((r) => typeof r !== 'object' || r === null || typeof (r as { type?: unknown }).type !== 'string')) {
    return { error: 'not an array of records' };
  }
  return { records: value as MetadataRecord[], term };
}

/** Parses a whole file; `validLength` is where the good batches end. Throws on mid-file corruption. */
export function parseLog(file: string, bytes: Uint8Array): ReplayResult & { validLength: number; ends: number[]; headerLength: number } {
  const records: MetadataRecord[] = [];
  const entries: MetadataEntry[] = [];
  const ends: number[] = [];
  let batches = 0;
  let pos = 0;
  let start: LogStart = { index: 0, term: 0 };
  let headerLength = 0;
  while (pos < bytes.length) {
    const nl = bytes.indexOf(NEWLINE, pos);
    if (nl < 0) break; // torn: the last line never got its newline
    const decoded = decodeBatch(bytes.subarray(pos, nl));
    if ('error' in decoded) {
      if (nl + 1 >= bytes.length) break; // the last line is bad: a torn write
      throw new MetadataLogCorruptError(file, pos, decoded.error);
    }
    if ('start' in decoded) {
      if (pos !== 0) throw new MetadataLogCorruptError(file, pos, 'a start line after the first line');
      start = decoded.start;
      pos = nl + 1;
      headerLength = pos;
      continue;
    }
    for (const r of decoded.records) records.push(r);
    entries.push({ term: decoded.term, records: decoded.records });
    batches++;
    pos = nl + 1;
    ends.push(pos);
  }
  return { start, records, entries, batches, truncatedBytes: bytes.length - pos, validLength: pos, ends, headerLength };
}

export class MetadataLog {
  private state: MetadataLogState = MetadataLogState.Open;

  private constructor(
    readonly file: string,
    private fh: fsp.FileHandle,
    private size: number,
    /** Where each batch ends in the file (for truncation). */
    private ends: number[],
    /** Bytes of the start line (0: none). */
    private headerLength: number,
    private startAt: LogStart,
  ) {}

  /** Batches in the log (after its start). */
  get entryCount(): number {
    return this.ends.length;
  }

  /** The batch the log starts after. */
  get start(): LogStart {
    return this.startAt;
  }

  get status(): MetadataLogState {
    return this.state;
  }

  /** Bytes of good batches in the file. */
  get length(): number {
    return this.size;
  }

  /**
   * Opens (creating it and its directory when needed) the metadata log in `dir`, replays it,
   * and drops a torn tail. Throws MetadataLogCorruptError for corruption before the tail.
   */
  static async open(dir: string): Promise<{ log: MetadataLog; replay: ReplayResult }> {
    await fsp.mkdir(dir, { recursive: true });
    const file = path.join(dir, METADATA_LOG_FILE);
    let bytes: Uint8Array;
    let created = false;
    try {
      bytes = await fsp.readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      bytes = new Uint8Array(0);
      created = true;
    }
    const parsed = parseLog(file, bytes);
    const fh = await fsp.open(file, 'a+');
    try {
      if (parsed.truncatedBytes > 0) {
        await fh.truncate(parsed.validLength);
        await fh.sync();
      }
      if (created) await syncDir(dir);
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    const { start, records, entries, batches, truncatedBytes } = parsed;
    return { log: new MetadataLog(file, fh, parsed.validLength, parsed.ends, parsed.headerLength, start), replay: { start, records, entries, batches, truncatedBytes } };
  }

  /**
   * Appends one batch and fsyncs it. Throws MetadataLogError when it could not be made durable;
   * the file is then restored to its previous length (or the log turns Failed).
   */
  async append(records: readonly MetadataRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.appendEntries([{ term: 0, records: [...records] }]);
  }

  /**
   * Appends batches with their terms (an empty one too: a new quorum leader's first entry) and
   * fsyncs them once. Throws MetadataLogError as `append` does.
   */
  async appendEntries(entries: readonly MetadataEntry[]): Promise<void> {
    if (this.state !== MetadataLogState.Open) throw new MetadataLogError(`metadata log ${this.file} is ${this.state}`);
    if (entries.length === 0) return;
    const lines = entries.map((e) => encodeBatch(e.records, e.term));
    const line = lines.length === 1 ? lines[0]! : Buffer.concat(lines);
    try {
      let written = 0;
      while (written < line.length) {
        const { bytesWritten } = await this.fh.write(line, written, line.length - written);
        if (bytesWritten <= 0) throw new Error('write made no progress');
        written += bytesWritten;
      }
      await this.fh.datasync();
      let end = this.size;
      for (const l of lines) this.ends.push((end += l.length));
      this.size += line.length;
    } catch (err) {
      const why = (err as Error).message;
      try {
        await this.fh.truncate(this.size);
      } catch {
        this.state = MetadataLogState.Failed;
      }
      throw new MetadataLogError(`append to ${this.file} failed: ${why}`);
    }
  }

  /** Keeps the first `count` batches (after the start) and drops the rest, durably. */
  async truncateTo(count: number): Promise<void> {
    if (this.state !== MetadataLogState.Open) throw new MetadataLogError(`metadata log ${this.file} is ${this.state}`);
    if (count >= this.ends.length) return;
    const length = count <= 0 ? this.headerLength : this.ends[count - 1]!;
    try {
      await this.fh.truncate(length);
      await this.fh.sync();
    } catch (err) {
      this.state = MetadataLogState.Failed;
      throw new MetadataLogError(`truncating ${this.file} failed: ${(err as Error).message}`);
    }
    this.ends.length = Math.max(0, count);
    this.size = length;
  }

  /**
   * Drops the batches up to absolute index `to.index` (a snapshot holds them): the file is
   * rewritten as a start line and the batches after it, fsynced, and renamed over the old one,
   * so a crash leaves the old file or the new. With `to.index` past the end, the log is emptied
   * and starts there.
   */
  async compactTo(to: LogStart): Promise<void> {
    if (this.state !== MetadataLogState.Open) throw new MetadataLogError(`metadata log ${this.file} is ${this.state}`);
    const drop = to.index - this.startAt.index;
    if (drop <= 0) return;
    const keepFrom = drop >= this.ends.length ? this.size : this.ends[drop - 1]!;
    const rest = keepFrom < this.size ? await readRange(this.fh, keepFrom, this.size - keepFrom) : new Uint8Array(0);
    const header = encodeStart(to);
    try {
      await writeFileAtomic(this.file, Buffer.concat([header, rest]));
    } catch (err) {
      throw new MetadataLogError(`compacting ${this.file} failed: ${(err as Error).message}`);
    }
    const old = this.fh;
    this.fh = await fsp.open(this.file, 'a+');
    await old.close().catch(() => undefined);
    const shift = keepFrom - header.length;
    this.ends = drop >= this.ends.length ? [] : this.ends.slice(drop).map((e) => e - shift);
    this.size = header.length + rest.length;
    this.headerLength = header.length;
    this.startAt = to;
  }

  async close(): Promise<void> {
    if (this.state === MetadataLogState.Closed) return;
    this.state = MetadataLogState.Closed;
    await this.fh.close();
  }
}

async function readRange(fh: fsp.FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buf = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await fh.read(buf, read, length - read, position + read);
    if (bytesRead <= 0) throw new MetadataLogError(`short read at ${position + read}`);
    read += bytesRead;
  }
  return buf;
}

async function syncDir(dir: string): Promise<void> {
  let dh: fsp.FileHandle | undefined;
  try {
    dh = await fsp.open(dir, 'r');
    await dh.sync();
  } catch {
    // some platforms cannot fsync a directory; the file itself is synced on every append
  } finally {
    await dh?.close().catch(() => undefined);
  }
}
