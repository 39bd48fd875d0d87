/**
 * The on-disk half of the segment indexes: fixed-size big-endian entries in a file that only
 * grows by appends between truncations. An index keeps its entries in memory and tracks how many
 * of them the file already holds, so persisting writes only the new tail (and cuts the file when
 * a truncation removed entries).
 */
import fs from 'node:fs';

export class IndexFileState {
  /** Entries at the start of the file that match memory. */
  private validEntries = 0;
  /** Entries the file holds (>= validEntries after a truncation). */
  private fileEntries = 0;
  /** The file exists (an index file is kept even with no entries, as Kafka does). */
  private exists = false;

  constructor(
    readonly file: string,
    readonly entrySize: number,
  ) {}

  /** After loading `n` entries from the file. */
  loaded(n: number): void {
    this.validEntries = n;
    this.fileEntries = n;
    this.exists = true;
  }

  /** After memory dropped every entry from `n` on. */
  truncated(n: number): void {
    if (n < this.validEntries) this.validEntries = n;
  }

  /** True when memory holds entries the file does not. */
  isDirty(entries: number): boolean {
    return !this.exists || this.validEntries !== entries || this.fileEntries !== entries;
  }

  /**
   * Brings the file in line with `entries` in memory; `encode(from, to)` returns the big-endian
   * bytes of entries [from, to). Creates the file when missing.
   */
  persist(entries: number, encode: (from: number, to: number) => Buffer): void {
    if (!this.isDirty(entries)) return;
    const fresh = !this.exists;
    if (fresh) {
      this.validEntries = 0;
      this.fileEntries = 0;
    }
    const flags = fs.constants.O_RDWR | fs.constants.O_CREAT | (fresh ? fs.constants.O_TRUNC : 0);
    const fd = fs.openSync(this.file, flags, 0o644);
    try {
      if (this.fileEntries !== this.validEntries) {
        fs.ftruncateSync(fd, this.validEntries * this.entrySize);
        this.fileEntries = this.validEntries;
      }
      if (entries > this.validEntries) {
        const bytes = encode(this.validEntries, entries);
        let written = 0;
        const at = this.validEntries * this.entrySize;
        while (written < bytes.length) {
          written += fs.writeSync(fd, bytes, written, bytes.length - written, at + written);
        }
      }
      this.validEntries = entries;
      this.fileEntries = entries;
      this.exists = true;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Forgets what the file holds (after it was deleted or replaced). */
  reset(): void {
    this.validEntries = 0;
    this.fileEntries = 0;
    this.exists = false;
  }
}

/** The whole file, or null when it does not exist. */
export function readIndexFile(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function unlinkIfExists(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
