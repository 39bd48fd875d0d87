/**
 * The TCP transport's line between the cluster and its clients (TcpTransportOptions.cluster): a
 * peer whose node id is not one of the cluster's is a client, everything it sends is marked with
 * its id, it may name only itself as sender and reply address, and the actor it writes to takes
 * only what its definition lets clients send. A client listener takes no node of the cluster; no
 * client takes a node id another endpoint of the node has.
 */
import { expect } from 'chai';
import { defineActor, type ReplyToken } from '../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isFailure, type Failure, type Message } from '../../src/runtime/types.js';
import { TcpTransport } from '../../src/transport/tcp.js';
import { checkFor } from '../helpers/check-for.js';

type GuardedMsg = { type: 'Ping' } | { type: 'Limited'; n: number } | { type: 'Internal' } | { type: 'Count' };

/** Counts what reached its handlers. */
const guarded = defineActor<{ handled: number }, GuardedMsg>({
  kind: 'guarded',
  init: () => ({ handled: 0 }),
  supervision: 'resume',
  clientMessages: { Ping: true, Limited: (m) => (m.n > 10 ? `n ${m.n} is above 10` : null) },
  handlers: {
    Ping: (s, _m, ctx) => {
      ctx.reply({ type: 'Pong' } as never);
      return { handled: s.handled + 1 };
    },
    Limited: (s, m, ctx) => {
      ctx.reply({ type: 'Took', n: m.n } as never);
      return { handled: s.handled + 1 };
    },
    Internal: (s, _m, ctx) => {
      ctx.reply({ type: 'Done' } as never);
      return { handled: s.handled + 1 };
    },
    Count: (s, _m, ctx) => ctx.reply({ type: 'Handled', n: s.handled } as never),
  },
});

/** Keeps the reply token of the one ask it gets, and answers when told to. */
let held: ReplyToken | null = null;
const holder = defineActor<null, { type: 'Hold' } | { type: 'Answer' }>({
  kind: 'holder',
  init: () => null,
  supervision: 'resume',
  clientMessages: 'all',
  handlers: {
    Hold: (_s, _m, ctx) => {
      held = ctx.deferReply() ?? null;
    },
    Answer: (_s, _m, ctx) => {
      if (held) ctx.replyTo(held, { type: 'Real' } as never);
    },
  },
});

const GUARDED = { node: 'n1', path: '/guarded' };

describe('transport/tcp: clients and the nodes of the cluster', function () {
  this.timeout(20_000);
  let server: ActorSystem;
  let nodeLink: TcpTransport;
  let clientListener: TcpTransport;
  let nodePort: number;
  let listenerPort: number;
  const others: ActorSystem[] = [];

  async function join(nodeId: string, port: number): Promise<ActorSystem> {
    const s = new ActorSystem({ nodeId });
    others.push(s);
    await new TcpTransport(s, { clusterId: 'c' }).connect(port);
    return s;
  }

  const handled = async () => ((await server.ask({ node: 'n1', path: '/guarded' }, { type: 'Count' } as never)) as unknown as { n: number }).n;
  const unauthorized = () => server.stats().deadLettersByReason.unauthorized ?? 0;

  before(async () => {
    server = new ActorSystem({ nodeId: 'n1' });
    server.spawn(guarded, { name: 'guarded' });
    const nodes = new Set(['n1', 'n2', 'n3']);
    nodeLink = new TcpTransport(server, { clusterId: 'c', cluster: { nodes, acceptNodes: true } });
    nodePort = (await nodeLink.listen(0)).port;
    clientListener = new TcpTransport(server, { clusterId: 'c', cluster: { nodes, acceptNodes: false } });
    listenerPort = (await clientListener.listen(0)).port;
  });

  after(async () => {
    for (const s of others) await s.stop();
    await server.stop();
  });

  it('lets a client send what the actor takes from clients, and refuses the rest as unauthorized without running it', async () => {
    const app = await join('app', listenerPort);
    const before = await handled();
    expect(await app.ask(GUARDED, { type: 'Ping' } as never)).to.deep.equal({ type: 'Pong' });
    expect(await app.ask(GUARDED, { type: 'Limited', n: 3 } as never)).to.deep.equal({ type: 'Took', n: 3 });
    const big = (await app.ask(GUARDED, { type: 'Limited', n: 50 } as never)) as Failure;
    expect(big).to.include({ type: 'Failure', reason: 'unauthorized', errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED });
    expect(big.message).to.equal("actor kind 'guarded' does not take this 'Limited' from clients: n 50 is above 10");
    const internal = (await app.ask(GUARDED, { type: 'Internal' } as never)) as Failure;
    expect(internal).to.include({ reason: 'unauthorized' });
    expect(internal.message).to.equal("actor kind 'guarded' does not take 'Internal' from clients");
    expect(await handled()).to.equal(before + 2);
  });

  it("marks a client on a node's own link too, and takes everything from a node of the cluster there", async () => {
    const app = await join('app-direct', nodePort);
    expect(isFailure(await app.ask(GUARDED, { type: 'Internal' } as never))).to.equal(true);
    const n2 = await join('n2', nodePort);
    const before = await handled();
    expect(await n2.ask(GUARDED, { type: 'Internal' } as never)).to.deep.equal({ type: 'Done' });
    expect(await n2.ask(GUARDED, { type: 'Limited', n: 50 } as never)).to.deep.equal({ type: 'Took', n: 50 });
    expect(await handled()).to.equal(before + 2);
  });

  it('drops, unanswered, what a client sends in the name of another node', async () => {
    const app = await join('app-forger', listenerPort);
    const before = await handled();
    const refusedBefore = unauthorized();
    // its reply address is a node of the cluster: the answer would go there, as if n2 had asked
    app.route({ to: GUARDED, replyTo: { node: 'n2', path: '/somewhere' }, correlationId: 'x1', msg: { type: 'Ping' } });
    app.route({ to: GUARDED, from: { node: 'n3', path: '/controller' }, msg: { type: 'Ping' } });
    await checkFor(() => unauthorized() === refusedBefore + 2);
    expect(await handled()).to.equal(before);
    // what it says about itself still goes through
    expect(await app.ask(GUARDED, { type: 'Ping' } as never)).to.deep.equal({ type: 'Pong' });
  });

  it("marks what a client sends, whatever it wrote there: a client cannot pass for a node of the cluster", async () => {
    const app = await join('app-liar', listenerPort);
    const before = await handled();
    let reply: Message | undefined;
    const self = app.spawn(
      defineActor<null, { type: 'Done' } | { type: 'Failure' }>({
        kind: 'inbox',
        init: () => null,
        supervision: 'resume',
        handlers: { Done: (_s, m) => void (reply = m), Failure: (_s, m) => void (reply = m) },
      }),
      { name: 'inbox' },
    );
    app.route({ to: GUARDED, replyTo: self, client: undefined, msg: { type: 'Internal' } });
    app.route({ to: GUARDED, replyTo: self, client: 'n2', msg: { type: 'Internal' } } as never);
    await checkFor(() => reply !== undefined);
    expect(reply).to.include({ type: 'Failure', reason: 'unauthorized' });
    expect(await handled()).to.equal(before);
  });

  it('takes a reply from a client only to an ask sent to that client', async () => {
    const app = await join('app-replier', listenerPort);
    const other = await join('app-other', listenerPort);
    other.spawn(holder, { name: 'holder' });
    held = null;
    const ask = server.ask({ node: 'app-other', path: '/holder' }, { type: 'Hold' } as never, { timeoutMs: 10_000 });
    await checkFor(() => held !== null);
    // app learnt the ask's id: its answer is not taken, the asked client's is
    app.route({ to: held!.replyTo, correlationId: held!.correlationId, msg: { type: 'Forged' } });
    // one connection keeps its order: once this is answered, the forged reply was handled
    expect(await app.ask(GUARDED, { type: 'Ping' } as never)).to.deep.equal({ type: 'Pong' });
    other.send({ node: 'app-other', path: '/holder' }, { type: 'Answer' } as never);
    expect(await ask).to.deep.equal({ type: 'Real' });
  });

  it("refuses on a client listener a hello that names a node of the cluster, and anywhere a client taking another endpoint's node id", async () => {
    const n3 = new ActorSystem({ nodeId: 'n3' });
    others.push(n3);
    let refused = '';
    await new TcpTransport(n3, { clusterId: 'c' }).connect(listenerPort).catch((err: Error) => (refused = err.message));
    expect(refused).to.match(/node id 'n3' is one of the cluster's nodes: this listener takes clients only/);
    // 'app' is connected through the client listener; another 'app' on the node link may not take its place
    const twin = new ActorSystem({ nodeId: 'app' });
    others.push(twin);
    refused = '';
    await new TcpTransport(twin, { clusterId: 'c' }).connect(nodePort).catch((err: Error) => (refused = err.message));
    expect(refused).to.match(/node id 'app' is taken by a node connected here/);
    expect(clientListener.connectedPeers()).to.include('app');
  });
});
