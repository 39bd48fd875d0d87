/** Tests for the CRC-32C: published vectors, a bytewise reference on random data, and the native implementations against the tables. */
import { expect } from 'chai';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { CRC32C_PROBE, acceleratedCrc32c, crc32c, crc32cImplementation, crc32cTables, crc32cUpdate, verifiedCrc32c } from '../../src/protocol/crc32c.js';
import { hasCommand } from '../helpers/has-command.js';

/** Bit-at-a-time reference, independent of the table code. */
function referenceCrc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  return referenceCrc32cFrom(0, buf, start, end);
}

/** The bit-at-a-time reference continuing from `crc`. */
function referenceCrc32cFrom(crc: number, buf: Uint8Array, start: number, end: number): number {
  let c = ~crc >>> 0;
  for (let i = start; i < end; i++) {
    c ^= buf[i]!;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

describe('protocol/crc32c', () => {
  it('matches the published check values', () => {
    expect(crc32c(Buffer.from('123456789', 'ascii'))).to.equal(0xe3069283);
    expect(crc32c(new Uint8Array(32))).to.equal(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).to.equal(0x62a8ab43);
    const ascending = Uint8Array.from({ length: 32 }, (_, i) => i);
    expect(crc32c(ascending)).to.equal(0x46dd794e);
    const descending = Uint8Array.from({ length: 32 }, (_, i) => 31 - i);
    expect(crc32c(descending)).to.equal(0x113fdb5c);
  });

  it('is 0 for an empty range and returns unsigned values', () => {
    expect(crc32c(new Uint8Array(0))).to.equal(0);
    expect(crc32c(Buffer.from('abc'), 1, 1)).to.equal(0);
    expect(crc32c(Buffer.from('123456789', 'ascii'))).to.be.greaterThan(0x7fffffff);
  });

  it('agrees with a bytewise reference on random data and random ranges', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 300 }),
        fc.nat(),
        fc.nat(),
        (bytes, a, b) => {
          const x = bytes.length === 0 ? 0 : a % (bytes.length + 1);
          const y = bytes.length === 0 ? 0 : b % (bytes.length + 1);
          const start = Math.min(x, y);
          const end = Math.max(x, y);
          expect(crc32c(bytes, start, end)).to.equal(referenceCrc32c(bytes, start, end));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('agrees with the reference on long ranges at every alignment (the word path)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 256, maxLength: 4096 }),
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        (bytes, shift, trimStart, trimEnd) => {
          // Place the data at every byte offset of the backing ArrayBuffer.
          const backing = new Uint8Array(bytes.length + shift);
          backing.set(bytes, shift);
          const view = backing.subarray(shift);
          const end = view.length - trimEnd;
          expect(crc32c(view)).to.equal(referenceCrc32c(bytes));
          expect(crc32c(view, trimStart, end)).to.equal(referenceCrc32c(bytes, trimStart, end));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('handles a subarray view with a non-zero byteOffset', () => {
    const backing = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31 + 7) & 0xff);
    const view = backing.subarray(13, 977);
    expect(crc32c(view)).to.equal(referenceCrc32c(backing, 13, 977));
    expect(crc32c(view, 5, 100)).to.equal(referenceCrc32c(backing, 18, 113));
  });

  it('continues a checksum across chunks with crc32cUpdate', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % (bytes.length + 1);
        const whole = crc32c(bytes);
        expect(crc32cUpdate(crc32c(bytes, 0, at), bytes, at)).to.equal(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects ranges outside the buffer', () => {
    const b = new Uint8Array(10);
    expect(() => crc32c(b, 0, 11)).to.throw(RangeError);
    expect(() => crc32c(b, -1, 5)).to.throw(RangeError);
    expect(() => crc32c(b, 6, 5)).to.throw(RangeError);
    expect(() => crc32c(b, 1.5, 5)).to.throw(RangeError);
  });
});

describe('protocol/crc32c: native and JavaScript paths agree', () => {
  it('gives the same CRC on large ranges, offsets and continuations whichever path serves them', async () => {
    const { crc32c: crc, crc32cUpdate: update, crc32cImplementation } = await import('../../src/protocol/crc32c.js');
    const data = new Uint8Array(70_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
    // reference: the table path, through ranges short enough that no addon serves them
    let ref = 0;
    for (let i = 0; i < data.length; i += 64) ref = update(ref, data, i, Math.min(data.length, i + 64));
    expect(crc(data)).to.equal(ref);
    expect(update(update(0, data, 0, 30_001), data, 30_001)).to.equal(ref);
    const view = data.subarray(3, 60_003);
    let refView = 0;
    for (let i = 0; i < view.length; i += 50) refView = update(refView, view, i, Math.min(view.length, i + 50));
    expect(crc(view)).to.equal(refView);
    expect(['hardware', 'node-rs', 'js']).to.include(crc32cImplementation);
  });

  it('each accelerated implementation that loads agrees with the tables at every length, offset and starting CRC', () => {
    const data = new Uint8Array(80_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 2246822519 + 374761393) >>> 24;
    // lengths around the addon's block sizes (3 x 256 and 3 x 8192 bytes) and its 8-byte steps
    const lengths = [0, 1, 7, 8, 9, 127, 128, 255, 767, 768, 769, 1023, 1024, 1025, 16_384, 24_575, 24_576, 24_577, 50_000, 79_990];
    for (const impl of acceleratedCrc32c) {
      for (const len of lengths) {
        for (const start of [0, 1, 3, 5, 8]) {
          if (start + len > data.length) continue;
          for (const seed of [0, 0xe3069283, 0xffffffff]) {
            const got = impl.update(data, seed, start, start + len);
            expect(got, `${impl.name}: ${len} bytes from ${start}, crc ${seed}`).to.equal(crc32cTables(seed, data, start, start + len));
          }
        }
      }
      // a view whose byteOffset is odd: the addon reads from the view's first byte
      const view = data.subarray(13, 40_013);
      expect(impl.update(view, 0, 0, view.length), impl.name).to.equal(crc32cTables(0, data, 13, 40_013));
    }
  });

  it('agrees with the tables on random data of random lengths (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 30_000 }), fc.nat(), fc.nat({ max: 0xffffffff }), (bytes, cut, seed) => {
        const start = bytes.length === 0 ? 0 : cut % (bytes.length + 1);
        for (const impl of acceleratedCrc32c) {
          expect(impl.update(bytes, seed, start, bytes.length), impl.name).to.equal(crc32cTables(seed, bytes, start, bytes.length));
        }
      }),
      { numRuns: 100 },
    );
  });

  it("the load-time probe's CRC is the one the tables compute", () => {
    const p = CRC32C_PROBE;
    const probe = Buffer.alloc(p.length, p.fill);
    expect(crc32cTables(p.seed, probe, p.start, p.length)).to.equal(p.crc);
    expect(referenceCrc32cFrom(p.seed, probe, p.start, p.length)).to.equal(p.crc);
  });

  it('sets aside an implementation that is wrong on long ranges, throws, or misses the check value', () => {
    const tables = (b: Uint8Array, c: number, s: number, e: number) => crc32cTables(c, b, s, e);
    expect(verifiedCrc32c(tables)).to.equal(tables);
    // right on the 9-byte check value, wrong past 8 KiB (a broken three-stream combine)
    const brokenLong = (b: Uint8Array, c: number, s: number, e: number) => (e - s > 8192 ? tables(b, c, s, e) ^ 1 : tables(b, c, s, e));
    expect(verifiedCrc32c(brokenLong)).to.equal(null);
    // ignores the starting CRC
    expect(verifiedCrc32c((b, _c, s, e) => crc32cTables(0, b, s, e))).to.equal(null);
    expect(verifiedCrc32c(() => 0xe3069283)).to.equal(null);
    expect(
      verifiedCrc32c(() => {
        throw new Error('no');
      }),
    ).to.equal(null);
  });

  it("samsa's addon rejects what is not a Uint8Array range", function () {
    const addon = acceleratedCrc32c.find((a) => a.name === 'hardware');
    if (!addon) this.skip();
    const b = new Uint8Array(10);
    expect(() => addon!.update(b, 0, 0, 11)).to.throw(RangeError);
    expect(() => addon!.update(b, 0, 6, 5)).to.throw(RangeError);
    expect(() => addon!.update(b, 0, -1, 5)).to.throw(RangeError);
    expect(() => addon!.update(new Uint16Array(4) as unknown as Uint8Array, 0, 0, 1)).to.throw(TypeError);
    expect(() => addon!.update('abc' as unknown as Uint8Array, 0, 0, 1)).to.throw(TypeError);
    expect(() => (addon!.update as unknown as (b: Uint8Array) => number)(b)).to.throw(TypeError);
  });

  it('is built and used where the CPU has a CRC-32C instruction and a C compiler is present', function () {
    const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
    const compiler = hasCommand('cc');
    const instruction = (process.arch === 'x64' && /\bsse4_2\b/.test(cpuinfo)) || (process.arch === 'arm64' && /\bcrc32\b/.test(cpuinfo));
    if (!instruction || !compiler || process.env.SAMSA_SKIP_NATIVE === '1' || process.env.SAMSA_CRC32C) {
      this.skip();
    }
    // `npm ci` builds it (scripts/build-native.mjs); `npm run build:native` builds it again
    expect(crc32cImplementation).to.equal('hardware');
  });

  it("the package tells which implementation runs (samsa's crc32cImplementation)", async () => {
    const pkg = await import('../../src/index.js');
    expect(pkg.crc32cImplementation).to.equal(crc32cImplementation);
  });

  it('SAMSA_CRC32C rules out the faster implementations', function () {
    this.timeout(30_000);
    const implementationWith = (value: string): string =>
      execFileSync(process.execPath, ['--import', 'tsx', '-e', "import('./src/protocol/crc32c.ts').then((m) => process.stdout.write(m.crc32cImplementation))"], {
        env: { ...process.env, SAMSA_CRC32C: value },
        encoding: 'utf8',
      });
    expect(implementationWith('js')).to.equal('js');
    expect(implementationWith('node-rs')).to.be.oneOf(['node-rs', 'js']);
  });
});
