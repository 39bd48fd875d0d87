/**
 * A client's view of cluster metadata: leaders, partition counts, broker nodes and the
 * controller, refreshed from any broker's Metadata answer.
 */
import { METADATA_PROXY_PATH } from '../../actors/cluster-node/metadata-proxy.js';
import { CONTROLLER_CHANNEL_PATH } from '../../actors/cluster-node/controller-channel.js';
import { brokerPath, replicaPath, type ClusterMetadata, type PartitionState } from '../protocol/cluster.js';
import type { ActorRef } from '../runtime/types.js';

/** Where a client starts: a broker, or just a node of the cluster (its metadata proxy answers). */
export interface BootstrapBroker {
  brokerId?: number;
  node: string;
}


const EMPTY: readonly number[] = Object.freeze([]);

export interface LeaderInfo {
  brokerId: number;
  node: string;
  leaderEpoch: number;
}

export class MetadataCache {
  private md: ClusterMetadata | null = null;
  private readonly topics = new Map<string, PartitionState[]>();
  /** Per topic, the partitions with a leader: computed once per update (the producer asks per batch). */
  private readonly available = new Map<string, readonly number[]>();
  private readonly nodes = new Map<number, string>();
  private rotation = 0;
  updatedAt = -Infinity;

  constructor(private readonly bootstrap: readonly BootstrapBroker[]) {
    if (bootstrap.length === 0) throw new Error('at least one bootstrap broker is required');
    for (const b of bootstrap) if (b.brokerId !== undefined) this.nodes.set(b.brokerId, b.node);
  }

  update(md: ClusterMetadata, now: number): void {
    this.md = md;
    this.updatedAt = now;
    this.topics.clear();
    this.available.clear();
    for (const t of md.topics) {
      const sorted = [...t.partitions].sort((a, b) => a.partition - b.partition);
      this.topics.set(t.name, sorted);
      this.available.set(
        t.name,
        Object.freeze(sorted.filter((p) => p.leader >= 0).map((p) => p.partition)),
      );
    }
    for (const b of md.brokers) this.nodes.set(b.brokerId, b.node);
  }

  get metadata(): ClusterMetadata | null {
    return this.md;
  }

  hasTopic(topic: string): boolean {
    return this.topics.has(topic);
  }

  partitionCount(topic: string): number {
    return this.topics.get(topic)?.length ?? 0;
  }

  partitions(topic: string): PartitionState[] {
    return this.topics.get(topic) ?? [];
  }

  /** Partitions of `topic` that have a leader now (the same frozen array until the next update). */
  availablePartitions(topic: string): readonly number[] {
    return this.available.get(topic) ?? EMPTY;
  }

  /** The leader broker of a partition, or -1 when it has none or the broker's node is unknown. */
  leaderId(topic: string, partition: number): number {
    const p = this.topics.get(topic)?.[partition];
    if (!p || p.leader < 0 || !this.nodes.has(p.leader)) return -1;
    return p.leader;
  }

  leaderOf(topic: string, partition: number): LeaderInfo | null {
    const p = this.topics.get(topic)?.[partition];
    if (!p || p.leader < 0) return null;
    const node = this.nodes.get(p.leader);
    return node ? { brokerId: p.leader, node, leaderEpoch: p.leaderEpoch } : null;
  }

  replicaRef<M extends { type: string }>(leader: LeaderInfo, topic: string, partition: number): ActorRef<M> {
    return { node: leader.node, path: replicaPath(leader.brokerId, topic, partition) };
  }

  brokerRef<M extends { type: string }>(brokerId: number): ActorRef<M> | null {
    const node = this.nodes.get(brokerId);
    return node ? { node, path: brokerPath(brokerId) } : null;
  }

  /** A broker to ask for metadata: live brokers from the last answer, else bootstrap ones, in turn. */
  nextBroker<M extends { type: string }>(): ActorRef<M> {
    const live = this.md?.brokers.filter((b) => !b.fenced) ?? [];
    const pool: readonly BootstrapBroker[] = live.length > 0 ? live.map((b) => ({ brokerId: b.brokerId, node: b.node })) : this.bootstrap;
    const b = pool[this.rotation++ % pool.length]!;
    return { node: b.node, path: b.brokerId !== undefined ? brokerPath(b.brokerId) : METADATA_PROXY_PATH };
  }

  /**
   * The brokers themselves (never a node's metadata proxy), by id: the live ones of the last
   * answer, else the bootstrap entries that name a broker id; none before either.
   */
  brokerRefs<M extends { type: string }>(): ActorRef<M>[] {
    const live = (this.md?.brokers ?? []).filter((b) => !b.fenced);
    const known = live.length > 0 ? live : this.bootstrap.filter((b): b is Required<BootstrapBroker> => b.brokerId !== undefined);
    return [...known].sort((a, b) => a.brokerId - b.brokerId).map((b) => ({ node: b.node, path: brokerPath(b.brokerId) }));
  }

  /** The controller channel on the active controller's node: it follows the quorum's leader. */
  controllerRef<M extends { type: string }>(): ActorRef<M> | null {
    return this.md ? { node: this.md.controllerNode, path: CONTROLLER_CHANNEL_PATH } : null;
  }
}
