/**
 * `samsa start` as a child process: a topology with problems is reported key by key with exit
 * 2 and nothing written; a good one starts, prints its client address and copy-paste commands
 * that work as printed, and stops with exit 0 on SIGINT after a controlled shutdown.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { checkFor } from '../helpers/check-for.js';
import { runCli, startCli } from './cli-harness.js';

/** The samsa arguments of a printed `npx samsa ...` command line. */
function argsOf(line: string): string[] {
  const at = line.indexOf('npx samsa ');
  expect(at, line).to.be.greaterThan(-1);
  return line.slice(at + 'npx samsa '.length).trim().split(/\s+/);
}

describe('cli: samsa start', function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-cli-start-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function write(name: string, topology: unknown): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(topology, null, 2));
    return file;
  }

  it('reports every problem of a topology with its key path, exits 2 and starts nothing', async () => {
    const file = write('bad.json', {
      clusterId: 'bad',
      nodes: [{ id: 'main', kind: 'inproc' }],
      controller: { node: 'main', metadataDir: 'data/controller' },
      brokers: [
        { id: 1, node: 'nowhere', logDir: 'data/broker-1', config: { 'no.such.key': 1 } },
        { id: 1, node: 'main', logDir: 'data/broker-1b' },
      ],
      colour: 'blue',
    });
    const base = path.join(dir, 'base');
    fs.writeFileSync(path.join(dir, 'broken.json'), '{');
    // none of these starts anything: run together, the first as a real process, the others
    // through main() in this process
    const [r, missing, notJson, wrongNode] = await Promise.all([
      runCli(['start', file, '--base-dir', base]),
      runCli(['start', path.join(dir, 'missing.json')], { inProcess: true }),
      runCli(['start', path.join(dir, 'broken.json')], { inProcess: true }),
      runCli(['start', write('one.json', { clusterId: 'one', nodes: [{ id: 'main', kind: 'inproc' }], controller: { node: 'main', metadataDir: 'c' }, brokers: [{ id: 1, node: 'main', logDir: 'b' }] }), '--node', 'main', '--base-dir', base], { inProcess: true }),
    ]);
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).to.contain(`${file} cannot be started; nothing was started or written`);
    const problems = lines.slice(1).map((l) => l.trim());
    expect(problems.some((l) => l.startsWith('colour: unknown key'))).to.equal(true);
    expect(problems.some((l) => l.startsWith("brokers[0].node: node 'nowhere' is not declared"))).to.equal(true);
    expect(problems.some((l) => l.startsWith('brokers[0].config.no.such.key:'))).to.equal(true);
    expect(problems.some((l) => l.startsWith('brokers[1].id: duplicate broker id 1'))).to.equal(true);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.contain('cannot read the topology file');
    expect(notJson.code).to.equal(2);
    expect(notJson.stderr).to.contain('not valid JSON');
    expect(wrongNode.code).to.equal(2);
    expect(wrongNode.stderr).to.match(/nodes\[0\]\.kind: --node starts a tcp node/);
    expect(fs.existsSync(base)).to.equal(false);
  });

  it("--release-version and --feature: a new cluster's feature levels over the topology's, checked with it (exit 2 and nothing written when refused)", async () => {
    const topology = {
      clusterId: 'cli-features',
      logLevel: 'warn',
      nodes: [{ id: 'main', kind: 'inproc' }],
      controller: { node: 'main', metadataDir: 'data/controller', features: { 'group.version': 0 } },
      brokers: [{ id: 1, node: 'main', logDir: 'data/broker-1', config: { 'offsets.topic.num.partitions': 1 } }],
      listeners: [{ node: 'main', host: '127.0.0.1', port: 0 }],
    };
    const file = write('features.json', topology);
    const base = path.join(dir, 'run');
    const [old, dependency, twice] = await Promise.all([
      runCli(['start', file, '--base-dir', base, '--release-version', '3.9'], { inProcess: true }),
      runCli(['start', file, '--base-dir', base, '--feature', 'metadata.version=22'], { inProcess: true }),
      runCli(['start', file, '--base-dir', base, '--feature', 'share.version=0', '--feature', 'share.version=1'], { inProcess: true }),
    ]);
    expect(old.code).to.equal(2);
    expect(old.stderr.split('\n').slice(0, 2)).to.deep.equal([
      `samsa start: ${file} with --release-version 3.9 cannot be started; nothing was started or written:`,
      '  controller.releaseVersion: metadata.version 3.9-IV0 (21) from release 3.9 is not one samsa implements: 4.0-IV0 (22) to 4.1-IV1 (27)',
    ]);
    expect(dependency.code).to.equal(2);
    expect(dependency.stderr).to.contain("controller.features.metadata.version: eligible.leader.replicas.version 1 (samsa's default) needs metadata.version 4.0-IV1 (23) or later; metadata.version is 4.0-IV0 (22)");
    expect(twice.code).to.equal(2);
    expect(twice.stderr).to.contain('Feature share.version was specified more than once.');
    expect(fs.existsSync(base)).to.equal(false);

    const server = startCli(['start', file, '--base-dir', base, '--release-version', '4.0-IV3', '--feature', 'transaction.version=0'], { timeoutMs: 40_000 });
    try {
      await checkFor(() => server.stdout().includes('Ctrl-C stops it'), 30_000, 20);
      const out = server.stdout();
      expect(out).to.contain('  feature levels if the cluster is new: release 4.0-IV3, group.version=0, transaction.version=0 (a cluster that has levels keeps its own: samsa features describe)');
      const address = /  samsa clients connect to: (127\.0\.0\.1:\d+)/.exec(out)![1]!;
      const described = await runCli(['features', 'describe', '--bootstrap-server', address]);
      expect(described.code, described.stderr).to.equal(0);
      const finalized = Object.fromEntries([...described.stdout.matchAll(/^Feature: (\S+)\t.*\tFinalizedVersionLevel: (\S+)\t/gm)].map((m) => [m[1]!, m[2]!]));
      // the release's levels (4.0-IV3: metadata.version 25, kraft.version 1, group.version 1, transaction.version 2), then the topology's and the flags'
      expect(finalized).to.deep.equal({ 'eligible.leader.replicas.version': '0', 'group.version': '0', 'kraft.version': '1', 'metadata.version': '4.0-IV3', 'share.version': '0', 'transaction.version': '0' });
    } finally {
      server.child.kill('SIGINT');
    }
    const r = await server.result;
    expect(r.code, r.stderr).to.equal(0);
  });

  it('starts a topology, prints commands that work as printed, and stops with exit 0 on SIGINT', async () => {
    const file = write('topology.json', {
      clusterId: 'cli-start',
      logLevel: 'warn',
      nodes: [
        { id: 'main', kind: 'inproc' },
        { id: 'b1', kind: 'inproc' },
        { id: 'b2', kind: 'inproc' },
      ],
      controller: { node: 'main', metadataDir: 'data/controller' },
      brokers: [
        { id: 1, node: 'b1', logDir: 'data/broker-1', kafka: { host: '127.0.0.1', port: 0 }, config: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 2 } },
        { id: 2, node: 'b2', logDir: 'data/broker-2', config: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 2 } },
      ],
      listeners: [{ node: 'main', host: '127.0.0.1', port: 0 }],
      topics: [{ name: 'greetings', partitions: 2, replicationFactor: 2 }],
    });
    const base = path.join(dir, 'run');
    const server = startCli(['start', file, '--base-dir', base], { timeoutMs: 40_000 });
    try {
      await checkFor(() => server.stdout().includes('Ctrl-C stops it'), 30_000, 20);
      const out = server.stdout();
      expect(out).to.match(/^samsa cluster 'cli-start' is running \(started in \d+ ms\)$/m);
      expect(out).to.contain('2 brokers: 1 on b1, 2 on b2; controller on main');
      // a process of its own: V8's heap grows for the brokers' buffers (runtime/heap-growth.ts)
      expect(out).to.contain('V8 heap growing percent: 300 (runtime.heapGrowingPercent)');
      // and no allocation site tenured for good by one unlucky collection (runtime/pretenuring.ts)
      expect(out).to.contain('V8 allocation-site pretenuring: off (runtime.allocationSitePretenuring)');
      // which checksum the brokers verify batches with
      expect(out).to.match(/^  CRC-32C: (hardware|@node-rs\/crc32|JavaScript tables)/m);
      const address = /  samsa clients connect to: (127\.0\.0\.1:\d+)/.exec(out)![1]!;
      const kafka = /Kafka clients \(KafkaJS, kcat, Java\) connect to: (127\.0\.0\.1:\d+)$/m.exec(out)![1]!;
      expect(out).to.contain(`kcat -b ${kafka} -L`);
      const lines = out.split('\n');
      const produce = lines.find((l) => l.includes('npx samsa produce'))!;
      const consume = lines.find((l) => l.includes('npx samsa consume'))!;
      const describe = lines.find((l) => l.includes('npx samsa topics'))!;
      for (const l of [produce, consume, describe]) {
        expect(l).to.contain(`--bootstrap-server ${address}`);
        expect(l).to.contain('--topic greetings');
      }
      expect(fs.existsSync(path.join(base, 'data', 'broker-1'))).to.equal(true);

      const produced = await runCli(argsOf(produce), { stdin: 'k1:hello\nk2:world\n' });
      expect(produced.code, produced.stderr).to.equal(0);
      const consumed = await runCli(argsOf(consume));
      expect(consumed.code, consumed.stderr).to.equal(0);
      expect(consumed.stdout.split('\n').filter(Boolean).sort()).to.deep.equal(['k1\thello', 'k2\tworld']);
      const described = await runCli(argsOf(describe));
      expect(described.code, described.stderr).to.equal(0);
      expect(described.stdout).to.match(/^Topic: greetings\t.*PartitionCount: 2\tReplicationFactor: 2/);
    } finally {
      server.child.kill('SIGINT');
    }
    const r = await server.result;
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.contain('controlled shutdown');
    expect(r.stderr).to.contain('samsa start: stopped');
  });
});
