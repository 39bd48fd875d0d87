/**
 * A growable big-endian writer for Kafka wire primitives. The buffer doubles (or grows to fit a
 * large bytes/records value in one step); `finish()` returns a view of what was written. Values
 * out of range for their type are rejected (KafkaCodecError 'invalid', or Node's RangeError,
 * which the codec turns into 'invalid').
 */
import { invalid } from './errors.js';

const TWO_POW_32 = 4294967296;
const TWO_POW_63 = 2 ** 63;
const INT64_MAX = 2n ** 63n - 1n;

export class Writer {
  buf: Buffer;
  pos = 0;

  constructor(capacity = 256) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private grow(n: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n + 64));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  ensure(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  /** The bytes written so far (a view of the internal buffer). */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  int8(v: number): void {
    this.ensure(1);
    this.buf.writeInt8(v, this.pos);
    this.pos += 1;
  }

  bool(v: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  int16(v: number): void {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
  }

  uint16(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.pos);
    this.pos += 2;
  }

  int32(v: number): void {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
  }

  uint32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(v, this.pos);
    this.pos += 4;
  }

  /**
   * A safe integer exactly; anything else must be an integer within int64 (or a bigint). The
   * number 2^63 is written as int64's maximum: it is what the Reader gives for that maximum (the
   * nearest double), so every int64 a request carried can be written back in a response.
   */
  int64(v: number | bigint): void {
    this.ensure(8);
    if (typeof v === 'number' && Number.isSafeInteger(v)) {
      const hi = Math.floor(v / TWO_POW_32);
      this.buf.writeInt32BE(hi, this.pos);
      this.buf.writeUInt32BE(v - hi * TWO_POW_32, this.pos + 4);
    } else {
      if (typeof v === 'number' && !Number.isInteger(v)) throw invalid(`int64 value ${v} is not an integer`);
      this.buf.writeBigInt64BE(v === TWO_POW_63 ? INT64_MAX : BigInt(v), this.pos);
    }
    this.pos += 8;
  }

  float64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
  }

  /** Kafka's Uuid string form (22 characters of unpadded base64url) to its 16 bytes. */
  uuid(v: string): void {
    // 22 characters carry 132 bits: the last one must leave the 4 spare bits zero (A, Q, g or w).
    if (typeof v !== 'string' || !/^[A-Za-z0-9_-]{21}[AQgw]$/.test(v)) {
      throw invalid(`not a uuid: ${String(v)}`);
    }
    this.ensure(16);
    const n = this.buf.write(v, this.pos, 16, 'base64url');
    if (n !== 16) throw invalid(`not a uuid: ${v}`);
    this.pos += 16;
  }

  uvarint(v: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while ((v & ~0x7f) !== 0) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  varint(v: number): void {
    this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  raw(src: Uint8Array): void {
    this.ensure(src.length);
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }

  // ---- strings ------------------------------------------------------------------------------

  private text(s: string, len: number): void {
    this.ensure(len);
    this.buf.write(s, this.pos, len, 'utf8');
    this.pos += len;
  }

  private static byteLength(s: unknown): number {
    if (typeof s !== 'string') throw invalid(`not a string: ${typeof s}`);
    return Buffer.byteLength(s, 'utf8');
  }

  nullableString(s: string | null): void {
    if (s === null) return this.int16(-1);
    const len = Writer.byteLength(s);
    if (len > 0x7fff) throw invalid(`string of ${len} bytes is too long for an int16 length`);
    this.int16(len);
    this.text(s, len);
  }

  string(s: string): void {
    if (s === null) throw invalid('null for a non-nullable string');
    this.nullableString(s);
  }

  compactNullableString(s: string | null): void {
    if (s === null) return this.uvarint(0);
    const len = Writer.byteLength(s);
    this.uvarint(len + 1);
    this.text(s, len);
  }

  compactString(s: string): void {
    if (s === null) throw invalid('null for a non-nullable compact string');
    this.compactNullableString(s);
  }

  // ---- bytes --------------------------------------------------------------------------------

  private static checkBytes(b: unknown): Uint8Array {
    if (!(b instanceof Uint8Array)) throw invalid(`not a Buffer: ${typeof b}`);
    return b;
  }

  nullableBytes(b: Uint8Array | null): void {
    if (b === null) return this.int32(-1);
    this.int32(Writer.checkBytes(b).length);
    this.raw(b);
  }

  bytes(b: Uint8Array): void {
    if (b === null) throw invalid('null for non-nullable bytes');
    this.nullableBytes(b);
  }

  compactNullableBytes(b: Uint8Array | null): void {
    if (b === null) return this.uvarint(0);
    this.uvarint(Writer.checkBytes(b).length + 1);
    this.raw(b);
  }

  compactBytes(b: Uint8Array): void {
    if (b === null) throw invalid('null for non-nullable compact bytes');
    this.compactNullableBytes(b);
  }

  // ---- array lengths ------------------------------------------------------------------------

  arrayLength(n: number): void {
    this.int32(n);
  }

  compactArrayLength(n: number): void {
    this.uvarint(n + 1);
  }
}
