/**
 * What one ShareFetch acquired of one partition for this member, kept as the fetched bytes and
 * decoded only as the application's polls take its records (as the classic consumer keeps its
 * fetched batches): prefetched data is one object per partition instead of several per record,
 * and each record is born right before it is handed out, so it seldom outlives a young-generation
 * collection.
 *
 * The acquired ranges and the batches are walked together, both in offset order: a batch with
 * nothing acquired is passed over without decoding; each acquired offset turns out to be a record
 * (handed out, with its range's delivery count) or a gap (an offset without a record: compacted
 * away, or a transaction marker), which the consumer acknowledges as Gap.
 *
 * It counts what `take` handed out, for the consumer's metrics: the records, and the bytes of
 * the batches they came from (each batch once, whole, as the consumer counts its batches).
 */
import { CONTROL_FLAG_MASK, attributesOf, lastOffsetOf } from '../../src/protocol/batch-header.js';
import { decodeRecordBatch, recordBatchFrames } from '../../src/protocol/record-batch.js';
import type { ShareConsumedRecord } from './messages.js';

/** An acquired range as a ShareFetch answers it. */
export interface AcquiredRange {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

/** Decoding that skips the CRC (check.crcs=false). */
const NO_CRC_CHECK = Object.freeze({ checkCrc: false });

export class AcquiredRecords {
  private readonly ranges: readonly AcquiredRange[];
  private readonly frames: number[];
  private readonly frameSizes: number[];
  /** The next batch to decode. */
  private frame = 0;
  /** The bytes of the batch decoded last, while no record of it was handed out by `take` (0 after). */
  private uncounted = 0;
  /** Records `take` handed out, and the bytes of the batches they came from. */
  recordsTaken = 0;
  bytesTaken = 0;
  /** The records of the batch decoded last, from `next` on, not yet looked at. */
  private decoded: ShareConsumedRecord[] = [];
  private next = 0;
  /** The current range. */
  private ri = 0;
  /** The lowest offset of the current range not yet handed out or found a gap. */
  private offset: number;

  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly bytes: Uint8Array,
    acquired: readonly AcquiredRange[],
    private readonly checkCrcs: boolean,
    /** When the records' acquisition lock runs out (from the fetch's answer). */
    readonly lockDeadline: number,
  ) {
    this.ranges = acquired.length <= 1 ? acquired : [...acquired].sort((a, b) => a.firstOffset - b.firstOffset);
    const frames = recordBatchFrames(bytes);
    this.frames = frames.map((f) => f.pos);
    this.frameSizes = frames.map((f) => f.size);
    this.offset = this.ranges[0]?.firstOffset ?? 0;
  }

  /** Whether every acquired offset has been handed out or found a gap. */
  get done(): boolean {
    return this.ri >= this.ranges.length;
  }

  /**
   * Hands out up to `max` records into `out`, in offset order, and the gaps met on the way into
   * `gaps`; returns how many records. Throws on a damaged batch (CorruptRecordError).
   */
  take(max: number, out: ShareConsumedRecord[], gaps: number[]): number {
    return this.walk(max, out, gaps, true);
  }

  /** Every record not handed out yet, and the gaps (the partition's records are given back). */
  rest(gaps: number[]): ShareConsumedRecord[] {
    const out: ShareConsumedRecord[] = [];
    this.walk(Infinity, out, gaps, false);
    return out;
  }

  /** take's work; `counted`: the records go to the application (counted), not back to the group. */
  private walk(max: number, out: ShareConsumedRecord[], gaps: number[], counted: boolean): number {
    let n = 0;
    while (n < max && this.ri < this.ranges.length) {
      if (this.next >= this.decoded.length) {
        if (!this.decodeNext()) break;
        continue;
      }
      const r = this.decoded[this.next++]!;
      const o = r.offset;
      while (this.ri < this.ranges.length && this.ranges[this.ri]!.lastOffset < o) this.closeRange(gaps);
      if (this.ri >= this.ranges.length) break;
      if (o < this.offset) continue; // before the range (not this member's), or seen
      const range = this.ranges[this.ri]!;
      for (let g = this.offset; g < o; g++) gaps.push(g);
      r.topic = this.topic;
      r.partition = this.partition;
      r.deliveryCount = range.deliveryCount;
      out.push(r);
      n++;
      if (counted) {
        this.bytesTaken += this.uncounted;
        this.uncounted = 0;
      }
      this.offset = o + 1;
      if (o === range.lastOffset) this.nextRange();
    }
    if (this.ri < this.ranges.length && this.next >= this.decoded.length && this.frame >= this.frames.length) {
      // the bytes are used up: what is left of the ranges holds no record
      while (this.ri < this.ranges.length) this.closeRange(gaps);
    }
    if (this.done) this.decoded = [];
    if (counted) this.recordsTaken += n;
    return n;
  }

  /** Gives up on what is left (a damaged batch): the acquired offsets not handed out or found gaps. */
  abandon(): number[] {
    const offsets: number[] = [];
    while (this.ri < this.ranges.length) {
      const last = this.ranges[this.ri]!.lastOffset;
      for (let o = this.offset; o <= last; o++) offsets.push(o);
      this.nextRange();
    }
    this.decoded = [];
    return offsets;
  }

  /**
   * Decodes the next batch holding an acquired offset (control batches and batches below the
   * current range are passed over undecoded); false when none is left.
   */
  private decodeNext(): boolean {
    while (this.frame < this.frames.length) {
      const size = this.frameSizes[this.frame]!;
      const pos = this.frames[this.frame++]!;
      const last = lastOffsetOf(this.bytes, pos);
      if (last < this.offset) continue;
      // transaction markers are no records: their offsets are gaps, found as the next record (or the end) comes
      if ((attributesOf(this.bytes, pos) & CONTROL_FLAG_MASK) !== 0) continue;
      this.decoded = decodeRecordBatch(this.bytes, pos, this.checkCrcs ? undefined : NO_CRC_CHECK).records as unknown as ShareConsumedRecord[];
      this.next = 0;
      this.uncounted = size;
      if (this.decoded.length > 0) return true;
    }
    this.decoded = [];
    this.next = 0;
    return false;
  }

  /** The rest of the current range holds no record: gaps. */
  private closeRange(gaps: number[]): void {
    const last = this.ranges[this.ri]!.lastOffset;
    for (let g = this.offset; g <= last; g++) gaps.push(g);
    this.nextRange();
  }

  private nextRange(): void {
    this.ri++;
    if (this.ri < this.ranges.length) this.offset = this.ranges[this.ri]!.firstOffset;
  }
}
