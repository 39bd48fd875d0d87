/**
 * Splits a byte stream into `uint32 length | body` frames. Complete frames inside a socket
 * chunk are returned as views of that chunk (never reused by Node); a frame split across chunks
 * is assembled in a buffer allocated for exactly that frame. So every frame body owns or
 * shares only memory nobody writes to again, and msgpack's zero-copy bins stay valid.
 */

export class FrameTooLargeError extends Error {}

export class FrameDecoder {
  private header = Buffer.alloc(4);
  private headerFill = 0;
  private body: Buffer | null = null;
  private bodyFill = 0;

  constructor(private readonly maxFrameBytes: number) {}

  /** Feeds a chunk; calls `onFrame` for every complete frame. Throws FrameTooLargeError. */
  push(chunk: Buffer, onFrame: (body: Buffer) => void): void {
    let pos = 0;
    const n = chunk.length;
    while (pos < n) {
      if (this.body === null) {
        // fast path: a whole frame inside this chunk, no partial header pending
        if (this.headerFill === 0 && n - pos >= 4) {
          const len = chunk.readUInt32BE(pos);
          this.checkLength(len);
          if (n - pos - 4 >= len) {
            onFrame(chunk.subarray(pos + 4, pos + 4 + len));
            pos += 4 + len;
            continue;
          }
          this.startBody(len);
          pos += 4;
          continue;
        }
        const take = Math.min(4 - this.headerFill, n - pos);
        chunk.copy(this.header, this.headerFill, pos, pos + take);
        this.headerFill += take;
        pos += take;
        if (this.headerFill === 4) {
          const len = this.header.readUInt32BE(0);
          this.checkLength(len);
          this.headerFill = 0;
          this.startBody(len);
          if (len === 0) this.emitBody(onFrame);
        }
        continue;
      }
      const take = Math.min(this.body.length - this.bodyFill, n - pos);
      chunk.copy(this.body, this.bodyFill, pos, pos + take);
      this.bodyFill += take;
      pos += take;
      if (this.bodyFill === this.body.length) this.emitBody(onFrame);
    }
  }

  /** Bytes of an incomplete frame held back. */
  pendingBytes(): number {
    return this.headerFill + this.bodyFill;
  }

  private checkLength(len: number): void {
    if (len > this.maxFrameBytes) {
      throw new FrameTooLargeError(`frame of ${len} bytes exceeds the maximum of ${this.maxFrameBytes}`);
    }
  }

  private startBody(len: number): void {
    this.body = Buffer.allocUnsafe(len);
    this.bodyFill = 0;
  }

  private emitBody(onFrame: (body: Buffer) => void): void {
    const body = this.body!;
    this.body = null;
    this.bodyFill = 0;
    onFrame(body);
  }
}
