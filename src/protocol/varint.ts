/**
 * Kafka's variable-length integers: zigzag varint (int32, up to 5 bytes), zigzag varlong (int64,
 * up to 10 bytes) and unsigned varint (uint32, up to 5 bytes), written and read in place on a
 * Uint8Array. Varlongs are JS numbers: every safe integer (|v| <= 2^53 - 1) encodes exactly, and
 * decoding an int64 outside that range throws rather than silently rounding.
 *
 * Writers take (buf, pos, value) and return the position after the value; the caller has sized
 * the buffer with sizeOfX. Readers take a ReadCursor { pos, end }, advance pos, and throw a
 * VarintError on truncation (running past `end`) or overflow.
 */

/** A read position and the exclusive limit readers must not cross. */
export interface ReadCursor {
  pos: number;
  end: number;
}

export type VarintErrorKind = 'truncated' | 'overflow' | 'range';

/** Thrown on a malformed or out-of-range variable-length integer. */
export class VarintError extends Error {
  override readonly name = 'VarintError';
  constructor(
    readonly kind: VarintErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export const INT32_MIN = -0x80000000;
export const INT32_MAX = 0x7fffffff;

// ---- zigzag varint (int32) ----

/** The zigzag encoding of v (an int32), as a uint32. */
export function zigzag32(v: number): number {
  return ((v << 1) ^ (v >> 31)) >>> 0;
}

/** Bytes needed for v as a zigzag varint. v must be an int32. */
export function sizeOfVarint(v: number): number {
  return sizeOfUnsignedVarint(zigzag32(v));
}

/** Writes v (an int32) as a zigzag varint at pos; returns the next position. */
export function writeVarint(buf: Uint8Array, pos: number, v: number): number {
  if (!(v >= INT32_MIN && v <= INT32_MAX) || v !== Math.trunc(v)) {
    throw new VarintError('range', `varint value ${v} is not an int32`);
  }
  return putUnsignedVarint(buf, pos, zigzag32(v));
}

/** Reads a zigzag varint (int32) at cursor.pos, advancing it. */
export function readVarint(buf: Uint8Array, cur: ReadCursor): number {
  // one byte (small deltas and lengths, null, no headers) is the common case: small enough to
  // be inlined into the record decoder's loop
  const pos = cur.pos;
  const b = buf[pos];
  if (b !== undefined && b < 0x80 && pos < cur.end) {
    cur.pos = pos + 1;
    return (b >>> 1) ^ -(b & 1);
  }
  // two bytes (a record's length and a value's up to 8 KiB): still without the general loop
  const b2 = buf[pos + 1];
  if (b !== undefined && b2 !== undefined && b2 < 0x80 && pos + 1 < cur.end) {
    cur.pos = pos + 2;
    const z = (b & 0x7f) | (b2 << 7);
    return (z >>> 1) ^ -(z & 1);
  }
  const z = readUnsignedVarint(buf, cur, 'varint');
  return (z >>> 1) ^ -(z & 1);
}

// ---- unsigned varint (uint32) ----

export function sizeOfUnsignedVarint(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

/** Writes v (a uint32) as an unsigned varint at pos; returns the next position. */
export function writeUnsignedVarint(buf: Uint8Array, pos: number, v: number): number {
  if (!(v >= 0 && v <= 0xffffffff) || v !== Math.trunc(v)) {
    throw new VarintError('range', `unsigned varint value ${v} is not a uint32`);
  }
  return putUnsignedVarint(buf, pos, v);
}

/**
 * writeUnsignedVarint without its check, for callers that know v is a uint32 (a zigzag32, a
 * length): small enough for TurboFan to inline into a hot loop, which the checked writers,
 * with their error paths, were not.
 */
export function putUnsignedVarint(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[pos] = v;
  return pos + 1;
}

/** Reads an unsigned varint (uint32) at cursor.pos, advancing it. */
export function readUnsignedVarint(buf: Uint8Array, cur: ReadCursor, what = 'unsigned varint'): number {
  const end = Math.min(cur.end, buf.length);
  let pos = cur.pos;
  let result = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (pos >= end) throw new VarintError('truncated', `${what} truncated at byte ${pos} (limit ${end})`);
    const b = buf[pos++]!;
    if (shift === 28 && b > 0x0f) {
      throw new VarintError('overflow', `${what} at byte ${cur.pos} overflows 32 bits`);
    }
    result |= (b & 0x7f) << shift;
    if (b < 0x80) {
      cur.pos = pos;
      return result >>> 0;
    }
  }
  throw new VarintError('overflow', `${what} at byte ${cur.pos} is longer than 5 bytes`);
}

// ---- zigzag varlong (int64 as a safe-integer number) ----
//
// zigzag(v) = 2m + s where s = (v < 0), m = s ? -v - 1 : v (so 0 <= m <= 2^53 - 1). Its low 7
// bits are ((m mod 64) << 1) | s and the rest is floor(m / 64) < 2^47: both exact in a double.

/** Bytes needed for v (a safe integer) as a zigzag varlong. */
export function sizeOfVarlong(v: number): number {
  if (v >= -0x8000000 && v < 0x8000000) return sizeOfVarint(v);
  const m = v < 0 ? -v - 1 : v;
  let rest = Math.floor(m / 64);
  let n = 1;
  while (rest > 0) {
    n++;
    rest = Math.floor(rest / 128);
  }
  return n;
}

/** Writes v (a safe integer) as a zigzag varlong at pos; returns the next position. */
export function writeVarlong(buf: Uint8Array, pos: number, v: number): number {
  if (v >= INT32_MIN && v <= INT32_MAX && (v | 0) === v) return writeVarint(buf, pos, v);
  if (!Number.isSafeInteger(v)) {
    throw new VarintError('range', `varlong value ${v} is not a safe integer`);
  }
  const s = v < 0 ? 1 : 0;
  const m = s ? -v - 1 : v;
  let rest = Math.floor(m / 64);
  let b = ((m % 64) << 1) | s;
  while (rest > 0) {
    buf[pos++] = b | 0x80;
    b = rest % 128;
    rest = Math.floor(rest / 128);
  }
  buf[pos++] = b;
  return pos;
}

/**
 * Reads a zigzag varlong at cursor.pos, advancing it. Throws VarintError('overflow') for more
 * than 10 bytes or bits beyond 64, and VarintError('range') for an int64 outside +-(2^53 - 1).
 */
export function readVarlong(buf: Uint8Array, cur: ReadCursor): number {
  // one byte: the common case, inlined where it is read (readVarint's fast path)
  const pos = cur.pos;
  const b = buf[pos];
  if (b !== undefined && b < 0x80 && pos < cur.end) {
    cur.pos = pos + 1;
    return (b >>> 1) ^ -(b & 1);
  }
  return readLongerVarlong(buf, cur);
}

function readLongerVarlong(buf: Uint8Array, cur: ReadCursor): number {
  const end = Math.min(cur.end, buf.length);
  let pos = cur.pos;
  // Fast path: up to 4 bytes (28 bits of zigzag) fit int32 arithmetic.
  let z = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw new VarintError('truncated', `varlong truncated at byte ${pos} (limit ${end})`);
    const b = buf[pos++]!;
    z |= (b & 0x7f) << shift;
    if (b < 0x80) {
      cur.pos = pos;
      return (z >>> 1) ^ -(z & 1);
    }
  }
  // Slow path: z so far holds 28 bits; continue as a double, keeping low/high exact.
  const low28 = z;
  let high = 0; // bits 28.. of the zigzag value
  let scale = 1;
  for (let i = 4; i < 10; i++) {
    if (pos >= end) throw new VarintError('truncated', `varlong truncated at byte ${pos} (limit ${end})`);
    const b = buf[pos++]!;
    if (i === 9 && b > 0x01) {
      throw new VarintError('overflow', `varlong at byte ${cur.pos} overflows 64 bits`);
    }
    high += (b & 0x7f) * scale;
    scale *= 128;
    if (b < 0x80) {
      // zigzag = high * 2^28 + low28; m = floor(zigzag / 2), s = zigzag & 1.
      const s = low28 & 1;
      const m = high * 0x8000000 + (low28 >>> 1);
      if (m > Number.MAX_SAFE_INTEGER - 1 + (s ? 0 : 1) || high >= 2 ** 26) {
        throw new VarintError('range', `varlong at byte ${cur.pos} is outside the safe integer range`);
      }
      cur.pos = pos;
      return s ? -m - 1 : m;
    }
  }
  throw new VarintError('overflow', `varlong at byte ${cur.pos} is longer than 10 bytes`);
}
