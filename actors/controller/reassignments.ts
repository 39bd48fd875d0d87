/**
 * Partition reassignment (Kafka's KIP-455, as KRaft's controller does it), as pure functions from
 * the metadata state to PartitionChange records:
 *  - start: the partition's replicas become the target followed by the original replicas that
 *    are not in it; those of the target that were not replicas are `addingReplicas` (they are
 *    told to follow the leader and catch up), the originals not in the target `removingReplicas`;
 *  - complete: once every target replica is in the ISR, the replicas become the target, the ISR
 *    keeps only target replicas, and a leader outside the target hands over to the first
 *    eligible target replica in the ISR; the removed replicas are told to delete their copy;
 *  - cancel: back to the original replicas (the replicas minus those being added), the same way;
 *  - a new target for a partition in the middle of a reassignment starts over from its original
 *    replicas, as Kafka does.
 * A partition is "reassigning" while it has adding or removing replicas. Reordering the same
 * replicas completes at once (only the preferred leader changes).
 *
 * With KIP-860's allowReplicationFactorChange false, a target whose length is not the partition's
 * replication factor is refused (replicationFactorChange); cancelling is always allowed.
 *
 * Partition states: Stable --start(target differs)--> Reassigning --all target in ISR--> Stable;
 * Reassigning --cancel--> Stable; Reassigning --start(new target)--> Reassigning | Stable;
 * Stable --cancel--> refused (NO_REASSIGNMENT_IN_PROGRESS).
 *
 * With eligible leader replicas on, a step keeps the partition's ELR less the replicas it
 * removes, and clears LastKnownElr when it gives the partition a leader (eligible-leaders.ts).
 */
import { NO_LEADER, type PartitionState } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { partitionChange } from './elections.js';
import { isEligible, type MetadataState, type PartitionChangeRecord } from './metadata-state.js';
import { elrOn, maintainElr } from './eligible-leaders.js';

export type ReassignmentOutcome = { ok: true; change: PartitionChangeRecord | null } | { ok: false; errorCode: number; errorMessage: string };

export function isReassigning(p: PartitionState): boolean {
  return (p.addingReplicas?.length ?? 0) > 0 || (p.removingReplicas?.length ?? 0) > 0;
}

/** The replicas before the reassignment in progress (all of them when there is none). */
export function originalReplicas(p: PartitionState): number[] {
  const adding = p.addingReplicas ?? [];
  return p.replicas.filter((r) => !adding.includes(r));
}

/** The replicas the partition ends up with (all of them when no reassignment is in progress). */
export function targetReplicas(p: PartitionState): number[] {
  const removing = p.removingReplicas ?? [];
  return p.replicas.filter((r) => !removing.includes(r));
}

/** Why `target` cannot be a partition's replica list, or null. */
export function validateTarget(state: MetadataState, target: unknown): string | null {
  if (!Array.isArray(target) || target.length === 0) return 'The replica list must name at least one broker.';
  if (!target.every((r) => Number.isSafeInteger(r) && r >= 0)) return `The replica list ${JSON.stringify(target)} must hold broker ids (integers >= 0).`;
  if (new Set(target).size !== target.length) return `The replica list ${JSON.stringify(target)} names a broker more than once.`;
  // as in Kafka, a registered broker that is down may be a target: the reassignment waits for it
  for (const r of target as number[]) if (!state.brokers.has(r)) return `The replica list includes broker ${r}, but no such broker is registered.`;
  return null;
}

/**
 * KIP-860: why moving `p` to `target` would change its replication factor, or null. The factor is
 * the number of replicas the partition is headed for: its replicas, or during a reassignment the
 * target of that reassignment (its replicas but those being removed), as Kafka's controller
 * counts it (ReplicationControlManager.validatePartitionReplicationFactorUnchanged).
 */
export function replicationFactorChange(p: PartitionState, target: readonly number[]): string | null {
  const current = targetReplicas(p).length;
  return current === target.length ? null : `The replication factor is changed from ${current} to ${target.length}`;
}

/**
 * A change to `replicas` (with adding/removing) that keeps the ISR within them and a leader among
 * them: the current leader if it stays, else the first eligible ISR member in `replicas` order.
 * Null when no in-sync replica would be left, or no eligible one to lead a partition that has a
 * leader now.
 */
function changeTo(state: MetadataState, p: PartitionState, replicas: number[], adding: number[], removing: number[]): PartitionChangeRecord | null {
  const isr = p.isr.filter((r) => replicas.includes(r));
  if (isr.length === 0) return null;
  let leader = p.leader;
  if (leader === NO_LEADER || !replicas.includes(leader)) {
    leader = replicas.find((r) => isr.includes(r) && isEligible(state.brokers.get(r))) ?? NO_LEADER;
    // a led partition is not taken offline by a reassignment: it waits for an eligible leader
    if (leader === NO_LEADER && p.leader !== NO_LEADER) return null;
  }
  const change = { ...partitionChange(p, leader, isr), replicas: [...replicas], addingReplicas: adding, removingReplicas: removing };
  // the ELR stays (an infinite min ISR keeps it) less the replicas removed
  return elrOn(state) ? maintainElr(p, change, Infinity) : change;
}

const noInSyncReplica = (p: PartitionState, replicas: readonly number[]) => ({
  ok: false as const,
  errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
  errorMessage: `${p.topic}-${p.partition}: no live replica among ${JSON.stringify(replicas)} is in the ISR ${JSON.stringify(p.isr)}, so the partition would have no in-sync replica to lead it`,
});

/** Starts (or restarts with a new target) the reassignment of `p` to `target` (validated). */
export function startReassignment(state: MetadataState, p: PartitionState, target: readonly number[]): ReassignmentOutcome {
  const original = originalReplicas(p);
  const sameAsNow = target.length === p.replicas.length && target.every((r, i) => r === p.replicas[i]) && !isReassigning(p);
  if (sameAsNow) return { ok: true, change: null };
  const adding = target.filter((r) => !original.includes(r));
  const removing = original.filter((r) => !target.includes(r));
  const replicas = [...target, ...removing];
  const change = changeTo(state, p, replicas, adding, removing);
  if (!change) return noInSyncReplica(p, replicas);
  return { ok: true, change };
}

/** Cancels the reassignment in progress: back to the original replicas. */
export function cancelReassignment(state: MetadataState, p: PartitionState): ReassignmentOutcome {
  if (!isReassigning(p)) return { ok: false, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: `${p.topic}-${p.partition} has no reassignment in progress` };
  const original = originalReplicas(p);
  const change = changeTo(state, p, original, [], []);
  if (!change) return noInSyncReplica(p, original);
  return { ok: true, change };
}

/** The change that completes `p`'s reassignment now that every target replica is in sync, or null. */
export function completionChange(state: MetadataState, p: PartitionState): PartitionChangeRecord | null {
  if (!isReassigning(p)) return null;
  const target = targetReplicas(p);
  if (!target.every((r) => p.isr.includes(r))) return null;
  return changeTo(state, p, target, [], []);
}

/** Replicas `before` had that `after` no longer has: they delete their copy. */
export function removedReplicas(before: PartitionState, after: PartitionState): number[] {
  return before.replicas.filter((r) => !after.replicas.includes(r));
}
