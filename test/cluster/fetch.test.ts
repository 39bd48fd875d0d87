/**
 * Broker fetch semantics on a real in-process cluster: long-poll (fetch.min.bytes and
 * fetch.max.wait.ms) woken by appends, max.bytes across partitions, per-partition max bytes,
 * and errors per partition.
 */
import { expect } from 'chai';
import type { BrokerDescription, BrokerMsg, FetchPartition, FetchResponse } from '../../actors/broker/messages.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches } from '../../src/protocol/record-batch.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { TestCluster } from '../helpers/cluster.js';

describe('cluster (in-process): fetch', function () {
  this.timeout(30_000);
  let c: TestCluster;
  let leaderRef: ActorRef<BrokerMsg>;

  before(async () => {
    c = await TestCluster.start({ brokers: 1, brokerConfig: { 'broker.heartbeat.interval.ms': 200 } });
    await c.client.createTopic('lp', 3, 1);
    const md = await c.client.metadata();
    leaderRef = { node: c.client.nodeOf(md, 1), path: brokerPath(1) };
  });
  after(async () => {
    await c?.stop();
  });

  const part = (partition: number, fetchOffset: number, partitionMaxBytes = 1 << 20): FetchPartition => ({
    topic: 'lp',
    partition,
    fetchOffset,
    currentLeaderEpoch: -1,
    partitionMaxBytes,
  });
  const fetch = (partitions: FetchPartition[], opts: { minBytes?: number; maxWaitMs?: number; maxBytes?: number } = {}) =>
    c.system().ask<FetchResponse>(
      leaderRef,
      { type: 'Fetch', replicaId: -1, minBytes: opts.minBytes ?? 1, maxWaitMs: opts.maxWaitMs ?? 0, maxBytes: opts.maxBytes ?? 1 << 20, partitions },
      { timeoutMs: 20_000 },
    ) as Promise<FetchResponse>;

  it('waits up to fetch.max.wait.ms when there is nothing to return', async () => {
    const t0 = Date.now();
    const r = await fetch([part(0, 0)], { maxWaitMs: 400 });
    const waited = Date.now() - t0;
    expect(waited).to.be.at.least(380);
    expect(r.partitions[0]).to.deep.include({ errorCode: 0 });
    expect(r.partitions[0]!.records.length).to.equal(0);
  });

  it('answers waiting fetches each at its own fetch.max.wait.ms, whatever order they came in', async () => {
    const t0 = Date.now();
    const done: string[] = [];
    const waitFor = (name: string, maxWaitMs: number) =>
      fetch([part(0, 0)], { maxWaitMs }).then((r) => {
        done.push(name);
        return { r, waited: Date.now() - t0 };
      });
    const long = waitFor('long', 1_200);
    await new Promise((res) => setTimeout(res, 50));
    const short = waitFor('short', 250); // parked after a later deadline: the timer must come sooner
    const middle = waitFor('middle', 600);
    const [l, sh, m] = await Promise.all([long, short, middle]);
    expect(done).to.deep.equal(['short', 'middle', 'long']);
    expect(sh.waited).to.be.at.least(280);
    expect(m.waited).to.be.at.least(630);
    expect(l.waited).to.be.at.least(1_180);
    for (const x of [l, sh, m]) expect(x.r.partitions[0]).to.deep.include({ errorCode: 0 });
  });

  const answeredOnAdvance = async () =>
    ((await c.system().ask<BrokerDescription>(leaderRef, { type: 'DescribeBroker' }, { timeoutMs: 5_000 })) as BrokerDescription).fetchesAnsweredOnAdvance;

  it('answers a waiting fetch as soon as a produce brings the data, from the read the replica did again', async () => {
    const before = await answeredOnAdvance();
    const t0 = Date.now();
    const pending = fetch([part(1, 0), part(2, 0)], { maxWaitMs: 10_000 });
    await new Promise((res) => setTimeout(res, 100));
    await c.client.produce('lp', 2, ['wake'], 1);
    const r = await pending;
    expect(Date.now() - t0).to.be.below(5_000);
    const p2 = r.partitions.find((p) => p.partition === 2)!;
    expect(decodeRecordBatches(p2.records)[0]!.records.map((x) => String(x.value))).to.deep.equal(['wake']);
    expect(p2).to.deep.include({ errorCode: 0, highWatermark: 1, logEndOffset: 1 });
    // the partition that did not move is there as its last read found it
    expect(r.partitions.map((p) => p.partition)).to.deep.equal([1, 2]);
    expect(r.partitions[0]).to.deep.include({ errorCode: 0 });
    expect(r.partitions[0]!.records.length).to.equal(0);
    expect(await answeredOnAdvance()).to.equal(before + 1);
  });

  it('waits for fetch.min.bytes to accumulate', async () => {
    const pending = fetch([part(0, 0)], { maxWaitMs: 10_000, minBytes: 300 });
    let settled = false;
    void pending.then(() => (settled = true));
    await c.client.produce('lp', 0, ['tiny'], 1);
    await new Promise((res) => setTimeout(res, 200));
    expect(settled).to.equal(false);
    await c.client.produce('lp', 0, ['x'.repeat(400)], 1);
    const r = await pending;
    expect(r.partitions[0]!.records.length).to.be.at.least(300);
  });

  it('keeps a response within max.bytes but always returns the first partition with data', async () => {
    await c.client.produce('lp', 1, ['a'.repeat(1000)], 1);
    const r = await fetch([part(0, 0), part(1, 0)], { maxBytes: 10 });
    const sizes = r.partitions.map((p) => p.records.length);
    expect(sizes[0]).to.be.greaterThan(10);
    expect(sizes[1]).to.equal(0);
  });

  it('honours the per-partition maximum (whole batches, at least one)', async () => {
    for (let i = 0; i < 5; i++) await c.client.produce('lp', 1, [`b${i}`.repeat(50)], 1);
    const all = await fetch([part(1, 0)]);
    const small = await fetch([part(1, 0, 200)]);
    expect(decodeRecordBatches(small.partitions[0]!.records).length).to.be.at.least(1);
    expect(small.partitions[0]!.records.length).to.be.below(all.partitions[0]!.records.length);
  });

  it('reports errors per partition: unknown topic, offset out of range', async () => {
    const r = await fetch(
      [
        { ...part(0, 0), topic: 'nope' },
        { ...part(0, 0), fetchOffset: 1_000_000 },
      ],
      { maxWaitMs: 5_000 },
    );
    expect(r.partitions[0]!.errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(r.partitions[1]!.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
  });
});
