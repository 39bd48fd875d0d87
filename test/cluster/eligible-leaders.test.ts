/**
 * Eligible leader replicas (KIP-966) on a real in-process cluster: three brokers, a topic of
 * replication factor 3 with min.insync.replicas 2, eligible.leader.replicas.version 1 (a new
 * cluster's level). Brokers go until the ISR is below min ISR: the replica that left joins the ELR
 * (in the controller and in DescribeTopicPartitions), the high watermark stops; then the leader
 * dies too, and the ELR member that shut down cleanly comes back and is elected cleanly, with every
 * acknowledged record.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { NO_LEADER } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';
import { KafkaCaller } from '../helpers/raw-kafka.js';

const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('cluster: eligible leader replicas (KIP-966)', function () {
  this.timeout(90_000);
  let c: TestCluster | undefined;
  after(async () => {
    await c?.stop();
  });

  it('ISR below min ISR keeps the replica that left in the ELR; with the leader gone, that replica returns and leads cleanly with every acknowledged record', async () => {
    c = await TestCluster.start({ brokers: 3, kafka: true, ...fastFailover() });
    const md0 = await c.client.metadata();
    expect(md0.features?.levels['eligible.leader.replicas.version']).to.equal(1);
    await c.client.createTopics([{ name: 'elr', assignments: [[1, 2, 3]], config: { 'min.insync.replicas': '2' } }]);
    await c.client.waitForLeaders('elr');
    const partition = () => c!.client.partition('elr', 0);

    const acked: string[] = [];
    const produceAll = async (prefix: string) => {
      const batch = values(prefix, 5);
      const r = await c!.client.produce('elr', 0, batch, -1);
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      acked.push(...batch);
    };
    await produceAll('a');

    // broker 3 crashes: the ISR is [1,2], at min ISR: no ELR
    await c.killBroker(3);
    await checkFor(async () => ((await partition())?.isr.length === 2 ? true : null), 15_000);
    expect(await partition()).to.deep.include({ leader: 1, isr: [1, 2] });
    expect((await partition())?.elr ?? []).to.deep.equal([]);
    await produceAll('b');

    // broker 2 shuts down cleanly: the ISR falls to [1], below min ISR, and 2 is in the ELR
    const [endpoint1] = await c.kafkaBootstrap();
    await c.stopBroker(2);
    const below = await checkFor(async () => {
      const p = await partition();
      return p && p.isr.length === 1 ? p : null;
    }, 15_000);
    expect(below).to.deep.include({ leader: 1, isr: [1], elr: [2] });
    expect(below.lastKnownElr ?? []).to.deep.equal([]);

    // the Kafka listener answers the same (DescribeTopicPartitions)
    const k = await KafkaCaller.connect(endpoint1!);
    try {
      const dtp = await checkFor(async () => {
        const r = await k.call(ApiKeys.DescribeTopicPartitions, 0, { topics: [{ name: 'elr' }], responsePartitionLimit: 2000, cursor: null });
        const p = r.topics[0]?.partitions[0];
        return p && p.eligibleLeaderReplicas.length === 1 ? p : null;
      }, 10_000);
      expect(dtp).to.deep.include({ leaderId: 1, isrNodes: [1], eligibleLeaderReplicas: [2], lastKnownElr: [] });
    } finally {
      k.end();
    }

    // below min ISR: acks=all is refused, and an acks=1 write is not exposed (the high watermark stays)
    const refused = await c.client.produceOnce('elr', 0, ['not-enough'], -1);
    expect(refused).to.deep.include({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS });
    const leaderOnly = await c.client.produceOnce('elr', 0, ['leader-only'], 1);
    expect(leaderOnly).to.deep.include({ errorCode: ErrorCode.NONE });
    await new Promise((r) => setTimeout(r, 300));
    expect((await c.client.readAll('elr', 0)).map((r) => r.value?.toString())).to.deep.equal(acked);

    // the leader crashes: no leader, an empty ISR, both in the ELR, 1 the last known leader
    await c.killBroker(1);
    const leaderless = await checkFor(async () => {
      const p = await partition();
      return p && p.leader === NO_LEADER ? p : null;
    }, 15_000);
    expect(leaderless).to.deep.include({ isr: [], elr: [1, 2], lastKnownElr: [1] });

    // broker 2 returns after its clean shutdown: it stays in the ELR and is elected cleanly
    await c.startBroker(2);
    const led = await checkFor(async () => {
      const p = await partition();
      return p && p.leader === 2 ? p : null;
    }, 20_000);
    expect(led).to.deep.include({ leader: 2, isr: [2], elr: [1] });
    expect(led.lastKnownElr ?? []).to.deep.equal([]);
    expect(led.leaderEpoch).to.be.above(below.leaderEpoch);

    // its ISR [2] is below min ISR: it holds the high watermark where it was (as a follower it
    // learned the leader's before it stopped, at once since its fetches carry its own, KIP-1166,
    // so it may already cover every acknowledged record); once broker 3 is back and in the ISR the
    // high watermark moves on, and every acknowledged record is there
    expect((await c.client.readAll('elr', 0)).length).to.be.at.most(acked.length);
    await c.startBroker(3);
    const read = await checkFor(async () => {
      const recs = await c!.client.readAll('elr', 0).catch(() => null);
      return recs && recs.length >= acked.length ? recs : null;
    }, 20_000);
    expect(read.map((r) => r.value?.toString())).to.deep.equal(acked);
    // broker 3 back in the ISR (the records above may have been readable before it was)
    await checkFor(async () => ((await partition())?.isr.length === 2 ? true : null), 20_000);
    expect(await partition()).to.deep.include({ leader: 2, isr: [2, 3] });
    expect((await partition())?.elr ?? []).to.deep.equal([]);
  });
});
