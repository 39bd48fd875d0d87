/**
 * The acknowledgements a share consumer has yet to send for one partition: offset -> type, the
 * last one given for an offset winning. Kept as two arrays in the order they came: a poll's
 * records are acknowledged in offset order, so the common case costs two array pushes per record
 * and a single pass to turn them into Kafka's acknowledgement batches, with no map and no sort;
 * offsets out of order or given twice (explicit acknowledgements, releases of what was buffered)
 * take the slower path at `take`.
 */
import type { AcknowledgementBatch } from '../share-partition/messages.js';

export class PendingAcks {
  private offsets: number[] = [];
  private types: number[] = [];
  /** Every offset so far above the one before it. */
  private ascending = true;

  get size(): number {
    return this.offsets.length;
  }

  add(offset: number, type: number): void {
    const n = this.offsets.length;
    if (n > 0 && offset <= this.offsets[n - 1]!) this.ascending = false;
    this.offsets.push(offset);
    this.types.push(type);
  }

  /** Whether some acknowledgement is of `type` (a duplicate overridden later may count too). */
  has(type: number): boolean {
    return this.types.includes(type);
  }

  /**
   * The acknowledgements as Kafka's batches: runs of consecutive offsets, one type for a run of
   * one type, and the offsets they cover in order.
   */
  toBatches(): { batches: AcknowledgementBatch[]; offsets: number[] } {
    let offsets = this.offsets;
    let types = this.types;
    if (!this.ascending) {
      const latest = new Map<number, number>();
      for (let i = 0; i < offsets.length; i++) latest.set(offsets[i]!, types[i]!);
      offsets = [...latest.keys()].sort((a, b) => a - b);
      types = offsets.map((o) => latest.get(o)!);
    }
    const batches: AcknowledgementBatch[] = [];
    let i = 0;
    while (i < offsets.length) {
      const first = offsets[i]!;
      let j = i + 1;
      let uniform = true;
      while (j < offsets.length && offsets[j] === offsets[j - 1]! + 1) {
        if (types[j] !== types[i]) uniform = false;
        j++;
      }
      batches.push({ firstOffset: first, lastOffset: offsets[j - 1]!, acknowledgeTypes: uniform ? [types[i]!] : types.slice(i, j) });
      i = j;
    }
    return { batches, offsets };
  }
}
