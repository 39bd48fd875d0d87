import { expect } from 'chai';
import fc from 'fast-check';
import { FrameDecoder, FrameTooLargeError } from '../../src/transport/frame-decoder.js';

function encodeFrames(bodies: Buffer[]): Buffer {
  return Buffer.concat(
    bodies.map((b) => {
      const h = Buffer.alloc(4);
      h.writeUInt32BE(b.length, 0);
      return Buffer.concat([h, b]);
    }),
  );
}

describe('transport/frame-decoder', () => {
  it('reassembles frames split at every possible position', () => {
    const bodies = [Buffer.from('hello'), Buffer.alloc(0), Buffer.from('x'.repeat(300)), Buffer.from([1, 2, 3])];
    const wire = encodeFrames(bodies);
    for (let cut = 0; cut <= wire.length; cut++) {
      const d = new FrameDecoder(1024);
      const out: Buffer[] = [];
      d.push(wire.subarray(0, cut), (f) => out.push(Buffer.from(f)));
      d.push(wire.subarray(cut), (f) => out.push(Buffer.from(f)));
      expect(out.map((b) => b.toString('hex'))).to.deep.equal(bodies.map((b) => b.toString('hex')));
      expect(d.pendingBytes()).to.equal(0);
    }
  });

  it('reassembles any chunking of any frames (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 10 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 20 }),
        (frames, sizes) => {
          const bodies = frames.map((f) => Buffer.from(f));
          const wire = encodeFrames(bodies);
          const d = new FrameDecoder(1024);
          const out: string[] = [];
          let pos = 0;
          let i = 0;
          while (pos < wire.length) {
            const n = sizes[i++ % sizes.length]!;
            d.push(wire.subarray(pos, pos + n), (f) => out.push(f.toString('hex')));
            pos += n;
          }
          expect(out).to.deep.equal(bodies.map((b) => b.toString('hex')));
        },
      ),
    );
  });

  it('hands out frames that later chunks never overwrite', () => {
    const d = new FrameDecoder(1024);
    const kept: Buffer[] = [];
    const wire = encodeFrames([Buffer.from('first-frame'), Buffer.from('second-frame')]);
    d.push(wire.subarray(0, 7), (f) => kept.push(f));
    d.push(wire.subarray(7), (f) => kept.push(f));
    const again = encodeFrames([Buffer.from('third-frame!')]);
    d.push(again, (f) => kept.push(f));
    again.fill(0);
    expect(kept.slice(0, 2).map(String)).to.deep.equal(['first-frame', 'second-frame']);
  });

  it('throws FrameTooLargeError for a length above the maximum, before buffering it', () => {
    const d = new FrameDecoder(10);
    const h = Buffer.alloc(4);
    h.writeUInt32BE(11, 0);
    expect(() => d.push(h, () => undefined)).to.throw(FrameTooLargeError, /11 bytes exceeds the maximum of 10/);
    const d2 = new FrameDecoder(10);
    expect(() => {
      d2.push(h.subarray(0, 2), () => undefined);
      d2.push(h.subarray(2), () => undefined);
    }).to.throw(FrameTooLargeError);
  });
});
