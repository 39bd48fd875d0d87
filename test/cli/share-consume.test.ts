/**
 * `samsa share-consume` (Kafka's kafka-console-share-consumer): its command line (what it
 * refuses, the share consumer config it builds, the record lines it prints), then runs against a
 * one-broker cluster: records printed with Kafka's formatter fields, --max-messages and its count,
 * --timeout-ms ending an idle run, accepted records not printed again by the group, --reject
 * archiving them (a second run gets nothing), --release giving them back (a second run gets them
 * again), Ctrl-C committing what was printed, and where the group id comes from.
 */
import { expect } from 'chai';
import { sharePartitionManagerPath, type DescribedSharePartition, type SharePartitionsDescription } from '../../actors/share-partition/messages.js';
import { parseArgs } from '../../src/cli/args.js';
import { formatRecord, shareConsumeCommand, shareConsumerConfig } from '../../src/cli/commands/share-consume.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import type { ShareRecord } from '../../src/client/share-consumer.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { produceValues } from '../helpers/group-records.js';
import { scratchDir, usageErrorOf } from '../helpers/usage-errors.js';
import { CliCluster, runCli } from './cli-harness.js';

const lines = (s: string) => s.split('\n').filter((l) => l !== '');
const configOf = (argv: string[]) => shareConsumerConfig(parseArgs(argv, shareConsumeCommand.options));

describe('cli: share-consume, its command line', () => {
  let scratch: ReturnType<typeof scratchDir>;
  before(() => {
    scratch = scratchDir('samsa-share-consume-');
  });
  after(() => scratch.remove());

  it('refuses what kafka-console-share-consumer refuses, and configs the share consumer refuses, before connecting (exit 2)', async () => {
    const file = scratch.file('other-group.properties', 'group.id=from-file\n');
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['share-consume'], says: /--topic is required/ },
      { argv: ['share-consume', '--topic', 't', '--reject', '--release'], says: /At most one of --reject and --release may be specified\./ },
      { argv: ['share-consume', '--topic', 't', '--group', 'a', '--consumer-property', 'group.id=b'], says: /The group ids provided in different places .* do not match\. Detected group ids: 'a', 'b'/ },
      { argv: ['share-consume', '--topic', 't', '--group', 'a', '--command-config', file], says: /do not match\. Detected group ids: 'a', 'from-file'/ },
      { argv: ['share-consume', '--topic', 't', '--consumer-property', 'a=1', '--command-property', 'b=2'], says: /Options --consumer-property and --command-property cannot be specified together\./ },
      { argv: ['share-consume', '--topic', 't', '--command-config', file, '--consumer-config', file], says: /Options --consumer-config and --command-config cannot be specified together\./ },
      { argv: ['share-consume', '--topic', 't', '--consumer-property', 'share.acknowledgement.mode=implicit'], says: /share\.acknowledgement\.mode=implicit: samsa share-consume acknowledges each record itself/ },
      { argv: ['share-consume', '--topic', 't', '--command-property', 'max.poll.records=0'], says: /--command-property max\.poll\.records: 0 is not valid: must be >= 1/ },
      { argv: ['share-consume', '--topic', 't', '--consumer-property', 'auto.offset.reset=earliest'], says: /--consumer-property auto\.offset\.reset: unknown share consumer config key/ },
      { argv: ['share-consume', '--topic', 't', '--command-config', `${scratch.dir}/none.properties`], says: /--command-config .*none\.properties: no such file/ },
      { argv: ['share-consume', '--topic', 't', '--max-messages', '0'], says: /--max-messages must be at least 1/ },
    ];
    for (const c of cases) {
      const r = await runCli(c.argv, { inProcess: true });
      expect(r.code, `${c.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr, c.argv.join(' ')).to.match(c.says);
    }
  });

  it('builds the share consumer config: explicit acknowledgement, Kafka\'s default group, the file under the properties, no more records per poll than --max-messages', () => {
    expect(configOf(['--topic', 't'])).to.deep.equal({ 'group.id': 'console-share-consumer', 'share.acknowledgement.mode': 'explicit', 'client.id': 'samsa-share-consume' });
    const file = scratch.file('c.properties', 'group.id=billing\nclient.id=from-file\nfetch.max.wait.ms=100\nshare.acknowledgement.mode=EXPLICIT\n');
    expect(configOf(['--topic', 't', '--command-config', file, '--consumer-property', 'fetch.max.wait.ms=50', '--group', 'billing', '--max-messages', '3'])).to.deep.equal({
      'group.id': 'billing',
      'client.id': 'from-file',
      'fetch.max.wait.ms': '50',
      'share.acknowledgement.mode': 'explicit',
      'max.poll.records': 3,
    });
    expect(configOf(['--topic', 't', '--max-messages', '10000'])['max.poll.records']).to.equal(500);
    expect(configOf(['--topic', 't', '--max-messages', '2', '--command-property', 'max.poll.records=7'])['max.poll.records']).to.equal('7');
    expect(usageErrorOf(() => configOf(['--topic', 't', '--consumer-config', file, '--consumer-property', 'group.id=x'])).message).to.contain("Detected group ids: 'billing', 'x'");
  });

  it("prints a record as Kafka's DefaultMessageFormatter does: the fields asked for, in its order, tab-separated", () => {
    const r: ShareRecord = { topic: 't', partition: 2, offset: 7, timestamp: 1_700_000_000_123, key: Buffer.from('k'), value: Buffer.from('v'), headers: { a: Buffer.from('1'), b: [Buffer.from('2'), null] }, deliveryCount: 3 };
    expect(formatRecord(r, {})).to.equal('v');
    expect(formatRecord(r, { timestamp: 'CreateTime', partition: true, offset: true, delivery: true, headers: true, key: true })).to.equal('CreateTime:1700000000123\tPartition:2\tOffset:7\tDelivery:3\ta:1,b:2,b:null\tk\tv');
    expect(formatRecord({ ...r, key: null, value: null, headers: {} }, { headers: true, key: true })).to.equal('NO_HEADERS\tnull\tnull');
  });

  it('--help names the options; samsa --help lists the command', async () => {
    const r = await runCli(['share-consume', '--help']);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.match(/^usage: samsa share-consume /);
    for (const o of ['--topic', '--group', '--max-messages', '--timeout-ms', '--reject', '--release', '--reject-message-on-error', '--print-delivery', '--print-key', '--consumer-property', '--command-config', '--enable-systest-events']) expect(r.stdout).to.contain(o);
    const top = await runCli(['--help']);
    expect(top.stdout).to.match(/^ {2}share-consume /m);
  });
});

describe('cli: share-consume on a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;
  let samsa: SamsaClient;
  let n = 0;

  before(async () => {
    c = await CliCluster.start(1, {}, {
      brokerConfig: {
        'share.coordinator.state.topic.num.partitions': 1,
        'share.coordinator.state.topic.replication.factor': 1,
        'offsets.topic.num.partitions': 1,
        'offsets.topic.replication.factor': 1,
      },
    });
    samsa = c.cluster.samsa();
  });
  after(async () => {
    await c?.stop();
  });

  /** A new one-partition topic holding `values`, and a group of its own reading from the start (share.auto.offset.reset earliest). */
  async function setUp(values: string[]): Promise<{ topic: string; group: string }> {
    const topic = `queue-${++n}`;
    const group = `readers-${n}`;
    await c.cluster.client.createTopic(topic, 1, 1);
    if (values.length > 0) await produceValues(samsa, topic, values);
    const set = await c.run('configs', ['--alter', '--group', group, '--add-config', 'share.auto.offset.reset=earliest']);
    expect(set.code, set.stderr).to.equal(0);
    // the partition leader knows the group's config before its first fetch
    await checkFor(async () => {
      const r = await c.cluster.client.brokerMetadata(1, 'b1');
      return !isFailure(r) && r.metadata?.groupConfigs?.[group]?.['share.auto.offset.reset'] === 'earliest';
    }, 10_000, 20);
    return { topic, group };
  }

  async function sharePartition(group: string, topic: string): Promise<DescribedSharePartition | undefined> {
    const r = await c.cluster.system().ask<SharePartitionsDescription>({ node: 'b1', path: sharePartitionManagerPath(1) }, { type: 'DescribeSharePartitions', groupId: group }, { timeoutMs: 5_000 });
    if (isFailure(r)) throw new Error(r.message);
    return r.partitions.find((p) => p.topic === topic && p.partition === 0);
  }

  it("prints the records with Kafka's formatter fields, stops at --max-messages and reports the count", async () => {
    const { topic, group } = await setUp([]);
    const producer = samsa.producer({ acks: 'all' });
    await producer.connect();
    await producer.send({ topic, messages: [0, 1, 2, 3, 4].map((i) => ({ key: `k${i}`, value: `v${i}`, ...(i === 1 ? { headers: { trace: 'abc' } } : {}) })) });
    await producer.disconnect();

    const r = await c.run('share-consume', ['--topic', topic, '--group', group, '--max-messages', '3', '--print-timestamp', '--print-partition', '--print-offset', '--print-delivery', '--print-headers', '--print-key']);
    expect(r.code, r.stderr).to.equal(0);
    const got = lines(r.stdout);
    expect(got).to.have.length(3);
    got.forEach((l, i) => expect(l).to.match(new RegExp(`^CreateTime:\\d{13}\\tPartition:0\\tOffset:${i}\\tDelivery:1\\t${i === 1 ? 'trace:abc' : 'NO_HEADERS'}\\tk${i}\\tv${i}$`)));
    expect(r.stderr).to.contain('Processed a total of 3 messages');
  });

  it('a second run of the group does not print what the first accepted; --timeout-ms ends an idle run', async () => {
    const values = Array.from({ length: 8 }, (_, i) => `m${i}`);
    const { topic, group } = await setUp(values);
    const first = await c.run('share-consume', ['--topic', topic, '--group', group, '--max-messages', '3']);
    expect(first.code, first.stderr).to.equal(0);
    expect(lines(first.stdout)).to.deep.equal(values.slice(0, 3));

    // the rest, once: those the first run acquired and did not print came back when it closed
    const second = await c.run('share-consume', ['--topic', topic, '--group', group, '--timeout-ms', '1200']);
    expect(second.code, second.stderr).to.equal(0);
    expect(lines(second.stdout)).to.deep.equal(values.slice(3));
    expect(second.stderr).to.contain('Processed a total of 5 messages');

    const started = Date.now();
    const idle = await c.run('share-consume', ['--topic', topic, '--group', group, '--timeout-ms', '1000']);
    expect(idle.code, idle.stderr).to.equal(0);
    expect(idle.stdout).to.equal('');
    expect(idle.stderr).to.contain('Processed a total of 0 messages');
    expect(Date.now() - started).to.be.at.least(1500);
    // every record is done for the group
    await checkFor(async () => (await sharePartition(group, topic))?.startOffset === values.length, 10_000, 50);
  });

  it('--reject: the records printed are archived, and a second run of the group gets none of them', async () => {
    const values = ['r0', 'r1', 'r2', 'r3', 'r4'];
    const { topic, group } = await setUp([]);
    for (const v of values) await produceValues(samsa, topic, [v]);
    // another member holds the first record(s), so the window keeps what the run settles and shows how
    const holder = samsa.shareConsumer({ groupId: group, acknowledgementMode: 'explicit', 'max.poll.records': 1, 'fetch.max.wait.ms': 100 });
    let rejected: string[] = [];
    try {
      await holder.subscribe([topic]);
      const held = await checkFor(async () => {
        const got = await holder.poll(200);
        return got.length > 0 ? got : null;
      }, 15_000, 0);
      expect(held.map((r) => String(r.value))).to.deep.equal(['r0']);

      const run = await c.run('share-consume', ['--topic', topic, '--group', group, '--reject', '--timeout-ms', '1200', '--print-offset']);
      expect(run.code, run.stderr).to.equal(0);
      const printed = lines(run.stdout);
      rejected = printed.map((l) => l.split('\t')[1]!);
      // r0 is the holder's; it may have fetched r1 ahead too
      const rest = ['Offset:1\tr1', 'Offset:2\tr2', 'Offset:3\tr3', 'Offset:4\tr4'];
      expect([rest.join('\n'), rest.slice(1).join('\n')]).to.include(printed.join('\n'));
      const state = await sharePartition(group, topic);
      expect(state).to.deep.include({ startOffset: 0, archived: printed.length, acknowledged: 0, acquired: values.length - printed.length });
    } finally {
      await holder.close();
    }

    // what the holder held comes again when it closed; the rejected records never
    const again = await c.run('share-consume', ['--topic', topic, '--group', group, '--timeout-ms', '1200']);
    expect(again.code, again.stderr).to.equal(0);
    expect(lines(again.stdout)).to.deep.equal(values.filter((v) => !rejected.includes(v)));
    await checkFor(async () => (await sharePartition(group, topic))?.startOffset === values.length, 10_000, 50);
  });

  it('--release: a second run of the group gets the records again, delivered again', async () => {
    const values = ['a', 'b', 'c'];
    const { topic, group } = await setUp(values);
    const released = await c.run('share-consume', ['--topic', topic, '--group', group, '--release', '--max-messages', '3', '--print-delivery']);
    expect(released.code, released.stderr).to.equal(0);
    expect(lines(released.stdout)).to.deep.equal(values.map((v) => `Delivery:1\t${v}`));
    expect(released.stderr).to.contain('Processed a total of 3 messages');

    const again = await c.run('share-consume', ['--topic', topic, '--group', group, '--timeout-ms', '1200', '--print-delivery']);
    expect(again.code, again.stderr).to.equal(0);
    // one delivery later, or two: the first run's fetch still waiting when it released them may take
    // them again before it closes (as Kafka's broker hands released records to a waiting share fetch),
    // and closing gives them back, that delivery counted
    const got = lines(again.stdout).map((l) => l.split('\t'));
    expect(got.map(([, v]) => v)).to.deep.equal(values);
    for (const [delivery] of got) expect(delivery).to.be.oneOf(['Delivery:2', 'Delivery:3']);
    // accepted this time
    const none = await c.run('share-consume', ['--topic', topic, '--group', group, '--timeout-ms', '1000']);
    expect(none.stdout).to.equal('');
  });

  it('Ctrl-C commits what was printed and closes: the next run gets only the records produced since', async () => {
    const { topic, group } = await setUp(['x0', 'x1', 'x2']);
    const run = c.start('share-consume', ['--topic', topic, '--group', group, '--enable-systest-events']);
    await checkFor(() => lines(run.stdout()).length >= 3, 20_000, 20);
    run.child.kill('SIGINT');
    const r = await run.result;
    expect(r.code, r.stderr).to.equal(0);
    expect(lines(r.stdout)).to.deep.equal(['x0', 'x1', 'x2', 'shutdown_complete']);
    expect(r.stderr).to.contain('Processed a total of 3 messages');

    await produceValues(samsa, topic, ['x3']);
    const next = await c.run('share-consume', ['--topic', topic, '--group', group, '--timeout-ms', '1200']);
    expect(next.code, next.stderr).to.equal(0);
    expect(lines(next.stdout)).to.deep.equal(['x3']);
  });

  it("the group is Kafka's console-share-consumer by default, or group.id of --command-config", async () => {
    const { topic } = await setUp(['only']);
    const scratch = scratchDir('samsa-share-consume-run-');
    try {
      const config = scratch.file('run.properties', 'group.id=from-file\nfetch.max.wait.ms=200\n');
      const [byDefault, fromFile] = await Promise.all([
        c.run('share-consume', ['--topic', topic, '--timeout-ms', '1000']),
        c.run('share-consume', ['--topic', topic, '--command-config', config, '--timeout-ms', '1000']),
      ]);
      expect(byDefault.code, byDefault.stderr).to.equal(0);
      expect(fromFile.code, fromFile.stderr).to.equal(0);
    } finally {
      scratch.remove();
    }
    const list = await c.run('share-groups', ['--list']);
    expect(list.code, list.stderr).to.equal(0);
    expect(lines(list.stdout)).to.include.members(['console-share-consumer', 'from-file']);
  });

  it('a group of another type is refused: exit 1 with the error, after the count', async () => {
    const { topic } = await setUp(['c0']);
    const consumer = samsa.consumer({ groupId: 'classic-readers' });
    let joined = false;
    consumer.on('group.join', () => void (joined = true));
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      await checkFor(() => joined, 15_000, 20);
      const r = await c.run('share-consume', ['--topic', topic, '--group', 'classic-readers', '--timeout-ms', '5000']);
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal('');
      expect(r.stderr).to.contain('Processed a total of 0 messages');
      expect(r.stderr).to.match(/samsa share-consume: .*GROUP_ID_NOT_FOUND/);
    } finally {
      await consumer.disconnect();
    }
  });

  it('a topic that does not exist fails with exit 1 and advice', async () => {
    const r = await c.run('share-consume', ['--topic', 'no-such-queue', '--timeout-ms', '1000']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.contain("topic 'no-such-queue' does not exist — create it with `samsa topics");
  });
});
