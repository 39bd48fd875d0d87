/**
 * `samsa get-offsets`: Kafka's --time, --partitions and --topic-partitions parsing and the
 * filters they make, the output lines (sorted as Kafka's tool sorts them, no offset left out), the
 * command lines that cannot work (exit 2), and the command as a user runs it against a running
 * cluster: latest, earliest after a deletion, max-timestamp, a timestamp, the filters, internal
 * topics, no match (exit 1), and a partition whose leader is gone skipped.
 */
import { expect } from 'chai';
import { filterOf, offsetLines, parsePartitionIds, parseTime, topicPartitionsFilter } from '../../src/cli/commands/get-offsets.js';
import { UsageError } from '../../src/cli/errors.js';
import type { Producer } from '../../src/client/producer.js';
import { CliCluster, runCli } from './cli-harness.js';

const T0 = 1_700_000_000_000;

describe('cli/commands/get-offsets: parsing and output', () => {
  it("reads --time as Kafka's tool: names, their sentinels, a timestamp", () => {
    expect(parseTime('latest')).to.equal('latest');
    expect(parseTime('-1')).to.equal('latest');
    expect(parseTime('earliest')).to.equal('earliest');
    expect(parseTime('-2')).to.equal('earliest');
    expect(parseTime('max-timestamp')).to.equal('max-timestamp');
    expect(parseTime('-3')).to.equal('max-timestamp');
    expect(parseTime('earliest-local')).to.equal('earliest');
    expect(parseTime('-5')).to.equal(null);
    expect(parseTime('1700000000000')).to.deep.equal({ timestamp: T0 });
    expect(() => parseTime('yesterday')).to.throw(UsageError, /Malformed time argument yesterday/);
    expect(() => parseTime('-7')).to.throw(UsageError, /--time -7/);
  });

  it('reads --partitions as a comma list of ids, Kafka\'s message for anything else', () => {
    expect([...parsePartitionIds('0,2,5')]).to.deep.equal([0, 2, 5]);
    expect(parsePartitionIds(undefined).size).to.equal(0);
    expect(() => parsePartitionIds('0,x')).to.throw(UsageError, '--partitions expects a comma separated list of numeric partition ids, but received: 0,x');
  });

  it('--topic is a regex matching whole names (commas as alternatives), with --partitions', () => {
    const f = filterOf({ topic: 'ord.*', partitions: '1' });
    expect(f.topicAllowed('orders')).to.equal(true);
    expect(f.topicAllowed('new-orders')).to.equal(false);
    expect(f.partitionAllowed('orders', 1)).to.equal(true);
    expect(f.partitionAllowed('orders', 0)).to.equal(false);
    const g = filterOf({ topic: 'a,b' });
    expect(['a', 'b', 'ab'].map((t) => g.partitionAllowed(t, 9))).to.deep.equal([true, true, false]);
    expect(filterOf({}).partitionAllowed('anything', 3)).to.equal(true);
    expect(() => filterOf({ topic: 'a(' })).to.throw(UsageError, /is an invalid regex/);
    expect(() => filterOf({ topic: 'a', topicPartitions: 'a:1' })).to.throw(UsageError, '--topic-partitions cannot be used with --topic or --partitions');
  });

  it("--topic-partitions: Kafka's rules, a partition, [N, M), N-, -M, any topic, any partition", () => {
    const f = topicPartitionsFilter('one:1,two:2-4,three:5-,four:-2,:7,all');
    const allowed = (t: string, ps: number[]) => ps.filter((p) => f.partitionAllowed(t, p));
    const ps = [0, 1, 2, 3, 4, 5, 6, 7];
    expect(allowed('one', ps)).to.deep.equal([1, 7]);
    expect(allowed('two', ps)).to.deep.equal([2, 3, 7]);
    expect(allowed('three', ps)).to.deep.equal([5, 6, 7]);
    expect(allowed('four', ps)).to.deep.equal([0, 1, 7]);
    expect(allowed('other', ps)).to.deep.equal([7]);
    expect(allowed('all', ps)).to.deep.equal(ps);
    expect(f.topicAllowed('other')).to.equal(true);
    expect(topicPartitionsFilter('one:1').topicAllowed('other')).to.equal(false);
    expect(() => topicPartitionsFilter('a:x')).to.throw(UsageError, 'Invalid rule specification: a:x');
    expect(() => topicPartitionsFilter('a:1:2')).to.throw(UsageError, 'Invalid rule specification: a:1:2');
  });

  it('prints topic:partition:offset sorted by topic-partition as a string, leaving out partitions without an offset', () => {
    expect(
      offsetLines([
        { topic: 'b', partition: 0, offset: 4 },
        { topic: 'a', partition: 2, offset: 7 },
        { topic: 'a', partition: 10, offset: 1 },
        { topic: 'a', partition: 1, offset: -1 },
        { topic: 'a-x', partition: 0, offset: 0 },
      ]),
    ).to.deep.equal(['a:10:1', 'a:2:7', 'a-x:0:0', 'b:0:4']);
  });
});

describe('cli: get-offsets', function () {
  this.timeout(60_000);
  let cli: CliCluster;
  let producer: Producer;

  before(async () => {
    cli = await CliCluster.start(2);
    producer = cli.cluster.samsa().producer();
    await producer.connect();
    await cli.cluster.client.createTopic('go-a', 3, 2);
    await cli.cluster.client.createTopic('go-b', 1, 1);
    await producer.send({ topic: 'go-a', messages: [10, 30, 20].map((d) => ({ partition: 0, value: `v${d}`, timestamp: String(T0 + d) })) });
    await producer.send({ topic: 'go-a', messages: [{ partition: 1, value: 'x', timestamp: String(T0 + 5) }] });
    await producer.send({ topic: 'go-b', messages: ['p', 'q'].map((value) => ({ partition: 0, value, timestamp: String(T0 + 40) })) });
  });
  after(async () => {
    await producer?.disconnect();
    await cli?.stop();
  });

  it('refuses command lines that cannot work (exit 2) before connecting', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['get-offsets', '--time', 'soon'], says: /Malformed time argument soon/ },
      { argv: ['get-offsets', '--time', '-9'], says: /--time -9/ },
      { argv: ['get-offsets', '--partitions', '1,a'], says: /--partitions expects a comma separated list/ },
      { argv: ['get-offsets', '--topic', 'x', '--topic-partitions', 'x:1'], says: /--topic-partitions cannot be used with --topic or --partitions/ },
      { argv: ['get-offsets', '--topic-partitions', 'x:1-2-3'], says: /Invalid rule specification: x:1-2-3/ },
      { argv: ['get-offsets', '--topic', '[x'], says: /is an invalid regex/ },
      { argv: ['get-offsets', 'go-a'], says: /unexpected argument 'go-a'/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(c.argv, { inProcess: true })));
    for (const [i, r] of results.entries()) {
      expect(r.code, cases[i]!.argv.join(' ')).to.equal(2);
      expect(r.stderr, cases[i]!.argv.join(' ')).to.match(cases[i]!.says);
    }
  });

  it('latest by default: every partition of the matching topics, as Kafka prints them', async () => {
    const r = await cli.run('get-offsets', ['--topic', 'go-.*'], { inProcess: true });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout.trim().split('\n')).to.deep.equal(['go-a:0:3', 'go-a:1:1', 'go-a:2:0', 'go-b:0:2']);
  });

  it('--time max-timestamp and a timestamp: partitions without such a record left out', async () => {
    const max = await cli.run('get-offsets', ['--topic', 'go-a', '--time', 'max-timestamp'], { inProcess: true });
    expect(max.stdout.trim().split('\n')).to.deep.equal(['go-a:0:1', 'go-a:1:0']);
    const at = await cli.run('get-offsets', ['--topic', 'go-a,go-b', '--time', String(T0 + 15)], { inProcess: true });
    expect(at.code, at.stderr).to.equal(0);
    expect(at.stdout.trim().split('\n')).to.deep.equal(['go-a:0:1', 'go-b:0:0']);
  });

  it('--partitions and --topic-partitions narrow it down; earliest follows a deletion', async () => {
    const some = await cli.run('get-offsets', ['--topic', 'go-a', '--partitions', '0,2'], { inProcess: true });
    expect(some.stdout.trim().split('\n')).to.deep.equal(['go-a:0:3', 'go-a:2:0']);
    const admin = cli.cluster.samsa().admin();
    await admin.connect();
    try {
      await admin.deleteTopicRecords({ topic: 'go-a', partitions: [{ partition: 0, offset: 2 }] });
    } finally {
      await admin.disconnect();
    }
    const early = await cli.run('get-offsets', ['--topic-partitions', 'go-a:0-2,go-b', '--time', '-2'], { inProcess: true });
    expect(early.code, early.stderr).to.equal(0);
    expect(early.stdout.trim().split('\n')).to.deep.equal(['go-a:0:2', 'go-a:1:0', 'go-b:0:0']);
  });

  it('internal topics are included unless --exclude-internal-topics; no match is exit 1', async () => {
    // a group's commit creates __consumer_offsets
    const admin = cli.cluster.samsa().admin();
    await admin.connect();
    try {
      await admin.resetOffsets({ groupId: 'go-group', topic: 'go-b', earliest: true });
    } finally {
      await admin.disconnect();
    }
    const all = await cli.run('get-offsets', ['--topic', '__consumer_offsets'], { inProcess: true });
    expect(all.code, all.stderr).to.equal(0);
    expect(all.stdout).to.match(/^__consumer_offsets:0:\d+$/m);
    const none = await cli.run('get-offsets', ['--topic', '__consumer_offsets', '--exclude-internal-topics'], { inProcess: true });
    expect(none.code).to.equal(1);
    expect(none.stderr).to.contain('Could not match any topic-partitions with the specified filters');
    expect(none.stdout).to.equal('');
    const unknown = await cli.run('get-offsets', ['--topic', 'go-a', '--partitions', '9'], { inProcess: true });
    expect(unknown.code).to.equal(1);
  });

  it("a partition whose leader cannot answer is skipped with Kafka's line on stderr, the others printed (last: kills a broker)", async () => {
    const leader = (await cli.cluster.client.partition('go-b', 0))!.leader;
    await cli.cluster.killBroker(leader);
    const r = await cli.run('get-offsets', ['--topic-partitions', 'go-b,go-a:1'], { inProcess: true });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/^Skip getting offsets for topic-partition go-b-0 due to error: [A-Z_]+$/m);
    expect(r.stdout.trim().split('\n')).to.deep.equal(['go-a:1:1']);
  });
});
