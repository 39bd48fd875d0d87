/**
 * InitProducerId (api key 22, v0-v5; v5 only tells the broker that the client knows
 * TRANSACTION_ABORTABLE, KIP-890, which Kafka's transaction coordinator never answers to
 * InitProducerId, nor does samsa's: v5 is answered as v4, PRODUCER_FENCED included). Without a transactional id (an idempotent producer): a new
 * producer id (from this broker's block, allocated by the controller) with epoch 0, as Kafka does
 * whatever producer id and epoch the request names (v3+). A request naming only one of the two
 * (the other -1) is INVALID_REQUEST, as in Kafka. With one (a transactional producer):
 * the broker's transaction coordinator answers, as the coordinator of that id (or
 * NOT_COORDINATOR), with the id's producer id and a bumped epoch that fences older producers
 * (src/kafka/api/transactions.ts). With an authorizer, as Kafka: a transactional id needs WRITE
 * on it (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an idempotent producer needs
 * IDEMPOTENT_WRITE on the cluster or WRITE on some topic (else CLUSTER_AUTHORIZATION_FAILED).
 */
import type { BrokerMsg, InitProducerIdResult } from '../../../actors/broker/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';
import { askTxnCoordinator } from './transactions.js';

export const initProducerId: ApiHandler<typeof ApiKeys.InitProducerId> = async (ctx, version, body) => {
  const refused = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, producerId: -1, producerEpoch: -1 });
  // v3+ may name the producer's id and epoch: both or neither, as Kafka checks (after authorization)
  const halfNamed = (body.producerId === -1) !== (body.producerEpoch === -1);
  if (body.transactionalId !== null) {
    if (!ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactionalId)) return refused(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (halfNamed) return refused(ErrorCode.INVALID_REQUEST);
    const r = await askTxnCoordinator(ctx, {
      type: 'InitProducerId',
      transactionalId: body.transactionalId,
      transactionTimeoutMs: body.transactionTimeoutMs,
      producerId: body.producerId,
      producerEpoch: body.producerEpoch,
      version,
    });
    return { throttleTimeMs: 0, errorCode: r.errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch };
  }
  if (!ctx.authorize(AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME, false) && !ctx.authorizeAny(AclOperation.WRITE, ResourceType.TOPIC)) {
    return refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  }
  if (halfNamed) return refused(ErrorCode.INVALID_REQUEST);
  const r = await ctx.ask<BrokerMsg, InitProducerIdResult>(ctx.broker, { type: 'InitProducerId' }, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  return { throttleTimeMs: 0, errorCode: r.errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch };
};
