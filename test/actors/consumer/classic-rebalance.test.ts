/**
 * The classic protocol's consumer when metadata comes while its group rebalances: a leader that
 * assigned without a subscribed topic's partitions (its metadata did not have them yet) and
 * hears of them before its SyncGroup is answered joins again at once, instead of staying with
 * an assignment that leaves them out until some later metadata happens to show the change.
 *
 * And when the group starts a rebalance while the application is processing records handed
 * out: as Kafka's consumer, which rejoins inside poll(), the member commits what those records
 * processed (reported with the next poll) before it revokes, and sends its JoinGroup only once
 * that commit is answered.
 */
import { expect } from 'chai';
import { decodeAssignment } from '../../../actors/group-coordinator/consumer-protocol.js';
import type { ConsumerEvent } from '../../../actors/consumer/messages.js';
import { encodeAssignment } from '../../../actors/group-coordinator/consumer-protocol.js';
import type { JoinGroupResponse, OffsetCommitResponse, OffsetFetchResponse, SimpleResponse, SyncGroupResponse } from '../../../actors/group-coordinator/messages.js';
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

describe('actors/consumer (classic): a rebalance while the application has records out', function () {
  this.timeout(20_000);
  let h: ConsumerHarness;
  afterEach(async () => {
    await h?.stop();
  });

  const commitOk = (r: CoordinatorRequest<'OffsetCommit'>): OffsetCommitResponse => ({
    type: 'OffsetCommitResponse',
    errorCode: ErrorCode.NONE,
    topics: r.msg.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode: ErrorCode.NONE })) })),
  });
  const offsetsOf = (r: CoordinatorRequest<'OffsetCommit'>) => r.msg.topics.flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partition}@${p.offset}`));
  const heartbeatAnswer = (errorCode: number): SimpleResponse => ({ type: 'HeartbeatResponse', errorCode });
  const revoked = () => h.events.filter((e): e is Extract<ConsumerEvent, { kind: 'partitions.revoked' }> => e.kind === 'partitions.revoked');

  /** A member (not the leader) of generation 1 owning jobs-0 from committed offset 0, with the five records of the log handed out by a poll. */
  async function recordsOut(config: Record<string, unknown> = {}): Promise<void> {
    h = new ConsumerHarness([topic('jobs', 'id-jobs', 1)]);
    h.world.logEnds['jobs-0'] = 5;
    h.start({ ...CLASSIC, 'heartbeat.interval.ms': 1_000, 'auto.commit.interval.ms': 60_000, ...config });
    await h.subscribe(['jobs']);
    const join = await h.next('JoinGroup');
    const joined: JoinGroupResponse = { type: 'JoinGroupResponse', errorCode: ErrorCode.NONE, generationId: 1, protocolType: 'consumer', protocolName: 'range', leader: 'm0', memberId: 'm1', members: [] };
    h.answer(join, joined);
    const sync = await h.next('SyncGroup');
    const synced: SyncGroupResponse = { type: 'SyncGroupResponse', errorCode: ErrorCode.NONE, protocolType: 'consumer', protocolName: 'range', assignment: encodeAssignment({ partitions: [{ topic: 'jobs', partitions: [0] }] }) };
    h.answer(sync, synced);
    const fetch = await h.next('OffsetFetch');
    const committed: OffsetFetchResponse = {
      type: 'OffsetFetchResponse',
      errorCode: ErrorCode.NONE,
      topics: [{ name: 'jobs', partitions: [{ partition: 0, offset: 0, leaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE }] }],
    };
    h.answer(fetch, committed);
    await h.settle();
    const poll = await h.poll();
    expect(poll.batches.flatMap((b) => b.records.map((r) => r.offset))).to.deep.equal([0, 1, 2, 3, 4]);
  }

  it('the group rebalances meanwhile: the offsets those records processed are committed under the generation, then it revokes and joins', async () => {
    await recordsOut();
    // the group starts a rebalance (another member joins) while the application processes them
    await h.advance(1_000);
    const hb = await h.next('Heartbeat');
    h.answer(hb, heartbeatAnswer(ErrorCode.REBALANCE_IN_PROGRESS));
    await h.settle();
    // nothing is revoked, nor joined, before the application hands its records back
    await h.expectNone('JoinGroup');
    expect(revoked()).to.deep.equal([]);
    expect((await h.describe()).assignment.map((a) => a.partition)).to.deep.equal([0]);

    // the next poll reports them processed: they are committed first, with the generation they were read in
    await h.poll([{ topic: 'jobs', partition: 0, offset: 5 }]);
    const commit = await h.next('OffsetCommit');
    expect(commit.msg).to.include({ generationId: 1, memberId: 'm1' });
    expect(offsetsOf(commit)).to.deep.equal(['jobs-0@5']);
    expect(revoked().map((e) => e.partitions)).to.deep.equal([[{ topic: 'jobs', partition: 0 }]]);
    // the JoinGroup waits for the commit's answer (as Kafka's onJoinPrepare)
    await h.expectNone('JoinGroup');
    h.answer(commit, commitOk(commit));
    const join = await h.next('JoinGroup');
    expect(join.msg.memberId).to.equal('m1');
    expect(h.events.filter((e) => e.kind === 'commit').map((e) => (e as { errorCode: number }).errorCode)).to.deep.equal([ErrorCode.NONE]);
  });

  it('a commit already out when the rebalance starts: the commit of what was processed goes after it, still before the JoinGroup', async () => {
    await recordsOut();
    // the application commits part of what it processed while it still has records out
    const done = h.ask<{ errorCode: number }>({ type: 'Commit', offsets: [{ topic: 'jobs', partition: 0, offset: 2 }] });
    const first = await h.next('OffsetCommit');
    expect(offsetsOf(first)).to.deep.equal(['jobs-0@2']);
    await h.advance(1_000);
    const hb = await h.next('Heartbeat');
    h.answer(hb, heartbeatAnswer(ErrorCode.REBALANCE_IN_PROGRESS));
    await h.settle();
    await h.poll([{ topic: 'jobs', partition: 0, offset: 5 }]);
    // the commit before the revocation waits behind the one out, and the JoinGroup behind both
    await h.expectNone('OffsetCommit');
    await h.expectNone('JoinGroup');
    h.answer(first, commitOk(first));
    expect((await done).errorCode).to.equal(ErrorCode.NONE);
    const commit = await h.next('OffsetCommit');
    expect(commit.msg.generationId).to.equal(1);
    expect(offsetsOf(commit)).to.deep.equal(['jobs-0@5']);
    await h.expectNone('JoinGroup');
    h.answer(commit, commitOk(commit));
    await h.next('JoinGroup');
  });

  it('a member told it is unknown (UNKNOWN_MEMBER_ID) gives its partitions up at once, records out or not', async () => {
    await recordsOut();
    await h.advance(1_000);
    const hb = await h.next('Heartbeat');
    h.answer(hb, heartbeatAnswer(ErrorCode.UNKNOWN_MEMBER_ID));
    const join = await h.next('JoinGroup');
    expect(join.msg.memberId).to.equal('');
    expect(revoked().map((e) => e.partitions)).to.deep.equal([[{ topic: 'jobs', partition: 0 }]]);
  });

  it("closing: the final commit, then the partitions revoked, then the LeaveGroup (as Kafka's onLeavePrepare), so no other member gets them first", async () => {
    await recordsOut();
    await h.poll([{ topic: 'jobs', partition: 0, offset: 5 }]);
    const closed = h.ask<{ type: string }>({ type: 'Close' });
    const commit = await h.next('OffsetCommit');
    expect(offsetsOf(commit)).to.deep.equal(['jobs-0@5']);
    // still the member's while its last commit is out
    expect(revoked()).to.deep.equal([]);
    await h.expectNone('LeaveGroup');
    h.answer(commit, commitOk(commit));
    const leave = await h.next('LeaveGroup');
    expect(revoked().map((e) => e.partitions)).to.deep.equal([[{ topic: 'jobs', partition: 0 }]]);
    const left: SimpleResponse = { type: 'LeaveGroupResponse', errorCode: ErrorCode.NONE };
    h.answer(leave, left);
    expect((await closed).type).to.equal('Closed');
    expect(revoked()).to.have.length(1);
  });
});
