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
 */
import type { MessagePort } from 'node:worker_threads';
import { encodeEnvelopeTransient, releaseTransientBuffer } from '../protocol/codec.js';
import type { ActorSystem } from '../runtime/actor-system.js';
import type { Endpoint } from '../runtime/endpoint.js';
import type { Envelope, FailureReason } from '../runtime/types.js';

/** Messages beyond this many queued bytes are refused (reason 'overflow'). */
const MAX_QUEUED_BYTES = 256 * 1024 * 1024;
/** A staging buffer grown past this is dropped after its batch is posted. */
const MAX_KEPT_STAGE = 8 * 1024 * 1024;

export class PortEndpoint implements Endpoint {
  readonly kind = 'worker' as const;
  /** The outgoing batch, length-prefixed frames; reused from batch to batch (never posted). */
  private stage: Buffer | null = null;
  /** Bytes of the batch in `stage`. */
  private used = 0;
  private scheduled = false;
  private closed = false;

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
    const view = encodeEnvelopeTransient(env);
    const need = 4 + view.length;
    if (this.used + need > MAX_QUEUED_BYTES) {
      releaseTransientBuffer(view);
      return 'overflow';
    }
    let stage = this.stage;
    if (!stage || this.used + need > stage.length) {
      const next = Buffer.allocUnsafeSlow(Math.max(this.used + need, stage ? stage.length * 2 : 64 * 1024));
      if (stage) stage.copy(next, 0, 0, this.used);
      stage = this.stage = next;
    }
    const at = this.used;
    const len = view.length;
    stage[at] = len >>> 24;
    stage[at + 1] = (len >>> 16) & 0xff;
    stage[at + 2] = (len >>> 8) & 0xff;
    stage[at + 3] = len & 0xff;
    stage.set(view, at + 4);
    releaseTransientBuffer(view);
    this.used += need;
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
    return null;
  }

  bufferedBytes(): number {
    return this.used;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.closed || this.used === 0) return;
    // not zero-filled: every byte is copied in; an ArrayBuffer of its own (not Node's pool),
    // since it is transferred
    const out = Buffer.allocUnsafeSlow(this.used);
    this.stage!.copy(out, 0, 0, this.used);
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
      const len = dv.getUint32(pos);
      if (pos + 4 + len > data.length) {
        this.system.log.warn('truncated frame on a worker port dropped', { peer: this.peer });
        return;
      }
      this.system.receiveBytes(data.subarray(pos + 4, pos + 4 + len), this.peer);
      pos += 4 + len;
    }
  }

  private shutdown(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stage = null;
    this.used = 0;
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
