/**
 * An endpoint over a MessagePort (worker_threads). Envelopes are packed with msgpack and
 * batched: everything sent in one synchronous run is flushed as one posted buffer of
 * length-prefixed frames, whose ArrayBuffer is transferred (not cloned) to the peer.
 * The receiving side decodes each frame as a view into that transferred buffer, which is
 * never reused, so binary payloads stay valid as long as they are referenced.
 *
 * Allocation is kept to one buffer per batch, because every transferred byte counts as
 * external memory on both threads and V8 starts a full mark-compact after a few tens of MB of
 * it (under replication each broker ran one every ~80 ms). Frames are packed transiently (into
 * msgpack's working buffer, reused pack after pack) and copied at once into a staging buffer
 * the endpoint keeps; at flush the batch is copied into a buffer exactly its size, which is
 * transferred.
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
import type { Endpoint } from '../runtime/endpoint.js';
import type { Envelope, FailureReason } from '../runtime/types.js';

/** Messages beyond this many queued bytes are refused (reason 'overflow'). */
const MAX_QUEUED_BYTES = 256 * 1024 * 1024;
/** A staging buffer grown past this is dropped after its batch is posted. */
const MAX_KEPT_STAGE = 8 * 1024 * 1024;
/** Bins of at least this many bytes travel attached (one copy) rather than inside the body. */
export const MIN_ATTACHED_BIN = 512;
/** Top bit of a frame's length: the frame carries attached bins. */
const ATTACHED = 0x80000000;

export class PortEndpoint implements Endpoint {
  readonly kind = 'worker' as const;
  /** The outgoing batch, length-prefixed frames; reused from batch to batch (never posted). */
  private stage: Buffer | null = null;
  /** Bytes of the batch in `stage`. */
  private used = 0;
  private scheduled = false;
  private closed = false;
  /** Attached bins of the batch, in order, referenced until the flush copies them. */
  private bins: Uint8Array[] = [];
  /** Their bytes. */
  private attachedBytes = 0;
  /** Pairs (stage position, end index into `bins`): at that point of the batch those bins follow. */
  private splices: number[] = [];

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
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
    return null;
  }

  bufferedBytes(): number {
    return this.used + this.attachedBytes;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.closed || this.used === 0) return;
    // not zero-filled: every byte is copied in; an ArrayBuffer of its own (not Node's pool),
    // since it is transferred
    const stage = this.stage!;
    const out = Buffer.allocUnsafeSlow(this.used + this.attachedBytes);
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
    // the whole ArrayBuffer moves to the peer (no copy)
    this.port.postMessage(out, [out.buffer as ArrayBuffer]);
  }

  private onData(data: unknown): void {
    if (!(data instanceof Uint8Array)) {
      this.system.log.warn('non-binary message on a worker port dropped', { peer: this.peer });
      return;
    }
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
        this.system.receiveDecoded(decodeEnvelope(data.subarray(pos + 4, end)), this.peer);
      } else {
        const bodyLen = len >= 4 ? dv.getUint32(pos + 4) : -1;
        if (bodyLen < 0 || bodyLen > len - 4) {
          this.system.log.warn('frame with a bad body length on a worker port dropped', { peer: this.peer });
          return;
        }
        const bodyEnd = pos + 8 + bodyLen;
        this.system.receiveDecoded(decodeEnvelopeAttached(data.subarray(pos + 8, bodyEnd), data, bodyEnd, end), this.peer);
      }
      pos = end;
    }
  }

  private shutdown(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stage = null;
    this.used = 0;
    this.bins = [];
    this.splices = [];
    this.attachedBytes = 0;
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
