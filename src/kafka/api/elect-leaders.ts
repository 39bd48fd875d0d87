/**
 * ElectLeaders (api key 43, v0-v2; kafka-leader-election.sh, the Java admin's electLeaders),
 * forwarded to the controller: election type 0 (PREFERRED; v0 has no type and means it) moves
 * each partition to its preferred replica, 1 (UNCLEAN) elects a leader for a partition without
 * one. Null partitions means every partition, answered only where an election was needed. The
 * answer comes once the controller has committed the new leaders; brokers take them up from the
 * LeaderAndIsr and metadata that follow, as in Kafka. With an authorizer, as Kafka, it needs ALTER
 * on the cluster: else CLUSTER_AUTHORIZATION_FAILED at the top and on every partition asked for,
 * and the controller is not asked.
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiHandler } from './context.js';

export const electLeaders: ApiHandler<typeof ApiKeys.ElectLeaders> = async (ctx, version, body) => {
  const asked = body.topicPartitions?.map((t) => ({ topic: t.topic, partitions: [...t.partitions] })) ?? null;
  if (!ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME)) return failed(asked, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(
    ctx.controller,
    { type: 'ElectLeaders', electionType: version >= 1 ? body.electionType : 0, topicPartitions: asked },
    Math.max(ctx.config.requestTimeoutMs, body.timeoutMs),
  );
  if (!isFailure(r) && r.type === 'ElectLeadersResponse') {
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      replicaElectionResults: r.results.map((t) => ({
        topic: t.topic,
        partitionResult: t.partitions.map((p) => ({ partitionId: p.partition, errorCode: p.errorCode, errorMessage: p.errorMessage })),
      })),
    };
  }
  // the controller did not answer: every partition asked for carries the error
  const { errorCode, errorMessage } = unansweredError(r);
  return failed(asked, errorCode, errorMessage);
};

/** Kafka's error response: the error at the top (v0 has no top-level code) and on every partition asked for. */
function failed(asked: { topic: string; partitions: number[] }[] | null, errorCode: number, errorMessage: string | null) {
  return {
    throttleTimeMs: 0,
    errorCode,
    replicaElectionResults: (asked ?? []).map((t) => ({ topic: t.topic, partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode, errorMessage })) })),
  };
}
