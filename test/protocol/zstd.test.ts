/**
 * Tests for the Zstandard reader: frames made by the reference zstd tool (fixtures, and live
 * when the tool is installed: levels, streaming, multi-block inputs, concatenated frames) decode
 * to their input; hand-made frames cover raw and RLE blocks and skippable frames; every kind of
 * damage is refused by name. The writer: frame layout, block choices, round trips, and frames
 * the reference tool decodes.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZSTD_DEFAULT_LEVEL, zstdCompress, zstdSearch } from '../../src/protocol/zstd-compress.js';
import { zstdDecompress } from '../../src/protocol/zstd.js';
import { hasCommand } from '../helpers/has-command.js';
import { expectOnlyNamedErrors, repetitiveBytes } from '../helpers/codec-inputs.js';
import { sampleText } from '../helpers/sample-text.js';
import { zstdCompressEach, zstdDecompressEach } from '../helpers/tool-files.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'compression');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

/** A frame of hand-made blocks: single segment with a one-byte content size unless `header` says otherwise. */
function frame(blocks: { type: 0 | 1 | 2 | 3; size: number; body: number[]; last?: boolean }[], header: number[] = [0x20, blocks.reduce((n, b) => n + b.size, 0)]): Buffer {
  const out = [0x28, 0xb5, 0x2f, 0xfd, ...header];
  blocks.forEach((b, i) => {
    const last = b.last ?? i === blocks.length - 1;
    const h = (last ? 1 : 0) | (b.type << 1) | (b.size << 3);
    out.push(h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, ...b.body);
  });
  return Buffer.from(out);
}

function expectCorrupt(data: Uint8Array, re: RegExp): void {
  expect(() => zstdDecompress(data)).to.throw(Error, re);
}

const structured = repetitiveBytes(60, 20, 3000);

describe('protocol/zstd', () => {
  describe('frames made by the reference zstd tool', () => {
    const input = sampleText(80_000);
    for (const name of ['sample-19.zst', 'sample-1-no-checksum.zst', 'sample-stream-3.zst']) {
      it(`decodes ${name} to its input`, () => {
        expect(Buffer.from(zstdDecompress(fixture(name))).equals(input)).to.equal(true);
      });
    }

    it('finds a changed byte through the content checksum, and a wrong content size', () => {
      const f = Buffer.from(fixture('sample-19.zst'));
      f[f.length - 1]! ^= 0x01;
      expectCorrupt(f, /^zstd: content checksum mismatch/);
      const sized = Buffer.from(fixture('sample-19.zst'));
      // single segment, 4-byte content size right after the descriptor
      expect(sized[4]! >> 6).to.equal(2);
      sized.writeUInt32LE(80_001, 5);
      expectCorrupt(sized, /^zstd: (frame holds 80000 bytes, its header says 80001|block of \d+ bytes exceeds)/);
    });
  });

  describe('hand-made frames', () => {
    it('raw and RLE blocks, an empty frame, and a skippable frame between two frames', () => {
      const a = frame([
        { type: 0, size: 3, body: [0x61, 0x62, 0x63], last: false },
        { type: 1, size: 4, body: [0x7a] },
      ]);
      expect(Buffer.from(zstdDecompress(a)).toString()).to.equal('abczzzz');
      expect(zstdDecompress(frame([{ type: 0, size: 0, body: [] }])).length).to.equal(0);
      const skippable = Buffer.from([0x5e, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
      expect(Buffer.from(zstdDecompress(Buffer.concat([a, skippable, a]))).toString()).to.equal('abczzzzabczzzz');
    });

    it('refuses a wrong magic, reserved bits, a dictionary, a huge window, reserved block types and oversized blocks', () => {
      expectCorrupt(Buffer.alloc(0), /^zstd: no frame/);
      expectCorrupt(Buffer.from([0x28, 0xb5, 0x2f, 0xfe, 0x20, 0]), /^zstd: bad frame magic 0xfe2fb528 \(at byte 0\)/);
      expectCorrupt(frame([{ type: 0, size: 1, body: [1] }], [0x28, 1]), /^zstd: reserved bit set in the frame header/);
      expectCorrupt(frame([{ type: 0, size: 1, body: [1] }], [0x21, 7, 1]), /^zstd: frame needs dictionary 7; dictionaries are not supported/);
      expectCorrupt(frame([{ type: 0, size: 1, body: [1] }], [0x00, 0xb0]), /^zstd: window log 32 is above 31/);
      expectCorrupt(frame([{ type: 3, size: 1, body: [1] }]), /^zstd: reserved block type/);
      expectCorrupt(frame([{ type: 0, size: 2, body: [1, 2] }], [0x20, 1]), /^zstd: block of 2 bytes exceeds 1/);
      expectCorrupt(frame([{ type: 0, size: 5, body: [1, 2] }]), /^zstd: block runs past the input/);
    });

    it('does not believe a forged content size: 512 MiB declared, one raw byte sent, refused without allocating it', () => {
      const forged = frame([{ type: 0, size: 1, body: [0x61] }], [0xa0, 0, 0, 0, 0x20]);
      const before = process.memoryUsage().arrayBuffers;
      expectCorrupt(forged, /^zstd: frame holds 1 bytes, its header says 536870912/);
      expect(process.memoryUsage().arrayBuffers - before).to.be.below(64 * 1024 * 1024);
    });

    it('refuses truncation anywhere in a real frame', () => {
      const whole = fixture('sample-1-no-checksum.zst');
      for (let n = 1; n < whole.length; n += n < 64 ? 1 : 97) expect(() => zstdDecompress(whole.subarray(0, n)), `${n} bytes`).to.throw(Error, /^zstd: /);
    });

    it('never throws anything but a named Error, nor hangs, on random damage to good frames', () => {
      const base = fixture('sample-1-no-checksum.zst');
      expectOnlyNamedErrors('zstd', base, zstdDecompress);
    });
  });

  describe('against the reference zstd tool, live', function () {
    before(function () {
      if (!hasCommand('zstd', ['--version'])) {
        if (process.env.SAMSA_SKIP_ZSTD_TOOL === '1') this.skip();
        throw new Error('the zstd tool is not installed (Debian: apt-get install zstd; .ci/run installs it). Set SAMSA_SKIP_ZSTD_TOOL=1 to skip these tests.');
      }
    });

    it('decodes every level, with and without checksums, of inputs from one byte to several blocks', () => {
      const inputs = [Buffer.from('a'), sampleText(1000), sampleText(300_000), Buffer.alloc(200_000, 0x41), Buffer.concat([Buffer.from(fc.sample(fc.uint8Array({ minLength: 5000, maxLength: 5000 }), { numRuns: 1, seed: 5 })[0]!), sampleText(40_000)])];
      // checksums on every other input (xxHash64 in BigInt is slow on the large ones)
      const unchecked = inputs.filter((_, i) => i % 2 === 0);
      const checked = inputs.filter((_, i) => i % 2 === 1);
      for (const level of ['--fast=5', '-1', '-3', '-9', '-19']) {
        for (const [group, check] of [[unchecked, ['--no-check']], [checked, []]] as const) {
          zstdCompressEach([level, ...check], group).forEach((frame, i) => {
            expect(Buffer.from(zstdDecompress(frame)).equals(group[i]!), `${level} ${check.join(' ')} ${group[i]!.length} bytes`).to.equal(true);
          });
        }
      }
      const small = sampleText(20_000);
      expect(Buffer.from(zstdDecompress(zstdCompressEach(['--ultra', '-22'], [small])[0]!)).equals(small)).to.equal(true);
    });

    it('decodes random inputs at random levels, and frames one after another', () => {
      const samples = fc.sample(fc.tuple(fc.oneof(structured, fc.uint8Array({ maxLength: 3000 }).map((u) => Buffer.from(u))), fc.constantFrom('-1', '-4', '-12', '-19', '--fast=2', '--long=20 -6')), { numRuns: 30, seed: 17 });
      for (const level of new Set(samples.map(([, l]) => l))) {
        const inputs = samples.filter(([, l]) => l === level).map(([data]) => data);
        zstdCompressEach(level.split(' '), inputs).forEach((frame, i) => {
          expect(Buffer.from(zstdDecompress(frame)).equals(inputs[i]!), `${level} ${inputs[i]!.length} bytes`).to.equal(true);
        });
      }
      const [a, b] = [zstdCompressEach(['-3'], [Buffer.from('first frame '.repeat(50))])[0]!, zstdCompressEach(['-19'], [Buffer.from('second frame '.repeat(70))])[0]!];
      expect(Buffer.from(zstdDecompress(Buffer.concat([a, b]))).toString()).to.equal('first frame '.repeat(50) + 'second frame '.repeat(70));
    });
  });
});

describe('protocol/zstd-compress', () => {
  const blocksOf = (f: Buffer) => {
    const fhd = f[4]!;
    let p = 5 + ([1, 2, 4, 8][fhd >> 6] ?? 0);
    const out: { type: number; size: number }[] = [];
    for (;;) {
      const h = f[p]! | (f[p + 1]! << 8) | (f[p + 2]! << 16);
      const type = (h >> 1) & 3;
      out.push({ type, size: h >>> 3 });
      p += 3 + (type === 1 ? 1 : h >>> 3);
      if (h & 1) return out;
    }
  };

  it('writes one single-segment frame with the content size in 1, 2, 4 bytes and no checksum', () => {
    for (const [n, fhd, fcs] of [[100, 0x20, [100]], [1000, 0x60, [0xe8, 0x02]], [70_000, 0xa0, [0x70, 0x11, 0x01, 0]]] as const) {
      const f = Buffer.from(zstdCompress(sampleText(n)));
      expect([...f.subarray(0, 5 + fcs.length)], `${n} bytes`).to.deep.equal([0x28, 0xb5, 0x2f, 0xfd, fhd, ...fcs]);
    }
  });

  it('uses an RLE block for one repeated byte, a raw block for what does not shrink, compressed blocks of at most 128 KiB otherwise', () => {
    expect(blocksOf(Buffer.from(zstdCompress(Buffer.alloc(5000, 9))))).to.deep.equal([{ type: 1, size: 5000 }]);
    const random = Buffer.from(fc.sample(fc.uint8Array({ minLength: 3000, maxLength: 3000 }), { numRuns: 1, seed: 9 })[0]!);
    expect(blocksOf(Buffer.from(zstdCompress(random)))).to.deep.equal([{ type: 0, size: 3000 }]);
    const text = sampleText(300_000);
    const f = Buffer.from(zstdCompress(text));
    expect(blocksOf(f).map((b) => b.type)).to.deep.equal([2, 2, 2]);
    expect(f.length).to.be.below(text.length / 3);
  });

  it('fits its sequence tables to the block: 80 KB of log lines shrink below 17% (23% with the predefined tables alone)', () => {
    const text = sampleText(80_000);
    const f = zstdCompress(text);
    expect(f.length / text.length).to.be.below(0.17);
    expect(Buffer.from(zstdDecompress(f)).equals(text)).to.equal(true);
  });

  it('round-trips random bytes, repetitive data and sizes around the block boundary through the reader', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 3000 }).map((u) => Buffer.from(u)), structured), (data) => {
        expect(Buffer.from(zstdDecompress(zstdCompress(data))).equals(data)).to.equal(true);
      }),
      { numRuns: 300 },
    );
    for (const n of [0, 1, 15, 16, 17, 131_071, 131_072, 131_073, 262_145]) {
      const data = sampleText(n);
      expect(Buffer.from(zstdDecompress(zstdCompress(data))).equals(data), `${n} bytes`).to.equal(true);
    }
  });

  it('codes skewed literals (Huffman code lengths past 11 bits, clamped) so that the reader and the zstd tool agree', function () {
    // bytes drawn with P(k) = 2^-(k+1): a Huffman tree over them is ~24 levels deep
    let x = 0x12345678;
    const skewed = Buffer.alloc(60_000);
    for (let i = 0; i < skewed.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      skewed[i] = 100 + Math.min(23, Math.clz32(x | 1));
    }
    const f = zstdCompress(skewed);
    expect(Buffer.from(zstdDecompress(f)).equals(skewed)).to.equal(true);
    expect(f.length).to.be.below(skewed.length * 0.6);
    if (!hasCommand('zstd', ['--version'])) {
      if (process.env.SAMSA_SKIP_ZSTD_TOOL === '1') this.skip();
      throw new Error('the zstd tool is not installed (Debian: apt-get install zstd; .ci/run installs it). Set SAMSA_SKIP_ZSTD_TOOL=1 to skip this test.');
    }
    expect(zstdDecompressEach([f])[0]!.equals(skewed)).to.equal(true);
  });

  describe("levels (Kafka's compression.zstd.level, KIP-390)", () => {
    const text = sampleText(300_000);

    it('1-3 (and 0, the default) take one probe; a negative level skips faster; 4-22 search a chain, lazily from 8, and write less', () => {
      expect(ZSTD_DEFAULT_LEVEL).to.equal(3);
      const same = Buffer.from(zstdCompress(text));
      for (const level of [0, 1, 2, 3]) expect(Buffer.from(zstdCompress(text, level)).equals(same), `level ${level}`).to.equal(true);
      expect(zstdSearch(-1)).to.deep.equal({ depth: 1, lazy: false, accel: 1 });
      expect(zstdSearch(-131072)).to.deep.equal({ depth: 1, lazy: false, accel: 63 });
      expect([4, 5, 6, 7, 8, 12, 20, 22].map((l) => zstdSearch(l))).to.deep.equal([
        { depth: 2, lazy: false, accel: 0 },
        { depth: 2, lazy: false, accel: 0 },
        { depth: 4, lazy: false, accel: 0 },
        { depth: 4, lazy: false, accel: 0 },
        { depth: 8, lazy: true, accel: 0 },
        { depth: 32, lazy: true, accel: 0 },
        { depth: 512, lazy: true, accel: 0 },
        { depth: 1024, lazy: true, accel: 0 },
      ]);
      const size = (level: number) => zstdCompress(text, level).length;
      expect(size(8)).to.be.below(size(3));
      expect(size(19)).to.be.at.most(size(8));
      // random bytes, where skipping pays: a negative level finds fewer matches, never more
      const noise = Buffer.from(fc.sample(fc.uint8Array({ minLength: 50_000, maxLength: 50_000 }), { numRuns: 1, seed: 3 })[0]!);
      expect(zstdCompress(noise, -50).length).to.be.at.least(zstdCompress(noise, 1).length - 64);
    });

    it('round-trips every level, from one byte to several blocks, random and repetitive', () => {
      const inputs = [Buffer.from('x'), text, Buffer.alloc(140_000, 7), ...fc.sample(fc.oneof(structured, fc.uint8Array({ maxLength: 3000 }).map((u) => Buffer.from(u))), { numRuns: 12, seed: 9 })];
      for (const level of [-131072, -1000, -5, -1, 0, 1, 3, 4, 5, 6, 7, 8, 9, 12, 15, 19, 22]) {
        for (const data of inputs) expect(Buffer.from(zstdDecompress(zstdCompress(data, level))).equals(data), `level ${level}, ${data.length} bytes`).to.equal(true);
      }
    });

    it('refuses a level outside -131072 to 22', () => {
      for (const level of [23, -131073, 1.5]) expect(() => zstdCompress(text, level)).to.throw(RangeError, /zstd level must be an integer from -131072 to 22/);
    });
  });

  it('the reference zstd tool decodes what it writes, at the default level and others', function () {
    if (!hasCommand('zstd', ['--version'])) {
      if (process.env.SAMSA_SKIP_ZSTD_TOOL === '1') this.skip();
      throw new Error('the zstd tool is not installed (Debian: apt-get install zstd; .ci/run installs it). Set SAMSA_SKIP_ZSTD_TOOL=1 to skip this test.');
    }
    const inputs = [Buffer.alloc(0), sampleText(300_000), Buffer.alloc(140_000, 3), ...fc.sample(fc.oneof(structured, fc.uint8Array({ maxLength: 4000 }).map((u) => Buffer.from(u))), { numRuns: 40, seed: 23 })];
    for (const level of [3, -5, 8, 19]) {
      zstdDecompressEach(inputs.map((data) => zstdCompress(data, level))).forEach((decoded, i) => {
        expect(decoded.equals(inputs[i]!), `level ${level}, ${inputs[i]!.length} bytes`).to.equal(true);
      });
    }
  });
});
