/**
 * The controller: the owner of cluster metadata (one actor per controller node, at
 * CONTROLLER_PATH). With several controllers they form a metadata quorum: each has a quorum
 * actor (a child, actors/quorum/quorum.ts) that replicates the metadata log with Raft, and only
 * the one whose quorum actor leads is active. Every change is a batch of metadata records
 * (metadata-state.ts): built and applied to a working copy, committed through the quorum
 * (durable on a majority), made the current state, then told to the brokers, then answered.
 *
 * Roles: Standby --(QuorumReady: its quorum leads and every committed batch is applied; it
 * commits a controller epoch one higher)--> Active; Active --(QuorumLeader naming another or
 * none, or an Append answered NOT_CONTROLLER)--> Standby. A standby applies what the quorum
 * commits (QuorumCommitted) and answers every request with NotController naming the active
 * controller; while no leader is known it stashes requests, for up to two election timeouts.
 *
 * Owned state: the metadata applied up to a log index (brokers, topics, partitions, deletions owed to absent brokers,
 * controller epoch, the next free producer id, ACLs, dynamic broker configs, client quotas, SCRAM
 * credentials, delegation tokens), the SCRAM credentials derived for each token (volatile), its
 * role and the quorum leader it knows, its quorum actor, broker sessions (last heartbeat, volatile), metadata
 * watchers (volatile), the placement random source.
 *
 * Eligible leader replicas (KIP-966, eligible-leaders.ts), while eligible.leader.replicas.version
 * is 1: every ISR change, fencing, controlled shutdown, unfencing and election keeps each
 * partition's ELR and LastKnownElr; a BrokerRegistration of a new incarnation whose
 * previousBrokerEpoch is not the registered epoch (an unclean shutdown) takes the broker out of
 * every ISR and ELR; a change of min.insync.replicas (topic, broker or cluster default) adds
 * ClearElr records; turning the feature off clears every ELR, and a change of the feature sends
 * every partition's LeaderAndIsr again (its leader learns whether to hold the high watermark).
 * A ClearElr gives each partition it empties a new partition epoch (as Kafka's): its replicas get
 * LeaderAndIsr again. An UpdateFeatures raising the feature to 1 (and a new cluster's first batch,
 * which starts with it) writes the cluster-wide min.insync.replicas from this controller's own
 * when none is set and takes every broker's own away, in the same batch (Kafka's
 * maybeGenerateElrSafetyRecords); while it is on, AlterBrokerConfigs refuses a broker's own
 * min.insync.replicas and the deletion of the cluster-wide one (INVALID_CONFIG).
 *
 * Handles: BrokerRegistration, BrokerHeartbeat (with the replicas a failed log dir took offline:
 * leadership moved away from them, ISR shrunk), ControlledShutdown, UnregisterBroker (a
 * decommissioned broker leaves every ISR and ELR, then the registrations), CreateTopics, DeleteTopics,
 * CreatePartitions, AlterPartition, AlterTopicConfigs, ElectLeaders, AlterPartitionReassignments,
 * ListPartitionReassignments, CreateAcls, DeleteAcls, DescribeAcls (acls.ts), AlterBrokerConfigs, AlterGroupConfigs,
 * AlterClientMetrics (KIP-714's subscriptions, client-metrics-changes.ts),
 * AlterClientQuotas (client-quotas.ts), AlterUserScramCredentials, DescribeUserScramCredentials
 * (scram-credentials.ts), CreateDelegationToken, RenewDelegationToken, ExpireDelegationToken,
 * DescribeDelegationTokens (delegation-tokens.ts; with delegation.token.secret.key set, its own
 * periodic SweepExpiredTokens removes expired tokens every delegation.token.expiry.check.interval.ms),
 * AllocateProducerIds, Metadata,
 * WatchMetadata, UnwatchMetadata, DescribeQuorum, AddRaftVoter, RemoveRaftVoter (the quorum's
 * voters changed one at a time, KIP-853: the quorum actor checks the change as Kafka does, then
 * the new set is committed as a QuorumVoters record); from its quorum actor QuorumCommitted,
 * QuorumLeader, QuorumReady, QuorumSnapshot; its own StashExpired; its own periodic CheckSessions (fences brokers silent for
 * broker.session.timeout.ms), and its own BalanceLeaders (auto.leader.rebalance.enable: once a
 * change leaves some partition led by a replica other than its preferred one, a timer of
 * leader.imbalance.check.interval.seconds elects the preferred replicas that can lead by then,
 * as KRaft's controller does; at most MAX_ELECTIONS_PER_BALANCE a round, the next right after).
 *
 * Partition reassignment (reassignments.ts): AlterPartitionReassignments records the target and
 * tells the new replicas to follow (unless KIP-860's allowReplicationFactorChange is false and the
 * target would change the replication factor: INVALID_REPLICATION_FACTOR for that partition, the
 * others of the request going ahead); the AlterPartition that brings the last target replica into
 * the ISR completes it in the same batch (replicas become the target, a leader outside it hands
 * over, the removed replicas get StopReplica with delete).
 *
 * AlterTopicConfigs that allows unclean election for a topic also elects, in the same batch, a
 * leader for each of its partitions that has none (as KRaft's controller does for them).
 *
 * Emits (tells, each carrying the controller epoch): LeaderAndIsrRequest to the replicas of
 * created or changed partitions (and every partition of a broker that (re)joins),
 * StopReplicaRequest (deletePartition) to the replicas of deleted topics (absent brokers get
 * theirs when they register again), UpdateMetadataRequest to every live broker and watcher after
 * each change. Replies: the ControllerReply of each request, errors as data.
 *
 * The controller epoch grows by one each time a controller becomes active (recorded in the
 * metadata log); a restart (supervision, or a new process on the same metadata dir) replays the
 * log through the quorum actor. Replies: NotController from a standby.
 */
import { ControllerMutationQuotas } from '../../src/security/controller-mutation-quota.js';
import { defineActor, type ActorContext, type BaseContext } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Message } from '../../src/runtime/types.js';
import { sameRef } from '../../src/runtime/types.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { NO_LEADER, brokerPath, type PartitionState } from '../../src/protocol/cluster.js';
import { newTopicId } from '../../src/protocol/topic-id.js';
import { ConfigError } from '../../src/storage/log-config.js';
import type { ControlToBrokerMsg, LeaderAndIsrPartition } from '../broker/control-messages.js';
import type { CreatableTopic, ControllerMsg, ControllerReply } from './messages.js';
import { parseControllerConfig, sessionCheckIntervalMs, type ControllerConfig, type ControllerConfigInput } from './controller-config.js';
import {
  ElectionType,
  balancingChanges,
  changesForControlledShutdown,
  changesForFencedBroker,
  changesForOfflineReplicas,
  changesForUnfencedBroker,
  electLeader,
  hasImbalance,
  partitionChange,
  uncleanChangesForTopic,
  type ElectionTypeValue,
} from './elections.js';
import { MetadataLogCorruptError } from './metadata-log.js';
import { MetadataSnapshotError, fromImage, toImage } from './metadata-snapshot.js';
import { QUORUM_NAME, quorum } from '../quorum/quorum.js';
import { QuorumStateError } from '../quorum/quorum-state.js';
import type { QuorumEvent, QuorumMsg, QuorumReply, QuorumVoter } from '../quorum/messages.js';
import { aclCreations, aclDeletions, describeAcls } from './acls.js';
import { groupConfigChanges } from './group-config-changes.js';
import { clientMetricsChanges } from './client-metrics-changes.js';
import { brokerConfigChanges } from './broker-configs.js';
import { clientQuotaChanges } from './client-quotas.js';
import { describeScram, scramChanges } from './scram-credentials.js';
import { createToken, describeTokens, expireToken, expiredTokenRemovals, renewToken, tokenAuthEntries, type DelegationTokenConfig, type TokenAuthEntry } from './delegation-tokens.js';
import {
  BrokerState,
  MetadataRecordError,
  applyRecord,
  applyRecords,
  eligibleBrokerIds,
  emptyMetadata,
  getPartition,
  isEligible,
  isLive,
  liveBrokers,
  offlineReplicasChanged,
  partitionsHostedBy,
  toBrokerInfo,
  toClusterMetadata,
  type BrokerRecord,
  type MetadataRecord,
  type MetadataState,
  type PartitionChangeRecord,
  type PendingDelete,
  type TopicRecord,
} from './metadata-state.js';
import { cancelReassignment, completionChange, isReassigning, removedReplicas, replicationFactorChange, startReassignment, targetReplicas, validateTarget } from './reassignments.js';
import { ELIGIBLE_LEADER_REPLICAS_VERSION, bootstrapFeatureLevels, checkFeatureUpdates, isElrEnabled, type BootstrapFeatures } from '../../src/protocol/features.js';
import { MIN_INSYNC_REPLICAS_KEY, changesForUncleanShutdown, clearElrFor, effectiveMinIsr, elrClearedPartitions, elrOn, elrSafetyRecords, maintainElr } from './eligible-leaders.js';
import { assignReplicas, defaultRandom, placementForNewPartitions, placementForNewTopic, seededRandom, type PlacementBroker, type PlacementRandom } from './placement.js';
import {
  MAX_NEW_PARTITIONS_PER_REQUEST,
  TOO_MANY_NEW_PARTITIONS,
  isInternalTopic,
  normalizeTopicConfig,
  validateAssignments,
  validateNewPartitionTotal,
  validateNoCollision,
  validatePartitionCount,
  validateReplicationFactor,
  validateTopicConfig,
  validateTopicName,
  type ValidationError,
} from './topic-validation.js';

export interface ControllerArgs {
  clusterId: string;
  /** Where the metadata log lives; null or absent keeps metadata in memory only. */
  metadataDir?: string | null;
  config?: ControllerConfigInput;
  /** Seeds replica placement so it is reproducible. */
  placementSeed?: number;
  /** Fixes the placement start index and shift (Kafka's fixedStartIndex), for tests. */
  placementStartIndex?: number;
  /** Preferred-replica elections per balancing round (default MAX_ELECTIONS_PER_BALANCE), for tests. */
  maxElectionsPerBalance?: number;
  /**
   * This controller's id and the initial voters of the metadata quorum (the topology's; the
   * metadata log's QuorumVoters records take over once the set changes). A controller not among
   * them observes until it is added. `contacts`: other controllers to ask for the leader while
   * it observes. Absent: a quorum of one, id 1, on this node.
   */
  quorum?: { voterId: number; voters: QuorumVoter[]; contacts?: QuorumVoter[] };
  /** Election jitter in [0, 1), for tests. */
  quorumRandom?: () => number;
  /**
   * The feature levels a new cluster starts with (a topology's `controller.releaseVersion` and
   * `controller.features`, as Kafka's `kafka-storage format` takes them); absent: samsa's
   * defaults. Written by the first controller to lead a cluster whose metadata has no levels.
   */
  bootstrapFeatures?: BootstrapFeatures;
}

/** Active: leads the quorum and serves requests. Standby: applies what the leader commits. */
export const ControllerRole = Object.freeze({ Standby: 'Standby', Active: 'Active' } as const);
export type ControllerRole = (typeof ControllerRole)[keyof typeof ControllerRole];

export interface ControllerState {
  readonly clusterId: string;
  readonly config: ControllerConfig;
  /** Controller mutation quotas (KIP-599): each client's token bucket of partition mutations. */
  readonly mutationQuotas: ControllerMutationQuotas;
  /** The committed metadata, applied up to appliedIndex. */
  metadata: MetadataState;
  appliedIndex: number;
  role: ControllerRole;
  readonly voterId: number;
  /** The quorum actor (a child) that replicates and stores the metadata log. */
  readonly quorum: ActorRef<QuorumMsg>;
  /** The quorum leader as last told (null: an election is on). */
  leader: { id: number; node: string | null; term: number } | null;
  /** Set once requests waited a whole election without a leader: they are refused until one is known. */
  refuseWithoutLeader: boolean;
  /** Bytes of records applied since the last snapshot (metadata.log.max.record.bytes.between.snapshots). */
  bytesSinceSnapshot: number;
  /** brokerId -> clock time of its last registration or heartbeat (live brokers only). */
  readonly sessions: Map<number, number>;
  readonly watchers: ActorRef<Message>[];
  readonly random: PlacementRandom;
  readonly fixedStartIndex: number | null;
  readonly maxElectionsPerBalance: number;
  /** The levels this controller gives a cluster whose metadata has none (a new one). */
  readonly bootstrapLevels: Readonly<Record<string, number>>;
  /** tokenId -> the SCRAM credentials the brokers authenticate the token with (derived once). */
  readonly tokenAuthCache: Map<string, TokenAuthEntry>;
}

type Ctx = ActorContext<ControllerMsg>;
type TopicPartition = { topic: string; partition: number };

const CHECK_SESSIONS_TIMER = 'check-sessions';
const BALANCE_LEADERS_TIMER = 'balance-leaders';
const STASH_TIMER = 'stash-expiry';
const TOKEN_SWEEP_TIMER = 'delegation-token-sweep';
/** Preferred-replica elections in one balancing round (Kafka's maxElectionsPerImbalance). */
export const MAX_ELECTIONS_PER_BALANCE = 1000;

// ------------------------------------------------------------------ batches of records

/** Records of one operation, applied to a working copy as they are added. */
class Batch {
  readonly records: MetadataRecord[] = [];
  constructor(public state: MetadataState) {}

  add(record: MetadataRecord): void {
    this.state = applyRecord(this.state, record);
    this.records.push(record);
  }

  addAll(records: readonly MetadataRecord[]): void {
    for (const r of records) this.add(r);
  }

  /** Where the batch stands, to go back to with `rollback` when a later record of the same step is refused. */
  mark(): { state: MetadataState; length: number } {
    return { state: this.state, length: this.records.length };
  }

  rollback(to: { state: MetadataState; length: number }): void {
    this.state = to.state;
    this.records.length = to.length;
  }
}

type CommitFailure = { ok: false; errorCode: number; errorMessage: string };
type CommitResult = { ok: true } | CommitFailure;

/**
 * Thrown inside the controller (never across its boundary) when the quorum says this controller
 * no longer leads: the request's handler stops, and `activeOnly` answers NotController.
 */
class NotLeading extends Error {
  override readonly name = 'NotLeading';
}

/**
 * Makes a batch committed (replicated to a majority of the quorum, durable on each) and current.
 * A storage failure is returned and leaves the state as it was; losing the leadership throws
 * NotLeading (the batch may still commit under the next leader, which this controller then
 * applies as a standby).
 */
async function commit(s: ControllerState, batch: Batch, ctx: BaseContext<ControllerMsg>, ack: 'committed' | 'written' = 'committed'): Promise<CommitResult> {
  if (batch.records.length === 0) return { ok: true };
  if (s.role !== ControllerRole.Active) throw new NotLeading('not the active controller');
  const append: QuorumMsg = ack === 'written' ? { type: 'Append', records: batch.records, ack } : { type: 'Append', records: batch.records };
  const r = await ctx.ask<QuorumReply>(s.quorum, append, { timeoutMs: 60_000 });
  if (r.type === 'AppendResult' && r.errorCode === ErrorCode.NONE) {
    s.metadata = batch.state;
    s.appliedIndex = r.index;
    countForSnapshot(s, ctx, batch.records);
    scheduleBalance(s, ctx);
    return { ok: true };
  }
  if (r.type === 'AppendResult' && r.errorCode === ErrorCode.NOT_CONTROLLER) {
    standDown(s, ctx);
    throw new NotLeading(r.errorMessage ?? 'not the active controller');
  }
  const errorMessage = r.type === 'AppendResult' ? (r.errorMessage ?? `error ${r.errorCode}`) : `the metadata quorum did not answer: ${r.type === 'Failure' ? r.message : r.type}`;
  ctx.log.error('metadata log append failed', { error: errorMessage, records: batch.records.length });
  return { ok: false, errorCode: r.type === 'AppendResult' ? r.errorCode : ErrorCode.KAFKA_STORAGE_ERROR, errorMessage };
}

/** Starts the balancing timer when leaders are off their preferred replicas and none is pending. */
function scheduleBalance(s: ControllerState, ctx: BaseContext<ControllerMsg>): void {
  if (!s.config.autoLeaderRebalanceEnable || ctx.timers.isActive(BALANCE_LEADERS_TIMER) || !hasImbalance(s.metadata)) return;
  ctx.timers.startSingle(BALANCE_LEADERS_TIMER, s.config.leaderImbalanceCheckIntervalSeconds * 1000, { type: 'BalanceLeaders' });
}

/** Builds a batch; a record that does not fit the state is a controller bug, reported as data. */
function build(s: ControllerState, ctx: Ctx, fn: (b: Batch) => void): Batch | CommitFailure {
  const batch = new Batch(s.metadata);
  try {
    fn(batch);
    return batch;
  } catch (err) {
    if (!(err instanceof MetadataRecordError)) throw err;
    ctx.log.error('inconsistent metadata change refused', { error: err.message });
    return { ok: false, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: `internal error: ${err.message}` };
  }
}

// ------------------------------------------------------------------ what goes to brokers

/** Requests to brokers collected during one operation, sent after the commit. */
class Outbox {
  private readonly leaderAndIsr = new Map<number, Map<string, LeaderAndIsrPartition>>();
  private readonly stops = new Map<number, { topic: string; partition: number; deletePartition: boolean }[]>();
  /** Brokers no longer in the metadata (just unregistered) that may still be running. */
  private readonly departed = new Map<number, BrokerRecord>();

  addDeparted(b: BrokerRecord): void {
    this.departed.set(b.brokerId, b);
  }

  addLeaderAndIsr(state: MetadataState, brokerId: number, topic: TopicRecord, p: PartitionState, isNew: boolean): void {
    let m = this.leaderAndIsr.get(brokerId);
    if (!m) this.leaderAndIsr.set(brokerId, (m = new Map()));
    const key = `${p.topic}\u0000${p.partition}`;
    const prev = m.get(key);
    m.set(key, {
      ...p,
      replicas: [...p.replicas],
      isr: [...p.isr],
      topicId: topic.topicId,
      isNew: isNew || (prev?.isNew ?? false),
      config: { ...topic.config },
      ...(elrOn(state) ? { eligibleLeaderReplicasEnabled: true } : {}),
    });
  }

  /** LeaderAndIsr for `partitions` to each of their live replicas (plus `alsoTo` when a replica). */
  addForPartitions(state: MetadataState, partitions: readonly TopicPartition[], isNew: boolean, alsoTo: number | null = null): void {
    for (const tp of partitions) {
      const topic = state.topics.get(tp.topic);
      const p = topic?.partitions[tp.partition];
      if (!topic || !p) continue;
      for (const r of p.replicas) {
        if (isLive(state.brokers.get(r)) || r === alsoTo) this.addLeaderAndIsr(state, r, topic, p, isNew);
      }
    }
  }

  addStopReplica(brokerId: number, topic: string, partition: number, deletePartition: boolean): void {
    let list = this.stops.get(brokerId);
    if (!list) this.stops.set(brokerId, (list = []));
    list.push({ topic, partition, deletePartition });
  }

  /** Sends StopReplica first, then LeaderAndIsr, then UpdateMetadata to every live broker and watcher. */
  flush(s: ControllerState, ctx: BaseContext<ControllerMsg>, broadcastMetadata: boolean): void {
    const state = s.metadata;
    const epoch = state.controllerEpoch;
    for (const [brokerId, partitions] of this.stops) {
      const b = state.brokers.get(brokerId) ?? this.departed.get(brokerId);
      if (!b) continue;
      ctx.send(brokerRef(b), { type: 'StopReplicaRequest', controllerEpoch: epoch, brokerId, partitions });
    }
    for (const [brokerId, byKey] of this.leaderAndIsr) {
      const b = state.brokers.get(brokerId) ?? this.departed.get(brokerId);
      if (!b) continue;
      const partitions = [...byKey.values()];
      const leaders = [...new Set(partitions.map((p) => p.leader).filter((l) => l !== NO_LEADER))].sort((x, y) => x - y);
      const liveLeaders = leaders.flatMap((id) => {
        const lb = state.brokers.get(id);
        return lb ? [toBrokerInfo(lb)] : [];
      });
      ctx.send(brokerRef(b), { type: 'LeaderAndIsrRequest', controllerEpoch: epoch, brokerId, partitions, liveLeaders });
    }
    if (broadcastMetadata) sendMetadataUpdates(s, ctx, liveBrokers(state).map(brokerRef));
  }
}

function brokerRef(b: BrokerRecord): ActorRef<ControlToBrokerMsg> {
  return { node: b.node, path: brokerPath(b.brokerId) };
}

/** UpdateMetadataRequest with the full metadata to `targets` and every watcher. */
function sendMetadataUpdates(s: ControllerState, ctx: BaseContext<ControllerMsg>, targets: readonly ActorRef<ControlToBrokerMsg>[]): void {
  const metadata = toClusterMetadata(s.metadata, ctx.nodeId);
  const msg: ControlToBrokerMsg = { type: 'UpdateMetadataRequest', controllerEpoch: s.metadata.controllerEpoch, metadata };
  // brokers' SASL listeners need the SCRAM credentials (users' and tokens'); watchers do not get them
  const toBrokers: ControlToBrokerMsg = {
    ...msg,
    scramCredentials: [...s.metadata.scramCredentials.values()],
    delegationTokens: tokenAuthEntries(s.metadata, s.config.delegationTokenSecretKey, s.tokenAuthCache),
  };
  for (const t of targets) ctx.send(t, toBrokers);
  for (const w of s.watchers) ctx.send(w as ActorRef<ControlToBrokerMsg>, msg);
}

async function handleAlterUserScramCredentials(s: ControllerState, m: Extract<ControllerMsg, { type: 'AlterUserScramCredentials' }>, ctx: Ctx): Promise<void> {
  const { records, results } = scramChanges(s.metadata, m.deletions, m.upsertions);
  await commitMetadataOnly(s, ctx, records, results, 'SCRAM credentials changed', () => ({ users: [...new Set(records.map((r) => (r.type === 'UserScramCredential' ? r.credential.user : r.type === 'RemoveUserScramCredential' ? r.user : '')))] }));
  ctx.reply<ControllerReply>({ type: 'AlterUserScramCredentialsResponse', results });
}

function tokenConfig(s: ControllerState): DelegationTokenConfig {
  return { secretKey: s.config.delegationTokenSecretKey, maxLifetimeMs: s.config.delegationTokenMaxLifetimeMs, expiryTimeMs: s.config.delegationTokenExpiryTimeMs };
}

/** Commits a token change; a failed commit becomes the answer's error. */
async function commitTokenRecords(s: ControllerState, ctx: Ctx, records: MetadataRecord[], what: string, fields: Record<string, unknown>): Promise<{ errorCode: number; errorMessage?: string }> {
  const result = { errorCode: ErrorCode.NONE as number, errorMessage: null as string | null };
  await commitMetadataOnly(s, ctx, records, [result], what, () => fields);
  return result.errorCode === ErrorCode.NONE ? { errorCode: ErrorCode.NONE } : { errorCode: result.errorCode, errorMessage: result.errorMessage ?? undefined! };
}

async function handleCreateDelegationToken(s: ControllerState, m: Extract<ControllerMsg, { type: 'CreateDelegationToken' }>, ctx: Ctx): Promise<void> {
  const out = createToken(tokenConfig(s), ctx.clock.now(), m);
  if (out.errorCode !== ErrorCode.NONE || !out.record) {
    ctx.reply<ControllerReply>({ type: 'CreateDelegationTokenResponse', errorCode: out.errorCode, token: null, hmac: null });
    return;
  }
  const c = await commitTokenRecords(s, ctx, [out.record], 'delegation token created', { tokenId: out.token.tokenId, owner: out.token.owner, requester: out.token.requester, expiryTimestamp: out.token.expiryTimestamp });
  ctx.reply<ControllerReply>(
    c.errorCode === ErrorCode.NONE ? { type: 'CreateDelegationTokenResponse', errorCode: ErrorCode.NONE, token: out.token, hmac: out.hmac.toString('base64') } : { type: 'CreateDelegationTokenResponse', ...c, token: null, hmac: null },
  );
}

async function handleTokenExpiry(s: ControllerState, m: Extract<ControllerMsg, { type: 'RenewDelegationToken' | 'ExpireDelegationToken' }>, ctx: Ctx): Promise<void> {
  const now = ctx.clock.now();
  const hmac = Buffer.from(m.hmac, 'base64');
  const out = m.type === 'RenewDelegationToken' ? renewToken(s.metadata, tokenConfig(s), now, m.principal, hmac, m.renewPeriodMs) : expireToken(s.metadata, tokenConfig(s), now, m.principal, hmac, m.expiryTimePeriodMs);
  if (out.errorCode !== ErrorCode.NONE) {
    ctx.reply<ControllerReply>({ type: 'DelegationTokenExpiryResponse', errorCode: out.errorCode, expiryTimestamp: out.expiryTimestamp });
    return;
  }
  const what = m.type === 'RenewDelegationToken' ? 'delegation token renewed' : out.records[0]?.type === 'RemoveDelegationToken' ? 'delegation token expired and removed' : 'delegation token expiry changed';
  const c = await commitTokenRecords(s, ctx, out.records, what, { tokenId: out.tokenId, principal: m.principal, expiryTimestamp: out.expiryTimestamp });
  ctx.reply<ControllerReply>(c.errorCode === ErrorCode.NONE ? { type: 'DelegationTokenExpiryResponse', errorCode: ErrorCode.NONE, expiryTimestamp: out.expiryTimestamp } : { type: 'DelegationTokenExpiryResponse', ...c, expiryTimestamp: 0 });
}

/** The sweep timer: tokens past their expiry or max timestamp are removed (Kafka's sweepExpiredDelegationTokens). */
async function handleSweepExpiredTokens(s: ControllerState, ctx: Ctx): Promise<void> {
  const records = expiredTokenRemovals(s.metadata, ctx.clock.now());
  if (records.length === 0) return;
  const c = await commitTokenRecords(s, ctx, records, 'expired delegation tokens removed', { tokenIds: records.map((r) => (r.type === 'RemoveDelegationToken' ? r.tokenId : '')) });
  if (c.errorCode !== ErrorCode.NONE) ctx.log.warn('removing expired delegation tokens failed; tried again at the next sweep', { error: c.errorMessage });
}

function changedPartitions(records: readonly MetadataRecord[]): TopicPartition[] {
  return records.filter((r): r is PartitionChangeRecord => r.type === 'PartitionChange').map((r) => ({ topic: r.topic, partition: r.partition }));
}

// ------------------------------------------------------------------ init

async function initController(ctx: BaseContext<ControllerMsg>, args: ControllerArgs): Promise<ControllerState> {
  if (!args || typeof args.clusterId !== 'string' || args.clusterId.length === 0) {
    throw new ConfigError('clusterId', 'the controller needs a non-empty clusterId');
  }
  const config = parseControllerConfig(args.config ?? {});
  const bootstrap = bootstrapFeatureLevels(args.bootstrapFeatures ?? {});
  if (!bootstrap.ok) throw new ConfigError(bootstrap.where, bootstrap.message);
  const q = args.quorum ?? { voterId: 1, voters: [{ id: 1, node: ctx.nodeId }] };
  // outside the initial voters, it observes until added; among them, it must be on this node
  const self = q.voters.find((v) => v.id === q.voterId);
  if (self && self.node !== ctx.nodeId) {
    throw new ConfigError('quorum', `controller ${q.voterId} is on node ${self.node} in the quorum's voters, not on this node (${ctx.nodeId})`);
  }
  if (!self && q.voters.some((v) => v.node === ctx.nodeId)) {
    throw new ConfigError('quorum', `node ${ctx.nodeId} hosts another controller of the quorum's voters`);
  }
  // the quorum actor replays the metadata log and tells what is committed (QuorumCommitted),
  // then who leads (QuorumLeader, QuorumReady); this controller starts as a standby
  const quorumRef = ctx.spawn(quorum, {
    name: QUORUM_NAME,
    args: {
      voterId: q.voterId,
      voters: q.voters,
      ...(q.contacts ? { contacts: q.contacts } : {}),
      metadataDir: args.metadataDir ?? null,
      listener: ctx.self,
      electionTimeoutMs: config.quorumElectionTimeoutMs,
      ...(args.quorumRandom ? { random: args.quorumRandom } : {}),
    },
  });
  const s: ControllerState = {
    clusterId: args.clusterId,
    config,
    mutationQuotas: new ControllerMutationQuotas(ctx.clock),
    metadata: emptyMetadata(),
    appliedIndex: 0,
    role: ControllerRole.Standby,
    voterId: q.voterId,
    quorum: quorumRef,
    leader: null,
    refuseWithoutLeader: false,
    bytesSinceSnapshot: 0,
    sessions: new Map(),
    watchers: [],
    random: args.placementSeed !== undefined ? seededRandom(args.placementSeed) : defaultRandom,
    fixedStartIndex: typeof args.placementStartIndex === 'number' && args.placementStartIndex >= 0 ? args.placementStartIndex : null,
    maxElectionsPerBalance: Number.isSafeInteger(args.maxElectionsPerBalance) && args.maxElectionsPerBalance! > 0 ? args.maxElectionsPerBalance! : MAX_ELECTIONS_PER_BALANCE,
    bootstrapLevels: bootstrap.levels,
    tokenAuthCache: new Map(),
  };
  ctx.log.info('controller started', { clusterId: args.clusterId, voterId: q.voterId, voters: q.voters.length, durable: Boolean(args.metadataDir) });
  return s;
}

// ------------------------------------------------------------------ the quorum

/** Applies newly committed batches (those this controller committed itself are already applied). */
function handleQuorumCommitted(s: ControllerState, m: Extract<QuorumEvent, { type: 'QuorumCommitted' }>, ctx: BaseContext<ControllerMsg>): void {
  let applied = 0;
  for (const e of m.entries) {
    if (e.index <= s.appliedIndex) continue;
    if (e.records.length > 0) s.metadata = applyRecords(s.metadata, e.records);
    s.appliedIndex = e.index;
    applied += e.records.length;
    countForSnapshot(s, ctx, e.records);
  }
  if (applied > 0 && s.role === ControllerRole.Standby) ctx.log.debug('applied committed metadata', { records: applied, index: s.appliedIndex });
}

/** The state at a snapshot's index replaces what was applied before it. */
function handleQuorumSnapshot(s: ControllerState, m: Extract<QuorumEvent, { type: 'QuorumSnapshot' }>, ctx: BaseContext<ControllerMsg>): void {
  if (m.index <= s.appliedIndex) return;
  s.metadata = fromImage(m.image);
  s.appliedIndex = m.index;
  s.bytesSinceSnapshot = 0;
  ctx.log.info('metadata loaded from a snapshot', { index: m.index, term: m.term, topics: s.metadata.topics.size, brokers: s.metadata.brokers.size });
}

/**
 * Counts applied records toward the next snapshot; past metadata.log.max.record.bytes.between.snapshots
 * the state is handed to the quorum actor, which writes it and compacts the log (every
 * controller snapshots its own copy, as KRaft's do).
 */
function countForSnapshot(s: ControllerState, ctx: BaseContext<ControllerMsg>, records: readonly MetadataRecord[]): void {
  if (records.length === 0) return;
  s.bytesSinceSnapshot += JSON.stringify(records).length;
  if (s.bytesSinceSnapshot < s.config.metadataLogMaxRecordBytesBetweenSnapshots) return;
  s.bytesSinceSnapshot = 0;
  ctx.send(s.quorum, { type: 'TakeSnapshot', index: s.appliedIndex, image: toImage(s.metadata) });
}

function handleQuorumLeader(s: ControllerState, m: Extract<QuorumEvent, { type: 'QuorumLeader' }>, ctx: BaseContext<ControllerMsg>): void {
  s.leader = m.leaderId === null ? null : { id: m.leaderId, node: m.leaderNode, term: m.term };
  if (m.leaderId !== s.voterId && s.role === ControllerRole.Active) standDown(s, ctx);
  if (m.leaderId !== null && m.leaderId !== s.voterId) {
    // waiting requests learn where the active controller is
    s.refuseWithoutLeader = false;
    ctx.timers.cancel(STASH_TIMER);
    ctx.unstashAll();
  }
}

/**
 * This controller leads the quorum and holds every committed batch: it becomes the active
 * controller with a controller epoch one higher (committed like any change), gives every live
 * broker a fresh session, and announces itself to them.
 */
async function handleQuorumReady(s: ControllerState, m: Extract<QuorumEvent, { type: 'QuorumReady' }>, ctx: BaseContext<ControllerMsg>): Promise<void> {
  if (s.leader?.id !== s.voterId || s.leader.term !== m.term || s.role === ControllerRole.Active) return;
  s.role = ControllerRole.Active;
  const batch = new Batch(s.metadata);
  try {
    batch.add({ type: 'ControllerEpoch', clusterId: s.clusterId, controllerEpoch: s.metadata.controllerEpoch + 1 });
    // a new cluster, or one made before samsa kept feature levels: the topology's levels, else
    // samsa's defaults (KIP-584)
    if (s.metadata.featuresEpoch === 0) {
      for (const [name, level] of Object.entries(s.bootstrapLevels)) batch.add({ type: 'FeatureLevel', name, level });
      // KIP-966: starting with ELR on, min.insync.replicas is cluster-wide (Kafka's ActivationRecordsGenerator)
      if (elrOn(batch.state)) batch.addAll(elrSafetyRecords(batch.state, s.config.minInsyncReplicas));
    }
  } catch (err) {
    s.role = ControllerRole.Standby;
    throw err; // a log of another cluster: supervision stops the controller
  }
  let committed: CommitResult;
  try {
    committed = await commit(s, batch, ctx);
  } catch (err) {
    if (err instanceof NotLeading) return;
    throw err;
  }
  if (!committed.ok) {
    // cannot write: a restart (supervision) gives the quorum up and lets it elect again
    s.role = ControllerRole.Standby;
    throw new Error(`could not record the new controller epoch: ${committed.errorMessage}`);
  }
  const now = ctx.clock.now();
  s.sessions.clear();
  for (const b of liveBrokers(s.metadata)) s.sessions.set(b.brokerId, now);
  ctx.timers.startPeriodic(CHECK_SESSIONS_TIMER, sessionCheckIntervalMs(s.config), { type: 'CheckSessions' });
  if (s.config.delegationTokenSecretKey !== null) ctx.timers.startPeriodic(TOKEN_SWEEP_TIMER, s.config.delegationTokenExpiryCheckIntervalMs, { type: 'SweepExpiredTokens' });
  scheduleBalance(s, ctx);
  // the brokers that were live hear of the new controller epoch at once
  if (s.sessions.size > 0) sendMetadataUpdates(s, ctx, liveBrokers(s.metadata).map(brokerRef));
  ctx.log.info('active controller', {
    clusterId: s.clusterId,
    voterId: s.voterId,
    term: m.term,
    controllerEpoch: s.metadata.controllerEpoch,
    brokers: s.metadata.brokers.size,
    topics: s.metadata.topics.size,
  });
  ctx.timers.cancel(STASH_TIMER);
  s.refuseWithoutLeader = false;
  ctx.unstashAll();
}

/** Another controller leads (or none): stop acting; the committed state stays. */
function standDown(s: ControllerState, ctx: BaseContext<ControllerMsg>): void {
  if (s.role !== ControllerRole.Active) return;
  s.role = ControllerRole.Standby;
  s.sessions.clear();
  s.watchers.length = 0;
  ctx.timers.cancel(CHECK_SESSIONS_TIMER);
  ctx.timers.cancel(BALANCE_LEADERS_TIMER);
  ctx.timers.cancel(TOKEN_SWEEP_TIMER);
  ctx.log.warn('no longer the active controller', { voterId: s.voterId, leaderId: s.leader?.id ?? null });
}

type RequestType = Exclude<ControllerMsg['type'], 'BalanceLeaders' | 'CheckSessions' | 'SweepExpiredTokens' | 'StashExpired' | QuorumEvent['type']>;

/**
 * Serves a request only on the active controller. A standby that knows the leader answers
 * NotController naming it (the caller's controller channel goes there); while an election is on,
 * the request waits (stashed) until there is a leader, or a whole election timeout passes.
 */
function activeOnly<K extends RequestType>(handler: (s: ControllerState, m: Extract<ControllerMsg, { type: K }>, ctx: Ctx) => void | Promise<void>) {
  return (s: ControllerState, m: Extract<ControllerMsg, { type: K }>, ctx: Ctx): void | Promise<void> => {
    if (s.role !== ControllerRole.Active) return notActive(s, ctx);
    const lost = (err: unknown): void => {
      if (!(err instanceof NotLeading)) throw err;
      notActive(s, ctx, true);
    };
    let out: void | Promise<void>;
    try {
      out = handler(s, m, ctx);
    } catch (err) {
      return lost(err);
    }
    return out instanceof Promise ? out.catch(lost) : out;
  };
}

/** Runs a timer's work only on the active controller; losing the leadership midway ends it quietly. */
function whenActive(s: ControllerState, work: () => void | Promise<void>): void | Promise<void> {
  if (s.role !== ControllerRole.Active) return;
  const quiet = (err: unknown): void => {
    if (!(err instanceof NotLeading)) throw err;
  };
  try {
    const out = work();
    return out instanceof Promise ? out.catch(quiet) : out;
  } catch (err) {
    return quiet(err);
  }
}

function notActive(s: ControllerState, ctx: Ctx, lost = false): void {
  const leader = s.leader && s.leader.id !== s.voterId ? s.leader : null;
  if (!leader && !lost && !s.refuseWithoutLeader) {
    ctx.stash();
    if (!ctx.timers.isActive(STASH_TIMER)) ctx.timers.startSingle(STASH_TIMER, 2 * s.config.quorumElectionTimeoutMs, { type: 'StashExpired' });
    return;
  }
  ctx.reply<ControllerReply>({
    type: 'NotController',
    errorCode: ErrorCode.NOT_CONTROLLER,
    errorMessage: leader ? `controller ${s.voterId} is not active: controller ${leader.id} is` : `controller ${s.voterId} is not active and no controller leads the metadata quorum yet`,
    leaderId: leader?.id ?? null,
    leaderNode: leader?.node ?? null,
  });
}

// ------------------------------------------------------------------ quorum voters

/**
 * AddRaftVoter / RemoveRaftVoter (KIP-853): the quorum actor checks the change as Kafka's
 * AddVoterHandler / RemoveVoterHandler do and names the new set, which is committed as a
 * QuorumVoters record like any change (it is in force for Raft once appended; answered once
 * committed, or an AddRaftVoter with `ackWhenCommitted` false once written, KIP-1186). Removing
 * this controller: it stands down once that commits (its quorum actor resigns and tells it).
 */
async function handleVoterChange(s: ControllerState, m: Extract<ControllerMsg, { type: 'AddRaftVoter' | 'RemoveRaftVoter' }>, ctx: Ctx): Promise<void> {
  const reply = (errorCode: number, errorMessage?: string) =>
    ctx.reply<ControllerReply>(errorMessage === undefined ? { type: 'RaftVoterChangeResponse', errorCode } : { type: 'RaftVoterChangeResponse', errorCode, errorMessage });
  if (m.clusterId != null && m.clusterId !== s.clusterId) return reply(ErrorCode.INCONSISTENT_CLUSTER_ID, `the cluster id '${m.clusterId}' is not this cluster's ('${s.clusterId}')`);
  if (!Number.isSafeInteger(m.voterId) || m.voterId < 0) return reply(ErrorCode.INVALID_REQUEST, `voterId must be a non-negative integer, got ${String(m.voterId)}`);
  const change = m.type === 'AddRaftVoter' ? 'add' : 'remove';
  const r = await ctx.ask<QuorumReply>(s.quorum, { type: 'CheckVoterChange', change, voterId: m.voterId, directoryId: m.directoryId ?? null }, { timeoutMs: 10_000 });
  if (r.type !== 'VoterChangeCheck') return reply(ErrorCode.REQUEST_TIMED_OUT, `the metadata quorum did not answer: ${r.type === 'Failure' ? r.message : r.type}`);
  if (r.errorCode === ErrorCode.NOT_CONTROLLER) {
    standDown(s, ctx);
    throw new NotLeading(r.errorMessage ?? 'not the active controller');
  }
  if (r.errorCode !== ErrorCode.NONE) return reply(r.errorCode, r.errorMessage ?? `error ${r.errorCode}`);
  const batch = build(s, ctx, (b) => b.add({ type: 'QuorumVoters', voters: r.voters }));
  if (!(batch instanceof Batch)) return reply(batch.errorCode, batch.errorMessage);
  const onceWritten = m.type === 'AddRaftVoter' && m.ackWhenCommitted === false;
  const committed = await commit(s, batch, ctx, onceWritten ? 'written' : 'committed');
  if (!committed.ok) return reply(committed.errorCode, committed.errorMessage);
  ctx.log.info(change === 'add' ? 'controller added to the metadata quorum\'s voters' : 'controller removed from the metadata quorum\'s voters', {
    voterId: m.voterId,
    voters: r.voters.map((v) => v.id),
    ...(onceWritten ? { answered: 'once written' } : {}),
  });
  reply(ErrorCode.NONE);
}

// ------------------------------------------------------------------ brokers

function validateBrokerId(id: number): string | null {
  return Number.isSafeInteger(id) && id >= 0 ? null : `brokerId must be a non-negative integer, got ${String(id)}`;
}

async function handleBrokerRegistration(s: ControllerState, m: Extract<ControllerMsg, { type: 'BrokerRegistration' }>, ctx: Ctx): Promise<void> {
  const reply = (errorCode: number, brokerEpoch: number, errorMessage?: string) =>
    ctx.reply<ControllerReply>(errorMessage === undefined ? { type: 'BrokerRegistrationResponse', errorCode, brokerEpoch } : { type: 'BrokerRegistrationResponse', errorCode, errorMessage, brokerEpoch });
  const bad = validateBrokerId(m.brokerId) ?? (m.node.length === 0 ? 'node must be non-empty' : m.incarnationId.length === 0 ? 'incarnationId must be non-empty' : null);
  if (bad) return reply(ErrorCode.INVALID_REQUEST, -1, bad);

  const id = m.brokerId;
  const prev = s.metadata.brokers.get(id);
  // above the last epoch it had, also when it was unregistered since
  const brokerEpoch = (prev?.brokerEpoch ?? s.metadata.retiredBrokerEpochs.get(id) ?? 0) + 1;
  let pending: readonly PendingDelete[] = [];
  const batch = build(s, ctx, (b) => {
    // A live broker registering with a new incarnation restarted: fence it first, so what it led
    // moves away and it comes back as a follower that truncates and catches up.
    if (prev && (prev.state === BrokerState.ShuttingDown || (prev.state === BrokerState.Unfenced && prev.incarnationId !== m.incarnationId))) {
      b.add({ type: 'FenceBroker', brokerId: id, brokerEpoch: prev.brokerEpoch, to: BrokerState.Fenced, reason: 're-registration' });
      b.addAll(changesForFencedBroker(b.state, id, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas));
    }
    // KIP-966: a new incarnation whose previous broker epoch is not the one registered shut down
    // uncleanly (it may have lost what it had not flushed): it leaves every ISR and ELR
    if (prev && prev.incarnationId !== m.incarnationId && elrOn(b.state) && (m.previousBrokerEpoch ?? -1) !== prev.brokerEpoch) {
      b.addAll(changesForUncleanShutdown(b.state, id, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas));
    }
    pending = b.state.pendingDeletes.get(id) ?? [];
    b.add({ type: 'RegisterBroker', brokerId: id, node: m.node, rack: m.rack ?? null, incarnationId: m.incarnationId, brokerEpoch, endpoint: m.endpoint ?? null, kafkaEndpoint: m.kafkaEndpoint ?? null });
    b.addAll(changesForUnfencedBroker(b.state, id, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas));
  });
  if (!(batch instanceof Batch)) return reply(batch.errorCode, -1, batch.errorMessage);
  const committed = await commit(s, batch, ctx);
  if (!committed.ok) return reply(committed.errorCode, -1, committed.errorMessage);

  s.sessions.set(id, ctx.clock.now());
  const out = new Outbox();
  for (const d of pending) out.addStopReplica(id, d.topic, d.partition, true);
  out.addForPartitions(s.metadata, changedPartitions(batch.records), false);
  addEverythingHostedBy(s.metadata, out, id);
  out.flush(s, ctx, true);
  ctx.log.info('broker registered', { brokerId: id, node: m.node, brokerEpoch, returning: prev !== undefined, pendingDeletes: pending.length });
  reply(ErrorCode.NONE, brokerEpoch);
}

/** LeaderAndIsr for every partition `brokerId` hosts: it learns the whole state when it (re)joins. */
function addEverythingHostedBy(state: MetadataState, out: Outbox, brokerId: number): void {
  for (const p of partitionsHostedBy(state, brokerId)) {
    out.addLeaderAndIsr(state, brokerId, state.topics.get(p.topic)!, p, false);
  }
}

function handleBrokerHeartbeat(s: ControllerState, m: Extract<ControllerMsg, { type: 'BrokerHeartbeat' }>, ctx: Ctx): void | Promise<void> {
  const reply = (errorCode: number, isFenced: boolean, shouldShutDown: boolean, errorMessage?: string) =>
    ctx.reply<ControllerReply>(
      errorMessage === undefined
        ? { type: 'BrokerHeartbeatResponse', errorCode, isFenced, shouldShutDown }
        : { type: 'BrokerHeartbeatResponse', errorCode, errorMessage, isFenced, shouldShutDown },
    );
  const b = s.metadata.brokers.get(m.brokerId);
  if (!b) return reply(ErrorCode.BROKER_NOT_AVAILABLE, true, false, `broker ${m.brokerId} is not registered: send BrokerRegistration first`);
  if (b.brokerEpoch !== m.brokerEpoch) {
    return reply(ErrorCode.STALE_BROKER_EPOCH, true, false, `broker ${m.brokerId} has epoch ${b.brokerEpoch}, not ${m.brokerEpoch}: register again`);
  }
  if (m.wantShutDown) {
    if (isLive(b)) s.sessions.set(b.brokerId, ctx.clock.now());
    return shutDownBroker(s, b, ctx).then((r) => {
      if (!r.ok) return reply(r.errorCode, !isLive(s.metadata.brokers.get(b.brokerId)), false, r.errorMessage);
      reply(ErrorCode.NONE, !isLive(s.metadata.brokers.get(b.brokerId)), r.remaining.length === 0);
    });
  }
  switch (b.state) {
    case BrokerState.Unfenced:
    case BrokerState.ShuttingDown:
      s.sessions.set(b.brokerId, ctx.clock.now());
      if ((m.offlinePartitions && m.offlinePartitions.length > 0) || (b.offlineReplicas?.length ?? 0) > 0) {
        return moveFromOfflineReplicas(s, b, m.offlinePartitions ?? [], ctx).then((r) => {
          if (!r.ok) return reply(r.errorCode, false, false, r.errorMessage);
          reply(ErrorCode.NONE, false, false);
        });
      }
      return reply(ErrorCode.NONE, false, false);
    case BrokerState.ShutDown:
      return reply(ErrorCode.NONE, true, true);
    case BrokerState.Fenced:
      return unfenceBroker(s, b, ctx).then((r) => {
        if (!r.ok) return reply(r.errorCode, true, false, r.errorMessage);
        reply(ErrorCode.NONE, false, false);
      });
  }
}

/**
 * Replicas a broker reports offline (a failed log dir): leadership moves away from them and they
 * leave the ISR (changesForOfflineReplicas); nothing is committed when nothing changes.
 */
async function moveFromOfflineReplicas(s: ControllerState, b: BrokerRecord, reported: readonly unknown[], ctx: Ctx): Promise<CommitResult> {
  const partitions = reported.filter(
    (p): p is { topic: string; partition: number } => typeof (p as { topic?: unknown })?.topic === 'string' && Number.isSafeInteger((p as { partition?: unknown })?.partition),
  );
  const changes = changesForOfflineReplicas(s.metadata, b.brokerId, partitions, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas);
  const reportChanged = offlineReplicasChanged(b, partitions, s.metadata);
  if (changes.length === 0 && !reportChanged) return { ok: true };
  const batch = build(s, ctx, (x) => {
    // the metadata remembers them (Kafka's Metadata lists them as offline replicas)
    const now = x.state.brokers.get(b.brokerId);
    if (now && offlineReplicasChanged(now, partitions, x.state)) x.add({ type: 'BrokerReplicasOffline', brokerId: b.brokerId, brokerEpoch: b.brokerEpoch, partitions: [...partitions] });
    x.addAll(changesForOfflineReplicas(x.state, b.brokerId, partitions, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas));
  });
  if (!(batch instanceof Batch)) return batch;
  const committed = await commit(s, batch, ctx);
  if (!committed.ok) return committed;
  const out = new Outbox();
  out.addForPartitions(s.metadata, changedPartitions(batch.records), false);
  out.flush(s, ctx, true);
  if (changes.length > 0) ctx.log.warn('replicas offline after a log dir failure: leadership moved away, ISR shrunk', { brokerId: b.brokerId, partitions: changes.map((c) => `${c.topic}-${c.partition}`) });
  return committed;
}

/** A fenced broker (its session had lapsed) that heartbeats with its current epoch rejoins. */
async function unfenceBroker(s: ControllerState, b: BrokerRecord, ctx: Ctx): Promise<CommitResult> {
  const batch = build(s, ctx, (x) => {
    x.add({ type: 'UnfenceBroker', brokerId: b.brokerId, brokerEpoch: b.brokerEpoch });
    x.addAll(changesForUnfencedBroker(x.state, b.brokerId, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas));
  });
  if (!(batch instanceof Batch)) return batch;
  const committed = await commit(s, batch, ctx);
  if (!committed.ok) return committed;
  s.sessions.set(b.brokerId, ctx.clock.now());
  const out = new Outbox();
  out.addForPartitions(s.metadata, changedPartitions(batch.records), false);
  addEverythingHostedBy(s.metadata, out, b.brokerId);
  out.flush(s, ctx, true);
  ctx.log.info('broker unfenced', { brokerId: b.brokerId, brokerEpoch: b.brokerEpoch });
  return committed;
}

/**
 * Controlled shutdown: leadership moves to another eligible ISR member where there is one, the
 * broker leaves every ISR it follows in; what it still leads is returned. When it leads nothing
 * it is ShutDown (fenced until it registers again), else ShuttingDown until a retry succeeds.
 */
async function shutDownBroker(
  s: ControllerState,
  b: BrokerRecord,
  ctx: Ctx,
): Promise<CommitResult & { remaining: TopicPartition[]; movable: TopicPartition[] }> {
  if (b.state === BrokerState.ShutDown) return { ok: true, remaining: [], movable: [] };
  let remaining: TopicPartition[] = [];
  let movable: TopicPartition[] = [];
  const batch = build(s, ctx, (x) => {
    if (b.state === BrokerState.Unfenced) x.add({ type: 'BeginControlledShutdown', brokerId: b.brokerId, brokerEpoch: b.brokerEpoch });
    if (b.state !== BrokerState.Fenced) {
      const r = changesForControlledShutdown(x.state, b.brokerId, s.config.minInsyncReplicas);
      x.addAll(r.changes);
      remaining = r.remaining;
      movable = r.movable;
    }
    if (remaining.length === 0) {
      x.add({ type: 'FenceBroker', brokerId: b.brokerId, brokerEpoch: b.brokerEpoch, to: BrokerState.ShutDown, reason: 'controlled-shutdown' });
    }
  });
  if (!(batch instanceof Batch)) return { ...batch, remaining: [], movable: [] };
  const committed = await commit(s, batch, ctx);
  if (!committed.ok) return { ...committed, remaining: [], movable: [] };
  if (remaining.length === 0) s.sessions.delete(b.brokerId);
  const out = new Outbox();
  // The broker going away hears about its partitions too, so it stops acting as their leader.
  out.addForPartitions(s.metadata, changedPartitions(batch.records), false, b.brokerId);
  out.flush(s, ctx, true);
  ctx.log.info('controlled shutdown', { brokerId: b.brokerId, moved: changedPartitions(batch.records).length, remaining: remaining.length });
  return { ok: true, remaining, movable };
}

async function handleControlledShutdown(s: ControllerState, m: Extract<ControllerMsg, { type: 'ControlledShutdown' }>, ctx: Ctx): Promise<void> {
  const reply = (errorCode: number, remainingPartitions: TopicPartition[], errorMessage?: string, movablePartitions: TopicPartition[] = []) =>
    ctx.reply<ControllerReply>(
      errorMessage === undefined
        ? { type: 'ControlledShutdownResponse', errorCode, remainingPartitions, movablePartitions }
        : { type: 'ControlledShutdownResponse', errorCode, errorMessage, remainingPartitions, movablePartitions },
    );
  const b = s.metadata.brokers.get(m.brokerId);
  if (!b) return reply(ErrorCode.BROKER_NOT_AVAILABLE, [], `broker ${m.brokerId} is not registered`);
  if (b.brokerEpoch !== m.brokerEpoch) return reply(ErrorCode.STALE_BROKER_EPOCH, [], `broker ${m.brokerId} has epoch ${b.brokerEpoch}, not ${m.brokerEpoch}`);
  const r = await shutDownBroker(s, b, ctx);
  if (!r.ok) return reply(r.errorCode, [], r.errorMessage);
  reply(ErrorCode.NONE, r.remaining, undefined, r.movable);
}

/**
 * Kafka's UnregisterBroker (kafka-cluster.sh unregister): the broker leaves the registrations for
 * good, as for a machine decommissioned. First it leaves every ISR and ELR and what it led gets a
 * new leader (as when it is fenced; without ELR the last ISR member of a partition with no other
 * stays, as Kafka keeps it); then it is gone from the metadata, its replicas still assigned.
 * BROKER_ID_NOT_REGISTERED for an id not registered. A broker still running is told the new
 * leaders, and its next heartbeat, refused, makes it register again, at a higher epoch.
 */
async function handleUnregisterBroker(s: ControllerState, m: Extract<ControllerMsg, { type: 'UnregisterBroker' }>, ctx: Ctx): Promise<void> {
  const reply = (errorCode: number, errorMessage?: string) =>
    ctx.reply<ControllerReply>(errorMessage === undefined ? { type: 'UnregisterBrokerResponse', errorCode } : { type: 'UnregisterBrokerResponse', errorCode, errorMessage });
  const bad = validateBrokerId(m.brokerId);
  if (bad) return reply(ErrorCode.INVALID_REQUEST, bad);
  const b = s.metadata.brokers.get(m.brokerId);
  if (!b) return reply(ErrorCode.BROKER_ID_NOT_REGISTERED, `Broker ID ${m.brokerId} is not currently registered`);
  const batch = build(s, ctx, (x) => {
    x.addAll(
      elrOn(x.state)
        ? changesForUncleanShutdown(x.state, b.brokerId, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas)
        : changesForFencedBroker(x.state, b.brokerId, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas),
    );
    x.add({ type: 'UnregisterBroker', brokerId: b.brokerId, brokerEpoch: b.brokerEpoch });
  });
  if (!(batch instanceof Batch)) return reply(batch.errorCode, batch.errorMessage);
  const committed = await commit(s, batch, ctx);
  if (!committed.ok) return reply(committed.errorCode, committed.errorMessage);
  s.sessions.delete(b.brokerId);
  const out = new Outbox();
  // a broker still running hears who leads now, so it stops acting as a leader
  out.addDeparted(b);
  out.addForPartitions(s.metadata, changedPartitions(batch.records), false, b.brokerId);
  out.flush(s, ctx, true);
  ctx.log.info('broker unregistered', { brokerId: b.brokerId, brokerEpoch: b.brokerEpoch, was: b.state, partitionsChanged: changedPartitions(batch.records).length });
  reply(ErrorCode.NONE);
}

/** A per-topic answer of CreatePartitions and AlterTopicConfigs. */
interface TopicAnswer {
  name: string;
  errorCode: number;
  errorMessage: string | null;
}

/**
 * The entries of a per-topic request (CreatePartitions, AlterTopicConfigs) that name a topic once
 * and that exists (looked up as the batch has it so far); the others are answered in `results`.
 */
function* existingTopicEntries(
  batch: Batch,
  entries: readonly unknown[],
  results: TopicAnswer[],
  malformed: string,
): Generator<{ name: string; raw: Record<string, unknown>; topic: TopicRecord; fail: (errorCode: number, errorMessage: string) => void }> {
  const dup = duplicates(entries.map((t) => (isObject(t) ? t.name : undefined)));
  for (const raw of entries) {
    const name = isObject(raw) && typeof raw.name === 'string' ? raw.name : '';
    const fail = (errorCode: number, errorMessage: string) => void results.push({ name, errorCode, errorMessage });
    if (!isObject(raw) || name === '') {
      fail(ErrorCode.INVALID_REQUEST, malformed);
      continue;
    }
    if (dup.has(name)) {
      fail(ErrorCode.INVALID_REQUEST, `topic '${name}' appears more than once in the request`);
      continue;
    }
    const topic = batch.state.topics.get(name);
    if (!topic) {
      fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
      continue;
    }
    yield { name, raw, topic, fail };
  }
}

async function handleAlterTopicConfigs(s: ControllerState, m: Extract<ControllerMsg, { type: 'AlterTopicConfigs' }>, ctx: Ctx): Promise<void> {
  const results: TopicAnswer[] = [];
  const changed: string[] = [];
  const batch = new Batch(s.metadata);
  for (const { name, raw, topic, fail } of existingTopicEntries(batch, m.topics, results, 'each entry must be an object with a string name')) {
    const set = raw.set ?? {};
    const invalid = validateTopicConfig(set);
    if (invalid) {
      fail(invalid.errorCode, invalid.errorMessage);
      continue;
    }
    const deletes = Array.isArray(raw.delete) ? raw.delete.filter((k): k is string => typeof k === 'string') : [];
    const config: Record<string, string | number> = { ...topic.config, ...normalizeTopicConfig(set) };
    for (const k of deletes) delete config[k];
    results.push({ name, errorCode: ErrorCode.NONE, errorMessage: null });
    if (JSON.stringify(config) === JSON.stringify(topic.config)) continue;
    batch.add({ type: 'ChangeTopicConfig', name, topicId: topic.topicId, config });
    changed.push(name);
    // KIP-966: a new min.insync.replicas clears the topic's ELRs (Kafka's ClearElrRecord)
    if (String(config[MIN_INSYNC_REPLICAS_KEY] ?? '') !== String(topic.config[MIN_INSYNC_REPLICAS_KEY] ?? '')) batch.addAll(clearElrFor(batch.state, name));
    // unclean election just allowed: the topic's partitions without a leader get one now
    batch.addAll(uncleanChangesForTopic(batch.state, batch.state.topics.get(name)!, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas));
  }
  if (changed.length > 0 && !m.validateOnly) {
    const cleared = elrClearedPartitions(s.metadata, batch.records);
    const committed = await commit(s, batch, ctx);
    if (!committed.ok) {
      for (const r of results) if (changed.includes(r.name)) Object.assign(r, { errorCode: committed.errorCode, errorMessage: committed.errorMessage });
    } else {
      // brokers see the new configs in the metadata and pass them to their replicas
      const out = new Outbox();
      const elected = changedPartitions(batch.records);
      // and the replicas of partitions whose ELR a ClearElr emptied learn their new partition epoch
      out.addForPartitions(s.metadata, [...cleared, ...elected], false);
      out.flush(s, ctx, true);
      ctx.log.info('topic configs changed', { topics: changed, uncleanElections: elected.length });
    }
  }
  ctx.reply<ControllerReply>({ type: 'AlterTopicConfigsResponse', topics: results });
}

/** Producer ids handed to a broker at a time (Kafka's ProducerIdsBlock size). */
export const PRODUCER_ID_BLOCK_SIZE = 1000;

async function handleAllocateProducerIds(s: ControllerState, m: Extract<ControllerMsg, { type: 'AllocateProducerIds' }>, ctx: Ctx): Promise<void> {
  const reply = (errorCode: number, firstProducerId: number, count: number, errorMessage?: string) =>
    ctx.reply<ControllerReply>(
      errorMessage === undefined
        ? { type: 'AllocateProducerIdsResponse', errorCode, firstProducerId, count }
        : { type: 'AllocateProducerIdsResponse', errorCode, errorMessage, firstProducerId, count },
    );
  const b = s.metadata.brokers.get(m.brokerId);
  if (!b || !isLive(b)) return reply(ErrorCode.BROKER_NOT_AVAILABLE, -1, 0, `broker ${m.brokerId} is not registered and live`);
  if (b.brokerEpoch !== m.brokerEpoch) return reply(ErrorCode.STALE_BROKER_EPOCH, -1, 0, `broker ${m.brokerId} has epoch ${b.brokerEpoch}, not ${m.brokerEpoch}`);
  const first = s.metadata.nextProducerId;
  const batch = new Batch(s.metadata);
  batch.add({ type: 'AllocateProducerIds', brokerId: m.brokerId, brokerEpoch: m.brokerEpoch, firstProducerId: first, nextProducerId: first + PRODUCER_ID_BLOCK_SIZE });
  const committed = await commit(s, batch, ctx);
  if (!committed.ok) return reply(committed.errorCode, -1, 0, committed.errorMessage);
  reply(ErrorCode.NONE, first, PRODUCER_ID_BLOCK_SIZE);
}

function handleCheckSessions(s: ControllerState, ctx: Ctx): void | Promise<void> {
  const now = ctx.clock.now();
  const timeout = s.config.brokerSessionTimeoutMs;
  const expired = liveBrokers(s.metadata).filter((b) => now - (s.sessions.get(b.brokerId) ?? now) >= timeout);
  if (expired.length === 0) return;
  return fenceExpired(s, ctx, expired, now);
}

/** Fences brokers whose session expired, moving their leadership and shrinking ISRs. */
async function fenceExpired(s: ControllerState, ctx: Ctx, expired: readonly BrokerRecord[], now: number): Promise<void> {
  const batch = build(s, ctx, (x) => {
    for (const b of expired) {
      const to = b.state === BrokerState.ShuttingDown ? BrokerState.ShutDown : BrokerState.Fenced;
      x.add({ type: 'FenceBroker', brokerId: b.brokerId, brokerEpoch: b.brokerEpoch, to, reason: 'session-expired' });
      x.addAll(changesForFencedBroker(x.state, b.brokerId, s.config.uncleanLeaderElectionEnable, s.config.minInsyncReplicas));
    }
  });
  if (!(batch instanceof Batch)) return;
  const committed = await commit(s, batch, ctx);
  if (!committed.ok) return; // retried on the next tick
  for (const b of expired) {
    ctx.log.warn('broker session expired: fenced', { brokerId: b.brokerId, brokerEpoch: b.brokerEpoch, silentMs: now - (s.sessions.get(b.brokerId) ?? now) });
    s.sessions.delete(b.brokerId);
  }
  const out = new Outbox();
  out.addForPartitions(s.metadata, changedPartitions(batch.records), false);
  out.flush(s, ctx, true);
}

// ------------------------------------------------------------------ topics

type TopicResult = Extract<ControllerReply, { type: 'CreateTopicsResponse' }>['topics'][number];

function topicError(name: string, e: ValidationError): TopicResult {
  return { name, errorCode: e.errorCode, errorMessage: e.errorMessage, topicId: null, numPartitions: -1, replicationFactor: -1 };
}

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || v === -1;
}

/** Validates one CreatableTopic against `state` and builds its CreateTopic record. */
function planTopic(s: ControllerState, state: MetadataState, t: CreatableTopic): MetadataRecord | ValidationError {
  const nameError = validateTopicName(t.name);
  if (nameError) return nameError;
  if (state.topics.has(t.name)) return { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: `Topic '${t.name}' already exists.` };
  const collision = validateNoCollision(t.name, state.topics.keys());
  if (collision) return collision;
  const eligible = eligibleBrokerIds(state);
  let placement: number[][];
  if (!isAbsent(t.assignments)) {
    if (!isAbsent(t.numPartitions) || !isAbsent(t.replicationFactor)) {
      return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'give either assignments or numPartitions/replicationFactor, not both' };
    }
    const e = validateAssignments(t.assignments, eligible);
    if (e) return e;
    placement = (t.assignments as number[][]).map((r) => [...r]);
  } else {
    const numPartitions = isAbsent(t.numPartitions) ? s.config.numPartitions : t.numPartitions;
    const pe = validatePartitionCount(numPartitions);
    if (pe) return pe;
    const rf = isAbsent(t.replicationFactor) ? s.config.defaultReplicationFactor : t.replicationFactor;
    const re = validateReplicationFactor(rf, eligible.length);
    if (re) return re;
    placement = assignReplicas(placementBrokers(state, eligible), numPartitions as number, rf as number, placementForNewTopic(eligible.length, s.random, s.fixedStartIndex));
  }
  const configError = validateTopicConfig(t.config);
  if (configError) return configError;
  return {
    type: 'CreateTopic',
    name: t.name,
    topicId: newTopicId(),
    internal: isInternalTopic(t.name),
    config: normalizeTopicConfig(t.config),
    partitions: placement.map((replicas, partition) => newPartition(t.name, partition, replicas)),
  };
}

/** The brokers `ids` with their racks, for placement (rack-aware once any broker has a rack). */
function placementBrokers(state: MetadataState, ids: readonly number[]): PlacementBroker[] {
  return ids.map((id) => ({ id, rack: state.brokers.get(id)?.rack ?? null }));
}

function newPartition(topic: string, partition: number, replicas: number[]): PartitionState {
  return { topic, partition, replicas, isr: [...replicas], leader: replicas[0]!, leaderEpoch: 0, partitionEpoch: 0 };
}

/** Names that occur more than once in a request (Kafka answers INVALID_REQUEST for each). */
function duplicates(names: readonly unknown[]): Set<unknown> {
  const seen = new Set<unknown>();
  const dup = new Set<unknown>();
  for (const n of names) (seen.has(n) ? dup : seen).add(n);
  return dup;
}

async function handleCreateTopics(s: ControllerState, m: Extract<ControllerMsg, { type: 'CreateTopics' }>, ctx: Ctx): Promise<void> {
  const entries: unknown[] = m.topics;
  // as Kafka's controller, before anything else: too many partitions refuse the whole request
  const tooMany = validateNewPartitionTotal(entries, s.config.numPartitions);
  if (tooMany) {
    const topics = entries.map((t) => topicError(isObject(t) ? String(t.name ?? '') : '', tooMany));
    ctx.reply<ControllerReply>({ type: 'CreateTopicsResponse', topics, throttleTimeMs: 0 });
    return;
  }
  const dup = duplicates(entries.map((t) => (isObject(t) ? t.name : undefined)));
  const results: TopicResult[] = [];
  const created: string[] = [];
  const batch = new Batch(s.metadata);
  const quota = s.mutationQuotas.begin(m.mutationQuota);
  for (const raw of entries) {
    if (!isObject(raw) || typeof raw.name !== 'string') {
      results.push(topicError(isObject(raw) ? String(raw.name ?? '') : '', { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'each topic must be an object with a string name' }));
      continue;
    }
    const t = raw as unknown as CreatableTopic;
    if (dup.has(t.name)) {
      results.push(topicError(t.name, { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `topic '${t.name}' appears more than once in the request` }));
      continue;
    }
    const planned = planTopic(s, batch.state, t);
    if ('errorCode' in planned) {
      results.push(topicError(t.name, planned));
      continue;
    }
    const record = planned as Extract<MetadataRecord, { type: 'CreateTopic' }>;
    // as Kafka's controller: the quota is taken once a topic is valid, validateOnly too
    if (!quota.record(record.partitions.length)) {
      results.push(topicError(t.name, { errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, errorMessage: THROTTLED }));
      continue;
    }
    try {
      batch.add(record); // validateOnly adds too, so later topics see earlier ones; it never commits
    } catch (err) {
      if (!(err instanceof MetadataRecordError)) throw err;
      results.push(topicError(t.name, { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: `internal error: ${err.message}` }));
      continue;
    }
    created.push(t.name);
    results.push({
      name: t.name,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      topicId: m.validateOnly ? null : record.topicId,
      numPartitions: record.partitions.length,
      replicationFactor: record.partitions[0]!.replicas.length,
    });
  }
  if (!m.validateOnly && batch.records.length > 0) {
    const committed = await commit(s, batch, ctx);
    if (!committed.ok) {
      for (const r of results) {
        if (created.includes(r.name)) Object.assign(r, { errorCode: committed.errorCode, errorMessage: committed.errorMessage, topicId: null });
      }
    } else {
      const out = new Outbox();
      for (const name of created) {
        const topic = s.metadata.topics.get(name)!;
        out.addForPartitions(s.metadata, topic.partitions, true);
        ctx.log.info('topic created', { topic: name, topicId: topic.topicId, partitions: topic.partitions.length, replicationFactor: topic.partitions[0]!.replicas.length });
      }
      out.flush(s, ctx, true);
    }
  }
  ctx.reply<ControllerReply>({ type: 'CreateTopicsResponse', topics: results, throttleTimeMs: quota.throttleTimeMs() });
}

/** Kafka's message for THROTTLING_QUOTA_EXCEEDED. */
const THROTTLED = 'The throttling quota has been exceeded.';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function handleDeleteTopics(s: ControllerState, m: Extract<ControllerMsg, { type: 'DeleteTopics' }>, ctx: Ctx): Promise<void> {
  type Result = Extract<ControllerReply, { type: 'DeleteTopicsResponse' }>['topics'][number];
  const names: unknown[] = m.topics;
  const dup = duplicates(names);
  const results: Result[] = [];
  const removed: TopicRecord[] = [];
  const batch = new Batch(s.metadata);
  const quota = s.mutationQuotas.begin(m.mutationQuota);
  for (const name of names) {
    if (typeof name !== 'string') {
      results.push({ name: String(name), errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'topic names must be strings' });
    } else if (dup.has(name)) {
      results.push({ name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `topic '${name}' appears more than once in the request` });
    } else {
      const topic = batch.state.topics.get(name);
      const expectedId = m.topicIds?.[name];
      if (!topic || (expectedId !== undefined && topic.topicId !== expectedId)) {
        results.push(expectedId === undefined ? { name, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic '${name}' does not exist.` } : { name, errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: `Topic '${name}' with that id does not exist.` });
        continue;
      }
      if (!quota.record(topic.partitions.length)) {
        results.push({ name, topicId: topic.topicId, errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, errorMessage: THROTTLED });
        continue;
      }
      batch.add({ type: 'RemoveTopic', name, topicId: topic.topicId });
      removed.push(topic);
      results.push({ name, topicId: topic.topicId, errorCode: ErrorCode.NONE, errorMessage: null });
    }
  }
  if (removed.length > 0) {
    const committed = await commit(s, batch, ctx);
    if (!committed.ok) {
      for (const r of results) {
        if (removed.some((t) => t.name === r.name)) Object.assign(r, { errorCode: committed.errorCode, errorMessage: committed.errorMessage });
      }
    } else {
      const out = new Outbox();
      for (const topic of removed) {
        // Every replica is told, live or not: a fenced broker may still be running. Those that are
        // not live also keep a pending delete, sent when they register again.
        for (const p of topic.partitions) for (const r of p.replicas) out.addStopReplica(r, p.topic, p.partition, true);
        ctx.log.info('topic deleted', { topic: topic.name, topicId: topic.topicId });
      }
      out.flush(s, ctx, true);
    }
  }
  ctx.reply<ControllerReply>({ type: 'DeleteTopicsResponse', topics: results, throttleTimeMs: quota.throttleTimeMs() });
}

async function handleCreatePartitions(s: ControllerState, m: Extract<ControllerMsg, { type: 'CreatePartitions' }>, ctx: Ctx): Promise<void> {
  const results: TopicAnswer[] = [];
  const added: TopicPartition[] = [];
  const grown: string[] = [];
  const batch = new Batch(s.metadata);
  const quota = s.mutationQuotas.begin(m.mutationQuota);
  let newPartitions = 0;
  for (const { name, raw, topic, fail } of existingTopicEntries(batch, m.topics, results, 'each entry must be an object with a string name and a count')) {
    const count = raw.count;
    const current = topic.partitions.length;
    if (validatePartitionCount(count)) {
      fail(ErrorCode.INVALID_PARTITIONS, `count must be an integer >= 1 (the new total), got ${String(count)}`);
      continue;
    }
    if ((count as number) <= current) {
      fail(
        ErrorCode.INVALID_PARTITIONS,
        count === current ? `Topic already has ${current} partitions.` : `Topic currently has ${current} partitions, which is higher than the requested ${String(count)}.`,
      );
      continue;
    }
    // Kafka's controller bounds the records of one request alike: a topic that would take the
    // request past the bound is refused, before its placement is worked out
    if (newPartitions + (count as number) - current > MAX_NEW_PARTITIONS_PER_REQUEST) {
      fail(TOO_MANY_NEW_PARTITIONS.errorCode, TOO_MANY_NEW_PARTITIONS.errorMessage);
      continue;
    }
    const eligible = eligibleBrokerIds(batch.state);
    const partition0 = topic.partitions[0]!;
    // the replication factor partition 0 has, or will have once its reassignment completes
    const rf = targetReplicas(partition0).length;
    const explicit = raw.assignments ?? null;
    let placement: number[][];
    if (explicit !== null) {
      const ae = validateAssignments(explicit, eligible);
      if (ae) {
        fail(ae.errorCode, ae.errorMessage);
        continue;
      }
      const lists = explicit as number[][];
      if (lists.length !== (count as number) - current) {
        fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `${lists.length} replica assignment(s) given for ${(count as number) - current} new partition(s)`);
        continue;
      }
      if (lists[0]!.length !== rf) {
        fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `each new partition needs ${rf} replicas (the topic's replication factor), got ${lists[0]!.length}`);
        continue;
      }
      placement = lists;
    } else {
      const re = validateReplicationFactor(rf, eligible.length);
      if (re) {
        fail(re.errorCode, re.errorMessage);
        continue;
      }
      placement = assignReplicas(placementBrokers(batch.state, eligible), (count as number) - current, rf, placementForNewPartitions(eligible, partition0.replicas[0]!, current));
    }
    if (!quota.record(placement.length)) {
      fail(ErrorCode.THROTTLING_QUOTA_EXCEEDED, THROTTLED);
      continue;
    }
    newPartitions += placement.length;
    const partitions = placement.map((replicas, i) => newPartition(name, current + i, replicas));
    batch.add({ type: 'CreatePartitions', topic: name, partitions });
    for (const p of partitions) added.push({ topic: name, partition: p.partition });
    grown.push(name);
    results.push({ name, errorCode: ErrorCode.NONE, errorMessage: null });
  }
  if (grown.length > 0 && !m.validateOnly) {
    const committed = await commit(s, batch, ctx);
    if (!committed.ok) {
      for (const r of results) if (grown.includes(r.name)) Object.assign(r, { errorCode: committed.errorCode, errorMessage: committed.errorMessage });
    } else {
      const out = new Outbox();
      out.addForPartitions(s.metadata, added, true);
      out.flush(s, ctx, true);
      ctx.log.info('partitions created', { topics: grown, partitions: added.length });
    }
  }
  ctx.reply<ControllerReply>({ type: 'CreatePartitionsResponse', topics: results, throttleTimeMs: quota.throttleTimeMs() });
}

// ------------------------------------------------------------------ ISR changes from leaders

/** Why an AlterPartition cannot be applied, or null. */
function validateAlterPartition(state: MetadataState, m: Extract<ControllerMsg, { type: 'AlterPartition' }>): ValidationError | null {
  const b = state.brokers.get(m.brokerId);
  if (!b) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, errorMessage: `broker ${m.brokerId} is not registered` };
  if (b.brokerEpoch !== m.brokerEpoch) {
    return { errorCode: ErrorCode.STALE_BROKER_EPOCH, errorMessage: `broker ${m.brokerId} has epoch ${b.brokerEpoch}, not ${m.brokerEpoch}` };
  }
  const p = getPartition(state, m.topic, m.partition);
  if (!p) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `unknown partition ${m.topic}-${m.partition}` };
  if (p.leader !== m.brokerId) {
    return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: `broker ${m.brokerId} is not the leader of ${m.topic}-${m.partition} (leader: ${p.leader})` };
  }
  if (m.leaderEpoch !== p.leaderEpoch) {
    return { errorCode: ErrorCode.FENCED_LEADER_EPOCH, errorMessage: `leader epoch ${m.leaderEpoch} is not the current ${p.leaderEpoch}` };
  }
  if (m.partitionEpoch !== p.partitionEpoch) {
    // the leader missed an answer (a timeout): the reply carries the current state to take
    return { errorCode: ErrorCode.INVALID_UPDATE_VERSION, errorMessage: `partition epoch ${m.partitionEpoch} is not the current ${p.partitionEpoch}` };
  }
  const isr: unknown[] = m.newIsr;
  if (!isr.every((r) => typeof r === 'number' && Number.isInteger(r))) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'newIsr must be broker ids' };
  if (new Set(isr).size !== isr.length) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `newIsr ${JSON.stringify(isr)} has duplicates` };
  if (!m.newIsr.includes(m.brokerId)) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `newIsr ${JSON.stringify(isr)} must include the leader ${m.brokerId}` };
  for (const r of m.newIsr) {
    if (!p.replicas.includes(r)) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `broker ${r} is not a replica of ${m.topic}-${m.partition}` };
    if (r !== m.brokerId && !isEligible(state.brokers.get(r))) {
      return { errorCode: ErrorCode.INELIGIBLE_REPLICA, errorMessage: `broker ${r} is fenced or shutting down: it cannot join the ISR` };
    }
  }
  return null;
}

function handleAlterPartition(s: ControllerState, m: Extract<ControllerMsg, { type: 'AlterPartition' }>, ctx: Ctx): void | Promise<void> {
  const reply = (errorCode: number, state: PartitionState | null, errorMessage?: string) =>
    ctx.reply<ControllerReply>(
      errorMessage === undefined ? { type: 'AlterPartitionResponse', errorCode, state } : { type: 'AlterPartitionResponse', errorCode, errorMessage, state },
    );
  const invalid = validateAlterPartition(s.metadata, m);
  if (invalid) {
    const current = invalid.errorCode === ErrorCode.INVALID_UPDATE_VERSION ? getPartition(s.metadata, m.topic, m.partition)! : null;
    return reply(invalid.errorCode, current && { ...current, replicas: [...current.replicas], isr: [...current.isr] }, invalid.errorMessage);
  }
  const p = getPartition(s.metadata, m.topic, m.partition)!;
  if (p.isr.length === m.newIsr.length && p.isr.every((r, i) => r === m.newIsr[i])) return reply(ErrorCode.NONE, { ...p, replicas: [...p.replicas], isr: [...p.isr] });
  let completed = false;
  const batch = build(s, ctx, (x) => {
    const change = partitionChange(p, p.leader, m.newIsr);
    // KIP-966: an ISR shrinking below min.insync.replicas keeps the replicas it drops in the ELR; back at it, the ELR empties
    x.add(elrOn(x.state) ? maintainElr(p, change, effectiveMinIsr(x.state, x.state.topics.get(p.topic)!, s.config.minInsyncReplicas)) : change);
    // the last target replica of a reassignment caught up: it completes in the same batch
    const done = completionChange(x.state, getPartition(x.state, m.topic, m.partition)!);
    if (done) {
      x.add(done);
      completed = true;
    }
  });
  if (!(batch instanceof Batch)) return reply(batch.errorCode, null, batch.errorMessage);
  return commit(s, batch, ctx).then((committed) => {
    if (!committed.ok) return reply(committed.errorCode, null, committed.errorMessage);
    const now = getPartition(s.metadata, m.topic, m.partition)!;
    ctx.log.debug('ISR changed', { topic: m.topic, partition: m.partition, from: p.isr, to: now.isr, partitionEpoch: now.partitionEpoch });
    // ISR-only change: like KRaft, the leader learns it from this reply, everyone from metadata.
    const out = new Outbox();
    if (completed) {
      addReassignmentRequests(s.metadata, out, p, now);
      ctx.log.info('partition reassignment completed', { topic: m.topic, partition: m.partition, replicas: now.replicas, removed: removedReplicas(p, now), leader: now.leader });
    }
    out.flush(s, ctx, true);
    const answer = { ...now, replicas: [...now.replicas], isr: [...now.isr] };
    // applied, but the reassignment it completed moved the leadership (Kafka's NEW_LEADER_ELECTED):
    // the old leader must keep its maximal ISR until the LeaderAndIsr just sent reaches it
    if (now.leader !== m.brokerId) return reply(ErrorCode.NEW_LEADER_ELECTED, answer, `the ISR change completed a reassignment that moved the leadership to broker ${now.leader}`);
    reply(ErrorCode.NONE, answer);
  });
}

// ------------------------------------------------------------------ partition reassignment

/**
 * What the brokers are told after a reassignment step of one partition: LeaderAndIsr to its live
 * replicas (new ones start following the leader, flagged new as Kafka flags them, so a broker with
 * a log dir offline makes their log in another), StopReplica with delete to the live ones it no
 * longer has (those that are down are owed the delete in the metadata).
 */
function addReassignmentRequests(state: MetadataState, out: Outbox, before: PartitionState, after: PartitionState): void {
  const topic = state.topics.get(after.topic);
  if (topic) {
    for (const r of after.replicas) if (isLive(state.brokers.get(r))) out.addLeaderAndIsr(state, r, topic, after, !before.replicas.includes(r));
  }
  for (const r of removedReplicas(before, after)) if (isLive(state.brokers.get(r))) out.addStopReplica(r, after.topic, after.partition, true);
}

/** Why an AlterPartitionReassignments request is malformed, or null. */
function validateReassignmentRequest(topics: unknown): string | null {
  if (!Array.isArray(topics)) return 'topics must be an array';
  for (const t of topics as unknown[]) {
    if (!isObject(t) || typeof t.name !== 'string' || !Array.isArray(t.partitions)) return 'each topic must be { name: string, partitions: [...] }';
    for (const e of t.partitions as unknown[]) {
      if (!isObject(e) || !Number.isSafeInteger(e.partition) || (e.replicas !== null && !Array.isArray(e.replicas))) {
        return `each partition of ${t.name} must be { partition: integer, replicas: broker ids or null }`;
      }
    }
  }
  return null;
}

type ReassignmentResults = Extract<ControllerReply, { type: 'AlterPartitionReassignmentsResponse' }>['topics'];

async function handleAlterPartitionReassignments(s: ControllerState, m: Extract<ControllerMsg, { type: 'AlterPartitionReassignments' }>, ctx: Ctx): Promise<void> {
  const invalid = validateReassignmentRequest(m.topics);
  if (invalid) return ctx.reply<ControllerReply>({ type: 'AlterPartitionReassignmentsResponse', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: invalid, topics: [] });
  const allowRfChange = m.allowReplicationFactorChange ?? true;
  const batch = new Batch(s.metadata);
  const results: ReassignmentResults = [];
  const changed: { errorCode: number; errorMessage: string | null }[] = [];
  /** The state of each changed partition before this request. */
  const before = new Map<string, PartitionState>();
  const seen = new Set<string>();
  for (const t of m.topics) {
    const entry = { name: t.name, partitions: [] as ReassignmentResults[number]['partitions'] };
    results.push(entry);
    for (const a of t.partitions) {
      const key = `${t.name}\u0000${a.partition}`;
      const answer = (errorCode: number, errorMessage: string | null) => {
        const r = { partition: a.partition, errorCode, errorMessage };
        entry.partitions.push(r);
        return r;
      };
      if (seen.has(key)) {
        answer(ErrorCode.INVALID_REQUEST, `${t.name}-${a.partition} appears more than once in the request`);
        continue;
      }
      seen.add(key);
      const p = getPartition(batch.state, t.name, a.partition);
      if (!p) {
        answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such partition as ${t.name}-${a.partition}`);
        continue;
      }
      let outcome;
      if (a.replicas === null) {
        outcome = cancelReassignment(batch.state, p);
      } else {
        const bad = validateTarget(batch.state, a.replicas);
        const rfChange = bad || allowRfChange ? null : replicationFactorChange(p, a.replicas);
        if (bad) outcome = { ok: false as const, errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: bad };
        else if (rfChange) outcome = { ok: false as const, errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, errorMessage: rfChange };
        else outcome = startReassignment(batch.state, p, a.replicas);
      }
      if (!outcome.ok) {
        answer(outcome.errorCode, outcome.errorMessage);
        continue;
      }
      if (outcome.change) {
        const mark = batch.mark();
        try {
          batch.add(outcome.change);
          // replicas already all in sync (a reorder, a smaller set): done at once
          const done = completionChange(batch.state, getPartition(batch.state, t.name, a.partition)!);
          if (done) batch.add(done);
        } catch (err) {
          if (!(err instanceof MetadataRecordError)) throw err;
          // neither the start nor its completion goes: the partition stays as it was
          batch.rollback(mark);
          ctx.log.error('inconsistent reassignment refused', { error: err.message });
          answer(ErrorCode.UNKNOWN_SERVER_ERROR, `internal error: ${err.message}`);
          continue;
        }
        before.set(key, p);
        changed.push(answer(ErrorCode.NONE, null));
      } else {
        answer(ErrorCode.NONE, null);
      }
    }
  }
  if (batch.records.length > 0) {
    const committed = await commit(s, batch, ctx);
    if (!committed.ok) {
      for (const r of changed) Object.assign(r, { errorCode: committed.errorCode, errorMessage: committed.errorMessage });
    } else {
      const out = new Outbox();
      for (const p of before.values()) {
        const after = getPartition(s.metadata, p.topic, p.partition)!;
        addReassignmentRequests(s.metadata, out, p, after);
        ctx.log.info(isReassigning(after) ? 'partition reassignment started' : 'partition reassignment done at once', {
          topic: p.topic,
          partition: p.partition,
          replicas: after.replicas,
          adding: after.addingReplicas ?? [],
          removing: after.removingReplicas ?? [],
        });
      }
      out.flush(s, ctx, true);
    }
  }
  ctx.reply<ControllerReply>({ type: 'AlterPartitionReassignmentsResponse', errorCode: ErrorCode.NONE, topics: results });
}

/**
 * Commits records that change no partition (ACLs, dynamic broker configs, client quotas) and, when
 * something changed, sends every broker the metadata; `what` names the change in the log. The
 * answers of `results` still at NONE take a failed commit's error. `alsoPartitions`, when given,
 * names partitions whose replicas get LeaderAndIsr too once it is committed (each partition one
 * request, whether a ClearElr emptied it or not).
 */
async function commitMetadataOnly(
  s: ControllerState,
  ctx: Ctx,
  records: MetadataRecord[],
  results: { errorCode: number; errorMessage: string | null }[],
  what: string,
  fields: () => Record<string, unknown>,
  alsoPartitions?: () => TopicPartition[],
): Promise<void> {
  if (records.length === 0) return;
  // a ClearElr gives the partitions it empties a new partition epoch: their replicas learn it
  const cleared = elrClearedPartitions(s.metadata, records);
  const batch = build(s, ctx, (b) => b.addAll(records));
  const committed = batch instanceof Batch ? await commit(s, batch, ctx) : batch;
  if (!committed.ok) {
    for (const r of results) if (r.errorCode === ErrorCode.NONE) Object.assign(r, { errorCode: committed.errorCode, errorMessage: committed.errorMessage });
    return;
  }
  const out = new Outbox();
  out.addForPartitions(s.metadata, cleared, false);
  // the outbox keeps one LeaderAndIsr per partition and replica
  if (alsoPartitions) out.addForPartitions(s.metadata, alsoPartitions(), false);
  out.flush(s, ctx, true);
  ctx.log.info(what, fields());
}

async function handleAlterBrokerConfigs(s: ControllerState, m: Extract<ControllerMsg, { type: 'AlterBrokerConfigs' }>, ctx: Ctx): Promise<void> {
  const { records, results } = brokerConfigChanges(s.metadata, m.resources);
  // KIP-966: a broker or cluster-wide min.insync.replicas changed clears every ELR (Kafka's ClearElrRecord)
  if (records.some((r) => r.type === 'BrokerConfig' && (r.config[MIN_INSYNC_REPLICAS_KEY] ?? null) !== (s.metadata.brokerConfigs.get(r.resource)?.[MIN_INSYNC_REPLICAS_KEY] ?? null))) {
    records.push(...clearElrFor(s.metadata, ''));
  }
  // brokers see the new configs in the metadata and run with them
  if (!m.validateOnly) await commitMetadataOnly(s, ctx, records, results, 'broker configs changed', () => ({ resources: records.map((r) => (r.type === 'BrokerConfig' ? r.resource || '(default)' : '')) }));
  ctx.reply<ControllerReply>({ type: 'AlterBrokerConfigsResponse', resources: results });
}

async function handleAlterGroupConfigs(s: ControllerState, m: Extract<ControllerMsg, { type: 'AlterGroupConfigs' }>, ctx: Ctx): Promise<void> {
  const { records, results } = groupConfigChanges(s.metadata, m.groups, s.config.consumerGroupTimeouts, s.config.shareGroupBounds);
  // coordinators see the new configs in the metadata and time their members' sessions with them
  if (!m.validateOnly) await commitMetadataOnly(s, ctx, records, results, 'group configs changed', () => ({ groups: records.map((r) => (r.type === 'GroupConfig' ? r.group : '')) }));
  ctx.reply<ControllerReply>({ type: 'AlterGroupConfigsResponse', groups: results });
}

async function handleAlterClientMetrics(s: ControllerState, m: Extract<ControllerMsg, { type: 'AlterClientMetrics' }>, ctx: Ctx): Promise<void> {
  const { records, results } = clientMetricsChanges(s.metadata, m.subscriptions);
  // brokers see the subscriptions in the metadata and give them to the clients that match
  if (!m.validateOnly) await commitMetadataOnly(s, ctx, records, results, 'client metrics subscriptions changed', () => ({ subscriptions: records.map((r) => (r.type === 'ClientMetricsConfig' ? r.name : '')) }));
  ctx.reply<ControllerReply>({ type: 'AlterClientMetricsResponse', subscriptions: results });
}

/** UpdateFeatures (KIP-584): every update checked as Kafka's FeatureControlManager, then committed together (Kafka's QuorumController.updateFeatures). */
async function handleUpdateFeatures(s: ControllerState, m: Extract<ControllerMsg, { type: 'UpdateFeatures' }>, ctx: Ctx): Promise<void> {
  const reply = (errorCode: number, errorMessage: string | null) =>
    ctx.reply<ControllerReply>({ type: 'UpdateFeaturesResponse', errorCode, errorMessage, features: { levels: { ...s.metadata.features }, epoch: s.metadata.featuresEpoch } });
  if (!Array.isArray(m.updates) || !m.updates.every((u) => isObject(u) && typeof u.feature === 'string' && Number.isInteger(u.level) && Number.isInteger(u.upgradeType))) {
    return reply(ErrorCode.INVALID_REQUEST, 'updates must be [{ feature: string, level: integer, upgradeType: integer }]');
  }
  if (m.updates.length === 0) return reply(ErrorCode.INVALID_REQUEST, 'no feature to update');
  const check = checkFeatureUpdates(s.metadata.features, m.updates, s.voterId);
  // Kafka's QuorumController says so for every refusal, since none of the updates is made
  if (!check.ok) return reply(check.errorCode, `The update failed for all features since the following feature had an error: ${check.errorMessage}`);
  if (m.validateOnly) return reply(ErrorCode.NONE, null);
  const records: MetadataRecord[] = [];
  // KIP-966: ELR asked for makes min.insync.replicas cluster-wide first, in the same batch (Kafka's ConfigurationControlManager.updateFeatures)
  if (m.updates.some((u) => u.feature === ELIGIBLE_LEADER_REPLICAS_VERSION && u.level > 0)) records.push(...elrSafetyRecords(s.metadata, s.config.minInsyncReplicas));
  for (const u of m.updates) {
    const level = check.levels[u.feature] ?? 0;
    if (level !== (s.metadata.features[u.feature] ?? 0)) records.push({ type: 'FeatureLevel', name: u.feature, level });
  }
  const elrWas = isElrEnabled(s.metadata.features);
  // KIP-966: ELR turned off clears every ELR and LastKnownElr
  if (elrWas && !isElrEnabled(check.levels)) records.push({ type: 'ClearElr', topic: '' });
  const results = [{ errorCode: ErrorCode.NONE as number, errorMessage: null as string | null }];
  // with ELR turned on or off every leader learns whether to hold its high watermark below
  // min.insync.replicas: every partition gets LeaderAndIsr once (a partition a ClearElr emptied too)
  const elrChanges = elrWas !== isElrEnabled(check.levels);
  const everyPartition = () => [...s.metadata.topics.values()].flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition })));
  await commitMetadataOnly(s, ctx, records, results, 'feature levels changed', () => ({ updates: m.updates.map((u) => `${u.feature}=${check.levels[u.feature] ?? 0}`), epoch: s.metadata.featuresEpoch }), elrChanges ? everyPartition : undefined);
  reply(results[0]!.errorCode, results[0]!.errorMessage);
}

async function handleAlterClientQuotas(s: ControllerState, m: Extract<ControllerMsg, { type: 'AlterClientQuotas' }>, ctx: Ctx): Promise<void> {
  const { records, results } = clientQuotaChanges(s.metadata, m.entries);
  if (!m.validateOnly) await commitMetadataOnly(s, ctx, records, results, 'client quotas changed', () => ({ entities: records.length, total: s.metadata.clientQuotas.size }));
  ctx.reply<ControllerReply>({ type: 'AlterClientQuotasResponse', entries: results });
}

const aclLogFields = (s: ControllerState, records: MetadataRecord[]) => () => ({
  created: records.filter((r) => r.type === 'AccessControlEntry').length,
  deleted: records.filter((r) => r.type === 'RemoveAccessControlEntry').length,
  total: s.metadata.acls.size,
});

async function handleCreateAcls(s: ControllerState, m: Extract<ControllerMsg, { type: 'CreateAcls' }>, ctx: Ctx): Promise<void> {
  const { records, results } = aclCreations(s.metadata, m.creations);
  await commitMetadataOnly(s, ctx, records, results, 'ACLs changed', aclLogFields(s, records));
  ctx.reply<ControllerReply>({ type: 'CreateAclsResponse', errorCode: ErrorCode.NONE, results });
}

async function handleDeleteAcls(s: ControllerState, m: Extract<ControllerMsg, { type: 'DeleteAcls' }>, ctx: Ctx): Promise<void> {
  const { records, results } = aclDeletions(s.metadata, m.filters);
  await commitMetadataOnly(s, ctx, records, results, 'ACLs changed', aclLogFields(s, records));
  // a failed commit removed nothing
  for (const r of results) if (r.errorCode !== ErrorCode.NONE) r.matchingAcls = [];
  ctx.reply<ControllerReply>({ type: 'DeleteAclsResponse', errorCode: ErrorCode.NONE, filterResults: results });
}

function handleListPartitionReassignments(s: ControllerState, m: Extract<ControllerMsg, { type: 'ListPartitionReassignments' }>, ctx: Ctx): void {
  type Listed = Extract<ControllerReply, { type: 'ListPartitionReassignmentsResponse' }>['topics'];
  const asked: unknown = m.topics;
  if (asked !== null && (!Array.isArray(asked) || !asked.every((t) => isObject(t) && typeof t.name === 'string' && Array.isArray(t.partitions) && t.partitions.every((n) => Number.isSafeInteger(n))))) {
    return ctx.reply<ControllerReply>({ type: 'ListPartitionReassignmentsResponse', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'topics must be null or [{ name: string, partitions: integer[] }]', topics: [] });
  }
  const wanted = m.topics === null ? [...s.metadata.topics.values()].map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partition) })) : m.topics;
  const topics: Listed = [];
  for (const t of wanted) {
    const partitions = [...new Set(t.partitions)]
      .map((n) => getPartition(s.metadata, t.name, n))
      .filter((p): p is PartitionState => p !== undefined && isReassigning(p))
      .map((p) => ({ partition: p.partition, replicas: [...p.replicas], addingReplicas: [...(p.addingReplicas ?? [])], removingReplicas: [...(p.removingReplicas ?? [])] }));
    if (partitions.length > 0) topics.push({ name: t.name, partitions });
  }
  topics.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  ctx.reply<ControllerReply>({ type: 'ListPartitionReassignmentsResponse', errorCode: ErrorCode.NONE, topics });
}

// ------------------------------------------------------------------ leader elections

type ElectionResults = Extract<ControllerReply, { type: 'ElectLeadersResponse' }>['results'];

/** Why an ElectLeaders request is malformed, or null. */
function validateElectLeaders(m: Extract<ControllerMsg, { type: 'ElectLeaders' }>): string | null {
  if (m.electionType !== ElectionType.PREFERRED && m.electionType !== ElectionType.UNCLEAN) {
    return `Unknown election type ${String(m.electionType)} (0: preferred, 1: unclean)`;
  }
  if (m.topicPartitions === null) return null;
  if (!Array.isArray(m.topicPartitions)) return 'topicPartitions must be an array or null';
  for (const t of m.topicPartitions as unknown[]) {
    if (!isObject(t) || typeof t.topic !== 'string' || !Array.isArray(t.partitions) || !t.partitions.every((n) => Number.isSafeInteger(n))) {
      return 'each entry of topicPartitions must be { topic: string, partitions: integer[] }';
    }
  }
  return null;
}

async function handleElectLeaders(s: ControllerState, m: Extract<ControllerMsg, { type: 'ElectLeaders' }>, ctx: Ctx): Promise<void> {
  const invalid = validateElectLeaders(m);
  if (invalid) return ctx.reply<ControllerReply>({ type: 'ElectLeadersResponse', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: invalid, results: [] });
  const type = m.electionType as ElectionTypeValue;
  const batch = new Batch(s.metadata);
  const results: ElectionResults = [];
  const elected: { errorCode: number; errorMessage: string | null }[] = [];
  const elect = (topic: string, partition: number, all: boolean, into: ElectionResults[number]['partitions']) => {
    const p = getPartition(batch.state, topic, partition);
    const outcome = p ? electLeader(batch.state, p, type, s.config.minInsyncReplicas) : { ok: false as const, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `No such partition as ${topic}-${partition}` };
    if (outcome.ok) {
      batch.add(outcome.change);
      const r = { partition, errorCode: ErrorCode.NONE, errorMessage: null };
      into.push(r);
      elected.push(r);
    } else if (!(all && outcome.errorCode === ErrorCode.ELECTION_NOT_NEEDED)) {
      // asked for every partition, Kafka leaves out those that already have the leader wanted
      into.push({ partition, errorCode: outcome.errorCode, errorMessage: outcome.errorMessage });
    }
  };
  if (m.topicPartitions === null) {
    for (const name of [...s.metadata.topics.keys()].sort()) {
      const entry = { topic: name, partitions: [] as ElectionResults[number]['partitions'] };
      results.push(entry);
      for (const p of s.metadata.topics.get(name)!.partitions) elect(name, p.partition, true, entry.partitions);
    }
  } else {
    for (const t of m.topicPartitions) {
      const entry = { topic: t.topic, partitions: [] as ElectionResults[number]['partitions'] };
      results.push(entry);
      for (const partition of t.partitions) elect(t.topic, partition, false, entry.partitions);
    }
  }
  if (batch.records.length > 0) {
    const committed = await commit(s, batch, ctx);
    if (!committed.ok) {
      for (const r of elected) Object.assign(r, { errorCode: committed.errorCode, errorMessage: committed.errorMessage });
    } else {
      const out = new Outbox();
      out.addForPartitions(s.metadata, changedPartitions(batch.records), false);
      out.flush(s, ctx, true);
      ctx.log.info('leaders elected on request', { electionType: type === ElectionType.PREFERRED ? 'preferred' : 'unclean', partitions: batch.records.length });
    }
  }
  ctx.reply<ControllerReply>({ type: 'ElectLeadersResponse', errorCode: ErrorCode.NONE, results });
}

/** The balancing timer: preferred replicas that can lead take their partitions back. */
async function handleBalanceLeaders(s: ControllerState, ctx: Ctx): Promise<void> {
  if (!s.config.autoLeaderRebalanceEnable) return;
  const { changes, more } = balancingChanges(s.metadata, s.maxElectionsPerBalance);
  if (changes.length > 0) {
    const batch = build(s, ctx, (x) => x.addAll(changes));
    const committed = batch instanceof Batch ? await commit(s, batch, ctx) : batch;
    if (committed.ok) {
      const out = new Outbox();
      out.addForPartitions(s.metadata, changedPartitions(changes), false);
      out.flush(s, ctx, true);
      ctx.log.info('leaders moved back to preferred replicas', { partitions: changes.length, more });
    } else {
      ctx.log.warn('leader balancing failed; tried again later', { error: committed.errorMessage });
    }
    if (committed.ok && more) {
      // the next round right after this one (behind what is already in the mailbox)
      ctx.timers.cancel(BALANCE_LEADERS_TIMER);
      ctx.send(ctx.self, { type: 'BalanceLeaders' });
      return;
    }
  }
  scheduleBalance(s, ctx);
}

// ------------------------------------------------------------------ the actor

export const controller = defineActor<ControllerState, ControllerMsg, ControllerArgs>({
  kind: 'controller',
  // nothing from clients: they reach it through a node's controller channel, which forwards the client APIs only
  clientMessages: {},
  // its quorum's (a child) and its own timers': never another node's
  localMessages: ['QuorumCommitted', 'QuorumLeader', 'QuorumReady', 'QuorumSnapshot', 'BalanceLeaders', 'CheckSessions', 'StashExpired', 'SweepExpiredTokens'],
  init: initController,
  // A crash restarts the controller, which replays its log: the durable state is the truth.
  // A corrupt log, a log from another cluster or a bad config cannot heal by restarting.
  supervision: {
    decide: (err) =>
      err instanceof MetadataLogCorruptError || err instanceof QuorumStateError || err instanceof MetadataSnapshotError || err instanceof ConfigError || (err instanceof MetadataRecordError && err.record.type === 'ControllerEpoch')
        ? 'stop'
        : 'restart',
    maxRestarts: 5,
    withinMs: 60_000,
  },
  schema: {
    BrokerRegistration: { brokerId: 'integer', node: 'string', incarnationId: 'string', rack: 'string?', endpoint: 'string?', kafkaEndpoint: 'string?', previousBrokerEpoch: 'integer?' },
    BrokerHeartbeat: { brokerId: 'integer', brokerEpoch: 'integer', wantShutDown: 'boolean?', offlinePartitions: 'array?' },
    ControlledShutdown: { brokerId: 'integer', brokerEpoch: 'integer' },
    UnregisterBroker: { brokerId: 'integer' },
    CreateTopics: { topics: 'array', validateOnly: 'boolean?' },
    DeleteTopics: { topics: 'array', topicIds: 'object?' },
    CreatePartitions: { topics: 'array', validateOnly: 'boolean?' },
    AlterPartition: {
      brokerId: 'integer',
      brokerEpoch: 'integer',
      topic: 'string',
      partition: 'integer',
      leaderEpoch: 'integer',
      partitionEpoch: 'integer',
      newIsr: 'array',
    },
    Metadata: { topics: 'array?' },
    AllocateProducerIds: { brokerId: 'integer', brokerEpoch: 'integer' },
    AlterTopicConfigs: { topics: 'array', validateOnly: 'boolean?' },
    AlterBrokerConfigs: { resources: 'array', validateOnly: 'boolean?' },
    AlterGroupConfigs: { groups: 'array', validateOnly: 'boolean?' },
    AlterClientMetrics: { subscriptions: 'array', validateOnly: 'boolean?' },
    AlterClientQuotas: { entries: 'array', validateOnly: 'boolean?' },
    UpdateFeatures: { updates: 'array', validateOnly: 'boolean?' },
    ElectLeaders: { electionType: 'integer' },
    AlterPartitionReassignments: { topics: 'array', allowReplicationFactorChange: 'boolean?' },
    CreateAcls: { creations: 'array' },
    DeleteAcls: { filters: 'array' },
    DescribeAcls: { filter: 'object' },
    AlterUserScramCredentials: { deletions: 'array', upsertions: 'array' },
    DescribeUserScramCredentials: { users: 'array?' },
    CreateDelegationToken: { owner: 'string', requester: 'string', renewers: 'array', maxLifetimeMs: 'integer' },
    RenewDelegationToken: { principal: 'string?', hmac: 'string', renewPeriodMs: 'integer' },
    ExpireDelegationToken: { principal: 'string?', hmac: 'string', expiryTimePeriodMs: 'integer' },
    WatchMetadata: { watcher: 'ref' },
    UnwatchMetadata: { watcher: 'ref' },
    DescribeQuorum: { local: 'boolean?' },
    AddRaftVoter: { voterId: 'integer', directoryId: 'string?', clusterId: 'string?', ackWhenCommitted: 'boolean?' },
    RemoveRaftVoter: { voterId: 'integer', directoryId: 'string?', clusterId: 'string?' },
  },
  handlers: {
    BrokerRegistration: activeOnly(handleBrokerRegistration),
    BrokerHeartbeat: activeOnly(handleBrokerHeartbeat),
    ControlledShutdown: activeOnly(handleControlledShutdown),
    UnregisterBroker: activeOnly(handleUnregisterBroker),
    CreateTopics: activeOnly(handleCreateTopics),
    DeleteTopics: activeOnly(handleDeleteTopics),
    CreatePartitions: activeOnly(handleCreatePartitions),
    AlterPartition: activeOnly(handleAlterPartition),
    AllocateProducerIds: activeOnly(handleAllocateProducerIds),
    AlterTopicConfigs: activeOnly(handleAlterTopicConfigs),
    AlterBrokerConfigs: activeOnly(handleAlterBrokerConfigs),
    AlterGroupConfigs: activeOnly(handleAlterGroupConfigs),
    AlterClientMetrics: activeOnly(handleAlterClientMetrics),
    AlterClientQuotas: activeOnly(handleAlterClientQuotas),
    UpdateFeatures: activeOnly(handleUpdateFeatures),
    ElectLeaders: activeOnly(handleElectLeaders),
    AlterPartitionReassignments: activeOnly(handleAlterPartitionReassignments),
    ListPartitionReassignments: activeOnly(handleListPartitionReassignments),
    CreateAcls: activeOnly(handleCreateAcls),
    DeleteAcls: activeOnly(handleDeleteAcls),
    AlterUserScramCredentials: activeOnly(handleAlterUserScramCredentials),
    DescribeUserScramCredentials: activeOnly((s, m, ctx) => {
      ctx.reply<ControllerReply>({ type: 'DescribeUserScramCredentialsResponse', ...describeScram(s.metadata, m.users) });
    }),
    CreateDelegationToken: activeOnly(handleCreateDelegationToken),
    RenewDelegationToken: activeOnly<'RenewDelegationToken'>(handleTokenExpiry),
    ExpireDelegationToken: activeOnly<'ExpireDelegationToken'>(handleTokenExpiry),
    DescribeDelegationTokens: activeOnly((s, _m, ctx) => {
      ctx.reply<ControllerReply>({ type: 'DescribeDelegationTokensResponse', ...describeTokens(s.metadata, tokenConfig(s)) });
    }),
    SweepExpiredTokens: (s, _m, ctx) => whenActive(s, () => handleSweepExpiredTokens(s, ctx)),
    DescribeAcls: activeOnly((s, m, ctx) => {
      const { answer, acls } = describeAcls(s.metadata, m.filter);
      ctx.reply<ControllerReply>({ type: 'DescribeAclsResponse', ...answer, acls });
    }),
    Metadata: activeOnly((s, m, ctx) => {
      const names = m.topics ? m.topics.filter((n): n is string => typeof n === 'string') : null;
      ctx.reply<ControllerReply>({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata: toClusterMetadata(s.metadata, ctx.nodeId, names) });
    }),
    WatchMetadata: activeOnly((s, m, ctx) => {
      if (!s.watchers.some((w) => sameRef(w, m.watcher))) s.watchers.push({ node: m.watcher.node, path: m.watcher.path });
      const metadata = toClusterMetadata(s.metadata, ctx.nodeId);
      ctx.send(m.watcher as ActorRef<ControlToBrokerMsg>, { type: 'UpdateMetadataRequest', controllerEpoch: s.metadata.controllerEpoch, metadata });
      ctx.reply<ControllerReply>({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata: toClusterMetadata(s.metadata, ctx.nodeId) });
    }),
    UnwatchMetadata: activeOnly((s, m, ctx) => {
      const i = s.watchers.findIndex((w) => sameRef(w, m.watcher));
      if (i >= 0) s.watchers.splice(i, 1);
      ctx.reply<ControllerReply>({ type: 'MetadataResponse', errorCode: ErrorCode.NONE, metadata: toClusterMetadata(s.metadata, ctx.nodeId) });
    }),
    DescribeQuorum: (s, m, ctx) => {
      if (!m.local && s.role !== ControllerRole.Active && s.leader && s.leader.id !== s.voterId) return notActive(s, ctx);
      const token = ctx.deferReply();
      if (!token) return;
      void ctx.ask<QuorumReply>(s.quorum, { type: 'DescribeQuorum' }, { timeoutMs: 10_000 }).then((r) => {
        const q = r.type === 'QuorumDescription' ? r : null;
        ctx.replyTo<ControllerReply>(token, {
          type: 'DescribeQuorumResponse',
          errorCode: q ? ErrorCode.NONE : (r as { errorCode: number }).errorCode,
          active: s.role === ControllerRole.Active,
          controllerEpoch: s.metadata.controllerEpoch,
          appliedIndex: s.appliedIndex,
          quorum: q,
        });
      });
    },
    AddRaftVoter: activeOnly<'AddRaftVoter'>(handleVoterChange),
    RemoveRaftVoter: activeOnly<'RemoveRaftVoter'>(handleVoterChange),
    BalanceLeaders: (s, _m, ctx) => whenActive(s, () => handleBalanceLeaders(s, ctx)),
    CheckSessions: (s, _m, ctx) => whenActive(s, () => handleCheckSessions(s, ctx)),
    StashExpired: (s, _m, ctx) => {
      if (s.role === ControllerRole.Active || (s.leader && s.leader.id !== s.voterId)) return;
      s.refuseWithoutLeader = true;
      if (ctx.stashSize > 0) ctx.log.warn('no controller elected in time: refusing the requests that waited', { waiting: ctx.stashSize });
      ctx.unstashAll();
    },
    QuorumCommitted: (s, m, ctx) => handleQuorumCommitted(s, m, ctx),
    QuorumLeader: (s, m, ctx) => handleQuorumLeader(s, m, ctx),
    QuorumReady: (s, m, ctx) => handleQuorumReady(s, m, ctx),
    QuorumSnapshot: (s, m, ctx) => handleQuorumSnapshot(s, m, ctx),
  },
});
