/**
 * DescribeLogDirs (api key 35, v0-v4; kafka-log-dirs.sh, the Java admin's describeLogDirs): each
 * of this broker's log dirs (its absolute path, as Kafka names it) with every partition log in it,
 * or those of the partitions asked for (topics null: all; partitions nobody hosts here are left
 * out, and a topic without any), each with its size in bytes, its offset lag (Kafka's for a
 * current replica: max(0, high watermark - log end offset)) and isFutureKey (true for the copy
 * an AlterReplicaLogDirs is making in this dir: its size the bytes copied so far, its lag the
 * bytes still to copy). v3 adds the top-level error code, v4 the volume's total and usable
 * bytes. Each broker answers for itself: clients ask every broker, as Kafka's admin does. With an
 * authorizer, as Kafka, it needs DESCRIBE on the cluster: else no results and (v3+)
 * CLUSTER_AUTHORIZATION_FAILED at the top.
 */
import type { BrokerMsg, LogDirsDescription } from '../../../actors/broker/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';

export const describeLogDirs: ApiHandler<typeof ApiKeys.DescribeLogDirs> = async (ctx, version, body) => {
  if (!ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME)) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
  }
  const topics = body.topics === null ? null : body.topics.map((t) => ({ topic: t.topic, partitions: [...t.partitions] }));
  const r = await ctx.ask<BrokerMsg, LogDirsDescription>(ctx.broker, { type: 'DescribeLogDirs', topics }, ctx.config.requestTimeoutMs);
  if (isFailure(r) || r.errorCode !== ErrorCode.NONE) {
    const { errorCode } = r;
    // v3+ says it at the top, as Kafka does for a request it refuses; before, a result carries it
    return {
      throttleTimeMs: 0,
      errorCode,
      results: version >= 3 ? [] : [{ errorCode, logDir: '', topics: [], totalBytes: -1, usableBytes: -1 }],
    };
  }
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    results: r.logDirs.map((d) => {
      const byTopic = new Map<string, { partitionIndex: number; partitionSize: number; offsetLag: number; isFutureKey: boolean }[]>();
      for (const p of d.partitions) {
        let list = byTopic.get(p.topic);
        if (!list) byTopic.set(p.topic, (list = []));
        list.push({ partitionIndex: p.partition, partitionSize: p.size, offsetLag: p.offsetLag, isFutureKey: p.isFuture });
      }
      return {
        errorCode: d.errorCode,
        logDir: d.logDir,
        topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
        totalBytes: d.totalBytes,
        usableBytes: d.usableBytes,
      };
    }),
  };
};
