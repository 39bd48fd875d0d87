/**
 * AlterReplicaLogDirs (api key 34, v0-v2; kafka-reassign-partitions.sh's log_dirs, the Java
 * admin's alterReplicaLogDirs): moves replicas hosted by this broker into another of its log dirs
 * (Kafka's log.dirs). Each broker answers for its own replicas: clients send each broker the
 * partitions to move on it, as Kafka's admin does. Per partition, as Kafka: NONE once the move has
 * begun (or the log is there already), LOG_DIR_NOT_FOUND for a path that is not one of this
 * broker's log dirs (absolute, as the broker reports it), REPLICA_NOT_AVAILABLE for a partition
 * not hosted here (the dir is remembered, and its log is created there when the replica comes),
 * KAFKA_STORAGE_ERROR for a log an I/O error took offline. With an authorizer, as Kafka, it needs
 * ALTER on the cluster: else CLUSTER_AUTHORIZATION_FAILED on every partition.
 *
 * As Kafka moves it: the replica goes on serving while it copies its log into a future log in the
 * new dir (listed by DescribeLogDirs with isFutureKey true meanwhile), and swaps them once the copy
 * has caught up (src/storage/log-dirs.ts), no faster than the broker's dynamic
 * replica.alter.log.dirs.io.max.bytes.per.second allows all its moves together.
 */
import type { BrokerMsg, ReplicaLogDirsAltered } from '../../../actors/broker/messages.js';
import path from 'node:path';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';

export const alterReplicaLogDirs: ApiHandler<typeof ApiKeys.AlterReplicaLogDirs> = async (ctx, _version, body) => {
  const everyPartition = (errorCode: number) => groupByTopic(body.dirs.flatMap((d) => d.topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition, errorCode })))));
  if (!ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME)) return { throttleTimeMs: 0, results: everyPartition(ErrorCode.CLUSTER_AUTHORIZATION_FAILED) };
  const notFound: { topic: string; partition: number; errorCode: number }[] = [];
  const dirs: { logDir: string; topics: { topic: string; partitions: number[] }[] }[] = [];
  for (const d of body.dirs) {
    const topics = d.topics.map((t) => ({ topic: t.name, partitions: [...t.partitions] }));
    // Kafka matches the absolute path the broker reports
    if (!path.isAbsolute(d.path)) for (const t of topics) for (const partition of t.partitions) notFound.push({ topic: t.topic, partition, errorCode: ErrorCode.LOG_DIR_NOT_FOUND });
    else dirs.push({ logDir: d.path, topics });
  }
  if (dirs.length === 0) return { throttleTimeMs: 0, results: groupByTopic(notFound) };
  const r = await ctx.ask<BrokerMsg, ReplicaLogDirsAltered>(ctx.broker, { type: 'AlterReplicaLogDirs', dirs }, ctx.config.requestTimeoutMs);
  if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
    const errorCode = isFailure(r) ? ErrorCode.REQUEST_TIMED_OUT : r.errorCode;
    return { throttleTimeMs: 0, results: everyPartition(errorCode) };
  }
  return { throttleTimeMs: 0, results: groupByTopic([...notFound, ...r.results]) };
};

/** Per-partition results as Kafka's response lists them: by topic, in the order first named. */
function groupByTopic(results: readonly { topic: string; partition: number; errorCode: number }[]): { topicName: string; partitions: { partitionIndex: number; errorCode: number }[] }[] {
  const byTopic = new Map<string, { partitionIndex: number; errorCode: number }[]>();
  for (const r of results) {
    let list = byTopic.get(r.topic);
    if (!list) byTopic.set(r.topic, (list = []));
    list.push({ partitionIndex: r.partition, errorCode: r.errorCode });
  }
  return [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions }));
}
