/**
 * KIP-848 consumer groups in the group coordinator (coordinator.ts): ConsumerGroupHeartbeat,
 * ConsumerGroupDescribe and group.version. consumer-group.ts is a group's state machine; here are
 * its member timers (session; rebalance: the member's rebalance timeout while it revokes), the
 * subscribed topics' metadata (read from the local broker into the coordinator's topic cache),
 * the resolution of its members' regular expressions (regex-resolution.ts; under ACLs, to the
 * topics the member may DESCRIBE), and its records (Kafka's ConsumerGroup* record types), written
 * before a heartbeat is answered. Also the classic members a consumer group serves
 * (classic-members.ts: their JoinGroup, SyncGroup, Heartbeat and LeaveGroup, their join and sync
 * timers), and a live group's migration between the two kinds (group-conversion.ts).
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../src/protocol/errors.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { kafkaTopicId } from '../../src/protocol/topic-id.js';
import type { ReplyToken } from '../../src/runtime/actor-definition.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import { AclOperation } from '../../src/security/acl.js';
import type { BrokerMsg, MetadataResponse } from '../broker/messages.js';
import type { TopicsAuthorized } from '../kafka-listener/messages.js';
import { SERVER_ASSIGNORS, type TopicAssignment } from './assignors/server.js';
import { type ClassicError, classicJoinHeartbeat, classicSubscription, classicMustRejoin, classicProtocolName, classicSyncProblem, encodeClassicAssignment, findClassicMember, isClassicError, subscriptionVersion, supportsClassicProtocols } from './classic-members.js';
import { ConsumerGroup, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, MemberState, type ConsumerMember, type HeartbeatOutcome } from './consumer-group.js';
import { CONSUMER_PROTOCOL_TYPE, type Subscription } from './consumer-protocol.js';
import { effectiveGroupTimeouts } from './group-configs.js';
import { classicGroupFromConsumer, consumerGroupFromClassic, isDowngradeEnabled, sharesProtocol, shouldDowngrade, upgradeRefusal } from './group-conversion.js';
import { GroupMetadata, GroupState } from './group-state.js';
import type {
  ConsumerGroupDescribeResponse,
  ConsumerGroupHeartbeatResponse,
  ConsumerTopicInfo,
  CoordinatorMsg,
  DescribedConsumerGroup,
  JoinGroupResponse,
  LeaveGroupResponse,
  SyncGroupResponse,
  TopicIdPartitions,
} from './messages.js';
import { ConsumerRecordType, encodeConsumerGroupKey, encodeConsumerGroupValue, type ReplayedConsumerGroup, type TopicPartitionsValue } from './offsets-store.js';
import { matchedTopics, onlyAllowed, regexesToResolve, resolveTopicRegexes } from './regex-resolution.js';
import type { CoordinatorState } from './coordinator.js';
import { appendRecords, type AppendPurpose, type WrittenRecord } from './coordinator-appends.js';
import { clientReason, groupMetadataBytes, joinError, prepareRebalance, scheduleHeartbeat, stopClassicGroup, subscribedTopics, syncError, topicsOfSubscriptions } from './coordinator-classic.js';
import { answer, createGroup, dropGroup, simple, validateGroupStatus, type Ctx, type GroupEntry, type HandlerCtx, type MsgOf } from './coordinator-groups.js';

type ConsumerHeartbeatMsg = Extract<CoordinatorMsg, { type: 'ConsumerGroupHeartbeat' }>;

/** Why ConsumerGroupHeartbeat and ConsumerGroupDescribe answer UNSUPPORTED_VERSION with group.version 0. */
const CONSUMER_PROTOCOL_OFF = 'The new consumer group protocol is not enabled: the cluster\'s group.version is 0 (samsa features upgrade --feature group.version=1)';

/** A consumer group heartbeat gathering what it needs before it is applied (prepareConsumerHeartbeat). */
export interface PendingHeartbeat {
  m: ConsumerHeartbeatMsg;
  token: ReplyToken | null;
  /** The topics it needs were read for it (it goes on with them, however old). */
  fetchedNames: boolean;
  /** The cluster's topic list was read for it. */
  fetchedAll: boolean;
  /** Its group's regular expressions, resolved for it (before its member's ACLs: `matched`). */
  matched: Map<string, Set<string>> | null;
  resolved: Map<string, Set<string>> | null;
  /** A classic member's JoinGroup to a consumer group (`m` then stands for it), with its member id. */
  /** A classic member's JoinGroup, with its Subscription decoded once (null: it did not decode). */
  classicJoin?: { m: JoinGroupMsg; memberId: string; subscription: Subscription | null };
}

type JoinGroupMsg = Extract<CoordinatorMsg, { type: 'JoinGroup' }>;

const consumerSessionTimerKey = (groupId: string, memberId: string) => JSON.stringify(['cg-session', groupId, memberId]);

const consumerRebalanceTimerKey = (groupId: string, memberId: string) => JSON.stringify(['cg-rebalance', groupId, memberId]);

function consumerHeartbeatError(errorCode: number, errorMessage: string | null): ConsumerGroupHeartbeatResponse {
  return { type: 'ConsumerGroupHeartbeatResponse', errorCode, errorMessage, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
}

/** Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid: INVALID_REQUEST or UNSUPPORTED_ASSIGNOR with Kafka's message, or null. */
export function validateConsumerHeartbeat(m: ConsumerHeartbeatMsg): { errorCode: number; message: string } | null {
  const invalid = (message: string) => ({ errorCode: ErrorCode.INVALID_REQUEST, message });
  if (typeof m.groupId !== 'string' || m.groupId.trim() === '') return invalid("GroupId can't be empty.");
  if (m.instanceId !== null && m.instanceId.trim() === '') return invalid("InstanceId can't be empty.");
  if (m.rackId !== null && m.rackId.trim() === '') return invalid("RackId can't be empty.");
  if (m.memberEpoch > 0 || m.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
    if (m.memberId.trim() === '') return invalid("MemberId can't be empty.");
  } else if (m.memberEpoch === 0) {
    if (m.rebalanceTimeoutMs === -1) return invalid('RebalanceTimeoutMs must be provided in first request.');
    if (m.topicPartitions === null || m.topicPartitions.length > 0) return invalid('TopicPartitions must be empty when (re-)joining.');
    // as Kafka 4.0: an empty list or an empty expression joins subscribed to nothing
    if (m.subscribedTopicNames === null && (m.subscribedTopicRegex ?? null) === null) return invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
  } else if (m.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (m.memberId.trim() === '') return invalid("MemberId can't be empty.");
    if (m.instanceId === null) return invalid("InstanceId can't be null.");
  } else {
    return invalid('MemberEpoch is invalid.');
  }
  if (m.serverAssignor !== null && !SERVER_ASSIGNORS.has(m.serverAssignor)) {
    return { errorCode: ErrorCode.UNSUPPORTED_ASSIGNOR, message: `ServerAssignor ${m.serverAssignor} is not supported. Supported assignors: ${[...SERVER_ASSIGNORS.keys()].join(', ')}.` };
  }
  return null;
}

export function cancelConsumerTimers(ctx: Ctx, entry: GroupEntry, memberId: string): void {
  ctx.timers.cancel(consumerSessionTimerKey(entry.groupId, memberId));
  ctx.timers.cancel(consumerRebalanceTimerKey(entry.groupId, memberId));
  ctx.timers.cancel(classicTimerKey(entry.groupId, memberId, 'join'));
  ctx.timers.cancel(classicTimerKey(entry.groupId, memberId, 'sync'));
  entry.consumerTimers.delete(memberId);
}

/** A consumer group's session timeout and heartbeat interval: its group configs over group.consumer.session.timeout.ms / heartbeat.interval.ms. */
function consumerTimeouts(s: CoordinatorState, groupId: string): { sessionTimeoutMs: number; heartbeatIntervalMs: number } {
  return effectiveGroupTimeouts(s.groupConfigs.get(groupId), { sessionTimeoutMs: s.cfg.consumerSessionTimeoutMs, heartbeatIntervalMs: s.cfg.consumerHeartbeatIntervalMs });
}

/** The member is alive now: its session runs from here (a classic member's own session timeout, else the group's consumer.session.timeout.ms). */
export function scheduleConsumerSession(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string): void {
  const seq = ++s.seq;
  const t = entry.consumerTimers.get(memberId) ?? { sessionSeq: seq, rebalance: null };
  t.sessionSeq = seq;
  entry.consumerTimers.set(memberId, t);
  const timeoutMs = entry.consumer?.members.get(memberId)?.classic?.sessionTimeoutMs ?? consumerTimeouts(s, entry.groupId).sessionTimeoutMs;
  ctx.timers.startSingle(consumerSessionTimerKey(entry.groupId, memberId), timeoutMs, { type: 'ConsumerSessionDeadline', groupId: entry.groupId, memberId, seq });
}

const classicTimerKey = (groupId: string, memberId: string, phase: 'join' | 'sync') => JSON.stringify(['cg-classic', phase, groupId, memberId]);

/**
 * A classic member must join again (told so) or sync (after its join) within its rebalance
 * timeout, else it is fenced (Kafka's consumer group join and sync timeouts); a join timer
 * already running is left alone.
 */
function scheduleClassicTimer(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string, phase: 'join' | 'sync', timeoutMs: number): void {
  const t = entry.consumerTimers.get(memberId);
  if (!t || (phase === 'join' && t.join !== undefined)) return;
  const seq = ++s.seq;
  t[phase] = seq;
  ctx.timers.startSingle(classicTimerKey(entry.groupId, memberId, phase), Math.max(1, timeoutMs), { type: 'ConsumerClassicDeadline', groupId: entry.groupId, memberId, phase, seq });
}

function cancelClassicTimer(ctx: Ctx, entry: GroupEntry, memberId: string, phase: 'join' | 'sync'): void {
  const t = entry.consumerTimers.get(memberId);
  if (t) delete t[phase];
  ctx.timers.cancel(classicTimerKey(entry.groupId, memberId, phase));
}

/** A member revoking partitions has its rebalance timeout to do it in (one timer per epoch); others have none. */
export function maybeScheduleConsumerRebalance(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, member: ConsumerMember): void {
  const t = entry.consumerTimers.get(member.memberId);
  if (!t) return;
  if (member.state !== MemberState.UnrevokedPartitions) {
    if (t.rebalance) ctx.timers.cancel(consumerRebalanceTimerKey(entry.groupId, member.memberId));
    t.rebalance = null;
    return;
  }
  if (t.rebalance?.memberEpoch === member.memberEpoch) return;
  const seq = ++s.seq;
  t.rebalance = { seq, memberEpoch: member.memberEpoch };
  ctx.timers.startSingle(consumerRebalanceTimerKey(entry.groupId, member.memberId), Math.max(1, member.rebalanceTimeoutMs), {
    type: 'ConsumerRebalanceDeadline',
    groupId: entry.groupId,
    memberId: member.memberId,
    memberEpoch: member.memberEpoch,
    seq,
  });
}

export function topicPartitionsValue(a: TopicAssignment): TopicPartitionsValue {
  return [...a]
    .filter(([, ps]) => ps.size > 0)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([topicId, ps]) => ({ topicId, partitions: [...ps].sort((p, q) => p - q) }));
}

export function topicAssignmentOf(v: TopicPartitionsValue): TopicAssignment {
  return new Map(v.map((t) => [t.topicId, new Set(t.partitions)]));
}

/** Tombstones for every record of a consumer group (Kafka's createGroupTombstoneRecords). */
export function consumerTombstones(entry: GroupEntry): WrittenRecord[] {
  const g = entry.consumer;
  if (!g) return [];
  const out: WrittenRecord[] = [];
  const rec = (type: ConsumerRecordType, memberId: string | null = null): WrittenRecord => ({ kind: 'consumer', entry, key: encodeConsumerGroupKey(type, entry.groupId, memberId), value: null });
  for (const id of g.members.keys()) out.push(rec(ConsumerRecordType.CurrentMemberAssignment, id));
  for (const id of g.members.keys()) out.push(rec(ConsumerRecordType.TargetAssignmentMember, id));
  out.push(rec(ConsumerRecordType.TargetAssignmentMetadata));
  for (const id of g.members.keys()) out.push(rec(ConsumerRecordType.MemberMetadata, id));
  out.push(rec(ConsumerRecordType.PartitionMetadata));
  out.push(rec(ConsumerRecordType.Metadata));
  return out;
}

/** The records of what changed in the consumer group (everything after a failed write), in Kafka's order. */
function consumerRecords(entry: GroupEntry, now: number): WrittenRecord[] {
  const g = entry.consumer!;
  if (entry.consumerNeedsFullWrite) {
    g.markAllDirty();
    entry.consumerNeedsFullWrite = false;
    entry.consumerOldestWrite = now;
  }
  const d = g.takeDirty();
  const out: WrittenRecord[] = [];
  const rec = (type: ConsumerRecordType, memberId: string | null, value: Uint8Array | null): void => {
    out.push({ kind: 'consumer', entry, key: encodeConsumerGroupKey(type, entry.groupId, memberId), value });
  };
  for (const id of d.removed) {
    if (g.members.has(id)) continue;
    rec(ConsumerRecordType.CurrentMemberAssignment, id, null);
    rec(ConsumerRecordType.TargetAssignmentMember, id, null);
    rec(ConsumerRecordType.MemberMetadata, id, null);
  }
  for (const id of d.memberMetadata) {
    const m = g.members.get(id);
    if (!m) continue;
    const value = {
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      serverAssignor: m.serverAssignor,
      classicMemberMetadata: m.classic,
    };
    rec(ConsumerRecordType.MemberMetadata, id, encodeConsumerGroupValue({ record: ConsumerRecordType.MemberMetadata, value }));
  }
  if (d.subscriptionMetadata) {
    rec(ConsumerRecordType.PartitionMetadata, null, encodeConsumerGroupValue({ record: ConsumerRecordType.PartitionMetadata, value: [...g.subscriptionMetadata.values()] }));
  }
  if (d.epoch) rec(ConsumerRecordType.Metadata, null, encodeConsumerGroupValue({ record: ConsumerRecordType.Metadata, value: { epoch: g.groupEpoch } }));
  for (const id of d.targetAssignment) {
    const a = g.targetAssignment.get(id);
    if (a) rec(ConsumerRecordType.TargetAssignmentMember, id, encodeConsumerGroupValue({ record: ConsumerRecordType.TargetAssignmentMember, value: topicPartitionsValue(a) }));
  }
  if (d.assignmentEpoch) rec(ConsumerRecordType.TargetAssignmentMetadata, null, encodeConsumerGroupValue({ record: ConsumerRecordType.TargetAssignmentMetadata, value: { assignmentEpoch: g.assignmentEpoch } }));
  for (const id of d.currentAssignment) {
    const m = g.members.get(id);
    if (!m) continue;
    const value = { memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: m.state, assigned: topicPartitionsValue(m.assigned), pendingRevocation: topicPartitionsValue(m.pendingRevocation) };
    rec(ConsumerRecordType.CurrentMemberAssignment, id, encodeConsumerGroupValue({ record: ConsumerRecordType.CurrentMemberAssignment, value }));
  }
  return out;
}

/** Writes what changed in the consumer group (after `extra`), then settles `purpose`. */
export function persistConsumer(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, purpose: AppendPurpose, extra: WrittenRecord[] = []): void {
  const records = [...extra, ...(entry.consumer ? consumerRecords(entry, ctx.clock.now()) : [])];
  if (records.length === 0) {
    if (purpose.kind === 'consumer-reply') answer(ctx, purpose.token, purpose.response);
    return;
  }
  appendRecords(s, ctx, entry.partition, records, purpose, entry);
}

function assignmentOut(a: TopicAssignment | null): TopicIdPartitions[] | null {
  return a === null ? null : topicPartitionsValue(a);
}

/** The topics a heartbeat needs metadata of: its subscription, the group's, and what its regular expressions resolve to. */
function topicsNeeded(s: CoordinatorState, m: ConsumerHeartbeatMsg, resolved: ReadonlyMap<string, ReadonlySet<string>> | null): string[] {
  const names = new Set<string>(m.subscribedTopicNames ?? []);
  const entry = s.groups.get(m.groupId);
  if (entry?.consumer) for (const n of entry.consumer.subscribedTopicNames()) names.add(n);
  // a classic group a heartbeat may upgrade: its members' topics
  else if (entry) for (const n of subscribedTopics(entry) ?? []) names.add(n);
  if (resolved) for (const n of matchedTopics(resolved)) names.add(n);
  return [...names].sort();
}

/** The named topics' metadata (null: every topic's) from the local broker. */
export function fetchTopicInfo(s: CoordinatorState, ctx: Ctx, names: string[] | null): Promise<ConsumerTopicInfo[] | null> {
  if (s.consumerTopicMetadata) return s.consumerTopicMetadata(names);
  const broker: ActorRef<BrokerMsg> = s.broker ?? { node: ctx.nodeId, path: brokerPath(s.brokerId) };
  return ctx.ask<MetadataResponse>(broker, { type: 'Metadata', topics: names }, { timeoutMs: 10_000 }).then((r) => {
    if (isFailure(r) || r.type !== 'MetadataResponse') return null;
    return r.metadata.topics.map((t) => ({ topicId: kafkaTopicId(t.topicId), name: t.name, numPartitions: t.partitions.length, internal: t.internal }));
  });
}

/** Reads topic metadata for a waiting heartbeat (names null: the cluster's whole topic list). */
function fetchTopicsFor(s: CoordinatorState, ctx: Ctx, p: PendingHeartbeat, names: string[] | null): void {
  const fetchId = ++s.seq;
  s.awaitingTopics.set(fetchId, p);
  void fetchTopicInfo(s, ctx, names).then((topics) => ctx.send(ctx.self, { type: 'ConsumerTopicsFetched', fetchId, names, topics }));
}

/**
 * Gathers what a heartbeat (epoch >= 0) needs, then applies it: a fresh resolution of its
 * group's regular expressions when one is due (the cluster's topic list, then, under ACLs, the
 * member's DESCRIBE on the topics matched, from the listener it came through), and the subscribed
 * topics' metadata once older than its maximum age. Each step that must wait comes back here.
 */
function prepareConsumerHeartbeat(s: CoordinatorState, ctx: Ctx, p: PendingHeartbeat): void {
  const now = ctx.clock.now();
  const { m } = p;
  if (p.resolved === null) {
    const entry = s.groups.get(m.groupId);
    const regexes = regexesToResolve(entry?.consumer ?? undefined, m.subscribedTopicRegex, entry?.consumerRegexesResolvedAt ?? Number.NEGATIVE_INFINITY, now, s.cfg.consumerRegexRefreshIntervalMs);
    if (regexes !== null) {
      const fresh = s.clusterTopics !== null && now - s.clusterTopics.at < s.cfg.consumerMetadataMaxAgeMs;
      if (!fresh && !p.fetchedAll) return fetchTopicsFor(s, ctx, p, null);
      p.matched = resolveTopicRegexes(regexes, s.clusterTopics?.topics ?? []);
      const topics = matchedTopics(p.matched);
      if (m.topicAuthorizer && topics.length > 0) {
        const fetchId = ++s.seq;
        s.awaitingTopics.set(fetchId, p);
        const a = m.topicAuthorizer;
        void ctx
          .ask<TopicsAuthorized>(a.listener, { type: 'AuthorizeTopics', principal: a.principal, host: a.host, operation: AclOperation.DESCRIBE, topics }, { timeoutMs: 10_000 })
          .then((r) => ctx.send(ctx.self, { type: 'ConsumerRegexTopicsAuthorized', fetchId, allowed: isFailure(r) || r.type !== 'TopicsAuthorized' ? null : r.allowed }));
        return;
      }
      p.resolved = p.matched;
    }
  }
  const needed = topicsNeeded(s, m, p.resolved);
  const stale = needed.some((n) => {
    const c = s.topicCache.get(n);
    return !c || now - c.at >= s.cfg.consumerMetadataMaxAgeMs;
  });
  if (stale && !p.fetchedNames) return fetchTopicsFor(s, ctx, p, needed);
  if (p.classicJoin) classicJoinToConsumerGroup(s, ctx, p.classicJoin, p.token, p.resolved);
  else consumerHeartbeat(s, ctx, m, p.token, p.resolved);
}

/** A heartbeat waiting for topics is answered with an error (in the kind of its request). */
export function failPending(ctx: Ctx, p: PendingHeartbeat, errorCode: number, message: string | null): void {
  if (p.classicJoin) answer(ctx, p.token, joinError(p.classicJoin.memberId, errorCode));
  else answer(ctx, p.token, consumerHeartbeatError(errorCode, message));
}

/** A heartbeat's join or heartbeat (epoch >= 0), with the topics' metadata at hand (and its group's regular expressions resolved afresh, when due). */
function consumerHeartbeat(s: CoordinatorState, ctx: Ctx, m: ConsumerHeartbeatMsg, token: ReplyToken | null, resolved: Map<string, Set<string>> | null): void {
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, consumerHeartbeatError(err, null));
  const extra: WrittenRecord[] = [];
  let entry = s.groups.get(m.groupId);
  let created = false;
  if (!entry) {
    if (m.memberEpoch !== 0) return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${m.groupId} not found.`));
    entry = createGroup(s, m.groupId, ctx.clock.now());
    created = true;
  }
  if (entry.share) return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${m.groupId} is not a consumer group.`));
  let upgraded: ConsumerGroup | null = null;
  if (!entry.consumer) {
    // a classic group of that id: an empty one is replaced (Kafka deletes it), a live one upgraded if it may be
    const classicEmpty = entry.group.is(GroupState.Empty) && entry.group.size === 0 && entry.joinWaiters.size === 0 && entry.group.numPendingMembers === 0;
    if (m.memberEpoch !== 0) return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${m.groupId} not found.`));
    if (!classicEmpty) {
      const refusal = upgradeRefusal(s.cfg.migrationPolicy, entry.group, s.cfg.consumerMaxSize);
      if (refusal !== null) {
        ctx.log.info('cannot upgrade the classic group to a consumer group', { groupId: m.groupId, reason: refusal });
        return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${m.groupId} is not a consumer group.`));
      }
      const up = consumerGroupFromClassic(entry.group, (name) => s.topicCache.get(name)?.info ?? undefined);
      if (!up.ok) return answer(ctx, token, consumerHeartbeatError(up.errorCode, up.errorMessage));
      // the joining member's heartbeat runs on the converted group; the classic group stands if it is refused
      upgraded = up.group;
    } else {
      if (entry.persisted !== null) {
        extra.push({ kind: 'group', entry, bytes: null });
        entry.persisted = null;
      }
      entry.consumer = new ConsumerGroup(m.groupId);
      entry.consumerOldestWrite = ctx.clock.now();
    }
  }
  const g = upgraded ?? entry.consumer!;
  const beforeMember = m.memberId === '' ? undefined : g.members.get(m.memberId);
  const outcome: HeartbeatOutcome = g.heartbeat(
    {
      memberId: m.memberId,
      memberEpoch: m.memberEpoch,
      instanceId: m.instanceId,
      rackId: m.rackId,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      subscribedTopicNames: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex ?? null,
      serverAssignor: m.serverAssignor,
      ownedTopicPartitions: m.topicPartitions,
      clientId: m.clientId ?? '',
      clientHost: m.clientHost ?? '',
    },
    {
      topic: (name) => s.topicCache.get(name)?.info ?? undefined,
      maxSize: s.cfg.consumerMaxSize,
      newMemberId: () => randomUUID(),
      ...(resolved ? { resolvedRegexes: resolved } : {}),
    },
  );
  if (outcome.kind === 'error') {
    if (created && g.members.size === 0) dropGroup(s, ctx, entry, ErrorCode.NONE);
    ctx.log.debug('consumer group heartbeat refused', { groupId: m.groupId, memberId: m.memberId, memberEpoch: m.memberEpoch, errorCode: outcome.errorCode, reason: outcome.errorMessage });
    return answer(ctx, token, consumerHeartbeatError(outcome.errorCode, outcome.errorMessage));
  }
  if (upgraded) upgradeToConsumerGroup(s, ctx, entry, upgraded, extra);
  if (outcome.replacedMemberId) {
    cancelConsumerTimers(ctx, entry, outcome.replacedMemberId);
    ctx.log.info('static member rejoined the consumer group under a new member id', { groupId: m.groupId, instanceId: m.instanceId, oldMemberId: outcome.replacedMemberId, memberId: outcome.memberId });
  } else if (!beforeMember) {
    ctx.log.info('member joins the consumer group', { groupId: m.groupId, memberId: outcome.memberId, instanceId: m.instanceId, groupEpoch: g.groupEpoch });
  }
  if (resolved) {
    entry.consumerRegexesResolvedAt = ctx.clock.now();
    ctx.log.debug('consumer group regular expressions resolved', { groupId: m.groupId, memberId: outcome.memberId, regexes: Object.fromEntries([...resolved].map(([r, t]) => [r, [...t].sort()])), groupEpoch: g.groupEpoch });
  }
  scheduleConsumerSession(s, ctx, entry, outcome.memberId);
  if (outcome.member) maybeScheduleConsumerRebalance(s, ctx, entry, outcome.member);
  const response: ConsumerGroupHeartbeatResponse = {
    type: 'ConsumerGroupHeartbeatResponse',
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: outcome.memberId,
    memberEpoch: outcome.memberEpoch,
    heartbeatIntervalMs: consumerTimeouts(s, m.groupId).heartbeatIntervalMs,
    assignment: assignmentOut(outcome.assignment),
  };
  persistConsumer(s, ctx, entry, heartbeatReply(token, response), extra);
}

/** A heartbeat with epoch -1 (leave) or -2 (a static member leaving for now). */
function consumerLeave(s: CoordinatorState, ctx: Ctx, m: ConsumerHeartbeatMsg, token: ReplyToken | null): void {
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, consumerHeartbeatError(err, null));
  const entry = s.groups.get(m.groupId);
  if (!entry?.consumer) return answer(ctx, token, consumerHeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${m.groupId} not found.`));
  if (m.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
    // the last member of the consumer protocol leaving a group of classic members: it becomes a classic group again
    const leaving = m.instanceId === null ? entry.consumer.members.get(m.memberId) : entry.consumer.staticMember(m.instanceId);
    if (leaving?.memberId === m.memberId && shouldDowngrade(s.cfg.migrationPolicy, entry.consumer, m.memberId, s.cfg.classicMaxSize)) {
      const response: ConsumerGroupHeartbeatResponse = { type: 'ConsumerGroupHeartbeatResponse', errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: m.memberEpoch, heartbeatIntervalMs: 0, assignment: null };
      return downgradeToClassicGroup(s, ctx, entry, m.memberId, 'the last member using the consumer protocol left', heartbeatReply(token, response));
    }
  }
  const outcome = entry.consumer.leave(m.memberId, m.instanceId, m.memberEpoch);
  if (outcome.kind === 'error') return answer(ctx, token, consumerHeartbeatError(outcome.errorCode, outcome.errorMessage));
  if (outcome.removed) {
    cancelConsumerTimers(ctx, entry, m.memberId);
    ctx.log.info('member left the consumer group', { groupId: m.groupId, memberId: m.memberId, instanceId: m.instanceId, groupEpoch: entry.consumer.groupEpoch });
  } else {
    // a static member gone for now keeps its partitions until it is back or its session expires
    if (outcome.member) maybeScheduleConsumerRebalance(s, ctx, entry, outcome.member);
    ctx.log.info('static member temporarily left the consumer group', { groupId: m.groupId, memberId: m.memberId, instanceId: m.instanceId });
  }
  const response: ConsumerGroupHeartbeatResponse = { type: 'ConsumerGroupHeartbeatResponse', errorCode: ErrorCode.NONE, errorMessage: null, memberId: m.memberId, memberEpoch: outcome.memberEpoch, heartbeatIntervalMs: 0, assignment: null };
  persistConsumer(s, ctx, entry, heartbeatReply(token, response));
}

/** A ConsumerGroupHeartbeat answered once its records are written (or with the write's error). */
function heartbeatReply(token: ReplyToken | null, response: ConsumerGroupHeartbeatResponse): AppendPurpose {
  return { kind: 'consumer-reply', token, response, failed: (code) => consumerHeartbeatError(code, null) };
}

/** Fences a member on a timer (session or rebalance timeout) and writes the change. */
function fenceConsumerMember(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, memberId: string, reason: string): void {
  cancelConsumerTimers(ctx, entry, memberId);
  if (entry.consumer && shouldDowngrade(s.cfg.migrationPolicy, entry.consumer, memberId, s.cfg.classicMaxSize)) {
    return downgradeToClassicGroup(s, ctx, entry, memberId, `the last member using the consumer protocol was fenced: ${reason}`, { kind: 'consumer-write' });
  }
  if (!entry.consumer?.fence(memberId)) return;
  ctx.log.info('member fenced from the consumer group', { groupId: entry.groupId, memberId, reason, groupEpoch: entry.consumer.groupEpoch });
  persistConsumer(s, ctx, entry, { kind: 'consumer-write' });
}

/**
 * Kafka's convertToConsumerGroup: the classic group's waiting JoinGroup / SyncGroup requests are
 * told to join again and its timers stop, its record gets a tombstone ahead of the consumer
 * group's records (`extra`), and its members' sessions run as consumer group members.
 */
function upgradeToConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, g: ConsumerGroup, extra: WrittenRecord[]): void {
  const now = ctx.clock.now();
  const generationId = entry.group.generationId;
  stopClassicGroup(ctx, entry, ErrorCode.REBALANCE_IN_PROGRESS);
  extra.unshift({ kind: 'group', entry, bytes: null });
  entry.persisted = null;
  entry.loaded = null;
  entry.group = new GroupMetadata(entry.groupId, { now });
  entry.consumer = g;
  entry.consumerOldestWrite = now;
  entry.consumerNeedsFullWrite = false;
  for (const member of g.members.values()) if (member.classic !== null) scheduleConsumerSession(s, ctx, entry, member.memberId);
  ctx.log.info('classic group upgraded to a consumer group', { groupId: entry.groupId, generationId, members: g.members.size });
}

/**
 * Kafka's convertToClassicGroup: every record of the consumer group gets a tombstone, the classic
 * group of its other members (classic-protocol all) is written, their classic sessions start and
 * the group rebalances so that they join again; `purpose` is settled once written. A downgrade
 * by a static classic member replacing the last consumer-protocol member (`replacedMemberId`,
 * already out of the group) keeps the assignment and does not rebalance.
 */
function downgradeToClassicGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, leavingMemberId: string, reason: string, purpose: AppendPurpose, replacedMemberId?: string): void {
  const g = entry.consumer!;
  const now = ctx.clock.now();
  const records = consumerTombstones(entry);
  if (replacedMemberId !== undefined) {
    for (const type of [ConsumerRecordType.CurrentMemberAssignment, ConsumerRecordType.TargetAssignmentMember, ConsumerRecordType.MemberMetadata]) {
      records.unshift({ kind: 'consumer', entry, key: encodeConsumerGroupKey(type, entry.groupId, replacedMemberId), value: null });
    }
  }
  const classic = classicGroupFromConsumer(g, leavingMemberId, (id) => topicName(s, g, id) || undefined, now);
  for (const id of [...entry.consumerTimers.keys()]) cancelConsumerTimers(ctx, entry, id);
  entry.consumer = null;
  entry.consumerNeedsFullWrite = false;
  entry.group = classic;
  const protocol = classic.protocolName!;
  entry.loaded = { generationId: classic.generationId, topics: topicsOfSubscriptions(CONSUMER_PROTOCOL_TYPE, classic.allMembers().map((m) => m.metadata(protocol))) };
  const assignments = new Map(classic.allMembers().map((m) => [m.memberId, m.assignment] as const));
  try {
    records.push({ kind: 'group', entry, bytes: groupMetadataBytes(entry, assignments) });
  } catch (err) {
    ctx.log.error('group metadata cannot be encoded', { groupId: entry.groupId, error: (err as Error).message });
  }
  ctx.log.info('consumer group downgraded to a classic group', { groupId: entry.groupId, generationId: classic.generationId, members: classic.size, leavingMemberId, reason });
  appendRecords(s, ctx, entry.partition, records, purpose, entry);
  for (const member of classic.allMembers()) scheduleHeartbeat(s, ctx, entry, member);
  if (replacedMemberId === undefined) prepareRebalance(s, ctx, entry, `Downgrade group ${entry.groupId} from consumer to classic.`);
}

// ---------------------------------------------------------------------------------------------
// Classic members of a consumer group (classic-members.ts)

/** A classic member's JoinGroup to a consumer group with members: checked, then applied once its topics' metadata is at hand. */
export function classicJoinConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: JoinGroupMsg, token: ReplyToken | null): void {
  const g = entry.consumer!;
  const memberId = m.memberId === '' ? randomUUID() : m.memberId;
  if (g.members.size >= s.cfg.consumerMaxSize && !g.members.has(memberId)) return answer(ctx, token, joinError(m.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED));
  if (!supportsClassicProtocols(g, m.protocolType, m.protocols.map((p) => p.name))) return answer(ctx, token, joinError(m.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
  if (m.requireKnownMemberId && m.memberId === '' && !m.groupInstanceId) {
    // KIP-394: the member learns its id first and joins again with it
    ctx.log.info('dynamic member joins the consumer group with the classic protocol: asked to join again with its new id', { groupId: m.groupId, memberId });
    return answer(ctx, token, joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED));
  }
  // decoded once: its topics are read now, the rest when it joins (a garbled one is refused then)
  const subscription = classicSubscription(m.protocols);
  const topics = subscription?.topics ?? [];
  const hb: ConsumerHeartbeatMsg = {
    type: 'ConsumerGroupHeartbeat',
    groupId: m.groupId,
    memberId,
    memberEpoch: 0,
    instanceId: m.groupInstanceId ?? null,
    rackId: null,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    subscribedTopicNames: topics,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
  };
  prepareConsumerHeartbeat(s, ctx, { m: hb, token, fetchedNames: false, fetchedAll: false, matched: null, resolved: null, classicJoin: { m, memberId, subscription } });
}

/**
 * Kafka's classicGroupJoinToConsumerGroup: the JoinGroup as a heartbeat of the group, answered
 * (once its records are written) with the member's epoch as the generation; the member must
 * sync within its rebalance timeout.
 */
function classicJoinToConsumerGroup(
  s: CoordinatorState,
  ctx: Ctx,
  { m, memberId, subscription }: { m: JoinGroupMsg; memberId: string; subscription: Subscription | null },
  token: ReplyToken | null,
  resolved: Map<string, Set<string>> | null,
): void {
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, joinError(m.memberId, err));
  const entry = s.groups.get(m.groupId);
  // the group changed kind while the topics were read: the member joins again
  if (!entry?.consumer) return answer(ctx, token, joinError(m.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
  const g = entry.consumer;
  const topic = (name: string) => s.topicCache.get(name)?.info ?? undefined;
  const join = { memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null, protocolType: m.protocolType, protocols: m.protocols, sessionTimeoutMs: m.sessionTimeoutMs, rebalanceTimeoutMs: m.rebalanceTimeoutMs, clientId: m.clientId ?? '', clientHost: m.clientHost ?? '', subscription };
  const req = classicJoinHeartbeat(g, join, topic);
  if (isClassicError(req)) return answer(ctx, token, joinError(m.memberId, req.errorCode));
  const replacing = join.groupInstanceId === null ? undefined : g.staticMember(join.groupInstanceId);
  const replacedUsedConsumerProtocol = replacing !== undefined && replacing.classic === null;
  const outcome = g.heartbeat(req, { topic, maxSize: s.cfg.consumerMaxSize, newMemberId: () => memberId, ...(resolved ? { resolvedRegexes: resolved } : {}) });
  if (outcome.kind === 'error') {
    ctx.log.debug('classic member join refused', { groupId: m.groupId, memberId, errorCode: outcome.errorCode, reason: outcome.errorMessage });
    return answer(ctx, token, joinError(m.memberId, outcome.errorCode));
  }
  const member = outcome.member!;
  if (resolved) entry.consumerRegexesResolvedAt = ctx.clock.now();
  if (outcome.replacedMemberId) cancelConsumerTimers(ctx, entry, outcome.replacedMemberId);
  // a static classic member that replaced the last consumer-protocol member: the group becomes classic again, as it stands
  if (
    outcome.replacedMemberId &&
    replacedUsedConsumerProtocol &&
    g.numClassicMembers === g.members.size &&
    isDowngradeEnabled(s.cfg.migrationPolicy) &&
    g.members.size <= s.cfg.classicMaxSize &&
    sharesProtocol(g, '')
  ) {
    const generationId = g.groupEpoch;
    const response: JoinGroupResponse = { type: 'JoinGroupResponse', errorCode: ErrorCode.NONE, generationId, protocolType: CONSUMER_PROTOCOL_TYPE, protocolName: classicProtocolName(member), leader: '', memberId: member.memberId, members: [] };
    const purpose: AppendPurpose = { kind: 'consumer-reply', token, response, failed: (code) => joinError(member.memberId, code) };
    return downgradeToClassicGroup(s, ctx, entry, '', `static member ${member.instanceId} replaced the last member using the consumer protocol`, purpose, outcome.replacedMemberId);
  }
  ctx.log.info('classic member joins the consumer group', { groupId: m.groupId, memberId: member.memberId, instanceId: member.instanceId, memberEpoch: member.memberEpoch, groupEpoch: g.groupEpoch, reason: clientReason(m.reason) });
  scheduleConsumerSession(s, ctx, entry, member.memberId);
  cancelClassicTimer(ctx, entry, member.memberId, 'join');
  scheduleClassicTimer(s, ctx, entry, member.memberId, 'sync', m.rebalanceTimeoutMs);
  const response: JoinGroupResponse = {
    type: 'JoinGroupResponse',
    errorCode: ErrorCode.NONE,
    generationId: member.memberEpoch,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    protocolName: classicProtocolName(member),
    leader: '',
    memberId: member.memberId,
    members: [],
  };
  persistConsumer(s, ctx, entry, { kind: 'consumer-reply', token, response, failed: (code) => joinError(member.memberId, code) });
}

/** Kafka's classicGroupSyncToConsumerGroup: the member's current assignment, as a ConsumerProtocol Assignment. */
export function classicSyncToConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'SyncGroup' }>, token: ReplyToken | null): void {
  const g = entry.consumer!;
  const member = findClassicMember(g, m.memberId, m.groupInstanceId ?? null);
  if (isClassicError(member)) return answer(ctx, token, syncError(member.errorCode));
  const problem = classicSyncProblem(g, member, m.generationId, m.protocolType ?? null, m.protocolName ?? null);
  if (problem === ErrorCode.REBALANCE_IN_PROGRESS) scheduleClassicTimer(s, ctx, entry, member.memberId, 'join', member.rebalanceTimeoutMs);
  if (problem !== null) return answer(ctx, token, syncError(problem));
  cancelClassicTimer(ctx, entry, member.memberId, 'sync');
  scheduleConsumerSession(s, ctx, entry, member.memberId);
  const version = subscriptionVersion(member.classic!.supportedProtocols[0]?.metadata);
  const assignment = encodeClassicAssignment(member.assigned, version, (id) => topicName(s, g, id) || undefined);
  answer(ctx, token, { type: 'SyncGroupResponse', errorCode: ErrorCode.NONE, protocolType: m.protocolType ?? CONSUMER_PROTOCOL_TYPE, protocolName: m.protocolName ?? classicProtocolName(member), assignment } satisfies SyncGroupResponse);
}

/** Kafka's classicGroupHeartbeatToConsumerGroup: REBALANCE_IN_PROGRESS when the member must join again (then within its rebalance timeout). */
export function classicHeartbeatToConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'Heartbeat' }>): number {
  const g = entry.consumer!;
  const member = findClassicMember(g, m.memberId, m.groupInstanceId ?? null);
  if (isClassicError(member)) return member.errorCode;
  if (m.generationId !== member.memberEpoch) return ErrorCode.ILLEGAL_GENERATION;
  scheduleConsumerSession(s, ctx, entry, member.memberId);
  if (!classicMustRejoin(g, member)) return ErrorCode.NONE;
  scheduleClassicTimer(s, ctx, entry, member.memberId, 'join', member.rebalanceTimeoutMs);
  return ErrorCode.REBALANCE_IN_PROGRESS;
}

/** Kafka's classicGroupLeaveToConsumerGroup: each classic member named leaves (a static one may be named by its instance id alone). */
export function classicLeaveConsumerGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, m: Extract<CoordinatorMsg, { type: 'LeaveGroup' }>, token: ReplyToken | null): void {
  const g = entry.consumer!;
  const memberErrors: number[] = [];
  const left: string[] = [];
  for (const leaving of m.members) {
    if (typeof leaving !== 'object' || leaving === null || typeof leaving.memberId !== 'string') {
      memberErrors.push(ErrorCode.INVALID_REQUEST);
      continue;
    }
    const instanceId = leaving.groupInstanceId ?? null;
    let member: ConsumerMember | ClassicError;
    if (instanceId !== null && leaving.memberId === '') {
      // an admin removing a static member by its instance id alone (Kafka's
      // removeMembersFromConsumerGroup): of either protocol, as Kafka's coordinator allows
      const named = g.staticMember(instanceId);
      member = named ?? { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Instance id ${instanceId} is unknown.` };
    } else {
      member = findClassicMember(g, leaving.memberId, instanceId);
    }
    if (isClassicError(member)) {
      memberErrors.push(member.errorCode);
      continue;
    }
    cancelConsumerTimers(ctx, entry, member.memberId);
    left.push(member.memberId);
    ctx.log.info(member.classic !== null ? 'classic member leaves the consumer group through LeaveGroup' : 'static member removed from the consumer group through LeaveGroup', { groupId: m.groupId, memberId: member.memberId, instanceId, reason: clientReason(leaving.reason) });
    memberErrors.push(ErrorCode.NONE);
  }
  // as Kafka: one epoch bump for the members of one request
  g.fenceMany(left);
  const response: LeaveGroupResponse = { type: 'LeaveGroupResponse', errorCode: memberErrors.find((c) => c !== ErrorCode.NONE) ?? ErrorCode.NONE, memberErrors };
  persistConsumer(s, ctx, entry, { kind: 'consumer-reply', token, response, failed: (code) => simple('LeaveGroupResponse', code) });
}

export function topicName(s: CoordinatorState, g: ConsumerGroup, topicId: string): string {
  for (const t of g.subscriptionMetadata.values()) if (t.topicId === topicId) return t.name;
  for (const [name, c] of s.topicCache) if (c.info?.topicId === topicId) return name;
  return '';
}

function describeConsumerGroup(s: CoordinatorState, groupId: string, g: ConsumerGroup): DescribedConsumerGroup {
  const named = (a: TopicAssignment) => topicPartitionsValue(a).map((t) => ({ ...t, topicName: topicName(s, g, t.topicId) }));
  return {
    groupId,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupState: g.state,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignorName: g.preferredAssignor(),
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      subscribedTopicRegex: m.subscribedTopicRegex,
      assignment: named(m.assigned),
      targetAssignment: named(g.targetAssignment.get(m.memberId) ?? new Map()),
      memberType: m.classic === null ? 'consumer' : 'classic',
    })),
  };
}

/** Rebuilds a consumer group from its replayed records. */
export function restoreConsumerGroup(groupId: string, r: ReplayedConsumerGroup): ConsumerGroup {
  const members: ConsumerMember[] = [];
  for (const [memberId, md] of r.members) {
    const cur = r.currents.get(memberId);
    const state = cur && (cur.state === MemberState.Stable || cur.state === MemberState.UnrevokedPartitions || cur.state === MemberState.UnreleasedPartitions) ? (cur.state as MemberState) : MemberState.Stable;
    members.push({
      memberId,
      instanceId: md.instanceId,
      rackId: md.rackId,
      clientId: md.clientId,
      clientHost: md.clientHost,
      rebalanceTimeoutMs: md.rebalanceTimeoutMs,
      serverAssignor: md.serverAssignor,
      subscribedTopicNames: [...md.subscribedTopicNames],
      subscribedTopicRegex: md.subscribedTopicRegex,
      memberEpoch: cur?.memberEpoch ?? 0,
      previousMemberEpoch: cur?.previousMemberEpoch ?? 0,
      state,
      assigned: topicAssignmentOf(cur?.assigned ?? []),
      pendingRevocation: topicAssignmentOf(cur?.pendingRevocation ?? []),
      classic: md.classicMemberMetadata,
    });
  }
  const targets = new Map([...r.targets].map(([id, v]) => [id, topicAssignmentOf(v)] as const));
  return ConsumerGroup.restore(groupId, { epoch: r.epoch ?? 0, subscriptionMetadata: r.subscriptionMetadata, assignmentEpoch: r.assignmentEpoch, members, targets });
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function handleConsumerGroupHeartbeat(s: CoordinatorState, raw: MsgOf<'ConsumerGroupHeartbeat'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  // a nullable field left out (the schema lets it be absent) is null from here on
  const m: MsgOf<'ConsumerGroupHeartbeat'> = {
    ...raw,
    instanceId: raw.instanceId ?? null,
    rackId: raw.rackId ?? null,
    subscribedTopicNames: raw.subscribedTopicNames ?? null,
    serverAssignor: raw.serverAssignor ?? null,
    topicPartitions: raw.topicPartitions ?? null,
  };
  if (s.groupVersion < 1) return answer(ctx, token, consumerHeartbeatError(ErrorCode.UNSUPPORTED_VERSION, CONSUMER_PROTOCOL_OFF));
  const invalid = validateConsumerHeartbeat(m);
  if (invalid) return answer(ctx, token, consumerHeartbeatError(invalid.errorCode, invalid.message));
  if (m.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || m.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) return consumerLeave(s, ctx, m, token);
  const err = validateGroupStatus(s, m.groupId, false);
  if (err !== null) return answer(ctx, token, consumerHeartbeatError(err, null));
  prepareConsumerHeartbeat(s, ctx, { m, token, fetchedNames: false, fetchedAll: false, matched: null, resolved: null });
}

export function handleConsumerTopicsFetched(s: CoordinatorState, m: MsgOf<'ConsumerTopicsFetched'>, ctx: HandlerCtx): void {
  const waiting = s.awaitingTopics.get(m.fetchId);
  if (!waiting) return;
  s.awaitingTopics.delete(m.fetchId);
  if (m.topics === null) return failPending(ctx, waiting, ErrorCode.COORDINATOR_NOT_AVAILABLE, 'the topics could not be read from the metadata');
  const now = ctx.clock.now();
  const byName = new Map(m.topics.map((t) => [t.name, t] as const));
  // the whole list also says which cached topics are gone
  const names = m.names ?? [...new Set([...s.topicCache.keys(), ...byName.keys()])];
  for (const name of names) {
    const t = byName.get(name);
    s.topicCache.set(name, { info: t ? { topicId: t.topicId, name, numPartitions: t.numPartitions } : null, at: now });
  }
  if (m.names === null) {
    s.clusterTopics = { topics: m.topics, at: now };
    waiting.fetchedAll = true;
  } else {
    waiting.fetchedNames = true;
  }
  prepareConsumerHeartbeat(s, ctx, waiting);
}

export function handleConsumerRegexTopicsAuthorized(s: CoordinatorState, m: MsgOf<'ConsumerRegexTopicsAuthorized'>, ctx: HandlerCtx): void {
  const waiting = s.awaitingTopics.get(m.fetchId);
  if (!waiting) return;
  s.awaitingTopics.delete(m.fetchId);
  if (m.allowed === null || waiting.matched === null) return answer(ctx, waiting.token, consumerHeartbeatError(ErrorCode.COORDINATOR_NOT_AVAILABLE, "the member's access to its regular expression's topics could not be checked"));
  waiting.resolved = onlyAllowed(waiting.matched, m.allowed);
  prepareConsumerHeartbeat(s, ctx, waiting);
}

export function handleConsumerSessionDeadline(s: CoordinatorState, m: MsgOf<'ConsumerSessionDeadline'>, ctx: HandlerCtx): void {
  const entry = s.groups.get(m.groupId);
  if (!entry?.consumer || entry.consumerTimers.get(m.memberId)?.sessionSeq !== m.seq) return;
  fenceConsumerMember(s, ctx, entry, m.memberId, 'the member session expired');
}

export function handleConsumerRebalanceDeadline(s: CoordinatorState, m: MsgOf<'ConsumerRebalanceDeadline'>, ctx: HandlerCtx): void {
  const entry = s.groups.get(m.groupId);
  if (!entry?.consumer || entry.consumerTimers.get(m.memberId)?.rebalance?.seq !== m.seq) return;
  const member = entry.consumer.members.get(m.memberId);
  if (!member || member.memberEpoch !== m.memberEpoch) return;
  fenceConsumerMember(s, ctx, entry, m.memberId, `it failed to transition from epoch ${m.memberEpoch} within ${member.rebalanceTimeoutMs}ms`);
}

export function handleConsumerClassicDeadline(s: CoordinatorState, m: MsgOf<'ConsumerClassicDeadline'>, ctx: HandlerCtx): void {
  const entry = s.groups.get(m.groupId);
  if (!entry?.consumer || entry.consumerTimers.get(m.memberId)?.[m.phase] !== m.seq) return;
  fenceConsumerMember(s, ctx, entry, m.memberId, m.phase === 'join' ? 'the classic member failed to join within the rebalance timeout' : 'the member failed to sync within timeout');
}

export function handleConsumerGroupDescribe(s: CoordinatorState, m: MsgOf<'ConsumerGroupDescribe'>, ctx: HandlerCtx): void {
  const groups: DescribedConsumerGroup[] = m.groups.map((groupId) => {
    const none = (errorCode: number, errorMessage: string | null): DescribedConsumerGroup => ({ groupId: String(groupId), errorCode, errorMessage, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [] });
    if (s.groupVersion < 1) return none(ErrorCode.UNSUPPORTED_VERSION, CONSUMER_PROTOCOL_OFF);
    const err = validateGroupStatus(s, groupId, true);
    if (err !== null) return none(err, null);
    const entry = s.groups.get(groupId);
    if (!entry?.consumer) return none(ErrorCode.GROUP_ID_NOT_FOUND, entry ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`);
    return describeConsumerGroup(s, groupId, entry.consumer);
  });
  ctx.reply({ type: 'ConsumerGroupDescribeResponse', errorCode: ErrorCode.NONE, groups } satisfies ConsumerGroupDescribeResponse);
}

export function handleGroupVersionChanged(s: CoordinatorState, m: MsgOf<'GroupVersionChanged'>, ctx: HandlerCtx): void {
  if (m.level === s.groupVersion) return;
  ctx.log.info(m.level >= 1 ? 'consumer group protocol on (group.version 1)' : 'consumer group protocol off (group.version 0)', { groupVersion: m.level });
  s.groupVersion = m.level;
}
