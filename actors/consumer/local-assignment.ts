/**
 * A KIP-848 member's assignment as the consumer keeps it (Kafka's LocalAssignment): partitions by
 * topic id, with a local epoch that moves on whenever the coordinator sends a different target, so
 * that an assignment made effective is reported once in the next heartbeat even when its
 * partitions equal an earlier one's. NONE (local epoch -1) is "no assignment yet".
 */
import type { TopicIdPartitions } from '../group-coordinator/messages.js';

export class LocalAssignment {
  static readonly NONE_EPOCH = -1;
  static readonly NONE = new LocalAssignment(LocalAssignment.NONE_EPOCH, new Map());

  /** topic id -> its partitions, ascending; topics without partitions are left out. */
  readonly partitions: ReadonlyMap<string, readonly number[]>;

  constructor(
    readonly localEpoch: number,
    partitions: ReadonlyMap<string, Iterable<number>>,
  ) {
    const out = new Map<string, number[]>();
    for (const [topicId, ps] of partitions) {
      const list = [...new Set(ps)].sort((a, b) => a - b);
      if (list.length > 0) out.set(topicId, list);
    }
    if (localEpoch === LocalAssignment.NONE_EPOCH && out.size > 0) throw new Error('an assignment with partitions needs a local epoch');
    this.partitions = out;
  }

  /** From the coordinator's list (a topic may appear more than once). */
  static fromTopicPartitions(localEpoch: number, list: readonly TopicIdPartitions[]): LocalAssignment {
    const m = new Map<string, number[]>();
    for (const t of list) m.set(t.topicId, [...(m.get(t.topicId) ?? []), ...t.partitions]);
    return new LocalAssignment(localEpoch, m);
  }

  isNone(): boolean {
    return this.localEpoch === LocalAssignment.NONE_EPOCH;
  }

  size(): number {
    let n = 0;
    for (const ps of this.partitions.values()) n += ps.length;
    return n;
  }

  samePartitions(other: LocalAssignment): boolean {
    if (this.partitions.size !== other.partitions.size) return false;
    for (const [t, ps] of this.partitions) {
      const qs = other.partitions.get(t);
      if (!qs || qs.length !== ps.length || ps.some((p, i) => qs[i] !== p)) return false;
    }
    return true;
  }

  equals(other: LocalAssignment | null): boolean {
    return other !== null && this.localEpoch === other.localEpoch && this.samePartitions(other);
  }

  /** The next target: a new local epoch when the partitions differ (or there was none), else null. */
  updateWith(next: LocalAssignment): LocalAssignment | null {
    if (!this.isNone() && this.samePartitions(next)) return null;
    return new LocalAssignment(this.localEpoch + 1, next.partitions);
  }

  toTopicPartitions(): TopicIdPartitions[] {
    return [...this.partitions].map(([topicId, partitions]) => ({ topicId, partitions: [...partitions] }));
  }
}
