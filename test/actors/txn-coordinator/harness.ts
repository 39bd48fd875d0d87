/**
 * A transaction coordinator on one ActorSystem with a FakeClock, with fakes for what it talks to:
 * the leader replicas of __transaction_state partitions (Produce assigns offsets, ReplicaRead
 * serves what was written; appends can be failed or held, reads held) and brokers (Metadata
 * from a cluster view the test sets, InitProducerId handing out ids, WriteTxnMarkers recorded
 * and answered per partition with errors the test queues).
 */
import { txnCoordinator, type TxnCoordinatorArgs } from '../../../actors/txn-coordinator/coordinator.js';
import type { TxnCoordinatorDescription, TxnCoordinatorMsg, TxnCoordinatorReply } from '../../../actors/txn-coordinator/messages.js';
import { readTxnLogBatches } from '../../../actors/txn-coordinator/txn-log.js';
import { decodeTxnRecord, TRANSACTION_STATE_TOPIC, type TxnLogRecord, type TxnMetadata } from '../../../actors/txn-coordinator/txn-metadata.js';
import { buildTxnLogBatch } from '../../../actors/txn-coordinator/txn-log.js';
import type { BrokerMsg, TxnMarkerEntry, WriteTxnMarkersResponse } from '../../../actors/broker/messages.js';
import type { ProduceResponse, ReplicaMsg, ReplicaReadResult } from '../../../actors/partition-replica/messages.js';
import { lastOffsetOf, setBaseOffset } from '../../../src/protocol/batch-header.js';
import type { ClusterMetadata, PartitionState, TopicMetadata } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ReplyToken } from '../../../src/runtime/actor-definition.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';

export const LONG = { timeoutMs: 24 * 3600_000 };

// ---------------------------------------------------------------------------------------------
// The fake __transaction_state replica

type ReplicaControl = { type: 'FakeControl'; failProduce?: number | null; holdProduce?: boolean; releaseProduces?: boolean; holdReads?: boolean; releaseReads?: boolean; append?: Uint8Array };
type FakeReplicaMsg = Extract<ReplicaMsg, { type: 'Produce' | 'ReplicaRead' }> | ReplicaControl | { type: 'FakeDump' };

interface FakeReplicaState {
  batches: Buffer[];
  nextOffset: number;
  failProduce: number | null;
  holdProduce: boolean;
  holdReads: boolean;
  heldProduces: { token: ReplyToken; reply: ProduceResponse }[];
  heldReads: { token: ReplyToken; msg: Extract<ReplicaMsg, { type: 'ReplicaRead' }> }[];
}

function append(s: FakeReplicaState, bytes: Uint8Array): number {
  const b = Buffer.from(bytes);
  setBaseOffset(b, 0, s.nextOffset);
  const base = s.nextOffset;
  s.nextOffset = lastOffsetOf(b, 0) + 1;
  s.batches.push(b);
  return base;
}

function readReply(s: FakeReplicaState, m: Extract<ReplicaMsg, { type: 'ReplicaRead' }>): ReplicaReadResult {
  const out = s.batches.filter((b) => lastOffsetOf(b, 0) >= m.fetchOffset);
  return { type: 'ReplicaReadResult', errorCode: ErrorCode.NONE, highWatermark: s.nextOffset, logStartOffset: 0, logEndOffset: s.nextOffset, records: Buffer.concat(out) };
}

const fakeReplica = defineActor<FakeReplicaState, FakeReplicaMsg>({
  kind: 'fake-txn-state-replica',
  supervision: 'resume',
  init: () => ({ batches: [], nextOffset: 0, failProduce: null, holdProduce: false, holdReads: false, heldProduces: [], heldReads: [] }),
  handlers: {
    Produce(s, m, ctx) {
      const reply: ProduceResponse =
        s.failProduce !== null
          ? { type: 'ProduceResponse', errorCode: s.failProduce, errorMessage: 'injected', baseOffset: -1, logAppendTime: -1, logStartOffset: 0 }
          : { type: 'ProduceResponse', errorCode: ErrorCode.NONE, errorMessage: null, baseOffset: append(s, m.records as Uint8Array), logAppendTime: -1, logStartOffset: 0 };
      const token = ctx.deferReply();
      if (!token) return;
      if (s.holdProduce) s.heldProduces.push({ token, reply });
      else ctx.replyTo(token, reply);
    },
    ReplicaRead(s, m, ctx) {
      const token = ctx.deferReply();
      if (!token) return;
      if (s.holdReads) s.heldReads.push({ token, msg: m });
      else ctx.replyTo(token, readReply(s, m));
    },
    FakeControl(s, m, ctx) {
      if (m.failProduce !== undefined) s.failProduce = m.failProduce;
      if (m.holdProduce !== undefined) s.holdProduce = m.holdProduce;
      if (m.holdReads !== undefined) s.holdReads = m.holdReads;
      if (m.append) append(s, m.append);
      if (m.releaseProduces) for (const h of s.heldProduces.splice(0)) ctx.replyTo(h.token, h.reply);
      if (m.releaseReads) for (const h of s.heldReads.splice(0)) ctx.replyTo(h.token, readReply(s, h.msg));
      ctx.reply({ type: 'FakeControlled' });
    },
    FakeDump(s, _m, ctx) {
      ctx.reply({ type: 'FakeDumped', bytes: Buffer.concat(s.batches), produces: s.batches.length } as never);
    },
  },
});

// ---------------------------------------------------------------------------------------------
// The fake brokers

export interface MarkerCall {
  brokerId: number;
  markers: TxnMarkerEntry[];
}

type BrokerControl = {
  type: 'FakeBrokerControl';
  metadata?: ClusterMetadata;
  /** Errors for the next marker writes of a 'topic-partition', in order (then NONE). */
  markerErrors?: Record<string, number[]>;
  failProducerIds?: number | null;
};
type FakeBrokerMsg = Extract<BrokerMsg, { type: 'Metadata' | 'InitProducerId' | 'WriteTxnMarkers' }> | BrokerControl | { type: 'FakeBrokerCalls' };

interface FakeBrokerState {
  brokerId: number;
  metadata: ClusterMetadata;
  nextProducerId: number;
  failProducerIds: number | null;
  markerErrors: Map<string, number[]>;
  calls: MarkerCall[];
}

const fakeBroker = defineActor<FakeBrokerState, FakeBrokerMsg, { brokerId: number; firstProducerId: number }>({
  kind: 'fake-broker',
  supervision: 'resume',
  init: (_ctx, a) => ({
    brokerId: a.brokerId,
    metadata: { clusterId: 'c', controllerNode: 'n', controllerEpoch: 1, brokers: [], topics: [] },
    nextProducerId: a.firstProducerId,
    failProducerIds: null,
    markerErrors: new Map(),
    calls: [],
  }),
  handlers: {
    Metadata(s, m, ctx) {
      const wanted = m.topics ? new Set(m.topics) : null;
      ctx.reply({ type: 'MetadataResponse', errorCode: 0, metadata: { ...s.metadata, topics: s.metadata.topics.filter((t) => !wanted || wanted.has(t.name)) } });
    },
    InitProducerId(s, _m, ctx) {
      if (s.failProducerIds !== null) ctx.reply({ type: 'InitProducerIdResult', errorCode: s.failProducerIds, producerId: -1, producerEpoch: -1 });
      else ctx.reply({ type: 'InitProducerIdResult', errorCode: 0, producerId: s.nextProducerId++, producerEpoch: 0 });
    },
    WriteTxnMarkers(s, m, ctx) {
      s.calls.push({ brokerId: s.brokerId, markers: m.markers });
      const response: WriteTxnMarkersResponse = {
        type: 'WriteTxnMarkersResponse',
        markers: m.markers.map((mk) => ({
          producerId: mk.producerId,
          topics: mk.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((partition) => {
              const errorCode = s.markerErrors.get(`${t.name}-${partition}`)?.shift() ?? ErrorCode.NONE;
              return { partition, errorCode, errorMessage: errorCode === 0 ? null : 'injected' };
            }),
          })),
        })),
      };
      ctx.reply(response);
    },
    FakeBrokerControl(s, m, ctx) {
      if (m.metadata) s.metadata = m.metadata;
      if (m.failProducerIds !== undefined) s.failProducerIds = m.failProducerIds;
      for (const [k, codes] of Object.entries(m.markerErrors ?? {})) s.markerErrors.set(k, [...codes]);
      ctx.reply({ type: 'FakeBrokerControlled' });
    },
    FakeBrokerCalls(s, _m, ctx) {
      ctx.reply({ type: 'FakeBrokerCallsReply', calls: s.calls } as never);
    },
  },
});

/** A cluster view: topics as name -> leader of each partition (by index). */
export function clusterView(topics: Record<string, number[]>, brokers = [1, 2]): ClusterMetadata {
  const topicList: TopicMetadata[] = Object.entries(topics).map(([name, leaders]) => ({
    name,
    topicId: name,
    internal: false,
    config: {},
    partitions: leaders.map((leader, partition): PartitionState => ({ topic: name, partition, replicas: [leader], isr: [leader], leader, leaderEpoch: 0, partitionEpoch: 0 })),
  }));
  return { clusterId: 'c', controllerNode: 'n', controllerEpoch: 1, brokers: brokers.map((brokerId) => ({ brokerId, node: 'b1', rack: null, fenced: false, brokerEpoch: 1 })), topics: topicList };
}

// ---------------------------------------------------------------------------------------------
// The harness

export class TxnHarness {
  readonly clock = new FakeClock();
  readonly sys: ActorSystem;
  readonly replicas: ActorRef<FakeReplicaMsg>[] = [];
  readonly brokers = new Map<number, ActorRef<FakeBrokerMsg>>();
  private spawned = 0;
  coord!: ActorRef<TxnCoordinatorMsg>;

  constructor(readonly partitions = 1) {
    this.sys = new ActorSystem({ nodeId: 'b1', clock: this.clock, strictSerialization: true, defaultAskTimeoutMs: LONG.timeoutMs });
    for (let p = 0; p < partitions; p++) this.replicas.push(this.sys.spawn(fakeReplica, { name: `txn-state-${p}` }));
    for (const id of [1, 2]) this.brokers.set(id, this.sys.spawn(fakeBroker, { name: `broker-${id}`, args: { brokerId: id, firstProducerId: 1000 * id } }));
  }

  spawnCoordinator(extra: Partial<TxnCoordinatorArgs> = {}): ActorRef<TxnCoordinatorMsg> {
    const replicas = this.replicas;
    const brokers = this.brokers;
    this.coord = this.sys.spawn(txnCoordinator, {
      name: `txn-coordinator-${++this.spawned}`,
      args: {
        brokerId: 1,
        transactionStateNumPartitions: this.partitions,
        offsetsTopicNumPartitions: 3,
        transactionMaxTimeoutMs: 60_000,
        requestTimeoutMs: 1_000,
        replicaFor: (p) => replicas[p] as ActorRef<ReplicaMsg>,
        broker: brokers.get(1) as ActorRef<BrokerMsg>,
        brokerAt: (id) => brokers.get(id) as ActorRef<BrokerMsg>,
        ...extra,
      },
    });
    return this.coord;
  }

  async stop(): Promise<void> {
    await this.sys.stop();
  }

  ask<R>(msg: TxnCoordinatorMsg, to: ActorRef<TxnCoordinatorMsg> = this.coord): Promise<R> {
    return this.sys.ask(to, msg, LONG) as Promise<R>;
  }

  describe(to: ActorRef<TxnCoordinatorMsg> = this.coord): Promise<TxnCoordinatorDescription> {
    return this.ask<TxnCoordinatorDescription>({ type: 'DescribeTxnCoordinator' }, to);
  }

  async become(partition = 0, leaderEpoch = 0, to: ActorRef<TxnCoordinatorMsg> = this.coord): Promise<void> {
    this.sys.send(to, { type: 'BecomeTxnCoordinator', partition, leaderEpoch });
    await checkFor(async () => (await this.describe(to)).partitions.some((p) => p.partition === partition && p.status === 'Active'), 5_000);
  }

  async setMetadata(md: ClusterMetadata): Promise<void> {
    for (const b of this.brokers.values()) await this.sys.ask(b, { type: 'FakeBrokerControl', metadata: md } as never, LONG);
  }

  brokerControl(brokerId: number, msg: Omit<BrokerControl, 'type'>): Promise<unknown> {
    return this.sys.ask(this.brokers.get(brokerId)!, { type: 'FakeBrokerControl', ...msg } as never, LONG);
  }

  async markerCalls(brokerId: number): Promise<MarkerCall[]> {
    return ((await this.sys.ask(this.brokers.get(brokerId)!, { type: 'FakeBrokerCalls' } as never, LONG)) as unknown as { calls: MarkerCall[] }).calls;
  }

  control(msg: Omit<ReplicaControl, 'type'>, partition = 0): Promise<unknown> {
    return this.sys.ask(this.replicas[partition]!, { type: 'FakeControl', ...msg } as never, LONG);
  }

  /** Writes records into a partition's log as if an earlier coordinator had. */
  async seed(records: TxnLogRecord[], partition = 0): Promise<void> {
    for (const r of records) await this.control({ append: buildTxnLogBatch(r, this.clock.now()) }, partition);
  }

  /** The records of a partition's log, decoded: transactional id -> metadata (null: tombstone), in log order. */
  async log(partition = 0): Promise<{ transactionalId: string; metadata: TxnMetadata | null }[]> {
    const d = (await this.sys.ask(this.replicas[partition]!, { type: 'FakeDump' } as never, LONG)) as unknown as { bytes: Buffer };
    return readTxnLogBatches(d.bytes, 0).records.map((raw) => {
      const r = decodeTxnRecord(raw);
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    });
  }

  /** Lets queued messages be handled (the coordinator answers after the ones before). */
  async settle(): Promise<void> {
    for (let i = 0; i < 4; i++) {
      await this.describe();
      await new Promise<void>((r) => setImmediate(r));
    }
  }

  init(transactionalId: string, o: { timeoutMs?: number; producerId?: number; producerEpoch?: number; version?: number } = {}, to = this.coord): Promise<TxnCoordinatorReply> {
    return this.ask<TxnCoordinatorReply>(
      { type: 'InitProducerId', transactionalId, transactionTimeoutMs: o.timeoutMs ?? 10_000, producerId: o.producerId ?? -1, producerEpoch: o.producerEpoch ?? -1, version: o.version ?? 4 },
      to,
    );
  }

  addPartitions(transactionalId: string, producerId: number, producerEpoch: number, partitions: { topic: string; partition: number }[], version = 3, to = this.coord): Promise<TxnCoordinatorReply> {
    return this.ask<TxnCoordinatorReply>({ type: 'AddPartitionsToTxn', transactionalId, producerId, producerEpoch, partitions, version }, to);
  }

  addOffsets(transactionalId: string, producerId: number, producerEpoch: number, groupId: string, version = 3): Promise<TxnCoordinatorReply> {
    return this.ask<TxnCoordinatorReply>({ type: 'AddOffsetsToTxn', transactionalId, producerId, producerEpoch, groupId, version });
  }

  endTxn(transactionalId: string, producerId: number, producerEpoch: number, committed: boolean, version = 3, to = this.coord): Promise<TxnCoordinatorReply> {
    return this.ask<TxnCoordinatorReply>({ type: 'EndTxn', transactionalId, producerId, producerEpoch, committed, version }, to);
  }

  async stateOf(transactionalId: string, to = this.coord): Promise<TxnCoordinatorDescription['transactions'][number] | undefined> {
    return (await this.describe(to)).transactions.find((t) => t.transactionalId === transactionalId);
  }
}

export { TRANSACTION_STATE_TOPIC };
