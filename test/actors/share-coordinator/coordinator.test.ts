/**
 * The share coordinator on a real cluster (controller + three in-process brokers, three
 * __share_group_state partitions): FindCoordinator with key type share creates the topic and
 * names the leader of the key's partition; a write is read back (and is a Kafka ShareSnapshot in
 * the log); leader and state epochs fence; delete and initialize; an unknown key reads
 * uninitialized; a key of a partition led elsewhere is NOT_COORDINATOR; and the state survives
 * its coordinator's broker being killed (the new leader of the partition loads it).
 */
import { expect } from 'chai';
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { FindCoordinatorResponse } from '../../../actors/group-coordinator/messages.js';
import {
  SHARE_GROUP_STATE_TOPIC,
  shareCoordinatorKey,
  shareCoordinatorPath,
  shareStatePartitionFor,
  type DeleteShareGroupStateResult,
  type InitializeShareGroupStateResult,
  type ReadShareGroupStateResult,
  type ReadShareGroupStateSummaryResult,
  type ShareCoordinatorDescription,
  type ShareCoordinatorMsg,
  type ShareStateBatch,
  type ShareStateKey,
  type WriteShareGroupStateResult,
} from '../../../actors/share-coordinator/messages.js';
import { ShareRecordType, decodeShareStateRecord } from '../../../actors/share-coordinator/share-state-records.js';
import { brokerPath } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { isFailure, type ActorRef } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { TestCluster, fastFailover } from '../../helpers/cluster.js';

const STATE_PARTITIONS = 3;
const FAST = fastFailover({ 'share.coordinator.state.topic.num.partitions': STATE_PARTITIONS });
const TOPIC_ID = 'AAECAwQFBgcICQoLDA0ODw';

/** Codes after which a share partition leader finds the coordinator again and retries. */
const RETRY = new Set<number>([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR]);

const b = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number): ShareStateBatch => ({ firstOffset, lastOffset, deliveryState, deliveryCount });
const key = (groupId: string, partition = 0): ShareStateKey => ({ groupId, topicId: TOPIC_ID, partition });

type Request = Extract<ShareCoordinatorMsg, { groupId: string; partition: number }>;

describe('actors/share-coordinator coordinator (in-process cluster)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  const dead = new Set<number>();

  before(async () => {
    c = await TestCluster.start({ brokers: 3, ...FAST });
  });
  after(async () => {
    await c?.stop();
  });

  const brokerRef = (id: number): ActorRef<BrokerMsg> => ({ node: `b${id}`, path: brokerPath(id) });
  const coordinatorRef = (id: number): ActorRef<ShareCoordinatorMsg> => ({ node: `b${id}`, path: shareCoordinatorPath(id) });

  /** The broker coordinating `k`, as a live broker's FindCoordinator (key type share) answers. */
  async function locate(k: ShareStateKey): Promise<number> {
    const live = [1, 2, 3].filter((id) => !dead.has(id));
    const found = await checkFor(
      async () => {
        const via = live[Math.floor(Math.random() * live.length)]!;
        const r = await c.system().ask<FindCoordinatorResponse>(brokerRef(via), { type: 'FindCoordinator', key: shareCoordinatorKey(k), keyType: 'share' }, { timeoutMs: 5_000 });
        if (isFailure(r) || r.errorCode !== ErrorCode.NONE || dead.has(r.brokerId)) return null;
        return r;
      },
      20_000,
      50,
    );
    expect(found.node).to.equal(`b${found.brokerId}`);
    return found.brokerId;
  }

  /** Sends `msg` to the key's coordinator, finding it again while it answers NOT_COORDINATOR, loading or unavailable. */
  async function call<R extends { type: string; errorCode: number }>(msg: Request): Promise<R> {
    return checkFor(
      async () => {
        const at = await locate(key(msg.groupId, msg.partition));
        const r = await c.system().ask<R>(coordinatorRef(at), msg, { timeoutMs: 10_000 });
        if (isFailure(r) || RETRY.has(r.errorCode)) return null;
        return r;
      },
      30_000,
      50,
    );
  }

  const read = (groupId: string, leaderEpoch: number) => call<ReadShareGroupStateResult>({ type: 'ReadShareGroupState', groupId, topicId: TOPIC_ID, partition: 0, leaderEpoch });
  const write = (groupId: string, o: { leaderEpoch?: number; stateEpoch?: number; startOffset?: number; stateBatches?: ShareStateBatch[] }) =>
    call<WriteShareGroupStateResult>({
      type: 'WriteShareGroupState',
      groupId,
      topicId: TOPIC_ID,
      partition: 0,
      leaderEpoch: o.leaderEpoch ?? 0,
      stateEpoch: o.stateEpoch ?? 0,
      startOffset: o.startOffset ?? 0,
      stateBatches: o.stateBatches ?? [],
    });
  const describe = async (id: number) => (await c.system().ask<ShareCoordinatorDescription>(coordinatorRef(id), { type: 'DescribeShareCoordinator' }, { timeoutMs: 5_000 })) as ShareCoordinatorDescription;

  it('FindCoordinator (key type share) creates __share_group_state and names the leader of the key\'s partition; a malformed key is INVALID_REQUEST', async () => {
    const at = await locate(key('g-find'));
    const md = await c.client.metadata();
    const topic = md.topics.find((t) => t.name === SHARE_GROUP_STATE_TOPIC)!;
    expect(topic.internal).to.equal(true);
    expect(topic.partitions).to.have.length(STATE_PARTITIONS);
    expect(topic.config).to.include({ 'cleanup.policy': 'compact' });
    const p = shareStatePartitionFor(shareCoordinatorKey(key('g-find')), STATE_PARTITIONS);
    expect(topic.partitions[p]!.leader).to.equal(at);
    const bad = await c.system().ask<FindCoordinatorResponse>(brokerRef(1), { type: 'FindCoordinator', key: 'g-find:orders:0', keyType: 'share' }, { timeoutMs: 5_000 });
    expect(bad).to.include({ errorCode: ErrorCode.INVALID_REQUEST });
  });

  it('a write is read back, and the log holds it as a Kafka ShareSnapshot; start offset -1 keeps the stored one', async () => {
    expect(await write('g-rw', { leaderEpoch: 1, stateEpoch: 0, startOffset: 10, stateBatches: [b(10, 14, 0, 1), b(15, 19, 2, 1)] })).to.deep.include({ errorCode: ErrorCode.NONE });
    expect(await read('g-rw', 1)).to.deep.include({ errorCode: ErrorCode.NONE, stateEpoch: 0, startOffset: 10, stateBatches: [b(10, 14, 0, 1), b(15, 19, 2, 1)] });

    expect((await write('g-rw', { leaderEpoch: 1, startOffset: -1, stateBatches: [b(10, 14, 2, 1)] })).errorCode).to.equal(ErrorCode.NONE);
    expect(await read('g-rw', 1)).to.deep.include({ startOffset: 10, stateBatches: [b(10, 19, 2, 1)] });

    const p = shareStatePartitionFor(shareCoordinatorKey(key('g-rw')), STATE_PARTITIONS);
    const records = (await c.client.readAll(SHARE_GROUP_STATE_TOPIC, p)).map((r) => decodeShareStateRecord(r.key, r.value)).filter((r) => r?.key.groupId === 'g-rw');
    expect(records).to.have.length(2);
    const last = records[1]!;
    expect(last.type).to.equal(ShareRecordType.Snapshot);
    expect(last.key).to.deep.equal(key('g-rw'));
    expect(last.value).to.deep.include({ snapshotEpoch: 1, stateEpoch: 0, leaderEpoch: 1, startOffset: 10, stateBatches: [b(10, 19, 2, 1)] });
  });

  it('a key never written reads uninitialized: NONE, start offset -1, no batches', async () => {
    expect(await read('g-unknown', -1)).to.deep.include({ errorCode: ErrorCode.NONE, stateEpoch: 0, startOffset: -1, stateBatches: [] });
    const summary = await call<ReadShareGroupStateSummaryResult>({ type: 'ReadShareGroupStateSummary', groupId: 'g-unknown', topicId: TOPIC_ID, partition: 0, leaderEpoch: -1 });
    expect(summary).to.deep.include({ errorCode: ErrorCode.NONE, stateEpoch: 0, startOffset: -1 });
  });

  it('fencing: an older leader epoch is FENCED_LEADER_EPOCH (a newer one read is recorded), an older state epoch FENCED_STATE_EPOCH', async () => {
    expect((await write('g-fence', { leaderEpoch: 5, stateEpoch: 2, stateBatches: [b(0, 4, 0, 1)] })).errorCode).to.equal(ErrorCode.NONE);
    expect((await write('g-fence', { leaderEpoch: 4, stateEpoch: 2 })).errorCode).to.equal(ErrorCode.FENCED_LEADER_EPOCH);
    expect((await read('g-fence', 3)).errorCode).to.equal(ErrorCode.FENCED_LEADER_EPOCH);
    expect((await write('g-fence', { leaderEpoch: 5, stateEpoch: 1 })).errorCode).to.equal(ErrorCode.FENCED_STATE_EPOCH);
    // a read by a newer leader records its epoch: the leader of epoch 5 is fenced from then on
    expect(await read('g-fence', 7)).to.deep.include({ errorCode: ErrorCode.NONE, stateEpoch: 2, startOffset: 0, stateBatches: [b(0, 4, 0, 1)] });
    expect((await write('g-fence', { leaderEpoch: 5, stateEpoch: 2 })).errorCode).to.equal(ErrorCode.FENCED_LEADER_EPOCH);
    const summary = await call<ReadShareGroupStateSummaryResult>({ type: 'ReadShareGroupStateSummary', groupId: 'g-fence', topicId: TOPIC_ID, partition: 0, leaderEpoch: -1 });
    expect(summary).to.deep.include({ errorCode: ErrorCode.NONE, stateEpoch: 2, leaderEpoch: 7, startOffset: 0 });
    // nothing refused was written
    expect(await read('g-fence', 7)).to.deep.include({ stateBatches: [b(0, 4, 0, 1)] });
  });

  it('initialize starts a fresh state (batches cleared) at a state epoch no older than the stored one', async () => {
    expect((await write('g-init', { leaderEpoch: 1, stateEpoch: 3, startOffset: 0, stateBatches: [b(0, 9, 2, 1)] })).errorCode).to.equal(ErrorCode.NONE);
    const init = (stateEpoch: number, startOffset: number) => call<InitializeShareGroupStateResult>({ type: 'InitializeShareGroupState', groupId: 'g-init', topicId: TOPIC_ID, partition: 0, stateEpoch, startOffset });
    expect((await init(2, 50)).errorCode).to.equal(ErrorCode.FENCED_STATE_EPOCH);
    expect((await init(4, 50)).errorCode).to.equal(ErrorCode.NONE);
    expect(await read('g-init', 1)).to.deep.include({ errorCode: ErrorCode.NONE, stateEpoch: 4, startOffset: 50, stateBatches: [] });
    // the leader epoch seen before is kept
    expect((await write('g-init', { leaderEpoch: 0, stateEpoch: 4 })).errorCode).to.equal(ErrorCode.FENCED_LEADER_EPOCH);
  });

  it('delete removes the state (tombstones), and deleting a key without state is NONE', async () => {
    expect((await write('g-del', { leaderEpoch: 2, stateEpoch: 1, startOffset: 3, stateBatches: [b(3, 3, 4, 5)] })).errorCode).to.equal(ErrorCode.NONE);
    const del = () => call<DeleteShareGroupStateResult>({ type: 'DeleteShareGroupState', groupId: 'g-del', topicId: TOPIC_ID, partition: 0 });
    expect((await del()).errorCode).to.equal(ErrorCode.NONE);
    expect(await read('g-del', -1)).to.deep.include({ errorCode: ErrorCode.NONE, startOffset: -1, stateBatches: [] });
    const at = await locate(key('g-del'));
    expect((await describe(at)).states.map((s) => s.groupId)).to.not.include('g-del');
    // an older leader is no longer fenced once the state is gone
    expect((await write('g-del', { leaderEpoch: 0, stateEpoch: 0, startOffset: 0 })).errorCode).to.equal(ErrorCode.NONE);
    expect((await del()).errorCode).to.equal(ErrorCode.NONE);
    expect((await del()).errorCode).to.equal(ErrorCode.NONE);
    const p = shareStatePartitionFor(shareCoordinatorKey(key('g-del')), STATE_PARTITIONS);
    const tail = (await c.client.readAll(SHARE_GROUP_STATE_TOPIC, p)).map((r) => decodeShareStateRecord(r.key, r.value)).filter((r) => r?.key.groupId === 'g-del');
    expect(tail.slice(-2).map((r) => [r!.type, r!.value])).to.deep.equal([
      [ShareRecordType.Snapshot, null],
      [ShareRecordType.Update, null],
    ]);
  });

  it('a key of a partition led by another broker is NOT_COORDINATOR; a malformed key INVALID_REQUEST', async () => {
    const at = await locate(key('g-elsewhere'));
    const other = [1, 2, 3].find((id) => id !== at)!;
    const r = await c.system().ask<ReadShareGroupStateResult>(coordinatorRef(other), { type: 'ReadShareGroupState', groupId: 'g-elsewhere', topicId: TOPIC_ID, partition: 0, leaderEpoch: 0 }, { timeoutMs: 5_000 });
    expect(isFailure(r)).to.equal(false);
    expect(r).to.deep.include({ type: 'ReadShareGroupStateResult', errorCode: ErrorCode.NOT_COORDINATOR, startOffset: -1 });
    const w = await c.system().ask<WriteShareGroupStateResult>(
      coordinatorRef(other),
      { type: 'WriteShareGroupState', groupId: 'g-elsewhere', topicId: TOPIC_ID, partition: 0, leaderEpoch: 0, stateEpoch: 0, startOffset: 0, stateBatches: [] },
      { timeoutMs: 5_000 },
    );
    expect(w).to.deep.include({ errorCode: ErrorCode.NOT_COORDINATOR });
    const bad = await c.system().ask<ReadShareGroupStateResult>(coordinatorRef(at), { type: 'ReadShareGroupState', groupId: 'g-elsewhere', topicId: TOPIC_ID, partition: -1, leaderEpoch: 0 }, { timeoutMs: 5_000 });
    expect(bad).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST });
  });

  it('writes of one key sent together are written one after another, none lost', async () => {
    await write('g-burst', { leaderEpoch: 0, stateEpoch: 0, startOffset: 0 });
    const at = await locate(key('g-burst'));
    const runs = Array.from({ length: 20 }, (_, i) => b(i * 10, i * 10 + 9, (i % 2) * 2, 1));
    const answers = await Promise.all(
      runs.map((run) =>
        c.system().ask<WriteShareGroupStateResult>(
          coordinatorRef(at),
          { type: 'WriteShareGroupState', groupId: 'g-burst', topicId: TOPIC_ID, partition: 0, leaderEpoch: 0, stateEpoch: 0, startOffset: -1, stateBatches: [run] },
          { timeoutMs: 10_000 },
        ),
      ),
    );
    expect(answers.map((r) => (isFailure(r) ? r.message : r.errorCode))).to.deep.equal(runs.map(() => ErrorCode.NONE));
    expect(await read('g-burst', 0)).to.deep.include({ startOffset: 0, stateBatches: runs });
    const d = await describe(at);
    expect(d.pendingAppends).to.equal(0);
    expect(d.states.find((s) => s.groupId === 'g-burst')).to.deep.include({ snapshotEpoch: 20, queued: 0 });
  });

  it('the state survives its coordinator\'s broker being killed: the new leader of the partition loads it and answers', async () => {
    const batches = [b(100, 149, 2, 1), b(150, 150, 0, 3), b(151, 199, 4, 5)];
    expect((await write('g-move', { leaderEpoch: 3, stateEpoch: 1, startOffset: 100, stateBatches: batches })).errorCode).to.equal(ErrorCode.NONE);
    const before = await locate(key('g-move'));
    const p = shareStatePartitionFor(shareCoordinatorKey(key('g-move')), STATE_PARTITIONS);
    dead.add(before);
    await c.killBroker(before);
    const moved = await c.client.waitForLeaderOtherThan(SHARE_GROUP_STATE_TOPIC, p, before, 20_000);
    const after = await locate(key('g-move'));
    expect(after).to.not.equal(before);
    expect(after).to.equal(moved.leader);
    expect(await read('g-move', 3)).to.deep.include({ errorCode: ErrorCode.NONE, stateEpoch: 1, startOffset: 100, stateBatches: batches });
    const d = await describe(after);
    expect(d.partitions.find((x) => x.partition === p)).to.deep.include({ status: 'Active', coordinatorEpoch: moved.leaderEpoch });
    expect(d.states.find((s) => s.groupId === 'g-move')).to.deep.include({ leaderEpoch: 3, stateEpoch: 1, statePartition: p });
    // and the loaded state still fences, and takes writes
    expect((await write('g-move', { leaderEpoch: 2, stateEpoch: 1 })).errorCode).to.equal(ErrorCode.FENCED_LEADER_EPOCH);
    expect((await write('g-move', { leaderEpoch: 4, stateEpoch: 1, startOffset: 150, stateBatches: [] })).errorCode).to.equal(ErrorCode.NONE);
    expect(await read('g-move', 4)).to.deep.include({ startOffset: 150, stateBatches: [b(150, 150, 0, 3), b(151, 199, 4, 5)] });
  });
});
