/**
 * Type-level view of the codec: api keys as literal types, the body type of each request and
 * response, the deep-partial input an encoder accepts, and a request union narrowable by key.
 */
import type { ApiKeys, RequestBodies, ResponseBodies } from '../schemas/generated.js';

export type ApiName = keyof typeof ApiKeys;
export type ApiKey = (typeof ApiKeys)[ApiName];

export type RequestOf<K extends ApiKey> = RequestBodies[K];
export type ResponseOf<K extends ApiKey> = ResponseBodies[K];

/**
 * Every field optional at every depth (left out: the schema default); bytes and records fields
 * take any Uint8Array (a Buffer or a view from an actor message) and stay whole.
 */
export type DeepPartial<T> = T extends Uint8Array
  ? Uint8Array
  : T extends readonly (infer E)[]
    ? readonly DeepPartial<E>[]
    : T extends object
      ? { [P in keyof T]?: DeepPartial<T[P]> }
      : T;

/** What an encoder accepts as the request body of api key K (any object when K is not known). */
export type RequestInput<K extends number> = number extends K
  ? object
  : K extends ApiKey
    ? DeepPartial<RequestOf<K>>
    : object;

/** What an encoder accepts as the response body of api key K (any object when K is not known). */
export type ResponseInput<K extends number> = number extends K
  ? object
  : K extends ApiKey
    ? DeepPartial<ResponseOf<K>>
    : object;

/** A decoded response body for api key K (`any` when K is not a known literal). */
export type ResponseBody<K extends number> = number extends K ? any : K extends ApiKey ? ResponseOf<K> : any;

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** What decodeRequest returns; narrow it with isRequest(req, ApiKeys.X) or KafkaRequest. */
export interface DecodedRequest {
  header: RequestHeader;
  body: any;
}

/** A decoded request of api key K. */
export interface RequestFor<K extends ApiKey> extends DecodedRequest {
  header: RequestHeader & { apiKey: K };
  body: RequestOf<K>;
}

/** Every decodable request, discriminated by `header.apiKey` (narrow `header` or use isRequest). */
export type KafkaRequest = { [K in ApiKey]: RequestFor<K> }[ApiKey];
