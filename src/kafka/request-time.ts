/**
 * The time a Kafka listener spends handling one request, for the request-time quota
 * (request_percentage, KIP-124). Kafka counts the time a request handler thread works on the
 * request, the log append of a Produce and the read of a Fetch included; samsa counts the time
 * the broker's thread works on it: the listener decoding it, the API handler's own work and
 * encoding the response, and the handlers of this broker's actors that its asks reach (the
 * broker, the partition replicas appending or reading, a coordinator), with what they send
 * each other meanwhile, through the asks' work account (Envelope.workAccount). From an ask until
 * its answer the listener's own count pauses: that is where a long-poll Fetch or a Produce with
 * acks=all waits, which is no work. As in Kafka, where a Produce's handler thread completes the
 * Fetches its append satisfies, the fetches an append answers are charged to the Produce. Work
 * on another node (a controller, a coordinator elsewhere) is not this broker's and is not
 * counted. Time spent waiting otherwise (on a topic id lookup another request started) is
 * counted, so the measure can run slightly over.
 *
 * Requests of one connection run at once, on one thread: a request's count runs from the moment
 * it is resumed (its first step, an answer to its ask) until it asks again or is done. The clock
 * is injected: milliseconds with a fraction, only ever compared with itself.
 */
import type { WorkAccount } from '../runtime/types.js';

export type RequestClock = () => number;

/** The clock requests are timed with: a monotonic one with sub-millisecond steps. */
export const monotonicClock: RequestClock = () => performance.now();

export class RequestTime {
  /** What this broker's actors work on the request, charged through its asks (AskOptions.workAccount). */
  readonly account: WorkAccount = { ms: 0 };
  private workedMs = 0;
  private since: number | null;
  private asks = 0;

  constructor(private readonly clock: RequestClock) {
    this.since = clock();
  }

  /**
   * `answer` is what the request waits for from another actor: the time until it settles is not
   * counted. Returns `answer` itself, so the request resumes right after the count does.
   */
  waitFor<T>(answer: Promise<T>): Promise<T> {
    if (this.asks++ === 0 && this.since !== null) {
      this.workedMs += this.clock() - this.since;
      this.since = null;
    }
    const resume = () => {
      if (--this.asks === 0) this.since = this.clock();
    };
    answer.then(resume, resume);
    return answer;
  }

  /** The time worked since the last take (or the start), the actors' included; the count goes on from zero. */
  take(): number {
    let ms = this.workedMs + this.account.ms;
    this.account.ms = 0;
    if (this.since !== null) {
      const now = this.clock();
      ms += now - this.since;
      this.since = now;
    }
    this.workedMs = 0;
    return Math.max(0, ms);
  }
}
