/**
 * GetTelemetrySubscriptions (api key 71, v0) and PushTelemetry (72, v0): KIP-714's client
 * metrics, offered by a broker with a telemetry receiver (client.telemetry.receiver). The
 * subscriptions come from this broker's metadata (the controller's CLIENT_METRICS configs); the
 * client instances and their checks are the broker's ClientTelemetry (src/kafka/client-telemetry.ts),
 * whose answers samsa's own clients get too (the broker actor's GetTelemetrySubscriptions and
 * PushTelemetry).
 * No ACL guards them, as in Kafka.
 */
import { answerGetTelemetrySubscriptions, answerPushTelemetry, type TelemetryClient } from '../client-telemetry.js';
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
  return answerGetTelemetrySubscriptions(telemetry, body.clientInstanceId, clientOf(ctx), telemetry ? await subscriptions(ctx) : undefined, ctx.log);
};

export const pushTelemetry: ApiHandler<typeof ApiKeys.PushTelemetry> = async (ctx, _version, body) => {
  const telemetry = ctx.clientTelemetry ?? null;
  const r = await answerPushTelemetry(telemetry, body, clientOf(ctx), telemetry ? await subscriptions(ctx) : undefined, (to, msg, timeoutMs) => ctx.ask(to, msg, timeoutMs), ctx.config.requestTimeoutMs, ctx.log);
  return { throttleTimeMs: 0, errorCode: r.errorCode };
};
