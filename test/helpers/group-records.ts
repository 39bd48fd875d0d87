/**
 * What the consumer group tests of the samsa client share: records produced for a group to
 * read (acks all, spread over the partitions when a count is given), and the values its members
 * have seen.
 */
import type { EachMessagePayload } from '../../src/client/consumer.js';
import type { SamsaClient } from '../../src/client/samsa.js';

export async function produceValues(samsa: SamsaClient, topic: string, values: string[], partitions?: number): Promise<void> {
  const producer = samsa.producer({ acks: 'all' });
  await producer.connect();
  await producer.send({ topic, messages: values.map((v, i) => ({ value: v, ...(partitions ? { partition: i % partitions } : {}) })) });
  await producer.disconnect();
}

/** Every value the members have seen, member by member. */
export const valuesOf = (members: readonly { seen: readonly EachMessagePayload[] }[]): string[] => members.flatMap((m) => m.seen.map((p) => String(p.message.value)));
