/**
 * The producer's partitioner: keyed records land where Kafka's Java DefaultPartitioner puts them
 * (KafkaJS's Java-compatible partitioner is the oracle), explicit partitions pass through, and
 * keyless records stick to one partition per topic until a batch completes.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import {
  DefaultPartitioner,
  StickyPartitioner,
  keyBytes,
  partitionForKey,
} from '../../src/client/partitioner.js';

const require = createRequire(import.meta.url);
type KafkajsPartitioner = (args: {
  topic: string;
  partitionMetadata: { partitionId: number; leader: number }[];
  message: { key?: Buffer | string | null; partition?: number | null };
}) => number;
const kafkajs: { Partitioners: { JavaCompatiblePartitioner: () => KafkajsPartitioner } } = require('kafkajs');

function kafkajsPartition(key: Buffer | string, numPartitions: number): number {
  const p = kafkajs.Partitioners.JavaCompatiblePartitioner();
  const partitionMetadata = Array.from({ length: numPartitions }, (_, i) => ({ partitionId: i, leader: 1 }));
  return p({ topic: 't', partitionMetadata, message: { key } });
}

/** A deterministic random source cycling through the given values. */
function cycle(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

describe('client/partitioner', () => {
  describe('keyed records', () => {
    it("land on the Java DefaultPartitioner's partitions (known values)", () => {
      // toPositive(murmur2(key)) % n, values the Java client computes.
      const known: [string, number, number][] = [
        ['1', 3, 0],
        ['2', 3, 2],
        ['3', 3, 2],
        ['4', 3, 1],
        ['5', 3, 0],
        ['foo', 3, 2],
        ['bar', 3, 0],
        ['foobar', 50, (-790332482 & 0x7fffffff) % 50],
        ['21', 7, (-973932308 & 0x7fffffff) % 7],
      ];
      for (const [key, n, partition] of known) {
        expect(partitionForKey(key, n), `${key} over ${n}`).to.equal(partition);
        expect(kafkajsPartition(key, n), `kafkajs: ${key} over ${n}`).to.equal(partition);
      }
    });

    it('agree with KafkaJS JavaCompatiblePartitioner on random keys and partition counts', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 1, max: 1000 }), (bytes, n) => {
          expect(partitionForKey(bytes, n)).to.equal(kafkajsPartition(Buffer.from(bytes), n));
        }),
        { numRuns: 500, seed: 1 },
      );
      fc.assert(
        fc.property(fc.string({ maxLength: 30, unit: 'grapheme' }), fc.integer({ min: 1, max: 100 }), (key, n) => {
          expect(partitionForKey(key, n)).to.equal(kafkajsPartition(key, n));
        }),
        { numRuns: 300, seed: 2 },
      );
    });

    it('hash a string key as its UTF-8 bytes', () => {
      expect(Array.from(keyBytes('é'))).to.deep.equal([0xc3, 0xa9]);
      expect(partitionForKey('héllo', 17)).to.equal(partitionForKey(new TextEncoder().encode('héllo'), 17));
    });

    it('treat an empty key as a key, not as keyless', () => {
      const p = new DefaultPartitioner({ random: cycle(0.99) });
      expect(p.partition({ topic: 't', numPartitions: 10, key: new Uint8Array(0) })).to.equal(275646681 % 10);
    });

    it('reject a partition count that is not a positive integer', () => {
      expect(() => partitionForKey('k', 0)).to.throw(RangeError);
      expect(() => partitionForKey('k', 2.5)).to.throw(RangeError);
    });
  });

  describe('DefaultPartitioner', () => {
    it('passes an explicit partition through, key or not', () => {
      const p = new DefaultPartitioner();
      expect(p.partition({ topic: 't', numPartitions: 6, partition: 4 })).to.equal(4);
      expect(p.partition({ topic: 't', numPartitions: 6, partition: 0, key: 'foo' })).to.equal(0);
      expect(p.partition({ topic: 't', numPartitions: 6, partition: 5, key: null })).to.equal(5);
    });

    it('rejects an explicit partition outside the topic', () => {
      const p = new DefaultPartitioner();
      expect(() => p.partition({ topic: 't', numPartitions: 6, partition: 6 })).to.throw(RangeError, /not in the range \[0\.\.\.6\)/);
      expect(() => p.partition({ topic: 't', numPartitions: 6, partition: -1 })).to.throw(RangeError);
      expect(() => p.partition({ topic: 't', numPartitions: 6, partition: 1.5 })).to.throw(RangeError);
    });

    it('uses murmur2 for keys and the sticky partition for keyless records', () => {
      const p = new DefaultPartitioner({ random: cycle(0.5) });
      expect(p.partition({ topic: 't', numPartitions: 3, key: 'foo' })).to.equal(2);
      const sticky = p.partition({ topic: 't', numPartitions: 4 });
      expect(sticky).to.equal(2);
      for (let i = 0; i < 20; i++) expect(p.partition({ topic: 't', numPartitions: 4, key: null })).to.equal(sticky);
      expect(p.onNewBatch('t', sticky, 4)).to.not.equal(sticky);
      expect(p.partition({ topic: 't', numPartitions: 4 })).to.not.equal(sticky);
    });
  });

  describe('StickyPartitioner', () => {
    it('keeps one partition per topic until a batch completes', () => {
      const s = new StickyPartitioner({ random: cycle(0.1, 0.9, 0.6) });
      const a = s.partition('a', 10);
      const b = s.partition('b', 10);
      expect(a).to.equal(1);
      expect(b).to.equal(9);
      for (let i = 0; i < 50; i++) {
        expect(s.partition('a', 10)).to.equal(a);
        expect(s.partition('b', 10)).to.equal(b);
      }
      expect(s.current('a')).to.equal(a);
    });

    it('moves to a different partition on a new batch for the sticky one', () => {
      const s = new StickyPartitioner({ random: cycle(0.3) }); // always draws index 3 of 10 first
      expect(s.partition('t', 10)).to.equal(3);
      const next = s.onNewBatch('t', 3, 10);
      expect(next).to.not.equal(3);
      expect(s.partition('t', 10)).to.equal(next);
    });

    it('ignores a new batch for a partition that is no longer the sticky one', () => {
      const s = new StickyPartitioner({ random: cycle(0.05, 0.55, 0.95) });
      const first = s.partition('t', 10);
      const second = s.onNewBatch('t', first, 10);
      expect(second).to.not.equal(first);
      expect(s.onNewBatch('t', first, 10)).to.equal(second); // stale notification
      expect(s.partition('t', 10)).to.equal(second);
    });

    it('never repeats the previous partition when there is a choice, over many batches', () => {
      let seed = 12345;
      const lcg = (): number => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return seed / 2 ** 32;
      };
      const s = new StickyPartitioner({ random: lcg });
      const seen = new Set<number>();
      let prev = s.partition('t', 5);
      for (let i = 0; i < 500; i++) {
        const next = s.onNewBatch('t', prev, 5);
        expect(next).to.not.equal(prev);
        expect(next).to.be.within(0, 4);
        seen.add(next);
        prev = next;
      }
      expect(seen.size).to.equal(5);
    });

    it('chooses among the available partitions only', () => {
      let seed = 99;
      const lcg = (): number => {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
        return seed / 2 ** 32;
      };
      const s = new StickyPartitioner({ random: lcg });
      const available = [1, 4, 7];
      let prev = s.partition('t', 8, available);
      expect(available).to.include(prev);
      for (let i = 0; i < 100; i++) {
        const next = s.onNewBatch('t', prev, 8, available);
        expect(available).to.include(next);
        expect(next).to.not.equal(prev);
        prev = next;
      }
    });

    it('stays on the only available partition, and uses any partition when none is available', () => {
      const s = new StickyPartitioner({ random: cycle(0.7) });
      expect(s.partition('t', 8, [5])).to.equal(5);
      expect(s.onNewBatch('t', 5, 8, [5])).to.equal(5);
      expect(s.partition('u', 8, [])).to.equal(5); // floor(0.7 * 8)
      expect(s.onNewBatch('u', 5, 8, [])).to.not.equal(5);
    });

    it('with a single partition keeps returning it', () => {
      const s = new StickyPartitioner();
      expect(s.partition('t', 1)).to.equal(0);
      expect(s.onNewBatch('t', 0, 1)).to.equal(0);
    });

    it('re-picks when the sticky partition no longer exists, and after forget', () => {
      const s = new StickyPartitioner({ random: cycle(0.95, 0.0) });
      expect(s.partition('t', 10)).to.equal(9);
      expect(s.partition('t', 3)).to.equal(0); // topic recreated with fewer partitions
      s.forget('t');
      expect(s.current('t')).to.equal(undefined);
      expect(s.partition('t', 10)).to.equal(9);
    });

    describe('runs of switchAfterBytes (partitioner.sticky.bytes)', () => {
      it('stays while the closed batches of the sticky partition hold fewer bytes, then moves', () => {
        const s = new StickyPartitioner({ random: cycle(0.3), switchAfterBytes: 3000 }); // index 3 of 10 first
        expect(s.partition('t', 10)).to.equal(3);
        expect(s.onBatchClosed('t', 3, 1000, 10)).to.equal(3);
        expect(s.onBatchClosed('t', 3, 1999, 10)).to.equal(3);
        const next = s.onBatchClosed('t', 3, 1, 10); // 3000 reached
        expect(next).to.not.equal(3);
        expect(s.partition('t', 10)).to.equal(next);
        // the new partition's run starts from nothing
        expect(s.onBatchClosed('t', next, 2999, 10)).to.equal(next);
      });

      it('ignores batches of other partitions (keyed records, a stale run)', () => {
        const s = new StickyPartitioner({ random: cycle(0.3), switchAfterBytes: 100 });
        expect(s.partition('t', 10)).to.equal(3);
        expect(s.onBatchClosed('t', 7, 1_000_000, 10)).to.equal(3);
        expect(s.onBatchClosed('t', 3, 99, 10)).to.equal(3);
        expect(s.onBatchClosed('t', 3, 1, 10)).to.not.equal(3);
      });

      it('keeps a run per topic', () => {
        const s = new StickyPartitioner({ random: cycle(0.1, 0.9), switchAfterBytes: 100 });
        const a = s.partition('a', 10);
        const b = s.partition('b', 10);
        expect(s.onBatchClosed('a', a, 60, 10)).to.equal(a);
        expect(s.onBatchClosed('b', b, 60, 10)).to.equal(b);
        expect(s.onBatchClosed('a', a, 40, 10)).to.not.equal(a);
        expect(s.current('b')).to.equal(b);
      });

      it('moves after every closed batch with 0 (the default), as onNewBatch', () => {
        const s = new StickyPartitioner({ random: cycle(0.3) });
        expect(s.partition('t', 10)).to.equal(3);
        expect(s.onBatchClosed('t', 3, 1, 10)).to.not.equal(3);
      });

      it('forgets a run with the topic, and picks a partition when none was chosen', () => {
        const s = new StickyPartitioner({ random: cycle(0.3), switchAfterBytes: 100 });
        expect(s.onBatchClosed('t', 0, 50, 10)).to.equal(3);
        expect(s.onBatchClosed('t', 3, 90, 10)).to.equal(3);
        s.forget('t');
        expect(s.partition('t', 10)).to.equal(3);
        expect(s.onBatchClosed('t', 3, 90, 10)).to.equal(3); // 90, not 180: the run went with the topic
      });

      it('rejects a negative or fractional size', () => {
        expect(() => new StickyPartitioner({ switchAfterBytes: -1 })).to.throw(RangeError, /switchAfterBytes/);
        expect(() => new StickyPartitioner({ switchAfterBytes: 1.5 })).to.throw(RangeError, /switchAfterBytes/);
      });
    });

    describe('adaptive choice of the next partition (queueLength)', () => {
      it('draws again when the partition drawn has batches waiting and the draw refuses it', () => {
        // partition 1 has 1,000 batches waiting, 0 and 2 none; the same draws without queue lengths pick 1
        const waiting = [0, 1000, 0];
        const draws = () => cycle(0.0, 0.4, 0.5, 0.9);
        const adaptive = new StickyPartitioner({ random: draws(), queueLength: (_t, p) => waiting[p]! });
        expect(adaptive.partition('t', 3, [0, 1, 2])).to.equal(0);
        expect(adaptive.onNewBatch('t', 0, 3, [0, 1, 2])).to.equal(2); // 1 drawn (0.4), refused (0.5 * 1001 >= 1), then 2
        const uniform = new StickyPartitioner({ random: draws() });
        expect(uniform.partition('t', 3, [0, 1, 2])).to.equal(0);
        expect(uniform.onNewBatch('t', 0, 3, [0, 1, 2])).to.equal(1);
      });

      it('keeps a loaded partition with probability 1 / (1 + its waiting batches)', () => {
        let seed = 99;
        const lcg = (): number => {
          seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
          return seed / 2 ** 32;
        };
        // partition 0 is the sticky one; 1 has 3 batches waiting (weight 1/4), 2 none (weight 1)
        const waiting = [0, 3, 0];
        const s = new StickyPartitioner({ random: lcg, queueLength: (_t, p) => waiting[p]! });
        const counts = [0, 0, 0];
        for (let i = 0; i < 20_000; i++) {
          s.forget('t');
          // make 0 sticky, then move on from it
          while (s.partition('t', 3, [0, 1, 2]) !== 0) s.forget('t');
          counts[s.onNewBatch('t', 0, 3, [0, 1, 2])]!++;
        }
        expect(counts[0]).to.equal(0);
        const ratio = counts[2]! / counts[1]!;
        expect(ratio).to.be.within(3.5, 4.5);
      });

      it('takes the least loaded partition drawn when every draw is refused', () => {
        const waiting = [0, 5, 2];
        // after the first pick (0.0: partition 0) draws alternate between 2 (0.9) and 1 (0.5),
        // each refused (0.99); the last of the eight draws is 1, the least loaded 2
        const seq = [0.9, 0.99, 0.5, 0.99];
        let i = -1;
        const random = () => (i < 0 ? (i++, 0.0) : seq[i++ % seq.length]!);
        const s = new StickyPartitioner({ random, queueLength: (_t, p) => waiting[p]! });
        expect(s.partition('t', 3, [0, 1, 2])).to.equal(0);
        expect(s.onNewBatch('t', 0, 3, [0, 1, 2])).to.equal(2);
      });
    });
  });
});
