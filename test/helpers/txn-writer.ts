/**
 * Writes transactions into one partition of a test cluster straight through its leader broker,
 * as a transactional producer and its coordinator would: a producer id from InitProducerId,
 * transactional batches with the broker's Produce (epoch 0, each producer's sequences going on),
 * COMMIT or ABORT markers with WriteTxnMarkers.
 */
import { expect } from 'chai';
import type { BrokerMsg, BrokerProduceResponse, InitProducerIdResult, WriteTxnMarkersResponse } from '../../actors/broker/messages.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/protocol/record-batch.js';
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import type { ActorRef, Message } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { TestCluster } from './cluster.js';

export class TxnWriter {
  private readonly sequences = new Map<number, number>();

  private constructor(
    private readonly system: ActorSystem,
    private readonly leader: ActorRef<BrokerMsg>,
    readonly topic: string,
    readonly partition: number,
  ) {}

  /** A writer to the partition's current leader. */
  static async to(c: TestCluster, topic: string, partition = 0): Promise<TxnWriter> {
    const md = await c.client.metadata();
    const id = md.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.leader ?? -1;
    if (id < 0) throw new Error(`no leader for ${topic}-${partition}`);
    return new TxnWriter(c.system(), { node: c.client.nodeOf(md, id), path: brokerPath(id) }, topic, partition);
  }

  private async ask<T extends Message>(msg: BrokerMsg): Promise<T> {
    const r = await this.system.ask<T>(this.leader, msg, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new Error(`${msg.type} failed: ${r.message}`);
    return r;
  }

  async producerId(): Promise<number> {
    const r = await this.ask<InitProducerIdResult>({ type: 'InitProducerId' });
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    return r.producerId;
  }

  /** One transactional batch of `producerId` (epoch 0); its base offset. */
  async produce(producerId: number, ...values: string[]): Promise<number> {
    return this.produceAt(Date.now(), producerId, ...values);
  }

  /** One transactional batch of `producerId` (epoch 0) whose records carry `timestamp` (CreateTime); its base offset. */
  async produceAt(timestamp: number, producerId: number, ...values: string[]): Promise<number> {
    const baseSequence = this.sequences.get(producerId) ?? 0;
    this.sequences.set(producerId, baseSequence + values.length);
    const records = encodeRecordBatch({ transactional: true, producerId, producerEpoch: 0, baseSequence, records: values.map((v) => ({ value: Buffer.from(v), timestamp })) });
    const r = await this.ask<BrokerProduceResponse>({ type: 'Produce', acks: -1, timeoutMs: 5_000, partitions: [{ topic: this.topic, partition: this.partition, records }] });
    expect(r.partitions[0], JSON.stringify(r)).to.deep.include({ errorCode: ErrorCode.NONE });
    return r.partitions[0]!.baseOffset;
  }

  /** Ends `producerId`'s transaction with a COMMIT (or ABORT) marker, once the ISR has it. */
  async end(producerId: number, commit: boolean): Promise<void> {
    const r = await this.ask<WriteTxnMarkersResponse>({
      type: 'WriteTxnMarkers',
      markers: [{ producerId, producerEpoch: 0, coordinatorEpoch: 0, commit, topics: [{ name: this.topic, partitions: [this.partition] }] }],
    });
    expect(r.markers[0]!.topics[0]!.partitions[0], JSON.stringify(r)).to.deep.include({ errorCode: ErrorCode.NONE });
  }
}
