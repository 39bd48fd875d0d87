/**
 * Offsets committed inside transactions (TxnOffsetCommit, KIP-98/KIP-447): written at once as the
 * producer's transactional batch, visible only after the COMMIT marker, dropped by ABORT, and
 * found again (pending or ended) when another coordinator loads the partition.
 */
import { expect } from 'chai';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { txnOffsetCommitVerificationError } from '../../../actors/group-coordinator/coordinator.js';
import { defineActor, type ReplyToken } from '../../../src/runtime/actor-definition.js';
import type { ActorRef, Message } from '../../../src/runtime/types.js';
import { CoordinatorHarness, sub } from './coordinator-harness.js';

describe('actors/group-coordinator: transactional offset commits', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness(1);
    h.spawnCoordinator();
    await h.become(0, 0);
  });
  afterEach(async () => {
    await h.stop();
  });

  const marker = (producerId: number, commit: boolean) => {
    // the broker writes the marker to the offsets partition, then tells its coordinator
    return h.control({ appendMarker: { producerId, commit } }).then(() => h.sys.send(h.coord, { type: 'TxnMarkerWritten', partition: 0, producerId, commit }));
  };
  const stable = async (groupId: string) => (await h.ask<{ topics: { partitions: { partition: number; offset: number; errorCode: number }[] }[] }>({ type: 'OffsetFetch', groupId, topics: [{ name: 't', partitions: [0] }], requireStable: true })).topics[0]!.partitions[0]!;

  it('pending -> committed: written as the producer\'s transactional batch, visible only after the COMMIT marker', async () => {
    await h.commit('g', { 't-0': 5 });
    const r = await h.txnCommit('g', 42, { 't-0': 10, 't-1': 3 }, { producerEpoch: 2 });
    expect(r).to.deep.equal({ type: 'TxnOffsetCommitResponse', errorCode: 0, topics: [{ name: 't', partitions: [{ partition: 0, errorCode: 0 }, { partition: 1, errorCode: 0 }] }] });
    const d = await h.dump();
    expect(d.batches.at(-1)).to.deep.include({ transactional: true, control: false, producerId: 42, producerEpoch: 2 });
    expect(await h.fetched('g'), 'the transaction is open').to.deep.equal({ 't-0': 5 });
    expect(await stable('g')).to.deep.include({ errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    await marker(42, true);
    await h.settle();
    expect(await h.fetched('g')).to.deep.equal({ 't-0': 10, 't-1': 3 });
    expect(await stable('g')).to.deep.include({ errorCode: 0, offset: 10 });
  });

  it('pending -> aborted: the offsets are dropped and the earlier commit stays', async () => {
    await h.commit('g', { 't-0': 5 });
    await h.txnCommit('g', 42, { 't-0': 10 });
    await marker(42, false);
    await h.settle();
    expect(await h.fetched('g')).to.deep.equal({ 't-0': 5 });
    expect(await stable('g')).to.deep.include({ errorCode: 0, offset: 5 });
  });

  it('a committed transaction does not replace a newer plain commit of the same partition', async () => {
    await h.txnCommit('g', 42, { 't-0': 10 });
    await h.commit('g', { 't-0': 20 });
    await marker(42, true);
    await h.settle();
    expect(await h.fetched('g')).to.deep.equal({ 't-0': 20 });
  });

  it('a marker of another producer, or on another partition, leaves a transaction pending', async () => {
    await h.txnCommit('g', 42, { 't-0': 10 });
    await marker(7, true);
    h.sys.send(h.coord, { type: 'TxnMarkerWritten', partition: 3, producerId: 42, commit: true });
    await h.settle();
    expect(await stable('g')).to.deep.include({ errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
  });

  it('another coordinator loading the partition finds committed, aborted and still open transactions as they stand', async () => {
    await h.commit('g', { 't-0': 1, 't-1': 1, 't-2': 1 });
    await h.txnCommit('g', 1, { 't-0': 10 });
    await h.txnCommit('g', 2, { 't-1': 20 });
    await h.txnCommit('g', 3, { 't-2': 30 });
    await h.control({ appendMarker: { producerId: 1, commit: true } });
    await h.control({ appendMarker: { producerId: 2, commit: false } });
    const second = h.spawnCoordinator({ brokerId: 2 });
    await h.become(0, 0, second);
    expect(await h.fetched('g', second)).to.deep.equal({ 't-0': 10, 't-1': 1, 't-2': 1 });
    const open = await h.ask<{ topics: { partitions: { errorCode: number }[] }[] }>({ type: 'OffsetFetch', groupId: 'g', topics: [{ name: 't', partitions: [2] }], requireStable: true }, second);
    expect(open.topics[0]!.partitions[0]!.errorCode).to.equal(ErrorCode.UNSTABLE_OFFSET_COMMIT);
    // the open one commits later
    await h.control({ appendMarker: { producerId: 3, commit: true } });
    h.sys.send(second, { type: 'TxnMarkerWritten', partition: 0, producerId: 3, commit: true });
    await h.settle();
    expect(await h.fetched('g', second)).to.deep.equal({ 't-0': 10, 't-1': 1, 't-2': 30 });
  });

  it('refuses an invalid producer, an unknown member and a stale generation (versions 3+), writing nothing', async () => {
    const before = (await h.dump()).produces;
    expect((await h.txnCommit('g', -1, { 't-0': 1 })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    const { members, generationId } = await h.stableGroup('grp', 1, { protocols: [{ name: 'range', metadata: sub('t') }] });
    expect((await h.txnCommit('grp', 42, { 't-0': 1 }, { memberId: 'nobody', generationId })).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await h.txnCommit('grp', 42, { 't-0': 1 }, { memberId: members[0]!, generationId: generationId + 1 })).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);
    const writes = (await h.dump()).produces - before;
    expect((await h.txnCommit('grp', 42, { 't-0': 1 }, { memberId: members[0]!, generationId })).errorCode).to.equal(0);
    expect((await h.dump()).produces - before).to.equal(writes + 1);
  });

  describe("verified with the transaction's coordinator (KIP-890)", () => {
    type Answer = { enabled: boolean; errorCode: number; guard: number };
    interface StandIn {
      answer: Answer;
      hold: boolean;
      held: ReplyToken[];
      asked: unknown[];
    }
    /** Stands in for the local broker: answers VerifyTransaction as told, or holds the answers. */
    const standInBroker = defineActor<StandIn, Message & { type: 'VerifyTransaction' | 'Tell' | 'Release' | 'Asked' }>({
      kind: 'stand-in-broker',
      supervision: 'resume',
      init: () => ({ answer: { enabled: true, errorCode: ErrorCode.NONE, guard: 17 }, hold: false, held: [], asked: [] }),
      handlers: {
        VerifyTransaction: (st, m, ctx) => {
          st.asked.push(m);
          const token = ctx.deferReply();
          if (!token) return;
          if (st.hold) st.held.push(token);
          else ctx.replyTo(token, reply(st.answer));
        },
        Tell: (st, m) => {
          const t = m as unknown as { answer?: Answer; hold?: boolean };
          if (t.answer) st.answer = t.answer;
          if (t.hold !== undefined) st.hold = t.hold;
        },
        Release: (st, _m, ctx) => {
          for (const token of st.held.splice(0)) ctx.replyTo(token, reply(st.answer));
        },
        Asked: (st, _m, ctx) => ctx.reply({ type: 'Asked', asked: st.asked } as never),
      },
    });
    const reply = (a: Answer) => ({ type: 'TransactionVerification', errorCode: 0, enabled: a.enabled, partitions: a.enabled ? [{ topic: '__consumer_offsets', partition: 0, errorCode: a.errorCode, errorMessage: null, guard: a.guard }] : [] });
    let broker: ActorRef<never>;
    const tell = (msg: { answer?: Answer; hold?: boolean }) => h.sys.send(broker, { type: 'Tell', ...msg } as never);

    beforeEach(async () => {
      broker = h.sys.spawn(standInBroker, { name: 'stand-in-broker' }) as ActorRef<never>;
      h.spawnCoordinator({ broker: broker as never });
      await h.become(0, 0);
    });

    it('writes the offsets under the guard the verification took, after asking about the offsets partition', async () => {
      const r = await h.txnCommit('g', 42, { 't-0': 10 }, { producerEpoch: 3 });
      expect(r.errorCode).to.equal(0);
      expect((await h.dump()).guards.at(-1)).to.equal(17);
      const asked = ((await h.sys.ask(broker, { type: 'Asked' } as never)) as unknown as { asked: unknown[] }).asked;
      expect(asked.at(-1)).to.deep.equal({ type: 'VerifyTransaction', transactionalId: 'txn-42', producerId: 42, producerEpoch: 3, partitions: [{ topic: '__consumer_offsets', partition: 0 }] });
    });

    it("refuses what the transaction's coordinator refuses, as Kafka reports it, writing nothing", async () => {
      const cases: [number, number][] = [
        [ErrorCode.TRANSACTION_ABORTABLE, ErrorCode.INVALID_TXN_STATE],
        [ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH],
        [ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.INVALID_PRODUCER_ID_MAPPING],
        [ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.CONCURRENT_TRANSACTIONS],
        [ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS],
        [ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
        [ErrorCode.REQUEST_TIMED_OUT, ErrorCode.COORDINATOR_NOT_AVAILABLE],
      ];
      const before = (await h.dump()).produces;
      for (const [from, to] of cases) {
        tell({ answer: { enabled: true, errorCode: from, guard: 0 } });
        const r = await h.txnCommit('g', 42, { 't-0': 10, 't-1': 2 });
        expect(r.errorCode, `coordinator ${from}`).to.equal(to);
        expect(r.topics[0]!.partitions.map((p) => p.errorCode)).to.deep.equal([to, to]);
        expect(txnOffsetCommitVerificationError(from)).to.equal(to);
      }
      expect((await h.dump()).produces).to.equal(before);
      expect(await h.fetched('g')).to.deep.equal({});
    });

    it('a broker that does not verify: written without a guard', async () => {
      tell({ answer: { enabled: false, errorCode: 0, guard: 0 } });
      expect((await h.txnCommit('g', 42, { 't-0': 10 })).errorCode).to.equal(0);
      expect((await h.dump()).guards.at(-1)).to.equal(null);
    });

    it('checks the member again once verified: a rebalance during the verification refuses the offsets', async () => {
      const { members, generationId } = await h.stableGroup('grp', 1, { protocols: [{ name: 'range', metadata: sub('t') }] });
      tell({ hold: true });
      const pending = h.txnCommit('grp', 42, { 't-0': 1 }, { memberId: members[0]!, generationId });
      await h.settle();
      // the member leaves while the transaction's coordinator is asked
      expect((await h.leave('grp', members[0]!)).errorCode).to.equal(0);
      h.sys.send(broker, { type: 'Release' } as never);
      expect((await pending).errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    });
  });
});
