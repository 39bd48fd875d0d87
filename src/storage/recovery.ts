/**
 * Recovery of a partition log on open after an unclean shutdown: every segment from the one
 * holding the recovery point onwards is re-read in full; each batch must pass validateBatch
 * (length, magic, CRC-32C) and carry offsets above the previous batch's and inside the segment.
 * The first batch that does not is where the log ends: the segment is cut there, later segments
 * are deleted, and each cut is logged. Indexes of recovered segments are rebuilt on the way, and
 * the leader epoch cache re-learns epochs from the batches it sees.
 */
import fs from 'node:fs';
import { validateBatch } from '../protocol/batch-header.js';
import type { Logger } from '../runtime/logger.js';
import type { LeaderEpochCache } from './leader-epoch-cache.js';
import type { LogSegment } from './segment.js';
import { ScanStatus, SegmentScanner } from './segment-scanner.js';

const INT32_MAX = 2 ** 31 - 1;

export interface SegmentRecovery {
  /** Bytes of sound batches kept. */
  readonly validBytes: number;
  /** Bytes cut from the end of the file. */
  readonly truncatedBytes: number;
  /** Offset after the last sound batch (the base offset when none). */
  readonly nextOffset: number;
  /** Why the tail was cut, or null when the whole file was sound. */
  readonly reason: string | null;
}

/**
 * Validates every batch of `segment`, rebuilding its indexes, and cuts the file at the first
 * unsound batch. Offsets must be >= `minOffset` and < `maxOffsetExclusive` (the next segment's
 * base offset).
 */
export function recoverSegment(
  segment: LogSegment,
  minOffset: number,
  maxOffsetExclusive: number,
  epochCache: LeaderEpochCache | null,
): SegmentRecovery {
  const offsetIndex = segment.resetForRecovery();
  const fd = segment.fd();
  const fileSize = fs.fstatSync(fd).size;
  const scanner = new SegmentScanner(fd, 0, fileSize, true);
  let next = Math.max(segment.baseOffset, minOffset);
  let firstTimestamp: number | null = null;
  let reason: string | null = null;
  let validBytes = 0;
  for (;;) {
    const status = scanner.next();
    if (status === ScanStatus.End) break;
    if (status !== ScanStatus.Batch) {
      reason = scanner.reason;
      break;
    }
    const invalid = validateBatch(scanner.buf, scanner.bufPos, scanner.size);
    if (invalid) {
      reason = `${invalid.reason} at position ${scanner.pos}`;
      break;
    }
    if (scanner.baseOffset < next) {
      reason = `batch at position ${scanner.pos} has base offset ${scanner.baseOffset}, expected >= ${next}`;
      break;
    }
    if (scanner.lastOffset >= maxOffsetExclusive || scanner.lastOffset - segment.baseOffset > INT32_MAX) {
      reason = `batch at position ${scanner.pos} has last offset ${scanner.lastOffset}, beyond what segment ${segment.baseOffset} may hold`;
      break;
    }
    if (firstTimestamp === null) firstTimestamp = scanner.maxTimestamp;
    segment.indexBatch(offsetIndex, scanner.pos, scanner.size, scanner.lastOffset, scanner.maxTimestamp);
    const epoch = scanner.partitionLeaderEpoch;
    if (epochCache && epoch >= 0 && epoch > epochCache.latestEpoch()) epochCache.assign(epoch, scanner.baseOffset);
    next = scanner.lastOffset + 1;
    validBytes = scanner.position;
  }
  if (next < segment.baseOffset) next = segment.baseOffset;
  if (validBytes === 0) next = segment.baseOffset;
  const truncatedBytes = fileSize - validBytes;
  if (truncatedBytes > 0) fs.ftruncateSync(fd, validBytes);
  segment.completeRecovery(validBytes, next, firstTimestamp);
  return { validBytes, truncatedBytes, nextOffset: next, reason: truncatedBytes > 0 ? (reason ?? 'trailing bytes') : null };
}

export interface LogRecovery {
  /** The segments that remain, in order. */
  readonly segments: LogSegment[];
  /** Segments deleted because they followed a cut. */
  readonly deletedSegments: number;
  readonly truncatedBytes: number;
}

/**
 * Recovers `segments` (sorted, at least one) from the segment holding `recoveryPoint`. Segments
 * before it are trusted untouched. The last remaining segment is left for the caller to make
 * active; the others are marked inactive with their rebuilt indexes on disk.
 */
export function recoverLog(
  segments: LogSegment[],
  recoveryPoint: number,
  epochCache: LeaderEpochCache | null,
  logger: Logger,
): LogRecovery {
  let start = 0;
  for (let i = 0; i < segments.length; i++) {
    if (segments[i]!.baseOffset <= recoveryPoint) start = i;
  }
  let minOffset = segments[start]!.baseOffset;
  let truncatedBytes = 0;
  for (let i = start; i < segments.length; i++) {
    const segment = segments[i]!;
    const nextBase = i + 1 < segments.length ? segments[i + 1]!.baseOffset : Number.MAX_SAFE_INTEGER;
    const result = recoverSegment(segment, minOffset, nextBase, epochCache);
    if (result.reason !== null) {
      truncatedBytes += result.truncatedBytes;
      const doomed = segments.slice(i + 1);
      logger.warn('truncated a damaged log tail during recovery', {
        segment: segment.logFile,
        keptBytes: result.validBytes,
        truncatedBytes: result.truncatedBytes,
        nextOffset: result.nextOffset,
        reason: result.reason,
        deletedSegments: doomed.map((s) => s.baseOffset),
      });
      for (let j = doomed.length - 1; j >= 0; j--) {
        const d = doomed[j]!;
        truncatedBytes += fs.existsSync(d.logFile) ? fs.statSync(d.logFile).size : 0;
        d.deleteFiles();
      }
      const kept = segments.slice(0, i + 1);
      return { segments: kept, deletedSegments: doomed.length, truncatedBytes };
    }
    if (i + 1 < segments.length) segment.onBecomeInactive();
    minOffset = result.nextOffset;
  }
  return { segments, deletedSegments: 0, truncatedBytes };
}
