/**
 * What the transaction soaks read back from a partition's log (the test client's readBatches),
 * folded as a read_committed consumer does: the producers whose transaction is still open, and
 * the values that count (transactional ones at their producer's COMMIT marker, none of those an
 * ABORT marker ends).
 */
import { ControlType, txnMarkerTypeOfKey } from '../../src/protocol/control-records.js';

export interface ReadBatch {
  transactional: boolean;
  control: boolean;
  producerId: number;
  producerEpoch: number;
  records: { key: Buffer | null; value: Buffer | null }[];
}

/** Producer ids with data after their last marker in `batches` (their transaction is open). */
export function openTransactions(batches: readonly ReadBatch[]): Set<number> {
  const open = new Set<number>();
  for (const b of batches) {
    if (!b.transactional) continue;
    if (b.control) open.delete(b.producerId);
    else open.add(b.producerId);
  }
  return open;
}

/** The values a read_committed consumer gets from `batches`: transactional ones at their COMMIT marker. */
export function committedValues(batches: readonly ReadBatch[]): string[] {
  const out: string[] = [];
  const pending = new Map<number, string[]>();
  for (const b of batches) {
    if (!b.transactional) {
      for (const r of b.records) out.push(String(r.value));
      continue;
    }
    if (b.control) {
      const held = pending.get(b.producerId) ?? [];
      pending.delete(b.producerId);
      if (txnMarkerTypeOfKey(b.records[0]?.key ?? null) === ControlType.COMMIT) out.push(...held);
      continue;
    }
    const held = pending.get(b.producerId) ?? [];
    for (const r of b.records) held.push(String(r.value));
    pending.set(b.producerId, held);
  }
  return out;
}
