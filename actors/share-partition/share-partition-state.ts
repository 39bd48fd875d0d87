/**
 * One share partition's delivery state (KIP-932, Kafka's SharePartition on the partition leader),
 * as a plain state machine the share-partition actor drives: no timers, no I/O, the clock handed
 * in. The actor reads the log, schedules lock expiry (`nextLockDeadline` / `expireLocks`) and
 * persists `snapshot()` when an operation says the snapshot changed.
 *
 * The in-flight window runs from the share-partition start offset (SPSO, `startOffset`) to the
 * end offset (SPEO, `endOffset`, one past the last offset ever acquired); offsets below SPSO are
 * done, offsets at or above SPEO have never been delivered. Each offset in the window has a
 * RecordState, a delivery count and, while Acquired, the member holding it and its lock deadline.
 * Transitions:
 *   (beyond SPEO) -> Acquired        acquire: the window grows, delivery count 1
 *   Available -> Acquired            acquire: delivery count + 1, lock until now + lock duration
 *   Acquired -> Acknowledged         an Accept ack by the holder
 *   Acquired -> Archived             a Reject or Gap ack by the holder; a release at the delivery limit
 *   Acquired -> Available            a Release ack, the lock expiring or the holder leaving
 *                                    (releaseMember), below the delivery limit
 *   Available at the delivery limit  -> Archived (archiveExhausted, on a restored state: a
 *                                    delivery whose outcome was lost with its leader counts, as
 *                                    an expired lock at the limit would)
 *   Acknowledged | Archived at SPSO  leave the window: SPSO moves past them (up to SPEO)
 *   any below the log start          leave the window (moveStartOffset)
 * At most maxInFlightRecords offsets are in flight (SPEO - SPSO); acquisition stops there.
 *
 * Persisted (Kafka's share-group state, WriteShareGroupState): SPSO and the window as runs of
 * equal (state, delivery count); an Acquired offset persists as Available with its count, since
 * locks and holders do not survive a restart. So a non-empty `acquire` changes the snapshot (new
 * counts, a longer window), while a release below the delivery limit does not; and a restored
 * state may hold Available offsets already delivered deliveryCountLimit times, which
 * archiveExhausted archives before anything is acquired (else they would go out once more, their
 * delivery count above the limit).
 */
import { ErrorCode } from '../../src/protocol/errors.js';

/** A sanity bound on the window: Kafka caps group.share.partition.max.record.locks far lower. */
const MAX_WINDOW = 1 << 20;
const MIN_CAPACITY = 16;

/** Kafka's RecordState ids (persisted as these numbers). */
export enum RecordState { Available = 0, Acquired = 1, Acknowledged = 2, Archived = 4 }
/** Kafka's AcknowledgeType (ShareFetch/ShareAcknowledge AcknowledgeTypes): Gap 0, Accept 1, Release 2, Reject 3. */
export enum AcknowledgeType { Gap = 0, Accept = 1, Release = 2, Reject = 3, Renew = 4 }

export interface SharePartitionLimits {
  /** group.share.partition.max.record.locks: at most this many offsets in flight (SPEO - SPSO). */
  maxInFlightRecords: number;
  /** share.delivery.count.limit: a record released with this many deliveries is archived instead. */
  deliveryCountLimit: number;
  /** share.record.lock.duration.ms: how long an acquisition holds a record. */
  lockDurationMs: number;
}
/** One run of offsets with the same persisted state (Kafka's PersisterStateBatch / WriteShareGroupState StateBatches). deliveryState is 0 Available, 2 Acknowledged, 4 Archived (an Acquired record persists as Available with its delivery count). */
export interface PersistedStateBatch { firstOffset: number; lastOffset: number; deliveryState: number; deliveryCount: number }
export interface PersistedShareState { startOffset: number; stateBatches: PersistedStateBatch[] }
/** Offsets acquired for a member (ShareFetch's AcquiredRecords). */
export interface AcquiredRange { firstOffset: number; lastOffset: number; deliveryCount: number }
/** A record batch as read from the log: its first and last offsets. */
export interface LogBatchSpan { baseOffset: number; lastOffset: number }
export interface AcknowledgementBatch { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }
/** errorCode 0 when applied; else nothing of the call was applied. */
export interface AckResult { errorCode: number; errorMessage?: string; changed: boolean }

const isOffset = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;
const persistedState = (s: RecordState): number => (s === RecordState.Acquired ? RecordState.Available : s);

function checkLimits(l: SharePartitionLimits): void {
  if (!Number.isInteger(l.maxInFlightRecords) || l.maxInFlightRecords < 1 || l.maxInFlightRecords > MAX_WINDOW) {
    throw new RangeError(`maxInFlightRecords must be an integer in [1, ${MAX_WINDOW}], got ${l.maxInFlightRecords}`);
  }
  if (!Number.isInteger(l.deliveryCountLimit) || l.deliveryCountLimit < 1) throw new RangeError(`deliveryCountLimit must be a positive integer, got ${l.deliveryCountLimit}`);
  if (!Number.isInteger(l.lockDurationMs) || l.lockDurationMs < 0) throw new RangeError(`lockDurationMs must be a non-negative integer, got ${l.lockDurationMs}`);
}

export class SharePartitionState {
  private start: number;
  private end: number;
  private limits: SharePartitionLimits;
  // The window is a ring: offset o lives in slot (head + o - start) & (capacity - 1).
  private head = 0;
  private states: Uint8Array;
  private counts: Int32Array;
  private deadlines: Float64Array;
  private members: (string | undefined)[];

  constructor(initial: PersistedShareState, limits: SharePartitionLimits, private readonly now: () => number) {
    checkLimits(limits);
    this.limits = { ...limits };
    if (!isOffset(initial.startOffset)) throw new RangeError(`startOffset must be a non-negative safe integer, got ${initial.startOffset}`);
    const batches = [...initial.stateBatches].sort((a, b) => a.firstOffset - b.firstOffset);
    batches.forEach((b, i) => {
      if (!isOffset(b.firstOffset) || !isOffset(b.lastOffset) || b.firstOffset > b.lastOffset) throw new RangeError(`state batch ${b.firstOffset}-${b.lastOffset}: bad offsets`);
      if (b.deliveryState !== RecordState.Available && b.deliveryState !== RecordState.Acknowledged && b.deliveryState !== RecordState.Archived) {
        throw new RangeError(`state batch ${b.firstOffset}-${b.lastOffset}: bad delivery state ${b.deliveryState}`);
      }
      if (!Number.isInteger(b.deliveryCount) || b.deliveryCount < 0) throw new RangeError(`state batch ${b.firstOffset}-${b.lastOffset}: bad delivery count ${b.deliveryCount}`);
      if (i > 0 && b.firstOffset <= batches[i - 1].lastOffset) throw new RangeError(`state batch ${b.firstOffset}-${b.lastOffset} overlaps ${batches[i - 1].firstOffset}-${batches[i - 1].lastOffset}`);
    });
    this.start = initial.startOffset;
    this.end = Math.max(this.start, (batches.at(-1)?.lastOffset ?? -1) + 1);
    if (this.end - this.start > MAX_WINDOW) throw new RangeError(`the persisted window ${this.start}-${this.end - 1} exceeds ${MAX_WINDOW} offsets`);
    let capacity = MIN_CAPACITY;
    while (capacity < this.end - this.start) capacity *= 2;
    this.states = new Uint8Array(capacity);
    this.counts = new Int32Array(capacity);
    this.deadlines = new Float64Array(capacity);
    this.members = new Array<string | undefined>(capacity).fill(undefined);
    // Offsets of the window no batch covers stay Available with no deliveries (zeroed arrays).
    for (const b of batches) {
      for (let o = Math.max(b.firstOffset, this.start); o <= b.lastOffset; o++) {
        const s = this.slot(o);
        this.states[s] = b.deliveryState;
        this.counts[s] = b.deliveryCount;
      }
    }
    this.advance();
  }

  /** SPSO. */
  get startOffset(): number {
    return this.start;
  }

  /** SPEO: one past the last offset ever acquired. */
  get endOffset(): number {
    return this.end;
  }

  /** Group configs may change at run time; the new limits apply to later operations. */
  setLimits(limits: SharePartitionLimits): void {
    checkLimits(limits);
    this.limits = { ...limits };
  }

  /** The first Available offset in the window, else endOffset; null when the window is full and nothing in it is Available. */
  nextFetchOffset(): number | null {
    for (let o = this.start; o < this.end; o++) if (this.states[this.slot(o)] === RecordState.Available) return o;
    return this.end - this.start < this.limits.maxInFlightRecords ? this.end : null;
  }

  /** How many offsets from `from` on the window may still reach: the most a fetch from there can acquire. */
  acquirableSpan(from: number): number {
    return Math.max(0, this.start + this.limits.maxInFlightRecords - from);
  }

  /**
   * Acquires for `memberId` the Available (or new) offsets from nextFetchOffset() to the last
   * span's last offset, gaps between spans included, at most `maxRecords` of them and without
   * the window passing maxInFlightRecords.
   */
  acquire(memberId: string, spans: readonly LogBatchSpan[], maxRecords: number): AcquiredRange[] {
    const from = this.nextFetchOffset();
    if (from === null || maxRecords <= 0 || spans.length === 0) return [];
    const last = spans[spans.length - 1].lastOffset;
    const deadline = this.now() + this.limits.lockDurationMs;
    const acquired: AcquiredRange[] = [];
    let taken = 0;
    for (let o = from; o <= last && taken < maxRecords; o++) {
      if (o === this.end) {
        if (this.end - this.start >= this.limits.maxInFlightRecords) break;
        this.extend();
      }
      const s = this.slot(o);
      if (this.states[s] !== RecordState.Available) continue;
      this.states[s] = RecordState.Acquired;
      const count = ++this.counts[s];
      this.members[s] = memberId;
      this.deadlines[s] = deadline;
      taken++;
      const prev = acquired.at(-1);
      if (prev && prev.lastOffset === o - 1 && prev.deliveryCount === count) prev.lastOffset = o;
      else acquired.push({ firstOffset: o, lastOffset: o, deliveryCount: count });
    }
    return acquired;
  }

  /** Applies a member's acknowledgements, all of them or (on an error) none. */
  acknowledge(memberId: string, batches: readonly AcknowledgementBatch[]): AckResult {
    const malformed = this.malformed(batches);
    if (malformed) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: malformed, changed: false };
    for (const b of batches) {
      if (b.firstOffset < this.start || b.lastOffset >= this.end) {
        const offset = b.firstOffset < this.start ? b.firstOffset : Math.max(b.firstOffset, this.end);
        return { errorCode: ErrorCode.INVALID_RECORD_STATE, errorMessage: `offset ${offset} is outside the in-flight window [${this.start}, ${this.end})`, changed: false };
      }
      for (let o = b.firstOffset; o <= b.lastOffset; o++) {
        if (!this.heldBy(this.slot(o), memberId)) return { errorCode: ErrorCode.INVALID_RECORD_STATE, errorMessage: `offset ${o} is not acquired by member ${memberId}`, changed: false };
      }
    }
    let changed = false;
    for (const b of batches) {
      for (let o = b.firstOffset; o <= b.lastOffset; o++) {
        const type = b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0] : b.acknowledgeTypes[o - b.firstOffset];
        changed = this.settle(this.slot(o), type) || changed;
      }
    }
    return { errorCode: ErrorCode.NONE, changed: this.advance() || changed };
  }

  /** Every offset the member holds goes back as on a Release ack (the member left or was fenced). */
  releaseMember(memberId: string): boolean {
    return this.releaseWhere((s) => this.heldBy(s, memberId));
  }

  /** Every Acquired offset whose lock deadline has come goes back as on a Release ack. */
  expireLocks(): boolean {
    const t = this.now();
    return this.releaseWhere((s) => this.states[s] === RecordState.Acquired && this.deadlines[s] <= t);
  }

  /** The earliest lock deadline among Acquired offsets, null when none is acquired. */
  nextLockDeadline(): number | null {
    let earliest: number | null = null;
    for (let o = this.start; o < this.end; o++) {
      const s = this.slot(o);
      if (this.states[s] === RecordState.Acquired && (earliest === null || this.deadlines[s] < earliest)) earliest = this.deadlines[s];
    }
    return earliest;
  }

  /**
   * Archives the Available offsets whose delivery count has reached the delivery limit, as a
   * lock expiring at the limit would. A restored state may have them: an offset Acquired when its
   * state was written persists as Available with its count, and the leader that held it is gone
   * with the delivery's outcome. Returns whether anything changed (SPSO may move past them).
   */
  archiveExhausted(): boolean {
    let changed = false;
    for (let o = this.start; o < this.end; o++) {
      const s = this.slot(o);
      if (this.states[s] !== RecordState.Available || this.counts[s] < this.limits.deliveryCountLimit) continue;
      this.states[s] = RecordState.Archived;
      changed = true;
    }
    return this.advance() || changed;
  }

  /** The log start moved (retention, DeleteRecords): offsets below it leave the window. */
  moveStartOffset(logStartOffset: number): boolean {
    if (!(logStartOffset > this.start)) return false;
    this.dropHead(Math.min(logStartOffset, this.end) - this.start);
    if (this.start < logStartOffset) this.start = this.end = logStartOffset;
    this.advance();
    return true;
  }

  /** What to persist: SPSO and the window as merged runs, Acquired as Available with its count. */
  snapshot(): PersistedShareState {
    const stateBatches: PersistedStateBatch[] = [];
    for (let o = this.start; o < this.end; o++) {
      const s = this.slot(o);
      const deliveryState = persistedState(this.states[s]);
      const deliveryCount = this.counts[s];
      const prev = stateBatches.at(-1);
      if (prev && prev.deliveryState === deliveryState && prev.deliveryCount === deliveryCount) prev.lastOffset = o;
      else stateBatches.push({ firstOffset: o, lastOffset: o, deliveryState, deliveryCount });
    }
    return { startOffset: this.start, stateBatches };
  }

  describe(): { startOffset: number; endOffset: number; available: number; acquired: number; acknowledged: number; archived: number } {
    const n = { available: 0, acquired: 0, acknowledged: 0, archived: 0 };
    for (let o = this.start; o < this.end; o++) {
      switch (this.states[this.slot(o)]) {
        case RecordState.Available: n.available++; break;
        case RecordState.Acquired: n.acquired++; break;
        case RecordState.Acknowledged: n.acknowledged++; break;
        default: n.archived++;
      }
    }
    return { startOffset: this.start, endOffset: this.end, ...n };
  }

  /** How many offsets the member holds. */
  acquiredBy(memberId: string): number {
    let n = 0;
    for (let o = this.start; o < this.end; o++) if (this.heldBy(this.slot(o), memberId)) n++;
    return n;
  }

  /** The INVALID_REQUEST message for a malformed acknowledgement, else null. */
  private malformed(batches: readonly AcknowledgementBatch[]): string | null {
    for (const b of batches) {
      const range = `${b.firstOffset}-${b.lastOffset}`;
      if (!isOffset(b.firstOffset) || !isOffset(b.lastOffset) || b.firstOffset > b.lastOffset) return `acknowledgement batch ${range}: bad offsets`;
      const n = b.acknowledgeTypes.length;
      if (n !== 1 && n !== b.lastOffset - b.firstOffset + 1) return `acknowledgement batch ${range}: ${n} acknowledge types, expected 1 or ${b.lastOffset - b.firstOffset + 1}`;
      const bad = b.acknowledgeTypes.find((t) => !Number.isInteger(t) || t < AcknowledgeType.Gap || t > AcknowledgeType.Renew);
      if (bad !== undefined) return `acknowledgement batch ${range}: invalid acknowledge type ${bad}`;
    }
    const sorted = [...batches].sort((a, b) => a.firstOffset - b.firstOffset);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i].firstOffset <= sorted[i - 1].lastOffset) return `acknowledgement batches ${sorted[i - 1].firstOffset}-${sorted[i - 1].lastOffset} and ${sorted[i].firstOffset}-${sorted[i].lastOffset} overlap`;
    }
    return null;
  }

  /** Applies an acknowledgement to an Acquired slot; returns whether its persisted state changed. */
  private settle(s: number, type: number): boolean {
    if (type === AcknowledgeType.Renew) {
      // KIP-1222: the member keeps the record for another lock duration from now
      this.deadlines[s] = this.now() + this.limits.lockDurationMs;
      return false;
    }
    let next: RecordState;
    if (type === AcknowledgeType.Accept) next = RecordState.Acknowledged;
    else if (type === AcknowledgeType.Release) next = this.counts[s] >= this.limits.deliveryCountLimit ? RecordState.Archived : RecordState.Available;
    else next = RecordState.Archived;
    this.states[s] = next;
    this.members[s] = undefined;
    this.deadlines[s] = 0;
    return next !== RecordState.Available;
  }

  private releaseWhere(match: (slot: number) => boolean): boolean {
    let changed = false;
    for (let o = this.start; o < this.end; o++) {
      const s = this.slot(o);
      if (match(s)) changed = this.settle(s, AcknowledgeType.Release) || changed;
    }
    return this.advance() || changed;
  }

  private heldBy(s: number, memberId: string): boolean {
    return this.states[s] === RecordState.Acquired && this.members[s] === memberId;
  }

  /** Moves SPSO past the leading Acknowledged / Archived offsets; returns whether it moved. */
  private advance(): boolean {
    let n = 0;
    while (this.start + n < this.end) {
      const state = this.states[this.slot(this.start + n)];
      if (state !== RecordState.Acknowledged && state !== RecordState.Archived) break;
      n++;
    }
    this.dropHead(n);
    return n > 0;
  }

  private dropHead(n: number): void {
    for (let i = 0; i < n; i++) this.members[this.slot(this.start + i)] = undefined;
    this.head = (this.head + n) & (this.states.length - 1);
    this.start += n;
  }

  /** Appends offset `end` to the window as Available with no deliveries. */
  private extend(): void {
    if (this.end - this.start === this.states.length) this.grow();
    const s = this.slot(this.end);
    this.states[s] = RecordState.Available;
    this.counts[s] = 0;
    this.deadlines[s] = 0;
    this.members[s] = undefined;
    this.end++;
  }

  private grow(): void {
    const size = this.end - this.start;
    const capacity = this.states.length * 2;
    const states = new Uint8Array(capacity);
    const counts = new Int32Array(capacity);
    const deadlines = new Float64Array(capacity);
    const members = new Array<string | undefined>(capacity).fill(undefined);
    for (let i = 0; i < size; i++) {
      const s = this.slot(this.start + i);
      states[i] = this.states[s];
      counts[i] = this.counts[s];
      deadlines[i] = this.deadlines[s];
      members[i] = this.members[s];
    }
    this.states = states;
    this.counts = counts;
    this.deadlines = deadlines;
    this.members = members;
    this.head = 0;
  }

  private slot(offset: number): number {
    return (this.head + offset - this.start) & (this.states.length - 1);
  }
}
