/**
 * The one msgpack codec for envelopes (DESIGN.md sections 3 and 4).
 *
 * Binary payloads (record batches) travel as msgpack bin and decode as Buffers that are views
 * into the decoded frame. That is safe because a receive buffer is reused only once every
 * message decoded from it was released by its handler (worker ports, `Envelope.payloadHold`);
 * otherwise each frame is its own allocation (a socket chunk, a transferred ArrayBuffer, or a
 * fresh copy).
 *
 * `encodeEnvelope` returns a view into msgpackr's output buffer. msgpackr never writes over
 * bytes it has returned (later results go after them, and a new buffer is allocated when this
 * one is full), so the view may be written to a socket by reference; but it shares its
 * ArrayBuffer with other results, so it must never be transferred to a worker or mutated.
 * `encodeEnvelopeCopy` returns a tight, owned copy. `encodeEnvelopeTransient` returns a view
 * that the next encode on the thread writes over (for a caller that copies it at once).
 *
 * Attached bins (`encodeEnvelopeAttaching`, `decodeEnvelopeAttached`): a transport can leave
 * the large bins out of the msgpack body, which then holds, in each one's place, an extension
 * (fixext 4, type ATTACHED_BIN_EXT, the bin's length) and hands the bins to the caller, who
 * puts them in order right after the body: a worker port copies each once, straight into the
 * frame it transfers, instead of into msgpackr's buffer, its staging buffer and then the frame;
 * a TCP connection writes each to the socket by reference (`encodeEnvelopeAttachingKept`). The
 * receiver decodes the body with the frame's attachments in scope, and each extension decodes
 * as a view of the next attached bin, exactly as an inline bin decodes as a view of the frame.
 */
import { addExtension, Packr, RESET_BUFFER_MODE } from 'msgpackr';
import type { ActorRef, Envelope, Message } from '../runtime/types.js';

// skipValues (omit undefined fields) is a msgpackr option its typings do not list yet.
const packr = new Packr({ useRecords: false, skipValues: [undefined] } as ConstructorParameters<typeof Packr>[0]);

/** msgpack extension type of a bin carried after the frame's body (see the header). */
export const ATTACHED_BIN_EXT = 0x41;

/** While an attaching encode runs: where the left-out bins go, and the smallest one left out. */
let attachSink: Uint8Array[] | null = null;
let attachMinBytes = 0;
/** While an attached decode runs: the frame and the range of it not yet handed out. */
let attachSource: Uint8Array | null = null;
let attachPos = 0;
let attachEnd = 0;

type WriteSpace = (size: number) => { target: Uint8Array; targetView: DataView; position: number };

/** A bin written inline, byte for byte as msgpackr writes one. */
function writeBin(value: Uint8Array, allocate: WriteSpace): void {
  const n = value.byteLength;
  let w: ReturnType<WriteSpace>;
  let at: number;
  if (n < 0x100) {
    w = allocate(n + 2);
    at = w.position;
    w.target[at++] = 0xc4;
    w.target[at++] = n;
  } else if (n < 0x10000) {
    w = allocate(n + 3);
    at = w.position;
    w.target[at++] = 0xc5;
    w.target[at++] = n >> 8;
    w.target[at++] = n & 0xff;
  } else {
    w = allocate(n + 5);
    at = w.position;
    w.target[at++] = 0xc6;
    w.targetView.setUint32(at, n);
    at += 4;
  }
  w.target.set(value, at);
}

// Uint8Array (and Buffer) values go through this extension: inline bins as before, except
// inside an attaching encode, which leaves the large ones out. msgpackr's extension registry is
// per process, so this applies to every Packr; outside an attaching encode the bytes written
// are those msgpackr writes itself (tested).
addExtension({
  Class: Uint8Array,
  type: ATTACHED_BIN_EXT,
  pack(value: Uint8Array, allocate: WriteSpace): undefined {
    if (attachSink !== null && value.byteLength >= attachMinBytes) {
      const w = allocate(6);
      w.target[w.position] = 0xd6; // fixext 4
      w.target[w.position + 1] = ATTACHED_BIN_EXT;
      w.targetView.setUint32(w.position + 2, value.byteLength);
      attachSink.push(value);
      return undefined;
    }
    writeBin(value, allocate);
    return undefined;
  },
  unpack(data: Uint8Array): Uint8Array {
    if (attachSource === null) throw new Error('an attached bin outside a frame that carries attachments');
    const n = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0;
    if (n > attachEnd - attachPos) throw new Error(`an attached bin of ${n} bytes with ${attachEnd - attachPos} left in the frame`);
    const view = attachSource.subarray(attachPos, attachPos + n);
    attachPos += n;
    return view;
  },
} as unknown as Parameters<typeof addExtension>[0]);

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

/**
 * As encodeEnvelopeTransient, but every Uint8Array of at least `minBytes` bytes is left out of
 * the body and pushed onto `sink`, in the order a decoder meets them: the frame is the body
 * followed by those bins' bytes. The bins are referenced, not copied: they must stay unchanged
 * until the caller has copied them.
 */
export function encodeEnvelopeAttaching(env: Envelope, sink: Uint8Array[], minBytes: number): Uint8Array {
  return packAttaching(env, sink, minBytes, RESET_BUFFER_MODE);
}

/**
 * As encodeEnvelopeAttaching, but the body is a view msgpackr never writes over (as
 * encodeEnvelope's), for a caller that writes it to a socket by reference.
 */
export function encodeEnvelopeAttachingKept(env: Envelope, sink: Uint8Array[], minBytes: number): Uint8Array {
  return packAttaching(env, sink, minBytes);
}

function packAttaching(env: Envelope, sink: Uint8Array[], minBytes: number, encodeOptions?: number): Uint8Array {
  attachSink = sink;
  attachMinBytes = Math.max(1, minBytes);
  try {
    return packr.pack(env, encodeOptions);
  } finally {
    attachSink = null;
  }
}

/**
 * Decodes a body whose attached bins are `frame[start, end)`, each decoding as a view into
 * `frame`. Every attached byte must be referenced by the body. Never throws.
 */
export function decodeEnvelopeAttached(body: Uint8Array, frame: Uint8Array, start: number, end: number): DecodeResult {
  if (start < 0 || end > frame.length || start > end) return { ok: false, reason: `attachments [${start}, ${end}) lie outside a frame of ${frame.length} bytes` };
  attachSource = frame;
  attachPos = start;
  attachEnd = end;
  let value: unknown;
  try {
    value = packr.unpack(body);
    if (attachPos !== attachEnd) return { ok: false, reason: `undecodable envelope: ${attachEnd - attachPos} attached bytes are not referenced by the body` };
  } catch (err) {
    return { ok: false, reason: `undecodable envelope: ${(err as Error).message}` };
  } finally {
    attachSource = null;
  }
  return validateEnvelope(value);
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
  if (env.client !== undefined && typeof env.client !== 'string') return 'envelope.client is not a string';
  const msg = env.msg as Record<string, unknown> | undefined;
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || typeof msg.type !== 'string') {
    return 'envelope.msg is not a message with a string type';
  }
  return null;
}
