/**
 * Compression codec registry for RecordBatch v2 (attribute bits 0-2). Built in: none (0), gzip
 * (1, node:zlib, sync and async), snappy (2, snappy-java's framing; see snappy.ts), lz4 (3, the
 * LZ4 frame format; see lz4.ts) and zstd (4, Zstandard frames; zstd.ts reads any, and
 * zstd-compress.ts writes them at a fast level), each as Kafka's clients write it; registerCodec
 * replaces one (e.g. with a native zstd). Compressing takes a level for gzip, lz4 and zstd, as
 * Kafka's compression.<codec>.level (KIP-390; COMPRESSION_LEVELS has each range and default); a
 * level outside its codec's range is a RangeError. Ids 5-7 are unknown. Rejections are
 * UnsupportedCompressionError (errorCode UNSUPPORTED_COMPRESSION_TYPE). A decompression may be
 * given a bound on its output (DecompressedSizeError past it): the broker's, against bombs.
 */
import buffer from 'node:buffer';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { DecompressedSizeError } from './decompressed-size.js';
import { ErrorCode } from './errors.js';
import { LZ4_DEFAULT_LEVEL, LZ4_MAX_LEVEL, LZ4_MIN_LEVEL, lz4CompressFrame, lz4DecompressFrame } from './lz4.js';
import { snappyCompressFramed, snappyDecompress } from './snappy.js';
import { zstdDecompress } from './zstd.js';
import { ZSTD_DEFAULT_LEVEL, ZSTD_MAX_LEVEL, ZSTD_MIN_LEVEL, zstdCompress } from './zstd-compress.js';

/** Kafka's codec ids. */
export const CompressionType = Object.freeze({
  NONE: 0,
  GZIP: 1,
  SNAPPY: 2,
  LZ4: 3,
  ZSTD: 4,
} as const);

export type CompressionName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

const KAFKA_NAMES: readonly string[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/** A codec's compression levels (Kafka's compression.<codec>.level): the range, and the default a level left out means. */
export interface CompressionLevels {
  min: number;
  max: number;
  /** gzip's is -1, zlib's own default (6), as Kafka's is Deflater's. */
  default: number;
}

/** KIP-390's levels, by codec name: gzip 1-9 (or -1), lz4 1-17, zstd -131072 to 22; snappy has none. */
export const COMPRESSION_LEVELS: Readonly<Record<'gzip' | 'lz4' | 'zstd', CompressionLevels>> = Object.freeze({
  gzip: { min: 1, max: 9, default: -1 },
  lz4: { min: LZ4_MIN_LEVEL, max: LZ4_MAX_LEVEL, default: LZ4_DEFAULT_LEVEL },
  zstd: { min: ZSTD_MIN_LEVEL, max: ZSTD_MAX_LEVEL, default: ZSTD_DEFAULT_LEVEL },
});

/** The codecs that take a level. */
export type LeveledCodec = keyof typeof COMPRESSION_LEVELS;

/** True for a codec name that takes a level (gzip, lz4, zstd). */
export function isLeveledCodec(name: string): name is LeveledCodec {
  return Object.prototype.hasOwnProperty.call(COMPRESSION_LEVELS, name);
}

/** What a level of codec `name` must be: "must be an integer from 1 to 9 (or -1, the default)". */
export function compressionLevelRange(name: LeveledCodec): string {
  const r = COMPRESSION_LEVELS[name];
  return `must be an integer from ${r.min} to ${r.max}${r.default < r.min ? ` (or ${r.default}, the default)` : ''}`;
}

/** Why `level` is not one of codec `name`'s (null: it is: in its range, or its default). */
export function compressionLevelProblem(name: LeveledCodec, level: unknown): string | null {
  const r = COMPRESSION_LEVELS[name];
  if (typeof level === 'number' && Number.isInteger(level) && (level === r.default || (level >= r.min && level <= r.max))) return null;
  return `${JSON.stringify(level)} is not a ${name} level: ${compressionLevelRange(name)}`;
}

/**
 * A codec implementation. Give at least one compressor and one decompressor; when only the sync
 * one is given the async variant wraps it, when only the async one is given the sync entry
 * points reject with a clear error. `level`, when given, is the codec's (COMPRESSION_LEVELS);
 * left out, its default.
 */
export interface CodecImpl {
  compress?(data: Uint8Array, level?: number): Uint8Array;
  /**
   * `maxOutput`, when finite, bounds the output: a codec that can stop early throws past it
   * (DecompressedSizeError); the registry checks every codec's output length after the call.
   */
  decompress?(data: Uint8Array, maxOutput?: number): Uint8Array;
  compressAsync?(data: Uint8Array, level?: number): Promise<Uint8Array>;
  decompressAsync?(data: Uint8Array, maxOutput?: number): Promise<Uint8Array>;
}

interface Registered {
  readonly id: number;
  readonly name: string;
  readonly impl: CodecImpl;
}

/** A codec id this build cannot (de)compress. */
export class UnsupportedCompressionError extends Error {
  override readonly name = 'UnsupportedCompressionError';
  readonly errorCode: number = ErrorCode.UNSUPPORTED_COMPRESSION_TYPE;
  constructor(
    readonly codecId: number,
    message: string,
  ) {
    super(message);
  }
}

const gzipAsync = promisify(zlib.gzip);
const gunzipAsync = promisify(zlib.gunzip);

/** zlib's options for a bound on the output (it stops there with ERR_BUFFER_TOO_LARGE). */
function gunzipOptions(maxOutput: number | undefined): zlib.ZlibOptions {
  return maxOutput !== undefined && maxOutput < buffer.kMaxLength ? { maxOutputLength: maxOutput } : {};
}

function gunzipError(err: unknown, maxOutput: number | undefined): never {
  if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' && maxOutput !== undefined) throw new DecompressedSizeError('gzip', maxOutput);
  throw err;
}

/** zlib's options for a gzip level (-1 or none: zlib's default). */
function gzipOptions(level: number | undefined): zlib.ZlibOptions {
  if (level === undefined || level === -1) return {};
  const problem = compressionLevelProblem('gzip', level);
  if (problem) throw new RangeError(problem);
  return { level };
}

const gzipCodec: CodecImpl = {
  compress: (data, level) => zlib.gzipSync(data, gzipOptions(level)),
  decompress: (data, maxOutput) => {
    try {
      return zlib.gunzipSync(data, gunzipOptions(maxOutput));
    } catch (err) {
      return gunzipError(err, maxOutput);
    }
  },
  compressAsync: (data, level) => gzipAsync(data, gzipOptions(level)),
  decompressAsync: (data, maxOutput) => gunzipAsync(data, gunzipOptions(maxOutput)).catch((err: unknown) => gunzipError(err, maxOutput)),
};

/** Pure TypeScript and fast enough to run synchronously: the async entry points call these. */
const snappyCodec: CodecImpl = { compress: snappyCompressFramed, decompress: (data, maxOutput) => snappyDecompress(data, maxOutput) };
const lz4Codec: CodecImpl = { compress: (data, level) => lz4CompressFrame(data, level), decompress: (data, maxOutput) => lz4DecompressFrame(data, maxOutput) };
const zstdCodec: CodecImpl = { compress: (data, level) => zstdCompress(data, level), decompress: (data, maxOutput) => zstdDecompress(data, maxOutput) };

const registry = new Map<number, Registered>([
  [CompressionType.GZIP, { id: CompressionType.GZIP, name: 'gzip', impl: gzipCodec }],
  [CompressionType.SNAPPY, { id: CompressionType.SNAPPY, name: 'snappy', impl: snappyCodec }],
  [CompressionType.LZ4, { id: CompressionType.LZ4, name: 'lz4', impl: lz4Codec }],
  [CompressionType.ZSTD, { id: CompressionType.ZSTD, name: 'zstd', impl: zstdCodec }],
]);

/** The codec's name: Kafka's for 0-4, the registered one for 5-7, else `unknown`. */
export function compressionName(id: number): string {
  return registry.get(id)?.name ?? KAFKA_NAMES[id] ?? 'unknown';
}

/** The id for a Kafka codec name ('none', 'gzip', 'snappy', 'lz4', 'zstd') or a registered one. */
export function compressionId(name: string): number {
  const k = KAFKA_NAMES.indexOf(name);
  if (k >= 0) return k;
  for (const r of registry.values()) if (r.name === name) return r.id;
  throw new UnsupportedCompressionError(-1, `unknown compression codec name '${name}' (Kafka defines none, gzip, snappy, lz4, zstd)`);
}

/** True when `id` can be used by this build: 0-4 always, 5-7 once registered. */
export function isCodecSupported(id: number): boolean {
  return id === CompressionType.NONE || registry.has(id);
}

/**
 * Registers (or replaces) the implementation for codec `id` (1-7). For ids 1-4 `name` must be
 * Kafka's name for it. Returns a function that restores the previous registration.
 */
export function registerCodec(id: number, name: string, impl: CodecImpl): () => void {
  if (!Number.isInteger(id) || id < 1 || id > 7) {
    throw new RangeError(`compression codec id must be 1-7 (0 is 'none'), got ${id}`);
  }
  if (id <= 4 && name !== KAFKA_NAMES[id]) {
    throw new RangeError(`compression codec id ${id} is Kafka's '${KAFKA_NAMES[id]}', not '${name}'`);
  }
  if (!(impl.compress || impl.compressAsync) || !(impl.decompress || impl.decompressAsync)) {
    throw new TypeError(`codec ${name} (${id}) needs a compress and a decompress function (sync or async)`);
  }
  const previous = registry.get(id);
  registry.set(id, { id, name, impl });
  return () => {
    if (previous) registry.set(id, previous);
    else registry.delete(id);
  };
}

function lookup(id: number): Registered {
  const r = registry.get(id);
  if (r) return r;
  if (Number.isInteger(id) && id >= 2 && id <= 4) {
    throw new UnsupportedCompressionError(id, `compression codec ${KAFKA_NAMES[id]} (${id}) is not supported by this build`);
  }
  throw new UnsupportedCompressionError(
    id,
    `compression codec id ${id} is unknown (Kafka defines 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)`,
  );
}

function asyncOnly(r: Registered, op: string): never {
  throw new UnsupportedCompressionError(r.id, `compression codec ${r.name} (${r.id}) only has an async ${op}; use the async API`);
}

/** Compresses with codec `id` at `level` (its default when left out); id 0 returns the input unchanged. */
export function compress(id: number, data: Uint8Array, level?: number): Uint8Array {
  if (id === CompressionType.NONE) return data;
  const r = lookup(id);
  return r.impl.compress ? r.impl.compress(data, level) : asyncOnly(r, 'compress');
}

function bounded(r: Registered, out: Uint8Array, maxOutput: number): Uint8Array {
  if (out.length > maxOutput) throw new DecompressedSizeError(r.name, maxOutput);
  return out;
}

/**
 * Decompresses with codec `id`; id 0 returns the input unchanged. More than `maxOutput` bytes of
 * output throw DecompressedSizeError (the built-in codecs stop as soon as they pass it).
 */
export function decompress(id: number, data: Uint8Array, maxOutput = Infinity): Uint8Array {
  if (id === CompressionType.NONE) return data;
  const r = lookup(id);
  const limit = maxOutput === Infinity ? undefined : maxOutput;
  return bounded(r, r.impl.decompress ? r.impl.decompress(data, limit) : asyncOnly(r, 'decompress'), maxOutput);
}

/** Async compress: keeps the event loop free for big batches (zlib runs on the thread pool). */
export async function compressAsync(id: number, data: Uint8Array, level?: number): Promise<Uint8Array> {
  if (id === CompressionType.NONE) return data;
  const r = lookup(id);
  return r.impl.compressAsync ? r.impl.compressAsync(data, level) : r.impl.compress!(data, level);
}

/** Async decompress; see compressAsync and decompress. */
export async function decompressAsync(id: number, data: Uint8Array, maxOutput = Infinity): Promise<Uint8Array> {
  if (id === CompressionType.NONE) return data;
  const r = lookup(id);
  const limit = maxOutput === Infinity ? undefined : maxOutput;
  return bounded(r, r.impl.decompressAsync ? await r.impl.decompressAsync(data, limit) : r.impl.decompress!(data, limit), maxOutput);
}
