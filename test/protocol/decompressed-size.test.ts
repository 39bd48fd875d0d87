/**
 * Decompression bombs: every codec stops once its output passes the bound it is given
 * (DecompressedSizeError, errorCode MESSAGE_TOO_LARGE), the registry holds a codec that ignores
 * the bound to it all the same, and decodeRecordBatch passes its maxDecompressedBytes on.
 */
import { expect } from 'chai';
import zlib from 'node:zlib';
import { compress, CompressionType, decompress, decompressAsync, registerCodec } from '../../src/protocol/compression.js';
import { DecompressedSizeError } from '../../src/protocol/decompressed-size.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { lz4DecompressFrame } from '../../src/protocol/lz4.js';
import { decodeRecordBatch, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { snappyCompressRaw, snappyDecompress } from '../../src/protocol/snappy.js';
import { zstdDecompress } from '../../src/protocol/zstd.js';
import { zstdRleBomb } from '../helpers/codec-inputs.js';

const MiB = 1024 * 1024;

function sizeError(fn: () => unknown): DecompressedSizeError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(DecompressedSizeError);
    return err as DecompressedSizeError;
  }
  throw new Error('expected a DecompressedSizeError');
}

describe('protocol/decompressed-size', () => {
  const zeros = Buffer.alloc(8 * MiB);

  it('stops each codec once its output passes the bound, and decodes the same input under a bound that holds it', () => {
    const cases: [string, number, (limit?: number) => Uint8Array][] = [
      ['gzip', CompressionType.GZIP, (limit) => decompress(CompressionType.GZIP, compress(CompressionType.GZIP, zeros), limit)],
      ['snappy', CompressionType.SNAPPY, (limit) => snappyDecompress(compress(CompressionType.SNAPPY, zeros), limit)],
      ['snappy', CompressionType.SNAPPY, (limit) => snappyDecompress(snappyCompressRaw(zeros.subarray(0, 2 * MiB)), limit)],
      ['lz4', CompressionType.LZ4, (limit) => lz4DecompressFrame(compress(CompressionType.LZ4, zeros), limit)],
      ['zstd', CompressionType.ZSTD, (limit) => zstdDecompress(compress(CompressionType.ZSTD, zeros), limit)],
      ['zstd', CompressionType.ZSTD, (limit) => zstdDecompress(zstdRleBomb(64), limit)],
    ];
    for (const [name, , run] of cases) {
      const err = sizeError(() => run(MiB));
      expect(err.message).to.equal(`${name} data decompresses to more than ${MiB} bytes`);
      expect(err).to.include({ codec: name, limit: MiB, errorCode: ErrorCode.MESSAGE_TOO_LARGE });
      expect(run(8 * MiB).length, name).to.be.oneOf([2 * MiB, 8 * MiB]);
      expect(run().length, name).to.be.oneOf([2 * MiB, 8 * MiB]);
    }
  });

  it('stops a zstd frame of RLE blocks early: a 2 KB frame standing for 64 MiB allocates about its bound', () => {
    const bomb = zstdRleBomb(512);
    expect(bomb.length).to.be.lessThan(2100);
    const before = process.memoryUsage().arrayBuffers;
    sizeError(() => zstdDecompress(bomb, MiB));
    // nothing near the 64 MiB the frame stands for was kept or needed
    expect(process.memoryUsage().arrayBuffers - before).to.be.lessThan(16 * MiB);
  });

  it('holds a registered codec that ignores the bound to it after the call, sync and async', async () => {
    const restore = registerCodec(CompressionType.SNAPPY, 'snappy', {
      compress: (d) => d,
      decompress: () => Buffer.alloc(3 * MiB),
    });
    try {
      expect(decompress(CompressionType.SNAPPY, Buffer.from('x')).length).to.equal(3 * MiB);
      sizeError(() => decompress(CompressionType.SNAPPY, Buffer.from('x'), MiB));
      let asyncErr: unknown;
      await decompressAsync(CompressionType.SNAPPY, Buffer.from('x'), MiB).catch((e: unknown) => (asyncErr = e));
      expect(asyncErr).to.be.instanceOf(DecompressedSizeError);
    } finally {
      restore();
    }
  });

  it('bounds gzip through the async path as well', async () => {
    const gz = zlib.gzipSync(zeros);
    let err: unknown;
    await decompressAsync(CompressionType.GZIP, gz, MiB).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(DecompressedSizeError);
    expect((await decompressAsync(CompressionType.GZIP, gz, 8 * MiB)).length).to.equal(8 * MiB);
  });

  it('decodeRecordBatch passes maxDecompressedBytes on, and refuses by the bound, not as corruption', () => {
    const batch = encodeRecordBatch({ compression: 'lz4', records: [{ key: Buffer.from('k'), value: Buffer.alloc(2 * MiB) }] });
    expect(batch.length).to.be.lessThan(64 * 1024);
    const err = sizeError(() => decodeRecordBatch(batch, 0, { maxDecompressedBytes: MiB }));
    expect(err.codec).to.equal('lz4');
    expect(decodeRecordBatch(batch, 0, { maxDecompressedBytes: 4 * MiB }).records[0]!.value!.length).to.equal(2 * MiB);
    expect(decodeRecordBatch(batch).records).to.have.length(1);
  });
});
