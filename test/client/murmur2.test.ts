/**
 * murmur2 against the Java client's published test vectors (Kafka's UtilsTest) and against
 * KafkaJS's Java-compatible murmur2 on random keys; toPositive on the edge values.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { murmur2, toPositive } from '../../src/client/murmur2.js';

const require = createRequire(import.meta.url);
const kafkajsMurmur2: (key: Buffer | string) => number = require('kafkajs/src/producer/partitioners/default/murmur2');

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('client/murmur2', () => {
  it("matches the Java client's test vectors", () => {
    const vectors: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of vectors) expect(murmur2(utf8(key)), key).to.equal(hash);
  });

  it('hashes keys of every tail length (0 to 3 trailing bytes) like KafkaJS', () => {
    for (const key of ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'abcdef', 'abcdefg']) {
      expect(murmur2(utf8(key)), JSON.stringify(key)).to.equal(kafkajsMurmur2(Buffer.from(key)));
    }
    expect(murmur2(new Uint8Array(0))).to.equal(275646681);
  });

  it('agrees with KafkaJS on random byte keys, including high bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(murmur2(bytes)).to.equal(kafkajsMurmur2(Buffer.from(bytes)));
      }),
      { numRuns: 500, seed: 42 },
    );
  });

  it('returns a signed 32-bit integer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 32 }), (bytes) => {
        const h = murmur2(bytes);
        expect(h).to.equal(h | 0);
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('reads a subarray view at its own offset', () => {
    const backing = utf8('xxfoobaryy');
    expect(murmur2(backing.subarray(2, 8))).to.equal(-790332482);
  });

  it('toPositive clears the sign bit', () => {
    expect(toPositive(0)).to.equal(0);
    expect(toPositive(5)).to.equal(5);
    expect(toPositive(-1)).to.equal(0x7fffffff);
    expect(toPositive(-2147483648)).to.equal(0);
    expect(toPositive(2147483647)).to.equal(2147483647);
    expect(toPositive(-973932308)).to.equal(-973932308 & 0x7fffffff);
  });
});
