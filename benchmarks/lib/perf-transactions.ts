/**
 * Transactions in perf-produce, as kafka-producer-perf-test runs them: a producer sends its
 * records in transactions of --transaction-duration-ms each (a transaction is committed by the
 * first send() that finds it that old, and the last one when the records run out), so a run
 * measures what transactional writes cost: the AddPartitionsToTxn of each transaction's first
 * batch to a partition, the commit's flush and EndTxn, and the markers written at the end.
 *
 * Transactions are on when any of --transactional-id, --transaction-duration-ms or a
 * transactional.id in --producer-props / --producer-config is given (Kafka's rules): the id is
 * --transactional-id's, else the configs', else `performance-producer-` and a random suffix; the
 * duration is 3,000 ms unless given. With several --producers each takes the id with `-<n>`
 * after it (one transactional id per producer, or each would fence the one before).
 */
import { nanoid } from 'nanoid';
import { UsageError } from '../../src/cli/errors.js';
import type { Producer } from '../../src/client/producer.js';
import type { Transaction } from '../../src/client/transaction.js';
import { nowMs } from './timing.js';

/** Kafka's default age of a perf-test transaction. */
export const DEFAULT_TRANSACTION_DURATION_MS = 3_000;

export interface TransactionSettings {
  /** The transactional id (of the first producer; see transactionalIdOf). */
  id: string;
  /** A transaction is committed once it is this old. */
  durationMs: number;
}

/**
 * Whether a run uses transactions, and how: from --transactional-id (`flagId`, '' when not given),
 * --transaction-duration-ms (`flagDurationMs`, null when not given) and the transactional.id
 * of the producer configs (`configId`, undefined when none). A duration of 0 or less is a usage error.
 */
export function transactionSettings(flagId: string, flagDurationMs: number | null, configId: string | undefined): TransactionSettings | null {
  if (flagDurationMs !== null && !(flagDurationMs > 0)) throw new UsageError(`--transaction-duration-ms must be greater than zero, got ${flagDurationMs}`);
  if (configId !== undefined && configId.trim() === '') throw new UsageError('transactional.id in the producer configs is empty');
  if (flagId === '' && flagDurationMs === null && configId === undefined) return null;
  const id = flagId !== '' ? flagId : (configId ?? `performance-producer-${nanoid(12)}`);
  return { id, durationMs: flagDurationMs ?? DEFAULT_TRANSACTION_DURATION_MS };
}

/** The transactional id of producer `index` of `producers`: the id itself for a lone producer. */
export function transactionalIdOf(settings: TransactionSettings, index: number, producers: number): string {
  return producers === 1 ? settings.id : `${settings.id}-${index}`;
}

/**
 * One producer's transactions, one after another: `open()` begins one when none is open,
 * `due()` says the open one has reached its age, `commit()` ends it. Counts what it committed.
 */
export class TransactionCycle {
  private txn: Transaction | null = null;
  private startedAt = 0;
  /** Transactions committed so far. */
  committed = 0;

  constructor(
    private readonly producer: Pick<Producer, 'transaction'>,
    private readonly durationMs: number,
    private readonly now: () => number = nowMs,
  ) {}

  /** The open transaction, begun now when there is none. */
  async open(): Promise<Transaction> {
    if (this.txn) return this.txn;
    const txn = await this.producer.transaction();
    this.txn = txn;
    this.startedAt = this.now();
    return txn;
  }

  /** A transaction is open and has reached its age. */
  due(): boolean {
    return this.txn !== null && this.now() - this.startedAt >= this.durationMs;
  }

  /** Commits the open transaction (after its sends were acknowledged); false when none was open. */
  async commit(): Promise<boolean> {
    const txn = this.txn;
    if (!txn) return false;
    this.txn = null;
    await txn.commit();
    this.committed++;
    return true;
  }

  /** Aborts the open transaction, if any (after a failed send); its own failure is not reported. */
  async abort(): Promise<void> {
    const txn = this.txn;
    if (!txn) return;
    this.txn = null;
    await txn.abort().catch(() => undefined);
  }
}
