/**
 * A group coordinator on one ActorSystem with a FakeClock, and a fake offsets-partition replica
 * that stands in for the broker's leader replica: it takes Produce (assigning offsets, as a
 * leader does), serves ReplicaRead of what it stored, and can be told to fail or hold appends,
 * hold reads, or drop a log prefix (as retention does).
 */
import { groupCoordinator, type CoordinatorArgs } from '../../../actors/group-coordinator/coordinator.js';
import { encodeSubscription } from '../../../actors/group-coordinator/consumer-protocol.js';
import type {
  CoordinatorDescription,
  CoordinatorMsg,
  DeleteGroupsResponse,
  DescribeGroupsResponse,
  DescribedGroup,
  JoinGroupResponse,
  ListGroupsResponse,
  OffsetCommitResponse,
  OffsetDeleteResponse,
  OffsetFetchResponse,
  SimpleResponse,
  SyncGroupResponse,
  TxnOffsetCommitResponse,
} from '../../../actors/group-coordinator/messages.js';
import {
  decodeGroupMetadataValue,
  decodeKey,
  decodeOffsetCommitValue,
  decodeShareGroupValue,
  type GroupMetadataValue,
  type OffsetCommitValue,
  type OffsetsRecordKey,
  type ShareGroupRecordValue,
} from '../../../actors/group-coordinator/offsets-store.js';
import type { ProduceResponse, ReplicaMsg, ReplicaReadResult } from '../../../actors/partition-replica/messages.js';
import { lastOffsetOf, setBaseOffset } from '../../../src/protocol/batch-header.js';
import { ControlType, encodeTxnMarker } from '../../../src/protocol/control-records.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeRecordBatches } from '../../../src/protocol/record-batch.js';
import type { ReplyToken } from '../../../src/runtime/actor-definition.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import type { ActorRef, Failure, Message } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';

// ---------------------------------------------------------------------------------------------
// The fake replica

export interface StoredRecord {
  offset: number;
  timestamp: number;
  key: OffsetsRecordKey;
  /** Decoded value, null for a tombstone. */
  offsetValue?: OffsetCommitValue | null;
  groupValue?: GroupMetadataValue | null;
  /** A share group's record (KIP-932): its decoded value, null for a tombstone. */
  shareValue?: ShareGroupRecordValue | null;
  /** The schema version the value was written with. */
  valueVersion?: number;
}

type FakeControl = {
  type: 'FakeControl';
  /** Error code for the following Produce requests (null: succeed). */
  failProduce?: number | null;
  holdProduce?: boolean;
  holdReads?: boolean;
  releaseProduces?: boolean;
  /** Release held produce replies newest first (replies can overtake each other). */
  releaseProducesReversed?: boolean;
  releaseReads?: boolean;
  /** Drop batches entirely below this offset (log start moves, as retention does). */
  truncateBefore?: number;
  leaderEpoch?: number;
  /** Keep the high watermark this many offsets below the log end (followers lagging). */
  hwLag?: number;
  /** Append a transaction marker of this producer (as the broker's WriteTxnMarkers does). */
  appendMarker?: { producerId: number; commit: boolean };
};

type FakeReplicaMsg =
  | Extract<ReplicaMsg, { type: 'Produce' | 'ReplicaRead' }>
  | FakeControl
  | { type: 'FakeDump' };

interface FakeReplicaState {
  batches: Buffer[];
  nextOffset: number;
  logStartOffset: number;
  leaderEpoch: number;
  failProduce: number | null;
  holdProduce: boolean;
  holdReads: boolean;
  heldProduces: { token: ReplyToken; reply: ProduceResponse }[];
  heldReads: { token: ReplyToken; msg: Extract<ReplicaMsg, { type: 'ReplicaRead' }> }[];
  produces: number;
  /** Each Produce's transaction verification (KIP-890): its guard, or null when it carried none. */
  guards: (number | null)[];
  reads: number;
  hwLag: number;
}

function readReply(s: FakeReplicaState, m: Extract<ReplicaMsg, { type: 'ReplicaRead' }>): ReplicaReadResult {
  const hw = Math.max(s.logStartOffset, s.nextOffset - s.hwLag);
  const base = { type: 'ReplicaReadResult' as const, highWatermark: hw, logStartOffset: s.logStartOffset, logEndOffset: s.nextOffset };
  if (m.currentLeaderEpoch >= 0 && m.currentLeaderEpoch !== s.leaderEpoch) {
    return { ...base, errorCode: m.currentLeaderEpoch < s.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH, records: new Uint8Array(0) };
  }
  if (m.fetchOffset < s.logStartOffset || m.fetchOffset > s.nextOffset) return { ...base, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, records: new Uint8Array(0) };
  const out: Buffer[] = [];
  let size = 0;
  for (const b of s.batches) {
    if (lastOffsetOf(b, 0) < m.fetchOffset) continue;
    // a consumer read (replicaId -1) sees only what the ISR has
    if (lastOffsetOf(b, 0) >= hw) break;
    if (out.length > 0 && size + b.length > m.maxBytes) break;
    out.push(b);
    size += b.length;
  }
  return { ...base, errorCode: ErrorCode.NONE, records: Buffer.concat(out) };
}

export const fakeReplica = defineActor<FakeReplicaState, FakeReplicaMsg>({
  kind: 'fake-offsets-replica',
  supervision: 'resume',
  init: () => ({
    batches: [],
    nextOffset: 0,
    logStartOffset: 0,
    leaderEpoch: 0,
    failProduce: null,
    holdProduce: false,
    holdReads: false,
    heldProduces: [],
    heldReads: [],
    produces: 0,
    guards: [],
    reads: 0,
    hwLag: 0,
  }),
  handlers: {
    Produce(s, m, ctx) {
      s.produces++;
      s.guards.push(m.verify === true ? (m.verificationGuard ?? 0) : null);
      let reply: ProduceResponse;
      if (s.failProduce !== null) {
        reply = { type: 'ProduceResponse', errorCode: s.failProduce, errorMessage: 'injected', baseOffset: -1, logAppendTime: -1, logStartOffset: s.logStartOffset };
      } else {
        // the coordinator writes one batch per Produce, as one buffer
        const b = Buffer.from(m.records as Uint8Array);
        setBaseOffset(b, 0, s.nextOffset);
        const baseOffset = s.nextOffset;
        s.nextOffset = lastOffsetOf(b, 0) + 1;
        s.batches.push(b);
        reply = { type: 'ProduceResponse', errorCode: ErrorCode.NONE, errorMessage: null, baseOffset, logAppendTime: -1, logStartOffset: s.logStartOffset };
      }
      const token = ctx.deferReply();
      if (!token) return;
      if (s.holdProduce) s.heldProduces.push({ token, reply });
      else ctx.replyTo(token, reply);
    },
    ReplicaRead(s, m, ctx) {
      s.reads++;
      const token = ctx.deferReply();
      if (!token) return;
      if (s.holdReads) s.heldReads.push({ token, msg: m });
      else ctx.replyTo(token, readReply(s, m));
    },
    FakeControl(s, m, ctx) {
      if (m.failProduce !== undefined) s.failProduce = m.failProduce;
      if (m.holdProduce !== undefined) s.holdProduce = m.holdProduce;
      if (m.holdReads !== undefined) s.holdReads = m.holdReads;
      if (m.leaderEpoch !== undefined) s.leaderEpoch = m.leaderEpoch;
      if (m.hwLag !== undefined) s.hwLag = m.hwLag;
      if (m.appendMarker) {
        const b = encodeTxnMarker({ producerId: m.appendMarker.producerId, producerEpoch: 0, type: m.appendMarker.commit ? ControlType.COMMIT : ControlType.ABORT, coordinatorEpoch: 0, timestamp: 0 });
        setBaseOffset(b, 0, s.nextOffset);
        s.nextOffset = lastOffsetOf(b, 0) + 1;
        s.batches.push(b);
      }
      if (m.truncateBefore !== undefined) {
        s.batches = s.batches.filter((b) => lastOffsetOf(b, 0) >= m.truncateBefore!);
        s.logStartOffset = Math.max(s.logStartOffset, m.truncateBefore);
      }
      if (m.releaseProduces) {
        for (const h of s.heldProduces.splice(0)) ctx.replyTo(h.token, h.reply);
      }
      if (m.releaseProducesReversed) {
        for (const h of s.heldProduces.splice(0).reverse()) ctx.replyTo(h.token, h.reply);
      }
      if (m.releaseReads) {
        for (const h of s.heldReads.splice(0)) ctx.replyTo(h.token, readReply(s, h.msg));
      }
      ctx.reply({ type: 'FakeControlled' });
    },
    FakeDump(s, _m, ctx) {
      const records: StoredRecord[] = [];
      for (const batch of decodeRecordBatches(Buffer.concat(s.batches))) {
        if (batch.control) continue;
        for (const r of batch.records) {
          const key = decodeKey(r.key!);
          const rec: StoredRecord = { offset: r.offset, timestamp: r.timestamp, key };
          if (key.kind === 'offset') rec.offsetValue = r.value ? decodeOffsetCommitValue(r.value) : null;
          if (r.value && r.value.length >= 2) rec.valueVersion = Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength).readInt16BE(0);
          if (key.kind === 'group') rec.groupValue = r.value ? decodeGroupMetadataValue(r.value) : null;
          if (key.kind === 'share-group') rec.shareValue = r.value ? decodeShareGroupValue(key.record, r.value) : null;
          records.push(rec);
        }
      }
      const batches = decodeRecordBatches(Buffer.concat(s.batches)).map((b) => ({ baseOffset: b.baseOffset, transactional: b.transactional, control: b.control, producerId: b.producerId, producerEpoch: b.producerEpoch }));
      ctx.reply({ type: 'FakeDumped', records, batches, produces: s.produces, guards: s.guards, reads: s.reads, logEndOffset: s.nextOffset, logStartOffset: s.logStartOffset } as never);
    },
  },
});

// ---------------------------------------------------------------------------------------------
// The harness

export const LONG = { timeoutMs: 24 * 3600_000 };
export const sub = (...topics: string[]): Uint8Array => encodeSubscription({ version: 1, topics });

export type ConsumerHeartbeatMsg = Extract<CoordinatorMsg, { type: 'ConsumerGroupHeartbeat' }>;

/** A KIP-848 join of `groupId` (epoch 0, no member id, nothing owned, subscribed to nothing), with `o` over it. */
export function consumerHeartbeat(groupId: string, o: Partial<ConsumerHeartbeatMsg> = {}): ConsumerHeartbeatMsg {
  return {
    type: 'ConsumerGroupHeartbeat',
    groupId,
    memberId: '',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: [],
    serverAssignor: null,
    topicPartitions: [],
    clientId: 'c',
    clientHost: '/127.0.0.1',
    ...o,
  };
}

export type ShareHeartbeatMsg = Extract<CoordinatorMsg, { type: 'ShareGroupHeartbeat' }>;

/** A KIP-932 join of `groupId` by member `memberId` (epoch 0, subscribed to 't'), with `o` over it. */
export function shareHeartbeat(groupId: string, memberId: string, o: Partial<ShareHeartbeatMsg> = {}): ShareHeartbeatMsg {
  return { type: 'ShareGroupHeartbeat', groupId, memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['t'], clientId: 'c', clientHost: '/127.0.0.1', ...o };
}

export interface JoinOptions {
  memberId?: string;
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  protocolType?: string;
  protocols?: { name: string; metadata: Uint8Array }[];
  groupInstanceId?: string | null;
  requireKnownMemberId?: boolean;
  clientId?: string;
}

/** 'topic-partition' -> offset as OffsetCommit's topics (metadata `m<offset>`). */
function byTopicPartitions(offsets: Record<string, number>): { name: string; partitions: { partition: number; offset: number; leaderEpoch: number; metadata: string }[] }[] {
  const byTopic = new Map<string, { partition: number; offset: number; leaderEpoch: number; metadata: string }[]>();
  for (const [tp, offset] of Object.entries(offsets)) {
    const i = tp.lastIndexOf('-');
    const topic = tp.slice(0, i);
    const partition = Number(tp.slice(i + 1));
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition, offset, leaderEpoch: 0, metadata: `m${offset}` }]);
  }
  return [...byTopic].map(([name, partitions]) => ({ name, partitions }));
}

export class CoordinatorHarness {
  readonly clock = new FakeClock();
  readonly sys: ActorSystem;
  readonly replicas: ActorRef<FakeReplicaMsg>[] = [];
  private coordinators = 0;
  coord!: ActorRef<CoordinatorMsg>;

  constructor(
    readonly partitions = 1,
    readonly args: Partial<CoordinatorArgs> = {},
  ) {
    this.sys = new ActorSystem({ nodeId: 'b1', clock: this.clock, strictSerialization: true, defaultAskTimeoutMs: LONG.timeoutMs });
    for (let p = 0; p < partitions; p++) this.replicas.push(this.sys.spawn(fakeReplica, { name: `offsets-${p}` }));
  }

  /** Spawns a coordinator (another one stands for another broker reading the same replicas). */
  spawnCoordinator(extra: Partial<CoordinatorArgs> = {}): ActorRef<CoordinatorMsg> {
    const replicas = this.replicas;
    this.coord = this.sys.spawn(groupCoordinator, {
      name: `coordinator-${++this.coordinators}`,
      args: {
        brokerId: 1,
        offsetsTopicNumPartitions: this.partitions,
        groupInitialRebalanceDelayMs: 0,
        groupMinSessionTimeoutMs: 1_000,
        groupMaxSessionTimeoutMs: 600_000,
        // a partition beyond the fake replicas has none on this "broker"
        replicaFor: (p) => (replicas[p] ?? { node: this.sys.nodeId, path: `/no-replica-${p}` }) as ActorRef<ReplicaMsg>,
        ...this.args,
        ...extra,
      },
    });
    return this.coord;
  }

  async stop(): Promise<void> {
    await this.sys.stop();
  }

  ask<R>(msg: CoordinatorMsg, to: ActorRef<CoordinatorMsg> = this.coord): Promise<R> {
    return this.sys.ask(to, msg, LONG) as Promise<R>;
  }

  async become(partition = 0, leaderEpoch = 0, to: ActorRef<CoordinatorMsg> = this.coord): Promise<void> {
    this.sys.send(to, { type: 'BecomeCoordinator', partition, leaderEpoch });
    await this.waitActive(partition, to);
  }

  async waitActive(partition = 0, to: ActorRef<CoordinatorMsg> = this.coord): Promise<void> {
    await checkFor(async () => (await this.describeCoordinator(to)).partitions.some((p) => p.partition === partition && p.status === 'Active'), 5_000);
  }

  describeCoordinator(to: ActorRef<CoordinatorMsg> = this.coord): Promise<CoordinatorDescription> {
    return this.ask<CoordinatorDescription>({ type: 'DescribeCoordinator' }, to);
  }

  /** Lets every queued message be handled (the coordinator answers after the ones before). */
  async settle(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await this.describeCoordinator();
      for (const r of this.replicas) await this.sys.ask(r, { type: 'FakeControl' } as never, LONG);
    }
  }

  control(msg: Omit<FakeControl, 'type'>, partition = 0): Promise<unknown> {
    return this.sys.ask(this.replicas[partition]!, { type: 'FakeControl', ...msg } as never, LONG);
  }

  async dump(partition = 0): Promise<{
    records: StoredRecord[];
    batches: { baseOffset: number; transactional: boolean; control: boolean; producerId: number; producerEpoch: number }[];
    produces: number;
    guards: (number | null)[];
    reads: number;
    logEndOffset: number;
    logStartOffset: number;
  }> {
    return (await this.sys.ask(this.replicas[partition]!, { type: 'FakeDump' } as never, LONG)) as never;
  }

  join(groupId: string, o: JoinOptions = {}, to: ActorRef<CoordinatorMsg> = this.coord): Promise<JoinGroupResponse> {
    const msg: CoordinatorMsg = {
      type: 'JoinGroup',
      groupId,
      memberId: o.memberId ?? '',
      sessionTimeoutMs: o.sessionTimeoutMs ?? 10_000,
      rebalanceTimeoutMs: o.rebalanceTimeoutMs ?? 30_000,
      protocolType: o.protocolType ?? 'consumer',
      protocols: o.protocols ?? [{ name: 'range', metadata: sub('t') }],
      clientId: o.clientId ?? 'c',
      clientHost: '/127.0.0.1',
    };
    if (o.groupInstanceId !== undefined) msg.groupInstanceId = o.groupInstanceId;
    if (o.requireKnownMemberId !== undefined) msg.requireKnownMemberId = o.requireKnownMemberId;
    return this.ask<JoinGroupResponse>(msg, to);
  }

  sync(groupId: string, memberId: string, generationId: number, assignments: { memberId: string; assignment: Uint8Array }[] = [], to = this.coord): Promise<SyncGroupResponse> {
    return this.ask<SyncGroupResponse>({ type: 'SyncGroup', groupId, memberId, generationId, assignments }, to);
  }

  heartbeat(groupId: string, memberId: string, generationId: number, to = this.coord): Promise<SimpleResponse> {
    return this.ask<SimpleResponse>({ type: 'Heartbeat', groupId, memberId, generationId }, to);
  }

  leave(groupId: string, memberId: string): Promise<SimpleResponse> {
    return this.ask<SimpleResponse>({ type: 'LeaveGroup', groupId, members: [{ memberId }] });
  }

  commit(groupId: string, offsets: Record<string, number>, generationId = -1, memberId = '', to = this.coord): Promise<OffsetCommitResponse> {
    return this.ask<OffsetCommitResponse>({ type: 'OffsetCommit', groupId, generationId, memberId, topics: byTopicPartitions(offsets) }, to);
  }

  /** TxnOffsetCommit of producer `producerId` (epoch 0) for 'topic-partition' -> offset. */
  txnCommit(groupId: string, producerId: number, offsets: Record<string, number>, o: { generationId?: number; memberId?: string; producerEpoch?: number } = {}, to = this.coord): Promise<TxnOffsetCommitResponse> {
    const topics = byTopicPartitions(offsets);
    return this.ask<TxnOffsetCommitResponse>(
      { type: 'TxnOffsetCommit', transactionalId: `txn-${producerId}`, groupId, producerId, producerEpoch: o.producerEpoch ?? 0, generationId: o.generationId ?? -1, memberId: o.memberId ?? '', topics },
      to,
    );
  }

  /** The committed offsets as 'topic-partition' -> offset (-1 entries left out). */
  async fetched(groupId: string, to = this.coord): Promise<Record<string, number>> {
    const r = await this.ask<OffsetFetchResponse>({ type: 'OffsetFetch', groupId, topics: null }, to);
    const out: Record<string, number> = {};
    for (const t of r.topics) for (const p of t.partitions) if (p.offset >= 0) out[`${t.name}-${p.partition}`] = p.offset;
    return out;
  }

  fetch(groupId: string, topics: { name: string; partitions: number[] }[] | null, to = this.coord): Promise<OffsetFetchResponse> {
    return this.ask<OffsetFetchResponse>({ type: 'OffsetFetch', groupId, topics }, to);
  }

  async describe(groupId: string, to = this.coord): Promise<DescribedGroup> {
    const r = await this.ask<DescribeGroupsResponse>({ type: 'DescribeGroups', groups: [groupId] }, to);
    return r.groups[0]!;
  }

  listGroups(statesFilter?: string[]): Promise<ListGroupsResponse> {
    return this.ask<ListGroupsResponse>(statesFilter ? { type: 'ListGroups', statesFilter } : { type: 'ListGroups' });
  }

  deleteGroups(groups: string[]): Promise<DeleteGroupsResponse> {
    return this.ask<DeleteGroupsResponse>({ type: 'DeleteGroups', groups });
  }

  offsetDelete(groupId: string, topics: { name: string; partitions: number[] }[]): Promise<OffsetDeleteResponse> {
    return this.ask<OffsetDeleteResponse>({ type: 'OffsetDelete', groupId, topics });
  }

  /** A promise's value if it has settled by the time the coordinator's mailbox is drained, else 'pending'. */
  async peek<T>(p: Promise<T>): Promise<T | 'pending'> {
    let v: T | 'pending' = 'pending';
    void p.then((x) => (v = x));
    await this.settle();
    return v;
  }

  /**
   * A stable group of `n` members: the first joins (and leads), the others join, everyone
   * rejoins, the leader hands out `assignment(memberId)`; returns ids (leader first) and generation.
   */
  async stableGroup(groupId: string, n: number, o: JoinOptions = {}): Promise<{ members: string[]; generationId: number }> {
    const first = await this.join(groupId, o);
    let members = [first.memberId];
    let generationId = first.generationId;
    if (n > 1) {
      // the first member's generation is complete; the next ones trigger one rebalance together
      const joins = Array.from({ length: n - 1 }, () => this.join(groupId, o));
      await this.settle();
      const again = this.join(groupId, { ...o, memberId: first.memberId });
      const all = await Promise.all([again, ...joins]);
      members = all.map((r) => r.memberId);
      generationId = all[0]!.generationId;
    }
    const assignments = members.map((memberId) => ({ memberId, assignment: Buffer.from(`assigned-to-${memberId}`) }));
    const syncs = members.map((m, i) => this.sync(groupId, m, generationId, i === 0 ? assignments : []));
    await Promise.all(syncs);
    return { members, generationId };
  }
}

export type { Failure, Message };
