/**
 * Stray logs on real clusters (controller + three in-process brokers): a broker that died before
 * the controller noticed misses the StopReplica of a topic deleted or a partition moved away
 * meanwhile; back, it learns from the metadata that it no longer hosts them and sets their files
 * aside as stray (renamed `-stray`, as Kafka does), keeping every log it still hosts.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { ControllerReply } from '../../actors/controller/messages.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

describe('stray logs (inproc brokers)', function () {
  this.timeout(60_000);
  let c: TestCluster;

  afterEach(async () => {
    await c?.stop();
  });

  it('a broker back from a crash sets aside the logs of topics deleted and partitions moved away while it was down, and keeps its own', async () => {
    c = await TestCluster.start({ brokers: 3, transport: 'inproc' });
    await c.client.createTopics([
      { name: 'gone', assignments: [[1, 3]] },
      { name: 'moved', assignments: [[1, 3]] },
      { name: 'kept', assignments: [[1, 3]] },
    ]);
    for (const t of ['gone', 'moved', 'kept']) {
      await c.client.waitForLeaders(t);
      await c.client.produce(t, 0, ['v'], -1);
    }
    const dir = (t: string) => path.join(c.logDir(3), `${t}-0`);
    for (const t of ['gone', 'moved', 'kept']) expect(fs.existsSync(dir(t)), t).to.equal(true);

    await c.killBroker(3);
    // at once, before the controller fences broker 3: what it is told now is lost
    const deleted = await c.system().ask<ControllerReply>(c.client.controller, { type: 'DeleteTopics', topics: ['gone'] }, { timeoutMs: 10_000 });
    expect(!isFailure(deleted) && deleted.type === 'DeleteTopicsResponse' && deleted.topics[0]!.errorCode).to.equal(0);
    const moved = await c.system().ask<ControllerReply>(c.client.controller, { type: 'AlterPartitionReassignments', topics: [{ name: 'moved', partitions: [{ partition: 0, replicas: [1, 2] }] }] }, { timeoutMs: 10_000 });
    expect(!isFailure(moved) && moved.type === 'AlterPartitionReassignmentsResponse' && moved.topics[0]!.partitions[0]!.errorCode).to.equal(0);
    await checkFor(async () => (await c.client.partition('moved', 0))?.replicas.join() === '1,2', 15_000, 20);
    expect((await c.client.metadata()).brokers.find((b) => b.brokerId === 3)?.fenced, 'broker 3 not fenced yet').to.equal(false);

    await c.startBroker(3);
    await checkFor(() => !fs.existsSync(dir('gone')) && !fs.existsSync(dir('moved')), 15_000, 20);
    expect(fs.existsSync(dir('kept'))).to.equal(true);
    // set aside as Kafka does, records and all, for an operator to delete
    const aside = () => fs.readdirSync(c.logDir(3)).filter((n) => n.endsWith('-stray')).sort();
    expect(aside().map((n) => n.replace(/\.[0-9a-f]+-stray$/, ''))).to.deep.equal(['gone-0', 'moved-0']);
    for (const n of aside()) expect(fs.readdirSync(path.join(c.logDir(3), n)).some((f) => f.endsWith('.log')), n).to.equal(true);
    // and never loaded again: a restart leaves them as they are and serves only what it hosts
    const before = aside();
    await c.killBroker(3);
    await c.startBroker(3);
    await c.client.waitForBrokers(3);
    expect(aside()).to.deep.equal(before);
    expect(await c.client.describeReplica(await c.client.metadata(), 3, 'moved', 0)).to.equal(null);
    await checkFor(async () => (await c.client.partition('kept', 0))?.isr.length === 2, 15_000, 20);
    expect((await c.client.readAll('kept', 0)).map((r) => String(r.value))).to.deep.equal(['v']);
  });
});
