/**
 * Consumer groups end to end on a real in-process cluster: assignment and rebalance, eviction,
 * publish/subscribe versus queueing, restart from committed offsets, at-least-once delivery,
 * CommitFailed after a rebalance, coordinator failover, and the admin views of groups.
 */
import { expect } from 'chai';
import type { Consumer, EachMessagePayload } from '../../src/client/consumer.js';
import { CommitFailedError } from '../../src/client/errors.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { coordinatorPath, offsetsPartitionFor, type CoordinatorMsg } from '../../actors/group-coordinator/messages.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';
import { produceValues, valuesOf } from '../helpers/group-records.js';

const FAST = fastFailover({ 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 100, 'offsets.topic.num.partitions': 5 });

const GROUP_CONFIG = {
  'session.timeout.ms': 1_500,
  'heartbeat.interval.ms': 100,
  'fetch.max.wait.ms': 100,
  'auto.commit.interval.ms': 200,
};

interface Collected {
  consumer: Consumer;
  seen: EachMessagePayload[];
}

async function startConsumer(samsa: SamsaClient, groupId: string, topic: string, extra: Record<string, unknown> = {}): Promise<Collected> {
  const consumer = samsa.consumer({ groupId, ...GROUP_CONFIG, ...extra });
  const seen: EachMessagePayload[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: (p) => void seen.push(p) });
  return { consumer, seen };
}

describe('client/consumer groups', function () {
  this.timeout(90_000);
  let c: TestCluster;
  let samsa: SamsaClient;

  beforeEach(async () => {
    c = await TestCluster.start({ brokers: 3, ...FAST });
    samsa = c.samsa();
  });
  afterEach(async () => {
    await c?.stop();
  });

  it('three consumers over six partitions get two each; when one leaves the others take its partitions', async () => {
    await c.client.createTopic('six', 6, 2);
    const members = await Promise.all([0, 1, 2].map(() => startConsumer(samsa, 'g-six', 'six')));
    const assignments = async () => Promise.all(members.map(async (m) => (await m.consumer.describe()).assignment.map((a) => `${a.topic}-${a.partition}`)));
    const stable = await checkFor(async () => {
      const a = await assignments();
      return a.every((x) => x.length === 2) ? a : null;
    }, 30_000, 50);
    const all = stable.flat();
    expect(new Set(all).size).to.equal(6);

    await members[2]!.consumer.disconnect();
    const after = await checkFor(async () => {
      const a = await Promise.all(members.slice(0, 2).map(async (m) => (await m.consumer.describe()).assignment.map((x) => `${x.topic}-${x.partition}`)));
      return a.every((x) => x.length === 3) ? a : null;
    }, 30_000, 50);
    expect(new Set(after.flat()).size).to.equal(6);
    await produceValues(samsa, 'six', Array.from({ length: 60 }, (_, i) => `m${i}`), 6);
    await checkFor(() => valuesOf(members.slice(0, 2)).length >= 60, 20_000, 50);
    expect(new Set(valuesOf(members.slice(0, 2))).size).to.equal(60);
    // both close at once: the first one's leave rebalances the other while it closes, and it must
    // not rejoin after its own LeaveGroup: the group ends empty, so it can be deleted
    await Promise.all(members.slice(0, 2).map((m) => m.consumer.disconnect()));
    const admin = samsa.admin();
    await admin.connect();
    expect(await admin.deleteGroups(['g-six'])).to.deep.equal([{ groupId: 'g-six', errorCode: 0 }]);
    await admin.disconnect();
  });

  it('evicts a member that stops heartbeating after session.timeout.ms and hands its partitions over', async () => {
    await c.client.createTopic('evict', 4, 2);
    const a = await startConsumer(samsa, 'g-evict', 'evict');
    const b = await startConsumer(samsa, 'g-evict', 'evict');
    await checkFor(async () => (await a.consumer.describe()).assignment.length === 2 && (await b.consumer.describe()).assignment.length === 2, 30_000, 50);
    // b vanishes without leaving: its actor is stopped, no LeaveGroup is sent
    const bRef = (b.consumer as unknown as { ref: { node: string; path: string } }).ref;
    await c.system().stopActor(bRef);
    await checkFor(async () => (await a.consumer.describe()).assignment.length === 4, 20_000, 50);
    await a.consumer.disconnect();
  });

  it('publish/subscribe across groups, queueing within a group', async () => {
    await c.client.createTopic('ps', 4, 2);
    const g1 = await Promise.all([0, 1].map(() => startConsumer(samsa, 'g-ps-1', 'ps')));
    const g2 = [await startConsumer(samsa, 'g-ps-2', 'ps')];
    await checkFor(async () => (await Promise.all(g1.map(async (m) => (await m.consumer.describe()).assignment.length))).every((n) => n === 2), 30_000, 50);
    const values = Array.from({ length: 80 }, (_, i) => `v${i}`);
    await produceValues(samsa, 'ps', values, 4);
    await checkFor(() => valuesOf(g1).length >= 80 && valuesOf(g2).length >= 80, 20_000, 50);
    expect(valuesOf(g1).sort()).to.deep.equal([...values].sort());
    expect(valuesOf(g2).sort()).to.deep.equal([...values].sort());
    expect(g1[0]!.seen.length).to.be.greaterThan(0);
    expect(g1[1]!.seen.length).to.be.greaterThan(0);
    await Promise.all([...g1, ...g2].map((m) => m.consumer.disconnect()));
  });

  it('a consumer restarted from committed offsets continues exactly where it committed', async () => {
    await c.client.createTopic('resume', 1, 2);
    await produceValues(samsa, 'resume', ['a', 'b', 'c', 'd']);
    const first = samsa.consumer({ groupId: 'g-resume', ...GROUP_CONFIG, 'enable.auto.commit': false });
    await first.connect();
    await first.subscribe({ topic: 'resume', fromBeginning: true });
    const got: string[] = [];
    await first.run({
      eachMessage: async ({ message }) => {
        got.push(String(message.value));
      },
    });
    await checkFor(() => got.length === 4, 20_000, 20);
    await first.commitOffsets([{ topic: 'resume', partition: 0, offset: 2 }]);
    await first.disconnect();
    await produceValues(samsa, 'resume', ['e']);
    const second = await startConsumer(samsa, 'g-resume', 'resume', { 'enable.auto.commit': false });
    await checkFor(() => second.seen.length === 3, 20_000, 20);
    await new Promise((res) => setTimeout(res, 300));
    expect(second.seen.map((p) => String(p.message.value))).to.deep.equal(['c', 'd', 'e']);
    await second.consumer.disconnect();
  });

  it('at least once: a consumer that dies mid-batch loses nothing; its successor redelivers from the last commit', async () => {
    await c.client.createTopic('alo', 1, 2);
    const values = Array.from({ length: 50 }, (_, i) => `r${i}`);
    await produceValues(samsa, 'alo', values);
    const processed: string[] = [];
    const doomed = samsa.consumer({ groupId: 'g-alo', ...GROUP_CONFIG, 'max.poll.records': 10 });
    await doomed.connect();
    await doomed.subscribe({ topic: 'alo', fromBeginning: true });
    let count = 0;
    await doomed.run({
      eachMessage: async ({ message }) => {
        processed.push(String(message.value));
        if (++count === 25) {
          // crash: the actor disappears without committing or leaving
          await c.system().stopActor((doomed as unknown as { ref: { node: string; path: string } }).ref);
          throw new Error('crashed mid-batch');
        }
      },
    });
    await checkFor(() => count >= 25, 20_000, 20);
    const successor = await startConsumer(samsa, 'g-alo', 'alo');
    await checkFor(() => new Set([...processed, ...successor.seen.map((p) => String(p.message.value))]).size === 50, 30_000, 50);
    await successor.consumer.disconnect();
  });

  it('a commit after the member was rebalanced out (processing longer than max.poll.interval.ms) fails with CommitFailedError', async () => {
    await c.client.createTopic('cf', 1, 2);
    await produceValues(samsa, 'cf', ['slow']);
    const a = samsa.consumer({ groupId: 'g-cf', ...GROUP_CONFIG, 'enable.auto.commit': false, 'max.poll.interval.ms': 600 });
    await a.connect();
    await a.subscribe({ topic: 'cf', fromBeginning: true });
    let failure: unknown = null;
    let done = false;
    await a.run({
      eachMessage: async ({ topic, partition, message }) => {
        await new Promise((res) => setTimeout(res, 1_200));
        try {
          await a.commitOffsets([{ topic, partition, offset: message.offset + 1 }]);
        } catch (err) {
          failure = err;
        }
        done = true;
      },
    });
    await checkFor(() => done, 20_000, 20);
    expect(failure).to.be.instanceOf(CommitFailedError);
    expect((failure as CommitFailedError).message).to.match(/rebalanced/);
    await a.disconnect();
  });

  it('the group survives the death of its coordinator with its committed offsets', async () => {
    await c.client.createTopic('cfo', 1, 3);
    await produceValues(samsa, 'cfo', ['1', '2', '3']);
    const first = await startConsumer(samsa, 'g-cfo', 'cfo');
    await checkFor(() => first.seen.length === 3, 20_000, 20);
    await first.consumer.disconnect();
    const md = await c.client.metadata();
    const offsets = md.topics.find((t) => t.name === '__consumer_offsets')!;
    const leader = offsets.partitions.find((p) => p.partition === offsetsPartitionFor('g-cfo', offsets.partitions.length))!.leader;
    await c.killBroker(leader);
    await produceValues(samsa, 'cfo', ['4', '5']);
    const second = await startConsumer(samsa, 'g-cfo', 'cfo');
    await checkFor(() => second.seen.length >= 2, 30_000, 50);
    await new Promise((res) => setTimeout(res, 300));
    expect(second.seen.map((p) => String(p.message.value))).to.deep.equal(['4', '5']);
    await second.consumer.disconnect();
  });

  it('closing, the final commit is retried while the coordinator is away (NOT_COORDINATOR), and lands once it is back', async () => {
    await c.client.createTopic('closing', 1, 1);
    await produceValues(samsa, 'closing', ['a', 'b', 'c', 'd', 'e']);
    const m = await startConsumer(samsa, 'g-close', 'closing', { 'auto.commit.interval.ms': 60_000 });
    await checkFor(() => m.seen.length === 5, 20_000, 20);
    const offsetsPartition = offsetsPartitionFor('g-close', 5);
    const p = (await c.client.partition('__consumer_offsets', offsetsPartition))!;
    const node = (await c.client.metadata()).brokers.find((b) => b.brokerId === p.leader)!.node;
    const coordinator: ActorRef<CoordinatorMsg> = { node, path: coordinatorPath(p.leader) };
    // the coordinator gives the group up: commits get NOT_COORDINATOR until it takes it back
    c.system().send<CoordinatorMsg>(coordinator, { type: 'ResignCoordinator', partition: offsetsPartition, leaderEpoch: p.leaderEpoch });
    const closing = m.consumer.disconnect();
    // long enough for the close to reach its final commit (the run loop ends its poll first)
    await new Promise((r) => setTimeout(r, 3_000));
    c.system().send<CoordinatorMsg>(coordinator, { type: 'BecomeCoordinator', partition: offsetsPartition, leaderEpoch: p.leaderEpoch, numPartitions: 5 });
    await closing;
    const admin = samsa.admin();
    await admin.connect();
    try {
      expect(await admin.fetchOffsets({ groupId: 'g-close', topics: ['closing'] })).to.deep.equal([{ topic: 'closing', partitions: [{ partition: 0, offset: 5 }] }]);
    } finally {
      await admin.disconnect();
    }
  });

  it('admin lists and describes groups, reports lag, and resets offsets of an empty group', async () => {
    await c.client.createTopic('adm', 2, 2);
    await produceValues(samsa, 'adm', Array.from({ length: 10 }, (_, i) => `x${i}`), 2);
    const m = await startConsumer(samsa, 'g-adm', 'adm');
    await checkFor(() => m.seen.length === 10, 20_000, 20);
    const admin = samsa.admin();
    await admin.connect();
    await checkFor(async () => (await admin.listGroups()).groups.some((g) => g.groupId === 'g-adm' && g.state === 'Stable'), 20_000, 50);
    const { groups } = await admin.describeGroups(['g-adm']);
    expect(groups[0]!.members).to.have.length(1);
    expect(groups[0]!.protocolName).to.equal('range');
    await checkFor(async () => (await admin.lag({ groupId: 'g-adm' })).every((p) => p.lag === 0 && p.committed === 5), 20_000, 50);
    await m.consumer.disconnect();
    await admin.resetOffsets({ groupId: 'g-adm', topic: 'adm', earliest: true });
    expect((await admin.fetchOffsets({ groupId: 'g-adm', topics: ['adm'] }))[0]!.partitions.map((p) => p.offset)).to.deep.equal([0, 0]);
    expect((await admin.lag({ groupId: 'g-adm' })).map((p) => p.lag)).to.deep.equal([5, 5]);
    await admin.disconnect();
  });
});
