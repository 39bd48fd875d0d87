/**
 * KIP-951 leader discovery: a Produce (v10+) or Fetch (v12+) partition answered
 * NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH carries the partition's current leader and epoch
 * as this broker's metadata has them, and a Produce response the leaders' Kafka endpoints, so a
 * client can move to the new leader without asking for metadata first. Asked of the broker's
 * metadata only when some partition needs it (a leader change, not the common path).
 */
import type { ClusterMetadata } from '../../protocol/cluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ApiContext } from './context.js';
import { fetchClusterMetadata, kafkaBrokers } from './metadata.js';

/** The answers that tell the client its leader moved. */
export function needsLeaderHint(errorCode: number): boolean {
  return errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER || errorCode === ErrorCode.FENCED_LEADER_EPOCH;
}

export interface LeaderHints {
  /** The partition's current leader and epoch; null when this broker knows none. */
  leaderOf(topic: string, partition: number): { leaderId: number; leaderEpoch: number } | null;
  /** The Kafka endpoints of the leaders named so far (Produce's nodeEndpoints). */
  endpoints(): { nodeId: number; host: string; port: number; rack: string | null }[];
}

/** Hints for `topics` from the broker's metadata; null when no partition needs one or the metadata cannot be had. */
export async function leaderHints(ctx: ApiContext, topics: readonly string[]): Promise<LeaderHints | null> {
  if (topics.length === 0) return null;
  const md = await fetchClusterMetadata(ctx, [...new Set(topics)]);
  return md ? hintsFrom(md) : null;
}

export function hintsFrom(md: ClusterMetadata): LeaderHints {
  const named = new Set<number>();
  return {
    leaderOf(topic, partition) {
      const p = md.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partition === partition);
      if (!p || p.leader < 0) return null;
      named.add(p.leader);
      return { leaderId: p.leader, leaderEpoch: p.leaderEpoch };
    },
    endpoints() {
      return kafkaBrokers(md)
        .filter((b) => named.has(b.brokerId))
        .sort((a, b) => a.brokerId - b.brokerId)
        .map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack }));
    },
  };
}
