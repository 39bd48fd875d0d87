/**
 * How a user defines an actor: an initial state, one handler per message type, a supervision
 * policy and (optionally) a schema checked at the boundary. This is the extension point:
 *
 *   type CounterMsg = { type: 'Add'; n: number } | { type: 'Get' };
 *   export const counter = defineActor<{ total: number }, CounterMsg>({
 *     kind: 'counter',
 *     init: () => ({ total: 0 }),
 *     supervision: 'restart',
 *     schema: { Add: { n: 'number' } },
 *     handlers: {
 *       Add: (s, m) => ({ total: s.total + m.n }),
 *       Get: (s, _m, ctx) => { ctx.reply({ type: 'Total', total: s.total }); },
 *     },
 *   });
 *
 * The `handlers` map must name every message type of the union (the compiler checks it), which
 * is our exhaustive switch. A handler returns the next state, or nothing to keep the state.
 */
import type { Clock, TimerHandle } from './clock.js';
import type { Logger } from './logger.js';
import type { ActorRef, Failure, Message, PayloadHold, WorkAccount } from './types.js';

export type Directive = 'restart' | 'resume' | 'stop';

/**
 * What happens when a handler throws or rejects:
 * - 'restart': the crashed incarnation ends like a stop (timers cancelled, children stopped,
 *   `onStop` run with its last state), then `init` builds a fresh state and the mailbox goes on;
 * - 'resume': state stays as it was before the failed message, the mailbox goes on;
 * - 'stop': the actor stops, its queued messages become dead letters.
 * An object form decides per error, with a restart budget (more than `maxRestarts` within
 * `withinMs` stops the actor).
 */
export type SupervisionPolicy =
  | Directive
  | {
      decide?: (error: unknown, msg: Message) => Directive;
      maxRestarts?: number;
      withinMs?: number;
    };

/**
 * Field kinds for boundary validation; a trailing `?` makes a field optional. 'integer': a whole
 * number, or a bigint (msgpack's integers beyond 2^53, for 64-bit fields); 'safeInteger': a
 * number that is a safe integer, for what a handler counts with or stores as JSON. 'batches':
 * bytes, or a non-empty list of bytes (record batches handed over as the producer built them).
 */
export type FieldKind = 'string' | 'number' | 'integer' | 'safeInteger' | 'boolean' | 'bytes' | 'batches' | 'ref' | 'array' | 'object' | 'any';
export type FieldSpec = FieldKind | `${FieldKind}?` | NestedSpec;

/**
 * A field checked inside: a list whose every element matches `items` (`arrayOf`), or an object
 * whose fields match `fields` (`objectOf`). For the fields of cold messages that handlers walk
 * (a message from another node may carry anything there); a list is checked element by element.
 */
export interface NestedSpec {
  readonly kind: 'array' | 'object';
  readonly items?: FieldSpec;
  readonly fields?: Readonly<Record<string, FieldSpec>>;
  /** Absent or null is accepted. */
  readonly optional?: boolean;
}

/** A list whose every element matches `items`. */
export function arrayOf(items: FieldSpec, opts: { optional?: boolean } = {}): NestedSpec {
  return { kind: 'array', items, optional: opts.optional ?? false };
}

/** An object whose fields match `fields` (other fields are not looked at). */
export function objectOf(fields: Readonly<Record<string, FieldSpec>>, opts: { optional?: boolean } = {}): NestedSpec {
  return { kind: 'object', fields, optional: opts.optional ?? false };
}

/**
 * The messages a client may send an actor (Envelope.client: a node outside the cluster, joined
 * through a client listener or a node's TCP port): 'all', or each type a client may send, `true`
 * or a check that returns why this one is refused (a follower's fetch among client fetches; it
 * runs before the schema's checks, and one that throws refuses the message). Every other
 * message from a client is refused with an 'unauthorized' Failure.
 */
export type ClientMessages<M extends Message> =
  | 'all'
  | { readonly [K in M['type']]?: true | ((msg: Extract<M, { type: K }>) => string | null) };

export type MessageSchema<M extends Message> = {
  [K in M['type']]?: { [F in Exclude<keyof Extract<M, { type: K }>, 'type'>]?: FieldSpec };
};

export interface AskOptions {
  /** Milliseconds before the ask settles with a REQUEST_TIMED_OUT Failure. Default 30000. */
  timeoutMs?: number;
  /**
   * Charge the asked actor's handling of the message, and what it sends on this node meanwhile,
   * to this account (Envelope.workAccount). Asked from a handler that is charged already, the
   * ask carries that handler's account without it.
   */
  workAccount?: WorkAccount;
}

/** A reply address captured from a request, to answer it later (e.g. from a purgatory). */
export interface ReplyToken {
  readonly replyTo: ActorRef<Message>;
  readonly correlationId?: string;
}

/** Timers that deliver a message to the actor itself, so timer work is serialised with the mailbox. */
export interface ActorTimers<M extends Message> {
  startSingle(key: string, ms: number, msg: M): void;
  startPeriodic(key: string, ms: number, msg: M): void;
  cancel(key: string): void;
  isActive(key: string): boolean;
}

export interface SpawnOptions<A> {
  /** Path segment under the parent (or under the root for top-level actors). */
  name?: string;
  /** Passed to the definition's `init`. */
  args?: A;
}

/** What every piece of actor code can reach. */
export interface BaseContext<M extends Message> {
  readonly self: ActorRef<M>;
  readonly nodeId: string;
  readonly log: Logger;
  readonly clock: Clock;
  readonly timers: ActorTimers<M>;
  send<T extends Message>(to: ActorRef<T>, msg: NoInfer<T>): void;
  /**
   * Request/response; settles with the reply or a Failure (which carries an errorCode). The
   * message is checked against the target's type when the reply type is left to inference; naming
   * the reply type (`ask<MyReply>(...)`) leaves the message unchecked, as TypeScript cannot infer
   * the second type parameter once the first is given.
   */
  ask<R extends Message = Message, T extends Message = any>(
    to: ActorRef<T>,
    msg: NoInfer<T>,
    opts?: AskOptions,
  ): Promise<R | Failure>;
  spawn<S2, M2 extends Message, A2>(def: ActorDefinition<S2, M2, A2>, opts?: SpawnOptions<A2>): ActorRef<M2>;
  /** Stops the given actor, or this actor (after the current handler) when no ref is given. */
  stop(ref?: ActorRef<Message>): void;
  /** Answers a request captured earlier with `deferReply()`. */
  replyTo<R extends Message>(token: ReplyToken, msg: R): void;
  /**
   * Puts every message set aside with `stash()` back at the front of the mailbox, in the order
   * they came, ahead of what is queued (Akka's unstashAll).
   */
  unstashAll(): void;
  /** Messages set aside with `stash()` and not yet put back. */
  readonly stashSize: number;
}

/** The context a handler gets for one message. */
export interface ActorContext<M extends Message> extends BaseContext<M> {
  /** The actor that sent this message, when it said. */
  readonly sender: ActorRef<Message> | undefined;
  /** Answers the current message: to its asker, or else to its sender. */
  reply<R extends Message>(msg: R): void;
  /** Captures the current reply address to answer after this handler returns. */
  deferReply(): ReplyToken | undefined;
  /**
   * Sets the current message aside, with its reply address, until `unstashAll()`: for an actor
   * that cannot serve a request in its present state but will in a later one (a controller
   * waiting for its quorum to elect it). A stopping actor's stash becomes dead letters (failing
   * their asks); a restarted actor gets its stash back in front of its mailbox.
   */
  stash(): void;
  /**
   * The current message's claim on the transport memory its byte fields are views of, when it
   * has one (a worker port's receive buffer), else null. Release it once nothing will read
   * those bytes again and the transport can reuse the memory for what the sender sends next;
   * a message never released leaves its buffer to the collector, as before. A handler that
   * copies what it keeps, or keeps nothing, may release as soon as it is done reading.
   */
  payloadHold(): PayloadHold | null;
}

export type Handler<S, M extends Message, K extends M['type']> = (
  state: S,
  msg: Extract<M, { type: K }>,
  ctx: ActorContext<M>,
) => S | void | Promise<S | void>;

export type Handlers<S, M extends Message> = { [K in M['type']]: Handler<S, M, K> };

export interface ActorDefinition<S, M extends Message, A = void> {
  /** A short name of the actor's kind, used in generated names and logs. */
  readonly kind: string;
  /** Builds the state at start and after a restart. */
  init(ctx: BaseContext<M>, args: A): S | Promise<S>;
  readonly handlers: Handlers<S, M>;
  readonly supervision: SupervisionPolicy;
  /** Field checks applied to every incoming message before it reaches a handler. */
  readonly schema?: MessageSchema<M>;
  /**
   * What clients may send this actor (see ClientMessages). Absent: nothing; an actor of the
   * cluster's own takes messages from its nodes only.
   */
  readonly clientMessages?: ClientMessages<M>;
  /**
   * Message types this actor takes only from its own node: its timers' and its own messages,
   * what its parent or children send it. One that came from another node (any transport) is
   * refused with an 'unauthorized' Failure, even from a node of the cluster.
   */
  readonly localMessages?: readonly M['type'][];
  /** Messages queued beyond this many are refused as dead letters (reason 'overflow'). Default 1,000,000. */
  readonly mailboxLimit?: number;
  /** Cleanup when the actor stops (close files, flush). Must settle. */
  onStop?(state: S, ctx: BaseContext<M>): void | Promise<void>;
}

/** Identity function that gives a definition its full type (and checks the handler map). */
export function defineActor<S, M extends Message, A = void>(def: ActorDefinition<S, M, A>): ActorDefinition<S, M, A> {
  return def;
}

function kindOk(kind: FieldKind, v: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && !Number.isNaN(v);
    case 'integer':
      return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
    case 'safeInteger':
      return Number.isSafeInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'batches':
      return v instanceof Uint8Array || (Array.isArray(v) && v.length > 0 && v.every((p) => p instanceof Uint8Array));
    case 'ref':
      return (
        typeof v === 'object' &&
        v !== null &&
        typeof (v as ActorRef<Message>).node === 'string' &&
        typeof (v as ActorRef<Message>).path === 'string'
      );
    case 'array':
      return Array.isArray(v);
    case 'object':
      // msgpack carries timestamps, which decode as Dates: not the plain data a field of fields is
      return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Date);
    case 'any':
      return v !== undefined;
  }
}

/**
 * Checks a message against the definition: its type must have a handler, and its fields must
 * match the schema. Returns a reason, or null when the message is acceptable.
 */
export function validateMessage(def: ActorDefinition<unknown, Message, unknown>, msg: Message): string | null {
  const handlers = def.handlers as Record<string, unknown>;
  if (!Object.prototype.hasOwnProperty.call(handlers, msg.type)) {
    return `actor kind '${def.kind}' does not handle message type '${msg.type}'`;
  }
  const fields = (def.schema as Record<string, Record<string, FieldSpec>> | undefined)?.[msg.type];
  if (!fields) return null;
  for (const field in fields) {
    const problem = fieldProblem(fields[field]!, (msg as unknown as Record<string, unknown>)[field], `${msg.type}.${field}`);
    if (problem) return problem;
  }
  return null;
}

/**
 * Why a client may not send `msg` to an actor of this definition (Envelope.client is set), or
 * null when it may.
 */
export function clientMessageProblem(def: ActorDefinition<unknown, Message, unknown>, msg: Message): string | null {
  const allowed = def.clientMessages as 'all' | Record<string, true | ((m: Message) => string | null)> | undefined;
  if (allowed === 'all') return null;
  const rule = allowed !== undefined && Object.prototype.hasOwnProperty.call(allowed, msg.type) ? allowed[msg.type] : undefined;
  if (rule === undefined) return `actor kind '${def.kind}' does not take '${msg.type}' from clients`;
  if (rule === true) return null;
  let why: string | null;
  try {
    why = rule(msg);
  } catch (err) {
    // the check reads a message not yet checked against the schema: one it cannot read is refused
    why = `its check failed (${(err as Error)?.message ?? String(err)})`;
  }
  return why === null ? null : `actor kind '${def.kind}' does not take this '${msg.type}' from clients: ${why}`;
}

function fieldProblem(spec: FieldSpec, value: unknown, at: string): string | null {
  if (typeof spec !== 'string') return nestedProblem(spec, value, at);
  const optional = spec.endsWith('?');
  const kind = (optional ? spec.slice(0, -1) : spec) as FieldKind;
  if (value === undefined || value === null) return optional ? null : `${at} is required (${kind})`;
  return kindOk(kind, value) ? null : `${at} must be ${kind}, got ${describe(value)}`;
}

function nestedProblem(spec: NestedSpec, value: unknown, at: string): string | null {
  if (value === undefined || value === null) return spec.optional ? null : `${at} is required (${spec.kind})`;
  if (!kindOk(spec.kind, value)) return `${at} must be ${spec.kind}, got ${describe(value)}`;
  if (spec.kind === 'array' && spec.items !== undefined) {
    const list = value as unknown[];
    for (let i = 0; i < list.length; i++) {
      const problem = fieldProblem(spec.items, list[i], `${at}[${i}]`);
      if (problem) return problem;
    }
  }
  if (spec.kind === 'object' && spec.fields !== undefined) {
    for (const field in spec.fields) {
      const problem = fieldProblem(spec.fields[field]!, (value as Record<string, unknown>)[field], `${at}.${field}`);
      if (problem) return problem;
    }
  }
  return null;
}

function describe(v: unknown): string {
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'timestamp';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export type { TimerHandle };
