/**
 * Kafka's RoundRobinAssignor: all partitions of all subscribed topics, sorted by topic then
 * partition, are dealt to the members in order (Kafka's MemberInfo order) around a circle; a
 * member not subscribed to a partition's topic is skipped for that partition. With identical
 * subscriptions the counts differ by at most one.
 */
import type { Assignor } from './index.js';
import { emptyAssignment, sortAssignment, sortedMembers, subscribedTopics } from './range.js';

export const roundRobinAssignor: Assignor = {
  name: 'roundrobin',
  assign(members, partitionsPerTopic) {
    const sorted = sortedMembers(members, partitionsPerTopic);
    const assignment = emptyAssignment(sorted);
    const subscriptions = sorted.map((m) => new Set(m.topics));
    let next = 0;
    for (const topic of subscribedTopics(sorted, partitionsPerTopic)) {
      const count = partitionsPerTopic.get(topic)!;
      for (let partition = 0; partition < count; partition++) {
        // Some member subscribes to every topic in the list, so this stops within one lap.
        while (!subscriptions[next]!.has(topic)) next = (next + 1) % sorted.length;
        assignment.get(sorted[next]!.memberId)!.push({ topic, partition });
        next = (next + 1) % sorted.length;
      }
    }
    return sortAssignment(assignment);
  },
};
