/**
 * An endpoint over a MessagePort (worker_threads). Envelopes are packed with msgpack and
 * batched: everything sent in one synchronous run is flushed as one posted buffer of
 * length-prefixed frames, whose ArrayBuffer is transferred (not cloned) to the peer.
 * The receiving side decodes each frame as a view into that transferred buffer, which is
 * never reused, so binary payloads stay valid as long as they are referenced.
 *
 * The posted buffer is allocated at flush time, exactly as big as the batch: until then the
 * batch is the list of packed frames (views msgpack never writes over). A buffer guessed in
 * advance and grown by doubling allocated ~1.7x the bytes sent, and every transferred byte
 * counts as external memory on both threads: V8 runs a full mark-compact per few tens of MB
 * of it, so the slack cost each broker a full GC every ~80 ms under replication.
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
  /** The outgoing batch: packed frames, copied into one exact-size buffer at flush. */
  private frames: Uint8Array[] = [];
  /** Bytes the batch will take: each frame and its 4-byte length prefix. */
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
    const view = encodeEnvelope(env);
    const need = 4 + view.length;
    if (this.used + need > MAX_QUEUED_BYTES) return 'overflow';
    this.frames.push(view);
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
    const frames = this.frames;
    // not zero-filled: every byte is written below; an ArrayBuffer of its own (not Node's
    // pool), since it is transferred
    const out = Buffer.allocUnsafeSlow(this.used);
    let at = 0;
    for (let i = 0; i < frames.length; i++) {
      const f = frames[i]!;
      const len = f.length;
      out[at] = len >>> 24;
      out[at + 1] = (len >>> 16) & 0xff;
      out[at + 2] = (len >>> 8) & 0xff;
      out[at + 3] = len & 0xff;
      out.set(f, at + 4);
      at += 4 + len;
    }
    this.frames = [];
    this.used = 0;
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
    this.frames = [];
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
