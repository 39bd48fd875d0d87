/**
 * The cluster's node secret on the TCP transport (TcpClusterNodes.secret): every hello proves
 * it; a peer under a declared node id without the proof (or with another secret's) is refused; a
 * peer that proves it under an id this node does not declare is one of the cluster's nodes (a
 * node added to the running cluster), its messages not marked as a client's; without the proof
 * such a peer stays a client; a client listener takes no prover. The proving node checks the
 * listener's proof too. A hello taken once is refused when sent again (a replay), and so is one
 * whose time is too far from the listener's clock.
 */

/** Sends `hello` as the first frame on a raw socket to `port`; resolves with the first frame answered (kind, decoded body). */
function rawHandshake(port: number, hello: unknown): Promise<{ kind: number; value: { reason?: string } }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('connect', () => {
      const body = encodeValue(hello);
      const header = Buffer.alloc(5);
      header.writeUInt32BE(body.length + 1, 0);
      header[4] = 1; // a hello
      socket.write(Buffer.concat([header, body]));
    });
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length < 4 || got.length < 4 + got.readUInt32BE(0)) return;
      const len = got.readUInt32BE(0);
      socket.destroy();
      resolve({ kind: got[4]!, value: decodeValue(got.subarray(5, 4 + len)) as { reason?: string } });
    });
  });
}
import { expect } from 'chai';
import net from 'node:net';
import { decodeValue, encodeValue } from '../../src/protocol/codec.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { isFailure, type Failure } from '../../src/runtime/types.js';
import { TcpTransport } from '../../src/transport/tcp.js';

const SECRET = Buffer.from('0123456789abcdef0123456789abcdef');
const OTHER = Buffer.from('fedcba9876543210fedcba9876543210');

/** Takes 'Ping' from clients, 'Internal' from the cluster's nodes only. */
const guarded = defineActor<null, { type: 'Ping' } | { type: 'Internal' }>({
  kind: 'guarded',
  init: () => null,
  supervision: 'resume',
  clientMessages: { Ping: true },
  handlers: {
    Ping: (_s, _m, ctx) => ctx.reply({ type: 'Pong' } as never),
    Internal: (_s, _m, ctx) => ctx.reply({ type: 'Done' } as never),
  },
});

const GUARDED = { node: 'n1', path: '/guarded' };

describe('transport/tcp: the cluster\'s node secret', function () {
  this.timeout(20_000);
  let server: ActorSystem;
  let nodePort: number;
  let listenerPort: number;
  const others: ActorSystem[] = [];
  const nodes = new Set(['n1', 'n2']);

  /** A node (or client) `nodeId` that dials `port` with `secret` (and believes `declared` are the cluster's nodes). */
  async function dial(nodeId: string, port: number, secret: Buffer | null, declared: string[] = ['n1', 'n2', nodeId]): Promise<ActorSystem> {
    const s = new ActorSystem({ nodeId });
    others.push(s);
    await new TcpTransport(s, { clusterId: 'c', cluster: { nodes: new Set(declared), acceptNodes: true, secret } }).connect(port);
    return s;
  }
  const refusal = (p: Promise<unknown>) => p.then(() => '', (err: Error) => err.message);

  before(async () => {
    server = new ActorSystem({ nodeId: 'n1' });
    server.spawn(guarded, { name: 'guarded' });
    nodePort = (await new TcpTransport(server, { clusterId: 'c', cluster: { nodes, acceptNodes: true, secret: SECRET } }).listen(0)).port;
    listenerPort = (await new TcpTransport(server, { clusterId: 'c', cluster: { nodes, acceptNodes: false, secret: SECRET } }).listen(0)).port;
  });
  after(async () => {
    for (const s of others) await s.stop();
    await server.stop();
  });

  it('takes a declared node that proves the secret as one of the cluster\'s', async () => {
    const n2 = await dial('n2', nodePort, SECRET);
    expect(await n2.ask(GUARDED, { type: 'Internal' } as never)).to.deep.equal({ type: 'Done' });
  });

  it('refuses a declared node id without the proof, or with another secret\'s', async () => {
    const a = new ActorSystem({ nodeId: 'n2' });
    const b = new ActorSystem({ nodeId: 'n2' });
    others.push(a, b);
    expect(await refusal(new TcpTransport(a, { clusterId: 'c' }).connect(nodePort))).to.match(/node id 'n2' is one of the cluster's nodes, but its handshake does not prove the cluster's node secret/);
    expect(await refusal(new TcpTransport(b, { clusterId: 'c', cluster: { nodes, acceptNodes: true, secret: OTHER } }).connect(nodePort))).to.match(/does not prove the cluster's node secret/);
  });

  it('trusts a node this node does not declare once it proves the secret (a node added to the running cluster)', async () => {
    const n4 = await dial('n4', nodePort, SECRET);
    expect(await n4.ask(GUARDED, { type: 'Internal' } as never)).to.deep.equal({ type: 'Done' });
  });

  it('keeps a peer that does not prove it a client: what clients may send, nothing more', async () => {
    const app = await dial('app', nodePort, null);
    expect(await app.ask(GUARDED, { type: 'Ping' } as never)).to.deep.equal({ type: 'Pong' });
    const internal = await app.ask(GUARDED, { type: 'Internal' } as never);
    expect(isFailure(internal) && (internal as Failure).reason).to.equal('unauthorized');
    // another secret's proof is no proof (this one takes n1 for a client in turn: n1 does not prove its secret)
    const forged = await dial('app-forged', nodePort, OTHER, ['app-forged']);
    expect((await forged.ask(GUARDED, { type: 'Internal' } as never)) as Failure).to.include({ reason: 'unauthorized' });
  });

  it('takes a hello once: the same hello sent again is refused, as is one whose time is far from the listener\'s clock', async () => {
    const n2 = new ActorSystem({ nodeId: 'n2' });
    others.push(n2);
    const t = new TcpTransport(n2, { clusterId: 'c', cluster: { nodes, acceptNodes: true, secret: SECRET } });
    const hello = t.hello();
    expect((await rawHandshake(nodePort, hello)).kind).to.equal(2); // a welcome
    const replayed = await rawHandshake(nodePort, hello);
    expect(replayed.kind).to.equal(3); // a refusal
    expect(replayed.value.reason).to.match(/node id 'n2' is one of the cluster's nodes, but its handshake does not prove the cluster's node secret/);
    const realNow = Date.now;
    Date.now = () => realNow() - 10 * 60_000;
    const stale = t.hello();
    Date.now = realNow;
    expect((await rawHandshake(nodePort, stale)).kind).to.equal(3);
    // an undeclared id's hello sent again is still answered: it proves nothing the second time, so
    // the peer is taken for a client (as any peer without the proof, above)
    const n7 = new ActorSystem({ nodeId: 'n7' });
    others.push(n7);
    const seven = new TcpTransport(n7, { clusterId: 'c', cluster: { nodes, acceptNodes: true, secret: SECRET } }).hello();
    expect((await rawHandshake(nodePort, seven)).kind).to.equal(2);
    expect((await rawHandshake(nodePort, seven)).kind).to.equal(2);
  });

  it('refuses a prover on a client listener', async () => {
    const s = new ActorSystem({ nodeId: 'n5' });
    others.push(s);
    expect(await refusal(new TcpTransport(s, { clusterId: 'c', cluster: { nodes: new Set(['n1', 'n5']), acceptNodes: true, secret: SECRET } }).connect(listenerPort))).to.match(
      /node 'n5' proves the cluster's node secret: this listener takes clients only/,
    );
  });

  it("the dialling node checks the listener's proof: a listener without the secret is refused as a declared node", async () => {
    const bare = new ActorSystem({ nodeId: 'n1' });
    others.push(bare);
    const port = (await new TcpTransport(bare, { clusterId: 'c', cluster: { nodes, acceptNodes: true } }).listen(0)).port;
    const n2 = new ActorSystem({ nodeId: 'n2' });
    others.push(n2);
    expect(await refusal(new TcpTransport(n2, { clusterId: 'c', cluster: { nodes, acceptNodes: true, secret: SECRET } }).connect(port))).to.match(/node id 'n1' is one of the cluster's nodes, but its handshake does not prove/);
  });
});
