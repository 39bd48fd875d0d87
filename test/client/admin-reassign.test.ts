/**
 * admin.alterPartitionReassignments and admin.listPartitionReassignments on a real in-process
 * cluster of three brokers (Kafka's KIP-455): a partition with records moves to other brokers
 * and keeps every record, the replication factor goes from 1 to 3 and back to 1, each refused
 * partition carries its own code while a malformed request throws, and a reassignment waiting
 * for a stopped broker (taken before and after the broker is fenced, as in Kafka) is listed with
 * its adding and removing replicas, can be cancelled, and completes once the broker is back;
 * allowReplicationFactorChange false (KIP-860) refuses a move that changes the replication
 * factor; describeCluster lists a fenced broker only with includeFencedBrokers (KIP-1073).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Admin } from '../../src/client/admin.js';
import { SamsaError } from '../../src/client/errors.js';
import type { PartitionState } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

describe('client/admin partition reassignments', function () {
  this.timeout(120_000);
  let c: TestCluster;
  let admin: Admin;

  before(async () => {
    // a stopped broker is fenced after 1.5 s, and a returning one catches up at once
    c = await TestCluster.start({ brokers: 3, ...fastFailover() });
    admin = c.samsa('reassign-test').admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  const partition = async (topic: string, n: number): Promise<PartitionState> => (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions.find((p) => p.partition === n)!;
  const values = async (topic: string, n: number) => (await c.client.readAll(topic, n)).map((r) => [r.offset, String(r.value)]);
  const sorted = (ids: readonly number[]) => [...ids].sort((a, b) => a - b);
  /** Waits until nothing is being reassigned and `topic`-`n` has exactly `replicas`, all in sync, led by one of them. */
  const settled = (topic: string, n: number, replicas: number[]) =>
    checkFor(
      async () => {
        if ((await admin.listPartitionReassignments()).topics.length > 0) return null;
        const p = await partition(topic, n);
        const done = p.replicas.join() === replicas.join() && sorted(p.isr).join() === sorted(replicas).join() && replicas.includes(p.leader);
        return done ? p : null;
      },
      30_000,
      20,
    );
  const create = async (name: string, assignments: number[][]) => {
    expect(await admin.createTopics({ topics: [{ topic: name, replicaAssignment: assignments }] })).to.equal(true);
    await c.client.waitForLeaders(name);
  };

  it('moves a partition with records from broker 1 to brokers 2 and 3: every record stays, broker 1 deletes its copy', async () => {
    await create('moved', [[1]]);
    for (let i = 0; i < 10; i++) await c.client.produce('moved', 0, Array.from({ length: 10 }, (_, j) => `r${i * 10 + j}`));
    const before = await values('moved', 0);
    expect(before).to.have.length(100);
    expect(fs.existsSync(path.join(c.logDir(1), 'moved-0'))).to.equal(true);

    const results = await admin.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [2, 3] }] }] });
    expect(results).to.deep.equal([{ topic: 'moved', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null }]);

    const p = await settled('moved', 0, [2, 3]);
    expect(sorted(p.isr)).to.deep.equal([2, 3]);
    expect(p.addingReplicas ?? []).to.deep.equal([]);
    expect(p.removingReplicas ?? []).to.deep.equal([]);
    await c.client.waitForLeaders('moved');
    expect(await values('moved', 0)).to.deep.equal(before);
    expect(await admin.fetchTopicOffsets('moved')).to.deep.equal([{ partition: 0, offset: 100, high: 100, low: 0 }]);
    await checkFor(() => !fs.existsSync(path.join(c.logDir(1), 'moved-0')), 10_000, 20);
    // the new leader takes records as before
    await c.client.produce('moved', 0, ['after']);
    expect((await values('moved', 0)).slice(-1)).to.deep.equal([[100, 'after']]);
  });

  it('changes the replication factor from 1 to 3 and back to 1, moving leadership when the leader leaves', async () => {
    await create('rf', [[1]]);
    await c.client.produce('rf', 0, ['a', 'b', 'c']);

    expect(await admin.alterPartitionReassignments({ topics: [{ topic: 'rf', partitionAssignment: [{ partition: 0, replicas: [1, 2, 3] }] }] })).to.deep.equal([
      { topic: 'rf', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null },
    ]);
    const three = await settled('rf', 0, [1, 2, 3]);
    expect(three.leader).to.equal(1);
    expect(sorted(three.isr)).to.deep.equal([1, 2, 3]);
    for (const b of [2, 3]) expect(fs.existsSync(path.join(c.logDir(b), 'rf-0')), `broker ${b}`).to.equal(true);

    expect(await admin.alterPartitionReassignments({ topics: [{ topic: 'rf', partitionAssignment: [{ partition: 0, replicas: [3] }] }] })).to.deep.equal([
      { topic: 'rf', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null },
    ]);
    const one = await settled('rf', 0, [3]);
    expect(one.leader).to.equal(3);
    expect(one.isr).to.deep.equal([3]);
    await c.client.waitForLeaders('rf');
    expect(await values('rf', 0)).to.deep.equal([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
    await checkFor(() => [1, 2].every((b) => !fs.existsSync(path.join(c.logDir(b), 'rf-0'))), 10_000, 20);
  });

  it('allowReplicationFactorChange: false (KIP-860) refuses a move that changes the replication factor, saying from what to what; the others of the request go ahead', async () => {
    await create('rf-guard', [[1, 2], [1, 2]]);
    const results = await admin.alterPartitionReassignments({
      topics: [{ topic: 'rf-guard', partitionAssignment: [{ partition: 0, replicas: [1, 2, 3] }, { partition: 1, replicas: [2, 3] }] }],
      allowReplicationFactorChange: false,
    });
    expect(results).to.deep.equal([
      { topic: 'rf-guard', partition: 0, errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, errorMessage: 'The replication factor is changed from 2 to 3' },
      { topic: 'rf-guard', partition: 1, errorCode: ErrorCode.NONE, errorMessage: null },
    ]);
    await settled('rf-guard', 1, [2, 3]);
    expect((await partition('rf-guard', 0)).replicas).to.deep.equal([1, 2]);
    // allowed (the default): it changes
    expect(await admin.alterPartitionReassignments({ topics: [{ topic: 'rf-guard', partitionAssignment: [{ partition: 0, replicas: [1, 2, 3] }] }] })).to.deep.equal([
      { topic: 'rf-guard', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null },
    ]);
    await settled('rf-guard', 0, [1, 2, 3]);
    const bad = await admin.alterPartitionReassignments({ topics: [], allowReplicationFactorChange: 'no' as unknown as boolean }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(bad).to.be.instanceOf(SamsaError).with.property('errorCode', ErrorCode.INVALID_REQUEST);
  });

  /** Moves `topic`-0 from [1, 3] to [1, 2] while broker 3 is down (fenced first or not), and checks that broker 3 deletes its copy on its return. */
  const removedWhileDown = async (topic: string, waitForFence: boolean) => {
    await create(topic, [[1, 3]]);
    await c.client.produce(topic, 0, ['o']);
    await checkFor(async () => sorted((await partition(topic, 0)).isr).join() === '1,3', 15_000, 20);
    expect(fs.existsSync(path.join(c.logDir(3), `${topic}-0`))).to.equal(true);
    await admin.listPartitionReassignments();
    await c.killBroker(3);
    let restarted = false;
    try {
      if (waitForFence) {
        await checkFor(async () => (await admin.describeCluster({ includeFencedBrokers: true })).brokers.find((b) => b.brokerId === 3)?.fenced, 15_000, 50);
        // describeCluster lists the live brokers unless asked for the fenced ones too (KIP-1073)
        expect((await admin.describeCluster()).brokers.map((b) => b.brokerId)).to.deep.equal([1, 2]);
        expect((await admin.describeCluster({ includeFencedBrokers: true })).brokers.map((b) => [b.brokerId, b.fenced])).to.deep.equal([
          [1, false],
          [2, false],
          [3, true],
        ]);
      }
      expect((await admin.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [1, 2] }] }] }))[0]!.errorCode).to.equal(ErrorCode.NONE);
      await settled(topic, 0, [1, 2]);
      await c.startBroker(3);
      restarted = true;
      await checkFor(() => !fs.existsSync(path.join(c.logDir(3), `${topic}-0`)), 15_000, 20);
      expect(await values(topic, 0)).to.deep.equal([[0, 'o']]);
    } finally {
      if (!restarted) await c.startBroker(3);
    }
  };

  it('a replica removed while its broker is down (fenced) deletes its copy when the broker comes back', async () => {
    await removedWhileDown('owed', true);
  });

  // the controller still counts a crashed broker as live until its session expires: the
  // StopReplica sent to it is lost; back, the broker finds from the metadata that it is no longer
  // a replica and deletes the stray copy itself
  it('a replica removed while its broker is down but not yet fenced deletes its copy when the broker comes back', async () => {
    await removedWhileDown('owed-unfenced', false);
  });

  it('answers each refused partition with its code, starts the others, and throws only for a malformed request', async () => {
    await create('refusals', [[1, 2], [2, 3]]);
    const one = async (topic: string, partition: number, replicas: number[] | null) =>
      (await admin.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition, replicas }] }] }))[0]!;
    const cases: { topic: string; partition: number; replicas: number[] | null; code: number; says?: RegExp }[] = [
      { topic: 'no-such', partition: 0, replicas: [1], code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
      { topic: 'refusals', partition: 7, replicas: [1], code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
      { topic: 'refusals', partition: 0, replicas: [], code: ErrorCode.INVALID_REPLICA_ASSIGNMENT },
      { topic: 'refusals', partition: 0, replicas: [1, 3, 1], code: ErrorCode.INVALID_REPLICA_ASSIGNMENT },
      { topic: 'refusals', partition: 0, replicas: [1, 9], code: ErrorCode.INVALID_REPLICA_ASSIGNMENT, says: /9/ },
      { topic: 'refusals', partition: 0, replicas: null, code: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS },
    ];
    for (const k of cases) {
      const r = await one(k.topic, k.partition, k.replicas);
      expect(r.errorCode, `${k.topic}-${k.partition} ${JSON.stringify(k.replicas)}: ${r.errorMessage}`).to.equal(k.code);
      expect(r.topic).to.equal(k.topic);
      expect(r.partition).to.equal(k.partition);
      if (k.says) expect(r.errorMessage).to.match(k.says);
    }

    // one request: the refused partition does not hold up the others
    const mixed = await admin.alterPartitionReassignments({
      topics: [
        {
          topic: 'refusals',
          partitionAssignment: [
            { partition: 0, replicas: [1, 9] },
            { partition: 1, replicas: [3, 2] },
            { partition: 1, replicas: [2, 1] },
          ],
        },
        { topic: 'no-such', partitionAssignment: [{ partition: 0, replicas: [1] }] },
      ],
    });
    expect(mixed.map((r) => [r.topic, r.partition, r.errorCode])).to.deep.equal([
      ['refusals', 0, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
      ['refusals', 1, ErrorCode.NONE],
      ['refusals', 1, ErrorCode.INVALID_REQUEST],
      ['no-such', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    await settled('refusals', 1, [3, 2]);
    expect((await partition('refusals', 0)).replicas).to.deep.equal([1, 2]);

    // malformed requests throw INVALID_REQUEST, whether the client or the controller finds out
    const malformed: unknown[] = [
      { topics: 'refusals' },
      { topics: [{ topic: 'refusals' }] },
      { topics: [{ topic: 'refusals', partitionAssignment: [{ partition: 'zero', replicas: [1] }] }] },
      { topics: [{ topic: 'refusals', partitionAssignment: [{ partition: 0, replicas: 'all' }] }] },
    ];
    for (const m of malformed) {
      const e = await admin.alterPartitionReassignments(m as never).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e, JSON.stringify(m)).to.be.instanceOf(SamsaError);
      expect((e as SamsaError).errorCode, JSON.stringify(m)).to.equal(ErrorCode.INVALID_REQUEST);
    }
    for (const m of [{ topics: 'refusals' }, { topics: [{ topic: 'refusals', partitions: ['x'] }] }]) {
      const e = await admin.listPartitionReassignments(m as never).then(
        () => null,
        (x: unknown) => x,
      );
      expect((e as SamsaError | null)?.errorCode, JSON.stringify(m)).to.equal(ErrorCode.INVALID_REQUEST);
    }
    expect(await admin.listPartitionReassignments()).to.deep.equal({ topics: [] });
  });

  it('a reassignment onto a stopped broker stays in progress, listed with its adding and removing replicas; cancel reverts one; the others complete when the broker is back', async () => {
    await create('held', [[1, 2], [1, 2]]);
    await c.client.produce('held', 0, ['x', 'y']);
    await c.client.produce('held', 1, ['z']);
    await admin.listPartitionReassignments(); // the admin client knows the controller before a broker goes
    await c.killBroker(3);
    let restarted = false;
    try {
      // broker 3 is down but registered: the reassignments start and wait for it
      const started = await admin.alterPartitionReassignments({
        topics: [
          {
            topic: 'held',
            partitionAssignment: [
              { partition: 0, replicas: [2, 3] },
              { partition: 1, replicas: [1, 2, 3] },
            ],
          },
        ],
      });
      expect(started.map((r) => r.errorCode)).to.deep.equal([ErrorCode.NONE, ErrorCode.NONE]);

      const p0 = { partition: 0, replicas: [2, 3, 1], addingReplicas: [3], removingReplicas: [1] };
      const p1 = { partition: 1, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [] };
      expect(await admin.listPartitionReassignments()).to.deep.equal({ topics: [{ topic: 'held', partitions: [p0, p1] }] });
      expect(await admin.listPartitionReassignments({ topics: [{ topic: 'held', partitions: [1, 5] }] })).to.deep.equal({ topics: [{ topic: 'held', partitions: [p1] }] });
      expect(await admin.listPartitionReassignments({ topics: [{ topic: 'no-such', partitions: [0] }] })).to.deep.equal({ topics: [] });
      const md0 = await partition('held', 0);
      expect(md0).to.include({ leader: 1 });
      expect(md0.replicas).to.deep.equal([2, 3, 1]);
      expect(md0.addingReplicas).to.deep.equal([3]);
      expect(md0.removingReplicas).to.deep.equal([1]);

      // cancelled: back to its replicas; a second cancel finds none
      expect(await admin.alterPartitionReassignments({ topics: [{ topic: 'held', partitionAssignment: [{ partition: 1, replicas: null }] }] })).to.deep.equal([
        { topic: 'held', partition: 1, errorCode: ErrorCode.NONE, errorMessage: null },
      ]);
      expect(await admin.listPartitionReassignments()).to.deep.equal({ topics: [{ topic: 'held', partitions: [p0] }] });
      const md1 = await partition('held', 1);
      expect(md1.replicas).to.deep.equal([1, 2]);
      expect(md1.addingReplicas ?? []).to.deep.equal([]);
      const again = await admin.alterPartitionReassignments({ topics: [{ topic: 'held', partitionAssignment: [{ partition: 1, replicas: null }] }] });
      expect(again[0]!.errorCode).to.equal(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);

      // records still go to the partition in the middle of its move
      await c.client.produce('held', 0, ['during']);

      // fenced now (its session expired), broker 3 is still registered: as in Kafka, a move onto
      // it is taken and waits for it too
      await checkFor(async () => (await admin.describeCluster({ includeFencedBrokers: true })).brokers.find((b) => b.brokerId === 3)?.fenced, 15_000, 50);
      const onFenced = await admin.alterPartitionReassignments({ topics: [{ topic: 'held', partitionAssignment: [{ partition: 1, replicas: [1, 3] }] }] });
      expect(onFenced).to.deep.equal([{ topic: 'held', partition: 1, errorCode: ErrorCode.NONE, errorMessage: null }]);
      expect(await admin.listPartitionReassignments()).to.deep.equal({
        topics: [{ topic: 'held', partitions: [p0, { partition: 1, replicas: [1, 3, 2], addingReplicas: [3], removingReplicas: [2] }] }],
      });
      expect((await partition('held', 0)).leader).to.equal(1);

      await c.startBroker(3);
      restarted = true;
      const done = await settled('held', 0, [2, 3]);
      expect(sorted(done.isr)).to.deep.equal([2, 3]);
      await settled('held', 1, [1, 3]);
      await c.client.waitForLeaders('held');
      expect(await values('held', 0)).to.deep.equal([
        [0, 'x'],
        [1, 'y'],
        [2, 'during'],
      ]);
      expect(await values('held', 1)).to.deep.equal([[0, 'z']]);
      await checkFor(() => !fs.existsSync(path.join(c.logDir(1), 'held-0')) && !fs.existsSync(path.join(c.logDir(2), 'held-1')), 10_000, 20);
    } finally {
      if (!restarted) await c.startBroker(3);
    }
  });
});
