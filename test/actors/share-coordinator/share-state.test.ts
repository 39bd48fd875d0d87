/**
 * The share coordinator's pure core: state batches combined as Kafka's
 * PersisterStateBatchCombiner does (pruned below the start offset, the higher delivery count then
 * state winning where runs overlap, equal neighbours joined), and each request's decision on a
 * key's state (fencing by leader and state epoch, what is written, what is answered).
 */
import { expect } from 'chai';
import {
  combineStateBatches,
  decideDelete,
  decideInitialize,
  decideRead,
  decideWrite,
  validateShareKey,
  validateStateBatches,
  type ShareState,
} from '../../../actors/share-coordinator/share-state.js';
import type { ShareStateBatch } from '../../../actors/share-coordinator/share-state-records.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const b = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number): ShareStateBatch => ({ firstOffset, lastOffset, deliveryState, deliveryCount });
const AVAILABLE = 0;
const ACKED = 2;
const ARCHIVED = 4;

const STATE: ShareState = {
  snapshotEpoch: 2,
  stateEpoch: 1,
  leaderEpoch: 5,
  startOffset: 100,
  createTimestamp: 10,
  writeTimestamp: 20,
  stateBatches: [b(100, 109, AVAILABLE, 1)],
};

describe('actors/share-coordinator share state', () => {
  describe('combineStateBatches', () => {
    it('keeps a run the new batches do not touch (Kafka\'s non-sequential updates: batch 2 is not lost)', () => {
      const soFar = [b(100, 109, 1, 1), b(110, 119, 1, 2), b(120, 129, 1, 0)];
      const afterAck1 = combineStateBatches(soFar, [b(100, 109, ACKED, 1)], -1);
      expect(afterAck1).to.deep.equal([b(100, 109, ACKED, 1), b(110, 119, 1, 2), b(120, 129, 1, 0)]);
      expect(combineStateBatches(afterAck1, [b(120, 129, ACKED, 1)], 110)).to.deep.equal([b(110, 119, 1, 2), b(120, 129, ACKED, 1)]);
    });

    it('where runs overlap the higher delivery count wins, then the higher state, whichever came first', () => {
      expect(combineStateBatches([b(0, 9, AVAILABLE, 3)], [b(2, 5, ACKED, 1)], -1)).to.deep.equal([b(0, 9, AVAILABLE, 3)]);
      expect(combineStateBatches([b(0, 9, AVAILABLE, 1)], [b(2, 5, ACKED, 1)], -1)).to.deep.equal([b(0, 1, AVAILABLE, 1), b(2, 5, ACKED, 1), b(6, 9, AVAILABLE, 1)]);
      expect(combineStateBatches([b(2, 5, ARCHIVED, 2)], [b(0, 9, AVAILABLE, 2)], -1)).to.deep.equal([b(0, 1, AVAILABLE, 2), b(2, 5, ARCHIVED, 2), b(6, 9, AVAILABLE, 2)]);
      expect(combineStateBatches([b(0, 4, AVAILABLE, 1)], [b(3, 8, AVAILABLE, 2)], -1)).to.deep.equal([b(0, 2, AVAILABLE, 1), b(3, 8, AVAILABLE, 2)]);
    });

    it('drops what lies below the start offset, cuts a run across it, joins touching runs of the same state and count', () => {
      expect(combineStateBatches([b(0, 9, AVAILABLE, 1), b(10, 19, AVAILABLE, 1)], [b(20, 29, AVAILABLE, 1)], 5)).to.deep.equal([b(5, 29, AVAILABLE, 1)]);
      expect(combineStateBatches([b(0, 9, ACKED, 1)], [], 10)).to.deep.equal([]);
      expect(combineStateBatches([b(0, 3, ACKED, 1), b(8, 9, ACKED, 1)], [], -1)).to.deep.equal([b(0, 3, ACKED, 1), b(8, 9, ACKED, 1)]);
      expect(combineStateBatches([], [b(7, 9, ACKED, 1), b(0, 3, ACKED, 1)], -1)).to.deep.equal([b(0, 3, ACKED, 1), b(7, 9, ACKED, 1)]);
    });
  });

  describe('decisions', () => {
    it('a write below the stored leader epoch is FENCED_LEADER_EPOCH, below the stored state epoch FENCED_STATE_EPOCH (124)', () => {
      const w = { leaderEpoch: 5, stateEpoch: 1, startOffset: -1, stateBatches: [] };
      expect(decideWrite(STATE, { ...w, leaderEpoch: 4 }, 99)).to.deep.include({ refuse: { errorCode: ErrorCode.FENCED_LEADER_EPOCH, errorMessage: 'The leader epoch in the request is older than the epoch on the broker.' } });
      expect(ErrorCode.FENCED_STATE_EPOCH).to.equal(124);
      const fenced = { refuse: { errorCode: ErrorCode.FENCED_STATE_EPOCH, errorMessage: 'The share coordinator rejected the request because the share-group state epoch did not match.' } };
      expect(decideWrite(STATE, { ...w, stateEpoch: 0 }, 99)).to.deep.equal(fenced);
      expect(decideInitialize(STATE, { stateEpoch: 0, startOffset: 0 }, 99)).to.deep.equal(fenced);
    });

    it('a write lays its batches over the stored ones; start offset -1 keeps the stored one; the snapshot epoch grows', () => {
      const step = decideWrite(STATE, { leaderEpoch: 6, stateEpoch: 1, startOffset: -1, stateBatches: [b(105, 114, ACKED, 1)] }, 99);
      expect(step).to.deep.equal({
        write: { snapshotEpoch: 3, stateEpoch: 1, leaderEpoch: 6, startOffset: 100, createTimestamp: 10, writeTimestamp: 99, stateBatches: [b(100, 104, AVAILABLE, 1), b(105, 114, ACKED, 1)] },
        reply: null,
      });
      const first = decideWrite(undefined, { leaderEpoch: 0, stateEpoch: 0, startOffset: 0, stateBatches: [b(0, 4, AVAILABLE, 1)] }, 7);
      expect(first).to.deep.equal({ write: { snapshotEpoch: 0, stateEpoch: 0, leaderEpoch: 0, startOffset: 0, createTimestamp: 7, writeTimestamp: 7, stateBatches: [b(0, 4, AVAILABLE, 1)] }, reply: null });
    });

    it('a read answers an unknown key uninitialized, records a newer leader epoch, fences an older one, and -1 does neither', () => {
      expect(decideRead(undefined, -1, 1)).to.deep.equal({ reply: { stateEpoch: 0, startOffset: -1, stateBatches: [] } });
      expect(decideRead(undefined, 3, 1)).to.deep.equal({
        write: { snapshotEpoch: 0, stateEpoch: 0, leaderEpoch: 3, startOffset: -1, createTimestamp: 1, writeTimestamp: 1, stateBatches: [] },
        reply: { stateEpoch: 0, startOffset: -1, stateBatches: [] },
      });
      expect(decideRead(STATE, 5, 1)).to.deep.equal({ reply: { stateEpoch: 1, startOffset: 100, stateBatches: STATE.stateBatches } });
      expect(decideRead(STATE, 6, 1)).to.have.nested.property('write.leaderEpoch', 6);
      expect(decideRead(STATE, 4, 1)).to.have.nested.property('refuse.errorCode', ErrorCode.FENCED_LEADER_EPOCH);
      expect(decideRead(STATE, -1, 1)).to.have.property('reply');
    });

    it('initialize starts a fresh state keeping the leader epoch; delete writes only for a key with state', () => {
      expect(decideInitialize(STATE, { stateEpoch: 2, startOffset: 500 }, 30)).to.deep.equal({
        write: { snapshotEpoch: 3, stateEpoch: 2, leaderEpoch: 5, startOffset: 500, createTimestamp: 30, writeTimestamp: 30, stateBatches: [] },
        reply: null,
      });
      expect(decideDelete(STATE)).to.deep.equal({ write: null, reply: null });
      expect(decideDelete(undefined)).to.deep.equal({ reply: null });
    });

    it('keys and batches are validated as Kafka does', () => {
      expect(validateShareKey({ groupId: 'g', topicId: 'AAECAwQFBgcICQoLDA0ODw', partition: 0 })).to.equal(null);
      expect(validateShareKey({ groupId: 'g', topicId: 'AAECAwQFBgcICQoLDA0ODw', partition: -1 })).to.deep.equal({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The partition id cannot be a negative number.' });
      expect(validateShareKey({ groupId: '', topicId: 'AAECAwQFBgcICQoLDA0ODw', partition: 0 })).to.have.property('errorCode', ErrorCode.INVALID_REQUEST);
      expect(validateShareKey({ groupId: 'g', topicId: 'orders', partition: 0 })).to.have.property('errorCode', ErrorCode.INVALID_REQUEST);
      expect(validateStateBatches([b(0, 1, 0, 1)])).to.equal(null);
      expect(validateStateBatches([b(5, 1, 0, 1)])).to.have.property('errorCode', ErrorCode.INVALID_REQUEST);
      expect(validateStateBatches([b(0, 1, 0, 40_000)])).to.have.property('errorCode', ErrorCode.INVALID_REQUEST);
    });
  });
});
