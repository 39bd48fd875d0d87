/**
 * KIP-848 ConsumerGroupHeartbeat request bodies (v0; v1 adds `subscribedTopicRegex`, given through
 * the overrides) and the partitions a response assigns, for the wire tests that drive consumer
 * groups by hand (as a Java consumer with group.protocol=consumer would).
 */

/** A new member joining `groupId` subscribed to `topics` (epoch 0, no member id yet); `o` overrides fields. */
export function joinHeartbeat(groupId: string, topics: string[], o: object = {}): object {
  return { groupId, memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: topics, serverAssignor: null, topicPartitions: [], ...o };
}

/** A member's heartbeat at `memberEpoch` owning `owned` partitions of topic `topicId` (null: not sent); everything else unchanged. */
export function memberHeartbeat(groupId: string, memberId: string, memberEpoch: number, topicId: string, owned: number[] | null): object {
  return {
    groupId,
    memberId,
    memberEpoch,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    subscribedTopicNames: null,
    serverAssignor: null,
    topicPartitions: owned === null ? null : [{ topicId, partitions: owned }],
  };
}

/** The partitions a heartbeat response assigns, sorted (none when it sends no assignment). */
export function assignedPartitions(r: { assignment: { topicPartitions: { partitions: number[] }[] } | null }): number[] {
  return (r.assignment?.topicPartitions ?? []).flatMap((t) => t.partitions).sort((a, b) => a - b);
}
