/**
 * The records of __consumer_offsets (offsets-store.ts): Kafka's binary layouts byte for byte,
 * every value version read, round trips, malformed input as OffsetsRecordError, and the replay
 * (latest value per key wins, tombstones delete, records below the read offset and unknown key
 * versions skipped), the KIP-848 consumer group and KIP-932 share group records.
 */
import { expect } from 'chai';
import {
  OffsetsRecordError,
  OffsetsReplay,
  buildOffsetsBatch,
  decodeGroupMetadataValue,
  decodeKey,
  decodeOffsetCommitValue,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  topicPartitionKey,
  type GroupMetadataValue,
  type OffsetCommitValue,
  ConsumerRecordType,
  decodeConsumerGroupValue,
  encodeConsumerGroupKey,
  encodeConsumerGroupValue,
  ShareRecordType,
  decodeShareGroupValue,
  encodeShareGroupKey,
  encodeShareGroupValue,
} from '../../../actors/group-coordinator/offsets-store.js';
import { setBaseOffset } from '../../../src/protocol/batch-header.js';
import { decodeRecordBatches } from '../../../src/protocol/record-batch.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const be16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]).toString('hex');
const be32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b.toString('hex');
};
const be64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b.toString('hex');
};
const str = (s: string) => be16(Buffer.byteLength(s)) + Buffer.from(s).toString('hex');
const bytes = (b: Uint8Array) => be32(b.length) + hex(b);
/** Kafka's flexible (compact) encodings: unsigned varint of length + 1. */
const cstr = (s: string) => Buffer.from([Buffer.byteLength(s) + 1]).toString('hex') + Buffer.from(s).toString('hex');

const offsetValue = (over: Partial<OffsetCommitValue> = {}): OffsetCommitValue => ({
  offset: 42,
  leaderEpoch: 3,
  metadata: 'meta',
  commitTimestamp: 1_700_000_000_123,
  expireTimestamp: -1,
  ...over,
});

const groupValue = (over: Partial<GroupMetadataValue> = {}): GroupMetadataValue => ({
  protocolType: 'consumer',
  generation: 7,
  protocol: 'range',
  leader: 'c-1',
  currentStateTimestamp: 1_700_000_000_000,
  members: [
    {
      memberId: 'c-1',
      groupInstanceId: null,
      clientId: 'c',
      clientHost: '/10.0.0.1',
      rebalanceTimeoutMs: 300_000,
      sessionTimeoutMs: 45_000,
      subscription: Uint8Array.from([1, 2, 3]),
      assignment: Uint8Array.from([4, 5]),
    },
    {
      memberId: 'c-2',
      groupInstanceId: 'instance-2',
      clientId: 'c',
      clientHost: '/10.0.0.2',
      rebalanceTimeoutMs: 60_000,
      sessionTimeoutMs: 10_000,
      subscription: new Uint8Array(0),
      assignment: Uint8Array.from([9]),
    },
  ],
  ...over,
});

describe('actors/group-coordinator offsets records', () => {
  describe('keys', () => {
    it('writes OffsetCommitKey v1 and GroupMetadataKey v2 as Kafka lays them out', () => {
      expect(hex(encodeOffsetCommitKey('g', 'topic', 5))).to.equal(be16(1) + str('g') + str('topic') + be32(5));
      expect(hex(encodeGroupMetadataKey('group-é'))).to.equal(be16(2) + str('group-é'));
    });

    it('reads key versions 0, 1 and 2, the consumer group keys 3-8, and reports newer record types as unknown', () => {
      expect(decodeKey(Buffer.from(be16(0) + str('g') + str('t') + be32(1), 'hex'))).to.deep.equal({ kind: 'offset', group: 'g', topic: 't', partition: 1 });
      expect(decodeKey(encodeOffsetCommitKey('g', 't', 2))).to.deep.equal({ kind: 'offset', group: 'g', topic: 't', partition: 2 });
      expect(decodeKey(encodeGroupMetadataKey('g'))).to.deep.equal({ kind: 'group', group: 'g' });
      expect(decodeKey(Buffer.from(be16(3) + str('g'), 'hex'))).to.deep.equal({ kind: 'consumer-group', record: 3, group: 'g', memberId: null });
      expect(decodeKey(Buffer.from(be16(8) + str('g') + str('m'), 'hex'))).to.deep.equal({ kind: 'consumer-group', record: 8, group: 'g', memberId: 'm' });
      expect(hex(encodeConsumerGroupKey(ConsumerRecordType.MemberMetadata, 'g', 'm'))).to.equal(be16(5) + str('g') + str('m'));
      expect(decodeKey(Buffer.from(be16(9) + str('g'), 'hex'))).to.deep.equal({ kind: 'unknown', version: 9 });
    });

    it('writes the consumer group values in Kafka\'s flexible version 0 and reads them back', () => {
      const T = 'AAAAAAAAAAAAAAAAAAAAAg';
      // ConsumerGroupMetadataValue: version, epoch, no tagged fields
      expect(hex(encodeConsumerGroupValue({ record: ConsumerRecordType.Metadata, value: { epoch: 7 } }))).to.equal(be16(0) + be32(7) + '00');
      // TargetAssignmentMember: compact array of { uuid, compact array of int32, tags }, tags
      expect(hex(encodeConsumerGroupValue({ record: ConsumerRecordType.TargetAssignmentMember, value: [{ topicId: T, partitions: [1, 2] }] }))).to.equal(
        be16(0) + '02' + Buffer.from(T, 'base64url').toString('hex') + '03' + be32(1) + be32(2) + '00' + '00',
      );
      const values = [
        { record: ConsumerRecordType.Metadata, value: { epoch: 3 } },
        { record: ConsumerRecordType.PartitionMetadata, value: [{ topicId: T, name: 't', numPartitions: 4 }] },
        { record: ConsumerRecordType.MemberMetadata, value: { instanceId: 'i', rackId: null, clientId: 'c', clientHost: '/h', subscribedTopicNames: ['t', 'u'], subscribedTopicRegex: null, rebalanceTimeoutMs: 300, serverAssignor: 'range', classicMemberMetadata: null } },
        { record: ConsumerRecordType.MemberMetadata, value: { instanceId: null, rackId: null, clientId: 'c', clientHost: '/h', subscribedTopicNames: [], subscribedTopicRegex: 'orders-.*', rebalanceTimeoutMs: 300, serverAssignor: null, classicMemberMetadata: null } },
        {
          record: ConsumerRecordType.MemberMetadata,
          value: {
            instanceId: null,
            rackId: null,
            clientId: 'c',
            clientHost: '/h',
            subscribedTopicNames: ['t'],
            subscribedTopicRegex: null,
            rebalanceTimeoutMs: 300,
            serverAssignor: null,
            classicMemberMetadata: { sessionTimeoutMs: 45_000, supportedProtocols: [{ name: 'range', metadata: new Uint8Array([0, 3, 1]) }] },
          },
        },
        { record: ConsumerRecordType.TargetAssignmentMetadata, value: { assignmentEpoch: 3 } },
        { record: ConsumerRecordType.TargetAssignmentMember, value: [{ topicId: T, partitions: [0, 3] }] },
        { record: ConsumerRecordType.CurrentMemberAssignment, value: { memberEpoch: 3, previousMemberEpoch: 2, state: 1, assigned: [{ topicId: T, partitions: [0] }], pendingRevocation: [{ topicId: T, partitions: [1] }] } },
      ] as const;
      for (const v of values) expect(decodeConsumerGroupValue(v.record, encodeConsumerGroupValue(v as never))).to.deep.equal(v);
      // Kafka writes a member without a regular expression with '': read as none
      const member = { instanceId: null, rackId: null, clientId: 'c', clientHost: '/h', subscribedTopicNames: ['t'], rebalanceTimeoutMs: 300, serverAssignor: null, classicMemberMetadata: null };
      const kafkaNone = encodeConsumerGroupValue({ record: ConsumerRecordType.MemberMetadata, value: { ...member, subscribedTopicRegex: '' } });
      expect(decodeConsumerGroupValue(ConsumerRecordType.MemberMetadata, kafkaNone)).to.deep.equal({ record: ConsumerRecordType.MemberMetadata, value: { ...member, subscribedTopicRegex: null } });
    });

    it("writes a classic member's metadata as Kafka's tagged field 0 of ConsumerGroupMemberMetadataValue", () => {
      const value = { instanceId: null, rackId: null, clientId: 'c', clientHost: 'h', subscribedTopicNames: [], subscribedTopicRegex: null, rebalanceTimeoutMs: 5, serverAssignor: null };
      const plain = hex(encodeConsumerGroupValue({ record: ConsumerRecordType.MemberMetadata, value: { ...value, classicMemberMetadata: null } }));
      const classic = hex(encodeConsumerGroupValue({ record: ConsumerRecordType.MemberMetadata, value: { ...value, classicMemberMetadata: { sessionTimeoutMs: 10, supportedProtocols: [{ name: 'r', metadata: new Uint8Array([9]) }] } } }));
      // one tagged field: tag 0, size 12: sessionTimeoutMs, compact array of { compact string, compact bytes, tags }, tags
      const struct = be32(10) + '02' + '02' + Buffer.from('r').toString('hex') + '02' + '09' + '00' + '00';
      expect(classic).to.equal(plain.slice(0, -2) + '01' + '00' + (struct.length / 2).toString(16).padStart(2, '0') + struct);
    });

    it("writes the share group keys 10-14 as Kafka 4.2 lays them out (group, and the member for 10, 13, 14); 15 and 16 are unknown", () => {
      expect(hex(encodeShareGroupKey(ShareRecordType.Metadata, 'g'))).to.equal(be16(11) + str('g'));
      expect(hex(encodeShareGroupKey(ShareRecordType.MemberMetadata, 'g', 'm'))).to.equal(be16(10) + str('g') + str('m'));
      for (const [record, member] of [
        [ShareRecordType.MemberMetadata, 'm'],
        [ShareRecordType.Metadata, null],
        [ShareRecordType.TargetAssignmentMetadata, null],
        [ShareRecordType.TargetAssignmentMember, 'm'],
        [ShareRecordType.CurrentMemberAssignment, 'm'],
      ] as const) {
        expect(decodeKey(encodeShareGroupKey(record, 'g', member))).to.deep.equal({ kind: 'share-group', record, group: 'g', memberId: member });
      }
      expect(() => encodeShareGroupKey(ShareRecordType.Metadata, 'g', 'm')).to.throw(OffsetsRecordError, /takes no member id/);
      expect(() => encodeShareGroupKey(ShareRecordType.CurrentMemberAssignment, 'g')).to.throw(OffsetsRecordError, /needs member id/);
      expect(decodeKey(Buffer.from(be16(15) + str('g'), 'hex'))).to.deep.equal({ kind: 'unknown', version: 15 });
      expect(decodeKey(Buffer.from(be16(16) + str('g'), 'hex'))).to.deep.equal({ kind: 'unknown', version: 16 });
    });

    it("writes the share group values in Kafka's flexible version 0 and reads them back; a 4.0 ShareGroupMetadataValue (no hash) reads as hash 0", () => {
      const T = 'AAAAAAAAAAAAAAAAAAAAAg';
      // ShareGroupMemberMetadataValue: version, compact nullable rack, client id, host, compact array of compact strings, tags
      expect(hex(encodeShareGroupValue({ record: ShareRecordType.MemberMetadata, value: { rackId: null, clientId: 'c', clientHost: '/h', subscribedTopicNames: ['t'] } }))).to.equal(
        be16(0) + '00' + cstr('c') + cstr('/h') + '02' + cstr('t') + '00',
      );
      // ShareGroupMetadataValue: version, epoch, metadata hash, tags
      expect(hex(encodeShareGroupValue({ record: ShareRecordType.Metadata, value: { epoch: 7, metadataHash: 123456789 } }))).to.equal(be16(0) + be32(7) + be64(123456789) + '00');
      // ShareGroupCurrentMemberAssignmentValue: epochs, state, compact array of topic partitions, tags
      expect(hex(encodeShareGroupValue({ record: ShareRecordType.CurrentMemberAssignment, value: { memberEpoch: 3, previousMemberEpoch: 2, state: 0, assigned: [{ topicId: T, partitions: [1] }] } }))).to.equal(
        be16(0) + be32(3) + be32(2) + '00' + '02' + Buffer.from(T, 'base64url').toString('hex') + '02' + be32(1) + '00' + '00',
      );
      const values = [
        { record: ShareRecordType.MemberMetadata, value: { rackId: 'r1', clientId: 'c', clientHost: '/h', subscribedTopicNames: ['t', 'u'] } },
        { record: ShareRecordType.Metadata, value: { epoch: 3, metadataHash: 2 ** 47 + 5 } },
        { record: ShareRecordType.TargetAssignmentMetadata, value: { assignmentEpoch: 3 } },
        { record: ShareRecordType.TargetAssignmentMember, value: [{ topicId: T, partitions: [0, 3] }] },
        { record: ShareRecordType.CurrentMemberAssignment, value: { memberEpoch: 3, previousMemberEpoch: 2, state: 0, assigned: [] } },
      ] as const;
      for (const v of values) expect(decodeShareGroupValue(v.record, encodeShareGroupValue(v as never))).to.deep.equal(v);
      expect(decodeShareGroupValue(ShareRecordType.Metadata, Buffer.from(be16(0) + be32(4) + '00', 'hex'))).to.deep.equal({ record: ShareRecordType.Metadata, value: { epoch: 4, metadataHash: 0 } });
      expect(() => decodeShareGroupValue(ShareRecordType.Metadata, Buffer.from(be16(1) + be32(4) + '00', 'hex'))).to.throw(OffsetsRecordError, /unknown value version 1/);
      expect(() => decodeShareGroupValue(ShareRecordType.CurrentMemberAssignment, Buffer.from(be16(0) + be32(4), 'hex'))).to.throw(OffsetsRecordError, /truncated/);
    });

    it('refuses truncated and negative-length keys with OffsetsRecordError', () => {
      expect(() => decodeKey(Buffer.from(be16(1) + be16(5) + '6162', 'hex'))).to.throw(OffsetsRecordError, /truncated/);
      expect(() => decodeKey(Buffer.from(be16(2) + be16(0xfffe), 'hex'))).to.throw(OffsetsRecordError, /negative length/);
      expect(() => decodeKey(Buffer.from('00', 'hex'))).to.throw(OffsetsRecordError);
      expect(() => decodeKey(Buffer.from(be16(2) + be16(0xffff), 'hex'))).to.throw(OffsetsRecordError, /null/);
    });
  });

  describe('OffsetCommitValue', () => {
    it('writes version 3: offset, leader epoch, metadata, commit timestamp', () => {
      const v = offsetValue();
      expect(hex(encodeOffsetCommitValue(v))).to.equal(be16(3) + be64(42) + be32(3) + str('meta') + be64(v.commitTimestamp));
    });

    it('reads versions 0 to 4 (v1 has an expire timestamp, v3+ a leader epoch, v4 compact strings and tagged fields)', () => {
      const ts = 1_700_000_000_123;
      const v0 = Buffer.from(be16(0) + be64(10) + str('m') + be64(ts), 'hex');
      expect(decodeOffsetCommitValue(v0)).to.deep.equal({ offset: 10, leaderEpoch: -1, metadata: 'm', commitTimestamp: ts, expireTimestamp: -1 });
      const v1 = Buffer.from(be16(1) + be64(11) + str('') + be64(ts) + be64(ts + 5), 'hex');
      expect(decodeOffsetCommitValue(v1)).to.deep.equal({ offset: 11, leaderEpoch: -1, metadata: '', commitTimestamp: ts, expireTimestamp: ts + 5 });
      const v2 = Buffer.from(be16(2) + be64(12) + str('x') + be64(ts), 'hex');
      expect(decodeOffsetCommitValue(v2).offset).to.equal(12);
      const v4 = Buffer.from(be16(4) + be64(13) + be32(9) + cstr('flex') + be64(ts) + '01' + '05' + '02' + 'abcd', 'hex');
      expect(decodeOffsetCommitValue(v4)).to.deep.equal({ offset: 13, leaderEpoch: 9, metadata: 'flex', commitTimestamp: ts, expireTimestamp: -1 });
      for (const version of [0, 1, 2, 3, 4]) {
        const v = offsetValue({ leaderEpoch: version >= 3 ? 3 : -1, expireTimestamp: version === 1 ? 99 : -1 });
        expect(decodeOffsetCommitValue(encodeOffsetCommitValue(v, version)), `v${version}`).to.deep.equal(v);
      }
    });

    it('refuses unknown versions, truncation, and metadata beyond a Kafka string', () => {
      expect(() => decodeOffsetCommitValue(Buffer.from(be16(5) + be64(1), 'hex'))).to.throw(OffsetsRecordError, /unknown version 5/);
      expect(() => decodeOffsetCommitValue(Buffer.from(be16(3) + be64(1), 'hex'))).to.throw(OffsetsRecordError, /truncated/);
      expect(() => encodeOffsetCommitValue(offsetValue({ metadata: 'x'.repeat(40_000) }))).to.throw(OffsetsRecordError, /more than a Kafka string holds/);
      expect(() => encodeOffsetCommitValue(offsetValue({ offset: 2 ** 60 }))).to.throw(OffsetsRecordError, /safe integer/);
    });
  });

  describe('GroupMetadataValue', () => {
    it('writes version 3 field by field as Kafka does', () => {
      const v = groupValue({ members: [groupValue().members[1]!] });
      const m = v.members[0]!;
      const expected =
        be16(3) +
        str('consumer') +
        be32(7) +
        str('range') +
        str('c-1') +
        be64(v.currentStateTimestamp) +
        be32(1) +
        str(m.memberId) +
        str('instance-2') +
        str(m.clientId) +
        str(m.clientHost) +
        be32(m.rebalanceTimeoutMs) +
        be32(m.sessionTimeoutMs) +
        bytes(m.subscription) +
        bytes(m.assignment);
      expect(hex(encodeGroupMetadataValue(v))).to.equal(expected);
    });

    it('writes null protocol and leader of an empty group as -1 lengths', () => {
      const v = groupValue({ protocol: null, leader: null, members: [] });
      expect(hex(encodeGroupMetadataValue(v))).to.equal(be16(3) + str('consumer') + be32(7) + 'ffff' + 'ffff' + be64(v.currentStateTimestamp) + be32(0));
      expect(decodeGroupMetadataValue(encodeGroupMetadataValue(v))).to.deep.equal(v);
    });

    it('round-trips every version, with the fields older versions lack taking Kafka defaults', () => {
      for (const version of [0, 1, 2, 3, 4]) {
        const v = groupValue();
        const back = decodeGroupMetadataValue(encodeGroupMetadataValue(v, version));
        expect(back.generation, `v${version}`).to.equal(7);
        expect(back.currentStateTimestamp).to.equal(version >= 2 ? v.currentStateTimestamp : -1);
        expect(back.members.map((x) => x.groupInstanceId)).to.deep.equal(version >= 3 ? [null, 'instance-2'] : [null, null]);
        // v0 had no rebalance timeout: the session timeout stands in
        expect(back.members.map((x) => x.rebalanceTimeoutMs)).to.deep.equal(version >= 1 ? [300_000, 60_000] : [45_000, 10_000]);
        expect(back.members.map((x) => [...x.assignment])).to.deep.equal([[4, 5], [9]]);
        expect(back.members.map((x) => [...x.subscription])).to.deep.equal([[1, 2, 3], []]);
      }
    });

    it('refuses damaged values', () => {
      const good = encodeGroupMetadataValue(groupValue());
      expect(() => decodeGroupMetadataValue(good.subarray(0, good.length - 3))).to.throw(OffsetsRecordError, /truncated/);
      const badUtf8 = Buffer.from(be16(3) + be16(2) + 'c328' + be32(1), 'hex');
      expect(() => decodeGroupMetadataValue(badUtf8)).to.throw(OffsetsRecordError, /UTF-8/);
    });
  });

  describe('batches and replay', () => {
    const commit = (group: string, topic: string, partition: number, offset: number) => ({
      key: encodeOffsetCommitKey(group, topic, partition),
      value: encodeOffsetCommitValue(offsetValue({ offset })),
    });
    /** Batches as a log holds them: offsets assigned. */
    function log(...batches: { records: { key: Uint8Array; value: Uint8Array | null }[]; ts: number }[]): Buffer {
      let next = 0;
      return Buffer.concat(
        batches.map((b) => {
          const buf = buildOffsetsBatch(b.records, b.ts);
          setBaseOffset(buf, 0, next);
          next += b.records.length;
          return buf;
        }),
      );
    }

    it('builds one RecordBatch v2 with the keys, values (null for tombstones) and timestamp', () => {
      const buf = buildOffsetsBatch([commit('g', 't', 0, 5), { key: encodeGroupMetadataKey('g'), value: null }], 1234);
      const [batch] = decodeRecordBatches(buf);
      expect(batch!.records).to.have.length(2);
      expect(batch!.records.map((r) => r.timestamp)).to.deep.equal([1234, 1234]);
      expect(batch!.records[1]!.value).to.equal(null);
      expect(decodeKey(batch!.records[0]!.key!)).to.deep.equal({ kind: 'offset', group: 'g', topic: 't', partition: 0 });
      expect(() => buildOffsetsBatch([], 1)).to.throw(OffsetsRecordError);
    });

    it('keeps the latest value per key; tombstones delete offsets and groups', () => {
      const r = new OffsetsReplay();
      const bytesOfLog = log(
        { records: [commit('g', 't', 0, 1), commit('g', 't', 1, 10), { key: encodeGroupMetadataKey('g'), value: encodeGroupMetadataValue(groupValue()) }], ts: 100 },
        { records: [commit('g', 't', 0, 2), commit('h', 'u', 0, 7)], ts: 200 },
        { records: [{ key: encodeOffsetCommitKey('g', 't', 1), value: null }, { key: encodeGroupMetadataKey('h'), value: encodeGroupMetadataValue(groupValue({ generation: 1 })) }], ts: 300 },
        { records: [{ key: encodeGroupMetadataKey('h'), value: null }], ts: 400 },
      );
      const progress = r.applyBatches(bytesOfLog, 0);
      expect(progress).to.deep.include({ nextOffset: 8, records: 8, problems: [] });
      const g = r.offsets.get('g')!;
      expect([...g.keys()]).to.deep.equal([topicPartitionKey('t', 0)]);
      expect(g.get(topicPartitionKey('t', 0))).to.deep.include({ topic: 't', partition: 0, logOffset: 3, timestamp: 200 });
      expect(g.get(topicPartitionKey('t', 0))!.value.offset).to.equal(2);
      expect(r.groups.get('g')!.value.generation).to.equal(7);
      expect(r.groups.get('g')!.logOffset).to.equal(2);
      expect(r.groups.has('h')).to.equal(false);
      expect(r.offsets.get('h')!.size).to.equal(1);
      expect([...r.groupIds()].sort()).to.deep.equal(['g', 'h']);
    });

    it('skips records below the offset asked for, records without a key, unknown key versions and undecodable values', () => {
      const r = new OffsetsReplay();
      const bytesOfLog = log(
        { records: [commit('g', 't', 0, 1), commit('g', 't', 0, 2)], ts: 1 },
        {
          records: [
            { key: Buffer.from(be16(9) + str('g'), 'hex'), value: Buffer.from('00', 'hex') },
            { key: encodeOffsetCommitKey('g', 't', 9), value: Buffer.from(be16(3) + '00', 'hex') },
          ],
          ts: 2,
        },
      );
      const progress = r.applyBatches(bytesOfLog, 1);
      expect(progress.records).to.equal(1);
      expect(progress.problems).to.have.length(2);
      expect(progress.problems[0]).to.match(/offset 2: key version 9/);
      expect(progress.problems[1]).to.match(/offset 3: OffsetCommitValue: truncated/);
      expect(r.offsets.get('g')!.get(topicPartitionKey('t', 0))!.value.offset).to.equal(2);
      expect(r.applyRecord(null, null, 9, 0)).to.match(/without a key/);
    });

    it('folds a share group from its records: members with their metadata, targets and current assignments; tombstones remove a member, then the group', () => {
      const T = 'AAAAAAAAAAAAAAAAAAAAAg';
      const rec = (type: ShareRecordType, member: string | null, value: unknown) => ({
        key: encodeShareGroupKey(type, 'sg', member),
        value: value === null ? null : encodeShareGroupValue({ record: type, value } as never),
      });
      const member = (clientId: string) => ({ rackId: null, clientId, clientHost: '/h', subscribedTopicNames: ['t'] });
      const current = (memberEpoch: number, partitions: number[]) => ({ memberEpoch, previousMemberEpoch: 0, state: 0, assigned: [{ topicId: T, partitions }] });
      const records = [
        { records: [rec(ShareRecordType.MemberMetadata, 'a', member('ca')), rec(ShareRecordType.Metadata, null, { epoch: 1, metadataHash: 9 }), rec(ShareRecordType.TargetAssignmentMember, 'a', [{ topicId: T, partitions: [0, 1] }]), rec(ShareRecordType.TargetAssignmentMetadata, null, { assignmentEpoch: 1 }), rec(ShareRecordType.CurrentMemberAssignment, 'a', current(1, [0, 1]))], ts: 100 },
        { records: [rec(ShareRecordType.MemberMetadata, 'b', member('cb')), rec(ShareRecordType.Metadata, null, { epoch: 2, metadataHash: 9 }), rec(ShareRecordType.TargetAssignmentMember, 'b', [{ topicId: T, partitions: [1] }]), rec(ShareRecordType.CurrentMemberAssignment, 'b', current(2, [1]))], ts: 200 },
      ];
      let r = new OffsetsReplay();
      expect(r.applyBatches(log(...records), 0).problems).to.deep.equal([]);
      const g = r.shareGroups.get('sg')!;
      expect(g).to.deep.include({ epoch: 2, metadataHash: 9, assignmentEpoch: 1, oldestTimestamp: 100 });
      expect([...g.members.keys()]).to.deep.equal(['a', 'b']);
      expect(g.members.get('b')).to.deep.equal(member('cb'));
      expect(g.targets.get('b')).to.deep.equal([{ topicId: T, partitions: [1] }]);
      expect(g.currents.get('a')).to.deep.equal(current(1, [0, 1]));
      expect([...r.groupIds()]).to.deep.equal(['sg']);
      // b's tombstones
      const leave = { records: [rec(ShareRecordType.CurrentMemberAssignment, 'b', null), rec(ShareRecordType.TargetAssignmentMember, 'b', null), rec(ShareRecordType.MemberMetadata, 'b', null), rec(ShareRecordType.Metadata, null, { epoch: 3, metadataHash: 9 })], ts: 300 };
      r = new OffsetsReplay();
      r.applyBatches(log(...records, leave), 0);
      expect([...r.shareGroups.get('sg')!.members.keys()]).to.deep.equal(['a']);
      expect(r.shareGroups.get('sg')!.targets.has('b')).to.equal(false);
      expect(r.shareGroups.get('sg')!.currents.has('b')).to.equal(false);
      // the group deleted (as DeleteGroups writes it, after the last member left): gone
      const del = {
        records: [
          rec(ShareRecordType.CurrentMemberAssignment, 'a', null),
          rec(ShareRecordType.TargetAssignmentMember, 'a', null),
          rec(ShareRecordType.MemberMetadata, 'a', null),
          rec(ShareRecordType.TargetAssignmentMetadata, null, null),
          rec(ShareRecordType.Metadata, null, null),
        ],
        ts: 400,
      };
      r = new OffsetsReplay();
      r.applyBatches(log(...records, leave, del), 0);
      expect(r.shareGroups.has('sg')).to.equal(false);
      expect([...r.groupIds()]).to.deep.equal([]);
      // member records without the group epoch record (its tombstone came first): not a group
      r = new OffsetsReplay();
      r.applyBatches(log({ records: [rec(ShareRecordType.Metadata, null, null), rec(ShareRecordType.MemberMetadata, 'x', member('cx'))], ts: 1 }), 0);
      expect([...r.groupIds()]).to.deep.equal([]);
    });

    it('keeps topic-partition keys apart even when topic names hold separators', () => {
      expect(topicPartitionKey('a/1', 2)).to.not.equal(topicPartitionKey('a', 12));
      expect(topicPartitionKey('x', 1)).to.not.equal(topicPartitionKey('1/x', 0));
    });
  });
});
