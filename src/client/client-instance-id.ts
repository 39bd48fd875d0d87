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
 * A negative timeout is a RangeError (Kafka: "The timeout cannot be negative."); enable.metrics.push
 * false an IllegalStateError, as Kafka's IllegalStateException; telemetry stopped without an id
 * (the brokers do not take it, or the client closed) an IllegalStateError too, at once (Kafka waits
 * out the timeout and gives null); an id not known in time a SamsaError REQUEST_TIMED_OUT (Kafka's
 * TimeoutException). A timeout of 0 answers only what is known already.
 */
import { ErrorCode } from '../protocol/errors.js';
import { isFailure, type Failure } from '../runtime/types.js';
import { IllegalStateError, SamsaError } from './errors.js';
import type { ClientInstanceIdReply, TelemetryMsg } from './telemetry-loop.js';

/** How much longer than timeoutMs the ask to the client actor may take (the actor's own deadline answers first). */
export const ANSWER_GRACE_MS = 1_000;
/** setTimeout's limit, for an ask of a very long (or infinite) timeout. */
const MAX_ASK_MS = 2 ** 31 - 1;

export type GetClientInstanceId = Extract<TelemetryMsg, { type: 'GetClientInstanceId' }>;

/** `ask` sends GetClientInstanceId to the client actor, the ask timing out after askTimeoutMs. */
export async function awaitClientInstanceId(timeoutMs: number, ask: (msg: GetClientInstanceId, askTimeoutMs: number) => Promise<ClientInstanceIdReply | Failure>): Promise<string> {
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) throw new RangeError(`The timeout cannot be negative (got ${String(timeoutMs)})`);
  const r = await ask({ type: 'GetClientInstanceId', timeoutMs }, Math.min(timeoutMs + ANSWER_GRACE_MS, MAX_ASK_MS));
  if (isFailure(r)) throw new SamsaError(r.errorCode, r.message);
  if (r.telemetry === null) throw new IllegalStateError('Telemetry is not enabled. Set config `enable.metrics.push` to `true`.');
  if (r.clientInstanceId !== null) return r.clientInstanceId;
  if (r.errorCode !== ErrorCode.NONE) throw new SamsaError(r.errorCode, `the client instance id was not known within ${timeoutMs} ms`);
  throw new IllegalStateError(
    r.telemetry === 'Disabled'
      ? 'Client telemetry is disabled: the brokers do not take it, so no client instance id will be given'
      : `Client telemetry has ended (${r.telemetry}) without a client instance id: the client is closing or closed`,
  );
}
