/**
 * Partition reassignment on real clusters (controller + three brokers, each on its own node,
 * in-process and in worker threads): a partition with several segments moves to other brokers
 * while a producer keeps writing with acks all; the new replicas copy the whole log from the
 * leader, join the ISR, take leadership, and the old replica's copy is deleted from its disk.
 * Nothing acknowledged is lost and the records keep their offsets.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { ControllerReply } from '../../actors/controller/messages.js';
import type { ReplicaMsg } from '../../actors/partition-replica/messages.js';
import { replicaPath } from '../../src/protocol/cluster.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, type ClusterTransport } from '../helpers/cluster.js';

const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

for (const transport of ['inproc', 'worker'] as ClusterTransport[]) {
  describe(`partition reassignment (${transport} brokers)`, function () {
    this.timeout(60_000);
    let c: TestCluster;

    // one cluster for these tests, in order, each on topics of its own (the group test's offsets
    // topic settings change nothing for the others); the last one stops broker 3 and starts it again
    before(async () => {
      c = await TestCluster.start({ brokers: 3, transport, brokerConfig: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 100, 'offsets.topic.num.partitions': 1, 'offsets.topic.replication.factor': 2 } });
    });
    after(async () => {
      await c?.stop();
    });

    async function reassign(topic: string, partition: number, replicas: number[] | null): Promise<void> {
      const r = await c.system().ask<ControllerReply>(c.client.controller, { type: 'AlterPartitionReassignments', topics: [{ name: topic, partitions: [{ partition, replicas }] }] }, { timeoutMs: 10_000 });
      if (isFailure(r) || r.type !== 'AlterPartitionReassignmentsResponse') throw new Error(`reassignment failed: ${JSON.stringify(r)}`);
      expect(r.topics[0]!.partitions[0]!.errorCode, r.topics[0]!.partitions[0]!.errorMessage ?? '').to.equal(0);
    }

    it('moves a partition of several segments to two other brokers under acks=all writes, losing nothing', async () => {
      const created = await c.client.createTopics([{ name: 'mv', assignments: [[1]], config: { 'segment.bytes': 2048 } }]);
      expect(created.topics[0]!.errorCode).to.equal(0);
      await c.client.waitForLeaders('mv');
      const acked: string[] = [];
      for (let i = 0; i < 10; i++) {
        const v = values(`before-${i}`, 20);
        await c.client.produce('mv', 0, v, -1);
        acked.push(...v);
      }
      expect(fs.readdirSync(path.join(c.logDir(1), 'mv-0')).filter((f) => f.endsWith('.log')).length, 'segments').to.be.greaterThan(2);

      // a producer at up to ~1,000 requests/s: a follower joins the ISR once a fetch of its reaches
      // the high watermark, which back-to-back writes on the brokers' own thread (inproc) would
      // move on before every fetch of the new replicas
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const v = values(`during-${i}`, 5);
          await c.client.produce('mv', 0, v, -1);
          acked.push(...v);
          await new Promise((r) => setTimeout(r, 1));
        }
      })();
      await reassign('mv', 0, [2, 3]);
      const done = await checkFor(async () => {
        const p = await c.client.partition('mv', 0);
        return p && !p.addingReplicas && !p.removingReplicas ? p : null;
      }, 30_000, 20);
      writing = false;
      await writer;
      expect(done.replicas).to.deep.equal([2, 3]);
      expect(done.isr.slice().sort()).to.deep.equal([2, 3]);
      expect(done.leader).to.equal(2);

      // the old replica is gone from broker 1, memory and disk
      await checkFor(async () => (await c.client.describeReplica(await c.client.metadata(), 1, 'mv', 0)) === null, 10_000, 20);
      await checkFor(() => !fs.existsSync(path.join(c.logDir(1), 'mv-0')), 10_000, 20);

      const more = values('after', 10);
      await c.client.produce('mv', 0, more, -1);
      acked.push(...more);
      const read = await c.client.readAll('mv', 0);
      // the helper's produce is not idempotent: a batch answered "leadership moved before it was
      // replicated" and sent again may be there twice (at least once); every acknowledged value is
      // there, in order, and nothing else
      const firsts = [...new Set(read.map((r) => String(r.value)))];
      expect(firsts).to.deep.equal(acked);
      expect(read.map((r) => r.offset)).to.deep.equal(read.map((_, i) => i));
      // the other new replica holds the same log
      const md = await c.client.metadata();
      await checkFor(async () => (await c.client.describeReplica(md, 3, 'mv', 0))?.logEndOffset === read.length, 10_000, 20);
    });

    it('a new replica of a partition whose log start moved on copies from the leader\'s log start', async () => {
      await c.client.createTopics([{ name: 'trim', assignments: [[1]] }]);
      await c.client.waitForLeaders('trim');
      await c.client.produce('trim', 0, values('y', 100), -1);
      const md = await c.client.metadata();
      const leader: ActorRef<ReplicaMsg> = { node: c.client.nodeOf(md, 1), path: replicaPath(1, 'trim', 0) };
      const deleted = await c.system().ask<{ type: string; errorCode: number; lowWatermark: number }>(leader, { type: 'DeleteRecords', offset: 60 }, { timeoutMs: 5_000 });
      expect(deleted).to.deep.include({ errorCode: 0, lowWatermark: 60 });
      await reassign('trim', 0, [2]);
      await checkFor(async () => (await c.client.partition('trim', 0))?.replicas.join() === '2', 30_000, 20);
      // the controller has committed the move; broker 2 takes the leadership when its LeaderAndIsr arrives
      const d = await checkFor(async () => {
        const r = await c.client.describeReplica(await c.client.metadata(), 2, 'trim', 0);
        return r?.role === 'Leader' ? r : null;
      }, 10_000, 20);
      expect(d).to.deep.include({ role: 'Leader', logStartOffset: 60, logEndOffset: 100 });
      const read = await c.client.readAll('trim', 0, 60);
      expect(read.map((r) => [r.offset, String(r.value)])).to.deep.equal(values('y', 100).slice(60).map((v, i) => [60 + i, v]));
    });

    /** Waits 20 s for `cond`; else fails saying where the member stood (phase, assignment, positions) and where the offsets partition is. */
    async function waitSaying(cond: () => boolean, member: { describe(): Promise<unknown> }): Promise<void> {
      try {
        await checkFor(cond, 20_000, 20);
      } catch (err) {
        const where = JSON.stringify({ member: await member.describe().catch((e: Error) => e.message), offsets: await c.client.partition('__consumer_offsets', 0) });
        throw new Error(`${(err as Error).message}; ${where}`);
      }
    }

    it("moves a live group's __consumer_offsets partition away from its coordinator: the group keeps its offsets and carries on", async () => {
      await c.client.createTopic('jobs', 1, 1);
      const samsa = c.samsa('mover');
      const producer = samsa.producer();
      await producer.connect();
      await producer.send({ topic: 'jobs', messages: values('a', 20).map((value) => ({ value })) });
      const cfg = { 'session.timeout.ms': 3_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 };
      const seen: string[] = [];
      const first = samsa.consumer({ groupId: 'workers', ...cfg });
      await first.connect();
      await first.subscribe({ topic: 'jobs', fromBeginning: true });
      await first.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
      await checkFor(() => seen.length === 20, 20_000, 20);

      // the offsets partition moves to the replicas that do not lead it now, so leadership moves too
      const before = (await c.client.partition('__consumer_offsets', 0))!;
      const target = [1, 2, 3].filter((b) => b !== before.leader);
      await reassign('__consumer_offsets', 0, target);
      const after = await checkFor(async () => {
        const p = await c.client.partition('__consumer_offsets', 0);
        return p && !p.addingReplicas && !p.removingReplicas ? p : null;
      }, 30_000, 20);
      expect(after.replicas).to.deep.equal(target);
      expect(target).to.include(after.leader);

      // the member finds the new coordinator and keeps consuming (and committing)
      await producer.send({ topic: 'jobs', messages: values('b', 10).map((value) => ({ value })) });
      await waitSaying(() => seen.length === 30, first);
      await first.disconnect();
      // a new member starts from the group's committed offsets: nothing is read twice
      const again: string[] = [];
      const second = samsa.consumer({ groupId: 'workers', ...cfg });
      await second.connect();
      await second.subscribe({ topic: 'jobs', fromBeginning: true });
      await second.run({ eachMessage: ({ message }) => void again.push(String(message.value)) });
      await producer.send({ topic: 'jobs', messages: [{ value: 'c-0' }] });
      await waitSaying(() => again.includes('c-0'), second);
      expect(again).to.deep.equal(['c-0']);
      expect(seen).to.deep.equal([...values('a', 20), ...values('b', 10)]);
      await second.disconnect();
      await producer.disconnect();
      await samsa.close();
    });

    it('a reassignment onto a broker that is down waits for it; cancelled, the partition stays where it was', async () => {
      await c.client.createTopics([{ name: 'back', assignments: [[1, 2], [1, 2]] }]);
      await c.client.waitForLeaders('back');
      for (const p of [0, 1]) await c.client.produce('back', p, values(`x${p}`, 50), -1);
      await c.killBroker(3);
      await reassign('back', 0, [3]);
      await reassign('back', 1, [2, 3]);
      expect(await c.client.partition('back', 0)).to.deep.include({ replicas: [3, 1, 2], addingReplicas: [3], removingReplicas: [1, 2] });
      // partition 0 is cancelled while broker 3 is down; partition 1 completes once it is back
      await reassign('back', 0, null);
      const p0 = await c.client.partition('back', 0);
      expect(p0).to.deep.include({ replicas: [1, 2], leader: 1 });
      expect(p0!.addingReplicas).to.equal(undefined);
      await c.startBroker(3);
      const p1 = await checkFor(async () => {
        const p = await c.client.partition('back', 1);
        return p && !p.addingReplicas ? p : null;
      }, 30_000, 20);
      expect(p1).to.deep.include({ replicas: [2, 3], leader: 2 });
      await checkFor(() => !fs.existsSync(path.join(c.logDir(1), 'back-1')), 10_000, 20);
      expect(fs.existsSync(path.join(c.logDir(3), 'back-0')), 'no copy of the cancelled partition on broker 3').to.equal(false);
      // a new leader's high watermark comes up to its log end once its followers fetch (broker 2
      // leads partition 1 now): read once every record shows, and they must be the ones written
      for (const p of [0, 1]) {
        const read = await checkFor(async () => {
          const r = await c.client.readAll('back', p);
          return r.length >= 50 ? r : null;
        }, 10_000, 20);
        expect(read.map((r) => String(r.value))).to.deep.equal(values(`x${p}`, 50));
      }
    });
  });
}
