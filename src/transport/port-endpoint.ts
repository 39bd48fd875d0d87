/**
 * An endpoint over a MessagePort (worker_threads). Envelopes are packed with msgpack and
 * batched: everything sent in one synchronous run is flushed as one posted buffer of
 * length-prefixed frames, whose ArrayBuffer is transferred (not cloned) to the peer.
 * The receiving side decodes each frame as a view into that transferred buffer, which is
 * never reused, so binary payloads stay valid as long as they are referenced.
 */
import type { MessagePort } from 'node:worker_threads';
import { encodeEnvelope } from '../protocol/codec.js';
import type { ActorSystem } from '../runtime/actor-system.js';
import type { Endpoint } from '../runtime/endpoint.js';
import type { Envelope, FailureReason } from '../runtime/types.js';

/** Messages beyond this many queued bytes are refused (reason 'overflow'). */
const MAX_QUEUED_BYTES = 256 * 1024 * 1024;

export class PortEndpoint implements Endpoint {
  readonly kind = 'worker' as const;
  /** The outgoing batch: length-prefixed frames written straight into one buffer. */
  private out: Uint8Array | null = null;
  private used = 0;
  /** Size of the last flushed batch: the next buffer starts about that big. */
  private lastFlush = 0;
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
    const view = encodeEnvelope(env);
    const need = 4 + view.length;
    if (this.used + need > MAX_QUEUED_BYTES) return 'overflow';
    this.reserve(need);
    const out = this.out!;
    const at = this.used;
    const len = view.length;
    out[at] = len >>> 24;
    out[at + 1] = (len >>> 16) & 0xff;
    out[at + 2] = (len >>> 8) & 0xff;
    out[at + 3] = len & 0xff;
    out.set(view, at + 4);
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

  /** Makes room for `need` more bytes, growing (by copy) when the batch outgrows its buffer. */
  private reserve(need: number): void {
    const out = this.out;
    if (out && this.used + need <= out.length) return;
    const size = Math.max(this.used + need, out ? out.length * 2 : Math.min(Math.max(this.lastFlush + (this.lastFlush >>> 2), 4096), 8 * 1024 * 1024));
    // not zero-filled: every byte the peer reads is written first (the view ends at `used`);
    // an ArrayBuffer of its own (not Node's pool), since it is transferred
    const next = Buffer.allocUnsafeSlow(size);
    if (out) next.set(out.subarray(0, this.used));
    this.out = next;
  }

  private flush(): void {
    this.scheduled = false;
    const out = this.out;
    if (this.closed || !out || this.used === 0) return;
    const batch = out.subarray(0, this.used);
    this.lastFlush = this.used;
    this.out = null;
    this.used = 0;
    // the whole ArrayBuffer moves to the peer (no copy); the view tells it where the frames end
    this.port.postMessage(batch, [batch.buffer as ArrayBuffer]);
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
    this.out = null;
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
