/**
 * The leader epoch cache of one partition: (epoch, start offset) pairs, both strictly
 * increasing, persisted to `leader-epoch-checkpoint`. It answers OffsetsForLeaderEpoch
 * (`endOffsetFor`) so a follower knows where to truncate after a leader change. Memory is
 * updated synchronously. Truncations rewrite the checkpoint at once, in the background
 * (coalesced); a new epoch is only written by `flushed()`, which the log calls before it moves
 * its recovery point, and at close (as Kafka does since KAFKA-15046): an epoch the checkpoint
 * misses after a crash starts above the recovery point, where recovery reads it back from the
 * batches, or has no records at all. Creating or moving a thousand leaderships then costs no
 * fsyncs. `flushed()` waits for every write.
 */
import path from 'node:path';
import {
  CheckpointError,
  CheckpointWriter,
  LEADER_EPOCH_CHECKPOINT,
  formatEpochCheckpoint,
  parseEpochCheckpoint,
  readTextIfExists,
  type EpochEntry,
} from './checkpoint.js';
import type { Logger } from '../runtime/logger.js';

export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

export interface EpochEndOffset {
  readonly leaderEpoch: number;
  readonly endOffset: number;
}

export class LeaderEpochCache {
  private epochs: EpochEntry[] = [];
  private readonly writer: CheckpointWriter;
  private writeError: Error | null = null;
  /** Assignments not in a scheduled write yet (written by `flushed()`). */
  private unwritten = false;

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
  ) {
    this.writer = new CheckpointWriter(path.join(dir, LEADER_EPOCH_CHECKPOINT));
  }

  /** Reads the checkpoint; a malformed one is logged and treated as empty. */
  load(): void {
    const file = this.writer.file;
    const text = readTextIfExists(file);
    this.epochs = [];
    if (text === null) return;
    try {
      const entries = parseEpochCheckpoint(file, text);
      for (const e of entries) this.assignInMemory(e.epoch, e.startOffset);
    } catch (err) {
      if (!(err instanceof CheckpointError)) throw err;
      this.logger.warn('ignoring a malformed leader epoch checkpoint', { reason: err.message });
      this.epochs = [];
    }
  }

  entries(): readonly EpochEntry[] {
    return this.epochs;
  }

  latestEpoch(): number {
    return this.epochs.length === 0 ? UNDEFINED_EPOCH : this.epochs[this.epochs.length - 1]!.epoch;
  }

  /**
   * Records that `epoch` starts at `startOffset`. Entries that contradict it (an epoch >= it, or
   * a start offset >= its start) are dropped first. Returns true when the cache changed.
   */
  assign(epoch: number, startOffset: number): boolean {
    if (!this.assignInMemory(epoch, startOffset)) return false;
    this.unwritten = true;
    return true;
  }

  /**
   * OffsetsForLeaderEpoch: the largest epoch <= `requested` and the offset where it ends (the
   * next epoch's start, or the log end offset for the latest epoch). (-1, -1) when `requested`
   * is above every known epoch or the cache is empty.
   */
  endOffsetFor(requested: number, logEndOffset: number): EpochEndOffset {
    if (requested === UNDEFINED_EPOCH || this.epochs.length === 0) {
      return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    }
    if (requested === this.latestEpoch()) return { leaderEpoch: requested, endOffset: logEndOffset };
    let higher = -1;
    for (let i = 0; i < this.epochs.length; i++) {
      if (this.epochs[i]!.epoch > requested) {
        higher = i;
        break;
      }
    }
    if (higher < 0) return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    const endOffset = this.epochs[higher]!.startOffset;
    if (higher === 0) return { leaderEpoch: requested, endOffset };
    return { leaderEpoch: this.epochs[higher - 1]!.epoch, endOffset };
  }

  /** Drops entries starting at or after `endOffset` (after a truncation of the log). */
  truncateFromEnd(endOffset: number): void {
    const before = this.epochs.length;
    this.epochs = this.epochs.filter((e) => e.startOffset < endOffset);
    if (this.epochs.length !== before) this.scheduleWrite();
  }

  /**
   * The log now starts at `startOffset`: entries wholly below it go, and the entry covering it
   * moves its start up to it.
   */
  truncateFromStart(startOffset: number): void {
    let changed = false;
    while (this.epochs.length > 1 && this.epochs[1]!.startOffset <= startOffset) {
      this.epochs.shift();
      changed = true;
    }
    const first = this.epochs[0];
    if (first && first.startOffset < startOffset) {
      this.epochs[0] = { epoch: first.epoch, startOffset };
      changed = true;
    }
    if (changed) this.scheduleWrite();
  }

  clear(): void {
    if (this.epochs.length === 0) return;
    this.epochs = [];
    this.scheduleWrite();
  }

  /** Waits for checkpoint writes in flight; rethrows the first failure since the last call. */
  async flushed(): Promise<void> {
    if (this.unwritten) this.scheduleWrite();
    await this.writer.idle();
    const err = this.writeError;
    this.writeError = null;
    if (err) throw err;
  }

  private assignInMemory(epoch: number, startOffset: number): boolean {
    if (epoch < 0 || startOffset < 0) return false;
    const last = this.epochs[this.epochs.length - 1];
    if (last && last.epoch === epoch && last.startOffset <= startOffset) return false;
    this.epochs = this.epochs.filter((e) => e.epoch < epoch && e.startOffset < startOffset);
    this.epochs.push({ epoch, startOffset });
    return true;
  }

  private scheduleWrite(): void {
    // every write renders the whole cache: assignments waiting for a flush go with it
    this.unwritten = false;
    const snapshot = (): string => formatEpochCheckpoint(this.epochs);
    this.writer.write(snapshot).catch((err: Error) => {
      this.writeError ??= err;
      this.logger.error('leader epoch checkpoint write failed', { error: err.message });
    });
  }
}
