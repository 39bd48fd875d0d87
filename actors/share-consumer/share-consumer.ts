/**
 * The share consumer: a member of a KIP-932 share group (samsa's KafkaShareConsumer). It finds
 * the group's coordinator, joins with ShareGroupHeartbeat under a member id it made itself
 * (epoch 0), heartbeats at the interval the coordinator names, and fetches the partitions it is
 * assigned from their leaders' share partition managers: one ShareFetch per leader broker, with
 * the acknowledgements of records that broker gave this member riding along (a partition's
 * acknowledgements go to the broker its records came from; those that cannot ride a fetch go at
 * once in a ShareAcknowledge). Only the offsets a fetch acquired are handed out, each with its
 * delivery count; offsets in an acquired range without a record (compacted away, transaction
 * markers) are acknowledged as Gap. A partition is fetched again once the records of its last
 * fetch were handed out, and not before the application's first poll; buffered records whose
 * acquisition lock has run out are dropped (another member may have them now). With
 * share.acquire.mode record_limit (KIP-1206) nothing is fetched ahead: one ShareFetch at a time,
 * only while a poll waits with nothing buffered, for at most the records that poll may return.
 *
 * Lock renewal (KIP-1222): the application acknowledges a record it is still processing with
 * Renew; such acknowledgements never ride a fetch, they go at once in a ShareAcknowledge (as
 * Kafka's renewing ShareFetch, which acknowledges only), and a Poll marked `renewals` hands out
 * no records, answering once no acknowledgement is out (the outcomes tell the application which
 * records it still holds: those it gets again).
 *
 * max.poll.interval.ms: an application that does not poll for that long (a Poll parked here
 * counts as polling) is taken to be stuck, as Kafka's consumer does: the member leaves its
 * group with a heartbeat of epoch -1 (Stale), its assignment is dropped and what was fetched
 * and not handed out is released; the records the application holds stay its until it
 * acknowledges them or their locks run out. Its next Poll makes it join again, same member id.
 *
 * Unsubscribing or closing sends the acknowledgements pending, waits for the fetches out (what
 * they acquire is not handed out), tells every broker fetched from that the member is gone
 * (ShareMemberGone: the records it still holds go back to the group) and leaves the group with
 * epoch -1.
 *
 * Owned state: the member (id, epoch, phase, subscription, heartbeat timing, coordinator ref),
 * when the application last polled, the assignment (partitions by name and topic id; topic ids
 * not in the metadata yet wait for it), the fetches out per broker, the brokers fetched from,
 * where each partition's records came from, the records buffered, the acknowledgements pending
 * and those completed (for the application's callback), the ShareAcknowledges out, the commits
 * waiting for brokers, the parked Poll, the metadata cache, the metrics (Kafka's share consumer
 * metrics, share-consumer-metrics.ts: fetches, records and bytes taken, acknowledgements,
 * heartbeats, rebalances, polls; each buffered partition's fetch reports to its FetchTally once
 * used up or dropped); with enable.metrics.push, its telemetry push loop (KIP-714,
 * src/client/telemetry-loop.ts: the subscription, what was last pushed, the timer, the
 * clientInstanceId calls waiting for the id).
 * Handles: Subscribe, Unsubscribe, Poll, Commit, Wakeup, Close, DescribeShareConsumer, Metrics,
 * GetClientInstanceId (answered once the id is known, telemetry stopped, or its timeout passed),
 * and internal Tick plus the results of its own asks, TelemetryTick, TelemetryAnswer and
 * ClientInstanceIdDeadline. Closing
 * (Close, or Close during an Unsubscribe) makes the terminating push as the close begins, and
 * ShareConsumerDone is answered after it.
 * Emits: FindCoordinator and Metadata to brokers; ShareGroupHeartbeat to the group coordinator;
 * ShareFetch, ShareAcknowledge and ShareMemberGone to brokers' share partition managers;
 * GetTelemetrySubscriptions and PushTelemetry to a broker (its metrics under KIP-714's names,
 * with group_id, group_member_id and client_rack as resource attributes);
 * SharePollResult, ShareCommitResult, ShareConsumerDone, ShareConsumerDescription,
 * ShareConsumerMetrics and ClientInstanceId to callers.
 */
import { randomUUID } from 'node:crypto';
import { MetadataCache, type BootstrapBroker } from '../../src/client/metadata-cache.js';
import { ErrorCode, errorInfo, errorName } from '../../src/protocol/errors.js';
import { kafkaTopicId } from '../../src/protocol/topic-id.js';
import type { ActorContext, BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Failure } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { BrokerMsg, MetadataResponse } from '../broker/messages.js';
import { coordinatorPath, type CoordinatorMsg, type FindCoordinatorResponse, type ShareGroupHeartbeatResponse, type TopicIdPartitions } from '../group-coordinator/messages.js';
import { sharePartitionManagerPath, type AcknowledgementBatch, type ShareAcknowledgeResult, type ShareFetchPartition, type ShareFetchResult, type ShareManagerMsg } from '../share-partition/messages.js';
import { AcknowledgeType } from '../share-partition/share-partition-state.js';
import { PendingAcks } from './pending-acks.js';
import { AcquiredRecords } from './acquired-records.js';
import { ShareConsumerMetrics, type FetchTally } from './share-consumer-metrics.js';
import {
  closeTelemetry,
  describeTelemetry,
  startTelemetry,
  telemetryHandlers,
  whenTelemetryClosed,
  type TelemetryHost,
  type TelemetryLoop,
} from '../../src/client/telemetry-loop.js';
import type {
  AcknowledgementOutcome,
  PartitionAcknowledgements,
  SentAcknowledgements,
  ShareCommitResult,
  ShareConsumedRecord,
  ShareConsumerDescription,
  ShareConsumerDone,
  ShareConsumerMetricsReply,
  ShareConsumerMsg,
  ShareMemberPhase,
  SharePollResult,
} from './messages.js';
import { parseShareConsumerConfig, type ShareConsumerConfig } from './share-consumer-config.js';

export interface ShareConsumerArgs {
  bootstrap: BootstrapBroker[];
  /** Kafka's share consumer config names; group.id is required. */
  config: Record<string, unknown>;
  /** The member id (KIP-1082: the member makes its own); a random uuid by default. */
  memberId?: string;
}

interface AssignedPartition {
  key: string;
  topic: string;
  topicId: string;
  partition: number;
  /** Not fetched before this (after an error). */
  retryAt: number;
}

/** What a fetch acquired of a partition for this member, not yet handed out. */
interface BufferedRecords {
  key: string;
  acquired: AcquiredRecords;
  /** The fetch it came with, told when it is used up or dropped (the metrics). */
  tally: FetchTally;
}

/** The broker a partition's records came from: its acknowledgements go there. */
interface PartitionSource {
  topic: string;
  topicId: string;
  partition: number;
  brokerId: number;
  node: string;
}

interface PendingCommit {
  token: ReplyToken | undefined;
  outstanding: number;
  results: AcknowledgementOutcome[];
}

interface Leaving {
  token: ReplyToken | undefined;
  close: boolean;
  /** The acknowledgements sent on leaving, while they are out. */
  commitId: number | null;
  goneSent: boolean;
  /** Fetches still out after this are not waited for. */
  deadline: number;
}

interface ShareConsumerState {
  config: ShareConsumerConfig;
  metadata: MetadataCache;
  metadataInFlight: boolean;
  metadataAskedAt: number;
  memberId: string;
  memberEpoch: number;
  phase: ShareMemberPhase;
  /** A heartbeat was sent since the member last left: it may be in the group. */
  inGroup: boolean;
  /** When the application last polled (a Poll came, or a parked one was answered): max.poll.interval.ms runs from here. */
  lastPollAt: number;
  topics: string[];
  /** The subscription changed since the coordinator last heard it. */
  topicsToSend: boolean;
  coordinator: ActorRef<CoordinatorMsg> | null;
  findingCoordinator: boolean;
  heartbeatSeq: number;
  heartbeatInFlight: boolean;
  nextHeartbeatAt: number;
  heartbeatIntervalMs: number;
  backoffMs: number;
  /** The last assignment the coordinator sent, while some of its topic ids are not in the metadata. */
  target: TopicIdPartitions[] | null;
  assigned: Map<string, AssignedPartition>;
  fetching: Set<number>;
  /** share.acquire.mode record_limit: the broker fetched last (they take turns). */
  lastFetchedBroker: number;
  fetchedFrom: Map<number, string>;
  sources: Map<string, PartitionSource>;
  buffer: BufferedRecords[];
  /** Per partition key: offset -> acknowledge type, not sent yet. */
  pendingAcks: Map<string, PendingAcks>;
  completed: AcknowledgementOutcome[];
  /** ShareAcknowledge requests out, not answered yet. */
  acknowledging: number;
  commits: Map<number, PendingCommit>;
  seq: number;
  /** `renewals`: hands out no records, answered once no acknowledgement is out (or at its deadline). */
  pendingPoll: { token: ReplyToken | undefined; deadline: number; maxRecords: number; renewals: boolean } | null;
  /** The application polled at least once since it subscribed: fetching may start. */
  polled: boolean;
  lockTimeoutMs: number | null;
  /** A fatal error: every poll answers it. */
  crash: { errorCode: number; message: string } | null;
  /** An error the next poll answers once. */
  pollError: { errorCode: number; message: string } | null;
  leaving: Leaving | null;
  metrics: ShareConsumerMetrics;
  /** enable.metrics.push: the telemetry push loop (null without). */
  telemetry: TelemetryLoop | null;
}

type Ctx = BaseContext<ShareConsumerMsg>;

const TICK_TIMER = 'tick';
const TICK_MS = 50;
const LEAVE_TIMEOUT_MS = 5_000;
const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;
/** Errors after which the coordinator is looked up again. */
const COORDINATOR_MOVED = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NETWORK_EXCEPTION, ErrorCode.REQUEST_TIMED_OUT]);
/** Per-partition fetch errors after which the leader is looked up again. */
const LEADER_MOVED = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.UNKNOWN_TOPIC_ID,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.KAFKA_STORAGE_ERROR,
]);
/** Per-partition fetch errors the application hears of (from its next poll), as Kafka's share consumer throws them. */
const SURFACED = new Set<number>([ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.GROUP_AUTHORIZATION_FAILED]);

function failureCode(r: Failure): number {
  return r.reason === 'unknown-actor' || r.reason === 'actor-stopped' ? ErrorCode.NOT_COORDINATOR : r.errorCode;
}

function bumpBackoff(s: ShareConsumerState): number {
  const wait = s.backoffMs;
  s.backoffMs = Math.min(Math.max(1, s.backoffMs * 2), Math.max(s.config.retryBackoffMs, s.config.retryBackoffMaxMs));
  return wait;
}

/** Asks a broker for the metadata (at most once per retry.backoff.ms). */
function refreshMetadata(s: ShareConsumerState, ctx: Ctx): void {
  const now = ctx.clock.now();
  if (s.metadataInFlight || now - s.metadataAskedAt < s.config.retryBackoffMs) return;
  s.metadataInFlight = true;
  s.metadataAskedAt = now;
  void ctx
    .ask<MetadataResponse>(s.metadata.nextBroker(), { type: 'Metadata' }, { timeoutMs: s.config.requestTimeoutMs })
    .then((r) => ctx.send(ctx.self, { type: 'MetadataResult', metadata: isFailure(r) || !r.metadata ? null : r.metadata }));
}

function crash(s: ShareConsumerState, ctx: Ctx, errorCode: number, message: string): void {
  ctx.log.error('share consumer failed', { groupId: s.config.groupId, memberId: s.memberId, errorCode: errorName(errorCode), message });
  s.crash = { errorCode, message };
  if (!s.leaving) s.phase = 'Failed';
  answerPoll(s, ctx, true);
}

function takeCompleted(s: ShareConsumerState): AcknowledgementOutcome[] {
  const out = s.completed;
  s.completed = [];
  return out;
}

// -----------------------------------------------------------------------------------------------
// Membership

function findCoordinator(s: ShareConsumerState, ctx: Ctx): void {
  if (s.findingCoordinator) return;
  s.findingCoordinator = true;
  void ctx
    .ask<FindCoordinatorResponse>(s.metadata.nextBroker<BrokerMsg>(), { type: 'FindCoordinator', key: s.config.groupId, keyType: 'group' } as never, { timeoutMs: s.config.requestTimeoutMs })
    .then((response) => ctx.send(ctx.self, { type: 'CoordinatorResult', response }));
}

function maybeHeartbeat(s: ShareConsumerState, ctx: Ctx): void {
  if ((s.phase !== 'Joining' && s.phase !== 'Stable') || s.leaving || s.heartbeatInFlight || s.topics.length === 0) return;
  const now = ctx.clock.now();
  if (now < s.nextHeartbeatAt) return;
  if (!s.coordinator) {
    findCoordinator(s, ctx);
    return;
  }
  s.heartbeatInFlight = true;
  s.inGroup = true;
  const seq = ++s.heartbeatSeq;
  const memberEpoch = s.memberEpoch;
  s.metrics.heartbeatSent(now);
  // the subscription goes with a join and whenever it changed; null is "unchanged"
  const topics = memberEpoch === 0 || s.topicsToSend ? [...s.topics] : null;
  void ctx
    .ask<ShareGroupHeartbeatResponse>(
      s.coordinator,
      {
        type: 'ShareGroupHeartbeat',
        groupId: s.config.groupId,
        memberId: s.memberId,
        memberEpoch,
        rackId: s.config.clientRack === '' ? null : s.config.clientRack,
        subscribedTopicNames: topics,
        clientId: s.config.clientId,
      },
      { timeoutMs: s.config.requestTimeoutMs },
    )
    .then((response) => ctx.send(ctx.self, { type: 'HeartbeatResult', seq, memberEpoch, topics, sentAt: now, response }));
}

/** Topic id (Kafka's form) -> name, from the metadata. */
function topicNames(s: ShareConsumerState): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of s.metadata.metadata?.topics ?? []) if (t.topicId) out.set(kafkaTopicId(t.topicId), t.name);
  return out;
}

/** Whether an assignment the coordinator sent is the member's already. */
function sameAssignment(target: readonly TopicIdPartitions[], assigned: ReadonlyMap<string, AssignedPartition>): boolean {
  const have = new Set<string>();
  for (const a of assigned.values()) have.add(`${a.topicId}:${a.partition}`);
  let n = 0;
  for (const t of target) {
    for (const p of t.partitions) {
      if (!have.has(`${t.topicId}:${p}`)) return false;
      n++;
    }
  }
  return n === have.size;
}

/**
 * Makes the coordinator's last assignment the partitions fetched (those whose topic ids the
 * metadata names); once every one is known, the rebalance under way (if any) is over.
 */
function applyTarget(s: ShareConsumerState, ctx: Ctx): void {
  const target = s.target;
  if (!target) return;
  const names = topicNames(s);
  const next = new Map<string, AssignedPartition>();
  let unresolved = false;
  for (const t of target) {
    const topic = names.get(t.topicId);
    if (topic === undefined) {
      unresolved = true;
      continue;
    }
    for (const partition of t.partitions) {
      const k = key(topic, partition);
      next.set(k, s.assigned.get(k) ?? { key: k, topic, topicId: t.topicId, partition, retryAt: 0 });
    }
  }
  if (unresolved) refreshMetadata(s, ctx);
  else {
    s.target = null;
    s.metrics.rebalanceCompleted(ctx.clock.now());
  }
  const revoked = [...s.assigned.keys()].filter((k) => !next.has(k));
  s.assigned = next;
  if (revoked.length > 0) {
    ctx.log.info('share partitions no longer assigned', { groupId: s.config.groupId, memberId: s.memberId, partitions: revoked.map((k) => k.replace('\u0000', '-')) });
    // what was fetched of them and not handed out goes back to the group
    for (const k of revoked) releaseBuffered(s, k, ctx.clock.now());
  }
  ctx.log.debug('share assignment', { groupId: s.config.groupId, memberId: s.memberId, memberEpoch: s.memberEpoch, partitions: [...next.values()].map((a) => `${a.topic}-${a.partition}`) });
}

/** Buffered records of partition `k` are released (a Release acknowledgement each) and dropped. */
function releaseBuffered(s: ShareConsumerState, k: string, now: number): void {
  const kept: BufferedRecords[] = [];
  for (const b of s.buffer) {
    if (b.key !== k) {
      kept.push(b);
      continue;
    }
    onUsedUp(b, now);
    const gaps: number[] = [];
    let rest: ShareConsumedRecord[];
    try {
      rest = b.acquired.rest(gaps);
    } catch {
      // a damaged batch: what is left goes back as it is
      for (const o of b.acquired.abandon()) addAck(s, k, o, AcknowledgeType.Release);
      continue;
    }
    for (const o of gaps) addAck(s, k, o, AcknowledgeType.Gap);
    for (const r of rest) addAck(s, k, r.offset, AcknowledgeType.Release);
  }
  s.buffer = kept;
}

/** A buffered partition's records are used up or dropped: its fetch hears what the application took of them. */
function onUsedUp(b: BufferedRecords, now: number): void {
  b.tally.partDone(b.acquired.recordsTaken, b.acquired.bytesTaken, now);
}

/** Every buffered record is dropped (the member leaves: they go back with ShareMemberGone). */
function dropBuffer(s: ShareConsumerState, now: number): void {
  for (const b of s.buffer) onUsedUp(b, now);
  s.buffer = [];
}

/** Back to joining (epoch 0) under the same member id, after FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID. */
function rejoin(s: ShareConsumerState, ctx: Ctx, code: number): void {
  ctx.log.info('share group member rejoins', { groupId: s.config.groupId, memberId: s.memberId, memberEpoch: s.memberEpoch, errorCode: errorName(code) });
  s.memberEpoch = 0;
  s.phase = 'Joining';
  s.nextHeartbeatAt = 0;
  s.assigned.clear();
  s.target = null;
}

/**
 * max.poll.interval.ms passed without a poll (none parked either): the member leaves its group,
 * as Kafka's consumer does (a heartbeat with epoch -1, whose answer is of no use: it may join
 * again before or after it), drops its assignment and releases what it fetched and did not hand
 * out. It stays out (Stale) until the application polls again.
 */
function maybeLeaveStale(s: ShareConsumerState, ctx: Ctx): void {
  if ((s.phase !== 'Joining' && s.phase !== 'Stable') || s.leaving || s.crash || s.pendingPoll || s.topics.length === 0) return;
  if (ctx.clock.now() - s.lastPollAt < s.config.maxPollIntervalMs) return;
  ctx.log.warn(
    'Consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, ' +
      'which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing ' +
      'max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.',
    { groupId: s.config.groupId, memberId: s.memberId, memberEpoch: s.memberEpoch, maxPollIntervalMs: s.config.maxPollIntervalMs },
  );
  // answers to heartbeats out are of no use now
  s.heartbeatSeq++;
  s.heartbeatInFlight = false;
  if (s.coordinator && s.inGroup) {
    const sentAt = ctx.clock.now();
    s.metrics.heartbeatSent(sentAt);
    void ctx
      .ask<ShareGroupHeartbeatResponse>(
        s.coordinator,
        { type: 'ShareGroupHeartbeat', groupId: s.config.groupId, memberId: s.memberId, memberEpoch: -1, rackId: null, subscribedTopicNames: null, clientId: s.config.clientId },
        { timeoutMs: s.config.requestTimeoutMs },
      )
      .then((response) => ctx.send(ctx.self, { type: 'LeaveResult', stale: true, sentAt, response }));
  }
  s.inGroup = false;
  s.memberEpoch = -1;
  s.phase = 'Stale';
  s.target = null;
  const held = [...s.assigned.keys()];
  s.assigned.clear();
  for (const k of held) releaseBuffered(s, k, ctx.clock.now());
  sendAcks(s, ctx, null);
}

/** A poll after the member left for not polling: it joins again under the same member id (epoch 0). */
function rejoinStale(s: ShareConsumerState, ctx: Ctx, now: number): void {
  ctx.log.warn(
    `Time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, exceeded approximately by ${Math.max(0, now - s.lastPollAt - s.config.maxPollIntervalMs)} ms. Member ${s.memberId} will rejoin the group now.`,
    { groupId: s.config.groupId, memberId: s.memberId },
  );
  s.phase = 'Joining';
  s.memberEpoch = 0;
  s.nextHeartbeatAt = 0;
  s.backoffMs = s.config.retryBackoffMs;
}

// -----------------------------------------------------------------------------------------------
// Acknowledgements

function addAck(s: ShareConsumerState, k: string, offset: number, type: number): void {
  let m = s.pendingAcks.get(k);
  if (!m) s.pendingAcks.set(k, (m = new PendingAcks()));
  m.add(offset, type);
}

function addApplicationAcks(s: ShareConsumerState, acks: readonly PartitionAcknowledgements[]): void {
  for (const p of acks) {
    const k = key(p.topic, p.partition);
    for (let i = 0; i < p.offsets.length; i++) addAck(s, k, p.offsets[i]!, p.types[i] ?? AcknowledgeType.Accept);
  }
}

/** How many record acknowledgements (offsets) these are. */
function offsetsIn(acks: readonly SentAcknowledgements[]): number {
  let n = 0;
  for (const a of acks) n += a.offsets.length;
  return n;
}

function managerRef(brokerId: number, node: string): ActorRef<ShareManagerMsg> {
  return { node, path: sharePartitionManagerPath(brokerId) };
}

/** Sends every pending acknowledgement in a ShareAcknowledge to the broker its records came from; `commitId` waits for them. */
function sendAcks(s: ShareConsumerState, ctx: Ctx, commitId: number | null, timeoutMs = s.config.requestTimeoutMs): void {
  if (s.pendingAcks.size === 0) return;
  const byBroker = new Map<number, { node: string; parts: { source: PartitionSource; batches: AcknowledgementBatch[]; offsets: number[] }[] }>();
  for (const [k, acks] of s.pendingAcks) {
    if (acks.size === 0) continue;
    const { batches, offsets } = acks.toBatches();
    const source = s.sources.get(k);
    if (!source) {
      const [topic, partition] = k.split('\u0000') as [string, string];
      outcome(s, commitId, { topic, topicId: '', partition: Number(partition), offsets, errorCode: ErrorCode.INVALID_RECORD_STATE, errorMessage: 'no record of this partition was acquired by this member' });
      continue;
    }
    let entry = byBroker.get(source.brokerId);
    if (!entry) byBroker.set(source.brokerId, (entry = { node: source.node, parts: [] }));
    entry.parts.push({ source, batches, offsets });
  }
  s.pendingAcks.clear();
  const commit = commitId === null ? undefined : s.commits.get(commitId);
  const sentAt = ctx.clock.now();
  for (const [brokerId, { node, parts }] of byBroker) {
    const sent: SentAcknowledgements[] = parts.map((p) => ({ topic: p.source.topic, topicId: p.source.topicId, partition: p.source.partition, offsets: p.offsets }));
    s.metrics.acknowledgementsSent(offsetsIn(sent), sentAt);
    const renew = parts.some((p) => p.batches.some((b) => b.acknowledgeTypes.includes(AcknowledgeType.Renew)));
    if (commit) commit.outstanding++;
    s.acknowledging++;
    void ctx
      .ask<ShareAcknowledgeResult>(
        managerRef(brokerId, node),
        {
          type: 'ShareAcknowledge',
          groupId: s.config.groupId,
          memberId: s.memberId,
          partitions: parts.map((p) => ({ topic: p.source.topic, topicId: p.source.topicId, partition: p.source.partition, acknowledgementBatches: p.batches })),
        },
        { timeoutMs },
      )
      .then((response) => ctx.send(ctx.self, { type: 'ShareAcknowledgeDone', brokerId, commitId, renew, acknowledgements: sent, sentAt, response }));
  }
}

/** An acknowledgement outcome: for the commit waiting for it, else for the application's callback. */
function outcome(s: ShareConsumerState, commitId: number | null, o: AcknowledgementOutcome): void {
  const commit = commitId === null ? undefined : s.commits.get(commitId);
  if (commit) commit.results.push(o);
  else s.completed.push(o);
}

function finishCommit(s: ShareConsumerState, ctx: Ctx, commitId: number): void {
  const c = s.commits.get(commitId);
  if (!c || c.outstanding > 0) return;
  s.commits.delete(commitId);
  if (s.leaving?.commitId === commitId) {
    // the acknowledgements sent on leaving: the application hears of them with the answer
    s.completed.push(...c.results);
    s.leaving.commitId = null;
    advanceLeave(s, ctx);
    return;
  }
  if (c.token) ctx.replyTo(c.token, { type: 'ShareCommitResult', errorCode: ErrorCode.NONE, results: c.results, completed: takeCompleted(s) } satisfies ShareCommitResult);
}

// -----------------------------------------------------------------------------------------------
// Fetching

function buffered(s: ShareConsumerState, k: string): boolean {
  return s.buffer.some((b) => b.key === k && !b.acquired.done);
}

/**
 * One ShareFetch per leader broker for the assigned partitions with nothing buffered, carrying
 * the acknowledgements of records that broker gave; the acknowledgements left go in a ShareAcknowledge.
 * With share.acquire.mode record_limit, only while a poll waits with nothing buffered and no
 * fetch out, and to one leader at a time (taking turns): a poll's records are at most
 * max.poll.records, acquired when it asked.
 */
function maybeFetch(s: ShareConsumerState, ctx: Ctx): void {
  const recordLimit = s.config.acquireMode === 'record_limit';
  const mayFetch = !recordLimit || (s.pendingPoll !== null && !s.pendingPoll.renewals && s.fetching.size === 0 && !s.buffer.some((b) => !b.acquired.done));
  if (s.polled && s.phase === 'Stable' && !s.leaving && !s.crash && mayFetch) {
    const now = ctx.clock.now();
    const byBroker = new Map<number, { node: string; parts: AssignedPartition[] }>();
    for (const a of s.assigned.values()) {
      if (a.retryAt > now || buffered(s, a.key)) continue;
      const leader = s.metadata.leaderOf(a.topic, a.partition);
      if (!leader) {
        refreshMetadata(s, ctx);
        continue;
      }
      if (s.fetching.has(leader.brokerId)) continue;
      let entry = byBroker.get(leader.brokerId);
      if (!entry) byBroker.set(leader.brokerId, (entry = { node: leader.node, parts: [] }));
      entry.parts.push(a);
    }
    if (recordLimit && byBroker.size > 0) {
      // the leader after the one fetched last, in broker id order
      const ids = [...byBroker.keys()].sort((a, b) => a - b);
      const brokerId = ids.find((id) => id > s.lastFetchedBroker) ?? ids[0]!;
      s.lastFetchedBroker = brokerId;
      const { node, parts } = byBroker.get(brokerId)!;
      sendFetch(s, ctx, brokerId, node, parts);
    } else {
      for (const [brokerId, { node, parts }] of byBroker) sendFetch(s, ctx, brokerId, node, parts);
    }
  }
  sendAcks(s, ctx, null);
}

function sendFetch(s: ShareConsumerState, ctx: Ctx, brokerId: number, node: string, parts: AssignedPartition[]): void {
  const partitions: ShareFetchPartition[] = [];
  const sent: SentAcknowledgements[] = [];
  const attach = (k: string, ref: { topic: string; topicId: string; partition: number }): AcknowledgementBatch[] => {
    const acks = s.pendingAcks.get(k);
    const source = s.sources.get(k);
    if (!acks || acks.size === 0 || source?.brokerId !== brokerId || source.topicId !== ref.topicId) return [];
    // a renewal goes in a ShareAcknowledge, not with a fetch (as Kafka's renewing ShareFetch fetches nothing)
    if (acks.has(AcknowledgeType.Renew)) return [];
    s.pendingAcks.delete(k);
    const { batches, offsets } = acks.toBatches();
    sent.push({ topic: ref.topic, topicId: ref.topicId, partition: ref.partition, offsets });
    return batches;
  };
  for (const a of parts) partitions.push({ topic: a.topic, topicId: a.topicId, partition: a.partition, acknowledgementBatches: attach(a.key, a), fetch: true });
  // acknowledgements of other partitions whose records came from this broker ride along too
  for (const [k, source] of s.sources) {
    if (source.brokerId !== brokerId || parts.some((a) => a.key === k)) continue;
    const batches = attach(k, source);
    if (batches.length > 0) partitions.push({ topic: source.topic, topicId: source.topicId, partition: source.partition, acknowledgementBatches: batches, fetch: false });
  }
  s.fetching.add(brokerId);
  s.fetchedFrom.set(brokerId, node);
  const fetched = parts.map((a) => a.key);
  const sentAt = ctx.clock.now();
  s.metrics.acknowledgementsSent(offsetsIn(sent), sentAt);
  void ctx
    .ask<ShareFetchResult>(
      managerRef(brokerId, node),
      {
        type: 'ShareFetch',
        groupId: s.config.groupId,
        memberId: s.memberId,
        maxWaitMs: s.config.fetchMaxWaitMs,
        minBytes: s.config.fetchMinBytes,
        maxBytes: s.config.fetchMaxBytes,
        // record_limit: what the waiting poll may return, no more
        maxRecords: s.config.acquireMode === 'record_limit' && s.pendingPoll ? s.pendingPoll.maxRecords : s.config.maxPollRecords,
        partitions,
      },
      { timeoutMs: s.config.fetchMaxWaitMs + s.config.requestTimeoutMs },
    )
    .then((response) => ctx.send(ctx.self, { type: 'ShareFetchDone', brokerId, fetched, acknowledgements: sent, sentAt, response }));
}

function onFetchDone(s: ShareConsumerState, ctx: Ctx, m: Extract<ShareConsumerMsg, { type: 'ShareFetchDone' }>): void {
  s.fetching.delete(m.brokerId);
  const now = ctx.clock.now();
  const r = m.response;
  if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
    const code = isFailure(r) ? (r.reason === 'unknown-actor' ? ErrorCode.NOT_LEADER_OR_FOLLOWER : r.errorCode) : r.errorCode;
    const message = isFailure(r) ? r.message : (r.errorMessage ?? errorInfo(code).message);
    ctx.log.debug('share fetch failed', { brokerId: m.brokerId, errorCode: errorName(code), message });
    s.metrics.acknowledgementsFailed(offsetsIn(m.acknowledgements), now);
    for (const a of m.acknowledgements) s.completed.push({ ...a, errorCode: code, errorMessage: message });
    const wait = bumpBackoff(s);
    for (const k of m.fetched) {
      const a = s.assigned.get(k);
      if (a) a.retryAt = now + wait;
    }
    refreshMetadata(s, ctx);
    if (s.leaving) return advanceLeave(s, ctx);
    maybeFetch(s, ctx);
    return;
  }
  s.lockTimeoutMs = r.acquisitionLockTimeoutMs;
  s.metrics.requestAnswered(now - m.sentAt, now);
  let ok = true;
  /** The partitions whose records are buffered now. */
  const fresh: { key: string; acquired: AcquiredRecords }[] = [];
  for (const pr of r.partitions) {
    const k = key(pr.topic, pr.partition);
    const acked = m.acknowledgements.find((a) => a.topicId === pr.topicId && a.partition === pr.partition);
    if (acked) {
      if (pr.acknowledgeErrorCode !== ErrorCode.NONE) s.metrics.acknowledgementsFailed(acked.offsets.length, now);
      s.completed.push({ ...acked, errorCode: pr.acknowledgeErrorCode, errorMessage: pr.acknowledgeErrorMessage });
    }
    if (pr.errorCode !== ErrorCode.NONE) {
      ok = false;
      const message = pr.errorMessage ?? errorInfo(pr.errorCode).message;
      const a = s.assigned.get(k);
      if (a) a.retryAt = now + bumpBackoff(s);
      if (LEADER_MOVED.has(pr.errorCode) || errorInfo(pr.errorCode).retriable) {
        ctx.log.debug('share fetch of a partition failed: retried', { topic: pr.topic, partition: pr.partition, brokerId: m.brokerId, errorCode: errorName(pr.errorCode), message });
        refreshMetadata(s, ctx);
      } else if (SURFACED.has(pr.errorCode)) {
        s.pollError = { errorCode: pr.errorCode, message: `${pr.topic}-${pr.partition}: ${message}` };
      } else {
        ctx.log.warn('share fetch of a partition failed', { topic: pr.topic, partition: pr.partition, brokerId: m.brokerId, errorCode: errorName(pr.errorCode), message });
      }
      continue;
    }
    if (pr.acquiredRecords.length === 0) continue;
    s.sources.set(k, { topic: pr.topic, topicId: pr.topicId, partition: pr.partition, brokerId: m.brokerId, node: s.fetchedFrom.get(m.brokerId) ?? '' });
    // leaving: ShareMemberGone gives them back
    if (s.leaving) continue;
    if (!s.assigned.has(k)) {
      for (const range of pr.acquiredRecords) for (let o = range.firstOffset; o <= range.lastOffset; o++) addAck(s, k, o, AcknowledgeType.Release);
      continue;
    }
    let acquired: AcquiredRecords;
    try {
      acquired = new AcquiredRecords(pr.topic, pr.partition, pr.records, pr.acquiredRecords, s.config.checkCrcs, now + r.acquisitionLockTimeoutMs);
    } catch (err) {
      s.pollError = { errorCode: ErrorCode.CORRUPT_MESSAGE, message: `${pr.topic}-${pr.partition}: ${(err as Error).message}` };
      for (const range of pr.acquiredRecords) for (let o = range.firstOffset; o <= range.lastOffset; o++) addAck(s, k, o, AcknowledgeType.Release);
      continue;
    }
    // decoded as polls take the records (gaps found on the way are acknowledged then)
    fresh.push({ key: k, acquired });
  }
  if (r.partitions.length > 0 && !s.leaving) {
    // the fetch counts once each partition it brought is used up (Kafka's ShareFetchMetricsAggregator)
    const tally = s.metrics.fetchTally(fresh.length, now);
    for (const b of fresh) s.buffer.push({ key: b.key, acquired: b.acquired, tally });
  }
  if (ok) s.backoffMs = s.config.retryBackoffMs;
  if (s.leaving) return advanceLeave(s, ctx);
  answerPoll(s, ctx);
  maybeFetch(s, ctx);
}

// -----------------------------------------------------------------------------------------------
// Polling

/**
 * Takes up to `max` buffered records, in the order they were fetched, decoding them now; those
 * whose lock ran out are dropped. The gaps met are acknowledged. A damaged batch ends the take:
 * the records before it are handed out, the next poll fails (CORRUPT_MESSAGE) and what is left of
 * its partition's fetch is released.
 */
function takeRecords(s: ShareConsumerState, ctx: Ctx, max: number): ShareConsumedRecord[] {
  const now = ctx.clock.now();
  if (s.buffer.some((b) => b.acquired.lockDeadline <= now)) {
    const expired = s.buffer.filter((b) => b.acquired.lockDeadline <= now);
    ctx.log.debug('buffered share records dropped: their acquisition lock ran out', { partitions: expired.map((b) => `${b.acquired.topic}-${b.acquired.partition}`) });
    for (const b of expired) onUsedUp(b, now);
    s.buffer = s.buffer.filter((b) => b.acquired.lockDeadline > now);
  }
  const out: ShareConsumedRecord[] = [];
  const gaps: number[] = [];
  while (out.length < max && s.buffer.length > 0) {
    const b = s.buffer[0]!;
    try {
      b.acquired.take(max - out.length, out, gaps);
    } catch (err) {
      s.pollError = { errorCode: ErrorCode.CORRUPT_MESSAGE, message: `${b.acquired.topic}-${b.acquired.partition}: ${(err as Error).message}` };
      for (const o of b.acquired.abandon()) addAck(s, b.key, o, AcknowledgeType.Release);
    }
    for (const o of gaps) addAck(s, b.key, o, AcknowledgeType.Gap);
    gaps.length = 0;
    if (b.acquired.done) {
      s.buffer.shift();
      onUsedUp(b, now);
    }
    if (s.pollError) break;
  }
  return out;
}

/** Answers a Poll: the application's poll is over (the metrics). */
function replyPoll(s: ShareConsumerState, ctx: Ctx, token: ReplyToken | undefined, result: SharePollResult): void {
  s.metrics.pollEnded(ctx.clock.now());
  if (token) ctx.replyTo(token, result);
}

/** Answers the parked Poll when records are buffered, its time is up, or `force`. */
function answerPoll(s: ShareConsumerState, ctx: Ctx, force = false): void {
  const p = s.pendingPoll;
  if (!p) return;
  const now = ctx.clock.now();
  const fail = s.crash ?? s.pollError;
  if (fail) {
    s.pendingPoll = null;
    s.lastPollAt = now;
    if (fail === s.pollError) s.pollError = null;
    replyPoll(s, ctx, p.token, { type: 'SharePollResult', errorCode: fail.errorCode, errorMessage: fail.message, records: [], acquisitionLockTimeoutMs: s.lockTimeoutMs, completed: takeCompleted(s) });
    return;
  }
  if (p.renewals) {
    // records being renewed: none handed out; answered once the acknowledgements are
    if (s.acknowledging > 0 && !force && now < p.deadline) return;
    s.pendingPoll = null;
    s.lastPollAt = now;
    replyPoll(s, ctx, p.token, { type: 'SharePollResult', errorCode: ErrorCode.NONE, records: [], acquisitionLockTimeoutMs: s.lockTimeoutMs, completed: takeCompleted(s) });
    return;
  }
  const before = s.buffer.length;
  const records = takeRecords(s, ctx, p.maxRecords);
  // a partition whose fetch turned out to hold only gaps is fetched again
  const drained = s.buffer.length < before;
  // a damaged batch met before any record: this poll fails
  if (records.length === 0 && s.pollError) return answerPoll(s, ctx, force);
  if (records.length === 0 && !force && now < p.deadline) {
    if (drained) maybeFetch(s, ctx);
    return;
  }
  s.pendingPoll = null;
  s.lastPollAt = now;
  replyPoll(s, ctx, p.token, { type: 'SharePollResult', errorCode: ErrorCode.NONE, records, acquisitionLockTimeoutMs: s.lockTimeoutMs, completed: takeCompleted(s) });
  if (records.length > 0 || drained) maybeFetch(s, ctx);
}

// -----------------------------------------------------------------------------------------------
// Unsubscribing and closing

function startLeaving(s: ShareConsumerState, ctx: Ctx, token: ReplyToken | undefined, close: boolean, acks: readonly PartitionAcknowledgements[]): void {
  addApplicationAcks(s, acks);
  const now = ctx.clock.now();
  s.leaving = { token, close, commitId: null, goneSent: false, deadline: now + s.config.fetchMaxWaitMs + Math.min(s.config.requestTimeoutMs, LEAVE_TIMEOUT_MS) };
  s.phase = 'Leaving';
  // as Kafka's share consumer, the terminating push goes out as the close begins
  if (close) closeTelemetry(s.telemetry, telemetryHost(s), ctx);
  // records buffered and not handed out go back with ShareMemberGone; a poll waiting gets none
  dropBuffer(s, now);
  answerPoll(s, ctx, true);
  if (s.pendingAcks.size > 0) {
    const id = ++s.seq;
    s.commits.set(id, { token: undefined, outstanding: 0, results: [] });
    s.leaving.commitId = id;
    sendAcks(s, ctx, id, Math.min(s.config.requestTimeoutMs, LEAVE_TIMEOUT_MS));
    finishCommit(s, ctx, id);
  }
  advanceLeave(s, ctx);
}

/** Once the acknowledgements are answered and the fetches are back (or their time is up): ShareMemberGone, then leave the group. */
function advanceLeave(s: ShareConsumerState, ctx: Ctx): void {
  const l = s.leaving;
  if (!l || l.goneSent || l.commitId !== null) return;
  if (s.fetching.size > 0 && ctx.clock.now() < l.deadline) return;
  l.goneSent = true;
  for (const [brokerId, node] of s.fetchedFrom) ctx.send(managerRef(brokerId, node), { type: 'ShareMemberGone', groupId: s.config.groupId, memberId: s.memberId });
  // answers to heartbeats out are of no use now
  s.heartbeatSeq++;
  s.heartbeatInFlight = false;
  if (!s.coordinator || !s.inGroup) return finishLeave(s, ctx);
  const sentAt = ctx.clock.now();
  s.metrics.heartbeatSent(sentAt);
  void ctx
    .ask<ShareGroupHeartbeatResponse>(
      s.coordinator,
      { type: 'ShareGroupHeartbeat', groupId: s.config.groupId, memberId: s.memberId, memberEpoch: -1, rackId: null, subscribedTopicNames: null, clientId: s.config.clientId },
      { timeoutMs: Math.min(s.config.requestTimeoutMs, LEAVE_TIMEOUT_MS) },
    )
    .then((response) => ctx.send(ctx.self, { type: 'LeaveResult', stale: false, sentAt, response }));
}

function finishLeave(s: ShareConsumerState, ctx: Ctx): void {
  const l = s.leaving;
  if (!l) return;
  s.leaving = null;
  s.assigned.clear();
  s.target = null;
  s.topics = [];
  s.topicsToSend = false;
  dropBuffer(s, ctx.clock.now());
  s.pendingAcks.clear();
  s.sources.clear();
  s.fetchedFrom.clear();
  s.polled = false;
  s.inGroup = false;
  s.memberEpoch = l.close ? -1 : 0;
  s.phase = l.close ? 'Closed' : 'Unsubscribed';
  if (l.close) ctx.timers.cancel(TICK_TIMER);
  ctx.log.info(l.close ? 'share consumer closed' : 'share consumer unsubscribed', { groupId: s.config.groupId, memberId: s.memberId });
  const token = l.token;
  if (!token) return;
  const answer = () => ctx.replyTo(token, { type: 'ShareConsumerDone', errorCode: ErrorCode.NONE, completed: takeCompleted(s) } satisfies ShareConsumerDone);
  // closed: answered once the terminating push is
  if (l.close) whenTelemetryClosed(s.telemetry, answer);
  else answer();
}

/**
 * What the telemetry push loop reads of the share consumer: its brokers, its metrics, and
 * KIP-714's consumer labels as Kafka's share consumer gives them (group_id, group_member_id from
 * the start: the member makes its own id, KIP-1082; client_rack when set).
 */
function telemetryHost(s: ShareConsumerState): TelemetryHost {
  return {
    brokers: () => s.metadata.brokerRefs(),
    metrics: (now) => s.metrics.snapshot(now, s.config.clientId),
    labels: () => {
      const labels: Record<string, string> = { group_id: s.config.groupId, group_member_id: s.memberId };
      if (s.config.clientRack !== '') labels['client_rack'] = s.config.clientRack;
      return labels;
    },
  };
}

function done(ctx: ActorContext<ShareConsumerMsg>, s: ShareConsumerState, errorCode: number = ErrorCode.NONE, errorMessage?: string): void {
  const out: ShareConsumerDone = { type: 'ShareConsumerDone', errorCode, completed: takeCompleted(s) };
  if (errorMessage !== undefined) out.errorMessage = errorMessage;
  ctx.reply(out);
}

export const shareConsumer = defineActor<ShareConsumerState, ShareConsumerMsg, ShareConsumerArgs>({
  kind: 'share-consumer',
  supervision: 'stop',

  init(ctx, args) {
    const config = parseShareConsumerConfig(args.config);
    const s: ShareConsumerState = {
      config,
      metadata: new MetadataCache(args.bootstrap),
      metadataInFlight: false,
      metadataAskedAt: -Infinity,
      memberId: args.memberId ?? randomUUID(),
      memberEpoch: 0,
      phase: 'Unsubscribed',
      inGroup: false,
      lastPollAt: 0,
      topics: [],
      topicsToSend: false,
      coordinator: null,
      findingCoordinator: false,
      heartbeatSeq: 0,
      heartbeatInFlight: false,
      nextHeartbeatAt: 0,
      heartbeatIntervalMs: 5_000,
      backoffMs: config.retryBackoffMs,
      target: null,
      assigned: new Map(),
      fetching: new Set(),
      lastFetchedBroker: -1,
      fetchedFrom: new Map(),
      sources: new Map(),
      buffer: [],
      pendingAcks: new Map(),
      completed: [],
      acknowledging: 0,
      commits: new Map(),
      seq: 0,
      pendingPoll: null,
      polled: false,
      lockTimeoutMs: null,
      crash: null,
      pollError: null,
      leaving: null,
      metrics: new ShareConsumerMetrics({ windowMs: config.metricsSampleWindowMs, samples: config.metricsNumSamples }, ctx.clock.now()),
      telemetry: startTelemetry(config.enableMetricsPush, { clientId: config.clientId, requestTimeoutMs: config.requestTimeoutMs, retryBackoffMs: config.retryBackoffMs }, ctx),
    };
    // the poll interval runs from the start, as Kafka's poll timer runs from the consumer's
    s.lastPollAt = ctx.clock.now();
    refreshMetadata(s, ctx);
    ctx.timers.startPeriodic(TICK_TIMER, TICK_MS, { type: 'Tick' });
    return s;
  },

  schema: {
    Subscribe: { topics: 'array' },
    Unsubscribe: { acknowledgements: 'array' },
    Poll: { maxRecords: 'integer', timeoutMs: 'integer', acknowledgements: 'array', renewals: 'boolean' },
    Commit: { acknowledgements: 'array', wait: 'boolean', timeoutMs: 'integer' },
    Close: { acknowledgements: 'array' },
  },

  handlers: {
    Subscribe(s, m, ctx) {
      if (s.phase === 'Closed' || s.leaving) return done(ctx, s, ErrorCode.INVALID_REQUEST, 'the share consumer is closing or leaving its group');
      if (s.crash) return done(ctx, s, s.crash.errorCode, s.crash.message);
      const topics = [...new Set(m.topics)].sort();
      if (topics.length === 0) return done(ctx, s, ErrorCode.INVALID_REQUEST, 'subscribe needs at least one topic');
      if (topics.join('\u0000') !== s.topics.join('\u0000')) {
        s.topics = topics;
        s.topicsToSend = true;
        // the coordinator hears of it at once
        s.nextHeartbeatAt = 0;
      }
      if (s.phase === 'Unsubscribed') {
        s.phase = 'Joining';
        s.memberEpoch = 0;
        ctx.log.info('share consumer joins its group', { groupId: s.config.groupId, memberId: s.memberId, topics });
      }
      done(ctx, s);
      maybeHeartbeat(s, ctx);
    },

    Unsubscribe(s, m, ctx) {
      if (s.leaving) return done(ctx, s, ErrorCode.INVALID_REQUEST, 'the share consumer is already leaving its group');
      if (s.phase === 'Unsubscribed' || s.phase === 'Closed') {
        addApplicationAcks(s, m.acknowledgements);
        sendAcks(s, ctx, null);
        return done(ctx, s);
      }
      startLeaving(s, ctx, ctx.deferReply(), false, m.acknowledgements);
    },

    Poll(s, m, ctx) {
      addApplicationAcks(s, m.acknowledgements);
      if (s.pendingPoll) {
        // a newer poll replaces a parked one
        const old = s.pendingPoll;
        s.pendingPoll = null;
        replyPoll(s, ctx, old.token, { type: 'SharePollResult', errorCode: ErrorCode.NONE, records: [], acquisitionLockTimeoutMs: s.lockTimeoutMs, completed: [] });
      }
      const now = ctx.clock.now();
      s.metrics.pollStarted(now);
      s.pendingPoll = { token: ctx.deferReply(), deadline: now + Math.max(0, m.timeoutMs), maxRecords: Math.max(1, Math.min(m.maxRecords, s.config.maxPollRecords)), renewals: m.renewals };
      if (s.phase === 'Stale') rejoinStale(s, ctx, now);
      s.lastPollAt = now;
      if (s.phase === 'Unsubscribed' || s.phase === 'Closed' || s.leaving) {
        const p = s.pendingPoll;
        s.pendingPoll = null;
        sendAcks(s, ctx, null);
        replyPoll(s, ctx, p.token, { type: 'SharePollResult', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'the share consumer is not subscribed to any topics', records: [], acquisitionLockTimeoutMs: s.lockTimeoutMs, completed: takeCompleted(s) });
        return;
      }
      s.polled = true;
      // renewals go at once, alone (not with a fetch)
      if (m.renewals) sendAcks(s, ctx, null);
      maybeHeartbeat(s, ctx);
      maybeFetch(s, ctx);
      answerPoll(s, ctx);
    },

    Commit(s, m, ctx) {
      addApplicationAcks(s, m.acknowledgements);
      if (!m.wait) {
        sendAcks(s, ctx, null);
        ctx.reply({ type: 'ShareCommitResult', errorCode: ErrorCode.NONE, results: [], completed: takeCompleted(s) } satisfies ShareCommitResult);
        return;
      }
      const id = ++s.seq;
      s.commits.set(id, { token: ctx.deferReply(), outstanding: 0, results: [] });
      sendAcks(s, ctx, id, Math.max(1, Math.min(m.timeoutMs, s.config.requestTimeoutMs)));
      finishCommit(s, ctx, id);
    },

    Wakeup(s, _m, ctx) {
      answerPoll(s, ctx, true);
    },

    Close(s, m, ctx) {
      if (s.phase === 'Closed') return done(ctx, s);
      if (s.leaving) {
        // an unsubscribe under way: close once it is done
        addApplicationAcks(s, m.acknowledgements);
        if (!s.leaving.close) closeTelemetry(s.telemetry, telemetryHost(s), ctx);
        s.leaving.close = true;
        const earlier = s.leaving.token;
        s.leaving.token = ctx.deferReply();
        if (earlier) ctx.replyTo(earlier, { type: 'ShareConsumerDone', errorCode: ErrorCode.NONE, completed: [] } satisfies ShareConsumerDone);
        return;
      }
      startLeaving(s, ctx, ctx.deferReply(), true, m.acknowledgements);
    },

    DescribeShareConsumer(s, _m, ctx) {
      ctx.reply({
        type: 'ShareConsumerDescription',
        phase: s.phase,
        memberId: s.memberId,
        memberEpoch: s.memberEpoch,
        heartbeatIntervalMs: s.heartbeatIntervalMs,
        subscription: [...s.topics],
        assignment: [...s.assigned.values()].map((a) => ({ topic: a.topic, topicId: a.topicId, partition: a.partition })),
        fetchedFrom: [...s.fetchedFrom.keys()].sort((a, b) => a - b),
        telemetry: describeTelemetry(s.telemetry),
      } satisfies ShareConsumerDescription);
    },

    ...telemetryHandlers(telemetryHost),

    Metrics(s, _m, ctx) {
      ctx.reply({ type: 'ShareConsumerMetrics', metrics: s.metrics.snapshot(ctx.clock.now(), s.config.clientId) } satisfies ShareConsumerMetricsReply);
    },

    Tick(s, _m, ctx) {
      if (s.phase === 'Closed') return;
      const now = ctx.clock.now();
      if (now - s.metadata.updatedAt >= s.config.metadataMaxAgeMs) refreshMetadata(s, ctx);
      if (s.leaving) {
        advanceLeave(s, ctx);
        return;
      }
      maybeLeaveStale(s, ctx);
      maybeHeartbeat(s, ctx);
      answerPoll(s, ctx);
      maybeFetch(s, ctx);
    },

    MetadataResult(s, m, ctx) {
      s.metadataInFlight = false;
      if (!m.metadata) return;
      s.metadata.update(m.metadata, ctx.clock.now());
      if (s.target) applyTarget(s, ctx);
      maybeFetch(s, ctx);
    },

    CoordinatorResult(s, m, ctx) {
      s.findingCoordinator = false;
      const r = m.response;
      if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
        ctx.log.debug('share group coordinator not found yet', { groupId: s.config.groupId, errorCode: errorName(r.errorCode) });
        s.nextHeartbeatAt = ctx.clock.now() + bumpBackoff(s);
        return;
      }
      s.coordinator = { node: r.node, path: coordinatorPath(r.brokerId) };
      s.nextHeartbeatAt = 0;
      maybeHeartbeat(s, ctx);
    },

    HeartbeatResult(s, m, ctx) {
      // answered, whatever the answer and even if it is of no use now
      if (!isFailure(m.response)) s.metrics.heartbeatAnswered(ctx.clock.now() - m.sentAt, ctx.clock.now());
      if (m.seq !== s.heartbeatSeq) return;
      s.heartbeatInFlight = false;
      if (s.leaving || (s.phase !== 'Joining' && s.phase !== 'Stable')) return;
      const r = m.response;
      const now = ctx.clock.now();
      const code = isFailure(r) ? failureCode(r) : r.errorCode;
      if (code === ErrorCode.NONE && !isFailure(r)) {
        s.backoffMs = s.config.retryBackoffMs;
        if (m.topics !== null && m.topics.join('\u0000') === s.topics.join('\u0000')) s.topicsToSend = false;
        const joined = s.phase === 'Joining';
        s.memberEpoch = r.memberEpoch;
        if (r.heartbeatIntervalMs > 0) s.heartbeatIntervalMs = r.heartbeatIntervalMs;
        s.phase = 'Stable';
        // a subscription changed while this heartbeat was out goes at once
        s.nextHeartbeatAt = s.topicsToSend ? 0 : now + s.heartbeatIntervalMs;
        if (joined) ctx.log.info('share consumer joined its group', { groupId: s.config.groupId, memberId: s.memberId, memberEpoch: s.memberEpoch, heartbeatIntervalMs: s.heartbeatIntervalMs });
        if (r.assignment !== null) {
          // an assignment other than the member's: a rebalance until it has it (Kafka's RECONCILING)
          if (!sameAssignment(r.assignment, s.assigned)) s.metrics.rebalanceStarted(now);
          s.target = r.assignment;
          applyTarget(s, ctx);
        }
        maybeFetch(s, ctx);
        return;
      }
      const message = isFailure(r) ? r.message : (r.errorMessage ?? errorInfo(code).message);
      if (code === ErrorCode.FENCED_MEMBER_EPOCH || code === ErrorCode.UNKNOWN_MEMBER_ID) return rejoin(s, ctx, code);
      if (COORDINATOR_MOVED.has(code) || code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
        ctx.log.debug('share group heartbeat to be sent again', { groupId: s.config.groupId, errorCode: errorName(code), message });
        if (code !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) s.coordinator = null;
        s.nextHeartbeatAt = now + bumpBackoff(s);
        return;
      }
      crash(s, ctx, code, `ShareGroupHeartbeat failed: ${message}`);
    },

    LeaveResult(s, m, ctx) {
      const r = m.response;
      if (!isFailure(r)) s.metrics.heartbeatAnswered(ctx.clock.now() - m.sentAt, ctx.clock.now());
      const code = isFailure(r) ? failureCode(r) : r.errorCode;
      if (code !== ErrorCode.NONE) ctx.log.debug('share group leave answered with an error', { groupId: s.config.groupId, memberId: s.memberId, stale: m.stale, errorCode: errorName(code) });
      // a stale member's leave: nothing waits for it
      if (!m.stale) finishLeave(s, ctx);
    },

    ShareFetchDone(s, m, ctx) {
      onFetchDone(s, ctx, m);
    },

    ShareAcknowledgeDone(s, m, ctx) {
      s.acknowledging--;
      const r = m.response;
      const now = ctx.clock.now();
      // a renewal's answer names the lock the records have now
      if (m.renew && !isFailure(r) && r.errorCode === ErrorCode.NONE && r.acquisitionLockTimeoutMs > 0) s.lockTimeoutMs = r.acquisitionLockTimeoutMs;
      if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
        const code = isFailure(r) ? (r.reason === 'unknown-actor' ? ErrorCode.NOT_LEADER_OR_FOLLOWER : r.errorCode) : r.errorCode;
        const message = isFailure(r) ? r.message : (r.errorMessage ?? errorInfo(code).message);
        s.metrics.acknowledgementsFailed(offsetsIn(m.acknowledgements), now);
        for (const a of m.acknowledgements) outcome(s, m.commitId, { ...a, errorCode: code, errorMessage: message });
      } else {
        s.metrics.requestAnswered(now - m.sentAt, now);
        for (const a of m.acknowledgements) {
          const pr = r.partitions.find((p) => p.topicId === a.topicId && p.partition === a.partition);
          const code = pr?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
          if (code !== ErrorCode.NONE) s.metrics.acknowledgementsFailed(a.offsets.length, now);
          if (LEADER_MOVED.has(code)) refreshMetadata(s, ctx);
          outcome(s, m.commitId, { ...a, errorCode: code, errorMessage: pr ? pr.errorMessage : 'the broker did not answer for this partition' });
        }
      }
      if (m.commitId !== null) {
        const c = s.commits.get(m.commitId);
        if (c) c.outstanding--;
        finishCommit(s, ctx, m.commitId);
      }
      // a poll waiting for renewals
      answerPoll(s, ctx);
    },
  },
});
