/**
 * `samsa transactions`: Kafka's list and describe tables built from admin results, the command
 * lines that cannot work (exit 2), and the command as a user runs it against a running cluster
 * with transactions open and ended: list with its filters, describe of an ongoing, a committed
 * and an unknown id (exit 1), describe-producers of the open transaction's partition.
 */
import { expect } from 'chai';
import { describeLines, listLines, producerLines } from '../../src/cli/commands/transactions.js';
import type { Producer } from '../../src/client/producer.js';
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
      { argv: ['transactions'], says: /give the subcommand: list or describe/ },
      { argv: ['transactions', 'abort'], says: /unknown subcommand 'abort'/ },
      { argv: ['transactions', 'describe'], says: /--transactional-id is required/ },
      { argv: ['transactions', 'describe', '--transactional-id', 'x', '--state', 'Ongoing'], says: /--state goes with list, not with describe/ },
      { argv: ['transactions', 'list', '--transactional-id', 'x'], says: /--transactional-id goes with describe, not with list/ },
      { argv: ['transactions', 'list', '--producer-id', '-3'], says: /--producer-id -3: not a producer id/ },
      { argv: ['transactions', 'list', '--duration-filter', '-2'], says: /--duration-filter/ },
      { argv: ['transactions', 'describe-producers', '--partition', '0'], says: /--topic is required/ },
      { argv: ['transactions', 'describe-producers', '--topic', 't'], says: /--partition is required/ },
      { argv: ['transactions', 'list', '--topic', 't'], says: /--topic goes with describe-producers, not with list/ },
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

    const [all, onlyOngoing, longRunning, unknownState] = await Promise.all([
      cli.run('transactions', ['list']),
      cli.run('transactions', ['list', '--state', 'Ongoing']),
      cli.run('transactions', ['list', '--duration-filter', '3600000']),
      cli.run('transactions', ['list', '--state', 'Sleeping']),
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
});
