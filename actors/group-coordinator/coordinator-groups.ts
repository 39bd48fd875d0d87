/**
 * The groups of the group coordinator (coordinator.ts), of every kind: a group as the coordinator
 * holds it (GroupEntry: its classic GroupMetadata or its KIP-848 or KIP-932 group, its committed
 * offsets and the requests and writes waiting on it), the offsets partitions it leads
 * (OwnedPartition), creating and dropping a group, ListGroups and DeleteGroups, and the small
 * helpers every handler uses: answer, validateGroupStatus, the request checks, the context and
 * message types.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import type { ActorContext, BaseContext, ReplyToken } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { BrokerMsg } from '../broker/messages.js';
import { CONSUMER_PROTOCOL_TYPE } from './consumer-protocol.js';
import { GroupMetadata, GroupState, type Protocol } from './group-state.js';
import { ConsumerGroupState, type ConsumerGroup } from './consumer-group.js';
import { ShareGroupState, type ShareGroup } from './share-group.js';
import { offsetsPartitionFor, type CoordinatorMsg, type DeleteGroupsResponse, type GroupListing, type ListGroupsResponse, type SimpleResponse } from './messages.js';
import type { OffsetCommitValue, OffsetsReplay } from './offsets-store.js';
import type { CoordinatorState } from './coordinator.js';
import { appendRecords, type DeleteGroupsProgress, type WrittenRecord } from './coordinator-appends.js';
import { stopClassicGroup } from './coordinator-classic.js';
import { cancelConsumerTimers, consumerTombstones } from './coordinator-consumer.js';
import { shareTombstones } from './coordinator-share.js';

export const EMPTY = new Uint8Array(0);

/** An offsets partition this broker leads. */
export enum OffsetsPartitionStatus {
  /** Its log is being replayed: its groups answer COORDINATOR_LOAD_IN_PROGRESS. */
  Loading = 'Loading',
  /** Loaded: this coordinator answers for its groups. */
  Active = 'Active',
}

export interface OwnedPartition {
  partition: number;
  leaderEpoch: number;
  status: OffsetsPartitionStatus;
  /** Distinguishes this load from an earlier one of the same partition. */
  loadId: number;
  replay: OffsetsReplay | null;
  fetchOffset: number;
  /** The log end offset at the first read: loading ends once everything below it is read. */
  targetOffset: number;
  loadStartedMs: number;
  groups: Set<string>;
}

export interface CommittedOffset {
  topic: string;
  partition: number;
  value: OffsetCommitValue;
  /** Position and timestamp of the key's newest record. */
  logOffset: number;
  writtenAt: number;
}

interface PersistedGroup {
  bytes: Uint8Array;
  logOffset: number;
  writtenAt: number;
}

export type JoinPhase = { kind: 'initial'; remainingMs: number; seq: number } | { kind: 'rebalance'; seq: number };

export interface GroupEntry {
  readonly groupId: string;
  readonly partition: number;
  /** The classic group (replaced when the group migrates between the two kinds). */
  group: GroupMetadata;
  /** topicPartitionKey -> committed offset (applied only once its append succeeded). */
  readonly offsets: Map<string, CommittedOffset>;
  /** topicPartitionKey -> appends in flight that write the key. */
  readonly pendingOffsetWrites: Map<string, number>;
  /** topicPartitionKey -> log offset of a tombstone, kept while writes of the key are in flight. */
  readonly offsetTombstones: Map<string, number>;
  /** The group's newest metadata record (null: none in the log). */
  persisted: PersistedGroup | null;
  pendingGroupWrites: number;
  /** JoinGroup requests waiting for the join phase (null: the request wants no reply). */
  readonly joinWaiters: Map<string, ReplyToken | null>;
  /** SyncGroup requests waiting for the leader's assignment to be stored. */
  readonly syncWaiters: Map<string, ReplyToken | null>;
  /** memberId -> sequence of its live session timer. */
  readonly heartbeatSeq: Map<string, number>;
  /** memberId -> sequence of its pending-member timer. */
  readonly pendingMembers: Map<string, number>;
  join: JoinPhase | null;
  /** Kafka's newMemberAdded: a member joined during the initial delay, which then runs again. */
  newMemberAdded: boolean;
  /** A group loaded from the log: the topics its members subscribe to, until its next generation. */
  loaded: { generationId: number; topics: ReadonlySet<string> | null } | null;
  /**
   * Offsets written by transactions not yet ended (TxnOffsetCommit): producer id ->
   * topicPartitionKey -> offset. A COMMIT marker moves them into `offsets`, an ABORT drops them.
   */
  readonly txnOffsets: Map<number, Map<string, CommittedOffset>>;
  /** A KIP-848 consumer group (then `group` stays an Empty classic group and is not used). */
  consumer: ConsumerGroup | null;
  /** Consumer group member timers: memberId -> session timer sequence, rebalance timer epoch, a classic member's join / sync timer sequence. */
  readonly consumerTimers: Map<string, { sessionSeq: number; rebalance: { seq: number; memberEpoch: number } | null; join?: number; sync?: number }>;
  /** When the oldest of the consumer group's records was written (rewritten as a whole once old). */
  consumerOldestWrite: number;
  /** An append of the consumer group's records failed: the next one writes all of them. */
  consumerNeedsFullWrite: boolean;
  /** When a heartbeat last resolved the consumer group's regular expressions (-Infinity: never here). */
  consumerRegexesResolvedAt: number;
  /**
   * A KIP-932 share group (then `group` stays an Empty classic group and is not used, and
   * `consumer` is null); its members' session timers are in `consumerTimers`, its metadata
   * record's age in `consumerOldestWrite`.
   */
  share: ShareGroup | null;
}

export type Ctx = BaseContext<CoordinatorMsg>;
/** A message handler's context. */
export type HandlerCtx = ActorContext<CoordinatorMsg>;
/** The message of type K. */
export type MsgOf<K extends CoordinatorMsg['type']> = Extract<CoordinatorMsg, { type: K }>;

// ---------------------------------------------------------------------------------------------
// Small helpers

export function partitionOf(s: CoordinatorState, groupId: string): number {
  return offsetsPartitionFor(groupId, s.numPartitions);
}

export function answer<R extends { type: string }>(ctx: Ctx, token: ReplyToken | null | undefined, msg: R): void {
  if (token) ctx.replyTo(token, msg);
}

/**
 * Can this coordinator act for `groupId` now? INVALID_GROUP_ID for an empty id where the API
 * needs one, NOT_COORDINATOR when its offsets partition is not led here, and
 * COORDINATOR_LOAD_IN_PROGRESS while that partition is being replayed.
 */
export function validateGroupStatus(s: CoordinatorState, groupId: unknown, allowEmptyId: boolean): number | null {
  if (typeof groupId !== 'string' || (!allowEmptyId && groupId.length === 0)) return ErrorCode.INVALID_GROUP_ID;
  const owned = s.partitions.get(partitionOf(s, groupId));
  if (!owned) return ErrorCode.NOT_COORDINATOR;
  if (owned.status === OffsetsPartitionStatus.Loading) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
  return null;
}

export function isBytes(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array;
}

/** INVALID_REQUEST unless every protocol is { name: string, metadata: bytes }. */
export function validateProtocolList(protocols: unknown): number | null {
  if (!Array.isArray(protocols)) return ErrorCode.INVALID_REQUEST;
  for (const p of protocols) {
    if (typeof p !== 'object' || p === null || typeof (p as Protocol).name !== 'string' || !isBytes((p as Protocol).metadata)) return ErrorCode.INVALID_REQUEST;
  }
  return null;
}

/** INVALID_REQUEST unless topics is [{ name: string, partitions: [...] }] with integer partitions (or objects with one). */
export function validateTopicList(topics: unknown, partitionsAreObjects: boolean): number | null {
  if (!Array.isArray(topics)) return ErrorCode.INVALID_REQUEST;
  for (const t of topics) {
    if (typeof t !== 'object' || t === null || typeof t.name !== 'string' || !Array.isArray(t.partitions)) return ErrorCode.INVALID_REQUEST;
    for (const p of t.partitions as unknown[]) {
      if (partitionsAreObjects) {
        const o = p as { partition?: unknown; offset?: unknown; leaderEpoch?: unknown; metadata?: unknown };
        if (typeof o !== 'object' || o === null || !Number.isInteger(o.partition) || !Number.isSafeInteger(o.offset)) return ErrorCode.INVALID_REQUEST;
        if (o.leaderEpoch !== undefined && o.leaderEpoch !== null && !Number.isInteger(o.leaderEpoch)) return ErrorCode.INVALID_REQUEST;
        if (o.metadata !== undefined && o.metadata !== null && typeof o.metadata !== 'string') return ErrorCode.INVALID_REQUEST;
      } else if (!Number.isInteger(p)) {
        return ErrorCode.INVALID_REQUEST;
      }
    }
  }
  return null;
}

export function simple(type: SimpleResponse['type'], errorCode: number): SimpleResponse {
  return { type, errorCode };
}

/** The same error for every partition of a request (as Kafka answers a request that failed as a whole). */
export function perPartitionError(topics: unknown, errorCode: number): { name: string; partitions: { partition: number; errorCode: number }[] }[] {
  if (!Array.isArray(topics)) return [];
  return topics.map((t: { name?: unknown; partitions?: unknown }) => ({
    name: String(t?.name),
    partitions: (Array.isArray(t?.partitions) ? (t.partitions as unknown[]) : []).map((p) => ({
      partition: typeof p === 'number' ? p : Number((p as { partition?: unknown })?.partition),
      errorCode,
    })),
  }));
}

// ---------------------------------------------------------------------------------------------
// Groups: creation, removal

export function newEntry(groupId: string, partition: number, group: GroupMetadata): GroupEntry {
  return {
    groupId,
    partition,
    group,
    offsets: new Map(),
    pendingOffsetWrites: new Map(),
    offsetTombstones: new Map(),
    persisted: null,
    pendingGroupWrites: 0,
    joinWaiters: new Map(),
    syncWaiters: new Map(),
    heartbeatSeq: new Map(),
    pendingMembers: new Map(),
    join: null,
    newMemberAdded: false,
    loaded: null,
    txnOffsets: new Map(),
    consumer: null,
    consumerTimers: new Map(),
    consumerOldestWrite: 0,
    consumerNeedsFullWrite: false,
    consumerRegexesResolvedAt: Number.NEGATIVE_INFINITY,
    share: null,
  };
}

/** A new, Empty group on an Active partition (validated by the caller). */
export function createGroup(s: CoordinatorState, groupId: string, now: number): GroupEntry {
  const partition = partitionOf(s, groupId);
  const entry = newEntry(groupId, partition, new GroupMetadata(groupId, { now }));
  s.groups.set(groupId, entry);
  s.partitions.get(partition)?.groups.add(groupId);
  return entry;
}

/** Forgets a group: its waiting requests get `errorCode`, its timers stop, it goes Dead. */
export function dropGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, errorCode: number): void {
  stopClassicGroup(ctx, entry, errorCode);
  for (const memberId of [...entry.consumerTimers.keys()]) cancelConsumerTimers(ctx, entry, memberId);
  entry.consumer?.markDead();
  entry.share?.markDead();
  if (!entry.group.is(GroupState.Dead)) entry.group.transitionTo(GroupState.Dead, ctx.clock.now());
  if (s.groups.get(entry.groupId) === entry) s.groups.delete(entry.groupId);
  s.partitions.get(entry.partition)?.groups.delete(entry.groupId);
}

export function liveEntry(s: CoordinatorState, entry: GroupEntry | null): entry is GroupEntry {
  return entry !== null && s.groups.get(entry.groupId) === entry;
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function handleListGroups(s: CoordinatorState, m: MsgOf<'ListGroups'>, ctx: HandlerCtx): void {
  const loading = [...s.partitions.values()].some((p) => p.status === OffsetsPartitionStatus.Loading);
  const filter = Array.isArray(m.statesFilter) && m.statesFilter.length > 0 ? m.statesFilter.map((x) => String(x).toLowerCase().trim()) : null;
  const types = Array.isArray(m.typesFilter) && m.typesFilter.length > 0 ? m.typesFilter.map((x) => String(x).toLowerCase().trim()) : null;
  const groups = [...s.groups.values()]
    .map((e): GroupListing =>
      e.share
        ? { groupId: e.groupId, protocolType: 'share', state: e.share.state, groupType: 'share' }
        : e.consumer
          ? { groupId: e.groupId, protocolType: CONSUMER_PROTOCOL_TYPE, state: e.consumer.state, groupType: 'consumer' }
          : { groupId: e.groupId, protocolType: e.group.protocolType ?? '', state: e.group.state as string, groupType: 'classic' },
    )
    .filter((l) => (!filter || filter.includes(l.state.toLowerCase())) && (!types || types.includes(l.groupType)));
  ctx.reply({ type: 'ListGroupsResponse', errorCode: loading ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE, groups } satisfies ListGroupsResponse);
}

export function handleDeleteGroups(s: CoordinatorState, m: MsgOf<'DeleteGroups'>, ctx: HandlerCtx): void {
  const token = ctx.deferReply() ?? null;
  const progress: DeleteGroupsProgress = { token, results: [], remaining: 0 };
  const byPartition = new Map<number, { records: WrittenRecord[]; groupIds: string[] }>();
  for (const groupId of m.groups) {
    const err = validateGroupStatus(s, groupId, true);
    if (err !== null) {
      progress.results.push({ groupId: String(groupId), errorCode: err });
      continue;
    }
    const entry = s.groups.get(groupId);
    if (!entry || entry.group.is(GroupState.Dead)) {
      progress.results.push({ groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
      continue;
    }
    if (!entry.group.is(GroupState.Empty) || (entry.consumer && entry.consumer.state !== ConsumerGroupState.Empty) || (entry.share && entry.share.state !== ShareGroupState.Empty)) {
      progress.results.push({ groupId, errorCode: ErrorCode.NON_EMPTY_GROUP });
      continue;
    }
    const records: WrittenRecord[] = [...entry.offsets.values()].map((o) => ({ kind: 'offset', entry, topic: o.topic, partition: o.partition, value: null }));
    if (entry.consumer) records.push(...consumerTombstones(entry));
    else if (entry.share) {
      records.push(...shareTombstones(entry));
      // its partitions' delivery states go too, from every broker's share coordinator (as Kafka's DeleteShareGroupState)
      const broker: ActorRef<BrokerMsg> = s.broker ?? { node: ctx.nodeId, path: brokerPath(s.brokerId) };
      ctx.send(broker, { type: 'ShareGroupDeleted', groupId, fanOut: true });
    }
    else records.push({ kind: 'group', entry, bytes: null });
    entry.offsets.clear();
    dropGroup(s, ctx, entry, ErrorCode.GROUP_ID_NOT_FOUND);
    ctx.log.info('group deleted', { groupId });
    progress.results.push({ groupId, errorCode: ErrorCode.NONE });
    const batch = byPartition.get(entry.partition) ?? { records: [], groupIds: [] };
    batch.records.push(...records);
    batch.groupIds.push(groupId);
    byPartition.set(entry.partition, batch);
  }
  progress.remaining = byPartition.size;
  if (progress.remaining === 0) {
    answer(ctx, token, { type: 'DeleteGroupsResponse', errorCode: ErrorCode.NONE, groups: progress.results } satisfies DeleteGroupsResponse);
    return;
  }
  for (const [partition, b] of byPartition) appendRecords(s, ctx, partition, b.records, { kind: 'delete-groups', progress, groupIds: b.groupIds });
}
