/**
 * Inputs and checks shared by the codec tests: repetitive bytes (pieces picked again and again,
 * as records repeat their fields) and random damage to a good stream, which a decoder must meet
 * with an Error naming the codec and the byte, never anything else and never a hang.
 */
import { expect } from 'chai';
import fc from 'fast-check';

/** Up to `maxPieces` pieces of up to `maxPiece` bytes, concatenated in up to `maxPicks` picks. */
export function repetitiveBytes(maxPiece = 60, maxPieces = 12, maxPicks = 400): fc.Arbitrary<Buffer> {
  return fc
    .tuple(fc.array(fc.uint8Array({ minLength: 1, maxLength: maxPiece }), { minLength: 1, maxLength: maxPieces }), fc.array(fc.nat(), { maxLength: maxPicks }))
    .map(([pieces, picks]) => Buffer.concat(picks.map((p) => pieces[p % pieces.length]!)));
}

/** Overwrites 1-4 random bytes of `good`, `runs` times; `decode` may only throw `codec: ... (at byte N)`. */
export function expectOnlyNamedErrors(codec: string, good: Uint8Array, decode: (b: Uint8Array) => unknown, runs = 500): void {
  const named = new RegExp(`^${codec}: .* \\(at byte -?\\d+\\)$`);
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(good.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (edits) => {
      const b = Buffer.from(good);
      for (const [i, v] of edits) b[i] = v;
      try {
        decode(b);
      } catch (e) {
        expect(e).to.be.instanceOf(Error);
        expect((e as Error).message).to.match(named);
      }
    }),
    { numRuns: runs },
  );
}

/**
 * A Zstandard frame of `blocks` RLE blocks of 128 KiB zeros each (no content size, so nothing
 * tells the reader the total before it decodes): 4 bytes per 128 KiB of output.
 */
export function zstdRleBomb(blocks: number): Buffer {
  const out = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3])];
  for (let i = 0; i < blocks; i++) {
    const h = ((128 * 1024) << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
    out.push(Buffer.from([h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff, 0]));
  }
  return Buffer.concat(out);
}
