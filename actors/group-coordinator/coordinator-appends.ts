/**
 * The group coordinator's writes (coordinator.ts): the records it appends to the offsets
 * partitions it leads (WrittenRecord), through the local leader replica with acks=all, and what
 * each append is for (AppendPurpose). When an append is done (AppendDone) its records enter the
 * cache in the log's order and its purpose is settled (settleAppend): a commit or a heartbeat is
 * answered, a classic group's stored assignment handed out. Also how an append's error is
 * reported to each kind of request (Kafka's GroupMetadataManager and coordinator runtime).
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ReplyToken } from '../../src/runtime/actor-definition.js';
import { isFailure } from '../../src/runtime/types.js';
import type { ProduceResponse, ReplicaMsg } from '../partition-replica/messages.js';
import { GroupState, type Protocol } from './group-state.js';
import type { CoordinatorMsg, DeleteGroupsResponse, OffsetCommitResponse, OffsetDeleteResponse, TxnOffsetCommitResponse } from './messages.js';
import { buildOffsetsBatch, encodeGroupMetadataKey, encodeOffsetCommitKey, encodeOffsetCommitValue, topicPartitionKey, type OffsetCommitValue, type OffsetsRecord } from './offsets-store.js';
import type { CoordinatorState } from './coordinator.js';
import { cancelHeartbeat, joinError, joinResult, maybePrepareRebalance, propagateAssignment, resetAndPropagateAssignmentError, scheduleHeartbeat, takeJoinWaiter } from './coordinator-classic.js';
import { answer, liveEntry, OffsetsPartitionStatus, type Ctx, type GroupEntry, type HandlerCtx, type MsgOf } from './coordinator-groups.js';
import { holdTxnOffset } from './coordinator-offsets.js';
import { replicaAskFailureCode } from '../partition-replica/ask-failure.js';

export type WrittenRecord =
  /** `txn`: written in that producer's transaction (TxnOffsetCommit). */
  | { kind: 'offset'; entry: GroupEntry; topic: string; partition: number; value: OffsetCommitValue | null; txn?: { producerId: number; producerEpoch: number } }
  | { kind: 'group'; entry: GroupEntry; bytes: Uint8Array | null }
  /** A KIP-848 consumer group record (its state is applied in memory before the write). */
  | { kind: 'consumer'; entry: GroupEntry; key: Uint8Array; value: Uint8Array | null };

export interface DeleteGroupsProgress {
  token: ReplyToken | null;
  results: { groupId: string; errorCode: number }[];
  remaining: number;
}

export type AppendPurpose =
  | { kind: 'commit'; token: ReplyToken | null; response: OffsetCommitResponse | TxnOffsetCommitResponse; written: { topic: string; partition: number }[] }
  | { kind: 'sync'; generationId: number; assignments: Map<string, Uint8Array> }
  | { kind: 'store-empty' }
  | {
      kind: 'static-replace';
      groupInstanceId: string;
      oldMemberId: string;
      newMemberId: string;
      previous: { supportedProtocols: readonly Protocol[]; rebalanceTimeoutMs: number; sessionTimeoutMs: number };
      leaderBefore: string;
      /** JoinGroup v9+ (KIP-814): a leader is answered as leader, with the members, told to skip the assignment. */
      supportsSkippingAssignment: boolean;
    }
  | { kind: 'delete-groups'; progress: DeleteGroupsProgress; groupIds: string[] }
  | { kind: 'offset-delete'; token: ReplyToken | null; response: OffsetDeleteResponse; deleted: { topic: string; partition: number }[] }
  | { kind: 'expire' }
  | { kind: 'refresh' }
  /** Tombstones of the offsets of deleted topics. */
  | { kind: 'topics-deleted' }
  /** Consumer group records written on a timer (fenced members, rewrites). */
  | { kind: 'consumer-write' }
  /**
   * A request to a consumer group (a ConsumerGroupHeartbeat, a classic member's JoinGroup or
   * LeaveGroup) is answered once its records are written: `response`, or `failed` with the error.
   */
  | { kind: 'consumer-reply'; token: ReplyToken | null; response: { type: string }; failed: (errorCode: number) => { type: string } };

export interface PendingAppend {
  id: number;
  partition: number;
  leaderEpoch: number;
  timestamp: number;
  records: WrittenRecord[];
  /** The group the append is about (sync, store-empty, static-replace), for staleness checks. */
  entry: GroupEntry | null;
  purpose: AppendPurpose;
}

// ---------------------------------------------------------------------------------------------
// Append error mapping (Kafka's GroupMetadataManager)

/**
 * The append errors every coordinator write reports alike (Kafka's coordinator runtime): the
 * offsets partition gone or short of replicas means the coordinator is not available, its
 * leadership lost means it is not the coordinator; null for the others.
 */
function commonWriteError(code: number): number | null {
  switch (code) {
    case ErrorCode.NONE:
      return ErrorCode.NONE;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.NETWORK_EXCEPTION:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
    case ErrorCode.FENCED_LEADER_EPOCH:
    case ErrorCode.NOT_COORDINATOR:
      return ErrorCode.NOT_COORDINATOR;
    default:
      return null;
  }
}

/** An append error as an offset commit reports it. */
export function commitErrorFor(code: number): number {
  const common = commonWriteError(code);
  if (common !== null) return common;
  switch (code) {
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.INVALID_COMMIT_OFFSET_SIZE;
    default:
      return code;
  }
}

/** An append error as storing group metadata (SyncGroup) reports it. */
export function groupStoreErrorFor(code: number): number {
  return commonWriteError(code) ?? (code === ErrorCode.REQUEST_TIMED_OUT ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.UNKNOWN_SERVER_ERROR);
}

/** An append error as a consumer group heartbeat reports it (Kafka's coordinator runtime). */
export function consumerWriteErrorFor(code: number): number {
  return commonWriteError(code) ?? (code === ErrorCode.REQUEST_TIMED_OUT ? ErrorCode.COORDINATOR_NOT_AVAILABLE : ErrorCode.UNKNOWN_SERVER_ERROR);
}

// ---------------------------------------------------------------------------------------------
// Appends to the offsets partitions

function encodeWritten(r: WrittenRecord): OffsetsRecord {
  if (r.kind === 'consumer') return { key: r.key, value: r.value };
  if (r.kind === 'offset') {
    // an explicit expiry (OffsetCommit v2-v4 retention) is only in value version 1, as Kafka writes it
    const value = r.value === null ? null : r.value.expireTimestamp >= 0 ? encodeOffsetCommitValue(r.value, 1) : encodeOffsetCommitValue(r.value);
    return { key: encodeOffsetCommitKey(r.entry.groupId, r.topic, r.partition), value };
  }
  return { key: encodeGroupMetadataKey(r.entry.groupId), value: r.bytes };
}

export function markPending(r: WrittenRecord, delta: 1 | -1): void {
  const e = r.entry;
  if (r.kind === 'offset') {
    const k = topicPartitionKey(r.topic, r.partition);
    const n = (e.pendingOffsetWrites.get(k) ?? 0) + delta;
    if (n > 0) e.pendingOffsetWrites.set(k, n);
    else {
      e.pendingOffsetWrites.delete(k);
      e.offsetTombstones.delete(k);
    }
  } else {
    e.pendingGroupWrites = Math.max(0, e.pendingGroupWrites + delta);
  }
}

/**
 * Appends records to an offsets partition through its local leader replica, with acks=all and
 * without blocking the mailbox: the outcome comes back as AppendDone.
 */
export function appendRecords(
  s: CoordinatorState,
  ctx: Ctx,
  partition: number,
  records: WrittenRecord[],
  purpose: AppendPurpose,
  entry: GroupEntry | null = null,
  refused?: { errorCode: number; message: string },
  verificationGuard: number | null = null,
): void {
  const id = ++s.seq;
  const owned = s.partitions.get(partition);
  const now = ctx.clock.now();
  const append: PendingAppend = { id, partition, leaderEpoch: owned?.leaderEpoch ?? -1, timestamp: now, records, entry, purpose };
  s.appends.set(id, append);
  for (const r of records) markPending(r, 1);
  const fail = (errorCode: number, errorMessage: string) => ctx.send(ctx.self, { type: 'AppendDone', appendId: id, errorCode, baseOffset: -1, errorMessage });
  if (refused) return fail(refused.errorCode, refused.message);
  if (!owned || owned.status !== OffsetsPartitionStatus.Active) return fail(ErrorCode.NOT_LEADER_OR_FOLLOWER, `offsets partition ${partition} is not led here`);
  let batch: Buffer;
  // a transaction's offsets go in one batch of its producer (one append holds one transaction's)
  const first = records[0];
  const txn = first?.kind === 'offset' ? first.txn : undefined;
  try {
    batch = buildOffsetsBatch(records.map(encodeWritten), now, txn);
  } catch (err) {
    return fail(ErrorCode.RECORD_LIST_TOO_LARGE, (err as Error).message);
  }
  const produce: Extract<ReplicaMsg, { type: 'Produce' }> = { type: 'Produce', acks: -1, timeoutMs: s.cfg.offsetCommitTimeoutMs, records: batch };
  // the coordinator's own transactional batch: no producer sequence to check (Kafka's coordinator origin)
  if (txn) produce.fromCoordinator = true;
  // a verified transaction's offsets carry the guard its verification took (KIP-890)
  if (txn && verificationGuard !== null) {
    produce.verify = true;
    produce.verificationGuard = verificationGuard;
  }
  void ctx
    .ask<ProduceResponse>(
      s.replicaFor(partition),
      produce,
      { timeoutMs: s.cfg.offsetCommitTimeoutMs + 5_000 },
    )
    .then((r) => {
      if (isFailure(r)) {
        ctx.send(ctx.self, { type: 'AppendDone', appendId: id, errorCode: replicaAskFailureCode(r), baseOffset: -1, errorMessage: r.message });
        return;
      }
      const done: CoordinatorMsg = { type: 'AppendDone', appendId: id, errorCode: r.errorCode, baseOffset: r.baseOffset };
      if (r.errorMessage) done.errorMessage = r.errorMessage;
      ctx.send(ctx.self, done);
    });
}

/** A record is in the log at `logOffset`: the cache follows the log's order. */
function applyWritten(s: CoordinatorState, r: WrittenRecord, logOffset: number, timestamp: number, isRefresh: boolean): void {
  const e = r.entry;
  if (s.groups.get(e.groupId) !== e) return;
  if (r.kind === 'offset') {
    const k = topicPartitionKey(r.topic, r.partition);
    const cur = e.offsets.get(k);
    if (r.value === null) {
      if (cur && cur.logOffset < logOffset) e.offsets.delete(k);
      if ((e.pendingOffsetWrites.get(k) ?? 0) > 0) e.offsetTombstones.set(k, Math.max(e.offsetTombstones.get(k) ?? -1, logOffset));
      return;
    }
    if (isRefresh) {
      // a rewrite only moves an existing key's newest record; it never brings a deleted key back
      if (cur && cur.logOffset < logOffset) {
        cur.logOffset = logOffset;
        cur.writtenAt = timestamp;
      }
      return;
    }
    const floor = Math.max(cur?.logOffset ?? -1, e.offsetTombstones.get(k) ?? -1);
    if (logOffset > floor) e.offsets.set(k, { topic: r.topic, partition: r.partition, value: r.value, logOffset, writtenAt: timestamp });
    return;
  }
  if (r.kind === 'consumer') return;
  if (r.bytes === null) return;
  if (!e.persisted || e.persisted.logOffset < logOffset) {
    if (isRefresh && !e.persisted) return;
    e.persisted = { bytes: r.bytes, logOffset, writtenAt: timestamp };
  }
}

export function settleAppend(s: CoordinatorState, ctx: Ctx, a: PendingAppend, errorCode: number): void {
  const p = a.purpose;
  switch (p.kind) {
    case 'commit': {
      const code = commitErrorFor(errorCode);
      if (code !== ErrorCode.NONE) {
        const failed = new Set(p.written.map((w) => topicPartitionKey(w.topic, w.partition)));
        for (const t of p.response.topics) for (const r of t.partitions) if (failed.has(topicPartitionKey(t.name, r.partition))) r.errorCode = code;
        if (failed.size > 0) p.response.errorCode = code;
      }
      answer(ctx, p.token, p.response);
      return;
    }
    case 'sync': {
      const entry = a.entry;
      if (!liveEntry(s, entry)) return;
      const g = entry.group;
      if (!g.is(GroupState.CompletingRebalance) || g.generationId !== p.generationId) return;
      if (errorCode !== ErrorCode.NONE) {
        ctx.log.warn('storing the group assignment failed', { groupId: entry.groupId, generationId: p.generationId, errorCode });
        resetAndPropagateAssignmentError(s, ctx, entry, groupStoreErrorFor(errorCode));
        maybePrepareRebalance(s, ctx, entry, 'error storing the group assignment');
        return;
      }
      g.setAssignments(p.assignments);
      propagateAssignment(s, ctx, entry);
      g.transitionTo(GroupState.Stable, ctx.clock.now());
      ctx.log.info('group is stable', { groupId: entry.groupId, generationId: g.generationId, members: g.size });
      return;
    }
    case 'store-empty': {
      if (errorCode !== ErrorCode.NONE) ctx.log.warn('storing the empty group failed', { groupId: a.entry?.groupId, errorCode });
      return;
    }
    case 'static-replace': {
      const entry = a.entry;
      if (!liveEntry(s, entry)) return;
      const g = entry.group;
      const member = g.get(p.newMemberId);
      if (!member) return;
      const token = takeJoinWaiter(entry, member);
      if (errorCode === ErrorCode.NONE) {
        if (p.supportsSkippingAssignment) {
          // KIP-814: a static leader learns it leads (with the members, for its metadata) but keeps the group's assignment
          const isLeader = g.isLeader(p.newMemberId);
          answer(ctx, token, { ...joinResult(g, p.newMemberId, isLeader), skipAssignment: isLeader });
        } else {
          // older clients would run an assignment as leader: they are told the leader it had before
          answer(ctx, token, joinResult(g, p.newMemberId, false, p.leaderBefore));
        }
        return;
      }
      const code = groupStoreErrorFor(errorCode);
      ctx.log.warn('persisting a static member id failed; reverting to the old id', { groupId: entry.groupId, groupInstanceId: p.groupInstanceId, errorCode });
      if (g.getStaticMemberId(p.groupInstanceId) === p.newMemberId && g.is(GroupState.Stable)) {
        cancelHeartbeat(ctx, entry, p.newMemberId);
        g.updateMember(p.newMemberId, p.previous);
        g.replaceStaticMember(p.groupInstanceId, p.newMemberId, p.oldMemberId);
        const old = g.get(p.oldMemberId);
        if (old) scheduleHeartbeat(s, ctx, entry, old);
      }
      answer(ctx, token, joinError('', code));
      return;
    }
    case 'delete-groups': {
      const code = commitErrorFor(errorCode);
      if (code !== ErrorCode.NONE) for (const r of p.progress.results) if (p.groupIds.includes(r.groupId)) r.errorCode = code;
      if (--p.progress.remaining === 0) {
        answer(ctx, p.progress.token, { type: 'DeleteGroupsResponse', errorCode: ErrorCode.NONE, groups: p.progress.results } satisfies DeleteGroupsResponse);
      }
      return;
    }
    case 'offset-delete': {
      const code = commitErrorFor(errorCode);
      if (code !== ErrorCode.NONE) {
        const failed = new Set(p.deleted.map((w) => topicPartitionKey(w.topic, w.partition)));
        for (const t of p.response.topics) for (const r of t.partitions) if (failed.has(topicPartitionKey(t.name, r.partition))) r.errorCode = code;
      }
      answer(ctx, p.token, p.response);
      return;
    }
    case 'expire':
    case 'refresh':
    case 'topics-deleted':
      if (errorCode !== ErrorCode.NONE) ctx.log.warn(`offsets ${p.kind} append failed`, { partition: a.partition, errorCode });
      return;
    case 'consumer-write':
    case 'consumer-reply': {
      if (errorCode !== ErrorCode.NONE) {
        ctx.log.warn('writing consumer group records failed', { groupId: a.entry?.groupId, errorCode });
        if (a.entry) a.entry.consumerNeedsFullWrite = true;
      }
      if (p.kind === 'consumer-reply') {
        const code = consumerWriteErrorFor(errorCode);
        answer(ctx, p.token, code === ErrorCode.NONE ? p.response : p.failed(code));
      }
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function handleAppendDone(s: CoordinatorState, m: MsgOf<'AppendDone'>, ctx: HandlerCtx): void {
  const a = s.appends.get(m.appendId);
  if (!a) return;
  s.appends.delete(m.appendId);
  const owned = s.partitions.get(a.partition);
  const stillOwned = !!owned && owned.status === OffsetsPartitionStatus.Active && owned.leaderEpoch === a.leaderEpoch;
  let errorCode = m.errorCode;
  if (errorCode === ErrorCode.NONE && !stillOwned) errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
  if (errorCode === ErrorCode.NONE) {
    const isRefresh = a.purpose.kind === 'refresh';
    a.records.forEach((r, i) => (r.kind === 'offset' && r.txn ? holdTxnOffset(s, r, r.txn.producerId, m.baseOffset + i, a.timestamp) : applyWritten(s, r, m.baseOffset + i, a.timestamp, isRefresh)));
  } else if (m.errorMessage) {
    ctx.log.debug('offsets append failed', { partition: a.partition, errorCode, reason: m.errorMessage });
  }
  // only now: a tombstone's position must outlive the applying of this append's own records
  for (const r of a.records) markPending(r, -1);
  settleAppend(s, ctx, a, errorCode);
}
