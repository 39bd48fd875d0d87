import { expect } from 'chai';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { decodeEnvelope } from '../../src/protocol/codec.js';
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import type { Envelope } from '../../src/runtime/types.js';
import { PortEndpoint } from '../../src/transport/port-endpoint.js';
import { checkFor } from '../helpers/check-for.js';

/** The slice of an actor system an endpoint talks to: it records what arrives. */
function fakeSystem() {
  const received: Envelope[] = [];
  const system = {
    attachEndpoint: () => {},
    detachEndpoint: () => {},
    receiveBytes: (bytes: Uint8Array) => {
      const r = decodeEnvelope(bytes);
      if (!r.ok) throw new Error(r.reason);
      received.push(r.envelope);
    },
    log: { warn: () => {} },
  };
  return { system: system as unknown as ActorSystem, received };
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
    new PortEndpoint('a', ch.port2, b.system);
    return { sender, received: b.received, posted };
  }

  it('posts everything sent in one synchronous run as one buffer exactly as big as its frames', async () => {
    const { sender, received, posted } = pair();
    const payload = Buffer.from('x'.repeat(40_000));
    for (let i = 0; i < 50; i++) expect(sender.send(envelope(i, i % 10 === 0 ? payload : undefined))).to.equal(null);
    const queued = sender.bufferedBytes();
    await checkFor(() => received.length === 50);
    expect(posted).to.have.length(1);
    // no slack: the transferred ArrayBuffer holds the frames and nothing else
    expect(posted[0]!.byteLength).to.equal(queued);
    expect(posted[0]!.buffer.byteLength).to.equal(queued);
    expect(sender.bufferedBytes()).to.equal(0);
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

  it('refuses to send once closed', async () => {
    const { sender } = pair();
    await sender.close('done');
    expect(sender.send(envelope(0))).to.equal('endpoint-closed');
  });
});
