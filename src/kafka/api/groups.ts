/**
 * The group APIs: FindCoordinator (10, v0-v6), JoinGroup (11, v0-v9), Heartbeat (12, v0-v4),
 * LeaveGroup (13, v0-v5), SyncGroup (14, v0-v5), DescribeGroups (15, v0-v6), ListGroups (16,
 * v0-v5), DeleteGroups (42, v0-v2), OffsetDelete (47, v0). FindCoordinator asks the broker which
 * broker leads the group's __consumer_offsets partition (key type 0), or the transactional id's
 * __transaction_state partition (key type 1), and answers with that broker's Kafka listener; v5
 * only admits TRANSACTION_ABORTABLE, which no coordinator lookup answers; v6's share-state key
 * type 2 needs CLUSTER_ACTION and is INVALID_REQUEST, as on a Kafka broker without a share
 * coordinator (samsa has no share groups). The others go to this broker's group coordinator,
 * which answers NOT_COORDINATOR for a group it does not own. JoinGroup v4+ asks the coordinator
 * to require a known member id (the first join gets MEMBER_ID_REQUIRED), as Kafka; v8+ and
 * LeaveGroup v5 carry the client's reason (KIP-800), which the coordinator logs with the
 * rebalance or removal it causes; v9 (KIP-814) lets a static leader that rejoins a stable group
 * under a new member id learn it leads, with the members, and to skip the assignment (older
 * versions are told the old leader id, so they do not assign). ListGroups v5 (KIP-848) filters
 * by type and names each group's: "classic" (JoinGroup / SyncGroup) or "consumer" (KIP-848's
 * ConsumerGroupHeartbeat, consumer-groups.ts); a type Kafka does not know lists none.
 * DescribeGroups describes a consumer group as Kafka 4.0 does: it is no classic group, so Dead
 * with no members, and from v6 (KIP-1043) GROUP_ID_NOT_FOUND, as is a group that does not exist;
 * DeleteGroups deletes an empty consumer group with its offsets.
 *
 * With an authorizer, as Kafka: FindCoordinator needs DESCRIBE on the group (or on the
 * transactional id), JoinGroup, SyncGroup, Heartbeat and LeaveGroup READ on the group,
 * DescribeGroups DESCRIBE on each group, DeleteGroups DELETE on each, OffsetDelete DELETE on the
 * group and READ on each topic; a refusal is GROUP_AUTHORIZATION_FAILED (TOPIC_ / TRANSACTIONAL_ID_
 * for those resources). ListGroups lists every group to a client that may DESCRIBE the cluster,
 * else only the groups it may DESCRIBE.
 */
import type { CoordinatorMsg } from '../../../actors/group-coordinator/messages.js';
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { FindCoordinatorResponse as SamsaFindCoordinatorResponse } from '../../../actors/group-coordinator/messages.js';
import type {
  DeleteGroupsResponse,
  DescribeGroupsResponse,
  JoinGroupResponse,
  ListGroupsResponse,
  OffsetDeleteResponse,
  LeaveGroupResponse,
  SimpleResponse,
  SyncGroupResponse,
} from '../../../actors/group-coordinator/messages.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { deniedNames, groupAuthorizedOperations, OPERATIONS_NOT_REQUESTED } from './authorized-operations.js';
import type { ApiContext, ApiHandler } from './context.js';
import { fetchClusterMetadata, kafkaBrokers } from './metadata.js';

/** Joins and syncs wait for the whole group; the coordinator's own deadlines end them. */
const REBALANCE_ASK_MARGIN_MS = 10_000;
const SYNC_ASK_TIMEOUT_MS = 5 * 60_000;

interface CoordinatorAnswer {
  key: string;
  nodeId: number;
  host: string;
  port: number;
  errorCode: number;
  errorMessage: string | null;
}

/** FindCoordinator's key type of a share group's state (KIP-932, v6+). */
const SHARE_KEY_TYPE = 2;
const KEY_TYPES = ['group', 'transaction', 'share'] as const;

/** One key's coordinator; a share key (v6+ only) has had its CLUSTER_ACTION checked by the caller. */
async function findOne(ctx: ApiContext, key: string, keyType: number, share = false): Promise<CoordinatorAnswer> {
  const none = (errorCode: number, errorMessage: string): CoordinatorAnswer => ({ key, nodeId: -1, host: '', port: -1, errorCode, errorMessage });
  if (keyType === 0 && !ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, key)) return none(ErrorCode.GROUP_AUTHORIZATION_FAILED, 'Group authorization failed.');
  if (keyType === 1 && !ctx.authorize(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key)) return none(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, 'Transactional Id authorization failed.');
  const type = keyType === SHARE_KEY_TYPE && !share ? undefined : KEY_TYPES[keyType];
  if (type === undefined) return none(ErrorCode.INVALID_REQUEST, `unknown coordinator key type ${keyType}`);
  const r = await ctx.ask<BrokerMsg, SamsaFindCoordinatorResponse>(ctx.broker, { type: 'FindCoordinator', key, keyType: type }, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return none(ErrorCode.COORDINATOR_NOT_AVAILABLE, r.message);
  if (r.errorCode !== ErrorCode.NONE) return none(r.errorCode, r.errorMessage ?? '');
  const md = await fetchClusterMetadata(ctx, []);
  const b = md ? kafkaBrokers(md).find((x) => x.brokerId === r.brokerId) : undefined;
  if (!b) return none(ErrorCode.COORDINATOR_NOT_AVAILABLE, `broker ${r.brokerId} is the coordinator but has no Kafka listener up`);
  return { key, nodeId: b.brokerId, host: b.host, port: b.port, errorCode: ErrorCode.NONE, errorMessage: null };
}

export const findCoordinator: ApiHandler<typeof ApiKeys.FindCoordinator> = async (ctx, version, body) => {
  const keyType = (body.keyType as number | undefined) ?? 0;
  if (version >= 6 && keyType === SHARE_KEY_TYPE) {
    // as Kafka's KafkaApis: a share-state key ("groupId:topicId:partition") needs CLUSTER_ACTION
    // (else every key is refused); each is answered with the leader of its __share_group_state
    // partition (created on first need), a malformed key with INVALID_REQUEST
    const keys = body.coordinatorKeys as string[];
    if (!ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME)) {
      return { throttleTimeMs: 0, coordinators: keys.map((key) => ({ key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' })) };
    }
    return { throttleTimeMs: 0, coordinators: await Promise.all(keys.map((k) => findOne(ctx, k, SHARE_KEY_TYPE, true))) };
  }
  if (version >= 4) {
    const coordinators = await Promise.all((body.coordinatorKeys as string[]).map((k) => findOne(ctx, k, keyType)));
    return { throttleTimeMs: 0, coordinators };
  }
  const a = await findOne(ctx, body.key as string, keyType);
  return { throttleTimeMs: 0, errorCode: a.errorCode, errorMessage: a.errorMessage, nodeId: a.nodeId, host: a.host, port: a.port };
};

export const joinGroup: ApiHandler<typeof ApiKeys.JoinGroup> = async (ctx, version, body) => {
  const sessionTimeoutMs = body.sessionTimeoutMs as number;
  const rebalanceTimeoutMs = version >= 1 && (body.rebalanceTimeoutMs as number) >= 0 ? (body.rebalanceTimeoutMs as number) : sessionTimeoutMs;
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, generationId: -1, protocolType: null, protocolName: version >= 7 ? null : '', leader: '', memberId: '', members: [] };
  }
  const r = await ctx.ask<CoordinatorMsg, JoinGroupResponse>(
    ctx.coordinator,
    {
      type: 'JoinGroup',
      groupId: body.groupId,
      sessionTimeoutMs,
      rebalanceTimeoutMs,
      memberId: body.memberId,
      groupInstanceId: body.groupInstanceId ?? null,
      protocolType: body.protocolType,
      protocols: (body.protocols as { name: string; metadata: Buffer }[]).map((p) => ({ name: p.name, metadata: p.metadata })),
      clientId: ctx.clientId ?? '',
      clientHost: ctx.clientHost,
      requireKnownMemberId: version >= 4,
      reason: version >= 8 ? (body.reason ?? null) : null,
      supportsSkippingAssignment: version >= 9,
    },
    Math.max(rebalanceTimeoutMs, sessionTimeoutMs) + REBALANCE_ASK_MARGIN_MS,
  );
  if (isFailure(r)) return { throttleTimeMs: 0, errorCode: r.errorCode, generationId: -1, protocolType: null, protocolName: version >= 7 ? null : '', leader: '', memberId: body.memberId, members: [] };
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    generationId: r.generationId,
    protocolType: r.protocolType,
    protocolName: version >= 7 ? r.protocolName : (r.protocolName ?? ''),
    leader: r.leader,
    skipAssignment: version >= 9 && r.skipAssignment === true,
    memberId: r.memberId,
    members: r.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata })),
  };
};

export const syncGroup: ApiHandler<typeof ApiKeys.SyncGroup> = async (ctx, _version, body) => {
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
  }
  const r = await ctx.ask<CoordinatorMsg, SyncGroupResponse>(
    ctx.coordinator,
    {
      type: 'SyncGroup',
      groupId: body.groupId,
      generationId: body.generationId,
      memberId: body.memberId,
      groupInstanceId: body.groupInstanceId ?? null,
      protocolType: body.protocolType ?? null,
      protocolName: body.protocolName ?? null,
      assignments: (body.assignments as { memberId: string; assignment: Buffer }[]).map((a) => ({ memberId: a.memberId, assignment: a.assignment })),
    },
    SYNC_ASK_TIMEOUT_MS,
  );
  if (isFailure(r)) return { throttleTimeMs: 0, errorCode: r.errorCode, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
  return { throttleTimeMs: 0, errorCode: r.errorCode, protocolType: r.protocolType, protocolName: r.protocolName, assignment: r.assignment };
};

export const heartbeat: ApiHandler<typeof ApiKeys.Heartbeat> = async (ctx, _version, body) => {
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
  const r = await ctx.ask<CoordinatorMsg, SimpleResponse>(
    ctx.coordinator,
    { type: 'Heartbeat', groupId: body.groupId, generationId: body.generationId, memberId: body.memberId, groupInstanceId: body.groupInstanceId ?? null },
    ctx.config.requestTimeoutMs,
  );
  return { throttleTimeMs: 0, errorCode: r.errorCode };
};

export const leaveGroup: ApiHandler<typeof ApiKeys.LeaveGroup> = async (ctx, version, body) => {
  if (!ctx.authorize(AclOperation.READ, ResourceType.GROUP, body.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] };
  const members: { memberId: string; groupInstanceId: string | null; reason: string | null }[] =
    version >= 3
      ? (body.members as { memberId: string; groupInstanceId: string | null; reason?: string | null }[]).map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null, reason: m.reason ?? null }))
      : [{ memberId: body.memberId as string, groupInstanceId: null, reason: null }];
  const r = await ctx.ask<CoordinatorMsg, LeaveGroupResponse>(ctx.coordinator, { type: 'LeaveGroup', groupId: body.groupId, members }, ctx.config.requestTimeoutMs);
  // a group-level error (NOT_COORDINATOR, ...) is the top-level code; with the group's members
  // looked at, v3+ tells each member's own (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID), v0-2 its one member's
  const perMember = !isFailure(r) && r.memberErrors?.length === members.length ? r.memberErrors : null;
  if (version < 3 || perMember === null) return { throttleTimeMs: 0, errorCode: r.errorCode, members: [] };
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    members: members.map((m, i) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode: perMember[i]! })),
  };
};

/**
 * DescribeGroups (api key 15, v0-v6). The coordinator answers as Kafka 4.0's: a group that does
 * not exist, or is a consumer group (not a classic one), is GROUP_ID_NOT_FOUND, Dead, with
 * Kafka's message. v6 (KIP-1043) says so, and carries a message with every error; v0-v5 answer
 * such a group Dead with no error, as before.
 */
export const describeGroups: ApiHandler<typeof ApiKeys.DescribeGroups> = async (ctx, version, body) => {
  const withOperations = version >= 3 && body.includeAuthorizedOperations === true;
  const ids = body.groups as string[];
  const denied = deniedNames(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, ids, (g) => g);
  const asked = denied === null ? ids : ids.filter((g) => !denied.has(g));
  const r =
    asked.length === 0 && denied !== null
      ? ({ type: 'DescribeGroupsResponse', errorCode: ErrorCode.NONE, groups: [] } satisfies DescribeGroupsResponse)
      : await ctx.ask<CoordinatorMsg, DescribeGroupsResponse>(ctx.coordinator, { type: 'DescribeGroups', groups: asked }, ctx.config.requestTimeoutMs);
  const described = new Map(isFailure(r) ? [] : r.groups.map((g) => [g.groupId, g]));
  // v6: Kafka's message with each error (the coordinator's own, else the error's); older versions have no such field
  const message = (errorCode: number, known: string | null): string | null => (errorCode === ErrorCode.NONE ? null : (known ?? errorInfo(errorCode).message));
  const failed = (groupId: string, errorCode: number, known: string | null) => ({ errorCode, errorMessage: message(errorCode, known), groupId, groupState: '', protocolType: '', protocolData: '', members: [] });
  return {
    throttleTimeMs: 0,
    groups: ids.map((groupId) => {
      if (denied?.has(groupId)) return failed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED, null);
      const g = described.get(groupId);
      // (an unanswered ask's own text names actors, not for clients: the error's message instead)
      if (!g) return failed(groupId, isFailure(r) ? r.errorCode : r.errorCode || ErrorCode.UNKNOWN_SERVER_ERROR, null);
      const notFoundBeforeV6 = version < 6 && g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND;
      const errorCode = notFoundBeforeV6 ? ErrorCode.NONE : g.errorCode;
      return {
        errorCode,
        errorMessage: message(errorCode, g.errorMessage),
        groupId,
        // as Kafka: a described group's operations, none with an error
        authorizedOperations: withOperations && errorCode === ErrorCode.NONE ? groupAuthorizedOperations(ctx, groupId) : OPERATIONS_NOT_REQUESTED,
        groupState: g.state,
        protocolType: g.protocolType,
        protocolData: g.protocolName,
        members: g.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: m.metadata,
          memberAssignment: m.assignment,
        })),
      };
    }),
  };
};

/**
 * ListGroups v5's TypesFilter (KIP-848), as Kafka's GroupMetadataManager.listGroups: each name is
 * parsed without regard to case ('Classic' is classic; a name Kafka does not know is its
 * "unknown" type, which no group has); an empty filter lists every type.
 */
function typesAdmit(typesFilter: readonly string[], groupType: string): boolean {
  return typesFilter.length === 0 || typesFilter.some((t) => t.toLowerCase() === groupType);
}

export const listGroups: ApiHandler<typeof ApiKeys.ListGroups> = async (ctx, version, body) => {
  const statesFilter = version >= 4 ? ((body.statesFilter as string[]) ?? []) : [];
  const typesFilter = version >= 5 ? ((body.typesFilter as string[]) ?? []) : [];
  const r = await ctx.ask<CoordinatorMsg, ListGroupsResponse>(ctx.coordinator, { type: 'ListGroups', statesFilter, typesFilter }, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return { throttleTimeMs: 0, errorCode: r.errorCode, groups: [] };
  // the coordinator filters by type too; the filter here keeps Kafka's reading of a name (no trimming).
  // The coordinator's error (groups still loading) stands whatever the type filter, as in Kafka
  const typed = r.groups.filter((g) => typesAdmit(typesFilter, g.groupType));
  // as Kafka: every group to a client that may describe the cluster, else those it may describe
  const all = ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME, false);
  const shown = all ? typed : typed.filter((g) => ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId, false));
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    groups: shown.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.state, groupType: g.groupType })),
  };
};

/** DeleteGroups (api key 42, v0-v2): empty groups go with their offsets; others get NON_EMPTY_GROUP. */
export const deleteGroups: ApiHandler<typeof ApiKeys.DeleteGroups> = async (ctx, _version, body) => {
  const ids = body.groupsNames;
  const denied = deniedNames(ctx, AclOperation.DELETE, ResourceType.GROUP, ids, (g) => g);
  const asked = denied === null ? ids : ids.filter((g) => !denied.has(g));
  const r =
    asked.length === 0 && denied !== null
      ? ({ type: 'DeleteGroupsResponse', errorCode: ErrorCode.NONE, groups: [] } satisfies DeleteGroupsResponse)
      : await ctx.ask<CoordinatorMsg, DeleteGroupsResponse>(ctx.coordinator, { type: 'DeleteGroups', groups: asked }, ctx.config.requestTimeoutMs);
  const codes = new Map(isFailure(r) ? [] : r.groups.map((g) => [g.groupId, g.errorCode]));
  const whole = isFailure(r) ? r.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
  return { throttleTimeMs: 0, results: ids.map((groupId) => ({ groupId, errorCode: denied?.has(groupId) ? ErrorCode.GROUP_AUTHORIZATION_FAILED : (codes.get(groupId) ?? whole) })) };
};

/** OffsetDelete (api key 47, v0): drops committed offsets of partitions the group no longer consumes. */
export const offsetDelete: ApiHandler<typeof ApiKeys.OffsetDelete> = async (ctx, _version, body) => {
  if (!ctx.authorize(AclOperation.DELETE, ResourceType.GROUP, body.groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, throttleTimeMs: 0, topics: [] };
  const denied = deniedNames(ctx, AclOperation.READ, ResourceType.TOPIC, body.topics, (t) => t.name);
  const allowed = denied === null ? body.topics : body.topics.filter((t) => !denied.has(t.name));
  const topics = allowed.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) }));
  const r = await ctx.ask<CoordinatorMsg, OffsetDeleteResponse>(ctx.coordinator, { type: 'OffsetDelete', groupId: body.groupId, topics }, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return { errorCode: r.errorCode, throttleTimeMs: 0, topics: [] };
  const answered = r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: p.errorCode })) }));
  if (denied !== null) {
    for (const t of body.topics) {
      if (denied.has(t.name)) answered.push({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) });
    }
  }
  return { errorCode: r.errorCode, throttleTimeMs: 0, topics: answered };
};
