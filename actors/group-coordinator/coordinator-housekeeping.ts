/**
 * The group coordinator's housekeeping (coordinator.ts), on its housekeeping timer: offsets of
 * empty groups expire after offsets.retention.minutes (KIP-211), leaving tombstones; an empty
 * group left without offsets goes Dead and its records get tombstones; and every live key whose
 * newest record is older than the refresh interval is written again, so that an offsets topic
 * with time retention never loses it. Also the offsets of deleted topics (TopicsDeleted).
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { ConsumerGroupState } from './consumer-group.js';
import { CONSUMER_PROTOCOL_TYPE } from './consumer-protocol.js';
import { GroupState } from './group-state.js';
import { topicPartitionKey } from './offsets-store.js';
import type { CoordinatorState } from './coordinator.js';
import { appendRecords, type WrittenRecord } from './coordinator-appends.js';
import { subscribedTopics } from './coordinator-classic.js';
import { consumerTombstones, persistConsumer } from './coordinator-consumer.js';
import { dropGroup, liveEntry, OffsetsPartitionStatus, type CommittedOffset, type Ctx, type GroupEntry, type HandlerCtx, type MsgOf } from './coordinator-groups.js';
import { persistShare } from './coordinator-share.js';

/** Records per rewrite batch, so one refresh never builds an oversized batch. */
const REFRESH_BATCH_RECORDS = 500;

function isPendingOffset(entry: GroupEntry, o: CommittedOffset): boolean {
  return (entry.pendingOffsetWrites.get(topicPartitionKey(o.topic, o.partition)) ?? 0) > 0;
}

/** Kafka's GroupMetadata.removeExpiredOffsets choice of which offsets have expired. */
function expiredOffsets(entry: GroupEntry, now: number, retentionMs: number): CommittedOffset[] {
  const g = entry.group;
  let base: (o: CommittedOffset) => number;
  let keep: ReadonlySet<string> = new Set();
  if (entry.consumer) {
    // Kafka's consumer groups: by commit time, except the topics members subscribe to
    base = (o) => o.value.commitTimestamp;
    keep = entry.consumer.subscribedTopicNames();
  } else if (g.protocolType !== null && g.is(GroupState.Empty)) {
    // no member left: offsets expire relative to when the group became empty
    base = (o) => g.stateTimestampMs ?? o.value.commitTimestamp;
  } else if (g.protocolType === CONSUMER_PROTOCOL_TYPE && g.is(GroupState.Stable) && subscribedTopics(entry) !== null) {
    // members consume: only offsets of topics nobody subscribes to any more expire
    base = (o) => o.value.commitTimestamp;
    keep = subscribedTopics(entry)!;
  } else if (g.protocolType === null) {
    // offsets stored without group management
    base = (o) => o.value.commitTimestamp;
  } else {
    return [];
  }
  const out: CommittedOffset[] = [];
  for (const o of entry.offsets.values()) {
    if (keep.has(o.topic) || isPendingOffset(entry, o)) continue;
    const expired = o.value.expireTimestamp >= 0 ? now >= o.value.expireTimestamp : now - base(o) >= retentionMs;
    if (expired) out.push(o);
  }
  return out;
}

/** Removes offsets from the cache and returns their tombstones; an Empty group left without offsets goes Dead. */
export function cleanupGroup(s: CoordinatorState, ctx: Ctx, entry: GroupEntry, removed: { topic: string; partition: number }[]): WrittenRecord[] {
  const records: WrittenRecord[] = [];
  for (const r of removed) {
    entry.offsets.delete(topicPartitionKey(r.topic, r.partition));
    records.push({ kind: 'offset', entry, topic: r.topic, partition: r.partition, value: null });
  }
  const g = entry.group;
  const consumerEmpty = !entry.consumer || entry.consumer.state === ConsumerGroupState.Empty;
  // a share group stays, members or not, until DeleteGroups (as Kafka's)
  if (g.is(GroupState.Empty) && consumerEmpty && !entry.share && entry.offsets.size === 0 && entry.pendingOffsetWrites.size === 0 && entry.pendingGroupWrites === 0) {
    ctx.log.info('group has no members and no offsets: it is dead', { groupId: entry.groupId, generationId: g.generationId });
    if (entry.persisted !== null) records.push({ kind: 'group', entry, bytes: null });
    records.push(...consumerTombstones(entry));
    dropGroup(s, ctx, entry, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
  return records;
}

function appendInChunks(s: CoordinatorState, ctx: Ctx, partition: number, records: WrittenRecord[], kind: 'expire' | 'refresh' | 'topics-deleted'): void {
  for (let i = 0; i < records.length; i += REFRESH_BATCH_RECORDS) {
    appendRecords(s, ctx, partition, records.slice(i, i + REFRESH_BATCH_RECORDS), { kind });
  }
}

export function housekeeping(s: CoordinatorState, ctx: Ctx): void {
  const now = ctx.clock.now();
  const cutoff = now - s.cfg.recordRefreshIntervalMs;
  for (const owned of s.partitions.values()) {
    if (owned.status !== OffsetsPartitionStatus.Active) continue;
    const tombstones: WrittenRecord[] = [];
    const rewrites: WrittenRecord[] = [];
    for (const groupId of [...owned.groups]) {
      const entry = s.groups.get(groupId);
      if (!entry) continue;
      const expired = expiredOffsets(entry, now, s.cfg.offsetsRetentionMs);
      if (expired.length > 0) ctx.log.info('expiring offsets', { groupId, count: expired.length });
      tombstones.push(...cleanupGroup(s, ctx, entry, expired));
      if (!liveEntry(s, entry)) continue;
      for (const o of entry.offsets.values()) {
        if (o.writtenAt < cutoff && !isPendingOffset(entry, o)) rewrites.push({ kind: 'offset', entry, topic: o.topic, partition: o.partition, value: o.value });
      }
      if (entry.persisted && entry.persisted.writtenAt < cutoff && entry.pendingGroupWrites === 0) {
        rewrites.push({ kind: 'group', entry, bytes: entry.persisted.bytes });
      }
      if (entry.share && entry.consumerOldestWrite < cutoff && entry.pendingGroupWrites === 0) persistShare(s, ctx, entry, { kind: 'consumer-write' }, true);
      if (entry.consumer && entry.consumerOldestWrite < cutoff && entry.pendingGroupWrites === 0) {
        // the consumer group's records are rewritten together: the oldest of them is then new
        entry.consumerNeedsFullWrite = true;
        persistConsumer(s, ctx, entry, { kind: 'consumer-write' });
      }
    }
    if (tombstones.length > 0) appendInChunks(s, ctx, owned.partition, tombstones, 'expire');
    if (rewrites.length > 0) {
      ctx.log.debug('rewriting aging offsets records', { partition: owned.partition, records: rewrites.length });
      appendInChunks(s, ctx, owned.partition, rewrites, 'refresh');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Handlers

export function handleTopicsDeleted(s: CoordinatorState, m: MsgOf<'TopicsDeleted'>, ctx: HandlerCtx): void {
  // as Kafka's onPartitionsDeleted: the groups of the offsets partitions loaded here; an offset
  // a transaction is still writing is left to it
  const gone = new Set(m.topics);
  for (const owned of s.partitions.values()) {
    if (owned.status !== OffsetsPartitionStatus.Active) continue;
    const tombstones: WrittenRecord[] = [];
    for (const groupId of [...owned.groups]) {
      const entry = s.groups.get(groupId);
      if (!entry) continue;
      const removed = [...entry.offsets.values()].filter((o) => gone.has(o.topic) && !isPendingOffset(entry, o));
      if (removed.length === 0) continue;
      ctx.log.info('removing the offsets of deleted topics', { groupId, count: removed.length, topics: [...new Set(removed.map((o) => o.topic))] });
      tombstones.push(...cleanupGroup(s, ctx, entry, removed));
    }
    if (tombstones.length > 0) appendInChunks(s, ctx, owned.partition, tombstones, 'topics-deleted');
  }
}
