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
 * after the last one they share (`truncateTo`).
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

export interface ReplayResult {
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

/** Encodes one batch as its line (term 0 as a bare array, the format before the quorum). */
export function encodeBatch(records: readonly MetadataRecord[], term = 0): Uint8Array {
  const json = term === 0 ? JSON.stringify(records) : JSON.stringify({ term, records });
  const body = encoder.encode(json);
  const line = encoder.encode(`${hex8(crc32c(body))} ${json}\n`);
  return line;
}

/** Decodes one line (without its newline); returns the records or why it is bad. */
export function decodeBatch(line: Uint8Array): { records: MetadataRecord[]; term: number } | { error: string } {
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
    const v = value as { term?: unknown; records?: unknown } | null;
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
export function parseLog(file: string, bytes: Uint8Array): ReplayResult & { validLength: number; ends: number[] } {
  const records: MetadataRecord[] = [];
  const entries: MetadataEntry[] = [];
  const ends: number[] = [];
  let batches = 0;
  let pos = 0;
  while (pos < bytes.length) {
    const nl = bytes.indexOf(NEWLINE, pos);
    if (nl < 0) break; // torn: the last line never got its newline
    const decoded = decodeBatch(bytes.subarray(pos, nl));
    if ('error' in decoded) {
      if (nl + 1 >= bytes.length) break; // the last line is bad: a torn write
      throw new MetadataLogCorruptError(file, pos, decoded.error);
    }
    for (const r of decoded.records) records.push(r);
    entries.push({ term: decoded.term, records: decoded.records });
    batches++;
    pos = nl + 1;
    ends.push(pos);
  }
  return { records, entries, batches, truncatedBytes: bytes.length - pos, validLength: pos, ends };
}

export class MetadataLog {
  private state: MetadataLogState = MetadataLogState.Open;

  private constructor(
    readonly file: string,
    private readonly fh: fsp.FileHandle,
    private size: number,
    /** Where each batch ends in the file (for truncation). */
    private readonly ends: number[],
  ) {}

  /** Batches in the log. */
  get entryCount(): number {
    return this.ends.length;
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
    const fh = await fsp.open(file, 'a');
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
    const { records, entries, batches, truncatedBytes } = parsed;
    return { log: new MetadataLog(file, fh, parsed.validLength, parsed.ends), replay: { records, entries, batches, truncatedBytes } };
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

  /** Keeps the first `count` batches and drops the rest, durably. */
  async truncateTo(count: number): Promise<void> {
    if (this.state !== MetadataLogState.Open) throw new MetadataLogError(`metadata log ${this.file} is ${this.state}`);
    if (count >= this.ends.length) return;
    const length = count <= 0 ? 0 : this.ends[count - 1]!;
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

  async close(): Promise<void> {
    if (this.state === MetadataLogState.Closed) return;
    this.state = MetadataLogState.Closed;
    await this.fh.close();
  }
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
