/**
 * Offsets committed inside transactions (TxnOffsetCommit, KIP-98/KIP-447): written at once as the
 * producer's transactional batch, visible only after the COMMIT marker, dropped by ABORT, and
 * found again (pending or ended) when another coordinator loads the partition.
 */
import { expect } from 'chai';
import { ErrorCode } from '../../../src/protocol/errors.js';
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
});
