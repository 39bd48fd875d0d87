/**
 * The transaction coordinator's decisions, each against Kafka's behaviour: InitProducerId (new
 * ids, epoch bumps, epoch overflow, fencing an ongoing transaction, KIP-360 recovery, timeouts),
 * AddPartitionsToTxn and AddOffsetsToTxn, EndTxn and its retries, markers, failed writes,
 * timed-out transactions, expired ids, resumption after a takeover, and a replayed table equal
 * to the live one. A small fake coordinator plays the actor: it carries out the effects.
 */
import { expect } from 'chai';
import { pack, unpack } from 'msgpackr';
import {
  TxnState,
  encodeTxnRecord,
  recordFields,
  replay,
  ok,
  refuse,
  type TopicPartition,
  type TxnLogRecord,
  type TxnMetadata,
  type TxnResult,
} from '../../../actors/txn-coordinator/txn-metadata.js';
import {
  abortTimedOutTransaction as abortTimedOutTransactionWith,
  addOffsetsToTxn,
  addPartitionsImplicitly,
  addPartitionsToTxn,
  coordinatorErrorForAppend,
  endTxn as endTxnWith,
  expireTransactionalId,
  expiredTransactionalIds,
  initProducerId,
  onMarkersWritten,
  onPersistFailed,
  onPersisted,
  resumeLoaded,
  timedOutTransactions,
  type ProducerIdAllocator,
  type TxnConfig,
  type TxnMarkers,
  type TxnReply,
  type TxnStep,
} from '../../../actors/txn-coordinator/txn-state-machine.js';
import { ErrorCode, errorName } from '../../../src/protocol/errors.js';

const S = TxnState;
const T0 = 1_000_000;
const CONFIG: TxnConfig = { transactionMaxTimeoutMs: 60_000, transactionalIdExpirationMs: 3_600_000 };
const tp = (topic: string, partition: number): TopicPartition => ({ topic, partition });
const P1 = [tp('orders', 0), tp('orders', 1)];

function must<T>(r: TxnResult<T>): T {
  if (!r.ok) expect.fail(`refused: ${errorName(r.error.errorCode)} ${r.error.message}`);
  return r.value;
}

function refusal<T>(r: TxnResult<T>, code: number): string {
  if (r.ok) expect.fail(`expected ${errorName(code)}, got success`);
  expect(errorName(r.error.errorCode)).to.equal(errorName(code));
  return r.error.message;
}

function meta(over: Partial<TxnMetadata> = {}): TxnMetadata {
  return {
    transactionalId: 'tx',
    producerId: 7,
    lastProducerId: 7,
    producerEpoch: 3,
    lastProducerEpoch: -1,
    txnTimeoutMs: 30_000,
    state: S.Empty,
    partitions: [],
    txnStartTimestamp: -1,
    txnLastUpdateTimestamp: T0 - 10,
    nextProducerId: -1,
    transactionVersion: 0,
    pending: null,
    hasFailedEpochFence: false,
    ...over,
  };
}

const ongoing = (over: Partial<TxnMetadata> = {}): TxnMetadata => meta({ state: S.Ongoing, partitions: P1, txnStartTimestamp: T0 - 100, ...over });

function allocator(first = 1000): ProducerIdAllocator & { calls: number } {
  let next = first;
  const f = Object.assign(() => {
    f.calls++;
    return ok(next++);
  }, { calls: 0 });
  return f;
}

/** EndTxn and the abort of a timed-out transaction, with a fresh allocator unless one is given. */
const endTxn = (m: TxnMetadata | null, req: Parameters<typeof endTxnWith>[1], now: number, alloc: ProducerIdAllocator = allocator()) => endTxnWith(m, req, now, alloc);
const abortTimedOutTransaction = (m: TxnMetadata, t: Parameters<typeof abortTimedOutTransactionWith>[1], now: number, alloc: ProducerIdAllocator = allocator()) =>
  abortTimedOutTransactionWith(m, t, now, alloc);

const env = (allocateProducerId: ProducerIdAllocator = allocator()) => ({ config: CONFIG, allocateProducerId });
const initReq = (over: Partial<Parameters<typeof initProducerId>[1]> = {}) => ({ transactionalId: 'tx', transactionTimeoutMs: 30_000, producerId: -1, producerEpoch: -1, version: 4, ...over });
const addReq = (m: TxnMetadata, partitions: TopicPartition[] = P1, over = {}) => ({ transactionalId: 'tx', producerId: m.producerId, producerEpoch: m.producerEpoch, partitions, version: 3, ...over });
const endReq = (m: TxnMetadata, committed: boolean, over = {}) => ({ transactionalId: 'tx', producerId: m.producerId, producerEpoch: m.producerEpoch, committed, version: 3, ...over });

/** The single effect of a step, of the type expected. */
function persisted(step: TxnStep): TxnLogRecord {
  expect(step.effects.map((e) => e.type)).to.deep.equal(['Persist']);
  const e = step.effects[0]!;
  if (e.type !== 'Persist') throw new Error('unreachable');
  return e.record;
}

function replies(step: TxnStep): TxnReply[] {
  return step.effects.flatMap((e) => (e.type === 'Reply' ? [e.reply] : []));
}

function markersOf(step: TxnStep): TxnMarkers[] {
  return step.effects.flatMap((e) => (e.type === 'WriteMarkers' ? [e.markers] : []));
}

/** Runs a step and its write to the end (the write succeeds): the metadata and replies at the end. */
function settle(r: TxnResult<TxnStep>, now: number, opts: { markers?: boolean } = {}): { metadata: TxnMetadata | null; replies: TxnReply[]; markers: TxnMarkers[]; log: TxnLogRecord[] } {
  let step = must(r);
  const out = { metadata: step.metadata, replies: [] as TxnReply[], markers: [] as TxnMarkers[], log: [] as TxnLogRecord[] };
  for (;;) {
    out.metadata = step.metadata;
    let next: TxnResult<TxnStep> | null = null;
    for (const e of step.effects) {
      if (e.type === 'Reply') out.replies.push(e.reply);
      else if (e.type === 'WriteMarkers') {
        out.markers.push(e.markers);
        if (opts.markers !== false) next = onMarkersWritten(step.metadata!);
      } else {
        out.log.push(e.record);
        next = onPersisted(step.metadata!, now);
      }
    }
    if (!next) return out;
    step = must(next);
  }
}

describe('txn-coordinator txn-state-machine', () => {
  describe('InitProducerId', () => {
    it('gives a new transactional id a new producer id and epoch 0, answered once written', () => {
      const alloc = allocator(500);
      const step = must(initProducerId(null, initReq(), T0, env(alloc)));
      expect(alloc.calls).to.equal(1);
      expect(step.metadata).to.include({ producerId: 500, producerEpoch: -1, state: S.Empty, txnLastUpdateTimestamp: T0 });
      expect(persisted(step).value).to.include({ producerId: 500, producerEpoch: 0, lastProducerEpoch: -1, state: 'Empty', txnTimeoutMs: 30_000, txnStartTimestamp: -1 });
      const done = must(onPersisted(step.metadata!, T0 + 1));
      expect(replies(done)).to.deep.equal([{ api: 'InitProducerId', errorCode: 0, producerId: 500, producerEpoch: 0 }]);
      expect(done.metadata).to.deep.include({ producerId: 500, producerEpoch: 0, state: S.Empty, pending: null });
    });

    it('passes on the allocator refusal', () => {
      const r = initProducerId(null, initReq(), T0, env(() => refuse(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'no block')));
      expect(refusal(r, ErrorCode.COORDINATOR_NOT_AVAILABLE)).to.equal('no block');
    });

    for (const state of [S.Empty, S.CompleteCommit, S.CompleteAbort]) {
      it(`bumps the epoch of an existing id in ${state}, fencing older producers, without a new producer id`, () => {
        const alloc = allocator();
        const m = meta({ state, txnStartTimestamp: state === S.Empty ? -1 : T0 - 500, lastProducerEpoch: 2 });
        const { metadata, replies: answers } = settle(initProducerId(m, initReq({ transactionTimeoutMs: 45_000 }), T0, env(alloc)), T0);
        expect(alloc.calls).to.equal(0);
        expect(answers).to.deep.equal([{ api: 'InitProducerId', errorCode: 0, producerId: 7, producerEpoch: 4 }]);
        expect(metadata).to.deep.include({ state: S.Empty, producerEpoch: 4, lastProducerEpoch: -1, txnTimeoutMs: 45_000, txnStartTimestamp: -1, txnLastUpdateTimestamp: T0 });
      });
    }

    it('bumps an epoch up to Short.MAX_VALUE - 1', () => {
      const { metadata } = settle(initProducerId(meta({ producerEpoch: 32765 }), initReq(), T0, env()), T0);
      expect(metadata).to.include({ producerId: 7, producerEpoch: 32766 });
    });

    it('moves to a new producer id with epoch 0 when the epoch would overflow', () => {
      const alloc = allocator(900);
      const { metadata, replies: answers } = settle(initProducerId(meta({ producerEpoch: 32766 }), initReq(), T0, env(alloc)), T0);
      expect(alloc.calls).to.equal(1);
      expect(answers[0]).to.include({ producerId: 900, producerEpoch: 0 });
      expect(metadata).to.include({ producerId: 900, producerEpoch: 0, lastProducerId: 7, lastProducerEpoch: -1 });
    });

    it('aborts an ongoing transaction first (epoch fence) and tells the client CONCURRENT_TRANSACTIONS', () => {
      const m = ongoing();
      const step = must(initProducerId(m, initReq(), T0, env()));
      expect(step.metadata).to.include({ state: S.Ongoing, producerEpoch: 4, lastProducerEpoch: -1 });
      expect(step.metadata?.pending?.to.state).to.equal(S.PrepareAbort);
      expect(persisted(step).value).to.deep.include({ state: 'PrepareAbort', producerEpoch: 4, partitions: [{ topic: 'orders', partitions: [0, 1] }] });
      const written = must(onPersisted(step.metadata!, T0 + 1));
      expect(replies(written).map((r) => errorName(r.errorCode))).to.deep.equal(['CONCURRENT_TRANSACTIONS']);
      expect(markersOf(written)).to.deep.equal([{ transactionalId: 'tx', producerId: 7, producerEpoch: 4, result: 'ABORT', partitions: P1, transactionVersion: 0 }]);
      const done = settle(onMarkersWritten(written.metadata!), T0 + 2);
      expect(done.metadata).to.deep.include({ state: S.CompleteAbort, producerEpoch: 4, partitions: [], pending: null });
      // the retry bumps the epoch once more
      const retry = settle(initProducerId(done.metadata, initReq(), T0 + 3, env()), T0 + 3);
      expect(retry.replies[0]).to.include({ errorCode: 0, producerId: 7, producerEpoch: 5 });
    });

    it('fences an ongoing transaction at epoch 32766 to 32767, and the retry gets a new producer id', () => {
      const fenced = settle(initProducerId(ongoing({ producerEpoch: 32766 }), initReq(), T0, env()), T0);
      expect(fenced.markers[0]?.producerEpoch).to.equal(32767);
      expect(fenced.metadata).to.include({ state: S.CompleteAbort, producerEpoch: 32767 });
      const retry = settle(initProducerId(fenced.metadata, initReq(), T0, env(allocator(42))), T0);
      expect(retry.replies[0]).to.include({ producerId: 42, producerEpoch: 0 });
    });

    it('refuses as data (UNKNOWN_SERVER_ERROR, as Kafka throws) to fence an epoch of Short.MAX_VALUE', () => {
      expect(refusal(initProducerId(ongoing({ producerEpoch: 32767 }), initReq(), T0, env()), ErrorCode.UNKNOWN_SERVER_ERROR)).to.contain('overflow');
    });

    for (const state of [S.PrepareCommit, S.PrepareAbort]) {
      it(`answers CONCURRENT_TRANSACTIONS in ${state}`, () => {
        refusal(initProducerId(ongoing({ state }), initReq(), T0, env()), ErrorCode.CONCURRENT_TRANSACTIONS);
      });
    }

    it('answers CONCURRENT_TRANSACTIONS while a transition is pending (markers being written)', () => {
      const writing = must(onPersisted(must(endTxn(ongoing(), endReq(ongoing(), true), T0)).metadata!, T0));
      refusal(initProducerId(writing.metadata, initReq(), T0, env()), ErrorCode.CONCURRENT_TRANSACTIONS);
    });

    for (const state of [S.Dead, S.PrepareEpochFence]) {
      it(`refuses as data (UNKNOWN_SERVER_ERROR) an id found in ${state}`, () => {
        refusal(initProducerId(meta({ state }), initReq(), T0, env()), ErrorCode.UNKNOWN_SERVER_ERROR);
      });
    }

    describe('KIP-360 (producer id and epoch in the request)', () => {
      it('bumps the current epoch and remembers it as the last one', () => {
        const { metadata, replies: answers } = settle(initProducerId(meta(), initReq({ producerId: 7, producerEpoch: 3 }), T0, env()), T0);
        expect(answers[0]).to.include({ errorCode: 0, producerEpoch: 4 });
        expect(metadata).to.include({ producerEpoch: 4, lastProducerEpoch: 3 });
      });

      it('answers a retry (the last epoch) with the current epoch, without bumping it', () => {
        const m = meta({ producerEpoch: 4, lastProducerEpoch: 3 });
        const { metadata, replies: answers } = settle(initProducerId(m, initReq({ producerId: 7, producerEpoch: 3 }), T0, env()), T0);
        expect(answers[0]).to.include({ errorCode: 0, producerId: 7, producerEpoch: 4 });
        expect(metadata).to.include({ producerEpoch: 4, lastProducerEpoch: 3 });
      });

      it('fences an epoch that is neither the current nor the last one: PRODUCER_FENCED from v4', () => {
        refusal(initProducerId(meta({ producerEpoch: 4, lastProducerEpoch: 3 }), initReq({ producerId: 7, producerEpoch: 2 }), T0, env()), ErrorCode.PRODUCER_FENCED);
      });

      it('fences with INVALID_PRODUCER_EPOCH before v4', () => {
        const r = initProducerId(meta({ producerEpoch: 4, lastProducerEpoch: 3 }), initReq({ producerId: 7, producerEpoch: 2, version: 3 }), T0, env());
        refusal(r, ErrorCode.INVALID_PRODUCER_EPOCH);
      });

      it('fences another producer id: PRODUCER_FENCED from v4, INVALID_PRODUCER_EPOCH before', () => {
        refusal(initProducerId(meta(), initReq({ producerId: 8, producerEpoch: 3 }), T0, env()), ErrorCode.PRODUCER_FENCED);
        refusal(initProducerId(meta(), initReq({ producerId: 8, producerEpoch: 3, version: 3 }), T0, env()), ErrorCode.INVALID_PRODUCER_EPOCH);
      });

      it('fences another producer id even with a transaction ongoing', () => {
        refusal(initProducerId(ongoing(), initReq({ producerId: 8, producerEpoch: 3 }), T0, env()), ErrorCode.PRODUCER_FENCED);
      });

      it('fences the old producer after a new one initialised the id (the last epoch is forgotten)', () => {
        const { metadata } = settle(initProducerId(meta(), initReq(), T0, env()), T0);
        refusal(initProducerId(metadata, initReq({ producerId: 7, producerEpoch: 3 }), T0, env()), ErrorCode.PRODUCER_FENCED);
      });

      it('moves to a new producer id when the current epoch is exhausted, remembering it', () => {
        const { metadata, replies: answers } = settle(initProducerId(meta({ producerEpoch: 32766 }), initReq({ producerId: 7, producerEpoch: 32766 }), T0, env(allocator(77))), T0);
        expect(answers[0]).to.include({ producerId: 77, producerEpoch: 0 });
        expect(metadata).to.include({ producerId: 77, producerEpoch: 0, lastProducerId: 7, lastProducerEpoch: 32766 });
      });

      it('answers the retry of that move (previous producer id, exhausted epoch) with the new id again', () => {
        const m = meta({ producerId: 77, producerEpoch: 0, lastProducerId: 7, lastProducerEpoch: 32766 });
        const alloc = allocator();
        const { replies: answers } = settle(initProducerId(m, initReq({ producerId: 7, producerEpoch: 32766 }), T0, env(alloc)), T0);
        expect(alloc.calls).to.equal(0);
        expect(answers[0]).to.include({ errorCode: 0, producerId: 77, producerEpoch: 0 });
      });

      it('forgets the previous producer id at the next InitProducerId', () => {
        const m = meta({ producerId: 77, producerEpoch: 0, lastProducerId: 7, lastProducerEpoch: 32766 });
        const { metadata } = settle(initProducerId(m, initReq(), T0, env()), T0);
        expect(metadata).to.include({ producerId: 77, producerEpoch: 1, lastProducerId: 77, lastProducerEpoch: -1 });
        refusal(initProducerId(metadata, initReq({ producerId: 7, producerEpoch: 32766 }), T0, env()), ErrorCode.PRODUCER_FENCED);
      });

      it('refuses the previous producer id with an epoch not exhausted', () => {
        const m = meta({ producerId: 77, producerEpoch: 0, lastProducerId: 7, lastProducerEpoch: 32766 });
        refusal(initProducerId(m, initReq({ producerId: 7, producerEpoch: 5 }), T0, env()), ErrorCode.PRODUCER_FENCED);
      });

      it('gives a fresh producer id to a recovering producer whose id expired', () => {
        const { replies: answers } = settle(initProducerId(null, initReq({ producerId: 7, producerEpoch: 3 }), T0, env(allocator(300))), T0);
        expect(answers[0]).to.include({ errorCode: 0, producerId: 300, producerEpoch: 0 });
      });

      it('refuses (UNKNOWN_SERVER_ERROR, as Kafka throws) an exhausted epoch when the request names another epoch', () => {
        const m = meta({ producerEpoch: 32766, lastProducerEpoch: 32765 });
        refusal(initProducerId(m, initReq({ producerId: 7, producerEpoch: 32765 }), T0, env()), ErrorCode.UNKNOWN_SERVER_ERROR);
      });

      it('refuses a producer id without an epoch, and an epoch without a producer id (INVALID_REQUEST)', () => {
        refusal(initProducerId(meta(), initReq({ producerId: 7 }), T0, env()), ErrorCode.INVALID_REQUEST);
        refusal(initProducerId(meta(), initReq({ producerEpoch: 3 }), T0, env()), ErrorCode.INVALID_REQUEST);
      });
    });

    it('refuses an empty transactional id (INVALID_REQUEST)', () => {
      refusal(initProducerId(null, initReq({ transactionalId: '' }), T0, env()), ErrorCode.INVALID_REQUEST);
    });

    for (const timeout of [0, -1, 60_001]) {
      it(`refuses a transaction timeout of ${timeout} ms with transaction.max.timeout.ms 60000 (INVALID_TRANSACTION_TIMEOUT)`, () => {
        const alloc = allocator();
        refusal(initProducerId(null, initReq({ transactionTimeoutMs: timeout }), T0, env(alloc)), ErrorCode.INVALID_TRANSACTION_TIMEOUT);
        expect(alloc.calls).to.equal(0);
      });
    }

    it('accepts a transaction timeout equal to transaction.max.timeout.ms', () => {
      must(initProducerId(null, initReq({ transactionTimeoutMs: 60_000 }), T0, env()));
    });

    it('answers a failed write with the coordinator error, keeps the new id and lets the retry succeed', () => {
      const step = must(initProducerId(null, initReq(), T0, env(allocator(500))));
      const failed = must(onPersistFailed(step.metadata!, ErrorCode.NOT_LEADER_OR_FOLLOWER));
      expect(replies(failed)).to.deep.include({ api: 'InitProducerId', errorCode: ErrorCode.NOT_COORDINATOR, producerId: -1, producerEpoch: -1, errorMessage: replies(failed)[0]!.errorMessage });
      expect(failed.metadata).to.include({ producerId: 500, producerEpoch: -1, pending: null });
      const retry = settle(initProducerId(failed.metadata, initReq(), T0, env()), T0);
      expect(retry.replies[0]).to.include({ errorCode: 0, producerId: 500, producerEpoch: 0 });
    });

    it('keeps the epoch of a failed fence (the producer stays fenced) and does not bump it twice', () => {
      const step = must(initProducerId(ongoing(), initReq(), T0, env()));
      const failed = must(onPersistFailed(step.metadata!, ErrorCode.NOT_ENOUGH_REPLICAS));
      expect(replies(failed).map((r) => errorName(r.errorCode))).to.deep.equal(['COORDINATOR_NOT_AVAILABLE']);
      expect(failed.metadata).to.include({ state: S.Ongoing, producerEpoch: 4, hasFailedEpochFence: true, pending: null });
      refusal(addPartitionsToTxn(failed.metadata, addReq(ongoing()), T0), ErrorCode.PRODUCER_FENCED);
      const again = must(initProducerId(failed.metadata, initReq(), T0, env()));
      expect(persisted(again).value).to.include({ state: 'PrepareAbort', producerEpoch: 4 });
      const written = must(onPersisted(again.metadata!, T0));
      expect(written.metadata?.hasFailedEpochFence).to.equal(false);
    });
  });

  describe('AddPartitionsToTxn', () => {
    it('refuses an unknown transactional id (INVALID_PRODUCER_ID_MAPPING)', () => {
      refusal(addPartitionsToTxn(null, addReq(meta()), T0), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    });

    it('refuses another producer id (INVALID_PRODUCER_ID_MAPPING)', () => {
      refusal(addPartitionsToTxn(meta(), addReq(meta(), P1, { producerId: 8 }), T0), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    });

    it('refuses another epoch: PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH before', () => {
      refusal(addPartitionsToTxn(meta(), addReq(meta(), P1, { producerEpoch: 2, version: 2 }), T0), ErrorCode.PRODUCER_FENCED);
      refusal(addPartitionsToTxn(meta(), addReq(meta(), P1, { producerEpoch: 2, version: 1 }), T0), ErrorCode.INVALID_PRODUCER_EPOCH);
    });

    for (const state of [S.PrepareCommit, S.PrepareAbort]) {
      it(`answers CONCURRENT_TRANSACTIONS in ${state}`, () => {
        refusal(addPartitionsToTxn(ongoing({ state }), addReq(meta()), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
      });
    }

    it('answers CONCURRENT_TRANSACTIONS while a transition is pending', () => {
      const pending = must(addPartitionsToTxn(meta(), addReq(meta()), T0)).metadata!;
      refusal(addPartitionsToTxn(pending, addReq(meta(), [tp('other', 0)]), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
    });

    for (const state of [S.Empty, S.CompleteCommit, S.CompleteAbort]) {
      it(`starts a transaction from ${state}: Ongoing, started now, answered once written`, () => {
        const m = meta({ state, txnStartTimestamp: state === S.Empty ? -1 : T0 - 5000 });
        const step = must(addPartitionsToTxn(m, addReq(m), T0));
        expect(persisted(step).value).to.include({ state: 'Ongoing', txnStartTimestamp: T0, txnLastUpdateTimestamp: T0 });
        expect(step.metadata?.state).to.equal(state);
        const done = must(onPersisted(step.metadata!, T0 + 1));
        expect(replies(done)).to.deep.equal([{ api: 'AddPartitionsToTxn', errorCode: 0 }]);
        expect(done.metadata).to.deep.include({ state: S.Ongoing, partitions: P1, txnStartTimestamp: T0, txnLastUpdateTimestamp: T0 });
      });
    }

    it('accumulates partitions in an ongoing transaction, keeping its start time', () => {
      const m = ongoing({ partitions: [tp('orders', 1)] });
      const { metadata } = settle(addPartitionsToTxn(m, addReq(m, [tp('audit', 0), tp('orders', 0), tp('audit', 0)]), T0), T0);
      expect(metadata).to.deep.include({ partitions: [tp('audit', 0), tp('orders', 0), tp('orders', 1)], txnStartTimestamp: T0 - 100, txnLastUpdateTimestamp: T0 });
    });

    it('answers partitions already in the transaction at once, writing nothing', () => {
      const m = ongoing();
      const step = must(addPartitionsToTxn(m, addReq(m, [tp('orders', 1)]), T0));
      expect(step.metadata).to.equal(m);
      expect(step.effects).to.deep.equal([{ type: 'Reply', reply: { api: 'AddPartitionsToTxn', errorCode: 0 } }]);
    });

    it('answers a failed write with the coordinator error and leaves the metadata as it was', () => {
      const step = must(addPartitionsToTxn(meta(), addReq(meta()), T0));
      const failed = must(onPersistFailed(step.metadata!, ErrorCode.REQUEST_TIMED_OUT));
      expect(replies(failed).map((r) => [r.api, errorName(r.errorCode)])).to.deep.equal([['AddPartitionsToTxn', 'COORDINATOR_NOT_AVAILABLE']]);
      expect(failed.metadata).to.deep.equal(meta());
    });

    for (const state of [S.Dead, S.PrepareEpochFence]) {
      it(`refuses as data the illegal transition ${state} -> Ongoing`, () => {
        const m = meta({ state });
        expect(refusal(addPartitionsToTxn(m, addReq(m), T0), ErrorCode.UNKNOWN_SERVER_ERROR)).to.contain(`${state} -> Ongoing`);
      });
    }

    it('refuses an empty transactional id (INVALID_REQUEST)', () => {
      refusal(addPartitionsToTxn(meta(), addReq(meta(), P1, { transactionalId: '' }), T0), ErrorCode.INVALID_REQUEST);
    });
  });

  describe('AddOffsetsToTxn', () => {
    const groupPartition = (groupId: string): number => (groupId === 'g' ? 17 : 0);
    const offReq = (m: TxnMetadata, over = {}) => ({ transactionalId: 'tx', producerId: m.producerId, producerEpoch: m.producerEpoch, groupId: 'g', version: 3, ...over });

    it("adds the group's __consumer_offsets partition to the transaction", () => {
      const m = ongoing();
      const { metadata, replies: answers } = settle(addOffsetsToTxn(m, offReq(m), T0, groupPartition), T0);
      expect(answers).to.deep.equal([{ api: 'AddOffsetsToTxn', errorCode: 0 }]);
      expect(metadata?.partitions).to.deep.include(tp('__consumer_offsets', 17));
      expect(metadata?.partitions).to.have.length(3);
    });

    it('starts a transaction from Empty', () => {
      const { metadata } = settle(addOffsetsToTxn(meta(), offReq(meta()), T0, groupPartition), T0);
      expect(metadata).to.deep.include({ state: S.Ongoing, partitions: [tp('__consumer_offsets', 17)], txnStartTimestamp: T0 });
    });

    it('refuses an unknown id or producer id (INVALID_PRODUCER_ID_MAPPING)', () => {
      refusal(addOffsetsToTxn(null, offReq(meta()), T0, groupPartition), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      refusal(addOffsetsToTxn(meta(), offReq(meta(), { producerId: 1 }), T0, groupPartition), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    });

    it('refuses another epoch: PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH before', () => {
      refusal(addOffsetsToTxn(meta(), offReq(meta(), { producerEpoch: 1, version: 2 }), T0, groupPartition), ErrorCode.PRODUCER_FENCED);
      refusal(addOffsetsToTxn(meta(), offReq(meta(), { producerEpoch: 1, version: 1 }), T0, groupPartition), ErrorCode.INVALID_PRODUCER_EPOCH);
    });

    it('answers CONCURRENT_TRANSACTIONS in PrepareCommit', () => {
      refusal(addOffsetsToTxn(ongoing({ state: S.PrepareCommit }), offReq(meta()), T0, groupPartition), ErrorCode.CONCURRENT_TRANSACTIONS);
    });
  });

  describe('EndTxn', () => {
    for (const committed of [true, false]) {
      const word = committed ? 'Commit' : 'Abort';
      it(`${word.toLowerCase()}s: Prepare${word} written, answered, markers to every partition, then Complete${word} written with no partitions`, () => {
        const m = ongoing();
        const step = must(endTxn(m, endReq(m, committed), T0));
        expect(persisted(step).value).to.deep.include({ state: `Prepare${word}`, partitions: [{ topic: 'orders', partitions: [0, 1] }], txnLastUpdateTimestamp: T0 });
        expect(step.metadata?.state).to.equal(S.Ongoing);
        const written = must(onPersisted(step.metadata!, T0 + 1));
        expect(written.effects.map((e) => e.type)).to.deep.equal(['Reply', 'WriteMarkers']);
        expect(replies(written)).to.deep.equal([{ api: 'EndTxn', errorCode: 0, producerId: 7, producerEpoch: 3 }]);
        expect(markersOf(written)).to.deep.equal([{ transactionalId: 'tx', producerId: 7, producerEpoch: 3, result: committed ? 'COMMIT' : 'ABORT', partitions: P1, transactionVersion: 0 }]);
        expect(written.metadata).to.deep.include({ state: `Prepare${word}`, partitions: P1 });
        const markersDone = must(onMarkersWritten(written.metadata!));
        expect(persisted(markersDone).value).to.deep.include({ state: `Complete${word}`, partitions: [], txnLastUpdateTimestamp: T0 + 1 });
        const done = must(onPersisted(markersDone.metadata!, T0 + 2));
        expect(done.effects).to.deep.equal([]);
        expect(done.metadata).to.deep.include({ state: `Complete${word}`, partitions: [], producerEpoch: 3, txnStartTimestamp: T0 - 100, pending: null });
      });
    }

    it('answers a commit retried after CompleteCommit with success, writing nothing', () => {
      const m = meta({ state: S.CompleteCommit });
      expect(must(endTxn(m, endReq(m, true), T0))).to.deep.equal({ metadata: m, effects: [{ type: 'Reply', reply: { api: 'EndTxn', errorCode: 0, producerId: 7, producerEpoch: 3 } }] });
    });

    it('answers an abort retried after CompleteAbort with success', () => {
      const m = meta({ state: S.CompleteAbort });
      expect(replies(must(endTxn(m, endReq(m, false), T0)))).to.deep.equal([{ api: 'EndTxn', errorCode: 0, producerId: 7, producerEpoch: 3 }]);
    });

    it('refuses an abort after CompleteCommit and a commit after CompleteAbort (INVALID_TXN_STATE)', () => {
      refusal(endTxn(meta({ state: S.CompleteCommit }), endReq(meta(), false), T0), ErrorCode.INVALID_TXN_STATE);
      refusal(endTxn(meta({ state: S.CompleteAbort }), endReq(meta(), true), T0), ErrorCode.INVALID_TXN_STATE);
    });

    it('answers a commit retried in PrepareCommit with CONCURRENT_TRANSACTIONS, an abort there with INVALID_TXN_STATE', () => {
      refusal(endTxn(ongoing({ state: S.PrepareCommit }), endReq(meta(), true), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
      refusal(endTxn(ongoing({ state: S.PrepareCommit }), endReq(meta(), false), T0), ErrorCode.INVALID_TXN_STATE);
    });

    it('answers an abort retried in PrepareAbort with CONCURRENT_TRANSACTIONS, a commit there with INVALID_TXN_STATE', () => {
      refusal(endTxn(ongoing({ state: S.PrepareAbort }), endReq(meta(), false), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
      refusal(endTxn(ongoing({ state: S.PrepareAbort }), endReq(meta(), true), T0), ErrorCode.INVALID_TXN_STATE);
    });

    it('answers CONCURRENT_TRANSACTIONS while another write is pending (an AddPartitions, an InitProducerId)', () => {
      const adding = must(addPartitionsToTxn(ongoing(), addReq(ongoing(), [tp('other', 0)]), T0)).metadata;
      refusal(endTxn(adding, endReq(ongoing(), true), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
      const m = meta({ state: S.CompleteCommit });
      const initialising = must(initProducerId(m, initReq({ producerId: 7, producerEpoch: 3 }), T0, env())).metadata;
      refusal(endTxn(initialising, endReq(m, true), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
    });

    it('answers a retry while the markers are written with CONCURRENT_TRANSACTIONS', () => {
      const writing = must(onPersisted(must(endTxn(ongoing(), endReq(ongoing(), true), T0)).metadata!, T0)).metadata;
      refusal(endTxn(writing, endReq(ongoing(), true), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
    });

    for (const committed of [true, false]) {
      it(`refuses to ${committed ? 'commit' : 'abort'} in Empty (INVALID_TXN_STATE)`, () => {
        refusal(endTxn(meta(), endReq(meta(), committed), T0), ErrorCode.INVALID_TXN_STATE);
      });
    }

    it('refuses an unknown id or another producer id (INVALID_PRODUCER_ID_MAPPING)', () => {
      refusal(endTxn(null, endReq(ongoing(), true), T0), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      refusal(endTxn(ongoing(), endReq(ongoing(), true, { producerId: 8 }), T0), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    });

    it('refuses another epoch: PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH before', () => {
      refusal(endTxn(ongoing(), endReq(ongoing(), true, { producerEpoch: 2, version: 2 }), T0), ErrorCode.PRODUCER_FENCED);
      refusal(endTxn(ongoing(), endReq(ongoing(), true, { producerEpoch: 2, version: 1 }), T0), ErrorCode.INVALID_PRODUCER_EPOCH);
    });

    it('refuses the old producer after an InitProducerId fenced its transaction', () => {
      const { metadata } = settle(initProducerId(ongoing(), initReq(), T0, env()), T0);
      refusal(endTxn(metadata, endReq(ongoing(), true), T0), ErrorCode.PRODUCER_FENCED);
    });

    it('refuses an empty transactional id (INVALID_REQUEST)', () => {
      refusal(endTxn(ongoing(), endReq(ongoing(), true, { transactionalId: '' }), T0), ErrorCode.INVALID_REQUEST);
    });

    for (const state of [S.Dead, S.PrepareEpochFence]) {
      it(`refuses as data (UNKNOWN_SERVER_ERROR) an id found in ${state}`, () => {
        refusal(endTxn(meta({ state }), endReq(meta(), true), T0), ErrorCode.UNKNOWN_SERVER_ERROR);
      });
    }

    it('answers a failed Prepare write with the coordinator error; the transaction stays Ongoing and can be ended again', () => {
      const step = must(endTxn(ongoing(), endReq(ongoing(), true), T0));
      const failed = must(onPersistFailed(step.metadata!, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND));
      expect(replies(failed).map((r) => [r.api, errorName(r.errorCode)])).to.deep.equal([['EndTxn', 'COORDINATOR_NOT_AVAILABLE']]);
      expect(failed.metadata).to.deep.equal(ongoing());
      expect(settle(endTxn(failed.metadata, endReq(ongoing(), true), T0), T0).metadata?.state).to.equal(S.CompleteCommit);
    });

    it('writes the Complete record again while the coordinator is unavailable, and gives up on NOT_COORDINATOR', () => {
      const written = must(onPersisted(must(endTxn(ongoing(), endReq(ongoing(), true), T0)).metadata!, T0));
      const completing = must(onMarkersWritten(written.metadata!)).metadata!;
      const retry = must(onPersistFailed(completing, ErrorCode.REQUEST_TIMED_OUT));
      expect(retry.metadata).to.equal(completing);
      expect(persisted(retry).value?.state).to.equal('CompleteCommit');
      const gone = must(onPersistFailed(completing, ErrorCode.NOT_LEADER_OR_FOLLOWER));
      expect(gone).to.deep.equal({ metadata: completing, effects: [] });
    });

    it('refuses out-of-order calls from the actor as data', () => {
      const written = must(onPersisted(must(endTxn(ongoing(), endReq(ongoing(), true), T0)).metadata!, T0)).metadata!;
      refusal(onPersisted(written, T0), ErrorCode.UNKNOWN_SERVER_ERROR); // Complete before its markers
      refusal(onPersistFailed(written, ErrorCode.NOT_COORDINATOR), ErrorCode.UNKNOWN_SERVER_ERROR);
      refusal(onMarkersWritten(ongoing()), ErrorCode.UNKNOWN_SERVER_ERROR);
      refusal(onPersisted(ongoing(), T0), ErrorCode.UNKNOWN_SERVER_ERROR);
      refusal(onPersistFailed(ongoing(), ErrorCode.NOT_COORDINATOR), ErrorCode.UNKNOWN_SERVER_ERROR);
      refusal(onPersistFailed(written, ErrorCode.NONE), ErrorCode.UNKNOWN_SERVER_ERROR);
      const completing = must(onMarkersWritten(written)).metadata!;
      refusal(onMarkersWritten(completing), ErrorCode.UNKNOWN_SERVER_ERROR);
    });
  });

  it("maps log append errors to the coordinator's errors as Kafka does", () => {
    const cases: [number, number][] = [
      [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.COORDINATOR_NOT_AVAILABLE],
      [ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
      [ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.COORDINATOR_NOT_AVAILABLE],
      [ErrorCode.REQUEST_TIMED_OUT, ErrorCode.COORDINATOR_NOT_AVAILABLE],
      [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_COORDINATOR],
      [ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NOT_COORDINATOR],
      [ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.UNKNOWN_SERVER_ERROR],
      [ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.UNKNOWN_SERVER_ERROR],
      [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS],
    ];
    for (const [append, client] of cases) expect(errorName(coordinatorErrorForAppend(append))).to.equal(errorName(client));
  });

  describe('transaction version 2 (KIP-890 part 2: EndTxn v5, partitions added by the brokers)', () => {
    const v5 = (m: TxnMetadata, committed: boolean, over = {}) => endReq(m, committed, { version: 5, ...over });
    const implicitAdd = (m: TxnMetadata | null, partitions: TopicPartition[] = P1, over = {}) =>
      addPartitionsImplicitly(m, { transactionalId: 'tx', producerId: m?.producerId ?? 7, producerEpoch: m?.producerEpoch ?? 3, partitions, version: 5, ...over }, T0);
    const tv2 = (over: Partial<TxnMetadata> = {}) => ongoing({ transactionVersion: 2, ...over });
    const unfailing = (): ProducerIdAllocator => () => expect.fail('no producer id should be taken');

    it('a broker adding a TV_2 producer\'s partitions starts its transaction, recorded as transaction version 2', () => {
      const step = must(implicitAdd(meta()));
      expect(persisted(step).value).to.deep.include({ state: 'Ongoing', partitions: [{ topic: 'orders', partitions: [0, 1] }], txnStartTimestamp: T0, transactionVersion: 2 });
      const done = must(onPersisted(step.metadata!, T0));
      expect(replies(done)).to.deep.equal([{ api: 'AddPartitionsToTxn', errorCode: 0 }]);
      expect(done.metadata).to.deep.include({ state: S.Ongoing, transactionVersion: 2, producerEpoch: 3 });
      expect(replies(must(implicitAdd(done.metadata!)))).to.deep.equal([{ api: 'AddPartitionsToTxn', errorCode: 0 }]);
    });

    it('a broker\'s add is refused as a producer\'s: unknown id, another producer id, a fenced epoch (PRODUCER_FENCED), a commit being written', () => {
      refusal(implicitAdd(null), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      refusal(implicitAdd(meta(), P1, { producerId: 8 }), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      refusal(implicitAdd(meta(), P1, { producerEpoch: 2 }), ErrorCode.PRODUCER_FENCED);
      const writing = must(onPersisted(must(endTxn(tv2(), v5(tv2(), true), T0)).metadata!, T0)).metadata!;
      refusal(implicitAdd(writing, P1, { producerEpoch: 4 }), ErrorCode.CONCURRENT_TRANSACTIONS);
    });

    for (const committed of [true, false]) {
      const word = committed ? 'Commit' : 'Abort';
      it(`${word.toLowerCase()}s with the epoch bumped: Prepare${word} at epoch 4 (last epoch 3), answered with it, markers at it, Complete${word} at it`, () => {
        const m = tv2();
        const step = must(endTxn(m, v5(m, committed), T0, unfailing()));
        expect(persisted(step).value).to.deep.include({ state: `Prepare${word}`, producerId: 7, producerEpoch: 4, lastProducerEpoch: 3, nextProducerId: -1, transactionVersion: 2 });
        const r = settle(ok(step), T0 + 1);
        expect(r.replies).to.deep.equal([{ api: 'EndTxn', errorCode: 0, producerId: 7, producerEpoch: 4 }]);
        expect(r.markers).to.deep.equal([{ transactionalId: 'tx', producerId: 7, producerEpoch: 4, result: committed ? 'COMMIT' : 'ABORT', partitions: P1, transactionVersion: 2 }]);
        expect(r.metadata).to.deep.include({ state: `Complete${word}`, producerId: 7, producerEpoch: 4, lastProducerEpoch: 3, partitions: [], pending: null });
        // the producer's next transaction goes on at epoch 4: a broker adds its partitions
        expect(must(implicitAdd(r.metadata!, P1, { producerEpoch: 4 })).metadata?.pending?.to.state).to.equal(S.Ongoing);
      });
    }

    it('answers the retry of a commit (the epoch one below) with the epoch it bumped to, writing nothing; an abort retried after a commit is INVALID_TXN_STATE', () => {
      const done = settle(endTxn(tv2(), v5(tv2(), true), T0), T0).metadata!;
      expect(must(endTxn(done, v5(tv2(), true), T0, unfailing()))).to.deep.equal({ metadata: done, effects: [{ type: 'Reply', reply: { api: 'EndTxn', errorCode: 0, producerId: 7, producerEpoch: 4 } }] });
      refusal(endTxn(done, v5(tv2(), false), T0), ErrorCode.INVALID_TXN_STATE);
    });

    it('answers the retry of an abort with the bumped epoch; a commit retried after an abort is INVALID_TXN_STATE', () => {
      const done = settle(endTxn(tv2(), v5(tv2(), false), T0), T0).metadata!;
      expect(replies(must(endTxn(done, v5(tv2(), false), T0)))).to.deep.equal([{ api: 'EndTxn', errorCode: 0, producerId: 7, producerEpoch: 4 }]);
      refusal(endTxn(done, v5(tv2(), true), T0), ErrorCode.INVALID_TXN_STATE);
    });

    it('answers a retry while the markers are written, or found prepared after a takeover, with CONCURRENT_TRANSACTIONS', () => {
      const writing = must(onPersisted(must(endTxn(tv2(), v5(tv2(), true), T0)).metadata!, T0)).metadata!;
      refusal(endTxn(writing, v5(tv2(), true), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
      const loaded = tv2({ state: S.PrepareCommit, producerEpoch: 4, lastProducerEpoch: 3 });
      refusal(endTxn(loaded, v5(tv2(), true), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
      refusal(endTxn(loaded, v5(tv2(), false), T0), ErrorCode.INVALID_TXN_STATE);
      // the bumped epoch is not a retry of the commit being written
      refusal(endTxn(loaded, v5(loaded, true), T0), ErrorCode.PRODUCER_FENCED);
    });

    it('a commit at the bumped epoch after a commit (no transaction since) is INVALID_TXN_STATE', () => {
      const done = settle(endTxn(tv2(), v5(tv2(), true), T0), T0).metadata!;
      refusal(endTxn(done, v5(done, true), T0), ErrorCode.INVALID_TXN_STATE);
      refusal(endTxn(meta({ transactionVersion: 2 }), v5(meta(), true), T0), ErrorCode.INVALID_TXN_STATE);
    });

    for (const [label, from] of [
      ['Empty', () => meta()],
      ['CompleteCommit', () => settle(endTxn(tv2(), v5(tv2(), true), T0 - 50), T0 - 50).metadata!],
      ['CompleteAbort', () => settle(endTxn(tv2(), v5(tv2(), false), T0 - 50), T0 - 50).metadata!],
    ] as const) {
      it(`an abort at the current epoch in ${label} ends a transaction of no partitions: the epoch bumped, no marker to write`, () => {
        const m = from();
        const r = settle(endTxn(m, v5(m, false), T0), T0);
        const epoch = m.producerEpoch + 1;
        expect(r.log.map((x) => x.value?.state)).to.deep.equal(['PrepareAbort', 'CompleteAbort']);
        expect(r.log[0]!.value).to.deep.include({ txnStartTimestamp: T0, producerEpoch: epoch, lastProducerEpoch: m.producerEpoch, partitions: [] });
        expect(r.replies).to.deep.equal([{ api: 'EndTxn', errorCode: 0, producerId: 7, producerEpoch: epoch }]);
        expect(r.markers).to.deep.equal([{ transactionalId: 'tx', producerId: 7, producerEpoch: epoch, result: 'ABORT', partitions: [], transactionVersion: 2 }]);
        expect(r.metadata).to.deep.include({ state: S.CompleteAbort, producerEpoch: epoch });
      });
    }

    it('refuses an epoch neither current nor one below (PRODUCER_FENCED), and another producer id (INVALID_PRODUCER_ID_MAPPING)', () => {
      refusal(endTxn(tv2(), v5(tv2(), true, { producerEpoch: 2 }), T0), ErrorCode.PRODUCER_FENCED);
      refusal(endTxn(tv2(), v5(tv2(), true, { producerEpoch: 4 }), T0), ErrorCode.PRODUCER_FENCED);
      const done = settle(endTxn(tv2(), v5(tv2(), true), T0), T0).metadata!;
      refusal(endTxn(done, v5(done, true, { producerEpoch: 2 }), T0), ErrorCode.PRODUCER_FENCED);
      refusal(endTxn(tv2(), v5(tv2(), true, { producerId: 8 }), T0), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      // v0-4 of the same transaction are not retries by the epoch below
      refusal(endTxn(done, endReq(tv2(), true), T0), ErrorCode.PRODUCER_FENCED);
    });

    it('an exhausted epoch moves the producer to a new producer id at epoch 0 when the transaction completes; the retry with the old id is answered with the new one', () => {
      const m = tv2({ producerEpoch: 32766, lastProducerEpoch: 32765 });
      const alloc = allocator(900);
      const step = must(endTxn(m, v5(m, true), T0, alloc));
      expect(alloc.calls).to.equal(1);
      expect(persisted(step).value).to.deep.include({ state: 'PrepareCommit', producerId: 7, producerEpoch: 32767, lastProducerEpoch: 32766, nextProducerId: 900 });
      const r = settle(ok(step), T0);
      expect(r.replies).to.deep.equal([{ api: 'EndTxn', errorCode: 0, producerId: 900, producerEpoch: 0 }]);
      expect(r.markers[0]).to.deep.include({ producerId: 7, producerEpoch: 32767 });
      expect(r.log[1]!.value).to.deep.include({ state: 'CompleteCommit', producerId: 900, producerEpoch: 0, lastProducerId: 7, nextProducerId: -1 });
      const done = r.metadata!;
      expect(replies(must(endTxn(done, v5(m, true), T0, unfailing())))).to.deep.equal([{ api: 'EndTxn', errorCode: 0, producerId: 900, producerEpoch: 0 }]);
      refusal(endTxn(done, v5(m, false), T0), ErrorCode.INVALID_TXN_STATE);
      refusal(endTxn(done, v5(done, true), T0), ErrorCode.INVALID_TXN_STATE);
      expect(must(implicitAdd(done, P1, { producerId: 900, producerEpoch: 0 })).metadata?.pending?.to).to.deep.include({ state: S.Ongoing, producerId: 900 });
    });

    it('an exhausted epoch with no producer id to take is refused as the allocator says, changing nothing', () => {
      const m = tv2({ producerEpoch: 32766 });
      const r = endTxn(m, v5(m, true), T0, () => refuse(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'waiting for a producer id'));
      refusal(r, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    });

    it('a takeover finds a prepared commit that moves to a new producer id and completes it there', () => {
      const prepared = settle(endTxn(tv2({ producerEpoch: 32766 }), v5(tv2({ producerEpoch: 32766 }), true), T0, allocator(900)), T0, { markers: false });
      const loaded = replay(prepared.log.map((x) => unpack(pack(x)))).table.get('tx')!;
      expect(loaded).to.deep.include({ state: S.PrepareCommit, nextProducerId: 900, transactionVersion: 2 });
      const resumed = must(resumeLoaded(loaded, T0 + 5));
      expect(markersOf(resumed)).to.deep.equal([{ transactionalId: 'tx', producerId: 7, producerEpoch: 32767, result: 'COMMIT', partitions: P1, transactionVersion: 2 }]);
      expect(settle(ok(resumed), T0 + 5).metadata).to.deep.include({ state: S.CompleteCommit, producerId: 900, producerEpoch: 0, lastProducerId: 7 });
    });

    it('fencing a TV_2 transaction (InitProducerId) bumps the epoch twice: the fenced producer\'s epoch is never taken for a retry', () => {
      const m = tv2();
      const r = settle(initProducerId(m, initReq(), T0, env()), T0);
      expect(r.replies).to.deep.equal([{ api: 'InitProducerId', errorCode: ErrorCode.CONCURRENT_TRANSACTIONS, errorMessage: r.replies[0]!.errorMessage, producerId: -1, producerEpoch: -1 }]);
      expect(r.markers).to.deep.equal([{ transactionalId: 'tx', producerId: 7, producerEpoch: 5, result: 'ABORT', partitions: P1, transactionVersion: 2 }]);
      expect(r.metadata).to.deep.include({ state: S.CompleteAbort, producerEpoch: 5 });
      refusal(endTxn(r.metadata!, v5(m, false), T0), ErrorCode.PRODUCER_FENCED);
      refusal(endTxn(r.metadata!, v5(m, true), T0), ErrorCode.PRODUCER_FENCED);
      expect(settle(initProducerId(r.metadata!, initReq(), T0, env()), T0).replies).to.deep.equal([{ api: 'InitProducerId', errorCode: 0, producerId: 7, producerEpoch: 6 }]);
    });

    it('a timed-out TV_2 transaction is aborted with the epoch bumped twice, its producer fenced', () => {
      const m = tv2({ txnStartTimestamp: T0 - 40_000 });
      const [t] = timedOutTransactions(new Map([['tx', m]]), T0);
      const r = settle(abortTimedOutTransaction(m, t!, T0), T0);
      expect(r.replies).to.deep.equal([]);
      expect(r.markers[0]).to.deep.include({ producerEpoch: 5, result: 'ABORT' });
      refusal(endTxn(r.metadata!, v5(m, true), T0), ErrorCode.PRODUCER_FENCED);
      refusal(implicitAdd(r.metadata!, P1, { producerEpoch: 3 }), ErrorCode.PRODUCER_FENCED);
    });

    it('a TV_2 fence at the last epochs takes a new producer id for the transaction\'s end', () => {
      const m = tv2({ producerEpoch: 32765, txnStartTimestamp: T0 - 40_000 });
      const [t] = timedOutTransactions(new Map([['tx', m]]), T0);
      const alloc = allocator(901);
      const r = settle(abortTimedOutTransaction(m, t!, T0, alloc), T0);
      expect(alloc.calls).to.equal(1);
      expect(r.markers[0]).to.deep.include({ producerId: 7, producerEpoch: 32767 });
      expect(r.metadata).to.deep.include({ state: S.CompleteAbort, producerId: 901, producerEpoch: 0, lastProducerId: 7 });
    });
  });

  describe('timed-out transactions', () => {
    const table = (...ms: TxnMetadata[]) => new Map(ms.map((m) => [m.transactionalId, m]));

    it('lists Ongoing transactions open longer than their timeout, and nothing else', () => {
      const start = T0 - 30_000;
      const t = table(
        ongoing({ transactionalId: 'late', txnStartTimestamp: start - 1 }),
        ongoing({ transactionalId: 'exactly', txnStartTimestamp: start }),
        ongoing({ transactionalId: 'young', txnStartTimestamp: start + 1 }),
        meta({ transactionalId: 'empty', state: S.Empty, txnStartTimestamp: 0 }),
        ongoing({ transactionalId: 'preparing', state: S.PrepareCommit, txnStartTimestamp: 0 }),
        { ...ongoing({ transactionalId: 'pending', txnStartTimestamp: 0 }), pending: { to: recordFields(ongoing()), then: { type: 'AnswerAddPartitions', api: 'AddPartitionsToTxn' } } },
      );
      expect(timedOutTransactions(t, T0)).to.deep.equal([{ transactionalId: 'late', producerId: 7, producerEpoch: 3 }]);
    });

    it('aborts a timed-out transaction with a bumped epoch, answering nobody, fencing its producer', () => {
      const m = ongoing({ txnStartTimestamp: T0 - 40_000, lastProducerEpoch: 2 });
      const [timedOut] = timedOutTransactions(table(m), T0);
      const step = must(abortTimedOutTransaction(m, timedOut!, T0));
      expect(persisted(step).value).to.include({ state: 'PrepareAbort', producerEpoch: 4, lastProducerEpoch: -1 });
      const run = settle(ok(step), T0);
      expect(run.replies).to.deep.equal([]);
      expect(run.markers).to.deep.equal([{ transactionalId: 'tx', producerId: 7, producerEpoch: 4, result: 'ABORT', partitions: P1, transactionVersion: 0 }]);
      expect(run.metadata).to.deep.include({ state: S.CompleteAbort, producerEpoch: 4, partitions: [] });
      refusal(endTxn(run.metadata, endReq(m, true), T0), ErrorCode.PRODUCER_FENCED);
      refusal(addPartitionsToTxn(run.metadata, addReq(m), T0), ErrorCode.PRODUCER_FENCED);
      refusal(initProducerId(run.metadata, initReq({ producerId: 7, producerEpoch: 3 }), T0, env()), ErrorCode.PRODUCER_FENCED);
      refusal(initProducerId(run.metadata, initReq({ producerId: 7, producerEpoch: 2 }), T0, env()), ErrorCode.PRODUCER_FENCED);
    });

    it('does not abort when the producer id changed (INVALID_PRODUCER_ID_MAPPING) or a transition is pending', () => {
      const m = ongoing({ txnStartTimestamp: 0 });
      refusal(abortTimedOutTransaction(m, { transactionalId: 'tx', producerId: 8, producerEpoch: 3 }, T0), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
      const pending = must(endTxn(m, endReq(m, true), T0)).metadata!;
      refusal(abortTimedOutTransaction(pending, { transactionalId: 'tx', producerId: 7, producerEpoch: 3 }, T0), ErrorCode.CONCURRENT_TRANSACTIONS);
    });

    it('refuses as data to fence a transaction no longer Ongoing', () => {
      refusal(abortTimedOutTransaction(meta({ state: S.CompleteCommit }), { transactionalId: 'tx', producerId: 7, producerEpoch: 3 }, T0), ErrorCode.UNKNOWN_SERVER_ERROR);
    });
  });

  describe('expiration of transactional ids', () => {
    const idle = T0 - CONFIG.transactionalIdExpirationMs;

    it('lists Empty and Complete ids unused for transactional.id.expiration.ms, and nothing else', () => {
      const t = new Map<string, TxnMetadata>();
      const add = (m: TxnMetadata) => t.set(m.transactionalId, m);
      add(meta({ transactionalId: 'empty', txnLastUpdateTimestamp: idle }));
      add(meta({ transactionalId: 'committed', state: S.CompleteCommit, txnLastUpdateTimestamp: idle - 5 }));
      add(meta({ transactionalId: 'aborted', state: S.CompleteAbort, txnLastUpdateTimestamp: idle }));
      add(meta({ transactionalId: 'recent', txnLastUpdateTimestamp: idle + 1 }));
      add(ongoing({ transactionalId: 'ongoing', txnLastUpdateTimestamp: 0 }));
      add(ongoing({ transactionalId: 'preparing', state: S.PrepareAbort, txnLastUpdateTimestamp: 0 }));
      add({ ...meta({ transactionalId: 'pending', txnLastUpdateTimestamp: 0 }), pending: { to: recordFields(meta()), then: { type: 'AnswerInitProducerId' } } });
      expect(expiredTransactionalIds(t, T0, CONFIG).sort()).to.deep.equal(['aborted', 'committed', 'empty']);
    });

    it('expires an id: Dead prepared, a tombstone written, then the id removed', () => {
      const m = meta({ state: S.CompleteCommit, txnLastUpdateTimestamp: idle });
      const step = must(expireTransactionalId(m, T0, CONFIG));
      expect(persisted(step)).to.deep.equal({ key: { transactionalId: 'tx' }, value: null });
      expect(step.metadata?.pending?.to.state).to.equal(S.Dead);
      refusal(initProducerId(step.metadata, initReq(), T0, env()), ErrorCode.CONCURRENT_TRANSACTIONS);
      expect(must(onPersisted(step.metadata!, T0))).to.deep.equal({ metadata: null, effects: [] });
    });

    it('keeps the id when the tombstone cannot be written', () => {
      const m = meta({ txnLastUpdateTimestamp: idle });
      const failed = must(onPersistFailed(must(expireTransactionalId(m, T0, CONFIG)).metadata!, ErrorCode.NOT_LEADER_OR_FOLLOWER));
      expect(failed).to.deep.equal({ metadata: m, effects: [] });
    });

    it('refuses to expire an id used recently, or with a transaction in flight', () => {
      refusal(expireTransactionalId(meta({ txnLastUpdateTimestamp: idle + 1 }), T0, CONFIG), ErrorCode.INVALID_TXN_STATE);
      refusal(expireTransactionalId(ongoing({ txnLastUpdateTimestamp: 0 }), T0, CONFIG), ErrorCode.INVALID_TXN_STATE);
      const pending = must(addPartitionsToTxn(meta(), addReq(meta()), T0)).metadata!;
      refusal(expireTransactionalId({ ...pending, txnLastUpdateTimestamp: 0 }, T0, CONFIG), ErrorCode.CONCURRENT_TRANSACTIONS);
    });
  });

  describe('taking over a __transaction_state partition', () => {
    for (const [state, result] of [[S.PrepareCommit, 'COMMIT'], [S.PrepareAbort, 'ABORT']] as const) {
      it(`resumes a transaction found in ${state}: markers written again, then completed`, () => {
        const m = ongoing({ state });
        const step = must(resumeLoaded(m, T0));
        expect(markersOf(step)).to.deep.equal([{ transactionalId: 'tx', producerId: 7, producerEpoch: 3, result, partitions: P1, transactionVersion: 0 }]);
        refusal(endTxn(step.metadata, endReq(m, result === 'COMMIT'), T0), ErrorCode.CONCURRENT_TRANSACTIONS);
        const done = settle(ok(step), T0);
        expect(done.metadata?.state).to.equal(result === 'COMMIT' ? S.CompleteCommit : S.CompleteAbort);
      });
    }

    for (const state of [S.Empty, S.Ongoing, S.CompleteCommit, S.CompleteAbort]) {
      it(`leaves an id found in ${state} as it is`, () => {
        const m = state === S.Ongoing ? ongoing() : meta({ state });
        expect(must(resumeLoaded(m, T0))).to.deep.equal({ metadata: m, effects: [] });
      });
    }

    it('rebuilds from the records the same table the live coordinator holds', () => {
      const live = new Map<string, TxnMetadata>();
      const log: TxnLogRecord[] = [];
      let now = T0;
      let nextPid = 100;
      const e = env(() => ok(nextPid++));
      const run = (id: string, op: (m: TxnMetadata | null) => TxnResult<TxnStep>): TxnReply[] => {
        now += 1000;
        const out = settle(op(live.get(id) ?? null), now);
        log.push(...out.log);
        if (out.metadata) live.set(id, out.metadata);
        else live.delete(id);
        return out.replies;
      };
      const init = (id: string, over = {}) => run(id, (m) => initProducerId(m, initReq({ transactionalId: id, ...over }), now, e));
      const add = (id: string, partitions: TopicPartition[]) =>
        run(id, (m) => addPartitionsToTxn(m, { transactionalId: id, producerId: m!.producerId, producerEpoch: m!.producerEpoch, partitions, version: 3 }, now));
      const end = (id: string, committed: boolean) =>
        run(id, (m) => endTxn(m, { transactionalId: id, producerId: m!.producerId, producerEpoch: m!.producerEpoch, committed, version: 3 }, now));

      init('a');
      add('a', [tp('t', 0)]);
      add('a', [tp('t', 1), tp('u', 0)]);
      end('a', true);
      init('b');
      add('b', [tp('t', 2)]);
      end('b', false);
      init('c');
      add('c', [tp('t', 0)]);
      init('c'); // fences c's ongoing transaction
      init('c');
      run('c', (m) => addOffsetsToTxn(m, { transactionalId: 'c', producerId: m!.producerId, producerEpoch: m!.producerEpoch, groupId: 'g', version: 3 }, now, () => 4));
      init('d');
      add('d', [tp('v', 9)]); // left Ongoing
      init('e', { transactionTimeoutMs: 1000 });
      add('e', [tp('t', 3)]);
      now += 5000;
      for (const t of timedOutTransactions(live, now)) run(t.transactionalId, (m) => abortTimedOutTransaction(m!, t, now));
      now += CONFIG.transactionalIdExpirationMs;
      for (const id of expiredTransactionalIds(new Map([['b', live.get('b')!]]), now, CONFIG)) run(id, (m) => expireTransactionalId(m!, now, CONFIG));
      const endA = [...end('a', true)];

      expect(endA).to.deep.equal([{ api: 'EndTxn', errorCode: 0, producerId: 100, producerEpoch: 0 }]);
      expect([...live.keys()].sort()).to.deep.equal(['a', 'c', 'd', 'e']);
      expect(live.get('c')).to.deep.include({ state: S.Ongoing, producerEpoch: 2, partitions: [tp('__consumer_offsets', 4)] });
      expect(live.get('d')?.state).to.equal(S.Ongoing);
      expect(live.get('e')).to.deep.include({ state: S.CompleteAbort, producerEpoch: 1 });
      const replayed = replay(log.map((r) => unpack(pack(r))));
      expect(replayed.invalid).to.deep.equal([]);
      expect(replayed.table).to.deep.equal(live);
    });

    it('replays an id that was last written in Prepare as that Prepare state', () => {
      const m = ongoing();
      const step = must(endTxn(m, endReq(m, true), T0));
      const table = replay([encodeTxnRecord('tx', m), persisted(step)]).table;
      expect(table.get('tx')).to.deep.include({ state: S.PrepareCommit, partitions: P1, pending: null });
    });
  });
});
