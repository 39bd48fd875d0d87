/**
 * Which replica a consumer should fetch from (Kafka's KIP-392, "fetch from the closest replica"),
 * as Kafka's RackAwareReplicaSelector chooses: a consumer that names its rack (client.rack) is
 * sent to a replica in its rack that can serve its fetch offset, the leader when the leader is in
 * that rack, and the leader when no replica is; among several in its rack, the one with the
 * highest log end offset, then the one caught up most recently. Without a rack: the leader.
 *
 * A follower can serve an offset when it is in the ISR and its log end, as the leader last saw it
 * from its fetches, is at or past the offset (Kafka's test; a follower then answers up to its own
 * high watermark). Pure: the leader replica gathers the view.
 */

/** The broker config value that turns the selection on (Kafka's class name). */
export const RACK_AWARE_REPLICA_SELECTOR = 'org.apache.kafka.common.replica.RackAwareReplicaSelector';
/** Kafka's default selector: always the leader. */
export const LEADER_SELECTOR = 'org.apache.kafka.common.replica.LeaderSelector';

export interface ReplicaView {
  readonly brokerId: number;
  readonly rack: string | null;
  readonly logEndOffset: number;
  /** How long ago it was last caught up with the leader (0 for the leader itself). */
  readonly timeSinceLastCaughtUpMs: number;
}

export interface PartitionView {
  readonly leader: ReplicaView;
  /** The followers that can serve the fetch offset (the leader is not among them). */
  readonly followers: readonly ReplicaView[];
}

/** The broker id to read from: the leader's unless a follower in the client's rack is the better one. */
export function selectReadReplica(clientRack: string | null | undefined, view: PartitionView): number {
  if (!clientRack) return view.leader.brokerId;
  if (view.leader.rack === clientRack) return view.leader.brokerId;
  let best: ReplicaView | null = null;
  for (const f of view.followers) {
    if (f.rack !== clientRack) continue;
    if (!best || f.logEndOffset > best.logEndOffset || (f.logEndOffset === best.logEndOffset && f.timeSinceLastCaughtUpMs < best.timeSinceLastCaughtUpMs)) best = f;
  }
  return best ? best.brokerId : view.leader.brokerId;
}
