/** Shared helpers for the Kafka codec specs: expecting a codec error, partial deep matching. */
import { expect } from 'chai';
import { KafkaCodecError, type KafkaCodecErrorReason } from '../../../src/kafka/protocol/index.js';

/** Runs `fn` and returns the KafkaCodecError it must throw, with `reason`. */
export function expectCodecError(fn: () => unknown, reason: KafkaCodecErrorReason): KafkaCodecError {
  try {
    fn();
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(KafkaCodecError);
    expect((err as KafkaCodecError).reason, String(err)).to.equal(reason);
    return err as KafkaCodecError;
  }
  expect.fail(`expected a KafkaCodecError (${reason})`);
}

/**
 * Asserts that `actual` has every key of `expected` with a matching value: objects recursively,
 * arrays element by element with equal lengths, Buffers by content, the rest by equality.
 */
export function expectSubset(actual: unknown, expected: unknown, path = '$'): void {
  if (expected instanceof Uint8Array) {
    expect(actual, path).to.be.instanceOf(Uint8Array);
    expect(Buffer.from(actual as Uint8Array).equals(Buffer.from(expected)), `${path} bytes`).to.equal(true);
  } else if (Array.isArray(expected)) {
    expect(actual, path).to.be.an('array').with.lengthOf(expected.length);
    expected.forEach((e, i) => expectSubset((actual as unknown[])[i], e, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === 'object') {
    expect(actual, path).to.be.an('object');
    for (const [k, v] of Object.entries(expected)) expectSubset((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else {
    expect(actual, path).to.equal(expected);
  }
}
