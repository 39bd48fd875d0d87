/**
 * The controller's role machine, one test per transition, on a controller whose quorum is one
 * voter (it leads at once) with the quorum's events also sent by hand, as its quorum actor would:
 * Standby -> Active (QuorumReady of the term it leads); Active -> Standby (QuorumLeader naming
 * another controller, or none); ignored: QuorumReady of another term, or while Active; and what
 * a standby does with requests (NotController naming the leader; stashed while none is known,
 * refused once an election's worth of time has passed). Committed batches and snapshots already
 * applied are not applied again.
 */
import { expect } from 'chai';
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import { toImage } from '../../../actors/controller/metadata-snapshot.js';
import { emptyMetadata } from '../../../actors/controller/metadata-state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { isFailure } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { ControllerHarness } from './harness.js';

describe('actors/controller role', () => {
  let h: ControllerHarness;
  afterEach(async () => {
    await h?.stop();
  });

  // the quorum's events come from the controller's own node (its child), and are taken from no other
  const tell = (msg: ControllerMsg) => h.controllerNode.send(h.controllerRef, msg);
  const describeLocal = () => h.ask<'DescribeQuorumResponse'>({ type: 'DescribeQuorum', local: true });
  const rawAsk = (msg: ControllerMsg) => h.client.ask<ControllerReply>(h.controllerRef, msg, { timeoutMs: 60_000 });

  it('Standby -> Active: a lone controller leads its quorum at once, with a controller epoch one higher, and serves', async () => {
    h = await ControllerHarness.start({ brokers: [1] });
    const d = await describeLocal();
    expect(d).to.deep.include({ active: true, controllerEpoch: 1 });
    expect(d.quorum).to.deep.include({ role: 'Leader', leaderId: 1, term: 1 });
    expect((await h.metadata()).brokers.map((b) => b.brokerId)).to.deep.equal([1]);
  });

  it('Active -> Standby when another controller leads: requests are answered NotController naming it', async () => {
    h = await ControllerHarness.start({ brokers: [1, 2] });
    tell({ type: 'QuorumLeader', term: 7, leaderId: 2, leaderNode: 'elsewhere' });
    const r = await rawAsk({ type: 'Metadata' });
    expect(r).to.deep.include({ type: 'NotController', errorCode: ErrorCode.NOT_CONTROLLER, leaderId: 2, leaderNode: 'elsewhere' });
    expect((await describeLocal()).active).to.equal(false);
    // what only the active controller does is refused too
    expect(await rawAsk({ type: 'CreateTopics', topics: [{ name: 'no', numPartitions: 1, replicationFactor: 1 }] })).to.deep.include({ type: 'NotController', leaderId: 2 });
  });

  it('Active -> Standby when no leader is known: requests wait, and are refused once an election\'s worth of time passed', async () => {
    h = await ControllerHarness.start({ brokers: [1] });
    tell({ type: 'QuorumLeader', term: 7, leaderId: null, leaderNode: null });
    const waiting = rawAsk({ type: 'Metadata' });
    await checkFor(async () => (await describeLocal()).active === false);
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).to.equal(false);
    h.clock.advance(2_000); // twice controller.quorum.election.timeout.ms
    const r = await waiting;
    expect(isFailure(r)).to.equal(false);
    expect(r).to.deep.include({ type: 'NotController', leaderId: null });
    // and straight away while still no leader is known
    expect(await rawAsk({ type: 'Metadata' })).to.deep.include({ type: 'NotController', leaderId: null });
  });

  it('ignored: QuorumReady of a term this controller does not lead, and QuorumReady while active', async () => {
    h = await ControllerHarness.start({ brokers: [1] });
    const epoch = (await describeLocal()).controllerEpoch;
    tell({ type: 'QuorumReady', term: 1 }); // already active in term 1
    expect((await describeLocal()).controllerEpoch).to.equal(epoch);
    tell({ type: 'QuorumLeader', term: 9, leaderId: 3, leaderNode: 'x' });
    tell({ type: 'QuorumReady', term: 9 }); // term 9 is led by 3, not by this controller
    const d = await describeLocal();
    expect(d).to.deep.include({ active: false, controllerEpoch: epoch });
  });

  it('committed batches and snapshots already applied are not applied again; a newer snapshot replaces the state', async () => {
    h = await ControllerHarness.start({ brokers: [1] });
    await h.createTopic('kept', 1, 1);
    const { appliedIndex } = await describeLocal();
    tell({ type: 'QuorumCommitted', entries: [{ index: appliedIndex, term: 1, records: [{ type: 'RemoveTopic', name: 'kept', topicId: 'x' }] }] });
    tell({ type: 'QuorumSnapshot', index: appliedIndex, term: 1, image: toImage(emptyState()) });
    expect((await h.metadata()).topics.map((t) => t.name)).to.deep.equal(['kept']);
    tell({ type: 'QuorumLeader', term: 5, leaderId: 2, leaderNode: 'x' });
    tell({ type: 'QuorumSnapshot', index: appliedIndex + 10, term: 5, image: toImage(emptyState()) });
    const d = await describeLocal();
    expect(d).to.deep.include({ appliedIndex: appliedIndex + 10, controllerEpoch: 0 });
  });
});

function emptyState() {
  return { ...emptyMetadata(), clusterId: 'test-cluster' };
}
