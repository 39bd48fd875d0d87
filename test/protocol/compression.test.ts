/**
 * Compression levels (KIP-390) through the codec registry: each codec's range and default, the
 * check of a level, and gzip, lz4 and zstd compressing at the level given (sync and async),
 * their default when none is given, and a RangeError for a level outside the range.
 */
import { expect } from 'chai';
import { COMPRESSION_LEVELS, CompressionType, compress, compressAsync, compressionLevelProblem, decompress } from '../../src/protocol/compression.js';
import { lz4CompressFrame } from '../../src/protocol/lz4.js';
import { zstdCompress } from '../../src/protocol/zstd-compress.js';
import { sampleText } from '../helpers/sample-text.js';

describe('protocol/compression levels', () => {
  const text = sampleText(100_000);

  it("has Kafka's ranges and defaults: gzip 1-9 (default -1, zlib's own), lz4 1-17 (9), zstd -131072 to 22 (3)", () => {
    expect(COMPRESSION_LEVELS).to.deep.equal({ gzip: { min: 1, max: 9, default: -1 }, lz4: { min: 1, max: 17, default: 9 }, zstd: { min: -131072, max: 22, default: 3 } });
  });

  it('checks a level: in its range or the default passes; anything else says the range', () => {
    for (const [name, ok] of [['gzip', [-1, 1, 6, 9]], ['lz4', [1, 9, 17]], ['zstd', [-131072, -1, 0, 3, 22]]] as const) {
      for (const level of ok) expect(compressionLevelProblem(name, level), `${name} ${level}`).to.equal(null);
    }
    expect(compressionLevelProblem('gzip', 0)).to.equal('0 is not a gzip level: must be an integer from 1 to 9 (or -1, the default)');
    expect(compressionLevelProblem('gzip', 10)).to.match(/^10 is not a gzip level/);
    expect(compressionLevelProblem('lz4', 18)).to.equal('18 is not a lz4 level: must be an integer from 1 to 17');
    expect(compressionLevelProblem('zstd', 23)).to.equal('23 is not a zstd level: must be an integer from -131072 to 22');
    expect(compressionLevelProblem('zstd', '3')).to.match(/^"3" is not a zstd level/);
    expect(compressionLevelProblem('lz4', 4.5)).to.match(/^4.5 is not a lz4 level/);
  });

  it('gzip compresses at the level given, its default (6) without one, and refuses a level outside 1-9', async () => {
    const fast = compress(CompressionType.GZIP, text, 1);
    const best = compress(CompressionType.GZIP, text, 9);
    const byDefault = compress(CompressionType.GZIP, text);
    expect(best.length).to.be.below(fast.length);
    expect(Buffer.from(compress(CompressionType.GZIP, text, -1)).equals(Buffer.from(byDefault))).to.equal(true);
    expect(Buffer.from(compress(CompressionType.GZIP, text, 6)).equals(Buffer.from(byDefault))).to.equal(true);
    for (const z of [fast, best, byDefault]) expect(Buffer.from(decompress(CompressionType.GZIP, z)).equals(text)).to.equal(true);
    expect(Buffer.from(await compressAsync(CompressionType.GZIP, text, 1)).equals(Buffer.from(fast))).to.equal(true);
    expect(() => compress(CompressionType.GZIP, text, 0)).to.throw(RangeError, /0 is not a gzip level/);
    let refused: unknown = null;
    await compressAsync(CompressionType.GZIP, text, 10).catch((e: unknown) => (refused = e));
    expect(refused).to.be.instanceOf(RangeError);
  });

  it('lz4 and zstd compress at the level given, sync and async, and refuse one outside their range', async () => {
    expect(Buffer.from(compress(CompressionType.LZ4, text, 12)).equals(Buffer.from(lz4CompressFrame(text, 12)))).to.equal(true);
    expect(Buffer.from(await compressAsync(CompressionType.LZ4, text, 12)).equals(Buffer.from(lz4CompressFrame(text, 12)))).to.equal(true);
    expect(Buffer.from(compress(CompressionType.ZSTD, text, 19)).equals(Buffer.from(zstdCompress(text, 19)))).to.equal(true);
    expect(Buffer.from(compress(CompressionType.ZSTD, text)).equals(Buffer.from(zstdCompress(text, 3)))).to.equal(true);
    expect(() => compress(CompressionType.LZ4, text, 0)).to.throw(RangeError);
    expect(() => compress(CompressionType.ZSTD, text, 23)).to.throw(RangeError);
    // snappy has no levels: one given changes nothing
    expect(Buffer.from(compress(CompressionType.SNAPPY, text, 5)).equals(Buffer.from(compress(CompressionType.SNAPPY, text)))).to.equal(true);
  });
});
