/**
 * A Zstandard writer (RFC 8878) for RecordBatch codec 4: one frame, single segment with its
 * content size, no checksum (as Kafka's clients write zstd by default). Each block of up to
 * 128 KiB is an RLE block when it is one byte repeated, else a compressed block when that is
 * smaller, else a raw block. A compressed block holds the matches a greedy hash-table search
 * finds (offsets reach back to the start of the frame; the last distance is tried first and coded
 * as a repeat offset), coded with FSE tables fitted to the block's codes or zstd's predefined
 * ones, whichever costs less, and its literals Huffman-coded (one stream, or four past 1 KiB;
 * stored as they are when that does not pay, or when a literal byte above 128 would need the
 * weights FSE-coded).
 *
 * Levels, as Kafka's compression.zstd.level (KIP-390, -131072 to 22, default 3; 0 is the default
 * too, as in zstd): 1-3 take one greedy probe per position (a ratio between lz4's and `zstd -1`'s);
 * a negative level skips ahead faster through data that does not match (a shorter search for a
 * larger output, down to -63's and beyond); 4-22 search a hash chain of every earlier position for
 * the longest match (2 candidates at 4, doubling every second level to 1,024 at 20-22) and, from
 * 8, look one position ahead for a longer match before taking one (lazy matching). The levels
 * trade time for size as zstd's do; the sizes are this writer's, not the zstd tool's at the same
 * level. Any Zstandard reader decodes every level.
 */
import { highBit, matchBefore, matchEnd, read32le as read32 } from './byte-runs.js';
import { LL_BASE, LL_BITS, LL_LOG, LL_NORM, ML_BASE, ML_BITS, ML_LOG, ML_NORM, OF_LOG, OF_NORM, spreadSymbols } from './zstd.js';

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const BLOCK_MAX = 128 * 1024;
const MIN_MATCH = 4;
/** Shortest match at a new distance (a repeat of the last distance may be as short as MIN_MATCH). */
const MIN_NEW_MATCH = 5;
const HASH_LOG = 15;
/** Kafka's range and default of compression.zstd.level. */
export const ZSTD_MIN_LEVEL = -131072;
export const ZSTD_MAX_LEVEL = 22;
export const ZSTD_DEFAULT_LEVEL = 3;

/** How a level searches: chain candidates per position (1: the single probe), lazy matching, and skipping acceleration. */
interface Search {
  depth: number;
  lazy: boolean;
  /** Misses multiply the skip by this much more (0 at levels 1-3). */
  accel: number;
}

export function zstdSearch(level: number): Search {
  const l = level === 0 ? ZSTD_DEFAULT_LEVEL : level;
  if (l < 0) return { depth: 1, lazy: false, accel: Math.min(-l, 63) };
  if (l <= 3) return { depth: 1, lazy: false, accel: 0 };
  return { depth: 1 << Math.min(10, (l - 2) >> 1), lazy: l >= 8, accel: 0 };
}

// ---- FSE encoding tables for the predefined distributions ----

interface FseEncoder {
  log: number;
  /** Next state by (state >> nbBitsOut) + deltaFindState. */
  stateTable: Uint16Array;
  deltaNbBits: Int32Array;
  deltaFindState: Int32Array;
}

function buildEncoder(norm: readonly number[], log: number): FseEncoder {
  const size = 1 << log;
  const symbol = spreadSymbols(norm, log);
  const cumul = new Array<number>(norm.length + 1).fill(0);
  for (let s = 0; s < norm.length; s++) cumul[s + 1] = cumul[s]! + (norm[s] === -1 ? 1 : norm[s]!);
  const stateTable = new Uint16Array(size);
  const at = cumul.slice();
  for (let u = 0; u < size; u++) stateTable[at[symbol[u]!]!++] = size + u;
  const deltaNbBits = new Int32Array(norm.length);
  const deltaFindState = new Int32Array(norm.length);
  let total = 0;
  for (let s = 0; s < norm.length; s++) {
    const n = norm[s]!;
    if (n === 0) continue;
    if (n === -1 || n === 1) {
      deltaNbBits[s] = (log << 16) - size;
      deltaFindState[s] = total - 1;
      total++;
    } else {
      const maxBitsOut = log - highBit(n - 1);
      const minStatePlus = n << maxBitsOut;
      deltaNbBits[s] = (maxBitsOut << 16) - minStatePlus;
      deltaFindState[s] = total - n;
      total += n;
    }
  }
  return { log, stateTable, deltaNbBits, deltaFindState };
}

interface Predefined {
  enc: FseEncoder;
  norm: readonly number[];
}

const LL_PREDEFINED: Predefined = { enc: buildEncoder(LL_NORM, LL_LOG), norm: LL_NORM };
const ML_PREDEFINED: Predefined = { enc: buildEncoder(ML_NORM, ML_LOG), norm: ML_NORM };
const OF_PREDEFINED: Predefined = { enc: buildEncoder(OF_NORM, OF_LOG), norm: OF_NORM };

/** Estimated bits to code `counts` with a distribution normalized to 2^log (-1 counts as 1). */
function costBits(counts: Uint32Array, norm: readonly number[], log: number): number {
  let bits = 0;
  for (let s = 0; s < counts.length; s++) {
    const c = counts[s]!;
    if (c === 0) continue;
    const n = norm[s] ?? 0;
    if (n === 0) return Infinity;
    bits += c * (log - Math.log2(n < 0 ? 1 : n));
  }
  return bits;
}

/**
 * `counts` normalized to sum to 2^log with every used symbol at least 1 (no "less than 1"
 * probabilities); null when there are more used symbols than states.
 */
function normalize(counts: Uint32Array, total: number, log: number): number[] | null {
  const size = 1 << log;
  let last = counts.length - 1;
  while (last > 0 && counts[last] === 0) last--;
  const norm = new Array<number>(last + 1).fill(0);
  let sum = 0;
  let used = 0;
  for (let s = 0; s <= last; s++) {
    if (counts[s] === 0) continue;
    norm[s] = Math.max(1, Math.round((counts[s]! * size) / total));
    sum += norm[s]!;
    used++;
  }
  if (used > size) return null;
  // settle the rounding on the largest entries, never taking one below 1
  while (sum !== size) {
    let best = -1;
    for (let s = 0; s <= last; s++) if (norm[s]! > (sum > size ? 1 : 0) && (best < 0 || norm[s]! > norm[best]!)) best = s;
    const step = sum > size ? -Math.min(sum - size, norm[best]! - 1) : size - sum;
    norm[best]! += step;
    sum += step;
  }
  return norm;
}

/** Writes an FSE table description (the reader's readFse, backwards) at `op`; returns its end. */
function writeNorm(norm: readonly number[], log: number, out: Uint8Array, op: number): number {
  const w = new BitWriter(out, op);
  w.add(log - 5, 4);
  let remaining = (1 << log) + 1;
  let threshold = 1 << log;
  let bits = log + 1;
  let s = 0;
  while (remaining > 1) {
    const count = norm[s]!;
    const max = 2 * threshold - 1 - remaining;
    remaining -= count < 0 ? -count : count;
    let value = count + 1;
    if (value >= threshold) value += max;
    w.add(value, value < max ? bits - 1 : bits);
    s++;
    if (count === 0) {
      // a run of further zeros: 2-bit counts, 3 meaning "3 more, and go on"
      let zeros = 0;
      while (s + zeros < norm.length && norm[s + zeros] === 0) zeros++;
      s += zeros;
      while (zeros >= 3) {
        w.add(3, 2);
        zeros -= 3;
      }
      w.add(zeros, 2);
    }
    while (remaining < threshold) {
      bits--;
      threshold >>= 1;
    }
  }
  return w.flushBytes();
}

/**
 * The table for one kind of code: mode 0 (predefined) or 2 (described at `op`, fitted to the
 * block), whichever costs fewer bits with its description; the encoder and where the next
 * description goes.
 */
function chooseTable(codes: Uint8Array, pre: Predefined, maxSymbol: number, maxLog: number, out: Uint8Array, op: number): { mode: number; enc: FseEncoder; next: number } {
  const counts = new Uint32Array(maxSymbol + 1);
  for (let i = 0; i < codes.length; i++) counts[codes[i]!]!++;
  const predefinedBits = costBits(counts, pre.norm, pre.enc.log);
  const log = Math.max(5, Math.min(maxLog, highBit(codes.length) - 1));
  const norm = codes.length >= 16 ? normalize(counts, codes.length, log) : null;
  if (norm !== null) {
    const end = writeNorm(norm, log, out, op);
    if (costBits(counts, norm, log) + (end - op) * 8 < predefinedBits) return { mode: 2, enc: buildEncoder(norm, log), next: end };
  }
  return { mode: 0, enc: pre.enc, next: op };
}

/** A forward little-endian bit writer; the reader takes it from its end. */
class BitWriter {
  private acc = 0;
  private n = 0;
  constructor(
    readonly out: Uint8Array,
    public pos: number,
  ) {}
  add(value: number, bits: number): void {
    // at most 16 bits at a time keeps acc below 2^24 + 2^16: exact in 32-bit arithmetic
    while (bits > 16) {
      this.add(value & 0xffff, 16);
      value = Math.floor(value / 65536);
      bits -= 16;
    }
    this.acc |= (value & ((1 << bits) - 1)) << this.n;
    this.n += bits;
    while (this.n >= 8) {
      this.out[this.pos++] = this.acc & 0xff;
      this.acc >>>= 8;
      this.n -= 8;
    }
  }
  /** Pads with zeros to a byte; returns the end. */
  flushBytes(): number {
    if (this.n > 0) {
      this.out[this.pos++] = this.acc & 0xff;
      this.acc = 0;
      this.n = 0;
    }
    return this.pos;
  }
  /** Writes the end mark (one 1 bit) and pads to a byte. */
  close(): number {
    this.add(1, 1);
    return this.flushBytes();
  }
}

function initState(e: FseEncoder, sym: number): number {
  const nbBitsOut = (e.deltaNbBits[sym]! + (1 << 15)) >> 16;
  const value = (nbBitsOut << 16) - e.deltaNbBits[sym]!;
  return e.stateTable[(value >> nbBitsOut) + e.deltaFindState[sym]!]!;
}

function encodeSymbol(w: BitWriter, e: FseEncoder, state: number, sym: number): number {
  const nbBitsOut = (state + e.deltaNbBits[sym]!) >> 16;
  w.add(state, nbBitsOut);
  return e.stateTable[(state >> nbBitsOut) + e.deltaFindState[sym]!]!;
}

/** Codes of the small literal and match lengths, looked up instead of searched. */
const LL_CODE = Uint8Array.from({ length: 64 }, (_, v) => searchCode(LL_BASE, v));
const ML_CODE = Uint8Array.from({ length: 128 }, (_, v) => (v < 3 ? 0 : searchCode(ML_BASE, v)));

function llCode(v: number): number {
  return v < 64 ? LL_CODE[v]! : searchCode(LL_BASE, v);
}

function mlCode(v: number): number {
  return v < 128 ? ML_CODE[v]! : searchCode(ML_BASE, v);
}

function searchCode(base: readonly number[], v: number): number {
  let lo = 0;
  let hi = base.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (base[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// ---- blocks ----

interface Sequences {
  count: number;
  lit: Int32Array;
  match: Int32Array;
  offset: Int32Array;
  /** Literal bytes, in order. */
  literals: Uint8Array;
  literalCount: number;
}

const table = new Int32Array(1 << HASH_LOG);
/** A compressed block is written here first, then kept only when it is smaller than the raw block (a sequence costs at most ~10 bytes for 4 of input, so 3x never overflows). */
const scratch = new Uint8Array(3 * BLOCK_MAX + 64);

function hash4(v: number): number {
  return Math.imul(v, 0x9e3779b1) >>> (32 - HASH_LOG);
}

/**
 * Greedy matches in src[start, end); earlier positions of the frame may be referred to. At each
 * position the distance of the previous match is tried first (rows of similar records repeat at
 * one distance, and the writer codes that distance as a cheap repeat offset), then the hash table.
 */
function findSequences(src: Uint8Array, start: number, end: number, lastOffset: number, accel: number): Sequences {
  const seq = newSequences(end - start);
  const skipShift = 6;
  const accelerate = accel + 1;
  let anchor = start;
  let ip = start;
  const limit = end - MIN_MATCH;
  let misses = 0;
  while (ip <= limit) {
    const v = read32(src, ip);
    const h = hash4(v);
    let ref = table[h]! - 1;
    table[h] = ip + 1;
    const rep = ip - lastOffset;
    let repeat = false;
    if (ip > anchor && rep >= 0 && read32(src, rep) === v) {
      ref = rep;
      repeat = true;
    } else if (ref < 0 || read32(src, ref) !== v) {
      ip += 1 + ((misses++ * accelerate) >> skipShift);
      continue;
    }
    const back = matchBefore(src, ip, ref, anchor, 0);
    const mStart = ip - back;
    const rStart = ref - back;
    const mEnd = matchEnd(src, ip, ref, MIN_MATCH, end);
    // a new distance costs a whole sequence: not worth it for 4 bytes Huffman codes well (5
    // measured best on JSON-like records: 4 and 6 gave 9% and 5% larger batches)
    if (!repeat && mEnd - mStart < MIN_NEW_MATCH) {
      ip += 1 + ((misses++ * accelerate) >> skipShift);
      continue;
    }
    misses = 0;
    addSequence(seq, src, anchor, mStart, mStart - rStart, mEnd);
    lastOffset = mStart - rStart;
    anchor = ip = mEnd;
    if (ip - 2 > start && ip - 2 <= limit) table[hash4(read32(src, ip - 2))] = ip - 2 + 1;
  }
  return closeSequences(seq, src, anchor, end);
}

function newSequences(n: number): Sequences {
  const maxSeq = (n >> 2) + 1;
  return { count: 0, lit: new Int32Array(maxSeq), match: new Int32Array(maxSeq), offset: new Int32Array(maxSeq), literals: new Uint8Array(n), literalCount: 0 };
}

/** The literals src[anchor, mStart), then a match of src[mStart, mEnd) `offset` back. */
function addSequence(seq: Sequences, src: Uint8Array, anchor: number, mStart: number, offset: number, mEnd: number): void {
  const litLen = mStart - anchor;
  const lits = seq.literals;
  const at = seq.literalCount;
  if (litLen < 32) for (let k = 0; k < litLen; k++) lits[at + k] = src[anchor + k]!;
  else lits.set(src.subarray(anchor, mStart), at);
  seq.literalCount += litLen;
  seq.lit[seq.count] = litLen;
  seq.match[seq.count] = mEnd - mStart;
  seq.offset[seq.count] = offset;
  seq.count++;
}

/** The block's closing literals src[anchor, end). */
function closeSequences(seq: Sequences, src: Uint8Array, anchor: number, end: number): Sequences {
  seq.literals.set(src.subarray(anchor, end), seq.literalCount);
  seq.literalCount += end - anchor;
  return seq;
}

/** A frame's hash chain: every position's previous position of the same hash, plus one (0: none). */
interface Chain {
  prev: Int32Array;
  /** Positions before this one are in the chain. */
  indexed: number;
}

/** Adds every position before `upTo` (and within `limit`) to the chain. */
function indexUpTo(src: Uint8Array, chain: Chain, upTo: number, limit: number): void {
  const stop = Math.min(upTo, limit + 1);
  for (let p = chain.indexed; p < stop; p++) {
    const h = hash4(read32(src, p));
    chain.prev[p] = table[h]!;
    table[h] = p + 1;
  }
  if (stop > chain.indexed) chain.indexed = stop;
}

/** The end of the longest match at `ip` among `depth` chain candidates (and its start there), or bestEnd 0. */
function longestAt(src: Uint8Array, chain: Chain, ip: number, end: number, depth: number, limit: number): { end: number; ref: number } {
  indexUpTo(src, chain, ip, limit);
  const v = read32(src, ip);
  let ref = table[hash4(v)]! - 1;
  let bestEnd = 0;
  let bestRef = -1;
  for (let n = depth; ref >= 0 && n > 0; n--) {
    if (read32(src, ref) === v && (bestEnd === 0 || (bestEnd < end && src[ref + (bestEnd - ip)] === src[bestEnd]))) {
      const e = matchEnd(src, ip, ref, MIN_MATCH, end);
      if (e > bestEnd) {
        bestEnd = e;
        bestRef = ref;
        if (e === end) break;
      }
    }
    ref = chain.prev[ref]! - 1;
  }
  return { end: bestEnd, ref: bestRef };
}

/**
 * Matches in src[start, end) found through the frame's hash chain: at each position the last
 * distance (a repeat, coded cheaply) and the longest of `depth` candidates; with `lazy`, a longer
 * match one position on is taken instead.
 */
function findSequencesChained(src: Uint8Array, start: number, end: number, lastOffset: number, chain: Chain, depth: number, lazy: boolean): Sequences {
  const seq = newSequences(end - start);
  let anchor = start;
  let ip = start;
  const limit = end - MIN_MATCH;
  while (ip <= limit) {
    const rep = ip - lastOffset;
    const repEnd = ip > anchor && rep >= 0 && read32(src, rep) === read32(src, ip) ? matchEnd(src, ip, rep, MIN_MATCH, end) : 0;
    let found = longestAt(src, chain, ip, end, depth, limit);
    // a new distance costs a whole sequence: worth it only past MIN_NEW_MATCH and past the repeat
    if (found.end - ip < MIN_NEW_MATCH || found.end <= repEnd + 1) found = { end: 0, ref: -1 };
    if (repEnd === 0 && found.ref < 0) {
      ip++;
      continue;
    }
    let mEnd: number;
    let ref: number;
    if (found.ref >= 0) {
      mEnd = found.end;
      ref = found.ref;
    } else {
      mEnd = repEnd;
      ref = rep;
    }
    if (lazy && ip + 1 <= limit && ref !== rep) {
      const next = longestAt(src, chain, ip + 1, end, depth, limit);
      if (next.end - (ip + 1) >= MIN_NEW_MATCH && next.end - (ip + 1) > mEnd - ip + 1) {
        ip++;
        mEnd = next.end;
        ref = next.ref;
      }
    }
    const back = matchBefore(src, ip, ref, anchor, 0);
    addSequence(seq, src, anchor, ip - back, ip - ref, mEnd);
    lastOffset = ip - ref;
    anchor = ip = mEnd;
  }
  return closeSequences(seq, src, anchor, end);
}

// ---- literals ----

const HUF_MAX_BITS = 11;

/**
 * Code lengths (at most HUF_MAX_BITS) of a complete prefix code for the symbols counted, or null
 * when fewer than two symbols occur. A Huffman tree (two queues over the counts sorted), then
 * lengths past the limit are clamped and the code made complete again (Kraft sum exactly 1) by
 * lengthening and shortening others.
 */
function huffmanLengths(counts: Uint32Array): Uint8Array | null {
  const syms: number[] = [];
  for (let s = 0; s < 256; s++) if (counts[s]! > 0) syms.push(s);
  if (syms.length < 2) return null;
  // the tree, with two queues: leaves by count, and joined nodes, which come out in order
  syms.sort((x, y) => counts[x]! - counts[y]! || x - y);
  const n = syms.length;
  const weight = new Float64Array(2 * n - 1);
  const parent = new Int32Array(2 * n - 1);
  for (let i = 0; i < n; i++) weight[i] = counts[syms[i]!]!;
  let leaf = 0;
  let joined = n;
  const take = (made: number): number => (leaf < n && (joined >= made || weight[leaf]! <= weight[joined]!) ? leaf++ : joined++);
  for (let made = n; made < 2 * n - 1; made++) {
    const a = take(made);
    const b = take(made);
    weight[made] = weight[a]! + weight[b]!;
    parent[a] = made;
    parent[b] = made;
  }
  // depths from the root down (a parent always has the larger index)
  const depth = new Uint8Array(2 * n - 1);
  for (let i = 2 * n - 3; i >= 0; i--) depth[i] = Math.min(255, depth[parent[i]!]! + 1);
  const lengths = new Uint8Array(256);
  for (let i = 0; i < n; i++) lengths[syms[i]!] = depth[i]!;
  // limit the lengths, then restore a complete code: Kraft sum in units of 2^-HUF_MAX_BITS
  const unit = (len: number) => 1 << (HUF_MAX_BITS - len);
  let kraft = 0;
  for (const s of syms) {
    if (lengths[s]! > HUF_MAX_BITS) lengths[s] = HUF_MAX_BITS;
    kraft += unit(lengths[s]!);
  }
  const full = 1 << HUF_MAX_BITS;
  // too much: lengthen the rarest symbols that can still grow
  const byRarity = syms.slice().sort((a, b) => counts[a]! - counts[b]! || b - a);
  while (kraft > full) {
    let best = -1;
    for (const s of byRarity) {
      if (lengths[s]! < HUF_MAX_BITS && (best < 0 || lengths[s]! > lengths[best]!)) best = s;
    }
    kraft -= unit(lengths[best]!) - unit(lengths[best]! + 1);
    lengths[best]!++;
  }
  // too little: shorten the most frequent symbols whose step still fits
  const byFrequency = byRarity.slice().reverse();
  while (kraft < full) {
    let changed = false;
    for (const s of byFrequency) {
      const gain = unit(lengths[s]! - 1) - unit(lengths[s]!);
      if (lengths[s]! > 1 && kraft + gain <= full) {
        lengths[s]!--;
        kraft += gain;
        changed = true;
        if (kraft === full) break;
      }
    }
    if (!changed) return null;
  }
  return lengths;
}

/** Huffman-coded literals (tree description and streams) at `op`, or -1 when they would not pay. */
function writeHuffmanLiterals(lit: Uint8Array, size: number, out: Uint8Array, op: number): number {
  if (size < 64) return -1;
  const counts = new Uint32Array(256);
  for (let i = 0; i < size; i++) counts[lit[i]!]!++;
  const lengths = huffmanLengths(counts);
  if (lengths === null) return -1;
  let lastSym = 255;
  while (lengths[lastSym] === 0) lastSym--;
  // the weights are written directly (4 bits each): up to 128 of them, the last symbol's implied
  if (lastSym > 128) return -1;
  let maxLen = 0;
  for (let s = 0; s <= lastSym; s++) maxLen = Math.max(maxLen, lengths[s]!);
  // canonical codes in the reader's order: by weight (longest codes first), then by symbol
  const codes = new Uint16Array(256);
  let next = 0;
  for (let len = maxLen; len >= 1; len--) {
    for (let s = 0; s <= lastSym; s++) {
      if (lengths[s] !== len) continue;
      codes[s] = next >> (maxLen - len);
      next += 1 << (maxLen - len);
    }
  }
  const head = size <= 1023 ? 3 : size <= 16383 ? 4 : 5;
  const start = op;
  let p = op + head;
  // tree description: 127 + number of weights, then two weights a byte
  out[p++] = 127 + lastSym;
  for (let s = 0; s < lastSym; s += 2) {
    const w = (x: number) => (x < lastSym && lengths[x]! > 0 ? maxLen + 1 - lengths[x]! : 0);
    out[p++] = (w(s) << 4) | w(s + 1);
  }
  const streams = size <= 1023 ? 1 : 4;
  const writeStream = (from: number, to: number, at: number): number => {
    const w = new BitWriter(out, at);
    for (let i = to - 1; i >= from; i--) w.add(codes[lit[i]!]!, lengths[lit[i]!]!);
    return w.close();
  };
  if (streams === 1) {
    p = writeStream(0, size, p);
  } else {
    const each = Math.floor((size + 3) / 4);
    const jump = p;
    p += 6;
    const ends: number[] = [];
    for (let k = 0; k < 4; k++) {
      const streamStart = p;
      p = writeStream(k * each, Math.min(size, (k + 1) * each), p);
      ends.push(p - streamStart);
    }
    for (let k = 0; k < 3; k++) {
      if (ends[k]! > 0xffff) return -1;
      out[jump + 2 * k] = ends[k]! & 0xff;
      out[jump + 2 * k + 1] = ends[k]! >> 8;
    }
  }
  const compressed = p - start - head;
  if (compressed >= size) return -1;
  // the header: type 2 (compressed), size format, then both sizes as little-endian bit fields
  const sizeBits = head === 3 ? 10 : head === 4 ? 14 : 18;
  if (compressed >= 2 ** sizeBits) return -1;
  const format = streams === 1 ? 0 : head === 3 ? 1 : head === 4 ? 2 : 3;
  let v = 2 + format * 4 + size * 16 + compressed * 2 ** (4 + sizeBits);
  for (let k = 0; k < head; k++) {
    out[start + k] = v % 256;
    v = Math.floor(v / 256);
  }
  return p;
}

function writeRawLiterals(lit: Uint8Array, size: number, out: Uint8Array, op: number): number {
  if (size < 32) out[op++] = size << 3;
  else if (size < 4096) {
    out[op++] = ((size & 15) << 4) | 0x04;
    out[op++] = size >> 4;
  } else {
    out[op++] = ((size & 15) << 4) | 0x0c;
    out[op++] = (size >> 4) & 0xff;
    out[op++] = size >> 12;
  }
  out.set(lit.subarray(0, size), op);
  return op + size;
}

/**
 * The offset values of the sequences (RFC 8878 3.1.1.5): a distance among the three repeat
 * offsets is coded as 1-3, any other as distance + 3. `rep` is the frame's repeat-offset history,
 * moved on as the reader will move it.
 */
function offsetValues(seq: Sequences, rep: number[]): Int32Array {
  const values = new Int32Array(seq.count);
  for (let i = 0; i < seq.count; i++) {
    const off = seq.offset[i]!;
    const ll0 = seq.lit[i] === 0;
    let idx = -1;
    if (!ll0) idx = off === rep[0] ? 0 : off === rep[1] ? 1 : off === rep[2] ? 2 : -1;
    else idx = off === rep[1] ? 1 : off === rep[2] ? 2 : off === rep[0]! - 1 ? 3 : -1;
    if (idx < 0) {
      values[i] = off + 3;
      rep[2] = rep[1]!;
      rep[1] = rep[0]!;
      rep[0] = off;
      continue;
    }
    values[i] = idx + (ll0 ? 0 : 1);
    if (idx === 0) continue;
    if (idx !== 1) rep[2] = rep[1]!;
    rep[1] = rep[0]!;
    rep[0] = off;
  }
  return values;
}

/** Writes a compressed block's content at `op`; returns its end. */
function writeCompressedBlock(seq: Sequences, rep: number[], out: Uint8Array, op: number): number {
  const size = seq.literalCount;
  const huffman = writeHuffmanLiterals(seq.literals, size, out, op);
  op = huffman >= 0 ? huffman : writeRawLiterals(seq.literals, size, out, op);
  // sequences
  const count = seq.count;
  if (count < 128) out[op++] = count;
  else if (count < 0x7f00) {
    out[op++] = (count >> 8) + 128;
    out[op++] = count & 0xff;
  } else {
    out[op++] = 255;
    out[op++] = (count - 0x7f00) & 0xff;
    out[op++] = (count - 0x7f00) >> 8;
  }
  if (count === 0) return op;
  const llCodes = new Uint8Array(count);
  const mlCodes = new Uint8Array(count);
  const ofCodes = new Uint8Array(count);
  const ofValues = offsetValues(seq, rep);
  for (let i = 0; i < count; i++) {
    llCodes[i] = llCode(seq.lit[i]!);
    mlCodes[i] = mlCode(seq.match[i]!);
    ofCodes[i] = highBit(ofValues[i]!);
  }
  // each table: the predefined one, or one fitted to this block's codes when that costs less
  const modesAt = op++;
  const ll = chooseTable(llCodes, LL_PREDEFINED, 35, 9, out, op);
  op = ll.next;
  const of = chooseTable(ofCodes, OF_PREDEFINED, 31, 8, out, op);
  op = of.next;
  const ml = chooseTable(mlCodes, ML_PREDEFINED, 52, 9, out, op);
  op = ml.next;
  out[modesAt] = (ll.mode << 6) | (of.mode << 4) | (ml.mode << 2);
  const LL_ENC = ll.enc;
  const OF_ENC = of.enc;
  const ML_ENC = ml.enc;
  const w = new BitWriter(out, op);
  const last = count - 1;
  let sML = initState(ML_ENC, mlCodes[last]!);
  let sOF = initState(OF_ENC, ofCodes[last]!);
  let sLL = initState(LL_ENC, llCodes[last]!);
  w.add(seq.lit[last]! - LL_BASE[llCodes[last]!]!, LL_BITS[llCodes[last]!]!);
  w.add(seq.match[last]! - ML_BASE[mlCodes[last]!]!, ML_BITS[mlCodes[last]!]!);
  w.add(ofValues[last]! - ((1 << ofCodes[last]!) >>> 0), ofCodes[last]!);
  for (let i = last - 1; i >= 0; i--) {
    const ll = llCodes[i]!;
    const ml = mlCodes[i]!;
    const of = ofCodes[i]!;
    sOF = encodeSymbol(w, OF_ENC, sOF, of);
    sML = encodeSymbol(w, ML_ENC, sML, ml);
    sLL = encodeSymbol(w, LL_ENC, sLL, ll);
    w.add(seq.lit[i]! - LL_BASE[ll]!, LL_BITS[ll]!);
    w.add(seq.match[i]! - ML_BASE[ml]!, ML_BITS[ml]!);
    w.add(ofValues[i]! - ((1 << of) >>> 0), of);
  }
  w.add(sML, ML_ENC.log);
  w.add(sOF, OF_ENC.log);
  w.add(sLL, LL_ENC.log);
  return w.close();
}

function isOneByte(src: Uint8Array, start: number, end: number): boolean {
  const b = src[start];
  for (let i = start + 1; i < end; i++) if (src[i] !== b) return false;
  return true;
}

function blockHeader(out: Uint8Array, op: number, last: boolean, type: number, size: number): void {
  const h = (last ? 1 : 0) | (type << 1) | (size << 3);
  out[op] = h & 0xff;
  out[op + 1] = (h >> 8) & 0xff;
  out[op + 2] = (h >> 16) & 0xff;
}

/**
 * Compresses `data` as one Zstandard frame at `level` (Kafka's compression.zstd.level,
 * ZSTD_MIN_LEVEL to ZSTD_MAX_LEVEL; others are a RangeError).
 */
export function zstdCompress(data: Uint8Array, level = ZSTD_DEFAULT_LEVEL): Uint8Array {
  if (!Number.isInteger(level) || level < ZSTD_MIN_LEVEL || level > ZSTD_MAX_LEVEL) throw new RangeError(`zstd level must be an integer from ${ZSTD_MIN_LEVEL} to ${ZSTD_MAX_LEVEL}, got ${level}`);
  const search = zstdSearch(level);
  const n = data.length;
  const blocks = Math.max(1, Math.ceil(n / BLOCK_MAX));
  // worst case: every block raw, plus the headers
  const out = Buffer.allocUnsafe(18 + n + blocks * 3 + 64);
  out.set(MAGIC, 0);
  let op = 4;
  // single segment; content size in 1, 2 (minus 256), 4 or 8 bytes
  if (n < 256) {
    out[op++] = 0x20;
    out[op++] = n;
  } else if (n < 65_536 + 256) {
    out[op++] = 0x60;
    out.writeUInt16LE(n - 256, op);
    op += 2;
  } else if (n <= 0xffffffff) {
    out[op++] = 0xa0;
    out.writeUInt32LE(n, op);
    op += 4;
  } else {
    out[op++] = 0xe0;
    out.writeBigUInt64LE(BigInt(n), op);
    op += 8;
  }
  table.fill(0);
  const chain: Chain | null = search.depth > 1 ? { prev: new Int32Array(n), indexed: 0 } : null;
  let rep = [1, 4, 8];
  for (let at = 0, b = 0; b < blocks; b++, at += BLOCK_MAX) {
    const end = Math.min(n, at + BLOCK_MAX);
    const size = end - at;
    const last = b === blocks - 1;
    if (size > 0 && isOneByte(data, at, end)) {
      blockHeader(out, op, last, 1, size);
      out[op + 3] = data[at]!;
      op += 4;
      // later blocks may still refer back into it
      continue;
    }
    let compressed = -1;
    if (size >= 16) {
      const seq = chain ? findSequencesChained(data, at, end, rep[0]!, chain, search.depth, search.lazy) : findSequences(data, at, end, rep[0]!, search.accel);
      if (seq.count > 0) {
        // the repeat offsets move on only if the block is kept: a raw block leaves them as they were
        const blockRep = rep.slice();
        const stop = writeCompressedBlock(seq, blockRep, scratch, 0);
        if (stop < size) {
          compressed = stop;
          rep = blockRep;
        }
      }
    }
    if (compressed > 0) {
      blockHeader(out, op, last, 2, compressed);
      out.set(scratch.subarray(0, compressed), op + 3);
      op += 3 + compressed;
    } else {
      blockHeader(out, op, last, 0, size);
      out.set(data.subarray(at, end), op + 3);
      op += 3 + size;
    }
  }
  return out.subarray(0, op);
}
