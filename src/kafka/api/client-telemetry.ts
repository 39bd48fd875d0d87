/**
 * GetTelemetrySubscriptions (api key 71, v0) and PushTelemetry (72, v0): KIP-714's client
 * metrics, offered by a broker with a telemetry receiver (client.telemetry.receiver). The
 * subscriptions come from this broker's metadata (the controller's CLIENT_METRICS configs); the
 * client instances and their checks are the broker's ClientTelemetry (src/kafka/client-telemetry.ts).
 * No ACL guards them, as in Kafka.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { TelemetryClient } from '../client-telemetry.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiContext, ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

function clientOf(ctx: ApiContext): TelemetryClient {
  return {
    clientId: ctx.clientId,
    softwareName: ctx.clientSoftware?.name ?? null,
    softwareVersion: ctx.clientSoftware?.version ?? null,
    sourceAddress: ctx.aclHost,
    sourcePort: ctx.clientPort ?? null,
    principal: ctx.principal,
  };
}

async function subscriptions(ctx: ApiContext): Promise<Record<string, Record<string, string>> | undefined> {
  return (await fetchClusterMetadata(ctx, []))?.clientMetrics;
}

export const getTelemetrySubscriptions: ApiHandler<typeof ApiKeys.GetTelemetrySubscriptions> = async (ctx, _version, body) => {
  const telemetry = ctx.clientTelemetry ?? null;
  if (!telemetry) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, clientInstanceId: body.clientInstanceId, subscriptionId: 0, acceptedCompressionTypes: [], pushIntervalMs: 0, telemetryMaxBytes: 0, deltaTemporality: false, requestedMetrics: [] };
  }
  const answer = telemetry.getSubscriptions(body.clientInstanceId, clientOf(ctx), await subscriptions(ctx));
  if (answer.errorCode !== ErrorCode.NONE) ctx.log.debug('telemetry subscriptions refused', { clientInstanceId: answer.clientInstanceId, errorCode: answer.errorCode });
  return answer;
};

export const pushTelemetry: ApiHandler<typeof ApiKeys.PushTelemetry> = async (ctx, _version, body) => {
  const telemetry = ctx.clientTelemetry ?? null;
  if (!telemetry) return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION };
  const r = await telemetry.push(body, clientOf(ctx), await subscriptions(ctx), (to, msg, timeoutMs) => ctx.ask(to, msg, timeoutMs), ctx.config.requestTimeoutMs);
  if (r.errorCode !== ErrorCode.NONE) ctx.log.debug('telemetry push refused', { clientInstanceId: body.clientInstanceId, errorCode: r.errorCode, reason: r.errorMessage });
  return { throttleTimeMs: 0, errorCode: r.errorCode };
};
