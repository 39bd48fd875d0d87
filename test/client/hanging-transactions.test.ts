/**
 * client/hanging-transactions: which open transactions hang (no transactional id for the
 * producer, an id its coordinator no longer knows, an id whose transaction does not name the
 * partition) and the search around it against a stand-in admin: the partitions asked (one, a
 * topic's, a broker's replicas), the age filter, the lookups skipped when nothing is old enough,
 * and the errors that stop it.
 */
import { expect } from 'chai';
import type { ActiveProducer } from '../../actors/partition-replica/messages.js';
import type { Admin, PartitionProducers, TransactionDescription, TransactionListing } from '../../src/client/admin.js';
import { SamsaError } from '../../src/client/errors.js';
import { DEFAULT_MAX_TRANSACTION_TIMEOUT_MS, findHangingTransactions, hangingTransactions, type OpenTransaction } from '../../src/client/hanging-transactions.js';
import type { TopicMetadata } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const NOW = 10_000_000;
const OLD = NOW - DEFAULT_MAX_TRANSACTION_TIMEOUT_MS - 1;

function producer(producerId: number, currentTxnStartOffset: number, lastTimestamp = OLD): ActiveProducer {
  return { producerId, producerEpoch: 0, lastSequence: 3, lastTimestamp, coordinatorEpoch: -1, currentTxnStartOffset };
}

function described(transactionalId: string, producerId: number, topicPartitions: { topic: string; partition: number }[]): TransactionDescription {
  return { transactionalId, errorCode: ErrorCode.NONE, state: 'Ongoing', coordinatorId: 1, producerId, producerEpoch: 0, transactionTimeoutMs: 60_000, transactionStartTimeMs: OLD, topicPartitions };
}

describe('client/hanging-transactions: hangingTransactions', () => {
  const open = (topic: string, partition: number, producerId: number): OpenTransaction => ({ topic, partition, producer: producer(producerId, 5) });

  it('hangs when no coordinator lists a transactional id for the producer', () => {
    const t = open('a', 0, 7);
    expect(hangingTransactions([t], new Map(), new Map())).to.deep.equal([t]);
  });

  it("hangs when the id's coordinator no longer knows it", () => {
    const t = open('a', 0, 7);
    expect(hangingTransactions([t], new Map([[7, 'w']]), new Map([['w', null]]))).to.deep.equal([t]);
  });

  it("does not hang while the id's transaction names the partition, and hangs where it does not", () => {
    const here = open('a', 0, 7);
    const elsewhere = open('a', 1, 7);
    const otherTopic = open('b', 0, 7);
    const d = described('w', 7, [{ topic: 'a', partition: 0 }]);
    expect(hangingTransactions([here, elsewhere, otherTopic], new Map([[7, 'w']]), new Map([['w', d]]))).to.deep.equal([elsewhere, otherTopic]);
  });
});

/** An admin that answers from fixed tables and records what it was asked. */
function stubAdmin(tables: { topics: TopicMetadata[]; producers: Map<string, PartitionProducers[]>; listings: TransactionListing[]; descriptions: TransactionDescription[] }) {
  const asked: { describeProducers: { topic: string; partitions: number[] | undefined; brokerId: number | undefined }[]; listed: number[][]; described: string[][] } = { describeProducers: [], listed: [], described: [] };
  const admin = {
    async fetchTopicMetadata(opts: { topics?: string[] }) {
      return { topics: tables.topics.filter((t) => !opts.topics || opts.topics.includes(t.name)) };
    },
    async describeProducers(topic: string, partitions?: number[], opts: { brokerId?: number } = {}) {
      asked.describeProducers.push({ topic, partitions, brokerId: opts.brokerId });
      return { partitions: (tables.producers.get(topic) ?? []).filter((p) => !partitions || partitions.includes(p.partition)) };
    },
    async listTransactions(opts: { producerIds?: number[] }) {
      asked.listed.push(opts.producerIds ?? []);
      return { transactions: tables.listings.filter((l) => opts.producerIds?.includes(l.producerId)), unknownStateFilters: [] };
    },
    async describeTransactions(ids: string[]) {
      asked.described.push(ids);
      return { transactions: ids.map((id) => tables.descriptions.find((d) => d.transactionalId === id) ?? { ...described(id, -1, []), errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND }) };
    },
  };
  return { admin: admin as unknown as Admin, asked };
}

function topic(name: string, replicas: number[][]): TopicMetadata {
  return { name, topicId: name, internal: false, config: {}, partitions: replicas.map((r, partition) => ({ topic: name, partition, replicas: r, isr: r, leader: r[0]!, leaderEpoch: 0, partitionEpoch: 0 })) };
}

function partition(p: number, producers: ActiveProducer[], errorCode: number = ErrorCode.NONE): PartitionProducers {
  return { partition: p, errorCode, leaderId: 1, brokerId: 1, producers };
}

describe('client/hanging-transactions: findHangingTransactions', () => {
  const topics = [topic('orders', [[1, 2], [2, 3], [3, 1]]), topic('audit', [[2, 3]])];

  it("searches a broker's replicas on it, keeps transactions older than the timeout, and asks the coordinators about their producers only", async () => {
    const young = producer(30, 9, NOW - 1_000);
    const { admin, asked } = stubAdmin({
      topics,
      producers: new Map([
        ['orders', [partition(0, [producer(10, 4), producer(11, -1), young]), partition(2, [producer(12, 40)])]],
        ['audit', [partition(0, [producer(13, 1)])]],
      ]),
      listings: [
        { transactionalId: 'w12', producerId: 12, state: 'Ongoing', coordinatorId: 1 },
        { transactionalId: 'w99', producerId: 99, state: 'Ongoing', coordinatorId: 1 },
      ],
      descriptions: [described('w12', 12, [{ topic: 'orders', partition: 2 }])],
    });
    const hanging = await findHangingTransactions(admin, { brokerId: 1 }, NOW);
    // broker 1 has orders-0 and orders-2, not orders-1 nor audit-0
    expect(asked.describeProducers).to.deep.equal([{ topic: 'orders', partitions: [0, 2], brokerId: 1 }]);
    // 11 has no open transaction and 30's is too young: only 10 and 12 are looked up
    expect(asked.listed).to.deep.equal([[10, 12]]);
    expect(asked.described).to.deep.equal([['w12']]);
    // 10 has no transactional id; 12's transaction names orders-2
    expect(hanging.map((t) => [t.topic, t.partition, t.producer.producerId])).to.deep.equal([['orders', 0, 10]]);
  });

  it('searches one partition, or a topic, and takes a shorter timeout', async () => {
    const tables = { topics, producers: new Map([['orders', [partition(0, [producer(10, 4, NOW - 5_000)]), partition(1, [producer(14, 2, NOW - 5_000)])]]]), listings: [], descriptions: [] };
    const one = stubAdmin(tables);
    expect(await findHangingTransactions(one.admin, { topic: 'orders', partition: 1, maxTransactionTimeoutMs: 1_000 }, NOW)).to.have.length(1);
    expect(one.asked.describeProducers).to.deep.equal([{ topic: 'orders', partitions: [1], brokerId: undefined }]);
    const all = stubAdmin(tables);
    expect((await findHangingTransactions(all.admin, { topic: 'orders', maxTransactionTimeoutMs: 1_000 }, NOW)).map((t) => t.partition)).to.deep.equal([0, 1]);
    expect(all.asked.describeProducers).to.deep.equal([{ topic: 'orders', partitions: [0, 1, 2], brokerId: undefined }]);
    // under the default 15 minutes they are young: nothing else is asked
    const young = stubAdmin(tables);
    expect(await findHangingTransactions(young.admin, { topic: 'orders' }, NOW)).to.deep.equal([]);
    expect(young.asked.listed).to.deep.equal([]);
  });

  it('a transactional id its coordinator no longer knows hangs; another error of the coordinator stops the search', async () => {
    const base = { topics, producers: new Map([['orders', [partition(0, [producer(10, 4)])]]]), listings: [{ transactionalId: 'gone', producerId: 10, state: 'Ongoing', coordinatorId: 1 }] };
    const gone = stubAdmin({ ...base, descriptions: [] });
    expect(await findHangingTransactions(gone.admin, { topic: 'orders', partition: 0 }, NOW)).to.have.length(1);
    const loading = stubAdmin({ ...base, descriptions: [{ ...described('gone', 10, []), errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS }] });
    const e = await findHangingTransactions(loading.admin, { topic: 'orders', partition: 0 }, NOW).catch((x: unknown) => x);
    expect(e).to.be.instanceOf(SamsaError).with.property('errorCode', ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  });

  it('stops on a partition that cannot be asked, an unknown topic, and a search it cannot limit', async () => {
    const { admin } = stubAdmin({ topics, producers: new Map([['orders', [partition(0, [], ErrorCode.NOT_LEADER_OR_FOLLOWER)]]]), listings: [], descriptions: [] });
    const notLeader = await findHangingTransactions(admin, { topic: 'orders', partition: 0 }, NOW).catch((x: unknown) => x);
    expect(notLeader).to.be.instanceOf(SamsaError).with.property('errorCode', ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect((notLeader as Error).message).to.contain('orders-0 on its leader');
    const unknown = await findHangingTransactions(admin, { topic: 'nope' }, NOW).catch((x: unknown) => x);
    expect(unknown).to.be.instanceOf(SamsaError).with.property('errorCode', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    for (const [opts, says] of [
      [{}, /give a topic or a broker id/],
      [{ partition: 0, brokerId: 1 }, /a partition needs its topic/],
      [{ topic: 'orders', partition: -1 }, /partition -1/],
      [{ brokerId: 1.5 }, /broker id 1.5/],
      [{ topic: 'orders', maxTransactionTimeoutMs: -1 }, /maxTransactionTimeoutMs/],
    ] as const) {
      const e = await findHangingTransactions(admin, opts, NOW).catch((x: unknown) => x);
      expect(e, JSON.stringify(opts)).to.be.instanceOf(SamsaError).with.property('errorCode', ErrorCode.INVALID_REQUEST);
      expect((e as Error).message).to.match(says);
    }
  });
});
