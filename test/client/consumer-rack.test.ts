/**
 * The consumer's client.rack (KIP-392) on a real cluster: three in-process brokers on racks a, b
 * and c with the rack-aware replica selector. A consumer in rack c reads a partition led from rack
 * a through broker 3, every record in order; when broker 3 goes away it falls back to the
 * leader and carries on. Without client.rack it reads from the leader.
 */
import { expect } from 'chai';
import { RACK_AWARE_REPLICA_SELECTOR } from '../../actors/partition-replica/read-replica-selector.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const CFG = { 'session.timeout.ms': 3_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100, 'auto.offset.reset': 'earliest' };
const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('client/consumer client.rack (fetching from the closest replica)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let samsa: SamsaClient;

  beforeEach(async () => {
    const fast = fastFailover({ 'replica.selector.class': RACK_AWARE_REPLICA_SELECTOR, 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 100, 'offsets.topic.replication.factor': 1, 'offsets.topic.num.partitions': 1 });
    c = await TestCluster.start({ brokers: 3, racks: ['a', 'b', 'c'], ...fast });
    await c.client.createTopics([{ name: 'near', assignments: [[1, 2, 3]] }]);
    await c.client.waitForLeaders('near');
    samsa = c.samsa();
  });
  afterEach(async () => {
    await samsa?.close();
    await c?.stop();
  });

  async function produce(vs: string[]): Promise<void> {
    await c.client.produce('near', 0, vs, -1);
  }

  it('reads through the replica in its rack, and falls back to the leader when that replica goes away', async () => {
    await produce(values('a', 20));
    const consumer = samsa.consumer({ groupId: 'in-c', ...CFG, 'client.rack': 'c' });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: 'near', fromBeginning: true });
    await consumer.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => seen.length === 20, 20_000, 20);
    expect((await consumer.describe()).assignment.map((a) => a.readReplica)).to.deep.equal([3]);
    await produce(values('b', 10));
    await checkFor(() => seen.length === 30, 20_000, 20);

    await c.killBroker(3);
    await produce(values('c', 10));
    await checkFor(() => seen.length === 40, 30_000, 20);
    expect(seen).to.deep.equal([...values('a', 20), ...values('b', 10), ...values('c', 10)]);
    expect((await consumer.describe()).assignment.map((a) => a.readReplica)).to.deep.equal([null]);
    await consumer.disconnect();
  });

  it('without client.rack reads from the leader', async () => {
    await produce(values('x', 5));
    const consumer = samsa.consumer({ groupId: 'no-rack', ...CFG });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: 'near', fromBeginning: true });
    await consumer.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => seen.length === 5, 20_000, 20);
    expect((await consumer.describe()).assignment.map((a) => a.readReplica)).to.deep.equal([null]);
    await consumer.disconnect();
  });
});
