/**
 * Real clusters for integration tests: a controller node and N broker nodes, either all in
 * this thread (in-process transport, strict serialisation) or each in its own worker thread.
 * Brokers can be crashed and restarted on the same log dir. A client node drives them with
 * the thin helpers in cluster-client.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { InProcNetwork } from '../../src/transport/inproc.js';
import { WorkerHub, type WorkerNode } from '../../src/transport/worker.js';
import { startClusterNode, type ClusterNodeConfig } from '../fixtures/cluster-node.js';
import { ClusterClient } from './cluster-client.js';
import { checkFor } from './check-for.js';
import { SamsaClient } from '../../src/client/samsa.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { isFailure } from '../../src/runtime/types.js';

export type ClusterTransport = 'inproc' | 'worker';

/**
 * Timings for tests that kill brokers: heartbeats every 200 ms, a dead broker fenced after
 * 1.5 s, followers dropped from the ISR after 1.5 s, replica fetches every 100 ms. `broker` and
 * `controller` add or override broker and controller config keys.
 */
export function fastFailover(broker: Record<string, unknown> = {}, controller: Record<string, unknown> = {}): Pick<TestClusterOptions, 'brokerConfig' | 'controllerConfig'> {
  return {
    brokerConfig: { 'broker.heartbeat.interval.ms': 200, 'replica.lag.time.max.ms': 1_500, 'replica.fetch.wait.max.ms': 100, 'replica.fetch.backoff.ms': 100, ...broker },
    controllerConfig: { 'broker.session.timeout.ms': 1_500, ...controller },
  };
}

export interface TestClusterOptions {
  brokers: number;
  transport?: ClusterTransport;
  brokerConfig?: Record<string, unknown>;
  controllerConfig?: Record<string, unknown>;
  placementSeed?: number;
  /** Give every broker a Kafka-protocol listener on 127.0.0.1 (a free port, kept across restarts). */
  kafka?: boolean;
  /**
   * Every node encodes and decodes each local message (default true). Off, messages from a
   * worker port reach their handlers as views of the port's buffers, as in production.
   */
  strictSerialization?: boolean;
  /** Each broker's rack, by position (broker 1 first); none by default. */
  racks?: (string | null)[];
  /** Log dirs per broker (JBOD; default 1): broker-<id>, then broker-<id>-1, broker-<id>-2... */
  logDirsPerBroker?: number;
}

const FIXTURE = new URL('../fixtures/cluster-node.ts', import.meta.url);

interface BrokerHandle {
  id: number;
  node: string;
  running: boolean;
  system?: ActorSystem;
  worker?: WorkerNode;
}

export class TestCluster {
  readonly client: ClusterClient;
  private readonly brokers = new Map<number, BrokerHandle>();
  private readonly kafkaPorts = new Map<number, number>();
  private controllerSystem?: ActorSystem;
  private controllerWorker?: WorkerNode;

  private constructor(
    readonly opts: Required<Omit<TestClusterOptions, 'placementSeed'>> & { placementSeed: number },
    readonly dir: string,
    readonly clientSystem: ActorSystem,
    private readonly net: InProcNetwork | null,
    private readonly hub: WorkerHub | null,
  ) {
    this.client = new ClusterClient(clientSystem, 'controller');
  }

  static async start(options: TestClusterOptions): Promise<TestCluster> {
    const opts = {
      transport: 'inproc' as ClusterTransport,
      brokerConfig: {},
      controllerConfig: {},
      placementSeed: 0,
      kafka: false,
      strictSerialization: true,
      racks: [],
      logDirsPerBroker: 1,
      ...options,
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-cluster-'));
    const client = new ActorSystem({ nodeId: 'client', strictSerialization: opts.strictSerialization });
    let net: InProcNetwork | null = null;
    let hub: WorkerHub | null = null;
    if (opts.transport === 'inproc') {
      net = new InProcNetwork({ strictSerialization: opts.strictSerialization });
      net.join(client);
    } else {
      hub = new WorkerHub(client);
    }
    const c = new TestCluster(opts, dir, client, net, hub);
    await c.startController();
    // together: a worker node spends most of its start loading modules, and there are two cores
    await Promise.all(Array.from({ length: opts.brokers }, (_, i) => c.startBroker(i + 1)));
    // brokerIds() and bootstrap() list the brokers by id, whichever started first
    const started = [...c.brokers.values()].sort((a, b) => a.id - b.id);
    c.brokers.clear();
    for (const h of started) c.brokers.set(h.id, h);
    await c.client.waitForBrokers(opts.brokers);
    return c;
  }

  private nodeConfig(extra: Partial<ClusterNodeConfig>): ClusterNodeConfig {
    return { clusterId: 'test-cluster', controllerNode: 'controller', ...extra };
  }

  private async startController(): Promise<void> {
    const cfg = this.nodeConfig({
      controller: { metadataDir: path.join(this.dir, 'controller'), config: this.opts.controllerConfig, placementSeed: this.opts.placementSeed },
    });
    if (this.net) {
      const sys = new ActorSystem({ nodeId: 'controller', strictSerialization: this.opts.strictSerialization });
      this.net.join(sys);
      await startClusterNode(sys, cfg);
      this.controllerSystem = sys;
    } else {
      this.controllerWorker = await this.hub!.spawn({ nodeId: 'controller', setup: FIXTURE, config: cfg });
    }
  }

  logDir(id: number): string {
    return path.join(this.dir, `broker-${id}`);
  }

  /** Broker `id`'s log dirs (logDir(id) first). */
  logDirs(id: number): string[] {
    return Array.from({ length: this.opts.logDirsPerBroker }, (_, i) => (i === 0 ? this.logDir(id) : path.join(this.dir, `broker-${id}-${i}`)));
  }

  /** Starts (or restarts) broker `id` on its own node, on the same log dir as before. */
  async startBroker(id: number): Promise<void> {
    const node = `b${id}`;
    const kafka = this.opts.kafka ? { host: '127.0.0.1', port: this.kafkaPorts.get(id) ?? 0 } : undefined;
    const rack = this.opts.racks[id - 1] ?? null;
    const cfg = this.nodeConfig({ broker: { brokerId: id, logDirs: this.logDirs(id), config: this.opts.brokerConfig, kafka, ...(rack ? { rack } : {}) } });
    const h: BrokerHandle = { id, node, running: true };
    if (this.net) {
      const sys = new ActorSystem({ nodeId: node, strictSerialization: this.opts.strictSerialization });
      this.net.join(sys);
      await startClusterNode(sys, cfg);
      h.system = sys;
    } else {
      h.worker = await this.hub!.spawn({ nodeId: node, setup: FIXTURE, config: cfg });
    }
    this.brokers.set(id, h);
  }

  /**
   * 'host:port' of each running broker's Kafka listener (with `kafka: true`), once registered.
   * A restarted broker listens on the port it had before.
   */
  async kafkaBootstrap(): Promise<string[]> {
    const running = [...this.brokers.values()].filter((h) => h.running).map((h) => h.id);
    const md = await checkFor(async () => {
      const m = await this.client.metadata();
      return running.every((id) => m.brokers.some((b) => b.brokerId === id && !b.fenced && b.kafkaEndpoint)) ? m : null;
    }, 20_000, 20);
    const out: string[] = [];
    for (const id of running) {
      const e = md.brokers.find((b) => b.brokerId === id)!.kafkaEndpoint!;
      this.kafkaPorts.set(id, Number(e.slice(e.lastIndexOf(':') + 1)));
      out.push(e);
    }
    return out;
  }

  /** Crashes broker `id`: its node disappears from the network at once, without a controlled shutdown. */
  async killBroker(id: number): Promise<void> {
    const h = this.brokers.get(id);
    if (!h || !h.running) return;
    h.running = false;
    if (h.system) {
      this.net!.leave(h.system);
      await h.system.stop();
    } else {
      await h.worker!.kill();
    }
  }

  /**
   * Stops broker `id` cleanly, as a node's stop does: a controlled shutdown (its logs flushed and
   * its clean shutdown marker written), then its node leaves (in-process clusters only).
   */
  async stopBroker(id: number): Promise<void> {
    const h = this.brokers.get(id);
    if (!h || !h.running) return;
    if (!h.system) throw new Error('stopBroker needs an in-process cluster');
    const r = await this.clientSystem.ask<{ type: string; errorCode?: number }>({ node: h.node, path: brokerPath(id) }, { type: 'ControlledShutdown' }, { timeoutMs: 30_000 });
    if (isFailure(r) || r.type !== 'ControlledShutdownDone') throw new Error(`broker ${id} did not shut down: ${JSON.stringify(r)}`);
    h.running = false;
    this.net!.leave(h.system);
    await h.system.stop();
  }

  /** Bootstrap brokers for clients (every broker of the cluster). */
  bootstrap(): { brokerId: number; node: string }[] {
    return [...this.brokers.values()].map((h) => ({ brokerId: h.id, node: h.node }));
  }

  /** A client object on the client node, like `new Kafka(...)`. */
  samsa(clientId = 'test-client'): SamsaClient {
    return new SamsaClient({ clientId, system: this.clientSystem, brokers: this.bootstrap() });
  }

  /** The client node's actor system. */
  system(): ActorSystem {
    return this.clientSystem;
  }

  /** Broker `id`'s actor system (in-process clusters only). */
  brokerSystem(id: number): ActorSystem {
    const sys = this.brokers.get(id)?.system;
    if (!sys) throw new Error(`broker ${id} has no in-process actor system`);
    return sys;
  }

  brokerIds(): number[] {
    return [...this.brokers.keys()];
  }

  async stop(): Promise<void> {
    await this.clientSystem.stop();
    for (const h of this.brokers.values()) {
      if (h.system && h.running) await h.system.stop();
    }
    await this.controllerSystem?.stop();
    void this.controllerWorker;
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
