/**
 * The share group assignor of KIP-932 (Kafka's SimpleAssignor, group.share.assignors "simple"):
 * the group coordinator runs it over the share group's members, the topic ids each subscribes to
 * and the subscribed topics' partition counts whenever the group epoch moves past the target
 * assignment's (share-group.ts). Share partitions may be consumed by several members at once, so
 * unlike the consumer group assignors (server.ts) a partition may go to more than one member.
 *
 * A pure function: same members, subscriptions, topics and previous target, same result, whatever
 * order the members are given in. Each topic is assigned on its own (as Kafka's heterogeneous
 * builder: balance is per topic, and a member subscribed to two topics gets its share of each),
 * over the members subscribed to it sorted by member id:
 *
 * - P partitions >= S subscribed members: each partition goes to exactly one member, every member
 *   gets floor(P/S) or ceil(P/S) of them (P % S members get the extra one).
 * - P < S: every member gets exactly one partition of the topic, and each partition is held by
 *   floor(S/P) or ceil(S/P) members (S % P partitions get the extra holder). (Kafka rounds the
 *   sharing up instead, so that some members then hold two partitions of the topic; here no
 *   member holds more than one while there are fewer partitions than members.)
 *
 * Sticky where it costs no balance, in three passes per topic:
 * 1. each member, in member id order, keeps the partitions it had in the previous target (lowest
 *    numbered first) while it is under the floor of its share and the partition is not already
 *    full (kept by an earlier member, or at the floor of its holders);
 * 2. while extra slots are left (the P % S members with one more partition, or the S % P
 *    partitions with one more holder), members in member id order keep one more previous
 *    partition each: ties for the extra slots go to the lower member id;
 * 3. what is left is handed out in order (partitions by number, or members by id), each to the
 *    least loaded candidate: the member with the fewest partitions of the topic, or the partition
 *    with the fewest holders; ties to the lower member id, or the lower partition number.
 *
 * Topics are named by their Kafka-form topic ids; a member's topics that are not in `partitions`
 * (or have no partitions) are ignored, and every member has an entry in the result (an empty map
 * when it gets nothing).
 */
import type { TopicAssignment } from './server.js';

export const SHARE_SIMPLE_ASSIGNOR = 'simple';

export interface ShareAssignorMember {
  memberId: string;
  /** Topic ids the member subscribes to. */
  topics: readonly string[];
}

export interface ShareAssignorInput {
  members: readonly ShareAssignorMember[];
  /** topic id -> number of partitions. */
  partitions: ReadonlyMap<string, number>;
  /** The previous target assignment, memberId -> partitions (for stickiness). */
  previous: ReadonlyMap<string, TopicAssignment>;
}

function byId(a: ShareAssignorMember, b: ShareAssignorMember): number {
  return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;
}

/** The member's partitions of `topicId` in the previous target that still exist, ascending. */
function previousPartitions(previous: ReadonlyMap<string, TopicAssignment>, memberId: string, topicId: string, n: number): number[] {
  const ps = previous.get(memberId)?.get(topicId);
  if (!ps) return [];
  return [...ps].filter((p) => Number.isInteger(p) && p >= 0 && p < n).sort((a, b) => a - b);
}

/** P >= S: every partition to exactly one member, floor or ceil of P/S each. */
function assignExclusive(topicId: string, n: number, subs: readonly ShareAssignorMember[], previous: ReadonlyMap<string, TopicAssignment>): Map<string, number[]> {
  const quota = Math.floor(n / subs.length);
  let extras = n % subs.length;
  const owner: (string | null)[] = new Array<string | null>(n).fill(null);
  const got = new Map<string, number[]>(subs.map((m) => [m.memberId, []]));
  const prev = new Map(subs.map((m) => [m.memberId, previousPartitions(previous, m.memberId, topicId, n)]));
  const take = (memberId: string, p: number) => {
    owner[p] = memberId;
    got.get(memberId)!.push(p);
  };
  // 1. keep previous partitions up to the floor of the share
  for (const m of subs) {
    for (const p of prev.get(m.memberId)!) {
      if (got.get(m.memberId)!.length >= quota) break;
      if (owner[p] === null) take(m.memberId, p);
    }
  }
  // 2. the extra slots: one more previous partition each, lower member ids first
  for (const m of subs) {
    if (extras === 0) break;
    if (got.get(m.memberId)!.length !== quota) continue;
    const p = prev.get(m.memberId)!.find((q) => owner[q] === null);
    if (p === undefined) continue;
    take(m.memberId, p);
    extras--;
  }
  // 3. the rest, each to the member with the fewest (ties: the lower member id)
  for (let p = 0; p < n; p++) {
    if (owner[p] !== null) continue;
    let best = subs[0]!;
    for (const m of subs) if (got.get(m.memberId)!.length < got.get(best.memberId)!.length) best = m;
    take(best.memberId, p);
  }
  return got;
}

/** P < S: every member gets one partition, each held by floor or ceil of S/P members. */
function assignShared(topicId: string, n: number, subs: readonly ShareAssignorMember[], previous: ReadonlyMap<string, TopicAssignment>): Map<string, number[]> {
  const floor = Math.floor(subs.length / n);
  let extras = subs.length % n;
  const holders = new Array<number>(n).fill(0);
  const placed = new Map<string, number>();
  const prev = new Map(subs.map((m) => [m.memberId, previousPartitions(previous, m.memberId, topicId, n)]));
  const place = (memberId: string, p: number) => {
    placed.set(memberId, p);
    holders[p]!++;
  };
  // 1. keep a previous partition that is under its floor of holders
  for (const m of subs) {
    const p = prev.get(m.memberId)!.find((q) => holders[q]! < floor);
    if (p !== undefined) place(m.memberId, p);
  }
  // 2. the extra holders: a previous partition at its floor, lower member ids first
  for (const m of subs) {
    if (extras === 0) break;
    if (placed.has(m.memberId)) continue;
    const p = prev.get(m.memberId)!.find((q) => holders[q] === floor);
    if (p === undefined) continue;
    place(m.memberId, p);
    extras--;
  }
  // 3. the rest, in member id order, each to the partition with the fewest holders (ties: the lower number)
  for (const m of subs) {
    if (placed.has(m.memberId)) continue;
    let best = 0;
    for (let p = 1; p < n; p++) if (holders[p]! < holders[best]!) best = p;
    place(m.memberId, best);
  }
  return new Map(subs.map((m) => [m.memberId, [placed.get(m.memberId)!]]));
}

/** memberId -> its target partitions; every member has an entry. */
export function assignShareSimple({ members, partitions, previous }: ShareAssignorInput): Map<string, TopicAssignment> {
  const seen = new Set<string>();
  const sorted = [...members].sort(byId).filter((m) => (seen.has(m.memberId) ? false : (seen.add(m.memberId), true)));
  const out = new Map<string, TopicAssignment>(sorted.map((m) => [m.memberId, new Map()]));
  for (const topicId of [...partitions.keys()].sort()) {
    const n = partitions.get(topicId)!;
    if (!(n > 0)) continue;
    const subs = sorted.filter((m) => m.topics.includes(topicId));
    if (subs.length === 0) continue;
    const got = n >= subs.length ? assignExclusive(topicId, n, subs, previous) : assignShared(topicId, n, subs, previous);
    for (const [memberId, ps] of got) if (ps.length > 0) out.get(memberId)!.set(topicId, new Set(ps.sort((a, b) => a - b)));
  }
  return out;
}

export const simpleShareAssignor = {
  name: SHARE_SIMPLE_ASSIGNOR,
  assign: assignShareSimple,
} as const;
