/**
 * KafkaJS 2.2's admin moving partitions on three brokers (alterPartitionReassignments,
 * listPartitionReassignments): a partition written on broker 1 alone moves to brokers 2 and 3
 * and a KafkaJS consumer reads every record back from them; a reassignment onto a broker that is
 * down shows in the list while in progress and completes once the broker is back; an unknown topic and
 * an unregistered broker are refused with Kafka's errors. (KafkaJS cannot send a cancel: its
 * admin takes only replica arrays; test/kafka/api/reassignments.test.ts cancels over the raw
 * protocol.)
 */
import { expect } from 'chai';
import { Kafka, logLevel, type Admin, type KafkaConfig } from 'kafkajs';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const RETRY = { retries: 3, initialRetryTime: 50, maxRetryTime: 500 };

function kafkaClient(brokers: string[], clientId: string, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 10_000, retry: RETRY, ...extra });
}

/** Reads `count` records of `topic` from the beginning with a fresh KafkaJS group consumer. */
async function consumeValues(kafka: Kafka, topic: string, count: number, groupId: string): Promise<string[]> {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 6_000, rebalanceTimeout: 10_000, heartbeatInterval: 100, maxWaitTimeInMs: 100, retry: RETRY });
  const got: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void got.push(String(message.value)) });
    await checkFor(() => got.length >= count, 20_000, 20);
  } finally {
    await consumer.disconnect();
  }
  return got;
}

async function produceValues(kafka: Kafka, topic: string, values: string[]): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false, retry: RETRY });
  await producer.connect();
  try {
    for (let i = 0; i < values.length; i += 25) {
      await producer.send({ topic, acks: -1, messages: values.slice(i, i + 25).map((value, j) => ({ key: `k${(i + j) % 7}`, value })) });
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * listPartitionReassignments as KafkaJS 2.2 really answers it: its decoder's field names (name,
 * partition), not those of its type declarations (topic, partitionIndex).
 */
type Listed = { name: string; partitions: { partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[] }[];
async function listReassignments(admin: Admin, topics?: { topic: string; partitions: number[] }[]): Promise<Listed> {
  const r = await admin.listPartitionReassignments(topics ? { topics } : {});
  return r.topics as unknown as Listed;
}

/** Partition 0 of `topic` as the KafkaJS admin sees it (metadata, and its reassignment if any). */
async function partition0(admin: Admin, topic: string) {
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  const p = md.topics[0]!.partitions.find((x) => x.partitionId === 0)!;
  const listed = await listReassignments(admin, [{ topic, partitions: [0] }]);
  return { replicas: p.replicas, isr: p.isr, leader: p.leader, ongoing: listed.flatMap((t) => t.partitions) };
}

describe('KafkaJS admin: partition reassignment (3 brokers)', function () {
  this.timeout(90_000);
  let c: TestCluster;
  let bootstrap: string[];

  before(async () => {
    c = await TestCluster.start({ brokers: 3, kafka: true, ...fastFailover({ 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 3 }) });
    bootstrap = await c.kafkaBootstrap();
  });
  after(async () => {
    await c?.stop();
  });

  it('moves partition 0 from [1] to [2, 3]; nothing is left in progress and a consumer reads every record', async () => {
    const kafka = kafkaClient(bootstrap, 'reassign-move');
    const admin = kafka.admin({ retry: RETRY });
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'moving', replicaAssignment: [{ partition: 0, replicas: [1] }] }], waitForLeaders: true });
      expect((await partition0(admin, 'moving')).replicas).to.deep.equal([1]);
      const values = Array.from({ length: 200 }, (_, i) => `moving-${i}`);
      await produceValues(kafka, 'moving', values);

      await admin.alterPartitionReassignments({ topics: [{ topic: 'moving', partitionAssignment: [{ partition: 0, replicas: [2, 3] }] }] });
      const done = await checkFor(async () => {
        const p = await partition0(admin, 'moving');
        return p.ongoing.length === 0 && p.replicas.join() === '2,3' ? p : null;
      }, 20_000, 50);
      expect([2, 3]).to.include(done.leader);
      expect((await listReassignments(admin)).flatMap((t) => t.partitions)).to.deep.equal([]);

      const got = await consumeValues(kafka, 'moving', values.length, 'reassign-move-readers');
      expect(got).to.deep.equal(values);
    } finally {
      await admin.disconnect();
    }
  });

  it('refuses an unknown topic (UNKNOWN_TOPIC_OR_PARTITION) and a broker that is not registered (INVALID_REPLICA_ASSIGNMENT)', async () => {
    const admin = kafkaClient(bootstrap, 'reassign-errors').admin({ retry: RETRY });
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'stays', replicaAssignment: [{ partition: 0, replicas: [1] }] }], waitForLeaders: true });
      const refused = async (topic: string, replicas: number[]) => {
        try {
          await admin.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition: 0, replicas }] }] });
        } catch (err) {
          const e = err as Error & { errors?: (Error & { type?: string; topic?: string; partition?: number })[] };
          expect(e.name, e.message).to.equal('KafkaJSAggregateError');
          return e.errors!.map((x) => ({ type: x.type, topic: x.topic, partition: x.partition }));
        }
        return expect.fail(`reassigning ${topic} to [${replicas}] was accepted`);
      };
      expect(await refused('no-such-topic', [1])).to.deep.equal([{ type: 'UNKNOWN_TOPIC_OR_PARTITION', topic: 'no-such-topic', partition: 0 }]);
      expect(await refused('stays', [1, 9])).to.deep.equal([{ type: 'INVALID_REPLICA_ASSIGNMENT', topic: 'stays', partition: 0 }]);
      const p = await partition0(admin, 'stays');
      expect(p.replicas).to.deep.equal([1]);
      expect(p.ongoing).to.deep.equal([]);
    } finally {
      await admin.disconnect();
    }
  });

  it('lists a reassignment onto a broker that is down while it is in progress; it completes once the broker is back', async () => {
    // this admin talks to broker 1 only (bootstrap and, as the lowest live id, the controller
    // KafkaJS sends admin requests to), so broker 3's crash does not reach it
    const b1 = bootstrap[0]!;
    const kafka = kafkaClient([b1], 'reassign-stuck');
    const admin = kafka.admin({ retry: RETRY });
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'stuck', replicaAssignment: [{ partition: 0, replicas: [1] }] }], waitForLeaders: true });
      const values = Array.from({ length: 60 }, (_, i) => `stuck-${i}`);
      await produceValues(kafka, 'stuck', values);

      // as in Kafka, a registered broker is a valid target while it is down (fenced, and so left
      // out of the metadata's brokers): the move waits for it
      await c.killBroker(3);
      await checkFor(async () => (await c.client.metadata()).brokers.find((b) => b.brokerId === 3)?.fenced, 10_000, 50);
      await admin.alterPartitionReassignments({ topics: [{ topic: 'stuck', partitionAssignment: [{ partition: 0, replicas: [2, 3] }] }] });
      const ongoing = [{ partition: 0, replicas: [2, 3, 1], addingReplicas: [2, 3], removingReplicas: [1] }];
      expect((await partition0(admin, 'stuck')).ongoing).to.deep.equal(ongoing);
      // still in progress once broker 2 is in the ISR
      await checkFor(async () => (await partition0(admin, 'stuck')).isr.includes(2), 10_000, 50);
      const all = await listReassignments(admin);
      expect(all.filter((t) => t.name === 'stuck').flatMap((t) => t.partitions)).to.deep.equal(ongoing);
      expect((await partition0(admin, 'stuck')).replicas).to.deep.equal([2, 3, 1]);

      await c.startBroker(3);
      const done = await checkFor(async () => {
        const p = await partition0(admin, 'stuck');
        return p.ongoing.length === 0 && p.replicas.join() === '2,3' ? p : null;
      }, 30_000, 50);
      expect([2, 3]).to.include(done.leader);
      expect([...done.isr].sort()).to.deep.equal([2, 3]);

      const got = await consumeValues(kafkaClient(await c.kafkaBootstrap(), 'reassign-stuck-readers'), 'stuck', values.length, 'reassign-stuck-readers');
      expect(got).to.deep.equal(values);
    } finally {
      await admin.disconnect();
    }
  });
});
