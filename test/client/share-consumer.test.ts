/**
 * samsa's share consumer (KIP-932, Kafka's KafkaShareConsumer) end to end on real in-process
 * clusters: records produced after a member's first fetch reach it (implicit acknowledgement);
 * two members of a group split a one-partition topic as a queue (no record to both, together
 * all); explicit acknowledgement (a released record comes again with delivery count 2, a
 * rejected one never, a poll with records not acknowledged throws); close gives what a member
 * holds to the other; commitSync reports each partition's outcome; with three brokers a member
 * reads from every partition's leader; metrics() counts what it read, fetched and acknowledged,
 * its heartbeats, its rebalance and its polls.
 */
import { expect } from 'chai';
import { ShareConsumerConfigError } from '../../actors/share-consumer/share-consumer-config.js';
import { coordinatorPath, type FindCoordinatorResponse, type ShareGroupDescribeResponse } from '../../actors/group-coordinator/messages.js';
import type { ShareManagerMsg, SharePartitionsDescription } from '../../actors/share-partition/messages.js';
import { sharePartitionManagerPath } from '../../actors/share-partition/messages.js';
import { SamsaError } from '../../src/client/errors.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { AcknowledgeType, IllegalStateError, type ShareAcknowledgementResult, type ShareRecord } from '../../src/client/share-consumer.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';
import { produceValues } from '../helpers/group-records.js';
import { TxnWriter } from '../helpers/txn-writer.js';
import { oneBrokerShareFixture, pollUntil, values } from '../helpers/share-consumers.js';

const SHARE_BROKER_CONFIG = {
  'share.coordinator.state.topic.num.partitions': 1,
  'offsets.topic.num.partitions': 1,
  'group.share.record.lock.duration.ms': 15_000,
};

describe('client/share consumer (KIP-932)', function () {
  this.timeout(60_000);

  describe('one broker', () => {
    const f = oneBrokerShareFixture('queue', SHARE_BROKER_CONFIG);
    const { consumer, start, sharePartition } = f;
    let c: TestCluster;
    let samsa: SamsaClient;
    let topic = '';
    beforeEach(() => {
      ({ c, samsa, topic } = f);
    });

    it('receives what is produced after its first poll, accepting it implicitly with the next poll', async () => {
      const sc = consumer('g-implicit');
      expect(sc.acknowledgementMode).to.equal('implicit');
      await produceValues(samsa, topic, ['before-1', 'before-2']);
      await start(sc);
      await produceValues(samsa, topic, ['a', 'b', 'c']);
      const got = await pollUntil(sc, (all) => all.length >= 3);
      expect(values(got)).to.deep.equal(['a', 'b', 'c']);
      expect(got.map((r) => r.offset)).to.deep.equal([2, 3, 4]);
      expect(got.every((r) => r.topic === topic && r.partition === 0 && r.deliveryCount === 1)).to.equal(true);
      expect(sc.acquisitionLockTimeoutMs()).to.equal(15_000);
      expect((await sharePartition('g-implicit'))?.acquired).to.equal(3);
      // the next poll accepts them: the group is done with them, nothing comes again
      expect(await sc.poll(300)).to.deep.equal([]);
      await checkFor(async () => (await sharePartition('g-implicit'))?.startOffset === 5, 10_000, 50);
      expect(await pollUntil(sc, () => false, 1_000)).to.deep.equal([]);
      const d = await sc.describe();
      expect(d).to.deep.include({ phase: 'Stable', memberId: sc.memberId, subscription: [topic], fetchedFrom: [1] });
      expect(d.memberEpoch).to.be.greaterThan(0);
      expect(d.assignment.map((a) => `${a.topic}-${a.partition}`)).to.deep.equal([`${topic}-0`]);
    });

    it("with the group's share.auto.offset.reset earliest, what was written before the first fetch is delivered too", async () => {
      await produceValues(samsa, topic, ['old-0', 'old-1']);
      const admin = samsa.admin();
      await admin.connect();
      try {
        const [res] = await admin.alterGroupConfigs([{ group: 'g-earliest', set: { 'share.auto.offset.reset': 'earliest' } }]);
        expect(res).to.deep.include({ group: 'g-earliest', errorCode: ErrorCode.NONE });
      } finally {
        await admin.disconnect();
      }
      // the broker has the group's config (its share partition manager is told with the same metadata)
      await checkFor(async () => {
        const r = await c.client.brokerMetadata(1, 'b1');
        return !isFailure(r) && r.metadata?.groupConfigs?.['g-earliest']?.['share.auto.offset.reset'] === 'earliest';
      }, 10_000, 20);
      const sc = consumer('g-earliest');
      await sc.subscribe([topic]);
      expect(values(await pollUntil(sc, (all) => all.length >= 2))).to.deep.equal(['old-0', 'old-1']);
    });

    it('two members of a group share one partition as a queue: no record reaches both, together they get all', async () => {
      const a = consumer('g-queue', { 'max.poll.records': 2 });
      const b = consumer('g-queue', { 'max.poll.records': 2 });
      await start(a);
      await start(b);
      expect(a.memberId).to.not.equal(b.memberId);
      const sent = Array.from({ length: 30 }, (_, i) => `q${i}`);
      for (let i = 0; i < sent.length; i += 3) await produceValues(samsa, topic, sent.slice(i, i + 3));
      const gotA: ShareRecord[] = [];
      const gotB: ShareRecord[] = [];
      const total = () => gotA.length + gotB.length;
      await Promise.all([pollUntil(a, () => total() >= sent.length, 20_000, (r) => gotA.push(...r)), pollUntil(b, () => total() >= sent.length, 20_000, (r) => gotB.push(...r))]);
      expect(gotA.length, 'member a got records').to.be.greaterThan(0);
      expect(gotB.length, 'member b got records').to.be.greaterThan(0);
      const offsetsA = new Set(gotA.map((r) => r.offset));
      expect(gotB.filter((r) => offsetsA.has(r.offset)).map((r) => r.offset), 'records delivered to both').to.deep.equal([]);
      expect([...values(gotA), ...values(gotB)].sort()).to.deep.equal([...sent].sort());
      expect([...gotA, ...gotB].every((r) => r.deliveryCount === 1)).to.equal(true);
    });

    it('explicit acknowledgement: a released record is delivered again with delivery count 2, a rejected one never', async () => {
      const sc = consumer('g-explicit', { 'share.acknowledgement.mode': 'explicit' });
      expect(sc.acknowledgementMode).to.equal('explicit');
      await start(sc);
      await produceValues(samsa, topic, ['keep', 'again', 'bad']);
      const decide: Record<string, 'accept' | 'release' | 'reject'> = { keep: 'accept', again: 'release', bad: 'reject' };
      const first = await pollUntil(sc, (all) => all.length >= 3, 15_000, (records) => {
        for (const r of records) sc.acknowledge(r, decide[String(r.value)]);
      });
      expect(values(first)).to.deep.equal(['keep', 'again', 'bad']);
      const second = await pollUntil(sc, (all) => all.length >= 1, 15_000, (records) => {
        for (const r of records) sc.acknowledge(r, AcknowledgeType.Accept);
      });
      expect(second.map((r) => [String(r.value), r.offset, r.deliveryCount])).to.deep.equal([['again', 1, 2]]);
      // the rejected one is archived: nothing more comes, and the group is done with all three
      expect(await pollUntil(sc, () => false, 1_500)).to.deep.equal([]);
      expect(await sharePartition('g-explicit')).to.deep.include({ startOffset: 3, acquired: 0 });
    });

    it('explicit acknowledgement: a poll with records of the last poll not acknowledged throws; they may still be acknowledged', async () => {
      const sc = consumer('g-unacked', { acknowledgementMode: 'explicit' });
      await start(sc);
      await produceValues(samsa, topic, ['u0', 'u1']);
      const got = await pollUntil(sc, (all) => all.length > 0);
      expect(values(got)).to.deep.equal(['u0', 'u1']);
      sc.acknowledge(got[0]!);
      let err: unknown = null;
      await sc.poll(100).catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(IllegalStateError);
      expect((err as Error).message).to.match(/must be acknowledged/);
      // u0's acknowledgement went; it cannot be made twice
      expect(() => sc.acknowledge(got[0]!)).to.throw(IllegalStateError);
      expect(() => sc.acknowledge({ topic, partition: 0, offset: 99 })).to.throw(IllegalStateError);
      expect(() => sc.acknowledge(got[1]!, 'gap' as never)).to.throw(TypeError);
      expect(() => sc.acknowledge(got[1]!, AcknowledgeType.Gap as never)).to.throw(TypeError);
      sc.acknowledge(got[1]!, 'accept');
      expect(await sc.poll(100)).to.deep.equal([]);
      await checkFor(async () => (await sharePartition('g-unacked'))?.startOffset === 2, 10_000, 50);
    });

    it('misuse is refused: acknowledge in implicit mode, poll without a subscription, bad configs, use after close', async () => {
      const sc = consumer('g-misuse');
      expect(() => sc.acknowledge({ topic, partition: 0, offset: 0 })).to.throw(IllegalStateError, /Implicit acknowledgement/);
      let err: unknown = null;
      await sc.poll(10).catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(IllegalStateError);
      expect(() => samsa.shareConsumer({})).to.throw(ShareConsumerConfigError, /group.id/);
      expect(() => samsa.shareConsumer({ groupId: 'g', acknowledgementMode: 'sometimes' as never })).to.throw(ShareConsumerConfigError, /share.acknowledgement.mode/);
      expect(() => samsa.shareConsumer({ groupId: 'g', 'max.poll.records': 0 })).to.throw(ShareConsumerConfigError, /max.poll.records/);
      expect(() => samsa.shareConsumer({ groupId: 'g', 'session.timeout.ms': 10 })).to.throw(ShareConsumerConfigError, /unknown/);
      await sc.subscribe([topic]);
      expect(sc.subscription()).to.deep.equal([topic]);
      await sc.close();
      let closed: unknown = null;
      await sc.poll(10).catch((e: unknown) => (closed = e));
      expect(closed).to.be.instanceOf(IllegalStateError);
    });

    it('close gives the records it holds back to the group: the other member gets them (delivery count 2), and the group has it no more', async () => {
      const a = consumer('g-close');
      await start(a);
      await produceValues(samsa, topic, ['h0', 'h1', 'h2']);
      const held = await pollUntil(a, (all) => all.length >= 3);
      expect(values(held)).to.deep.equal(['h0', 'h1', 'h2']);
      const b = consumer('g-close');
      await start(b);
      // a holds them (implicit mode accepts them only with its next poll or commit)
      expect(await pollUntil(b, () => false, 600)).to.deep.equal([]);
      const closing = Date.now();
      await a.close();
      // well within the 15 s lock: only the release on close can have given them back
      const got = await pollUntil(b, (all) => all.length >= 3, 8_000);
      expect(Date.now() - closing).to.be.below(8_000);
      expect(got.map((r) => [String(r.value), r.deliveryCount])).to.deep.equal([
        ['h0', 2],
        ['h1', 2],
        ['h2', 2],
      ]);
      const r = await c.system().ask<ShareGroupDescribeResponse>({ node: 'b1', path: coordinatorPath(1) }, { type: 'ShareGroupDescribe', groups: ['g-close'] }, { timeoutMs: 5_000 });
      if (isFailure(r)) throw new Error(r.message);
      expect(r.groups[0]!.members.map((m) => m.memberId)).to.deep.equal([b.memberId]);
    });

    it('commitSync sends the acknowledgements and reports each partition: applied, or refused when the records are no longer held', async () => {
      const sc = consumer('g-commit', { acknowledgementMode: 'explicit' });
      const seen: ShareAcknowledgementResult[] = [];
      sc.setAcknowledgementCommitCallback((res) => seen.push(res));
      await start(sc);
      expect(await sc.commitSync()).to.deep.equal([]);
      await produceValues(samsa, topic, ['c0', 'c1', 'c2']);
      const got = await pollUntil(sc, (all) => all.length >= 3, 15_000, (records) => {
        for (const r of records) sc.acknowledge(r, r.offset === 2 ? 'reject' : 'accept');
      });
      expect(got).to.have.length(3);
      const ok = await sc.commitSync();
      expect(ok.map((r) => ({ topic: r.topic, partition: r.partition, offsets: r.offsets, error: r.error }))).to.deep.equal([{ topic, partition: 0, offsets: [0, 1, 2], error: null }]);
      expect(ok[0]!.topicId).to.be.a('string').with.length(22);
      expect(seen.some((s) => s.offsets.includes(2) && s.error === null)).to.equal(true);
      expect(await sharePartition('g-commit')).to.deep.include({ startOffset: 3, acquired: 0 });

      // the member's records go back behind its back (as when its session ends): acknowledging them then fails
      await produceValues(samsa, topic, ['c3', 'c4']);
      const more = await pollUntil(sc, (all) => all.length >= 2, 15_000, (records) => {
        for (const r of records) sc.acknowledge(r);
      });
      expect(values(more)).to.deep.equal(['c3', 'c4']);
      const manager: ActorRef<ShareManagerMsg> = { node: 'b1', path: sharePartitionManagerPath(1) };
      c.system().send(manager, { type: 'ShareMemberGone', groupId: 'g-commit', memberId: sc.memberId });
      await checkFor(async () => (await sharePartition('g-commit'))?.acquired === 0, 10_000, 50);
      const failed = await sc.commitSync();
      expect(failed).to.have.length(1);
      expect(failed[0]!.error).to.be.instanceOf(SamsaError);
      expect(failed[0]!.error!.errorCode).to.equal(ErrorCode.INVALID_RECORD_STATE);
      expect(failed[0]!.offsets).to.deep.equal([3, 4]);
    });

    it('offsets of acquired ranges with no record (a transaction marker) are acknowledged as gaps', async () => {
      const sc = consumer('g-gap');
      await start(sc);
      const w = await TxnWriter.to(c, topic);
      const pid = await w.producerId();
      expect(await w.produce(pid, 't0', 't1')).to.equal(0);
      await w.end(pid, true); // offset 2: the COMMIT marker
      await produceValues(samsa, topic, ['p3']);
      const got = await pollUntil(sc, (all) => all.length >= 3);
      expect(got.map((r) => [String(r.value), r.offset])).to.deep.equal([
        ['t0', 0],
        ['t1', 1],
        ['p3', 3],
      ]);
      const results = await sc.commitSync();
      expect(results.every((r) => r.error === null)).to.equal(true);
      // the marker's offset was acknowledged too: the group is past all four
      await checkFor(async () => (await sharePartition('g-gap'))?.startOffset === 4, 10_000, 50);
    });

    it('a subscription change reaches the coordinator (the new topic is assigned and read); unsubscribe leaves the group', async () => {
      const other = `${topic}-other`;
      await c.client.createTopic(other, 1, 1);
      await c.client.waitForLeaders(other);
      const sc = consumer('g-resubscribe');
      await start(sc);
      const epoch = (await sc.describe()).memberEpoch;
      await start(sc, [topic, other]);
      const d = await sc.describe();
      expect(d.subscription).to.deep.equal([topic, other].sort());
      expect(d.assignment.map((a) => a.topic).sort()).to.deep.equal([topic, other].sort());
      expect(d.memberEpoch).to.be.greaterThan(epoch);
      await produceValues(samsa, other, ['o0']);
      await produceValues(samsa, topic, ['t0']);
      const got = await pollUntil(sc, (all) => all.length >= 2);
      expect(got.map((r) => `${r.topic}:${String(r.value)}`).sort()).to.deep.equal([`${other}:o0`, `${topic}:t0`].sort());
      await sc.unsubscribe();
      expect(sc.subscription()).to.deep.equal([]);
      expect(await sc.describe()).to.deep.include({ phase: 'Unsubscribed', memberEpoch: 0, assignment: [] });
      const r = await c.system().ask<ShareGroupDescribeResponse>({ node: 'b1', path: coordinatorPath(1) }, { type: 'ShareGroupDescribe', groups: ['g-resubscribe'] }, { timeoutMs: 5_000 });
      if (isFailure(r)) throw new Error(r.message);
      expect(r.groups[0]!.members).to.deep.equal([]);
      let err: unknown = null;
      await sc.poll(10).catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(IllegalStateError);
      // and back in, under the same member id
      await start(sc);
      expect(await sc.describe()).to.deep.include({ phase: 'Stable', memberId: sc.memberId });
    });

    it('commitAsync sends without waiting: the brokers have the acknowledgements, the callback hears of them with a later call', async () => {
      const sc = consumer('g-async', { acknowledgementMode: 'explicit' });
      const seen: ShareAcknowledgementResult[] = [];
      sc.setAcknowledgementCommitCallback((res) => seen.push(res));
      await start(sc);
      await produceValues(samsa, topic, ['a0', 'a1']);
      const got = await pollUntil(sc, (all) => all.length >= 2, 15_000, (records) => {
        for (const r of records) sc.acknowledge(r);
      });
      expect(values(got)).to.deep.equal(['a0', 'a1']);
      sc.commitAsync();
      // no poll meanwhile: the commit alone took them there
      await checkFor(async () => (await sharePartition('g-async'))?.startOffset === 2, 10_000, 50);
      expect(seen.filter((r) => r.offsets.includes(0))).to.deep.equal([]);
      await sc.poll(50);
      expect(seen.find((r) => r.offsets.join() === '0,1')).to.deep.include({ topic, partition: 0, error: null });
    });

    it("metrics(): Kafka's share consumer metrics, the records and bytes taken, the fetches, acknowledgements, heartbeats, the rebalance and the polls counted", async () => {
      const sc = consumer('g-metrics', { 'client.id': 'metrics-sc' });
      await start(sc);
      await produceValues(samsa, topic, ['m0', 'm1', 'm2', 'm3', 'm4']);
      const got = await pollUntil(sc, (all) => all.length >= 5);
      expect(values(got)).to.deep.equal(['m0', 'm1', 'm2', 'm3', 'm4']);
      // the last poll's records accepted: every record acknowledged once
      expect((await sc.commitSync()).every((r) => r.error === null)).to.equal(true);
      const metrics = await sc.metrics();
      for (const m of metrics) expect(m.tags).to.deep.equal({ 'client-id': 'metrics-sc' });
      const v = (group: string, name: string): number => {
        const m = metrics.find((x) => x.group === group && x.name === name);
        expect(m, `${group}:${name}`).to.not.equal(undefined);
        return m!.value;
      };
      const fetch = 'consumer-share-fetch-manager-metrics';
      expect(v(fetch, 'records-consumed-total')).to.equal(5);
      expect(v(fetch, 'records-per-request-max')).to.be.within(1, 5);
      // five records of two-byte values, in batches of their own or together: bytes of whole batches
      expect(v(fetch, 'bytes-consumed-total')).to.be.greaterThan(5 * 2);
      expect(v(fetch, 'fetch-size-max')).to.be.greaterThan(0);
      expect(v(fetch, 'fetch-total')).to.be.greaterThan(0);
      expect(v(fetch, 'fetch-rate')).to.be.greaterThan(0);
      expect(v(fetch, 'fetch-latency-max')).to.be.at.least(v(fetch, 'fetch-latency-avg')).and.at.least(0);
      expect(v(fetch, 'acknowledgements-send-total')).to.equal(5);
      expect(v(fetch, 'acknowledgements-send-rate')).to.be.greaterThan(0);
      expect(v(fetch, 'acknowledgements-error-total')).to.equal(0);
      const coordinator = 'consumer-share-coordinator-metrics';
      expect(v(coordinator, 'heartbeat-total')).to.be.greaterThan(0);
      expect(v(coordinator, 'heartbeat-response-time-max')).to.be.at.least(0);
      expect(v(coordinator, 'last-heartbeat-seconds-ago')).to.be.at.least(0);
      // the assignment of the topic's one partition
      expect(v(coordinator, 'rebalance-total')).to.equal(1);
      const polls = 'consumer-share-metrics';
      expect(v(polls, 'last-poll-seconds-ago')).to.be.at.least(0);
      expect(v(polls, 'time-between-poll-max')).to.be.at.least(0);
      expect(v(polls, 'poll-idle-ratio-avg')).to.be.within(0, 1);
    });

    it('a group id that is not a share group: poll throws the coordinator\'s error (GROUP_ID_NOT_FOUND)', async () => {
      const classic = samsa.consumer({ groupId: 'g-classic', 'fetch.max.wait.ms': 100 });
      await classic.connect();
      await classic.subscribe({ topics: [topic] });
      const joined = new Promise<void>((resolve) => classic.on('group.join', () => resolve()));
      await classic.run({ eachMessage: () => undefined });
      await joined;
      try {
        const sc = consumer('g-classic');
        await sc.subscribe([topic]);
        const err = await checkFor(async () => sc.poll(100).then(() => null, (e: unknown) => e), 10_000, 0);
        expect(err).to.be.instanceOf(SamsaError);
        expect((err as SamsaError).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
        expect((err as SamsaError).message).to.match(/not a share group/);
      } finally {
        await classic.disconnect();
      }
    });
  });

  describe('three brokers', () => {
    let c: TestCluster;
    let samsa: SamsaClient;

    before(async () => {
      c = await TestCluster.start({ brokers: 3, ...fastFailover(SHARE_BROKER_CONFIG) });
      samsa = c.samsa();
    });
    after(async () => {
      await c?.stop();
    });

    it('reads every partition from its leader, one ShareFetch per leader broker', async () => {
      await c.client.createTopic('spread', 3, 1);
      await c.client.waitForLeaders('spread');
      const md = await c.client.metadata();
      const leaders = md.topics.find((t) => t.name === 'spread')!.partitions.map((p) => p.leader);
      expect(new Set(leaders).size, `leaders ${leaders.join(',')}`).to.equal(3);
      const sc = samsa.shareConsumer({ groupId: 'g-spread', 'fetch.max.wait.ms': 200 });
      try {
        await sc.subscribe(['spread']);
        // every partition's state made (latest) before anything is produced
        await checkFor(async () => {
          await sc.poll(100);
          let n = 0;
          for (const id of [1, 2, 3]) {
            const r = await c.system().ask<SharePartitionsDescription>({ node: `b${id}`, path: sharePartitionManagerPath(id) }, { type: 'DescribeSharePartitions', groupId: 'g-spread' }, { timeoutMs: 5_000 });
            if (!isFailure(r)) n += r.partitions.length;
          }
          return n === 3;
        }, 20_000, 50);
        const sent = Array.from({ length: 9 }, (_, i) => `s${i}`);
        await produceValues(samsa, 'spread', sent, 3);
        const got = await pollUntil(sc, (all) => all.length >= sent.length, 20_000);
        expect(values(got).sort()).to.deep.equal([...sent].sort());
        expect([...new Set(got.map((r) => r.partition))].sort()).to.deep.equal([0, 1, 2]);
        const d = await sc.describe();
        expect(d.fetchedFrom).to.deep.equal([...new Set(leaders)].sort((a, b) => a - b));
        expect(d.assignment.map((a) => a.partition).sort()).to.deep.equal([0, 1, 2]);
      } finally {
        await sc.close();
      }
    });

    it('the coordinator moves (its broker dies): the new one has the member from the group records; it goes on receiving', async () => {
      await c.client.createTopic('moving', 3, 3);
      await c.client.waitForLeaders('moving');
      const sc = samsa.shareConsumer({ groupId: 'g-moving', 'fetch.max.wait.ms': 200, 'request.timeout.ms': 3_000 });
      try {
        await sc.subscribe(['moving']);
        await checkFor(async () => {
          await sc.poll(100);
          let n = 0;
          for (const id of [1, 2, 3]) {
            const r = await c.system().ask<SharePartitionsDescription>({ node: `b${id}`, path: sharePartitionManagerPath(id) }, { type: 'DescribeSharePartitions', groupId: 'g-moving' }, { timeoutMs: 5_000 });
            if (!isFailure(r)) n += r.partitions.length;
          }
          return n === 3;
        }, 20_000, 50);
        const before = Array.from({ length: 6 }, (_, i) => `b${i}`);
        await produceValues(samsa, 'moving', before, 3);
        expect(values(await pollUntil(sc, (all) => all.length >= before.length, 20_000)).sort()).to.deep.equal(before.sort());
        const found = await c.system().ask<FindCoordinatorResponse>({ node: 'b1', path: brokerPath(1) }, { type: 'FindCoordinator', key: 'g-moving', keyType: 'group' }, { timeoutMs: 5_000 });
        if (isFailure(found) || found.errorCode !== ErrorCode.NONE) throw new Error('no coordinator');
        await c.killBroker(found.brokerId);
        const after = Array.from({ length: 6 }, (_, i) => `a${i}`);
        await produceValues(samsa, 'moving', after, 3);
        // at least once: the records the dead broker's partitions had acquired and not written may come again
        const got = await pollUntil(sc, (all) => after.every((v) => values(all).includes(v)), 40_000);
        expect(after.filter((v) => !values(got).includes(v))).to.deep.equal([]);
        // the new coordinator loaded the group with the member (its records): the member goes on there under its id
        const live = [1, 2, 3].find((id) => id !== found.brokerId)!;
        await checkFor(async () => {
          const f = await c.system().ask<FindCoordinatorResponse>({ node: `b${live}`, path: brokerPath(live) }, { type: 'FindCoordinator', key: 'g-moving', keyType: 'group' }, { timeoutMs: 5_000 });
          if (isFailure(f) || f.errorCode !== ErrorCode.NONE || f.brokerId === found.brokerId) return false;
          const d = await c.system().ask<ShareGroupDescribeResponse>({ node: f.node, path: coordinatorPath(f.brokerId) }, { type: 'ShareGroupDescribe', groups: ['g-moving'] }, { timeoutMs: 5_000 });
          return !isFailure(d) && d.groups[0]!.members.some((m) => m.memberId === sc.memberId);
        }, 20_000, 100);
        // the coordinator lists the member once it has joined; the member is Stable once that answer reaches it
        await checkFor(async () => (await sc.describe()).phase === 'Stable', 10_000, 20);
        expect(await sc.describe()).to.deep.include({ phase: 'Stable', memberId: sc.memberId });
      } finally {
        await sc.close();
      }
    });
  });
});
