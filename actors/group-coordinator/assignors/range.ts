/**
 * Kafka's RangeAssignor, plus the member ordering and input checks the other assignors share.
 * Topic by topic: the members subscribed to the topic, in order, split its partitions into
 * contiguous ranges; with n partitions and m members each gets floor(n / m) and the first
 * n % m members one more. Members are ordered as Kafka's MemberInfo: static members by
 * group instance id first, then the others by member id (plain string order).
 */
import type { AssignorMember, Assignor, GroupAssignment, TopicPartition } from './index.js';

/** Java's String.compareTo (UTF-16 code unit order), not locale order. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Kafka's MemberInfo order: static members by instance id first, then by member id. */
export function compareMembers(a: AssignorMember, b: AssignorMember): number {
  const ai = a.groupInstanceId ?? null;
  const bi = b.groupInstanceId ?? null;
  if (ai !== null && bi !== null) return compareStrings(ai, bi) || compareStrings(a.memberId, b.memberId);
  if (ai !== null) return -1;
  if (bi !== null) return 1;
  return compareStrings(a.memberId, b.memberId);
}

export function compareTopicPartitions(a: TopicPartition, b: TopicPartition): number {
  return compareStrings(a.topic, b.topic) || a.partition - b.partition;
}

/**
 * The members in Kafka's order, after checking the input: unique member ids, partition counts
 * that are non-negative integers.
 */
export function sortedMembers(
  members: readonly AssignorMember[],
  partitionsPerTopic: ReadonlyMap<string, number>,
): AssignorMember[] {
  const ids = new Set<string>();
  for (const m of members) {
    if (ids.has(m.memberId)) throw new Error(`Duplicate member id ${m.memberId} in assignor input`);
    ids.add(m.memberId);
  }
  for (const [topic, count] of partitionsPerTopic) {
    if (!Number.isInteger(count) || count < 0) {
      throw new Error(`Partition count of ${topic} must be a non-negative integer, got ${count}`);
    }
  }
  return [...members].sort(compareMembers);
}

/** The subscribed topics of all members that exist in partitionsPerTopic, sorted. */
export function subscribedTopics(
  members: readonly AssignorMember[],
  partitionsPerTopic: ReadonlyMap<string, number>,
): string[] {
  const topics = new Set<string>();
  for (const m of members) for (const t of m.topics) if (partitionsPerTopic.has(t)) topics.add(t);
  return [...topics].sort(compareStrings);
}

/** An assignment with an empty list per member, keys in member order. */
export function emptyAssignment(sorted: readonly AssignorMember[]): GroupAssignment {
  return new Map(sorted.map((m) => [m.memberId, [] as TopicPartition[]]));
}

export function sortAssignment(assignment: GroupAssignment): GroupAssignment {
  for (const list of assignment.values()) list.sort(compareTopicPartitions);
  return assignment;
}

export const rangeAssignor: Assignor = {
  name: 'range',
  assign(members, partitionsPerTopic) {
    const sorted = sortedMembers(members, partitionsPerTopic);
    const assignment = emptyAssignment(sorted);
    for (const topic of subscribedTopics(sorted, partitionsPerTopic)) {
      const count = partitionsPerTopic.get(topic)!;
      const consumers = sorted.filter((m) => m.topics.includes(topic));
      const perMember = Math.floor(count / consumers.length);
      const extra = count % consumers.length;
      consumers.forEach((m, i) => {
        const start = perMember * i + Math.min(i, extra);
        const length = perMember + (i < extra ? 1 : 0);
        const list = assignment.get(m.memberId)!;
        for (let p = start; p < start + length; p++) list.push({ topic, partition: p });
      });
    }
    return sortAssignment(assignment);
  },
};
