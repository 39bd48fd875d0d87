/**
 * KIP-1166 in a real cluster (controller + three in-process brokers, a new cluster at
 * metadata.version 4.1-IV1): a record produced with acks=1 and nothing after it. The leader's
 * high watermark moves when the second follower's next fetch arrives; the parked fetch of the
 * other follower (and that follower's next one) carries an older high watermark, so the leader
 * answers them at once instead of at replica.fetch.wait.max.ms. Both followers' high watermarks,
 * and a consumer reading from a follower (KIP-392), catch up well before the fetch wait.
 */
import { expect } from 'chai';
import type { BrokerMsg, FetchResponse } from '../../actors/broker/messages.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FETCH_HIGH_WATERMARK_METADATA_VERSION } from '../../src/protocol/metadata-version.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

/** Long enough that a follower waiting it out is told apart from one answered on the high watermark. */
const FETCH_WAIT_MS = 2_000;

describe('cluster: follower high watermark replication (KIP-1166)', function () {
  this.timeout(60_000);
  let c: TestCluster;

  before(async () => {
    c = await TestCluster.start({ brokers: 3, ...fastFailover({ 'replica.fetch.wait.max.ms': FETCH_WAIT_MS, 'replica.lag.time.max.ms': 30_000 }) });
  });
  after(async () => {
    await c?.stop();
  });

  it('brings both followers (and a consumer reading from one) to the leader high watermark without new records, well before the fetch wait', async () => {
    const md0 = await c.client.metadata();
    expect(md0.features?.levels['metadata.version']).to.equal(FETCH_HIGH_WATERMARK_METADATA_VERSION);
    await c.client.createTopic('hwm', 1, 3);
    const p = (await c.client.partition('hwm', 0))!;
    const followers = p.replicas.filter((id) => id !== p.leader);
    const md = await c.client.metadata();
    // every follower has fetched once and its next fetch is parked at the leader
    await checkFor(async () => {
      for (const id of followers) {
        const d = await c.client.describeReplica(md, id, 'hwm', 0);
        if (!d || d.role !== 'Follower' || d.highWatermark !== 0) return false;
      }
      const leader = await c.client.describeReplica(md, p.leader, 'hwm', 0);
      return leader?.followers.every((f) => f.logEndOffset === 0) ?? false;
    }, 10_000);
    await new Promise((r) => setTimeout(r, 100));

    // a consumer with a rack reads offset 0 from a follower: it waits for that follower's high watermark
    const reader = followers[0]!;
    const started = Date.now();
    const consumerFetch = c.client.system
      .ask<FetchResponse>(
        { node: c.client.nodeOf(md, reader), path: brokerPath(reader) } as ActorRef<BrokerMsg>,
        { type: 'Fetch', replicaId: -1, maxWaitMs: 10_000, minBytes: 1, maxBytes: 1 << 20, clientRack: 'rack-c', partitions: [{ topic: 'hwm', partition: 0, fetchOffset: 0, currentLeaderEpoch: -1, partitionMaxBytes: 1 << 20 }] },
        { timeoutMs: 20_000 },
      )
      .then((r) => ({ r, ms: Date.now() - started }));

    const produced = await c.client.produce('hwm', 0, ['only'], 1);
    expect(produced.baseOffset).to.equal(0);
    const caughtUp = await Promise.all(
      [p.leader, ...followers].map(async (id) => {
        await checkFor(async () => (await c.client.describeReplica(md, id, 'hwm', 0))?.highWatermark === 1, 10_000, 2);
        return Date.now() - started;
      }),
    );
    const { r, ms: consumerMs } = await consumerFetch;
    if (isFailure(r)) throw new Error(`consumer fetch failed: ${r.message}`);
    expect(r.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
    expect(r.partitions[0]!.records.length).to.be.greaterThan(0);
    // before KIP-1166 each follower (and so the consumer) waited out the fetch wait: about 2 s
    for (const ms of caughtUp) expect(ms).to.be.below(FETCH_WAIT_MS / 2);
    expect(consumerMs).to.be.below(FETCH_WAIT_MS / 2);
  });
});
