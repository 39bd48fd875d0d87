/**
 * Static group membership (group.instance.id, KIP-345) of samsa's consumer on a real in-process
 * cluster: a static member that closes does not leave, and coming back under the same instance
 * id within its session it gets its partitions back without a rebalance; a second consumer
 * with the same instance id fences the first (FENCED_INSTANCE_ID); groupMetadata() names the
 * instance id; a bad instance id is refused by name; an admin removes static members by instance
 * id (or every member) and the group rebalances without waiting for their sessions.
 */
import { expect } from 'chai';
import { ConsumerConfigError } from '../../actors/consumer/consumer-config.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { Consumer } from '../../src/client/consumer.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

const TOPIC = 'static-members';
const CFG = { 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100, 'enable.auto.commit': false };

describe('client/consumer: static membership (group.instance.id)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let samsa: SamsaClient;
  const open: Consumer[] = [];

  before(async () => {
    c = await TestCluster.start({ brokers: 1, brokerConfig: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 100, 'offsets.topic.num.partitions': 1, 'offsets.topic.replication.factor': 1 } });
    samsa = c.samsa();
    await c.client.createTopic(TOPIC, 4, 1);
  });
  afterEach(async () => {
    for (const x of open.splice(0)) await x.disconnect().catch(() => undefined);
  });
  after(async () => {
    await c?.stop();
  });

  async function member(instance: string, groupId = 'static-group'): Promise<{ consumer: Consumer; crashes: string[] }> {
    const consumer = samsa.consumer({ groupId, ...CFG, 'group.instance.id': instance });
    open.push(consumer);
    const crashes: string[] = [];
    consumer.on('crash', (e) => void crashes.push(e.message));
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ eachBatch: () => undefined });
    return { consumer, crashes };
  }

  const partitionsOf = async (consumer: Consumer) => (await consumer.describe()).assignment.map((a) => a.partition).sort();

  it('refuses a group.instance.id Kafka would refuse, by name', () => {
    for (const bad of ['has space', 'x'.repeat(250), 'slash/no']) {
      expect(() => samsa.consumer({ groupId: 'g', 'group.instance.id': bad })).to.throw(ConsumerConfigError, /group\.instance\.id/);
    }
    expect(() => samsa.consumer({ groupId: 'g', 'group.instance.id': 'host-1.pod_2-a' })).to.not.throw();
  });

  it('a static member that closes and comes back in its session gets its partitions back, and the group never rebalances', async () => {
    const a = await member('worker-a');
    const b = await member('worker-b');
    const stable = await checkFor(async () => {
      const [pa, pb] = [await partitionsOf(a.consumer), await partitionsOf(b.consumer)];
      const [ga, gb] = [await a.consumer.groupMetadata(), await b.consumer.groupMetadata()];
      return pa.length === 2 && pb.length === 2 && ga.generationId === gb.generationId ? { pa, pb, generation: ga.generationId } : null;
    }, 20_000, 50);
    expect((await a.consumer.groupMetadata()).groupInstanceId).to.equal('worker-a');

    // closing does not leave: b keeps its partitions in the same generation
    await a.consumer.disconnect();
    open.splice(open.indexOf(a.consumer), 1);
    const again = await member('worker-a');
    await checkFor(async () => (await partitionsOf(again.consumer)).length === 2, 20_000, 50);
    expect(await partitionsOf(again.consumer)).to.deep.equal(stable.pa);
    expect(await partitionsOf(b.consumer)).to.deep.equal(stable.pb);
    expect((await again.consumer.groupMetadata()).generationId).to.equal(stable.generation);
    expect((await b.consumer.groupMetadata()).generationId).to.equal(stable.generation);
    expect(b.crashes).to.deep.equal([]);
  });

  it('a second consumer joining with the same instance id fences the first (FENCED_INSTANCE_ID), which stops', async () => {
    const first = await member('worker-x', 'fenced-group');
    await checkFor(async () => (await partitionsOf(first.consumer)).length === 4, 20_000, 50);
    const second = await member('worker-x', 'fenced-group');
    await checkFor(() => first.crashes.length > 0, 20_000, 50);
    expect(first.crashes[0]).to.match(/group\.instance\.id worker-x/);
    await checkFor(async () => (await partitionsOf(second.consumer)).length === 4, 20_000, 50);
    expect(second.crashes).to.deep.equal([]);
  });

  describe('removed by an admin (removeMembersFromConsumerGroup)', () => {
    it('a static member that closed is removed at once by its instance id: the other takes its partitions long before its session would time out', async () => {
      const a = await member('gone-a', 'removed-group');
      const b = await member('stays-b', 'removed-group');
      await checkFor(async () => (await partitionsOf(a.consumer)).length === 2 && (await partitionsOf(b.consumer)).length === 2, 20_000, 50);
      await a.consumer.disconnect();
      open.splice(open.indexOf(a.consumer), 1);
      const admin = samsa.admin();
      await admin.connect();
      try {
        const started = Date.now();
        const r = await admin.removeMembersFromConsumerGroup('removed-group', { members: [{ groupInstanceId: 'gone-a' }, { groupInstanceId: 'never-there' }] });
        expect(r).to.deep.equal([
          { memberId: '', groupInstanceId: 'gone-a', errorCode: ErrorCode.NONE },
          { memberId: '', groupInstanceId: 'never-there', errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
        ]);
        await checkFor(async () => (await partitionsOf(b.consumer)).length === 4, 20_000, 50);
        // the session is 6 s: the rebalance came from the removal
        expect(Date.now() - started).to.be.below(CFG['session.timeout.ms']);
        const described = (await admin.describeGroups(['removed-group'])).groups[0]!;
        expect(described.members.map((m) => m.groupInstanceId)).to.deep.equal(['stays-b']);
      } finally {
        await admin.disconnect();
      }
    });

    it('without members, every member is removed (as removeAll); a group that does not exist, or has no member, is an error', async () => {
      const a = await member('all-a', 'all-group');
      await checkFor(async () => (await partitionsOf(a.consumer)).length === 4, 20_000, 50);
      const admin = samsa.admin();
      await admin.connect();
      try {
        const r = await admin.removeMembersFromConsumerGroup('all-group', { reason: 'maintenance' });
        expect(r).to.have.length(1);
        expect(r[0]).to.deep.include({ groupInstanceId: 'all-a', errorCode: ErrorCode.NONE });
        expect(r[0]!.memberId).to.not.equal('');
        // the member finds itself out and joins again
        await checkFor(async () => (await admin.describeGroups(['all-group'])).groups[0]!.members.length === 1, 20_000, 50);
        const err = await admin.removeMembersFromConsumerGroup('no-such-group').catch((e: unknown) => e);
        expect(String(err)).to.match(/GROUP_ID_NOT_FOUND/);
        await a.consumer.disconnect();
        open.splice(open.indexOf(a.consumer), 1);
        await admin.removeMembersFromConsumerGroup('all-group', { members: [{ groupInstanceId: 'all-a' }] });
        const empty = await admin.removeMembersFromConsumerGroup('all-group').catch((e: unknown) => e);
        expect(String(empty)).to.match(/INVALID_REQUEST: group all-group has no members to remove/);
      } finally {
        await admin.disconnect();
      }
    });
  });
});
