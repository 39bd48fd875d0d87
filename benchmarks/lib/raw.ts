/**
 * Raw baselines: the layers samsa is built on, driven through the same `LoadTarget` loops
 * (lib/load.ts) as samsa itself, so each samsa figure has a figure for "the platform alone".
 *
 * - bare nact: `nact.start`, `spawnStateless`, `dispatch`, `query`, no samsa code;
 * - bare MessagePort: `postMessage` of the message objects (64 KiB payloads copied into a
 *   fresh ArrayBuffer and transferred), or of msgpack-packed, length-prefixed frames batched
 *   per synchronous run;
 * - bare TCP socket: `uint32 length | uint8 kind | body` frames of the same sizes as samsa's,
 *   small frames batched into one buffer, large bodies written by reference (writev), no
 *   msgpack; the receiver counts frames without copying their bodies.
 *
 * Each has a sender side (a LoadTarget) and a receiver side (a counting sink plus an echo).
 */
import net from 'node:net';
import type { MessagePort } from 'node:worker_threads';
import { Packr } from 'msgpackr';
import nact from 'nact';
import { SinkCounter, type LoadMsg, type LoadTarget, type PingMsg } from './load.js';

const packr = new Packr({ useRecords: false });

// ---------------------------------------------------------------------------------- nact

type NactSinkMsg =
  | LoadMsg
  | { type: 'Expect'; n: number; done: () => void }
  | { type: 'Reset'; done: () => void };

/** Bare nact in this thread: a stateless counting sink and a stateless echo answering queries. */
export class RawNactTarget implements LoadTarget {
  private readonly root = nact.start();
  private readonly counter = new SinkCounter();
  private readonly sink;
  private readonly echo;

  constructor() {
    const counter = this.counter;
    this.sink = nact.spawnStateless(this.root, (msg: NactSinkMsg) => {
      switch (msg.type) {
        case 'Tick':
          counter.seen(0);
          return;
        case 'Blob':
          counter.seen(msg.data.length);
          return;
        case 'Expect':
          counter.expect(msg.n, () => msg.done());
          return;
        case 'Reset':
          counter.reset();
          msg.done();
          return;
      }
    });
    // nact passes the query's temporary reference as the context's sender (untyped in its d.ts)
    this.echo = nact.spawnStateless(this.root, (msg: PingMsg, ctx) => {
      const sender = (ctx as unknown as { sender: nact.Ref<unknown> }).sender;
      nact.dispatch(sender, { type: 'Pong', seq: msg.seq });
    });
  }

  tell(msg: LoadMsg): void {
    nact.dispatch(this.sink, msg);
  }

  expect(n: number): Promise<void> {
    return new Promise((done) => nact.dispatch(this.sink, { type: 'Expect', n, done }));
  }

  ask(msg: PingMsg): Promise<unknown> {
    return nact.query(this.echo, () => msg, 30_000);
  }

  reset(): Promise<void> {
    return new Promise((done) => nact.dispatch(this.sink, { type: 'Reset', done }));
  }

  stop(): void {
    nact.stop(this.root);
  }
}

// ---------------------------------------------------------------------------------- byte batches

/**
 * An append-only arena of bytes for outgoing frames. `cut()` hands out what was appended since
 * the last cut as a view; a view is never written again (a full arena is replaced, not reused),
 * so it can be transferred or given to a socket as is.
 */
export class ByteArena {
  private buf: Buffer;
  private start = 0;
  private pos = 0;

  constructor(private readonly chunkBytes = 256 * 1024) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
  }

  get pendingBytes(): number {
    return this.pos - this.start;
  }

  /** Makes room for `n` contiguous bytes, returning views cut from the old arena if it was replaced. */
  reserve(n: number, cutInto: Uint8Array[]): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.pos > this.start) cutInto.push(this.buf.subarray(this.start, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(this.chunkBytes, n));
    this.start = this.pos = 0;
  }

  /** Writable view of the next `n` bytes (call reserve first); advances past them. */
  take(n: number): Buffer {
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  cut(): Buffer | null {
    if (this.pos === this.start) return null;
    const v = this.buf.subarray(this.start, this.pos);
    this.start = this.pos;
    return v;
  }
}

// ---------------------------------------------------------------------------------- MessagePort

export type PortMode = 'object' | 'packed';

type PortControl =
  | { type: 'Expect'; id: number; n: number }
  | { type: 'Reset'; id: number }
  | { type: 'Ping'; id: number; seq: number };
type PortReply = { id: number; count?: number; type?: 'Pong'; seq?: number };

/**
 * The sending side of a bare MessagePort. In 'object' mode every message is its own
 * postMessage (a Blob's bytes are copied into a fresh ArrayBuffer that is transferred); in
 * 'packed' mode messages are msgpack-packed into length-prefixed frames, and all the frames of
 * one synchronous run are posted as one transferred buffer. Control messages and asks are
 * always plain objects.
 */
export class RawPortTarget implements LoadTarget {
  mode: PortMode = 'object';
  private nextId = 1;
  private readonly pending = new Map<number, (r: PortReply) => void>();
  /** The batch being filled in 'packed' mode: a fresh ArrayBuffer, transferred whole when posted. */
  private batch: Uint8Array | null = null;
  private batchPos = 0;
  private batchCapacity = 64 * 1024;
  private scheduled = false;

  constructor(private readonly port: MessagePort) {
    port.on('message', (r: PortReply) => {
      const p = this.pending.get(r.id);
      if (p) {
        this.pending.delete(r.id);
        p(r);
      }
    });
  }

  tell(msg: LoadMsg): void {
    if (this.mode === 'object') {
      if (msg.type === 'Blob') {
        const copy = msg.data.slice();
        this.port.postMessage({ type: 'Blob', data: copy }, [copy.buffer]);
      } else this.port.postMessage(msg);
      return;
    }
    const body = packr.pack(msg);
    const need = 4 + body.length;
    if (this.batch && this.batchPos + need > this.batch.length) this.flush();
    if (!this.batch) {
      this.batch = new Uint8Array(Math.max(this.batchCapacity, need));
      this.batchPos = 0;
    }
    const b = this.batch;
    const p = this.batchPos;
    b[p] = body.length >>> 24;
    b[p + 1] = (body.length >>> 16) & 0xff;
    b[p + 2] = (body.length >>> 8) & 0xff;
    b[p + 3] = body.length & 0xff;
    b.set(body, p + 4);
    this.batchPos = p + need;
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  private flush(): void {
    const b = this.batch;
    if (!b) return;
    this.batch = null;
    // size the next batch after this one, so a steady load fills one buffer per run
    this.batchCapacity = Math.max(64 * 1024, Math.min(64 * 1024 * 1024, this.batchPos * 2));
    this.port.postMessage(b.subarray(0, this.batchPos), [b.buffer as ArrayBuffer]);
  }

  private request(msg: PortControl): Promise<PortReply> {
    this.flush();
    return new Promise((resolve) => {
      this.pending.set(msg.id, resolve);
      this.port.postMessage(msg);
    });
  }

  async expect(n: number): Promise<void> {
    await this.request({ type: 'Expect', id: this.nextId++, n });
  }

  ask(msg: PingMsg): Promise<unknown> {
    return this.request({ type: 'Ping', id: this.nextId++, seq: msg.seq });
  }

  async reset(): Promise<void> {
    await this.request({ type: 'Reset', id: this.nextId++ });
  }
}

/** The receiving side of a bare MessagePort: counts Ticks and Blobs, answers Expect, Reset, Ping. */
export function servePortSink(port: MessagePort): void {
  const counter = new SinkCounter();
  const onMessage = (m: LoadMsg | PortControl): void => {
    switch (m.type) {
      case 'Tick':
        counter.seen(0);
        return;
      case 'Blob':
        counter.seen(m.data.length);
        return;
      case 'Expect': {
        const id = m.id;
        counter.expect(m.n, (count) => port.postMessage({ id, count } satisfies PortReply));
        return;
      }
      case 'Reset':
        counter.reset();
        port.postMessage({ id: m.id } satisfies PortReply);
        return;
      case 'Ping':
        port.postMessage({ id: m.id, type: 'Pong', seq: m.seq } satisfies PortReply);
        return;
    }
  };
  port.on('message', (data: unknown) => {
    if (!(data instanceof Uint8Array)) {
      onMessage(data as LoadMsg | PortControl);
      return;
    }
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    let pos = 0;
    while (pos + 4 <= data.length) {
      const len = dv.getUint32(pos);
      onMessage(packr.unpack(data.subarray(pos + 4, pos + 4 + len)) as LoadMsg);
      pos += 4 + len;
    }
  });
}

// ---------------------------------------------------------------------------------- TCP

/** Frame kinds of the raw TCP baseline. */
export const RawKind = {
  Tick: 0,
  Blob: 1,
  Expect: 2,
  Seen: 3,
  Ping: 4,
  Pong: 5,
  Reset: 6,
  ResetDone: 7,
} as const;

/** Bodies at least this large are written by reference instead of copied into the batch. */
const BY_REFERENCE_BYTES = 16 * 1024;

/**
 * One batching writer per socket: frames appended in one synchronous run go out together,
 * with cork/uncork so Node issues one writev; it waits for 'drain' when the socket is full.
 */
export class RawFrameWriter {
  private readonly arena = new ByteArena();
  private chunks: Uint8Array[] = [];
  private scheduled = false;
  private waitingDrain = false;

  constructor(private readonly socket: net.Socket) {
    socket.on('drain', () => {
      this.waitingDrain = false;
      this.flush();
    });
  }

  /** Appends a frame whose body is `body` (copied when small, referenced when large). */
  frame(kind: number, body: Uint8Array): void {
    const byRef = body.length >= BY_REFERENCE_BYTES;
    const headLen = 5 + (byRef ? 0 : body.length);
    this.arena.reserve(headLen, this.chunks);
    const head = this.arena.take(headLen);
    head.writeUInt32BE(body.length + 1, 0);
    head[4] = kind;
    if (byRef) {
      const cut = this.arena.cut();
      if (cut) this.chunks.push(cut);
      this.chunks.push(body);
    } else head.set(body, 5);
    this.schedule();
  }

  /** Appends a frame whose body is two uint32 values followed by `pad` zero bytes. */
  frameU32(kind: number, a: number, b: number, pad = 0): void {
    const bodyLen = 8 + pad;
    this.arena.reserve(5 + bodyLen, this.chunks);
    const f = this.arena.take(5 + bodyLen);
    f.writeUInt32BE(bodyLen + 1, 0);
    f[4] = kind;
    f.writeUInt32BE(a >>> 0, 5);
    f.writeUInt32BE(b >>> 0, 9);
    if (pad) f.fill(0, 13);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.waitingDrain) return;
    const last = this.arena.cut();
    if (last) this.chunks.push(last);
    if (this.chunks.length === 0 || this.socket.destroyed) return;
    const chunks = this.chunks;
    this.chunks = [];
    let ok = true;
    if (chunks.length === 1) ok = this.socket.write(chunks[0]!);
    else {
      this.socket.cork();
      for (const c of chunks) ok = this.socket.write(c);
      this.socket.uncork();
    }
    if (!ok) this.waitingDrain = true;
  }
}

/**
 * Splits the byte stream into frames without copying bodies: it reports each frame's kind and
 * body length, plus the first 8 body bytes (two uint32s) for the small control frames.
 */
export class RawFrameReader {
  private readonly head = Buffer.alloc(5);
  private headFill = 0;
  private kind = -1;
  private bodyLen = 0;
  private remaining = 0;
  private readonly words = Buffer.alloc(8);
  private wordsFill = 0;

  constructor(private readonly onFrame: (kind: number, bodyLen: number, a: number, b: number) => void) {}

  push(chunk: Buffer): void {
    const n = chunk.length;
    let pos = 0;
    while (pos < n) {
      if (this.kind < 0) {
        if (this.headFill === 0 && n - pos >= 5) {
          this.begin(chunk.readUInt32BE(pos) - 1, chunk[pos + 4]!);
          pos += 5;
        } else {
          const take = Math.min(5 - this.headFill, n - pos);
          chunk.copy(this.head, this.headFill, pos, pos + take);
          this.headFill += take;
          pos += take;
          if (this.headFill < 5) continue;
          this.headFill = 0;
          this.begin(this.head.readUInt32BE(0) - 1, this.head[4]!);
        }
        if (this.remaining === 0) this.end();
        continue;
      }
      const take = Math.min(this.remaining, n - pos);
      if (this.wordsFill < 8 && this.kind >= RawKind.Expect) {
        const w = Math.min(8 - this.wordsFill, take);
        chunk.copy(this.words, this.wordsFill, pos, pos + w);
        this.wordsFill += w;
      }
      this.remaining -= take;
      pos += take;
      if (this.remaining === 0) this.end();
    }
  }

  private begin(bodyLen: number, kind: number): void {
    if (bodyLen < 0) throw new Error('raw frame with a zero length');
    this.kind = kind;
    this.bodyLen = this.remaining = bodyLen;
    this.wordsFill = 0;
  }

  private end(): void {
    const kind = this.kind;
    this.kind = -1;
    const a = this.wordsFill >= 4 ? this.words.readUInt32BE(0) : 0;
    const b = this.wordsFill >= 8 ? this.words.readUInt32BE(4) : 0;
    this.onFrame(kind, this.bodyLen, a, b);
  }
}

/** Body sizes of the raw TCP frames, to match the envelopes of the transport under comparison. */
export interface RawFrameSizes {
  /** Body of a Tick frame. */
  tick: number;
  /** Body of a Ping (and its Pong). */
  ping: number;
}

/** The sending side of a bare TCP socket. */
export class RawTcpTarget implements LoadTarget {
  private nextId = 1;
  private readonly pending = new Map<number, () => void>();
  private readonly writer: RawFrameWriter;
  private readonly tickBody: Uint8Array;
  private readonly pad: number;

  private constructor(
    private readonly socket: net.Socket,
    sizes: RawFrameSizes,
  ) {
    this.tickBody = new Uint8Array(Math.max(1, sizes.tick));
    this.pad = Math.max(0, sizes.ping - 8);
    socket.setNoDelay(true);
    this.writer = new RawFrameWriter(socket);
    const reader = new RawFrameReader((kind, _len, id) => {
      if (kind === RawKind.Seen || kind === RawKind.Pong || kind === RawKind.ResetDone) {
        const p = this.pending.get(id);
        if (p) {
          this.pending.delete(id);
          p();
        }
      }
    });
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
  }

  static connect(port: number, sizes: RawFrameSizes, host = '127.0.0.1'): Promise<RawTcpTarget> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host }, () => {
        socket.off('error', reject);
        resolve(new RawTcpTarget(socket, sizes));
      });
      socket.once('error', reject);
    });
  }

  tell(msg: LoadMsg): void {
    if (msg.type === 'Blob') this.writer.frame(RawKind.Blob, msg.data);
    else this.writer.frame(RawKind.Tick, this.tickBody);
  }

  private request(kind: number, b: number, pad = 0): Promise<void> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.writer.frameU32(kind, id, b, pad);
    });
  }

  expect(n: number): Promise<void> {
    return this.request(RawKind.Expect, n);
  }

  ask(msg: PingMsg): Promise<unknown> {
    return this.request(RawKind.Ping, msg.seq, this.pad);
  }

  reset(): Promise<void> {
    return this.request(RawKind.Reset, 0);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The receiving side of the bare TCP baseline: a listener whose connections count and echo. */
export async function listenRawTcpSink(port = 0, host = '127.0.0.1'): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setNoDelay(true);
    const counter = new SinkCounter();
    const writer = new RawFrameWriter(socket);
    const reader = new RawFrameReader((kind, bodyLen, a, b) => {
      switch (kind) {
        case RawKind.Tick:
          counter.seen(0);
          return;
        case RawKind.Blob:
          counter.seen(bodyLen);
          return;
        case RawKind.Expect:
          counter.expect(b, (count) => writer.frameU32(RawKind.Seen, a, count));
          return;
        case RawKind.Ping:
          writer.frameU32(RawKind.Pong, a, b, Math.max(0, bodyLen - 8));
          return;
        case RawKind.Reset:
          counter.reset();
          writer.frameU32(RawKind.ResetDone, a, 0);
          return;
      }
    });
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as net.AddressInfo;
  return {
    port: addr.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
