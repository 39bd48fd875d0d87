/**
 * Metadata (api key 3): brokers with their Kafka listener addresses, a live controller id, and
 * per topic its partitions' leaders, epochs, replicas, ISR and offline replicas, from the metadata
 * the controller last pushed to this broker. A requested topic that does not exist is created when
 * auto.create.topics.enable is on and the request allows it (answered LEADER_NOT_AVAILABLE until
 * its leaders are elected, as Kafka does).
 */
import type { ControllerMsg } from '../../../actors/controller/messages.js';
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { MetadataResponse as BrokerMetadataResponse } from '../../../actors/broker/messages.js';
import type { ControllerReply } from '../../../actors/controller/messages.js';
import { NO_LEADER, type BrokerInfo, type ClusterMetadata, type TopicMetadata } from '../../protocol/cluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { ApiKeys } from '../protocol/index.js';
import { CLUSTER_OPERATIONS, OPERATIONS_NOT_REQUESTED, TOPIC_OPERATIONS } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';

/** Splits 'host:port' (an IPv6 host may be bracketed). */
export function splitEndpoint(endpoint: string): { host: string; port: number } {
  const i = endpoint.lastIndexOf(':');
  const host = endpoint.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(endpoint.slice(i + 1)) };
}

/** The brokers a Kafka client can reach: live, with a Kafka listener. */
export function kafkaBrokers(md: ClusterMetadata): (BrokerInfo & { host: string; port: number })[] {
  return md.brokers.filter((b) => !b.fenced && b.kafkaEndpoint).map((b) => ({ ...b, ...splitEndpoint(b.kafkaEndpoint!) }));
}

/**
 * Kafka clients send admin requests to "the controller". samsa's controller is an actor that any
 * broker reaches, so we name a live broker: the one beside the controller if there is one, else
 * the lowest id.
 */
export function controllerIdFor(md: ClusterMetadata): number {
  const live = kafkaBrokers(md).sort((a, b) => a.brokerId - b.brokerId);
  return (live.find((b) => b.node === md.controllerNode) ?? live[0])?.brokerId ?? -1;
}

export async function fetchClusterMetadata(ctx: ApiContext, topics: string[] | null): Promise<ClusterMetadata | null> {
  const r = await ctx.ask<BrokerMsg, BrokerMetadataResponse>(ctx.broker, { type: 'Metadata', topics }, ctx.config.requestTimeoutMs);
  return isFailure(r) ? null : r.metadata;
}

function topicEntry(t: TopicMetadata, md: ClusterMetadata, topicAuthorizedOperations: number) {
  const fenced = new Set(md.brokers.filter((b) => b.fenced).map((b) => b.brokerId));
  const known = new Set(md.brokers.map((b) => b.brokerId));
  return {
    errorCode: ErrorCode.NONE,
    name: t.name,
    isInternal: t.internal,
    topicAuthorizedOperations,
    partitions: [...t.partitions]
      .sort((a, b) => a.partition - b.partition)
      .map((p) => ({
        errorCode: p.leader === NO_LEADER ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
        partitionIndex: p.partition,
        leaderId: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicaNodes: p.replicas,
        isrNodes: p.isr,
        offlineReplicas: p.replicas.filter((r) => fenced.has(r) || !known.has(r)),
      })),
  };
}

async function autoCreate(ctx: ApiContext, names: string[]): Promise<Map<string, number>> {
  const codes = new Map<string, number>();
  if (names.length === 0) return codes;
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'CreateTopics', topics: names.map((name) => ({ name })) }, ctx.config.requestTimeoutMs);
  for (const name of names) codes.set(name, ErrorCode.LEADER_NOT_AVAILABLE);
  if (isFailure(r) || r.type !== 'CreateTopicsResponse') return codes;
  for (const t of r.topics) {
    // created (or created meanwhile by someone else): leaders are on their way
    if (t.errorCode !== ErrorCode.NONE && t.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) codes.set(t.name, t.errorCode);
    else ctx.log.info('topic auto-created', { topic: t.name });
  }
  return codes;
}

export const metadata: ApiHandler<typeof ApiKeys.Metadata> = async (ctx, version, body) => {
  const requested: string[] | null =
    body.topics === null || (version === 0 && body.topics.length === 0) ? null : (body.topics as { name: string | null }[]).map((t) => t.name ?? '');
  const md = await fetchClusterMetadata(ctx, requested);
  if (!md) {
    return { brokers: [], clusterId: null, controllerId: -1, topics: (requested ?? []).map((name) => ({ errorCode: ErrorCode.BROKER_NOT_AVAILABLE, name, partitions: [] })) };
  }
  const brokers = kafkaBrokers(md).map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack }));
  const byName = new Map(md.topics.map((t) => [t.name, t]));
  const topicOps = version >= 8 && body.includeTopicAuthorizedOperations ? TOPIC_OPERATIONS : OPERATIONS_NOT_REQUESTED;
  const topics = [];
  if (requested === null) {
    for (const t of [...md.topics].sort((a, b) => a.name.localeCompare(b.name))) topics.push(topicEntry(t, md, topicOps));
  } else {
    const missing = [...new Set(requested)].filter((n) => !byName.has(n));
    const allowCreate = ctx.config.autoCreateTopicsEnable && (version < 4 || body.allowAutoTopicCreation !== false);
    const created = allowCreate ? await autoCreate(ctx, missing) : new Map<string, number>();
    for (const name of new Set(requested)) {
      const t = byName.get(name);
      if (t) topics.push(topicEntry(t, md, topicOps));
      else topics.push({ errorCode: created.get(name) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, isInternal: false, partitions: [] });
    }
  }
  const clusterAuthorizedOperations = version >= 8 && body.includeClusterAuthorizedOperations ? CLUSTER_OPERATIONS : OPERATIONS_NOT_REQUESTED;
  return { throttleTimeMs: 0, brokers, clusterId: md.clusterId, controllerId: controllerIdFor(md), topics, clusterAuthorizedOperations };
};
