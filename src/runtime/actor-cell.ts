/**
 * One running actor: its definition, its nact mailbox, its state and its timers.
 *
 * Owned state: the nact actor that serialises its messages, the user state (held by nact),
 * the actor's timers, its children's paths, a restart history for the supervision budget.
 * Handles: envelopes validated by the system, plus the internal `init` kick.
 * Emits: whatever the user's handlers send; a Failure reply when a handler crashes on an ask.
 */
import nact from 'nact';
import type {
  ActorContext,
  ActorDefinition,
  ActorTimers,
  AskOptions,
  BaseContext,
  Directive,
  ReplyToken,
  SpawnOptions,
} from './actor-definition.js';
import type { ActorSystem } from './actor-system.js';
import { ChurnTable } from './churn-table.js';
import type { Clock, TimerHandle } from './clock.js';
import type { Logger } from './logger.js';
import { makeFailure } from './pending-asks.js';
import { withTimeout } from './timeout.js';
import type { ActorRef, Envelope, Failure, FailureReason, Message, PayloadHold } from './types.js';
import { sameRef } from './types.js';

/** Runtime-internal items of nact's mailbox; they never come from a transport. */
export interface InternalMessage {
  readonly $internal: 'init' | 'drain' | 'restart';
  /** For 'restart': the state the crashed incarnation had, for its onStop. */
  readonly old?: unknown;
}

const UNINIT: unique symbol = Symbol('uninitialised');
const DEFAULT_MAILBOX_LIMIT = 1_000_000;
/** Messages handled in one nact turn before yielding to the event loop. */
const MAX_BATCH = 256;
const DEFAULT_MAX_RESTARTS = 10;
const DEFAULT_RESTART_WINDOW_MS = 60_000;

type Status = 'running' | 'stopping' | 'stopped';

interface NactCrashContext {
  reset: symbol;
  resume: symbol;
  stop: symbol;
}

let nactNameSeq = 0;

/** A FIFO with O(1) shift: an array and a head index, compacted as it drains. */
class Mailbox<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** Puts `items` in front of what is queued, in their order. */
  prepend(items: readonly T[]): void {
    this.items = [...items, ...this.items.slice(this.head)];
    this.head = 0;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as PromiseLike<unknown>).then === 'function';
}

/** The context available outside a message: in init and onStop. */
class CellContext<M extends Message> implements BaseContext<M> {
  constructor(protected readonly cell: ActorCell) {}

  get self(): ActorRef<M> {
    return this.cell.ref as ActorRef<M>;
  }
  get nodeId(): string {
    return this.cell.system.nodeId;
  }
  get log(): Logger {
    return this.cell.log;
  }
  get clock(): Clock {
    return this.cell.system.clock;
  }
  get timers(): ActorTimers<M> {
    return this.cell.timers as ActorTimers<M>;
  }
  send<T extends Message>(to: ActorRef<T>, msg: NoInfer<T>): void {
    this.cell.system.send(to, msg, this.cell.ref);
  }
  ask<R extends Message = Message, T extends Message = any>(to: ActorRef<T>, msg: NoInfer<T>, opts?: AskOptions): Promise<R | Failure> {
    return this.cell.system.ask<R, T>(to, msg, opts, this.cell.ref);
  }
  spawn<S2, M2 extends Message, A2>(def: ActorDefinition<S2, M2, A2>, opts?: SpawnOptions<A2>): ActorRef<M2> {
    return this.cell.system.spawn(def, opts, this.cell);
  }
  stop(ref?: ActorRef<Message>): void {
    if (!ref || sameRef(ref, this.cell.ref)) {
      this.cell.requestStop();
      return;
    }
    if (ref.node !== this.cell.system.nodeId) {
      this.cell.log.warn('stop of a remote actor ignored: stop it from its own node', { target: `${ref.node}:${ref.path}` });
      return;
    }
    void this.cell.system.stopActor(ref);
  }
  replyTo<R extends Message>(token: ReplyToken, msg: R): void {
    this.cell.system.replyTo(token, msg, this.cell.ref);
  }
  unstashAll(): void {
    this.cell.unstashAll();
  }
  get stashSize(): number {
    return this.cell.stashSize;
  }
}

/**
 * The context of one message. It keeps the message's reply address, not the message: handlers
 * hand `ctx` to callbacks that outlive them (`ctx.ask(...).then(r => ctx.send(...))`), and a
 * context holding its envelope kept the whole message (a producer's records, a fetch
 * response's bytes) alive until the callback ran, long enough to be promoted out of the young
 * generation.
 */
class MessageContext<M extends Message> extends CellContext<M> implements ActorContext<M> {
  replied = false;
  private readonly from: ActorRef<Message> | undefined;
  private readonly replyAddress: ActorRef<Message> | undefined;
  private readonly correlationId: string | undefined;
  private readonly msgType: string;
  private readonly hold: PayloadHold | null;

  constructor(cell: ActorCell, env: Envelope) {
    super(cell);
    this.from = env.from;
    this.replyAddress = env.replyTo;
    this.correlationId = env.correlationId;
    this.msgType = env.msg.type;
    this.hold = env.payloadHold ?? null;
  }

  payloadHold(): PayloadHold | null {
    return this.hold;
  }

  get sender(): ActorRef<Message> | undefined {
    return this.from;
  }

  reply<R extends Message>(msg: R): void {
    this.replied = true;
    const token = this.deferReply();
    if (token) this.cell.system.replyTo(token, msg, this.cell.ref);
    else this.cell.log.debug('reply to a message with no sender dropped', { type: this.msgType, reply: msg.type });
  }

  stash(): void {
    this.replied = true;
    this.cell.stashCurrent(this);
  }

  deferReply(): ReplyToken | undefined {
    this.replied = true;
    if (this.replyAddress) return this.correlationId !== undefined ? { replyTo: this.replyAddress, correlationId: this.correlationId } : { replyTo: this.replyAddress };
    if (this.from) return { replyTo: this.from };
    return undefined;
  }
}

class CellTimers implements ActorTimers<Message> {
  /** A ChurnTable: some actors re-arm a timer on every message (see churn-table.ts). */
  private readonly active = new ChurnTable<string, TimerHandle>();

  constructor(private readonly cell: ActorCell) {}

  startSingle(key: string, ms: number, msg: Message): void {
    this.cancel(key);
    const handle = this.cell.system.clock.setTimeout(() => {
      this.active.delete(key);
      this.cell.system.route({ to: this.cell.ref, msg });
    }, ms);
    this.active.set(key, handle);
  }

  startPeriodic(key: string, ms: number, msg: Message): void {
    this.cancel(key);
    const handle = this.cell.system.clock.setInterval(() => this.cell.system.route({ to: this.cell.ref, msg }), ms);
    this.active.set(key, handle);
  }

  cancel(key: string): void {
    const h = this.active.get(key);
    if (h) {
      this.cell.system.clock.clearTimer(h);
      this.active.delete(key);
    }
  }

  isActive(key: string): boolean {
    return this.active.has(key);
  }

  cancelAll(): void {
    for (const key of this.active.keys()) this.cancel(key);
  }
}

export class ActorCell {
  readonly ref: ActorRef<Message>;
  readonly log: Logger;
  readonly children = new Set<string>();
  readonly timers: CellTimers;
  nactRef: unknown;

  private status: Status = 'running';
  /** The actor's state; owned here (not by nact) so a crash mid-turn keeps earlier messages' effects. */
  private state: unknown = UNINIT;
  private readonly mailbox = new Mailbox<Envelope>();
  /** Messages set aside by `ctx.stash()`, in arrival order. */
  private stashed: Envelope[] = [];
  /** A drain turn is queued in nact's mailbox. */
  private scheduled = false;
  private inFlight: Promise<unknown> | null = null;
  private current: MessageContext<Message> | null = null;
  private currentEnv: Envelope | null = null;
  private stopRequested = false;
  /** Between a crash decided as restart and the end of the old incarnation's cleanup. */
  private restarting = false;
  private stopPromise?: Promise<void>;
  private afterStopResolve?: () => void;
  private readonly restarts: number[] = [];
  private readonly baseContext: CellContext<Message>;
  private readonly mailboxLimit: number;
  /** The definition's localMessages as a set (null: none), looked up for every message from another node. */
  readonly localTypes: ReadonlySet<string> | null;

  constructor(
    readonly system: ActorSystem,
    readonly def: ActorDefinition<unknown, Message, unknown>,
    path: string,
    private readonly args: unknown,
    readonly parent: ActorCell | undefined,
  ) {
    this.ref = { node: system.nodeId, path };
    this.log = system.log.child({ actor: path, kind: def.kind });
    this.timers = new CellTimers(this);
    this.baseContext = new CellContext(this);
    this.mailboxLimit = def.mailboxLimit ?? DEFAULT_MAILBOX_LIMIT;
    this.localTypes = def.localMessages && def.localMessages.length > 0 ? new Set(def.localMessages) : null;
  }

  /**
   * nact runs the actor's turns (one at a time, each in its own macrotask, with nact's crash
   * handling); a turn drains up to MAX_BATCH messages from this cell's mailbox. Paying nact's
   * per-item scheduling once per batch instead of once per message is what lets an actor keep
   * up with a transport that delivers thousands of messages per read.
   */
  start(): void {
    this.nactRef = nact.spawn(
      this.system.nactRoot as never,
      ((_state: unknown, item: unknown) => this.onTurn(item)) as never,
      `a${++nactNameSeq}`,
      {
        initialState: null,
        onCrash: ((msg: unknown, err: unknown, ctx: NactCrashContext) => this.onCrash(msg, err, ctx)) as never,
        afterStop: (() => this.afterStopResolve?.()) as never,
      } as never,
    );
    this.system.dispatchInternal(this, { $internal: 'init' });
  }

  /** Queues an envelope. Returns null when accepted, or why not. */
  enqueue(env: Envelope): FailureReason | null {
    if (this.status !== 'running') return 'actor-stopped';
    if (this.mailbox.length >= this.mailboxLimit) return 'overflow';
    this.mailbox.push(env);
    this.schedule();
    return null;
  }

  /** Sets aside the message whose handler `ctx` belongs to (only while that handler runs). */
  stashCurrent(ctx: MessageContext<Message>): void {
    if (this.current !== ctx || !this.currentEnv) throw new Error('stash() is only valid while the message\'s handler runs');
    if (this.stashed.length >= this.mailboxLimit) {
      this.system.deadLetter(this.currentEnv, 'overflow', `actor ${this.ref.path}'s stash is full`);
      return;
    }
    this.stashed.push(this.currentEnv);
  }

  unstashAll(): void {
    if (this.stashed.length === 0) return;
    const items = this.stashed;
    this.stashed = [];
    this.mailbox.prepend(items);
    this.schedule();
  }

  get stashSize(): number {
    return this.stashed.length;
  }

  /** Messages waiting in the mailbox. */
  get mailboxSize(): number {
    return this.mailbox.length;
  }

  /** Resolves once the handler running now (if any) has settled. */
  settled(): Promise<unknown> {
    return this.inFlight
      ? this.inFlight.then(
          () => undefined,
          () => undefined,
        )
      : Promise.resolve();
  }

  private schedule(): void {
    if (this.scheduled || this.status === 'stopped') return;
    this.scheduled = true;
    this.system.dispatchInternal(this, { $internal: 'drain' });
  }

  // nact calls this for each item of its mailbox (init kicks and drain turns), one at a time.
  private onTurn(item: unknown): unknown {
    const kind = (item as InternalMessage).$internal;
    if (kind === 'restart') return this.restart((item as InternalMessage).old);
    if (kind === 'init') {
      if (this.state !== UNINIT || this.status !== 'running') return null;
      return this.initState();
    }
    this.scheduled = false;
    return this.drain();
  }

  /** Builds the state; returns a promise when init is async. */
  private initState(): unknown {
    const s = this.def.init(this.baseContext, this.args);
    if (!isThenable(s)) {
      this.state = s;
      return null;
    }
    return this.track(
      Promise.resolve(s).then((v) => {
        this.state = v;
        this.inFlight = null;
      }),
    );
  }

  /**
   * Ends the crashed incarnation like a stop (children stopped, onStop with its last state),
   * then builds a fresh state; messages wait meanwhile.
   */
  private async restart(old: unknown): Promise<null> {
    await Promise.allSettled([...this.children].map((p) => this.system.cellAt(p)?.stop('stopped')));
    if (this.def.onStop && old !== UNINIT) {
      try {
        await withTimeout(Promise.resolve(this.def.onStop(old, this.baseContext)), 5_000);
      } catch (err) {
        this.log.error('onStop failed during restart', { error: (err as Error)?.message });
      }
    }
    this.restarting = false;
    if (this.stashed.length > 0) {
      this.mailbox.prepend(this.stashed);
      this.stashed = [];
    }
    if (this.status === 'running') await this.initState();
    if (this.mailbox.length > 0) this.schedule();
    return null;
  }

  /** Runs queued messages back to back until one handler is async, the batch is done, or the mailbox is empty. */
  private drain(): unknown {
    if (this.restarting) return null;
    for (let n = 0; n < MAX_BATCH; n++) {
      const env = this.mailbox.shift();
      if (env === undefined) return null;
      if (this.status !== 'running') {
        this.system.deadLetter(env, 'actor-stopped', `actor ${this.ref.path} is stopping`);
        continue;
      }
      if (this.state === UNINIT) {
        const init = this.initState();
        if (init) return this.track((init as Promise<void>).then(() => this.continueWith(env)));
      }
      const pending = this.runHandler(env);
      if (pending) return pending.then(() => this.afterAsync());
    }
    if (this.mailbox.length > 0) this.schedule();
    return null;
  }

  private continueWith(env: Envelope): unknown {
    const pending = this.runHandler(env);
    return pending ? pending.then(() => this.afterAsync()) : this.afterAsync();
  }

  private afterAsync(): null {
    if (this.mailbox.length > 0) this.schedule();
    return null;
  }

  /** Runs one handler; returns a promise only when the handler is async. */
  private runHandler(env: Envelope): Promise<unknown> | null {
    const ctx = new MessageContext<Message>(this, env);
    this.current = ctx;
    this.currentEnv = env;
    const handler = (this.def.handlers as Record<string, (s: unknown, m: Message, c: ActorContext<Message>) => unknown>)[env.msg.type]!;
    const account = env.workAccount;
    const out = account === undefined ? handler(this.state, env.msg, ctx) : this.system.runCharged(account, () => handler(this.state, env.msg, ctx));
    if (isThenable(out)) {
      return this.track(
        Promise.resolve(out).then((next) => {
          if (next !== undefined) this.state = next;
          this.finish();
        }),
      );
    }
    if (out !== undefined) this.state = out;
    this.finish();
    return null;
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight = p;
    return p;
  }

  private finish(): void {
    this.current = null;
    this.currentEnv = null;
    this.inFlight = null;
    if (this.stopRequested) void this.stop('stopped');
  }

  requestStop(): void {
    if (this.current || this.inFlight) this.stopRequested = true;
    else void this.stop('stopped');
  }

  private onCrash(_item: unknown, err: unknown, nctx: NactCrashContext): symbol {
    const env = this.currentEnv ?? undefined;
    const replied = this.current?.replied ?? false;
    this.current = null;
    this.currentEnv = null;
    this.inFlight = null;
    this.log.error('actor crashed', {
      message: env ? env.msg.type : 'init',
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    if (env?.replyTo && !replied) {
      this.system.replyTo(env, makeFailure('actor-crashed', `actor ${this.ref.path} crashed handling ${env.msg.type}: ${String((err as Error)?.message ?? err)}`));
    }
    if (this.status !== 'running') return nctx.resume;
    const directive = this.decide(err, env?.msg);
    switch (directive) {
      case 'restart': {
        this.log.warn('restarting actor with fresh state');
        this.timers.cancelAll();
        const old = this.state;
        this.state = UNINIT;
        this.restarting = true;
        this.system.dispatchInternal(this, { $internal: 'restart', old });
        return nctx.resume;
      }
      case 'resume':
        break;
      case 'stop':
        void this.stop('actor-crashed');
        return nctx.resume;
    }
    // the turn that crashed may have left messages behind
    this.scheduled = false;
    if (this.mailbox.length > 0) this.schedule();
    return nctx.resume;
  }

  private decide(err: unknown, msg: Message | undefined): Directive {
    const policy = this.def.supervision;
    let directive: Directive;
    let maxRestarts = DEFAULT_MAX_RESTARTS;
    let withinMs = DEFAULT_RESTART_WINDOW_MS;
    if (typeof policy === 'string') directive = policy;
    else {
      directive = policy.decide ? policy.decide(err, msg ?? { type: '$init' }) : 'restart';
      maxRestarts = policy.maxRestarts ?? maxRestarts;
      withinMs = policy.withinMs ?? withinMs;
    }
    if (directive !== 'restart') return directive;
    const now = this.system.clock.now();
    this.restarts.push(now);
    while (this.restarts.length && this.restarts[0]! < now - withinMs) this.restarts.shift();
    if (this.restarts.length > maxRestarts) {
      this.log.error('restart budget exhausted: stopping actor', { maxRestarts, withinMs });
      return 'stop';
    }
    return 'restart';
  }

  /**
   * Stops this actor and its children. Messages still queued become dead letters (failing any
   * asks among them), then the definition's onStop runs with the last state.
   */
  stop(reason: FailureReason | 'stopped'): Promise<void> {
    this.stopPromise ??= this.doStop(reason);
    return this.stopPromise;
  }

  private async doStop(reason: FailureReason | 'stopped'): Promise<void> {
    this.status = 'stopping';
    this.timers.cancelAll();
    this.system.unregister(this);
    await Promise.allSettled([...this.children].map((p) => this.system.cellAt(p)?.stop(reason)));
    if (!this.stopRequested) await withTimeout(this.settled(), 5_000);
    await new Promise<void>((resolve) => {
      this.afterStopResolve = resolve;
      nact.stop(this.nactRef as never);
    });
    const state = this.state;
    const why: FailureReason = reason === 'stopped' ? 'actor-stopped' : reason;
    for (let env = this.mailbox.shift(); env !== undefined; env = this.mailbox.shift()) {
      this.system.deadLetter(env, why, `actor ${this.ref.path} stopped`);
    }
    for (const env of this.stashed) this.system.deadLetter(env, why, `actor ${this.ref.path} stopped`);
    this.stashed = [];
    if (this.def.onStop && state !== UNINIT && !isThenable(state)) {
      try {
        await withTimeout(Promise.resolve(this.def.onStop(state, this.baseContext)), 5_000);
      } catch (err) {
        this.log.error('onStop failed', { error: (err as Error)?.message });
      }
    }
    this.status = 'stopped';
    this.log.debug('actor stopped', { reason });
  }
}
