/**
 * Starting a topology: `loadTopology` reads and validates a topology file; `startCluster`
 * starts this process's part of it (all inproc and worker nodes, or one TCP node with `node`),
 * opens the client listeners, waits for the brokers and creates the declared topics. The handle
 * it returns stops everything, with a controlled shutdown first when asked (each broker's
 * leaderships move to other ISR members before it stops; logs are flushed and closed).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrokerMsg } from '../../actors/broker/messages.js';
import type { ControllerMsg, ControllerReply } from '../../actors/controller/messages.js';
import { SamsaClient } from '../client/samsa.js';
import { controllerChannelRef } from '../../actors/cluster-node/controller-channel.js';
import { brokerPath } from '../protocol/cluster.js';
import { ErrorCode } from '../protocol/errors.js';
import { ActorSystem } from '../runtime/actor-system.js';
import { setHeapGrowingPercent } from '../runtime/heap-growth.js';
import { childLogger, setLogLevel } from '../runtime/logger.js';
import { setAllocationSitePretenuring } from '../runtime/pretenuring.js';
import type { ActorRef } from '../runtime/types.js';
import { isFailure } from '../runtime/types.js';
import { InProcNetwork } from '../transport/inproc.js';
import { TcpTransport } from '../transport/tcp.js';
import { WorkerHub, type WorkerNode } from '../transport/worker.js';
import { TopologyError, controllerVoters, parseTopology, type ControllerVoterEntry, type TopologyConfig } from './config.js';
import { checkTlsFiles, readTransportTls } from './listener-tls.js';
import { setupNode, startController, type NodeSetupArgs } from './node-setup.js';

export { TopologyError, validateTopology, parseTopology } from './config.js';
export type { RuntimeConfig, TopologyConfig, TopologyProblem } from './config.js';

const log = childLogger({ component: 'topology' });

/** Reads a topology file and validates it. Throws TopologyError naming every problem. */
export function loadTopology(file: string): TopologyConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new TopologyError([{ path: file, message: `cannot read the topology file: ${(err as Error).message}` }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new TopologyError([{ path: file, message: `not valid JSON: ${(err as Error).message}` }]);
  }
  return parseTopology(value);
}

export interface StartOptions {
  /** Start only this node (a tcp node, in its own process). Without it: every inproc and worker node. */
  node?: string;
  /** Relative paths in the topology resolve from here (default: the current directory). */
  baseDir?: string;
  /** How long to wait for the brokers before creating topics (default 30 s). */
  readyTimeoutMs?: number;
}

function nodeSetupModule(): URL {
  const ts = import.meta.url.endsWith('.ts');
  return new URL(ts ? './node-setup.ts' : './node-setup.js', import.meta.url);
}

/** Fails with the exact key when a port this process must listen on is taken. */
async function checkPortsFree(ports: { path: string; host: string; port: number }[]): Promise<void> {
  const problems = [];
  for (const p of ports) {
    if (p.port === 0) continue;
    const err = await new Promise<Error | null>((resolve) => {
      const srv = net.createServer();
      srv.once('error', (e) => resolve(e));
      srv.listen(p.port, p.host, () => srv.close(() => resolve(null)));
    });
    if (err) problems.push({ path: p.path, message: `${p.host}:${p.port} cannot be used: ${(err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'port in use' : err.message}` });
  }
  if (problems.length) throw new TopologyError(problems);
}

/** The ids of the topology's nodes: the peers a TCP transport takes as the cluster's, every other one a client. */
function nodeIds(t: TopologyConfig): ReadonlySet<string> {
  return new Set(t.nodes.map((n) => n.id));
}

/** Fails with the exact keys when the TLS files of Kafka listeners (on `node`) are unusable, before touching any data. */
function checkTls(t: TopologyConfig, baseDir: string, node?: string): void {
  const problems = checkTlsFiles(t, baseDir, node);
  if (problems.length) throw new TopologyError(problems);
}

/** Fewest characters a node secret may have. */
const MIN_NODE_SECRET = 16;

/**
 * The cluster's node secret from `file` (relative to `baseDir`), without trailing whitespace: a
 * TopologyError when it cannot be read or is shorter than MIN_NODE_SECRET characters.
 */
export function readNodeSecret(file: string, baseDir: string): Buffer {
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(baseDir, file), 'utf8').replace(/\s+$/, '');
  } catch (err) {
    throw new TopologyError([{ path: 'nodeSecretFile', message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }]);
  }
  if (text.length < MIN_NODE_SECRET) throw new TopologyError([{ path: 'nodeSecretFile', message: `${file} holds ${text.length} characters: a node secret needs at least ${MIN_NODE_SECRET} (e.g. openssl rand -hex 32)` }]);
  return Buffer.from(text, 'utf8');
}

/** The Kafka listener ports of the brokers on `node` (all brokers without it). */
function kafkaPorts(t: TopologyConfig, node?: string): { path: string; host: string; port: number }[] {
  const out = [];
  for (const [i, b] of t.brokers.entries()) {
    if (b.kafka && (node === undefined || b.node === node)) out.push({ path: `brokers[${i}].kafka.port`, host: b.kafka.host, port: b.kafka.port });
  }
  return out;
}

export class ClusterHandle {
  private stopped = false;
  private topology: TopologyConfig;

  constructor(
    config: TopologyConfig,
    /** The node clients in this process use (the main thread's first node, or the tcp node). */
    readonly mainSystem: ActorSystem,
    private readonly systems: ActorSystem[],
    private readonly listenAddresses: string[],
    private readonly localBrokers: { id: number; node: string }[],
    private readonly net: InProcNetwork | null = null,
    private readonly workers: Map<string, WorkerNode> = new Map(),
    /** Starts a node of this process again (what it hosts in `topology`, from its dirs), or null when this process cannot. */
    private readonly startNode: ((nodeId: string, topology: TopologyConfig) => Promise<ActorSystem | WorkerNode>) | null = null,
    /** Relative paths in the topology resolve from here. */
    private readonly baseDir: string = process.cwd(),
  ) {
    this.topology = config;
  }

  /** The topology this process runs: the one started, with the controllers `startController` added. */
  get config(): TopologyConfig {
    return this.topology;
  }

  /**
   * Starts another controller on a node of this running topology (KIP-853): it follows the
   * metadata quorum as an observer until it is added as a voter (`admin.addRaftVoter`,
   * `samsa metadata-quorum add-controller`). The entry joins the topology's
   * `controller.observers`, checked as the topology is (an id, node and metadata dir of its own),
   * so `restartNode` starts it again. An in-process node running here gets it at once; a worker
   * node is restarted with it (what else it hosts restarts as after a crash); a node `killNode`
   * killed is started with it.
   */
  async startController(entry: ControllerVoterEntry): Promise<void> {
    if (this.stopped) throw new Error('the cluster is stopped');
    const c = this.topology.controller;
    const next = parseTopology({ ...this.topology, controller: { ...c, observers: [...(c.observers ?? []), { id: entry.id, node: entry.node, metadataDir: entry.metadataDir }] } });
    const system = this.systems.find((x) => x.nodeId === entry.node);
    if (system) {
      startController(system, next, entry, this.baseDir);
      this.topology = next;
      return;
    }
    if (!this.startNode || !next.nodes.some((n) => n.id === entry.node)) throw new Error(`node '${entry.node}' does not run in this process`);
    this.topology = next;
    const worker = this.workers.get(entry.node);
    if (worker) {
      this.workers.delete(entry.node);
      await worker.kill();
    }
    await this.restartNode(entry.node);
  }

  /**
   * Starts a node that `killNode` killed, as a restarted process would: its controller replays
   * its metadata log and rejoins the quorum, its brokers recover their logs and register again.
   */
  async restartNode(nodeId: string): Promise<void> {
    if (this.stopped) throw new Error('the cluster is stopped');
    if (this.workers.has(nodeId) || this.systems.some((x) => x.nodeId === nodeId)) throw new Error(`node '${nodeId}' is running`);
    if (!this.startNode || !this.config.nodes.some((n) => n.id === nodeId)) throw new Error(`node '${nodeId}' does not run in this process`);
    const started = await this.startNode(nodeId, this.topology);
    if (started instanceof ActorSystem) this.systems.push(started);
    else this.workers.set(nodeId, started);
  }

  /**
   * Kills one node of this process as a crash would: a worker thread is terminated, an
   * in-process node leaves the network and stops, with no controlled shutdown of what it hosts.
   * For failure drills (a broker or a controller of the quorum dying); not the main node, which
   * relays for the others.
   */
  async killNode(nodeId: string): Promise<void> {
    if (nodeId === this.mainSystem.nodeId) throw new Error(`node '${nodeId}' relays for the others: stop the cluster instead`);
    const worker = this.workers.get(nodeId);
    if (worker) {
      this.workers.delete(nodeId);
      await worker.kill();
      return;
    }
    const i = this.systems.findIndex((x) => x.nodeId === nodeId);
    if (i < 0 || !this.net) throw new Error(`node '${nodeId}' does not run in this process`);
    const [system] = this.systems.splice(i, 1);
    this.net.leave(system!);
    await system!.stop();
  }

  /** 'host:port' addresses clients connect to. */
  addresses(): string[] {
    return [...this.listenAddresses];
  }

  /**
   * 'host:port' of every Kafka-protocol listener of this process's brokers (the ports really bound,
   * so port 0 in the topology works), waiting until those brokers have registered. Point KafkaJS,
   * librdkafka or kcat at these.
   */
  async kafkaBrokers(timeoutMs = 30_000): Promise<string[]> {
    const want = this.config.brokers.filter((b) => b.kafka && this.localBrokers.some((l) => l.id === b.id)).map((b) => b.id);
    if (want.length === 0) return [];
    const controller = controllerChannelRef(this.mainSystem.nodeId);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.mainSystem.ask<ControllerReply>(controller, { type: 'Metadata', topics: [] }, { timeoutMs: 5_000 });
      if (!isFailure(r) && r.type === 'MetadataResponse') {
        const found = want.map((id) => r.metadata.brokers.find((b) => b.brokerId === id && !b.fenced)?.kafkaEndpoint);
        if (found.every((e) => e)) return found as string[];
      }
      if (Date.now() >= deadline) throw new Error(`brokers ${want.join(', ')} did not register their Kafka listeners within ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  /** An in-process client on this process's main node. */
  samsa(clientId = 'samsa'): SamsaClient {
    return new SamsaClient({
      clientId,
      system: this.mainSystem,
      brokers: this.config.brokers.map((b) => ({ brokerId: b.id, node: b.node })),
    });
  }

  /**
   * Stops this process's nodes. `controlled`: first each local broker moves its leaderships
   * away (ControlledShutdown) and flushes its logs, one broker after another.
   */
  async stop(opts: { controlled?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (opts.controlled) {
      for (const b of this.localBrokers) {
        const ref: ActorRef<BrokerMsg> = { node: b.node, path: brokerPath(b.id) };
        const r = await this.mainSystem.ask(ref, { type: 'ControlledShutdown' }, { timeoutMs: 30_000 });
        const code = (r as { errorCode?: number }).errorCode;
        if (isFailure(r) || code !== ErrorCode.NONE) log.warn('controlled shutdown incomplete: some partitions had no other ISR member', { broker: b.id, errorCode: code });
        else log.info('broker shut down under control', { broker: b.id });
      }
    }
    // the main node last: it hosts the worker nodes and relays between nodes
    for (const s of [...this.systems].reverse()) await s.stop();
  }
}

async function waitForBrokers(system: ActorSystem, controller: ActorRef<ControllerMsg>, n: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await system.ask<ControllerReply>(controller, { type: 'Metadata' }, { timeoutMs: 5_000 });
    if (!isFailure(r) && r.type === 'MetadataResponse' && r.metadata.brokers.filter((b) => !b.fenced).length >= n) return true;
    await new Promise((res) => setTimeout(res, 50));
  }
  return false;
}

/** Creates the topology's topics once enough brokers are up (existing ones are left as they are). */
async function createTopics(system: ActorSystem, t: TopologyConfig, timeoutMs: number): Promise<void> {
  const topics = t.topics ?? [];
  if (topics.length === 0) return;
  const controller = controllerChannelRef(system.nodeId);
  const need = Math.max(...topics.map((x) => x.replicationFactor));
  if (!(await waitForBrokers(system, controller, need, timeoutMs))) {
    log.warn('brokers did not come up in time: topics not created yet', { needed: need });
    return;
  }
  const r = await system.ask<ControllerReply>(
    controller,
    { type: 'CreateTopics', topics: topics.map((x) => ({ name: x.name, numPartitions: x.partitions, replicationFactor: x.replicationFactor, config: x.config ?? {} })) },
    { timeoutMs: 30_000 },
  );
  if (isFailure(r) || r.type !== 'CreateTopicsResponse') {
    log.warn('topic creation failed', { reason: isFailure(r) ? r.message : r.type });
    return;
  }
  for (const x of r.topics) {
    if (x.errorCode === ErrorCode.NONE) log.info('topic created', { topic: x.name });
    else if (x.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) log.warn('topic not created', { topic: x.name, errorCode: x.errorCode, reason: x.errorMessage });
  }
}

export async function startCluster(config: TopologyConfig, opts: StartOptions = {}): Promise<ClusterHandle> {
  const t = parseTopology(config);
  const baseDir = opts.baseDir ?? process.cwd();
  const readyMs = opts.readyTimeoutMs ?? 30_000;
  if (t.logLevel) setLogLevel(t.logLevel);
  // the process's V8 runtime, before any node starts (worker threads share it)
  const growing = t.runtime?.heapGrowingPercent;
  if (growing !== undefined) {
    setHeapGrowingPercent(growing);
    log.info('heap growing factor set', { heapGrowingPercent: growing });
  }
  const pretenuring = t.runtime?.allocationSitePretenuring;
  if (pretenuring !== undefined) {
    setAllocationSitePretenuring(pretenuring);
    log.info('allocation-site pretenuring set', { allocationSitePretenuring: pretenuring });
  }
  const args = (nodeId: string): NodeSetupArgs => ({ topology: t, nodeId, baseDir });

  if (opts.node !== undefined) {
    const index = t.nodes.findIndex((n) => n.id === opts.node);
    const me = t.nodes[index];
    if (!me) throw new TopologyError([{ path: '--node', message: `node '${opts.node}' is not declared in nodes` }]);
    if (me.kind !== 'tcp') throw new TopologyError([{ path: `nodes[${index}].kind`, message: `--node starts a tcp node in its own process; '${me.id}' is ${me.kind} (start the topology without --node)` }]);
    await checkPortsFree([{ path: `nodes[${index}].port`, host: me.host!, port: me.port! }, ...kafkaPorts(t, me.id)]);
    checkTls(t, baseDir, me.id);
    const secret = t.nodeSecretFile !== undefined ? readNodeSecret(t.nodeSecretFile, baseDir) : null;
    const system = new ActorSystem({ nodeId: me.id });
    const tcp = new TcpTransport(system, { clusterId: t.clusterId, tls: me.tls ? readTransportTls(me.tls, baseDir, 'required') : null, cluster: { nodes: nodeIds(t), acceptNodes: true, secret } });
    const addr = await tcp.listen(me.port!, me.host!);
    for (const peer of t.nodes.filter((n) => n.kind === 'tcp' && n.id !== me.id)) {
      void tcp.connect(peer.port!, peer.host!, { persistent: true }).catch(() => undefined);
    }
    await setupNode(system, args(me.id));
    if (controllerVoters(t.controller)[0]!.node === me.id) void createTopics(system, t, readyMs).catch((err: Error) => log.warn('topic creation failed', { reason: err.message }));
    const brokers = t.brokers.filter((b) => b.node === me.id).map((b) => ({ id: b.id, node: b.node }));
    return new ClusterHandle(t, system, [system], [`${addr.host}:${addr.port}`], brokers, null, new Map(), null, baseDir);
  }

  if (t.nodes.some((n) => n.kind === 'tcp')) {
    throw new TopologyError([{ path: 'nodes', message: 'this topology runs one process per node: start each with --node <id>' }]);
  }
  await checkPortsFree([...(t.listeners ?? []).map((l, i) => ({ path: `listeners[${i}].port`, host: l.host, port: l.port })), ...kafkaPorts(t)]);
  checkTls(t, baseDir);
  const net = new InProcNetwork();
  const inproc = t.nodes.filter((n) => n.kind === 'inproc');
  const systems = inproc.map((n) => new ActorSystem({ nodeId: n.id }));
  const hub = systems[0]!;
  for (const s of systems) {
    net.join(s);
    if (s !== hub) s.setDefaultRoute(hub.nodeId);
  }
  try {
    for (const s of systems) await setupNode(s, args(s.nodeId));
    const workers = new WorkerHub(hub);
    const started = await Promise.all(t.nodes.filter((n) => n.kind === 'worker').map((n) => workers.spawn({ nodeId: n.id, setup: nodeSetupModule(), config: args(n.id) })));
    const addresses: string[] = [];
    // a client listener takes clients only: every node id the topology declares is refused there
    const cluster = { nodes: nodeIds(t), acceptNodes: false };
    for (const l of t.listeners ?? []) {
      const s = systems.find((x) => x.nodeId === l.node)!;
      const a = await new TcpTransport(s, { clusterId: t.clusterId, tls: l.tls ? readTransportTls(l.tls, baseDir, 'none') : null, cluster }).listen(l.port, l.host);
      addresses.push(`${a.host}:${a.port}`);
    }
    await createTopics(hub, t, readyMs);
    const startNode = async (nodeId: string, topology: TopologyConfig): Promise<ActorSystem | WorkerNode> => {
      const kind = topology.nodes.find((n) => n.id === nodeId)!.kind;
      const setup: NodeSetupArgs = { topology, nodeId, baseDir };
      if (kind === 'worker') return workers.spawn({ nodeId, setup: nodeSetupModule(), config: setup });
      const system = new ActorSystem({ nodeId });
      net.join(system);
      system.setDefaultRoute(hub.nodeId);
      await setupNode(system, setup);
      return system;
    };
    return new ClusterHandle(t, hub, systems, addresses, t.brokers.map((b) => ({ id: b.id, node: b.node })), net, new Map(started.map((w) => [w.nodeId, w])), startNode, baseDir);
  } catch (err) {
    for (const s of [...systems].reverse()) await s.stop();
    throw err;
  }
}

/**
 * Path of one of the example topologies shipped in src/topology/examples (found from the
 * sources or from the compiled dist/ alike).
 */
export function exampleTopology(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'examples', name), path.resolve(here, '../../../src/topology/examples', name)];
  return candidates.find((c) => fs.existsSync(c)) ?? candidates[0]!;
}
