/**
 * A bound on what a compressed batch may decompress to. A few bytes of zstd or lz4 can stand for
 * gigabytes (a decompression bomb); the codecs stop and throw DecompressedSizeError once their
 * output passes the bound they are given, before they allocate much more than it.
 */
import { ErrorCode } from './errors.js';

export class DecompressedSizeError extends Error {
  override readonly name = 'DecompressedSizeError';
  /** A Produce refused for it answers MESSAGE_TOO_LARGE. */
  readonly errorCode: number = ErrorCode.MESSAGE_TOO_LARGE;
  constructor(
    readonly codec: string,
    readonly limit: number,
  ) {
    super(`${codec} data decompresses to more than ${limit} bytes`);
  }
}

/**
 * What the broker lets one batch's records decompress to when it must read them (a topic's
 * compression.type, a compacted topic's keys, the log cleaner, ListOffsets by time): 256 MiB,
 * 256 times Kafka's default max.message.bytes and far above what real records compress from.
 */
export const BROKER_MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;
