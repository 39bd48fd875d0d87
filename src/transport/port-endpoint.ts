/**
 * An endpoint over a MessagePort (worker_threads). Envelopes are packed with msgpack and
 * batched: everything sent in one turn of the event loop (flushed by setImmediate) is posted as
 * one buffer of length-prefixed frames, whose ArrayBuffer is transferred (not cloned) to the peer.
 * A turn, not a synchronous run: actors handle their messages in setImmediate turns, so a broker
 * answering a produce request (the replica's append, then the broker's reply) and the fetch it
 * satisfied (a later actor turn) used to post twice, waking the client's thread twice; flushed
 * at the end of the turn they go in one post. Each post costs the sender ~25 us and the peer a
 * wake-up on a virtual machine; in `perf-e2e` at 50,000 records/s a broker's posts per produced
 * batch went from 2.0 to 1.1, and the end-to-end p50 from 0.58-0.67 to 0.42-0.62 ms (three runs
 * each, in turn). A batch past EAGER_FLUSH_BYTES goes at the end of its synchronous run (as
 * every batch did before), so a big transfer streams rather than waiting for the turn to end.
 * The receiving side decodes each frame as a view into that transferred buffer, so binary
 * payloads stay valid as long as they are referenced.
 *
 * Buffers go back: a batch buffer of RETURN_MIN_BYTES or more gives each message decoded from
 * it a PayloadHold (Envelope.payloadHold, `ctx.payloadHold()` in a handler), and once every one
 * of them was released, the buffer travels back to its sender (transferred, beside the next
 * batch going that way) to carry a later batch. Filling fresh memory is what a flush paid for,
 * not the copy: on a virtual machine a page fault costs more than copying the page, and a
 * fresh 330 KB buffer took ~250 us to fill against ~15 us for memory already touched. A
 * message never released (a handler that keeps the bytes, or does not say) leaves its buffer
 * to the collector, as before. Returning detaches the buffer on the receiving side, so a view
 * kept by mistake reads as empty instead of as the sender's next batch.
 *
 * Allocation is kept to one buffer per batch, because every transferred byte counts as
 * external memory on both threads and V8 starts a full mark-compact after a few tens of MB of
 * it (under replication each broker ran one every ~80 ms). Frames are packed transiently (into
 * msgpack's working buffer, reused pack after pack) and copied at once into a staging buffer
 * the endpoint keeps; at flush the batch is copied into a buffer of its own, which is
 * transferred: exactly its size under RETURN_MIN_BYTES, else one the peer gave back or a new
 * one in whole multiples of RETURN_MIN_BYTES (see below).
 *
 * Large binary payloads (record batches, fetched data) skip the first two copies: they are left
 * out of the packed body as attached bins (codec.ts), referenced until the flush and copied from
 * where they are straight into the posted buffer. A sender must not change a payload after
 * sending it (the rule of every transport: the in-process one hands it over by reference).
 *
 * Frame: u32 length, then the msgpack body; with the top bit of the length set, a u32 body
 * length, the body, and the attached bins' bytes.
 */
import type { MessagePort } from 'node:worker_threads';
import { decodeEnvelope, decodeEnvelopeAttached, encodeEnvelopeAttaching, releaseTransientBuffer } from '../protocol/codec.js';
import type { ActorSystem } from '../runtime/actor-system.js';
import type { Endpoint, EndpointTraffic } from '../runtime/endpoint.js';
import type { Envelope, FailureReason, PayloadHold } from '../runtime/types.js';

/** A batch this big is posted at the end of the synchronous run rather than of the turn. */
const EAGER_FLUSH_BYTES = 1024 * 1024;
/** Messages beyond this many queued bytes are refused (reason 'overflow'). */
const MAX_QUEUED_BYTES = 256 * 1024 * 1024;
/** A staging buffer grown past this is dropped after its batch is posted. */
const MAX_KEPT_STAGE = 8 * 1024 * 1024;
/** Bins of at least this many bytes travel attached (one copy) rather than inside the body. */
export const MIN_ATTACHED_BIN = 512;
/** Top bit of a frame's length: the frame carries attached bins. */
const ATTACHED = 0x80000000;
/** Received batch buffers of at least this many bytes go back to their sender once released. */
export const RETURN_MIN_BYTES = 64 * 1024;
/** Returned buffers kept for later batches: at most this many, and this many bytes in all. */
const MAX_SPARE_BUFFERS = 8;
const MAX_SPARE_BYTES = 16 * 1024 * 1024;

/** A batch posted with buffers going back (and frames, unless there was nothing else to send). */
interface ReturnPost {
  frames?: Uint8Array;
  returned: ArrayBuffer[];
}

/** A received batch buffer that goes back to its sender once every message decoded from it is released. */
class ReturnableBuffer {
  private holds = 0;
  private decoding = true;
  private gone = false;

  constructor(
    private readonly endpoint: PortEndpoint,
    readonly buffer: ArrayBuffer,
  ) {}

  hold(): PayloadHold {
    this.holds++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.holds--;
        this.maybeReturn();
      },
    };
  }

  /** Every frame is decoded: no more holds. */
  decoded(): void {
    this.decoding = false;
    this.maybeReturn();
  }

  private maybeReturn(): void {
    if (this.decoding || this.holds > 0 || this.gone) return;
    this.gone = true;
    this.endpoint.giveBack(this.buffer);
  }
}

export class PortEndpoint implements Endpoint {
  readonly kind = 'worker' as const;
  /** The outgoing batch, length-prefixed frames; reused from batch to batch (never posted). */
  private stage: Buffer | null = null;
  /** Bytes of the batch in `stage`. */
  private used = 0;
  /** The flush at the end of this turn, when one is due. */
  private flushAtTurnEnd: NodeJS.Immediate | null = null;
  /** A flush at the end of the synchronous run is due (the batch passed EAGER_FLUSH_BYTES). */
  private eager = false;
  private closed = false;
  /** Attached bins of the batch, in order, referenced until the flush copies them. */
  private bins: Uint8Array[] = [];
  /** Their bytes. */
  private attachedBytes = 0;
  /** Pairs (stage position, end index into `bins`): at that point of the batch those bins follow. */
  private splices: number[] = [];
  /** Received buffers every message of which was released: they go back with the next post. */
  private returning: ArrayBuffer[] = [];
  /** Buffers the peer gave back, for batches of RETURN_MIN_BYTES or more. */
  private spare: ArrayBuffer[] = [];
  private spareBytes = 0;
  private readonly returns = { sentBack: 0, cameBack: 0, reused: 0 };
  private readonly counted: EndpointTraffic = { sends: 0, sentBytes: 0, receives: 0, receivedBytes: 0 };

  constructor(
    readonly peer: string,
    private readonly port: MessagePort,
    private readonly system: ActorSystem,
    private readonly onClosed?: () => void,
  ) {
    port.on('message', (data: unknown) => this.onData(data));
    port.on('close', () => this.shutdown('port closed'));
    system.attachEndpoint(this);
  }

  send(env: Envelope): FailureReason | null {
    if (this.closed) return 'endpoint-closed';
    const bins = this.bins;
    const first = bins.length;
    const view = encodeEnvelopeAttaching(env, bins, MIN_ATTACHED_BIN);
    let attached = 0;
    for (let i = first; i < bins.length; i++) attached += bins[i]!.byteLength;
    const head = attached > 0 ? 8 : 4;
    const need = head + view.length;
    if (this.used + this.attachedBytes + need + attached > MAX_QUEUED_BYTES) {
      bins.length = first;
      releaseTransientBuffer(view);
      return 'overflow';
    }
    let stage = this.stage;
    if (!stage || this.used + need > stage.length) {
      const next = Buffer.allocUnsafeSlow(Math.max(this.used + need, stage ? stage.length * 2 : 64 * 1024));
      if (stage) stage.copy(next, 0, 0, this.used);
      stage = this.stage = next;
    }
    let at = this.used;
    const len = view.length;
    if (attached > 0) {
      stage.writeUInt32BE((ATTACHED | (4 + len + attached)) >>> 0, at);
      stage.writeUInt32BE(len, at + 4);
    } else {
      stage[at] = len >>> 24;
      stage[at + 1] = (len >>> 16) & 0xff;
      stage[at + 2] = (len >>> 8) & 0xff;
      stage[at + 3] = len & 0xff;
    }
    at += head;
    stage.set(view, at);
    releaseTransientBuffer(view);
    this.used += need;
    if (attached > 0) {
      this.attachedBytes += attached;
      this.splices.push(this.used, bins.length);
    }
    if (this.used + this.attachedBytes >= EAGER_FLUSH_BYTES) {
      if (!this.eager) {
        this.eager = true;
        queueMicrotask(() => this.flush());
      }
    } else this.scheduleFlush();
    return null;
  }

  private scheduleFlush(): void {
    this.flushAtTurnEnd ??= setImmediate(() => this.flush());
  }

  private cancelTurnEndFlush(): void {
    if (this.flushAtTurnEnd === null) return;
    clearImmediate(this.flushAtTurnEnd);
    this.flushAtTurnEnd = null;
  }

  /**
   * Buffers this endpoint sent back to the peer (every message decoded from them released),
   * buffers the peer sent back, how many batches went out in one of those, and how many are
   * kept for later batches now.
   */
  returnStats(): { sentBack: number; cameBack: number; reused: number; spare: number } {
    return { ...this.returns, spare: this.spare.length };
  }

  bufferedBytes(): number {
    return this.used + this.attachedBytes;
  }

  /** Posts to the peer and from it, and their bytes of frames (buffers going back count as posts, not bytes). */
  traffic(): EndpointTraffic {
    return { ...this.counted };
  }

  /** @internal a received buffer whose messages were all released goes back to the peer. */
  giveBack(buffer: ArrayBuffer): void {
    if (this.closed) return;
    this.returning.push(buffer);
    this.returns.sentBack++;
    this.scheduleFlush();
  }

  /** Buffers going back, handed over (and forgotten here). */
  private takeReturning(): ArrayBuffer[] | null {
    if (this.returning.length === 0) return null;
    const r = this.returning;
    this.returning = [];
    return r;
  }

  /** A buffer for a batch of `size` bytes: a spare one when one is big enough, else a new one. */
  private outBuffer(size: number): Buffer {
    // not zero-filled: every byte is copied in; an ArrayBuffer of its own (not Node's pool),
    // since it is transferred
    if (size < RETURN_MIN_BYTES) return Buffer.allocUnsafeSlow(size);
    let best = -1;
    for (let i = 0; i < this.spare.length; i++) {
      const len = this.spare[i]!.byteLength;
      if (len >= size && (best < 0 || len < this.spare[best]!.byteLength)) best = i;
    }
    if (best >= 0) {
      const ab = this.spare[best]!;
      this.spare[best] = this.spare[this.spare.length - 1]!;
      this.spare.pop();
      this.spareBytes -= ab.byteLength;
      this.returns.reused++;
      return Buffer.from(ab, 0, size);
    }
    // whole multiples of RETURN_MIN_BYTES, so that the buffer, once back, fits the batches of
    // about this size (the slack is never touched, so it costs no memory, only accounting)
    const rounded = Math.ceil(size / RETURN_MIN_BYTES) * RETURN_MIN_BYTES;
    return Buffer.from(Buffer.allocUnsafeSlow(rounded).buffer, 0, size);
  }

  /** Keeps what the peer gave back, within the limits. */
  private takeSpares(buffers: ArrayBuffer[]): void {
    for (const ab of buffers) {
      this.returns.cameBack++;
      if (this.spare.length >= MAX_SPARE_BUFFERS || this.spareBytes + ab.byteLength > MAX_SPARE_BYTES || ab.byteLength < RETURN_MIN_BYTES) continue;
      this.spare.push(ab);
      this.spareBytes += ab.byteLength;
    }
  }

  private flush(): void {
    this.eager = false;
    this.cancelTurnEndFlush();
    if (this.closed) return;
    const returned = this.takeReturning();
    if (this.used === 0) {
      if (returned) {
        this.counted.sends++;
        this.port.postMessage({ returned } satisfies ReturnPost, returned);
      }
      return;
    }
    const stage = this.stage!;
    const out = this.outBuffer(this.used + this.attachedBytes);
    if (this.splices.length === 0) stage.copy(out, 0, 0, this.used);
    else {
      const { bins, splices } = this;
      let from = 0;
      let to = 0;
      let b = 0;
      for (let k = 0; k < splices.length; k += 2) {
        const upTo = splices[k]!;
        to += stage.copy(out, to, from, upTo);
        from = upTo;
        for (const end = splices[k + 1]!; b < end; b++) {
          out.set(bins[b]!, to);
          to += bins[b]!.byteLength;
        }
      }
      stage.copy(out, to, from, this.used);
      bins.length = 0;
      splices.length = 0;
      this.attachedBytes = 0;
    }
    this.used = 0;
    // a huge batch does not pin its staging buffer forever
    if (this.stage!.length > MAX_KEPT_STAGE) this.stage = null;
    this.counted.sends++;
    this.counted.sentBytes += out.length;
    // the whole ArrayBuffer moves to the peer (no copy)
    if (returned) this.port.postMessage({ frames: out, returned } satisfies ReturnPost, [out.buffer as ArrayBuffer, ...returned]);
    else this.port.postMessage(out, [out.buffer as ArrayBuffer]);
  }

  private onData(data: unknown): void {
    this.counted.receives++;
    if (data instanceof Uint8Array) {
      this.counted.receivedBytes += data.length;
      this.onFrames(data);
      return;
    }
    const post = data as Partial<ReturnPost> | null;
    if (
      post === null ||
      typeof post !== 'object' ||
      !Array.isArray(post.returned) ||
      !post.returned.every((b) => b instanceof ArrayBuffer) ||
      !(post.frames === undefined || post.frames instanceof Uint8Array)
    ) {
      this.system.log.warn('non-binary message on a worker port dropped', { peer: this.peer });
      return;
    }
    this.takeSpares(post.returned);
    if (post.frames) {
      this.counted.receivedBytes += post.frames.length;
      this.onFrames(post.frames);
    }
  }

  /** Decodes and delivers the frames of one posted batch. */
  private onFrames(data: Uint8Array): void {
    // the whole buffer is this batch's (as the peer posts them): it can go back when released
    const back = data.byteOffset === 0 && data.buffer.byteLength >= RETURN_MIN_BYTES && data.buffer instanceof ArrayBuffer ? new ReturnableBuffer(this, data.buffer) : null;
    try {
      this.decodeFrames(data, back);
    } finally {
      back?.decoded();
    }
  }

  private decodeFrames(data: Uint8Array, back: ReturnableBuffer | null): void {
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    let pos = 0;
    while (pos + 4 <= data.length) {
      const word = dv.getUint32(pos);
      const len = word & ~ATTACHED;
      const end = pos + 4 + len;
      if (end > data.length) {
        this.system.log.warn('truncated frame on a worker port dropped', { peer: this.peer });
        return;
      }
      if ((word & ATTACHED) === 0) {
        this.deliver(decodeEnvelope(data.subarray(pos + 4, end)), back);
      } else {
        const bodyLen = len >= 4 ? dv.getUint32(pos + 4) : -1;
        if (bodyLen < 0 || bodyLen > len - 4) {
          this.system.log.warn('frame with a bad body length on a worker port dropped', { peer: this.peer });
          return;
        }
        const bodyEnd = pos + 8 + bodyLen;
        this.deliver(decodeEnvelopeAttached(data.subarray(pos + 8, bodyEnd), data, bodyEnd, end), back);
      }
      pos = end;
    }
  }

  /** Hands a decoded frame to the node, with a hold on its buffer when that can go back. */
  private deliver(res: ReturnType<typeof decodeEnvelope>, back: ReturnableBuffer | null): void {
    if (back && res.ok) res.envelope.payloadHold = back.hold();
    this.system.receiveDecoded(res, this.peer);
  }

  private shutdown(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.cancelTurnEndFlush();
    this.stage = null;
    this.used = 0;
    this.bins = [];
    this.splices = [];
    this.attachedBytes = 0;
    this.returning = [];
    this.spare = [];
    this.spareBytes = 0;
    this.system.detachEndpoint(this, reason);
    this.onClosed?.();
  }

  async close(reason: string): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.shutdown(reason);
    this.port.close();
  }
}
