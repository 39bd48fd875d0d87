/**
 * The transaction coordinator, as Kafka's TransactionCoordinator (KIP-98): one per broker, a
 * child of the broker at txnCoordinatorPath(brokerId). It coordinates the transactional ids
 * that hash (transactionStatePartitionFor) to the __transaction_state partitions its broker
 * leads. The decisions are the pure core's (txn-state-machine.ts); this actor carries out their
 * effects: it writes each transition's record through the local leader replica (acks=all,
 * txn-log.ts), answers the producer, and writes the markers that end a transaction through the
 * leaders of its partitions, retrying until each is written or its topic is gone.
 *
 * A partition taken over is loaded as the group coordinator loads its own
 * (group-coordinator/partition-load.ts) before its ids are answered for.
 *
 * Owned state: the __transaction_state partitions this broker leads (Loading -> Active; the
 * coordinator epoch is the partition's leader epoch) with the records of the ones loading; per
 * transactional id: its TxnMetadata, who waits for its pending record, the append in flight or
 * the record to write again, and the marker writes of its prepared transaction; the appends in
 * flight; spare producer ids from the broker and the InitProducerId and EndTxn v5 requests
 * waiting for one.
 * Handles: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn (producers, through the
 * Kafka listener); BecomeTxnCoordinator, ResignTxnCoordinator (its broker);
 * DescribeTransactions, ListTransactions (admins: Kafka's APIs 65, 66, txn-listing.ts);
 * VerifyPartitionsInTxn (partition leaders' brokers, before a transaction's first batch;
 * txn-verify.ts); AddPartitionsForProducer (the same brokers, adding a TV_2 producer's
 * partitions: KIP-890 part 2);
 * DescribeTxnCoordinator (tests, admin); internal TxnLoadRead, TxnLoadNext, TxnAppendDone,
 * TxnPersistRetry, ProducerIdFetched, SendTxnMarkers, TxnMarkersSent, AbortTimedOutTransactions,
 * ExpireTransactionalIds.
 * Emits: TxnCoordinatorReply and TxnCoordinatorDescription; ReplicaRead (loading) and Produce
 * acks=-1 (records) to the local __transaction_state replicas; Metadata and InitProducerId to
 * its broker; WriteTxnMarkers to the broker leading each partition of a transaction.
 *
 * Bounded growth: the topic is compacted (one key per transactional id, the newest record
 * kept) and ids unused for transactional.id.expiration.ms get a tombstone and are dropped.
 */
import { NO_LEADER, brokerPath, replicaPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import type { ActorContext, BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { BrokerMsg, InitProducerIdResult, MetadataResponse, WriteTxnMarkersResponse } from '../broker/messages.js';
import { offsetsPartitionFor } from '../group-coordinator/messages.js';
import type { ProduceResponse, ReplicaDescription, ReplicaMsg } from '../partition-replica/messages.js';
import { readForLoad, takeLoadRead } from '../group-coordinator/partition-load.js';
import { markerBackoffMs, markerOutcome, routeMarkers } from './markers.js';
import {
  transactionStatePartitionFor,
  type DescribeTransactionsResult,
  type DescribedTransaction,
  type ListTransactionsResult,
  type TxnCoordinatorDescription,
  type TxnCoordinatorMsg,
  type TxnCoordinatorReply,
  type VerifyPartitionsInTxnResult,
} from './messages.js';
import { describeTransaction, listTransactions, transactionRefused } from './txn-listing.js';
import { buildTxnLogBatch, readTxnLogBatches } from './txn-log.js';
import { verifyPartitionsInTxn, type PartitionVerification } from './txn-verify.js';
import { TRANSACTION_STATE_TOPIC, ok, refuse, replay, unionPartitions, type TopicPartition, type TxnLogRecord, type TxnMetadata, type TxnResult } from './txn-metadata.js';
import {
  abortTimedOutTransaction,
  addOffsetsToTxn,
  addPartitionsImplicitly,
  addPartitionsToTxn,
  endTxn,
  errorReply,
  expireTransactionalId,
  expiredTransactionalIds,
  initProducerId,
  onMarkersWritten,
  onPersistFailed,
  onPersisted,
  resumeLoaded,
  timedOutTransactions,
  type ProducerIdAllocator,
  type TxnApi,
  type TxnConfig,
  type TxnMarkers,
  type TxnReply,
  type TxnStep,
} from './txn-state-machine.js';
import { replicaAskFailureCode } from '../partition-replica/ask-failure.js';

export interface TxnCoordinatorArgs {
  brokerId: number;
  /** transaction.state.log.num.partitions, until a BecomeTxnCoordinator names the topic's real count. */
  transactionStateNumPartitions?: number;
  /** offsets.topic.num.partitions: AddOffsetsToTxn's group partition when the request names no count. */
  offsetsTopicNumPartitions?: number;
  /** transaction.max.timeout.ms. */
  transactionMaxTimeoutMs?: number;
  /** transactional.id.expiration.ms. */
  transactionalIdExpirationMs?: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms. */
  abortTimedOutTransactionsIntervalMs?: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms. */
  removeExpiredTransactionalIdsIntervalMs?: number;
  /** request.timeout.ms: how long an append to __transaction_state or a marker write waits for the ISR. */
  requestTimeoutMs?: number;
  /** Backoff between rounds of marker writes: doubling from this, at most markerRetryBackoffMaxMs. */
  markerRetryBackoffMs?: number;
  markerRetryBackoffMaxMs?: number;
  /** Backoff before a record whose write failed retriably is written again. */
  persistRetryBackoffMs?: number;
  /** Bytes per replica read while loading a partition. */
  loadBufferBytes?: number;
  /** Backoff between load reads that found nothing new yet (the high watermark lags) or failed. */
  loadRetryBackoffMs?: number;
  /** The local replica of a __transaction_state partition (default: the broker's child replica actor). */
  replicaFor?: (partition: number) => ActorRef<ReplicaMsg>;
  /** The local broker: Metadata and producer ids (default: the broker actor on this node). */
  broker?: ActorRef<BrokerMsg>;
  /** The broker actor leading a marker's partition (default: brokerPath on the node the metadata names). */
  brokerAt?: (brokerId: number, node: string) => ActorRef<BrokerMsg>;
}

interface TxnCoordinatorConfig {
  txn: TxnConfig;
  offsetsTopicNumPartitions: number;
  abortIntervalMs: number;
  expireIntervalMs: number;
  requestTimeoutMs: number;
  markerRetryBackoffMs: number;
  markerRetryBackoffMaxMs: number;
  persistRetryBackoffMs: number;
  loadBufferBytes: number;
  loadRetryBackoffMs: number;
}

/** A __transaction_state partition this broker leads. */
export enum TxnPartitionStatus {
  /** Its log is being replayed: its ids answer COORDINATOR_LOAD_IN_PROGRESS. */
  Loading = 'Loading',
  /** Loaded: this coordinator answers for its ids. */
  Active = 'Active',
}

interface OwnedPartition {
  partition: number;
  /** The partition's leader epoch: the epoch of every marker written for its transactions. */
  coordinatorEpoch: number;
  status: TxnPartitionStatus;
  loadId: number;
  fetchOffset: number;
  /** The log end offset at the first read: loading ends once everything below it is read. */
  targetOffset: number;
  /** The records read so far while loading (plain data for replay). */
  loaded: unknown[];
  loadStartedMs: number;
  ids: Set<string>;
}

interface Waiter {
  token: ReplyToken;
  api: TxnApi;
}

interface MarkerJob {
  id: number;
  markers: TxnMarkers;
  remaining: TopicPartition[];
  attempt: number;
}

interface TxnEntry {
  readonly transactionalId: string;
  readonly partition: number;
  metadata: TxnMetadata;
  /** Who is answered once the pending record is written (null: nobody, e.g. a timeout abort). */
  waiter: Waiter | null;
  /** Bumped by every write of a record: a settled append or a retry timer of an older one is ignored. */
  appendSeq: number;
  /** A record whose write failed retriably, written again after a backoff. */
  retryRecord: TxnLogRecord | null;
  markers: MarkerJob | null;
}

interface PendingAppend {
  transactionalId: string;
  partition: number;
  coordinatorEpoch: number;
  appendSeq: number;
}

type InitProducerIdMsg = Extract<TxnCoordinatorMsg, { type: 'InitProducerId' }>;
type EndTxnMsg = Extract<TxnCoordinatorMsg, { type: 'EndTxn' }>;

/** A request that needs a new producer id, waiting for one from the broker. */
interface IdWaiter {
  msg: InitProducerIdMsg | EndTxnMsg;
  token: ReplyToken | null;
}

export interface TxnCoordinatorState {
  brokerId: number;
  cfg: TxnCoordinatorConfig;
  numPartitions: number;
  partitions: Map<number, OwnedPartition>;
  txns: Map<string, TxnEntry>;
  appends: Map<number, PendingAppend>;
  seq: number;
  /** Producer ids fetched from the broker and not yet handed out. */
  spareProducerIds: number[];
  /** InitProducerId and EndTxn requests waiting for a producer id from the broker. */
  idWaiters: IdWaiter[];
  /** The one ask of the broker for a producer id in flight. */
  idFetchInFlight: boolean;
  replicaFor: (partition: number) => ActorRef<ReplicaMsg>;
  broker: ActorRef<BrokerMsg>;
  brokerAt: (brokerId: number, node: string) => ActorRef<BrokerMsg>;
}

type Ctx = BaseContext<TxnCoordinatorMsg>;

const ABORT_TIMER = 'abort-timed-out';
const EXPIRE_TIMER = 'expire-ids';
const loadTimerKey = (partition: number) => `load-${partition}`;
const markerTimerKey = (id: string) => JSON.stringify(['markers', id]);
const persistTimerKey = (id: string) => JSON.stringify(['persist', id]);

function resolveConfig(a: TxnCoordinatorArgs): TxnCoordinatorConfig {
  return {
    txn: { transactionMaxTimeoutMs: a.transactionMaxTimeoutMs ?? 900_000, transactionalIdExpirationMs: a.transactionalIdExpirationMs ?? 604_800_000 },
    offsetsTopicNumPartitions: a.offsetsTopicNumPartitions ?? 50,
    abortIntervalMs: a.abortTimedOutTransactionsIntervalMs ?? 10_000,
    expireIntervalMs: a.removeExpiredTransactionalIdsIntervalMs ?? 3_600_000,
    requestTimeoutMs: a.requestTimeoutMs ?? 30_000,
    markerRetryBackoffMs: a.markerRetryBackoffMs ?? 100,
    markerRetryBackoffMaxMs: a.markerRetryBackoffMaxMs ?? 2_000,
    persistRetryBackoffMs: a.persistRetryBackoffMs ?? 100,
    loadBufferBytes: a.loadBufferBytes ?? 5 * 1024 * 1024,
    loadRetryBackoffMs: a.loadRetryBackoffMs ?? 50,
  };
}

function reply(ctx: Ctx, waiter: Waiter | null, r: TxnReply): void {
  if (waiter) ctx.replyTo(waiter.token, { type: 'TxnCoordinatorReply', ...r } satisfies TxnCoordinatorReply);
}

function refuseTo(ctx: Ctx, waiter: Waiter | null, errorCode: number, message: string): void {
  if (waiter) reply(ctx, waiter, errorReply(waiter.api, { errorCode, message }));
}

// ---------------------------------------------------------------------------------------------
// Carrying out the core's steps

/** Keeps the step's metadata (dropping the id on null) and carries out its effects in order. */
function applyStep(s: TxnCoordinatorState, ctx: Ctx, partition: number, transactionalId: string, step: TxnStep, waiter: Waiter | null, retryPersist = false): void {
  let entry = s.txns.get(transactionalId);
  if (step.metadata === null) {
    if (entry) dropEntry(s, ctx, entry);
    entry = undefined;
  } else if (entry) {
    entry.metadata = step.metadata;
  } else {
    entry = { transactionalId, partition, metadata: step.metadata, waiter: null, appendSeq: 0, retryRecord: null, markers: null };
    s.txns.set(transactionalId, entry);
    s.partitions.get(partition)?.ids.add(transactionalId);
  }
  let w = waiter;
  for (const effect of step.effects) {
    switch (effect.type) {
      case 'Reply':
        reply(ctx, w, effect.reply);
        w = null;
        break;
      case 'Persist':
        if (!entry) break;
        entry.waiter = w;
        w = null;
        persist(s, ctx, entry, effect.record, retryPersist);
        break;
      case 'WriteMarkers':
        if (entry) startMarkers(s, ctx, entry, effect.markers);
        break;
      default:
        assertNever(effect, 'transaction coordinator effect');
    }
  }
  // every step taken for a request answers it or writes a record first; never leave it hanging
  if (w) refuseTo(ctx, w, ErrorCode.UNKNOWN_SERVER_ERROR, `TransactionalId ${transactionalId}: no answer was decided`);
}

function dropEntry(s: TxnCoordinatorState, ctx: Ctx, entry: TxnEntry): void {
  s.txns.delete(entry.transactionalId);
  s.partitions.get(entry.partition)?.ids.delete(entry.transactionalId);
  ctx.timers.cancel(markerTimerKey(entry.transactionalId));
  ctx.timers.cancel(persistTimerKey(entry.transactionalId));
  entry.markers = null;
}

/** Writes `record` (now, or after a backoff when the last write of it failed). */
function persist(s: TxnCoordinatorState, ctx: Ctx, entry: TxnEntry, record: TxnLogRecord, later: boolean): void {
  const appendSeq = ++entry.appendSeq;
  if (later) {
    entry.retryRecord = record;
    ctx.timers.startSingle(persistTimerKey(entry.transactionalId), s.cfg.persistRetryBackoffMs, { type: 'TxnPersistRetry', transactionalId: entry.transactionalId, appendSeq });
    return;
  }
  entry.retryRecord = null;
  const owned = s.partitions.get(entry.partition);
  const appendId = ++s.seq;
  s.appends.set(appendId, { transactionalId: entry.transactionalId, partition: entry.partition, coordinatorEpoch: owned?.coordinatorEpoch ?? -1, appendSeq });
  const done = (errorCode: number, errorMessage?: string) => {
    const m: TxnCoordinatorMsg = { type: 'TxnAppendDone', appendId, errorCode };
    if (errorMessage) m.errorMessage = errorMessage;
    ctx.send(ctx.self, m);
  };
  if (!owned || owned.status !== TxnPartitionStatus.Active) return done(ErrorCode.NOT_LEADER_OR_FOLLOWER, `${TRANSACTION_STATE_TOPIC}-${entry.partition} is not led here`);
  const batch = buildTxnLogBatch(record, ctx.clock.now());
  const t = s.cfg.requestTimeoutMs;
  void ctx.ask<ProduceResponse>(s.replicaFor(entry.partition), { type: 'Produce', acks: -1, timeoutMs: t, records: batch }, { timeoutMs: t + 5_000 }).then((r) => {
    if (isFailure(r)) done(replicaAskFailureCode(r), r.message);
    else done(r.errorCode, r.errorMessage ?? undefined);
  });
}

function startMarkers(s: TxnCoordinatorState, ctx: Ctx, entry: TxnEntry, markers: TxnMarkers): void {
  const job: MarkerJob = { id: ++s.seq, markers, remaining: unionPartitions(markers.partitions), attempt: 0 };
  entry.markers = job;
  ctx.send(ctx.self, { type: 'SendTxnMarkers', transactionalId: entry.transactionalId, jobId: job.id });
}

/**
 * One round of marker writes for the partitions still without theirs: the broker's metadata
 * routes them to their leaders; the outcome comes back as TxnMarkersSent (the mailbox is not held).
 */
function sendMarkerRound(s: TxnCoordinatorState, ctx: Ctx, entry: TxnEntry, job: MarkerJob): void {
  const owned = s.partitions.get(entry.partition);
  if (!owned) return;
  const coordinatorEpoch = owned.coordinatorEpoch;
  const { transactionalId } = entry;
  const { producerId, producerEpoch, result, transactionVersion } = job.markers;
  const remaining = [...job.remaining];
  const t = s.cfg.requestTimeoutMs;
  void (async () => {
    const done: TopicPartition[] = [];
    const errors: string[] = [];
    let fenced = false;
    const topics = [...new Set(remaining.map((p) => p.topic))];
    const md = await ctx.ask<MetadataResponse>(s.broker, { type: 'Metadata', topics }, { timeoutMs: t });
    if (isFailure(md)) {
      errors.push(`no metadata from the broker: ${md.message}`);
    } else {
      const routing = routeMarkers(md.metadata, remaining);
      done.push(...routing.gone);
      for (const p of routing.waiting) errors.push(`${p.topic}-${p.partition}: no leader`);
      await Promise.all(
        routing.routes.map(async (route) => {
          const byTopic = new Map<string, number[]>();
          for (const p of route.partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
          const msg: BrokerMsg = {
            type: 'WriteTxnMarkers',
            markers: [{ producerId, producerEpoch, coordinatorEpoch, commit: result === 'COMMIT', topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })), transactionVersion }],
            timeoutMs: t,
          };
          const r = await ctx.ask<WriteTxnMarkersResponse>(s.brokerAt(route.leader, route.node), msg, { timeoutMs: t + 5_000 });
          if (isFailure(r)) {
            errors.push(`broker ${route.leader}: ${r.message}`);
            return;
          }
          for (const mk of r.markers) {
            for (const topic of mk.topics) {
              for (const p of topic.partitions) {
                const outcome = markerOutcome(p.errorCode);
                if (outcome === 'done') done.push({ topic: topic.name, partition: p.partition });
                else errors.push(`${topic.name}-${p.partition}: error ${p.errorCode}${p.errorMessage ? ` (${p.errorMessage})` : ''}`);
                if (outcome === 'fenced') fenced = true;
              }
            }
          }
        }),
      );
    }
    ctx.send(ctx.self, { type: 'TxnMarkersSent', transactionalId, jobId: job.id, done, fenced, errors });
  })();
}

// ---------------------------------------------------------------------------------------------
// Requests

/**
 * Can this coordinator act for `transactionalId` now? NOT_COORDINATOR when its partition is not
 * led here, COORDINATOR_LOAD_IN_PROGRESS while that partition is being replayed; else its partition.
 */
function ownerOf(s: TxnCoordinatorState, transactionalId: string): { partition: number } | { errorCode: number; message: string } {
  const partition = transactionStatePartitionFor(transactionalId, s.numPartitions);
  const owned = s.partitions.get(partition);
  if (!owned) return { errorCode: ErrorCode.NOT_COORDINATOR, message: `broker ${s.brokerId} does not coordinate ${TRANSACTION_STATE_TOPIC}-${partition}` };
  if (owned.status === TxnPartitionStatus.Loading) return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, message: `${TRANSACTION_STATE_TOPIC}-${partition} is loading` };
  return { partition };
}

function handleRequest(
  s: TxnCoordinatorState,
  ctx: Ctx,
  api: TxnApi,
  transactionalId: string,
  token: ReplyToken | null,
  decide: (current: TxnMetadata | null, now: number) => TxnResult<TxnStep>,
): void {
  const waiter = token ? { token, api } : null;
  const now = ctx.clock.now();
  if (transactionalId === '') {
    // the core refuses it (INVALID_REQUEST), as Kafka does, whichever partition it would hash to
    const r = decide(null, now);
    if (!r.ok) refuseTo(ctx, waiter, r.error.errorCode, r.error.message);
    return;
  }
  const owner = ownerOf(s, transactionalId);
  if ('errorCode' in owner) return refuseTo(ctx, waiter, owner.errorCode, owner.message);
  const r = decide(s.txns.get(transactionalId)?.metadata ?? null, now);
  if (!r.ok) return refuseTo(ctx, waiter, r.error.errorCode, r.error.message);
  applyStep(s, ctx, owner.partition, transactionalId, r.value, waiter);
}

/** A request's partitions when each is a topic name and a partition index, else null. */
function wellFormedPartitions(partitions: readonly TopicPartition[]): TopicPartition[] | null {
  const ok = partitions.filter((p) => typeof p?.topic === 'string' && Number.isInteger(p?.partition) && p.partition >= 0);
  return ok.length === partitions.length ? ok : null;
}

/** Partitions joining a transaction (a producer's AddPartitionsToTxn, or a broker's for a TV_2 producer): INVALID_REQUEST when malformed. */
function handleAddPartitions(
  s: TxnCoordinatorState,
  ctx: ActorContext<TxnCoordinatorMsg>,
  m: { transactionalId: string; partitions: TopicPartition[] },
  decide: (current: TxnMetadata | null, now: number, partitions: TopicPartition[]) => TxnResult<TxnStep>,
): void {
  const partitions = wellFormedPartitions(m.partitions);
  const token = tokenOf(ctx);
  if (!partitions) return refuseTo(ctx, token && { token, api: 'AddPartitionsToTxn' }, ErrorCode.INVALID_REQUEST, 'malformed partitions');
  handleRequest(s, ctx, 'AddPartitionsToTxn', m.transactionalId, token, (current, now) => decide(current, now, partitions));
}

/** Hands out the spare producer ids; `short` once one was wanted and there was none. */
function idAllocator(s: TxnCoordinatorState): { allocate: ProducerIdAllocator; short: boolean } {
  const a = {
    short: false,
    allocate: (): TxnResult<number> => {
      const id = s.spareProducerIds.shift();
      if (id !== undefined) return ok(id);
      a.short = true;
      return refuse(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'waiting for a producer id from the broker');
    },
  };
  return a;
}

/** Asks the broker for a producer id unless an ask is in flight; `w` is decided again once it comes. */
function waitForProducerId(s: TxnCoordinatorState, ctx: Ctx, w: IdWaiter | null): void {
  if (w) s.idWaiters.push(w);
  if (s.idFetchInFlight) return;
  s.idFetchInFlight = true;
  fetchProducerId(s, ctx);
}

/**
 * A request whose decision may need a new producer id (InitProducerId; EndTxn v5 with an
 * exhausted epoch): decided without effect first, and when it needed an id there was none of,
 * it waits for one from the broker and is decided again.
 */
function handleNeedingProducerId(
  s: TxnCoordinatorState,
  ctx: Ctx,
  w: IdWaiter,
  decide: (current: TxnMetadata | null, now: number, allocate: ProducerIdAllocator) => TxnResult<TxnStep>,
): void {
  const { msg, token } = w;
  const alloc = idAllocator(s);
  const owner = msg.transactionalId === '' ? null : ownerOf(s, msg.transactionalId);
  if (owner && !('errorCode' in owner)) {
    const probe = decide(s.txns.get(msg.transactionalId)?.metadata ?? null, ctx.clock.now(), alloc.allocate);
    if (alloc.short) return waitForProducerId(s, ctx, w);
    const waiter = token ? { token, api: msg.type } : null;
    if (!probe.ok) return refuseTo(ctx, waiter, probe.error.errorCode, probe.error.message);
    return applyStep(s, ctx, owner.partition, msg.transactionalId, probe.value, waiter);
  }
  handleRequest(s, ctx, msg.type, msg.transactionalId, token, (current, now) => decide(current, now, alloc.allocate));
}

function handleIdWaiter(s: TxnCoordinatorState, ctx: Ctx, w: IdWaiter): void {
  const m = w.msg;
  if (m.type === 'InitProducerId') handleNeedingProducerId(s, ctx, w, (current, now, allocateProducerId) => initProducerId(current, m, now, { config: s.cfg.txn, allocateProducerId }));
  else handleNeedingProducerId(s, ctx, w, (current, now, allocateProducerId) => endTxn(current, m, now, allocateProducerId));
}

/** Asks the broker for one producer id (from its block from the controller). */
function fetchProducerId(s: TxnCoordinatorState, ctx: Ctx): void {
  void ctx.ask<InitProducerIdResult>(s.broker, { type: 'InitProducerId' }, { timeoutMs: s.cfg.requestTimeoutMs }).then((r) => {
    if (isFailure(r)) ctx.send(ctx.self, { type: 'ProducerIdFetched', errorCode: r.errorCode, errorMessage: r.message, producerId: -1 });
    else {
      const m: TxnCoordinatorMsg = { type: 'ProducerIdFetched', errorCode: r.errorCode, producerId: r.producerId };
      if (r.errorMessage) m.errorMessage = r.errorMessage;
      ctx.send(ctx.self, m);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Loading and unloading partitions

function readNext(s: TxnCoordinatorState, ctx: Ctx, owned: OwnedPartition): void {
  const { partition, loadId, fetchOffset, coordinatorEpoch } = owned;
  void readForLoad(ctx, s.replicaFor(partition), { fetchOffset, leaderEpoch: coordinatorEpoch, maxBytes: s.cfg.loadBufferBytes, timeoutMs: s.cfg.requestTimeoutMs }).then((r) =>
    ctx.send(ctx.self, { type: 'TxnLoadRead', partition, loadId, ...r } satisfies TxnCoordinatorMsg),
  );
}

/** The partition's log is read: its ids are rebuilt, and transactions found prepared get their markers written. */
function finishLoad(s: TxnCoordinatorState, ctx: Ctx, owned: OwnedPartition): void {
  const { table, invalid } = replay(owned.loaded);
  owned.loaded = [];
  owned.status = TxnPartitionStatus.Active;
  if (invalid.length > 0) ctx.log.warn('skipped unreadable records of a transaction state partition', { partition: owned.partition, count: invalid.length, first: invalid[0] });
  const now = ctx.clock.now();
  let resumed = 0;
  for (const [id, metadata] of table) {
    if (s.txns.has(id)) {
      ctx.log.warn('transactional id found in two transaction state partitions: keeping the one loaded first', { transactionalId: id, partition: owned.partition });
      continue;
    }
    applyStep(s, ctx, owned.partition, id, { metadata, effects: [] }, null);
    const r = resumeLoaded(metadata, now);
    if (!r.ok) {
      ctx.log.error('a loaded transaction could not be resumed', { transactionalId: id, errorCode: r.error.errorCode, reason: r.error.message });
      continue;
    }
    if (r.value.effects.length > 0) resumed++;
    applyStep(s, ctx, owned.partition, id, r.value, null);
  }
  ctx.log.info('loaded transaction state partition', {
    partition: owned.partition,
    coordinatorEpoch: owned.coordinatorEpoch,
    transactionalIds: owned.ids.size,
    resumed,
    endOffset: owned.fetchOffset,
    ms: ctx.clock.now() - owned.loadStartedMs,
  });
}

function unloadPartition(s: TxnCoordinatorState, ctx: Ctx, partition: number, why: string): void {
  const owned = s.partitions.get(partition);
  if (!owned) return;
  s.partitions.delete(partition);
  ctx.timers.cancel(loadTimerKey(partition));
  for (const id of [...owned.ids]) {
    const entry = s.txns.get(id);
    if (!entry) continue;
    refuseTo(ctx, entry.waiter, ErrorCode.NOT_COORDINATOR, `broker ${s.brokerId} no longer coordinates ${TRANSACTION_STATE_TOPIC}-${partition}`);
    entry.waiter = null;
    dropEntry(s, ctx, entry);
  }
  for (const [id, a] of [...s.appends]) if (a.partition === partition) s.appends.delete(id);
  ctx.log.info('unloaded transaction state partition', { partition, coordinatorEpoch: owned.coordinatorEpoch, transactionalIds: owned.ids.size, why });
}

/** The metadata of the active partitions' ids, per partition. */
function activeTables(s: TxnCoordinatorState): Map<string, TxnMetadata>[] {
  const tables: Map<string, TxnMetadata>[] = [];
  for (const owned of s.partitions.values()) {
    if (owned.status !== TxnPartitionStatus.Active) continue;
    const table = new Map<string, TxnMetadata>();
    for (const id of owned.ids) {
      const e = s.txns.get(id);
      if (e) table.set(id, e.metadata);
    }
    tables.push(table);
  }
  return tables;
}

/**
 * After a restart (a crash lost the state), takes back the partitions whose local replica
 * leads: the broker tells BecomeTxnCoordinator only when leadership changes. At the first start
 * the broker knows no such partition yet, and in tests without a broker the ask fails.
 */
function recoverOwnership(ctx: Ctx, s: TxnCoordinatorState): void {
  void ctx.ask<MetadataResponse>(s.broker, { type: 'Metadata', topics: [TRANSACTION_STATE_TOPIC] }, { timeoutMs: 10_000 }).then(async (r) => {
    if (isFailure(r) || r.type !== 'MetadataResponse') return;
    const topic = r.metadata.topics.find((t) => t.name === TRANSACTION_STATE_TOPIC);
    if (!topic) return;
    for (const p of topic.partitions) {
      if (p.leader !== s.brokerId || p.leader === NO_LEADER) continue;
      const d = await ctx.ask<ReplicaDescription>(s.replicaFor(p.partition), { type: 'DescribeReplica' }, { timeoutMs: 10_000 });
      if (isFailure(d) || d.role !== 'Leader') continue;
      ctx.send(ctx.self, { type: 'BecomeTxnCoordinator', partition: p.partition, leaderEpoch: d.leaderEpoch, numPartitions: topic.partitions.length });
    }
  });
}

function describe(s: TxnCoordinatorState): TxnCoordinatorDescription {
  const transactions: DescribedTransaction[] = [...s.txns.values()]
    .sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : 1))
    .map((e) => ({
      transactionalId: e.transactionalId,
      partition: e.partition,
      state: e.metadata.state,
      producerId: e.metadata.producerId,
      producerEpoch: e.metadata.producerEpoch,
      txnTimeoutMs: e.metadata.txnTimeoutMs,
      partitions: [...e.metadata.partitions],
      pendingState: e.metadata.pending?.to.state ?? null,
    }));
  return {
    type: 'TxnCoordinatorDescription',
    brokerId: s.brokerId,
    numPartitions: s.numPartitions,
    partitions: [...s.partitions.values()]
      .sort((a, b) => a.partition - b.partition)
      .map((p) => ({ partition: p.partition, coordinatorEpoch: p.coordinatorEpoch, status: p.status, transactionalIds: p.ids.size })),
    transactions,
    pendingAppends: s.appends.size,
    markerJobs: [...s.txns.values()].filter((e) => e.markers !== null).length,
  };
}

function tokenOf(ctx: ActorContext<TxnCoordinatorMsg>): ReplyToken | null {
  return ctx.deferReply() ?? null;
}

// ---------------------------------------------------------------------------------------------

export const txnCoordinator = defineActor<TxnCoordinatorState, TxnCoordinatorMsg, TxnCoordinatorArgs>({
  kind: 'txn-coordinator',
  // the producer's and admin's transaction APIs; verification, loading and markers are the cluster's
  clientMessages: {
    InitProducerId: true,
    AddPartitionsToTxn: true,
    AddOffsetsToTxn: true,
    EndTxn: true,
    DescribeTransactions: true,
    ListTransactions: true,
    DescribeTxnCoordinator: true,
  },
  // its own (timers, the answers of its asks) and its broker's (its parent): never another node's
  localMessages: [
    'BecomeTxnCoordinator',
    'ResignTxnCoordinator',
    'TxnLoadRead',
    'TxnLoadNext',
    'TxnAppendDone',
    'TxnPersistRetry',
    'ProducerIdFetched',
    'SendTxnMarkers',
    'TxnMarkersSent',
    'AbortTimedOutTransactions',
    'ExpireTransactionalIds',
  ],
  // a crash loses the in-memory state: restart empty and take back the partitions led here
  supervision: { maxRestarts: 10, withinMs: 60_000 },

  init(ctx, args) {
    const node = ctx.nodeId;
    const cfg = resolveConfig(args);
    const s: TxnCoordinatorState = {
      brokerId: args.brokerId,
      cfg,
      numPartitions: args.transactionStateNumPartitions ?? 50,
      partitions: new Map(),
      txns: new Map(),
      appends: new Map(),
      seq: 0,
      spareProducerIds: [],
      idWaiters: [],
      idFetchInFlight: false,
      replicaFor: args.replicaFor ?? ((p) => ({ node, path: replicaPath(args.brokerId, TRANSACTION_STATE_TOPIC, p) })),
      broker: args.broker ?? { node, path: brokerPath(args.brokerId) },
      brokerAt: args.brokerAt ?? ((brokerId, brokerNode) => ({ node: brokerNode, path: brokerPath(brokerId) })),
    };
    ctx.timers.startPeriodic(ABORT_TIMER, cfg.abortIntervalMs, { type: 'AbortTimedOutTransactions' });
    ctx.timers.startPeriodic(EXPIRE_TIMER, cfg.expireIntervalMs, { type: 'ExpireTransactionalIds' });
    recoverOwnership(ctx, s);
    return s;
  },

  schema: {
    InitProducerId: { transactionalId: 'string', transactionTimeoutMs: 'integer', producerId: 'integer', producerEpoch: 'integer', version: 'integer' },
    AddPartitionsToTxn: { transactionalId: 'string', producerId: 'integer', producerEpoch: 'integer', partitions: 'array', version: 'integer' },
    VerifyPartitionsInTxn: { transactionalId: 'string', producerId: 'integer', producerEpoch: 'integer', partitions: 'array' },
    AddPartitionsForProducer: { transactionalId: 'string', producerId: 'integer', producerEpoch: 'integer', partitions: 'array' },
    AddOffsetsToTxn: { transactionalId: 'string', producerId: 'integer', producerEpoch: 'integer', groupId: 'string', version: 'integer', offsetsTopicPartitions: 'integer?' },
    EndTxn: { transactionalId: 'string', producerId: 'integer', producerEpoch: 'integer', committed: 'boolean', version: 'integer' },
    BecomeTxnCoordinator: { partition: 'integer', leaderEpoch: 'integer', numPartitions: 'integer?' },
    ResignTxnCoordinator: { partition: 'integer', leaderEpoch: 'integer' },
    DescribeTransactions: { transactionalIds: 'array' },
    ListTransactions: { states: 'array', producerIds: 'array', durationMs: 'integer', transactionalIdPattern: 'string?' },
  },

  handlers: {
    InitProducerId(s, m, ctx) {
      handleIdWaiter(s, ctx, { msg: m, token: tokenOf(ctx) });
    },

    AddPartitionsToTxn(s, m, ctx) {
      handleAddPartitions(s, ctx, m, (current, now, partitions) => addPartitionsToTxn(current, { ...m, partitions }, now));
    },

    VerifyPartitionsInTxn(s, m, ctx) {
      const partitions = wellFormedPartitions(m.partitions);
      const answer = (partitions: PartitionVerification[]) => ctx.reply({ type: 'VerifyPartitionsInTxnResult', errorCode: ErrorCode.NONE, partitions } satisfies VerifyPartitionsInTxnResult);
      if (!partitions) return ctx.reply({ type: 'VerifyPartitionsInTxnResult', errorCode: ErrorCode.INVALID_REQUEST, partitions: [] } satisfies VerifyPartitionsInTxnResult);
      const owner = m.transactionalId === '' ? null : ownerOf(s, m.transactionalId);
      if (owner && 'errorCode' in owner) return answer(partitions.map((p) => ({ ...p, errorCode: owner.errorCode })));
      answer(verifyPartitionsInTxn(m.transactionalId, s.txns.get(m.transactionalId)?.metadata ?? null, m.producerId, m.producerEpoch, partitions));
    },

    AddPartitionsForProducer(s, m, ctx) {
      // as Kafka's AddPartitionsToTxn v5 from a broker: PRODUCER_FENCED, never INVALID_PRODUCER_EPOCH
      handleAddPartitions(s, ctx, m, (current, now, partitions) =>
        addPartitionsImplicitly(current, { transactionalId: m.transactionalId, producerId: m.producerId, producerEpoch: m.producerEpoch, partitions, version: 5 }, now),
      );
    },

    AddOffsetsToTxn(s, m, ctx) {
      const count = m.offsetsTopicPartitions && m.offsetsTopicPartitions > 0 ? m.offsetsTopicPartitions : s.cfg.offsetsTopicNumPartitions;
      handleRequest(s, ctx, 'AddOffsetsToTxn', m.transactionalId, tokenOf(ctx), (current, now) => addOffsetsToTxn(current, m, now, (groupId) => offsetsPartitionFor(groupId, count)));
    },

    EndTxn(s, m, ctx) {
      handleIdWaiter(s, ctx, { msg: m, token: tokenOf(ctx) });
    },

    BecomeTxnCoordinator(s, m, ctx) {
      if (m.numPartitions !== undefined && m.numPartitions !== null && m.numPartitions > 0) s.numPartitions = m.numPartitions;
      const current = s.partitions.get(m.partition);
      if (current && current.coordinatorEpoch >= m.leaderEpoch) return;
      if (current) unloadPartition(s, ctx, m.partition, `leader epoch ${current.coordinatorEpoch} -> ${m.leaderEpoch}: reloading`);
      const owned: OwnedPartition = {
        partition: m.partition,
        coordinatorEpoch: m.leaderEpoch,
        status: TxnPartitionStatus.Loading,
        loadId: ++s.seq,
        fetchOffset: 0,
        targetOffset: -1,
        loaded: [],
        loadStartedMs: ctx.clock.now(),
        ids: new Set(),
      };
      s.partitions.set(m.partition, owned);
      ctx.log.info('loading transaction state partition', { partition: m.partition, coordinatorEpoch: m.leaderEpoch });
      readNext(s, ctx, owned);
    },

    ResignTxnCoordinator(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned) return;
      if (m.leaderEpoch >= 0 && m.leaderEpoch < owned.coordinatorEpoch) return;
      unloadPartition(s, ctx, m.partition, `resigned at leader epoch ${m.leaderEpoch}`);
    },

    DescribeTxnCoordinator(s, _m, ctx) {
      ctx.reply(describe(s));
    },

    DescribeTransactions(s, m, ctx) {
      const transactions = m.transactionalIds.map((id) => {
        const owner = typeof id === 'string' && id !== '' ? ownerOf(s, id) : null;
        if (owner && 'errorCode' in owner) return transactionRefused(id, owner.errorCode);
        return describeTransaction(typeof id === 'string' ? id : '', s.txns.get(id)?.metadata ?? null);
      });
      ctx.reply({ type: 'DescribeTransactionsResult', errorCode: ErrorCode.NONE, transactions } satisfies DescribeTransactionsResult);
    },

    ListTransactions(s, m, ctx) {
      const loading = [...s.partitions.values()].some((p) => p.status === TxnPartitionStatus.Loading);
      if (loading) return ctx.reply({ type: 'ListTransactionsResult', errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, unknownStateFilters: [], transactions: [] } satisfies ListTransactionsResult);
      const filters = { states: m.states, producerIds: m.producerIds, durationMs: m.durationMs, transactionalIdPattern: m.transactionalIdPattern ?? null };
      ctx.reply({ type: 'ListTransactionsResult', ...listTransactions(s.txns.values(), filters, ctx.clock.now()) } satisfies ListTransactionsResult);
    },

    TxnLoadRead(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned || owned.loadId !== m.loadId || owned.status !== TxnPartitionStatus.Loading) return;
      const replay = (records: Uint8Array, from: number) => {
        const progress = readTxnLogBatches(records, from);
        owned.loaded.push(...progress.records);
        return progress;
      };
      const step = takeLoadRead(owned, m, replay, ctx.log, 'a transaction state partition', m.partition);
      if (step === 'read') readNext(s, ctx, owned);
      else if (step === 'finish') finishLoad(s, ctx, owned);
      else if (step === 'gone') unloadPartition(s, ctx, m.partition, 'no replica of it on this broker: nothing to load');
      else ctx.timers.startSingle(loadTimerKey(m.partition), s.cfg.loadRetryBackoffMs, { type: 'TxnLoadNext', partition: m.partition, loadId: m.loadId });
    },

    TxnLoadNext(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned || owned.loadId !== m.loadId || owned.status !== TxnPartitionStatus.Loading) return;
      readNext(s, ctx, owned);
    },

    TxnAppendDone(s, m, ctx) {
      const a = s.appends.get(m.appendId);
      if (!a) return;
      s.appends.delete(m.appendId);
      const entry = s.txns.get(a.transactionalId);
      if (!entry || entry.appendSeq !== a.appendSeq) return;
      const owned = s.partitions.get(a.partition);
      const waiter = entry.waiter;
      entry.waiter = null;
      if (!owned || owned.status !== TxnPartitionStatus.Active || owned.coordinatorEpoch !== a.coordinatorEpoch) {
        // the partition moved on while the record was written: the next coordinator answers
        return refuseTo(ctx, waiter, ErrorCode.NOT_COORDINATOR, `broker ${s.brokerId} no longer coordinates ${TRANSACTION_STATE_TOPIC}-${a.partition} at epoch ${a.coordinatorEpoch}`);
      }
      const failed = m.errorCode !== ErrorCode.NONE;
      if (failed) ctx.log.debug('transaction state append failed', { transactionalId: a.transactionalId, errorCode: m.errorCode, reason: m.errorMessage });
      const r = failed ? onPersistFailed(entry.metadata, m.errorCode) : onPersisted(entry.metadata, ctx.clock.now());
      if (!r.ok) {
        ctx.log.error('a written transition could not be completed', { transactionalId: a.transactionalId, errorCode: r.error.errorCode, reason: r.error.message });
        return refuseTo(ctx, waiter, r.error.errorCode, r.error.message);
      }
      applyStep(s, ctx, a.partition, a.transactionalId, r.value, waiter, failed);
    },

    TxnPersistRetry(s, m, ctx) {
      const entry = s.txns.get(m.transactionalId);
      if (!entry || entry.appendSeq !== m.appendSeq || !entry.retryRecord) return;
      const record = entry.retryRecord;
      persist(s, ctx, entry, record, false);
    },

    ProducerIdFetched(s, m, ctx) {
      s.idFetchInFlight = false;
      const waiters = s.idWaiters.splice(0);
      if (m.errorCode !== ErrorCode.NONE || m.producerId < 0) {
        const message = `no producer id available yet: ${m.errorMessage ?? `error ${m.errorCode}`}`;
        for (const w of waiters) refuseTo(ctx, w.token && { token: w.token, api: w.msg.type }, ErrorCode.COORDINATOR_NOT_AVAILABLE, message);
        return;
      }
      s.spareProducerIds.push(m.producerId);
      // each asks again: the first takes the id, the others wait for the next one
      for (const w of waiters) handleIdWaiter(s, ctx, w);
    },

    SendTxnMarkers(s, m, ctx) {
      const entry = s.txns.get(m.transactionalId);
      const job = entry?.markers;
      if (!entry || !job || job.id !== m.jobId) return;
      job.attempt++;
      sendMarkerRound(s, ctx, entry, job);
    },

    TxnMarkersSent(s, m, ctx) {
      const entry = s.txns.get(m.transactionalId);
      const job = entry?.markers;
      if (!entry || !job || job.id !== m.jobId) return;
      const key = (p: TopicPartition) => `${p.partition}/${p.topic}`;
      const done = new Set(m.done.map(key));
      job.remaining = job.remaining.filter((p) => !done.has(key(p)));
      if (m.fenced) {
        // a newer coordinator (or producer epoch) owns this transaction now: it writes the markers
        ctx.log.warn('transaction markers refused as stale; leaving the transaction to its newer coordinator', { transactionalId: m.transactionalId, errors: m.errors });
        entry.markers = null;
        return;
      }
      if (job.remaining.length > 0) {
        const delay = markerBackoffMs(job.attempt, s.cfg.markerRetryBackoffMs, s.cfg.markerRetryBackoffMaxMs);
        ctx.log.debug('transaction markers not all written; retrying', { transactionalId: m.transactionalId, remaining: job.remaining.length, attempt: job.attempt, delayMs: delay, errors: m.errors });
        ctx.timers.startSingle(markerTimerKey(m.transactionalId), delay, { type: 'SendTxnMarkers', transactionalId: m.transactionalId, jobId: job.id });
        return;
      }
      entry.markers = null;
      const r = onMarkersWritten(entry.metadata);
      if (!r.ok) return void ctx.log.error('markers written for a transaction not waiting for them', { transactionalId: m.transactionalId, reason: r.error.message });
      applyStep(s, ctx, entry.partition, m.transactionalId, r.value, null);
    },

    AbortTimedOutTransactions(s, _m, ctx) {
      const now = ctx.clock.now();
      for (const table of activeTables(s)) {
        for (const t of timedOutTransactions(table, now)) {
          const entry = s.txns.get(t.transactionalId);
          if (!entry) continue;
          const alloc = idAllocator(s);
          const r = abortTimedOutTransaction(entry.metadata, t, now, alloc.allocate);
          if (alloc.short) {
            // a TV_2 transaction at an exhausted epoch: aborted at the next round, with an id
            waitForProducerId(s, ctx, null);
            continue;
          }
          if (!r.ok) {
            ctx.log.warn('a timed-out transaction could not be aborted', { transactionalId: t.transactionalId, errorCode: r.error.errorCode, reason: r.error.message });
            continue;
          }
          ctx.log.info('aborting a transaction open past its timeout', { transactionalId: t.transactionalId, producerId: t.producerId, producerEpoch: t.producerEpoch });
          applyStep(s, ctx, entry.partition, t.transactionalId, r.value, null);
        }
      }
    },

    ExpireTransactionalIds(s, _m, ctx) {
      const now = ctx.clock.now();
      for (const table of activeTables(s)) {
        for (const id of expiredTransactionalIds(table, now, s.cfg.txn)) {
          const entry = s.txns.get(id);
          if (!entry) continue;
          const r = expireTransactionalId(entry.metadata, now, s.cfg.txn);
          if (!r.ok) continue;
          ctx.log.info('expiring an unused transactional id', { transactionalId: id, lastUpdate: entry.metadata.txnLastUpdateTimestamp });
          applyStep(s, ctx, entry.partition, id, r.value, null);
        }
      }
    },
  },

  onStop(s, ctx) {
    for (const entry of s.txns.values()) refuseTo(ctx, entry.waiter, ErrorCode.NOT_COORDINATOR, 'the transaction coordinator stopped');
    for (const w of s.idWaiters) refuseTo(ctx, w.token && { token: w.token, api: w.msg.type }, ErrorCode.NOT_COORDINATOR, 'the transaction coordinator stopped');
    s.txns.clear();
    s.idWaiters = [];
  },
});

/** What __transaction_state is created with (broker config values, Kafka's names): compacted, as Kafka's. */
export function transactionStateTopicConfig(segmentBytes: number, minIsr: number): Record<string, string | number> {
  return {
    'segment.bytes': segmentBytes,
    'cleanup.policy': 'compact',
    'min.insync.replicas': minIsr,
    'unclean.leader.election.enable': 'false',
  };
}
