/**
 * Loading a coordinator's partition of its internal topic, as Kafka's CoordinatorLoader does:
 * read the local leader replica from the log start up to the log end it had when the broker
 * took the partition over, handing each range read to the coordinator's replay. Shared by the
 * group coordinator (__consumer_offsets) and the transaction coordinator (__transaction_state);
 * each keeps its own messages (the read comes back to the actor as one of them) and its replay.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { BaseContext } from '../../src/runtime/actor-definition.js';
import type { Logger } from '../../src/runtime/logger.js';
import { isFailure, type ActorRef, type Message } from '../../src/runtime/types.js';
import type { ReplicaMsg, ReplicaReadResult } from '../partition-replica/messages.js';

/** What one read of a partition being loaded came back with. */
export interface LoadReadResult {
  /** Where the read started. */
  readonly fetchOffset: number;
  readonly errorCode: number;
  readonly errorMessage?: string;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly records: Uint8Array;
  /** This broker has no replica of the partition (set only then). */
  readonly noReplica?: boolean;
}

/** Where a load stands: the next offset to read, and the log end to reach (-1 until the first read tells it). */
export interface LoadPosition {
  fetchOffset: number;
  targetOffset: number;
}

/** Applies batches read from `fetchOffset`: the offset after the last one, and what could not be decoded. Throws on a corrupt batch. */
export type LoadReplay = (records: Uint8Array, fetchOffset: number) => { nextOffset: number; problems: readonly unknown[] };

/**
 * What the coordinator does next: read on now, read again after a backoff, finish the load, or
 * give the partition up ('gone': this broker has no replica of it, so it cannot lead it; the
 * broker tells the coordinator again when it does).
 */
export type LoadNextStep = 'read' | 'retry' | 'finish' | 'gone';

const EMPTY = new Uint8Array(0);

/**
 * Reads the next range of a partition being loaded from its local replica. A failed ask comes
 * back as a result with its error code (errors as data), so the coordinator decides alike.
 */
export async function readForLoad(
  ctx: BaseContext<Message>,
  replica: ActorRef<ReplicaMsg>,
  read: { fetchOffset: number; leaderEpoch: number; maxBytes: number; timeoutMs: number },
): Promise<LoadReadResult> {
  const r = await ctx.ask<ReplicaReadResult>(
    replica,
    { type: 'ReplicaRead', replicaId: -1, fetchOffset: read.fetchOffset, maxBytes: read.maxBytes, currentLeaderEpoch: read.leaderEpoch, lastFetchedEpoch: -1, watch: false },
    { timeoutMs: read.timeoutMs },
  );
  if (isFailure(r)) {
    const failed = { fetchOffset: read.fetchOffset, errorCode: r.errorCode, errorMessage: r.message, logStartOffset: -1, logEndOffset: -1, records: EMPTY };
    return r.reason === 'unknown-actor' ? { ...failed, noReplica: true } : failed;
  }
  const out: { -readonly [K in keyof LoadReadResult]: LoadReadResult[K] } = { fetchOffset: read.fetchOffset, errorCode: r.errorCode, logStartOffset: r.logStartOffset, logEndOffset: r.logEndOffset, records: r.records };
  if (r.errorMessage) out.errorMessage = r.errorMessage;
  return out;
}

/**
 * Takes one read into the load: moves past a log start that retention moved beyond the
 * position, fixes the target at the first read, replays the records, and says what comes next.
 * A failed read, or a corrupt batch, is read again after a backoff; a read that found nothing
 * new before the target (the high watermark has not reached it yet) too. A partition this
 * broker has no replica of is given up. `what` names the
 * partition in the logs ("an offsets partition").
 */
export function takeLoadRead(pos: LoadPosition, r: LoadReadResult, replay: LoadReplay, log: Logger, what: string, partition: number): LoadNextStep {
  if (r.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE && r.logStartOffset > pos.fetchOffset) {
    // retention moved the log start past the position: what was below it is gone
    pos.fetchOffset = r.logStartOffset;
    return 'read';
  }
  if (r.noReplica) {
    log.warn(`${what} to load has no replica here: given up`, { partition, reason: r.errorMessage });
    return 'gone';
  }
  if (r.errorCode !== ErrorCode.NONE) {
    log.warn(`reading ${what} to load it failed; retrying`, { partition, errorCode: r.errorCode, reason: r.errorMessage });
    return 'retry';
  }
  if (pos.targetOffset < 0) pos.targetOffset = r.logEndOffset;
  if (pos.fetchOffset < r.logStartOffset) {
    pos.fetchOffset = r.logStartOffset;
    return 'read';
  }
  if (r.records.length > 0) {
    try {
      const progress = replay(r.records, r.fetchOffset);
      if (progress.problems.length > 0) log.warn(`skipped undecodable records in ${what}`, { partition, count: progress.problems.length, first: progress.problems[0] });
      pos.fetchOffset = Math.max(pos.fetchOffset, progress.nextOffset);
    } catch (err) {
      log.error(`corrupt batch in ${what}; retrying the read`, { partition, fetchOffset: r.fetchOffset, error: (err as Error).message });
      return 'retry';
    }
  }
  if (pos.fetchOffset >= pos.targetOffset) return 'finish';
  // nothing new yet: the high watermark has not reached what the log held at takeover
  return r.records.length > 0 ? 'read' : 'retry';
}
