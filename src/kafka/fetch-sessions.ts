/**
 * Incremental fetch sessions (Kafka's KIP-227), a broker's cache of them as Kafka's
 * FetchSessionCache keeps it. A client that fetches many partitions sends them all once (a full
 * fetch with epoch 0) and gets a session id; after that each fetch names only the partitions whose
 * fetch position changed (and those to forget), and the answer holds only the partitions with
 * something new: records, a moved high watermark or log start offset, an error, a preferred read
 * replica or a diverging epoch.
 *
 * The cache holds at most `maxEntries` sessions (max.incremental.fetch.session.cache.slots). When
 * it is full a new session takes the place of one unused for longer than `evictionMs`; failing
 * that, of the least valuable one created longer ago than `evictionMs` (fewest partitions, a
 * consumer's before a follower's), if the new one is worth at least as much; a follower's may also
 * take a consumer's however young. Otherwise the client gets no session and goes on with full
 * fetches. The clock is injected.
 */
import { randomInt } from 'node:crypto';

/** Kafka's FetchMetadata epochs: 0 starts a session, -1 fetches without one. */
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
/** Kafka's INVALID_SESSION_ID: no session. */
export const NO_SESSION = 0;
/** Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS. */
export const SESSION_EVICTION_MS = 120_000;

/** The epoch after `epoch` (wrapping past the largest int32 to 1). */
export function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  return epoch === 2147483647 ? 1 : epoch + 1;
}

/** What a partition's fetch asks: the request's per-partition fields. */
export interface PartitionRequest {
  fetchOffset: number;
  currentLeaderEpoch: number;
  lastFetchedEpoch: number;
  partitionMaxBytes: number;
}

/** One partition of a session: its last request fields and what the client was last told. */
export interface CachedPartition extends PartitionRequest {
  /** Topic id in Kafka's form (sessions of Fetch v13+), else the zero id. */
  topicId: string;
  /** Topic name ('' while a session's id is not known here). */
  topic: string;
  partition: number;
  highWatermark: number;
  logStartOffset: number;
}

/** A partition's answer, as far as the session compares it. */
export interface PartitionAnswer {
  errorCode: number;
  highWatermark: number;
  logStartOffset: number;
  recordBytes: number;
  preferredReadReplica: number;
  divergingEpoch: boolean;
}

export interface FetchSession {
  readonly id: number;
  /** A follower's (a replica id in the request): kept before consumers' sessions. */
  readonly privileged: boolean;
  /** Created by Fetch v13+: partitions named by topic id; other versions may not use it. */
  readonly usesTopicIds: boolean;
  readonly creationMs: number;
  lastUsedMs: number;
  /** The epoch the next incremental fetch must carry. */
  epoch: number;
  /** By partitionKey, in the order answers are given (partitions that got records move last). */
  readonly partitions: Map<string, CachedPartition>;
}

/** A session's key for a partition: by topic id when the session uses them, else by name. */
export function partitionKey(usesTopicIds: boolean, p: { topicId: string; topic: string; partition: number }): string {
  return `${usesTopicIds ? p.topicId : p.topic}\u0000${p.partition}`;
}

/**
 * Whether a partition's answer goes back in an incremental fetch (Kafka's
 * CachedPartition.maybeUpdateResponseData); with `update`, the cached values take the answer's
 * (an error leaves the high watermark -1, so the partition is sent again once it clears).
 */
export function mustRespond(cached: CachedPartition, a: PartitionAnswer, update: boolean): boolean {
  let respond = a.recordBytes > 0 || a.preferredReadReplica >= 0 || a.divergingEpoch;
  if (cached.highWatermark !== a.highWatermark) {
    respond = true;
    if (update) cached.highWatermark = a.highWatermark;
  }
  if (cached.logStartOffset !== a.logStartOffset) {
    respond = true;
    if (update) cached.logStartOffset = a.logStartOffset;
  }
  if (a.errorCode !== 0) {
    respond = true;
    if (update) cached.highWatermark = -1;
  }
  return respond;
}

export interface SessionClock {
  now(): number;
}

export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();
  /** Sessions made, and evicted to make room for another. */
  created = 0;
  evictions = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly clock: SessionClock,
    private readonly evictionMs = SESSION_EVICTION_MS,
    private readonly random: (min: number, max: number) => number = randomInt,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Partitions held by every session. */
  get totalPartitions(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.partitions.size;
    return n;
  }

  get(id: number): FetchSession | undefined {
    return this.sessions.get(id);
  }

  remove(id: number): boolean {
    return this.sessions.delete(id);
  }

  /** Marks a session used now. */
  touch(session: FetchSession): void {
    session.lastUsedMs = this.clock.now();
  }

  /**
   * A new session holding `partitions` (in answer order), or NO_SESSION when the cache is full
   * and nothing may be evicted for it.
   */
  create(privileged: boolean, usesTopicIds: boolean, partitions: CachedPartition[]): number {
    const now = this.clock.now();
    if (this.sessions.size >= this.maxEntries && !this.tryEvict(privileged, partitions.length, now)) return NO_SESSION;
    let id: number;
    do id = this.random(1, 2147483647);
    while (this.sessions.has(id));
    const map = new Map<string, CachedPartition>();
    for (const p of partitions) map.set(partitionKey(usesTopicIds, p), p);
    this.sessions.set(id, { id, privileged, usesTopicIds, creationMs: now, lastUsedMs: now, epoch: nextEpoch(INITIAL_EPOCH), partitions: map });
    this.created++;
    return id;
  }

  /** Kafka's tryEvict: a stale session first, else the least valuable one the new session outweighs. */
  private tryEvict(privileged: boolean, size: number, now: number): boolean {
    let lru: FetchSession | undefined;
    for (const s of this.sessions.values()) if (!lru || s.lastUsedMs < lru.lastUsedMs || (s.lastUsedMs === lru.lastUsedMs && s.id < lru.id)) lru = s;
    if (!lru) return false;
    if (now - lru.lastUsedMs > this.evictionMs) return this.evict(lru);
    let least: FetchSession | undefined;
    for (const s of this.sessions.values()) {
      const old = now - s.creationMs > this.evictionMs;
      // anyone may take an old session's place; a follower may also take a young consumer's
      if (!(old || (privileged && !s.privileged))) continue;
      if (!least || compareValue(s, least) < 0) least = s;
    }
    if (!least) return false;
    // the new session is worth (privileged, size, id 0): it must not be worth less
    const cmp = Number(privileged) - Number(least.privileged) || size - least.partitions.size || 0 - least.id;
    return cmp < 0 ? false : this.evict(least);
  }

  private evict(s: FetchSession): boolean {
    this.sessions.delete(s.id);
    this.evictions++;
    return true;
  }
}

/** Kafka's EvictableKey order: consumers' before followers', fewer partitions first, then id. */
function compareValue(a: FetchSession, b: FetchSession): number {
  return Number(a.privileged) - Number(b.privileged) || a.partitions.size - b.partitions.size || a.id - b.id;
}
