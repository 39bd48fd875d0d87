/**
 * The soak's KafkaJS group member on a worker thread (kafkajs-group-member.ts), against one
 * in-process broker: it reads a topic through the group and leaves it; a worker whose loop spins
 * is replaced, saying why, and the new member reads on from the group's offsets; a spinning worker
 * that cannot leave is ended at the deadline.
 */
import { expect } from 'chai';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { checkFor } from './check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from './kafka-cluster.js';
import { KafkaJsGroupMember } from './kafkajs-group-member.js';

// a short session: the spinning member's place is taken once it has expired
const CONSUMER = { sessionTimeout: 1_500, rebalanceTimeout: 10_000, heartbeatInterval: 100, maxWaitTimeInMs: 100 };
const RETRY = { retries: 5, initialRetryTime: 50, maxRetryTime: 500 };

describe('test helpers: KafkaJS group member on a worker thread', function () {
  this.timeout(60_000);
  let cluster: KafkaTestCluster;
  let producer: Producer;
  let kafka: Kafka;

  before(async () => {
    cluster = await startKafkaCluster({ brokers: 1, brokerConfig: { 'group.min.session.timeout.ms': 1_000 } });
    kafka = new Kafka({ clientId: 'member-test', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: RETRY });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: ['t-read', 't-spin', 't-stuck'].map((topic) => ({ topic, numPartitions: 2 })), waitForLeaders: true });
    await admin.disconnect();
    producer = kafka.producer({ allowAutoTopicCreation: false, retry: RETRY });
    await producer.connect();
  });
  after(async () => {
    await producer?.disconnect();
    await cluster?.stop();
  });

  async function send(topic: string, values: string[]): Promise<void> {
    await producer.send({ topic, acks: -1, messages: values.map((value) => ({ value })) });
  }

  function member(topic: string, seen: string[], stallMs?: number): Promise<KafkaJsGroupMember> {
    return KafkaJsGroupMember.start({ brokers: cluster.bootstrap, clientId: 'member-test', topic, consumer: { groupId: `g-${topic}`, ...CONSUMER }, retry: RETRY, stallMs, onValue: (v) => seen.push(String(v)) });
  }

  it('reads a topic through the group and leaves it', async () => {
    const seen: string[] = [];
    const m = await member('t-read', seen);
    await send('t-read', ['a', 'b', 'c']);
    await checkFor(() => seen.length === 3, 20_000, 20);
    expect([...seen].sort()).to.deep.equal(['a', 'b', 'c']);
    expect(await m.disconnect()).to.equal('left');
    expect(m.replacements).to.deep.equal([]);
    expect(m.failures).to.deep.equal([]);
    const admin = kafka.admin();
    await admin.connect();
    const g = await admin.describeGroups(['g-t-read']);
    await admin.disconnect();
    expect(g.groups[0]!.members, 'no member left in the group').to.deep.equal([]);
  });

  it('replaces a worker whose event loop spins, and the new member reads on', async () => {
    const seen: string[] = [];
    const m = await member('t-spin', seen, 1_000);
    await send('t-spin', ['before']);
    await checkFor(() => seen.includes('before'), 20_000, 20);
    m.spinForTest();
    await checkFor(() => m.replacements.length === 1, 10_000, 50);
    expect(m.replacements[0]!.reason).to.match(/^its event loop did not turn for \d+ ms$/);
    await send('t-spin', ['after']);
    // the new member joins once the spinning one's session has expired
    await checkFor(() => seen.includes('after'), 40_000, 50);
    expect(await m.disconnect()).to.equal('left');
    expect(m.replacements).to.have.length(1);
  });

  it('ends a worker that does not leave the group by the deadline', async () => {
    const seen: string[] = [];
    const m = await member('t-stuck', seen, 60_000);
    m.spinForTest();
    expect(await m.disconnect(500)).to.equal('ended');
    expect(m.replacements, 'ended, not replaced').to.deep.equal([]);
  });
});
