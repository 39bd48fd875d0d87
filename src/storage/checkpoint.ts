/**
 * Checkpoint files in Kafka's text format, written atomically (temp file, fsync, rename, fsync
 * of the directory):
 *  - offset checkpoints (recovery-point-offset-checkpoint, replication-offset-checkpoint):
 *    "0", count, then one "topic partition offset" line per partition;
 *  - the leader-epoch-checkpoint of a partition: "0", count, then "epoch startOffset" lines.
 * `CheckpointWriter` serialises writes to one file and coalesces bursts into one write.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export const CHECKPOINT_VERSION = 0;
export const RECOVERY_POINT_CHECKPOINT = 'recovery-point-offset-checkpoint';
export const REPLICATION_OFFSET_CHECKPOINT = 'replication-offset-checkpoint';
/** Log start offsets moved by DeleteRecords (inside a segment, so the segments alone cannot tell). */
export const LOG_START_OFFSET_CHECKPOINT = 'log-start-offset-checkpoint';
export const LEADER_EPOCH_CHECKPOINT = 'leader-epoch-checkpoint';
/** Where each compacted log's last cleaning pass ended (its first dirty offset). */
export const CLEANER_OFFSET_CHECKPOINT = 'cleaner-offset-checkpoint';
const TEMP_SUFFIX = '.tmp';

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}

export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

export interface EpochEntry {
  readonly epoch: number;
  readonly startOffset: number;
}

export function formatOffsetCheckpoint(entries: Iterable<PartitionOffset>): string {
  const lines: string[] = [];
  for (const e of entries) lines.push(`${e.topic} ${e.partition} ${e.offset}`);
  return `${CHECKPOINT_VERSION}\n${lines.length}\n${lines.map((l) => `${l}\n`).join('')}`;
}

export function formatEpochCheckpoint(entries: Iterable<EpochEntry>): string {
  const lines: string[] = [];
  for (const e of entries) lines.push(`${e.epoch} ${e.startOffset}`);
  return `${CHECKPOINT_VERSION}\n${lines.length}\n${lines.map((l) => `${l}\n`).join('')}`;
}

const INTEGER = /^-?\d+$/;

/** Splits a checkpoint into its entry lines, checking the version and the count. */
function entryLines(file: string, text: string): string[][] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length < 2) throw new CheckpointError(file, 'missing version or count line');
  if (lines[0]!.trim() !== String(CHECKPOINT_VERSION)) {
    throw new CheckpointError(file, `unsupported version ${JSON.stringify(lines[0])}`);
  }
  const countText = lines[1]!.trim();
  if (!INTEGER.test(countText)) throw new CheckpointError(file, `malformed count line ${JSON.stringify(lines[1])}`);
  const count = Number(countText);
  const body = lines.slice(2);
  if (body.length !== count) {
    throw new CheckpointError(file, `expected ${count} entries, found ${body.length}`);
  }
  return body.map((line) => line.trim().split(/\s+/));
}

function parseOffsetNumber(file: string, text: string, line: string[]): number {
  if (!INTEGER.test(text)) throw new CheckpointError(file, `malformed line ${JSON.stringify(line.join(' '))}`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new CheckpointError(file, `offset out of range in ${JSON.stringify(line.join(' '))}`);
  return n;
}

/** Parses an offset checkpoint; throws CheckpointError when malformed. */
export function parseOffsetCheckpoint(file: string, text: string): PartitionOffset[] {
  return entryLines(file, text).map((parts) => {
    if (parts.length !== 3 || parts[0]!.length === 0) {
      throw new CheckpointError(file, `malformed line ${JSON.stringify(parts.join(' '))}`);
    }
    return {
      topic: parts[0]!,
      partition: parseOffsetNumber(file, parts[1]!, parts),
      offset: parseOffsetNumber(file, parts[2]!, parts),
    };
  });
}

/** Parses a leader-epoch checkpoint; throws CheckpointError when malformed. */
export function parseEpochCheckpoint(file: string, text: string): EpochEntry[] {
  return entryLines(file, text).map((parts) => {
    if (parts.length !== 2) throw new CheckpointError(file, `malformed line ${JSON.stringify(parts.join(' '))}`);
    return { epoch: parseOffsetNumber(file, parts[0]!, parts), startOffset: parseOffsetNumber(file, parts[1]!, parts) };
  });
}

/** The file's text, or null when it does not exist. */
export function readTextIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** fsync of a directory, so a rename or unlink in it is durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsyncDir without yielding, for a step that must not let other work in between. */
export function fsyncDirSync(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Bounds how many atomic writes run at once in the process: thousands of partitions changing
 * leader at the same moment must not open thousands of descriptors or queue thousands of fsyncs.
 */
class WriteLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

const MAX_CONCURRENT_ATOMIC_WRITES = 8;
const writeLimiter = new WriteLimiter(MAX_CONCURRENT_ATOMIC_WRITES);

/** Writes `content` to `file` atomically: temp file, fsync, rename over `file`, fsync the dir. */
export function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  return writeLimiter.run(() => writeFileAtomicNow(file, content));
}

async function writeFileAtomicNow(file: string, content: string | Uint8Array): Promise<void> {
  const tmp = file + TEMP_SUFFIX;
  const handle = await fsp.open(tmp, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(tmp, file);
  await fsyncDir(path.dirname(file));
}

/** Synchronous twin of writeFileAtomic, for the rare paths that may not yield. */
export function writeFileAtomicSync(file: string, content: string | Uint8Array): void {
  const tmp = file + TEMP_SUFFIX;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  const dirFd = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(dirFd);
  } finally {
    fs.closeSync(dirFd);
  }
}

/** True for leftovers of an interrupted atomic write. */
export function isTempFile(name: string): boolean {
  return name.endsWith(TEMP_SUFFIX);
}

/**
 * Serialises atomic writes to one file. `write(render)` renders the content when the write
 * starts (so it is the newest state); calls made while a write is queued share that write.
 */
export class CheckpointWriter {
  private queued: { render: () => string; done: Promise<void> } | null = null;
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  write(render: () => string): Promise<void> {
    if (this.queued) {
      this.queued.render = render;
      return this.queued.done;
    }
    const slot = { render, done: Promise.resolve() };
    this.queued = slot;
    const run = async (): Promise<void> => {
      await this.tail;
      if (this.queued === slot) this.queued = null;
      await writeFileAtomic(this.file, slot.render());
    };
    slot.done = run();
    this.tail = slot.done.catch(() => undefined);
    return slot.done;
  }

  /** Resolves when every write started so far has settled. */
  async idle(): Promise<void> {
    for (;;) {
      const t = this.tail;
      await t;
      if (t === this.tail && !this.queued) return;
    }
  }
}
