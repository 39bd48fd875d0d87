/**
 * Kafka's murmur2 hash, bit-for-bit the Java client's `Utils.murmur2` (MurmurHash2, 32-bit,
 * seed 0x9747b28c), which the default partitioner applies to a record's key bytes. Arithmetic is
 * done in 32-bit integers (Math.imul for the multiplications, `>>>` for Java's unsigned shifts),
 * and the result is a signed 32-bit integer, as Java returns it.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** The murmur2 hash of `data` as a signed 32-bit integer (Java's `int`). */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const whole = length - (length % 4);

  for (let i = 0; i < whole; i += 4) {
    // Little-endian 32-bit word.
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }

  // The 1 to 3 trailing bytes (Java's fall-through switch).
  const rest = length % 4;
  if (rest === 3) h ^= data[whole + 2]! << 16;
  if (rest >= 2) h ^= data[whole + 1]! << 8;
  if (rest >= 1) {
    h ^= data[whole]!;
    h = Math.imul(h, M);
  }

  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * Kafka's `Utils.toPositive`: clears the sign bit. Not the absolute value (-1 maps to
 * 2147483647), but cheap and never negative, including for -2^31.
 */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}
