/**
 * Loading and unloading the offsets partitions the group coordinator's broker leads
 * (coordinator.ts): BecomeCoordinator replays a partition's log up to the high watermark
 * (partition-load.ts, offsets-store.ts) and rebuilds its groups of every kind, their members'
 * sessions starting again; ResignCoordinator, or a newer leader epoch, drops them and fails what
 * waits on them; after a restart the coordinator takes back the partitions its broker's replicas
 * lead (recoverOwnership).
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import type { BrokerMsg, MetadataResponse } from '../broker/messages.js';
import type { ReplicaDescription, ReplicaMsg } from '../partition-replica/messages.js';
import { GroupMetadata, GroupState, MemberMetadata } from './group-state.js';
import { OFFSETS_TOPIC, type CoordinatorMsg } from './messages.js';
import { OffsetsReplay, type ReplayedGroup, type ReplayedOffset } from './offsets-store.js';
import { readForLoad, takeLoadRead } from './partition-load.js';
import type { CoordinatorState } from './coordinator.js';
import { markPending, settleAppend } from './coordinator-appends.js';
import { maybePrepareRebalance, scheduleHeartbeat, topicsOfSubscriptions } from './coordinator-classic.js';
import { maybeScheduleConsumerRebalance, restoreConsumerGroup, scheduleConsumerSession } from './coordinator-consumer.js';
import { dropGroup, newEntry, OffsetsPartitionStatus, type Ctx, type GroupEntry, type HandlerCtx, type MsgOf, type OwnedPartition } from './coordinator-groups.js';
import { restoreShareGroup, scheduleShareSession } from './coordinator-share.js';

const loadTimerKey = (partition: number) => `load-${partition}`;

function readNext(s: CoordinatorState, ctx: Ctx, owned: OwnedPartition): void {
  const { partition, loadId, fetchOffset, leaderEpoch } = owned;
  void readForLoad(ctx, s.replicaFor(partition), { fetchOffset, leaderEpoch, maxBytes: s.cfg.loadBufferBytes, timeoutMs: 30_000 }).then((r) =>
    ctx.send(ctx.self, { type: 'LoadRead', partition, loadId, ...r } satisfies CoordinatorMsg),
  );
}

/** Rebuilds a group from its replayed records: Stable with its members, or Empty. */
function restoreGroup(
  ctx: Ctx,
  groupId: string,
  partition: number,
  rg: ReplayedGroup | undefined,
  offsets: Map<string, ReplayedOffset> | undefined,
  txnOffsets: Map<number, Map<string, ReplayedOffset>> | undefined,
): GroupEntry {
  const now = ctx.clock.now();
  let entry: GroupEntry | null = null;
  const v = rg?.value;
  const stateTs = v && v.currentStateTimestamp >= 0 ? v.currentStateTimestamp : undefined;
  if (v && v.members.length > 0 && v.protocol !== null && v.protocolType !== '') {
    try {
      const g = new GroupMetadata(groupId, { initialState: GroupState.Stable, now: stateTs });
      for (const mv of v.members) {
        const member = new MemberMetadata({
          memberId: mv.memberId,
          groupInstanceId: mv.groupInstanceId,
          clientId: mv.clientId,
          clientHost: mv.clientHost,
          rebalanceTimeoutMs: mv.rebalanceTimeoutMs,
          sessionTimeoutMs: mv.sessionTimeoutMs,
          protocolType: v.protocolType,
          supportedProtocols: [{ name: v.protocol, metadata: mv.subscription }],
          now,
        });
        member.assignment = mv.assignment;
        g.add(member);
      }
      g.generationId = v.generation;
      g.protocolName = v.protocol;
      if (v.leader !== null && g.has(v.leader)) g.leaderId = v.leader;
      entry = newEntry(groupId, partition, g);
      entry.loaded = { generationId: v.generation, topics: topicsOfSubscriptions(v.protocolType, v.members.map((mv) => mv.subscription)) };
    } catch (err) {
      ctx.log.warn('group metadata record does not describe a valid group: loading it empty', { groupId, error: (err as Error).message });
      entry = null;
    }
  }
  if (!entry) {
    const g = new GroupMetadata(groupId, { now: stateTs });
    if (v) {
      g.generationId = v.generation;
      g.protocolType = v.protocolType === '' ? null : v.protocolType;
    }
    entry = newEntry(groupId, partition, g);
  }
  if (rg) entry.persisted = { bytes: rg.bytes, logOffset: rg.logOffset, writtenAt: rg.timestamp };
  for (const [k, o] of offsets ?? []) {
    entry.offsets.set(k, { topic: o.topic, partition: o.partition, value: o.value, logOffset: o.logOffset, writtenAt: o.timestamp });
  }
  for (const [producerId, held] of txnOffsets ?? []) {
    entry.txnOffsets.set(producerId, new Map([...held].map(([k, o]) => [k, { topic: o.topic, partition: o.partition, value: o.value, logOffset: o.logOffset, writtenAt: o.timestamp }])));
  }
  return entry;
}

function finishLoad(s: CoordinatorState, ctx: Ctx, owned: OwnedPartition): void {
  const replay = owned.replay!;
  owned.replay = null;
  owned.status = OffsetsPartitionStatus.Active;
  let offsets = 0;
  const open = replay.openTransactionOffsets();
  for (const groupId of replay.groupIds()) {
    if (s.groups.has(groupId)) {
      ctx.log.warn('group found in two offsets partitions: keeping the one loaded first', { groupId, partition: owned.partition });
      continue;
    }
    const consumer = replay.consumerGroups.get(groupId);
    const isConsumer = consumer !== undefined && consumer.epoch !== null;
    const replayedShare = isConsumer ? undefined : replay.shareGroups.get(groupId);
    const share = replayedShare?.epoch === null ? undefined : replayedShare;
    const entry = restoreGroup(ctx, groupId, owned.partition, isConsumer || share ? undefined : replay.groups.get(groupId), replay.offsets.get(groupId), open.get(groupId));
    if (share) {
      // a share group continues where its records leave it; its members' sessions start again
      entry.share = restoreShareGroup(groupId, share);
      entry.consumerOldestWrite = share.oldestTimestamp;
      for (const member of entry.share.members()) scheduleShareSession(s, ctx, entry, member.memberId);
    }
    s.groups.set(groupId, entry);
    owned.groups.add(groupId);
    offsets += entry.offsets.size;
    for (const member of entry.group.allMembers()) scheduleHeartbeat(s, ctx, entry, member);
    if (!isConsumer && entry.group.size > s.cfg.classicMaxSize) {
      // group.max.size was lowered: the members rejoin, the first up to the size stay (as Kafka)
      maybePrepareRebalance(s, ctx, entry, `loaded group of ${entry.group.size} members is over group.max.size ${s.cfg.classicMaxSize}`);
    }
    if (isConsumer) {
      // a KIP-848 group continues where its records leave it; its members' sessions start again
      entry.consumer = restoreConsumerGroup(groupId, consumer);
      entry.consumerOldestWrite = consumer.oldestTimestamp;
      for (const member of entry.consumer.members.values()) {
        scheduleConsumerSession(s, ctx, entry, member.memberId);
        maybeScheduleConsumerRebalance(s, ctx, entry, member);
      }
    }
  }
  ctx.log.info('loaded offsets partition', {
    partition: owned.partition,
    leaderEpoch: owned.leaderEpoch,
    groups: owned.groups.size,
    offsets,
    records: replay.recordsApplied,
    endOffset: owned.fetchOffset,
    ms: ctx.clock.now() - owned.loadStartedMs,
  });
}

function unloadPartition(s: CoordinatorState, ctx: Ctx, partition: number, why: string): void {
  const owned = s.partitions.get(partition);
  if (!owned) return;
  s.partitions.delete(partition);
  ctx.timers.cancel(loadTimerKey(partition));
  for (const groupId of [...owned.groups]) {
    const entry = s.groups.get(groupId);
    if (entry && entry.partition === partition) dropGroup(s, ctx, entry, ErrorCode.NOT_COORDINATOR);
  }
  for (const [id, a] of [...s.appends]) {
    if (a.partition !== partition) continue;
    s.appends.delete(id);
    for (const r of a.records) markPending(r, -1);
    settleAppend(s, ctx, a, ErrorCode.NOT_COORDINATOR);
  }
  ctx.log.info('unloaded offsets partition', { partition, leaderEpoch: owned.leaderEpoch, groups: owned.groups.size, why });
}

/**
 * After a restart (a crash lost the state), takes back the offsets partitions whose local
 * replica leads: the broker tells BecomeCoordinator only when leadership changes. At the first
 * start the broker knows no such partition yet, and in tests without a broker the ask fails.
 */
export function recoverOwnership(ctx: Ctx, brokerId: number, replicaFor: (partition: number) => ActorRef<ReplicaMsg>): void {
  const broker: ActorRef<BrokerMsg> = { node: ctx.nodeId, path: brokerPath(brokerId) };
  void ctx.ask<MetadataResponse>(broker, { type: 'Metadata', topics: [OFFSETS_TOPIC] }, { timeoutMs: 10_000 }).then(async (r) => {
    if (isFailure(r) || r.type !== 'MetadataResponse') return;
    const topic = r.metadata.topics.find((t) => t.name === OFFSETS_TOPIC);
    if (!topic) return;
    for (const p of topic.partitions) {
      if (p.leader !== brokerId) continue;
      const d = await ctx.ask<ReplicaDescription>(replicaFor(p.partition), { type: 'DescribeReplica' }, { timeoutMs: 10_000 });
      if (isFailure(d) || d.role !== 'Leader') continue;
      ctx.send(ctx.self, { type: 'BecomeCoordinator', partition: p.partition, leaderEpoch: d.leaderEpoch, numPartitions: topic.partitions.length });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function handleBecomeCoordinator(s: CoordinatorState, m: MsgOf<'BecomeCoordinator'>, ctx: HandlerCtx): void {
  if (m.numPartitions !== undefined && m.numPartitions !== null && m.numPartitions > 0) s.numPartitions = m.numPartitions;
  const current = s.partitions.get(m.partition);
  if (current && current.leaderEpoch >= m.leaderEpoch) return;
  if (current) unloadPartition(s, ctx, m.partition, `leader epoch ${current.leaderEpoch} -> ${m.leaderEpoch}: reloading`);
  const owned: OwnedPartition = {
    partition: m.partition,
    leaderEpoch: m.leaderEpoch,
    status: OffsetsPartitionStatus.Loading,
    loadId: ++s.seq,
    replay: new OffsetsReplay(),
    fetchOffset: 0,
    targetOffset: -1,
    loadStartedMs: ctx.clock.now(),
    groups: new Set(),
  };
  s.partitions.set(m.partition, owned);
  ctx.log.info('loading offsets partition', { partition: m.partition, leaderEpoch: m.leaderEpoch });
  readNext(s, ctx, owned);
}

export function handleResignCoordinator(s: CoordinatorState, m: MsgOf<'ResignCoordinator'>, ctx: HandlerCtx): void {
  const owned = s.partitions.get(m.partition);
  if (!owned) return;
  if (m.leaderEpoch >= 0 && m.leaderEpoch < owned.leaderEpoch) return;
  unloadPartition(s, ctx, m.partition, `resigned at leader epoch ${m.leaderEpoch}`);
}

export function handleLoadRead(s: CoordinatorState, m: MsgOf<'LoadRead'>, ctx: HandlerCtx): void {
  const owned = s.partitions.get(m.partition);
  if (!owned || owned.loadId !== m.loadId || owned.status !== OffsetsPartitionStatus.Loading) return;
  const step = takeLoadRead(owned, m, (records, from) => owned.replay!.applyBatches(records, from), ctx.log, 'an offsets partition', m.partition);
  if (step === 'read') readNext(s, ctx, owned);
  else if (step === 'finish') finishLoad(s, ctx, owned);
  else if (step === 'gone') unloadPartition(s, ctx, m.partition, 'no replica of it on this broker: nothing to load');
  else ctx.timers.startSingle(loadTimerKey(m.partition), s.cfg.loadRetryBackoffMs, { type: 'LoadNext', partition: m.partition, loadId: m.loadId });
}

export function handleLoadNext(s: CoordinatorState, m: MsgOf<'LoadNext'>, ctx: HandlerCtx): void {
  const owned = s.partitions.get(m.partition);
  if (!owned || owned.loadId !== m.loadId || owned.status !== OffsetsPartitionStatus.Loading) return;
  readNext(s, ctx, owned);
}
