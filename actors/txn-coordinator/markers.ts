/**
 * Where the markers of a prepared transaction go and what each answer means, as Kafka's
 * TransactionMarkerChannelManager decides (pure functions over the broker's metadata).
 *
 * A partition's marker is written by its leader: the partitions are grouped by leader broker
 * (one WriteTxnMarkers per broker and round). A partition whose topic the metadata no longer
 * has was deleted: its marker is skipped, as Kafka skips partitions without a leader endpoint.
 * A partition without a leader now waits for the next round. Metadata without any broker is
 * not trusted to say a topic is gone (a broker that has not heard from its controller yet).
 */
import { NO_LEADER, type ClusterMetadata } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { TopicPartition } from './txn-metadata.js';

export interface MarkerRoute {
  leader: number;
  /** The node of the leader's broker actor. */
  node: string;
  partitions: TopicPartition[];
}

export interface MarkerRouting {
  routes: MarkerRoute[];
  /** Partitions of deleted topics: their markers are done. */
  gone: TopicPartition[];
  /** Partitions without a leader (or whose leader's node is unknown): next round. */
  waiting: TopicPartition[];
}

export function routeMarkers(md: ClusterMetadata, partitions: readonly TopicPartition[]): MarkerRouting {
  const out: MarkerRouting = { routes: [], gone: [], waiting: [] };
  const byLeader = new Map<number, MarkerRoute>();
  const trusted = md.brokers.length > 0;
  for (const tp of partitions) {
    const topic = md.topics.find((t) => t.name === tp.topic);
    const state = topic?.partitions.find((p) => p.partition === tp.partition);
    if (!state) {
      (trusted ? out.gone : out.waiting).push(tp);
      continue;
    }
    const node = state.leader === NO_LEADER ? undefined : md.brokers.find((b) => b.brokerId === state.leader && !b.fenced)?.node;
    if (node === undefined) {
      out.waiting.push(tp);
      continue;
    }
    let route = byLeader.get(state.leader);
    if (!route) byLeader.set(state.leader, (route = { leader: state.leader, node, partitions: [] }));
    route.partitions.push(tp);
  }
  out.routes = [...byLeader.values()];
  return out;
}

/**
 * What a partition's answer to WriteTxnMarkers means: written ('done'); refused because the
 * producer or the coordinator moved on ('fenced': a newer coordinator owns the transaction and
 * writes its markers); anything else is tried again next round ('retry': not leader, not enough
 * replicas, timeouts, and UNKNOWN_TOPIC_OR_PARTITION, which becomes 'done' once the metadata
 * shows the topic deleted, see routeMarkers).
 */
export function markerOutcome(errorCode: number): 'done' | 'fenced' | 'retry' {
  switch (errorCode) {
    case ErrorCode.NONE:
      return 'done';
    case ErrorCode.INVALID_PRODUCER_EPOCH:
    case ErrorCode.TRANSACTION_COORDINATOR_FENCED:
      return 'fenced';
    default:
      return 'retry';
  }
}

/** The backoff before round `attempt` (1-based) of a transaction's marker writes: doubling from `baseMs`, at most `maxMs`. */
export function markerBackoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(20, Math.max(0, attempt - 1)));
}
