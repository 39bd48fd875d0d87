/**
 * A broker's share partition manager (KIP-932, Kafka's SharePartitionManager): one per broker,
 * a child of the broker at sharePartitionManagerPath(brokerId). It holds the delivery state of
 * every (share group, partition) this broker leads that a member fetched (share-partition-state.ts),
 * reads the records from the local leader replica through the broker's Fetch (its long poll),
 * and keeps the state durable with the share coordinator of its key (__share_group_state):
 * loaded from there when first used, written there after every acknowledgement, release or
 * lock expiry before the change is answered. A write that fails drops the state held here, so
 * the next use loads what was last written (what was acknowledged and not written is delivered
 * again: delivery is at least once, as Kafka's). A record loaded as Available with
 * share.delivery.count.limit deliveries (held when its state was written, by a leader since
 * gone) is archived at the load, as a lock running out at the limit would be.
 *
 * A partition's state is loaded when a member of the group is first assigned it (the group
 * coordinator's PrepareSharePartitions, through the brokers) or first fetches it, and made, when
 * its share coordinator has none, from the group's
 * share.auto.offset.reset: the high watermark (latest, Kafka's default), the log start
 * (earliest), or the first record written within a duration (by_duration; none that recent:
 * the high watermark). It is held for the leader epoch it was loaded at; a fetch that finds the
 * replica no longer leader, or at another epoch, drops it (the next leader loads it from the
 * coordinator). While the cluster's share.version is 0 share fetches and acknowledgements are
 * refused (UNSUPPORTED_VERSION) and no state is held: lowering it drops every share partition
 * (as Kafka's SharePartitionManager.onShareVersionToggle), whose states stay at their coordinators.
 * A group with share.isolation.level read_committed reads up to the last stable
 * offset, and the records of aborted transactions are archived as they are acquired.
 *
 * Owned state: the share partitions (loading, ready), their pending and queued state writes,
 * the fetches waiting for loads, writes or records, the group configs of share groups.
 * Handles: ShareFetch, ShareAcknowledge, ShareMemberGone (Kafka listener, clients);
 * ShareGroupConfigsChanged, ShareVersionChanged, ForgetShareGroup, PrepareSharePartitions (its broker); DescribeSharePartitions (tests, admin); internal
 * SharePartitionLoaded, SharePartitionWritten, ShareFetchRead, ShareFetchDeadline, ShareLocksDue.
 * Emits: ShareFetchResult, ShareAcknowledgeResult, SharePartitionsDescription; DescribeReplica to
 * the local replicas; Fetch and FindCoordinator (key type share) to its broker; Read-, Write- and
 * InitializeShareGroupState to the share coordinators.
 *
 * Bounded growth: a partition's window is at most share.partition.max.record.locks offsets; a
 * share partition no member has used for its group's session timeout is forgotten (its state
 * is at its coordinator).
 */
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { brokerPath, replicaPath } from '../../src/protocol/cluster.js';
import { CONTROL_FLAG_MASK, TRANSACTIONAL_FLAG_MASK, iterateBatches, readBatchHeader } from '../../src/protocol/batch-header.js';
import type { BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import { arrayOf, defineActor, objectOf } from '../../src/runtime/actor-definition.js';
import { isFailure, type ActorRef, type Failure } from '../../src/runtime/types.js';
import type { BrokerMsg, FetchResponse } from '../broker/messages.js';
import type { FindCoordinatorResponse } from '../group-coordinator/messages.js';
import type { ListOffsetsResult, ReplicaDescription, ReplicaMsg } from '../partition-replica/messages.js';
import type { InitializeShareGroupStateResult, ReadShareGroupStateResult, ShareCoordinatorMsg, WriteShareGroupStateResult } from '../share-coordinator/messages.js';
import { shareCoordinatorPath } from '../share-coordinator/messages.js';
import type {
  DescribedSharePartition,
  ShareAcknowledgeResult,
  ShareFetchPartitionResult,
  ShareFetchResult,
  ShareManagerMsg,
  SharePartitionRef,
  SharePartitionsDescription,
} from './messages.js';
import { DEFAULT_SHARE_GROUP_DEFAULTS, shareGroupSettings, type ShareGroupDefaults, type ShareGroupSettings } from './share-group-settings.js';
import { AcknowledgeType, SharePartitionState, type AcquiredRange, type LogBatchSpan } from './share-partition-state.js';
import { SHARE_GROUPS_OFF } from '../../src/protocol/features.js';

export interface ShareManagerArgs {
  brokerId: number;
  /** The broker defaults of the share group configs (group.share.*). */
  defaults?: Partial<ShareGroupDefaults>;
  /** How long a share coordinator or replica ask may take. */
  requestTimeoutMs?: number;
  /** The local broker (default: the broker actor on this node). */
  broker?: ActorRef<BrokerMsg>;
  /** The local replica of a partition (default: the broker's child replica actor). */
  replicaFor?: (topic: string, partition: number) => ActorRef<ReplicaMsg>;
}

type Msg = ShareManagerMsg;
type Ctx = BaseContext<Msg>;
type WriteDone = (errorCode: number, errorMessage?: string) => void;
type LoadWaiter = (failed: { errorCode: number; errorMessage: string } | null) => void;

interface Entry extends SharePartitionRef {
  readonly key: string;
  readonly groupId: string;
  status: 'loading' | 'ready';
  loadId: number;
  state: SharePartitionState | null;
  leaderEpoch: number;
  stateEpoch: number;
  /** Requests waiting for the load: told null when it is ready, else why not. */
  loadWaiters: LoadWaiter[];
  /** The write in flight, and who waits for it. */
  writing: { id: number; done: WriteDone[] } | null;
  /** Changes made while a write was in flight: one more write once it is back. */
  queued: WriteDone[] | null;
  /** When a member last used it. */
  usedAt: number;
  /** Bytes per offset of its last read (null before one): a read asks for what the window can take, not more. */
  bytesPerOffset: number | null;
}

interface PendingFetch {
  id: number;
  token: ReplyToken | null;
  m: Extract<Msg, { type: 'ShareFetch' }>;
  results: ShareFetchPartitionResult[];
  /** Writes and loads still to come back before it may answer. */
  outstanding: number;
  /** When its wait for records ends. */
  deadline: number;
  /** It waits for a share partition's state to change (every window full). */
  waiting: boolean;
  reading: boolean;
  /** The read in flight (its answer is taken only when it is the latest) and where it reads each partition. */
  readSeq: number;
  readFrom: Map<string, number>;
  answered: boolean;
  /** Its member's session ended while it waited: it acquires nothing more. */
  memberGone: boolean;
}

interface ShareManagerState {
  brokerId: number;
  defaults: ShareGroupDefaults;
  requestTimeoutMs: number;
  broker: ActorRef<BrokerMsg>;
  replicaFor: (topic: string, partition: number) => ActorRef<ReplicaMsg>;
  entries: Map<string, Entry>;
  fetches: Map<number, PendingFetch>;
  groupConfigs: Map<string, Readonly<Record<string, string>>>;
  /** The finalized share.version as the broker last told it (share groups run at 1 and up). */
  shareVersion: number;
  seq: number;
}

const EMPTY = new Uint8Array(0);
const HOUSEKEEPING_TIMER = 'share-housekeeping';
const HOUSEKEEPING_MS = 30_000;

export const sharePartitionKey = (groupId: string, topicId: string, partition: number): string => `${groupId}:${topicId}:${partition}`;

function settings(s: ShareManagerState, groupId: string): ShareGroupSettings {
  return shareGroupSettings(s.groupConfigs.get(groupId), s.defaults);
}

function errorMessageOf(code: number, message?: string | null): string | null {
  if (code === ErrorCode.NONE) return null;
  return message ?? errorInfo(code).message;
}

// ---------------------------------------------------------------------------------------------
// Loading a share partition's state

function entryFor(s: ShareManagerState, ctx: Ctx, groupId: string, p: SharePartitionRef): Entry {
  const key = sharePartitionKey(groupId, p.topicId, p.partition);
  let e = s.entries.get(key);
  if (!e) {
    e = { key, groupId, topic: p.topic, topicId: p.topicId, partition: p.partition, status: 'loading', loadId: 0, state: null, leaderEpoch: -1, stateEpoch: 0, loadWaiters: [], writing: null, queued: null, usedAt: 0, bytesPerOffset: null };
    s.entries.set(key, e);
    startLoad(s, ctx, e);
  }
  e.usedAt = ctx.clock.now();
  return e;
}

/** Where the share coordinator of `key` runs, as the local broker tells it. */
async function coordinatorOf(s: ShareManagerState, ctx: Ctx, key: string): Promise<ActorRef<ShareCoordinatorMsg> | Failure | FindCoordinatorResponse> {
  const r = await ctx.ask<FindCoordinatorResponse>(s.broker, { type: 'FindCoordinator', key, keyType: 'share' }, { timeoutMs: s.requestTimeoutMs });
  if (isFailure(r) || r.errorCode !== ErrorCode.NONE) return r;
  return { node: r.node, path: shareCoordinatorPath(r.brokerId) };
}

/** Codes after which the share coordinator is looked up again and asked again (it moves, loads, or its topic is being made). */
const COORDINATOR_RETRIABLE: ReadonlySet<number> = new Set([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR, ErrorCode.REQUEST_TIMED_OUT]);
const RETRY_BACKOFF_MS = 50;
const RETRY_BACKOFF_MAX_MS = 1_000;

type CoordinatorRequest = Extract<ShareCoordinatorMsg, { groupId: string; partition: number }>;
type CoordinatorReply = { type: string; errorCode: number; errorMessage?: string };

/**
 * Asks the share coordinator of `key`, as Kafka's persister does: found afresh and asked again,
 * with a doubling backoff, while it is not available, loading or elsewhere, for at most the
 * request timeout. The reply, or the last error as data.
 */
async function askCoordinator<R extends CoordinatorReply>(s: ShareManagerState, ctx: Ctx, key: string, msg: CoordinatorRequest): Promise<R | { type: 'failed'; errorCode: number; errorMessage: string }> {
  const until = ctx.clock.now() + s.requestTimeoutMs;
  let backoff = RETRY_BACKOFF_MS;
  for (;;) {
    const coordinator = await coordinatorOf(s, ctx, key);
    let failed: { errorCode: number; errorMessage: string };
    if ('errorCode' in coordinator) failed = refused(coordinator);
    else {
      const r = await ctx.ask<R>(coordinator, msg, { timeoutMs: s.requestTimeoutMs });
      if (!isFailure(r) && !COORDINATOR_RETRIABLE.has(r.errorCode)) return r;
      failed = refused(r);
      // an actor not there (a coordinator stopping, a node gone) is a coordinator not available
      if (isFailure(r) && r.reason !== 'timeout') failed = { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: r.message };
    }
    if (!COORDINATOR_RETRIABLE.has(failed.errorCode) || ctx.clock.now() + backoff > until) return { type: 'failed', ...failed };
    await new Promise<void>((resolve) => ctx.clock.setTimeout(resolve, backoff));
    backoff = Math.min(backoff * 2, RETRY_BACKOFF_MAX_MS);
  }
}

function refused(r: Failure | FindCoordinatorResponse | { errorCode: number; errorMessage?: string }): { errorCode: number; errorMessage: string } {
  if (isFailure(r)) return { errorCode: r.errorCode, errorMessage: r.message };
  return { errorCode: r.errorCode, errorMessage: r.errorMessage ?? errorInfo(r.errorCode).message };
}

function startLoad(s: ShareManagerState, ctx: Ctx, e: Entry): void {
  const loadId = ++s.seq;
  e.loadId = loadId;
  e.status = 'loading';
  const cfg = settings(s, e.groupId);
  const done = (r: Omit<Extract<Msg, { type: 'SharePartitionLoaded' }>, 'type' | 'key' | 'loadId'>) => ctx.send(ctx.self, { type: 'SharePartitionLoaded', key: e.key, loadId, ...r });
  const fail = (errorCode: number, errorMessage: string) => done({ errorCode, errorMessage, leaderEpoch: -1, stateEpoch: 0, startOffset: -1, stateBatches: [], logStartOffset: -1 });
  void (async () => {
    const d = await ctx.ask<ReplicaDescription>(s.replicaFor(e.topic, e.partition), { type: 'DescribeReplica' }, { timeoutMs: s.requestTimeoutMs });
    if (isFailure(d)) return fail(d.reason === 'unknown-actor' ? ErrorCode.NOT_LEADER_OR_FOLLOWER : d.errorCode, d.reason === 'unknown-actor' ? `${e.topic}-${e.partition} has no replica on broker ${s.brokerId}` : d.message);
    if (d.role !== 'Leader') return fail(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${s.brokerId} does not lead ${e.topic}-${e.partition}`);
    const read = await askCoordinator<ReadShareGroupStateResult>(s, ctx, e.key, { type: 'ReadShareGroupState', groupId: e.groupId, topicId: e.topicId, partition: e.partition, leaderEpoch: d.leaderEpoch });
    if (read.type === 'failed' || read.errorCode !== ErrorCode.NONE) return fail(read.errorCode, read.errorMessage ?? errorInfo(read.errorCode).message);
    if (read.startOffset >= 0) return done({ errorCode: ErrorCode.NONE, leaderEpoch: d.leaderEpoch, stateEpoch: read.stateEpoch, startOffset: read.startOffset, stateBatches: read.stateBatches, logStartOffset: d.logStartOffset });
    // none yet: the group starts here where share.auto.offset.reset says
    let startOffset = cfg.autoOffsetReset === 'earliest' ? d.logStartOffset : d.highWatermark;
    if (typeof cfg.autoOffsetReset === 'object') {
      // by_duration: the first record written at or after now - duration (Kafka's ListOffsets by
      // timestamp); none that recent: the high watermark; a duration reaching before 1970: the log start
      const timestamp = ctx.clock.now() - cfg.autoOffsetReset.byDurationMs;
      if (timestamp < 0) startOffset = d.logStartOffset;
      else {
        const at = await ctx.ask<ListOffsetsResult>(s.replicaFor(e.topic, e.partition), { type: 'ListOffsets', timestamp, currentLeaderEpoch: d.leaderEpoch }, { timeoutMs: s.requestTimeoutMs });
        if (isFailure(at) || at.errorCode !== ErrorCode.NONE) return fail(isFailure(at) ? at.errorCode : at.errorCode, isFailure(at) ? at.message : errorInfo(at.errorCode).message);
        startOffset = at.offset >= 0 ? Math.min(at.offset, d.highWatermark) : d.highWatermark;
      }
    }
    const init = await askCoordinator<InitializeShareGroupStateResult>(s, ctx, e.key, { type: 'InitializeShareGroupState', groupId: e.groupId, topicId: e.topicId, partition: e.partition, stateEpoch: 0, startOffset });
    if (init.type === 'failed' || init.errorCode !== ErrorCode.NONE) return fail(init.errorCode, init.errorMessage ?? errorInfo(init.errorCode).message);
    ctx.log.info('share partition initialized', { groupId: e.groupId, topic: e.topic, partition: e.partition, startOffset, autoOffsetReset: cfg.autoOffsetReset });
    done({ errorCode: ErrorCode.NONE, leaderEpoch: d.leaderEpoch, stateEpoch: 0, startOffset, stateBatches: [], logStartOffset: d.logStartOffset });
  })();
}

/** Forgets a share partition (its state is its coordinator's): those waiting for its load or writes hear `errorCode`. */
function dropEntry(s: ShareManagerState, ctx: Ctx, e: Entry, errorCode: number, why: string): void {
  if (s.entries.get(e.key) !== e) return;
  s.entries.delete(e.key);
  ctx.timers.cancel(lockTimerKey(e.key));
  const waiters = e.loadWaiters;
  e.loadWaiters = [];
  const failed = { errorCode: errorCode === ErrorCode.NONE ? ErrorCode.NOT_LEADER_OR_FOLLOWER : errorCode, errorMessage: why };
  for (const w of waiters) w(failed);
  for (const d of [...(e.writing?.done ?? []), ...(e.queued ?? [])]) d(failed.errorCode, why);
  e.writing = null;
  e.queued = null;
  e.state = null;
  ctx.log.debug('share partition dropped', { groupId: e.groupId, topic: e.topic, partition: e.partition, why });
}

// ---------------------------------------------------------------------------------------------
// Writing a share partition's state

function persist(s: ShareManagerState, ctx: Ctx, e: Entry, done: WriteDone): void {
  if (e.writing) {
    (e.queued ??= []).push(done);
    return;
  }
  writeNow(s, ctx, e, [done]);
}

function writeNow(s: ShareManagerState, ctx: Ctx, e: Entry, done: WriteDone[]): void {
  const id = ++s.seq;
  e.writing = { id, done };
  const snap = e.state!.snapshot();
  const msg: CoordinatorRequest = { type: 'WriteShareGroupState', groupId: e.groupId, topicId: e.topicId, partition: e.partition, leaderEpoch: e.leaderEpoch, stateEpoch: e.stateEpoch, startOffset: snap.startOffset, stateBatches: snap.stateBatches };
  void askCoordinator<WriteShareGroupStateResult>(s, ctx, e.key, msg).then((r) => {
    const out: Extract<Msg, { type: 'SharePartitionWritten' }> = { type: 'SharePartitionWritten', key: e.key, writeId: id, errorCode: r.errorCode };
    if (r.errorMessage) out.errorMessage = r.errorMessage;
    ctx.send(ctx.self, out);
  });
}

/**
 * After a change of a partition's state: its lock timer follows the earliest lock, and the
 * fetches of it try again: those waiting for a change (every window full), and those whose read
 * waits at the log end (the broker's long poll) while records below it became available (released,
 * a lock run out, a member gone): their read is superseded by one from there, and the answer of the
 * old one, when it comes, is dropped (as Kafka completes a delayed share fetch on such a change).
 */
function changed(s: ShareManagerState, ctx: Ctx, e: Entry): void {
  scheduleLocks(ctx, e);
  const next = e.state?.nextFetchOffset() ?? null;
  for (const f of s.fetches.values()) {
    if (f.answered || f.memberGone || f.m.groupId !== e.groupId || !f.m.partitions.some((p) => p.fetch && sharePartitionKey(f.m.groupId, p.topicId, p.partition) === e.key)) continue;
    if (f.waiting) {
      f.waiting = false;
      readFor(s, ctx, f);
    } else if (f.reading && next !== null && next < (f.readFrom.get(e.key) ?? Infinity) && f.results.every((r) => r.acquiredRecords.length === 0)) {
      f.reading = false;
      readFor(s, ctx, f);
    }
  }
}

const lockTimerKey = (key: string) => `share-locks:${key}`;

function scheduleLocks(ctx: Ctx, e: Entry): void {
  const due = e.state?.nextLockDeadline() ?? null;
  if (due === null) return ctx.timers.cancel(lockTimerKey(e.key));
  ctx.timers.startSingle(lockTimerKey(e.key), Math.max(1, due - ctx.clock.now()), { type: 'ShareLocksDue', key: e.key });
}

/** A change that must be written before it is told: `then` runs with the write's outcome. */
function changeAndPersist(s: ShareManagerState, ctx: Ctx, e: Entry, then: WriteDone): void {
  changed(s, ctx, e);
  persist(s, ctx, e, then);
}

// ---------------------------------------------------------------------------------------------
// ShareFetch

function startFetch(s: ShareManagerState, ctx: Ctx, f: PendingFetch): void {
  for (const p of f.m.partitions) {
    const e = entryFor(s, ctx, f.m.groupId, p);
    if (e.status === 'ready') continue;
    f.outstanding++;
    e.loadWaiters.push((failed) => {
      if (failed) {
        const r = resultFor(f, p);
        setError(r, failed.errorCode, failed.errorMessage);
        if (p.acknowledgementBatches.length > 0) {
          r.acknowledgeErrorCode = r.errorCode;
          r.acknowledgeErrorMessage = r.errorMessage;
        }
      }
      f.outstanding--;
      if (f.outstanding === 0) afterLoads(s, ctx, f);
    });
  }
  if (f.outstanding === 0) afterLoads(s, ctx, f);
}

function resultFor(f: PendingFetch, p: SharePartitionRef): ShareFetchPartitionResult {
  let r = f.results.find((x) => x.topicId === p.topicId && x.partition === p.partition);
  if (!r) {
    r = { topic: p.topic, topicId: p.topicId, partition: p.partition, errorCode: ErrorCode.NONE, errorMessage: null, acknowledgeErrorCode: ErrorCode.NONE, acknowledgeErrorMessage: null, records: EMPTY, acquiredRecords: [] };
    f.results.push(r);
  }
  return r;
}

/** Every partition's state is at hand (or failed to load): acknowledge, then read. */
function afterLoads(s: ShareManagerState, ctx: Ctx, f: PendingFetch): void {
  if (f.answered) return;
  f.outstanding++; // held until the acknowledgements are all started
  for (const p of f.m.partitions) {
    const r = resultFor(f, p);
    if (r.errorCode !== ErrorCode.NONE) continue;
    const e = s.entries.get(sharePartitionKey(f.m.groupId, p.topicId, p.partition));
    if (!e || e.status !== 'ready' || !e.state) {
      // loaded, then dropped before this fetch got to it (a failed write, leadership moved)
      setError(r, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'the share partition moved while the fetch waited');
      if (p.acknowledgementBatches.length > 0) {
        r.acknowledgeErrorCode = r.errorCode;
        r.acknowledgeErrorMessage = r.errorMessage;
      }
      continue;
    }
    if (p.acknowledgementBatches.length === 0) continue;
    const ack = e.state.acknowledge(f.m.memberId, p.acknowledgementBatches);
    if (ack.errorCode !== ErrorCode.NONE) {
      r.acknowledgeErrorCode = ack.errorCode;
      r.acknowledgeErrorMessage = ack.errorMessage ?? errorMessageOf(ack.errorCode);
      continue;
    }
    // a release to Available changes nothing stored, but lets waiting fetches have the records
    if (!ack.changed) {
      changed(s, ctx, e);
      continue;
    }
    f.outstanding++;
    changeAndPersist(s, ctx, e, (code, message) => {
      if (code !== ErrorCode.NONE) {
        r.acknowledgeErrorCode = code;
        r.acknowledgeErrorMessage = errorMessageOf(code, message);
      }
      f.outstanding--;
      maybeAnswer(s, ctx, f);
    });
  }
  f.outstanding--;
  readFor(s, ctx, f);
}

/** Reads the fetchable partitions (through the broker's Fetch, which waits for records), or waits for a state change when none can take more. */
function readFor(s: ShareManagerState, ctx: Ctx, f: PendingFetch): void {
  if (f.answered || f.reading) return;
  const now = ctx.clock.now();
  const wanted: { key: string; topic: string; partition: number; fetchOffset: number; leaderEpoch: number; room: number; bytesPerOffset: number | null }[] = [];
  for (const p of f.m.partitions) {
    if (!p.fetch) continue;
    const key = sharePartitionKey(f.m.groupId, p.topicId, p.partition);
    const e = s.entries.get(key);
    const r = resultFor(f, p);
    if (!e?.state || r.errorCode !== ErrorCode.NONE) continue;
    const at = e.state.nextFetchOffset();
    if (at !== null) wanted.push({ key, topic: e.topic, partition: e.partition, fetchOffset: at, leaderEpoch: e.leaderEpoch, room: Math.min(e.state.acquirableSpan(at), f.m.maxRecords), bytesPerOffset: e.bytesPerOffset });
  }
  const acquired = f.results.some((r) => r.acquiredRecords.length > 0);
  if (wanted.length === 0 || acquired || f.m.maxRecords <= 0) {
    if (wanted.length === 0 && !acquired && now < f.deadline && f.m.partitions.some((p) => p.fetch)) {
      // every window is full: wait for an acknowledgement, a release or a lock to expire
      f.waiting = true;
      return;
    }
    finishFetch(s, ctx, f);
    return;
  }
  f.reading = true;
  const readSeq = ++f.readSeq;
  f.readFrom = new Map(wanted.map((w) => [w.key, w.fetchOffset]));
  const readCommitted = settings(s, f.m.groupId).isolationLevel === 'read_committed';
  const maxWaitMs = Math.max(0, f.deadline - now);
  const partitionMaxBytes = Math.max(1, Math.floor(f.m.maxBytes / wanted.length));
  void ctx
    .ask<FetchResponse>(
      s.broker,
      {
        type: 'Fetch',
        replicaId: -1,
        maxWaitMs,
        minBytes: Math.max(1, f.m.minBytes),
        maxBytes: f.m.maxBytes,
        partitions: wanted.map((w) => ({ topic: w.topic, partition: w.partition, fetchOffset: w.fetchOffset, currentLeaderEpoch: w.leaderEpoch, partitionMaxBytes: readBytesFor(w, partitionMaxBytes) })),
        // share.isolation.level read_committed: up to the last stable offset, told the aborted transactions
        ...(readCommitted ? { isolationLevel: 'read_committed' as const } : {}),
      },
      { timeoutMs: maxWaitMs + s.requestTimeoutMs },
    )
    .then((r) => {
      const out: Extract<Msg, { type: 'ShareFetchRead' }> = { type: 'ShareFetchRead', fetchId: f.id, readSeq, errorCode: ErrorCode.NONE, partitions: [] };
      if (isFailure(r)) out.errorCode = r.errorCode;
      else if (r.errorCode !== ErrorCode.NONE) out.errorCode = r.errorCode;
      else {
        out.partitions = r.partitions.map((pr) => {
          const w = wanted.find((x) => x.topic === pr.topic && x.partition === pr.partition)!;
          const o: Extract<Msg, { type: 'ShareFetchRead' }>['partitions'][number] = { key: w.key, errorCode: pr.errorCode, records: pr.records, logStartOffset: pr.logStartOffset };
          if (pr.errorMessage) o.errorMessage = pr.errorMessage;
          if (readCommitted) o.abortedTransactions = pr.abortedTransactions ?? [];
          return o;
        });
      }
      ctx.send(ctx.self, out);
    });
}

/**
 * What to read of a partition: its share of the fetch's bytes, but no more than the offsets its
 * window can still take need at the bytes per offset of its last read (and a fifth more), since
 * what is read past them is not acquired and is read again by the next fetch. The broker returns
 * a whole first batch however small this is.
 */
export function readBytesFor(w: { room: number; bytesPerOffset: number | null }, share: number): number {
  if (w.bytesPerOffset === null) return share;
  return Math.max(1, Math.min(share, Math.ceil(w.room * w.bytesPerOffset * 1.2)));
}

/** The batches of `records` (whole, as read) with their first and last offsets. */
function batchesOf(records: Uint8Array): { pos: number; size: number; span: LogBatchSpan }[] {
  const out: { pos: number; size: number; span: LogBatchSpan }[] = [];
  for (const frame of iterateBatches(records)) {
    const h = readBatchHeader(records, frame.pos);
    out.push({ pos: frame.pos, size: frame.size, span: { baseOffset: h.baseOffset, lastOffset: h.baseOffset + h.lastOffsetDelta } });
  }
  return out;
}

/**
 * The data batches of transactions `aborted` names, as offset spans: a producer's batches from
 * its aborted transaction's first offset until its ABORT marker (the consumer's rule).
 */
function abortedSpans(records: Uint8Array, batches: { pos: number; span: LogBatchSpan }[], aborted: readonly { producerId: number; firstOffset: number }[]): LogBatchSpan[] {
  const pending = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset);
  const open = new Set<number>();
  const out: LogBatchSpan[] = [];
  for (const b of batches) {
    while (pending.length > 0 && pending[0]!.firstOffset <= b.span.lastOffset) open.add(pending.shift()!.producerId);
    const h = readBatchHeader(records, b.pos);
    if ((h.attributes & TRANSACTIONAL_FLAG_MASK) === 0 || !open.has(h.producerId)) continue;
    if ((h.attributes & CONTROL_FLAG_MASK) !== 0) open.delete(h.producerId);
    else out.push(b.span);
  }
  return out;
}

/** The parts of `ranges` inside `spans`. */
function intersect(ranges: readonly AcquiredRange[], spans: readonly LogBatchSpan[]): AcquiredRange[] {
  const out: AcquiredRange[] = [];
  for (const r of ranges) {
    for (const sp of spans) {
      const first = Math.max(r.firstOffset, sp.baseOffset);
      const last = Math.min(r.lastOffset, sp.lastOffset);
      if (first <= last) out.push({ firstOffset: first, lastOffset: last, deliveryCount: r.deliveryCount });
    }
  }
  return out;
}

/** `ranges` without the offsets of `removed` (both ascending). */
function subtract(ranges: readonly AcquiredRange[], removed: readonly AcquiredRange[]): AcquiredRange[] {
  const out: AcquiredRange[] = [];
  for (const r of ranges) {
    let from = r.firstOffset;
    for (const x of removed) {
      if (x.lastOffset < from || x.firstOffset > r.lastOffset) continue;
      if (x.firstOffset > from) out.push({ firstOffset: from, lastOffset: x.firstOffset - 1, deliveryCount: r.deliveryCount });
      from = x.lastOffset + 1;
    }
    if (from <= r.lastOffset) out.push({ firstOffset: from, lastOffset: r.lastOffset, deliveryCount: r.deliveryCount });
  }
  return out;
}

/** The batches holding an acquired offset, as one buffer. */
function batchesHolding(records: Uint8Array, batches: { pos: number; size: number; span: LogBatchSpan }[], ranges: AcquiredRange[]): Uint8Array {
  const kept = batches.filter((b) => ranges.some((r) => r.firstOffset <= b.span.lastOffset && r.lastOffset >= b.span.baseOffset));
  if (kept.length === 0) return EMPTY;
  const first = kept[0]!;
  const last = kept[kept.length - 1]!;
  // batches next to each other in what was read: a view of it, no copy
  if (kept.every((b, i) => i === 0 || b.pos === kept[i - 1]!.pos + kept[i - 1]!.size)) return records.subarray(first.pos, last.pos + last.size);
  const out = new Uint8Array(kept.reduce((n, b) => n + b.size, 0));
  let at = 0;
  for (const b of kept) {
    out.set(records.subarray(b.pos, b.pos + b.size), at);
    at += b.size;
  }
  return out;
}

function onFetchRead(s: ShareManagerState, ctx: Ctx, f: PendingFetch, m: Extract<Msg, { type: 'ShareFetchRead' }>): void {
  f.reading = false;
  f.readFrom.clear();
  if (f.answered) return;
  if (m.errorCode !== ErrorCode.NONE) {
    for (const p of f.m.partitions) if (p.fetch) setError(resultFor(f, p), m.errorCode);
    return finishFetch(s, ctx, f);
  }
  if (f.memberGone) return finishFetch(s, ctx, f);
  let budget = f.m.maxRecords;
  for (const r of f.results) for (const a of r.acquiredRecords) budget -= a.lastOffset - a.firstOffset + 1;
  let retry = false;
  for (const pr of m.partitions) {
    const e = s.entries.get(pr.key);
    const p = f.m.partitions.find((x) => sharePartitionKey(f.m.groupId, x.topicId, x.partition) === pr.key);
    if (!e?.state || !p) continue;
    const r = resultFor(f, p);
    if (pr.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE && pr.logStartOffset > e.state.startOffset) {
      // retention (or DeleteRecords) passed the share partition's start: it moves up to the log start
      if (e.state.moveStartOffset(pr.logStartOffset)) changeAndPersist(s, ctx, e, () => {});
      retry = true;
      continue;
    }
    if (pr.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER || pr.errorCode === ErrorCode.FENCED_LEADER_EPOCH || pr.errorCode === ErrorCode.UNKNOWN_LEADER_EPOCH) {
      dropEntry(s, ctx, e, pr.errorCode, pr.errorMessage ?? 'leadership moved');
      setError(r, pr.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER ? pr.errorCode : ErrorCode.NOT_LEADER_OR_FOLLOWER, pr.errorMessage);
      continue;
    }
    if (pr.errorCode !== ErrorCode.NONE) {
      setError(r, pr.errorCode, pr.errorMessage);
      continue;
    }
    if (pr.records.length === 0 || budget <= 0) continue;
    const batches = batchesOf(pr.records);
    const next = e.state.nextFetchOffset();
    if (batches.length === 0 || next === null) continue;
    e.bytesPerOffset = pr.records.length / (batches[batches.length - 1]!.span.lastOffset - batches[0]!.span.baseOffset + 1);
    // the state moved while the read was out (a release below where it read): read again
    if (batches[0]!.span.baseOffset > next) {
      retry = true;
      continue;
    }
    let ranges = e.state.acquire(f.m.memberId, batches.map((b) => b.span), budget);
    if (ranges.length === 0) continue;
    if (pr.abortedTransactions && pr.abortedTransactions.length > 0) {
      // read_committed: the records of aborted transactions are archived, never delivered (Kafka's
      // SharePartition does the same with the aborted transactions its fetch is told of)
      const aborted = abortedSpans(pr.records, batches, pr.abortedTransactions);
      const archive = intersect(ranges, aborted);
      if (archive.length > 0) {
        const r2 = e.state.acknowledge(f.m.memberId, archive.map((a) => ({ firstOffset: a.firstOffset, lastOffset: a.lastOffset, acknowledgeTypes: [AcknowledgeType.Reject] })));
        if (r2.changed) changeAndPersist(s, ctx, e, () => {});
        ranges = subtract(ranges, archive);
        if (ranges.length === 0) continue;
      }
    }
    for (const a of ranges) budget -= a.lastOffset - a.firstOffset + 1;
    r.acquiredRecords = ranges;
    r.records = batchesHolding(pr.records, batches, ranges);
    scheduleLocks(ctx, e);
  }
  if (retry && ctx.clock.now() < f.deadline && !f.results.some((r) => r.acquiredRecords.length > 0)) return readFor(s, ctx, f);
  finishFetch(s, ctx, f);
}

function setError(r: ShareFetchPartitionResult, code: number, message?: string): void {
  r.errorCode = code;
  r.errorMessage = errorMessageOf(code, message);
}

function finishFetch(s: ShareManagerState, ctx: Ctx, f: PendingFetch): void {
  f.waiting = false;
  f.reading = false;
  f.deadline = -1;
  maybeAnswer(s, ctx, f);
}

/** Answers once its reading is over and its acknowledgements are written. */
function maybeAnswer(s: ShareManagerState, ctx: Ctx, f: PendingFetch): void {
  if (f.answered || f.outstanding > 0 || f.reading || f.waiting || f.deadline !== -1) return;
  f.answered = true;
  s.fetches.delete(f.id);
  ctx.timers.cancel(fetchTimerKey(f.id));
  if (!f.token) return;
  const lockMs = settings(s, f.m.groupId).recordLockDurationMs;
  const partitions = f.m.partitions.map((p) => resultFor(f, p));
  ctx.replyTo(f.token, { type: 'ShareFetchResult', errorCode: ErrorCode.NONE, acquisitionLockTimeoutMs: lockMs, partitions } satisfies ShareFetchResult);
}

const fetchTimerKey = (id: number) => `share-fetch:${id}`;

// ---------------------------------------------------------------------------------------------
// ShareAcknowledge

function acknowledge(s: ShareManagerState, ctx: Ctx, m: Extract<Msg, { type: 'ShareAcknowledge' }>, token: ReplyToken | null): void {
  const results: ShareAcknowledgeResult['partitions'] = m.partitions.map((p) => ({ topic: p.topic, topicId: p.topicId, partition: p.partition, errorCode: ErrorCode.NONE, errorMessage: null }));
  let outstanding = 1;
  const settle = () => {
    if (--outstanding > 0) return;
    if (token) ctx.replyTo(token, { type: 'ShareAcknowledgeResult', errorCode: ErrorCode.NONE, acquisitionLockTimeoutMs: settings(s, m.groupId).recordLockDurationMs, partitions: results } satisfies ShareAcknowledgeResult);
  };
  m.partitions.forEach((p, i) => {
    const r = results[i]!;
    const e = entryFor(s, ctx, m.groupId, p);
    const apply = (failed: { errorCode: number; errorMessage: string } | null) => {
      if (failed || !e.state || s.entries.get(e.key) !== e) {
        r.errorCode = failed?.errorCode ?? ErrorCode.NOT_LEADER_OR_FOLLOWER;
        r.errorMessage = errorMessageOf(r.errorCode, failed?.errorMessage ?? 'the share partition moved while the acknowledgement waited');
        return settle();
      }
      const ack = e.state.acknowledge(m.memberId, p.acknowledgementBatches);
      if (ack.errorCode !== ErrorCode.NONE) {
        r.errorCode = ack.errorCode;
        r.errorMessage = ack.errorMessage ?? errorMessageOf(ack.errorCode);
        return settle();
      }
      if (!ack.changed) {
        changed(s, ctx, e);
        return settle();
      }
      changeAndPersist(s, ctx, e, (code, message) => {
        if (code !== ErrorCode.NONE) {
          r.errorCode = code;
          r.errorMessage = errorMessageOf(code, message);
        }
        settle();
      });
    };
    outstanding++;
    if (e.status === 'ready') apply(null);
    else e.loadWaiters.push(apply);
  });
  settle();
}

/** A share fetch's or acknowledgement's batches of acknowledgements, element by element. */
const ACK_BATCHES = arrayOf(objectOf({ firstOffset: 'integer', lastOffset: 'integer', acknowledgeTypes: arrayOf('integer') }));

export const shareManager = defineActor<ShareManagerState, Msg, ShareManagerArgs>({
  kind: 'share-partition-manager',
  // the share consumer's and admin's messages; loading, writes, deadlines and notices are the broker's
  clientMessages: { ShareFetch: true, ShareAcknowledge: true, ShareMemberGone: true, ForgetShareGroup: true, DescribeSharePartitions: true },
  supervision: 'resume',

  init(ctx, args) {
    const s: ShareManagerState = {
      brokerId: args.brokerId,
      defaults: { ...DEFAULT_SHARE_GROUP_DEFAULTS, ...args.defaults },
      requestTimeoutMs: args.requestTimeoutMs ?? 30_000,
      broker: args.broker ?? { node: ctx.nodeId, path: brokerPath(args.brokerId) },
      replicaFor: args.replicaFor ?? ((topic, partition) => ({ node: ctx.nodeId, path: replicaPath(args.brokerId, topic, partition) })),
      entries: new Map(),
      fetches: new Map(),
      groupConfigs: new Map(),
      shareVersion: 1,
      seq: 0,
    };
    ctx.timers.startPeriodic(HOUSEKEEPING_TIMER, HOUSEKEEPING_MS, { type: 'ShareHousekeeping' });
    return s;
  },

  schema: {
    ShareFetch: {
      groupId: 'string',
      memberId: 'string',
      maxWaitMs: 'integer',
      minBytes: 'integer',
      maxBytes: 'integer',
      maxRecords: 'integer',
      partitions: arrayOf(objectOf({ topic: 'string', topicId: 'string', partition: 'integer', fetch: 'boolean', acknowledgementBatches: ACK_BATCHES })),
    },
    ShareAcknowledge: { groupId: 'string', memberId: 'string', partitions: arrayOf(objectOf({ topic: 'string', topicId: 'string', partition: 'integer', acknowledgementBatches: ACK_BATCHES })) },
    ShareMemberGone: { groupId: 'string', memberId: 'string' },
    ShareGroupConfigsChanged: { configs: 'object' },
    ShareVersionChanged: { level: 'integer' },
    ForgetShareGroup: { groupId: 'string', partitions: arrayOf(objectOf({ topicId: 'string', partition: 'integer' }), { optional: true }) },
    PrepareSharePartitions: { groupId: 'string', partitions: arrayOf(objectOf({ topic: 'string', topicId: 'string', partition: 'integer' })) },
    DescribeSharePartitions: { groupId: 'string?' },
  },

  handlers: {
    ShareFetch(s, m, ctx) {
      const token = ctx.deferReply() ?? null;
      if (s.shareVersion < 1) {
        if (token) ctx.replyTo(token, { type: 'ShareFetchResult', errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: SHARE_GROUPS_OFF, acquisitionLockTimeoutMs: 0, partitions: [] } satisfies ShareFetchResult);
        return;
      }
      const id = ++s.seq;
      const f: PendingFetch = { id, token, m, results: [], outstanding: 0, deadline: ctx.clock.now() + Math.max(0, m.maxWaitMs), waiting: false, reading: false, readSeq: 0, readFrom: new Map(), answered: false, memberGone: false };
      s.fetches.set(id, f);
      if (m.maxWaitMs > 0) ctx.timers.startSingle(fetchTimerKey(id), m.maxWaitMs, { type: 'ShareFetchDeadline', fetchId: id });
      startFetch(s, ctx, f);
    },

    ShareFetchDeadline(s, m, ctx) {
      const f = s.fetches.get(m.fetchId);
      if (!f || f.answered) return;
      // a read in flight ends by itself (the broker's Fetch has the same deadline)
      if (f.waiting) finishFetch(s, ctx, f);
    },

    ShareFetchRead(s, m, ctx) {
      const f = s.fetches.get(m.fetchId);
      // a read superseded by a later one (records became available below where it waited) is dropped
      if (f && m.readSeq === f.readSeq) onFetchRead(s, ctx, f, m);
    },

    ShareAcknowledge(s, m, ctx) {
      if (s.shareVersion < 1) {
        ctx.reply({ type: 'ShareAcknowledgeResult', errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: SHARE_GROUPS_OFF, acquisitionLockTimeoutMs: 0, partitions: [] } satisfies ShareAcknowledgeResult);
        return;
      }
      acknowledge(s, ctx, m, ctx.deferReply() ?? null);
    },

    ShareVersionChanged(s, m, ctx) {
      if (m.level === s.shareVersion) return;
      s.shareVersion = m.level;
      ctx.log.info(m.level >= 1 ? 'share groups on (share.version 1)' : 'share groups off (share.version 0): share partitions dropped', { shareVersion: m.level, partitions: s.entries.size });
      if (m.level >= 1) return;
      for (const e of [...s.entries.values()]) dropEntry(s, ctx, e, ErrorCode.UNSUPPORTED_VERSION, SHARE_GROUPS_OFF);
      // fetches waiting for a change or for records end now, with what they have (a read in flight is dropped)
      for (const f of s.fetches.values()) {
        if (f.answered || (!f.waiting && !f.reading)) continue;
        f.readSeq++;
        finishFetch(s, ctx, f);
      }
    },

    ShareMemberGone(s, m, ctx) {
      // its fetches still waiting end now, acquiring nothing more (a read in flight ends with them)
      for (const f of s.fetches.values()) {
        if (f.answered || f.m.groupId !== m.groupId || f.m.memberId !== m.memberId) continue;
        f.memberGone = true;
        if (f.waiting) finishFetch(s, ctx, f);
      }
      for (const e of s.entries.values()) {
        if (e.groupId !== m.groupId || !e.state) continue;
        const held = e.state.acquiredBy(m.memberId);
        if (held === 0) continue;
        ctx.log.debug('records of a member gone released', { groupId: e.groupId, memberId: m.memberId, topic: e.topic, partition: e.partition, records: held });
        // back to Available is what the store holds already, unless some went to Archived
        if (e.state.releaseMember(m.memberId)) changeAndPersist(s, ctx, e, () => {});
        else changed(s, ctx, e);
      }
    },

    PrepareSharePartitions(s, m, ctx) {
      // loading makes the state when there is none; one held or loading already is left as it is
      for (const p of m.partitions) entryFor(s, ctx, m.groupId, p);
    },

    ForgetShareGroup(s, m, ctx) {
      const only = m.partitions ? new Set(m.partitions.map((p) => sharePartitionKey(m.groupId, p.topicId, p.partition))) : null;
      for (const e of [...s.entries.values()]) {
        if (e.groupId !== m.groupId || (only && !only.has(e.key))) continue;
        dropEntry(s, ctx, e, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'the share partition state was changed by an admin');
      }
    },

    ShareGroupConfigsChanged(s, m) {
      s.groupConfigs = new Map(Object.entries(m.configs));
      for (const e of s.entries.values()) e.state?.setLimits(settings(s, e.groupId).limits);
    },

    ShareHousekeeping(s, _m, ctx) {
      // partitions unused for their group's session timeout, with nothing acquired, are forgotten
      const now = ctx.clock.now();
      for (const e of [...s.entries.values()]) {
        if (e.status !== 'ready' || e.writing || e.loadWaiters.length > 0) continue;
        if (e.state && e.state.describe().acquired > 0) continue;
        if (now - e.usedAt >= settings(s, e.groupId).sessionTimeoutMs) dropEntry(s, ctx, e, ErrorCode.NONE, 'unused');
      }
    },

    DescribeSharePartitions(s, m, ctx) {
      const partitions: DescribedSharePartition[] = [];
      for (const e of s.entries.values()) {
        if (!e.state || (m.groupId && e.groupId !== m.groupId)) continue;
        partitions.push({ groupId: e.groupId, topic: e.topic, topicId: e.topicId, partition: e.partition, leaderEpoch: e.leaderEpoch, stateEpoch: e.stateEpoch, ...e.state.describe() });
      }
      ctx.reply({ type: 'SharePartitionsDescription', errorCode: ErrorCode.NONE, partitions } satisfies SharePartitionsDescription);
    },

    SharePartitionLoaded(s, m, ctx) {
      const e = s.entries.get(m.key);
      if (!e || e.loadId !== m.loadId) return;
      if (m.errorCode !== ErrorCode.NONE) {
        ctx.log.debug('share partition not loaded', { groupId: e.groupId, topic: e.topic, partition: e.partition, errorCode: m.errorCode, reason: m.errorMessage });
        dropEntry(s, ctx, e, m.errorCode, m.errorMessage ?? '');
        return;
      }
      try {
        e.state = new SharePartitionState({ startOffset: m.startOffset, stateBatches: m.stateBatches }, settings(s, e.groupId).limits, () => ctx.clock.now());
      } catch (err) {
        ctx.log.error('stored share partition state refused', { groupId: e.groupId, topic: e.topic, partition: e.partition, reason: (err as Error).message });
        dropEntry(s, ctx, e, ErrorCode.UNKNOWN_SERVER_ERROR, `the stored share state does not hold together: ${(err as Error).message}`);
        return;
      }
      e.status = 'ready';
      e.leaderEpoch = m.leaderEpoch;
      e.stateEpoch = m.stateEpoch;
      const moved = m.logStartOffset > e.state.startOffset && e.state.moveStartOffset(m.logStartOffset);
      // offsets held at the delivery limit when the state was written: their last delivery counts
      const exhausted = e.state.archiveExhausted();
      if (exhausted) ctx.log.info('share partition loaded with records at the delivery limit: archived', { groupId: e.groupId, topic: e.topic, partition: e.partition, startOffset: e.state.startOffset });
      ctx.log.debug('share partition loaded', { groupId: e.groupId, topic: e.topic, partition: e.partition, leaderEpoch: m.leaderEpoch, startOffset: e.state.startOffset });
      const waiters = e.loadWaiters;
      e.loadWaiters = [];
      if (moved || exhausted) changeAndPersist(s, ctx, e, () => {});
      for (const w of waiters) w(null);
    },

    SharePartitionWritten(s, m, ctx) {
      const e = s.entries.get(m.key);
      if (!e?.writing || e.writing.id !== m.writeId) return;
      const done = e.writing.done;
      e.writing = null;
      if (m.errorCode !== ErrorCode.NONE) {
        ctx.log.warn('share partition state not written: dropped, to load again', { groupId: e.groupId, topic: e.topic, partition: e.partition, errorCode: m.errorCode, reason: m.errorMessage });
        for (const d of done) d(m.errorCode, m.errorMessage);
        dropEntry(s, ctx, e, m.errorCode, m.errorMessage ?? 'the state write failed');
        return;
      }
      for (const d of done) d(ErrorCode.NONE);
      if (e.queued) {
        const queued = e.queued;
        e.queued = null;
        writeNow(s, ctx, e, queued);
      }
    },

    ShareLocksDue(s, m, ctx) {
      const e = s.entries.get(m.key);
      if (!e?.state) return;
      const before = e.state.describe().acquired;
      const persisted = e.state.expireLocks();
      const expired = before - e.state.describe().acquired;
      if (expired > 0) ctx.log.debug('acquisition locks expired', { groupId: e.groupId, topic: e.topic, partition: e.partition, records: expired });
      if (persisted) changeAndPersist(s, ctx, e, () => {});
      else if (expired > 0) changed(s, ctx, e);
      else scheduleLocks(ctx, e);
    },
  },
});
