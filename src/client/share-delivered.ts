/**
 * The records a share consumer's polls handed to the application and not yet acknowledged to the
 * brokers, by partition, with the acknowledgement the application gave each (explicit mode).
 *
 * Cost: implicit mode, where every record is accepted at the next poll, keeps each poll's records
 * as the arrays they came in and turns them into acknowledgements in one pass; the per-record
 * types and the offset index exist only once the application acknowledges a record itself.
 */
import { AcknowledgeType } from '../../actors/share-partition/share-partition-state.js';
import type { PartitionAcknowledgements } from '../../actors/share-consumer/messages.js';

/** A record as this needs it. */
export interface DeliveredRecord {
  topic: string;
  partition: number;
  offset: number;
}

/** An acknowledgement taken to be sent: no longer the application's to give. */
const TAKEN = -1;

interface Partition<R extends DeliveredRecord> {
  topic: string;
  partition: number;
  records: R[];
  /** Each record's acknowledge type: null until acknowledged, TAKEN once sent; made at the first acknowledge. */
  types: (number | null)[] | null;
  /** offset -> index in `records`; made at the first acknowledge. */
  index: Map<number, number> | null;
  /** Records not sent yet. */
  left: number;
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class DeliveredRecords<R extends DeliveredRecord> {
  private readonly partitions = new Map<string, Partition<R>>();

  /** Whether any record is waiting for an acknowledgement or to be sent. */
  get size(): number {
    return this.partitions.size;
  }

  clear(): void {
    this.partitions.clear();
  }

  /** Records a poll returned, partition by partition in the order they came. */
  add(records: readonly R[]): void {
    let last: Partition<R> | null = null;
    for (const r of records) {
      if (!last || last.topic !== r.topic || last.partition !== r.partition) {
        const k = tpKey(r.topic, r.partition);
        last = this.partitions.get(k) ?? null;
        if (!last) this.partitions.set(k, (last = { topic: r.topic, partition: r.partition, records: [], types: null, index: null, left: 0 }));
        else last.index = null; // records added: the index is made again when needed
      }
      last.records.push(r);
      if (last.types) last.types.push(null);
      last.left++;
    }
  }

  /**
   * Records the application's acknowledgement of `record`; false when the record is not one
   * waiting for one (not delivered, acknowledged already, or sent).
   */
  acknowledge(record: DeliveredRecord, type: number): boolean {
    const p = this.partitions.get(tpKey(record.topic, record.partition));
    if (!p) return false;
    if (!p.index) {
      p.index = new Map();
      for (let i = 0; i < p.records.length; i++) p.index.set(p.records[i]!.offset, i);
    }
    const i = p.index.get(record.offset);
    if (i === undefined) return false;
    p.types ??= new Array<number | null>(p.records.length).fill(null);
    if (p.types[i] !== null) return false;
    p.types[i] = type;
    return true;
  }

  /**
   * The acknowledgements to send, taken out: those the application gave, and with `acceptRest`
   * every other record's as Accept. `onRenew` hears of each record acknowledged with Renew.
   */
  take(acceptRest: boolean, onRenew: (record: R) => void): PartitionAcknowledgements[] {
    const out: PartitionAcknowledgements[] = [];
    for (const [k, p] of this.partitions) {
      const offsets: number[] = [];
      const types: number[] = [];
      if (!p.types) {
        if (!acceptRest) continue;
        for (const r of p.records) {
          offsets.push(r.offset);
          types.push(AcknowledgeType.Accept);
        }
        p.left = 0;
      } else {
        for (let i = 0; i < p.records.length; i++) {
          const t = p.types[i]!;
          if (t === TAKEN || (t === null && !acceptRest)) continue;
          const r = p.records[i]!;
          offsets.push(r.offset);
          types.push(t ?? AcknowledgeType.Accept);
          p.types[i] = TAKEN;
          p.left--;
          if (t === AcknowledgeType.Renew) onRenew(r);
        }
      }
      if (p.left === 0) this.partitions.delete(k);
      if (offsets.length > 0) out.push({ topic: p.topic, partition: p.partition, offsets, types });
    }
    return out;
  }
}
