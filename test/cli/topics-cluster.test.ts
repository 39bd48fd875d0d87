/**
 * `samsa topics` against a cluster of three worker-thread brokers, as a user runs it: --topic as
 * a regular expression for --list, --describe, --alter and --delete; --replica-assignment for a
 * new topic and for new partitions; --topics-with-overrides; and, after a broker dies, the
 * describe reports (under-replicated, under and at min ISR, unavailable) each naming its
 * partitions, without topic lines.
 */
import { expect } from 'chai';
import { checkFor } from '../helpers/check-for.js';
import { cliClusterPerSuite } from './cli-harness.js';

const lines = (stdout: string) => stdout.split('\n').filter((l) => l !== '');
/** `topic-partition` of each partition line printed. */
const partitionsOf = (stdout: string) =>
  lines(stdout)
    .filter((l) => l.startsWith('\t'))
    .map((l) => {
      const m = /Topic: (\S+)\tPartition: (\d+)/.exec(l)!;
      return `${m[1]}-${m[2]}`;
    });

describe('cli/commands/topics: regular expressions, replica assignments and the describe reports', function () {
  this.timeout(60_000);
  const cluster = cliClusterPerSuite(3);

  it('--topic is a regular expression the whole name must match for --list, --describe, --alter and --delete', async () => {
    const c = cluster();
    for (const t of ['rx.a', 'rx.b', 'rxza']) expect((await c.run('topics', ['--create', '--topic', t, '--partitions', '1', '--replication-factor', '1'])).code).to.equal(0);
    const listed = await c.run('topics', ['--list', '--topic', 'rx\\..*']);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(lines(listed.stdout)).to.deep.equal(['rx.a', 'rx.b']);
    expect(lines((await c.run('topics', ['--list', '--topic', 'rx.a'])).stdout)).to.deep.equal(['rx.a', 'rxza']);
    expect(lines((await c.run('topics', ['--list', '--topic', 'nothing-.*'])).stdout)).to.deep.equal([]);
    const altered = await c.run('topics', ['--alter', '--topic', 'rx\\.a,rxza', '--config', 'retention.ms=60000']);
    expect(altered.code, altered.stderr).to.equal(0);
    expect(lines(altered.stdout)).to.deep.equal(['Updated the config of topic rx.a.', 'Updated the config of topic rxza.']);
    const overrides = await c.run('topics', ['--describe', '--topic', 'rx.*', '--topics-with-overrides']);
    expect(overrides.code, overrides.stderr).to.equal(0);
    expect(lines(overrides.stdout).map((l) => l.split('\t')[0])).to.deep.equal(['Topic: rx.a', 'Topic: rxza']);
    const described = await c.run('topics', ['--describe', '--topic', 'rx\\..*']);
    expect(partitionsOf(described.stdout)).to.deep.equal(['rx.a-0', 'rx.b-0']);
    const missing = await c.run('topics', ['--describe', '--topic', 'nothing-.*']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain("topic 'nothing-.*' does not exist (no topic name matches it)");
    expect((await c.run('topics', ['--describe', '--topic', 'nothing-.*', '--if-exists'])).code).to.equal(0);
    const bad = await c.run('topics', ['--list', '--topic', 'rx(']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('rx( is an invalid regex.');
    const deleted = await c.run('topics', ['--delete', '--topic', 'rx\\..*']);
    expect(deleted.code, deleted.stderr).to.equal(0);
    expect(lines(deleted.stdout)).to.deep.equal(['Deleted topic rx.a.', 'Deleted topic rx.b.']);
    expect(lines((await c.run('topics', ['--list', '--topic', 'rx.*'])).stdout)).to.deep.equal(['rxza']);
  });

  it('--replica-assignment places a new topic, and with --alter --partitions the new partitions', async () => {
    const c = cluster();
    const created = await c.run('topics', ['--create', '--topic', 'pinned', '--replica-assignment', '3:1,1:2']);
    expect(created.code, created.stderr).to.equal(0);
    const replicas = async () => (await c.cluster.client.metadata()).topics.find((t) => t.name === 'pinned')!.partitions.map((p) => p.replicas);
    expect(await replicas()).to.deep.equal([[3, 1], [1, 2]]);
    const grown = await c.run('topics', ['--alter', '--topic', 'pinned', '--partitions', '3', '--replica-assignment', '3:1,1:2,2:3']);
    expect(grown.code, grown.stderr).to.equal(0);
    expect(await replicas()).to.deep.equal([[3, 1], [1, 2], [2, 3]]);
    const wrong = await c.run('topics', ['--alter', '--topic', 'pinned', '--partitions', '4', '--replica-assignment', '3:1,1:2,2:3']);
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.contain('--replica-assignment lists 3 partitions: it must list all 4 of topic pinned');
    const both = await c.run('topics', ['--create', '--topic', 'x', '--partitions', '2', '--replica-assignment', '1:2']);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.contain('leave out --partitions and --replication-factor');
  });

  it('after a broker dies: each report names its partitions and prints no topic lines', async () => {
    const c = cluster();
    for (const [t, args] of [
      ['min-two', ['--replica-assignment', '1:2:3', '--config', 'min.insync.replicas=2']],
      ['min-three', ['--replica-assignment', '2:3:1', '--config', 'min.insync.replicas=3']],
      ['on-three', ['--replica-assignment', '3']],
      ['healthy', ['--replica-assignment', '1:2']],
    ] as const) {
      const r = await c.run('topics', ['--create', '--topic', t, ...args]);
      expect(r.code, r.stderr).to.equal(0);
    }
    await c.cluster.killBroker(3);
    const report = async (...flags: string[]) => {
      const r = await c.run('topics', ['--describe', '--topic', 'min-two,min-three,on-three,healthy', ...flags]);
      expect(r.code, r.stderr).to.equal(0);
      expect(lines(r.stdout).every((l) => l.startsWith('\t')), r.stdout).to.equal(true);
      return partitionsOf(r.stdout).sort();
    };
    await checkFor(async () => (await report('--under-replicated-partitions')).join() === 'min-three-0,min-two-0,on-three-0', 20_000, 100);
    expect(await report('--under-min-isr-partitions')).to.deep.equal(['min-three-0', 'on-three-0']);
    // healthy's two replicas are above the cluster's min.insync.replicas of 1
    expect(await report('--at-min-isr-partitions')).to.deep.equal(['min-two-0']);
    expect(await report('--unavailable-partitions')).to.deep.equal(['on-three-0']);
    // several reports: the partitions any of them names
    expect(await report('--at-min-isr-partitions', '--unavailable-partitions')).to.deep.equal(['min-two-0', 'on-three-0']);
    expect(await report('--under-replicated-partitions', '--at-min-isr-partitions')).to.not.include('healthy-0');
    const mixed = await c.run('topics', ['--describe', '--topics-with-overrides', '--unavailable-partitions']);
    expect(mixed.code).to.equal(2);
    expect(mixed.stderr).to.contain('--topics-with-overrides does not go with --unavailable-partitions');
  });
});
