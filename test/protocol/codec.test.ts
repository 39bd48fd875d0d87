import { expect } from 'chai';
import { ATTACHED_BIN_EXT, assertPlainData, decodeEnvelope, decodeEnvelopeAttached, encodeEnvelope, encodeEnvelopeAttaching, encodeEnvelopeCopy, encodeEnvelopeTransient, releaseTransientBuffer } from '../../src/protocol/codec.js';

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

describe('protocol/codec: attached bins', () => {
  const to = { node: 'n', path: '/a' };
  const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

  /** The frame a transport builds: the body, then the attached bins in order. */
  function frameOf(body: Uint8Array, bins: Uint8Array[]): { frame: Buffer; bodyEnd: number } {
    const frame = Buffer.concat([Buffer.from(body), ...bins.map((b) => Buffer.from(b))]);
    return { frame, bodyEnd: body.length };
  }

  it('writes every bin outside an attaching encode exactly as msgpack bin 8, 16 and 32', () => {
    for (const [n, head] of [
      [0, [0xc4, 0]],
      [255, [0xc4, 255]],
      [256, [0xc5, 1, 0]],
      [65_535, [0xc5, 255, 255]],
      [65_536, [0xc6, 0, 1, 0, 0]],
    ] as const) {
      const data = bytes(n, n);
      const enc = Buffer.from(encodeEnvelopeCopy({ to, msg: { type: 'B', data } as never }));
      const at = enc.indexOf(Buffer.from([0xa4, ...Buffer.from('data')])) + 5;
      expect([...enc.subarray(at, at + head.length)], `bin of ${n}`).to.deep.equal([...head]);
      expect(enc.subarray(at + head.length, at + head.length + n).equals(data)).to.equal(true);
      expect(enc.length).to.equal(at + head.length + n);
    }
  });

  it('leaves the large bins out of the body, in the order a decoder meets them, and decodes them as views of the frame', () => {
    const big1 = bytes(4_000, 1);
    const big2 = bytes(70_000, 2);
    const big3 = new Uint8Array(bytes(600, 3));
    const small = bytes(100, 4);
    const env = { to, correlationId: 'c', msg: { type: 'Produce', topics: [{ name: 't', parts: [{ p: 0, records: big1 }, { p: 1, records: small }, { p: 2, records: big2 }] }], tail: big3 } };
    const sink: Uint8Array[] = [];
    const body = Buffer.from(encodeEnvelopeAttaching(env as never, sink, 512));
    expect(sink).to.have.length(3);
    expect(sink[0]).to.equal(big1);
    expect(sink[1]).to.equal(big2);
    expect(sink[2]).to.equal(big3);
    expect(body.length).to.be.below(300);
    // the small bin stays inline; each large one is a fixext 4 holding its length
    expect(body.includes(small)).to.equal(true);
    expect(body.includes(Buffer.from([0xd6, ATTACHED_BIN_EXT, 0, 0, 0x0f, 0xa0]))).to.equal(true);
    const { frame, bodyEnd } = frameOf(body, sink);
    const res = decodeEnvelopeAttached(frame.subarray(0, bodyEnd), frame, bodyEnd, frame.length);
    expect(res.ok, res.ok ? '' : res.reason).to.equal(true);
    if (!res.ok) return;
    const msg = res.envelope.msg as unknown as { topics: { parts: { records: Uint8Array }[] }[]; tail: Uint8Array };
    const parts = msg.topics[0]!.parts;
    expect(Buffer.from(parts[0]!.records).equals(big1)).to.equal(true);
    expect(Buffer.from(parts[1]!.records).equals(small)).to.equal(true);
    expect(Buffer.from(parts[2]!.records).equals(big2)).to.equal(true);
    expect(Buffer.from(msg.tail).equals(big3)).to.equal(true);
    // views of the frame, no copies
    expect(parts[0]!.records.buffer).to.equal(frame.buffer);
    expect(parts[2]!.records.byteOffset).to.equal(frame.byteOffset + bodyEnd + big1.length);
  });

  it('attaches nothing below the threshold and inlines other typed arrays as before', () => {
    const sink: Uint8Array[] = [];
    const env = { to, msg: { type: 'X', a: bytes(511, 1), words: new Uint16Array([1, 2, 3]) } };
    const body = Buffer.from(encodeEnvelopeAttaching(env as never, sink, 512));
    expect(sink).to.have.length(0);
    expect(body.equals(Buffer.from(encodeEnvelopeCopy(env as never)))).to.equal(true);
  });

  it('rejects attachments the body does not account for, with the reason, and never throws', () => {
    const sink: Uint8Array[] = [];
    const body = Buffer.from(encodeEnvelopeAttaching({ to, msg: { type: 'X', data: bytes(1_000, 5) } } as never, sink, 512));
    const { frame, bodyEnd } = frameOf(body, sink);
    // bytes left over after the body's references
    const extra = Buffer.concat([frame, Buffer.from([1, 2, 3])]);
    const left = decodeEnvelopeAttached(extra.subarray(0, bodyEnd), extra, bodyEnd, extra.length);
    expect(left.ok).to.equal(false);
    expect(!left.ok && left.reason).to.match(/3 attached bytes are not referenced/);
    // a reference past the end of the frame
    const short = decodeEnvelopeAttached(frame.subarray(0, bodyEnd), frame, bodyEnd, frame.length - 1);
    expect(!short.ok && short.reason).to.match(/attached bin of 1000 bytes with 999 left/);
    // a range outside the frame
    const outside = decodeEnvelopeAttached(frame.subarray(0, bodyEnd), frame, bodyEnd, frame.length + 10);
    expect(!outside.ok && outside.reason).to.match(/outside a frame/);
    // an attachment reference where a frame carries none (e.g. from a TCP peer)
    const plain = decodeEnvelope(body);
    expect(!plain.ok && plain.reason).to.match(/attached bin outside a frame that carries attachments/);
    // and a well-formed frame still decodes afterwards
    expect(decodeEnvelopeAttached(frame.subarray(0, bodyEnd), frame, bodyEnd, frame.length).ok).to.equal(true);
  });

  it('stops attaching once an attaching encode has thrown', () => {
    const sink: Uint8Array[] = [];
    const bad = { to, msg: { type: 'X', data: bytes(1_000, 6), get boom(): number { throw new Error('getter failed'); } } };
    expect(() => encodeEnvelopeAttaching(bad as never, sink, 512)).to.throw('getter failed');
    const data = bytes(1_000, 7);
    const after = Buffer.from(encodeEnvelopeCopy({ to, msg: { type: 'Y', data } } as never));
    expect(after.includes(data)).to.equal(true);
    expect(decodeEnvelope(after).ok).to.equal(true);
  });
});
