/**
 * InitProducerId (api key 22, v0-v4) for idempotent producers: a new producer id (from this
 * broker's block, allocated by the controller) with epoch 0. Kafka does the same for a request
 * without a transactional id, whatever producer id and epoch it names (v3+). Transactions do not
 * exist here: a transactional id is refused.
 */
import type { BrokerMsg, InitProducerIdResult } from '../../../actors/broker/messages.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isFailure } from '../../runtime/types.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';

export const initProducerId: ApiHandler<typeof ApiKeys.InitProducerId> = async (ctx, _version, body) => {
  if (body.transactionalId !== null) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1, producerEpoch: -1 };
  }
  const r = await ctx.ask<BrokerMsg, InitProducerIdResult>(ctx.broker, { type: 'InitProducerId' }, ctx.config.requestTimeoutMs);
  if (isFailure(r)) return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, producerId: -1, producerEpoch: -1 };
  return { throttleTimeMs: 0, errorCode: r.errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch };
};
