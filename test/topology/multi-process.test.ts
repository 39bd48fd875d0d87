/**
 * Three broker processes on 127.0.0.1 from one topology file: produce with acks=all, SIGKILL one
 * process mid-stream, keep producing and consuming, restart it; every acknowledged record is
 * consumed exactly as produced and the restarted broker rejoins the ISR. With a quorum of three
 * controllers, one per process: SIGKILL the active controller's process; another takes over, serves,
 * and the restarted process catches up with the metadata log.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SamsaClient } from '../../src/client/samsa.js';
import type { TopologyConfig } from '../../src/topology/config.js';
import { checkFor } from '../helpers/check-for.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE_SCRIPT = path.join(ROOT, 'test/fixtures/topology-node.ts');

async function freePort(): Promise<number> {
  const srv = net.createServer();
  const port = await new Promise<number>((r) => srv.listen(0, '127.0.0.1', () => r((srv.address() as net.AddressInfo).port)));
  await new Promise((r) => srv.close(r));
  return port;
}

function startNode(topo: string, node: string, baseDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_SCRIPT, topo, node, baseDir], {
    cwd: ROOT,
    env: { ...process.env, SAMSA_LOG_LEVEL: process.env.SAMSA_MP_LOG ?? 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`node ${node} exited with ${code} before it was ready`)));
  });
}

const BROKER_CONFIG = { 'broker.heartbeat.interval.ms': 300, 'replica.lag.time.max.ms': 2_000, 'replica.fetch.wait.max.ms': 100, 'replica.fetch.backoff.ms': 200, 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 3 };

/**
 * Three node processes n1-n3 on free ports, a broker on each (quick to notice a dead one), from
 * one topology file in a fresh dir; `stream` has `partitions` partitions, RF 3.
 */
async function startThreeProcesses(clusterId: string, controller: TopologyConfig['controller'], partitions: number, children: Map<string, ChildProcess>): Promise<{ dir: string; topo: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `samsa-${clusterId}-`));
  const ports = [await freePort(), await freePort(), await freePort()];
  const t: TopologyConfig = {
    clusterId,
    nodes: ports.map((port, i) => ({ id: `n${i + 1}`, kind: 'tcp' as const, host: '127.0.0.1', port })),
    controller,
    brokers: [1, 2, 3].map((id) => ({ id, node: `n${id}`, logDir: `broker-${id}`, config: BROKER_CONFIG })),
    topics: [{ name: 'stream', partitions, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
  };
  const topo = path.join(dir, 'topology.json');
  fs.writeFileSync(topo, JSON.stringify(t, null, 2));
  await Promise.all(['n1', 'n2', 'n3'].map(async (n) => children.set(n, await startNode(topo, n, dir))));
  return { dir, topo };
}

function stopProcesses(children: Map<string, ChildProcess>, dir: string): void {
  for (const c of children.values()) if (c.exitCode === null) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
}

describe('topology: three processes over TCP', function () {
  this.timeout(120_000);
  let dir: string;
  let topo: string;
  const children = new Map<string, ChildProcess>();

  before(async () => {
    ({ dir, topo } = await startThreeProcesses('three', { node: 'n1', metadataDir: 'controller', config: { 'broker.session.timeout.ms': 2_000 } }, 1, children));
  });

  after(() => stopProcesses(children, dir));

  it('loses no acknowledged record when a broker process is SIGKILLed mid-stream, and the broker rejoins the ISR', async () => {
    const t = JSON.parse(fs.readFileSync(topo, 'utf8')) as TopologyConfig;
    const addresses = t.nodes.map((n) => `${n.host}:${n.port}`);
    const fullIsr = async (a: ReturnType<SamsaClient['admin']>) => {
      const md = await a.fetchTopicMetadata({ topics: ['stream'] }).catch(() => null);
      return md?.topics[0]?.partitions.every((p) => p.isr.length === 3) ?? false;
    };
    // every broker registered (with its endpoint) and in the ISR before the client below connects:
    // it looks for brokers to dial at once, then only every 3 s
    const probe = await SamsaClient.connect({ brokers: addresses, clientId: 'mp-probe' });
    const probeAdmin = probe.admin();
    await probeAdmin.connect();
    await checkFor(() => fullIsr(probeAdmin), 30_000, 100);
    await probeAdmin.disconnect();
    await probe.close();
    // the client is given n1 and n2 only; it finds n3 through metadata
    const client = await SamsaClient.connect({ brokers: addresses.slice(0, 2), clientId: 'mp' });
    const admin = client.admin();
    await admin.connect();
    await checkFor(() => fullIsr(admin), 30_000, 100);
    // the client learns every broker's endpoint from metadata and dials it: a killed broker's
    // requests fail at once, not at request.timeout.ms
    await checkFor(() => ['n1', 'n2', 'n3'].every((n) => client.system.endpointTo(n)), 10_000, 50);
    const producer = client.producer({ acks: 'all', 'retry.backoff.ms': 100, 'max.in.flight.requests.per.connection': 1 });
    await producer.connect();
    const acked: string[] = [];
    for (let i = 0; i < 100; i++) {
      if (i === 40) children.get('n3')!.kill('SIGKILL');
      const v = `rec-${i}`;
      await producer.send({ topic: 'stream', messages: [{ value: v }] });
      acked.push(v);
    }
    children.set('n3', await startNode(topo, 'n3', dir));
    for (let i = 100; i < 120; i++) {
      const v = `rec-${i}`;
      await producer.send({ topic: 'stream', messages: [{ value: v }] });
      acked.push(v);
    }
    const consumer = client.consumer({ groupId: 'mp-check', 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 200, 'fetch.max.wait.ms': 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'stream', fromBeginning: true });
    const got: string[] = [];
    await consumer.run({ eachMessage: ({ message }) => void got.push(String(message.value)) });
    await checkFor(() => got.length >= acked.length, 30_000, 50);
    expect(got).to.deep.equal(acked);
    await checkFor(async () => (await admin.fetchTopicMetadata({ topics: ['stream'] })).topics[0]!.partitions[0]!.isr.includes(3), 30_000, 100);
    await consumer.disconnect();
    await producer.disconnect();
    await admin.disconnect();
    await client.close();
  });

  it('stops a node process cleanly on SIGTERM (controlled shutdown, exit 0)', async () => {
    const c = children.get('n2')!;
    const exited = new Promise<number | null>((r) => c.once('exit', (code) => r(code)));
    c.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});

describe('topology: three processes over TCP with a controller quorum', function () {
  this.timeout(120_000);
  let dir: string;
  let topo: string;
  const children = new Map<string, ChildProcess>();

  before(async () => {
    // each process hosts a controller of the quorum and a broker (KRaft's combined mode)
    const controller = {
      quorum: [1, 2, 3].map((id) => ({ id, node: `n${id}`, metadataDir: `controller-${id}` })),
      config: { 'broker.session.timeout.ms': 2_000, 'controller.quorum.election.timeout.ms': 500 },
    };
    ({ dir, topo } = await startThreeProcesses('three-quorum', controller, 3, children));
  });

  after(() => stopProcesses(children, dir));

  it('a new controller takes over when the active one\'s process is SIGKILLed; the process rejoins and catches up', async () => {
    const t = JSON.parse(fs.readFileSync(topo, 'utf8')) as TopologyConfig;
    const addresses = t.nodes.map((n) => `${n.host}:${n.port}`);
    const client = await SamsaClient.connect({ brokers: addresses, clientId: 'mp-quorum' });
    const admin = client.admin();
    await admin.connect();
    const q = await checkFor(async () => {
      const d = await admin.describeMetadataQuorum().catch(() => null);
      return d && d.leaderId > 0 && d.voters.every((v) => v.lag === 0) ? d : null;
    }, 30_000, 100);
    await checkFor(async () => {
      const md = await admin.fetchTopicMetadata({ topics: ['stream'] }).catch(() => null);
      return md?.topics[0]?.partitions.every((p) => p.isr.length === 3) ?? false;
    }, 30_000, 100);
    const producer = client.producer({ acks: 'all', 'retry.backoff.ms': 100, retries: 100, 'max.in.flight.requests.per.connection': 1 });
    await producer.connect();
    const acked: string[] = [];
    const send = async (i: number) => {
      const v = `rec-${i}`;
      await producer.send({ topic: 'stream', messages: [{ value: v, partition: i % 3 }] });
      acked.push(v);
    };
    for (let i = 0; i < 30; i++) await send(i);

    const victim = `n${q.leaderId}`;
    children.get(victim)!.kill('SIGKILL');
    // a describe that went to the killed process waits out the client's request timeout before it
    // fails and the next one goes elsewhere: the window is longer than that timeout
    const next = await checkFor(async () => {
      const d = await admin.describeMetadataQuorum().catch(() => null);
      return d && d.leaderId > 0 && d.leaderId !== q.leaderId ? d : null;
    }, 60_000, 100);
    expect(next.leaderEpoch).to.be.greaterThan(q.leaderEpoch);
    // the new controller serves: a topic, and records through the leaders it re-elected
    await checkFor(async () => {
      await admin.createTopics({ topics: [{ topic: 'after', numPartitions: 1, replicationFactor: 2 }] }).catch(() => undefined);
      return (await admin.listTopics().catch(() => [] as string[])).includes('after');
    }, 30_000, 200);
    for (let i = 30; i < 60; i++) await send(i);

    children.set(victim, await startNode(topo, victim, dir));
    await checkFor(async () => {
      const d = await admin.describeMetadataQuorum().catch(() => null);
      return d && d.voters.every((v) => v.lag === 0 && v.logEndOffset === d.highWatermark) ? d : null;
    }, 30_000, 100);
    const consumer = client.consumer({ groupId: 'mp-quorum-check', 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 200, 'fetch.max.wait.ms': 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'stream', fromBeginning: true });
    const got = new Set<string>();
    await consumer.run({ eachMessage: ({ message }) => void got.add(String(message.value)) });
    await checkFor(() => acked.every((v) => got.has(v)), 30_000, 50);
    await consumer.disconnect();
    await producer.disconnect();
    await admin.disconnect();
    await client.close();
  });
});

describe('topology: a node added to a running tcp cluster (nodeSecretFile)', function () {
  this.timeout(120_000);
  let dir: string;
  const children = new Map<string, ChildProcess>();

  after(() => stopProcesses(children, dir));

  it("a broker on a node the running nodes' topology does not declare joins by proving the node secret, takes a partition's replica and serves it", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-grow-'));
    fs.writeFileSync(path.join(dir, 'node-secret'), 'a1b2c3d4e5f60718293a4b5c6d7e8f90\n');
    const ports = [await freePort(), await freePort(), await freePort()];
    const node = (i: number) => ({ id: `n${i + 1}`, kind: 'tcp' as const, host: '127.0.0.1', port: ports[i]! });
    const broker = (id: number) => ({ id, node: `n${id}`, logDir: `broker-${id}`, config: BROKER_CONFIG });
    const before: TopologyConfig = {
      clusterId: 'grow',
      nodeSecretFile: 'node-secret',
      nodes: [node(0), node(1)],
      controller: { node: 'n1', metadataDir: 'controller', config: { 'broker.session.timeout.ms': 2_000 } },
      brokers: [broker(1), broker(2)],
      topics: [{ name: 'grow', partitions: 1, replicationFactor: 2 }],
    };
    const small = path.join(dir, 'topology.json');
    fs.writeFileSync(small, JSON.stringify(before, null, 2));
    await Promise.all(['n1', 'n2'].map(async (n) => children.set(n, await startNode(small, n, dir))));

    const client = await SamsaClient.connect({ brokers: [`127.0.0.1:${ports[0]}`], clientId: 'grow' });
    const admin = client.admin();
    await admin.connect();
    try {
      await checkFor(async () => (await admin.fetchTopicMetadata({ topics: ['grow'] }).catch(() => null))?.topics[0]?.partitions[0]?.isr.length === 2, 30_000, 100);
      const producer = client.producer({ acks: 'all', 'retry.backoff.ms': 100 });
      await producer.connect();
      await producer.send({ topic: 'grow', messages: [{ value: 'before' }] });

      // n3's own topology declares it; n1 and n2 run with the one that does not
      const grown = path.join(dir, 'topology-grown.json');
      fs.writeFileSync(grown, JSON.stringify({ ...before, nodes: [node(0), node(1), node(2)], brokers: [broker(1), broker(2), broker(3)] }, null, 2));
      children.set('n3', await startNode(grown, 'n3', dir));
      await checkFor(async () => (await admin.describeCluster()).brokers.map((b) => b.brokerId).sort().join() === '1,2,3', 30_000, 100);

      const [moved] = await admin.alterPartitionReassignments({ topics: [{ topic: 'grow', partitionAssignment: [{ partition: 0, replicas: [3, 1] }] }] });
      expect(moved!.errorCode).to.equal(0);
      await checkFor(async () => {
        const p = (await admin.fetchTopicMetadata({ topics: ['grow'] }).catch(() => null))?.topics[0]?.partitions[0];
        return p !== undefined && p.replicas.join() === '3,1' && p.isr.includes(3);
      }, 30_000, 100);
      // its preferred replica leads: what is produced now goes to the new node's broker
      await admin.electLeaders({ electionType: 'preferred', partitions: [{ topic: 'grow', partition: 0 }] });
      await checkFor(async () => (await admin.fetchTopicMetadata({ topics: ['grow'] }).catch(() => null))?.topics[0]?.partitions[0]?.leader === 3, 30_000, 100);
      await producer.send({ topic: 'grow', messages: [{ value: 'after' }] });
      await producer.disconnect();
      const consumer = client.consumer({ groupId: 'grow-check', 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 200, 'fetch.max.wait.ms': 100 });
      await consumer.connect();
      await consumer.subscribe({ topic: 'grow', fromBeginning: true });
      const got: string[] = [];
      await consumer.run({ eachMessage: ({ message }) => void got.push(String(message.value)) });
      await checkFor(() => got.length >= 2, 30_000, 50);
      expect(got).to.deep.equal(['before', 'after']);
      await consumer.disconnect();
    } finally {
      await admin.disconnect();
      await client.close();
    }
  });
});
