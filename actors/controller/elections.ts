/**
 * Leader and ISR decisions, as pure functions from the metadata state to PartitionChange records
 * (the controller appends them, applies them, then tells the brokers):
 *  - a broker fenced (session expired, or bounced by a re-registration): for each partition it
 *    leads, the new leader is the first ISR member that is eligible; without one the partition
 *    goes offline (NO_LEADER) and keeps its last ISR member, unless unclean leader election
 *    picks any eligible replica (ISR = [it]). Where it only follows, it leaves the ISR;
 *  - a broker in controlled shutdown: the same, except that a partition with no other eligible
 *    ISR member stays led by it (it is reported back as remaining);
 *  - replicas a broker reports offline (a failed log dir): for those partitions only, as if the
 *    broker were fenced (leadership moves to another eligible ISR member, else the partition goes
 *    offline keeping its last ISR member; where it only follows, it leaves the ISR);
 *  - a broker unfenced: offline partitions it can lead (last ISR member, or any replica with
 *    unclean election) elect it;
 *  - an election asked for (Kafka's ElectLeaders): PREFERRED moves leadership back to the
 *    preferred replica (the first assigned) once it is eligible and in the ISR; UNCLEAN gives a
 *    partition without a leader the first eligible ISR member, else the first eligible replica
 *    whatever the topic's unclean.leader.election.enable says (the operator asked for it);
 *  - leader balancing (auto.leader.rebalance.enable): PREFERRED for every partition led by
 *    another replica, as KRaft's controller does every leader.imbalance.check.interval.seconds;
 *  - unclean.leader.election.enable turned on for a topic: UNCLEAN for its partitions without
 *    a leader.
 * A leader change bumps the leader epoch; every change bumps the partition epoch.
 * Compute these on a state where the broker already has its new broker state.
 *
 * With eligible.leader.replicas.version 1 the same events go through eligible-leaders.ts instead
 * (Kafka's PartitionChangeBuilder with ELR on): replicas leaving an ISR below min.insync.replicas
 * (`minIsrDefault`: the controller's min.insync.replicas) join the ELR, the ISR may empty, an
 * empty ISR elects from the ELR; a controlled shutdown still keeps the leadership it cannot hand
 * over. At 0 nothing here changes.
 */
import { NO_LEADER, type PartitionState } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isEligible, type MetadataState, type PartitionChangeRecord, type TopicRecord } from './metadata-state.js';
import { acceptableLeader, effectiveMinIsr, electionFor, elrOn, elrPartitionChange, maintainElr } from './eligible-leaders.js';

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
  minIsrDefault: number,
): PartitionChangeRecord | null {
  const eligible = (id: number) => id !== brokerId && isEligible(state.brokers.get(id));
  if (elrOn(state)) return removeBrokerWithElr(state, topic, p, brokerId, uncleanDefault, keepLeadershipWhenStuck, minIsrDefault);
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

/** removeBroker with ELR on: the broker leaves the ISR (into the ELR when it falls below min ISR), a leader is elected if it led. */
function removeBrokerWithElr(
  state: MetadataState,
  topic: TopicRecord,
  p: PartitionState,
  brokerId: number,
  uncleanDefault: boolean,
  keepLeadershipWhenStuck: boolean,
  minIsrDefault: number,
): PartitionChangeRecord | null {
  if (!p.isr.includes(brokerId) && p.leader !== brokerId) return null;
  const minIsr = effectiveMinIsr(state, topic, minIsrDefault);
  const acceptable = acceptableLeader(state, brokerId);
  const targetIsr = p.isr.filter((r) => r !== brokerId);
  if (p.leader === brokerId && keepLeadershipWhenStuck) {
    const moved = elrPartitionChange(p, { targetIsr, election: 'ONLINE', acceptable, minIsr });
    if (moved && moved.leader !== NO_LEADER) return moved;
    // Controlled shutdown: nobody can take over, so it keeps leading; followers that cannot lead leave the ISR.
    const isr = p.isr.filter((r) => r === brokerId || acceptable(r));
    return sameMembers(isr, p.isr) ? null : maintainElr(p, partitionChange(p, p.leader, isr), minIsr);
  }
  return elrPartitionChange(p, { targetIsr, election: electionFor(topic, uncleanDefault), acceptable, minIsr });
}

/** Changes for a broker that is no longer live (fenced or shut down). */
export function changesForFencedBroker(state: MetadataState, brokerId: number, uncleanDefault: boolean, minIsrDefault = 1): PartitionChangeRecord[] {
  const out: PartitionChangeRecord[] = [];
  for (const t of state.topics.values()) {
    for (const p of t.partitions) {
      const c = removeBroker(state, t, p, brokerId, uncleanDefault, false, minIsrDefault);
      if (c) out.push(c);
    }
  }
  return out;
}

/**
 * Changes for replicas a live broker reports offline (their log dir failed): each named partition
 * the broker leads or follows in, as changesForFencedBroker does for all of them. Idempotent: a
 * report repeated (every heartbeat) changes nothing more.
 */
export function changesForOfflineReplicas(
  state: MetadataState,
  brokerId: number,
  partitions: readonly { topic: string; partition: number }[],
  uncleanDefault: boolean,
  minIsrDefault = 1,
): PartitionChangeRecord[] {
  const out: PartitionChangeRecord[] = [];
  for (const { topic, partition } of partitions) {
    const t = state.topics.get(topic);
    const p = t?.partitions[partition];
    if (!t || !p || !p.replicas.includes(brokerId)) continue;
    const c = removeBroker(state, t, p, brokerId, uncleanDefault, false, minIsrDefault);
    if (c) out.push(c);
  }
  return out;
}

/**
 * Changes for a broker entering controlled shutdown, and the partitions it still leads after
 * them (leadership could not move: no other eligible ISR member); `movable` are those of them
 * with a replica on another live broker, which may yet catch up and take over (the others
 * cannot move however long the broker waits).
 */
export function changesForControlledShutdown(
  state: MetadataState,
  brokerId: number,
  minIsrDefault = 1,
): { changes: PartitionChangeRecord[]; remaining: { topic: string; partition: number }[]; movable: { topic: string; partition: number }[] } {
  const changes: PartitionChangeRecord[] = [];
  const remaining: { topic: string; partition: number }[] = [];
  const movable: { topic: string; partition: number }[] = [];
  for (const t of state.topics.values()) {
    for (const p of t.partitions) {
      const c = removeBroker(state, t, p, brokerId, false, true, minIsrDefault);
      if (c) changes.push(c);
      if ((c ? c.leader : p.leader) !== brokerId) continue;
      remaining.push({ topic: p.topic, partition: p.partition });
      // another replica on a live broker may still catch up, join the ISR and take over
      if (p.replicas.some((r) => r !== brokerId && isEligible(state.brokers.get(r)))) movable.push({ topic: p.topic, partition: p.partition });
    }
  }
  return { changes, remaining, movable };
}

/** Elections for offline partitions that the newly unfenced `brokerId` can lead. */
export function changesForUnfencedBroker(state: MetadataState, brokerId: number, uncleanDefault: boolean, minIsrDefault = 1): PartitionChangeRecord[] {
  const out: PartitionChangeRecord[] = [];
  for (const t of state.topics.values()) {
    for (const p of t.partitions) {
      if (p.leader !== NO_LEADER || !p.replicas.includes(brokerId)) continue;
      if (elrOn(state)) {
        // an ISR member, else (empty ISR) an ELR member, else the last known leader, else unclean if allowed
        const c = elrPartitionChange(p, { targetIsr: p.isr, election: electionFor(t, uncleanDefault), acceptable: acceptableLeader(state), minIsr: effectiveMinIsr(state, t, minIsrDefault) });
        if (c) out.push(c);
        continue;
      }
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

/** Kafka's ElectionType: the preferred replica, or any eligible replica of a partition without a leader. */
export const ElectionType = Object.freeze({ PREFERRED: 0, UNCLEAN: 1 });
export type ElectionTypeValue = (typeof ElectionType)[keyof typeof ElectionType];

/** The election a request asked for: a change to commit, or why there is none (errors as data). */
export type ElectionOutcome = { ok: true; change: PartitionChangeRecord } | { ok: false; errorCode: number; errorMessage: string };

/** True when `p` is led by a replica other than its preferred one (the first assigned). */
export function isImbalanced(p: PartitionState): boolean {
  return p.replicas.length > 0 && p.leader !== p.replicas[0];
}

/** Leadership back to the preferred replica, when it is eligible and in the ISR; null otherwise. */
export function preferredLeaderChange(state: MetadataState, p: PartitionState): PartitionChangeRecord | null {
  const preferred = p.replicas[0];
  if (preferred === undefined || p.leader === preferred) return null;
  if (!p.isr.includes(preferred) || !isEligible(state.brokers.get(preferred))) return null;
  // the ISR stays as it is, and so does the ELR (an infinite min ISR keeps it); LastKnownElr clears with a leader
  return elrOn(state) ? maintainElr(p, partitionChange(p, preferred, p.isr), Infinity) : partitionChange(p, preferred, p.isr);
}

/** One partition's election of `type` (Kafka's ElectLeaders), as the controller would commit it. */
export function electLeader(state: MetadataState, p: PartitionState, type: ElectionTypeValue, minIsrDefault = 1): ElectionOutcome {
  const name = `${p.topic}-${p.partition}`;
  if (type === ElectionType.PREFERRED) {
    const preferred = p.replicas[0]!;
    if (p.leader === preferred) return { ok: false, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: `${name} is already led by its preferred replica ${preferred}` };
    const change = preferredLeaderChange(state, p);
    if (change) return { ok: true, change };
    const why = !isEligible(state.brokers.get(preferred)) ? 'is not a live, unfenced broker' : `is not in the ISR ${JSON.stringify(p.isr)}`;
    return { ok: false, errorCode: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, errorMessage: `the preferred replica ${preferred} of ${name} ${why}` };
  }
  if (p.leader !== NO_LEADER) return { ok: false, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: `${name} has a leader (${p.leader})` };
  const eligible = (id: number) => isEligible(state.brokers.get(id));
  const topic = state.topics.get(p.topic);
  if (elrOn(state) && topic) {
    // the ISR first, then (ISR empty) the ELR, then the last known leader, then any replica
    const change = elrPartitionChange(p, { targetIsr: p.isr, election: 'UNCLEAN', acceptable: acceptableLeader(state), minIsr: effectiveMinIsr(state, topic, minIsrDefault) });
    if (change && change.leader !== NO_LEADER) return { ok: true, change };
    return { ok: false, errorCode: ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, errorMessage: `no replica of ${name} (${JSON.stringify(p.replicas)}) is a live, unfenced broker` };
  }
  const fromIsr = p.isr.find(eligible);
  if (fromIsr !== undefined) return { ok: true, change: partitionChange(p, fromIsr, p.isr.filter(eligible)) };
  const any = p.replicas.find(eligible);
  if (any !== undefined) return { ok: true, change: partitionChange(p, any, [any]) };
  return { ok: false, errorCode: ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, errorMessage: `no replica of ${name} (${JSON.stringify(p.replicas)}) is a live, unfenced broker` };
}

/**
 * Preferred-replica elections for the partitions led by another replica whose preferred replica
 * can lead now, at most `max` of them (`more`: some were left for a next round), in topic order.
 */
export function balancingChanges(state: MetadataState, max: number): { changes: PartitionChangeRecord[]; more: boolean } {
  const changes: PartitionChangeRecord[] = [];
  for (const t of state.topics.values()) {
    for (const p of t.partitions) {
      const c = preferredLeaderChange(state, p);
      if (!c) continue;
      if (changes.length === max) return { changes, more: true };
      changes.push(c);
    }
  }
  return { changes, more: false };
}

/** True when some partition is led by a replica other than its preferred one (or has no leader). */
export function hasImbalance(state: MetadataState): boolean {
  for (const t of state.topics.values()) for (const p of t.partitions) if (isImbalanced(p)) return true;
  return false;
}

/**
 * Unclean elections for the partitions of `topic` that have no leader, when its
 * unclean.leader.election.enable (or the controller's default) allows them: what KRaft's
 * controller does for leaderless partitions once unclean election is enabled for their topic.
 */
export function uncleanChangesForTopic(state: MetadataState, topic: TopicRecord, uncleanDefault: boolean, minIsrDefault = 1): PartitionChangeRecord[] {
  if (!uncleanElectionEnabled(topic, uncleanDefault)) return [];
  const out: PartitionChangeRecord[] = [];
  for (const p of topic.partitions) {
    if (p.leader !== NO_LEADER) continue;
    const outcome = electLeader(state, p, ElectionType.UNCLEAN, minIsrDefault);
    if (outcome.ok) out.push(outcome.change);
  }
  return out;
}
