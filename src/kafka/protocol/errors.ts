/**
 * The one error the Kafka wire codec throws. `reason` says what went wrong; when the request
 * header could be read, the error also carries it, so a listener can still answer (or log) the
 * request it failed to decode.
 */

export type KafkaCodecErrorReason = 'truncated' | 'invalid' | 'unknown-api' | 'unsupported-version';

export class KafkaCodecError extends Error {
  override readonly name = 'KafkaCodecError';
  apiKey?: number;
  apiVersion?: number;
  correlationId?: number;

  constructor(
    readonly reason: KafkaCodecErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${reason}: ${message}`, options);
  }
}

export function truncated(need: number, at: number, left: number): KafkaCodecError {
  return new KafkaCodecError('truncated', `need ${need} bytes at offset ${at}, ${left} left`);
}

export function invalid(message: string): KafkaCodecError {
  return new KafkaCodecError('invalid', message);
}
