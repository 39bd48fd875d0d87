/**
 * A client's side of KIP-714: when to ask a broker for its telemetry subscription
 * (GetTelemetrySubscriptions) and when to push its metrics (PushTelemetry), as Kafka's clients'
 * ClientTelemetryReporter decides. Pure: the caller passes the time, sends the request this
 * gives it, and hands back the answer.
 *
 * States (Kafka's ClientTelemetryState) and their transitions:
 *   SubscriptionNeeded -> SubscriptionInProgress: a request is due (the first at once, with the
 *     zero client instance id; later ones with the id the broker gave).
 *   SubscriptionInProgress -> PushNeeded: a subscription asking for metrics; the first push is
 *     due after the push interval times a random 0.5 to 1.5, so clients started together do
 *     not push together.
 *   SubscriptionInProgress -> SubscriptionNeeded: a subscription asking for none (ask again
 *     after the push interval), or an answer the client may retry (below).
 *   PushNeeded -> PushInProgress: the push interval has passed since the last answer.
 *   PushInProgress -> PushNeeded: the push was taken; the next is due a push interval later.
 *   PushInProgress -> SubscriptionNeeded: the push was refused in a way the client may retry.
 *   SubscriptionInProgress, PushInProgress -> Disabled: the broker does not take telemetry or
 *     refused for good (samsa's state: Kafka keeps SUBSCRIPTION_NEEDED with its sender disabled).
 *   SubscriptionInProgress, PushNeeded, PushInProgress -> TerminatingPushNeeded: the client
 *     closes after it had a subscription: one last push, marked terminating.
 *   TerminatingPushNeeded -> TerminatingPushInProgress: that push goes out at once.
 *   any -> Terminated: the client closed (after its terminating push, if it made one).
 * Any other transition is refused (InvalidTelemetryTransition).
 *
 * Answers, as Kafka's ClientTelemetryUtils.maybeFetchErrorIntervalMs: UNKNOWN_SUBSCRIPTION_ID
 * and UNSUPPORTED_COMPRESSION_TYPE ask again at once; TELEMETRY_TOO_LARGE and
 * THROTTLING_QUOTA_EXCEEDED ask again after the push interval (5 minutes without a
 * subscription); INVALID_REQUEST, INVALID_RECORD, UNSUPPORTED_VERSION and any other code disable
 * telemetry. A request that failed without an answer: a broker that does not take the request
 * at all disables telemetry; one that did not answer (timed out, gone) is tried again after 5
 * minutes.
 */
import { ErrorCode } from '../protocol/errors.js';
import { selectorOf, type MetricSelector } from './telemetry-names.js';

export type TelemetryState =
  | 'SubscriptionNeeded'
  | 'SubscriptionInProgress'
  | 'PushNeeded'
  | 'PushInProgress'
  | 'TerminatingPushNeeded'
  | 'TerminatingPushInProgress'
  | 'Disabled'
  | 'Terminated';

const VALID_NEXT: Readonly<Record<TelemetryState, readonly TelemetryState[]>> = {
  SubscriptionNeeded: ['SubscriptionInProgress', 'Terminated'],
  SubscriptionInProgress: ['PushNeeded', 'SubscriptionNeeded', 'TerminatingPushNeeded', 'Disabled', 'Terminated'],
  PushNeeded: ['PushInProgress', 'SubscriptionNeeded', 'TerminatingPushNeeded', 'Terminated'],
  PushInProgress: ['PushNeeded', 'SubscriptionNeeded', 'TerminatingPushNeeded', 'Disabled', 'Terminated'],
  TerminatingPushNeeded: ['TerminatingPushInProgress', 'Terminated'],
  TerminatingPushInProgress: ['Terminated'],
  Disabled: ['Terminated'],
  Terminated: [],
};

export class InvalidTelemetryTransition extends Error {
  override name = 'InvalidTelemetryTransition';
}

/** Kafka's ClientTelemetryReporter.DEFAULT_PUSH_INTERVAL_MS. */
export const DEFAULT_PUSH_INTERVAL_MS = 5 * 60 * 1000;
/** Kafka's Uuid.ZERO_UUID in its string form: "give me a client instance id". */
export const ZERO_CLIENT_INSTANCE_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const INITIAL_PUSH_JITTER_LOWER = 0.5;
const INITIAL_PUSH_JITTER_UPPER = 1.5;

/** GetTelemetrySubscriptions' answer (Kafka's fields). */
export interface SubscriptionsAnswer {
  errorCode: number;
  clientInstanceId: string;
  subscriptionId: number;
  acceptedCompressionTypes: readonly number[];
  pushIntervalMs: number;
  telemetryMaxBytes: number;
  deltaTemporality: boolean;
  requestedMetrics: readonly string[];
}

export interface TelemetrySubscription {
  clientInstanceId: string;
  subscriptionId: number;
  pushIntervalMs: number;
  /** Kafka's codec ids, the broker's preference first. */
  acceptedCompressionTypes: readonly number[];
  deltaTemporality: boolean;
  selector: MetricSelector;
}

export type TelemetryRequest =
  | { kind: 'subscribe'; clientInstanceId: string }
  | { kind: 'push'; terminating: boolean; subscription: TelemetrySubscription };

/**
 * What to wait after a refusal before asking again (0: at once), or null to stop (telemetry
 * disabled); undefined for NONE. `intervalMs` is the subscription's push interval (-1: none yet).
 */
export function errorIntervalMs(errorCode: number, intervalMs: number): number | null | undefined {
  switch (errorCode) {
    case ErrorCode.NONE:
      return undefined;
    case ErrorCode.UNKNOWN_SUBSCRIPTION_ID:
    case ErrorCode.UNSUPPORTED_COMPRESSION_TYPE:
      return 0;
    case ErrorCode.TELEMETRY_TOO_LARGE:
    case ErrorCode.THROTTLING_QUOTA_EXCEEDED:
      return intervalMs !== -1 ? intervalMs : DEFAULT_PUSH_INTERVAL_MS;
    default:
      // INVALID_REQUEST, INVALID_RECORD, UNSUPPORTED_VERSION, and codes telemetry does not know
      return null;
  }
}

export interface TelemetrySenderOptions {
  /** A number in [0, 1) (Math.random by default): the first push's jitter. */
  random?: () => number;
}

export class TelemetrySender {
  private current: TelemetryState = 'SubscriptionNeeded';
  private sub: TelemetrySubscription | null = null;
  /** When the last answer came (null: no request made yet). */
  private lastRequestMs: number | null = null;
  /** The wait after lastRequestMs before the next request (0: at once). */
  private intervalMs = 0;
  private readonly random: () => number;

  constructor(opts: TelemetrySenderOptions = {}) {
    this.random = opts.random ?? Math.random;
  }

  get state(): TelemetryState {
    return this.current;
  }

  get subscription(): TelemetrySubscription | null {
    return this.sub;
  }

  /** The client instance id the broker gave (null until then). */
  get clientInstanceId(): string | null {
    return this.sub?.clientInstanceId ?? null;
  }

  /** The wait before the next request: 0 when due now, Infinity when none will be made (in flight, disabled, terminated). */
  timeToNextUpdate(nowMs: number): number {
    switch (this.current) {
      case 'SubscriptionNeeded':
      case 'PushNeeded': {
        if (this.lastRequestMs === null) return 0;
        return Math.max(0, this.lastRequestMs + this.intervalMs - nowMs);
      }
      case 'TerminatingPushNeeded':
        return 0;
      case 'SubscriptionInProgress':
      case 'PushInProgress':
      case 'TerminatingPushInProgress':
      case 'Disabled':
      case 'Terminated':
        return Infinity;
    }
  }

  /** The request due now (its state moves to in progress), or null when none is. */
  nextRequest(nowMs: number): TelemetryRequest | null {
    if (this.timeToNextUpdate(nowMs) > 0) return null;
    if (this.current === 'SubscriptionNeeded') {
      this.transition('SubscriptionInProgress');
      return { kind: 'subscribe', clientInstanceId: this.sub?.clientInstanceId ?? ZERO_CLIENT_INSTANCE_ID };
    }
    const sub = this.sub;
    if (!sub) {
      // a push without a subscription cannot be made: ask for one (a terminating push is dropped)
      this.transition(this.current === 'TerminatingPushNeeded' ? 'Terminated' : 'SubscriptionNeeded');
      return null;
    }
    const terminating = this.current === 'TerminatingPushNeeded';
    this.transition(terminating ? 'TerminatingPushInProgress' : 'PushInProgress');
    return { kind: 'push', terminating, subscription: sub };
  }

  /** GetTelemetrySubscriptions' answer. Returns true when the temporality changed (the delta ledger starts afresh). */
  onSubscriptions(a: SubscriptionsAnswer, nowMs: number): boolean {
    if (this.current !== 'SubscriptionInProgress') return false; // closing meanwhile: ignored, as Kafka
    const wait = errorIntervalMs(a.errorCode, this.sub?.pushIntervalMs ?? -1);
    if (wait !== undefined) {
      this.refused(wait, nowMs);
      return false;
    }
    const old = this.sub;
    const pushIntervalMs = a.pushIntervalMs > 0 ? a.pushIntervalMs : DEFAULT_PUSH_INTERVAL_MS;
    const sub: TelemetrySubscription = {
      clientInstanceId: a.clientInstanceId,
      subscriptionId: a.subscriptionId,
      pushIntervalMs,
      acceptedCompressionTypes: [...a.acceptedCompressionTypes],
      deltaTemporality: a.deltaTemporality,
      selector: selectorOf(a.requestedMetrics),
    };
    this.sub = sub;
    this.lastRequestMs = nowMs;
    if (sub.selector.kind === 'none') {
      // nothing to push: look again after the interval
      this.transition('SubscriptionNeeded');
      this.intervalMs = pushIntervalMs;
    } else {
      this.transition('PushNeeded');
      const jitter = INITIAL_PUSH_JITTER_LOWER + this.random() * (INITIAL_PUSH_JITTER_UPPER - INITIAL_PUSH_JITTER_LOWER);
      this.intervalMs = Math.round(jitter * pushIntervalMs);
    }
    return old !== null && old.deltaTemporality !== sub.deltaTemporality;
  }

  /** PushTelemetry's answer (a terminating push's ends telemetry, whatever it says). */
  onPushAnswer(errorCode: number, nowMs: number): void {
    if (this.current === 'TerminatingPushInProgress') {
      this.transition('Terminated');
      return;
    }
    if (this.current !== 'PushInProgress') return;
    const wait = errorIntervalMs(errorCode, this.sub?.pushIntervalMs ?? -1);
    if (wait !== undefined) {
      this.refused(wait, nowMs);
      return;
    }
    this.transition('PushNeeded');
    this.lastRequestMs = nowMs;
    this.intervalMs = this.sub!.pushIntervalMs;
  }

  /**
   * The request got no answer: `unsupported` when the broker does not take it at all (telemetry
   * stops), else it did not answer (asked again after 5 minutes).
   */
  onFailure(unsupported: boolean, nowMs: number): void {
    if (this.current === 'TerminatingPushInProgress') {
      this.transition('Terminated');
      return;
    }
    if (this.current !== 'SubscriptionInProgress' && this.current !== 'PushInProgress') return;
    this.refused(unsupported ? null : DEFAULT_PUSH_INTERVAL_MS, nowMs);
  }

  /** The client closes: true when a terminating push is now due (it had a subscription), false when telemetry just ends. */
  initiateClose(): boolean {
    const s = this.current;
    if (this.sub !== null && (s === 'SubscriptionInProgress' || s === 'PushNeeded' || s === 'PushInProgress')) {
      this.transition('TerminatingPushNeeded');
      return true;
    }
    if (s !== 'TerminatingPushNeeded' && s !== 'TerminatingPushInProgress') this.close();
    return s === 'TerminatingPushNeeded';
  }

  /** Ends telemetry: nothing more is sent. */
  close(): void {
    if (this.current !== 'Terminated') this.transition('Terminated');
  }

  /** Whether telemetry is over (terminated or disabled): nothing will be sent any more. */
  get done(): boolean {
    return this.current === 'Terminated' || this.current === 'Disabled';
  }

  private refused(wait: number | null, nowMs: number): void {
    if (wait === null) {
      this.transition('Disabled');
      return;
    }
    this.transition('SubscriptionNeeded');
    this.lastRequestMs = nowMs;
    this.intervalMs = wait;
  }

  private transition(next: TelemetryState): void {
    if (!VALID_NEXT[this.current].includes(next)) {
      throw new InvalidTelemetryTransition(`telemetry cannot go from ${this.current} to ${next} (it may go to ${VALID_NEXT[this.current].join(', ') || 'nothing'})`);
    }
    this.current = next;
  }
}
