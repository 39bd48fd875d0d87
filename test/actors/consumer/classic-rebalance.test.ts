/**
 * The classic protocol's consumer when metadata comes while its group rebalances: a leader that
 * assigned without a subscribed topic's partitions (its metadata did not have them yet) and
 * hears of them before its SyncGroup is answered joins again at once, instead of staying with
 * an assignment that leaves them out until some later metadata happens to show the change.
 */
import { expect } from 'chai';
import { decodeAssignment } from '../../../actors/group-coordinator/consumer-protocol.js';
import type { JoinGroupResponse, SyncGroupResponse } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ConsumerHarness, topic, type CoordinatorRequest } from './harness.js';

const CLASSIC = { 'group.protocol': 'classic', 'metadata.max.age.ms': 1_000, 'heartbeat.interval.ms': 60_000, 'session.timeout.ms': 120_000 };

describe('actors/consumer (classic): metadata that comes while the group rebalances', function () {
  this.timeout(20_000);
  let h: ConsumerHarness;
  afterEach(async () => {
    await h?.stop();
  });

  /** Answers a JoinGroup making the consumer the group's only member and its leader. */
  const asLeader = (h: ConsumerHarness, join: CoordinatorRequest<'JoinGroup'>, generationId: number): void => {
    const reply: JoinGroupResponse = {
      type: 'JoinGroupResponse',
      errorCode: ErrorCode.NONE,
      generationId,
      protocolType: 'consumer',
      protocolName: 'range',
      leader: 'm1',
      memberId: 'm1',
      members: [{ memberId: 'm1', groupInstanceId: null, metadata: join.msg.protocols[0]!.metadata }],
    };
    h.answer(join, reply);
  };
  const assigned = (sync: CoordinatorRequest<'SyncGroup'>) => decodeAssignment(sync.msg.assignments.find((a) => a.memberId === 'm1')!.assignment).partitions;
  const syncDone = (h: ConsumerHarness, sync: CoordinatorRequest<'SyncGroup'>): void => {
    const reply: SyncGroupResponse = { type: 'SyncGroupResponse', errorCode: ErrorCode.NONE, protocolType: 'consumer', protocolName: 'range', assignment: sync.msg.assignments.find((a) => a.memberId === 'm1')!.assignment };
    h.answer(sync, reply);
  };

  it('a topic that appears while the SyncGroup is out: the leader joins again and assigns its partitions', async () => {
    h = new ConsumerHarness([]);
    h.start(CLASSIC);
    await h.subscribe(['jobs']);
    asLeader(h, await h.next('JoinGroup'), 1);
    const sync1 = await h.next('SyncGroup');
    // assigned from metadata without the topic: nothing
    expect(assigned(sync1)).to.deep.equal([]);
    // the topic appears and the consumer's metadata shows it before the SyncGroup is answered
    h.world.topics = [topic('jobs', 'id-jobs', 2)];
    await h.advance(1_000);
    syncDone(h, sync1);
    const join2 = await h.next('JoinGroup');
    expect(join2.msg.memberId).to.equal('m1');
    expect(h.events.filter((e) => e.kind === 'rebalancing').map((e) => (e as { reason: string }).reason)).to.include('the subscribed topics changed while the group was rebalancing');
    asLeader(h, join2, 2);
    expect(assigned(await h.next('SyncGroup'))).to.deep.equal([{ topic: 'jobs', partitions: [0, 1] }]);
  });

  it('metadata unchanged while the SyncGroup is out: no second join', async () => {
    h = new ConsumerHarness([topic('jobs', 'id-jobs', 2)]);
    h.start(CLASSIC);
    await h.subscribe(['jobs']);
    await h.settle();
    asLeader(h, await h.next('JoinGroup'), 1);
    const sync = await h.next('SyncGroup');
    expect(assigned(sync)).to.deep.equal([{ topic: 'jobs', partitions: [0, 1] }]);
    // a metadata refresh meanwhile that shows the same topics
    await h.advance(1_000);
    syncDone(h, sync);
    await h.settle();
    expect((await h.describe()).phase).to.equal('Stable');
    await h.expectNone('JoinGroup');
  });
});
