/**
 * KIP-932 share groups in the group coordinator (coordinator.ts): ShareGroupHeartbeat,
 * ShareGroupDescribe and share.version. share-group.ts is a group's state machine; here are its
 * members' session timers, the topic metadata it needs (and the heartbeats, fencings and
 * describes waiting for it) and its records (Kafka 4.2's: the group epoch, each member's
 * metadata, target and current assignment, the target's epoch), written before each heartbeat
 * is answered, from which the next coordinator rebuilds it (restoreShareGroup). The delivery
 * state of its partitions is not the group coordinator's: the partition leaders' share partition
 * managers keep it with the share coordinator (PrepareSharePartitions when a member is given a
 * partition, ShareGroupDeleted when the group is deleted).
 */
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { SHARE_GROUPS_OFF } from '../../src/protocol/features.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import type { ReplyToken } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { BrokerMsg } from '../broker/messages.js';
import { DEFAULT_SHARE_GROUP_DEFAULTS, shareGroupSettings } from '../share-partition/share-group-settings.js';
import { MemberState } from './consumer-group.js';
import { GroupState } from './group-state.js';
import type { CoordinatorMsg, DescribedShareGroup, ShareGroupDescribeResponse, ShareGroupHeartbeatResponse, TopicIdPartitions } from './messages.js';
import { encodeShareGroupKey, encodeShareGroupValue, ShareRecordType, type ReplayedShareGroup } from './offsets-store.js';
import { SHARE_LEAVE_GROUP_MEMBER_EPOCH, ShareGroup, ShareGroupState, type ShareMember, type ShareTopicsEnv } from './share-group.js';
import type { CoordinatorState } from './coordinator.js';
import { appendRecords, type AppendPurpose, type WrittenRecord } from './coordinator-appends.js';
import { fetchTopicInfo, topicAssignmentOf, topicPartitionsValue } from './coordinator-consumer.js';
import { answer, createGroup, dropGroup, validateGroupStatus, type Ctx, type GroupEntry, type HandlerCtx, type MsgOf } from './coordinator-groups.js';

type ShareHeartbeatMsg = Extract<CoordinatorMsg, { type: 'ShareGroupHeartbeat' }>;

/**
 * What waits for topic metadata: a heartbeat (a leave too), the fencing of a member whose session
 * ran out, or a ShareGroupDescribe naming the topics of a group taken over from another coordinator.
 */
export type ShareTopicsWait =
  | { kind: 'heartbeat'; m: ShareHeartbeatMsg; token: ReplyToken | null }
  | { kind: 'fence'; groupId: string; memberId: string; seq: number }
  | { kind: 'describe'; groups: string[]; token: ReplyToken | null };

/**
 * The topics as the coordinator's cache has them: undefined for a topic never looked up (the
 * group keeps what it knew of it), null for one known not to exist.
 */
function shareTopicsEnv(s: CoordinatorState): ShareTopicsEnv {
  return { topic: (name) => s.topicCache.get(name)?.info };
}

/** Looks `names` up in the broker's metadata, then carries on with `wait` (ShareTopicsFetched). */
function fetchShareTopics(s: CoordinatorState, ctx: Ctx, names: string[], wait: ShareTopicsWait): void {
  const fetchId = ++s.seq;
  s.awaitingShareTopics.set(fetchId, wait);
  void fetchTopicInfo(s, ctx, names).then((topics) => ctx.send(ctx.self, { type: 'ShareTopicsFetched', fetchId, names, topics }));
}

const shareSessionTimerKey = (groupId: string, memberId: string) => JSON.stringify(['sg-session', groupId, memberId]);

function shareHeartbeatError(errorCode: number, errorMessage: string | null): ShareGroupHeartbeatResponse {
  return { type: 'ShareGroupHeartbeatResponse', errorCode, errorMessage: errorMessage ?? errorInfo(errorCode).message, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
}

/** A share group's session timeout and heartbeat interval: its share.* group configs over group.share.*. */
function shareTimeouts(s: CoordinatorState, groupId: string): { sessionTimeoutMs: number; heartbeatIntervalMs: number } {
  const d = { ...DEFAULT_SHARE_GROUP_DEFAULTS, sessionTimeoutMs: s.cfg.shareSessionTimeoutMs, heartbeatIntervalMs: s.cfg.shareHeartbeatIntervalMs };
  const g = shareGroupSettings(s.groupConfigs.get(groupId), d);
  return { sessionTimeoutMs: g.sessionTimeoutMs, heartbeatIntervalMs: g.heartbeatIntervalMs };
}

export function scheduleShareSession(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string): void {
  const seq = ++s.seq;
  entry.consumerTimers.set(memberId, { sessionSeq: seq, rebalance: null });
  ctx.timers.startSingle(shareSessionTimerKey(entry.groupId, memberId), shareTimeouts(s, entry.groupId).sessionTimeoutMs, { type: 'ShareSessionDeadline', groupId: entry.groupId, memberId, seq });
}

function cancelShareSession(ctx: Ctx, entry: GroupEntry, memberId: string): void {
  ctx.timers.cancel(shareSessionTimerKey(entry.groupId, memberId));
  entry.consumerTimers.delete(memberId);
}

/**
 * The records of what changed in the share group, in Kafka's order: the removed members'
 * tombstones, member metadata, the group epoch, target assignments, the target's epoch, current
 * assignments. Everything after a failed write (as Kafka, whose failed write leaves nothing
 * behind) or with `full` (its oldest record grew old).
 */
function shareRecords(entry: GroupEntry, now: number, full: boolean): WrittenRecord[] {
  const g = entry.share!;
  if (entry.consumerNeedsFullWrite || full) {
    g.markAllDirty();
    entry.consumerNeedsFullWrite = false;
    entry.consumerOldestWrite = now;
  }
  const d = g.takeDirty();
  const out: WrittenRecord[] = [];
  const rec = (type: ShareRecordType, memberId: string | null, value: Uint8Array | null): void => {
    out.push({ kind: 'consumer', entry, key: encodeShareGroupKey(type, entry.groupId, memberId), value });
  };
  for (const id of d.removed) {
    if (g.member(id)) continue;
    rec(ShareRecordType.CurrentMemberAssignment, id, null);
    rec(ShareRecordType.TargetAssignmentMember, id, null);
    rec(ShareRecordType.MemberMetadata, id, null);
  }
  for (const id of d.memberMetadata) {
    const m = g.member(id);
    if (!m) continue;
    const value = { rackId: m.rackId, clientId: m.clientId, clientHost: m.clientHost, subscribedTopicNames: m.subscribedTopicNames };
    rec(ShareRecordType.MemberMetadata, id, encodeShareGroupValue({ record: ShareRecordType.MemberMetadata, value }));
  }
  if (d.epoch) rec(ShareRecordType.Metadata, null, encodeShareGroupValue({ record: ShareRecordType.Metadata, value: { epoch: g.groupEpoch, metadataHash: g.metadataHash } }));
  for (const id of d.targetAssignment) {
    const a = g.targetAssignment(id);
    if (a) rec(ShareRecordType.TargetAssignmentMember, id, encodeShareGroupValue({ record: ShareRecordType.TargetAssignmentMember, value: topicPartitionsValue(a) }));
  }
  if (d.assignmentEpoch) rec(ShareRecordType.TargetAssignmentMetadata, null, encodeShareGroupValue({ record: ShareRecordType.TargetAssignmentMetadata, value: { assignmentEpoch: g.assignmentEpoch } }));
  for (const id of d.currentAssignment) {
    const m = g.member(id);
    if (!m) continue;
    const value = { memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: MemberState.Stable, assigned: topicPartitionsValue(m.assigned) };
    rec(ShareRecordType.CurrentMemberAssignment, id, encodeShareGroupValue({ record: ShareRecordType.CurrentMemberAssignment, value }));
  }
  return out;
}

/** Tombstones for every record of an empty share group (Kafka's createGroupTombstoneRecords). */
export function shareTombstones(entry: GroupEntry): WrittenRecord[] {
  const g = entry.share!;
  const out: WrittenRecord[] = [];
  const rec = (type: ShareRecordType, memberId: string | null = null): WrittenRecord => ({ kind: 'consumer', entry, key: encodeShareGroupKey(type, entry.groupId, memberId), value: null });
  for (const m of g.members()) out.push(rec(ShareRecordType.CurrentMemberAssignment, m.memberId), rec(ShareRecordType.TargetAssignmentMember, m.memberId), rec(ShareRecordType.MemberMetadata, m.memberId));
  out.push(rec(ShareRecordType.TargetAssignmentMetadata), rec(ShareRecordType.Metadata));
  return out;
}

/** Writes what changed in the share group (everything with `full`: its records grew old), then settles `purpose`. */
export function persistShare(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, purpose: AppendPurpose, full = false): void {
  const records = shareRecords(entry, ctx.clock.now(), full);
  if (records.length === 0) {
    if (purpose.kind === 'consumer-reply') answer(ctx, purpose.token, purpose.response);
    return;
  }
  appendRecords(s, ctx, entry.partition, records, purpose, entry);
}

/** Rebuilds a share group from its replayed records. */
export function restoreShareGroup(groupId: string, r: ReplayedShareGroup): ShareGroup {
  const members: ShareMember[] = [];
  for (const [memberId, md] of r.members) {
    const cur = r.currents.get(memberId);
    members.push({
      memberId,
      rackId: md.rackId,
      clientId: md.clientId,
      clientHost: md.clientHost,
      subscribedTopicNames: [...new Set(md.subscribedTopicNames)].sort(),
      memberEpoch: cur?.memberEpoch ?? 0,
      previousMemberEpoch: cur?.previousMemberEpoch ?? 0,
      assigned: topicAssignmentOf(cur?.assigned ?? []),
    });
  }
  const targets = new Map([...r.targets].map(([id, v]) => [id, topicAssignmentOf(v)] as const));
  return ShareGroup.restore(groupId, { epoch: r.epoch ?? 0, metadataHash: r.metadataHash, assignmentEpoch: r.assignmentEpoch, members, targets });
}

/** A ShareGroupHeartbeat answered once the group's record is written (or with the write's error). */
function shareHeartbeatReply(token: ReplyToken | null, response: ShareGroupHeartbeatResponse): AppendPurpose {
  // `code` is the write's error as settleAppend already reports it to a heartbeat
  return { kind: 'consumer-reply', token, response, failed: (code) => shareHeartbeatError(code, null) };
}

/** Why a group of this id cannot be a share group (it is a group of another type), or null. */
function notShareGroup(entry: GroupEntry | undefined): string | null {
  if (!entry || entry.share) return null;
  const g = entry.group;
  const emptyClassic =
    !entry.consumer && g.is(GroupState.Empty) && g.size === 0 && entry.offsets.size === 0 && entry.pendingOffsetWrites.size === 0 && entry.txnOffsets.size === 0 && entry.persisted === null && entry.pendingGroupWrites === 0;
  return emptyClassic ? null : `Group ${entry.groupId} is not a share group.`;
}

/** The topics a share heartbeat needs metadata of: its subscription and its group's. */
function shareTopicsNeeded(s: CoordinatorState, m: ShareHeartbeatMsg): string[] {
  const names = new Set<string>(m.subscribedTopicNames ?? []);
  const g = s.groups.get(m.groupId)?.share;
  if (g) for (const n of g.subscribedTopicNames()) names.add(n);
  return [...names].sort();
}

/**
 * A heartbeat waits for the metadata of its topics and its group's when the cache's is missing or
 * old; a leave only when some is missing (the others' target assignment is computed again
 * without the member, over topics the coordinator may never have looked up since it took the
 * group over).
 */
function prepareShareHeartbeat(s: CoordinatorState, ctx: Ctx, m: ShareHeartbeatMsg, token: ReplyToken | null, fetched: boolean): void {
  const now = ctx.clock.now();
  const needed = shareTopicsNeeded(s, m);
  const leave = m.memberEpoch === SHARE_LEAVE_GROUP_MEMBER_EPOCH;
  const wanted = needed.some((n) => {
    const c = s.topicCache.get(n);
    return !c || (!leave && now - c.at >= s.cfg.consumerMetadataMaxAgeMs);
  });
  if (wanted && !fetched) return fetchShareTopics(s, ctx, needed, { kind: 'heartbeat', m, token });
  shareHeartbeat(s, ctx, m, token);
}

/** A member's session ran out: it is fenced once the group's topics are known (the others' assignment is computed again). */
function fenceShareMember(s: CoordinatorState, ctx: Ctx, groupId: string, memberId: string, seq: number, fetched: boolean): void {
  const entry = s.groups.get(groupId);
  if (!entry?.share || entry.consumerTimers.get(memberId)?.sessionSeq !== seq) return;
  const needed = [...entry.share.subscribedTopicNames()].sort();
  if (!fetched && needed.some((n) => !s.topicCache.has(n))) return fetchShareTopics(s, ctx, needed, { kind: 'fence', groupId, memberId, seq });
  entry.consumerTimers.delete(memberId);
  if (!entry.share.leave(memberId, shareTopicsEnv(s))) return;
  ctx.log.info('member fenced from the share group', { groupId, memberId, reason: 'the member session expired', groupEpoch: entry.share.groupEpoch });
  persistShare(s, ctx, entry, { kind: 'consumer-write' });
}

/** A share group heartbeat (join, heartbeat or leave), with the topics' metadata at hand. */
function shareHeartbeat(s: CoordinatorState, ctx: Ctx, m: ShareHeartbeatMsg, token: ReplyToken | null): void {
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, shareHeartbeatError(err, null));
  let entry = s.groups.get(m.groupId);
  const refusal = notShareGroup(entry);
  if (refusal !== null) return answer(ctx, token, shareHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, refusal));
  let created = false;
  if (!entry?.share) {
    if (m.memberEpoch !== 0) return answer(ctx, token, shareHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${m.groupId} not found.`));
    entry ??= createGroup(s, m.groupId, ctx.clock.now());
    entry.share = new ShareGroup(m.groupId);
    entry.consumerOldestWrite = ctx.clock.now();
    created = true;
  }
  const g = entry.share!;
  const known = g.member(m.memberId) !== undefined;
  const { heartbeatIntervalMs } = shareTimeouts(s, m.groupId);
  const outcome = g.heartbeat(
    { memberId: m.memberId, memberEpoch: m.memberEpoch, rackId: m.rackId, subscribedTopicNames: m.subscribedTopicNames, clientId: m.clientId ?? '', clientHost: m.clientHost ?? '' },
    { ...shareTopicsEnv(s), maxSize: s.cfg.shareMaxSize, heartbeatIntervalMs },
  );
  if (outcome.kind === 'error') {
    if (created && g.members().length === 0 && g.groupEpoch === 0) dropGroup(s, ctx, entry, ErrorCode.NONE);
    ctx.log.debug('share group heartbeat refused', { groupId: m.groupId, memberId: m.memberId, memberEpoch: m.memberEpoch, errorCode: outcome.errorCode, reason: outcome.errorMessage });
    return answer(ctx, token, shareHeartbeatError(outcome.errorCode, outcome.errorMessage));
  }
  if (m.memberEpoch === SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
    cancelShareSession(ctx, entry, m.memberId);
    ctx.log.info('member left the share group', { groupId: m.groupId, memberId: m.memberId, groupEpoch: g.groupEpoch });
  } else {
    if (!known) ctx.log.info('member joins the share group', { groupId: m.groupId, memberId: outcome.memberId, groupEpoch: g.groupEpoch });
    scheduleShareSession(s, ctx, entry, outcome.memberId);
  }
  const response: ShareGroupHeartbeatResponse = {
    type: 'ShareGroupHeartbeatResponse',
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: outcome.memberId,
    memberEpoch: outcome.memberEpoch,
    heartbeatIntervalMs: outcome.heartbeatIntervalMs,
    assignment: outcome.assignment,
  };
  if (outcome.assignment && outcome.assignment.length > 0) prepareSharePartitions(s, ctx, m.groupId, outcome.assignment);
  persistShare(s, ctx, entry, shareHeartbeatReply(token, response));
}

/**
 * A member was given partitions: their leaders make the group's state of each now, where
 * share.auto.offset.reset says, if it has none (as Kafka 4.1's coordinator initializes a share
 * partition when it first assigns it), so that records written between the assignment and the
 * member's first fetch are the group's too. The leaders' share partition managers do nothing
 * for a partition whose state they hold or load; the broker routes the message to them.
 */
function prepareSharePartitions(s: CoordinatorState, ctx: Ctx, groupId: string, assignment: readonly TopicIdPartitions[]): void {
  const names = topicNamesById(s);
  const topics = assignment.flatMap((t) => {
    const topic = names.get(t.topicId);
    return topic === undefined ? [] : [{ topic, topicId: t.topicId, partitions: t.partitions }];
  });
  if (topics.length === 0) return;
  const broker: ActorRef<BrokerMsg> = s.broker ?? { node: ctx.nodeId, path: brokerPath(s.brokerId) };
  ctx.send(broker, { type: 'PrepareSharePartitions', groupId, topics });
}

/** Topic names by topic id, as the coordinator's topic cache has them. */
function topicNamesById(s: CoordinatorState): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of s.topicCache.values()) if (c.info) out.set(c.info.topicId, c.info.name);
  return out;
}

/** The subscribed topics of the share groups asked about that the topic cache has never looked up. */
function shareDescribeTopicsMissing(s: CoordinatorState, groups: unknown[]): string[] {
  const out = new Set<string>();
  for (const groupId of groups) {
    const g = typeof groupId === 'string' ? s.groups.get(groupId)?.share : undefined;
    if (g) for (const n of g.subscribedTopicNames()) if (!s.topicCache.has(n)) out.add(n);
  }
  return [...out].sort();
}

function answerShareDescribe(s: CoordinatorState, ctx: Ctx, groups: unknown[], token: ReplyToken | null): void {
  answer(ctx, token, { type: 'ShareGroupDescribeResponse', errorCode: ErrorCode.NONE, groups: groups.map((g) => describeShareGroup(s, g)) } satisfies ShareGroupDescribeResponse);
}

function describeShareGroup(s: CoordinatorState, groupId: unknown): DescribedShareGroup {
  const empty = (errorCode: number, errorMessage: string | null, state = ''): DescribedShareGroup => ({ groupId: String(groupId), errorCode, errorMessage, groupState: state, groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] });
  const err = validateGroupStatus(s, groupId, false);
  if (err !== null) return empty(err, errorInfo(err).message);
  const entry = s.groups.get(groupId as string);
  if (!entry || (!entry.share && notShareGroup(entry) === null)) return empty(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${String(groupId)} not found.`, ShareGroupState.Dead);
  if (!entry.share) return empty(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${String(groupId)} is not a share group.`, ShareGroupState.Dead);
  const d = entry.share.describe();
  const names = topicNamesById(s);
  return {
    groupId: d.groupId,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupState: d.state,
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.assignmentEpoch,
    assignorName: d.assignorName,
    members: d.members.map((mm) => ({
      memberId: mm.memberId,
      rackId: mm.rackId,
      memberEpoch: mm.memberEpoch,
      clientId: mm.clientId,
      clientHost: mm.clientHost,
      subscribedTopicNames: mm.subscribedTopicNames,
      assignment: [...mm.assignment].map(([topicId, partitions]) => ({ topicId, topicName: names.get(topicId) ?? '', partitions })),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function handleShareGroupHeartbeat(s: CoordinatorState, m: MsgOf<'ShareGroupHeartbeat'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  if (s.shareVersion < 1) return answer(ctx, token, shareHeartbeatError(ErrorCode.UNSUPPORTED_VERSION, SHARE_GROUPS_OFF));
  if (typeof m.groupId !== 'string' || m.groupId.trim() === '') return answer(ctx, token, shareHeartbeatError(ErrorCode.INVALID_REQUEST, "GroupId can't be empty."));
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, shareHeartbeatError(err, null));
  prepareShareHeartbeat(s, ctx, m, token, false);
}

export function handleShareTopicsFetched(s: CoordinatorState, m: MsgOf<'ShareTopicsFetched'>, ctx: HandlerCtx): void {
  const waiting = s.awaitingShareTopics.get(m.fetchId);
  if (!waiting) return;
  s.awaitingShareTopics.delete(m.fetchId);
  if (m.topics === null) {
    // a heartbeat cannot go on without them; a leave, a fencing or a describe goes on with what is known
    if (waiting.kind === 'heartbeat' && waiting.m.memberEpoch !== SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
      return answer(ctx, waiting.token, shareHeartbeatError(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'the topics could not be read from the metadata'));
    }
  } else {
    const now = ctx.clock.now();
    const byName = new Map(m.topics.map((t) => [t.name, t] as const));
    for (const name of m.names) {
      const t = byName.get(name);
      s.topicCache.set(name, { info: t ? { topicId: t.topicId, name, numPartitions: t.numPartitions } : null, at: now });
    }
  }
  switch (waiting.kind) {
    case 'heartbeat':
      return prepareShareHeartbeat(s, ctx, waiting.m, waiting.token, true);
    case 'fence':
      return fenceShareMember(s, ctx, waiting.groupId, waiting.memberId, waiting.seq, true);
    case 'describe':
      return answerShareDescribe(s, ctx, waiting.groups, waiting.token);
    default:
      return assertNever(waiting);
  }
}

export function handleShareSessionDeadline(s: CoordinatorState, m: MsgOf<'ShareSessionDeadline'>, ctx: HandlerCtx): void {
  fenceShareMember(s, ctx, m.groupId, m.memberId, m.seq, false);
}

export function handleShareGroupDescribe(s: CoordinatorState, m: MsgOf<'ShareGroupDescribe'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  if (s.shareVersion < 1) return answer(ctx, token, { type: 'ShareGroupDescribeResponse', errorCode: ErrorCode.NONE, groups: m.groups.map((groupId) => ({ groupId: String(groupId), errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: SHARE_GROUPS_OFF, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] })) } satisfies ShareGroupDescribeResponse);
  // members' assignments are named by topic: a group loaded from another coordinator's records may hold topics not looked up here yet
  const missing = shareDescribeTopicsMissing(s, m.groups);
  if (missing.length > 0) return fetchShareTopics(s, ctx, missing, { kind: 'describe', groups: m.groups, token });
  answerShareDescribe(s, ctx, m.groups, token);
}

export function handleShareVersionChanged(s: CoordinatorState, m: MsgOf<'ShareVersionChanged'>, ctx: HandlerCtx): void {
  if (m.level === s.shareVersion) return;
  // at 0 heartbeats are refused: members' sessions run out and the groups stay, Empty, for when it is raised again
  ctx.log.info(m.level >= 1 ? 'share groups on (share.version 1)' : 'share groups off (share.version 0)', { shareVersion: m.level });
  s.shareVersion = m.level;
}
