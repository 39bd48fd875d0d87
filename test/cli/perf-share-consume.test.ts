/**
 * `samsa perf-share-consume` as a user runs it: listed, the tool's own --help, exit 2 for a bad
 * command line; runs with 1 and 2 share consumers on a throw-away in-process cluster that read
 * every prepared record once and print Kafka's lines (and, with --print-metrics, the share
 * consumer's metrics as Kafka's tool prints them); and on a running cluster (--bootstrap-server)
 * a topic that does not exist refused, an existing one read to its end by default, a group with
 * nothing left to read a clear failure, and a consumer group's id refused.
 */
import { expect } from 'chai';
import { usage } from '../../benchmarks/lib/perf-args.js';
import { PERF_SHARE_CONSUME_SUMMARY, SHARE_CONSUME_FLAGS } from '../../benchmarks/perf-share-consume.js';
import { CliCluster, runCli } from './cli-harness.js';

const SUMMARY = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}), (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}), ([\d.]+), ([\d.]+), ([\d.]+), (\d+), (\d+)$/m;

describe('cli: perf-share-consume', function () {
  this.timeout(60_000);

  it('lists itself, prints the tool\'s --help, and exits 2 naming the problem for a bad command line', async () => {
    const top = await runCli(['--help']);
    expect(top.stdout).to.match(/^ {2}perf-share-consume /m);
    const help = await runCli(['perf-share-consume', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout.trimEnd()).to.equal(usage('samsa perf-share-consume', PERF_SHARE_CONSUME_SUMMARY, SHARE_CONSUME_FLAGS));
    expect(help.stdout).to.contain('share.auto.offset.reset to earliest').and.contain('--threads');
    const [unknown, noTopic, notNumber, twice] = await Promise.all([
      runCli(['perf-share-consume', '--topic', 't', '--new-share-consumer']),
      runCli(['perf-share-consume', '--num-records', '10']),
      runCli(['perf-share-consume', '--topic', 't', '--num-records', 'ten']),
      runCli(['perf-share-consume', '--topic', 't', '--threads', '2', '--share-consumers', '2']),
    ]);
    expect([unknown.code, noTopic.code, notNumber.code, twice.code]).to.deep.equal([2, 2, 2, 2]);
    expect(unknown.stderr).to.contain('unknown flag --new-share-consumer');
    expect(noTopic.stderr).to.contain('missing --topic');
    expect(notNumber.stderr).to.contain("--records expects a number, got 'ten'");
    expect(twice.stderr).to.contain('--threads and --share-consumers are the same flag');
  });

  it("reads every prepared record once with 1 and with 2 share consumers, and prints Kafka's lines", async () => {
    const common = ['--topic', 'shared', '--num-records', '3000', '--brokers', '1', '--transport', 'inproc', '--partitions', '3', '--raw', 'false', '--json', ''];
    // polls of at most 1000 records: each of the polls after the first accepts the one before's
    const one = await runCli(['perf-share-consume', ...common, '--max-poll-records', '1000', '--print-metrics']);
    expect(one.code, one.stderr).to.equal(0);
    const lines = one.stdout.split('\n');
    expect(lines[0]).to.equal('start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms');
    const m = SUMMARY.exec(one.stdout);
    expect(m, one.stdout).to.not.equal(null);
    // 3000 records of 100 B: 0.2861 MiB, its rates over the run's elapsed ms
    const [mb, mbSec, nSec, n, ms] = [Number(m![3]), Number(m![4]), Number(m![5]), Number(m![6]), Number(m![7])];
    expect([m![3], n]).to.deep.equal(['0.2861', 3000]);
    expect(ms).to.be.greaterThan(0);
    expect(mbSec).to.be.closeTo(mb / (ms / 1000), 0.001);
    expect(nSec).to.be.closeTo(n / (ms / 1000), 0.01);
    expect(one.stdout).to.match(/^3000 records read by 1 share consumer\(s\) of group perf-share-consumer: [\d.]+ k? ?records\/sec \([\d.]+ MiB\/sec, 0 delivered again\)/m);
    expect(one.stdout).to.contain('1 share consumer(s) of group perf-share-consumer (share.auto.offset.reset earliest), 100 B records, none, max.poll.records 1000, fetch.max.bytes 1048576, check.crcs false');
    // --print-metrics: Kafka's table of the share consumer's metrics, read once every record was (before the last commit)
    expect(one.stdout).to.match(/^Metric Name\s+Value$/m);
    const metric = (group: string, name: string): number => {
      const line = new RegExp(`^${group}:${name}:\\{client-id=perf-share-consumer-client\\}\\s+: (\\S+)$`, 'm').exec(one.stdout);
      expect(line, `${group}:${name}`).to.not.equal(null);
      return Number(line![1]);
    };
    const fetch = 'consumer-share-fetch-manager-metrics';
    expect(metric(fetch, 'records-consumed-total')).to.equal(3000);
    // 3000 records of 100 B values in whole batches
    expect(metric(fetch, 'bytes-consumed-total')).to.be.greaterThan(3000 * 100);
    expect(metric(fetch, 'fetch-total')).to.be.greaterThan(0);
    expect(metric(fetch, 'fetch-latency-avg')).to.be.at.least(0);
    // the polls after the first accepted what the one before returned; the commit after the metrics sends the last poll's
    expect(metric(fetch, 'acknowledgements-send-total')).to.be.within(2000, 2999);
    expect(metric(fetch, 'acknowledgements-send-rate')).to.be.greaterThan(0);
    expect(metric(fetch, 'acknowledgements-error-total')).to.equal(0);
    expect(metric('consumer-share-coordinator-metrics', 'heartbeat-total')).to.be.greaterThan(0);
    expect(metric('consumer-share-coordinator-metrics', 'rebalance-total')).to.be.at.least(1);
    expect(metric('consumer-share-metrics', 'time-between-poll-max')).to.be.at.least(0);

    const two = await runCli(['perf-share-consume', ...common, '--threads', '2', '--group', 'perf-pair', '--show-consumer-stats', '--show-detailed-stats', '--reporting-interval', '20', '--hide-header', '--date-format', "HH:mm:ss'.'SSS"]);
    expect(two.code, two.stderr).to.equal(0);
    expect(two.stdout).to.not.contain('start.time');
    // each share consumer's line, Kafka's client ids; together they read every record
    const each = [...two.stdout.matchAll(/^Share consumer (\d) having client id (\S+) consumption metrics- \d\d:\d\d:\d\d\.\d{3}, \d\d:\d\d:\d\d\.\d{3}, [\d.]+, [\d.]+, [\d.]+, (\d+), \d+$/gm)];
    expect(each.map((x) => [x[1], x[2]])).to.deep.equal([
      ['1', 'perf-share-consumer-client-1'],
      ['2', 'perf-share-consumer-client-2'],
    ]);
    expect(each.reduce((sum, x) => sum + Number(x[3]), 0)).to.equal(3000);
    expect(two.stdout).to.match(/^\d\d:\d\d:\d\d\.\d{3}, \d\d:\d\d:\d\d\.\d{3}, 0\.2861, [\d.]+, [\d.]+, 3000, \d+$/m);
    // the progress of a share consumer that read records after the interval
    expect(two.stdout).to.match(/^\d\d:\d\d:\d\d\.\d{3}, \d\d:\d\d:\d\d\.\d{3}, [\d.]+, [\d.]+, [\d.]+, \d+, \d+ for share consumer [12]$/m);
    expect(two.stdout).to.match(/^3000 records read by 2 share consumer\(s\) of group perf-pair: .*0 delivered again/m);
    expect(two.stdout).to.match(/^records per share consumer\s+\d+ \/ \d+$/m);
  });

  describe('against a running cluster (--bootstrap-server)', () => {
    let cli: CliCluster;
    const common = ['--raw', 'false', '--json', ''];

    before(async () => {
      cli = await CliCluster.start(1);
    });
    after(async () => {
      await cli?.stop();
    });

    it("refuses a topic that does not exist and a consumer group's id; reads what the group has left of an existing one, then fails clearly with nothing left", async () => {
      const missing = await cli.run('perf-share-consume', [...common, '--topic', 'no-such-topic']);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.contain("topic 'no-such-topic' does not exist on the running cluster at");
      await cli.cluster.client.createTopic('queue', 2, 1);
      const producer = cli.cluster.samsa().producer({ 'linger.ms': 5 });
      await producer.connect();
      try {
        await producer.send({ topic: 'queue', messages: Array.from({ length: 2000 }, (_, i) => ({ value: `r-${i}` })) });
      } finally {
        await producer.disconnect();
      }
      const read = await cli.run('perf-share-consume', [...common, '--topic', 'queue', '--threads', '2', '--group', 'queue-readers']);
      expect(read.code, read.stderr).to.equal(0);
      expect(read.stderr).to.contain('group queue-readers: share.auto.offset.reset set to earliest').and.contain('reading 2000 records of topic queue');
      expect(read.stdout).to.match(/^2000 records read by 2 share consumer\(s\) of group queue-readers/m).and.contain('topic queue (existing), 2 partitions, RF 1');
      const none = await cli.run('perf-share-consume', [...common, '--topic', 'queue', '--group', 'queue-readers']);
      expect(none.code).to.equal(1);
      expect(none.stderr).to.contain("share group 'queue-readers' has nothing left to read of topic 'queue'");
      // a consumer group's id: refused before its configs are touched
      const admin = cli.cluster.samsa().admin();
      await admin.connect();
      try {
        await admin.resetOffsets({ groupId: 'queue-classic', topic: 'queue', earliest: true });
        const other = await cli.run('perf-share-consume', [...common, '--topic', 'queue', '--group', 'queue-classic']);
        expect(other.code).to.equal(1);
        expect(other.stderr).to.match(/group 'queue-classic' is a (classic|consumer) group, not a share group/);
        expect((await admin.describeGroupConfigs({ group: 'queue-classic' }))[0]!.configs).to.deep.equal({});
      } finally {
        await admin.disconnect();
      }
    });
  });
});
