/**
 * Leadership going back to preferred replicas on real clusters (controller + three brokers, each
 * on its own node, in-process and in worker threads): a broker that died and came back leads its
 * partitions again once it is in sync (auto.leader.rebalance.enable, a 1 s check interval here),
 * with nothing acknowledged lost across the two moves and produce carrying on after them. With
 * balancing off, the admin client's electLeaders does the same on request.
 */
import { expect } from 'chai';
import { SamsaError } from '../../src/client/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover, type ClusterTransport } from '../helpers/cluster.js';

const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

for (const transport of ['inproc', 'worker'] as ClusterTransport[]) {
  describe(`leader balancing (${transport} brokers)`, function () {
    this.timeout(60_000);
    let c: TestCluster;

    afterEach(async () => {
      await c?.stop();
    });

    it('a broker back from a crash leads its preferred partitions again, nothing acknowledged lost', async () => {
      c = await TestCluster.start({ brokers: 3, transport, ...fastFailover({}, { 'leader.imbalance.check.interval.seconds': 1 }) });
      await c.client.createTopic('lb', 3, 3, { 'min.insync.replicas': 2 });
      await c.client.waitForLeaders('lb');
      const start = await Promise.all([0, 1, 2].map(async (p) => (await c.client.partition('lb', p))!));
      // placed like Kafka: every partition starts on its preferred replica, one per broker
      expect(start.map((p) => p.leader)).to.deep.equal(start.map((p) => p.replicas[0]));
      const acked: string[][] = [[], [], []];
      const produceAll = async (prefix: string) => {
        for (const p of [0, 1, 2]) {
          const v = values(`${prefix}-p${p}`, 5);
          await c.client.produce('lb', p, v, -1);
          acked[p]!.push(...v);
        }
      };
      await produceAll('before');

      const victim = start[0]!.leader;
      await c.killBroker(victim);
      await c.client.waitForLeaderOtherThan('lb', 0, victim);
      await produceAll('during');

      await c.startBroker(victim);
      const back = await checkFor(async () => {
        const ps = await Promise.all([0, 1, 2].map((p) => c.client.partition('lb', p)));
        return ps.every((p) => p && p.leader === p.replicas[0]) ? ps.map((p) => p!) : null;
      }, 30_000, 50);
      expect(back[0]!.leader).to.equal(victim);
      expect(back[0]!.leaderEpoch).to.equal(start[0]!.leaderEpoch + 2); // away, then back
      expect(back[0]!.isr).to.include(victim);
      // the controller names the new leader before the broker has heard it: wait for the replica to take the role
      const md = await c.client.metadata();
      await checkFor(async () => (await c.client.describeReplica(md, victim, 'lb', 0))?.role === 'Leader', 10_000, 20);

      await produceAll('after');
      for (const p of [0, 1, 2]) {
        const got = (await c.client.readAll('lb', p)).map((r) => String(r.value));
        expect(got, `partition ${p}`).to.deep.equal(acked[p]);
      }
    });
  });
}

describe('admin electLeaders (balancing off)', function () {
  this.timeout(60_000);
  let c: TestCluster;

  afterEach(async () => {
    await c?.stop();
  });

  it('moves a returning broker back on request, answers each partition with its code, and throws for a malformed request', async () => {
    c = await TestCluster.start({ brokers: 3, ...fastFailover({}, { 'auto.leader.rebalance.enable': false }) });
    await c.client.createTopic('ask', 2, 3);
    await c.client.waitForLeaders('ask');
    await c.client.produce('ask', 0, ['a', 'b', 'c'], -1);
    const victim = (await c.client.partition('ask', 0))!.replicas[0]!;
    await c.killBroker(victim);
    await c.client.waitForLeaderOtherThan('ask', 0, victim);
    await c.startBroker(victim);
    await checkFor(async () => (await c.client.partition('ask', 0))?.isr.includes(victim), 20_000, 50);

    const admin = c.samsa('le-admin').admin();
    await admin.connect();
    try {
      expect((await c.client.partition('ask', 0))!.leader).to.not.equal(victim);
      const r = await admin.electLeaders({ electionType: 'preferred', partitions: [{ topic: 'ask', partition: 0 }, { topic: 'ask', partition: 1 }, { topic: 'ask', partition: 5 }] });
      expect(r.map((x) => [x.topic, x.partition, x.errorCode])).to.deep.equal([
        ['ask', 0, ErrorCode.NONE],
        ['ask', 1, ErrorCode.ELECTION_NOT_NEEDED],
        ['ask', 5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ]);
      expect((await c.client.partition('ask', 0))!.leader).to.equal(victim);
      // the replica that led in between (and wrote nothing then) follows again: its epoch that
      // never got a record must not make every fetch diverge (it would drop out of the ISR for good)
      await checkFor(async () => {
        const md = await c.client.metadata();
        const d = await c.client.describeReplica(md, victim, 'ask', 0);
        return d && d.role === 'Leader' && d.followers.length === 2 && d.followers.every((f) => f.logEndOffset === d.logEndOffset);
      }, 10_000, 50);
      expect(await admin.electLeaders({ electionType: 'unclean' })).to.deep.equal([]);
      const thrown = await admin.electLeaders({ electionType: 'sideways' as never }).then(() => null, (e: unknown) => e);
      expect(thrown).to.be.instanceOf(SamsaError);
      expect((thrown as SamsaError).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    } finally {
      await admin.disconnect();
    }
  });
});
