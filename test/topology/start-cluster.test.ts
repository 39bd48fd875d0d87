/**
 * startCluster end to end: the all-in-process topology (as a test suite would embed it), the
 * embedded default with worker-thread brokers and a TCP client, and a restart that finds every
 * topic, record and committed offset from before.
 */
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { KafkaCaller } from '../helpers/raw-kafka.js';
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SamsaClient } from '../../src/client/samsa.js';
import { V8_DEFAULT_HEAP_GROWING, heapGrowingPercent, setHeapGrowingPercent } from '../../src/runtime/heap-growth.js';
import { V8_DEFAULT_ALLOCATION_SITE_PRETENURING, allocationSitePretenuring, setAllocationSitePretenuring } from '../../src/runtime/pretenuring.js';
import { exampleTopology, loadTopology, startCluster } from '../../src/topology/start-cluster.js';
import type { TopologyConfig } from '../../src/topology/config.js';
import { checkFor } from '../helpers/check-for.js';

function quiet(t: TopologyConfig): TopologyConfig {
  return { ...t, logLevel: 'silent' };
}

describe('topology/startCluster', function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-start-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts and stops the all-in-process topology quickly (what a test suite embeds)', async () => {
    const t = quiet(loadTopology(exampleTopology('in-process.json')));
    const t0 = performance.now();
    const h = await startCluster(t, { baseDir: dir });
    const started = performance.now() - t0;
    const t1 = performance.now();
    await h.stop();
    const stopped = performance.now() - t1;
    // recorded for the README; the bound here only guards against a regression to seconds
    expect(started + stopped).to.be.below(5_000);
  });

  it('sets V8\'s heap growing factor when the topology says so, and leaves it alone otherwise', async () => {
    const t = quiet(loadTopology(exampleTopology('in-process.json')));
    try {
      const h = await startCluster({ ...t, runtime: { heapGrowingPercent: 250 } }, { baseDir: dir });
      await h.stop();
      expect(heapGrowingPercent()).to.equal(250);
      setHeapGrowingPercent(V8_DEFAULT_HEAP_GROWING);
      const again = await startCluster(t, { baseDir: path.join(dir, 'again') });
      await again.stop();
      expect(heapGrowingPercent()).to.equal(V8_DEFAULT_HEAP_GROWING);
    } finally {
      setHeapGrowingPercent(V8_DEFAULT_HEAP_GROWING);
    }
  });

  it("turns V8's allocation-site pretenuring off when the topology says so, and leaves it alone otherwise", async () => {
    const t = quiet(loadTopology(exampleTopology('in-process.json')));
    try {
      const h = await startCluster({ ...t, runtime: { allocationSitePretenuring: false } }, { baseDir: path.join(dir, 'pretenuring') });
      await h.stop();
      expect(allocationSitePretenuring()).to.equal(false);
      setAllocationSitePretenuring(V8_DEFAULT_ALLOCATION_SITE_PRETENURING);
      const again = await startCluster(t, { baseDir: path.join(dir, 'pretenuring-again') });
      await again.stop();
      expect(allocationSitePretenuring()).to.equal(V8_DEFAULT_ALLOCATION_SITE_PRETENURING);
    } finally {
      setAllocationSitePretenuring(V8_DEFAULT_ALLOCATION_SITE_PRETENURING);
    }
  });

  it("gives every node's named loggers the topology's levels from its start; a broker's can change while it runs", async () => {
    const t: TopologyConfig = {
      clusterId: 'loggers',
      logLevel: 'silent',
      // levels that write nothing in a quiet cluster (this test's lines would be noise)
      loggers: { 'samsa.partition-replica': 'error', 'samsa.controller': 'FATAL', 'my-app.jobs': 'WARN' },
      nodes: [{ id: 'main', kind: 'inproc' }, { id: 'b2', kind: 'worker' }],
      controller: { node: 'main', metadataDir: 'meta' },
      brokers: [
        { id: 1, node: 'main', logDir: 'b1' },
        { id: 2, node: 'b2', logDir: 'b2' },
      ],
    };
    const h = await startCluster(t, { baseDir: dir });
    try {
      const admin = h.samsa().admin();
      await admin.connect();
      try {
        const levels = async (b: number) => Object.fromEntries((await admin.describeBrokerLoggers(b)).map((l) => [l.name, l.level]));
        await checkFor(async () => (await admin.describeCluster()).brokers.length === 2, 10_000, 20);
        for (const b of [1, 2]) {
          // named in the topology, so there before anything logs through them (as in a log4j config)
          expect(await levels(b), `broker ${b}`).to.deep.include({ root: 'OFF', 'samsa.partition-replica': 'ERROR', 'samsa.controller': 'FATAL', 'my-app': 'OFF', 'my-app.jobs': 'WARN', 'samsa.broker': 'OFF' });
        }
        await admin.alterBrokerLoggers({ broker: 2, set: { 'my-app': 'error' }, delete: ['samsa.partition-replica'] });
        expect(await levels(2)).to.deep.include({ 'my-app': 'ERROR', 'my-app.jobs': 'WARN', 'samsa.partition-replica': 'OFF' });
        expect(await levels(1)).to.deep.include({ 'my-app': 'OFF', 'samsa.partition-replica': 'ERROR' });
        await admin.alterBrokerLoggers({ broker: 1, set: { root: 'INFO' }, validateOnly: true });
        expect((await levels(1)).root).to.equal('OFF');
        const refused = async (p: Promise<unknown>) => p.then(() => null, (e: Error & { errorName?: string }) => [e.errorName, e.message]);
        expect(await refused(admin.alterBrokerLoggers({ broker: 1, set: { 'samsa.nothing': 'INFO' } }))).to.deep.equal(['INVALID_CONFIG', 'INVALID_CONFIG: Logger samsa.nothing does not exist on broker 1']);
        expect(await refused(admin.describeBrokerLoggers(-1))).to.deep.equal(['INVALID_REQUEST', 'INVALID_REQUEST: broker must be a broker id']);
        expect(await refused(admin.describeBrokerLoggers(9))).to.deep.equal(['BROKER_NOT_AVAILABLE', 'BROKER_NOT_AVAILABLE: broker 9 is not registered in the cluster']);
      } finally {
        await admin.disconnect();
      }
    } finally {
      await h.stop();
    }
  });

  it('starts a broker with several log dirs (logDirs, relative to the base dir), spreading the topic over them', async () => {
    const t: TopologyConfig = {
      clusterId: 'jbod',
      logLevel: 'silent',
      nodes: [{ id: 'main', kind: 'inproc' }],
      controller: { node: 'main', metadataDir: 'meta' },
      brokers: [{ id: 1, node: 'main', logDirs: ['disk-a/samsa', 'disk-b/samsa'], config: { 'group.initial.rebalance.delay.ms': 0 } }],
      topics: [{ name: 'spread', partitions: 4, replicationFactor: 1 }],
    };
    const h = await startCluster(t, { baseDir: dir });
    try {
      const admin = h.samsa().admin();
      await admin.connect();
      try {
        const [b] = await checkFor(async () => {
          const r = await admin.describeLogDirs({ topics: [{ topic: 'spread' }] });
          return r[0]!.logDirs.reduce((n, d) => n + d.partitions.length, 0) === 4 ? r : null;
        }, 10_000, 20);
        expect(b!.logDirs.map((d) => d.logDir)).to.deep.equal([path.join(dir, 'disk-a/samsa'), path.join(dir, 'disk-b/samsa')]);
        expect(b!.logDirs.map((d) => d.partitions.length)).to.deep.equal([2, 2]);
      } finally {
        await admin.disconnect();
      }
    } finally {
      await h.stop();
    }
    for (const d of ['disk-a/samsa', 'disk-b/samsa']) expect(fs.readdirSync(path.join(dir, d)).filter((n) => n.startsWith('spread-')), d).to.have.length(2);
  });

  it("starts a new cluster at the topology's feature levels (controller.releaseVersion, controller.features); a restart keeps the levels it has", async () => {
    const base = quiet(loadTopology(exampleTopology('in-process.json')));
    const at = (controller: Partial<TopologyConfig['controller']>): TopologyConfig => ({ ...base, controller: { ...base.controller, ...controller } });
    const levels = async (h: Awaited<ReturnType<typeof startCluster>>) => {
      const admin = h.samsa().admin();
      await admin.connect();
      try {
        const f = await admin.describeFeatures();
        return Object.fromEntries(Object.entries(f.finalizedFeatures).map(([name, r]) => [name, r.maxVersionLevel]));
      } finally {
        await admin.disconnect();
      }
    };
    let h = await startCluster(at({ releaseVersion: '4.0-IV2', features: { 'transaction.version': 0 } }), { baseDir: dir });
    expect(await levels(h)).to.deep.equal({ 'metadata.version': 24, 'kraft.version': 1, 'group.version': 1 });
    await h.stop();
    // the levels are the cluster's now: another release in the topology changes nothing
    h = await startCluster(at({ releaseVersion: '4.1-IV1' }), { baseDir: dir });
    expect(await levels(h)).to.deep.equal({ 'metadata.version': 24, 'kraft.version': 1, 'group.version': 1 });
    await h.stop();
  });

  it('restarts with every topic, record and committed offset from before', async () => {
    const t = quiet(loadTopology(exampleTopology('in-process.json')));
    let h = await startCluster(t, { baseDir: dir });
    let samsa = h.samsa();
    const producer = samsa.producer({ acks: 'all' });
    await producer.connect();
    await producer.send({ topic: 'events', messages: Array.from({ length: 9 }, (_, i) => ({ value: `e${i}`, partition: i % 3 })) });
    await producer.disconnect();
    const first = samsa.consumer({ groupId: 'durable', 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100, 'enable.auto.commit': false });
    await first.connect();
    await first.subscribe({ topic: 'events', fromBeginning: true });
    const seen: string[] = [];
    await first.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => seen.length === 9, 20_000, 20);
    await first.commitOffsets([0, 1, 2].map((partition) => ({ topic: 'events', partition, offset: 2 })));
    await first.disconnect();
    await h.stop({ controlled: true });

    h = await startCluster(t, { baseDir: dir });
    samsa = h.samsa();
    const admin = samsa.admin();
    await admin.connect();
    expect(await admin.listTopics()).to.include('events');
    expect((await admin.fetchOffsets({ groupId: 'durable', topics: ['events'] }))[0]!.partitions.map((p) => p.offset)).to.deep.equal([2, 2, 2]);
    await admin.disconnect();
    const second = samsa.consumer({ groupId: 'durable', 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 });
    await second.connect();
    await second.subscribe({ topic: 'events' });
    const rest: string[] = [];
    await second.run({ eachMessage: ({ message }) => void rest.push(String(message.value)) });
    await checkFor(() => rest.length === 3, 20_000, 20);
    expect(rest.sort()).to.deep.equal(['e6', 'e7', 'e8']);
    await second.disconnect();
    // nothing is read after this stop: no need to move leaderships and flush first
    await h.stop();
  });

  it('runs the embedded default: worker-thread brokers, a TCP listener for clients, Kafka listeners; 1 KiB records cross TCP intact', async () => {
    const t = quiet(loadTopology(exampleTopology('embedded.json')));
    expect(t.brokers.map((b) => b.kafka?.port)).to.deep.equal([9092, 9093, 9094]);
    t.listeners = [{ node: 'main', host: '127.0.0.1', port: 0 }];
    for (const b of t.brokers) b.kafka = { host: '127.0.0.1', port: 0 };
    const h = await startCluster(t, { baseDir: dir });
    try {
      // each worker-thread broker serves the Kafka protocol on its own port
      const kafka = await h.kafkaBrokers();
      expect(kafka).to.have.length(3);
      for (const endpoint of kafka) {
        const k = await KafkaCaller.connect(endpoint);
        const md = await checkFor(async () => {
          const r = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'events' }], allowAutoTopicCreation: false });
          return r.topics[0].errorCode === 0 ? r : null;
        }, 20_000, 20);
        k.end();
        expect(md.brokers.map((b: { host: string; port: number }) => `${b.host}:${b.port}`).sort()).to.deep.equal([...kafka].sort());
        expect(md.topics[0].partitions).to.have.length(6);
      }
      const [addr] = h.addresses();
      const client = await SamsaClient.connect({ brokers: [addr!], clientId: 'tcp-test' });
      const producer = client.producer({ acks: 'all' });
      await producer.connect();
      const res = await producer.send({ topic: 'events', messages: [{ key: 'k1', value: 'over tcp' }] });
      expect(res[0]!.errorCode).to.equal(0);
      const consumer = client.consumer({ groupId: 'tcp-group', 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 });
      await consumer.connect();
      await consumer.subscribe({ topic: 'events', fromBeginning: true });
      const got: { key: string; value: string }[] = [];
      await consumer.run({ eachMessage: ({ message }) => void got.push({ key: String(message.key), value: String(message.value) }) });
      await checkFor(() => got.length === 1, 20_000, 20);
      expect(got).to.deep.equal([{ key: 'k1', value: 'over tcp' }]);
      // batches of 1 KiB records, several to a partition's entry: above the TCP connection's
      // 4 KiB threshold they travel attached after the envelope body, to the brokers and back
      const big = Array.from({ length: 600 }, (_, i) => ({ key: `key-${i % 6}`, value: `${i}:`.padEnd(1024, String.fromCharCode(97 + (i % 26))) }));
      for (let i = 0; i < big.length; i += 100) {
        const sent = await producer.send({ topic: 'events', messages: big.slice(i, i + 100) });
        expect(sent.every((r) => r.errorCode === 0)).to.equal(true);
      }
      await checkFor(() => got.length === 1 + big.length, 20_000, 20);
      for (let k = 0; k < 6; k++) {
        const key = `key-${k}`;
        expect(got.filter((m) => m.key === key).map((m) => m.value)).to.deep.equal(big.filter((m) => m.key === key).map((m) => m.value));
      }
      await consumer.disconnect();
      await producer.disconnect();
      await client.close();
    } finally {
      await h.stop();
    }
  });
});
