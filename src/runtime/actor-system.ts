/**
 * A node: one actor system (a process or a worker thread) with a node id.
 *
 * Owned state: the registry path -> actor cell (every actor is addressed directly, none is a nact
 * child of another), the endpoints to peer nodes, the outstanding asks, dead-letter counters.
 * Delivery: an envelope for this node is validated against the target's definition and
 * dispatched into the actor's nact mailbox; anything else goes to the peer's endpoint. What
 * cannot be delivered is a dead letter: counted, logged at debug level, and answered with a
 * Failure when someone is waiting for a reply.
 */
import nact from 'nact';
import { nanoid } from 'nanoid';
import { assertPlainData, decodeEnvelope, encodeEnvelope, type DecodeResult } from '../protocol/codec.js';
import { ActorCell, type InternalMessage } from './actor-cell.js';
import type { ActorDefinition, AskOptions, SpawnOptions } from './actor-definition.js';
import { clientMessageProblem, validateMessage } from './actor-definition.js';
import { systemClock, type Clock } from './clock.js';
import type { Endpoint, Transport } from './endpoint.js';
import { childLogger, forgetNodeLoggers, type Logger } from './logger.js';
import { PendingAsks, makeFailure } from './pending-asks.js';
import { withTimeout } from './timeout.js';
import type { ActorRef, Envelope, Failure, FailureReason, Message, WorkAccount } from './types.js';

export const ASK_PATH = '$ask';

/** Learned relay routes kept at most (the map is cleared and relearned past this). */
const MAX_LEARNED_ROUTES = 10_000;

export interface ActorSystemOptions {
  nodeId: string;
  clock?: Clock;
  /** Encode and decode every envelope, even in-process, so nothing unserialisable slips through. */
  strictSerialization?: boolean;
  /** Default ask timeout in ms (30000). */
  defaultAskTimeoutMs?: number;
  /** How long stop() waits for in-flight handlers (5000 ms). */
  stopTimeoutMs?: number;
  /** What handler time charged to a work account is measured with (default: performance.now, ms). */
  workClock?: () => number;
}

export interface DeadLetter {
  envelope: Envelope;
  reason: FailureReason;
  detail: string;
}

export interface SystemStats {
  nodeId: string;
  actors: number;
  pendingAsks: number;
  deadLetters: number;
  deadLettersByReason: Partial<Record<FailureReason, number>>;
  peers: string[];
}

type Status = 'running' | 'stopping' | 'stopped';

let systemSeq = 0;

export class ActorSystem {
  readonly nodeId: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly strictSerialization: boolean;
  readonly defaultAskTimeoutMs: number;
  /** @internal the nact system every cell is spawned under */
  readonly nactRoot: unknown;

  private status: Status = 'running';
  /** Peer that relays envelopes for nodes this one has no endpoint to (e.g. a worker's parent). */
  private defaultRoute: string | null = null;
  /** node -> the peer that relayed its messages to us (see learnRoute). */
  private readonly learnedRoutes = new Map<string, string>();
  private readonly cells = new Map<string, ActorCell>();
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly transports = new Set<Transport>();
  private readonly asks: PendingAsks;
  private readonly stopTimeoutMs: number;
  private deadLetterCount = 0;
  private readonly deadLettersByReason: Partial<Record<FailureReason, number>> = {};
  private readonly deadLetterListeners = new Set<(d: DeadLetter) => void>();
  private readonly peerListeners = new Set<(peer: string, up: boolean) => void>();
  private stopping?: Promise<void>;
  /** The account the handler running now is charged to (Envelope.workAccount), if any. */
  private chargedTo: WorkAccount | null = null;
  private readonly workClock: () => number;

  constructor(opts: ActorSystemOptions) {
    if (!opts.nodeId || typeof opts.nodeId !== 'string') throw new Error('ActorSystem: nodeId must be a non-empty string');
    this.nodeId = opts.nodeId;
    this.clock = opts.clock ?? systemClock;
    this.strictSerialization = opts.strictSerialization ?? false;
    this.defaultAskTimeoutMs = opts.defaultAskTimeoutMs ?? 30_000;
    this.stopTimeoutMs = opts.stopTimeoutMs ?? 5_000;
    this.workClock = opts.workClock ?? (() => performance.now());
    this.log = childLogger({ node: this.nodeId, logger: 'samsa.runtime' });
    this.asks = new PendingAsks(this.clock);
    // nact 7 ignores a plain string name: it must be { name }. Names are unique per process so a
    // node restarted in the same process never collides with its previous incarnation.
    this.nactRoot = (nact.start as (opts: { name: string }) => unknown)({ name: `${sanitize(this.nodeId)}-${++systemSeq}-${nanoid(6).replace(/[^a-z0-9]/gi, 'x')}` });
  }

  get isRunning(): boolean {
    return this.status === 'running';
  }

  /** A reference to an actor on this node. */
  ref<M extends Message = Message>(path: string): ActorRef<M> {
    return { node: this.nodeId, path };
  }

  // ---------------------------------------------------------------- actors

  spawn<S, M extends Message, A>(
    def: ActorDefinition<S, M, A>,
    opts: SpawnOptions<A> = {},
    parent?: ActorCell,
  ): ActorRef<M> {
    if (this.status !== 'running') throw new Error(`node ${this.nodeId} is ${this.status}: cannot spawn`);
    const name = opts.name ?? `${def.kind}-${nanoid(8)}`;
    if (!name || name.includes('/') || name.startsWith('$')) {
      throw new Error(`invalid actor name '${name}': must be non-empty, without '/', not starting with '$'`);
    }
    const path = parent ? `${parent.ref.path}/${name}` : `/${name}`;
    if (this.cells.has(path)) throw new Error(`an actor already exists at ${this.nodeId}:${path}`);
    const cell = new ActorCell(this, def as unknown as ActorDefinition<unknown, Message, unknown>, path, opts.args, parent);
    this.cells.set(path, cell);
    parent?.children.add(path);
    cell.start();
    return cell.ref as ActorRef<M>;
  }

  /** Whether an actor is registered at `path` on this node. */
  hasActor(path: string): boolean {
    return this.cells.has(path);
  }

  /** Stops an actor on this node (and its children); its queued messages become dead letters. */
  async stopActor(ref: ActorRef<Message>): Promise<void> {
    if (ref.node !== this.nodeId) throw new Error(`stopActor: ${ref.node}:${ref.path} is not on node ${this.nodeId}`);
    const cell = this.cells.get(ref.path);
    if (cell) await cell.stop('stopped');
  }

  /** @internal called by a cell once it is stopped */
  unregister(cell: ActorCell): void {
    if (this.cells.get(cell.ref.path) === cell) this.cells.delete(cell.ref.path);
    cell.parent?.children.delete(cell.ref.path);
  }

  /** @internal */
  cellAt(path: string): ActorCell | undefined {
    return this.cells.get(path);
  }

  // ---------------------------------------------------------------- messaging

  /** Fire and forget. */
  send<M extends Message>(to: ActorRef<M>, msg: NoInfer<M>, from?: ActorRef<Message>): void {
    const env: Envelope = from ? { to, from, msg } : { to, msg };
    this.route(env);
  }

  /**
   * Request/response. Always settles: with the reply, or with a Failure carrying an errorCode
   * (REQUEST_TIMED_OUT on timeout, NETWORK_EXCEPTION when the node is unreachable, ...).
   */
  ask<R extends Message = Message, M extends Message = any>(
    to: ActorRef<M>,
    msg: NoInfer<M>,
    opts: AskOptions = {},
    from?: ActorRef<Message>,
  ): Promise<R | Failure> {
    const timeoutMs = opts.timeoutMs ?? this.defaultAskTimeoutMs;
    // the failure text needs only the type: a closure over `msg` would keep the whole message
    // (a producer's records, a batch's bytes) alive until the reply, out of the young generation
    const type = msg?.type;
    const { id, promise } = this.asks.open(to.node, () => `ask ${type} to ${to.node}:${to.path}`, timeoutMs);
    const env: Envelope = { to, replyTo: { node: this.nodeId, path: ASK_PATH }, correlationId: id, msg };
    if (from) env.from = from;
    if (opts.workAccount) env.workAccount = opts.workAccount;
    this.route(env);
    return promise as Promise<R | Failure>;
  }

  /** Sends `msg` as the reply to a request envelope (or its sender when it was a tell). */
  replyTo(token: { replyTo?: ActorRef<Message>; correlationId?: string }, msg: Message, from?: ActorRef<Message>): void {
    if (!token.replyTo) return;
    const env: Envelope = { to: token.replyTo, msg };
    if (token.correlationId !== undefined) env.correlationId = token.correlationId;
    if (from) env.from = from;
    this.route(env);
  }

  /**
   * Routes an envelope: local delivery, a peer's endpoint, or a dead letter. `fromAnotherNode`:
   * it came in through a transport (what an actor takes from its own node only is refused then).
   */
  route(env: Envelope, fromAnotherNode = false): void {
    if (this.status === 'stopped') {
      this.deadLetter(env, 'system-stopping', `node ${this.nodeId} is stopped`);
      return;
    }
    if (env.to.node === this.nodeId) {
      // sent while a charged handler runs: the work it causes here is charged to the same account
      if (this.chargedTo !== null && env.workAccount === undefined) env.workAccount = this.chargedTo;
      this.deliverLocal(this.strictSerialization ? this.roundTrip(env) : env, fromAnotherNode);
      return;
    }
    if (env.workAccount) env.workAccount = undefined;
    const learned = this.learnedRoutes.get(env.to.node);
    const ep =
      this.endpoints.get(env.to.node) ??
      (learned !== undefined ? this.endpoints.get(learned) : undefined) ??
      (this.defaultRoute !== null ? this.endpoints.get(this.defaultRoute) : undefined);
    if (!ep) {
      this.deadLetter(env, 'unknown-node', `no route from ${this.nodeId} to node ${env.to.node}`);
      return;
    }
    if (ep.peer !== env.to.node && env.from?.node === ep.peer) {
      // the default route sent it here and we would send it back: nobody knows that node
      this.deadLetter(env, 'unknown-node', `no route from ${this.nodeId} to node ${env.to.node}`);
      return;
    }
    // relayed: its bytes are copied on, and the buffer it came in is left to the collector
    if (env.payloadHold) env.payloadHold = undefined;
    const refused = ep.send(env);
    if (refused) this.deadLetter(env, refused, `${ep.kind} endpoint to ${ep.peer} refused the message`);
  }

  /**
   * Entry point for envelopes arriving from a transport (already decoded and shape-checked).
   * While the node is stopping, incoming traffic is refused.
   */
  receive(env: Envelope, viaPeer?: string): void {
    if (this.status !== 'running' && !(env.to.node === this.nodeId && env.to.path === ASK_PATH)) {
      this.deadLetter(env, 'system-stopping', `node ${this.nodeId} is stopping`);
      return;
    }
    if (viaPeer !== undefined) {
      this.learnRoute(env.replyTo?.node, viaPeer);
      this.learnRoute(env.from?.node, viaPeer);
    }
    this.route(env, true);
  }

  /**
   * A message from `node` reached us through `viaPeer` (relayed): answers to `node` go back the
   * same way when we have no endpoint of our own to it.
   */
  private learnRoute(node: string | undefined, viaPeer: string): void {
    if (node === undefined || node === viaPeer || node === this.nodeId || this.endpoints.has(node)) return;
    if (this.learnedRoutes.get(node) === viaPeer) return;
    if (this.learnedRoutes.size >= MAX_LEARNED_ROUTES) this.learnedRoutes.clear();
    this.learnedRoutes.set(node, viaPeer);
  }

  /** Entry point for raw envelope bytes from a transport. Bad bytes are logged and dropped. */
  receiveBytes(bytes: Uint8Array, fromPeer: string): void {
    this.receiveDecoded(decodeEnvelope(bytes), fromPeer);
  }

  /** An envelope a transport decoded itself: delivered, or rejected with the reason. */
  receiveDecoded(res: DecodeResult, fromPeer: string): void {
    if (!res.ok) {
      this.rejectInvalid(res.partial, `from ${fromPeer}: ${res.reason}`);
      return;
    }
    this.receive(res.envelope, fromPeer);
  }

  /** An envelope that failed validation: logged, and answered when a reply is expected. */
  rejectInvalid(partial: Partial<Envelope> | undefined, reason: string): void {
    this.countDeadLetter('invalid-message');
    this.log.warn('rejected invalid envelope', { reason });
    if (partial?.replyTo) {
      this.replyTo(partial, makeFailure('invalid-message', reason));
    }
  }

  /**
   * An envelope a client may not send at all (one that speaks for another node): logged, counted
   * as 'unauthorized' and dropped, unanswered (its reply address is not the client's).
   */
  refuseFromClient(client: string, env: Envelope, reason: string): void {
    this.refuse(env, 'refused a message from a client', reason, { client }, false);
  }

  /** Counts a message refused as 'unauthorized', logs why and, when `answer`, tells its sender. */
  private refuse(env: Envelope, what: string, reason: string, from: Record<string, unknown>, answer: boolean): void {
    this.countDeadLetter('unauthorized');
    this.log.warn(what, { ...from, to: `${env.to.node}:${env.to.path}`, type: env.msg.type, reason });
    if (answer && env.replyTo) this.replyTo(env, makeFailure('unauthorized', reason));
  }

  private deliverLocal(env: Envelope, fromAnotherNode: boolean): void {
    if (env.to.path === ASK_PATH) {
      if (env.correlationId === undefined || !this.asks.settle(env.correlationId, env.msg, env.client)) {
        this.log.debug('reply for an unknown or settled ask dropped', { correlationId: env.correlationId, type: env.msg.type });
      }
      return;
    }
    const cell = this.cells.get(env.to.path);
    if (!cell) {
      this.deadLetter(env, 'unknown-actor', `no actor at ${env.to.node}:${env.to.path}`);
      return;
    }
    if (fromAnotherNode && cell.localTypes?.has(env.msg.type)) {
      const reason = `actor kind '${cell.def.kind}' takes '${env.msg.type}' only from its own node`;
      return this.refuse(env, 'refused a message from another node', reason, { from: env.from?.node ?? env.replyTo?.node }, true);
    }
    if (env.client !== undefined) {
      const reason = clientMessageProblem(cell.def, env.msg);
      if (reason) return this.refuse(env, 'refused a message from a client', reason, { client: env.client }, true);
    }
    const invalid = validateMessage(cell.def, env.msg);
    if (invalid) {
      this.countDeadLetter('invalid-message');
      this.log.warn('rejected invalid message', { actor: env.to.path, type: env.msg.type, reason: invalid });
      if (env.replyTo) this.replyTo(env, makeFailure('invalid-message', invalid));
      return;
    }
    const refused = cell.enqueue(env);
    if (refused) this.deadLetter(env, refused, `actor ${env.to.path} refused the message (${refused})`);
  }

  /** @internal dispatch a runtime-internal message straight into a cell's mailbox */
  dispatchInternal(cell: ActorCell, msg: InternalMessage): void {
    nact.dispatch(cell.nactRef as never, msg);
  }

  private roundTrip(env: Envelope): Envelope {
    try {
      assertPlainData(env.msg);
    } catch (err) {
      throw new Error(`strictSerialization: ${(err as Error).message} (message ${env.msg?.type} to ${env.to.node}:${env.to.path})`);
    }
    const hold = env.payloadHold;
    if (hold) env.payloadHold = undefined;
    const account = env.workAccount;
    if (account) env.workAccount = undefined;
    const res = decodeEnvelope(encodeEnvelope(env));
    if (!res.ok) throw new Error(`strictSerialization: envelope does not survive msgpack: ${res.reason}`);
    // the copy's bytes are its own: the transport's buffer can go back once the handler is done
    if (hold) res.envelope.payloadHold = hold;
    if (account) res.envelope.workAccount = account;
    return res.envelope;
  }

  /**
   * @internal runs a handler charged to `account`: its synchronous run is added to it, and what
   * it sends to this node's actors carries the account on (an async handler's later steps are
   * not charged).
   */
  runCharged<T>(account: WorkAccount, run: () => T): T {
    const outer = this.chargedTo;
    this.chargedTo = account;
    const t0 = this.workClock();
    try {
      return run();
    } finally {
      account.ms += this.workClock() - t0;
      this.chargedTo = outer;
    }
  }

  // ---------------------------------------------------------------- dead letters

  deadLetter(env: Envelope, reason: FailureReason, detail: string): void {
    this.countDeadLetter(reason);
    this.log.debug('dead letter', { reason, detail, to: `${env.to?.node}:${env.to?.path}`, type: env.msg?.type });
    for (const l of this.deadLetterListeners) l({ envelope: env, reason, detail });
    if (!env.replyTo || env.msg?.type === 'Failure') return;
    if (env.replyTo.node === this.nodeId && env.replyTo.path === ASK_PATH) {
      if (env.correlationId !== undefined) this.asks.fail(env.correlationId, reason, detail);
      return;
    }
    if (this.status === 'stopped') return;
    this.replyTo(env, makeFailure(reason, detail));
  }

  private countDeadLetter(reason: FailureReason): void {
    this.deadLetterCount++;
    this.deadLettersByReason[reason] = (this.deadLettersByReason[reason] ?? 0) + 1;
  }

  onDeadLetter(listener: (d: DeadLetter) => void): () => void {
    this.deadLetterListeners.add(listener);
    return () => this.deadLetterListeners.delete(listener);
  }

  // ---------------------------------------------------------------- endpoints

  /** Registers the endpoint that reaches `ep.peer`, replacing any previous one. */
  attachEndpoint(ep: Endpoint): void {
    if (ep.peer === this.nodeId) throw new Error(`endpoint to self (${this.nodeId}) is not allowed`);
    this.endpoints.set(ep.peer, ep);
    this.log.debug('peer up', { peer: ep.peer, transport: ep.kind });
    for (const l of this.peerListeners) l(ep.peer, true);
  }

  /** Removes the endpoint (if it is still the registered one) and fails asks waiting on that peer. */
  detachEndpoint(ep: Endpoint, reason: string): void {
    if (this.endpoints.get(ep.peer) !== ep) return;
    this.endpoints.delete(ep.peer);
    const failed = this.asks.failNode(ep.peer, 'endpoint-closed', `connection to ${ep.peer} closed: ${reason}`);
    this.log.debug('peer down', { peer: ep.peer, transport: ep.kind, reason, failedAsks: failed });
    for (const l of this.peerListeners) l(ep.peer, false);
  }

  /**
   * Sends envelopes for nodes without a direct endpoint through `peer`, which relays them (a
   * worker through its parent, a client through the node it connected to). null turns it off.
   */
  setDefaultRoute(peer: string | null): void {
    this.defaultRoute = peer;
  }

  endpointTo(node: string): Endpoint | undefined {
    return this.endpoints.get(node);
  }

  peers(): string[] {
    return [...this.endpoints.keys()];
  }

  /** The endpoint that reaches `peer` directly, if there is one (for diagnostics). */
  endpoint(peer: string): Endpoint | undefined {
    return this.endpoints.get(peer);
  }

  onPeerChange(listener: (peer: string, up: boolean) => void): () => void {
    this.peerListeners.add(listener);
    return () => this.peerListeners.delete(listener);
  }

  addTransport(t: Transport): void {
    this.transports.add(t);
  }

  // ---------------------------------------------------------------- lifecycle

  stats(): SystemStats {
    return {
      nodeId: this.nodeId,
      actors: this.cells.size,
      pendingAsks: this.asks.size,
      deadLetters: this.deadLetterCount,
      deadLettersByReason: { ...this.deadLettersByReason },
      peers: this.peers(),
    };
  }

  /**
   * Graceful stop: refuse new incoming traffic, let in-flight handlers settle, stop every actor
   * (queued messages become dead letters, onStop hooks run), fail outstanding asks, close
   * transports and endpoints. Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    this.status = 'stopping';
    const cells = [...this.cells.values()];
    await withTimeout(Promise.allSettled(cells.map((c) => c.settled())), this.stopTimeoutMs);
    const topLevel = cells.filter((c) => !c.parent);
    await withTimeout(Promise.allSettled(topLevel.map((c) => c.stop('system-stopping'))), this.stopTimeoutMs);
    this.status = 'stopped';
    this.asks.failAll('system-stopping', `node ${this.nodeId} stopped`);
    await Promise.allSettled([...this.transports].map((t) => t.close()));
    await Promise.allSettled([...this.endpoints.values()].map((ep) => ep.close('node stopping')));
    this.endpoints.clear();
    nact.stop(this.nactRoot as never);
    this.log.debug('node stopped');
    forgetNodeLoggers(this.nodeId);
  }
}

function sanitize(s: string): string {
  return s.replace(/[^a-z0-9-_.]/gi, '_');
}
