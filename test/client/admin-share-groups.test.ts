/**
 * The admin client's share groups (KIP-932) on a real one-broker cluster, as Kafka 4.2's Admin:
 * describeShareGroups, listGroups of type share, listShareGroupOffsets (start offset and lag from
 * the share coordinator's state and the high watermark), alterShareGroupOffsets and
 * deleteShareGroupOffsets (only of an Empty group; the share partition manager forgets what it
 * held, so the next fetch starts where the admin said), deleteShareGroups.
 */
import { expect } from 'chai';
import type { CoordinatorMsg, FindCoordinatorResponse, ShareGroupHeartbeatResponse } from '../../actors/group-coordinator/messages.js';
import { coordinatorPath } from '../../actors/group-coordinator/messages.js';
import { deliveryCompleteCount, sharePartitionLag } from '../../actors/admin/share-group-offsets.js';
import type { BrokerMsg } from '../../actors/broker/messages.js';
import { sharePartitionManagerPath, type ShareAcknowledgeResult, type ShareFetchResult, type ShareManagerMsg, type SharePartitionsDescription } from '../../actors/share-partition/messages.js';
import { AcknowledgeType } from '../../actors/share-partition/share-partition-state.js';
import type { Admin } from '../../src/client/admin.js';
import { SamsaError } from '../../src/client/errors.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { kafkaTopicId } from '../../src/protocol/topic-id.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const { Accept, Release } = AcknowledgeType;

describe('client/admin share groups (KIP-932)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let admin: Admin;
  let topicNo = 0;

  before(async () => {
    c = await TestCluster.start({
      brokers: 1,
      ...fastFailover({
        'share.coordinator.state.topic.num.partitions': 1,
        'share.coordinator.state.topic.replication.factor': 1,
        'offsets.topic.num.partitions': 1,
        'offsets.topic.replication.factor': 1,
      }),
    });
    admin = c.samsa().admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  const manager: ActorRef<ShareManagerMsg> = { node: 'b1', path: sharePartitionManagerPath(1) };
  const broker: ActorRef<BrokerMsg> = { node: 'b1', path: brokerPath(1) };

  async function newTopic(partitions = 1): Promise<{ topic: string; topicId: string }> {
    const topic = `share-admin-${++topicNo}`;
    await c.client.createTopic(topic, partitions, 1);
    await c.client.waitForLeaders(topic);
    const md = await c.client.metadata();
    return { topic, topicId: kafkaTopicId(md.topics.find((t) => t.name === topic)!.topicId) };
  }

  async function coordinator(groupId: string): Promise<ActorRef<CoordinatorMsg>> {
    const found = await checkFor(async () => {
      const r = await c.system().ask<FindCoordinatorResponse>(broker, { type: 'FindCoordinator', key: groupId }, { timeoutMs: 5_000 });
      return !isFailure(r) && r.errorCode === ErrorCode.NONE ? r : null;
    }, 20_000, 50);
    return { node: found.node, path: coordinatorPath(found.brokerId) };
  }

  /** Member `memberId` joins (epoch 0, subscribing to `topics`) or leaves (-1). */
  async function heartbeat(groupId: string, memberId: string, memberEpoch: number, topics: string[] = []): Promise<ShareGroupHeartbeatResponse> {
    return checkFor(async () => {
      const r = await c.system().ask<ShareGroupHeartbeatResponse>(
        await coordinator(groupId),
        { type: 'ShareGroupHeartbeat', groupId, memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? topics : null },
        { timeoutMs: 5_000 },
      );
      return !isFailure(r) && r.errorCode === ErrorCode.NONE ? r : null;
    }, 20_000, 50);
  }

  async function fetch(groupId: string, memberId: string, t: { topic: string; topicId: string }, acks: { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }[] = [], maxWaitMs = 0): Promise<ShareFetchResult> {
    const r = await c.system().ask<ShareFetchResult>(
      manager,
      { type: 'ShareFetch', groupId, memberId, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, partitions: [{ ...t, partition: 0, acknowledgementBatches: acks, fetch: true }] },
      { timeoutMs: 20_000 },
    );
    if (isFailure(r)) throw new Error(r.message);
    expect(r.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
    return r;
  }

  async function acknowledge(groupId: string, memberId: string, t: { topic: string; topicId: string }, acks: { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }[]): Promise<void> {
    const r = await c.system().ask<ShareAcknowledgeResult>(manager, { type: 'ShareAcknowledge', groupId, memberId, partitions: [{ ...t, partition: 0, acknowledgementBatches: acks }] }, { timeoutMs: 20_000 });
    if (isFailure(r)) throw new Error(r.message);
    expect(r.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
  }

  async function heldByManager(groupId: string): Promise<number> {
    const r = await c.system().ask<SharePartitionsDescription>(manager, { type: 'DescribeSharePartitions', groupId }, { timeoutMs: 5_000 });
    if (isFailure(r)) throw new Error(r.message);
    return r.partitions.length;
  }

  async function refused(p: Promise<unknown>): Promise<SamsaError> {
    const e = await p.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).to.be.instanceOf(SamsaError);
    return e as SamsaError;
  }

  /**
   * A group whose member 'a' fetched five records of `t` (0-4), accepted 0, 1 and 3 and released
   * 2 and 4: its start offset is 2, one record above it (3) is done.
   */
  async function groupWithState(groupId: string, t: { topic: string; topicId: string }): Promise<void> {
    await heartbeat(groupId, 'a', 0, [t.topic]);
    await fetch(groupId, 'a', t);
    await c.client.produce(t.topic, 0, ['r0', 'r1', 'r2', 'r3', 'r4']);
    const got = await checkFor(async () => {
      const r = await fetch(groupId, 'a', t, [], 200);
      return r.partitions[0]!.acquiredRecords.length > 0 ? r : null;
    }, 10_000, 50);
    expect(got.partitions[0]!.acquiredRecords).to.deep.equal([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    await acknowledge(groupId, 'a', t, [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [Accept, Accept, Release, Accept, Release] }]);
  }

  it('the lag: high watermark - start offset - what is done at or above it', () => {
    const batches = [
      { firstOffset: 0, lastOffset: 1, deliveryState: 2, deliveryCount: 1 },
      { firstOffset: 2, lastOffset: 2, deliveryState: 0, deliveryCount: 1 },
      { firstOffset: 3, lastOffset: 5, deliveryState: 4, deliveryCount: 5 },
      { firstOffset: 6, lastOffset: 6, deliveryState: 2, deliveryCount: 1 },
    ];
    expect(deliveryCompleteCount(batches, 2, 10)).to.equal(4);
    expect(deliveryCompleteCount(batches, 4, 6)).to.equal(2);
    expect(sharePartitionLag(10, 2, batches)).to.equal(4);
    expect(sharePartitionLag(3, 5, [])).to.equal(0);
  });

  it('describeShareGroups: state, epochs, assignor, each member\'s subscription and assignment, the coordinator; a group not there is GROUP_ID_NOT_FOUND', async () => {
    const t = await newTopic();
    await heartbeat('sg-describe', 'm1', 0, [t.topic]);
    const { groups } = await admin.describeShareGroups(['sg-describe', 'sg-nobody']);
    expect(groups).to.have.length(2);
    const g = groups[0]!;
    expect(g).to.deep.include({ groupId: 'sg-describe', errorCode: ErrorCode.NONE, groupState: 'Stable', assignorName: 'simple', coordinatorId: 1 });
    expect(g.groupEpoch).to.be.above(0);
    expect(g.members).to.have.length(1);
    expect(g.members[0]).to.deep.include({ memberId: 'm1', subscribedTopicNames: [t.topic] });
    expect(groups[1]).to.deep.include({ groupId: 'sg-nobody', errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
    // listGroups of type share finds it (and no other type's group)
    const listed = (await admin.listGroups({ types: ['share'] })).groups;
    expect(listed.find((x) => x.groupId === 'sg-describe')).to.deep.include({ groupType: 'share', state: 'Stable' });
    expect(listed.every((x) => x.groupType === 'share')).to.equal(true);
    expect((await admin.listGroups({ types: ['share'], states: ['empty'] })).groups.some((x) => x.groupId === 'sg-describe')).to.equal(false);
    await heartbeat('sg-describe', 'm1', -1);
  });

  it('listShareGroupOffsets: the start offset and the lag; a partition without state has -1; without topics, those the group uses or has state for', async () => {
    const t = await newTopic();
    const idle = await newTopic();
    await groupWithState('sg-list', t);
    expect(await admin.listShareGroupOffsets({ groupId: 'sg-list', topics: [t.topic, idle.topic] })).to.deep.equal([
      { topic: t.topic, partition: 0, startOffset: 2, leaderEpoch: 0, lag: 2, errorCode: ErrorCode.NONE, errorMessage: null },
      { topic: idle.topic, partition: 0, startOffset: -1, leaderEpoch: -1, lag: -1, errorCode: ErrorCode.NONE, errorMessage: null },
    ].sort((a, b) => (a.topic < b.topic ? -1 : 1)));
    // the subscribed topic, found through the group
    expect((await admin.listShareGroupOffsets({ groupId: 'sg-list' })).map((p) => [p.topic, p.startOffset, p.lag])).to.deep.equal([[t.topic, 2, 2]]);
    // the member gone (the group Empty): the topic found through the share coordinator's states
    await heartbeat('sg-list', 'a', -1);
    expect((await admin.listShareGroupOffsets({ groupId: 'sg-list' })).map((p) => [p.topic, p.startOffset, p.lag])).to.deep.equal([[t.topic, 2, 2]]);
    // more records: more lag
    await c.client.produce(t.topic, 0, ['r5']);
    expect((await admin.listShareGroupOffsets({ groupId: 'sg-list', topics: [t.topic] }))[0]!.lag).to.equal(3);
    expect((await refused(admin.listShareGroupOffsets({ groupId: 'sg-list', topics: ['no-such-topic'] }))).errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(await admin.listShareGroupOffsets({ groupId: 'sg-never' })).to.deep.equal([]);
  });

  it('alterShareGroupOffsets: refused while the group has members; once Empty the next fetch starts at the new offset', async () => {
    const t = await newTopic(2);
    await groupWithState('sg-alter', t);
    const busy = await refused(admin.alterShareGroupOffsets('sg-alter', [{ topic: t.topic, partition: 0, offset: 4 }]));
    expect(busy.errorCode).to.equal(ErrorCode.NON_EMPTY_GROUP);
    expect((await admin.listShareGroupOffsets({ groupId: 'sg-alter', topics: [t.topic] }))[0]!.startOffset).to.equal(2);
    await heartbeat('sg-alter', 'a', -1);
    // both partitions: assigned to the member, their states made by the leader's manager then
    expect(await heldByManager('sg-alter')).to.equal(2);
    const altered = await admin.alterShareGroupOffsets('sg-alter', [
      { topic: t.topic, partition: 0, offset: 4 },
      { topic: t.topic, partition: 7, offset: 0 },
      { topic: 'no-such-topic', partition: 0, offset: 0 },
    ]);
    expect(altered.map((a) => [a.topic, a.partition, a.errorCode])).to.deep.equal([
      [t.topic, 0, ErrorCode.NONE],
      [t.topic, 7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ['no-such-topic', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    // the manager forgot the state it held of partition 0 (partition 1's, made at the assignment, stays); it starts at 4, nothing done above it
    expect(await heldByManager('sg-alter')).to.equal(1);
    const after = await admin.listShareGroupOffsets({ groupId: 'sg-alter', topics: [t.topic] });
    expect(after.map((p) => [p.partition, p.startOffset, p.lag])).to.deep.equal([
      [0, 4, 1],
      [1, 0, 0],
    ]);
    const r = await fetch('sg-alter', 'b', t);
    expect(r.partitions[0]!.acquiredRecords).to.deep.equal([{ firstOffset: 4, lastOffset: 4, deliveryCount: 1 }]);
  });

  it('alterShareGroupOffsets of a group not there yet writes its states; of a consumer group\'s id GROUP_ID_NOT_FOUND', async () => {
    const t = await newTopic();
    await c.client.produce(t.topic, 0, ['x0', 'x1', 'x2']);
    await admin.alterShareGroupOffsets('sg-new', [{ topic: t.topic, partition: 0, offset: 1 }]);
    expect((await admin.listShareGroupOffsets({ groupId: 'sg-new', topics: [t.topic] }))[0]).to.deep.include({ startOffset: 1, lag: 2 });
    // its first member starts there, not at the high watermark
    const r = await fetch('sg-new', 'a', t);
    expect(r.partitions[0]!.acquiredRecords).to.deep.equal([{ firstOffset: 1, lastOffset: 2, deliveryCount: 1 }]);

    await admin.resetOffsets({ groupId: 'classic-offsets', topic: t.topic, earliest: true });
    const e = await refused(admin.alterShareGroupOffsets('classic-offsets', [{ topic: t.topic, partition: 0, offset: 0 }]));
    expect(e.errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(e.message).to.contain('not a share group');
  });

  it('deleteShareGroupOffsets: the group must exist and be Empty; a topic without state is UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const t = await newTopic();
    const idle = await newTopic();
    await groupWithState('sg-delete', t);
    expect((await refused(admin.deleteShareGroupOffsets('sg-delete', [t.topic]))).errorCode).to.equal(ErrorCode.NON_EMPTY_GROUP);
    expect((await refused(admin.deleteShareGroupOffsets('sg-not-there', [t.topic]))).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    await heartbeat('sg-delete', 'a', -1);
    const r = await admin.deleteShareGroupOffsets('sg-delete', [t.topic, idle.topic, 'no-such-topic']);
    expect(r.map((x) => [x.topic, x.errorCode])).to.deep.equal([
      [t.topic, ErrorCode.NONE],
      [idle.topic, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ['no-such-topic', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    expect(r[1]!.errorMessage).to.equal('There is no offset information to delete.');
    expect(await heldByManager('sg-delete')).to.equal(0);
    expect((await admin.listShareGroupOffsets({ groupId: 'sg-delete', topics: [t.topic] }))[0]).to.deep.include({ startOffset: -1, lag: -1 });
    expect(await admin.listShareGroupOffsets({ groupId: 'sg-delete' })).to.deep.equal([]);
  });

  it('deleteShareGroups: an Empty share group goes, its offsets with it; one with members is NON_EMPTY_GROUP', async () => {
    const t = await newTopic();
    await groupWithState('sg-gone', t);
    expect(await admin.deleteShareGroups(['sg-gone'])).to.deep.equal([{ groupId: 'sg-gone', errorCode: ErrorCode.NON_EMPTY_GROUP }]);
    await heartbeat('sg-gone', 'a', -1);
    expect(await admin.deleteShareGroups(['sg-gone'])).to.deep.equal([{ groupId: 'sg-gone', errorCode: ErrorCode.NONE }]);
    expect((await admin.describeShareGroups(['sg-gone'])).groups[0]).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
    await checkFor(async () => (await admin.listShareGroupOffsets({ groupId: 'sg-gone', topics: [t.topic] }))[0]!.startOffset === -1, 10_000, 50);
  });
});
