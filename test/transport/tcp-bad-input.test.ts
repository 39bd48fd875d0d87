/**
 * Bad input on the TCP transport closes only the offending connection, with a logged reason,
 * while the node keeps serving its other peers.
 */
import { expect } from 'chai';
import net from 'node:net';
import { encodeEnvelopeAttaching, encodeValue } from '../../src/protocol/codec.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { TCP_PROTOCOL_VERSION, TcpTransport } from '../../src/transport/tcp.js';
import setupConformance from '../fixtures/conformance-actors.js';

function frame(kind: number, body: Uint8Array): Buffer {
  const f = Buffer.alloc(5 + body.length);
  f.writeUInt32BE(body.length + 1, 0);
  f[4] = kind;
  f.set(body, 5);
  return f;
}

/** Opens a raw socket, writes `bytes`, and resolves with what the server sent before closing. */
function rawExchange(port: number, bytes: Buffer, timeoutMs = 5_000): Promise<{ closed: boolean; received: Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ closed: false, received: Buffer.concat(chunks) });
    }, timeoutMs);
    s.on('data', (c) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, received: Buffer.concat(chunks) });
    });
  });
}

describe('transport/tcp: bad input', function () {
  this.timeout(20_000);
  let server: ActorSystem;
  let client: ActorSystem;
  let serverTcp: TcpTransport;
  let port: number;
  const warnings: string[] = [];

  before(async () => {
    server = new ActorSystem({ nodeId: 'server' });
    serverTcp = new TcpTransport(server, { clusterId: 'good', maxFrameBytes: 1024 * 1024, handshakeTimeoutMs: 1_000 });
    setupConformance(server);
    port = (await serverTcp.listen(0)).port;
    client = new ActorSystem({ nodeId: 'client' });
    await new TcpTransport(client, { clusterId: 'good' }).connect(port);
    const origWarn = server.log.warn.bind(server.log);
    server.log.warn = ((msg: string, meta?: { reason?: string }) => {
      warnings.push(`${msg}: ${meta?.reason ?? ''}`);
      return origWarn(msg, meta);
    }) as typeof server.log.warn;
  });

  after(async () => {
    await client.stop();
    await server.stop();
  });

  afterEach(async () => {
    // the healthy peer is still served after every bad connection
    const r = await client.ask({ node: 'server', path: '/echo' }, { type: 'Echo', payload: 'still here' } as never, { timeoutMs: 5_000 });
    expect(r).to.deep.include({ type: 'Echoed', payload: 'still here' });
    expect(serverTcp.connectedPeers()).to.deep.equal(['client']);
  });

  it('closes a connection that sends garbage bytes', async () => {
    const r = await rawExchange(port, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(r.closed).to.equal(true);
    expect(warnings.join('\n')).to.match(/exceeds the maximum/);
  });

  it('closes a connection whose length prefix is above the maximum frame size', async () => {
    const b = Buffer.alloc(8);
    b.writeUInt32BE(512 * 1024 * 1024, 0);
    const r = await rawExchange(port, b);
    expect(r.closed).to.equal(true);
    expect(warnings.join('\n')).to.match(/536870912 bytes exceeds the maximum of/);
  });

  it('closes a connection whose first frame is not a handshake', async () => {
    const r = await rawExchange(port, frame(0, encodeValue({ to: { node: 'server', path: '/echo' }, msg: { type: 'Echo' } })));
    expect(r.closed).to.equal(true);
    expect(warnings.join('\n')).to.match(/invalid handshake/);
  });

  it('closes a connection whose handshake is undecodable', async () => {
    const r = await rawExchange(port, frame(1, Buffer.from([0xc1, 0xc1, 0xc1])));
    expect(r.closed).to.equal(true);
    expect(warnings.join('\n')).to.match(/garbage instead of a handshake/);
  });

  it('rejects a handshake from another cluster, telling the peer why', async () => {
    const hello = { clusterId: 'other', nodeId: 'intruder', incarnation: 'x', version: TCP_PROTOCOL_VERSION };
    const r = await rawExchange(port, frame(1, encodeValue(hello)));
    expect(r.closed).to.equal(true);
    expect(r.received.toString('latin1')).to.include("cluster id 'other' is not 'good'");
    expect(warnings.join('\n')).to.match(/handshake refused: cluster id 'other'/);
  });

  it('rejects a handshake with another protocol version', async () => {
    const hello = { clusterId: 'good', nodeId: 'old', incarnation: 'x', version: 999 };
    const r = await rawExchange(port, frame(1, encodeValue(hello)));
    expect(r.closed).to.equal(true);
    expect(warnings.join('\n')).to.match(/protocol version 999/);
  });

  it('closes a connection that never completes its handshake', async () => {
    const r = await rawExchange(port, Buffer.alloc(0), 5_000);
    expect(r.closed).to.equal(true);
  });

  it('closes an established connection that starts sending garbage', async () => {
    const hello = { clusterId: 'good', nodeId: 'rogue', incarnation: 'r1', version: TCP_PROTOCOL_VERSION };
    const bytes = Buffer.concat([frame(1, encodeValue(hello)), frame(0, Buffer.from([0xc1, 0xff, 0x00]))]);
    const r = await rawExchange(port, bytes);
    expect(r.closed).to.equal(true);
    expect(warnings.join('\n')).to.match(/garbage from rogue/);
  });

  /** An ENVELOPE_ATTACHED frame (kind 5): body length, msgpack body, then `tail` (the attached bytes). */
  function attachedFrame(body: Uint8Array, tail: Uint8Array, bodyLength = body.length): Buffer {
    const b = Buffer.alloc(4 + body.length + tail.length);
    b.writeUInt32BE(bodyLength, 0);
    b.set(body, 4);
    b.set(tail, 4 + body.length);
    return frame(5, b);
  }

  it('answers an envelope whose payload travels attached after its body (kind 5)', async () => {
    const hello = { clusterId: 'good', nodeId: 'attacher', incarnation: 'a1', version: TCP_PROTOCOL_VERSION };
    const payload = Buffer.alloc(6_000, 0x61);
    const bins: Uint8Array[] = [];
    const env = { to: { node: 'server', path: '/echo' }, replyTo: { node: 'attacher', path: '$ask' }, correlationId: 'c5', msg: { type: 'Echo', payload } };
    const body = Buffer.from(encodeEnvelopeAttaching(env as never, bins, 4096));
    expect(bins.length).to.equal(1);
    const r = await rawExchange(port, Buffer.concat([frame(1, encodeValue(hello)), attachedFrame(body, payload)]), 500);
    expect(r.closed).to.equal(false);
    // the answer carries the 6,000 bytes back, attached in turn: after WELCOME, a kind 5 frame
    const kinds: number[] = [];
    for (let at = 0; at + 5 <= r.received.length; at += 4 + r.received.readUInt32BE(at)) kinds.push(r.received[at + 4]!);
    expect(kinds).to.deep.equal([2, 5]);
    expect(r.received.subarray(r.received.length - 6_000).equals(payload)).to.equal(true);
  });

  it('closes a connection whose attached envelope has a body length past its frame, or bytes no payload takes', async () => {
    const bins: Uint8Array[] = [];
    const env = { to: { node: 'server', path: '/echo' }, msg: { type: 'Echo', payload: Buffer.alloc(5_000, 1) } };
    const body = Buffer.from(encodeEnvelopeAttaching(env as never, bins, 4096));
    const cases: [string, Buffer, RegExp][] = [
      ['past', attachedFrame(body, Buffer.alloc(5_000, 1), 1 << 20), /body length runs past its frame/],
      ['extra', attachedFrame(body, Buffer.alloc(5_010, 1)), /10 attached bytes are not referenced/],
      ['short', attachedFrame(body, Buffer.alloc(4_000, 1)), /attached bin of 5000 bytes with 4000 left/],
    ];
    for (const [who, bad, why] of cases) {
      const hello = { clusterId: 'good', nodeId: `bad-${who}`, incarnation: 'b1', version: TCP_PROTOCOL_VERSION };
      const r = await rawExchange(port, Buffer.concat([frame(1, encodeValue(hello)), bad]));
      expect(r.closed, who).to.equal(true);
      expect(warnings.join('\n')).to.match(why);
    }
  });

  it('keeps a connection open after a well-formed but invalid envelope, and answers it', async () => {
    const hello = { clusterId: 'good', nodeId: 'sloppy', incarnation: 's1', version: TCP_PROTOCOL_VERSION };
    const bad = { to: 'not a ref', replyTo: { node: 'sloppy', path: '$ask' }, correlationId: 'c1', msg: { type: 'Echo' } };
    const r = await rawExchange(port, Buffer.concat([frame(1, encodeValue(hello)), frame(0, encodeValue(bad))]), 500);
    expect(r.closed).to.equal(false);
    expect(r.received.toString('latin1')).to.include('envelope.to is not an actor ref');
  });
});

describe('transport/tcp: client side', function () {
  this.timeout(10_000);

  it('refuses to connect to a node of another cluster', async () => {
    const a = new ActorSystem({ nodeId: 'a' });
    const b = new ActorSystem({ nodeId: 'b' });
    const { port } = await new TcpTransport(b, { clusterId: 'one' }).listen(0);
    try {
      let err: Error | undefined;
      await new TcpTransport(a, { clusterId: 'two' }).connect(port).catch((e: Error) => (err = e));
      expect(err?.message).to.match(/rejected the handshake: cluster id 'two' is not 'one'/);
      expect(a.peers()).to.deep.equal([]);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('fails the first connect when nothing listens', async () => {
    const a = new ActorSystem({ nodeId: 'a' });
    const probe = net.createServer();
    const port = await new Promise<number>((r) => probe.listen(0, '127.0.0.1', () => r((probe.address() as net.AddressInfo).port)));
    await new Promise((r) => probe.close(r));
    try {
      let err: Error | undefined;
      await new TcpTransport(a, { clusterId: 'one' }).connect(port).catch((e: Error) => (err = e));
      expect(err?.message).to.match(/cannot connect/);
    } finally {
      await a.stop();
    }
  });

  it('detects a silent peer and fails its asks', async () => {
    const a = new ActorSystem({ nodeId: 'a' });
    const srv = net.createServer((s) => {
      // answer the handshake, then go silent forever
      s.once('data', () => s.write(frame(2, encodeValue({ clusterId: 'one', nodeId: 'mute', incarnation: 'm', version: TCP_PROTOCOL_VERSION }))));
    });
    const port = await new Promise<number>((r) => srv.listen(0, '127.0.0.1', () => r((srv.address() as net.AddressInfo).port)));
    const tcp = new TcpTransport(a, { clusterId: 'one', heartbeatIntervalMs: 50, idleTimeoutMs: 300, reconnectInitialMs: 10_000 });
    try {
      expect(await tcp.connect(port)).to.equal('mute');
      const t0 = Date.now();
      const r = await a.ask({ node: 'mute', path: '/x' }, { type: 'Hello' }, { timeoutMs: 10_000 });
      expect(r).to.deep.include({ type: 'Failure', reason: 'endpoint-closed' });
      expect(Date.now() - t0).to.be.below(3_000);
    } finally {
      await a.stop();
      srv.close();
    }
  });
});
