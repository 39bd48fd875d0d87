/**
 * TCP transport: nodes on other processes or hosts.
 *
 * Wire: frames `uint32 length | uint8 kind | body`. An envelope whose large binary payloads
 * (record batches, fetched records) travel after its body (ENVELOPE_ATTACHED) has the body
 * `uint32 msgpack length | msgpack | the payloads' bytes, in order`: the payloads are written to
 * the socket by reference, not copied into msgpack's buffer first (codec.ts, attached bins),
 * and decode as views of the frame. Before anything else each side sends a
 * HELLO (cluster id, node id, incarnation, protocol version) and the listener answers WELCOME
 * or REJECT; envelopes flow only after that. One batching writer per connection: everything
 * sent in one synchronous run goes out in one socket write, and writing pauses while the socket
 * asks for `drain`. Heartbeats every `heartbeatIntervalMs`; a peer silent for `idleTimeoutMs` is
 * declared dead. A dialled peer is redialled with capped exponential backoff.
 *
 * With `tls`, every connection is TLS (mutual by default: nodes of a cluster present certificates
 * from one CA), the frames unchanged inside it.
 *
 * With `cluster` (the cluster's node ids), a peer under any other id is a client: each envelope it
 * sends is marked with its id (Envelope.client) for the actors' `clientMessages` to judge, and one
 * that names another node as its sender or reply address is dropped. With the cluster's node
 * secret (`cluster.secret`) every hello carries a proof of it (an HMAC of the cluster id, node id,
 * incarnation and the hello's wall-clock time, taken once and only within PROOF_WINDOW_MS of the
 * listener's clock) and every welcome one bound to the hello it answers; a peer claiming a
 * declared node id must prove it, and a peer that proves it under an id not declared here is one
 * of the cluster's nodes too (one added to the running cluster after this node started).
 *
 * Bad input (garbage, an oversized length prefix, a wrong handshake or cluster id, a failed TLS
 * handshake) closes that one connection with a logged reason; the node keeps serving every other
 * peer.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { nanoid } from 'nanoid';
import { decodeEnvelopeAttached, decodeValue, encodeEnvelopeAttachingKept, encodeValue, decodeEnvelope } from '../protocol/codec.js';
import type { ActorSystem } from '../runtime/actor-system.js';
import type { TimerHandle } from '../runtime/clock.js';
import type { Endpoint, EndpointTraffic, Transport } from '../runtime/endpoint.js';
import type { Envelope, FailureReason } from '../runtime/types.js';
import { FrameDecoder, FrameTooLargeError } from './frame-decoder.js';

/** 2: envelopes with attached payloads (ENVELOPE_ATTACHED frames). */
export const TCP_PROTOCOL_VERSION = 2;

/** The cluster id a client uses when it does not know (and does not need) the cluster's. */
export const ANY_CLUSTER = '*';

/** Bodies at least this big are written by reference rather than copied into the batch. */
const BY_REFERENCE_MIN = 16 * 1024;
/** Binary payloads at least this big travel attached after the body, written by reference. */
const ATTACHED_MIN = 4 * 1024;
/** Size of each buffer small frames are batched into. */
const SMALL_BATCH_BYTES = 64 * 1024;

const enum Kind {
  Envelope = 0,
  Hello = 1,
  Welcome = 2,
  Reject = 3,
  Heartbeat = 4,
  /** An envelope whose large payloads follow its msgpack body (see the header). */
  EnvelopeAttached = 5,
}

export interface TcpTransportOptions {
  /** Nodes only talk to nodes of the same cluster; a client that does not know it uses ANY_CLUSTER. */
  clusterId: string;
  /** Largest frame accepted or sent (default 100 MiB). */
  maxFrameBytes?: number;
  heartbeatIntervalMs?: number;
  idleTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  /** Envelopes beyond this many queued bytes per connection are refused ('overflow'). */
  maxQueuedBytes?: number;
  /**
   * TLS on every connection, both ways (PEM): this node's key and certificate (presented when it
   * listens, and when it dials if `requireClientCert` asks for it), and the CA peers' certificates
   * must chain to. A listener with `requireClientCert` accepts only peers with such a certificate
   * (mutual TLS, for nodes of one cluster); a dialler checks the listener's certificate against
   * the CA and the host it dials.
   */
  tls?: TcpTls | null;
  /**
   * Which peers are the cluster's own nodes: `nodes`, their ids, and whether they may connect
   * here (`acceptNodes`; false on a client listener, which then refuses a hello naming one). Any
   * other peer is a client: everything it sends is marked with its node id (Envelope.client), it
   * may name only itself as sender and reply address, and it may not take a node id another of
   * this node's endpoints has. Absent: every peer is trusted as the cluster's (a client's own
   * transport, which dials the cluster).
   */
  cluster?: TcpClusterNodes | null;
}

export interface TcpClusterNodes {
  readonly nodes: ReadonlySet<string>;
  readonly acceptNodes: boolean;
  /**
   * The cluster's node secret (a topology's nodeSecretFile): this node proves it in its hello; a
   * peer under a declared id must prove it too, and one that proves it under another id is
   * trusted as one of the cluster's nodes. Absent: the declared ids alone decide.
   */
  readonly secret?: Buffer | null;
}

export interface TcpTls {
  key?: string | Buffer;
  cert?: string | Buffer;
  ca: string | Buffer;
  /** A listener asks peers for a certificate from `ca` and refuses those without (default true). */
  requireClientCert?: boolean;
}

interface Hello {
  clusterId: string;
  nodeId: string;
  incarnation: string;
  version: number;
  /**
   * From a node that has the cluster's node secret, HMAC-SHA256 under it (hex): in a hello, of
   * the above and `time`; in a welcome, of the above and the hello it answers (so it is fresh).
   */
  proof?: string;
  /** A hello's wall-clock time (ms), which its proof covers: a listener takes a proof once, and only near its own time. */
  time?: number;
}

/** How far from a listener's clock a hello's proof time may be; a proof is remembered that long, so none is taken twice. */
export const PROOF_WINDOW_MS = 120_000;

function hmac(secret: Buffer, parts: readonly (string | number)[]): Buffer {
  return createHmac('sha256', secret).update(['samsa-node', ...parts.map(String)].join('\u0000')).digest();
}

/** A dialler's proof of the node secret: over its identity and the hello's time. */
function helloProof(secret: Buffer, h: Hello): Buffer {
  return hmac(secret, ['hello', h.clusterId, h.nodeId, h.incarnation, h.time ?? -1]);
}

/** A listener's proof of the node secret: over its identity and the hello it answers. */
function welcomeProof(secret: Buffer, w: Hello, hello: Hello): Buffer {
  return hmac(secret, ['welcome', w.clusterId, w.nodeId, w.incarnation, hello.nodeId, hello.incarnation, hello.time ?? -1]);
}

/** Whether `proof` (hex) is `expected` (compared in constant time). */
function sameProof(proof: unknown, expected: Buffer): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return false;
  return timingSafeEqual(Buffer.from(proof, 'hex'), expected);
}

function isHello(v: unknown): v is Hello {
  const h = v as Hello;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof h.clusterId === 'string' &&
    typeof h.nodeId === 'string' &&
    h.nodeId.length > 0 &&
    typeof h.incarnation === 'string' &&
    typeof h.version === 'number'
  );
}

type ConnState = 'handshaking' | 'open' | 'closed';

/** One socket, either dialled by us or accepted by our listener. */
class TcpConnection implements Endpoint {
  readonly kind = 'tcp' as const;
  peer = '';
  peerIncarnation = '';
  /** The peer is not one of the cluster's nodes (TcpTransportOptions.cluster): a client. */
  client = false;
  state: ConnState = 'handshaking';
  private readonly decoder: FrameDecoder;
  private queue: Uint8Array[] = [];
  private queuedBytes = 0;
  /** Shared buffer small frames are copied into; sealed into `queue` at each flush. */
  private small: Buffer | null = null;
  private smallUsed = 0;
  private flushScheduled = false;
  private waitingDrain = false;
  private readonly counted: EndpointTraffic = { sends: 0, sentBytes: 0, receives: 0, receivedBytes: 0 };
  private lastReceived: number;
  private lastSent: number;
  private heartbeat?: TimerHandle;
  private handshakeTimer?: TimerHandle;
  private closeReason = '';
  readonly closed: Promise<string>;
  private resolveClosed!: (reason: string) => void;

  constructor(
    readonly transport: TcpTransport,
    readonly socket: net.Socket,
    readonly dialled: boolean,
  ) {
    const o = transport.options;
    this.decoder = new FrameDecoder(o.maxFrameBytes + 1);
    this.lastReceived = this.lastSent = transport.system.clock.now();
    this.closed = new Promise((r) => (this.resolveClosed = r));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => {
      this.waitingDrain = false;
      this.flush();
    });
    socket.on('error', (err) => this.close(`socket error: ${err.message}`));
    socket.on('close', () => this.close(this.closeReason || 'socket closed by peer'));
    this.handshakeTimer = transport.system.clock.setTimeout(
      () => this.close(`handshake not completed within ${o.handshakeTimeoutMs} ms`),
      o.handshakeTimeoutMs,
    );
    if (dialled) this.sendControl(Kind.Hello, (this.sentHello = transport.hello()));
  }

  /** The hello this connection sent (a dialled one), which the welcome's proof must cover. */
  private sentHello: Hello | null = null;

  get remote(): string {
    return `${this.socket.remoteAddress}:${this.socket.remotePort}`;
  }

  // ------------------------------------------------------------ writing

  send(env: Envelope): FailureReason | null {
    if (this.state !== 'open') return 'endpoint-closed';
    const bins: Uint8Array[] = [];
    const body = encodeEnvelopeAttachingKept(env, bins, ATTACHED_MIN);
    let attached = 0;
    for (const b of bins) attached += b.byteLength;
    const frameBytes = 1 + (bins.length > 0 ? 4 : 0) + body.length + attached;
    if (frameBytes > this.transport.options.maxFrameBytes) {
      this.transport.system.log.warn('envelope larger than the maximum frame refused', {
        peer: this.peer,
        bytes: frameBytes - 1,
        type: env.msg.type,
      });
      return 'overflow';
    }
    if (this.queuedBytes + frameBytes > this.transport.options.maxQueuedBytes) return 'overflow';
    if (bins.length === 0) this.enqueue(Kind.Envelope, body);
    else this.enqueueAttached(body, bins, attached);
    return null;
  }

  /**
   * Queues an ENVELOPE_ATTACHED frame: its header and the body's length copied into the batch
   * buffer, the body (small ones copied, as in `enqueue`) and every payload by reference.
   */
  private enqueueAttached(body: Uint8Array, bins: Uint8Array[], attached: number): void {
    const total = 1 + 4 + body.length + attached;
    this.reserveSmall(9);
    const b = this.small!;
    b.writeUInt32BE(total, this.smallUsed);
    b[this.smallUsed + 4] = Kind.EnvelopeAttached;
    b.writeUInt32BE(body.length, this.smallUsed + 5);
    this.smallUsed += 9;
    if (body.length >= BY_REFERENCE_MIN) {
      this.sealSmall();
      this.queue.push(body);
    } else {
      this.reserveSmall(body.length);
      this.small!.set(body, this.smallUsed);
      this.smallUsed += body.length;
    }
    this.sealSmall();
    for (const bin of bins) this.queue.push(bin);
    this.queuedBytes += 4 + total;
    this.scheduleFlush();
  }

  bufferedBytes(): number {
    return this.queuedBytes + this.socket.writableLength;
  }

  /** Writes to the socket (one per flush, however many frames) and chunks read from it, with their bytes. */
  traffic(): EndpointTraffic {
    return { ...this.counted };
  }

  private sendControl(kind: Kind, value: unknown): void {
    this.enqueue(kind, value === undefined ? new Uint8Array(0) : encodeValue(value));
  }

  /**
   * Queues one frame. Small frames are copied into a shared batch buffer; a large body is
   * queued by reference after its 5-byte header (msgpackr never reuses bytes it returned), so a
   * 64 KiB record batch is not copied on its way to the socket.
   */
  private enqueue(kind: Kind, body: Uint8Array): void {
    if (body.length >= BY_REFERENCE_MIN) {
      const header = Buffer.allocUnsafe(5);
      header.writeUInt32BE(body.length + 1, 0);
      header[4] = kind;
      this.sealSmall();
      this.queue.push(header, body);
    } else {
      this.reserveSmall(5 + body.length);
      const b = this.small!;
      b.writeUInt32BE(body.length + 1, this.smallUsed);
      b[this.smallUsed + 4] = kind;
      b.set(body, this.smallUsed + 5);
      this.smallUsed += 5 + body.length;
    }
    this.queuedBytes += 5 + body.length;
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      queueMicrotask(() => {
        this.flushScheduled = false;
        this.flush();
      });
    }
  }

  private reserveSmall(need: number): void {
    if (this.small && this.smallUsed + need <= this.small.length) return;
    this.sealSmall();
    this.small = Buffer.allocUnsafe(Math.max(need, SMALL_BATCH_BYTES));
    this.smallUsed = 0;
  }

  /** Moves the filled part of the small-frame buffer into the queue. */
  private sealSmall(): void {
    if (this.small && this.smallUsed > 0) {
      this.queue.push(this.small.subarray(0, this.smallUsed));
      this.small = this.small.subarray(this.smallUsed);
      this.smallUsed = 0;
    }
  }

  private flush(): void {
    if (this.waitingDrain || this.queuedBytes === 0 || this.state === 'closed') return;
    this.sealSmall();
    const chunks = this.queue;
    this.counted.sends++;
    this.counted.sentBytes += this.queuedBytes;
    this.queue = [];
    this.queuedBytes = 0;
    this.lastSent = this.transport.system.clock.now();
    let ok = true;
    if (chunks.length === 1) ok = this.socket.write(chunks[0]!);
    else {
      this.socket.cork();
      for (const c of chunks) ok = this.socket.write(c);
      this.socket.uncork();
    }
    if (!ok) this.waitingDrain = true;
  }

  // ------------------------------------------------------------ reading

  private onData(chunk: Buffer): void {
    this.counted.receives++;
    this.counted.receivedBytes += chunk.length;
    this.lastReceived = this.transport.system.clock.now();
    try {
      this.decoder.push(chunk, (frame) => this.onFrame(frame));
    } catch (err) {
      const why = err instanceof FrameTooLargeError ? err.message : `undecodable input: ${(err as Error).message}`;
      this.close(why, true);
    }
  }

  private onFrame(frame: Buffer): void {
    if (this.state === 'closed') return;
    if (frame.length === 0) throw new Error('empty frame');
    const kind = frame[0] as Kind;
    const body = frame.subarray(1);
    if (this.state === 'handshaking') {
      this.onHandshakeFrame(kind, body);
      return;
    }
    switch (kind) {
      case Kind.Envelope:
        this.deliver(decodeEnvelope(body));
        return;
      case Kind.EnvelopeAttached: {
        const bodyLen = body.length >= 4 ? body.readUInt32BE(0) : -1;
        if (bodyLen < 0 || bodyLen > body.length - 4) {
          this.close(`garbage from ${this.peer}: an attached envelope's body length runs past its frame`, true);
          return;
        }
        this.deliver(decodeEnvelopeAttached(body.subarray(4, 4 + bodyLen), body, 4 + bodyLen, body.length));
        return;
      }
      case Kind.Heartbeat:
        return;
      default:
        this.close(`unexpected frame kind ${kind} from ${this.peer}`, true);
    }
  }

  /** Hands a decoded envelope to the node; garbage closes the connection, a bad message is refused. */
  private deliver(res: ReturnType<typeof decodeEnvelope>): void {
    if (!res.ok) {
      if (res.reason.startsWith('undecodable') || res.reason.startsWith('attachments')) {
        this.close(`garbage from ${this.peer}: ${res.reason}`, true);
        return;
      }
      // a client is answered at its own node only
      const answerable = !this.client || res.partial?.replyTo === undefined || res.partial.replyTo.node === this.peer;
      this.transport.system.rejectInvalid(answerable ? res.partial : undefined, `from ${this.peer}: ${res.reason}`);
      return;
    }
    const env = res.envelope;
    if (this.client) {
      // a client speaks for itself only: answers go to it, and the cluster knows it as a client
      const other = env.from && env.from.node !== this.peer ? env.from.node : env.replyTo && env.replyTo.node !== this.peer ? env.replyTo.node : null;
      if (other !== null) {
        this.transport.system.refuseFromClient(this.peer, env, `it names node '${other}' as its sender or reply address`);
        return;
      }
      env.client = this.peer;
    }
    this.transport.system.receive(env, this.peer);
  }

  private onHandshakeFrame(kind: Kind, body: Buffer): void {
    let value: unknown;
    try {
      value = decodeValue(body);
    } catch {
      this.close(`garbage instead of a handshake from ${this.remote}`, true);
      return;
    }
    const t = this.transport;
    if (kind === Kind.Reject) {
      this.close(`peer rejected the handshake: ${String((value as { reason?: string })?.reason ?? value)}`, true);
      return;
    }
    const expected = this.dialled ? Kind.Welcome : Kind.Hello;
    if (kind !== expected || !isHello(value)) {
      this.close(`invalid handshake from ${this.remote} (frame kind ${kind})`, true);
      return;
    }
    const verdict = t.validateHello(value, this.sentHello);
    if (typeof verdict === 'string') {
      if (!this.dialled) this.sendControl(Kind.Reject, { reason: verdict });
      this.flush();
      this.close(`handshake refused: ${verdict}`, true);
      return;
    }
    this.peer = value.nodeId;
    this.peerIncarnation = value.incarnation;
    this.client = verdict.client;
    if (verdict.joined) t.system.log.info('a node not in this node\'s topology proved the cluster\'s node secret: trusted as one of the cluster\'s nodes', { peer: value.nodeId, remote: this.remote });
    if (!this.dialled) this.sendControl(Kind.Welcome, t.welcome(value));
    t.system.clock.clearTimer(this.handshakeTimer);
    this.state = 'open';
    this.startHeartbeat();
    t.onOpen(this);
  }

  private startHeartbeat(): void {
    const t = this.transport;
    const o = t.options;
    this.heartbeat = t.system.clock.setInterval(() => {
      const now = t.system.clock.now();
      if (now - this.lastReceived > o.idleTimeoutMs) {
        this.close(`peer ${this.peer} silent for ${now - this.lastReceived} ms`);
        return;
      }
      if (now - this.lastSent >= o.heartbeatIntervalMs) this.sendControl(Kind.Heartbeat, undefined);
    }, o.heartbeatIntervalMs);
  }

  // ------------------------------------------------------------ closing

  /** Closes this connection. `bad` marks a protocol violation (logged as a warning). */
  close(reason: string, bad = false): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.closeReason = reason;
    const t = this.transport;
    t.system.clock.clearTimer(this.heartbeat);
    t.system.clock.clearTimer(this.handshakeTimer);
    this.queue = [];
    this.queuedBytes = 0;
    this.small = null;
    this.smallUsed = 0;
    const fields = { peer: this.peer || undefined, remote: this.remote, reason };
    if (bad) t.system.log.warn('closing TCP connection', fields);
    else t.system.log.debug('TCP connection closed', fields);
    if (this.socket.writableLength > 0 && !bad) this.socket.end();
    else this.socket.destroy();
    if (wasOpen) t.system.detachEndpoint(this, reason);
    t.onClosed(this, reason);
    this.resolveClosed(reason);
  }
}

interface Dialer {
  host: string;
  port: number;
  /** Keep dialling even when the first attempt fails (a peer that is not up yet). */
  persistent: boolean;
  peer?: string;
  attempt: number;
  timer?: TimerHandle;
  current?: TcpConnection;
  waiters: { resolve: (peer: string) => void; reject: (err: Error) => void }[];
}

export class TcpTransport implements Transport {
  readonly options: Required<TcpTransportOptions>;
  readonly incarnation = nanoid(10);
  private server?: net.Server;
  private readonly connections = new Set<TcpConnection>();
  private readonly open = new Map<string, TcpConnection>();
  private readonly dialers = new Set<Dialer>();
  private closing = false;

  constructor(
    readonly system: ActorSystem,
    opts: TcpTransportOptions,
  ) {
    if (!opts.clusterId) throw new Error('TcpTransport: clusterId is required');
    this.options = {
      tls: opts.tls ?? null,
      cluster: opts.cluster ?? null,
      clusterId: opts.clusterId,
      maxFrameBytes: opts.maxFrameBytes ?? 100 * 1024 * 1024,
      heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 1_000,
      idleTimeoutMs: opts.idleTimeoutMs ?? 10_000,
      handshakeTimeoutMs: opts.handshakeTimeoutMs ?? 5_000,
      reconnectInitialMs: opts.reconnectInitialMs ?? 100,
      reconnectMaxMs: opts.reconnectMaxMs ?? 10_000,
      maxQueuedBytes: opts.maxQueuedBytes ?? 256 * 1024 * 1024,
    };
    system.addTransport(this);
  }

  /** Who this node is, as a hello and a welcome both say it. */
  private identity(): Hello {
    return { clusterId: this.options.clusterId, nodeId: this.system.nodeId, incarnation: this.incarnation, version: TCP_PROTOCOL_VERSION };
  }

  /** What a dialler says first: who it is, and with the node secret, a proof of it at this time. */
  hello(): Hello {
    const h = this.identity();
    const secret = this.options.cluster?.secret;
    if (secret) {
      h.time = Date.now();
      h.proof = helloProof(secret, h).toString('hex');
    }
    return h;
  }

  /** A listener's answer to `hello`: who it is, and with the node secret, a proof of it bound to that hello. */
  welcome(hello: Hello): Hello {
    const w = this.identity();
    const secret = this.options.cluster?.secret;
    if (secret) w.proof = welcomeProof(secret, w, hello).toString('hex');
    return w;
  }

  /** Proofs taken (their key -> their time), so that none is taken twice within PROOF_WINDOW_MS. */
  private readonly seenProofs = new Map<string, number>();

  /**
   * Whether a dialler's hello proves the secret: its proof over its time, that time within
   * PROOF_WINDOW_MS of this node's clock, and not taken before (a hello seen on the wire and sent
   * again is refused).
   */
  private helloProves(secret: Buffer, h: Hello): boolean {
    const now = Date.now();
    if (typeof h.time !== 'number' || !Number.isSafeInteger(h.time) || Math.abs(now - h.time) > PROOF_WINDOW_MS) return false;
    if (!sameProof(h.proof, helloProof(secret, h))) return false;
    for (const [k, at] of this.seenProofs) if (now - at > 2 * PROOF_WINDOW_MS) this.seenProofs.delete(k);
    const key = `${h.nodeId}\u0000${h.incarnation}\u0000${h.time}`;
    if (this.seenProofs.has(key)) return false;
    this.seenProofs.set(key, h.time);
    return true;
  }

  /**
   * Why a peer's hello is refused, or what the peer is: a client, or one of the cluster's nodes
   * (`joined`: not declared here, trusted for proving the node secret).
   */
  validateHello(h: Hello, sent: Hello | null = null): string | { client: boolean; joined?: boolean } {
    if (h.version !== TCP_PROTOCOL_VERSION) return `protocol version ${h.version} is not ${TCP_PROTOCOL_VERSION}`;
    // a client that does not know the cluster id says '*'; a client transport accepts any cluster
    const clientSide = h.clusterId === ANY_CLUSTER || this.options.clusterId === ANY_CLUSTER;
    if (!clientSide && h.clusterId !== this.options.clusterId) return `cluster id '${h.clusterId}' is not '${this.options.clusterId}'`;
    if (h.nodeId === this.system.nodeId) return `node id '${h.nodeId}' is this node's own id`;
    const cluster = this.options.cluster;
    if (!cluster) return { client: false };
    const secret = cluster.secret ?? null;
    // a welcome (to our hello) proves the secret over that hello; a hello over its own time
    const proven = secret !== null && (sent !== null ? sameProof(h.proof, welcomeProof(secret, h, sent)) : this.helloProves(secret, h));
    if (cluster.nodes.has(h.nodeId)) {
      if (!cluster.acceptNodes) return `node id '${h.nodeId}' is one of the cluster's nodes: this listener takes clients only`;
      if (secret !== null && !proven) return `node id '${h.nodeId}' is one of the cluster's nodes, but its handshake does not prove the cluster's node secret`;
      return { client: false };
    }
    const ep = this.system.endpointTo(h.nodeId);
    if (ep && !(ep instanceof TcpConnection && ep.transport === this)) return `node id '${h.nodeId}' is taken by a node connected here`;
    if (proven) {
      if (!cluster.acceptNodes) return `node '${h.nodeId}' proves the cluster's node secret: this listener takes clients only`;
      return { client: false, joined: true };
    }
    return { client: true };
  }

  /** Accepts connections. Resolves with the bound address (port 0 picks a free port). */
  listen(port: number, host = '127.0.0.1'): Promise<{ host: string; port: number }> {
    if (this.server) throw new Error('TcpTransport is already listening');
    const accept = (socket: net.Socket) => {
      if (this.closing) {
        socket.destroy();
        return;
      }
      this.connections.add(new TcpConnection(this, socket, false));
    };
    const secure = this.options.tls;
    let server: net.Server;
    if (secure) {
      if (!secure.key || !secure.cert) throw new Error('TcpTransport: a TLS listener needs tls.key and tls.cert');
      const requireCert = secure.requireClientCert ?? true;
      server = tls.createServer({ key: secure.key, cert: secure.cert, ca: secure.ca, requestCert: requireCert, rejectUnauthorized: requireCert }, accept);
      server.on('tlsClientError', (err: Error, socket: tls.TLSSocket) =>
        this.system.log.warn('TLS handshake failed: connection closed', { remote: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`, reason: err.message }),
      );
    } else {
      server = net.createServer(accept);
    }
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        server.on('error', (err) => this.system.log.error('TCP listener error', { error: err.message }));
        const addr = server.address() as net.AddressInfo;
        resolve({ host: addr.address, port: addr.port });
      });
    });
  }

  /**
   * Dials a peer and keeps it connected: when the connection drops it is redialled with
   * capped exponential backoff until close(). Resolves with the peer's node id once the first
   * handshake completes; rejects if that first attempt fails, unless `persistent` (then it keeps
   * trying, for a peer that may start later).
   */
  connect(port: number, host = '127.0.0.1', opts: { persistent?: boolean } = {}): Promise<string> {
    if (this.closing) return Promise.reject(new Error('transport is closed'));
    const dialer: Dialer = { host, port, attempt: 0, waiters: [], persistent: opts.persistent ?? false };
    this.dialers.add(dialer);
    return new Promise((resolve, reject) => {
      dialer.waiters.push({ resolve, reject });
      this.dial(dialer);
    });
  }

  private dial(d: Dialer): void {
    if (this.closing || !this.dialers.has(d)) return;
    const secure = this.options.tls;
    const socket = secure
      ? tls.connect({ host: d.host, port: d.port, ca: secure.ca, ...(secure.key && secure.cert ? { key: secure.key, cert: secure.cert } : {}), ...(net.isIP(d.host) ? {} : { servername: d.host }) })
      : net.connect({ host: d.host, port: d.port });
    const conn = new TcpConnection(this, socket, true);
    this.connections.add(conn);
    d.current = conn;
    void conn.closed.then((reason) => {
      if (d.current === conn) d.current = undefined;
      if (d.waiters.length && !d.persistent) {
        const err = new Error(`cannot connect to ${d.host}:${d.port}: ${reason}`);
        for (const w of d.waiters.splice(0)) w.reject(err);
        this.dialers.delete(d);
        return;
      }
      this.scheduleRedial(d);
    });
  }

  private scheduleRedial(d: Dialer): void {
    if (this.closing || !this.dialers.has(d)) return;
    const o = this.options;
    const base = Math.min(o.reconnectMaxMs, o.reconnectInitialMs * 2 ** Math.min(d.attempt, 20));
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    d.attempt++;
    d.timer = this.system.clock.setTimeout(() => {
      d.timer = undefined;
      // another connection (e.g. the peer dialled us) already links us: check again later
      if (d.peer && this.open.has(d.peer)) {
        this.scheduleRedial(d);
        return;
      }
      this.dial(d);
    }, delay);
  }

  /** @internal a connection finished its handshake */
  onOpen(conn: TcpConnection): void {
    const existing = this.open.get(conn.peer);
    if (existing && existing !== conn) {
      if (existing.peerIncarnation !== conn.peerIncarnation) {
        existing.close(`replaced by a new connection from ${conn.peer} (peer restarted)`);
      } else {
        // both sides dialled: keep the connection dialled by the smaller node id, on both sides
        const keepDialledByMe = this.system.nodeId < conn.peer;
        const loser = conn.dialled === keepDialledByMe ? existing : conn;
        loser.close('duplicate connection');
        if (loser === conn) {
          this.resolveDialer(conn);
          return;
        }
      }
    }
    this.open.set(conn.peer, conn);
    this.system.attachEndpoint(conn);
    this.resolveDialer(conn);
    this.system.log.debug('TCP peer connected', { peer: conn.peer, remote: conn.remote, dialled: conn.dialled });
  }

  private resolveDialer(conn: TcpConnection): void {
    for (const d of this.dialers) {
      if (d.current !== conn) continue;
      d.peer = conn.peer;
      d.attempt = 0;
      for (const w of d.waiters.splice(0)) w.resolve(conn.peer);
    }
  }

  /** @internal */
  onClosed(conn: TcpConnection, _reason: string): void {
    this.connections.delete(conn);
    if (this.open.get(conn.peer) === conn) this.open.delete(conn.peer);
  }

  /** Node ids with an open connection. */
  connectedPeers(): string[] {
    return [...this.open.keys()];
  }

  /** Stops redialling `peer` and closes its connection. */
  disconnect(peer: string): void {
    for (const d of [...this.dialers]) {
      if (d.peer === peer) {
        this.system.clock.clearTimer(d.timer);
        this.dialers.delete(d);
      }
    }
    this.open.get(peer)?.close('disconnected');
  }

  /** Stops listening, stops redialling and closes every connection. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const d of this.dialers) {
      this.system.clock.clearTimer(d.timer);
      for (const w of d.waiters.splice(0)) w.reject(new Error('transport closed'));
    }
    this.dialers.clear();
    const closes = [...this.connections].map((c) => {
      c.close('transport closing');
      return c.closed;
    });
    await Promise.all(closes);
    if (this.server) {
      const server = this.server;
      await new Promise<void>((r) => server.close(() => r()));
    }
  }

  /** The bound address of the listener, if any. */
  address(): { host: string; port: number } | undefined {
    const a = this.server?.address();
    return a && typeof a === 'object' ? { host: a.address, port: a.port } : undefined;
  }
}
