/**
 * `samsa groups --describe` with Kafka's tables (--offsets, --members, --state, --verbose)
 * against a cluster: a classic group with a static member and a KIP-848 group, each as Kafka's
 * tool prints it; a group without members notes it on stderr; the command lines that cannot work.
 */
import { expect } from 'chai';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

const rows = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split(/\s{2,}/));

describe("cli/commands/groups --describe: Kafka's tables", function () {
  this.timeout(60_000);
  let c: CliCluster;
  let samsa: SamsaClient;

  before(async () => {
    c = await CliCluster.start(1);
    samsa = c.cluster.samsa('groups-describe-test');
    expect((await c.run('topics', ['--create', '--topic', 'gd', '--partitions', '2', '--replication-factor', '1'])).code).to.equal(0);
    const producer = samsa.producer();
    await producer.connect();
    await producer.send({ topic: 'gd', messages: Array.from({ length: 6 }, (_, i) => ({ value: `v${i}`, partition: i % 2 })) });
    await producer.disconnect();
  });
  after(async () => {
    await samsa?.close();
    await c?.stop();
  });

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['--describe', '--group', 'g', '--members', '--state'], says: /give only one of --offsets, --members, --state/ },
      { argv: ['--describe', '--group', 'g', '--verbose'], says: /--verbose goes with --describe --members or --state/ },
      { argv: ['--describe', '--group', 'g', '--state', 'Stable'], says: /--describe --state takes no value/ },
      { argv: ['--list', '--members'], says: /--members goes with --describe/ },
    ];
    const results = await Promise.all(cases.map((x) => runCli(['groups', '--bootstrap-server', '127.0.0.1:1', ...x.argv])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
    });
  });

  it('a classic group with a static member: members (the instance id column), state, offsets', async () => {
    const consumer = samsa.consumer({ groupId: 'gd-classic', 'client.id': 'gd-app', 'group.instance.id': 'worker-1' });
    const seen: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: 'gd', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
      await checkFor(() => seen.length === 6, 20_000, 20);
      await consumer.commitOffsets();
      const [members, verbose, state, offsets] = await Promise.all([
        c.run('groups', ['--describe', '--group', 'gd-classic', '--members']),
        c.run('groups', ['--describe', '--group', 'gd-classic', '--members', '--verbose']),
        c.run('groups', ['--describe', '--group', 'gd-classic', '--state']),
        c.run('groups', ['--describe', '--group', 'gd-classic', '--offsets']),
      ]);
      for (const r of [members, verbose, state, offsets]) expect(r.code, r.stderr).to.equal(0);
      const m = rows(members.stdout);
      expect(m[0]).to.deep.equal(['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS']);
      expect(m[1]!.slice(0, 1).concat(m[1]!.slice(2))).to.deep.equal(['gd-classic', 'worker-1', m[1]![3]!, 'gd-app', '2']);
      expect(rows(verbose.stdout)[1]!.slice(-4)).to.deep.equal(['-', 'gd(0,1)', '-', '-']);
      const s = rows(state.stdout);
      expect(s[0]).to.deep.equal(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS']);
      expect(s[1]![0]).to.equal('gd-classic');
      expect(state.stdout).to.match(/ {2}\(1\)\s+\S+\s+Stable\s+1\n$/);
      const o = rows(offsets.stdout);
      expect(o[0]).to.deep.equal(['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID']);
      expect(o.slice(1).map((r) => r.slice(0, 6))).to.deep.equal([
        ['gd-classic', 'gd', '0', '3', '3', '0'],
        ['gd-classic', 'gd', '1', '3', '3', '0'],
      ]);
      expect(o[1]![6]).to.equal(m[1]![1]);
    } finally {
      await consumer.disconnect();
    }
  });

  it('a KIP-848 group: epochs and assignor in --state --verbose and --members --verbose; once its member left, a note that it has none', async () => {
    const consumer = samsa.consumer({ groupId: 'gd-848', groupProtocol: 'consumer' });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: 'gd', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => seen.length === 6, 20_000, 20);
    await consumer.commitOffsets();
    const [state, members] = await Promise.all([c.run('groups', ['--describe', '--group', 'gd-848', '--state', '--verbose']), c.run('groups', ['--describe', '--group', 'gd-848', '--members', '--verbose'])]);
    expect(state.code, state.stderr).to.equal(0);
    expect(rows(state.stdout)[0]).to.deep.equal(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', 'GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH', '#MEMBERS']);
    expect(state.stdout).to.match(/\s+(uniform|range)\s+Stable\s+\d+\s+\d+\s+1\n$/);
    const m = rows(members.stdout);
    expect(m[0]).to.deep.equal(['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT']);
    expect(m[1]!.slice(-4, -3)[0]).to.match(/^\d+$/);
    expect(m[1]!.slice(-3)).to.deep.equal(['gd(0,1)', m[1]![m[1]!.length - 2]!, 'gd(0,1)']);
    await consumer.disconnect();
    const empty = await c.run('groups', ['--describe', '--group', 'gd-848', '--offsets']);
    expect(empty.code, empty.stderr).to.equal(0);
    expect(empty.stderr).to.contain("Consumer group 'gd-848' has no active members.");
    expect(rows(empty.stdout).slice(1).map((r) => r.slice(0, 6).concat(r.slice(6)))).to.deep.equal([
      ['gd-848', 'gd', '0', '3', '3', '0', '-', '-', '-'],
      ['gd-848', 'gd', '1', '3', '3', '0', '-', '-', '-'],
    ]);
    const missing = await c.run('groups', ['--describe', '--group', 'gd-none', '--members']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain("consumer group 'gd-none' does not exist");
  });
});
