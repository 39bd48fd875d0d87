/**
 * Replication throttles (Kafka's, as kafka-reassign-partitions --throttle sets them): a topic's
 * leader.replication.throttled.replicas and follower.replication.throttled.replicas name
 * 'partition:broker' replicas (or '*'), and a broker's leader.replication.throttled.rate and
 * follower.replication.throttled.rate bound the bytes per second it sends to, or fetches for,
 * those of its replicas. As in Kafka, only a follower out of the ISR is throttled (a replica
 * catching up, never one that acks=all waits for):
 *  - as leader, a broker withholds a throttled partition's records from a follower fetch while its
 *    leader quota is exceeded (the fetch waits out its long poll, as if there were no data);
 *  - as follower, its fetchers leave a throttled partition out of their fetches while its
 *    follower quota is exceeded.
 * Bytes sent and fetched for throttled partitions are recorded in the quotas.
 */
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import type { RateQuota } from '../../src/runtime/rate-quota.js';
import { throttledPartitions } from '../../src/storage/throttled-replicas.js';
import type { FetchPartitionResult } from './messages.js';

const LEADER_KEY = 'leader.replication.throttled.replicas';
const FOLLOWER_KEY = 'follower.replication.throttled.replicas';
const EMPTY = new Uint8Array(0);

/** The partitions this broker throttles, each with its ISR (the throttle spares in-sync followers). */
export interface Throttles {
  /** As leader: topic-partition key -> ISR. */
  readonly leader: ReadonlyMap<string, readonly number[]>;
  /** As follower: topic-partition key -> ISR. */
  readonly follower: ReadonlyMap<string, readonly number[]>;
}

const key = (topic: string, partition: number) => `${topic}-${partition}`;

/** The throttles the metadata sets for `brokerId`, or null when no topic sets any (the common case). */
export function throttlesFor(md: ClusterMetadata, brokerId: number): Throttles | null {
  let leader: Map<string, readonly number[]> | null = null;
  let follower: Map<string, readonly number[]> | null = null;
  for (const t of md.topics) {
    const asLeader = throttledPartitions(t.config[LEADER_KEY], brokerId);
    const asFollower = throttledPartitions(t.config[FOLLOWER_KEY], brokerId);
    if (!asLeader && !asFollower) continue;
    for (const p of t.partitions) {
      if (asLeader === 'all' || asLeader?.has(p.partition)) (leader ??= new Map()).set(key(t.name, p.partition), p.isr);
      if (asFollower === 'all' || asFollower?.has(p.partition)) (follower ??= new Map()).set(key(t.name, p.partition), p.isr);
    }
  }
  if (!leader && !follower) return null;
  return { leader: leader ?? new Map(), follower: follower ?? new Map() };
}

/** Whether this broker, as leader, throttles what it sends `replicaId` of the partition. */
export function leaderThrottles(t: Throttles, topic: string, partition: number, replicaId: number): boolean {
  const isr = t.leader.get(key(topic, partition));
  return isr !== undefined && !isr.includes(replicaId);
}

/** Whether this broker, as follower `brokerId`, throttles its fetching of the partition. */
export function followerThrottles(t: Throttles | null, topic: string, partition: number, brokerId: number): boolean {
  const isr = t?.follower.get(key(topic, partition));
  return isr !== undefined && !isr.includes(brokerId);
}

/**
 * A follower fetch's results with the records of throttled partitions withheld while the leader
 * quota is exceeded (the same array when nothing is withheld).
 */
export function withholdThrottled(t: Throttles, quota: RateQuota, replicaId: number, results: FetchPartitionResult[]): FetchPartitionResult[] {
  if (quota.unlimited || !quota.isExceeded()) return results;
  let out: FetchPartitionResult[] | null = null;
  results.forEach((r, i) => {
    if (r.records.length === 0 || !leaderThrottles(t, r.topic, r.partition, replicaId)) return;
    out ??= [...results];
    const held = { ...r };
    held.records = EMPTY;
    out[i] = held;
  });
  return out ?? results;
}

/** Records the bytes a follower fetch's answer sends for throttled partitions. */
export function recordThrottledSent(t: Throttles, quota: RateQuota, replicaId: number, results: readonly FetchPartitionResult[]): void {
  if (quota.unlimited) return;
  let bytes = 0;
  for (const r of results) if (r.records.length > 0 && leaderThrottles(t, r.topic, r.partition, replicaId)) bytes += r.records.length;
  quota.record(bytes);
}
