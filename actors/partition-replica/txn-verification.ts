/**
 * A partition leader's transaction verifications (KIP-890 part 1; Kafka's VerificationGuard and
 * VerificationStateEntry). Before the first transactional batch of a producer's transaction is
 * appended, the broker asks its coordinator whether the partition is in that transaction. A
 * guard is taken here before the ask and must still be held when the batch arrives: a marker
 * written in between (the coordinator aborting the transaction) drops it, so a batch verified
 * against the transaction that just ended cannot open a new one no coordinator knows (a hanging
 * transaction). A producer whose transaction is already open on the partition needs no guard.
 */
import { ATTRIBUTES_OFFSET, PRODUCER_EPOCH_OFFSET, PRODUCER_ID_OFFSET, RECORD_BATCH_OVERHEAD, TRANSACTIONAL_FLAG_MASK, readInt16BE, readInt64BE } from '../../src/protocol/batch-header.js';

/** No verification needed (the transaction is open here already); never matches a held guard. */
export const NO_GUARD = 0;

/** The producer id and epoch of a transactional first batch, or null for any other. */
export function transactionalProducerOf(records: Uint8Array): { producerId: number; producerEpoch: number } | null {
  if (records.length < RECORD_BATCH_OVERHEAD) return null;
  if ((readInt16BE(records, ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) === 0) return null;
  const producerId = readInt64BE(records, PRODUCER_ID_OFFSET);
  return producerId < 0 ? null : { producerId, producerEpoch: readInt16BE(records, PRODUCER_EPOCH_OFFSET) };
}

/** Lingering guards (a verification whose batch never came) are swept at most this often. */
const SWEEP_EVERY_MS = 60_000;

export class TxnVerifications {
  private readonly held = new Map<number, { epoch: number; guard: number; atMs: number }>();
  private next = NO_GUARD;
  private sweptAtMs = 0;

  /**
   * The guard a verification of `producerId`'s transaction holds: NO_GUARD when its transaction
   * is open here; the one already held for the same epoch (requests verified together share
   * it), else a new one. Guards taken `expirationMs` ago or more (producer.id.expiration.ms)
   * are dropped, as Kafka's ProducerStateManager drops lingering verification entries.
   */
  start(producerId: number, producerEpoch: number, transactionOpen: boolean, nowMs: number, expirationMs: number): number {
    if (nowMs - this.sweptAtMs >= SWEEP_EVERY_MS) {
      this.sweptAtMs = nowMs;
      for (const [id, h] of this.held) if (nowMs - h.atMs >= expirationMs) this.held.delete(id);
    }
    if (transactionOpen) return NO_GUARD;
    const h = this.held.get(producerId);
    if (h && h.epoch === producerEpoch) return h.guard;
    const guard = ++this.next;
    this.held.set(producerId, { epoch: producerEpoch, guard, atMs: nowMs });
    return guard;
  }

  /** Whether a batch of `producerId` at `producerEpoch` verified under `guard` may open its transaction. */
  holds(producerId: number, producerEpoch: number, guard: number): boolean {
    const h = this.held.get(producerId);
    return guard !== NO_GUARD && h !== undefined && h.guard === guard && h.epoch === producerEpoch;
  }

  /** A batch opened the transaction, or a marker ended it: the guard is spent. */
  clear(producerId: number): void {
    this.held.delete(producerId);
  }

  /** Leadership changed: every verification starts again. */
  clearAll(): void {
    this.held.clear();
  }

  get size(): number {
    return this.held.size;
  }
}
