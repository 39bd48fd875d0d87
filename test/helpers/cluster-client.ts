/**
 * A thin internal client for cluster tests: metadata, topic admin through the controller,
 * produce to partition leaders and fetch from them, with the retries a real client would do
 * on stale metadata. The real producer/consumer clients are a later issue.
 */
import type { BrokerMsg, FetchResponse, MetadataResponse } from '../../actors/broker/messages.js';
import type { ControllerMsg, ControllerReply, CreatableTopic } from '../../actors/controller/messages.js';
import type { Acks, ProduceResponse, ReplicaDescription, ReplicaMsg } from '../../actors/partition-replica/messages.js';
import { CONTROLLER_PATH, brokerPath, replicaPath, type ClusterMetadata, type PartitionState } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch, type DecodedRecord, type DecodedRecordBatch } from '../../src/protocol/record-batch.js';
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import type { ActorRef, Failure } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from './check-for.js';

export class ClusterClient {
  readonly controller: ActorRef<ControllerMsg>;

  constructor(
    readonly system: ActorSystem,
    controllerNode: string,
  ) {
    this.controller = { node: controllerNode, path: CONTROLLER_PATH };
  }

  async metadata(): Promise<ClusterMetadata> {
    const r = await this.system.ask<ControllerReply>(this.controller, { type: 'Metadata' }, { timeoutMs: 10_000 });
    if (isFailure(r) || r.type !== 'MetadataResponse') throw new Error(`metadata failed: ${JSON.stringify(r)}`);
    return r.metadata;
  }

  async waitForBrokers(n: number, timeoutMs = 15_000): Promise<void> {
    await checkFor(async () => (await this.metadata()).brokers.filter((b) => !b.fenced).length >= n, timeoutMs, 20);
  }

  async createTopics(topics: CreatableTopic[]): Promise<Extract<ControllerReply, { type: 'CreateTopicsResponse' }>> {
    const r = await this.system.ask<ControllerReply>(this.controller, { type: 'CreateTopics', topics }, { timeoutMs: 10_000 });
    if (isFailure(r) || r.type !== 'CreateTopicsResponse') throw new Error(`CreateTopics failed: ${JSON.stringify(r)}`);
    return r;
  }

  async createTopic(name: string, numPartitions: number, replicationFactor: number, config?: Record<string, string | number>): Promise<void> {
    const r = await this.createTopics([{ name, numPartitions, replicationFactor, ...(config ? { config } : {}) }]);
    const t = r.topics[0]!;
    if (t.errorCode !== ErrorCode.NONE) throw new Error(`CreateTopics ${name}: ${t.errorCode} ${t.errorMessage}`);
    await this.waitForLeaders(name);
  }

  async partition(topic: string, partition: number): Promise<PartitionState | undefined> {
    const md = await this.metadata();
    return md.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition);
  }

  /** Waits until `topic`-`partition` has a leader other than `formerLeader` (failed over); returns its state. */
  async waitForLeaderOtherThan(topic: string, partition: number, formerLeader: number, timeoutMs = 15_000): Promise<PartitionState> {
    return checkFor(async () => {
      const p = await this.partition(topic, partition);
      return p && p.leader >= 0 && p.leader !== formerLeader ? p : null;
    }, timeoutMs, 50);
  }

  nodeOf(md: ClusterMetadata, brokerId: number): string {
    const b = md.brokers.find((x) => x.brokerId === brokerId);
    if (!b) throw new Error(`broker ${brokerId} unknown`);
    return b.node;
  }

  /** Waits until every partition of `topic` has a leader whose replica answers as leader. */
  async waitForLeaders(topic: string, timeoutMs = 15_000): Promise<void> {
    await checkFor(
      async () => {
        const md = await this.metadata();
        const t = md.topics.find((x) => x.name === topic);
        if (!t) return false;
        for (const p of t.partitions) {
          if (p.leader < 0) return false;
          const d = await this.describeReplica(md, p.leader, topic, p.partition);
          if (!d || d.role !== 'Leader' || d.leaderEpoch !== p.leaderEpoch) return false;
        }
        return true;
      },
      timeoutMs,
      20,
    );
  }

  async describeReplica(md: ClusterMetadata, brokerId: number, topic: string, partition: number): Promise<ReplicaDescription | null> {
    const node = md.brokers.find((b) => b.brokerId === brokerId)?.node;
    if (!node) return null;
    const ref: ActorRef<ReplicaMsg> = { node, path: replicaPath(brokerId, topic, partition) };
    const r = await this.system.ask<ReplicaDescription>(ref, { type: 'DescribeReplica' }, { timeoutMs: 5_000 });
    return isFailure(r) ? null : r;
  }

  static batch(values: string[], keyPrefix?: string): Buffer {
    return encodeRecordBatch({
      records: values.map((v, i) => ({
        key: keyPrefix === undefined ? null : Buffer.from(`${keyPrefix}${i}`),
        value: Buffer.from(v),
        timestamp: Date.now(),
      })),
    });
  }

  /** One produce attempt to the current leader (no retry). */
  async produceOnce(topic: string, partition: number, values: string[], acks: Acks, timeoutMs = 5_000): Promise<ProduceResponse | Failure> {
    const p = await this.partition(topic, partition);
    if (!p || p.leader < 0) return { type: 'Failure', errorCode: ErrorCode.LEADER_NOT_AVAILABLE, reason: 'unknown-actor', message: 'no leader' };
    const md = await this.metadata();
    const ref: ActorRef<ReplicaMsg> = { node: this.nodeOf(md, p.leader), path: replicaPath(p.leader, topic, partition) };
    const msg: ReplicaMsg = { type: 'Produce', acks, timeoutMs, records: ClusterClient.batch(values) };
    if (acks === 0) {
      this.system.send(ref, msg);
      return { type: 'ProduceResponse', errorCode: 0, errorMessage: null, baseOffset: -1, logAppendTime: -1, logStartOffset: -1 };
    }
    return this.system.ask<ProduceResponse>(ref, msg, { timeoutMs: timeoutMs + 5_000 });
  }

  /** Produces with retries on retriable errors (refreshing the leader), like a producer would. */
  async produce(topic: string, partition: number, values: string[], acks: Acks = -1, deadlineMs = 15_000): Promise<ProduceResponse> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const r = await this.produceOnce(topic, partition, values, acks);
      if (!isFailure(r) && r.errorCode === ErrorCode.NONE) return r;
      const retriable = isFailure(r) || [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.REQUEST_TIMED_OUT].includes(r.errorCode as never);
      if (!retriable || Date.now() > deadline) throw new Error(`produce to ${topic}-${partition} failed: ${JSON.stringify(r)}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  /** Reads every committed record of a partition from its leader. */
  async readAll(topic: string, partition: number, fromOffset = 0, replicaId = -1): Promise<DecodedRecord[]> {
    const out: DecodedRecord[] = [];
    for (const b of await this.readBatches(topic, partition, fromOffset, replicaId)) {
      for (const rec of b.records) if (rec.offset >= fromOffset) out.push(rec);
    }
    return out;
  }

  /** Reads every committed batch of a partition from its leader, from the one holding `fromOffset`. */
  async readBatches(topic: string, partition: number, fromOffset = 0, replicaId = -1): Promise<DecodedRecordBatch[]> {
    const out: DecodedRecordBatch[] = [];
    let offset = fromOffset;
    for (;;) {
      const md = await this.metadata();
      const p = md.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partition === partition);
      if (!p || p.leader < 0) throw new Error(`no leader for ${topic}-${partition}`);
      const ref: ActorRef<BrokerMsg> = { node: this.nodeOf(md, p.leader), path: brokerPath(p.leader) };
      const r = await this.system.ask<FetchResponse>(
        ref,
        { type: 'Fetch', replicaId, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, partitions: [{ topic, partition, fetchOffset: offset, currentLeaderEpoch: -1, partitionMaxBytes: 1 << 20 }] },
        { timeoutMs: 10_000 },
      );
      if (isFailure(r)) throw new Error(`fetch failed: ${r.message}`);
      const pr = r.partitions[0]!;
      if (pr.errorCode !== ErrorCode.NONE) throw new Error(`fetch ${topic}-${partition}@${offset}: error ${pr.errorCode} ${pr.errorMessage ?? ''}`);
      if (pr.records.length === 0) return out;
      for (const b of decodeRecordBatches(pr.records)) {
        if (b.baseOffset + b.lastOffsetDelta >= offset) out.push(b);
      }
      offset = out.length ? out[out.length - 1]!.baseOffset + out[out.length - 1]!.lastOffsetDelta + 1 : offset;
    }
  }

  async brokerMetadata(brokerId: number, node: string): Promise<MetadataResponse | Failure> {
    return this.system.ask<MetadataResponse>({ node, path: brokerPath(brokerId) }, { type: 'Metadata' }, { timeoutMs: 5_000 });
  }
}
