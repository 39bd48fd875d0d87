/**
 * Tests for the LZ4 codec: frames made by the reference `lz4` tool (fixtures, and live when the
 * tool is installed) decode to their input; what we write is Kafka's header and block layout,
 * keeps LZ4's end-of-block rules, and round-trips; every kind of damage is refused by name.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LZ4_DEFAULT_LEVEL, LZ4_MAX_LEVEL, LZ4_MIN_LEVEL, lz4ChainAttempts, lz4CompressBlock, lz4BlockBound, lz4CompressFrame, lz4DecompressFrame } from '../../src/protocol/lz4.js';
import { xxhash32 } from '../../src/protocol/xxhash32.js';
import { hasCommand } from '../helpers/has-command.js';
import { expectOnlyNamedErrors, repetitiveBytes } from '../helpers/codec-inputs.js';
import { sampleText } from '../helpers/sample-text.js';
import { lz4CompressEach, lz4DecompressEach } from '../helpers/tool-files.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'compression');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

/** A frame of our own blocks with the descriptor flags given, checksums computed: to exercise the reader's options. */
function frameWith(data: Uint8Array, opts: { flg: number; bd?: number; contentSize?: number }): Buffer {
  const bd = opts.bd ?? 0x40;
  const head = [0x04, 0x22, 0x4d, 0x18, opts.flg, bd];
  if (opts.flg & 0x08) {
    const size = Buffer.alloc(8);
    size.writeBigUInt64LE(BigInt(opts.contentSize ?? data.length));
    head.push(...size);
  }
  head.push((xxhash32(Uint8Array.from(head), 0, 4, head.length) >>> 8) & 0xff);
  const parts: Buffer[] = [Buffer.from(head)];
  const blockMax = 1 << (2 * ((bd >>> 4) & 7) + 8);
  for (let at = 0; at < data.length; at += blockMax) {
    const chunk = data.subarray(at, Math.min(data.length, at + blockMax));
    const out = Buffer.alloc(lz4BlockBound(chunk.length));
    const n = lz4CompressBlock(chunk, 0, chunk.length, out, 0);
    const size = Buffer.alloc(4);
    size.writeUInt32LE(n);
    parts.push(size, out.subarray(0, n));
    if (opts.flg & 0x10) {
      const c = Buffer.alloc(4);
      c.writeUInt32LE(xxhash32(out, 0, 0, n));
      parts.push(c);
    }
  }
  parts.push(Buffer.alloc(4));
  if (opts.flg & 0x04) {
    const c = Buffer.alloc(4);
    c.writeUInt32LE(xxhash32(data));
    parts.push(c);
  }
  return Buffer.concat(parts);
}

interface Sequence {
  literals: number;
  matchStart: number;
  matchLength: number;
}

/** Parses one block's sequences (test-side, independent of the decoder): where each match lies in the output. */
function sequences(block: Uint8Array): { seqs: Sequence[]; outLength: number } {
  const seqs: Sequence[] = [];
  let ip = 0;
  let op = 0;
  for (;;) {
    const token = block[ip++]!;
    let lit = token >>> 4;
    if (lit === 15) for (let s = 255; s === 255; lit += s) s = block[ip++]!;
    ip += lit;
    op += lit;
    if (ip >= block.length) {
      seqs.push({ literals: lit, matchStart: -1, matchLength: 0 });
      return { seqs, outLength: op };
    }
    ip += 2;
    let m = token & 15;
    if (m === 15) for (let s = 255; s === 255; m += s) s = block[ip++]!;
    seqs.push({ literals: lit, matchStart: op, matchLength: m + 4 });
    op += m + 4;
  }
}

/** The blocks of one of our frames (7-byte header, no checksums). */
function blocksOf(frame: Buffer): { stored: boolean; bytes: Buffer }[] {
  const out: { stored: boolean; bytes: Buffer }[] = [];
  let ip = 7;
  for (;;) {
    const word = frame.readUInt32LE(ip);
    ip += 4;
    if (word === 0) return out;
    const size = word & 0x7fffffff;
    out.push({ stored: (word & 0x80000000) !== 0, bytes: frame.subarray(ip, ip + size) });
    ip += size;
  }
}

function expectCorrupt(data: Uint8Array, re: RegExp): void {
  expect(() => lz4DecompressFrame(data)).to.throw(Error, re);
}

const structured = repetitiveBytes(40, 12, 400);

describe('protocol/lz4', () => {
  describe('frames made by the reference lz4 tool', () => {
    const input = sampleText(80_000);
    for (const name of ['sample-default.lz4', 'sample-dependent-64k.lz4', 'sample-checksums-size-64k.lz4', 'sample-256k-no-content-checksum.lz4']) {
      it(`decodes ${name} to its input`, () => {
        expect(Buffer.from(lz4DecompressFrame(fixture(name))).equals(input)).to.equal(true);
      });
    }

    it('finds a flipped byte through the content checksum and the block checksum', () => {
      const withContent = Buffer.from(fixture('sample-default.lz4'));
      withContent[withContent.length - 1]! ^= 0x01;
      expectCorrupt(withContent, /^lz4: content checksum mismatch/);
      const withBlocks = Buffer.from(fixture('sample-checksums-size-64k.lz4'));
      withBlocks[40]! ^= 0x01;
      expectCorrupt(withBlocks, /^lz4: block checksum mismatch/);
    });
  });

  describe('what the encoder writes', () => {
    it("opens with Kafka's header: magic, FLG 0x60 (version 1, independent blocks), BD 0x40 (64 KiB), check byte 0x82", () => {
      const f = Buffer.from(lz4CompressFrame(Buffer.from('hello hello hello hello hello')));
      expect([...f.subarray(0, 7)]).to.deep.equal([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82]);
      expect(f.readUInt32LE(f.length - 4)).to.equal(0);
    });

    it('splits input into blocks of at most 64 KiB and stores a block that does not shrink as it is', () => {
      const random = Buffer.from(fc.sample(fc.uint8Array({ minLength: 70_000, maxLength: 70_000 }), { numRuns: 1, seed: 7 })[0]!);
      const f = Buffer.from(lz4CompressFrame(random));
      const blocks = blocksOf(f);
      expect(blocks.map((b) => b.stored)).to.deep.equal([true, true]);
      expect(blocks.map((b) => b.bytes.length)).to.deep.equal([65_536, 70_000 - 65_536]);
      expect(Buffer.concat(blocks.map((b) => b.bytes)).equals(random)).to.equal(true);
      const text = sampleText(200_000);
      const tf = Buffer.from(lz4CompressFrame(text));
      expect(blocksOf(tf).map((b) => b.stored)).to.deep.equal([false, false, false, false]);
      expect(tf.length).to.be.below(text.length / 2);
    });

    it("keeps LZ4's end-of-block rules: the last 5 bytes are literals and no match starts in the last 12", () => {
      fc.assert(
        fc.property(fc.oneof(structured, fc.uint8Array({ maxLength: 300 })), (data) => {
          for (const b of blocksOf(Buffer.from(lz4CompressFrame(data)))) {
            if (b.stored) continue;
            const { seqs, outLength } = sequences(b.bytes);
            const last = seqs[seqs.length - 1]!;
            expect(last.matchStart).to.equal(-1);
            if (outLength >= 13) expect(last.literals).to.be.at.least(5);
            for (const s of seqs) {
              if (s.matchStart < 0) continue;
              expect(s.matchStart).to.be.at.most(outLength - 12);
              expect(s.matchStart + s.matchLength).to.be.at.most(outLength - 5);
            }
          }
        }),
        { numRuns: 300 },
      );
    });

    it('round-trips random bytes, repetitive data and sizes around the block boundary', () => {
      fc.assert(
        fc.property(fc.oneof(fc.uint8Array({ maxLength: 2000 }), structured), (data) => {
          expect(Buffer.from(lz4DecompressFrame(lz4CompressFrame(data))).equals(Buffer.from(data))).to.equal(true);
        }),
        { numRuns: 400 },
      );
      for (const n of [0, 1, 12, 13, 65_535, 65_536, 65_537, 131_072, 300_001]) {
        const data = sampleText(n);
        expect(Buffer.from(lz4DecompressFrame(lz4CompressFrame(data))).equals(data), `${n} bytes`).to.equal(true);
        const same = Buffer.alloc(n, 0x61);
        expect(Buffer.from(lz4DecompressFrame(lz4CompressFrame(same))).equals(same), `${n} equal bytes`).to.equal(true);
      }
    });
  });

  describe('frame options the reader takes', () => {
    const data = sampleText(150_000);
    it('block checksums, a content size and a content checksum, all verified', () => {
      expect(Buffer.from(lz4DecompressFrame(frameWith(data, { flg: 0x60 | 0x10 | 0x08 | 0x04 }))).equals(data)).to.equal(true);
      expectCorrupt(frameWith(data, { flg: 0x60 | 0x08, contentSize: data.length + 1 }), /^lz4: frame holds 150000 bytes, its header says 150001/);
    });

    it('256 KiB to 4 MiB blocks, and frames one after another with a skippable frame between', () => {
      for (const bd of [0x50, 0x60, 0x70]) expect(Buffer.from(lz4DecompressFrame(frameWith(data, { flg: 0x60, bd }))).equals(data)).to.equal(true);
      const skippable = Buffer.from([0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
      const two = Buffer.concat([lz4CompressFrame(data.subarray(0, 100)), skippable, lz4CompressFrame(data.subarray(100))]);
      expect(Buffer.from(lz4DecompressFrame(two)).equals(data)).to.equal(true);
    });
  });

  describe('damaged input', () => {
    const good = Buffer.from(lz4CompressFrame(sampleText(1000)));
    const withByte = (i: number, v: number) => {
      const b = Buffer.from(good);
      b[i] = v;
      return b;
    };

    it('refuses a wrong magic, version, reserved bits, block size code or check byte', () => {
      expectCorrupt(Buffer.alloc(0), /^lz4: no frame/);
      expectCorrupt(withByte(0, 0x05), /^lz4: bad frame magic 0x184d2205 \(at byte 0\)/);
      expectCorrupt(withByte(4, 0xa0), /^lz4: frame version 2 is not 1/);
      expectCorrupt(frameWith(Buffer.from('x'), { flg: 0x61 }), /^lz4: reserved frame descriptor bits set/);
      expectCorrupt(frameWith(Buffer.from('x'), { flg: 0x62 }), /^lz4: dictionary ids are not supported/);
      expectCorrupt(frameWith(Buffer.from('x'), { flg: 0x60, bd: 0x30 }), /^lz4: block maximum size code 3 is not 4-7/);
      expectCorrupt(withByte(6, 0x83), /^lz4: frame descriptor checksum 0x83 is not 0x82/);
    });

    it('refuses truncation anywhere, and a block larger than the frame allows', () => {
      for (let n = 1; n < good.length; n++) expect(() => lz4DecompressFrame(good.subarray(0, n)), `${n} bytes`).to.throw(Error, /^lz4: /);
      const big = Buffer.from(good);
      big.writeUInt32LE(65_537, 7);
      expectCorrupt(big, /^lz4: block of 65537 bytes is larger than the frame's 65536/);
    });

    it('refuses a match before the start of the data, and one reaching into the block before when blocks are independent', () => {
      // token: 1 literal, match length 4; offset 2 with one byte of output so far
      const block = Buffer.from([0x10, 0x61, 0x02, 0x00, 0x50, 0x61, 0x61, 0x61, 0x61, 0x61]);
      const frame = (flg: number, blocks: Buffer[]) => {
        const head = [0x04, 0x22, 0x4d, 0x18, flg, 0x40];
        head.push((xxhash32(Uint8Array.from(head), 0, 4, 6) >>> 8) & 0xff);
        const parts: Buffer[] = [Buffer.from(head)];
        for (const b of blocks) {
          const size = Buffer.alloc(4);
          size.writeUInt32LE(b.length);
          parts.push(size, b);
        }
        return Buffer.concat([...parts, Buffer.alloc(4)]);
      };
      expectCorrupt(frame(0x60, [block]), /^lz4: match offset 2 points before the data/);
      // a second block whose first sequence copies from 3 bytes back: fine when dependent only
      const second = Buffer.from([0x00, 0x03, 0x00, 0x50, 0x62, 0x62, 0x62, 0x62, 0x62]);
      const first = Buffer.from([0x50, 0x61, 0x62, 0x63, 0x64, 0x65]);
      expect(Buffer.from(lz4DecompressFrame(frame(0x40, [first, second]))).toString()).to.equal('abcdecdecbbbbb');
      expectCorrupt(frame(0x60, [first, second]), /^lz4: match offset 3 points before the data/);
    });

    it('never throws anything but a named Error, nor hangs, on random damage to good frames', () => {
      const base = Buffer.from(lz4CompressFrame(sampleText(5000)));
      expectOnlyNamedErrors('lz4', base, lz4DecompressFrame);
    });
  });

  describe("levels (Kafka's compression.lz4.level, KIP-390)", () => {
    const text = sampleText(200_000);

    it('the default, 9, is the fast coder; every other level searches a chain, more candidates the higher, and writes less', () => {
      expect(LZ4_DEFAULT_LEVEL).to.equal(9);
      expect(Buffer.from(lz4CompressFrame(text, 9)).equals(Buffer.from(lz4CompressFrame(text)))).to.equal(true);
      expect([1, 3, 4, 5, 8, 10, 12, 13, 17].map(lz4ChainAttempts)).to.deep.equal([4, 4, 8, 16, 128, 512, 2048, 4096, 4096]);
      const size = (level: number) => lz4CompressFrame(text, level).length;
      const fast = size(9);
      for (const level of [1, 4, 8, 12, 17]) expect(size(level), `level ${level}`).to.be.below(fast);
      expect(size(12)).to.be.at.most(size(1));
    });

    it('round-trips every level, from one byte to several blocks, random and repetitive', () => {
      const inputs = [Buffer.from('x'), text, Buffer.alloc(140_000, 7), ...fc.sample(fc.oneof(fc.uint8Array({ maxLength: 3000 }), structured), { numRuns: 12, seed: 5 }).map((u) => Buffer.from(u))];
      for (let level = LZ4_MIN_LEVEL; level <= LZ4_MAX_LEVEL; level++) {
        for (const data of inputs) expect(Buffer.from(lz4DecompressFrame(lz4CompressFrame(data, level))).equals(data), `level ${level}, ${data.length} bytes`).to.equal(true);
      }
    });

    it('refuses a level outside 1-17', () => {
      for (const level of [0, -1, 18, 2.5]) expect(() => lz4CompressFrame(text, level)).to.throw(RangeError, /lz4 level must be an integer from 1 to 17/);
    });
  });

  describe('against the reference lz4 tool, live', function () {
    before(function () {
      if (!hasCommand('lz4', ['--version'])) {
        if (process.env.SAMSA_SKIP_LZ4_TOOL === '1') this.skip();
        throw new Error('the lz4 tool is not installed (Debian: apt-get install lz4; .ci/run installs it). Set SAMSA_SKIP_LZ4_TOOL=1 to skip these tests.');
      }
    });

    it('the tool decodes what we write (at the default level and chained ones), and we decode what it writes, for random and repetitive inputs', () => {
      const inputs = [sampleText(100_000), Buffer.alloc(70_000, 0x2a), ...fc.sample(fc.oneof(fc.uint8Array({ maxLength: 5000 }), structured), { numRuns: 20, seed: 11 }).map((u) => Buffer.from(u))];
      for (const level of [LZ4_DEFAULT_LEVEL, 1, 12]) {
        lz4DecompressEach(inputs.map((data) => lz4CompressFrame(data, level))).forEach((ours, i) => {
          expect(ours.equals(inputs[i]!), `level ${level}, ${inputs[i]!.length} bytes`).to.equal(true);
        });
      }
      lz4CompressEach(['-B4', '-BD'], inputs).forEach((theirs, i) => {
        expect(Buffer.from(lz4DecompressFrame(theirs)).equals(inputs[i]!), `${inputs[i]!.length} bytes`).to.equal(true);
      });
    });
  });
});
