/**
 * DescribeTopicPartitions (api key 75, v0; KIP-966), what Kafka's admin client and
 * `kafka-topics --describe` send to describe topics: like Metadata, but paged by partition count
 * and with each topic's id, as Kafka's broker answers it.
 *
 * - Topics: those named, or every topic when none is; only those at or after the cursor's topic
 *   (name order). Named topics must include the cursor's topic, and its partition must not be
 *   negative (else the request is INVALID_REQUEST for every topic).
 * - Paging: at most min(responsePartitionLimit, max.request.partition.size.limit) partitions, at
 *   least one. A topic cut short, or the first one that did not fit, is the next cursor.
 * - A named topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for
 *   an illegal name); a listing of every topic leaves nothing missing.
 * - With an authorizer, a topic the client may not describe is left out of a listing, and a named
 *   one is TOPIC_AUTHORIZATION_FAILED with the zero id, at the end. The client's operations on
 *   each topic come back always.
 * - Eligible leader replicas and LastKnownElr (KIP-966) as the controller keeps them (empty while
 *   eligible.leader.replicas.version is 0). A leader that is not live is -1.
 */
import { isInternalTopic, validateTopicName } from '../../../actors/controller/topic-validation.js';
import { offlineReplicaLookup, type ClusterMetadata, type TopicMetadata } from '../../protocol/cluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import { kafkaTopicId, ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys, type ResponseInput } from '../protocol/index.js';
import { topicAuthorizedOperations } from './authorized-operations.js';
import type { ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

type Response = ResponseInput<typeof ApiKeys.DescribeTopicPartitions>;
type TopicEntry = NonNullable<Response['topics']>[number];

function refused(names: string[], errorCode: number): Response {
  return { throttleTimeMs: 0, topics: names.map((name) => ({ errorCode, name, topicId: ZERO_TOPIC_ID, isInternal: false, partitions: [] })), nextCursor: null };
}

/** The partitions [from, from + max) of a topic, as Kafka's KRaft metadata cache answers them. */
function partitionsOf(t: TopicMetadata, md: ClusterMetadata, from: number, max: number) {
  const live = new Set(md.brokers.filter((b) => !b.fenced).map((b) => b.brokerId));
  const offlineReplicas = offlineReplicaLookup(md);
  const sorted = [...t.partitions].sort((a, b) => a.partition - b.partition);
  const upper = Math.min(sorted.length, from + max);
  const out = [];
  for (let i = from; i < upper; i++) {
    const p = sorted[i]!;
    out.push({
      errorCode: ErrorCode.NONE,
      partitionIndex: p.partition,
      leaderId: p.leader >= 0 && live.has(p.leader) ? p.leader : -1,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: p.replicas,
      isrNodes: p.isr,
      eligibleLeaderReplicas: [...(p.elr ?? [])],
      lastKnownElr: [...(p.lastKnownElr ?? [])],
      offlineReplicas: offlineReplicas(p),
    });
  }
  return { partitions: out, next: upper < sorted.length ? upper : -1 };
}

export const describeTopicPartitions: ApiHandler<typeof ApiKeys.DescribeTopicPartitions> = async (ctx, _version, body) => {
  const asked = body.topics.map((t) => t.name);
  const all = asked.length === 0;
  const cursor = body.cursor;
  const from = cursor?.topicName ?? '';
  const names = new Set((all ? [] : asked).filter((n) => n >= from));
  if (!all && cursor && !names.has(cursor.topicName)) {
    ctx.log.info('DescribeTopicPartitions refused', { reason: 'the cursor topic is not among the topics' });
    return refused(asked, ErrorCode.INVALID_REQUEST);
  }
  if (cursor && cursor.partitionIndex < 0) {
    ctx.log.info('DescribeTopicPartitions refused', { reason: 'negative cursor partition' });
    return refused(asked, ErrorCode.INVALID_REQUEST);
  }
  const md = await fetchClusterMetadata(ctx, all ? null : [...names]);
  if (!md) return refused(asked, ErrorCode.BROKER_NOT_AVAILABLE);
  const byName = new Map(md.topics.map((t) => [t.name, t]));
  if (all) for (const t of md.topics) if (t.name >= from) names.add(t.name);

  const topics: TopicEntry[] = [];
  const denied: TopicEntry[] = [];
  const authorized = [...names].sort().filter((name) => {
    if (ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, name, !all)) return true;
    if (!all) denied.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_TOPIC_ID, isInternal: false, partitions: [] });
    return false;
  });
  let remaining = Math.max(Math.min(ctx.config.maxRequestPartitionSizeLimit, body.responsePartitionLimit), 1);
  let nextCursor: Response['nextCursor'] = null;
  for (const name of authorized) {
    if (remaining === 0) {
      // the cursor points at the first topic that did not fit (whether it exists or not)
      nextCursor = { topicName: name, partitionIndex: 0 };
      break;
    }
    const t = byName.get(name);
    if (!t) {
      if (!all) topics.push({ errorCode: validateTopicName(name)?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, topicId: ZERO_TOPIC_ID, isInternal: isInternalTopic(name), partitions: [] });
      continue;
    }
    const { partitions, next } = partitionsOf(t, md, name === from && cursor ? cursor.partitionIndex : 0, remaining);
    topics.push({ errorCode: ErrorCode.NONE, name, topicId: kafkaTopicId(t.topicId), isInternal: t.internal, partitions, topicAuthorizedOperations: topicAuthorizedOperations(ctx, name) });
    if (next !== -1) {
      nextCursor = { topicName: name, partitionIndex: next };
      break;
    }
    remaining -= partitions.length;
  }
  return { throttleTimeMs: 0, topics: [...topics, ...denied], nextCursor };
};
