/**
 * src/client/telemetry-sender.ts: KIP-714's client state machine, one transition per test, on
 * the time the test gives it: the first subscription request with the zero instance id, the
 * jittered first push, pushes at the interval, nothing pushed when nothing is asked for,
 * re-subscribing at once on UNKNOWN_SUBSCRIPTION_ID, waiting on THROTTLING_QUOTA_EXCEEDED,
 * stopping on UNSUPPORTED_VERSION (a broker without a receiver) and on a broker that does not take
 * the request, retrying after 5 minutes when one does not answer, the terminating push, and the
 * transitions it refuses.
 */
import { expect } from 'chai';
import { DEFAULT_PUSH_INTERVAL_MS, errorIntervalMs, InvalidTelemetryTransition, TelemetrySender, ZERO_CLIENT_INSTANCE_ID, type SubscriptionsAnswer } from '../../src/client/telemetry-sender.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const T = 1_700_000_000_000;
const ID = 'instance-id-0000000000';

function answer(over: Partial<SubscriptionsAnswer> = {}): SubscriptionsAnswer {
  return { errorCode: 0, clientInstanceId: ID, subscriptionId: 77, acceptedCompressionTypes: [4, 3, 1, 2], pushIntervalMs: 10_000, telemetryMaxBytes: 1 << 20, deltaTemporality: true, requestedMetrics: ['org.apache.kafka.producer.'], ...over };
}

/** A sender that has its subscription (its first push due after half the interval: random 0). */
function subscribed(over: Partial<SubscriptionsAnswer> = {}): TelemetrySender {
  const s = new TelemetrySender({ random: () => 0 });
  s.nextRequest(T);
  s.onSubscriptions(answer(over), T);
  return s;
}

describe('client/telemetry-sender: the KIP-714 push state machine', () => {
  it('SubscriptionNeeded -> SubscriptionInProgress: asks at once, with the zero client instance id', () => {
    const s = new TelemetrySender();
    expect(s.state).to.equal('SubscriptionNeeded');
    expect(s.timeToNextUpdate(T)).to.equal(0);
    expect(s.nextRequest(T)).to.deep.equal({ kind: 'subscribe', clientInstanceId: ZERO_CLIENT_INSTANCE_ID });
    expect(s.state).to.equal('SubscriptionInProgress');
    // nothing more while it is in flight
    expect(s.timeToNextUpdate(T)).to.equal(Infinity);
    expect(s.nextRequest(T)).to.equal(null);
  });

  it('SubscriptionInProgress -> PushNeeded: the first push after the interval times 0.5 to 1.5 (jitter)', () => {
    for (const [random, wait] of [
      [0, 5_000],
      [0.5, 10_000],
      [0.999, 14_990],
    ] as const) {
      const s = new TelemetrySender({ random: () => random });
      s.nextRequest(T);
      s.onSubscriptions(answer(), T);
      expect(s.state).to.equal('PushNeeded');
      expect(s.clientInstanceId).to.equal(ID);
      expect(s.timeToNextUpdate(T)).to.equal(wait);
      expect(s.nextRequest(T + wait - 1)).to.equal(null);
    }
  });

  it('PushNeeded -> PushInProgress -> PushNeeded: pushes with the subscription, then every push interval after each answer', () => {
    const s = subscribed();
    const push = s.nextRequest(T + 5_000);
    expect(push).to.deep.include({ kind: 'push', terminating: false });
    expect(push?.kind === 'push' && [push.subscription.subscriptionId, push.subscription.clientInstanceId, push.subscription.deltaTemporality]).to.deep.equal([77, ID, true]);
    expect(s.state).to.equal('PushInProgress');
    s.onPushAnswer(ErrorCode.NONE, T + 5_010);
    expect(s.state).to.equal('PushNeeded');
    expect(s.timeToNextUpdate(T + 5_010)).to.equal(10_000);
    expect(s.nextRequest(T + 15_010)).to.deep.include({ kind: 'push' });
  });

  it('SubscriptionInProgress -> SubscriptionNeeded: no metrics asked for, nothing pushed; asks again after the interval, with its instance id', () => {
    const s = subscribed({ requestedMetrics: [] });
    expect(s.state).to.equal('SubscriptionNeeded');
    expect(s.timeToNextUpdate(T)).to.equal(10_000);
    expect(s.nextRequest(T + 9_999)).to.equal(null);
    expect(s.nextRequest(T + 10_000)).to.deep.equal({ kind: 'subscribe', clientInstanceId: ID });
  });

  it('PushInProgress -> SubscriptionNeeded: UNKNOWN_SUBSCRIPTION_ID (the subscriptions changed) asks again at once, keeping the instance id', () => {
    const s = subscribed();
    s.nextRequest(T + 5_000);
    s.onPushAnswer(ErrorCode.UNKNOWN_SUBSCRIPTION_ID, T + 5_001);
    expect(s.state).to.equal('SubscriptionNeeded');
    expect(s.timeToNextUpdate(T + 5_001)).to.equal(0);
    expect(s.nextRequest(T + 5_001)).to.deep.equal({ kind: 'subscribe', clientInstanceId: ID });
    s.onSubscriptions(answer({ subscriptionId: 78 }), T + 5_002);
    expect(s.subscription?.subscriptionId).to.equal(78);
  });

  it('PushInProgress -> SubscriptionNeeded: THROTTLING_QUOTA_EXCEEDED and TELEMETRY_TOO_LARGE wait a push interval', () => {
    for (const code of [ErrorCode.THROTTLING_QUOTA_EXCEEDED, ErrorCode.TELEMETRY_TOO_LARGE]) {
      const s = subscribed();
      s.nextRequest(T + 5_000);
      s.onPushAnswer(code, T + 5_000);
      expect([s.state, s.timeToNextUpdate(T + 5_000)]).to.deep.equal(['SubscriptionNeeded', 10_000]);
    }
    // refused before any subscription: Kafka's default interval
    const first = new TelemetrySender();
    first.nextRequest(T);
    first.onSubscriptions(answer({ errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED }), T);
    expect([first.state, first.timeToNextUpdate(T)]).to.deep.equal(['SubscriptionNeeded', DEFAULT_PUSH_INTERVAL_MS]);
  });

  it('SubscriptionInProgress -> Disabled: UNSUPPORTED_VERSION, a broker without a telemetry receiver; nothing is sent any more', () => {
    const s = new TelemetrySender();
    s.nextRequest(T);
    s.onSubscriptions(answer({ errorCode: ErrorCode.UNSUPPORTED_VERSION }), T);
    expect(s.state).to.equal('Disabled');
    expect(s.done).to.equal(true);
    expect(s.timeToNextUpdate(T + 10 * DEFAULT_PUSH_INTERVAL_MS)).to.equal(Infinity);
    expect(s.nextRequest(T + 10 * DEFAULT_PUSH_INTERVAL_MS)).to.equal(null);
    // closing ends it without a push
    expect(s.initiateClose()).to.equal(false);
    expect(s.state).to.equal('Terminated');
  });

  it('PushInProgress -> Disabled: INVALID_REQUEST, INVALID_RECORD and codes telemetry does not know', () => {
    for (const code of [ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_RECORD, ErrorCode.UNSUPPORTED_VERSION, ErrorCode.UNKNOWN_SERVER_ERROR]) {
      const s = subscribed();
      s.nextRequest(T + 5_000);
      s.onPushAnswer(code, T + 5_000);
      expect(s.state, String(code)).to.equal('Disabled');
    }
  });

  it('no answer: a broker that does not take the request disables telemetry; one that did not answer is asked again after 5 minutes', () => {
    const unsupported = new TelemetrySender();
    unsupported.nextRequest(T);
    unsupported.onFailure(true, T);
    expect(unsupported.state).to.equal('Disabled');
    const silent = subscribed();
    silent.nextRequest(T + 5_000);
    silent.onFailure(false, T + 35_000);
    expect([silent.state, silent.timeToNextUpdate(T + 35_000)]).to.deep.equal(['SubscriptionNeeded', DEFAULT_PUSH_INTERVAL_MS]);
    expect(silent.nextRequest(T + 35_000 + DEFAULT_PUSH_INTERVAL_MS)).to.deep.equal({ kind: 'subscribe', clientInstanceId: ID });
  });

  it('PushNeeded -> TerminatingPushNeeded -> TerminatingPushInProgress -> Terminated: one last push, marked terminating, at once', () => {
    const s = subscribed();
    expect(s.initiateClose()).to.equal(true);
    expect([s.state, s.timeToNextUpdate(T)]).to.deep.equal(['TerminatingPushNeeded', 0]);
    expect(s.nextRequest(T)).to.deep.include({ kind: 'push', terminating: true });
    expect(s.state).to.equal('TerminatingPushInProgress');
    // a second close changes nothing
    expect(s.initiateClose()).to.equal(false);
    expect(s.state).to.equal('TerminatingPushInProgress');
    // whatever the answer, telemetry ends
    s.onPushAnswer(ErrorCode.UNKNOWN_SUBSCRIPTION_ID, T + 1);
    expect(s.state).to.equal('Terminated');
    expect(s.timeToNextUpdate(T + 1)).to.equal(Infinity);
  });

  it('closing with a push or a new subscription in flight: the terminating push goes out too; a close before any subscription just ends', () => {
    const pushing = subscribed();
    pushing.nextRequest(T + 5_000);
    expect(pushing.initiateClose()).to.equal(true);
    // the in-flight push's answer does not end the terminating one (the sender ignores it)
    pushing.onPushAnswer(ErrorCode.NONE, T + 5_001);
    expect(pushing.state).to.equal('TerminatingPushNeeded');
    const fresh = new TelemetrySender();
    fresh.nextRequest(T);
    expect(fresh.initiateClose()).to.equal(false);
    expect(fresh.state).to.equal('Terminated');
    fresh.onSubscriptions(answer(), T + 1);
    expect(fresh.state).to.equal('Terminated');
    const idle = subscribed({ requestedMetrics: [] });
    expect(idle.initiateClose()).to.equal(false);
    expect(idle.state).to.equal('Terminated');
  });

  it('a timed-out terminating push ends telemetry too', () => {
    const s = subscribed();
    s.initiateClose();
    s.nextRequest(T);
    s.onFailure(false, T + 5_000);
    expect(s.state).to.equal('Terminated');
  });

  it('refuses any other transition', () => {
    const s = new TelemetrySender();
    s.close();
    expect(s.state).to.equal('Terminated');
    expect(() => (s as unknown as { transition(n: string): void }).transition('PushNeeded')).to.throw(InvalidTelemetryTransition, /from Terminated to PushNeeded/);
  });

  it("the answers' waits, as Kafka's maybeFetchErrorIntervalMs", () => {
    expect(errorIntervalMs(ErrorCode.NONE, 1_000)).to.equal(undefined);
    expect(errorIntervalMs(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, 1_000)).to.equal(0);
    expect(errorIntervalMs(ErrorCode.TELEMETRY_TOO_LARGE, -1)).to.equal(DEFAULT_PUSH_INTERVAL_MS);
    expect(errorIntervalMs(ErrorCode.INVALID_RECORD, 1_000)).to.equal(null);
  });
});
