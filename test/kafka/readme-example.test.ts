/**
 * The README's "Use samsa as the Kafka in your test suite" example, kept runnable: the same code
 * (importing from the package entry point instead of 'samsa').
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster, type ClusterHandle } from '../../src/index.js';

describe('README: samsa as the Kafka in a test suite', function () {
  let cluster: ClusterHandle;
  let kafka: Kafka;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-'));
    cluster = await startCluster(
      {
        clusterId: 'my-tests',
        logLevel: 'silent',
        nodes: [{ id: 'main', kind: 'inproc' }],
        controller: { node: 'main', metadataDir: 'controller' },
        brokers: [{ id: 1, node: 'main', logDir: 'broker-1', kafka: { host: '127.0.0.1', port: 0 }, config: { 'group.initial.rebalance.delay.ms': 0 } }],
        topics: [{ name: 'orders', partitions: 3, replicationFactor: 1 }],
      },
      { baseDir: dir },
    );
    kafka = new Kafka({ clientId: 'my-service', brokers: await cluster.kafkaBrokers(), logLevel: logLevel.NOTHING });
  });

  after(async () => {
    await cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips an order through KafkaJS', async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'orders', messages: [{ key: 'order-1', value: JSON.stringify({ total: 42 }) }] });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: 'billing' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    const seen = await new Promise<string>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(String(message.value)) });
    });
    await consumer.disconnect();
    expect(JSON.parse(seen)).to.deep.equal({ total: 42 });
  });
});
