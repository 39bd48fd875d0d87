/**
 * The replica fetcher: one per (follower broker, leader broker) pair, like Kafka's
 * ReplicaFetcherThread. It fetches every partition this broker follows from that leader in one
 * long-poll Fetch, appends what comes back through the local partition replicas, truncates on
 * divergence, and fetches again.
 *
 * Owned state: the partitions it fetches (fetch offset, last fetched epoch, leader epoch, the
 * leader's high watermark and log start last applied), one fetch in flight at most, a backoff
 * after errors. The broker's follower replication throttle (a shared quota) leaves throttled
 * partitions out while it is exceeded. From the finalized metadata.version 4.1-IV1 on (Kafka's
 * Fetch v18, KIP-1166) each partition's fetch carries the high watermark the follower knows (the
 * leader's it last applied, -1 before any), so the leader answers it as soon as its own moves past.
 * Handles: AddPartitions, RemovePartitions, DoFetch, FetchResult, DescribeFetcher.
 * Emits: Fetch to the leader's broker; AppendAsFollower, TruncateForDivergence and
 * ResetFetchPosition to local partition replicas.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { BaseContext } from '../../src/runtime/actor-definition.js';
import { arrayOf, defineActor, objectOf } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Failure } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { RateQuota } from '../../src/runtime/rate-quota.js';
import type { AppendAsFollowerResult, ReplicaMsg } from '../partition-replica/messages.js';
import type { BrokerMsg, FetchPartition, FetchPartitionResult, FetchResponse } from './messages.js';

export interface FetcherPartition {
  topic: string;
  partition: number;
  fetchOffset: number;
  lastFetchedEpoch: number;
  currentLeaderEpoch: number;
  /** The local replica's log start offset, told to the leader with each fetch (its low watermark). */
  logStartOffset?: number;
}

export type FetcherMsg =
  | { type: 'AddPartitions'; partitions: FetcherPartition[] }
  | { type: 'RemovePartitions'; partitions: { topic: string; partition: number }[] }
  | { type: 'DoFetch' }
  | { type: 'FetchResult'; response: FetchResponse | Failure; sent: { key: string; leaderEpoch: number }[] }
  | { type: 'DescribeFetcher' };

export interface FetcherArgs {
  brokerId: number;
  leaderId: number;
  leader: ActorRef<BrokerMsg>;
  /** Path of the local replica actor of a partition. */
  replicaRef: (topic: string, partition: number) => ActorRef<ReplicaMsg>;
  maxWaitMs: number;
  minBytes: number;
  partitionMaxBytes: number;
  responseMaxBytes: number;
  backoffMs: number;
  requestTimeoutMs: number;
  /**
   * The broker's follower replication throttle (follower.replication.throttled.rate, shared by its
   * fetchers): while its quota is exceeded, partitions `throttled` names are left out of fetches.
   */
  throttle?: { quota: RateQuota; throttled: (topic: string, partition: number) => boolean };
  /**
   * Whether fetches carry the follower's high watermark (KIP-1166): the broker's finalized
   * metadata.version is 4.1-IV1 or above, read at each fetch as Kafka's fetcher reads its
   * metadataVersionSupplier. Absent: never.
   */
  sendHighWatermark?: () => boolean;
}

interface Tracked extends FetcherPartition {
  /**
   * The leader's high watermark last applied to the local replica (-1: none yet): what the fetch
   * tells the leader under KIP-1166. The replica's own is this capped at its log end; a lagging
   * follower gets records anyway, and one whose records the leader's throttle withholds is not
   * answered again and again for a high watermark it already has.
   */
  lastLeaderHighWatermark: number;
  lastLeaderLogStartOffset: number;
}

interface FetcherState {
  args: FetcherArgs;
  partitions: Map<string, Tracked>;
  inFlight: boolean;
}

const BACKOFF_TIMER = 'backoff';
const key = (topic: string, partition: number) => `${topic}-${partition}`;

function scheduleFetch(s: FetcherState, ctx: BaseContext<FetcherMsg>, delayMs: number): void {
  if (s.inFlight || s.partitions.size === 0) return;
  // the next fetch goes out as soon as the last answer is applied: under acks=all the leader's
  // high watermark (and so every waiting produce) moves only when this fetch arrives
  if (delayMs <= 0) startFetch(s, ctx);
  else if (!ctx.timers.isActive(BACKOFF_TIMER)) ctx.timers.startSingle(BACKOFF_TIMER, delayMs, { type: 'DoFetch' });
}

/**
 * One long-poll Fetch for every partition, from where each stands (throttled partitions left out
 * while the follower quota is exceeded; with nothing left, it tries again after the backoff).
 */
function startFetch(s: FetcherState, ctx: BaseContext<FetcherMsg>): void {
  if (s.inFlight || s.partitions.size === 0) return;
  const a = s.args;
  let tracked = [...s.partitions.values()];
  const throttle = a.throttle;
  if (throttle && !throttle.quota.unlimited && throttle.quota.isExceeded()) {
    tracked = tracked.filter((t) => !throttle.throttled(t.topic, t.partition));
    if (tracked.length === 0) {
      if (!ctx.timers.isActive(BACKOFF_TIMER)) ctx.timers.startSingle(BACKOFF_TIMER, Math.max(a.backoffMs, 100), { type: 'DoFetch' });
      return;
    }
  }
  s.inFlight = true;
  const sent = tracked.map((t) => ({ key: key(t.topic, t.partition), leaderEpoch: t.currentLeaderEpoch }));
  const sendHighWatermark = a.sendHighWatermark?.() === true;
  void ctx
    .ask<FetchResponse>(
      a.leader,
      {
        type: 'Fetch',
        replicaId: a.brokerId,
        maxWaitMs: a.maxWaitMs,
        minBytes: a.minBytes,
        maxBytes: a.responseMaxBytes,
        partitions: tracked.map((t): FetchPartition => {
          const fp: FetchPartition = {
            topic: t.topic,
            partition: t.partition,
            fetchOffset: t.fetchOffset,
            currentLeaderEpoch: t.currentLeaderEpoch,
            lastFetchedEpoch: t.lastFetchedEpoch,
            partitionMaxBytes: a.partitionMaxBytes,
            logStartOffset: t.logStartOffset ?? -1,
          };
          if (sendHighWatermark) fp.highWatermark = t.lastLeaderHighWatermark;
          return fp;
        }),
      },
      { timeoutMs: a.maxWaitMs + a.requestTimeoutMs },
    )
    .then((response) => ctx.send(ctx.self, { type: 'FetchResult', response, sent }));
}

async function applyResult(s: FetcherState, ctx: BaseContext<FetcherMsg>, t: Tracked, r: FetchPartitionResult): Promise<boolean> {
  const replica = s.args.replicaRef(t.topic, t.partition);
  let res: AppendAsFollowerResult | Failure;
  if (r.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
    res = await ctx.ask<AppendAsFollowerResult>(replica, {
      type: 'ResetFetchPosition',
      leaderEpoch: t.currentLeaderEpoch,
      leaderLogStartOffset: r.logStartOffset,
      leaderLogEndOffset: r.logEndOffset,
    });
  } else if (r.errorCode !== ErrorCode.NONE) {
    ctx.log.debug('partition fetch error', { topic: t.topic, partition: t.partition, errorCode: r.errorCode, errorMessage: r.errorMessage });
    return false;
  } else if (r.divergingEpoch) {
    res = await ctx.ask<AppendAsFollowerResult>(replica, {
      type: 'TruncateForDivergence',
      leaderEpoch: t.currentLeaderEpoch,
      divergingEpoch: r.divergingEpoch.epoch,
      divergingEndOffset: r.divergingEpoch.endOffset,
    });
  } else if (r.records.length > 0 || r.highWatermark !== t.lastLeaderHighWatermark || r.logStartOffset !== t.lastLeaderLogStartOffset) {
    // records, a new high watermark, or records the leader deleted (its log start moved)
    res = await ctx.ask<AppendAsFollowerResult>(replica, {
      type: 'AppendAsFollower',
      leaderEpoch: t.currentLeaderEpoch,
      records: r.records,
      leaderHighWatermark: r.highWatermark,
      leaderLogStartOffset: r.logStartOffset,
    });
    if (!isFailure(res) && res.errorCode === ErrorCode.NONE) {
      t.lastLeaderHighWatermark = r.highWatermark;
      t.lastLeaderLogStartOffset = r.logStartOffset;
    }
  } else {
    return true;
  }
  if (isFailure(res) || res.errorCode !== ErrorCode.NONE) {
    ctx.log.warn('local replica refused fetched data', {
      topic: t.topic,
      partition: t.partition,
      errorCode: res.errorCode,
      reason: isFailure(res) ? res.message : res.errorMessage,
    });
    return false;
  }
  t.fetchOffset = res.logEndOffset;
  t.lastFetchedEpoch = res.lastFetchedEpoch;
  if (res.logStartOffset !== undefined) t.logStartOffset = res.logStartOffset;
  return true;
}

export const replicaFetcher = defineActor<FetcherState, FetcherMsg, FetcherArgs>({
  kind: 'replica-fetcher',
  clientMessages: { DescribeFetcher: true },
  // its broker's (its parent), its timer's and its fetches' answers: never another node's
  localMessages: ['AddPartitions', 'RemovePartitions', 'DoFetch', 'FetchResult'],
  supervision: 'restart',
  init: (_ctx, args) => ({ args, partitions: new Map(), inFlight: false }),
  schema: {
    AddPartitions: {
      partitions: arrayOf(objectOf({ topic: 'string', partition: 'integer', fetchOffset: 'integer', lastFetchedEpoch: 'integer', currentLeaderEpoch: 'integer', logStartOffset: 'integer?' })),
    },
    RemovePartitions: { partitions: arrayOf(objectOf({ topic: 'string', partition: 'integer' })) },
    // its own message, but any node can address it: a response (or a Failure, without partitions) and what was sent
    FetchResult: {
      response: objectOf({
        errorCode: 'integer',
        partitions: arrayOf(objectOf({ topic: 'string', partition: 'integer', errorCode: 'integer', records: 'bytes', highWatermark: 'integer', logStartOffset: 'integer' }), { optional: true }),
      }),
      sent: arrayOf(objectOf({ key: 'string', leaderEpoch: 'integer' })),
    },
  },
  handlers: {
    AddPartitions(s, m, ctx) {
      for (const p of m.partitions) s.partitions.set(key(p.topic, p.partition), { ...p, lastLeaderHighWatermark: -1, lastLeaderLogStartOffset: -1 });
      scheduleFetch(s, ctx, 0);
    },

    RemovePartitions(s, m) {
      for (const p of m.partitions) s.partitions.delete(key(p.topic, p.partition));
    },

    DoFetch(s, _m, ctx) {
      startFetch(s, ctx);
    },

    FetchResult(s, m, ctx) {
      s.inFlight = false;
      const r = m.response;
      if (isFailure(r) || r.errorCode !== ErrorCode.NONE || !Array.isArray(r.partitions)) {
        ctx.log.debug('fetch from leader failed', { leader: s.args.leaderId, errorCode: r.errorCode, reason: isFailure(r) ? r.reason : r.errorMessage });
        scheduleFetch(s, ctx, s.args.backoffMs);
        return;
      }
      const sentEpochs = new Map(m.sent.map((x) => [x.key, x.leaderEpoch]));
      const throttle = s.args.throttle;
      if (throttle && !throttle.quota.unlimited) {
        let bytes = 0;
        for (const pr of r.partitions) if (pr.records.length > 0 && throttle.throttled(pr.topic, pr.partition)) bytes += pr.records.length;
        throttle.quota.record(bytes);
      }
      // partitions are independent: their replicas append at the same time
      const applied: Promise<boolean>[] = [];
      for (const pr of r.partitions) {
        const k = key(pr.topic, pr.partition);
        const t = s.partitions.get(k);
        // removed or re-added under another leader epoch while the fetch was out: drop the answer
        if (!t || sentEpochs.get(k) !== t.currentLeaderEpoch) continue;
        applied.push(applyResult(s, ctx, t, pr));
      }
      if (applied.length === 0) return void scheduleFetch(s, ctx, 0);
      return Promise.all(applied).then((oks) => {
        const progress = oks.some((ok) => ok);
        scheduleFetch(s, ctx, !progress && oks.length > 0 ? s.args.backoffMs : 0);
      });
    },

    DescribeFetcher(s, _m, ctx) {
      ctx.reply({ type: 'FetcherDescription', leaderId: s.args.leaderId, partitions: [...s.partitions.values()], inFlight: s.inFlight, backingOff: ctx.timers.isActive(BACKOFF_TIMER) } as never);
    },
  },
});
