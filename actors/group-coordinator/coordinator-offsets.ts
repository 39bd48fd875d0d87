/**
 * Committed offsets in the group coordinator (coordinator.ts): OffsetCommit, OffsetFetch and
 * OffsetDelete, and TxnOffsetCommit: its transaction is verified with the transaction's
 * coordinator first (KIP-890), and its offsets are written in the producer's transaction, held
 * until the transaction's marker (TxnMarkerWritten) commits or aborts them.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ReplyToken } from '../../src/runtime/actor-definition.js';
import { isFailure } from '../../src/runtime/types.js';
import type { BrokerMsg, TransactionVerification } from '../broker/messages.js';
import { NO_GUARD } from '../partition-replica/txn-verification.js';
import { CONSUMER_PROTOCOL_TYPE } from './consumer-protocol.js';
import { GroupState } from './group-state.js';
import { OFFSETS_TOPIC, type CoordinatorMsg, type OffsetCommitPartition, type OffsetCommitResponse, type OffsetDeleteResponse, type OffsetFetchResponse, type TxnOffsetCommitResponse } from './messages.js';
import { topicPartitionKey, type OffsetCommitValue } from './offsets-store.js';
import type { CoordinatorState } from './coordinator.js';
import { appendRecords, commitErrorFor, type WrittenRecord } from './coordinator-appends.js';
import { scheduleHeartbeat, subscribedTopics } from './coordinator-classic.js';
import { answer, createGroup, partitionOf, perPartitionError, validateGroupStatus, validateTopicList, type Ctx, type GroupEntry, type HandlerCtx, type MsgOf } from './coordinator-groups.js';
import { cleanupGroup } from './coordinator-housekeeping.js';

function commitFailure(m: Extract<CoordinatorMsg, { type: 'OffsetCommit' }>, errorCode: number): OffsetCommitResponse {
  return { type: 'OffsetCommitResponse', errorCode, topics: perPartitionError(m.topics, errorCode) };
}

type TxnOffsetCommitMsg = Extract<CoordinatorMsg, { type: 'TxnOffsetCommit' }>;

function txnOffsetCommitFailed(m: TxnOffsetCommitMsg, errorCode: number): TxnOffsetCommitResponse {
  return { type: 'TxnOffsetCommitResponse', errorCode, topics: perPartitionError(m.topics, errorCode) };
}

/** Why a TxnOffsetCommit cannot be taken at all (null: it can): the group's status, its topics, the producer. */
function txnOffsetCommitProblem(s: CoordinatorState, m: TxnOffsetCommitMsg): number | null {
  const err = validateGroupStatus(s, m.groupId, true) ?? validateTopicList(m.topics, true);
  if (err !== null) return err;
  if (!Number.isSafeInteger(m.producerId) || m.producerId < 0 || !Number.isSafeInteger(m.producerEpoch) || m.producerEpoch < 0) return ErrorCode.INVALID_REQUEST;
  // a share group keeps no committed offsets
  if (s.groups.get(m.groupId)?.share) return ErrorCode.GROUP_ID_NOT_FOUND;
  return null;
}

/**
 * A failed verification as TxnOffsetCommit v0-4 reports it, as Kafka (its AddPartitionsToTxnManager,
 * then its coordinator's operation error mapping): not in the transaction INVALID_TXN_STATE, a
 * fenced epoch INVALID_PRODUCER_EPOCH, an unreachable coordinator COORDINATOR_LOAD_IN_PROGRESS or
 * COORDINATOR_NOT_AVAILABLE (retried), the rest as the transaction coordinator said.
 */
export function txnOffsetCommitVerificationError(code: number): number {
  switch (code) {
    case ErrorCode.TRANSACTION_ABORTABLE:
      return ErrorCode.INVALID_TXN_STATE;
    case ErrorCode.PRODUCER_FENCED:
      return ErrorCode.INVALID_PRODUCER_EPOCH;
    case ErrorCode.NETWORK_EXCEPTION:
      return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    default:
      return commitErrorFor(code);
  }
}

/** Writes a TxnOffsetCommit's offsets as its producer's transactional batch (under `guard` when verified) and answers once written. */
function commitTxnOffsets(s: CoordinatorState, ctx: Ctx, m: TxnOffsetCommitMsg, token: ReplyToken | null, guard: number | null): void {
  const now = ctx.clock.now();
  // as Kafka: a group that does not exist yet is created for the transaction's offsets
  const entry = s.groups.get(m.groupId) ?? createGroup(s, m.groupId, now);
  const g = entry.group;
  if (g.is(GroupState.Dead)) return answer(ctx, token, txnOffsetCommitFailed(m, ErrorCode.COORDINATOR_NOT_AVAILABLE));
  // versions 3+ name the member (KIP-447): checked as Kafka's doTxnCommitOffsets does
  if (entry.consumer) {
    // as Kafka: checked as a commit (no member: only while the group is empty); TxnOffsetCommit has no STALE_MEMBER_EPOCH
    const problem = entry.consumer.validateOffsetCommit(m.memberId, m.generationId, true, 9);
    if (problem !== null) return answer(ctx, token, txnOffsetCommitFailed(m, problem === ErrorCode.STALE_MEMBER_EPOCH ? ErrorCode.ILLEGAL_GENERATION : problem));
  } else {
    if (m.memberId !== '' && !g.has(m.memberId)) return answer(ctx, token, txnOffsetCommitFailed(m, ErrorCode.UNKNOWN_MEMBER_ID));
    if (m.generationId >= 0 && m.generationId !== g.generationId) return answer(ctx, token, txnOffsetCommitFailed(m, ErrorCode.ILLEGAL_GENERATION));
  }
  const { records, written, topics } = offsetRecords(s, entry, m.topics, now, -1, { producerId: m.producerId, producerEpoch: m.producerEpoch });
  const response: TxnOffsetCommitResponse = { type: 'TxnOffsetCommitResponse', errorCode: ErrorCode.NONE, topics };
  if (records.length === 0) return answer(ctx, token, response);
  appendRecords(s, ctx, entry.partition, records, { kind: 'commit', token, response, written }, null, undefined, guard);
}

/**
 * The records of a commit's offsets (of `txn`'s transaction when given) and each partition's
 * code: metadata over offset.metadata.max.bytes is refused per partition, the rest written.
 */
function offsetRecords(
  s: CoordinatorState,
  entry: GroupEntry,
  topics: readonly { name: string; partitions: readonly OffsetCommitPartition[] }[],
  now: number,
  expireTimestamp: number,
  txn?: { producerId: number; producerEpoch: number },
): { records: WrittenRecord[]; written: { topic: string; partition: number }[]; topics: { name: string; partitions: { partition: number; errorCode: number }[] }[] } {
  const records: WrittenRecord[] = [];
  const written: { topic: string; partition: number }[] = [];
  const answered = topics.map((t) => {
    const partitions: { partition: number; errorCode: number }[] = [];
    for (const p of t.partitions) {
      const metadata = p.metadata ?? '';
      if (Buffer.byteLength(metadata, 'utf8') > s.cfg.offsetMetadataMaxBytes) {
        partitions.push({ partition: p.partition, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE });
        continue;
      }
      partitions.push({ partition: p.partition, errorCode: ErrorCode.NONE });
      const value: OffsetCommitValue = { offset: p.offset, leaderEpoch: p.leaderEpoch ?? -1, metadata, commitTimestamp: now, expireTimestamp };
      records.push(txn ? { kind: 'offset', entry, topic: t.name, partition: p.partition, value, txn } : { kind: 'offset', entry, topic: t.name, partition: p.partition, value });
      written.push({ topic: t.name, partition: p.partition });
    }
    return { name: t.name, partitions };
  });
  return { records, written, topics: answered };
}

/** A transaction's offset is in the log: it waits for the transaction's marker. */
export function holdTxnOffset(s: CoordinatorState, r: Extract<WrittenRecord, { kind: 'offset' }>, producerId: number, logOffset: number, timestamp: number): void {
  const e = r.entry;
  if (s.groups.get(e.groupId) !== e || r.value === null) return;
  let held = e.txnOffsets.get(producerId);
  if (!held) e.txnOffsets.set(producerId, (held = new Map()));
  held.set(topicPartitionKey(r.topic, r.partition), { topic: r.topic, partition: r.partition, value: r.value, logOffset, writtenAt: timestamp });
}

/**
 * A marker ended `producerId`'s transaction on offsets partition `partition`: COMMIT makes its
 * offsets the groups' committed ones (unless a newer commit of the key came after), ABORT drops
 * them (Kafka's GroupMetadata.completePendingTxnOffsetCommit).
 */
function completeTxnOffsets(s: CoordinatorState, ctx: Ctx, partition: number, producerId: number, commit: boolean): void {
  const owned = s.partitions.get(partition);
  if (!owned) return;
  let moved = 0;
  for (const groupId of owned.groups) {
    const entry = s.groups.get(groupId);
    const held = entry?.txnOffsets.get(producerId);
    if (!entry || !held) continue;
    entry.txnOffsets.delete(producerId);
    if (!commit) continue;
    for (const [k, o] of held) {
      const cur = entry.offsets.get(k);
      if (cur && cur.logOffset > o.logOffset) continue;
      entry.offsets.set(k, o);
      moved++;
    }
  }
  if (moved > 0) ctx.log.debug('transaction offsets committed', { partition, producerId, offsets: moved });
}

/** Whether a transaction of some producer holds an offset of `key` not yet committed or aborted. */
function hasTxnOffset(entry: GroupEntry | undefined, key: string): boolean {
  if (!entry) return false;
  for (const held of entry.txnOffsets.values()) if (held.has(key)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function handleOffsetCommit(s: CoordinatorState, m: MsgOf<'OffsetCommit'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  const err = validateGroupStatus(s, m.groupId, true) ?? validateTopicList(m.topics, true);
  if (err !== null) return answer(ctx, token, commitFailure(m, err));
  const now = ctx.clock.now();
  let entry = s.groups.get(m.groupId);
  if (!entry) {
    // no group: a commit outside group management creates one; any generation is stale
    if (m.generationId >= 0) return answer(ctx, token, commitFailure(m, ErrorCode.ILLEGAL_GENERATION));
    entry = createGroup(s, m.groupId, now);
  }
  const g = entry.group;
  if (g.is(GroupState.Dead)) return answer(ctx, token, commitFailure(m, ErrorCode.COORDINATOR_NOT_AVAILABLE));
  // a share group keeps no committed offsets (its partitions' start offsets are its share state)
  if (entry.share) return answer(ctx, token, commitFailure(m, ErrorCode.GROUP_ID_NOT_FOUND));
  let problem: number | null = null;
  if (entry.consumer) {
    // KIP-848: a member commits with its current epoch, through OffsetCommit v9+
    problem = entry.consumer.validateOffsetCommit(m.memberId, m.generationId, false, m.apiVersion ?? 9);
    if (problem !== null) return answer(ctx, token, commitFailure(m, problem));
  } else if (m.generationId >= 0 || m.memberId !== '' || m.groupInstanceId) {
    problem = g.validateMember(m.memberId, m.groupInstanceId) ?? g.validateGeneration(m.generationId);
  } else if (!g.is(GroupState.Empty)) {
    // a group with members takes commits only from its members
    problem = ErrorCode.UNKNOWN_MEMBER_ID;
  }
  if (problem !== null) return answer(ctx, token, commitFailure(m, problem));
  if (!entry.consumer && !(m.generationId < 0 && g.is(GroupState.Empty))) {
    // a member that knows the generation but has no assignment yet: it must wait for SyncGroup
    if (g.is(GroupState.CompletingRebalance)) return answer(ctx, token, commitFailure(m, ErrorCode.REBALANCE_IN_PROGRESS));
    const member = g.get(m.memberId);
    if (member) scheduleHeartbeat(s, ctx, entry, member);
  }
  const retention = m.retentionTimeMs ?? -1;
  const { records, written, topics } = offsetRecords(s, entry, m.topics, now, retention >= 0 ? now + retention : -1);
  const response: OffsetCommitResponse = { type: 'OffsetCommitResponse', errorCode: ErrorCode.NONE, topics };
  if (records.length === 0) return answer(ctx, token, response);
  appendRecords(s, ctx, entry.partition, records, { kind: 'commit', token, response, written });
}

export function handleTxnOffsetCommit(s: CoordinatorState, m: MsgOf<'TxnOffsetCommit'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  const err = txnOffsetCommitProblem(s, m);
  if (err !== null) return answer(ctx, token, txnOffsetCommitFailed(m, err));
  if (!s.broker || !m.topics.some((t) => t.partitions.length > 0)) return commitTxnOffsets(s, ctx, m, token, null);
  // KIP-890: the transaction's coordinator confirms the offsets partition is in the transaction first
  const verificationId = ++s.seq;
  s.verifying.set(verificationId, { m, token });
  const msg: BrokerMsg = { type: 'VerifyTransaction', transactionalId: m.transactionalId, producerId: m.producerId, producerEpoch: m.producerEpoch, partitions: [{ topic: OFFSETS_TOPIC, partition: partitionOf(s, m.groupId) }] };
  // KIP-890 part 2: a TV_2 producer's offsets partition is added to its transaction instead
  if (m.transactionV2 === true) msg.transactionV2 = true;
  void ctx.ask<TransactionVerification>(s.broker, msg, { timeoutMs: s.cfg.offsetCommitTimeoutMs }).then((r) => {
    const verified: CoordinatorMsg = isFailure(r)
      ? { type: 'TxnOffsetCommitVerified', verificationId, enabled: true, errorCode: r.errorCode, errorMessage: r.message, guard: NO_GUARD }
      : r.enabled
        ? { type: 'TxnOffsetCommitVerified', verificationId, enabled: true, errorCode: r.partitions[0]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR, guard: r.partitions[0]?.guard ?? NO_GUARD }
        : { type: 'TxnOffsetCommitVerified', verificationId, enabled: false, errorCode: ErrorCode.NONE, guard: NO_GUARD };
    ctx.send(ctx.self, verified);
  });
}

export function handleTxnOffsetCommitVerified(s: CoordinatorState, m: MsgOf<'TxnOffsetCommitVerified'>, ctx: HandlerCtx): void {
  const pending = s.verifying.get(m.verificationId);
  if (!pending) return;
  s.verifying.delete(m.verificationId);
  if (m.errorCode !== ErrorCode.NONE) {
    ctx.log.debug('transactional offset commit not verified', { groupId: pending.m.groupId, transactionalId: pending.m.transactionalId, errorCode: m.errorCode, reason: m.errorMessage });
    return answer(ctx, pending.token, txnOffsetCommitFailed(pending.m, txnOffsetCommitVerificationError(m.errorCode)));
  }
  // the group may have moved on while the coordinator was asked: checked again
  const err = txnOffsetCommitProblem(s, pending.m);
  if (err !== null) return answer(ctx, pending.token, txnOffsetCommitFailed(pending.m, err));
  commitTxnOffsets(s, ctx, pending.m, pending.token, m.enabled ? m.guard : null);
}

export function handleTxnMarkerWritten(s: CoordinatorState, m: MsgOf<'TxnMarkerWritten'>, ctx: HandlerCtx): void {
  completeTxnOffsets(s, ctx, m.partition, m.producerId, m.commit);
}

export function handleOffsetFetch(s: CoordinatorState, m: MsgOf<'OffsetFetch'>, ctx: HandlerCtx): void {
  const err = validateGroupStatus(s, m.groupId, true) ?? (m.topics == null ? null : validateTopicList(m.topics, false));
  const row = (partition: number, errorCode: number) => ({ partition, offset: -1, leaderEpoch: -1, metadata: '', errorCode });
  if (err !== null) {
    const topics = perPartitionError(m.topics, err).map((t) => ({ name: t.name, partitions: t.partitions.map((p) => row(p.partition, err)) }));
    ctx.reply({ type: 'OffsetFetchResponse', errorCode: err, topics } satisfies OffsetFetchResponse);
    return;
  }
  const entry = s.groups.get(m.groupId);
  if (entry?.consumer) {
    // KIP-848 (v9+): a member fetching names itself and its current epoch
    const problem = entry.consumer.validateOffsetFetch(m.memberId ?? null, m.memberEpoch ?? -1);
    if (problem !== null) {
      const topics = perPartitionError(m.topics, problem).map((t) => ({ name: t.name, partitions: t.partitions.map((p) => row(p.partition, problem)) }));
      ctx.reply({ type: 'OffsetFetchResponse', errorCode: problem, topics } satisfies OffsetFetchResponse);
      return;
    }
  }
  const committed = (topic: string, partition: number) => {
    // KIP-447: a consumer asking for stable offsets waits out a transaction that holds one
    if (m.requireStable && hasTxnOffset(entry, topicPartitionKey(topic, partition))) return row(partition, ErrorCode.UNSTABLE_OFFSET_COMMIT);
    const o = entry?.offsets.get(topicPartitionKey(topic, partition));
    if (!o) return row(partition, ErrorCode.NONE);
    return { partition, offset: o.value.offset, leaderEpoch: o.value.leaderEpoch, metadata: o.value.metadata, errorCode: ErrorCode.NONE };
  };
  let topics: OffsetFetchResponse['topics'];
  if (m.topics == null) {
    const byTopic = new Map<string, number[]>();
    for (const o of entry?.offsets.values() ?? []) {
      const list = byTopic.get(o.topic) ?? [];
      list.push(o.partition);
      byTopic.set(o.topic, list);
    }
    topics = [...byTopic].map(([name, ps]) => ({ name, partitions: ps.sort((a, b) => a - b).map((p) => committed(name, p)) }));
  } else {
    topics = m.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => committed(t.name, p)) }));
  }
  ctx.reply({ type: 'OffsetFetchResponse', errorCode: ErrorCode.NONE, topics } satisfies OffsetFetchResponse);
}

export function handleOffsetDelete(s: CoordinatorState, m: MsgOf<'OffsetDelete'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  const fail = (errorCode: number) => answer(ctx, token, { type: 'OffsetDeleteResponse', errorCode, topics: [] } satisfies OffsetDeleteResponse);
  const err = validateGroupStatus(s, m.groupId, true) ?? validateTopicList(m.topics, false);
  if (err !== null) return fail(err);
  const entry = s.groups.get(m.groupId);
  if (!entry || entry.group.is(GroupState.Dead)) return fail(ErrorCode.GROUP_ID_NOT_FOUND);
  const g = entry.group;
  let subscribed: ReadonlySet<string> | null = null;
  if (entry.consumer) {
    // Kafka's consumer groups take OffsetDelete in any state; subscribed topics stay
    if (entry.consumer.members.size > 0) subscribed = entry.consumer.subscribedTopicNames();
  } else if (!g.is(GroupState.Empty)) {
    if (g.protocolType !== CONSUMER_PROTOCOL_TYPE) return fail(ErrorCode.NON_EMPTY_GROUP);
    subscribed = subscribedTopics(entry) ?? new Set();
  }
  const response: OffsetDeleteResponse = { type: 'OffsetDeleteResponse', errorCode: ErrorCode.NONE, topics: [] };
  const deleted: { topic: string; partition: number }[] = [];
  for (const t of m.topics) {
    const partitions = t.partitions.map((partition) => {
      if (subscribed?.has(t.name)) return { partition, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
      if (entry.offsets.has(topicPartitionKey(t.name, partition))) deleted.push({ topic: t.name, partition });
      return { partition, errorCode: ErrorCode.NONE };
    });
    response.topics.push({ name: t.name, partitions });
  }
  const records = cleanupGroup(s, ctx, entry, deleted);
  if (records.length === 0) return answer(ctx, token, response);
  appendRecords(s, ctx, entry.partition, records, { kind: 'offset-delete', token, response, deleted });
}
