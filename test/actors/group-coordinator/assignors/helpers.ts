/**
 * Shared helpers for the assignor tests: building members, printing assignments compactly,
 * Kafka's balance check, movement between two assignments, and fast-check arbitraries for groups.
 */
import fc from 'fast-check';
import type { AssignorMember, GroupAssignment, TopicPartition } from '../../../../actors/group-coordinator/assignors/index.js';

/** Members from { memberId: topics }. */
export function members(spec: Record<string, string[]>): AssignorMember[] {
  return Object.entries(spec).map(([memberId, topics]) => ({ memberId, topics }));
}

export const tpName = ({ topic, partition }: TopicPartition): string => `${topic}p${partition}`;

/** { memberId: ['t0p0', ...] } for readable deep-equal assertions. */
export function show(assignment: GroupAssignment): Record<string, string[]> {
  return Object.fromEntries([...assignment].map(([id, tps]) => [id, tps.map(tpName)]));
}

/** Kafka's balance: no partition of A could go to a subscribed B with count(B) < count(A) - 1. */
export function balanceViolation(ms: readonly AssignorMember[], assignment: GroupAssignment): string | null {
  for (const a of ms) {
    const mine = assignment.get(a.memberId)!;
    for (const b of ms) {
      if (a === b) continue;
      const theirs = assignment.get(b.memberId)!;
      if (theirs.length >= mine.length - 1) continue;
      const movable = mine.find((tp) => b.topics.includes(tp.topic));
      if (movable) return `${tpName(movable)} could move from ${a.memberId} (${mine.length}) to ${b.memberId} (${theirs.length})`;
    }
  }
  return null;
}

/** partition name -> owner. */
export function owners(assignment: ReadonlyMap<string, readonly TopicPartition[]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, tps] of assignment) for (const tp of tps) out.set(tpName(tp), id);
  return out;
}

/** How many partitions owned by a member in `before` that is still present are elsewhere in `after`. */
export function movement(before: ReadonlyMap<string, readonly TopicPartition[]>, after: GroupAssignment): number {
  const now = owners(after);
  let moved = 0;
  for (const [id, tps] of before) {
    if (!after.has(id)) continue;
    for (const tp of tps) if (now.has(tpName(tp)) && now.get(tpName(tp)) !== id) moved++;
  }
  return moved;
}

/**
 * The fewest moves any balanced assignment needs with identical subscriptions: P partitions,
 * M members, members keeping `owned[i]` of their previous partitions; quotas floor(P/M) and, for
 * the P % M members that owned most, one more.
 */
export function minimalMovement(owned: number[], numPartitions: number): number {
  const m = owned.length;
  const q = Math.floor(numPartitions / m);
  const r = numPartitions % m;
  return [...owned]
    .sort((a, b) => b - a)
    .reduce((sum, o, i) => sum + Math.max(0, o - (i < r ? q + 1 : q)), 0);
}

export interface Group {
  members: AssignorMember[];
  partitionsPerTopic: Map<string, number>;
}

/** Topic names t0..t{n-1} with 0..maxPartitions partitions each. */
export const topicsArb = (maxTopics: number, maxPartitions: number): fc.Arbitrary<Map<string, number>> =>
  fc
    .array(fc.integer({ min: 0, max: maxPartitions }), { minLength: 1, maxLength: maxTopics })
    .map((counts) => new Map(counts.map((c, i) => [`t${i}`, c])));

/** A group whose members subscribe to random non-empty subsets of the topics. */
export const heterogeneousGroupArb = (maxMembers = 8, maxTopics = 5, maxPartitions = 8): fc.Arbitrary<Group> =>
  topicsArb(maxTopics, maxPartitions).chain((partitionsPerTopic) => {
    const names = [...partitionsPerTopic.keys()];
    return fc
      .uniqueArray(fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', '1', '2') }), {
        minLength: 1,
        maxLength: maxMembers,
      })
      .chain((ids) =>
        fc.tuple(...ids.map(() => fc.subarray(names, { minLength: 1 }))).map((subs) => ({
          members: ids.map((memberId, i) => ({ memberId, topics: subs[i]! })),
          partitionsPerTopic,
        })),
      );
  });

/** A group whose members all subscribe to every topic. */
export const homogeneousGroupArb = (maxMembers = 8, maxTopics = 4, maxPartitions = 10): fc.Arbitrary<Group> =>
  fc.tuple(topicsArb(maxTopics, maxPartitions), fc.integer({ min: 1, max: maxMembers })).map(([partitionsPerTopic, n]) => ({
    members: Array.from({ length: n }, (_, i) => ({ memberId: `m${String(i).padStart(2, '0')}`, topics: [...partitionsPerTopic.keys()] })),
    partitionsPerTopic,
  }));

/** Every topic-partition of the map. */
export function allPartitions(partitionsPerTopic: ReadonlyMap<string, number>): TopicPartition[] {
  return [...partitionsPerTopic].flatMap(([topic, n]) => Array.from({ length: n }, (_, partition) => ({ topic, partition })));
}
