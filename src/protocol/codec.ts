/**
 * The one msgpack codec for envelopes (DESIGN.md sections 3 and 4).
 *
 * Binary payloads (record batches) travel as msgpack bin and decode as Buffers that are views
 * into the decoded frame. That is safe because no transport ever reuses a receive buffer: each
 * frame is its own allocation (a socket chunk, a transferred ArrayBuffer, or a fresh copy).
 *
 * `encodeEnvelope` returns a view into msgpackr's output buffer. msgpackr never writes over
 * bytes it has returned (later results go after them, and a new buffer is allocated when this
 * one is full), so the view may be written to a socket by reference; but it shares its
 * ArrayBuffer with other results, so it must never be transferred to a worker or mutated.
 * `encodeEnvelopeCopy` returns a tight, owned copy. `encodeEnvelopeTransient` returns a view
 * that the next encode on the thread writes over (for a caller that copies it at once).
 */
import { Packr, RESET_BUFFER_MODE } from 'msgpackr';
import type { ActorRef, Envelope, Message } from '../runtime/types.js';

// skipValues (omit undefined fields) is a msgpackr option its typings do not list yet.
const packr = new Packr({ useRecords: false, skipValues: [undefined] } as ConstructorParameters<typeof Packr>[0]);

export function encodeEnvelope(env: Envelope): Uint8Array {
  return packr.pack(env);
}

/**
 * Packs into msgpackr's working buffer and leaves it to be written over by the next pack: the
 * view is valid only until the next encode on this thread, so the caller copies it at once.
 * msgpackr then reuses one buffer instead of allocating a new one every time the last fills.
 */
export function encodeEnvelopeTransient(env: Envelope): Uint8Array {
  return packr.pack(env, RESET_BUFFER_MODE);
}

/** msgpackr's working buffer is given back (replaced by a small one) once it grew past this. */
const MAX_KEPT_ENCODE_BUFFER = 32 * 1024 * 1024;

/**
 * Called once a transient result has been copied: a working buffer that one big message grew
 * (msgpackr makes it 2-4x the message) would otherwise stay pinned, since transient packs never
 * fill it. Lasting views into it stay valid (they keep their bytes alive).
 */
export function releaseTransientBuffer(view: Uint8Array): void {
  if (view.buffer.byteLength > MAX_KEPT_ENCODE_BUFFER) packr.useBuffer(Buffer.allocUnsafeSlow(64 * 1024));
}

/** A tight copy that owns its memory (safe to transfer to a worker or keep). */
export function encodeEnvelopeCopy(env: Envelope): Uint8Array {
  const view = packr.pack(env);
  const out = new Uint8Array(view.length);
  out.set(view);
  return out;
}

/**
 * Throws when `value` holds something msgpack would silently change or drop (a function, a
 * symbol, a Map, a class instance...). Used by strict serialisation, which tests turn on.
 */
export function assertPlainData(value: unknown, path = 'msg'): void {
  switch (typeof value) {
    case 'undefined':
    case 'boolean':
    case 'number':
    case 'bigint':
    case 'string':
      return;
    case 'function':
    case 'symbol':
      throw new TypeError(`${path} is a ${typeof value}, which cannot be serialised`);
  }
  if (value === null || value instanceof Uint8Array || value instanceof Date) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlainData(v, `${path}[${i}]`));
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(`${path} is a ${proto?.constructor?.name ?? 'non-plain'} object, which does not survive serialisation`);
  }
  for (const k of Object.keys(value as object)) assertPlainData((value as Record<string, unknown>)[k], `${path}.${k}`);
}

/** Encodes any value with the envelope codec (used for worker start data and tests). */
export function encodeValue(value: unknown): Uint8Array {
  const view = packr.pack(value);
  return Uint8Array.prototype.slice.call(view);
}

export function decodeValue(bytes: Uint8Array): unknown {
  return packr.unpack(bytes);
}

export type DecodeResult = { ok: true; envelope: Envelope } | { ok: false; reason: string; partial?: Partial<Envelope> };

/** Decodes and structurally validates an envelope. Never throws. */
export function decodeEnvelope(bytes: Uint8Array): DecodeResult {
  let value: unknown;
  try {
    value = packr.unpack(bytes);
  } catch (err) {
    return { ok: false, reason: `undecodable envelope: ${(err as Error).message}` };
  }
  return validateEnvelope(value);
}

function isRef(v: unknown): v is ActorRef<Message> {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as ActorRef<Message>).node === 'string' &&
    typeof (v as ActorRef<Message>).path === 'string'
  );
}

/** Checks the envelope's shape: `to` a ref, `msg` an object with a string `type`, optional routing typed. */
export function validateEnvelope(value: unknown): DecodeResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'envelope is not a map' };
  }
  const env = value as Record<string, unknown>;
  const reason = envelopeProblem(env);
  if (reason === null) return { ok: true, envelope: env as unknown as Envelope };
  // keep what is needed to answer the sender, when it said where
  const partial: Partial<Envelope> = {};
  if (isRef(env.replyTo)) partial.replyTo = env.replyTo;
  if (typeof env.correlationId === 'string') partial.correlationId = env.correlationId;
  return { ok: false, reason, partial };
}

function envelopeProblem(env: Record<string, unknown>): string | null {
  if (!isRef(env.to)) return 'envelope.to is not an actor ref {node, path}';
  if (env.from !== undefined && !isRef(env.from)) return 'envelope.from is not an actor ref';
  if (env.replyTo !== undefined && !isRef(env.replyTo)) return 'envelope.replyTo is not an actor ref';
  if (env.correlationId !== undefined && typeof env.correlationId !== 'string') return 'envelope.correlationId is not a string';
  const msg = env.msg as Record<string, unknown> | undefined;
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || typeof msg.type !== 'string') {
    return 'envelope.msg is not a message with a string type';
  }
  return null;
}
