/**
 * AlterPartitionReassignments (api key 45, v0) and ListPartitionReassignments (api key 46, v0):
 * KIP-455 partition reassignment (kafka-reassign-partitions.sh, the Java admin's
 * alterPartitionReassignments/listPartitionReassignments, KafkaJS's admin), forwarded to the
 * controller. Alter moves each named partition to its target replicas (null replicas cancels the
 * reassignment in progress) and is answered once the controller has started (or completed) it;
 * List names the reassignments in progress among the partitions asked for (null: all of them).
 * When the controller does not answer, the response is Kafka's error response for the request:
 * the error at the top level and, for Alter, on every partition asked for.
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure, type Failure } from '../../runtime/types.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiHandler } from './context.js';

export const alterPartitionReassignments: ApiHandler<typeof ApiKeys.AlterPartitionReassignments> = async (ctx, _version, body) => {
  const topics = body.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, replicas: p.replicas === null ? null : [...p.replicas] })),
  }));
  const r = await ctx.ask<ControllerMsg, ControllerReply>(
    ctx.controller,
    { type: 'AlterPartitionReassignments', topics },
    Math.max(ctx.config.requestTimeoutMs, body.timeoutMs),
  );
  if (!isFailure(r) && r.type === 'AlterPartitionReassignmentsResponse') {
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage ?? null,
      responses: r.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode, errorMessage: p.errorMessage })),
      })),
    };
  }
  // the controller did not answer: the error at the top level and on every partition asked for
  const { errorCode, errorMessage } = unansweredError(r);
  return {
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    responses: topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode, errorMessage })),
    })),
  };
};

export const listPartitionReassignments: ApiHandler<typeof ApiKeys.ListPartitionReassignments> = async (ctx, _version, body) => {
  const topics = body.topics?.map((t) => ({ name: t.name, partitions: [...t.partitionIndexes] })) ?? null;
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
  // the controller did not answer: the error at the top level, the partitions asked for listed
  // without replicas (Kafka's error response for this request)
  const { errorCode, errorMessage } = unansweredError(r);
  return {
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    topics: (topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partitionIndex) => ({ partitionIndex, replicas: [], addingReplicas: [], removingReplicas: [] })),
    })),
  };
};
