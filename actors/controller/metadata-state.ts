/**
 * The controller's replayable cluster metadata: brokers, topics, partitions, deletions still
 * owed to absent brokers, and the controller epoch. It changes only through `applyRecord`, a
 * pure function over metadata records (KRaft style), so the same state can be rebuilt from the
 * metadata log today and from a Raft log later. `applyRecord` never mutates its input and throws
 * `MetadataRecordError` for a record that does not fit the state (a bug or a corrupt log).
 *
 * Broker states (explicit, with the legal transitions):
 *   (none)                   --RegisterBroker-->          Unfenced
 *   Fenced | ShutDown        --RegisterBroker-->          Unfenced   (a returning broker)
 *   Unfenced                 --RegisterBroker-->          Unfenced   (same incarnation only: a retry)
 *   Fenced                   --UnfenceBroker-->           Unfenced   (heartbeat after a lapsed session)
 *   Unfenced                 --BeginControlledShutdown--> ShuttingDown (still leads what could not move)
 *   Unfenced | ShuttingDown  --FenceBroker(Fenced)-->     Fenced     (session expired, or bounced)
 *   any registered           --FenceBroker(ShutDown)-->   ShutDown   (controlled shutdown complete)
 *   any registered           --UnregisterBroker-->        (none)     (decommissioned: leads nothing, in no ELR, in no ISR but as
 *                                                                    the last member of a partition without a leader)
 * Unfenced brokers can lead, join ISRs and receive new replicas; ShuttingDown brokers are still
 * running (they get requests) but take nothing new; Fenced and ShutDown brokers are not live.
 * An unregistered broker's last epoch is kept (`retiredBrokerEpochs`): when it registers again its
 * epoch is above it, so nothing its old incarnation sent passes for the new one's (Kafka's broker
 * epochs are the offsets of their registrations, which never repeat either).
 *
 * Eligible leader replicas (KIP-966; eligible-leaders.ts decides them): a PartitionChange may set
 * a partition's ELR and LastKnownElr (only at metadata.version 4.0-IV1 or above, as Kafka writes
 * them in PartitionChangeRecord v2), and ClearElr empties them for a topic or for every topic
 * (Kafka's ClearElrRecord), each partition it empties at a partition epoch one higher, as Kafka's.
 * The ELR holds replicas only, none twice, none in the ISR; an offline partition may have an
 * empty ISR while ELR is on (or once it has one).
 */
import { bindingKey, bindingProblem, compareBindings, type AclBinding } from '../../src/security/acl.js';
import { entityKey, type ClientQuota, type QuotaEntity } from '../../src/security/client-quotas.js';
import { scramHashOf, scramKey, scramMechanismName, type ScramCredentialEntry } from './scram-credentials.js';
import type { DelegationTokenEntry } from './delegation-tokens.js';
import { NO_LEADER, type BrokerInfo, type ClusterMetadata, type PartitionState, type TopicMetadata } from '../../src/protocol/cluster.js';
import type { QuorumVoter } from '../quorum/messages.js';
import { ELR_METADATA_VERSION, metadataVersionName } from '../../src/protocol/metadata-version.js';
import { METADATA_VERSION, isElrEnabled } from '../../src/protocol/features.js';

export const BrokerState = Object.freeze({
  Unfenced: 'Unfenced',
  ShuttingDown: 'ShuttingDown',
  Fenced: 'Fenced',
  ShutDown: 'ShutDown',
} as const);
export type BrokerState = (typeof BrokerState)[keyof typeof BrokerState];

export type FenceReason = 'session-expired' | 'controlled-shutdown' | 're-registration';

export interface BrokerRecord {
  readonly brokerId: number;
  readonly node: string;
  readonly rack: string | null;
  readonly incarnationId: string;
  readonly brokerEpoch: number;
  readonly state: BrokerState;
  /** 'host:port' clients can dial; null when the broker's node does not listen for them. */
  readonly endpoint: string | null;
  /** 'host:port' of the broker's Kafka-protocol listener; null when it has none. */
  readonly kafkaEndpoint: string | null;
  /**
   * Its replicas offline because their log dir failed, as it last reported them (sorted by topic,
   * then partition); absent when none. Cleared when it registers again.
   */
  readonly offlineReplicas?: readonly { readonly topic: string; readonly partition: number }[];
}

export interface TopicRecord {
  readonly name: string;
  readonly topicId: string;
  readonly internal: boolean;
  readonly config: Readonly<Record<string, string | number>>;
  readonly partitions: readonly PartitionState[];
}

/** A partition of a deleted topic whose replica could not be told to delete it (its broker was down). */
export interface PendingDelete {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
}

export interface MetadataState {
  /** Set by the first ControllerEpoch record; a log from another cluster is refused. */
  readonly clusterId: string | null;
  readonly controllerEpoch: number;
  readonly brokers: ReadonlyMap<number, BrokerRecord>;
  readonly topics: ReadonlyMap<string, TopicRecord>;
  /** brokerId -> partitions to delete when that broker registers again. */
  readonly pendingDeletes: ReadonlyMap<number, readonly PendingDelete[]>;
  /** brokerId -> the epoch an unregistered broker last had (it registers again above it). */
  readonly retiredBrokerEpochs: ReadonlyMap<number, number>;
  /** The first producer id not yet handed to a broker (idempotent producers' ids never repeat). */
  readonly nextProducerId: number;
  /** The cluster's ACLs, by bindingKey (a binding exists once). */
  readonly acls: ReadonlyMap<string, AclBinding>;
  /** Dynamic broker configs: '' -> the cluster-wide defaults, '<broker id>' -> that broker's. */
  readonly brokerConfigs: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Group configs (Kafka 4.0's GROUP config resources, KIP-848): group id -> its overrides. */
  readonly groupConfigs: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Client metrics subscriptions (KIP-714's CLIENT_METRICS config resources): name -> its configs. */
  readonly clientMetrics: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Client quotas, by entityKey. */
  readonly clientQuotas: ReadonlyMap<string, ClientQuota>;
  /** SCRAM credentials (KIP-554), by scramKey(user, mechanism). */
  readonly scramCredentials: ReadonlyMap<string, ScramCredentialEntry>;
  /** Delegation tokens (KIP-48), by token id; never their HMACs. */
  readonly delegationTokens: ReadonlyMap<string, DelegationTokenEntry>;
  /** The metadata quorum's voters as last changed (KIP-853); null: never changed, the topology's. */
  readonly quorumVoters: readonly QuorumVoter[] | null;
  /**
   * The cluster's finalized feature levels (KIP-584; src/protocol/features.ts), none at 0, and
   * how many FeatureLevel records set them (Kafka's FinalizedFeaturesEpoch; 0: never set, a
   * cluster made before samsa kept levels).
   */
  readonly features: Readonly<Record<string, number>>;
  readonly featuresEpoch: number;
}

export type PartitionChangeRecord = {
  type: 'PartitionChange';
  topic: string;
  partition: number;
  leader: number;
  isr: number[];
  leaderEpoch: number;
  partitionEpoch: number;
  /**
   * A reassignment's change of the replica set (absent: replicas, adding and removing stay as
   * they are): the new replicas, and which of them are still being added or are to be removed
   * (empty when none). Removed replicas on brokers that are not live are owed a delete.
   */
  replicas?: number[];
  addingReplicas?: number[];
  removingReplicas?: number[];
  /** The new eligible leader replicas (absent: unchanged; empty: none). */
  elr?: number[];
  /** The new LastKnownElr (absent: unchanged; empty: none). */
  lastKnownElr?: number[];
};

export type MetadataRecord =
  | { type: 'ControllerEpoch'; clusterId: string; controllerEpoch: number }
  | { type: 'RegisterBroker'; brokerId: number; node: string; rack: string | null; incarnationId: string; brokerEpoch: number; endpoint?: string | null; kafkaEndpoint?: string | null }
  | { type: 'FenceBroker'; brokerId: number; brokerEpoch: number; to: typeof BrokerState.Fenced | typeof BrokerState.ShutDown; reason: FenceReason }
  | { type: 'UnfenceBroker'; brokerId: number; brokerEpoch: number }
  | { type: 'BeginControlledShutdown'; brokerId: number; brokerEpoch: number }
  /** A broker leaves the cluster's registrations (Kafka's UnregisterBrokerRecord); it must be in no ISR or ELR and lead nothing. */
  | { type: 'UnregisterBroker'; brokerId: number; brokerEpoch: number }
  /** The replicas a live broker reports offline (a failed log dir), replacing what it reported before. */
  | { type: 'BrokerReplicasOffline'; brokerId: number; brokerEpoch: number; partitions: { topic: string; partition: number }[] }
  | { type: 'CreateTopic'; name: string; topicId: string; internal: boolean; config: Record<string, string | number>; partitions: PartitionState[] }
  | { type: 'CreatePartitions'; topic: string; partitions: PartitionState[] }
  | PartitionChangeRecord
  | { type: 'RemoveTopic'; name: string; topicId: string }
  /** A topic's config overrides, replaced whole. */
  | { type: 'ChangeTopicConfig'; name: string; topicId: string; config: Record<string, string | number> }
  /** Producer ids [firstProducerId, nextProducerId) now belong to broker `brokerId`. */
  | { type: 'AllocateProducerIds'; brokerId: number; brokerEpoch: number; firstProducerId: number; nextProducerId: number }
  /** An ACL binding is created (Kafka's AccessControlEntryRecord). */
  | { type: 'AccessControlEntry'; binding: AclBinding }
  /** An ACL binding is deleted (Kafka's RemoveAccessControlEntryRecord). */
  | { type: 'RemoveAccessControlEntry'; binding: AclBinding }
  /**
   * A broker resource's dynamic configs, replaced whole (empty: none); `resource` is '' for the
   * cluster-wide defaults or a broker id (Kafka's ConfigRecord for BROKER resources).
   */
  | { type: 'BrokerConfig'; resource: string; config: Record<string, string> }
  /** A group's configs, replaced whole (empty: none; Kafka's ConfigRecord for GROUP resources). */
  | { type: 'GroupConfig'; group: string; config: Record<string, string> }
  /** A client metrics subscription's configs, replaced whole (empty: gone; Kafka's ConfigRecord for CLIENT_METRICS resources). */
  | { type: 'ClientMetricsConfig'; name: string; config: Record<string, string> }
  /** A quota entity's quotas, replaced whole (empty: none; Kafka's ClientQuotaRecord). */
  | { type: 'ClientQuota'; entity: QuotaEntity; quotas: Record<string, number> }
  /** A user's SCRAM credential for one mechanism, set or replaced (Kafka's UserScramCredentialRecord). */
  | { type: 'UserScramCredential'; credential: ScramCredentialEntry }
  /** A user's SCRAM credential for one mechanism, removed (Kafka's RemoveUserScramCredentialRecord). */
  | { type: 'RemoveUserScramCredential'; user: string; mechanism: number }
  /** A delegation token, created or with a new expiry (Kafka's DelegationTokenRecord; no HMAC). */
  | { type: 'DelegationToken'; token: DelegationTokenEntry }
  /** A delegation token expired or removed (Kafka's RemoveDelegationTokenRecord). */
  | { type: 'RemoveDelegationToken'; tokenId: string }
  /**
   * The metadata quorum's voter set from this entry on (Kafka's VotersRecord, KIP-853): in force
   * for Raft as soon as it is in a controller's log, committed or not (actors/quorum).
   */
  | { type: 'QuorumVoters'; voters: QuorumVoter[] }
  /** A feature's finalized level from now on; 0 drops it (Kafka's FeatureLevelRecord). */
  | { type: 'FeatureLevel'; name: string; level: number }
  /** Empties the ELR and LastKnownElr of a topic's partitions, or of every topic's with '' (Kafka's ClearElrRecord). */
  | { type: 'ClearElr'; topic: string };

export type MetadataRecordType = MetadataRecord['type'];

export class MetadataRecordError extends Error {
  override readonly name = 'MetadataRecordError';
  constructor(
    readonly record: MetadataRecord,
    message: string,
  ) {
    super(`${record.type}: ${message}`);
  }
}

export function emptyMetadata(): MetadataState {
  return { clusterId: null, controllerEpoch: 0, brokers: new Map(), topics: new Map(), pendingDeletes: new Map(), retiredBrokerEpochs: new Map(), nextProducerId: 0, acls: new Map(), brokerConfigs: new Map(), groupConfigs: new Map(), clientMetrics: new Map(), clientQuotas: new Map(), scramCredentials: new Map(), delegationTokens: new Map(), quorumVoters: null, features: {}, featuresEpoch: 0 };
}

// ------------------------------------------------------------------ queries

/** Running and known to the controller: gets requests and metadata updates. */
export function isLive(b: BrokerRecord | undefined): boolean {
  return !!b && (b.state === BrokerState.Unfenced || b.state === BrokerState.ShuttingDown);
}

/** May lead, join an ISR, or get new replicas. */
export function isEligible(b: BrokerRecord | undefined): boolean {
  return !!b && b.state === BrokerState.Unfenced;
}

export function liveBrokers(state: MetadataState): BrokerRecord[] {
  return sortedBrokers(state).filter(isLive);
}

export function eligibleBrokerIds(state: MetadataState): number[] {
  return sortedBrokers(state)
    .filter(isEligible)
    .map((b) => b.brokerId);
}

export function sortedBrokers(state: MetadataState): BrokerRecord[] {
  return [...state.brokers.values()].sort((a, b) => a.brokerId - b.brokerId);
}

export function getPartition(state: MetadataState, topic: string, partition: number): PartitionState | undefined {
  const t = state.topics.get(topic);
  return t && Number.isInteger(partition) && partition >= 0 ? t.partitions[partition] : undefined;
}

/** Every partition that has `brokerId` among its replicas. */
export function partitionsHostedBy(state: MetadataState, brokerId: number): PartitionState[] {
  const out: PartitionState[] = [];
  for (const t of state.topics.values()) for (const p of t.partitions) if (p.replicas.includes(brokerId)) out.push(p);
  return out;
}

export function partitionsLedBy(state: MetadataState, brokerId: number): PartitionState[] {
  const out: PartitionState[] = [];
  for (const t of state.topics.values()) for (const p of t.partitions) if (p.leader === brokerId) out.push(p);
  return out;
}

export function toBrokerInfo(b: BrokerRecord): BrokerInfo {
  return {
    brokerId: b.brokerId,
    node: b.node,
    rack: b.rack,
    fenced: !isLive(b),
    brokerEpoch: b.brokerEpoch,
    endpoint: b.endpoint ?? null,
    kafkaEndpoint: b.kafkaEndpoint ?? null,
    ...(b.offlineReplicas && b.offlineReplicas.length > 0 ? { offlineReplicas: b.offlineReplicas.map((p) => ({ topic: p.topic, partition: p.partition })) } : {}),
  };
}

export function copyPartition(p: PartitionState): PartitionState {
  const copy: PartitionState = { ...p, replicas: [...p.replicas], isr: [...p.isr] };
  if (p.addingReplicas) copy.addingReplicas = [...p.addingReplicas];
  if (p.removingReplicas) copy.removingReplicas = [...p.removingReplicas];
  if (p.elr) copy.elr = [...p.elr];
  if (p.lastKnownElr) copy.lastKnownElr = [...p.lastKnownElr];
  return copy;
}

export function toTopicMetadata(t: TopicRecord): TopicMetadata {
  return { name: t.name, topicId: t.topicId, internal: t.internal, config: { ...t.config }, partitions: t.partitions.map(copyPartition) };
}

/**
 * The metadata as the wire shape (fresh copies: nothing shared with the state). `topics` limits
 * the topics to the named ones; unknown names are simply absent.
 */
export function toClusterMetadata(state: MetadataState, controllerNode: string, topics?: readonly string[] | null): ClusterMetadata {
  const names = topics ? [...new Set(topics)].filter((n) => state.topics.has(n)) : [...state.topics.keys()];
  names.sort();
  return {
    clusterId: state.clusterId ?? '',
    controllerNode,
    controllerEpoch: state.controllerEpoch,
    brokers: sortedBrokers(state).map(toBrokerInfo),
    topics: names.map((n) => toTopicMetadata(state.topics.get(n)!)),
    acls: sortedAcls(state),
    brokerConfigs: Object.fromEntries([...state.brokerConfigs].map(([k, v]) => [k, { ...v }])),
    groupConfigs: Object.fromEntries([...state.groupConfigs].map(([k, v]) => [k, { ...v }])),
    clientMetrics: Object.fromEntries([...state.clientMetrics].map(([k, v]) => [k, { ...v }])),
    clientQuotas: [...state.clientQuotas.values()].map((q) => ({ entity: { ...q.entity }, quotas: { ...q.quotas } })),
    features: { levels: { ...state.features }, epoch: state.featuresEpoch },
  };
}

/** The ACL bindings in order (fresh copies). */
export function sortedAcls(state: MetadataState): AclBinding[] {
  return [...state.acls.values()].map((b) => ({ ...b })).sort(compareBindings);
}

/**
 * Cluster-wide invariants, for tests and diagnostics. Returns one line per violation:
 * leaders are replicas in the ISR and eligible (or still shutting down); ISR members are live
 * replicas, except the last member kept by an offline partition.
 */
export function checkInvariants(state: MetadataState): string[] {
  const problems: string[] = [];
  for (const t of state.topics.values()) {
    t.partitions.forEach((p, i) => {
      const tp = `${t.name}-${p.partition}`;
      if (p.partition !== i) problems.push(`${tp}: stored at index ${i}`);
      if (new Set(p.isr).size !== p.isr.length) problems.push(`${tp}: duplicate ISR members ${p.isr}`);
      for (const r of p.isr) if (!p.replicas.includes(r)) problems.push(`${tp}: ISR member ${r} is not a replica`);
      for (const r of [...(p.addingReplicas ?? []), ...(p.removingReplicas ?? [])]) if (!p.replicas.includes(r)) problems.push(`${tp}: reassigned replica ${r} is not a replica`);
      for (const r of p.elr ?? []) {
        if (!p.replicas.includes(r)) problems.push(`${tp}: ELR member ${r} is not a replica`);
        if (p.isr.includes(r)) problems.push(`${tp}: ELR member ${r} is in the ISR`);
      }
      if (p.leader !== NO_LEADER) {
        if (!p.isr.includes(p.leader)) problems.push(`${tp}: leader ${p.leader} not in ISR ${p.isr}`);
        if (!isLive(state.brokers.get(p.leader))) problems.push(`${tp}: leader ${p.leader} is not live`);
        for (const r of p.isr) if (!isLive(state.brokers.get(r))) problems.push(`${tp}: ISR member ${r} is not live`);
      } else if (p.isr.length > 1) {
        problems.push(`${tp}: offline with more than one ISR member ${p.isr}`);
      }
    });
  }
  return problems;
}

// ------------------------------------------------------------------ apply

function fail(record: MetadataRecord, message: string): never {
  throw new MetadataRecordError(record, message);
}

function withBroker(state: MetadataState, b: BrokerRecord): MetadataState {
  const brokers = new Map(state.brokers);
  brokers.set(b.brokerId, b);
  return { ...state, brokers };
}

function withTopic(state: MetadataState, t: TopicRecord): MetadataState {
  const topics = new Map(state.topics);
  topics.set(t.name, t);
  return { ...state, topics };
}

function requireBroker(state: MetadataState, record: MetadataRecord & { brokerId: number; brokerEpoch: number }): BrokerRecord {
  const b = state.brokers.get(record.brokerId);
  if (!b) fail(record, `broker ${record.brokerId} is not registered`);
  if (b.brokerEpoch !== record.brokerEpoch) fail(record, `broker ${record.brokerId} has epoch ${b.brokerEpoch}, not ${record.brokerEpoch}`);
  return b;
}

function requireTransition(record: MetadataRecord, b: BrokerRecord, allowed: readonly BrokerState[]): void {
  if (!allowed.includes(b.state)) {
    fail(record, `broker ${b.brokerId} cannot go from ${b.state} (allowed from: ${allowed.join(', ')})`);
  }
}

function checkNewPartitions(record: MetadataRecord, topic: string, partitions: readonly PartitionState[], firstId: number): void {
  if (partitions.length === 0) fail(record, `no partitions for ${topic}`);
  partitions.forEach((p, i) => {
    if (p.topic !== topic) fail(record, `partition names topic ${p.topic}, not ${topic}`);
    if (p.partition !== firstId + i) fail(record, `partition ${p.partition} out of order (expected ${firstId + i})`);
    if (p.replicas.length === 0 || new Set(p.replicas).size !== p.replicas.length) fail(record, `bad replicas ${p.replicas} for ${topic}-${p.partition}`);
    checkLeaderAndIsr(record, p, p.leader, p.isr);
  });
}

function checkLeaderAndIsr(record: MetadataRecord, p: PartitionState, leader: number, isr: readonly number[], emptyIsrAllowed = false): void {
  const tp = `${p.topic}-${p.partition}`;
  if (new Set(isr).size !== isr.length) fail(record, `duplicate ISR members ${isr} for ${tp}`);
  for (const r of isr) if (!p.replicas.includes(r)) fail(record, `ISR member ${r} is not a replica of ${tp}`);
  if (leader !== NO_LEADER && !isr.includes(leader)) fail(record, `leader ${leader} of ${tp} is not in the ISR ${isr}`);
  if (leader === NO_LEADER && isr.length === 0 && !emptyIsrAllowed) fail(record, `offline ${tp} must keep its last ISR member`);
}

/** Refuses ELR records at a metadata.version before 4.0-IV1 (Kafka has them in no record there). */
function requireElrMetadata(state: MetadataState, record: MetadataRecord): void {
  const mv = state.features[METADATA_VERSION] ?? 0;
  if (mv < ELR_METADATA_VERSION) fail(record, `metadata.version ${metadataVersionName(mv) ?? mv} has no eligible leader replicas (they need ${metadataVersionName(ELR_METADATA_VERSION)})`);
}

/** The ELR fields of a PartitionChange, checked against the partition they make (`next`). */
function checkElrFields(state: MetadataState, record: PartitionChangeRecord, next: PartitionState): Pick<PartitionState, 'elr' | 'lastKnownElr'> {
  const out: Pick<PartitionState, 'elr' | 'lastKnownElr'> = {};
  if (record.elr === undefined && record.lastKnownElr === undefined) {
    // a reassignment's replicas leave the ELR with them
    if (next.elr && next.elr.some((r) => !next.replicas.includes(r))) out.elr = next.elr.filter((r) => next.replicas.includes(r));
    return out;
  }
  requireElrMetadata(state, record);
  const tp = `${next.topic}-${next.partition}`;
  for (const [name, list] of [['ELR', record.elr], ['LastKnownElr', record.lastKnownElr]] as const) {
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((r) => Number.isSafeInteger(r) && r >= 0)) fail(record, `bad ${name} ${JSON.stringify(list)} for ${tp}`);
    if (new Set(list).size !== list.length) fail(record, `duplicate ${name} members ${list} for ${tp}`);
  }
  if (record.elr !== undefined) {
    for (const r of record.elr) {
      if (!next.replicas.includes(r)) fail(record, `ELR member ${r} is not a replica of ${tp}`);
      if (record.isr.includes(r)) fail(record, `ELR member ${r} of ${tp} is in the ISR ${record.isr}`);
    }
    out.elr = [...record.elr];
  }
  if (record.lastKnownElr !== undefined) out.lastKnownElr = [...record.lastKnownElr];
  return out;
}

/** `p` with the replica set of a reassignment's PartitionChange, checked. */
function reassignedPartition(record: PartitionChangeRecord, p: PartitionState): PartitionState {
  const tp = `${p.topic}-${p.partition}`;
  const replicas = record.replicas!;
  const adding = record.addingReplicas ?? [];
  const removing = record.removingReplicas ?? [];
  if (replicas.length === 0 || new Set(replicas).size !== replicas.length) fail(record, `bad replicas ${replicas} for ${tp}`);
  for (const r of [...adding, ...removing]) if (!replicas.includes(r)) fail(record, `reassigned replica ${r} is not among the replicas ${replicas} of ${tp}`);
  if (adding.some((r) => removing.includes(r))) fail(record, `a replica of ${tp} cannot be both added and removed`);
  if (removing.length >= replicas.length) fail(record, `a reassignment of ${tp} must keep at least one replica`);
  const next: PartitionState = { ...p, replicas: [...replicas], isr: [...p.isr] };
  delete next.addingReplicas;
  delete next.removingReplicas;
  if (adding.length > 0) next.addingReplicas = [...adding];
  if (removing.length > 0) next.removingReplicas = [...removing];
  return next;
}

/** Returns the state after `record`. Pure: `state` is left untouched. */
export function applyRecord(state: MetadataState, record: MetadataRecord): MetadataState {
  switch (record.type) {
    case 'ControllerEpoch': {
      if (state.clusterId !== null && state.clusterId !== record.clusterId) {
        fail(record, `the metadata belongs to cluster '${state.clusterId}', not '${record.clusterId}'`);
      }
      if (record.controllerEpoch <= state.controllerEpoch) {
        fail(record, `controller epoch ${record.controllerEpoch} is not above ${state.controllerEpoch}`);
      }
      return { ...state, clusterId: record.clusterId, controllerEpoch: record.controllerEpoch };
    }
    case 'RegisterBroker': {
      const prev = state.brokers.get(record.brokerId);
      if (prev) {
        if (record.brokerEpoch <= prev.brokerEpoch) fail(record, `broker epoch ${record.brokerEpoch} is not above ${prev.brokerEpoch}`);
        const retry = prev.state === BrokerState.Unfenced && prev.incarnationId === record.incarnationId;
        if (!retry) requireTransition(record, prev, [BrokerState.Fenced, BrokerState.ShutDown]);
      } else if (record.brokerEpoch <= (state.retiredBrokerEpochs.get(record.brokerId) ?? 0)) {
        fail(record, `broker epoch ${record.brokerEpoch} must be above ${state.retiredBrokerEpochs.get(record.brokerId) ?? 0}`);
      }
      const next = withBroker(state, {
        brokerId: record.brokerId,
        node: record.node,
        rack: record.rack,
        incarnationId: record.incarnationId,
        brokerEpoch: record.brokerEpoch,
        state: BrokerState.Unfenced,
        endpoint: record.endpoint ?? null,
        kafkaEndpoint: record.kafkaEndpoint ?? null,
      });
      let out: MetadataState = next;
      if (state.retiredBrokerEpochs.has(record.brokerId)) {
        const retiredBrokerEpochs = new Map(state.retiredBrokerEpochs);
        retiredBrokerEpochs.delete(record.brokerId);
        out = { ...out, retiredBrokerEpochs };
      }
      if (!state.pendingDeletes.has(record.brokerId)) return out;
      const pendingDeletes = new Map(state.pendingDeletes);
      pendingDeletes.delete(record.brokerId);
      return { ...out, pendingDeletes };
    }
    case 'UnregisterBroker': {
      const b = requireBroker(state, record);
      for (const t of state.topics.values()) {
        for (const p of t.partitions) {
          const tp = `${t.name}-${p.partition}`;
          if (p.leader === b.brokerId) fail(record, `broker ${b.brokerId} still leads ${tp}`);
          // the last ISR member of a partition without a leader stays (there is no one else to keep)
          const lastKept = p.leader === NO_LEADER && p.isr.length === 1;
          if (p.isr.includes(b.brokerId) && !lastKept) fail(record, `broker ${b.brokerId} is still in the ISR of ${tp}`);
          if (p.elr?.includes(b.brokerId)) fail(record, `broker ${b.brokerId} is still in the ELR of ${tp}`);
        }
      }
      const brokers = new Map(state.brokers);
      brokers.delete(b.brokerId);
      const retiredBrokerEpochs = new Map(state.retiredBrokerEpochs);
      retiredBrokerEpochs.set(b.brokerId, b.brokerEpoch);
      return { ...state, brokers, retiredBrokerEpochs };
    }
    case 'FenceBroker': {
      const b = requireBroker(state, record);
      if (record.to === BrokerState.Fenced) requireTransition(record, b, [BrokerState.Unfenced, BrokerState.ShuttingDown]);
      else requireTransition(record, b, [BrokerState.Unfenced, BrokerState.ShuttingDown, BrokerState.Fenced]);
      return withBroker(state, { ...b, state: record.to });
    }
    case 'UnfenceBroker': {
      const b = requireBroker(state, record);
      requireTransition(record, b, [BrokerState.Fenced]);
      return withBroker(state, { ...b, state: BrokerState.Unfenced });
    }
    case 'BeginControlledShutdown': {
      const b = requireBroker(state, record);
      requireTransition(record, b, [BrokerState.Unfenced]);
      return withBroker(state, { ...b, state: BrokerState.ShuttingDown });
    }
    case 'BrokerReplicasOffline': {
      const b = requireBroker(state, record);
      requireTransition(record, b, [BrokerState.Unfenced, BrokerState.ShuttingDown]);
      return withBroker(state, withOfflineReplicas(b, sortedReplicaKeys(record.partitions.filter((p) => getPartition(state, p.topic, p.partition)?.replicas.includes(b.brokerId)))));
    }
    case 'CreateTopic': {
      if (state.topics.has(record.name)) fail(record, `topic ${record.name} already exists`);
      checkNewPartitions(record, record.name, record.partitions, 0);
      return withTopic(state, {
        name: record.name,
        topicId: record.topicId,
        internal: record.internal,
        config: { ...record.config },
        partitions: record.partitions.map(copyPartition),
      });
    }
    case 'CreatePartitions': {
      const t = state.topics.get(record.topic);
      if (!t) fail(record, `unknown topic ${record.topic}`);
      checkNewPartitions(record, record.topic, record.partitions, t.partitions.length);
      return withTopic(state, { ...t, partitions: [...t.partitions, ...record.partitions.map(copyPartition)] });
    }
    case 'PartitionChange': {
      const t = state.topics.get(record.topic);
      const p = t?.partitions[record.partition];
      if (!t || !p) fail(record, `unknown partition ${record.topic}-${record.partition}`);
      if (record.partitionEpoch !== p.partitionEpoch + 1) {
        fail(record, `partition epoch ${record.partitionEpoch} does not follow ${p.partitionEpoch}`);
      }
      if (record.leader !== p.leader && record.leaderEpoch <= p.leaderEpoch) {
        fail(record, `a new leader needs a leader epoch above ${p.leaderEpoch}, got ${record.leaderEpoch}`);
      }
      if (record.leaderEpoch < p.leaderEpoch) fail(record, `leader epoch ${record.leaderEpoch} goes back from ${p.leaderEpoch}`);
      const next: PartitionState = record.replicas === undefined ? copyPartition(p) : reassignedPartition(record, p);
      if (record.leader !== NO_LEADER && !next.replicas.includes(record.leader)) {
        fail(record, `leader ${record.leader} is not a replica of ${record.topic}-${record.partition}`);
      }
      const elrAllowsEmptyIsr = isElrEnabled(state.features) || p.isr.length === 0;
      checkLeaderAndIsr(record, next, record.leader, record.isr, elrAllowsEmptyIsr);
      const elrFields = checkElrFields(state, record, next);
      const partitions = [...t.partitions];
      partitions[record.partition] = { ...next, ...elrFields, leader: record.leader, isr: [...record.isr], leaderEpoch: record.leaderEpoch, partitionEpoch: record.partitionEpoch };
      if (partitions[record.partition]!.elr?.length === 0) delete partitions[record.partition]!.elr;
      if (partitions[record.partition]!.lastKnownElr?.length === 0) delete partitions[record.partition]!.lastKnownElr;
      const withChange = withTopic(state, { ...t, partitions });
      if (record.replicas === undefined) return withChange;
      // replicas taken out on brokers that are down delete their copy when they register again
      const gone = p.replicas.filter((r) => !next.replicas.includes(r) && !isLive(state.brokers.get(r)));
      if (gone.length === 0) return withChange;
      const pendingDeletes = new Map(state.pendingDeletes);
      for (const r of gone) pendingDeletes.set(r, [...(pendingDeletes.get(r) ?? []), { topic: t.name, topicId: t.topicId, partition: p.partition }]);
      return { ...withChange, pendingDeletes };
    }
    case 'ChangeTopicConfig': {
      const t = state.topics.get(record.name);
      if (!t || t.topicId !== record.topicId) fail(record, `topic ${record.name} (${record.topicId}) does not exist`);
      return withTopic(state, { ...t, config: { ...record.config } });
    }
    case 'AllocateProducerIds': {
      requireBroker(state, record);
      if (record.firstProducerId !== state.nextProducerId) fail(record, `the next free producer id is ${state.nextProducerId}, not ${record.firstProducerId}`);
      if (!(record.nextProducerId > record.firstProducerId) || !Number.isSafeInteger(record.nextProducerId)) fail(record, `empty or invalid producer id block [${record.firstProducerId}, ${record.nextProducerId})`);
      return { ...state, nextProducerId: record.nextProducerId };
    }
    case 'AccessControlEntry': {
      const problem = bindingProblem(record.binding);
      if (problem) fail(record, problem);
      const key = bindingKey(record.binding);
      if (state.acls.has(key)) fail(record, 'the binding exists');
      return { ...state, acls: new Map(state.acls).set(key, { ...record.binding }) };
    }
    case 'RemoveAccessControlEntry': {
      const key = bindingKey(record.binding);
      if (!state.acls.has(key)) fail(record, 'no such binding');
      const acls = new Map(state.acls);
      acls.delete(key);
      return { ...state, acls };
    }
    case 'BrokerConfig': {
      if (record.resource !== '' && !/^(0|[1-9]\d*)$/.test(record.resource)) fail(record, `'${record.resource}' is not a broker id`);
      const brokerConfigs = new Map(state.brokerConfigs);
      if (Object.keys(record.config).length === 0) brokerConfigs.delete(record.resource);
      else brokerConfigs.set(record.resource, { ...record.config });
      return { ...state, brokerConfigs };
    }
    case 'GroupConfig': {
      if (typeof record.group !== 'string' || record.group === '') fail(record, 'a group config needs a group id');
      const groupConfigs = new Map(state.groupConfigs);
      if (Object.keys(record.config).length === 0) groupConfigs.delete(record.group);
      else groupConfigs.set(record.group, { ...record.config });
      return { ...state, groupConfigs };
    }
    case 'ClientMetricsConfig': {
      if (typeof record.name !== 'string' || record.name === '') fail(record, 'a client metrics subscription needs a name');
      const clientMetrics = new Map(state.clientMetrics);
      if (Object.keys(record.config).length === 0) clientMetrics.delete(record.name);
      else clientMetrics.set(record.name, { ...record.config });
      return { ...state, clientMetrics };
    }
    case 'ClientQuota': {
      if (record.entity.user === undefined && record.entity.clientId === undefined && record.entity.ip === undefined) fail(record, 'the entity is empty');
      const key = entityKey(record.entity);
      const clientQuotas = new Map(state.clientQuotas);
      if (Object.keys(record.quotas).length === 0) clientQuotas.delete(key);
      else clientQuotas.set(key, { entity: { ...record.entity }, quotas: { ...record.quotas } });
      return { ...state, clientQuotas };
    }
    case 'UserScramCredential': {
      const c = record.credential;
      if (c.user === '' || scramHashOf(c.mechanism) === null || !Number.isSafeInteger(c.iterations)) fail(record, `not a credential: ${c.user}/${c.mechanism}`);
      const scramCredentials = new Map(state.scramCredentials);
      scramCredentials.set(scramKey(c.user, c.mechanism), { ...c });
      return { ...state, scramCredentials };
    }
    case 'RemoveUserScramCredential': {
      const key = scramKey(record.user, record.mechanism);
      if (!state.scramCredentials.has(key)) fail(record, `no ${scramMechanismName(record.mechanism)} credential for user ${record.user}`);
      const scramCredentials = new Map(state.scramCredentials);
      scramCredentials.delete(key);
      return { ...state, scramCredentials };
    }
    case 'DelegationToken': {
      const t = record.token;
      const times = [t.issueTimestamp, t.maxTimestamp, t.expiryTimestamp];
      if (t.tokenId === '' || !t.owner.includes(':') || !t.requester.includes(':') || !Array.isArray(t.renewers) || !times.every(Number.isSafeInteger)) fail(record, `not a delegation token: ${t.tokenId}`);
      if (t.expiryTimestamp > t.maxTimestamp) fail(record, `token ${t.tokenId} expires after its max timestamp`);
      const prev = state.delegationTokens.get(t.tokenId);
      if (prev && (prev.owner !== t.owner || prev.issueTimestamp !== t.issueTimestamp)) fail(record, `token ${t.tokenId} exists with another owner or issue time`);
      const delegationTokens = new Map(state.delegationTokens);
      delegationTokens.set(t.tokenId, { ...t, renewers: [...t.renewers] });
      return { ...state, delegationTokens };
    }
    case 'RemoveDelegationToken': {
      if (!state.delegationTokens.has(record.tokenId)) fail(record, `no delegation token ${record.tokenId}`);
      const delegationTokens = new Map(state.delegationTokens);
      delegationTokens.delete(record.tokenId);
      return { ...state, delegationTokens };
    }
    case 'FeatureLevel': {
      if (typeof record.name !== 'string' || record.name === '' || !Number.isInteger(record.level) || record.level < 0 || record.level > 0x7fff) {
        fail(record, `bad feature level ${record.level} for ${JSON.stringify(record.name)}`);
      }
      const features = { ...state.features };
      if (record.level === 0) delete features[record.name];
      else features[record.name] = record.level;
      return { ...state, features, featuresEpoch: state.featuresEpoch + 1 };
    }
    case 'ClearElr': {
      requireElrMetadata(state, record);
      if (typeof record.topic !== 'string') fail(record, 'a topic name (or empty for all) is needed');
      if (record.topic !== '' && !state.topics.has(record.topic)) fail(record, `unknown topic ${record.topic}`);
      let topics: Map<string, TopicRecord> | null = null;
      for (const t of state.topics.values()) {
        if (record.topic !== '' && t.name !== record.topic) continue;
        if (!t.partitions.some((p) => p.elr || p.lastKnownElr)) continue;
        topics ??= new Map(state.topics);
        topics.set(t.name, { ...t, partitions: t.partitions.map(withoutElr) });
      }
      return topics ? { ...state, topics } : state;
    }
    case 'QuorumVoters': {
      const problem = votersProblem(record.voters);
      if (problem) fail(record, problem);
      return { ...state, quorumVoters: record.voters.map(copyVoter) };
    }
    case 'RemoveTopic': {
      const t = state.topics.get(record.name);
      if (!t) fail(record, `unknown topic ${record.name}`);
      if (t.topicId !== record.topicId) fail(record, `topic ${record.name} has id ${t.topicId}, not ${record.topicId}`);
      const topics = new Map(state.topics);
      topics.delete(record.name);
      // a topic made again under this name starts with none of these replicas offline
      let brokers = state.brokers;
      for (const b of state.brokers.values()) {
        if (!b.offlineReplicas?.some((p) => p.topic === record.name)) continue;
        if (brokers === state.brokers) brokers = new Map(state.brokers);
        (brokers as Map<number, BrokerRecord>).set(b.brokerId, withOfflineReplicas(b, b.offlineReplicas.filter((p) => p.topic !== record.name)));
      }
      const pendingDeletes = new Map(state.pendingDeletes);
      for (const p of t.partitions) {
        for (const r of p.replicas) {
          if (isLive(state.brokers.get(r))) continue;
          pendingDeletes.set(r, [...(pendingDeletes.get(r) ?? []), { topic: t.name, topicId: t.topicId, partition: p.partition }]);
        }
      }
      return { ...state, brokers, topics, pendingDeletes };
    }
    default: {
      // a record of a type this controller does not know (not from its own log: the quorum
      // refuses such entries, isKnownRecordType) is refused like any other bad record
      const unknown: never = record;
      return fail(unknown, `unknown metadata record type ${JSON.stringify((unknown as { type?: unknown }).type)}`);
    }
  }
}

/** Every metadata record type applyRecord knows (a type added to MetadataRecord must be added here). */
const RECORD_TYPES: Readonly<Record<MetadataRecord['type'], true>> = {
  ControllerEpoch: true,
  RegisterBroker: true,
  FenceBroker: true,
  UnfenceBroker: true,
  BeginControlledShutdown: true,
  UnregisterBroker: true,
  BrokerReplicasOffline: true,
  CreateTopic: true,
  CreatePartitions: true,
  PartitionChange: true,
  ChangeTopicConfig: true,
  AllocateProducerIds: true,
  AccessControlEntry: true,
  RemoveAccessControlEntry: true,
  BrokerConfig: true,
  GroupConfig: true,
  ClientMetricsConfig: true,
  ClientQuota: true,
  UserScramCredential: true,
  RemoveUserScramCredential: true,
  DelegationToken: true,
  RemoveDelegationToken: true,
  FeatureLevel: true,
  ClearElr: true,
  QuorumVoters: true,
  RemoveTopic: true,
};

/** Whether `r` is an object with the type of a metadata record applyRecord knows. */
export function isKnownRecordType(r: unknown): boolean {
  const type = typeof r === 'object' && r !== null ? (r as { type?: unknown }).type : undefined;
  return typeof type === 'string' && Object.hasOwn(RECORD_TYPES, type);
}

/**
 * A partition without ELR and LastKnownElr: at a new partition epoch if it had either (Kafka's
 * ClearElrRecord merges a PartitionChangeRecord into it, which bumps the epoch).
 */
function withoutElr(p: PartitionState): PartitionState {
  if (!p.elr && !p.lastKnownElr) return p;
  const { elr: _elr, lastKnownElr: _lke, ...rest } = p;
  const had = (p.elr?.length ?? 0) > 0 || (p.lastKnownElr?.length ?? 0) > 0;
  return had ? { ...rest, partitionEpoch: p.partitionEpoch + 1 } : rest;
}

function copyVoter(v: QuorumVoter): QuorumVoter {
  return v.directoryId === undefined ? { id: v.id, node: v.node } : { id: v.id, node: v.node, directoryId: v.directoryId };
}

/** What is wrong with a voter set (null: nothing): at least one voter, ids and nodes distinct. */
export function votersProblem(voters: readonly QuorumVoter[]): string | null {
  if (!Array.isArray(voters) || voters.length === 0) return 'a voter set needs at least one voter';
  const ids = new Set<number>();
  const nodes = new Set<string>();
  for (const v of voters) {
    if (!Number.isSafeInteger(v.id) || v.id < 0) return `voter id ${String(v.id)} is not a non-negative integer`;
    if (typeof v.node !== 'string' || v.node === '') return `voter ${v.id} has no node`;
    if (v.directoryId !== undefined && typeof v.directoryId !== 'string') return `voter ${v.id} has a bad directory id`;
    if (ids.has(v.id)) return `voter ${v.id} is named twice`;
    if (nodes.has(v.node)) return `node ${v.node} holds two voters`;
    ids.add(v.id);
    nodes.add(v.node);
  }
  return null;
}

/** The broker with `partitions` as its offline replicas (the field absent when there are none). */
function withOfflineReplicas(b: BrokerRecord, partitions: readonly { topic: string; partition: number }[]): BrokerRecord {
  const { offlineReplicas: _was, ...rest } = b;
  return partitions.length > 0 ? { ...rest, offlineReplicas: partitions } : rest;
}

/** Topic-partitions without repeats, sorted by topic, then partition (fresh copies). */
function sortedReplicaKeys(partitions: readonly { topic: string; partition: number }[]): { topic: string; partition: number }[] {
  const seen = new Map<string, { topic: string; partition: number }>();
  for (const p of partitions) seen.set(`${p.topic}\u0000${p.partition}`, { topic: p.topic, partition: p.partition });
  return [...seen.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

/** Whether what a broker reports offline differs from what the metadata holds for it. */
export function offlineReplicasChanged(b: BrokerRecord, reported: readonly { topic: string; partition: number }[], state: MetadataState): boolean {
  const now = sortedReplicaKeys(reported.filter((p) => getPartition(state, p.topic, p.partition)?.replicas.includes(b.brokerId)));
  const was = b.offlineReplicas ?? [];
  return now.length !== was.length || now.some((p, i) => p.topic !== was[i]!.topic || p.partition !== was[i]!.partition);
}

/** Applies records in order. */
export function applyRecords(state: MetadataState, records: readonly MetadataRecord[]): MetadataState {
  let s = state;
  for (const r of records) s = applyRecord(s, r);
  return s;
}
