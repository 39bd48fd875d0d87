/**
 * `samsa groups --reset-offsets` with Kafka's options (kafka-consumer-groups): --topic t[:p,...]
 * (repeatable) or --all-topics (every partition the group has committed offsets of), and the
 * targets --to-earliest, --to-latest, --to-offset, --to-datetime, --by-duration, --shift-by and
 * --to-current, a dry run unless --execute; a KIP-848 consumer group without running members is
 * reset as a classic one is, and refused while a member runs.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

const lines = (stdout: string) => stdout.split('\n').filter((l) => l !== '');

/** The rows of the plan table: [topic, partition, current, new]. */
function plan(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/).slice(1));
}

describe('cli/commands/groups --reset-offsets: Kafka\'s targets and topic forms', function () {
  this.timeout(60_000);
  let c: CliCluster;
  let samsa: SamsaClient;

  before(async () => {
    c = await CliCluster.start(1);
    samsa = c.cluster.samsa('reset-offsets-test');
    for (const [t, n] of [['rs-a', 2], ['rs-b', 1]] as const) expect((await c.run('topics', ['--create', '--topic', t, '--partitions', String(n), '--replication-factor', '1'])).code).to.equal(0);
    const producer = samsa.producer();
    await producer.connect();
    await producer.send({ topic: 'rs-a', messages: Array.from({ length: 20 }, (_, i) => ({ value: `a${i}`, partition: i % 2 })) });
    await producer.send({ topic: 'rs-b', messages: Array.from({ length: 4 }, (_, i) => ({ value: `b${i}`, partition: 0 })) });
    await producer.disconnect();
  });
  after(async () => {
    await samsa?.close();
    await c?.stop();
  });

  const committed = async (group: string): Promise<string[]> => {
    const admin = samsa.admin();
    await admin.connect();
    try {
      return (await admin.fetchOffsets({ groupId: group })).flatMap((t) => t.partitions.filter((p) => p.offset >= 0).map((p) => `${t.topic}-${p.partition}=${p.offset}`)).sort();
    } finally {
      await admin.disconnect();
    }
  };

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['--group', 'g', '--to-earliest'], says: /--reset-offsets takes one of these options: --all-topics, --topic/ },
      { argv: ['--group', 'g', '--topic', 't', '--all-topics', '--to-earliest'], says: /--reset-offsets takes one of these options: --all-topics, --topic/ },
      { argv: ['--group', 'g', '--topic', 't'], says: /--reset-offsets takes exactly one of these options: --to-earliest/ },
      { argv: ['--group', 'g', '--topic', 't', '--shift-by', 'x'], says: /--shift-by takes an integer/ },
      { argv: ['--group', 'g', '--topic', 't', '--by-duration', '1h'], says: /--by-duration: '1h' is not an ISO-8601 duration/ },
      { argv: ['--group', 'g', '--topic', 't:z', '--to-latest'], says: /Invalid partition 'z' specified in topic arg 't:z'/ },
      { argv: ['--group', 'g', '--topic', 't', '--to-latest', '--dry-run', '--execute'], says: /give --dry-run or --execute, not both/ },
    ];
    const results = await Promise.all(cases.map((x) => runCli(['groups', '--bootstrap-server', '127.0.0.1:1', '--reset-offsets', ...x.argv])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
    });
  });

  it('--all-topics with --shift-by, a partition with --shift-by past the end (kept at the latest), --to-current, by time and by duration', async () => {
    const admin = samsa.admin();
    await admin.connect();
    try {
      await admin.resetOffsets({ groupId: 'resetters', topic: 'rs-a', partitions: [{ partition: 0, offset: 5 }, { partition: 1, offset: 5 }] });
      await admin.resetOffsets({ groupId: 'resetters', topic: 'rs-b', partitions: [{ partition: 0, offset: 2 }] });
    } finally {
      await admin.disconnect();
    }
    const shifted = await c.run('groups', ['--reset-offsets', '--group', 'resetters', '--all-topics', '--shift-by', '-2', '--execute']);
    expect(shifted.code, shifted.stderr).to.equal(0);
    expect(plan(shifted.stdout)).to.deep.equal([['rs-a', '0', '5', '3'], ['rs-a', '1', '5', '3'], ['rs-b', '0', '2', '0']]);
    expect(await committed('resetters')).to.deep.equal(['rs-a-0=3', 'rs-a-1=3', 'rs-b-0=0']);

    const past = await c.run('groups', ['--reset-offsets', '--group', 'resetters', '--topic', 'rs-a:1', '--shift-by', '100', '--execute']);
    expect(past.code, past.stderr).to.equal(0);
    expect(past.stderr).to.contain('rs-a-1: offset 103 is past the latest offset 10; using 10');
    expect(await committed('resetters')).to.deep.equal(['rs-a-0=3', 'rs-a-1=10', 'rs-b-0=0']);

    const current = await c.run('groups', ['--reset-offsets', '--group', 'resetters', '--topic', 'rs-a', '--topic', 'rs-b', '--to-current']);
    expect(current.code, current.stderr).to.equal(0);
    expect(plan(current.stdout).map((r) => r[3])).to.deep.equal(['3', '10', '0']);
    expect(current.stderr).to.contain('dry run: nothing was changed');

    const [early, late, hour] = await Promise.all([
      c.run('groups', ['--reset-offsets', '--group', 'resetters', '--all-topics', '--to-datetime', '2000-01-01T00:00:00.000Z']),
      c.run('groups', ['--reset-offsets', '--group', 'resetters', '--all-topics', '--to-datetime', '2999-01-01T00:00:00.000']),
      c.run('groups', ['--reset-offsets', '--group', 'resetters', '--all-topics', '--by-duration', 'PT1H']),
    ]);
    for (const r of [early, late, hour]) expect(r.code, r.stderr).to.equal(0);
    expect(plan(early.stdout).map((r) => r[3])).to.deep.equal(['0', '0', '0']);
    // no record that late: the latest offsets
    expect(plan(late.stdout).map((r) => r[3])).to.deep.equal(['10', '10', '4']);
    expect(plan(hour.stdout).map((r) => r[3])).to.deep.equal(['0', '0', '0']);
    expect(await committed('resetters')).to.deep.equal(['rs-a-0=3', 'rs-a-1=10', 'rs-b-0=0']);

    const missing = await c.run('groups', ['--reset-offsets', '--group', 'resetters', '--topic', 'rs-a:9', '--to-latest']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('The partitions "rs-a-9" do not exist');
    const noCommit = await c.run('groups', ['--reset-offsets', '--group', 'nobody-yet', '--topic', 'rs-b', '--shift-by', '1']);
    expect(noCommit.code).to.equal(1);
    expect(noCommit.stderr).to.contain('--shift-by needs a committed offset to shift, and rs-b-0 has none');
  });

  it('a KIP-848 consumer group: refused while a member runs, reset once none does', async () => {
    const consumer = samsa.consumer({ groupId: 'k848', groupProtocol: 'consumer' });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: 'rs-b', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => seen.length === 4, 20_000, 20);
    await consumer.commitOffsets();
    const busy = await c.run('groups', ['--reset-offsets', '--group', 'k848', '--topic', 'rs-b', '--to-earliest', '--execute']);
    expect(busy.code).to.equal(1);
    expect(busy.stderr).to.contain("consumer group 'k848' has 1 active member");
    await consumer.disconnect();
    const r = await c.run('groups', ['--reset-offsets', '--group', 'k848', '--topic', 'rs-b', '--to-earliest', '--execute']);
    expect(r.code, r.stderr).to.equal(0);
    expect(plan(r.stdout)).to.deep.equal([['rs-b', '0', '4', '0']]);
    expect(await committed('k848')).to.deep.equal(['rs-b-0=0']);
  });

  it("--export prints the plan as Kafka's CSV; --from-file resets to what such a file says", async () => {
    const exported = await c.run('groups', ['--reset-offsets', '--group', 'resetters', '--all-topics', '--to-latest', '--export']);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(lines(exported.stdout)).to.deep.equal(['rs-a,0,10', 'rs-a,1,10', 'rs-b,0,4']);
    expect(exported.stderr).to.contain('dry run: nothing was changed');
    const file = path.join(os.tmpdir(), `samsa-reset-plan-${process.pid}.csv`);
    fs.writeFileSync(file, 'rs-a,0,7\nrs-b,0,1\n');
    try {
      const applied = await c.run('groups', ['--reset-offsets', '--group', 'resetters', '--from-file', file, '--execute']);
      expect(applied.code, applied.stderr).to.equal(0);
      expect(plan(applied.stdout).map((r) => [r[0], r[1], r[3]])).to.deep.equal([
        ['rs-a', '0', '7'],
        ['rs-b', '0', '1'],
      ]);
      expect(await committed('resetters')).to.deep.include.members(['rs-a-0=7', 'rs-b-0=1']);
      const unreadable = await c.run('groups', ['--reset-offsets', '--group', 'k848', '--from-file', path.join(os.tmpdir(), `samsa-no-such-plan-${process.pid}.csv`)]);
      expect(unreadable.code).to.equal(2);
      expect(unreadable.stderr).to.contain('--from-file: cannot read').and.contain('ENOENT');
      fs.writeFileSync(`${file}.grouped`, 'resetters,rs-b,0,2\n');
      const notThere = await c.run('groups', ['--reset-offsets', '--group', 'k848', '--from-file', `${file}.grouped`]);
      expect(notThere.code, notThere.stderr).to.equal(0);
      expect(notThere.stderr).to.contain("--from-file has no offsets for consumer group 'k848'");
      fs.rmSync(`${file}.grouped`, { force: true });
      const mixed = await c.run('groups', ['--reset-offsets', '--group', 'resetters', '--from-file', file, '--to-latest']);
      expect(mixed.code).to.equal(2);
      expect(mixed.stderr).to.contain('--from-file gives the partitions and their offsets: leave out --to-latest');
      const both = await c.run('groups', ['--reset-offsets', '--group', 'resetters', '--from-file', file, '--dry-run', '--execute']);
      expect(both.code).to.equal(2);
      expect(both.stderr).to.contain('give --dry-run or --execute, not both');
      const all = await c.run('groups', ['--reset-offsets', '--all-groups', '--from-file', file]);
      expect(all.code).to.equal(2);
      expect(all.stderr).to.contain("--from-file line 1: 'rs-a,0,7' is not group,topic,partition,offset");
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('--all-groups: describes, resets and deletes every consumer group in turn; one that fails is reported and the others go on', async () => {
    const ids = async () => lines((await c.run('groups', ['--list'])).stdout);
    const before = await ids();
    expect(before).to.include.members(['k848', 'resetters']);
    const described = await c.run('groups', ['--describe', '--all-groups']);
    expect(described.code, described.stderr).to.equal(0);
    for (const g of before) expect(described.stdout).to.match(new RegExp(`^Group: ${g}\t`, 'm'));
    const reset = await c.run('groups', ['--reset-offsets', '--all-groups', '--all-topics', '--to-earliest', '--execute']);
    expect(reset.code, reset.stderr).to.equal(0);
    expect(await committed('resetters')).to.deep.equal(['rs-a-0=0', 'rs-a-1=0', 'rs-b-0=0']);
    // a group with a running member cannot be deleted: the others are
    const consumer = samsa.consumer({ groupId: 'busy' });
    let joined = false;
    consumer.on('group.join', () => void (joined = true));
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: 'rs-b' });
      await consumer.run({ eachMessage: async () => undefined });
      await checkFor(() => joined, 20_000, 20);
      const deleted = await c.run('groups', ['--delete', '--all-groups']);
      expect(deleted.code).to.equal(1);
      expect(deleted.stderr).to.contain('1 group failed').and.contain("busy: consumer group 'busy' still has active members");
      expect(await ids()).to.deep.equal(['busy']);
    } finally {
      await consumer.disconnect();
    }
    const both = await runCli(['groups', '--bootstrap-server', '127.0.0.1:1', '--describe', '--group', 'a', '--all-groups']);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.contain('give --group or --all-groups, not both');
  });
});
