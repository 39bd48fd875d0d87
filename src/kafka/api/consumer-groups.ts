/**
 * KIP-848's consumer group APIs (Kafka 4.0's group.protocol=consumer): ConsumerGroupHeartbeat
 * (api key 68, v0-v1; v1 adds SubscribedTopicRegex, a member subscribing with a regular
 * expression the coordinator resolves) and ConsumerGroupDescribe (69, v0-v1, with each member's
 * expression; v1, KIP-1099: each member's type, 1 for a member of the consumer protocol, 0 for a
 * classic member of the group, JoinGroup / SyncGroup), answered by this broker's group
 * coordinator (NOT_COORDINATOR for a group it does not own). The coordinator makes a joining member's id when it sends an empty one with epoch 0
 * (Kafka 4.0's Java consumer makes its own), computes the target assignment with its server
 * assignor ("uniform", the default, or "range") and hands each member its partitions by topic id
 * as its previous owners revoke them.
 *
 * With an authorizer, as Kafka's KafkaApis: ConsumerGroupHeartbeat needs READ on the group
 * (GROUP_AUTHORIZATION_FAILED) and DESCRIBE on every topic it names (TOPIC_AUTHORIZATION_FAILED,
 * as Kafka 4.0), and the coordinator resolves a group's regular expressions to
 * the topics the member whose heartbeat resolves them may DESCRIBE (it asks this listener);
 * ConsumerGroupDescribe needs DESCRIBE on each group (the refused ones answered first,
 * GROUP_AUTHORIZATION_FAILED, then the others as the coordinator tells) and, as Kafka 4.0, on
 * every topic a described group's members subscribe to or are assigned (TOPIC_AUTHORIZATION_FAILED
 * for the group otherwise).
 */
import type {
  ConsumerGroupDescribeResponse,
  ConsumerGroupHeartbeatResponse,
  CoordinatorMsg,
} from '../../../actors/group-coordinator/messages.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys, type ResponseInput } from '../protocol/index.js';
import { groupAuthorizedOperations, OPERATIONS_NOT_REQUESTED } from './authorized-operations.js';
import type { ApiHandler } from './context.js';

function heartbeatError(errorCode: number, errorMessage: string | null) {
  return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
}

export const consumerGroupHeartbeat: ApiHandler<typeof ApiKeys.ConsumerGroupHeartbeat> = async (ctx, _version, body) => {
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return heartbeatError(ErrorCode.GROUP_AUTHORIZATION_FAILED, errorInfo(ErrorCode.GROUP_AUTHORIZATION_FAILED).message);
  // as Kafka 4.0: a client may not subscribe to topics it may not see (DESCRIBE on each named)
  const names = body.subscribedTopicNames ?? [];
  const hidden = [...new Set(names)].filter((t) => !ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, t));
  if (hidden.length > 0) return heartbeatError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, `not authorized to describe ${hidden.sort().join(', ')}`);
  const r = await ctx.ask<CoordinatorMsg, ConsumerGroupHeartbeatResponse>(
    ctx.coordinator,
    {
      type: 'ConsumerGroupHeartbeat',
      groupId: body.groupId,
      memberId: body.memberId,
      memberEpoch: body.memberEpoch,
      instanceId: body.instanceId ?? null,
      rackId: body.rackId ?? null,
      rebalanceTimeoutMs: body.rebalanceTimeoutMs,
      subscribedTopicNames: body.subscribedTopicNames ?? null,
      // a v0 request has no such field: null, unchanged
      subscribedTopicRegex: body.subscribedTopicRegex ?? null,
      serverAssignor: body.serverAssignor ?? null,
      topicPartitions: body.topicPartitions === null ? null : body.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: t.partitions })),
      clientId: ctx.clientId ?? '',
      clientHost: ctx.clientHost,
      topicAuthorizer: ctx.authorizerEnabled ? { listener: ctx.listener, principal: ctx.principal, host: ctx.aclHost } : null,
    },
    ctx.config.requestTimeoutMs,
  );
  if (isFailure(r)) return heartbeatError(r.errorCode, r.message);
  if (r.errorCode !== ErrorCode.NONE) return heartbeatError(r.errorCode, r.errorMessage ?? errorInfo(r.errorCode).message);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: r.memberId,
    memberEpoch: r.memberEpoch,
    heartbeatIntervalMs: r.heartbeatIntervalMs,
    assignment: r.assignment === null ? null : { topicPartitions: r.assignment.map((t) => ({ topicId: t.topicId, partitions: t.partitions })) },
  };
};

/** ConsumerGroupDescribe v1's MemberType (KIP-1099): 0 a classic member, 1 a consumer-protocol one (-1, unknown, is never answered). */
const MEMBER_TYPES = { classic: 0, consumer: 1 } as const;

export const consumerGroupDescribe: ApiHandler<typeof ApiKeys.ConsumerGroupDescribe> = async (ctx, _version, body) => {
  type Described = NonNullable<ResponseInput<typeof ApiKeys.ConsumerGroupDescribe>['groups']> extends readonly (infer E)[] ? E : never;
  const empty = (groupId: string, errorCode: number, errorMessage: string | null): Described => ({
    errorCode,
    errorMessage,
    groupId,
    groupState: '',
    groupEpoch: 0,
    assignmentEpoch: 0,
    assignorName: '',
    members: [],
    authorizedOperations: OPERATIONS_NOT_REQUESTED,
  });
  const refused = body.groupIds.filter((g) => !ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, g));
  const asked = body.groupIds.filter((g) => !refused.includes(g));
  const out: Described[] = refused.map((g) => empty(g, ErrorCode.GROUP_AUTHORIZATION_FAILED, null));
  if (asked.length === 0) return { throttleTimeMs: 0, groups: out };
  const r = await ctx.ask<CoordinatorMsg, ConsumerGroupDescribeResponse>(ctx.coordinator, { type: 'ConsumerGroupDescribe', groups: asked }, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return { throttleTimeMs: 0, groups: [...out, ...asked.map((g) => empty(g, r.errorCode, r.message))] };
  for (const g of r.groups) {
    if (g.errorCode !== ErrorCode.NONE) {
      out.push(empty(g.groupId, g.errorCode, g.errorMessage));
      continue;
    }
    // as Kafka 4.0: a group is described only to a client that may see every topic it uses
    const used = new Set(g.members.flatMap((m) => [...m.subscribedTopicNames, ...m.assignment.map((t) => t.topicName), ...m.targetAssignment.map((t) => t.topicName)]));
    if ([...used].some((t) => !ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, t, false))) {
      out.push(empty(g.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The described group uses topics that the client is not authorized to describe.'));
      continue;
    }
    const assignment = (a: { topicId: string; topicName: string; partitions: number[] }[]) => ({ topicPartitions: a.map((t) => ({ topicId: t.topicId, topicName: t.topicName, partitions: t.partitions })) });
    out.push({
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      groupId: g.groupId,
      groupState: g.groupState,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.assignmentEpoch,
      assignorName: g.assignorName,
      authorizedOperations: body.includeAuthorizedOperations ? groupAuthorizedOperations(ctx, g.groupId) : OPERATIONS_NOT_REQUESTED,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        subscribedTopicRegex: m.subscribedTopicRegex,
        assignment: assignment(m.assignment),
        targetAssignment: assignment(m.targetAssignment),
        // v1 (KIP-1099); v0 has no such field
        memberType: MEMBER_TYPES[m.memberType],
      })),
    });
  }
  return { throttleTimeMs: 0, groups: out };
};
