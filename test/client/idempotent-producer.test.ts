/**
 * samsa's producer with enable.idempotence: its batches carry a producer id from the brokers and
 * per-partition sequence numbers, the config refuses what idempotence cannot work with, and with
 * five requests in flight through a leader failure every acknowledged record is in the log once,
 * in send order.
 */
import { expect } from 'chai';
import type { FetchResponse } from '../../actors/broker/messages.js';
import { ProducerConfigError } from '../../actors/producer/producer-config.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { decodeRecordBatches, type DecodedRecordBatch } from '../../src/protocol/record-batch.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

describe('client/producer with enable.idempotence', function () {
  this.timeout(60_000);
  let c: TestCluster;

  before(async () => {
    c = await TestCluster.start({ brokers: 3, ...fastFailover() });
  });
  after(async () => {
    await c?.stop();
  });

  /** The stored batches of a partition (headers included), read from its leader. */
  async function batchesOf(topic: string, partition: number): Promise<DecodedRecordBatch[]> {
    const md = await c.client.metadata();
    const p = md.topics.find((t) => t.name === topic)!.partitions.find((x) => x.partition === partition)!;
    const node = md.brokers.find((b) => b.brokerId === p.leader)!.node;
    const r = await c.system().ask<FetchResponse>(
      { node, path: brokerPath(p.leader) },
      { type: 'Fetch', replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 24, partitions: [{ topic, partition, fetchOffset: 0, currentLeaderEpoch: -1, partitionMaxBytes: 1 << 24 }] },
      { timeoutMs: 10_000 },
    );
    if (isFailure(r)) throw new Error(r.message);
    return decodeRecordBatches(r.partitions[0]!.records);
  }

  it('refuses configs idempotence cannot work with, naming the key', () => {
    const samsa = c.samsa();
    const refused = (cfg: Record<string, unknown>) => {
      try {
        samsa.producer({ 'enable.idempotence': true, ...cfg });
        return null;
      } catch (err) {
        return err as ProducerConfigError;
      }
    };
    expect(refused({ acks: 1 })?.key).to.equal('acks');
    expect(refused({ retries: 0 })?.key).to.equal('retries');
    expect(refused({ 'max.in.flight.requests.per.connection': 6 })?.key).to.equal('max.in.flight.requests.per.connection');
    expect(refused({ 'enable.idempotence': 'maybe' })?.key).to.equal('enable.idempotence');
    expect(refused({})).to.equal(null);
  });

  it('stamps a producer id and per-partition sequences that follow on from batch to batch', async () => {
    await c.client.createTopic('idem-seq', 2, 3);
    const samsa = c.samsa();
    const producer = samsa.producer({ 'enable.idempotence': true, 'linger.ms': 0 });
    await producer.connect();
    for (let i = 0; i < 5; i++) {
      await producer.send({ topic: 'idem-seq', messages: [0, 1].flatMap((partition) => Array.from({ length: 3 }, (_, j) => ({ partition, value: `v${i}-${j}` }))) });
    }
    const ids = new Set<number>();
    for (const partition of [0, 1]) {
      const batches = await batchesOf('idem-seq', partition);
      let expected = 0;
      for (const b of batches) {
        ids.add(b.producerId);
        expect(b.producerEpoch).to.equal(0);
        expect(b.baseSequence, `partition ${partition}`).to.equal(expected);
        expected += b.records.length;
      }
      expect(expected).to.equal(15);
    }
    expect(ids.size).to.equal(1);
    expect([...ids][0]).to.be.at.least(0);
    await producer.disconnect();
  });

  it('with 5 requests in flight through a leader failure: every acknowledged record once, in send order', async () => {
    await c.client.createTopic('idem-fo', 1, 3, { 'min.insync.replicas': 2 });
    const samsa = c.samsa();
    const producer = samsa.producer({ 'enable.idempotence': true, 'max.in.flight.requests.per.connection': 5, 'linger.ms': 0, 'batch.size': 200, 'retry.backoff.ms': 50 });
    await producer.connect();
    const leader = (await c.client.partition('idem-fo', 0))!.leader;
    const acked: string[] = [];
    const sends: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      if (i === 100) await c.killBroker(leader);
      const value = `r-${String(i).padStart(3, '0')}`;
      sends.push(producer.send({ topic: 'idem-fo', messages: [{ partition: 0, value }] }).then(() => void acked.push(value)));
      if (i % 20 === 19) await Promise.all(sends.splice(0));
    }
    await Promise.all(sends);
    const stored = (await batchesOf('idem-fo', 0)).flatMap((b) => b.records.map((r) => String(r.value)));
    expect(stored).to.deep.equal([...acked].sort());
    expect(new Set(stored).size).to.equal(stored.length);
    await producer.disconnect();
    await c.startBroker(leader);
    await c.client.waitForBrokers(3);
  });
  it('a batch appended but answered NOT_ENOUGH_REPLICAS_AFTER_APPEND is retried and written once', async () => {
    await c.client.createTopic('idem-after-append', 1, 2, { 'min.insync.replicas': 2 });
    const p = (await c.client.partition('idem-after-append', 0))!;
    const follower = p.replicas.find((r) => r !== p.leader)!;
    const samsa = c.samsa();
    const producer = samsa.producer({ 'enable.idempotence': true, 'retry.backoff.ms': 100, 'delivery.timeout.ms': 60_000 });
    await producer.connect();
    await producer.send({ topic: 'idem-after-append', messages: [{ partition: 0, value: 'first' }] });
    // the follower dies: the next batch is appended on the leader, then the ISR shrinks under it
    await c.killBroker(follower);
    const sent = producer.send({ topic: 'idem-after-append', messages: [{ partition: 0, value: 'once' }] });
    // past replica.lag.time.max.ms the ISR shrinks to the leader alone, under the appended batch
    await checkFor(async () => (await c.client.partition('idem-after-append', 0))!.isr.length === 1, 20_000, 50);
    await c.startBroker(follower);
    await sent;
    const stored = (await batchesOf('idem-after-append', 0)).flatMap((b) => b.records.map((r) => String(r.value)));
    expect(stored).to.deep.equal(['first', 'once']);
    await producer.disconnect();
    await c.client.waitForBrokers(3);
  });
});
