/**
 * Walks the record batches of a segment file from a position, reading the file in windows with
 * synchronous positional reads. In header mode only the 61-byte header of each batch is
 * guaranteed in the window (for index rebuilds and offset translation); in full mode the whole
 * batch is (for CRC validation during recovery). It frames batches by their length field and
 * reports where and why it stopped: the end, a torn tail, or an impossible header.
 */
import fs from 'node:fs';
import {
  BATCH_LENGTH_OFFSET,
  CURRENT_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  MIN_BATCH_LENGTH,
  PARTITION_LEADER_EPOCH_OFFSET,
  RECORD_BATCH_OVERHEAD,
  readInt32BE,
  readInt64BE,
} from '../protocol/batch-header.js';

export enum ScanStatus {
  Batch = 0,
  End = 1,
  /** Fewer bytes left than the header or the batch length needs. */
  Torn = 2,
  /** A header that cannot be a batch (length below the minimum, wrong magic). */
  Corrupt = 3,
}

const HEADER_WINDOW = 64 * 1024;
const FULL_WINDOW = 1024 * 1024;

/** Reads exactly `length` bytes at `position` (short reads retried); returns bytes read. */
export function readFully(fd: number, buf: Uint8Array, offset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, offset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/**
 * Most bytes one write call carries. Linux builds page-cache folios as large as each write (up
 * to the file system's limit), and on a virtual machine that hands freed memory back to its host
 * (free page reporting), large folios can come from memory the host must fault in again. A bare
 * test here (fresh files of 400 MiB gathered from 16 KiB buffers, 2.5 s apart): writes of
 * 512 KiB cost 655-930 ms of kernel time per GiB, of 1 MiB 1,430-1,720, of 4 MiB ~2,200,
 * against 130-190 for 64-256 KiB. The brokers' appends of 1 KiB records were 256 KiB-1 MiB a
 * call; capped, the benchmark suite's slow 1 KiB runs stayed as frequent (4 of 15 either way),
 * so those have another trigger, but a burst after a quiet spell is what the bare test measures.
 * A few more calls per MiB cost nothing, on any machine.
 */
export const MAX_WRITE_BYTES = 256 * 1024;

/** Writes all of buf[offset, offset + length) at `position`, at most MAX_WRITE_BYTES a call. */
export function writeFully(fd: number, buf: Uint8Array, offset: number, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    done += fs.writeSync(fd, buf, offset + done, Math.min(length - done, MAX_WRITE_BYTES), position + done);
  }
}

/** Most buffers one gathering write takes (Linux's IOV_MAX). */
const MAX_IOV = 1024;

/**
 * Writes every buffer of `parts`, back to back, at `position`: pwritev of consecutive buffers
 * up to MAX_WRITE_BYTES (and IOV_MAX) a call, a larger buffer on its own through writeFully;
 * a short write is finished buffer by buffer.
 */
export function writeAllGathered(fd: number, parts: readonly Uint8Array[], position: number): void {
  let i = 0;
  while (i < parts.length) {
    const first = parts[i]!;
    if (first.byteLength >= MAX_WRITE_BYTES) {
      writeFully(fd, first, 0, first.byteLength, position);
      position += first.byteLength;
      i++;
      continue;
    }
    let end = i;
    let groupBytes = 0;
    while (end < parts.length && end - i < MAX_IOV && groupBytes + parts[end]!.byteLength <= MAX_WRITE_BYTES) groupBytes += parts[end++]!.byteLength;
    const group = i === 0 && end === parts.length ? (parts as Uint8Array[]) : parts.slice(i, end);
    let done = fs.writevSync(fd, group, position);
    if (done < groupBytes) {
      // a short write (rare on a regular file): the rest of the group buffer by buffer
      let at = position + done;
      for (const p of group) {
        if (done >= p.byteLength) {
          done -= p.byteLength;
          continue;
        }
        writeFully(fd, p, done, p.byteLength - done, at);
        at += p.byteLength - done;
        done = 0;
      }
    }
    position += groupBytes;
    i = end;
  }
}

export class SegmentScanner {
  /** Window over the file; the current batch starts at `bufPos`. */
  buf: Buffer;
  bufPos = 0;
  /** File position and total size of the current batch. */
  pos = -1;
  size = 0;
  baseOffset = 0;
  lastOffset = 0;
  maxTimestamp = 0;
  partitionLeaderEpoch = 0;
  /** Why the scan stopped (for Torn and Corrupt). */
  reason = '';

  private bufStart = 0;
  private bufLen = 0;
  private nextPos: number;
  private readonly window: number;

  constructor(
    private readonly fd: number,
    start: number,
    private readonly end: number,
    private readonly full: boolean,
    window?: number,
  ) {
    this.window = window ?? (full ? FULL_WINDOW : HEADER_WINDOW);
    this.buf = Buffer.allocUnsafe(Math.min(this.window, Math.max(RECORD_BATCH_OVERHEAD, end - start)));
    this.nextPos = start;
  }

  /** File position where the next batch would start (the end of the last one returned). */
  get position(): number {
    return this.nextPos;
  }

  next(): ScanStatus {
    const pos = this.nextPos;
    if (pos >= this.end) return ScanStatus.End;
    if (this.end - pos < RECORD_BATCH_OVERHEAD) {
      this.reason = `${this.end - pos} trailing bytes at position ${pos} are less than a batch header`;
      return ScanStatus.Torn;
    }
    if (!this.ensure(pos, RECORD_BATCH_OVERHEAD)) {
      this.reason = `file ends before the batch header at position ${pos}`;
      return ScanStatus.Torn;
    }
    const b = this.buf;
    const at = pos - this.bufStart;
    const batchLength = readInt32BE(b, at + BATCH_LENGTH_OFFSET);
    if (batchLength < MIN_BATCH_LENGTH) {
      this.reason = `batchLength ${batchLength} at position ${pos} is below the minimum ${MIN_BATCH_LENGTH}`;
      return ScanStatus.Corrupt;
    }
    const magic = b[at + MAGIC_OFFSET]!;
    if (magic !== CURRENT_MAGIC) {
      this.reason = `magic ${magic} at position ${pos}, expected ${CURRENT_MAGIC}`;
      return ScanStatus.Corrupt;
    }
    const size = LOG_OVERHEAD + batchLength;
    if (size > this.end - pos) {
      this.reason = `batch of ${size} bytes at position ${pos} runs past the end (${this.end})`;
      return ScanStatus.Torn;
    }
    this.pos = pos;
    this.size = size;
    this.baseOffset = readInt64BE(b, at);
    this.lastOffset = this.baseOffset + readInt32BE(b, at + LAST_OFFSET_DELTA_OFFSET);
    this.maxTimestamp = readInt64BE(b, at + MAX_TIMESTAMP_OFFSET);
    this.partitionLeaderEpoch = readInt32BE(b, at + PARTITION_LEADER_EPOCH_OFFSET);
    if (this.full && !this.ensure(pos, size)) {
      this.reason = `file ends inside the batch at position ${pos}`;
      return ScanStatus.Torn;
    }
    this.bufPos = pos - this.bufStart;
    this.nextPos = pos + size;
    return ScanStatus.Batch;
  }

  /** Makes file[pos, pos + n) present in the window; false when the file is shorter. */
  private ensure(pos: number, n: number): boolean {
    if (pos >= this.bufStart && pos + n <= this.bufStart + this.bufLen) return true;
    const want = Math.min(Math.max(n, this.window), this.end - pos);
    if (want > this.buf.length) this.buf = Buffer.allocUnsafe(want);
    const got = readFully(this.fd, this.buf, 0, want, pos);
    this.bufStart = pos;
    this.bufLen = got;
    return got >= n;
  }
}
