import { expect } from 'chai';
import { FetchSessionCache, FINAL_EPOCH, mustRespond, nextEpoch, NO_SESSION, partitionKey, type CachedPartition, type PartitionAnswer } from '../../src/kafka/fetch-sessions.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function parts(n: number, topic = 't'): CachedPartition[] {
  return Array.from({ length: n }, (_, partition) => ({ topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partition, fetchOffset: 0, currentLeaderEpoch: -1, lastFetchedEpoch: -1, partitionMaxBytes: 1024, highWatermark: 5, logStartOffset: 0 }));
}

const quiet: PartitionAnswer = { errorCode: 0, highWatermark: 5, logStartOffset: 0, recordBytes: 0, preferredReadReplica: -1, divergingEpoch: false };

describe('kafka/fetch-sessions', () => {
  it('epochs: 0 starts, -1 stays -1, the largest int32 wraps to 1', () => {
    expect(nextEpoch(0)).to.equal(1);
    expect(nextEpoch(41)).to.equal(42);
    expect(nextEpoch(FINAL_EPOCH)).to.equal(FINAL_EPOCH);
    expect(nextEpoch(2147483647)).to.equal(1);
  });

  it('keys partitions by topic id in sessions that use them, else by name', () => {
    const p = { topic: 'orders', topicId: 'BBBBBBBBBBBBBBBBBBBBBA', partition: 3 };
    expect(partitionKey(true, p)).to.equal('BBBBBBBBBBBBBBBBBBBBBA\u00003');
    expect(partitionKey(false, p)).to.equal('orders\u00003');
  });

  describe('what an incremental fetch answers (mustRespond)', () => {
    it('nothing new: left out, and nothing cached changes', () => {
      const c = parts(1)[0]!;
      expect(mustRespond(c, quiet, true)).to.equal(false);
      expect(c).to.deep.include({ highWatermark: 5, logStartOffset: 0 });
    });
    it('records, a preferred read replica or a diverging epoch: answered', () => {
      for (const a of [{ recordBytes: 10 }, { preferredReadReplica: 2 }, { divergingEpoch: true }]) expect(mustRespond(parts(1)[0]!, { ...quiet, ...a }, true)).to.equal(true);
    });
    it('a moved high watermark or log start offset: answered, and cached when updating', () => {
      const c = parts(1)[0]!;
      expect(mustRespond(c, { ...quiet, highWatermark: 6 }, false)).to.equal(true);
      expect(c.highWatermark).to.equal(5);
      expect(mustRespond(c, { ...quiet, highWatermark: 6, logStartOffset: 2 }, true)).to.equal(true);
      expect(c).to.deep.include({ highWatermark: 6, logStartOffset: 2 });
      expect(mustRespond(c, { ...quiet, highWatermark: 6, logStartOffset: 2 }, true)).to.equal(false);
    });
    it('an error: always answered, and the partition answered again once it clears', () => {
      const c = parts(1)[0]!;
      expect(mustRespond(c, { ...quiet, errorCode: 6 }, true)).to.equal(true);
      expect(c.highWatermark).to.equal(-1);
      expect(mustRespond(c, { ...quiet, errorCode: 6, highWatermark: -1 }, true)).to.equal(true);
      expect(mustRespond(c, quiet, true)).to.equal(true);
      expect(mustRespond(c, quiet, true)).to.equal(false);
    });
  });

  describe('the cache', () => {
    it('creates sessions with distinct ids, epoch 1 next, holding the partitions in order', () => {
      const cache = new FetchSessionCache(10, clock());
      const a = cache.create(false, true, parts(3));
      const b = cache.create(false, true, parts(1));
      expect(a).to.not.equal(NO_SESSION);
      expect(b).to.not.equal(a);
      const s = cache.get(a)!;
      expect(s.epoch).to.equal(1);
      expect([...s.partitions.values()].map((p) => p.partition)).to.deep.equal([0, 1, 2]);
      expect(cache.size).to.equal(2);
      expect(cache.totalPartitions).to.equal(4);
      expect(cache.remove(a)).to.equal(true);
      expect(cache.get(a)).to.equal(undefined);
    });

    it('draws another id when the one drawn is taken', () => {
      const draws = [7, 7, 9];
      const cache = new FetchSessionCache(10, clock(), 120_000, () => draws.shift()!);
      expect(cache.create(false, false, parts(1))).to.equal(7);
      expect(cache.create(false, false, parts(1))).to.equal(9);
    });

    it('no slots: no session', () => {
      const cache = new FetchSessionCache(0, clock());
      expect(cache.create(true, false, parts(5))).to.equal(NO_SESSION);
    });

    it('full: a session unused for longer than the eviction time gives its place to anyone', () => {
      const c = clock();
      const cache = new FetchSessionCache(2, c, 1_000);
      const old = cache.create(true, false, parts(100));
      c.advance(500);
      const used = cache.create(false, false, parts(1));
      c.advance(600);
      cache.touch(cache.get(used)!);
      const fresh = cache.create(false, false, parts(1));
      expect(fresh).to.not.equal(NO_SESSION);
      expect(cache.get(old)).to.equal(undefined);
      expect(cache.get(used)).to.not.equal(undefined);
      expect(cache.evictions).to.equal(1);
    });

    it('full, nothing stale: young consumer sessions stay against consumers, a follower takes the smallest one', () => {
      const c = clock();
      const cache = new FetchSessionCache(2, c, 1_000);
      const big = cache.create(false, false, parts(10));
      const small = cache.create(false, false, parts(2));
      expect(cache.create(false, false, parts(50))).to.equal(NO_SESSION);
      const follower = cache.create(true, false, parts(1));
      expect(follower).to.not.equal(NO_SESSION);
      expect(cache.get(small)).to.equal(undefined);
      expect(cache.get(big)).to.not.equal(undefined);
      // a young follower session is not taken by another follower
      expect(cache.create(true, false, parts(1000))).to.not.equal(NO_SESSION);
      expect(cache.get(big)).to.equal(undefined);
      expect(cache.create(true, false, parts(5000))).to.equal(NO_SESSION);
    });

    it('full, nothing stale: an old session gives its place to one with at least as many partitions, not fewer', () => {
      const c = clock();
      const cache = new FetchSessionCache(2, c, 1_000);
      const a = cache.create(false, false, parts(3));
      const b = cache.create(false, false, parts(8));
      c.advance(900);
      cache.touch(cache.get(a)!);
      cache.touch(cache.get(b)!);
      c.advance(200);
      // both were made over 1 s ago but used since: not stale, but old enough to be weighed
      expect(cache.create(false, false, parts(2))).to.equal(NO_SESSION);
      const c3 = cache.create(false, false, parts(4));
      expect(c3).to.not.equal(NO_SESSION);
      expect(cache.get(a)).to.equal(undefined);
      expect(cache.get(b)).to.not.equal(undefined);
    });
  });
});
