/**
 * KIP-1166 ("Improve high-watermark replication"): a follower's fetch carries the high watermark
 * the follower knows, and the leader answers it as soon as its own high watermark is above that,
 * records or not, instead of holding it for minBytes until the fetch wait passes. Without it a
 * follower learns a high watermark that moved with no new records (the ISR's last follower
 * fetching what the others already had) only at its next fetch, up to replica.fetch.wait.max.ms
 * later; so do consumers reading from that follower (KIP-392).
 *
 * Kafka 4.1 gates the fetch version that carries it (Fetch v18) on metadata.version 4.1-IV1 and
 * applies the rule in KafkaRaftClient (`isHighWatermarkUpdated`, and every parked fetch completed
 * when the leader's high watermark moves); samsa applies it to its partitions' replication, in
 * the replica (the parked read done again when the high watermark moves) and the broker's fetch
 * purgatory (delayed-fetch.ts).
 */

/**
 * A read whose fetch sent no high watermark (a consumer, or a follower below 4.1-IV1): Kafka's
 * default for the field, Long.MAX_VALUE ("the feature is not supported"), which no high
 * watermark is above.
 */
export const NO_REPLICA_HIGH_WATERMARK = Number.POSITIVE_INFINITY;

/**
 * Whether the leader's high watermark is above the one a follower's fetch sent (-1: it knows
 * none yet), so the fetch is answered now. False when it sent none.
 */
export function followerHighWatermarkBehind(replicaHighWatermark: number | undefined, leaderHighWatermark: number): boolean {
  return replicaHighWatermark !== undefined && replicaHighWatermark < leaderHighWatermark;
}
