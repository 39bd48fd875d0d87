/**
 * The consumer protocol's Subscription and Assignment encodings: byte layout, round trips over
 * every version, byte-for-byte agreement with KafkaJS's MemberMetadata/MemberAssignment, and
 * clear errors on truncated or malformed input.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import {
  ConsumerProtocolError,
  DEFAULT_GENERATION,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  flattenTopicPartitions,
  groupByTopic,
  type TopicPartitions,
} from '../../../actors/group-coordinator/consumer-protocol.js';

const require = createRequire(import.meta.url);
interface KafkajsProtocol {
  MemberMetadata: {
    encode(o: { version: number; topics: string[]; userData?: Buffer }): Buffer;
    decode(b: Buffer): { version: number; topics: string[]; userData: Buffer };
  };
  MemberAssignment: {
    encode(o: { version: number; assignment: Record<string, number[]>; userData?: Buffer }): Buffer;
    decode(b: Buffer): { version: number; assignment: Record<string, number[]>; userData: Buffer } | null;
  };
}
const kafkajs: KafkajsProtocol = require('kafkajs/src/consumer/assignerProtocol');

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const topicName = fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' });
const topicPartitions = fc.array(
  fc.record({ topic: topicName, partitions: fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 8 }) }),
  { maxLength: 5 },
);
const nullableBytes = fc.option(fc.uint8Array({ maxLength: 16 }), { nil: null });

describe('actors/group-coordinator/consumer-protocol', () => {
  describe('layout', () => {
    it('encodes a v0 subscription as int16 version, string array, int32-length bytes', () => {
      const bytes = encodeSubscription({ version: 0, topics: ['ab', 'c'], userData: new Uint8Array([9]) });
      expect(hex(bytes)).to.equal(
        '0000' + '00000002' + '0002' + '6162' + '0001' + '63' + '00000001' + '09',
      );
    });

    it('encodes v1 owned partitions, v2 generation and v3 rack after the v0 fields', () => {
      const owned: TopicPartitions[] = [{ topic: 't', partitions: [0, 2] }];
      const v0 = '00000001' + '000174' + 'ffffffff';
      const ownedHex = '00000001' + '000174' + '00000002' + '00000000' + '00000002';
      expect(hex(encodeSubscription({ version: 1, topics: ['t'], ownedPartitions: owned }))).to.equal('0001' + v0 + ownedHex);
      expect(hex(encodeSubscription({ version: 2, topics: ['t'], ownedPartitions: owned, generationId: 7 }))).to.equal(
        '0002' + v0 + ownedHex + '00000007',
      );
      expect(hex(encodeSubscription({ version: 3, topics: ['t'], ownedPartitions: owned, generationId: 7, rackId: 'r1' }))).to.equal(
        '0003' + v0 + ownedHex + '00000007' + '0002' + '7231',
      );
      expect(hex(encodeSubscription({ version: 3, topics: ['t'], ownedPartitions: owned, generationId: 7 }))).to.equal(
        '0003' + v0 + ownedHex + '00000007' + 'ffff',
      );
    });

    it('leaves out fields the version does not have, and defaults the version to the highest', () => {
      const s = { topics: ['t'], ownedPartitions: [{ topic: 't', partitions: [1] }], generationId: 4, rackId: 'r' };
      expect(decodeSubscription(encodeSubscription({ ...s, version: 0 }))).to.deep.equal({
        version: 0,
        topics: ['t'],
        userData: null,
        ownedPartitions: [],
        generationId: DEFAULT_GENERATION,
        rackId: null,
      });
      expect(decodeSubscription(encodeSubscription(s)).version).to.equal(3);
      expect(decodeAssignment(encodeAssignment({ partitions: [] })).version).to.equal(3);
    });

    it('encodes an assignment as int16 version, topic/partition arrays, nullable bytes', () => {
      const bytes = encodeAssignment({ version: 1, partitions: [{ topic: 'x', partitions: [3] }] });
      expect(hex(bytes)).to.equal('0001' + '00000001' + '000178' + '00000001' + '00000003' + 'ffffffff');
    });
  });

  describe('round trips', () => {
    it('subscription, every version (property)', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 3 }),
          fc.array(topicName, { maxLength: 6 }),
          nullableBytes,
          topicPartitions,
          fc.integer({ min: -1, max: 2 ** 31 - 1 }),
          fc.option(fc.string({ maxLength: 10 }), { nil: null }),
          (version, topics, userData, ownedPartitions, generationId, rackId) => {
            const decoded = decodeSubscription(encodeSubscription({ version, topics, userData, ownedPartitions, generationId, rackId }));
            expect(decoded).to.deep.equal({
              version,
              topics,
              userData,
              ownedPartitions: version >= 1 ? ownedPartitions : [],
              generationId: version >= 2 ? generationId : DEFAULT_GENERATION,
              rackId: version >= 3 ? rackId : null,
            });
          },
        ),
        { numRuns: 300, seed: 11 },
      );
    });

    it('assignment, every version (property)', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 3 }), topicPartitions, nullableBytes, (version, partitions, userData) => {
          expect(decodeAssignment(encodeAssignment({ version, partitions, userData }))).to.deep.equal({ version, partitions, userData });
        }),
        { numRuns: 300, seed: 12 },
      );
    });

    it('decodes from a view at a non-zero offset and copies userData out of the input', () => {
      const bytes = encodeSubscription({ version: 0, topics: ['t'], userData: new Uint8Array([1, 2, 3]) });
      const backing = new Uint8Array(bytes.length + 5);
      backing.set(bytes, 5);
      const s = decodeSubscription(backing.subarray(5));
      expect(s.topics).to.deep.equal(['t']);
      backing.fill(0);
      expect(Array.from(s.userData!)).to.deep.equal([1, 2, 3]);
    });
  });

  describe('agreement with KafkaJS', () => {
    it('subscription v0 bytes equal MemberMetadata.encode (property)', () => {
      fc.assert(
        fc.property(fc.array(topicName, { maxLength: 6 }), fc.uint8Array({ maxLength: 16 }), (topics, userData) => {
          const ours = encodeSubscription({ version: 0, topics, userData });
          const theirs = kafkajs.MemberMetadata.encode({ version: 0, topics, userData: Buffer.from(userData) });
          expect(hex(ours)).to.equal(hex(theirs));
          const back = kafkajs.MemberMetadata.decode(Buffer.from(ours));
          expect(back.topics).to.deep.equal(topics);
          expect(hex(back.userData)).to.equal(hex(userData));
        }),
        { numRuns: 200, seed: 13 },
      );
    });

    it('decodes the subscription KafkaJS sends by default (empty userData)', () => {
      const theirs = kafkajs.MemberMetadata.encode({ version: 0, topics: ['orders', 'payments'] });
      const s = decodeSubscription(theirs);
      expect(s.version).to.equal(0);
      expect(s.topics).to.deep.equal(['orders', 'payments']);
      expect(s.userData).to.deep.equal(new Uint8Array(0));
    });

    it('assignment bytes equal MemberAssignment.encode in every version (property)', () => {
      const distinctTopics = fc.uniqueArray(
        fc.record({ topic: topicName, partitions: fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 8 }) }),
        { maxLength: 5, selector: (t) => t.topic },
      );
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 3 }), distinctTopics, fc.uint8Array({ maxLength: 16 }), (version, partitions, userData) => {
          const assignment: Record<string, number[]> = {};
          for (const { topic, partitions: ps } of partitions) assignment[topic] = ps;
          // KafkaJS orders topics as Object.keys does; give ours the same order.
          const ordered = Object.keys(assignment).map((topic) => ({ topic, partitions: assignment[topic]! }));
          const ours = encodeAssignment({ version, partitions: ordered, userData });
          const theirs = kafkajs.MemberAssignment.encode({ version, assignment, userData: Buffer.from(userData) });
          expect(hex(ours)).to.equal(hex(theirs));
          const back = kafkajs.MemberAssignment.decode(Buffer.from(ours))!;
          expect(back.version).to.equal(version);
          expect(back.assignment).to.deep.equal(assignment);
        }),
        { numRuns: 200, seed: 14 },
      );
    });

    it('decodes an assignment KafkaJS encoded', () => {
      const theirs = kafkajs.MemberAssignment.encode({ version: 0, assignment: { a: [0, 1], b: [5] } });
      expect(decodeAssignment(theirs)).to.deep.equal({
        version: 0,
        partitions: [
          { topic: 'a', partitions: [0, 1] },
          { topic: 'b', partitions: [5] },
        ],
        userData: new Uint8Array(0),
      });
    });
  });

  describe('versions', () => {
    it('reads a newer subscription version as the highest known one, ignoring appended fields', () => {
      const v3 = encodeSubscription({ version: 3, topics: ['t'], generationId: 5, rackId: 'r' });
      const v4 = new Uint8Array(v3.length + 3);
      v4.set(v3);
      v4[1] = 4; // version 4, with 3 bytes of fields we do not know
      const s = decodeSubscription(v4);
      expect(s.version).to.equal(4);
      expect(s.topics).to.deep.equal(['t']);
      expect(s.generationId).to.equal(5);
      expect(s.rackId).to.equal('r');
    });

    it('decodes zero bytes as an empty assignment', () => {
      expect(decodeAssignment(new Uint8Array(0))).to.deep.equal({ version: 0, partitions: [], userData: null });
    });
  });

  describe('bad input', () => {
    it('throws ConsumerProtocolError for every truncation of a subscription, naming the field', () => {
      const full = encodeSubscription({
        version: 3,
        topics: ['alpha', 'beta'],
        userData: new Uint8Array([1, 2]),
        ownedPartitions: [{ topic: 'alpha', partitions: [0, 1] }],
        generationId: 3,
        rackId: 'rack',
      });
      for (let n = 0; n < full.length; n++) {
        expect(() => decodeSubscription(full.subarray(0, n)), `prefix of ${n}`).to.throw(ConsumerProtocolError, /Truncated consumer Subscription/);
      }
      expect(() => decodeSubscription(full.subarray(0, 5))).to.throw(/topics count needs 4 bytes at offset 2, only 3 left/);
    });

    it('throws ConsumerProtocolError for every non-empty truncation of an assignment', () => {
      const full = encodeAssignment({ version: 0, partitions: [{ topic: 't', partitions: [0, 9] }], userData: new Uint8Array([7]) });
      for (let n = 1; n < full.length; n++) {
        expect(() => decodeAssignment(full.subarray(0, n)), `prefix of ${n}`).to.throw(ConsumerProtocolError, /Truncated consumer Assignment/);
      }
    });

    it('rejects a huge array count without allocating for it', () => {
      const bytes = Uint8Array.from(Buffer.from('0000' + '7fffffff', 'hex'));
      expect(() => decodeSubscription(bytes)).to.throw(ConsumerProtocolError, /topics \(2147483647 elements\)/);
    });

    it('rejects negative counts, null topic names, negative versions and invalid UTF-8', () => {
      const cases: [string, RegExp][] = [
        ['0000' + 'fffffffe', /topics count is -2/],
        ['0000' + '00000001' + 'ffff', /topics\[0\] at offset 6 is null/],
        ['ffff' + '00000000' + 'ffffffff', /version -1/],
        ['0000' + '00000001' + '0002' + 'c328' + 'ffffffff', /not valid UTF-8/],
        ['0000' + '00000000' + 'fffffff0', /userData has length -16/],
      ];
      for (const [h, message] of cases) {
        expect(() => decodeSubscription(Uint8Array.from(Buffer.from(h, 'hex'))), h).to.throw(ConsumerProtocolError, message);
      }
      expect(() => decodeAssignment(Uint8Array.from(Buffer.from('0000' + 'ffffffff', 'hex')))).to.throw(ConsumerProtocolError, /partitions count is -1/);
    });

    it('refuses to encode what the format cannot carry', () => {
      expect(() => encodeSubscription({ topics: ['x'.repeat(40_000)] })).to.throw(ConsumerProtocolError, /above the maximum/);
      expect(() => encodeAssignment({ partitions: [{ topic: 't', partitions: [1.5] }] })).to.throw(ConsumerProtocolError, /32-bit integer/);
      expect(() => encodeAssignment({ partitions: [{ topic: 't', partitions: [2 ** 31] }] })).to.throw(ConsumerProtocolError);
      expect(() => encodeSubscription({ version: -1, topics: [] })).to.throw(ConsumerProtocolError, /version/);
    });
  });

  describe('helpers', () => {
    it('groupByTopic and flattenTopicPartitions convert between the two shapes', () => {
      const flat = [
        { topic: 'b', partition: 1 },
        { topic: 'a', partition: 0 },
        { topic: 'b', partition: 0 },
      ];
      const grouped = groupByTopic(flat);
      expect(grouped).to.deep.equal([
        { topic: 'b', partitions: [1, 0] },
        { topic: 'a', partitions: [0] },
      ]);
      expect(flattenTopicPartitions(grouped)).to.deep.equal([
        { topic: 'b', partition: 1 },
        { topic: 'b', partition: 0 },
        { topic: 'a', partition: 0 },
      ]);
    });
  });
});
