/**
 * KIP-932's share group offset APIs, as Kafka 4.2's KafkaApis answers them:
 * DescribeShareGroupOffsets (api key 90, v0-v1; v1 adds each partition's lag),
 * AlterShareGroupOffsets (91, v0) and DeleteShareGroupOffsets (92, v0). The work is the admin's
 * (actors/admin/share-group-offsets.ts), done here through this broker: its group coordinator
 * (NOT_COORDINATOR for a group it does not own, where the group is consulted: an "all topics"
 * describe, an alter, a delete), the share coordinators its FindCoordinator names, every live
 * broker's share partition manager told to forget the partitions changed.
 *
 * With an authorizer, as Kafka:
 *  - DescribeShareGroupOffsets: DESCRIBE on each group (else that group GROUP_AUTHORIZATION_FAILED);
 *    DESCRIBE on each topic named (else its partitions TOPIC_AUTHORIZATION_FAILED, start offset
 *    and lag -1, topic id zero); asked for all topics, those the client may not describe are
 *    left out. A group asked for with an empty topic list answers no topics.
 *  - AlterShareGroupOffsets: READ on the group (else the whole request GROUP_AUTHORIZATION_FAILED);
 *    READ on each topic (else its partitions TOPIC_AUTHORIZATION_FAILED); a topic this broker's
 *    metadata does not have is UNKNOWN_TOPIC_OR_PARTITION.
 *  - DeleteShareGroupOffsets: DELETE on the group (else GROUP_AUTHORIZATION_FAILED); READ on each
 *    topic (else that topic TOPIC_AUTHORIZATION_FAILED).
 * A group-level refusal of AlterShareGroupOffsets or DeleteShareGroupOffsets (NON_EMPTY_GROUP,
 * GROUP_ID_NOT_FOUND, NOT_COORDINATOR...) is the top-level error with no topics, as Kafka's.
 */
import {
  alterShareGroupOffsets as alterOffsets,
  deleteShareGroupOffsets as deleteOffsets,
  describeShareGroupOffsets as describeOffsets,
  type ShareOffsetsEnv,
  type ShareTopicOffsets,
} from '../../../actors/admin/share-group-offsets.js';
import type { CoordinatorMsg } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import type { Failure, Message } from '../../runtime/types.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import type { ApiKeys, ResponseInput } from '../protocol/index.js';
import type { ApiContext, ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

/** The admin's share offsets operations through this broker. */
function shareOffsetsEnv(ctx: ApiContext): ShareOffsetsEnv {
  const timeoutMs = ctx.config.requestTimeoutMs;
  return {
    timeoutMs,
    ask: <R extends Message>(to: Parameters<ShareOffsetsEnv['ask']>[0], msg: Message) => ctx.ask<Message, R>(to, msg, timeoutMs),
    send: (to, msg) => ctx.send(to, msg),
    sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
    metadata: async () => {
      const md = await fetchClusterMetadata(ctx, null);
      return md ?? ({ type: 'Failure', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, reason: 'timeout', message: `broker ${ctx.brokerId} did not give its metadata` } satisfies Failure);
    },
    broker: () => ctx.broker,
    askGroupCoordinator: <R extends Message>(_groupId: string, msg: CoordinatorMsg) => ctx.ask<CoordinatorMsg, R>(ctx.coordinator, msg, timeoutMs),
  };
}

const message = (errorCode: number, errorMessage?: string | null): string | null => (errorCode === ErrorCode.NONE ? null : (errorMessage ?? errorInfo(errorCode).message));

// ---------------------------------------------------------------------------------------------
// DescribeShareGroupOffsets

type ElementOf<A> = NonNullable<A> extends readonly (infer E)[] ? E : never;
type DescribedGroup = ElementOf<ResponseInput<typeof ApiKeys.DescribeShareGroupOffsets>['groups']>;
type DescribedTopic = ElementOf<DescribedGroup['topics']>;

function describedTopic(t: ShareTopicOffsets): DescribedTopic {
  return {
    topicName: t.topic,
    topicId: t.topicId,
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, startOffset: p.startOffset, leaderEpoch: p.leaderEpoch, lag: p.lag, errorCode: p.errorCode, errorMessage: message(p.errorCode, p.errorMessage) })),
  };
}

async function describeGroup(ctx: ApiContext, groupId: string, topics: readonly { topicName: string; partitions: readonly number[] }[] | null): Promise<DescribedGroup> {
  const refused = (errorCode: number, errorMessage?: string | null): DescribedGroup => ({ groupId, topics: [], errorCode, errorMessage: message(errorCode, errorMessage) });
  if (!ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) return refused(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  if (topics === null) {
    const r = await describeOffsets(shareOffsetsEnv(ctx), groupId, null);
    if (r.errorCode !== ErrorCode.NONE) return refused(r.errorCode, r.errorMessage);
    // the topics the client may not describe are left out
    const shown = r.topics.filter((t) => ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic, false));
    return { groupId, topics: shown.map(describedTopic), errorCode: ErrorCode.NONE, errorMessage: null };
  }
  if (topics.length === 0) return { groupId, topics: [], errorCode: ErrorCode.NONE, errorMessage: null };
  const allowed = topics.filter((t) => ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, t.topicName));
  const denied = topics.filter((t) => !allowed.includes(t));
  const r = await describeOffsets(
    shareOffsetsEnv(ctx),
    groupId,
    allowed.map((t) => ({ topic: t.topicName, partitions: [...t.partitions] })),
  );
  if (r.errorCode !== ErrorCode.NONE) return refused(r.errorCode, r.errorMessage);
  const unauthorized = errorInfo(ErrorCode.TOPIC_AUTHORIZATION_FAILED).message;
  return {
    groupId,
    topics: [
      ...r.topics.map(describedTopic),
      ...denied.map((t) => ({
        topicName: t.topicName,
        topicId: ZERO_TOPIC_ID,
        partitions: t.partitions.map((partitionIndex) => ({ partitionIndex, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: unauthorized })),
      })),
    ],
    errorCode: ErrorCode.NONE,
    errorMessage: null,
  };
}

export const describeShareGroupOffsets: ApiHandler<typeof ApiKeys.DescribeShareGroupOffsets> = async (ctx, _version, body) => {
  const groups = await Promise.all(body.groups.map((g) => describeGroup(ctx, g.groupId, g.topics)));
  return { throttleTimeMs: 0, groups };
};

// ---------------------------------------------------------------------------------------------
// AlterShareGroupOffsets

type AlterAnswer = ResponseInput<typeof ApiKeys.AlterShareGroupOffsets>;

export const alterShareGroupOffsets: ApiHandler<typeof ApiKeys.AlterShareGroupOffsets> = async (ctx, _version, body) => {
  const refused = (errorCode: number, errorMessage?: string | null): AlterAnswer => ({ throttleTimeMs: 0, errorCode, errorMessage: message(errorCode, errorMessage), responses: [] });
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return refused(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const md = await fetchClusterMetadata(ctx, null);
  if (!md) return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE, `broker ${ctx.brokerId} did not give its metadata`);
  type Refused = { topic: string; errorCode: number };
  const checked = body.topics.map((t): { topic: (typeof body.topics)[number]; refusal: Refused | null } => {
    if (!ctx.authorize(AclOperation.READ, ResourceType.TOPIC, t.topicName)) return { topic: t, refusal: { topic: t.topicName, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED } };
    if (!md.topics.some((x) => x.name === t.topicName)) return { topic: t, refusal: { topic: t.topicName, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION } };
    return { topic: t, refusal: null };
  });
  const asked = checked.filter((c) => c.refusal === null).map((c) => ({ topic: c.topic.topicName, partitions: c.topic.partitions.map((p) => ({ partition: p.partitionIndex, startOffset: p.startOffset })) }));
  const r = await alterOffsets(shareOffsetsEnv(ctx), body.groupId, asked);
  if (r.errorCode !== ErrorCode.NONE) return refused(r.errorCode, r.errorMessage);
  const altered = [...r.topics];
  const responses = checked.map(({ topic, refusal }) => {
    if (refusal) {
      const errorMessage = message(refusal.errorCode);
      return { topicName: topic.topicName, topicId: ZERO_TOPIC_ID, partitions: topic.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: refusal.errorCode, errorMessage })) };
    }
    const done = altered.shift()!;
    return { topicName: done.topic, topicId: done.topicId, partitions: done.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode, errorMessage: message(p.errorCode, p.errorMessage) })) };
  });
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
};

// ---------------------------------------------------------------------------------------------
// DeleteShareGroupOffsets

type DeleteAnswer = ResponseInput<typeof ApiKeys.DeleteShareGroupOffsets>;

export const deleteShareGroupOffsets: ApiHandler<typeof ApiKeys.DeleteShareGroupOffsets> = async (ctx, _version, body) => {
  const refused = (errorCode: number, errorMessage?: string | null): DeleteAnswer => ({ throttleTimeMs: 0, errorCode, errorMessage: message(errorCode, errorMessage), responses: [] });
  if (!ctx.authorize(AclOperation.DELETE, ResourceType.GROUP, body.groupId)) return refused(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const names = [...new Set(body.topics.map((t) => t.topicName))];
  const allowed = names.filter((t) => ctx.authorize(AclOperation.READ, ResourceType.TOPIC, t));
  const denied = names.filter((t) => !allowed.includes(t));
  const r = await deleteOffsets(shareOffsetsEnv(ctx), body.groupId, allowed);
  if (r.errorCode !== ErrorCode.NONE) return refused(r.errorCode, r.errorMessage);
  const unauthorized = message(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    responses: [
      ...denied.map((topicName) => ({ topicName, topicId: ZERO_TOPIC_ID, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: unauthorized })),
      ...r.topics.map((t) => ({ topicName: t.topic, topicId: t.topicId, errorCode: t.errorCode, errorMessage: message(t.errorCode, t.errorMessage) })),
    ],
  };
};
