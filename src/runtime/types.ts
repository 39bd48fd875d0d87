/**
 * The values every actor exchanges: messages, actor references and envelopes.
 * All of them are plain data so they serialise as-is with msgpack (DESIGN.md section 2).
 */

/** Every message is a plain object with a string discriminant. */
export interface Message {
  readonly type: string;
}

/**
 * Where an actor lives: a node id and a path on that node. `M` is the union of messages the actor
 * accepts; it exists only at compile time (the phantom field is never set).
 */
export interface ActorRef<M extends Message = Message> {
  readonly node: string;
  readonly path: string;
  /** compile-time only: the messages this actor accepts (never set at run time) */
  readonly __accepts?: M;
}

/** Builds a reference to an actor on `node` at `path`. */
export function actorRef<M extends Message = Message>(node: string, path: string): ActorRef<M> {
  return { node, path };
}

export function sameRef(a: ActorRef<Message> | undefined, b: ActorRef<Message> | undefined): boolean {
  return !!a && !!b && a.node === b.node && a.path === b.path;
}

export function formatRef(ref: ActorRef<Message>): string {
  return `${ref.node}:${ref.path}`;
}

/** What travels between nodes: a message and its routing. */
export interface Envelope {
  to: ActorRef<Message>;
  from?: ActorRef<Message>;
  replyTo?: ActorRef<Message>;
  correlationId?: string;
  msg: Message;
  /**
   * Set by a transport whose receive buffer the message's bytes are views of, and which can
   * reuse that memory once every message decoded from it was released (a handler does so with
   * `ctx.payloadHold()`). Never encoded: a relayed envelope loses it, and its buffer is then
   * left to the collector, as is every buffer whose messages are not all released.
   */
  payloadHold?: PayloadHold;
  /**
   * The account this message's handling is charged to (a Kafka request's handler time, for
   * request_percentage): the synchronous run of its handler is added to it, and every message
   * that handler sends to an actor of this node carries it on. Never encoded, and dropped when
   * the message leaves the node: another node's work is not this node's.
   */
  workAccount?: WorkAccount;
  /**
   * The node id of the client this message came from, when it entered the cluster from outside:
   * a TCP transport sets it on everything a peer that is not one of the cluster's nodes sends
   * (whatever that peer wrote here), and the cluster's own transports carry it on. The actor it
   * is for takes it only when its definition lets clients send that message type
   * (`ActorDefinition.clientMessages`); unset, the message came from inside the cluster.
   */
  client?: string;
}

/** Handler time charged to one piece of work across the actors of a node (Envelope.workAccount). */
export interface WorkAccount {
  /** Milliseconds of handler time charged so far (the system's work clock). */
  ms: number;
}

/**
 * A message's claim on the transport memory its bytes are views of. `release()` says nothing
 * will read those bytes again (idempotent). Releasing early is a bug the transport makes
 * visible rather than silent: the memory goes back to its sender by transfer, which detaches
 * it here, so a stale view reads as empty.
 */
export interface PayloadHold {
  release(): void;
}

/** Why a message was not handled: the reasons a dead letter or failed ask carries. */
export type FailureReason =
  | 'timeout'
  | 'unknown-node'
  | 'unknown-actor'
  | 'actor-stopped'
  | 'endpoint-closed'
  | 'overflow'
  | 'invalid-message'
  | 'actor-crashed'
  | 'system-stopping'
  | 'unauthorized';

/**
 * The reply an `ask` settles with when no real reply arrives. Like every reply it carries an
 * `errorCode` from src/protocol/errors.ts, so callers check one field for every failure.
 */
export interface Failure extends Message {
  readonly type: 'Failure';
  readonly errorCode: number;
  readonly reason: FailureReason;
  readonly message: string;
}

export function isFailure(m: unknown): m is Failure {
  return typeof m === 'object' && m !== null && (m as Message).type === 'Failure';
}
