/**
 * A throw-away cluster for the perf tools: N brokers (worker threads by default), one topic,
 * data under os.tmpdir() (removed on close), and a client reaching it over the chosen transport:
 *
 *  - inproc: every broker is an inproc node on the main thread (no thread boundary at all);
 *  - worker: brokers in worker threads, the client on the main thread's node (MessagePort);
 *  - tcp:    brokers in worker threads, the client on a node of its own that connects to the
 *            cluster's TCP listener on 127.0.0.1 (loopback; the relay is the main thread's node).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SamsaClient } from '../../src/client/samsa.js';
import { replicaPath, type BrokerInfo, type TopicMetadata } from '../../src/protocol/cluster.js';
import { isFailure } from '../../src/runtime/types.js';
import { DELETE_DIR_SUFFIX } from '../../src/storage/partition-log.js';
import type { TopologyConfig } from '../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import { setLogLevel, type LogLevel } from '../../src/runtime/logger.js';
import { SAMSA_ALLOCATION_SITE_PRETENURING } from '../../src/runtime/pretenuring.js';
import { BROKER_HEAP_GROWING_PERCENT, V8_DEFAULT_HEAP_GROWING } from '../../src/runtime/heap-growth.js';

export type Transport = 'inproc' | 'worker' | 'tcp';

export interface PerfClusterOptions {
  brokers?: number;
  transport?: Transport;
  /** Topics to create with the cluster. */
  topics?: { name: string; partitions: number; replicationFactor: number; config?: Record<string, string | number> }[];
  /** Extra broker config (Kafka names). */
  brokerConfig?: Record<string, string | number | boolean>;
  /** V8's heap growing percent for the process (runtime.heapGrowingPercent; default: benchHeapGrowingPercent()). */
  heapGrowingPercent?: number;
  /** V8's allocation-site pretenuring (runtime.allocationSitePretenuring; default: benchPretenuring()). */
  allocationSitePretenuring?: boolean;
}

/**
 * Allocation-site pretenuring for a perf run: off, as `samsa start` runs (src/runtime/pretenuring.ts),
 * unless SAMSA_PRETENURING=on asks for V8's default (to measure the difference).
 */
export function benchPretenuring(): boolean {
  const v = process.env.SAMSA_PRETENURING;
  if (v === undefined || v === '') return SAMSA_ALLOCATION_SITE_PRETENURING;
  if (v === 'on' || v === 'off') return v === 'on';
  throw new Error(`SAMSA_PRETENURING must be on or off, got '${v}'`);
}

/**
 * V8's heap growing percent for a perf run: `samsa start`'s broker setting (300, heap-growth.ts)
 * unless SAMSA_HEAP_GROWING_PERCENT names another (an integer; `v8` or 0 for V8's own). Five
 * alternating pairs of suite runs, 300 against V8's own: RF 3 1.47-2.09 vs 1.24-1.57 M records/s,
 * consume 2.51-3.09 vs 1.96-2.46 M, a group of 3 3.78-4.10 vs 2.03-3.15 M, 1 KiB 616-811 vs
 * 395-731 MiB/s, RF 1 2.68-2.83 vs 1.79-2.88 M, the e2e p99 2.60-3.67 vs 2.41-4.20 ms, the
 * partition scaling loss 19-34% vs 34-41%. The client shares the process with the brokers here,
 * so it runs with the brokers' setting too.
 */
export function benchHeapGrowingPercent(): number {
  const v = process.env.SAMSA_HEAP_GROWING_PERCENT;
  if (v === undefined || v === '') return BROKER_HEAP_GROWING_PERCENT;
  if (v === 'v8') return V8_DEFAULT_HEAP_GROWING;
  if (!/^\d+$/.test(v)) throw new Error(`SAMSA_HEAP_GROWING_PERCENT must be an integer percent or v8, got '${v}'`);
  return Number(v);
}

/** What a perf run needs of a cluster: clients that reach it. */
export interface PerfClients {
  /** A new client (closed with the cluster or target). */
  client(clientId: string): Promise<SamsaClient>;
}

/** Clients, and the topics a run made dropped again. */
export interface PerfTopics extends PerfClients {
  /** Deletes a topic and waits until it is gone. */
  dropTopic(topic: string): Promise<void>;
}

export interface PerfCluster extends PerfTopics {
  handle: ClusterHandle;
  transport: Transport;
  dir: string;
  close(): Promise<void>;
}

/** Makes benchmark processes (and the worker nodes they start) quiet unless told otherwise. */
export function quietLogs(): void {
  process.env.SAMSA_LOG_LEVEL ??= 'error';
  setLogLevel(process.env.SAMSA_LOG_LEVEL as LogLevel);
}

export function perfTopology(opts: PerfClusterOptions, dataDir: string): TopologyConfig {
  const n = opts.brokers ?? 3;
  const transport = opts.transport ?? 'worker';
  const kind = transport === 'inproc' ? 'inproc' : 'worker';
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  const level = (process.env.SAMSA_LOG_LEVEL ?? 'error') as TopologyConfig['logLevel'];
  const t: TopologyConfig = {
    clusterId: 'samsa-perf',
    logLevel: level,
    runtime: {
      // the brokers' heap growth, as `samsa start` runs them (benchHeapGrowingPercent)
      heapGrowingPercent: opts.heapGrowingPercent ?? benchHeapGrowingPercent(),
      // set before any client or broker runs: it counts for allocation sites not yet decided
      allocationSitePretenuring: opts.allocationSitePretenuring ?? benchPretenuring(),
    },
    nodes: [{ id: 'main', kind: 'inproc' }, ...ids.map((i) => ({ id: `b${i}`, kind }))],
    controller: { node: 'main', metadataDir: path.join(dataDir, 'controller') },
    // a group's first rebalance waits 500 ms for more members (Kafka's InitialDelayedJoin, 3 s by
    // default), so consumers started together form one generation instead of rebalancing once
    // per member while the consumer benchmark is reading
    brokers: ids.map((i) => ({ id: i, node: `b${i}`, logDir: path.join(dataDir, `broker-${i}`), config: { 'group.initial.rebalance.delay.ms': 500, ...(opts.brokerConfig ?? {}) } })),
    topics: (opts.topics ?? []).map((x) => ({ name: x.name, partitions: x.partitions, replicationFactor: x.replicationFactor, config: x.config ?? {} })),
  } as TopologyConfig;
  if (transport === 'tcp') t.listeners = [{ node: 'main', host: '127.0.0.1', port: 0 }];
  return t;
}

export async function startPerfCluster(opts: PerfClusterOptions = {}): Promise<PerfCluster> {
  quietLogs();
  const transport = opts.transport ?? 'worker';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-perf-'));
  let handle: ClusterHandle;
  try {
    handle = await startCluster(perfTopology(opts, dir), { baseDir: dir, readyTimeoutMs: 60_000 });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  try {
    // every broker must have registered before a benchmark creates its topics: the controller
    // places replicas on the brokers it knows, and a topic created while one broker was still
    // starting would leave that broker idle for the whole run
    await waitForBrokers(handle.samsa('perf-wait'), opts.brokers ?? 3, 60_000);
  } catch (err) {
    await handle.stop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const clients: SamsaClient[] = [];
  let closed = false;
  let dropper: SamsaClient | null = null;
  const cluster: PerfCluster = {
    handle,
    transport,
    dir,
    async client(clientId: string): Promise<SamsaClient> {
      if (transport !== 'tcp') return handle.samsa(clientId);
      const c = await SamsaClient.connect({ brokers: handle.addresses(), clientId });
      clients.push(c);
      return c;
    },
    async dropTopic(topic: string): Promise<void> {
      dropper ??= await cluster.client('perf-drop');
      await deleteTopic(cluster, dropper, topic);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const c of clients) await c.close().catch(() => undefined);
      await handle.stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** Waits until the leader replica of each partition (`leaders[partition]`) answers DescribeReplica. */
async function waitForReplicas(client: SamsaClient, topic: string, leaders: number[], brokers: BrokerInfo[], deadline: number): Promise<void> {
  const nodeOf = new Map(brokers.map((b) => [b.brokerId, b.node]));
  let waiting = leaders.map((leader, partition) => ({ leader, partition }));
  while (waiting.length > 0) {
    const answers = await Promise.all(
      waiting.map(async (w) => {
        const node = nodeOf.get(w.leader);
        if (node === undefined) return false;
        const r = await client.system.ask({ node, path: replicaPath(w.leader, topic, w.partition) }, { type: 'DescribeReplica' }, { timeoutMs: 30_000 });
        return !isFailure(r);
      }),
    );
    waiting = waiting.filter((_, i) => !answers[i]);
    if (waiting.length === 0) return;
    if (Date.now() > deadline) throw new Error(`topic ${topic}: ${waiting.length} leader replicas not serving yet`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until `count` brokers are registered and unfenced. */
export async function waitForBrokers(client: SamsaClient, count: number, timeoutMs: number): Promise<void> {
  const admin = client.admin();
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while ((await admin.describeCluster().catch(() => ({ brokers: [] as { fenced: boolean }[] }))).brokers.filter((b) => !b.fenced).length < count) {
      if (Date.now() > deadline) throw new Error(`fewer than ${count} brokers registered after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * Creates a topic through the admin API and waits until every partition has a leader (longer
 * than the admin's own wait: 1,000 partitions take a while on 2 cores).
 */
export async function createTopic(client: SamsaClient, topic: string, partitions: number, replicationFactor: number, config: Record<string, string> = {}, timeoutMs = 120_000): Promise<void> {
  const admin = client.admin();
  await admin.connect();
  try {
    // a cluster from startPerfCluster has every broker already; another needs at least RF of them
    await waitForBrokers(client, replicationFactor, timeoutMs);
    await admin.createTopics({
      topics: [{ topic, numPartitions: partitions, replicationFactor, configEntries: Object.entries(config).map(([name, value]) => ({ name, value })) }],
      waitForLeaders: false,
    });
    const deadline = Date.now() + timeoutMs;
    let t: TopicMetadata | undefined;
    for (;;) {
      const md = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => ({ topics: [] as TopicMetadata[] }));
      t = md.topics.find((x) => x.name === topic);
      if (t && t.partitions.length >= partitions && t.partitions.every((p) => p.leader >= 0)) break;
      if (Date.now() > deadline) throw new Error(`topic ${topic}: partitions without a leader after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const brokers = (await admin.describeCluster()).brokers;
    // a leader in the metadata is the controller's decision; the brokers still create and open
    // the logs: wait until every leader replica answers, so that work is not measured
    await waitForReplicas(client, topic, t.partitions.map((p) => p.leader), brokers, deadline);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Deletes a topic and waits until no broker under `cluster.dir` holds a log of it any more.
 * The suite drops each step's topic when the step is done so every step starts from the same
 * machine state as the raw limits (measured against fresh files): a cluster that keeps every
 * step's data grows the page cache step after step, and on some machines (VMs whose guest
 * memory is backed lazily) each new page-cache page costs several times more once ~1 GB is held.
 */
export async function deleteTopic(cluster: PerfCluster, client: SamsaClient, topic: string, timeoutMs = 60_000): Promise<void> {
  const admin = client.admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [topic] });
  } finally {
    await admin.disconnect();
  }
  const deadline = Date.now() + timeoutMs;
  // a deleted log is renamed aside (<dir>.<random>-delete) and then removed in the background:
  // wait for that too, or the next step shares the cores with the kernel freeing its pages
  const isLogOf = (name: string) => {
    if (!name.startsWith(`${topic}-`)) return false;
    const rest = name.slice(topic.length + 1);
    return /^\d+$/.test(rest) || (rest.endsWith(DELETE_DIR_SUFFIX) && /^\d+\.[0-9a-f]+$/.test(rest.slice(0, -DELETE_DIR_SUFFIX.length)));
  };
  for (;;) {
    const left = fs
      .readdirSync(cluster.dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name.startsWith('broker-'))
      .some((d) => fs.readdirSync(path.join(cluster.dir, d.name)).some(isLogOf));
    if (!left) return;
    if (Date.now() > deadline) throw new Error(`topic ${topic}: logs still on disk ${timeoutMs} ms after deletion`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
