/**
 * The consumer actor with group.protocol consumer (group-member.ts) against fake brokers and group
 * coordinators whose every answer the test writes (harness.ts), on a FakeClock: the join and the
 * first assignment (committed offsets read as the member, the acknowledgement with the owned
 * partitions by topic id), a revocation done before anything is added (commit first, with the
 * member id and epoch, then partitions.revoked, then the new partitions), STALE_MEMBER_EPOCH on
 * that commit, a fenced member releasing without a commit and rejoining, a coordinator that moved,
 * a fatal error, close (commit, then the leave: -1, a static member -2), the poll timer, and a
 * pattern resolved against metadata.
 */
import { expect } from 'chai';
import type { ConsumerEvent, PollResult } from '../../../actors/consumer/messages.js';
import type { ConsumerGroupHeartbeatResponse, OffsetCommitResponse, OffsetFetchResponse, TopicIdPartitions } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ConsumerHarness, topic, type CoordinatorRequest } from './harness.js';

const ORDERS = 'AAAAAAAAAAAAAAAAAAAAAg';
const PAYMENTS = 'AAAAAAAAAAAAAAAAAAAAAw';

function hbOk(r: CoordinatorRequest<'ConsumerGroupHeartbeat'>, memberEpoch: number, assignment: TopicIdPartitions[] | null, heartbeatIntervalMs = 1_000): ConsumerGroupHeartbeatResponse {
  return { type: 'ConsumerGroupHeartbeatResponse', errorCode: ErrorCode.NONE, errorMessage: null, memberId: r.msg.memberId, memberEpoch, heartbeatIntervalMs, assignment };
}

function hbError(errorCode: number): ConsumerGroupHeartbeatResponse {
  return { type: 'ConsumerGroupHeartbeatResponse', errorCode, errorMessage: 'as the test says', memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
}

function commitOk(r: CoordinatorRequest<'OffsetCommit'>, errorCode: number = ErrorCode.NONE): OffsetCommitResponse {
  return { type: 'OffsetCommitResponse', errorCode: ErrorCode.NONE, topics: r.msg.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode })) })) };
}

function committed(r: CoordinatorRequest<'OffsetFetch'>, offsets: Record<string, number>): OffsetFetchResponse {
  return {
    type: 'OffsetFetchResponse',
    errorCode: ErrorCode.NONE,
    topics: (r.msg.topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partition) => ({ partition, offset: offsets[`${t.name}-${partition}`] ?? -1, leaderEpoch: -1, metadata: null, errorCode: ErrorCode.NONE })),
    })),
  };
}

const offsetsOf = (r: CoordinatorRequest<'OffsetCommit'>) => r.msg.topics.flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partition}@${p.offset}`)).sort();
const owned = async (h: ConsumerHarness) => (await h.describe()).assignment.map((a) => `${a.topic}-${a.partition}`).sort();

describe('actors/consumer as a KIP-848 group member (group.protocol consumer)', function () {
  this.timeout(20_000);
  let h: ConsumerHarness;

  beforeEach(() => {
    h = new ConsumerHarness([topic('orders', ORDERS, 4), topic('payments', PAYMENTS, 2)]);
  });
  afterEach(async () => {
    await h.stop();
  });

  /** Starts, joins and makes orders `partitions` effective at `epoch`, positions from `offsets`. */
  async function joined(partitions: number[], epoch = 1, config: Record<string, unknown> = {}, offsets: Record<string, number> = {}): Promise<string> {
    h.start(config);
    await h.subscribe(['orders']);
    const join = await h.next('ConsumerGroupHeartbeat');
    h.answer(join, hbOk(join, epoch, [{ topicId: ORDERS, partitions }]));
    const ack = await h.next('ConsumerGroupHeartbeat');
    expect(ack.msg.topicPartitions).to.deep.equal([{ topicId: ORDERS, partitions }]);
    h.answer(ack, hbOk(ack, epoch, null));
    if (partitions.length > 0) {
      const fetch = await h.next('OffsetFetch');
      h.answer(fetch, committed(fetch, Object.fromEntries(partitions.map((p) => [`orders-${p}`, offsets[`orders-${p}`] ?? 10 * p]))));
    }
    await h.settle();
    return join.msg.memberId;
  }

  it('joins with epoch 0 and its own member id, reads committed offsets as the member, acknowledges at once, reports the member epoch', async () => {
    h.start({ 'group.remote.assignor': 'range', 'client.rack': 'r1' });
    await h.subscribe(['orders']);
    const join = await h.next('ConsumerGroupHeartbeat');
    expect(join.msg).to.include({ groupId: 'g', memberEpoch: 0, serverAssignor: 'range', rackId: 'r1', rebalanceTimeoutMs: 300_000, instanceId: null, clientId: 'c' });
    expect(join.msg.memberId).to.match(/^[0-9a-f-]{36}$/);
    expect(join.msg.subscribedTopicNames).to.deep.equal(['orders']);
    expect(join.msg.topicPartitions).to.deep.equal([]);
    expect((await h.describe()).memberState).to.equal('JOINING');

    h.answer(join, hbOk(join, 3, [{ topicId: ORDERS, partitions: [2, 0] }]));
    const ack = await h.next('ConsumerGroupHeartbeat');
    expect(ack.msg).to.include({ memberId: join.msg.memberId, memberEpoch: 3, rebalanceTimeoutMs: -1, subscribedTopicNames: null, serverAssignor: null });
    expect(ack.msg.topicPartitions).to.deep.equal([{ topicId: ORDERS, partitions: [0, 2] }]);
    const fetch = await h.next('OffsetFetch');
    expect(fetch.msg).to.deep.include({ groupId: 'g', memberId: join.msg.memberId, memberEpoch: 3, topics: [{ name: 'orders', partitions: [0, 2] }] });
    h.answer(fetch, committed(fetch, { 'orders-0': 7, 'orders-2': 4 }));
    h.answer(ack, hbOk(ack, 3, null));
    await h.settle();

    const d = await h.describe();
    expect(d).to.include({ phase: 'Stable', memberId: join.msg.memberId, generationId: 3, memberState: 'STABLE' });
    expect(d.assignment.map((a) => [a.partition, a.position])).to.deep.equal([
      [0, 7],
      [2, 4],
    ]);
    const joinEvent = h.events.find((e) => e.kind === 'group.join') as Extract<ConsumerEvent, { kind: 'group.join' }>;
    expect(joinEvent).to.deep.include({ groupId: 'g', memberId: join.msg.memberId, generationId: 3, isLeader: false });
    expect(joinEvent.assignment.map((a) => a.partition)).to.deep.equal([0, 2]);

    // heartbeats then go every interval (1 s from the answer), with only the member id and epoch
    await h.advance(900);
    await h.expectNone('ConsumerGroupHeartbeat');
    await h.advance(200);
    const hb = await h.next('ConsumerGroupHeartbeat');
    expect(hb.msg).to.include({ memberEpoch: 3, rebalanceTimeoutMs: -1, subscribedTopicNames: null, topicPartitions: null });
  });

  it('revokes before it acquires: the processed offsets are committed as the member first, then the revoked partition goes, then the new one comes and is acknowledged', async () => {
    const memberId = await joined([0, 1], 1);
    await h.poll([
      { topic: 'orders', partition: 0, offset: 9 },
      { topic: 'orders', partition: 1, offset: 12 },
    ]);
    await h.advance(1_000);
    const hb = await h.next('ConsumerGroupHeartbeat');
    h.events.length = 0;
    h.answer(hb, hbOk(hb, 2, [{ topicId: ORDERS, partitions: [1, 2] }]));

    const commit = await h.next('OffsetCommit');
    expect(commit.msg).to.include({ groupId: 'g', memberId, generationId: 2 });
    expect(offsetsOf(commit)).to.deep.equal(['orders-0@9', 'orders-1@12']);
    // nothing revoked nor added, nor acknowledged, while the commit is out
    await h.expectNone('ConsumerGroupHeartbeat');
    expect(await owned(h)).to.deep.equal(['orders-0', 'orders-1']);
    expect((await h.describe()).assignment.find((a) => a.partition === 0)!.paused, 'the revoked partition is no longer fetched').to.equal(true);
    expect(h.eventKinds()).to.deep.equal(['rebalancing']);

    h.answer(commit, commitOk(commit));
    const ack = await h.next('ConsumerGroupHeartbeat');
    expect(ack.msg.topicPartitions).to.deep.equal([{ topicId: ORDERS, partitions: [1, 2] }]);
    expect(h.eventKinds()).to.deep.equal(['rebalancing', 'commit', 'partitions.revoked', 'group.join']);
    expect(h.events[2]).to.deep.equal({ kind: 'partitions.revoked', partitions: [{ topic: 'orders', partition: 0 }] });
    const fetch = await h.next('OffsetFetch');
    expect(fetch.msg.topics).to.deep.equal([{ name: 'orders', partitions: [2] }]);
    h.answer(fetch, committed(fetch, { 'orders-2': 30 }));
    await h.settle();
    const d = await h.describe();
    expect(d.assignment.map((a) => [a.partition, a.position])).to.deep.equal([
      [1, 10],
      [2, 30],
    ]);
  });

  it('a commit before a revocation answered STALE_MEMBER_EPOCH is sent again once a heartbeat brought the new epoch', async () => {
    await joined([0, 1], 4);
    await h.poll([{ topic: 'orders', partition: 0, offset: 3 }]);
    await h.advance(1_000);
    const hb = await h.next('ConsumerGroupHeartbeat');
    h.answer(hb, hbOk(hb, 4, [{ topicId: ORDERS, partitions: [1] }]));
    const first = await h.next('OffsetCommit');
    expect(first.msg.generationId).to.equal(4);
    h.answer(first, commitOk(first, ErrorCode.STALE_MEMBER_EPOCH));
    await h.advance(500);
    await h.expectNone('OffsetCommit');
    expect(await owned(h), 'not revoked yet').to.deep.equal(['orders-0', 'orders-1']);
    await h.advance(500);
    const next = await h.next('ConsumerGroupHeartbeat');
    h.answer(next, hbOk(next, 5, null));
    await h.advance(200);
    const again = await h.next('OffsetCommit');
    expect(again.msg.generationId).to.equal(5);
    expect(offsetsOf(again)).to.deep.equal(['orders-0@3']);
    h.answer(again, commitOk(again));
    const ack = await h.next('ConsumerGroupHeartbeat');
    expect(ack.msg.topicPartitions).to.deep.equal([{ topicId: ORDERS, partitions: [1] }]);
    expect(await owned(h)).to.deep.equal(['orders-1']);
  });

  for (const [name, code] of [
    ['FENCED_MEMBER_EPOCH', ErrorCode.FENCED_MEMBER_EPOCH],
    ['UNKNOWN_MEMBER_ID', ErrorCode.UNKNOWN_MEMBER_ID],
  ] as const) {
    it(`${name}: every partition is released without a commit and the consumer joins again with epoch 0`, async () => {
      const memberId = await joined([0, 1], 6);
      await h.poll([{ topic: 'orders', partition: 0, offset: 5 }]);
      await h.advance(1_000);
      const hb = await h.next('ConsumerGroupHeartbeat');
      h.events.length = 0;
      h.answer(hb, hbError(code));
      const join = await h.next('ConsumerGroupHeartbeat');
      expect(join.msg).to.include({ memberId, memberEpoch: 0, rebalanceTimeoutMs: 300_000 });
      expect(join.msg.topicPartitions).to.deep.equal([]);
      expect(join.msg.subscribedTopicNames).to.deep.equal(['orders']);
      await h.expectNone('OffsetCommit');
      expect(await owned(h)).to.deep.equal([]);
      expect(h.eventKinds()).to.deep.equal(['rebalancing', 'partitions.revoked']);
      expect((await h.describe()).generationId).to.equal(-1);
      h.answer(join, hbOk(join, 8, [{ topicId: ORDERS, partitions: [3] }]));
      const fetch = await h.next('OffsetFetch');
      expect(fetch.msg).to.include({ memberEpoch: 8 });
    });
  }

  it('a coordinator that moved (NOT_COORDINATOR) is found again; the consumer keeps its partitions and heartbeats to the new one with every field', async () => {
    await joined([0, 1], 2);
    await h.advance(1_000);
    const hb = await h.next('ConsumerGroupHeartbeat');
    expect(hb.brokerId).to.equal(1);
    h.world.coordinatorBroker = 2;
    h.answer(hb, hbError(ErrorCode.NOT_COORDINATOR));
    const moved = await h.next('ConsumerGroupHeartbeat');
    expect(moved.brokerId).to.equal(2);
    expect(moved.msg).to.include({ memberEpoch: 2, rebalanceTimeoutMs: 300_000 });
    expect(moved.msg.topicPartitions).to.deep.equal([{ topicId: ORDERS, partitions: [0, 1] }]);
    expect(await owned(h)).to.deep.equal(['orders-0', 'orders-1']);
    expect(h.eventKinds()).to.not.include('partitions.revoked');
  });

  it('a fatal error (UNSUPPORTED_ASSIGNOR) crashes the consumer with it, as the classic protocol reports fatal errors', async () => {
    h.start({ 'group.remote.assignor': 'nope' });
    await h.subscribe(['orders']);
    const join = await h.next('ConsumerGroupHeartbeat');
    h.answer(join, hbError(ErrorCode.UNSUPPORTED_ASSIGNOR));
    await h.settle();
    const crash = h.events.find((e) => e.kind === 'crash') as Extract<ConsumerEvent, { kind: 'crash' }>;
    expect(crash.errorCode).to.equal(ErrorCode.UNSUPPORTED_ASSIGNOR);
    expect(crash.message).to.contain('as the test says');
    const poll = await h.poll();
    expect(poll.errorCode).to.equal(ErrorCode.UNSUPPORTED_ASSIGNOR);
    expect((await h.describe()).memberState).to.equal('FATAL');
    await h.advance(10_000);
    await h.expectNone('ConsumerGroupHeartbeat');
  });

  it("close commits the processed offsets, then revokes its partitions (Kafka's onLeavePrepare), then leaves with epoch -1", async () => {
    const memberId = await joined([0], 3);
    await h.poll([{ topic: 'orders', partition: 0, offset: 4 }]);
    const closing = h.ask<{ type: string; errorCode: number }>({ type: 'Close' });
    const commit = await h.next('OffsetCommit');
    expect(commit.msg).to.include({ memberId, generationId: 3 });
    await h.expectNone('ConsumerGroupHeartbeat');
    expect(h.eventKinds()).to.not.include('partitions.revoked');
    h.answer(commit, commitOk(commit));
    const leave = await h.next('ConsumerGroupHeartbeat');
    expect(h.events.filter((e) => e.kind === 'partitions.revoked')).to.deep.equal([{ kind: 'partitions.revoked', partitions: [{ topic: 'orders', partition: 0 }] }]);
    expect(leave.msg).to.include({ memberId, memberEpoch: -1, instanceId: null });
    h.answer(leave, hbOk(leave, -1, null));
    expect(await closing).to.deep.equal({ type: 'Closed', errorCode: ErrorCode.NONE });
  });

  it('a static member leaves with epoch -2 on close (its partitions wait for it)', async () => {
    const memberId = await joined([0], 3, { 'group.instance.id': 'i-1' });
    const closing = h.ask({ type: 'Close' });
    const leave = await h.next('ConsumerGroupHeartbeat');
    expect(leave.msg).to.include({ memberId, memberEpoch: -2, instanceId: 'i-1' });
    h.answer(leave, hbOk(leave, -2, null));
    await closing;
  });

  it('a commit of the application answered STALE_MEMBER_EPOCH fails with it (the promise API throws CommitFailedError)', async () => {
    await joined([0], 3, { 'enable.auto.commit': false });
    const done = h.ask<{ errorCode: number }>({ type: 'Commit', offsets: [{ topic: 'orders', partition: 0, offset: 2 }] });
    const commit = await h.next('OffsetCommit');
    h.answer(commit, commitOk(commit, ErrorCode.STALE_MEMBER_EPOCH));
    expect((await done).errorCode).to.equal(ErrorCode.STALE_MEMBER_EPOCH);
  });

  it('max.poll.interval.ms without a poll: it leaves, loses its partitions (no commit) and joins again with the next poll', async () => {
    const memberId = await joined([0, 1], 2, { 'max.poll.interval.ms': 5_000, 'auto.commit.interval.ms': 60_000 });
    await h.poll([{ topic: 'orders', partition: 0, offset: 1 }]);
    h.events.length = 0;
    for (let i = 0; i < 6; i++) {
      await h.advance(1_000);
      for (const r of (await h.pending('ConsumerGroupHeartbeat')) as CoordinatorRequest<'ConsumerGroupHeartbeat'>[]) {
        r.taken = true;
        if (r.msg.memberEpoch >= 0) h.answer(r, hbOk(r, 2, null));
        else expect(r.msg).to.include({ memberId, memberEpoch: -1 });
      }
    }
    expect(h.world.requests.filter((r) => r.msg.type === 'ConsumerGroupHeartbeat' && r.msg.memberEpoch === -1)).to.have.length(1);
    expect((await h.describe()).memberState).to.equal('STALE');
    expect(await owned(h)).to.deep.equal([]);
    expect(h.eventKinds()).to.deep.equal(['rebalancing', 'partitions.revoked']);
    await h.expectNone('OffsetCommit');
    await h.advance(5_000);
    await h.expectNone('ConsumerGroupHeartbeat');
    const poll: PollResult = await h.poll();
    expect(poll.errorCode).to.equal(ErrorCode.NONE);
    const join = await h.next('ConsumerGroupHeartbeat');
    expect(join.msg).to.include({ memberId, memberEpoch: 0 });
  });

  it('a pattern is matched against metadata and the names sent; when the match set changes the next heartbeat sends it again', async () => {
    h.start({ 'metadata.max.age.ms': 2_000 });
    await h.subscribe([], '^or');
    const join = await h.next('ConsumerGroupHeartbeat');
    expect(join.msg.subscribedTopicNames).to.deep.equal(['orders']);
    h.answer(join, hbOk(join, 1, []));
    const ack = await h.next('ConsumerGroupHeartbeat');
    h.answer(ack, hbOk(ack, 1, null));
    h.world.topics.push(topic('ordinals', 'AAAAAAAAAAAAAAAAAAAABA', 1));
    // heartbeats every second; the metadata (and with it the match) is read again every two
    const sent: (string[] | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await h.advance(1_000);
      const hb = await h.next('ConsumerGroupHeartbeat');
      sent.push(hb.msg.subscribedTopicNames);
      h.answer(hb, hbOk(hb, 1, null));
    }
    expect(sent.filter((x) => x !== null)).to.deep.equal([['orders', 'ordinals']]);
    expect(sent[0]).to.equal(null);
  });

  it('waits for the first metadata when a pattern matches nothing yet, and never joins with no topic', async () => {
    h.world.topics = [];
    h.start({ 'metadata.max.age.ms': 1_000 });
    await h.subscribe([], '^or');
    await h.advance(500);
    await h.expectNone('ConsumerGroupHeartbeat');
    expect((await h.describe()).memberState).to.equal('UNSUBSCRIBED');
    h.world.topics.push(topic('orders', ORDERS, 1));
    await h.advance(600);
    const join = await h.next('ConsumerGroupHeartbeat');
    expect(join.msg.subscribedTopicNames).to.deep.equal(['orders']);
  });
});
