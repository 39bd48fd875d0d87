/**
 * A partition's transactions as its log holds them (the part of Kafka's ProducerStateManager
 * and transaction index that reads need): the transactions still open (a producer's first
 * transactional batch with no marker after it yet) and the aborted ones (first offset to the
 * ABORT marker's offset). From them:
 *  - the first unstable offset: the first offset of the oldest open transaction; the last stable
 *    offset (LSO) is the high watermark or that, whichever is lower, and read_committed
 *    consumers read no further;
 *  - the aborted transactions a read_committed fetch of [from, to) must be told about, so the
 *    consumer drops their records.
 * Batches are observed in log order as appended (leader or follower alike). Truncation is
 * handled by the log rebuilding the index from its batches. `snapshot` / `fromSnapshot` carry it
 * over a clean shutdown, so the log need not read itself again when it opens.
 */
import { BASE_OFFSET_OFFSET, lastOffsetOf, readBatchHeader, readInt64BE } from '../protocol/batch-header.js';
import { ControlType, isControlBatch, isTransactionalBatch, txnMarkerTypeAt } from '../protocol/control-records.js';

export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  /** The offset of the ABORT marker. */
  lastOffset: number;
}

/** The index as plain data (a JSON snapshot written at a clean close). */
export interface TransactionIndexSnapshot {
  open: [producerId: number, firstOffset: number][];
  aborted: AbortedTxn[];
}

export class TransactionIndex {
  /** producer id -> first offset of its open transaction. */
  private readonly open = new Map<number, number>();
  /** Ordered by lastOffset (markers are appended in order). */
  private aborted: AbortedTxn[] = [];

  /** Takes note of the batch at `pos` of `buf`, appended with its final offsets. */
  observe(buf: Uint8Array, pos: number): void {
    if (!isTransactionalBatch(buf, pos)) return;
    const h = readBatchHeader(buf, pos);
    if (h.producerId < 0) return;
    if (!isControlBatch(buf, pos)) {
      if (!this.open.has(h.producerId)) this.open.set(h.producerId, readInt64BE(buf, pos + BASE_OFFSET_OFFSET));
      return;
    }
    const type = txnMarkerTypeAt(buf, pos);
    if (type === null) return;
    const first = this.open.get(h.producerId);
    // a marker for a transaction that wrote nothing here ends nothing
    if (first === undefined) return;
    this.open.delete(h.producerId);
    if (type === ControlType.ABORT) this.aborted.push({ producerId: h.producerId, firstOffset: first, lastOffset: lastOffsetOf(buf, pos) });
  }

  /** The first offset of the oldest open transaction, or null when none is open. */
  get firstUnstableOffset(): number | null {
    let min: number | null = null;
    for (const first of this.open.values()) if (min === null || first < min) min = first;
    return min;
  }

  /** How far read_committed consumers may read: the high watermark, or the first unstable offset below it. */
  lastStableOffset(highWatermark: number): number {
    const fu = this.firstUnstableOffset;
    return fu === null ? highWatermark : Math.min(highWatermark, fu);
  }

  /** The open transactions, producer id -> first offset (introspection). */
  openTransactions(): ReadonlyMap<number, number> {
    return this.open;
  }

  /** Aborted transactions with records in [from, to): those that end at or after `from` and start before `to`. */
  abortedBetween(from: number, to: number): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    // the first one ending at or after `from` (binary search on lastOffset)
    let lo = 0;
    let hi = this.aborted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.aborted[mid]!.lastOffset < from) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.aborted.length; i++) {
      const a = this.aborted[i]!;
      if (a.firstOffset < to) out.push({ ...a });
    }
    return out;
  }

  get abortedCount(): number {
    return this.aborted.length;
  }

  /** Forgets aborted transactions wholly below the new log start offset (retention, DeleteRecords). */
  dropBefore(logStartOffset: number): void {
    let n = 0;
    while (n < this.aborted.length && this.aborted[n]!.lastOffset < logStartOffset) n++;
    if (n > 0) this.aborted = this.aborted.slice(n);
  }

  /**
   * Forgets the aborted transactions whose ABORT markers the log cleaner removed (their records
   * went first): no read can meet them any more.
   */
  forgetAborted(markers: readonly { producerId: number; lastOffset: number }[]): void {
    if (markers.length === 0) return;
    const gone = new Set(markers.map((m) => `${m.producerId}:${m.lastOffset}`));
    this.aborted = this.aborted.filter((a) => !gone.has(`${a.producerId}:${a.lastOffset}`));
  }

  clear(): void {
    this.open.clear();
    this.aborted = [];
  }

  snapshot(): TransactionIndexSnapshot {
    return { open: [...this.open], aborted: this.aborted.map((a) => ({ ...a })) };
  }

  /** A snapshot file's text: this index as it stands with every batch below `logEndOffset` observed. */
  snapshotText(logEndOffset: number): string {
    return JSON.stringify({ logEndOffset, index: this.snapshot() });
  }

  /**
   * The index a snapshot file's text (snapshotText) describes for a log that ends at
   * `logEndOffset`; null when the text is missing, not a snapshot, or of another log end.
   */
  static fromSnapshotText(text: string | null, logEndOffset: number): TransactionIndex | null {
    if (text === null) return null;
    try {
      const data = JSON.parse(text) as { logEndOffset?: unknown; index?: unknown };
      return data.logEndOffset === logEndOffset ? TransactionIndex.fromSnapshot(data.index) : null;
    } catch {
      return null;
    }
  }

  /** The index a snapshot describes; null when it is not one (the log then reads its batches instead). */
  static fromSnapshot(data: unknown): TransactionIndex | null {
    if (typeof data !== 'object' || data === null) return null;
    const { open, aborted } = data as Partial<TransactionIndexSnapshot>;
    const int = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
    if (!Array.isArray(open) || !Array.isArray(aborted)) return null;
    if (!open.every((e) => Array.isArray(e) && e.length === 2 && int(e[0]) && int(e[1]))) return null;
    if (!aborted.every((a) => typeof a === 'object' && a !== null && int(a.producerId) && int(a.firstOffset) && int(a.lastOffset) && a.firstOffset <= a.lastOffset)) return null;
    const index = new TransactionIndex();
    for (const [producerId, first] of open) index.open.set(producerId, first);
    index.aborted = [...aborted].sort((x, y) => x.lastOffset - y.lastOffset).map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset, lastOffset: a.lastOffset }));
    return index;
  }
}
