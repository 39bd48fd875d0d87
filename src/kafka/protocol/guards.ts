/** Narrowing a decoded request to the body type of its api key. */
import type { ApiKey, DecodedRequest, RequestFor } from './types.js';

/** True when `req` is a request of api key `key`; its body is then typed as that request. */
export function isRequest<K extends ApiKey>(req: DecodedRequest, key: K): req is RequestFor<K> {
  return req.header.apiKey === key;
}
