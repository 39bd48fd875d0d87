/**
 * clientInstanceId(timeoutMs) of samsa's producer, consumer, share consumer and admin client, as
 * Kafka's clients' clientInstanceId(Duration) (KIP-714): the id a broker gave this client
 * instance for its metrics push, in Kafka's form (a Uuid as url-safe base64, 22 characters).
 *
 * One GetClientInstanceId to the client actor, which answers as soon as it knows the id (at once
 * when it does already), as soon as telemetry stops without one, or when timeoutMs has passed on
 * its clock (telemetry-loop.ts). The ask itself gives the actor ANSWER_GRACE_MS more, so an actor
 * busy with something else (the admin actor awaits its requests) still settles the call.
 *
 * As Kafka 4.2's: a negative timeout is a RangeError ("The timeout cannot be negative.");
 * enable.metrics.push false an IllegalStateError (Kafka's IllegalStateException); null when no id
 * came within timeoutMs, or when telemetry stopped without one (the brokers do not take it, or
 * the client closed: answered at once, where Kafka waits out the timeout for the same null).
 * A timeout of 0 answers only what is known already. The ask to the actor failing (the client
 * is gone) is a SamsaError with its code (Kafka's KafkaException).
 */
import { isFailure, type Failure } from '../runtime/types.js';
import { IllegalStateError, SamsaError } from './errors.js';
import type { ClientInstanceIdReply, TelemetryMsg } from './telemetry-loop.js';

/** How much longer than timeoutMs the ask to the client actor may take (the actor's own deadline answers first). */
export const ANSWER_GRACE_MS = 1_000;
/** setTimeout's limit, for an ask of a very long (or infinite) timeout. */
const MAX_ASK_MS = 2 ** 31 - 1;

export type GetClientInstanceId = Extract<TelemetryMsg, { type: 'GetClientInstanceId' }>;

/** `ask` sends GetClientInstanceId to the client actor, the ask timing out after askTimeoutMs. */
export async function awaitClientInstanceId(timeoutMs: number, ask: (msg: GetClientInstanceId, askTimeoutMs: number) => Promise<ClientInstanceIdReply | Failure>): Promise<string | null> {
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) throw new RangeError(`The timeout cannot be negative (got ${String(timeoutMs)})`);
  const r = await ask({ type: 'GetClientInstanceId', timeoutMs }, Math.min(timeoutMs + ANSWER_GRACE_MS, MAX_ASK_MS));
  if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
  if (r.telemetry === null) throw new IllegalStateError('Telemetry is not enabled. Set config `enable.metrics.push` to `true`.');
  return r.clientInstanceId;
}
