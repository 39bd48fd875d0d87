/**
 * UnregisterBroker (api key 64, v0): what the Java admin's unregisterBroker (and
 * `kafka-cluster.sh unregister --id N`) sends to take a decommissioned broker out of the
 * cluster's registrations. Kafka's broker forwards it to the active controller, as this listener
 * does through its node's controller channel; the controller moves what the broker led, takes it
 * out of every ISR and ELR, then drops its registration (BROKER_ID_NOT_REGISTERED for an id that
 * is not registered). As Kafka: ALTER on the cluster (else CLUSTER_AUTHORIZATION_FAILED).
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiHandler } from './context.js';

export const unregisterBroker: ApiHandler<typeof ApiKeys.UnregisterBroker> = async (ctx, _version, body) => {
  const answer = (errorCode: number, errorMessage: string | null) => ({ throttleTimeMs: 0, errorCode, errorMessage });
  if (!ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME)) return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorInfo(ErrorCode.CLUSTER_AUTHORIZATION_FAILED).message);
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'UnregisterBroker', brokerId: body.brokerId }, ctx.config.requestTimeoutMs);
  if (!isFailure(r) && (r.type === 'UnregisterBrokerResponse' || r.type === 'NotController')) return answer(r.errorCode, r.errorCode === ErrorCode.NONE ? null : (r.errorMessage ?? null));
  const { errorCode, errorMessage } = unansweredError(r);
  return answer(errorCode, errorMessage);
};
