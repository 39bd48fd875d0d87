/**
 * clientInstanceId(timeoutMs) of samsa's producer, consumer and share consumer, as Kafka's
 * clients' clientInstanceId(Duration) (KIP-714): the id a broker gave this client instance for
 * its metrics push, in Kafka's form (a Uuid as url-safe base64, 22 characters). It waits up to
 * timeoutMs for the first GetTelemetrySubscriptions answer, asking the client actor for its
 * telemetry every POLL_MS meanwhile. A negative timeout is a RangeError (Kafka: "The timeout
 * cannot be negative."); enable.metrics.push false an IllegalStateError, as Kafka's
 * IllegalStateException; an id not known in time a SamsaError REQUEST_TIMED_OUT (Kafka's
 * TimeoutException).
 */
import { ErrorCode } from '../protocol/errors.js';
import { IllegalStateError, SamsaError } from './errors.js';
import type { TelemetryDescription } from './telemetry-loop.js';

/** How often the client actor is asked while the id is not known. */
const POLL_MS = 20;

/** `telemetry` gives the client actor's telemetry now (null: enable.metrics.push false). */
export async function awaitClientInstanceId(timeoutMs: number, telemetry: () => Promise<TelemetryDescription | null>): Promise<string> {
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) throw new RangeError(`The timeout cannot be negative (got ${String(timeoutMs)})`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const t = await telemetry();
    if (t === null) throw new IllegalStateError('Telemetry is not enabled. Set config `enable.metrics.push` to `true`.');
    if (t.clientInstanceId !== null) return t.clientInstanceId;
    const left = deadline - Date.now();
    if (left <= 0) throw new SamsaError(ErrorCode.REQUEST_TIMED_OUT, `the client instance id was not known within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, Math.min(POLL_MS, left)));
  }
}
