/**
 * The KIP-932 share partition delivery state on its own (share-partition-state.ts): one test per
 * legal transition (acquire, the four acknowledge types, release at and below the delivery limit,
 * lock expiry, a member leaving, SPSO advancing, the log start moving) and per refusal, the
 * snapshot round trip through the constructor, and the limits changing at run time.
 */
import { expect } from 'chai';
import {
  AcknowledgeType as A,
  RecordState,
  SharePartitionState,
  type AcknowledgementBatch,
  type PersistedShareState,
  type SharePartitionLimits,
} from '../../../actors/share-partition/share-partition-state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

describe('actors/share-partition share-partition-state', () => {
  let clock: number;
  const now = () => clock;
  const limits = (o: Partial<SharePartitionLimits> = {}): SharePartitionLimits => ({ maxInFlightRecords: 100, deliveryCountLimit: 5, lockDurationMs: 30_000, ...o });
  const fresh = (startOffset = 0, o: Partial<SharePartitionLimits> = {}) => new SharePartitionState({ startOffset, stateBatches: [] }, limits(o), now);
  const span = (baseOffset: number, lastOffset: number) => ({ baseOffset, lastOffset });
  const ack = (firstOffset: number, lastOffset: number, ...acknowledgeTypes: number[]): AcknowledgementBatch => ({ firstOffset, lastOffset, acknowledgeTypes });
  const batch = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number) => ({ firstOffset, lastOffset, deliveryState, deliveryCount });
  function ok(r: ReturnType<SharePartitionState['acknowledge']>) {
    if (r.errorCode !== 0) throw new Error(`expected success, got ${r.errorCode}: ${r.errorMessage}`);
    return r;
  }

  beforeEach(() => {
    clock = 1_000;
  });

  describe('a fresh share partition', () => {
    it('starts with an empty window at its start offset', () => {
      const p = fresh(7);
      expect([p.startOffset, p.endOffset, p.nextFetchOffset()]).to.deep.equal([7, 7, 7]);
      expect(p.snapshot()).to.deep.equal({ startOffset: 7, stateBatches: [] });
      expect(p.nextLockDeadline()).to.equal(null);
      expect(p.describe()).to.deep.equal({ startOffset: 7, endOffset: 7, available: 0, acquired: 0, acknowledged: 0, archived: 0 });
    });
  });

  describe('acquire', () => {
    it('new offsets -> Acquired with delivery count 1, locked until now + lock duration', () => {
      const p = fresh(10);
      expect(p.acquire('m1', [span(10, 14)], 100)).to.deep.equal([{ firstOffset: 10, lastOffset: 14, deliveryCount: 1 }]);
      expect([p.startOffset, p.endOffset]).to.deep.equal([10, 15]);
      expect(p.acquiredBy('m1')).to.equal(5);
      expect(p.nextLockDeadline()).to.equal(31_000);
      expect(p.nextFetchOffset()).to.equal(15);
      expect(p.snapshot()).to.deep.equal({ startOffset: 10, stateBatches: [batch(10, 14, RecordState.Available, 1)] });
    });

    it('stops after maxRecords offsets, and acquires nothing for maxRecords <= 0', () => {
      const p = fresh();
      expect(p.acquire('m1', [span(0, 9)], 0)).to.deep.equal([]);
      expect(p.acquire('m1', [span(0, 9)], -1)).to.deep.equal([]);
      expect(p.endOffset).to.equal(0);
      expect(p.acquire('m1', [span(0, 9)], 3)).to.deep.equal([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
      expect(p.endOffset).to.equal(3);
      expect(p.acquire('m2', [span(3, 9)], 2)).to.deep.equal([{ firstOffset: 3, lastOffset: 4, deliveryCount: 1 }]);
      expect(p.endOffset).to.equal(5);
    });

    it('never lets the window pass maxInFlightRecords; nextFetchOffset is null while full with nothing Available', () => {
      const p = fresh(0, { maxInFlightRecords: 4 });
      expect(p.acquire('m1', [span(0, 9)], 100)).to.deep.equal([{ firstOffset: 0, lastOffset: 3, deliveryCount: 1 }]);
      expect(p.endOffset).to.equal(4);
      expect(p.nextFetchOffset()).to.equal(null);
      expect(p.acquire('m2', [span(4, 9)], 100)).to.deep.equal([]);
      ok(p.acknowledge('m1', [ack(0, 1, A.Accept)]));
      expect([p.startOffset, p.nextFetchOffset()]).to.deep.equal([2, 4]);
      expect(p.acquire('m2', [span(4, 9)], 100)).to.deep.equal([{ firstOffset: 4, lastOffset: 5, deliveryCount: 1 }]);
      expect(p.endOffset - p.startOffset).to.equal(4);
    });

    it('acquirableSpan: the offsets from a fetch offset the window can still reach', () => {
      const p = fresh(0, { maxInFlightRecords: 4 });
      expect(p.acquirableSpan(0)).to.equal(4);
      p.acquire('m1', [span(0, 9)], 3);
      expect(p.acquirableSpan(3)).to.equal(1);
      ok(p.acknowledge('m1', [ack(0, 1, A.Accept)]));
      expect(p.acquirableSpan(3)).to.equal(3);
      expect(p.acquirableSpan(9)).to.equal(0);
    });

    it('skips offsets acquired by others or acknowledged, re-acquires Available ones with count + 1', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 5)], 100);
      ok(p.acknowledge('m1', [ack(1, 1, A.Release), ack(3, 3, A.Accept), ack(4, 4, A.Release)]));
      expect(p.nextFetchOffset()).to.equal(1);
      expect(p.acquire('m2', [span(1, 8)], 100)).to.deep.equal([
        { firstOffset: 1, lastOffset: 1, deliveryCount: 2 },
        { firstOffset: 4, lastOffset: 4, deliveryCount: 2 },
        { firstOffset: 6, lastOffset: 8, deliveryCount: 1 },
      ]);
      expect([p.acquiredBy('m1'), p.acquiredBy('m2')]).to.deep.equal([3, 5]);
      expect(p.endOffset).to.equal(9);
    });

    it('acquires the offsets between spans (compaction gaps) too', () => {
      const p = fresh();
      expect(p.acquire('m1', [span(0, 2), span(5, 6), span(9, 9)], 100)).to.deep.equal([{ firstOffset: 0, lastOffset: 9, deliveryCount: 1 }]);
      expect(p.acquiredBy('m1')).to.equal(10);
    });

    it('starts at nextFetchOffset when the first span begins before it (mid-batch)', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 4)], 100);
      expect(p.acquire('m2', [span(0, 9)], 100)).to.deep.equal([{ firstOffset: 5, lastOffset: 9, deliveryCount: 1 }]);
      ok(p.acknowledge('m1', [ack(2, 2, A.Release)]));
      expect(p.acquire('m3', [span(0, 9), span(10, 11)], 100)).to.deep.equal([
        { firstOffset: 2, lastOffset: 2, deliveryCount: 2 },
        { firstOffset: 10, lastOffset: 11, deliveryCount: 1 },
      ]);
    });

    it('acquires nothing past the last span, or from no spans', () => {
      const p = fresh();
      expect(p.acquire('m1', [], 100)).to.deep.equal([]);
      p.acquire('m1', [span(0, 4)], 100);
      expect(p.acquire('m2', [span(0, 3)], 100)).to.deep.equal([]);
      expect(p.endOffset).to.equal(5);
    });
  });

  describe('acknowledge', () => {
    it('Acquired -> Acknowledged on Accept; SPSO moves past them and the window empties at SPEO', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 4)], 100);
      expect(ok(p.acknowledge('m1', [ack(0, 4, A.Accept)])).changed).to.equal(true);
      expect([p.startOffset, p.endOffset, p.nextFetchOffset()]).to.deep.equal([5, 5, 5]);
      expect(p.acquiredBy('m1')).to.equal(0);
      expect(p.nextLockDeadline()).to.equal(null);
      expect(p.snapshot()).to.deep.equal({ startOffset: 5, stateBatches: [] });
    });

    it('Acquired -> Archived on Reject, SPSO held by an earlier Acquired offset', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 4)], 100);
      expect(ok(p.acknowledge('m1', [ack(1, 3, A.Reject)])).changed).to.equal(true);
      expect(p.startOffset).to.equal(0);
      expect(p.snapshot().stateBatches).to.deep.equal([
        batch(0, 0, RecordState.Available, 1),
        batch(1, 3, RecordState.Archived, 1),
        batch(4, 4, RecordState.Available, 1),
      ]);
      expect(p.describe()).to.deep.equal({ startOffset: 0, endOffset: 5, available: 0, acquired: 2, acknowledged: 0, archived: 3 });
    });

    it('Acquired -> Archived on Gap (the offsets compaction removed)', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 1), span(4, 5)], 100);
      ok(p.acknowledge('m1', [ack(2, 3, A.Gap)]));
      expect(p.snapshot().stateBatches).to.deep.equal([
        batch(0, 1, RecordState.Available, 1),
        batch(2, 3, RecordState.Archived, 1),
        batch(4, 5, RecordState.Available, 1),
      ]);
      ok(p.acknowledge('m1', [ack(0, 1, A.Accept)]));
      expect(p.startOffset).to.equal(4);
    });

    it('Acquired -> Available on Release below the delivery limit: count kept, snapshot unchanged', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 2)], 100);
      expect(ok(p.acknowledge('m1', [ack(0, 2, A.Release)])).changed).to.equal(false);
      expect(p.snapshot()).to.deep.equal({ startOffset: 0, stateBatches: [batch(0, 2, RecordState.Available, 1)] });
      expect(p.nextFetchOffset()).to.equal(0);
      expect(p.acquire('m2', [span(0, 2)], 100)).to.deep.equal([{ firstOffset: 0, lastOffset: 2, deliveryCount: 2 }]);
    });

    it('one type per offset: Accept, Reject, Gap, Release, Accept', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 4)], 100);
      expect(ok(p.acknowledge('m1', [ack(0, 4, A.Accept, A.Reject, A.Gap, A.Release, A.Accept)])).changed).to.equal(true);
      expect(p.startOffset).to.equal(3);
      expect(p.snapshot()).to.deep.equal({
        startOffset: 3,
        stateBatches: [batch(3, 3, RecordState.Available, 1), batch(4, 4, RecordState.Acknowledged, 1)],
      });
      expect(p.nextFetchOffset()).to.equal(3);
    });

    it('Release at the delivery limit archives instead', () => {
      const p = fresh(0, { deliveryCountLimit: 2 });
      p.acquire('m1', [span(0, 1)], 100);
      ok(p.acknowledge('m1', [ack(0, 1, A.Release)]));
      expect(p.acquire('m1', [span(0, 1)], 100)).to.deep.equal([{ firstOffset: 0, lastOffset: 1, deliveryCount: 2 }]);
      const r = ok(p.acknowledge('m1', [ack(0, 1, A.Release)]));
      expect(r.changed).to.equal(true);
      expect([p.startOffset, p.endOffset]).to.deep.equal([2, 2]);
      expect(p.describe().archived).to.equal(0);
    });

    it('an empty acknowledgement list succeeds and changes nothing', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 1)], 100);
      expect(p.acknowledge('m1', [])).to.deep.equal({ errorCode: 0, changed: false });
      expect(p.acquiredBy('m1')).to.equal(2);
    });
  });

  describe('acknowledge refusals (nothing applied)', () => {
    let p: SharePartitionState;
    let before: PersistedShareState;
    beforeEach(() => {
      p = fresh();
      p.acquire('m1', [span(0, 4)], 100);
      p.acquire('m2', [span(5, 6)], 100);
      before = p.snapshot();
    });
    function refused(r: ReturnType<SharePartitionState['acknowledge']>, code: number, mentions?: string) {
      expect(r.errorCode).to.equal(code);
      expect(r.changed).to.equal(false);
      expect(r.errorMessage).to.be.a('string');
      if (mentions) expect(r.errorMessage).to.contain(mentions);
      expect(p.snapshot()).to.deep.equal(before);
      expect([p.acquiredBy('m1'), p.acquiredBy('m2'), p.startOffset, p.endOffset]).to.deep.equal([5, 2, 0, 7]);
    }

    it('firstOffset > lastOffset -> INVALID_REQUEST', () => {
      refused(p.acknowledge('m1', [ack(0, 0, A.Accept), ack(3, 2, A.Accept)]), ErrorCode.INVALID_REQUEST);
    });

    it('no acknowledge types -> INVALID_REQUEST', () => {
      refused(p.acknowledge('m1', [ack(0, 0, A.Accept), ack(1, 2)]), ErrorCode.INVALID_REQUEST);
    });

    it('as many types as neither 1 nor the range -> INVALID_REQUEST', () => {
      refused(p.acknowledge('m1', [ack(0, 2, A.Accept, A.Accept)]), ErrorCode.INVALID_REQUEST);
      refused(p.acknowledge('m1', [ack(0, 1, A.Accept, A.Accept, A.Accept)]), ErrorCode.INVALID_REQUEST);
    });

    it('a type outside 0-4 -> INVALID_REQUEST', () => {
      refused(p.acknowledge('m1', [ack(0, 0, A.Accept), ack(1, 2, A.Accept, 5)]), ErrorCode.INVALID_REQUEST, 'type 5');
      refused(p.acknowledge('m1', [ack(1, 1, -1)]), ErrorCode.INVALID_REQUEST);
    });

    it('overlapping batches -> INVALID_REQUEST', () => {
      refused(p.acknowledge('m1', [ack(2, 4, A.Accept), ack(0, 2, A.Accept)]), ErrorCode.INVALID_REQUEST);
    });

    it('an offset acquired by another member -> INVALID_RECORD_STATE naming it', () => {
      refused(p.acknowledge('m2', [ack(5, 6, A.Accept), ack(4, 4, A.Accept)]), ErrorCode.INVALID_RECORD_STATE, 'offset 4');
    });

    it('an offset not Acquired (released, acknowledged) -> INVALID_RECORD_STATE', () => {
      ok(p.acknowledge('m1', [ack(1, 1, A.Release), ack(2, 2, A.Accept)]));
      before = p.snapshot();
      const r1 = p.acknowledge('m1', [ack(0, 0, A.Accept), ack(1, 1, A.Accept)]);
      expect([r1.errorCode, r1.changed]).to.deep.equal([ErrorCode.INVALID_RECORD_STATE, false]);
      expect(r1.errorMessage).to.contain('offset 1');
      const r2 = p.acknowledge('m1', [ack(2, 2, A.Reject)]);
      expect([r2.errorCode, r2.changed]).to.deep.equal([ErrorCode.INVALID_RECORD_STATE, false]);
      expect(r2.errorMessage).to.contain('offset 2');
      expect(p.snapshot()).to.deep.equal(before);
      expect(p.acquiredBy('m1')).to.equal(3);
    });

    it('an offset outside [startOffset, endOffset) -> INVALID_RECORD_STATE naming it', () => {
      refused(p.acknowledge('m2', [ack(5, 6, A.Accept), ack(7, 9, A.Accept)]), ErrorCode.INVALID_RECORD_STATE, 'offset 7');
      refused(p.acknowledge('m2', [ack(6, 8, A.Accept)]), ErrorCode.INVALID_RECORD_STATE, 'offset 7');
      ok(p.acknowledge('m1', [ack(0, 1, A.Accept)]));
      expect(p.startOffset).to.equal(2);
      before = p.snapshot();
      const r = p.acknowledge('m1', [ack(1, 2, A.Accept)]);
      expect([r.errorCode, r.changed]).to.deep.equal([ErrorCode.INVALID_RECORD_STATE, false]);
      expect(r.errorMessage).to.contain('offset 1');
      expect(p.snapshot()).to.deep.equal(before);
    });
  });

  describe('locks', () => {
    it('expire at the deadline, not before: Acquired -> Available', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 1)], 100);
      clock = 11_000;
      p.acquire('m2', [span(2, 3)], 100);
      expect(p.nextLockDeadline()).to.equal(31_000);
      clock = 30_999;
      expect(p.expireLocks()).to.equal(false);
      expect([p.acquiredBy('m1'), p.acquiredBy('m2')]).to.deep.equal([2, 2]);
      clock = 31_000;
      expect(p.expireLocks()).to.equal(false); // back to Available with its count: the snapshot is the same
      expect([p.acquiredBy('m1'), p.acquiredBy('m2')]).to.deep.equal([0, 2]);
      expect(p.describe()).to.include({ available: 2, acquired: 2 });
      expect(p.nextLockDeadline()).to.equal(41_000);
      expect(p.nextFetchOffset()).to.equal(0);
      expect(p.acknowledge('m1', [ack(0, 0, A.Accept)]).errorCode).to.equal(ErrorCode.INVALID_RECORD_STATE);
    });

    it('Renew (KIP-1222) keeps the record Acquired by its member for another lock duration from now', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 1)], 100);
      clock = 25_000;
      const r = p.acknowledge('m1', [ack(0, 0, A.Renew)]);
      expect(r).to.deep.include({ errorCode: ErrorCode.NONE, changed: false });
      // acquired at 1,000: offset 1's lock ends at 31,000, offset 0's renewed one at 55,000
      clock = 31_000;
      p.expireLocks();
      expect(p.acquiredBy('m1')).to.equal(1);
      expect(p.nextLockDeadline()).to.equal(55_000);
      expect(p.acknowledge('m2', [ack(0, 0, A.Renew)]).errorCode).to.equal(ErrorCode.INVALID_RECORD_STATE);
      clock = 55_000;
      p.expireLocks();
      expect(p.acquiredBy('m1')).to.equal(0);
      expect(p.describe()).to.include({ available: 2, acquired: 0 });
    });

    it('an expired lock at the delivery limit archives the offset', () => {
      const p = fresh(0, { deliveryCountLimit: 1 });
      p.acquire('m1', [span(0, 2)], 100);
      ok(p.acknowledge('m1', [ack(2, 2, A.Accept)]));
      clock = 31_000;
      expect(p.expireLocks()).to.equal(true);
      expect([p.startOffset, p.endOffset, p.nextLockDeadline()]).to.deep.equal([3, 3, null]);
    });
  });

  describe('releaseMember', () => {
    it('gives back every offset the member holds as a Release would', () => {
      const p = fresh(0, { deliveryCountLimit: 2 });
      p.acquire('m1', [span(0, 2)], 100);
      p.acquire('m2', [span(3, 4)], 100);
      expect(p.releaseMember('m1')).to.equal(false);
      expect([p.acquiredBy('m1'), p.acquiredBy('m2')]).to.deep.equal([0, 2]);
      expect(p.acquire('m3', [span(0, 4)], 100)).to.deep.equal([{ firstOffset: 0, lastOffset: 2, deliveryCount: 2 }]);
      expect(p.releaseMember('m3')).to.equal(true); // at the limit: archived, and SPSO moves past them
      expect([p.startOffset, p.acquiredBy('m2')]).to.deep.equal([3, 2]);
      expect(p.releaseMember('nobody')).to.equal(false);
    });
  });

  describe('moveStartOffset', () => {
    it('offsets below the log start leave the window', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 9)], 100);
      expect(p.moveStartOffset(0)).to.equal(false);
      expect(p.moveStartOffset(4)).to.equal(true);
      expect([p.startOffset, p.endOffset, p.acquiredBy('m1')]).to.deep.equal([4, 10, 6]);
      expect(p.acknowledge('m1', [ack(2, 2, A.Accept)]).errorCode).to.equal(ErrorCode.INVALID_RECORD_STATE);
      expect(p.snapshot()).to.deep.equal({ startOffset: 4, stateBatches: [batch(4, 9, RecordState.Available, 1)] });
      expect(p.moveStartOffset(3)).to.equal(false);
    });

    it('moves SPSO further past Acknowledged / Archived offsets it uncovers', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 9)], 100);
      ok(p.acknowledge('m1', [ack(5, 6, A.Accept)]));
      expect(p.moveStartOffset(5)).to.equal(true);
      expect(p.startOffset).to.equal(7);
    });

    it('past the window end: both ends move to the log start and acquisition resumes there', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 4)], 100);
      expect(p.moveStartOffset(20)).to.equal(true);
      expect([p.startOffset, p.endOffset, p.nextFetchOffset(), p.acquiredBy('m1'), p.nextLockDeadline()]).to.deep.equal([20, 20, 20, 0, null]);
      expect(p.acquire('m2', [span(20, 22)], 100)).to.deep.equal([{ firstOffset: 20, lastOffset: 22, deliveryCount: 1 }]);
    });
  });

  describe('persisted state', () => {
    it('snapshot -> constructor round trip: Acquired persists as Available with its count, runs merged', () => {
      const p = fresh();
      p.acquire('m1', [span(0, 5)], 100);
      ok(p.acknowledge('m1', [ack(1, 1, A.Accept), ack(2, 2, A.Reject), ack(4, 4, A.Release)]));
      expect(p.acquire('m2', [span(4, 5)], 1)).to.deep.equal([{ firstOffset: 4, lastOffset: 4, deliveryCount: 2 }]);
      const snap = p.snapshot();
      expect(snap).to.deep.equal({
        startOffset: 0,
        stateBatches: [
          batch(0, 0, RecordState.Available, 1),
          batch(1, 1, RecordState.Acknowledged, 1),
          batch(2, 2, RecordState.Archived, 1),
          batch(3, 3, RecordState.Available, 1),
          batch(4, 4, RecordState.Available, 2),
          batch(5, 5, RecordState.Available, 1),
        ],
      });
      const q = new SharePartitionState(snap, limits(), now);
      expect(q.snapshot()).to.deep.equal(snap);
      expect(q.describe()).to.deep.equal({ startOffset: 0, endOffset: 6, available: 4, acquired: 0, acknowledged: 1, archived: 1 });
      expect(q.acquire('m3', [span(0, 5)], 100)).to.deep.equal([
        { firstOffset: 0, lastOffset: 0, deliveryCount: 2 },
        { firstOffset: 3, lastOffset: 3, deliveryCount: 2 },
        { firstOffset: 4, lastOffset: 4, deliveryCount: 3 },
        { firstOffset: 5, lastOffset: 5, deliveryCount: 2 },
      ]);
      expect(new SharePartitionState(fresh(0).snapshot(), limits(), now).snapshot()).to.deep.equal({ startOffset: 0, stateBatches: [] });
    });

    it('restores a read-back state: batches below SPSO ignored, a straddling one cut, uncovered offsets Available with count 0', () => {
      const p = new SharePartitionState({
        startOffset: 10,
        stateBatches: [batch(12, 13, RecordState.Archived, 2), batch(0, 4, RecordState.Acknowledged, 1), batch(8, 10, RecordState.Available, 3)],
      }, limits(), now);
      expect([p.startOffset, p.endOffset]).to.deep.equal([10, 14]);
      expect(p.snapshot().stateBatches).to.deep.equal([
        batch(10, 10, RecordState.Available, 3),
        batch(11, 11, RecordState.Available, 0),
        batch(12, 13, RecordState.Archived, 2),
      ]);
      expect(p.acquire('m1', [span(10, 15)], 100)).to.deep.equal([
        { firstOffset: 10, lastOffset: 10, deliveryCount: 4 },
        { firstOffset: 11, lastOffset: 11, deliveryCount: 1 },
        { firstOffset: 14, lastOffset: 15, deliveryCount: 1 },
      ]);
    });

    it('archiveExhausted: restored Available offsets at the delivery limit (held when written) are archived, SPSO moving past them', () => {
      const p = fresh(0, { deliveryCountLimit: 3 });
      p.acquire('m1', [span(0, 3)], 100);
      ok(p.acknowledge('m1', [ack(0, 0, A.Release), ack(1, 1, A.Release)]));
      p.acquire('m2', [span(0, 1)], 100);
      ok(p.acknowledge('m2', [ack(0, 0, A.Release)]));
      // 0 held a third time (the limit), 1 twice, 2 once, 3 accepted: written so
      expect(p.acquire('m3', [span(0, 0)], 100)).to.deep.equal([{ firstOffset: 0, lastOffset: 0, deliveryCount: 3 }]);
      ok(p.acknowledge('m1', [ack(3, 3, A.Accept)]));
      const snap = p.snapshot();
      expect(snap.stateBatches[0]).to.deep.equal(batch(0, 0, RecordState.Available, 3));
      expect(p.archiveExhausted(), 'nothing Available at the limit while it is held').to.equal(false);
      const q = new SharePartitionState(snap, limits({ deliveryCountLimit: 3 }), now);
      expect(q.archiveExhausted()).to.equal(true);
      expect(q.snapshot()).to.deep.equal({ startOffset: 1, stateBatches: [batch(1, 1, RecordState.Available, 2), batch(2, 2, RecordState.Available, 1), batch(3, 3, RecordState.Acknowledged, 1)] });
      expect(q.acquire('m4', [span(0, 3)], 100)).to.deep.equal([{ firstOffset: 1, lastOffset: 1, deliveryCount: 3 }, { firstOffset: 2, lastOffset: 2, deliveryCount: 2 }]);
      expect(q.archiveExhausted(), 'a second call changes nothing').to.equal(false);
      // one in the middle of the window is archived where it is
      const r = new SharePartitionState({ startOffset: 0, stateBatches: [batch(0, 0, RecordState.Available, 1), batch(1, 1, RecordState.Available, 4)] }, limits({ deliveryCountLimit: 3 }), now);
      expect(r.archiveExhausted()).to.equal(true);
      expect(r.describe()).to.deep.equal({ startOffset: 0, endOffset: 2, available: 1, acquired: 0, acknowledged: 0, archived: 1 });
    });

    it('a restored window starting with finished offsets moves SPSO past them', () => {
      const p = new SharePartitionState({ startOffset: 0, stateBatches: [batch(0, 2, RecordState.Acknowledged, 1), batch(3, 4, RecordState.Archived, 5)] }, limits(), now);
      expect([p.startOffset, p.endOffset]).to.deep.equal([5, 5]);
    });

    it('malformed initial state or limits throw a RangeError', () => {
      const make = (s: PersistedShareState, l = limits()) => () => new SharePartitionState(s, l, now);
      expect(make({ startOffset: 0, stateBatches: [batch(0, 4, 0, 1), batch(4, 6, 2, 1)] })).to.throw(RangeError, /overlaps/);
      expect(make({ startOffset: 0, stateBatches: [batch(5, 4, 0, 1)] })).to.throw(RangeError);
      expect(make({ startOffset: 0, stateBatches: [batch(0, 4, RecordState.Acquired, 1)] })).to.throw(RangeError);
      expect(make({ startOffset: 0, stateBatches: [batch(0, 4, 3, 1)] })).to.throw(RangeError);
      expect(make({ startOffset: 0, stateBatches: [batch(0, 4, 0, -1)] })).to.throw(RangeError);
      expect(make({ startOffset: -1, stateBatches: [] })).to.throw(RangeError);
      expect(make({ startOffset: 1.5, stateBatches: [] })).to.throw(RangeError);
      expect(make({ startOffset: 0, stateBatches: [] }, limits({ maxInFlightRecords: 0 }))).to.throw(RangeError);
      expect(() => fresh().setLimits(limits({ deliveryCountLimit: 0 }))).to.throw(RangeError);
    });
  });

  describe('limits, describe and acquiredBy', () => {
    it('setLimits applies to later operations', () => {
      const p = fresh(0, { maxInFlightRecords: 10, deliveryCountLimit: 1 });
      p.acquire('m1', [span(0, 5)], 100);
      p.setLimits(limits({ maxInFlightRecords: 6, deliveryCountLimit: 3, lockDurationMs: 5_000 }));
      expect(p.nextFetchOffset()).to.equal(null);
      expect(p.acquire('m2', [span(6, 9)], 100)).to.deep.equal([]);
      ok(p.acknowledge('m1', [ack(0, 0, A.Release)])); // the limit is now 3: back to Available
      expect(p.startOffset).to.equal(0);
      expect(p.acquire('m2', [span(0, 9)], 100)).to.deep.equal([{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }]);
      expect(p.nextLockDeadline()).to.equal(6_000);
    });

    it('describe counts the window by state, acquiredBy counts what a member holds', () => {
      const p = fresh(100);
      p.acquire('m1', [span(100, 107)], 100);
      p.acquire('m2', [span(108, 109)], 100);
      ok(p.acknowledge('m1', [ack(101, 104, A.Accept, A.Reject, A.Release, A.Gap)]));
      expect(p.describe()).to.deep.equal({ startOffset: 100, endOffset: 110, available: 1, acquired: 6, acknowledged: 1, archived: 2 });
      expect([p.acquiredBy('m1'), p.acquiredBy('m2'), p.acquiredBy('m3')]).to.deep.equal([4, 2, 0]);
    });

    it('a window longer than its first capacity keeps every offset in order', () => {
      const p = fresh(5, { maxInFlightRecords: 2000 });
      expect(p.acquire('m1', [span(5, 1004)], 2000)).to.deep.equal([{ firstOffset: 5, lastOffset: 1004, deliveryCount: 1 }]);
      ok(p.acknowledge('m1', [ack(5, 504, A.Accept), ack(600, 600, A.Release)]));
      expect(p.acquire('m2', [span(1005, 1700)], 2000)).to.deep.equal([
        { firstOffset: 600, lastOffset: 600, deliveryCount: 2 },
        { firstOffset: 1005, lastOffset: 1700, deliveryCount: 1 },
      ]);
      expect(p.describe()).to.deep.equal({ startOffset: 505, endOffset: 1701, available: 0, acquired: 1196, acknowledged: 0, archived: 0 });
      expect([p.acquiredBy('m1'), p.acquiredBy('m2')]).to.deep.equal([499, 697]);
      expect(p.snapshot().stateBatches).to.deep.equal([
        batch(505, 599, RecordState.Available, 1),
        batch(600, 600, RecordState.Available, 2),
        batch(601, 1700, RecordState.Available, 1),
      ]);
    });
  });
});
