/**
 * Bounds-checked reading of Kafka wire primitives from a Buffer. Every read checks the bytes it
 * needs against `end` first and throws KafkaCodecError 'truncated' when they are not there, or
 * 'invalid' for a length or varint that cannot be right. Strings are UTF-8; bytes and records
 * come back as views (subarray) of the input, never copies. int64 reads as a JS number: exact
 * up to 2^53, the nearest double beyond (the same value Number(bigint) gives).
 */
import { invalid, truncated } from './errors.js';

const TWO_POW_32 = 4294967296;

export class Reader {
  pos: number;
  end: number;

  constructor(
    readonly buf: Buffer,
    pos = 0,
    end = buf.length,
  ) {
    this.pos = pos;
    this.end = end;
  }

  remaining(): number {
    return this.end - this.pos;
  }

  need(n: number): void {
    if (this.end - this.pos < n) throw truncated(n, this.pos, this.end - this.pos);
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }

  bool(): boolean {
    this.need(1);
    return this.buf[this.pos++] !== 0;
  }

  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  uint16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  int64(): number {
    this.need(8);
    const hi = this.buf.readInt32BE(this.pos);
    const lo = this.buf.readUInt32BE(this.pos + 4);
    this.pos += 8;
    return hi * TWO_POW_32 + lo;
  }

  float64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }

  /** 16 bytes, as Kafka prints a Uuid: unpadded base64url (22 characters). */
  uuid(): string {
    this.need(16);
    const s = this.buf.toString('base64url', this.pos, this.pos + 16);
    this.pos += 16;
    return s;
  }

  /** Unsigned varint of at most 32 bits (at most 5 bytes). */
  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= this.end) throw truncated(1, this.pos, 0);
      const b = this.buf[this.pos++]!;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        if (shift === 28 && b > 0x0f) throw invalid(`unsigned varint over 32 bits at offset ${this.pos - 1}`);
        return value >>> 0;
      }
    }
    throw invalid(`unsigned varint longer than 5 bytes at offset ${this.pos - 1}`);
  }

  /** Zigzag-encoded signed 32-bit varint. */
  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  /** Skips a tagged-field section (a count, then tag, size and data per field). */
  skipTaggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.skip(this.uvarint());
    }
  }

  // ---- strings --------------------------------------------------------------------------

  private text(len: number): string {
    this.need(len);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  /** int16 length, -1 for null. */
  nullableString(): string | null {
    const at = this.pos;
    const len = this.int16();
    if (len < 0) {
      if (len === -1) return null;
      throw invalid(`negative string length ${len} at offset ${at}`);
    }
    return this.text(len);
  }

  string(): string {
    const s = this.nullableString();
    if (s === null) throw invalid(`null for a non-nullable string at offset ${this.pos - 2}`);
    return s;
  }

  /** uvarint length + 1, 0 for null. */
  compactNullableString(): string | null {
    const n = this.uvarint();
    return n === 0 ? null : this.text(n - 1);
  }

  compactString(): string {
    const at = this.pos;
    const s = this.compactNullableString();
    if (s === null) throw invalid(`null for a non-nullable compact string at offset ${at}`);
    return s;
  }

  // ---- bytes (views) ----------------------------------------------------------------------

  private view(len: number): Buffer {
    this.need(len);
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }

  /** int32 length, -1 for null. */
  nullableBytes(): Buffer | null {
    const at = this.pos;
    const len = this.int32();
    if (len < 0) {
      if (len === -1) return null;
      throw invalid(`negative bytes length ${len} at offset ${at}`);
    }
    return this.view(len);
  }

  bytes(): Buffer {
    const b = this.nullableBytes();
    if (b === null) throw invalid(`null for non-nullable bytes at offset ${this.pos - 4}`);
    return b;
  }

  compactNullableBytes(): Buffer | null {
    const n = this.uvarint();
    return n === 0 ? null : this.view(n - 1);
  }

  compactBytes(): Buffer {
    const at = this.pos;
    const b = this.compactNullableBytes();
    if (b === null) throw invalid(`null for non-nullable compact bytes at offset ${at}`);
    return b;
  }

  // ---- array lengths ------------------------------------------------------------------------

  /** int32 count, -1 for null (returned as -1). A count beyond the bytes left is 'truncated'. */
  arrayLength(nullable: boolean): number {
    const at = this.pos;
    const n = this.int32();
    if (n < 0) {
      if (n === -1 && nullable) return -1;
      throw invalid(`${n === -1 ? 'null for a non-nullable' : 'negative'} array length ${n} at offset ${at}`);
    }
    if (n > this.end - this.pos) throw truncated(n, this.pos, this.end - this.pos);
    return n;
  }

  /** uvarint count + 1, 0 for null (returned as -1). */
  compactArrayLength(nullable: boolean): number {
    const at = this.pos;
    const n = this.uvarint() - 1;
    if (n < 0) {
      if (nullable) return -1;
      throw invalid(`null for a non-nullable compact array at offset ${at}`);
    }
    if (n > this.end - this.pos) throw truncated(n, this.pos, this.end - this.pos);
    return n;
  }
}
