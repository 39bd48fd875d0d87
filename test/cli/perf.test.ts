/**
 * `samsa perf-produce`, `perf-consume` and `perf-e2e` as a user runs them: the same flags and
 * --help as benchmarks/perf-produce.ts, perf-consume.ts and perf-e2e.ts, exit 2 on a bad flag, a
 * small run of each against a throw-away one-broker cluster, and runs against a running cluster
 * (--bootstrap-server): the run's own topic and group left behind nowhere, a named topic kept and
 * read as it is (to its end, also when that end is a transaction's marker), and the flags that
 * cannot apply to it refused. Most runs go through main() in this process, as the harness runs
 * one-shot admin commands; perf-consume -h, a produce and a consume run, and the run whose CPU
 * report must count only its own threads are processes of their own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { usage } from '../../benchmarks/lib/perf-args.js';
import { CONSUME_FLAGS, PERF_CONSUME_SUMMARY } from '../../benchmarks/perf-consume.js';
import { PERF_PRODUCE_SUMMARY, PRODUCE_FLAGS } from '../../benchmarks/perf-produce.js';
import { E2E_FLAGS, PERF_E2E_SUMMARY } from '../../benchmarks/perf-e2e.js';
import { CliCluster, runCli } from './cli-harness.js';

describe('cli: perf-produce, perf-consume and perf-e2e', function () {
  this.timeout(90_000);

  it('list themselves and print the tools\' own --help, exit 0', async () => {
    const top = await runCli(['--help']);
    expect(top.stdout).to.match(/^  perf-produce /m).and.match(/^  perf-consume /m);
    expect(top.stdout).to.match(/^  perf-e2e /m);
    // perf-consume -h from a real process, the others through main() in this process
    const [p, c, e] = await Promise.all([runCli(['perf-produce', '--help'], { inProcess: true }), runCli(['perf-consume', '-h'], { spawn: true }), runCli(['perf-e2e', '--help'], { inProcess: true })]);
    expect(p.code).to.equal(0);
    expect(p.stdout.trimEnd()).to.equal(usage('samsa perf-produce', PERF_PRODUCE_SUMMARY, PRODUCE_FLAGS));
    expect(c.code).to.equal(0);
    expect(c.stdout.trimEnd()).to.equal(usage('samsa perf-consume', PERF_CONSUME_SUMMARY, CONSUME_FLAGS));
    expect(e.code).to.equal(0);
    expect(e.stdout.trimEnd()).to.equal(usage('samsa perf-e2e', PERF_E2E_SUMMARY, E2E_FLAGS));
  });

  it('exit 2 naming the flag for a bad command line', async () => {
    const [r, u, fmt, alone] = await Promise.all([
      runCli(['perf-produce', '--acks', '2']),
      runCli(['perf-consume', '--no-such-flag']),
      runCli(['perf-consume', '--show-detailed-stats', '--date-format', 'yyyy GG']),
      runCli(['perf-consume', '--hide-header', '--date-format', 'HH:mm']),
    ]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/--acks must be one of 0, 1, -1, all/);
    expect(u.code).to.equal(2);
    expect(u.stderr).to.match(/unknown flag --no-such-flag/);
    expect(fmt.code).to.equal(2);
    expect(fmt.stderr).to.contain(`--date-format: date format "yyyy GG": pattern letter 'G' (era) is not supported`);
    // they shape the detailed lines, which are not asked for
    expect(alone.code).to.equal(2);
    expect(alone.stderr).to.contain('--date-format, --hide-header shape the lines of --show-detailed-stats: add it');
  });

  it('run the tools with lz4 batches: sent compressed, and the consumer decompresses every record (and prints its metrics and Kafka\'s detailed stats)', async () => {
    const common = ['--records', '2000', '--brokers', '1', '--transport', 'inproc', '--partitions', '2', '--raw', 'false', '--json', '', '--compression', 'lz4'];
    // each run has a throw-away cluster of its own: run together
    const [p, c, h] = await Promise.all([
      runCli(['perf-produce', ...common, '--warmup-records', '0', '--send-size', '10']),
      runCli(['perf-consume', ...common, '--print-metrics', '--show-detailed-stats', '--reporting-interval', '50']),
      runCli(['perf-consume', ...common, '--show-detailed-stats', '--reporting-interval', '50', '--hide-header', '--date-format', "'at' HH:mm:ss.SSS"]),
    ]);
    expect(p.code, p.stderr).to.equal(0);
    expect(p.stdout).to.match(/^2000 records sent/m).and.match(/linger\.ms \d+, lz4, CRC-32C/);
    expect(c.code, c.stderr).to.equal(0);
    expect(c.stdout).to.match(/^2000 records read by 1 consumer\(s\)/m).and.contain(', lz4, check.crcs true');
    // --print-metrics: Kafka's lines for the consumer, every record taken once
    expect(c.stdout).to.match(/^consumer-fetch-manager-metrics:records-consumed-total:\{client-id=\S+\}\s+: 2000\.000$/m);
    expect(c.stdout).to.match(/^consumer-coordinator-metrics:assigned-partitions:\{client-id=\S+\}\s+: 2\.000$/m);
    // --show-detailed-stats: Kafka's columns, a line every 50 ms (the group join takes longer than that)
    expect(c.stdout).to.contain('time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec');
    expect(c.stdout).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, 0, [\d.]+, [\d.]+, \d+, [\d.]+, \d+, \d+, [\d.]+, [\d.]+$/m);
    // --hide-header and --date-format (Kafka's): the same lines, no header, the time as asked
    expect(h.code, h.stderr).to.equal(0);
    expect(h.stdout).to.not.contain('time, threadId');
    expect(h.stdout).to.match(/^at \d\d:\d\d:\d\d\.\d{3}, 0, [\d.]+, [\d.]+, \d+, [\d.]+, \d+, \d+, [\d.]+, [\d.]+$/m);
  });

  it("perf-produce takes its values from --payload-file, Kafka's way, and counts their bytes", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-payloads-'));
    try {
      const file = path.join(dir, 'orders.txt');
      // 10 and 30 bytes: 20 on average
      fs.writeFileSync(file, `${'a'.repeat(10)}|${'b'.repeat(30)}|`);
      const [p, bad] = await Promise.all([
        runCli(['perf-produce', '--records', '4000', '--brokers', '1', '--transport', 'inproc', '--partitions', '2', '--raw', 'false', '--json', '', '--warmup-records', '0', '--send-size', '50', '--payload-file', file, '--payload-delimiter', '|']),
        runCli(['perf-produce', '--payload-file', file, '--record-size', '10']),
      ]);
      expect(p.code, p.stderr).to.equal(0);
      const m = /2 payloads of \S+orders\.txt \(([\d.]+) B a record on average\)/.exec(p.stdout);
      expect(m, p.stdout).to.not.equal(null);
      expect(Number(m![1])).to.be.within(17, 23);
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.contain('--record-size and --payload-file both say what the values are: give one');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("perf-produce in transactions, Kafka's way: acks all, committed at their age, the count printed; values counting up; the producer's metrics", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-perf-txn-'));
    try {
      const config = path.join(dir, 'producer.properties');
      fs.writeFileSync(config, '# a transactional producer\ntransactional.id=perf-cli-txn\nbuffer.memory=16777216\n');
      // one send in flight at a time, so that transactions of 1 ms end after a send or two
      const p = await runCli(['perf-produce', '--records', '3000', '--brokers', '1', '--transport', 'inproc', '--partitions', '2', '--raw', 'false', '--json', '', '--warmup-records', '0', '--send-size', '50', '--max-in-flight', '1', '--transaction-duration-ms', '1', '--payload-monotonic', '--producer-config', config, '--print-metrics']);
      expect(p.code, p.stderr).to.equal(0);
      expect(p.stdout).to.match(/^3000 records sent/m).and.match(/acks all, values counting up from 0 \(3\.6\d* B a record on average\)/).and.contain('buffer.memory 16777216').and.contain('transactions of 1 ms (transactional.id perf-cli-txn)');
      const m = /^transactions committed\s+(\d+) \(/m.exec(p.stdout);
      expect(m, p.stdout).to.not.equal(null);
      expect(Number(m![1])).to.be.within(2, 60);
      // --print-metrics: Kafka's lines, every record sent once
      expect(p.stdout).to.match(/^Metric Name\s+Value$/m).and.match(/^producer-metrics:record-send-total:\{client-id=perf-produce-perf\}\s+: 3000\.000$/m);
      expect(p.stdout).to.match(/^producer-metrics:request-latency-avg:\{client-id=perf-produce-perf\}\s+: \d+\.\d{3}$/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('run the tools: records sent and read, with a summary table', async () => {
    const common = ['--records', '3000', '--brokers', '1', '--transport', 'inproc', '--partitions', '2', '--raw', 'false', '--json', ''];
    // each run has a throw-away cluster of its own: run together
    // as a user runs them: processes of their own
    const [p, c] = await Promise.all([runCli(['perf-produce', ...common, '--warmup-records', '0', '--send-size', '10'], { spawn: true }), runCli(['perf-consume', ...common], { spawn: true })]);
    expect(p.code, p.stderr).to.equal(0);
    expect(p.stdout).to.match(/^3000 records sent, [\d.]+ k? ?records\/sec/m).and.contain('perf-produce: 1 brokers (inproc), topic perf (of this run), 2 partitions, RF 1');
    expect(c.code, c.stderr).to.equal(0);
    expect(c.stdout).to.match(/^3000 records read by 1 consumer\(s\)/m);
    // which checksum ran, so a figure can be compared with another machine's
    expect(p.stdout).to.match(/CRC-32C (hardware|node-rs|js)\b/);
    expect(c.stdout).to.match(/, none, check\.crcs true, CRC-32C (hardware|node-rs|js)\b/);
    if (process.platform === 'linux') {
      // in-process brokers: all the work is the main thread's, no node threads
      expect(p.stdout).to.match(/CPU while sending\s+main thread \d+%.*other threads \d+%( \(waiting \d+%\))?; [\d.]+ of \d+ cores busy/);
      expect(c.stdout).to.match(/CPU while reading\s+main thread \d+%/);
      expect(p.stdout).to.not.contain('node threads');
    }
    // in-process brokers: nothing is posted or written between the client and them
    expect(p.stdout).to.not.contain("the client's thread and the brokers");
  });

  it("take Kafka's command lines: --num-records, --fetch-size, --command-property, and the configs its flags are (acks=all) in --producer-props", async () => {
    const common = ['--brokers', '1', '--transport', 'inproc', '--partitions', '2', '--raw', 'false', '--json', ''];
    const [p, c] = await Promise.all([
      runCli(['perf-produce', ...common, '--num-records', '2000', '--record-size', '100', '--throughput', '-1', '--producer-props', 'acks=all', 'linger.ms=0', 'buffer.memory=8388608', '--warmup-records', '0'], { spawn: true }),
      // Kafka 4.2's names: --num-records, --command-property
      runCli(['perf-consume', ...common, '--num-records', '1500', '--fetch-size', '65536', '--command-property', 'max.poll.records=500'], { spawn: true }),
    ]);
    expect(p.code, p.stderr).to.equal(0);
    expect(p.stdout).to.match(/^2000 records sent/m).and.match(/, acks all, 100 B records, batch\.size 16384, linger\.ms 0, buffer\.memory 8388608, none/);
    expect(c.code, c.stderr).to.equal(0);
    expect(c.stdout).to.match(/^1500 records read by 1 consumer\(s\)/m);
    // a config and its flag that disagree: refused before anything runs
    const both = await runCli(['perf-produce', ...common, '--acks', '1', '--producer-props', 'acks=all'], { inProcess: true });
    expect(both.code).to.equal(2);
    expect(both.stderr).to.contain('--producer-props acks=all and --acks 1 disagree: give one');
  });

  describe('against a running cluster (--bootstrap-server)', () => {
    let cli: CliCluster;
    const common = ['--raw', 'false', '--json', ''];
    const topics = async () => (await cli.run('topics', ['--list'])).stdout.split('\n').filter(Boolean);

    before(async () => {
      cli = await CliCluster.start(2);
    });
    after(async () => {
      await cli?.stop();
    });

    it("a kafka-producer-perf-test command line as it is: the cluster named by bootstrap.servers in --producer-props", async () => {
      const p = await runCli(['perf-produce', '--topic', 'kafka-line', '--num-records', '1000', '--record-size', '100', '--throughput', '-1', '--producer-props', `bootstrap.servers=${cli.bootstrap}`, 'acks=all', '--json', '', '--raw', 'false', '--warmup-records', '0'], { spawn: true });
      expect(p.code, p.stderr).to.equal(0);
      expect(p.stdout).to.match(/^1000 records sent/m).and.match(/perf-produce: the running cluster at 127\.0\.0\.1:\d+ \(2 brokers\), topic kafka-line \(created and kept\), \d+ partitions, RF \d+, acks all/);
      await cli.run('topics', ['--delete', '--topic', 'kafka-line']);
    });

    it('without --topic: a topic of the run, deleted after it, and the consumers\' group with it', async () => {
      // each run makes a topic of its own: run together
      const [p, c] = await Promise.all([
        // a process of its own: its CPU report counts the client's threads, not the cluster's here
        cli.run('perf-produce', [...common, '--records', '2000', '--warmup-records', '0', '--send-size', '10', '--partitions', '2'], { spawn: true }),
        cli.run('perf-consume', [...common, '--records', '1500', '--consumers', '2']),
      ]);
      expect(p.code, p.stderr).to.equal(0);
      expect(p.stdout).to.match(/^2000 records sent/m).and.match(/perf-produce: the running cluster at 127\.0\.0\.1:\d+ \(2 brokers\), topic perf-\S+ \(of this run\), 2 partitions, RF 1/);
      // the client's own threads only: the brokers are another process's
      if (process.platform === 'linux') expect(p.stdout).to.match(/CPU while sending \(this process\)\s+main thread/).and.not.contain('node threads');
      expect(p.stdout).to.match(/the client's thread and the brokers\s+socket writes [\d.]+( k)?\/s/);
      expect(c.code, c.stderr).to.equal(0);
      expect(c.stdout).to.match(/^1500 records read by 2 consumer\(s\)/m).and.match(/topic perf-consume-\S+ \(of this run\)/);
      expect((await topics()).filter((t) => t.startsWith('perf'))).to.deep.equal([]);
      const groups = await cli.run('groups', ['--list']);
      expect(groups.stdout, c.stderr).to.not.contain('perf-group');
    });

    it('a named topic: created and kept, then read as it is (all of it, or --records of it)', async () => {
      const p = await cli.run('perf-produce', [...common, '--topic', 'bench-kept', '--partitions', '3', '--records', '3000', '--warmup-records', '500', '--send-size', '50']);
      expect(p.code, p.stderr).to.equal(0);
      expect(p.stdout).to.contain('topic bench-kept (created and kept), 3 partitions, RF 1');
      expect(await topics()).to.include('bench-kept');
      // the warm-up's records are in the topic too
      const all = await cli.run('perf-consume', [...common, '--topic', 'bench-kept']);
      expect(all.code, all.stderr).to.equal(0);
      expect(all.stdout).to.match(/^3500 records read by 1 consumer\(s\)/m).and.contain('topic bench-kept (existing), 3 partitions, RF 1');
      expect(all.stderr).to.contain('reading 3500 records of topic bench-kept');
      const some = await cli.run('perf-consume', [...common, '--topic', 'bench-kept', '--records', '1000']);
      expect(some.code, some.stderr).to.equal(0);
      expect(some.stdout).to.match(/^\d+ records read by 1 consumer\(s\)/m);
      expect(Number(/^(\d+) records read/m.exec(some.stdout)![1])).to.be.at.least(1000);
      // a second producer run appends to it, as it is
      // ... with more producer configs, Kafka's --producer-props
      const again = await cli.run('perf-produce', [...common, '--topic', 'bench-kept', '--records', '1000', '--warmup-records', '0', '--send-size', '50', '--acks', 'all', '--producer-props', 'enable.idempotence=true', 'max.in.flight.requests.per.connection=5']);
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout).to.contain('topic bench-kept (existing), 3 partitions, RF 1').and.contain('enable.idempotence true, max.in.flight.requests.per.connection 5');
      const more = await cli.run('perf-consume', [...common, '--topic', 'bench-kept', '--consumer-props', 'fetch.min.bytes=1']);
      expect(more.code, more.stderr).to.equal(0);
      expect(more.stdout).to.match(/^4500 records read/m).and.contain('fetch.min.bytes 1');
      expect(await topics()).to.include('bench-kept');
    });

    it("--group, Kafka's way: reads on from the group's committed offsets, commits where it stopped, and keeps the group", async () => {
      const p = await cli.run('perf-produce', [...common, '--topic', 'bench-group', '--partitions', '2', '--records', '3000', '--warmup-records', '0', '--send-size', '50']);
      expect(p.code, p.stderr).to.equal(0);
      const first = await cli.run('perf-consume', [...common, '--topic', 'bench-group', '--group', 'perf-readers', '--consumers', '2']);
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stdout).to.match(/^3000 records read by 2 consumer\(s\)/m).and.contain('2 consumer(s) of group perf-readers');
      // the group stays, its offsets at the topic's end
      const groups = await cli.run('groups', ['--describe', '--group', 'perf-readers']);
      expect(groups.code, groups.stderr).to.equal(0);
      expect(groups.stdout).to.match(/bench-group\s+0\s+\d+\s+\d+\s+0\b/).and.match(/bench-group\s+1\s+\d+\s+\d+\s+0\b/);
      // nothing left for it: a clear failure (exit 1)
      const none = await cli.run('perf-consume', [...common, '--topic', 'bench-group', '--group', 'perf-readers'], { inProcess: true });
      expect(none.code).to.equal(1);
      expect(none.stderr).to.contain("group 'perf-readers' has read topic 'bench-group' to its end");
      // 500 more: the group reads those, and another group the whole topic
      expect((await cli.run('perf-produce', [...common, '--topic', 'bench-group', '--records', '500', '--warmup-records', '0', '--send-size', '50'])).code).to.equal(0);
      const [more, other] = await Promise.all([cli.run('perf-consume', [...common, '--topic', 'bench-group', '--group', 'perf-readers']), cli.run('perf-consume', [...common, '--topic', 'bench-group', '--group', 'perf-others'])]);
      expect(more.code, more.stderr).to.equal(0);
      expect(more.stdout).to.match(/^500 records read by 1 consumer\(s\)/m);
      expect(other.code, other.stderr).to.equal(0);
      expect(other.stdout).to.match(/^3500 records read by 1 consumer\(s\)/m);
    });

    it('--from-latest: reads the records produced while it waits, none of those before', async () => {
      await cli.cluster.client.createTopic('bench-live', 2, 1);
      const samsa = cli.cluster.samsa();
      const producer = samsa.producer({ 'linger.ms': 0 });
      await producer.connect();
      try {
        // records from before the run: not read (with nothing produced meanwhile, it reads none of 300)
        await producer.send({ topic: 'bench-live', messages: Array.from({ length: 300 }, (_, i) => ({ value: `old-${i}` })) });
        const idle = await cli.run('perf-consume', [...common, '--topic', 'bench-live', '--from-latest', '--records', '200', '--timeout-ms', '2000'], { inProcess: true });
        expect(idle.code).to.equal(1);
        expect(idle.stderr).to.contain('consumers read 0 of 200 records in 2000 ms');
        const consume = cli.run('perf-consume', [...common, '--topic', 'bench-live', '--from-latest', '--records', '1000', '--timeout-ms', '30000']);
        let done = false;
        void consume.finally(() => (done = true));
        // something produces while it waits (from before it has its partitions: those are not counted either)
        while (!done) {
          await producer.send({ topic: 'bench-live', messages: Array.from({ length: 100 }, (_, i) => ({ value: `new-${i}` })) });
          await new Promise((r) => setTimeout(r, 20));
        }
        const c = await consume;
        expect(c.code, c.stderr).to.equal(0);
        expect(c.stderr).to.contain('waiting for 1000 records produced to topic bench-live from now on');
        expect(c.stdout).to.match(/^\d+ records read by 1 consumer\(s\)/m).and.contain('1 consumer(s), from the latest offsets');
        expect(Number(/^(\d+) records read/m.exec(c.stdout)![1])).to.be.at.least(1000);
      } finally {
        await producer.disconnect();
      }
      // what it needs: a running cluster and a topic
      const [noServer, noTopic] = await Promise.all([runCli(['perf-consume', '--from-latest'], { inProcess: true }), cli.run('perf-consume', [...common, '--from-latest'], { inProcess: true })]);
      expect(noServer.code).to.equal(2);
      expect(noServer.stderr).to.contain('--from-latest reads the records produced while the run waits: give --bootstrap-server');
      expect(noTopic.code).to.equal(2);
      expect(noTopic.stderr).to.contain('--from-latest needs --topic');
    });

    it("--include, Kafka's way: reads every topic whose whole name matches, with a group that commits in each of them", async () => {
      await Promise.all([cli.cluster.client.createTopic('inc-a', 2, 1), cli.cluster.client.createTopic('inc-b', 1, 1), cli.cluster.client.createTopic('inc-ab-not', 1, 1)]);
      const samsa = cli.cluster.samsa();
      const producer = samsa.producer({ 'linger.ms': 5 });
      await producer.connect();
      const fill = (topic: string, n: number) => producer.send({ topic, messages: Array.from({ length: n }, (_, i) => ({ value: `${topic}-${i}` })) });
      try {
        await Promise.all([fill('inc-a', 300), fill('inc-b', 200), fill('inc-ab-not', 100)]);
        // 'inc-.' matches inc-a and inc-b as whole names, not inc-ab-not (which it begins)
        const all = await cli.run('perf-consume', [...common, '--include', 'inc-.', '--group', 'inc-readers', '--consumers', '2']);
        expect(all.code, all.stderr).to.equal(0);
        expect(all.stderr).to.contain("reading 500 records of the topics matching 'inc-.' (inc-a, inc-b)");
        expect(all.stdout).to.match(/^500 records read by 2 consumer\(s\)/m).and.contain("the topics matching 'inc-.': inc-a (2 partitions, RF 1), inc-b (1 partition, RF 1), 2 consumer(s) of group inc-readers");
        const groups = await cli.run('groups', ['--describe', '--group', 'inc-readers']);
        expect(groups.stdout).to.match(/inc-a\s+0\s+\d+\s+\d+\s+0\b/).and.match(/inc-a\s+1\s+\d+\s+\d+\s+0\b/).and.match(/inc-b\s+0\s+200\s+200\s+0\b/).and.not.contain('inc-ab-not');
        // 50 more in inc-b: the group reads those alone; --records beyond what is left is refused
        await fill('inc-b', 50);
        const [more, tooMany, kip848] = await Promise.all([
          cli.run('perf-consume', [...common, '--include', 'inc-.', '--group', 'inc-readers']),
          cli.run('perf-consume', [...common, '--include', 'inc-(a|b)', '--records', '601'], { inProcess: true }),
          // the consumer protocol (KIP-848): the coordinator resolves the pattern, to the same topics
          cli.run('perf-consume', [...common, '--include', 'inc-.', '--consumers', '2', '--consumer-props', 'group.protocol=consumer']),
        ]);
        expect(more.code, more.stderr).to.equal(0);
        expect(more.stdout).to.match(/^50 records read by 1 consumer\(s\)/m);
        expect(kip848.code, kip848.stderr).to.equal(0);
        expect(kip848.stdout).to.match(/^550 records read by 2 consumer\(s\)/m).and.contain('group.protocol consumer');
        expect(tooMany.code).to.equal(1);
        expect(tooMany.stderr).to.contain("the topics matching --include 'inc-(a|b)' hold 550 records, fewer than --records 601");
      } finally {
        await producer.disconnect();
      }
      const refused = await Promise.all([
        cli.run('perf-consume', [...common, '--include', 'nothing-.*'], { inProcess: true }),
        cli.run('perf-consume', [...common, '--include', '(unclosed'], { inProcess: true }),
        cli.run('perf-consume', [...common, '--include', 'inc-.', '--topic', 'inc-a'], { inProcess: true }),
        cli.run('perf-consume', [...common, '--include', 'inc-.', '--record-size', '10'], { inProcess: true }),
        cli.run('perf-consume', [...common, '--include', 'inc-.', '--group', 'inc-readers'], { inProcess: true }),
        runCli(['perf-consume', '--include', 'inc-.'], { inProcess: true }),
      ]);
      expect(refused.map((r) => r.code)).to.deep.equal([1, 2, 2, 2, 1, 2]);
      expect(refused[0]!.stderr).to.contain("no topic of the cluster matches --include 'nothing-.*'");
      expect(refused[1]!.stderr).to.contain("--include '(unclosed' is not a regular expression");
      expect(refused[2]!.stderr).to.contain('--topic and --include: give one');
      expect(refused[3]!.stderr).to.contain('--record-size shapes the records a run prepares; with --include it reads the topics as they are');
      expect(refused[4]!.stderr).to.contain("group 'inc-readers' has read the topics matching --include 'inc-.' (inc-a, inc-b) to their ends");
      expect(refused[5]!.stderr).to.contain('--include reads the topics of a running cluster whose names match: give --bootstrap-server');
      for (const t of ['inc-a', 'inc-b', 'inc-ab-not']) await cli.run('topics', ['--delete', '--topic', t]);
    });

    it("--timeout, Kafka's way: the longest wait for the next record; past it the run stops, warns, and reports what it read (exit 0)", async () => {
      await cli.cluster.client.createTopic('bench-gap', 1, 1);
      const samsa = cli.cluster.samsa();
      const producer = samsa.producer({ 'linger.ms': 0 });
      await producer.connect();
      try {
        // nothing produced: it stops once the wait (the group join included) passes 1.5 s
        const idle = await cli.run('perf-consume', [...common, '--topic', 'bench-gap', '--from-latest', '--records', '100', '--timeout', '1500'], { inProcess: true });
        expect(idle.code, idle.stderr).to.equal(0);
        expect(idle.stderr).to.contain('WARNING: stopped after 0 of 100 records: none came for 1500 ms (--timeout');
        expect(idle.stdout).to.match(/^0 records read by 1 consumer\(s\)/m).and.match(/stopped short\s+0 of 100 records/);
        // a pattern nothing matches yet, from the latest offsets: it waits for topics to come, then stops the same way
        const none = await cli.run('perf-consume', [...common, '--include', 'later-.*', '--from-latest', '--records', '10', '--timeout', '1000'], { inProcess: true });
        expect(none.code, none.stderr).to.equal(0);
        expect(none.stderr).to.contain("waiting for 10 records produced to the topics matching 'later-.*' (none yet) from now on").and.contain('WARNING: stopped after 0 of 10 records');
        expect(none.stdout).to.contain("the topics matching 'later-.*': none when the run began");
        // some records, then none: it reports those it read
        const consume = cli.run('perf-consume', [...common, '--topic', 'bench-gap', '--from-latest', '--records', '1000', '--timeout', '1500'], { inProcess: true });
        // 300 records over 3 s, then none: it reads those sent once it has its partition
        for (let n = 0; n < 30; n++) {
          await producer.send({ topic: 'bench-gap', messages: Array.from({ length: 10 }, (_, i) => ({ value: `r-${i}` })) });
          await new Promise((r) => setTimeout(r, 100));
        }
        const c = await consume;
        expect(c.code, c.stderr).to.equal(0);
        const got = Number(/^(\d+) records read/m.exec(c.stdout)![1]);
        expect(got).to.be.above(0).and.at.most(300);
        expect(c.stderr).to.contain(`WARNING: stopped after ${got} of 1000 records: none came for 1500 ms`);
      } finally {
        await producer.disconnect();
      }
      await cli.run('topics', ['--delete', '--topic', 'bench-gap']);
    });

    it('reads an existing topic to its end when its last offsets are transaction markers, which hold no record', async () => {
      await cli.cluster.client.createTopic('bench-txn', 2, 1);
      const samsa = cli.cluster.samsa();
      const producer = samsa.producer({ transactionalId: 'perf-consume-markers', 'linger.ms': 5 });
      await producer.connect();
      try {
        const messages = (tag: string) => Array.from({ length: 20 }, (_, i) => ({ value: `${tag}-${i}`, partition: i % 2 }));
        const committed = await producer.transaction();
        await committed.send({ topic: 'bench-txn', messages: messages('kept') });
        await committed.commit();
        const aborted = await producer.transaction();
        await aborted.send({ topic: 'bench-txn', messages: messages('dropped') });
        await aborted.abort();
      } finally {
        await producer.disconnect();
      }
      // 40 records and 2 markers per partition's pair of transactions: 44 offsets, the last ones markers
      const all = await cli.run('perf-consume', [...common, '--topic', 'bench-txn', '--timeout-ms', '20000']);
      expect(all.code, all.stderr).to.equal(0);
      expect(all.stderr).to.contain('reading 44 records of topic bench-txn');
      // read_uncommitted, as Kafka's consumer perf tool: the aborted records are read too, the markers never
      expect(all.stdout).to.match(/^40 records read by 1 consumer\(s\)/m);
    });

    it('perf-e2e: latency on a topic of the run against the TCP round trip; an existing topic only when empty, or from its end one record at a time', async () => {
      await cli.run('topics', ['--create', '--topic', 'bench-e2e', '--partitions', '2']);
      // a topic of the run and the empty existing one: the runs share nothing, run together
      const [e, onEmpty] = await Promise.all([
        cli.run('perf-e2e', ['--json', '', '--records', '4000', '--throughput', '4000', '--partitions', '2', '--send-size', '10']),
        cli.run('perf-e2e', [...common, '--topic', 'bench-e2e', '--records', '1000', '--throughput', '2000', '--print-metrics']),
      ]);
      expect(e.code, e.stderr).to.equal(0);
      expect(e.stdout).to.match(/^perf-e2e: 4000 records at 4000 records\/s asked .*the running cluster at 127\.0\.0\.1:\d+ \(2 brokers\), topic perf-e2e-\S+ \(of this run\), 2 partitions, RF 1/m);
      expect(e.stdout).to.match(/^end-to-end latency: avg [\d.]+ ms, p50 [\d.]+, p95 [\d.]+, p99 [\d.]+.*\(2000 records measured\)/m);
      // where the records at or above the p99 came from
      expect(e.stdout).to.match(/^the slowest 1%: the \d+ records at or above [\d.]+ ms came in \d+ batch(es)? of one partition each: \d+ alone .*their sends were acknowledged in a median [\d.]+ ms against [\d.]+ ms to the consumer \(every send: [\d.]+ ms\): held up (at or before the broker's append|after the append)/m);
      // the client reaches the brokers over TCP: a bare TCP round trip is its floor
      expect(e.stdout).to.match(/^raw limit: a bare TCP socket round trip \(main thread -> a worker over loopback TCP -> main thread\) at 400 messages\/s of 1000 B/m);
      // what crossed the socket while the measured records went through
      expect(e.stdout).to.match(/^meanwhile the client's thread and the brokers: socket writes [\d.]+( k)?\/s \([\d.]+ per 1,000 records, [\d.]+ (B|KiB) each\), reads [\d.]+( k)?\/s/m);
      expect((await topics()).filter((t) => t.startsWith('perf'))).to.deep.equal([]);
      expect(onEmpty.code, onEmpty.stderr).to.equal(0);
      expect(onEmpty.stdout).to.contain('topic bench-e2e (existing), 2 partitions, RF 1');
      // --print-metrics: the producer's and the consumer's, every record sent and taken once
      expect(onEmpty.stdout).to.match(/^producer-metrics:record-send-total:\{client-id=\S+\}\s+: 1000\.000$/m).and.match(/^consumer-fetch-manager-metrics:records-consumed-total:\{client-id=\S+\}\s+: 1000\.000$/m);
      // refused before it sends anything: main() in this process
      const again = await cli.run('perf-e2e', [...common, '--topic', 'bench-e2e', '--records', '1000'], { inProcess: true });
      expect(again.code).to.equal(2);
      expect(again.stderr).to.contain("topic 'bench-e2e' holds 1000 records: a paced end-to-end run reads its topic from the start (its records carry their send time), so it needs an empty one");
      // one record at a time it reads from the topic's end, as kafka-e2e-latency does: only what it sent
      const fromEnd = await cli.run('perf-e2e', [...common, '--topic', 'bench-e2e', '--sequential', '--records', '100', '--warmup-fraction', '0', '--acks', 'all']);
      expect(fromEnd.code, fromEnd.stderr).to.equal(0);
      expect(fromEnd.stdout).to.contain('topic bench-e2e (existing), 2 partitions, RF 1').and.match(/\(100 records measured\)$/m);
    });

    it('perf-e2e --sequential: one record at a time, as kafka-e2e-latency, with its summary lines; acks 0 and the pacing flags refused', async () => {
      const [e, acks0, paced] = await Promise.all([
        cli.run('perf-e2e', [...common, '--sequential', '--records', '300', '--partitions', '1', '--acks', 'all']),
        cli.run('perf-e2e', [...common, '--sequential', '--acks', '0'], { inProcess: true }),
        cli.run('perf-e2e', [...common, '--sequential', '--throughput', '100', '--send-size', '5'], { inProcess: true }),
      ]);
      expect(e.code, e.stderr).to.equal(0);
      expect(e.stdout).to.match(/^perf-e2e --sequential: 300 records of 100 B one at a time, the running cluster at 127\.0\.0\.1:\d+ \(2 brokers\), topic perf-e2e-\S+ \(of this run\), 1 partitions?, RF 1, acks all$/m);
      // the second half measured, as the paced run does
      expect(e.stdout).to.match(/^end-to-end latency: avg [\d.]+ ms, p50 [\d.]+.*\(150 records measured\)$/m);
      expect(e.stdout).to.match(/^of which the send to its acknowledgement: avg [\d.]+ ms/m);
      expect(e.stdout).to.match(/^Avg latency: \d+\.\d{4} ms$/m).and.match(/^Percentiles: 50th = \d+, 99th = \d+, 99\.9th = \d+$/m);
      expect((await topics()).filter((t) => t.startsWith('perf'))).to.deep.equal([]);
      expect(acks0.code).to.equal(2);
      expect(acks0.stderr).to.contain('--sequential waits for each send to be acknowledged before it waits for the consumer: --acks 1 or all');
      expect(paced.code).to.equal(2);
      expect(paced.stderr).to.contain("--throughput, --send-size pace a run's sends; --sequential sends one record at a time");
    });

    it("perf-e2e takes kafka-e2e-latency's command line as it is: broker_list topic num_messages producer_acks message_size_bytes, every record measured", async () => {
      // its sixth argument: configs for both clients, each key to the client that has it
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-e2e-props-'));
      const both = path.join(dir, 'client.properties');
      fs.writeFileSync(both, 'client.id=kafka-line\nfetch.min.bytes=1\nmax.in.flight.requests.per.connection=1\n');
      const stray = path.join(dir, 'stray.properties');
      fs.writeFileSync(stray, 'fetch.min.bytes=1\nno.such.key=2\n');
      const [e, three, six] = await Promise.all([
        runCli(['perf-e2e', cli.bootstrap, 'e2e-kafka-line', '120', 'all', '64', both, '--json', '', '--raw', 'false', '--print-metrics']),
        runCli(['perf-e2e', cli.bootstrap, 'e2e-kafka-line', '120'], { inProcess: true }),
        runCli(['perf-e2e', cli.bootstrap, 'e2e-kafka-line', '120', 'all', '64', stray], { inProcess: true }),
      ]);
      fs.rmSync(dir, { recursive: true, force: true });
      expect(e.code, e.stderr).to.equal(0);
      expect(e.stdout).to.match(/^perf-e2e --sequential: 120 records of 64 B one at a time, the running cluster at 127\.0\.0\.1:\d+ \(2 brokers\), topic e2e-kafka-line \(created and kept\), \d+ partitions?, RF \d+, acks all, the producer's client\.id kafka-line, the producer's max\.in\.flight\.requests\.per\.connection 1, the consumer's client\.id kafka-line, the consumer's fetch\.min\.bytes 1$/m);
      expect(e.stdout).to.match(/\(120 records measured\)$/m).and.match(/^Avg latency: \d+\.\d{4} ms$/m);
      // client.id went to both clients, the others each to its own
      expect(e.stdout).to.match(/^producer-metrics:record-send-total:\{client-id=kafka-line\}\s+: 120\.000$/m).and.match(/^consumer-fetch-manager-metrics:records-consumed-total:\{client-id=kafka-line\}\s+: 120\.000$/m);
      expect(three.code).to.equal(2);
      expect(three.stderr).to.contain("kafka-e2e-latency's form is broker_list topic num_messages producer_acks message_size_bytes [properties_file], then flags if any: got 3 arguments before the flags");
      expect(six.code).to.equal(2);
      expect(six.stderr).to.contain(`--client-config ${stray}: no.such.key: a key neither the producer nor the consumer has`);
      await cli.run('topics', ['--delete', '--topic', 'e2e-kafka-line']);
    });

    it('refuses what cannot apply: exit 2 for flags, exit 1 for a topic too small or a cluster not there', async () => {
      await cli.run('topics', ['--create', '--topic', 'bench-small', '--partitions', '2']);
      const cases: { argv: string[]; code: number; says: RegExp }[] = [
        { argv: ['perf-produce', '--brokers', '1', '--transport', 'inproc'], code: 2, says: /--brokers, --transport shape the throw-away cluster; with --bootstrap-server the running cluster is measured as it is/ },
        { argv: ['perf-produce', '--topic', 'bench-small', '--partitions', '4', '--replication-factor', '2'], code: 2, says: /topic 'bench-small' exists: --partitions 4 \(it has 2\), --replication-factor 2 \(it has 1\) would not apply/ },
        { argv: ['perf-produce', '--topic', 'bench-small', '--min-insync-replicas', '1'], code: 2, says: /--min-insync-replicas \(it has its own config\)/ },
        { argv: ['perf-consume', '--topic', 'bench-small', '--record-size', '10'], code: 2, says: /--record-size shapes the records a run prepares; topic 'bench-small' exists/ },
        { argv: ['perf-consume', '--topic', 'bench-small'], code: 1, says: /topic 'bench-small' holds no records to read/ },
        { argv: ['perf-produce', '--linger-ms', '5', '--producer-props', 'linger.ms=1'], code: 2, says: /--producer-props linger\.ms=1 and --linger-ms 5 disagree: give one/ },
        { argv: ['perf-produce', '--producer-props', 'bootstrap.servers=127.0.0.1:1'], code: 2, says: /--producer-props bootstrap\.servers=127\.0\.0\.1:1 and --bootstrap-server 127\.0\.0\.1:\d+ disagree: give one/ },
        { argv: ['perf-consume', '--consumer-props', 'enable.auto.commit=true'], code: 2, says: /--consumer-props enable\.auto\.commit: a run commits nothing/ },
        { argv: ['perf-e2e', '--consumer-props', 'group.id=mine'], code: 2, says: /--consumer-props group\.id: a run reads in a group of its own/ },
        { argv: ['perf-e2e', '--producer-props', 'fetch.min.bytes=1'], code: 2, says: /--producer-props fetch\.min\.bytes: unknown producer config key/ },
        { argv: ['perf-produce', '--producer-props', 'enable.idempotence=true'], code: 2, says: /--producer-props acks: .*enable\.idempotence/ },
        { argv: ['perf-consume', '--consumer-props', 'no.such.key=1'], code: 2, says: /--consumer-props no\.such\.key: unknown consumer config key/ },
        { argv: ['perf-produce', '--transactional-id', 'perf-t', '--acks', '1'], code: 2, says: /--acks 1: transactions need acks all \(-1\); leave --acks out or give --acks all/ },
        { argv: ['perf-produce', '--producer-props', 'transactional.id=perf-t', '--acks', '0'], code: 2, says: /--acks 0: transactions need acks all/ },
        { argv: ['perf-produce', '--transaction-duration-ms', '0'], code: 2, says: /--transaction-duration-ms must be greater than zero, got 0/ },
        { argv: ['perf-produce', '--payload-monotonic', '--record-size', '10'], code: 2, says: /--record-size and --payload-monotonic both say what the values are: give one/ },
        { argv: ['perf-produce', '--producer-config', 'no-such.properties'], code: 2, says: /--producer-config no-such\.properties: no such file/ },
      ];
      // each fails before it changes anything: through main() in this process (the executable's
      // exit codes are those of the runs above and of the unreachable cluster below)
      const [away, results] = await Promise.all([
        runCli(['perf-produce', '--bootstrap-server', '127.0.0.1:1', ...common]),
        Promise.all(cases.map((k) => cli.run(k.argv[0]!, [...common, ...k.argv.slice(1)], { inProcess: true }))),
      ]);
      cases.forEach((k, i) => {
        expect(results[i]!.code, `${k.argv.join(' ')}: ${results[i]!.stderr}`).to.equal(k.code);
        expect(results[i]!.stderr).to.match(k.says);
      });
      expect(away.code).to.equal(1);
      expect(away.stderr).to.match(/cannot reach the cluster at 127\.0\.0\.1:1: connection refused/);
      const bad = await runCli(['perf-consume', '--bootstrap-server', 'nowhere', ...common], { inProcess: true });
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.match(/'nowhere' is not host:port/);
      // nothing was created or left by the refused runs
      expect((await topics()).filter((t) => t.startsWith('perf'))).to.deep.equal([]);
    });
  });
});
