/**
 * samsa's share consumer, lock renewal (KIP-1222's AcknowledgeType.RENEW) and
 * max.poll.interval.ms, as Kafka 4.2's KafkaShareConsumer does them, on a real in-process
 * cluster: a renewed record stays the member's past its lock and a poll returns it again (only
 * the renewed ones while renewing), to be acknowledged again; commitSync reports a renewal and
 * the next poll returns the record at once; a renewal of a record no longer held fails and the
 * record is not returned; bad input is refused. A member whose application does not poll
 * within max.poll.interval.ms leaves its group (epoch -1), gives back what it fetched and did
 * not hand out, and joins again at the next poll. share.acquire.mode record_limit acquires at
 * most max.poll.records per poll and nothing between polls.
 */
import { expect } from 'chai';
import { parseShareConsumerConfig, ShareConsumerConfigError } from '../../actors/share-consumer/share-consumer-config.js';
import { coordinatorPath, type ShareGroupDescribeResponse } from '../../actors/group-coordinator/messages.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { AcknowledgeType, IllegalStateError, type ShareAcknowledgementResult, type ShareRecord } from '../../src/client/share-consumer.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import type { TestCluster } from '../helpers/cluster.js';
import { produceValues } from '../helpers/group-records.js';
import { oneBrokerShareFixture, pollUntil, values } from '../helpers/share-consumers.js';

/** The short acquisition lock the renewal groups get (the least the brokers allow). */
const LOCK_MS = 1_000;

const described = (records: readonly ShareRecord[]) => records.map((r) => [String(r.value), r.offset, r.deliveryCount]);

/** The application's processing time between two polls. */
const processing = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('client/share consumer: lock renewal, max.poll.interval.ms and share.acquire.mode', function () {
  this.timeout(60_000);

  const f = oneBrokerShareFixture('renew', { 'group.share.record.lock.duration.ms': 15_000, 'group.share.min.record.lock.duration.ms': LOCK_MS }, { 'group.share.min.record.lock.duration.ms': LOCK_MS });
  const { consumer, start, sharePartition } = f;
  let c: TestCluster;
  let samsa: SamsaClient;
  let topic = '';
  beforeEach(() => {
    ({ c, samsa, topic } = f);
  });

  /** The group's acquisition lock is LOCK_MS (a group config), once the broker has it. */
  async function shortLocks(groupId: string): Promise<void> {
    const admin = samsa.admin();
    await admin.connect();
    try {
      const [res] = await admin.alterGroupConfigs([{ group: groupId, set: { 'share.record.lock.duration.ms': String(LOCK_MS) } }]);
      expect(res).to.deep.include({ group: groupId, errorCode: ErrorCode.NONE });
    } finally {
      await admin.disconnect();
    }
    await checkFor(async () => {
      const r = await c.client.brokerMetadata(1, 'b1');
      return !isFailure(r) && String(r.metadata?.groupConfigs?.[groupId]?.['share.record.lock.duration.ms']) === String(LOCK_MS);
    }, 10_000, 20);
  }

  async function members(groupId: string): Promise<string[]> {
    const r = await c.system().ask<ShareGroupDescribeResponse>({ node: 'b1', path: coordinatorPath(1) }, { type: 'ShareGroupDescribe', groups: [groupId] }, { timeoutMs: 5_000 });
    if (isFailure(r)) throw new Error(r.message);
    return r.groups[0]!.members.map((m) => m.memberId);
  }

  describe('lock renewal (AcknowledgeType.RENEW)', () => {
    it('a renewed record stays the member\'s past its lock: each poll returns only the renewed records, acknowledged again each time', async () => {
      await shortLocks('g-renew');
      const sc = consumer('g-renew', { acknowledgementMode: 'explicit' });
      const seen: ShareAcknowledgementResult[] = [];
      sc.setAcknowledgementCommitCallback((r) => seen.push(r));
      await start(sc);
      await produceValues(samsa, topic, ['done', 'slow-1', 'slow-2']);
      let held = await pollUntil(sc, (all) => all.length > 0);
      expect(described(held)).to.deep.equal([
        ['done', 0, 1],
        ['slow-1', 1, 1],
        ['slow-2', 2, 1],
      ]);
      expect(sc.acquisitionLockTimeoutMs()).to.equal(LOCK_MS);
      sc.acknowledge(held[0]!, 'accept');
      sc.acknowledge(held[1]!, 'renew');
      sc.acknowledge(held[2]!, AcknowledgeType.Renew);
      // written while renewing: not handed out before the renewed records are done
      await produceValues(samsa, topic, ['later']);
      const began = Date.now();
      let rounds = 0;
      for (;;) {
        await processing(250);
        held = await sc.poll(2_000);
        rounds++;
        expect(described(held), `round ${rounds}`).to.deep.equal([
          ['slow-1', 1, 1],
          ['slow-2', 2, 1],
        ]);
        // over twice the lock since they were acquired, and still the member's
        if (Date.now() - began > 2.2 * LOCK_MS) break;
        for (const r of held) sc.acknowledge(r, 'renew');
      }
      expect(rounds).to.be.greaterThan(2);
      expect(await sharePartition('g-renew')).to.deep.include({ startOffset: 1 });
      // every renewal was applied, and the callback heard of each
      const renewals = seen.filter((r) => r.offsets.join() === '1,2');
      expect(renewals).to.have.length(rounds - 1);
      expect(renewals.every((r) => r.error === null)).to.equal(true);
      expect(seen.find((r) => r.offsets.join() === '0,1,2')).to.deep.include({ error: null });
      // processed: accepted, and the next records come
      for (const r of held) sc.acknowledge(r, 'accept');
      const next = await pollUntil(sc, (all) => all.length > 0, 15_000, (records) => {
        for (const r of records) sc.acknowledge(r);
      });
      expect(values(next)).to.deep.equal(['later']);
      await sc.commitSync();
      await checkFor(async () => (await sharePartition('g-renew'))?.startOffset === 4, 10_000, 20);
    });

    it('commitSync sends a renewal and reports its partition; the next poll returns the renewed record at once, to be acknowledged again', async () => {
      const sc = consumer('g-renew-commit', { acknowledgementMode: 'explicit' });
      await start(sc);
      await produceValues(samsa, topic, ['c0', 'c1']);
      const got = await pollUntil(sc, (all) => all.length > 0);
      expect(values(got)).to.deep.equal(['c0', 'c1']);
      sc.acknowledge(got[0]!, 'renew');
      sc.acknowledge(got[1]!, 'reject');
      const results = await sc.commitSync();
      expect(results.map((r) => ({ topic: r.topic, partition: r.partition, offsets: r.offsets, error: r.error }))).to.deep.equal([{ topic, partition: 0, offsets: [0, 1], error: null }]);
      // the rejected one is done with: it cannot be renewed (Kafka's IllegalStateException)
      expect(() => sc.acknowledge(got[1]!, 'renew')).to.throw(IllegalStateError, /not waiting/);
      // the renewed one is not acknowledged before a poll returns it again
      expect(() => sc.acknowledge(got[0]!, 'accept')).to.throw(IllegalStateError, /being renewed/);
      const polledAt = Date.now();
      const again = await sc.poll(5_000);
      expect(Date.now() - polledAt).to.be.below(2_000);
      expect(described(again)).to.deep.equal([['c0', 0, 1]]);
      // explicit mode: it must be acknowledged again before the next poll
      let err: unknown = null;
      await sc.poll(50).catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(IllegalStateError);
      expect((err as Error).message).to.match(/must be acknowledged/);
      sc.acknowledge(again[0]!);
      expect((await sc.commitSync()).map((r) => [r.offsets, r.error])).to.deep.equal([[[0], null]]);
      expect(await sharePartition('g-renew-commit')).to.deep.include({ startOffset: 2, acquired: 0 });
    });

    it('a renewal of a record the member no longer holds fails: the record is not returned, and comes again as any other', async () => {
      await shortLocks('g-renew-late');
      const sc = consumer('g-renew-late', { acknowledgementMode: 'explicit', 'max.poll.interval.ms': 300 });
      const seen: ShareAcknowledgementResult[] = [];
      sc.setAcknowledgementCommitCallback((r) => seen.push(r));
      await start(sc);
      await produceValues(samsa, topic, ['late']);
      const got = await pollUntil(sc, (all) => all.length > 0);
      expect(described(got)).to.deep.equal([['late', 0, 1]]);
      // the application stops polling: the member leaves (no fetching) and the lock runs out
      await checkFor(async () => (await sc.describe()).phase === 'Stale', 5_000, 20);
      await checkFor(async () => (await sharePartition('g-renew-late'))?.acquired === 0, 5_000, 20);
      sc.acknowledge(got[0]!, 'renew');
      expect(await sc.poll(5_000)).to.deep.equal([]);
      const failed = seen.find((r) => r.offsets.includes(0));
      expect(failed?.error?.errorCode).to.equal(ErrorCode.INVALID_RECORD_STATE);
      const again = await pollUntil(sc, (all) => all.length > 0, 15_000, (records) => {
        for (const r of records) sc.acknowledge(r);
      });
      expect(described(again)).to.deep.equal([['late', 0, 2]]);
    });

    it('bad input is refused: renew in implicit mode, unknown types and Gap, a non-record, a bad commitSync timeout', async () => {
      const ref = { topic, partition: 0, offset: 0 };
      const implicit = consumer('g-renew-bad-implicit');
      expect(() => implicit.acknowledge(ref, 'renew')).to.throw(IllegalStateError, /Implicit acknowledgement/);
      const sc = consumer('g-renew-bad', { acknowledgementMode: 'explicit' });
      for (const bad of ['gap', 'renewal', '', AcknowledgeType.Gap, 5, -1, 1.5, null, {}]) {
        expect(() => sc.acknowledge(ref, bad as never), JSON.stringify(bad)).to.throw(TypeError, /accept, release, reject or renew/);
      }
      for (const bad of [null, undefined, 'record', { topic, partition: 0 }, { topic, partition: -1, offset: 0 }, { topic: 7, partition: 0, offset: 0 }, { topic, partition: 0, offset: 0.5 }]) {
        expect(() => sc.acknowledge(bad as never, 'renew'), JSON.stringify(bad)).to.throw(TypeError, /a record a poll returned/);
      }
      // a well-formed type (any case) for a record the last poll did not return
      expect(() => sc.acknowledge(ref, 'RENEW' as never)).to.throw(IllegalStateError, /not waiting/);
      let err: unknown = null;
      await sc.commitSync(-1).catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(RangeError);
    });
  });

  describe('share.acquire.mode (KIP-1206)', () => {
    it('batch_optimized by default; record_limit in any case; another value is refused', () => {
      expect(parseShareConsumerConfig({ 'group.id': 'g' }).acquireMode).to.equal('batch_optimized');
      expect(parseShareConsumerConfig({ 'group.id': 'g', 'share.acquire.mode': 'RECORD_LIMIT' }).acquireMode).to.equal('record_limit');
      expect(parseShareConsumerConfig({ 'group.id': 'g', 'share.acquire.mode': 'batch_optimized' }).acquireMode).to.equal('batch_optimized');
      expect(() => parseShareConsumerConfig({ 'group.id': 'g', 'share.acquire.mode': 'fast' })).to.throw(ShareConsumerConfigError, /share\.acquire\.mode: must be batch_optimized or record_limit/);
      expect(() => samsa.shareConsumer({ groupId: 'g', 'share.acquire.mode': 3 })).to.throw(ShareConsumerConfigError);
    });

    it('record_limit: each poll gets at most max.poll.records, acquired while it waited, and nothing is acquired between polls; batch_optimized fetches ahead', async () => {
      const sc = consumer('g-limit', { 'share.acquire.mode': 'record_limit', 'max.poll.records': 10 });
      await start(sc);
      const all = Array.from({ length: 35 }, (_, i) => `r${i}`);
      await produceValues(samsa, topic, all);
      const got: string[] = [];
      while (got.length < all.length) {
        const records = await sc.poll(2_000);
        expect(records.length).to.be.at.most(10);
        got.push(...values(records));
        // the application works on them: nothing more is acquired meanwhile (the next poll accepts these)
        await processing(300);
        const p = await sharePartition('g-limit');
        expect(p!.acquired).to.equal(records.length);
      }
      expect(got).to.deep.equal(all);

      // batch_optimized (the default): the next records are fetched while the application works
      const ahead = consumer('g-ahead', { 'max.poll.records': 10 });
      await start(ahead);
      await produceValues(samsa, topic, Array.from({ length: 30 }, (_, i) => `a${i}`));
      const first = await pollUntil(ahead, (x) => x.length > 0);
      expect(first.length).to.be.at.most(10);
      await checkFor(async () => ((await sharePartition('g-ahead'))?.acquired ?? 0) > first.length, 5_000, 20);
    });
  });

  describe('max.poll.interval.ms', () => {
    it('is 300000 by default, and must be a positive integer', () => {
      expect(parseShareConsumerConfig({ 'group.id': 'g' }).maxPollIntervalMs).to.equal(300_000);
      expect(parseShareConsumerConfig({ 'group.id': 'g', 'max.poll.interval.ms': '1500' }).maxPollIntervalMs).to.equal(1_500);
      for (const bad of [0, -5, 1.5, 'soon', true]) {
        expect(() => samsa.shareConsumer({ groupId: 'g', 'max.poll.interval.ms': bad }), String(bad)).to.throw(ShareConsumerConfigError, /^max.poll.interval.ms: /);
      }
    });

    it('no poll within it: the member leaves (epoch -1), gives back what it fetched and did not hand out, keeps what the application holds, and joins again at the next poll', async () => {
      const sc = consumer('g-stale', { 'max.poll.interval.ms': 400, 'max.poll.records': 1 });
      await start(sc);
      // a poll waiting longer than the interval is polling all along
      expect(await sc.poll(700)).to.deep.equal([]);
      const d0 = await sc.describe();
      expect(d0.phase).to.equal('Stable');
      await produceValues(samsa, topic, ['s0', 's1']);
      const got = await pollUntil(sc, (all) => all.length > 0);
      expect(described(got)).to.deep.equal([['s0', 0, 1]]);
      // the member fetches s1 meanwhile (buffered, not handed out); the application stops polling
      await checkFor(async () => (await sc.describe()).phase === 'Stale', 5_000, 20);
      expect(await sc.describe()).to.deep.include({ memberId: sc.memberId, memberEpoch: -1, assignment: [] });
      await checkFor(async () => (await members('g-stale')).length === 0, 5_000, 20);
      // s1 went back at once (well within its 15 s lock); s0 is still the application's (until acknowledged or its lock runs out)
      await checkFor(async () => (await sharePartition('g-stale'))?.acquired === 1, 5_000, 20);
      // the next poll joins again, same member id, accepting s0 (implicit mode) on the way
      const more = await pollUntil(sc, (all) => all.length > 0);
      expect(described(more)).to.deep.equal([['s1', 1, 2]]);
      const d1 = await sc.describe();
      expect(d1).to.deep.include({ phase: 'Stable', memberId: sc.memberId });
      expect(d1.memberEpoch).to.be.greaterThan(0);
      expect(await members('g-stale')).to.deep.equal([sc.memberId]);
      await sc.commitSync();
      await checkFor(async () => (await sharePartition('g-stale'))?.startOffset === 2, 5_000, 20);
    });
  });
});
