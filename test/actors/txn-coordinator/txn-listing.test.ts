/**
 * What a transaction coordinator tells admins (txn-listing.ts): DescribeTransactions of one id
 * and ListTransactions with Kafka's filters (state names, unknown ones reported; producer ids;
 * running longer than a duration; KIP-1152's transactional id pattern), Dead ids never told.
 */
import { expect } from 'chai';
import { describeTransaction, listTransactions, transactionRefused } from '../../../actors/txn-coordinator/txn-listing.js';
import { TxnState, type TxnMetadata } from '../../../actors/txn-coordinator/txn-metadata.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const NOW = 1_700_000_000_000;

function meta(transactionalId: string, over: Partial<TxnMetadata> = {}): TxnMetadata {
  return {
    transactionalId,
    producerId: 7,
    lastProducerId: 7,
    producerEpoch: 3,
    lastProducerEpoch: -1,
    txnTimeoutMs: 30_000,
    state: TxnState.Empty,
    partitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: NOW - 10,
    nextProducerId: -1,
    transactionVersion: 0,
    pending: null,
    hasFailedEpochFence: false,
    ...over,
  };
}

const entry = (m: TxnMetadata) => ({ transactionalId: m.transactionalId, metadata: m });
const NO_FILTER = { states: [], producerIds: [], durationMs: -1 };

describe('actors/txn-coordinator/txn-listing', function () {
  describe('describeTransaction', function () {
    it('tells an ongoing transaction: state, timeout, start, producer and its partitions', function () {
      const partitions = [
        { topic: 'a', partition: 0 },
        { topic: 'a', partition: 2 },
        { topic: 'b', partition: 1 },
      ];
      const m = meta('tx', { state: TxnState.Ongoing, partitions, txnStartTimestamp: NOW - 500, producerId: 42, producerEpoch: 5, pending: null });
      const v = describeTransaction('tx', m);
      expect(v).to.deep.equal({ transactionalId: 'tx', errorCode: ErrorCode.NONE, state: 'Ongoing', txnTimeoutMs: 30_000, txnStartTimestamp: NOW - 500, producerId: 42, producerEpoch: 5, partitions });
      // a copy: the answer does not share the metadata's list
      expect(v.partitions).to.not.equal(m.partitions);
    });

    it('answers TRANSACTIONAL_ID_NOT_FOUND for an unknown id and one being expired (Dead), INVALID_REQUEST for an empty id', function () {
      expect(describeTransaction('gone', null)).to.deep.equal(transactionRefused('gone', ErrorCode.TRANSACTIONAL_ID_NOT_FOUND));
      expect(describeTransaction('dead', meta('dead', { state: TxnState.Dead })).errorCode).to.equal(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
      expect(describeTransaction('', meta(''))).to.deep.equal(transactionRefused('', ErrorCode.INVALID_REQUEST));
      expect(transactionRefused('x', ErrorCode.NOT_COORDINATOR)).to.deep.equal({ transactionalId: 'x', errorCode: ErrorCode.NOT_COORDINATOR, state: '', txnTimeoutMs: -1, txnStartTimestamp: -1, producerId: -1, producerEpoch: -1, partitions: [] });
    });

    it('tells the state as it stands while a transition is being written, not the one pending', function () {
      const m = meta('tx', { state: TxnState.Ongoing, txnStartTimestamp: NOW - 5, pending: { to: meta('tx', { state: TxnState.PrepareCommit }), then: { type: 'WriteMarkers', answer: 'EndTxn', epochFence: false } } });
      expect(describeTransaction('tx', m).state).to.equal('Ongoing');
    });
  });

  describe('listTransactions', function () {
    const txns = [
      meta('c-ongoing', { state: TxnState.Ongoing, producerId: 3, txnStartTimestamp: NOW - 60_000 }),
      meta('a-empty', { state: TxnState.Empty, producerId: 1 }),
      meta('b-committed', { state: TxnState.CompleteCommit, producerId: 2, txnStartTimestamp: NOW - 1_000 }),
      meta('d-dead', { state: TxnState.Dead, producerId: 4 }),
      meta('e-fresh', { state: TxnState.Ongoing, producerId: 5, txnStartTimestamp: NOW - 10 }),
    ].map(entry);

    it('lists every id but the Dead ones, sorted, with its producer and state', function () {
      expect(listTransactions(txns, NO_FILTER, NOW)).to.deep.equal({
        errorCode: ErrorCode.NONE,
        unknownStateFilters: [],
        transactions: [
          { transactionalId: 'a-empty', producerId: 1, state: 'Empty' },
          { transactionalId: 'b-committed', producerId: 2, state: 'CompleteCommit' },
          { transactionalId: 'c-ongoing', producerId: 3, state: 'Ongoing' },
          { transactionalId: 'e-fresh', producerId: 5, state: 'Ongoing' },
        ],
      });
      expect(listTransactions([], NO_FILTER, NOW)).to.deep.equal({ errorCode: ErrorCode.NONE, unknownStateFilters: [], transactions: [] });
    });

    it('filters by state name and reports the names it does not know; only unknown names match nothing', function () {
      const r = listTransactions(txns, { ...NO_FILTER, states: ['Ongoing', 'Running', 'Running'] }, NOW);
      expect(r.transactions.map((t) => t.transactionalId)).to.deep.equal(['c-ongoing', 'e-fresh']);
      expect(r.unknownStateFilters).to.deep.equal(['Running']);
      expect(listTransactions(txns, { ...NO_FILTER, states: ['Running'] }, NOW)).to.deep.equal({ errorCode: ErrorCode.NONE, unknownStateFilters: ['Running'], transactions: [] });
      // Dead is a state Kafka knows, and never listed
      expect(listTransactions(txns, { ...NO_FILTER, states: ['Dead'] }, NOW)).to.deep.equal({ errorCode: ErrorCode.NONE, unknownStateFilters: [], transactions: [] });
    });

    it('filters by producer id', function () {
      expect(listTransactions(txns, { ...NO_FILTER, producerIds: [2, 5, 99] }, NOW).transactions.map((t) => t.transactionalId)).to.deep.equal(['b-committed', 'e-fresh']);
    });

    it('filters to transactions started more than the duration ago (an id that never started one counts as started at -1, as in Kafka)', function () {
      expect(listTransactions(txns, { ...NO_FILTER, durationMs: 30_000 }, NOW).transactions.map((t) => t.transactionalId)).to.deep.equal(['a-empty', 'c-ongoing']);
      // exactly the duration is not longer than it
      expect(listTransactions(txns, { ...NO_FILTER, durationMs: 60_000 }, NOW).transactions.map((t) => t.transactionalId)).to.deep.equal(['a-empty']);
      expect(listTransactions(txns, { states: ['Ongoing'], producerIds: [], durationMs: 100 }, NOW).transactions.map((t) => t.transactionalId)).to.deep.equal(['c-ongoing']);
    });

    it('filters by a transactional id pattern matched against the whole id (KIP-1152, RE2J syntax), with the other filters', function () {
      const ids = (transactionalIdPattern: string | null, over: { states?: string[]; producerIds?: number[]; durationMs?: number } = {}) =>
        listTransactions(txns, { ...NO_FILTER, ...over, transactionalIdPattern }, NOW).transactions.map((t) => t.transactionalId);
      expect(ids('[a-c]-.*')).to.deep.equal(['a-empty', 'b-committed', 'c-ongoing']);
      // the whole id, not a part of it (Matcher.matches())
      expect(ids('ongoing')).to.deep.equal([]);
      expect(ids('.*ongoing')).to.deep.equal(['c-ongoing']);
      expect(ids('(?i)E-FRESH')).to.deep.equal(['e-fresh']);
      // a Dead id matching is still never listed
      expect(ids('d-dead')).to.deep.equal([]);
      // AND with the other filters
      expect(ids('.*-(ongoing|fresh)', { durationMs: 100 })).to.deep.equal(['c-ongoing']);
      expect(ids('.*', { producerIds: [2] })).to.deep.equal(['b-committed']);
      // null or empty: no such filter
      expect(ids(null)).to.have.length(4);
      expect(ids('')).to.have.length(4);
    });

    it('refuses a pattern that does not compile with INVALID_REGULAR_EXPRESSION and a message, listing nothing', function () {
      for (const [pattern, description] of [
        ['tx-(', 'missing closing )'],
        ['a**', 'missing argument to repetition operator'],
        ['(?=x)', 'invalid or unsupported Perl syntax'],
        ['\\k<n>', 'invalid escape sequence'],
      ] as const) {
        const r = listTransactions(txns, { ...NO_FILTER, states: ['Running'], transactionalIdPattern: pattern }, NOW);
        expect(r).to.deep.equal({
          errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION,
          errorMessage: `TransactionalIdPattern \`${pattern}\` is not a valid regular expression: ${description}.`,
          unknownStateFilters: ['Running'],
          transactions: [],
        });
      }
    });
  });
});
