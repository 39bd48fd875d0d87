/**
 * Log compaction, Kafka's log cleaner, for logs whose cleanup.policy has `compact`: the log keeps
 * at least the latest record of every key, and drops the records a later one with the same key
 * has replaced.
 *
 * One pass over a log (`compactLog`):
 * 1. Plan (`planCompaction`): the cleanable segments are the inactive ones, from the first, whose
 *    records are all below the last stable offset (the high watermark, or the first offset of a
 *    transaction still open) and older than min.compaction.lag.ms. Those below
 *    the log's first dirty offset (where the last pass ended) are clean, the rest dirty. The pass
 *    runs when dirty bytes / cleanable bytes reach min.cleanable.dirty.ratio, when the first
 *    dirty segment is older than max.compaction.lag.ms, or when the earliest delete horizon the
 *    last pass left in the log has passed (then even with nothing dirty: see below).
 * 2. Map: every record of the dirty segments gives key -> its offset, so the map ends holding each
 *    key's latest offset; records of aborted transactions (the log's transaction index) never count. It stops growing at log.cleaner.dedupe.buffer.size (estimated memory),
 *    at a segment boundary: the pass then cleans up to there.
 * 3. Rewrite: the cleanable segments up to the mapped end are copied, neighbours together while
 *    they fit in segment.bytes (Kafka's grouping), to `<first base>.log.cleaned` without
 *    - records whose key has a later offset in the map,
 *    - records without a key (a compacted topic refuses them; older ones may predate the policy),
 *    - records of aborted transactions (as Kafka's cleaner discards them),
 *    - tombstones (null values) of a batch whose delete horizon has passed.
 *    Batches keep their offsets, leader epoch, producer id, epoch and sequence, codec and
 *    timestamp type: a batch that lost no record (and gains no delete horizon, below) is copied
 *    byte for byte, one that lost some is encoded again with the rest, one that lost all is
 *    dropped, except an idempotent producer's last batch, kept empty so its sequence survives (as
 *    Kafka does: no horizon, base timestamp -1, its max timestamp). A transaction marker stays
 *    while a batch of its transaction is in the log (MarkerTracker); once none is, it gets a
 *    delete horizon as tombstones do (below) and a pass after it removes the marker, and an
 *    ABORT marker's transaction leaves the log's transaction index with it. A producer's last
 *    batch stays either way.
 * 4. Swap: the cleaned file is fsynced, then replaces its segments (PartitionLog.replaceSegments:
 *    renamed to `<base>.<end>.swap`, which decides the swap, the old files deleted, the swap
 *    renamed to `<base>.log`, indexes rebuilt; an open after a crash finishes a swap file). A
 *    segment that changed meanwhile (truncated or deleted by retention) ends the pass without a
 *    swap. At the end the first dirty offset moves to the end of what was mapped (the log
 *    manager checkpoints it).
 *
 * Tombstones (KIP-534, as Kafka 3.1+): a batch the pass keeps with a tombstone in it and no delete
 * horizon yet is encoded again with one: attribute bit 6 set and the base timestamp replaced by
 * now + delete.retention.ms, the record timestamp deltas taken from it so every record reads as
 * its own timestamp (max timestamp, which the indexes and retention use, is unchanged; the CRC is
 * computed anew). A later pass at or after the horizon drops the batch's tombstones, so a tombstone
 * lives about delete.retention.ms from the first pass that kept it, whatever its timestamp; a
 * batch encoded again later keeps the horizon it has, tombstones left or not (as Kafka's). A
 * batch without the horizon never loses a tombstone: Kafka's older rule (the segment's last
 * modification older than delete.retention.ms) is only for pre-v2 batches, which samsa has not.
 * An infinite delete.retention.ms (or one whose horizon passes 2^53) sets no horizon: the
 * tombstones stay. The pass notes the earliest horizon of the batches that still hold tombstones
 * (CleanableLog.markCleaned), and planCompaction makes a pass due when it has passed, even with
 * nothing dirty: Kafka's cleaner does not (there a log with nothing new keeps its expired
 * tombstones until it is dirty enough again). After an open the earliest horizon is not known,
 * only bounded: every horizon written before is below open time + delete.retention.ms, when one
 * pass over the clean part finds them (PartitionLog).
 *
 * Reads are async and in chunks, and the pass hands the thread back every sliceMs of its own
 * work, so the broker's other actors run in between. Offsets never change: consumers and
 * followers see gaps, which they already step over by batch last offsets.
 */
import fs from 'node:fs';
import {
  CONTROL_FLAG_MASK,
  LOG_OVERHEAD,
  NO_TIMESTAMP,
  RECORD_BATCH_OVERHEAD,
  TRANSACTIONAL_FLAG_MASK,
  TimestampType,
  attributesOf,
  batchSizeAt,
  baseOffsetOf,
  deleteHorizonFrom,
  readBatchHeader,
} from '../protocol/batch-header.js';
import { ControlType, txnMarkerTypeAt } from '../protocol/control-records.js';
import { BROKER_MAX_DECOMPRESSED_BYTES } from '../protocol/decompressed-size.js';
import { decodeRecordBatch, encodeRecordBatch, type DecodedRecord, type DecodedRecordBatch } from '../protocol/record-batch.js';
import type { LogConfig } from './log-config.js';
import type { LogSegment } from './segment.js';

/** Suffix of a segment being rewritten; a leftover one (a crash mid-pass) is removed at open. */
export const CLEANED_FILE_SUFFIX = '.cleaned';

/** Kafka's log.cleaner.dedupe.buffer.size default. */
export const DEFAULT_DEDUPE_BUFFER_BYTES = 128 * 1024 * 1024;
const DEFAULT_READ_CHUNK_BYTES = 1024 * 1024;
const DEFAULT_SLICE_MS = 2;
/** Estimated memory of one map entry beyond its key's bytes (a Map slot, a string, a number). */
const MAP_ENTRY_OVERHEAD = 64;
/** Cleaned bytes gathered before a write. */
const WRITE_CHUNK_BYTES = 1024 * 1024;

export interface CleanerOptions {
  /** log.cleaner.dedupe.buffer.size: the memory the key map may take, estimated (bytes). */
  readonly dedupeBufferBytes?: number;
  /** Bytes read from a segment at a time (default 1 MiB). */
  readonly readChunkBytes?: number;
  /** Asked between chunks: true ends the pass without a swap of the segment in progress. */
  readonly shouldStop?: () => boolean;
  /**
   * Longest run of the pass's own work between two turns of the event loop, in ms (default 2):
   * the cleaner shares its thread with the broker's actors, which must not wait on it long.
   */
  readonly sliceMs?: number;
}

/** What the cleaner needs of a PartitionLog. */
export interface CleanableLog {
  readonly topic: string;
  readonly partition: number;
  readonly config: LogConfig;
  readonly highWatermark: number;
  /** The high watermark, or the first offset of a transaction still open below it: cleaning stays below. */
  readonly lastStableOffset: number;
  /** Aborted transactions with records in [from, to): their records are dropped, never mapped. */
  abortedTransactions(from: number, to: number): readonly { producerId: number; firstOffset: number; lastOffset: number }[];
  readonly logStartOffset: number;
  /** Where the last pass ended (clamped to the log); records below it are compacted. */
  readonly firstDirtyOffset: number;
  /** Counts truncations: a pass that saw one start does not move the first dirty offset. */
  readonly truncations: number;
  /** True while the log takes appends and reads. */
  readonly isOpen: boolean;
  segmentsForCleaning(): readonly LogSegment[];
  /**
   * Puts `cleanedFile` in place of `group` (consecutive segments) when they are still in the log
   * with `expectedSizes` bytes: how many segments left the list, or null (a segment changed
   * meanwhile; nothing was done).
   */
  replaceSegments(group: readonly LogSegment[], expectedSizes: readonly number[], cleanedFile: string): Promise<number | null>;
  /**
   * The earliest delete horizon of a batch in the compacted part that still holds tombstones, as
   * far as is known (Infinity: none); a pass is due once it has passed.
   */
  readonly earliestDeleteHorizon: number;
  /**
   * The pass mapped everything below `offset`, and left tombstones whose earliest delete horizon
   * is `earliestDeleteHorizon` (Infinity: none) in what it went through.
   */
  markCleaned(offset: number, truncationsAtStart: number, earliestDeleteHorizon: number): void;
  /** ABORT markers a swap removed: their aborted transactions leave the log's transaction index. */
  forgetAbortedTransactions(markers: readonly { producerId: number; lastOffset: number }[]): void;
}

export interface CompactionPlan {
  /** The cleanable segments, oldest first. */
  readonly segments: readonly LogSegment[];
  /** Index in `segments` of the first dirty one. */
  readonly firstDirtyIndex: number;
  readonly cleanBytes: number;
  readonly dirtyBytes: number;
  /** dirtyBytes / (cleanBytes + dirtyBytes). */
  readonly dirtyRatio: number;
  /** The base offset of the segment after the last cleanable one. */
  readonly cleanableEnd: number;
  /**
   * Why the pass is due: the ratio, max.compaction.lag.ms, a passed delete horizon (the log's
   * earliestDeleteHorizon), or null (not due).
   */
  readonly due: 'dirty-ratio' | 'max-compaction-lag' | 'delete-horizon' | null;
}

export interface CompactionStats {
  readonly segmentsCleaned: number;
  readonly segmentsRemoved: number;
  readonly bytesRead: number;
  readonly bytesWritten: number;
  readonly recordsRead: number;
  readonly recordsRemoved: number;
  readonly tombstonesRemoved: number;
  /** Batches with tombstones, or transaction markers no longer needed, given a delete horizon (KIP-534) by the pass. */
  readonly deleteHorizonsSet: number;
  /** Transaction markers removed: their transaction left no record behind, and their delete horizon had passed. */
  readonly markersRemoved: number;
  readonly keysMapped: number;
  /** The first dirty offset after the pass (everything below it compacted). */
  readonly cleanedUpTo: number;
  /** A segment changed under the pass, the log closed, or the pass was stopped. */
  readonly aborted: boolean;
}

/** A damaged batch in a segment: the pass stops and the segment stays as it is. */
export class CompactionError extends Error {
  override readonly name = 'CompactionError';
}

class Aborted extends Error {}

/**
 * Which segments one pass would clean, and whether it is due. Null when the log has no
 * cleanable dirty bytes (nothing inactive below the high watermark and the lag, or all clean)
 * and no passed delete horizon.
 */
export function planCompaction(log: CleanableLog, now: number): CompactionPlan | null {
  const all = log.segmentsForCleaning();
  const config = log.config;
  const cleanable: LogSegment[] = [];
  for (let i = 0; i < all.length - 1; i++) {
    const segment = all[i]!;
    if (all[i + 1]!.baseOffset > log.lastStableOffset) break;
    if (config.minCompactionLagMs > 0 && now - segment.largestTimestamp() < config.minCompactionLagMs) break;
    cleanable.push(segment);
  }
  if (cleanable.length === 0) return null;
  const firstDirty = Math.max(log.firstDirtyOffset, log.logStartOffset);
  let firstDirtyIndex = cleanable.length;
  for (let i = 0; i < cleanable.length; i++) {
    const next = i + 1 < all.length ? all[i + 1]!.baseOffset : Infinity;
    if (next > firstDirty) {
      firstDirtyIndex = i;
      break;
    }
  }
  const horizonPassed = log.earliestDeleteHorizon <= now;
  if (firstDirtyIndex === cleanable.length && !horizonPassed) return null;
  let cleanBytes = 0;
  let dirtyBytes = 0;
  for (let i = 0; i < cleanable.length; i++) {
    if (i < firstDirtyIndex) cleanBytes += cleanable[i]!.size;
    else dirtyBytes += cleanable[i]!.size;
  }
  const total = cleanBytes + dirtyBytes;
  const dirtyRatio = total === 0 ? 0 : dirtyBytes / total;
  let due: CompactionPlan['due'] = null;
  if (dirtyBytes > 0 && dirtyRatio >= config.minCleanableDirtyRatio) due = 'dirty-ratio';
  else if (dirtyBytes > 0 && config.maxCompactionLagMs !== Infinity && now - cleanable[firstDirtyIndex]!.largestTimestamp() > config.maxCompactionLagMs) due = 'max-compaction-lag';
  else if (horizonPassed) due = 'delete-horizon';
  return { segments: cleanable, firstDirtyIndex, cleanBytes, dirtyBytes, dirtyRatio, cleanableEnd: all[cleanable.length]!.baseOffset, due };
}

/** One whole batch inside a chunk read from a segment. */
interface BatchAt {
  readonly buf: Buffer;
  readonly pos: number;
  readonly size: number;
}

/** Hands the thread back to the event loop once a slice of work is used up. */
class Slicer {
  private since = performance.now();
  constructor(private readonly sliceMs: number) {}

  async maybeYield(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/**
 * The batches of `segment`'s first `end` bytes, read in chunks, the event loop given a turn
 * whenever `slicer`'s slice is used up; throws Aborted when the segment is retired.
 */
async function* batchesOf(segment: LogSegment, end: number, chunkBytes: number, shouldStop: () => boolean, slicer: Slicer): AsyncGenerator<BatchAt> {
  let position = 0;
  while (position < end) {
    // asked first: what runs meanwhile (a truncation, retention) may retire the segment
    if (shouldStop() || segment.handle.retired) throw new Aborted();
    let buf = await segment.readBytes(position, Math.min(chunkBytes, end - position));
    if (buf.length >= LOG_OVERHEAD) {
      const first = batchSizeAt(buf, 0);
      // a batch larger than a chunk: read it whole
      if (first > buf.length && first >= RECORD_BATCH_OVERHEAD && position + first <= end) buf = await segment.readBytes(position, first);
    }
    let pos = 0;
    while (buf.length - pos >= LOG_OVERHEAD) {
      const size = batchSizeAt(buf, pos);
      if (size < RECORD_BATCH_OVERHEAD) throw new CompactionError(`${segment.logFile}: impossible batch length at byte ${position + pos}`);
      if (size > buf.length - pos) break;
      yield { buf, pos, size };
      pos += size;
      await slicer.maybeYield();
    }
    if (pos === 0) throw new CompactionError(`${segment.logFile}: a torn batch at byte ${position}`);
    position += pos;
  }
}

function isControl(b: BatchAt): boolean {
  return (attributesOf(b.buf, b.pos) & CONTROL_FLAG_MASK) !== 0;
}

/** producer id -> the [first, last] offset ranges of its aborted transactions. */
type AbortedRanges = ReadonlyMap<number, readonly [number, number][]>;

function abortedRanges(list: readonly { producerId: number; firstOffset: number; lastOffset: number }[]): AbortedRanges {
  const out = new Map<number, [number, number][]>();
  for (const a of list) {
    const ranges = out.get(a.producerId) ?? [];
    ranges.push([a.firstOffset, a.lastOffset]);
    out.set(a.producerId, ranges);
  }
  return out;
}

/** Whether the batch at `b` holds records of an aborted transaction (Kafka's cleaner discards them). */
function isAbortedData(b: BatchAt, aborted: AbortedRanges): boolean {
  if (aborted.size === 0 || (attributesOf(b.buf, b.pos) & TRANSACTIONAL_FLAG_MASK) === 0 || isControl(b)) return false;
  const h = readBatchHeader(b.buf, b.pos);
  const ranges = aborted.get(h.producerId);
  return ranges !== undefined && ranges.some(([first, last]) => h.baseOffset >= first && h.baseOffset <= last);
}

function decode(segment: LogSegment, b: BatchAt, position: number): DecodedRecordBatch {
  try {
    return decodeRecordBatch(b.buf, b.pos, CLEANER_DECODE);
  } catch (err) {
    throw new CompactionError(`${segment.logFile}: the batch at offset ${baseOffsetOf(b.buf, b.pos)} (byte ${position}) cannot be read: ${(err as Error).message}`);
  }
}

const CLEANER_DECODE = { maxDecompressedBytes: BROKER_MAX_DECOMPRESSED_BYTES } as const;

/** key -> latest offset, with its estimated memory. */
class OffsetMap {
  readonly latest = new Map<string, number>();
  bytes = 0;
  constructor(readonly capacityBytes: number) {}

  get full(): boolean {
    return this.bytes >= this.capacityBytes;
  }

  put(key: Buffer, offset: number): void {
    const k = key.toString('latin1');
    if (!this.latest.has(k)) this.bytes += key.length + MAP_ENTRY_OVERHEAD;
    this.latest.set(k, offset);
  }

  /** True when a later record has the same key. */
  superseded(key: Buffer, offset: number): boolean {
    const latest = this.latest.get(key.toString('latin1'));
    return latest !== undefined && latest > offset;
  }
}

/** Writes a cleaned segment file in chunks. */
class CleanedFile {
  private parts: Buffer[] = [];
  private pending = 0;
  written = 0;
  private constructor(
    readonly path: string,
    private readonly fh: fs.promises.FileHandle,
  ) {}

  static async create(path: string): Promise<CleanedFile> {
    return new CleanedFile(path, await fs.promises.open(path, 'w', 0o644));
  }

  async add(bytes: Buffer): Promise<void> {
    this.parts.push(bytes);
    this.pending += bytes.length;
    if (this.pending >= WRITE_CHUNK_BYTES) await this.drain();
  }

  private async drain(): Promise<void> {
    const parts = this.parts;
    this.parts = [];
    this.pending = 0;
    let done = 0;
    const total = parts.reduce((n, p) => n + p.length, 0);
    while (done < total) {
      const { bytesWritten } = await this.fh.writev(done === 0 ? parts : [Buffer.concat(parts).subarray(done)], this.written + done);
      done += bytesWritten;
    }
    this.written += total;
  }

  /** Writes what is left, fsyncs and closes. */
  async finish(): Promise<void> {
    await this.drain();
    await this.fh.sync();
    await this.fh.close();
  }

  /** Closes and removes the file (a pass that ends early). */
  async discard(): Promise<void> {
    await this.fh.close().catch(() => undefined);
    await fs.promises.rm(this.path, { force: true });
  }
}

interface PassCounters {
  bytesRead: number;
  bytesWritten: number;
  recordsRead: number;
  recordsRemoved: number;
  tombstonesRemoved: number;
  deleteHorizonsSet: number;
  markersRemoved: number;
}

/**
 * Which transaction markers a pass may remove, decided as Kafka's cleaner does
 * (CleanedTransactionMetadata) while it walks the log from its start in offset order: a marker
 * is still needed while any batch of its transaction is in the log, since a read_committed
 * reader (and the transaction index rebuilt from the log) learns from it where the
 * transaction ends. So a marker may go once the walk met no transactional batch of its producer
 * since the producer's previous marker. A pass drops an aborted transaction's batches, so its
 * ABORT marker goes in a later pass.
 */
class MarkerTracker {
  /** Producers with transactional batches met since their last marker. */
  private readonly met = new Set<number>();

  /** A data batch the walk met (whether the pass keeps it or not). */
  onData(b: BatchAt): void {
    if ((attributesOf(b.buf, b.pos) & TRANSACTIONAL_FLAG_MASK) === 0) return;
    const producerId = readBatchHeader(b.buf, b.pos).producerId;
    if (producerId >= 0) this.met.add(producerId);
  }

  /** A marker the walk met: true when no batch of its transaction is left before it. */
  onMarker(producerId: number): boolean {
    return !this.met.delete(producerId);
  }
}

/** What a pass's rewrite needs beyond the batch: the time, the retention, what it saw. */
interface TombstoneClock {
  /** The time the pass started (Kafka's currentTime of a cleaning). */
  readonly now: number;
  /** The horizon a batch with tombstones gets (now + delete.retention.ms), or null for none. */
  readonly newHorizon: number | null;
  /** The earliest horizon of the batches kept with tombstones so far. */
  earliestLeft: number;
}

/**
 * The delete horizon a pass at `now` gives a batch with tombstones: now + delete.retention.ms,
 * or null when that is infinite or past 2^53 (Kafka's overflowing sum sets no horizon either).
 */
export function horizonAt(now: number, deleteRetentionMs: number): number | null {
  const horizon = now + deleteRetentionMs;
  return Number.isSafeInteger(horizon) ? horizon : null;
}

/**
 * The batch at `b` as it goes to the cleaned segment: itself, re-encoded with the records kept
 * (and a delete horizon when it keeps tombstones and has none yet), an empty batch (an idempotent
 * producer's last), or null (dropped).
 */
function cleanBatch(
  segment: LogSegment,
  b: BatchAt,
  position: number,
  map: OffsetMap,
  tombstones: TombstoneClock,
  producerLast: ReadonlyMap<number, number>,
  counters: PassCounters,
  aborted: AbortedRanges,
  markers: MarkerTracker,
  droppedAborts: { producerId: number; lastOffset: number }[],
): Buffer | null {
  const whole = b.buf.subarray(b.pos, b.pos + b.size);
  if (isControl(b)) return cleanMarker(segment, b, position, whole, tombstones, producerLast, counters, markers, droppedAborts);
  markers.onData(b);
  const batch = decode(segment, b, position);
  const abortedData = isAbortedData(b, aborted);
  const horizon = deleteHorizonFrom(batch.attributes, batch.baseTimestamp);
  // Kafka keeps a tombstone while the batch has no horizon or the time is before it
  const tombstonesGo = horizon !== null && horizon <= tombstones.now;
  const kept: DecodedRecord[] = [];
  let keptTombstone = false;
  for (const r of batch.records) {
    counters.recordsRead++;
    if (abortedData || r.key === null || map.superseded(r.key, r.offset)) continue;
    if (r.value === null) {
      if (tombstonesGo) {
        counters.tombstonesRemoved++;
        continue;
      }
      keptTombstone = true;
    }
    kept.push(r);
  }
  counters.recordsRemoved += batch.records.length - kept.length;
  const setHorizon = keptTombstone && horizon === null && tombstones.newHorizon !== null;
  const horizonKept = setHorizon ? tombstones.newHorizon : horizon;
  if (keptTombstone && horizonKept !== null && horizonKept < tombstones.earliestLeft) tombstones.earliestLeft = horizonKept;
  if (kept.length === batch.records.length && !setHorizon) return whole;
  const lastOffset = batch.baseOffset + batch.lastOffsetDelta;
  const keepEmpty = batch.producerId >= 0 && producerLast.get(batch.producerId) === lastOffset;
  const header = headerOf(batch);
  if (kept.length === 0) {
    // as Kafka's empty batch header: no horizon, no base timestamp, the max timestamp it had
    if (!keepEmpty) return null;
    return encodeRecordBatch({ ...header, baseTimestamp: NO_TIMESTAMP, maxTimestamp: batch.maxTimestamp, records: [] });
  }
  if (setHorizon) counters.deleteHorizonsSet++;
  const logAppendTime = batch.timestampType === TimestampType.LOG_APPEND_TIME;
  let maxTimestamp = logAppendTime ? batch.maxTimestamp : -1;
  if (!logAppendTime) for (const r of kept) if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
  // the records keep their own timestamps: with a horizon, their deltas are taken from it
  return encodeRecordBatch({
    ...header,
    compression: batch.compression,
    ...(horizonKept === null ? { baseTimestamp: batch.baseTimestamp } : { deleteHorizonMs: horizonKept }),
    maxTimestamp,
    records: recordsOf(batch, kept),
  });
}

/** What a batch encoded again keeps of `batch`: offsets, leader epoch, timestamp type, producer fields, and whether it is transactional or control. */
function headerOf(batch: DecodedRecordBatch) {
  return {
    baseOffset: batch.baseOffset,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    timestampType: batch.timestampType,
    transactional: batch.transactional,
    control: batch.control,
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    lastOffsetDelta: batch.lastOffsetDelta,
  };
}

/** `records` of `batch` as the encoder takes them: each keeps its own timestamp and its offset within the batch. */
function recordsOf(batch: DecodedRecordBatch, records: readonly DecodedRecord[]) {
  return records.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp, offsetDelta: r.offset - batch.baseOffset }));
}

/**
 * A control batch as it goes to the cleaned segment. A transaction marker no longer needed
 * (MarkerTracker) gets a delete horizon the first time (now + delete.retention.ms, as a
 * tombstone's: a read_committed reader already past the transaction's records has that long to
 * reach it) and is dropped by a pass at or after it; a producer's last batch stays (its epoch
 * and sequence live in it), as does every marker under an infinite delete.retention.ms.
 */
function cleanMarker(
  segment: LogSegment,
  b: BatchAt,
  position: number,
  whole: Buffer,
  tombstones: TombstoneClock,
  producerLast: ReadonlyMap<number, number>,
  counters: PassCounters,
  markers: MarkerTracker,
  droppedAborts: { producerId: number; lastOffset: number }[],
): Buffer | null {
  const type = txnMarkerTypeAt(b.buf, b.pos);
  if (type === null) return whole;
  const h = readBatchHeader(b.buf, b.pos);
  const lastOffset = h.baseOffset + h.lastOffsetDelta;
  if (!markers.onMarker(h.producerId) || producerLast.get(h.producerId) === lastOffset) return whole;
  const horizon = deleteHorizonFrom(attributesOf(b.buf, b.pos), h.baseTimestamp);
  if (horizon !== null && horizon <= tombstones.now) {
    counters.markersRemoved++;
    if (type === ControlType.ABORT) droppedAborts.push({ producerId: h.producerId, lastOffset });
    return null;
  }
  const kept = horizon ?? tombstones.newHorizon;
  if (kept === null) return whole;
  if (kept < tombstones.earliestLeft) tombstones.earliestLeft = kept;
  if (horizon !== null) return whole;
  const batch = decode(segment, b, position);
  counters.deleteHorizonsSet++;
  return encodeRecordBatch({ ...headerOf(batch), compression: batch.compression, deleteHorizonMs: kept, maxTimestamp: batch.maxTimestamp, records: recordsOf(batch, batch.records) });
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * Consecutive runs of segments[0, end) cleaned into one file each (Kafka's grouping): as many
 * neighbours as fit in segment.bytes together, as they are now (cleaning only shrinks them), and
 * whose offsets stay within 2^31 of the first one's base (the indexes store them relative to it).
 */
export function groupSegments(segments: readonly LogSegment[], sizes: readonly number[], end: number, cleanableEnd: number, segmentBytes: number): { start: number; end: number }[] {
  const groups: { start: number; end: number }[] = [];
  let start = 0;
  while (start < end) {
    let bytes = sizes[start]!;
    let stop = start + 1;
    while (stop < end) {
      const nextBase = stop + 1 < segments.length ? segments[stop + 1]!.baseOffset : cleanableEnd;
      if (bytes + sizes[stop]! > segmentBytes || nextBase - 1 - segments[start]!.baseOffset > INT32_MAX) break;
      bytes += sizes[stop]!;
      stop++;
    }
    groups.push({ start, end: stop });
    start = stop;
  }
  return groups;
}

/**
 * One compaction pass over `log` along `plan` (see planCompaction; a plan that is not due is
 * run all the same). Throws CompactionError for a damaged batch and I/O errors as they come;
 * either way no segment is left half replaced.
 */
export async function compactLog(log: CleanableLog, plan: CompactionPlan, now: number, options: CleanerOptions = {}): Promise<CompactionStats> {
  const chunk = options.readChunkBytes ?? DEFAULT_READ_CHUNK_BYTES;
  const stopRequested = options.shouldStop ?? (() => false);
  const shouldStop = (): boolean => stopRequested() || !log.isOpen;
  const slicer = new Slicer(options.sliceMs ?? DEFAULT_SLICE_MS);
  const truncationsAtStart = log.truncations;
  const firstDirtyAtStart = log.firstDirtyOffset;
  const map = new OffsetMap(options.dedupeBufferBytes ?? DEFAULT_DEDUPE_BUFFER_BYTES);
  const counters: PassCounters = { bytesRead: 0, bytesWritten: 0, recordsRead: 0, recordsRemoved: 0, tombstonesRemoved: 0, deleteHorizonsSet: 0, markersRemoved: 0 };
  const markers = new MarkerTracker();
  const tombstones: TombstoneClock = { now, newHorizon: horizonAt(now, log.config.deleteRetentionMs), earliestLeft: Infinity };
  const segments = plan.segments;
  const sizes = segments.map((s) => s.size);
  const producerLast = new Map<number, number>();
  // records of aborted transactions are never the latest of their key, and go
  const aborted = abortedRanges(segments.length > 0 ? log.abortedTransactions(segments[0]!.baseOffset, plan.cleanableEnd) : []);
  let mappedEnd = plan.firstDirtyIndex;
  let segmentsCleaned = 0;
  let segmentsRemoved = 0;
  const result = (aborted: boolean): CompactionStats => ({
    segmentsCleaned,
    segmentsRemoved,
    ...counters,
    keysMapped: map.latest.size,
    cleanedUpTo: log.firstDirtyOffset,
    aborted,
  });
  try {
    // the producers' last batches (headers), and the key map over the dirty part; the map stops
    // at its memory bound, at the end of the segment before (the first dirty one is always mapped)
    mapping: for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      let position = 0;
      for await (const b of batchesOf(segment, sizes[i]!, chunk, shouldStop, slicer)) {
        if (i > plan.firstDirtyIndex && map.full) break mapping;
        const h = readBatchHeader(b.buf, b.pos);
        if (h.producerId >= 0) producerLast.set(h.producerId, h.baseOffset + h.lastOffsetDelta);
        if (i >= plan.firstDirtyIndex && !isControl(b) && !isAbortedData(b, aborted)) {
          for (const r of decode(segment, b, position).records) if (r.key !== null) map.put(r.key, r.offset);
        }
        position += b.size;
      }
      if (i >= plan.firstDirtyIndex) mappedEnd = i + 1;
    }
    const cleanedUpTo = mappedEnd < segments.length ? segments[mappedEnd]!.baseOffset : plan.cleanableEnd;
    // rewrite the segments up to the mapped end, neighbours merged while they fit one segment;
    // a lone segment that loses nothing stays as it is
    for (const group of groupSegments(segments, sizes, mappedEnd, plan.cleanableEnd, log.config.segmentBytes)) {
      const members = segments.slice(group.start, group.end);
      const first = members[0]!;
      const out = await CleanedFile.create(first.logFile + CLEANED_FILE_SUFFIX);
      let swapped = false;
      try {
        const removedBefore = counters.recordsRemoved;
        const horizonsBefore = counters.deleteHorizonsSet;
        const markersBefore = counters.markersRemoved;
        const droppedAborts: { producerId: number; lastOffset: number }[] = [];
        for (let i = group.start; i < group.end; i++) {
          const segment = segments[i]!;
          let position = 0;
          for await (const b of batchesOf(segment, sizes[i]!, chunk, shouldStop, slicer)) {
            counters.bytesRead += b.size;
            const kept = cleanBatch(segment, b, position, map, tombstones, producerLast, counters, aborted, markers, droppedAborts);
            if (kept !== null) await out.add(kept);
            position += b.size;
          }
        }
        // a batch is only ever rewritten or dropped when it loses records or gains a horizon
        if (members.length === 1 && counters.recordsRemoved === removedBefore && counters.deleteHorizonsSet === horizonsBefore && counters.markersRemoved === markersBefore) continue;
        await out.finish();
        if (shouldStop()) return result(true);
        const removed = await log.replaceSegments(members, sizes.slice(group.start, group.end), out.path);
        if (removed === null) return result(true);
        swapped = true;
        log.forgetAbortedTransactions(droppedAborts);
        counters.bytesWritten += out.written;
        segmentsCleaned += members.length;
        segmentsRemoved += removed;
      } finally {
        if (!swapped) await out.discard();
      }
    }
    // a pass that did not reach the end of the compacted part (its cleanable segments shrank below
    // it: a lower high watermark, a longer min.compaction.lag.ms) saw only some of it; a horizon
    // still ahead stays noted for the rest, a passed one is dropped (else every look would
    // start a pass that cannot reach it) and waits for a pass that goes there
    const before = log.earliestDeleteHorizon;
    const sawAll = cleanedUpTo >= firstDirtyAtStart || before <= now;
    log.markCleaned(cleanedUpTo, truncationsAtStart, sawAll ? tombstones.earliestLeft : Math.min(tombstones.earliestLeft, before));
    return result(false);
  } catch (err) {
    if (err instanceof Aborted) return result(true);
    throw err;
  }
}
