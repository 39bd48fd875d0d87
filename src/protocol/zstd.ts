/**
 * Zstandard decompression (RFC 8878) for RecordBatch codec 4: what Kafka's Java client and
 * librdkafka write when a producer sets compression.type zstd. Frames one after another,
 * skippable frames, raw / RLE / compressed blocks, Huffman-coded literals (one or four streams,
 * with the table carried over between blocks), FSE-coded sequences (predefined, RLE, described or
 * repeated tables) and the three repeat offsets; the optional content checksum (xxHash64) and
 * content size are verified. Dictionaries are refused. Bad input throws an Error that says what
 * is wrong and where; nothing is read or written outside the buffers given. The writer is
 * zstd-compress.ts.
 */
import { highBit, u32le as u32At, walkFrames } from './byte-runs.js';
import { DecompressedSizeError } from './decompressed-size.js';
import { xxhash64 } from './xxhash64.js';

const MAGIC = 0xfd2fb528;
const BLOCK_MAX = 128 * 1024;
/** Frames asking for a larger window are refused: a batch never needs more. */
const WINDOW_LOG_MAX = 31;
const HUF_TABLE_LOG_MAX = 11;
/** The most a frame's declared content size allocates before its blocks are decoded. */
const PREALLOCATE_MAX = 4 * 1024 * 1024;

function corrupt(what: string, at: number): Error {
  return new Error(`zstd: ${what} (at byte ${at})`);
}

// ---- bit readers ----

/** Reads a little-endian bit stream forwards (FSE table descriptions). */
class ForwardBits {
  private bit: number;
  constructor(
    private readonly b: Uint8Array,
    start: number,
    private readonly end: number,
  ) {
    this.bit = start * 8;
  }
  read(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.bit >> 3;
      if (byte >= this.end) throw corrupt('table description runs past its section', byte);
      v += ((this.b[byte]! >> (this.bit & 7)) & 1) * 2 ** i;
      this.bit++;
    }
    return v;
  }
  /** The first byte after what was read. */
  get bytePos(): number {
    return (this.bit + 7) >> 3;
  }
}

/**
 * Reads a bit stream backwards from its end, as zstd writes Huffman and FSE streams: the last
 * byte's highest set bit marks the end; bits come out most recent first. Reads below the start
 * give zeros and leave `pos` negative (the decoder checks it).
 */
class BackwardBits {
  pos: number;
  constructor(
    private readonly b: Uint8Array,
    private readonly start: number,
    end: number,
  ) {
    if (end <= start) throw corrupt('empty bit stream', start);
    const last = b[end - 1]!;
    if (last === 0) throw corrupt('bit stream without its end marker', end - 1);
    this.pos = (end - 1 - start) * 8 + highBit(last);
  }
  /** The `n` (<= 32) bits below `pos` without consuming them. */
  peek(n: number): number {
    const from = this.pos - n;
    if (from >= 0 && n <= 24) {
      // one 32-bit load covers them (bytes past the stream only feed bits masked off here)
      const b = this.b;
      const i = this.start + (from >> 3);
      const word = b[i]! | ((b[i + 1] ?? 0) << 8) | ((b[i + 2] ?? 0) << 16) | ((b[i + 3] ?? 0) << 24);
      return (word >>> (from & 7)) & ((1 << n) - 1);
    }
    return this.slowPeek(n, from);
  }
  private slowPeek(n: number, from: number): number {
    if (n === 0) return 0;
    let v = 0;
    for (let i = 0; i < n; ) {
      const bit = from + i;
      if (bit < 0) {
        i++;
        continue;
      }
      const shift = bit & 7;
      const take = Math.min(8 - shift, n - i);
      const byte = this.b[this.start + (bit >> 3)]!;
      v += ((byte >> shift) & ((1 << take) - 1)) * 2 ** i;
      i += take;
    }
    return v;
  }
  read(n: number): number {
    if (n === 0) return 0;
    const v = this.peek(n);
    this.pos -= n;
    return v;
  }
}

/**
 * `n` bits of the backward stream starting at byte `start`, from bit `from` up (the lowest bit
 * first); bits below the stream's start read as zeros (the caller then finds its position
 * negative). One 32-bit load in the common case.
 */
function bitsAt(b: Uint8Array, start: number, from: number, n: number): number {
  if (n === 0) return 0;
  if (from >= 0 && n <= 24) {
    const i = start + (from >> 3);
    const word = b[i]! | ((b[i + 1] ?? 0) << 8) | ((b[i + 2] ?? 0) << 16) | ((b[i + 3] ?? 0) << 24);
    return (word >>> (from & 7)) & ((1 << n) - 1);
  }
  let v = 0;
  for (let k = 0; k < n; k++) {
    const bit = from + k;
    if (bit >= 0) v += ((b[start + (bit >> 3)]! >> (bit & 7)) & 1) * 2 ** k;
  }
  return v;
}

// ---- FSE ----

interface FseTable {
  log: number;
  symbol: Uint8Array;
  nbBits: Uint8Array;
  base: Uint16Array;
}

/**
 * Each state's symbol for a normalized distribution (RFC 8878 4.1.1): "less than 1" symbols take
 * the last states, the others are spread with the format's step. Shared by the reader's tables
 * and the writer's (zstd-compress.ts), which must agree state for state.
 */
export function spreadSymbols(norm: readonly number[], log: number): Uint8Array {
  const size = 1 << log;
  const symbol = new Uint8Array(size);
  let high = size - 1;
  for (let s = 0; s < norm.length; s++) if (norm[s] === -1) symbol[high--] = s;
  const step = (size >> 1) + (size >> 3) + 3;
  const mask = size - 1;
  let pos = 0;
  for (let s = 0; s < norm.length; s++) {
    for (let i = 0; i < norm[s]!; i++) {
      symbol[pos] = s;
      do pos = (pos + step) & mask;
      while (pos > high);
    }
  }
  if (pos !== 0) throw corrupt('FSE distribution does not fill its table', 0);
  return symbol;
}

function buildFse(norm: readonly number[], log: number): FseTable {
  const size = 1 << log;
  const symbol = spreadSymbols(norm, log);
  const nbBits = new Uint8Array(size);
  const base = new Uint16Array(size);
  const next = norm.map((n) => (n === -1 ? 1 : n));
  for (let u = 0; u < size; u++) {
    const s = symbol[u]!;
    const state = next[s]!++;
    const bits = log - highBit(state);
    nbBits[u] = bits;
    base[u] = (state << bits) - size;
  }
  return { log, symbol, nbBits, base };
}

function rleFse(sym: number): FseTable {
  return { log: 0, symbol: Uint8Array.of(sym), nbBits: Uint8Array.of(0), base: Uint16Array.of(0) };
}

/** Reads an FSE table description at `at`; returns the table and the first byte after it. */
function readFse(b: Uint8Array, at: number, end: number, maxSymbol: number, maxLog: number): { table: FseTable; next: number } {
  const r = new ForwardBits(b, at, end);
  const log = r.read(4) + 5;
  if (log > maxLog) throw corrupt(`FSE accuracy log ${log} is above ${maxLog}`, at);
  let remaining = (1 << log) + 1;
  let threshold = 1 << log;
  let bits = log + 1;
  const norm: number[] = [];
  while (remaining > 1) {
    if (norm.length > maxSymbol) throw corrupt(`FSE distribution has more than ${maxSymbol + 1} symbols`, at);
    const max = 2 * threshold - 1 - remaining;
    let value: number;
    const low = r.read(bits - 1);
    if (low < max) value = low;
    else {
      value = low + r.read(1) * threshold;
      if (value >= threshold) value -= max;
    }
    const count = value - 1;
    remaining -= count < 0 ? -count : count;
    norm.push(count);
    if (count === 0) {
      for (;;) {
        const repeat = r.read(2);
        for (let i = 0; i < repeat; i++) norm.push(0);
        if (repeat !== 3) break;
      }
    }
    while (remaining < threshold) {
      bits--;
      threshold >>= 1;
    }
  }
  if (remaining !== 1 || norm.length > maxSymbol + 1) throw corrupt('FSE distribution does not add up', at);
  return { table: buildFse(norm, log), next: r.bytePos };
}

// ---- Huffman ----

interface HufTable {
  log: number;
  symbol: Uint8Array;
  nbBits: Uint8Array;
}

function buildHuffman(weights: number[], at: number): HufTable {
  let total = 0;
  for (const w of weights) {
    if (w > HUF_TABLE_LOG_MAX) throw corrupt(`Huffman weight ${w} is too large`, at);
    if (w > 0) total += 1 << (w - 1);
  }
  if (total === 0) throw corrupt('Huffman weights are all zero', at);
  const log = highBit(total) + 1;
  if (log > HUF_TABLE_LOG_MAX) throw corrupt(`Huffman table log ${log} is above ${HUF_TABLE_LOG_MAX}`, at);
  const rest = (1 << log) - total;
  if ((rest & (rest - 1)) !== 0) throw corrupt('Huffman weights do not complete a tree', at);
  weights.push(highBit(rest) + 1);
  if (weights.length > 256) throw corrupt('more than 256 Huffman symbols', at);
  const size = 1 << log;
  const symbol = new Uint8Array(size);
  const nbBits = new Uint8Array(size);
  const rankStart = new Array<number>(log + 2).fill(0);
  const counts = new Array<number>(log + 2).fill(0);
  for (const w of weights) counts[w]!++;
  let next = 0;
  for (let w = 1; w <= log; w++) {
    rankStart[w] = next;
    next += counts[w]! << (w - 1);
  }
  for (let s = 0; s < weights.length; s++) {
    const w = weights[s]!;
    if (w === 0) continue;
    const len = 1 << (w - 1);
    const start = rankStart[w]!;
    symbol.fill(s, start, start + len);
    nbBits.fill(log + 1 - w, start, start + len);
    rankStart[w] = start + len;
  }
  return { log, symbol, nbBits };
}

/** Reads a Huffman tree description at `at`; returns the table and the first byte after it. */
function readHuffman(b: Uint8Array, at: number, end: number): { table: HufTable; next: number } {
  if (at >= end) throw corrupt('missing Huffman tree description', at);
  const header = b[at]!;
  const weights: number[] = [];
  let next: number;
  if (header >= 128) {
    const n = header - 127;
    const bytes = (n + 1) >> 1;
    if (at + 1 + bytes > end) throw corrupt('Huffman weights run past the literals section', at);
    for (let i = 0; i < n; i++) {
      const byte = b[at + 1 + (i >> 1)]!;
      weights.push(i & 1 ? byte & 15 : byte >> 4);
    }
    next = at + 1 + bytes;
  } else {
    const stop = at + 1 + header;
    if (stop > end) throw corrupt('Huffman weights run past the literals section', at);
    const { table, next: streamAt } = readFse(b, at + 1, stop, 255, 6);
    const bits = new BackwardBits(b, streamAt, stop);
    let s1 = bits.read(table.log);
    let s2 = bits.read(table.log);
    for (;;) {
      if (weights.length > 255) throw corrupt('more than 255 Huffman weights', at);
      weights.push(table.symbol[s1]!);
      s1 = table.base[s1]! + bits.read(table.nbBits[s1]!);
      if (bits.pos < 0) {
        weights.push(table.symbol[s2]!);
        break;
      }
      weights.push(table.symbol[s2]!);
      s2 = table.base[s2]! + bits.read(table.nbBits[s2]!);
      if (bits.pos < 0) {
        weights.push(table.symbol[s1]!);
        break;
      }
    }
    next = stop;
  }
  return { table: buildHuffman(weights, at), next };
}

function decodeHuffmanStream(t: HufTable, b: Uint8Array, start: number, end: number, out: Uint8Array, op: number, count: number): void {
  const bits = new BackwardBits(b, start, end);
  const log = t.log;
  const mask = (1 << log) - 1;
  const symbol = t.symbol;
  const nbBits = t.nbBits;
  let pos = bits.pos;
  for (let i = 0; i < count; i++) {
    const from = pos - log;
    let v: number;
    if (from >= 0) {
      // log <= 11 bits at a bit offset <= 7: three bytes hold them
      const k = start + (from >> 3);
      v = ((b[k]! | ((b[k + 1] ?? 0) << 8) | ((b[k + 2] ?? 0) << 16)) >>> (from & 7)) & mask;
    } else {
      bits.pos = pos;
      v = bits.peek(log);
    }
    out[op + i] = symbol[v]!;
    pos -= nbBits[v]!;
  }
  if (pos !== 0) throw corrupt(`Huffman stream of ${end - start} bytes is not used up exactly`, start);
}

// ---- sequences ----

export const LL_BASE = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];
export const LL_BITS = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
export const ML_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
  4099, 8195, 16387, 32771, 65539,
];
export const ML_BITS = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];

/** The predefined distributions (RFC 8878 3.1.1.3.2.2), accuracy logs 6, 6 and 5. */
export const LL_NORM: readonly number[] = [4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1];
export const ML_NORM: readonly number[] = [
  1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1,
];
export const OF_NORM: readonly number[] = [1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1];
export const LL_LOG = 6;
export const ML_LOG = 6;
export const OF_LOG = 5;

const LL_DEFAULT = buildFse(LL_NORM, LL_LOG);
const ML_DEFAULT = buildFse(ML_NORM, ML_LOG);
const OF_DEFAULT = buildFse(OF_NORM, OF_LOG);

/** What carries over from block to block within a frame. */
interface FrameState {
  huffman: HufTable | null;
  ll: FseTable | null;
  of: FseTable | null;
  ml: FseTable | null;
  rep: [number, number, number];
}

function seqTable(b: Uint8Array, at: number, end: number, mode: number, kind: 'literal lengths' | 'offsets' | 'match lengths', previous: FseTable | null): { table: FseTable; next: number } {
  const [def, maxSymbol, maxLog] = kind === 'literal lengths' ? [LL_DEFAULT, 35, 9] : kind === 'offsets' ? [OF_DEFAULT, 31, 8] : [ML_DEFAULT, 52, 9];
  switch (mode) {
    case 0:
      return { table: def, next: at };
    case 1: {
      if (at >= end) throw corrupt(`missing the ${kind} RLE symbol`, at);
      const sym = b[at]!;
      if (sym > maxSymbol) throw corrupt(`${kind} RLE symbol ${sym} is above ${maxSymbol}`, at);
      return { table: rleFse(sym), next: at + 1 };
    }
    case 2:
      return readFse(b, at, end, maxSymbol, maxLog);
    default:
      if (previous === null) throw corrupt(`${kind} repeat a table no earlier block set`, at);
      return { table: previous, next: at };
  }
}

/** Output grown as a frame decodes, up to `limit` bytes (one block's room past it at most). */
class Output {
  /** Allocated by the first ensure: a frame with a content size asks for exactly that. */
  buf = new Uint8Array(0);
  len = 0;
  constructor(readonly limit = Infinity) {}
  ensure(more: number): void {
    if (this.len + more <= this.buf.length) return;
    if (this.len > this.limit) throw new DecompressedSizeError('zstd', this.limit);
    const grown = new Uint8Array(Math.max(this.len + more, Math.min(this.buf.length * 2, this.limit + more)));
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }
}

function decodeLiterals(b: Uint8Array, at: number, end: number, st: FrameState): { literals: Uint8Array; next: number } {
  const b0 = b[at]!;
  const type = b0 & 3;
  const format = (b0 >> 2) & 3;
  if (type === 0 || type === 1) {
    let size: number;
    let head: number;
    if ((format & 1) === 0) {
      size = b0 >> 3;
      head = 1;
    } else if (format === 1) {
      if (at + 2 > end) throw corrupt('truncated literals header', at);
      size = (b0 >> 4) + (b[at + 1]! << 4);
      head = 2;
    } else {
      if (at + 3 > end) throw corrupt('truncated literals header', at);
      size = (b0 >> 4) + (b[at + 1]! << 4) + (b[at + 2]! << 12);
      head = 3;
    }
    if (size > BLOCK_MAX) throw corrupt(`literals of ${size} bytes exceed a block`, at);
    const from = at + head;
    if (type === 0) {
      if (from + size > end) throw corrupt('raw literals run past the block', at);
      return { literals: b.subarray(from, from + size), next: from + size };
    }
    if (from + 1 > end) throw corrupt('missing the RLE literal byte', at);
    return { literals: new Uint8Array(size).fill(b[from]!), next: from + 1 };
  }
  // compressed (2) or treeless (3): sizes of 10, 10, 14 or 18 bits
  const head = format <= 1 ? 3 : format === 2 ? 4 : 5;
  if (at + head > end) throw corrupt('truncated literals header', at);
  let v = 0;
  for (let i = head - 1; i >= 0; i--) v = v * 256 + b[at + i]!;
  v = Math.floor(v / 16);
  const sizeBits = format <= 1 ? 10 : format === 2 ? 14 : 18;
  const regenerated = v % 2 ** sizeBits;
  const compressed = Math.floor(v / 2 ** sizeBits) % 2 ** sizeBits;
  const streams = format === 0 ? 1 : 4;
  if (regenerated > BLOCK_MAX) throw corrupt(`literals of ${regenerated} bytes exceed a block`, at);
  let p = at + head;
  const stop = p + compressed;
  if (stop > end) throw corrupt('compressed literals run past the block', at);
  if (type === 2) {
    const h = readHuffman(b, p, stop);
    st.huffman = h.table;
    p = h.next;
  } else if (st.huffman === null) {
    throw corrupt('treeless literals but no earlier block set a Huffman table', at);
  }
  const t = st.huffman!;
  const literals = new Uint8Array(regenerated);
  if (streams === 1) {
    decodeHuffmanStream(t, b, p, stop, literals, 0, regenerated);
  } else {
    if (p + 6 > stop) throw corrupt('truncated jump table', p);
    const s1 = b[p]! | (b[p + 1]! << 8);
    const s2 = b[p + 2]! | (b[p + 3]! << 8);
    const s3 = b[p + 4]! | (b[p + 5]! << 8);
    const starts = [p + 6, p + 6 + s1, p + 6 + s1 + s2, p + 6 + s1 + s2 + s3];
    if (starts[3]! > stop) throw corrupt('jump table points past the literals', p);
    const each = Math.floor((regenerated + 3) / 4);
    for (let i = 0; i < 4; i++) {
      const count = i < 3 ? each : regenerated - 3 * each;
      if (count < 0) throw corrupt('literals too few for four streams', at);
      decodeHuffmanStream(t, b, starts[i]!, i < 3 ? starts[i + 1]! : stop, literals, i * each, count);
    }
  }
  return { literals, next: stop };
}

function decodeCompressedBlock(b: Uint8Array, at: number, end: number, st: FrameState, out: Output, frameStart: number, blockMax: number): void {
  if (at >= end) throw corrupt('empty compressed block', at);
  const { literals, next } = decodeLiterals(b, at, end, st);
  let p = next;
  if (p >= end) throw corrupt('missing the sequences section', p);
  let nbSeq = b[p++]!;
  if (nbSeq >= 128) {
    if (nbSeq < 255) {
      if (p >= end) throw corrupt('truncated sequence count', p);
      nbSeq = ((nbSeq - 128) << 8) + b[p++]!;
    } else {
      if (p + 2 > end) throw corrupt('truncated sequence count', p);
      nbSeq = b[p]! + (b[p + 1]! << 8) + 0x7f00;
      p += 2;
    }
  }
  let lit = 0;
  if (nbSeq > 0) {
    if (p >= end) throw corrupt('missing the symbol compression modes', p);
    const modes = b[p++]!;
    if ((modes & 3) !== 0) throw corrupt('reserved bits set in the symbol compression modes', p - 1);
    const ll = seqTable(b, p, end, modes >> 6, 'literal lengths', st.ll);
    const of = seqTable(b, ll.next, end, (modes >> 4) & 3, 'offsets', st.of);
    const ml = seqTable(b, of.next, end, (modes >> 2) & 3, 'match lengths', st.ml);
    st.ll = ll.table;
    st.of = of.table;
    st.ml = ml.table;
    // a block decodes to at most blockMax bytes: room for all of them once, checked per sequence
    out.ensure(blockMax);
    const blockEnd = out.len + blockMax;
    const buf = out.buf;
    // the stream's bit position in a local, read with bitsAt (the hot loop of the reader)
    const s0 = ml.next;
    let pos = new BackwardBits(b, s0, end).pos;
    const { table: llT } = ll;
    const { table: ofT } = of;
    const { table: mlT } = ml;
    let sLL = bitsAt(b, s0, (pos -= llT.log), llT.log);
    let sOF = bitsAt(b, s0, (pos -= ofT.log), ofT.log);
    let sML = bitsAt(b, s0, (pos -= mlT.log), mlT.log);
    // the repeat offsets and the output position in locals, written back after the loop
    let [r0, r1, r2] = st.rep;
    let to = out.len;
    for (let i = 0; i < nbSeq; i++) {
      const ofCode = ofT.symbol[sOF]!;
      const mlCode = mlT.symbol[sML]!;
      const llCode = llT.symbol[sLL]!;
      if (ofCode > WINDOW_LOG_MAX) throw corrupt(`offset code ${ofCode} is too large`, s0);
      const ofValue = (ofCode < 31 ? 1 << ofCode : 2 ** ofCode) + bitsAt(b, s0, (pos -= ofCode), ofCode);
      const mlBits = ML_BITS[mlCode]!;
      const matchLength = ML_BASE[mlCode]! + bitsAt(b, s0, (pos -= mlBits), mlBits);
      const llBits = LL_BITS[llCode]!;
      const literalLength = LL_BASE[llCode]! + bitsAt(b, s0, (pos -= llBits), llBits);
      let offset: number;
      if (ofValue > 3) {
        offset = ofValue - 3;
        r2 = r1;
        r1 = r0;
        r0 = offset;
      } else {
        const idx = ofValue - 1 + (literalLength === 0 ? 1 : 0);
        if (idx === 0) offset = r0;
        else {
          offset = idx === 1 ? r1 : idx === 2 ? r2 : r0 - 1;
          if (idx !== 1) r2 = r1;
          r1 = r0;
          r0 = offset;
        }
      }
      if (pos < 0) throw corrupt('sequence bit stream ends early', s0);
      if (i < nbSeq - 1) {
        let n = llT.nbBits[sLL]!;
        sLL = llT.base[sLL]! + bitsAt(b, s0, (pos -= n), n);
        n = mlT.nbBits[sML]!;
        sML = mlT.base[sML]! + bitsAt(b, s0, (pos -= n), n);
        n = ofT.nbBits[sOF]!;
        sOF = ofT.base[sOF]! + bitsAt(b, s0, (pos -= n), n);
      }
      // execute: the literals, then the match
      if (lit + literalLength > literals.length) throw corrupt('sequence takes more literals than the block has', ml.next);
      if (to + literalLength + matchLength > blockEnd) throw corrupt(`block decodes to more than ${blockMax} bytes`, ml.next);
      if (literalLength < 32) {
        for (let k = 0; k < literalLength; k++) buf[to + k] = literals[lit + k]!;
      } else {
        buf.set(literals.subarray(lit, lit + literalLength), to);
      }
      to += literalLength;
      lit += literalLength;
      if (offset <= 0 || offset > to - frameStart) throw corrupt(`match offset ${offset} points before the frame's data`, ml.next);
      let from = to - offset;
      const stopAt = to + matchLength;
      if (offset >= matchLength && matchLength >= 32) {
        buf.copyWithin(to, from, from + matchLength);
      } else {
        // short, or overlapping (repeating the last `offset` bytes): byte by byte
        while (to < stopAt) buf[to++] = buf[from++]!;
      }
      to = stopAt;
    }
    out.len = to;
    st.rep = [r0, r1, r2];
    if (pos !== 0) throw corrupt('sequence bit stream not used up exactly', s0);
  }
  const rest = literals.length - lit;
  out.ensure(rest);
  out.buf.set(literals.subarray(lit), out.len);
  out.len += rest;
}

/** Decodes one frame at `at` into `out`; returns the first byte after it. */
function decodeFrame(b: Uint8Array, at: number, out: Output): number {
  let p = at + 4;
  if (p >= b.length) throw corrupt('truncated frame header', p);
  const fhd = b[p++]!;
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd & 0x20) !== 0;
  if ((fhd & 0x08) !== 0) throw corrupt('reserved bit set in the frame header', p - 1);
  const checksum = (fhd & 0x04) !== 0;
  const dictIdSize = [0, 1, 2, 4][fhd & 3]!;
  let windowSize = 0;
  if (!singleSegment) {
    if (p >= b.length) throw corrupt('truncated window descriptor', p);
    const wd = b[p++]!;
    const windowLog = 10 + (wd >> 3);
    if (windowLog > WINDOW_LOG_MAX) throw corrupt(`window log ${windowLog} is above ${WINDOW_LOG_MAX}`, p - 1);
    const base = 2 ** windowLog;
    windowSize = base + (base / 8) * (wd & 7);
  }
  if (p + dictIdSize > b.length) throw corrupt('truncated dictionary id', p);
  let dictId = 0;
  for (let i = 0; i < dictIdSize; i++) dictId += b[p + i]! * 2 ** (8 * i);
  if (dictId !== 0) throw corrupt(`frame needs dictionary ${dictId}; dictionaries are not supported`, p);
  p += dictIdSize;
  const fcsSize = fcsFlag === 0 ? (singleSegment ? 1 : 0) : [0, 2, 4, 8][fcsFlag]!;
  if (p + fcsSize > b.length) throw corrupt('truncated content size', p);
  let contentSize = -1;
  if (fcsSize > 0) {
    contentSize = 0;
    for (let i = 0; i < fcsSize; i++) contentSize += b[p + i]! * 2 ** (8 * i);
    if (fcsSize === 2) contentSize += 256;
    p += fcsSize;
  }
  if (singleSegment) windowSize = contentSize;
  const blockMax = Math.min(BLOCK_MAX, Math.max(windowSize, 1));
  const frameStart = out.len;
  // room for the declared content at once, up to a bound: a forged size must not allocate much
  // before any block is read (past it the output grows as blocks decode)
  if (contentSize > 0) out.ensure(Math.min(contentSize, PREALLOCATE_MAX));
  const st: FrameState = { huffman: null, ll: null, of: null, ml: null, rep: [1, 4, 8] };
  for (;;) {
    if (p + 3 > b.length) throw corrupt('truncated block header', p);
    const h = b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16);
    const last = (h & 1) !== 0;
    const type = (h >> 1) & 3;
    const size = h >>> 3;
    p += 3;
    if (type === 3) throw corrupt('reserved block type', p - 3);
    if (type === 1) {
      if (size > blockMax) throw corrupt(`block of ${size} bytes exceeds ${blockMax}`, p - 3);
      if (p >= b.length) throw corrupt('missing the RLE block byte', p);
      out.ensure(size);
      out.buf.fill(b[p]!, out.len, out.len + size);
      out.len += size;
      p += 1;
    } else {
      if (size > blockMax) throw corrupt(`block of ${size} bytes exceeds ${blockMax}`, p - 3);
      if (p + size > b.length) throw corrupt('block runs past the input', p - 3);
      if (type === 0) {
        out.ensure(size);
        out.buf.set(b.subarray(p, p + size), out.len);
        out.len += size;
      } else {
        decodeCompressedBlock(b, p, p + size, st, out, frameStart, blockMax);
      }
      p += size;
    }
    if (last) break;
  }
  if (contentSize >= 0 && out.len - frameStart !== contentSize) throw corrupt(`frame holds ${out.len - frameStart} bytes, its header says ${contentSize}`, p);
  if (checksum) {
    if (p + 4 > b.length) throw corrupt('truncated content checksum', p);
    const want = u32At(b, p);
    const got = Number(xxhash64(out.buf, 0n, frameStart, out.len) & 0xffffffffn);
    if (want !== got) throw corrupt('content checksum mismatch', p);
    p += 4;
  }
  return p;
}

/**
 * Decompresses Zstandard frames (one or more, skippable frames passed over); more than
 * `maxOutput` bytes of output throw DecompressedSizeError.
 */
export function zstdDecompress(src: Uint8Array, maxOutput = Infinity): Uint8Array {
  const out = new Output(maxOutput);
  walkFrames(src, MAGIC, corrupt, (at) => decodeFrame(src, at, out));
  if (out.len > maxOutput) throw new DecompressedSizeError('zstd', maxOutput);
  return Buffer.from(out.buf.buffer, out.buf.byteOffset, out.len);
}
