/**
 * The share coordinator, as Kafka's ShareCoordinator (KIP-932): one per broker, a child of the
 * broker at shareCoordinatorPath(brokerId). It keeps the delivery state of every share partition
 * (group, topic id, partition) whose coordinator key hashes (shareStatePartitionFor) to a
 * __share_group_state partition its broker leads: the share-partition start offset, the state
 * and leader epochs, and the runs of offsets past the start with their delivery state and count.
 * The decisions are the pure core's (share-state.ts); this actor writes each new state as a
 * ShareSnapshot record (Kafka's schema, share-state-records.ts) through the local leader replica
 * with acks=all and answers once it is replicated.
 *
 * A partition taken over is loaded as the group and transaction coordinators load theirs
 * (group-coordinator/partition-load.ts): its log is read from the start up to the end it had at
 * takeover, ShareSnapshot records replacing a key's state, ShareUpdate records laid over it,
 * tombstones deleting it; its keys answer COORDINATOR_LOAD_IN_PROGRESS meanwhile.
 *
 * Owned state: the __share_group_state partitions this broker leads (Loading -> Active; the
 * coordinator epoch is the partition's leader epoch) with the states read so far of the ones
 * loading; per key with state or traffic: its state, whether its one append is in flight, and
 * the requests waiting behind that append; the appends in flight.
 * Handles: ReadShareGroupState, WriteShareGroupState, DeleteShareGroupState, DeleteShareGroupStates (a group deleted),
 * InitializeShareGroupState, ReadShareGroupStateSummary (share partition leaders and admins);
 * BecomeShareCoordinator, ResignShareCoordinator (its broker); DescribeShareCoordinator (tests,
 * admin); internal ShareLoadRead, ShareLoadNext, ShareAppendDone.
 * Emits: ReadShareGroupStateResult, WriteShareGroupStateResult, DeleteShareGroupStateResult,
 * InitializeShareGroupStateResult, ReadShareGroupStateSummaryResult, ShareCoordinatorDescription;
 * ReplicaRead (loading), DescribeReplica (after a restart) and Produce acks=-1 (records) to the
 * local __share_group_state replicas; Metadata to its broker (after a restart).
 *
 * Bounded growth: one state per share partition with state (a delete writes tombstones and
 * drops it); the topic is compacted, so its log keeps the newest record per key. At most
 * MAX_QUEUED_PER_KEY requests wait behind a key's append (more are refused, retriably); a
 * partition's keys are dropped when it is resigned.
 */
import { NO_LEADER, brokerPath, replicaPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import type { ActorContext, BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { BrokerMsg, MetadataResponse } from '../broker/messages.js';
import { readForLoad, takeLoadRead } from '../group-coordinator/partition-load.js';
import type { ProduceResponse, ReplicaDescription, ReplicaMsg } from '../partition-replica/messages.js';
import {
  SHARE_GROUP_STATE_TOPIC,
  shareCoordinatorKey,
  shareStatePartitionFor,
  type DescribedShareState,
  type ShareCoordinatorDescription,
  type ShareCoordinatorMsg,
  type ShareCoordinatorReply,
  type ShareGroupStatesDeleted,
} from './messages.js';
import { buildShareSnapshotBatch, buildShareTombstoneBatch, readShareStateBatches, type ShareStateKey } from './share-state-records.js';
import {
  decideDelete,
  decideInitialize,
  decideRead,
  decideSummary,
  decideWrite,
  replayShareRecord,
  validateShareKey,
  validateStateBatches,
  type Refusal,
  type ShareState,
  type ShareStep,
} from './share-state.js';
import { replicaAskFailureCode } from '../partition-replica/ask-failure.js';

export interface ShareCoordinatorArgs {
  brokerId: number;
  /** share.coordinator.state.topic.num.partitions, until a BecomeShareCoordinator names the topic's real count. */
  numPartitions?: number;
  /** share.coordinator.write.timeout.ms: how long an append to __share_group_state waits for the ISR. */
  writeTimeoutMs?: number;
  /** share.coordinator.load.buffer.size: bytes per replica read while loading a partition. */
  loadBufferBytes?: number;
  /** Backoff between load reads that found nothing new yet (the high watermark lags) or failed. */
  loadRetryBackoffMs?: number;
  /** The local replica of a __share_group_state partition (default: the broker's child replica actor). */
  replicaFor?: (partition: number) => ActorRef<ReplicaMsg>;
  /** The local broker, asked for Metadata after a restart (default: the broker actor on this node). */
  broker?: ActorRef<BrokerMsg>;
}

interface ShareCoordinatorConfig {
  writeTimeoutMs: number;
  loadBufferBytes: number;
  loadRetryBackoffMs: number;
}

/** A __share_group_state partition this broker leads. */
export enum SharePartitionStatus {
  /** Its log is being replayed: its keys answer COORDINATOR_LOAD_IN_PROGRESS. */
  Loading = 'Loading',
  /** Loaded: this coordinator answers for its keys. */
  Active = 'Active',
}

interface OwnedPartition {
  partition: number;
  /** The partition's leader epoch. */
  coordinatorEpoch: number;
  status: SharePartitionStatus;
  loadId: number;
  fetchOffset: number;
  /** The log end offset at the first read: loading ends once everything below it is read. */
  targetOffset: number;
  /** The states replayed so far while loading, by coordinator key, and those keys' fields. */
  loading: Map<string, ShareState>;
  loadingKeys: Map<string, ShareStateKey>;
  loadStartedMs: number;
  keys: Set<string>;
}

type RequestMsg = Extract<ShareCoordinatorMsg, { type: 'ReadShareGroupState' | 'WriteShareGroupState' | 'DeleteShareGroupState' | 'InitializeShareGroupState' | 'ReadShareGroupStateSummary' }>;

/** A request and where its answer goes (null: nobody asked). */
interface Op {
  msg: RequestMsg;
  token: ReplyToken | null;
}

interface KeyEntry {
  readonly key: ShareStateKey;
  readonly partition: number;
  state: ShareState | undefined;
  /** The one append of this key in flight (its id), or null. */
  appending: number | null;
  /** Requests that came while the append was in flight, answered in order after it. */
  queue: Op[];
}

interface PendingAppend {
  keyString: string;
  partition: number;
  coordinatorEpoch: number;
  /** The state once written (null: the key is deleted). */
  next: ShareState | null;
  token: ReplyToken | null;
  reply: ShareCoordinatorReply;
  api: RequestMsg['type'];
}

export interface ShareCoordinatorState {
  brokerId: number;
  cfg: ShareCoordinatorConfig;
  numPartitions: number;
  partitions: Map<number, OwnedPartition>;
  keys: Map<string, KeyEntry>;
  appends: Map<number, PendingAppend>;
  seq: number;
  replicaFor: (partition: number) => ActorRef<ReplicaMsg>;
  broker: ActorRef<BrokerMsg>;
}

type Ctx = BaseContext<ShareCoordinatorMsg>;

/** Requests waiting behind one key's append at most; more are refused with COORDINATOR_NOT_AVAILABLE (retriable). */
export const MAX_QUEUED_PER_KEY = 1_000;

/** How long one replica read while loading may take. */
const LOAD_READ_TIMEOUT_MS = 30_000;
const loadTimerKey = (partition: number) => `load-${partition}`;

function resolveConfig(a: ShareCoordinatorArgs): ShareCoordinatorConfig {
  return { writeTimeoutMs: a.writeTimeoutMs ?? 5_000, loadBufferBytes: a.loadBufferBytes ?? 5 * 1024 * 1024, loadRetryBackoffMs: a.loadRetryBackoffMs ?? 50 };
}

// ---------------------------------------------------------------------------------------------
// Answers

/** The answer to `api` refusing it with `r`. */
function errorReply(api: RequestMsg['type'], r: Refusal): ShareCoordinatorReply {
  const base = { errorCode: r.errorCode, errorMessage: r.errorMessage };
  switch (api) {
    case 'ReadShareGroupState':
      return { type: 'ReadShareGroupStateResult', ...base, stateEpoch: -1, startOffset: -1, stateBatches: [] };
    case 'WriteShareGroupState':
      return { type: 'WriteShareGroupStateResult', ...base };
    case 'DeleteShareGroupState':
      return { type: 'DeleteShareGroupStateResult', ...base };
    case 'InitializeShareGroupState':
      return { type: 'InitializeShareGroupStateResult', ...base };
    case 'ReadShareGroupStateSummary':
      return { type: 'ReadShareGroupStateSummaryResult', ...base, stateEpoch: -1, leaderEpoch: -1, startOffset: -1 };
    default:
      return assertNever(api, 'share coordinator request');
  }
}

function answer(ctx: Ctx, token: ReplyToken | null, reply: ShareCoordinatorReply): void {
  if (token) ctx.replyTo(token, reply);
}

function refuseOp(ctx: Ctx, op: { msg: { type: RequestMsg['type'] }; token: ReplyToken | null }, errorCode: number, errorMessage: string): void {
  answer(ctx, op.token, errorReply(op.msg.type, { errorCode, errorMessage }));
}

/**
 * What a failed append means for the request (Kafka's coordinator runtime: a write the ISR did
 * not take is COORDINATOR_NOT_AVAILABLE, one to a replica no longer leading NOT_COORDINATOR,
 * one too large UNKNOWN_SERVER_ERROR); either way the client finds the coordinator again.
 */
export function appendErrorCode(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
    case ErrorCode.FENCED_LEADER_EPOCH:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return errorCode;
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

function keyOf(m: RequestMsg): ShareStateKey {
  return { groupId: m.groupId, topicId: m.topicId, partition: m.partition };
}

/**
 * Can this coordinator act for `key` now? NOT_COORDINATOR when its partition is not led here,
 * COORDINATOR_LOAD_IN_PROGRESS while that partition is being replayed; else its partition.
 */
function ownerOf(s: ShareCoordinatorState, keyString: string): { partition: number } | Refusal {
  const partition = shareStatePartitionFor(keyString, s.numPartitions);
  const owned = s.partitions.get(partition);
  if (!owned) return { errorCode: ErrorCode.NOT_COORDINATOR, errorMessage: `broker ${s.brokerId} does not coordinate ${SHARE_GROUP_STATE_TOPIC}-${partition}` };
  if (owned.status === SharePartitionStatus.Loading) return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, errorMessage: `${SHARE_GROUP_STATE_TOPIC}-${partition} is loading` };
  return { partition };
}

/** The request's decision on the key's current state, and its answer once decided (and written). */
function decide(m: RequestMsg, cur: ShareState | undefined, now: number): ShareStep<ShareCoordinatorReply> {
  const ok = { errorCode: ErrorCode.NONE };
  switch (m.type) {
    case 'ReadShareGroupState':
      return mapStep(decideRead(cur, m.leaderEpoch, now), (v) => ({ type: 'ReadShareGroupStateResult', ...ok, ...v }));
    case 'WriteShareGroupState':
      return mapStep(decideWrite(cur, m, now), () => ({ type: 'WriteShareGroupStateResult', ...ok }));
    case 'DeleteShareGroupState':
      return mapStep(decideDelete(cur), () => ({ type: 'DeleteShareGroupStateResult', ...ok }));
    case 'InitializeShareGroupState':
      return mapStep(decideInitialize(cur, m, now), () => ({ type: 'InitializeShareGroupStateResult', ...ok }));
    case 'ReadShareGroupStateSummary':
      return mapStep(decideSummary(cur), (v) => ({ type: 'ReadShareGroupStateSummaryResult', ...ok, ...v }));
    default:
      return assertNever(m, 'share coordinator request');
  }
}

function mapStep<A, B>(step: ShareStep<A>, f: (a: A) => B): ShareStep<B> {
  if ('refuse' in step) return step;
  if ('write' in step) return { write: step.write, reply: f(step.reply) };
  return { reply: f(step.reply) };
}

/** Validates, routes and decides one request; a key with an append in flight queues it. */
function handleOp(s: ShareCoordinatorState, ctx: Ctx, op: Op): void {
  const m = op.msg;
  const key = keyOf(m);
  const invalid = validateShareKey(key) ?? (m.type === 'WriteShareGroupState' ? validateStateBatches(m.stateBatches) : null);
  if (invalid) return refuseOp(ctx, op, invalid.errorCode, invalid.errorMessage);
  const keyString = shareCoordinatorKey(key);
  const owner = ownerOf(s, keyString);
  if ('errorCode' in owner) return refuseOp(ctx, op, owner.errorCode, owner.errorMessage);
  const entry = s.keys.get(keyString);
  if (entry && entry.appending !== null) {
    if (entry.queue.length >= MAX_QUEUED_PER_KEY) return refuseOp(ctx, op, ErrorCode.COORDINATOR_NOT_AVAILABLE, `${entry.queue.length} requests already wait for ${keyString}`);
    entry.queue.push(op);
    return;
  }
  const step = decide(m, entry?.state, ctx.clock.now());
  if ('refuse' in step) return refuseOp(ctx, op, step.refuse.errorCode, step.refuse.errorMessage);
  if (!('write' in step)) return answer(ctx, op.token, step.reply);
  const e = entry ?? addEntry(s, key, keyString, owner.partition, undefined);
  append(s, ctx, e, keyString, step.write, op, step.reply);
}

function addEntry(s: ShareCoordinatorState, key: ShareStateKey, keyString: string, partition: number, state: ShareState | undefined): KeyEntry {
  const entry: KeyEntry = { key, partition, state, appending: null, queue: [] };
  s.keys.set(keyString, entry);
  s.partitions.get(partition)?.keys.add(keyString);
  return entry;
}

/** Forgets a key with no state and nothing in flight or waiting. */
function maybeDropEntry(s: ShareCoordinatorState, keyString: string): void {
  const entry = s.keys.get(keyString);
  if (!entry || entry.state !== undefined || entry.appending !== null || entry.queue.length > 0) return;
  s.keys.delete(keyString);
  s.partitions.get(entry.partition)?.keys.delete(keyString);
}

/** Writes the key's new state (or its tombstones) with acks=all; the answer waits for ShareAppendDone. */
function append(s: ShareCoordinatorState, ctx: Ctx, entry: KeyEntry, keyString: string, next: ShareState | null, op: Op, reply: ShareCoordinatorReply): void {
  const owned = s.partitions.get(entry.partition)!;
  const appendId = ++s.seq;
  entry.appending = appendId;
  s.appends.set(appendId, { keyString, partition: entry.partition, coordinatorEpoch: owned.coordinatorEpoch, next, token: op.token, reply, api: op.msg.type });
  const now = ctx.clock.now();
  const batch = next === null ? buildShareTombstoneBatch(entry.key, now) : buildShareSnapshotBatch(entry.key, next, now);
  const done = (errorCode: number, errorMessage?: string) => {
    const m: ShareCoordinatorMsg = { type: 'ShareAppendDone', appendId, errorCode };
    if (errorMessage) m.errorMessage = errorMessage;
    ctx.send(ctx.self, m);
  };
  const t = s.cfg.writeTimeoutMs;
  void ctx.ask<ProduceResponse>(s.replicaFor(entry.partition), { type: 'Produce', acks: -1, timeoutMs: t, records: batch }, { timeoutMs: t + 5_000 }).then((r) => {
    if (isFailure(r)) done(replicaAskFailureCode(r), r.message);
    else done(r.errorCode, r.errorMessage ?? undefined);
  });
}

/** The key's append settled: its requests waiting behind it are taken in order until one writes again. */
function drainQueue(s: ShareCoordinatorState, ctx: Ctx, keyString: string): void {
  const entry = s.keys.get(keyString);
  while (entry && entry.appending === null && entry.queue.length > 0) handleOp(s, ctx, entry.queue.shift()!);
  maybeDropEntry(s, keyString);
}

// ---------------------------------------------------------------------------------------------
// Loading and unloading partitions

function readNext(s: ShareCoordinatorState, ctx: Ctx, owned: OwnedPartition): void {
  const { partition, loadId, fetchOffset, coordinatorEpoch } = owned;
  void readForLoad(ctx, s.replicaFor(partition), { fetchOffset, leaderEpoch: coordinatorEpoch, maxBytes: s.cfg.loadBufferBytes, timeoutMs: LOAD_READ_TIMEOUT_MS }).then((r) =>
    ctx.send(ctx.self, { type: 'ShareLoadRead', partition, loadId, ...r } satisfies ShareCoordinatorMsg),
  );
}

/** Replays one read's records into the partition's loading states (a key of another partition: reported, skipped). */
function replayInto(s: ShareCoordinatorState, owned: OwnedPartition, records: Uint8Array, from: number): { nextOffset: number; problems: string[] } {
  const progress = readShareStateBatches(records, from);
  for (const r of progress.records) {
    const keyString = shareCoordinatorKey(r.key);
    const p = shareStatePartitionFor(keyString, s.numPartitions);
    if (p !== owned.partition) {
      progress.problems.push(`${keyString} belongs to ${SHARE_GROUP_STATE_TOPIC}-${p}, not ${owned.partition}`);
      continue;
    }
    replayShareRecord(owned.loading, keyString, r);
    if (owned.loading.has(keyString)) owned.loadingKeys.set(keyString, r.key);
    else owned.loadingKeys.delete(keyString);
  }
  return progress;
}

/** The partition's log is read: its keys are answered for from now on. */
function finishLoad(s: ShareCoordinatorState, ctx: Ctx, owned: OwnedPartition): void {
  owned.status = SharePartitionStatus.Active;
  for (const [keyString, state] of owned.loading) {
    const key = owned.loadingKeys.get(keyString)!;
    if (s.keys.has(keyString)) {
      ctx.log.warn('share partition key found in two share-group state partitions: keeping the one loaded first', { key: keyString, partition: owned.partition });
      continue;
    }
    addEntry(s, key, keyString, owned.partition, state);
  }
  owned.loading = new Map();
  owned.loadingKeys = new Map();
  ctx.log.info('loaded share-group state partition', {
    partition: owned.partition,
    coordinatorEpoch: owned.coordinatorEpoch,
    keys: owned.keys.size,
    endOffset: owned.fetchOffset,
    ms: ctx.clock.now() - owned.loadStartedMs,
  });
}

function unloadPartition(s: ShareCoordinatorState, ctx: Ctx, partition: number, why: string): void {
  const owned = s.partitions.get(partition);
  if (!owned) return;
  s.partitions.delete(partition);
  ctx.timers.cancel(loadTimerKey(partition));
  const message = `broker ${s.brokerId} no longer coordinates ${SHARE_GROUP_STATE_TOPIC}-${partition}`;
  for (const [id, a] of [...s.appends]) {
    if (a.partition !== partition) continue;
    s.appends.delete(id);
    refuseOp(ctx, { msg: { type: a.api }, token: a.token }, ErrorCode.NOT_COORDINATOR, message);
  }
  for (const keyString of owned.keys) {
    const entry = s.keys.get(keyString);
    if (!entry) continue;
    for (const op of entry.queue) refuseOp(ctx, op, ErrorCode.NOT_COORDINATOR, message);
    s.keys.delete(keyString);
  }
  ctx.log.info('unloaded share-group state partition', { partition, coordinatorEpoch: owned.coordinatorEpoch, keys: owned.keys.size, why });
}

/**
 * After a restart (a crash lost the state), takes back the partitions whose local replica
 * leads: the broker tells BecomeShareCoordinator only when leadership changes. At the first
 * start the broker knows no such partition yet, and in tests without a broker the ask fails.
 */
function recoverOwnership(ctx: Ctx, s: ShareCoordinatorState): void {
  void ctx.ask<MetadataResponse>(s.broker, { type: 'Metadata', topics: [SHARE_GROUP_STATE_TOPIC] }, { timeoutMs: 10_000 }).then(async (r) => {
    if (isFailure(r) || r.type !== 'MetadataResponse') return;
    const topic = r.metadata.topics.find((t) => t.name === SHARE_GROUP_STATE_TOPIC);
    if (!topic) return;
    for (const p of topic.partitions) {
      if (p.leader !== s.brokerId || p.leader === NO_LEADER) continue;
      const d = await ctx.ask<ReplicaDescription>(s.replicaFor(p.partition), { type: 'DescribeReplica' }, { timeoutMs: 10_000 });
      if (isFailure(d) || d.role !== 'Leader') continue;
      ctx.send(ctx.self, { type: 'BecomeShareCoordinator', partition: p.partition, leaderEpoch: d.leaderEpoch, numPartitions: topic.partitions.length });
    }
  });
}

function describe(s: ShareCoordinatorState, groupId: string | null): ShareCoordinatorDescription {
  const states: DescribedShareState[] = [...s.keys.entries()]
    .filter(([, e]) => e.state !== undefined && (groupId === null || e.key.groupId === groupId))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, e]) => ({
      ...e.key,
      statePartition: e.partition,
      snapshotEpoch: e.state!.snapshotEpoch,
      stateEpoch: e.state!.stateEpoch,
      leaderEpoch: e.state!.leaderEpoch,
      startOffset: e.state!.startOffset,
      stateBatches: e.state!.stateBatches.map((b) => ({ ...b })),
      queued: e.queue.length,
    }));
  return {
    type: 'ShareCoordinatorDescription',
    brokerId: s.brokerId,
    numPartitions: s.numPartitions,
    partitions: [...s.partitions.values()].sort((a, b) => a.partition - b.partition).map((p) => ({ partition: p.partition, coordinatorEpoch: p.coordinatorEpoch, status: p.status, keys: p.keys.size })),
    states,
    pendingAppends: s.appends.size,
  };
}

function onRequest(s: ShareCoordinatorState, m: RequestMsg, ctx: ActorContext<ShareCoordinatorMsg>): void {
  handleOp(s, ctx, { msg: m, token: ctx.deferReply() ?? null });
}

// ---------------------------------------------------------------------------------------------

const KEY_FIELDS = { groupId: 'string', topicId: 'string', partition: 'integer' } as const;

export const shareCoordinator = defineActor<ShareCoordinatorState, ShareCoordinatorMsg, ShareCoordinatorArgs>({
  kind: 'share-coordinator',
  // what samsa's admin asks for a share group's offsets; writes of state are the share partitions'
  clientMessages: {
    ReadShareGroupState: true,
    ReadShareGroupStateSummary: true,
    InitializeShareGroupState: true,
    DeleteShareGroupState: true,
    DescribeShareCoordinator: true,
  },
  // its own (timers, the answers of its asks) and its broker's (its parent): never another node's
  localMessages: ['BecomeShareCoordinator', 'ResignShareCoordinator', 'ShareLoadRead', 'ShareLoadNext', 'ShareAppendDone'],
  // a crash loses the in-memory state: restart empty and take back the partitions led here
  supervision: { maxRestarts: 10, withinMs: 60_000 },

  init(ctx, args) {
    const node = ctx.nodeId;
    const s: ShareCoordinatorState = {
      brokerId: args.brokerId,
      cfg: resolveConfig(args),
      numPartitions: args.numPartitions ?? 50,
      partitions: new Map(),
      keys: new Map(),
      appends: new Map(),
      seq: 0,
      replicaFor: args.replicaFor ?? ((p) => ({ node, path: replicaPath(args.brokerId, SHARE_GROUP_STATE_TOPIC, p) })),
      broker: args.broker ?? { node, path: brokerPath(args.brokerId) },
    };
    recoverOwnership(ctx, s);
    return s;
  },

  schema: {
    ReadShareGroupState: { ...KEY_FIELDS, leaderEpoch: 'integer' },
    WriteShareGroupState: { ...KEY_FIELDS, leaderEpoch: 'integer', stateEpoch: 'integer', startOffset: 'integer', stateBatches: 'array' },
    DeleteShareGroupState: KEY_FIELDS,
    InitializeShareGroupState: { ...KEY_FIELDS, stateEpoch: 'integer', startOffset: 'integer' },
    ReadShareGroupStateSummary: { ...KEY_FIELDS, leaderEpoch: 'integer' },
    BecomeShareCoordinator: { partition: 'integer', leaderEpoch: 'integer', numPartitions: 'integer?' },
    ResignShareCoordinator: { partition: 'integer', leaderEpoch: 'integer' },
    DeleteShareGroupStates: { groupId: 'string' },
  },

  handlers: {
    ReadShareGroupState: onRequest,
    WriteShareGroupState: onRequest,
    DeleteShareGroupState: onRequest,
    InitializeShareGroupState: onRequest,
    ReadShareGroupStateSummary: onRequest,

    DeleteShareGroupStates(s, m, ctx) {
      let keys = 0;
      for (const e of [...s.keys.values()]) {
        if (e.key.groupId !== m.groupId || (e.state === undefined && e.appending === null)) continue;
        keys++;
        handleOp(s, ctx, { msg: { type: 'DeleteShareGroupState', groupId: e.key.groupId, topicId: e.key.topicId, partition: e.key.partition }, token: null });
      }
      if (keys > 0) ctx.log.info('share group deleted: removing its share partitions\' states', { groupId: m.groupId, keys });
      ctx.reply({ type: 'ShareGroupStatesDeleted', errorCode: ErrorCode.NONE, keys } satisfies ShareGroupStatesDeleted);
    },

    BecomeShareCoordinator(s, m, ctx) {
      if (m.numPartitions !== undefined && m.numPartitions !== null && m.numPartitions > 0) s.numPartitions = m.numPartitions;
      const current = s.partitions.get(m.partition);
      if (current && current.coordinatorEpoch >= m.leaderEpoch) return;
      if (current) unloadPartition(s, ctx, m.partition, `leader epoch ${current.coordinatorEpoch} -> ${m.leaderEpoch}: reloading`);
      const owned: OwnedPartition = {
        partition: m.partition,
        coordinatorEpoch: m.leaderEpoch,
        status: SharePartitionStatus.Loading,
        loadId: ++s.seq,
        fetchOffset: 0,
        targetOffset: -1,
        loading: new Map(),
        loadingKeys: new Map(),
        loadStartedMs: ctx.clock.now(),
        keys: new Set(),
      };
      s.partitions.set(m.partition, owned);
      ctx.log.info('loading share-group state partition', { partition: m.partition, coordinatorEpoch: m.leaderEpoch });
      readNext(s, ctx, owned);
    },

    ResignShareCoordinator(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned) return;
      if (m.leaderEpoch >= 0 && m.leaderEpoch < owned.coordinatorEpoch) return;
      unloadPartition(s, ctx, m.partition, `resigned at leader epoch ${m.leaderEpoch}`);
    },

    DescribeShareCoordinator(s, m, ctx) {
      ctx.reply(describe(s, typeof m.groupId === 'string' ? m.groupId : null));
    },

    ShareLoadRead(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned || owned.loadId !== m.loadId || owned.status !== SharePartitionStatus.Loading) return;
      const step = takeLoadRead(owned, m, (records, from) => replayInto(s, owned, records, from), ctx.log, 'a share-group state partition', m.partition);
      if (step === 'read') readNext(s, ctx, owned);
      else if (step === 'finish') finishLoad(s, ctx, owned);
      else if (step === 'gone') unloadPartition(s, ctx, m.partition, 'no replica of it on this broker: nothing to load');
      else ctx.timers.startSingle(loadTimerKey(m.partition), s.cfg.loadRetryBackoffMs, { type: 'ShareLoadNext', partition: m.partition, loadId: m.loadId });
    },

    ShareLoadNext(s, m, ctx) {
      const owned = s.partitions.get(m.partition);
      if (!owned || owned.loadId !== m.loadId || owned.status !== SharePartitionStatus.Loading) return;
      readNext(s, ctx, owned);
    },

    ShareAppendDone(s, m, ctx) {
      const a = s.appends.get(m.appendId);
      if (!a) return;
      s.appends.delete(m.appendId);
      const entry = s.keys.get(a.keyString);
      const owned = s.partitions.get(a.partition);
      if (!entry || entry.appending !== m.appendId || !owned || owned.status !== SharePartitionStatus.Active || owned.coordinatorEpoch !== a.coordinatorEpoch) {
        // the partition moved on while the record was written: the next coordinator answers
        return refuseOp(ctx, { msg: { type: a.api }, token: a.token }, ErrorCode.NOT_COORDINATOR, `broker ${s.brokerId} no longer coordinates ${SHARE_GROUP_STATE_TOPIC}-${a.partition} at epoch ${a.coordinatorEpoch}`);
      }
      entry.appending = null;
      if (m.errorCode !== ErrorCode.NONE) {
        const code = appendErrorCode(m.errorCode);
        ctx.log.debug('share-group state append failed', { key: a.keyString, errorCode: m.errorCode, answered: code, reason: m.errorMessage });
        refuseOp(ctx, { msg: { type: a.api }, token: a.token }, code, `writing the share-group state of ${a.keyString} failed: ${m.errorMessage ?? `error ${m.errorCode}`}`);
      } else {
        entry.state = a.next ?? undefined;
        answer(ctx, a.token, a.reply);
      }
      drainQueue(s, ctx, a.keyString);
    },
  },

  onStop(s, ctx) {
    const message = 'the share coordinator stopped';
    for (const a of s.appends.values()) refuseOp(ctx, { msg: { type: a.api }, token: a.token }, ErrorCode.NOT_COORDINATOR, message);
    for (const e of s.keys.values()) for (const op of e.queue) refuseOp(ctx, op, ErrorCode.NOT_COORDINATOR, message);
    s.appends.clear();
    s.keys.clear();
  },
});

/**
 * What __share_group_state is created with (broker config values, Kafka's names): compacted
 * (each write is a whole ShareSnapshot, so the newest record of a key is all of its state).
 */
export function shareGroupStateTopicConfig(segmentBytes: number, minIsr: number): Record<string, string | number> {
  return {
    'segment.bytes': segmentBytes,
    'cleanup.policy': 'compact',
    'min.insync.replicas': minIsr,
    'unclean.leader.election.enable': 'false',
  };
}
