/**
 * `samsa groups --delete-offsets` (Kafka's kafka-consumer-groups --delete-offsets, the admin's
 * deleteConsumerGroupOffsets): the table as Kafka's tool prints it, the command lines that cannot
 * work; against a cluster, a group without members loses the offsets of a topic, then,
 * with a member subscribed to another topic, that topic's offsets are kept
 * (GROUP_SUBSCRIBED_TO_TOPIC), a topic that does not exist is reported, and the command exits 1;
 * a group that does not exist is an error.
 */
import { expect } from 'chai';
import { deleteOffsetsLines } from '../../src/cli/commands/groups.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

describe('cli/commands/groups --delete-offsets: parsing and output', () => {
  it("prints Kafka's table: topics padded to at least 15, '-' for a topic that could not be read, Successful or the error", () => {
    expect(
      deleteOffsetsLines([
        { topic: 'orders', partition: 1, error: null },
        { topic: 'a-much-longer-topic-name', partition: -1, error: 'This server does not host this topic-partition.' },
        { topic: 'orders', partition: 0, error: null },
      ]),
    ).to.deep.equal([
      'TOPIC                    PARTITION  STATUS',
      'a-much-longer-topic-name -          Error: This server does not host this topic-partition.',
      'orders                   0          Successful',
      'orders                   1          Successful',
    ]);
  });

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['--delete-offsets', '--group', 'g'], says: /--delete-offsets needs --topic/ },
      { argv: ['--delete-offsets', '--topic', 't'], says: /--delete-offsets needs --group/ },
      { argv: ['--delete-offsets', '--group', 'g', '--topic', 't:one'], says: /Invalid partition 'one' specified in topic arg 't:one'/ },
            { argv: ['--delete-offsets', '--group', 'g', '--topic', 't', '--to-earliest'], says: /--to-earliest goes with --reset-offsets/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(['groups', '--bootstrap-server', '127.0.0.1:1', ...c.argv])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
    });
  });
});

describe('cli/commands/groups --delete-offsets: against a cluster', function () {
  this.timeout(60_000);
  let c: CliCluster;
  let samsa: SamsaClient;

  before(async () => {
    c = await CliCluster.start(1);
    samsa = c.cluster.samsa('delete-offsets-test');
  });
  after(async () => {
    await samsa?.close();
    await c?.stop();
  });

  it('deletes the offsets of a topic; keeps those of a topic a member subscribes to; reports a topic that does not exist', async () => {
    for (const t of ['kept', 'gone']) expect((await c.run('topics', ['--create', '--topic', t, '--partitions', '2', '--replication-factor', '1'])).code).to.equal(0);
    const admin = samsa.admin();
    await admin.connect();
    try {
      await admin.resetOffsets({ groupId: 'ledger', topic: 'kept', partitions: [{ partition: 0, offset: 0 }, { partition: 1, offset: 0 }] });
      await admin.resetOffsets({ groupId: 'ledger', topic: 'gone', partitions: [{ partition: 0, offset: 0 }, { partition: 1, offset: 0 }] });
      const committed = async (topic: string) => (await admin.fetchOffsets({ groupId: 'ledger', topics: [topic] }))[0]!.partitions.map((p) => p.offset);
      expect(await committed('gone')).to.deep.equal([0, 0]);

      const r = await c.run('groups', ['--delete-offsets', '--group', 'ledger', '--topic', 'gone']);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal(['Request succeeded for deleting offsets from group ledger.', '', 'TOPIC           PARTITION  STATUS', 'gone            0          Successful', 'gone            1          Successful', ''].join('\n'));
      expect(await committed('gone')).to.deep.equal([-1, -1]);
      expect(await committed('kept')).to.deep.equal([0, 0]);

      // a running member subscribed to 'kept'
      const consumer = samsa.consumer({ groupId: 'ledger' });
      let joined = false;
      consumer.on('group.join', () => void (joined = true));
      await consumer.connect();
      try {
        await consumer.subscribe({ topic: 'kept' });
        await consumer.run({ eachMessage: async () => undefined });
        await checkFor(() => joined, 20_000, 20);
        const refused = await c.run('groups', ['--delete-offsets', '--group', 'ledger', '--topic', 'kept:0', '--topic', 'nosuch']);
        expect(refused.code).to.equal(1);
        expect(refused.stdout).to.contain('Error: Encountered some partition-level error, see the follow-up details.');
        expect(refused.stdout).to.contain('kept            0          Error: Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.');
        expect(refused.stdout).to.match(/^nosuch +- +Error: /m);
        expect(refused.stderr).to.contain('2 partitions kept their offsets or could not be read');
        expect(await committed('kept')).to.deep.equal([0, 0]);
      } finally {
        await consumer.disconnect();
      }
    } finally {
      await admin.disconnect();
    }
  });

  it('a group that does not exist is an error', async () => {
    const r = await c.run('groups', ['--delete-offsets', '--group', 'nobody', '--topic', 'kept']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.contain("consumer group 'nobody' does not exist");
  });
});
