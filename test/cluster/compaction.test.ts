/**
 * Compacted topics on a real cluster (controller + three brokers): the leader refuses keyless
 * records, every replica's cleaner compacts its own log, consumers and a new leader after a
 * failover see the latest value of every key at its original offset, and tombstones end a key.
 */
import { expect } from 'chai';
import type { EachMessagePayload } from '../../src/client/consumer.js';
import type { SamsaError } from '../../src/client/errors.js';
import { OFFSETS_TOPIC, offsetsPartitionFor } from '../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const CLUSTER = fastFailover({
  'log.cleaner.backoff.ms': 100,
  'group.initial.rebalance.delay.ms': 0,
  'group.min.session.timeout.ms': 100,
  'offsets.topic.num.partitions': 3,
  'offsets.topic.segment.bytes': 1024,
});
// small segments so the records of one test span many; any dirty share is worth a pass
const TOPIC = { 'cleanup.policy': 'compact', 'segment.bytes': 1024, 'min.cleanable.dirty.ratio': '0.01', 'delete.retention.ms': 0 };

describe('cluster: compacted topics', function () {
  this.timeout(60_000);
  let c: TestCluster;

  before(async () => {
    c = await TestCluster.start({ brokers: 3, ...CLUSTER });
  });
  after(async () => {
    await c?.stop();
  });

  it('keeps the latest value of each key on every replica, read by consumers and by a new leader', async () => {
    await c.client.createTopic('changelog', 1, 3, TOPIC);
    const producer = c.samsa().producer({ acks: 'all', 'linger.ms': 0 });
    await producer.connect();
    const latest = new Map<string, string>();
    const byOffset = new Map<number, string>();
    const send = async (messages: { key: string; value: string }[]): Promise<void> => {
      const [r] = await producer.send({ topic: 'changelog', messages });
      messages.forEach((m, i) => {
        latest.set(m.key, m.value);
        byOffset.set(r!.baseOffset + i, m.value);
      });
    };
    for (let round = 0; round < 20; round++) await send(Array.from({ length: 10 }, (_, k) => ({ key: `user-${k}`, value: `r${round}-user-${k}` })));
    // the active segment is never compacted: a few more records roll the last full one
    for (let i = 0; i < 3; i++) await send(Array.from({ length: 10 }, (_, j) => ({ key: `filler-${i}-${j}`, value: 'x'.repeat(40) })));
    expect(byOffset.size).to.equal(230);

    const compacted = await checkFor(async () => {
      const recs = await c.client.readAll('changelog', 0);
      return recs.filter((r) => String(r.key).startsWith('user-')).length < 100 ? recs : null;
    }, 20_000, 50);
    // what is left is a subsequence of what was written, offsets unchanged, nothing superseded
    // below the active segment; the latest value of every key is there
    for (const r of compacted) expect(String(r.value)).to.equal(byOffset.get(r.offset));
    const seen = new Map<string, string>();
    for (const r of compacted) seen.set(String(r.key), String(r.value));
    expect(seen).to.deep.equal(latest);

    // a consumer from the beginning sees the same
    const consumer = c.samsa().consumer({ groupId: 'changelog-reader', 'session.timeout.ms': 1_500, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 });
    const got: EachMessagePayload[] = [];
    await consumer.connect();
    await consumer.subscribe({ topics: ['changelog'], fromBeginning: true });
    await consumer.run({ eachMessage: (p) => void got.push(p) });
    const end = compacted[compacted.length - 1]!.offset;
    await checkFor(() => got.some((p) => Number(p.message.offset) === end));
    const consumed = new Map<string, string>();
    for (const p of got) consumed.set(String(p.message.key), String(p.message.value));
    expect(consumed).to.deep.equal(latest);
    expect(got.length).to.be.lessThan(230);
    await consumer.disconnect();

    // the followers compact their own copies: a new leader serves the latest values, compacted
    const before = (await c.client.partition('changelog', 0))!;
    const end2 = end + 1;
    await checkFor(async () => {
      const md = await c.client.metadata();
      for (const id of before.replicas) if ((await c.client.describeReplica(md, id, 'changelog', 0))?.logEndOffset !== end2) return false;
      return true;
    });
    await c.killBroker(before.leader);
    await c.client.waitForLeaderOtherThan('changelog', 0, before.leader, 5_000);
    const fromNewLeader = await checkFor(async () => {
      const recs = await c.client.readAll('changelog', 0);
      return recs.filter((r) => String(r.key).startsWith('user-')).length < 100 ? recs : null;
    }, 20_000, 50);
    const latestThere = new Map<string, string>();
    for (const r of fromNewLeader) latestThere.set(String(r.key), String(r.value));
    expect(latestThere).to.deep.equal(latest);
    await c.startBroker(before.leader);
    await c.client.waitForBrokers(3);
    await producer.disconnect();
  });

  it('refuses a record without a key with INVALID_RECORD, and a tombstone removes its key', async () => {
    await c.client.createTopic('profiles', 1, 3, TOPIC);
    const producer = c.samsa().producer({ acks: 'all', retries: 0 });
    await producer.connect();
    let refused: SamsaError | null = null;
    try {
      await producer.send({ topic: 'profiles', messages: [{ value: 'no key' }] });
    } catch (err) {
      refused = err as SamsaError;
    }
    expect(refused?.errorCode).to.equal(ErrorCode.INVALID_RECORD);
    expect(refused?.message).to.match(/Compacted topic cannot accept message without key/);

    await producer.send({ topic: 'profiles', messages: [{ key: 'alice', value: 'a1' }, { key: 'bob', value: 'b1' }] });
    await producer.send({ topic: 'profiles', messages: [{ key: 'alice', value: null }] });
    for (let i = 0; i < 4; i++) await producer.send({ topic: 'profiles', messages: Array.from({ length: 10 }, (_, j) => ({ key: `pad-${i}-${j}`, value: 'y'.repeat(40) })) });
    // delete.retention.ms is 0: once compacted, alice is gone, tombstone and all
    const recs = await checkFor(
      async () => {
        const all = await c.client.readAll('profiles', 0);
        return all.some((r) => String(r.key) === 'alice') ? null : all;
      },
      20_000,
      50,
    );
    expect(recs.find((r) => String(r.key) === 'bob')!.value!.toString()).to.equal('b1');
    await producer.disconnect();
  });

  it('compacts __consumer_offsets, and a new coordinator replays the latest committed offsets', async () => {
    await c.client.createTopic('tracked', 1, 3);
    const admin = c.samsa().admin();
    await admin.connect();
    for (let i = 1; i <= 60; i++) await admin.resetOffsets({ groupId: 'g-compacted', topic: 'tracked', partitions: [{ partition: 0, offset: i }] });
    const p = offsetsPartitionFor('g-compacted', 3);
    const md = (await c.client.partition(OFFSETS_TOPIC, p))!;
    // 60 commits of one key: the cleaner leaves the active segment's and the newest
    const left = await checkFor(async () => {
      const recs = await c.client.readAll(OFFSETS_TOPIC, p);
      return recs.length > 0 && recs.length < 30 ? recs : null;
    }, 20_000, 50);
    expect(left.length).to.be.lessThan(30);
    await c.killBroker(md.leader);
    await checkFor(async () => {
      const now = await c.client.partition(OFFSETS_TOPIC, p);
      return now !== undefined && now.leader >= 0 && now.leader !== md.leader;
    });
    const offsets = await checkFor(async () => {
      try {
        const r = await admin.fetchOffsets({ groupId: 'g-compacted', topics: ['tracked'] });
        return r[0]?.partitions[0]?.offset === 60 ? r : null;
      } catch {
        return null;
      }
    }, 15_000, 100);
    expect(offsets[0]!.partitions[0]).to.deep.include({ partition: 0, offset: 60 });
    await admin.disconnect();
    await c.startBroker(md.leader);
    await c.client.waitForBrokers(3);
  });
});
