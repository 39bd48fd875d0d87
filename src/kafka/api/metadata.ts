/**
 * Metadata (api key 3): brokers with their Kafka listener addresses, a live controller id, and
 * per topic its partitions' leaders, epochs, replicas, ISR and offline replicas, from the metadata
 * the controller last pushed to this broker. A requested topic that does not exist is created when
 * auto.create.topics.enable is on and the request allows it (answered LEADER_NOT_AVAILABLE until
 * its leaders are elected, as Kafka does).
 *
 * With an authorizer, as Kafka: a topic is shown only to a client that may DESCRIBE it. Asked for
 * every topic, the others are left out; asked by name, they are answered TOPIC_AUTHORIZATION_FAILED
 * whether they exist or not. A missing topic is auto-created only for a client that may CREATE on
 * the cluster or on that topic (else TOPIC_AUTHORIZATION_FAILED). The authorized operations asked
 * for (v8+) are the client's own.
 *
 * Topic ids (KIP-516): from v10 each topic carries its id (the zero id when refused or unknown);
 * v12 may ask by id instead of by name: an unknown id is UNKNOWN_TOPIC_ID, and a topic the client
 * may not describe is refused with its id but not its name. Ids in a v10-11 request are
 * INVALID_REQUEST, as in Kafka.
 */
import type { ControllerMsg } from '../../../actors/controller/messages.js';
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { MetadataResponse as BrokerMetadataResponse } from '../../../actors/broker/messages.js';
import type { ControllerReply } from '../../../actors/controller/messages.js';
import { NO_LEADER, offlineReplicaLookup, type BrokerInfo, type ClusterMetadata, type TopicMetadata } from '../../protocol/cluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import { kafkaTopicId, ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { clusterAuthorizedOperations, deniedNames, OPERATIONS_NOT_REQUESTED, topicAuthorizedOperations } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';

/** Splits 'host:port' (an IPv6 host may be bracketed). */
export function splitEndpoint(endpoint: string): { host: string; port: number } {
  const i = endpoint.lastIndexOf(':');
  const host = endpoint.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(endpoint.slice(i + 1)) };
}

/** The brokers a Kafka client can reach: live (or, with `includeFenced`, registered), with a Kafka listener. */
export function kafkaBrokers(md: ClusterMetadata, includeFenced = false): (BrokerInfo & { host: string; port: number })[] {
  return md.brokers.filter((b) => (includeFenced || !b.fenced) && b.kafkaEndpoint).map((b) => ({ ...b, ...splitEndpoint(b.kafkaEndpoint!) }));
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
  const offlineReplicas = offlineReplicaLookup(md);
  return {
    errorCode: ErrorCode.NONE,
    name: t.name,
    topicId: kafkaTopicId(t.topicId),
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
        offlineReplicas: offlineReplicas(p),
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

/** Kafka's answer to a Metadata request it cannot take: every topic named, with the error. */
function refusedRequest(body: { topics: { topicId: string; name: string | null }[] | null }, errorCode: number) {
  return {
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: -1,
    topics: (body.topics ?? []).map((t) => ({ errorCode, name: t.name ?? '', topicId: t.topicId, isInternal: false, partitions: [] })),
  };
}

export const metadata: ApiHandler<typeof ApiKeys.Metadata> = async (ctx, version, body) => {
  const asked = body.topics as { topicId: string; name: string | null }[] | null;
  // v10-11 carry topic ids but may not use them; v12 may ask by id (and then names are not read)
  if (asked !== null && version >= 10 && version < 12 && asked.some((t) => t.name === null || t.topicId !== ZERO_TOPIC_ID)) {
    ctx.log.info('Metadata request refused', { version, reason: 'topic ids before Metadata v12' });
    return refusedRequest(body, ErrorCode.INVALID_REQUEST);
  }
  const byId = asked === null ? [] : [...new Set(asked.map((t) => t.topicId).filter((id) => id !== ZERO_TOPIC_ID))];
  if (byId.length > 0) return metadataById(ctx, version, body, byId);
  const requested: string[] | null = asked === null || (version === 0 && asked.length === 0) ? null : asked.map((t) => t.name ?? '');
  const md = await fetchClusterMetadata(ctx, requested);
  if (!md) {
    return { brokers: [], clusterId: null, controllerId: -1, topics: (requested ?? []).map((name) => ({ errorCode: ErrorCode.BROKER_NOT_AVAILABLE, name, partitions: [] })) };
  }
  ctx.topicIds.learn(md.topics, requested === null);
  const brokers = kafkaBrokers(md).map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack }));
  const byName = new Map(md.topics.map((t) => [t.name, t]));
  const withTopicOps = version >= 8 && body.includeTopicAuthorizedOperations === true;
  const topicOps = (name: string) => (withTopicOps ? topicAuthorizedOperations(ctx, name) : OPERATIONS_NOT_REQUESTED);
  const topics = [];
  if (requested === null) {
    // every topic: those the client may not describe are left out, unlogged
    const hidden = deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, md.topics, (t) => t.name, false);
    for (const t of [...md.topics].sort((a, b) => a.name.localeCompare(b.name))) if (!hidden?.has(t.name)) topics.push(topicEntry(t, md, topicOps(t.name)));
  } else {
    const names = [...new Set(requested)];
    // named topics the client may not describe are refused, whether they exist or not (and
    // without their id)
    const denied = deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, names, (n) => n) ?? new Set<string>();
    const missing = names.filter((n) => !byName.has(n) && !denied.has(n));
    const allowCreate = ctx.config.autoCreateTopicsEnable && (version < 4 || body.allowAutoTopicCreation !== false);
    if (allowCreate && missing.length > 0 && !ctx.authorize(AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME, false)) {
      for (const n of deniedNames(ctx, AclOperation.CREATE, ResourceType.TOPIC, missing, (x) => x) ?? []) denied.add(n);
    }
    const created = allowCreate ? await autoCreate(ctx, denied.size === 0 ? missing : missing.filter((n) => !denied.has(n))) : new Map<string, number>();
    for (const name of names) {
      const t = byName.get(name);
      if (denied.has(name)) topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_TOPIC_ID, isInternal: false, partitions: [] });
      else if (t) topics.push(topicEntry(t, md, topicOps(name)));
      else topics.push({ errorCode: created.get(name) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, topicId: ZERO_TOPIC_ID, isInternal: false, partitions: [] });
    }
  }
  // v8-v10 (later versions have no such field): all the client may do on the cluster, or nothing
  // at all without DESCRIBE on it
  let clusterOps = OPERATIONS_NOT_REQUESTED;
  if (version >= 8 && body.includeClusterAuthorizedOperations) {
    clusterOps = ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME) ? clusterAuthorizedOperations(ctx) : 0;
  }
  return { throttleTimeMs: 0, brokers, clusterId: md.clusterId, controllerId: controllerIdFor(md), topics, clusterAuthorizedOperations: clusterOps };
};

/**
 * Metadata v12 asking by topic id (Kafka's order: unknown ids, then the topics, then those the
 * client may not describe). An unknown id is UNKNOWN_TOPIC_ID and a topic the client may not
 * describe TOPIC_AUTHORIZATION_FAILED, both with the id and no name; nothing is auto-created.
 */
async function metadataById(ctx: ApiContext, version: number, body: { includeTopicAuthorizedOperations: boolean }, ids: string[]) {
  const resolved = await ctx.topicIds.resolve(ids, async () => (await fetchClusterMetadata(ctx, null))?.topics ?? null);
  const names = [...new Set([...resolved.values()].map((t) => t.name))];
  // read again: a topic deleted since its id was learned is unknown
  const md = await fetchClusterMetadata(ctx, names);
  const errorEntry = (errorCode: number, topicId: string) => ({ errorCode, name: null, topicId, isInternal: false, partitions: [] });
  if (!md) return { brokers: [], clusterId: null, controllerId: -1, topics: ids.map((id) => errorEntry(ErrorCode.BROKER_NOT_AVAILABLE, id)) };
  const current = new Map(md.topics.map((t) => [kafkaTopicId(t.topicId), t]));
  const withTopicOps = body.includeTopicAuthorizedOperations === true;
  const denied = deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, [...current.values()], (t) => t.name) ?? new Set<string>();
  const unknown = [];
  const found = [];
  const refused = [];
  for (const id of ids) {
    const t = current.get(id);
    if (!t) unknown.push(errorEntry(ErrorCode.UNKNOWN_TOPIC_ID, id));
    else if (denied.has(t.name)) refused.push(errorEntry(ErrorCode.TOPIC_AUTHORIZATION_FAILED, id));
    else found.push(topicEntry(t, md, withTopicOps ? topicAuthorizedOperations(ctx, t.name) : OPERATIONS_NOT_REQUESTED));
  }
  const brokers = kafkaBrokers(md).map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack }));
  ctx.log.debug('Metadata by topic id', { version, ids: ids.length, unknown: unknown.length });
  return { throttleTimeMs: 0, brokers, clusterId: md.clusterId, controllerId: controllerIdFor(md), topics: [...unknown, ...found, ...refused] };
}
