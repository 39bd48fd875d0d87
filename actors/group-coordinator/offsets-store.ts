/**
 * The records of __consumer_offsets, in Kafka's own binary schemas, so Kafka's tools could read
 * a samsa offsets log (and the other way round):
 *
 *   key   OffsetCommitKey   int16 version (0|1) | group string | topic string | partition int32
 *   value OffsetCommitValue int16 version | offset int64 | [v3+ leaderEpoch int32] | metadata string |
 *                           commitTimestamp int64 | [v1 only: expireTimestamp int64]
 *   key   GroupMetadataKey  int16 version (2) | group string
 *   value GroupMetadataValue int16 version | protocolType string | generation int32 |
 *                           protocol nullable string | leader nullable string |
 *                           [v2+ currentStateTimestamp int64] | members array of
 *                           { memberId | [v3+ groupInstanceId nullable] | clientId | clientHost |
 *                             [v1+ rebalanceTimeout int32] | sessionTimeout int32 |
 *                             subscription bytes | assignment bytes }
 *
 * Strings are int16 length + UTF-8 (-1 = null), bytes int32 length, arrays int32 count; value
 * version 4 is Kafka's "flexible" form (compact lengths as unsigned varints of n + 1, tagged
 * fields after each struct), read here but never written. A null value is a tombstone. We write
 * key versions 1 and 2 and value version 3, as Kafka 2.3+ does.
 *
 * KIP-848 consumer groups are written as Kafka's records too, key int16 version (the record type)
 * | group string [| memberId string], values in their flexible version 0 (topic ids as 16-byte
 * Uuids, no tagged fields written, no racks):
 *
 *   3 ConsumerGroupMetadata            epoch int32
 *   4 ConsumerGroupPartitionMetadata   topics [topicId uuid | topicName | numPartitions int32 | partitionMetadata []]
 *   5 ConsumerGroupMemberMetadata      (member) instanceId? | rackId? | clientId | clientHost |
 *                                      subscribedTopicNames [] | subscribedTopicRegex? | rebalanceTimeoutMs | serverAssignor?
 *                                      [tagged 0: classicMemberMetadata sessionTimeoutMs int32 | supportedProtocols [name | metadata bytes]]
 *   6 ConsumerGroupTargetAssignmentMetadata  assignmentEpoch int32
 *   7 ConsumerGroupTargetAssignmentMember    (member) topicPartitions [topicId | partitions []]
 *   8 ConsumerGroupCurrentMemberAssignment   (member) memberEpoch | previousMemberEpoch | state int8 |
 *                                      assignedPartitions [] | partitionsPendingRevocation []
 *
 * The replay folds them per group (ReplayedConsumerGroup); a group whose ConsumerGroupMetadata
 * record has a tombstone is gone. KIP-932 share groups are written as Kafka 4.2's share group
 * records, in the same shapes (ReplayedShareGroup):
 *
 *  10 ShareGroupMemberMetadata         (member) rackId? | clientId | clientHost | subscribedTopicNames []
 *  11 ShareGroupMetadata               epoch int32 | metadataHash int64 (samsa's hash of the
 *                                      subscribed topics' ids, names and partition counts; 0: none)
 *  12 ShareGroupTargetAssignmentMetadata  assignmentEpoch int32
 *  13 ShareGroupTargetAssignmentMember (member) topicPartitions [topicId | partitions []]
 *  14 ShareGroupCurrentMemberAssignment (member) memberEpoch | previousMemberEpoch | state int8 | assignedPartitions []
 *
 * A share group's partitions' delivery state is the share coordinator's (__share_group_state).
 * Other key versions above 8 are skipped: Kafka's ShareGroupStatePartitionMetadata (15: samsa's
 * share partition managers make a partition's state when it is first assigned, and keep no list
 * here) and ConsumerGroupRegularExpression (16: samsa writes no resolution of a member's regular
 * expression, which a coordinator taking the group over resolves again).
 *
 * The replay (OffsetsReplay) folds the log of one offsets partition into the latest value per
 * key, tombstones deleting. Offsets a transaction committed (TxnOffsetCommit: transactional
 * batches of the producer) count only once its COMMIT marker follows, and only where no newer
 * record of the key came first; an ABORT marker drops them; a transaction still open at the end
 * leaves them pending (`pendingTransactions`). It also remembers for every live key the log offset and the timestamp of
 * its newest record: the coordinator rewrites keys whose newest record grows old, so that time
 * retention on the topic can delete old segments without losing a live key.
 */
import { ControlType, txnMarkerTypeOfKey } from '../../src/protocol/control-records.js';
import { decodeRecordBatches, encodeRecordBatch, type DecodedRecord } from '../../src/protocol/record-batch.js';
import { RecordReader, RecordWriter } from './record-codec.js';

export const OFFSET_COMMIT_KEY_VERSION = 1;
export const GROUP_METADATA_KEY_VERSION = 2;
export const OFFSET_COMMIT_VALUE_VERSION = 3;
export const GROUP_METADATA_VALUE_VERSION = 3;
const MAX_OFFSET_COMMIT_VALUE_VERSION = 4;
const MAX_GROUP_METADATA_VALUE_VERSION = 4;
const FIRST_FLEXIBLE_VERSION = 4;

/** Bytes that are not a record of this topic in a version we know, or values that do not fit the schema. */
export class OffsetsRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OffsetsRecordError';
  }
}

export interface OffsetCommitKey {
  kind: 'offset';
  group: string;
  topic: string;
  partition: number;
}

export interface GroupMetadataKey {
  kind: 'group';
  group: string;
}

/** A key of a record type we do not handle (Kafka's share-group records and anything newer). */
export interface UnknownKey {
  kind: 'unknown';
  version: number;
}

/** The KIP-848 consumer group records, by their key version (Kafka's record type). */
export enum ConsumerRecordType {
  Metadata = 3,
  PartitionMetadata = 4,
  MemberMetadata = 5,
  TargetAssignmentMetadata = 6,
  TargetAssignmentMember = 7,
  CurrentMemberAssignment = 8,
}

/** A consumer group record's key: the group, and the member for the per-member records. */
export interface ConsumerGroupRecordKey {
  kind: 'consumer-group';
  record: ConsumerRecordType;
  group: string;
  memberId: string | null;
}

/** The KIP-932 share group records, by their key version (Kafka's record type). */
export enum ShareRecordType {
  MemberMetadata = 10,
  Metadata = 11,
  TargetAssignmentMetadata = 12,
  TargetAssignmentMember = 13,
  CurrentMemberAssignment = 14,
}

/** A share group record's key (KIP-932): the group, and the member for the per-member records. */
export interface ShareGroupRecordKey {
  kind: 'share-group';
  record: ShareRecordType;
  group: string;
  memberId: string | null;
}

const perShareMember = (t: ShareRecordType): boolean =>
  t === ShareRecordType.MemberMetadata || t === ShareRecordType.TargetAssignmentMember || t === ShareRecordType.CurrentMemberAssignment;

/** Kafka's ShareGroupMetadataValue: the group epoch, and the hash of its subscribed topics' metadata (0: none). */
export interface ShareGroupMetadataValue {
  epoch: number;
  metadataHash: number;
}

export type OffsetsRecordKey = OffsetCommitKey | GroupMetadataKey | ConsumerGroupRecordKey | ShareGroupRecordKey | UnknownKey;

export interface OffsetCommitValue {
  offset: number;
  /** -1 when unknown (and in values before v3). */
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
  /** Only value v1 carries an explicit expiry; -1 otherwise. */
  expireTimestamp: number;
}

export interface GroupMemberValue {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  /** The member's metadata for the group's protocol (a consumer Subscription). */
  subscription: Uint8Array;
  assignment: Uint8Array;
}

export interface GroupMetadataValue {
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  /** When the group entered its current state; -1 when unknown. */
  currentStateTimestamp: number;
  members: GroupMemberValue[];
}

// ---------------------------------------------------------------------------------------------
// The writer and reader of this topic's records (record-codec.ts), throwing OffsetsRecordError

const recordError = (message: string): Error => new OffsetsRecordError(message);

/** `flexible`: value version 4 and the KIP-848/932 values (compact lengths, tagged fields). */
function writer(flexible = false): RecordWriter {
  return new RecordWriter(recordError, flexible);
}

function reader(bytes: Uint8Array, what: string): RecordReader {
  return new RecordReader(bytes, what, recordError);
}

// ---------------------------------------------------------------------------------------------
// Keys

export function encodeOffsetCommitKey(group: string, topic: string, partition: number): Uint8Array {
  return writer()
    .int16(OFFSET_COMMIT_KEY_VERSION, 'key version')
    .string(group, 'group')
    .string(topic, 'topic')
    .int32(partition, 'partition')
    .finish();
}

export function encodeGroupMetadataKey(group: string): Uint8Array {
  return writer().int16(GROUP_METADATA_KEY_VERSION, 'key version').string(group, 'group').finish();
}

export function decodeKey(bytes: Uint8Array): OffsetsRecordKey {
  const r = reader(bytes, 'offsets record key');
  const version = r.int16('version');
  if (version === 0 || version === 1) {
    const group = r.string('group');
    const topic = r.string('topic');
    const partition = r.int32('partition');
    return { kind: 'offset', group, topic, partition };
  }
  if (version === 2) return { kind: 'group', group: r.string('group') };
  if (version >= ConsumerRecordType.Metadata && version <= ConsumerRecordType.CurrentMemberAssignment) {
    const group = r.string('group');
    const perMember = version === ConsumerRecordType.MemberMetadata || version === ConsumerRecordType.TargetAssignmentMember || version === ConsumerRecordType.CurrentMemberAssignment;
    return { kind: 'consumer-group', record: version, group, memberId: perMember ? r.string('memberId') : null };
  }
  if (version >= ShareRecordType.MemberMetadata && version <= ShareRecordType.CurrentMemberAssignment) {
    const group = r.string('group');
    return { kind: 'share-group', record: version, group, memberId: perShareMember(version) ? r.string('memberId') : null };
  }
  if (version < 0) throw new OffsetsRecordError(`offsets record key: negative version ${version}`);
  return { kind: 'unknown', version };
}

export function encodeShareGroupKey(record: ShareRecordType, group: string, memberId: string | null = null): Uint8Array {
  if (perShareMember(record) !== (memberId !== null)) throw new OffsetsRecordError(`share group record ${record}: ${memberId === null ? 'needs' : 'takes no'} member id`);
  const w = writer().int16(record, 'key version').string(group, 'group');
  if (memberId !== null) w.string(memberId, 'memberId');
  return w.finish();
}

export function encodeConsumerGroupKey(record: ConsumerRecordType, group: string, memberId: string | null = null): Uint8Array {
  const w = writer().int16(record, 'key version').string(group, 'group');
  if (memberId !== null) w.string(memberId, 'memberId');
  return w.finish();
}

// ---------------------------------------------------------------------------------------------
// Values

export function encodeOffsetCommitValue(v: OffsetCommitValue, version = OFFSET_COMMIT_VALUE_VERSION): Uint8Array {
  if (!Number.isInteger(version) || version < 0 || version > MAX_OFFSET_COMMIT_VALUE_VERSION) {
    throw new OffsetsRecordError(`OffsetCommitValue version ${version} is not one of 0-${MAX_OFFSET_COMMIT_VALUE_VERSION}`);
  }
  const w = writer(version >= FIRST_FLEXIBLE_VERSION).int16(version, 'version').int64(v.offset, 'offset');
  if (version >= 3) w.int32(v.leaderEpoch, 'leaderEpoch');
  w.string(v.metadata, 'metadata').int64(v.commitTimestamp, 'commitTimestamp');
  if (version === 1) w.int64(v.expireTimestamp, 'expireTimestamp');
  return w.taggedFields().finish();
}

export function decodeOffsetCommitValue(bytes: Uint8Array): OffsetCommitValue {
  const r = reader(bytes, 'OffsetCommitValue');
  const version = r.int16('version');
  if (version < 0 || version > MAX_OFFSET_COMMIT_VALUE_VERSION) throw new OffsetsRecordError(`OffsetCommitValue: unknown version ${version}`);
  r.flexible = version >= FIRST_FLEXIBLE_VERSION;
  const offset = r.int64('offset');
  const leaderEpoch = version >= 3 ? r.int32('leaderEpoch') : -1;
  const metadata = r.string('metadata');
  const commitTimestamp = r.int64('commitTimestamp');
  const expireTimestamp = version === 1 ? r.int64('expireTimestamp') : -1;
  r.taggedFields();
  // bytes past the schema are ignored, as Kafka does for forward compatibility
  return { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp };
}

export function encodeGroupMetadataValue(v: GroupMetadataValue, version = GROUP_METADATA_VALUE_VERSION): Uint8Array {
  if (!Number.isInteger(version) || version < 0 || version > MAX_GROUP_METADATA_VALUE_VERSION) {
    throw new OffsetsRecordError(`GroupMetadataValue version ${version} is not one of 0-${MAX_GROUP_METADATA_VALUE_VERSION}`);
  }
  const w = writer(version >= FIRST_FLEXIBLE_VERSION)
    .int16(version, 'version')
    .string(v.protocolType, 'protocolType')
    .int32(v.generation, 'generation')
    .string(v.protocol, 'protocol')
    .string(v.leader, 'leader');
  if (version >= 2) w.int64(v.currentStateTimestamp, 'currentStateTimestamp');
  w.arrayLength(v.members.length, 'members');
  for (const m of v.members) {
    w.string(m.memberId, 'memberId');
    if (version >= 3) w.string(m.groupInstanceId, 'groupInstanceId');
    w.string(m.clientId, 'clientId').string(m.clientHost, 'clientHost');
    if (version >= 1) w.int32(m.rebalanceTimeoutMs, 'rebalanceTimeout');
    w.int32(m.sessionTimeoutMs, 'sessionTimeout').bytes(m.subscription, 'subscription').bytes(m.assignment, 'assignment').taggedFields();
  }
  return w.taggedFields().finish();
}

export function decodeGroupMetadataValue(bytes: Uint8Array): GroupMetadataValue {
  const r = reader(bytes, 'GroupMetadataValue');
  const version = r.int16('version');
  if (version < 0 || version > MAX_GROUP_METADATA_VALUE_VERSION) throw new OffsetsRecordError(`GroupMetadataValue: unknown version ${version}`);
  r.flexible = version >= FIRST_FLEXIBLE_VERSION;
  const protocolType = r.string('protocolType');
  const generation = r.int32('generation');
  const protocol = r.nullableString('protocol');
  const leader = r.nullableString('leader');
  const currentStateTimestamp = version >= 2 ? r.int64('currentStateTimestamp') : -1;
  const count = r.arrayLength('members');
  const members: GroupMemberValue[] = [];
  for (let i = 0; i < count; i++) {
    const memberId = r.string('memberId');
    const groupInstanceId = version >= 3 ? r.nullableString('groupInstanceId') : null;
    const clientId = r.string('clientId');
    const clientHost = r.string('clientHost');
    const rebalanceTimeout = version >= 1 ? r.int32('rebalanceTimeout') : -1;
    const sessionTimeoutMs = r.int32('sessionTimeout');
    const subscription = r.bytes('subscription');
    const assignment = r.bytes('assignment');
    r.taggedFields();
    // v0 had no rebalance timeout: Kafka used the session timeout for both
    const rebalanceTimeoutMs = rebalanceTimeout >= 0 ? rebalanceTimeout : sessionTimeoutMs;
    members.push({ memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs, sessionTimeoutMs, subscription, assignment });
  }
  r.taggedFields();
  // bytes past the schema are ignored, as Kafka does for forward compatibility
  return { protocolType, generation, protocol, leader, currentStateTimestamp, members };
}

// ---------------------------------------------------------------------------------------------
// KIP-848 consumer group values: Kafka's schemas, version 0, flexible (compact lengths, tagged
// fields, none written), topics as 16-byte Uuids (their 22-character string form here).

export interface ConsumerGroupMetadataValue {
  epoch: number;
}

export interface ConsumerTopicMetadata {
  topicId: string;
  name: string;
  numPartitions: number;
}

export interface ConsumerMemberMetadataValue {
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  /** The member's topic regular expression (null, or Kafka's '': none). */
  subscribedTopicRegex: string | null;
  rebalanceTimeoutMs: number;
  serverAssignor: string | null;
  /** Kafka's ClassicMemberMetadata (tagged field 0): a member using the classic protocol; null otherwise. */
  classicMemberMetadata: { sessionTimeoutMs: number; supportedProtocols: { name: string; metadata: Uint8Array }[] } | null;
}

/** topic id -> partitions. */
export type TopicPartitionsValue = { topicId: string; partitions: number[] }[];

export interface ConsumerCurrentAssignmentValue {
  memberEpoch: number;
  previousMemberEpoch: number;
  /** Kafka's MemberState byte. */
  state: number;
  assigned: TopicPartitionsValue;
  pendingRevocation: TopicPartitionsValue;
}

export type ConsumerGroupRecordValue =
  | { record: ConsumerRecordType.Metadata; value: ConsumerGroupMetadataValue }
  | { record: ConsumerRecordType.PartitionMetadata; value: ConsumerTopicMetadata[] }
  | { record: ConsumerRecordType.MemberMetadata; value: ConsumerMemberMetadataValue }
  | { record: ConsumerRecordType.TargetAssignmentMetadata; value: { assignmentEpoch: number } }
  | { record: ConsumerRecordType.TargetAssignmentMember; value: TopicPartitionsValue }
  | { record: ConsumerRecordType.CurrentMemberAssignment; value: ConsumerCurrentAssignmentValue };

function writeTopicPartitions(w: RecordWriter, tps: TopicPartitionsValue, what: string): void {
  w.arrayLength(tps.length, what);
  for (const t of tps) {
    w.uuid(t.topicId, `${what} topicId`).arrayLength(t.partitions.length, `${what} partitions`);
    for (const p of t.partitions) w.int32(p, `${what} partition`);
    w.taggedFields();
  }
}

function readTopicPartitions(r: RecordReader, what: string): TopicPartitionsValue {
  const n = r.arrayLength(what);
  const out: TopicPartitionsValue = [];
  for (let i = 0; i < n; i++) {
    const topicId = r.uuid(`${what} topicId`);
    const count = r.arrayLength(`${what} partitions`);
    const partitions: number[] = [];
    for (let k = 0; k < count; k++) partitions.push(r.int32(`${what} partition`));
    r.taggedFields();
    out.push({ topicId, partitions });
  }
  return out;
}

export function encodeConsumerGroupValue(v: ConsumerGroupRecordValue): Uint8Array {
  const w = writer(true).int16(0, 'version');
  switch (v.record) {
    case ConsumerRecordType.Metadata:
      w.int32(v.value.epoch, 'epoch');
      break;
    case ConsumerRecordType.PartitionMetadata:
      w.arrayLength(v.value.length, 'topics');
      for (const t of v.value) {
        // no racks: samsa brokers have none
        w.uuid(t.topicId, 'topicId').string(t.name, 'topicName').int32(t.numPartitions, 'numPartitions').arrayLength(0, 'partitionMetadata').taggedFields();
      }
      break;
    case ConsumerRecordType.MemberMetadata: {
      const m = v.value;
      w.string(m.instanceId, 'instanceId').string(m.rackId, 'rackId').string(m.clientId, 'clientId').string(m.clientHost, 'clientHost');
      w.arrayLength(m.subscribedTopicNames.length, 'subscribedTopicNames');
      for (const t of m.subscribedTopicNames) w.string(t, 'subscribedTopicName');
      w.string(m.subscribedTopicRegex, 'subscribedTopicRegex').int32(m.rebalanceTimeoutMs, 'rebalanceTimeoutMs').string(m.serverAssignor, 'serverAssignor');
      const c = m.classicMemberMetadata;
      if (c) {
        const t = writer(true).int32(c.sessionTimeoutMs, 'sessionTimeoutMs').arrayLength(c.supportedProtocols.length, 'supportedProtocols');
        for (const p of c.supportedProtocols) t.string(p.name, 'protocol name').bytes(p.metadata, 'protocol metadata').taggedFields();
        return w.taggedFieldsWith([{ tag: 0, bytes: t.taggedFields().finish() }]).finish();
      }
      break;
    }
    case ConsumerRecordType.TargetAssignmentMetadata:
      w.int32(v.value.assignmentEpoch, 'assignmentEpoch');
      break;
    case ConsumerRecordType.TargetAssignmentMember:
      writeTopicPartitions(w, v.value, 'topicPartitions');
      break;
    case ConsumerRecordType.CurrentMemberAssignment: {
      const c = v.value;
      w.int32(c.memberEpoch, 'memberEpoch').int32(c.previousMemberEpoch, 'previousMemberEpoch').int8(c.state, 'state');
      writeTopicPartitions(w, c.assigned, 'assignedPartitions');
      writeTopicPartitions(w, c.pendingRevocation, 'partitionsPendingRevocation');
      break;
    }
  }
  return w.taggedFields().finish();
}

export function decodeConsumerGroupValue(record: ConsumerRecordType, bytes: Uint8Array): ConsumerGroupRecordValue {
  const r = reader(bytes, `consumer group record ${record}`);
  const version = r.int16('version');
  if (version !== 0) throw new OffsetsRecordError(`consumer group record ${record}: unknown value version ${version}`);
  r.flexible = true;
  let out: ConsumerGroupRecordValue;
  switch (record) {
    case ConsumerRecordType.Metadata:
      out = { record, value: { epoch: r.int32('epoch') } };
      break;
    case ConsumerRecordType.PartitionMetadata: {
      const n = r.arrayLength('topics');
      const topics: ConsumerTopicMetadata[] = [];
      for (let i = 0; i < n; i++) {
        const topicId = r.uuid('topicId');
        const name = r.string('topicName');
        const numPartitions = r.int32('numPartitions');
        const pm = r.arrayLength('partitionMetadata');
        for (let k = 0; k < pm; k++) {
          r.int32('partition');
          const racks = r.arrayLength('racks');
          for (let j = 0; j < racks; j++) r.string('rack');
          r.taggedFields();
        }
        r.taggedFields();
        topics.push({ topicId, name, numPartitions });
      }
      out = { record, value: topics };
      break;
    }
    case ConsumerRecordType.MemberMetadata: {
      const instanceId = r.nullableString('instanceId');
      const rackId = r.nullableString('rackId');
      const clientId = r.string('clientId');
      const clientHost = r.string('clientHost');
      const n = r.arrayLength('subscribedTopicNames');
      const subscribedTopicNames: string[] = [];
      for (let i = 0; i < n; i++) subscribedTopicNames.push(r.string('subscribedTopicName'));
      const regex = r.nullableString('subscribedTopicRegex');
      const rebalanceTimeoutMs = r.int32('rebalanceTimeoutMs');
      const serverAssignor = r.nullableString('serverAssignor');
      const subscribedTopicRegex = regex === '' ? null : regex;
      const tagged = r.taggedFields();
      const classicBytes = tagged.get(0);
      let classicMemberMetadata: ConsumerMemberMetadataValue['classicMemberMetadata'] = null;
      if (classicBytes !== undefined) {
        const c = reader(classicBytes, 'classic member metadata');
        c.flexible = true;
        const sessionTimeoutMs = c.int32('sessionTimeoutMs');
        const n = c.arrayLength('supportedProtocols');
        const supportedProtocols: { name: string; metadata: Uint8Array }[] = [];
        for (let i = 0; i < n; i++) {
          const name = c.string('protocol name');
          const metadata = c.bytes('protocol metadata');
          c.taggedFields();
          supportedProtocols.push({ name, metadata });
        }
        c.taggedFields();
        classicMemberMetadata = { sessionTimeoutMs, supportedProtocols };
      }
      return { record, value: { instanceId, rackId, clientId, clientHost, subscribedTopicNames, subscribedTopicRegex, rebalanceTimeoutMs, serverAssignor, classicMemberMetadata } };
    }
    case ConsumerRecordType.TargetAssignmentMetadata:
      out = { record, value: { assignmentEpoch: r.int32('assignmentEpoch') } };
      break;
    case ConsumerRecordType.TargetAssignmentMember:
      out = { record, value: readTopicPartitions(r, 'topicPartitions') };
      break;
    case ConsumerRecordType.CurrentMemberAssignment: {
      const memberEpoch = r.int32('memberEpoch');
      const previousMemberEpoch = r.int32('previousMemberEpoch');
      const state = r.int8('state');
      const assigned = readTopicPartitions(r, 'assignedPartitions');
      const pendingRevocation = readTopicPartitions(r, 'partitionsPendingRevocation');
      out = { record, value: { memberEpoch, previousMemberEpoch, state, assigned, pendingRevocation } };
      break;
    }
  }
  r.taggedFields();
  return out;
}

// ---------------------------------------------------------------------------------------------
// KIP-932 share group values: Kafka 4.2's schemas, version 0, flexible.

export interface ShareMemberMetadataValue {
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
}

export interface ShareCurrentAssignmentValue {
  memberEpoch: number;
  previousMemberEpoch: number;
  /** Kafka's MemberState byte (a share group member is always Stable, 0). */
  state: number;
  assigned: TopicPartitionsValue;
}

export type ShareGroupRecordValue =
  | { record: ShareRecordType.MemberMetadata; value: ShareMemberMetadataValue }
  | { record: ShareRecordType.Metadata; value: ShareGroupMetadataValue }
  | { record: ShareRecordType.TargetAssignmentMetadata; value: { assignmentEpoch: number } }
  | { record: ShareRecordType.TargetAssignmentMember; value: TopicPartitionsValue }
  | { record: ShareRecordType.CurrentMemberAssignment; value: ShareCurrentAssignmentValue };

export function encodeShareGroupValue(v: ShareGroupRecordValue): Uint8Array {
  const w = writer(true).int16(0, 'version');
  switch (v.record) {
    case ShareRecordType.MemberMetadata: {
      const m = v.value;
      w.string(m.rackId, 'rackId').string(m.clientId, 'clientId').string(m.clientHost, 'clientHost');
      w.arrayLength(m.subscribedTopicNames.length, 'subscribedTopicNames');
      for (const t of m.subscribedTopicNames) w.string(t, 'subscribedTopicName');
      break;
    }
    case ShareRecordType.Metadata:
      w.int32(v.value.epoch, 'epoch').int64(v.value.metadataHash, 'metadataHash');
      break;
    case ShareRecordType.TargetAssignmentMetadata:
      w.int32(v.value.assignmentEpoch, 'assignmentEpoch');
      break;
    case ShareRecordType.TargetAssignmentMember:
      writeTopicPartitions(w, v.value, 'topicPartitions');
      break;
    case ShareRecordType.CurrentMemberAssignment: {
      const c = v.value;
      w.int32(c.memberEpoch, 'memberEpoch').int32(c.previousMemberEpoch, 'previousMemberEpoch').int8(c.state, 'state');
      writeTopicPartitions(w, c.assigned, 'assignedPartitions');
      break;
    }
  }
  return w.taggedFields().finish();
}

export function decodeShareGroupValue(record: ShareRecordType, bytes: Uint8Array): ShareGroupRecordValue {
  const r = reader(bytes, `share group record ${record}`);
  const version = r.int16('version');
  if (version !== 0) throw new OffsetsRecordError(`share group record ${record}: unknown value version ${version}`);
  r.flexible = true;
  let out: ShareGroupRecordValue;
  switch (record) {
    case ShareRecordType.MemberMetadata: {
      const rackId = r.nullableString('rackId');
      const clientId = r.string('clientId');
      const clientHost = r.string('clientHost');
      const n = r.arrayLength('subscribedTopicNames');
      const subscribedTopicNames: string[] = [];
      for (let i = 0; i < n; i++) subscribedTopicNames.push(r.string('subscribedTopicName'));
      out = { record, value: { rackId, clientId, clientHost, subscribedTopicNames } };
      break;
    }
    case ShareRecordType.Metadata: {
      const epoch = r.int32('epoch');
      // the metadata hash came with Kafka 4.1: a value of 4.0 (version, epoch, tagged fields) has none
      const metadataHash = bytes.length >= 2 + 4 + 8 + 1 ? r.int64('metadataHash') : 0;
      out = { record, value: { epoch, metadataHash } };
      break;
    }
    case ShareRecordType.TargetAssignmentMetadata:
      out = { record, value: { assignmentEpoch: r.int32('assignmentEpoch') } };
      break;
    case ShareRecordType.TargetAssignmentMember:
      out = { record, value: readTopicPartitions(r, 'topicPartitions') };
      break;
    case ShareRecordType.CurrentMemberAssignment: {
      const memberEpoch = r.int32('memberEpoch');
      const previousMemberEpoch = r.int32('previousMemberEpoch');
      const state = r.int8('state');
      const assigned = readTopicPartitions(r, 'assignedPartitions');
      out = { record, value: { memberEpoch, previousMemberEpoch, state, assigned } };
      break;
    }
  }
  r.taggedFields();
  return out;
}

/**
 * A consumer or share group's live records after a replay, the parts both kinds have (Metadata
 * absent, `epoch` null: the group was deleted or never written).
 */
interface ReplayedGroupRecords<Member, Current> {
  epoch: number | null;
  assignmentEpoch: number;
  members: Map<string, Member>;
  targets: Map<string, TopicPartitionsValue>;
  currents: Map<string, Current>;
  /** The timestamp of its oldest live record. */
  oldestTimestamp: number;
}

/** A share group's live records after a replay. */
export interface ReplayedShareGroup extends ReplayedGroupRecords<ShareMemberMetadataValue, ShareCurrentAssignmentValue> {
  metadataHash: number;
}

/** A consumer group's live records after a replay. */
export interface ReplayedConsumerGroup extends ReplayedGroupRecords<ConsumerMemberMetadataValue, ConsumerCurrentAssignmentValue> {
  subscriptionMetadata: ConsumerTopicMetadata[];
}

/**
 * How each record type of a group kind folds into its replayed group, by the part of the group
 * it holds: its value sets that part, its tombstone (null) clears it.
 */
type GroupRecordFold<V extends { record: number; value: unknown }, G> = {
  [R in V['record']]: (g: G, memberId: string, value: Extract<V, { record: R }>['value'] | null) => void;
};

function setOrDelete<T>(map: Map<string, T>, memberId: string, value: T | null): void {
  if (value === null) map.delete(memberId);
  else map.set(memberId, value);
}

const CONSUMER_GROUP_FOLD: GroupRecordFold<ConsumerGroupRecordValue, ReplayedConsumerGroup> = {
  [ConsumerRecordType.Metadata]: (g, _, v) => {
    g.epoch = v === null ? null : v.epoch;
  },
  [ConsumerRecordType.PartitionMetadata]: (g, _, v) => {
    g.subscriptionMetadata = v ?? [];
  },
  [ConsumerRecordType.MemberMetadata]: (g, memberId, v) => setOrDelete(g.members, memberId, v),
  [ConsumerRecordType.TargetAssignmentMetadata]: (g, _, v) => {
    g.assignmentEpoch = v === null ? 0 : v.assignmentEpoch;
  },
  [ConsumerRecordType.TargetAssignmentMember]: (g, memberId, v) => setOrDelete(g.targets, memberId, v),
  [ConsumerRecordType.CurrentMemberAssignment]: (g, memberId, v) => setOrDelete(g.currents, memberId, v),
};

const SHARE_GROUP_FOLD: GroupRecordFold<ShareGroupRecordValue, ReplayedShareGroup> = {
  [ShareRecordType.MemberMetadata]: (g, memberId, v) => setOrDelete(g.members, memberId, v),
  [ShareRecordType.Metadata]: (g, _, v) => {
    g.epoch = v === null ? null : v.epoch;
    g.metadataHash = v === null ? 0 : v.metadataHash;
  },
  [ShareRecordType.TargetAssignmentMetadata]: (g, _, v) => {
    g.assignmentEpoch = v === null ? 0 : v.assignmentEpoch;
  },
  [ShareRecordType.TargetAssignmentMember]: (g, memberId, v) => setOrDelete(g.targets, memberId, v),
  [ShareRecordType.CurrentMemberAssignment]: (g, memberId, v) => setOrDelete(g.currents, memberId, v),
};

/**
 * Folds one consumer or share group record (`valueBytes` null: a tombstone) into `groups`: the
 * group's first record creates it, a tombstone that leaves it without epoch and member records
 * removes it.
 */
function foldGroupRecord<V extends { record: number; value: unknown }, G extends ReplayedGroupRecords<unknown, unknown>>(
  groups: Map<string, G>,
  key: { record: V['record']; group: string; memberId: string | null },
  valueBytes: Uint8Array | null,
  timestamp: number,
  kind: { empty: (timestamp: number) => G; decode: (record: V['record'], bytes: Uint8Array) => V; fold: GroupRecordFold<V, G> },
): void {
  let g = groups.get(key.group);
  if (!g) {
    if (valueBytes === null) return;
    g = kind.empty(timestamp);
    groups.set(key.group, g);
  }
  g.oldestTimestamp = Math.min(g.oldestTimestamp, timestamp);
  // the fold of `record` takes the value of `record` (a pairing the compiler cannot follow through V)
  const fold = kind.fold[key.record] as (g: G, memberId: string, value: V['value'] | null) => void;
  const memberId = key.memberId ?? '';
  if (valueBytes === null) {
    fold(g, memberId, null);
    if (g.epoch === null && g.members.size === 0 && g.targets.size === 0 && g.currents.size === 0) groups.delete(key.group);
    return;
  }
  fold(g, memberId, kind.decode(key.record, valueBytes).value);
}

const CONSUMER_GROUP_RECORDS = {
  empty: (timestamp: number): ReplayedConsumerGroup => ({ epoch: null, subscriptionMetadata: [], assignmentEpoch: 0, members: new Map(), targets: new Map(), currents: new Map(), oldestTimestamp: timestamp }),
  decode: decodeConsumerGroupValue,
  fold: CONSUMER_GROUP_FOLD,
};

const SHARE_GROUP_RECORDS = {
  empty: (timestamp: number): ReplayedShareGroup => ({ epoch: null, metadataHash: 0, assignmentEpoch: 0, members: new Map(), targets: new Map(), currents: new Map(), oldestTimestamp: timestamp }),
  decode: decodeShareGroupValue,
  fold: SHARE_GROUP_FOLD,
};

// ---------------------------------------------------------------------------------------------
// Batches

export interface OffsetsRecord {
  key: Uint8Array;
  /** null: a tombstone. */
  value: Uint8Array | null;
}

/**
 * One RecordBatch v2 holding `records` in order, all stamped `timestamp` (CreateTime); with
 * `txn`, a transactional batch of that producer (TxnOffsetCommit), as Kafka writes them.
 */
export function buildOffsetsBatch(records: readonly OffsetsRecord[], timestamp: number, txn?: { producerId: number; producerEpoch: number }): Buffer {
  if (records.length === 0) throw new OffsetsRecordError('an offsets batch needs at least one record');
  const batch = { records: records.map((r) => ({ key: r.key, value: r.value, timestamp })) };
  return encodeRecordBatch(txn ? { ...batch, transactional: true, producerId: txn.producerId, producerEpoch: txn.producerEpoch } : batch);
}

// ---------------------------------------------------------------------------------------------
// Replay

/** The newest record of a key: its log offset and record timestamp. */
export interface RecordPosition {
  logOffset: number;
  timestamp: number;
}

export interface ReplayedOffset extends RecordPosition {
  topic: string;
  partition: number;
  value: OffsetCommitValue;
}

export interface ReplayedGroup extends RecordPosition {
  value: GroupMetadataValue;
  /** The value bytes as written, so a refresh can write them again unchanged. */
  bytes: Uint8Array;
}

/** The key of a topic-partition in per-group offset maps (partition first: a topic name may hold any character). */
export function topicPartitionKey(topic: string, partition: number): string {
  return `${partition}/${topic}`;
}

export interface ReplayProgress {
  /** The offset after the last record applied (fromOffset when there was nothing). */
  nextOffset: number;
  records: number;
  /** Records that could not be decoded (logged by the caller, skipped). */
  problems: string[];
}

/**
 * Folds records of one offsets partition, in log order, into the latest value per key.
 */
export class OffsetsReplay {
  /** group -> topicPartitionKey -> newest offset commit. */
  readonly offsets = new Map<string, Map<string, ReplayedOffset>>();
  /** group -> newest group metadata. */
  readonly groups = new Map<string, ReplayedGroup>();
  /** group -> its KIP-848 consumer group records. */
  readonly consumerGroups = new Map<string, ReplayedConsumerGroup>();
  /** group -> its KIP-932 share group records. */
  readonly shareGroups = new Map<string, ReplayedShareGroup>();
  /** producer id -> the records of its open transaction (offset commits), in log order. */
  readonly pendingTransactions = new Map<number, DecodedRecord[]>();
  recordsApplied = 0;

  /**
   * Applies every complete batch of `bytes` (as a replica read returns them). Records below
   * `fromOffset` (a batch can start before the offset asked for) and control batches are skipped.
   * Throws CorruptRecordError when a batch is damaged; a record whose key or value cannot be
   * decoded is reported in `problems` and skipped.
   */
  applyBatches(bytes: Uint8Array, fromOffset: number): ReplayProgress {
    const progress: ReplayProgress = { nextOffset: fromOffset, records: 0, problems: [] };
    for (const batch of decodeRecordBatches(bytes)) {
      const next = batch.baseOffset + batch.lastOffsetDelta + 1;
      const skip = next <= fromOffset;
      if (skip) {
        // already applied
      } else if (batch.control) {
        if (batch.transactional && batch.producerId >= 0) this.endTransaction(batch.producerId, txnMarkerTypeOfKey(batch.records[0]?.key ?? null), progress);
      } else if (batch.transactional && batch.producerId >= 0) {
        let pending = this.pendingTransactions.get(batch.producerId);
        if (!pending) this.pendingTransactions.set(batch.producerId, (pending = []));
        for (const rec of batch.records) if (rec.offset >= fromOffset) pending.push(rec);
      } else {
        for (const rec of batch.records) {
          if (rec.offset < fromOffset) continue;
          const problem = this.applyRecord(rec.key, rec.value, rec.offset, rec.timestamp);
          if (problem) progress.problems.push(`offset ${rec.offset}: ${problem}`);
          else progress.records++;
        }
      }
      if (next > progress.nextOffset) progress.nextOffset = next;
    }
    this.recordsApplied += progress.records;
    return progress;
  }

  /** A marker ended `producerId`'s transaction: COMMIT applies its records, ABORT drops them. */
  private endTransaction(producerId: number, type: number | null, progress: ReplayProgress): void {
    if (type === null) return;
    const pending = this.pendingTransactions.get(producerId);
    this.pendingTransactions.delete(producerId);
    if (!pending || type !== ControlType.COMMIT) return;
    for (const rec of pending) {
      const problem = this.applyRecord(rec.key, rec.value, rec.offset, rec.timestamp, true);
      if (problem) progress.problems.push(`offset ${rec.offset}: ${problem}`);
      else progress.records++;
    }
  }

  /**
   * Applies one record; returns why it was skipped, or null. `onlyIfNewer`: a committed
   * transaction's offset, applied at its marker, does not replace a newer record of its key.
   */
  applyRecord(keyBytes: Uint8Array | null, valueBytes: Uint8Array | null, logOffset: number, timestamp: number, onlyIfNewer = false): string | null {
    if (keyBytes === null) return 'record without a key';
    let key: OffsetsRecordKey;
    try {
      key = decodeKey(keyBytes);
    } catch (err) {
      return (err as Error).message;
    }
    try {
      switch (key.kind) {
        case 'unknown':
          return `key version ${key.version} is not a record type this coordinator knows`;
        case 'consumer-group':
          foldGroupRecord(this.consumerGroups, key, valueBytes, timestamp, CONSUMER_GROUP_RECORDS);
          return null;
        case 'share-group':
          foldGroupRecord(this.shareGroups, key, valueBytes, timestamp, SHARE_GROUP_RECORDS);
          return null;
        case 'offset': {
          const k = topicPartitionKey(key.topic, key.partition);
          if (valueBytes === null) {
            const forGroup = this.offsets.get(key.group);
            forGroup?.delete(k);
            if (forGroup && forGroup.size === 0) this.offsets.delete(key.group);
            return null;
          }
          const value = decodeOffsetCommitValue(valueBytes);
          let forGroup = this.offsets.get(key.group);
          if (!forGroup) this.offsets.set(key.group, (forGroup = new Map()));
          if (onlyIfNewer && (forGroup.get(k)?.logOffset ?? -1) > logOffset) return null;
          forGroup.set(k, { topic: key.topic, partition: key.partition, value, logOffset, timestamp });
          return null;
        }
        case 'group': {
          if (valueBytes === null) {
            this.groups.delete(key.group);
            return null;
          }
          const value = decodeGroupMetadataValue(valueBytes);
          this.groups.set(key.group, { value, bytes: Uint8Array.from(valueBytes), logOffset, timestamp });
          return null;
        }
      }
    } catch (err) {
      if (err instanceof OffsetsRecordError) return err.message;
      throw err;
    }
  }

  /**
   * The offsets of transactions still open at the end of the replay: group -> producer id ->
   * topic-partition key -> offset (records that are not offset commits are left out).
   */
  openTransactionOffsets(): Map<string, Map<number, Map<string, ReplayedOffset>>> {
    const out = new Map<string, Map<number, Map<string, ReplayedOffset>>>();
    for (const [producerId, records] of this.pendingTransactions) {
      for (const rec of records) {
        if (rec.key === null || rec.value === null) continue;
        let key: OffsetsRecordKey;
        let value: OffsetCommitValue;
        try {
          key = decodeKey(rec.key);
          if (key.kind !== 'offset') continue;
          value = decodeOffsetCommitValue(rec.value);
        } catch {
          continue;
        }
        let byProducer = out.get(key.group);
        if (!byProducer) out.set(key.group, (byProducer = new Map()));
        let offsets = byProducer.get(producerId);
        if (!offsets) byProducer.set(producerId, (offsets = new Map()));
        offsets.set(topicPartitionKey(key.topic, key.partition), { topic: key.topic, partition: key.partition, value, logOffset: rec.offset, timestamp: rec.timestamp });
      }
    }
    return out;
  }

  /** Every group that has metadata, offsets, or offsets of an open transaction. */
  groupIds(): Set<string> {
    const consumer = [...this.consumerGroups].filter(([, g]) => g.epoch !== null).map(([id]) => id);
    const share = [...this.shareGroups].filter(([, g]) => g.epoch !== null).map(([id]) => id);
    return new Set([...this.groups.keys(), ...this.offsets.keys(), ...this.openTransactionOffsets().keys(), ...consumer, ...share]);
  }
}
