/**
 * samsa's consumer with group.protocol consumer (KIP-848) end to end on a real in-process
 * cluster: three members share a topic's partitions (never one partition owned twice) while
 * records flow, one leaves and one dies, and nothing is lost (nor, without a death, delivered
 * twice); a group and its committed offsets go on across members (from classic members too);
 * admin.describeConsumerGroups shows the members with their epochs; a static member leaves with
 * epoch -2 and comes back to its partitions; a commit by a member that left the group throws
 * CommitFailedError.
 */
import { expect } from 'chai';
import { ConsumerConfigError } from '../../actors/consumer/consumer-config.js';
import type { Consumer, EachMessagePayload } from '../../src/client/consumer.js';
import { CommitFailedError } from '../../src/client/errors.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';
import { FAST_GROUPS, produceValues, valuesOf } from '../helpers/group-records.js';

const CONFIG = { groupProtocol: 'consumer' as const, 'client.id': 'kip848-app', 'fetch.max.wait.ms': 100, 'auto.commit.interval.ms': 200 };

interface Member {
  name: string;
  consumer: Consumer;
  seen: EachMessagePayload[];
  /** Partitions it owns as its events tell ('topic-partition'). */
  owned: Set<string>;
}

/** Tracks ownership from the members' events and fails on any partition owned by two at once. */
class Ownership {
  readonly members: Member[] = [];
  readonly violations: string[] = [];

  watch(m: Member): void {
    this.members.push(m);
    m.consumer.on('partitions.revoked', (e) => {
      for (const p of e.partitions) m.owned.delete(`${p.topic}-${p.partition}`);
    });
    m.consumer.on('group.join', (e) => {
      m.owned = new Set(e.assignment.map((p) => `${p.topic}-${p.partition}`));
      for (const other of this.members) {
        if (other === m) continue;
        for (const p of m.owned) if (other.owned.has(p)) this.violations.push(`${p}: ${m.name} acquired it while ${other.name} owned it`);
      }
    });
  }

  /** The member stops owning anything (it is closing or killed: it processes nothing more). */
  release(m: Member): void {
    m.owned = new Set();
  }
}

async function startMember(samsa: SamsaClient, name: string, groupId: string, topic: string, ownership?: Ownership, extra: Record<string, unknown> = {}): Promise<Member> {
  const consumer = samsa.consumer({ groupId, ...CONFIG, ...extra });
  const m: Member = { name, consumer, seen: [], owned: new Set() };
  ownership?.watch(m);
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: (p) => void m.seen.push(p) });
  return m;
}

const partitionsOf = async (m: Member) => (await m.consumer.describe()).assignment.map((a) => `${a.topic}-${a.partition}`).sort();

describe('client/consumer with group.protocol consumer (KIP-848)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let samsa: SamsaClient;

  beforeEach(async () => {
    c = await TestCluster.start({ brokers: 3, ...FAST_GROUPS });
    samsa = c.samsa();
  });
  afterEach(async () => {
    await c?.stop();
  });

  it('three members share six partitions, never one owned twice; one leaves, one dies; every record arrives, twice only after the death', async () => {
    await c.client.createTopic('six', 6, 2);
    const ownership = new Ownership();
    const batch = (tag: string) => Array.from({ length: 60 }, (_, i) => `${tag}${i}`);
    const members: Member[] = [];
    // records flow while the members join one by one (each join moves partitions)
    for (const name of ['a', 'b', 'c']) {
      members.push(await startMember(samsa, name, 'g-six', 'six', ownership));
      await produceValues(samsa, 'six', batch(`${name}-`), 6);
    }
    const [a, b, cc] = members as [Member, Member, Member];
    const spread = await checkFor(async () => {
      const all = await Promise.all(members.map(partitionsOf));
      return all.every((x) => x.length === 2) ? all : null;
    }, 20_000, 50);
    expect(new Set(spread.flat()).size).to.equal(6);
    await checkFor(() => new Set(valuesOf(members)).size === 180, 20_000, 50);
    // a graceful join: every record once
    expect(valuesOf(members)).to.have.length(180);
    const epochs = await Promise.all(members.map(async (m) => (await m.consumer.describe()).generationId));
    expect(epochs.every((e) => e > 0)).to.equal(true);
    // each reconciliation counts as a rebalance: a, the first, had its own and at least one more as b and c came
    const rebalances = await Promise.all(members.map(async (m) => (await m.consumer.metrics()).find((x) => x.name === 'rebalance-total')!.value));
    expect(rebalances[0]).to.be.at.least(2);
    expect(rebalances.every((n) => n >= 1)).to.equal(true);

    // c leaves (commits, then leaves): a and b take its partitions from its commits
    ownership.release(cc);
    await cc.consumer.disconnect();
    await produceValues(samsa, 'six', batch('d-'), 6);
    await checkFor(async () => (await partitionsOf(a)).length + (await partitionsOf(b)).length === 6 && new Set(valuesOf(members)).size === 240, 20_000, 50);
    expect(valuesOf(members), 'nothing twice after a leave').to.have.length(240);
    expect(new Set([...(await partitionsOf(a)), ...(await partitionsOf(b))]).size).to.equal(6);

    // b dies: no leave; the coordinator fences it after its session (1.5 s) and a takes everything
    ownership.release(b);
    await c.system().stopActor((b.consumer as unknown as { ref: { node: string; path: string } }).ref);
    await produceValues(samsa, 'six', batch('e-'), 6);
    await checkFor(async () => (await partitionsOf(a)).length === 6, 20_000, 50);
    const expected = ['a-', 'b-', 'c-', 'd-', 'e-'].flatMap(batch);
    await checkFor(() => expected.every((v) => valuesOf(members).includes(v)), 20_000, 50);
    expect(ownership.violations).to.deep.equal([]);
    await a.consumer.disconnect();
  });

  it('a group and its committed offsets go on across members: classic members, then KIP-848 ones, each from where the last committed', async () => {
    await c.client.createTopic('carry', 2, 2);
    await produceValues(samsa, 'carry', ['a', 'b', 'c', 'd'], 2);
    const classic = samsa.consumer({ groupId: 'g-carry', 'fetch.max.wait.ms': 100, 'heartbeat.interval.ms': 100, 'session.timeout.ms': 1_500 });
    const first: string[] = [];
    await classic.connect();
    await classic.subscribe({ topic: 'carry', fromBeginning: true });
    await classic.run({ eachMessage: ({ message }) => void first.push(String(message.value)) });
    await checkFor(() => first.length === 4, 20_000, 20);
    await classic.disconnect();

    await produceValues(samsa, 'carry', ['e', 'f'], 2);
    const second = await startMember(samsa, 'second', 'g-carry', 'carry');
    await checkFor(() => second.seen.length === 2, 20_000, 20);
    await new Promise((r) => setTimeout(r, 300));
    expect(valuesOf([second]).sort()).to.deep.equal(['e', 'f']);
    await second.consumer.disconnect();

    await produceValues(samsa, 'carry', ['g', 'h'], 2);
    const third = await startMember(samsa, 'third', 'g-carry', 'carry');
    await checkFor(() => third.seen.length === 2, 20_000, 20);
    await new Promise((r) => setTimeout(r, 300));
    expect(valuesOf([third]).sort()).to.deep.equal(['g', 'h']);
    await third.consumer.disconnect();

    const admin = samsa.admin();
    await admin.connect();
    try {
      expect(await admin.fetchOffsets({ groupId: 'g-carry', topics: ['carry'] })).to.deep.equal([{ topic: 'carry', partitions: [{ partition: 0, offset: 4 }, { partition: 1, offset: 4 }] }]);
      expect((await admin.listGroups()).groups.find((g) => g.groupId === 'g-carry')).to.include({ groupType: 'consumer', state: 'Empty' });
    } finally {
      await admin.disconnect();
    }
  });

  it('admin.describeConsumerGroups shows the members with their member epochs and assignments', async () => {
    await c.client.createTopic('described', 4, 2);
    const members = [await startMember(samsa, 'x', 'g-described', 'described', undefined, { groupRemoteAssignor: 'range' }), await startMember(samsa, 'y', 'g-described', 'described', undefined, { groupRemoteAssignor: 'range' })];
    await checkFor(async () => (await Promise.all(members.map(partitionsOf))).every((p) => p.length === 2), 20_000, 50);
    const admin = samsa.admin();
    await admin.connect();
    try {
      const group = await checkFor(async () => {
        const g = (await admin.describeConsumerGroups(['g-described'])).groups[0]!;
        return g.groupState === 'Stable' ? g : null;
      }, 20_000, 50);
      expect(group).to.include({ errorCode: 0, assignorName: 'range' });
      const mine = await Promise.all(members.map((m) => m.consumer.describe()));
      expect(group.members.map((m) => m.memberId).sort()).to.deep.equal(mine.map((d) => d.memberId).sort());
      for (const d of mine) {
        const described = group.members.find((m) => m.memberId === d.memberId)!;
        expect(described).to.include({ memberEpoch: d.generationId, clientId: 'kip848-app' });
        expect(described.subscribedTopicNames).to.deep.equal(['described']);
        expect(described.assignment.flatMap((t) => t.partitions.map((p) => `${t.topicName}-${p}`)).sort()).to.deep.equal(d.assignment.map((a) => `${a.topic}-${a.partition}`).sort());
      }
    } finally {
      await admin.disconnect();
    }
    await Promise.all(members.map((m) => m.consumer.disconnect()));
  });

  it('a static member (group.instance.id) that closes leaves with epoch -2 and, back under its instance id, gets its partitions again; the other member is untouched', async () => {
    await c.client.createTopic('static', 4, 2);
    const a = await startMember(samsa, 'a', 'g-static', 'static', undefined, { 'group.instance.id': 'worker-a' });
    const b = await startMember(samsa, 'b', 'g-static', 'static', undefined, { 'group.instance.id': 'worker-b' });
    const before = await checkFor(async () => {
      const [pa, pb] = [await partitionsOf(a), await partitionsOf(b)];
      return pa.length === 2 && pb.length === 2 ? { pa, pb, b: await b.consumer.describe() } : null;
    }, 20_000, 50);
    await a.consumer.disconnect();
    const admin = samsa.admin();
    await admin.connect();
    try {
      // the static member's place waits for it: still in the group with its partitions, epoch -2
      const held = (await admin.describeConsumerGroups(['g-static'])).groups[0]!.members.find((m) => m.instanceId === 'worker-a')!;
      expect(held.memberEpoch).to.equal(-2);
      expect(held.assignment.flatMap((t) => t.partitions.map((p) => `${t.topicName}-${p}`)).sort()).to.deep.equal(before.pa);
      const back = await startMember(samsa, 'a2', 'g-static', 'static', undefined, { 'group.instance.id': 'worker-a' });
      await checkFor(async () => (await partitionsOf(back)).join() === before.pa.join(), 20_000, 50);
      const members = (await admin.describeConsumerGroups(['g-static'])).groups[0]!.members;
      expect(members.map((m) => m.instanceId).sort()).to.deep.equal(['worker-a', 'worker-b']);
      const bNow = await b.consumer.describe();
      expect(bNow.generationId, 'b was not rebalanced').to.equal(before.b.generationId);
      expect(await partitionsOf(b)).to.deep.equal(before.pb);
      await back.consumer.disconnect();
    } finally {
      await admin.disconnect();
    }
    await b.consumer.disconnect();
  });

  it('an admin removes a static member that closed by its instance id (removeMembersFromConsumerGroup): the other gets its partitions without waiting for its session; a dynamic member cannot be removed by member id', async () => {
    await c.client.createTopic('static-removed', 4, 2);
    const a = await startMember(samsa, 'a', 'g-static-removed', 'static-removed', undefined, { 'group.instance.id': 'leaving-a' });
    const b = await startMember(samsa, 'b', 'g-static-removed', 'static-removed');
    await checkFor(async () => (await partitionsOf(a)).length === 2 && (await partitionsOf(b)).length === 2, 20_000, 50);
    await a.consumer.disconnect();
    const admin = samsa.admin();
    await admin.connect();
    try {
      const bId = (await admin.describeConsumerGroups(['g-static-removed'])).groups[0]!.members.find((m) => m.instanceId === null)!.memberId;
      const r = await admin.removeMembersFromConsumerGroup('g-static-removed', { members: [{ groupInstanceId: 'leaving-a' }, { memberId: bId }] });
      // as Kafka: a member of the consumer protocol leaves by its own heartbeat, not by another's LeaveGroup
      expect(r.map((x) => x.errorCode)).to.deep.equal([ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID]);
      await checkFor(async () => (await partitionsOf(b)).length === 4, 20_000, 50);
      expect((await admin.describeConsumerGroups(['g-static-removed'])).groups[0]!.members.map((m) => m.memberId)).to.deep.equal([bId]);
    } finally {
      await admin.disconnect();
    }
    await b.consumer.disconnect();
  });

  it('refuses a group.protocol Kafka would refuse, and group.remote.assignor with the classic protocol, by name', () => {
    expect(() => samsa.consumer({ groupId: 'g', 'group.protocol': 'share' })).to.throw(ConsumerConfigError, /group\.protocol/);
    expect(() => samsa.consumer({ groupId: 'g', groupRemoteAssignor: 'uniform' })).to.throw(ConsumerConfigError, /group\.remote\.assignor/);
    expect(() => samsa.consumer({ groupId: 'g', groupProtocol: 'consumer', groupRemoteAssignor: 'uniform' })).to.not.throw();
  });

  it('a commit by a member that left the group (max.poll.interval.ms passed while it processed) throws CommitFailedError', async () => {
    await c.client.createTopic('slow', 1, 2);
    await produceValues(samsa, 'slow', ['slow'], 1);
    const consumer = samsa.consumer({ groupId: 'g-slow', ...CONFIG, 'enable.auto.commit': false, 'max.poll.interval.ms': 600 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'slow', fromBeginning: true });
    let failure: unknown = null;
    let done = false;
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        if (done) return;
        await new Promise((res) => setTimeout(res, 1_200));
        try {
          await consumer.commitOffsets([{ topic, partition, offset: message.offset + 1 }]);
        } catch (err) {
          failure = err;
        }
        done = true;
      },
    });
    await checkFor(() => done, 20_000, 20);
    expect(failure).to.be.instanceOf(CommitFailedError);
    await consumer.disconnect();
  });
});
