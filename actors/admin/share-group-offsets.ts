/**
 * The offsets of share groups (KIP-932) as Kafka 4.2's group coordinator handles
 * DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets, for both the
 * admin actor (admin.ts) and the brokers' Kafka APIs 90-92 (src/kafka/api/share-group-offsets.ts):
 * each caller gives the environment it asks through (ShareOffsetsEnv), the logic is here once.
 *
 * A share partition's offsets are its state at its share coordinator (__share_group_state,
 * actors/share-coordinator): its start offset and the delivery states of the records above it.
 *
 *  - describe: per partition the start offset (-1: no state), the leader epoch the state was
 *    last written at (-1: none) and the lag, Kafka 4.2's DescribeShareGroupOffsets v1: the
 *    partition's high watermark - the start offset - the records at or above it already
 *    Acknowledged or Archived (-1 without state or when the high watermark cannot be read; never
 *    below 0). Named topics are read as named (a topic that does not exist: its partitions
 *    -1, topic id zero, as Kafka). No topics named (Kafka's "all topics"): the partitions the group
 *    has state for (every live broker's share coordinator asked for the group's states) and
 *    every partition of the topics its members subscribe to or are assigned (Kafka initializes
 *    those when it assigns them; samsa when they are first fetched).
 *  - alter: the group must be Empty (NON_EMPTY_GROUP), or not exist (Kafka creates it; samsa's
 *    coordinator makes it at its first heartbeat, the states written here waiting for it); an
 *    id of a consumer or classic group is GROUP_ID_NOT_FOUND. Each partition gets a fresh state
 *    at its offset, its state epoch one above the stored one (InitializeShareGroupState: the
 *    share partition manager holding the old state is fenced when it writes), then every live
 *    broker's share partition manager forgets the partitions (ForgetShareGroup) and loads them
 *    again when next fetched. A topic or partition that does not exist is
 *    UNKNOWN_TOPIC_OR_PARTITION; a negative offset INVALID_REQUEST.
 *  - delete: the share group must exist (GROUP_ID_NOT_FOUND) and be Empty (NON_EMPTY_GROUP);
 *    every partition of each topic with state has it removed (DeleteShareGroupState), the share
 *    partition managers forget them. A topic that does not exist, or has no state for the
 *    group, is UNKNOWN_TOPIC_OR_PARTITION ("There is no offset information to delete.").
 *
 * Unlike Kafka, whose coordinator checks the group and writes in one step, the group's state is
 * read (ShareGroupDescribe) before the share states are written: a member joining in between is
 * not refused. ACLs are the Kafka API's business, not this module's.
 */
import { kafkaTopicId, ZERO_TOPIC_ID } from '../../src/protocol/topic-id.js';
import { replicaPath, type ClusterMetadata, type TopicMetadata } from '../../src/protocol/cluster.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { finalizedLevel, SHARE_GROUPS_OFF, SHARE_VERSION } from '../../src/protocol/features.js';
import { isFailure, type ActorRef, type Failure, type Message } from '../../src/runtime/types.js';
import type { BrokerMsg } from '../broker/messages.js';
import type { CoordinatorMsg, FindCoordinatorResponse, ListGroupsResponse, ShareGroupDescribeResponse } from '../group-coordinator/messages.js';
import { LATEST_TIMESTAMP, type ListOffsetsResult } from '../partition-replica/messages.js';
import {
  shareCoordinatorKey,
  shareCoordinatorPath,
  type DeleteShareGroupStateResult,
  type InitializeShareGroupStateResult,
  type ReadShareGroupStateResult,
  type ReadShareGroupStateSummaryResult,
  type ShareCoordinatorDescription,
  type ShareCoordinatorMsg,
  type ShareStateBatch,
} from '../share-coordinator/messages.js';
import { sharePartitionManagerPath, type ShareManagerMsg } from '../share-partition/messages.js';

/** What the operations ask through: the admin actor's context, or a broker's Kafka API context. */
export interface ShareOffsetsEnv {
  /** How long one ask, and the retries of a share coordinator that moves or loads, may take. */
  readonly timeoutMs: number;
  /** As the actor contexts' ask: a reply type given leaves the message unchecked. */
  ask<R extends Message, T extends Message = any>(to: ActorRef<T>, msg: T): Promise<R | Failure>;
  send<T extends Message>(to: ActorRef<T>, msg: T): void;
  sleep(ms: number): Promise<void>;
  now(): number;
  /** The cluster's metadata: every topic (with its id and leaders) and broker. */
  metadata(): Promise<ClusterMetadata | Failure>;
  /** A broker that answers FindCoordinator (key type share). */
  broker(): ActorRef<BrokerMsg>;
  /** Asks the group's coordinator (the admin finds it and asks again while it moves; a broker asks its own). */
  askGroupCoordinator<R extends Message>(groupId: string, msg: CoordinatorMsg): Promise<R | Failure>;
}

export interface SharePartitionOffset {
  partition: number;
  /** -1: the group has no state for the partition. */
  startOffset: number;
  /** The leader epoch its state was last written at; -1: none. */
  leaderEpoch: number;
  /** -1: unknown (no state, or the high watermark could not be read). */
  lag: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface ShareTopicOffsets {
  topic: string;
  /** Kafka's form; ZERO_TOPIC_ID for a topic that does not exist. */
  topicId: string;
  partitions: SharePartitionOffset[];
}

export interface ShareGroupOffsets {
  errorCode: number;
  errorMessage: string | null;
  topics: ShareTopicOffsets[];
}

export interface AlteredShareTopic {
  topic: string;
  topicId: string;
  partitions: { partition: number; errorCode: number; errorMessage: string | null }[];
}

export interface AlteredShareGroupOffsets {
  errorCode: number;
  errorMessage: string | null;
  topics: AlteredShareTopic[];
}

export interface DeletedShareTopic {
  topic: string;
  topicId: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface DeletedShareGroupOffsets {
  errorCode: number;
  errorMessage: string | null;
  topics: DeletedShareTopic[];
}

type Refusal = { errorCode: number; errorMessage: string };

const ACKNOWLEDGED = 2;
const ARCHIVED = 4;

function refusal(errorCode: number, errorMessage?: string | null): Refusal {
  return { errorCode, errorMessage: errorMessage ?? errorInfo(errorCode).message };
}

function failed(r: Failure): Refusal {
  return { errorCode: r.errorCode, errorMessage: r.message };
}

// ---------------------------------------------------------------------------------------------
// The share coordinators

/** Codes after which the share coordinator is looked up again and asked again (it moves, loads, or its topic is being made). */
const COORDINATOR_RETRIABLE: ReadonlySet<number> = new Set([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR, ErrorCode.REQUEST_TIMED_OUT]);
const RETRY_BACKOFF_MS = 50;
const RETRY_BACKOFF_MAX_MS = 1_000;

type KeyRequest = Extract<ShareCoordinatorMsg, { groupId: string; topicId: string; partition: number }>;

/**
 * Asks the share coordinator of the request's key, as Kafka's persister: found afresh
 * (FindCoordinator, key type share) and asked again with a doubling backoff while it is not
 * available, loading or elsewhere, for at most the timeout. The reply, or the last error.
 */
async function askShareCoordinator<R extends { type: string; errorCode: number; errorMessage?: string }>(env: ShareOffsetsEnv, msg: KeyRequest): Promise<R | Refusal> {
  const key = shareCoordinatorKey(msg);
  const until = env.now() + env.timeoutMs;
  let backoff = RETRY_BACKOFF_MS;
  for (;;) {
    let why: Refusal;
    const found = await env.ask<FindCoordinatorResponse>(env.broker(), { type: 'FindCoordinator', key, keyType: 'share' });
    if (isFailure(found)) why = refusal(ErrorCode.COORDINATOR_NOT_AVAILABLE, found.message);
    else if (found.errorCode !== ErrorCode.NONE) why = refusal(found.errorCode, found.errorMessage);
    else {
      const r = await env.ask<R>({ node: found.node, path: shareCoordinatorPath(found.brokerId) }, msg);
      if (!isFailure(r) && !COORDINATOR_RETRIABLE.has(r.errorCode)) return r;
      // an actor not there (a broker stopping, a node gone) is a coordinator not available
      why = isFailure(r) ? refusal(r.reason === 'timeout' ? ErrorCode.REQUEST_TIMED_OUT : ErrorCode.COORDINATOR_NOT_AVAILABLE, r.message) : refusal(r.errorCode, r.errorMessage);
    }
    if (!COORDINATOR_RETRIABLE.has(why.errorCode) || env.now() + backoff > until) return why;
    await env.sleep(backoff);
    backoff = Math.min(backoff * 2, RETRY_BACKOFF_MAX_MS);
  }
}

/** An error of this module's own, not an actor's reply (every reply has a type). */
function isRefusal(r: object): r is Refusal {
  return !('type' in r);
}

/** How many offsets in [from, to) the batches hold Acknowledged or Archived (Kafka's delivery complete count). */
export function deliveryCompleteCount(batches: readonly ShareStateBatch[], from: number, to: number): number {
  let n = 0;
  for (const b of batches) {
    if (b.deliveryState !== ACKNOWLEDGED && b.deliveryState !== ARCHIVED) continue;
    const lo = Math.max(b.firstOffset, from);
    const hi = Math.min(b.lastOffset + 1, to);
    if (hi > lo) n += hi - lo;
  }
  return n;
}

/**
 * Kafka 4.2's share partition lag: high watermark - start offset - the records at or above the
 * start offset already Acknowledged or Archived; never below 0 (a start offset past the high
 * watermark has nothing to deliver).
 */
export function sharePartitionLag(highWatermark: number, startOffset: number, batches: readonly ShareStateBatch[]): number {
  return Math.max(0, highWatermark - startOffset - deliveryCompleteCount(batches, startOffset, highWatermark));
}

// ---------------------------------------------------------------------------------------------
// Metadata

function topicNamed(md: ClusterMetadata, name: string): TopicMetadata | undefined {
  return md.topics.find((t) => t.name === name);
}

function liveBrokers(md: ClusterMetadata): { brokerId: number; node: string }[] {
  return md.brokers.filter((b) => !b.fenced);
}

/** The high watermark of a partition, from its leader. */
async function highWatermark(env: ShareOffsetsEnv, md: ClusterMetadata, t: TopicMetadata, partition: number): Promise<number | Refusal> {
  const leader = t.partitions.find((p) => p.partition === partition)?.leader ?? -1;
  const node = md.brokers.find((b) => b.brokerId === leader && !b.fenced)?.node;
  if (node === undefined) return refusal(ErrorCode.LEADER_NOT_AVAILABLE, `${t.name}-${partition} has no leader`);
  const r = await env.ask<ListOffsetsResult>({ node, path: replicaPath(leader, t.name, partition) }, { type: 'ListOffsets', timestamp: LATEST_TIMESTAMP, currentLeaderEpoch: -1 });
  if (isFailure(r)) return refusal(r.reason === 'unknown-actor' ? ErrorCode.NOT_LEADER_OR_FOLLOWER : r.errorCode, `${t.name}-${partition}: ${r.message}`);
  if (r.errorCode !== ErrorCode.NONE) return refusal(r.errorCode);
  return r.offset;
}

// ---------------------------------------------------------------------------------------------
// The group

/** The coordinator's description of the share group (its errorCode may say there is none), or why it gave none. */
async function describeGroup(env: ShareOffsetsEnv, groupId: string): Promise<ShareGroupDescribeResponse | Refusal> {
  const r = await env.askGroupCoordinator<ShareGroupDescribeResponse>(groupId, { type: 'ShareGroupDescribe', groups: [groupId] });
  if (isFailure(r)) return failed(r);
  if (!r.groups.some((x) => x.groupId === groupId)) return refusal(r.errorCode === ErrorCode.NONE ? ErrorCode.UNKNOWN_SERVER_ERROR : r.errorCode, r.errorCode === ErrorCode.NONE ? `the coordinator did not describe group ${groupId}` : undefined);
  return r;
}

/**
 * Null when the group's share state may be changed: a share group in state Empty, or (`absentOk`)
 * no group of that id at all; else why not.
 */
async function inactiveGroup(env: ShareOffsetsEnv, groupId: string, absentOk: boolean): Promise<Refusal | null> {
  const d = await describeGroup(env, groupId);
  if (isRefusal(d)) return d;
  const g = d.groups.find((x) => x.groupId === groupId)!;
  if (g.errorCode === ErrorCode.NONE) return g.groupState === 'Empty' ? null : refusal(ErrorCode.NON_EMPTY_GROUP, `Share group '${groupId}' is not empty (state ${g.groupState}, ${g.members.length} members).`);
  if (g.errorCode !== ErrorCode.GROUP_ID_NOT_FOUND || !absentOk) return refusal(g.errorCode, g.errorMessage);
  // no share group: a consumer or classic group of that id is not one to give share offsets
  const other = await env.askGroupCoordinator<ListGroupsResponse>(groupId, { type: 'ListGroups', typesFilter: ['classic', 'consumer'] });
  if (isFailure(other)) return failed(other);
  if (other.errorCode !== ErrorCode.NONE) return refusal(other.errorCode);
  if (other.groups.some((x) => x.groupId === groupId)) return refusal(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
  return null;
}

/**
 * Every live broker's share partition manager forgets the partitions' states (it loads them
 * again when they are next fetched); resolves once each has (or could not be asked).
 */
async function forget(env: ShareOffsetsEnv, md: ClusterMetadata, groupId: string, partitions: { topicId: string; partition: number }[]): Promise<void> {
  if (partitions.length === 0) return;
  await Promise.all(
    liveBrokers(md).map(async (b) => {
      const manager: ActorRef<ShareManagerMsg> = { node: b.node, path: sharePartitionManagerPath(b.brokerId) };
      env.send(manager, { type: 'ForgetShareGroup', groupId, partitions } satisfies ShareManagerMsg);
      // answered after the ForgetShareGroup before it: the partitions are forgotten
      await env.ask(manager, { type: 'DescribeSharePartitions', groupId } satisfies ShareManagerMsg);
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Describe

/** One partition's start offset, leader epoch and lag. */
async function describePartition(env: ShareOffsetsEnv, md: ClusterMetadata, groupId: string, t: TopicMetadata, partition: number): Promise<SharePartitionOffset> {
  const none = (errorCode: number = ErrorCode.NONE, errorMessage: string | null = null): SharePartitionOffset => ({ partition, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode, errorMessage });
  // a partition the topic does not have has no state (as Kafka's persister answers it)
  if (!t.partitions.some((p) => p.partition === partition)) return none();
  const key = { groupId, topicId: kafkaTopicId(t.topicId), partition };
  const [summary, state] = await Promise.all([
    askShareCoordinator<ReadShareGroupStateSummaryResult>(env, { type: 'ReadShareGroupStateSummary', ...key, leaderEpoch: -1 }),
    askShareCoordinator<ReadShareGroupStateResult>(env, { type: 'ReadShareGroupState', ...key, leaderEpoch: -1 }),
  ]);
  for (const r of [summary, state]) {
    if (isRefusal(r)) return none(r.errorCode, r.errorMessage);
    if (r.errorCode !== ErrorCode.NONE) return none(r.errorCode, r.errorMessage ?? errorInfo(r.errorCode).message);
  }
  const s = state as ReadShareGroupStateResult;
  if (s.startOffset < 0) return none();
  const leaderEpoch = (summary as ReadShareGroupStateSummaryResult).leaderEpoch;
  const hwm = await highWatermark(env, md, t, partition);
  // as Kafka: the high watermark not read is the partition's error
  if (typeof hwm !== 'number') return { partition, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode: hwm.errorCode, errorMessage: hwm.errorMessage };
  return { partition, startOffset: s.startOffset, leaderEpoch, lag: sharePartitionLag(hwm, s.startOffset, s.stateBatches), errorCode: ErrorCode.NONE, errorMessage: null };
}

/**
 * The partitions of Kafka's "all topics" describe: those the group has state for, at every live
 * broker's share coordinator, and every partition of the topics its members subscribe to or are
 * assigned. Null and why when the group or a share coordinator cannot be asked.
 */
async function groupPartitions(env: ShareOffsetsEnv, md: ClusterMetadata, groupId: string): Promise<Map<string, Set<number>> | Refusal> {
  const wanted = new Map<string, Set<number>>();
  const add = (topic: string, partition: number) => {
    let s = wanted.get(topic);
    if (!s) wanted.set(topic, (s = new Set()));
    s.add(partition);
  };
  const d = await describeGroup(env, groupId);
  if (isRefusal(d)) return d;
  const g = d.groups.find((x) => x.groupId === groupId)!;
  if (g.errorCode === ErrorCode.NONE) {
    for (const m of g.members) {
      for (const name of [...m.subscribedTopicNames, ...m.assignment.map((a) => a.topicName)]) {
        for (const p of topicNamed(md, name)?.partitions ?? []) add(name, p.partition);
      }
    }
  } else if (g.errorCode !== ErrorCode.GROUP_ID_NOT_FOUND) return refusal(g.errorCode, g.errorMessage);
  const byId = new Map(md.topics.map((t) => [kafkaTopicId(t.topicId), t]));
  for (const b of liveBrokers(md)) {
    const r = await env.ask<ShareCoordinatorDescription>({ node: b.node, path: shareCoordinatorPath(b.brokerId) }, { type: 'DescribeShareCoordinator', groupId } satisfies ShareCoordinatorMsg);
    if (isFailure(r)) return refusal(ErrorCode.COORDINATOR_NOT_AVAILABLE, `the share coordinator of broker ${b.brokerId} did not answer: ${r.message}`);
    for (const st of r.states) {
      const t = byId.get(st.topicId);
      // a topic deleted since: its states are not shown (as Kafka's)
      if (st.groupId === groupId && t && st.startOffset >= 0) add(t.name, st.partition);
    }
  }
  return wanted;
}

/**
 * Kafka's DescribeShareGroupOffsets for one group: the named topics' partitions (all of a
 * topic's where `partitions` is null), or with `topics` null those of groupPartitions.
 */
export async function describeShareGroupOffsets(env: ShareOffsetsEnv, groupId: string, topics: { topic: string; partitions: number[] | null }[] | null): Promise<ShareGroupOffsets> {
  const md = await env.metadata();
  if (isFailure(md)) return { ...failed(md), topics: [] };
  // share.version 0: as Kafka, UNSUPPORTED_VERSION (alter and delete hear it from the group coordinator)
  if (md.features && finalizedLevel(md.features, SHARE_VERSION) < 1) return { ...refusal(ErrorCode.UNSUPPORTED_VERSION, SHARE_GROUPS_OFF), topics: [] };
  let asked: { topic: string; partitions: number[] | null }[];
  if (topics === null) {
    const all = await groupPartitions(env, md, groupId);
    if (!(all instanceof Map)) return { ...all, topics: [] };
    asked = [...all].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([topic, ps]) => ({ topic, partitions: [...ps].sort((a, b) => a - b) }));
  } else asked = topics;
  const out = await Promise.all(
    asked.map(async ({ topic, partitions }): Promise<ShareTopicOffsets> => {
      const t = topicNamed(md, topic);
      // as Kafka: a topic that does not exist has no offsets (start offset -1), which is not an error
      if (!t) return { topic, topicId: ZERO_TOPIC_ID, partitions: (partitions ?? []).map((partition) => ({ partition, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode: ErrorCode.NONE, errorMessage: null })) };
      const ps = partitions ?? t.partitions.map((p) => p.partition).sort((a, b) => a - b);
      return { topic, topicId: kafkaTopicId(t.topicId), partitions: await Promise.all(ps.map((p) => describePartition(env, md, groupId, t, p))) };
    }),
  );
  return { errorCode: ErrorCode.NONE, errorMessage: null, topics: out };
}

// ---------------------------------------------------------------------------------------------
// Alter

/** Kafka's AlterShareGroupOffsets: each partition's state begins again at its offset (see the header). */
export async function alterShareGroupOffsets(env: ShareOffsetsEnv, groupId: string, topics: { topic: string; partitions: { partition: number; startOffset: number }[] }[]): Promise<AlteredShareGroupOffsets> {
  if (groupId === '') return { ...refusal(ErrorCode.INVALID_GROUP_ID), topics: [] };
  const inactive = await inactiveGroup(env, groupId, true);
  if (inactive) return { ...inactive, topics: [] };
  const md = await env.metadata();
  if (isFailure(md)) return { ...failed(md), topics: [] };
  const changed: { topicId: string; partition: number }[] = [];
  const out = await Promise.all(
    topics.map(async ({ topic, partitions }): Promise<AlteredShareTopic> => {
      const t = topicNamed(md, topic);
      const unknown = refusal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      if (!t) return { topic, topicId: ZERO_TOPIC_ID, partitions: partitions.map((p) => ({ partition: p.partition, ...unknown })) };
      const topicId = kafkaTopicId(t.topicId);
      const results = await Promise.all(
        partitions.map(async ({ partition, startOffset }) => {
          const answer = (r: Refusal | null) => ({ partition, errorCode: r?.errorCode ?? ErrorCode.NONE, errorMessage: r?.errorMessage ?? null });
          if (!t.partitions.some((p) => p.partition === partition)) return answer(unknown);
          if (!Number.isSafeInteger(startOffset) || startOffset < 0) return answer(refusal(ErrorCode.INVALID_REQUEST, `the start offset of ${topic}-${partition} must be 0 or more, got ${startOffset}`));
          const key = { groupId, topicId, partition };
          // the state epoch moves up: a share partition manager still holding the old state is fenced when it writes
          const summary = await askShareCoordinator<ReadShareGroupStateSummaryResult>(env, { type: 'ReadShareGroupStateSummary', ...key, leaderEpoch: -1 });
          if (isRefusal(summary)) return answer(summary);
          if (summary.errorCode !== ErrorCode.NONE) return answer(refusal(summary.errorCode, summary.errorMessage));
          const init = await askShareCoordinator<InitializeShareGroupStateResult>(env, { type: 'InitializeShareGroupState', ...key, stateEpoch: Math.max(0, summary.stateEpoch) + 1, startOffset });
          if (isRefusal(init)) return answer(init);
          if (init.errorCode !== ErrorCode.NONE) return answer(refusal(init.errorCode, init.errorMessage));
          changed.push({ topicId, partition });
          return answer(null);
        }),
      );
      return { topic, topicId, partitions: results };
    }),
  );
  await forget(env, md, groupId, changed);
  return { errorCode: ErrorCode.NONE, errorMessage: null, topics: out };
}

// ---------------------------------------------------------------------------------------------
// Delete

/** Kafka's DeleteShareGroupOffsets: the named topics' states are removed (see the header). */
export async function deleteShareGroupOffsets(env: ShareOffsetsEnv, groupId: string, topics: string[]): Promise<DeletedShareGroupOffsets> {
  if (groupId === '') return { ...refusal(ErrorCode.INVALID_GROUP_ID), topics: [] };
  const inactive = await inactiveGroup(env, groupId, false);
  if (inactive) return { ...inactive, topics: [] };
  const md = await env.metadata();
  if (isFailure(md)) return { ...failed(md), topics: [] };
  const deleted: { topicId: string; partition: number }[] = [];
  const out = await Promise.all(
    [...new Set(topics)].map(async (topic): Promise<DeletedShareTopic> => {
      const t = topicNamed(md, topic);
      if (!t) return { topic, topicId: ZERO_TOPIC_ID, ...refusal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) };
      const topicId = kafkaTopicId(t.topicId);
      const answer = (r: Refusal | null): DeletedShareTopic => ({ topic, topicId, errorCode: r?.errorCode ?? ErrorCode.NONE, errorMessage: r?.errorMessage ?? null });
      const outcomes = await Promise.all(
        t.partitions.map(async ({ partition }): Promise<Refusal | 'deleted' | 'none'> => {
          const key = { groupId, topicId, partition };
          const summary = await askShareCoordinator<ReadShareGroupStateSummaryResult>(env, { type: 'ReadShareGroupStateSummary', ...key, leaderEpoch: -1 });
          if (isRefusal(summary)) return summary;
          if (summary.errorCode !== ErrorCode.NONE) return refusal(summary.errorCode, summary.errorMessage);
          if (summary.startOffset < 0) return 'none';
          const del = await askShareCoordinator<DeleteShareGroupStateResult>(env, { type: 'DeleteShareGroupState', ...key });
          if (isRefusal(del)) return del;
          if (del.errorCode !== ErrorCode.NONE) return refusal(del.errorCode, del.errorMessage);
          deleted.push({ topicId, partition });
          return 'deleted';
        }),
      );
      const error = outcomes.find((o): o is Refusal => typeof o === 'object');
      if (error) return answer(error);
      if (!outcomes.includes('deleted')) return answer(refusal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'There is no offset information to delete.'));
      return answer(null);
    }),
  );
  await forget(env, md, groupId, deleted);
  return { errorCode: ErrorCode.NONE, errorMessage: null, topics: out };
}
