import { expect } from 'chai';
import { assertPlainData, decodeEnvelope, encodeEnvelope, encodeEnvelopeCopy, encodeEnvelopeTransient, releaseTransientBuffer } from '../../src/protocol/codec.js';

describe('protocol/codec', () => {
  const to = { node: 'n', path: '/a' };

  it('round-trips an envelope with routing and a binary payload as bytes', () => {
    const data = new Uint8Array([1, 2, 3, 250]);
    const env = { to, from: { node: 'm', path: '/b' }, replyTo: { node: 'm', path: '$ask' }, correlationId: 'c', msg: { type: 'Produce', data, n: 2 ** 40, neg: -1 } };
    const res = decodeEnvelope(encodeEnvelopeCopy(env));
    expect(res.ok).to.equal(true);
    if (!res.ok) return;
    expect(res.envelope).to.deep.equal({ ...env, msg: { ...env.msg, data: Buffer.from(data) } });
    expect(res.envelope.msg).to.have.property('data').that.is.instanceOf(Uint8Array);
  });

  it('omits undefined fields on the wire', () => {
    const bytes = encodeEnvelopeCopy({ to, msg: { type: 'X', gone: undefined } as never });
    const res = decodeEnvelope(bytes);
    expect(res.ok && Object.keys(res.envelope.msg)).to.deep.equal(['type']);
  });

  it('encodeEnvelope returns a scratch view; encodeEnvelopeCopy owns its bytes', () => {
    const copy = encodeEnvelopeCopy({ to, msg: { type: 'A' } });
    const view = encodeEnvelope({ to, msg: { type: 'B' } });
    expect(copy.buffer.byteLength).to.equal(copy.length);
    expect(view.buffer.byteLength).to.be.greaterThan(view.length);
  });

  it('reports undecodable bytes and malformed envelopes without throwing', () => {
    expect(decodeEnvelope(new Uint8Array([0xc1]))).to.deep.include({ ok: false });
    const cases: [unknown, RegExp][] = [
      [[1, 2], /not a map/],
      [{ msg: { type: 'X' } }, /envelope\.to/],
      [{ to: { node: 1, path: '/a' }, msg: { type: 'X' } }, /envelope\.to/],
      [{ to, msg: { kind: 'X' } }, /string type/],
      [{ to, msg: 'X' }, /string type/],
      [{ to, from: 'me', msg: { type: 'X' } }, /envelope\.from/],
      [{ to, correlationId: 5, msg: { type: 'X' } }, /correlationId/],
    ];
    for (const [value, why] of cases) {
      const res = decodeEnvelope(encodeEnvelopeCopy(value as never));
      expect(res.ok).to.equal(false);
      if (!res.ok) expect(res.reason).to.match(why);
    }
  });

  it('keeps the reply address of a malformed envelope so it can be answered', () => {
    const res = decodeEnvelope(encodeEnvelopeCopy({ replyTo: { node: 'm', path: '$ask' }, correlationId: 'k', msg: { type: 'X' } } as never));
    expect(res.ok).to.equal(false);
    if (!res.ok) expect(res.partial).to.deep.equal({ replyTo: { node: 'm', path: '$ask' }, correlationId: 'k' });
  });

  it('assertPlainData accepts wire data and names what would not survive', () => {
    expect(() => assertPlainData({ a: [1, 'x', null, true, 1n, new Uint8Array(2), { b: new Date(0) }] })).to.not.throw();
    expect(() => assertPlainData({ a: { f: () => 1 } })).to.throw(/msg\.a\.f is a function/);
    expect(() => assertPlainData({ m: new Map() })).to.throw(/msg\.m is a Map object/);
    expect(() => assertPlainData([Symbol('s')])).to.throw(/msg\[0\] is a symbol/);
  });
});

describe('protocol/codec: encodeEnvelope views stay intact', () => {
  it('never overwrites the bytes of an earlier result (what lets TCP write bodies by reference)', () => {
    const first = encodeEnvelope({ to: { node: 'n', path: '/a' }, msg: { type: 'Blob', data: new Uint8Array(70_000).fill(7) } as never });
    const snapshot = Buffer.from(first);
    for (let i = 0; i < 2_000; i++) encodeEnvelope({ to: { node: 'n', path: '/a' }, msg: { type: 'X', i, pad: 'p'.repeat(i % 500) } as never });
    expect(Buffer.from(first).equals(snapshot)).to.equal(true);
  });

  it('transient encodes reuse one buffer and never touch the bytes of an earlier lasting result', () => {
    const lasting = encodeEnvelope({ to: { node: 'n', path: '/a' }, msg: { type: 'Blob', data: new Uint8Array(30_000).fill(9) } as never });
    const snapshot = Buffer.from(lasting);
    const a = encodeEnvelopeTransient({ to: { node: 'n', path: '/a' }, msg: { type: 'A', pad: 'a'.repeat(100) } as never });
    const aBytes = Buffer.from(a);
    const b = encodeEnvelopeTransient({ to: { node: 'n', path: '/a' }, msg: { type: 'B', pad: 'b'.repeat(100) } as never });
    // the second transient result is written where the first was (no new allocation)
    expect(b.buffer).to.equal(a.buffer);
    expect(b.byteOffset).to.equal(a.byteOffset);
    const decoded = decodeEnvelope(aBytes);
    expect(decoded.ok && decoded.envelope.msg.type).to.equal('A');
    for (let i = 0; i < 2_000; i++) encodeEnvelopeTransient({ to: { node: 'n', path: '/a' }, msg: { type: 'X', i, pad: 'p'.repeat(i % 500) } as never });
    expect(Buffer.from(lasting).equals(snapshot)).to.equal(true);
    // and a lasting encode after transient ones is not written over by the next transient one
    const later = encodeEnvelope({ to: { node: 'n', path: '/a' }, msg: { type: 'Later', n: 1 } as never });
    const laterBytes = Buffer.from(later);
    encodeEnvelopeTransient({ to: { node: 'n', path: '/a' }, msg: { type: 'Y', pad: 'y'.repeat(300) } as never });
    expect(Buffer.from(later).equals(laterBytes)).to.equal(true);
  });

  it('gives back a working buffer one big transient message grew, keeping lasting views intact', () => {
    const lasting = encodeEnvelope({ to: { node: 'n', path: '/a' }, msg: { type: 'Keep', data: new Uint8Array(1000).fill(3) } as never });
    const snapshot = Buffer.from(lasting);
    const big = encodeEnvelopeTransient({ to: { node: 'n', path: '/a' }, msg: { type: 'Big', data: new Uint8Array(20 * 1024 * 1024).fill(1) } as never });
    expect(big.buffer.byteLength).to.be.greaterThan(20 * 1024 * 1024);
    releaseTransientBuffer(big);
    const next = encodeEnvelopeTransient({ to: { node: 'n', path: '/a' }, msg: { type: 'Small' } as never });
    expect(next.buffer.byteLength).to.be.lessThan(1024 * 1024);
    // a small working buffer is kept
    releaseTransientBuffer(next);
    expect(encodeEnvelopeTransient({ to: { node: 'n', path: '/a' }, msg: { type: 'Again' } as never }).buffer).to.equal(next.buffer);
    expect(Buffer.from(lasting).equals(snapshot)).to.equal(true);
  });
});
