/**
 * KIP-848 online migration end to end on a real in-process cluster, as Kafka 4.0 does it: a group
 * of classic consumers is upgraded one member at a time to group.protocol consumer while records
 * are produced (the first consumer-protocol member converts the live classic group, the classic
 * members left are served by the consumer group), then downgraded back one member at a time (the
 * last consumer-protocol member leaving turns it into a classic group again). No partition is
 * ever owned by two members at once, every record is read, and the committed offsets end at the
 * log end. Mid-upgrade, admin.describeConsumerGroups tells each member's type (KIP-1099).
 */
import { expect } from 'chai';
import type { Consumer, EachMessagePayload } from '../../src/client/consumer.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';
import { FAST_GROUPS, produceValues, valuesOf } from '../helpers/group-records.js';

const TOPIC = 'migrating';
const GROUP = 'g-migrating';
const PARTITIONS = 6;
const COMMON = { 'fetch.max.wait.ms': 100, 'auto.commit.interval.ms': 200 };
const PROTOCOLS = {
  classic: { ...COMMON, 'heartbeat.interval.ms': 100, 'session.timeout.ms': 1_500, 'max.poll.interval.ms': 10_000 },
  consumer: { ...COMMON, groupProtocol: 'consumer' as const },
};

interface Member {
  name: string;
  protocol: keyof typeof PROTOCOLS;
  consumer: Consumer;
  seen: EachMessagePayload[];
  owned: Set<string>;
}

describe('client/consumer group migration between the classic and the consumer protocol (KIP-848)', function () {
  this.timeout(120_000);
  let c: TestCluster;
  let samsa: SamsaClient;
  const members: Member[] = [];
  const violations: string[] = [];

  beforeEach(async () => {
    members.length = 0;
    violations.length = 0;
    c = await TestCluster.start({ brokers: 3, ...FAST_GROUPS });
    samsa = c.samsa();
  });
  afterEach(async () => {
    await c?.stop();
  });

  async function startMember(name: string, protocol: keyof typeof PROTOCOLS): Promise<Member> {
    const consumer = samsa.consumer({ groupId: GROUP, 'client.id': name, ...PROTOCOLS[protocol] });
    const m: Member = { name, protocol, consumer, seen: [], owned: new Set() };
    members.push(m);
    consumer.on('partitions.revoked', (e) => {
      for (const p of e.partitions) m.owned.delete(`${p.topic}-${p.partition}`);
    });
    consumer.on('group.join', (e) => {
      m.owned = new Set(e.assignment.map((p) => `${p.topic}-${p.partition}`));
      for (const other of members) {
        if (other === m) continue;
        for (const p of m.owned) if (other.owned.has(p)) violations.push(`${p}: ${m.name} (${m.protocol}) acquired it while ${other.name} (${other.protocol}) owned it`);
      }
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({ eachMessage: (p) => void m.seen.push(p) });
    return m;
  }

  async function stopMember(m: Member): Promise<void> {
    await m.consumer.disconnect();
    // it processes nothing more
    m.owned = new Set();
    members.splice(members.indexOf(m), 1);
  }

  const all: Member[] = [];
  let produced = 0;
  async function produce(tag: string): Promise<void> {
    const values = Array.from({ length: 30 }, (_, i) => `${tag}-${i}`);
    await produceValues(samsa, TOPIC, values, PARTITIONS);
    produced += values.length;
  }

  /** Every partition is owned by exactly one live member and every record produced so far was read. */
  async function settled(): Promise<void> {
    await checkFor(
      async () => {
        const assigned = (await Promise.all(members.map(async (m) => (await m.consumer.describe()).assignment.map((a) => `${a.topic}-${a.partition}`)))).flat();
        if (assigned.length !== PARTITIONS || new Set(assigned).size !== PARTITIONS) return false;
        return new Set(valuesOf(all)).size === produced;
      },
      30_000,
      50,
    );
  }

  async function groupType(): Promise<string | undefined> {
    const admin = samsa.admin();
    await admin.connect();
    try {
      return (await admin.listGroups()).groups.find((g) => g.groupId === GROUP)?.groupType;
    } finally {
      await admin.disconnect();
    }
  }

  /** Each member's type as admin.describeConsumerGroups tells it (KIP-1099), by client id. */
  async function memberTypes(): Promise<Record<string, string>> {
    const admin = samsa.admin();
    await admin.connect();
    try {
      const g = (await admin.describeConsumerGroups([GROUP])).groups[0]!;
      return Object.fromEntries(g.members.map((m) => [m.clientId, m.memberType]));
    } finally {
      await admin.disconnect();
    }
  }

  it('upgrades a classic group one member at a time to the consumer protocol while records flow, then downgrades it back; no partition owned twice, no record or commit lost', async () => {
    all.length = 0;
    produced = 0;
    await c.client.createTopic(TOPIC, PARTITIONS, 2);
    for (const name of ['a', 'b', 'c']) {
      all.push(await startMember(`${name}-classic`, 'classic'));
      await produce(`start-${name}`);
    }
    await settled();
    expect(await groupType()).to.equal('classic');

    // upgrade: each classic member is replaced by a consumer-protocol one; the first one converts the group
    for (const name of ['a', 'b', 'c']) {
      const old = members.find((m) => m.name === `${name}-classic`)!;
      await stopMember(old);
      await produce(`up-${name}-1`);
      all.push(await startMember(`${name}-848`, 'consumer'));
      await produce(`up-${name}-2`);
      await settled();
      expect(await groupType(), `after upgrading ${name}`).to.equal('consumer');
      if (name === 'a') {
        // a classic member may be between leaving and joining again (its rebalance) when first asked
        const want = { 'a-848': 'consumer', 'b-classic': 'classic', 'c-classic': 'classic' };
        let seen: Record<string, string> = {};
        const same = (a: Record<string, string>) => Object.keys(a).length === 3 && Object.entries(want).every(([k, v]) => a[k] === v);
        await checkFor(async () => same((seen = await memberTypes())), 15_000, 100).catch(() => undefined);
        expect(seen).to.deep.equal(want);
      }
    }
    expect(members.every((m) => m.protocol === 'consumer')).to.equal(true);

    // downgrade: each consumer-protocol member is replaced by a classic one; the last one leaving converts the group back
    for (const name of ['a', 'b', 'c']) {
      const old = members.find((m) => m.name === `${name}-848`)!;
      await stopMember(old);
      await produce(`down-${name}-1`);
      if (name === 'c') expect(await groupType(), 'once only classic members remain').to.equal('classic');
      all.push(await startMember(`${name}-classic-again`, 'classic'));
      await produce(`down-${name}-2`);
      await settled();
    }
    expect(await groupType()).to.equal('classic');
    expect(violations).to.deep.equal([]);

    // every record was read; once the members close (committing), the commits reach the log end
    for (const m of [...members]) await stopMember(m);
    expect(new Set(valuesOf(all)).size).to.equal(produced);
    const admin = samsa.admin();
    await admin.connect();
    try {
      const ends = await admin.fetchTopicOffsets(TOPIC);
      const committed = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      const byPartition = new Map(committed[0]!.partitions.map((p) => [p.partition, p.offset]));
      for (const e of ends) expect(byPartition.get(e.partition), `partition ${e.partition}`).to.equal(e.high);
    } finally {
      await admin.disconnect();
    }
  });
});
