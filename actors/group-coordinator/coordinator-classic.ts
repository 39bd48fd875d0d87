/**
 * Classic groups in the group coordinator (coordinator.ts): JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup and DescribeGroups, and the rebalance protocol of Kafka's GroupCoordinator: the join
 * phase (its initial delay, the rebalance timeout), the leader's assignment stored as the group's
 * metadata record before anyone gets it (storeGroup), static members (KIP-345), members that
 * must learn their id first (KIP-394); and the members' session, join, sync and pending-member
 * timers. A classic request to a KIP-848 consumer group goes to coordinator-consumer.ts.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ReplyToken } from '../../src/runtime/actor-definition.js';
import { CONSUMER_PROTOCOL_TYPE, ConsumerProtocolError, decodeSubscription } from './consumer-protocol.js';
import { GroupState, MemberMetadata, newMemberId, type GroupMetadata } from './group-state.js';
import type { CoordinatorMsg, DescribeGroupsResponse, DescribedGroup, JoinGroupResponse, LeaveGroupResponse, SyncGroupResponse } from './messages.js';
import { encodeGroupMetadataValue, type GroupMetadataValue } from './offsets-store.js';
import type { CoordinatorState } from './coordinator.js';
import { appendRecords, type AppendPurpose } from './coordinator-appends.js';
import { classicHeartbeatToConsumerGroup, classicJoinConsumerGroup, classicLeaveConsumerGroup, classicSyncToConsumerGroup, consumerTombstones } from './coordinator-consumer.js';
import { answer, createGroup, EMPTY, isBytes, simple, validateGroupStatus, validateProtocolList, type Ctx, type GroupEntry, type HandlerCtx, type JoinPhase, type MsgOf } from './coordinator-groups.js';

// ---------------------------------------------------------------------------------------------
// Timers, replies and waiting requests

const joinTimerKey = (groupId: string) => JSON.stringify(['join', groupId]);

const syncTimerKey = (groupId: string) => JSON.stringify(['sync', groupId]);

const heartbeatTimerKey = (groupId: string, memberId: string) => JSON.stringify(['hb', groupId, memberId]);

const pendingTimerKey = (groupId: string, memberId: string) => JSON.stringify(['pending', groupId, memberId]);

export function joinError(memberId: string, errorCode: number): JoinGroupResponse {
  return { type: 'JoinGroupResponse', errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId, members: [] };
}

export function joinResult(g: GroupMetadata, memberId: string, withMembers: boolean, leader = g.leaderId ?? ''): JoinGroupResponse {
  return {
    type: 'JoinGroupResponse',
    errorCode: ErrorCode.NONE,
    generationId: g.generationId,
    protocolType: g.protocolType,
    protocolName: g.protocolName,
    leader,
    memberId,
    members: withMembers ? g.currentMemberMetadata() : [],
  };
}

export function syncError(errorCode: number): SyncGroupResponse {
  return { type: 'SyncGroupResponse', errorCode, protocolType: null, protocolName: null, assignment: EMPTY };
}

function syncResult(g: GroupMetadata, assignment: Uint8Array): SyncGroupResponse {
  return { type: 'SyncGroupResponse', errorCode: ErrorCode.NONE, protocolType: g.protocolType, protocolName: g.protocolName, assignment };
}

function describedError(groupId: string, errorCode: number, state: string, errorMessage: string | null = null): DescribedGroup {
  return { groupId, errorCode, errorMessage, state, protocolType: '', protocolName: '', generationId: -1, leader: '', members: [] };
}

/** The classic group's JoinGroup / SyncGroup requests waiting get `errorCode` and its timers stop. */
export function stopClassicGroup(ctx: Ctx, entry: GroupEntry, errorCode: number): void {
  for (const [memberId, token] of entry.joinWaiters) answer(ctx, token, joinError(memberId, errorCode));
  for (const token of entry.syncWaiters.values()) answer(ctx, token, syncError(errorCode));
  entry.joinWaiters.clear();
  entry.syncWaiters.clear();
  for (const m of entry.group.allMembers()) {
    m.isAwaitingJoin = false;
    m.isAwaitingSync = false;
  }
  ctx.timers.cancel(joinTimerKey(entry.groupId));
  ctx.timers.cancel(syncTimerKey(entry.groupId));
  for (const memberId of entry.heartbeatSeq.keys()) ctx.timers.cancel(heartbeatTimerKey(entry.groupId, memberId));
  for (const memberId of entry.pendingMembers.keys()) ctx.timers.cancel(pendingTimerKey(entry.groupId, memberId));
  entry.heartbeatSeq.clear();
  entry.pendingMembers.clear();
  entry.join = null;
}

/** Kafka's completeAndScheduleNextExpiration: the member is alive now; its session runs from here. */
export function scheduleHeartbeat(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, member: MemberMetadata, timeoutMs = member.sessionTimeoutMs): void {
  member.lastHeartbeatMs = ctx.clock.now();
  const seq = ++s.seq;
  entry.heartbeatSeq.set(member.memberId, seq);
  ctx.timers.startSingle(heartbeatTimerKey(entry.groupId, member.memberId), timeoutMs, {
    type: 'HeartbeatDeadline',
    groupId: entry.groupId,
    memberId: member.memberId,
    seq,
  });
}

export function cancelHeartbeat(ctx: Ctx, entry: GroupEntry, memberId: string): void {
  entry.heartbeatSeq.delete(memberId);
  ctx.timers.cancel(heartbeatTimerKey(entry.groupId, memberId));
}

function setJoinWaiter(ctx: Ctx, entry: GroupEntry, member: MemberMetadata, token: ReplyToken | null): void {
  const previous = entry.joinWaiters.get(member.memberId);
  // a JoinGroup superseded by a newer one of the same member (a client retry)
  if (previous) answer(ctx, previous, joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
  entry.joinWaiters.set(member.memberId, token);
  member.isAwaitingJoin = true;
}

export function takeJoinWaiter(entry: GroupEntry, member: MemberMetadata): ReplyToken | null {
  const token = entry.joinWaiters.get(member.memberId) ?? null;
  entry.joinWaiters.delete(member.memberId);
  member.isAwaitingJoin = false;
  return token;
}

function setSyncWaiter(ctx: Ctx, entry: GroupEntry, member: MemberMetadata, token: ReplyToken | null): void {
  const previous = entry.syncWaiters.get(member.memberId);
  if (previous) answer(ctx, previous, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
  entry.syncWaiters.set(member.memberId, token);
  member.isAwaitingSync = true;
}

function takeSyncWaiter(entry: GroupEntry, member: MemberMetadata): ReplyToken | null {
  const token = entry.syncWaiters.get(member.memberId) ?? null;
  entry.syncWaiters.delete(member.memberId);
  member.isAwaitingSync = false;
  return token;
}

function startJoinTimer(ctx: Ctx, entry: GroupEntry, delayMs: number, phase: JoinPhase): void {
  entry.join = phase;
  const msg: CoordinatorMsg = { type: 'JoinDeadline', groupId: entry.groupId, seq: phase.seq };
  if (delayMs <= 0) {
    ctx.timers.cancel(joinTimerKey(entry.groupId));
    ctx.send(ctx.self, msg);
  } else {
    ctx.timers.startSingle(joinTimerKey(entry.groupId), delayMs, msg);
  }
}

/** The topics the current generation's members subscribe to, also for a group just loaded from the log. */
export function subscribedTopics(entry: GroupEntry): ReadonlySet<string> | null {
  if (entry.loaded && entry.loaded.generationId === entry.group.generationId) return entry.loaded.topics;
  return entry.group.subscribedTopics;
}

// ---------------------------------------------------------------------------------------------
// The rebalance protocol (Kafka's GroupCoordinator)

/** Kafka's JoinGroupRequest.joinReason: the client's reason (KIP-800), or 'not provided'. */
export function clientReason(reason: string | null | undefined): string {
  return reason ? reason : 'not provided';
}

export function maybePrepareRebalance(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, reason: string): void {
  if (entry.group.canRebalance) prepareRebalance(s, ctx, entry, reason);
}

export function prepareRebalance(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, reason: string): void {
  const g = entry.group;
  if (g.is(GroupState.CompletingRebalance)) resetAndPropagateAssignmentError(s, ctx, entry, ErrorCode.REBALANCE_IN_PROGRESS);
  ctx.timers.cancel(syncTimerKey(entry.groupId));
  const wasEmpty = g.is(GroupState.Empty);
  const rebalanceTimeoutMs = g.rebalanceTimeoutMs();
  g.transitionTo(GroupState.PreparingRebalance, ctx.clock.now());
  ctx.log.info('preparing to rebalance group', { groupId: entry.groupId, generationId: g.generationId, reason });
  if (wasEmpty) {
    const delay = s.cfg.initialRebalanceDelayMs;
    startJoinTimer(ctx, entry, delay, { kind: 'initial', remainingMs: Math.max(rebalanceTimeoutMs - delay, 0), seq: ++s.seq });
  } else {
    startJoinTimer(ctx, entry, rebalanceTimeoutMs, { kind: 'rebalance', seq: ++s.seq });
    maybeCompleteJoin(s, ctx, entry);
  }
}

/** The rebalance-timeout join phase ends early once every member (and expected joiner) is in. */
function maybeCompleteJoin(s: CoordinatorState, ctx: Ctx, entry: GroupEntry): void {
  if (!entry.group.is(GroupState.PreparingRebalance) || entry.join?.kind !== 'rebalance') return;
  if (entry.group.allMembersJoined) completeJoin(s, ctx, entry);
}

/** Kafka's onCompleteJoin: a new generation for the members that rejoined. */
function completeJoin(s: CoordinatorState, ctx: Ctx, entry: GroupEntry): void {
  const g = entry.group;
  ctx.timers.cancel(joinTimerKey(entry.groupId));
  entry.join = null;
  for (const m of g.notYetRejoinedMembers()) {
    if (m.isStaticMember) continue;
    ctx.log.info('removing member that did not rejoin in time', { groupId: entry.groupId, memberId: m.memberId });
    const sync = takeSyncWaiter(entry, m);
    answer(ctx, sync, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    cancelHeartbeat(ctx, entry, m.memberId);
    g.remove(m.memberId);
  }
  if (g.is(GroupState.Dead)) return;
  if (!g.maybeElectNewJoinedLeader() && g.size > 0) {
    // only static members that have not rejoined remain: give them another rebalance timeout
    ctx.log.info('no member rejoined; waiting for the static members', { groupId: entry.groupId });
    startJoinTimer(ctx, entry, g.rebalanceTimeoutMs(), { kind: 'rebalance', seq: ++s.seq });
    return;
  }
  const now = ctx.clock.now();
  g.initNextGeneration(now);
  if (g.is(GroupState.Empty)) {
    ctx.log.info('group is empty', { groupId: entry.groupId, generationId: g.generationId });
    storeGroup(s, ctx, entry, new Map(), { kind: 'store-empty' });
    return;
  }
  ctx.log.info('group completed its join phase', { groupId: entry.groupId, generationId: g.generationId, protocol: g.protocolName, members: g.size });
  for (const member of g.allMembers()) {
    const token = takeJoinWaiter(entry, member);
    answer(ctx, token, joinResult(g, member.memberId, g.isLeader(member.memberId)));
    member.isNew = false;
    scheduleHeartbeat(s, ctx, entry, member);
  }
  ctx.timers.startSingle(syncTimerKey(entry.groupId), Math.max(1, g.rebalanceTimeoutMs()), {
    type: 'SyncDeadline',
    groupId: entry.groupId,
    generationId: g.generationId,
  });
}

/** A rebalance began (or storing the assignment failed) before the members got their assignment. */
export function resetAndPropagateAssignmentError(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, errorCode: number): void {
  entry.group.clearAssignments();
  for (const member of entry.group.allMembers()) {
    if (!member.isAwaitingSync) continue;
    answer(ctx, takeSyncWaiter(entry, member), syncError(errorCode));
    scheduleHeartbeat(s, ctx, entry, member);
  }
}

export function propagateAssignment(s: CoordinatorState, ctx: Ctx, entry: GroupEntry): void {
  const g = entry.group;
  for (const member of g.allMembers()) {
    if (!member.isAwaitingSync) continue;
    answer(ctx, takeSyncWaiter(entry, member), syncResult(g, member.assignment));
    scheduleHeartbeat(s, ctx, entry, member);
  }
}

function addMemberAndRebalance(
  s: CoordinatorState,
  ctx: Ctx,
  entry: GroupEntry,
  m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>,
  memberId: string,
  token: ReplyToken | null,
): void {
  const g = entry.group;
  const member = new MemberMetadata({
    memberId,
    groupInstanceId: m.groupInstanceId ?? null,
    clientId: m.clientId ?? '',
    clientHost: m.clientHost ?? '',
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    sessionTimeoutMs: m.sessionTimeoutMs,
    protocolType: m.protocolType,
    supportedProtocols: m.protocols,
    now: ctx.clock.now(),
  });
  member.isNew = true;
  if (g.is(GroupState.PreparingRebalance) && g.generationId === 0) entry.newMemberAdded = true;
  g.add(member);
  setJoinWaiter(ctx, entry, member, token);
  scheduleHeartbeat(s, ctx, entry, member, s.cfg.newMemberJoinTimeoutMs);
  const reason = clientReason(m.reason);
  ctx.log.info('member joins group', { groupId: entry.groupId, memberId, clientId: member.clientId, reason });
  maybePrepareRebalance(s, ctx, entry, `adding new member ${memberId}; client reason: ${reason}`);
}

function updateMemberAndRebalance(
  s: CoordinatorState,
  ctx: Ctx,
  entry: GroupEntry,
  member: MemberMetadata,
  m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>,
  token: ReplyToken | null,
  reason: string,
): void {
  entry.group.updateMember(member.memberId, { supportedProtocols: m.protocols, rebalanceTimeoutMs: m.rebalanceTimeoutMs, sessionTimeoutMs: m.sessionTimeoutMs });
  setJoinWaiter(ctx, entry, member, token);
  maybePrepareRebalance(s, ctx, entry, reason);
}

function removeMemberAndUpdateGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string, reason: string): void {
  const g = entry.group;
  const member = g.get(memberId);
  if (!member) return;
  answer(ctx, takeJoinWaiter(entry, member), joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
  answer(ctx, takeSyncWaiter(entry, member), syncError(ErrorCode.UNKNOWN_MEMBER_ID));
  cancelHeartbeat(ctx, entry, memberId);
  g.remove(memberId);
  ctx.log.info('member removed from group', { groupId: entry.groupId, memberId, reason });
  switch (g.state) {
    case GroupState.Dead:
    case GroupState.Empty:
      return;
    case GroupState.Stable:
    case GroupState.CompletingRebalance:
      maybePrepareRebalance(s, ctx, entry, reason);
      return;
    case GroupState.PreparingRebalance:
      maybeCompleteJoin(s, ctx, entry);
      return;
  }
}

function doNewMemberJoin(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>, token: ReplyToken | null): void {
  const g = entry.group;
  if (g.is(GroupState.Dead)) return answer(ctx, token, joinError(m.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
  if (g.validateProtocols(m.protocolType, m.protocols.map((p) => p.name)) !== null) {
    return answer(ctx, token, joinError(m.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  }
  const memberId = newMemberId(m.clientId ?? '', m.groupInstanceId);
  if (m.groupInstanceId) {
    const oldMemberId = g.getStaticMemberId(m.groupInstanceId);
    if (oldMemberId === undefined) addMemberAndRebalance(s, ctx, entry, m, memberId, token);
    else updateStaticMemberAndRebalance(s, ctx, entry, m, m.groupInstanceId, oldMemberId, memberId, token);
    return;
  }
  if (m.requireKnownMemberId) {
    // KIP-394: the member learns its id first and joins again with it
    g.addPendingMember(memberId);
    const seq = ++s.seq;
    entry.pendingMembers.set(memberId, seq);
    ctx.timers.startSingle(pendingTimerKey(entry.groupId, memberId), m.sessionTimeoutMs, {
      type: 'PendingMemberDeadline',
      groupId: entry.groupId,
      memberId,
      seq,
    });
    return answer(ctx, token, joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED));
  }
  addMemberAndRebalance(s, ctx, entry, m, memberId, token);
}

/** KIP-345: a static member came back under a new member id (a restarted instance). */
function updateStaticMemberAndRebalance(
  s: CoordinatorState,
  ctx: Ctx,
  entry: GroupEntry,
  m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>,
  groupInstanceId: string,
  oldMemberId: string,
  memberId: string,
  token: ReplyToken | null,
): void {
  const g = entry.group;
  const old = g.get(oldMemberId)!;
  const previous = { supportedProtocols: old.supportedProtocols, rebalanceTimeoutMs: old.rebalanceTimeoutMs, sessionTimeoutMs: old.sessionTimeoutMs };
  const leaderBefore = g.leaderId ?? '';
  // the old instance is fenced: requests it still has waiting fail
  answer(ctx, takeJoinWaiter(entry, old), joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID));
  answer(ctx, takeSyncWaiter(entry, old), syncError(ErrorCode.FENCED_INSTANCE_ID));
  cancelHeartbeat(ctx, entry, oldMemberId);
  g.replaceStaticMember(groupInstanceId, oldMemberId, memberId);
  g.updateMember(memberId, { supportedProtocols: m.protocols, rebalanceTimeoutMs: m.rebalanceTimeoutMs, sessionTimeoutMs: m.sessionTimeoutMs });
  const member = g.get(memberId)!;
  setJoinWaiter(ctx, entry, member, token);
  scheduleHeartbeat(s, ctx, entry, member);
  const reason = clientReason(m.reason);
  ctx.log.info('static member rejoined under a new member id', { groupId: entry.groupId, groupInstanceId, oldMemberId, memberId, reason });
  switch (g.state) {
    case GroupState.Stable: {
      if (g.protocolName === g.selectProtocol()) {
        // nothing changes for the group: persist the new member id, then answer without a rebalance
        const assignments = new Map(g.allMembers().map((x) => [x.memberId, x.assignment] as const));
        storeGroup(s, ctx, entry, assignments, {
          kind: 'static-replace',
          groupInstanceId,
          oldMemberId,
          newMemberId: memberId,
          previous,
          leaderBefore,
          supportsSkippingAssignment: m.supportsSkippingAssignment === true,
        });
      } else {
        maybePrepareRebalance(s, ctx, entry, `static member ${groupInstanceId} rejoined with protocols that change the group's protocol; client reason: ${reason}`);
      }
      return;
    }
    case GroupState.CompletingRebalance:
      // the leader may already be assigning to the old member id: start over
      prepareRebalance(s, ctx, entry, `static member ${groupInstanceId} rejoined during the sync phase; client reason: ${reason}`);
      return;
    case GroupState.PreparingRebalance:
    case GroupState.Empty:
    case GroupState.Dead:
      return;
  }
}

function doCurrentMemberJoin(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'JoinGroup' }>, token: ReplyToken | null): void {
  const g = entry.group;
  const memberId = m.memberId;
  if (g.is(GroupState.Dead)) return answer(ctx, token, joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
  const isPending = g.hasPendingMember(memberId);
  if (g.validateProtocols(m.protocolType, m.protocols.map((p) => p.name), isPending ? undefined : memberId) !== null) {
    return answer(ctx, token, joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  }
  if (isPending) {
    if (m.groupInstanceId) return answer(ctx, token, joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    ctx.timers.cancel(pendingTimerKey(entry.groupId, memberId));
    entry.pendingMembers.delete(memberId);
    addMemberAndRebalance(s, ctx, entry, m, memberId, token);
    return;
  }
  const memberError = g.validateMember(memberId, m.groupInstanceId);
  if (memberError !== null) return answer(ctx, token, joinError(memberId, memberError));
  const member = g.get(memberId)!;
  const reason = clientReason(m.reason);
  switch (g.state) {
    case GroupState.PreparingRebalance:
      updateMemberAndRebalance(s, ctx, entry, member, m, token, `member ${memberId} rejoined; client reason: ${reason}`);
      return;
    case GroupState.CompletingRebalance:
      if (member.matches(m.protocols)) {
        // a retry of a join that already completed: the same generation again
        answer(ctx, token, joinResult(g, memberId, g.isLeader(memberId)));
      } else {
        updateMemberAndRebalance(s, ctx, entry, member, m, token, `member ${memberId} rejoined with new metadata during the sync phase; client reason: ${reason}`);
      }
      return;
    case GroupState.Stable:
      if (g.isLeader(memberId) || !member.matches(m.protocols)) {
        // the leader rejoining (e.g. its metadata changed) or changed subscriptions: rebalance
        updateMemberAndRebalance(s, ctx, entry, member, m, token, `member ${memberId} rejoined${g.isLeader(memberId) ? ' as leader' : ' with new metadata'}; client reason: ${reason}`);
      } else {
        answer(ctx, token, joinResult(g, memberId, false));
      }
      return;
    case GroupState.Empty:
    case GroupState.Dead:
      answer(ctx, token, joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      return;
  }
}

/** The group's metadata record with these assignments (throws when it cannot be encoded). */
export function groupMetadataBytes(entry: GroupEntry, assignments: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const g = entry.group;
  const protocol = g.protocolName;
  const value: GroupMetadataValue = {
    protocolType: g.protocolType ?? '',
    generation: g.generationId,
    protocol,
    leader: g.leaderId,
    currentStateTimestamp: g.stateTimestampMs ?? -1,
    members: g.allMembers().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: m.sessionTimeoutMs,
      subscription: protocol !== null ? m.metadata(protocol) : EMPTY,
      assignment: assignments.get(m.memberId) ?? EMPTY,
    })),
  };
  return encodeGroupMetadataValue(value);
}

/** Persists the group's metadata with these assignments (Kafka's storeGroup). */
function storeGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, assignments: ReadonlyMap<string, Uint8Array>, purpose: AppendPurpose): void {
  let bytes: Uint8Array;
  try {
    bytes = groupMetadataBytes(entry, assignments);
  } catch (err) {
    ctx.log.error('group metadata cannot be encoded', { groupId: entry.groupId, error: (err as Error).message });
    appendRecords(s, ctx, entry.partition, [], purpose, entry, { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, message: (err as Error).message });
    return;
  }
  appendRecords(s, ctx, entry.partition, [{ kind: 'group', entry, bytes }], purpose, entry);
}

/** Topics in the members' consumer Subscriptions, or null when not a consumer group or undecodable. */
export function topicsOfSubscriptions(protocolType: string, subscriptions: Uint8Array[]): Set<string> | null {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE) return null;
  const topics = new Set<string>();
  try {
    for (const sub of subscriptions) for (const t of decodeSubscription(sub).topics) topics.add(t);
  } catch (err) {
    if (err instanceof ConsumerProtocolError) return null;
    throw err;
  }
  return topics;
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function handleJoinGroup(s: CoordinatorState, m: MsgOf<'JoinGroup'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  const err = validateGroupStatus(s, m.groupId, false) ?? validateProtocolList(m.protocols);
  if (err !== null) return answer(ctx, token, joinError(m.memberId, err));
  if (m.sessionTimeoutMs < s.cfg.minSessionTimeoutMs || m.sessionTimeoutMs > s.cfg.maxSessionTimeoutMs) {
    return answer(ctx, token, joinError(m.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
  }
  const isNewMember = m.memberId === '';
  let entry = s.groups.get(m.groupId);
  if (!entry) {
    if (!isNewMember) return answer(ctx, token, joinError(m.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    entry = createGroup(s, m.groupId, ctx.clock.now());
  }
  // as Kafka: a share group takes no classic member
  if (entry.share) return answer(ctx, token, joinError(m.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  if (entry.consumer) {
    // a consumer group (KIP-848) with members serves a classic member; an empty one gives way, as in Kafka
    if (entry.consumer.members.size > 0) return classicJoinConsumerGroup(s, ctx, entry, m, token);
    if (!isNewMember) return answer(ctx, token, joinError(m.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    const tombstones = consumerTombstones(entry);
    entry.consumer = null;
    ctx.log.info('empty consumer group replaced by a classic group', { groupId: m.groupId });
    appendRecords(s, ctx, entry.partition, tombstones, { kind: 'consumer-write' }, entry);
  }
  if (!entry.group.acceptsJoiningMember(m.memberId, s.cfg.classicMaxSize)) {
    // as Kafka: turned away, and removed if it was a member (the last to rejoin a group over capacity)
    const why = `the group is at group.max.size (${s.cfg.classicMaxSize})`;
    ctx.log.info('member turned away from a full group', { groupId: m.groupId, memberId: m.memberId, size: entry.group.size, reason: why });
    if (!isNewMember) removeMemberAndUpdateGroup(s, ctx, entry, m.memberId, why);
    return answer(ctx, token, joinError('', ErrorCode.GROUP_MAX_SIZE_REACHED));
  }
  if (isNewMember) doNewMemberJoin(s, ctx, entry, m, token);
  else doCurrentMemberJoin(s, ctx, entry, m, token);
  maybeCompleteJoin(s, ctx, entry);
}

export function handleSyncGroup(s: CoordinatorState, m: MsgOf<'SyncGroup'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  const err = validateGroupStatus(s, m.groupId, false);
  // while loading, Kafka tells the member to rejoin
  if (err === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return answer(ctx, token, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
  if (err !== null) return answer(ctx, token, syncError(err));
  const entry = s.groups.get(m.groupId);
  if (!entry) return answer(ctx, token, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
  if (entry.consumer) return classicSyncToConsumerGroup(s, ctx, entry, m, token);
  const g = entry.group;
  if (g.is(GroupState.Dead)) return answer(ctx, token, syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
  const memberError = g.validateMember(m.memberId, m.groupInstanceId);
  if (memberError !== null) return answer(ctx, token, syncError(memberError));
  if (m.generationId !== g.generationId) return answer(ctx, token, syncError(ErrorCode.ILLEGAL_GENERATION));
  if ((m.protocolType != null && m.protocolType !== g.protocolType) || (m.protocolName != null && m.protocolName !== g.protocolName)) {
    return answer(ctx, token, syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  }
  const member = g.get(m.memberId)!;
  switch (g.state) {
    case GroupState.Empty:
      return answer(ctx, token, syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    case GroupState.PreparingRebalance:
      return answer(ctx, token, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
    case GroupState.CompletingRebalance: {
      setSyncWaiter(ctx, entry, member, token);
      g.removePendingSyncMember(m.memberId);
      if (g.isLeader(m.memberId)) {
        const assignments = new Map<string, Uint8Array>();
        for (const a of m.assignments) {
          if (a && typeof a.memberId === 'string' && isBytes(a.assignment)) assignments.set(a.memberId, a.assignment);
        }
        ctx.log.info('leader sent the assignment; storing the group', { groupId: m.groupId, generationId: g.generationId });
        // the group metadata is persisted before anyone gets an assignment
        storeGroup(s, ctx, entry, assignments, { kind: 'sync', generationId: g.generationId, assignments });
      }
      if (g.hasReceivedSyncFromAllMembers()) ctx.timers.cancel(syncTimerKey(m.groupId));
      return;
    }
    case GroupState.Stable:
      g.removePendingSyncMember(m.memberId);
      answer(ctx, token, syncResult(g, member.assignment));
      scheduleHeartbeat(s, ctx, entry, member);
      if (g.hasReceivedSyncFromAllMembers()) ctx.timers.cancel(syncTimerKey(m.groupId));
      return;
    case GroupState.Dead:
      return answer(ctx, token, syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
  }
}

export function handleHeartbeat(s: CoordinatorState, m: MsgOf<'Heartbeat'>, ctx: HandlerCtx): void {
  const reply = (code: number) => ctx.reply(simple('HeartbeatResponse', code));
  const err = validateGroupStatus(s, m.groupId, false);
  // while loading, Kafka answers heartbeats blindly: the group will be there once loaded
  if (err === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return reply(ErrorCode.NONE);
  if (err !== null) return reply(err);
  const entry = s.groups.get(m.groupId);
  if (!entry) return reply(ErrorCode.UNKNOWN_MEMBER_ID);
  if (entry.consumer) return reply(classicHeartbeatToConsumerGroup(s, ctx, entry, m));
  const g = entry.group;
  if (g.is(GroupState.Dead)) return reply(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  const memberError = g.validateMember(m.memberId, m.groupInstanceId);
  if (memberError !== null) return reply(memberError);
  if (m.generationId !== g.generationId) return reply(ErrorCode.ILLEGAL_GENERATION);
  const member = g.get(m.memberId)!;
  switch (g.state) {
    case GroupState.Empty:
    case GroupState.Dead:
      return reply(ErrorCode.UNKNOWN_MEMBER_ID);
    case GroupState.CompletingRebalance:
    case GroupState.Stable:
      scheduleHeartbeat(s, ctx, entry, member);
      return reply(ErrorCode.NONE);
    case GroupState.PreparingRebalance:
      scheduleHeartbeat(s, ctx, entry, member);
      return reply(ErrorCode.REBALANCE_IN_PROGRESS);
  }
}

export function handleLeaveGroup(s: CoordinatorState, m: MsgOf<'LeaveGroup'>, ctx: HandlerCtx): void {
  const reply = (code: number) => ctx.reply(simple('LeaveGroupResponse', code));
  // each member's error in order; the first one stands for the request (LeaveGroup v0-2)
  const replyPerMember = (memberErrors: number[]) => ctx.reply<LeaveGroupResponse>({ type: 'LeaveGroupResponse', errorCode: memberErrors.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE, memberErrors });
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return reply(err);
  const entry = s.groups.get(m.groupId);
  // no such group: none of its members is known, as Kafka answers
  if (!entry) return replyPerMember(m.members.map(() => ErrorCode.UNKNOWN_MEMBER_ID));
  if (entry.consumer) return classicLeaveConsumerGroup(s, ctx, entry, m, ctx.deferReply() ?? null);
  const g = entry.group;
  if (g.is(GroupState.Dead)) return reply(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  const memberErrors: number[] = [];
  for (const leaving of m.members) {
    if (typeof leaving !== 'object' || leaving === null || typeof leaving.memberId !== 'string') {
      memberErrors.push(ErrorCode.INVALID_REQUEST);
      continue;
    }
    const instanceId = leaving.groupInstanceId ?? null;
    if (instanceId === null && g.hasPendingMember(leaving.memberId)) {
      g.removePendingMember(leaving.memberId);
      ctx.timers.cancel(pendingTimerKey(m.groupId, leaving.memberId));
      entry.pendingMembers.delete(leaving.memberId);
      maybeCompleteJoin(s, ctx, entry);
      memberErrors.push(ErrorCode.NONE);
      continue;
    }
    // an admin may remove a static member by its instance id alone
    const memberId = instanceId !== null && leaving.memberId === '' ? (g.getStaticMemberId(instanceId) ?? '') : leaving.memberId;
    const memberError = g.validateMember(memberId, instanceId);
    if (memberError !== null) {
      memberErrors.push(memberError);
      continue;
    }
    memberErrors.push(ErrorCode.NONE);
    // KIP-800: the client's reason (LeaveGroup v5+) is logged with the removal and the rebalance it causes
    const how = instanceId === null ? `member ${memberId}` : `static member ${memberId} with instance id ${instanceId}`;
    removeMemberAndUpdateGroup(s, ctx, entry, memberId, `${how} left the group through LeaveGroup; client reason: ${clientReason(leaving.reason)}`);
  }
  replyPerMember(memberErrors);
}

export function handleDescribeGroups(s: CoordinatorState, m: MsgOf<'DescribeGroups'>, ctx: HandlerCtx): void {
  const groups: DescribedGroup[] = m.groups.map((groupId) => {
    const err = validateGroupStatus(s, groupId, true);
    if (err !== null) return describedError(String(groupId), err, '');
    const entry = s.groups.get(groupId);
    // as Kafka 4.0: a group that is not there, or is a consumer group (classic members and
    // all), is no classic group: GROUP_ID_NOT_FOUND, Dead (v0-v5 answer it Dead, no error)
    if (!entry || entry.group.is(GroupState.Dead)) return describedError(groupId, ErrorCode.GROUP_ID_NOT_FOUND, GroupState.Dead, `Group ${groupId} not found.`);
    if (entry.consumer || entry.share) return describedError(groupId, ErrorCode.GROUP_ID_NOT_FOUND, GroupState.Dead, `Group ${groupId} is not a classic group.`);
    return { errorCode: ErrorCode.NONE, errorMessage: null, ...entry.group.summary() };
  });
  ctx.reply({ type: 'DescribeGroupsResponse', errorCode: ErrorCode.NONE, groups } satisfies DescribeGroupsResponse);
}

export function handleJoinDeadline(s: CoordinatorState, m: MsgOf<'JoinDeadline'>, ctx: HandlerCtx): void {
  const entry = s.groups.get(m.groupId);
  if (!entry || !entry.join || entry.join.seq !== m.seq || !entry.group.is(GroupState.PreparingRebalance)) return;
  const phase = entry.join;
  if (phase.kind === 'initial' && entry.newMemberAdded && phase.remainingMs > 0) {
    // members are still arriving: wait another initial delay, within the rebalance timeout
    entry.newMemberAdded = false;
    const delay = Math.min(s.cfg.initialRebalanceDelayMs, phase.remainingMs);
    const remainingMs = Math.max(phase.remainingMs - s.cfg.initialRebalanceDelayMs, 0);
    startJoinTimer(ctx, entry, delay, { kind: 'initial', remainingMs, seq: ++s.seq });
    return;
  }
  completeJoin(s, ctx, entry);
}

export function handleSyncDeadline(s: CoordinatorState, m: MsgOf<'SyncDeadline'>, ctx: HandlerCtx): void {
  const entry = s.groups.get(m.groupId);
  if (!entry) return;
  const g = entry.group;
  if (g.generationId !== m.generationId || !(g.is(GroupState.CompletingRebalance) || g.is(GroupState.Stable))) return;
  const missing = [...g.pendingSyncMembers];
  if (missing.length === 0) return;
  for (const memberId of missing) {
    const member = g.get(memberId);
    if (member) answer(ctx, takeJoinWaiter(entry, member), joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    cancelHeartbeat(ctx, entry, memberId);
    g.remove(memberId);
  }
  ctx.log.info('removing members that sent no SyncGroup within the rebalance timeout', { groupId: m.groupId, members: missing });
  prepareRebalance(s, ctx, entry, `members ${missing.join(', ')} did not sync in time`);
}

export function handleHeartbeatDeadline(s: CoordinatorState, m: MsgOf<'HeartbeatDeadline'>, ctx: HandlerCtx): void {
  const entry = s.groups.get(m.groupId);
  if (!entry || entry.heartbeatSeq.get(m.memberId) !== m.seq) return;
  entry.heartbeatSeq.delete(m.memberId);
  const member = entry.group.get(m.memberId);
  if (!member) return;
  // members in the middle of a rebalance are kept alive by it (new members only until their join timeout)
  if (!member.isNew && (member.isAwaitingJoin || member.isAwaitingSync)) return;
  ctx.log.info('member session expired', { groupId: m.groupId, memberId: m.memberId, sessionTimeoutMs: member.sessionTimeoutMs });
  removeMemberAndUpdateGroup(s, ctx, entry, m.memberId, member.isNew ? 'new member did not complete its join in time' : 'session timeout');
}

export function handlePendingMemberDeadline(s: CoordinatorState, m: MsgOf<'PendingMemberDeadline'>, ctx: HandlerCtx): void {
  const entry = s.groups.get(m.groupId);
  if (!entry || entry.pendingMembers.get(m.memberId) !== m.seq) return;
  entry.pendingMembers.delete(m.memberId);
  if (!entry.group.hasPendingMember(m.memberId)) return;
  entry.group.removePendingMember(m.memberId);
  ctx.log.info('pending member did not join in time', { groupId: m.groupId, memberId: m.memberId });
  maybeCompleteJoin(s, ctx, entry);
}
