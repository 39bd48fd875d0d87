/**
 * `samsa transactions`: Kafka's list and describe tables built from admin results, the command
 * lines that cannot work (exit 2), and the command as a user runs it against a running cluster
 * with transactions open and ended: list with its filters (--transactional-id-pattern among them), describe of an ongoing, a committed
 * and an unknown id (exit 1), describe-producers of the open transaction's partition.
 */
import { expect } from 'chai';
import { describeLines, hangingLines, listLines, producerLines } from '../../src/cli/commands/transactions.js';
import type { Producer } from '../../src/client/producer.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { TxnWriter } from '../helpers/txn-writer.js';
import { CliCluster, runCli } from './cli-harness.js';

describe('cli/commands/transactions: output', () => {
  it("prints list as Kafka's tool does: transactional id, coordinator, producer id, state", () => {
    expect(
      listLines([
        { transactionalId: 'orders', coordinatorId: 2, producerId: 4000, state: 'Ongoing' },
        { transactionalId: 'payments-writer', coordinatorId: 1, producerId: 17, state: 'CompleteCommit' },
      ]),
    ).to.deep.equal([
      'TransactionalId  Coordinator  ProducerId  TransactionState',
      'orders           2            4000        Ongoing',
      'payments-writer  1            17          CompleteCommit',
    ]);
    expect(listLines([])).to.deep.equal(['TransactionalId  Coordinator  ProducerId  TransactionState']);
  });

  it("prints describe-producers as Kafka's tool does, None where no transaction is open", () => {
    const lines = producerLines([
      { producerId: 7, producerEpoch: 1, lastSequence: 41, lastTimestamp: 1_700, coordinatorEpoch: 3, currentTxnStartOffset: 120 },
      { producerId: 9, producerEpoch: 0, lastSequence: -1, lastTimestamp: 1_800, coordinatorEpoch: -1, currentTxnStartOffset: -1 },
    ]);
    expect(lines.map((l) => l.trim().split(/\s+/))).to.deep.equal([
      ['ProducerId', 'ProducerEpoch', 'LatestCoordinatorEpoch', 'LastSequence', 'LastTimestamp', 'CurrentTransactionStartOffset'],
      ['7', '1', '3', '41', '1700', '120'],
      ['9', '0', '-1', '-1', '1800', 'None'],
    ]);
  });

  it("prints find-hanging as Kafka's tool does: where, the producer, the start offset, and whole minutes since its last write", () => {
    const lines = hangingLines([{ topic: 'orders', partition: 2, producer: { producerId: 7, producerEpoch: 1, lastSequence: 4, lastTimestamp: 1_000, coordinatorEpoch: -1, currentTxnStartOffset: 120 } }], 1_000 + 59 * 60_000 + 59_999);
    expect(lines.map((l) => l.trim().split(/\s+/))).to.deep.equal([
      ['Topic', 'Partition', 'ProducerId', 'ProducerEpoch', 'CoordinatorEpoch', 'StartOffset', 'LastTimestamp', 'Duration(min)'],
      ['orders', '2', '7', '1', '-1', '120', '1000', '59'],
    ]);
    expect(hangingLines([], 0)).to.have.length(1);
  });

  it('prints describe with the running time of the current transaction, or None when there is none', () => {
    const ongoing = { transactionalId: 'orders', errorCode: 0, state: 'Ongoing', coordinatorId: 3, producerId: 4000, producerEpoch: 2, transactionTimeoutMs: 60_000, transactionStartTimeMs: 1_000, topicPartitions: [{ topic: 'a', partition: 0 }, { topic: 'b', partition: 3 }] };
    const [head, row] = describeLines(ongoing, 1_250);
    expect(head!.split(/\s+/)).to.deep.equal(['CoordinatorId', 'TransactionalId', 'ProducerId', 'ProducerEpoch', 'TransactionState', 'TransactionTimeoutMs', 'CurrentTransactionStartTimeMs', 'TransactionDurationMs', 'TopicPartitions']);
    expect(row!.split(/\s+/)).to.deep.equal(['3', 'orders', '4000', '2', 'Ongoing', '60000', '1000', '250', 'a-0,b-3']);
    const fresh = describeLines({ ...ongoing, state: 'Empty', transactionStartTimeMs: -1, topicPartitions: [] }, 1_250)[1]!;
    expect(fresh.trim().split(/\s+/)).to.deep.equal(['3', 'orders', '4000', '2', 'Empty', '60000', 'None', 'None']);
  });
});

describe('cli: transactions', function () {
  this.timeout(60_000);
  let cli: CliCluster;
  const producers: Producer[] = [];

  before(async () => {
    cli = await CliCluster.start(2);
  });
  after(async () => {
    for (const p of producers) await p.disconnect().catch(() => undefined);
    await cli?.stop();
  });

  it('refuses command lines that cannot work (exit 2) before connecting', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['transactions'], says: /give the subcommand: list, describe, describe-producers, find-hanging, abort/ },
      { argv: ['transactions', 'commit'], says: /unknown subcommand 'commit'/ },
      { argv: ['transactions', 'describe'], says: /--transactional-id is required/ },
      { argv: ['transactions', 'describe', '--transactional-id', 'x', '--state', 'Ongoing'], says: /--state goes with list, not with describe/ },
      { argv: ['transactions', 'list', '--transactional-id', 'x'], says: /--transactional-id goes with describe and forceTerminateTransaction, not with list/ },
      { argv: ['transactions', 'describe', '--transactional-id', 'x', '--transactional-id-pattern', 'x.*'], says: /--transactional-id-pattern goes with list, not with describe/ },
      { argv: ['transactions', 'list', '--producer-id', '-3'], says: /--producer-id -3: not a producer id/ },
      { argv: ['transactions', 'list', '--duration-filter', '-2'], says: /--duration-filter/ },
      { argv: ['transactions', 'describe-producers', '--partition', '0'], says: /--topic is required/ },
      { argv: ['transactions', 'describe-producers', '--topic', 't'], says: /--partition is required/ },
      { argv: ['transactions', 'list', '--topic', 't'], says: /--topic goes with describe-producers and find-hanging and abort, not with list/ },
      { argv: ['transactions', 'describe', '--broker-id', '1'], says: /--broker-id goes with describe-producers and find-hanging, not with describe/ },
      { argv: ['transactions', 'find-hanging'], says: /find-hanging needs --topic or --broker-id/ },
      { argv: ['transactions', 'find-hanging', '--broker-id', '1', '--partition', '0'], says: /--partition needs --topic/ },
      { argv: ['transactions', 'find-hanging', '--topic', 't', '--start-offset', '3'], says: /--start-offset goes with abort, not with find-hanging/ },
      { argv: ['transactions', 'abort', '--topic', 't', '--partition', '0'], says: /name the transaction to abort: --start-offset, or --producer-id/ },
      { argv: ['transactions', 'abort', '--topic', 't', '--partition', '0', '--start-offset', '3', '--producer-id', '7'], says: /either by --start-offset or by --producer-id/ },
      { argv: ['transactions', 'abort', '--topic', 't', '--partition', '0', '--producer-id', '7', '--coordinator-epoch', '0'], says: /--producer-epoch is required with --producer-id/ },
      { argv: ['transactions', 'abort', '--topic', 't', '--partition', '0', '--producer-id', '7', '--producer-epoch', '0'], says: /--coordinator-epoch is required with --producer-id/ },
      { argv: ['transactions', 'abort', '--topic', 't', '--partition', '0', '--producer-id', '7', '--producer-id', '8', '--producer-epoch', '0', '--coordinator-epoch', '0'], says: /abort takes one --producer-id/ },
      { argv: ['transactions', 'abort', '--partition', '0', '--start-offset', '3'], says: /--topic is required/ },
      { argv: ['transactions', 'abort', '--topic', 't', '--start-offset', '3'], says: /--partition is required/ },
      { argv: ['transactions', 'abort', '--topic', 't', '--partition', '0', '--producer-id', '7', '--producer-epoch', '40000', '--coordinator-epoch', '0'], says: /--producer-epoch/ },
      { argv: ['transactions', 'forceTerminateTransaction'], says: /forceTerminateTransaction needs --transactional-id/ },
      { argv: ['transactions', 'forceTerminateTransaction', '--transactional-id', 'a', '--transactionalId', 'a'], says: /give --transactional-id once/ },
      { argv: ['transactions', 'forceTerminateTransaction', '--transactional-id', 'a', '--topic', 't'], says: /--topic goes with describe-producers and find-hanging and abort, not with forceTerminateTransaction/ },
      { argv: ['transactions', 'list', '--transactionalId', 'a'], says: /--transactionalId goes with forceTerminateTransaction, not with list/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(c.argv, { inProcess: true })));
    for (const [i, r] of results.entries()) {
      expect(r.code, cases[i]!.argv.join(' ')).to.equal(2);
      expect(r.stderr, cases[i]!.argv.join(' ')).to.match(cases[i]!.says);
    }
  });

  it('lists transactions with their coordinator and state, filtered, and describes an ongoing, a committed and an unknown id', async () => {
    await cli.cluster.client.createTopic('cli-txn', 2, 1);
    const samsa = cli.cluster.samsa();
    const open = samsa.producer({ transactionalId: 'cli-open', 'linger.ms': 5 });
    const done = samsa.producer({ transactionalId: 'cli-done', 'linger.ms': 5 });
    producers.push(open, done);
    await Promise.all([open.connect(), done.connect()]);
    const ongoing = await open.transaction();
    await ongoing.send({ topic: 'cli-txn', messages: [{ value: 'a', partition: 1 }] });
    const committed = await done.transaction();
    await committed.send({ topic: 'cli-txn', messages: [{ value: 'b', partition: 0 }] });
    await committed.commit();

    const [all, onlyOngoing, longRunning, unknownState, byPattern, partOfId, badPattern] = await Promise.all([
      cli.run('transactions', ['list']),
      cli.run('transactions', ['list', '--state', 'Ongoing']),
      cli.run('transactions', ['list', '--duration-filter', '3600000']),
      cli.run('transactions', ['list', '--state', 'Sleeping']),
      cli.run('transactions', ['list', '--transactional-id-pattern', 'cli-o.*']),
      cli.run('transactions', ['list', '--transactional-id-pattern', 'open']),
      cli.run('transactions', ['list', '--transactional-id-pattern', 'cli-(']),
    ]);
    expect(all.code, all.stderr).to.equal(0);
    const rows = all.stdout.trim().split('\n');
    expect(rows[0]!.split(/\s+/)).to.deep.equal(['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState']);
    const byId = new Map(rows.slice(1).map((l) => l.split(/\s+/)).map((c) => [c[0]!, c]));
    expect(byId.get('cli-open')?.[3]).to.equal('Ongoing');
    expect(byId.get('cli-done')?.[3]).to.be.oneOf(['PrepareCommit', 'CompleteCommit']);
    expect(['1', '2']).to.include(byId.get('cli-open')?.[1]);
    expect(onlyOngoing.stdout).to.contain('cli-open').and.not.contain('cli-done');
    expect(longRunning.code).to.equal(0);
    expect(longRunning.stdout.trim().split('\n')).to.have.length(1);
    expect(unknownState.code).to.equal(0);
    expect(unknownState.stderr).to.contain('unknown transaction state(s): Sleeping');
    // --transactional-id-pattern (KIP-1152): the whole id must match
    expect(byPattern.code, byPattern.stderr).to.equal(0);
    expect(byPattern.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0])).to.deep.equal(['cli-open']);
    expect(partOfId.code, partOfId.stderr).to.equal(0);
    expect(partOfId.stdout.trim().split('\n')).to.have.length(1);
    expect(badPattern.code).to.equal(1);
    expect(badPattern.stderr).to.contain('Failed to list transactions').and.contain('INVALID_REGULAR_EXPRESSION').and.contain('TransactionalIdPattern `cli-(` is not a valid regular expression: missing closing )');

    const described = await cli.run('transactions', ['describe', '--transactional-id', 'cli-open']);
    expect(described.code, described.stderr).to.equal(0);
    const cols = described.stdout.trim().split('\n')[1]!.trim().split(/\s+/);
    expect(cols[0]).to.equal(byId.get('cli-open')![1]);
    expect(cols.slice(1, 2)).to.deep.equal(['cli-open']);
    expect(cols[2]).to.equal(byId.get('cli-open')![2]);
    expect(cols[4]).to.equal('Ongoing');
    expect(Number(cols[6])).to.be.within(Date.now() - 60_000, Date.now());
    expect(cols[8]).to.equal('cli-txn-1');

    const unknown = await cli.run('transactions', ['describe', '--transactional-id', 'never-used']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain('Failed to describe transaction state of transactional-id `never-used`: TRANSACTIONAL_ID_NOT_FOUND');

    // the open transaction's partition: its producer, with where the transaction starts
    const described2 = await cli.run('transactions', ['describe-producers', '--topic', 'cli-txn', '--partition', '1']);
    expect(described2.code, described2.stderr).to.equal(0);
    const prow = described2.stdout.trim().split('\n');
    expect(prow[0]!.split(/\s+/)).to.deep.equal(['ProducerId', 'ProducerEpoch', 'LatestCoordinatorEpoch', 'LastSequence', 'LastTimestamp', 'CurrentTransactionStartOffset']);
    const openRow = prow.slice(1).map((l) => l.trim().split(/\s+/)).find((c) => c[0] === cols[2]);
    expect(openRow, described2.stdout).to.not.equal(undefined);
    expect(openRow![5]).to.match(/^\d+$/);
    const missing = await cli.run('transactions', ['describe-producers', '--topic', 'no-such-topic', '--partition', '0']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('UNKNOWN_TOPIC_OR_PARTITION');
    await ongoing.abort();
  });
  it("forceTerminateTransaction aborts an id's ongoing transaction by fencing its producer (Kafka's spelling too); fenceProducers answers each id's new epoch", async () => {
    await cli.cluster.client.createTopic('cli-fence', 1, 1);
    const samsa = cli.cluster.samsa();
    const stuck = samsa.producer({ transactionalId: 'cli-stuck', 'linger.ms': 5 });
    producers.push(stuck);
    await stuck.connect();
    const txn = await stuck.transaction();
    await txn.send({ topic: 'cli-fence', messages: [{ value: 'never committed' }] });
    const admin = samsa.admin();
    await admin.connect();
    try {
      const before = (await admin.describeTransactions(['cli-stuck'])).transactions[0]!;
      expect(before.state).to.equal('Ongoing');

      const r = await cli.run('transactions', ['forceTerminateTransaction', '--transactionalId', 'cli-stuck']);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal('');
      const after = (await admin.describeTransactions(['cli-stuck'])).transactions[0]!;
      // as Kafka: the epoch bumped to fence the producer and end its transaction, then again for the InitProducerId retried once it ended
      expect(after.producerId).to.equal(before.producerId);
      expect(after.producerEpoch).to.be.at.least(before.producerEpoch + 2);
      expect(after.state).to.equal('Empty');
      expect(after.topicPartitions).to.deep.equal([]);
      // the open transaction on the partition is aborted: nothing holds its last stable offset
      const p = (await admin.describeProducers('cli-fence', [0])).partitions[0]!;
      expect(p.producers.map((x) => x.currentTxnStartOffset)).to.deep.equal([-1]);
      // the producer that held the id is fenced
      let failure: unknown = null;
      await txn.commit().catch((e: unknown) => (failure = e));
      expect(String(failure)).to.match(/PRODUCER_FENCED|INVALID_PRODUCER_EPOCH/);

      // the admin call itself: each id, once, with its new epoch; an id never used gets one
      const fenced = await admin.fenceProducers(['cli-stuck', 'cli-never-used', 'cli-stuck']);
      expect(fenced.map((f) => [f.transactionalId, f.errorCode, f.errorMessage])).to.deep.equal([
        ['cli-stuck', 0, null],
        ['cli-never-used', 0, null],
      ]);
      expect(fenced[0]).to.deep.include({ producerId: after.producerId, producerEpoch: after.producerEpoch + 1 });
      expect(fenced[1]!.producerId).to.be.at.least(0);
      const again = await cli.run('transactions', ['forceTerminateTransaction', '--transactional-id', 'cli-stuck']);
      expect(again.code, again.stderr).to.equal(0);
    } finally {
      await admin.disconnect();
    }
  });

  it('finds a hanging transaction (on its leader and on a follower), not a live one, and aborts it by its start offset or its producer', async () => {
    await cli.cluster.client.createTopic('cli-hang', 2, 2);
    const md = await cli.cluster.client.metadata();
    const p0 = md.topics.find((t) => t.name === 'cli-hang')!.partitions[0]!;
    const follower = p0.replicas.find((b) => b !== p0.leader)!;
    // transactions no coordinator knows, last written an hour ago: hanging
    const hour = Date.now() - 3_600_000;
    const w0 = await TxnWriter.to(cli.cluster, 'cli-hang', 0);
    const w1 = await TxnWriter.to(cli.cluster, 'cli-hang', 1);
    const lost = await w0.producerId();
    const lost2 = await w1.producerId();
    await w0.produceAt(hour, lost, 'before');
    await w0.end(lost, true);
    const start = await w0.produceAt(hour, lost, 'x', 'y');
    const start2 = await w1.produceAt(hour, lost2, 'z');
    // a live transaction its coordinator names on the same partition: never hanging
    const live = cli.cluster.samsa().producer({ transactionalId: 'cli-live', 'linger.ms': 1 });
    producers.push(live);
    await live.connect();
    const ongoing = await live.transaction();
    await ongoing.send({ topic: 'cli-hang', messages: [{ value: 'live', partition: 0 }] });

    const rows = (stdout: string) => stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/));
    // --max-transaction-timeout 0 makes the live one old enough: its coordinator still rules it out
    const [byTopic, byBroker, onePartition] = await Promise.all([
      cli.run('transactions', ['find-hanging', '--topic', 'cli-hang', '--max-transaction-timeout', '0']),
      cli.run('transactions', ['find-hanging', '--broker-id', String(follower)]),
      cli.run('transactions', ['find-hanging', '--topic', 'cli-hang', '--partition', '0']),
    ]);
    for (const r of [byTopic, byBroker, onePartition]) expect(r.code, r.stderr).to.equal(0);
    expect(byTopic.stdout.trim().split('\n')[0]!.split(/\s+/)).to.deep.equal(['Topic', 'Partition', 'ProducerId', 'ProducerEpoch', 'CoordinatorEpoch', 'StartOffset', 'LastTimestamp', 'Duration(min)']);
    const expected = [
      ['cli-hang', '0', String(lost), '0', '0', String(start), String(hour), '60'],
      ['cli-hang', '1', String(lost2), '0', '-1', String(start2), String(hour), '60'],
    ];
    expect(rows(byTopic.stdout)).to.deep.equal(expected);
    // the follower of partition 0 tells the same (it hosts partition 1 too, with two brokers)
    expect(rows(byBroker.stdout)).to.deep.equal(expected);
    expect(rows(onePartition.stdout)).to.deep.equal([expected[0]]);

    const wrongOffset = await cli.run('transactions', ['abort', '--topic', 'cli-hang', '--partition', '0', '--start-offset', String(start + 1)]);
    expect(wrongOffset.code).to.equal(1);
    expect(wrongOffset.stderr).to.contain(`Could not find any open transactions starting at offset ${start + 1} on partition cli-hang-0`);
    const aborted = await cli.run('transactions', ['abort', '--topic', 'cli-hang', '--partition', '0', '--start-offset', String(start)]);
    expect(aborted.code, aborted.stderr).to.equal(0);
    expect(aborted.stdout).to.contain(`Aborted the transaction of producer ${lost} (epoch 0, coordinator epoch 0) on cli-hang-0`);
    const aborted2 = await cli.run('transactions', ['abort', '--topic', 'cli-hang', '--partition', '1', '--producer-id', String(lost2), '--producer-epoch', '0', '--coordinator-epoch', '-1']);
    expect(aborted2.code, aborted2.stderr).to.equal(0);

    const after = await cli.run('transactions', ['find-hanging', '--topic', 'cli-hang', '--max-transaction-timeout', '0']);
    expect(after.code, after.stderr).to.equal(0);
    expect(rows(after.stdout)).to.deep.equal([]);
    const producersNow = await cli.run('transactions', ['describe-producers', '--topic', 'cli-hang', '--partition', '0', '--broker-id', String(follower)]);
    expect(producersNow.code, producersNow.stderr).to.equal(0);
    expect(rows(producersNow.stdout).find((c) => c[0] === String(lost))?.[5]).to.equal('None');
    // the live transaction was left alone and still commits
    await ongoing.commit();
    const admin = cli.cluster.samsa('cli-hang-check').admin();
    await admin.connect();
    try {
      // the commit is answered once it is decided; its markers reach the partitions after
      await checkFor(async () => (await admin.describeProducers('cli-hang', [0])).partitions[0]!.producers.every((x) => x.currentTxnStartOffset < 0));
      // an ABORT marker again, with no transaction open, changes nothing
      const again = await admin.abortTransaction({ topic: 'cli-hang', partition: 0, producerId: lost, producerEpoch: 0, coordinatorEpoch: 0 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(again).to.equal(null);
      expect((await admin.describeProducers('cli-hang', [0])).partitions[0]!.producers.filter((x) => x.currentTxnStartOffset >= 0)).to.deep.equal([]);
      const unknown = await admin.abortTransaction({ topic: 'no-such-topic', partition: 0, producerId: lost, producerEpoch: 0, coordinatorEpoch: 0 }).catch((e: unknown) => e);
      expect(unknown).to.have.property('errorCode', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    } finally {
      await admin.disconnect();
    }
  });
});
