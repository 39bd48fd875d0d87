/**
 * The telemetry requests of samsa's own clients (KIP-714) at the broker actor: the same
 * ClientTelemetry checks and the same telemetry receiver as the Kafka listener's
 * GetTelemetrySubscriptions and PushTelemetry (src/kafka/client-telemetry.ts), with the client
 * as a samsa client is known: its client id and software from the request, its node as its
 * source address (no port), and the anonymous principal (the nodes' listeners trust whoever they
 * let in).
 */
import { answerGetTelemetrySubscriptions, answerPushTelemetry, type ClientTelemetry, type TelemetryClient } from '../../src/kafka/client-telemetry.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import type { BaseContext } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Message } from '../../src/runtime/types.js';
import { ANONYMOUS } from '../../src/security/acl.js';
import type { BrokerMsg, PushTelemetryReply, TelemetryClientInfo, TelemetrySubscriptionsReply } from './messages.js';

const textOrNull = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

export function telemetryClientOf(m: TelemetryClientInfo, sourceNode: string): TelemetryClient {
  return { clientId: textOrNull(m.clientId), softwareName: textOrNull(m.clientSoftwareName), softwareVersion: textOrNull(m.clientSoftwareVersion), sourceAddress: sourceNode, sourcePort: null, principal: ANONYMOUS };
}

export function telemetrySubscriptions(
  telemetry: ClientTelemetry | null,
  m: Extract<BrokerMsg, { type: 'GetTelemetrySubscriptions' }>,
  sourceNode: string,
  metadata: ClusterMetadata | null,
  ctx: BaseContext<BrokerMsg>,
): TelemetrySubscriptionsReply {
  const answer = answerGetTelemetrySubscriptions(telemetry, m.clientInstanceId, telemetryClientOf(m, sourceNode), metadata?.clientMetrics, ctx.log);
  return { type: 'GetTelemetrySubscriptionsResponse', ...answer };
}

export async function pushTelemetry(
  telemetry: ClientTelemetry | null,
  m: Extract<BrokerMsg, { type: 'PushTelemetry' }>,
  sourceNode: string,
  metadata: ClusterMetadata | null,
  timeoutMs: number,
  ctx: BaseContext<BrokerMsg>,
): Promise<PushTelemetryReply> {
  // a Failure (no answer in time, no receiver there) refuses the push as a receiver's error does
  const ask = (to: ActorRef<Message>, msg: Message, ms: number) => ctx.ask(to, msg, { timeoutMs: ms });
  const req = { clientInstanceId: m.clientInstanceId, subscriptionId: m.subscriptionId, terminating: m.terminating, compressionType: m.compressionType, metrics: m.metrics };
  const r = await answerPushTelemetry(telemetry, req, telemetryClientOf(m, sourceNode), metadata?.clientMetrics, ask, timeoutMs, ctx.log);
  return { type: 'PushTelemetryResponse', errorCode: r.errorCode, errorMessage: r.errorMessage };
}
