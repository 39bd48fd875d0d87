/**
 * A partition's record batches as a list of buffers (how the producer hands them over, one per
 * batch) and what a log appends of them. The producer does not join them itself. Where they lie
 * side by side in one buffer (attached after a frame body on a worker port or a TCP connection)
 * they are joined without copying a byte; where they lie apart (in-process delivery, where each
 * is the producer's pooled buffer; batches under 4 KiB over TCP) the log takes the list and
 * writes it with one gathering write (`entryBatches`).
 */

/** True when `parts` is a list of byte buffers (and so something `joinBatches` takes). */
export function isBatchList(parts: unknown): parts is readonly Uint8Array[] {
  if (!Array.isArray(parts) || parts.length === 0) return false;
  for (const p of parts) if (!(p instanceof Uint8Array)) return false;
  return true;
}

/** True when every buffer of `parts` starts in the same memory right where the one before ends. */
function sideBySide(parts: readonly Uint8Array[]): boolean {
  const first = parts[0]!;
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    const prev = parts[i - 1]!;
    if (p.buffer !== first.buffer || p.byteOffset !== prev.byteOffset + prev.byteLength) return false;
  }
  return true;
}

/** One Buffer holding `parts` back to back: a view when they lie side by side in one buffer, else a copy. */
export function joinBatches(parts: readonly Uint8Array[]): Buffer {
  if (parts.length === 0) return Buffer.alloc(0);
  let total = 0;
  for (const p of parts) total += p.byteLength;
  if (sideBySide(parts)) return Buffer.from(parts[0]!.buffer, parts[0]!.byteOffset, total);
  return Buffer.concat(parts as Uint8Array[], total);
}

/**
 * A Produce entry's records as one buffer: a list of byte buffers joined, anything else as it
 * is (a list holding something other than bytes goes on for the replica to refuse by name).
 */
export function entryRecords(records: Uint8Array | readonly Uint8Array[]): Uint8Array {
  return isBatchList(records) ? joinBatches(records) : (records as Uint8Array);
}

/**
 * A Produce entry's records as the log takes them: one buffer when there is one or they lie side
 * by side, else the list as it is (no copy). Anything else is returned as it is, for the replica
 * to refuse by name.
 */
export function entryBatches(records: Uint8Array | readonly Uint8Array[]): Uint8Array | readonly Uint8Array[] {
  if (!isBatchList(records)) return records;
  if (records.length === 1) return records[0]!;
  return sideBySide(records) ? joinBatches(records) : records;
}
