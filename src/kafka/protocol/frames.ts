/**
 * Whole Kafka frames: request header v1/v2 and response header v0/v1 around a body.
 *
 * A request header is apiKey int16, apiVersion int16, correlationId int32, clientId (nullable,
 * int16 length even in flexible versions), then a tagged-field section when the api version is
 * flexible (header v2). A response header is the correlationId, plus a tagged-field section when
 * flexible (v1), except for ApiVersions, whose response header is always v0 (a client must be able
 * to read it before it knows which versions the broker speaks).
 *
 * Encoders return the frame with its 4-byte size prefix; decoders take it without.
 */
import { ApiKeys } from '../schemas/generated.js';
import { KafkaCodecError, invalid } from './errors.js';
import { Reader } from './reader.js';
import { bodyCodec, type BodyCodec } from './registry.js';
import type {
  DecodedRequest,
  RequestHeader,
  RequestInput,
  ResponseBody,
  ResponseInput,
} from './types.js';
import { Writer } from './writer.js';

/** Codec errors pass through; anything else thrown while encoding/decoding is bad input. */
function asCodecError(err: unknown, context?: { apiKey: number; apiVersion: number; correlationId: number }): unknown {
  const e =
    err instanceof KafkaCodecError
      ? err
      : new KafkaCodecError('invalid', err instanceof Error ? err.message : String(err), { cause: err });
  if (context !== undefined) {
    e.apiKey ??= context.apiKey;
    e.apiVersion ??= context.apiVersion;
    e.correlationId ??= context.correlationId;
  }
  return e;
}

function responseHeaderIsFlexible(codec: BodyCodec): boolean {
  return codec.flexible && codec.schema.apiKey !== ApiKeys.ApiVersions;
}

/** apiKey, apiVersion and correlationId of a request frame (without its size prefix). */
export function peekRequestHeader(frame: Buffer): { apiKey: number; apiVersion: number; correlationId: number } {
  if (frame.length < 8) throw new KafkaCodecError('truncated', `request header needs 8 bytes, frame has ${frame.length}`);
  return { apiKey: frame.readInt16BE(0), apiVersion: frame.readInt16BE(2), correlationId: frame.readInt32BE(4) };
}

/**
 * Decodes a request frame (without its size prefix). Throws KafkaCodecError: 'unknown-api',
 * 'unsupported-version', 'truncated', or 'invalid' (including bytes left after the body); once
 * the first 8 bytes are read, the error carries apiKey, apiVersion and correlationId.
 */
export function decodeRequest(frame: Buffer): DecodedRequest {
  const peek = peekRequestHeader(frame);
  try {
    const codec = bodyCodec('request', peek.apiKey, peek.apiVersion);
    const r = new Reader(frame, 8);
    const clientId = r.nullableString();
    if (codec.flexible) r.skipTaggedFields();
    const body = codec.decode(r);
    if (r.pos !== frame.length) {
      throw invalid(`${frame.length - r.pos} bytes left after the ${codec.schema.name} v${peek.apiVersion} body`);
    }
    // spelled out (once per request): see the design notes in README.md on `{ ...x, more }`
    return { header: { apiKey: peek.apiKey, apiVersion: peek.apiVersion, correlationId: peek.correlationId, clientId }, body };
  } catch (err) {
    throw asCodecError(err, peek);
  }
}

/** Encodes a response frame, size prefix included. */
export function encodeResponse<K extends number>(
  apiKey: K,
  apiVersion: number,
  correlationId: number,
  body: ResponseInput<K>,
): Buffer {
  try {
    const codec = bodyCodec('response', apiKey, apiVersion);
    const w = new Writer();
    w.int32(0);
    w.int32(correlationId);
    if (responseHeaderIsFlexible(codec)) w.uvarint(0);
    codec.encode(w, body);
    w.buf.writeInt32BE(w.pos - 4, 0);
    return w.finish();
  } catch (err) {
    throw asCodecError(err, { apiKey, apiVersion, correlationId });
  }
}

/** Encodes a request frame, size prefix included (the client side). */
export function encodeRequest<K extends number>(header: RequestHeader & { apiKey: K }, body: RequestInput<K>): Buffer {
  try {
    const codec = bodyCodec('request', header.apiKey, header.apiVersion);
    const w = new Writer();
    w.int32(0);
    w.int16(header.apiKey);
    w.int16(header.apiVersion);
    w.int32(header.correlationId);
    w.nullableString(header.clientId);
    if (codec.flexible) w.uvarint(0);
    codec.encode(w, body);
    w.buf.writeInt32BE(w.pos - 4, 0);
    return w.finish();
  } catch (err) {
    throw asCodecError(err, header);
  }
}

/** Decodes a response frame (without its size prefix) of `apiKey` at `apiVersion` (the client side). */
export function decodeResponse<K extends number>(
  apiKey: K,
  apiVersion: number,
  frame: Buffer,
): { correlationId: number; body: ResponseBody<K> } {
  let correlationId: number | undefined;
  try {
    const codec = bodyCodec('response', apiKey, apiVersion);
    const r = new Reader(frame);
    correlationId = r.int32();
    if (responseHeaderIsFlexible(codec)) r.skipTaggedFields();
    const body = codec.decode(r);
    if (r.pos !== frame.length) {
      throw invalid(`${frame.length - r.pos} bytes left after the ${codec.schema.name} v${apiVersion} body`);
    }
    return { correlationId, body: body as ResponseBody<K> };
  } catch (err) {
    throw asCodecError(err, correlationId === undefined ? undefined : { apiKey, apiVersion, correlationId });
  }
}
