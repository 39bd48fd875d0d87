/**
 * samsa's transactional producer (transactionalId, KafkaJS-shaped: transaction(), send,
 * sendOffsets, commit, abort) on a real in-process cluster of 3 brokers: committed records reach
 * read_committed consumers and aborted ones never do (read_uncommitted ones see both); offsets
 * sent with a transaction count only when it commits; a second producer with the same id fences
 * the first; a send the brokers refuse leaves the transaction to be aborted, not committed; the
 * admin describes and lists transactions from their coordinators; offsets sent with a
 * consumer's group metadata are refused once the group moved on (KIP-447);
 * configs and calls Kafka refuses are refused. All of it with the cluster's transaction.version
 * at 0 and at 2 (KIP-890 part 2), where the producer sends no AddPartitionsToTxn nor
 * AddOffsetsToTxn and each EndTxn (v5) moves it to a bumped epoch, checked below.
 */
import { expect } from 'chai';
import { ProducerConfigError } from '../../actors/producer/producer-config.js';
import type { Consumer } from '../../src/client/consumer.js';
import { SamsaError } from '../../src/client/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { Producer } from '../../src/client/producer.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

/** Sets the cluster's transaction.version and waits until a producer's metadata would see it. */
async function finalizeTransactionVersion(samsa: SamsaClient, level: number): Promise<void> {
  const admin = samsa.admin();
  await admin.connect();
  try {
    const current = (await admin.describeFeatures()).finalizedFeatures['transaction.version']?.maxVersionLevel ?? 0;
    await admin.updateFeatures({ 'transaction.version': level < current ? { maxVersionLevel: level, upgradeType: 'safe-downgrade' } : { maxVersionLevel: level } });
    await checkFor(async () => ((await admin.describeFeatures()).finalizedFeatures['transaction.version']?.maxVersionLevel ?? 0) === level, 10_000, 20);
  } finally {
    await admin.disconnect();
  }
}

const CONSUMER_CFG = { 'session.timeout.ms': 1_500, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 };

// each run twice: transaction.version 0 (AddPartitionsToTxn, AddOffsetsToTxn, one epoch for
// every transaction) and 2 (KIP-890 part 2: the brokers add the partitions, EndTxn bumps the epoch)
for (const transactionVersion of [0, 2]) describe(`client/transaction (transactional producer, transaction.version ${transactionVersion})`, function () {
  this.timeout(60_000);
  let c: TestCluster;
  let samsa: SamsaClient;
  const open: (Producer | Consumer)[] = [];

  before(async () => {
    c = await TestCluster.start({
      brokers: 3,
      brokerConfig: {
        'transaction.state.log.num.partitions': 3,
        'offsets.topic.num.partitions': 3,
        'group.initial.rebalance.delay.ms': 0,
        'group.min.session.timeout.ms': 100,
      },
    });
    samsa = c.samsa();
    await finalizeTransactionVersion(samsa, transactionVersion);
    for (const t of ['tx-commit', 'tx-abort', 'tx-offsets', 'tx-fence', 'tx-misuse', 'tx-eos']) await c.client.createTopic(t, 2, 3);
    // a batch above 1 KiB is refused by the brokers (MESSAGE_TOO_LARGE), not by the producer
    await c.client.createTopic('tx-small', 1, 3, { 'max.message.bytes': 1024 });
  });
  afterEach(async () => {
    for (const x of open.splice(0)) await x.disconnect().catch(() => undefined);
  });
  after(async () => {
    await c?.stop();
  });

  async function txnProducer(transactionalId: string, extra: Record<string, unknown> = {}): Promise<Producer> {
    const p = samsa.producer({ transactionalId, 'linger.ms': 5, ...extra });
    open.push(p);
    await p.connect();
    return p;
  }

  async function collect(topic: string, groupId: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<string[]> {
    const consumer = samsa.consumer({ groupId, ...CONSUMER_CFG, 'isolation.level': isolation });
    open.push(consumer);
    const values: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachBatch: ({ batch }) => void values.push(...batch.messages.map((m) => String(m.value))) });
    return values;
  }

  async function committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: number }[]> {
    const admin = samsa.admin();
    await admin.connect();
    try {
      return ((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions ?? []).slice().sort((a, b) => a.partition - b.partition);
    } finally {
      await admin.disconnect();
    }
  }

  const failure = (p: Promise<unknown>): Promise<SamsaError | null> =>
    p.then(
      () => null,
      (e: unknown) => {
        expect(e).to.be.instanceOf(SamsaError);
        return e as SamsaError;
      },
    );

  it('refuses configs a transactional producer cannot work with, naming the key', () => {
    const refused = (cfg: Record<string, unknown>): ProducerConfigError | null => {
      try {
        samsa.producer({ transactionalId: 'cfg', ...cfg });
        return null;
      } catch (err) {
        expect(err).to.be.instanceOf(ProducerConfigError);
        return err as ProducerConfigError;
      }
    };
    expect(refused({ acks: 1 })?.key).to.equal('acks');
    expect(refused({ acks: 0 })?.message).to.match(/transactional\.id/);
    expect(refused({ 'max.in.flight.requests.per.connection': 6 })?.key).to.equal('max.in.flight.requests.per.connection');
    expect(refused({ 'enable.idempotence': false })?.key).to.equal('enable.idempotence');
    expect(refused({ transactionTimeout: 0 })?.key).to.equal('transaction.timeout.ms');
    expect(refused({ transactionalId: '' })?.key).to.equal('transactional.id');
    expect(refused({})).to.equal(null);
    expect(refused({ 'transaction.timeout.ms': 10_000, acks: 'all' })).to.equal(null);
  });

  it('a committed transaction is read by a read_committed consumer', async () => {
    const producer = await txnProducer('txn-commit');
    const txn = await producer.transaction();
    const sent = await txn.send({ topic: 'tx-commit', messages: [{ key: 'a', value: 'c1' }, { key: 'b', value: 'c2' }, { key: 'c', value: 'c3' }] });
    expect(sent.every((r) => r.baseOffset >= 0)).to.equal(true);
    await txn.send({ topic: 'tx-commit', messages: [{ key: 'a', value: 'c4' }] });
    await txn.commit();
    expect(txn.isActive()).to.equal(false);
    const values = await collect('tx-commit', 'rc-commit', 'read_committed');
    await checkFor(() => values.length >= 4, 15_000, 20);
    expect([...values].sort()).to.deep.equal(['c1', 'c2', 'c3', 'c4']);
  });

  it(transactionVersion >= 2 ? 'every commit and abort moves the producer to the next epoch (EndTxn v5), its records read as before' : 'every transaction runs at the epoch InitProducerId gave', async () => {
    const admin = samsa.admin();
    await admin.connect();
    try {
      const producer = await txnProducer('txn-epochs');
      const epochs: number[] = [];
      for (const [i, end] of (['commit', 'abort', 'commit'] as const).entries()) {
        const txn = await producer.transaction();
        await txn.send({ topic: 'tx-commit', messages: [{ key: 'epochs', value: `epoch-${i}` }] });
        const during = (await admin.describeTransactions(['txn-epochs'])).transactions[0]!;
        expect(during.state).to.equal('Ongoing');
        epochs.push(during.producerEpoch);
        await (end === 'commit' ? txn.commit() : txn.abort());
      }
      const first = epochs[0]!;
      expect(epochs).to.deep.equal(transactionVersion >= 2 ? [first, first + 1, first + 2] : [first, first, first]);
      const rc = await collect('tx-commit', 'rc-epochs', 'read_committed');
      await checkFor(() => rc.includes('epoch-2'), 15_000, 20);
      expect(rc.filter((v) => v.startsWith('epoch-'))).to.deep.equal(['epoch-0', 'epoch-2']);
    } finally {
      await admin.disconnect();
    }
  });

  it('an aborted transaction never reaches read_committed consumers, and does reach read_uncommitted ones', async () => {
    const producer = await txnProducer('txn-abort');
    const aborted = await producer.transaction();
    await aborted.send({ topic: 'tx-abort', messages: [{ key: 'a', value: 'aborted-1' }, { key: 'b', value: 'aborted-2' }] });
    await aborted.abort();
    const committed = await producer.transaction();
    await committed.send({ topic: 'tx-abort', messages: [{ key: 'a', value: 'kept-1' }, { key: 'b', value: 'kept-2' }] });
    await committed.commit();

    const rc = await collect('tx-abort', 'rc-abort', 'read_committed');
    const ru = await collect('tx-abort', 'ru-abort', 'read_uncommitted');
    await checkFor(() => rc.length >= 2 && ru.length >= 4, 15_000, 20);
    // a little longer: nothing aborted turns up late
    await new Promise((r) => setTimeout(r, 300));
    expect([...rc].sort()).to.deep.equal(['kept-1', 'kept-2']);
    expect([...ru].sort()).to.deep.equal(['aborted-1', 'aborted-2', 'kept-1', 'kept-2']);
  });

  it('offsets sent with a transaction are committed with it, and not after an abort', async () => {
    const producer = await txnProducer('txn-offsets');
    const aborted = await producer.transaction();
    await aborted.send({ topic: 'tx-offsets', messages: [{ key: 'a', value: 'x' }] });
    await aborted.sendOffsets({ consumerGroupId: 'copier', topics: [{ topic: 'tx-commit', partitions: [{ partition: 0, offset: 7 }] }] });
    await aborted.abort();
    expect(await committedOffsets('copier', 'tx-commit')).to.satisfy((ps: { offset: number }[]) => ps.every((p) => p.offset < 0));

    const txn = await producer.transaction();
    await txn.send({ topic: 'tx-offsets', messages: [{ key: 'a', value: 'y' }] });
    await txn.sendOffsets({ consumerGroupId: 'copier', topics: [{ topic: 'tx-commit', partitions: [{ partition: 0, offset: 3 }, { partition: 1, offset: '5' }] }] });
    await txn.commit();
    await checkFor(async () => (await committedOffsets('copier', 'tx-commit')).some((p) => p.offset >= 0), 10_000, 50);
    expect(await committedOffsets('copier', 'tx-commit')).to.deep.equal([
      { partition: 0, offset: 3 },
      { partition: 1, offset: 5 },
    ]);

    // offsets alone (no records) make a transaction too
    const only = await producer.transaction();
    await only.sendOffsets({ consumerGroupId: 'copier', topics: [{ topic: 'tx-commit', partitions: [{ partition: 0, offset: 4 }] }] });
    await only.commit();
    await checkFor(async () => (await committedOffsets('copier', 'tx-commit'))[0]?.offset === 4, 10_000, 50);
  });

  it('a second producer with the same transactional id fences the first: its commit fails and it makes no more transactions', async () => {
    const first = await txnProducer('txn-fence');
    const txn = await first.transaction();
    await txn.send({ topic: 'tx-fence', messages: [{ key: 'a', value: 'zombie' }] });
    const second = await txnProducer('txn-fence');
    const txn2 = await second.transaction();
    const err = await failure(txn.commit());
    expect(err, 'the fenced producer commits').to.not.equal(null);
    expect(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH']).to.include(err!.errorName);
    const again = await failure(first.transaction());
    expect(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH']).to.include(again?.errorName);

    await txn2.send({ topic: 'tx-fence', messages: [{ key: 'a', value: 'successor' }] });
    await txn2.commit();
    const rc = await collect('tx-fence', 'rc-fence', 'read_committed');
    await checkFor(() => rc.includes('successor'), 15_000, 20);
    expect(rc).to.deep.equal(['successor']);
  });

  it('refuses sends outside a transaction, two transactions at once, and ending one twice', async () => {
    const producer = await txnProducer('txn-misuse');
    const outside = await failure(producer.send({ topic: 'tx-misuse', messages: [{ value: 'no' }] }));
    expect(outside?.errorName).to.equal('INVALID_TXN_STATE');
    expect(outside?.message).to.match(/no transaction is in progress/);

    const txn = await producer.transaction();
    const second = await failure(producer.transaction());
    expect(second?.errorName).to.equal('INVALID_TXN_STATE');
    expect(second?.message).to.match(/already in progress/);
    await txn.send({ topic: 'tx-misuse', messages: [{ value: 'yes' }] });
    await txn.commit();
    expect((await failure(txn.commit()))?.errorName).to.equal('INVALID_TXN_STATE');
    expect((await failure(txn.abort()))?.errorName).to.equal('INVALID_TXN_STATE');
    expect((await failure(txn.send({ topic: 'tx-misuse', messages: [{ value: 'late' }] })))?.errorName).to.equal('INVALID_TXN_STATE');
    expect((await failure(producer.send({ topic: 'tx-misuse', messages: [{ value: 'after' }] })))?.errorName).to.equal('INVALID_TXN_STATE');

    // a non-transactional producer has no transactions
    const plain = samsa.producer();
    open.push(plain);
    await plain.connect();
    expect((await failure(plain.transaction()))?.errorName).to.equal('INVALID_TXN_STATE');

    // and the producer goes on with the next transaction
    const next = await producer.transaction();
    await next.send({ topic: 'tx-misuse', messages: [{ value: 'next' }] });
    await next.abort();
  });

  it('a send the brokers refuse makes the transaction abortable: its commit fails, its abort works, and the next one commits', async () => {
    const producer = await txnProducer('txn-abortable');
    const txn = await producer.transaction();
    await txn.send({ topic: 'tx-small', messages: [{ value: 'before' }] });
    const refused = await failure(txn.send({ topic: 'tx-small', messages: [{ value: Buffer.alloc(4096, 1) }] }));
    expect(refused?.errorName).to.equal('MESSAGE_TOO_LARGE');
    // nothing more joins it, and it cannot commit
    const late = await failure(txn.send({ topic: 'tx-small', messages: [{ value: 'after' }] }));
    expect(late?.errorName).to.equal('MESSAGE_TOO_LARGE');
    expect(late?.message).to.match(/must be aborted/);
    const commit = await failure(txn.commit());
    expect(commit?.errorName).to.equal('MESSAGE_TOO_LARGE');
    expect(commit?.message).to.match(/must be aborted/);
    expect(txn.isActive()).to.equal(true);
    await txn.abort();
    expect(txn.isActive()).to.equal(false);

    const next = await producer.transaction();
    await next.send({ topic: 'tx-small', messages: [{ value: 'next' }] });
    await next.commit();
    const rc = await collect('tx-small', 'rc-small', 'read_committed');
    await checkFor(() => rc.includes('next'), 15_000, 20);
    // the record the abortable transaction did write is aborted with it
    expect(rc).to.deep.equal(['next']);
  });

  if (transactionVersion >= 2) {
    it('transaction.version lowered during a transaction: a partition it had not reached is refused TRANSACTION_ABORTABLE, the abort works, the next transaction runs at 0', async () => {
      const producer = await txnProducer('txn-downgraded');
      const txn = await producer.transaction();
      await txn.send({ topic: 'tx-commit', messages: [{ value: 'lowered-before', partition: 0 }] });
      await finalizeTransactionVersion(samsa, 0);
      try {
        const refused = await failure(txn.send({ topic: 'tx-commit', messages: [{ value: 'lowered-after', partition: 1 }] }));
        expect(refused?.errorName).to.equal('TRANSACTION_ABORTABLE');
        await txn.abort();
        const next = await producer.transaction();
        await next.send({ topic: 'tx-commit', messages: [{ value: 'lowered-next', partition: 1 }] });
        await next.commit();
        const rc = await collect('tx-commit', 'rc-lowered', 'read_committed');
        await checkFor(() => rc.includes('lowered-next'), 15_000, 20);
        expect(rc.filter((v) => v.startsWith('lowered-'))).to.deep.equal(['lowered-next']);
      } finally {
        await finalizeTransactionVersion(samsa, 2);
      }
    });
  }

  it('admin.describeTransactions and listTransactions tell each transaction from its coordinator, whichever broker that is', async () => {
    const admin = samsa.admin();
    await admin.connect();
    try {
      // ids spread over the coordinators of the 3 __transaction_state partitions
      const ids = ['watch-a', 'watch-b', 'watch-c', 'watch-d'];
      const producers = await Promise.all(ids.map((id) => txnProducer(id)));
      const txns = await Promise.all(producers.map((p) => p.transaction()));
      await Promise.all(txns.map((t, i) => t.send({ topic: 'tx-commit', messages: [{ key: ids[i]!, value: 'watched', partition: i % 2 }] })));

      const described = (await admin.describeTransactions([...ids, 'never-used'])).transactions;
      expect(described.map((d) => d.transactionalId)).to.deep.equal([...ids, 'never-used']);
      for (const [i, d] of described.slice(0, 4).entries()) {
        expect(d).to.deep.include({ errorCode: 0, state: 'Ongoing', topicPartitions: [{ topic: 'tx-commit', partition: i % 2 }] });
        expect(d.producerId).to.be.at.least(0);
        expect(d.transactionStartTimeMs).to.be.within(Date.now() - 60_000, Date.now());
      }
      expect(described[4]).to.deep.include({ errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, state: '', producerId: -1 });
      expect(described[4]!.coordinatorId).to.be.oneOf([1, 2, 3]);

      const listed = await admin.listTransactions({ states: ['Ongoing', 'Sleeping'] });
      expect(listed.unknownStateFilters).to.deep.equal(['Sleeping']);
      const watched = listed.transactions.filter((t) => t.transactionalId.startsWith('watch-'));
      expect(watched.map((t) => t.transactionalId)).to.deep.equal(ids);
      expect(watched.map((t) => t.producerId)).to.deep.equal(described.slice(0, 4).map((d) => d.producerId));
      // the broker that listed each is the one that described it
      expect(watched.map((t) => t.coordinatorId)).to.deep.equal(described.slice(0, 4).map((d) => d.coordinatorId));
      // told by the coordinator of each id's partition: more than one broker here
      expect(new Set(watched.map((t) => t.coordinatorId)).size).to.be.greaterThan(1);
      expect((await admin.listTransactions({ producerIds: [watched[0]!.producerId] })).transactions.map((t) => t.transactionalId)).to.deep.equal(['watch-a']);
      expect((await admin.listTransactions({ states: ['Ongoing'], durationMs: 3_600_000 })).transactions.filter((t) => t.transactionalId.startsWith('watch-'))).to.deep.equal([]);
      // KIP-1152: a regular expression the whole transactional id matches, from every coordinator
      const byPattern = (await admin.listTransactions({ transactionalIdPattern: 'watch-[bd]' })).transactions;
      expect(byPattern.map((t) => [t.transactionalId, t.coordinatorId])).to.deep.equal([
        ['watch-b', watched[1]!.coordinatorId],
        ['watch-d', watched[3]!.coordinatorId],
      ]);
      expect((await admin.listTransactions({ transactionalIdPattern: 'watch' })).transactions).to.deep.equal([]);
      const badPattern = await failure(admin.listTransactions({ transactionalIdPattern: 'watch-(' }));
      expect(badPattern?.errorName).to.equal('INVALID_REGULAR_EXPRESSION');
      expect(badPattern?.message).to.include('TransactionalIdPattern `watch-(` is not a valid regular expression: missing closing )');

      await txns[0]!.commit();
      await Promise.all(txns.slice(1).map((t) => t.abort()));
      const after = await checkFor(async () => {
        const d = (await admin.describeTransactions(ids)).transactions;
        return d.every((x) => x.state === 'CompleteCommit' || x.state === 'CompleteAbort') ? d : null;
      }, 10_000, 50);
      expect(after.map((d) => d.state)).to.deep.equal(['CompleteCommit', 'CompleteAbort', 'CompleteAbort', 'CompleteAbort']);

      expect((await failure(admin.listTransactions({ durationMs: -5 })))?.errorName).to.equal('INVALID_REQUEST');
      expect((await failure(admin.listTransactions({ producerIds: [1.5] })))?.errorName).to.equal('INVALID_REQUEST');
      expect((await failure(admin.listTransactions({ transactionalIdPattern: 7 as unknown as string })))?.errorName).to.equal('INVALID_REQUEST');
    } finally {
      await admin.disconnect();
    }
  });

  it("sendOffsets with the consumer's groupMetadata (KIP-447): the offsets count while the member is in the group's generation, and are refused once the group moved on", async () => {
    const plain = samsa.producer();
    open.push(plain);
    await plain.connect();
    await plain.send({ topic: 'tx-eos', messages: [0, 1, 0, 1].map((partition, i) => ({ value: `in-${i}`, partition })) });
    const consumer = samsa.consumer({ groupId: 'eos-copier', ...CONSUMER_CFG, 'enable.auto.commit': false });
    open.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: 'tx-eos', fromBeginning: true });
    let seen = 0;
    await consumer.run({ eachBatch: ({ batch }) => void (seen += batch.messages.length) });
    await checkFor(() => seen >= 4, 15_000, 20);
    const meta = await consumer.groupMetadata();
    expect(meta.groupId).to.equal('eos-copier');
    expect(meta.generationId).to.be.at.least(1);
    expect(meta.memberId).to.not.equal('');
    expect(meta.groupInstanceId).to.equal(null);

    const producer = await txnProducer('txn-eos');
    const offsetsAt = (offset: number) => [{ topic: 'tx-eos', partitions: [{ partition: 0, offset }] }];
    const first = await producer.transaction();
    await first.sendOffsets({ consumerGroupMetadata: meta, topics: offsetsAt(2) });
    await first.commit();
    const committedAt = async () => (await committedOffsets('eos-copier', 'tx-eos')).find((p) => p.partition === 0)?.offset;
    await checkFor(async () => (await committedAt()) === 2, 10_000, 50);

    // a second member joins: the group rebalances into a new generation
    const other = samsa.consumer({ groupId: 'eos-copier', ...CONSUMER_CFG, 'enable.auto.commit': false });
    open.push(other);
    await other.connect();
    await other.subscribe({ topic: 'tx-eos', fromBeginning: true });
    await other.run({ eachBatch: () => undefined });
    const now = await checkFor(async () => {
      const m = await consumer.groupMetadata();
      return m.generationId > meta.generationId ? m : null;
    }, 15_000, 50);

    const stale = await producer.transaction();
    const refused = await failure(stale.sendOffsets({ consumerGroupMetadata: meta, topics: offsetsAt(4) }));
    expect(refused?.errorName).to.equal('ILLEGAL_GENERATION');
    const commit = await failure(stale.commit());
    expect(commit?.errorName).to.equal('ILLEGAL_GENERATION');
    expect(commit?.message).to.match(/must be aborted/);
    await stale.abort();
    // a member id the group does not know is refused too
    const unknown = await producer.transaction();
    expect((await failure(unknown.sendOffsets({ consumerGroupMetadata: { ...now, memberId: 'not-a-member' }, topics: offsetsAt(4) })))?.errorName).to.equal('UNKNOWN_MEMBER_ID');
    await unknown.abort();
    expect(await committedAt()).to.equal(2);

    // the member's current place in the group commits
    const fresh = await producer.transaction();
    await fresh.sendOffsets({ consumerGroupMetadata: now, topics: offsetsAt(4) });
    await fresh.commit();
    await checkFor(async () => (await committedAt()) === 4, 10_000, 50);

    // a groupId that is not the metadata's group, or no group at all, is refused before anything is sent
    const misuse = await producer.transaction();
    expect((await failure(misuse.sendOffsets({ consumerGroupId: 'another', consumerGroupMetadata: now, topics: offsetsAt(5) })))?.errorName).to.equal('INVALID_REQUEST');
    expect((await failure(misuse.sendOffsets({ topics: offsetsAt(5) })))?.errorName).to.equal('INVALID_REQUEST');
    await misuse.abort();
  });
});
