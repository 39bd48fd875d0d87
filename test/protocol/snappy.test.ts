/**
 * Tests for the Snappy codec: a raw block made by another implementation (fixture) decodes to
 * its input; what we write is snappy-java's framing around raw blocks of valid elements and
 * round-trips; a bare raw block is taken too; every kind of damage is refused by name.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { snappyCompressFramed, snappyCompressRaw, snappyDecompress, snappyDecompressRaw } from '../../src/protocol/snappy.js';
import { expectOnlyNamedErrors, repetitiveBytes } from '../helpers/codec-inputs.js';
import { sampleText } from '../helpers/sample-text.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'compression');
const XERIAL_HEADER = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1];

interface Element {
  kind: 'literal' | 'copy1' | 'copy2' | 'copy4';
  length: number;
  offset: number;
}

/** Parses a raw block's elements (test-side, independent of the decoder). */
function elements(block: Uint8Array): { length: number; elements: Element[] } {
  let ip = 0;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const b = block[ip++]!;
    length += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  const out: Element[] = [];
  while (ip < block.length) {
    const tag = block[ip++]!;
    switch (tag & 3) {
      case 0: {
        let len = tag >>> 2;
        if (len >= 60) {
          const n = len - 59;
          len = 0;
          for (let i = 0; i < n; i++) len += block[ip + i]! * 2 ** (8 * i);
          ip += n;
        }
        out.push({ kind: 'literal', length: len + 1, offset: 0 });
        ip += len + 1;
        break;
      }
      case 1:
        out.push({ kind: 'copy1', length: ((tag >>> 2) & 7) + 4, offset: ((tag >>> 5) << 8) | block[ip]! });
        ip += 1;
        break;
      case 2:
        out.push({ kind: 'copy2', length: (tag >>> 2) + 1, offset: block[ip]! | (block[ip + 1]! << 8) });
        ip += 2;
        break;
      default:
        out.push({ kind: 'copy4', length: (tag >>> 2) + 1, offset: (block[ip]! | (block[ip + 1]! << 8) | (block[ip + 2]! << 16) | (block[ip + 3]! << 24)) >>> 0 });
        ip += 4;
    }
  }
  return { length, elements: out };
}

/** The raw blocks of a framed stream. */
function chunksOf(framed: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let ip = 16; ip < framed.length; ) {
    const n = framed.readInt32BE(ip);
    out.push(framed.subarray(ip + 4, ip + 4 + n));
    ip += 4 + n;
  }
  return out;
}

function expectCorrupt(data: Uint8Array, re: RegExp): void {
  expect(() => snappyDecompress(data)).to.throw(Error, re);
}

const structured = repetitiveBytes(80, 12, 400);

describe('protocol/snappy', () => {
  it('decodes a raw block made by another implementation (the snappy package) to its input', () => {
    const raw = readFileSync(path.join(FIXTURES, 'sample-raw.snappy'));
    expect(Buffer.from(snappyDecompress(raw)).equals(sampleText(80_000))).to.equal(true);
    expect(Buffer.from(snappyDecompressRaw(raw)).equals(sampleText(80_000))).to.equal(true);
  });

  describe('what the encoder writes', () => {
    it("snappy-java's stream header, then chunks of at most 32 KiB of input, each a raw block", () => {
      const data = sampleText(100_000);
      const framed = Buffer.from(snappyCompressFramed(data));
      expect([...framed.subarray(0, 16)]).to.deep.equal(XERIAL_HEADER);
      const chunks = chunksOf(framed);
      expect(chunks.map((c) => elements(c).length)).to.deep.equal([32_768, 32_768, 32_768, 100_000 - 3 * 32_768]);
      expect(Buffer.concat(chunks.map((c) => Buffer.from(snappyDecompressRaw(c)))).equals(data)).to.equal(true);
      expect(framed.length).to.be.below(data.length / 2);
      expect([...snappyCompressFramed(new Uint8Array(0))]).to.deep.equal(XERIAL_HEADER);
    });

    it('writes only valid elements: copies of 1-64 bytes, 1-byte offsets only for 4-11 bytes within 2 KiB, nothing past the data', () => {
      fc.assert(
        fc.property(fc.oneof(structured, fc.uint8Array({ maxLength: 3000 })), (data) => {
          const { length, elements: els } = elements(Buffer.from(snappyCompressRaw(data)));
          expect(length).to.equal(data.length);
          let produced = 0;
          for (const e of els) {
            if (e.kind === 'copy1') {
              expect(e.length).to.be.within(4, 11);
              expect(e.offset).to.be.within(1, 2047);
            } else if (e.kind === 'copy2') {
              expect(e.length).to.be.within(1, 64);
              expect(e.offset).to.be.within(1, 65_535);
            }
            if (e.kind !== 'literal') expect(e.offset).to.be.at.most(produced);
            produced += e.length;
          }
          expect(produced).to.equal(data.length);
        }),
        { numRuns: 300 },
      );
    });

    it('round-trips random bytes, repetitive data and sizes around the chunk and fragment boundaries, framed and raw', () => {
      fc.assert(
        fc.property(fc.oneof(fc.uint8Array({ maxLength: 2000 }), structured), (data) => {
          expect(Buffer.from(snappyDecompress(snappyCompressFramed(data))).equals(Buffer.from(data))).to.equal(true);
          expect(Buffer.from(snappyDecompress(snappyCompressRaw(data))).equals(Buffer.from(data))).to.equal(true);
        }),
        { numRuns: 400 },
      );
      for (const n of [0, 1, 18, 19, 32_767, 32_768, 32_769, 65_536, 65_537, 200_001]) {
        for (const data of [sampleText(n), Buffer.alloc(n, 0x61)]) {
          expect(Buffer.from(snappyDecompress(snappyCompressFramed(data))).equals(data), `${n} bytes framed`).to.equal(true);
          expect(Buffer.from(snappyDecompress(snappyCompressRaw(data))).equals(data), `${n} bytes raw`).to.equal(true);
        }
      }
    });
  });

  describe('damaged input', () => {
    it('refuses a bad length varint, or a length the input cannot hold', () => {
      expectCorrupt(Buffer.from([0x80]), /^snappy: truncated length/);
      expectCorrupt(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), /^snappy: length varint longer than 5 bytes/);
      expectCorrupt(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x7f, 0x00]), /^snappy: length \d+ is larger than 2\^32 - 1/);
      expectCorrupt(Buffer.from([0x80, 0x80, 0x80, 0x01, 0x00, 0x61]), /^snappy: declared length 2097152 is more than 2 bytes can hold/);
    });

    it('refuses literals and copies that run past the input, point before the data, or overrun the declared length', () => {
      expectCorrupt(Buffer.from([5, 0x10, 0x61]), /^snappy: literal of 5 bytes runs past the input/);
      expectCorrupt(Buffer.from([5, 0xf0]), /^snappy: truncated literal length/);
      expectCorrupt(Buffer.from([5, 0x01]), /^snappy: truncated copy/);
      expectCorrupt(Buffer.from([5, 0x00, 0x61, 0x01, 0x00]), /^snappy: copy offset 0 points before the data/);
      expectCorrupt(Buffer.from([5, 0x00, 0x61, 0x01, 0x02]), /^snappy: copy offset 2 points before the data/);
      expectCorrupt(Buffer.from([5, 0x00, 0x61, 0x1e, 0x01, 0x00]), /^snappy: output longer than the declared length/);
      expectCorrupt(Buffer.from([5, 0x00, 0x61]), /^snappy: block holds 1 bytes, its header says 5/);
    });

    it("refuses snappy-java framing whose chunk lengths run past the input", () => {
      const good = Buffer.from(snappyCompressFramed(sampleText(1000)));
      expectCorrupt(good.subarray(0, 10), /^snappy: truncated stream header/);
      expectCorrupt(good.subarray(0, 18), /^snappy: truncated chunk length/);
      expectCorrupt(good.subarray(0, good.length - 1), /^snappy: chunk of \d+ bytes runs past the input/);
      const negative = Buffer.from(good);
      negative.writeInt32BE(-1, 16);
      expectCorrupt(negative, /^snappy: chunk of -1 bytes runs past the input/);
    });

    it('never throws anything but a named Error, nor hangs, on random damage to good streams', () => {
      const base = Buffer.from(snappyCompressFramed(sampleText(5000)));
      expectOnlyNamedErrors('snappy', base, snappyDecompress);
    });
  });
});
