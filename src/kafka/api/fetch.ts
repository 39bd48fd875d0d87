/**
 * Fetch (api key 1, v4-v12) for consumers: one broker-level Fetch (long-poll: max.wait.ms,
 * min.bytes, max.bytes, per-partition max bytes) whose stored batches go back as the same bytes.
 * Incremental fetch sessions (KIP-227) are declined the way Kafka allows: a request for a new
 * session is answered with session id 0, so the client keeps sending full requests; a request
 * naming a session gets FETCH_SESSION_ID_NOT_FOUND. Without transactions the last stable offset
 * is the high watermark and no transaction was ever aborted. From v11 the consumer's rack comes
 * along (KIP-392): such a consumer may read from a follower here (up to its high watermark), and
 * a leader with replica.selector.class set to the rack-aware selector answers a consumer of another
 * rack with a preferred read replica in its rack and no records.
 */
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { FetchPartition, FetchResponse as BrokerFetchResponse } from '../../../actors/broker/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';

interface FetchTopicReq {
  topic: string;
  partitions: { partition: number; currentLeaderEpoch: number; fetchOffset: number; lastFetchedEpoch: number; partitionMaxBytes: number }[];
}

const EMPTY = Buffer.alloc(0);

export const fetch: ApiHandler<typeof ApiKeys.Fetch> = async (ctx, version, body) => {
  const topics = body.topics as FetchTopicReq[];
  const sessionId = body.sessionId as number;
  const sessionEpoch = body.sessionEpoch as number;
  if (sessionId !== 0 || sessionEpoch > 0) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] };
  }
  const partitions: FetchPartition[] = [];
  for (const t of topics) {
    for (const p of t.partitions) {
      partitions.push({
        topic: t.topic,
        partition: p.partition,
        fetchOffset: p.fetchOffset,
        currentLeaderEpoch: p.currentLeaderEpoch,
        lastFetchedEpoch: p.lastFetchedEpoch,
        partitionMaxBytes: Math.max(0, p.partitionMaxBytes),
      });
    }
  }
  const maxWaitMs = Math.max(0, body.maxWaitMs as number);
  const req: Extract<BrokerMsg, { type: 'Fetch' }> = { type: 'Fetch', replicaId: -1, maxWaitMs, minBytes: Math.max(0, body.minBytes as number), maxBytes: Math.max(0, body.maxBytes as number), partitions };
  // v11+ carries the client's metadata (its rack): as in Kafka, such a consumer may read from a
  // follower, and a leader with replica.selector.class may name one for it
  if (version >= 11) req.clientRack = typeof body.rackId === 'string' ? body.rackId : '';
  const r = await ctx.ask<BrokerMsg, BrokerFetchResponse>(ctx.broker, req, maxWaitMs + ctx.config.requestTimeoutMs);
  const failed = isFailure(r) ? r.errorCode : r.errorCode !== ErrorCode.NONE ? r.errorCode : null;
  const results = new Map<string, BrokerFetchResponse['partitions'][number]>();
  if (!isFailure(r)) for (const p of r.partitions) results.set(`${p.topic}\u0000${p.partition}`, p);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    sessionId: 0,
    responses: topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        const res = results.get(`${t.topic}\u0000${p.partition}`);
        if (failed !== null || !res) {
          return { partitionIndex: p.partition, errorCode: failed ?? ErrorCode.UNKNOWN_SERVER_ERROR, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: [], preferredReadReplica: -1, records: EMPTY };
        }
        const out: Record<string, unknown> = {
          partitionIndex: p.partition,
          errorCode: res.errorCode,
          highWatermark: res.highWatermark,
          lastStableOffset: res.highWatermark,
          logStartOffset: res.logStartOffset,
          abortedTransactions: [],
          preferredReadReplica: res.preferredReadReplica ?? -1,
          records: res.records,
        };
        if (res.divergingEpoch) out.divergingEpoch = { epoch: res.divergingEpoch.epoch, endOffset: res.divergingEpoch.endOffset };
        return out;
      }),
    })),
  };
};
