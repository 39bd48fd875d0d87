/**
 * The Kafka wire-protocol codec: request/response frames for the APIs in
 * src/kafka/schemas/generated.ts, at every version Kafka defines for them.
 */
export { ApiKeys } from '../schemas/generated.js';
export type * from '../schemas/generated.js';
export { apiName, schemaVersions, isFlexible } from './registry.js';
export { peekRequestHeader, decodeRequest, encodeResponse, encodeRequest, decodeResponse } from './frames.js';
export { isRequest } from './guards.js';
export { KafkaCodecError, type KafkaCodecErrorReason } from './errors.js';
export { ZERO_UUID } from './defaults.js';
export { Reader } from './reader.js';
export { Writer } from './writer.js';
export type {
  ApiKey,
  ApiName,
  DecodedRequest,
  DeepPartial,
  KafkaRequest,
  RequestFor,
  RequestHeader,
  RequestInput,
  RequestOf,
  ResponseBody,
  ResponseInput,
  ResponseOf,
} from './types.js';
