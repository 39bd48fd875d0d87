/**
 * Fetching from the closest replica (KIP-392) over the Kafka protocol: three brokers on racks a,
 * b and c with replica.selector.class set to Kafka's RackAwareReplicaSelector. The leader answers
 * a Fetch v11+ from a consumer of another rack with that rack's follower as preferred read
 * replica and no records; the follower serves such a consumer up to its high watermark; a Fetch
 * before v11 (no client metadata) stays with the leader. KafkaJS with `rackId` follows the
 * preferred replica and reads every record.
 */
import { expect } from 'chai';
import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import { RACK_AWARE_REPLICA_SELECTOR } from '../../actors/partition-replica/read-replica-selector.js';
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches } from '../../src/protocol/record-batch.js';
import { checkFor } from '../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';
import { KafkaCaller, consumerFetchBody } from '../helpers/raw-kafka.js';

const TOPIC = 'near';

describe('Kafka API: fetching from the closest replica (KIP-392)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  const callers = new Map<number, KafkaCaller>();
  let kafka: Kafka;
  const logs: LogEntry[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 3, racks: ['a', 'b', 'c'], brokerConfig: { 'replica.selector.class': RACK_AWARE_REPLICA_SELECTOR, 'offsets.topic.replication.factor': 1 } });
    for (const [i, endpoint] of c.bootstrap.entries()) callers.set(i + 1, await KafkaCaller.connect(endpoint));
    kafka = new Kafka({ clientId: 'kip-392', brokers: c.bootstrap, logLevel: logLevel.INFO, logCreator: () => (entry) => void logs.push(entry), retry: { retries: 5, initialRetryTime: 50, maxRetryTime: 500 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, replicaAssignment: [{ partition: 0, replicas: [1, 2, 3] }] }], waitForLeaders: true });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: 20 }, (_, i) => ({ value: `v${i}` })) });
    await producer.disconnect();
    // every replica in sync, as the leader sees it
    await checkFor(async () => {
      const p = (await fetch(2, 11, 0, 'b')).responses[0].partitions[0];
      return p.errorCode === ErrorCode.NONE && p.highWatermark === 20;
    }, 20_000, 20);
  });
  after(async () => {
    for (const k of callers.values()) k.end();
    await c?.stop();
  });

  function fetch(broker: number, version: number, fetchOffset: number, rackId = '') {
    return callers.get(broker)!.call(ApiKeys.Fetch, version, consumerFetchBody(TOPIC, 0, fetchOffset, { rackId }));
  }
  const values = (records: Buffer | null) => (records ? decodeRecordBatches(records).flatMap((b) => b.records.map((r) => String(r.value))) : []);

  it('the leader names the follower of the consumer\'s rack and sends no records; in its own rack or without a rack it serves', async () => {
    const toB = (await fetch(1, 11, 5, 'b')).responses[0].partitions[0];
    expect(toB).to.include({ errorCode: ErrorCode.NONE, preferredReadReplica: 2, highWatermark: 20 });
    expect(values(toB.records)).to.deep.equal([]);
    for (const rack of ['a', '', 'x']) {
      const here = (await fetch(1, 11, 5, rack)).responses[0].partitions[0];
      expect(here.preferredReadReplica, `rack '${rack}'`).to.equal(-1);
      expect(values(here.records), `rack '${rack}'`).to.include('v5');
    }
  });

  it('a follower serves a consumer with client metadata (v11+) up to its high watermark, and refuses one without (v10)', async () => {
    const fromB = (await fetch(2, 12, 0, 'b')).responses[0].partitions[0];
    expect(fromB).to.include({ errorCode: ErrorCode.NONE, highWatermark: 20, preferredReadReplica: -1 });
    expect(values(fromB.records)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `v${i}`));
    expect((await fetch(3, 10, 0)).responses[0].partitions[0].errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  });

  it('KafkaJS with rackId follows the preferred read replica and reads every record', async () => {
    const consumer = kafka.consumer({ groupId: 'near-readers', rackId: 'c', sessionTimeout: 6_000, heartbeatInterval: 100, maxWaitTimeInMs: 100 });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    try {
      await checkFor(() => seen.length >= 20, 20_000, 20);
      expect(seen).to.deep.equal(Array.from({ length: 20 }, (_, i) => `v${i}`));
      expect(logs.some((l) => /Preferred read replica is now 3/.test(l.log.message)), 'KafkaJS was sent to broker 3').to.equal(true);
    } finally {
      await consumer.disconnect();
    }
  });
});
