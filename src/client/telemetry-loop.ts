/**
 * The push loop of a client actor (KIP-714, enable.metrics.push): the producer, the consumer, the
 * share consumer and the admin client each own one. It runs TelemetrySender (telemetry-sender.ts) on the actor's clock and timers:
 * one timer, 'telemetry', set for when the next request is due and cancelled while one is in
 * flight, once telemetry is disabled, and once it ends; requests go to a broker actor the client
 * knows (never a node's metadata proxy), as asks whose answers come back to the actor as
 * TelemetryAnswer. It keeps to the broker that answered last and moves to the next when one does
 * not answer. A push carries the client's metrics its subscription selects
 * (telemetry-payload.ts) with its resource attributes, compressed as the broker accepts.
 *
 * Closing, the client calls closeTelemetry: with a subscription, one last push marked
 * terminating goes out at once (waited for at most 5 s, request.timeout.ms if lower), then
 * telemetry ends; whenTelemetryClosed runs what waits for that. It logs at info only when a
 * broker first gives the client its instance id; the rest (refusals, telemetry disabled) at debug.
 *
 * GetClientInstanceId (the clients' clientInstanceId(timeoutMs), client-instance-id.ts) is
 * answered ClientInstanceId at once when the id is known, when telemetry is over (disabled by the
 * brokers, or ended by a close) or when there is no push loop; else when a subscription brings
 * the id, telemetry stops, or timeoutMs has passed on the actor's clock (a second timer,
 * 'telemetry-id', set for the earliest caller's deadline), whichever comes first.
 */
import type { BrokerMsg, PushTelemetryReply, TelemetrySubscriptionsReply } from '../../actors/broker/messages.js';
import { ErrorCode } from '../protocol/errors.js';
import type { AskOptions, ReplyToken } from '../runtime/actor-definition.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { isFailure, type ActorRef, type Failure, type Message } from '../runtime/types.js';
import { CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION } from './client-software.js';
import type { ClientMetric } from './metrics.js';
import { compressTelemetry, DeltaLedger, telemetryPayload } from './telemetry-payload.js';
import { TelemetrySender, type TelemetryRequest, type TelemetrySenderOptions, type TelemetryState } from './telemetry-sender.js';

/** The messages a client actor with a push loop takes for it. */
export type TelemetryMsg =
  | { type: 'TelemetryTick' }
  | { type: 'TelemetryAnswer'; kind: 'subscribe' | 'push'; terminating: boolean; reply: TelemetrySubscriptionsReply | PushTelemetryReply | Failure }
  /** clientInstanceId(timeoutMs): answered ClientInstanceId (ClientInstanceIdReply) once the id is known, telemetry is over, or timeoutMs has passed. */
  | { type: 'GetClientInstanceId'; timeoutMs: number }
  /** The 'telemetry-id' timer: the earliest GetClientInstanceId waiting is due. */
  | { type: 'ClientInstanceIdDeadline' };

/**
 * GetClientInstanceId's answer. errorCode NONE: the id (clientInstanceId), or none will come
 * (clientInstanceId null: telemetry null without a push loop, else Disabled or Terminated);
 * REQUEST_TIMED_OUT: not known within the timeout asked for.
 */
export interface ClientInstanceIdReply {
  type: 'ClientInstanceId';
  errorCode: number;
  clientInstanceId: string | null;
  /** The push loop's state when answered; null without one (enable.metrics.push false). */
  telemetry: TelemetryState | null;
}

/** What the loop reads of its client. */
export interface TelemetryHost {
  /** The brokers the client knows (brokers, not metadata proxies), by id. */
  brokers(): ActorRef<BrokerMsg>[];
  /** The client's metrics now (Kafka's names, as its Metrics message gives them). */
  metrics(nowMs: number): ClientMetric[];
  /** Its resource attributes now (KIP-714's client labels: group_id, transactional_id, ...). */
  labels(): Record<string, string>;
}

export interface TelemetryLoopConfig {
  clientId: string;
  requestTimeoutMs: number;
  retryBackoffMs: number;
}

const TELEMETRY_TIMER = 'telemetry';
/** Set for the earliest deadline of the GetClientInstanceId waiting. */
const INSTANCE_ID_TIMER = 'telemetry-id';
/** The longest a terminating push holds a close up. */
const TERMINATING_PUSH_TIMEOUT_MS = 5_000;
/** No broker known yet (metadata still coming): look again after retry.backoff.ms (at least this), doubling up to the max. */
const NO_BROKER_WAIT_MS = 100;
const NO_BROKER_WAIT_MAX_MS = 10_000;
/** setTimeout's limit. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The OTLP instrumentation scope of what samsa's clients push. */
const SCOPE = { name: CLIENT_SOFTWARE_NAME, version: CLIENT_SOFTWARE_VERSION };

/** What the loop uses of its actor's context (a client actor's, whose messages include TelemetryMsg). */
export interface TelemetryContext {
  readonly self: ActorRef;
  readonly clock: Clock;
  readonly log: Logger;
  readonly timers: { startSingle(key: string, ms: number, msg: TelemetryMsg): void; cancel(key: string): void };
  send(to: ActorRef, msg: TelemetryMsg): void;
  ask<R extends Message>(to: ActorRef<BrokerMsg>, msg: BrokerMsg, opts?: AskOptions): Promise<R | Failure>;
  /** Answers a GetClientInstanceId that waited. */
  replyTo(token: ReplyToken, msg: ClientInstanceIdReply): void;
}

/** What GetClientInstanceId's handler uses besides: the message's own reply address. */
export interface TelemetryRequestContext extends TelemetryContext {
  reply(msg: ClientInstanceIdReply): void;
  deferReply(): ReplyToken | undefined;
}

type Ctx = TelemetryContext;

export class TelemetryLoop {
  readonly sender: TelemetrySender;
  readonly ledger = new DeltaLedger();
  /** Codecs that failed to compress here: not tried again. */
  readonly unsupportedCodecs = new Set<number>();
  /** The resource attributes pushed: a label once given stays, as Kafka's reporter keeps them (group_member_id after a leave). */
  readonly labels: Record<string, string> = {};
  /** Which of the known brokers to ask (moves on when one does not answer). */
  brokerIndex = 0;
  /** Pushes answered NONE (for descriptions and tests). */
  pushes = 0;
  /** The next wait for a broker to be known (0: none waited for yet). */
  noBrokerWaitMs = 0;
  /** What waits for telemetry to end (closeTelemetry), run once it has. */
  private readonly closedWaiters: (() => void)[] = [];
  /** GetClientInstanceId asks waiting for the id, with their deadlines (on the actor's clock). */
  readonly idWaiters: { token: ReplyToken; deadline: number }[] = [];

  constructor(
    readonly config: TelemetryLoopConfig,
    /** When the client started: its first deltas and its cumulative sums begin there. */
    readonly startMs: number,
    opts: TelemetrySenderOptions = {},
  ) {
    this.sender = new TelemetrySender(opts);
  }

  /** @internal */
  waitClosed(fn: () => void): void {
    this.closedWaiters.push(fn);
  }

  /** @internal */
  runClosedWaiters(): void {
    for (const fn of this.closedWaiters.splice(0)) fn();
  }
}

/** A client's push loop with enable.metrics.push, started at once (the first request goes out as soon as a broker is known); null without. */
export function startTelemetry(enabled: boolean, config: TelemetryLoopConfig, ctx: Ctx, opts: TelemetrySenderOptions = {}): TelemetryLoop | null {
  if (!enabled) return null;
  const loop = new TelemetryLoop(config, ctx.clock.now(), opts);
  reschedule(loop, ctx);
  return loop;
}

function reschedule(loop: TelemetryLoop, ctx: Ctx, waitMs?: number): void {
  const wait = waitMs ?? loop.sender.timeToNextUpdate(ctx.clock.now());
  if (wait > 0 && Number.isFinite(wait)) return ctx.timers.startSingle(TELEMETRY_TIMER, Math.min(wait, MAX_TIMER_MS), { type: 'TelemetryTick' });
  ctx.timers.cancel(TELEMETRY_TIMER);
  // due now: through the mailbox, not a timer
  if (wait <= 0) ctx.send(ctx.self, { type: 'TelemetryTick' });
}

function pickBroker(loop: TelemetryLoop, host: TelemetryHost): ActorRef<BrokerMsg> | null {
  const brokers = host.brokers();
  if (brokers.length === 0) return null;
  return brokers[loop.brokerIndex % brokers.length]!;
}

/** The timer fired: makes the request due, if one is and a broker is known. */
export function onTelemetryTick(loop: TelemetryLoop | null, host: TelemetryHost, ctx: Ctx): void {
  if (!loop) return;
  const now = ctx.clock.now();
  const wait = loop.sender.timeToNextUpdate(now);
  if (wait > 0) return reschedule(loop, ctx, wait);
  const broker = pickBroker(loop, host);
  if (!broker) {
    if (loop.sender.state === 'TerminatingPushNeeded') return finish(loop, ctx);
    loop.noBrokerWaitMs = loop.noBrokerWaitMs === 0 ? Math.max(NO_BROKER_WAIT_MS, loop.config.retryBackoffMs) : Math.min(loop.noBrokerWaitMs * 2, NO_BROKER_WAIT_MAX_MS);
    return reschedule(loop, ctx, loop.noBrokerWaitMs);
  }
  loop.noBrokerWaitMs = 0;
  const req = loop.sender.nextRequest(now);
  ctx.timers.cancel(TELEMETRY_TIMER);
  if (!req) return settled(loop, ctx);
  send(loop, host, ctx, broker, req, now);
}

function send(loop: TelemetryLoop, host: TelemetryHost, ctx: Ctx, broker: ActorRef<BrokerMsg>, req: TelemetryRequest, now: number): void {
  const who = { clientId: loop.config.clientId, clientSoftwareName: CLIENT_SOFTWARE_NAME, clientSoftwareVersion: CLIENT_SOFTWARE_VERSION };
  if (req.kind === 'subscribe') {
    void ctx
      .ask<TelemetrySubscriptionsReply>(broker, { type: 'GetTelemetrySubscriptions', clientInstanceId: req.clientInstanceId, ...who }, { timeoutMs: loop.config.requestTimeoutMs })
      .then((reply) => ctx.send(ctx.self, { type: 'TelemetryAnswer', kind: 'subscribe', terminating: false, reply }));
    return;
  }
  const sub = req.subscription;
  Object.assign(loop.labels, host.labels());
  const payload = telemetryPayload(host.metrics(now), { selector: sub.selector, deltaTemporality: sub.deltaTemporality, ledger: loop.ledger, nowMs: now, startMs: loop.startMs, resource: loop.labels, scope: SCOPE });
  const { compressionType, metrics } = compressTelemetry(payload, sub.acceptedCompressionTypes, loop.unsupportedCodecs);
  const timeoutMs = req.terminating ? Math.min(loop.config.requestTimeoutMs, TERMINATING_PUSH_TIMEOUT_MS) : loop.config.requestTimeoutMs;
  void ctx
    .ask<PushTelemetryReply>(
      broker,
      { type: 'PushTelemetry', clientInstanceId: sub.clientInstanceId, subscriptionId: sub.subscriptionId, terminating: req.terminating, compressionType, metrics, ...who },
      { timeoutMs },
    )
    .then((reply) => ctx.send(ctx.self, { type: 'TelemetryAnswer', kind: 'push', terminating: req.terminating, reply }));
}

/** A broker answered (or the ask failed). */
export function onTelemetryAnswer(loop: TelemetryLoop | null, m: Extract<TelemetryMsg, { type: 'TelemetryAnswer' }>, ctx: Ctx): void {
  if (!loop) return;
  const now = ctx.clock.now();
  const before = loop.sender.state;
  // closing while a request was in flight: its answer is not the one waited for (the terminating push's is)
  const awaited = m.kind === 'subscribe' ? 'SubscriptionInProgress' : m.terminating ? 'TerminatingPushInProgress' : 'PushInProgress';
  if (before !== awaited) return;
  const r = m.reply;
  if (isFailure(r)) {
    // a broker that does not take the request at all (an older one) never will; one that did not answer: another is asked next
    const unsupported = r.reason === 'invalid-message';
    if (!unsupported) loop.brokerIndex++;
    loop.sender.onFailure(unsupported, now);
    ctx.log.debug('telemetry request failed', { request: m.kind, reason: r.reason, errorCode: r.errorCode, state: loop.sender.state });
  } else if (m.kind === 'subscribe' && r.type === 'GetTelemetrySubscriptionsResponse') {
    const firstId = loop.sender.clientInstanceId === null;
    if (loop.sender.onSubscriptions(r, now)) loop.ledger.reset();
    if (r.errorCode !== 0) ctx.log.debug('telemetry subscription refused', { errorCode: r.errorCode, state: loop.sender.state });
    else if (firstId) ctx.log.info('client telemetry registered', { clientInstanceId: r.clientInstanceId, pushIntervalMs: r.pushIntervalMs });
  } else if (m.kind === 'push' && r.type === 'PushTelemetryResponse') {
    loop.sender.onPushAnswer(r.errorCode, now);
    if (r.errorCode === 0) loop.pushes++;
    else ctx.log.debug('telemetry push refused', { errorCode: r.errorCode, reason: r.errorMessage, state: loop.sender.state });
  } else {
    loop.sender.onFailure(true, now);
  }
  if (loop.sender.state === 'Disabled') ctx.log.debug('client telemetry disabled');
  settled(loop, ctx);
  answerIdWaiters(loop, ctx);
}

/** After an answer or a request not made: ends telemetry for good, or waits for the next request. */
function settled(loop: TelemetryLoop, ctx: Ctx): void {
  if (loop.sender.state === 'Terminated') return finish(loop, ctx);
  reschedule(loop, ctx);
}

function finish(loop: TelemetryLoop, ctx: Ctx): void {
  loop.sender.close();
  ctx.timers.cancel(TELEMETRY_TIMER);
  answerIdWaiters(loop, ctx);
  loop.runClosedWaiters();
}

/** The client closes: its terminating push goes out now if it had a subscription; telemetry then ends. */
export function closeTelemetry(loop: TelemetryLoop | null, host: TelemetryHost, ctx: Ctx): void {
  if (!loop || loop.sender.done) {
    if (loop) finish(loop, ctx);
    return;
  }
  // a terminating push goes out now, unless one already is
  if (loop.sender.initiateClose()) onTelemetryTick(loop, host, ctx);
  else if (loop.sender.done) finish(loop, ctx);
}

/** A client's telemetry, as its Describe message reports it. */
export interface TelemetryDescription {
  state: TelemetryState;
  /** The id a broker gave this client instance (null until one has). */
  clientInstanceId: string | null;
  subscriptionId: number | null;
  pushIntervalMs: number | null;
  /** Pushes the brokers took. */
  pushes: number;
}

/** null without a push loop (enable.metrics.push false). */
export function describeTelemetry(loop: TelemetryLoop | null): TelemetryDescription | null {
  if (!loop) return null;
  const sub = loop.sender.subscription;
  return { state: loop.sender.state, clientInstanceId: sub?.clientInstanceId ?? null, subscriptionId: sub?.subscriptionId ?? null, pushIntervalMs: sub?.pushIntervalMs ?? null, pushes: loop.pushes };
}

/** Runs `fn` once telemetry has ended (at once without a push loop, or when it already has). */
export function whenTelemetryClosed(loop: TelemetryLoop | null, fn: () => void): void {
  if (!loop || loop.sender.state === 'Terminated') fn();
  else loop.waitClosed(fn);
}

function idReply(loop: TelemetryLoop | null, errorCode: number = ErrorCode.NONE): ClientInstanceIdReply {
  return { type: 'ClientInstanceId', errorCode, clientInstanceId: loop?.sender.clientInstanceId ?? null, telemetry: loop ? loop.sender.state : null };
}

/** Whether a GetClientInstanceId is answered now: the id is known, or none will come. */
function idSettled(loop: TelemetryLoop | null): boolean {
  return !loop || loop.sender.clientInstanceId !== null || loop.sender.done;
}

/**
 * GetClientInstanceId: answered at once when the id is known or none will come (no push loop,
 * telemetry over), or when timeoutMs is 0 (REQUEST_TIMED_OUT, as Kafka's zero timeout does not
 * wait); else it waits (answerIdWaiters, onClientInstanceIdDeadline).
 */
export function onGetClientInstanceId(loop: TelemetryLoop | null, m: Extract<TelemetryMsg, { type: 'GetClientInstanceId' }>, ctx: TelemetryRequestContext): void {
  if (!loop || idSettled(loop)) return ctx.reply(idReply(loop));
  const timeoutMs = typeof m.timeoutMs === 'number' && !Number.isNaN(m.timeoutMs) ? Math.max(0, m.timeoutMs) : 0;
  if (timeoutMs === 0) return ctx.reply(idReply(loop, ErrorCode.REQUEST_TIMED_OUT));
  const token = ctx.deferReply();
  if (!token) return; // sent, not asked: nobody to tell
  loop.idWaiters.push({ token, deadline: ctx.clock.now() + timeoutMs });
  armIdTimer(loop, ctx);
}

/** The 'telemetry-id' timer fired: those whose time is up are told REQUEST_TIMED_OUT. */
export function onClientInstanceIdDeadline(loop: TelemetryLoop | null, ctx: Ctx): void {
  if (!loop) return;
  const now = ctx.clock.now();
  const waiting = loop.idWaiters.splice(0);
  for (const w of waiting) {
    if (w.deadline <= now) ctx.replyTo(w.token, idReply(loop, ErrorCode.REQUEST_TIMED_OUT));
    else loop.idWaiters.push(w);
  }
  armIdTimer(loop, ctx);
}

/** Tells every GetClientInstanceId waiting, once the id is known or none will come. */
function answerIdWaiters(loop: TelemetryLoop, ctx: Ctx): void {
  if (loop.idWaiters.length === 0 || !idSettled(loop)) return;
  const reply = idReply(loop);
  for (const w of loop.idWaiters.splice(0)) ctx.replyTo(w.token, reply);
  ctx.timers.cancel(INSTANCE_ID_TIMER);
}

function armIdTimer(loop: TelemetryLoop, ctx: Ctx): void {
  if (loop.idWaiters.length === 0) return ctx.timers.cancel(INSTANCE_ID_TIMER);
  const next = Math.min(...loop.idWaiters.map((w) => w.deadline));
  ctx.timers.startSingle(INSTANCE_ID_TIMER, Math.min(Math.max(0, next - ctx.clock.now()), MAX_TIMER_MS), { type: 'ClientInstanceIdDeadline' });
}

/**
 * The four telemetry handlers of a client actor whose state holds its loop as `telemetry`, to
 * spread into its handlers (the producer, consumer and share consumer wire them alike; the
 * admin fetches metadata before a due push and counts the loop's requests, so it has its own).
 */
export function telemetryHandlers<S extends { telemetry: TelemetryLoop | null }>(host: (s: S) => TelemetryHost) {
  return {
    TelemetryTick(s: S, _m: Extract<TelemetryMsg, { type: 'TelemetryTick' }>, ctx: TelemetryContext): void {
      onTelemetryTick(s.telemetry, host(s), ctx);
    },
    TelemetryAnswer(s: S, m: Extract<TelemetryMsg, { type: 'TelemetryAnswer' }>, ctx: TelemetryContext): void {
      onTelemetryAnswer(s.telemetry, m, ctx);
    },
    GetClientInstanceId(s: S, m: Extract<TelemetryMsg, { type: 'GetClientInstanceId' }>, ctx: TelemetryRequestContext): void {
      onGetClientInstanceId(s.telemetry, m, ctx);
    },
    ClientInstanceIdDeadline(s: S, _m: Extract<TelemetryMsg, { type: 'ClientInstanceIdDeadline' }>, ctx: TelemetryContext): void {
      onClientInstanceIdDeadline(s.telemetry, ctx);
    },
  };
}
