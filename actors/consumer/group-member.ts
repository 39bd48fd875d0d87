/**
 * The consumer actor as a member of a KIP-848 consumer group (group.protocol consumer): what it
 * does with the membership state machine of membership.ts. consumer.ts calls in here from its
 * handlers when the consumer speaks that protocol; the fetching, polling and committing it shares
 * with the classic protocol come in as ConsumerOps.
 *
 * Owned state (GroupMember, in ConsumerState.member): the membership (member id, epoch, state,
 * target and effective assignment, heartbeat timing and fields), whether the coordinator is
 * known, the reconciliation waiting for its commit, the partitions whose committed offsets are
 * being read and those that start from auto.offset.reset.
 * Handles (for consumer.ts): Subscribe, Poll, Tick, MetadataResult, Close and the leave, and the
 * results GroupCoordinatorResult, GroupHeartbeatResult, RevocationCommitResult,
 * AssignedCommittedResult.
 * Emits: FindCoordinator to a broker; ConsumerGroupHeartbeat (joins, heartbeats, the leave with
 * epoch -1 or -2), OffsetCommit (before a revocation, with the member id and epoch) and
 * OffsetFetch (for added partitions, with the member id and epoch) to the coordinator; the
 * consumer's events (rebalancing, partitions.revoked, group.join with the member epoch, commit,
 * crash) to its listener.
 *
 * Reconciling an assignment, as Kafka's consumer: the processed offsets are committed (with
 * auto-commit), then the partitions no longer assigned are revoked (no more fetching or handing
 * out, partitions.revoked), then the new ones added (positions from their committed offsets, else
 * auto.offset.reset), and the next heartbeat, sent at once, reports what is owned. It starts when
 * the application has nothing out: records handed out by the last poll are processed and
 * reported with the next poll, so their offsets are in that commit. A fenced member releases
 * everything without committing (its partitions may be another's already) and joins again.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, errorName } from '../../src/protocol/errors.js';
import { kafkaTopicId } from '../../src/protocol/topic-id.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import type { BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import type { Clock } from '../../src/runtime/clock.js';
import type { Failure } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import { groupByTopic } from '../group-coordinator/consumer-protocol.js';
import {
  coordinatorPath,
  type ConsumerGroupHeartbeatResponse,
  type FindCoordinatorResponse,
  type OffsetCommitResponse,
  type OffsetFetchResponse,
} from '../group-coordinator/messages.js';
import type { ConsumerConfig } from './consumer-config.js';
import type { Assigned, ConsumerState } from './consumer.js';
import { MemberState } from './member-state.js';
import { ConsumerMembership, type HeartbeatOutcome, type Reconciliation, type TopicPartition } from './membership.js';
import type { ConsumerEvent, ConsumerMsg, ConsumerPhase, TopicPartitionOffset } from './messages.js';

type Ctx = BaseContext<ConsumerMsg>;

/** What the consumer shares between both protocols, handed to this file by consumer.ts. */
export interface ConsumerOps {
  emit(s: ConsumerState, ctx: Ctx, event: ConsumerEvent): void;
  crash(s: ConsumerState, ctx: Ctx, errorCode: number, message: string): void;
  refreshMetadata(s: ConsumerState, ctx: Ctx): void;
  maybeFetch(s: ConsumerState, ctx: Ctx): void;
  resetOffset(s: ConsumerState, ctx: Ctx, a: Assigned): void;
  setPosition(a: Assigned, offset: number): void;
  /** Starts an assigned partition from a seek made meanwhile, else its committed offset (-1: none), else auto.offset.reset. */
  startPosition(s: ConsumerState, ctx: Ctx, k: string, a: Assigned, committed: number): 'seek' | 'committed' | 'reset';
  /** The topic names the subscription names now (a pattern matched against metadata). */
  subscribedTopics(s: ConsumerState): string[];
  commit(s: ConsumerState, ctx: Ctx, offsets: TopicPartitionOffset[] | null, waiter: { token: ReplyToken | undefined }): void;
  newAssigned(topic: string, partition: number): Assigned;
  askCoordinator(s: ConsumerState, ctx: Ctx): Promise<FindCoordinatorResponse | Failure>;
  failureCode(r: Failure): number;
  commitErrorCode(r: OffsetCommitResponse | Failure): { errorCode: number; message: string };
}

/** A commit before a revocation, retried until it lands, fails for good, or the rebalance timeout passes. */
interface RevocationCommit {
  plan: Reconciliation;
  deadline: number;
  inFlight: boolean;
  retryAt: number;
  /** After STALE_MEMBER_EPOCH: the epoch it was sent with; tried again once a heartbeat brought another. */
  staleEpoch: number | null;
  /** Partitions paused for the revocation, with the pause flag they had. */
  paused: Map<string, boolean>;
}

export interface GroupMember {
  readonly membership: ConsumerMembership;
  readonly ops: ConsumerOps;
  /** 'finding': a FindCoordinator is out. The last coordinator stays in ConsumerState.coordinator for commits meanwhile. */
  coordinator: 'unknown' | 'finding' | 'known';
  nextFindAt: number;
  revocation: RevocationCommit | null;
  /** Added partitions whose committed offsets are being read. */
  readonly fetchingCommitted: Set<string>;
  /** Added partitions without a committed offset: they start from auto.offset.reset. */
  readonly needsReset: Set<string>;
  nextCommittedRetryAt: number;
}

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;
const COMMIT_RETRY = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NETWORK_EXCEPTION, ErrorCode.REQUEST_TIMED_OUT]);
const COORDINATOR_MOVED = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NETWORK_EXCEPTION, ErrorCode.REQUEST_TIMED_OUT]);

export function newGroupMember(config: ConsumerConfig, clock: Clock, ops: ConsumerOps, newMemberId: () => string = randomUUID): GroupMember {
  const membership = new ConsumerMembership(
    {
      groupId: config.groupId,
      instanceId: config.groupInstanceId === '' ? null : config.groupInstanceId,
      rackId: config.clientRack === '' ? null : config.clientRack,
      rebalanceTimeoutMs: config.maxPollIntervalMs,
      serverAssignor: config.groupRemoteAssignor,
      clientId: config.clientId,
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      retryBackoffMs: config.retryBackoffMs,
      retryBackoffMaxMs: config.retryBackoffMaxMs,
      newMemberId,
    },
    clock,
  );
  return { membership, ops, coordinator: 'unknown', nextFindAt: 0, revocation: null, fetchingCommitted: new Set(), needsReset: new Set(), nextCommittedRetryAt: 0 };
}

function memberOf(s: ConsumerState): GroupMember {
  if (!s.member) throw new Error('the consumer is not a KIP-848 group member');
  return s.member;
}

/** The consumer's phase, member id and generation (the member epoch while in the group, else -1) from the membership. */
function sync(s: ConsumerState): void {
  const m = memberOf(s);
  const ms = m.membership;
  s.memberId = ms.memberId;
  s.generationId = ms.hasValidEpoch() ? ms.memberEpoch : -1;
  if (s.phase !== 'Closed') s.phase = phaseOf(ms.state, m.coordinator === 'known');
}

function phaseOf(state: MemberState, coordinatorKnown: boolean): ConsumerPhase {
  switch (state) {
    case MemberState.Unsubscribed:
    case MemberState.Fatal:
    case MemberState.Stale:
      return 'Idle';
    case MemberState.Joining:
    case MemberState.Fenced:
      return coordinatorKnown ? 'Joining' : 'FindingCoordinator';
    case MemberState.Reconciling:
    case MemberState.Acknowledging:
    case MemberState.Stable:
    case MemberState.PrepareLeaving:
    case MemberState.Leaving:
      return 'Stable';
    default:
      return assertNever(state, 'member state');
  }
}

/** For DescribeConsumer: the member state as Kafka names it. */
export function memberStateOf(s: ConsumerState): string | undefined {
  return s.member?.membership.state;
}

// -----------------------------------------------------------------------------------------------
// Entry points from consumer.ts

/** Subscribe: the topics (or what the pattern matches) go in the next heartbeat; a consumer not in the group joins. */
export function memberSubscribe(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  m.membership.updateSubscription(m.ops.subscribedTopics(s));
  m.membership.maybeJoin();
  sync(s);
  maybeHeartbeat(s, ctx);
}

/** A poll (its processed offsets already taken): a member that went stale joins again; a reconciliation waiting for the application goes on. */
export function memberOnPoll(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  if (s.crash || s.phase === 'Closed') return;
  if (m.membership.maybeJoin()) ctx.log.info('joining the consumer group', { groupId: s.config.groupId, memberId: m.membership.memberId });
  sync(s);
  maybeReconcile(s, ctx);
  maybeHeartbeat(s, ctx);
}

/** New metadata: a pattern may match other topics now, and topic ids of the target assignment may have names. */
export function memberOnMetadata(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  if (s.crash || s.phase === 'Closed') return;
  if (m.membership.updateSubscription(m.ops.subscribedTopics(s))) ctx.log.info('the subscribed topics changed', { groupId: s.config.groupId, topics: m.membership.subscribedTopics });
  m.membership.maybeJoin();
  sync(s);
  maybeReconcile(s, ctx);
  maybeHeartbeat(s, ctx);
}

/** The periodic tick: poll timer, coordinator, heartbeat, reconciliation, auto-commit, positions of added partitions, fetches. */
export function memberTick(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  const ms = m.membership;
  const now = ctx.clock.now();
  if (s.crash) return;
  if (!ms.shouldSkipHeartbeat() && !ms.isLeavingGroup() && now - s.lastPollAt > s.config.maxPollIntervalMs && !s.pendingPoll) {
    onPollTimerExpired(s, ctx);
    return;
  }
  maybeHeartbeat(s, ctx);
  maybeReconcile(s, ctx);
  maybeRetryRevocationCommit(s, ctx, now);
  if (s.phase === 'Stable' && ms.hasValidEpoch()) {
    if (s.config.enableAutoCommit && now >= s.nextAutoCommitAt) {
      s.nextAutoCommitAt = now + s.config.autoCommitIntervalMs;
      m.ops.commit(s, ctx, null, { token: undefined });
    }
    initPositions(s, ctx, now);
  }
  m.ops.maybeFetch(s, ctx);
}

/**
 * Close: a member in the group stops taking new assignments and heartbeats on while consumer.ts
 * commits what was processed; memberLeave then leaves.
 */
export function memberClose(s: ConsumerState): void {
  const m = memberOf(s);
  m.membership.leaveGroup();
  sync(s);
}

/**
 * The leave at close, once the final commit is done: the partitions are let go and a heartbeat
 * with epoch -1 (a static member: -2, keeping its place and partitions until it is back or its
 * session runs out) leaves the group. Settles when the coordinator answered (or could not).
 */
export function memberLeave(s: ConsumerState, ctx: Ctx): Promise<unknown> {
  const m = memberOf(s);
  const ms = m.membership;
  abandonRevocation(s);
  if (ms.state === MemberState.PrepareLeaving) ms.transitionToSendingLeaveGroup(false);
  const coordinator = s.coordinator;
  const msg = ms.leaveHeartbeat(m.coordinator === 'known' && coordinator !== null);
  sync(s);
  if (!msg || !coordinator) return Promise.resolve();
  ctx.log.info('leaving the consumer group', { groupId: s.config.groupId, memberId: msg.memberId, memberEpoch: msg.memberEpoch });
  return ctx.ask<ConsumerGroupHeartbeatResponse>(coordinator, msg, { timeoutMs: 5_000 });
}

// -----------------------------------------------------------------------------------------------
// Coordinator and heartbeats

function maybeFindCoordinator(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  if (m.coordinator !== 'unknown' || ctx.clock.now() < m.nextFindAt) return;
  m.coordinator = 'finding';
  void m.ops.askCoordinator(s, ctx).then((response) => ctx.send(ctx.self, { type: 'GroupCoordinatorResult', response }));
}

export function onGroupCoordinatorResult(s: ConsumerState, ctx: Ctx, response: FindCoordinatorResponse | Failure): void {
  const m = memberOf(s);
  if (m.coordinator !== 'finding') return;
  if (isFailure(response) || response.errorCode !== ErrorCode.NONE) {
    ctx.log.debug('coordinator not found yet', { groupId: s.config.groupId, errorCode: response.errorCode });
    m.coordinator = 'unknown';
    m.nextFindAt = ctx.clock.now() + s.config.retryBackoffMs;
    sync(s);
    return;
  }
  s.coordinator = { node: response.node, path: coordinatorPath(response.brokerId) };
  m.coordinator = 'known';
  sync(s);
  maybeHeartbeat(s, ctx);
  maybeRetryRevocationCommit(s, ctx, ctx.clock.now());
}

/** Sends the heartbeat the membership wants now, if any (finding the coordinator first when needed). */
function maybeHeartbeat(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  if (s.phase === 'Closed' || s.crash) return;
  if (m.coordinator !== 'known' && !m.membership.shouldSkipHeartbeat()) maybeFindCoordinator(s, ctx);
  const coordinator = s.coordinator;
  const hb = m.membership.pollHeartbeat(m.coordinator === 'known' && coordinator !== null);
  sync(s);
  if (!hb || !coordinator) return;
  s.metrics.heartbeatSent(ctx.clock.now());
  void ctx
    .ask<ConsumerGroupHeartbeatResponse>(coordinator, hb.msg, { timeoutMs: s.config.requestTimeoutMs })
    .then((response) => ctx.send(ctx.self, { type: 'GroupHeartbeatResult', seq: hb.seq, response }));
}

export function onGroupHeartbeatResult(s: ConsumerState, ctx: Ctx, seq: number, r: ConsumerGroupHeartbeatResponse | Failure): void {
  const m = memberOf(s);
  if (s.phase === 'Closed') return;
  s.metrics.heartbeatAnswered(ctx.clock.now());
  const ms = m.membership;
  const outcome: HeartbeatOutcome = isFailure(r) ? ms.onHeartbeatFailure(seq, m.ops.failureCode(r), r.message) : ms.onHeartbeatResponse(seq, r);
  const fields = { groupId: s.config.groupId, memberId: ms.memberId, memberEpoch: ms.memberEpoch };
  switch (outcome.kind) {
    case 'ignored':
      break;
    case 'ok':
      sync(s);
      maybeReconcile(s, ctx);
      break;
    case 'find-coordinator':
      ctx.log.info('consumer group heartbeat: finding the coordinator again', { ...fields, error: errorName(outcome.errorCode), reason: outcome.message });
      m.coordinator = 'unknown';
      break;
    case 'retry':
      ctx.log.info('consumer group heartbeat: retrying', { ...fields, error: errorName(outcome.errorCode), reason: outcome.message });
      break;
    case 'fenced':
      ctx.log.info('fenced by the group coordinator: releasing the partitions and joining again', { ...fields, error: errorName(outcome.errorCode), reason: outcome.message });
      abandonRevocation(s);
      releaseAll(s, ctx, `the member was fenced (${errorName(outcome.errorCode)})`);
      ms.rejoinAfterFence();
      break;
    case 'fatal':
      abandonRevocation(s);
      releaseAll(s, ctx, null);
      sync(s);
      m.ops.crash(s, ctx, outcome.errorCode, `ConsumerGroupHeartbeat failed: ${outcome.message}`);
      return;
    default:
      assertNever(outcome, 'heartbeat outcome');
  }
  sync(s);
  maybeHeartbeat(s, ctx);
}

/** max.poll.interval.ms passed without a poll: leave at once (the answer does not matter), lose the partitions, wait for the next poll. */
function onPollTimerExpired(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  const ms = m.membership;
  ctx.log.warn('max.poll.interval.ms passed without a poll: leaving the group until the next poll', { groupId: s.config.groupId, memberId: ms.memberId, maxPollIntervalMs: s.config.maxPollIntervalMs });
  abandonRevocation(s);
  ms.transitionToSendingLeaveGroup(true);
  const coordinator = s.coordinator;
  const msg = ms.leaveHeartbeat(m.coordinator === 'known' && coordinator !== null);
  if (msg && coordinator) ctx.send(coordinator, msg);
  releaseAll(s, ctx, 'max.poll.interval.ms passed without a poll');
  sync(s);
}

// -----------------------------------------------------------------------------------------------
// Reconciliation

/** Topic id -> name, from the metadata. */
function topicNames(s: ConsumerState): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of s.metadata.metadata?.topics ?? []) if (t.topicId) out.set(kafkaTopicId(t.topicId), t.name);
  return out;
}

/** Starts making the target assignment effective, when the member is RECONCILING and the application has nothing out. */
function maybeReconcile(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  const ms = m.membership;
  if (ms.state !== MemberState.Reconciling || ms.reconciliationInProgress || s.phase === 'Closed' || s.crash) return;
  // records handed out are being processed: their offsets come with the next poll, and go in the commit before the revocation
  if (s.recordsOutstanding) return;
  const names = topicNames(s);
  const firstAssignment = ms.current.isNone();
  const owned = [...s.assigned.values()].map((a) => ({ topic: a.topic, partition: a.partition }));
  const { plan, unresolved } = ms.startReconciliation((id) => names.get(id), owned);
  if (unresolved.length > 0) {
    ctx.log.debug('topic ids of the assignment not in the metadata yet', { groupId: s.config.groupId, topicIds: unresolved });
    m.ops.refreshMetadata(s, ctx);
  }
  sync(s);
  if (!plan) {
    maybeHeartbeat(s, ctx);
    return;
  }
  s.metrics.rebalanceStarted(ctx.clock.now());
  ctx.log.info('reconciling the assignment', {
    groupId: s.config.groupId,
    memberId: ms.memberId,
    memberEpoch: ms.memberEpoch,
    assigned: plan.assigned.map((tp) => `${tp.topic}-${tp.partition}`),
    added: plan.added.map((tp) => `${tp.topic}-${tp.partition}`),
    revoked: plan.revoked.map((tp) => `${tp.topic}-${tp.partition}`),
  });
  if (!firstAssignment && (plan.added.length > 0 || plan.revoked.length > 0)) {
    m.ops.emit(s, ctx, { kind: 'rebalancing', groupId: s.config.groupId, memberId: ms.memberId, reason: `new assignment from the coordinator (member epoch ${ms.memberEpoch})` });
  }
  // what goes is no longer fetched nor handed out while the commit is out
  const paused = new Map<string, boolean>();
  for (const tp of plan.revoked) {
    const a = s.assigned.get(key(tp.topic, tp.partition));
    if (!a) continue;
    paused.set(key(tp.topic, tp.partition), a.paused);
    a.paused = true;
  }
  m.revocation = { plan, deadline: ctx.clock.now() + s.config.maxPollIntervalMs, inFlight: false, retryAt: 0, staleEpoch: null, paused };
  if (s.config.enableAutoCommit) sendRevocationCommit(s, ctx);
  else revokeAndAssign(s, ctx);
}

/** Processed offsets of owned partitions not committed yet. */
function uncommitted(s: ConsumerState): TopicPartitionOffset[] {
  const out: TopicPartitionOffset[] = [];
  for (const a of s.assigned.values()) {
    const k = key(a.topic, a.partition);
    const offset = s.processed.get(k);
    if (offset !== undefined && s.committed.get(k) !== offset) out.push({ topic: a.topic, partition: a.partition, offset });
  }
  return out;
}

function sendRevocationCommit(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  const c = m.revocation;
  if (!c || c.inFlight) return;
  const offsets = uncommitted(s);
  const ms = m.membership;
  if (offsets.length === 0 || !s.coordinator || !ms.hasValidEpoch()) {
    revokeAndAssign(s, ctx);
    return;
  }
  c.inFlight = true;
  c.staleEpoch = null;
  const memberEpoch = ms.memberEpoch;
  const reconciliationId = c.plan.id;
  const topics = groupByTopic(offsets).map((t) => ({
    name: t.topic,
    partitions: t.partitions.map((p) => ({ partition: p, offset: offsets.find((o) => o.topic === t.topic && o.partition === p)!.offset })),
  }));
  void ctx
    .ask<OffsetCommitResponse>(
      s.coordinator,
      { type: 'OffsetCommit', groupId: s.config.groupId, generationId: memberEpoch, memberId: ms.memberId, groupInstanceId: s.config.groupInstanceId === '' ? null : s.config.groupInstanceId, topics },
      { timeoutMs: s.config.requestTimeoutMs },
    )
    .then((response) => ctx.send(ctx.self, { type: 'RevocationCommitResult', reconciliationId, memberEpoch, response, offsets }));
}

export function onRevocationCommitResult(s: ConsumerState, ctx: Ctx, msg: Extract<ConsumerMsg, { type: 'RevocationCommitResult' }>): void {
  const m = memberOf(s);
  const c = m.revocation;
  if (!c || c.plan.id !== msg.reconciliationId) return;
  c.inFlight = false;
  const { errorCode, message } = m.ops.commitErrorCode(msg.response);
  if (errorCode === ErrorCode.NONE) for (const o of msg.offsets) s.committed.set(key(o.topic, o.partition), o.offset);
  m.ops.emit(s, ctx, { kind: 'commit', offsets: msg.offsets, errorCode });
  if (errorCode === ErrorCode.NONE) {
    revokeAndAssign(s, ctx);
    return;
  }
  const ms = m.membership;
  const now = ctx.clock.now();
  const stale = errorCode === ErrorCode.STALE_MEMBER_EPOCH && ms.hasValidEpoch();
  if ((COMMIT_RETRY.has(errorCode) || stale) && now < c.deadline && ms.continueReconciliation(c.plan)) {
    ctx.log.info('commit before revocation: retrying', { groupId: s.config.groupId, error: errorName(errorCode), reason: message });
    if (COORDINATOR_MOVED.has(errorCode) && m.coordinator === 'known') m.coordinator = 'unknown';
    if (stale) c.staleEpoch = msg.memberEpoch;
    c.retryAt = now + s.config.retryBackoffMs;
    sync(s);
    return;
  }
  // as Kafka's consumer: the revocation goes on without the commit (its records may be delivered again)
  ctx.log.warn('commit before revocation failed: revoking anyway', { groupId: s.config.groupId, error: errorName(errorCode), reason: message });
  revokeAndAssign(s, ctx);
}

/** A revocation commit waiting to be tried again: after its backoff, with a known coordinator, and after STALE_MEMBER_EPOCH with a newer epoch. */
function maybeRetryRevocationCommit(s: ConsumerState, ctx: Ctx, now: number): void {
  const m = memberOf(s);
  const c = m.revocation;
  if (!c || c.inFlight || now < c.retryAt || c.retryAt === 0) return;
  const ms = m.membership;
  if (!ms.continueReconciliation(c.plan)) {
    abandonRevocation(s);
    return;
  }
  if (now >= c.deadline || !ms.hasValidEpoch()) {
    ctx.log.warn('commit before revocation abandoned: revoking anyway', { groupId: s.config.groupId });
    revokeAndAssign(s, ctx);
    return;
  }
  if (m.coordinator !== 'known') return;
  if (c.staleEpoch !== null && ms.memberEpoch === c.staleEpoch) return;
  sendRevocationCommit(s, ctx);
}

/** The reconciliation waiting for its commit is dropped (fenced, failed, leaving); what it paused is as it was. */
function abandonRevocation(s: ConsumerState): void {
  const m = memberOf(s);
  const c = m.revocation;
  if (!c) return;
  m.revocation = null;
  for (const [k, wasPaused] of c.paused) {
    const a = s.assigned.get(k);
    if (a) a.paused = wasPaused;
  }
  m.membership.failReconciliation(c.plan);
}

/** After the commit: revoke, add, make the assignment effective and acknowledge it at once. */
function revokeAndAssign(s: ConsumerState, ctx: Ctx): void {
  const m = memberOf(s);
  const c = m.revocation;
  if (!c) return;
  const ms = m.membership;
  const plan = c.plan;
  if (!ms.continueReconciliation(plan)) {
    abandonRevocation(s);
    sync(s);
    return;
  }
  m.revocation = null;
  revoke(s, ctx, plan.revoked);
  for (const tp of plan.added) s.assigned.set(key(tp.topic, tp.partition), m.ops.newAssigned(tp.topic, tp.partition));
  ms.completeReconciliation(plan);
  s.metrics.rebalanceCompleted(ctx.clock.now());
  sync(s);
  m.ops.emit(s, ctx, {
    kind: 'group.join',
    groupId: s.config.groupId,
    memberId: ms.memberId,
    leaderId: '',
    isLeader: false,
    generationId: ms.memberEpoch,
    protocol: s.config.groupRemoteAssignor ?? '',
    assignment: plan.assigned.map((tp) => ({ topic: tp.topic, partition: tp.partition, offset: -1 })),
  });
  maybeHeartbeat(s, ctx);
  if (plan.added.length > 0) fetchCommitted(s, ctx, plan.added);
  m.ops.maybeFetch(s, ctx);
}

/** Partitions no longer assigned: no more fetching or handing out; the events the classic protocol emits. */
function revoke(s: ConsumerState, ctx: Ctx, revoked: readonly TopicPartition[]): void {
  const m = memberOf(s);
  if (revoked.length === 0) return;
  m.ops.emit(s, ctx, { kind: 'partitions.revoked', partitions: revoked.map((tp) => ({ topic: tp.topic, partition: tp.partition })) });
  for (const tp of revoked) forget(s, key(tp.topic, tp.partition));
  discardInFlight(s);
}

/** Every partition goes at once without a commit (fenced, fatal, stale): they may be another member's already. */
function releaseAll(s: ConsumerState, ctx: Ctx, reason: string | null): void {
  const m = memberOf(s);
  const owned = [...s.assigned.values()].map((a) => ({ topic: a.topic, partition: a.partition }));
  if (reason !== null) m.ops.emit(s, ctx, { kind: 'rebalancing', groupId: s.config.groupId, memberId: m.membership.memberId, reason });
  if (owned.length > 0) m.ops.emit(s, ctx, { kind: 'partitions.revoked', partitions: owned });
  for (const tp of owned) forget(s, key(tp.topic, tp.partition));
  discardInFlight(s);
}

function forget(s: ConsumerState, k: string): void {
  const m = memberOf(s);
  s.assigned.delete(k);
  s.processed.delete(k);
  s.committed.delete(k);
  m.fetchingCommitted.delete(k);
  m.needsReset.delete(k);
}

/**
 * Answers to fetches, offset reads and resets sent before are dropped (their partition may be
 * gone, or back with another position); what they were for is asked again.
 */
function discardInFlight(s: ConsumerState): void {
  const m = memberOf(s);
  s.epoch++;
  s.fetching.clear();
  m.fetchingCommitted.clear();
  for (const a of s.assigned.values()) a.resetting = false;
}

// -----------------------------------------------------------------------------------------------
// Positions of added partitions

/** Reads the committed offsets of added partitions (as the member, with its epoch). */
function fetchCommitted(s: ConsumerState, ctx: Ctx, partitions: readonly TopicPartition[]): void {
  const m = memberOf(s);
  const ms = m.membership;
  const list: TopicPartition[] = [];
  for (const tp of partitions) {
    const k = key(tp.topic, tp.partition);
    const a = s.assigned.get(k);
    if (!a || a.position !== null || m.fetchingCommitted.has(k)) continue;
    const seek = s.pendingSeeks.get(k);
    if (seek !== undefined) {
      // a seek made before the partition was assigned wins
      s.pendingSeeks.delete(k);
      m.ops.setPosition(a, seek);
      continue;
    }
    list.push(tp);
  }
  if (list.length === 0 || !s.coordinator || !ms.hasValidEpoch()) return;
  for (const tp of list) m.fetchingCommitted.add(key(tp.topic, tp.partition));
  const epoch = s.epoch;
  void ctx
    .ask<OffsetFetchResponse>(
      s.coordinator,
      { type: 'OffsetFetch', groupId: s.config.groupId, topics: groupByTopic(list).map((t) => ({ name: t.topic, partitions: t.partitions })), memberId: ms.memberId, memberEpoch: ms.memberEpoch },
      { timeoutMs: s.config.requestTimeoutMs },
    )
    .then((response) => ctx.send(ctx.self, { type: 'AssignedCommittedResult', epoch, partitions: list, response }));
}

export function onAssignedCommittedResult(s: ConsumerState, ctx: Ctx, msg: Extract<ConsumerMsg, { type: 'AssignedCommittedResult' }>): void {
  const m = memberOf(s);
  if (msg.epoch !== s.epoch) return;
  for (const tp of msg.partitions) m.fetchingCommitted.delete(key(tp.topic, tp.partition));
  const r = msg.response;
  const code = isFailure(r) ? m.ops.failureCode(r) : r.errorCode;
  if (isFailure(r) || code !== ErrorCode.NONE) {
    // STALE_MEMBER_EPOCH (a heartbeat moved the epoch on meanwhile), a coordinator move: read again after a backoff
    ctx.log.debug('could not read committed offsets of added partitions; trying again', { groupId: s.config.groupId, error: errorName(code) });
    if (COORDINATOR_MOVED.has(code) && m.coordinator === 'known') m.coordinator = 'unknown';
    m.nextCommittedRetryAt = ctx.clock.now() + s.config.retryBackoffMs;
    return;
  }
  const rows = new Map<string, { offset: number; errorCode: number }>();
  for (const t of r.topics) for (const p of t.partitions) rows.set(key(t.name, p.partition), p);
  for (const tp of msg.partitions) {
    const k = key(tp.topic, tp.partition);
    const a = s.assigned.get(k);
    const row = rows.get(k);
    if (!a || a.position !== null || !row) continue;
    if (row.errorCode !== ErrorCode.NONE) {
      m.nextCommittedRetryAt = ctx.clock.now() + s.config.retryBackoffMs;
      continue;
    }
    if (m.ops.startPosition(s, ctx, k, a, row.offset) === 'reset') m.needsReset.add(k);
  }
  m.ops.maybeFetch(s, ctx);
}

/** Added partitions still without a position: their committed offsets are read again, or their reset tried again. */
function initPositions(s: ConsumerState, ctx: Ctx, now: number): void {
  const m = memberOf(s);
  const read: TopicPartition[] = [];
  for (const a of s.assigned.values()) {
    const k = key(a.topic, a.partition);
    if (a.position !== null) {
      m.needsReset.delete(k);
      continue;
    }
    if (a.resetting || m.fetchingCommitted.has(k)) continue;
    if (m.needsReset.has(k)) {
      if (now >= s.retryAt) m.ops.resetOffset(s, ctx, a);
    } else if (now >= m.nextCommittedRetryAt) read.push({ topic: a.topic, partition: a.partition });
  }
  if (read.length > 0) fetchCommitted(s, ctx, read);
}
