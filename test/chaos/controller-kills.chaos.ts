/**
 * Chaos soak (npm run test:chaos; not part of npm test): a cluster whose metadata is replicated
 * by a quorum of three controllers, each sharing a worker thread with one of three brokers (as
 * KRaft's combined mode does). samsa's producer writes acks=all to a topic of six partitions
 * (RF 3, min.insync.replicas 2) while, SAMSA_CHAOS_ROUNDS times (default 6), the node of the
 * active controller is killed (its broker with it), a topic is created through whichever
 * controller takes over, and the node is restarted. At the end: every acknowledged record is in
 * the log, every topic created during the rounds exists, every broker is back in every ISR, and
 * the three controllers hold the same committed log (the same length and the same last term).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { controllerChannelRef } from '../../actors/cluster-node/controller-channel.js';
import type { ControllerReply } from '../../actors/controller/messages.js';
import { CONTROLLER_PATH } from '../../src/protocol/cluster.js';
import { isFailure } from '../../src/runtime/types.js';
import type { TopologyConfig } from '../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import { checkFor } from '../helpers/check-for.js';

const ROUNDS = Number(process.env.SAMSA_CHAOS_ROUNDS ?? 6);
const TOPIC = 'chaos-quorum';

const topology: TopologyConfig = {
  clusterId: 'chaos-quorum',
  logLevel: 'silent',
  nodes: [{ id: 'main', kind: 'inproc' }, ...[1, 2, 3].map((i) => ({ id: `n${i}`, kind: 'worker' as const }))],
  controller: {
    quorum: [1, 2, 3].map((id) => ({ id, node: `n${id}`, metadataDir: `controller-${id}` })),
    config: { 'controller.quorum.election.timeout.ms': 500, 'broker.session.timeout.ms': 3_000, 'leader.imbalance.check.interval.seconds': 1 },
  },
  brokers: [1, 2, 3].map((id) => ({
    id,
    node: `n${id}`,
    logDir: `broker-${id}`,
    config: { 'broker.heartbeat.interval.ms': 300, 'replica.lag.time.max.ms': 3_000, 'group.initial.rebalance.delay.ms': 0 },
  })),
  topics: [{ name: TOPIC, partitions: 6, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
};

describe('chaos: the active controller killed and restarted under load', function () {
  this.timeout(600_000);
  let dir: string;
  let h: ClusterHandle;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-chaos-quorum-'));
    h = await startCluster(topology, { baseDir: dir });
  });
  after(async () => {
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function describeQuorum(local?: number): Promise<Extract<ControllerReply, { type: 'DescribeQuorumResponse' }> | null> {
    const to = local === undefined ? controllerChannelRef(h.mainSystem.nodeId) : { node: `n${local}`, path: CONTROLLER_PATH };
    const r = await h.mainSystem.ask<ControllerReply>(to, local === undefined ? { type: 'DescribeQuorum' } : { type: 'DescribeQuorum', local: true }, { timeoutMs: 5_000 });
    return !isFailure(r) && r.type === 'DescribeQuorumResponse' ? r : null;
  }

  async function activeController(): Promise<number> {
    return checkFor(async () => {
      const d = await describeQuorum();
      return d?.active && d.quorum?.leaderId != null ? d.quorum.leaderId : null;
    }, 30_000, 50);
  }

  it(`keeps the metadata and every acknowledged record through ${ROUNDS} controller kills`, async () => {
    const samsa = h.samsa('chaos-quorum');
    const admin = samsa.admin();
    await admin.connect();
    const producer = samsa.producer({ acks: 'all', retries: 1_000, 'retry.backoff.ms': 50, 'max.in.flight.requests.per.connection': 1, 'delivery.timeout.ms': 120_000 });
    await producer.connect();
    let stop = false;
    const acked: string[] = [];
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const value = `v-${i}`;
        try {
          await producer.send({ topic: TOPIC, messages: [{ key: `k-${i % 13}`, value }] });
          acked.push(value);
        } catch {
          // not acknowledged: not checked
        }
      }
    })();

    const created: string[] = [];
    const failovers: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await new Promise((r) => setTimeout(r, 1_000 + Math.random() * 1_000));
      const victim = await activeController();
      const t0 = Date.now();
      await h.killNode(`n${victim}`);
      const next = await activeController();
      failovers.push(Date.now() - t0);
      expect(next).to.not.equal(victim);
      const name = `round-${round}`;
      await checkFor(async () => {
        await admin.createTopics({ topics: [{ topic: name, numPartitions: 1, replicationFactor: 2 }] }).catch(() => undefined);
        return (await admin.listTopics()).includes(name);
      }, 30_000, 200);
      created.push(name);
      await new Promise((r) => setTimeout(r, 1_000 + Math.random() * 1_000));
      await h.restartNode(`n${victim}`);
    }
    stop = true;
    await writer;
    await producer.disconnect();
    console.log(`      ${acked.length} records acknowledged; failovers took ${failovers.join(', ')} ms (kill to a new active controller)`);

    // every broker back in every ISR; every topic there
    await checkFor(async () => {
      const md = await admin.fetchTopicMetadata({ topics: [TOPIC] });
      return md.topics[0]!.partitions.every((p) => p.isr.length === 3);
    }, 60_000, 100);
    expect(await admin.listTopics()).to.include.members(created);

    // the three controllers hold the same log
    const views = await checkFor(async () => {
      const ds = await Promise.all([1, 2, 3].map((id) => describeQuorum(id)));
      if (ds.some((d) => !d?.quorum)) return null;
      const ends = ds.map((d) => d!.quorum!.lastIndex);
      const commits = ds.map((d) => d!.quorum!.commitIndex);
      return new Set(ends).size === 1 && new Set(commits).size === 1 && commits[0] === ends[0] ? ds : null;
    }, 30_000, 100);
    expect(new Set(views.map((d) => d!.quorum!.term)).size).to.equal(1);
    expect(new Set(views.map((d) => d!.appliedIndex)).size).to.equal(1);

    // every acknowledged record is in the log
    const consumer = samsa.consumer({ groupId: 'chaos-quorum-check', 'fetch.max.wait.ms': 100, 'max.poll.records': 10_000 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    const seen = new Set<string>();
    await consumer.run({ eachMessage: ({ message }) => void seen.add(String(message.value)) });
    await checkFor(() => acked.every((v) => seen.has(v)), 60_000, 100);
    await consumer.disconnect();
    await admin.disconnect();
  });
});
