/**
 * The client entry point, shaped like KafkaJS's `new Kafka(...)`: one object per cluster that
 * makes producers, consumers and admin clients. Client actors run on `system`, a node that
 * reaches the brokers' nodes (in-process, worker threads or TCP).
 */
import { nanoid } from 'nanoid';
import { ActorSystem } from '../runtime/actor-system.js';
import { ANY_CLUSTER, TcpTransport } from '../transport/tcp.js';
import { isFailure } from '../runtime/types.js';
import type { MetadataResponse } from '../../actors/broker/messages.js';
import { METADATA_PROXY_PATH } from '../../actors/cluster-node/metadata-proxy.js';

import type { BootstrapBroker } from './metadata-cache.js';
import { Admin } from './admin.js';
import { Consumer } from './consumer.js';
import { Producer } from './producer.js';
import { ShareConsumer } from './share-consumer.js';

export interface SamsaClientConfig {
  clientId?: string;
  /** The node the client's actors run on. */
  system: ActorSystem;
  /** Brokers to ask for metadata first (any subset of the cluster). */
  brokers: BootstrapBroker[];
}

export interface TcpConnectOptions {
  /** 'host:port' addresses of cluster nodes (any subset; the first that answers is enough). */
  brokers: string[];
  clientId?: string;
  /** The cluster to join; by default any (the client learns it from the node it reaches). */
  clusterId?: string;
  connectTimeoutMs?: number;
  /**
   * TLS, for a cluster whose listeners or nodes use it (PEM): the CA their certificates chain
   * to, and this client's own key and certificate when they ask for one.
   */
  tls?: { ca: string | Buffer; key?: string | Buffer; cert?: string | Buffer };
}

export class SamsaClient {
  readonly clientId: string;
  readonly system: ActorSystem;
  readonly brokers: BootstrapBroker[];
  private readonly ownsSystem: boolean;

  constructor(config: SamsaClientConfig & { ownsSystem?: boolean }) {
    if (!config.brokers?.length) throw new Error('SamsaClient: at least one bootstrap broker is required');
    this.clientId = config.clientId ?? 'samsa';
    this.system = config.system;
    this.brokers = config.brokers;
    this.ownsSystem = config.ownsSystem ?? false;
  }

  /**
   * Connects to a running cluster over TCP from a node of its own. Messages for nodes the client
   * has no connection to go through the first node it reached, which relays them.
   */
  static async connect(opts: TcpConnectOptions): Promise<SamsaClient> {
    if (!opts.brokers?.length) throw new Error('SamsaClient.connect: give at least one host:port');
    const clientId = opts.clientId ?? 'samsa';
    const system = new ActorSystem({ nodeId: `client-${clientId}-${nanoid(8)}` });
    const tcp = new TcpTransport(system, { clusterId: opts.clusterId ?? ANY_CLUSTER, tls: opts.tls ?? null });
    const peers: string[] = [];
    const errors: string[] = [];
    for (const addr of opts.brokers) {
      const m = /^(.*):(\d+)$/.exec(addr.trim());
      if (!m) {
        errors.push(`${addr}: not host:port`);
        continue;
      }
      try {
        peers.push(await tcp.connect(Number(m[2]), m[1] || '127.0.0.1'));
      } catch (err) {
        errors.push(`${addr}: ${(err as Error).message}`);
      }
    }
    if (peers.length === 0) {
      await system.stop();
      throw new Error(`cannot reach the cluster: ${errors.join('; ')}`);
    }
    system.setDefaultRoute(peers[0]!);
    const client = new SamsaClient({ clientId, system, brokers: peers.map((node) => ({ node })), ownsSystem: true });
    client.discoverBrokers(tcp, peers[0]!);
    return client;
  }

  private discovery: ReturnType<typeof setInterval> | null = null;

  /**
   * Dials every broker that advertises an endpoint, so requests go straight to leaders and a
   * broker's death fails its requests at once (instead of at their timeout through a relay).
   * Looks again every few seconds for brokers that appear or move.
   */
  private discoverBrokers(tcp: TcpTransport, via: string): void {
    const dialled = new Set<string>();
    const look = async () => {
      const r = await this.system.ask<MetadataResponse>({ node: via, path: METADATA_PROXY_PATH }, { type: 'Metadata', topics: [] }, { timeoutMs: 5_000 });
      if (isFailure(r) || r.type !== 'MetadataResponse' || !r.metadata) return;
      for (const b of r.metadata.brokers) {
        if (!b.endpoint || dialled.has(b.endpoint) || this.system.endpointTo(b.node)) continue;
        const m = /^(.*):(\d+)$/.exec(b.endpoint);
        if (!m) continue;
        dialled.add(b.endpoint);
        void tcp.connect(Number(m[2]), m[1] || '127.0.0.1', { persistent: true }).catch(() => dialled.delete(b.endpoint!));
      }
    };
    void look().catch(() => undefined);
    this.discovery = setInterval(() => void look().catch(() => undefined), 3_000);
    this.discovery.unref();
  }

  /** Stops the client's own node (for clients made by connect()). */
  async close(): Promise<void> {
    if (this.discovery) clearInterval(this.discovery);
    this.discovery = null;
    if (this.ownsSystem) await this.system.stop();
  }

  producer(config: Record<string, unknown> = {}): Producer {
    return new Producer(this, config);
  }

  /** An admin client; options use Kafka's names (client.id, request.timeout.ms, enable.metrics.push, ...: actors/admin/admin-config.ts). */
  admin(config: Record<string, unknown> = {}): Admin {
    return new Admin(this, config);
  }

  /**
   * A group consumer; `groupId` (or 'group.id') is required, other options use Kafka's names.
   * `groupProtocol` ('group.protocol'): 'classic' (the default) or 'consumer' (KIP-848: the
   * coordinator assigns); `groupRemoteAssignor` ('group.remote.assignor'): with 'consumer', the
   * server assignor to ask for.
   */
  consumer(config: { groupId?: string; groupProtocol?: 'classic' | 'consumer'; groupRemoteAssignor?: string | null } & Record<string, unknown>): Consumer {
    const { groupId, groupProtocol, groupRemoteAssignor, ...rest } = config;
    return new Consumer(this, {
      ...(groupId !== undefined ? { 'group.id': groupId } : {}),
      ...(groupProtocol !== undefined ? { 'group.protocol': groupProtocol } : {}),
      ...(groupRemoteAssignor !== undefined ? { 'group.remote.assignor': groupRemoteAssignor } : {}),
      ...rest,
    });
  }

  /**
   * A share group consumer (KIP-932, Kafka's KafkaShareConsumer); `groupId` (or 'group.id') is
   * required, other options use Kafka's names. `acknowledgementMode`
   * ('share.acknowledgement.mode'): 'implicit' (the default: a poll or commit accepts the
   * records the last poll returned) or 'explicit' (acknowledge every record).
   */
  shareConsumer(config: { groupId?: string; acknowledgementMode?: 'implicit' | 'explicit' } & Record<string, unknown>): ShareConsumer {
    const { groupId, acknowledgementMode, ...rest } = config;
    return new ShareConsumer(this, {
      ...(groupId !== undefined ? { 'group.id': groupId } : {}),
      ...(acknowledgementMode !== undefined ? { 'share.acknowledgement.mode': acknowledgementMode } : {}),
      ...rest,
    });
  }
}
