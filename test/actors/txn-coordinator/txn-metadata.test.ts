/**
 * The transaction state table (every legal and every illegal transition, written out apart from
 * the implementation's), preparing and completing transitions, partition sets, and the
 * __transaction_state record: encode, decode (and what it refuses), tombstones and replay.
 */
import { expect } from 'chai';
import { pack, unpack } from 'msgpackr';
import {
  ALL_TXN_STATES,
  TxnState,
  completeTransition,
  containsAll,
  decodeTxnRecord,
  encodeTxnRecord,
  isEpochExhausted,
  isExpirationAllowed,
  isValidTransition,
  prepareTransition,
  recordFields,
  replay,
  tombstone,
  unionPartitions,
  validateTransition,
  type TxnMetadata,
  type TxnResult,
} from '../../../actors/txn-coordinator/txn-metadata.js';
import { ErrorCode, errorName } from '../../../src/protocol/errors.js';

const S = TxnState;

/** Kafka's validPreviousStates as pairs [from, to]. */
const LEGAL: [TxnState, TxnState][] = [
  [S.Empty, S.Empty],
  [S.CompleteCommit, S.Empty],
  [S.CompleteAbort, S.Empty],
  [S.Ongoing, S.Ongoing],
  [S.Empty, S.Ongoing],
  [S.CompleteCommit, S.Ongoing],
  [S.CompleteAbort, S.Ongoing],
  [S.Ongoing, S.PrepareCommit],
  [S.Ongoing, S.PrepareAbort],
  [S.PrepareEpochFence, S.PrepareAbort],
  // KIP-890 part 2: an EndTxn v5 abort with no partition added
  [S.Empty, S.PrepareAbort],
  [S.CompleteCommit, S.PrepareAbort],
  [S.CompleteAbort, S.PrepareAbort],
  [S.PrepareCommit, S.CompleteCommit],
  [S.PrepareAbort, S.CompleteAbort],
  [S.Empty, S.Dead],
  [S.CompleteAbort, S.Dead],
  [S.CompleteCommit, S.Dead],
  [S.Ongoing, S.PrepareEpochFence],
];
const isLegal = (from: TxnState, to: TxnState): boolean => LEGAL.some(([f, t]) => f === from && t === to);

function meta(over: Partial<TxnMetadata> = {}): TxnMetadata {
  return {
    transactionalId: 'tx',
    producerId: 7,
    lastProducerId: 7,
    producerEpoch: 3,
    lastProducerEpoch: -1,
    txnTimeoutMs: 60_000,
    state: S.Empty,
    partitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: 1_000,
    nextProducerId: -1,
    transactionVersion: 0,
    pending: null,
    hasFailedEpochFence: false,
    ...over,
  };
}

function must<T>(r: TxnResult<T>): T {
  if (!r.ok) expect.fail(`refused: ${errorName(r.error.errorCode)} ${r.error.message}`);
  return r.value;
}

function refusal<T>(r: TxnResult<T>, code: number): string {
  if (r.ok) expect.fail(`expected ${errorName(code)}, got success`);
  expect(errorName(r.error.errorCode)).to.equal(errorName(code));
  return r.error.message;
}

describe('txn-coordinator txn-metadata', () => {
  describe('state table', () => {
    it('knows the eight states of Kafka', () => {
      expect([...ALL_TXN_STATES].sort()).to.deep.equal(
        ['CompleteAbort', 'CompleteCommit', 'Dead', 'Empty', 'Ongoing', 'PrepareAbort', 'PrepareCommit', 'PrepareEpochFence'],
      );
    });

    for (const from of ALL_TXN_STATES) {
      for (const to of ALL_TXN_STATES) {
        if (isLegal(from, to)) {
          it(`allows ${from} -> ${to}`, () => {
            expect(isValidTransition(from, to)).to.equal(true);
            expect(validateTransition('tx', from, to)).to.equal(null);
          });
        } else {
          it(`refuses ${from} -> ${to} as data`, () => {
            expect(isValidTransition(from, to)).to.equal(false);
            const error = validateTransition('tx', from, to);
            expect(error?.errorCode).to.equal(ErrorCode.UNKNOWN_SERVER_ERROR);
            expect(error?.message).to.contain(`${from} -> ${to}`);
          });
        }
      }
    }

    it('allows expiration only of Empty, CompleteCommit and CompleteAbort', () => {
      const allowed = ALL_TXN_STATES.filter(isExpirationAllowed);
      expect(allowed).to.have.members([S.Empty, S.CompleteCommit, S.CompleteAbort]).and.to.have.length(3);
    });

    it('calls an epoch exhausted from Short.MAX_VALUE - 1', () => {
      expect(isEpochExhausted(32765)).to.equal(false);
      expect(isEpochExhausted(32766)).to.equal(true);
      expect(isEpochExhausted(32767)).to.equal(true);
    });
  });

  describe('prepareTransition / completeTransition', () => {
    it('prepares a legal transition as pending, leaving the metadata as it is until completed', () => {
      const m = meta({ state: S.Empty });
      const to = { ...recordFields(m), state: S.Ongoing, partitions: [{ topic: 't', partition: 0 }], txnStartTimestamp: 5, txnLastUpdateTimestamp: 5 };
      const prepared = must(prepareTransition(m, to, { type: 'AnswerAddPartitions', api: 'AddPartitionsToTxn' }));
      expect(prepared.state).to.equal(S.Empty);
      expect(prepared.partitions).to.deep.equal([]);
      expect(prepared.pending?.to.state).to.equal(S.Ongoing);
      const done = must(completeTransition(prepared));
      expect(done).to.deep.equal({ ...m, ...to, pending: null });
    });

    it('refuses an illegal transition as data, never throwing', () => {
      const m = meta({ state: S.Empty });
      const message = refusal(prepareTransition(m, { ...recordFields(m), state: S.PrepareCommit }, { type: 'Remove' }), ErrorCode.UNKNOWN_SERVER_ERROR);
      expect(message).to.contain('Empty -> PrepareCommit');
    });

    it('refuses a second transition while one is pending', () => {
      const m = meta({ pending: { to: { ...recordFields(meta()), state: S.Empty }, then: { type: 'AnswerInitProducerId' } } });
      refusal(prepareTransition(m, { ...recordFields(m), state: S.Ongoing }, { type: 'Remove' }), ErrorCode.UNKNOWN_SERVER_ERROR);
    });

    it('refuses a negative producer id, and a negative or overflowing epoch outside Dead', () => {
      const m = meta();
      refusal(prepareTransition(m, { ...recordFields(m), producerId: -1 }, { type: 'AnswerInitProducerId' }), ErrorCode.UNKNOWN_SERVER_ERROR);
      refusal(prepareTransition(m, { ...recordFields(m), producerEpoch: -1 }, { type: 'AnswerInitProducerId' }), ErrorCode.UNKNOWN_SERVER_ERROR);
      refusal(prepareTransition(m, { ...recordFields(m), producerEpoch: 32768 }, { type: 'AnswerInitProducerId' }), ErrorCode.UNKNOWN_SERVER_ERROR);
      must(prepareTransition(meta({ producerEpoch: -1 }), { ...recordFields(meta({ producerEpoch: -1 })), state: S.Dead }, { type: 'Remove' }));
    });

    it('refuses to complete when nothing is pending', () => {
      refusal(completeTransition(meta()), ErrorCode.UNKNOWN_SERVER_ERROR);
    });
  });

  describe('partition sets', () => {
    it('unions into one sorted form without duplicates', () => {
      const a = [{ topic: 'b', partition: 1 }, { topic: 'a', partition: 2 }];
      const b = [{ topic: 'a', partition: 2 }, { topic: 'a', partition: 0 }, { topic: 'b', partition: 1 }];
      expect(unionPartitions(a, b)).to.deep.equal([{ topic: 'a', partition: 0 }, { topic: 'a', partition: 2 }, { topic: 'b', partition: 1 }]);
    });

    it('tells a subset', () => {
      const set = [{ topic: 'a', partition: 0 }, { topic: 'b', partition: 1 }];
      expect(containsAll(set, [{ topic: 'b', partition: 1 }])).to.equal(true);
      expect(containsAll(set, [{ topic: 'b', partition: 0 }])).to.equal(false);
      expect(containsAll(set, [])).to.equal(true);
    });
  });

  describe('__transaction_state records', () => {
    const ongoing = meta({
      state: S.Ongoing,
      partitions: [{ topic: 'b', partition: 0 }, { topic: 'a', partition: 3 }, { topic: 'a', partition: 1 }],
      txnStartTimestamp: 900,
      lastProducerEpoch: 2,
      lastProducerId: 5,
    });

    it('encodes the fields, partitions grouped by topic', () => {
      const record = encodeTxnRecord('tx', ongoing);
      expect(record.key).to.deep.equal({ transactionalId: 'tx' });
      expect(record.value).to.deep.equal({
        version: 0,
        producerId: 7,
        lastProducerId: 5,
        producerEpoch: 3,
        lastProducerEpoch: 2,
        txnTimeoutMs: 60_000,
        state: 'Ongoing',
        partitions: [{ topic: 'a', partitions: [1, 3] }, { topic: 'b', partitions: [0] }],
        txnStartTimestamp: 900,
        txnLastUpdateTimestamp: 1_000,
        nextProducerId: -1,
        transactionVersion: 0,
      });
    });

    it('decodes what it encodes, through msgpack', () => {
      const decoded = must(decodeTxnRecord(unpack(pack(encodeTxnRecord('tx', ongoing)))));
      expect(decoded.transactionalId).to.equal('tx');
      expect(decoded.metadata).to.deep.equal({ ...ongoing, partitions: unionPartitions(ongoing.partitions) });
    });

    it('decodes a record of an earlier samsa (no next producer id, no transaction version) as -1 and TV_0', () => {
      const { nextProducerId: _n, transactionVersion: _t, ...older } = encodeTxnRecord('tx', ongoing).value!;
      const decoded = must(decodeTxnRecord({ key: { transactionalId: 'tx' }, value: older }));
      expect(decoded.metadata).to.deep.include({ nextProducerId: -1, transactionVersion: 0 });
    });

    it('keeps a TV_2 transaction\'s next producer id and transaction version, and refuses an unknown version or a garbled id', () => {
      const tv2 = { ...ongoing, nextProducerId: 900, transactionVersion: 2 };
      expect(must(decodeTxnRecord(unpack(pack(encodeTxnRecord('tx', tv2))))).metadata).to.deep.include({ nextProducerId: 900, transactionVersion: 2 });
      const value = encodeTxnRecord('tx', tv2).value!;
      expect(decodeTxnRecord({ key: { transactionalId: 'tx' }, value: { ...value, transactionVersion: 3 } })).to.deep.include({ ok: false });
      expect(decodeTxnRecord({ key: { transactionalId: 'tx' }, value: { ...value, nextProducerId: 'x' } })).to.deep.include({ ok: false });
    });

    it('decodes a tombstone as no metadata', () => {
      expect(must(decodeTxnRecord(tombstone('tx')))).to.deep.equal({ transactionalId: 'tx', metadata: null });
      expect(must(decodeTxnRecord(unpack(pack(tombstone('tx')))))).to.deep.equal({ transactionalId: 'tx', metadata: null });
    });

    const good = encodeTxnRecord('tx', ongoing);
    const broken: [string, unknown][] = [
      ['no object', 42],
      ['no key', { value: null }],
      ['an empty transactional id', { key: { transactionalId: '' }, value: null }],
      ['an unknown value version', { ...good, value: { ...good.value, version: 1 } }],
      ['a non-integer field', { ...good, value: { ...good.value, producerEpoch: 1.5 } }],
      ['a missing field', { ...good, value: { ...good.value, txnTimeoutMs: undefined } }],
      ['an unknown state', { ...good, value: { ...good.value, state: 'Stable' } }],
      ['partitions not a list', { ...good, value: { ...good.value, partitions: {} } }],
      ['a malformed topic entry', { ...good, value: { ...good.value, partitions: [{ topic: 1, partitions: [0] }] } }],
      ['a negative partition', { ...good, value: { ...good.value, partitions: [{ topic: 'a', partitions: [-1] }] } }],
      ['a value that is not an object', { ...good, value: 'x' }],
    ];
    for (const [what, raw] of broken) {
      it(`refuses a record with ${what} as CORRUPT_MESSAGE`, () => {
        refusal(decodeTxnRecord(raw), ErrorCode.CORRUPT_MESSAGE);
      });
    }

    it('replays: the last record of an id wins', () => {
      const first = encodeTxnRecord('tx', meta({ producerEpoch: 1 }));
      const second = encodeTxnRecord('tx', meta({ producerEpoch: 2 }));
      const other = encodeTxnRecord('other', meta({ transactionalId: 'other', producerId: 9 }));
      const { table, invalid } = replay([first, other, second]);
      expect(invalid).to.deep.equal([]);
      expect([...table.keys()].sort()).to.deep.equal(['other', 'tx']);
      expect(table.get('tx')).to.deep.equal(meta({ producerEpoch: 2 }));
      expect(table.get('other')?.producerId).to.equal(9);
    });

    it('replays: a tombstone deletes, and a later record brings the id back', () => {
      expect(replay([encodeTxnRecord('tx', meta()), tombstone('tx')]).table.size).to.equal(0);
      const back = replay([encodeTxnRecord('tx', meta()), tombstone('tx'), encodeTxnRecord('tx', meta({ producerId: 8 }))]).table;
      expect(back.get('tx')?.producerId).to.equal(8);
    });

    it('replays: an unreadable record is skipped and reported by position', () => {
      const { table, invalid } = replay([encodeTxnRecord('tx', meta()), { key: {} }, encodeTxnRecord('tx', meta({ producerEpoch: 4 }))]);
      expect(table.get('tx')?.producerEpoch).to.equal(4);
      expect(invalid.map((i) => i.index)).to.deep.equal([1]);
    });
  });
});
