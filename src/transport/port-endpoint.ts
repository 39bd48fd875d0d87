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
  private queue: Uint8Array[] = [];
  private queuedBytes = 0;
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
    if (this.queuedBytes + view.length > MAX_QUEUED_BYTES) return 'overflow';
    // the view aliases the codec's scratch buffer: copy it with its length prefix now
    const frame = new Uint8Array(4 + view.length);
    new DataView(frame.buffer).setUint32(0, view.length);
    frame.set(view, 4);
    this.queue.push(frame);
    this.queuedBytes += frame.length;
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
    return null;
  }

  bufferedBytes(): number {
    return this.queuedBytes;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.closed || this.queue.length === 0) return;
    const frames = this.queue;
    this.queue = [];
    let out: Uint8Array;
    if (frames.length === 1) out = frames[0]!;
    else {
      out = new Uint8Array(this.queuedBytes);
      let pos = 0;
      for (const f of frames) {
        out.set(f, pos);
        pos += f.length;
      }
    }
    this.queuedBytes = 0;
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
    this.queue = [];
    this.queuedBytes = 0;
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
