/**
 * What a transaction coordinator tells about its transactions (Kafka's DescribeTransactions and
 * ListTransactions, KIP-664, as kafka-transactions.sh asks): pure functions over the metadata of
 * the ids it owns, so that the actor only finds the metadata and answers.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { compileTopicRegex } from '../group-coordinator/topic-regex.js';
import type { ListTransactionsResult, TransactionView } from './messages.js';
import { ALL_TXN_STATES, TxnState, type TxnMetadata } from './txn-metadata.js';

/** An id described with an error: no state, -1 numbers, no partitions. */
export function transactionRefused(transactionalId: string, errorCode: number): TransactionView {
  return { transactionalId, errorCode, state: '', txnTimeoutMs: -1, txnStartTimestamp: -1, producerId: -1, producerEpoch: -1, partitions: [] };
}

/**
 * One id of a DescribeTransactions on the coordinator that owns it: INVALID_REQUEST for an empty
 * id, TRANSACTIONAL_ID_NOT_FOUND for an id it has no metadata for or that is being expired
 * (Dead), else the transaction as it stands (not what a pending write would make it).
 */
export function describeTransaction(transactionalId: string, metadata: TxnMetadata | null): TransactionView {
  if (transactionalId === '') return transactionRefused(transactionalId, ErrorCode.INVALID_REQUEST);
  if (!metadata || metadata.state === TxnState.Dead) return transactionRefused(transactionalId, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
  return {
    transactionalId,
    errorCode: ErrorCode.NONE,
    state: metadata.state,
    txnTimeoutMs: metadata.txnTimeoutMs,
    txnStartTimestamp: metadata.txnStartTimestamp,
    producerId: metadata.producerId,
    producerEpoch: metadata.producerEpoch,
    partitions: metadata.partitions.map((p) => ({ topic: p.topic, partition: p.partition })),
  };
}

export interface ListFilters {
  /** State names; empty: every state. Names Kafka does not know match nothing and are reported. */
  readonly states: readonly string[];
  /** Producer ids; empty: every producer. */
  readonly producerIds: readonly number[];
  /** Only transactions started more than this many ms before `now`; -1: no such filter. */
  readonly durationMs: number;
  /**
   * KIP-1152: only the ids this regular expression matches as a whole (RE2J syntax, as Kafka
   * 4.1's coordinator compiles it); null or empty: no such filter.
   */
  readonly transactionalIdPattern?: string | null;
}

/** The message for a TransactionalIdPattern that does not compile. */
export function invalidPatternMessage(pattern: string, description: string): string {
  return `TransactionalIdPattern \`${pattern}\` is not a valid regular expression: ${description}.`;
}

/**
 * ListTransactions over the ids a coordinator owns, as Kafka's TransactionStateManager lists
 * them: Dead ids (being expired) never, then the state, producer id, duration and transactional
 * id pattern filters. Sorted by transactional id. A pattern that does not compile lists nothing:
 * INVALID_REGULAR_EXPRESSION, as Kafka 4.1 answers it.
 */
export function listTransactions(
  txns: Iterable<{ readonly transactionalId: string; readonly metadata: TxnMetadata }>,
  filters: ListFilters,
  now: number,
): Omit<ListTransactionsResult, 'type'> {
  const known = new Set<string>(ALL_TXN_STATES);
  const states = new Set(filters.states.filter((name) => known.has(name)));
  const unknownStateFilters = [...new Set(filters.states.filter((name) => !known.has(name)))];
  const producerIds = new Set(filters.producerIds);
  const pattern = filters.transactionalIdPattern ? compileTopicRegex(filters.transactionalIdPattern) : null;
  if (pattern && !pattern.ok) {
    return { errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, errorMessage: invalidPatternMessage(filters.transactionalIdPattern!, pattern.description), unknownStateFilters, transactions: [] };
  }
  const transactions: ListTransactionsResult['transactions'] = [];
  for (const { transactionalId, metadata: m } of txns) {
    if (m.state === TxnState.Dead) continue;
    if (producerIds.size > 0 && !producerIds.has(m.producerId)) continue;
    if (filters.states.length > 0 && !states.has(m.state)) continue;
    if (filters.durationMs >= 0 && now - m.txnStartTimestamp <= filters.durationMs) continue;
    if (pattern && !pattern.matches(transactionalId)) continue;
    transactions.push({ transactionalId, producerId: m.producerId, state: m.state });
  }
  transactions.sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0));
  return { errorCode: ErrorCode.NONE, unknownStateFilters, transactions };
}
