/**
 * A transactional id's metadata as Kafka's transaction coordinator keeps it (KIP-98): the states
 * with Kafka's validPreviousStates, the metadata fields, the transition being prepared (Kafka's
 * pendingState, here with its target and what to do once it is written), and the record of
 * __transaction_state (key: the transactional id; value: the metadata, or null for a tombstone)
 * with a replay that rebuilds the table of one partition from its records.
 *
 * Pure data and functions: no clock, no I/O, nothing thrown. A refused transition is a TxnError.
 *
 *   Empty | CompleteCommit | CompleteAbort --(AddPartitions)--> Ongoing --(AddPartitions)--> Ongoing
 *   Ongoing --(EndTxn commit)--> PrepareCommit --(markers written)--> CompleteCommit
 *   Ongoing --(EndTxn abort)--> PrepareAbort --(markers written)--> CompleteAbort
 *   Empty | CompleteCommit | CompleteAbort --(EndTxn v5 abort, KIP-890 part 2)--> PrepareAbort
 *   Ongoing --(fence: InitProducerId or timeout)--> PrepareEpochFence ~~> PrepareAbort
 *   Empty | CompleteCommit | CompleteAbort --(InitProducerId)--> Empty
 *   Empty | CompleteCommit | CompleteAbort --(expiration)--> Dead (a tombstone; the id is dropped)
 *
 * PrepareEpochFence is only ever a pending state: Kafka turns it into PrepareAbort before
 * writing anything, so it is never committed nor written.
 */
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
/** Java's Short.MAX_VALUE: producer epochs are int16. */
export const MAX_PRODUCER_EPOCH = 32767;

/** Kafka never hands out Short.MAX_VALUE, so that a producer can always be fenced by one more bump. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= MAX_PRODUCER_EPOCH - 1;
}

/**
 * The transaction protocol a client speaks (Kafka's TransactionVersion as a client uses it):
 * 0, the producer adds its partitions (AddPartitionsToTxn, AddOffsetsToTxn) and keeps its epoch
 * across transactions; 2 (KIP-890 part 2: EndTxn v5, Produce v12, TxnOffsetCommit v5), its
 * partitions are added by the brokers its batches and offsets reach, and every EndTxn bumps its
 * epoch. (Level 1 changes only Kafka's record format, so a client never speaks it.)
 */
export const TV_0 = 0;
export const TV_2 = 2;

/** Whether a transaction of this client transaction version ends with an epoch bump. */
export function supportsEpochBump(transactionVersion: number): boolean {
  return transactionVersion >= TV_2;
}

export enum TxnState {
  Empty = 'Empty',
  Ongoing = 'Ongoing',
  PrepareCommit = 'PrepareCommit',
  PrepareAbort = 'PrepareAbort',
  CompleteCommit = 'CompleteCommit',
  CompleteAbort = 'CompleteAbort',
  Dead = 'Dead',
  PrepareEpochFence = 'PrepareEpochFence',
}

export const ALL_TXN_STATES: readonly TxnState[] = Object.freeze(Object.values(TxnState));

/** For each state, the states it may be entered from (Kafka's validPreviousStates). */
export const validPreviousStates: Readonly<Record<TxnState, ReadonlySet<TxnState>>> = Object.freeze({
  [TxnState.Empty]: new Set([TxnState.Empty, TxnState.CompleteCommit, TxnState.CompleteAbort]),
  [TxnState.Ongoing]: new Set([TxnState.Ongoing, TxnState.Empty, TxnState.CompleteCommit, TxnState.CompleteAbort]),
  [TxnState.PrepareCommit]: new Set([TxnState.Ongoing]),
  // Empty and Complete*: an EndTxn v5 abort with no partition added still bumps the epoch (KIP-890 part 2)
  [TxnState.PrepareAbort]: new Set([TxnState.Ongoing, TxnState.PrepareEpochFence, TxnState.Empty, TxnState.CompleteCommit, TxnState.CompleteAbort]),
  [TxnState.CompleteCommit]: new Set([TxnState.PrepareCommit]),
  [TxnState.CompleteAbort]: new Set([TxnState.PrepareAbort]),
  [TxnState.Dead]: new Set([TxnState.Empty, TxnState.CompleteCommit, TxnState.CompleteAbort]),
  [TxnState.PrepareEpochFence]: new Set([TxnState.Ongoing]),
});

export function isValidTransition(from: TxnState, to: TxnState): boolean {
  return validPreviousStates[to].has(from);
}

/** Only an id with no transaction in flight may expire (Kafka's isExpirationAllowed). */
export function isExpirationAllowed(state: TxnState): boolean {
  return state === TxnState.Empty || state === TxnState.CompleteCommit || state === TxnState.CompleteAbort;
}

export function isTxnState(x: unknown): x is TxnState {
  return typeof x === 'string' && (ALL_TXN_STATES as readonly string[]).includes(x);
}

/** A refusal: a Kafka error code and a message. Never thrown. */
export interface TxnError {
  readonly errorCode: number;
  readonly message: string;
}

export type TxnResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: TxnError };

export function ok<T>(value: T): TxnResult<T> {
  return { ok: true, value };
}

export function refuse<T = never>(errorCode: number, message: string = errorInfo(errorCode).message): TxnResult<T> {
  return { ok: false, error: { errorCode, message } };
}

/**
 * A transition Kafka would refuse with an IllegalStateException (a coordinator bug, not a client
 * error; the client would see UNKNOWN_SERVER_ERROR), or null when `to` may follow `from`.
 */
export function validateTransition(transactionalId: string, from: TxnState, to: TxnState): TxnError | null {
  if (isValidTransition(from, to)) return null;
  return {
    errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
    message: `TransactionalId ${transactionalId}: illegal transition ${from} -> ${to} (${to} may follow only ${[...validPreviousStates[to]].join(', ')})`,
  };
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

function comparePartitions(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}

/** The union, sorted by topic then partition, without duplicates: the one canonical form of a set. */
export function unionPartitions(...sets: readonly (readonly TopicPartition[])[]): TopicPartition[] {
  const sorted = sets.flat().map((p) => ({ topic: p.topic, partition: p.partition })).sort(comparePartitions);
  return sorted.filter((p, i) => i === 0 || comparePartitions(sorted[i - 1]!, p) !== 0);
}

export function containsAll(set: readonly TopicPartition[], subset: readonly TopicPartition[]): boolean {
  return subset.every((p) => set.some((q) => comparePartitions(p, q) === 0));
}

/** What a record of __transaction_state stores for a transactional id. */
export interface TxnRecordFields {
  readonly producerId: number;
  /** The producer id before the last InitProducerId (Kafka's previousProducerId). */
  readonly lastProducerId: number;
  readonly producerEpoch: number;
  /** The epoch a KIP-360 retry may still present (Kafka's lastProducerEpoch); -1 once fenced. */
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TxnState;
  /** Sorted and unique (unionPartitions). */
  readonly partitions: readonly TopicPartition[];
  /** When the first partition was added to the current transaction; -1 when none. */
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
  /**
   * The producer id a transaction being ended moves to (Kafka's nextProducerId): an EndTxn v5
   * bumping an exhausted epoch takes a new id, given to the producer with epoch 0 once the
   * transaction completes. -1 otherwise.
   */
  readonly nextProducerId: number;
  /** The client transaction version of the last request that moved the id (TV_0 or TV_2). */
  readonly transactionVersion: number;
}

/** What the coordinator does once the pending transition's record is written. */
export type AfterPersist =
  /** Answer the InitProducerId with the new producer id and epoch. */
  | { readonly type: 'AnswerInitProducerId' }
  /** Answer the AddPartitionsToTxn or AddOffsetsToTxn with NONE. */
  | { readonly type: 'AnswerAddPartitions'; readonly api: 'AddPartitionsToTxn' | 'AddOffsetsToTxn' }
  /**
   * A PrepareCommit/PrepareAbort: answer who asked (EndTxn: NONE; an InitProducerId that fenced
   * a transaction: CONCURRENT_TRANSACTIONS; a timed-out transaction: nobody), then write markers.
   */
  | { readonly type: 'WriteMarkers'; readonly answer: 'EndTxn' | 'InitProducerId' | null; readonly epochFence: boolean }
  /** CompleteCommit/CompleteAbort: prepared when the Prepare record is written, written once every marker is. */
  | { readonly type: 'Complete'; readonly markersWritten: boolean }
  /** The tombstone of an expired id: drop it from the table. */
  | { readonly type: 'Remove' };

export interface PendingTransition {
  readonly to: TxnRecordFields;
  readonly then: AfterPersist;
}

/** The coordinator's view of one transactional id. */
export interface TxnMetadata extends TxnRecordFields {
  readonly transactionalId: string;
  /** A transition prepared and not yet written (Kafka's pendingState); never persisted. */
  readonly pending: PendingTransition | null;
  /** Kafka's hasFailedEpochFence: the epoch was bumped by a fence whose record failed to be written. */
  readonly hasFailedEpochFence: boolean;
}

export function recordFields(m: TxnRecordFields): TxnRecordFields {
  return {
    producerId: m.producerId,
    lastProducerId: m.lastProducerId,
    producerEpoch: m.producerEpoch,
    lastProducerEpoch: m.lastProducerEpoch,
    txnTimeoutMs: m.txnTimeoutMs,
    state: m.state,
    partitions: unionPartitions(m.partitions),
    txnStartTimestamp: m.txnStartTimestamp,
    txnLastUpdateTimestamp: m.txnLastUpdateTimestamp,
    nextProducerId: m.nextProducerId,
    transactionVersion: m.transactionVersion,
  };
}

/** Kafka's prepareTransitionTo: `current` with `to` pending, or why not. */
export function prepareTransition(current: TxnMetadata, to: TxnRecordFields, then: AfterPersist): TxnResult<TxnMetadata> {
  const id = current.transactionalId;
  if (current.pending) {
    return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${id}: preparing a transition to ${to.state} while ${current.pending.to.state} is pending`);
  }
  if (to.producerId < 0) return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${id}: illegal new producer id ${to.producerId}`);
  if (to.state !== TxnState.Dead && (to.producerEpoch < 0 || to.producerEpoch > MAX_PRODUCER_EPOCH)) {
    return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${id}: illegal new producer epoch ${to.producerEpoch}`);
  }
  const illegal = validateTransition(id, current.state, to.state);
  if (illegal) return { ok: false, error: illegal };
  return ok({ ...current, pending: { to: recordFields(to), then } });
}

/** Kafka's completeTransitionTo: the pending transition's record was written; it becomes the metadata. */
export function completeTransition(current: TxnMetadata): TxnResult<TxnMetadata> {
  if (!current.pending) return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${current.transactionalId}: no pending transition to complete`);
  const illegal = validateTransition(current.transactionalId, current.state, current.pending.to.state);
  if (illegal) return { ok: false, error: illegal };
  return ok({ ...current, ...current.pending.to, pending: null });
}

export interface TxnLogKey {
  readonly transactionalId: string;
}

/** A partition set grouped by topic, as Kafka's TransactionLogValue. */
export interface TxnLogPartitions {
  readonly topic: string;
  readonly partitions: readonly number[];
}

export const TXN_LOG_VALUE_VERSION = 0;

export interface TxnLogValue {
  readonly version: number;
  readonly producerId: number;
  readonly lastProducerId: number;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TxnState;
  readonly partitions: readonly TxnLogPartitions[];
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
  /** Absent in records of an earlier samsa: -1. */
  readonly nextProducerId?: number;
  /** Absent in records of an earlier samsa: TV_0. */
  readonly transactionVersion?: number;
}

/** A record of __transaction_state as plain data (msgpack-able); a null value is a tombstone. */
export interface TxnLogRecord {
  readonly key: TxnLogKey;
  readonly value: TxnLogValue | null;
}

export function encodeTxnRecord(transactionalId: string, fields: TxnRecordFields): TxnLogRecord {
  const byTopic = new Map<string, number[]>();
  for (const p of unionPartitions(fields.partitions)) {
    const list = byTopic.get(p.topic) ?? [];
    list.push(p.partition);
    byTopic.set(p.topic, list);
  }
  const f = recordFields(fields);
  return {
    key: { transactionalId },
    value: {
      version: TXN_LOG_VALUE_VERSION,
      producerId: f.producerId,
      lastProducerId: f.lastProducerId,
      producerEpoch: f.producerEpoch,
      lastProducerEpoch: f.lastProducerEpoch,
      txnTimeoutMs: f.txnTimeoutMs,
      state: f.state,
      partitions: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      txnStartTimestamp: f.txnStartTimestamp,
      txnLastUpdateTimestamp: f.txnLastUpdateTimestamp,
      nextProducerId: f.nextProducerId,
      transactionVersion: f.transactionVersion,
    },
  };
}

export function tombstone(transactionalId: string): TxnLogRecord {
  return { key: { transactionalId }, value: null };
}

const INT_FIELDS = ['producerId', 'lastProducerId', 'producerEpoch', 'lastProducerEpoch', 'txnTimeoutMs', 'txnStartTimestamp', 'txnLastUpdateTimestamp'] as const;

function isRecordObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A record read back (from disk or a wire): its id and metadata, null for a tombstone; or why it is not one. */
export function decodeTxnRecord(raw: unknown): TxnResult<{ transactionalId: string; metadata: TxnMetadata | null }> {
  const bad = (why: string): TxnResult<never> => refuse(ErrorCode.CORRUPT_MESSAGE, `not a __transaction_state record: ${why}`);
  if (!isRecordObject(raw) || !isRecordObject(raw.key)) return bad('no key');
  const transactionalId = raw.key.transactionalId;
  if (typeof transactionalId !== 'string' || transactionalId === '') return bad('no transactional id');
  const v = raw.value;
  if (v === null || v === undefined) return ok({ transactionalId, metadata: null });
  if (!isRecordObject(v)) return bad(`value of ${transactionalId} is not an object`);
  if (v.version !== TXN_LOG_VALUE_VERSION) return bad(`value version ${String(v.version)} of ${transactionalId} is unknown`);
  for (const f of INT_FIELDS) if (!Number.isSafeInteger(v[f])) return bad(`${f} of ${transactionalId} is not an integer`);
  if (!isTxnState(v.state)) return bad(`state ${String(v.state)} of ${transactionalId} is unknown`);
  const nextProducerId = v.nextProducerId ?? NO_PRODUCER_ID;
  if (!Number.isSafeInteger(nextProducerId)) return bad(`nextProducerId of ${transactionalId} is not an integer`);
  const transactionVersion = v.transactionVersion ?? TV_0;
  if (transactionVersion !== TV_0 && transactionVersion !== 1 && transactionVersion !== TV_2) return bad(`transactionVersion ${String(transactionVersion)} of ${transactionalId} is unknown`);
  if (!Array.isArray(v.partitions)) return bad(`partitions of ${transactionalId} are not a list`);
  const partitions: TopicPartition[] = [];
  for (const t of v.partitions as unknown[]) {
    if (!isRecordObject(t) || typeof t.topic !== 'string' || !Array.isArray(t.partitions)) return bad(`partitions of ${transactionalId} are malformed`);
    for (const p of t.partitions as unknown[]) {
      if (!Number.isSafeInteger(p) || (p as number) < 0) return bad(`partition ${String(p)} of ${transactionalId} is not a partition index`);
      partitions.push({ topic: t.topic, partition: p as number });
    }
  }
  const n = v as Record<(typeof INT_FIELDS)[number], number>;
  const metadata: TxnMetadata = {
    transactionalId,
    ...recordFields({ ...n, state: v.state, partitions, nextProducerId: nextProducerId as number, transactionVersion }),
    pending: null,
    hasFailedEpochFence: false,
  };
  return ok({ transactionalId, metadata });
}

export interface ReplayResult {
  readonly table: Map<string, TxnMetadata>;
  /** Records that could not be read, by position, and why; they are skipped. */
  readonly invalid: readonly { readonly index: number; readonly message: string }[];
}

/** The table of one __transaction_state partition rebuilt from its records, oldest first: the last record of an id wins, a tombstone deletes it. */
export function replay(records: Iterable<unknown>): ReplayResult {
  const table = new Map<string, TxnMetadata>();
  const invalid: { index: number; message: string }[] = [];
  let index = 0;
  for (const raw of records) {
    const decoded = decodeTxnRecord(raw);
    if (!decoded.ok) invalid.push({ index, message: decoded.error.message });
    else if (decoded.value.metadata === null) table.delete(decoded.value.transactionalId);
    else table.set(decoded.value.transactionalId, decoded.value.metadata);
    index++;
  }
  return { table, invalid };
}
