/**
 * WriteTxnMarkers (27, v0-2): end producers' transactions on partitions this broker leads with a
 * COMMIT or ABORT marker. v2 (KIP-1228) says at which transaction version each was ended: at 2
 * the marker must be above the epoch of the data it ends (a late one is INVALID_PRODUCER_EPOCH). Kafka's transaction coordinators send it to the partition leaders;
 * from a client it is how the Java admin's abortTransaction (`kafka-transactions.sh abort`)
 * ends a hanging transaction no coordinator knows of. Each marker goes to this broker's broker
 * actor (the same WriteTxnMarkers our transaction coordinators send it), which asks each
 * partition's replica: every partition is answered with its replica's error code
 * (NOT_LEADER_OR_FOLLOWER where this broker does not lead it, UNKNOWN_TOPIC_OR_PARTITION for a
 * topic it does not know, INVALID_PRODUCER_EPOCH / TRANSACTION_COORDINATOR_FENCED for a stale
 * marker), in request order, once its marker is in the ISR. As Kafka: ALTER or CLUSTER_ACTION
 * on the cluster, else CLUSTER_AUTHORIZATION_FAILED on every partition and nothing written.
 */
import type { BrokerMsg, TxnMarkerEntry, WriteTxnMarkersResponse } from '../../../actors/broker/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';

export const writeTxnMarkers: ApiHandler<typeof ApiKeys.WriteTxnMarkers> = async (ctx, _version, body) => {
  const answer = (codeOf: (marker: number, topic: number, partition: number) => number) => ({
    markers: body.markers.map((mk, m) => ({
      producerId: mk.producerId,
      topics: mk.topics.map((t, i) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex, j) => ({ partitionIndex, errorCode: codeOf(m, i, j) })) })),
    })),
  });
  // Kafka asks for ALTER first (quietly: an admin's abortTransaction), then CLUSTER_ACTION (a broker's)
  const authorized = ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME, false) || ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME);
  if (!authorized) return answer(() => ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  if (body.markers.length === 0) return { markers: [] };
  const markers: TxnMarkerEntry[] = body.markers.map((mk) => ({
    producerId: mk.producerId,
    producerEpoch: mk.producerEpoch,
    coordinatorEpoch: mk.coordinatorEpoch,
    commit: mk.transactionResult,
    topics: mk.topics.map((t) => ({ name: t.name, partitions: [...t.partitionIndexes] })),
    transactionVersion: mk.transactionVersion,
  }));
  const timeoutMs = ctx.config.requestTimeoutMs;
  // the broker answers once every marker is in its ISR or refused (its replicas are asked for timeoutMs + 5 s)
  const r = await ctx.ask<BrokerMsg, WriteTxnMarkersResponse>(ctx.broker, { type: 'WriteTxnMarkers', markers, timeoutMs }, timeoutMs + 10_000);
  if (isFailure(r)) return answer(() => r.errorCode);
  // the broker's answer has the request's shape: marker, topic and partition by position
  return answer((m, i, j) => r.markers[m]?.topics[i]?.partitions[j]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR);
};
