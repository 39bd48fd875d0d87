/**
 * The broker's boundary schema: messages any node (or a client through a listener) can send
 * whose nested fields the handlers walk are refused when those are malformed, instead of
 * crashing the broker (found by test/transport/actor-message-fuzz.test.ts).
 */
import { expect } from 'chai';
import { broker } from '../../../actors/broker/broker.js';
import { validateMessage, type ActorDefinition } from '../../../src/runtime/actor-definition.js';
import type { Message } from '../../../src/runtime/types.js';

const check = (msg: Record<string, unknown>) => validateMessage(broker as unknown as ActorDefinition<unknown, Message, unknown>, msg as unknown as Message);
const marker = { producerId: 7, producerEpoch: 0, coordinatorEpoch: 1, commit: true, topics: [{ name: 't', partitions: [0, 1] }] };
const partition = { topic: 't', topicId: 'id', partition: 0, replicas: [1, 2], isr: [1], leader: 1, leaderEpoch: 3, partitionEpoch: 4, isNew: false, config: {} };

describe('broker: boundary schema', () => {
  it('WriteTxnMarkers: a marker, topic or partition list that is not there is refused', () => {
    expect(check({ type: 'WriteTxnMarkers', markers: [marker] })).to.equal(null);
    expect(check({ type: 'WriteTxnMarkers', markers: [{ ...marker, topics: [{ name: 't', partitions: null }] }] })).to.match(/markers\[0\]\.topics\[0\]\.partitions is required/);
    expect(check({ type: 'WriteTxnMarkers', markers: [null] })).to.match(/markers\[0\] is required/);
  });

  it('PrepareSharePartitions: every topic entry must be one', () => {
    expect(check({ type: 'PrepareSharePartitions', groupId: 'g', topics: [{ topic: 't', topicId: 'id', partitions: [0] }] })).to.equal(null);
    expect(check({ type: 'PrepareSharePartitions', groupId: 'g', topics: [{ topic: 't', topicId: 'id', partitions: [0] }, null] })).to.match(/topics\[1\] is required/);
  });

  it('LogDirFailed: the dir is a string', () => {
    expect(check({ type: 'LogDirFailed', logDir: '/data', reason: 'disk' })).to.equal(null);
    expect(check({ type: 'LogDirFailed', logDir: { node: 'main', path: '/' }, reason: 'x' })).to.match(/logDir must be string/);
  });

  it('LeaderAndIsrRequest: each partition state and live leader is checked', () => {
    const req = { type: 'LeaderAndIsrRequest', controllerEpoch: 1, brokerId: 1, partitions: [partition], liveLeaders: [{ brokerId: 1, node: 'b1' }] };
    expect(check(req)).to.equal(null);
    expect(check({ ...req, partitions: [{ ...partition, isr: 'all' }] })).to.match(/partitions\[0\]\.isr must be array/);
    expect(check({ ...req, partitions: [new Date(0)] })).to.match(/partitions\[0\] must be object/);
    expect(check({ ...req, liveLeaders: [{ brokerId: 1 }] })).to.match(/liveLeaders\[0\]\.node is required/);
  });
});
