/**
 * Versions Kafka added after the definitions the schemas are generated from, written as changes to
 * those definitions: for each, the api key, the new highest version, what it is for, and the
 * fields it adds to (or ends in) the request and the response, in Kafka's own JSON terms. A
 * version with no changes is the same on the wire as the one before it (Kafka's JSON says so:
 * "Version N is the same as version N-1"); open-ended field ranges carry over.
 *
 * Field paths name struct fields from the message's top, by Kafka's field names; `after` places
 * an added field (absent: at the end of its struct). A version may also end the ones below it
 * (`lowest`), as Kafka 4.1 ended the early-access v0 of KIP-932's share group APIs.
 *
 * APIs Kafka added after those definitions are LATER_APIS: their first version, in the same
 * terms, with their own later versions in LATER_VERSIONS.
 */
import type { RawField, RawMessage, RawStruct } from './parse.js';

export type SchemaChange =
  /** A new field. */
  | { readonly add: RawField; readonly in?: readonly string[]; readonly after?: string }
  /** An existing field now ends (or starts) at other versions, or is nullable in others. */
  | { readonly field: string; readonly in?: readonly string[]; readonly versions?: string; readonly nullableVersions?: string };

export interface LaterVersion {
  readonly apiKey: number;
  readonly version: number;
  readonly what: string;
  /** The lowest version from this one on: Kafka no longer speaks those below it. */
  readonly lowest?: number;
  readonly request?: readonly SchemaChange[];
  readonly response?: readonly SchemaChange[];
}

const topicIdFrom = (version: number): RawField => ({ name: 'TopicId', type: 'uuid', versions: `${version}+` });

export const LATER_VERSIONS: readonly LaterVersion[] = [
  { apiKey: 0, version: 12, what: 'Produce v12, KIP-890 part 2: the client adds no partition to its transaction' },
  {
    apiKey: 0,
    version: 13,
    what: 'Produce v13, KIP-516: topics by id',
    request: [
      { field: 'Name', in: ['TopicData'], versions: '0-12' },
      { add: topicIdFrom(13), in: ['TopicData'], after: 'Name' },
    ],
    response: [
      { field: 'Name', in: ['Responses'], versions: '0-12' },
      { add: topicIdFrom(13), in: ['Responses'], after: 'Name' },
    ],
  },
  // the follower's high watermark (KIP-1166) is a tagged field of the partition, which a client
  // never sends: left to the decoder, which skips tags it does not know
  { apiKey: 1, version: 18, what: 'Fetch v18, KIP-1166: a follower\'s high watermark (tagged, brokers only)' },
  { apiKey: 2, version: 11, what: 'ListOffsets v11, KIP-1023: timestamp -6, the earliest offset pending upload to tiered storage' },
  {
    apiKey: 3,
    version: 13,
    what: 'Metadata v13, KIP-1102: a top-level error code (REBOOTSTRAP_REQUIRED)',
    response: [{ add: { name: 'ErrorCode', type: 'int16', versions: '13+' } }],
  },
  {
    apiKey: 8,
    version: 10,
    what: 'OffsetCommit v10, KIP-848: topics by id',
    request: [
      { field: 'Name', in: ['Topics'], versions: '0-9' },
      { add: topicIdFrom(10), in: ['Topics'], after: 'Name' },
    ],
    response: [
      { field: 'Name', in: ['Topics'], versions: '0-9' },
      { add: topicIdFrom(10), in: ['Topics'], after: 'Name' },
    ],
  },
  {
    apiKey: 9,
    version: 10,
    what: 'OffsetFetch v10, KIP-848: topics by id',
    request: [
      { field: 'Name', in: ['Groups', 'Topics'], versions: '8-9' },
      { add: topicIdFrom(10), in: ['Groups', 'Topics'], after: 'Name' },
    ],
    response: [
      { field: 'Name', in: ['Groups', 'Topics'], versions: '8-9' },
      { add: topicIdFrom(10), in: ['Groups', 'Topics'], after: 'Name' },
    ],
  },
  {
    apiKey: 15,
    version: 6,
    what: 'DescribeGroups v6, KIP-1043: GROUP_ID_NOT_FOUND with an error message',
    response: [
      {
        add: { name: 'ErrorMessage', type: 'string', versions: '6+', nullableVersions: '6+', default: 'null' },
        in: ['Groups'],
        after: 'ErrorCode',
      },
    ],
  },
  {
    apiKey: 27,
    version: 2,
    what: 'WriteTxnMarkers v2, KIP-1228: each marker\'s transaction version (a TV_2 marker must be above the epoch of the data it ends)',
    request: [{ add: { name: 'TransactionVersion', type: 'int8', versions: '2+', default: 0 }, in: ['Markers'] }],
  },
  { apiKey: 28, version: 5, what: 'TxnOffsetCommit v5, KIP-890 part 2: the client adds not the group\'s offsets partition' },
  {
    apiKey: 45,
    version: 1,
    what: 'AlterPartitionReassignments v1, KIP-860: refusing a change of replication factor',
    request: [{ add: { name: 'AllowReplicationFactorChange', type: 'bool', versions: '1+', default: 'true' }, after: 'TimeoutMs' }],
    response: [{ add: { name: 'AllowReplicationFactorChange', type: 'bool', versions: '1+', default: 'true' }, after: 'ThrottleTimeMs' }],
  },
  {
    apiKey: 60,
    version: 2,
    what: 'DescribeCluster v2, KIP-1073: fenced brokers',
    request: [{ add: { name: 'IncludeFencedBrokers', type: 'bool', versions: '2+', default: 'false' } }],
    response: [{ add: { name: 'IsFenced', type: 'bool', versions: '2+', default: 'false' }, in: ['Brokers'] }],
  },
  {
    apiKey: 66,
    version: 2,
    what: 'ListTransactions v2, KIP-1152: a transactional id pattern',
    request: [{ add: { name: 'TransactionalIdPattern', type: 'string', versions: '2+', nullableVersions: '2+', default: 'null' } }],
  },
  {
    apiKey: 80,
    version: 1,
    what: 'AddRaftVoter v1, KIP-1186: answered once the leader has written the new voter set, not waiting for its commit',
    request: [{ add: { name: 'AckWhenCommitted', type: 'bool', versions: '1+', default: 'true' } }],
  },
  {
    apiKey: 69,
    version: 1,
    what: 'ConsumerGroupDescribe v1, KIP-1099: each member\'s type',
    response: [{ add: { name: 'MemberType', type: 'int8', versions: '1+', default: '-1' }, in: ['Groups', 'Members'] }],
  },
  {
    apiKey: 74,
    version: 1,
    what: 'ListConfigResources v1, KIP-1142 (v0 was ListClientMetricsResources): the resource types to list, and each resource\'s type',
    request: [{ add: { name: 'ResourceTypes', type: '[]int8', versions: '1+' } }],
    response: [{ add: { name: 'ResourceType', type: 'int8', versions: '1+', default: '16' }, in: ['ClientMetricsResources'] }],
  },
  // KIP-932's share group APIs: v0 was Kafka 4.0's early access, removed in 4.1, whose v1 is the first stable version
  { apiKey: 76, version: 1, lowest: 1, what: 'ShareGroupHeartbeat v1, KIP-932: the first stable version (v0, the early access, is gone)' },
  { apiKey: 77, version: 1, lowest: 1, what: 'ShareGroupDescribe v1, KIP-932: the first stable version (v0, the early access, is gone)' },
  {
    apiKey: 78,
    version: 1,
    lowest: 1,
    what: 'ShareFetch v1, KIP-932: the first stable version (v0, the early access, is gone); a record limit and a batch size instead of byte limits per partition, the acquisition lock timeout in the response, whose records are not nullable',
    request: [
      { add: { name: 'MaxRecords', type: 'int32', versions: '1+' }, after: 'MaxBytes' },
      { add: { name: 'BatchSize', type: 'int32', versions: '1+' }, after: 'MaxRecords' },
      { field: 'PartitionMaxBytes', in: ['Topics', 'Partitions'], versions: '0' },
    ],
    response: [
      { add: { name: 'AcquisitionLockTimeoutMs', type: 'int32', versions: '1+' }, after: 'ErrorMessage' },
      { field: 'Records', in: ['Responses', 'Partitions'], nullableVersions: '0' },
    ],
  },
  {
    apiKey: 78,
    version: 2,
    what: 'ShareFetch v2, KIP-1206 and KIP-1222: the acquire mode (0 batch-optimized, 1 record-limit) and renew acknowledgements (type 4)',
    request: [
      { add: { name: 'ShareAcquireMode', type: 'int8', versions: '2+', default: '0' }, after: 'BatchSize' },
      { add: { name: 'IsRenewAck', type: 'bool', versions: '2+', default: 'false' }, after: 'ShareAcquireMode' },
    ],
  },
  { apiKey: 79, version: 1, lowest: 1, what: 'ShareAcknowledge v1, KIP-932: the first stable version (v0, the early access, is gone)' },
  {
    apiKey: 79,
    version: 2,
    what: 'ShareAcknowledge v2, KIP-1222: renew acknowledgements (type 4), and the acquisition lock timeout in the response',
    request: [{ add: { name: 'IsRenewAck', type: 'bool', versions: '2+', default: 'false' }, after: 'ShareSessionEpoch' }],
    response: [{ add: { name: 'AcquisitionLockTimeoutMs', type: 'int32', versions: '2+' }, after: 'ErrorMessage' }],
  },
  {
    apiKey: 90,
    version: 1,
    what: 'DescribeShareGroupOffsets v1, KIP-1226: each partition\'s lag',
    response: [{ add: { name: 'Lag', type: 'int64', versions: '1+', default: '-1' }, in: ['Groups', 'Topics', 'Partitions'], after: 'LeaderEpoch' }],
  },
];

const throttleTimeMs: RawField = { name: 'ThrottleTimeMs', type: 'int32', versions: '0+' };
const errorCode: RawField = { name: 'ErrorCode', type: 'int16', versions: '0+' };
const errorMessage: RawField = { name: 'ErrorMessage', type: 'string', versions: '0+', nullableVersions: '0+', default: 'null' };

/** APIs Kafka added after the definitions, at their first version (KIP-932's share group offsets, Kafka 4.1). */
export const LATER_APIS: readonly RawMessage[] = [
  {
    apiKey: 90,
    type: 'request',
    name: 'DescribeShareGroupOffsetsRequest',
    validVersions: '0',
    flexibleVersions: '0+',
    fields: [
      {
        name: 'Groups', type: '[]DescribeShareGroupOffsetsRequestGroup', versions: '0+', fields: [
          { name: 'GroupId', type: 'string', versions: '0+' },
          {
            name: 'Topics', type: '[]DescribeShareGroupOffsetsRequestTopic', versions: '0+', nullableVersions: '0+', fields: [
              { name: 'TopicName', type: 'string', versions: '0+' },
              { name: 'Partitions', type: '[]int32', versions: '0+' },
            ],
          },
        ],
      },
    ],
  },
  {
    apiKey: 90,
    type: 'response',
    name: 'DescribeShareGroupOffsetsResponse',
    validVersions: '0',
    flexibleVersions: '0+',
    fields: [
      throttleTimeMs,
      {
        name: 'Groups', type: '[]DescribeShareGroupOffsetsResponseGroup', versions: '0+', fields: [
          { name: 'GroupId', type: 'string', versions: '0+' },
          {
            name: 'Topics', type: '[]DescribeShareGroupOffsetsResponseTopic', versions: '0+', fields: [
              { name: 'TopicName', type: 'string', versions: '0+' },
              { name: 'TopicId', type: 'uuid', versions: '0+' },
              {
                name: 'Partitions', type: '[]DescribeShareGroupOffsetsResponsePartition', versions: '0+', fields: [
                  { name: 'PartitionIndex', type: 'int32', versions: '0+' },
                  { name: 'StartOffset', type: 'int64', versions: '0+' },
                  { name: 'LeaderEpoch', type: 'int32', versions: '0+' },
                  errorCode,
                  errorMessage,
                ],
              },
            ],
          },
          errorCode,
          errorMessage,
        ],
      },
    ],
  },
  {
    apiKey: 91,
    type: 'request',
    name: 'AlterShareGroupOffsetsRequest',
    validVersions: '0',
    flexibleVersions: '0+',
    fields: [
      { name: 'GroupId', type: 'string', versions: '0+' },
      {
        name: 'Topics', type: '[]AlterShareGroupOffsetsRequestTopic', versions: '0+', fields: [
          { name: 'TopicName', type: 'string', versions: '0+' },
          {
            name: 'Partitions', type: '[]AlterShareGroupOffsetsRequestPartition', versions: '0+', fields: [
              { name: 'PartitionIndex', type: 'int32', versions: '0+' },
              { name: 'StartOffset', type: 'int64', versions: '0+' },
            ],
          },
        ],
      },
    ],
  },
  {
    apiKey: 91,
    type: 'response',
    name: 'AlterShareGroupOffsetsResponse',
    validVersions: '0',
    flexibleVersions: '0+',
    fields: [
      throttleTimeMs,
      errorCode,
      errorMessage,
      {
        name: 'Responses', type: '[]AlterShareGroupOffsetsResponseTopic', versions: '0+', fields: [
          { name: 'TopicName', type: 'string', versions: '0+' },
          { name: 'TopicId', type: 'uuid', versions: '0+' },
          {
            name: 'Partitions', type: '[]AlterShareGroupOffsetsResponsePartition', versions: '0+', fields: [
              { name: 'PartitionIndex', type: 'int32', versions: '0+' },
              errorCode,
              errorMessage,
            ],
          },
        ],
      },
    ],
  },
  {
    apiKey: 92,
    type: 'request',
    name: 'DeleteShareGroupOffsetsRequest',
    validVersions: '0',
    flexibleVersions: '0+',
    fields: [
      { name: 'GroupId', type: 'string', versions: '0+' },
      { name: 'Topics', type: '[]DeleteShareGroupOffsetsRequestTopic', versions: '0+', fields: [{ name: 'TopicName', type: 'string', versions: '0+' }] },
    ],
  },
  {
    apiKey: 92,
    type: 'response',
    name: 'DeleteShareGroupOffsetsResponse',
    validVersions: '0',
    flexibleVersions: '0+',
    fields: [
      throttleTimeMs,
      errorCode,
      errorMessage,
      {
        name: 'Responses', type: '[]DeleteShareGroupOffsetsResponseTopic', versions: '0+', fields: [
          { name: 'TopicName', type: 'string', versions: '0+' },
          { name: 'TopicId', type: 'uuid', versions: '0+' },
          errorCode,
          errorMessage,
        ],
      },
    ],
  },
];

/** The struct whose fields `path` (field names from the top) leads to. */
function fieldsAt(message: RawMessage, path: readonly string[], where: string): RawField[] {
  let fields: RawField[] = message.fields;
  for (const name of path) {
    const f = fields.find((x) => x.name === name);
    if (f === undefined) throw new Error(`${where}: no field ${name}`);
    const type = f.type.startsWith('[]') ? f.type.slice(2) : f.type;
    const inner = f.fields ?? message.commonStructs?.find((s: RawStruct) => s.name === type)?.fields;
    if (inner === undefined) throw new Error(`${where}: ${name} is not a struct`);
    fields = inner;
  }
  return fields;
}

function applyChange(message: RawMessage, change: SchemaChange): void {
  const path = change.in ?? [];
  const where = `${message.name}.${path.join('.')}`;
  const fields = fieldsAt(message, path, where);
  if ('add' in change) {
    if (fields.some((f) => f.name === change.add.name)) throw new Error(`${where}: ${change.add.name} is there already`);
    const at = change.after === undefined ? fields.length : fields.findIndex((f) => f.name === change.after) + 1;
    if (change.after !== undefined && at === 0) throw new Error(`${where}: no field ${change.after} to add ${change.add.name} after`);
    fields.splice(at, 0, { ...change.add });
  } else {
    const f = fields.find((x) => x.name === change.field);
    if (f === undefined) throw new Error(`${where}: no field ${change.field}`);
    if (change.versions === undefined && change.nullableVersions === undefined) throw new Error(`${where}: ${change.field} changes nothing`);
    if (change.versions !== undefined) f.versions = change.versions;
    if (change.nullableVersions !== undefined) f.nullableVersions = change.nullableVersions;
  }
}

/**
 * `raw` with the later versions of its api applied: those above its highest version, in order.
 * A version it has already is left alone (the definitions have caught up with it).
 */
export function withLaterVersions(raw: RawMessage): RawMessage {
  const m = /^(\d+)(?:-(\d+))?$/.exec(raw.validVersions);
  if (!m) throw new Error(`${raw.name}: validVersions ${raw.validVersions} is not a range`);
  const highest = Number(m[2] ?? m[1]);
  const later = LATER_VERSIONS.filter((v) => v.apiKey === raw.apiKey && v.version > highest).sort((a, b) => a.version - b.version);
  if (later.length === 0) return raw;
  const out = structuredClone(raw);
  let lowest = Number(m[1]);
  let expected = highest + 1;
  for (const v of later) {
    if (v.version !== expected) throw new Error(`${raw.name}: later version ${v.version} leaves a gap after ${expected - 1}`);
    expected++;
    if (v.lowest !== undefined) {
      if (v.lowest < lowest || v.lowest > v.version) throw new Error(`${raw.name}: version ${v.version} cannot make ${v.lowest} the lowest`);
      lowest = v.lowest;
    }
    for (const change of (raw.type === 'request' ? v.request : v.response) ?? []) applyChange(out, change);
  }
  out.validVersions = `${lowest}-${expected - 1}`;
  return out;
}
