/**
 * The time a Kafka listener spends handling one request, for the request-time quota
 * (request_percentage, KIP-124). Kafka counts the time a request handler thread works on the
 * request; samsa counts the time the listener's thread works on it: decoding it, the API
 * handler's own work, encoding the response. The handler's asks to other actors (the broker, a
 * partition replica, a coordinator, the controller) are not counted, from the ask until its
 * answer: that is where a long-poll Fetch or a Produce with acks=all waits, and the work those
 * actors do is theirs, not the listener's. Time spent waiting otherwise (on a topic id lookup
 * another request started) is counted, so the measure can run slightly over.
 *
 * Requests of one connection run at once, on one thread: a request's count runs from the moment
 * it is resumed (its first step, an answer to its ask) until it asks again or is done. The clock
 * is injected: milliseconds with a fraction, only ever compared with itself.
 */
export type RequestClock = () => number;

/** The clock requests are timed with: a monotonic one with sub-millisecond steps. */
export const monotonicClock: RequestClock = () => performance.now();

export class RequestTime {
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

  /** The time worked since the last take (or the start); the count goes on from zero. */
  take(): number {
    let ms = this.workedMs;
    if (this.since !== null) {
      const now = this.clock();
      ms += now - this.since;
      this.since = now;
    }
    this.workedMs = 0;
    return Math.max(0, ms);
  }
}
