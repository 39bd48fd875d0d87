/**
 * Eligible leader replicas (KIP-966 part 1, as Kafka 4.1's PartitionChangeBuilder keeps them),
 * in force while eligible.leader.replicas.version is 1 (`isElrEnabled`). Pure functions from a
 * partition to the PartitionChange that keeps its ELR; with the feature at 0 none of them is
 * called and partitions change as elections.ts makes them.
 *
 * The rules:
 *  - an ISR at or above the partition's effective min.insync.replicas (the topic's, else the
 *    cluster default, else the controller's; at most the replication factor) has no ELR and no
 *    LastKnownElr;
 *  - an ISR below it: the members that leave it join the ELR (the ELR is what was in the ISR or
 *    the ELR before, less the new ISR and any replica that shut down uncleanly); the ISR may be
 *    empty;
 *  - a leader is elected from the ISR; only when the ISR is empty from the ELR (a clean
 *    election: the ISR becomes that member alone, and it leaves the ELR); a replica is never
 *    elected while fenced (not an acceptable leader);
 *  - LastKnownElr holds the last leader of a partition that lost it (set the first time it has
 *    none, cleared once it has one again); when ISR and ELR are both empty and that replica is
 *    back, it is elected (Kafka's balanced recovery, an unclean election: the ISR becomes it);
 *  - an unclean election (unclean.leader.election.enable, or ElectLeaders UNCLEAN) clears the
 *    ELR and LastKnownElr;
 *  - a broker that registers again after an unclean shutdown (its previous broker epoch is not
 *    the one the controller had) leaves every ISR and ELR (`changesForUncleanShutdown`);
 *  - a change of min.insync.replicas clears the ELRs it applies to (ClearElr records), and so
 *    does turning the feature off (metadata-state.ts applies them, a new partition epoch for each
 *    partition that had an ELR or LastKnownElr, as Kafka's ClearElrRecord);
 *  - min.insync.replicas is cluster-wide while ELR is on (Kafka's ConfigurationControlManager):
 *    raising the feature to 1 writes, in the same batch, the cluster-wide default ('') from the
 *    controller's min.insync.replicas unless one is set, and takes every broker's own away
 *    (`elrSafetyRecords`; a new cluster starts with it too); while it is on, a broker's own is
 *    refused and so is deleting the cluster-wide one (`elrMinIsrRefusal`, Kafka's messages).
 * samsa keeps the ELR within the replicas (a replica removed by a reassignment leaves it).
 */
import { NO_LEADER, type PartitionState } from '../../src/protocol/cluster.js';
import { isElrEnabled } from '../../src/protocol/features.js';
import { partitionChange, uncleanElectionEnabled } from './elections.js';
import { isEligible, type MetadataRecord, type MetadataState, type PartitionChangeRecord, type TopicRecord } from './metadata-state.js';

export const MIN_INSYNC_REPLICAS_KEY = 'min.insync.replicas';

/** Kafka's PartitionChangeBuilder.Election: ONLINE elects from the ISR (or ELR), UNCLEAN may go outside them. */
export type ElrElection = 'PREFERRED' | 'ONLINE' | 'UNCLEAN';

export function elrOf(p: PartitionState): number[] {
  return p.elr ?? [];
}

export function lastKnownElrOf(p: PartitionState): number[] {
  return p.lastKnownElr ?? [];
}

/** Whether the metadata has ELR on. */
export function elrOn(state: MetadataState): boolean {
  return isElrEnabled(state.features);
}

function positiveInt(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

/**
 * The topic's effective min.insync.replicas (Kafka's getTopicEffectiveMinIsr): its own, else the
 * cluster-wide dynamic default, else the controller's; never above the replication factor.
 */
export function effectiveMinIsr(state: MetadataState, topic: TopicRecord, controllerDefault: number): number {
  const configured = positiveInt(topic.config[MIN_INSYNC_REPLICAS_KEY]) ?? positiveInt(state.brokerConfigs.get('')?.[MIN_INSYNC_REPLICAS_KEY]) ?? controllerDefault;
  const rf = topic.partitions[0]?.replicas.length ?? configured;
  return Math.min(configured, rf);
}

export interface ElrChangeInput {
  /** The ISR the change aims at (without the replicas being removed). */
  readonly targetIsr: readonly number[];
  readonly election: ElrElection;
  /** Whether a replica may lead (live, unfenced, not the broker being removed). */
  readonly acceptable: (id: number) => boolean;
  readonly minIsr: number;
  /** Replicas that shut down uncleanly: they join neither the ISR nor the ELR. */
  readonly uncleanShutdown?: readonly number[];
}

const ascending = (a: number, b: number) => a - b;

function same(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The ELR the target ISR leaves (Kafka's maybePopulateTargetElr), within the replicas. */
export function targetElr(p: PartitionState, targetIsr: readonly number[], minIsr: number, uncleanShutdown: readonly number[] = []): number[] {
  if (targetIsr.length >= minIsr) return [];
  const candidates = new Set([...elrOf(p), ...p.isr]);
  return [...candidates].filter((r) => !targetIsr.includes(r) && !uncleanShutdown.includes(r) && p.replicas.includes(r)).sort(ascending);
}

/** `change` with the ELR and LastKnownElr it leads to (fields absent when they do not change). */
function withElrFields(p: PartitionState, change: PartitionChangeRecord, elr: readonly number[], lastKnownElr: readonly number[]): PartitionChangeRecord {
  const out: PartitionChangeRecord = { ...change };
  if (!same(elr, elrOf(p))) out.elr = [...elr];
  if (!same(lastKnownElr, lastKnownElrOf(p))) out.lastKnownElr = [...lastKnownElr];
  return out;
}

/** LastKnownElr after a change to `leader` (Kafka's maybeUpdateLastKnownLeader). */
function nextLastKnownElr(p: PartitionState, leader: number): number[] {
  const now = lastKnownElrOf(p);
  if (leader === p.leader) return now;
  if (leader === NO_LEADER) return now.length === 0 ? [p.leader] : now;
  return [];
}

/**
 * One partition's change with ELR on (Kafka's PartitionChangeBuilder.build with ELR enabled): the
 * ELR the target ISR leaves, the election, the ISR, the LastKnownElr. Null when nothing changes.
 */
export function elrPartitionChange(p: PartitionState, input: ElrChangeInput): PartitionChangeRecord | null {
  let isr = [...input.targetIsr];
  let elr = targetElr(p, isr, input.minIsr, input.uncleanShutdown);
  const valid = (r: number) => (isr.includes(r) || (isr.length === 0 && elr.includes(r))) && input.acceptable(r);
  const lke = lastKnownElrOf(p);
  const lastKnownLeader = (): number | null => (elr.length === 0 && isr.length === 0 && lke.length === 1 && input.acceptable(lke[0]!) ? lke[0]! : null);

  let leader = NO_LEADER;
  let unclean = false;
  if (input.election === 'PREFERRED' && p.replicas[0] !== undefined && valid(p.replicas[0])) leader = p.replicas[0];
  else if (p.leader !== NO_LEADER && valid(p.leader)) leader = p.leader;
  else {
    const online = p.replicas.find(valid);
    if (online !== undefined) leader = online;
    else if (lastKnownLeader() !== null) {
      leader = lastKnownLeader()!;
      unclean = true;
    } else if (input.election === 'UNCLEAN') {
      const any = p.replicas.find(input.acceptable);
      if (any !== undefined) {
        leader = any;
        unclean = true;
      }
    }
  }
  if (leader !== p.leader && leader !== NO_LEADER) {
    if (elr.includes(leader)) {
      // a clean election from the ELR: it is the ISR now
      isr = [leader];
      elr = elr.filter((r) => r !== leader);
    }
    if (unclean) isr = [leader];
  }
  if (unclean) elr = [];
  const lastKnownElr = unclean ? [] : nextLastKnownElr(p, leader);
  if (leader === p.leader && same(isr, p.isr) && same(elr, elrOf(p)) && same(lastKnownElr, lke)) return null;
  return withElrFields(p, partitionChange(p, leader, isr), elr, lastKnownElr);
}

/**
 * A change whose leader and ISR are already decided (an ISR change from the leader, a
 * reassignment, a preferred election), given the ELR and LastKnownElr that go with it.
 */
export function maintainElr(p: PartitionState, change: PartitionChangeRecord, minIsr: number): PartitionChangeRecord {
  const next = change.replicas === undefined ? p : { ...p, replicas: change.replicas };
  let elr = targetElr(next, change.isr, minIsr);
  if (change.leader !== NO_LEADER) elr = elr.filter((r) => r !== change.leader);
  return withElrFields(p, change, elr, nextLastKnownElr(p, change.leader));
}

/** An acceptable leader: an unfenced broker other than those excluded. */
export function acceptableLeader(state: MetadataState, ...excluded: number[]): (id: number) => boolean {
  return (id) => !excluded.includes(id) && isEligible(state.brokers.get(id));
}

/** The election a topic's partitions get: UNCLEAN when its unclean.leader.election.enable allows it. */
export function electionFor(topic: TopicRecord, uncleanDefault: boolean): ElrElection {
  return uncleanElectionEnabled(topic, uncleanDefault) ? 'UNCLEAN' : 'ONLINE';
}

/**
 * A broker registering again after an unclean shutdown (Kafka's handleBrokerShutdown with ELR on
 * and isCleanShutdown false): it leaves every ISR and ELR it is in, and cannot be elected.
 */
export function changesForUncleanShutdown(state: MetadataState, brokerId: number, uncleanDefault: boolean, minIsrDefault: number): PartitionChangeRecord[] {
  const out: PartitionChangeRecord[] = [];
  for (const t of state.topics.values()) {
    const minIsr = effectiveMinIsr(state, t, minIsrDefault);
    for (const p of t.partitions) {
      if (!p.isr.includes(brokerId) && !elrOf(p).includes(brokerId)) continue;
      const c = elrPartitionChange(p, {
        targetIsr: p.isr.filter((r) => r !== brokerId),
        election: electionFor(t, uncleanDefault),
        acceptable: acceptableLeader(state, brokerId),
        minIsr,
        uncleanShutdown: [brokerId],
      });
      if (c) out.push(c);
    }
  }
  return out;
}

/** ClearElr records for a change of min.insync.replicas (Kafka's createClearElrRecordsAsNeeded): '' for every topic. */
export function clearElrFor(state: MetadataState, topic: string): { type: 'ClearElr'; topic: string }[] {
  if (!elrOn(state)) return [];
  return [{ type: 'ClearElr', topic }];
}

/** Kafka's DISALLOWED_BROKER_MIN_ISR_TRANSITION_ERROR (INVALID_CONFIG). */
export const BROKER_MIN_ISR_WITH_ELR = `Broker-level ${MIN_INSYNC_REPLICAS_KEY} cannot be altered while ELR is enabled.`;
/** Kafka's DISALLOWED_CLUSTER_MIN_ISR_REMOVAL_ERROR (INVALID_CONFIG). */
export const CLUSTER_MIN_ISR_REMOVAL_WITH_ELR = `Cluster-level ${MIN_INSYNC_REPLICAS_KEY} cannot be removed while ELR is enabled.`;

/**
 * Why a change of broker resource `resource` ('' the cluster-wide default) is refused while ELR
 * is on (Kafka's isDisallowedBrokerMinIsrTransition / isDisallowedClusterMinIsrTransition), null
 * when it is not: a broker's own min.insync.replicas set or deleted (Kafka writes a record for
 * either, even for a value it does not have), the cluster-wide one deleted (setting it is fine).
 */
export function elrMinIsrRefusal(state: MetadataState, resource: string, set: Readonly<Record<string, string>>, deletes: readonly string[]): string | null {
  if (!elrOn(state)) return null;
  const named = MIN_INSYNC_REPLICAS_KEY in set || deletes.includes(MIN_INSYNC_REPLICAS_KEY);
  if (resource !== '' && named) return BROKER_MIN_ISR_WITH_ELR;
  if (resource === '' && deletes.includes(MIN_INSYNC_REPLICAS_KEY)) return CLUSTER_MIN_ISR_REMOVAL_WITH_ELR;
  return null;
}

/**
 * The records that make ELR safe to turn on (Kafka's maybeGenerateElrSafetyRecords): the
 * cluster-wide min.insync.replicas from the controller's own (`controllerDefault`, Kafka's static
 * or default value) when none is set, and every broker's own min.insync.replicas taken away.
 * None when both already hold.
 */
export function elrSafetyRecords(state: MetadataState, controllerDefault: number): Extract<MetadataRecord, { type: 'BrokerConfig' }>[] {
  const out: Extract<MetadataRecord, { type: 'BrokerConfig' }>[] = [];
  const cluster = state.brokerConfigs.get('') ?? {};
  if (!(MIN_INSYNC_REPLICAS_KEY in cluster)) out.push({ type: 'BrokerConfig', resource: '', config: { ...cluster, [MIN_INSYNC_REPLICAS_KEY]: String(controllerDefault) } });
  const brokers = [...state.brokerConfigs.keys()].filter((r) => r !== '').sort((a, b) => Number(a) - Number(b));
  for (const resource of brokers) {
    const config = state.brokerConfigs.get(resource)!;
    if (!(MIN_INSYNC_REPLICAS_KEY in config)) continue;
    const { [MIN_INSYNC_REPLICAS_KEY]: _gone, ...rest } = config;
    out.push({ type: 'BrokerConfig', resource, config: rest });
  }
  return out;
}

/**
 * The partitions a batch's ClearElr records give a new partition epoch (those with an ELR or a
 * LastKnownElr in `before`, the state the batch started from): their replicas are told again.
 */
export function elrClearedPartitions(before: MetadataState, records: readonly MetadataRecord[]): { topic: string; partition: number }[] {
  const out: { topic: string; partition: number }[] = [];
  const cleared = new Set(records.flatMap((r) => (r.type === 'ClearElr' ? [r.topic] : [])));
  if (cleared.size === 0) return out;
  for (const t of before.topics.values()) {
    if (!cleared.has('') && !cleared.has(t.name)) continue;
    for (const p of t.partitions) if (elrOf(p).length > 0 || lastKnownElrOf(p).length > 0) out.push({ topic: t.name, partition: p.partition });
  }
  return out;
}
