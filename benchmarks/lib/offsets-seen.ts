/**
 * Which offsets of which partitions a run has read, to tell records read for the first time
 * from records delivered again: a bit per offset, in pages of 64 Ki offsets made as offsets
 * come (a partition read from offset 10^9 costs the pages it touches, not 10^9 bits). Cheap
 * enough per record for a throughput run: no string per record, the last partition's pages kept
 * at hand.
 */

const PAGE_BITS = 16;
const PAGE_OFFSETS = 1 << PAGE_BITS;

export class OffsetsSeen {
  private readonly partitions = new Map<string, Map<number, Uint8Array>>();
  private lastTopic: string | null = null;
  private lastPartition = -1;
  private lastPages: Map<number, Uint8Array> | null = null;
  private count = 0;

  /** Marks the offset read; true when it was not read before. */
  add(topic: string, partition: number, offset: number): boolean {
    let pages = this.lastPages;
    if (pages === null || topic !== this.lastTopic || partition !== this.lastPartition) {
      const key = `${topic}\0${partition}`;
      pages = this.partitions.get(key) ?? null;
      if (pages === null) this.partitions.set(key, (pages = new Map()));
      this.lastTopic = topic;
      this.lastPartition = partition;
      this.lastPages = pages;
    }
    const index = Math.floor(offset / PAGE_OFFSETS);
    let page = pages.get(index);
    if (page === undefined) pages.set(index, (page = new Uint8Array(PAGE_OFFSETS >>> 3)));
    const bit = offset - index * PAGE_OFFSETS;
    const mask = 1 << (bit & 7);
    const byte = bit >>> 3;
    if ((page[byte]! & mask) !== 0) return false;
    page[byte] = page[byte]! | mask;
    this.count++;
    return true;
  }

  /** How many distinct offsets have been read. */
  get size(): number {
    return this.count;
  }
}
