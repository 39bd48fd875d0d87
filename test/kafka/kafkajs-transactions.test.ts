/**
 * KafkaJS transactional producers (KIP-98) against samsa, unchanged, as a user's code would use
 * them: a committed transaction is read by a read_committed consumer (KafkaJS's default); an
 * aborted one never reaches read_committed consumers but does reach read_uncommitted ones; a
 * second producer with the same transactional id fences the first; a transaction left open past
 * its timeout is aborted by the coordinator, fencing its producer; a consume-transform-produce
 * loop commits its consumer group's offsets inside its transactions (sendOffsets: AddOffsetsToTxn
 * and TxnOffsetCommit), which count only when the transaction commits.
 */
import { expect } from 'chai';
import { Kafka, logLevel, type Consumer, type KafkaConfig, type Producer } from 'kafkajs';
import { checkFor } from '../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';

function kafkaClient(brokers: string[], extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    clientId: 'kafkajs-txn',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries: 10, initialRetryTime: 50, maxRetryTime: 500 },
    ...extra,
  });
}

function errorTypes(err: unknown): string[] {
  const e = err as { type?: string; name?: string; originalError?: unknown; errors?: unknown[] };
  const out: string[] = [];
  if (e?.type) out.push(e.type);
  if (e?.name) out.push(e.name);
  if (e?.originalError) out.push(...errorTypes(e.originalError));
  for (const x of e?.errors ?? []) out.push(...errorTypes(x));
  return out;
}

/** A group consumer of `topic` from the beginning that collects record values. */
async function collect(kafka: Kafka, topic: string, groupId: string, readUncommitted = false): Promise<{ consumer: Consumer; values: string[] }> {
  const consumer = kafka.consumer({ groupId, readUncommitted, sessionTimeout: 6_000, heartbeatInterval: 200, maxWaitTimeInMs: 100, retry: { retries: 5, initialRetryTime: 50, maxRetryTime: 500 } });
  const values: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void values.push(String(message.value)) });
  return { consumer, values };
}

describe('KafkaJS transactions against samsa (3 in-process brokers)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let kafka: Kafka;
  const open: (Producer | Consumer)[] = [];

  before(async () => {
    c = await startKafkaCluster({
      brokers: 3,
      brokerConfig: { 'transaction.state.log.num.partitions': 3, 'transaction.abort.timed.out.transaction.cleanup.interval.ms': 100 },
    });
    kafka = kafkaClient(c.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: ['tx-commit', 'tx-abort', 'tx-fence', 'tx-timeout', 'tx-in', 'tx-out'].map((topic) => ({ topic, numPartitions: 2, replicationFactor: 3 })),
      waitForLeaders: true,
    });
    await admin.disconnect();
  });
  afterEach(async () => {
    for (const x of open.splice(0)) await x.disconnect().catch(() => undefined);
  });
  after(async () => {
    await c?.stop();
  });

  async function txnProducer(transactionalId: string, transactionTimeout?: number): Promise<Producer> {
    const p = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, ...(transactionTimeout ? { transactionTimeout } : {}) });
    open.push(p);
    await p.connect();
    return p;
  }

  it('a committed transaction is read by a read_committed consumer', async () => {
    const producer = await txnProducer('txn-commit');
    const txn = await producer.transaction();
    await txn.send({ topic: 'tx-commit', messages: [{ key: 'a', value: 'c1' }, { key: 'b', value: 'c2' }, { key: 'c', value: 'c3' }] });
    await txn.send({ topic: 'tx-commit', messages: [{ key: 'a', value: 'c4' }] });
    await txn.commit();
    const { consumer, values } = await collect(kafka, 'tx-commit', 'rc-commit');
    open.push(consumer);
    await checkFor(() => values.length >= 4, 15_000, 20);
    expect([...values].sort()).to.deep.equal(['c1', 'c2', 'c3', 'c4']);
  });

  it('an aborted transaction never reaches read_committed consumers, and does reach read_uncommitted ones', async () => {
    const producer = await txnProducer('txn-abort');
    const aborted = await producer.transaction();
    await aborted.send({ topic: 'tx-abort', messages: [{ key: 'a', value: 'aborted-1' }, { key: 'b', value: 'aborted-2' }] });
    await aborted.abort();
    const committed = await producer.transaction();
    await committed.send({ topic: 'tx-abort', messages: [{ key: 'a', value: 'kept-1' }, { key: 'b', value: 'kept-2' }] });
    await committed.commit();

    const rc = await collect(kafka, 'tx-abort', 'rc-abort');
    const ru = await collect(kafka, 'tx-abort', 'ru-abort', true);
    open.push(rc.consumer, ru.consumer);
    await checkFor(() => rc.values.length >= 2 && ru.values.length >= 4, 15_000, 20);
    expect([...rc.values].sort()).to.deep.equal(['kept-1', 'kept-2']);
    expect([...ru.values].sort()).to.deep.equal(['aborted-1', 'aborted-2', 'kept-1', 'kept-2']);
  });

  it('a second producer with the same transactional id fences the first: its open transaction is aborted, its commit refused', async () => {
    const first = await txnProducer('txn-fence');
    const txn = await first.transaction();
    await txn.send({ topic: 'tx-fence', messages: [{ key: 'a', value: 'zombie' }] });
    // KafkaJS sends the transactional InitProducerId when the first transaction begins
    const second = await txnProducer('txn-fence');
    const txn2 = await second.transaction();
    const err = await txn.commit().then(() => null, (e: unknown) => e);
    expect(err, 'the fenced producer commits').to.not.equal(null);
    expect(errorTypes(err)).to.satisfy((types: string[]) => types.includes('INVALID_PRODUCER_EPOCH') || types.includes('PRODUCER_FENCED'));

    await txn2.send({ topic: 'tx-fence', messages: [{ key: 'a', value: 'successor' }] });
    await txn2.commit();
    const rc = await collect(kafka, 'tx-fence', 'rc-fence');
    open.push(rc.consumer);
    await checkFor(() => rc.values.includes('successor'), 15_000, 20);
    expect(rc.values).to.deep.equal(['successor']);
  });

  it('a transaction left open past its timeout is aborted by the coordinator; its producer is fenced', async () => {
    const producer = await txnProducer('txn-timeout', 1_000);
    const txn = await producer.transaction();
    await txn.send({ topic: 'tx-timeout', messages: [{ key: 'a', value: 'left-open' }] });
    // a read_uncommitted consumer sees the record, a read_committed one waits for the outcome
    const rc = await collect(kafka, 'tx-timeout', 'rc-timeout');
    const ru = await collect(kafka, 'tx-timeout', 'ru-timeout', true);
    open.push(rc.consumer, ru.consumer);
    await checkFor(() => ru.values.includes('left-open'), 15_000, 20);
    // the coordinator aborts it: records written after it reach read_committed consumers, it never does
    const other = await txnProducer('txn-timeout-other');
    const next = await other.transaction();
    await next.send({ topic: 'tx-timeout', messages: [{ key: 'a', value: 'after' }] });
    await next.commit();
    await checkFor(() => rc.values.includes('after'), 15_000, 20);
    expect(rc.values).to.deep.equal(['after']);
    const err = await txn.commit().then(() => null, (e: unknown) => e);
    expect(errorTypes(err)).to.satisfy((types: string[]) => types.includes('INVALID_PRODUCER_EPOCH') || types.includes('PRODUCER_FENCED'));
  });

  it('sendOffsets commits the consumer group\'s offsets with the transaction, and an abort leaves them where they were', async () => {
    const producer = await txnProducer('txn-eos');
    const admin = kafka.admin();
    await admin.connect();
    try {
      const committed = async () => {
        const r = await admin.fetchOffsets({ groupId: 'eos-app', topics: ['tx-in'] });
        return Object.fromEntries(r[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
      };
      const step = async (offset: number, commit: boolean) => {
        const txn = await producer.transaction();
        await txn.send({ topic: 'tx-out', messages: [{ key: 'k', value: `out-${offset}` }] });
        await txn.sendOffsets({ consumerGroupId: 'eos-app', topics: [{ topic: 'tx-in', partitions: [{ partition: 0, offset: String(offset) }, { partition: 1, offset: String(offset + 1) }] }] });
        await (commit ? txn.commit() : txn.abort());
      };
      await step(5, true);
      await checkFor(async () => (await committed())[0] === 5, 10_000, 20);
      expect(await committed()).to.deep.equal({ 0: 5, 1: 6 });
      await step(9, false);
      await step(12, true);
      await checkFor(async () => (await committed())[0] === 12, 10_000, 20);
      expect(await committed()).to.deep.equal({ 0: 12, 1: 13 });
      // the output: only what the committed transactions wrote
      const rc = await collect(kafka, 'tx-out', 'rc-eos');
      open.push(rc.consumer);
      await checkFor(() => rc.values.length >= 2, 15_000, 20);
      expect([...rc.values].sort()).to.deep.equal(['out-12', 'out-5']);
    } finally {
      await admin.disconnect();
    }
  });
});
