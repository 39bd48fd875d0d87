/**
 * What the share consumer tests share: polling until enough came, and a one-broker cluster
 * fixture (mocha hooks: the cluster for the describe block, a topic of one partition for each
 * test, every share consumer made through it closed after each test) with the lookups they make
 * of broker 1's share partition manager.
 */
import { expect } from 'chai';
import type { DescribedSharePartition, SharePartitionsDescription } from '../../actors/share-partition/messages.js';
import { sharePartitionManagerPath } from '../../actors/share-partition/messages.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import type { ShareConsumer, ShareRecord } from '../../src/client/share-consumer.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from './check-for.js';
import { TestCluster, fastFailover } from './cluster.js';

/** Polls until `until` holds of everything received (or the time is up); returns it all. */
export async function pollUntil(consumer: ShareConsumer, until: (all: ShareRecord[]) => boolean, timeoutMs = 15_000, each?: (records: ShareRecord[]) => void): Promise<ShareRecord[]> {
  const all: ShareRecord[] = [];
  const deadline = Date.now() + timeoutMs;
  while (!until(all) && Date.now() < deadline) {
    const got = await consumer.poll(200);
    all.push(...got);
    each?.(got);
  }
  return all;
}

export const values = (records: readonly ShareRecord[]) => records.map((r) => String(r.value));

export interface OneBrokerShareFixture {
  readonly c: TestCluster;
  readonly samsa: SamsaClient;
  /** This test's topic (one partition, led by broker 1). */
  readonly topic: string;
  /** A share consumer of `groupId` (fetch.max.wait.ms 200 unless `config` says), closed after the test. */
  consumer(groupId: string, config?: Record<string, unknown>): ShareConsumer;
  /** The group's share partition of `topic` (this test's by default) on broker 1, if it has one. */
  sharePartition(groupId: string, topic?: string): Promise<DescribedSharePartition | undefined>;
  /** Subscribes (to this test's topic unless told) and polls until broker 1 has the group's share partition of each. */
  start(sc: ShareConsumer, topics?: string[]): Promise<void>;
}

/**
 * Registers the hooks of a one-broker cluster with `brokerConfig` (and the controller's
 * `controllerConfig`), the offsets and share state topics of one partition and one replica.
 */
export function oneBrokerShareFixture(topicPrefix: string, brokerConfig: Record<string, unknown>, controllerConfig?: Record<string, unknown>): OneBrokerShareFixture {
  let c: TestCluster | undefined;
  let samsa: SamsaClient | undefined;
  let topicNo = 0;
  let topic = '';
  const open: ShareConsumer[] = [];

  before(async () => {
    const config = { 'share.coordinator.state.topic.num.partitions': 1, 'share.coordinator.state.topic.replication.factor': 1, 'offsets.topic.num.partitions': 1, 'offsets.topic.replication.factor': 1, ...brokerConfig };
    c = await TestCluster.start({ brokers: 1, ...fastFailover(config, controllerConfig) });
    samsa = c.samsa();
  });
  after(async () => {
    await c?.stop();
  });
  beforeEach(async () => {
    topic = `${topicPrefix}-${++topicNo}`;
    await c!.client.createTopic(topic, 1, 1);
    await c!.client.waitForLeaders(topic);
  });
  afterEach(async () => {
    for (const consumer of open.splice(0)) await consumer.close().catch(() => undefined);
  });

  const sharePartition = async (groupId: string, of = topic): Promise<DescribedSharePartition | undefined> => {
    const r = await c!.system().ask<SharePartitionsDescription>({ node: 'b1', path: sharePartitionManagerPath(1) }, { type: 'DescribeSharePartitions', groupId }, { timeoutMs: 5_000 });
    if (isFailure(r)) throw new Error(r.message);
    return r.partitions.find((p) => p.topic === of && p.partition === 0);
  };

  return {
    get c() {
      return c!;
    },
    get samsa() {
      return samsa!;
    },
    get topic() {
      return topic;
    },
    consumer(groupId, config = {}) {
      const sc = samsa!.shareConsumer({ groupId, 'fetch.max.wait.ms': 200, ...config });
      open.push(sc);
      return sc;
    },
    sharePartition,
    async start(sc, topics = [topic]) {
      await sc.subscribe(topics);
      for (const t of topics) {
        await checkFor(async () => {
          expect(await sc.poll(100)).to.deep.equal([]);
          return (await sharePartition(sc.groupId, t)) !== undefined;
        }, 15_000, 0);
      }
    },
  };
}
