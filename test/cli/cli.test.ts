/**
 * The samsa command line as a user runs it: child processes of `node --import tsx
 * src/cli/samsa.ts` against a three-broker cluster reached over TCP. Covers --help and usage
 * errors (exit 2), an unreachable cluster (exit 1 with advice), topics
 * create/list/describe/alter/delete, produce from stdin and consume back, groups
 * list/describe/reset-offsets/delete, and leader elections around a broker's crash and return.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { main } from '../../src/cli/main.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

/** Runs main() in this process, capturing what it writes to stdout and stderr. */
async function inProcess(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = { out: process.stdout.write, err: process.stderr.write };
  const captured = { out: '', err: '' };
  const fake = (key: 'out' | 'err') =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured[key] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const cb = rest.find((x): x is () => void => typeof x === 'function');
      cb?.();
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = fake('out');
  process.stderr.write = fake('err');
  try {
    const code = await main(argv);
    return { code, stdout: captured.out, stderr: captured.err };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
  }
}

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** The lines a command printed (an empty last line is a line too). */
function outLines(stdout: string): string[] {
  return (stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout).split('\n');
}

/** Rows of a printed table (after its header line starting with `first`), split on runs of spaces. */
function tableRows(stdout: string, first: string): string[][] {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l.startsWith(first));
  if (at < 0) return [];
  const rows: string[][] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.trim()) break;
    rows.push(l.trim().split(/\s{2,}/));
  }
  return rows;
}

describe('cli: help and usage errors', function () {
  this.timeout(30_000);

  it('prints the command list and every command\'s --help, exit 0', async () => {
    const top = await runCli(['--help']);
    expect(top.code).to.equal(0);
    for (const c of ['start', 'topics', 'produce', 'consume', 'groups', 'leader-election', 'reassign-partitions', 'log-dirs', 'get-offsets', 'delete-records', 'dump-log', 'demo']) expect(top.stdout).to.match(new RegExp(`^  ${c} `, 'm'));
    // through main() in this process, but consume --help from a real process (as a user types it)
    const helps = await Promise.all(['start', 'topics', 'produce', 'consume', 'groups', 'leader-election', 'reassign-partitions', 'log-dirs', 'get-offsets', 'delete-records', 'dump-log', 'demo'].map(async (c) => ({ c, r: await runCli([c, '--help'], { inProcess: c !== 'consume' }) })));
    for (const { c, r } of helps) {
      expect(r.code, `${c} --help`).to.equal(0);
      expect(r.stdout, c).to.match(new RegExp(`^usage: samsa ${c}`));
      expect(r.stdout, c).to.contain('-h, --help');
    }
    const topicsHelp = helps.find((h) => h.c === 'topics')!.r.stdout;
    for (const o of ['--create', '--list', '--describe', '--delete', '--alter', '--partitions', '--replication-factor', '--config', '--bootstrap-server']) expect(topicsHelp).to.contain(o);
    const helpCmd = await runCli(['help', 'consume']);
    expect(helpCmd.code).to.equal(0);
    expect(helpCmd.stdout).to.match(/^usage: samsa consume/);
  });

  it('exits 2 with a message naming the problem for bad command lines', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['frobnicate'], says: /unknown command 'frobnicate'/ },
      { argv: ['consume', '--topic', 't', '--max-mesages', '3'], says: /unknown option --max-mesages \(did you mean --max-messages\?\)/ },
      { argv: ['consume'], says: /--topic is required/ },
      { argv: ['produce'], says: /--topic is required/ },
      { argv: ['topics'], says: /give one of --create, --list, --describe, --delete, --alter/ },
      { argv: ['topics', '--create', '--list'], says: /give only one of .* \(got --create and --list\)/ },
      { argv: ['topics', '--list', '--partitions', '3'], says: /--partitions goes with --create or --alter, not with --list/ },
      { argv: ['topics', '--create'], says: /--create needs --topic/ },
      { argv: ['topics', '--alter', '--topic', 't'], says: /--alter needs --partitions n \(the new partition count\), --config key=value or --delete-config key/ },
      { argv: ['topics', '--create', '--topic', 't', '--partitions', 'many'], says: /--partitions takes an integer, got 'many'/ },
      { argv: ['topics', '--create', '--topic', 't', '--partitions', '0'], says: /--partitions must be at least 1/ },
      { argv: ['topics', '--create', '--topic', 't', '--config', 'retention.ms'], says: /--config takes key=value, got 'retention.ms'/ },
      { argv: ['topics', '--list', '--bootstrap-server', 'localhost'], says: /'localhost' is not host:port/ },
      { argv: ['produce', '--topic', 't', '--acks', '2'], says: /--acks must be one of all, -1, 1, 0/ },
      { argv: ['produce', '--topic', 't', '--producer-property', 'linger=5'], says: /--producer-property linger: unknown producer config key/ },
      { argv: ['consume', '--topic', 't', '--consumer-property', 'group.id=x'], says: /set the group with --group/ },
      { argv: ['consume', '--topic', 't', '--isolation-level', 'committed'], says: /--isolation-level must be read_committed or read_uncommitted, got 'committed'/ },
      { argv: ['consume', '--topic', 't', '--isolation-level', 'read_committed', '--consumer-property', 'isolation.level=read_committed'], says: /give the isolation level once/ },
      { argv: ['consume', '--topic', 't', '--consumer-property', 'isolation.level=none'], says: /--consumer-property isolation\.level: must be read_uncommitted or read_committed/ },
      { argv: ['groups', '--describe'], says: /--describe needs --group/ },
      { argv: ['groups', '--reset-offsets', '--group', 'g', '--topic', 't'], says: /--reset-offsets takes exactly one of these options: --to-earliest, --to-latest, --to-offset, --to-datetime, --by-duration, --shift-by, --to-current/ },
      { argv: ['groups', '--list', '--topic', 't'], says: /--topic goes with --reset-offsets or --delete-offsets, not with --list/ },
      { argv: ['groups', '--list', '--state', 'sleeping'], says: /Invalid state list 'sleeping'\. Valid states are: PreparingRebalance, CompletingRebalance, Stable, Dead, Empty, Assigning, Reconciling/ },
      { argv: ['groups', '--list', '--type', 'share'], says: /Invalid types list 'share'\. Valid types are: Classic, Consumer/ },
      { argv: ['start', 'a.json', 'b.json'], says: /unexpected argument 'b.json'/ },
      { argv: ['leader-election', '--topic', 't'], says: /give --election-type preferred or --election-type unclean/ },
      { argv: ['leader-election', '--election-type', 'random', '--topic', 't'], says: /--election-type must be preferred or unclean, got 'random'/ },
      { argv: ['leader-election', '--election-type', 'preferred'], says: /give exactly one of --topic t \[--partition n\], --path-to-json-file file, --all-topic-partitions/ },
      { argv: ['leader-election', '--election-type', 'preferred', '--topic', 't', '--all-topic-partitions'], says: /give exactly one of/ },
      { argv: ['leader-election', '--election-type', 'preferred', '--partition', '1', '--all-topic-partitions'], says: /--partition goes with --topic/ },
    ];
    // every case through main() in this process, a few as real processes
    const results = [];
    for (const c of cases) results.push(await inProcess(c.argv));
    results.push(...(await Promise.all([0, 1, 2, 6].map((i) => runCli(cases[i]!.argv)))));
    const argvs = [...cases, ...[0, 1, 2, 6].map((i) => cases[i]!)];
    results.forEach((r, i) => {
      const c = argvs[i]!;
      expect(r.code, `${c.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr, c.argv.join(' ')).to.match(c.says);
      expect(r.stdout, c.argv.join(' ')).to.equal('');
    });
    // the command's own errors point at its --help
    expect(results[2]!.stderr).to.contain('run `samsa consume --help` for the options');
  });

  it('exits 1 and names the likely mix-up when the port closes the handshake, as a Kafka listener does', async () => {
    // like a Kafka listener: the first bytes are not a Kafka request, so the connection is closed
    const srv = net.createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as net.AddressInfo).port;
    try {
      const r = await runCli(['topics', '--list', '--bootstrap-server', `127.0.0.1:${port}`]);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain(`cannot reach the cluster at 127.0.0.1:${port}: the connection was closed during the handshake (is that port a Kafka listener? the samsa commands reach a samsa client listener, 127.0.0.1:9192 in the embedded topology)`);
    } finally {
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });

  it('exits 1 and says what to do when the cluster is unreachable', async () => {
    const port = await closedPort();
    const [topics, consume] = await Promise.all([
      runCli(['topics', '--list', '--bootstrap-server', `127.0.0.1:${port}`]),
      runCli(['consume', '--topic', 't', '--bootstrap-server', `127.0.0.1:${port}`]),
    ]);
    for (const r of [topics, consume]) {
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain(`cannot reach the cluster at 127.0.0.1:${port}: connection refused — is it running? start it with \`npm start\``);
      expect(r.stdout).to.equal('');
    }
  });
});

describe('cli: commands against a cluster', function () {
  this.timeout(60_000);
  let c: CliCluster;
  let samsa: SamsaClient;

  before(async () => {
    c = await CliCluster.start(3);
    samsa = c.cluster.samsa('cli-test');
  });
  after(async () => {
    await c?.stop();
  });

  it('topics: create, list, describe, alter, delete', async () => {
    const created = await c.run('topics', ['--create', '--topic', 'orders', '--partitions', '2', '--replication-factor', '3', '--config', 'retention.ms=86400000', '--config', 'min.insync.replicas=2']);
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stdout).to.equal('Created topic orders.\n');

    const list = await c.run('topics', ['--list']);
    expect(list.code).to.equal(0);
    expect(list.stdout.split('\n')).to.include('orders');

    const described = await c.run('topics', ['--describe', '--topic', 'orders']);
    expect(described.code, described.stderr).to.equal(0);
    const lines = outLines(described.stdout);
    expect(lines[0]).to.match(/^Topic: orders\tTopicId: \S+\tPartitionCount: 2\tReplicationFactor: 3\tConfigs: min.insync.replicas=2,retention.ms=86400000$/);
    expect(lines).to.have.length(3);
    for (const [i, l] of lines.slice(1).entries()) {
      const m = /^\tTopic: orders\tPartition: (\d+)\tLeader: (\d+)\tLeaderEpoch: (\d+)\tReplicas: ([\d,]+)\tIsr: ([\d,]+)\tElr: ([\d,]*)\tLastKnownElr: ([\d,]*)$/.exec(l);
      expect(m, l).to.not.equal(null);
      expect(Number(m![1])).to.equal(i);
      expect(m![4]!.split(',').map(Number).sort()).to.deep.equal([1, 2, 3]);
      expect(m![4]!.split(',')).to.include(m![2]);
      expect(m![5]!.split(',').map(Number).sort()).to.deep.equal([1, 2, 3]);
    }

    // by its id, as Kafka's kafka-topics --topic-id
    const id = /\tTopicId: (\S+)\t/.exec(lines[0]!)![1]!;
    const byId = await c.run('topics', ['--describe', '--topic-id', id]);
    expect(byId.code, byId.stderr).to.equal(0);
    expect(outLines(byId.stdout)).to.deep.equal(lines);
    const both = await c.run('topics', ['--describe', '--topic', 'other', '--topic-id', id]);
    expect(outLines(both.stdout)[0]).to.equal('Only topic id will be used when both --topic and --topic-id are specified and topicId is not Uuid.ZERO_UUID');
    expect(outLines(both.stdout).slice(1)).to.deep.equal(lines);
    const unknownId = await c.run('topics', ['--describe', '--topic-id', 'AAAAAAAAAAAAAAAAAAAAAg']);
    expect(unknownId.code).to.equal(1);
    expect(unknownId.stderr).to.contain("topic id 'AAAAAAAAAAAAAAAAAAAAAg' does not exist");
    expect((await c.run('topics', ['--describe', '--topic-id', 'AAAAAAAAAAAAAAAAAAAAAg', '--if-exists'])).code).to.equal(0);
    const badId = await c.run('topics', ['--describe', '--topic-id', 'orders']);
    expect(badId.code).to.equal(2);
    expect(badId.stderr).to.contain("--topic-id: 'orders' is not a topic id");

    const altered = await c.run('topics', ['--alter', '--topic', 'orders', '--partitions', '4']);
    expect(altered.code, altered.stderr).to.equal(0);
    const after = await c.run('topics', ['--describe', '--topic', 'orders']);
    expect(after.stdout).to.contain('PartitionCount: 4');
    expect(outLines(after.stdout)).to.have.length(5);

    // config overrides set and removed on a live topic, the others kept
    const reconfigured = await c.run('topics', ['--alter', '--topic', 'orders', '--config', 'cleanup.policy=compact,delete', '--config', 'min.cleanable.dirty.ratio=0.1', '--delete-config', 'retention.ms']);
    expect(reconfigured.code, reconfigured.stderr).to.equal(0);
    expect(reconfigured.stdout).to.equal('Updated the config of topic orders.\n');
    const afterConfig = await c.run('topics', ['--describe', '--topic', 'orders']);
    expect(outLines(afterConfig.stdout)[0]).to.match(/\tConfigs: cleanup.policy=compact,delete,min.cleanable.dirty.ratio=0.1,min.insync.replicas=2$/);
    const badValue = await c.run('topics', ['--alter', '--topic', 'orders', '--config', 'cleanup.policy=shred']);
    expect(badValue.code).to.equal(1);
    expect(badValue.stderr).to.contain('INVALID_CONFIG').and.contain('cleanup.policy');
    const missing = await c.run('topics', ['--alter', '--topic', 'no-such-topic', '--config', 'retention.ms=1']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain("topic 'no-such-topic' does not exist");

    const again = await c.run('topics', ['--create', '--topic', 'orders']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain("topic 'orders' already exists — add --if-not-exists");
    const ifNotExists = await c.run('topics', ['--create', '--topic', 'orders', '--if-not-exists']);
    expect(ifNotExists.code).to.equal(0);

    const deleted = await c.run('topics', ['--delete', '--topic', 'orders']);
    expect(deleted.code, deleted.stderr).to.equal(0);
    const gone = await c.run('topics', ['--describe', '--topic', 'orders']);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.contain("topic 'orders' does not exist");
    const ifExists = await c.run('topics', ['--delete', '--topic', 'orders', '--if-exists']);
    expect(ifExists.code).to.equal(0);
  });

  it('topics: a bad config key fails with exit 1 and names the key', async () => {
    const r = await c.run('topics', ['--create', '--topic', 'bad-config', '--config', 'retention.foo=1']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.contain('INVALID_CONFIG');
    expect(r.stderr).to.contain('retention.foo');
    const rf = await c.run('topics', ['--create', '--topic', 'too-many-replicas', '--replication-factor', '5']);
    expect(rf.code).to.equal(1);
    expect(rf.stderr).to.contain('INVALID_REPLICATION_FACTOR');
    const list = await c.run('topics', ['--list']);
    expect(list.stdout).to.not.contain('bad-config');
  });

  it('produces keyed lines from stdin and consumes them back with keys', async () => {
    expect((await c.run('topics', ['--create', '--topic', 'lines', '--partitions', '3', '--replication-factor', '2'])).code).to.equal(0);
    const input = ['alice:one', 'bob:two', 'carol:three', 'alice:four', 'bob:five:with:colons', 'dave:'];
    const produced = await c.run('produce', ['--topic', 'lines', '--key-separator', ':', '--acks', 'all'], { stdin: `${input.join('\n')}\n` });
    expect(produced.code, produced.stderr).to.equal(0);
    expect(produced.stdout).to.equal('');
    expect(produced.stderr).to.match(/^produced 6 records to lines in \d+ ms \(acks=all\)\n$/);

    // with keys, and values only: neither run has a group, so they can read together
    const [consumed, values] = await Promise.all([
      c.run('consume', ['--topic', 'lines', '--from-beginning', '--max-messages', '6', '--print-key']),
      c.run('consume', ['--topic', 'lines', '--from-beginning', '--max-messages', '6']),
    ]);
    expect(consumed.code, consumed.stderr).to.equal(0);
    const got = outLines(consumed.stdout);
    expect([...got].sort()).to.deep.equal(input.map((l) => l.replace(':', '\t')).sort());
    // one key is one partition: per key, the order is the order produced
    expect(got.filter((l) => l.startsWith('alice\t'))).to.deep.equal(['alice\tone', 'alice\tfour']);
    expect(got.filter((l) => l.startsWith('bob\t'))).to.deep.equal(['bob\ttwo', 'bob\tfive:with:colons']);
    expect(consumed.stderr).to.contain('Processed a total of 6 messages');

    // values only, and without a group nothing is left behind
    expect(outLines(values.stdout).sort()).to.deep.equal(['', 'five:with:colons', 'four', 'one', 'three', 'two']);
    const groups = await c.run('groups', ['--list']);
    expect(groups.code).to.equal(0);
    expect(groups.stdout).to.not.contain('samsa-console-consumer');
  });

  it('produce: a line without the separator, a missing topic and a bad partition fail with exit 1', async () => {
    expect((await c.run('topics', ['--create', '--topic', 'strict', '--partitions', '2'])).code).to.equal(0);
    const [noSep, noTopic, badPartition] = await Promise.all([
      c.run('produce', ['--topic', 'strict', '--key-separator', '='], { stdin: 'a=1\nno separator here\nc=3\n' }),
      c.run('produce', ['--topic', 'no-such-topic'], { stdin: 'x\n' }),
      c.run('produce', ['--topic', 'strict', '--partition', '7'], { stdin: 'x\n' }),
    ]);
    expect(noSep.code).to.equal(1);
    expect(noSep.stderr).to.contain("line 2 has no key separator '='");
    expect(noSep.stderr).to.contain('1 record before it was sent');
    expect(noTopic.code).to.equal(1);
    expect(noTopic.stderr).to.contain("topic 'no-such-topic' does not exist — create it with `samsa topics");
    expect(badPartition.code).to.equal(1);
    expect(badPartition.stderr).to.contain("topic 'strict' has 2 partitions (0-1)");
    const consumed = await c.run('consume', ['--topic', 'strict', '--from-beginning', '--timeout-ms', '1500', '--print-key']);
    expect(consumed.code).to.equal(0);
    expect(consumed.stdout).to.equal('a\t1\n');
  });

  it('consume: --group commits exactly what was printed; --partition sends to one partition; --timeout-ms ends an idle run', async () => {
    expect((await c.run('topics', ['--create', '--topic', 'counted', '--partitions', '2'])).code).to.equal(0);
    const lines = Array.from({ length: 10 }, (_, i) => `v${i}`);
    const produced = await c.run('produce', ['--topic', 'counted', '--partition', '1'], { stdin: `${lines.join('\n')}\n` });
    expect(produced.code, produced.stderr).to.equal(0);

    const first = await c.run('consume', ['--topic', 'counted', '--group', 'counter', '--from-beginning', '--max-messages', '4', '--print-partition', '--print-offset']);
    expect(first.code, first.stderr).to.equal(0);
    expect(outLines(first.stdout)).to.deep.equal(lines.slice(0, 4).map((v, i) => `Partition:1\tOffset:${i}\t${v}`));

    const described = await c.run('groups', ['--describe', '--group', 'counter']);
    expect(described.code, described.stderr).to.equal(0);
    expect(described.stdout).to.match(/^Group: counter\tState: Empty\t/);
    const rows = tableRows(described.stdout, 'TOPIC');
    expect(rows.map((r) => r.slice(0, 5))).to.deep.equal([
      ['counted', '0', '-', '0', '-'],
      ['counted', '1', '4', '10', '6'],
    ]);

    // the group resumes where it stopped; with nothing left, the idle timeout ends the run
    const rest = await c.run('consume', ['--topic', 'counted', '--group', 'counter', '--timeout-ms', '1500']);
    expect(rest.code, rest.stderr).to.equal(0);
    expect(outLines(rest.stdout)).to.deep.equal(lines.slice(4));
    expect(rest.stderr).to.contain('Processed a total of 6 messages');
  });

  it('groups: list and describe show members with their assignment, offsets and lag; reset-offsets plans, then executes; delete', async () => {
    expect((await c.run('topics', ['--create', '--topic', 'billing', '--partitions', '3', '--replication-factor', '3'])).code).to.equal(0);
    const producer = samsa.producer();
    await producer.connect();
    await producer.send({ topic: 'billing', messages: Array.from({ length: 9 }, (_, i) => ({ value: `b${i}`, partition: i % 3 })) });
    await producer.disconnect();

    // an active member, in-process
    const consumer = samsa.consumer({ groupId: 'payments', 'client.id': 'payments-app', 'auto.commit.interval.ms': 100 });
    let joined = false;
    consumer.on('group.join', () => void (joined = true));
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: 'billing', fromBeginning: true });
    await consumer.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => joined && seen.length === 9, 20_000, 20);
    await consumer.commitOffsets();

    const list = await c.run('groups', ['--list', '--state']);
    expect(list.code, list.stderr).to.equal(0);
    expect(tableRows(list.stdout, 'GROUP')).to.deep.include(['payments', 'Stable']);
    const typed = await c.run('groups', ['--list', '--type', '--state', 'stable,empty']);
    expect(typed.code, typed.stderr).to.equal(0);
    expect(outLines(typed.stdout)[0]!.split(/\s+/)).to.deep.equal(['GROUP', 'TYPE', 'STATE']);
    expect(tableRows(typed.stdout, 'GROUP')).to.deep.include(['payments', 'Classic', 'Stable']);
    expect(tableRows((await c.run('groups', ['--list', '--type', 'consumer'])).stdout, 'GROUP').map((r) => r[0])).to.not.include('payments');
    expect(tableRows((await c.run('groups', ['--list', '--state', 'Dead'])).stdout, 'GROUP').map((r) => r[0])).to.not.include('payments');

    const described = await c.run('groups', ['--describe', '--group', 'payments']);
    expect(described.code, described.stderr).to.equal(0);
    expect(described.stdout).to.match(/^Group: payments\tState: Stable\tProtocol: consumer\/\w+\tGeneration: \d+\tMembers: 1$/m);
    const members = tableRows(described.stdout, 'MEMBER-ID');
    expect(members).to.have.length(1);
    expect(members[0]![2]).to.equal('payments-app');
    expect(members[0]![4]).to.equal('billing:0,1,2');
    const offsets = tableRows(described.stdout, 'TOPIC');
    expect(offsets.map((r) => r.slice(0, 5))).to.deep.equal([0, 1, 2].map((p) => ['billing', String(p), '3', '3', '0']));
    expect(offsets.every((r) => r[5] === members[0]![0] && r[6] === 'payments-app')).to.equal(true);

    const busy = await c.run('groups', ['--reset-offsets', '--group', 'payments', '--topic', 'billing', '--to-earliest']);
    expect(busy.code).to.equal(1);
    expect(busy.stderr).to.contain("consumer group 'payments' has 1 active member (state Stable)");
    expect(busy.stderr).to.contain('stop them first');

    await consumer.disconnect();

    const dry = await c.run('groups', ['--reset-offsets', '--group', 'payments', '--topic', 'billing', '--to-earliest']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(tableRows(dry.stdout, 'GROUP')).to.deep.equal([0, 1, 2].map((p) => ['payments', 'billing', String(p), '3', '0']));
    expect(dry.stderr).to.contain('dry run: nothing was changed — add --execute');
    const admin = samsa.admin();
    await admin.connect();
    const committed = async () => (await admin.fetchOffsets({ groupId: 'payments', topics: ['billing'] }))[0]!.partitions.map((p) => p.offset);
    expect(await committed()).to.deep.equal([3, 3, 3]);

    const exec = await c.run('groups', ['--reset-offsets', '--group', 'payments', '--topic', 'billing', '--to-offset', '1', '--execute']);
    expect(exec.code, exec.stderr).to.equal(0);
    expect(tableRows(exec.stdout, 'GROUP')).to.deep.equal([0, 1, 2].map((p) => ['payments', 'billing', String(p), '3', '1']));
    expect(await committed()).to.deep.equal([1, 1, 1]);

    const clamped = await c.run('groups', ['--reset-offsets', '--group', 'payments', '--topic', 'billing', '--to-offset', '99', '--execute']);
    expect(clamped.code, clamped.stderr).to.equal(0);
    expect(clamped.stderr).to.contain('billing-0: offset 99 is past the latest offset 3; using 3');
    expect(await committed()).to.deep.equal([3, 3, 3]);

    const toEarliest = await c.run('groups', ['--reset-offsets', '--group', 'payments', '--topic', 'billing', '--to-earliest', '--execute']);
    expect(toEarliest.code, toEarliest.stderr).to.equal(0);
    expect(await committed()).to.deep.equal([0, 0, 0]);
    await admin.disconnect();

    const lag = await c.run('groups', ['--describe', '--group', 'payments']);
    expect(lag.stdout).to.contain("Consumer group 'payments' has no active members.");
    expect(tableRows(lag.stdout, 'TOPIC').map((r) => r.slice(0, 5))).to.deep.equal([0, 1, 2].map((p) => ['billing', String(p), '0', '3', '3']));

    const deleted = await c.run('groups', ['--delete', '--group', 'payments']);
    expect(deleted.code, deleted.stderr).to.equal(0);
    expect(deleted.stdout).to.equal("Deleted consumer group 'payments'.\n");
    const missing = await c.run('groups', ['--describe', '--group', 'payments']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain("consumer group 'payments' does not exist");
  });

  it('groups: describe shows a group of samsa consumers with group.protocol consumer (KIP-848): each member with its epoch and assignment', async () => {
    expect((await c.run('topics', ['--create', '--topic', 'shipping', '--partitions', '3', '--replication-factor', '2'])).code).to.equal(0);
    const producer = samsa.producer();
    await producer.connect();
    await producer.send({ topic: 'shipping', messages: Array.from({ length: 6 }, (_, i) => ({ value: `s${i}`, partition: i % 3 })) });
    await producer.disconnect();
    const consumer = samsa.consumer({ groupId: 'shippers', groupProtocol: 'consumer', 'client.id': 'shipping-app', 'auto.commit.interval.ms': 100 });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: 'shipping', fromBeginning: true });
    await consumer.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => seen.length === 6, 20_000, 20);
    await consumer.commitOffsets();
    const me = await consumer.describe();
    try {
      const described = await c.run('groups', ['--describe', '--group', 'shippers']);
      expect(described.code, described.stderr).to.equal(0);
      expect(described.stdout).to.match(/^Group: shippers\tState: Stable\tProtocol: consumer \(assignor uniform\)\tEpoch: \d+\tAssignment epoch: \d+\tMembers: 1$/m);
      const members = tableRows(described.stdout, 'MEMBER-ID');
      expect(members).to.deep.equal([[me.memberId, '-', String(me.generationId), 'shipping-app', members[0]![4]!, 'true', 'shipping:0,1,2']]);
      const offsets = tableRows(described.stdout, 'TOPIC');
      expect(offsets.map((r) => r.slice(0, 5))).to.deep.equal([0, 1, 2].map((p) => ['shipping', String(p), '2', '2', '0']));
    } finally {
      await consumer.disconnect();
    }
    const list = await c.run('groups', ['--list', '--state', '--type']);
    expect(tableRows(list.stdout, 'GROUP')).to.deep.include(['shippers', 'Consumer', 'Empty']);
  });

  it('consume: Ctrl-C (SIGINT) stops cleanly, commits what was printed and leaves the group', async () => {
    expect((await c.run('topics', ['--create', '--topic', 'interrupted', '--partitions', '1'])).code).to.equal(0);
    expect((await c.run('produce', ['--topic', 'interrupted'], { stdin: 'x1\nx2\nx3\n' })).code).to.equal(0);
    const running = c.start('consume', ['--topic', 'interrupted', '--group', 'sigint', '--from-beginning']);
    await checkFor(() => running.stdout().split('\n').length > 3, 20_000, 20);
    running.child.kill('SIGINT');
    const r = await running.result;
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('x1\nx2\nx3\n');
    expect(r.stderr).to.contain('Processed a total of 3 messages');
    const described = await c.run('groups', ['--describe', '--group', 'sigint']);
    expect(described.stdout).to.match(/State: Empty/);
    expect(tableRows(described.stdout, 'TOPIC').map((row) => row.slice(0, 5))).to.deep.equal([['interrupted', '0', '3', '3', '0']]);
  });

  it('leader-election: gives a returning broker its partitions back, reports what needed nothing, and exits 1 for what it cannot elect', async () => {
    expect((await c.run('topics', ['--create', '--topic', 'le', '--partitions', '2', '--replication-factor', '3'])).code).to.equal(0);
    const admin = samsa.admin();
    await admin.connect();
    const leaders = async () => (await admin.fetchTopicMetadata({ topics: ['le'] })).topics[0]!.partitions.sort((a, b) => a.partition - b.partition);
    try {
      await checkFor(async () => (await leaders()).every((p) => p.leader === p.replicas[0]), 15_000, 50);
      const victim = (await leaders())[0]!.replicas[0]!;
      await c.cluster.killBroker(victim);
      await checkFor(async () => {
        const p = (await leaders())[0]!;
        return p.leader >= 0 && p.leader !== victim;
      }, 30_000, 100);

      // the preferred replica is down: nothing to elect it to, exit 1
      const down = await c.run('leader-election', ['--election-type', 'preferred', '--topic', 'le', '--partition', '0']);
      expect(down.code).to.equal(1);
      expect(down.stderr).to.contain('Error completing leader election (PREFERRED) for partitions le-0');
      expect(down.stderr).to.contain('PREFERRED_LEADER_NOT_AVAILABLE').and.contain('1 replica(s) could not be elected');

      await c.cluster.startBroker(victim);
      await checkFor(async () => (await leaders()).every((p) => p.isr.includes(victim)), 30_000, 100);
      const one = await c.run('leader-election', ['--election-type', 'preferred', '--topic', 'le']);
      expect(one.code, one.stderr).to.equal(0);
      expect(outLines(one.stdout)).to.deep.equal(['Successfully completed leader election (PREFERRED) for partitions le-0', 'Valid replica already elected for partitions le-1']);
      expect((await leaders())[0]!.leader).to.equal(victim);

      // every other partition the crash moved (the offsets topic's) goes back too; then nothing is left
      const all = await c.run('leader-election', ['--election-type', 'PREFERRED', '--all-topic-partitions']);
      expect(all.code, all.stderr).to.equal(0);
      const md = await admin.fetchTopicMetadata();
      for (const t of md.topics) for (const p of t.partitions) expect(p.leader, `${t.name}-${p.partition}`).to.equal(p.replicas[0]);
      const none = await c.run('leader-election', ['--election-type', 'preferred', '--all-topic-partitions']);
      expect(none.stdout).to.equal('No partition needed an election.\n');

      // Kafka's JSON file; an unclean election for a partition that has a leader needs nothing
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-cli-le-'));
      try {
        const file = path.join(dir, 'partitions.json');
        fs.writeFileSync(file, JSON.stringify({ partitions: [{ topic: 'le', partition: 1 }] }));
        const unclean = await c.run('leader-election', ['--election-type', 'unclean', '--path-to-json-file', file]);
        expect(unclean.code, unclean.stderr).to.equal(0);
        expect(unclean.stdout).to.equal('Valid replica already elected for partitions le-1\n');
        fs.writeFileSync(file, '{"partitions": [{"topic": "le"}]}');
        const bad = await c.run('leader-election', ['--election-type', 'unclean', '--path-to-json-file', file]);
        expect(bad.code).to.equal(1);
        expect(bad.stderr).to.contain('partitions[0] must be {"topic": "<name>", "partition": <integer >= 0>}');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      const missing = await c.run('leader-election', ['--election-type', 'preferred', '--topic', 'no-such']);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.contain("topic 'no-such' does not exist");
    } finally {
      await admin.disconnect();
    }
  });
});
