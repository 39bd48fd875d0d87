/**
 * Leader and ISR decisions, as pure functions from the metadata state to PartitionChange records
 * (the controller appends them, applies them, then tells the brokers):
 *  - a broker fenced (session expired, or bounced by a re-registration): for each partition it
 *    leads, the new leader is the first ISR member that is eligible; without one the partition
 *    goes offline (NO_LEADER) and keeps its last ISR member, unless unclean leader election
 *    picks any eligible replica (ISR = [it]). Where it only follows, it leaves the ISR;
 *  - a broker in controlled shutdown: the same, except that a partition with no other eligible
 *    ISR member stays led by it (it is reported back as remaining);
 *  - a broker unfenced: offline partitions it can lead (last ISR member, or any replica with
 *    unclean election) elect it.
 * A leader change bumps the leader epoch; every change bumps the partition epoch.
 * Compute these on a state where the broker already has its new broker state.
 */
import { NO_LEADER, type PartitionState } from '../../src/protocol/cluster.js';
import { isEligible, type MetadataState, type PartitionChangeRecord, type TopicRecord } from './metadata-state.js';

export const UNCLEAN_LEADER_ELECTION_KEY = 'unclean.leader.election.enable';

/** The topic's unclean.leader.election.enable, or the controller's default. */
export function uncleanElectionEnabled(topic: TopicRecord, controllerDefault: boolean): boolean {
  const raw = topic.config[UNCLEAN_LEADER_ELECTION_KEY];
  if (raw === undefined) return controllerDefault;
  return String(raw).trim().toLowerCase() === 'true';
}

/** A PartitionChange from `p` to a new leader and ISR, with the epochs bumped as they must be. */
export function partitionChange(p: PartitionState, leader: number, isr: readonly number[]): PartitionChangeRecord {
  return {
    type: 'PartitionChange',
    topic: p.topic,
    partition: p.partition,
    leader,
    isr: [...isr],
    leaderEpoch: leader !== p.leader ? p.leaderEpoch + 1 : p.leaderEpoch,
    partitionEpoch: p.partitionEpoch + 1,
  };
}

function sameMembers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The change that takes `brokerId` out of `p` (leadership and ISR), or null when it has no role there. */
function removeBroker(
  state: MetadataState,
  topic: TopicRecord,
  p: PartitionState,
  brokerId: number,
  uncleanDefault: boolean,
  keepLeadershipWhenStuck: boolean,
): PartitionChangeRecord | null {
  const eligible = (id: number) => id !== brokerId && isEligible(state.brokers.get(id));
  if (p.leader === brokerId) {
    const next = p.isr.find(eligible);
    if (next !== undefined) return partitionChange(p, next, p.isr.filter((r) => r !== brokerId));
    if (keepLeadershipWhenStuck) {
      // Controlled shutdown: nobody can take over, so it keeps leading; followers leave the ISR.
      const isr = p.isr.filter((r) => r === brokerId || eligible(r));
      return sameMembers(isr, p.isr) ? null : partitionChange(p, p.leader, isr);
    }
    if (uncleanElectionEnabled(topic, uncleanDefault)) {
      const any = p.replicas.find(eligible);
      if (any !== undefined) return partitionChange(p, any, [any]);
    }
    const rest = p.isr.filter((r) => r !== brokerId);
    return partitionChange(p, NO_LEADER, rest.length > 0 ? rest : [brokerId]);
  }
  if (p.leader !== NO_LEADER && p.isr.includes(brokerId)) {
    return partitionChange(p, p.leader, p.isr.filter((r) => r !== brokerId));
  }
  return null;
}

/** Changes for a broker that is no longer live (fenced or shut down). */
export function changesForFencedBroker(state: MetadataState, brokerId: number, uncleanDefault: boolean): PartitionChangeRecord[] {
  const out: PartitionChangeRecord[] = [];
  for (const t of state.topics.values()) {
    for (const p of t.partitions) {
      const c = removeBroker(state, t, p, brokerId, uncleanDefault, false);
      if (c) out.push(c);
    }
  }
  return out;
}

/**
 * Changes for a broker entering controlled shutdown, and the partitions it still leads after
 * them (leadership could not move: no other eligible ISR member).
 */
export function changesForControlledShutdown(
  state: MetadataState,
  brokerId: number,
): { changes: PartitionChangeRecord[]; remaining: { topic: string; partition: number }[] } {
  const changes: PartitionChangeRecord[] = [];
  const remaining: { topic: string; partition: number }[] = [];
  for (const t of state.topics.values()) {
    for (const p of t.partitions) {
      const c = removeBroker(state, t, p, brokerId, false, true);
      if (c) changes.push(c);
      if ((c ? c.leader : p.leader) === brokerId) remaining.push({ topic: p.topic, partition: p.partition });
    }
  }
  return { changes, remaining };
}

/** Elections for offline partitions that the newly unfenced `brokerId` can lead. */
export function changesForUnfencedBroker(state: MetadataState, brokerId: number, uncleanDefault: boolean): PartitionChangeRecord[] {
  const out: PartitionChangeRecord[] = [];
  for (const t of state.topics.values()) {
    for (const p of t.partitions) {
      if (p.leader !== NO_LEADER || !p.replicas.includes(brokerId)) continue;
      if (p.isr.includes(brokerId)) {
        // The last ISR member is back: it leads again; other ISR members, if any, must be eligible.
        const isr = p.isr.filter((r) => r === brokerId || isEligible(state.brokers.get(r)));
        out.push(partitionChange(p, brokerId, isr));
      } else if (uncleanElectionEnabled(t, uncleanDefault)) {
        out.push(partitionChange(p, brokerId, [brokerId]));
      }
    }
  }
  return out;
}
