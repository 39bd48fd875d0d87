/**
 * Fetch (api key 1, v4-v17) for consumers: one broker-level Fetch (long-poll: max.wait.ms,
 * min.bytes, max.bytes, per-partition max bytes) whose stored batches go back as the same bytes.
 * Incremental fetch sessions (KIP-227) are declined the way Kafka allows: a request for a new
 * session is answered with session id 0, so the client keeps sending full requests; a request
 * naming a session gets FETCH_SESSION_ID_NOT_FOUND. Without transactions the last stable offset
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
import { leaderHints, needsLeaderHint } from './leader-hints.js';
import { fetchClusterMetadata } from './metadata.js';

interface FetchTopicReq {
  topic: string;
  topicId: string;
  partitions: { partition: number; currentLeaderEpoch: number; fetchOffset: number; lastFetchedEpoch: number; partitionMaxBytes: number }[];
}

const EMPTY = Buffer.alloc(0);

function failedPartition(partitionIndex: number, errorCode: number) {
  return { partitionIndex, errorCode, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: [], preferredReadReplica: -1, records: EMPTY };
}

/** The topics of the request the client may not read (null: it may read them all). */
function unreadable(ctx: ApiContext, replicaId: number, topics: FetchTopicReq[]): Set<string> | null {
  if (!ctx.authorizerEnabled) return null;
  if (replicaId >= 0) return ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME) ? null : new Set(topics.map((t) => t.topic));
  return deniedNames(ctx, AclOperation.READ, ResourceType.TOPIC, topics, (t) => t.topic);
}

/**
 * v13+ names topics by id: each gets its name, and the stored id the broker checks; a topic whose
 * id this broker does not know keeps an empty name and no stored id (answered UNKNOWN_TOPIC_ID).
 */
async function namedTopics(ctx: ApiContext, topics: FetchTopicReq[]): Promise<{ topics: FetchTopicReq[]; storedIds: Map<string, string> }> {
  const resolved = await ctx.topicIds.resolve(
    topics.map((t) => t.topicId),
    async () => (await fetchClusterMetadata(ctx, null))?.topics ?? null,
  );
  const storedIds = new Map<string, string>();
  const named = topics.map((t) => {
    const r = resolved.get(t.topicId);
    if (r) storedIds.set(t.topicId, r.storedId);
    return { ...t, topic: r?.name ?? '' };
  });
  return { topics: named, storedIds };
}

export const fetch: ApiHandler<typeof ApiKeys.Fetch> = async (ctx, version, body) => {
  const sessionId = body.sessionId as number;
  const sessionEpoch = body.sessionEpoch as number;
  if (sessionId !== 0 || sessionEpoch > 0) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] };
  }
  const byId = version >= 13 ? await namedTopics(ctx, body.topics as FetchTopicReq[]) : null;
  const topics = byId ? byId.topics : (body.topics as FetchTopicReq[]);
  const unknownId = (t: FetchTopicReq) => byId !== null && !byId.storedIds.has(t.topicId);
  // v15+ (KIP-903): the replica id travels in the replica state
  const replicaId = version >= 15 ? body.replicaState.replicaId : (body.replicaId as number);
  const denied = unreadable(ctx, replicaId, topics.filter((t) => !unknownId(t)));
  const partitions: FetchPartition[] = [];
  for (const t of topics) {
    if (denied?.has(t.topic) || unknownId(t)) continue;
    const topicId = byId?.storedIds.get(t.topicId);
    for (const p of t.partitions) {
      const fp: FetchPartition = {
        topic: t.topic,
        partition: p.partition,
        fetchOffset: p.fetchOffset,
        currentLeaderEpoch: p.currentLeaderEpoch,
        lastFetchedEpoch: p.lastFetchedEpoch,
        partitionMaxBytes: Math.max(0, p.partitionMaxBytes),
      };
      if (topicId !== undefined) fp.topicId = topicId;
      partitions.push(fp);
    }
  }
  const maxWaitMs = Math.max(0, body.maxWaitMs as number);
  const req: Extract<BrokerMsg, { type: 'Fetch' }> = { type: 'Fetch', replicaId: -1, maxWaitMs, minBytes: Math.max(0, body.minBytes as number), maxBytes: Math.max(0, body.maxBytes as number), partitions };
  // v11+ carries the client's metadata (its rack): as in Kafka, such a consumer may read from a
  // follower, and a leader with replica.selector.class may name one for it
  if (version >= 11) req.clientRack = typeof body.rackId === 'string' ? body.rackId : '';
  // v4+: isolation_level 1 is read_committed (up to the last stable offset, aborted transactions listed)
  const readCommitted = version >= 4 && body.isolationLevel === 1;
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
  const response: Record<string, unknown> = {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    sessionId: 0,
    responses: topics.map((t) => ({
      topic: t.topic,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => {
        if (unknownId(t)) return failedPartition(p.partition, ErrorCode.UNKNOWN_TOPIC_ID);
        if (denied?.has(t.topic)) return failedPartition(p.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        const res = results.get(`${t.topic}\u0000${p.partition}`);
        if (failed !== null || !res) return failedPartition(p.partition, failed ?? ErrorCode.UNKNOWN_SERVER_ERROR);
        const out: Record<string, unknown> = {
          partitionIndex: p.partition,
          errorCode: res.errorCode,
          highWatermark: res.highWatermark,
          lastStableOffset: res.lastStableOffset ?? res.highWatermark,
          logStartOffset: res.logStartOffset,
          // null for read_uncommitted, as Kafka sends it
          abortedTransactions: readCommitted ? (res.abortedTransactions ?? []) : null,
          preferredReadReplica: res.preferredReadReplica ?? -1,
          records: res.records,
        };
        if (res.divergingEpoch) out.divergingEpoch = { epoch: res.divergingEpoch.epoch, endOffset: res.divergingEpoch.endOffset };
        const leader = hints && needsLeaderHint(res.errorCode) ? hints.leaderOf(t.topic, p.partition) : null;
        if (leader) out.currentLeader = leader;
        return out;
      }),
    })),
  };
  // v16+: the Kafka endpoints of the leaders named
  if (hints) response.nodeEndpoints = hints.endpoints();
  return response as Awaited<ReturnType<ApiHandler<typeof ApiKeys.Fetch>>>;
};
