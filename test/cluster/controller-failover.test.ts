/**
 * A cluster with a quorum of three controllers (Raft), started from a topology with real brokers,
 * in-process and on worker threads: the active controller's node dies; another controller takes
 * over within a few election timeouts, with every topic and partition state intact; topics can
 * be created, records produced with acks=all and consumed; and the new controller still does the
 * controller's job: when a broker dies too, it fences it and moves its leaderships. The dead
 * controller, restarted, catches up with the quorum's log as a follower.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { controllerChannelRef } from '../../actors/cluster-node/controller-channel.js';
import type { ControllerReply } from '../../actors/controller/messages.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import type { NodeKind, TopologyConfig } from '../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';

function topology(kind: NodeKind): TopologyConfig {
  const nodes = [{ id: 'main', kind: 'inproc' as const }, ...['c1', 'c2', 'c3', 'b1', 'b2', 'b3'].map((id) => ({ id, kind }))];
  return {
    clusterId: 'failover',
    logLevel: 'silent',
    nodes,
    controller: {
      quorum: [1, 2, 3].map((id) => ({ id, node: `c${id}`, metadataDir: `controller-${id}` })),
      // a dead broker fenced after 1.5 s, as fastFailover() in test/helpers/cluster.ts
      config: { 'controller.quorum.election.timeout.ms': 400, 'broker.session.timeout.ms': 1_500 },
    },
    brokers: [1, 2, 3].map((id) => ({ id, node: `b${id}`, logDir: `broker-${id}`, config: { 'broker.heartbeat.interval.ms': 200, 'group.initial.rebalance.delay.ms': 0 } })),
    topics: [{ name: 'events', partitions: 3, replicationFactor: 3 }],
  };
}

/** The quorum's leader as the controller the main node's channel reaches sees it. */
async function quorumLeader(h: ClusterHandle): Promise<number> {
  return checkFor(
    async () => {
      const r = await h.mainSystem.ask<ControllerReply>(controllerChannelRef(h.mainSystem.nodeId), { type: 'DescribeQuorum' }, { timeoutMs: 5_000 });
      return !isFailure(r) && r.type === 'DescribeQuorumResponse' && r.quorum?.leaderId != null && r.active ? r.quorum.leaderId : null;
    },
    15_000,
    20,
  );
}

async function produce(samsa: SamsaClient, from: number, n: number): Promise<void> {
  const producer = samsa.producer({ acks: 'all' });
  await producer.connect();
  await producer.send({ topic: 'events', messages: Array.from({ length: n }, (_, i) => ({ value: `e${from + i}`, partition: (from + i) % 3 })) });
  await producer.disconnect();
}

for (const kind of ['inproc', 'worker'] as const) {
  describe(`cluster/controller failover (${kind})`, function () {
    this.timeout(90_000);
    let dir: string;
    let h: ClusterHandle | undefined;

    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-failover-'));
    });
    afterEach(async () => {
      await h?.stop();
      h = undefined;
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('another controller takes over when the active one dies, and keeps running the cluster', async () => {
      h = await startCluster(topology(kind), { baseDir: dir });
      const samsa = h.samsa();
      await produce(samsa, 0, 30);
      const admin = samsa.admin();
      await admin.connect();
      const before = await admin.describeCluster();
      const first = await quorumLeader(h);

      await h.killNode(`c${first}`);
      const second = await quorumLeader(h);
      expect(second).to.not.equal(first);

      // a new topic, through a controller that was a standby a moment ago (the admin may first
      // have to learn where the active controller is)
      await checkFor(async () => {
        const created = await admin.createTopics({ topics: [{ topic: 'after', numPartitions: 2, replicationFactor: 2 }] }).catch(() => false);
        return created !== false || (await admin.listTopics()).includes('after');
      }, 20_000, 100);
      const cluster = await checkFor(async () => {
        const c = await admin.describeCluster();
        return c.controllerNode === `c${second}` ? c : null;
      }, 10_000, 50);
      expect(cluster.controllerEpoch).to.be.greaterThan(before.controllerEpoch);
      expect(cluster.brokers.filter((b) => !b.fenced).map((b) => b.brokerId)).to.deep.equal([1, 2, 3]);

      await produce(samsa, 30, 30);
      const consumer = samsa.consumer({ groupId: 'after-failover', 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 });
      await consumer.connect();
      await consumer.subscribe({ topic: 'events', fromBeginning: true });
      const seen = new Set<string>();
      await consumer.run({ eachMessage: ({ message }) => void seen.add(String(message.value)) });
      await checkFor(() => seen.size === 60, 30_000, 20);
      await consumer.disconnect();

      // the new controller fences a broker that dies and moves what it led
      await h.killNode('b3');
      await checkFor(async () => {
        const c = await admin.describeCluster({ includeFencedBrokers: true });
        return c.brokers.find((b) => b.brokerId === 3)?.fenced === true;
      }, 15_000, 50);
      await checkFor(async () => {
        const md = await admin.fetchTopicMetadata({ topics: ['events'] });
        return md.topics[0]!.partitions.every((p) => p.leader !== 3 && p.leader >= 0);
      }, 10_000, 50);
      await produce(samsa, 60, 9);

      // the first controller comes back: it follows, and catches up with the log
      await h.restartNode(`c${first}`);
      await checkFor(async () => {
        const r = await h!.mainSystem.ask<ControllerReply>(controllerChannelRef(h!.mainSystem.nodeId), { type: 'DescribeQuorum' }, { timeoutMs: 5_000 });
        if (isFailure(r) || r.type !== 'DescribeQuorumResponse' || !r.quorum) return false;
        const ends = r.quorum.voters.map((v) => v.logEndIndex);
        return r.quorum.leaderId === second && ends.every((e) => e === r.quorum!.lastIndex);
      }, 20_000, 50);
      await admin.disconnect();
    });
  });
}
