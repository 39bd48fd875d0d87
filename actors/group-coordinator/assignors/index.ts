/**
 * The partition assignors a consumer group leader can run (range, roundrobin, sticky), their
 * common interface, the registry by protocol name, and a checker for an assignment's basic
 * guarantees. Assignors are pure functions of the members' subscriptions and the partition
 * counts: same input, same output, whatever the order of the members given.
 */
import type { TopicPartition } from '../consumer-protocol.js';
import { rangeAssignor } from './range.js';
import { roundRobinAssignor } from './roundrobin.js';
import { stickyAssignor } from './sticky.js';

export type { TopicPartition } from '../consumer-protocol.js';
export { rangeAssignor } from './range.js';
export { roundRobinAssignor } from './roundrobin.js';
export { stickyAssignor } from './sticky.js';

export type AssignorName = 'range' | 'roundrobin' | 'sticky';

/** One group member as the leader sees it (from the member's Subscription). */
export interface AssignorMember {
  memberId: string;
  /** Static members (KIP-345) are ordered by instance id, before dynamic ones, as in Kafka. */
  groupInstanceId?: string | null;
  topics: readonly string[];
  /** The partitions the member owned in its last generation (Subscription v1+). */
  ownedPartitions?: readonly TopicPartition[];
  /** The generation of ownedPartitions (Subscription v2+); unknown counts as -1. */
  generation?: number;
}

/** memberId -> its partitions, sorted by topic then partition; every member has an entry. */
export type GroupAssignment = Map<string, TopicPartition[]>;

export interface Assignor {
  readonly name: AssignorName;
  /**
   * Assigns every partition of every subscribed topic in `partitionsPerTopic` to exactly one
   * member subscribed to that topic. Subscribed topics missing from `partitionsPerTopic` are
   * skipped. Throws on duplicate member ids or a partition count that is not a non-negative
   * integer (programming errors of the caller).
   */
  assign(members: readonly AssignorMember[], partitionsPerTopic: ReadonlyMap<string, number>): GroupAssignment;
}

/** All assignors, in Kafka's default preference order for a consumer that offers several. */
export const ASSIGNORS: readonly Assignor[] = [rangeAssignor, roundRobinAssignor, stickyAssignor];

export function isAssignorName(name: string): name is AssignorName {
  return name === 'range' || name === 'roundrobin' || name === 'sticky';
}

/** The assignor for a protocol name, or undefined for a name we do not implement. */
export function getAssignor(name: string): Assignor | undefined {
  return ASSIGNORS.find((a) => a.name === name);
}

/**
 * The problems with `assignment`, empty when it gives every partition of every subscribed,
 * existing topic to exactly one member subscribed to it, names only known members and existing
 * partitions, and has an entry for every member.
 */
export function validateAssignment(
  members: readonly AssignorMember[],
  partitionsPerTopic: ReadonlyMap<string, number>,
  assignment: ReadonlyMap<string, readonly TopicPartition[]>,
): string[] {
  const problems: string[] = [];
  const subscriptions = new Map(members.map((m) => [m.memberId, new Set(m.topics)]));
  const owners = new Map<string, string>();
  for (const m of members) {
    if (!assignment.has(m.memberId)) problems.push(`member ${m.memberId} has no entry`);
  }
  for (const [memberId, partitions] of assignment) {
    const topics = subscriptions.get(memberId);
    if (!topics) {
      problems.push(`unknown member ${memberId} was assigned partitions`);
      continue;
    }
    for (const { topic, partition } of partitions) {
      const name = `${topic}-${partition}`;
      const count = partitionsPerTopic.get(topic);
      if (count === undefined || !Number.isInteger(partition) || partition < 0 || partition >= count) {
        problems.push(`${name} assigned to ${memberId} does not exist`);
      }
      if (!topics.has(topic)) problems.push(`${name} assigned to ${memberId}, which is not subscribed to ${topic}`);
      const other = owners.get(name);
      if (other !== undefined) problems.push(`${name} assigned to both ${other} and ${memberId}`);
      else owners.set(name, memberId);
    }
  }
  const subscribed = new Set(members.flatMap((m) => m.topics));
  for (const topic of subscribed) {
    const count = partitionsPerTopic.get(topic) ?? 0;
    for (let p = 0; p < count; p++) {
      if (!owners.has(`${topic}-${p}`)) problems.push(`${topic}-${p} is not assigned`);
    }
  }
  return problems;
}
