/**
 * What the consumer group tests of the samsa client share: a cluster config with fast groups
 * (no initial rebalance delay, short sessions, 100 ms KIP-848 heartbeats), records produced for
 * a group to read (acks all, spread over the partitions when a count is given), and the values
 * its members have seen.
 */
import type { EachMessagePayload } from '../../src/client/consumer.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { fastFailover } from './cluster.js';

/** Broker configs for consumer group tests: fast failover, rebalances at once, short sessions. */
export const FAST_GROUPS = fastFailover({
  'group.initial.rebalance.delay.ms': 0,
  'group.min.session.timeout.ms': 100,
  'offsets.topic.num.partitions': 5,
  'group.consumer.heartbeat.interval.ms': 100,
  'group.consumer.min.heartbeat.interval.ms': 100,
  'group.consumer.session.timeout.ms': 1_500,
  'group.consumer.min.session.timeout.ms': 1_500,
});

/**
 * Consumer group bounds below Kafka's (45-60 s, 5-15 s), for brokers and controller alike, with
 * defaults of 30 s and 3 s: group configs tests set small values within them.
 */
export const LOW_GROUP_BOUNDS = {
  'group.consumer.min.session.timeout.ms': 1_000,
  'group.consumer.session.timeout.ms': 30_000,
  'group.consumer.min.heartbeat.interval.ms': 100,
  'group.consumer.heartbeat.interval.ms': 3_000,
};

export async function produceValues(samsa: SamsaClient, topic: string, values: string[], partitions?: number): Promise<void> {
  const producer = samsa.producer({ acks: 'all' });
  await producer.connect();
  await producer.send({ topic, messages: values.map((v, i) => ({ value: v, ...(partitions ? { partition: i % partitions } : {}) })) });
  await producer.disconnect();
}

/** Every value the members have seen, member by member. */
export const valuesOf = (members: readonly { seen: readonly EachMessagePayload[] }[]): string[] => members.flatMap((m) => m.seen.map((p) => String(p.message.value)));
