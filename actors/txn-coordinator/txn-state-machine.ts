/**
 * The transaction coordinator's decisions (KIP-98), as Kafka 4.0's TransactionCoordinator makes
 * them: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, the writing of markers,
 * timed-out transactions, expired transactional ids and the resumption of prepared transactions
 * after a takeover.
 *
 * Two client transaction versions (txn-metadata.ts): TV_0 (EndTxn v0-4: the producer keeps its
 * epoch across transactions) and TV_2 (KIP-890 part 2, EndTxn v5: partitions are added by the
 * brokers a Produce v12 or TxnOffsetCommit v5 reaches, and every commit or abort bumps the
 * epoch: the markers carry the bumped epoch, so a late batch of the ended transaction is fenced
 * on its partition, and the producer goes on with it; an exhausted epoch moves the producer to a
 * new producer id at epoch 0). An EndTxn v5 recognises its own retry by the epoch one below the
 * bumped one, and an abort with no partition added still bumps the epoch.
 *
 * Every operation is pure: it takes the id's metadata (or null), the request and `now`, and
 * returns a refusal (a Kafka error code and a message) or a TxnStep: the metadata to keep (null:
 * drop the id) and the effects to carry out in order. A 'Persist' is always the last effect of
 * a step: write its record to __transaction_state (acks=all), then call onPersisted, or
 * onPersistFailed with the append's error code. After 'WriteMarkers', call onMarkersWritten
 * once every partition has its marker. A refusal changes nothing: answer the client with it.
 *
 * While a transition is pending (prepared, its record not yet written, or its markers not yet
 * all written) requests are answered CONCURRENT_TRANSACTIONS, as Kafka's pendingState.
 */
import { OFFSETS_TOPIC } from '../group-coordinator/messages.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import {
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  MAX_PRODUCER_EPOCH,
  TRANSACTION_STATE_TOPIC,
  TxnState,
  containsAll,
  completeTransition,
  encodeTxnRecord,
  isEpochExhausted,
  isExpirationAllowed,
  ok,
  prepareTransition,
  recordFields,
  refuse,
  tombstone,
  unionPartitions,
  validateTransition,
  type AfterPersist,
  type TopicPartition,
  type TxnError,
  type TxnLogRecord,
  type TxnMetadata,
  type TxnRecordFields,
  type TxnResult,
  TV_0,
  TV_2,
  supportsEpochBump,
} from './txn-metadata.js';

export interface TxnConfig {
  /** transaction.max.timeout.ms (Kafka: 15 minutes). */
  readonly transactionMaxTimeoutMs: number;
  /** transactional.id.expiration.ms (Kafka: 7 days). */
  readonly transactionalIdExpirationMs: number;
}

export const DEFAULT_TXN_CONFIG: TxnConfig = Object.freeze({ transactionMaxTimeoutMs: 900_000, transactionalIdExpirationMs: 604_800_000 });

/** Hands out a new producer id, or says why it cannot (e.g. COORDINATOR_NOT_AVAILABLE while a block is fetched). */
export type ProducerIdAllocator = () => TxnResult<number>;

export interface InitProducerIdRequest {
  readonly transactionalId: string;
  readonly transactionTimeoutMs: number;
  /** KIP-360 (v3+): the id and epoch of a producer recovering from an error; both -1 otherwise. */
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly version: number;
}

export interface AddPartitionsToTxnRequest {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly partitions: readonly TopicPartition[];
  readonly version: number;
}

export interface AddOffsetsToTxnRequest {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly groupId: string;
  readonly version: number;
}

export interface EndTxnRequest {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
  readonly version: number;
}

export type TxnApi = 'InitProducerId' | 'AddPartitionsToTxn' | 'AddOffsetsToTxn' | 'EndTxn';

export type TxnReply =
  /** EndTxn: the producer id and epoch the producer goes on with (bumped by a v5 EndTxn); -1 on an error. */
  | { readonly api: 'InitProducerId' | 'EndTxn'; readonly errorCode: number; readonly errorMessage?: string; readonly producerId: number; readonly producerEpoch: number }
  | { readonly api: 'AddPartitionsToTxn' | 'AddOffsetsToTxn'; readonly errorCode: number; readonly errorMessage?: string };

export interface TxnMarkers {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly result: 'COMMIT' | 'ABORT';
  readonly partitions: readonly TopicPartition[];
  /** The transaction version it ends at (WriteTxnMarkers v2): TV_2 bumped the epoch for it. */
  readonly transactionVersion: number;
}

export type TxnEffect =
  | { readonly type: 'Persist'; readonly record: TxnLogRecord }
  | { readonly type: 'Reply'; readonly reply: TxnReply }
  | { readonly type: 'WriteMarkers'; readonly markers: TxnMarkers };

export interface TxnStep {
  /** The metadata to keep for the id; null: remove the id from the table. */
  readonly metadata: TxnMetadata | null;
  readonly effects: readonly TxnEffect[];
}

/** The answer to a request refused with `error`. */
export function errorReply(api: TxnApi, error: TxnError): TxnReply {
  if (api === 'InitProducerId' || api === 'EndTxn') return { api, errorCode: error.errorCode, errorMessage: error.message, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
  return { api, errorCode: error.errorCode, errorMessage: error.message };
}

/** The request version from which each API knows PRODUCER_FENCED; older ones get INVALID_PRODUCER_EPOCH (KafkaApis). */
const PRODUCER_FENCED_SINCE: Readonly<Record<TxnApi, number>> = { InitProducerId: 4, AddPartitionsToTxn: 2, AddOffsetsToTxn: 2, EndTxn: 2 };

function fenced(api: TxnApi, version: number, message: string): TxnResult<never> {
  return refuse(version < PRODUCER_FENCED_SINCE[api] ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.PRODUCER_FENCED, message);
}

function concurrent(m: TxnMetadata): TxnResult<never> {
  const what = m.pending ? `a transition to ${m.pending.to.state} is pending` : `its state is ${m.state}`;
  return refuse(ErrorCode.CONCURRENT_TRANSACTIONS, `TransactionalId ${m.transactionalId}: ${what}; retry`);
}

function neverReached(m: TxnMetadata): TxnResult<never> {
  return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `Found transactionalId ${m.transactionalId} with state ${m.state}. This is illegal as we should never have transitioned to this state.`);
}

function persistOf(m: TxnMetadata): TxnEffect {
  const to = m.pending!.to;
  return { type: 'Persist', record: to.state === TxnState.Dead ? tombstone(m.transactionalId) : encodeTxnRecord(m.transactionalId, to) };
}

/** Prepare `to` and write it. */
function prepareAndPersist(m: TxnMetadata, to: TxnRecordFields, then: AfterPersist): TxnResult<TxnStep> {
  const prepared = prepareTransition(m, to, then);
  if (!prepared.ok) return prepared;
  return ok({ metadata: prepared.value, effects: [persistOf(prepared.value)] });
}

function answerNow(m: TxnMetadata, reply: TxnReply): TxnResult<TxnStep> {
  return ok({ metadata: m, effects: [{ type: 'Reply', reply }] });
}

export function validateTransactionTimeout(timeoutMs: number, config: TxnConfig): TxnError | null {
  if (Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= config.transactionMaxTimeoutMs) return null;
  return {
    errorCode: ErrorCode.INVALID_TRANSACTION_TIMEOUT,
    message: `The transaction timeout ${timeoutMs} ms must be in 1..${config.transactionMaxTimeoutMs} (transaction.max.timeout.ms)`,
  };
}

/** InitProducerId with a transactional id: a producer id and epoch for it, fencing any older producer. */
export function initProducerId(
  current: TxnMetadata | null,
  req: InitProducerIdRequest,
  now: number,
  env: { readonly config: TxnConfig; readonly allocateProducerId: ProducerIdAllocator },
): TxnResult<TxnStep> {
  if (req.transactionalId === '') return refuse(ErrorCode.INVALID_REQUEST, 'The transactional id must not be empty');
  if ((req.producerId === NO_PRODUCER_ID) !== (req.producerEpoch === NO_PRODUCER_EPOCH)) {
    return refuse(ErrorCode.INVALID_REQUEST, 'The producer id and epoch must be both given or both -1');
  }
  const badTimeout = validateTransactionTimeout(req.transactionTimeoutMs, env.config);
  if (badTimeout) return { ok: false, error: badTimeout };
  let m = current;
  if (!m) {
    const allocated = env.allocateProducerId();
    if (!allocated.ok) return allocated;
    m = {
      transactionalId: req.transactionalId,
      ...recordFields({
        producerId: allocated.value,
        lastProducerId: NO_PRODUCER_ID,
        producerEpoch: NO_PRODUCER_EPOCH,
        lastProducerEpoch: NO_PRODUCER_EPOCH,
        txnTimeoutMs: req.transactionTimeoutMs,
        state: TxnState.Empty,
        partitions: [],
        txnStartTimestamp: -1,
        txnLastUpdateTimestamp: now,
        nextProducerId: NO_PRODUCER_ID,
        transactionVersion: TV_0,
      }),
      pending: null,
      hasFailedEpochFence: false,
    };
  }
  const expected = req.producerId === NO_PRODUCER_ID ? null : { producerId: req.producerId, epoch: req.producerEpoch };
  if (m.pending) return concurrent(m);
  if (expected && !isValidProducerId(m, expected)) {
    return fenced('InitProducerId', req.version, `TransactionalId ${m.transactionalId}: producer id ${expected.producerId} is not ${m.producerId}`);
  }
  switch (m.state) {
    case TxnState.PrepareCommit:
    case TxnState.PrepareAbort:
      return concurrent(m);
    case TxnState.Empty:
    case TxnState.CompleteCommit:
    case TxnState.CompleteAbort:
      return bumpEpoch(m, req, expected, now, env.allocateProducerId);
    case TxnState.Ongoing:
      // Abort the transaction first, with a bumped epoch never told to anyone; the client retries.
      return fenceAndAbort(m, 'InitProducerId', now, env.allocateProducerId);
    case TxnState.Dead:
    case TxnState.PrepareEpochFence:
      return neverReached(m);
    default:
      return assertNever(m.state, 'transaction state');
  }
}

/**
 * A KIP-360 request names a producer this id may still recognise: the metadata was just created,
 * or the id is the current one, or it is the previous one and its epoch was exhausted (a retry
 * of the InitProducerId that moved to a new producer id).
 */
function isValidProducerId(m: TxnMetadata, expected: { producerId: number; epoch: number }): boolean {
  return (
    m.producerEpoch === NO_PRODUCER_EPOCH ||
    expected.producerId === m.producerId ||
    (expected.producerId === m.lastProducerId && isEpochExhausted(expected.epoch))
  );
}

function bumpEpoch(
  m: TxnMetadata,
  req: InitProducerIdRequest,
  expected: { producerId: number; epoch: number } | null,
  now: number,
  allocateProducerId: ProducerIdAllocator,
): TxnResult<TxnStep> {
  const then: AfterPersist = { type: 'AnswerInitProducerId' };
  const base = {
    lastProducerId: m.producerId,
    txnTimeoutMs: req.transactionTimeoutMs,
    state: TxnState.Empty,
    partitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: now,
    nextProducerId: NO_PRODUCER_ID,
    transactionVersion: m.transactionVersion,
  };
  if (isEpochExhausted(m.producerEpoch) && (!expected || expected.epoch === m.producerEpoch)) {
    const allocated = allocateProducerId();
    if (!allocated.ok) return allocated;
    const lastProducerEpoch = expected ? m.producerEpoch : NO_PRODUCER_EPOCH;
    return prepareAndPersist(m, { ...base, producerId: allocated.value, producerEpoch: 0, lastProducerEpoch }, then);
  }
  if (isEpochExhausted(m.producerEpoch)) {
    return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `Cannot allocate any more producer epochs for producerId ${m.producerId}`);
  }
  let epochs: [number, number];
  if (!expected) epochs = [m.producerEpoch + 1, NO_PRODUCER_EPOCH];
  else if (m.producerEpoch === NO_PRODUCER_EPOCH || expected.epoch === m.producerEpoch) epochs = [m.producerEpoch + 1, m.producerEpoch];
  else if (expected.epoch === m.lastProducerEpoch) epochs = [m.producerEpoch, m.lastProducerEpoch]; // a retry: answer the same epoch again
  else {
    return fenced(
      'InitProducerId',
      req.version,
      `Expected producer epoch ${expected.epoch} does not match current producer epoch ${m.producerEpoch} or previous producer epoch ${m.lastProducerEpoch}`,
    );
  }
  return prepareAndPersist(m, { ...base, producerId: m.producerId, producerEpoch: epochs[0], lastProducerEpoch: epochs[1] }, then);
}

/**
 * Kafka's prepareFenceProducerEpoch followed by the coordinator's own EndTxn(abort): the epoch
 * is bumped at once (the current producer is fenced even if the write fails; a failed fence is
 * not bumped twice) and PrepareAbort is written. A TV_2 transaction's abort bumps it once more,
 * as its EndTxn would: the fenced producer's epoch is then two below, never taken for the retry
 * of an EndTxn v5 (one below).
 */
function fenceAndAbort(m: TxnMetadata, answer: 'InitProducerId' | null, now: number, allocateProducerId: ProducerIdAllocator): TxnResult<TxnStep> {
  if (m.pending) return concurrent(m);
  const illegal = validateTransition(m.transactionalId, m.state, TxnState.PrepareEpochFence) ?? validateTransition(m.transactionalId, TxnState.PrepareEpochFence, TxnState.PrepareAbort);
  if (illegal) return { ok: false, error: illegal };
  if (m.producerEpoch >= MAX_PRODUCER_EPOCH) {
    return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, 'Cannot fence producer with epoch equal to Short.MaxValue since this would overflow');
  }
  const bumped = m.hasFailedEpochFence ? m.producerEpoch : m.producerEpoch + 1;
  const fencedMetadata: TxnMetadata = { ...m, producerEpoch: bumped, lastProducerEpoch: NO_PRODUCER_EPOCH };
  const then: AfterPersist = { type: 'WriteMarkers', answer, epochFence: true };
  if (supportsEpochBump(m.transactionVersion)) return prepareEnd(fencedMetadata, TxnState.PrepareAbort, false, m.transactionVersion, now, allocateProducerId, then);
  const to = { ...recordFields(fencedMetadata), state: TxnState.PrepareAbort, txnLastUpdateTimestamp: now, nextProducerId: NO_PRODUCER_ID };
  return prepareAndPersist(fencedMetadata, to, then);
}

/**
 * Kafka's prepareAbortOrCommit: PrepareCommit or PrepareAbort written, the epoch bumped for a
 * TV_2 client (its last epoch kept for a retry to be recognised; an exhausted epoch takes a new
 * producer id, handed over when the transaction completes). `noPartitionAdded`: a TV_2 abort of
 * no transaction, which starts and ends now.
 */
function prepareEnd(
  m: TxnMetadata,
  state: TxnState.PrepareCommit | TxnState.PrepareAbort,
  noPartitionAdded: boolean,
  transactionVersion: number,
  now: number,
  allocateProducerId: ProducerIdAllocator,
  then: AfterPersist,
): TxnResult<TxnStep> {
  const base = {
    ...recordFields(m),
    state,
    txnStartTimestamp: noPartitionAdded ? now : m.txnStartTimestamp,
    txnLastUpdateTimestamp: now,
    nextProducerId: NO_PRODUCER_ID,
    transactionVersion,
  };
  if (!supportsEpochBump(transactionVersion)) return prepareAndPersist(m, base, then);
  let nextProducerId = NO_PRODUCER_ID;
  if (isEpochExhausted(m.producerEpoch)) {
    const allocated = allocateProducerId();
    if (!allocated.ok) return allocated;
    nextProducerId = allocated.value;
  }
  const to = { ...base, producerEpoch: Math.min(m.producerEpoch + 1, MAX_PRODUCER_EPOCH), lastProducerEpoch: m.producerEpoch, nextProducerId };
  return prepareAndPersist(m, to, then);
}

/** AddPartitionsToTxn (v0-3, from a producer): the partitions join the transaction, starting one if none is ongoing. */
export function addPartitionsToTxn(current: TxnMetadata | null, req: AddPartitionsToTxnRequest, now: number): TxnResult<TxnStep> {
  return addPartitions('AddPartitionsToTxn', current, req, req.partitions, now, TV_0);
}

/**
 * A TV_2 producer's partitions added by the broker its batches (Produce v12) or offsets
 * (TxnOffsetCommit v5) reached, before they are written (Kafka's AddPartitionsToTxn v5 from a
 * broker, verifyOnly false): as AddPartitionsToTxn, the transaction becoming one of TV_2.
 */
export function addPartitionsImplicitly(current: TxnMetadata | null, req: AddPartitionsToTxnRequest, now: number): TxnResult<TxnStep> {
  return addPartitions('AddPartitionsToTxn', current, req, req.partitions, now, TV_2);
}

/** AddOffsetsToTxn: the group's __consumer_offsets partition joins the transaction. */
export function addOffsetsToTxn(
  current: TxnMetadata | null,
  req: AddOffsetsToTxnRequest,
  now: number,
  groupPartition: (groupId: string) => number,
): TxnResult<TxnStep> {
  return addPartitions('AddOffsetsToTxn', current, req, [{ topic: OFFSETS_TOPIC, partition: groupPartition(req.groupId) }], now, TV_0);
}

function addPartitions(
  api: 'AddPartitionsToTxn' | 'AddOffsetsToTxn',
  m: TxnMetadata | null,
  req: { transactionalId: string; producerId: number; producerEpoch: number; version: number },
  partitions: readonly TopicPartition[],
  now: number,
  transactionVersion: number,
): TxnResult<TxnStep> {
  if (req.transactionalId === '') return refuse(ErrorCode.INVALID_REQUEST, 'The transactional id must not be empty');
  if (!m) return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `TransactionalId ${req.transactionalId} is unknown to this coordinator`);
  if (m.producerId !== req.producerId) {
    return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `TransactionalId ${m.transactionalId}: producer id ${req.producerId} is not ${m.producerId}`);
  }
  if (m.producerEpoch !== req.producerEpoch) {
    return fenced(api, req.version, `TransactionalId ${m.transactionalId}: producer epoch ${req.producerEpoch} is not ${m.producerEpoch}`);
  }
  if (m.pending || m.state === TxnState.PrepareCommit || m.state === TxnState.PrepareAbort) return concurrent(m);
  if (m.state === TxnState.Ongoing && containsAll(m.partitions, partitions)) return answerNow(m, { api, errorCode: ErrorCode.NONE });
  const starts = m.state === TxnState.Empty || m.state === TxnState.CompleteCommit || m.state === TxnState.CompleteAbort;
  const to = {
    ...recordFields(m),
    state: TxnState.Ongoing,
    partitions: unionPartitions(m.partitions, partitions),
    txnStartTimestamp: starts ? now : m.txnStartTimestamp,
    txnLastUpdateTimestamp: now,
    transactionVersion,
  };
  return prepareAndPersist(m, to, { type: 'AnswerAddPartitions', api });
}

/**
 * EndTxn: commit or abort the ongoing transaction; a retry of one already decided is answered as
 * Kafka does. v0-4 end a TV_0 transaction (the epoch stays); v5 a TV_2 one (see endTxnV2).
 * `allocateProducerId`: a v5 EndTxn whose epoch is exhausted takes a new producer id.
 */
export function endTxn(current: TxnMetadata | null, req: EndTxnRequest, now: number, allocateProducerId: ProducerIdAllocator): TxnResult<TxnStep> {
  if (req.transactionalId === '') return refuse(ErrorCode.INVALID_REQUEST, 'The transactional id must not be empty');
  const m = current;
  if (!m) return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `TransactionalId ${req.transactionalId} is unknown to this coordinator`);
  if (req.version >= 5) return endTxnV2(m, req, now, allocateProducerId);
  if (m.producerId !== req.producerId) {
    return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `TransactionalId ${m.transactionalId}: producer id ${req.producerId} is not ${m.producerId}`);
  }
  if (m.producerEpoch !== req.producerEpoch) {
    return fenced('EndTxn', req.version, `TransactionalId ${m.transactionalId}: producer epoch ${req.producerEpoch} is not ${m.producerEpoch}`);
  }
  if (m.pending) return concurrent(m);
  const commit = req.committed;
  const invalid = (): TxnResult<never> => invalidEnd(m, commit);
  switch (m.state) {
    case TxnState.Ongoing:
      return prepareEnd(m, commit ? TxnState.PrepareCommit : TxnState.PrepareAbort, false, TV_0, now, allocateProducerId, { type: 'WriteMarkers', answer: 'EndTxn', epochFence: false });
    case TxnState.CompleteCommit:
      return commit ? endAnswered(m) : invalid();
    case TxnState.CompleteAbort:
      return commit ? invalid() : endAnswered(m);
    case TxnState.PrepareCommit:
      return commit ? concurrent(m) : invalid();
    case TxnState.PrepareAbort:
      return commit ? invalid() : concurrent(m);
    case TxnState.Empty:
      return invalid();
    case TxnState.Dead:
    case TxnState.PrepareEpochFence:
      return neverReached(m);
    default:
      return assertNever(m.state, 'transaction state');
  }
}

/** A retried EndTxn of a transaction already ended as asked: answered with the producer id and epoch it goes on with. */
function endAnswered(m: TxnMetadata): TxnResult<TxnStep> {
  return answerNow(m, { api: 'EndTxn', errorCode: ErrorCode.NONE, producerId: m.producerId, producerEpoch: m.producerEpoch });
}

function invalidEnd(m: TxnMetadata, commit: boolean): TxnResult<never> {
  return refuse(ErrorCode.INVALID_TXN_STATE, `TransactionalId ${m.transactionalId}: its state is ${m.state}, but EndTxn asks to ${commit ? 'commit' : 'abort'}`);
}

/**
 * EndTxn v5 (KIP-890 part 2, Kafka 4.0's endTransaction): every commit or abort bumps the epoch.
 * Its retry (the answer was lost) comes with the epoch one below the bumped one, or after an
 * overflow with the previous producer id at the last epoch, and is answered with what the
 * producer goes on with; an abort with nothing added (Empty, or right after an ended
 * transaction) still ends a transaction of no partitions, bumping the epoch. An epoch neither
 * the current one nor a retry's is PRODUCER_FENCED.
 */
function endTxnV2(m: TxnMetadata, req: EndTxnRequest, now: number, allocateProducerId: ProducerIdAllocator): TxnResult<TxnStep> {
  const commit = req.committed;
  // first, so that a transition moving to a new producer id completes before the checks below
  if (m.pending) return concurrent(m);
  const retryOnOverflow = req.producerId === m.lastProducerId && req.producerId !== m.producerId && req.producerEpoch === MAX_PRODUCER_EPOCH - 1 && m.producerEpoch === 0;
  const retryOnEpochBump = req.producerId === m.producerId && m.producerEpoch === req.producerEpoch + 1;
  if (m.producerId !== req.producerId && !retryOnOverflow) {
    return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `TransactionalId ${m.transactionalId}: producer id ${req.producerId} is not ${m.producerId}`);
  }
  let validEpoch: boolean;
  switch (m.state) {
    case TxnState.Ongoing:
    case TxnState.Empty:
      validEpoch = req.producerEpoch === m.producerEpoch;
      break;
    case TxnState.PrepareCommit:
    case TxnState.PrepareAbort:
      validEpoch = retryOnEpochBump;
      break;
    case TxnState.CompleteCommit:
    case TxnState.CompleteAbort:
      validEpoch = retryOnEpochBump || retryOnOverflow || req.producerEpoch === m.producerEpoch;
      break;
    case TxnState.Dead:
    case TxnState.PrepareEpochFence:
      return neverReached(m);
    default:
      return assertNever(m.state, 'transaction state');
  }
  if (!validEpoch) {
    return fenced('EndTxn', req.version, `TransactionalId ${m.transactionalId}: producer epoch ${req.producerEpoch} is neither ${m.producerEpoch} nor the retry of the last end of a transaction`);
  }
  const isRetry = retryOnEpochBump || retryOnOverflow;
  const then: AfterPersist = { type: 'WriteMarkers', answer: 'EndTxn', epochFence: false };
  const end = (state: TxnState.PrepareCommit | TxnState.PrepareAbort, noPartitionAdded: boolean) => prepareEnd(m, state, noPartitionAdded, TV_2, now, allocateProducerId, then);
  switch (m.state) {
    case TxnState.Ongoing:
      return end(commit ? TxnState.PrepareCommit : TxnState.PrepareAbort, false);
    case TxnState.CompleteCommit:
      if (commit) return isRetry ? endAnswered(m) : invalidEnd(m, commit);
      return isRetry ? invalidEnd(m, commit) : end(TxnState.PrepareAbort, true);
    case TxnState.CompleteAbort:
      if (commit) return invalidEnd(m, commit);
      return isRetry ? endAnswered(m) : end(TxnState.PrepareAbort, true);
    case TxnState.PrepareCommit:
      return commit ? concurrent(m) : invalidEnd(m, commit);
    case TxnState.PrepareAbort:
      return commit ? invalidEnd(m, commit) : concurrent(m);
    case TxnState.Empty:
      return commit ? invalidEnd(m, commit) : end(TxnState.PrepareAbort, true);
    default:
      return neverReached(m);
  }
}

/** Kafka's prepareComplete: CompleteCommit/CompleteAbort prepared, and the markers to write before it may be written. */
function prepareComplete(m: TxnMetadata, now: number): TxnResult<{ metadata: TxnMetadata; markers: TxnMarkers }> {
  const commit = m.state === TxnState.PrepareCommit;
  const base = { ...recordFields(m), state: commit ? TxnState.CompleteCommit : TxnState.CompleteAbort, partitions: [], txnLastUpdateTimestamp: now };
  // an exhausted epoch bumped by a TV_2 end: the producer goes on as the new producer id, at epoch 0
  const to = m.nextProducerId === NO_PRODUCER_ID ? base : { ...base, producerId: m.nextProducerId, producerEpoch: 0, lastProducerId: m.producerId, nextProducerId: NO_PRODUCER_ID };
  const prepared = prepareTransition({ ...m, hasFailedEpochFence: false }, to, { type: 'Complete', markersWritten: false });
  if (!prepared.ok) return prepared;
  const markers: TxnMarkers = {
    transactionalId: m.transactionalId,
    producerId: m.producerId,
    producerEpoch: m.producerEpoch,
    result: commit ? 'COMMIT' : 'ABORT',
    partitions: m.partitions,
    transactionVersion: m.transactionVersion,
  };
  return ok({ metadata: prepared.value, markers });
}

/** The pending transition's record was written. */
export function onPersisted(m: TxnMetadata, now: number): TxnResult<TxnStep> {
  if (!m.pending) return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${m.transactionalId}: nothing was being written`);
  const then = m.pending.then;
  if (then.type === 'Remove') return ok({ metadata: null, effects: [] });
  if (then.type === 'Complete' && !then.markersWritten) {
    return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${m.transactionalId}: ${m.pending.to.state} written before its markers`);
  }
  const completed = completeTransition(m);
  if (!completed.ok) return completed;
  const c = completed.value;
  switch (then.type) {
    case 'AnswerInitProducerId':
      return answerNow(c, { api: 'InitProducerId', errorCode: ErrorCode.NONE, producerId: c.producerId, producerEpoch: c.producerEpoch });
    case 'AnswerAddPartitions':
      return answerNow(c, { api: then.api, errorCode: ErrorCode.NONE });
    case 'WriteMarkers': {
      const next = prepareComplete(c, now);
      if (!next.ok) return next;
      const effects: TxnEffect[] = [];
      if (then.answer === 'EndTxn') {
        // the id and epoch the producer goes on with: those of the completed transaction
        const after = next.value.metadata.pending!.to;
        effects.push({ type: 'Reply', reply: { api: 'EndTxn', errorCode: ErrorCode.NONE, producerId: after.producerId, producerEpoch: after.producerEpoch } });
      }
      if (then.answer === 'InitProducerId') {
        const retry = { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS, message: `TransactionalId ${c.transactionalId}: its ongoing transaction is being aborted; retry` };
        effects.push({ type: 'Reply', reply: errorReply('InitProducerId', retry) });
      }
      effects.push({ type: 'WriteMarkers', markers: next.value.markers });
      return ok({ metadata: next.value.metadata, effects });
    }
    case 'Complete':
      return ok({ metadata: c, effects: [] });
    default:
      return assertNever(then, 'pending transition');
  }
}

/** Every marker of the prepared transaction is written: CompleteCommit/CompleteAbort may be written now. */
export function onMarkersWritten(m: TxnMetadata): TxnResult<TxnStep> {
  const pending = m.pending;
  if (!pending || pending.then.type !== 'Complete' || pending.then.markersWritten) {
    return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${m.transactionalId}: no markers were being written`);
  }
  const metadata: TxnMetadata = { ...m, pending: { to: pending.to, then: { type: 'Complete', markersWritten: true } } };
  return ok({ metadata, effects: [persistOf(metadata)] });
}

/** Kafka's mapping of a failed __transaction_state append to the error a client is given. */
export function coordinatorErrorForAppend(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return errorCode;
  }
}

/**
 * The pending transition's record could not be written (`appendErrorCode` as the log gave it):
 * the transition is dropped and the client told; a Complete record is written again while the
 * coordinator is merely unavailable, and otherwise left for the next load to finish.
 */
export function onPersistFailed(m: TxnMetadata, appendErrorCode: number): TxnResult<TxnStep> {
  const pending = m.pending;
  if (!pending || appendErrorCode === ErrorCode.NONE) {
    return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${m.transactionalId}: no failed write to handle`);
  }
  const errorCode = coordinatorErrorForAppend(appendErrorCode);
  const error: TxnError = { errorCode, message: `TransactionalId ${m.transactionalId}: writing ${pending.to.state} to ${TRANSACTION_STATE_TOPIC} failed` };
  const dropped: TxnMetadata = { ...m, pending: null };
  const then = pending.then;
  switch (then.type) {
    case 'AnswerInitProducerId':
      return answerNow(dropped, errorReply('InitProducerId', error));
    case 'AnswerAddPartitions':
      return answerNow(dropped, errorReply(then.api, error));
    case 'WriteMarkers': {
      const metadata = then.epochFence ? { ...dropped, hasFailedEpochFence: true } : dropped;
      return ok({ metadata, effects: then.answer ? [{ type: 'Reply', reply: errorReply(then.answer, error) }] : [] });
    }
    case 'Complete':
      if (!then.markersWritten) return refuse(ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${m.transactionalId}: ${pending.to.state} was not being written`);
      return ok({ metadata: m, effects: errorCode === ErrorCode.COORDINATOR_NOT_AVAILABLE ? [persistOf(m)] : [] });
    case 'Remove':
      return ok({ metadata: dropped, effects: [] });
    default:
      return assertNever(then, 'pending transition');
  }
}

export interface TimedOutTransaction {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
}

/** Ongoing transactions, with nothing pending, open longer than their timeout at `now` (Kafka's timedOutTransactions). */
export function timedOutTransactions(table: ReadonlyMap<string, TxnMetadata>, now: number): TimedOutTransaction[] {
  const out: TimedOutTransaction[] = [];
  for (const m of table.values()) {
    if (!m.pending && m.state === TxnState.Ongoing && m.txnStartTimestamp + m.txnTimeoutMs < now) {
      out.push({ transactionalId: m.transactionalId, producerId: m.producerId, producerEpoch: m.producerEpoch });
    }
  }
  return out;
}

/** Abort a timed-out transaction as Kafka's abortTimedOutTransactions: bump the epoch (fencing its producer), write PrepareAbort, then markers. */
export function abortTimedOutTransaction(m: TxnMetadata, timedOut: TimedOutTransaction, now: number, allocateProducerId: ProducerIdAllocator): TxnResult<TxnStep> {
  if (m.producerId !== timedOut.producerId) {
    return refuse(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `TransactionalId ${m.transactionalId}: producer id is ${m.producerId}, not ${timedOut.producerId}`);
  }
  return fenceAndAbort(m, null, now, allocateProducerId);
}

/** Unused for transactional.id.expiration.ms with no transaction in flight (Kafka's shouldExpire). */
export function shouldExpire(m: TxnMetadata, now: number, config: TxnConfig): boolean {
  return !m.pending && isExpirationAllowed(m.state) && m.txnLastUpdateTimestamp <= now - config.transactionalIdExpirationMs;
}

export function expiredTransactionalIds(table: ReadonlyMap<string, TxnMetadata>, now: number, config: TxnConfig): string[] {
  return [...table.values()].filter((m) => shouldExpire(m, now, config)).map((m) => m.transactionalId);
}

/** Expire an unused id: Dead is prepared and a tombstone written; once it is, the id is dropped. */
export function expireTransactionalId(m: TxnMetadata, now: number, config: TxnConfig): TxnResult<TxnStep> {
  if (m.pending) return concurrent(m);
  if (!shouldExpire(m, now, config)) {
    return refuse(ErrorCode.INVALID_TXN_STATE, `TransactionalId ${m.transactionalId} (${m.state}, last updated at ${m.txnLastUpdateTimestamp}) is not expired at ${now}`);
  }
  return prepareAndPersist(m, { ...recordFields(m), state: TxnState.Dead, partitions: [] }, { type: 'Remove' });
}

/** After a takeover (replay): a transaction found prepared is completed, its markers written again. */
export function resumeLoaded(m: TxnMetadata, now: number): TxnResult<TxnStep> {
  if (m.pending || (m.state !== TxnState.PrepareCommit && m.state !== TxnState.PrepareAbort)) return ok({ metadata: m, effects: [] });
  const next = prepareComplete(m, now);
  if (!next.ok) return next;
  return ok({ metadata: next.value.metadata, effects: [{ type: 'WriteMarkers', markers: next.value.markers }] });
}
