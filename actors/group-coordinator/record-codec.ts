/**
 * The binary writer and reader of the coordinators' records in Kafka's own schemas (group
 * coordinator: __consumer_offsets, offsets-store.ts; share coordinator: __share_group_state,
 * share-state-records.ts): big-endian integers, Uuids as 16 bytes (22 characters of unpadded
 * base64url in memory), and Kafka's two encodings of lengths:
 *
 *   classic    strings int16 length + UTF-8 (-1: null), bytes int32 length, arrays int32 count
 *   flexible   compact lengths (unsigned varint of n + 1, 0: null) and tagged fields after
 *              every struct (an unsigned varint count, then tag | size | bytes each)
 *
 * Each caller names the error thrown (its own class, so its messages and `instanceof` checks are
 * its own). Writers check every value against its type before writing it; readers refuse
 * truncation (naming the field), negative lengths, null where the schema allows none, invalid
 * UTF-8, int64 values outside the safe integer range, and arrays claiming more elements than
 * there are bytes left (every element of these schemas takes at least one byte). Bytes past the
 * schema are the caller's to refuse (`end`) or to ignore, as Kafka does for forward compatibility.
 */
import { readUnsignedVarint, writeUnsignedVarint } from '../../src/protocol/varint.js';

/** Makes the error a writer or reader throws. */
export type RecordErrorFactory = (message: string) => Error;

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });
const INT16_MAX = 0x7fff;

/** Writes one record's key or value; `flexible`: compact lengths and tagged fields. */
export class RecordWriter {
  private buf = Buffer.allocUnsafe(256);
  private pos = 0;

  constructor(
    private readonly error: RecordErrorFactory,
    private readonly flexible = false,
  ) {}

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private int(v: number, bits: 8 | 16 | 32, what: string): this {
    const lo = -(2 ** (bits - 1));
    const hi = 2 ** (bits - 1) - 1;
    if (!Number.isInteger(v) || v < lo || v > hi) throw this.error(`${what} must be an int${bits}, got ${v}`);
    this.ensure(bits / 8);
    if (bits === 8) this.pos = this.buf.writeInt8(v, this.pos);
    else if (bits === 16) this.pos = this.buf.writeInt16BE(v, this.pos);
    else this.pos = this.buf.writeInt32BE(v, this.pos);
    return this;
  }

  int8(v: number, what: string): this {
    return this.int(v, 8, what);
  }

  int16(v: number, what: string): this {
    return this.int(v, 16, what);
  }

  int32(v: number, what: string): this {
    return this.int(v, 32, what);
  }

  int64(v: number, what: string): this {
    if (!Number.isSafeInteger(v)) throw this.error(`${what} must be a safe integer, got ${v}`);
    this.ensure(8);
    this.pos = this.buf.writeBigInt64BE(BigInt(v), this.pos);
    return this;
  }

  /** A Kafka Uuid from its string form (22 characters of unpadded base64url). */
  uuid(v: string, what: string): this {
    const b = Buffer.from(v, 'base64url');
    if (b.length !== 16) throw this.error(`${what} is not a Kafka uuid: ${v}`);
    this.raw(b);
    return this;
  }

  private uvarint(v: number): void {
    this.ensure(5);
    this.pos = writeUnsignedVarint(this.buf, this.pos, v);
  }

  private length(n: number | null, what: string, classicWidth: 2 | 4): void {
    if (this.flexible) {
      this.uvarint(n === null ? 0 : n + 1);
      return;
    }
    if (classicWidth === 2) {
      if (n !== null && n > INT16_MAX) throw this.error(`${what} is ${n} bytes long, more than a Kafka string holds (${INT16_MAX})`);
      this.int16(n ?? -1, what);
    } else {
      this.int32(n ?? -1, what);
    }
  }

  /** A string, or null (classic: int16 length; flexible: compact). */
  string(s: string | null, what: string): this {
    if (s === null) {
      this.length(null, what, 2);
      return this;
    }
    const b = utf8.encode(s);
    this.length(b.length, what, 2);
    this.raw(b);
    return this;
  }

  /** Bytes (classic: int32 length; flexible: compact). */
  bytes(b: Uint8Array, what: string): this {
    this.length(b.length, what, 4);
    this.raw(b);
    return this;
  }

  /** An array's element count (classic: int32; flexible: compact); the elements follow. */
  arrayLength(n: number, what: string): this {
    this.length(n, what, 4);
    return this;
  }

  /** Flexible versions end every struct with its tagged fields: none written (classic: nothing). */
  taggedFields(): this {
    if (this.flexible) this.uvarint(0);
    return this;
  }

  /** A struct's tagged fields, each already encoded, in ascending tag order (flexible versions only). */
  taggedFieldsWith(fields: readonly { tag: number; bytes: Uint8Array }[]): this {
    this.uvarint(fields.length);
    for (const f of fields) {
      this.uvarint(f.tag);
      this.uvarint(f.bytes.length);
      this.raw(f.bytes);
    }
    return this;
  }

  private raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** The bytes written, in a copy of their own. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.pos);
    out.set(this.buf.subarray(0, this.pos));
    return out;
  }
}

/**
 * Reads one record's key or value, named `what` in its errors. `flexible` (compact lengths and
 * tagged fields) can be set once the version read says so.
 */
export class RecordReader {
  private pos = 0;
  private readonly view: DataView;

  constructor(
    private readonly buf: Uint8Array,
    private readonly what: string,
    private readonly error: RecordErrorFactory,
    public flexible = false,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private fail(message: string): Error {
    return this.error(`${this.what}: ${message}`);
  }

  /** Where the next n bytes start; they are then read past. */
  private take(n: number, field: string): number {
    if (this.pos + n > this.buf.length) throw this.fail(`truncated reading ${field} at byte ${this.pos} (length ${this.buf.length})`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  int8(field: string): number {
    return this.view.getInt8(this.take(1, field));
  }

  int16(field: string): number {
    return this.view.getInt16(this.take(2, field));
  }

  int32(field: string): number {
    return this.view.getInt32(this.take(4, field));
  }

  int64(field: string): number {
    const v = this.view.getBigInt64(this.take(8, field));
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw this.fail(`${field} ${v} is outside the safe integer range`);
    return Number(v);
  }

  /** A Kafka Uuid, in its string form. */
  uuid(field: string): string {
    return Buffer.from(this.slice(16, field)).toString('base64url');
  }

  private uvarint(field: string): number {
    const cur = { pos: this.pos, end: this.buf.length };
    try {
      const v = readUnsignedVarint(this.buf, cur, field);
      this.pos = cur.pos;
      return v;
    } catch (err) {
      throw this.fail((err as Error).message);
    }
  }

  /** A length, or null for the null marker. */
  private length(field: string, classicWidth: 2 | 4): number | null {
    if (this.flexible) {
      const n = this.uvarint(field);
      return n === 0 ? null : n - 1;
    }
    const n = classicWidth === 2 ? this.int16(field) : this.int32(field);
    if (n < -1) throw this.fail(`${field} has a negative length ${n}`);
    return n === -1 ? null : n;
  }

  private notNull<T>(v: T | null, field: string): T {
    if (v === null) throw this.fail(`${field} is null but the schema does not allow it`);
    return v;
  }

  /** The next n bytes, as a view into the input. */
  private slice(n: number, field: string): Uint8Array {
    const at = this.take(n, field);
    return this.buf.subarray(at, at + n);
  }

  nullableString(field: string): string | null {
    const n = this.length(field, 2);
    if (n === null) return null;
    const b = this.slice(n, field);
    try {
      return utf8Strict.decode(b);
    } catch {
      throw this.fail(`${field} is not UTF-8`);
    }
  }

  string(field: string): string {
    return this.notNull(this.nullableString(field), field);
  }

  bytes(field: string): Uint8Array {
    const n = this.notNull(this.length(field, 4), field);
    // copied: the input is a view into a fetched log range that does not outlive the replay
    return Uint8Array.from(this.slice(n, field));
  }

  /** A non-nullable array's element count. */
  arrayLength(field: string): number {
    const n = this.notNull(this.length(field, 4), field);
    // each element takes at least one byte: a count beyond what is left is a lie
    if (n > this.buf.length - this.pos) throw this.fail(`${field} claims ${n} elements with ${this.buf.length - this.pos} bytes left`);
    return n;
  }

  /**
   * A struct's tagged fields, tag -> its bytes (a view into the input), all read past; none in
   * classic versions. `field` names the struct in errors.
   */
  taggedFields(field?: string): Map<number, Uint8Array> {
    const out = new Map<number, Uint8Array>();
    if (!this.flexible) return out;
    const p = field === undefined ? '' : `${field} `;
    const count = this.uvarint(`${p}tagged field count`);
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint(`${p}tag`);
      const size = this.uvarint(`${p}tag ${tag} size`);
      out.set(tag, this.slice(size, `${p}tag ${tag}`));
    }
    return out;
  }

  /** Refuses bytes left over after the record. */
  end(): void {
    if (this.pos !== this.buf.length) throw this.fail(`${this.buf.length - this.pos} bytes left over after the record`);
  }
}
