/**
 * AddRaftVoter (api key 80, v0-v1) and RemoveRaftVoter (81, v0), KIP-853: what the Java admin's
 * addRaftVoter and removeRaftVoter (and `kafka-metadata-quorum.sh add-controller` /
 * `remove-controller`) send; Kafka's broker forwards them to the active controller, as this
 * listener does through its node's controller channel. The controller checks them as Kafka's
 * AddVoterHandler and RemoveVoterHandler do (REQUEST_TIMED_OUT, DUPLICATE_VOTER,
 * VOTER_NOT_FOUND) and answers once the new voter set is committed (AddRaftVoter v1 with
 * AckWhenCommitted false, KIP-1186: once the active controller has written it to its log);
 * INCONSISTENT_CLUSTER_ID for another cluster's id.
 *
 * samsa's controllers are reached by node, not by a controller listener: AddRaftVoter's
 * Listeners are not needed and not checked (the controller to add announced its node when it
 * started observing). The directory id must be the controller's when it is one; Kafka's zero
 * uuid means none given. As Kafka: ALTER on the cluster (else CLUSTER_AUTHORIZATION_FAILED).
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ZERO_UUID } from '../protocol/defaults.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiContext, type ApiHandler } from './context.js';

type Change = Extract<ControllerMsg, { type: 'AddRaftVoter' | 'RemoveRaftVoter' }>;

async function changeVoters(ctx: ApiContext, msg: Change, timeoutMs: number): Promise<{ throttleTimeMs: number; errorCode: number; errorMessage: string | null }> {
  const answer = (errorCode: number, errorMessage: string | null) => ({ throttleTimeMs: 0, errorCode, errorMessage });
  if (!ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME)) return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorInfo(ErrorCode.CLUSTER_AUTHORIZATION_FAILED).message);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, msg, Math.max(ctx.config.requestTimeoutMs, timeoutMs));
  if (!isFailure(r) && (r.type === 'RaftVoterChangeResponse' || r.type === 'NotController')) return answer(r.errorCode, r.errorCode === ErrorCode.NONE ? null : (r.errorMessage ?? null));
  const { errorCode, errorMessage } = unansweredError(r);
  return answer(errorCode, errorMessage);
}

const directoryId = (id: string): string | null => (id === ZERO_UUID ? null : id);

export const addRaftVoter: ApiHandler<typeof ApiKeys.AddRaftVoter> = (ctx, version, body) =>
  changeVoters(
    ctx,
    // before v1 (and by default) the answer waits for the commit
    { type: 'AddRaftVoter', voterId: body.voterId, directoryId: directoryId(body.voterDirectoryId), clusterId: body.clusterId, ackWhenCommitted: version < 1 || body.ackWhenCommitted },
    body.timeoutMs,
  );

export const removeRaftVoter: ApiHandler<typeof ApiKeys.RemoveRaftVoter> = (ctx, _version, body) =>
  changeVoters(ctx, { type: 'RemoveRaftVoter', voterId: body.voterId, directoryId: directoryId(body.voterDirectoryId), clusterId: body.clusterId }, 0);
