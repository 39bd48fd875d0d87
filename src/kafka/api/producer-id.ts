/**
 * InitProducerId (api key 22, v0-v4) for idempotent producers: a new producer id (from this
 * broker's block, allocated by the controller) with epoch 0. Kafka does the same for a request
 * without a transactional id, whatever producer id and epoch it names (v3+). Transactions do not
 * exist here: a transactional id is refused. With an authorizer, as Kafka: an idempotent producer
 * needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic (else CLUSTER_AUTHORIZATION_FAILED);
 * a transactional id is checked for WRITE first (the refusal is the same code either way).
 */
import type { BrokerMsg, InitProducerIdResult } from '../../../actors/broker/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';

export const initProducerId: ApiHandler<typeof ApiKeys.InitProducerId> = async (ctx, _version, body) => {
  const refused = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, producerId: -1, producerEpoch: -1 });
  if (body.transactionalId !== null) {
    // the check logs a client without WRITE on the id; either way this broker has no transactions
    ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactionalId);
    return refused(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  }
  if (!ctx.authorize(AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME, false) && !ctx.authorizeAny(AclOperation.WRITE, ResourceType.TOPIC)) {
    return refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  }
  const r = await ctx.ask<BrokerMsg, InitProducerIdResult>(ctx.broker, { type: 'InitProducerId' }, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  return { throttleTimeMs: 0, errorCode: r.errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch };
};
