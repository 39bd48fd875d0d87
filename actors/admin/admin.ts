/**
 * The admin client actor: topic and group administration for the promise API in
 * src/client/admin.ts. Topic, ACL, dynamic broker config, group config, client quota and SCRAM
 * credential operations go to the controller (quotas and group configs are described from its
 * metadata, the metadata quorum as the active controller sees it; SCRAM upsertions arrive
 * salted, the password stays in the client); group and transaction operations find the
 * coordinator first; listings fan out to every broker's coordinator; offsets come from partition
 * leaders; log dirs from every broker asked; a broker's configs (and a topic's or a group's
 * defaults) from that broker.
 *
 * Owned state: the metadata cache; its config (admin-config.ts); the metrics' samples
 * (admin-metrics.ts: every request it sends, by node, and the answers' latencies); with
 * enable.metrics.push (false by default, as Kafka's admin), its telemetry push loop (KIP-714,
 * src/client/telemetry-loop.ts: the subscription, what was last pushed, the timers, the
 * clientInstanceId calls waiting for the id).
 * Handles: CreateTopics, DeleteTopics, CreatePartitions, AlterTopicConfigs, ElectLeaders,
 * AlterPartitionReassignments, ListPartitionReassignments, ListTopics, DescribeCluster (the live
 * brokers, or every registered one with the fenced among them), UnregisterBroker (to the active controller),
 * DescribeMetadataQuorum, AddRaftVoter, RemoveRaftVoter (KIP-853, to the active controller), DescribeFeatures, UpdateFeatures (KIP-584), FetchTopicMetadata, ListGroups, DescribeGroups, DescribeConsumerGroups
 * (KIP-848 groups, Kafka's ConsumerGroupDescribe), DescribeShareGroups (KIP-932, Kafka's
 * ShareGroupDescribe), ListShareGroupOffsets, AlterShareGroupOffsets, DeleteShareGroupOffsets (the
 * share coordinators' states, share-group-offsets.ts), DeleteGroups, DeleteOffsets (OffsetDelete),
 * RemoveMembers (an admin's LeaveGroup),
 * FetchOffsets, ResetOffsets, FetchTopicOffsets, GroupLag, DescribeLogDirs, AlterReplicaLogDirs (each
 * broker asked for its own replicas), AlterBrokerConfigs,
 * DynamicBrokerConfigs, AlterGroupConfigs, DynamicGroupConfigs (Kafka 4.0's group configs),
 * AlterClientMetrics, ClientMetricsSubscriptions (KIP-714's subscriptions),
 * DescribeConfigs (a broker, the cluster-wide default, a topic or a group), DescribeBrokerLoggers and
 * AlterBrokerLoggers (asked of that broker), AlterClientQuotas, DescribeClientQuotas, CreateAcls,
 * DeleteAcls, DescribeAcls, AlterUserScramCredentials, DescribeUserScramCredentials,
 * CreateDelegationToken, RenewDelegationToken, ExpireDelegationToken, DescribeDelegationTokens,
 * DescribeTransactions (each id of its transaction coordinator), FenceProducers (KIP-618: an
 * InitProducerId for each id, to its transaction coordinator), ListTransactions (every live
 * broker's transaction coordinator), DescribeProducers (each partition's leader, or the replica
 * on a broker named), AbortTransaction (an ABORT marker through the partition's leader),
 * ListOffsets and DeleteRecords (each partition's leader, asked again while leaders move),
 * Metrics (Kafka's admin-client-metrics and admin-client-node-metrics), Close (answered once
 * telemetry has ended, after its terminating push), GetClientInstanceId (answered once the id is
 * known, telemetry stopped, or its timeout passed), and internal TelemetryTick, TelemetryAnswer,
 * ClientInstanceIdDeadline.
 * Emits: requests to the controller, brokers, coordinators and partition replicas;
 * GetTelemetrySubscriptions and PushTelemetry to a broker (its metrics under KIP-714's names,
 * org.apache.kafka.admin.client.*); one reply per request (AdminMetrics, Closed,
 * ClientInstanceId among them). Handlers await their asks: admin traffic is low and ordered (a
 * telemetry message waits behind an operation in progress). Every ask goes through askCounted,
 * so the metrics see it.
 */
import { MetadataCache, type BootstrapBroker } from '../../src/client/metadata-cache.js';
import {
  closeTelemetry,
  onClientInstanceIdDeadline,
  onGetClientInstanceId,
  onTelemetryAnswer,
  onTelemetryTick,
  startTelemetry,
  whenTelemetryClosed,
  type TelemetryContext,
  type TelemetryHost,
  type TelemetryLoop,
} from '../../src/client/telemetry-loop.js';
import { brokerPath, type ClusterMetadata } from '../../src/protocol/cluster.js';
import { ErrorCode, errorName } from '../../src/protocol/errors.js';
import { FEATURES } from '../../src/protocol/features.js';
import { compareEntities, filterMatches, filterProblem } from '../../src/security/client-quotas.js';
import type { ActorContext, AskOptions, BaseContext } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Failure, Message } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import { clusterDefaultConfigEntries, topicConfigEntries, type ConfigEntry as BrokerConfigEntry } from '../broker/config-entries.js';
import type { BrokerConfigsDescription, BrokerLoggersAltered, BrokerLoggersDescription, BrokerMsg, LogDirDescription, LogDirsDescription, MetadataResponse, ReplicaLogDirsAltered, TxnMarkerEntry, WriteTxnMarkersResponse } from '../broker/messages.js';
import type { ControllerMsg, ControllerReply } from '../controller/messages.js';
import type { QuorumReply } from '../quorum/messages.js';
import {
  coordinatorPath,
  OFFSETS_TOPIC,
  offsetsPartitionFor,
  type ConsumerGroupDescribeResponse,
  type ShareGroupDescribeResponse,
  type CoordinatorMsg,
  type DeleteGroupsResponse,
  type LeaveGroupResponse,
  type OffsetDeleteResponse,
  type DescribedGroup,
  type DescribeGroupsResponse,
  type FindCoordinatorResponse,
  type ListGroupsResponse,
  type OffsetCommitResponse,
  type OffsetFetchResponse,
} from '../group-coordinator/messages.js';
import {
  EARLIEST_TIMESTAMP,
  LATEST_TIMESTAMP,
  type ActiveProducer,
  type DeleteRecordsResult,
  type ListOffsetsResult,
  type ProducersDescription,
  type ReplicaMsg,
} from '../partition-replica/messages.js';
import { txnCoordinatorPath, type ListTransactionsResult, type TransactionView, type DescribeTransactionsResult, type TxnCoordinatorMsg, type TxnCoordinatorReply } from '../txn-coordinator/messages.js';
import { transactionRefused } from '../txn-coordinator/txn-listing.js';
import { groupConfigEntries } from '../broker/config-entries.js';
import { parseAdminConfig, type AdminConfig } from './admin-config.js';
import { AdminMetrics } from './admin-metrics.js';
import type { AdminMetricsReply, AdminMsg } from './messages.js';
import { alterShareGroupOffsets, deleteShareGroupOffsets, describeShareGroupOffsets, type ShareOffsetsEnv } from './share-group-offsets.js';

export interface AdminArgs {
  bootstrap: BootstrapBroker[];
  /** Kafka's admin config keys (admin-config.ts). */
  config?: Record<string, unknown>;
  /** A number in [0, 1) (Math.random by default): the first push's jitter. */
  random?: () => number;
}

interface AdminState {
  metadata: MetadataCache;
  /** request.timeout.ms. */
  timeoutMs: number;
  config: AdminConfig;
  metrics: AdminMetrics;
  /** enable.metrics.push: the telemetry push loop (null without). */
  telemetry: TelemetryLoop | null;
}

type Ctx = ActorContext<AdminMsg>;

/**
 * An ask of the admin's, counted in its metrics as Kafka's network client counts a request: one
 * sent to the node of `to`, and its answer (a Failure is none). As ctx.ask, a reply type given
 * leaves the message unchecked.
 */
function askCounted<R extends Message, T extends Message = any>(s: AdminState, ctx: BaseContext<AdminMsg>, to: ActorRef<T>, msg: T, opts: AskOptions = { timeoutMs: s.timeoutMs }): Promise<R | Failure> {
  const sentAt = ctx.clock.now();
  s.metrics.requestSent(to.node, sentAt);
  return ctx.ask<R>(to, msg, opts).then((r) => {
    if (!isFailure(r)) {
      const now = ctx.clock.now();
      s.metrics.responseReceived(to.node, now - sentAt, now);
    }
    return r;
  });
}

/** The admin's context as its telemetry loop uses it: the loop's requests are counted too, as Kafka's go through its network client. */
function telemetryContext(s: AdminState, ctx: BaseContext<AdminMsg>): TelemetryContext {
  return {
    self: ctx.self,
    clock: ctx.clock,
    log: ctx.log,
    timers: ctx.timers,
    send: (to, msg) => ctx.send(to, msg),
    ask: (to, msg, opts) => askCounted(s, ctx, to, msg, opts),
    replyTo: (token, msg) => ctx.replyTo(token, msg),
  };
}

/** What the telemetry push loop reads of the admin: the brokers it knows, its metrics; no resource attribute (Kafka's admin has none). */
function telemetryHost(s: AdminState): TelemetryHost {
  return {
    brokers: () => s.metadata.brokerRefs(),
    metrics: (now) => s.metrics.snapshot(now, s.config.clientId),
    labels: () => ({}),
  };
}

function fail(ctx: Ctx, type: string, errorCode: number, errorMessage: string): void {
  ctx.reply({ type, errorCode, errorMessage } as Message);
}

async function refresh(s: AdminState, ctx: Ctx): Promise<ClusterMetadata | Failure> {
  let last: Failure | null = null;
  for (let i = 0; i < 3; i++) {
    const r = await askCounted<MetadataResponse>(s, ctx, s.metadata.nextBroker<BrokerMsg>(), { type: 'Metadata' });
    if (!isFailure(r)) {
      s.metadata.update(r.metadata, ctx.clock.now());
      return r.metadata;
    }
    last = r;
  }
  return last!;
}

async function controller(s: AdminState, ctx: Ctx): Promise<ActorRef<ControllerMsg> | Failure> {
  if (!s.metadata.metadata) {
    const md = await refresh(s, ctx);
    if (isFailure(md)) return md;
  }
  return s.metadata.controllerRef<ControllerMsg>()!;
}

/** Asks the controller (through the channel on its node); once more after a metadata refresh when that node is gone. */
async function askController(s: AdminState, ctx: Ctx, msg: ControllerMsg): Promise<ControllerReply | Failure> {
  const c = await controller(s, ctx);
  if (isFailure(c)) return c;
  const r = await askCounted<ControllerReply>(s, ctx, c, msg);
  if (!isFailure(r) || !CONTROLLER_GONE.has(r.reason)) return r;
  // the active controller's node went away: the brokers know the one that took over
  const md = await refresh(s, ctx);
  if (isFailure(md)) return r;
  return askCounted<ControllerReply>(s, ctx, s.metadata.controllerRef<ControllerMsg>()!, msg);
}

/** AbortTransaction: the answers after which the leader is looked up again (LEADER_ATTEMPTS in all). */
const ABORT_RETRIABLE: ReadonlySet<number> = new Set([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NETWORK_EXCEPTION]);

const CONTROLLER_GONE: ReadonlySet<string> = new Set(['unknown-node', 'unknown-actor', 'actor-stopped', 'endpoint-closed']);

async function toController(s: AdminState, ctx: Ctx, msg: ControllerMsg, replyType: string): Promise<void> {
  const r = await askController(s, ctx, msg);
  if (isFailure(r)) return fail(ctx, replyType, r.errorCode, r.message);
  ctx.reply({ ...r, errorCode: (r as { errorCode?: number }).errorCode ?? ErrorCode.NONE });
  await refresh(s, ctx);
}

/** The metadata as the controller has it now (of `topics` only; [] for none), fresher than a broker's. */
async function controllerMetadata(s: AdminState, ctx: Ctx, topics: string[]): Promise<ClusterMetadata | Failure> {
  const r = await askController(s, ctx, { type: 'Metadata', topics });
  if (isFailure(r)) return r;
  if (r.type !== 'MetadataResponse' || r.errorCode !== ErrorCode.NONE) {
    const code = (r as { errorCode?: number }).errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    return { type: 'Failure', errorCode: code, reason: 'invalid-message', message: `the controller did not give its metadata: ${errorName(code)}` };
  }
  return r.metadata;
}

type CoordinatorKind = 'group' | 'transaction';

/** The coordinator actor of a group, or of a transactional id, as a broker's FindCoordinator names it. */
async function coordinatorOf(s: AdminState, ctx: Ctx, key: string, kind: CoordinatorKind): Promise<{ ref: ActorRef<Message>; brokerId: number } | Failure> {
  let last: Failure | null = null;
  for (let attempt = 0; attempt < 20; attempt++) {
    const r = await askCounted<FindCoordinatorResponse>(s, ctx, s.metadata.nextBroker<BrokerMsg>(), { type: 'FindCoordinator', key, keyType: kind } as never);
    if (!isFailure(r) && r.errorCode === ErrorCode.NONE) return { ref: { node: r.node, path: kind === 'group' ? coordinatorPath(r.brokerId) : txnCoordinatorPath(r.brokerId) }, brokerId: r.brokerId };
    last = isFailure(r) ? r : { type: 'Failure', errorCode: r.errorCode, reason: 'timeout', message: r.errorMessage ?? errorName(r.errorCode) };
    await new Promise((res) => setTimeout(res, 100));
  }
  return last!;
}

/** Asks the coordinator of `key`, finding it again while it moves or loads; `answeredBy` hears which broker's answered. */
async function askCoordinatorOf<R extends Message>(
  s: AdminState,
  ctx: Ctx,
  key: string,
  kind: CoordinatorKind,
  msg: Message,
  codeOf: (r: R) => number,
  answeredBy?: (brokerId: number) => void,
): Promise<R | Failure> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const c = await coordinatorOf(s, ctx, key, kind);
    if (isFailure(c)) return c;
    const r = await askCounted<R>(s, ctx, c.ref, msg);
    const code = isFailure(r) ? r.errorCode : codeOf(r);
    if (code !== ErrorCode.NOT_COORDINATOR && code !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS && code !== ErrorCode.COORDINATOR_NOT_AVAILABLE) {
      answeredBy?.(c.brokerId);
      return r;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  return { type: 'Failure', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, reason: 'timeout', message: `no coordinator answered for ${kind} ${key}` };
}

function askCoordinator<R extends Message>(s: AdminState, ctx: Ctx, groupId: string, msg: CoordinatorMsg): Promise<R | Failure> {
  return askCoordinatorOf<R>(s, ctx, groupId, 'group', msg, (r) => (r as unknown as { errorCode: number }).errorCode);
}

/** The code a group coordinator's answer carries: its first group's (ShareGroupDescribe and the like answer per group), else its own. */
function groupAnswerCode(r: Message): number {
  const first = (r as { groups?: { errorCode?: number }[] }).groups?.[0];
  return first?.errorCode ?? (r as { errorCode?: number }).errorCode ?? ErrorCode.NONE;
}

/** The share group offsets' operations (share-group-offsets.ts) through this actor: its metadata, the coordinators it finds. */
function shareOffsetsEnv(s: AdminState, ctx: Ctx): ShareOffsetsEnv {
  return {
    timeoutMs: s.timeoutMs,
    ask: <R extends Message>(to: ActorRef, msg: Message) => askCounted<R>(s, ctx, to, msg),
    send: (to, msg) => ctx.send(to, msg),
    sleep: (ms) => new Promise<void>((res) => ctx.clock.setTimeout(res, ms)),
    now: () => ctx.clock.now(),
    metadata: () => refresh(s, ctx),
    broker: () => s.metadata.nextBroker<BrokerMsg>(),
    askGroupCoordinator: <R extends Message>(groupId: string, msg: CoordinatorMsg) => askCoordinatorOf<R>(s, ctx, groupId, 'group', msg, groupAnswerCode),
  };
}

/**
 * A transaction coordinator's ListTransactions, asked again while it loads a partition (Kafka's
 * admin does the same), for at most the request timeout.
 */
async function listTransactionsOf(s: AdminState, ctx: Ctx, broker: { brokerId: number; node: string }, msg: TxnCoordinatorMsg): Promise<ListTransactionsResult | Failure> {
  const deadline = Date.now() + s.timeoutMs;
  for (;;) {
    const r = await askCounted<ListTransactionsResult>(s, ctx, { node: broker.node, path: txnCoordinatorPath(broker.brokerId) }, msg);
    if (isFailure(r) || r.errorCode !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS || Date.now() >= deadline) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Earliest or latest offset of every partition of `topic` (latest = the high watermark). */
/** Each partition's offset at `timestamp` from its leader, asked of all the leaders at once; the first failure in partition order wins. */
async function partitionOffsets(s: AdminState, ctx: Ctx, topic: string, timestamp: number): Promise<Map<number, number> | Failure> {
  const answers = await Promise.all(
    s.metadata.partitions(topic).map(async (p): Promise<[number, number] | Failure> => {
      const leader = s.metadata.leaderOf(topic, p.partition);
      if (!leader) return { type: 'Failure', errorCode: ErrorCode.LEADER_NOT_AVAILABLE, reason: 'unknown-actor', message: `${topic}-${p.partition} has no leader` };
      const r = await askCounted<ListOffsetsResult>(s, ctx, s.metadata.replicaRef<ReplicaMsg>(leader, topic, p.partition), { type: 'ListOffsets', timestamp, currentLeaderEpoch: -1 });
      if (isFailure(r)) return r;
      if (r.errorCode !== ErrorCode.NONE) return { type: 'Failure', errorCode: r.errorCode, reason: 'invalid-message', message: `${topic}-${p.partition}: ${errorName(r.errorCode)}` };
      return [p.partition, r.offset];
    }),
  );
  const out = new Map<number, number>();
  for (const a of answers) {
    if (isFailure(a)) return a;
    out.set(a[0], a[1]);
  }
  return out;
}

/** ListOffsets, DeleteRecords, AbortTransaction: how often partitions whose leader moved (or has none yet) are asked again, and how long between. */
const LEADER_ATTEMPTS = 5;
const LEADER_RETRY_BACKOFF_MS = 200;

/**
 * How long a leader may wait for its followers to delete records (DeleteRecords' low watermark):
 * a little under the ask's own timeout, so the leader's REQUEST_TIMED_OUT comes back first.
 */
function deleteWaitMs(askTimeoutMs: number): number {
  return Math.max(0, askTimeoutMs - Math.min(1_000, Math.floor(askTimeoutMs / 10)));
}
const LEADER_MOVED: ReadonlySet<number> = new Set([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE]);

type LeaderAnswer<R> = R | { errorCode: number; errorMessage: string };

/**
 * Asks each partition's leader replica `msgOf(i)` at once; partitions whose leader moved or has
 * none are asked again after a metadata refresh (LEADER_ATTEMPTS in all). An unknown topic or
 * partition, a missing leader, or a replica that does not answer is that partition's error.
 */
async function askPartitionLeaders<R extends { errorCode: number }>(
  s: AdminState,
  ctx: Ctx,
  parts: readonly { topic: string; partition: number }[],
  msgOf: (i: number) => ReplicaMsg,
): Promise<LeaderAnswer<R>[]> {
  const out: LeaderAnswer<R>[] = [];
  let pending = parts.map((_, i) => i);
  for (let attempt = 1; ; attempt++) {
    await Promise.all(
      pending.map(async (i) => {
        const { topic, partition } = parts[i]!;
        const name = `${topic}-${partition}`;
        if (!s.metadata.hasTopic(topic) || !Number.isSafeInteger(partition) || partition < 0 || partition >= s.metadata.partitionCount(topic)) {
          out[i] = { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `${name} does not exist` };
          return;
        }
        const leader = s.metadata.leaderOf(topic, partition);
        if (!leader) {
          out[i] = { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, errorMessage: `${name} has no leader` };
          return;
        }
        const r = await askCounted<R & Message>(s, ctx, s.metadata.replicaRef<ReplicaMsg>(leader, topic, partition), msgOf(i));
        if (isFailure(r)) out[i] = { errorCode: r.reason === 'unknown-actor' ? ErrorCode.NOT_LEADER_OR_FOLLOWER : r.errorCode, errorMessage: `${name}: ${r.message}` };
        else out[i] = r;
      }),
    );
    pending = pending.filter((i) => LEADER_MOVED.has(out[i]!.errorCode));
    if (pending.length === 0 || attempt >= LEADER_ATTEMPTS) return out;
    await new Promise<void>((res) => ctx.clock.setTimeout(res, LEADER_RETRY_BACKOFF_MS));
    await refresh(s, ctx);
  }
}

/** A running broker's every config entry (only it knows its topology config), or why it cannot give them. */
async function brokerConfigsOf(s: AdminState, ctx: Ctx, broker: { brokerId: number; node: string; fenced: boolean }): Promise<BrokerConfigEntry[] | { errorCode: number; errorMessage: string }> {
  if (broker.fenced) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, errorMessage: `broker ${broker.brokerId} is fenced (stopped, or not heartbeating): only a running broker knows its configs` };
  const answer = await askCounted<BrokerConfigsDescription>(s, ctx, { node: broker.node, path: brokerPath(broker.brokerId) }, { type: 'DescribeConfigs' });
  if (isFailure(answer)) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, errorMessage: `broker ${broker.brokerId} did not answer: ${answer.message}` };
  if (answer.errorCode !== ErrorCode.NONE) return { errorCode: answer.errorCode, errorMessage: `broker ${broker.brokerId}: ${errorName(answer.errorCode)}` };
  return answer.configs;
}

/** Answers with config maps kept in the controller's metadata (dynamic broker configs, group configs, client metrics subscriptions). */
async function replyConfigMaps(s: AdminState, ctx: Ctx, type: string, pick: (md: ClusterMetadata) => Record<string, Record<string, Record<string, string>>>): Promise<void> {
  const md = await controllerMetadata(s, ctx, []);
  if (isFailure(md)) return fail(ctx, type, md.errorCode, md.message);
  ctx.reply({ type, errorCode: ErrorCode.NONE, ...pick(md) });
}

/** A running broker's node, or why it cannot be asked (not registered, fenced). */
async function runningBroker(s: AdminState, ctx: Ctx, brokerId: unknown): Promise<{ brokerId: number; node: string } | { errorCode: number; errorMessage: string }> {
  if (!Number.isSafeInteger(brokerId) || (brokerId as number) < 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'broker must be a broker id' };
  const md = await controllerMetadata(s, ctx, []);
  if (isFailure(md)) return { errorCode: md.errorCode, errorMessage: md.message };
  const broker = md.brokers.find((b) => b.brokerId === brokerId);
  if (!broker) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, errorMessage: `broker ${brokerId as number} is not registered in the cluster` };
  if (broker.fenced) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, errorMessage: `broker ${broker.brokerId} is fenced (stopped, or not heartbeating): only a running broker has loggers` };
  return broker;
}

/** Asks a running broker about its loggers (DescribeLoggers, AlterLoggers) and passes its answer on. */
async function askBrokerLoggers(s: AdminState, ctx: Ctx, brokerId: unknown, msg: BrokerMsg, replyType: string): Promise<void> {
  const broker = await runningBroker(s, ctx, brokerId);
  if ('errorCode' in broker) return fail(ctx, replyType, broker.errorCode, broker.errorMessage);
  const answer = await askCounted<BrokerLoggersDescription | BrokerLoggersAltered>(s, ctx, { node: broker.node, path: brokerPath(broker.brokerId) }, msg);
  if (isFailure(answer)) return fail(ctx, replyType, ErrorCode.BROKER_NOT_AVAILABLE, `broker ${broker.brokerId} did not answer: ${answer.message}`);
  ctx.reply({ ...answer, type: replyType });
}

/**
 * A group's config entries: its own values (the controller's metadata) over the broker defaults
 * of its coordinator, the leader of its __consumer_offsets partition (else any live broker: the
 * group need not exist, nor the topic), whose id the answer carries.
 */
async function describeGroupConfigs(s: AdminState, ctx: Ctx, group: string): Promise<void> {
  if (group === '') return fail(ctx, 'Configs', ErrorCode.INVALID_REQUEST, 'Group name must not be empty');
  const md = await controllerMetadata(s, ctx, [OFFSETS_TOPIC]);
  if (isFailure(md)) return fail(ctx, 'Configs', md.errorCode, md.message);
  const offsets = md.topics.find((t) => t.name === OFFSETS_TOPIC);
  const partition = offsets && offsets.partitions.length > 0 ? offsetsPartitionFor(group, offsets.partitions.length) : -1;
  const leader = offsets?.partitions.find((p) => p.partition === partition)?.leader;
  const live = md.brokers.filter((b) => !b.fenced);
  const broker = live.find((b) => b.brokerId === leader) ?? live[0];
  if (!broker) return fail(ctx, 'Configs', ErrorCode.BROKER_NOT_AVAILABLE, 'no live broker to ask for the broker defaults');
  const entries = await brokerConfigsOf(s, ctx, broker);
  if (!Array.isArray(entries)) return fail(ctx, 'Configs', entries.errorCode, entries.errorMessage);
  ctx.reply({ type: 'Configs', errorCode: ErrorCode.NONE, brokerId: broker.brokerId, configs: groupConfigEntries(md.groupConfigs?.[group] ?? {}, entries) });
}

type QuorumDescription = Extract<QuorumReply, { type: 'QuorumDescription' }>;

/**
 * A quorum description in Kafka's terms: the leader's term is its epoch, the commit index the
 * high watermark (-1 while a new leader has not committed an entry of its term), a log's last index its end offset (indexes count entries from 1, so the last
 * index is the number of entries, as a log end offset is). A voter's lag is how far its log end
 * is behind the leader's; -1 where unknown (the answer is not the leader's, or names no leader).
 */
function quorumView(q: QuorumDescription, controllerEpoch: number) {
  const leaderId = q.leaderId ?? -1;
  const leaderEnd = q.voters.find((v) => v.id === leaderId)?.logEndIndex ?? -1;
  const view = (v: QuorumDescription['voters'][number], role: string) => ({
    id: v.id,
    node: v.node,
    ...(v.directoryId ? { directoryId: v.directoryId } : {}),
    logEndOffset: v.logEndIndex,
    lag: leaderEnd >= 0 && v.logEndIndex >= 0 ? Math.max(0, leaderEnd - v.logEndIndex) : -1,
    lastContactMs: v.lastContactMs,
    role,
  });
  const voters = [...q.voters].sort((a, b) => a.id - b.id).map((v) => view(v, v.id === leaderId ? 'Leader' : v.id === q.voterId ? q.role : 'Follower'));
  const observers = [...q.observers].sort((a, b) => a.id - b.id).map((v) => view(v, 'Observer'));
  return { leaderId, leaderEpoch: q.term, highWatermark: q.highWatermark, controllerEpoch, voters, observers };
}

export const admin = defineActor<AdminState, AdminMsg, AdminArgs>({
  kind: 'admin',
  supervision: 'resume',
  init: (ctx, args) => {
    const config = parseAdminConfig(args.config ?? {});
    const s: AdminState = {
      metadata: new MetadataCache(args.bootstrap),
      timeoutMs: config.requestTimeoutMs,
      config,
      metrics: new AdminMetrics({ windowMs: config.metricsSampleWindowMs, samples: config.metricsNumSamples }, ctx.clock.now()),
      telemetry: null,
    };
    const loopConfig = { clientId: config.clientId, requestTimeoutMs: config.requestTimeoutMs, retryBackoffMs: config.retryBackoffMs };
    s.telemetry = startTelemetry(config.enableMetricsPush, loopConfig, telemetryContext(s, ctx), args.random ? { random: args.random } : {});
    return s;
  },
  handlers: {
    Metrics(s, _m, ctx) {
      ctx.reply({ type: 'AdminMetrics', errorCode: ErrorCode.NONE, metrics: s.metrics.snapshot(ctx.clock.now(), s.config.clientId) } satisfies AdminMetricsReply);
    },
    Close(s, _m, ctx) {
      const token = ctx.deferReply();
      // as Kafka's admin: the terminating push goes out as the close begins
      closeTelemetry(s.telemetry, telemetryHost(s), telemetryContext(s, ctx));
      whenTelemetryClosed(s.telemetry, () => {
        if (token) ctx.replyTo(token, { type: 'Closed', errorCode: ErrorCode.NONE });
      });
    },
    async TelemetryTick(s, _m, ctx) {
      // the admin fetches metadata for its operations only: a request due with no broker known yet fetches it first
      const loop = s.telemetry;
      if (loop && loop.sender.timeToNextUpdate(ctx.clock.now()) <= 0 && s.metadata.brokerRefs().length === 0) await refresh(s, ctx);
      onTelemetryTick(loop, telemetryHost(s), telemetryContext(s, ctx));
    },
    TelemetryAnswer(s, m, ctx) {
      onTelemetryAnswer(s.telemetry, m, telemetryContext(s, ctx));
    },
    GetClientInstanceId(s, m, ctx) {
      onGetClientInstanceId(s.telemetry, m, ctx);
    },
    ClientInstanceIdDeadline(s, _m, ctx) {
      onClientInstanceIdDeadline(s.telemetry, ctx);
    },
    async CreateTopics(s, m, ctx) {
      await toController(s, ctx, { type: 'CreateTopics', topics: m.topics, validateOnly: m.validateOnly ?? false }, 'CreateTopicsResponse');
    },
    async DeleteTopics(s, m, ctx) {
      await toController(s, ctx, { type: 'DeleteTopics', topics: m.topics }, 'DeleteTopicsResponse');
    },
    async CreatePartitions(s, m, ctx) {
      await toController(s, ctx, { type: 'CreatePartitions', topics: m.topics }, 'CreatePartitionsResponse');
    },
    async AlterTopicConfigs(s, m, ctx) {
      await toController(s, ctx, { type: 'AlterTopicConfigs', topics: m.topics, validateOnly: m.validateOnly ?? false }, 'AlterTopicConfigsResponse');
    },
    async ElectLeaders(s, m, ctx) {
      let topicPartitions: { topic: string; partitions: number[] }[] | null = null;
      if (m.partitions !== null) {
        const byTopic = new Map<string, number[]>();
        for (const { topic, partition } of m.partitions) {
          const list = byTopic.get(topic) ?? [];
          list.push(partition);
          byTopic.set(topic, list);
        }
        topicPartitions = [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
      }
      const electionType = m.electionType === 'preferred' ? 0 : m.electionType === 'unclean' ? 1 : -1;
      await toController(s, ctx, { type: 'ElectLeaders', electionType, topicPartitions }, 'ElectLeadersResponse');
    },
    async AlterPartitionReassignments(s, m, ctx) {
      await toController(s, ctx, { type: 'AlterPartitionReassignments', topics: m.topics, allowReplicationFactorChange: m.allowReplicationFactorChange ?? true }, 'AlterPartitionReassignmentsResponse');
    },
    async ListPartitionReassignments(s, m, ctx) {
      await toController(s, ctx, { type: 'ListPartitionReassignments', topics: m.topics }, 'ListPartitionReassignmentsResponse');
    },
    async AlterBrokerConfigs(s, m, ctx) {
      await toController(s, ctx, { type: 'AlterBrokerConfigs', resources: m.resources, validateOnly: m.validateOnly ?? false }, 'AlterBrokerConfigsResponse');
    },
    async DynamicBrokerConfigs(s, _m, ctx) {
      await replyConfigMaps(s, ctx, 'DynamicBrokerConfigs', (md) => ({ brokerConfigs: md.brokerConfigs ?? {} }));
    },
    async AlterGroupConfigs(s, m, ctx) {
      await toController(s, ctx, { type: 'AlterGroupConfigs', groups: m.groups, validateOnly: m.validateOnly ?? false }, 'AlterGroupConfigsResponse');
    },
    async DynamicGroupConfigs(s, _m, ctx) {
      await replyConfigMaps(s, ctx, 'DynamicGroupConfigs', (md) => ({ groupConfigs: md.groupConfigs ?? {} }));
    },
    async AlterClientMetrics(s, m, ctx) {
      await toController(s, ctx, { type: 'AlterClientMetrics', subscriptions: m.subscriptions, validateOnly: m.validateOnly ?? false }, 'AlterClientMetricsResponse');
    },
    async ClientMetricsSubscriptions(s, _m, ctx) {
      await replyConfigMaps(s, ctx, 'ClientMetricsSubscriptions', (md) => ({ subscriptions: md.clientMetrics ?? {} }));
    },
    async DescribeBrokerLoggers(s, m, ctx) {
      await askBrokerLoggers(s, ctx, m.broker, { type: 'DescribeLoggers' }, 'BrokerLoggers');
    },
    async AlterBrokerLoggers(s, m, ctx) {
      if (!Array.isArray(m.changes)) return fail(ctx, 'BrokerLoggersAltered', ErrorCode.INVALID_REQUEST, 'changes must be [{ name, op: set|delete, level? }]');
      await askBrokerLoggers(s, ctx, m.broker, { type: 'AlterLoggers', changes: m.changes, validateOnly: m.validateOnly ?? false }, 'BrokerLoggersAltered');
    },
    async DescribeConfigs(s, m, ctx) {
      const r = (m.resource ?? {}) as { broker?: unknown; topic?: unknown; group?: unknown };
      if (typeof r.group === 'string') return describeGroupConfigs(s, ctx, r.group);
      const topic = typeof r.topic === 'string' ? r.topic : null;
      if (topic === null && r.broker !== null && !(Number.isSafeInteger(r.broker) && (r.broker as number) >= 0)) {
        return fail(ctx, 'Configs', ErrorCode.INVALID_REQUEST, 'the resource must be { broker: id }, { broker: null } (the cluster-wide default), { topic: name } or { group: id }');
      }
      const md = await controllerMetadata(s, ctx, topic !== null ? [topic] : []);
      if (isFailure(md)) return fail(ctx, 'Configs', md.errorCode, md.message);
      if (topic === null && r.broker === null) return ctx.reply({ type: 'Configs', errorCode: ErrorCode.NONE, brokerId: null, configs: clusterDefaultConfigEntries(md.brokerConfigs?.[''] ?? {}) });
      const t = topic === null ? undefined : md.topics.find((x) => x.name === topic);
      if (topic !== null && !t) return fail(ctx, 'Configs', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic '${topic}' does not exist`);
      // a topic's defaults are a broker's: the leader of its first partition, else any live broker
      const live = md.brokers.filter((b) => !b.fenced);
      const leader = t?.partitions.find((p) => p.partition === 0)?.leader;
      const broker = t ? (live.find((b) => b.brokerId === leader) ?? live[0]) : md.brokers.find((b) => b.brokerId === r.broker);
      if (!broker) return fail(ctx, 'Configs', ErrorCode.BROKER_NOT_AVAILABLE, t ? 'no live broker to ask for the broker defaults' : `broker ${r.broker as number} is not registered in the cluster`);
      const entries = await brokerConfigsOf(s, ctx, broker);
      if (!Array.isArray(entries)) return fail(ctx, 'Configs', entries.errorCode, entries.errorMessage);
      ctx.reply({ type: 'Configs', errorCode: ErrorCode.NONE, brokerId: broker.brokerId, configs: t ? topicConfigEntries(t.config, entries) : entries });
    },
    async AlterClientQuotas(s, m, ctx) {
      await toController(s, ctx, { type: 'AlterClientQuotas', entries: m.entries, validateOnly: m.validateOnly ?? false }, 'AlterClientQuotasResponse');
    },
    async DescribeClientQuotas(s, m, ctx) {
      const components = Array.isArray(m.components) ? m.components : [];
      const problem = filterProblem(components);
      if (problem) return fail(ctx, 'ClientQuotas', ErrorCode.INVALID_REQUEST, problem);
      const md = await controllerMetadata(s, ctx, []);
      if (isFailure(md)) return fail(ctx, 'ClientQuotas', md.errorCode, md.message);
      const entries = (md.clientQuotas ?? []).filter((q) => filterMatches(components, m.strict === true, q.entity)).sort((a, b) => compareEntities(a.entity, b.entity));
      ctx.reply({ type: 'ClientQuotas', errorCode: ErrorCode.NONE, entries });
    },
    async CreateAcls(s, m, ctx) {
      await toController(s, ctx, { type: 'CreateAcls', creations: m.creations }, 'CreateAclsResponse');
    },
    async DeleteAcls(s, m, ctx) {
      await toController(s, ctx, { type: 'DeleteAcls', filters: m.filters }, 'DeleteAclsResponse');
    },
    async DescribeAcls(s, m, ctx) {
      await toController(s, ctx, { type: 'DescribeAcls', filter: m.filter }, 'DescribeAclsResponse');
    },
    async AlterUserScramCredentials(s, m, ctx) {
      await toController(s, ctx, { type: 'AlterUserScramCredentials', deletions: m.deletions, upsertions: m.upsertions }, 'AlterUserScramCredentialsResponse');
    },
    async DescribeUserScramCredentials(s, m, ctx) {
      await toController(s, ctx, { type: 'DescribeUserScramCredentials', users: m.users ?? null }, 'DescribeUserScramCredentialsResponse');
    },
    async CreateDelegationToken(s, m, ctx) {
      await toController(s, ctx, { type: 'CreateDelegationToken', owner: m.owner, requester: m.requester, renewers: m.renewers, maxLifetimeMs: m.maxLifetimeMs }, 'CreateDelegationTokenResponse');
    },
    async RenewDelegationToken(s, m, ctx) {
      await toController(s, ctx, { type: 'RenewDelegationToken', principal: m.principal, hmac: m.hmac, renewPeriodMs: m.renewPeriodMs }, 'DelegationTokenExpiryResponse');
    },
    async ExpireDelegationToken(s, m, ctx) {
      await toController(s, ctx, { type: 'ExpireDelegationToken', principal: m.principal, hmac: m.hmac, expiryTimePeriodMs: m.expiryTimePeriodMs }, 'DelegationTokenExpiryResponse');
    },
    async DescribeDelegationTokens(s, _m, ctx) {
      await toController(s, ctx, { type: 'DescribeDelegationTokens' }, 'DescribeDelegationTokensResponse');
    },
    async ListTopics(s, _m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'Topics', md.errorCode, md.message);
      ctx.reply({ type: 'Topics', errorCode: ErrorCode.NONE, topics: md.topics.map((t) => t.name).sort() });
    },
    async DescribeCluster(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'Cluster', md.errorCode, md.message);
      const brokers = m.includeFencedBrokers ? md.brokers : md.brokers.filter((b) => !b.fenced);
      ctx.reply({ type: 'Cluster', errorCode: ErrorCode.NONE, clusterId: md.clusterId, controllerNode: md.controllerNode, controllerEpoch: md.controllerEpoch, brokers });
    },
    async DescribeMetadataQuorum(s, _m, ctx) {
      // through the channel: the active controller's view, the only one that knows every voter's progress
      const r = await askController(s, ctx, { type: 'DescribeQuorum' });
      if (isFailure(r)) return fail(ctx, 'MetadataQuorum', r.errorCode, r.message);
      if (r.type !== 'DescribeQuorumResponse') {
        const code = (r as { errorCode?: number }).errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
        const why = (r as { errorMessage?: string }).errorMessage;
        return fail(ctx, 'MetadataQuorum', code === ErrorCode.NONE ? ErrorCode.UNKNOWN_SERVER_ERROR : code, `the controller did not describe the quorum: ${errorName(code)}${why ? `: ${why}` : ''}`);
      }
      if (r.errorCode !== ErrorCode.NONE || !r.quorum) {
        const code = r.errorCode !== ErrorCode.NONE ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
        return fail(ctx, 'MetadataQuorum', code, `the controller's quorum did not answer: ${errorName(code)}`);
      }
      ctx.reply({ type: 'MetadataQuorum', errorCode: ErrorCode.NONE, ...quorumView(r.quorum, r.controllerEpoch), clusterId: s.metadata.metadata?.clusterId ?? null });
    },
    async AddRaftVoter(s, m, ctx) {
      await toController(s, ctx, { type: 'AddRaftVoter', voterId: m.voterId, directoryId: m.directoryId ?? null, ackWhenCommitted: m.ackWhenCommitted !== false }, 'RaftVoterChangeResponse');
    },
    async RemoveRaftVoter(s, m, ctx) {
      await toController(s, ctx, { type: 'RemoveRaftVoter', voterId: m.voterId, directoryId: m.directoryId ?? null }, 'RaftVoterChangeResponse');
    },
    async UnregisterBroker(s, m, ctx) {
      await toController(s, ctx, { type: 'UnregisterBroker', brokerId: m.brokerId }, 'UnregisterBrokerResponse');
    },
    async DescribeFeatures(s, _m, ctx) {
      const md = await controllerMetadata(s, ctx, []);
      if (isFailure(md)) return fail(ctx, 'Features', md.errorCode, md.message);
      const supported = FEATURES.map((f) => ({ name: f.name, minVersion: f.min, maxVersion: f.max }));
      ctx.reply({ type: 'Features', errorCode: ErrorCode.NONE, supported, finalized: md.features ?? null });
    },
    async UpdateFeatures(s, m, ctx) {
      await toController(s, ctx, { type: 'UpdateFeatures', updates: m.updates, validateOnly: m.validateOnly }, 'UpdateFeaturesResponse');
    },
    async FetchTopicMetadata(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'TopicMetadata', md.errorCode, md.message);
      const wanted = m.topics ? new Set(m.topics) : null;
      const missing = m.topics?.filter((t) => !md.topics.some((x) => x.name === t)) ?? [];
      if (missing.length) return fail(ctx, 'TopicMetadata', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown topic(s): ${missing.join(', ')}`);
      ctx.reply({ type: 'TopicMetadata', errorCode: ErrorCode.NONE, topics: md.topics.filter((t) => !wanted || wanted.has(t.name)) });
    },
    async ListGroups(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'Groups', md.errorCode, md.message);
      const groups = [];
      const msg: CoordinatorMsg = { type: 'ListGroups', ...(m.types?.length ? { typesFilter: m.types } : {}), ...(m.states?.length ? { statesFilter: m.states } : {}) };
      for (const b of md.brokers.filter((x) => !x.fenced)) {
        const r = await askCounted<ListGroupsResponse>(s, ctx, { node: b.node, path: coordinatorPath(b.brokerId) }, msg);
        if (!isFailure(r) && r.errorCode === ErrorCode.NONE) groups.push(...r.groups);
      }
      ctx.reply({ type: 'Groups', errorCode: ErrorCode.NONE, groups: groups.sort((a, b) => a.groupId.localeCompare(b.groupId)) });
    },
    async FenceProducers(s, m, ctx) {
      const producers: { transactionalId: string; errorCode: number; errorMessage: string | null; producerId: number; producerEpoch: number }[] = [];
      const deadline = ctx.clock.now() + s.timeoutMs;
      for (const transactionalId of [...new Set(m.transactionalIds)]) {
        // as Kafka's FenceProducersHandler: no producer id or epoch, so the coordinator bumps the
        // epoch whoever holds it; CONCURRENT_TRANSACTIONS (its transaction being aborted) is retried
        const msg: TxnCoordinatorMsg = { type: 'InitProducerId', transactionalId, transactionTimeoutMs: m.transactionTimeoutMs ?? s.config.requestTimeoutMs, producerId: -1, producerEpoch: -1, version: 5 };
        let r: TxnCoordinatorReply | Failure;
        for (;;) {
          r = await askCoordinatorOf<TxnCoordinatorReply>(s, ctx, transactionalId, 'transaction', msg, (x) => x.errorCode);
          if (isFailure(r) || r.errorCode !== ErrorCode.CONCURRENT_TRANSACTIONS || ctx.clock.now() >= deadline) break;
          await new Promise((res) => setTimeout(res, s.config.retryBackoffMs));
        }
        if (isFailure(r)) producers.push({ transactionalId, errorCode: r.errorCode, errorMessage: r.message, producerId: -1, producerEpoch: -1 });
        else producers.push({ transactionalId, errorCode: r.errorCode, errorMessage: r.errorCode === ErrorCode.NONE ? null : (r.errorMessage ?? null), producerId: r.producerId ?? -1, producerEpoch: r.producerEpoch ?? -1 });
      }
      ctx.reply({ type: 'FencedProducers', errorCode: ErrorCode.NONE, producers });
    },
    async DescribeTransactions(s, m, ctx) {
      const transactions: (TransactionView & { coordinatorId: number })[] = [];
      for (const id of m.transactionalIds) {
        const msg: TxnCoordinatorMsg = { type: 'DescribeTransactions', transactionalIds: [id] };
        let coordinatorId = -1;
        const r = await askCoordinatorOf<DescribeTransactionsResult>(s, ctx, id, 'transaction', msg, (x) => x.transactions[0]?.errorCode ?? x.errorCode, (b) => (coordinatorId = b));
        const view = isFailure(r) ? transactionRefused(id, r.errorCode) : (r.transactions[0] ?? transactionRefused(id, r.errorCode));
        transactions.push({ ...view, coordinatorId });
      }
      ctx.reply({ type: 'DescribedTransactions', errorCode: ErrorCode.NONE, transactions });
    },
    async ListTransactions(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'Transactions', md.errorCode, md.message);
      const msg: TxnCoordinatorMsg = { type: 'ListTransactions', states: m.states, producerIds: m.producerIds, durationMs: m.durationMs, transactionalIdPattern: m.transactionalIdPattern ?? null };
      const transactions: { transactionalId: string; producerId: number; state: string; coordinatorId: number }[] = [];
      let unknownStateFilters: string[] = [];
      for (const b of md.brokers.filter((x) => !x.fenced)) {
        const r = await listTransactionsOf(s, ctx, b, msg);
        if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
          const why = isFailure(r) ? r.message : `${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}`;
          return fail(ctx, 'Transactions', r.errorCode, `broker ${b.brokerId} did not list its transactions: ${why}`);
        }
        unknownStateFilters = r.unknownStateFilters;
        for (const t of r.transactions) transactions.push({ ...t, coordinatorId: b.brokerId });
      }
      transactions.sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0));
      ctx.reply({ type: 'Transactions', errorCode: ErrorCode.NONE, unknownStateFilters, transactions });
    },
    async DescribeProducers(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'Producers', md.errorCode, md.message);
      if (!s.metadata.hasTopic(m.topic)) return fail(ctx, 'Producers', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown topic ${m.topic}`);
      const named = m.brokerId ?? null;
      const namedRef = named === null ? null : s.metadata.brokerRef<BrokerMsg>(named);
      if (named !== null && !namedRef) return fail(ctx, 'Producers', ErrorCode.BROKER_NOT_AVAILABLE, `broker ${named} is not registered in the cluster`);
      const count = s.metadata.partitionCount(m.topic);
      const partitions = m.partitions ?? s.metadata.partitions(m.topic).map((p) => p.partition);
      const out = await Promise.all(
        partitions.map(async (partition) => {
          const leaderId = s.metadata.leaderId(m.topic, partition);
          const answer = (errorCode: number, brokerId: number, producers: ActiveProducer[] = []) => ({ partition, errorCode, leaderId, brokerId, producers });
          if (!Number.isInteger(partition) || partition < 0 || partition >= count) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1);
          const asked = namedRef ? { brokerId: named!, node: namedRef.node, leaderEpoch: -1 } : s.metadata.leaderOf(m.topic, partition);
          if (!asked) return answer(ErrorCode.LEADER_NOT_AVAILABLE, -1);
          const r = await askCounted<ProducersDescription>(s, ctx, s.metadata.replicaRef<ReplicaMsg>(asked, m.topic, partition), { type: 'DescribeProducers' });
          if (isFailure(r)) return answer(r.reason === 'unknown-actor' ? ErrorCode.NOT_LEADER_OR_FOLLOWER : r.errorCode, asked.brokerId);
          return answer(r.errorCode, asked.brokerId, r.producers);
        }),
      );
      ctx.reply({ type: 'Producers', errorCode: ErrorCode.NONE, partitions: out });
    },
    async AbortTransaction(s, m, ctx) {
      const marker: TxnMarkerEntry = { producerId: m.producerId, producerEpoch: m.producerEpoch, coordinatorEpoch: m.coordinatorEpoch, commit: false, topics: [{ name: m.topic, partitions: [m.partition] }] };
      let last: { errorCode: number; errorMessage: string } = { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, errorMessage: `${m.topic}-${m.partition} has no leader` };
      // as Kafka's admin: a leader that moved is looked up again, a few times
      for (let attempt = 0; attempt < LEADER_ATTEMPTS; attempt++) {
        if (attempt > 0) await new Promise<void>((res) => ctx.clock.setTimeout(res, LEADER_RETRY_BACKOFF_MS));
        const md = await refresh(s, ctx);
        if (isFailure(md)) return fail(ctx, 'TransactionAborted', md.errorCode, md.message);
        if (!s.metadata.hasTopic(m.topic) || m.partition >= s.metadata.partitionCount(m.topic)) {
          return fail(ctx, 'TransactionAborted', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown partition ${m.topic}-${m.partition}`);
        }
        const leader = s.metadata.leaderId(m.topic, m.partition);
        const ref = leader < 0 ? null : s.metadata.brokerRef<BrokerMsg>(leader);
        if (!ref) continue;
        const r = await askCounted<WriteTxnMarkersResponse>(s, ctx, ref, { type: 'WriteTxnMarkers', markers: [marker] });
        const result = isFailure(r) ? { errorCode: r.errorCode, errorMessage: r.message } : r.markers[0]?.topics[0]?.partitions[0];
        if (!result) return fail(ctx, 'TransactionAborted', ErrorCode.UNKNOWN_SERVER_ERROR, `broker ${leader} gave no answer for ${m.topic}-${m.partition}`);
        if (result.errorCode === ErrorCode.NONE) return ctx.reply({ type: 'TransactionAborted', errorCode: ErrorCode.NONE });
        last = { errorCode: result.errorCode, errorMessage: `broker ${leader}: ${result.errorMessage ?? errorName(result.errorCode)}` };
        if (!ABORT_RETRIABLE.has(result.errorCode)) break;
      }
      fail(ctx, 'TransactionAborted', last.errorCode, last.errorMessage);
    },
    async DescribeGroups(s, m, ctx) {
      const out = [];
      for (const g of m.groups) {
        let coordinatorId = -1;
        const msg: CoordinatorMsg = { type: 'DescribeGroups', groups: [g] };
        const r = await askCoordinatorOf<DescribeGroupsResponse>(s, ctx, g, 'group', msg, groupAnswerCode, (b) => (coordinatorId = b));
        if (isFailure(r)) out.push({ groupId: g, errorCode: r.errorCode, errorMessage: r.message, state: 'Dead', protocolType: '', protocolName: '', generationId: -1, leader: '', members: [], coordinatorId });
        else out.push(...r.groups.map((x) => ({ ...x, coordinatorId })));
      }
      ctx.reply({ type: 'DescribedGroups', errorCode: ErrorCode.NONE, groups: out });
    },
    async DescribeConsumerGroups(s, m, ctx) {
      const out = [];
      for (const g of m.groups) {
        let coordinatorId = -1;
        const msg: CoordinatorMsg = { type: 'ConsumerGroupDescribe', groups: [g] };
        const r = await askCoordinatorOf<ConsumerGroupDescribeResponse>(s, ctx, g, 'group', msg, groupAnswerCode, (b) => (coordinatorId = b));
        const found = isFailure(r) ? undefined : r.groups[0];
        out.push({ ...(found ?? { groupId: g, errorCode: r.errorCode, errorMessage: isFailure(r) ? r.message : null, groupState: 'Dead', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [] }), coordinatorId });
      }
      ctx.reply({ type: 'DescribedConsumerGroups', errorCode: ErrorCode.NONE, groups: out });
    },
    async DescribeShareGroups(s, m, ctx) {
      const out = [];
      for (const g of m.groups) {
        let coordinatorId = -1;
        const msg: CoordinatorMsg = { type: 'ShareGroupDescribe', groups: [g] };
        const r = await askCoordinatorOf<ShareGroupDescribeResponse>(s, ctx, g, 'group', msg, groupAnswerCode, (b) => (coordinatorId = b));
        const found = isFailure(r) ? undefined : r.groups[0];
        const described = found ?? { groupId: g, errorCode: r.errorCode, errorMessage: isFailure(r) ? r.message : null, groupState: 'Dead', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [] };
        out.push({ ...described, coordinatorId });
      }
      ctx.reply({ type: 'DescribedShareGroups', errorCode: ErrorCode.NONE, groups: out });
    },
    async ListShareGroupOffsets(s, m, ctx) {
      if (m.topics !== null) {
        const md = await refresh(s, ctx);
        if (isFailure(md)) return fail(ctx, 'ShareGroupOffsets', md.errorCode, md.message);
        const missing = m.topics.filter((t) => !s.metadata.hasTopic(t));
        if (missing.length > 0) return fail(ctx, 'ShareGroupOffsets', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown topic(s): ${missing.join(', ')}`);
      }
      const topics = m.topics === null ? null : [...new Set(m.topics)].map((topic) => ({ topic, partitions: null }));
      const r = await describeShareGroupOffsets(shareOffsetsEnv(s, ctx), m.groupId, topics);
      ctx.reply({ type: 'ShareGroupOffsets', ...r });
    },
    async AlterShareGroupOffsets(s, m, ctx) {
      const r = await alterShareGroupOffsets(shareOffsetsEnv(s, ctx), m.groupId, m.topics);
      ctx.reply({ type: 'ShareGroupOffsetsAltered', ...r });
    },
    async DeleteShareGroupOffsets(s, m, ctx) {
      const r = await deleteShareGroupOffsets(shareOffsetsEnv(s, ctx), m.groupId, m.topics);
      ctx.reply({ type: 'ShareGroupOffsetsDeleted', ...r });
    },
    async DeleteGroups(s, m, ctx) {
      const out = [];
      for (const g of m.groups) {
        const r = await askCoordinator<DeleteGroupsResponse>(s, ctx, g, { type: 'DeleteGroups', groups: [g] });
        out.push(isFailure(r) ? { groupId: g, errorCode: r.errorCode } : (r.groups[0] ?? { groupId: g, errorCode: r.errorCode }));
      }
      ctx.reply({ type: 'DeletedGroups', errorCode: ErrorCode.NONE, groups: out });
    },
    async RemoveMembers(s, m, ctx) {
      let members = m.members;
      if (members === null) {
        // every member: the classic group's, else the consumer group's (both protocols' members)
        const classic = await askCoordinator<DescribeGroupsResponse>(s, ctx, m.groupId, { type: 'DescribeGroups', groups: [m.groupId] });
        if (isFailure(classic)) return fail(ctx, 'MembersRemoved', classic.errorCode, classic.message);
        const g = classic.groups[0];
        if (g && g.errorCode === ErrorCode.NONE) members = g.members.map((x) => ({ memberId: x.memberId, groupInstanceId: x.groupInstanceId ?? null }));
        else {
          const consumer = await askCoordinator<ConsumerGroupDescribeResponse>(s, ctx, m.groupId, { type: 'ConsumerGroupDescribe', groups: [m.groupId] });
          if (isFailure(consumer)) return fail(ctx, 'MembersRemoved', consumer.errorCode, consumer.message);
          const c = consumer.groups[0];
          if (!c || c.errorCode !== ErrorCode.NONE) return fail(ctx, 'MembersRemoved', c?.errorCode ?? ErrorCode.GROUP_ID_NOT_FOUND, c?.errorMessage ?? `Group ${m.groupId} not found.`);
          members = c.members.map((x) => ({ memberId: x.memberId, groupInstanceId: x.instanceId ?? null }));
        }
        if (members.length === 0) return fail(ctx, 'MembersRemoved', ErrorCode.INVALID_REQUEST, `group ${m.groupId} has no members to remove`);
      }
      const reason = m.reason ?? 'member was removed by an admin';
      const r = await askCoordinator<LeaveGroupResponse>(s, ctx, m.groupId, { type: 'LeaveGroup', groupId: m.groupId, members: members.map((x) => ({ ...x, reason })) });
      if (isFailure(r)) return fail(ctx, 'MembersRemoved', r.errorCode, r.message);
      // without member errors the code is the group's
      if (!r.memberErrors) return fail(ctx, 'MembersRemoved', r.errorCode, r.errorMessage ?? `LeaveGroup for group ${m.groupId} failed`);
      ctx.reply({ type: 'MembersRemoved', errorCode: ErrorCode.NONE, members: members.map((x, i) => ({ ...x, errorCode: r.memberErrors![i] ?? ErrorCode.UNKNOWN_SERVER_ERROR })) });
    },
    async DeleteOffsets(s, m, ctx) {
      const byTopic = new Map<string, number[]>();
      for (const p of m.partitions) {
        const list = byTopic.get(p.topic) ?? [];
        if (!list.includes(p.partition)) list.push(p.partition);
        byTopic.set(p.topic, list);
      }
      const topics = [...byTopic].map(([name, partitions]) => ({ name, partitions }));
      const r = await askCoordinator<OffsetDeleteResponse>(s, ctx, m.groupId, { type: 'OffsetDelete', groupId: m.groupId, topics });
      if (isFailure(r)) return fail(ctx, 'OffsetsDeleted', r.errorCode, r.message);
      const partitions = r.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, errorCode: p.errorCode })));
      ctx.reply({ type: 'OffsetsDeleted', errorCode: r.errorCode, partitions });
    },
    async FetchOffsets(s, m, ctx) {
      await refresh(s, ctx);
      const topics = m.topics ? m.topics.map((t) => ({ name: t, partitions: s.metadata.partitions(t).map((p) => p.partition) })) : null;
      const r = await askCoordinator<OffsetFetchResponse>(s, ctx, m.groupId, { type: 'OffsetFetch', groupId: m.groupId, topics });
      if (isFailure(r)) return fail(ctx, 'Offsets', r.errorCode, r.message);
      ctx.reply({ type: 'Offsets', errorCode: r.errorCode, topics: r.topics });
    },
    async ResetOffsets(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'OffsetsReset', md.errorCode, md.message);
      if (!s.metadata.hasTopic(m.topic)) return fail(ctx, 'OffsetsReset', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown topic ${m.topic}`);
      let partitions: { partition: number; offset: number }[];
      if (Array.isArray(m.to)) partitions = m.to;
      else {
        const offs = await partitionOffsets(s, ctx, m.topic, m.to === 'earliest' ? EARLIEST_TIMESTAMP : LATEST_TIMESTAMP);
        if (isFailure(offs)) return fail(ctx, 'OffsetsReset', offs.errorCode, offs.message);
        partitions = [...offs].map(([partition, offset]) => ({ partition, offset }));
      }
      // Kafka allows this only for a group with no active members: a simple commit outside generations
      const r = await askCoordinator<OffsetCommitResponse>(s, ctx, m.groupId, {
        type: 'OffsetCommit',
        groupId: m.groupId,
        generationId: -1,
        memberId: '',
        topics: [{ name: m.topic, partitions }],
      });
      if (isFailure(r)) return fail(ctx, 'OffsetsReset', r.errorCode, r.message);
      const perPartition = r.topics.flatMap((t) => t.partitions);
      const bad = perPartition.find((p) => p.errorCode !== ErrorCode.NONE);
      const code = r.errorCode !== ErrorCode.NONE ? r.errorCode : (bad?.errorCode ?? ErrorCode.NONE);
      ctx.reply({ type: 'OffsetsReset', errorCode: code, errorMessage: code === ErrorCode.NONE ? undefined : `${errorName(code)}: the group must have no active members to reset its offsets`, partitions });
    },
    async FetchTopicOffsets(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'TopicOffsets', md.errorCode, md.message);
      if (!s.metadata.hasTopic(m.topic)) return fail(ctx, 'TopicOffsets', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown topic ${m.topic}`);
      const [lows, highs] = await Promise.all([partitionOffsets(s, ctx, m.topic, EARLIEST_TIMESTAMP), partitionOffsets(s, ctx, m.topic, LATEST_TIMESTAMP)]);
      if (isFailure(lows)) return fail(ctx, 'TopicOffsets', lows.errorCode, lows.message);
      if (isFailure(highs)) return fail(ctx, 'TopicOffsets', highs.errorCode, highs.message);
      const partitions = [...highs].map(([partition, high]) => ({ partition, low: lows.get(partition) ?? 0, high })).sort((a, b) => a.partition - b.partition);
      ctx.reply({ type: 'TopicOffsets', errorCode: ErrorCode.NONE, partitions });
    },
    async ListOffsets(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'Offsets', md.errorCode, md.message);
      const answers = await askPartitionLeaders<ListOffsetsResult>(s, ctx, m.partitions, () => ({
        type: 'ListOffsets',
        timestamp: m.timestamp,
        currentLeaderEpoch: -1,
        isolationLevel: m.isolationLevel,
      }));
      const partitions = m.partitions.map(({ topic, partition }, i) => {
        const a = answers[i]!;
        if (!('type' in a) || a.errorCode !== ErrorCode.NONE) return { topic, partition, errorCode: a.errorCode, offset: -1, timestamp: -1, leaderEpoch: -1 };
        return { topic, partition, errorCode: ErrorCode.NONE, offset: a.offset, timestamp: a.timestamp, leaderEpoch: a.offset < 0 ? -1 : a.leaderEpoch };
      });
      ctx.reply({ type: 'Offsets', errorCode: ErrorCode.NONE, partitions });
    },
    async DeleteRecords(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'RecordsDeleted', md.errorCode, md.message);
      const answers = await askPartitionLeaders<DeleteRecordsResult>(s, ctx, m.partitions, (i) => ({ type: 'DeleteRecords', offset: m.partitions[i]!.offset, timeoutMs: deleteWaitMs(s.timeoutMs) }));
      const partitions = m.partitions.map(({ topic, partition }, i) => {
        const a = answers[i]!;
        if (a.errorCode !== ErrorCode.NONE) return { topic, partition, errorCode: a.errorCode, errorMessage: a.errorMessage ?? errorName(a.errorCode), lowWatermark: -1 };
        return { topic, partition, errorCode: ErrorCode.NONE, errorMessage: null, lowWatermark: (a as DeleteRecordsResult).lowWatermark };
      });
      ctx.reply({ type: 'RecordsDeleted', errorCode: ErrorCode.NONE, partitions });
    },
    async GroupLag(s, m, ctx) {
      await refresh(s, ctx);
      const committed = await askCoordinator<OffsetFetchResponse>(s, ctx, m.groupId, { type: 'OffsetFetch', groupId: m.groupId, topics: null });
      if (isFailure(committed)) return fail(ctx, 'Lag', committed.errorCode, committed.message);
      const topics = m.topics ?? [...new Set(committed.topics.map((t) => t.name))];
      const out = [];
      for (const topic of topics) {
        const ends = await partitionOffsets(s, ctx, topic, LATEST_TIMESTAMP);
        if (isFailure(ends)) return fail(ctx, 'Lag', ends.errorCode, ends.message);
        for (const [partition, end] of ends) {
          const c = committed.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.offset ?? -1;
          out.push({ topic, partition, committed: c, logEndOffset: end, lag: c < 0 ? end : Math.max(0, end - c) });
        }
      }
      ctx.reply({ type: 'Lag', errorCode: ErrorCode.NONE, partitions: out });
    },
    async DescribeLogDirs(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'LogDirs', md.errorCode, md.message);
      const ids = m.brokers ? [...new Set(m.brokers)] : md.brokers.filter((b) => !b.fenced).map((b) => b.brokerId).sort((a, b) => a - b);
      // every broker at once: each answers for its own log dir
      const brokers = await Promise.all(
        ids.map(async (broker) => {
          const answer = (errorCode: number, errorMessage: string | null, logDirs: LogDirDescription[] = []) => ({ broker, errorCode, errorMessage, logDirs });
          const ref = s.metadata.brokerRef<BrokerMsg>(broker);
          if (!ref) return answer(ErrorCode.BROKER_NOT_AVAILABLE, `broker ${broker} is not registered in the cluster`);
          const r = await askCounted<LogDirsDescription>(s, ctx, ref, { type: 'DescribeLogDirs', topics: m.topics });
          if (isFailure(r)) return answer(r.errorCode, `broker ${broker}: ${r.message}`);
          return answer(r.errorCode, r.errorCode === ErrorCode.NONE ? null : `broker ${broker}: ${errorName(r.errorCode)}`, r.logDirs);
        }),
      );
      ctx.reply({ type: 'LogDirs', errorCode: ErrorCode.NONE, brokers });
    },
    async AlterReplicaLogDirs(s, m, ctx) {
      const md = await refresh(s, ctx);
      if (isFailure(md)) return fail(ctx, 'ReplicaLogDirsAltered', md.errorCode, md.message);
      const byBroker = new Map<number, typeof m.replicas>();
      for (const r of m.replicas) {
        let list = byBroker.get(r.broker);
        if (!list) byBroker.set(r.broker, (list = []));
        list.push(r);
      }
      // every broker at once: each moves its own replicas
      const answers = await Promise.all(
        [...byBroker].map(async ([broker, replicas]) => {
          const each = (errorCode: number, errorMessage: string | null) => replicas.map((r) => ({ ...r, errorCode, errorMessage }));
          const ref = s.metadata.brokerRef<BrokerMsg>(broker);
          if (!ref) return each(ErrorCode.BROKER_NOT_AVAILABLE, `broker ${broker} is not registered in the cluster`);
          const dirs = new Map<string, Map<string, number[]>>();
          for (const r of replicas) {
            const topics = dirs.get(r.logDir) ?? new Map<string, number[]>();
            dirs.set(r.logDir, topics);
            topics.set(r.topic, [...(topics.get(r.topic) ?? []), r.partition]);
          }
          const msg: BrokerMsg = { type: 'AlterReplicaLogDirs', dirs: [...dirs].map(([logDir, topics]) => ({ logDir, topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })) })) };
          const r = await askCounted<ReplicaLogDirsAltered>(s, ctx, ref, msg);
          if (isFailure(r)) return each(r.errorCode, `broker ${broker}: ${r.message}`);
          if (r.errorCode !== ErrorCode.NONE) return each(r.errorCode, `broker ${broker}: ${errorName(r.errorCode)}`);
          return replicas.map((rep) => {
            const res = r.results.find((x) => x.topic === rep.topic && x.partition === rep.partition && x.logDir === rep.logDir);
            return { ...rep, errorCode: res?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: res?.errorMessage ?? null };
          });
        }),
      );
      const done = answers.flat();
      // in the order asked
      const results = m.replicas.map((r) => done.find((d) => d.broker === r.broker && d.topic === r.topic && d.partition === r.partition && d.logDir === r.logDir)!);
      ctx.reply({ type: 'ReplicaLogDirsAltered', errorCode: ErrorCode.NONE, results });
    },
  },
});
