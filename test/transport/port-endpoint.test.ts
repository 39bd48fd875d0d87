import { expect } from 'chai';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { joinBatches } from '../../src/protocol/batch-parts.js';
import { encodeEnvelopeCopy, type DecodeResult } from '../../src/protocol/codec.js';
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import type { Envelope } from '../../src/runtime/types.js';
import { MIN_ATTACHED_BIN, PortEndpoint, RETURN_MIN_BYTES } from '../../src/transport/port-endpoint.js';
import { checkFor } from '../helpers/check-for.js';

/** The slice of an actor system an endpoint talks to: it records what arrives. */
function fakeSystem() {
  const received: Envelope[] = [];
  const rejected: string[] = [];
  const warnings: string[] = [];
  const system = {
    attachEndpoint: () => {},
    detachEndpoint: () => {},
    receiveDecoded: (r: DecodeResult) => {
      if (r.ok) received.push(r.envelope);
      else rejected.push(r.reason);
    },
    log: { warn: (m: string) => warnings.push(m) },
  };
  return { system: system as unknown as ActorSystem, received, rejected, warnings };
}

interface Item {
  type: 'Item';
  i: number;
  payload?: Uint8Array;
}

function envelope(i: number, payload?: Uint8Array): Envelope {
  const msg: Item = { type: 'Item', i, ...(payload ? { payload } : {}) };
  return { to: { node: 'b', path: '/sink' }, msg };
}

const item = (e: Envelope) => e.msg as unknown as Item;

describe('transport/port-endpoint', () => {
  let ports: MessagePort[] = [];
  afterEach(() => {
    for (const p of ports) p.close();
    ports = [];
  });

  function pair() {
    const ch = new MessageChannel();
    ports.push(ch.port1, ch.port2);
    const a = fakeSystem();
    const b = fakeSystem();
    const posted: Uint8Array[] = [];
    ch.port2.on('message', (d: Uint8Array) => posted.push(d));
    const sender = new PortEndpoint('b', ch.port1, a.system);
    const receiver = new PortEndpoint('a', ch.port2, b.system);
    return { sender, receiver, received: b.received, rejected: b.rejected, warnings: b.warnings, senderWarnings: a.warnings, posted, raw: ch.port1, rawBack: ch.port2 };
  }

  it('posts everything sent in one synchronous run as one buffer: exactly as big as its frames, or rounded up to 64 KiB', async () => {
    const { sender, received, posted } = pair();
    const payload = Buffer.from('x'.repeat(40_000));
    for (let i = 0; i < 50; i++) expect(sender.send(envelope(i, i % 10 === 0 ? payload : undefined))).to.equal(null);
    const queued = sender.bufferedBytes();
    await checkFor(() => received.length === 50);
    expect(posted).to.have.length(1);
    // the frames and nothing else, in a buffer of whole 64 KiB (a buffer that size can come back)
    expect([posted[0]!.byteOffset, posted[0]!.byteLength]).to.deep.equal([0, queued]);
    expect(posted[0]!.buffer.byteLength).to.equal(Math.ceil(queued / RETURN_MIN_BYTES) * RETURN_MIN_BYTES);
    expect(sender.bufferedBytes()).to.equal(0);
    // a small batch is exactly its size
    sender.send(envelope(99, Buffer.alloc(1000)));
    const small = sender.bufferedBytes();
    await checkFor(() => received.length === 51);
    expect(posted[1]!.buffer.byteLength).to.equal(small);
  });

  it('posts what actors send over one turn of the event loop (their setImmediate callbacks) as one buffer', async () => {
    const { sender, received, posted } = pair();
    // three handlers in one turn, as nact runs them: a reply, then the fetch it satisfied, ...
    for (let i = 0; i < 3; i++) setImmediate(() => sender.send(envelope(i)));
    await checkFor(() => received.length === 3);
    expect(posted).to.have.length(1);
    expect(received.map((e) => item(e).i)).to.deep.equal([0, 1, 2]);
  });

  it('posts a batch past 1 MiB at the end of its synchronous run, not waiting for the turn to end', async () => {
    const { sender, received, posted } = pair();
    const big = Buffer.alloc(1536 * 1024, 3);
    setImmediate(() => sender.send(envelope(0, big)));
    setImmediate(() => sender.send(envelope(1)));
    await checkFor(() => received.length === 2);
    expect(posted).to.have.length(2);
    expect(posted[0]!.byteLength).to.be.greaterThan(big.length);
    expect(received.map((e) => item(e).i)).to.deep.equal([0, 1]);
  });

  it('posts what is queued when closed before the turn ends', async () => {
    const { sender, received } = pair();
    sender.send(envelope(7));
    await sender.close('done');
    await checkFor(() => received.length === 1);
    expect(item(received[0]!).i).to.equal(7);
  });

  it('keeps order and binary payloads across batches of very different sizes', async () => {
    const { sender, received, posted } = pair();
    const big = Buffer.alloc(300_000, 7);
    for (let round = 0; round < 6; round++) {
      // a big batch, then a tiny one: each buffer is sized to its own batch, not the last one
      const n = round % 2 === 0 ? 20 : 1;
      for (let i = 0; i < n; i++) sender.send(envelope(round * 100 + i, round % 2 === 0 ? big : Buffer.from([round, i])));
      await checkFor(() => posted.length === round + 1);
    }
    await checkFor(() => received.length === 63);
    expect(posted.filter((_, i) => i % 2 === 1).every((p) => p.buffer.byteLength < 200)).to.equal(true);
    const ids = received.map((e) => item(e).i);
    expect(ids).to.deep.equal([...ids].sort((x, y) => x - y));
    for (const e of received) {
      const { i, payload } = item(e);
      const round = Math.floor(i / 100);
      if (round % 2 === 0) expect(Buffer.from(payload!).equals(big)).to.equal(true);
      else expect([...payload!]).to.deep.equal([round, i % 100]);
    }
  });

  it('refuses a message once the batch would pass its byte limit, keeping what was queued', async () => {
    const { sender, received } = pair();
    const chunk = Buffer.alloc(64 * 1024 * 1024);
    expect(sender.send(envelope(0, chunk))).to.equal(null);
    expect(sender.send(envelope(1, chunk))).to.equal(null);
    expect(sender.send(envelope(2, chunk))).to.equal(null);
    expect(sender.send(envelope(3, chunk))).to.equal('overflow');
    await checkFor(() => received.length === 3, 20_000);
    expect(received.map((e) => item(e).i)).to.deep.equal([0, 1, 2]);
    expect(sender.send(envelope(4))).to.equal(null);
    await checkFor(() => received.length === 4);
  });

  it('carries large payloads attached, copied once into the posted buffer, and small ones inside the frame', async () => {
    const { sender, received, rejected, posted } = pair();
    const big = Buffer.alloc(20_000, 3);
    const mid = Buffer.alloc(MIN_ATTACHED_BIN, 4);
    const small = Buffer.alloc(MIN_ATTACHED_BIN - 1, 5);
    for (let i = 0; i < 30; i++) {
      const payload = i % 3 === 0 ? big : i % 3 === 1 ? mid : small;
      expect(sender.send(envelope(i, payload))).to.equal(null);
    }
    // several attachments in one message, nested
    const multi = { to: { node: 'b', path: '/sink' }, msg: { type: 'Item', i: 30, parts: [{ r: big }, { r: small }, { r: mid }] } } as unknown as Envelope;
    expect(sender.send(multi)).to.equal(null);
    const queued = sender.bufferedBytes();
    await checkFor(() => received.length === 31);
    expect(rejected).to.deep.equal([]);
    expect(posted).to.have.length(1);
    expect(posted[0]!.byteLength).to.equal(queued);
    // the first frame (a 20 KB payload) says it carries attachments; the body before them is small
    const first = Buffer.from(posted[0]!.buffer, posted[0]!.byteOffset, posted[0]!.byteLength);
    expect(first.readUInt32BE(0) >>> 31).to.equal(1);
    expect(first.readUInt32BE(4)).to.be.below(100);
    // each of the 33 payloads is in the buffer once, plus 31 small bodies and their headers
    expect(queued - 11 * (big.length + mid.length + small.length)).to.be.within(0, 2_000);
    expect(received.map((e) => item(e).i)).to.deep.equal([...Array(31).keys()]);
    for (const e of received.slice(0, 30)) {
      const { i, payload } = item(e);
      expect(Buffer.from(payload!).equals(i % 3 === 0 ? big : i % 3 === 1 ? mid : small), `message ${i}`).to.equal(true);
      // a view into the transferred buffer, not a copy
      expect(payload!.buffer).to.equal(posted[0]!.buffer);
    }
    const parts = (received[30]!.msg as unknown as { parts: { r: Uint8Array }[] }).parts;
    expect(parts.map((p) => Buffer.from(p.r).equals([big, small, mid][parts.indexOf(p)]!))).to.deep.equal([true, true, true]);
  });

  it("lays a list of attached batches side by side, so a broker joins them as one view of the frame", async () => {
    const { sender, received, rejected } = pair();
    const parts = [3_000, MIN_ATTACHED_BIN, 16_384, 700].map((n, k) => Buffer.alloc(n, k + 1));
    const msg = { type: 'Produce', partitions: [{ topic: 't', partition: 0, records: parts }] };
    expect(sender.send({ to: { node: 'b', path: '/sink' }, msg } as unknown as Envelope)).to.equal(null);
    await checkFor(() => received.length === 1);
    expect(rejected).to.deep.equal([]);
    const got = (received[0]!.msg as unknown as typeof msg).partitions[0]!.records as Uint8Array[];
    const joined = joinBatches(got);
    expect(joined.equals(Buffer.concat(parts))).to.equal(true);
    expect(joined.buffer).to.equal(got[0]!.buffer);
  });

  it('copies an attached payload at the flush: what was sent, unchanged until then, is what arrives', async () => {
    const { sender, received } = pair();
    const payload = Buffer.alloc(4_096, 1);
    sender.send(envelope(0, payload));
    sender.send(envelope(1));
    await checkFor(() => received.length === 2);
    payload.fill(9); // after the flush: the receiver's bytes are its own
    expect(item(received[0]!).payload!.every((b) => b === 1)).to.equal(true);
  });

  it('drops a frame whose body length does not fit it and rejects one with unreferenced attachments', async () => {
    const { raw, received, rejected, warnings } = pair();
    // top bit set (attachments), a body length past the frame
    const bad = Buffer.alloc(12);
    bad.writeUInt32BE((0x80000000 | 8) >>> 0, 0);
    bad.writeUInt32BE(100, 4);
    raw.postMessage(bad);
    await checkFor(() => warnings.length === 1);
    expect(warnings[0]).to.match(/bad body length/);
    // a well-formed frame with 3 attached bytes its body never mentions
    const body = Buffer.from(encodeEnvelopeCopy(envelope(7)));
    const frame = Buffer.alloc(8 + body.length + 3);
    frame.writeUInt32BE((0x80000000 | (4 + body.length + 3)) >>> 0, 0);
    frame.writeUInt32BE(body.length, 4);
    body.copy(frame, 8);
    raw.postMessage(frame);
    await checkFor(() => rejected.length === 1);
    expect(rejected[0]).to.match(/3 attached bytes are not referenced/);
    expect(received).to.deep.equal([]);
  });

  describe('buffers going back to their sender', () => {
    const big = () => Buffer.alloc(RETURN_MIN_BYTES, 9);

    it('sends a batch buffer back once every message decoded from it is released, and the sender carries a later batch in it', async () => {
      const { sender, receiver, received } = pair();
      for (let i = 0; i < 3; i++) sender.send(envelope(i, big()));
      await checkFor(() => received.length === 3);
      const holds = received.map((e) => e.payloadHold);
      expect(holds.every((h) => h !== undefined)).to.equal(true);
      const views = received.map((e) => item(e).payload!);
      expect(views.every((v) => v.byteLength === RETURN_MIN_BYTES)).to.equal(true);
      holds[0]!.release();
      holds[1]!.release();
      holds[1]!.release(); // a second release of one hold counts once
      await new Promise((r) => setTimeout(r, 20));
      expect(receiver.returnStats().sentBack).to.equal(0);
      holds[2]!.release();
      await checkFor(() => sender.returnStats().cameBack === 1);
      expect(receiver.returnStats().sentBack).to.equal(1);
      // gone from the receiver: a view kept by mistake reads as empty, not as the next batch
      expect(views.map((v) => v.byteLength)).to.deep.equal([0, 0, 0]);
      expect(sender.returnStats().spare).to.equal(1);
      // the next batch of about that size goes out in it, and arrives whole
      const again = Buffer.alloc(RETURN_MIN_BYTES, 7);
      sender.send(envelope(10, again));
      sender.send(envelope(11, again));
      await checkFor(() => received.length === 5);
      expect(sender.returnStats()).to.deep.equal({ sentBack: 0, cameBack: 1, reused: 1, spare: 0 });
      expect(received.slice(3).map((e) => Buffer.from(item(e).payload!).equals(again))).to.deep.equal([true, true]);
    });

    it('keeps a buffer while any message decoded from it is not released, and gives small batches no hold', async () => {
      const { sender, receiver, received } = pair();
      sender.send(envelope(0, big()));
      sender.send(envelope(1, big()));
      await checkFor(() => received.length === 2);
      received[0]!.payloadHold!.release();
      await new Promise((r) => setTimeout(r, 20));
      expect(receiver.returnStats().sentBack).to.equal(0);
      expect(item(received[1]!).payload!.byteLength).to.equal(RETURN_MIN_BYTES);
      sender.send(envelope(2, Buffer.alloc(100)));
      await checkFor(() => received.length === 3);
      expect(received[2]!.payloadHold).to.equal(undefined);
    });

    it('sends a buffer back on its own when nothing else goes that way, and the sender keeps a bounded number', async () => {
      const { sender, receiver, received } = pair();
      for (let round = 0; round < 20; round++) {
        sender.send(envelope(round, big()));
        await checkFor(() => received.length === round + 1);
      }
      for (const e of received) e.payloadHold!.release();
      await checkFor(() => sender.returnStats().cameBack === 20);
      expect(receiver.returnStats().sentBack).to.equal(20);
      expect(sender.returnStats().spare).to.equal(8);
    });

    it('drops a post that gives back something other than buffers', async () => {
      const { rawBack, senderWarnings, sender } = pair();
      rawBack.postMessage({ returned: ['not a buffer'] });
      rawBack.postMessage({ frames: 'x', returned: [] });
      await checkFor(() => senderWarnings.length === 2);
      expect(senderWarnings).to.deep.equal(['non-binary message on a worker port dropped', 'non-binary message on a worker port dropped']);
      expect(sender.returnStats().cameBack).to.equal(0);
    });
  });

  it('counts its posts and their bytes both ways, a buffer going back on its own as a post of no bytes', async () => {
    const { sender, receiver, received, posted } = pair();
    const none = { sends: 0, sentBytes: 0, receives: 0, receivedBytes: 0 };
    expect([sender.traffic(), receiver.traffic()]).to.deep.equal([none, none]);
    for (let i = 0; i < 3; i++) sender.send(envelope(i));
    sender.send(envelope(3, Buffer.alloc(RETURN_MIN_BYTES, 1)));
    await checkFor(() => received.length === 4);
    const bytes = posted[0]!.byteLength;
    expect(sender.traffic()).to.deep.equal({ sends: 1, sentBytes: bytes, receives: 0, receivedBytes: 0 });
    expect(receiver.traffic()).to.deep.equal({ sends: 0, sentBytes: 0, receives: 1, receivedBytes: bytes });
    // the big batch's buffer goes back alone: a post, but no frames
    for (const e of received) e.payloadHold?.release();
    await checkFor(() => sender.returnStats().cameBack === 1);
    expect(receiver.traffic()).to.deep.equal({ sends: 1, sentBytes: 0, receives: 1, receivedBytes: bytes });
    expect(sender.traffic()).to.deep.equal({ sends: 1, sentBytes: bytes, receives: 1, receivedBytes: 0 });
    // a copy: what the caller keeps does not move
    const before = sender.traffic();
    sender.send(envelope(4));
    await checkFor(() => received.length === 5);
    expect(before.sends).to.equal(1);
    expect(sender.traffic().sends).to.equal(2);
  });

  it('refuses to send once closed', async () => {
    const { sender } = pair();
    await sender.close('done');
    expect(sender.send(envelope(0))).to.equal('endpoint-closed');
  });
});
