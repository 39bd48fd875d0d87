/**
 * The consumer: a member of a consumer group. It finds the group's coordinator, joins
 * (JoinGroup -> SyncGroup; as leader it runs the assignor), heartbeats, fetches its partitions
 * from their leaders with long polls (with client.rack, from the replica a leader names instead,
 * KIP-392, until metadata.max.age.ms or an error), hands records out through Poll, and commits
 * offsets (automatically every auto.commit.interval.ms, on revoke, on close, or when asked).
 * Transaction markers are never handed out; with isolation.level read_committed fetches stop at
 * the last stable offset and the records of aborted transactions are dropped (see
 * src/client/fetched-batches.ts); either way positions and processed offsets move past them.
 *
 * With group.protocol consumer (KIP-848) the group membership is group-member.ts's instead: the
 * coordinator assigns, the consumer heartbeats with ConsumerGroupHeartbeat and reconciles what it
 * is given; fetching, polling and committing are the same.
 *
 * Owned state: phase (Idle, FindingCoordinator, Joining, Syncing, Stable, Closed), member id,
 * generation, coordinator ref; subscription; per assigned partition its position, fetch
 * position, buffered records, pause flag, preferred read replica; offsets processed by the
 * application and last committed; the parked Poll; metadata cache; the fetches in flight (when
 * each went out) and the metrics' samples; with enable.metrics.push, its telemetry push loop
 * (KIP-714, src/client/telemetry-loop.ts: the subscription, what was last pushed, the timer, the
 * clientInstanceId calls waiting for the id).
 * `epoch` increases on every rebalance so answers to requests of an older assignment are dropped.
 * A rebalance the group asks for while the application has records out waits for its next poll
 * (rejoinReason), and its JoinGroup for the commit before the revocation (joinAfterCommit).
 * Handles: Subscribe, Poll, Wakeup, Commit, Seek, Pause, Resume, Close, DescribeConsumer, Metrics
 * (Kafka's consumer-fetch-manager-metrics and part of consumer-coordinator-metrics,
 * consumer-metrics.ts), GetClientInstanceId (answered once the id is known, telemetry stopped, or
 * its timeout passed), and internal
 * Tick plus the results of its own asks (with group.protocol consumer: GroupCoordinatorResult,
 * GroupHeartbeatResult, RevocationCommitResult, AssignedCommittedResult, handled in group-member.ts),
 * TelemetryTick, TelemetryAnswer and ClientInstanceIdDeadline. Close is answered once it left
 * its group and, with telemetry, after its terminating push.
 * Emits: FindCoordinator/Metadata/Fetch to brokers, ListOffsets to partition leaders,
 * JoinGroup/SyncGroup/Heartbeat/LeaveGroup/OffsetCommit/OffsetFetch to the coordinator (with
 * group.protocol consumer ConsumerGroupHeartbeat instead of the first four),
 * GetTelemetrySubscriptions and PushTelemetry to a broker (its metrics under KIP-714's names, with
 * group_id, group_instance_id, group_member_id and client_rack as resource attributes),
 * ConsumerEvent to its listener, PollResult, CommitDone, ConsumerMetrics and ClientInstanceId to callers.
 */
import { MetadataCache, type BootstrapBroker } from '../../src/client/metadata-cache.js';
import { ErrorCode, errorName } from '../../src/protocol/errors.js';
import { abortedTransactionsOf, acceptFetched, endOffsetFor, passOver, settle, type BufferedBatch, type FetchedPartition } from '../../src/client/fetched-batches.js';
import { decodeRecordBatch } from '../../src/protocol/record-batch.js';
import type { BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Failure } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { BrokerMsg, FetchResponse, MetadataResponse } from '../broker/messages.js';
import { getAssignor, type AssignorMember } from '../group-coordinator/assignors/index.js';
import {
  CONSUMER_PROTOCOL_TYPE,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  flattenTopicPartitions,
  groupByTopic,
} from '../group-coordinator/consumer-protocol.js';
import {
  coordinatorPath,
  type CoordinatorMsg,
  type FindCoordinatorResponse,
  type JoinGroupResponse,
  type OffsetCommitResponse,
  type OffsetFetchResponse,
  type SimpleResponse,
  type SyncGroupResponse,
} from '../group-coordinator/messages.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, type ListOffsetsResult, type ReplicaMsg } from '../partition-replica/messages.js';
import { parseConsumerConfig, type ConsumerConfig } from './consumer-config.js';
import { ConsumerMetrics, type PartitionLag } from './consumer-metrics.js';
import {
  memberClose,
  memberLeave,
  memberOnMetadata,
  memberOnPoll,
  memberStateOf,
  memberSubscribe,
  memberTick,
  newGroupMember,
  onAssignedCommittedResult,
  onGroupCoordinatorResult,
  onGroupHeartbeatResult,
  onRevocationCommitResult,
  type ConsumerOps,
  type GroupMember,
} from './group-member.js';
import {
  closeTelemetry,
  describeTelemetry,
  startTelemetry,
  telemetryHandlers,
  whenTelemetryClosed,
  type TelemetryHost,
  type TelemetryLoop,
} from '../../src/client/telemetry-loop.js';
import type { ConsumedRecord, ConsumerDescription, ConsumerEvent, ConsumerMetricsReply, ConsumerMsg, ConsumerPhase, PolledBatch, PollResult, TopicPartitionOffset } from './messages.js';

export interface ConsumerArgs {
  bootstrap: BootstrapBroker[];
  /** Kafka's consumer config names; group.id is required. */
  config: Record<string, unknown>;
  /** Receives { type: 'ConsumerEvent', event } for group joins, rebalances, commits, crashes. */
  listener?: ActorRef;
}

/**
 * An assigned partition. Its fetch state (position, fetch position, buffered batches as bytes,
 * ranges passed over: markers, aborted transactions) is src/client/fetched-batches.ts's; the next
 * fetch starts below max.partition.fetch.bytes of buffered bytes.
 */
export interface Assigned extends FetchedPartition<ConsumedRecord> {
  topic: string;
  partition: number;
  /** The partition's end as this consumer sees it: the high watermark (read_committed: the last stable offset). */
  highWatermark: number;
  paused: boolean;
  resetting: boolean;
  /** The replica the leader named to fetch from (client.rack, KIP-392), until `untilMs`. */
  readReplica: { brokerId: number; untilMs: number } | null;
  /** Its lag metrics, from the first records the application took of it in this assignment. */
  lag: PartitionLag | null;
}

interface CommitWaiter {
  token: ReplyToken | undefined;
}

export interface ConsumerState {
  config: ConsumerConfig;
  args: ConsumerArgs;
  phase: ConsumerPhase;
  metadata: MetadataCache;
  metadataInFlight: boolean;
  topics: string[];
  pattern: RegExp | null;
  coordinator: ActorRef<CoordinatorMsg> | null;
  memberId: string;
  generationId: number;
  leaderId: string;
  protocol: string;
  epoch: number;
  assigned: Map<string, Assigned>;
  /** Brokers with a fetch of ours out, and when it went out. */
  fetching: Map<number, number>;
  pendingPoll: { token: ReplyToken | undefined; deadline: number; maxRecords: number } | null;
  processed: Map<string, number>;
  committed: Map<string, number>;
  pendingSeeks: Map<string, number>;
  lastPollAt: number;
  nextHeartbeatAt: number;
  nextAutoCommitAt: number;
  retryAt: number;
  heartbeatInFlight: boolean;
  commitInFlight: boolean;
  commitQueue: { offsets: TopicPartitionOffset[] | null; waiter: CommitWaiter }[];
  rotation: number;
  crash: { errorCode: number; message: string } | null;
  /** Set by Close (undefined when nobody waits for the answer); null when not closing. */
  closeToken: ReplyToken | undefined | null;
  /** Closing: until when the final commit is tried again after retriable coordinator errors. */
  closeDeadline: number;
  leaving: boolean;
  /** OffsetFetch for the new assignment is out: positions come from it. */
  committedPending: boolean;
  /** Partition counts of the subscribed topics when this generation was joined ("" when unknown). */
  joinedTopology: string;
  nextMissingTopicRefreshAt: number;
  /** With group.protocol consumer: the KIP-848 membership (group-member.ts); null with classic. */
  member: GroupMember | null;
  /** The last poll answer handed records out and no poll has come since (the application is processing them). */
  recordsOutstanding: boolean;
  /** Classic protocol: why the group wants this member to join again, while that waits for the next poll (records are out); null when not waiting. */
  rejoinReason: string | null;
  /** Classic protocol: revoked and committing; the JoinGroup goes once the commits out are answered. */
  joinAfterCommit: boolean;
  metrics: ConsumerMetrics;
  /** enable.metrics.push: the telemetry push loop (null without). */
  telemetry: TelemetryLoop | null;
}

const TICK_TIMER = 'tick';
const CLOSE_COMMIT_TIMER = 'close-commit';
const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;
const RETRY_COORDINATOR = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NETWORK_EXCEPTION, ErrorCode.REQUEST_TIMED_OUT]);

function emit(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, event: ConsumerEvent): void {
  if (s.args.listener) ctx.send(s.args.listener, { type: 'ConsumerEvent', event } as never);
}

function failureCode(r: Failure): number {
  return r.reason === 'unknown-actor' || r.reason === 'actor-stopped' ? ErrorCode.NOT_COORDINATOR : r.errorCode;
}

function refreshMetadata(s: ConsumerState, ctx: BaseContext<ConsumerMsg>): void {
  if (s.metadataInFlight) return;
  s.metadataInFlight = true;
  void ctx.ask<MetadataResponse>(s.metadata.nextBroker(), { type: 'Metadata' }, { timeoutMs: s.config.requestTimeoutMs }).then((r) =>
    ctx.send(ctx.self, { type: 'MetadataResult', metadata: isFailure(r) ? null : r.metadata }),
  );
}

/** The topics the subscription names now (a pattern is matched against metadata). */
function subscribedTopics(s: ConsumerState): string[] {
  if (!s.pattern) return [...s.topics].sort();
  const md = s.metadata.metadata;
  const matched = (md?.topics ?? []).filter((t) => !t.internal && s.pattern!.test(t.name)).map((t) => t.name);
  return [...new Set([...s.topics, ...matched])].sort();
}

/** The subscribed topics with their partition counts, as a comparable string. */
function topologyOf(s: ConsumerState, topics: string[]): string {
  return topics.map((t) => `${t}:${s.metadata.partitionCount(t)}`).join(',');
}

/** Asks a broker where the group's coordinator is (both protocols). */
function askCoordinator(s: ConsumerState, ctx: BaseContext<ConsumerMsg>): Promise<FindCoordinatorResponse | Failure> {
  return ctx.ask<FindCoordinatorResponse>(s.metadata.nextBroker<BrokerMsg>(), { type: 'FindCoordinator', key: s.config.groupId, keyType: 'group' } as never, { timeoutMs: s.config.requestTimeoutMs });
}

function findCoordinator(s: ConsumerState, ctx: BaseContext<ConsumerMsg>): void {
  s.phase = 'FindingCoordinator';
  s.coordinator = null;
  void askCoordinator(s, ctx).then((response) => ctx.send(ctx.self, { type: 'CoordinatorResult', response }));
}

function retryLater(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, phase: ConsumerPhase): void {
  s.phase = phase;
  s.retryAt = ctx.clock.now() + s.config.retryBackoffMs;
}

function join(s: ConsumerState, ctx: BaseContext<ConsumerMsg>): void {
  if (!s.coordinator) {
    findCoordinator(s, ctx);
    return;
  }
  s.phase = 'Joining';
  s.joinAfterCommit = false;
  s.metrics.rebalanceStarted(ctx.clock.now());
  s.metrics.joinSent(ctx.clock.now());
  const epoch = s.epoch;
  const topics = subscribedTopics(s);
  s.joinedTopology = topologyOf(s, topics);
  const owned = groupByTopic([...s.assigned.values()].map((a) => ({ topic: a.topic, partition: a.partition })));
  const metadata = encodeSubscription({ topics, ownedPartitions: owned, generationId: s.generationId });
  void ctx
    .ask<JoinGroupResponse>(
      s.coordinator,
      {
        type: 'JoinGroup',
        groupId: s.config.groupId,
        sessionTimeoutMs: s.config.sessionTimeoutMs,
        rebalanceTimeoutMs: s.config.maxPollIntervalMs,
        memberId: s.memberId,
        groupInstanceId: instanceId(s),
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocols: s.config.assignmentStrategies.map((name) => ({ name, metadata })),
        clientId: s.config.clientId,
        requireKnownMemberId: true,
      },
      { timeoutMs: s.config.maxPollIntervalMs + s.config.requestTimeoutMs },
    )
    .then((response) => ctx.send(ctx.self, { type: 'JoinResult', response, epoch }));
}

/**
 * Revokes the current assignment (committing what was processed first) and rejoins, as Kafka's
 * consumer does inside poll() (onJoinPrepare): a member still in its generation (`stillMember`)
 * whose application has records out waits for its next poll, which reports what they processed
 * (Poll calls in here again), so that the commit before the revocation holds them; the JoinGroup
 * goes once that commit is answered, so the commit is taken under the generation it was made in
 * (a JoinGroup first could complete the rebalance before it). A member the group no longer knows
 * under its generation gives its partitions up at once.
 */
function rebalance(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, reason: string, stillMember = true): void {
  if (s.phase === 'Closed') return;
  if (stillMember && s.phase === 'Stable' && s.recordsOutstanding && s.assigned.size > 0) {
    if (s.rejoinReason === null) ctx.log.debug('rebalance waits for the next poll: records are out', { groupId: s.config.groupId, reason });
    s.rejoinReason ??= reason;
    return;
  }
  s.rejoinReason = null;
  emit(s, ctx, { kind: 'rebalancing', groupId: s.config.groupId, memberId: s.memberId, reason });
  const revoked = [...s.assigned.values()].map((a) => ({ topic: a.topic, partition: a.partition }));
  if (revoked.length > 0) {
    if (s.config.enableAutoCommit) commit(s, ctx, null, { token: undefined });
    emit(s, ctx, { kind: 'partitions.revoked', partitions: revoked });
  }
  s.epoch++;
  s.assigned.clear();
  s.fetching.clear();
  s.processed.clear();
  if (stillMember && s.commitInFlight && s.coordinator) {
    s.phase = 'Joining';
    s.joinAfterCommit = true;
    return;
  }
  join(s, ctx);
}

function leaderAssign(s: ConsumerState, r: JoinGroupResponse): { memberId: string; assignment: Uint8Array }[] {
  const assignor = getAssignor(r.protocolName ?? '') ?? getAssignor(s.config.assignmentStrategies[0]!)!;
  const members: AssignorMember[] = r.members.map((m) => {
    const sub = decodeSubscription(m.metadata);
    return {
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      topics: sub.topics,
      ownedPartitions: flattenTopicPartitions(sub.ownedPartitions),
      generation: sub.generationId,
    };
  });
  const perTopic = new Map<string, number>();
  for (const m of members) for (const t of m.topics) if (s.metadata.hasTopic(t)) perTopic.set(t, s.metadata.partitionCount(t));
  const result = assignor.assign(members, perTopic);
  return members.map((m) => ({ memberId: m.memberId, assignment: encodeAssignment({ partitions: groupByTopic(result.get(m.memberId) ?? []) }) }));
}

function onAssigned(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, assignment: Uint8Array): void {
  // metadata that came while the group was syncing changed the subscribed topics (one appeared,
  // or gained partitions): the assignment was made without it, and no later metadata need
  // come to show it (Kafka's leader rejoins when its metadata no longer matches its assignment's)
  if (topologyOf(s, subscribedTopics(s)) !== s.joinedTopology) {
    rebalance(s, ctx, 'the subscribed topics changed while the group was rebalancing');
    return;
  }
  const parts = flattenTopicPartitions(decodeAssignment(assignment).partitions);
  s.assigned.clear();
  for (const tp of parts) s.assigned.set(key(tp.topic, tp.partition), newAssigned(tp.topic, tp.partition));
  s.phase = 'Stable';
  s.nextHeartbeatAt = ctx.clock.now() + s.config.heartbeatIntervalMs;
  s.metrics.rebalanceCompleted(ctx.clock.now());
  emit(s, ctx, {
    kind: 'group.join',
    groupId: s.config.groupId,
    memberId: s.memberId,
    leaderId: s.leaderId,
    isLeader: s.leaderId === s.memberId,
    generationId: s.generationId,
    protocol: s.protocol,
    assignment: parts.map((p) => ({ ...p, offset: -1 })),
  });
  if (parts.length === 0) return;
  s.committedPending = true;
  const epoch = s.epoch;
  void ctx
    .ask<OffsetFetchResponse>(
      s.coordinator!,
      { type: 'OffsetFetch', groupId: s.config.groupId, topics: groupByTopic(parts).map((t) => ({ name: t.topic, partitions: t.partitions })) },
      { timeoutMs: s.config.requestTimeoutMs },
    )
    .then((response) => ctx.send(ctx.self, { type: 'CommittedResult', response, epoch }));
}

function setPosition(a: Assigned, offset: number): void {
  a.position = offset;
  a.fetchPosition = offset;
  a.buffer = [];
  a.bufferedBytes = 0;
  a.passed = null;
  a.resetting = false;
}

function resetOffset(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, a: Assigned): void {
  if (s.config.autoOffsetReset === 'none') {
    crash(s, ctx, ErrorCode.OFFSET_OUT_OF_RANGE, `no committed offset for ${a.topic}-${a.partition} and auto.offset.reset is none`);
    return;
  }
  const leader = s.metadata.leaderOf(a.topic, a.partition);
  if (!leader) {
    a.resetting = false;
    refreshMetadata(s, ctx);
    return;
  }
  a.resetting = true;
  const epoch = s.epoch;
  const timestamp = s.config.autoOffsetReset === 'earliest' ? EARLIEST_TIMESTAMP : LATEST_TIMESTAMP;
  const msg: ReplicaMsg = { type: 'ListOffsets', timestamp, currentLeaderEpoch: -1 };
  // read_committed starts a partition without committed offset at its last stable offset (latest)
  if (s.config.isolationLevel === 'read_committed') msg.isolationLevel = 'read_committed';
  void ctx
    .ask<ListOffsetsResult>(s.metadata.replicaRef<ReplicaMsg>(leader, a.topic, a.partition), msg, { timeoutMs: s.config.requestTimeoutMs })
    .then((response) => ctx.send(ctx.self, { type: 'ResetResult', topic: a.topic, partition: a.partition, response, epoch }));
}

/**
 * Another consumer joined with this one's group.instance.id: this one is a zombie and stops (as
 * Kafka's consumer throws FencedInstanceIdException), leaving the place to the newer one.
 */
function fenced(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, what: string): void {
  crash(s, ctx, ErrorCode.FENCED_INSTANCE_ID, `${what}: another consumer joined the group with group.instance.id ${s.config.groupInstanceId}`);
  s.memberId = '';
  s.phase = 'Idle';
}

function crash(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, errorCode: number, message: string): void {
  ctx.log.error('consumer crashed', { errorCode, message });
  s.crash = { errorCode, message };
  emit(s, ctx, { kind: 'crash', errorCode, message });
  answerPoll(s, ctx, true);
}

/** Sends one Fetch per leader broker for the partitions that need data. */
function maybeFetch(s: ConsumerState, ctx: BaseContext<ConsumerMsg>): void {
  if (s.phase !== 'Stable') return;
  const byLeader = new Map<number, Assigned[]>();
  for (const a of s.assigned.values()) {
    // prefetch: keep one fetch's worth ahead of what the application has taken
    if (a.paused || a.position === null || a.resetting || a.bufferedBytes >= s.config.maxPartitionFetchBytes) continue;
    const leader = s.metadata.leaderOf(a.topic, a.partition);
    if (!leader) {
      refreshMetadata(s, ctx);
      continue;
    }
    if (a.readReplica && (ctx.clock.now() >= a.readReplica.untilMs || !s.metadata.brokerRef(a.readReplica.brokerId))) a.readReplica = null;
    const from = a.readReplica?.brokerId ?? leader.brokerId;
    if (s.fetching.has(from)) continue;
    let list = byLeader.get(from);
    if (!list) byLeader.set(from, (list = []));
    list.push(a);
  }
  for (const [brokerId, parts] of byLeader) {
    const ref = s.metadata.brokerRef<BrokerMsg>(brokerId);
    if (!ref) continue;
    s.fetching.set(brokerId, ctx.clock.now());
    const epoch = s.epoch;
    void ctx
      .ask<FetchResponse>(
        ref,
        {
          type: 'Fetch',
          replicaId: -1,
          maxWaitMs: s.config.fetchMaxWaitMs,
          minBytes: s.config.fetchMinBytes,
          maxBytes: s.config.fetchMaxBytes,
          partitions: parts.map((a) => ({
            topic: a.topic,
            partition: a.partition,
            fetchOffset: a.fetchPosition,
            currentLeaderEpoch: -1,
            partitionMaxBytes: s.config.maxPartitionFetchBytes,
          })),
          ...(s.config.clientRack ? { clientRack: s.config.clientRack } : {}),
          ...(s.config.isolationLevel === 'read_committed' ? { isolationLevel: 'read_committed' as const } : {}),
        },
        { timeoutMs: s.config.fetchMaxWaitMs + s.config.requestTimeoutMs },
      )
      .then((response) => ctx.send(ctx.self, { type: 'FetchResult', brokerId, response, epoch }));
  }
}

/** Answers the parked Poll when records are buffered, its time is up, or `force`. */
function answerPoll(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, force = false): void {
  const p = s.pendingPoll;
  if (!p) return;
  if (s.crash) {
    s.pendingPoll = null;
    if (p.token) ctx.replyTo(p.token, { type: 'PollResult', errorCode: s.crash.errorCode, errorMessage: s.crash.message, batches: [] } satisfies PollResult);
    return;
  }
  const batches = takeRecords(s, ctx, p.maxRecords);
  if (s.crash) {
    answerPoll(s, ctx);
    return;
  }
  if (batches.length === 0 && !force && ctx.clock.now() < p.deadline) return;
  s.pendingPoll = null;
  s.metrics.pollEnded(ctx.clock.now());
  if (batches.length > 0) s.recordsOutstanding = true;
  if (p.token) ctx.replyTo(p.token, { type: 'PollResult', errorCode: ErrorCode.NONE, batches } satisfies PollResult);
  maybeFetch(s, ctx);
}

/** Decoding that skips the CRC (check.crcs=false). */
const NO_CRC_CHECK = Object.freeze({ checkCrc: false });

/** The records of a buffered batch from `minOffset` on (decoded now; throws CorruptRecordError). */
function decodeBuffered(b: BufferedBatch<ConsumedRecord>, checkCrcs: boolean): ConsumedRecord[] {
  const records: ConsumedRecord[] = decodeRecordBatch(b.bytes, 0, checkCrcs ? undefined : NO_CRC_CHECK).records;
  if (records.length === 0 || records[0]!.offset >= b.minOffset) return records;
  return records.filter((r) => r.offset >= b.minOffset);
}

/** Takes up to `max` buffered records, partitions in turn, advancing positions. */
function takeRecords(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, max: number): PolledBatch[] {
  const out: PolledBatch[] = [];
  const list = [...s.assigned.values()];
  if (list.length === 0) return out;
  let left = max;
  for (let i = 0; i < list.length && left > 0; i++) {
    const a = list[(s.rotation + i) % list.length]!;
    if (a.paused || a.buffer.length === 0) continue;
    let records: ConsumedRecord[] | null = null;
    let batchBytes = 0;
    while (left > 0 && a.buffer.length > 0) {
      const b = a.buffer[0]!;
      let decoded = b.records;
      if (!decoded) {
        try {
          decoded = decodeBuffered(b, s.config.checkCrcs);
        } catch (err) {
          a.buffer = [];
          a.bufferedBytes = 0;
          crash(s, ctx, ErrorCode.CORRUPT_MESSAGE, `${a.topic}-${a.partition}: ${(err as Error).message}`);
          break;
        }
        b.next = 0;
      }
      const n = Math.min(left, decoded.length - b.next);
      // the common case, a whole batch: its array as it is
      const part = n === decoded.length && b.next === 0 ? decoded : decoded.slice(b.next, b.next + n);
      if (records === null) records = part;
      else for (const r of part) records.push(r);
      b.next += n;
      left -= n;
      if (b.next >= decoded.length) {
        // a buffered batch usually waited long enough to be in the old generation: it never
        // points at the records of a whole batch, or every young-generation collection would
        // keep them (and everything they hold) alive until the next full collection
        b.records = null;
        a.buffer.shift();
        a.bufferedBytes -= b.bytes.length;
        batchBytes += b.bytes.length;
      } else {
        b.records = decoded;
      }
    }
    if (records === null || records.length === 0) continue;
    a.position = records[records.length - 1]!.offset + 1;
    // markers (and aborted transactions) right after the records handed out are passed over too
    if (a.passed !== null) a.position = passOver(a, a.position);
    const now = ctx.clock.now();
    a.lag ??= s.metrics.partitionLag(now);
    s.metrics.consumed(records.length, batchBytes, a.highWatermark >= 0 ? Math.max(0, a.highWatermark - a.position) : 0, a.lag, now);
    out.push({ topic: a.topic, partition: a.partition, highWatermark: a.highWatermark, records });
  }
  s.rotation++;
  return out;
}

/** Commits `offsets` (or everything processed and not yet committed). */
function commit(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, offsets: TopicPartitionOffset[] | null, waiter: CommitWaiter): void {
  // what to commit is decided now (a queued commit must not see a later, revoked state)
  const list =
    offsets ??
    [...s.processed]
      .filter(([k, off]) => s.committed.get(k) !== off)
      .map(([k, offset]) => {
        const [topic, partition] = k.split('\u0000') as [string, string];
        return { topic, partition: Number(partition), offset };
      });
  if (s.commitInFlight && list.length > 0) {
    s.commitQueue.push({ offsets: list, waiter });
    return;
  }
  if (list.length === 0) {
    if (waiter.token) ctx.replyTo(waiter.token, { type: 'CommitDone', errorCode: ErrorCode.NONE, offsets: [] });
    return;
  }
  if (!s.coordinator || s.generationId < 0 || (s.phase !== 'Stable' && s.phase !== 'Joining')) {
    if (waiter.token) {
      ctx.replyTo(waiter.token, {
        type: 'CommitDone',
        errorCode: ErrorCode.REBALANCE_IN_PROGRESS,
        errorMessage: 'the consumer is not a stable member of its group (rebalance in progress)',
        offsets: list,
      });
    }
    return;
  }
  s.commitInFlight = true;
  const tokens = waiter.token ? [waiter.token] : [];
  const sentAt = ctx.clock.now();
  void ctx
    .ask<OffsetCommitResponse>(
      s.coordinator,
      {
        type: 'OffsetCommit',
        groupId: s.config.groupId,
        generationId: s.generationId,
        memberId: s.memberId,
        groupInstanceId: instanceId(s),
        topics: groupByTopic(list).map((t) => ({
          name: t.topic,
          partitions: t.partitions.map((p) => ({ partition: p, offset: list.find((o) => o.topic === t.topic && o.partition === p)!.offset })),
        })),
      },
      { timeoutMs: s.config.requestTimeoutMs },
    )
    .then((response) => ctx.send(ctx.self, { type: 'CommitResult', response, offsets: list, tokens, sentAt }));
}

/** Once a Close's final commit is done: leave the group, then answer the Close (LeftGroup). */
function maybeFinishClose(s: ConsumerState, ctx: BaseContext<ConsumerMsg>): void {
  if (s.closeToken === null || s.commitInFlight || s.commitQueue.length > 0 || s.leaving) return;
  s.leaving = true;
  // the group machinery stops here: the answers to joins, syncs and heartbeats in flight are
  // ignored, since a rejoin sent after the LeaveGroup would put the member back in the group
  s.epoch++;
  s.phase = 'Closed';
  // as Kafka's consumer (onLeavePrepare), the application hears that its partitions are gone
  // before the group can give them to another member
  const owned = [...s.assigned.values()].map((a) => ({ topic: a.topic, partition: a.partition }));
  if (owned.length > 0) emit(s, ctx, { kind: 'partitions.revoked', partitions: owned });
  void leave(s, ctx).then(() => ctx.send(ctx.self, { type: 'LeftGroup' }));
}

function commitErrorCode(r: OffsetCommitResponse | Failure): { errorCode: number; message: string } {
  if (isFailure(r)) return { errorCode: failureCode(r), message: r.message };
  if (r.errorCode !== ErrorCode.NONE) return { errorCode: r.errorCode, message: errorName(r.errorCode) };
  for (const t of r.topics) for (const p of t.partitions) if (p.errorCode !== ErrorCode.NONE) return { errorCode: p.errorCode, message: `${t.name}-${p.partition}: ${errorName(p.errorCode)}` };
  return { errorCode: ErrorCode.NONE, message: '' };
}

/** The consumer's group.instance.id, null when it is a dynamic member. */
function instanceId(s: ConsumerState): string | null {
  return s.config.groupInstanceId === '' ? null : s.config.groupInstanceId;
}

/**
 * Leaves the group at close. A static member does not (as Kafka's consumer): its place waits
 * for it to come back under the same instance id until its session times out. With group.protocol
 * consumer the member leaves with a heartbeat (group-member.ts; a static one with epoch -2).
 */
function leave(s: ConsumerState, ctx: BaseContext<ConsumerMsg>): Promise<unknown> {
  if (s.member) return memberLeave(s, ctx);
  if (!s.coordinator || !s.memberId || instanceId(s) !== null) return Promise.resolve();
  return ctx.ask<SimpleResponse>(s.coordinator, { type: 'LeaveGroup', groupId: s.config.groupId, members: [{ memberId: s.memberId, reason: 'the consumer is leaving' }] }, { timeoutMs: 5_000 });
}

/**
 * Where an assigned partition starts, once its committed offset (-1: none) is known: a seek made
 * meanwhile wins, then the committed offset, else auto.offset.reset. Returns which it was.
 */
function startPosition(s: ConsumerState, ctx: BaseContext<ConsumerMsg>, k: string, a: Assigned, committed: number): 'seek' | 'committed' | 'reset' {
  const seek = s.pendingSeeks.get(k);
  if (seek !== undefined) {
    s.pendingSeeks.delete(k);
    setPosition(a, seek);
    return 'seek';
  }
  if (committed >= 0) {
    setPosition(a, committed);
    s.committed.set(k, committed);
    s.processed.set(k, committed);
    return 'committed';
  }
  resetOffset(s, ctx, a);
  return 'reset';
}

function newAssigned(topic: string, partition: number): Assigned {
  return { topic, partition, position: null, fetchPosition: -1, buffer: [], bufferedBytes: 0, passed: null, highWatermark: -1, paused: false, resetting: false, readReplica: null, lag: null };
}

/**
 * What the telemetry push loop reads of the consumer: its brokers, its metrics, and KIP-714's
 * consumer labels (group_id, group_instance_id, group_member_id once it has one, client_rack).
 */
function telemetryHost(s: ConsumerState): TelemetryHost {
  return {
    brokers: () => s.metadata.brokerRefs(),
    metrics: (now) => s.metrics.snapshot(now, s.config.clientId, [...s.assigned.values()]),
    labels: () => {
      const labels: Record<string, string> = { group_id: s.config.groupId };
      if (s.config.groupInstanceId !== '') labels['group_instance_id'] = s.config.groupInstanceId;
      if (s.memberId !== '') labels['group_member_id'] = s.memberId;
      if (s.config.clientRack !== '') labels['client_rack'] = s.config.clientRack;
      return labels;
    },
  };
}

/** What group-member.ts shares with the classic protocol. */
const OPS: ConsumerOps = { emit, crash, refreshMetadata, maybeFetch, resetOffset, setPosition, startPosition, subscribedTopics, commit, newAssigned, askCoordinator, failureCode, commitErrorCode };

export const consumer = defineActor<ConsumerState, ConsumerMsg, ConsumerArgs>({
  kind: 'consumer',
  supervision: 'stop',

  init(ctx, args) {
    const config = parseConsumerConfig(args.config);
    const s: ConsumerState = {
      config,
      args,
      phase: 'Idle',
      metadata: new MetadataCache(args.bootstrap),
      metadataInFlight: false,
      topics: [],
      pattern: null,
      coordinator: null,
      memberId: '',
      generationId: -1,
      leaderId: '',
      protocol: '',
      epoch: 0,
      assigned: new Map(),
      fetching: new Map(),
      pendingPoll: null,
      processed: new Map(),
      committed: new Map(),
      pendingSeeks: new Map(),
      lastPollAt: ctx.clock.now(),
      nextHeartbeatAt: 0,
      nextAutoCommitAt: ctx.clock.now() + config.autoCommitIntervalMs,
      retryAt: 0,
      heartbeatInFlight: false,
      commitInFlight: false,
      commitQueue: [],
      rotation: 0,
      crash: null,
      closeToken: null,
      closeDeadline: 0,
      leaving: false,
      committedPending: false,
      joinedTopology: '',
      nextMissingTopicRefreshAt: 0,
      member: config.groupProtocol === 'consumer' ? newGroupMember(config, ctx.clock, OPS) : null,
      recordsOutstanding: false,
      rejoinReason: null,
      joinAfterCommit: false,
      metrics: new ConsumerMetrics({ windowMs: config.metricsSampleWindowMs, samples: config.metricsNumSamples }, ctx.clock.now()),
      telemetry: startTelemetry(config.enableMetricsPush, { clientId: config.clientId, requestTimeoutMs: config.requestTimeoutMs, retryBackoffMs: config.retryBackoffMs }, ctx),
    };
    refreshMetadata(s, ctx);
    ctx.timers.startPeriodic(TICK_TIMER, Math.max(10, Math.min(100, Math.floor(config.heartbeatIntervalMs / 2))), { type: 'Tick' });
    return s;
  },

  schema: {
    Subscribe: { topics: 'array', pattern: 'string?' },
    Poll: { maxRecords: 'integer', timeoutMs: 'integer', processed: 'array' },
    Commit: { offsets: 'array?' },
    Seek: { topic: 'string', partition: 'integer', offset: 'integer' },
    Pause: { partitions: 'array' },
    Resume: { partitions: 'array' },
  },

  handlers: {
    Subscribe(s, m, ctx) {
      s.topics = [...new Set(m.topics)];
      try {
        s.pattern = m.pattern ? new RegExp(m.pattern, m.patternFlags ?? '') : null;
      } catch (err) {
        ctx.reply({ type: 'Subscribed', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `bad topic pattern: ${(err as Error).message}` });
        return;
      }
      // KafkaJS's fromBeginning: where to start when the group has no committed offset
      if (m.fromBeginning !== undefined && !('auto.offset.reset' in s.args.config)) s.config.autoOffsetReset = m.fromBeginning ? 'earliest' : 'latest';
      ctx.reply({ type: 'Subscribed', errorCode: ErrorCode.NONE });
      if (s.member) memberSubscribe(s, ctx);
      else if (s.phase === 'Idle') findCoordinator(s, ctx);
      else if (s.phase === 'Stable') rebalance(s, ctx, 'subscription changed');
    },

    Poll(s, m, ctx) {
      const now = ctx.clock.now();
      s.lastPollAt = now;
      s.metrics.pollStarted(now);
      s.recordsOutstanding = false;
      for (const p of m.processed) {
        const k = key(p.topic, p.partition);
        const a = s.assigned.get(k);
        // an offset where markers or aborted transactions start counts as past them
        if (a) s.processed.set(k, a.passed !== null ? settle(a, p.offset) : p.offset);
      }
      // a rebalance that waited for the records out: what they processed is in its commit now
      if (s.rejoinReason !== null && !s.member) rebalance(s, ctx, s.rejoinReason);
      if (s.pendingPoll) {
        // a newer poll replaces a parked one
        const old = s.pendingPoll;
        s.pendingPoll = null;
        if (old.token) ctx.replyTo(old.token, { type: 'PollResult', errorCode: ErrorCode.NONE, batches: [] } satisfies PollResult);
      }
      s.pendingPoll = { token: ctx.deferReply(), deadline: now + m.timeoutMs, maxRecords: Math.max(1, Math.min(m.maxRecords, s.config.maxPollRecords)) };
      if (s.member) memberOnPoll(s, ctx);
      else if (s.phase === 'Idle' && !s.crash && (s.topics.length > 0 || s.pattern)) findCoordinator(s, ctx);
      answerPoll(s, ctx);
      maybeFetch(s, ctx);
    },

    Wakeup(s, _m, ctx) {
      const p = s.pendingPoll;
      if (!p) return;
      s.pendingPoll = null;
      s.metrics.pollEnded(ctx.clock.now());
      if (p.token) ctx.replyTo(p.token, { type: 'PollResult', errorCode: ErrorCode.NONE, batches: [] } satisfies PollResult);
    },

    Commit(s, m, ctx) {
      const offsets = m.offsets?.map((o) => {
        const a = s.assigned.get(key(o.topic, o.partition));
        return a && a.passed !== null ? { ...o, offset: settle(a, o.offset) } : o;
      });
      commit(s, ctx, offsets ?? null, { token: ctx.deferReply() });
    },

    Seek(s, m, ctx) {
      const a = s.assigned.get(key(m.topic, m.partition));
      if (a) {
        setPosition(a, m.offset);
        s.processed.set(key(m.topic, m.partition), m.offset);
      } else s.pendingSeeks.set(key(m.topic, m.partition), m.offset);
      ctx.reply({ type: 'Sought', errorCode: ErrorCode.NONE });
      maybeFetch(s, ctx);
    },

    Pause(s, m, ctx) {
      for (const p of m.partitions) {
        const a = s.assigned.get(key(p.topic, p.partition));
        if (a) a.paused = true;
      }
      ctx.reply({ type: 'Paused', errorCode: ErrorCode.NONE });
    },

    Resume(s, m, ctx) {
      for (const p of m.partitions) {
        const a = s.assigned.get(key(p.topic, p.partition));
        if (a) a.paused = false;
      }
      ctx.reply({ type: 'Resumed', errorCode: ErrorCode.NONE });
      maybeFetch(s, ctx);
    },

    Close(s, _m, ctx) {
      if (s.closeToken !== null) return;
      s.closeToken = ctx.deferReply();
      // as Kafka's consumer, the final commit is retried through coordinator moves and loads, within request.timeout.ms
      s.closeDeadline = ctx.clock.now() + s.config.requestTimeoutMs;
      // as Kafka's consumer, the terminating push goes out as the close begins
      closeTelemetry(s.telemetry, telemetryHost(s), ctx);
      if (s.member) memberClose(s);
      if (s.phase === 'Stable' && s.config.enableAutoCommit) commit(s, ctx, null, { token: undefined });
      maybeFinishClose(s, ctx);
    },

    LeftGroup(s, _m, ctx) {
      s.phase = 'Closed';
      s.epoch++;
      s.assigned.clear();
      s.memberId = '';
      ctx.timers.cancel(TICK_TIMER);
      answerPoll(s, ctx, true);
      emit(s, ctx, { kind: 'stop' });
      const token = s.closeToken;
      if (token) whenTelemetryClosed(s.telemetry, () => ctx.replyTo(token, { type: 'Closed', errorCode: ErrorCode.NONE }));
    },

    ...telemetryHandlers(telemetryHost),

    Metrics(s, _m, ctx) {
      ctx.reply({ type: 'ConsumerMetrics', metrics: s.metrics.snapshot(ctx.clock.now(), s.config.clientId, [...s.assigned.values()]) } satisfies ConsumerMetricsReply);
    },

    DescribeConsumer(s, _m, ctx) {
      ctx.reply({
        type: 'ConsumerDescription',
        phase: s.phase,
        memberId: s.memberId,
        generationId: s.generationId,
        ...(s.member ? { memberState: memberStateOf(s) } : {}),
        assignment: [...s.assigned.values()].map((a) => ({ topic: a.topic, partition: a.partition, position: a.position, paused: a.paused, readReplica: a.readReplica?.brokerId ?? null })),
        telemetry: describeTelemetry(s.telemetry),
      } satisfies ConsumerDescription);
    },

    Tick(s, _m, ctx) {
      const now = ctx.clock.now();
      if (s.phase === 'Closed') return;
      if (s.member) {
        if (now - s.metadata.updatedAt >= s.config.metadataMaxAgeMs) refreshMetadata(s, ctx);
        memberTick(s, ctx);
        answerPoll(s, ctx);
        return;
      }
      if (now - s.metadata.updatedAt >= s.config.metadataMaxAgeMs) refreshMetadata(s, ctx);
      else if (s.phase === 'Stable' && now >= s.nextMissingTopicRefreshAt && s.topics.some((t) => !s.metadata.hasTopic(t))) {
        // waiting for a subscribed topic to exist: look again every second
        s.nextMissingTopicRefreshAt = now + 1_000;
        refreshMetadata(s, ctx);
      }
      if ((s.phase === 'FindingCoordinator' || s.phase === 'Joining') && s.retryAt > 0 && now >= s.retryAt) {
        s.retryAt = 0;
        if (s.phase === 'FindingCoordinator') findCoordinator(s, ctx);
        else join(s, ctx);
      }
      if (s.phase === 'Stable') {
        if (now - s.lastPollAt > s.config.maxPollIntervalMs && !s.pendingPoll) {
          ctx.log.warn('max.poll.interval.ms passed without a poll: leaving the group', { maxPollIntervalMs: s.config.maxPollIntervalMs });
          void leave(s, ctx);
          s.memberId = '';
          s.generationId = -1;
          s.epoch++;
          s.assigned.clear();
          s.rejoinReason = null;
          s.phase = 'Idle';
          return;
        }
        if (!s.heartbeatInFlight && now >= s.nextHeartbeatAt && s.coordinator) {
          s.heartbeatInFlight = true;
          s.nextHeartbeatAt = now + s.config.heartbeatIntervalMs;
          s.metrics.heartbeatSent(now);
          const epoch = s.epoch;
          void ctx
            .ask<SimpleResponse>(s.coordinator, { type: 'Heartbeat', groupId: s.config.groupId, generationId: s.generationId, memberId: s.memberId, groupInstanceId: instanceId(s) }, { timeoutMs: s.config.requestTimeoutMs })
            .then((response) => ctx.send(ctx.self, { type: 'HeartbeatResult', response, epoch }));
        }
        if (s.config.enableAutoCommit && now >= s.nextAutoCommitAt) {
          s.nextAutoCommitAt = now + s.config.autoCommitIntervalMs;
          commit(s, ctx, null, { token: undefined });
        }
        // a partition whose reset failed (no leader yet) tries again
        if (!s.committedPending && now >= s.retryAt) for (const a of s.assigned.values()) if (a.position === null && !a.resetting) resetOffset(s, ctx, a);
        maybeFetch(s, ctx);
      }
      answerPoll(s, ctx);
    },

    MetadataResult(s, m, ctx) {
      s.metadataInFlight = false;
      if (!m.metadata) return;
      s.metadata.update(m.metadata, ctx.clock.now());
      if (s.member) {
        memberOnMetadata(s, ctx);
        maybeFetch(s, ctx);
        return;
      }
      // a subscribed topic appeared, gained partitions, or a pattern now matches other topics
      if (s.phase === 'Stable' && topologyOf(s, subscribedTopics(s)) !== s.joinedTopology) rebalance(s, ctx, 'the subscribed topics changed');
      maybeFetch(s, ctx);
    },

    CoordinatorResult(s, m, ctx) {
      if (s.phase !== 'FindingCoordinator') return;
      const r = m.response;
      if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
        ctx.log.debug('coordinator not found yet', { errorCode: r.errorCode });
        retryLater(s, ctx, 'FindingCoordinator');
        return;
      }
      s.coordinator = { node: r.node, path: coordinatorPath(r.brokerId) };
      join(s, ctx);
    },

    JoinResult(s, m, ctx) {
      if (m.epoch !== s.epoch || s.phase !== 'Joining') return;
      const r = m.response;
      const code = isFailure(r) ? failureCode(r) : r.errorCode;
      s.metrics.joinAnswered(code === ErrorCode.NONE && !isFailure(r), ctx.clock.now());
      if (code === ErrorCode.MEMBER_ID_REQUIRED && !isFailure(r)) {
        s.memberId = r.memberId;
        join(s, ctx);
        return;
      }
      if (code === ErrorCode.UNKNOWN_MEMBER_ID) {
        s.memberId = '';
        join(s, ctx);
        return;
      }
      if (code === ErrorCode.REBALANCE_IN_PROGRESS) {
        join(s, ctx);
        return;
      }
      if (RETRY_COORDINATOR.has(code)) {
        retryLater(s, ctx, 'FindingCoordinator');
        return;
      }
      if (code !== ErrorCode.NONE || isFailure(r)) {
        crash(s, ctx, code, `JoinGroup failed: ${isFailure(r) ? r.message : (r.errorMessage ?? errorName(code))}`);
        s.phase = 'Idle';
        return;
      }
      s.memberId = r.memberId;
      s.generationId = r.generationId;
      s.leaderId = r.leader;
      s.protocol = r.protocolName ?? '';
      s.phase = 'Syncing';
      // the generation is joined with the metadata known now (the leader assigns from it)
      s.joinedTopology = topologyOf(s, subscribedTopics(s));
      let assignments: { memberId: string; assignment: Uint8Array }[] = [];
      if (r.leader === r.memberId) {
        try {
          assignments = leaderAssign(s, r);
        } catch (err) {
          crash(s, ctx, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `assignment failed: ${(err as Error).message}`);
          return;
        }
      }
      const epoch = s.epoch;
      s.metrics.syncSent(ctx.clock.now());
      void ctx
        .ask<SyncGroupResponse>(
          s.coordinator!,
          { type: 'SyncGroup', groupId: s.config.groupId, generationId: s.generationId, memberId: s.memberId, groupInstanceId: instanceId(s), protocolType: CONSUMER_PROTOCOL_TYPE, protocolName: s.protocol, assignments },
          { timeoutMs: s.config.maxPollIntervalMs + s.config.requestTimeoutMs },
        )
        .then((response) => ctx.send(ctx.self, { type: 'SyncResult', response, epoch }));
    },

    SyncResult(s, m, ctx) {
      if (m.epoch !== s.epoch || s.phase !== 'Syncing') return;
      const r = m.response;
      const code = isFailure(r) ? failureCode(r) : r.errorCode;
      s.metrics.syncAnswered(code === ErrorCode.NONE && !isFailure(r), ctx.clock.now());
      if (code === ErrorCode.NONE && !isFailure(r)) {
        try {
          onAssigned(s, ctx, r.assignment);
        } catch (err) {
          crash(s, ctx, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `bad assignment: ${(err as Error).message}`);
        }
        return;
      }
      if (code === ErrorCode.FENCED_INSTANCE_ID) return fenced(s, ctx, 'SyncGroup');
      if (code === ErrorCode.UNKNOWN_MEMBER_ID) s.memberId = '';
      if (RETRY_COORDINATOR.has(code)) retryLater(s, ctx, 'FindingCoordinator');
      else join(s, ctx);
    },

    HeartbeatResult(s, m, ctx) {
      s.heartbeatInFlight = false;
      s.metrics.heartbeatAnswered(ctx.clock.now());
      if (m.epoch !== s.epoch || s.phase !== 'Stable') return;
      const r = m.response;
      const code = isFailure(r) ? failureCode(r) : r.errorCode;
      if (code === ErrorCode.NONE) return;
      if (code === ErrorCode.FENCED_INSTANCE_ID) return fenced(s, ctx, 'Heartbeat');
      if (code === ErrorCode.REBALANCE_IN_PROGRESS) rebalance(s, ctx, 'the group is rebalancing');
      else if (code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.ILLEGAL_GENERATION) {
        if (code === ErrorCode.UNKNOWN_MEMBER_ID) s.memberId = '';
        rebalance(s, ctx, `heartbeat answered ${errorName(code)}`, false);
      } else if (RETRY_COORDINATOR.has(code)) {
        // find the coordinator again; the membership stands until the session times out
        const epoch = s.epoch;
        void ctx
          .ask<FindCoordinatorResponse>(s.metadata.nextBroker<BrokerMsg>(), { type: 'FindCoordinator', key: s.config.groupId, keyType: 'group' } as never, { timeoutMs: s.config.requestTimeoutMs })
          .then((response) => ctx.send(ctx.self, { type: 'CoordinatorRefound', response, epoch }));
      }
    },

    RetryCloseCommit(s, m, ctx) {
      if (!m.findCoordinator) {
        s.commitInFlight = false;
        commit(s, ctx, m.offsets, { token: undefined });
        maybeFinishClose(s, ctx);
        return;
      }
      void ctx
        .ask<FindCoordinatorResponse>(s.metadata.nextBroker<BrokerMsg>(), { type: 'FindCoordinator', key: s.config.groupId, keyType: 'group' } as never, { timeoutMs: s.config.requestTimeoutMs })
        .then((response) => ctx.send(ctx.self, { type: 'CloseCoordinatorFound', response, offsets: m.offsets }));
    },

    CloseCoordinatorFound(s, m, ctx) {
      const r = m.response;
      if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
        if (ctx.clock.now() < s.closeDeadline) {
          ctx.timers.startSingle(CLOSE_COMMIT_TIMER, s.config.retryBackoffMs, { type: 'RetryCloseCommit', offsets: m.offsets, findCoordinator: true });
          return;
        }
        ctx.log.warn('final offset commit abandoned: no coordinator found before the close timed out', { errorCode: r.errorCode });
        s.commitInFlight = false;
        maybeFinishClose(s, ctx);
        return;
      }
      s.coordinator = { node: r.node, path: coordinatorPath(r.brokerId) };
      s.commitInFlight = false;
      commit(s, ctx, m.offsets, { token: undefined });
      maybeFinishClose(s, ctx);
    },

    CoordinatorRefound(s, m) {
      const r = m.response;
      if (m.epoch === s.epoch && !isFailure(r) && r.errorCode === ErrorCode.NONE) s.coordinator = { node: r.node, path: coordinatorPath(r.brokerId) };
    },

    CommittedResult(s, m, ctx) {
      if (m.epoch !== s.epoch) return;
      s.committedPending = false;
      const r = m.response;
      const committed = new Map<string, number>();
      if (!isFailure(r) && r.errorCode === ErrorCode.NONE) {
        for (const t of r.topics) for (const p of t.partitions) if (p.errorCode === ErrorCode.NONE && p.offset >= 0) committed.set(key(t.name, p.partition), p.offset);
      } else {
        const code = isFailure(r) ? failureCode(r) : r.errorCode;
        ctx.log.warn('could not fetch committed offsets; rejoining', { errorCode: code });
        if (RETRY_COORDINATOR.has(code)) s.coordinator = null;
        rebalance(s, ctx, 'committed offsets unavailable');
        return;
      }
      for (const [k, a] of s.assigned) startPosition(s, ctx, k, a, committed.get(k) ?? -1);
      maybeFetch(s, ctx);
    },

    ResetResult(s, m, ctx) {
      if (m.epoch !== s.epoch) return;
      const a = s.assigned.get(key(m.topic, m.partition));
      if (!a) return;
      const r = m.response;
      if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
        a.resetting = false;
        refreshMetadata(s, ctx);
        s.retryAt = ctx.clock.now() + s.config.retryBackoffMs;
        return;
      }
      setPosition(a, r.offset);
      maybeFetch(s, ctx);
    },

    FetchResult(s, m, ctx) {
      const sentAt = s.fetching.get(m.brokerId);
      s.fetching.delete(m.brokerId);
      if (m.epoch !== s.epoch) {
        maybeFetch(s, ctx);
        return;
      }
      const r = m.response;
      if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
        // a read replica that does not answer is dropped: its partitions go back to their leaders
        for (const a of s.assigned.values()) if (a.readReplica?.brokerId === m.brokerId) a.readReplica = null;
        refreshMetadata(s, ctx);
        maybeFetch(s, ctx);
        return;
      }
      let fetchedBytes = 0;
      let fetchedRecords = 0;
      for (const pr of r.partitions) {
        const a = s.assigned.get(key(pr.topic, pr.partition));
        if (!a || a.position === null) continue;
        const fromReadReplica = a.readReplica?.brokerId === m.brokerId;
        if (pr.errorCode !== ErrorCode.NONE && fromReadReplica) {
          // the replica the leader named could not serve (it fell behind, or left): back to the leader
          ctx.log.info('preferred read replica failed: fetching from the leader', { topic: pr.topic, partition: pr.partition, brokerId: m.brokerId, errorCode: pr.errorCode });
          a.readReplica = null;
          continue;
        }
        if (pr.preferredReadReplica !== undefined && pr.preferredReadReplica >= 0) {
          if (a.readReplica?.brokerId !== pr.preferredReadReplica) ctx.log.info('fetching from the preferred read replica', { topic: pr.topic, partition: pr.partition, brokerId: pr.preferredReadReplica });
          a.readReplica = { brokerId: pr.preferredReadReplica, untilMs: ctx.clock.now() + s.config.metadataMaxAgeMs };
          continue;
        }
        if (pr.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
          ctx.log.warn('fetch offset out of range: resetting', { topic: pr.topic, partition: pr.partition, offset: a.fetchPosition, reset: s.config.autoOffsetReset });
          a.buffer = [];
          a.bufferedBytes = 0;
          resetOffset(s, ctx, a);
          continue;
        }
        if (pr.errorCode !== ErrorCode.NONE) {
          refreshMetadata(s, ctx);
          continue;
        }
        a.highWatermark = endOffsetFor(s.config.isolationLevel, pr);
        if (pr.records.length === 0) continue;
        // buffered as bytes, decoded (and CRC-checked) when the application takes them; markers
        // and (read_committed) aborted transactions are passed over
        try {
          fetchedRecords += acceptFetched(a, pr.records, abortedTransactionsOf(s.config.isolationLevel, pr.abortedTransactions));
          fetchedBytes += pr.records.length;
        } catch (err) {
          crash(s, ctx, ErrorCode.CORRUPT_MESSAGE, `${pr.topic}-${pr.partition}: ${(err as Error).message}`);
          return;
        }
        if (a.passed !== null) {
          // what the application processed may end where a range passed over starts
          const k = key(pr.topic, pr.partition);
          const done = s.processed.get(k);
          if (done !== undefined) s.processed.set(k, settle(a, done));
        }
      }
      const now = ctx.clock.now();
      s.metrics.fetched(sentAt === undefined ? 0 : now - sentAt, fetchedBytes, fetchedRecords, now);
      answerPoll(s, ctx);
      maybeFetch(s, ctx);
    },

    GroupCoordinatorResult(s, m, ctx) {
      if (s.member) onGroupCoordinatorResult(s, ctx, m.response);
    },

    GroupHeartbeatResult(s, m, ctx) {
      if (s.member) onGroupHeartbeatResult(s, ctx, m.seq, m.response);
    },

    RevocationCommitResult(s, m, ctx) {
      if (s.member) onRevocationCommitResult(s, ctx, m);
    },

    AssignedCommittedResult(s, m, ctx) {
      if (s.member) onAssignedCommittedResult(s, ctx, m);
    },

    CommitResult(s, m, ctx) {
      s.commitInFlight = false;
      if (m.sentAt !== undefined) s.metrics.committed(ctx.clock.now() - m.sentAt, ctx.clock.now());
      const { errorCode, message } = commitErrorCode(m.response);
      if (errorCode !== ErrorCode.NONE && s.closeToken !== null && RETRY_COORDINATOR.has(errorCode) && ctx.clock.now() < s.closeDeadline) {
        // closing: the coordinator moved or is loading the group; commit again (blocking the leave until then)
        ctx.log.info('final offset commit: retrying', { errorCode, message });
        s.commitInFlight = true;
        for (const t of m.tokens) ctx.replyTo(t, { type: 'CommitDone', errorCode, errorMessage: message, offsets: m.offsets });
        ctx.timers.startSingle(CLOSE_COMMIT_TIMER, s.config.retryBackoffMs, { type: 'RetryCloseCommit', offsets: m.offsets, findCoordinator: errorCode !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS });
        return;
      }
      if (errorCode === ErrorCode.NONE) for (const o of m.offsets) s.committed.set(key(o.topic, o.partition), o.offset);
      else ctx.log.warn('offset commit failed', { errorCode, message });
      emit(s, ctx, { kind: 'commit', offsets: m.offsets, errorCode });
      for (const t of m.tokens) ctx.replyTo(t, { type: 'CommitDone', errorCode, errorMessage: message, offsets: m.offsets });
      const next = s.commitQueue.shift();
      if (next) commit(s, ctx, next.offsets, next.waiter);
      // the commit before a revocation is answered: the JoinGroup goes now (not when closing: the member leaves)
      if (s.joinAfterCommit && !s.commitInFlight && s.closeToken === null && s.phase === 'Joining') join(s, ctx);
      maybeFinishClose(s, ctx);
    },
  },
});
