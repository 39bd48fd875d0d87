/**
 * KIP-932's share group APIs, as Kafka 4.2's KafkaApis answers them: ShareGroupHeartbeat (api key
 * 76, v1) and ShareGroupDescribe (77, v1), answered by this broker's group coordinator
 * (NOT_COORDINATOR for a group it does not own); ShareFetch (78, v1-v2) and ShareAcknowledge (79,
 * v1-v2), answered by this broker's share partition manager with the member's share session
 * (src/kafka/share-sessions.ts) kept here.
 *
 * ShareFetch: a null or empty group or member id is INVALID_REQUEST; epoch 0 opens the member's
 * session with the request's partitions (acknowledgements with it are INVALID_REQUEST; a full
 * cache SHARE_SESSION_LIMIT_REACHED), a later epoch must be the session's next
 * (INVALID_SHARE_SESSION_EPOCH; no session: SHARE_SESSION_NOT_FOUND) and adds the request's
 * partitions to the session and takes its forgotten ones out, then fetches every partition of
 * the session; epoch -1 applies the acknowledgements, fetches nothing and closes the session,
 * whose member's acquired records go back to the group (so do those a long poll acquires after
 * the session ended with its connection). Acknowledgements of partitions being
 * forgotten are applied without fetching them. The answer to an incremental fetch holds the
 * partitions with records or an error, and those acknowledged. Acquire mode 1 (record limit,
 * v2) is answered as mode 0: the manager never acquires more than MaxRecords anyway. A renewal
 * (KIP-1222, v2: acknowledge type 4 in a request marked IsRenewAck) keeps the records the member's
 * for another lock duration; a renewing ShareFetch must have its limits at 0 and fetches nothing,
 * as Kafka's; type 4 in a request not so marked is INVALID_REQUEST.
 * ShareAcknowledge: the same checks; epoch 0 is INVALID_SHARE_SESSION_EPOCH, -1 closes the session
 * once its acknowledgements are applied. A partition answered NOT_LEADER_OR_FOLLOWER or
 * FENCED_LEADER_EPOCH names its current leader and epoch (leader-hints.ts) and the response those
 * leaders' endpoints; one the metadata does not have is UNKNOWN_TOPIC_OR_PARTITION.
 *
 * With an authorizer, as Kafka: ShareGroupHeartbeat needs READ on the group
 * (GROUP_AUTHORIZATION_FAILED) and DESCRIBE on every topic it subscribes to
 * (TOPIC_AUTHORIZATION_FAILED); ShareGroupDescribe DESCRIBE on each group and on every topic a
 * described group's members subscribe to or are assigned; ShareFetch and ShareAcknowledge READ on
 * the group (the whole request refused) and READ on each topic (its partitions'
 * TOPIC_AUTHORIZATION_FAILED, for the fetch and for the acknowledgement).
 */
import type { CoordinatorMsg, ShareGroupDescribeResponse, ShareGroupHeartbeatResponse } from '../../../actors/group-coordinator/messages.js';
import type { AcknowledgementBatch, ShareAcknowledgeResult, ShareFetchPartition, ShareFetchResult, ShareManagerMsg } from '../../../actors/share-partition/messages.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { SHARE_GROUPS_OFF } from '../../protocol/features.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys, type ResponseInput } from '../protocol/index.js';
import { SHARE_FINAL_EPOCH, SHARE_INITIAL_EPOCH, sessionPartitionKey, type SessionPartition, type ShareSession } from '../share-sessions.js';
import { deniedNames, groupAuthorizedOperations, OPERATIONS_NOT_REQUESTED } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';
import { hintsFrom, needsLeaderHint } from './leader-hints.js';
import { fetchClusterMetadata } from './metadata.js';

// ---------------------------------------------------------------------------------------------
// ShareGroupHeartbeat, ShareGroupDescribe

function heartbeatError(errorCode: number, errorMessage: string | null) {
  return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
}

export const shareGroupHeartbeat: ApiHandler<typeof ApiKeys.ShareGroupHeartbeat> = async (ctx, _version, body) => {
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return heartbeatError(ErrorCode.GROUP_AUTHORIZATION_FAILED, errorInfo(ErrorCode.GROUP_AUTHORIZATION_FAILED).message);
  // as Kafka: a member may not subscribe to topics it may not see (DESCRIBE on each named)
  const hidden = [...new Set(body.subscribedTopicNames ?? [])].filter((t) => !ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, t));
  if (hidden.length > 0) return heartbeatError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, `not authorized to describe ${hidden.sort().join(', ')}`);
  const r = await ctx.ask<CoordinatorMsg, ShareGroupHeartbeatResponse>(
    ctx.coordinator,
    {
      type: 'ShareGroupHeartbeat',
      groupId: body.groupId,
      memberId: body.memberId,
      memberEpoch: body.memberEpoch,
      rackId: body.rackId ?? null,
      subscribedTopicNames: body.subscribedTopicNames ?? null,
      clientId: ctx.clientId ?? '',
      clientHost: ctx.clientHost,
    },
    ctx.config.requestTimeoutMs,
  );
  if (isFailure(r)) return heartbeatError(r.errorCode, r.message);
  if (r.errorCode !== ErrorCode.NONE) return heartbeatError(r.errorCode, r.errorMessage ?? errorInfo(r.errorCode).message);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: r.memberId,
    memberEpoch: r.memberEpoch,
    heartbeatIntervalMs: r.heartbeatIntervalMs,
    assignment: r.assignment === null ? null : { topicPartitions: r.assignment.map((t) => ({ topicId: t.topicId, partitions: t.partitions })) },
  };
};

export const shareGroupDescribe: ApiHandler<typeof ApiKeys.ShareGroupDescribe> = async (ctx, _version, body) => {
  type Described = NonNullable<ResponseInput<typeof ApiKeys.ShareGroupDescribe>['groups']> extends readonly (infer E)[] ? E : never;
  const empty = (groupId: string, errorCode: number, errorMessage: string | null): Described => ({
    errorCode,
    errorMessage,
    groupId,
    groupState: '',
    groupEpoch: 0,
    assignmentEpoch: 0,
    assignorName: '',
    members: [],
    authorizedOperations: OPERATIONS_NOT_REQUESTED,
  });
  const refused = body.groupIds.filter((g) => !ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, g));
  const asked = body.groupIds.filter((g) => !refused.includes(g));
  const out: Described[] = refused.map((g) => empty(g, ErrorCode.GROUP_AUTHORIZATION_FAILED, errorInfo(ErrorCode.GROUP_AUTHORIZATION_FAILED).message));
  if (asked.length === 0) return { throttleTimeMs: 0, groups: out };
  const r = await ctx.ask<CoordinatorMsg, ShareGroupDescribeResponse>(ctx.coordinator, { type: 'ShareGroupDescribe', groups: asked }, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return { throttleTimeMs: 0, groups: [...out, ...asked.map((g) => empty(g, r.errorCode, r.message))] };
  for (const g of r.groups) {
    if (g.errorCode !== ErrorCode.NONE) {
      out.push(empty(g.groupId, g.errorCode, g.errorMessage));
      continue;
    }
    // as Kafka: a group is described only to a client that may see every topic it uses
    const used = new Set(g.members.flatMap((m) => [...m.subscribedTopicNames, ...m.assignment.map((t) => t.topicName)]));
    if ([...used].some((t) => !ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, t, false))) {
      out.push(empty(g.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The group has described topic(s) that the client is not authorized to describe.'));
      continue;
    }
    out.push({
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      groupId: g.groupId,
      groupState: g.groupState,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.assignmentEpoch,
      assignorName: g.assignorName,
      authorizedOperations: body.includeAuthorizedOperations ? groupAuthorizedOperations(ctx, g.groupId) : OPERATIONS_NOT_REQUESTED,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        assignment: { topicPartitions: m.assignment.map((t) => ({ topicId: t.topicId, topicName: t.topicName, partitions: t.partitions })) },
      })),
    });
  }
  return { throttleTimeMs: 0, groups: out };
};

// ---------------------------------------------------------------------------------------------
// ShareFetch, ShareAcknowledge: what both share

/** Kafka's AcknowledgeType: Gap 0, Accept 1, Release 2, Reject 3; Renew 4 (KIP-1222) from v2, in a request marked IsRenewAck. */
const RENEW = 4;

interface RequestPartition extends SessionPartition {
  batches: AcknowledgementBatch[];
}

interface PartitionOutcome extends SessionPartition {
  topic: string;
  errorCode: number;
  errorMessage: string | null;
  acknowledged: boolean;
  acknowledgeErrorCode: number;
  acknowledgeErrorMessage: string | null;
  records: Uint8Array;
  acquiredRecords: { firstOffset: number; lastOffset: number; deliveryCount: number }[];
  currentLeader: { leaderId: number; leaderEpoch: number };
}

const EMPTY = Buffer.alloc(0);
const NO_LEADER = { leaderId: -1, leaderEpoch: -1 } as const;

function outcome(p: SessionPartition): PartitionOutcome {
  return {
    topicId: p.topicId,
    partition: p.partition,
    topic: '',
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    acknowledged: false,
    acknowledgeErrorCode: ErrorCode.NONE,
    acknowledgeErrorMessage: null,
    records: EMPTY,
    acquiredRecords: [],
    currentLeader: { ...NO_LEADER },
  };
}

/** The request's partitions in its order, each once (a partition named twice keeps its acknowledgements from both). */
function requestPartitions(topics: readonly { topicId: string; partitions: readonly { partitionIndex: number; acknowledgementBatches: readonly AcknowledgementBatch[] }[] }[]): RequestPartition[] {
  const byKey = new Map<string, RequestPartition>();
  for (const t of topics) {
    for (const p of t.partitions) {
      const key = sessionPartitionKey({ topicId: t.topicId, partition: p.partitionIndex });
      const batches = p.acknowledgementBatches.map((b) => ({ firstOffset: b.firstOffset, lastOffset: b.lastOffset, acknowledgeTypes: [...b.acknowledgeTypes] }));
      const had = byKey.get(key);
      if (had) had.batches.push(...batches);
      else byKey.set(key, { topicId: t.topicId, partition: p.partitionIndex, batches });
    }
  }
  return [...byKey.values()];
}

/**
 * Kafka's KafkaApis.validateAcknowledgementBatches: each batch's offsets in order and after the
 * previous batch's, one acknowledge type or one per offset, each a known type. Null when valid,
 * else why not (the partition's acknowledgement is INVALID_REQUEST).
 */
export function invalidAcknowledgement(batches: readonly AcknowledgementBatch[], version: number, renew: boolean): string | null {
  const maxType = version >= 2 ? RENEW : RENEW - 1;
  let prevEnd = -1;
  for (const b of batches) {
    const range = `${b.firstOffset}-${b.lastOffset}`;
    if (b.firstOffset > b.lastOffset) return `acknowledgement batch ${range}: its first offset is after its last`;
    if (b.firstOffset < prevEnd) return `acknowledgement batch ${range} overlaps the one before it`;
    if (b.acknowledgeTypes.length === 0) return `acknowledgement batch ${range} has no acknowledge types`;
    if (b.acknowledgeTypes.length > 1 && b.lastOffset - b.firstOffset !== b.acknowledgeTypes.length - 1) return `acknowledgement batch ${range}: ${b.acknowledgeTypes.length} acknowledge types, expected 1 or ${b.lastOffset - b.firstOffset + 1}`;
    const bad = b.acknowledgeTypes.find((t) => t < 0 || t > maxType);
    if (bad !== undefined) return `acknowledgement batch ${range}: unknown acknowledge type ${bad}`;
    if (!renew && b.acknowledgeTypes.includes(RENEW)) return `acknowledgement batch ${range}: a Renew acknowledgement needs a request marked IsRenewAck`;
    prevEnd = b.lastOffset;
  }
  return null;
}

/** Names the partitions' topics from their ids, and says which topics the client may not READ. */
async function resolveTopics(ctx: ApiContext, partitions: readonly SessionPartition[]): Promise<{ names: Map<string, string>; denied: Set<string> | null }> {
  const ids = await ctx.topicIds.resolve(
    partitions.map((p) => p.topicId),
    async () => (await fetchClusterMetadata(ctx, null))?.topics ?? null,
  );
  const names = new Map<string, string>();
  for (const [id, t] of ids) names.set(id, t.name);
  return { names, denied: deniedNames(ctx, AclOperation.READ, ResourceType.TOPIC, names.values(), (n) => n) };
}

/** Why a partition's topic may not be used: its id unknown, or READ refused; null when it may. */
function topicRefusal(names: Map<string, string>, denied: Set<string> | null, topicId: string): { errorCode: number; errorMessage: string } | null {
  const name = names.get(topicId);
  if (name === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: errorInfo(ErrorCode.UNKNOWN_TOPIC_ID).message };
  if (denied?.has(name)) return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: errorInfo(ErrorCode.TOPIC_AUTHORIZATION_FAILED).message };
  return null;
}

/**
 * KIP-951 hints for the partitions whose leader moved (their fetch or acknowledgement answered
 * NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH): the current leader and epoch from the metadata,
 * or UNKNOWN_TOPIC_OR_PARTITION for a partition it does not have (as Kafka checks its metadata
 * first). The endpoints of the leaders named.
 */
async function hintLeaders(ctx: ApiContext, outcomes: readonly PartitionOutcome[]): Promise<{ nodeId: number; host: string; port: number; rack: string | null }[]> {
  const moved = (o: PartitionOutcome) => needsLeaderHint(o.errorCode) || needsLeaderHint(o.acknowledgeErrorCode);
  const topics = [...new Set(outcomes.filter(moved).map((o) => o.topic))];
  if (topics.length === 0) return [];
  const md = await fetchClusterMetadata(ctx, topics);
  if (!md) return [];
  const hints = hintsFrom(md);
  for (const o of outcomes) {
    if (!moved(o)) continue;
    const known = md.topics.find((t) => t.name === o.topic)?.partitions.some((p) => p.partition === o.partition) ?? false;
    if (!known) {
      const unknown = { code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, message: errorInfo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION).message };
      if (needsLeaderHint(o.errorCode)) [o.errorCode, o.errorMessage] = [unknown.code, unknown.message];
      if (needsLeaderHint(o.acknowledgeErrorCode)) [o.acknowledgeErrorCode, o.acknowledgeErrorMessage] = [unknown.code, unknown.message];
      continue;
    }
    const leader = hints.leaderOf(o.topic, o.partition);
    if (leader) o.currentLeader = leader;
  }
  return hints.endpoints();
}

/** Outcomes grouped into topics (consecutive partitions of a topic together), as Kafka's responses. */
function byTopic<P>(outcomes: readonly PartitionOutcome[], partition: (o: PartitionOutcome) => P): { topicId: string; partitions: P[] }[] {
  const topics: { topicId: string; partitions: P[] }[] = [];
  let last: (typeof topics)[number] | undefined;
  for (const o of outcomes) {
    if (!last || last.topicId !== o.topicId) {
      last = { topicId: o.topicId, partitions: [] };
      topics.push(last);
    }
    last.partitions.push(partition(o));
  }
  return topics;
}

/** The first checks of ShareFetch and ShareAcknowledge: the group and member ids, READ on the group. Null when they pass. */
function requestRefusal(ctx: ApiContext, groupId: string | null, memberId: string | null): { errorCode: number; errorMessage: string } | null {
  if (groupId === null || groupId === '') return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The group id is missing.' };
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: errorInfo(ErrorCode.GROUP_AUTHORIZATION_FAILED).message };
  if (memberId === null || memberId === '') return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The member id is missing.' };
  return null;
}

/** A session error, with Kafka's message. */
function sessionRefusal(errorCode: number): { errorCode: number; errorMessage: string } {
  return { errorCode, errorMessage: errorInfo(errorCode).message };
}

/** What the member was last told its locks last: the session's, else the manager's answer. */
function lockTimeout(session: ShareSession | undefined): number {
  return session && session.acquisitionLockTimeoutMs >= 0 ? session.acquisitionLockTimeoutMs : 0;
}

// ---------------------------------------------------------------------------------------------
// ShareFetch

type ShareFetchAnswer = ResponseInput<typeof ApiKeys.ShareFetch>;

function shareFetchError(errorCode: number, errorMessage: string | null, acquisitionLockTimeoutMs = 0): ShareFetchAnswer {
  return { throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs, responses: [], nodeEndpoints: [] };
}

export const shareFetch: ApiHandler<typeof ApiKeys.ShareFetch> = async (ctx, version, body) => {
  // the cluster's share.version at 0, as the broker told this listener (Kafka's isShareGroupProtocolEnabled, checked first)
  if (!ctx.shareSessions.enabled) return shareFetchError(ErrorCode.UNSUPPORTED_VERSION, SHARE_GROUPS_OFF);
  const refusal = requestRefusal(ctx, body.groupId, body.memberId);
  if (refusal) return shareFetchError(refusal.errorCode, refusal.errorMessage);
  const groupId = body.groupId!;
  const memberId = body.memberId!;
  // v2 (KIP-1206): 0 batch optimized, 1 record limit; Kafka refuses another
  const acquireMode = version >= 2 ? body.shareAcquireMode : 0;
  if (acquireMode !== 0 && acquireMode !== 1) return shareFetchError(ErrorCode.INVALID_REQUEST, `unknown share acquire mode ${acquireMode}`);
  const renew = version >= 2 && body.isRenewAck;
  if (renew) {
    // KIP-1222: a renewing fetch only acknowledges, and says so with its limits at 0
    const nonZero = (['maxBytes', 'minBytes', 'maxRecords', 'maxWaitMs'] as const).filter((k) => body[k] !== 0);
    if (nonZero.length > 0) return shareFetchError(ErrorCode.INVALID_REQUEST, `${nonZero.map((k) => `${k} must be set to 0, `).join('')}if isRenewAck is true.`);
  }
  const requested = requestPartitions(body.topics);
  const forgotten = body.forgottenTopicsData.flatMap((t) => t.partitions.map((partition) => ({ topicId: t.topicId, partition })));
  const acks = requested.filter((p) => p.batches.length > 0);

  // the share session (Kafka's SharePartitionManager.newContext)
  const epoch = body.shareSessionEpoch;
  const sessions = ctx.shareSessions;
  let session: ShareSession | undefined;
  let fetching: SessionPartition[];
  if (epoch === SHARE_INITIAL_EPOCH) {
    if (acks.length > 0) return shareFetchError(ErrorCode.INVALID_REQUEST, 'A share session cannot be opened with acknowledgements.');
    session = sessions.open(groupId, memberId, requested, ctx.connectionId) ?? undefined;
    if (!session) return shareFetchError(ErrorCode.SHARE_SESSION_LIMIT_REACHED, `The limit of share sessions (${sessions.maxEntries}) has been reached.`);
    fetching = requested;
  } else {
    session = sessions.get(groupId, memberId);
    if (!session) return shareFetchError(sessionRefusal(ErrorCode.SHARE_SESSION_NOT_FOUND).errorCode, sessionRefusal(ErrorCode.SHARE_SESSION_NOT_FOUND).errorMessage);
    if (epoch === SHARE_FINAL_EPOCH) fetching = [];
    else {
      if (session.epoch !== epoch) return shareFetchError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, `The share session epoch is invalid: expected ${session.epoch}, got ${epoch}.`);
      sessions.update(session, requested, forgotten);
      fetching = [...session.partitions.values()];
    }
  }
  // a renewal fetches nothing (Kafka's renew-ack fetch acknowledges only)
  if (renew) fetching = [];

  const outcomes = new Map<string, PartitionOutcome>();
  const outcomeOf = (p: SessionPartition) => {
    const key = sessionPartitionKey(p);
    let o = outcomes.get(key);
    if (!o) outcomes.set(key, (o = outcome(p)));
    return o;
  };
  const { names, denied } = await resolveTopics(ctx, [...fetching, ...acks]);
  const asks = new Map<string, ShareFetchPartition>();
  for (const p of fetching) {
    const o = outcomeOf(p);
    o.topic = names.get(p.topicId) ?? '';
    const no = topicRefusal(names, denied, p.topicId);
    if (no) [o.errorCode, o.errorMessage] = [no.errorCode, no.errorMessage];
    else asks.set(sessionPartitionKey(p), { topic: o.topic, topicId: p.topicId, partition: p.partition, acknowledgementBatches: [], fetch: true });
  }
  for (const p of acks) {
    const o = outcomeOf(p);
    o.topic = names.get(p.topicId) ?? '';
    o.acknowledged = true;
    const invalid = invalidAcknowledgement(p.batches, version, renew);
    const no = invalid !== null ? { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: invalid } : topicRefusal(names, denied, p.topicId);
    if (no) {
      [o.acknowledgeErrorCode, o.acknowledgeErrorMessage] = [no.errorCode, no.errorMessage];
      continue;
    }
    const key = sessionPartitionKey(p);
    const ask = asks.get(key);
    // a partition acknowledged and not fetched (forgotten, or the session closing): acknowledged only
    if (ask) ask.acknowledgementBatches = p.batches;
    else asks.set(key, { topic: o.topic, topicId: p.topicId, partition: p.partition, acknowledgementBatches: p.batches, fetch: false });
  }

  const maxBytes = Math.max(0, body.maxBytes);
  const maxWaitMs = Math.max(0, body.maxWaitMs);
  const r = await ctx.ask<ShareManagerMsg, ShareFetchResult>(
    ctx.shareManager,
    {
      type: 'ShareFetch',
      groupId,
      memberId,
      maxWaitMs,
      minBytes: Math.min(Math.max(0, body.minBytes), maxBytes),
      maxBytes,
      maxRecords: Math.max(0, body.maxRecords),
      partitions: [...asks.values()],
    },
    maxWaitMs + ctx.config.requestTimeoutMs,
  );
  if (isFailure(r)) return shareFetchError(r.errorCode, r.message, lockTimeout(session));
  if (r.errorCode !== ErrorCode.NONE) return shareFetchError(r.errorCode, r.errorMessage ?? errorInfo(r.errorCode).message, lockTimeout(session));
  for (const pr of r.partitions) {
    const o = outcomes.get(sessionPartitionKey(pr));
    if (!o) continue;
    const ask = asks.get(sessionPartitionKey(pr));
    if (ask?.fetch) {
      [o.errorCode, o.errorMessage] = [pr.errorCode, pr.errorCode === ErrorCode.NONE ? null : pr.errorMessage];
      o.records = pr.records;
      o.acquiredRecords = pr.acquiredRecords.map((a) => ({ firstOffset: a.firstOffset, lastOffset: a.lastOffset, deliveryCount: a.deliveryCount }));
    }
    if (ask && ask.acknowledgementBatches.length > 0) [o.acknowledgeErrorCode, o.acknowledgeErrorMessage] = [pr.acknowledgeErrorCode, pr.acknowledgeErrorCode === ErrorCode.NONE ? null : pr.acknowledgeErrorMessage];
  }
  if (epoch === SHARE_FINAL_EPOCH) {
    // the acknowledgements are applied: the session ends, and what the member still holds goes back
    sessions.close(groupId, memberId);
  } else {
    session.acquisitionLockTimeoutMs = r.acquisitionLockTimeoutMs;
    // a long poll answered after the session ended (its connection closed, or the member closed
    // it meanwhile): what it acquired will never be acknowledged, and goes back at once
    if (r.partitions.some((p) => p.acquiredRecords.length > 0)) sessions.releaseOrphaned(groupId, memberId);
  }

  // an incremental fetch answers the partitions with records or an error, and those acknowledged
  // (Kafka's CachedSharePartition.maybeUpdateResponseData); the first fetch every partition
  const all = [...outcomes.values()];
  const answered = epoch === SHARE_INITIAL_EPOCH ? all : all.filter((o) => o.acknowledged || o.records.length > 0 || o.acquiredRecords.length > 0 || o.errorCode !== ErrorCode.NONE);
  const nodeEndpoints = await hintLeaders(ctx, answered);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    acquisitionLockTimeoutMs: r.acquisitionLockTimeoutMs,
    responses: byTopic(answered, (o) => ({
      partitionIndex: o.partition,
      errorCode: o.errorCode,
      errorMessage: o.errorMessage,
      acknowledgeErrorCode: o.acknowledgeErrorCode,
      acknowledgeErrorMessage: o.acknowledgeErrorMessage,
      currentLeader: o.currentLeader,
      records: o.records as Buffer,
      acquiredRecords: o.acquiredRecords,
    })),
    nodeEndpoints,
  };
};

// ---------------------------------------------------------------------------------------------
// ShareAcknowledge

type ShareAcknowledgeAnswer = ResponseInput<typeof ApiKeys.ShareAcknowledge>;

function shareAcknowledgeError(errorCode: number, errorMessage: string | null, acquisitionLockTimeoutMs = 0): ShareAcknowledgeAnswer {
  return { throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs, responses: [], nodeEndpoints: [] };
}

export const shareAcknowledge: ApiHandler<typeof ApiKeys.ShareAcknowledge> = async (ctx, version, body) => {
  if (!ctx.shareSessions.enabled) return shareAcknowledgeError(ErrorCode.UNSUPPORTED_VERSION, SHARE_GROUPS_OFF);
  const refusal = requestRefusal(ctx, body.groupId, body.memberId);
  if (refusal) return shareAcknowledgeError(refusal.errorCode, refusal.errorMessage);
  const groupId = body.groupId!;
  const memberId = body.memberId!;
  const renew = version >= 2 && body.isRenewAck;

  // the share session (Kafka's SharePartitionManager.acknowledgeSessionUpdate)
  const epoch = body.shareSessionEpoch;
  const sessions = ctx.shareSessions;
  if (epoch === SHARE_INITIAL_EPOCH) return shareAcknowledgeError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, 'A ShareAcknowledge cannot open a share session (epoch 0).');
  const session = sessions.get(groupId, memberId);
  if (!session) return shareAcknowledgeError(ErrorCode.SHARE_SESSION_NOT_FOUND, errorInfo(ErrorCode.SHARE_SESSION_NOT_FOUND).message);
  if (epoch !== SHARE_FINAL_EPOCH) {
    if (session.epoch !== epoch) return shareAcknowledgeError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, `The share session epoch is invalid: expected ${session.epoch}, got ${epoch}.`);
    sessions.advance(session);
  }

  const requested = requestPartitions(body.topics);
  const { names, denied } = await resolveTopics(ctx, requested);
  const outcomes: PartitionOutcome[] = [];
  const asks: (ShareFetchPartition & { outcome: PartitionOutcome })[] = [];
  for (const p of requested) {
    const o = outcome(p);
    o.topic = names.get(p.topicId) ?? '';
    outcomes.push(o);
    const invalid = invalidAcknowledgement(p.batches, version, renew);
    const no = invalid !== null ? { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: invalid } : topicRefusal(names, denied, p.topicId);
    if (no) [o.errorCode, o.errorMessage] = [no.errorCode, no.errorMessage];
    else asks.push({ topic: o.topic, topicId: p.topicId, partition: p.partition, acknowledgementBatches: p.batches, fetch: false, outcome: o });
  }
  if (asks.length > 0) {
    const r = await ctx.ask<ShareManagerMsg, ShareAcknowledgeResult>(
      ctx.shareManager,
      { type: 'ShareAcknowledge', groupId, memberId, partitions: asks.map((a) => ({ topic: a.topic, topicId: a.topicId, partition: a.partition, acknowledgementBatches: a.acknowledgementBatches })) },
      ctx.config.requestTimeoutMs,
    );
    if (isFailure(r)) return shareAcknowledgeError(r.errorCode, r.message, lockTimeout(session));
    if (r.errorCode !== ErrorCode.NONE) return shareAcknowledgeError(r.errorCode, r.errorMessage ?? errorInfo(r.errorCode).message, lockTimeout(session));
    if (r.acquisitionLockTimeoutMs > 0) session.acquisitionLockTimeoutMs = r.acquisitionLockTimeoutMs;
    for (const a of asks) {
      const pr = r.partitions.find((x) => x.topicId === a.topicId && x.partition === a.partition);
      if (!pr) [a.outcome.errorCode, a.outcome.errorMessage] = [ErrorCode.UNKNOWN_SERVER_ERROR, 'the share partition manager did not answer for this partition'];
      else [a.outcome.errorCode, a.outcome.errorMessage] = [pr.errorCode, pr.errorCode === ErrorCode.NONE ? null : pr.errorMessage];
    }
  }
  // the acknowledgements are applied: a closing session ends, and what the member still holds goes back
  if (epoch === SHARE_FINAL_EPOCH) sessions.close(groupId, memberId);
  const nodeEndpoints = await hintLeaders(ctx, outcomes);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    // v2: how long the acquired records stay the member's (the group's lock duration, as the manager tells it)
    acquisitionLockTimeoutMs: lockTimeout(session),
    responses: byTopic(outcomes, (o) => ({ partitionIndex: o.partition, errorCode: o.errorCode, errorMessage: o.errorMessage, currentLeader: o.currentLeader })),
    nodeEndpoints,
  };
};
