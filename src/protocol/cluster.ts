/**
 * Cluster metadata shapes shared by the controller, brokers, partition replicas and clients,
 * and the well-known actor paths. Plain data: everything here crosses the wire as msgpack.
 */
import type { AclBinding } from '../security/acl.js';
import type { ClientQuota } from '../security/client-quotas.js';
import type { FinalizedFeatures } from './features.js';

export const CONTROLLER_PATH = '/controller';

/** The broker actor of broker `brokerId`. */
export function brokerPath(brokerId: number): string {
  return `/broker-${brokerId}`;
}

/** The partition replica actor of `topic`-`partition` hosted by broker `brokerId` (a child of the broker). */
export function replicaPath(brokerId: number, topic: string, partition: number): string {
  return `/broker-${brokerId}/${topic}-${partition}`;
}

export const NO_LEADER = -1;

export interface BrokerInfo {
  brokerId: number;
  /** The node (actor system) hosting the broker actor. */
  node: string;
  rack: string | null;
  /** Fenced brokers lead nothing and are not in any ISR (session expired or shut down). */
  fenced: boolean;
  /** Bumped by the controller on every registration; stale epochs are refused. */
  brokerEpoch: number;
  /** 'host:port' where clients can reach the broker's node directly over TCP, when it listens. */
  endpoint?: string | null;
  /** 'host:port' of the broker's Kafka-protocol listener, when it has one. */
  kafkaEndpoint?: string | null;
  /** Its replicas offline because their log dir failed (absent: none); Kafka's Metadata lists them as offline replicas. */
  offlineReplicas?: { topic: string; partition: number }[];
}

export interface PartitionState {
  topic: string;
  partition: number;
  /** Assigned replicas, preferred leader first. */
  replicas: number[];
  isr: number[];
  /** NO_LEADER (-1) when the partition is offline. */
  leader: number;
  leaderEpoch: number;
  /** Bumped on every change of leader or ISR; AlterPartition must name the current one. */
  partitionEpoch: number;
  /**
   * During a reassignment (absent otherwise): replicas being added (not yet all in the ISR) and
   * replicas to be removed once they are. `replicas` then holds the target first, then these.
   */
  addingReplicas?: number[];
  removingReplicas?: number[];
  /**
   * Eligible leader replicas (KIP-966, with eligible.leader.replicas.version 1; absent: none):
   * replicas that left the ISR while it was below min.insync.replicas and may still lead cleanly.
   */
  elr?: number[];
  /** Kafka's LastKnownElr (absent: none): the last leader of a partition that lost its leader with ELR on. */
  lastKnownElr?: number[];
}

export interface TopicMetadata {
  name: string;
  topicId: string;
  internal: boolean;
  /** Topic-level config overrides with Kafka's names (retention.ms, min.insync.replicas, ...). */
  config: Record<string, string | number>;
  partitions: PartitionState[];
}

export interface ClusterMetadata {
  clusterId: string;
  /** The node hosting the controller actor. */
  controllerNode: string;
  controllerEpoch: number;
  brokers: BrokerInfo[];
  topics: TopicMetadata[];
  /** The cluster's ACL bindings (absent: none; brokers' Kafka listeners authorize with them). */
  acls?: AclBinding[];
  /**
   * Dynamic broker configs (absent: none): '' -> the cluster-wide defaults, '<broker id>' -> that
   * broker's own; each broker runs with its own over the defaults over its topology config.
   */
  brokerConfigs?: Record<string, Record<string, string>>;
  /** Group configs (absent: none): group id -> its overrides (consumer.session.timeout.ms, consumer.heartbeat.interval.ms). */
  groupConfigs?: Record<string, Record<string, string>>;
  /** Client metrics subscriptions (KIP-714; absent: none): name -> its configs (metrics, interval.ms, match). */
  clientMetrics?: Record<string, Record<string, string>>;
  /** Client quotas (absent: none); each broker's Kafka listener enforces them. */
  clientQuotas?: ClientQuota[];
  /** The finalized feature levels (KIP-584; absent: not known, as from a controller before samsa kept them). */
  features?: FinalizedFeatures;
}

/**
 * Kafka's offline replicas of each partition: those on a broker not registered or fenced, and
 * those a broker reports offline (their log dir failed). Returns the lookup for `md`.
 */
export function offlineReplicaLookup(md: ClusterMetadata): (p: PartitionState) => number[] {
  const live = new Set(md.brokers.filter((b) => !b.fenced).map((b) => b.brokerId));
  const inFailedDirs = new Map<number, Set<string>>();
  for (const b of md.brokers) {
    if (b.offlineReplicas && b.offlineReplicas.length > 0) inFailedDirs.set(b.brokerId, new Set(b.offlineReplicas.map((p) => `${p.partition}:${p.topic}`)));
  }
  return (p) => p.replicas.filter((r) => !live.has(r) || !!inFailedDirs.get(r)?.has(`${p.partition}:${p.topic}`));
}
