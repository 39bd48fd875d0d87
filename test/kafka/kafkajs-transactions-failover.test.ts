/**
 * KafkaJS transactions through the death of their coordinator: two transactional producers have
 * open transactions when the broker leading __transaction_state (one partition here, so both ids
 * live there) is killed. Another broker takes the partition, loads both transactions from its
 * replica, commits the one whose producer asks it to, and aborts the other once its timeout has
 * passed; read_committed consumers see exactly the committed records, read_uncommitted ones all.
 */
import { expect } from 'chai';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import type { TxnCoordinatorDescription } from '../../actors/txn-coordinator/messages.js';
import { txnCoordinatorPath } from '../../actors/txn-coordinator/messages.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const FAST = fastFailover({
  'group.initial.rebalance.delay.ms': 0,
  'offsets.topic.num.partitions': 1,
  'transaction.state.log.num.partitions': 1,
  'transaction.state.log.replication.factor': 3,
  'transaction.state.log.min.isr': 2,
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': 100,
});
const TOPIC = 'fo-txn';
const RETRY = { retries: 20, initialRetryTime: 50, maxRetryTime: 500 };

function errorTypes(err: unknown): string[] {
  const e = err as { type?: string; name?: string; originalError?: unknown };
  return [e?.type, e?.name, ...(e?.originalError ? errorTypes(e.originalError) : [])].filter((x): x is string => typeof x === 'string');
}

describe('KafkaJS transactions through the death of their coordinator (in-process brokers)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  const open: (Producer | Consumer)[] = [];

  before(async () => {
    c = await TestCluster.start({ brokers: 3, kafka: true, ...FAST });
  });
  after(async () => {
    for (const x of open) await x.disconnect().catch(() => undefined);
    await c?.stop();
  });

  /** What the transaction coordinator of broker `id` holds (null: it does not answer). */
  async function coordinatorOf(id: number): Promise<TxnCoordinatorDescription | null> {
    const r = await c.system().ask<TxnCoordinatorDescription>({ node: `b${id}`, path: txnCoordinatorPath(id) }, { type: 'DescribeTxnCoordinator' }, { timeoutMs: 2_000 });
    return r.type === 'TxnCoordinatorDescription' ? r : null;
  }

  it('another broker takes __transaction_state: it commits the transaction its producer commits and aborts the one left open past its timeout', async () => {
    const kafka = new Kafka({ clientId: 'txn-failover', brokers: await c.kafkaBootstrap(), logLevel: logLevel.NOTHING, connectionTimeout: 1_000, requestTimeout: 10_000, retry: RETRY });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }], waitForLeaders: true });
    await admin.disconnect();

    const producer = async (transactionalId: string, transactionTimeout: number): Promise<Producer> => {
      const p = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout, retry: RETRY });
      open.push(p);
      await p.connect();
      return p;
    };
    const committer = await producer('fo-commit', 60_000);
    const abandoned = await producer('fo-abandon', 3_000);
    const toCommit = await committer.transaction();
    const toAbandon = await abandoned.transaction();
    await toCommit.send({ topic: TOPIC, messages: [{ key: 'a', value: 'commit-1' }, { key: 'b', value: 'commit-2' }] });
    await toAbandon.send({ topic: TOPIC, messages: [{ key: 'a', value: 'abandon-1' }, { key: 'b', value: 'abandon-2' }] });

    // the broker coordinating both (the leader of __transaction_state-0) dies
    const holders = (await Promise.all([1, 2, 3].map(async (id) => ({ id, d: await coordinatorOf(id) })))).filter((x) => x.d?.partitions.some((p) => p.partition === 0));
    expect(holders).to.have.lengthOf(1);
    const victim = holders[0]!.id;
    expect(holders[0]!.d!.transactions.map((t) => [t.transactionalId, t.state])).to.deep.equal([
      ['fo-abandon', 'Ongoing'],
      ['fo-commit', 'Ongoing'],
    ]);
    await c.killBroker(victim);

    // another broker loads the partition and finds both transactions open
    const survivors = [1, 2, 3].filter((id) => id !== victim);
    const successor = await checkFor(async () => {
      for (const id of survivors) {
        const d = await coordinatorOf(id);
        const p = d?.partitions.find((x) => x.partition === 0);
        if (d && p?.status === 'Active' && d.transactions.some((t) => t.transactionalId === 'fo-commit')) return { id, d };
      }
      return null;
    }, 20_000, 50);
    expect(successor.d.transactions.find((t) => t.transactionalId === 'fo-commit')!.state).to.equal('Ongoing');

    await toCommit.commit();
    // the abandoned transaction is aborted by its new coordinator once its timeout has passed
    await checkFor(async () => (await coordinatorOf(successor.id))?.transactions.find((t) => t.transactionalId === 'fo-abandon')?.state === 'CompleteAbort', 20_000, 50);
    const err = await toAbandon.commit().then(() => null, (e: unknown) => e);
    expect(errorTypes(err)).to.satisfy((types: string[]) => types.includes('INVALID_PRODUCER_EPOCH') || types.includes('PRODUCER_FENCED'));

    const collect = async (groupId: string, readUncommitted: boolean): Promise<string[]> => {
      const consumer = kafka.consumer({ groupId, readUncommitted, sessionTimeout: 6_000, heartbeatInterval: 200, maxWaitTimeInMs: 100, retry: RETRY });
      open.push(consumer);
      const values: string[] = [];
      await consumer.connect();
      await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void values.push(String(message.value)) });
      return values;
    };
    const committed = await collect('fo-rc', false);
    const everything = await collect('fo-ru', true);
    await checkFor(() => committed.length >= 2 && everything.length >= 4, 20_000, 20);
    expect([...committed].sort()).to.deep.equal(['commit-1', 'commit-2']);
    expect([...everything].sort()).to.deep.equal(['abandon-1', 'abandon-2', 'commit-1', 'commit-2']);
  });
});
