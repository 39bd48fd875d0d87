/**
 * Fetch (api key 1, v4-v17) for consumers: one broker-level Fetch (long-poll: max.wait.ms,
 * min.bytes, max.bytes, per-partition max bytes) whose stored batches go back as the same bytes.
 * Incremental fetch sessions (KIP-227, v7+; fetch-sessions.ts), as Kafka's FetchManager keeps
 * them: epoch 0 is a full fetch that opens a session (closing one it names), -1 a full fetch
 * without one; a later epoch is an incremental fetch that updates the session's partitions,
 * forgets those named, reads them all and answers only those with something new (partitions that
 * got records move to the back, so each gets its turn under max.bytes). An unknown session is
 * FETCH_SESSION_ID_NOT_FOUND, a wrong epoch (or a duplicate request) INVALID_FETCH_SESSION_EPOCH,
 * and a session used across the topic-id change of v13 FETCH_SESSION_TOPIC_ID_ERROR; a session
 * whose last partition is forgotten is closed. Without transactions the last stable offset
 * is the high watermark and no transaction was ever aborted. From v11 the consumer's rack comes
 * along (KIP-392): such a consumer may read from a follower here (up to its high watermark), and
 * a leader with replica.selector.class set to the rack-aware selector answers a consumer of another
 * rack with a preferred read replica in its rack and no records.
 * From v12 (KIP-951) a partition answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH names its
 * current leader and epoch (leader-hints.ts), and from v16 the response carries those leaders'
 * endpoints. From v13 topics are named by id (KIP-516; topic-id-resolver.ts): an id this broker
 * does not know is UNKNOWN_TOPIC_ID, and the broker checks the topic still has that id, so a
 * topic deleted and made again under its name is not read in its place. v15 carries the replica id
 * in a replica state (KIP-903); v17's replica directory id is KRaft's and ignored, as Kafka's
 * brokers do for consumers.
 * With an authorizer, as Kafka: a consumer needs READ on each topic (the partitions of the others
 * are answered TOPIC_AUTHORIZATION_FAILED, without records); a request naming a replica id (a
 * follower's fetch, answered here as a consumer's) needs CLUSTER_ACTION on the cluster, else every
 * partition is TOPIC_AUTHORIZATION_FAILED.
 */
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { FetchPartition, FetchResponse as BrokerFetchResponse } from '../../../actors/broker/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';
import {
  FINAL_EPOCH,
  INITIAL_EPOCH,
  NO_SESSION,
  mustRespond,
  nextEpoch,
  partitionKey,
  type CachedPartition,
  type FetchSession,
  type PartitionAnswer,
} from '../fetch-sessions.js';
import { leaderHints, needsLeaderHint } from './leader-hints.js';
import { fetchClusterMetadata } from './metadata.js';

interface PartitionReq {
  partition: number;
  currentLeaderEpoch: number;
  fetchOffset: number;
  lastFetchedEpoch: number;
  partitionMaxBytes: number;
}

interface FetchTopicReq {
  topic: string;
  topicId: string;
  partitions: PartitionReq[];
}

type FetchBody = Parameters<ApiHandler<typeof ApiKeys.Fetch>>[2];
type FetchAnswer = Awaited<ReturnType<ApiHandler<typeof ApiKeys.Fetch>>>;

/** One partition to read: named by topic (v4-12) or topic id (v13+, name from the listener's ids). */
type Wanted = Omit<CachedPartition, 'highWatermark' | 'logStartOffset'>;

const EMPTY = Buffer.alloc(0);

function failedPartition(partitionIndex: number, errorCode: number) {
  return { partitionIndex, errorCode, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: [], preferredReadReplica: -1, records: EMPTY };
}

function sessionError(errorCode: number, sessionId = NO_SESSION): FetchAnswer {
  return { throttleTimeMs: 0, errorCode, sessionId, responses: [] };
}

/** The partitions a request names, in its order. */
function requested(body: FetchBody): Wanted[] {
  const out: Wanted[] = [];
  for (const t of body.topics as FetchTopicReq[]) {
    for (const p of t.partitions) {
      out.push({
        topic: t.topic,
        topicId: t.topicId,
        partition: p.partition,
        fetchOffset: p.fetchOffset,
        currentLeaderEpoch: p.currentLeaderEpoch,
        lastFetchedEpoch: p.lastFetchedEpoch,
        partitionMaxBytes: Math.max(0, p.partitionMaxBytes),
      });
    }
  }
  return out;
}

/**
 * An incremental fetch's changes to its session (Kafka's FetchSession.update): partitions named
 * are added or take the request's fields, forgotten ones leave.
 */
function updateSession(session: FetchSession, changes: Wanted[], body: FetchBody): void {
  for (const w of changes) {
    const key = partitionKey(session.usesTopicIds, w);
    const cached = session.partitions.get(key);
    if (cached) Object.assign(cached, { fetchOffset: w.fetchOffset, currentLeaderEpoch: w.currentLeaderEpoch, lastFetchedEpoch: w.lastFetchedEpoch, partitionMaxBytes: w.partitionMaxBytes });
    else session.partitions.set(key, { ...w, highWatermark: -1, logStartOffset: -1 });
  }
  for (const f of (body.forgottenTopicsData ?? []) as { topic: string; topicId: string; partitions: number[] }[]) {
    for (const partition of f.partitions) session.partitions.delete(partitionKey(session.usesTopicIds, { topic: f.topic, topicId: f.topicId, partition }));
  }
}

/** The topics of `wanted` the client may not read (null: it may read them all). */
function unreadable(ctx: ApiContext, replicaId: number, names: string[]): Set<string> | null {
  if (!ctx.authorizerEnabled) return null;
  if (replicaId >= 0) return ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME) ? null : new Set(names);
  return deniedNames(ctx, AclOperation.READ, ResourceType.TOPIC, names, (n) => n);
}

interface Read {
  /** Each wanted partition's answer, in order. */
  partitions: Record<string, unknown>[];
  answers: PartitionAnswer[];
  nodeEndpoints: { nodeId: number; host: string; port: number; rack: string | null }[] | null;
}

/** Reads `wanted` through the broker (one long-poll for them all) and builds each partition's answer. */
async function readPartitions(ctx: ApiContext, version: number, body: FetchBody, replicaId: number, wanted: Wanted[]): Promise<Read> {
  // v13+: names and stored ids from the listener's topic ids (an unknown id stays unnamed)
  const ids =
    version >= 13
      ? await ctx.topicIds.resolve(
          wanted.map((w) => w.topicId),
          async () => (await fetchClusterMetadata(ctx, null))?.topics ?? null,
        )
      : null;
  const named = ids ? wanted.map((w) => ({ ...w, topic: ids.get(w.topicId)?.name ?? '' })) : wanted;
  const unknownId = (w: Wanted) => ids !== null && !ids.has(w.topicId);
  const denied = unreadable(ctx, replicaId, [...new Set(named.filter((w) => !unknownId(w)).map((w) => w.topic))]);
  const partitions: FetchPartition[] = [];
  for (const w of named) {
    if (unknownId(w) || denied?.has(w.topic)) continue;
    const fp: FetchPartition = { topic: w.topic, partition: w.partition, fetchOffset: w.fetchOffset, currentLeaderEpoch: w.currentLeaderEpoch, lastFetchedEpoch: w.lastFetchedEpoch, partitionMaxBytes: w.partitionMaxBytes };
    const storedId = ids?.get(w.topicId)?.storedId;
    if (storedId !== undefined) fp.topicId = storedId;
    partitions.push(fp);
  }
  const maxWaitMs = Math.max(0, body.maxWaitMs);
  const req: Extract<BrokerMsg, { type: 'Fetch' }> = { type: 'Fetch', replicaId: -1, maxWaitMs, minBytes: Math.max(0, body.minBytes), maxBytes: Math.max(0, body.maxBytes), partitions };
  // v11+ carries the client's metadata (its rack): as in Kafka, such a consumer may read from a
  // follower, and a leader with replica.selector.class may name one for it
  if (version >= 11) req.clientRack = typeof body.rackId === 'string' ? body.rackId : '';
  // v4+: isolation_level 1 is read_committed (up to the last stable offset, aborted transactions listed)
  const readCommitted = body.isolationLevel === 1;
  if (readCommitted) req.isolationLevel = 'read_committed';
  // nothing left to fetch (every partition refused): answered at once, as Kafka
  const r =
    partitions.length === 0
      ? ({ type: 'FetchResponse', errorCode: ErrorCode.NONE, partitions: [] } satisfies BrokerFetchResponse)
      : await ctx.ask<BrokerMsg, BrokerFetchResponse>(ctx.broker, req, maxWaitMs + ctx.config.requestTimeoutMs);
  const failed = isFailure(r) ? r.errorCode : r.errorCode !== ErrorCode.NONE ? r.errorCode : null;
  const results = new Map<string, BrokerFetchResponse['partitions'][number]>();
  if (!isFailure(r)) for (const p of r.partitions) results.set(`${p.topic}\u0000${p.partition}`, p);
  // v12+ (KIP-951): a partition whose leader moved names the new one
  const hints = version >= 12 && !isFailure(r) ? await leaderHints(ctx, r.partitions.filter((p) => needsLeaderHint(p.errorCode)).map((p) => p.topic)) : null;
  const out: Record<string, unknown>[] = [];
  const answers: PartitionAnswer[] = [];
  for (const w of named) {
    let part: Record<string, unknown>;
    const res = results.get(`${w.topic}\u0000${w.partition}`);
    if (unknownId(w)) part = failedPartition(w.partition, ErrorCode.UNKNOWN_TOPIC_ID);
    else if (denied?.has(w.topic)) part = failedPartition(w.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    else if (failed !== null || !res) part = failedPartition(w.partition, failed ?? ErrorCode.UNKNOWN_SERVER_ERROR);
    else {
      part = {
        partitionIndex: w.partition,
        errorCode: res.errorCode,
        highWatermark: res.highWatermark,
        lastStableOffset: res.lastStableOffset ?? res.highWatermark,
        logStartOffset: res.logStartOffset,
        // null for read_uncommitted, as Kafka sends it
        abortedTransactions: readCommitted ? (res.abortedTransactions ?? []) : null,
        preferredReadReplica: res.preferredReadReplica ?? -1,
        records: res.records,
      };
      if (res.divergingEpoch) part.divergingEpoch = { epoch: res.divergingEpoch.epoch, endOffset: res.divergingEpoch.endOffset };
      const leader = hints && needsLeaderHint(res.errorCode) ? hints.leaderOf(w.topic, w.partition) : null;
      if (leader) part.currentLeader = leader;
    }
    out.push(part);
    answers.push({
      errorCode: part.errorCode as number,
      highWatermark: part.highWatermark as number,
      logStartOffset: part.logStartOffset as number,
      recordBytes: (part.records as Uint8Array).length,
      preferredReadReplica: part.preferredReadReplica as number,
      divergingEpoch: part.divergingEpoch !== undefined,
    });
  }
  return { partitions: out, answers, nodeEndpoints: hints ? hints.endpoints() : null };
}

/** Partitions in answer order, grouped into topics as Kafka's FetchResponse does (consecutive ones of a topic together). */
function byTopic(usesTopicIds: boolean, entries: { w: Wanted; partition: Record<string, unknown> }[]) {
  const topics: { topic: string; topicId: string; partitions: Record<string, unknown>[] }[] = [];
  let last: (typeof topics)[number] | undefined;
  for (const { w, partition } of entries) {
    if (!last || (usesTopicIds ? last.topicId !== w.topicId : last.topic !== w.topic)) {
      last = { topic: w.topic, topicId: w.topicId, partitions: [] };
      topics.push(last);
    }
    last.partitions.push(partition);
  }
  return topics;
}

export const fetch: ApiHandler<typeof ApiKeys.Fetch> = async (ctx, version, body) => {
  const usesTopicIds = version >= 13;
  const sessionId = body.sessionId;
  const epoch = body.sessionEpoch;
  // v15+ (KIP-903): the replica id travels in the replica state
  const replicaId = version >= 15 ? body.replicaState.replicaId : body.replicaId;
  const changes = requested(body);
  let wanted = changes;
  let session: FetchSession | null = null;
  const full = epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH;
  if (full) {
    // a full fetch closes the session it names
    if (sessionId !== NO_SESSION) ctx.fetchSessions.remove(sessionId);
  } else {
    const s = ctx.fetchSessions.get(sessionId);
    if (!s) return sessionError(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    if (s.epoch !== epoch) return sessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    if (s.usesTopicIds !== usesTopicIds) return sessionError(ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
    updateSession(s, changes, body);
    if (s.partitions.size === 0) {
      // nothing left in it: closed, and this fetch is answered without a session
      ctx.fetchSessions.remove(s.id);
    } else {
      ctx.fetchSessions.touch(s);
      s.epoch = nextEpoch(epoch);
      session = s;
      wanted = [...s.partitions.values()];
    }
  }
  const read = await readPartitions(ctx, version, body, replicaId, wanted);
  let entries = wanted.map((w, i) => ({ w, partition: read.partitions[i]!, answer: read.answers[i]! }));
  let responseSessionId = NO_SESSION;
  if (session) {
    // a request for the same epoch answered meanwhile (a duplicate) makes this one stale
    if (session.epoch !== nextEpoch(epoch) || ctx.fetchSessions.get(session.id) !== session) return sessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH, session.id);
    entries = entries.filter(({ w, answer }) => {
      const key = partitionKey(usesTopicIds, w);
      const cached = session.partitions.get(key);
      if (!cached || !mustRespond(cached, answer, true)) return false;
      if (answer.recordBytes > 0) {
        // served: to the back of the line
        session.partitions.delete(key);
        session.partitions.set(key, cached);
      }
      return true;
    });
    responseSessionId = session.id;
  } else if (epoch === INITIAL_EPOCH) {
    responseSessionId = ctx.fetchSessions.create(
      replicaId >= 0,
      usesTopicIds,
      entries.map(({ w, answer }) => ({ ...w, highWatermark: answer.errorCode === ErrorCode.NONE ? answer.highWatermark : -1, logStartOffset: answer.logStartOffset })),
    );
  }
  const response: Record<string, unknown> = { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: responseSessionId, responses: byTopic(usesTopicIds, entries) };
  // v16+: the Kafka endpoints of the leaders named
  if (read.nodeEndpoints) response.nodeEndpoints = read.nodeEndpoints;
  return response as FetchAnswer;
};
