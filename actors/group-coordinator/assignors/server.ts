/**
 * The server-side assignors of KIP-848 consumer groups (group.consumer.assignors: "uniform", the
 * default, and "range"): the group coordinator runs them itself, over the members'
 * subscriptions and the subscribed topics' partition counts, whenever the group epoch moves past
 * the target assignment's. Topics are named by their (Kafka-form) topic ids. Both are pure
 * functions: same members, subscriptions, topics and previous target, same result, whatever the
 * order the members are given in.
 *
 * - uniform (Kafka's UniformAssignor): every partition goes to a member subscribed to its topic,
 *   the counts as even as the subscriptions allow, and sticky: a partition stays with the member
 *   that has it in the previous target while that member is subscribed and under its share.
 *   Shares are rounded up, so the previous owners may keep more than balance allows (4 partitions,
 *   3 members, two of them keeping 2 each); a last pass moves a partition from a member to one
 *   subscribed to its topic with at least 2 fewer, until none is left, so that with the same
 *   subscriptions the counts differ by at most one, as Kafka's. (Kafka's homogeneous and
 *   heterogeneous builders differ in how they break ties; this one balances per member across
 *   all its topics, taking the least loaded eligible member, ties to the lower member key.)
 * - range (Kafka's RangeAssignor): per topic, the subscribed members sorted by instance id (static
 *   members) or member id get contiguous ranges, the first `partitions % members` one extra, so
 *   members subscribed to the same co-partitioned topics get the same partition numbers.
 */

/** topic id -> partitions. */
export type TopicAssignment = Map<string, Set<number>>;

export interface ServerAssignorMember {
  memberId: string;
  instanceId: string | null;
  /** Topic ids the member subscribes to (only topics that exist). */
  topics: readonly string[];
}

export interface ServerAssignorInput {
  members: readonly ServerAssignorMember[];
  /** topic id -> number of partitions. */
  partitions: ReadonlyMap<string, number>;
  /** The previous target assignment, memberId -> partitions (for stickiness). */
  previous: ReadonlyMap<string, TopicAssignment>;
}

export interface ServerAssignor {
  readonly name: string;
  /** memberId -> its partitions; every member has an entry. */
  assign(input: ServerAssignorInput): Map<string, TopicAssignment>;
}

/** group.consumer.assignors default: the first is the group's default. */
export const DEFAULT_SERVER_ASSIGNOR = 'uniform';

function memberKey(m: ServerAssignorMember): string {
  return m.instanceId ?? m.memberId;
}

function byKey(a: ServerAssignorMember, b: ServerAssignorMember): number {
  const ka = memberKey(a);
  const kb = memberKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;
}

function add(out: Map<string, TopicAssignment>, memberId: string, topicId: string, partition: number): void {
  const a = out.get(memberId)!;
  let set = a.get(topicId);
  if (!set) a.set(topicId, (set = new Set()));
  set.add(partition);
}

export const rangeServerAssignor: ServerAssignor = {
  name: 'range',
  assign({ members, partitions }) {
    const out = new Map<string, TopicAssignment>(members.map((m) => [m.memberId, new Map()]));
    for (const topicId of [...partitions.keys()].sort()) {
      const n = partitions.get(topicId)!;
      const subs = members.filter((m) => m.topics.includes(topicId)).sort(byKey);
      if (subs.length === 0 || n <= 0) continue;
      const quota = Math.floor(n / subs.length);
      const extra = n % subs.length;
      let next = 0;
      subs.forEach((m, i) => {
        const count = quota + (i < extra ? 1 : 0);
        for (let k = 0; k < count; k++) add(out, m.memberId, topicId, next++);
      });
    }
    return out;
  },
};

export const uniformServerAssignor: ServerAssignor = {
  name: 'uniform',
  assign({ members, partitions, previous }) {
    const sorted = [...members].sort(byKey);
    const out = new Map<string, TopicAssignment>(sorted.map((m) => [m.memberId, new Map()]));
    const load = new Map<string, number>(sorted.map((m) => [m.memberId, 0]));
    const subscribers = new Map<string, ServerAssignorMember[]>();
    for (const topicId of partitions.keys()) subscribers.set(topicId, sorted.filter((m) => m.topics.includes(topicId)));
    // each member's fair share: the partitions it could take, spread over those who could take them
    const share = new Map<string, number>();
    for (const m of sorted) {
      let s = 0;
      for (const t of m.topics) {
        const n = partitions.get(t);
        const subs = subscribers.get(t)?.length ?? 0;
        if (n !== undefined && subs > 0) s += n / subs;
      }
      share.set(m.memberId, Math.ceil(s));
    }
    const unassigned: [string, number][] = [];
    const taken = new Set<string>();
    // 1. stickiness: keep previous owners while subscribed and within their share
    for (const m of sorted) {
      const prev = previous.get(m.memberId);
      if (!prev) continue;
      for (const [topicId, ps] of [...prev].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const n = partitions.get(topicId);
        if (n === undefined || !m.topics.includes(topicId)) continue;
        for (const p of [...ps].sort((a, b) => a - b)) {
          if (p >= n || load.get(m.memberId)! >= share.get(m.memberId)!) continue;
          const k = `${topicId}:${p}`;
          if (taken.has(k)) continue;
          taken.add(k);
          add(out, m.memberId, topicId, p);
          load.set(m.memberId, load.get(m.memberId)! + 1);
        }
      }
    }
    for (const topicId of [...partitions.keys()].sort()) {
      for (let p = 0; p < partitions.get(topicId)!; p++) if (!taken.has(`${topicId}:${p}`)) unassigned.push([topicId, p]);
    }
    // 2. the rest to the least loaded subscribed member
    for (const [topicId, p] of unassigned) {
      const subs = subscribers.get(topicId) ?? [];
      let best: ServerAssignorMember | null = null;
      for (const m of subs) if (best === null || load.get(m.memberId)! < load.get(best.memberId)!) best = m;
      if (!best) continue;
      add(out, best.memberId, topicId, p);
      load.set(best.memberId, load.get(best.memberId)! + 1);
    }
    balance(sorted, out, load);
    return out;
  },
};

/**
 * Moves partitions from a member to a less loaded one subscribed to their topic while some pair
 * differs by 2 or more: the least loaded member first takes from the most loaded that has a
 * partition it may own (the highest-numbered of the lowest topic id). Each move narrows the gap,
 * so it ends.
 */
function balance(members: readonly ServerAssignorMember[], out: Map<string, TopicAssignment>, load: Map<string, number>): void {
  for (;;) {
    const ascending = [...members].sort((a, b) => load.get(a.memberId)! - load.get(b.memberId)! || byKey(a, b));
    let moved = false;
    for (const to of ascending) {
      const donors = [...ascending].reverse().filter((m) => load.get(m.memberId)! >= load.get(to.memberId)! + 2);
      for (const from of donors) {
        const owned = out.get(from.memberId)!;
        const topicId = [...owned.keys()].filter((t) => owned.get(t)!.size > 0 && to.topics.includes(t)).sort()[0];
        if (topicId === undefined) continue;
        const ps = owned.get(topicId)!;
        const p = Math.max(...ps);
        ps.delete(p);
        if (ps.size === 0) owned.delete(topicId);
        add(out, to.memberId, topicId, p);
        load.set(from.memberId, load.get(from.memberId)! - 1);
        load.set(to.memberId, load.get(to.memberId)! + 1);
        moved = true;
        break;
      }
      if (moved) break;
    }
    if (!moved) return;
  }
}

export const SERVER_ASSIGNORS: ReadonlyMap<string, ServerAssignor> = new Map([
  [uniformServerAssignor.name, uniformServerAssignor],
  [rangeServerAssignor.name, rangeServerAssignor],
]);
