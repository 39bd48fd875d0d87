/**
 * The share coordinator's pure core, as Kafka's ShareCoordinatorShard decides: what a share
 * partition's state becomes for each request, which record that takes, and the answer; and the
 * replay of __share_group_state records when a partition is loaded. No I/O: the actor
 * (coordinator.ts) writes the records and answers once they are replicated.
 *
 * A state is the ShareSnapshotValue of its key. Its leader and state epochs are the highest seen
 * for the key (Kafka's leaderEpochMap and stateEpochMap), and every change is written as a whole
 * ShareSnapshot (snapshot epoch + 1; Kafka writes up to
 * share.coordinator.snapshot.update.records.per.snapshot ShareUpdate deltas in between, which
 * the replay reads).
 */
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { isKafkaTopicId } from '../../src/protocol/topic-id.js';
import { ShareRecordType, type ShareSnapshotValue, type ShareStateBatch, type ShareStateKey, type ShareStateRecord, type ShareUpdateValue } from './share-state-records.js';

/** Kafka's PartitionFactory.UNINITIALIZED_START_OFFSET and DEFAULT_STATE_EPOCH. */
export const UNINITIALIZED_START_OFFSET = -1;
export const DEFAULT_STATE_EPOCH = 0;

export type ShareState = ShareSnapshotValue;

export interface Refusal {
  errorCode: number;
  errorMessage: string;
}

/** What a request does: answer now, or write a record first (a new state, or null: delete the key) and answer once it is written. */
export type ShareStep<R> = { refuse: Refusal } | { write: ShareState | null; reply: R } | { reply: R };

export interface StateView {
  stateEpoch: number;
  startOffset: number;
  stateBatches: ShareStateBatch[];
}

function refuse(errorCode: number, errorMessage = errorInfo(errorCode).message): { refuse: Refusal } {
  return { refuse: { errorCode, errorMessage } };
}

const INT8 = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= -128 && (n as number) <= 127;
const INT16 = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= -32768 && (n as number) <= 32767;
const INT32 = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= -0x80000000 && (n as number) <= 0x7fffffff;

/** The key's fields as Kafka checks them (the group id, the topic id, a partition index of 0 or more), else why not. */
export function validateShareKey(k: ShareStateKey): Refusal | null {
  if (typeof k.groupId !== 'string' || k.groupId === '') return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Group id must be specified and non-empty.' };
  if (typeof k.topicId !== 'string' || !isKafkaTopicId(k.topicId)) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The topic id cannot be null.' };
  if (!INT32(k.partition) || k.partition < 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The partition id cannot be a negative number.' };
  return null;
}

/** A write's batches: each a range of offsets (first <= last) with an int8 state and an int16 count; else why not. */
export function validateStateBatches(batches: unknown): Refusal | null {
  if (!Array.isArray(batches)) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The state batches must be a list.' };
  for (const [i, b] of (batches as Partial<ShareStateBatch>[]).entries()) {
    const ok =
      typeof b === 'object' &&
      b !== null &&
      Number.isSafeInteger(b.firstOffset) &&
      Number.isSafeInteger(b.lastOffset) &&
      b.firstOffset! >= 0 &&
      b.firstOffset! <= b.lastOffset! &&
      INT8(b.deliveryState) &&
      INT16(b.deliveryCount);
    if (!ok) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `State batch ${i} is not a range of offsets with a delivery state and count: ${JSON.stringify(b)}` };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Combining state batches (Kafka's PersisterStateBatchCombiner)

/** Which of two runs' delivery info wins where they overlap: the higher delivery count, then the higher state. */
function compareDelivery(a: ShareStateBatch, b: ShareStateBatch): number {
  return a.deliveryCount !== b.deliveryCount ? a.deliveryCount - b.deliveryCount : a.deliveryState - b.deliveryState;
}

/**
 * `soFar` and `incoming` as one list of runs that do not overlap, in offset order: runs (and
 * parts of runs) below `startOffset` dropped (none when it is -1); where runs overlap, the one
 * with the higher delivery count (then state) holds the offsets; touching or overlapping runs of
 * the same count and state joined. O(n log n + n * overlap).
 */
export function combineStateBatches(soFar: readonly ShareStateBatch[], incoming: readonly ShareStateBatch[], startOffset: number): ShareStateBatch[] {
  const runs: ShareStateBatch[] = [];
  for (const b of [...soFar, ...incoming]) {
    if (startOffset !== -1 && b.lastOffset < startOffset) continue;
    const first = startOffset !== -1 && b.firstOffset < startOffset ? startOffset : b.firstOffset;
    if (first <= b.lastOffset) runs.push({ firstOffset: first, lastOffset: b.lastOffset, deliveryState: b.deliveryState, deliveryCount: b.deliveryCount });
  }
  if (runs.length <= 1) return runs;
  runs.sort((a, b) => a.firstOffset - b.firstOffset);
  // the offsets where some run starts or ends: between two of them, the same runs cover every offset
  const cuts = [...new Set(runs.flatMap((r) => [r.firstOffset, r.lastOffset + 1]))].sort((a, b) => a - b);
  const out: ShareStateBatch[] = [];
  let active: ShareStateBatch[] = [];
  let next = 0;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const from = cuts[i]!;
    const to = cuts[i + 1]! - 1;
    active = active.filter((r) => r.lastOffset >= from);
    while (next < runs.length && runs[next]!.firstOffset <= from) active.push(runs[next++]!);
    let best: ShareStateBatch | null = null;
    for (const r of active) if (best === null || compareDelivery(r, best) > 0) best = r;
    if (best === null) continue;
    const last = out[out.length - 1];
    if (last && last.lastOffset + 1 === from && compareDelivery(last, best) === 0) last.lastOffset = to;
    else out.push({ firstOffset: from, lastOffset: to, deliveryState: best.deliveryState, deliveryCount: best.deliveryCount });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Replay (loading a partition)

/**
 * Applies one record to the states of a partition being loaded (key: its coordinator key), as
 * Kafka's replay: a ShareSnapshot replaces the state, a ShareUpdate is laid over it (its start
 * offset -1 keeping the one before), a tombstone of either deletes it. Epochs keep the highest
 * seen for the key.
 */
export function replayShareRecord(states: Map<string, ShareState>, keyString: string, r: ShareStateRecord): void {
  const prev = states.get(keyString);
  if (r.value === null) {
    states.delete(keyString);
    return;
  }
  if (r.type === ShareRecordType.Snapshot) {
    const v = r.value;
    states.set(keyString, {
      ...v,
      stateBatches: [...v.stateBatches],
      leaderEpoch: Math.max(prev?.leaderEpoch ?? -1, v.leaderEpoch),
      stateEpoch: Math.max(prev?.stateEpoch ?? -1, v.stateEpoch),
    });
    return;
  }
  states.set(keyString, applyUpdate(prev, r.value));
}

/** A ShareUpdate laid over the state before it (or the state it alone describes). */
export function applyUpdate(prev: ShareState | undefined, u: ShareUpdateValue): ShareState {
  if (!prev) {
    return {
      snapshotEpoch: u.snapshotEpoch,
      stateEpoch: DEFAULT_STATE_EPOCH,
      leaderEpoch: u.leaderEpoch,
      startOffset: u.startOffset,
      createTimestamp: -1,
      writeTimestamp: -1,
      stateBatches: combineStateBatches([], u.stateBatches, u.startOffset),
    };
  }
  const startOffset = u.startOffset === -1 ? prev.startOffset : u.startOffset;
  return {
    ...prev,
    leaderEpoch: Math.max(prev.leaderEpoch, u.leaderEpoch),
    startOffset,
    stateBatches: combineStateBatches(prev.stateBatches, u.stateBatches, startOffset),
  };
}

// ---------------------------------------------------------------------------------------------
// Requests

const UNINITIALIZED: StateView = { stateEpoch: DEFAULT_STATE_EPOCH, startOffset: UNINITIALIZED_START_OFFSET, stateBatches: [] };

function view(s: ShareState | undefined): StateView {
  return s ? { stateEpoch: s.stateEpoch, startOffset: s.startOffset, stateBatches: s.stateBatches.map((b) => ({ ...b })) } : { ...UNINITIALIZED, stateBatches: [] };
}

/**
 * ReadShareGroupState (Kafka's readStateAndMaybeUpdateLeaderEpoch): FENCED_LEADER_EPOCH below the
 * stored epoch; a higher epoch is recorded first (for a key never written, as an uninitialized
 * state: start offset -1, no batches). -1 checks and records nothing.
 */
export function decideRead(cur: ShareState | undefined, leaderEpoch: number, now: number): ShareStep<StateView> {
  if (leaderEpoch === -1) return { reply: view(cur) };
  if (cur && cur.leaderEpoch > leaderEpoch) return refuse(ErrorCode.FENCED_LEADER_EPOCH);
  if (cur && cur.leaderEpoch === leaderEpoch) return { reply: view(cur) };
  const next: ShareState = cur
    ? { ...cur, snapshotEpoch: cur.snapshotEpoch + 1, leaderEpoch, writeTimestamp: now, stateBatches: [...cur.stateBatches] }
    : { snapshotEpoch: 0, stateEpoch: DEFAULT_STATE_EPOCH, leaderEpoch, startOffset: UNINITIALIZED_START_OFFSET, createTimestamp: now, writeTimestamp: now, stateBatches: [] };
  return { write: next, reply: view(next) };
}

export interface WriteRequest {
  leaderEpoch: number;
  stateEpoch: number;
  startOffset: number;
  stateBatches: readonly ShareStateBatch[];
}

/**
 * WriteShareGroupState (Kafka's writeState): FENCED_LEADER_EPOCH for a leader epoch below the
 * stored one, FENCED_STATE_EPOCH for a state epoch below the stored one; else the batches laid
 * over the stored ones from the new start offset (-1: the stored one).
 */
export function decideWrite(cur: ShareState | undefined, req: WriteRequest, now: number): ShareStep<null> {
  if (cur && cur.leaderEpoch > req.leaderEpoch) return refuse(ErrorCode.FENCED_LEADER_EPOCH);
  if (cur && cur.stateEpoch > req.stateEpoch) return refuse(ErrorCode.FENCED_STATE_EPOCH);
  const startOffset = req.startOffset === -1 ? (cur?.startOffset ?? UNINITIALIZED_START_OFFSET) : req.startOffset;
  const next: ShareState = {
    snapshotEpoch: cur ? cur.snapshotEpoch + 1 : 0,
    stateEpoch: req.stateEpoch,
    leaderEpoch: req.leaderEpoch,
    startOffset,
    createTimestamp: cur && cur.createTimestamp >= 0 ? cur.createTimestamp : now,
    writeTimestamp: now,
    stateBatches: combineStateBatches(cur?.stateBatches ?? [], req.stateBatches, startOffset),
  };
  return { write: next, reply: null };
}

/**
 * InitializeShareGroupState (Kafka 4.1's initializeState): FENCED_STATE_EPOCH for a state epoch
 * below the stored one; else a fresh state at this state epoch and start offset, no batches (the
 * leader epoch seen so far is kept, so an older leader stays fenced).
 */
export function decideInitialize(cur: ShareState | undefined, req: { stateEpoch: number; startOffset: number }, now: number): ShareStep<null> {
  if (cur && cur.stateEpoch > req.stateEpoch) return refuse(ErrorCode.FENCED_STATE_EPOCH);
  const next: ShareState = {
    snapshotEpoch: cur ? cur.snapshotEpoch + 1 : 0,
    stateEpoch: req.stateEpoch,
    leaderEpoch: cur?.leaderEpoch ?? -1,
    startOffset: req.startOffset,
    createTimestamp: now,
    writeTimestamp: now,
    stateBatches: [],
  };
  return { write: next, reply: null };
}

/** DeleteShareGroupState (Kafka's deleteState): tombstones for a key with state; nothing to write otherwise. */
export function decideDelete(cur: ShareState | undefined): ShareStep<null> {
  return cur ? { write: null, reply: null } : { reply: null };
}

/** ReadShareGroupStateSummary: the epochs and start offset, recording nothing. */
export function decideSummary(cur: ShareState | undefined): ShareStep<{ stateEpoch: number; leaderEpoch: number; startOffset: number }> {
  return { reply: { stateEpoch: cur?.stateEpoch ?? DEFAULT_STATE_EPOCH, leaderEpoch: cur?.leaderEpoch ?? -1, startOffset: cur?.startOffset ?? UNINITIALIZED_START_OFFSET } };
}
