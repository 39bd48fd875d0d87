/**
 * Partition reassignment in the controller (reassignments.ts and its handlers), driven through
 * its messages with fake brokers: each transition of a partition's reassignment state
 * (Stable -> Reassigning -> Stable by catching up, by a reorder or shrink at once, by cancel;
 * Reassigning -> Reassigning with a new target; cancel when Stable refused), what the brokers are
 * told at each step, removed replicas that are down, a controller restart in the middle, the
 * listing, every refusal, and KIP-860's guard against changing the replication factor.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ControllerHarness, type Reply } from './harness.js';

describe('actors/controller: partition reassignment', () => {
  let h: ControllerHarness;
  afterEach(async () => {
    await h?.stop();
  });

  const reassign = (topics: { name: string; partitions: { partition: number; replicas: number[] | null }[] }[]) =>
    h.ask<'AlterPartitionReassignmentsResponse'>({ type: 'AlterPartitionReassignments', topics });
  const move = (topic: string, partition: number, replicas: number[] | null) => reassign([{ name: topic, partitions: [{ partition, replicas }] }]);
  const list = (topics: { name: string; partitions: number[] }[] | null = null) => h.ask<'ListPartitionReassignmentsResponse'>({ type: 'ListPartitionReassignments', topics });
  const codes = (r: Reply<'AlterPartitionReassignmentsResponse'>) => r.topics.map((t) => [t.name, t.partitions.map((p) => [p.partition, p.errorCode])]);

  const alterIsr = (topic: string, partition: number, isr: number[]) => h.alterIsr(topic, partition, isr);

  async function fresh(brokers: number[], assignments: number[][], args = {}): Promise<void> {
    h = await ControllerHarness.start({ brokers, args });
    const r = await h.createTopics([{ name: 't', assignments }]);
    expect(r.topics[0]!.errorCode).to.equal(0);
    await h.settle();
    h.clearInboxes();
  }

  const stops = (id: number) => h.received(id, 'StopReplicaRequest').flatMap((m) => m.partitions);

  it('Stable -> Reassigning: the target is added, the new replicas are told to follow, nothing is deleted yet', async () => {
    await fresh([1, 2, 3], [[1]]);
    const r = await move('t', 0, [2, 3]);
    expect(r).to.deep.equal({ type: 'AlterPartitionReassignmentsResponse', errorCode: 0, topics: [{ name: 't', partitions: [{ partition: 0, errorCode: 0, errorMessage: null }] }] });
    const p = await h.partition('t', 0);
    expect(p).to.deep.include({ replicas: [2, 3, 1], addingReplicas: [2, 3], removingReplicas: [1], leader: 1, isr: [1], leaderEpoch: 0, partitionEpoch: 1 });
    await h.settle();
    for (const id of [1, 2, 3]) {
      expect(h.leaderAndIsr(id).map((x) => [x.partition, x.leader, x.replicas, x.addingReplicas])).to.deep.equal([[0, 1, [2, 3, 1], [2, 3]]]);
      expect(stops(id)).to.deep.equal([]);
    }
    // the added replicas are new (a broker with a log dir offline makes their log in another), the old one is not
    expect([1, 2, 3].map((id) => h.leaderAndIsr(id)[0]!.isNew)).to.deep.equal([false, true, true]);
    expect((await list()).topics).to.deep.equal([{ name: 't', partitions: [{ partition: 0, replicas: [2, 3, 1], addingReplicas: [2, 3], removingReplicas: [1] }] }]);
  });

  it('Reassigning -> Stable when the last target replica joins the ISR: leadership moves into the target, the removed replica deletes its copy', async () => {
    await fresh([1, 2, 3], [[1]]);
    await move('t', 0, [2, 3]);
    await alterIsr('t', 0, [1, 2]);
    expect(await h.partition('t', 0)).to.deep.include({ replicas: [2, 3, 1], isr: [1, 2], addingReplicas: [2, 3] });
    await h.settle();
    h.clearInboxes();
    const r = await alterIsr('t', 0, [1, 2, 3]);
    // the answer to the old leader says the leadership moved (it keeps its maximal ISR until the
    // LeaderAndIsr reaches it) and carries the completed state
    expect(r.errorCode).to.equal(ErrorCode.NEW_LEADER_ELECTED);
    expect(r.state).to.deep.include({ replicas: [2, 3], isr: [2, 3], leader: 2, leaderEpoch: 1 });
    const p = await h.partition('t', 0);
    expect(p).to.deep.equal({ topic: 't', partition: 0, replicas: [2, 3], isr: [2, 3], leader: 2, leaderEpoch: 1, partitionEpoch: 4 });
    await h.settle();
    expect(stops(1)).to.deep.equal([{ topic: 't', partition: 0, deletePartition: true }]);
    expect(h.leaderAndIsr(1)).to.deep.equal([]);
    for (const id of [2, 3]) {
      expect(stops(id)).to.deep.equal([]);
      expect(h.leaderAndIsr(id).map((x) => [x.leader, x.replicas, x.isr, x.leaderEpoch, x.isNew])).to.deep.equal([[2, [2, 3], [2, 3], 1, false]]);
    }
    expect((await list()).topics).to.deep.equal([]);
  });

  it('a target replica that only joins the ISR leaves it reassigning; the leader stays when it is in the target', async () => {
    await fresh([1, 2, 3], [[1, 2]]);
    await move('t', 0, [1, 3]);
    expect(await h.partition('t', 0)).to.deep.include({ replicas: [1, 3, 2], addingReplicas: [3], removingReplicas: [2], isr: [1, 2] });
    expect((await alterIsr('t', 0, [1, 2, 3])).errorCode, 'the asking leader still leads').to.equal(0);
    expect(await h.partition('t', 0)).to.deep.equal({ topic: 't', partition: 0, replicas: [1, 3], isr: [1, 3], leader: 1, leaderEpoch: 0, partitionEpoch: 3 });
  });

  it('Stable -> Stable at once for a reorder or a smaller set of replicas already in sync', async () => {
    await fresh([1, 2, 3], [[1, 2, 3], [1, 2, 3]]);
    const r = await reassign([{ name: 't', partitions: [{ partition: 0, replicas: [3, 2, 1] }, { partition: 1, replicas: [2] }] }]);
    expect(codes(r)).to.deep.equal([['t', [[0, 0], [1, 0]]]]);
    // a reorder changes the preferred leader only; leader balancing moves it later
    expect(await h.partition('t', 0)).to.deep.include({ replicas: [3, 2, 1], isr: [1, 2, 3], leader: 1 });
    expect((await h.partition('t', 0)).addingReplicas).to.equal(undefined);
    expect(await h.partition('t', 1)).to.deep.include({ replicas: [2], isr: [2], leader: 2, leaderEpoch: 1 });
    await h.settle();
    expect(stops(1)).to.deep.equal([{ topic: 't', partition: 1, deletePartition: true }]);
    expect(stops(3)).to.deep.equal([{ topic: 't', partition: 1, deletePartition: true }]);
    expect(stops(2)).to.deep.equal([]);
    expect((await list()).topics).to.deep.equal([]);
  });

  it('the same replicas in the same order change nothing', async () => {
    await fresh([1, 2], [[1, 2]]);
    const before = await h.partition('t', 0);
    expect(codes(await move('t', 0, [1, 2]))).to.deep.equal([['t', [[0, 0]]]]);
    expect(await h.partition('t', 0)).to.deep.equal(before);
    await h.settle();
    expect(h.leaderAndIsr(1)).to.deep.equal([]);
  });

  it('Reassigning -> Stable by cancel: back to the original replicas, the added ones delete their copy', async () => {
    await fresh([1, 2, 3], [[1]]);
    await move('t', 0, [2, 3]);
    await alterIsr('t', 0, [1, 2]);
    await h.settle();
    h.clearInboxes();
    expect(codes(await move('t', 0, null))).to.deep.equal([['t', [[0, 0]]]]);
    expect(await h.partition('t', 0)).to.deep.equal({ topic: 't', partition: 0, replicas: [1], isr: [1], leader: 1, leaderEpoch: 0, partitionEpoch: 3 });
    await h.settle();
    expect(stops(2)).to.deep.equal([{ topic: 't', partition: 0, deletePartition: true }]);
    expect(stops(3)).to.deep.equal([{ topic: 't', partition: 0, deletePartition: true }]);
    expect(stops(1)).to.deep.equal([]);
    expect(h.leaderAndIsr(1).map((x) => x.replicas)).to.deep.equal([[1]]);
  });

  it('Stable -> cancel is refused with NO_REASSIGNMENT_IN_PROGRESS', async () => {
    await fresh([1, 2], [[1]]);
    const r = await move('t', 0, null);
    expect(codes(r)).to.deep.equal([['t', [[0, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS]]]]);
    expect(r.topics[0]!.partitions[0]!.errorMessage).to.equal('t-0 has no reassignment in progress');
  });

  it('Reassigning -> Reassigning with a new target starts over from the original replicas', async () => {
    await fresh([1, 2, 3], [[1]]);
    await move('t', 0, [2]);
    await h.settle();
    h.clearInboxes();
    expect(codes(await move('t', 0, [3]))).to.deep.equal([['t', [[0, 0]]]]);
    expect(await h.partition('t', 0)).to.deep.include({ replicas: [3, 1], addingReplicas: [3], removingReplicas: [1], isr: [1], leader: 1 });
    await h.settle();
    expect(stops(2)).to.deep.equal([{ topic: 't', partition: 0, deletePartition: true }]);
    // and a new target equal to the original replicas ends it
    expect(codes(await move('t', 0, [1]))).to.deep.equal([['t', [[0, 0]]]]);
    expect(await h.partition('t', 0)).to.deep.include({ replicas: [1], isr: [1] });
    expect((await list()).topics).to.deep.equal([]);
  });

  it('a removed replica on a broker that is down deletes its copy when it registers again', async () => {
    await fresh([1, 2, 3], [[1, 2]]);
    await move('t', 0, [2, 3]);
    await h.advanceKeeping([2, 3], 10_000); // broker 1 fenced: leadership moves to 2
    expect(await h.partition('t', 0)).to.deep.include({ leader: 2, isr: [2] });
    await alterIsr('t', 0, [2, 3]);
    expect(await h.partition('t', 0)).to.deep.include({ replicas: [2, 3], isr: [2, 3], leader: 2 });
    await h.settle();
    h.clearInboxes();
    await h.register(1, 'inc-1-back');
    await h.settle();
    expect(stops(1)).to.deep.equal([{ topic: 't', partition: 0, deletePartition: true }]);
    expect(h.leaderAndIsr(1)).to.deep.equal([]);
  });

  it('a reassignment in progress survives a controller restart and completes after it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-reassign-'));
    try {
      await fresh([1, 2, 3], [[1]], { metadataDir: dir });
      await move('t', 0, [2, 3]);
      await h.restartController();
      expect((await list()).topics).to.deep.equal([{ name: 't', partitions: [{ partition: 0, replicas: [2, 3, 1], addingReplicas: [2, 3], removingReplicas: [1] }] }]);
      await alterIsr('t', 0, [1, 2, 3]);
      expect(await h.partition('t', 0)).to.deep.include({ replicas: [2, 3], leader: 2 });
      await h.restartController();
      expect(await h.partition('t', 0)).to.deep.include({ replicas: [2, 3], isr: [2, 3], leader: 2 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('new partitions of a topic in the middle of a reassignment get its target replication factor', async () => {
    await fresh([1, 2, 3], [[1]]);
    await move('t', 0, [2, 3]);
    const r = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 't', count: 2 }] });
    expect(r.topics[0]!.errorCode).to.equal(0);
    expect((await h.partition('t', 1)).replicas).to.have.length(2);
  });

  it('lists only the partitions asked for that are reassigning, leaving out unknown ones', async () => {
    await fresh([1, 2, 3], [[1], [1], [1]]);
    await reassign([{ name: 't', partitions: [{ partition: 0, replicas: [2] }, { partition: 2, replicas: [3] }] }]);
    expect((await list([{ name: 't', partitions: [2, 1, 9] }, { name: 'nope', partitions: [0] }])).topics).to.deep.equal([
      { name: 't', partitions: [{ partition: 2, replicas: [3, 1], addingReplicas: [3], removingReplicas: [1] }] },
    ]);
    expect((await list()).topics[0]!.partitions.map((p) => p.partition)).to.deep.equal([0, 2]);
    const bad = await h.ask<'ListPartitionReassignmentsResponse'>({ type: 'ListPartitionReassignments', topics: [{ name: 't', partitions: ['x'] }] } as never);
    expect(bad).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, topics: [] });
  });

  it('a target broker that is down is taken, as in Kafka: the reassignment waits for it and completes once it is back in sync', async () => {
    await fresh([1, 2, 3], [[1, 2]]);
    await h.advanceKeeping([1, 2], 10_000); // broker 3 fenced
    expect(codes(await move('t', 0, [1, 3]))).to.deep.equal([['t', [[0, 0]]]]);
    await h.settle();
    expect(h.leaderAndIsr(3), 'nothing sent to a broker that is down').to.deep.equal([]);
    expect(await h.partition('t', 0)).to.deep.include({ replicas: [1, 3, 2], addingReplicas: [3], removingReplicas: [2] });
    await h.register(3, 'inc-3-back');
    await h.settle();
    expect(h.leaderAndIsr(3).map((x) => [x.replicas, x.addingReplicas])).to.deep.equal([[[1, 3, 2], [3]]]);
    await alterIsr('t', 0, [1, 2, 3]);
    expect(await h.partition('t', 0)).to.deep.include({ replicas: [1, 3], isr: [1, 3], leader: 1 });
  });

  it('refuses unknown partitions, bad replica lists, unregistered brokers, and a partition named twice, each on its own', async () => {
    await fresh([1, 2, 3], [[1], [1]]);
    const r = await reassign([
      {
        name: 't',
        partitions: [
          { partition: 0, replicas: [] },
          { partition: 0, replicas: [2] },
          { partition: 1, replicas: [2, 2] },
          { partition: 5, replicas: [2] },
        ],
      },
      { name: 'nope', partitions: [{ partition: 0, replicas: [1] }] },
    ]);
    expect(codes(r)).to.deep.equal([
      [
        't',
        [
          [0, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
          [0, ErrorCode.INVALID_REQUEST],
          [1, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
          [5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
        ],
      ],
      ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
    ]);
    const msgs = r.topics[0]!.partitions.map((p) => p.errorMessage);
    expect(msgs[0]).to.equal('The replica list must name at least one broker.');
    expect(msgs[1]).to.equal('t-0 appears more than once in the request');
    expect(msgs[2]).to.equal('The replica list [2,2] names a broker more than once.');
    const more = await reassign([{ name: 't', partitions: [{ partition: 0, replicas: [9, 1] }, { partition: 1, replicas: [-1] }] }]);
    expect(more.topics[0]!.partitions.map((p) => [p.errorCode, p.errorMessage])).to.deep.equal([
      [ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The replica list includes broker 9, but no such broker is registered.'],
      [ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The replica list [-1] must hold broker ids (integers >= 0).'],
    ]);
    expect((await list()).topics).to.deep.equal([]);
    expect((await h.partition('t', 0)).replicas).to.deep.equal([1]);
  });

  describe('allowReplicationFactorChange false (KIP-860)', () => {
    const guarded = (topics: { name: string; partitions: { partition: number; replicas: number[] | null }[] }[]) =>
      h.ask<'AlterPartitionReassignmentsResponse'>({ type: 'AlterPartitionReassignments', topics, allowReplicationFactorChange: false });
    const answers = (r: Reply<'AlterPartitionReassignmentsResponse'>) => r.topics.flatMap((t) => t.partitions.map((p) => [`${t.name}-${p.partition}`, p.errorCode, p.errorMessage]));

    it('refuses a target that grows or shrinks the replication factor with INVALID_REPLICATION_FACTOR, from what to what; the same count moves; the other partitions go ahead', async () => {
      await fresh([1, 2, 3, 4], [[1, 2], [1, 2], [1, 2]]);
      const r = await guarded([{ name: 't', partitions: [{ partition: 0, replicas: [1, 2, 3] }, { partition: 1, replicas: [3, 4] }, { partition: 2, replicas: [3] }] }]);
      expect(answers(r)).to.deep.equal([
        ['t-0', ErrorCode.INVALID_REPLICATION_FACTOR, 'The replication factor is changed from 2 to 3'],
        ['t-1', ErrorCode.NONE, null],
        ['t-2', ErrorCode.INVALID_REPLICATION_FACTOR, 'The replication factor is changed from 2 to 1'],
      ]);
      expect(await h.partition('t', 0)).to.deep.include({ replicas: [1, 2], isr: [1, 2] });
      expect((await h.partition('t', 0)).addingReplicas ?? []).to.deep.equal([]);
      expect(await h.partition('t', 1)).to.deep.include({ replicas: [3, 4, 1, 2], addingReplicas: [3, 4], removingReplicas: [1, 2] });
      expect(await h.partition('t', 2)).to.deep.include({ replicas: [1, 2] });
      // a bad target is still INVALID_REPLICA_ASSIGNMENT, whatever its length
      expect(answers(await guarded([{ name: 't', partitions: [{ partition: 0, replicas: [9] }] }]))).to.deep.equal([
        ['t-0', ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The replica list includes broker 9, but no such broker is registered.'],
      ]);
      // allowed (the default, and true): the replication factor may change
      expect(codes(await move('t', 2, [3]))).to.deep.equal([['t', [[2, 0]]]]);
      expect(codes(await h.ask<'AlterPartitionReassignmentsResponse'>({ type: 'AlterPartitionReassignments', topics: [{ name: 't', partitions: [{ partition: 0, replicas: [1, 2, 3] }] }], allowReplicationFactorChange: true }))).to.deep.equal([['t', [[0, 0]]]]);
    });

    it('during a reassignment counts the replicas it is headed for, as Kafka does; a cancel always goes through', async () => {
      await fresh([1, 2, 3, 4], [[1], [1]]);
      // growing t-0 from 1 replica to 2 (allowed), still in progress: replicas [2,3,1], removing [1]
      expect(codes(await move('t', 0, [2, 3]))).to.deep.equal([['t', [[0, 0]]]]);
      expect(await h.partition('t', 0)).to.deep.include({ replicas: [2, 3, 1], addingReplicas: [2, 3], removingReplicas: [1] });
      // a new target of the original count (1) would change it from the 2 the partition is headed for
      expect(answers(await guarded([{ name: 't', partitions: [{ partition: 0, replicas: [4] }] }]))).to.deep.equal([
        ['t-0', ErrorCode.INVALID_REPLICATION_FACTOR, 'The replication factor is changed from 2 to 1'],
      ]);
      // one of 2 goes: it starts over from the original replicas
      expect(answers(await guarded([{ name: 't', partitions: [{ partition: 0, replicas: [3, 4] }] }]))).to.deep.equal([['t-0', ErrorCode.NONE, null]]);
      expect(await h.partition('t', 0)).to.deep.include({ replicas: [3, 4, 1], addingReplicas: [3, 4], removingReplicas: [1] });
      // cancels are never refused for it, and other partitions in the same request go ahead
      const r = await guarded([{ name: 't', partitions: [{ partition: 0, replicas: null }, { partition: 1, replicas: [2] }] }]);
      expect(answers(r)).to.deep.equal([
        ['t-0', ErrorCode.NONE, null],
        ['t-1', ErrorCode.NONE, null],
      ]);
      expect(await h.partition('t', 0)).to.deep.include({ replicas: [1], isr: [1] });
      expect(await h.partition('t', 1)).to.deep.include({ replicas: [2, 1], addingReplicas: [2], removingReplicas: [1] });
    });

    it('a flag that is not a boolean makes the request malformed', async () => {
      await fresh([1, 2], [[1]]);
      const refused = await h.ask({ type: 'AlterPartitionReassignments', topics: [], allowReplicationFactorChange: 'no' } as never).then(
        () => null,
        (err: Error) => err.message,
      );
      expect(refused).to.match(/allowReplicationFactorChange must be boolean/);
    });
  });

  it('refuses a malformed request as a whole with INVALID_REQUEST', async () => {
    await fresh([1, 2], [[1]]);
    const r = await h.ask<'AlterPartitionReassignmentsResponse'>({ type: 'AlterPartitionReassignments', topics: [{ name: 't', partitions: [{ partition: 'x', replicas: [1] }] }] } as never);
    expect(r).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, topics: [] });
    expect(r.errorMessage).to.match(/each partition of t must be/);
  });
});
