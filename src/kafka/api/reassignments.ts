/**
 * AlterPartitionReassignments (api key 45, v0-v1) and ListPartitionReassignments (api key 46, v0):
 * KIP-455 partition reassignment (kafka-reassign-partitions.sh, the Java admin's
 * alterPartitionReassignments/listPartitionReassignments, KafkaJS's admin), forwarded to the
 * controller. Alter moves each named partition to its target replicas (null replicas cancels the
 * reassignment in progress) and is answered once the controller has started (or completed) it;
 * List names the reassignments in progress among the partitions asked for (null: all of them).
 * Alter v1 (KIP-860, `kafka-reassign-partitions.sh --disallow-replication-factor-change`):
 * AllowReplicationFactorChange false refuses, INVALID_REPLICATION_FACTOR, each partition whose
 * target would change its replication factor (counted as Kafka's controller counts it: during a
 * reassignment, the replicas it is headed for); cancellations and the other partitions go ahead.
 * The response echoes the flag (v0 cannot ask: always allowed).
 * When the controller does not answer, the response is Kafka's error response for the request:
 * the error at the top level and, for Alter, on every partition asked for. With an authorizer, as
 * Kafka, Alter needs ALTER on the cluster and List DESCRIBE (else that same error response with
 * CLUSTER_AUTHORIZATION_FAILED, the controller not asked).
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure, type Failure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiHandler } from './context.js';

export const alterPartitionReassignments: ApiHandler<typeof ApiKeys.AlterPartitionReassignments> = async (ctx, version, body) => {
  const topics = body.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, replicas: p.replicas === null ? null : [...p.replicas] })),
  }));
  const allowReplicationFactorChange = version >= 1 ? body.allowReplicationFactorChange : true;
  if (!ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME)) return alterFailed(topics, allowReplicationFactorChange, CLUSTER_DENIED);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(
    ctx.controller,
    { type: 'AlterPartitionReassignments', topics, allowReplicationFactorChange },
    Math.max(ctx.config.requestTimeoutMs, body.timeoutMs),
  );
  if (!isFailure(r) && r.type === 'AlterPartitionReassignmentsResponse') {
    return {
      throttleTimeMs: 0,
      allowReplicationFactorChange,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage ?? null,
      responses: r.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode, errorMessage: p.errorMessage })),
      })),
    };
  }
  // the controller did not answer
  return alterFailed(topics, allowReplicationFactorChange, unansweredError(r));
};

const CLUSTER_DENIED = { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };

/** Kafka's error response for Alter: the error at the top level and on every partition asked for. */
function alterFailed(topics: { name: string; partitions: { partition: number }[] }[], allowReplicationFactorChange: boolean, { errorCode, errorMessage }: { errorCode: number; errorMessage: string }) {
  return {
    throttleTimeMs: 0,
    allowReplicationFactorChange,
    errorCode,
    errorMessage,
    responses: topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode, errorMessage })),
    })),
  };
}

export const listPartitionReassignments: ApiHandler<typeof ApiKeys.ListPartitionReassignments> = async (ctx, _version, body) => {
  const topics = body.topics?.map((t) => ({ name: t.name, partitions: [...t.partitionIndexes] })) ?? null;
  if (!ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME)) return listFailed(topics, CLUSTER_DENIED);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(
    ctx.controller,
    { type: 'ListPartitionReassignments', topics },
    Math.max(ctx.config.requestTimeoutMs, body.timeoutMs),
  );
  if (!isFailure(r) && r.type === 'ListPartitionReassignmentsResponse') {
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage ?? null,
      topics: r.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partition,
          replicas: p.replicas,
          addingReplicas: p.addingReplicas,
          removingReplicas: p.removingReplicas,
        })),
      })),
    };
  }
  // the controller did not answer
  return listFailed(topics, unansweredError(r));
};

/** Kafka's error response for List: the error at the top level, the partitions asked for listed without replicas. */
function listFailed(topics: { name: string; partitions: number[] }[] | null, { errorCode, errorMessage }: { errorCode: number; errorMessage: string }) {
  return {
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    topics: (topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partitionIndex) => ({ partitionIndex, replicas: [], addingReplicas: [], removingReplicas: [] })),
    })),
  };
}
