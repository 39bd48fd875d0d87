/**
 * The group coordinator's boundary schema: a message any node (or a client through a listener)
 * can send whose lists the handlers walk is refused when an element is malformed, instead of
 * crashing the coordinator (found by test/transport/actor-message-fuzz.test.ts).
 */
import { expect } from 'chai';
import { groupCoordinator } from '../../../actors/group-coordinator/coordinator.js';
import { validateMessage, type ActorDefinition } from '../../../src/runtime/actor-definition.js';
import type { Message } from '../../../src/runtime/types.js';

const check = (msg: Record<string, unknown>) => validateMessage(groupCoordinator as unknown as ActorDefinition<unknown, Message, unknown>, msg as unknown as Message);

describe('actors/group-coordinator: boundary schema', () => {
  it('DescribeGroups, DeleteGroups, ConsumerGroupDescribe, ShareGroupDescribe: every group id is a string', () => {
    for (const type of ['DescribeGroups', 'DeleteGroups', 'ConsumerGroupDescribe', 'ShareGroupDescribe']) {
      expect(check({ type, groups: ['a', 'b'] }), type).to.equal(null);
      expect(check({ type, groups: ['a', { toString: null }] }), type).to.match(/groups\[1\] must be string/);
    }
  });

  it('OffsetCommit and TxnOffsetCommit: each topic and partition down to its offset', () => {
    const commit = { type: 'OffsetCommit', groupId: 'g', generationId: -1, memberId: '', topics: [{ name: 't', partitions: [{ partition: 0, offset: 5, metadata: null }] }] };
    expect(check(commit)).to.equal(null);
    expect(check({ ...commit, topics: [{ name: 't', partitions: [{ partition: 0 }] }] })).to.match(/topics\[0\]\.partitions\[0\]\.offset is required/);
    expect(check({ ...commit, topics: [null] })).to.match(/topics\[0\] is required/);
    const txn = { ...commit, type: 'TxnOffsetCommit', transactionalId: 'x', producerId: 1, producerEpoch: 0 };
    expect(check(txn)).to.equal(null);
    expect(check({ ...txn, topics: [{ name: 7, partitions: [] }] })).to.match(/topics\[0\]\.name must be string/);
  });

  it('JoinGroup, SyncGroup, LeaveGroup, OffsetFetch, OffsetDelete, ListGroups, TopicsDeleted: their lists element by element', () => {
    const join = { type: 'JoinGroup', groupId: 'g', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: new Uint8Array(0) }] };
    expect(check(join)).to.equal(null);
    expect(check({ ...join, protocols: [{ name: 'range', metadata: 'x' }] })).to.match(/protocols\[0\]\.metadata must be bytes/);
    expect(check({ type: 'SyncGroup', groupId: 'g', generationId: 1, memberId: 'm', assignments: [{ memberId: 'm' }] })).to.match(/assignments\[0\]\.assignment is required/);
    expect(check({ type: 'LeaveGroup', groupId: 'g', members: [{ memberId: 3 }] })).to.match(/members\[0\]\.memberId must be string/);
    expect(check({ type: 'OffsetFetch', groupId: 'g', topics: null })).to.equal(null);
    expect(check({ type: 'OffsetFetch', groupId: 'g', topics: [{ name: 't', partitions: ['0'] }] })).to.match(/topics\[0\]\.partitions\[0\] must be integer/);
    expect(check({ type: 'OffsetDelete', groupId: 'g', topics: [{ name: 't' }] })).to.match(/topics\[0\]\.partitions is required/);
    expect(check({ type: 'ListGroups', statesFilter: ['Stable', 1] })).to.match(/statesFilter\[1\] must be string/);
    expect(check({ type: 'TopicsDeleted', topics: [null] })).to.match(/topics\[0\] is required/);
  });

  it('ConsumerGroupHeartbeat and ShareGroupHeartbeat: subscribed topic names are strings, owned partitions by topic id', () => {
    const hb = { type: 'ConsumerGroupHeartbeat', groupId: 'g', memberId: 'm', memberEpoch: 0, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['t'], topicPartitions: [] };
    expect(check(hb)).to.equal(null);
    expect(check({ ...hb, subscribedTopicNames: [{}] })).to.match(/subscribedTopicNames\[0\] must be string/);
    expect(check({ ...hb, topicPartitions: [{ topicId: 'x', partitions: [null] }] })).to.match(/topicPartitions\[0\]\.partitions\[0\] is required/);
    expect(check({ type: 'ShareGroupHeartbeat', groupId: 'g', memberId: 'm', memberEpoch: 0, subscribedTopicNames: [1] })).to.match(/subscribedTopicNames\[0\] must be string/);
  });
});
