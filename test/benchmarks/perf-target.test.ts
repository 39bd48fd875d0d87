/**
 * benchmarks/lib/perf-target.ts: what the perf tools measure (a throw-away cluster, or a running
 * one named by --bootstrap-server), which raw limits bound it, and which topic a run uses on it.
 * The topic cases run against an in-process cluster reached the way a running one is.
 */
import { expect } from 'chai';
import { isLoopbackHost, targetIsLocal, targetServers, chooseTopic, clientTransport, releaseTopic, runName, type PerfTarget } from '../../benchmarks/lib/perf-target.js';
import { describeIncluded, fromCommitted, includePattern, recordsToRead } from '../../benchmarks/perf-consume.js';
import { UsageError } from '../../src/cli/errors.js';
import { runScaling } from '../../benchmarks/perf-scaling.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { TestCluster } from '../helpers/cluster.js';
import { checkFor } from '../helpers/check-for.js';

const throwAway = { 'bootstrap-server': '', brokers: 3, transport: 'worker' };
const running = { ...throwAway, 'bootstrap-server': '127.0.0.1:9192,localhost:9193' };

describe('benchmarks/perf-target', function () {
  this.timeout(60_000);

  it('a throw-away cluster without --bootstrap-server; a checked server list with it', () => {
    expect(targetServers(throwAway, new Set(['brokers', 'transport']))).to.equal(null);
    expect(targetServers(running, new Set())).to.deep.equal(['127.0.0.1:9192', 'localhost:9193']);
    expect(() => targetServers({ ...running, 'bootstrap-server': 'host' }, new Set())).to.throw(/'host' is not host:port/);
  });

  it('refuses the throw-away cluster\'s flags beside --bootstrap-server (a usage error)', () => {
    const err = (() => {
      try {
        targetServers(running, new Set(['brokers', 'heap-growing-percent', 'records']));
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(err?.name).to.equal('UsageError');
    expect(err?.message).to.equal('--brokers, --heap-growing-percent shape the throw-away cluster; with --bootstrap-server the running cluster is measured as it is');
  });

  it("this machine's raw limits bound a throw-away cluster and brokers on loopback only", () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]']) expect(isLoopbackHost(h), h).to.equal(true);
    for (const h of ['10.0.0.1', 'kafka-1', '128.0.0.1', '127.0.0', 'localhost.example']) expect(isLoopbackHost(h), h).to.equal(false);
    expect(targetIsLocal(null)).to.equal(true);
    expect(targetIsLocal(['127.0.0.1:9192', '[::1]:9193'])).to.equal(true);
    expect(targetIsLocal(['127.0.0.1:9192', 'broker-2:9192'])).to.equal(false);
  });

  it('reads all of an existing topic, or --records of it; refuses an empty topic or too many', () => {
    expect(recordsToRead('t', 500, null)).to.equal(500);
    expect(recordsToRead('t', 500, 200)).to.equal(200);
    expect(() => recordsToRead('t', 500, 501)).to.throw(/topic 't' holds 500 records, fewer than --records 501/);
    expect(() => recordsToRead('t', 0, null)).to.throw(/topic 't' holds no records to read/);
  });

  it("--include matches whole topic names, as Kafka's pattern subscription; a bad pattern is a usage error", () => {
    const p = includePattern('bench-.*|orders');
    expect(['bench-1', 'bench-', 'orders', 'orders-eu', 'my-bench-1', 'ORDERS'].filter((t) => p.test(t))).to.deep.equal(['bench-1', 'bench-', 'orders']);
    // the alternation stays inside the anchors
    expect(includePattern('a|b').test('ab')).to.equal(false);
    expect(() => includePattern('orders[')).to.throw(UsageError, /--include 'orders\[' is not a regular expression/);
    expect(describeIncluded('o.*', [{ name: 'o1', partitions: 3, replicationFactor: 2, origin: 'existing' }, { name: 'o2', partitions: 1, replicationFactor: 1, origin: 'existing' }])).to.equal("the topics matching 'o.*': o1 (3 partitions, RF 2), o2 (1 partition, RF 1)");
    expect(describeIncluded('o.*', [])).to.equal("the topics matching 'o.*': none when the run began");
  });

  it("a named group reads from its committed offsets on; where it committed nothing, or outside the log, from the start", () => {
    const ends = [
      { partition: 0, low: 0, high: 100 },
      { partition: 1, low: 10, high: 50 },
      { partition: 2, low: 0, high: 30 },
      { partition: 3, low: 20, high: 40 },
    ];
    const committed = new Map([
      [0, 60],
      [1, 50],
      [3, 5],
    ]);
    expect(fromCommitted(ends, committed)).to.deep.equal([
      { partition: 0, low: 60, high: 100 },
      { partition: 1, low: 50, high: 50 },
      { partition: 2, low: 0, high: 30 },
      // below the log start (deleted records): the consumer resets to the start, as the run counts
      { partition: 3, low: 20, high: 40 },
    ]);
  });

  describe('the topic of a run', () => {
    let c: TestCluster;
    let samsa: SamsaClient;
    const target = (kind: PerfTarget['kind']): PerfTarget => ({
      kind,
      brokers: 2,
      description: 'test',
      local: true,
      client: async () => samsa,
      adminClient: async () => samsa,
      dropTopic: async (topic) => {
        const admin = samsa.admin();
        await admin.connect();
        try {
          await admin.deleteTopics({ topics: [topic] });
          await checkFor(async () => !(await admin.listTopics()).includes(topic), 10_000, 20);
        } finally {
          await admin.disconnect();
        }
      },
      close: async () => undefined,
    });
    const wish = { topic: '', defaultName: 'perf', partitions: 2, replicationFactor: 1, config: {} };
    const listed = async () => {
      const admin = samsa.admin();
      await admin.connect();
      try {
        return await admin.listTopics();
      } finally {
        await admin.disconnect();
      }
    };

    before(async () => {
      c = await TestCluster.start({ brokers: 2 });
      samsa = c.samsa();
    });
    after(async () => {
      await c?.stop();
    });

    it("names a run's own things, and knows a running cluster is reached over TCP", () => {
      expect(runName('perf-x')).to.match(/^perf-x-[a-zA-Z0-9]{10}$/);
      expect(runName('perf-x')).to.not.equal(runName('perf-x'));
      expect(clientTransport(target('running'))).to.equal('tcp');
      expect(clientTransport(target('worker'))).to.equal('worker');
    });

    it('a running cluster without --topic: a fresh name of the run, dropped after it', async () => {
      const t = await chooseTopic(target('running'), wish, new Set());
      expect(t.origin).to.equal('run');
      expect(t.name).to.match(/^perf-[a-zA-Z0-9]{10}$/);
      expect(await listed()).to.include(t.name);
      await releaseTopic(target('running'), t);
      expect(await listed()).to.not.include(t.name);
      const other = await chooseTopic(target('running'), wish, new Set());
      expect(other.name).to.not.equal(t.name);
      await releaseTopic(target('running'), other);
    });

    it('a running cluster with a new --topic: created with the flags and kept', async () => {
      const t = await chooseTopic(target('running'), { ...wish, topic: 'named', partitions: 3 }, new Set(['topic', 'partitions']));
      expect(t).to.deep.equal({ name: 'named', partitions: 3, replicationFactor: 1, origin: 'created' });
      await releaseTopic(target('running'), t);
      expect(await listed()).to.include('named');
    });

    it('an existing --topic: used as it is; flags that match it are fine, others refused', async () => {
      await c.client.createTopic('there', 4, 2);
      const t = await chooseTopic(target('running'), { ...wish, topic: 'there' }, new Set(['topic']));
      expect(t).to.deep.equal({ name: 'there', partitions: 4, replicationFactor: 2, origin: 'existing' });
      const same = await chooseTopic(target('running'), { ...wish, topic: 'there', partitions: 4, replicationFactor: 2 }, new Set(['partitions', 'replication-factor']));
      expect(same.origin).to.equal('existing');
      const err = await chooseTopic(target('running'), { ...wish, topic: 'there', partitions: 6 }, new Set(['partitions'])).catch((e: Error) => e);
      expect((err as Error).name).to.equal('UsageError');
      expect((err as Error).message).to.equal("topic 'there' exists: --partitions 6 (it has 4) would not apply; leave it out to use the topic as it is, or name another --topic");
      await releaseTopic(target('running'), t);
      expect(await listed()).to.include('there');
    });

    it('perf-scaling on a running cluster: each run on a topic named for it, dropped after it', async () => {
      const t = target('running');
      const dropped: string[] = [];
      const s = await runScaling({ client: t.client, dropTopic: async (topic) => (dropped.push(topic), t.dropTopic(topic)) }, [1, 3], { records: 2_000, warmupRecords: 0, sendSize: 50 }, 1, 'perf-scale-abc');
      expect(s.points.map((p) => p.partitions)).to.deep.equal([1, 3]);
      expect(s.points.every((p) => p.result.records === 2_000 && p.result.recordsPerSec > 0)).to.equal(true);
      expect(dropped).to.deep.equal(['perf-scale-abc-warmup', 'perf-scale-abc-1-0', 'perf-scale-abc-3-0']);
      expect((await listed()).filter((x) => x.startsWith('perf-scale'))).to.deep.equal([]);
    });

    it('a throw-away cluster: the default name, never dropped on its own (the cluster goes as a whole)', async () => {
      const t = await chooseTopic(target('worker'), { ...wish, defaultName: 'perf-tw' }, new Set());
      expect(t).to.deep.equal({ name: 'perf-tw', partitions: 2, replicationFactor: 1, origin: 'run' });
      await releaseTopic(target('worker'), t);
      expect(await listed()).to.include('perf-tw');
    });
  });
});
