/**
 * Batch buffers going back over worker ports, end to end: three worker-thread brokers take big
 * produce requests, release them once appended, and the client carries later requests in the
 * buffers that came back. Every record must then read back byte for byte: a buffer reused while
 * a broker still read it would show here as corrupt batches or wrong values.
 */
import { expect } from 'chai';
import type { BrokerMsg, BrokerProduceResponse } from '../../actors/broker/messages.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { PortEndpoint } from '../../src/transport/port-endpoint.js';
import { checkFor } from '../helpers/check-for.js';
import { ClusterClient } from '../helpers/cluster-client.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const RECORDS = 3_000;
const SIZE = 1_024;

/** Record i's value: its index, then bytes that depend on it, so any mix-up shows. */
function valueOf(i: number): Buffer {
  const v = Buffer.alloc(SIZE);
  v.writeUInt32BE(i, 0);
  for (let k = 4; k < SIZE; k++) v[k] = (i * 31 + k) & 0xff;
  return v;
}

describe('cluster (worker brokers): batch buffers going back to the client', function () {
  this.timeout(120_000);
  let c: TestCluster;

  before(async () => {
    // as in production: handlers read views of the ports' buffers, not copies
    c = await TestCluster.start({ brokers: 3, transport: 'worker', strictSerialization: false, ...fastFailover({ 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 3 }) });
    await c.client.createTopic('big', 3, 1);
    await c.client.createTopic('big2', 3, 1);
  });
  after(async () => {
    await c?.stop();
  });

  /** The client's port to broker `id`: what went back and forth. */
  const statsOf = (id: number) => (c.system().endpoint(`b${id}`) as PortEndpoint).returnStats();
  const returnStats = () => c.brokerIds().map(statsOf);

  it('answers every big request whole while the buffers go back and carry the next ones', async () => {
    // a buffer given back before the replicas appended would reach them empty (the transfer
    // detaches it): the answer would be an error, not NONE
    await c.client.waitForLeaders('big');
    const md = await c.client.metadata();
    const p0 = md.topics.find((t) => t.name === 'big')!.partitions.find((p) => p.partition === 0)!;
    const leader: ActorRef<BrokerMsg> = { node: c.client.nodeOf(md, p0.leader), path: brokerPath(p0.leader) };
    const before = statsOf(p0.leader);
    const sent: string[] = [];
    for (let r = 0; r < 12; r++) {
      // ~200 KB a request: two batches of 100 values of 1 KiB
      const values = Array.from({ length: 200 }, (_, k) => `${r}-${k}-`.padEnd(SIZE, String.fromCharCode(97 + ((r + k) % 26))));
      sent.push(...values);
      const res = (await c.system().ask<BrokerProduceResponse>(leader, { type: 'Produce', acks: 1, timeoutMs: 5_000, partitions: [{ topic: 'big', partition: 0, records: [ClusterClient.batch(values.slice(0, 100)), ClusterClient.batch(values.slice(100))] }] }, { timeoutMs: 10_000 })) as BrokerProduceResponse;
      expect(res.partitions.map((p) => p.errorCode)).to.deep.equal([ErrorCode.NONE]);
    }
    const after = statsOf(p0.leader);
    expect(after.cameBack - before.cameBack).to.be.at.least(10);
    expect(after.reused - before.reused).to.be.at.least(10);
    const read = await c.client.readAll('big', 0);
    expect(read.map((x) => String(x.value))).to.deep.equal(sent);
  });

  it('reuses the buffers the brokers give back, and every record reads back whole', async () => {
    const samsa = c.samsa('buffer-return');
    const producer = samsa.producer({ acks: 1, 'batch.size': 64 * 1024, 'linger.ms': 5 });
    await producer.connect();
    // in rounds of sends all at once, so requests to each broker carry hundreds of KB
    for (let round = 0; round < RECORDS; round += 1_000) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => round + j * 100).map((first) =>
          producer.send({ topic: 'big2', messages: Array.from({ length: 100 }, (_, k) => ({ value: valueOf(first + k) })) }),
        ),
      );
    }
    await producer.disconnect();

    const stats = returnStats();
    const cameBack = stats.reduce((n, s) => n + s.cameBack, 0);
    const reused = stats.reduce((n, s) => n + s.reused, 0);
    expect(cameBack, JSON.stringify(stats)).to.be.greaterThan(0);
    expect(reused, JSON.stringify(stats)).to.be.greaterThan(0);

    const seen = new Map<number, Buffer>();
    const consumer = samsa.consumer({ groupId: 'buffer-return-readers', 'fetch.max.wait.ms': 100, 'check.crcs': true });
    await consumer.connect();
    await consumer.subscribe({ topics: ['big2'], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const v = Buffer.from(message.value!);
        seen.set(v.readUInt32BE(0), v);
      },
    });
    await checkFor(() => seen.size >= RECORDS, 60_000);
    await consumer.disconnect();
    expect(seen.size).to.equal(RECORDS);
    const wrong = [...seen.entries()].filter(([i, v]) => !v.equals(valueOf(i))).map(([i]) => i);
    expect(wrong).to.deep.equal([]);
  });
});
