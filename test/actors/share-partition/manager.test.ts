/**
 * The share partition manager on a real cluster (controller + one in-process broker, its share
 * coordinator and __share_group_state): a share partition starts at the high watermark (latest),
 * records are acquired by one member at a time, acknowledged (Accept, Release, Reject), released
 * when their lock expires or their member goes, archived at the delivery limit; a fetch waits for
 * records; the state survives the broker's restart (it is loaded from the share coordinator).
 */
import { expect } from 'chai';
import type { DescribedSharePartition, ShareAcknowledgeResult, ShareFetchPartition, ShareFetchResult, ShareManagerMsg, SharePartitionsDescription } from '../../../actors/share-partition/messages.js';
import { sharePartitionManagerPath } from '../../../actors/share-partition/messages.js';
import { AcknowledgeType } from '../../../actors/share-partition/share-partition-state.js';
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import { coordinatorPath } from '../../../actors/group-coordinator/messages.js';
import type { CoordinatorMsg, DeleteGroupsResponse, FindCoordinatorResponse, ShareGroupHeartbeatResponse } from '../../../actors/group-coordinator/messages.js';
import { shareCoordinatorKey, shareCoordinatorPath, type ReadShareGroupStateResult } from '../../../actors/share-coordinator/messages.js';
import { brokerPath } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeRecordBatches } from '../../../src/protocol/record-batch.js';
import { kafkaTopicId } from '../../../src/protocol/topic-id.js';
import { isFailure, type ActorRef } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { TestCluster, fastFailover } from '../../helpers/cluster.js';

const LOCK_MS = 1_000;
const LIMIT = 3;

describe('actors/share-partition manager (in-process cluster)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let topicId: string;
  let topicNo = 0;
  let topic = '';

  before(async () => {
    c = await TestCluster.start({
      brokers: 1,
      ...fastFailover({
        'share.coordinator.state.topic.num.partitions': 1,
        'share.coordinator.state.topic.replication.factor': 1,
        'offsets.topic.num.partitions': 1,
        'offsets.topic.replication.factor': 1,
        'group.share.record.lock.duration.ms': LOCK_MS,
        'group.share.min.record.lock.duration.ms': LOCK_MS,
        'group.share.delivery.count.limit': LIMIT,
      }),
    });
  });
  after(async () => {
    await c?.stop();
  });

  beforeEach(async () => {
    topic = `share-${++topicNo}`;
    await c.client.createTopic(topic, 1, 1);
    await c.client.waitForLeaders(topic);
    const md = await c.client.metadata();
    topicId = kafkaTopicId(md.topics.find((t) => t.name === topic)!.topicId);
  });

  const manager = (): ActorRef<ShareManagerMsg> => ({ node: 'b1', path: sharePartitionManagerPath(1) });
  const part = (acks: { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }[] = [], fetch = true): ShareFetchPartition => ({ topic, topicId, partition: 0, acknowledgementBatches: acks, fetch });

  async function fetch(groupId: string, memberId: string, o: { maxWaitMs?: number; maxRecords?: number; acks?: { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }[]; fetch?: boolean } = {}): Promise<ShareFetchResult> {
    const r = await c.system().ask<ShareFetchResult>(
      manager(),
      { type: 'ShareFetch', groupId, memberId, maxWaitMs: o.maxWaitMs ?? 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: o.maxRecords ?? 500, partitions: [part(o.acks ?? [], o.fetch ?? true)] },
      { timeoutMs: 20_000 },
    );
    if (isFailure(r)) throw new Error(r.message);
    return r;
  }

  async function acknowledge(groupId: string, memberId: string, acks: { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }[]): Promise<ShareAcknowledgeResult> {
    const r = await c.system().ask<ShareAcknowledgeResult>(manager(), { type: 'ShareAcknowledge', groupId, memberId, partitions: [{ topic, topicId, partition: 0, acknowledgementBatches: acks }] }, { timeoutMs: 20_000 });
    if (isFailure(r)) throw new Error(r.message);
    return r;
  }

  async function describe(groupId: string): Promise<DescribedSharePartition | undefined> {
    const r = await c.system().ask<SharePartitionsDescription>(manager(), { type: 'DescribeSharePartitions', groupId }, { timeoutMs: 10_000 });
    if (isFailure(r)) throw new Error(r.message);
    return r.partitions.find((p) => p.topic === topic && p.partition === 0);
  }

  const values = (r: ShareFetchResult): string[] => {
    const p = r.partitions[0]!;
    const acquired = (o: number) => p.acquiredRecords.some((a) => a.firstOffset <= o && o <= a.lastOffset);
    return decodeRecordBatches(p.records)
      .flatMap((b) => b.records)
      .filter((rec) => acquired(rec.offset))
      .map((rec) => String(rec.value));
  };
  const ranges = (r: ShareFetchResult) => r.partitions[0]!.acquiredRecords;
  const produce = (...v: string[]) => c.client.produce(topic, 0, v);

  it('starts at the high watermark (share.auto.offset.reset latest): records written before the first fetch are not delivered', async () => {
    await produce('old-1', 'old-2');
    const first = await fetch('g-latest', 'a');
    expect(first.errorCode).to.equal(ErrorCode.NONE);
    expect(first.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
    expect(ranges(first)).to.deep.equal([]);
    expect((await describe('g-latest'))?.startOffset).to.equal(2);
    await produce('new-1', 'new-2');
    const next = await fetch('g-latest', 'a');
    expect(ranges(next)).to.deep.equal([{ firstOffset: 2, lastOffset: 3, deliveryCount: 1 }]);
    expect(values(next)).to.deep.equal(['new-1', 'new-2']);
    expect(next.acquisitionLockTimeoutMs).to.equal(LOCK_MS);
  });

  it('one member at a time: records another holds are not acquired; a Release gives them to the other with their delivery count', async () => {
    await fetch('g-two', 'a');
    await produce('r0', 'r1', 'r2');
    expect(ranges(await fetch('g-two', 'a'))).to.deep.equal([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
    expect(ranges(await fetch('g-two', 'b', { maxWaitMs: 100 }))).to.deep.equal([]);
    const rel = await acknowledge('g-two', 'a', [{ firstOffset: 1, lastOffset: 1, acknowledgeTypes: [AcknowledgeType.Release] }]);
    expect(rel.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
    const b = await fetch('g-two', 'b');
    expect(ranges(b)).to.deep.equal([{ firstOffset: 1, lastOffset: 1, deliveryCount: 2 }]);
    expect(values(b)).to.deep.equal(['r1']);
  });

  it('Accept moves the start offset past what is done; Reject archives; acknowledging records not held is INVALID_RECORD_STATE and changes nothing', async () => {
    await fetch('g-ack', 'a');
    await produce('x0', 'x1', 'x2', 'x3');
    expect(ranges(await fetch('g-ack', 'a'))).to.deep.equal([{ firstOffset: 0, lastOffset: 3, deliveryCount: 1 }]);
    const bad = await acknowledge('g-ack', 'b', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AcknowledgeType.Accept] }]);
    expect(bad.partitions[0]!.errorCode).to.equal(ErrorCode.INVALID_RECORD_STATE);
    // piggybacked on a fetch: 0-1 accepted, 2 rejected
    const r = await fetch('g-ack', 'a', { acks: [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [AcknowledgeType.Accept, AcknowledgeType.Accept, AcknowledgeType.Reject] }] });
    expect(r.partitions[0]!.acknowledgeErrorCode).to.equal(ErrorCode.NONE);
    expect(await describe('g-ack')).to.deep.include({ startOffset: 3, endOffset: 4, acquired: 1, acknowledged: 0, archived: 0 });
    const twice = await acknowledge('g-ack', 'a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AcknowledgeType.Accept] }]);
    expect(twice.partitions[0]!.errorCode).to.equal(ErrorCode.INVALID_RECORD_STATE);
  });

  it('a lock that expires gives the records back; at the delivery limit they are archived instead', async () => {
    await fetch('g-lock', 'a');
    await produce('l0');
    for (let delivery = 1; delivery <= LIMIT; delivery++) {
      const got = await checkFor(async () => {
        const r = await fetch('g-lock', delivery % 2 === 1 ? 'a' : 'b', { maxWaitMs: 200 });
        return ranges(r).length > 0 ? r : null;
      }, 10_000, 50);
      expect(ranges(got)).to.deep.equal([{ firstOffset: 0, lastOffset: 0, deliveryCount: delivery }]);
    }
    // the third lock expires at the limit: archived, the start offset moves past it
    await checkFor(async () => (await describe('g-lock'))?.startOffset === 1, 10_000, 50);
    expect(ranges(await fetch('g-lock', 'a', { maxWaitMs: 100 }))).to.deep.equal([]);
  });

  it('a fetch waits for records (up to maxWaitMs) and answers once they are written', async () => {
    await fetch('g-wait', 'a');
    const started = Date.now();
    const waiting = fetch('g-wait', 'a', { maxWaitMs: 10_000 });
    await new Promise((r) => setTimeout(r, 200));
    await produce('w0');
    const r = await waiting;
    expect(ranges(r)).to.deep.equal([{ firstOffset: 0, lastOffset: 0, deliveryCount: 1 }]);
    expect(Date.now() - started).to.be.below(8_000);
  });

  it('a fetch waiting at the log end gets records another member releases meanwhile, without waiting out its long poll', async () => {
    await fetch('g-wake', 'a');
    await produce('k0', 'k1', 'k2');
    expect(ranges(await fetch('g-wake', 'a'))).to.deep.equal([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
    // b waits for records past the log end (the broker's long poll)
    const waiting = fetch('g-wake', 'b', { maxWaitMs: 5_000 });
    await new Promise((r) => setTimeout(r, 100));
    const rel = await acknowledge('g-wake', 'a', [{ firstOffset: 1, lastOffset: 1, acknowledgeTypes: [AcknowledgeType.Release] }]);
    expect(rel.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
    // answered with the released record (a long poll run out would answer nothing: its read was at the log end)
    const b = await waiting;
    expect(ranges(b)).to.deep.equal([{ firstOffset: 1, lastOffset: 1, deliveryCount: 2 }]);
    expect(values(b)).to.deep.equal(['k1']);
    // records written later are still read from the log end
    const next = fetch('g-wake', 'b', { maxWaitMs: 5_000 });
    await new Promise((r) => setTimeout(r, 100));
    await produce('k3');
    expect(ranges(await next)).to.deep.equal([{ firstOffset: 3, lastOffset: 3, deliveryCount: 1 }]);
  });

  it('a fetch waiting at the log end gets the records of a member gone meanwhile', async () => {
    await fetch('g-wake-gone', 'a');
    await produce('q0', 'q1');
    expect(ranges(await fetch('g-wake-gone', 'a'))).to.have.length(1);
    const waiting = fetch('g-wake-gone', 'b', { maxWaitMs: 5_000 });
    await new Promise((r) => setTimeout(r, 100));
    c.system().send(manager(), { type: 'ShareMemberGone', groupId: 'g-wake-gone', memberId: 'a' });
    expect(ranges(await waiting)).to.deep.equal([{ firstOffset: 0, lastOffset: 1, deliveryCount: 2 }]);
  });

  it('share.version 0: fetches and acknowledgements are UNSUPPORTED_VERSION and the states held are dropped; back at 1 they load from the share coordinator as written', async () => {
    await fetch('g-off', 'a');
    await produce('o0', 'o1', 'o2');
    expect(ranges(await fetch('g-off', 'a'))).to.deep.equal([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
    await acknowledge('g-off', 'a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AcknowledgeType.Accept] }]);
    // b waits for records while share groups are turned off: it ends, with nothing
    const waiting = fetch('g-off', 'b', { maxWaitMs: 10_000 });
    await new Promise((r) => setTimeout(r, 100));
    c.system().send(manager(), { type: 'ShareVersionChanged', level: 0 });
    expect(ranges(await waiting)).to.deep.equal([]);
    const off = await fetch('g-off', 'a');
    expect(off).to.deep.include({ errorCode: ErrorCode.UNSUPPORTED_VERSION, partitions: [] });
    expect(off.errorMessage).to.match(/share\.version is 0/);
    expect((await acknowledge('g-off', 'a', [{ firstOffset: 1, lastOffset: 1, acknowledgeTypes: [AcknowledgeType.Accept] }])).errorCode).to.equal(ErrorCode.UNSUPPORTED_VERSION);
    expect(await describe('g-off')).to.equal(undefined);
    c.system().send(manager(), { type: 'ShareVersionChanged', level: 1 });
    // loaded again as written at the acceptance: 0 done; 1 and 2 delivered once (the acceptance's write held them), so now twice
    const again = await fetch('g-off', 'b');
    expect(again.errorCode).to.equal(ErrorCode.NONE);
    expect(ranges(again)).to.deep.equal([{ firstOffset: 1, lastOffset: 2, deliveryCount: 2 }]);
    expect(await describe('g-off')).to.deep.include({ startOffset: 1 });
  });

  it('a member gone (its share session ended) releases what it holds', async () => {
    await fetch('g-gone', 'a');
    await produce('m0', 'm1');
    expect(ranges(await fetch('g-gone', 'a'))).to.have.length(1);
    c.system().send(manager(), { type: 'ShareMemberGone', groupId: 'g-gone', memberId: 'a' });
    const b = await checkFor(async () => {
      const r = await fetch('g-gone', 'b', { maxWaitMs: 100 });
      return ranges(r).length > 0 ? r : null;
    }, 10_000, 50);
    expect(ranges(b)).to.deep.equal([{ firstOffset: 0, lastOffset: 1, deliveryCount: 2 }]);
  });

  it('maxRecords bounds what one fetch acquires', async () => {
    await fetch('g-max', 'a');
    await produce('n0', 'n1', 'n2', 'n3', 'n4');
    expect(ranges(await fetch('g-max', 'a', { maxRecords: 2 }))).to.deep.equal([{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }]);
    expect(ranges(await fetch('g-max', 'b', { maxRecords: 2 }))).to.deep.equal([{ firstOffset: 2, lastOffset: 3, deliveryCount: 1 }]);
  });

  it('a partition this broker has no replica of is NOT_LEADER_OR_FOLLOWER', async () => {
    const r = await c.system().ask<ShareFetchResult>(
      manager(),
      { type: 'ShareFetch', groupId: 'g-none', memberId: 'a', maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 10, partitions: [{ topic, topicId, partition: 7, acknowledgementBatches: [], fetch: true }] },
      { timeoutMs: 20_000 },
    );
    if (isFailure(r)) throw new Error(r.message);
    expect(r.partitions[0]!.errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  });

  it('the state survives the broker restarting: what was accepted stays done, what was held is delivered again', async () => {
    await fetch('g-durable', 'a');
    await produce('d0', 'd1', 'd2');
    expect(ranges(await fetch('g-durable', 'a'))).to.deep.equal([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
    await acknowledge('g-durable', 'a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AcknowledgeType.Accept] }]);
    await c.killBroker(1);
    await c.startBroker(1);
    await c.client.waitForLeaders(topic);
    const again = await checkFor(async () => {
      const r = await fetch('g-durable', 'b', { maxWaitMs: 200 });
      return r.partitions[0]!.errorCode === ErrorCode.NONE && ranges(r).length > 0 ? r : null;
    }, 30_000, 100);
    // 0 was accepted; 1-2 were only acquired (not written), so they come again
    expect(ranges(again)[0]!.firstOffset).to.equal(1);
    expect(ranges(again).at(-1)!.lastOffset).to.equal(2);
    expect(values(again)).to.deep.equal(['d1', 'd2']);
  });

  it('a record held at the delivery limit when the broker restarts is archived, never delivered above the limit', async () => {
    await fetch('g-exhausted', 'a');
    await produce('e0', 'e1');
    // e0 delivered LIMIT times (released below the limit), the last time still held by a
    for (let delivery = 1; delivery <= LIMIT; delivery++) {
      expect(ranges(await fetch('g-exhausted', 'a', { maxRecords: 1 }))).to.deep.equal([{ firstOffset: 0, lastOffset: 0, deliveryCount: delivery }]);
      if (delivery < LIMIT) await acknowledge('g-exhausted', 'a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [AcknowledgeType.Release] }]);
    }
    // b accepts e1: the state written holds e0 as Available with its LIMIT deliveries
    expect(ranges(await fetch('g-exhausted', 'b', { maxRecords: 1 }))).to.deep.equal([{ firstOffset: 1, lastOffset: 1, deliveryCount: 1 }]);
    expect((await acknowledge('g-exhausted', 'b', [{ firstOffset: 1, lastOffset: 1, acknowledgeTypes: [AcknowledgeType.Accept] }])).partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
    await c.killBroker(1);
    await c.startBroker(1);
    await c.client.waitForLeaders(topic);
    // the held delivery's outcome went with the broker: it counts as a lock run out at the limit
    const after = await checkFor(async () => {
      const r = await fetch('g-exhausted', 'c', { maxWaitMs: 200 }).catch(() => null);
      return r && r.partitions[0]!.errorCode === ErrorCode.NONE ? r : null;
    }, 30_000, 100);
    expect(ranges(after), 'delivered again after the restart').to.deep.equal([]);
    expect(await describe('g-exhausted')).to.deep.include({ startOffset: 2, endOffset: 2, acquired: 0 });
    // and written: the share coordinator's start offset is past it too
    const broker: ActorRef<BrokerMsg> = { node: 'b1', path: brokerPath(1) };
    const stateKey = shareCoordinatorKey({ groupId: 'g-exhausted', topicId, partition: 0 });
    await checkFor(async () => {
      const at = await c.system().ask<FindCoordinatorResponse>(broker, { type: 'FindCoordinator', key: stateKey, keyType: 'share' }, { timeoutMs: 5_000 });
      if (isFailure(at) || at.errorCode !== ErrorCode.NONE) return null;
      const r = await c.system().ask<ReadShareGroupStateResult>({ node: at.node, path: shareCoordinatorPath(at.brokerId) }, { type: 'ReadShareGroupState', groupId: 'g-exhausted', topicId, partition: 0, leaderEpoch: -1 }, { timeoutMs: 5_000 });
      return !isFailure(r) && r.errorCode === ErrorCode.NONE && r.startOffset === 2;
    }, 10_000, 50);
    await produce('e2');
    expect(ranges(await fetch('g-exhausted', 'c', { maxWaitMs: 2_000 }))).to.deep.equal([{ firstOffset: 2, lastOffset: 2, deliveryCount: 1 }]);
  });

  const broker: ActorRef<BrokerMsg> = { node: 'b1', path: brokerPath(1) };
  /** The group's coordinator, as broker 1 finds it. */
  const coordinator = async (groupId: string): Promise<ActorRef<CoordinatorMsg>> => {
    const found = await checkFor(async () => {
      const r = await c.system().ask<FindCoordinatorResponse>(broker, { type: 'FindCoordinator', key: groupId }, { timeoutMs: 5_000 });
      return !isFailure(r) && r.errorCode === ErrorCode.NONE ? r : null;
    }, 20_000, 50);
    return { node: found.node, path: coordinatorPath(found.brokerId) };
  };
  /** Member 'a' of the group joins (epoch 0, subscribed to this test's topic) or leaves (-1). */
  const heartbeat = async (groupId: string, memberEpoch: number): Promise<ShareGroupHeartbeatResponse> =>
    checkFor(async () => {
      const r = await c.system().ask<ShareGroupHeartbeatResponse>(await coordinator(groupId), { type: 'ShareGroupHeartbeat', groupId, memberId: 'a', memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? [topic] : null }, { timeoutMs: 5_000 });
      return !isFailure(r) && r.errorCode === ErrorCode.NONE ? r : null;
    }, 20_000, 50);

  it('a partition\'s state is made when a member is first assigned it: what is written between the assignment and its first fetch is delivered', async () => {
    const joined = await heartbeat('g-assigned', 0);
    expect(joined.assignment).to.deep.equal([{ topicId, partitions: [0] }]);
    // the leader's manager holds the group's state of the partition before any fetch
    expect(await checkFor(async () => (await describe('g-assigned')) ?? null, 10_000, 20)).to.deep.include({ startOffset: 0, endOffset: 0 });
    await produce('between-0', 'between-1');
    const r = await fetch('g-assigned', 'a');
    expect(ranges(r)).to.deep.equal([{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }]);
    expect(values(r)).to.deep.equal(['between-0', 'between-1']);
    await heartbeat('g-assigned', -1);
  });

  it('deleting the share group removes its partitions\' states from the share coordinator and the manager', async () => {
    expect((await heartbeat('g-del', 0)).memberEpoch).to.be.above(0);
    await fetch('g-del', 'a');
    await produce('del0', 'del1');
    expect(ranges(await fetch('g-del', 'a'))).to.have.length(1);
    await acknowledge('g-del', 'a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [AcknowledgeType.Accept] }]);
    expect((await describe('g-del'))?.startOffset).to.equal(2);
    expect((await heartbeat('g-del', -1)).memberEpoch).to.equal(-1);
    const deleted = await c.system().ask<DeleteGroupsResponse>(await coordinator('g-del'), { type: 'DeleteGroups', groups: ['g-del'] }, { timeoutMs: 10_000 });
    if (isFailure(deleted)) throw new Error(deleted.message);
    expect(deleted.groups).to.deep.equal([{ groupId: 'g-del', errorCode: ErrorCode.NONE }]);
    await checkFor(async () => (await describe('g-del')) === undefined, 10_000, 50);
    const stateKey = shareCoordinatorKey({ groupId: 'g-del', topicId, partition: 0 });
    const state = await checkFor(async () => {
      const at = await c.system().ask<FindCoordinatorResponse>(broker, { type: 'FindCoordinator', key: stateKey, keyType: 'share' }, { timeoutMs: 5_000 });
      if (isFailure(at) || at.errorCode !== ErrorCode.NONE) return null;
      const r = await c.system().ask<ReadShareGroupStateResult>({ node: at.node, path: shareCoordinatorPath(at.brokerId) }, { type: 'ReadShareGroupState', groupId: 'g-del', topicId, partition: 0, leaderEpoch: -1 }, { timeoutMs: 5_000 });
      return !isFailure(r) && r.errorCode === ErrorCode.NONE && r.startOffset === -1 ? r : null;
    }, 10_000, 50);
    expect(state.stateBatches).to.deep.equal([]);
  });
});
