/**
 * DescribeQuorum (api key 55, v0-v2; KIP-595, KIP-836, KIP-853): what the Java admin's
 * describeMetadataQuorum and `kafka-metadata-quorum.sh --bootstrap-server ... describe --status`
 * or `--replication` send a broker, which Kafka's broker forwards to the active controller. Here
 * the broker asks through its node's controller channel, which finds the active controller; that
 * controller answers from its metadata quorum actor, the view samsa's admin
 * describeMetadataQuorum gives. The metadata log is Kafka's __cluster_metadata partition 0:
 *
 * - leader id and leader epoch: the Raft leader and its term;
 * - high watermark: the commit index (-1 while a new leader has not committed an entry of its
 *   term, as Kafka's leader knows none until then); Raft indexes count entries from 1, so the
 *   last committed index is the number of committed entries, as an exclusive offset would be;
 * - each voter (a controller): its log end offset (the last index the leader knows it holds;
 *   -1 for one that has not answered this leader yet, as Kafka's leader reports a voter that has
 *   not fetched), and from v1, on the leader's clock, when it last took an append of the
 *   leader's term (a Kafka follower's fetch) and when it last held all the leader had (Kafka's
 *   rule); the leader itself reports now for both, as Kafka's does;
 * - observers: the controllers outside the voter set the leader replicates to (KIP-853: waiting
 *   to be added, or removed); samsa's brokers are none of them, as they get the metadata from the
 *   controller and do not replicate its log as Kafka's brokers do;
 * - v2: each replica's directory id where known (a controller's metadata dir's; Kafka's zero
 *   uuid for a voter of the topology that has not told it), and no nodes are listed: samsa's
 *   controllers have no Kafka listener to name.
 *
 * As Kafka: DESCRIBE on the cluster (else CLUSTER_AUTHORIZATION_FAILED at the top); anything but
 * exactly __cluster_metadata partition 0 is UNKNOWN_TOPIC_OR_PARTITION on each partition asked;
 * NOT_LEADER_OR_FOLLOWER while no controller leads. A controller that does not answer in time is
 * the failure's code at the top.
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ZERO_UUID } from '../protocol/defaults.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiHandler } from './context.js';

/** Kafka's name for the metadata log, and its one partition. */
export const CLUSTER_METADATA_TOPIC = '__cluster_metadata';
export const CLUSTER_METADATA_PARTITION = 0;

type Quorum = NonNullable<Extract<ControllerReply, { type: 'DescribeQuorumResponse' }>['quorum']>;

/** Kafka's error response for the metadata partition alone (its Errors message as the message). */
function partitionError(errorCode: number) {
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topics: [{ topicName: CLUSTER_METADATA_TOPIC, partitions: [{ partitionIndex: CLUSTER_METADATA_PARTITION, errorCode, errorMessage: errorInfo(errorCode).message }] }],
    nodes: [],
  };
}

function replicaStates(replicas: Quorum['voters'], leaderId: number) {
  return [...replicas]
    .sort((a, b) => a.id - b.id)
    .map((v) => ({
      replicaId: v.id,
      replicaDirectoryId: v.directoryId ?? ZERO_UUID,
      logEndOffset: v.id !== leaderId && v.lastFetchTimestamp < 0 ? -1 : v.logEndIndex,
      lastFetchTimestamp: v.lastFetchTimestamp,
      lastCaughtUpTimestamp: v.lastCaughtUpTimestamp,
    }));
}

export const describeQuorum: ApiHandler<typeof ApiKeys.DescribeQuorum> = async (ctx, _version, body) => {
  if (!ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME)) {
    return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: errorInfo(ErrorCode.CLUSTER_AUTHORIZATION_FAILED).message, topics: [], nodes: [] };
  }
  const only = body.topics.length === 1 ? body.topics[0]! : null;
  if (only?.topicName !== CLUSTER_METADATA_TOPIC || only.partitions.length !== 1 || only.partitions[0]!.partitionIndex !== CLUSTER_METADATA_PARTITION) {
    const { message } = errorInfo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      topics: body.topics.map((t) => ({
        topicName: t.topicName,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: message })),
      })),
      nodes: [],
    };
  }
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'DescribeQuorum' }, ctx.config.requestTimeoutMs);
  // the channel found no active controller in time: an election is on
  if (!isFailure(r) && r.type === 'NotController') return partitionError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  if (isFailure(r) || r.type !== 'DescribeQuorumResponse' || r.errorCode !== ErrorCode.NONE || !r.quorum) {
    const { errorCode, errorMessage } = isFailure(r) || r.type !== 'DescribeQuorumResponse' ? unansweredError(r) : { errorCode: r.errorCode === ErrorCode.NONE ? ErrorCode.UNKNOWN_SERVER_ERROR : r.errorCode, errorMessage: "the controller's quorum did not answer" };
    return { errorCode, errorMessage, topics: [], nodes: [] };
  }
  const q = r.quorum;
  // a controller answers for itself only while no leader is known: then none leads
  if (q.role !== 'Leader' || q.leaderId !== q.voterId) return partitionError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  const leaderId = q.leaderId;
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topics: [
      {
        topicName: CLUSTER_METADATA_TOPIC,
        partitions: [
          {
            partitionIndex: CLUSTER_METADATA_PARTITION,
            errorCode: ErrorCode.NONE,
            errorMessage: null,
            leaderId,
            leaderEpoch: q.term,
            highWatermark: q.highWatermark,
            currentVoters: replicaStates(q.voters, leaderId),
            observers: replicaStates(q.observers, leaderId),
          },
        ],
      },
    ],
    nodes: [],
  };
};
