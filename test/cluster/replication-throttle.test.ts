/**
 * Replication throttles on a real cluster (controller + two brokers in-process): a partition
 * moved onto a new broker copies no faster than the leader's leader.replication.throttled.rate,
 * or the new replica's follower.replication.throttled.rate, for the replicas the topic's
 * throttled-replicas configs name; it still completes; and a follower in the ISR is never
 * throttled (acks=all writes go on at full speed with a throttle of 1 byte/s on '*').
 *
 * The checks are upper bounds on the bytes on the new replica's disk against the time since the
 * move started (a slow machine only copies less), with the first second's allowance and one fetch
 * of slack; unthrottled, the whole partition copies within the first samples and fails them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ControllerMsg, ControllerReply } from '../../actors/controller/messages.js';
import { isFailure, type Failure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

const FETCH_MAX = 16 * 1024;
const RATE = 150_000;
const RECORD = 'x'.repeat(1000);

describe('replication throttles (in-process brokers)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  afterEach(async () => {
    await c?.stop();
  });

  async function ask(msg: ControllerMsg): Promise<ControllerReply | Failure> {
    return c.system().ask<ControllerReply>(c.client.controller, msg, { timeoutMs: 10_000 });
  }

  /** Bytes of log segments broker `id` holds of thr-0. */
  function bytesOn(id: number): number {
    const dir = path.join(c.logDir(id), 'thr-0');
    if (!fs.existsSync(dir)) return 0;
    return fs.readdirSync(dir).filter((f) => f.endsWith('.log')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
  }

  async function setUp(brokerConfigs: { resource: string; set: Record<string, string> }[], topicConfig: Record<string, string>): Promise<number> {
    c = await TestCluster.start({ brokers: 2, transport: 'inproc', brokerConfig: { 'replica.fetch.max.bytes': FETCH_MAX, 'replica.fetch.wait.max.ms': 100 } });
    const created = await c.client.createTopics([{ name: 'thr', assignments: [[1]] }]);
    expect(created.topics[0]!.errorCode).to.equal(0);
    await c.client.waitForLeaders('thr');
    for (let i = 0; i < 12; i++) await c.client.produce('thr', 0, Array.from({ length: 50 }, () => RECORD), 1);
    const total = bytesOn(1);
    expect(total).to.be.greaterThan(4 * RATE);
    const b = await ask({ type: 'AlterBrokerConfigs', resources: brokerConfigs });
    expect(!isFailure(b) && b.type === 'AlterBrokerConfigsResponse' && b.resources.every((r) => r.errorCode === 0), JSON.stringify(b)).to.equal(true);
    const t = await ask({ type: 'AlterTopicConfigs', topics: [{ name: 'thr', set: topicConfig }] });
    expect(!isFailure(t) && t.type === 'AlterTopicConfigsResponse' && t.topics[0]!.errorCode === 0, JSON.stringify(t)).to.equal(true);
    // the brokers have the throttle once their metadata shows the topic config
    await checkFor(async () => (await c.client.metadata()).topics.find((x) => x.name === 'thr')?.config['leader.replication.throttled.replicas'] !== undefined, 10_000, 20);
    await new Promise((r) => setTimeout(r, 200));
    return total;
  }

  /** Moves thr-0 onto [1, 2] and checks broker 2's copy against the rate until it is complete. */
  async function moveAndCheck(total: number): Promise<void> {
    const started = Date.now();
    const r = await ask({ type: 'AlterPartitionReassignments', topics: [{ name: 'thr', partitions: [{ partition: 0, replicas: [1, 2] }] }] });
    expect(!isFailure(r) && r.type === 'AlterPartitionReassignmentsResponse' && r.topics[0]!.partitions[0]!.errorCode === 0, JSON.stringify(r)).to.equal(true);
    let samples = 0;
    await checkFor(async () => {
      const copied = bytesOn(2);
      const elapsed = (Date.now() - started) / 1000;
      const allowed = RATE * Math.max(elapsed, 1) * 1.25 + 2 * FETCH_MAX;
      expect(copied, `${copied} bytes copied after ${elapsed.toFixed(2)} s (allowed ${Math.round(allowed)})`).to.be.at.most(allowed);
      samples++;
      const p = await c.client.partition('thr', 0);
      return copied >= total && p !== undefined && p.isr.includes(2) && !p.addingReplicas;
    }, 40_000, 50);
    expect(samples, 'the copy was watched while it ran').to.be.greaterThan(5);
  }

  it("a new replica copies no faster than the leader's leader.replication.throttled.rate, and completes", async () => {
    const total = await setUp([{ resource: '1', set: { 'leader.replication.throttled.rate': String(RATE) } }], { 'leader.replication.throttled.replicas': '0:1', 'follower.replication.throttled.replicas': '0:2' });
    await moveAndCheck(total);
  });

  it("a new replica fetches no faster than its broker's follower.replication.throttled.rate, and completes", async () => {
    const total = await setUp([{ resource: '2', set: { 'follower.replication.throttled.rate': String(RATE) } }], { 'leader.replication.throttled.replicas': '0:1', 'follower.replication.throttled.replicas': '0:2' });
    await moveAndCheck(total);
  });

  it('a follower in the ISR is never throttled: acks=all writes go on with a 1 byte/s throttle on every replica', async () => {
    c = await TestCluster.start({ brokers: 2, transport: 'inproc' });
    const created = await c.client.createTopics([{ name: 'isr', assignments: [[1, 2]], config: { 'min.insync.replicas': 2, 'leader.replication.throttled.replicas': '*', 'follower.replication.throttled.replicas': '*' } }]);
    expect(created.topics[0]!.errorCode).to.equal(0);
    await c.client.waitForLeaders('isr');
    await checkFor(async () => (await c.client.partition('isr', 0))?.isr.length === 2, 10_000, 20);
    const b = await ask({ type: 'AlterBrokerConfigs', resources: [{ resource: '', set: { 'leader.replication.throttled.rate': '1', 'follower.replication.throttled.rate': '1' } }] });
    expect(!isFailure(b) && b.type === 'AlterBrokerConfigsResponse' && b.resources[0]!.errorCode === 0).to.equal(true);
    await new Promise((r) => setTimeout(r, 200));
    for (let i = 0; i < 20; i++) await c.client.produce('isr', 0, Array.from({ length: 20 }, () => RECORD), -1);
    expect((await c.client.partition('isr', 0))?.isr.slice().sort()).to.deep.equal([1, 2]);
  });
});
